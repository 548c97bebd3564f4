/* SPDX-License-Identifier: MIT */
/* The simulator: neighbours and constraint order, and the step (docs/algorithm.md §11 and
 * §12). The constraints are built and solved by exactly the functions of solver.c.
 *
 * Layout: agents are stored in index order (the order that breaks distance ties): positions,
 * velocities and preferred velocities as arrays (the bulk accessors hand them out), the other
 * parameters as one record per agent; segments likewise. Handles map to indices through
 * slot tables. Each step builds a uniform grid of agents (dense cells of half the
 * largest neighbour distance or pair of radii, or hashed cells of the whole of it for sparse
 * scenes; see build_agent_grid) and, when needed, a grid of segments; the grids only find
 * candidates: the chosen set and its order come from the (squared distance, index) order
 * alone. */
#include "orca/sim.h"

#include "orca/solver.h"
#include "alloc.h"
#include "kernels.h"
#include "pool.h"
#include "sim_check.h"
#include "vec.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#define PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#else
#define PREFETCH(p) ((void)(p))
#define PREFETCH_WRITE(p) ((void)(p))
#endif

/* ---------------------------------------------------------------------------------------
 * Slot tables: handle -> index, with generations to detect stale handles
 * ------------------------------------------------------------------------------------- */

typedef struct slot_table {
    uint32_t *generation; /* current generation of each slot (>= 1) */
    int32_t *index;       /* dense index of the live object, -1 when free */
    int32_t *next_free;   /* free list link, -1 at the end */
    int32_t free_head;
    int32_t count;
    int32_t capacity;
} slot_table;

static void slots_free(slot_table *t)
{
    orca_mem_free(t->generation);
    orca_mem_free(t->index);
    orca_mem_free(t->next_free);
    memset(t, 0, sizeof *t);
    t->free_head = -1;
}

static int slots_reserve(slot_table *t, int32_t need)
{
    if (need <= t->capacity) {
        return 1;
    }
    int32_t cap = t->capacity ? t->capacity : 16;
    while (cap < need) {
        cap = cap > (1 << 29) ? need : cap * 2;
    }
    uint32_t *g = orca_mem_resize(t->generation, (size_t)cap, sizeof *g);
    if (!g) {
        return 0;
    }
    t->generation = g;
    int32_t *ix = orca_mem_resize(t->index, (size_t)cap, sizeof *ix);
    if (!ix) {
        return 0;
    }
    t->index = ix;
    int32_t *nf = orca_mem_resize(t->next_free, (size_t)cap, sizeof *nf);
    if (!nf) {
        return 0;
    }
    t->next_free = nf;
    t->capacity = cap;
    return 1;
}

/* The slot a new object will take (reserve first). */
static int32_t slots_peek(const slot_table *t)
{
    return t->free_head >= 0 ? t->free_head : t->count;
}

static void slots_take(slot_table *t, int32_t slot, int32_t index)
{
    if (slot == t->free_head) {
        t->free_head = t->next_free[slot];
    } else {
        t->generation[slot] = 1;
        t->count = slot + 1;
    }
    t->index[slot] = index;
    t->next_free[slot] = -1;
}

static void slots_release(slot_table *t, int32_t slot)
{
    t->index[slot] = -1;
    uint32_t g = t->generation[slot] + 1;
    t->generation[slot] = g == 0 ? 1 : g;
    t->next_free[slot] = t->free_head;
    t->free_head = slot;
}

/* After the dense object at index i of n was removed and the arrays shifted down: frees its
 * slot and points the slots of the objects that moved at their new indices. */
static void slots_after_removal(slot_table *t, uint32_t slot, const uint32_t *dense, int32_t i,
                                int32_t n)
{
    slots_release(t, (int32_t)slot);
    for (int32_t k = i; k < n - 1; ++k) {
        t->index[dense[k]] = k;
    }
}

static int32_t slots_lookup(const slot_table *t, uint32_t slot, uint32_t generation)
{
    if (generation == 0 || slot >= (uint32_t)t->count || t->generation[slot] != generation) {
        return -1;
    }
    return t->index[slot];
}

/* ---------------------------------------------------------------------------------------
 * Cell maps: grid cell key -> a range of a sorted array (open addressing, lookup only; the
 * iteration order of the map never decides a result)
 * ------------------------------------------------------------------------------------- */

/* Grid queries widen their radius by a relative margin far above the rounding of the cell
 * arithmetic, plus this absolute one: a squared distance that underflows (|d| < 2^-537)
 * says nothing about the distance, so agents and segments that close must still be found. */
#define MARGIN_ABS 0x1p-530

#define CELL_EMPTY UINT64_MAX
#define CELL_LIMIT 1073741824.0 /* 2^30: cell coordinates are clamped to +-this */

typedef struct cell_map {
    uint64_t *keys;
    int32_t *start;
    int32_t *count;
    uint32_t mask; /* capacity - 1 */
} cell_map;

static void cell_map_free(cell_map *m)
{
    orca_mem_free(m->keys);
    orca_mem_free(m->start);
    orca_mem_free(m->count);
    memset(m, 0, sizeof *m);
}

/* Empties the map and sizes it for `entries` cells (at most 2^30); 0 when out of memory. */
static int cell_map_reset(cell_map *m, int entries)
{
    uint64_t need = (uint64_t)entries * 2u + 2u, cap = 16;
    while (cap < need) {
        cap *= 2;
    }
    if (cap > ((uint64_t)1 << 31)) {
        return 0; /* the mask is 32 bits and the loops below count up to it */
    }
    if (cap != (uint64_t)m->mask + 1 || !m->keys) {
        cell_map_free(m);
        m->keys = orca_mem_alloc((size_t)cap, sizeof *m->keys);
        m->start = orca_mem_alloc((size_t)cap, sizeof *m->start);
        m->count = orca_mem_alloc((size_t)cap, sizeof *m->count);
        if (!m->keys || !m->start || !m->count) {
            cell_map_free(m);
            return 0;
        }
        m->mask = (uint32_t)(cap - 1);
    }
    for (uint32_t i = 0; i <= m->mask; ++i) {
        m->keys[i] = CELL_EMPTY;
    }
    return 1;
}

static uint32_t cell_hash(uint64_t key, uint32_t mask)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* The map slot of key, inserting it (count 0) when absent. */
static uint32_t cell_map_insert(cell_map *m, uint64_t key)
{
    uint32_t h = cell_hash(key, m->mask);
    while (m->keys[h] != key) {
        if (m->keys[h] == CELL_EMPTY) {
            m->keys[h] = key;
            m->count[h] = 0;
            m->start[h] = 0;
            return h;
        }
        h = (h + 1) & m->mask;
    }
    return h;
}

static int64_t cell_map_find(const cell_map *m, uint64_t key)
{
    uint32_t h = cell_hash(key, m->mask);
    for (;;) {
        uint64_t k = m->keys[h];
        if (k == key) {
            return h;
        }
        if (k == CELL_EMPTY) {
            return -1;
        }
        h = (h + 1) & m->mask;
    }
}

/* Cell coordinate of x: floor(x * inv), inv = 1 / cell, clamped to +-2^30 (monotone, so
 * two points within one cell width stay in adjacent cells), NaN to the lower clamp. Every
 * grid computes its cells with this one function and its own inv, at build and at query. */
static int32_t cell_coord(double x, double inv)
{
    double q = x * inv;
    if (!(q > -CELL_LIMIT)) {
        return -(int32_t)CELL_LIMIT;
    }
    if (q > CELL_LIMIT) {
        return (int32_t)CELL_LIMIT;
    }
    int32_t t = (int32_t)q; /* truncation toward zero */
    if ((double)t > q) {
        --t;
    }
    return t;
}

static uint64_t cell_key(int32_t cx, int32_t cy)
{
    /* cx, cy in [-2^30 - 1, 2^30 + 1]: the offsets make both halves positive and below 2^32,
     * so no key equals CELL_EMPTY */
    return ((uint64_t)((int64_t)cx + 2 + (int64_t)CELL_LIMIT) << 32) |
           (uint64_t)((int64_t)cy + 2 + (int64_t)CELL_LIMIT);
}

/* ---------------------------------------------------------------------------------------
 * The simulation object
 * ------------------------------------------------------------------------------------- */

/* Per agent, index order. */
typedef struct agent_params {
    double radius, max_speed, neighbor_dist, tau, tau_obst;
    int32_t max_neighbors;
    float nb_guess; /* a search-radius hint (select_agents); not state */
} agent_params;

/* What the agent grid is sized by: the agents' bounding box, the largest cell need
 * (neighbour distance or twice the radius), obstacle reach and list capacity. */
typedef struct grid_bounds {
    double cmax, lox, loy, hix, hiy, reach;
    int max_nb;
    int any; /* 0 until the first agent */
} grid_bounds;

typedef struct worker {
    neighbor *agents;  /* capacity: the largest max_neighbors */
    neighbor *obstacles; /* capacity: the segment count */
    orca_halfplane *planes;  /* capacity: segments + largest max_neighbors */
    orca_halfplane *scratch; /* same */
    uint32_t *stamp;   /* per segment: the last query that saw it */
    cand_buf *cand;    /* the hinted search's candidates (next to agents: see workers_reserve) */
    void *block;       /* the one allocation behind the six buffers above */
    uint32_t query;
    int fallbacks;
    grid_bounds bounds; /* this worker's part of the grid's bounds (bounds_task) */
    char pad[64]; /* workers write their own counters: keep them off each other's cache lines */
} worker;

struct orca_sim {
    /* agents, index order */
    int32_t agent_count, agent_capacity;
    orca_vec2 *pos, *vel, *pref;
    agent_params *par; /* the rest of each agent's parameters, together: the step reads
                          them in one or two cache lines */
    uint32_t *agent_slot;
    slot_table agent_slots;

    /* segments, index order */
    int32_t segment_count, segment_capacity;
    orca_vec2 *seg_a, *seg_b;
    uint32_t *segment_slot;
    slot_table segment_slots;

    /* agent grid (a cache of the current state): agents sorted by cell, with copies of what
     * the neighbour loops read, in that order, so that they stream through memory */
    int grid_valid;
    int grid_dense;         /* 1: dense row-major cells of size cell; 0: hashed cells */
    double cell, inv_cell, origin_x, origin_y;
    int32_t grid_w, grid_h;
    int32_t *cell_start;    /* dense: w*h + 1 prefix sums */
    size_t cell_start_cap;
    int32_t *rank;          /* per agent: its position in the sorted order */
    int32_t *cell_index;    /* sorted position -> agent index */
    orca_vec2 *cell_pos, *cell_vel;
    double *cell_radius;
#ifdef ORCA_HAVE_AVX
    box_grid box;           /* dense: the grid as the vector box search reads it */
#endif
    cell_map agent_cells;   /* hashed: cell -> range */
    double max_reach;       /* largest obstacle reach (horizon * speed + radius) */
    int max_nb;             /* largest max_neighbors */

    /* segment grid */
    int obstacle_grid_valid;
    double obstacle_cell, inv_obstacle_cell;
    int32_t *obstacle_list; /* segment indices by cell */
    int32_t obstacle_list_len;
    cell_map obstacle_cells;

    /* workers */
    int worker_count;
    worker *workers;
    int worker_agents_cap, worker_segments_cap;
    orca_pool *pool;
    orca_enqueue_fn *enqueue;
    orca_finish_fn *finish;
    void *user_context;
    atomic_int bad_worker;
    atomic_int bad_agent; /* the lowest index whose new velocity failed the step's check */

    int vector; /* 1: the vector kernels (kernels.h) run in the step */

    uint64_t steps;
    int last_fallbacks;
    char error[512];
};

static orca_status fail(const orca_sim *sim, orca_status st, const char *fmt, ...)
{
    orca_sim *s = (orca_sim *)sim; /* the message buffer is not part of the state */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
    return st;
}

static void clear_error(const orca_sim *sim)
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
}

