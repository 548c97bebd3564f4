/* SPDX-License-Identifier: MIT */
/* Private: what the simulator's files share (docs/algorithm.md §11 and §12 describe what they
 * compute). The simulation object and its parts are defined here; each file owns one part:
 *   sim.c       the object: creation, workers, errors, running tasks, validation of values
 *   handles.c   slot tables: handle -> index, with generations to detect stale handles
 *   agents.c    the agent and segment API: storage in index order, add, remove, get, set
 *   grid.c      the neighbour grids (agents, segments) and the workers' buffers
 *   step.c      neighbour selection, the step (with sim_step.inc) and the queries
 *   snapshot.c  the state hash and snapshots
 *   query.c     the spatial queries (radius, nearest, box)
 *   extensions.c  per-agent avoidance settings (priority, layers, locked) and diagnostics:
 *               their API and storage; the step's extended path is in step.c
 *   boundary.c  walkable-area boundaries: their API, storage, edge grid and constraints
 *   density.c   the density-dependent speed: its parameters, estimator, exp and factor
 *   pedestrian.c  the pedestrian model: its parameters, the agents' streams, counter mode and
 *               the headway half-planes (docs/pedestrians.md)
 * Names shared between the files carry the orca_ prefix (safe in a static archive) but are
 * not part of the API; the shared library hides them. */
#ifndef ORCA_SIM_INTERNAL_H
#define ORCA_SIM_INTERNAL_H

#include "orca/sim.h"

#include "orca/solver.h"
#include "alloc.h"
#include "kernels.h"
#include "pool.h"
#include "text.h" /* ORCA_PRINTF */
#include "vec.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#define PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#else
#define PREFETCH(p) ((void)(p))
#define PREFETCH_WRITE(p) ((void)(p))
#endif

/* --- slot tables (handles.c) ---------------------------------------------------------- */

typedef struct slot_table {
    uint32_t *generation; /* current generation of each slot (>= 1) */
    int32_t *index;       /* dense index of the live object, -1 when free */
    int32_t *next_free;   /* free list link, -1 at the end */
    int32_t free_head;
    int32_t count;
    int32_t capacity;
} slot_table;

void orca_slots_free(slot_table *t);
/* Room for need slots; 0 when out of memory (the table is unchanged). */
int orca_slots_reserve(slot_table *t, int32_t need);
int32_t orca_slots_peek(const slot_table *t);
void orca_slots_take(slot_table *t, int32_t slot, int32_t index);
void orca_slots_release(slot_table *t, int32_t slot);
void orca_slots_after_removal(slot_table *t, uint32_t slot, const uint32_t *dense, int32_t i,
                              int32_t n);
int32_t orca_slots_lookup(const slot_table *t, uint32_t slot, uint32_t generation);
/* The refusal of a handle of kind ("agent", "segment", "boundary") that names no live object
 * of s: ORCA_ERR_FOREIGN when it carries another simulation's identity (the null handle
 * excepted), else ORCA_ERR_STALE. The message starts with prefix ("" or "ids[3]: ") and ends
 * with suffix ("" or "; nothing was removed"). */
orca_status orca_fail_handle(const orca_sim *s, const char *kind, uint32_t slot,
                             uint32_t generation, uint32_t sim, const char *prefix,
                             const char *suffix);

/* --- cell maps (grid.c; lookups inline, the step's obstacle search uses them) --------- */

/* Grid queries widen their radius by a relative margin far above the rounding of the cell
 * arithmetic, plus this absolute one: a squared distance that underflows (|d| < 2^-537)
 * says nothing about the distance, so agents and segments that close must still be found. */
#define MARGIN_ABS 0x1p-530

#define CELL_EMPTY UINT64_MAX
#define CELL_LIMIT 1073741824.0 /* 2^30: cell coordinates are clamped to +-this */
/* The dense agent grid's columns: this many to a row's cell height (grid.c) */
#define GRID_X_SPLIT 4
#define GRID_SPLIT_EXTRA ((int64_t)1 << 18) /* cells the split columns may add (grid.c) */

typedef struct cell_map {
    uint64_t *keys;
    int32_t *start;
    int32_t *count;
    uint32_t mask; /* capacity - 1 */
} cell_map;

