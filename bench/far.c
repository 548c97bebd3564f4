/* SPDX-License-Identifier: MIT */
/* The cost of one agent with a large neighbour distance (docs/determinism.md, "The grid only
 * chooses what is looked at"): the step time of a built-in scene as it is, and with one agent's
 * neighbor_dist raised to each given value. Prints figures; never judges.
 *
 * Usage: orca_far [--scene NAME] [--sizes LIST] [--nd LIST] [--steps S] [--warmup W]
 *                 [--rounds R] [--workers K] [--agent I] [--scalar]
 * Defaults: random, 50000, 8388608,1048576, 3, 0, 5, 1, the middle index.
 *
 * Method: per size the scene is built (K workers), warmed up W steps and saved. Each round
 * runs every case in turn: the snapshot loaded (not timed), for the far cases agent I's
 * neighbor_dist set (orca_agent_set, not timed), then S calls of orca_scenario_step timed
 * with a monotonic clock. A row gives the median over the rounds of the time per step, the
 * range, and the median over the rounds of the ratio to the plain case's time in the same
 * round (the cases of a round run back to back, so a shared machine's slow spells mostly
 * cancel). With W = 0 the S steps are the scene's first (the searches start without hints).
 * The state hash of each case is the same in every round (checked). */
#define _POSIX_C_SOURCE 200809L
#include <orca/orca.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define LIST_MAX 16

static int usage(void)
{
    fprintf(stderr, "usage: orca_far [--scene NAME] [--sizes LIST] [--nd LIST] [--steps S] "
                    "[--warmup W] [--rounds R] [--workers K] [--agent I] [--scalar]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *scene = "random";
    double sizes[LIST_MAX] = {50000}, nds[LIST_MAX] = {8388608, 1048576};
    int size_count = 1, nd_count = 2, steps = 3, warmup = 0, rounds = 5, workers = 1;
    long agent = -1;
    int scalar = 0;
    for (int a = 1; a < argc; ++a) {
        const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(o, "--scalar") == 0) {
            scalar = 1;
            continue;
        }
        if (!v) {
            return usage();
        }
        ++a;
        if (strcmp(o, "--scene") == 0) {
            scene = v;
        } else if (strcmp(o, "--sizes") == 0) {
            size_count = parse_list(v, sizes, LIST_MAX);
        } else if (strcmp(o, "--nd") == 0) {
            nd_count = parse_list(v, nds, LIST_MAX);
        } else if (strcmp(o, "--steps") == 0) {
            steps = atoi(v);
        } else if (strcmp(o, "--warmup") == 0) {
            warmup = atoi(v);
        } else if (strcmp(o, "--rounds") == 0) {
            rounds = atoi(v);
        } else if (strcmp(o, "--workers") == 0) {
            workers = atoi(v);
        } else if (strcmp(o, "--agent") == 0) {
            agent = atol(v);
        } else {
            return usage();
        }
    }
    int kind = orca_scene_from_name(scene);
    if (kind < 0 || size_count < 1 || nd_count < 0 || steps < 1 || warmup < 0 || rounds < 1 ||
        workers < 1) {
        return usage();
    }
    printf("orca_far: scene %s, %d worker%s, %s; %d step%s after a %d-step warm-up, %d "
           "round%s; medians of the time per step\n",
           scene, workers, workers == 1 ? "" : "s", scalar ? "scalar code" : "vector kernels",
           steps, steps == 1 ? "" : "s", warmup, rounds, rounds == 1 ? "" : "s");
    printf("%10s %10s %14s %12s %23s %8s %18s\n", "agents", "agent", "neighbor_dist",
           "ms/step", "min..max", "ratio", "hash");
    int cases = nd_count + 1;
    double *t = malloc((size_t)cases * (size_t)rounds * sizeof *t);
    double *ratio = malloc((size_t)cases * (size_t)rounds * sizeof *ratio);
    if (!t || !ratio) {
        return 1;
    }
    for (int z = 0; z < size_count; ++z) {
        orca_sim_def def = orca_sim_def_default();
        def.worker_count = workers;
        orca_scenario *sc;
        if (orca_scenario_create_builtin((orca_scene_kind)kind, (int)sizes[z], 1, &def, &sc) !=
            ORCA_OK) {
            fprintf(stderr, "orca_far: %s\n", orca_scenario_last_error(NULL));
            return 1;
        }
        orca_scenario_set_recording(sc, 0);
        orca_sim *sim = orca_scenario_sim(sc);
        orca_sim_set_vector_kernels(sim, !scalar);
        for (int k = 0; k < warmup; ++k) {
            orca_scenario_step(sc);
        }
        int n = orca_sim_agent_count(sim);
        int who = agent >= 0 && agent < n ? (int)agent : n / 2;
        size_t size = 0;
        orca_sim_save(sim, NULL, 0, &size);
        unsigned char *snap = malloc(size);
        if (!snap || orca_sim_save(sim, snap, size, &size) != ORCA_OK) {
            fprintf(stderr, "orca_far: cannot save the warmed-up state\n");
            return 1;
        }
        uint64_t hash[LIST_MAX + 1] = {0};
        for (int r = 0; r < rounds; ++r) {
            for (int c = 0; c < cases; ++c) {
                orca_status st = orca_sim_load(sim, snap, size);
                if (st == ORCA_OK && c > 0) {
                    orca_agent_id id = orca_sim_agent_at(sim, who);
                    orca_agent_def d;
                    st = orca_agent_get(sim, id, &d);
                    d.neighbor_dist = nds[c - 1];
                    st = st == ORCA_OK ? orca_agent_set(sim, id, &d) : st;
                }
                double t0 = now();
                for (int k = 0; k < steps && st == ORCA_OK; ++k) {
                    st = orca_scenario_step(sc);
                }
                t[c * rounds + r] = (now() - t0) / steps;
                if (st != ORCA_OK) {
                    fprintf(stderr, "orca_far: %s\n", orca_sim_last_error(sim));
                    return 1;
                }
                uint64_t h = orca_sim_hash(sim);
                if (r > 0 && h != hash[c]) {
                    fprintf(stderr, "orca_far: case %d: the hash differs between rounds\n", c);
                    return 1;
                }
                hash[c] = h;
            }
        }
        for (int c = cases - 1; c >= 0; --c) {
            /* the ratios first: the plain case's times are still in round order */
            for (int r = 0; r < rounds; ++r) {
                ratio[c * rounds + r] = t[c * rounds + r] / t[r];
            }
        }
        for (int c = 0; c < cases; ++c) {
            double *v = t + c * rounds;
            double m = median(v, rounds), q = median(ratio + c * rounds, rounds);
            char range[64], nd[32];
            snprintf(range, sizeof range, "%.2f..%.2f", 1e3 * v[0], 1e3 * v[rounds - 1]);
            snprintf(nd, sizeof nd, c == 0 ? "as built" : "%.9g", c == 0 ? 0.0 : nds[c - 1]);
            printf("%10d %10d %14s %12.2f %23s %8.3f  %016llx\n", n, who, nd, 1e3 * m, range, q,
                   (unsigned long long)hash[c]);
            fflush(stdout);
        }
        free(snap);
        orca_scenario_destroy(sc);
    }
    free(t);
    free(ratio);
    return 0;
}
