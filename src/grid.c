/* SPDX-License-Identifier: MIT */
/* The neighbour grids. Agents: a uniform grid (dense row-major cells of half the neighbour
 * distance most agents reach, or of the largest diameter: grid_need; sorted by a counting
 * sort, or hashed cells for sparse scenes), with copies of positions, velocities and radii in
 * the sorted order. Segments: a
 * hashed grid listing each segment in every cell it passes near. And the workers' scratch.
 * The grids only find candidates: which neighbours and in which order is decided by
 * (squared distance, index) alone (docs/algorithm.md §11.4). */
#include "sim_internal.h"
#include "pool.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void orca_cell_map_free(cell_map *m)
{
    orca_mem_free(m->keys);
    orca_mem_free(m->start);
    orca_mem_free(m->count);
    memset(m, 0, sizeof *m);
}

/* Sizes the map for `entries` cells (at most 2^30) without clearing it; 0 when out of
 * memory. */
static int cell_map_size(cell_map *m, int entries)
{
    uint64_t need = (uint64_t)entries * 2u + 2u, cap = 16;
    while (cap < need) {
        cap *= 2;
    }
    if (cap > ((uint64_t)1 << 31)) {
        return 0; /* the mask is 32 bits and the loops below count up to it */
    }
    if (cap != (uint64_t)m->mask + 1 || !m->keys) {
        orca_cell_map_free(m);
        m->keys = orca_mem_alloc((size_t)cap, sizeof *m->keys);
        m->start = orca_mem_alloc((size_t)cap, sizeof *m->start);
        m->count = orca_mem_alloc((size_t)cap, sizeof *m->count);
        if (!m->keys || !m->start || !m->count) {
            orca_cell_map_free(m);
            return 0;
        }
        m->mask = (uint32_t)(cap - 1);
    }
    return 1;
}

/* Empties the map and sizes it for `entries` cells (at most 2^30); 0 when out of memory. */
static int cell_map_reset(cell_map *m, int entries)
{
    if (!cell_map_size(m, entries)) {
        return 0;
    }
    for (uint32_t i = 0; i <= m->mask; ++i) {
        m->keys[i] = CELL_EMPTY;
    }
    return 1;
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

/* Agent i's position, velocity and radius into the grid's copies at sorted position at. */
static ORCA_ALWAYS_INLINE void copy_sorted(orca_sim *s, int32_t at, int32_t i)
{
    s->cell_pos[at] = s->pos[i];
    s->cell_vel[at] = s->vel[i];
    s->cell_radius[at] = s->par[i].radius;
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
        copy_sorted(s, at, s->cell_index[at]);
    }
}

int orca_bad_worker_index(orca_sim *s, int worker_index)
{
    if (worker_index < 0 || worker_index >= s->worker_count) {
        atomic_store(&s->bad_worker, worker_index < 0 ? 0 : worker_index);
        return 1;
    }
    return 0;
}

/* The refusal after a task got a bad worker index (nothing was applied). */
orca_status orca_fail_bad_worker(const orca_sim *s, int bad)
{
    return orca_fail(s, ORCA_ERR_ARGUMENT,
                "the enqueue callback gave worker index %d, outside 0..%d; the step was not applied",
                bad, s->worker_count - 1);
}

/* Each worker's part of the bounds (min and max are exact, so the parts combine to the same
 * values in any split). */
static void bounds_task(int begin, int end, int worker_index, void *context)
{
    orca_sim *s = context;
    if (orca_bad_worker_index(s, worker_index)) {
        return;
    }
    grid_bounds b = s->workers[worker_index].bounds;
    for (int32_t i = begin; i < end; ++i) {
        bounds_add(&b, &s->par[i], s->pos[i]);
    }
    s->workers[worker_index].bounds = b;
}

/* Dense grid: each agent's cell, into rank (each agent's own slot). The origin is the
 * positions' minimum and the grid's size came from their maximum (build_agent_grid, the same
 * positions), so q = (x - origin) * inv lies in [0, w) (subtraction and multiplication are
 * monotone): cell_coord's floor is its truncation, and no clamp applies. */
static ORCA_ALWAYS_INLINE int32_t dense_cell(orca_vec2 p, double lox, double loy, double invx,
                                              double inv, int64_t w)
{
    int32_t cx = (int32_t)((p.x - lox) * invx);
    int32_t cy = (int32_t)((p.y - loy) * inv);
    return (int32_t)((int64_t)cy * w + cx);
}

static void cells_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    orca_sim *s = context;
    double lox = s->origin_x, loy = s->origin_y, inv = s->inv_cell, invx = s->inv_cell_x;
    int64_t w = s->grid_w;
    for (int32_t i = begin; i < end; ++i) {
        s->rank[i] = dense_cell(s->pos[i], lox, loy, invx, inv, w);
    }
}

/* The dense grid's counting sort in blocks of consecutive agents, on the workers: each block
 * counts its agents per cell (and per span of cells), a pass over the cells turns the counts
 * into each block's first position per cell (the cell's start plus the agents of earlier
 * blocks in it), and each block places its agents from there. An agent's position is then its
 * cell's start plus the number of agents of lower index in the cell, exactly as in the
 * one-thread sort. The pass over the cells runs on the workers too, a span of cells each: a
 * span's first position is the number of agents in the spans before it, which the caller sums
 * from the blocks' span counts (blocks x spans numbers; the pass over every cell on the caller
 * was 1.7% of the step at 100,000 agents on two workers, docs/performance.md, "The serial
 * share"). The block counts live in cell_pos and cell_vel, which the gather fills only
 * afterwards. */