static inline uint32_t cell_hash(uint64_t key, uint32_t mask)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static inline int64_t cell_map_find(const cell_map *m, uint64_t key)
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
static inline int32_t cell_coord(double x, double inv)
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

static inline uint64_t cell_key(int32_t cx, int32_t cy)
{
    /* cx, cy in [-2^30 - 1, 2^30 + 1]: the offsets make both halves positive and below 2^32,
     * so no key equals CELL_EMPTY */
    return ((uint64_t)((int64_t)cx + 2 + (int64_t)CELL_LIMIT) << 32) |
           (uint64_t)((int64_t)cy + 2 + (int64_t)CELL_LIMIT);
}

void orca_cell_map_free(cell_map *m);

/* --- the simulation object ----------------------------------------------------------- */

/* Per agent, index order. */
typedef struct agent_params {
    double radius, max_speed, neighbor_dist, tau, tau_obst;
    int32_t max_neighbors;
    float nb_guess; /* a search-radius hint (select_agents): 0 none, < 0 the list was not
                       full; not state. In the record's padding: a separate array would cost
                       4 more bytes an agent (and a cache line more per agent at 1M). */
} agent_params;

/* Per agent, index order: the avoidance extensions (orca_agent_avoidance, stored). */
typedef struct agent_ext {
    double priority;
    uint32_t layers, mask;
    int32_t locked;
} agent_ext;

/* The agent grid's cells are sized from the neighbour distances of the agents that search
 * (max_neighbors > 0) in binades: bin b holds 2^(b + ND_BIN_LOW) <= neighbor_dist <
 * 2^(b + ND_BIN_LOW + 1) (the last bin up to 2^23; every smaller distance, 0 included, in bin
 * 0). grid.c's grid_need reads it. */
#define ND_BINS 64
#define ND_BIN_LOW (-40)

/* The bin of a neighbour distance nd in [0, 2^23] (-0 as 0): its binary exponent, from the
 * bits (no floating-point operation), clamped to the bins. */
static inline int nd_bin(double nd)
{
    uint64_t u;
    memcpy(&u, &nd, sizeof u);
    int e = (int)((u >> 52) & 0x7ff) - 1023;
    e = e < ND_BIN_LOW ? ND_BIN_LOW : e;
    e = e > ND_BIN_LOW + ND_BINS - 1 ? ND_BIN_LOW + ND_BINS - 1 : e;
    return e - ND_BIN_LOW;
}

/* What the agent grid is sized by: the agents' bounding box, the largest diameter, the
 * neighbour distances by binade (the searching agents in each bin and the largest distance
 * one of them had), obstacle reach and list capacity. */
typedef struct grid_bounds {
    double diam, lox, loy, hix, hiy, reach;
    int max_nb;
    int any; /* 0 until the first agent */
    int32_t nd_count[ND_BINS];
    double nd_max[ND_BINS];
} grid_bounds;

/* b widened to take the position p. Min and max are exact, so the order of widening does not
 * matter. */
static inline void bounds_add_box(grid_bounds *b, orca_vec2 p)
{
    if (!b->any) {
        b->lox = b->hix = p.x;
        b->loy = b->hiy = p.y;
        b->any = 1;
    }
    b->lox = p.x < b->lox ? p.x : b->lox;
    b->loy = p.y < b->loy ? p.y : b->loy;
    b->hix = p.x > b->hix ? p.x : b->hix;
    b->hiy = p.y > b->hiy ? p.y : b->hiy;
}

/* b's sizes taking agent a: its diameter, reach and list capacity widen the largest ones, and
 * a searching agent counts in its neighbour distance's bin (bounds_drop_sizes takes it out
 * again). Sums, min and max are exact, so the order does not matter. */
static inline void bounds_add_sizes(grid_bounds *b, const agent_params *a)
{
    double c2 = a->radius * 2;
    double r = a->tau_obst * a->max_speed + a->radius;
    b->diam = c2 > b->diam ? c2 : b->diam;
    b->reach = r > b->reach ? r : b->reach;
    b->max_nb = a->max_neighbors > b->max_nb ? a->max_neighbors : b->max_nb;
    if (a->max_neighbors > 0) {
        int k = nd_bin(a->neighbor_dist);
        b->nd_count[k]++;
        b->nd_max[k] = a->neighbor_dist > b->nd_max[k] ? a->neighbor_dist : b->nd_max[k];
    }
}