static orca_status configure_workers(orca_sim *s, int worker_count, int use_callbacks)
{
    worker *ws = orca_mem_zalloc((size_t)worker_count, sizeof *ws);
    if (!ws) {
        return fail(s, ORCA_ERR_MEMORY, "out of memory for %d workers", worker_count);
    }
    orca_pool *pool = NULL;
    if (!use_callbacks && worker_count > 1) {
        int error = 0;
        pool = orca_pool_create(worker_count, &error);
#ifndef ORCA_NO_THREADS
        if (!pool) {
            orca_mem_free(ws);
            if (error) {
                return fail(s, ORCA_ERR_MEMORY,
                            "the system refused a thread (out of memory or threads?) starting %d "
                            "workers: pthread_create error %d",
                            worker_count, error);
            }
            return fail(s, ORCA_ERR_MEMORY, "out of memory starting %d worker threads",
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
    s->enqueue = d.enqueue;
    s->finish = d.finish;
    s->user_context = d.user_context;
    atomic_init(&s->bad_worker, -1);
    atomic_init(&s->bad_agent, 0);
    s->vector = orca_kernels_available();
    if (configure_workers(s, d.worker_count, d.enqueue != NULL) != ORCA_OK) {
        create_fail(ORCA_ERR_MEMORY, "%s", s->error);
        orca_mem_free(s);
        return ORCA_ERR_MEMORY;
    }
    g_create_error[0] = 0;
    *out = s;
    return ORCA_OK;
}

static void free_agent_arrays(orca_sim *s)
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
}

void orca_sim_destroy(orca_sim *s)
{
    if (!s) {
        return;
    }
    orca_pool_destroy(s->pool);
    workers_free(s);
    free_agent_arrays(s);
    orca_mem_free(s->seg_a);
    orca_mem_free(s->seg_b);
    orca_mem_free(s->segment_slot);
    orca_mem_free(s->obstacle_list);
    cell_map_free(&s->agent_cells);
    cell_map_free(&s->obstacle_cells);
    orca_mem_free(s->cell_start);
    slots_free(&s->agent_slots);
    slots_free(&s->segment_slots);
    orca_mem_free(s);
}

orca_status orca_sim_set_worker_count(orca_sim *s, int worker_count)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    clear_error(s);
    if (worker_count < 1 || worker_count > ORCA_MAX_WORKERS) {
        return fail(s, ORCA_ERR_ARGUMENT, "worker count must be in 1..%d, got %d", ORCA_MAX_WORKERS,
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
 * Validation
 * ------------------------------------------------------------------------------------- */

static int finite(double x)
{
    return x - x == 0;
}

/* The accepted ranges (sim.h; docs/limits.md derives them). Each comparison is false for
 * NaN, so NaN is refused with the range; infinities are outside every range. */
static orca_status check_coord(const orca_sim *s, const char *what, orca_vec2 p)
{
    if (!(d_abs(p.x) < ORCA_COORD_LIMIT)) {
        return fail(s, ORCA_ERR_ARGUMENT, "%s.x must be finite with magnitude below 2^21, got %.17g",
                    what, p.x);
    }
    if (!(d_abs(p.y) < ORCA_COORD_LIMIT)) {
        return fail(s, ORCA_ERR_ARGUMENT, "%s.y must be finite with magnitude below 2^21, got %.17g",
                    what, p.y);
    }
    return ORCA_OK;
}

static orca_status check_vector(const orca_sim *s, const char *what, orca_vec2 v)
{
    if (!(d_abs(v.x) <= ORCA_VELOCITY_LIMIT)) {
        return fail(s, ORCA_ERR_ARGUMENT, "%s.x must be finite with magnitude at most 2^31, got %.17g",
                    what, v.x);
    }
    if (!(d_abs(v.y) <= ORCA_VELOCITY_LIMIT)) {
        return fail(s, ORCA_ERR_ARGUMENT, "%s.y must be finite with magnitude at most 2^31, got %.17g",
                    what, v.y);
    }
    return ORCA_OK;
}

/* lo <= x <= hi; range is the interval as the message gives it ("[2^-30, 2^30]"). */
static orca_status check_range(const orca_sim *s, const char *what, double x, double lo,
                               double hi, const char *range)
{
    if (!(x >= lo && x <= hi)) {
        return fail(s, ORCA_ERR_ARGUMENT, "%s must be in %s, got %.17g", what, range, x);
    }
    return ORCA_OK;
}

static orca_status check_dt(const orca_sim *s, double dt)
{
    return check_range(s, "dt", dt, ORCA_TIME_MIN, ORCA_TIME_MAX, "[2^-30, 2^30] s");
}

static orca_status check_agent_def(const orca_sim *s, const orca_agent_def *d)
{
    orca_status st;
    if ((st = check_coord(s, "position", d->position)) != ORCA_OK ||
        (st = check_vector(s, "velocity", d->velocity)) != ORCA_OK ||
        (st = check_vector(s, "preferred_velocity", d->preferred_velocity)) != ORCA_OK ||
        (st = check_range(s, "radius", d->radius, ORCA_RADIUS_MIN, ORCA_RADIUS_MAX,
                          "[2^-30, 2^21] m")) != ORCA_OK ||
        (st = check_range(s, "max_speed", d->max_speed, 0, ORCA_SPEED_MAX, "[0, 2^30] m/s")) !=
            ORCA_OK ||
        (st = check_range(s, "neighbor_dist", d->neighbor_dist, 0, ORCA_NEIGHBOR_DIST_MAX,
                          "[0, 2^23] m")) != ORCA_OK) {
        return st;
    }
    if (d->max_neighbors < 0 || d->max_neighbors > ORCA_MAX_NEIGHBORS_LIMIT) {
        return fail(s, ORCA_ERR_ARGUMENT, "max_neighbors must be in 0..%d, got %d",
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

/* ---------------------------------------------------------------------------------------
 * Agents
 * ------------------------------------------------------------------------------------- */

#define GROW(ptr, cap)                                                                  \
    do {                                                                                \
        void *p_ = orca_mem_resize((ptr), (size_t)(cap), sizeof *(ptr));                 \
        if (!p_) {                                                                      \
            return 0;                                                                   \
        }                                                                               \
        (ptr) = p_;                                                                     \
    } while (0)

static int agents_reserve(orca_sim *s, int32_t need)
{
    if (need <= s->agent_capacity) {
        return 1;
    }
    int32_t cap = s->agent_capacity ? s->agent_capacity : 64;
    while (cap < need) {
        cap = cap > (1 << 29) ? need : cap * 2;
    }
    GROW(s->pos, cap);
    GROW(s->vel, cap);
    GROW(s->pref, cap);
    GROW(s->par, cap);
    GROW(s->agent_slot, cap);
    GROW(s->cell_index, cap);
    /* the vector filter reads positions in groups of four, up to CELL_POS_PAD past the last
     * agent: zeroed padding */
    GROW(s->cell_pos, (size_t)cap + CELL_POS_PAD);
    memset(s->cell_pos + s->agent_capacity, 0,
           ((size_t)cap + CELL_POS_PAD - (size_t)s->agent_capacity) * sizeof *s->cell_pos);
    GROW(s->cell_vel, cap);
    GROW(s->cell_radius, cap);
    GROW(s->rank, cap);
    s->agent_capacity = cap;
    return 1;
}

static void agent_store(orca_sim *s, int32_t i, const orca_agent_def *d)
{
    s->pos[i] = d->position;
    s->vel[i] = d->velocity;
    s->pref[i] = d->preferred_velocity;
    s->par[i].radius = d->radius;
    s->par[i].max_speed = d->max_speed;
    s->par[i].neighbor_dist = d->neighbor_dist;
    s->par[i].max_neighbors = d->max_neighbors;
    s->par[i].tau = d->time_horizon;
    s->par[i].tau_obst = d->obstacle_time_horizon;
}

static void agent_load(const orca_sim *s, int32_t i, orca_agent_def *d)
{
    d->position = s->pos[i];
    d->velocity = s->vel[i];
    d->preferred_velocity = s->pref[i];
    d->radius = s->par[i].radius;
    d->max_speed = s->par[i].max_speed;
    d->neighbor_dist = s->par[i].neighbor_dist;
    d->max_neighbors = s->par[i].max_neighbors;
    d->time_horizon = s->par[i].tau;
    d->obstacle_time_horizon = s->par[i].tau_obst;
}

orca_status orca_sim_add_agent(orca_sim *s, const orca_agent_def *def, orca_agent_id *out)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    clear_error(s);
    if (!def) {
        return fail(s, ORCA_ERR_NULL, "agent definition is NULL");
    }
    orca_status st = check_agent_def(s, def);
    if (st != ORCA_OK) {
        return st;
    }
    if (s->agent_count >= (1 << 30)) {
        return fail(s, ORCA_ERR_LIMIT, "too many agents (%d)", s->agent_count);
    }
    int32_t n = s->agent_count;
    if (!agents_reserve(s, n + 1) || !slots_reserve(&s->agent_slots, s->agent_slots.count + 1)) {
        return fail(s, ORCA_ERR_MEMORY, "out of memory adding agent %d", n);
    }
    int32_t slot = slots_peek(&s->agent_slots);
    slots_take(&s->agent_slots, slot, n);
    agent_store(s, n, def);
    s->agent_slot[n] = (uint32_t)slot;
    s->par[n].nb_guess = 0;
    s->agent_count = n + 1;
    s->grid_valid = 0;
    if (out) {
        out->slot = (uint32_t)slot;
        out->generation = s->agent_slots.generation[slot];
    }
    return ORCA_OK;
}

static int32_t agent_lookup(const orca_sim *s, orca_agent_id id)
{
    return slots_lookup(&s->agent_slots, id.slot, id.generation);
}

#define AGENT_OR_FAIL(s, id, i)                                                           \
    if (!(s)) {                                                                         \
        return ORCA_ERR_NULL;                                                           \
    }                                                                                   \
    clear_error(s);                                                                     \
    int32_t i = agent_lookup((s), (id));                                                \
    if (i < 0) {                                                                        \
        return fail((s), ORCA_ERR_STALE, "agent handle {slot %u, generation %u} is stale", \
                    (unsigned)(id).slot, (unsigned)(id).generation);                      \
    }

orca_status orca_sim_remove_agent(orca_sim *s, orca_agent_id id)
{
    AGENT_OR_FAIL(s, id, i);
    int32_t n = s->agent_count;
    size_t tail = (size_t)(n - i - 1);
#define SHIFT(arr) memmove(&(arr)[i], &(arr)[i + 1], tail * sizeof *(arr))
    SHIFT(s->pos);
    SHIFT(s->vel);
    SHIFT(s->pref);
    SHIFT(s->par);
    SHIFT(s->agent_slot);
#undef SHIFT
    slots_after_removal(&s->agent_slots, id.slot, s->agent_slot, i, n);
    s->agent_count = n - 1;
    s->grid_valid = 0;
    return ORCA_OK;
}

int orca_sim_agent_count(const orca_sim *s)
{
    return s ? s->agent_count : 0;
}

orca_agent_id orca_sim_agent_at(const orca_sim *s, int index)
{
    orca_agent_id id = {0, 0};
    if (s && index >= 0 && index < s->agent_count) {
        id.slot = s->agent_slot[index];
        id.generation = s->agent_slots.generation[id.slot];
    }
    return id;
}

int orca_sim_agent_index(const orca_sim *s, orca_agent_id id)
{
    return s ? agent_lookup(s, id) : -1;
}

orca_status orca_agent_get(const orca_sim *s, orca_agent_id id, orca_agent_def *out)
{
    AGENT_OR_FAIL(s, id, i);
    if (!out) {
        return fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    agent_load(s, i, out);
    return ORCA_OK;
}

orca_status orca_agent_set(orca_sim *s, orca_agent_id id, const orca_agent_def *def)
{
    AGENT_OR_FAIL(s, id, i);
    if (!def) {
        return fail(s, ORCA_ERR_NULL, "agent definition is NULL");
    }
    orca_status st = check_agent_def(s, def);
    if (st != ORCA_OK) {
        return st;
    }
    agent_store(s, i, def);
    s->grid_valid = 0;
    return ORCA_OK;
}

orca_status orca_agent_set_position(orca_sim *s, orca_agent_id id, orca_vec2 position)
{
    AGENT_OR_FAIL(s, id, i);
    orca_status st = check_coord(s, "position", position);
    if (st != ORCA_OK) {
        return st;
    }
    s->pos[i] = position;
    s->grid_valid = 0;
    return ORCA_OK;
}

orca_status orca_agent_set_velocity(orca_sim *s, orca_agent_id id, orca_vec2 velocity)
{
    AGENT_OR_FAIL(s, id, i);
    orca_status st = check_vector(s, "velocity", velocity);
    if (st != ORCA_OK) {
        return st;
    }
    s->vel[i] = velocity;
    if (s->grid_valid) {
        s->cell_vel[s->rank[i]] = velocity; /* keep the grid's copy */
    }
    return ORCA_OK;
}

orca_status orca_agent_set_preferred_velocity(orca_sim *s, orca_agent_id id, orca_vec2 v)
{
    AGENT_OR_FAIL(s, id, i);
    orca_status st = check_vector(s, "preferred_velocity", v);
    if (st != ORCA_OK) {
        return st;
    }
    s->pref[i] = v;
    return ORCA_OK;
}

orca_status orca_agent_get_position(const orca_sim *s, orca_agent_id id, orca_vec2 *out)
{
    AGENT_OR_FAIL(s, id, i);
    if (!out) {
        return fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    *out = s->pos[i];
    return ORCA_OK;
}

orca_status orca_agent_get_velocity(const orca_sim *s, orca_agent_id id, orca_vec2 *out)
{
    AGENT_OR_FAIL(s, id, i);
    if (!out) {
        return fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    *out = s->vel[i];
    return ORCA_OK;
}

const orca_vec2 *orca_sim_positions(const orca_sim *s)
{
    return s ? s->pos : NULL;
}

static void run_light_task(orca_sim *s, orca_task_fn *fn, int count, void *ctx);

typedef struct swap_ctx {
    orca_sim *sim;
    orca_vec2 *v;
    atomic_int first_bad; /* the lowest index with a value out of range, or count */
} swap_ctx;

/* Exchanges the two arrays' entries [begin, end) and checks the new preferred velocities
 * on the way (|x|, |y| <= 2^31, NaN refused), without branches. A range with a bad value is
 * searched again for its first one (the minimum over all ranges: the same index in any
 * split). The exchange is done in full either way; the caller undoes it (swap_task) when any
 * value was bad, which restores both arrays whatever the split. */
static void swap_check_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    swap_ctx *c = context;
    orca_sim *s = c->sim;
    /* Non-negative doubles are ordered as their bit patterns, with infinities and NaNs above
     * every finite value: |x| > 2^31 or NaN exactly when bits(|x|) > bits(2^31), and then
     * adding 2^63 - 1 - bits(2^31) carries into bit 63. Integer and, add and or: the loop
     * vectorizes. */
    const uint64_t abs_mask = 0x7fffffffffffffffull, carry = abs_mask - 0x41e0000000000000ull;
    uint64_t acc = 0;
    for (int i = begin; i < end; ++i) {
        orca_vec2 t = s->pref[i], u = c->v[i];
        uint64_t bx, by;
        memcpy(&bx, &u.x, sizeof bx);
        memcpy(&by, &u.y, sizeof by);
        acc |= ((bx & abs_mask) + carry) | ((by & abs_mask) + carry);
        s->pref[i] = u;
        c->v[i] = t;
    }
    if (!(acc >> 63)) {
        return;
    }
    for (int i = begin; i < end; ++i) {
        if (!(d_mag(s->pref[i].x) <= ORCA_VELOCITY_LIMIT) ||
            !(d_mag(s->pref[i].y) <= ORCA_VELOCITY_LIMIT)) {
            int cur = atomic_load(&c->first_bad);
            while (i < cur && !atomic_compare_exchange_weak(&c->first_bad, &cur, i)) {
            }
            return;
        }
    }
}

/* Exchanges the two arrays' entries [begin, end). */
static void swap_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    swap_ctx *c = context;
    orca_sim *s = c->sim;
    for (int i = begin; i < end; ++i) {
        orca_vec2 t = s->pref[i];
        s->pref[i] = c->v[i];
        c->v[i] = t;
    }
}

orca_status orca_sim_swap_preferred_velocities(orca_sim *s, orca_vec2 *v, int count)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    clear_error(s);
    if (!v && count > 0) {
        return fail(s, ORCA_ERR_NULL, "preferred velocities pointer is NULL");
    }
    if (count != s->agent_count) {
        return fail(s, ORCA_ERR_ARGUMENT, "%d preferred velocities for %d agents", count,
                    s->agent_count);
    }
    swap_ctx c;
    c.sim = s;
    c.v = v;
    atomic_init(&c.first_bad, count);
    run_light_task(s, swap_check_task, count, &c);
    int bad = atomic_load(&c.first_bad);
    if (bad < count) {
        run_light_task(s, swap_task, count, &c); /* back as they were */
        return fail(s, ORCA_ERR_ARGUMENT,
                    "preferred velocity of agent %d must be finite with components of magnitude "
                    "at most 2^31, got (%.17g, %.17g)",
                    bad, v[bad].x, v[bad].y);
    }
    return ORCA_OK;
}

/* ---------------------------------------------------------------------------------------
 * Segments
 * ------------------------------------------------------------------------------------- */

static int segments_reserve(orca_sim *s, int32_t need)
{
    if (need <= s->segment_capacity) {
        return 1;
    }
    int32_t cap = s->segment_capacity ? s->segment_capacity : 16;
    while (cap < need) {
        cap = cap > (1 << 29) ? need : cap * 2;
    }
    GROW(s->seg_a, cap);
    GROW(s->seg_b, cap);
    GROW(s->segment_slot, cap);
    s->segment_capacity = cap;
    return 1;
}

static orca_status segments_add(orca_sim *s, const orca_vec2 *a, const orca_vec2 *b, int n,
                                orca_segment_id *ids)
{
    if (s->segment_count > (1 << 28) - n) {
        return fail(s, ORCA_ERR_LIMIT, "too many segments (%d + %d)", s->segment_count, n);
    }
    if (!segments_reserve(s, s->segment_count + n) ||
        !slots_reserve(&s->segment_slots, s->segment_slots.count + n)) {
        return fail(s, ORCA_ERR_MEMORY, "out of memory adding %d segments", n);
    }
    for (int k = 0; k < n; ++k) {
        int32_t idx = s->segment_count;
        int32_t slot = slots_peek(&s->segment_slots);
        slots_take(&s->segment_slots, slot, idx);
        s->seg_a[idx] = a[k];
        s->seg_b[idx] = b[k];
        s->segment_slot[idx] = (uint32_t)slot;
        s->segment_count = idx + 1;
        if (ids) {
            ids[k].slot = (uint32_t)slot;
            ids[k].generation = s->segment_slots.generation[slot];
        }
    }
    s->obstacle_grid_valid = 0;
    return ORCA_OK;
}

orca_status orca_sim_add_segment(orca_sim *s, orca_vec2 a, orca_vec2 b, orca_segment_id *out)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    clear_error(s);
    orca_status st;
    if ((st = check_coord(s, "segment start", a)) != ORCA_OK ||
        (st = check_coord(s, "segment end", b)) != ORCA_OK) {
        return st;
    }
    return segments_add(s, &a, &b, 1, out);
}

orca_status orca_sim_add_polyline(orca_sim *s, const orca_vec2 *points, int count, int closed,
                                  orca_segment_id *ids)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    clear_error(s);
    if (!points) {
        return fail(s, ORCA_ERR_NULL, "points is NULL");
    }
    if (count < 2 || count > (1 << 26)) {
        return fail(s, ORCA_ERR_ARGUMENT, "a polyline needs 2..2^26 points, got %d", count);
    }
    for (int k = 0; k < count; ++k) {
        char what[48];
        snprintf(what, sizeof what, "point %d", k);
        orca_status st = check_coord(s, what, points[k]);
        if (st != ORCA_OK) {
            return st;
        }
    }
    int n = closed ? count : count - 1;
    orca_vec2 *a = orca_mem_alloc((size_t)n, sizeof *a);
    orca_vec2 *b = orca_mem_alloc((size_t)n, sizeof *b);
    orca_status st;
    if (!a || !b) {
        st = fail(s, ORCA_ERR_MEMORY, "out of memory for %d segments", n);
    } else {
        for (int k = 0; k < n; ++k) {
            a[k] = points[k];
            b[k] = points[(k + 1) % count];
        }
        st = segments_add(s, a, b, n, ids);
    }
    orca_mem_free(a);
    orca_mem_free(b);
    return st;
}

#define SEGMENT_OR_FAIL(s, id, i)                                                         \
    if (!(s)) {                                                                         \
        return ORCA_ERR_NULL;                                                           \
    }                                                                                   \
    clear_error(s);                                                                     \
    int32_t i = slots_lookup(&(s)->segment_slots, (id).slot, (id).generation);          \
    if (i < 0) {                                                                        \
        return fail((s), ORCA_ERR_STALE, "segment handle {slot %u, generation %u} is stale", \
                    (unsigned)(id).slot, (unsigned)(id).generation);                      \
    }

orca_status orca_sim_remove_segment(orca_sim *s, orca_segment_id id)
{
    SEGMENT_OR_FAIL(s, id, i);
    int32_t n = s->segment_count;
    size_t tail = (size_t)(n - i - 1);
    memmove(&s->seg_a[i], &s->seg_a[i + 1], tail * sizeof *s->seg_a);
    memmove(&s->seg_b[i], &s->seg_b[i + 1], tail * sizeof *s->seg_b);
    memmove(&s->segment_slot[i], &s->segment_slot[i + 1], tail * sizeof *s->segment_slot);
    slots_after_removal(&s->segment_slots, id.slot, s->segment_slot, i, n);
    s->segment_count = n - 1;
    s->obstacle_grid_valid = 0;
    return ORCA_OK;
}

int orca_sim_segment_count(const orca_sim *s)
{
    return s ? s->segment_count : 0;
}

orca_segment_id orca_sim_segment_at(const orca_sim *s, int index)
{
    orca_segment_id id = {0, 0};
    if (s && index >= 0 && index < s->segment_count) {
        id.slot = s->segment_slot[index];
        id.generation = s->segment_slots.generation[id.slot];
    }
    return id;
}

orca_status orca_segment_get(const orca_sim *s, orca_segment_id id, orca_vec2 *a, orca_vec2 *b)
{
    SEGMENT_OR_FAIL(s, id, i);
    if (a) {
        *a = s->seg_a[i];
    }
    if (b) {
        *b = s->seg_b[i];
    }
    return ORCA_OK;
}

/* ---------------------------------------------------------------------------------------
 * Grids
 * ------------------------------------------------------------------------------------- */

/* Runs fn over [0, count): on the engine's job system (in ranges of at least min_range
 * items), the built-in pool or the caller. */
static void run_task_ranged(orca_sim *s, orca_task_fn *fn, int count, int min_range, void *ctx)
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
static void run_task(orca_sim *s, orca_task_fn *fn, int count, void *ctx)
{
    run_task_ranged(s, fn, count, 64, ctx);
}

/* Light per-agent passes (a few nanoseconds an agent): below this many agents the caller runs
 * them itself, since waking the workers would cost more. Each pass writes its own slots or
 * exact minima and maxima, so the split never changes a result. */
#define LIGHT_TASK_MIN 16384

static void run_light_task(orca_sim *s, orca_task_fn *fn, int count, void *ctx)
{
    if (count < LIGHT_TASK_MIN) {
        fn(0, count, 0, ctx);
    } else {
        run_task(s, fn, count, ctx);
    }
}

orca_status orca_sim_run_task(orca_sim *s, orca_task_fn *fn, int count, void *context)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    clear_error(s);
    if (!fn) {
        return fail(s, ORCA_ERR_NULL, "task function is NULL");
    }
    if (count < 0) {
        return fail(s, ORCA_ERR_ARGUMENT, "task item count must be >= 0, got %d", count);
    }
    if (count > 0) {
        run_task(s, fn, count, context);
    }
    return ORCA_OK;
}

/* The grid's copies in sorted order (each position of the order is one task item; the
 * scattered index-order data is only read). */
static void gather_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    orca_sim *s = context;
    for (int32_t at = begin; at < end; ++at) {
        if (at + 16 < end) {
            /* index order is scattered over the sorted order: fetch ahead */
            int32_t ia = s->cell_index[at + 16];
            PREFETCH(&s->pos[ia]);
            PREFETCH(&s->vel[ia]);
            PREFETCH(&s->par[ia].radius);
        }
        int32_t i = s->cell_index[at];
        s->cell_pos[at] = s->pos[i];
        s->cell_vel[at] = s->vel[i];
        s->cell_radius[at] = s->par[i].radius;
    }
}

static int bad_worker_index(orca_sim *s, int worker_index)
{
    if (worker_index < 0 || worker_index >= s->worker_count) {
        atomic_store(&s->bad_worker, worker_index < 0 ? 0 : worker_index);
        return 1;
    }
    return 0;
}

/* The refusal after a task got a bad worker index (nothing was applied). */
static orca_status fail_bad_worker(const orca_sim *s, int bad)
{
    return fail(s, ORCA_ERR_ARGUMENT,
                "the enqueue callback gave worker index %d, outside 0..%d; the step was not applied",
                bad, s->worker_count - 1);
}

/* Each worker's part of the bounds (min and max are exact, so the parts combine to the same
 * values in any split). */
static void bounds_task(int begin, int end, int worker_index, void *context)
{
    orca_sim *s = context;
    if (bad_worker_index(s, worker_index)) {
        return;
    }
    grid_bounds b = s->workers[worker_index].bounds;
    for (int32_t i = begin; i < end; ++i) {
        const agent_params *a = &s->par[i];
        double c1 = a->neighbor_dist;
        double c2 = a->radius * 2;
        double r = a->tau_obst * a->max_speed + a->radius;
        b.cmax = c1 > b.cmax ? c1 : b.cmax;
        b.cmax = c2 > b.cmax ? c2 : b.cmax;
        b.reach = r > b.reach ? r : b.reach;
        b.max_nb = a->max_neighbors > b.max_nb ? a->max_neighbors : b.max_nb;
        orca_vec2 p = s->pos[i];
        if (!b.any) {
            b.lox = b.hix = p.x;
            b.loy = b.hiy = p.y;
            b.any = 1;
        }
        b.lox = p.x < b.lox ? p.x : b.lox;
        b.loy = p.y < b.loy ? p.y : b.loy;
        b.hix = p.x > b.hix ? p.x : b.hix;
        b.hiy = p.y > b.hiy ? p.y : b.hiy;
    }
    s->workers[worker_index].bounds = b;
}

/* Dense grid: each agent's cell, into rank (each agent's own slot). The origin is the
 * positions' minimum and the grid's size came from their maximum (build_agent_grid, the same
 * positions), so q = (x - origin) * inv lies in [0, w) (subtraction and multiplication are
 * monotone): cell_coord's floor is its truncation, and no clamp applies. */
static void cells_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    orca_sim *s = context;
    double lox = s->origin_x, loy = s->origin_y, inv = s->inv_cell;
    int64_t w = s->grid_w;
    for (int32_t i = begin; i < end; ++i) {
        int32_t cx = (int32_t)((s->pos[i].x - lox) * inv);
        int32_t cy = (int32_t)((s->pos[i].y - loy) * inv);
        s->rank[i] = (int32_t)((int64_t)cy * w + cx);
    }
}

/* The dense grid's counting sort in blocks of consecutive agents, on the workers: each block
 * counts its agents per cell, one pass over the cells turns the counts into each block's
 * first position per cell (the cell's start plus the agents of earlier blocks in it), and
 * each block places its agents from there. An agent's position is then its cell's start plus
 * the number of agents of lower index in the cell, exactly as in the one-thread sort. The
 * block counts live in cell_pos and cell_vel, which the gather fills only afterwards. */
#define SORT_BLOCKS_MAX 16

typedef struct sort_ctx {
    orca_sim *sim;
    int32_t *count[SORT_BLOCKS_MAX]; /* per block: cells entries */
    int blocks;
    size_t cells;
} sort_ctx;

static int32_t sort_block_begin(const sort_ctx *c, int b)
{
    return (int32_t)((int64_t)c->sim->agent_count * b / c->blocks);
}

static void sort_count_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    sort_ctx *c = context;
    const int32_t *cell = c->sim->rank;
    for (int b = begin; b < end; ++b) {
        int32_t *count = c->count[b];
        memset(count, 0, c->cells * sizeof *count);
        for (int32_t i = sort_block_begin(c, b), e = sort_block_begin(c, b + 1); i < e; ++i) {
            count[cell[i]]++;
        }
    }
}