#define SORT_BLOCKS_MAX 16
#define SORT_SPANS_MAX 64

typedef struct sort_ctx {
    orca_sim *sim;
    int32_t *count[SORT_BLOCKS_MAX]; /* per block: cells entries */
    int blocks;
    size_t cells;
    int span_shift; /* cell k is in span k >> span_shift */
    int spans;
    int32_t span_count[SORT_BLOCKS_MAX][SORT_SPANS_MAX]; /* per block: its agents per span */
    int32_t span_start[SORT_SPANS_MAX];                  /* the first position of each span */
} sort_ctx;

/* The first agent of block b of blocks (consecutive agents, n in all). */
static int32_t block_begin(int32_t n, int b, int blocks)
{
    return (int32_t)((int64_t)n * b / blocks);
}

static int32_t sort_block_begin(const sort_ctx *c, int b)
{
    return block_begin(c->sim->agent_count, b, c->blocks);
}

static void sort_count_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    sort_ctx *c = context;
    const int32_t *cell = c->sim->rank;
    for (int b = begin; b < end; ++b) {
        int32_t *count = c->count[b], *span = c->span_count[b];
        memset(count, 0, c->cells * sizeof *count);
        memset(span, 0, sizeof c->span_count[b]);
        int shift = c->span_shift;
        for (int32_t i = sort_block_begin(c, b), e = sort_block_begin(c, b + 1); i < e; ++i) {
            count[cell[i]]++;
            span[cell[i] >> shift]++;
        }
    }
}