/* Agent a leaves b's neighbour distance bins (it is removed or about to change); the largest
 * sizes stay (larger than the agents' only changes the grid, which only finds candidates). */
static inline void bounds_drop_sizes(grid_bounds *b, const agent_params *a)
{
    if (a->max_neighbors > 0) {
        b->nd_count[nd_bin(a->neighbor_dist)]--;
    }
}

/* b widened to agent a at p: the bounds pass (grid.c) and an added agent (agents.c). */
static inline void bounds_add(grid_bounds *b, const agent_params *a, orca_vec2 p)
{
    bounds_add_sizes(b, a);
    bounds_add_box(b, p);
}

typedef struct worker {
    neighbor *agents;  /* capacity: the largest max_neighbors */
    neighbor *obstacles; /* capacity: the segment count */
    orca_halfplane *planes;  /* capacity: segments + largest max_neighbors */
    orca_halfplane *scratch; /* same */
    uint32_t *stamp;   /* per segment: the last query that saw it */
    cand_buf *cand;    /* the hinted search's candidates (next to agents: see workers_reserve) */
    neighbor *order;   /* the extended path: the neighbour list, locked neighbours first */
    double *share;     /* the extended path: each neighbour's share, in that order */
    void *block;       /* the one allocation behind the six buffers above */
    uint32_t query;
    int fallbacks;
    grid_bounds bounds; /* this worker's part of the grid's bounds (bounds_task), and in a
                           step the box of the positions its agents moved to */
    double overlap[2];  /* this worker's deepest overlaps (orca_sim_measure_overlap) */
    int32_t stream_lo, stream_hi; /* the least and largest stream >= 0 of its agents
                                     (orca_ped_prepare) */
    char pad[64]; /* workers write their own counters: keep them off each other's cache lines */
} worker;

struct orca_sim {
    /* agents, index order */
    int32_t agent_count, agent_capacity;
    orca_vec2 *pos, *vel, *pref;
    agent_params *par; /* the rest of each agent's parameters, together: the step reads
                          them in one or two cache lines */
    orca_vec2 *pref_next; /* orca_sim_step_rule: the rule's preferred velocities, exchanged
                             with pref when the step succeeds (agent_capacity entries when
                             pref_next_cap says so; scratch, not state) */
    int32_t pref_next_cap;
    const orca_vec2 *step_pref; /* the preferred velocities the running step reads */
    uint32_t *agent_slot; /* AGENT_DEAD: removed, compaction pending (orca_agents_settle) */
    slot_table agent_slots;
    /* Removals not yet compacted (agents.c): the removed agents' indices in the arrays above,
     * ascending, and how many. agent_count includes them until orca_agents_settle. */
    int32_t *dead;
    int32_t dead_count, dead_capacity;
    int32_t index_limit; /* agent_count while no removal is pending, else 0: the one bound
                            orca_sim_agent_at's common path checks */

    /* segments, index order */
    int32_t segment_count, segment_capacity; /* segment_count includes pending removals */
    orca_vec2 *seg_a, *seg_b;
    uint32_t *segment_slot; /* SEGMENT_DEAD: removed, compaction pending */
    slot_table segment_slots;
    /* Segment removals not yet compacted, as for the agents (orca_segments_settle). */
    int32_t *seg_dead;
    int32_t seg_dead_count, seg_dead_capacity;