static void sort_place_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    sort_ctx *c = context;
    orca_sim *s = c->sim;
    for (int b = begin; b < end; ++b) {
        int32_t *next = c->count[b];
        for (int32_t i = sort_block_begin(c, b), e = sort_block_begin(c, b + 1); i < e; ++i) {
            int32_t at = next[s->rank[i]]++;
            s->cell_index[at] = i;
            s->rank[i] = at;
        }
    }
}

/* Sorts by the cells in rank (cells of them) in blocks when there are workers, agents enough
 * and room for two or more blocks; returns 0 (nothing done) otherwise. */
static int sort_in_blocks(orca_sim *s, size_t cells)
{
    int32_t n = s->agent_count;
    if (s->worker_count < 2 || n < LIGHT_TASK_MIN) {
        return 0;
    }
    /* each of cell_pos and cell_vel holds 4 * capacity counts */
    size_t per_array = cells ? 4 * (size_t)s->agent_capacity / cells : 0;
    size_t room = 2 * per_array;
    int blocks = 2 * s->worker_count;
    blocks = blocks > SORT_BLOCKS_MAX ? SORT_BLOCKS_MAX : blocks;
    blocks = (size_t)blocks > room ? (int)room : blocks;
    if (blocks < 2) {
        return 0;
    }
    sort_ctx c;
    c.sim = s;
    c.blocks = blocks;
    c.cells = cells;
    int32_t *pos_room = (int32_t *)(void *)s->cell_pos, *vel_room = (int32_t *)(void *)s->cell_vel;
    for (int b = 0; b < blocks; ++b) {
        size_t slot = (size_t)b < per_array ? (size_t)b : (size_t)b - per_array;
        c.count[b] = ((size_t)b < per_array ? pos_room : vel_room) + slot * cells;
    }
    run_task_ranged(s, sort_count_task, blocks, 1, &c);
    int32_t *start = s->cell_start;
    int32_t at = 0;
    for (size_t k = 0; k < cells; ++k) {
        start[k] = at;
        for (int b = 0; b < blocks; ++b) {
            int32_t t = c.count[b][k];
            c.count[b][k] = at;
            at += t;
        }
    }
    start[cells] = at;
    run_task_ranged(s, sort_place_task, blocks, 1, &c);
    return 1;
}

