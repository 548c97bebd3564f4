/* SPDX-License-Identifier: MIT */
/* The pedestrian model's cost (docs/pedestrians.md, docs/performance.md): the step time of a
 * pedestrian crowd with the model on against the plain step. Prints figures; never judges.
 *
 * Usage: orca_ped_cost [--sizes LIST] [--density RHO] [--steps S] [--warmup W] [--rounds R]
 *                      [--workers K] [--scalar] [--oneway] [--count CASE]
 * Defaults: 10000,100000 agents, 2 per m^2, 20 steps, 40 warm-up steps, 5 rounds, 1 worker.
 *
 * The crowd: n agents of the preset (orca_pedestrian_agent_def: radius 0.18 m, 32 neighbours
 * within 2 m, time horizon 2 s) on a square lattice of spacing 1/sqrt(RHO) filling a square,
 * each moved by up to 0.1 m in x and y (the bench's own generator), in bands of four rows
 * walking +x (stream 0) and -x (stream 1) in turn (with --oneway all +x, stream 0) at the
 * preset's free speeds; no walls; dt
 * 0.05 s. Warmed up W steps with the model on (so that the crowd is in the model's state) and
 * saved. The cases, each loading that snapshot (not timed) and timing S calls of orca_sim_step
 * (with one worker the thread's CPU time, which a shared machine's load disturbs least; with
 * more the monotonic clock):
 *   plain     the model off: the plain step with the agents' time horizon 2 s (before)
 *   plain05   the model off, every time horizon 0.5 s (the horizon the model gives agents not
 *             in counter mode): the plain step with the model's horizon
 *   extended  as plain05 with the separation option on: the extended path alone
 *   model     the model on with its defaults (after)
 * Each round runs the cases back to back; a row gives the median over the rounds of the time
 * per step and of the ratio to plain05 and to plain in the same round. --count CASE runs that
 * case once, with callgrind's collection on only around its S steps (run it under valgrind
 * --tool=callgrind --collect-atstart=no), and prints the agent count. */
#define _POSIX_C_SOURCE 200809L
#include <orca/orca.h>
#include <orca/scenario.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>

#include "bench_util.h"
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#endif

#define LIST_MAX 16
#define CASES 4
#define DT 0.05

static const char *const k_case[CASES] = {"plain", "plain05", "extended", "model"};

static int g_cpu_clock; /* 1: the thread's CPU time (one worker) */

