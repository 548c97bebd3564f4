/* SPDX-License-Identifier: MIT */
/* The cost of the disc check (docs/extensions.md, "Agents must fit"): a 400 m square room with
 * a 50 x 50 lattice of 2 m square pillars (10,004 edges) and 100,000 agents at random places
 * that fit. Times, as medians over runs (a monotonic clock), per agent: adding them one call
 * each and in one batch, moving each with orca_agent_set_position, and adding one more pillar
 * with all of them present; each also without the loops (the same calls, nothing to check;
 * for the pillar: without the agents).
 * Prints figures; never judges.
 *   orca_walls [agents [runs]]   (defaults 100000 and 5) */
#define _POSIX_C_SOURCE 200809L
#include <orca/sim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PILLARS 50   /* per side */
#define SPACING 8.0  /* pillar lattice, m */
#define SIDE (PILLARS * SPACING)
#define RADIUS 0.3

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

/* A random point whose disc clears the walls, the pillars and the spare pillar's square
 * [1, 3]^2 (added by the last measurement) by 0.1 m. */
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
    for (int i = 0; i < PILLARS; ++i) {
        for (int j = 0; j < PILLARS; ++j) {
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

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 1 || runs < 1 || runs > 64) {
        fprintf(stderr, "usage: orca_walls [agents [runs (1..64)]]\n");
        return 2;
    }
    orca_agent_def *defs = malloc((size_t)n * sizeof *defs);
    orca_vec2 *moved = malloc((size_t)n * sizeof *moved);
    orca_agent_id *ids = malloc((size_t)n * sizeof *ids);
    if (!defs || !moved || !ids) {
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        defs[i] = orca_agent_def_default();
        defs[i].radius = RADIUS;
        defs[i].position = free_point();
        moved[i] = free_point();
    }
    static const char *const names[4] = {"add_agent, one call each", "add_agents, one batch",
                                         "agent_set_position", "add_boundary, 1 pillar (*)"};
    double t[2][4][64];
    double first_check = 0;
    for (int r = 0; r < runs; ++r) {
        for (int walls = 0; walls < 2; ++walls) {
            for (int what = 0; what < 4; ++what) {
                orca_sim *s = NULL;
                if (orca_sim_create(NULL, &s) != ORCA_OK) {
                    return 1;
                }
                /* without the check: no loops, or for add_boundary no agents */
                if (walls || what == 3) {
                    add_loops(s);
                }
                if (what == 2 || (what == 3 && walls)) {
                    check(s, orca_sim_add_agents(s, defs, n, ids), "setup");
                }
                double t0 = now();
                if (what == 0) {
                    for (int i = 0; i < n; ++i) {
                        check(s, orca_sim_add_agent(s, &defs[i], &ids[i]), "add_agent");
                        if (i == 0 && walls) {
                            first_check = now() - t0; /* the edge grid and its rows built */
                        }
                    }
                } else if (what == 1) {
                    check(s, orca_sim_add_agents(s, defs, n, ids), "add_agents");
                } else if (what == 2) {
                    for (int i = 0; i < n; ++i) {
                        check(s, orca_agent_set_position(s, ids[i], moved[i]), "set_position");
                    }
                } else {
                    orca_vec2 spare[4] = {{1, 1}, {1, 3}, {3, 3}, {3, 1}};
                    check(s, orca_sim_add_boundary(s, spare, 4, NULL), "add_boundary");
                }
                t[walls][what][r] = now() - t0;
                orca_sim_destroy(s);
            }
        }
    }
    printf("orca_walls: %d agents (radius %g m) in a %g m room with %d pillars (%d edges), "
           "median of %d runs\n",
           n, RADIUS, SIDE, PILLARS * PILLARS, 4 + 4 * PILLARS * PILLARS, runs);
    printf("  %-28s %14s %14s %10s\n", "call", "with loops", "without", "ratio");
    for (int what = 0; what < 4; ++what) {
        double a = median(t[1][what], runs), b = median(t[0][what], runs);
        printf("  %-28s %11.1f ns %11.1f ns %10.2f\n", names[what], 1e9 * a / n, 1e9 * b / n,
               a / b);
    }
    printf("  (*) per agent present; without: the same call with no agent\n");
    /* for scale: the scan over every agent and edge that the grid spares the check */
    {
        orca_sim *s = NULL;
        if (orca_sim_create(NULL, &s) != ORCA_OK) {
            return 1;
        }
        add_loops(s);
        int m = n < 10000 ? n : 10000;
        check(s, orca_sim_add_agents(s, defs, m, NULL), "setup");
        double t0 = now(), deepest = 0;
        int outside = 0;
        check(s, orca_sim_measure_boundary(s, &deepest, &outside), "measure");
        double t1 = now();
        printf("  for scale, orca_sim_measure_boundary (every agent against every edge): "
               "%.1f ns per agent (%d agents, %d outside)\n",
               1e9 * (t1 - t0) / m, m, outside);
        orca_sim_destroy(s);
    }
    printf("  the first check (edge grid and rows built): %.2f ms (last run)\n",
           1e3 * first_check);
    free(defs);
    free(moved);
    free(ids);
    return 0;
}
