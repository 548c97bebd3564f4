/* SPDX-License-Identifier: MIT */
/* orca-mpi: a built-in scene or a scene file run across the ranks of MPI_COMM_WORLD (docs/mpi.md).
 * Rank 0 prints; every rank computes the same results. */
#include <orca/mpi.h>
#include <orca/scene_file.h>

#include "orca_mpi_svg.h"

#include <errno.h>
#include <stdarg.h>
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
    "                        and every --checkpoint-every K steps (default: only at the end);\n"
    "                        every rank checks it can write there before the first step.\n"
    "                        A restart checks every byte (checksums, the run, the parts'\n"
    "                        digests, the state hash) and refuses, naming file and field\n"
    "  --checkpoint-every K\n"
    "  --diagnostics         per-agent diagnostics in each rank's step (same bits,\n"
    "                        slower; the fallbacks are counted without them)\n"
    "  --warmup K            the per-rank figures leave out the first K of the steps\n"
    "                        (the first steps fault in the memory)\n"
    "Output (rank 0):\n"
    "  --hash-every K        print the state hash every K steps (\"step K hash H\")\n"
    "  --csv FILE            trajectories as `orca run --csv` writes them (the same bytes):\n"
    "                        step,time,agent,x,y,vx,vy, at the start, every --every K steps\n"
    "                        of the run and at its end; the rows pass through rank 0 a\n"
    "                        window of agents at a time (no rank holds them all)\n"
    "  --every K             CSV rows every K steps (default 1)\n"
    "  --svg FILE            a picture of the run as `orca run --svg` draws it (the same\n"
    "                        bytes): walls, boundaries, waypoint paths, the trajectories\n"
    "                        of up to 20,000 agents and their navigation paths at the end,\n"
    "                        starts and goals, a disc per agent at the end; the agents pass\n"
    "                        through rank 0 a window at a time. Not with --restart\n"
    "  --svg-trail SECONDS   draw only each agent's last SECONDS (> 0), fading\n"
    "  FILE -                --csv - or --svg - writes to standard output, which then\n"
    "                        carries it alone (no summary; not with --json, --hash-every)\n"
    "  --json                the summary as one JSON object\n"
    "  -q, --quiet           no summary (--json still prints)\n"
    "Extensions (a scene file only; as `orca run` has them):\n"
    "  --separation          separate agents at exactly one point ('separation on')\n"
    "  --density-speed       the density-dependent speed with its defaults, unless the\n"
    "                        file turns it on with its own parameters ('density_speed on')\n"
    "  --pedestrian          the pedestrian preset ('pedestrian on'; docs/pedestrians.md)\n"
    "A scene file's goal sets and exits, waypoints, avoidance settings (priority, layers,\n"
    "mask, locked), streams, walkable-area boundaries and navigation (its exit choices, the\n"
    "leg check) run too (docs/mpi.md, \"What runs under MPI\").\n"
    "Summary: agents, segments, steps, arrived (with --max-steps: the step all had arrived\n"
    "at, or the cap), agents that left by exits and the step the last left at (JSON:\n"
    "exited, exited_last_step), each exit point's departures and the step of the last\n"
    "(exit_departures), navigation's counts over the run as orca run gives them (nav_plans,\n"
    "nav_reroutes, nav_replans, nav_exit_changes, nav_exit_returns, nav_agents_changed,\n"
    "nav_most_changes, nav_unreachable, at_exits), deepest overlaps, fallbacks, the hash,\n"
    "and per rank: agents owned, halo agents and bytes per step, its reach (the largest\n"
    "neighbour distance or diameter of its agents: its halo holds the agents within it of\n"
    "them), agents handed on, step time and the share of it in MPI calls.\n"
    "\n"
    "Every rank must be given the same options: a rank that refuses its own or differs from\n"
    "rank 0 ends the run on all, named in the message (exit status 2). A scene file is read\n"
    "by rank 0 only ('-': standard input) and sent to the others.\n";

typedef struct options {
    const char *scene, *file, *restart, *checkpoint, *csv, *svg;
    const char *svg_trail_text; /* --svg-trail as given (compared between ranks) */
    double svg_trail;
    long long agents, steps, max_steps, hash_every, ckpt_every, rebalance, workers, warmup, every;
    uint64_t seed;
    int help, scalar, json, quiet, diagnostics, have_steps, until_arrived, have_seed;
    int separation, density, pedestrian; /* the extensions' options (a scene file only) */
} options;