    /* agent grid (a cache of the current state): agents sorted by cell, with copies of what
     * the neighbour loops read, in that order, so that they stream through memory */
    int grid_valid;
    /* The agents' box and sizes as the grid is built from them (build_agent_grid), kept
     * between builds while bounds_valid: a step writes the box of the positions it moved the
     * agents to; adding an agent widens a valid box and sizes to it (bounds_add), moving one
     * widens the box, changing one takes its old neighbour distance out of the bins and
     * widens to the new values, a removal takes it out of the bins and keeps the rest (a box
     * or size larger than the agents' changes only the grid, which only finds candidates);
     * a load clears bounds_valid. */
    grid_bounds bounds;
    int bounds_valid;
    int grid_dense;         /* 1: dense row-major cells, cell tall and cell_x wide; 0: hashed
                             * square cells of size cell */
    double grid_cover;      /* hashed: a query within this radius visits the 3 by 3 block */
    int32_t hash_box[4];    /* hashed: the agents' lowest and highest cell x, then y */
    double cell, inv_cell, origin_x, origin_y;
    double cell_x, inv_cell_x; /* dense: the columns' width, cell / grid_split */
    int32_t grid_split;        /* dense: GRID_X_SPLIT or 1 */
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
    /* Internal to orca on MPI (mpi/mpi.c): NULL, or one byte per agent for the next step; a
     * new velocity that fails the step's check refuses the step only for an agent i with
     * step_check[i] != 0. The others (halo copies, whose own ranks compute them) keep what
     * they got, unchecked, and step_unchecked_bad is set (the kept box is then rebuilt); their
     * fallbacks are not counted (orca_sim_last_fallback_count: the owned agents' only). */
    const unsigned char *step_check;
    atomic_int step_unchecked_bad;

    int vector; /* 1: the vector kernels (kernels.h) run in the step */

    /* extensions (docs/extensions.md), index order, capacity agent_capacity; NULL until used */
    agent_ext *ext;          /* per agent: priority, layers, mask, locked */
    /* The extended path's sorted copy of ext for the step without diagnostics (step.c,
     * ext_prepare; a cache, capacity cell_ext_cap), and what that step needs to know. */
    agent_ext *cell_ext;
    uint32_t *cell_layers;
    int32_t cell_ext_cap;
    uint32_t ext_mask_and; /* the AND of every agent's mask */
    int ext_shares;        /* 1: some agent's settings differ from the defaults */
    int ext_layered;       /* 1: some agent's layers miss some agent's mask (a test against
                              ext_mask_and, which may say so when it is not: the
                              layered search then finds the same lists): the layered search
                              runs */
    int ext_locked_any;    /* 1: some agent is locked */
    int ext_boundaries;    /* 1: has_boundaries and some agent may reach an edge */
    int32_t ext_nondefault;  /* agents whose settings differ from the defaults: while 0 the
                                step is the algorithm's plain path */
    int diagnostics;         /* 1: the step records diag (not state) */
    int separation;          /* 1: coincident agents are separated on every path (state: the
                                hash's and the snapshot's separation flag); the extended path
                                separates them anyway (sep_active) */
    int density_on;          /* 1: the density-dependent speed (state: the hash's and the
                                snapshot's density section); the step runs the extended path */
    orca_density_speed density; /* its parameters while density_on */
    int ped_on;              /* 1: the pedestrian model (state: the hash's and the snapshot's
                                pedestrian section); the step runs the extended path */
    orca_pedestrian ped;     /* its parameters while ped_on */
    int32_t *stream;         /* per agent, index order, capacity agent_capacity: its stream
                                (-1 none); NULL until some agent gets one >= 0 */
    int32_t stream_count;    /* agents whose stream is >= 0 (state while above 0: the hash's
                                and the snapshot's stream section) */
    /* The step's sorted copies of the stored preferred velocities and the streams while
     * ped_on (pedestrian.c, orca_ped_prepare; a cache, capacity cell_ped_cap). */
    orca_vec2 *cell_pref;
    int32_t *cell_stream;
    int32_t cell_ped_cap;
    int ped_opposing;        /* 1: two agents have different streams >= 0 (else no agent
                                can be in counter mode: part A is skipped) */
    int worker_headway_cap;  /* the workers' planes have room for this many headway ones */
    orca_agent_diagnostics *diag; /* per agent: the last step's; NULL until needed */
    orca_step_diagnostics diag_counts;

    /* walkable-area boundaries (boundary.c); NULL until the first one is added */
    struct boundary_set *bnd;

    uint64_t steps;
    int last_fallbacks;
    uint32_t id; /* orca_sim_id: carried by every handle issued here; not state */
    char error[512];
};

/* x is sim_finite (fast-math is refused by fp.h, so x - x is 0 exactly for finite x). */
static inline int sim_finite(double x)
{
    return x - x == 0;
}

/* v is a velocity or preferred velocity in range: |x|, |y| <= 2^31 (NaN is not). */
static inline int sim_velocity_ok(orca_vec2 v)
{
    return d_mag(v.x) <= ORCA_VELOCITY_LIMIT && d_mag(v.y) <= ORCA_VELOCITY_LIMIT;
}