/* The blocks' first positions per cell and the cells' starts, a span of cells at a time. */
static void sort_offsets_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    sort_ctx *c = context;
    int32_t *start = c->sim->cell_start;
    for (int j = begin; j < end; ++j) {
        size_t k = (size_t)j << c->span_shift, e = (size_t)(j + 1) << c->span_shift;
        e = e < c->cells ? e : c->cells;
        int32_t at = c->span_start[j];
        for (; k < e; ++k) {
            start[k] = at;
            for (int b = 0; b < c->blocks; ++b) {
                int32_t t = c->count[b][k];
                c->count[b][k] = at;
                at += t;
            }
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

/* The blocks of the sort on the workers for cells cells: 0 (sort on the caller) without
 * workers, below LIGHT_TASK_MIN agents or without room for two blocks. */
static int sort_blocks(const orca_sim *s, size_t cells)
{
    if (s->worker_count < 2 || s->agent_count < LIGHT_TASK_MIN) {
        return 0;
    }
    /* each of cell_pos and cell_vel holds 4 * capacity counts */
    size_t per_array = cells ? 4 * (size_t)s->agent_capacity / cells : 0;
    size_t room = 2 * per_array;
    int blocks = 2 * s->worker_count;
    blocks = blocks > SORT_BLOCKS_MAX ? SORT_BLOCKS_MAX : blocks;
    blocks = (size_t)blocks > room ? (int)room : blocks;
    return blocks < 2 ? 0 : blocks;
}

/* Sorts by the cells in rank (cells of them) in the given blocks (>= 2). */
static void sort_in_blocks(orca_sim *s, size_t cells, int blocks)
{
    size_t per_array = 4 * (size_t)s->agent_capacity / cells;
    sort_ctx c;
    c.sim = s;
    c.blocks = blocks;
    c.cells = cells;
    int32_t *pos_room = (int32_t *)(void *)s->cell_pos, *vel_room = (int32_t *)(void *)s->cell_vel;
    for (int b = 0; b < blocks; ++b) {
        size_t slot = (size_t)b < per_array ? (size_t)b : (size_t)b - per_array;
        c.count[b] = ((size_t)b < per_array ? pos_room : vel_room) + slot * cells;
    }
    /* spans: the fewest of at most 8 per worker (and SORT_SPANS_MAX) */
    int most = 8 * s->worker_count < SORT_SPANS_MAX ? 8 * s->worker_count : SORT_SPANS_MAX;
    c.span_shift = 0;
    while ((cells - 1) >> c.span_shift >= (size_t)most) {
        c.span_shift++;
    }
    c.spans = (int)((cells - 1) >> c.span_shift) + 1;
    orca_run_task_ranged(s, sort_count_task, blocks, 1, &c);
    int32_t at = 0;
    for (int j = 0; j < c.spans; ++j) {
        c.span_start[j] = at;
        for (int b = 0; b < blocks; ++b) {
            at += c.span_count[b][j];
        }
    }
    orca_run_task_ranged(s, sort_offsets_task, c.spans, 1, &c);
    s->cell_start[cells] = at;
    orca_run_task_ranged(s, sort_place_task, blocks, 1, &c);
}

/* The hashed grid's order, as sort_in_blocks gives the dense one: the cells in the order of
 * their first agent (by index), each cell's agents by index. On the caller: each agent's cell
 * into the map (rank holds its slot until the placement), then the cells' starts in one pass
 * over the agents, then the placement. */
static int hash_on_caller(orca_sim *s)
{
    int32_t n = s->agent_count;
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
    return 1;
}

/* On the workers (docs/performance.md, "The serial share"): the same order, and a map that
 * lookups read as the caller's (one table, linear probing), though its slots may differ. The
 * table is cut into parts of consecutive slots; a cell belongs to the part of its first slot
 * (its hash). Six passes, in blocks of consecutive agents or in the parts, each writing only
 * its own slots:
 * 1. (blocks) each agent's key, and each block's agents per part;
 * 2. (blocks) the agents grouped by part, by index within each part (each block from its
 *    first position in each part, which the caller sums from the counts);
 * 3. (parts) each part's slots cleared and its agents' cells inserted and counted, in index
 *    order, probing within the part only: a cell whose probe would leave the part is put
 *    off. Then each agent that is its cell's first notes the cell's count (the others 0).
 *    The caller inserts, counts and notes the put-off agents, probing the whole table: a
 *    lookup passes the same taken slots (a few cells a part, as the table is at most half
 *    full; test_kernels hashed_grid_on_workers puts off a dozen, and thousands);
 * 4. (blocks) the blocks' sums of the notes, and 5. (blocks) their running sums from each
 *    block's first (which the caller sums): for a cell's first agent, the agents of the cells
 *    whose first agent comes before, i.e. the cell's start;
 * 6. (parts) each cell's agents placed from its start, in index order.
 * The keys live in cell_pos, the grouped agents in cell_vel and the notes in cell_radius, which
 * the gather fills only afterwards. */
#define HASH_PARTS_MAX 64
#define HASH_PUT_OFF 32 /* put-off agents a part lists; beyond, the caller looks at them all */

typedef struct hash_pair {
    uint64_t key;
    int32_t agent;
    int32_t slot; /* -1: put off */
} hash_pair;

typedef struct hash_ctx {
    orca_sim *sim;
    int blocks, parts;
    int part_shift;  /* slot k is in part k >> part_shift */
    uint64_t *key;   /* per agent: its cell's key */
    hash_pair *pair; /* by part, by index within a part */
    int32_t *first;  /* per agent: its note, then the running sum */
    int32_t count[SORT_BLOCKS_MAX][HASH_PARTS_MAX]; /* per block and part: agents, then where
                                                      * the block's next goes */
    int32_t part_begin[HASH_PARTS_MAX + 1];
    int32_t put_off[HASH_PARTS_MAX];                 /* per part: its put-off agents */
    int32_t put_off_at[HASH_PARTS_MAX][HASH_PUT_OFF]; /* the first ones' places in pair */
    int32_t block_first[SORT_BLOCKS_MAX];
} hash_ctx;

static void hash_keys_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    hash_ctx *c = context;
    const orca_sim *s = c->sim;
    double inv = s->inv_cell;
    uint32_t mask = s->agent_cells.mask;
    for (int b = begin; b < end; ++b) {
        int32_t *count = c->count[b];
        memset(count, 0, sizeof c->count[b]);
        for (int32_t i = block_begin(s->agent_count, b, c->blocks),
                     e = block_begin(s->agent_count, b + 1, c->blocks);
             i < e; ++i) {
            uint64_t key = cell_key(cell_coord(s->pos[i].x, inv), cell_coord(s->pos[i].y, inv));
            c->key[i] = key;
            count[cell_hash(key, mask) >> c->part_shift]++;
        }
    }
}

static void hash_group_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    hash_ctx *c = context;
    int32_t n = c->sim->agent_count;
    uint32_t mask = c->sim->agent_cells.mask;
    for (int b = begin; b < end; ++b) {
        int32_t *next = c->count[b];
        for (int32_t i = block_begin(n, b, c->blocks), e = block_begin(n, b + 1, c->blocks); i < e;
             ++i) {
            uint64_t key = c->key[i];
            hash_pair *q = &c->pair[next[cell_hash(key, mask) >> c->part_shift]++];
            q->key = key;
            q->agent = i;
            q->slot = 0;
        }
    }
}

/* Step 3's notes: e's cell's count if e is its cell's first agent, else 0 (start -1 marks a
 * cell whose first agent is seen: it was inserted with 0). */
static ORCA_ALWAYS_INLINE void hash_note(hash_ctx *c, cell_map *m, const hash_pair *e)
{
    int32_t first = m->start[e->slot] == 0;
    c->first[e->agent] = first ? m->count[e->slot] : 0;
    m->start[e->slot] = first ? -1 : m->start[e->slot];
}

