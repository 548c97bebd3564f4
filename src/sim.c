/* SPDX-License-Identifier: MIT */
/* The simulation object: creation and destruction, the workers (the built-in pool or the
 * engine's job system), error messages, running tasks, and the validation of every value
 * against the accepted ranges of docs/limits.md. The files that own the other parts are
 * listed in sim_internal.h. */
#include "sim_internal.h"
#include "sim_peek.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

orca_status orca_fail(const orca_sim *sim, orca_status st, const char *fmt, ...)
{
    orca_sim *s = (orca_sim *)sim; /* the message buffer is not part of the state */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
    return st;
}

void orca_clear_error(const orca_sim *sim)
{
    ((orca_sim *)sim)->error[0] = 0;
}

/* The message of the last refused orca_sim_create on this thread (there is no simulation to
 * hold it). */
static _Thread_local char g_create_error[256];

static orca_status create_fail(orca_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_create_error, sizeof g_create_error, fmt, ap);
    va_end(ap);
    return st;
}

const char *orca_sim_last_error(const orca_sim *sim)
{
    return sim ? sim->error : g_create_error;
}

orca_agent_def orca_agent_def_default(void)
{
    orca_agent_def d;
    memset(&d, 0, sizeof d);
    d.radius = 1.5;
    d.max_speed = 2.0;
    d.neighbor_dist = 15.0;
    d.max_neighbors = 10;
    d.time_horizon = 10.0;
    d.obstacle_time_horizon = 10.0;
    return d;
}

orca_sim_def orca_sim_def_default(void)
{
    orca_sim_def d;
    memset(&d, 0, sizeof d);
    d.worker_count = 1;
    return d;
}

static void workers_free(orca_sim *s)
{
    if (s->workers) {
        for (int w = 0; w < s->worker_count; ++w) {
            worker *k = &s->workers[w];
            orca_mem_free(k->block);
        }
        orca_mem_free(s->workers);
    }
    s->workers = NULL;
    s->worker_agents_cap = -1;
    s->worker_segments_cap = -1;
    s->worker_headway_cap = -1;
}

static orca_status configure_workers(orca_sim *s, int worker_count, int use_callbacks)
{
    worker *ws = orca_mem_zalloc((size_t)worker_count, sizeof *ws);
    if (!ws) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory for %d workers", worker_count);
    }
    orca_pool *pool = NULL;
    if (!use_callbacks && worker_count > 1) {
        int error = 0;
        pool = orca_pool_create(worker_count, &error);
#ifndef ORCA_NO_THREADS
        if (!pool) {
            orca_mem_free(ws);
            if (error) {
                return orca_fail(s, ORCA_ERR_MEMORY,
                            "the system refused a thread (out of memory or threads?) starting %d "
                            "workers: %s error %d",
                            worker_count, ORCA_THREAD_START_NAME, error);
            }
            return orca_fail(s, ORCA_ERR_MEMORY, "out of memory starting %d worker threads",
                        worker_count);
        }
#endif
    }
    workers_free(s);
    orca_pool_destroy(s->pool);
    s->pool = pool;
    s->workers = ws;
    s->worker_count = worker_count;
    return ORCA_OK;
}

/* The identities of the simulations (orca_sim_id): the next one to give, process-wide. */
static atomic_uint_least32_t g_next_sim_id = 1;

static uint32_t next_sim_id(void)
{
    uint32_t id;
    do {
        id = (uint32_t)atomic_fetch_add(&g_next_sim_id, 1); /* wraps modulo 2^32 */
    } while (id == 0); /* 0 is the null handle's */
    return id;
}

uint32_t orca_sim_id(const orca_sim *sim)
{
    return sim ? sim->id : 0;
}

orca_status orca_sim_create(const orca_sim_def *def, orca_sim **out)
{
    if (!out) {
        return create_fail(ORCA_ERR_NULL, "orca_sim_create: out is NULL");
    }
    orca_sim_def d = def ? *def : orca_sim_def_default();
    if (d.worker_count < 1 || d.worker_count > ORCA_MAX_WORKERS) {
        return create_fail(ORCA_ERR_ARGUMENT, "worker_count must be in 1..%d, got %d",
                           ORCA_MAX_WORKERS, d.worker_count);
    }
    if ((d.enqueue == NULL) != (d.finish == NULL)) {
        return create_fail(ORCA_ERR_ARGUMENT,
                           "enqueue and finish must be both set or both NULL, got %s",
                           d.enqueue ? "enqueue without finish" : "finish without enqueue");
    }
    orca_sim *s = orca_mem_zalloc(1, sizeof *s);
    if (!s) {
        return create_fail(ORCA_ERR_MEMORY, "out of memory for a simulation");
    }
    s->agent_slots.free_head = -1;
    s->segment_slots.free_head = -1;
    s->worker_agents_cap = -1;
    s->worker_segments_cap = -1;
    s->worker_headway_cap = -1;
    s->enqueue = d.enqueue;
    s->finish = d.finish;
    s->user_context = d.user_context;
    atomic_init(&s->bad_worker, -1);
    atomic_init(&s->bad_agent, 0);
    atomic_init(&s->step_unchecked_bad, 0);
    s->vector = orca_kernels_available();
    if (configure_workers(s, d.worker_count, d.enqueue != NULL) != ORCA_OK) {
        create_fail(ORCA_ERR_MEMORY, "%s", s->error);
        orca_mem_free(s);
        return ORCA_ERR_MEMORY;
    }
    s->id = next_sim_id();
    g_create_error[0] = 0;
    *out = s;
    return ORCA_OK;
}