/* An agent whose max speed is 0 stands still: its new velocity is a zero (algorithm.md §11.3,
 * choice 16). Called after the solve (rare: off the common path) by both step paths. */
static inline void stand_still(orca_solve_result *res)
{
    /* The program's own result is kept when it is a zero of either sign (then it is within
     * the max speed 0 and a port of algorithm.md without this rule has the same bits); only a
     * non-zero result, which an underflowing |p| or a line through the origin can leave, is
     * replaced by (+0, +0) (choice 16). */
    if (res->velocity.x != 0 || res->velocity.y != 0) {
        res->velocity.x = 0;
        res->velocity.y = 0;
    }
    res->failed = -1;
    res->fallback = 0;
}

/* *a = min(*a, i), for "the lowest index that failed" from tasks on several workers (the
 * same index in any split). */
static inline void sim_atomic_min(atomic_int *a, int i)
{
    int cur = atomic_load(a);
    while (i < cur && !atomic_compare_exchange_weak(a, &cur, i)) {
    }
}

/* sim.c: errors, running tasks, validation */
orca_status orca_fail(const orca_sim *sim, orca_status st, const char *fmt, ...) ORCA_PRINTF(3, 4);
void orca_clear_error(const orca_sim *sim);
void orca_free_agent_arrays(orca_sim *s);
void orca_run_task_ranged(orca_sim *s, orca_task_fn *fn, int count, int min_range, void *ctx);
void orca_run_task(orca_sim *s, orca_task_fn *fn, int count, void *ctx);
/* Light per-agent passes (a few nanoseconds an agent): below this many agents the caller runs
 * them itself, since waking the workers would cost more. Each pass writes its own slots or
 * exact minima and maxima, so the split never changes a result. */
#define LIGHT_TASK_MIN 16384
void orca_run_light_task(orca_sim *s, orca_task_fn *fn, int count, void *ctx);
orca_status orca_check_coord(const orca_sim *s, const char *what, orca_vec2 p);
orca_status orca_check_vector(const orca_sim *s, const char *what, orca_vec2 v);
/* The refusal of preferred velocity v of agent index, out of range (sim_velocity_ok). */
orca_status orca_fail_preferred(const orca_sim *s, int index, orca_vec2 v);
orca_status orca_check_dt(const orca_sim *s, double dt);
orca_status orca_check_agent_def(const orca_sim *s, const orca_agent_def *d);

/* The index of a live agent of s, or -1 (a stale handle, or one of another simulation). */
static inline int32_t agent_lookup(const orca_sim *s, orca_agent_id id)
{
    return id.sim == s->id ? orca_slots_lookup(&s->agent_slots, id.slot, id.generation) : -1;
}

#define AGENT_OR_FAIL(s, id, i)                                                           \
    if (!(s)) {                                                                         \
        return ORCA_ERR_NULL;                                                           \
    }                                                                                   \
    orca_clear_error(s);                                                                     \
    int32_t i = agent_lookup((s), (id));                                                \
    if (i < 0) {                                                                        \
        return orca_fail_handle((s), "agent", (id).slot, (id).generation, (id).sim, "", ""); \
    }

/* agents.c: removal and its compaction. An index-order slot whose agent was removed holds
 * AGENT_DEAD; orca_agents_settle moves the live agents down over them (index order kept) in
 * one pass. Every call that reads or writes agents by index, steps, queries, hashes or saves
 * settles first; handles and the agent count need no settling. */
#define AGENT_DEAD UINT32_MAX
void orca_agents_compact(orca_sim *s);
/* Moves the count agents at indices [from, from + count) to [at, at + count) (overlap
 * allowed): every per-agent array, and their handles follow. The one list of the per-agent
 * arrays: a new one is added here (removal's compaction moves agents through it). */
void orca_agents_move(orca_sim *s, int32_t at, int32_t from, int32_t count);
static inline void orca_agents_settle(const orca_sim *s)
{
    if (s->dead_count > 0) {
        orca_agents_compact((orca_sim *)s); /* storage only: the state is the same */
    }
}

