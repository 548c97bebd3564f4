/* SPDX-License-Identifier: MIT */
/* Individual goals on a large plan (docs/navigation.md, "Costs"): prints figures, passes or
 * fails nothing.
 *
 *   orca_nav_goals [--agents N] [--rooms R] [--radii K] [--workers W] [--steps S]
 *
 * The plan: R x R rooms of 10 x 8 m with a 1.2 m door in the middle of every inner wall and a
 * closed outer wall (R = 22: 2,024 wall segments). N agents (default 2,000) with K radii (0.20,
 * 0.21, ... m; default 10), each in a room of its own order and with a goal point of its own in
 * another room, all from a fixed generator: the same scene every run. Prints the time of the
 * first step (every agent's first plan) and of the next S steps, and the scenario hash after
 * them, which must be the same for every worker count. */
#define _POSIX_C_SOURCE 200809L
#include "orca/orca.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define ROOM_W 10.0
#define ROOM_H 8.0
#define DOOR 1.2

/* splitmix64: the scene's generator. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double unit(uint64_t *s) { return (double)(next(s) >> 11) * 0x1.0p-53; }

/* A wall from a to b along one axis with a gap of width w in its middle (w 0: none). */
static int wall(orca_sim *sim, orca_vec2 a, orca_vec2 b, double w, int *count)
{
    orca_segment_id id;
    if (w <= 0) {
        ++*count;
        return orca_sim_add_segment(sim, a, b, &id) != ORCA_OK;
    }
    orca_vec2 m = vec((a.x + b.x) / 2, (a.y + b.y) / 2);
    int vertical = a.x == b.x;
    orca_vec2 g0 = vertical ? vec(m.x, m.y - w / 2) : vec(m.x - w / 2, m.y);
    orca_vec2 g1 = vertical ? vec(m.x, m.y + w / 2) : vec(m.x + w / 2, m.y);
    *count += 2;
    return orca_sim_add_segment(sim, a, g0, &id) != ORCA_OK ||
           orca_sim_add_segment(sim, g1, b, &id) != ORCA_OK;
}

static int build_plan(orca_sim *sim, int rooms)
{
    int count = 0;
    for (int j = 0; j <= rooms; ++j) {
        for (int i = 0; i < rooms; ++i) {
            int outer = j == 0 || j == rooms;
            if (wall(sim, vec(i * ROOM_W, j * ROOM_H), vec((i + 1) * ROOM_W, j * ROOM_H),
                     outer ? 0.0 : DOOR, &count)) {
                return -1;
            }
        }
    }
    for (int i = 0; i <= rooms; ++i) {
        for (int j = 0; j < rooms; ++j) {
            int outer = i == 0 || i == rooms;
            if (wall(sim, vec(i * ROOM_W, j * ROOM_H), vec(i * ROOM_W, (j + 1) * ROOM_H),
                     outer ? 0.0 : DOOR, &count)) {
                return -1;
            }
        }
    }
    return count;
}

/* A point in room (i, j), at least 1 m from its walls. */
static orca_vec2 in_room(uint64_t *s, int i, int j)
{
    return vec(i * ROOM_W + 1 + unit(s) * (ROOM_W - 2), j * ROOM_H + 1 + unit(s) * (ROOM_H - 2));
}

int main(int argc, char **argv)
{
    int agents = 2000, rooms = 22, radii = 10, workers = 1, steps = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        int v = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--agents") == 0) {
            agents = v;
        } else if (strcmp(argv[i], "--rooms") == 0) {
            rooms = v;
        } else if (strcmp(argv[i], "--radii") == 0) {
            radii = v;
        } else if (strcmp(argv[i], "--workers") == 0) {
            workers = v;
        } else if (strcmp(argv[i], "--steps") == 0) {
            steps = v;
        } else {
            fprintf(stderr, "usage: orca_nav_goals [--agents N] [--rooms R] [--radii K] "
                            "[--workers W] [--steps S]\n");
            return 2;
        }
    }
    if (agents < 1 || rooms < 2 || radii < 1 || workers < 1 || steps < 0) {
        fprintf(stderr, "orca_nav_goals: every value must be positive (rooms at least 2)\n");
        return 2;
    }
    orca_scenario *sc = NULL;
    if (orca_scenario_create(NULL, 0.1, 1, &sc) != ORCA_OK) {
        return 1;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    if (orca_sim_set_worker_count(sim, workers) != ORCA_OK) {
        fprintf(stderr, "%s\n", orca_sim_last_error(sim));
        return 1;
    }
    int walls = build_plan(sim, rooms);
    if (walls < 0 || orca_scenario_set_navigation(sc, 1) != ORCA_OK) {
        fprintf(stderr, "building the plan failed\n");
        return 1;
    }
    uint64_t s = 43;
    for (int k = 0; k < agents; ++k) {
        int room = (int)(next(&s) % (uint64_t)(rooms * rooms));
        int goal_room = (int)(next(&s) % (uint64_t)(rooms * rooms));
        orca_agent_def d = orca_agent_def_default();
        d.radius = 0.2 + 0.01 * (double)(k % radii);
        d.max_speed = 1.5;
        d.neighbor_dist = 3;
        d.max_neighbors = 10;
        d.time_horizon = 1;
        d.obstacle_time_horizon = 0.25;
        d.position = in_room(&s, room % rooms, room / rooms);
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_POINT;
        g.target = in_room(&s, goal_room % rooms, goal_room / rooms);
        g.preferred_speed = 1.2;
        if (orca_scenario_add_agent(sc, &d, &g, NULL) != ORCA_OK) {
            fprintf(stderr, "agent %d: %s\n", k, orca_scenario_last_error(sc));
            return 1;
        }
    }
    orca_scenario_set_recording(sc, 0);
    printf("%d agents with their own goals, %d radii, %d x %d rooms (%d walls), %d worker%s\n",
           agents, radii, rooms, rooms, walls, workers, workers == 1 ? "" : "s");
    double t0 = now();
    if (orca_scenario_step(sc) != ORCA_OK) {
        fprintf(stderr, "step: %s\n", orca_scenario_last_error(sc));
        return 1;
    }
    double t_first = now() - t0;
    long corners = 0, unreachable = 0;
    for (int i = 0; i < agents; ++i) {
        orca_nav_agent na;
        if (orca_scenario_agent_nav(sc, i, &na, NULL, 0) == ORCA_OK) {
            corners += na.corners;
            unreachable += na.result != ORCA_NAV_OK;
        }
    }
    printf("  first step     %.3f s (%.2f ms an agent; %.1f corners a path, %ld without one)\n",
           t_first, 1e3 * t_first / agents, (double)corners / agents, unreachable);
    t0 = now();
    for (int k = 0; k < steps; ++k) {
        if (orca_scenario_step(sc) != ORCA_OK) {
            fprintf(stderr, "step: %s\n", orca_scenario_last_error(sc));
            return 1;
        }
    }
    if (steps > 0) {
        printf("  next %d steps  %.3f s\n", steps, now() - t0);
    }
    printf("  state hash     %016llx\n", (unsigned long long)orca_scenario_hash(sc));
    orca_scenario_destroy(sc);
    return 0;
}