void orca_free_agent_arrays(orca_sim *s)
{
    orca_mem_free(s->pos);
    orca_mem_free(s->vel);
    orca_mem_free(s->pref);
    orca_mem_free(s->par);
    orca_mem_free(s->agent_slot);
    orca_mem_free(s->cell_index);
    orca_mem_free(s->cell_pos);
    orca_mem_free(s->cell_vel);
    orca_mem_free(s->cell_radius);
    orca_mem_free(s->rank);
    orca_mem_free(s->ext);
    orca_mem_free(s->cell_ext);
    orca_mem_free(s->cell_layers);
    orca_mem_free(s->diag);
    orca_mem_free(s->dead);
    orca_mem_free(s->stream);
    orca_mem_free(s->cell_pref);
    orca_mem_free(s->cell_stream);
    s->stream = NULL;
    s->stream_count = 0;
    s->cell_pref = NULL;
    s->cell_stream = NULL;
    s->cell_ped_cap = 0;
    s->ext = NULL;
    s->cell_ext = NULL;
    s->cell_layers = NULL;
    s->cell_ext_cap = 0;
    s->diag = NULL;
    s->dead = NULL;
    s->dead_count = s->dead_capacity = 0;
}

void orca_sim_destroy(orca_sim *s)
{
    if (!s) {
        return;
    }
    orca_pool_destroy(s->pool);
    workers_free(s);
    orca_free_agent_arrays(s);
    orca_mem_free(s->pref_next);
    orca_mem_free(s->seg_a);
    orca_mem_free(s->seg_b);
    orca_mem_free(s->segment_slot);
    orca_mem_free(s->seg_dead);
    orca_mem_free(s->obstacle_list);
    orca_boundary_free(s->bnd);
    orca_cell_map_free(&s->agent_cells);
    orca_cell_map_free(&s->obstacle_cells);
    orca_mem_free(s->cell_start);
    orca_slots_free(&s->agent_slots);
    orca_slots_free(&s->segment_slots);
    orca_mem_free(s);
}

orca_status orca_sim_set_worker_count(orca_sim *s, int worker_count)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (worker_count < 1 || worker_count > ORCA_MAX_WORKERS) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "worker count must be in 1..%d, got %d", ORCA_MAX_WORKERS,
                    worker_count);
    }
    if (worker_count == s->worker_count) {
        return ORCA_OK;
    }
    return configure_workers(s, worker_count, s->enqueue != NULL);
}

int orca_sim_get_worker_count(const orca_sim *s)
{
    return s ? s->worker_count : 0;
}

int orca_sim_set_vector_kernels(orca_sim *s, int on)
{
    if (!s) {
        return 0;
    }
    s->vector = on && orca_kernels_available();
    return s->vector;
}

int orca_sim_get_vector_kernels(const orca_sim *s)
{
    return s ? s->vector : 0;
}

/* ---------------------------------------------------------------------------------------
 * Tasks
 * ------------------------------------------------------------------------------------- */

/* Runs fn over [0, count): on the engine's job system (in ranges of at least min_range
 * items), the built-in pool or the caller. */
void orca_run_task_ranged(orca_sim *s, orca_task_fn *fn, int count, int min_range, void *ctx)
{
    if (s->enqueue) {
        void *t = s->enqueue(fn, count, min_range, ctx, s->user_context);
        if (t) {
            s->finish(t, s->user_context);
        }
    } else if (s->pool) {
        orca_pool_run(s->pool, fn, count, ctx);
    } else {
        fn(0, count, 0, ctx);
    }
}

/* Per-agent work: ranges of at least 64 agents. */
void orca_run_task(orca_sim *s, orca_task_fn *fn, int count, void *ctx)
{
    orca_run_task_ranged(s, fn, count, 64, ctx);
}

void orca_sim_run_heavy(orca_sim *s, orca_task_fn *fn, int count, void *ctx)
{
    if (count > 0) {
        orca_run_task_ranged(s, fn, count, 1, ctx);
    }
}

