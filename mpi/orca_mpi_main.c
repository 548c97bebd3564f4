/* SPDX-License-Identifier: MIT */
/* orca-mpi: a built-in scene or a scene file run across the ranks of MPI_COMM_WORLD (docs/mpi.md).
 * Rank 0 prints; every rank computes the same results. */
#include <orca/mpi.h>
#include <orca/scene_file.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "Usage: mpirun -n RANKS orca-mpi run --scene NAME [-n N] [--seed S] [options]\n"
    "       mpirun -n RANKS orca-mpi run SCENE_FILE [options]\n"
    "       mpirun -n RANKS orca-mpi run --restart DIR [options]\n"
    "\n"
    "Runs a built-in scene or a scene file split across the MPI ranks by spatial domains,\n"
    "with the bits of one process: every hash printed equals `orca run`'s for the same\n"
    "scene and step count, for any number of ranks (docs/mpi.md).\n"
    "\n"
    "Scene:\n"
    "  --scene NAME          circle, crossing, wallgap, corridor, random\n"
    "  -n, --agents N        agents of the built-in scene (default: the scene's own)\n"
    "  --seed S              seed, 0..2^64-1 (default 1)\n"
    "  --restart DIR         continue the run whose checkpoint is in DIR (on any rank count)\n"
    "Run:\n"
    "  --steps N             steps to run (default 100; after --restart: more steps)\n"
    "  --max-steps CAP       instead of --steps: run until every agent has arrived (is\n"
    "                        within its radius of its goal point), at most CAP steps;\n"
    "                        stops at the step `orca run --max-steps CAP` stops at\n"
    "  -j, --workers N       worker threads per rank, 1..64 (default 1)\n"
    "  --scalar              no vector kernels (same bits)\n"
    "  --rebalance K         rebuild the domains every K steps (default 50; 0 never)\n"
    "  --checkpoint DIR      write a checkpoint into DIR (which must exist) at the end,\n"
    "                        and every --checkpoint-every K steps (default: only at the end)\n"
    "  --checkpoint-every K\n"
    "  --diagnostics         count fallbacks (same bits, slower)\n"
    "  --warmup K            the per-rank figures leave out the first K of the steps\n"
    "                        (the first steps fault in the memory)\n"
    "Output (rank 0):\n"
    "  --hash-every K        print the state hash every K steps (\"step K hash H\")\n"
    "  --json                the summary as one JSON object\n"
    "  -q, --quiet           no summary (--json still prints)\n"
    "Summary: agents, segments, steps, arrived (with --max-steps: the step all had arrived\n"
    "at, or the cap), deepest overlaps, fallbacks, the state hash,\n"
    "and per rank: agents owned, halo agents and bytes per step, agents handed on, step time\n"
    "and the share of it in MPI calls.\n";

typedef struct options {
    const char *scene, *file, *restart, *checkpoint;
    long long agents, steps, max_steps, hash_every, ckpt_every, rebalance, workers, warmup;
    uint64_t seed;
    int scalar, json, quiet, diagnostics, have_steps, until_arrived;
} options;

static int rank0;