static void hash_fill_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    hash_ctx *c = context;
    cell_map *m = &c->sim->agent_cells;
    for (int p = begin; p < end; ++p) {
        uint32_t lo = (uint32_t)p << c->part_shift, hi = lo + ((uint32_t)1 << c->part_shift);
        for (uint32_t k = lo; k < hi; ++k) {
            m->keys[k] = CELL_EMPTY;
        }
        int32_t put_off = 0;
        for (int32_t at = c->part_begin[p]; at < c->part_begin[p + 1]; ++at) {
            hash_pair *e = &c->pair[at];
            uint32_t k = cell_hash(e->key, m->mask);
            while (k < hi && m->keys[k] != e->key && m->keys[k] != CELL_EMPTY) {
                ++k;
            }
            if (k == hi) {
                e->slot = -1;
                if (put_off < HASH_PUT_OFF) {
                    c->put_off_at[p][put_off] = at;
                }
                ++put_off;
                continue;
            }
            if (m->keys[k] == CELL_EMPTY) {
                m->keys[k] = e->key;
                m->count[k] = 0;
                m->start[k] = 0;
            }
            e->slot = (int32_t)k;
            m->count[k]++;
        }
        c->put_off[p] = put_off;
        for (hash_pair *e = c->pair + c->part_begin[p]; e < c->pair + c->part_begin[p + 1]; ++e) {
            if (e->slot >= 0) {
                hash_note(c, m, e);
            }
        }
    }
}

static void hash_sum_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    hash_ctx *c = context;
    int32_t n = c->sim->agent_count;
    for (int b = begin; b < end; ++b) {
        int32_t sum = 0;
        for (int32_t i = block_begin(n, b, c->blocks), e = block_begin(n, b + 1, c->blocks); i < e;
             ++i) {
            sum += c->first[i];
        }
        c->block_first[b] = sum;
    }
}

static void hash_prefix_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    hash_ctx *c = context;
    int32_t n = c->sim->agent_count;
    for (int b = begin; b < end; ++b) {
        int32_t at = c->block_first[b];
        for (int32_t i = block_begin(n, b, c->blocks), e = block_begin(n, b + 1, c->blocks); i < e;
             ++i) {
            int32_t t = c->first[i];
            c->first[i] = at;
            at += t;
        }
    }
}

static void hash_place_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    hash_ctx *c = context;
    orca_sim *s = c->sim;
    cell_map *m = &s->agent_cells;
    for (int p = begin; p < end; ++p) {
        for (const hash_pair *e = c->pair + c->part_begin[p], *qe = c->pair + c->part_begin[p + 1];
             e < qe; ++e) {
            int32_t slot = e->slot, i = e->agent;
            if (m->start[slot] < 0) {
                m->start[slot] = c->first[i];
                m->count[slot] = 0;
            }
            int32_t at = m->start[slot] + m->count[slot]++;
            s->cell_index[at] = i;
            s->rank[i] = at;
        }
    }
}

/* The blocks of the hashed grid's build on the workers: 0 (on the caller) without workers or
 * below LIGHT_TASK_MIN agents. */
static int hash_blocks(const orca_sim *s)
{
    if (s->worker_count < 2 || s->agent_count < LIGHT_TASK_MIN) {
        return 0;
    }
    int blocks = 2 * s->worker_count;
    return blocks > SORT_BLOCKS_MAX ? SORT_BLOCKS_MAX : blocks;
}

/* Step 3's put-off agents of part p, on the caller: inserted with the whole table's probing
 * and counted (each marked by its agent as -1 - agent), then noted (a put-off cell's agents
 * are all put off: the slots its probes passed stay taken). */
static void hash_put_off(hash_ctx *c, int p)
{
    cell_map *m = &c->sim->agent_cells;
    int listed = c->put_off[p] <= HASH_PUT_OFF;
    int32_t begin = listed ? 0 : c->part_begin[p];
    int32_t end = listed ? c->put_off[p] : c->part_begin[p + 1];
    for (int32_t j = begin; j < end; ++j) {
        hash_pair *e = &c->pair[listed ? c->put_off_at[p][j] : j];
        if (e->slot < 0) {
            e->slot = (int32_t)cell_map_insert(m, e->key);
            e->agent = -1 - e->agent;
            m->count[e->slot]++;
        }
    }
    for (int32_t j = begin; j < end; ++j) {
        hash_pair *e = &c->pair[listed ? c->put_off_at[p][j] : j];
        if (e->agent < 0) {
            e->agent = -1 - e->agent;
            hash_note(c, m, e);
        }
    }
}

static int hash_in_blocks(orca_sim *s, int blocks)
{
    cell_map *m = &s->agent_cells;
    if (!cell_map_size(m, s->agent_count)) {
        return 0;
    }
    hash_ctx c;
    c.sim = s;
    c.blocks = blocks;
    /* parts: at least 4 per worker, at most HASH_PARTS_MAX, of at least 1,024 slots */
    c.parts = 1;
    c.part_shift = 0;
    while ((m->mask >> c.part_shift) > 0) {
        c.part_shift++;
    }
    while (c.parts < 4 * s->worker_count && c.parts < HASH_PARTS_MAX && c.part_shift > 10) {
        c.parts *= 2;
        c.part_shift--;
    }
    c.key = (uint64_t *)(void *)s->cell_pos;
    c.pair = (hash_pair *)(void *)s->cell_vel;
    c.first = (int32_t *)(void *)s->cell_radius;
    orca_run_task_ranged(s, hash_keys_task, blocks, 1, &c);
    int32_t at = 0;
    for (int p = 0; p < c.parts; ++p) {
        c.part_begin[p] = at;
        for (int b = 0; b < blocks; ++b) {
            int32_t t = c.count[b][p];
            c.count[b][p] = at;
            at += t;
        }
    }
    c.part_begin[c.parts] = at;
    orca_run_task_ranged(s, hash_group_task, blocks, 1, &c);
    orca_run_task_ranged(s, hash_fill_task, c.parts, 1, &c);
    for (int p = 0; p < c.parts; ++p) {
        hash_put_off(&c, p);
    }
    orca_run_task_ranged(s, hash_sum_task, blocks, 1, &c);
    at = 0;
    for (int b = 0; b < blocks; ++b) {
        int32_t t = c.block_first[b];
        c.block_first[b] = at;
        at += t;
    }
    orca_run_task_ranged(s, hash_prefix_task, blocks, 1, &c);
    orca_run_task_ranged(s, hash_place_task, c.parts, 1, &c);
    return 1;
}

