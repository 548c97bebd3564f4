/* SPDX-License-Identifier: MIT */
/* Coincident agents and stationary agents (docs/extensions.md, "Coincident agents";
 * algorithm.md §11.3, choice 16): the separation rule against the operations written out here
 * from the docs, the scenes of issue 27 (two fused agents in open space, a crowd pressed into
 * the corner of a room) measured, the plain path kept literal, the option as state (hash,
 * snapshot), and an agent with max speed 0 standing exactly still. */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <orca/orca.h>

static orca_agent_def walker(orca_vec2 p)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = p;
    d.radius = 0.5;
    d.max_speed = 1.5;
    d.neighbor_dist = 5;
    d.time_horizon = 2;
    d.obstacle_time_horizon = 2;
    return d;
}

/* Preferred velocities toward the goals at speed 1.3, slowing to stop within one step of
 * them (sqrt only). */
static void steer(orca_sim *s, const orca_vec2 *goal, double dt)
{
    int n = orca_sim_agent_count(s);
    const orca_vec2 *p = orca_sim_positions(s);
    for (int k = 0; k < n; ++k) {
        orca_vec2 g = vec(goal[k].x - p[k].x, goal[k].y - p[k].y);
        double l = sqrt(g.x * g.x + g.y * g.y);
        orca_vec2 v = l > 1.3 * dt ? vec(g.x / l * 1.3, g.y / l * 1.3) : vec(g.x / dt, g.y / dt);
        orca_agent_set_preferred_velocity(s, orca_sim_agent_at(s, k), v);
    }
}

static int same_point(orca_vec2 a, orca_vec2 b)
{
    return a.x == b.x && a.y == b.y;
}

static double dist_to(orca_vec2 a, orca_vec2 b)
{
    return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y));
}

/* Two agents at one point, goals on opposite sides: with the separation on each reaches its
 * own goal; without it (the plain step, the algorithm's bits) they walk off together in +x
 * whatever their goals, as algorithm.md §5 and §3.7 say. */
static int run_pair(int separation, int *arrived, double *gap)
{
    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    ENSURE(orca_sim_set_separation(s, separation) == ORCA_OK);
    orca_agent_def d = walker(vec(0, 0));
    ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    orca_vec2 goal[2] = {{-10, 3}, {10, -4}};
    for (int t = 0; t < 200; ++t) {
        steer(s, goal, 0.25);
        ENSURE_MSG(orca_sim_step(s, 0.25) == ORCA_OK, "%s", orca_sim_last_error(s));
    }
    const orca_vec2 *p = orca_sim_positions(s);
    *arrived = (dist_to(p[0], goal[0]) <= 0.5) + (dist_to(p[1], goal[1]) <= 0.5);
    *gap = dist_to(p[0], p[1]);
    orca_sim_destroy(s);
    return 0;
}

static int test_open_space_pair(void)
{
    int arrived;
    double gap;
    ENSURE(run_pair(1, &arrived, &gap) == 0);
    ENSURE_MSG(arrived == 2, "separated: %d of 2 arrived", arrived);
    ENSURE(run_pair(0, &arrived, &gap) == 0);
    ENSURE_MSG(arrived == 0 && gap == 0, "plain: %d arrived, gap %g (the algorithm keeps them fused)",
               arrived, gap);
    return 0;
}

/* The rule's bits: for a pair at one point with equal velocities the lower index gets
 * N = (1, 0) and the higher N = (-1, 0); each P is vA + u * 0.5 with u = n * (-d),
 * d = Dot(n, wa) - r/dt and wa = x - a/dt = (0, 0) (docs/extensions.md, "Coincident agents"),
 * computed here from those operations. With different velocities the overlap form already
 * gives the two agents opposite normals and the rule changes nothing. */
