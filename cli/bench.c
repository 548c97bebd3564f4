/* SPDX-License-Identifier: MIT */
/* `orca bench`: throughput and memory of the standard scenes. Prints figures; never judges. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <psapi.h>
#else
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "cli.h"

#define BENCH_MAX_LIST 64
#define BENCH_DEFAULT_RUNS 3
#define BENCH_DEFAULT_WARMUP 20

enum { BENCH_EXT_NONE = 0, BENCH_EXT_DEFAULTS = 1, BENCH_EXT_MIX = 2, BENCH_EXT_PEDESTRIAN = 3 };

void help_bench(FILE *f)
{
    fputs(
        "Usage: orca bench [options]\n"
        "\n"
        "Measures agent-steps per second of a standard scene at several sizes and worker\n"
        "counts, and the peak memory per agent. It prints figures; it never fails on speed.\n"
        "\n"
        "  --scene NAME        random (default) or circle (any built-in scene works)\n"
        "  --sizes LIST        agent counts, comma separated (default 1000,10000,100000,1000000)\n"
        "  --workers LIST      worker counts (default 1..online CPUs; above 8 CPUs the powers\n"
        "                      of two and the CPU count)\n"
        "  --runs R            timed runs per size and worker count (default 3)\n"
        "  --steps S           steps per timed run (default 2000000/agents, clamped to\n"
        "                      10..200)\n"
        "  --warmup W          steps run before timing, to reach a steady state (default 20)\n"
        "  --seed S            scene seed (default 1)\n"
        "  --csv FILE          also write the table as CSV (through FILE.tmp.XXXXXX, which\n"
        "                      replaces FILE only when every size was measured)\n"
        "  --scalar            the scalar code only: no vector kernels or AVX2 code (the same\n"
        "                      bits; this times what CPUs without AVX2 run)\n"
        "  --cold              time cold steps instead: the first step after building the\n"
        "                      scene, after loading a snapshot and after moving many agents,\n"
        "                      each divided by the mean of the next 5 steps (see below)\n"
        "  --churn P           time churn instead: each step removes P% of the agents and\n"
        "                      adds as many (P in 0..50, may be fractional), against the\n"
        "                      same steps without churn (see below)\n"
        "  --churn-at WHERE    where --churn adds its agents: 'removed' (default), each in\n"
        "                      the place of a removed one, or 'random' points\n"
        "  --extensions MIX    time the extended path against the plain one instead, with\n"
        "                      the extensions of MIX: 'defaults', 'mix' or 'pedestrian'\n"
        "                      (see below)\n"
        "  -h, --help          this text\n"
        "\n"
        "Method: for each size the scene is built and warmed up once (W steps, with the largest\n"
        "worker count) and its state saved with orca_sim_save. Every timed run restores that\n"
        "state (orca_sim_load, not timed), then times S calls of orca_scenario_step with\n"
        "recording off (the preferred-velocity rule and the ORCA step; no overlap or arrival\n"
        "bookkeeping) with a monotonic clock. A row gives the median and the range (min..max) over the runs of\n"
        "agents*S/seconds. The state hash after each run is compared across runs and worker\n"
        "counts ('same bits' column).\n"
        "\n"
        "Memory: each size runs in a child process (fork). The child resets its peak RSS\n"
        "(writing 5 to /proc/self/clear_refs, Linux), reads VmRSS, builds the scene and runs\n"
        "the warm-up, then reads VmHWM: mem/agent = (VmHWM - VmRSS before) / agents. It\n"
        "includes the scenario, the simulator, its neighbour grid and per-worker scratch, but\n"
        "not the saved snapshot (taken afterwards). Where /proc is missing it falls back to\n"
        "getrusage ru_maxrss growth. Windows has no fork: each size runs in the command's\n"
        "own process and the figure is the growth of its peak working set, which cannot be\n"
        "reset (a size no larger than an earlier one may show little or none).\n"
        "\n",
        f);
    fputs(
        "--cold: per size and worker count, three cases, each R times: 'build' builds the\n"
        "scene (not timed) and times its first step; 'load' loads the warmed-up snapshot (not\n"
        "timed) and times the next step; 'move' loads it, swaps the positions of n/4 random\n"
        "pairs of agents with orca_agent_set_position (half the agents move somewhere else;\n"
        "not timed) and times the next step. Each timed first step is followed by 5 more: a\n"
        "row gives the medians over the runs of the first step, of the mean of the 5, and of\n"
        "their ratio (first / warm). Steps are orca_scenario_step with recording off.\n"
        "\n"
        "--churn P: per size and worker count, each run loads the warmed-up snapshot and times\n"
        "S calls of orca_sim_step (the preferred velocities stay as the warm-up left them),\n"
        "then loads it again and times S rounds of: k = round(n * P / 100) removals of\n"
        "agents picked at random (orca_sim_agent_at and orca_sim_remove_agent, one call\n"
        "each), k additions (orca_sim_add_agent, one call each) and orca_sim_step. Each new\n"
        "agent takes the place of a removed one (its position, velocity and preferred\n"
        "velocity, read with orca_agent_get before the removal): the crowd stays as dense\n"
        "and as calm, so the difference is the cost of the removals and additions\n"
        "themselves (and the new agents' first, unhinted neighbour search). With --churn-at\n"
        "random each is dropped at a random point of the agents' bounding box with a random\n"
        "preferred velocity instead, mostly onto other agents: then the step also pays for\n"
        "resolving those overlaps. The 'batch' column times the same rounds with\n"
        "orca_sim_remove_agents (one agent at random from each of k equal parts of the index\n"
        "order) and orca_sim_add_agents. The removals are compacted once, when the step\n"
        "begins. A row gives the medians over the runs of the time per step and of the ratio\n"
        "churn / churn-free.\n",
        f);
    fputs(
        "\n"
        "--extensions MIX: per size the scene is built and warmed up as above (the plain path)\n"
        "and its state saved (S0); then the extensions of MIX are applied and that state saved\n"
        "(S1). For each worker count, R times, interleaved: load S0 and time S steps (the plain\n"
        "path), load S1 and time S steps (the extended path), both with orca_scenario_step and\n"
        "recording off. A row gives the median agent-steps/s of each path, the median and the\n"
        "range (min..max) over the runs of the ratio extended / plain of the same run, and for\n"
        "each path whether its state hash after a run is the same across the runs and worker\n"
        "counts. The line before a size's rows says what was applied. The random choices are\n"
        "drawn from --seed (the bench's own generator, not the library's): the same every time.\n"
        "The mixes defaults and mix have one outer loop: a square (counter-clockwise) centred on\n"
        "the box of every agent's position and goal point, of half side half the box's larger\n"
        "side + M.\n"
        "  defaults  every agent given orca_agent_set_avoidance with the default values\n"
        "            (priority 1, layers 1, mask 0xFFFFFFFF, not locked); the outer loop with\n"
        "            M the largest of 100 m, the box's larger side and 4 times the largest\n"
        "            reach of an agent (max(obstacle horizon, dt) * max speed + radius:\n"
        "            docs/extensions.md), so that no agent reaches it.\n"
        "  mix       a game's mix: agent i on layer 1<<g, g drawn from 0..3, its mask all four\n"
        "            layers but (g+2) mod 4, i.e. ~(1<<((g+2)%4)) & 0xF; its priority drawn\n"
        "            from the whole numbers 1..10; round(n/20) agents (5%) drawn at random\n"
        "            locked, with velocity 0 (units holding their place); the outer loop with\n"
        "            M = the largest radius + 2 m (the agents at the crowd's edge see it); and\n"
        "            up to 4 square pillars (holes, clockwise, 1 m side) at random points of\n"
        "            the box where no agent's disc, and no disc at a goal point, comes within\n"
        "            0.25 m of the pillar or of one placed before (1024 points tried at most;\n"
        "            a pillar the library refuses is skipped and counted).\n"
        "  pedestrian  the pedestrian model (docs/pedestrians.md) on with its defaults\n"
        "            (orca_scenario_set_pedestrian) and nothing else: no loop, the agents'\n"
        "            own parameters; a built-in scene's point goals give no streams.\n"
        "Diagnostics stay off (with them on every step runs the extended path). With --scalar\n"
        "both paths run the scalar code. --csv writes each row with both paths' medians and\n"
        "ranges, the ratios and both hashes. --extensions does not go with --cold or --churn.\n",
        f);
}

/* --- memory ----------------------------------------------------------------------------------- */

