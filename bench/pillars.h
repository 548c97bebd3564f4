/* SPDX-License-Identifier: MIT */
/* The pillared room of the boundary benchmarks (walls.c, bmeasure.c): a square room of
 * g_pillars x g_pillars cells of 8 m, each with a 2 m square pillar (a hole) in its middle,
 * 4 + 4 g_pillars^2 edges; random points whose disc of radius RADIUS clears the walls, the
 * pillars and the square [1, 3]^2 (walls.c adds a pillar there) by 0.1 m; and the timing
 * helpers. Static definitions, for one program. */
#ifndef ORCA_BENCH_PILLARS_H
#define ORCA_BENCH_PILLARS_H

#include <orca/sim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SPACING 8.0 /* pillar lattice, m */
#define SIDE (g_pillars * SPACING)
#define RADIUS 0.3

static int g_pillars = 50; /* per side */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double unit(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

static orca_vec2 free_point(void)
{
    for (;;) {
        orca_vec2 p = {1 + (SIDE - 2) * unit(), 1 + (SIDE - 2) * unit()};
        double fx = p.x - SPACING * (double)(int)(p.x / SPACING);
        double fy = p.y - SPACING * (double)(int)(p.y / SPACING);
        double m = RADIUS + 0.1; /* pillars span [3, 5] within each lattice cell */
        int in_pillar = fx > 3 - m && fx < 5 + m && fy > 3 - m && fy < 5 + m;
        int in_spare = p.x < 3 + m && p.y < 3 + m;
        if (!in_pillar && !in_spare) {
            return p;
        }
    }
}

static void add_loops(orca_sim *s)
{
    orca_vec2 room[4] = {{0, 0}, {SIDE, 0}, {SIDE, SIDE}, {0, SIDE}};
    if (orca_sim_add_boundary(s, room, 4, NULL) != ORCA_OK) {
        fprintf(stderr, "room: %s\n", orca_sim_last_error(s));
        exit(1);
    }
    for (int i = 0; i < g_pillars; ++i) {
        for (int j = 0; j < g_pillars; ++j) {
            double x = SPACING * i + 3, y = SPACING * j + 3;
            orca_vec2 p[4] = {{x, y}, {x, y + 2}, {x + 2, y + 2}, {x + 2, y}}; /* a hole */
            if (orca_sim_add_boundary(s, p, 4, NULL) != ORCA_OK) {
                fprintf(stderr, "pillar: %s\n", orca_sim_last_error(s));
                exit(1);
            }
        }
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void check(orca_sim *s, orca_status st, const char *what)
{
    if (st != ORCA_OK) {
        fprintf(stderr, "%s: %s\n", what, orca_sim_last_error(s));
        exit(1);
    }
}

#endif