static int test_rule_bits(void)
{
    for (int on = 0; on <= 1; ++on) {
        orca_sim *s = test_new_sim(1);
        ENSURE(s);
        ENSURE(orca_sim_set_separation(s, on) == ORCA_OK);
        orca_agent_def d = walker(vec(3, -2));
        d.velocity = vec(0.25, 0.5);
        ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
        ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
        double dt = 0.25, r = 1.0;
        for (int k = 0; k < 2; ++k) {
            orca_halfplane h[4];
            int count = 0, hard = -1;
            ENSURE(orca_sim_agent_constraints(s, orca_sim_agent_at(s, k), dt, h, 4, &count,
                                              &hard) == ORCA_OK);
            ENSURE(count == 1 && hard == 0);
            double nx = on && k == 1 ? -1.0 : 1.0;
            orca_vec2 wa = vec(0.0 - 0.0 / dt, 0.0 - 0.0 / dt);
            double value = nx * wa.x + 0.0 * wa.y;
            double dd = value - r / dt;
            orca_vec2 u = vec(nx * -dd, 0.0 * -dd);
            ENSURE_BITS(h[0].normal.x, nx);
            ENSURE_BITS(h[0].normal.y, 0.0);
            ENSURE_BITS(h[0].point.x, 0.25 + u.x * 0.5);
            ENSURE_BITS(h[0].point.y, 0.5 + u.y * 0.5);
        }
        /* different velocities: opposite normals from candidate 1 either way */
        orca_agent_def e = d;
        e.velocity = vec(-0.5, 0.125);
        ENSURE(orca_agent_set(s, orca_sim_agent_at(s, 1), &e) == ORCA_OK);
        orca_halfplane h0, h1;
        int c0, c1;
        ENSURE(orca_sim_agent_constraints(s, orca_sim_agent_at(s, 0), dt, &h0, 1, &c0, NULL) ==
               ORCA_OK);
        ENSURE(orca_sim_agent_constraints(s, orca_sim_agent_at(s, 1), dt, &h1, 1, &c1, NULL) ==
               ORCA_OK);
        ENSURE_BITS(h1.normal.x, -h0.normal.x);
        ENSURE_BITS(h1.normal.y, -h0.normal.y);
        orca_vec2 x = vec(0.25 - -0.5, 0.5 - 0.125);
        double lx = sqrt(x.x * x.x + x.y * x.y);
        ENSURE_BITS(h0.normal.x, x.x / lx);
        ENSURE_BITS(h0.normal.y, x.y / lx);
        orca_sim_destroy(s);
    }
    return 0;
}

/* The corner room of issue 27: 40 agents in a 10 m room (a boundary loop, so the separation
 * is active without the option) whose goal lies beyond a corner, with dt (0.5 s) above the
 * obstacle horizon (0.1 s): agents pressed into the corner land on the same point. No pair
 * may still be coincident two steps after it first met, and after 300 steps every agent gets
 * a goal of its own back in the room and reaches it. Measured (stdout): pair meetings, pairs
 * still coincident the next step, and arrivals. */
static int corner_room(int workers, uint64_t *hash, int *met, int *next, int *arrived)
{
    enum { N = 40 };
    orca_sim *s = test_new_sim(workers);
    ENSURE(s);
    orca_vec2 room[4] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
    ENSURE(orca_sim_add_boundary(s, room, 4, NULL) == ORCA_OK);
    ENSURE(orca_sim_separation_active(s) == 1 && orca_sim_get_separation(s) == 0);
    orca_agent_def d = walker(vec(0, 0));
    d.radius = 0.3;
    d.neighbor_dist = 3;
    d.obstacle_time_horizon = 0.1;
    orca_vec2 goal[N], home[N];
    for (int k = 0; k < N; ++k) {
        home[k] = vec(1 + (k % 8) * 1.1, 1 + (k / 8) * 1.6);
        d.position = home[k];
        goal[k] = vec(-3, -3);
        ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    }
    static int together[N][N];
    memset(together, 0, sizeof together);
    *met = *next = 0;
    for (int t = 0; t < 600; ++t) {
        if (t == 300) {
            memcpy(goal, home, sizeof goal);
        }
        steer(s, goal, 0.5);
        ENSURE_MSG(orca_sim_step(s, 0.5) == ORCA_OK, "%s", orca_sim_last_error(s));
        const orca_vec2 *p = orca_sim_positions(s);
        for (int i = 0; i < N; ++i) {
            for (int j = i + 1; j < N; ++j) {
                if (!same_point(p[i], p[j])) {
                    together[i][j] = 0;
                    continue;
                }
                *met += together[i][j] == 0;
                *next += together[i][j] == 1;
                ++together[i][j];
                ENSURE_MSG(together[i][j] <= 2,
                           "agents %d and %d coincident %d steps in a row (step %d)", i, j,
                           together[i][j], t + 1);
            }
        }
    }
    const orca_vec2 *p = orca_sim_positions(s);
    *arrived = 0;
    for (int k = 0; k < N; ++k) {
        *arrived += dist_to(p[k], home[k]) <= 0.3;
    }
    *hash = orca_sim_hash(s);
    orca_sim_destroy(s);
    return 0;
}

