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
#include "pillars.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
           n, RADIUS, SIDE, g_pillars * g_pillars, 4 + 4 * g_pillars * g_pillars, runs);
    printf("  %-28s %14s %14s %10s\n", "call", "with loops", "without", "ratio");
    for (int what = 0; what < 4; ++what) {
        double a = median(t[1][what], runs), b = median(t[0][what], runs);
        printf("  %-28s %11.1f ns %11.1f ns %10.2f\n", names[what], 1e9 * a / n, 1e9 * b / n,
               a / b);
    }
    printf("  (*) per agent present; without: the same call with no agent\n");
    printf("  the first check (edge grid and rows built): %.2f ms (last run)\n",
           1e3 * first_check);
    free(defs);
    free(moved);
    free(ids);
    return 0;
}