static int rank0;
static char g_msg[1024]; /* this rank's message of a refusal, until every rank agrees */
static char g_name[256]; /* the scene's name (the scenario's), for --svg's caption */

/* Rank 0 prints "orca-mpi: " and the message (a refusal every rank agreed on). */
static void say(const char *fmt, const char *a, const char *b)
{
    if (rank0) {
        fprintf(stderr, "orca-mpi: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
}


/* A refusal of this rank (the message waits for agree_message); returns 0 (for "return
 * fail(...)" where 1 means accepted). */
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    return 0;
}

/* The same refusal, returning 1 (for "bad = refuse(...)": 1 means refused). */
static int refuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    return 1;
}

/* Collective: whether any rank failed (bad != 0); then the lowest such rank's message goes to
 * g_msg on every rank, prefixed with its rank when there are several, and rank 0 prints it.
 * Every rank reaches this, so one rank's refusal ends the run on all (never a hang). */
static int agree_message(int bad)
{
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int mine = bad ? rank : ranks, first = ranks;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == ranks) {
        return 0;
    }
    MPI_Bcast(g_msg, (int)sizeof g_msg, MPI_CHAR, first, MPI_COMM_WORLD);
    if (rank0) {
        if (ranks > 1) {
            fprintf(stderr, "orca-mpi: rank %d: %s\n", first, g_msg);
        } else {
            fprintf(stderr, "orca-mpi: %s\n", g_msg);
        }
    }
    return 1;
}

static int parse_ll(const char *name, const char *v, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    if (!v) {
        return fail("%s needs a value", name);
    }
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || x < lo || x > hi) {
        return fail("%s: expected a whole number in %lld..%lld, got '%s'", name, lo, hi, v);
    }
    *out = x;
    return 1;
}

/* The options with a value (each sets *used = 1). */
static int parse_valued(const char *a, const char *v, options *o, int *used)
{
    *used = 1;
    if (!strcmp(a, "--scene")) {
        o->scene = v;
        return v ? 1 : fail("%s needs a value", a);
    }
    if (!strcmp(a, "-n") || !strcmp(a, "--agents")) {
        return parse_ll(a, v, 0, 100000000, &o->agents);
    }
    if (!strcmp(a, "--seed")) {
        char *end = NULL;
        int ok = v && *v && *v != '-';
        if (ok) {
            o->seed = strtoull(v, &end, 10);
            ok = *end == '\0';
        }
        o->have_seed = 1;
        return ok ? 1 : fail("--seed: expected a whole number in 0..2^64-1, got '%s'", v ? v : "");
    }
    if (!strcmp(a, "--restart") || !strcmp(a, "--checkpoint") || !strcmp(a, "--csv")) {
        *(a[2] == 'r' ? &o->restart : a[3] == 'h' ? &o->checkpoint : &o->csv) = v;
        return v ? 1 : fail("%s needs a value", a);
    }
    if (!strcmp(a, "--svg")) {
        o->svg = v;
        return v ? 1 : fail("%s needs a value", a);
    }
    if (!strcmp(a, "--svg-trail")) {
        char *end = NULL;
        o->svg_trail_text = v;
        o->svg_trail = v ? strtod(v, &end) : 0.0;
        if (!v || !*v || *end || !(o->svg_trail > 0.0) || !(o->svg_trail <= 1e300)) {
            return fail("--svg-trail: expected seconds > 0, got '%s'", v ? v : "");
        }
        return 1;
    }
    if (!strcmp(a, "--every")) {
        return parse_ll(a, v, 1, 1LL << 40, &o->every);
    }
    if (!strcmp(a, "--checkpoint-every")) {
        return parse_ll(a, v, 1, 1LL << 40, &o->ckpt_every);
    }
    if (!strcmp(a, "--steps")) {
        o->have_steps = 1;
        return parse_ll(a, v, 0, 1LL << 40, &o->steps);
    }
    if (!strcmp(a, "--max-steps")) {
        o->until_arrived = 1;
        return parse_ll(a, v, 1, 1LL << 40, &o->max_steps);
    }
    if (!strcmp(a, "--warmup")) {
        return parse_ll(a, v, 0, 1LL << 40, &o->warmup);
    }
    if (!strcmp(a, "--hash-every")) {
        return parse_ll(a, v, 1, 1LL << 40, &o->hash_every);
    }
    if (!strcmp(a, "--rebalance")) {
        return parse_ll(a, v, 0, 1 << 30, &o->rebalance);
    }
    if (!strcmp(a, "-j") || !strcmp(a, "--workers")) {
        return parse_ll(a, v, 1, ORCA_MAX_WORKERS, &o->workers);
    }
    *used = 0;
    return 1;
}

