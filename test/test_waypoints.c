/* SPDX-License-Identifier: MIT */
/* Waypoints (docs/extensions.md, "Waypoints"): the switch re-computed here from the positions
 * read through the API after every step (the documented test, written again) and compared
 * with the library's current waypoint; a patrol scene (agents walking laps around a square in
 * both directions, the scene of examples/patrol.txt) with its measured outcome; the final
 * target behaving exactly like a goal without waypoints; the state hash (the simulation's
 * without waypoints, the documented continuation with them, the same for 1 and 4 workers);
 * arrival; a refused step; and every argument at and beyond the edges of its range. */
#include "test.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orca/scenario.h>

static orca_vec2 position_of(orca_scenario *sc, int i)
{
    orca_sim *sim = orca_scenario_sim(sc);
    orca_vec2 p = {0, 0};
    orca_agent_get_position(sim, orca_sim_agent_at(sim, i), &p);
    return p;
}

static orca_status add_point_agent(orca_scenario *sc, orca_vec2 start, orca_vec2 goal,
                                   double radius, double speed)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = start;
    d.radius = radius;
    orca_goal g;
    memset(&g, 0, sizeof g);
    g.kind = ORCA_GOAL_POINT;
    g.target = goal;
    g.preferred_speed = speed;
    return orca_scenario_add_agent(sc, &d, &g, NULL);
}

/* The patrol of examples/patrol.txt: four agents counter-clockwise from the corners of a
 * 30 m square, four clockwise from the middles of its sides, each looping over the corners
 * back to its start, arrive distance 2 m, radius 1 m, preferred speed 1.5 m/s. */
#define PATROL_AGENTS 8
#define PATROL_WP 4 /* waypoints per agent (then the goal: 5 targets per lap) */

static const double k_corner[4][2] = {{-15, -15}, {15, -15}, {15, 15}, {-15, 15}};

static void patrol_route(int a, orca_vec2 *start, orca_vec2 *wp, int *count)
{
    if (a < 4) { /* counter-clockwise from corner a: corners a+1, a+2, a+3, then a */
        *start = vec(k_corner[a][0], k_corner[a][1]);
        for (int k = 0; k < 3; ++k) {
            int c = (a + 1 + k) % 4;
            wp[k] = vec(k_corner[c][0], k_corner[c][1]);
        }
        *count = 3;
    } else { /* clockwise from the middle of side s (between corners s and s+1) */
        int s = a - 4;
        *start = vec((k_corner[s][0] + k_corner[(s + 1) % 4][0]) * 0.5,
                     (k_corner[s][1] + k_corner[(s + 1) % 4][1]) * 0.5);
        for (int k = 0; k < 4; ++k) {
            int c = ((s - k) % 4 + 4) % 4;
            wp[k] = vec(k_corner[c][0], k_corner[c][1]);
        }
        *count = 4;
    }
}

static orca_scenario *make_patrol(int workers)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    orca_scenario *sc = NULL;
    if (orca_scenario_create(&def, 0.25, 1, &sc) != ORCA_OK) {
        return NULL;
    }
    for (int a = 0; a < PATROL_AGENTS; ++a) {
        orca_vec2 start, wp[4];
        int count = 0;
        patrol_route(a, &start, wp, &count);
        if (add_point_agent(sc, start, start, 1.0, 1.5) != ORCA_OK ||
            orca_scenario_set_waypoints(sc, a, wp, count, 1, 2.0) != ORCA_OK) {
            orca_scenario_destroy(sc);
            return NULL;
        }
    }
    return sc;
}

/* The documented switch, written again from docs/extensions.md: the target sequence is the
 * waypoints then the goal; before each step an agent whose squared distance to its current
 * target is <= D*D, or that has passed it (the target lies behind it along the leg that
 * leads there: from the previous target, or for waypoint 0 from the goal on a looping route
 * and from the route's start otherwise), takes the next target (with loop, the goal is
 * followed by waypoint 0). */