/* The size the agent grid's cells are made for: the largest neighbour distance of the agents
 * that search, leaving out the rare far-reaching ones (the top binades of neighbor_dist that
 * hold together at most 1/32 of those agents), and at least the largest diameter (so that the
 * overlap measurement's queries, rA + rB, stay within it). With one neighbour distance for
 * every agent that is max(neighbour distance, diameter), the size the cells always had. The
 * agents left out are found by the same searches, which work for any radius: only what is
 * looked at changes, never a result (docs/determinism.md, "The grid only chooses what is
 * looked at"). */
static double grid_need(const grid_bounds *b)
{
    int64_t total = 0, above = 0;
    for (int k = 0; k < ND_BINS; ++k) {
        total += b->nd_count[k];
    }
    double nd = 0;
    for (int k = ND_BINS - 1; k >= 0 && above <= total / 32; --k) {
        if (b->nd_count[k] > 0) {
            nd = b->nd_max[k];
            above += b->nd_count[k];
        }
    }
    return nd > b->diam ? nd : b->diam;
}

/* Agent grid, for cells of size cmax (grid_need). Normally the cells are dense, row-major,
 * cmax/2 tall and cmax/(2 GRID_X_SPLIT) wide (or square of size cmax/2, cmax, 2 cmax: the
 * finest that keeps the array small) over the agents' bounding box, sorted by a counting
 * sort: the cells of one row within a query are then one contiguous range. When the box is
 * too sparse for a dense array (agents spread over a huge area), cells of size cmax are
 * hashed and a query within cmax visits the 3x3 block (a wider one, or every agent, beyond).
 * Either way the grid only finds candidates.
 * Returns 1, 0 (out of memory) or -1 (a task got a bad worker index: s->bad_worker). */
