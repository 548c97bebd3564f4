/* SPDX-License-Identifier: MIT */
/* Navigation's costs (docs/navigation.md, "Costs"): prints figures, passes or fails nothing.
 *
 *   orca_nav_bench [AGENTS ...] [--steps S] [--workers W] [--exit-choice nearest|calm|quickest]
 *                  [--pedestrian [--split]]
 *
 * The plan: 16 x 16 rooms of 20 x 15 m with a 1.6 m door in the middle of every inner wall and
 * 10 exits 2 m wide in the outer wall (1,034 wall segments); the agents (radius 0.25 m) spread
 * over the rooms, all heading for the nearest exit (one goal set, exits that remove arrivals).
 * For each agent count: the graph's build time and size, the first step (the exits' distances
 * and every agent's first plan), then S scenario steps each followed by a plain simulation step
 * of the state it left with the preferred velocities it set (what navigation and the rule add
 * is the difference), the cost of adding one wall (the step after it: the graph rebuilt, every agent
 * planned again), and the memory of the paths. Medians of the per-step ratios; the machine's
 * noise shows in their spread. --exit-choice sets the agents' exit choice (docs/navigation.md,
 * "Exit choice"); --pedestrian turns the pedestrian model on for the scenario steps
 * (docs/pedestrians.md; its defaults, the agents' streams from their goal set, the agents as
 * they are) and off for the plain steps, so that the difference holds navigation, the exit
 * choice, the rule and the model. --split (only with --pedestrian) puts a simulation step with the
 * model on between the two, so that the model's share (that step against the plain one) and
 * navigation's (the scenario step against that step) are told apart, on states a step apart
 * (the run's path then differs from one without it). */
#define _POSIX_C_SOURCE 200809L
#include "orca/orca.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define ROOMS_X 16
#define ROOMS_Y 16
#define ROOM_W 20.0
#define ROOM_H 15.0
#define DOOR 1.6
#define EXIT_W 2.0

static int exit_choice = ORCA_EXIT_NEAREST;
static int pedestrian = 0;
static int split = 0;

static int is_exit_column(int i) { return i == 1 || i == 4 || i == 7 || i == 10 || i == 13; }

/* A wall from a to b along one axis with a gap of width w in its middle (w 0: none). */
static int wall(orca_sim *sim, orca_vec2 a, orca_vec2 b, double w, int *count)
{
    orca_segment_id id;
    if (w <= 0) {
        ++*count;
        return orca_sim_add_segment(sim, a, b, &id) != ORCA_OK;
    }
    orca_vec2 m = vec((a.x + b.x) / 2, (a.y + b.y) / 2);
    double dx = b.x - a.x, dy = b.y - a.y;
    double len = dx != 0 ? (dx < 0 ? -dx : dx) : (dy < 0 ? -dy : dy);
    double ux = dx / len, uy = dy / len;
    *count += 2;
    return orca_sim_add_segment(sim, a, vec(m.x - ux * w / 2, m.y - uy * w / 2), &id) != ORCA_OK ||
           orca_sim_add_segment(sim, vec(m.x + ux * w / 2, m.y + uy * w / 2), b, &id) != ORCA_OK;
}

static int build_plan(orca_sim *sim, orca_vec2 *exits, int *nexits)
{
    int count = 0;
    *nexits = 0;
    for (int j = 0; j <= ROOMS_Y; ++j) {
        for (int i = 0; i < ROOMS_X; ++i) {
            orca_vec2 a = vec(i * ROOM_W, j * ROOM_H), b = vec((i + 1) * ROOM_W, j * ROOM_H);
            int outer = j == 0 || j == ROOMS_Y;
            double gap = outer ? (is_exit_column(i) ? EXIT_W : 0.0) : DOOR;
            if (wall(sim, a, b, gap, &count)) {
                return -1;
            }
            if (outer && gap > 0) {
                exits[(*nexits)++] = vec((a.x + b.x) / 2, j == 0 ? -2.0 : j * ROOM_H + 2.0);
            }
        }
    }
    for (int i = 0; i <= ROOMS_X; ++i) {
        for (int j = 0; j < ROOMS_Y; ++j) {
            orca_vec2 a = vec(i * ROOM_W, j * ROOM_H), b = vec(i * ROOM_W, (j + 1) * ROOM_H);
            int outer = i == 0 || i == ROOMS_X;
            if (wall(sim, a, b, outer ? 0.0 : DOOR, &count)) {
                return -1;
            }
        }
    }
    return count;
}