typedef struct tracker {
    orca_vec2 targets[PATROL_WP + 1];
    orca_vec2 route_start; /* where the agent stood when its waypoints were set */
    int count; /* waypoints */
    int current;
    int loop;
    double d;
    long switches;
    long passed; /* switches by the passing test alone */
} tracker;

static void track(tracker *t, orca_vec2 p)
{
    if (t->current == t->count && !t->loop) {
        return;
    }
    orca_vec2 g = t->targets[t->current];
    orca_vec2 from = t->current > 0 ? t->targets[t->current - 1]
                                    : (t->loop ? t->targets[t->count] : t->route_start);
    double dx = g.x - p.x, dy = g.y - p.y;
    int near = dx * dx + dy * dy <= t->d * t->d;
    int passed = dx * (g.x - from.x) + dy * (g.y - from.y) < 0;
    if (near || passed) {
        t->current = t->current + 1 > t->count ? 0 : t->current + 1;
        t->switches++;
        t->passed += !near;
    }
}

static int test_patrol(void)
{
    orca_scenario *sc = make_patrol(1);
    ENSURE(sc);
    tracker tr[PATROL_AGENTS];
    for (int a = 0; a < PATROL_AGENTS; ++a) {
        orca_vec2 start, wp[4];
        int count = 0;
        patrol_route(a, &start, wp, &count);
        memset(&tr[a], 0, sizeof tr[a]);
        for (int k = 0; k < count; ++k) {
            tr[a].targets[k] = wp[k];
        }
        tr[a].targets[count] = start;
        tr[a].count = count;
        tr[a].loop = 1;
        tr[a].d = 2.0;
    }
    const int steps = 2000;
    double min_gap = INFINITY; /* smallest centre distance minus the radii, over all steps */
    for (int s = 0; s < steps; ++s) {
        for (int a = 0; a < PATROL_AGENTS; ++a) {
            track(&tr[a], position_of(sc, a));
        }
        ENSURE_MSG(orca_scenario_step(sc) == ORCA_OK, "%s", orca_scenario_last_error(sc));
        for (int a = 0; a < PATROL_AGENTS; ++a) {
            int cur = -1;
            ENSURE(orca_scenario_waypoint_index(sc, a, &cur) == ORCA_OK);
            ENSURE_MSG(cur == tr[a].current, "step %d agent %d: library %d, re-computed %d", s + 1,
                       a, cur, tr[a].current);
            orca_vec2 p = position_of(sc, a);
            for (int b = a + 1; b < PATROL_AGENTS; ++b) {
                orca_vec2 q = position_of(sc, b);
                double gap = sqrt((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)) - 2.0;
                min_gap = gap < min_gap ? gap : min_gap;
            }
        }
    }
    /* The measured outcome: every agent keeps visiting every corner in order. The laps (one
     * per count + 1 targets) are counted from the re-computed switches. */
    long fewest = LONG_MAX; /* (long is 32 bits on Windows) */
    for (int a = 0; a < PATROL_AGENTS; ++a) {
        long laps = tr[a].switches / (tr[a].count + 1);
        fewest = laps < fewest ? laps : fewest;
        ENSURE_MSG(laps >= 4, "agent %d completed %ld laps in %d steps", a, laps, steps);
    }
    ENSURE(orca_scenario_arrived_count(sc) == 0); /* looping agents never arrive */
    ENSURE(orca_scenario_all_arrived_step(sc) == -1);
    ENSURE_MSG(min_gap > -0.1, "deepest overlap %.3f m", -min_gap);
    printf("    patrol: %d steps, fewest laps %ld (switches per agent:", steps, fewest);
    for (int a = 0; a < PATROL_AGENTS; ++a) {
        printf(" %ld", tr[a].switches);
    }
    printf("), smallest gap between agents %.3g m, scenario hash 0x%016llx\n", min_gap,
           (unsigned long long)orca_scenario_hash(sc));
    orca_scenario_destroy(sc);
    return 0;
}