/* A "VmXXX:   1234 kB" field of /proc/self/status in bytes, or -1. */
static long long proc_status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) {
        return -1;
    }
    char line[256];
    size_t len = strlen(field);
    long long v = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, field, len) == 0 && line[len] == ':') {
            v = strtoll(line + len + 1, NULL, 10) * 1024;
            break;
        }
    }
    fclose(f);
    return v;
}

static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) {
        return -1;
    }
    int ok = fputs("5", f) >= 0;
    if (fclose(f) != 0) {
        ok = 0;
    }
    return ok ? 0 : -1;
}

#if defined(_WIN32)
/* Windows: the process's peak working set (it cannot be reset: its growth is the figure). */
static long long maxrss_bytes(void)
{
    PROCESS_MEMORY_COUNTERS pmc;
    if (!K32GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc)) {
        return -1;
    }
    return (long long)pmc.PeakWorkingSetSize;
}
#else
static long long maxrss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        return -1;
    }
#if defined(__APPLE__)
    return (long long)ru.ru_maxrss; /* bytes on macOS */
#else
    return (long long)ru.ru_maxrss * 1024; /* kilobytes elsewhere */
#endif
}
#endif

/* --- one size ------------------------------------------------------------------------------- */

typedef struct bench_row {
    int agents;
    int workers;
    int steps;
    int runs;
    double median, min, max;
    double mem_per_agent; /* bytes; < 0 unknown */
    int same_bits;        /* hash equal across all runs and worker counts of this size */
    uint64_t hash;
    int status;           /* 0 ok; else an error (message printed by the child) */
} bench_row;

typedef struct bench_cfg {
    int scene;
    long long sizes[BENCH_MAX_LIST];
    int size_count;
    long long workers[BENCH_MAX_LIST];
    int worker_count;
    long long runs, steps, warmup;
    int have_steps;
    uint64_t seed;
    int scalar; /* --scalar: vector kernels off */
    int cold;     /* --cold */
    double churn; /* --churn P; < 0 when not given */
    int churn_random; /* --churn-at random: new agents at random points */
    int churn_at_given;
    int extensions; /* --extensions: BENCH_EXT_NONE, _DEFAULTS, _MIX or _PEDESTRIAN */
    int progress;
} bench_cfg;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n-1] (n >= 1); sorts v. */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static void progress(const bench_cfg *c, const char *fmt, ...)
    CLI_PRINTF(2, 3)
    ;

static void progress(const bench_cfg *c, const char *fmt, ...)
{
    if (c->progress) {
        va_list ap;
        va_start(ap, fmt);
        fputs("\r\033[K", stderr);
        vfprintf(stderr, fmt, ap);
        fflush(stderr);
        va_end(ap);
    }
}

/* The most workers any row asks for (the scene is built with that many). */
static int bench_max_workers(const bench_cfg *c)
{
    int max_workers = 1;
    for (int w = 0; w < c->worker_count; ++w) {
        if (c->workers[w] > max_workers) {
            max_workers = (int)c->workers[w];
        }
    }
    return max_workers;
}

/* Timed steps per run: --steps, or clamp(2,000,000 / agents, 10, 200). */
static int bench_steps(const bench_cfg *c, int agents)
{
    if (c->have_steps) {
        return (int)c->steps;
    }
    long long s = 2000000LL / agents;
    return (int)(s < 10 ? 10 : s > 200 ? 200 : s);
}

/* Saves the simulation's state (`what`: for the message) into a new buffer; 0, or -1 with a
 * message. */
static int bench_save(orca_sim *sim, int agents, const char *what, unsigned char **snap,
                      size_t *size)
{
    *size = 0;
    orca_status st = orca_sim_save(sim, NULL, 0, size);
    *snap = st == ORCA_OK ? malloc(*size ? *size : 1) : NULL;
    if (*snap) {
        st = orca_sim_save(sim, *snap, *size, size);
    }
    if (st != ORCA_OK || !*snap) {
        cli_error("bench: %d agent%s: could not save the %s state (%zu bytes): %s", agents,
                  agents == 1 ? "" : "s", what, *size,
                  st != ORCA_OK ? orca_sim_last_error(sim) : "out of memory");
        free(*snap);
        *snap = NULL;
        return -1;
    }
    return 0;
}

/* Times `steps` calls of orca_scenario_step; the seconds, or -1 with a message. */
static double timed_steps(orca_scenario *sc, int steps)
{
    double t0 = cli_now();
    for (int s = 0; s < steps; ++s) {
        if (orca_scenario_step(sc) != ORCA_OK) {
            cli_error("bench: %s", orca_scenario_last_error(sc));
            return -1;
        }
    }
    return cli_now() - t0;
}