/* agents.c: the same for segments. Every call that reads segments by index, builds the
 * obstacle grid (orca_grid_prepare: steps, per-agent constraints and neighbours, queries,
 * measurements), hashes or saves settles them first; handles and the segment count need no
 * settling, and orca_sim_segment_at answers without it. */
#define SEGMENT_DEAD UINT32_MAX
void orca_segments_compact(orca_sim *s);
static inline void orca_segments_settle(const orca_sim *s)
{
    if (s->seg_dead_count > 0) {
        orca_segments_compact((orca_sim *)s); /* storage only: the state is the same */
    }
}

/* agents.c: storage */
int orca_agents_reserve(orca_sim *s, int32_t need);
int orca_segments_reserve(orca_sim *s, int32_t need);

/* Agent i's values become d's (every field but the search hint; no check: the caller's).
 * Inline, so that a bulk refill (orca_agents_refill) stores each agent without a call. */
static inline void orca_agent_store(orca_sim *s, int32_t i, const orca_agent_def *d)
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

/* Internal to orca on MPI (mpi/mpi.c refills a rank's local simulation every step): the
 * simulation's agents become n agents at indices 0 .. n - 1 whose values the caller then
 * writes itself, every one of them: orca_agent_store and par[i].nb_guess (a search hint, 0
 * for none). A trusted bulk refill: nothing checks those values, here or later, so they must
 * be values orca_check_agent_def passed already, or that a step's check passed (a position
 * and velocity the step moved an agent to). The walkable-area boundaries' disc check, which
 * only an addition of agents or of a loop makes (a step may leave an agent outside, and a
 * removed loop may), is not made: values a run of the same loops produced need none. Every
 * handle issued before goes stale
 * (agent i's handle is then orca_sim_agent_at(s, i)); the extensions' per-agent values are
 * at their defaults; the kept box and sizes are dropped (the next grid build measures the
 * agents). Segments and the simulation's options stay. A refusal changes nothing. */
orca_status orca_agents_refill(orca_sim *s, int32_t n);

/* extensions.c: storage of the extensions' arrays (agents.c calls these as it grows,
 * appends and removes agents) */
int orca_ext_reserve(orca_sim *s, int32_t cap); /* grows ext and diag (when allocated) */
void orca_ext_append(orca_sim *s, int32_t i);   /* defaults for a new agent at index i */
/* Allocates ext (every agent at the defaults) when it is not there yet; 0 when out of memory. */
int orca_ext_ensure(orca_sim *s);
/* Agent i's settings become e (checked), counted in ext_nondefault; 0 when out of memory. */
int orca_ext_store(orca_sim *s, int32_t i, const agent_ext *e);
int orca_ext_is_default(const agent_ext *e);
agent_ext orca_ext_defaults(void); /* an agent's settings until they are set */
/* Agent i's stream becomes g (>= -1, unchecked), counted in stream_count; 0 when out of
 * memory. */
int orca_stream_store(orca_sim *s, int32_t i, int32_t g);
int orca_diag_ensure(orca_sim *s); /* allocates diag; 0 when out of memory */
orca_status orca_check_avoidance(const orca_sim *s, const orca_agent_avoidance *a);
/* boundary.c: walkable-area boundaries (docs/extensions.md, "Walkable-area boundaries") */
typedef struct boundary_feature {
    double d2;   /* squared distance from the agent to the feature */
    int32_t key; /* 2 * edge + 1: an edge's interior; 2 * edge: the vertex an edge starts at */
    orca_halfplane plane;
} boundary_feature;

/* A mark per edge: the last pass over edges (query) that took it, so that an edge listed in
 * several cells is taken once a pass. Each worker and the disc check have their own. */
typedef struct boundary_stamp {
    uint32_t *mark;
    int32_t count; /* marks allocated */
    uint32_t query;
} boundary_stamp;

typedef struct boundary_scratch {
    boundary_stamp stamp;     /* count: at least the edge count */
    boundary_feature *feat;   /* capacity: the edge count */
    orca_halfplane *planes;   /* capacity: edges + segments + largest max_neighbors + 1 */
    orca_halfplane *scratch;  /* same */
    double deepest;           /* this worker's part of orca_sim_measure_boundary */
    int outside;
    char pad[64];
} boundary_scratch;