/* Agent grid. cmax = max(largest neighbour distance, twice the largest radius) bounds every
 * query radius (neighbours: the agent's own neighbour distance; overlaps: rA + rB). Normally
 * the cells are dense, row-major, of size cmax/2 (or cmax, 2 cmax: the finest that keeps the
 * array small) over the agents' bounding box, sorted by a counting sort: the cells of one row
 * within a query are then one contiguous range. When the box is too sparse for a dense array
 * (agents spread over a huge area), cells of size cmax are hashed and a query visits the 3x3
 * block. Either way the grid only finds candidates.
 * Returns 1, 0 (out of memory) or -1 (a task got a bad worker index: s->bad_worker). */
static int build_agent_grid(orca_sim *s)
{
    if (s->grid_valid) {
        return 1;
    }
    int32_t n = s->agent_count;
    for (int w = 0; w < s->worker_count; ++w) {
        memset(&s->workers[w].bounds, 0, sizeof s->workers[w].bounds);
    }
    atomic_store(&s->bad_worker, -1);
    run_light_task(s, bounds_task, n, s);
    if (atomic_load(&s->bad_worker) >= 0) {
        return -1;
    }
    double cmax = 0, lox = 0, loy = 0, hix = 0, hiy = 0, reach = 0;
    int max_nb = 0, any = 0;
    for (int w = 0; w < s->worker_count; ++w) {
        const grid_bounds *b = &s->workers[w].bounds;
        if (!b->any) {
            continue;
        }
        cmax = b->cmax > cmax ? b->cmax : cmax;
        reach = b->reach > reach ? b->reach : reach;
        max_nb = b->max_nb > max_nb ? b->max_nb : max_nb;
        lox = !any || b->lox < lox ? b->lox : lox;
        loy = !any || b->loy < loy ? b->loy : loy;
        hix = !any || b->hix > hix ? b->hix : hix;
        hiy = !any || b->hiy > hiy ? b->hiy : hiy;
        any = 1;
    }
    if (!(cmax > 0)) {
        cmax = 1;
    }
    s->max_reach = reach;
    s->max_nb = max_nb;
    /* The finest of cmax/2, cmax, 2 cmax whose dense array stays within 4n + 4096 cells. With
     * cmax/2 the step's hinted search scans about 3 by 3 cells (measured at 100k on the random
     * scene: 5% faster than cmax/4, which scans 5 by 5 smaller ones, and fewer cells). */
    double c = cmax / 2;
    int64_t w = 0, h = 0;
    s->grid_dense = 0;
    if (finite(lox) && finite(loy) && finite(hix) && finite(hiy)) {
        for (int attempt = 0; attempt < 3 && !s->grid_dense && c >= 0x1p-1000; ++attempt, c *= 2) {
            w = (int64_t)cell_coord(hix - lox, 1 / c) + 1;
            h = (int64_t)cell_coord(hiy - loy, 1 / c) + 1;
            s->grid_dense = w > 0 && h > 0 && w * h <= 4 * (int64_t)n + 4096;
        }
        c /= 2; /* undo the loop's last doubling */
    }
    if (s->grid_dense) {
        size_t cells = (size_t)(w * h) + 1;
        if (cells > s->cell_start_cap) {
            int32_t *cs = orca_mem_resize(s->cell_start, cells, sizeof *cs);
            if (!cs) {
                return 0;
            }
            s->cell_start = cs;
            s->cell_start_cap = cells;
        }
        s->cell = c;
        s->inv_cell = 1 / c;
        s->origin_x = lox;
        s->origin_y = loy;
        s->grid_w = (int32_t)w;
        s->grid_h = (int32_t)h;
        int32_t *start = s->cell_start;
        /* rank holds each agent's cell until the placement, then its sorted position */
        run_light_task(s, cells_task, n, s);
        if (!sort_in_blocks(s, cells - 1)) {
            memset(start, 0, cells * sizeof *start);
            for (int32_t i = 0; i < n; ++i) {
                start[s->rank[i] + 1]++;
            }
            for (size_t k = 1; k < cells; ++k) {
                start[k] += start[k - 1];
            }
            for (int32_t i = 0; i < n; ++i) {
                int32_t at = start[s->rank[i]]++;
                s->cell_index[at] = i;
                s->rank[i] = at;
            }
            /* the placement advanced each start to the next cell's: shift back */
            memmove(start + 1, start, (cells - 1) * sizeof *start);
            start[0] = 0;
        }
    } else {
        s->cell = cmax * (1 + 0x1p-20) + MARGIN_ABS; /* a little over every query radius */
        s->inv_cell = 1 / s->cell;
        if (!cell_map_reset(&s->agent_cells, n)) {
            return 0;
        }
        cell_map *m = &s->agent_cells;
        /* rank holds each agent's map slot until the placement (no slot moves: the
         * map only grows by insertion into a table sized for n cells) */
        for (int32_t i = 0; i < n; ++i) {
            int32_t cx = cell_coord(s->pos[i].x, s->inv_cell);
            int32_t cy = cell_coord(s->pos[i].y, s->inv_cell);
            uint32_t hh = cell_map_insert(m, cell_key(cx, cy));
            s->rank[i] = (int32_t)hh;
            m->count[hh]++;
        }
        /* ranges in order of first appearance (by agent index) */
        int32_t offset = 0;
        for (int32_t i = 0; i < n; ++i) {
            uint32_t hh = (uint32_t)s->rank[i];
            if (m->start[hh] == 0 && m->count[hh] > 0) {
                m->start[hh] = offset + 1; /* +1: 0 marks "not placed yet" */
                offset += m->count[hh];
            }
        }
        for (uint32_t k = 0; k <= m->mask; ++k) {
            if (m->keys[k] != CELL_EMPTY) {
                m->start[k] -= 1;
                m->count[k] = 0;
            }
        }
        for (int32_t i = 0; i < n; ++i) {
            uint32_t hh = (uint32_t)s->rank[i];
            int32_t at = m->start[hh] + m->count[hh]++;
            s->cell_index[at] = i;
            s->rank[i] = at;
        }
    }
    run_light_task(s, gather_task, n, s);
    s->grid_valid = 1;
    return 1;
}

typedef struct grid_range {
    int32_t begin, end;
} grid_range;

#define GRID_RANGES 16

/* The margin a dense-grid search within `radius` of p adds for the rounding of the cell
 * arithmetic: far above it, so pruning never drops an agent inside the radius. */