static int test_corner_room(void)
{
    uint64_t h1, h3;
    int met, next, arrived, met3, next3, arrived3;
    ENSURE(corner_room(1, &h1, &met, &next, &arrived) == 0);
    printf("  corner room: %d pair meetings, %d still coincident the next step, none two steps "
           "later; %d of 40 reached their new goals\n",
           met, next, arrived);
    ENSURE(met > 0); /* the scene does press agents onto one point */
    ENSURE_MSG(arrived == 40, "%d of 40 arrived", arrived);
    ENSURE(corner_room(3, &h3, &met3, &next3, &arrived3) == 0);
    ENSURE(h1 == h3 && met == met3 && next == next3);
    return 0;
}

/* Which steps separate: the option, avoidance settings away from the defaults, a boundary
 * loop; not diagnostics alone (they never change a bit). Each case steps a fused pair once. */
static int parted_after_one_step(int mode)
{
    orca_sim *s = test_new_sim(1);
    if (!s) {
        return -1;
    }
    orca_agent_def d = walker(vec(0, 0));
    orca_agent_id a, b, far;
    orca_sim_add_agent(s, &d, &a);
    orca_sim_add_agent(s, &d, &b);
    d.position = vec(500, 500);
    orca_sim_add_agent(s, &d, &far);
    switch (mode) {
    case 1: orca_sim_set_separation(s, 1); break;
    case 2: orca_agent_set_priority(s, far, 2); break;
    case 3: orca_agent_set_layers(s, far, 2, 0xFFFFFFFFu); break;
    case 4: {
        orca_vec2 loop[4] = {{-1000, -1000}, {1000, -1000}, {1000, 1000}, {-1000, 1000}};
        orca_sim_add_boundary(s, loop, 4, NULL);
        break;
    }
    case 5: orca_sim_set_diagnostics(s, 1); break;
    default: break;
    }
    int active = orca_sim_separation_active(s);
    orca_sim_step(s, 0.25);
    orca_vec2 p, q;
    orca_agent_get_position(s, a, &p);
    orca_agent_get_position(s, b, &q);
    orca_sim_destroy(s);
    int parted = !same_point(p, q);
    return parted == active ? parted : -1;
}

static int test_when_active(void)
{
    int want[6] = {0, 1, 1, 1, 1, 0};
    for (int mode = 0; mode < 6; ++mode) {
        ENSURE_MSG(parted_after_one_step(mode) == want[mode], "mode %d", mode);
    }
    return 0;
}

/* The option is state: the hash and the snapshot carry it when on (nothing when off, so every
 * existing hash and snapshot is the same), a load restores it, and unknown snapshot flags are
 * refused. */
static int test_option_state(void)
{
    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    ENSURE(orca_sim_set_separation(s, 2) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(s), "separation must be 0 or 1, got 2"));
    ENSURE(orca_sim_set_separation(s, -1) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_set_separation(NULL, 1) == ORCA_ERR_NULL);
    ENSURE(orca_sim_get_separation(NULL) == 0 && orca_sim_separation_active(NULL) == 0);
    orca_agent_def d = walker(vec(1, 2));
    ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    uint64_t off = orca_sim_hash(s);
    size_t n_off = 0, n_on = 0;
    ENSURE(orca_sim_save(s, NULL, 0, &n_off) == ORCA_OK);
    unsigned char *snap_off = malloc(n_off);
    ENSURE(snap_off && orca_sim_save(s, snap_off, n_off, &n_off) == ORCA_OK);
    ENSURE(snap_off[8] == 1); /* version 1: nothing beyond the algorithm */
    ENSURE(orca_sim_set_separation(s, 1) == ORCA_OK);
    uint64_t on = orca_sim_hash(s);
    ENSURE(on != off);
    ENSURE(orca_sim_save(s, NULL, 0, &n_on) == ORCA_OK);
    ENSURE(n_on == n_off);
    unsigned char *snap_on = malloc(n_on);
    ENSURE(snap_on && orca_sim_save(s, snap_on, n_on, &n_on) == ORCA_OK);
    ENSURE(snap_on[8] == 3 && snap_on[44] == 4); /* version 3, flags 4: the option */
    ENSURE(orca_sim_load(s, snap_off, n_off) == ORCA_OK);
    ENSURE(orca_sim_get_separation(s) == 0 && orca_sim_hash(s) == off);
    ENSURE(orca_sim_load(s, snap_on, n_on) == ORCA_OK);
    ENSURE(orca_sim_get_separation(s) == 1 && orca_sim_hash(s) == on);
    ENSURE(orca_sim_set_separation(s, 0) == ORCA_OK && orca_sim_hash(s) == off);
    /* flags 8 (unknown) refused, state unchanged */
    snap_on[44] = 8;
    ENSURE(orca_sim_load(s, snap_on, n_on) == ORCA_ERR_FORMAT);
    ENSURE(orca_sim_hash(s) == off);
    free(snap_off);
    free(snap_on);
    orca_sim_destroy(s);
    return 0;
}

