/* SPDX-License-Identifier: MIT */
/* The call-by-call scenes of the C# tests, built through the C API: dotnet/tests/Tests.cs
 * builds the same two scenes through the binding, call for call, and compares its hashes with
 * the lines this program prints (scripts/test-dotnet runs both).
 *   plain:    a simulation on 2 workers: 48 agents of varied parameters, a segment and a
 *             closed polyline, avoidance settings of three kinds, one agent removed; 120 steps
 *             whose preferred velocities the program computes (to the mirror of each start,
 *             at most 1 m/s) and sets in bulk.
 *   scenario: a scenario (dt 0.1, seed 7): a walkable-area loop, a wall, 30 agents with point
 *             goals, waypoints, a goal set that is an exit, navigation on; 450 steps.
 * Prints "plain steps=0 hash=H", "plain steps=120 hash=H", "scenario steps=450 hash=H
 * arrived=A exited=E", and "sizes NAME=BYTES ..." of the structs the binding lays out (the C
 * compiler's sizes, which the C# structs must have). */
#include "orca/orca.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#define PLAIN_AGENTS 48
#define PLAIN_REMOVED 11
#define PLAIN_STEPS 120
#define SCENARIO_AGENTS 30
#define SCENARIO_STEPS 450

static int fail(const char *what, orca_status st, const char *message)
{
    fprintf(stderr, "scene_calls: %s: %s: %s\n", what, orca_status_name(st), message);
    return 1;
}

static orca_vec2 v2(double x, double y)
{
    orca_vec2 v = {x, y};
    return v;
}

static orca_agent_def plain_agent(int i)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = v2((i % 8) * 3.0 - 10.5, (i / 8) * 3.0 - 7.5);
    d.radius = 0.5 + (i % 3) * 0.125;
    d.max_speed = 1.5 + (i % 4) * 0.25;
    d.neighbor_dist = 6.0;
    d.max_neighbors = 8;
    d.time_horizon = 3.0;
    d.obstacle_time_horizon = 2.0;
    return d;
}

/* Toward goal, at most 1 m/s: d = goal - p; d / |d| when |d|^2 > 1. */
static orca_vec2 toward(orca_vec2 p, orca_vec2 goal)
{
    orca_vec2 d = v2(goal.x - p.x, goal.y - p.y);
    double len2 = d.x * d.x + d.y * d.y;
    if (len2 > 1.0) {
        double len = sqrt(len2);
        d = v2(d.x / len, d.y / len);
    }
    return d;
}

static int plain(void)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = 2;
    orca_sim *sim = NULL;
    orca_status st = orca_sim_create(&def, &sim);
    if (st != ORCA_OK) {
        return fail("create", st, orca_sim_last_error(NULL));
    }
    orca_agent_id ids[PLAIN_AGENTS];
    orca_vec2 goals[PLAIN_AGENTS];
    int n = 0;
    for (int i = 0; i < PLAIN_AGENTS; ++i) {
        orca_agent_def d = plain_agent(i);
        st = orca_sim_add_agent(sim, &d, &ids[i]);
        if (st != ORCA_OK) {
            return fail("add_agent", st, orca_sim_last_error(sim));
        }
    }
    orca_vec2 box[4] = {v2(18, -2), v2(22, -2), v2(22, 2), v2(18, 2)};
    orca_agent_avoidance av = orca_agent_avoidance_default();
    av.priority = 2.0;
    if ((st = orca_sim_add_segment(sim, v2(-2, 12), v2(2, 12), NULL)) != ORCA_OK ||
        (st = orca_sim_add_polyline(sim, box, 4, 1, NULL)) != ORCA_OK ||
        (st = orca_agent_set_avoidance(sim, ids[5], &av)) != ORCA_OK ||
        (st = orca_agent_set_layers(sim, ids[7], 2, 1)) != ORCA_OK ||
        (st = orca_agent_set_velocity(sim, ids[9], v2(0.5, 0))) != ORCA_OK ||
        (st = orca_agent_set_locked(sim, ids[9], 1)) != ORCA_OK ||
        (st = orca_sim_remove_agent(sim, ids[PLAIN_REMOVED])) != ORCA_OK) {
        return fail("setup", st, orca_sim_last_error(sim));
    }
    for (int i = 0; i < PLAIN_AGENTS; ++i) {
        if (i != PLAIN_REMOVED) {
            orca_agent_def d = plain_agent(i);
            goals[n++] = v2(-d.position.x, -d.position.y);
        }
    }
    printf("plain steps=0 hash=%016" PRIx64 "\n", orca_sim_hash(sim));
    orca_vec2 pref[PLAIN_AGENTS];
    for (int k = 0; k < PLAIN_STEPS; ++k) {
        const orca_vec2 *pos = orca_sim_positions(sim);
        for (int i = 0; i < n; ++i) {
            pref[i] = toward(pos[i], goals[i]);
        }
        if ((st = orca_sim_swap_preferred_velocities(sim, pref, n)) != ORCA_OK ||
            (st = orca_sim_step(sim, 0.1)) != ORCA_OK) {
            return fail("step", st, orca_sim_last_error(sim));
        }
    }
    printf("plain steps=%d hash=%016" PRIx64 "\n", PLAIN_STEPS, orca_sim_hash(sim));
    orca_sim_destroy(sim);
    return 0;
}