typedef struct boundary_set {
    /* loops, index order */
    int32_t loop_count, loop_capacity;
    int32_t *loop_first, *loop_len; /* edges loop_first .. loop_first + loop_len - 1 */
    uint32_t *loop_slot;
    slot_table slots;
    /* edges of all loops, loop after loop: edge k goes from ea[k] to eb[k]; enext[k] is the
     * edge that starts at eb[k] */
    int32_t edge_count, edge_capacity;
    orca_vec2 *ea, *eb;
    int32_t *enext;
    /* edge grid (a cache) */
    int grid_valid;
    double cell, inv_cell;
    cell_map cells;
    int32_t *list;
    int32_t list_len;
    /* the counts of the grid's occupied cells over their bounding box (occ_w by occ_h cells
     * from cell (occ_x, occ_y)) as a table of prefix sums, which tells an agent whose reach
     * holds no edge from four entries instead of a map lookup per cell; NULL when the box is
     * too large (or out of memory): then the lookups alone */
    int32_t *occ;
    int32_t occ_x, occ_y, occ_w, occ_h;
    /* per-worker scratch (a cache) */
    boundary_scratch *ws;
    int ws_count, ws_edges, ws_planes;
    /* the disc check and the measurement (a cache over the edge grid): the grid's occupied
     * cells in (row, column) order, their edges copied in that order, where each row begins,
     * and the disc check's stamp (the measurement's workers use theirs in ws) */
    int rows_valid;
    struct boundary_row *rows;
    int32_t row_count;
    struct boundary_row_edge *row_edges;
    int32_t *row_at;   /* row_at[j]: the first occupied cell of row row_first + j (of row_span) */
    int64_t row_first; /* high half of the first row's cell_key */
    int32_t row_span;
    boundary_stamp fit_stamp;
} boundary_set;

/* Builds the edge grid and the workers' scratch; 0 when out of memory. */
int orca_boundary_prepare(orca_sim *s);
void orca_boundary_free(struct boundary_set *b);
/* The boundary half-planes of agent i at p (radius r) for a step of length dt, in the order
 * of docs/extensions.md, into out; returns their number (at most the edge count). */
int orca_boundary_constraints(const orca_sim *s, int worker_index, int32_t i, orca_vec2 p,
                              double r, double dt, orca_halfplane *out);
/* 1 when no agent's reach (as orca_boundary_constraints searches it, from the agents'
 * positions now) holds an occupied cell of the edge grid: then every agent's boundary
 * half-planes are none this step (one pass over the agents instead of a search each). */
int orca_boundary_out_of_reach(const orca_sim *s, double dt);
orca_status orca_check_boundary(const orca_sim *s, const orca_vec2 *points, int count,
                                int32_t existing_edges);
/* Stores a validated loop (snapshots; the API) with the given slot already taken. */
int orca_boundary_append(orca_sim *s, const orca_vec2 *points, int count, uint32_t slot);
/* Refuses (ORCA_ERR_ARGUMENT, the message naming agent `index`, the loop, the edge and the
 * distance) a disc of centre p and radius r that does not fit in the walkable area
 * (docs/extensions.md, "Agents must fit"); ORCA_OK without boundaries; ORCA_ERR_MEMORY when
 * its index cannot be built. */
orca_status orca_boundary_check_agent(orca_sim *s, int32_t index, orca_vec2 p, double r);
/* grid.c: a cell index over the segments a[k] -> b[k], k < count (the segment grid and the
 * boundary edges' grid): each cell whose centre is within 0.75 cell of a segment lists it, in
 * index order. Fills cells, *list (reallocated) and *list_len; 0 when out of memory or beyond
 * 2^28 cell entries. */
int orca_segment_index_build(const orca_vec2 *a, const orca_vec2 *b, int32_t count, double cell,
                             double inv_cell, cell_map *cells, int32_t **list, int32_t *list_len);

static inline int has_boundaries(const orca_sim *s)
{
    return s->bnd && s->bnd->edge_count > 0;
}

/* The step's extended path is needed (some agent is not at the defaults, diagnostics,
 * boundaries, the separation option, the density-dependent speed or the pedestrian model). */
static inline int ext_path(const orca_sim *s)
{
    return s->ext_nondefault > 0 || s->diagnostics || has_boundaries(s) || s->separation ||
           s->density_on || s->ped_on;
}