/* This rank's command line into o: 1 to run (o->help: print the help), 0 refused (g_msg). */
static int parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->steps = 100;
    o->rebalance = 50;
    o->workers = 1;
    o->every = 1;
    o->seed = 1;
    if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) {
        o->help = 1;
        return argc < 2 ? fail("no command (run or help)") : 1;
    }
    if (strcmp(argv[1], "run") != 0) {
        return fail("unknown command '%s' (run or help)", argv[1]);
    }
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int used = 0;
        if (!parse_valued(a, v, o, &used)) {
            return 0;
        }
        if (used) {
            ++i;
        } else if (!strcmp(a, "--scalar")) {
            o->scalar = 1;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--diagnostics")) {
            o->diagnostics = 1;
        } else if (!strcmp(a, "--separation")) {
            o->separation = 1;
        } else if (!strcmp(a, "--density-speed")) {
            o->density = 1;
        } else if (!strcmp(a, "--pedestrian")) {
            o->pedestrian = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return fail("unknown option '%s' (orca-mpi help lists them)", a);
        } else if (!o->file) {
            o->file = a;
        } else {
            return fail("one scene file only, got '%s' and '%s'", o->file, a);
        }
    }
    if (o->have_steps && o->until_arrived) {
        return fail("give --steps N or --max-steps CAP, not both");
    }
    int sources = (o->scene != NULL) + (o->file != NULL) + (o->restart != NULL);
    if (sources != 1) {
        return fail("give exactly one of --scene NAME, a scene file or --restart DIR");
    }
    if ((o->separation || o->density || o->pedestrian) && !o->file) {
        const char *which = o->separation ? "--separation"
                            : o->density  ? "--density-speed"
                                          : "--pedestrian";
        return fail("%s applies to a scene file only (a restart keeps the run's own)", which);
    }
    if (o->svg_trail_text && !o->svg) {
        return fail("--svg-trail needs --svg");
    }
    if (o->svg && o->restart) {
        return fail("--svg draws a run from its start: not with --restart");
    }
    /* as `orca run`: at most one output on standard output, which then carries it alone */
    int csv_out = o->csv && !strcmp(o->csv, "-"), svg_out = o->svg && !strcmp(o->svg, "-");
    if (csv_out && svg_out) {
        return fail("--csv - and --svg - both ask for standard output");
    }
    if (csv_out || svg_out) {
        const char *which = csv_out ? "--csv" : "--svg";
        if (o->json) {
            return fail("%s - (standard output) and --json exclude each other", which);
        }
        if (o->hash_every) {
            return fail("%s - (standard output) and --hash-every exclude each other (the hashes "
                        "go to standard output)",
                        which);
        }
        o->quiet = 1; /* no summary */
    } else if (o->csv && o->svg && !strcmp(o->csv, o->svg)) {
        return fail("--csv and --svg name the same file '%s'", o->csv);
    }
    if (o->density && o->pedestrian) {
        return fail("--density-speed and --pedestrian: the pedestrian model replaces the "
                    "density-dependent speed; give one");
    }
    return 1;
}

/* The options as lines "name value" in one order (what every rank must agree on). */
static void options_text(const options *o, char *out, size_t size)
{
    char num[13][24];
    const long long v[13] = {o->agents, o->have_steps ? o->steps : -1,
                             o->until_arrived ? o->max_steps : -1, o->hash_every,
                             o->ckpt_every, o->rebalance, o->workers, o->warmup,
                             o->scalar, o->json, o->quiet, o->diagnostics, o->every};
    for (int k = 0; k < 13; ++k) {
        snprintf(num[k], sizeof num[k], "%lld", v[k]);
    }
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    const char *pairs[][2] = {
        {"command", o->help ? "help" : "run"},
        {"--scene", o->scene},
        {"scene file", o->file},
        {"--restart", o->restart},
        {"-n", o->agents ? num[0] : NULL},
        {"--seed", o->have_seed ? seed : NULL},
        {"--steps", o->have_steps ? num[1] : NULL},
        {"--max-steps", o->until_arrived ? num[2] : NULL},
        {"--hash-every", o->hash_every ? num[3] : NULL},
        {"--checkpoint", o->checkpoint},
        {"--checkpoint-every", o->ckpt_every ? num[4] : NULL},
        {"--rebalance", num[5]},
        {"-j", num[6]},
        {"--warmup", o->warmup ? num[7] : NULL},
        {"--scalar", o->scalar ? "" : NULL},
        {"--json", o->json ? "" : NULL},
        {"-q", o->quiet ? "" : NULL},
        {"--diagnostics", o->diagnostics ? "" : NULL},
        {"--separation", o->separation ? "" : NULL},
        {"--density-speed", o->density ? "" : NULL},
        {"--pedestrian", o->pedestrian ? "" : NULL},
        {"--csv", o->csv},
        {"--every", o->every != 1 ? num[12] : NULL},
        {"--svg", o->svg},
        {"--svg-trail", o->svg_trail_text},
    };
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0] && n < size; ++k) {
        n += (size_t)snprintf(out + n, size - n, "%s\t%s\n", pairs[k][0],
                              pairs[k][1] ? pairs[k][1] : "\x01");
    }
}