/* Runs every worker count for one size; writes worker_count rows. Returns 0 or -1. */
static int bench_size(const bench_cfg *c, int agents, bench_row *rows)
{
    int max_workers = bench_max_workers(c);
    int steps = bench_steps(c, agents);

    int have_proc = reset_peak() == 0;
    long long before = have_proc ? proc_status_kb("VmRSS") : maxrss_bytes();
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = max_workers;
    orca_scenario *sc = NULL;
    progress(c, "orca bench: %d agent%s: building the scene", agents, agents == 1 ? "" : "s");
    orca_status st = orca_scenario_create_builtin((orca_scene_kind)c->scene, agents, c->seed,
                                                  &def, &sc);
    if (st != ORCA_OK) {
        cli_lib_error(st, orca_scenario_last_error(NULL),
                      "bench: building scene %s with %d agent%s",
                      orca_scene_name((orca_scene_kind)c->scene), agents, agents == 1 ? "" : "s");
        return -1;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    if (c->scalar) {
        orca_sim_set_vector_kernels(sim, 0);
    }
    int n = orca_sim_agent_count(sim);
    /* The figures are the simulation's: no overlap or arrival bookkeeping in the loop. */
    orca_scenario_set_recording(sc, 0);
    for (long long i = 0; i < c->warmup; ++i) {
        progress(c, "orca bench: %d agent%s: warm-up step %lld", agents,
                 agents == 1 ? "" : "s", i + 1);
        if (orca_scenario_step(sc) != ORCA_OK) {
            cli_error("bench: warm-up: %s", orca_scenario_last_error(sc));
            orca_scenario_destroy(sc);
            return -1;
        }
    }
    long long peak = have_proc ? proc_status_kb("VmHWM") : maxrss_bytes();
    double mem = before >= 0 && peak >= 0 ? (double)(peak - before) / (double)n : -1.0;

    size_t size = 0;
    unsigned char *snap = NULL;
    double *rates = malloc((size_t)c->runs * sizeof *rates);
    if (!rates || bench_save(sim, agents, "warmed-up", &snap, &size) != 0) {
        if (!rates) {
            cli_error("bench: %d agent%s: out of memory", agents, agents == 1 ? "" : "s");
        }
        free(snap);
        free(rates);
        orca_scenario_destroy(sc);
        return -1;
    }
    uint64_t first_hash = 0;
    int same = 1;
    for (int w = 0; w < c->worker_count; ++w) {
        bench_row *row = &rows[w];
        memset(row, 0, sizeof *row);
        row->agents = n;
        row->workers = (int)c->workers[w];
        row->steps = steps;
        row->runs = (int)c->runs;
        row->mem_per_agent = mem;
        if (orca_sim_set_worker_count(sim, row->workers) != ORCA_OK) {
            cli_error("bench: %s", orca_sim_last_error(sim));
            row->status = -1;
            continue;
        }
        for (int r = 0; r < row->runs; ++r) {
            progress(c, "orca bench: %d agent%s, %d worker%s, run %d", n, n == 1 ? "" : "s",
                     row->workers, row->workers == 1 ? "" : "s", r + 1);
            if (orca_sim_load(sim, snap, size) != ORCA_OK) {
                cli_error("bench: %s", orca_sim_last_error(sim));
                row->status = -1;
                break;
            }
            double t = timed_steps(sc, steps);
            if (t < 0) {
                row->status = -1;
                break;
            }
            rates[r] = t > 0 ? (double)n * (double)steps / t : 0.0;
            uint64_t h = orca_sim_hash(sim);
            if (w == 0 && r == 0) {
                first_hash = h;
            } else if (h != first_hash) {
                same = 0;
            }
            row->hash = h;
        }
        if (row->status == 0) {
            row->median = median_of(rates, row->runs); /* sorts them */
            row->min = rates[0];
            row->max = rates[row->runs - 1];
        }
    }
    for (int w = 0; w < c->worker_count; ++w) {
        rows[w].same_bits = same;
    }
    free(snap);
    free(rates);
    orca_scenario_destroy(sc);
    return 0;
}

/* --- cold steps and churn (--cold, --churn) ------------------------------------------------- */

#define COLD_WARM_STEPS 5

/* splitmix64: the bench's own choices (victims, new agents, moves); not the library's. */
static uint64_t bench_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double bench_unit(uint64_t *state)
{
    return (double)(bench_rand(state) >> 11) * 0x1p-53;
}

/* Times the first step and the mean of the next COLD_WARM_STEPS; 0 or -1. */
static int cold_steps(orca_scenario *sc, double *first, double *warm)
{
    double t0 = cli_now();
    if (orca_scenario_step(sc) != ORCA_OK) {
        cli_error("bench: %s", orca_scenario_last_error(sc));
        return -1;
    }
    double t1 = cli_now();
    for (int k = 0; k < COLD_WARM_STEPS; ++k) {
        if (orca_scenario_step(sc) != ORCA_OK) {
            cli_error("bench: %s", orca_scenario_last_error(sc));
            return -1;
        }
    }
    *first = t1 - t0;
    *warm = (cli_now() - t1) / COLD_WARM_STEPS;
    return 0;
}

/* Swaps the positions of n/4 random pairs of agents. */
static int move_many(orca_sim *sim, uint64_t *rng)
{
    int n = orca_sim_agent_count(sim);
    const orca_vec2 *pos = orca_sim_positions(sim);
    orca_vec2 *copy = malloc((size_t)(n > 0 ? n : 1) * sizeof *copy);
    if (!copy) {
        return -1;
    }
    memcpy(copy, pos, (size_t)n * sizeof *copy);
    for (int k = 0; k < n / 4; ++k) {
        int i = (int)(bench_rand(rng) % (uint64_t)n), j = (int)(bench_rand(rng) % (uint64_t)n);
        orca_vec2 t = copy[i];
        copy[i] = copy[j];
        copy[j] = t;
    }
    for (int i = 0; i < n; ++i) {
        if (orca_agent_set_position(sim, orca_sim_agent_at(sim, i), copy[i]) != ORCA_OK) {
            free(copy);
            return -1;
        }
    }
    free(copy);
    return 0;
}

typedef struct cold_row {
    double first[3], warm[3], ratio[3]; /* build, load, move */
    int status;
} cold_row;

static const char *const k_cold_cases[3] = {"build", "load", "move"};

/* Builds the scene with `workers` workers, warms it up and saves it; NULL on failure. */
static orca_scenario *bench_scene(const bench_cfg *c, int agents, int workers, int warmup,
                                  unsigned char **snap, size_t *size)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create_builtin((orca_scene_kind)c->scene, agents, c->seed,
                                                  &def, &sc);
    if (st != ORCA_OK) {
        cli_lib_error(st, orca_scenario_last_error(NULL),
                      "bench: building scene %s with %d agent%s",
                      orca_scene_name((orca_scene_kind)c->scene), agents, agents == 1 ? "" : "s");
        return NULL;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    if (c->scalar) {
        orca_sim_set_vector_kernels(sim, 0);
    }
    orca_scenario_set_recording(sc, 0);
    for (int i = 0; i < warmup; ++i) {
        if (orca_scenario_step(sc) != ORCA_OK) {
            cli_error("bench: warm-up: %s", orca_scenario_last_error(sc));
            orca_scenario_destroy(sc);
            return NULL;
        }
    }
    if (snap && bench_save(sim, agents, "warmed-up", snap, size) != 0) {
        orca_scenario_destroy(sc);
        return NULL;
    }
    return sc;
}

/* The scene of --cold and --churn: built with as many workers as the most --workers asks
 * for, warmed up, and its warmed-up snapshot (bench_scene). */
static orca_scenario *bench_warm_scene(const bench_cfg *c, int agents, unsigned char **snap,
                                       size_t *size)
{
    progress(c, "orca bench: %d agent%s: building and warming up", agents, agents == 1 ? "" : "s");
    return bench_scene(c, agents, bench_max_workers(c), (int)c->warmup, snap, size);
}

static int bench_cold(const bench_cfg *c, int agents)
{
    unsigned char *snap = NULL;
    size_t size = 0;
    orca_scenario *sc = bench_warm_scene(c, agents, &snap, &size);
    if (!sc) {
        return -1;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    int n = orca_sim_agent_count(sim);
    int runs = (int)c->runs;
    double *v[9];
    int rc = 0;
    for (int q = 0; q < 9; ++q) {
        v[q] = malloc((size_t)runs * sizeof *v[q]);
        rc |= v[q] ? 0 : -1;
    }
    uint64_t rng = c->seed ^ 0x636f6c64u;
    for (int w = 0; w < c->worker_count && rc == 0; ++w) {
        int workers = (int)c->workers[w];
        for (int r = 0; r < runs && rc == 0; ++r) {
            for (int k = 0; k < 3 && rc == 0; ++k) {
                progress(c, "orca bench --cold: %d agent%s, %d worker%s, %s, run %d", n,
                         n == 1 ? "" : "s", workers, workers == 1 ? "" : "s", k_cold_cases[k],
                         r + 1);
                double first = 0, warm = 0;
                if (k == 0) {
                    orca_scenario *fresh = bench_scene(c, agents, workers, 0, NULL, NULL);
                    if (!fresh) {
                        rc = -1;
                        break;
                    }
                    rc = cold_steps(fresh, &first, &warm);
                    orca_scenario_destroy(fresh);
                } else {
                    if (orca_sim_set_worker_count(sim, workers) != ORCA_OK ||
                        orca_sim_load(sim, snap, size) != ORCA_OK) {
                        cli_error("bench: %s", orca_sim_last_error(sim));
                        rc = -1;
                        break;
                    }
                    if (k == 2 && move_many(sim, &rng) != 0) {
                        cli_error("bench: moving agents: %s", orca_sim_last_error(sim));
                        rc = -1;
                        break;
                    }
                    rc = cold_steps(sc, &first, &warm);
                }
                v[3 * k][r] = first;
                v[3 * k + 1][r] = warm;
                v[3 * k + 2][r] = warm > 0 ? first / warm : 0;
            }
        }
        if (rc != 0) {
            break;
        }
        if (c->progress) {
            fputs("\r\033[K", stderr);
        }
        for (int k = 0; k < 3; ++k) {
            printf("%10d %8d %6s %14.3f %14.3f %10.2f\n", n, workers, k_cold_cases[k],
                   1e3 * median_of(v[3 * k], runs), 1e3 * median_of(v[3 * k + 1], runs),
                   median_of(v[3 * k + 2], runs));
        }
        fflush(stdout);
    }
    for (int q = 0; q < 9; ++q) {
        free(v[q]);
    }
    free(snap);
    orca_scenario_destroy(sc);
    return rc;
}

/* Grows the box lo..hi to hold p (first: the box is p alone). */
static void box_grow(orca_vec2 *lo, orca_vec2 *hi, orca_vec2 p, int first)
{
    lo->x = first || p.x < lo->x ? p.x : lo->x;
    lo->y = first || p.y < lo->y ? p.y : lo->y;
    hi->x = first || p.x > hi->x ? p.x : hi->x;
    hi->y = first || p.y > hi->y ? p.y : hi->y;
}

/* A random direction: a point of the unit disc, by rejection, scaled to length 1 (square
 * roots only: the same on every machine). */
static orca_vec2 bench_direction(uint64_t *rng)
{
    for (;;) {
        double x = 2 * bench_unit(rng) - 1, y = 2 * bench_unit(rng) - 1;
        double d = x * x + y * y;
        if (d > 0x1p-20 && d <= 1) {
            orca_vec2 v = {x / sqrt(d), y / sqrt(d)};
            return v;
        }
    }
}

/* S rounds of churn (k removals and k additions, one call each or in batches) and a step;
 * returns the seconds, or -1. With at_random 0 each new agent takes the place of a removed
 * one (its definition: position, velocity, preferred velocity); otherwise it is dropped at a
 * random point of the box lo..hi with a random preferred velocity. */
static double churn_steps(orca_sim *sim, int steps, int k, int batch, int at_random, orca_vec2 lo,
                          orca_vec2 hi, uint64_t *rng)
{
    orca_agent_id *ids = malloc((size_t)(k > 0 ? k : 1) * sizeof *ids);
    orca_agent_def *defs = malloc((size_t)(k > 0 ? k : 1) * sizeof *defs);
    double t = -1;
    if (!ids || !defs) {
        goto out;
    }
    double t0 = cli_now();
    for (int s = 0; s < steps; ++s) {
        for (int q = 0; q < k; ++q) {
            if (batch) {
                /* distinct agents: one at random in each of k equal parts of the order */
                int part = orca_sim_agent_count(sim) / k;
                ids[q] = orca_sim_agent_at(sim, q * part + (int)(bench_rand(rng) % (uint64_t)part));
                continue;
            }
            int n = orca_sim_agent_count(sim);
            orca_agent_id id = orca_sim_agent_at(sim, (int)(bench_rand(rng) % (uint64_t)n));
            if ((!at_random && orca_agent_get(sim, id, &defs[q]) != ORCA_OK) ||
                orca_sim_remove_agent(sim, id) != ORCA_OK) {
                goto out;
            }
        }
        for (int q = 0; batch && !at_random && q < k; ++q) {
            if (orca_agent_get(sim, ids[q], &defs[q]) != ORCA_OK) {
                goto out;
            }
        }
        if (batch && orca_sim_remove_agents(sim, ids, k) != ORCA_OK) {
            goto out;
        }
        for (int q = 0; q < k; ++q) {
            orca_agent_def *d = &defs[q]; /* without at_random: the removed agent's place */
            if (at_random) {
                *d = orca_agent_def_default();
                d->position.x = lo.x + (hi.x - lo.x) * bench_unit(rng);
                d->position.y = lo.y + (hi.y - lo.y) * bench_unit(rng);
                orca_vec2 u = bench_direction(rng);
                d->preferred_velocity.x = d->max_speed * u.x;
                d->preferred_velocity.y = d->max_speed * u.y;
            }
            if (!batch && orca_sim_add_agent(sim, d, NULL) != ORCA_OK) {
                goto out;
            }
        }
        if (batch && orca_sim_add_agents(sim, defs, k, NULL) != ORCA_OK) {
            goto out;
        }
        if (orca_sim_step(sim, 0.25) != ORCA_OK) {
            goto out;
        }
    }
    t = cli_now() - t0;
out:
    free(ids);
    free(defs);
    return t;
}

static int bench_churn(const bench_cfg *c, int agents)
{
    unsigned char *snap = NULL;
    size_t size = 0;
    orca_scenario *sc = bench_warm_scene(c, agents, &snap, &size);
    if (!sc) {
        return -1;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    int n = orca_sim_agent_count(sim);
    int steps = bench_steps(c, agents);
    int k = (int)((double)n * c->churn / 100.0 + 0.5);
    orca_vec2 lo = {0, 0}, hi = {0, 0};
    const orca_vec2 *pos = orca_sim_positions(sim);
    for (int i = 0; i < n; ++i) {
        box_grow(&lo, &hi, pos[i], i == 0);
    }
    int runs = (int)c->runs;
    double *v[5];
    int rc = 0;
    for (int q = 0; q < 5; ++q) {
        v[q] = malloc((size_t)runs * sizeof *v[q]);
        rc |= v[q] ? 0 : -1;
    }
    for (int w = 0; w < c->worker_count && rc == 0; ++w) {
        int workers = (int)c->workers[w];
        for (int r = 0; r < runs && rc == 0; ++r) {
            double t[3];
            for (int mode = 0; mode < 3 && rc == 0; ++mode) {
                progress(c, "orca bench --churn: %d agent%s, %d worker%s, run %d", n,
                         n == 1 ? "" : "s", workers, workers == 1 ? "" : "s", r + 1);
                uint64_t rng = c->seed ^ 0x636875726eu ^ (uint64_t)r;
                if (orca_sim_set_worker_count(sim, workers) != ORCA_OK ||
                    orca_sim_load(sim, snap, size) != ORCA_OK) {
                    cli_error("bench: %s", orca_sim_last_error(sim));
                    rc = -1;
                    break;
                }
                t[mode] = churn_steps(sim, steps, mode == 0 ? 0 : k, mode == 2, c->churn_random, lo,
                                      hi, &rng);
                if (t[mode] < 0) {
                    cli_error("bench: churn: %s", orca_sim_last_error(sim));
                    rc = -1;
                }
            }
            if (rc == 0) {
                v[0][r] = t[0] / steps;
                v[1][r] = t[1] / steps;
                v[2][r] = t[2] / steps;
                v[3][r] = t[1] / t[0];
                v[4][r] = t[2] / t[0];
            }
        }
        if (rc != 0) {
            break;
        }
        if (c->progress) {
            fputs("\r\033[K", stderr);
        }
        double m[5];
        for (int q = 0; q < 5; ++q) {
            m[q] = median_of(v[q], runs);
        }
        printf("%10d %8d %6d %8d %12.3f %12.3f %8.3f %12.3f %8.3f\n", n, workers, steps, k,
               1e3 * m[0], 1e3 * m[1], m[3], 1e3 * m[2], m[4]);
        fflush(stdout);
    }
    for (int q = 0; q < 5; ++q) {
        free(v[q]);
    }
    free(snap);
    orca_scenario_destroy(sc);
    return rc;
}

/* --- the extended path (--extensions) ------------------------------------------------------- */

/* The two mixes (help_bench states them exactly). */
#define MIX_LAYERS 4
#define MIX_PRIORITIES 10         /* priorities 1..10 */
#define MIX_LOCKED_IN 20          /* one in 20 (5%) of the agents locked */
#define MIX_OUTER_GAP 2.0         /* m: the outer square this far beyond the largest radius */
#define MIX_PILLARS 4
#define MIX_PILLAR_SIDE 1.0       /* m */
#define MIX_PILLAR_CLEAR 0.25     /* m between a pillar and any agent's disc or goal */
#define MIX_PILLAR_TRIES 1024
#define DEFAULTS_MARGIN_MIN 100.0 /* m: the unreachable loop at least this far out */

static const char *const k_ext_names[4] = {"", "defaults", "mix", "pedestrian"};

/* What the extensions of one size were. */
typedef struct ext_applied {
    orca_vec2 lo, hi;   /* the box of every agent and goal point */
    double max_radius;
    double max_reach;   /* the largest boundary reach, max(tauO, dt) * max speed + radius */
    double margin;      /* the outer square's distance beyond the box */
    int locked, pillars, refused;
} ext_applied;

/* The box of the agents and their goal points, the largest radius and reach into x. */
static int ext_measure(orca_scenario *sc, ext_applied *x)
{
    orca_sim *sim = orca_scenario_sim(sc);
    double dt = orca_scenario_dt(sc);
    int n = orca_sim_agent_count(sim);
    for (int i = 0; i < n; ++i) {
        orca_agent_def d;
        orca_goal g;
        orca_vec2 start;
        if (orca_agent_get(sim, orca_sim_agent_at(sim, i), &d) != ORCA_OK ||
            orca_scenario_agent_goal(sc, i, &g, &start) != ORCA_OK) {
            return -1;
        }
        orca_vec2 p[2] = {d.position, g.target};
        int count = g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET ? 2 : 1;
        for (int q = 0; q < count; ++q) {
            box_grow(&x->lo, &x->hi, p[q], i == 0 && q == 0);
        }
        double h = d.obstacle_time_horizon > dt ? d.obstacle_time_horizon : dt;
        double reach = h * d.max_speed + d.radius;
        x->max_radius = d.radius > x->max_radius ? d.radius : x->max_radius;
        x->max_reach = reach > x->max_reach ? reach : x->max_reach;
    }
    return 0;
}

/* A square loop of half side h around m: counter-clockwise (an outer loop) or clockwise (a
 * hole). */
static orca_status add_square(orca_sim *sim, orca_vec2 m, double h, int hole)
{
    orca_vec2 p[4] = {{m.x - h, m.y - h}, {m.x + h, m.y - h}, {m.x + h, m.y + h},
                      {m.x - h, m.y + h}};
    if (hole) {
        orca_vec2 t = p[1];
        p[1] = p[3];
        p[3] = t;
    }
    return orca_sim_add_boundary(sim, p, 4, NULL);
}

/* 1 when a pillar centred at m is free: no agent's disc and no disc at a goal point comes
 * within MIX_PILLAR_CLEAR of it (centres outside the square of half side pillar + clearance
 * + the largest radius), and it does not touch the pillars placed before; -1 on a failed
 * query. */
static int pillar_free(orca_scenario *sc, const ext_applied *x, orca_vec2 m,
                       const orca_vec2 *placed)
{
    orca_sim *sim = orca_scenario_sim(sc);
    double h = MIX_PILLAR_SIDE / 2 + MIX_PILLAR_CLEAR + x->max_radius;
    for (int k = 0; k < x->pillars; ++k) {
        if (fabs(placed[k].x - m.x) <= h && fabs(placed[k].y - m.y) <= h) {
            return 0;
        }
    }
    orca_vec2 lo = {m.x - h, m.y - h}, hi = {m.x + h, m.y + h};
    int count = 0;
    if (orca_sim_query_box(sim, lo, hi, NULL, 0, &count) != ORCA_OK) {
        return -1;
    }
    for (int i = 0; i < orca_sim_agent_count(sim) && count == 0; ++i) {
        orca_goal g;
        orca_vec2 start;
        if (orca_scenario_agent_goal(sc, i, &g, &start) != ORCA_OK) {
            return -1;
        }
        count = (g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET) &&
                fabs(g.target.x - m.x) <= h && fabs(g.target.y - m.y) <= h;
    }
    return count == 0;
}

/* Applies --extensions to the warmed-up scene (choices seeded from --seed); 0 or -1 with a
 * message. */
static int ext_apply(const bench_cfg *c, orca_scenario *sc, ext_applied *x)
{
    orca_sim *sim = orca_scenario_sim(sc);
    int mix = c->extensions == BENCH_EXT_MIX;
    memset(x, 0, sizeof *x);
    if (c->extensions == BENCH_EXT_PEDESTRIAN) {
        orca_pedestrian p = orca_pedestrian_default();
        if (orca_scenario_set_pedestrian(sc, &p) != ORCA_OK) {
            cli_error("bench: --extensions: %s", orca_scenario_last_error(sc));
            return -1;
        }
        return 0;
    }
    if (ext_measure(sc, x) != 0) {
        cli_error("bench: --extensions: %s", orca_sim_last_error(sim));
        return -1;
    }
    uint64_t rng = c->seed ^ 0x6578742d6d6978ull; /* "ext-mix" */
    int n = orca_sim_agent_count(sim);
    /* mix: round(n / 20) distinct agents locked, drawn at random */
    unsigned char *lock = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!lock) {
        cli_error("bench: --extensions: out of memory");
        return -1;
    }
    for (int k = mix ? (n + MIX_LOCKED_IN / 2) / MIX_LOCKED_IN : 0; k > 0;) {
        int i = (int)(bench_rand(&rng) % (uint64_t)n);
        k -= !lock[i];
        lock[i] = 1;
    }
    for (int i = 0; i < n; ++i) {
        orca_agent_id id = orca_sim_agent_at(sim, i);
        orca_agent_avoidance a = orca_agent_avoidance_default();
        if (mix) {
            unsigned g = (unsigned)(bench_rand(&rng) % MIX_LAYERS);
            a.layers = 1u << g;
            a.mask = ~(1u << ((g + 2) % MIX_LAYERS)) & ((1u << MIX_LAYERS) - 1);
            a.priority = (double)(1 + bench_rand(&rng) % MIX_PRIORITIES);
            a.locked = lock[i];
        }
        orca_vec2 still = {0, 0};
        if (orca_agent_set_avoidance(sim, id, &a) != ORCA_OK ||
            (a.locked && orca_agent_set_velocity(sim, id, still) != ORCA_OK)) {
            cli_error("bench: --extensions: agent %d: %s", i, orca_sim_last_error(sim));
            free(lock);
            return -1;
        }
        x->locked += a.locked;
    }
    free(lock);
    double w = x->hi.x - x->lo.x, h = x->hi.y - x->lo.y;
    double half = (w > h ? w : h) / 2;
    if (mix) {
        x->margin = x->max_radius + MIX_OUTER_GAP;
    } else {
        x->margin = 2 * half > 4 * x->max_reach ? 2 * half : 4 * x->max_reach;
        x->margin = x->margin > DEFAULTS_MARGIN_MIN ? x->margin : DEFAULTS_MARGIN_MIN;
    }
    orca_vec2 mid = {(x->lo.x + x->hi.x) / 2, (x->lo.y + x->hi.y) / 2};
    if (add_square(sim, mid, half + x->margin, 0) != ORCA_OK) {
        cli_error("bench: --extensions: the outer loop: %s", orca_sim_last_error(sim));
        return -1;
    }
    orca_vec2 placed[MIX_PILLARS];
    for (int t = 0; mix && t < MIX_PILLAR_TRIES && x->pillars < MIX_PILLARS; ++t) {
        orca_vec2 m = {x->lo.x + w * bench_unit(&rng), x->lo.y + h * bench_unit(&rng)};
        int clear = pillar_free(sc, x, m, placed);
        if (clear < 0) {
            cli_error("bench: --extensions: %s", orca_sim_last_error(sim));
            return -1;
        }
        if (!clear) {
            continue;
        }
        if (add_square(sim, m, MIX_PILLAR_SIDE / 2, 1) != ORCA_OK) {
            x->refused++;
            continue;
        }
        placed[x->pillars++] = m;
    }
    return 0;
}

/* One worker count's figures of --extensions: [0] the plain path's rate, [1] the extended
 * path's, [2] the ratio extended / plain of the same run. */
typedef struct ext_row {
    int workers;
    double median[3], min[3], max[3];
    uint64_t hash[2]; /* the state hash after the last run of each path */
} ext_row;

/* Prints what the extensions of a size were. */
static void ext_describe(const bench_cfg *c, int n, const ext_applied *x)
{
    if (c->extensions == BENCH_EXT_PEDESTRIAN) {
        printf("  pedestrian at %d agent%s: the model's defaults\n", n, n == 1 ? "" : "s");
    } else if (c->extensions == BENCH_EXT_MIX) {
        printf("  mix at %d agent%s: %d locked (%.1f%%), outer square %g m beyond the agents "
               "and goals, %d pillar%s (%d refused by the library)\n",
               n, n == 1 ? "" : "s", x->locked, n > 0 ? 100.0 * x->locked / n : 0.0, x->margin,
               x->pillars, x->pillars == 1 ? "" : "s", x->refused);
    } else {
        printf("  defaults at %d agent%s: one loop %g m beyond the agents and goals (the "
               "farthest reach of an agent is %g m)\n",
               n, n == 1 ? "" : "s", x->margin, x->max_reach);
    }
}

/* --extensions for one size: prints its rows (and writes them to csv); 0 or -1. */
static int bench_ext(const bench_cfg *c, int agents, FILE *csv)
{
    unsigned char *snap[2] = {NULL, NULL};
    size_t size[2] = {0, 0};
    orca_scenario *sc = bench_warm_scene(c, agents, &snap[0], &size[0]);
    if (!sc) {
        return -1;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    int n = orca_sim_agent_count(sim);
    int steps = bench_steps(c, agents);
    int runs = (int)c->runs;
    ext_applied x;
    int rc = ext_apply(c, sc, &x);
    if (rc == 0) {
        rc = bench_save(sim, agents, "extended", &snap[1], &size[1]);
    }
    double *v[3];
    for (int q = 0; q < 3; ++q) {
        v[q] = malloc((size_t)runs * sizeof *v[q]);
        if (!v[q] && rc == 0) {
            cli_error("bench: %d agent%s: out of memory", agents, agents == 1 ? "" : "s");
            rc = -1;
        }
    }
    ext_row rows[BENCH_MAX_LIST];
    int same[2] = {1, 1};
    uint64_t first[2] = {0, 0}; /* each path's hash after the first run */
    for (int w = 0; w < c->worker_count && rc == 0; ++w) {
        ext_row *row = &rows[w];
        row->workers = (int)c->workers[w];
        for (int r = 0; r < runs && rc == 0; ++r) {
            double t[2] = {0, 0};
            for (int k = 0; k < 2 && rc == 0; ++k) {
                progress(c, "orca bench --extensions %s: %d agent%s, %d worker%s, run %d, %s",
                         k_ext_names[c->extensions], n, n == 1 ? "" : "s", row->workers,
                         row->workers == 1 ? "" : "s", r + 1,
                         k ? "extended" : "plain");
                if (orca_sim_set_worker_count(sim, row->workers) != ORCA_OK ||
                    orca_sim_load(sim, snap[k], size[k]) != ORCA_OK) {
                    cli_error("bench: %s", orca_sim_last_error(sim));
                    rc = -1;
                    break;
                }
                t[k] = timed_steps(sc, steps);
                rc = t[k] < 0 ? -1 : 0;
                uint64_t h = orca_sim_hash(sim);
                if (w == 0 && r == 0) {
                    first[k] = h;
                }
                same[k] &= h == first[k];
                row->hash[k] = h;
            }
            if (rc == 0) {
                v[0][r] = t[0] > 0 ? (double)n * steps / t[0] : 0.0;
                v[1][r] = t[1] > 0 ? (double)n * steps / t[1] : 0.0;
                v[2][r] = t[1] > 0 ? t[0] / t[1] : 0.0;
            }
        }
        for (int q = 0; q < 3 && rc == 0; ++q) {
            row->median[q] = median_of(v[q], runs); /* sorts them */
            row->min[q] = v[q][0];
            row->max[q] = v[q][runs - 1];
        }
    }
    if (c->progress) {
        fputs("\r\033[K", stderr);
    }
    if (rc == 0) {
        ext_describe(c, n, &x);
    }
    for (int w = 0; w < c->worker_count && rc == 0; ++w) {
        const ext_row *r = &rows[w];
        char range[64];
        snprintf(range, sizeof range, "%.3f..%.3f", r->min[2], r->max[2]);
        printf("%10d %8d %6d %12.4g %12.4g %7.3f %15s %11s %9s\n", n, r->workers, steps,
               r->median[0], r->median[1], r->median[2], range, same[0] ? "yes" : "NO",
               same[1] ? "yes" : "NO");
        if (csv) {
            fprintf(csv,
                    "%s,%s,%d,%d,%d,%lld,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%d,"
                    "%016llx,%016llx\n",
                    orca_scene_name((orca_scene_kind)c->scene), k_ext_names[c->extensions], n,
                    r->workers, steps, c->warmup, runs, r->median[0], r->min[0], r->max[0],
                    r->median[1], r->min[1], r->max[1], r->median[2], r->min[2], r->max[2],
                    same[0], same[1], (unsigned long long)r->hash[0],
                    (unsigned long long)r->hash[1]);
        }
    }
    fflush(stdout);
    for (int q = 0; q < 3; ++q) {
        free(v[q]);
    }
    free(snap[0]);
    free(snap[1]);
    orca_scenario_destroy(sc);
    return rc;
}

/* Runs one size in a child process (clean memory figures); falls back to this process (always
 * on Windows, which has no fork). */
static int bench_size_isolated(const bench_cfg *c, int agents, bench_row *rows)
{
#if defined(_WIN32)
    return bench_size(c, agents, rows);
#else
    int fd[2];
    if (pipe(fd) != 0) {
        return bench_size(c, agents, rows);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return bench_size(c, agents, rows);
    }
    if (pid == 0) {
        close(fd[0]);
        int rc = bench_size(c, agents, rows);
        size_t bytes = (size_t)c->worker_count * sizeof *rows;
        const char *p = (const char *)rows;
        while (rc == 0 && bytes > 0) {
            ssize_t put = write(fd[1], p, bytes);
            if (put <= 0) {
                if (put < 0 && errno == EINTR) {
                    continue;
                }
                rc = -1;
                break;
            }
            p += put;
            bytes -= (size_t)put;
        }
        close(fd[1]);
        fflush(NULL);
        _exit(rc == 0 ? 0 : 1);
    }
    close(fd[1]);
    size_t want = (size_t)c->worker_count * sizeof *rows, got = 0;
    char *p = (char *)rows;
    while (got < want) {
        ssize_t r = read(fd[0], p + got, want - got);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            break;
        }
        got += (size_t)r;
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got != want || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status)) {
            cli_error("bench: %d agent%s: the measuring process died (signal %d; out of "
                      "memory?)",
                      agents, agents == 1 ? "" : "s", WTERMSIG(status));
        }
        return -1;
    }
    return 0;
#endif
}

