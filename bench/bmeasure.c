/* SPDX-License-Identifier: MIT */
/* The cost of orca_sim_measure_boundary (docs/extensions.md, "Agents must fit"): agents at
 * random places in the pillared room of pillars.h with 16 x 16 pillars (1,028 edges) and
 * 50 x 50 (10,004 edges), after one step (so that the edge grid is the step's), measured by
 * the library on 1 and 2 workers, and by the scan over every agent and every edge that it
 * replaced (a copy kept here, the results compared bit for bit). Times per call, medians over
 * runs; the library's first call (building the grid's rows and the workers' scratch) apart.
 * Prints figures; never judges. With `noscan` the library alone (for callgrind:
 * --toggle-collect=orca_sim_measure_boundary).
 *   orca_bmeasure [agents [runs [noscan]]]   (defaults 10000 and 5) */
#define _POSIX_C_SOURCE 200809L
#include "pillars.h"

#include "exact.h" /* the scan's exact sides, as the library's (src/exact.h) */

#include <math.h>
#include <orca/solver.h>
#include <string.h>

/* The agents' max speed and obstacle horizon: the step's edge grid has cells of their reach,
 * HORIZON * SPEED + RADIUS = 3.3 m */
#define SPEED 1.5
#define HORIZON 2.0
#define REPS 5 /* library calls per timing */

/* The calling thread's CPU time, s. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The scan the library did before: every agent against every edge. */
static void scan(const orca_vec2 *pos, double r, int n, const orca_vec2 *ea, const orca_vec2 *eb,
                 int ne, double *deepest, int *outside)
{
    double worst = 0;
    int out = 0;
    for (int i = 0; i < n; ++i) {
        orca_vec2 p = pos[i];
        int wn = 0, on = 0;
        for (int k = 0; k < ne; ++k) {
            orca_vec2 a = {ea[k].x - p.x, ea[k].y - p.y}, b = {eb[k].x - p.x, eb[k].y - p.y};
            double d2 = orca_segment_distance_squared(a, b);
            if (d2 < r * r) {
                double o = (r - sqrt(d2)) / r;
                worst = o > worst ? o : worst;
            }
            int below_a = a.y <= 0, below_b = b.y <= 0;
            if (below_a == below_b && (!below_a || (a.y < 0 && b.y < 0))) {
                continue; /* neither crossing the line y = p.y nor touching it */
            }
            int up = below_a && !below_b, down = !below_a && below_b;
            int inbox = fmin(a.x, b.x) <= 0 && 0 <= fmax(a.x, b.x) && fmin(a.y, b.y) <= 0 &&
                        0 <= fmax(a.y, b.y);
            if (up || down || inbox) {
                int o = orca_exact_orient(ea[k], eb[k], p);
                on |= o == 0 && inbox;
                wn += (up && o > 0) - (down && o < 0);
            }
        }
        out += wn < 1 || on;
    }
    *deepest = worst;
    *outside = out;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    int with_scan = argc > 3 ? strcmp(argv[3], "noscan") != 0 : 1;
    if (n < 1 || runs < 1 || runs > 64) {
        fprintf(stderr, "usage: orca_bmeasure [agents [runs (1..64) [noscan]]]\n");
        return 2;
    }
    static const int sizes[2] = {16, 50};
    printf("orca_bmeasure: %d agents (radius %g m) in a room of pillars, median of %d runs\n", n,
           RADIUS, runs);
    printf("  %-6s %13s %11s %11s %11s %11s %7s %s\n", "edges", "scan (cpu)", "1w (cpu)",
           "1w (wall)", "2w (wall)", "first call", "scan/1w", "results");
    for (int z = 0; z < 2; ++z) {
        g_pillars = sizes[z];
        orca_vec2 *pos = malloc((size_t)n * sizeof *pos);
        orca_agent_def *defs = malloc((size_t)n * sizeof *defs);
        int ne = 4 + 4 * g_pillars * g_pillars;
        orca_vec2 *ea = malloc((size_t)ne * sizeof *ea), *eb = malloc((size_t)ne * sizeof *eb);
        if (!pos || !defs || !ea || !eb) {
            return 1;
        }
        for (int i = 0; i < n; ++i) {
            defs[i] = orca_agent_def_default();
            defs[i].radius = RADIUS;
            defs[i].max_speed = SPEED;
            defs[i].obstacle_time_horizon = HORIZON;
            defs[i].position = free_point();
        }
        orca_sim *s = NULL;
        if (orca_sim_create(NULL, &s) != ORCA_OK) {
            return 1;
        }
        add_loops(s);
        check(s, orca_sim_add_agents(s, defs, n, NULL), "setup");
        /* one step: the edge grid is then the step's, as in `orca run` */
        check(s, orca_sim_step(s, 0.1), "step");
        for (int i = 0; i < n; ++i) {
            check(s, orca_agent_get_position(s, orca_sim_agent_at(s, i), &pos[i]), "position");
        }
        for (int l = 0, m = 0; l < orca_sim_boundary_count(s); ++l) { /* the edges, in order */
            orca_vec2 p[4];
            int c = 0;
            check(s, orca_boundary_get(s, orca_sim_boundary_at(s, l), p, 4, &c), "get");
            for (int k = 0; k < c; ++k, ++m) {
                ea[m] = p[k];
                eb[m] = p[(k + 1) % c];
            }
        }
        /* t[0]: the scan, t[1]: 1 worker, both in the thread's CPU time (a shared machine
         * takes the processor away at times: wall time would count that); t[2]: 1 worker and
         * t[3]: 2 workers in wall time; each over REPS calls */
        double t[4][64], first = 0, dl[3];
        int ol[3];
        for (int r = 0; r < runs; ++r) {
            double c0 = cpu_now();
            if (with_scan) {
                scan(pos, RADIUS, n, ea, eb, ne, &dl[0], &ol[0]);
            }
            t[0][r] = cpu_now() - c0;
            for (int w = 1; w <= 2; ++w) {
                check(s, orca_sim_set_worker_count(s, w), "workers");
                /* untimed but for the first: the grid's rows and the workers' scratch built */
                double t0 = now();
                check(s, orca_sim_measure_boundary(s, &dl[w], &ol[w]), "measure");
                if (r == 0 && w == 1) {
                    first = now() - t0;
                }
                t0 = now();
                c0 = cpu_now();
                for (int k = 0; k < REPS; ++k) {
                    check(s, orca_sim_measure_boundary(s, &dl[w], &ol[w]), "measure");
                }
                if (w == 1) {
                    t[1][r] = (cpu_now() - c0) / REPS;
                }
                t[w + 1][r] = (now() - t0) / REPS;
            }
        }
        if (!with_scan) {
            dl[0] = dl[1];
            ol[0] = ol[1];
        }
        int same = ol[1] == ol[0] && ol[2] == ol[0] && memcmp(&dl[1], &dl[0], sizeof dl[0]) == 0 &&
                   memcmp(&dl[2], &dl[0], sizeof dl[0]) == 0;
        double m[4];
        for (int k = 0; k < 4; ++k) {
            m[k] = 1e3 * median(t[k], runs);
        }
        printf("  %-6d %10.2f ms %8.3f ms %8.3f ms %8.3f ms %8.3f ms %7.0f %s (%d outside, "
               "deepest %g)\n",
               ne, m[0], m[1], m[2], m[3], 1e3 * first, m[0] / m[1], same ? "same" : "DIFFERENT",
               ol[0], dl[0]);
        orca_sim_destroy(s);
        free(pos);
        free(defs);
        free(ea);
        free(eb);
    }
    return 0;
}
