/* SPDX-License-Identifier: MIT */
/* The serial share of a threaded step: the part of orca_scenario_step that runs on one thread
 * (docs/performance.md, "The serial share"). Prints figures; never judges.
 *
 * Usage: orca_serial [--scene NAME | --file SCENE.txt] [--sizes LIST] [--workers K]
 *                    [--steps S] [--warmup W] [--rounds R] [--scalar] [--gaps]
 * Defaults: random, 100000, 2, 10, 5, 5.
 *
 * Method: the scene is built with the library's job-system hook (orca_sim_def's enqueue and
 * finish) pointing at this program's own pool of K threads (the caller included). Every
 * parallel pass of the step goes through the hook, so the time from a pass's enqueue to its
 * end is parallel time, and the rest of a step's wall time is what ran on the calling thread
 * alone: the serial part. A round runs S steps; a row gives the medians over R rounds of the
 * time per step, of the serial time per step and of its share, and the number of parallel
 * passes per step. The pool hands out ranges of about count / (8 K) items (at least the
 * pass's min_range) from a shared counter; its threads spin between passes, so that a pass
 * starts at once (as the built-in pool's do). The same scene is also stepped on the built-in
 * pool (K workers) and on one worker, for the ratio the hook's pool costs and for the speed-up;
 * all three give the same state hash (checked). */
#define _POSIX_C_SOURCE 200809L
#include <orca/orca.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define LIST_MAX 16
#define POOL_MAX 64

/* --- the pool behind the hook ---------------------------------------------------------- */

typedef struct pool {
    int threads;
    pthread_t tid[POOL_MAX];
    atomic_uint generation; /* a new pass when it changes; quit when `quit` is set */
    atomic_int quit;
    /* the current pass */
    orca_task_fn *fn;
    void *ctx;
    int count, chunk;
    atomic_int next;    /* the next range's first item */
    atomic_int working; /* threads still in the pass */
    /* what was measured */
    double parallel_seconds;
    long passes;
    int agents; /* the scene's agents at the end of the last case on this pool */
    /* with --gaps: the start and end of each pass of the current step */
    int record, marks;
    double mark[2 * 64];
} pool;

static void run_ranges(pool *p, int worker)
{
    for (;;) {
        int b = atomic_fetch_add(&p->next, p->chunk);
        if (b >= p->count) {
            return;
        }
        int e = b + p->chunk < p->count ? b + p->chunk : p->count;
        p->fn(b, e, worker, p->ctx);
    }
}

typedef struct thread_arg {
    pool *p;
    int worker;
} thread_arg;

static thread_arg g_args[POOL_MAX];

static void *thread_main(void *arg)
{
    thread_arg *a = arg;
    pool *p = a->p;
    unsigned seen = atomic_load(&p->generation);
    for (;;) {
        unsigned g;
        long spins = 0;
        while ((g = atomic_load(&p->generation)) == seen && !atomic_load(&p->quit)) {
            if (++spins > 20000) {
                sched_yield();
            }
        }
        if (atomic_load(&p->quit)) {
            return NULL;
        }
        seen = g;
        run_ranges(p, a->worker);
        atomic_fetch_sub(&p->working, 1);
    }
}

static void *pool_enqueue(orca_task_fn *fn, int count, int min_range, void *ctx, void *user)
{
    pool *p = user;
    double t0 = now();
    int chunk = count / (8 * p->threads);
    p->fn = fn;
    p->ctx = ctx;
    p->count = count;
    p->chunk = chunk < min_range ? min_range : chunk < 1 ? 1 : chunk;
    atomic_store(&p->next, 0);
    atomic_store(&p->working, p->threads - 1);
    atomic_fetch_add(&p->generation, 1);
    run_ranges(p, 0);
    while (atomic_load(&p->working) > 0) {
    }
    double t1 = now();
    p->parallel_seconds += t1 - t0;
    p->passes++;
    if (p->record && p->marks + 2 <= 2 * 64) {
        p->mark[p->marks++] = t0;
        p->mark[p->marks++] = t1;
    }
    return NULL; /* the work is done: the library calls no finish */
}

static void pool_finish(void *task, void *user)
{
    (void)task;
    (void)user;
}

static int pool_start(pool *p, int threads)
{
    memset(p, 0, sizeof *p);
    p->threads = threads;
    for (int k = 1; k < threads; ++k) {
        g_args[k].p = p;
        g_args[k].worker = k;
        if (pthread_create(&p->tid[k], NULL, thread_main, &g_args[k]) != 0) {
            return 0;
        }
    }
    return 1;
}

static void pool_stop(pool *p)
{
    atomic_store(&p->quit, 1);
    for (int k = 1; k < p->threads; ++k) {
        pthread_join(p->tid[k], NULL);
    }
}