static void format_mem(char *buf, size_t size, double bytes)
{
    if (bytes < 0) {
        snprintf(buf, size, "n/a");
    } else {
        snprintf(buf, size, "%.0f B", bytes);
    }
}

enum { B_SCENE, B_SIZES, B_WORKERS, B_RUNS, B_STEPS, B_WARMUP, B_SEED, B_CSV, B_SCALAR, B_COLD,
       B_CHURN, B_CHURN_AT, B_EXTENSIONS, B_HELP };

/* cmd_bench's steps return an exit status, or BENCH_GO when the benchmark goes on. */
#define BENCH_GO (-1)

/* The defaults: the random scene at 1k, 10k, 100k and 1M agents, on 1, 2, ... workers up to
 * the online CPUs (beyond 8 CPUs: powers of two, then the CPU count). */
static void bench_defaults(bench_cfg *c, int cpus)
{
    memset(c, 0, sizeof *c);
    c->scene = ORCA_SCENE_RANDOM;
    c->sizes[0] = 1000;
    c->sizes[1] = 10000;
    c->sizes[2] = 100000;
    c->sizes[3] = 1000000;
    c->size_count = 4;
    c->runs = BENCH_DEFAULT_RUNS;
    c->warmup = BENCH_DEFAULT_WARMUP;
    c->seed = CLI_DEFAULT_SEED;
    c->churn = -1;
    int limit = cpus > ORCA_MAX_WORKERS ? ORCA_MAX_WORKERS : cpus;
    if (limit <= 8) {
        for (int w = 1; w <= limit; ++w) {
            c->workers[c->worker_count++] = w;
        }
    } else {
        for (int w = 1; w < limit; w *= 2) {
            c->workers[c->worker_count++] = w;
        }
        c->workers[c->worker_count++] = limit;
    }
}