/* Coincident agents are separated (docs/extensions.md, "Coincident agents"): the option, or
 * any extension that already takes the step beyond the algorithm's bits (avoidance settings,
 * boundaries, the density-dependent speed, the pedestrian model). Diagnostics alone do not:
 * they never change a bit. */
static inline int sep_active(const orca_sim *s)
{
    return s->separation || s->ext_nondefault > 0 || has_boundaries(s) || s->density_on ||
           s->ped_on;
}

/* density.c: the density-dependent speed (docs/extensions.md, "Density-dependent speed") */
/* exp(-x) for x >= 0 from + - * / only (0 for x > 708 and NaN; x < 0 as 0). */
double orca_exp_neg(double x);
/* The local density of an agent from its neighbour list (n entries by (squared distance,
 * index), capacity cap) with the kernel radius `radius`; +inf for a full list at distance 0. */
double orca_density_estimate(const neighbor *list, int n, int cap, double radius);
/* f(rho): 1 - exp(-gamma (1/rho - 1/max_density)) below max_density, else 0. */
double orca_density_factor(const orca_density_speed *p, double rho);
orca_status orca_check_density_speed(const orca_sim *s, const orca_density_speed *p);

/* pedestrian.c: the pedestrian model (docs/pedestrians.md) */
orca_status orca_check_pedestrian(const orca_sim *s, const orca_pedestrian *p);
/* A stream's range: -1 (none) or >= 0. */
orca_status orca_check_stream(const orca_sim *s, int32_t stream);
/* Fills the sorted copies cell_pref and cell_stream from the grid's order (the grid is
 * built); ORCA_ERR_MEMORY with the message when they cannot grow. */
orca_status orca_ped_prepare(orca_sim *s);
/* What the model decided for one agent: counter mode, and the headway half-planes. */
typedef struct ped_result {
    int counter;
    int planes;
} ped_result;
/* Counter mode (part A) of the agent at sorted position self with preferred velocity P and
 * neighbour list (na entries, (squared distance, index) order); 0 for an agent without a
 * stream. */
int orca_ped_counter(const orca_sim *s, int32_t self, orca_vec2 P, const neighbor *list, int na);
/* The agent time horizon tau_a (part A): tau in counter mode, else min(tau, time_gap). */
static inline double ped_tau(const orca_pedestrian *p, double tau, int counter)
{
    return counter ? tau : (p->time_gap < tau ? p->time_gap : tau);
}
/* The side preference (part D): the preferred velocity P that the linear program gets in
 * counter mode, turned to the walker's right by a fixed angle, its length kept. */
orca_vec2 orca_ped_keep_right(orca_vec2 P);
/* The headway half-planes (part C) of the agent at sorted position self with preferred
 * velocity P, from its list, into out (room for min(na, max_planes)); returns their number. */
int orca_ped_headway(const orca_sim *s, int32_t self, orca_vec2 P, const neighbor *list, int na,
                     orca_halfplane *out);

/* grid.c */
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

/* The agents within distance q of p (any q >= 0) as ranges of the sorted order, GRID_RANGES
 * at a time (grid.c): *next = 0 before the first call; call again while it is above 0. */
int orca_grid_query(const orca_sim *s, orca_vec2 p, double q, grid_range *out, int64_t *next);
/* A valid segment grid through the compaction of removed segments: the lists without them,
 * as slots, before the arrays move; the slots as the new indices after. */
void orca_obstacle_grid_drop_removed(orca_sim *s);
void orca_obstacle_grid_renumber(orca_sim *s);
/* Builds what a step or a query reads (the grids, the workers' buffers). */
orca_status orca_grid_prepare(const orca_sim *sim);
/* Tests only (test/test_kernels.c; not exported): the step's neighbour search of agent i from
 * the search hint `hint` (select_agents as the step runs it, in the scalar copy or, with
 * kernels where the CPU has them, the AVX2 one), which also renews the hint: the list's agent
 * indices into agents (room for max_neighbors). Returns its length, or -1 when the grids
 * cannot be built. */
int orca_step_search_test(orca_sim *s, int32_t i, float hint, int kernels, int32_t *agents);
int orca_bad_worker_index(orca_sim *s, int worker_index);
orca_status orca_fail_bad_worker(const orca_sim *s, int bad);

#endif