static void say(const char *fmt, const char *a, const char *b)
{
    if (rank0) {
        fprintf(stderr, "orca-mpi: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
}

static int parse_ll(const char *name, const char *v, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    if (!v) {
        say("%s needs a value%s", name, "");
        return 0;
    }
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || x < lo || x > hi) {
        char range[64];
        snprintf(range, sizeof range, "%lld..%lld", lo, hi);
        if (rank0) {
            fprintf(stderr, "orca-mpi: %s: expected a whole number in %s, got '%s'\n", name, range,
                    v);
        }
        return 0;
    }
    *out = x;
    return 1;
}

static int parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->steps = 100;
    o->rebalance = 50;
    o->workers = 1;
    o->seed = 1;
    if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) {
        if (rank0) {
            fputs(USAGE, stdout);
        }
        return argc < 2 ? -1 : 0;
    }
    if (strcmp(argv[1], "run") != 0) {
        say("unknown command '%s' (run or help)%s", argv[1], "");
        return -1;
    }
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1, used = 1;
        if (!strcmp(a, "--scene")) {
            ok = v != NULL;
            o->scene = v;
        } else if (!strcmp(a, "-n") || !strcmp(a, "--agents")) {
            ok = parse_ll(a, v, 0, 100000000, &o->agents);
        } else if (!strcmp(a, "--seed")) {
            char *end = NULL;
            ok = v && *v && *v != '-';
            if (ok) {
                o->seed = strtoull(v, &end, 10);
                ok = *end == '\0';
            }
            if (!ok) {
                say("--seed: expected a whole number in 0..2^64-1, got '%s'%s", v ? v : "", "");
                return -1;
            }
        } else if (!strcmp(a, "--restart")) {
            ok = v != NULL;
            o->restart = v;
        } else if (!strcmp(a, "--checkpoint")) {
            ok = v != NULL;
            o->checkpoint = v;
        } else if (!strcmp(a, "--checkpoint-every")) {
            ok = parse_ll(a, v, 1, 1LL << 40, &o->ckpt_every);
        } else if (!strcmp(a, "--steps")) {
            ok = parse_ll(a, v, 0, 1LL << 40, &o->steps);
            o->have_steps = 1;
        } else if (!strcmp(a, "--max-steps")) {
            ok = parse_ll(a, v, 1, 1LL << 40, &o->max_steps);
            o->until_arrived = 1;
        } else if (!strcmp(a, "--warmup")) {
            ok = parse_ll(a, v, 0, 1LL << 40, &o->warmup);
        } else if (!strcmp(a, "--hash-every")) {
            ok = parse_ll(a, v, 1, 1LL << 40, &o->hash_every);
        } else if (!strcmp(a, "--rebalance")) {
            ok = parse_ll(a, v, 0, 1 << 30, &o->rebalance);
        } else if (!strcmp(a, "-j") || !strcmp(a, "--workers")) {
            ok = parse_ll(a, v, 1, ORCA_MAX_WORKERS, &o->workers);
        } else {
            used = 0;
            if (!strcmp(a, "--scalar")) {
                o->scalar = 1;
            } else if (!strcmp(a, "--json")) {
                o->json = 1;
            } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
                o->quiet = 1;
            } else if (!strcmp(a, "--diagnostics")) {
                o->diagnostics = 1;
            } else if (a[0] == '-' && a[1] != '\0') {
                say("unknown option '%s' (orca-mpi help lists them)%s", a, "");
                return -1;
            } else if (!o->file) {
                o->file = a;
            } else {
                say("one scene file only, got '%s' and '%s'", o->file, a);
                return -1;
            }
        }
        if (!ok) {
            if (used && !v) {
                say("%s needs a value%s", a, "");
            }
            return -1;
        }
        i += used;
    }
    if (o->have_steps && o->until_arrived) {
        say("give --steps N or --max-steps CAP, not both%s%s", "", "");
        return -1;
    }
    int sources = (o->scene != NULL) + (o->file != NULL) + (o->restart != NULL);
    if (sources != 1) {
        say("give exactly one of --scene NAME, a scene file or --restart DIR%s%s", "", "");
        return -1;
    }
    return 1;
}

/* JSON has no infinity: an unbounded side as +-1e308 */
static double clamp(double v)
{
    return v < -1e308 ? -1e308 : v > 1e308 ? 1e308 : v;
}