/* --- the measurement ------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: orca_serial [--scene NAME | --file SCENE.txt] [--sizes LIST] "
                    "[--workers K] "
                    "[--steps S] [--warmup W] [--rounds R] [--scalar] [--gaps]\n");
    return 2;
}

typedef struct setup {
    int kind, agents, workers, steps, warmup, scalar;
    orca_scene_file *file; /* --file: this scene instead of a built-in one */
} setup;

/* The scene of u on the simulation def: the file's, or the built-in scene's. */
static orca_scenario *make_scenario(const setup *u, const orca_sim_def *def)
{
    orca_scenario *sc = NULL;
    if (u->file) {
        orca_scene_build_def b = orca_scene_build_def_default();
        b.sim = *def;
        if (orca_scene_file_build(u->file, &b, &sc) != ORCA_OK) {
            fprintf(stderr, "orca_serial: %s\n", orca_scene_file_last_error(u->file));
            return NULL;
        }
    } else if (orca_scenario_create_builtin((orca_scene_kind)u->kind, u->agents, 1, def, &sc) !=
               ORCA_OK) {
        fprintf(stderr, "orca_serial: %s\n", orca_scenario_last_error(NULL));
        return NULL;
    }
    orca_scenario_set_recording(sc, 0);
    orca_sim_set_vector_kernels(orca_scenario_sim(sc), !u->scalar);
    return sc;
}

/* The scene on the hook's pool (hook != NULL) or on `workers` built-in workers, warmed up,
 * then `steps` steps timed; the time per step into *t, the hash into *hash. */
static int run_case(const setup *u, pool *hook, int workers, double *t, uint64_t *hash)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    if (hook) {
        def.enqueue = pool_enqueue;
        def.finish = pool_finish;
        def.user_context = hook;
    }
    orca_scenario *sc = make_scenario(u, &def);
    if (!sc) {
        return 0;
    }
    orca_status st = ORCA_OK;
    for (int k = 0; k < u->warmup && st == ORCA_OK; ++k) {
        st = orca_scenario_step(sc);
    }
    if (hook) {
        hook->parallel_seconds = 0;
        hook->passes = 0;
    }
    double t0 = now();
    for (int k = 0; k < u->steps && st == ORCA_OK; ++k) {
        st = orca_scenario_step(sc);
    }
    *t = (now() - t0) / u->steps;
    if (st != ORCA_OK) {
        fprintf(stderr, "orca_serial: %s\n", orca_scenario_last_error(sc));
        orca_scenario_destroy(sc);
        return 0;
    }
    *hash = orca_sim_hash(orca_scenario_sim(sc));
    if (hook) {
        hook->agents = orca_sim_agent_count(orca_scenario_sim(sc));
    }
    orca_scenario_destroy(sc);
    return 1;
}

/* --gaps: the serial time of a step by where it falls: before the first parallel pass,
 * between passes k and k+1, after the last; medians over the steps in microseconds. */
static int print_gaps(const setup *u, pool *p)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = u->workers;
    def.enqueue = pool_enqueue;
    def.finish = pool_finish;
    def.user_context = p;
    orca_scenario *sc = make_scenario(u, &def);
    if (!sc) {
        return 0;
    }
    for (int k = 0; k < u->warmup; ++k) {
        orca_scenario_step(sc);
    }
    double *gap = malloc((size_t)u->steps * 65 * sizeof *gap), col[4096];
    if (!gap) {
        orca_scenario_destroy(sc);
        return 0;
    }
    int passes = -1, steps = 0;
    for (int k = 0; k < u->steps; ++k) {
        p->record = 1;
        p->marks = 0;
        double t0 = now();
        if (orca_scenario_step(sc) != ORCA_OK) {
            fprintf(stderr, "orca_serial: %s\n", orca_scenario_last_error(sc));
            orca_scenario_destroy(sc);
            free(gap);
            return 0;
        }
        double t1 = now();
        p->record = 0;
        int n = p->marks / 2;
        if (passes < 0) {
            passes = n;
        }
        if (n != passes) {
            continue; /* a step of another shape (e.g. the grid rebuilt from scratch) */
        }
        double last = t0, *g = gap + 65 * steps;
        for (int j = 0; j < n; ++j) {
            g[j] = p->mark[2 * j] - last;
            last = p->mark[2 * j + 1];
        }
        g[n] = t1 - last;
        steps++;
    }
    printf("  serial time by place, median over %d steps of %d passes (us):", steps, passes);
    for (int j = 0; j <= passes && steps > 0; ++j) {
        int m = 0;
        for (int k = 0; k < steps && m < 4096; ++k) {
            col[m++] = gap[65 * k + j];
        }
        printf(" %s%.1f", j == 0 ? "before " : j == passes ? "after " : "", 1e6 * median(col, m));
    }
    printf("\n");
    free(gap);
    orca_scenario_destroy(sc);
    return 1;
}