static ORCA_ALWAYS_INLINE double dense_margin(const orca_sim *s, orca_vec2 p, double radius)
{
    return 1e-9 * (d_mag(p.x) + d_mag(p.y) + d_mag(s->origin_x) + d_mag(s->origin_y) + radius +
                   s->cell) +
           MARGIN_ABS;
}

/* The ranges of the sorted order that hold every agent within distance q of p (q <= cmax).
 * The rounding of the cell arithmetic is covered by a margin far above it. */
static int grid_query(const orca_sim *s, orca_vec2 p, double q, grid_range *out)
{
    int n = 0;
    if (s->grid_dense) {
        double c = s->cell, ox = s->origin_x, oy = s->origin_y;
        double m = dense_margin(s, p, q);
        double qq = q + m;
        double inv = s->inv_cell;
        int32_t r0 = cell_coord(p.y - qq - oy, inv), r1 = cell_coord(p.y + qq - oy, inv);
        r0 = r0 < 0 ? 0 : r0;
        r1 = r1 >= s->grid_h ? s->grid_h - 1 : r1;
        /* Rows nearest to p first (r_p, r_p - 1, r_p + 1, ...): a neighbour list fills with
         * near agents early and then rejects most of the rest without inserting them. */
        int32_t rp = cell_coord(p.y - oy, inv);
        for (int32_t step = 0; step <= 2 * (r1 - r0 + 1) + 2 && n < GRID_RANGES; ++step) {
            int32_t r = rp + ((step & 1) ? -(step + 1) / 2 : step / 2);
            if (r < r0 || r > r1) {
                continue;
            }
            double ylo = oy + (double)r * c, yhi = oy + (double)(r + 1) * c;
            double gap = p.y < ylo ? ylo - p.y : (p.y > yhi ? p.y - yhi : 0);
            gap -= m;
            gap = gap < 0 ? 0 : gap;
            if (gap >= qq) {
                continue;
            }
            double hw = sqrt(qq * qq - gap * gap) + m;
            int32_t c0 = cell_coord(p.x - hw - ox, inv), c1 = cell_coord(p.x + hw - ox, inv);
            c0 = c0 < 0 ? 0 : c0;
            c1 = c1 >= s->grid_w ? s->grid_w - 1 : c1;
            if (c0 > c1) {
                continue;
            }
            int64_t row = (int64_t)r * s->grid_w;
            out[n].begin = s->cell_start[row + c0];
            out[n].end = s->cell_start[row + c1 + 1];
            n += out[n].begin < out[n].end;
        }
    } else {
        int32_t x = cell_coord(p.x, s->inv_cell), y = cell_coord(p.y, s->inv_cell);
        for (int32_t dy = -1; dy <= 1; ++dy) {
            for (int32_t dx = -1; dx <= 1; ++dx) {
                int64_t h = cell_map_find(&s->agent_cells, cell_key(x + dx, y + dy));
                if (h >= 0) {
                    out[n].begin = s->agent_cells.start[h];
                    out[n].end = out[n].begin + s->agent_cells.count[h];
                    ++n;
                }
            }
        }
    }
    return n;
}

/* Segment grid: each segment is listed in every cell it passes near (within 0.75 cell of the
 * cell's centre, a margin over the half-diagonal 0.7071 that absorbs rounding), so the cells
 * covering the square [p - reach, p + reach] list every segment within reach of p. */
static double segment_cell_size(const orca_sim *s)
{
    double reach = s->max_reach; /* from the agent grid's build */
    /* keep the number of cells a segment crosses bounded */
    double lo = CELL_LIMIT, hi = -CELL_LIMIT;
    for (int32_t k = 0; k < s->segment_count; ++k) {
        double v[4] = {s->seg_a[k].x, s->seg_a[k].y, s->seg_b[k].x, s->seg_b[k].y};
        for (int q = 0; q < 4; ++q) {
            lo = v[q] < lo ? v[q] : lo;
            hi = v[q] > hi ? v[q] : hi;
        }
    }
    /* At most about 4096 cells along a segment, and no cell coordinate of a segment near the
     * clamp of cell_coord (a clamped cell's centre is not where its segments are). */
    double extent = hi - lo;
    double maxabs = d_abs(lo) > d_abs(hi) ? d_abs(lo) : d_abs(hi);
    double cell = reach;
    if (cell < extent / 4096) {
        cell = extent / 4096;
    }
    if (cell < maxabs / 268435456.0) {
        cell = maxabs / 268435456.0;
    }
    return cell; /* at least the smallest radius, 2^-30: its inverse is finite */
}

typedef void cell_visit_fn(orca_sim *s, int32_t segment, int32_t cx, int32_t cy, void *ctx);

static void segment_cells(orca_sim *s, int32_t k, cell_visit_fn *visit, void *ctx)
{
    double c = s->obstacle_cell;
    orca_vec2 a = s->seg_a[k], b = s->seg_b[k];
    double margin = 0.75 * c;
    double x0 = a.x < b.x ? a.x : b.x, x1 = a.x < b.x ? b.x : a.x;
    double inv = s->inv_obstacle_cell;
    int32_t cx0 = cell_coord(x0 - c, inv), cx1 = cell_coord(x1 + c, inv);
    for (int32_t cx = cx0; cx <= cx1; ++cx) {
        /* The part of the segment whose x lies in this column widened by a cell. */
        double lo = (double)cx * c - c, hi = (double)(cx + 1) * c + c;
        double ylo, yhi;
        double dx = b.x - a.x;
        if (dx == 0) {
            ylo = a.y < b.y ? a.y : b.y;
            yhi = a.y < b.y ? b.y : a.y;
        } else {
            double t0 = (lo - a.x) / dx, t1 = (hi - a.x) / dx;
            if (t0 > t1) {
                double t = t0;
                t0 = t1;
                t1 = t;
            }
            t0 = t0 < 0 ? 0 : t0;
            t1 = t1 > 1 ? 1 : t1;
            if (t0 > t1) {
                continue;
            }
            double ya = a.y + (b.y - a.y) * t0, yb = a.y + (b.y - a.y) * t1;
            ylo = ya < yb ? ya : yb;
            yhi = ya < yb ? yb : ya;
        }
        int32_t cy0 = cell_coord(ylo - c, inv), cy1 = cell_coord(yhi + c, inv);
        for (int32_t cy = cy0; cy <= cy1; ++cy) {
            orca_vec2 centre = v2(((double)cx + 0.5) * c, ((double)cy + 0.5) * c);
            double d2 = orca_segment_distance_squared(v2_sub(a, centre), v2_sub(b, centre));
            if (d2 <= margin * margin) {
                visit(s, k, cx, cy, ctx);
            }
        }
    }
}

static void visit_count(orca_sim *s, int32_t segment, int32_t cx, int32_t cy, void *ctx)
{
    (void)segment;
    (void)ctx;
    uint32_t h = cell_map_insert(&s->obstacle_cells, cell_key(cx, cy));
    s->obstacle_cells.count[h]++;
    s->obstacle_list_len++;
}

static void visit_place(orca_sim *s, int32_t segment, int32_t cx, int32_t cy, void *ctx)
{
    (void)ctx;
    int64_t h = cell_map_find(&s->obstacle_cells, cell_key(cx, cy));
    s->obstacle_list[s->obstacle_cells.start[h] + s->obstacle_cells.count[h]++] = segment;
}

static void visit_cells_only(orca_sim *s, int32_t segment, int32_t cx, int32_t cy, void *ctx)
{
    (void)s;
    (void)segment;
    (void)cx;
    (void)cy;
    ++*(int64_t *)ctx;
}

static int build_obstacle_grid(orca_sim *s)
{
    if (s->segment_count == 0) {
        return 1; /* select_segments returns before touching the grid */
    }
    double want = segment_cell_size(s);
    /* The grid is only a candidate filter: rebuild for speed when the reach moved far. */
    if (s->obstacle_grid_valid && want <= 2 * s->obstacle_cell && want >= s->obstacle_cell / 4) {
        return 1;
    }
    s->obstacle_cell = want;
    s->inv_obstacle_cell = 1 / want;
    int64_t cells = 0;
    for (int32_t k = 0; k < s->segment_count; ++k) {
        segment_cells(s, k, visit_cells_only, &cells);
    }
    if (cells > (1 << 28)) {
        return 0;
    }
    if (!cell_map_reset(&s->obstacle_cells, (int)cells)) {
        return 0;
    }
    s->obstacle_list_len = 0;
    for (int32_t k = 0; k < s->segment_count; ++k) {
        segment_cells(s, k, visit_count, NULL);
    }
    orca_mem_free(s->obstacle_list);
    s->obstacle_list = orca_mem_alloc((size_t)s->obstacle_list_len + 1, sizeof *s->obstacle_list);
    if (!s->obstacle_list) {
        return 0;
    }
    cell_map *m = &s->obstacle_cells;
    int32_t offset = 0;
    for (uint32_t h = 0; h <= m->mask; ++h) {
        if (m->keys[h] != CELL_EMPTY) {
            m->start[h] = offset;
            offset += m->count[h];
            m->count[h] = 0;
        }
    }
    for (int32_t k = 0; k < s->segment_count; ++k) {
        segment_cells(s, k, visit_place, NULL);
    }
    s->obstacle_grid_valid = 1;
    return 1;
}

/* count * size bytes rounded up to whole 64-byte cache lines (64-bit arithmetic: with up to
 * 2^28 segments no term overflows; the sum is checked against SIZE_MAX by the caller). */
static uint64_t line_bytes(uint64_t count, uint64_t size)
{
    return (count * size + 63) / 64 * 64;
}

/* Each worker's scratch is one zeroed allocation, its six buffers on cache lines of their
 * own (starts and ends on 64-byte boundaries), so two workers never write to the same line. */
static int workers_reserve(orca_sim *s)
{
    int max_nb = s->max_nb; /* from the agent grid's build */
    if (max_nb <= s->worker_agents_cap && s->segment_count <= s->worker_segments_cap) {
        return 1;
    }
    int nb = max_nb > s->worker_agents_cap ? max_nb : s->worker_agents_cap;
    int sg = s->segment_count > s->worker_segments_cap ? s->segment_count : s->worker_segments_cap;
    uint64_t planes = (uint64_t)nb + (uint64_t)sg + 1;
    /* the ranked list of the vector scan has room for RANK_ROOM entries (kernels.c) */
    uint64_t list = (uint64_t)(nb > RANK_ROOM ? nb : RANK_ROOM);
    uint64_t agents_b = line_bytes(list + 1, sizeof(neighbor));
    uint64_t cand_b = line_bytes(1, sizeof(cand_buf));
    uint64_t obstacles_b = line_bytes((uint64_t)sg + 1, sizeof(neighbor));
    uint64_t planes_b = line_bytes(planes, sizeof(orca_halfplane));
    uint64_t stamp_b = line_bytes((uint64_t)sg + 1, sizeof(uint32_t));
    uint64_t total = 64 + agents_b + cand_b + obstacles_b + 2 * planes_b + stamp_b;
    if (total > SIZE_MAX) {
        return 0;
    }
    for (int w = 0; w < s->worker_count; ++w) {
        worker *k = &s->workers[w];
        char *block = orca_mem_zalloc(1, (size_t)total);
        if (!block) {
            return 0;
        }
        orca_mem_free(k->block);
        k->block = block;
        char *at = (char *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
        k->agents = (neighbor *)(void *)at;
        at += (size_t)agents_b;
        /* The candidates right after the list they are ranked into: within a few KiB of each
         * other, their stores and loads never share an address's low 12 bits (a stack buffer
         * can, and then loads wait for unrelated stores: measured, a few % of the step). */
        k->cand = (cand_buf *)(void *)at;
        at += (size_t)cand_b;
        k->obstacles = (neighbor *)(void *)at;
        at += (size_t)obstacles_b;
        k->planes = (orca_halfplane *)(void *)at;
        at += (size_t)planes_b;
        k->scratch = (orca_halfplane *)(void *)at;
        at += (size_t)planes_b;
        k->stamp = (uint32_t *)(void *)at;
        k->query = 0;
    }
    s->worker_agents_cap = nb;
    s->worker_segments_cap = sg;
    return 1;
}

static orca_status prepare(const orca_sim *sim)
{
    orca_sim *s = (orca_sim *)sim; /* the grids and worker buffers are caches */
    int built = build_agent_grid(s);
    if (built < 0) {
        s->grid_valid = 0;
        return fail_bad_worker(s, atomic_load(&s->bad_worker));
    }
    if (!built || !build_obstacle_grid(s) || !workers_reserve(s)) {
        s->grid_valid = 0;
        s->obstacle_grid_valid = 0;
        return fail(s, ORCA_ERR_MEMORY, "out of memory building the neighbour grids");
    }
#ifdef ORCA_HAVE_AVX
    if (s->grid_dense) {
        box_grid *g = &s->box;
        g->cell_start = s->cell_start;
        g->pos = s->cell_pos;
        g->cell_index = s->cell_index;
        g->origin[0] = g->origin[1] = s->origin_x;
        g->origin[2] = g->origin[3] = s->origin_y;
        g->top[0] = g->top[1] = (double)s->grid_w - 0.5;
        g->top[2] = g->top[3] = (double)s->grid_h - 0.5;
        g->inv_cell = s->inv_cell;
        g->w = s->grid_w;
        g->h = s->grid_h;
    }
#endif
    return ORCA_OK;
}

/* ---------------------------------------------------------------------------------------
 * Neighbours and constraint order (algorithm.md §11)
 * ------------------------------------------------------------------------------------- */

#define SCAN_CHUNK CAND_CHUNK

/* Index of the lowest set bit of m != 0. */
static ORCA_ALWAYS_INLINE int lowest_bit(uint32_t m)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctz(m);
#else
    int i = 0;
    while (!(m & 1u)) {
        m >>= 1;
        ++i;
    }
    return i;
#endif
}