/* The clock of the timed steps: the thread's CPU time with g_cpu_clock, else a monotonic one. */
static double step_clock(void)
{
    struct timespec ts;
    clock_gettime(g_cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* splitmix64: the bench's own jitter */
static double unit(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* The crowd of n agents (see the top), the model on; NULL with a message on a refusal. */
static orca_sim *crowd(int n, double rho, int workers, int oneway)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    orca_sim *sim = NULL;
    if (orca_sim_create(&def, &sim) != ORCA_OK) {
        fprintf(stderr, "orca_ped_cost: %s\n", orca_sim_last_error(NULL));
        return NULL;
    }
    double gap = 1 / sqrt(rho);
    int side = (int)ceil(sqrt((double)n));
    uint64_t rng = 1;
    for (int i = 0; i < n; ++i) {
        int row = i / side, col = i % side, east = oneway || (row / 4) % 2 == 0;
        orca_agent_def d = orca_pedestrian_agent_def();
        d.position.x = col * gap + 0.2 * unit(&rng) - 0.1;
        d.position.y = row * gap + 0.2 * unit(&rng) - 0.1;
        double v0 = orca_pedestrian_free_speed(1, (uint64_t)i);
        d.preferred_velocity.x = east ? v0 : -v0;
        orca_agent_id id;
        if (orca_sim_add_agent(sim, &d, &id) != ORCA_OK ||
            orca_agent_set_stream(sim, id, !east) != ORCA_OK) {
            fprintf(stderr, "orca_ped_cost: agent %d: %s\n", i, orca_sim_last_error(sim));
            orca_sim_destroy(sim);
            return NULL;
        }
    }
    orca_pedestrian p = orca_pedestrian_default();
    orca_sim_set_pedestrian(sim, &p);
    return sim;
}

/* Loads the warmed-up state and sets case c up (not timed); 0 or -1. */
static int setup(orca_sim *sim, const void *snap, size_t size, int c)
{
    if (orca_sim_load(sim, snap, size) != ORCA_OK) {
        return -1;
    }
    if (c == 3) {
        return 0; /* the model as saved */
    }
    orca_sim_set_pedestrian(sim, NULL);
    if (c == 2) {
        orca_sim_set_separation(sim, 1);
    }
    int n = orca_sim_agent_count(sim);
    for (int i = 0; i < n && c >= 1; ++i) {
        orca_agent_id id = orca_sim_agent_at(sim, i);
        orca_agent_def d;
        orca_agent_get(sim, id, &d);
        d.time_horizon = 0.5;
        if (orca_agent_set(sim, id, &d) != ORCA_OK) {
            return -1;
        }
    }
    return 0;
}

static int run_steps(orca_sim *sim, int steps)
{
    for (int k = 0; k < steps; ++k) {
        if (orca_sim_step(sim, DT) != ORCA_OK) {
            fprintf(stderr, "orca_ped_cost: %s\n", orca_sim_last_error(sim));
            return -1;
        }
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: orca_ped_cost [--sizes LIST] [--density RHO] [--steps S] "
                    "[--warmup W] [--rounds R] [--workers K] [--scalar] [--oneway] "
                    "[--count CASE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    double sizes[LIST_MAX] = {10000, 100000};
    int size_count = 2, steps = 20, warmup = 40, rounds = 5, workers = 1, scalar = 0, oneway = 0;
    double rho = 2;
    int count = -1;
    for (int a = 1; a < argc; ++a) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(argv[a], "--scalar") == 0 || strcmp(argv[a], "--oneway") == 0) {
            scalar |= strcmp(argv[a], "--scalar") == 0;
            oneway |= strcmp(argv[a], "--oneway") == 0;
            continue;
        }
        if (!v) {
            return usage();
        }
        ++a;
        if (strcmp(argv[a - 1], "--sizes") == 0) {
            size_count = 0;
            for (const char *s = v; *s && size_count < LIST_MAX;) {
                char *end;
                sizes[size_count++] = strtod(s, &end);
                s = *end == ',' ? end + 1 : end;
                if (end == s && *s) {
                    return usage();
                }
            }
        } else if (strcmp(argv[a - 1], "--density") == 0) {
            rho = atof(v);
        } else if (strcmp(argv[a - 1], "--steps") == 0) {
            steps = atoi(v);
        } else if (strcmp(argv[a - 1], "--warmup") == 0) {
            warmup = atoi(v);
        } else if (strcmp(argv[a - 1], "--rounds") == 0) {
            rounds = atoi(v);
        } else if (strcmp(argv[a - 1], "--workers") == 0) {
            workers = atoi(v);
        } else if (strcmp(argv[a - 1], "--count") == 0) {
            for (int c = 0; c < CASES; ++c) {
                count = strcmp(v, k_case[c]) == 0 ? c : count;
            }
            if (count < 0) {
                return usage();
            }
        } else {
            return usage();
        }
    }
    if (!(rho > 0) || steps < 1 || warmup < 0 || rounds < 1 || workers < 1) {
        return usage();
    }
    g_cpu_clock = workers == 1;
    if (count < 0) {
        printf("orca_ped_cost: preset crowd at %g per m^2, %s, dt %g s, %d steps after a %d-step "
               "warm-up, %d rounds, %d worker%s (%s), %s\n",
               rho, oneway ? "all walking +x" : "bands of 4 rows walking +x / -x", DT, steps,
               warmup, rounds, workers, workers == 1 ? "" : "s",
               g_cpu_clock ? "thread CPU time" : "wall time",
               scalar ? "scalar code" : "vector kernels where the CPU has them");
        printf("%8s %10s %10s %10s %10s %9s %9s %9s\n", "agents", "plain ms", "plain05 ms",
               "ext ms", "model ms", "model/05", "model/pl", "ext/05");
    }
    for (int z = 0; z < size_count; ++z) {
        int n = (int)sizes[z];
        orca_sim *sim = crowd(n, rho, workers, oneway);
        if (!sim) {
            return 1;
        }
        orca_sim_set_vector_kernels(sim, !scalar);
        if (run_steps(sim, warmup) != 0) {
            return 1;
        }
        size_t size = 0;
        orca_sim_save(sim, NULL, 0, &size);
        void *snap = malloc(size);
        if (!snap || orca_sim_save(sim, snap, size, &size) != ORCA_OK) {
            fprintf(stderr, "orca_ped_cost: cannot save the warmed-up crowd\n");
            return 1;
        }
        if (count >= 0) {
            if (setup(sim, snap, size, count) != 0) {
                return 1;
            }
            CALLGRIND_TOGGLE_COLLECT;
            int rc = run_steps(sim, steps);
            CALLGRIND_TOGGLE_COLLECT;
            printf("%d\n", orca_sim_agent_count(sim));
            free(snap);
            orca_sim_destroy(sim);
            if (rc != 0) {
                return 1;
            }
            continue;
        }
        double *t[CASES], *r[3];
        for (int c = 0; c < CASES; ++c) {
            t[c] = malloc((size_t)rounds * sizeof *t[c]);
        }
        for (int q = 0; q < 3; ++q) {
            r[q] = malloc((size_t)rounds * sizeof *r[q]);
        }
        for (int k = 0; k < rounds; ++k) {
            double one[CASES];
            for (int c = 0; c < CASES; ++c) {
                if (setup(sim, snap, size, c) != 0) {
                    fprintf(stderr, "orca_ped_cost: cannot set up %s\n", k_case[c]);
                    return 1;
                }
                double t0 = step_clock();
                if (run_steps(sim, steps) != 0) {
                    return 1;
                }
                one[c] = (step_clock() - t0) / steps * 1e3;
                t[c][k] = one[c];
            }
            r[0][k] = one[3] / one[1];
            r[1][k] = one[3] / one[0];
            r[2][k] = one[2] / one[1];
        }
        printf("%8d %10.3f %10.3f %10.3f %10.3f %9.3f %9.3f %9.3f\n", n, median(t[0], rounds),
               median(t[1], rounds), median(t[2], rounds), median(t[3], rounds),
               median(r[0], rounds), median(r[1], rounds), median(r[2], rounds));
        fflush(stdout);
        for (int c = 0; c < CASES; ++c) {
            free(t[c]);
        }
        for (int q = 0; q < 3; ++q) {
            free(r[q]);
        }
        free(snap);
        orca_sim_destroy(sim);
    }
    return 0;
}