/* The same scene on 1 and 4 workers: the same hash after every 100 steps. */
static int test_workers(void)
{
    orca_scenario *a = make_patrol(1), *b = make_patrol(4);
    ENSURE(a && b);
    for (int s = 1; s <= 1000; ++s) {
        ENSURE(orca_scenario_step(a) == ORCA_OK && orca_scenario_step(b) == ORCA_OK);
        if (s % 100 == 0) {
            ENSURE(orca_scenario_hash(a) == orca_scenario_hash(b));
            ENSURE(orca_sim_hash(orca_scenario_sim(a)) == orca_sim_hash(orca_scenario_sim(b)));
        }
    }
    orca_scenario_destroy(a);
    orca_scenario_destroy(b);
    return 0;
}

/* FNV-1a continued over 64-bit values, most significant byte first (docs/determinism.md). */
static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    for (int b = 56; b >= 0; b -= 8) {
        h ^= (v >> b) & 0xffu;
        h *= 0x100000001b3ull;
    }
    return h;
}

static int test_hash(void)
{
    /* Without waypoints: the simulation's hash, for built-in scenes too. */
    for (int kind = 0; kind < ORCA_SCENE_COUNT; ++kind) {
        orca_scenario *sc = NULL;
        ENSURE(orca_scenario_create_builtin((orca_scene_kind)kind, 50, 1, NULL, &sc) == ORCA_OK);
        for (int s = 0; s < 3; ++s) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        ENSURE(orca_scenario_hash(sc) == orca_sim_hash(orca_scenario_sim(sc)));
        orca_scenario_destroy(sc);
    }
    /* With waypoints: the documented continuation, by index order. */
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 3, &sc) == ORCA_OK);
    orca_vec2 w[2] = {vec(5, 0), vec(5, 5)};
    ENSURE(add_point_agent(sc, vec(0, 0), vec(10, 0), 0.5, 1.0) == ORCA_OK);
    ENSURE(add_point_agent(sc, vec(0, 20), vec(10, 20), 0.5, 1.0) == ORCA_OK);
    ENSURE(add_point_agent(sc, vec(0, 40), vec(10, 40), 0.5, 1.0) == ORCA_OK);
    uint64_t plain = orca_scenario_hash(sc);
    ENSURE(plain == orca_sim_hash(orca_scenario_sim(sc)));
    ENSURE(orca_scenario_set_waypoints(sc, 1, w, 2, 0, 0.0) == ORCA_OK);
    ENSURE(orca_scenario_set_waypoints(sc, 2, w, 1, 1, 0.0) == ORCA_OK);
    ENSURE(orca_scenario_set_waypoint_index(sc, 1, 2) == ORCA_OK);
    uint64_t h = orca_sim_hash(orca_scenario_sim(sc));
    h = fnv_u64(h, 2);
    h = fnv_u64(fnv_u64(h, 1), 2);
    h = fnv_u64(fnv_u64(h, 2), 0);
    ENSURE(orca_scenario_hash(sc) == h);
    ENSURE(orca_scenario_hash(sc) != plain);
    /* Clearing the waypoints gives the plain hash back (and the goal point back). */
    ENSURE(orca_scenario_set_waypoints(sc, 1, NULL, 0, 0, 0.0) == ORCA_OK);
    ENSURE(orca_scenario_set_waypoints(sc, 2, NULL, 0, 0, 0.0) == ORCA_OK);
    ENSURE(orca_scenario_hash(sc) == plain);
    orca_goal g;
    ENSURE(orca_scenario_agent_goal(sc, 2, &g, NULL) == ORCA_OK);
    ENSURE_BITS(g.target.x, 10.0);
    ENSURE_BITS(g.target.y, 40.0);
    ENSURE(orca_scenario_hash(NULL) == orca_sim_hash(NULL));
    /* An agent with waypoints removed from the simulation: no live agent has any. */
    ENSURE(orca_scenario_set_waypoints(sc, 1, w, 2, 0, 0.0) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    ENSURE(orca_sim_remove_agent(sim, orca_sim_agent_at(sim, 1)) == ORCA_OK);
    ENSURE(orca_scenario_hash(sc) == orca_sim_hash(sim));
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    ENSURE(orca_scenario_hash(sc) == orca_sim_hash(sim));
    orca_scenario_destroy(sc);
    return 0;
}