static int scenario(void)
{
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create(NULL, 0.1, 7, &sc);
    if (st != ORCA_OK) {
        return fail("scenario_create", st, orca_scenario_last_error(NULL));
    }
    orca_sim *sim = orca_scenario_sim(sc);
    orca_vec2 outer[4] = {v2(-30, -30), v2(30, -30), v2(30, 30), v2(-30, 30)};
    orca_vec2 exits[2] = {v2(25, 25), v2(-25, 25)};
    orca_vec2 route[2] = {v2(0, -20), v2(10, -20)};
    int set = -1;
    if ((st = orca_sim_add_boundary(sim, outer, 4, NULL)) != ORCA_OK ||
        (st = orca_sim_add_segment(sim, v2(-10, 5), v2(10, 5), NULL)) != ORCA_OK) {
        return fail("walls", st, orca_sim_last_error(sim));
    }
    if ((st = orca_scenario_add_goal_set(sc, "exit", exits, 2, &set)) != ORCA_OK ||
        (st = orca_scenario_set_goal_set_exit(sc, set, 1.0)) != ORCA_OK) {
        return fail("goal set", st, orca_scenario_last_error(sc));
    }
    for (int i = 0; i < SCENARIO_AGENTS; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = v2((i % 6) * 4.0 - 10.0, (i / 6) * 2.5 - 15.0);
        d.radius = 0.4;
        d.max_speed = 1.8;
        d.neighbor_dist = 5.0;
        d.time_horizon = 2.0;
        d.obstacle_time_horizon = 2.0;
        orca_goal g = orca_goal_default();
        if (i % 3 == 0) {
            g.kind = ORCA_GOAL_SET;
            g.goal_set = set;
            g.preferred_speed = 1.4;
        } else {
            g.kind = ORCA_GOAL_POINT;
            g.target = v2(-d.position.x, 15.0 + (i % 4));
            g.preferred_speed = 1.2;
        }
        if ((st = orca_scenario_add_agent(sc, &d, &g, NULL)) != ORCA_OK) {
            return fail("scenario_add_agent", st, orca_scenario_last_error(sc));
        }
    }
    if ((st = orca_scenario_set_waypoints(sc, 1, route, 2, 0, 0.0)) != ORCA_OK ||
        (st = orca_scenario_set_navigation(sc, 1)) != ORCA_OK) {
        return fail("waypoints, navigation", st, orca_scenario_last_error(sc));
    }
    for (int k = 0; k < SCENARIO_STEPS; ++k) {
        if ((st = orca_scenario_step(sc)) != ORCA_OK) {
            return fail("scenario_step", st, orca_scenario_last_error(sc));
        }
    }
    int exited = 0;
    orca_scenario_exited(sc, &exited, NULL);
    printf("scenario steps=%d hash=%016" PRIx64 " arrived=%d exited=%d\n", SCENARIO_STEPS,
           orca_scenario_hash(sc), orca_scenario_arrived_count(sc), exited);
    orca_scenario_destroy(sc);
    return 0;
}

#define SIZE(T) printf(" %s=%zu", #T, sizeof(T))

int main(void)
{
    printf("sizes");
    SIZE(orca_vec2);
    SIZE(orca_halfplane);
    SIZE(orca_agent_id);
    SIZE(orca_segment_id);
    SIZE(orca_boundary_id);
    SIZE(orca_agent_def);
    SIZE(orca_sim_def);
    SIZE(orca_scene_build_def);
    SIZE(orca_agent_avoidance);
    SIZE(orca_density_speed);
    SIZE(orca_pedestrian);
    SIZE(orca_agent_diagnostics);
    SIZE(orca_step_diagnostics);
    SIZE(orca_goal);
    SIZE(orca_nav_corner);
    SIZE(orca_nav_stats);
    SIZE(orca_nav_agent);
    SIZE(orca_nav_counts);
    SIZE(orca_vo);
    SIZE(orca_vo_cases);
    SIZE(orca_lp_result);
    SIZE(orca_solve_result);
    SIZE(orca_allocator);
    printf("\n");
    return plain() || scenario();
}