static int build_agent_grid(orca_sim *s)
{
    if (s->grid_valid) {
        return 1;
    }
    int32_t n = s->agent_count;
    if (!s->bounds_valid) {
        for (int w = 0; w < s->worker_count; ++w) {
            memset(&s->workers[w].bounds, 0, sizeof s->workers[w].bounds);
        }
        atomic_store(&s->bad_worker, -1);
        orca_run_light_task(s, bounds_task, n, s);
        if (atomic_load(&s->bad_worker) >= 0) {
            return -1;
        }
        grid_bounds all;
        memset(&all, 0, sizeof all);
        for (int w = 0; w < s->worker_count; ++w) {
            const grid_bounds *b = &s->workers[w].bounds;
            if (!b->any) {
                continue;
            }
            all.diam = b->diam > all.diam ? b->diam : all.diam;
            all.reach = b->reach > all.reach ? b->reach : all.reach;
            all.max_nb = b->max_nb > all.max_nb ? b->max_nb : all.max_nb;
            for (int k = 0; k < ND_BINS; ++k) {
                all.nd_count[k] += b->nd_count[k];
                all.nd_max[k] = b->nd_max[k] > all.nd_max[k] ? b->nd_max[k] : all.nd_max[k];
            }
            all.lox = !all.any || b->lox < all.lox ? b->lox : all.lox;
            all.loy = !all.any || b->loy < all.loy ? b->loy : all.loy;
            all.hix = !all.any || b->hix > all.hix ? b->hix : all.hix;
            all.hiy = !all.any || b->hiy > all.hiy ? b->hiy : all.hiy;
            all.any = 1;
        }
        s->bounds = all;
        s->bounds_valid = 1;
    }
    double cmax = grid_need(&s->bounds), lox = s->bounds.lox, loy = s->bounds.loy;
    double hix = s->bounds.hix, hiy = s->bounds.hiy, reach = s->bounds.reach;
    int max_nb = s->bounds.max_nb;
    if (!(cmax > 0)) {
        cmax = 1;
    }
    s->max_reach = reach;
    s->max_nb = max_nb;
    /* Rows cmax/2 tall, the step's hinted search about 3 of them (measured at 100k on the
     * random scene: square cells of cmax/2 were 5% faster than cmax/4, which scans 5 by 5
     * smaller ones). Its rows are ranges of cells, so narrower columns cost only the larger
     * array and trim the rows' ends closer to the search's disc: columns cmax/8 wide scan
     * about 28 agents instead of 36 (-47 instructions an agent-step at 10k, where cmax/4
     * gave -31, cmax/6 -43 and cmax/12 -49). The first of these cells, then square ones of
     * cmax/2, cmax and 2 cmax, whose dense array stays within 4n + 4096 cells; the split
     * columns only while their array has at most GRID_SPLIT_EXTRA cells more than the square
     * one's (1 MiB: at 1,000,000 agents of the random scene they would cost 3.4 bytes an
     * agent more, 260 instead of 255 in all). */
    double c = cmax / 2, cw = c / GRID_X_SPLIT;
    int64_t w = 0, h = 0;
    int gathered = 0; /* the sorted copies are filled */
    /* The copies are a pass on the workers below LIGHT_TASK_MIN agents too when the built-in
     * threads spin between runs: the pool gives each worker the same share of the sorted
     * order there as in the step (pool.c), so each fills the copies it reads most, from the
     * agents it moved (measured, two workers: 1,000 agents 1.7% faster, 10,000 2.6%).
     * Threads that sleep between runs (more of them than CPUs) would have to be woken once
     * more a step (1,000 agents on 3 or 8 workers were 10% to 30% slower that way), and an
     * engine's job system is not the pool: then the small sorts keep them on the caller. */
    int spread = !s->enqueue && s->pool && orca_pool_spins(s->pool);
    s->grid_dense = 0;
    if (sim_finite(lox) && sim_finite(loy) && sim_finite(hix) && sim_finite(hiy)) {
        for (int attempt = 0; attempt < 4 && c >= 0x1p-1000; ++attempt) {
            w = (int64_t)cell_coord(hix - lox, 1 / cw) + 1;
            h = (int64_t)cell_coord(hiy - loy, 1 / c) + 1;
            s->grid_dense = w > 0 && h > 0 && w * h <= 4 * (int64_t)n + 4096;
            if (s->grid_dense && cw < c) {
                int64_t square_w = (int64_t)cell_coord(hix - lox, 1 / c) + 1;
                s->grid_dense = (w - square_w) * h <= GRID_SPLIT_EXTRA;
            }
            if (s->grid_dense) {
                break;
            }
            /* the split columns, then square cells of cmax/2, cmax, 2 cmax */
            c = cw < c ? c : 2 * c;
            cw = c;
        }
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
        s->cell_x = cw;
        s->inv_cell_x = 1 / cw;
        s->grid_split = cw < c ? GRID_X_SPLIT : 1;
        s->origin_x = lox;
        s->origin_y = loy;
        s->grid_w = (int32_t)w;
        s->grid_h = (int32_t)h;
        int32_t *start = s->cell_start;
        /* rank holds each agent's cell until the placement, then its sorted position */
        int blocks = sort_blocks(s, cells - 1);
        if (blocks) {
            orca_run_light_task(s, cells_task, n, s);
            sort_in_blocks(s, cells - 1, blocks);
        } else {
            /* on the caller: cells and counts in one pass, and the placement, which also
             * copies what the gather would (sequential reads of the index-order arrays)
             * unless the gather is spread over the workers */
            memset(start, 0, cells * sizeof *start);
            double inv = s->inv_cell, invx = s->inv_cell_x;
            int32_t i = 0;
            for (; i < n - 32; ++i) {
                PREFETCH(&s->pos[i + 32]); /* lines the workers wrote in the step */
                PREFETCH(&s->vel[i + 32]);
                start[(s->rank[i] = dense_cell(s->pos[i], lox, loy, invx, inv, w)) + 1]++;
            }
            for (; i < n; ++i) {
                start[(s->rank[i] = dense_cell(s->pos[i], lox, loy, invx, inv, w)) + 1]++;
            }
            for (size_t k = 1; k < cells; ++k) {
                start[k] += start[k - 1];
            }
            for (i = 0; i < n; ++i) {
                int32_t at = start[s->rank[i]]++;
                s->cell_index[at] = i;
                s->rank[i] = at;
                if (!spread) {
                    copy_sorted(s, at, i);
                }
            }
            /* the placement advanced each start to the next cell's: shift back */
            memmove(start + 1, start, (cells - 1) * sizeof *start);
            start[0] = 0;
            gathered = !spread;
        }
    } else {
        s->cell = cmax * (1 + 0x1p-20) + MARGIN_ABS; /* a little over a query within cmax */
        s->inv_cell = 1 / s->cell;
        s->grid_cover = cmax;
        /* the agents' cells lie between those of the box's corners (cell_coord is monotone) */
        s->hash_box[0] = cell_coord(lox, s->inv_cell);
        s->hash_box[1] = cell_coord(hix, s->inv_cell);
        s->hash_box[2] = cell_coord(loy, s->inv_cell);
        s->hash_box[3] = cell_coord(hiy, s->inv_cell);
        int blocks = hash_blocks(s);
        if (!(blocks ? hash_in_blocks(s, blocks) : hash_on_caller(s))) {
            return 0;
        }
    }
    if (!gathered && n > 0) {
        if (spread) {
            orca_run_task(s, gather_task, n, s);
        } else {
            orca_run_light_task(s, gather_task, n, s);
        }
    }
    s->grid_valid = 1;
    return 1;
}

/* The ranges of the sorted order that hold every agent within distance q of p (any q >= 0),
 * GRID_RANGES at a time: *next is 0 at the first call; a call that leaves it above 0 has more
 * to give, from there, at the next call with the same p and q. The rounding of the cell
 * arithmetic is covered by a margin far above it. */