/* The squared distances Dot(d, d), d = pos[q] - p, of len <= SCAN_CHUNK positions into dist;
 * returns the mask of those < filt2 (bit q for pos[q]), without branches. */
static ORCA_ALWAYS_INLINE uint32_t filter_chunk(const orca_vec2 *pos, int len, orca_vec2 p,
                                                double filt2, double *dist)
{
    uint32_t mask = 0;
    for (int q = 0; q < len; ++q) {
        orca_vec2 d = v2_sub(pos[q], p);
        double d2 = v2_dot(d, d);
        dist[q] = d2;
        mask |= (uint32_t)(d2 < filt2) << q;
    }
    return mask;
}

/* Offers the agents at sorted positions [begin, end) with squared distance < filt2, other
 * than self, to the sorted list out (n entries, capacity cap); returns the new n. The
 * distance filter runs without branches over chunks of the range (about half the agents in
 * a row pass it, which a branch would mispredict); the survivors are offered in order. */
static ORCA_ALWAYS_INLINE int scan_agents(const orca_sim *s, int32_t self, orca_vec2 p,
                                          double filt2, int32_t begin, int32_t end,
                                          neighbor *out, int n, int cap)
{
    double dist[SCAN_CHUNK];
    for (int32_t k0 = begin; k0 < end; k0 += SCAN_CHUNK) {
        int len = end - k0 > SCAN_CHUNK ? SCAN_CHUNK : (int)(end - k0);
        uint32_t mask = filter_chunk(s->cell_pos + k0, len, p, filt2, dist);
        while (mask) {
            int q = lowest_bit(mask);
            mask &= mask - 1;
            if (k0 + q != self) {
                n = neighbor_offer(s->cell_index, dist[q], k0 + q, out, n, cap);
            }
        }
    }
    return n;
}

/* Column of the dense grid holding x (relative to the origin): floor(x * inv) clamped to
 * 0..w-1, the same cell as cell_coord gives wherever that is inside the grid. */
static ORCA_ALWAYS_INLINE int32_t dense_column(double x, double inv, double wmax, int32_t w)
{
    double q = x * inv;
    return q < 0 ? 0 : (q >= wmax ? w - 1 : (int32_t)q);
}

/* Offers the agents of row r within half-width hw of p.x. */
static ORCA_ALWAYS_INLINE int scan_row(const orca_sim *s, int32_t self, orca_vec2 p, double filt2,
                                       int32_t r, double hw, double m, neighbor *out, int n,
                                       int cap)
{
    double inv = s->inv_cell, wmax = (double)s->grid_w;
    int32_t c0 = dense_column(p.x - hw - m - s->origin_x, inv, wmax, s->grid_w);
    int32_t c1 = dense_column(p.x + hw + m - s->origin_x, inv, wmax, s->grid_w);
    const int32_t *row = s->cell_start + (int64_t)r * s->grid_w;
    return scan_agents(s, self, p, filt2, row[c0], row[c1 + 1], out, n, cap);
}

CAND_DEFINE_COUNT_RANKS(cand_count_ranks, 2)

#if defined(__GNUC__) || defined(__clang__)
typedef double rank_vd __attribute__((vector_size(16)));
typedef long long rank_vi __attribute__((vector_size(16)));

/* Candidate i's rank against the first 2 * nv candidates (d, +inf past the last): the lanes
 * where d2[j] < d2[i], summed as -1 each; its entry goes to out[rank]. Returns the rank. */
static ORCA_ALWAYS_INLINE int64_t rank_place_2(const cand_buf *c, int i, const rank_vd *d,
                                               int nv, neighbor *out)
{
    rank_vd b = c->d2[i] - (rank_vd){0}; /* broadcast: x - 0 is x */
    rank_vi a = (rank_vi)(d[0] < b) + (rank_vi)(d[1] < b);
    for (int k = 2; k < nv; k += 2) {
        a += (rank_vi)(d[k] < b) + (rank_vi)(d[k + 1] < b);
    }
    int64_t r = -(a[0] + a[1]);
    out[r].dist2 = c->d2[i];
    out[r].at = (int32_t)c->at[i];
    return r;
}

/* cand_rank_fn of the scalar scan: as the vector scan's (kernels.c), in vectors of two
 * lanes (SSE2, NEON, or lane by lane where there is no vector unit). Up to 16 candidates
 * each one's rank is counted against all at once and its entry written at out[rank] (out has
 * room for RANK_ROOM entries); otherwise cand_count_ranks and cand_place. */
static ORCA_ALWAYS_INLINE int cand_rank(cand_buf *c, const int32_t *cell_index, neighbor *out,
                                        int cap)
{
    int n = c->n;
    if (n > 16) {
        cand_count_ranks(c);
        return cand_place(c, cell_index, out, cap);
    }
    for (int q = 0; q < 16; ++q) {
        c->d2[n + q] = HUGE_VAL; /* never smaller */
    }
    rank_vd d[8];
    memcpy(d, c->d2, sizeof d);
    int64_t sum = 0;
    if (n <= 8) {
        for (int i = 0; i < n; ++i) {
            sum += rank_place_2(c, i, d, 4, out);
        }
    } else if (n <= 12) {
        for (int i = 0; i < n; ++i) {
            sum += rank_place_2(c, i, d, 6, out);
        }
    } else {
        for (int i = 0; i < n; ++i) {
            sum += rank_place_2(c, i, d, 8, out);
        }
    }
    return cand_ranked(c, n, cell_index, out, cap, 2 * sum);
}
#else
/* cand_rank_fn of the scalar scan */
static int cand_rank(cand_buf *c, const int32_t *cell_index, neighbor *out, int cap)
{
    cand_count_ranks(c);
    return cand_place(c, cell_index, out, cap);
}
#endif

static int neighbor_cmp(const void *pa, const void *pb)
{
    const neighbor *a = pa, *b = pb;
    if (a->dist2 < b->dist2) {
        return -1;
    }
    if (a->dist2 > b->dist2) {
        return 1;
    }
    return (a->index > b->index) - (a->index < b->index);
}

/* Segments within distance^2 <= limit2 of p, in order of (squared distance, index). */
static int select_segments(const orca_sim *s, worker *w, orca_vec2 p, double reach,
                           double limit2)
{
    if (s->segment_count == 0) {
        return 0;
    }
    double mg = 1e-9 * (d_abs(p.x) + d_abs(p.y) + reach) + MARGIN_ABS;
    double inv = s->inv_obstacle_cell;
    int32_t x0 = cell_coord(p.x - reach - mg, inv), x1 = cell_coord(p.x + reach + mg, inv);
    int32_t y0 = cell_coord(p.y - reach - mg, inv), y1 = cell_coord(p.y + reach + mg, inv);
    if (++w->query == 0) {
        memset(w->stamp, 0, (size_t)s->segment_count * sizeof *w->stamp);
        w->query = 1;
    }
    int n = 0;
    const cell_map *m = &s->obstacle_cells;
    /* The grid's cell is at least half the largest reach (build_obstacle_grid), so the block
     * is at most 6 by 6 cells. */
    for (int32_t cy = y0; cy <= y1; ++cy) {
        for (int32_t cx = x0; cx <= x1; ++cx) {
            int64_t h = cell_map_find(m, cell_key(cx, cy));
            if (h < 0) {
                continue;
            }
            int32_t begin = m->start[h], end = begin + m->count[h];
            for (int32_t q = begin; q < end; ++q) {
                int32_t k = s->obstacle_list[q];
                if (w->stamp[k] == w->query) {
                    continue;
                }
                w->stamp[k] = w->query;
                /* SegmentDistanceSquared of the ends relative to the agent */
                double d2 = orca_segment_distance_squared(v2_sub(s->seg_a[k], p),
                                                          v2_sub(s->seg_b[k], p));
                if (d2 <= limit2) {
                    w->obstacles[n].dist2 = d2;
                    w->obstacles[n].index = k;
                    ++n;
                }
            }
        }
    }
    if (n <= 16) {
        for (int a = 1; a < n; ++a) {
            neighbor t = w->obstacles[a];
            int b = a;
            while (b > 0 && neighbor_less(t.dist2, t.index, &w->obstacles[b - 1])) {
                w->obstacles[b] = w->obstacles[b - 1];
                --b;
            }
            w->obstacles[b] = t;
        }
    } else {
        qsort(w->obstacles, (size_t)n, sizeof *w->obstacles, neighbor_cmp); /* a total order */
    }
    return n;
}

/* Obstacles within reach: squared segment distance <= (obstacle horizon * max speed +
 * radius)^2 (algorithm.md §11.1). */
static int select_obstacles(const orca_sim *s, worker *w, int32_t i, orca_vec2 p)
{
    if (s->segment_count == 0) {
        return 0; /* without reading the agent's parameters */
    }
    double reach = s->par[i].tau_obst * s->par[i].max_speed + s->par[i].radius;
    return select_segments(s, w, p, reach, reach * reach);
}

/* The step's last line (docs/limits.md): the new velocity v of an agent at p with max speed
 * R and start-of-step velocity v0 is finite, within R up to the rounding of its program,
 * and takes the agent to a position within the coordinate limit, computed as the step's
 * part (2) computes it. Every comparison is false for NaN. */
static ORCA_ALWAYS_INLINE int step_result_ok(orca_vec2 v, orca_vec2 v0, orca_vec2 p, double R,
                                             double dt)
{
    double rr = R * R;
    orca_vec2 q = v2_add(p, v2_mul(v, dt));
    return v2_dot(v, v) <= rr + 0x1p-40 * (rr + v2_dot(v0, v0)) &&
           d_mag(q.x) < ORCA_COORD_LIMIT && d_mag(q.y) < ORCA_COORD_LIMIT;
}

/* Records agent i as failing the check: the lowest such index wins (the same in any split). */
static __attribute__((noinline, cold)) void note_bad_agent(orca_sim *s, int32_t i)
{
    int cur = atomic_load(&s->bad_agent);
    while (i < cur && !atomic_compare_exchange_weak(&s->bad_agent, &cur, i)) {
    }
}

int orca_step_result_kind(orca_vec2 v, orca_vec2 v0, orca_vec2 p, double max_speed, double dt)
{
    if (step_result_ok(v, v0, p, max_speed, dt)) {
        return ORCA_STEP_RESULT_OK;
    }
    if (!finite(v.x) || !finite(v.y)) {
        return ORCA_STEP_RESULT_NOT_FINITE;
    }
    orca_vec2 q = v2_add(p, v2_mul(v, dt));
    if (!(d_mag(q.x) < ORCA_COORD_LIMIT && d_mag(q.y) < ORCA_COORD_LIMIT)) {
        return ORCA_STEP_RESULT_LEAVES;
    }
    return ORCA_STEP_RESULT_TOO_FAST;
}

/* The refusal of a step whose new velocity v of agent i (start-of-step velocity v0) failed
 * step_result_ok (nothing was applied; the message says which part failed). */