/* A comma-separated list option (--sizes, --workers). Returns 0, or -1 (message printed). */
static int bench_list(const char *name, const char *value, long long max, long long *out,
                      int *count)
{
    char why[200];
    if (cli_parse_list(value, 1, max, out, BENCH_MAX_LIST, count, why, sizeof why) != 0) {
        cli_error("%s: %s", name, why);
        return -1;
    }
    return 0;
}

/* One of two words (--churn-at, --extensions): 0 for the first, 1 for the second, -1 for
 * anything else (message printed). */
static int bench_choice(const char *name, const char *value, const char *first,
                        const char *second)
{
    if (strcmp(value, first) == 0 || strcmp(value, second) == 0) {
        return strcmp(value, second) == 0;
    }
    cli_usage_error("bench", "%s: '%s' or '%s', got '%s'", name, first, second, value);
    return -1;
}

/* One option of orca bench (k: its B_ index). Returns 0, or -1 on a bad value (message
 * printed). */
static int bench_option(bench_cfg *c, int k, const char *name, const char *value,
                        const char **csv_path)
{
    char why[200];
    int choice;
    switch (k) {
    case B_SCENE:
        c->scene = cli_scene_kind(name, value);
        return c->scene < 0 ? -1 : 0;
    case B_SIZES: return bench_list(name, value, 4000000, c->sizes, &c->size_count);
    case B_WORKERS:
        return bench_list(name, value, ORCA_MAX_WORKERS, c->workers, &c->worker_count);
    case B_RUNS: return cli_opt_long(name, value, 1, 1000, &c->runs);
    case B_STEPS:
        c->have_steps = 1;
        return cli_opt_long(name, value, 1, 1000000, &c->steps);
    case B_WARMUP: return cli_opt_long(name, value, 0, 1000000, &c->warmup);
    case B_SEED: return cli_opt_u64(name, value, &c->seed);
    case B_CSV:
        if (value[0] == '\0' || strcmp(value, "-") == 0) {
            cli_usage_error("bench", "%s: give a file name (the table goes to standard output), "
                                     "got '%s'",
                            name, value);
            return -1;
        }
        *csv_path = value;
        return 0;
    case B_SCALAR: c->scalar = 1; return 0;
    case B_COLD: c->cold = 1; return 0;
    case B_CHURN:
        if (cli_parse_double(value, &c->churn, why, sizeof why) != 0) {
            cli_error("%s: %s", name, why);
            return -1;
        }
        if (!(c->churn >= 0 && c->churn <= 50)) {
            cli_error("%s: the churn must be a percentage in 0..50, got '%s'", name, value);
            return -1;
        }
        return 0;
    case B_CHURN_AT:
        if ((choice = bench_choice(name, value, "removed", "random")) < 0) {
            return -1;
        }
        c->churn_random = choice;
        c->churn_at_given = 1;
        return 0;
    case B_EXTENSIONS:
        if (strcmp(value, "defaults") == 0 || strcmp(value, "mix") == 0 ||
            strcmp(value, "pedestrian") == 0) {
            c->extensions = value[0] == 'd' ? BENCH_EXT_DEFAULTS
                            : value[0] == 'm' ? BENCH_EXT_MIX
                                              : BENCH_EXT_PEDESTRIAN;
            return 0;
        }
        cli_usage_error("bench", "%s: 'defaults', 'mix' or 'pedestrian', got '%s'", name, value);
        return -1;
    default: return 0;
    }
}