/* At its final target an agent with waypoints is stepped exactly like an agent whose goal is
 * that point and that has no waypoints: the same bits after every step. */
static int test_final_target_same_bits(void)
{
    orca_scenario *a = NULL, *b = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 9, &a) == ORCA_OK);
    ENSURE(orca_scenario_create(NULL, 0.25, 9, &b) == ORCA_OK);
    orca_vec2 w[3] = {vec(-3, 7), vec(4, 4), vec(8, -2)};
    for (int i = 0; i < 6; ++i) {
        orca_vec2 start = vec(-10.0 + 4.0 * i, (double)(i % 2) * 3.0);
        orca_vec2 goal = vec(10.0 - 4.0 * i, 12.0);
        ENSURE(add_point_agent(a, start, goal, 1.0, 1.2) == ORCA_OK);
        ENSURE(add_point_agent(b, start, goal, 1.0, 1.2) == ORCA_OK);
        ENSURE(orca_scenario_set_waypoints(a, i, w, 3, 0, 1.5) == ORCA_OK);
        ENSURE(orca_scenario_set_waypoint_index(a, i, 3) == ORCA_OK);
    }
    for (int s = 0; s < 200; ++s) {
        ENSURE(orca_scenario_step(a) == ORCA_OK && orca_scenario_step(b) == ORCA_OK);
        ENSURE(orca_sim_hash(orca_scenario_sim(a)) == orca_sim_hash(orca_scenario_sim(b)));
    }
    ENSURE(orca_scenario_arrived_count(a) == orca_scenario_arrived_count(b));
    ENSURE(orca_scenario_all_arrived_step(a) == orca_scenario_all_arrived_step(b));
    ENSURE(orca_scenario_all_arrived_step(a) > 0);
    orca_scenario_destroy(a);
    orca_scenario_destroy(b);
    return 0;
}

/* One agent alone: it visits its waypoints in order, one switch per step at most, the
 * default distance is its radius, and it arrives only at the goal. */
static int test_single_agent(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 5, &sc) == ORCA_OK);
    /* Waypoints 0 and 1 both lie within the radius (0.5) of the start: two steps, two
     * switches, not one. */
    orca_vec2 w[4] = {vec(0.1, 0), vec(0.2, 0), vec(6, 0), vec(6, 6)};
    ENSURE(add_point_agent(sc, vec(0, 0), vec(0, 6), 0.5, 1.0) == ORCA_OK);
    ENSURE(orca_scenario_set_waypoints(sc, 0, w, 4, 0, 0.0) == ORCA_OK);
    tracker t;
    memset(&t, 0, sizeof t);
    for (int k = 0; k < 4; ++k) {
        t.targets[k] = w[k];
    }
    t.targets[4] = vec(0, 6);
    t.route_start = vec(0, 0);
    t.count = 4;
    t.d = 0.5;
    int last = 0, first_at_goal = -1;
    for (int s = 1; s <= 200; ++s) {
        track(&t, position_of(sc, 0));
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
        int cur = -1;
        ENSURE(orca_scenario_waypoint_index(sc, 0, &cur) == ORCA_OK);
        ENSURE(cur == t.current);
        ENSURE(cur == last || cur == last + 1);
        if (s <= 2) {
            ENSURE(cur == s);
        }
        if (cur < 4) {
            ENSURE(orca_scenario_arrived_count(sc) == 0);
        }
        if (cur == 4 && first_at_goal < 0) {
            first_at_goal = s;
        }
        last = cur;
    }
    ENSURE(last == 4);
    ENSURE(orca_scenario_arrived_count(sc) == 1);
    ENSURE(orca_scenario_all_arrived_step(sc) > first_at_goal);
    orca_goal g;
    orca_vec2 start;
    ENSURE(orca_scenario_agent_goal(sc, 0, &g, &start) == ORCA_OK);
    ENSURE_BITS(g.target.x, 0.0);
    ENSURE_BITS(g.target.y, 6.0);
    /* Alone, the agent walks at its preferred speed (1 m/s, plus the 1e-4 perturbation):
     * reaching the radius (0.5) of (6, 0) takes at least 5.5 m, then that of (6, 6) at least
     * 5 m more, then that of the goal (0, 6) another 5 m. */
    printf("    single agent: the goal is its target from step %d, arrived at step %lld\n",
           first_at_goal, (long long)orca_scenario_all_arrived_step(sc));
    ENSURE(first_at_goal * 0.25 * 1.0001 >= 10.5);
    ENSURE(orca_scenario_all_arrived_step(sc) * 0.25 * 1.0001 >= 15.5);
    orca_scenario_destroy(sc);
    return 0;
}