static void print_stats(const orca_mpi_stats *all, int ranks, int json)
{
    for (int r = 0; r < ranks; ++r) {
        const orca_mpi_stats *s = &all[r];
        double steps = s->steps > 0 ? (double)s->steps : 1.0;
        double share = s->step_seconds > 0 ? s->comm_seconds / s->step_seconds : 0.0;
        if (json) {
            printf("%s{\"rank\":%d,\"owned\":%lld,\"owned_per_step\":%.1f,\"halo_per_step\":%.1f,"
                   "\"halo_bytes_per_step\":%.0f,\"moved\":%lld,\"moved_bytes\":%lld,"
                   "\"step_ms\":%.3f,\"comm_ms\":%.3f,\"solve_ms\":%.3f,\"comm_share\":%.4f,"
                   "\"box\":[%.17g,%.17g,%.17g,%.17g]}",
                   r ? "," : "", r, (long long)s->owned, (double)s->owned_sum / steps,
                   (double)s->halo_sum / steps, (double)s->halo_bytes / steps,
                   (long long)s->moved, (long long)s->moved_bytes,
                   1e3 * s->step_seconds / steps, 1e3 * s->comm_seconds / steps,
                   1e3 * s->solve_seconds / steps, share, clamp(s->box[0]), clamp(s->box[1]),
                   clamp(s->box[2]), clamp(s->box[3]));
        } else {
            printf("  rank %d: %lld agent%s (%.0f per step), halo %.0f agents and %.0f bytes per "
                   "step, %lld handed on; step %.3f ms, %.1f%% of it in MPI calls\n",
                   r, (long long)s->owned, s->owned == 1 ? "" : "s", (double)s->owned_sum / steps,
                   (double)s->halo_sum / steps, (double)s->halo_bytes / steps,
                   (long long)s->moved, 1e3 * s->step_seconds / steps, 100.0 * share);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    rank0 = rank == 0;
    options o;
    int p = parse(argc, argv, &o);
    if (p <= 0) {
        MPI_Finalize();
        return p == 0 ? 0 : 2;
    }
    orca_mpi_def def = orca_mpi_def_default();
    def.workers = (int)o.workers;
    def.vector_kernels = !o.scalar;
    def.rebalance_every = (int)o.rebalance;
    def.diagnostics = o.diagnostics;
    orca_mpi *m = NULL;
    orca_status st = ORCA_OK;
    const char *source = o.scene ? o.scene : o.file ? o.file : o.restart;
    if (o.scene) {
        int kind = orca_scene_from_name(o.scene);
        if (kind < 0) {
            say("--scene: unknown scene '%s' (circle, crossing, wallgap, corridor, random)%s",
                o.scene, "");
            MPI_Finalize();
            return 2;
        }
        st = orca_mpi_create_builtin(MPI_COMM_WORLD, (orca_scene_kind)kind, (int)o.agents,
                                     o.seed, &def, &m);
    } else if (o.file) {
        /* every rank reads the file and builds the scene; each keeps its share */
        char err[1024] = "";
        orca_scenario *sc = NULL;
        orca_scene_file *file = NULL;
        orca_status r = strcmp(o.file, "-") == 0
                            ? orca_scene_file_read_stream(stdin, "<stdin>", &file)
                            : orca_scene_file_read(o.file, &file);
        snprintf(err, sizeof err, "%s", orca_scene_file_last_error(NULL));
        if (r == ORCA_OK) {
            r = orca_scene_file_build(file, NULL, &sc);
            snprintf(err, sizeof err, "%s", orca_scene_file_last_error(file));
            orca_scene_file_destroy(file);
        }
        int bad = r != ORCA_OK, any = 0;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) {
            if (rank0) {
                fprintf(stderr, "orca-mpi: %s\n", err[0] ? err : "the scene file was refused");
            }
            orca_scenario_destroy(sc);
            MPI_Finalize();
            return 2;
        }
        st = orca_mpi_create_from_scenario(MPI_COMM_WORLD, sc, &def, &m);
        orca_scenario_destroy(sc);
    } else {
        st = orca_mpi_restart(MPI_COMM_WORLD, o.restart, &def, &m);
    }
    if (st != ORCA_OK) {
        say("%s: %s", source, orca_mpi_last_error(NULL));
        MPI_Finalize();
        return st == ORCA_ERR_MEMORY ? 1 : 2;
    }
    double t0 = MPI_Wtime();
    uint64_t start = orca_mpi_step_count(m); /* a restart continues a count */
    orca_mpi_reset_stats(m);
    int hashes = 0;
    char hash_lines[64][40];
    /* --max-steps: as `orca run` (and orca_scenario) decide it, the start state is judged with
     * the first step, and the run stops before a step once every agent has arrived */
    long long limit = o.until_arrived ? o.max_steps : o.steps;
    int64_t all_arrived_step = -1, arrived = 0, agents = 0;
    int start_all = 0;
    if (o.until_arrived) {
        st = orca_mpi_count_arrived(m, &arrived, &agents);
        start_all = arrived == agents;
    }
    for (long long k = 0; k < limit && st == ORCA_OK; ++k) {
        if (o.until_arrived && all_arrived_step >= 0) {
            break;
        }
        st = orca_mpi_step(m);
        uint64_t done = start + (uint64_t)k + 1;
        if (st == ORCA_OK && o.until_arrived) {
            if (k == 0 && start_all) {
                all_arrived_step = (int64_t)start;
            } else if ((st = orca_mpi_count_arrived(m, &arrived, &agents)) == ORCA_OK &&
                       arrived == agents) {
                all_arrived_step = (int64_t)done;
            }
        }
        if (k + 1 == o.warmup) {
            orca_mpi_reset_stats(m);
        }
        if (st == ORCA_OK && o.hash_every && done % (uint64_t)o.hash_every == 0) {
            uint64_t h = orca_mpi_hash(m, &st);
            if (st == ORCA_OK && rank0) {
                if (o.json) {
                    if (hashes < 64) {
                        snprintf(hash_lines[hashes++], sizeof hash_lines[0],
                                 "{\"step\":%llu,\"hash\":\"%016llx\"}", (unsigned long long)done,
                                 (unsigned long long)h);
                    }
                } else {
                    printf("step %llu hash %016llx\n", (unsigned long long)done,
                           (unsigned long long)h);
                    fflush(stdout);
                }
            }
        }
        if (st == ORCA_OK && o.checkpoint && o.ckpt_every && done % (uint64_t)o.ckpt_every == 0) {
            st = orca_mpi_checkpoint(m, o.checkpoint);
        }
    }
    double wall = MPI_Wtime() - t0;
    if (st == ORCA_OK && o.checkpoint) {
        st = orca_mpi_checkpoint(m, o.checkpoint);
    }
    orca_mpi_summary s;
    uint64_t h = 0;
    if (st == ORCA_OK) {
        st = orca_mpi_summarize(m, &s);
    }
    if (st == ORCA_OK) {
        h = orca_mpi_hash(m, &st);
    }
    if (st != ORCA_OK) {
        say("%s: %s", source, orca_mpi_last_error(m));
        orca_mpi_destroy(m);
        MPI_Finalize();
        return st == ORCA_ERR_MEMORY ? 1 : 2;
    }
    orca_mpi_stats mine, *all = rank0 ? malloc((size_t)ranks * sizeof *all) : NULL;
    orca_mpi_get_stats(m, &mine);
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (rank0 && o.json) {
        printf("{\"ranks\":%d,\"agents\":%lld,\"segments\":%d,\"steps\":%llu,\"arrived\":%lld,"
               "\"agent_overlap\":%.17g,\"wall_overlap\":%.17g,\"fallbacks\":%lld,"
               "\"wall_seconds\":%.6f,\"hash\":\"%016llx\",",
               ranks, (long long)s.agents, s.segments, (unsigned long long)s.steps,
               (long long)s.arrived, s.agent_overlap, s.wall_overlap, (long long)s.fallbacks,
               wall, (unsigned long long)h);
        printf("\"until_arrived\":%s,\"stop_reason\":\"%s\",", o.until_arrived ? "true" : "false",
               !o.until_arrived ? "steps" : all_arrived_step >= 0 ? "all_arrived" : "step_cap");
        if (o.until_arrived) {
            printf("\"max_steps\":%lld,", o.max_steps);
        }
        if (all_arrived_step >= 0) {
            printf("\"all_arrived_step\":%lld,", (long long)all_arrived_step);
        } else {
            printf("\"all_arrived_step\":null,");
        }
        printf("\"hashes\":[");
        for (int k = 0; k < hashes; ++k) {
            printf("%s%s", k ? "," : "", hash_lines[k]);
        }
        printf("],\"per_rank\":[");
        print_stats(all, ranks, 1);
        printf("]}\n");
    } else if (rank0 && !o.quiet) {
        printf("ranks: %d\nagents: %lld\nsegments: %d\nsteps: %llu\narrived: %lld\n"
               "deepest agent overlap: %.6g (fraction of radius)\n"
               "deepest wall overlap: %.6g (fraction of radius)\n",
               ranks, (long long)s.agents, s.segments, (unsigned long long)s.steps,
               (long long)s.arrived, s.agent_overlap, s.wall_overlap);
        if (s.fallbacks >= 0) {
            printf("fallbacks: %lld\n", (long long)s.fallbacks);
        } else {
            printf("fallbacks: not counted (--diagnostics counts them)\n");
        }
        if (o.until_arrived && all_arrived_step >= 0) {
            printf("all arrived: at step %lld\n", (long long)all_arrived_step);
        } else if (o.until_arrived) {
            printf("all arrived: no (the step cap, --max-steps %lld, stopped the run)\n",
                   o.max_steps);
        }
        printf("wall time: %.3f s\n", wall);
        print_stats(all, ranks, 0);
        printf("hash: %016llx\n", (unsigned long long)h);
    }
    free(all);
    orca_mpi_destroy(m);
    MPI_Finalize();
    return 0;
}