/* The measurements exclude each other, and --csv goes with the throughput table only.
 * Returns 0, or -1 (message printed). */
static int bench_check_options(const bench_cfg *c, const char *csv_path)
{
    if (c->churn_at_given && !(c->churn >= 0)) {
        cli_usage_error("bench", "bench: --churn-at goes with --churn");
        return -1;
    }
    if (c->cold && c->churn >= 0) {
        cli_usage_error("bench", "bench: --cold and --churn are separate measurements: give one");
        return -1;
    }
    if (c->extensions && (c->cold || c->churn >= 0)) {
        cli_usage_error("bench", "bench: --extensions times steady steps with and without the "
                                 "extensions; it does not go with --%s",
                        c->cold ? "cold" : "churn");
        return -1;
    }
    if ((c->cold || c->churn >= 0) && csv_path) {
        cli_usage_error("bench", "bench: --csv writes the throughput table; it does not go with "
                                 "--cold or --churn");
        return -1;
    }
    return 0;
}

/* Reads the command line into c and *csv_path: BENCH_GO, or the exit status (--help:
 * EXIT_OK). */
static int bench_parse(bench_cfg *c, int argc, char **argv, int cpus, const char **csv_path)
{
    static const cli_opt opts[] = {{"scene", 0, 1},  {"sizes", 0, 1}, {"workers", 'j', 1},
                                   {"runs", 0, 1},   {"steps", 0, 1}, {"warmup", 0, 1},
                                   {"seed", 0, 1},   {"csv", 0, 1},   {"scalar", 0, 0},
                                   {"cold", 0, 0},   {"churn", 0, 1}, {"churn-at", 0, 1},
                                   {"extensions", 0, 1}, {"help", 'h', 0},
                                   {NULL, 0, 0}};
    bench_defaults(c, cpus);
    *csv_path = NULL;
    cli_args a = {argc, argv, 1, "bench", 0};
    const char *value, *name;
    int k;
    while ((k = cli_next(&a, opts, &value, &name)) != CLI_END) {
        if (k == CLI_ERROR) {
            return EXIT_USAGE;
        }
        if (k == CLI_POSITIONAL) {
            cli_usage_error("bench", "bench: unexpected argument '%s'", value);
            return EXIT_USAGE;
        }
        if (k == B_HELP) {
            help_bench(stdout);
            return EXIT_OK;
        }
        if (bench_option(c, k, name, value, csv_path) != 0) {
            return EXIT_USAGE;
        }
    }
    c->progress = cli_stderr_is_terminal();
    return bench_check_options(c, *csv_path) != 0 ? EXIT_USAGE : BENCH_GO;
}

