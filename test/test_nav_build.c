/* SPDX-License-Identifier: MIT */
/* The graph of a radius is the same to the bit whether it is built with its shortcuts (the
 * walls that last blocked a vertex's legs tried first, vertex pairs skipped for a wall across
 * them: docs/navigation.md, "The graph") or without them (orca_nav_set_plain_build), and
 * whatever the worker count: every node's point, key, leg, arc and links and every ring's
 * order (orca_nav_graph_digest). On the floor plans of test/nav_scenes.h, on grids of rooms
 * (near the origin and far from it, where the walls' magnitude M sets the margins) and on
 * random walls; the shortcut must have skipped pairs, so that the test reaches it. */
#include "nav_internal.h"
#include "nav_scenes.h"
#include "orca/nav.h"
#include "orca/sim.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The graph of radius r on sim's walls, with and without the shortcuts; 0 when they agree.
 * *cut gains the pairs the shortcut skipped. */
static int same_graph(orca_sim *fast_sim, orca_sim *plain_sim, double r, const char *what,
                      int64_t *cut)
{
    orca_nav *fast = NULL, *plain = NULL;
    ENSURE(orca_nav_create(fast_sim, &fast) == ORCA_OK);
    ENSURE(orca_nav_create(plain_sim, &plain) == ORCA_OK);
    orca_nav_set_plain_build(plain, 1);
    uint64_t a = 0, b = 0;
    int64_t ca = 0, cb = 0;
    ENSURE(orca_nav_graph_digest(fast, r, &a, &ca) == ORCA_OK);
    ENSURE(orca_nav_graph_digest(plain, r, &b, &cb) == ORCA_OK);
    ENSURE_MSG(a == b, "%s, r %.17g: graph %016llx with the shortcuts, %016llx without", what, r,
               (unsigned long long)a, (unsigned long long)b);
    ENSURE_MSG(cb == 0, "%s: the plain build skipped %lld pairs", what, (long long)cb);
    *cut += ca;
    orca_nav_destroy(fast);
    orca_nav_destroy(plain);
    return 0;
}

/* same_graph at each of the radii, then both simulations destroyed; 0 when all agree. */
static int same_graphs(orca_sim *fast, orca_sim *plain, const double *radii, int n,
                       const char *what, int64_t *cut)
{
    for (int k = 0; k < n; ++k) {
        if (same_graph(fast, plain, radii[k], what, cut)) {
            return 1;
        }
    }
    orca_sim_destroy(fast);
    orca_sim_destroy(plain);
    return 0;
}

/* Two simulations with the same walls: one on 2 workers, one on 1. */
static int two_sims(orca_sim **fast, orca_sim **plain)
{
    *fast = test_new_sim(2);
    *plain = test_new_sim(1);
    ENSURE(*fast && *plain);
    return 0;
}

static int test_scenes(void)
{
    static ns_scene sc;
    void (*make[])(ns_scene *) = {ns_maze, ns_bend, ns_rooms, ns_pillars, ns_floor};
    int64_t cut = 0;
    for (size_t m = 0; m < sizeof make / sizeof make[0]; ++m) {
        memset(&sc, 0, sizeof sc);
        make[m](&sc);
        orca_sim *fast, *plain;
        if (two_sims(&fast, &plain)) {
            return 1;
        }
        ENSURE(ns_add_to_sim(&sc, fast) == ORCA_OK && ns_add_to_sim(&sc, plain) == ORCA_OK);
        const double radii[] = {sc.radius, 0.2, 0.45};
        if (same_graphs(fast, plain, radii, 3, sc.name, &cut)) {
            return 1;
        }
    }
    ENSURE_MSG(cut > 0, "no pair was skipped");
    printf("  scenes: 5 plans, 3 radii, %lld pairs skipped, the same graphs\n", (long long)cut);
    return 0;
}

/* n x n rooms of 10 x 8 m with a 1.2 m door in the middle of every inner wall (the plan of
 * bench/nav_goals.c), moved by (ox, oy). */