/* Issue 27 item 7: an agent with max speed 0 and a preferred velocity whose square underflows
 * (1e-200, 0) used to move at 1e-200 m/s (the program's start v = p when |p| <= R computes
 * 0 <= 0). It stands still: velocity exactly (+0, +0), position unchanged, on the plain path
 * and the extended one, with neighbours and walls about, for one and three workers. */
static int test_max_speed_zero_stands_still(void)
{
    for (int mode = 0; mode < 4; ++mode) {
        orca_sim *s = test_new_sim(mode == 3 ? 3 : 1);
        ENSURE(s);
        if (mode == 1) {
            ENSURE(orca_sim_set_diagnostics(s, 1) == ORCA_OK);
        }
        orca_agent_def d = walker(vec(1.5, -2.25));
        d.max_speed = 0;
        d.preferred_velocity = vec(1e-200, 0);
        d.velocity = vec(-0.0, 0.0);
        orca_agent_id still;
        ENSURE(orca_sim_add_agent(s, &d, &still) == ORCA_OK);
        if (mode == 2) {
            ENSURE(orca_agent_set_priority(s, still, 4) == ORCA_OK);
        }
        /* a walker passing close by, a wall segment near it */
        orca_agent_def w = walker(vec(-3, -2));
        w.preferred_velocity = vec(1, 0);
        ENSURE(orca_sim_add_agent(s, &w, NULL) == ORCA_OK);
        ENSURE(orca_sim_add_segment(s, vec(0, -3), vec(3, -3), NULL) == ORCA_OK);
        /* alone, wanting to go left and up: the program gives (p / |p|) * 0 = (-0, +0), a
         * zero within the max speed, which stays (choice 16: the text's bits) */
        orca_agent_def lone = d;
        lone.position = vec(40, 40);
        lone.preferred_velocity = vec(-1, 2);
        orca_agent_id alone;
        ENSURE(orca_sim_add_agent(s, &lone, &alone) == ORCA_OK);
        orca_solve_result text;
        ENSURE(orca_solve(NULL, 0, 0, 0.0, lone.preferred_velocity, NULL, &text) == ORCA_OK);
        ENSURE_BITS(text.velocity.x, -0.0);
        ENSURE_BITS(text.velocity.y, 0.0);
        for (int t = 0; t < 40; ++t) {
            ENSURE_MSG(orca_sim_step(s, 0.25) == ORCA_OK, "%s", orca_sim_last_error(s));
            orca_vec2 v, p;
            ENSURE(orca_agent_get_velocity(s, alone, &v) == ORCA_OK);
            ENSURE(orca_agent_get_position(s, alone, &p) == ORCA_OK);
            ENSURE_BITS(v.x, text.velocity.x);
            ENSURE_BITS(v.y, text.velocity.y);
            ENSURE_BITS(p.x, 40.0);
            ENSURE_BITS(p.y, 40.0);
            ENSURE(orca_agent_get_velocity(s, still, &v) == ORCA_OK);
            ENSURE(orca_agent_get_position(s, still, &p) == ORCA_OK);
            if (t == 0) { /* its program's (1e-200, 0), replaced */
                ENSURE_BITS(v.x, 0.0);
                ENSURE_BITS(v.y, 0.0);
            }
            ENSURE_MSG(v.x == 0 && v.y == 0, "step %d: (%a, %a)", t, v.x, v.y);
            ENSURE_BITS(p.x, 1.5);
            ENSURE_BITS(p.y, -2.25);
        }
        orca_sim_destroy(s);
    }
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"open_space_pair", test_open_space_pair},
    {"rule_bits", test_rule_bits},
    {"corner_room", test_corner_room},
    {"when_active", test_when_active},
    {"option_state", test_option_state},
    {"max_speed_zero_stands_still", test_max_speed_zero_stands_still},
    {0, 0},
};