void orca_run_light_task(orca_sim *s, orca_task_fn *fn, int count, void *ctx)
{
    if (count < LIGHT_TASK_MIN) {
        fn(0, count, 0, ctx);
    } else {
        orca_run_task(s, fn, count, ctx);
    }
}

orca_status orca_sim_run_task(orca_sim *s, orca_task_fn *fn, int count, void *context)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (!fn) {
        return orca_fail(s, ORCA_ERR_NULL, "task function is NULL");
    }
    if (count < 0) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "task item count must be >= 0, got %d", count);
    }
    orca_agents_settle(s); /* fn may read agents by index */
    if (count > 0) {
        orca_run_task(s, fn, count, context);
    }
    return ORCA_OK;
}

/* ---------------------------------------------------------------------------------------
 * Validation
 * ------------------------------------------------------------------------------------- */

/* The accepted ranges (sim.h; docs/limits.md derives them). Each comparison is false for
 * NaN, so NaN is refused with the range; infinities are outside every range. */
orca_status orca_check_coord(const orca_sim *s, const char *what, orca_vec2 p)
{
    if (!(d_abs(p.x) < ORCA_COORD_LIMIT)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "%s.x must be finite with magnitude below 2^21, got %.17g",
                    what, p.x);
    }
    if (!(d_abs(p.y) < ORCA_COORD_LIMIT)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "%s.y must be finite with magnitude below 2^21, got %.17g",
                    what, p.y);
    }
    return ORCA_OK;
}

orca_status orca_fail_preferred(const orca_sim *s, int index, orca_vec2 v)
{
    return orca_fail(s, ORCA_ERR_ARGUMENT,
                     "preferred velocity of agent %d must be finite with components of magnitude "
                     "at most 2^31, got (%.17g, %.17g)",
                     index, v.x, v.y);
}

orca_status orca_check_vector(const orca_sim *s, const char *what, orca_vec2 v)
{
    if (!(d_abs(v.x) <= ORCA_VELOCITY_LIMIT)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "%s.x must be finite with magnitude at most 2^31, got %.17g",
                    what, v.x);
    }
    if (!(d_abs(v.y) <= ORCA_VELOCITY_LIMIT)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "%s.y must be finite with magnitude at most 2^31, got %.17g",
                    what, v.y);
    }
    return ORCA_OK;
}

/* lo <= x <= hi; range is the interval as the message gives it ("[2^-30, 2^30]"). */
static orca_status check_range(const orca_sim *s, const char *what, double x, double lo,
                               double hi, const char *range)
{
    if (!(x >= lo && x <= hi)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "%s must be in %s, got %.17g", what, range, x);
    }
    return ORCA_OK;
}

orca_status orca_check_dt(const orca_sim *s, double dt)
{
    return check_range(s, "dt", dt, ORCA_TIME_MIN, ORCA_TIME_MAX, "[2^-30, 2^30] s");
}

orca_status orca_check_agent_def(const orca_sim *s, const orca_agent_def *d)
{
    orca_status st;
    if ((st = orca_check_coord(s, "position", d->position)) != ORCA_OK ||
        (st = orca_check_vector(s, "velocity", d->velocity)) != ORCA_OK ||
        (st = orca_check_vector(s, "preferred_velocity", d->preferred_velocity)) != ORCA_OK ||
        (st = check_range(s, "radius", d->radius, ORCA_RADIUS_MIN, ORCA_RADIUS_MAX,
                          "[2^-30, 2^21] m")) != ORCA_OK ||
        (st = check_range(s, "max_speed", d->max_speed, 0, ORCA_SPEED_MAX, "[0, 2^30] m/s")) !=
            ORCA_OK ||
        (st = check_range(s, "neighbor_dist", d->neighbor_dist, 0, ORCA_NEIGHBOR_DIST_MAX,
                          "[0, 2^23] m")) != ORCA_OK) {
        return st;
    }
    if (d->max_neighbors < 0 || d->max_neighbors > ORCA_MAX_NEIGHBORS_LIMIT) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "max_neighbors must be in 0..%d, got %d",
                    ORCA_MAX_NEIGHBORS_LIMIT, d->max_neighbors);
    }
    if ((st = check_range(s, "time_horizon", d->time_horizon, ORCA_TIME_MIN, ORCA_TIME_MAX,
                          "[2^-30, 2^30] s")) != ORCA_OK ||
        (st = check_range(s, "obstacle_time_horizon", d->obstacle_time_horizon, ORCA_TIME_MIN,
                          ORCA_TIME_MAX, "[2^-30, 2^30] s")) != ORCA_OK) {
        return st;
    }
    return ORCA_OK;
}