static int add_rooms(orca_sim *sim, int n, double ox, double oy)
{
    orca_segment_id id;
    for (int pass = 0; pass < 2; ++pass) {
        for (int j = 0; j <= n; ++j) {
            for (int i = 0; i < n; ++i) {
                int outer = j == 0 || j == n;
                /* pass 0: walls along x at y = 8 j; pass 1: along y at x = 10 j */
                double x0 = pass ? ox + 10.0 * j : ox + 10.0 * i;
                double y0 = pass ? oy + 8.0 * i : oy + 8.0 * j;
                double x1 = pass ? x0 : x0 + 10.0, y1 = pass ? y0 + 8.0 : y0;
                if (outer) {
                    ENSURE(orca_sim_add_segment(sim, vec(x0, y0), vec(x1, y1), &id) == ORCA_OK);
                    continue;
                }
                double mx = (x0 + x1) / 2, my = (y0 + y1) / 2;
                orca_vec2 g0 = pass ? vec(mx, my - 0.6) : vec(mx - 0.6, my);
                orca_vec2 g1 = pass ? vec(mx, my + 0.6) : vec(mx + 0.6, my);
                ENSURE(orca_sim_add_segment(sim, vec(x0, y0), g0, &id) == ORCA_OK);
                ENSURE(orca_sim_add_segment(sim, g1, vec(x1, y1), &id) == ORCA_OK);
            }
        }
    }
    return 0;
}

static int test_rooms(void)
{
    /* near the origin, and 2^20 m away (M about 10^6: the margins grow with it) */
    const double offsets[] = {0.0, 1048576.0};
    int64_t cut = 0;
    for (int o = 0; o < 2; ++o) {
        orca_sim *fast, *plain;
        if (two_sims(&fast, &plain) || add_rooms(fast, 5, offsets[o], -offsets[o]) ||
            add_rooms(plain, 5, offsets[o], -offsets[o])) {
            return 1;
        }
        const double radii[] = {0.2, 0.29, 0.59};
        if (same_graphs(fast, plain, radii, 3, "rooms", &cut)) {
            return 1;
        }
    }
    ENSURE_MSG(cut > 0, "no pair was skipped");
    printf("  rooms: 5 x 5 rooms at two offsets, 3 radii, %lld pairs skipped\n", (long long)cut);
    return 0;
}

/* Random walls, long and short, in any direction, some chained, some points; half inside a
 * room loop. */
static int test_random_walls(void)
{
    test_rng rng = {4343};
    int64_t cut = 0;
    for (int s = 0; s < 80; ++s) {
        orca_sim *fast, *plain;
        if (two_sims(&fast, &plain)) {
            return 1;
        }
        orca_sim *sims[2] = {fast, plain};
        if (test_rng_next(&rng) % 2) {
            const orca_vec2 room[] = {{0, 0}, {30, 0}, {30, 30}, {0, 30}};
            for (int k = 0; k < 2; ++k) {
                ENSURE(orca_sim_add_boundary(sims[k], room, 4, NULL) == ORCA_OK);
            }
        }
        int nw = 4 + (int)(test_rng_next(&rng) % 30);
        orca_vec2 last = {15, 15};
        for (int w = 0; w < nw; ++w) {
            orca_vec2 a = {test_rng_uniform(&rng, 1, 29), test_rng_uniform(&rng, 1, 29)};
            if (w > 0 && test_rng_next(&rng) % 4 == 0) {
                a = last;
            }
            double l = test_rng_next(&rng) % 10 == 0 ? 0.0 : test_rng_uniform(&rng, 0.3, 15);
            double t = test_rng_uniform(&rng, 0, 2 * M_PI);
            orca_vec2 b = {a.x + l * cos(t), a.y + l * sin(t)};
            for (int k = 0; k < 2; ++k) {
                orca_segment_id id;
                ENSURE(orca_sim_add_segment(sims[k], a, b, &id) == ORCA_OK);
            }
            last = b;
        }
        double r = test_rng_uniform(&rng, 0.05, 1.0);
        if (same_graphs(fast, plain, &r, 1, "random walls", &cut)) {
            return 1;
        }
    }
    ENSURE_MSG(cut > 0, "no pair was skipped");
    printf("  random walls: 80 plans, %lld pairs skipped, the same graphs\n", (long long)cut);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"scenes", test_scenes},
    {"rooms", test_rooms},
    {"random_walls", test_random_walls},
    {0, 0},
};