/* --cold or --churn: the header, then each size's rows (bench_cold, bench_churn print them). */
static int bench_cold_or_churn(const bench_cfg *c, int cpus)
{
    printf("orca bench %s: scene %s, seed %llu, %d CPU%s online, orca %s, %s\n",
           c->cold ? "--cold" : "--churn", orca_scene_name((orca_scene_kind)c->scene),
           (unsigned long long)c->seed, cpus, cpus == 1 ? "" : "s", orca_version(),
           cli_kernels_text(c->scalar));
    if (c->cold) {
        printf("medians over %lld run%s; warm = mean of the %d steps after the first\n\n",
               c->runs, c->runs == 1 ? "" : "s", COLD_WARM_STEPS);
        printf("%10s %8s %6s %14s %14s %10s\n", "agents", "workers", "case", "first ms",
               "warm ms", "first/warm");
    } else {
        printf("churn %g%% of the agents removed and as many added per step (%s); "
               "medians over %lld run%s\n\n",
               c->churn, c->churn_random ? "at random points" : "each in a removed agent's place",
               c->runs, c->runs == 1 ? "" : "s");
        printf("%10s %8s %6s %8s %12s %12s %8s %12s %8s\n", "agents", "workers", "S", "k",
               "free ms", "churn ms", "ratio", "batch ms", "ratio");
    }
    fflush(stdout);
    int rc = EXIT_OK;
    for (int s = 0; s < c->size_count; ++s) {
        int r = c->cold ? bench_cold(c, (int)c->sizes[s]) : bench_churn(c, (int)c->sizes[s]);
        if (r != 0) {
            if (c->progress) {
                fputs("\r\033[K", stderr);
            }
            printf("%10lld  failed (see the message above)\n", c->sizes[s]);
            rc = EXIT_RUNTIME;
        }
    }
    return rc;
}