/* Collective: every rank's options equal rank 0's; else the first rank that differs names
 * the first option that differs ("--steps 200, rank 0 has --steps 100"). */
static int options_agree(const options *o)
{
    static char mine[8192], root[8192];
    options_text(o, mine, sizeof mine);
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    int bad = strcmp(mine, root) != 0;
    if (bad) {
        /* the first line that differs */
        const char *p = mine, *q = root;
        while (*p && *p == *q) {
            const char *pe = strchr(p, '\n'), *qe = strchr(q, '\n');
            if (pe - p != qe - q || memcmp(p, q, (size_t)(pe - p)) != 0) {
                break;
            }
            p = pe + 1;
            q = qe + 1;
        }
        char name[64], a[256], b[256];
        const char *tab = strchr(p, '\t'), *pe = strchr(p, '\n'), *qt = strchr(q, '\t'),
                   *qe = strchr(q, '\n');
        snprintf(name, sizeof name, "%.*s", (int)(tab - p), p);
        snprintf(a, sizeof a, "%.*s", (int)(pe - tab - 1), tab + 1);
        snprintf(b, sizeof b, "%.*s", (int)(qe - qt - 1), qt + 1);
        fail("its options differ from rank 0's: %s: %s here, %s on rank 0 (every rank must "
             "be given the same options)",
             name, a[0] == '\x01' ? "not given" : a[0] ? a : "given",
             b[0] == '\x01' ? "not given" : b[0] ? b : "given");
    }
    return !agree_message(bad);
}

/* Rank 0 reads the scene file (or standard input for "-") and every rank gets its bytes: the
 * file is read once, and every rank builds the same scene from the same text. Returns the
 * text (size in *size) or NULL, refused on every rank (message printed). */
static char *scene_text(const char *path, size_t *size)
{
    char *text = NULL;
    unsigned long long n = 0;
    int bad = 0;
    if (rank0) {
        FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
        size_t cap = 1 << 16;
        text = f ? malloc(cap) : NULL;
        if (!f) {
            bad = refuse("%s: cannot open: %s", path, strerror(errno));
        }
        while (text && !bad) {
            size_t got = fread(text + n, 1, cap - n, f);
            n += got;
            if (n < cap) {
                break;
            }
            char *t = cap <= ORCA_SCENE_FILE_MAX ? realloc(text, cap * 2) : NULL;
            if (!t) {
                bad = refuse(cap > ORCA_SCENE_FILE_MAX
                               ? "%s: larger than the limit of scene files, 1 GiB"
                               : "%s: out of memory reading it",
                           path);
                break;
            }
            text = t;
            cap *= 2;
        }
        if (f && !bad && ferror(f)) {
            bad = refuse("%s: read error: %s", path, strerror(errno));
        }
        if (f && f != stdin) {
            fclose(f);
        }
        if (f && !text && !bad) {
            bad = refuse("%s: out of memory reading it", path);
        }
    }
    if (agree_message(bad)) {
        free(text);
        return NULL;
    }
    MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (!rank0) {
        text = malloc(n > 0 ? (size_t)n : 1);
    }
    if (agree_message(!text && refuse("out of memory for the scene file's %llu bytes", n))) {
        free(text);
        return NULL;
    }
    MPI_Bcast(text, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD); /* n <= 1 GiB */
    *size = (size_t)n;
    return text;
}