/* The passing test alone (docs/extensions.md, "Waypoints"), one agent standing still (max
 * speed 0, so nothing moves it): beside waypoint 0 beyond its arrive distance it keeps it;
 * one ulp beyond the perpendicular through it (as seen from the route's start) it takes the
 * next one at the next step; the leg to the next waypoint then starts at waypoint 0. */
static int passing_case(orca_vec2 start, orca_vec2 agent_at, int loop, int expect_switches)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 1, &sc) == ORCA_OK);
    orca_agent_def d = orca_agent_def_default();
    d.position = start;
    d.radius = 0.5;
    d.max_speed = 0;
    orca_goal g = {ORCA_GOAL_POINT, vec(0, 30), 1.0, 0};
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    orca_vec2 w[2] = {vec(10, 0), vec(10, 20)};
    ENSURE(orca_scenario_set_waypoints(sc, 0, w, 2, loop, 0.0) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    ENSURE(orca_agent_set_position(sim, orca_sim_agent_at(sim, 0), agent_at) == ORCA_OK);
    for (int s = 0; s < 3; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    int cur = -1;
    ENSURE(orca_scenario_waypoint_index(sc, 0, &cur) == ORCA_OK);
    ENSURE_MSG(cur == expect_switches, "start (%g, %g), agent at (%.17g, %g), loop %d: target %d",
               start.x, start.y, agent_at.x, agent_at.y, loop, cur);
    orca_scenario_destroy(sc);
    return 0;
}

static int test_passing(void)
{
    double beyond = nextafter(10.0, 11.0);
    /* route from (0, 0): the perpendicular through (10, 0) is x = 10 */
    ENSURE(passing_case(vec(0, 0), vec(9.5, 3), 0, 0) == 0);   /* before it, 3 m aside */
    ENSURE(passing_case(vec(0, 0), vec(10, 3), 0, 0) == 0);    /* on it: not passed */
    ENSURE(passing_case(vec(0, 0), vec(beyond, 3), 0, 1) == 0); /* one ulp beyond */
    /* from waypoint 0 the leg to (10, 20) runs along y: beyond y = 20 passes it too */
    ENSURE(passing_case(vec(0, 0), vec(14, 25), 0, 2) == 0);
    /* the route's start counts, not the agent's start: set from (20, 0), x < 10 is beyond */
    ENSURE(passing_case(vec(20, 0), vec(9.5, 3), 0, 1) == 0);
    ENSURE(passing_case(vec(20, 0), vec(10.5, 3), 0, 0) == 0);
    /* a looping route's leg to waypoint 0 starts at the goal (0, 30): beyond the line through
     * (10, 0) across the direction (10, -30) */
    ENSURE(passing_case(vec(0, 0), vec(10, -1), 1, 1) == 0);
    ENSURE(passing_case(vec(0, 0), vec(9.5, 3), 1, 0) == 0);
    return 0;
}

/* Issue 27 item 3: 20 agents walk through a 4 m wide corridor past three waypoints on its
 * centre line to goals of their own at its far end. Agents pushed past a waypoint by the
 * crowd used to walk back against the flow to touch it (b0a408d: at most 17 of 20 arrived,
 * never all, in 2000 steps); passing it now counts. */
static int test_crowded_corridor(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 1, &sc) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    ENSURE(orca_sim_add_segment(sim, vec(-10, -2), vec(50, -2), NULL) == ORCA_OK);
    ENSURE(orca_sim_add_segment(sim, vec(-10, 2), vec(50, 2), NULL) == ORCA_OK);
    orca_agent_def d = orca_agent_def_default();
    d.radius = 0.4;
    d.max_speed = 1.5;
    d.neighbor_dist = 4;
    d.time_horizon = 2;
    d.obstacle_time_horizon = 1;
    orca_vec2 w[3] = {vec(10, 0), vec(20, 0), vec(30, 0)};
    tracker t[20];
    for (int k = 0; k < 20; ++k) {
        d.position = vec(-8 + (k / 4) * 1.0, -1.5 + (k % 4) * 1.0);
        orca_goal g = {ORCA_GOAL_POINT, vec(42 + (k / 4) * 1.0, -1.5 + (k % 4) * 1.0), 1.3, 0};
        ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
        ENSURE(orca_scenario_set_waypoints(sc, k, w, 3, 0, 0.0) == ORCA_OK);
        memset(&t[k], 0, sizeof t[k]);
        memcpy(t[k].targets, w, sizeof w);
        t[k].targets[3] = g.target;
        t[k].route_start = d.position;
        t[k].count = 3;
        t[k].d = 0.4;
    }
    int at400 = -1;
    long passed = 0;
    for (int s = 1; s <= 1000; ++s) {
        for (int k = 0; k < 20; ++k) {
            track(&t[k], position_of(sc, k));
        }
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
        for (int k = 0; k < 20; ++k) {
            int cur = -1;
            ENSURE(orca_scenario_waypoint_index(sc, k, &cur) == ORCA_OK);
            ENSURE_MSG(cur == t[k].current, "step %d agent %d: library %d, re-computed %d", s, k,
                       cur, t[k].current);
        }
        if (s == 400) {
            at400 = orca_scenario_arrived_count(sc);
        }
    }
    for (int k = 0; k < 20; ++k) {
        passed += t[k].passed;
    }
    int64_t all = orca_scenario_all_arrived_step(sc);
    printf("    crowded corridor: %d of 20 arrived at step 400, all at step %lld; %ld of 60 "
           "waypoints taken by passing them\n",
           at400, (long long)all, passed);
    ENSURE_MSG(all > 0 && all <= 1000, "all arrived at step %lld", (long long)all);
    ENSURE(passed > 0); /* the scene does push agents past waypoints */
    orca_scenario_destroy(sc);
    return 0;
}