int orca_grid_query(const orca_sim *s, orca_vec2 p, double q, grid_range *out, int64_t *next)
{
    int n = 0;
    if (s->grid_dense) {
        int64_t at = *next;
        *next = 0;
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
        rp = rp < r0 ? r0 : (rp > r1 ? r1 : rp);
        for (int64_t steps = 2 * ((int64_t)r1 - r0) + 1; at < steps; ++at) {
            if (n == GRID_RANGES) {
                *next = at;
                break;
            }
            int32_t r = rp + (int32_t)((at & 1) ? -(at + 1) / 2 : at / 2);
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
            int32_t c0 = cell_coord(p.x - hw - ox, s->inv_cell_x);
            int32_t c1 = cell_coord(p.x + hw - ox, s->inv_cell_x);
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
    } else if (q <= s->grid_cover) {
        /* the cells are a little over q: the 3 by 3 block around p's cell (at most 9
         * ranges: *next stays 0) */
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
    } else {
        /* A radius beyond the cells (an agent whose neighbour distance grid_need left out):
         * the block of cells of [p - q - m, p + q + m] (the margin m as orca_sim_query_radius
         * takes it: a computed d.d <= q*q has |d.x|, |d.y| far within q + m), within the
         * cells that hold agents; every agent when it has more cells than agents / 8 (a cell
         * costs a lookup, an agent a distance). */
        int64_t at = *next;
        *next = 0;
        double m = 1e-9 * (d_mag(p.x) + d_mag(p.y) + q) + MARGIN_ABS, inv = s->inv_cell;
        const int32_t *box = s->hash_box;
        int64_t x0 = cell_coord(p.x - q - m, inv), x1 = cell_coord(p.x + q + m, inv);
        int64_t y0 = cell_coord(p.y - q - m, inv), y1 = cell_coord(p.y + q + m, inv);
        x0 = x0 < box[0] ? box[0] : x0;
        x1 = x1 > box[1] ? box[1] : x1;
        y0 = y0 < box[2] ? box[2] : y0;
        y1 = y1 > box[3] ? box[3] : y1;
        if (x0 > x1 || y0 > y1) {
            return 0;
        }
        int64_t wide = x1 - x0 + 1, cells = wide * (y1 - y0 + 1);
        if (cells > s->agent_count / 8) {
            out[0].begin = 0;
            out[0].end = s->agent_count;
            return s->agent_count > 0;
        }
        for (; at < cells; ++at) {
            if (n == GRID_RANGES) {
                *next = at;
                break;
            }
            int32_t x = (int32_t)(x0 + at % wide), y = (int32_t)(y0 + at / wide);
            int64_t h = cell_map_find(&s->agent_cells, cell_key(x, y));
            if (h >= 0) {
                out[n].begin = s->agent_cells.start[h];
                out[n].end = out[n].begin + s->agent_cells.count[h];
                ++n;
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

/* What segment_cells does with each cell it visits (orca_segment_index_build's three passes). */
enum { VISIT_COUNT_CELLS, VISIT_COUNT, VISIT_PLACE };

typedef struct segment_index {
    cell_map *cells;
    int32_t *list;
    int32_t list_len;
    int64_t cell_visits;
} segment_index;

/* Visits every cell whose centre is within 0.75 cell of the segment a -> b (so the cell
 * holding any point of the segment is visited). */
static void segment_cells(orca_vec2 a, orca_vec2 b, double c, double inv, int32_t k, int pass,
                          segment_index *x)
{
    double margin = 0.75 * c;
    double x0 = a.x < b.x ? a.x : b.x, x1 = a.x < b.x ? b.x : a.x;
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
            if (!(d2 <= margin * margin)) {
                continue;
            }
            if (pass == VISIT_COUNT_CELLS) {
                x->cell_visits++;
            } else if (pass == VISIT_COUNT) {
                uint32_t h = cell_map_insert(x->cells, cell_key(cx, cy));
                x->cells->count[h]++;
                x->list_len++;
            } else {
                int64_t h = cell_map_find(x->cells, cell_key(cx, cy));
                x->list[x->cells->start[h] + x->cells->count[h]++] = k;
            }
        }
    }
}

int orca_segment_index_build(const orca_vec2 *a, const orca_vec2 *b, int32_t count, double cell,
                             double inv_cell, cell_map *cells, int32_t **list, int32_t *list_len)
{
    segment_index x = {cells, NULL, 0, 0};
    for (int32_t k = 0; k < count; ++k) {
        segment_cells(a[k], b[k], cell, inv_cell, k, VISIT_COUNT_CELLS, &x);
    }
    if (x.cell_visits > (1 << 28) || !cell_map_reset(cells, (int)x.cell_visits)) {
        return 0;
    }
    for (int32_t k = 0; k < count; ++k) {
        segment_cells(a[k], b[k], cell, inv_cell, k, VISIT_COUNT, &x);
    }
    *list_len = x.list_len;
    orca_mem_free(*list);
    *list = orca_mem_alloc((size_t)x.list_len + 1, sizeof **list);
    if (!*list) {
        return 0;
    }
    x.list = *list;
    int32_t offset = 0;
    for (uint32_t h = 0; h <= cells->mask; ++h) {
        if (cells->keys[h] != CELL_EMPTY) {
            cells->start[h] = offset;
            offset += cells->count[h];
            cells->count[h] = 0;
        }
    }
    for (int32_t k = 0; k < count; ++k) {
        segment_cells(a[k], b[k], cell, inv_cell, k, VISIT_PLACE, &x);
    }
    return 1;
}

/* The compaction of removed segments (agents.c) keeps a valid segment grid instead of
 * rebuilding it: before the arrays move, each list drops its removed segments and holds the
 * others' slots (orca_obstacle_grid_drop_removed); after, each slot becomes its segment's new
 * index (orca_obstacle_grid_renumber). Indices keep their order, so every list is what a
 * rebuild with the same cell size gives: a pass over the lists instead of the geometry. */
void orca_obstacle_grid_drop_removed(orca_sim *s)
{
    cell_map *m = &s->obstacle_cells;
    int32_t *list = s->obstacle_list;
    int32_t w = 0;
    /* the cells' ranges lie in the order of their map slots (orca_segment_index_build), so
     * the list shrinks in place */
    for (uint32_t h = 0; h <= m->mask; ++h) {
        if (m->keys[h] == CELL_EMPTY) {
            continue;
        }
        int32_t begin = m->start[h], end = begin + m->count[h];
        m->start[h] = w;
        for (int32_t q = begin; q < end; ++q) {
            uint32_t slot = s->segment_slot[list[q]];
            if (slot != SEGMENT_DEAD) {
                list[w++] = (int32_t)slot;
            }
        }
        m->count[h] = w - m->start[h];
    }
    s->obstacle_list_len = w;
}

void orca_obstacle_grid_renumber(orca_sim *s)
{
    for (int32_t q = 0; q < s->obstacle_list_len; ++q) {
        s->obstacle_list[q] = s->segment_slots.index[s->obstacle_list[q]];
    }
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
    if (!orca_segment_index_build(s->seg_a, s->seg_b, s->segment_count, s->obstacle_cell,
                                  s->inv_obstacle_cell, &s->obstacle_cells, &s->obstacle_list,
                                  &s->obstacle_list_len)) {
        return 0;
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
    /* the pedestrian model's headway half-planes: at most one a list entry */
    int head = s->ped_on ? max_nb : 0;
    if (max_nb <= s->worker_agents_cap && s->segment_count <= s->worker_segments_cap &&
        head <= s->worker_headway_cap) {
        return 1;
    }
    int nb = max_nb > s->worker_agents_cap ? max_nb : s->worker_agents_cap;
    int sg = s->segment_count > s->worker_segments_cap ? s->segment_count : s->worker_segments_cap;
    int hw = head > s->worker_headway_cap ? head : s->worker_headway_cap;
    /* + 4: the fallback's projections (lp.inc, lp_project4) read and write four half-planes
     * at a time, up to three past a list */
    uint64_t planes = (uint64_t)nb + (uint64_t)sg + (uint64_t)hw + 4;
    /* the ranked list of the vector scan has room for RANK_ROOM entries (kernels.c) */
    uint64_t list = (uint64_t)(nb > RANK_ROOM ? nb : RANK_ROOM);
    uint64_t agents_b = line_bytes(list + 1, sizeof(neighbor));
    uint64_t cand_b = line_bytes(1, sizeof(cand_buf));
    uint64_t obstacles_b = line_bytes((uint64_t)sg + 1, sizeof(neighbor));
    uint64_t planes_b = line_bytes(planes, sizeof(orca_halfplane));
    uint64_t stamp_b = line_bytes((uint64_t)sg + 1, sizeof(uint32_t));
    uint64_t share_b = line_bytes(list + 1, sizeof(double));
    uint64_t total = 64 + 2 * agents_b + cand_b + obstacles_b + 2 * planes_b + stamp_b + share_b;
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
        at += (size_t)stamp_b;
        k->order = (neighbor *)(void *)at; /* the extended path's (sim_step.inc) */
        at += (size_t)agents_b;
        k->share = (double *)(void *)at;
        k->query = 0;
    }
    s->worker_agents_cap = nb;
    s->worker_segments_cap = sg;
    s->worker_headway_cap = hw;
    return 1;
}

orca_status orca_grid_prepare(const orca_sim *sim)
{
    orca_sim *s = (orca_sim *)sim; /* the grids and worker buffers are caches */
    orca_agents_settle(s);
    orca_segments_settle(s);
    int built = build_agent_grid(s);
    if (built < 0) {
        s->grid_valid = 0;
        return orca_fail_bad_worker(s, atomic_load(&s->bad_worker));
    }
    if (!built || !build_obstacle_grid(s) || !workers_reserve(s) ||
        (s->bnd && !orca_boundary_prepare(s))) {
        s->grid_valid = 0;
        s->obstacle_grid_valid = 0;
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory building the neighbour grids");
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
        g->inv[0] = g->inv[1] = s->inv_cell_x;
        g->inv[2] = g->inv[3] = s->inv_cell;
        g->w = s->grid_w;
        g->h = s->grid_h;
    }
#endif
    return ORCA_OK;
}