static orca_status fail_step_result(const orca_sim *s, int32_t i, orca_vec2 v, orca_vec2 v0,
                                    double dt)
{
    double R = s->par[i].max_speed;
    orca_vec2 q = v2_add(s->pos[i], v2_mul(v, dt));
    const char *why = "is not finite";
    int kind = orca_step_result_kind(v, v0, s->pos[i], R, dt);
    if (kind == ORCA_STEP_RESULT_LEAVES) {
        return fail(s, ORCA_ERR_LIMIT,
                    "step refused: agent %d (slot %u) would move to (%.17g, %.17g), beyond the "
                    "coordinate limit 2^21 (velocity (%.17g, %.17g), dt %.17g); nothing was "
                    "applied",
                    (int)i, (unsigned)s->agent_slot[i], q.x, q.y, v.x, v.y, dt);
    }
    if (kind == ORCA_STEP_RESULT_TOO_FAST) {
        why = "is faster than its max_speed beyond rounding";
    }
    return fail(s, ORCA_ERR_LIMIT,
                "step refused: the new velocity (%.17g, %.17g) of agent %d (slot %u, max_speed "
                "%.17g) %s; nothing was applied",
                v.x, v.y, (int)i, (unsigned)s->agent_slot[i], R, why);
}

#define PREFETCH_AHEAD 8 /* agents ahead whose own data the step fetches */

#define STEP_FN(name) name
#define STEP_TARGET
#define STEP_KERNELS 0
#include "sim_step.inc"
#undef STEP_FN
#undef STEP_TARGET
#undef STEP_KERNELS

#ifdef ORCA_HAVE_AVX
#define STEP_FN(name) name##_avx2
#define STEP_TARGET ORCA_AVX
#define STEP_KERNELS 1
#include "sim_step.inc"
#undef STEP_FN
#undef STEP_TARGET
#undef STEP_KERNELS
#endif

/* ---------------------------------------------------------------------------------------
 * The step
 * ------------------------------------------------------------------------------------- */

typedef struct step_ctx {
    orca_sim *sim;
    double dt;
} step_ctx;

/* Step part (2), after every new velocity is in place: position + velocity * dt. */
static void move_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    step_ctx *c = context;
    orca_sim *s = c->sim;
    for (int32_t i = begin; i < end; ++i) {
        s->pos[i] = v2_add(s->pos[i], v2_mul(s->vel[i], c->dt));
    }
}

static void step_task(int begin, int end, int worker_index, void *context)
{
    step_ctx *c = context;
    orca_sim *s = c->sim;
    if (bad_worker_index(s, worker_index)) {
        return;
    }
    worker *w = &s->workers[worker_index];
#ifdef ORCA_HAVE_AVX
    if (s->vector) {
        w->fallbacks += step_agents_avx2(s, w, begin, end, c->dt);
        return;
    }
#endif
    w->fallbacks += step_agents(s, w, begin, end, c->dt);
}

orca_status orca_sim_step(orca_sim *s, double dt)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    clear_error(s);
    orca_status st = check_dt(s, dt);
    if (st != ORCA_OK) {
        return st;
    }
    if (s->agent_count == 0) {
        return ORCA_OK;
    }
    st = prepare(s);
    if (st != ORCA_OK) {
        return st;
    }
    for (int w = 0; w < s->worker_count; ++w) {
        s->workers[w].fallbacks = 0;
    }
    atomic_store(&s->bad_worker, -1);
    atomic_store(&s->bad_agent, s->agent_count);
    step_ctx ctx = {s, dt};
    /* (1) every new velocity from the start-of-step state */
    run_task(s, step_task, s->agent_count, &ctx);
    int bad = atomic_load(&s->bad_worker);
    int bad_agent = atomic_load(&s->bad_agent);
    if (bad >= 0 || bad_agent < s->agent_count) {
        orca_vec2 v = bad >= 0 ? v2(0, 0) : s->vel[bad_agent];
        /* Put the start-of-step velocities back from the grid's copy. */
        for (int32_t k = 0; k < s->agent_count; ++k) {
            s->vel[s->cell_index[k]] = s->cell_vel[k];
        }
        if (bad >= 0) {
            return fail_bad_worker(s, bad);
        }
        return fail_step_result(s, bad_agent, v, s->vel[bad_agent], dt);
    }
    /* (2) velocity = v_new, then position = position + velocity * dt (component-wise) */
    int fallbacks = 0;
    for (int w = 0; w < s->worker_count; ++w) {
        fallbacks += s->workers[w].fallbacks;
    }
    run_light_task(s, move_task, s->agent_count, &ctx);
    s->last_fallbacks = fallbacks;
    s->steps++;
    s->grid_valid = 0;
    return ORCA_OK;
}

uint64_t orca_sim_step_count(const orca_sim *s)
{
    return s ? s->steps : 0;
}

int orca_sim_last_fallback_count(const orca_sim *s)
{
    return s ? s->last_fallbacks : 0;
}

orca_status orca_sim_agent_constraints(const orca_sim *s, orca_agent_id id, double dt,
                                       orca_halfplane *planes, int capacity, int *count,
                                       int *hard_count)
{
    AGENT_OR_FAIL(s, id, i);
    orca_status st = check_dt(s, dt);
    if (st != ORCA_OK) {
        return st;
    }
    if (capacity < 0 || (capacity > 0 && !planes)) {
        return fail(s, ORCA_ERR_ARGUMENT, "planes must hold capacity (%d) half-planes", capacity);
    }
    st = prepare(s);
    if (st != ORCA_OK) {
        return st;
    }
    worker *w = &s->workers[0];
    int hard;
    int n = build_constraints(s, w, s->rank[i], dt, &hard, 0);
    for (int k = 0; k < n && k < capacity; ++k) {
        planes[k] = w->planes[k];
    }
    if (count) {
        *count = n;
    }
    if (hard_count) {
        *hard_count = hard;
    }
    return ORCA_OK;
}

orca_status orca_sim_agent_neighbors(const orca_sim *s, orca_agent_id id, int *agents,
                                     int agent_capacity, int *agent_count, int *segments,
                                     int segment_capacity, int *segment_count)
{
    AGENT_OR_FAIL(s, id, i);
    if (agent_capacity < 0 || (agent_capacity > 0 && !agents) || segment_capacity < 0 ||
        (segment_capacity > 0 && !segments)) {
        return fail(s, ORCA_ERR_ARGUMENT, "output arrays must hold their capacities");
    }
    orca_status st = prepare(s);
    if (st != ORCA_OK) {
        return st;
    }
    worker *w = &s->workers[0];
    int no = select_obstacles(s, w, i, s->pos[i]);
    for (int k = 0; k < no && k < segment_capacity; ++k) {
        segments[k] = w->obstacles[k].index;
    }
    int na = select_agents(s, s->rank[i], w->agents, w->cand, 0);
    for (int k = 0; k < na && k < agent_capacity; ++k) {
        agents[k] = w->agents[k].index;
    }
    if (agent_count) {
        *agent_count = na;
    }
    if (segment_count) {
        *segment_count = no;
    }
    return ORCA_OK;
}

orca_status orca_sim_measure_overlap(const orca_sim *sim, double *agent_overlap,
                                     double *wall_overlap)
{
    if (!sim) {
        return ORCA_ERR_NULL;
    }
    clear_error(sim);
    orca_status st = prepare(sim);
    if (st != ORCA_OK) {
        return st;
    }
    const orca_sim *s = sim;
    worker *w = &s->workers[0];
    double deepest = 0, wall = 0, rmax = 0;
    for (int32_t i = 0; i < s->agent_count; ++i) {
        rmax = s->par[i].radius > rmax ? s->par[i].radius : rmax;
    }
    for (int32_t i = 0; i < s->agent_count; ++i) {
        orca_vec2 p = s->pos[i];
        double ri = s->par[i].radius;
        grid_range ranges[GRID_RANGES];
        int nr = grid_query(s, p, ri + rmax, ranges);
        for (int q = 0; q < nr; ++q) {
            for (int32_t k = ranges[q].begin; k < ranges[q].end; ++k) {
                int32_t j = s->cell_index[k];
                if (j <= i) {
                    continue;
                }
                double rr = ri + s->cell_radius[k];
                orca_vec2 d = v2_sub(s->cell_pos[k], p);
                double d2 = v2_dot(d, d);
                if (d2 < rr * rr) {
                    double rmin = ri < s->cell_radius[k] ? ri : s->cell_radius[k];
                    double o = (rr - sqrt(d2)) / rmin;
                    deepest = o > deepest ? o : deepest;
                }
            }
        }
        int no = select_segments(s, w, p, ri, ri * ri);
        if (no > 0) {
            double o = (ri - sqrt(w->obstacles[0].dist2)) / ri;
            wall = o > wall ? o : wall;
        }
    }
    if (agent_overlap) {
        *agent_overlap = deepest;
    }
    if (wall_overlap) {
        *wall_overlap = wall;
    }
    return ORCA_OK;
}

/* ---------------------------------------------------------------------------------------
 * State hash and snapshots (docs/determinism.md)
 * ------------------------------------------------------------------------------------- */

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* FNV-1a over the value's bytes, most significant first: independent of byte order. */
static uint64_t hash_u64(uint64_t h, uint64_t v)
{
    for (int b = 56; b >= 0; b -= 8) {
        h ^= (v >> b) & 0xffu;
        h *= FNV_PRIME;
    }
    return h;
}

static uint64_t f64_bits(double x)
{
    uint64_t v;
    memcpy(&v, &x, sizeof v);
    return v;
}

static double bits_f64(uint64_t v)
{
    double x;
    memcpy(&x, &v, sizeof x);
    return x;
}

static uint64_t hash_f64(uint64_t h, double x)
{
    return hash_u64(h, x != x ? 0x7ff8000000000000ull : f64_bits(x));
}

static uint64_t hash_vec(uint64_t h, orca_vec2 v)
{
    return hash_f64(hash_f64(h, v.x), v.y);
}

uint64_t orca_sim_hash(const orca_sim *s)
{
    uint64_t h = FNV_OFFSET;
    if (!s) {
        return h;
    }
    h = hash_u64(h, (uint64_t)s->agent_count);
    for (int32_t i = 0; i < s->agent_count; ++i) {
        h = hash_vec(h, s->pos[i]);
        h = hash_vec(h, s->vel[i]);
        h = hash_vec(h, s->pref[i]);
        h = hash_f64(h, s->par[i].radius);
        h = hash_f64(h, s->par[i].max_speed);
        h = hash_f64(h, s->par[i].neighbor_dist);
        h = hash_u64(h, (uint64_t)s->par[i].max_neighbors);
        h = hash_f64(h, s->par[i].tau);
        h = hash_f64(h, s->par[i].tau_obst);
    }
    h = hash_u64(h, (uint64_t)s->segment_count);
    for (int32_t k = 0; k < s->segment_count; ++k) {
        h = hash_vec(h, s->seg_a[k]);
        h = hash_vec(h, s->seg_b[k]);
    }
    return h;
}

#define SNAP_MAGIC "ORCASNAP"
#define SNAP_VERSION 1u
#define SNAP_HEADER 48        /* magic 8, version 4, steps 8, 2 x (count, slots, free head) 24, pad 4 */
#define SNAP_AGENT (4 + 11 * 8 + 4)
#define SNAP_SEGMENT (4 + 4 * 8)
#define SNAP_SLOT 12

typedef struct snap_writer {
    unsigned char *p;
} snap_writer;

static void put_u32(snap_writer *w, uint32_t v)
{
    for (int b = 0; b < 4; ++b) {
        *w->p++ = (unsigned char)(v >> (8 * b));
    }
}

static void put_u64(snap_writer *w, uint64_t v)
{
    for (int b = 0; b < 8; ++b) {
        *w->p++ = (unsigned char)(v >> (8 * b));
    }
}

static void put_f64(snap_writer *w, double x)
{
    put_u64(w, f64_bits(x));
}

static void put_vec(snap_writer *w, orca_vec2 v)
{
    put_f64(w, v.x);
    put_f64(w, v.y);
}

static void put_slots(snap_writer *w, const slot_table *t)
{
    for (int32_t k = 0; k < t->count; ++k) {
        put_u32(w, t->generation[k]);
        put_u32(w, (uint32_t)t->index[k]);
        put_u32(w, (uint32_t)t->next_free[k]);
    }
}

static uint64_t checksum(const unsigned char *p, size_t n)
{
    uint64_t h = FNV_OFFSET;
    for (size_t k = 0; k < n; ++k) {
        h ^= p[k];
        h *= FNV_PRIME;
    }
    return h;
}