/* Collective: the run of a scene file; every rank builds the scene from rank 0's bytes. */
static orca_status from_file(const char *path, const options *o, const orca_mpi_def *def,
                             orca_mpi **m)
{
    size_t size = 0;
    char *text = scene_text(path, &size);
    if (!text) {
        return ORCA_ERR_ARGUMENT;
    }
    orca_scenario *sc = NULL;
    orca_scene_file *file = NULL;
    orca_status r = orca_scene_file_read_text(text, size, strcmp(path, "-") ? path : "<stdin>",
                                              &file);
    free(text);
    if (r != ORCA_OK) {
        fail("%s", orca_scene_file_last_error(NULL));
    } else {
        orca_scene_build_def bd = orca_scene_build_def_default();
        bd.pedestrian = o->pedestrian;
        r = orca_scene_file_build(file, &bd, &sc);
        if (r != ORCA_OK) {
            fail("%s", orca_scene_file_last_error(file));
        } else {
            orca_sim *sim = orca_scenario_sim(sc);
            snprintf(g_name, sizeof g_name, "%s", orca_scenario_name(sc));
            if (o->separation) {
                orca_sim_set_separation(sim, 1); /* 1 is always accepted */
            }
            orca_density_speed dp = orca_density_speed_default();
            if (o->density && !orca_sim_get_density_speed(sim, NULL) &&
                (r = orca_sim_set_density_speed(sim, &dp)) != ORCA_OK) {
                fail("--density-speed: %s", orca_sim_last_error(sim));
            }
        }
        orca_scene_file_destroy(file);
    }
    if (agree_message(r != ORCA_OK)) {
        orca_scenario_destroy(sc);
        return ORCA_ERR_ARGUMENT;
    }
    orca_status st = orca_mpi_create_from_scenario(MPI_COMM_WORLD, sc, def, m);
    orca_scenario_destroy(sc);
    return st;
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
                   "\"box\":[%.17g,%.17g,%.17g,%.17g],\"reach\":%.17g}",
                   r ? "," : "", r, (long long)s->owned, (double)s->owned_sum / steps,
                   (double)s->halo_sum / steps, (double)s->halo_bytes / steps,
                   (long long)s->moved, (long long)s->moved_bytes,
                   1e3 * s->step_seconds / steps, 1e3 * s->comm_seconds / steps,
                   1e3 * s->solve_seconds / steps, share, clamp(s->box[0]), clamp(s->box[1]),
                   clamp(s->box[2]), clamp(s->box[3]), s->halo_width);
        } else {
            printf("  rank %d: %lld agent%s (%.0f per step), halo %.0f agents and %.0f bytes per "
                   "step (reach %g m), %lld handed on; step %.3f ms, %.1f%% of it in MPI calls\n",
                   r, (long long)s->owned, s->owned == 1 ? "" : "s", (double)s->owned_sum / steps,
                   (double)s->halo_sum / steps, (double)s->halo_bytes / steps, s->halo_width,
                   (long long)s->moved, 1e3 * s->step_seconds / steps, 100.0 * share);
        }
    }
}

/* Collective: --csv's file opened on rank 0 (a refusal there ends the run on every rank,
 * with the reason) and its header and first rows written. */
static orca_status csv_start(orca_mpi *m, const char *path, FILE **out)
{
    FILE *f = NULL;
    int bad = 0;
    if (rank0) {
        f = strcmp(path, "-") ? fopen(path, "w") : stdout;
        bad = !f && refuse("--csv: %s: %s", path, strerror(errno));
    }
    if (agree_message(bad)) {
        return ORCA_ERR_IO;
    }
    if (rank0) {
        fputs("step,time,agent,x,y,vx,vy\n", f);
    }
    orca_status st = orca_mpi_write_csv(m, f);
    if (st != ORCA_OK) {
        say("--csv: %s", orca_mpi_last_error(m), "");
        if (f && f != stdout) {
            fclose(f);
        }
        return st;
    }
    *out = rank0 ? f : (FILE *)NULL;
    return ORCA_OK;
}

/* Rank 0 closes --csv's file; nonzero when its writes failed (on rank 0 only). */
static int csv_close(FILE *f)
{
    if (!rank0 || !f) {
        return 0;
    }
    int bad = ferror(f) != 0;
    if (f == stdout) {
        return fflush(f) != 0 || bad;
    }
    return fclose(f) != 0 || bad;
}

/* Collective: --svg's file opened on rank 0 (a refusal there ends the run on every rank, with
 * the reason) and the picture started. Returns 0, or 1 when refused (and said so). */