/* A refused step leaves the waypoint progress as it was. */
static int test_refused_step(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 1, &sc) == ORCA_OK);
    orca_vec2 w[2] = {vec(0, 0), vec(5, 0)};
    ENSURE(add_point_agent(sc, vec(0, 0), vec(0, 5), 0.5, 1.0) == ORCA_OK);
    ENSURE(orca_scenario_set_waypoints(sc, 0, w, 2, 1, 0.0) == ORCA_OK);
    /* An agent added directly, at the edge of the map, walking off it: the step is refused. */
    orca_sim *sim = orca_scenario_sim(sc);
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(2097151.75, 0);
    d.preferred_velocity = vec(2, 0);
    d.velocity = vec(2, 0);
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    uint64_t before = orca_scenario_hash(sc);
    ENSURE(orca_scenario_step(sc) == ORCA_ERR_LIMIT);
    int cur = -1;
    ENSURE(orca_scenario_waypoint_index(sc, 0, &cur) == ORCA_OK);
    ENSURE(cur == 0);
    orca_goal g;
    ENSURE(orca_scenario_agent_goal(sc, 0, &g, NULL) == ORCA_OK);
    ENSURE_BITS(g.target.y, 5.0);
    ENSURE(orca_scenario_hash(sc) == before);
    /* Without the runaway the same step switches (the agent stands on waypoint 0). */
    ENSURE(orca_sim_remove_agent(sim, orca_sim_agent_at(sim, 1)) == ORCA_OK);
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    ENSURE(orca_scenario_waypoint_index(sc, 0, &cur) == ORCA_OK);
    ENSURE(cur == 1);
    orca_scenario_destroy(sc);
    return 0;
}