/* The bytes of a snapshot with these counts (64-bit arithmetic: at most about 1.1e11 for
 * the largest counts, which a 32-bit size_t does not hold; callers compare with SIZE_MAX). */
static uint64_t snapshot_bytes(uint64_t agents, uint64_t agent_slots, uint64_t segments,
                               uint64_t segment_slots)
{
    return SNAP_HEADER + agent_slots * SNAP_SLOT + agents * SNAP_AGENT +
           segment_slots * SNAP_SLOT + segments * SNAP_SEGMENT + 8;
}

orca_status orca_sim_save(const orca_sim *s, void *buffer, size_t capacity, size_t *size)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    clear_error(s);
    if (!size) {
        return fail(s, ORCA_ERR_NULL, "size pointer is NULL");
    }
    uint64_t bytes = snapshot_bytes((uint64_t)s->agent_count, (uint64_t)s->agent_slots.count,
                                    (uint64_t)s->segment_count, (uint64_t)s->segment_slots.count);
    if (bytes > SIZE_MAX) {
        return fail(s, ORCA_ERR_LIMIT, "the snapshot would need %llu bytes, more than a size_t holds",
                    (unsigned long long)bytes);
    }
    size_t need = (size_t)bytes;
    *size = need;
    if (!buffer) {
        return ORCA_OK;
    }
    if (capacity < need) {
        return fail(s, ORCA_ERR_LIMIT, "snapshot needs %zu bytes, buffer holds %zu", need, capacity);
    }
    snap_writer w = {buffer};
    memcpy(w.p, SNAP_MAGIC, 8);
    w.p += 8;
    put_u32(&w, SNAP_VERSION);
    put_u64(&w, s->steps);
    put_u32(&w, (uint32_t)s->agent_count);
    put_u32(&w, (uint32_t)s->agent_slots.count);
    put_u32(&w, (uint32_t)s->agent_slots.free_head);
    put_u32(&w, (uint32_t)s->segment_count);
    put_u32(&w, (uint32_t)s->segment_slots.count);
    put_u32(&w, (uint32_t)s->segment_slots.free_head);
    put_u32(&w, 0);
    put_slots(&w, &s->agent_slots);
    for (int32_t i = 0; i < s->agent_count; ++i) {
        put_u32(&w, s->agent_slot[i]);
        put_vec(&w, s->pos[i]);
        put_vec(&w, s->vel[i]);
        put_vec(&w, s->pref[i]);
        put_f64(&w, s->par[i].radius);
        put_f64(&w, s->par[i].max_speed);
        put_f64(&w, s->par[i].neighbor_dist);
        put_f64(&w, s->par[i].tau);
        put_f64(&w, s->par[i].tau_obst);
        put_u32(&w, (uint32_t)s->par[i].max_neighbors);
    }
    put_slots(&w, &s->segment_slots);
    for (int32_t k = 0; k < s->segment_count; ++k) {
        put_u32(&w, s->segment_slot[k]);
        put_vec(&w, s->seg_a[k]);
        put_vec(&w, s->seg_b[k]);
    }
    put_u64(&w, checksum(buffer, need - 8));
    return ORCA_OK;
}

typedef struct snap_reader {
    const unsigned char *p;
} snap_reader;

static uint32_t get_u32(snap_reader *r)
{
    uint32_t v = 0;
    for (int b = 0; b < 4; ++b) {
        v |= (uint32_t)*r->p++ << (8 * b);
    }
    return v;
}

static uint64_t get_u64(snap_reader *r)
{
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) {
        v |= (uint64_t)*r->p++ << (8 * b);
    }
    return v;
}

static orca_vec2 get_vec(snap_reader *r)
{
    orca_vec2 v;
    v.x = bits_f64(get_u64(r));
    v.y = bits_f64(get_u64(r));
    return v;
}

/* Reads and checks a slot table against the dense array's slots (n objects). */
static orca_status get_slots(orca_sim *err, snap_reader *r, slot_table *t, int32_t slots,
                             int32_t free_head, const char *what)
{
    if (!slots_reserve(t, slots > 0 ? slots : 1)) {
        return fail(err, ORCA_ERR_MEMORY, "out of memory reading %s slots", what);
    }
    t->count = slots;
    t->free_head = free_head;
    for (int32_t k = 0; k < slots; ++k) {
        t->generation[k] = get_u32(r);
        t->index[k] = (int32_t)get_u32(r);
        t->next_free[k] = (int32_t)get_u32(r);
        if (t->generation[k] == 0) {
            return fail(err, ORCA_ERR_FORMAT, "snapshot: %s slot %d has generation 0", what, k);
        }
    }
    /* the free list: every free slot exactly once, no cycle */
    int32_t walked = 0, free_slots = 0;
    for (int32_t k = 0; k < slots; ++k) {
        free_slots += t->index[k] == -1;
    }
    for (int32_t k = free_head; k != -1; k = t->next_free[k]) {
        if (k < 0 || k >= slots || t->index[k] != -1 || ++walked > free_slots) {
            return fail(err, ORCA_ERR_FORMAT, "snapshot: %s free list is corrupt", what);
        }
    }
    if (walked != free_slots) {
        return fail(err, ORCA_ERR_FORMAT, "snapshot: %s free list misses %d free slots", what,
                    free_slots - walked);
    }
    return ORCA_OK;
}

static orca_status check_slot_links(orca_sim *err, const slot_table *t, const uint32_t *dense,
                                    int32_t n, const char *what)
{
    int32_t live = 0;
    for (int32_t k = 0; k < t->count; ++k) {
        int32_t ix = t->index[k];
        if (ix == -1) {
            continue;
        }
        if (ix < 0 || ix >= n || dense[ix] != (uint32_t)k) {
            return fail(err, ORCA_ERR_FORMAT, "snapshot: %s slot %d points to a wrong index %d", what,
                        k, ix);
        }
        ++live;
    }
    if (live != n) {
        return fail(err, ORCA_ERR_FORMAT, "snapshot: %d %s slots for %d %ss", live, what, n, what);
    }
    return ORCA_OK;
}

/* Swaps the state (not the workers, callbacks or caches) of two simulations. */
static void swap_state(orca_sim *a, orca_sim *b)
{
    orca_sim t = *a;
#define SW(f) (a->f = b->f, b->f = t.f)
    SW(agent_count);
    SW(agent_capacity);
    SW(pos);
    SW(vel);
    SW(pref);
    SW(par);
    SW(agent_slot);
    SW(agent_slots);
    SW(cell_index);
    SW(cell_pos);
    SW(cell_vel);
    SW(cell_radius);
    SW(rank);
    SW(segment_count);
    SW(segment_capacity);
    SW(seg_a);
    SW(seg_b);
    SW(segment_slot);
    SW(segment_slots);
    SW(steps);
#undef SW
    a->grid_valid = 0;
    a->obstacle_grid_valid = 0;
}

static orca_status load_into(orca_sim *s, orca_sim *t, const unsigned char *bytes, size_t size)
{
    if (size < SNAP_HEADER + 8 || memcmp(bytes, SNAP_MAGIC, 8) != 0) {
        return fail(s, ORCA_ERR_FORMAT, "not an orca snapshot (%zu bytes, bad magic)", size);
    }
    snap_reader r = {bytes + 8};
    uint32_t version = get_u32(&r);
    if (version != SNAP_VERSION) {
        return fail(s, ORCA_ERR_FORMAT, "snapshot version %u, this library reads version %u",
                    (unsigned)version, SNAP_VERSION);
    }
    uint64_t steps = get_u64(&r);
    uint32_t na = get_u32(&r), nas = get_u32(&r);
    int32_t afree = (int32_t)get_u32(&r);
    uint32_t ns = get_u32(&r), nss = get_u32(&r);
    int32_t sfree = (int32_t)get_u32(&r);
    (void)get_u32(&r);
    if (na > (1u << 30) || nas > (1u << 30) || ns > (1u << 28) || nss > (1u << 28) || na > nas ||
        ns > nss) {
        return fail(s, ORCA_ERR_FORMAT, "snapshot counts out of range (%u agents, %u segments)",
                    (unsigned)na, (unsigned)ns);
    }
    uint64_t need = snapshot_bytes(na, nas, ns, nss);
    if ((uint64_t)size != need) {
        return fail(s, ORCA_ERR_FORMAT, "snapshot is %zu bytes, its header says %llu (truncated?)",
                    size, (unsigned long long)need);
    }
    snap_reader tail = {bytes + size - 8};
    if (get_u64(&tail) != checksum(bytes, size - 8)) {
        return fail(s, ORCA_ERR_FORMAT, "snapshot checksum mismatch (corrupt bytes)");
    }
    orca_status st = get_slots(s, &r, &t->agent_slots, (int32_t)nas, afree, "agent");
    if (st != ORCA_OK) {
        return st;
    }
    if (!agents_reserve(t, (int32_t)na > 0 ? (int32_t)na : 1)) {
        return fail(s, ORCA_ERR_MEMORY, "out of memory reading %u agents", (unsigned)na);
    }
    for (int32_t i = 0; i < (int32_t)na; ++i) {
        orca_agent_def d;
        t->agent_slot[i] = get_u32(&r);
        d.position = get_vec(&r);
        d.velocity = get_vec(&r);
        d.preferred_velocity = get_vec(&r);
        d.radius = bits_f64(get_u64(&r));
        d.max_speed = bits_f64(get_u64(&r));
        d.neighbor_dist = bits_f64(get_u64(&r));
        d.time_horizon = bits_f64(get_u64(&r));
        d.obstacle_time_horizon = bits_f64(get_u64(&r));
        d.max_neighbors = (int32_t)get_u32(&r);
        st = check_agent_def(s, &d);
        if (st != ORCA_OK) {
            char msg[sizeof s->error];
            snprintf(msg, sizeof msg, "%s", s->error);
            return fail(s, ORCA_ERR_FORMAT, "snapshot agent %d: %s", i, msg);
        }
        agent_store(t, i, &d);
        t->par[i].nb_guess = 0;
    }
    t->agent_count = (int32_t)na;
    if ((st = check_slot_links(s, &t->agent_slots, t->agent_slot, t->agent_count, "agent")) != ORCA_OK) {
        return st;
    }
    st = get_slots(s, &r, &t->segment_slots, (int32_t)nss, sfree, "segment");
    if (st != ORCA_OK) {
        return st;
    }
    if (!segments_reserve(t, (int32_t)ns > 0 ? (int32_t)ns : 1)) {
        return fail(s, ORCA_ERR_MEMORY, "out of memory reading %u segments", (unsigned)ns);
    }
    for (int32_t k = 0; k < (int32_t)ns; ++k) {
        t->segment_slot[k] = get_u32(&r);
        t->seg_a[k] = get_vec(&r);
        t->seg_b[k] = get_vec(&r);
        char what[48];
        snprintf(what, sizeof what, "snapshot segment %d start", (int)k);
        if ((st = check_coord(s, what, t->seg_a[k])) != ORCA_OK) {
            return ORCA_ERR_FORMAT;
        }
        snprintf(what, sizeof what, "snapshot segment %d end", (int)k);
        if ((st = check_coord(s, what, t->seg_b[k])) != ORCA_OK) {
            return ORCA_ERR_FORMAT;
        }
    }
    t->segment_count = (int32_t)ns;
    if ((st = check_slot_links(s, &t->segment_slots, t->segment_slot, t->segment_count, "segment")) !=
        ORCA_OK) {
        return st;
    }
    t->steps = steps;
    return ORCA_OK;
}

orca_status orca_sim_load(orca_sim *s, const void *buffer, size_t size)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    clear_error(s);
    if (!buffer) {
        return fail(s, ORCA_ERR_NULL, "snapshot buffer is NULL");
    }
    orca_sim *t = orca_mem_zalloc(1, sizeof *t);
    if (!t) {
        return fail(s, ORCA_ERR_MEMORY, "out of memory reading a snapshot");
    }
    t->agent_slots.free_head = -1;
    t->segment_slots.free_head = -1;
    orca_status st = load_into(s, t, buffer, size);
    if (st == ORCA_OK) {
        swap_state(s, t);
    }
    /* t now holds whichever state is discarded */
    free_agent_arrays(t);
    orca_mem_free(t->seg_a);
    orca_mem_free(t->seg_b);
    orca_mem_free(t->segment_slot);
    slots_free(&t->agent_slots);
    slots_free(&t->segment_slots);
    orca_mem_free(t);
    return st;
}