/* The throughput table's CSV: a temporary file (created now, so an unwritable path fails
 * before any measurement) with its header; it replaces the file only when every size was
 * measured. Returns 0, or -1 (message printed). */
static int open_bench_csv(const bench_cfg *c, const char *csv_path, cli_out *out)
{
    if (cli_out_open(out, "--csv", csv_path, 0) != 0) {
        return -1;
    }
    fputs(c->extensions
              ? "scene,extensions,agents,workers,steps,warmup,runs,"
                "plain_median_agent_steps_per_s,plain_min_agent_steps_per_s,"
                "plain_max_agent_steps_per_s,extended_median_agent_steps_per_s,"
                "extended_min_agent_steps_per_s,extended_max_agent_steps_per_s,ratio_median,"
                "ratio_min,ratio_max,plain_same_bits,extended_same_bits,plain_hash,"
                "extended_hash\n"
              : "scene,agents,workers,steps,warmup,runs,median_agent_steps_per_s,"
                "min_agent_steps_per_s,max_agent_steps_per_s,peak_bytes_per_agent,same_bits,"
                "hash\n",
          out->f);
    return 0;
}

/* The throughput table's header: what was measured and how, and the columns. */
static void print_bench_header(const bench_cfg *c, int cpus)
{
    printf("orca bench%s%s: scene %s, seed %llu, %d CPU%s online, orca %s (bits version %d), "
           "%s\n",
           c->extensions ? " --extensions " : "", k_ext_names[c->extensions],
           orca_scene_name((orca_scene_kind)c->scene), (unsigned long long)c->seed, cpus,
           cpus == 1 ? "" : "s", orca_version(), orca_bits_version(), cli_kernels_text(c->scalar));
    if (c->extensions) {
        printf("each row: %lld pair%s of timed runs of S steps after a %lld-step warm-up, "
               "interleaved: the plain\npath (the warmed-up state), then the extended path (that "
               "state with the extensions below);\nagent-steps/s medians over the runs; ratio: "
               "the median and min..max of the runs' extended/plain\n%s; diagnostics off "
               "(orca help bench)\n\n",
               c->runs, c->runs == 1 ? "" : "s", c->warmup,
               c->extensions == BENCH_EXT_PEDESTRIAN
                   ? "pedestrian: the pedestrian model on with its defaults"
               : c->extensions == BENCH_EXT_MIX
                   ? "mix: 4 layers with masks, priorities 1..10, 5% of the agents locked and "
                     "standing, a square loop\na few metres beyond the agents and goals, up to "
                     "4 square pillars"
                   : "defaults: every agent's avoidance set to the defaults, one square loop "
                     "beyond any agent's reach");
        printf("%10s %8s %6s %12s %12s %7s %15s %11s %9s\n", "agents", "workers", "S", "plain/s",
               "extended/s", "ratio", "ratio range", "same plain", "same ext");
    } else {
        printf("each row: %lld timed run%s of S steps after a %lld-step warm-up; agent-steps/s "
               "median and min..max over the runs\n",
               c->runs, c->runs == 1 ? "" : "s", c->warmup);
        printf("mem/agent: peak RSS growth (VmHWM) while building the scene and warming up, per "
               "agent\n\n");
        printf("%10s %8s %6s %14s %27s %9s %12s %10s\n", "agents", "workers", "S", "median/s",
               "min..max /s", "spread", "mem/agent", "same bits");
    }
    fflush(stdout);
}

/* One size's rows of the throughput table (one per worker count), and in the CSV. Returns
 * EXIT_OK, or EXIT_RUNTIME when a row failed. */
static int print_bench_rows(const bench_cfg *c, const bench_row *rows, FILE *csv)
{
    int rc = EXIT_OK;
    for (int w = 0; w < c->worker_count; ++w) {
        const bench_row *r = &rows[w];
        char mem[32], range[64];
        format_mem(mem, sizeof mem, r->mem_per_agent);
        if (r->status != 0) {
            printf("%10d %8d  failed\n", r->agents, r->workers);
            rc = EXIT_RUNTIME;
            continue;
        }
        snprintf(range, sizeof range, "%.4g..%.4g", r->min, r->max);
        double spread = r->median > 0 ? 100.0 * (r->max - r->min) / r->median : 0.0;
        char spread_s[16];
        snprintf(spread_s, sizeof spread_s, "%.1f%%", spread);
        printf("%10d %8d %6d %14.4g %27s %9s %12s %10s\n", r->agents, r->workers, r->steps,
               r->median, range, spread_s, w == 0 ? mem : "", r->same_bits ? "yes" : "NO");
        if (csv) {
            fprintf(csv, "%s,%d,%d,%d,%lld,%d,%.6g,%.6g,%.6g,%.1f,%d,%016llx\n",
                    orca_scene_name((orca_scene_kind)c->scene), r->agents, r->workers, r->steps,
                    c->warmup, r->runs, r->median, r->min, r->max, r->mem_per_agent,
                    r->same_bits, (unsigned long long)r->hash);
        }
    }
    fflush(stdout);
    return rc;
}

/* The throughput table (plain, or --extensions): each size in turn, then the CSV replaces
 * its file when every size was measured. */
static int bench_throughput(const bench_cfg *c, int cpus, const char *csv_path)
{
    cli_out csv_out;
    memset(&csv_out, 0, sizeof csv_out);
    if (csv_path && open_bench_csv(c, csv_path, &csv_out) != 0) {
        return EXIT_RUNTIME;
    }
    FILE *csv = csv_path ? csv_out.f : NULL;
    print_bench_header(c, cpus);
    int rc = EXIT_OK;
    bench_row rows[BENCH_MAX_LIST];
    for (int s = 0; s < c->size_count; ++s) {
        int failed = c->extensions ? bench_ext(c, (int)c->sizes[s], csv) != 0
                                   : bench_size_isolated(c, (int)c->sizes[s], rows) != 0;
        if (c->progress) {
            fputs("\r\033[K", stderr);
        }
        if (failed) {
            printf("%10lld  failed (see the message above)\n", c->sizes[s]);
            rc = EXIT_RUNTIME;
        } else if (!c->extensions && print_bench_rows(c, rows, csv) != EXIT_OK) {
            rc = EXIT_RUNTIME; /* bench_ext printed its own rows */
        }
    }
    if (csv && rc != EXIT_OK) {
        cli_error("--csv: %s not written: a measurement failed (the file was not changed)",
                  csv_path);
        cli_out_abort(&csv_out);
    } else if (csv && cli_out_commit(&csv_out) != 0) {
        rc = EXIT_RUNTIME;
    }
    return rc;
}

/* orca bench: the options, then one of the measurements. */
int cmd_bench(int argc, char **argv)
{
    bench_cfg c;
    const char *csv_path;
    int cpus = cli_cpu_count();
    int rc = bench_parse(&c, argc, argv, cpus, &csv_path);
    if (rc != BENCH_GO) {
        return rc;
    }
    if (c.cold || c.churn >= 0) {
        return bench_cold_or_churn(&c, cpus);
    }
    return bench_throughput(&c, cpus, csv_path);
}