/* Every argument at and beyond its edges; a refusal changes nothing. */
static int test_arguments(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 1, &sc) == ORCA_OK);
    ENSURE(add_point_agent(sc, vec(0, 0), vec(10, 0), 1.0, 1.0) == ORCA_OK);
    orca_agent_def d = orca_agent_def_default();
    orca_goal vg = {ORCA_GOAL_VELOCITY, {1, 0}, 0, 0};
    d.position = vec(0, 10);
    ENSURE(orca_scenario_add_agent(sc, &d, &vg, NULL) == ORCA_OK);
    d.position = vec(0, 20);
    ENSURE(orca_sim_add_agent(orca_scenario_sim(sc), &d, NULL) == ORCA_OK); /* no goal */

    orca_vec2 keep[2] = {vec(1, 1), vec(2, 2)};
    ENSURE(orca_scenario_set_waypoints(sc, 0, keep, 2, 1, 3.0) == ORCA_OK);
    ENSURE(orca_scenario_set_waypoint_index(sc, 0, 1) == ORCA_OK);
    uint64_t h0 = orca_scenario_hash(sc);

    const double below21 = nextafter(0x1p21, 0);
    const double bad_coords[] = {0x1p21, -0x1p21, 1e308, -1e308, INFINITY, -INFINITY, NAN,
                                 -NAN};
    const double good_coords[] = {below21, -below21, 5e-324, -0.0, 0.0};
    const double bad_arrive[] = {-1.0, -5e-324, 5e-324, nextafter(0x1p-30, 0), 1e-300,
                                 nextafter(0x1p23, INFINITY), 1e308, INFINITY, -INFINITY, NAN};
    const double good_arrive[] = {0.0, -0.0, 0x1p-30, 0x1p23, 1.5};

    for (size_t i = 0; i < sizeof bad_coords / sizeof bad_coords[0]; ++i) {
        for (int axis = 0; axis < 2; ++axis) {
            orca_vec2 p[3] = {vec(1, 1), vec(0, 0), vec(3, 3)};
            if (axis == 0) {
                p[1].x = bad_coords[i];
            } else {
                p[1].y = bad_coords[i];
            }
            ENSURE(orca_scenario_set_waypoints(sc, 0, p, 3, 0, 0.0) == ORCA_ERR_ARGUMENT);
            ENSURE(strstr(orca_scenario_last_error(sc), "waypoint 1") != NULL);
            ENSURE(orca_scenario_hash(sc) == h0);
        }
    }
    for (size_t i = 0; i < sizeof bad_arrive / sizeof bad_arrive[0]; ++i) {
        ENSURE(orca_scenario_set_waypoints(sc, 0, keep, 1, 0, bad_arrive[i]) ==
               ORCA_ERR_ARGUMENT);
        ENSURE(strstr(orca_scenario_last_error(sc), "arrive_distance") != NULL);
        ENSURE(orca_scenario_hash(sc) == h0);
    }
    ENSURE(orca_scenario_set_waypoints(sc, 0, keep, -1, 0, 0.0) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_waypoints(sc, 0, keep, ORCA_WAYPOINTS_MAX + 1, 0, 0.0) ==
           ORCA_ERR_LIMIT);
    ENSURE(orca_scenario_set_waypoints(sc, 0, NULL, 1, 0, 0.0) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_set_waypoints(sc, 0, keep, 1, 2, 0.0) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_waypoints(sc, 0, keep, 1, -1, 0.0) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_waypoints(sc, -1, keep, 1, 0, 0.0) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_waypoints(sc, 3, keep, 1, 0, 0.0) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_waypoints(sc, 1, keep, 1, 0, 0.0) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "point goal") != NULL);
    ENSURE(orca_scenario_set_waypoints(sc, 2, keep, 1, 0, 0.0) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_waypoints(NULL, 0, keep, 1, 0, 0.0) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_set_waypoint_index(sc, 0, 3) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_waypoint_index(sc, 0, -1) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_waypoint_index(sc, 2, 0) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_waypoint_index(NULL, 0, 0) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_hash(sc) == h0);

    /* The getters. */
    orca_vec2 got[2] = {vec(0, 0), vec(0, 0)};
    int count = -1, loop = -1, cur = -1;
    double arrive = -1;
    ENSURE(orca_scenario_agent_waypoints(sc, 0, got, 1, &count, &loop, &arrive) == ORCA_OK);
    ENSURE(count == 2 && loop == 1);
    ENSURE_BITS(arrive, 3.0);
    ENSURE_BITS(got[0].x, 1.0);
    ENSURE_BITS(got[1].x, 0.0); /* capacity 1: one point written */
    ENSURE(orca_scenario_agent_waypoints(sc, 0, NULL, 0, &count, NULL, NULL) == ORCA_OK);
    ENSURE(orca_scenario_agent_waypoints(sc, 0, NULL, 1, &count, NULL, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_agent_waypoints(sc, 0, got, -1, &count, NULL, NULL) ==
           ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_agent_waypoints(sc, 9, got, 2, &count, NULL, NULL) ==
           ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_agent_waypoints(NULL, 0, got, 2, &count, NULL, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_agent_waypoints(sc, 1, got, 2, &count, &loop, &arrive) == ORCA_OK);
    ENSURE(count == 0 && loop == 0 && arrive == 0.0);
    ENSURE(orca_scenario_waypoint_index(sc, 0, &cur) == ORCA_OK && cur == 1);
    ENSURE(orca_scenario_waypoint_index(sc, 1, &cur) == ORCA_OK && cur == 0);
    ENSURE(orca_scenario_waypoint_index(sc, 0, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_waypoint_index(sc, 2, &cur) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_waypoint_index(NULL, 0, &cur) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_set_waypoint_index(sc, 1, 0) == ORCA_OK); /* no waypoints: only 0 */
    ENSURE(orca_scenario_set_waypoint_index(sc, 1, 1) == ORCA_ERR_ARGUMENT);

    /* The edges that are accepted. */
    for (size_t i = 0; i < sizeof good_coords / sizeof good_coords[0]; ++i) {
        orca_vec2 p[1] = {vec(good_coords[i], -good_coords[i])};
        ENSURE(orca_scenario_set_waypoints(sc, 0, p, 1, 0, 0.0) == ORCA_OK);
        ENSURE(orca_scenario_agent_waypoints(sc, 0, got, 1, &count, NULL, NULL) == ORCA_OK);
        ENSURE_BITS(got[0].x, good_coords[i]);
        ENSURE(orca_scenario_waypoint_index(sc, 0, &cur) == ORCA_OK && cur == 0);
    }
    for (size_t i = 0; i < sizeof good_arrive / sizeof good_arrive[0]; ++i) {
        ENSURE(orca_scenario_set_waypoints(sc, 0, keep, 2, 0, good_arrive[i]) == ORCA_OK);
        ENSURE(orca_scenario_agent_waypoints(sc, 0, NULL, 0, NULL, NULL, &arrive) == ORCA_OK);
        ENSURE_BITS(arrive, good_arrive[i]);
    }
    /* Many waypoints, then stepping with the largest arrive distance: one switch per step. */
    int big = 100000;
    orca_vec2 *many = malloc((size_t)big * sizeof *many);
    ENSURE(many);
    for (int k = 0; k < big; ++k) {
        many[k] = vec((double)(k % 1000), (double)(k / 1000));
    }
    ENSURE(orca_scenario_set_waypoints(sc, 0, many, big, 1, 0x1p23) == ORCA_OK);
    free(many);
    for (int s = 1; s <= 5; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
        ENSURE(orca_scenario_waypoint_index(sc, 0, &cur) == ORCA_OK && cur == s);
    }
    orca_scenario_destroy(sc);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"patrol", test_patrol},
    {"passing", test_passing},
    {"crowded_corridor", test_crowded_corridor},
    {"workers", test_workers},
    {"hash", test_hash},
    {"final_target_same_bits", test_final_target_same_bits},
    {"single_agent", test_single_agent},
    {"refused_step", test_refused_step},
    {"arguments", test_arguments},
    {0, 0},
};