static int svg_start(orca_mpi *m, const options *o, FILE **out, mpi_svg **svg)
{
    FILE *f = NULL;
    int bad = 0;
    if (rank0) {
        f = strcmp(o->svg, "-") ? fopen(o->svg, "w") : stdout;
        bad = !f && refuse("--svg: %s: %s", o->svg, strerror(errno));
    }
    if (agree_message(bad)) {
        return 1;
    }
    if (mpi_svg_start(m, o->svg_trail, svg) != ORCA_OK) {
        say("--svg: %s: out of memory recording the trajectories", o->svg, "");
        if (f && f != stdout) {
            fclose(f);
        }
        return 1;
    }
    *out = f;
    return 0;
}

/* Collective: the picture written into rank 0's file and the file closed; 0, or 1 when that
 * failed on rank 0 (said so, with the reason). */
static int svg_finish(mpi_svg *svg, const svg_figures *fig, const char *path, FILE *f)
{
    int rc = mpi_svg_write(svg, fig, f);
    int bad = 0;
    if (rank0) {
        int werr = ferror(f) != 0;
        int cerr = f == stdout ? fflush(f) != 0 : fclose(f) != 0;
        if (rc != 0 || werr || cerr) {
            bad = refuse("--svg: %s: write failed: %s", path,
                         werr || cerr ? strerror(errno) : "out of memory");
        }
    }
    return agree_message(bad);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    rank0 = rank == 0;
    options o;
    int ok = parse(argc, argv, &o);
    if (agree_message(!ok) || !options_agree(&o)) {
        if (rank0 && argc < 2) {
            fputs(USAGE, stderr);
        }
        MPI_Finalize();
        return 2;
    }
    if (o.help) {
        if (rank0) {
            fputs(USAGE, stdout);
        }
        MPI_Finalize();
        return 0;
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
            if (rank0) {
                fprintf(stderr, "orca-mpi: --scene: unknown scene '%s' (circle, crossing, "
                        "wallgap, corridor, random)\n", o.scene);
            }
            MPI_Finalize();
            return 2;
        }
        st = orca_mpi_create_builtin(MPI_COMM_WORLD, (orca_scene_kind)kind, (int)o.agents,
                                     o.seed, &def, &m);
    } else if (o.file) {
        st = from_file(o.file, &o, &def, &m);
        if (st != ORCA_OK && !m && !orca_mpi_last_error(NULL)[0]) {
            MPI_Finalize(); /* refused, and said so, before the run was created */
            return 2;
        }
    } else {
        st = orca_mpi_restart(MPI_COMM_WORLD, o.restart, &def, &m);
    }
    if (st != ORCA_OK) {
        say("%s: %s", source, orca_mpi_last_error(NULL));
        MPI_Finalize();
        return st == ORCA_ERR_MEMORY ? 1 : 2;
    }
    if (o.checkpoint && (st = orca_mpi_check_directory(m, o.checkpoint)) != ORCA_OK) {
        say("--checkpoint: %s%s", orca_mpi_last_error(m), "");
        orca_mpi_destroy(m);
        MPI_Finalize();
        return 2;
    }
    FILE *csv = NULL;
    if (o.csv && (st = csv_start(m, o.csv, &csv)) != ORCA_OK) {
        orca_mpi_destroy(m);
        MPI_Finalize();
        return 2;
    }
    FILE *svg_file = NULL;
    mpi_svg *svg = NULL;
    if (o.svg && svg_start(m, &o, &svg_file, &svg) != 0) {
        csv_close(csv);
        orca_mpi_destroy(m);
        MPI_Finalize();
        return 2;
    }
    uint64_t csv_last = 0; /* the steps of this run the rows were last written at */
    double t0 = MPI_Wtime();
    uint64_t start = orca_mpi_step_count(m); /* a restart continues a count */
    orca_mpi_reset_stats(m);
    /* --json: the hashes of --hash-every as (step, hash) pairs, on rank 0 */
    uint64_t *hash_list = NULL;
    size_t hashes = 0, hash_cap = 0;
    int hash_lost = 0;
    /* --max-steps: as `orca run` (and orca_scenario) decide it, the start state is judged with
     * the first step, and the run stops before a step once every agent has arrived */
    long long limit = o.until_arrived ? o.max_steps : o.steps;
    int64_t all_arrived_step = -1, arrived = 0, agents = 0;
    int start_all = 0;
    /* the step all had arrived at: for --max-steps, and for the picture's caption, which
     * gives it as `orca run` records it (the first such step, whatever came after) */
    int watch = o.until_arrived || o.svg;
    if (watch) {
        st = orca_mpi_count_arrived(m, &arrived, &agents);
        start_all = arrived == agents;
    }
    int64_t start_agents = agents;
    for (long long k = 0; k < limit && st == ORCA_OK; ++k) {
        if (o.until_arrived && all_arrived_step >= 0) {
            break;
        }
        st = orca_mpi_step(m);
        uint64_t done = start + (uint64_t)k + 1;
        if (st == ORCA_OK && watch && all_arrived_step < 0) {
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
                    if (hashes == hash_cap && !hash_lost) {
                        size_t cap = hash_cap ? 2 * hash_cap : 64;
                        uint64_t *grown = realloc(hash_list, cap * 2 * sizeof *grown);
                        hash_lost = !grown;
                        hash_list = grown ? grown : hash_list;
                        hash_cap = grown ? cap : hash_cap;
                    }
                    if (!hash_lost) {
                        hash_list[2 * hashes] = done;
                        hash_list[2 * hashes + 1] = h;
                        ++hashes;
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
        if (st == ORCA_OK && o.csv && (uint64_t)(k + 1) % (uint64_t)o.every == 0) {
            st = orca_mpi_write_csv(m, csv);
            csv_last = (uint64_t)(k + 1);
        }
        if (st == ORCA_OK && svg) {
            st = mpi_svg_sample(svg, (uint64_t)k + 1);
        }
    }
    if (watch && limit == 0 && start_all) {
        all_arrived_step = (int64_t)start; /* no step: the start state, as orca run judges it */
    }
    double wall = MPI_Wtime() - t0;
    if (st == ORCA_OK && o.csv && orca_mpi_step_count(m) - start != csv_last) {
        st = orca_mpi_write_csv(m, csv); /* the last state, as orca run writes it */
    }
    if (o.csv) {
        /* every rank learns whether rank 0's file was written */
        int bad = csv_close(csv) && refuse("--csv: %s: write failed: %s", o.csv,
                                           strerror(errno));
        if (agree_message(bad)) {
            mpi_svg_destroy(svg);
            free(hash_list);
            orca_mpi_destroy(m);
            MPI_Finalize();
            return 2;
        }
    }
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
    orca_nav_counts nc;
    if (st == ORCA_OK) {
        st = orca_mpi_nav_counts(m, &nc);
    }
    /* each exit point's departures (sets in index order, points in order) */
    size_t points = 0;
    for (int set = 0; orca_mpi_exit_points(m, set) >= 0; ++set) {
        points += (size_t)orca_mpi_exit_points(m, set);
    }
    int64_t *dep = malloc((points ? points : 1) * 2 * sizeof *dep);
    if (agree_message(!dep && refuse("out of memory for the %zu exit points' departures", points))) {
        free(hash_list);
        mpi_svg_destroy(svg);
        orca_mpi_destroy(m);
        MPI_Finalize();
        return 1;
    }
    int ndep = 0;
    for (int set = 0; st == ORCA_OK && orca_mpi_exit_points(m, set) >= 0; ++set) {
        for (int j = 0; st == ORCA_OK && j < orca_mpi_exit_points(m, set); ++j) {
            st = orca_mpi_exit_departures(m, set, j, &dep[2 * ndep], &dep[2 * ndep + 1]);
            ++ndep;
        }
    }
    if (st != ORCA_OK) {
        say("%s: %s", source, orca_mpi_last_error(m));
        free(hash_list);
        free(dep);
        mpi_svg_destroy(svg);
        orca_mpi_destroy(m);
        MPI_Finalize();
        return st == ORCA_ERR_MEMORY ? 1 : 2;
    }
    if (agree_message(hash_lost && refuse("--json: out of memory keeping the hashes of "
                                          "--hash-every (%zu kept)",
                                          hashes))) {
        free(hash_list);
        free(dep);
        mpi_svg_destroy(svg);
        orca_mpi_destroy(m);
        MPI_Finalize();
        return 1;
    }
    int looping = 0;
    if (svg && (st = mpi_svg_count_looping(m, &looping)) != ORCA_OK) {
        say("--svg: %s: %s", o.svg, orca_mpi_last_error(m));
        mpi_svg_destroy(svg);
        free(hash_list);
        free(dep);
        orca_mpi_destroy(m);
        MPI_Finalize();
        return 1;
    }
    if (svg) {
        char hash[17], from[1100];
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long)h);
        if (o.scene) {
            snprintf(from, sizeof from, "built-in scene, seed %llu", (unsigned long long)o.seed);
        } else {
            snprintf(from, sizeof from, "scene file %s", strcmp(o.file, "-") ? o.file : "<stdin>");
        }
        int kind = o.scene ? orca_scene_from_name(o.scene) : -1;
        svg_figures fig;
        memset(&fig, 0, sizeof fig);
        fig.name = o.scene ? orca_scene_name((orca_scene_kind)kind) : g_name;
        fig.description = o.scene ? svg_scene_description(kind) : NULL;
        fig.source = from;
        fig.agents = (int)start_agents;
        fig.arrived = (int)(s.arrived + s.exited); /* as orca run counts them: exits included */
        fig.looping = looping;
        fig.segments = s.segments;
        fig.boundaries = orca_mpi_boundary_count(m);
        fig.stopped_by_cap = o.until_arrived && all_arrived_step < 0;
        fig.all_arrived_step = all_arrived_step;
        fig.last_step = s.steps;
        fig.dt = orca_mpi_dt(m);
        fig.agent_overlap = s.agent_overlap;
        fig.wall_overlap = s.wall_overlap;
        fig.fallbacks = (uint64_t)s.fallbacks;
        fig.hash = hash;
        int bad = svg_finish(svg, &fig, o.svg, svg_file);
        mpi_svg_destroy(svg);
        if (bad) {
            free(hash_list);
            free(dep);
            orca_mpi_destroy(m);
            MPI_Finalize();
            return 2;
        }
    }
    orca_mpi_stats mine, *all = rank0 ? malloc((size_t)ranks * sizeof *all) : NULL;
    if (agree_message(rank0 && !all && refuse("out of memory for the %d ranks' figures", ranks))) {
        free(hash_list);
        free(dep);
        orca_mpi_destroy(m);
        MPI_Finalize();
        return 1;
    }
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
        printf("\"exited\":%lld,", (long long)s.exited);
        if (s.exited_last_step >= 0) {
            printf("\"exited_last_step\":%lld,", (long long)s.exited_last_step);
        } else {
            printf("\"exited_last_step\":null,");
        }
        printf("\"nav_plans\":%lld,\"nav_reroutes\":%lld,\"nav_replans\":%lld,"
               "\"nav_exit_changes\":%lld,\"nav_exit_returns\":%lld,\"nav_agents_changed\":%d,"
               "\"nav_most_changes\":%d,\"nav_unreachable\":%d,\"at_exits\":%d,"
               "\"exit_departures\":[",
               (long long)nc.plans, (long long)nc.reroutes, (long long)nc.replans,
               (long long)nc.exit_changes, (long long)nc.exit_returns, nc.agents_changed,
               nc.most_changes, nc.unreachable, nc.at_exits);
        for (int k = 0; k < ndep; ++k) {
            printf("%s[%lld,%lld]", k ? "," : "", (long long)dep[2 * k],
                   (long long)dep[2 * k + 1]);
        }
        printf("],\"hashes\":[");
        for (size_t k = 0; k < hashes; ++k) {
            printf("%s{\"step\":%llu,\"hash\":\"%016llx\"}", k ? "," : "",
                   (unsigned long long)hash_list[2 * k], (unsigned long long)hash_list[2 * k + 1]);
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
        printf("fallbacks: %lld\n", (long long)s.fallbacks);
        if (s.exited > 0) {
            printf("left by exits: %lld (the last at step %lld)\n", (long long)s.exited,
                   (long long)s.exited_last_step);
        }
        for (int k = 0; k < ndep; ++k) {
            printf("exit point %d: %lld left", k, (long long)dep[2 * k]);
            if (dep[2 * k + 1] >= 0) {
                printf(", the last at step %lld", (long long)dep[2 * k + 1]);
            }
            printf("\n");
        }
        if (nc.plans > 0 || nc.unreachable > 0) {
            printf("navigation: %d without a path; over the run %lld plans, %lld re-routings, "
                   "%lld replans, %lld exit changes by %d agents (at most %d by one), %lld back "
                   "to a point left\n",
                   nc.unreachable, (long long)nc.plans, (long long)nc.reroutes,
                   (long long)nc.replans, (long long)nc.exit_changes, nc.agents_changed,
                   nc.most_changes, (long long)nc.exit_returns);
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
    free(hash_list);
    free(dep);
    orca_mpi_destroy(m);
    MPI_Finalize();
    return 0;
}