int main(int argc, char **argv)
{
    const char *scene = "random";
    double sizes[LIST_MAX] = {100000};
    int size_count = 1, rounds = 5, gaps = 0;
    setup u = {0, 0, 2, 10, 5, 0, NULL};
    for (int a = 1; a < argc; ++a) {
        const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(o, "--scalar") == 0) {
            u.scalar = 1;
            continue;
        }
        if (strcmp(o, "--gaps") == 0) {
            gaps = 1;
            continue;
        }
        if (!v) {
            return usage();
        }
        ++a;
        if (strcmp(o, "--scene") == 0) {
            scene = v;
        } else if (strcmp(o, "--file") == 0) {
            if (orca_scene_file_read(v, &u.file) != ORCA_OK) {
                fprintf(stderr, "orca_serial: %s\n", orca_scene_file_last_error(u.file));
                return 1;
            }
            scene = v;
        } else if (strcmp(o, "--sizes") == 0) {
            size_count = parse_list(v, sizes, LIST_MAX);
        } else if (strcmp(o, "--workers") == 0) {
            u.workers = atoi(v);
        } else if (strcmp(o, "--steps") == 0) {
            u.steps = atoi(v);
        } else if (strcmp(o, "--warmup") == 0) {
            u.warmup = atoi(v);
        } else if (strcmp(o, "--rounds") == 0) {
            rounds = atoi(v);
        } else {
            return usage();
        }
    }
    u.kind = u.file ? 0 : orca_scene_from_name(scene);
    if (u.kind < 0 || size_count < 1 || u.steps < 1 || u.warmup < 0 || rounds < 1 ||
        u.workers < 1 || u.workers > POOL_MAX) {
        return usage();
    }
    pool p;
    if (!pool_start(&p, u.workers)) {
        fprintf(stderr, "orca_serial: cannot start %d threads\n", u.workers);
        return 1;
    }
    printf("orca_serial: scene %s, %d worker%s, %s; %d steps after a %d-step warm-up, %d "
           "round%s; medians\n",
           scene, u.workers, u.workers == 1 ? "" : "s", u.scalar ? "scalar code" : "vector kernels",
           u.steps, u.warmup, rounds, rounds == 1 ? "" : "s");
    printf("%9s %11s %11s %9s %8s %12s %12s %9s %9s\n", "agents", "ms/step", "serial ms",
           "serial %", "passes", "built-in ms", "1 worker ms", "speed-up", "hook/pool");
    double *v = malloc((size_t)rounds * 6 * sizeof *v);
    if (!v) {
        return 1;
    }
    for (int z = 0; z < size_count; ++z) {
        u.agents = (int)sizes[z];
        if (u.file && z > 0) {
            break; /* a file has its own agents */
        }
        double *tt = v, *ts = v + rounds, *sh = v + 2 * rounds, *tb = v + 3 * rounds,
               *t1 = v + 4 * rounds, *pp = v + 5 * rounds;
        uint64_t h0 = 0, h1 = 0, h2 = 0;
        for (int r = 0; r < rounds; ++r) {
            if (!run_case(&u, &p, u.workers, &tt[r], &h0) ||
                !run_case(&u, NULL, u.workers, &tb[r], &h1) ||
                !run_case(&u, NULL, 1, &t1[r], &h2)) {
                return 1;
            }
            if (h0 != h1 || h0 != h2) {
                fprintf(stderr, "orca_serial: the hashes differ (%016llx %016llx %016llx)\n",
                        (unsigned long long)h0, (unsigned long long)h1,
                        (unsigned long long)h2);
                return 1;
            }
            ts[r] = tt[r] - p.parallel_seconds / u.steps;
            sh[r] = ts[r] / tt[r];
            pp[r] = (double)p.passes / u.steps;
        }
        double mt = median(tt, rounds), ms = median(ts, rounds), msh = median(sh, rounds);
        double mb = median(tb, rounds), m1 = median(t1, rounds), mp = median(pp, rounds);
        printf("%9d %11.2f %11.3f %8.2f%% %8.1f %12.2f %12.2f %9.2f %9.3f  %016llx\n", p.agents,
               1e3 * mt, 1e3 * ms, 100 * msh, mp, 1e3 * mb, 1e3 * m1, m1 / mb, mt / mb,
               (unsigned long long)h0);
        if (gaps && !print_gaps(&u, &p)) {
            return 1;
        }
        fflush(stdout);
    }
    free(v);
    orca_scene_file_destroy(u.file);
    pool_stop(&p);
    return 0;
}