static int run(int agents, int steps, int workers)
{
    orca_scenario *sc = NULL;
    if (orca_scenario_create(NULL, 0.1, 1, &sc) != ORCA_OK) {
        return 1;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    orca_sim_set_worker_count(sim, workers);
    orca_vec2 exits[16];
    int nexits = 0;
    int walls = build_plan(sim, exits, &nexits);
    if (walls < 0) {
        fprintf(stderr, "building the plan failed: %s\n", orca_sim_last_error(sim));
        return 1;
    }
    int set = -1;
    if (orca_scenario_add_goal_set(sc, "exits", exits, nexits, &set) != ORCA_OK ||
        orca_scenario_set_goal_set_exit(sc, set, 1.0) != ORCA_OK ||
        orca_scenario_set_navigation(sc, 1) != ORCA_OK) {
        fprintf(stderr, "%s\n", orca_scenario_last_error(sc));
        return 1;
    }
    const double r = 0.25;
    /* the graph alone, on its own navigation object */
    orca_nav *nav = NULL;
    orca_nav_stats stats;
    double t0 = now();
    if (orca_nav_create(sim, &nav) != ORCA_OK || orca_nav_stats_get(nav, r, &stats) != ORCA_OK) {
        return 1;
    }
    double t_graph = now() - t0;
    orca_nav_destroy(nav);
    /* agents: per room a lattice inset 1 m from the walls */
    int rooms = ROOMS_X * ROOMS_Y;
    int per = (agents + rooms - 1) / rooms;
    int cols = 1;
    while (cols * (int)((double)cols * (ROOM_H - 2) / (ROOM_W - 2) + 1) < per) {
        ++cols;
    }
    int rows = (per + cols - 1) / cols;
    double sx = cols > 1 ? (ROOM_W - 2) / (cols - 1) : 0, sy = rows > 1 ? (ROOM_H - 2) / (rows - 1) : 0;
    for (int k = 0; k < agents; ++k) {
        int room = k % rooms, slot = k / rooms;
        int ri = room % ROOMS_X, rj = room / ROOMS_X;
        orca_agent_def d = orca_agent_def_default();
        d.radius = r;
        d.max_speed = 1.5;
        d.neighbor_dist = 3;
        d.max_neighbors = 10;
        d.time_horizon = 1;
        d.obstacle_time_horizon = 0.25;
        d.position = vec(ri * ROOM_W + 1 + (slot % cols) * sx, rj * ROOM_H + 1 + (slot / cols) * sy);
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_SET;
        g.goal_set = set;
        g.preferred_speed = 1.2;
        if (orca_scenario_add_agent(sc, &d, &g, NULL) != ORCA_OK) {
            fprintf(stderr, "agent %d: %s\n", k, orca_scenario_last_error(sc));
            return 1;
        }
    }
    orca_scenario_set_recording(sc, 0);
    orca_pedestrian ped = orca_pedestrian_default();
    if ((exit_choice != ORCA_EXIT_NEAREST &&
         orca_scenario_set_exit_choice(sc, exit_choice) != ORCA_OK) ||
        (pedestrian && orca_scenario_set_pedestrian(sc, &ped) != ORCA_OK)) {
        fprintf(stderr, "%s\n", orca_scenario_last_error(sc));
        return 1;
    }
    static const char *const choices[] = {"nearest", "calm", "quickest"};
    printf("%d agents, %d walls, %d workers, exit choice %s, pedestrian model %s\n", agents,
           walls, workers, choices[exit_choice], pedestrian ? "on" : "off");
    printf("  graph (radius 0.25 m)   %d wall ends, %d legs, %.1f KiB, built in %.3f s\n",
           stats.vertices, stats.legs, (double)stats.bytes / 1024.0, t_graph);
    t0 = now();
    if (orca_scenario_step(sc) != ORCA_OK) {
        return 1;
    }
    double t_first = now() - t0;
    long corners = 0;
    int n = orca_sim_agent_count(sim);
    for (int i = 0; i < n; ++i) {
        orca_nav_agent na;
        if (orca_scenario_agent_nav(sc, i, &na, NULL, 0) == ORCA_OK) {
            corners += na.corners;
        }
    }
    printf("  first step              %.3f s (the exits' distances, every agent's first plan: "
           "%.1f us an agent)\n",
           t_first, 1e6 * t_first / n);
    printf("  paths                   %.2f corners an agent (%zu bytes each)\n",
           (double)corners / n, sizeof(orca_nav_corner));
    /* steady steps: each scenario step (navigation, the rule, the step) followed by a plain
     * simulation step of the state it left, with the preferred velocities the rule gave (the
     * same agents, grid and density): the difference is what navigation and the rule cost */
    double *ratio = malloc((size_t)steps * sizeof *ratio);
    double sum_nav = 0, sum_plain = 0, sum_model = 0;
    for (int s = 0; s < steps; ++s) {
        t0 = now();
        orca_scenario_step(sc);
        double t_nav = now() - t0;
        if (split) {
            /* --split: a simulation step with the model on, between the two */
            t0 = now();
            orca_sim_step(sim, 0.1);
            sum_model += now() - t0;
        }
        if (pedestrian) {
            orca_sim_set_pedestrian(sim, NULL); /* the plain step: the model off */
        }
        t0 = now();
        orca_sim_step(sim, 0.1);
        double t_plain = now() - t0;
        if (pedestrian) {
            orca_sim_set_pedestrian(sim, &ped);
        }
        ratio[s] = (t_nav - t_plain) / t_nav;
        sum_nav += t_nav;
        sum_plain += t_plain;
    }
    long reroutes = 0, plans = 0;
    n = orca_sim_agent_count(sim);
    for (int i = 0; i < n; ++i) {
        orca_nav_agent na;
        if (orca_scenario_agent_nav(sc, i, &na, NULL, 0) == ORCA_OK) {
            reroutes += na.reroutes;
            plans += na.plans;
        }
    }
    int exited = 0;
    orca_scenario_exited(sc, &exited, NULL);
    qsort(ratio, (size_t)steps, sizeof *ratio, cmp_double);
    printf("  steady step             %.2f ms with navigation, %.2f ms the plain step: "
           "navigation, the rule%s %.1f%% of the step (median of %d; quartiles %.1f%%, %.1f%%)\n",
           1e3 * sum_nav / steps, 1e3 * sum_plain / steps,
           pedestrian ? (exit_choice ? ", the exit choice and the model" : " and the model")
                      : (exit_choice ? " and the exit choice" : ""),
           100 * ratio[steps / 2], steps,
           100 * ratio[steps / 4], 100 * ratio[(3 * steps) / 4]);
    if (split) {
        printf("  split                   %.2f ms the step with the model: the model %.1f%% of "
               "the plain step; navigation, the rule%s %.1f%% of it (the scenario step less "
               "that)\n",
               1e3 * sum_model / steps, 100 * (sum_model - sum_plain) / sum_plain,
               exit_choice ? " and the exit choice" : "",
               100 * (sum_nav - sum_model) / sum_plain);
    }
    printf("  over those steps        %ld plans, %ld of them re-routings (agents now on the "
           "floor), %d agents left by the exits\n",
           plans, reroutes, exited);
    /* one wall more: a door in the middle closed */
    orca_segment_id id;
    double mx = (ROOMS_X / 2) * ROOM_W, my = (ROOMS_Y / 2) * ROOM_H + ROOM_H / 2;
    t0 = now();
    orca_sim_add_segment(sim, vec(mx, my - DOOR), vec(mx, my + DOOR), &id);
    orca_scenario_step(sc);
    double t_wall = now() - t0;
    printf("  one wall added          the next step %.3f s (graph rebuilt, %d agents planned "
           "again: %.1f us an agent)\n",
           t_wall, orca_sim_agent_count(sim), 1e6 * t_wall / orca_sim_agent_count(sim));
    /* individual goals: a full search per agent */
    if (getenv("ORCA_NAV_BENCH_NO_QUERIES") == NULL) {
        orca_nav *nv = NULL;
        orca_nav_create(sim, &nv);
        orca_nav_result res;
        int q = 200;
        t0 = now();
        for (int k = 0; k < q; ++k) {
            orca_vec2 from = vec(1.5 + (k % 16) * ROOM_W, 1.5 + ((k / 16) % 16) * ROOM_H);
            orca_vec2 to = vec(ROOMS_X * ROOM_W - 1.5 - (k % 7) * ROOM_W, ROOMS_Y * ROOM_H - 1.5);
            orca_nav_path(nv, r, from, &to, 1, &res, NULL, NULL, NULL, 0, NULL);
        }
        double t_q = now() - t0;
        printf("  point goals             %.2f ms a path query across the plan (mean of %d, "
               "graph built before)\n",
               1e3 * t_q / q, q);
        orca_nav_destroy(nv);
    }
    free(ratio);
    orca_scenario_destroy(sc);
    return 0;
}

int main(int argc, char **argv)
{
    int steps = 20, workers = 1;
    int counts[16], nc = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            steps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
            workers = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--exit-choice") == 0 && i + 1 < argc) {
            ++i;
            exit_choice = strcmp(argv[i], "calm") == 0       ? ORCA_EXIT_CALM
                          : strcmp(argv[i], "quickest") == 0 ? ORCA_EXIT_QUICKEST
                          : strcmp(argv[i], "nearest") == 0  ? ORCA_EXIT_NEAREST
                                                             : -1;
            if (exit_choice < 0) {
                fprintf(stderr, "--exit-choice: nearest, calm or quickest, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--pedestrian") == 0) {
            pedestrian = 1;
        } else if (strcmp(argv[i], "--split") == 0) {
            split = 1;
        } else if (nc < 16) {
            counts[nc++] = atoi(argv[i]);
        }
    }
    if (split && !pedestrian) {
        fprintf(stderr, "--split needs --pedestrian (it times the step with the model)\n");
        return 2;
    }
    if (nc == 0) {
        counts[nc++] = 10000;
        counts[nc++] = 100000;
    }
    if (steps < 1) {
        steps = 1;
    }
    for (int c = 0; c < nc; ++c) {
        if (run(counts[c], steps, workers)) {
            return 1;
        }
    }
    return 0;
}
