/* SPDX-License-Identifier: MIT */
/* The agent and segment API: agents and segments stored in index order (the order that
 * breaks distance ties), their handles, adding, removing (later objects keep their relative
 * order), getting and setting, and the exchange of all preferred velocities. */
#include "sim_internal.h"
#include "sim_peek.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROW(ptr, cap)                                                                  \
    do {                                                                                \
        void *p_ = orca_mem_resize((ptr), (size_t)(cap), sizeof *(ptr));                 \
        if (!p_) {                                                                      \
            return 0;                                                                   \
        }                                                                               \
        (ptr) = p_;                                                                     \
    } while (0)

int orca_agents_reserve(orca_sim *s, int32_t need)
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
    if (!orca_ext_reserve(s, cap)) {
        return 0;
    }
    s->agent_capacity = cap;
    return 1;
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

/* Agent i, now at p: a valid kept box and sizes (sim_internal.h) widened to take it, so that
 * the next grid build needs no bounds pass; an invalid one stays so. */
static void bounds_keep(orca_sim *s, int32_t i, orca_vec2 p)
{
    if (s->bounds_valid) {
        bounds_add(&s->bounds, &s->par[i], p);
    }
}

/* Agent i's sizes out of valid kept bounds, before it changes or goes. */
static void bounds_drop(orca_sim *s, int32_t i)
{
    if (s->bounds_valid) {
        bounds_drop_sizes(&s->bounds, &s->par[i]);
    }
}

/* The disc check of a new or moved agent (docs/extensions.md, "Walkable-area boundaries"),
 * its live index named in the message. */
static orca_status check_walls(orca_sim *s, int32_t index, orca_vec2 p, double r)
{
    return s->bnd ? orca_boundary_check_agent(s, index, p, r) : ORCA_OK;
}

/* orca_sim_add_agent; walls = 0: the batch checked the disc already. */
static orca_status add_agent(orca_sim *s, const orca_agent_def *def, orca_agent_id *out,
                             int walls)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (!def) {
        return orca_fail(s, ORCA_ERR_NULL, "agent definition is NULL");
    }
    orca_status st = orca_check_agent_def(s, def);
    if (st == ORCA_OK && walls) {
        st = check_walls(s, s->agent_count - s->dead_count, def->position, def->radius);
    }
    if (st != ORCA_OK) {
        return st;
    }
    if (s->agent_count >= (1 << 30)) {
        return orca_fail(s, ORCA_ERR_LIMIT, "too many agents (%d)", s->agent_count);
    }
    int32_t n = s->agent_count;
    if (!orca_agents_reserve(s, n + 1) || !orca_slots_reserve(&s->agent_slots, s->agent_slots.count + 1)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory adding agent %d", n);
    }
    int32_t slot = orca_slots_peek(&s->agent_slots);
    orca_slots_take(&s->agent_slots, slot, n);
    orca_agent_store(s, n, def);
    s->agent_slot[n] = (uint32_t)slot;
    s->par[n].nb_guess = 0;
    orca_ext_append(s, n);
    s->agent_count = n + 1;
    s->index_limit = s->dead_count > 0 ? 0 : n + 1;
    s->grid_valid = 0;
    bounds_keep(s, n, def->position);
    if (out) {
        out->slot = (uint32_t)slot;
        out->generation = s->agent_slots.generation[slot];
        out->sim = s->id;
    }
    return ORCA_OK;
}

orca_status orca_sim_add_agent(orca_sim *s, const orca_agent_def *def, orca_agent_id *out)
{
    return add_agent(s, def, out, 1);
}


/* --- lists of removed entries (agents' and segments' pending removals) ---------------- */

/* Room for one more entry in a list of removed indices (doubling from 64); 0 when out of
 * memory (the list is unchanged). */
static int removed_grow(int32_t **list, int32_t count, int32_t *capacity)
{
    if (count < *capacity) {
        return 1;
    }
    int32_t cap = *capacity ? 2 * *capacity : 64;
    int32_t *d = orca_mem_resize(*list, (size_t)cap, sizeof *d);
    if (!d) {
        return 0;
    }
    *list = d;
    *capacity = cap;
    return 1;
}

/* Room for need entries (a batch); 0 when out of memory (the list is unchanged). */
static int removed_reserve(int32_t **list, int64_t need, int32_t *capacity)
{
    if (need <= *capacity) {
        return 1;
    }
    int32_t *d = orca_mem_resize(*list, (size_t)need, sizeof *d);
    if (!d) {
        return 0;
    }
    *list = d;
    *capacity = (int32_t)need;
    return 1;
}

/* Adds entry i to the list of count entries (room made). sorted: keep the list ascending
 * (removals usually come in any order, and k of them cost O(k) each here, against O(N) each
 * for an immediate shift); otherwise appended (a batch sorts the list once). */
static void removed_insert(int32_t *list, int32_t count, int32_t i, int sorted)
{
    int32_t at = count;
    if (sorted && at > 0 && list[at - 1] > i) {
        int32_t lo = 0, hi = at; /* the first entry above i */
        while (lo < hi) {
            int32_t mid = lo + (hi - lo) / 2;
            if (list[mid] > i) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        memmove(&list[lo + 1], &list[lo], (size_t)(at - lo) * sizeof *list);
        at = lo;
    }
    list[at] = i;
}

/* With removals pending, index i among the live objects is entry i + (the removed entries up
 * to it) of the arrays, and entry r is index r - (the removed entries below it): binary
 * searches of the ascending list, so that lookups between removals do not compact. */

/* The number of entries of the list (count, ascending) below r, or at most r when `upto`. */
static int32_t removed_below(const int32_t *list, int32_t count, int32_t r, int upto)
{
    int32_t lo = 0, hi = count;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (list[mid] < r || (upto && list[mid] == r)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* The entry of live index `index` (0 <= index < entries - count). */
static int32_t removed_entry(const int32_t *list, int32_t count, int32_t index)
{
    /* the entry r with r - (removed entries <= r) = index: r grows to index + that count
     * until it holds (each count a binary search) */
    int32_t r = index, below = -1;
    while (below != r - index) {
        below = r - index;
        r = index + removed_below(list, count, r, 1);
    }
    return r;
}

/* --- agents ---------------------------------------------------------------------------- */

void orca_agents_move(orca_sim *s, int32_t at, int32_t from, int32_t count)
{
    size_t len = (size_t)count;
    if (len == 0) {
        return;
    }
#define RUN(arr) memmove(&(arr)[at], &(arr)[from], len * sizeof *(arr))
    RUN(s->pos);
    RUN(s->vel);
    RUN(s->pref);
    RUN(s->par);
    RUN(s->agent_slot);
    if (s->ext) {
        RUN(s->ext);
    }
    if (s->diag) {
        RUN(s->diag);
    }
    if (s->stream) {
        RUN(s->stream);
    }
#undef RUN
    for (int32_t j = at; j < at + count; ++j) {
        if (s->agent_slot[j] != AGENT_DEAD) {
            s->agent_slots.index[s->agent_slot[j]] = j;
        }
    }
}

/* Compaction of removed agents (sim_internal.h): one pass over the agents after the first
 * removed one, moving each live agent down to its index among the live ones (index order
 * kept, so the arrays are exactly what removing them one at a time gives). */
void orca_agents_compact(orca_sim *s)
{
    int32_t n = s->agent_count, d = s->dead_count;
    const int32_t *dead = s->dead; /* ascending */
    /* the live run between removed entries k and k + 1 moves down by k + 1, whole */
    for (int32_t k = 0; k < d; ++k) {
        int32_t from = dead[k] + 1, to = k + 1 < d ? dead[k + 1] : n;
        orca_agents_move(s, from - (k + 1), from, to - from);
    }
    s->agent_count = n - d;
    s->index_limit = n - d;
    s->dead_count = 0;
    s->grid_valid = 0; /* the box and sizes still hold every agent left: kept */
}

/* Index i (live) becomes removed: its handle goes stale at once, its entry waits for the
 * compaction. Returns 0 when the list of removed indices cannot grow (nothing changed). */
static int agent_mark_removed(orca_sim *s, int32_t i, int sorted)
{
    if (!removed_grow(&s->dead, s->dead_count, &s->dead_capacity)) {
        return 0;
    }
    removed_insert(s->dead, s->dead_count, i, sorted);
    s->dead_count++;
    s->index_limit = 0;
    bounds_drop(s, i);
    if (s->ext) {
        s->ext_nondefault -= !orca_ext_is_default(&s->ext[i]);
        s->ext[i].priority = 1; /* defaults: counted out above */
        s->ext[i].layers = 1;
        s->ext[i].mask = UINT32_MAX;
        s->ext[i].locked = 0;
    }
    if (s->stream) {
        s->stream_count -= s->stream[i] >= 0;
        s->stream[i] = -1; /* none: counted out above */
    }
    orca_slots_release(&s->agent_slots, (int32_t)s->agent_slot[i]);
    s->agent_slot[i] = AGENT_DEAD;
    s->grid_valid = 0; /* the box and largest sizes still hold every agent left: kept */
    return 1;
}

orca_status orca_sim_add_agents(orca_sim *s, const orca_agent_def *defs, int count,
                                orca_agent_id *ids)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (count < 0) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "count must be >= 0, got %d", count);
    }
    if (count == 0) {
        return ORCA_OK;
    }
    if (!defs) {
        return orca_fail(s, ORCA_ERR_NULL, "agent definitions pointer is NULL");
    }
    /* Every definition checked and room made before anything is added. */
    for (int k = 0; k < count; ++k) {
        orca_status st = orca_check_agent_def(s, &defs[k]);
        if (st == ORCA_OK) {
            st = check_walls(s, s->agent_count - s->dead_count + k, defs[k].position,
                             defs[k].radius);
        }
        if (st != ORCA_OK) {
            char msg[sizeof s->error];
            snprintf(msg, sizeof msg, "%s", s->error);
            return orca_fail(s, st, "defs[%d]: %s; nothing was added", k, msg);
        }
    }
    if (s->agent_count > (1 << 30) - count) {
        return orca_fail(s, ORCA_ERR_LIMIT, "too many agents (%d + %d)", s->agent_count, count);
    }
    if (!orca_agents_reserve(s, s->agent_count + count) ||
        !orca_slots_reserve(&s->agent_slots, s->agent_slots.count + count)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory adding %d agents", count);
    }
    for (int k = 0; k < count; ++k) {
        add_agent(s, &defs[k], ids ? &ids[k] : NULL, 0); /* checked, room made: OK */
    }
    return ORCA_OK;
}

orca_status orca_sim_remove_agent(orca_sim *s, orca_agent_id id)
{
    AGENT_OR_FAIL(s, id, i);
    if (!agent_mark_removed(s, i, 1)) {
        orca_agents_settle(s); /* room again (the list empties), then mark */
        i = agent_lookup(s, id);
        if (!agent_mark_removed(s, i, 1)) {
            return orca_fail(s, ORCA_ERR_MEMORY, "out of memory removing agent %d", (int)i);
        }
    }
    return ORCA_OK;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* 1 when a[0 .. n) is strictly increasing: no two equal, and sorting changes nothing. A batch
 * named in index order (a whole list, as orca on MPI removed its local list each step before
 * orca_agents_refill) then needs no sort: two O(n log n) sorts were 6% of such a step at
 * 1,000,000 agents. */
static int ascending_i32(const int32_t *a, int64_t n)
{
    for (int64_t k = 1; k < n; ++k) {
        if (a[k - 1] >= a[k]) {
            return 0;
        }
    }
    return 1;
}

/* Handle k of a batch: agents' (segment 0) or segments' (segment 1). */
static void batch_handle(const void *ids, int segment, int k, uint32_t *slot, uint32_t *gen,
                         uint32_t *sim)
{
    if (segment) {
        const orca_segment_id *x = ids;
        *slot = x[k].slot;
        *gen = x[k].generation;
        *sim = x[k].sim;
    } else {
        const orca_agent_id *x = ids;
        *slot = x[k].slot;
        *gen = x[k].generation;
        *sim = x[k].sim;
    }
}

/* The check of a batch removal before anything changes: count (>= 0) handles of one kind
 * (the slot table t), each of this simulation, live, and none twice. Returns their entries in the order given in
 * *ix (to be released with orca_mem_free), or a refusal naming the entry of ids. *ix is NULL
 * for count 0. */
static orca_status batch_indices(orca_sim *s, const slot_table *t, const void *ids, int count,
                                 int segment, int32_t **ix_out)
{
    const char *kind = segment ? "segment" : "agent";
    *ix_out = NULL;
    if (count < 0) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "count must be >= 0, got %d", count);
    }
    if (count == 0) {
        return ORCA_OK;
    }
    if (!ids) {
        return orca_fail(s, ORCA_ERR_NULL, "ids is NULL");
    }
    int32_t *ix = orca_mem_alloc((size_t)count, sizeof *ix);
    if (!ix) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory removing %d %ss", count, kind);
    }
    uint32_t slot, gen, sim;
    for (int k = 0; k < count; ++k) {
        batch_handle(ids, segment, k, &slot, &gen, &sim);
        ix[k] = sim == s->id ? orca_slots_lookup(t, slot, gen) : -1;
        if (ix[k] < 0) {
            orca_mem_free(ix);
            char prefix[32];
            snprintf(prefix, sizeof prefix, "ids[%d]: ", k);
            return orca_fail_handle(s, kind, slot, gen, sim, prefix, "; nothing was removed");
        }
    }
    if (ascending_i32(ix, count)) {
        *ix_out = ix; /* no index twice */
        return ORCA_OK;
    }
    int32_t *sorted = orca_mem_alloc((size_t)count, sizeof *sorted);
    if (!sorted) {
        orca_mem_free(ix);
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory removing %d %ss", count, kind);
    }
    memcpy(sorted, ix, (size_t)count * sizeof *ix);
    qsort(sorted, (size_t)count, sizeof *sorted, cmp_i32);
    for (int k = 1; k < count; ++k) {
        if (sorted[k] == sorted[k - 1]) {
            int first = 0, second = 0; /* the two entries of ids naming it */
            while (ix[first] != sorted[k]) {
                ++first;
            }
            second = first + 1;
            while (ix[second] != sorted[k]) {
                ++second;
            }
            orca_mem_free(sorted);
            orca_mem_free(ix);
            batch_handle(ids, segment, first, &slot, &gen, &sim);
            return orca_fail(s, ORCA_ERR_ARGUMENT,
                             "ids[%d] and ids[%d] are the same %s {slot %u, generation %u, sim "
                             "%u}; nothing was removed",
                             first, second, kind, (unsigned)slot, (unsigned)gen, (unsigned)sim);
        }
    }
    orca_mem_free(sorted);
    *ix_out = ix;
    return ORCA_OK;
}

orca_status orca_sim_remove_agents(orca_sim *s, const orca_agent_id *ids, int count)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    int32_t *ix;
    orca_status st = batch_indices(s, &s->agent_slots, ids, count, 0, &ix);
    if (st != ORCA_OK || count == 0) {
        return st;
    }
    /* room for all, so that no mark fails halfway */
    if (!removed_reserve(&s->dead, (int64_t)s->dead_count + count, &s->dead_capacity)) {
        orca_mem_free(ix);
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory removing %d agents", count);
    }
    /* In the order given (the slots return to the free list as count single calls return
     * them), appended; then the list of removed indices is put in order once. */
    for (int k = 0; k < count; ++k) {
        agent_mark_removed(s, ix[k], 0);
    }
    if (!ascending_i32(s->dead, s->dead_count)) {
        qsort(s->dead, (size_t)s->dead_count, sizeof *s->dead, cmp_i32);
    }
    orca_mem_free(ix);
    return ORCA_OK;
}

/* The agent slot table after a refill to n agents (orca_agents_refill): slot k names index k
 * for k < n, every slot live before moves to its next generation (its handles go stale; a
 * free slot moved on when it was freed), and the slots from n up to the table's count are
 * free, lowest first. One pass over the table. */
static void slots_refill(slot_table *t, uint32_t *agent_slot, int32_t n)
{
    int32_t top = n > t->count ? n : t->count;
    for (int32_t k = 0; k < top; ++k) {
        if (k >= t->count) {
            t->generation[k] = 1;
        } else if (t->index[k] >= 0) {
            uint32_t g = t->generation[k] + 1;
            t->generation[k] = g == 0 ? 1 : g;
        }
        t->index[k] = k < n ? k : -1;
        t->next_free[k] = k >= n && k + 1 < top ? k + 1 : -1;
    }
    for (int32_t k = 0; k < n; ++k) {
        agent_slot[k] = (uint32_t)k;
    }
    t->free_head = n < top ? n : -1;
    t->count = top;
}

orca_status orca_agents_refill(orca_sim *s, int32_t n)
{
    orca_clear_error(s);
    if (n < 0 || n > (1 << 30)) {
        return orca_fail(s, ORCA_ERR_LIMIT, "too many agents (%d)", (int)n);
    }
    orca_agents_settle(s);
    if (!orca_agents_reserve(s, n) || !orca_slots_reserve(&s->agent_slots, n)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory refilling %d agents", (int)n);
    }
    slots_refill(&s->agent_slots, s->agent_slot, n);
    if (s->ext || s->diag || s->stream) {
        for (int32_t k = 0; k < n; ++k) {
            orca_ext_append(s, k); /* the defaults, as for added agents */
        }
    }
    s->ext_nondefault = 0;
    s->stream_count = 0;
    s->agent_count = n;
    s->index_limit = n;
    s->grid_valid = 0;
    s->bounds_valid = 0;
    return ORCA_OK;
}

int orca_sim_agent_count(const orca_sim *s)
{
    return s ? s->agent_count - s->dead_count : 0;
}

/* orca_sim_agent_at with removals pending (or out of range, or no simulation). */
static ORCA_NOINLINE orca_agent_id agent_at_pending(const orca_sim *s, int index)
{
    orca_agent_id id = {0, 0, 0};
    if (s && index >= 0 && index < s->agent_count - s->dead_count) {
        int32_t r = removed_entry(s->dead, s->dead_count, index);
        id.slot = s->agent_slot[r];
        id.generation = s->agent_slots.generation[id.slot];
        id.sim = s->id;
    }
    return id;
}

orca_agent_id orca_sim_agent_at(const orca_sim *s, int index)
{
    /* one unsigned comparison for both ends (the scenario's rule asks for every agent) */
    if (s && (uint32_t)index < (uint32_t)s->index_limit) {
        orca_agent_id id;
        id.slot = s->agent_slot[index];
        id.generation = s->agent_slots.generation[id.slot];
        id.sim = s->id;
        return id;
    }
    return agent_at_pending(s, index);
}

int orca_sim_agent_index(const orca_sim *s, orca_agent_id id)
{
    if (!s) {
        return -1;
    }
    int32_t r = agent_lookup(s, id);
    if (r < 0 || s->dead_count == 0) {
        return r;
    }
    return r - removed_below(s->dead, s->dead_count, r, 0);
}

orca_status orca_agent_get(const orca_sim *s, orca_agent_id id, orca_agent_def *out)
{
    AGENT_OR_FAIL(s, id, i);
    if (!out) {
        return orca_fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    agent_load(s, i, out);
    return ORCA_OK;
}

/* The search hint (select_agents) of agent i moving to q: kept for a short move (its old
 * list's radius still tells roughly what holds the new one), dropped for a long one, so that
 * the next step estimates the radius from the grid instead of trying a stale one twice.
 * Only work depends on it, never a result. */
static void hint_after_move(orca_sim *s, int32_t i, orca_vec2 q)
{
    double g = (double)s->par[i].nb_guess;
    double dx = d_mag(q.x - s->pos[i].x), dy = d_mag(q.y - s->pos[i].y);
    if (!(dx + dy <= 0.25 * g)) {
        s->par[i].nb_guess = 0;
    }
}

orca_status orca_agent_set(orca_sim *s, orca_agent_id id, const orca_agent_def *def)
{
    AGENT_OR_FAIL(s, id, i);
    if (!def) {
        return orca_fail(s, ORCA_ERR_NULL, "agent definition is NULL");
    }
    orca_status st = orca_check_agent_def(s, def);
    if (st == ORCA_OK && (def->position.x != s->pos[i].x || def->position.y != s->pos[i].y ||
                          def->radius != s->par[i].radius)) {
        st = check_walls(s, orca_sim_agent_index(s, id), def->position, def->radius);
    }
    if (st != ORCA_OK) {
        return st;
    }
    hint_after_move(s, i, def->position);
    bounds_drop(s, i); /* the old neighbour distance's count: the largest sizes only grow */
    orca_agent_store(s, i, def);
    s->grid_valid = 0;
    bounds_keep(s, i, def->position);
    return ORCA_OK;
}

orca_status orca_agent_set_position(orca_sim *s, orca_agent_id id, orca_vec2 position)
{
    AGENT_OR_FAIL(s, id, i);
    orca_status st = orca_check_coord(s, "position", position);
    if (st == ORCA_OK && (position.x != s->pos[i].x || position.y != s->pos[i].y)) {
        st = check_walls(s, orca_sim_agent_index(s, id), position, s->par[i].radius);
    }
    if (st != ORCA_OK) {
        return st;
    }
    hint_after_move(s, i, position);
    s->pos[i] = position;
    s->grid_valid = 0;
    if (s->bounds_valid) {
        bounds_add_box(&s->bounds, position);
    }
    return ORCA_OK;
}

orca_status orca_agent_set_velocity(orca_sim *s, orca_agent_id id, orca_vec2 velocity)
{
    AGENT_OR_FAIL(s, id, i);
    orca_status st = orca_check_vector(s, "velocity", velocity);
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
    orca_status st = orca_check_vector(s, "preferred_velocity", v);
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
        return orca_fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    *out = s->pos[i];
    return ORCA_OK;
}

orca_status orca_agent_get_velocity(const orca_sim *s, orca_agent_id id, orca_vec2 *out)
{
    AGENT_OR_FAIL(s, id, i);
    if (!out) {
        return orca_fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    *out = s->vel[i];
    return ORCA_OK;
}

double orca_sim_peek_radius(const orca_sim *s, int index)
{
    return s->par[index].radius;
}

int32_t orca_sim_peek_nondefault(const orca_sim *s)
{
    return s->ext_nondefault;
}

void orca_sim_peek_handles(const orca_sim *s, const uint32_t **slots, const uint32_t **generations)
{
    orca_agents_settle(s);
    *slots = s->agent_slot;
    *generations = s->agent_slots.generation;
}

const orca_vec2 *orca_sim_positions(const orca_sim *s)
{
    if (!s) {
        return NULL;
    }
    orca_agents_settle(s);
    return s->pos;
}

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
        if (!sim_velocity_ok(s->pref[i])) {
            sim_atomic_min(&c->first_bad, i);
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
    orca_clear_error(s);
    if (!v && count > 0) {
        return orca_fail(s, ORCA_ERR_NULL, "preferred velocities pointer is NULL");
    }
    orca_agents_settle(s);
    if (count != s->agent_count) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "%d preferred velocities for %d agents", count,
                    s->agent_count);
    }
    swap_ctx c;
    c.sim = s;
    c.v = v;
    atomic_init(&c.first_bad, count);
    orca_run_light_task(s, swap_check_task, count, &c);
    int bad = atomic_load(&c.first_bad);
    if (bad < count) {
        orca_run_light_task(s, swap_task, count, &c); /* back as they were */
        return orca_fail_preferred(s, bad, v[bad]);
    }
    return ORCA_OK;
}

int orca_segments_reserve(orca_sim *s, int32_t need)
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

/* Compaction of removed segments (sim_internal.h), as orca_agents_compact: the live runs move
 * down in one pass, index order kept. A valid segment grid is updated on the way (grid.c)
 * instead of being rebuilt from the geometry. */
void orca_segments_compact(orca_sim *s)
{
    int32_t n = s->segment_count, d = s->seg_dead_count;
    const int32_t *dead = s->seg_dead; /* ascending */
    if (s->obstacle_grid_valid) {
        orca_obstacle_grid_drop_removed(s);
    }
    for (int32_t k = 0; k < d; ++k) {
        int32_t from = dead[k] + 1, to = k + 1 < d ? dead[k + 1] : n;
        int32_t at = from - (k + 1);
        size_t len = (size_t)(to - from);
        memmove(&s->seg_a[at], &s->seg_a[from], len * sizeof *s->seg_a);
        memmove(&s->seg_b[at], &s->seg_b[from], len * sizeof *s->seg_b);
        memmove(&s->segment_slot[at], &s->segment_slot[from], len * sizeof *s->segment_slot);
        for (int32_t j = at; j < at + (int32_t)len; ++j) {
            s->segment_slots.index[s->segment_slot[j]] = j;
        }
    }
    s->segment_count = n - d;
    s->seg_dead_count = 0;
    if (s->obstacle_grid_valid) {
        orca_obstacle_grid_renumber(s);
    }
}

/* Appends n validated segments (a[k], b[k]) in order, as n single additions. */
static orca_status segments_add(orca_sim *s, const orca_vec2 *a, const orca_vec2 *b, int n,
                                orca_segment_id *ids)
{
    int32_t live = s->segment_count - s->seg_dead_count;
    if (live > (1 << 28) - n) {
        return orca_fail(s, ORCA_ERR_LIMIT, "too many segments (%d + %d)", live, n);
    }
    /* Pending removals outnumbering the live segments are compacted first (one pass that
     * their removals paid for), so the arrays stay within twice the live count plus n. */
    if (s->seg_dead_count > live) {
        orca_segments_compact(s);
    }
    if (!orca_segments_reserve(s, s->segment_count + n) ||
        !orca_slots_reserve(&s->segment_slots, s->segment_slots.count + n)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory adding %d segments", n);
    }
    for (int k = 0; k < n; ++k) {
        int32_t idx = s->segment_count;
        int32_t slot = orca_slots_peek(&s->segment_slots);
        orca_slots_take(&s->segment_slots, slot, idx);
        s->seg_a[idx] = a[k];
        s->seg_b[idx] = b[k];
        s->segment_slot[idx] = (uint32_t)slot;
        s->segment_count = idx + 1;
        if (ids) {
            ids[k].slot = (uint32_t)slot;
            ids[k].generation = s->segment_slots.generation[slot];
            ids[k].sim = s->id;
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
    orca_clear_error(s);
    orca_status st;
    if ((st = orca_check_coord(s, "segment start", a)) != ORCA_OK ||
        (st = orca_check_coord(s, "segment end", b)) != ORCA_OK) {
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
    orca_clear_error(s);
    if (!points) {
        return orca_fail(s, ORCA_ERR_NULL, "points is NULL");
    }
    if (count < 2 || count > (1 << 26)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "a polyline needs 2..2^26 points, got %d", count);
    }
    for (int k = 0; k < count; ++k) {
        char what[48];
        snprintf(what, sizeof what, "point %d", k);
        orca_status st = orca_check_coord(s, what, points[k]);
        if (st != ORCA_OK) {
            return st;
        }
    }
    int n = closed ? count : count - 1;
    orca_vec2 *a = orca_mem_alloc((size_t)n, sizeof *a);
    orca_vec2 *b = orca_mem_alloc((size_t)n, sizeof *b);
    orca_status st;
    if (!a || !b) {
        st = orca_fail(s, ORCA_ERR_MEMORY, "out of memory for %d segments", n);
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

orca_status orca_sim_add_segments(orca_sim *s, const orca_vec2 *a, const orca_vec2 *b, int count,
                                  orca_segment_id *ids)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (count < 0) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "count must be >= 0, got %d", count);
    }
    if (count == 0) {
        return ORCA_OK;
    }
    if (!a || !b) {
        return orca_fail(s, ORCA_ERR_NULL, "%s is NULL", !a ? "a" : "b");
    }
    int32_t live = s->segment_count - s->seg_dead_count;
    if (live > (1 << 28) - count) { /* before reading the points */
        return orca_fail(s, ORCA_ERR_LIMIT, "too many segments (%d + %d)", live, count);
    }
    /* Every point checked before anything is added. */
    for (int k = 0; k < count; ++k) {
        char what[32];
        snprintf(what, sizeof what, "a[%d]", k);
        orca_status st = orca_check_coord(s, what, a[k]);
        if (st == ORCA_OK) {
            snprintf(what, sizeof what, "b[%d]", k);
            st = orca_check_coord(s, what, b[k]);
        }
        if (st != ORCA_OK) {
            char msg[sizeof s->error];
            snprintf(msg, sizeof msg, "%s", s->error);
            return orca_fail(s, st, "%s; nothing was added", msg);
        }
    }
    return segments_add(s, a, b, count, ids);
}

#define SEGMENT_OR_FAIL(s, id, i)                                                         \
    if (!(s)) {                                                                         \
        return ORCA_ERR_NULL;                                                           \
    }                                                                                   \
    orca_clear_error(s);                                                                     \
    int32_t i = (id).sim == (s)->id                                                     \
                    ? orca_slots_lookup(&(s)->segment_slots, (id).slot, (id).generation)    \
                    : -1;                                                               \
    if (i < 0) {                                                                        \
        return orca_fail_handle((s), "segment", (id).slot, (id).generation, (id).sim, "", ""); \
    }

/* Index i (live) becomes removed: its handle goes stale at once, its entry waits for the
 * compaction. Returns 0 when the list of removed indices cannot grow (nothing changed). */
static int segment_mark_removed(orca_sim *s, int32_t i, int sorted)
{
    if (!removed_grow(&s->seg_dead, s->seg_dead_count, &s->seg_dead_capacity)) {
        return 0;
    }
    removed_insert(s->seg_dead, s->seg_dead_count, i, sorted);
    s->seg_dead_count++;
    orca_slots_release(&s->segment_slots, (int32_t)s->segment_slot[i]);
    s->segment_slot[i] = SEGMENT_DEAD;
    /* the segment grid stays: nothing reads it before the compaction, which updates it */
    return 1;
}

orca_status orca_sim_remove_segment(orca_sim *s, orca_segment_id id)
{
    SEGMENT_OR_FAIL(s, id, i);
    if (!segment_mark_removed(s, i, 1)) {
        /* no room to defer it: the pending removals and this one at once (nothing to
         * allocate, so a removal never fails for memory) */
        orca_segments_settle(s);
        i = orca_slots_lookup(&s->segment_slots, id.slot, id.generation);
        int32_t n = s->segment_count;
        size_t tail = (size_t)(n - i - 1);
        memmove(&s->seg_a[i], &s->seg_a[i + 1], tail * sizeof *s->seg_a);
        memmove(&s->seg_b[i], &s->seg_b[i + 1], tail * sizeof *s->seg_b);
        memmove(&s->segment_slot[i], &s->segment_slot[i + 1], tail * sizeof *s->segment_slot);
        orca_slots_after_removal(&s->segment_slots, id.slot, s->segment_slot, i, n);
        s->segment_count = n - 1;
        s->obstacle_grid_valid = 0;
    }
    return ORCA_OK;
}

orca_status orca_sim_remove_segments(orca_sim *s, const orca_segment_id *ids, int count)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    int32_t *ix;
    orca_status st = batch_indices(s, &s->segment_slots, ids, count, 1, &ix);
    if (st != ORCA_OK || count == 0) {
        return st;
    }
    if (!removed_reserve(&s->seg_dead, (int64_t)s->seg_dead_count + count,
                         &s->seg_dead_capacity)) {
        orca_mem_free(ix);
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory removing %d segments", count);
    }
    /* in the order given (the slots' free list as from count single calls), then sorted */
    for (int k = 0; k < count; ++k) {
        segment_mark_removed(s, ix[k], 0);
    }
    if (!ascending_i32(s->seg_dead, s->seg_dead_count)) {
        qsort(s->seg_dead, (size_t)s->seg_dead_count, sizeof *s->seg_dead, cmp_i32);
    }
    orca_mem_free(ix);
    return ORCA_OK;
}

int orca_sim_segment_count(const orca_sim *s)
{
    return s ? s->segment_count - s->seg_dead_count : 0;
}

orca_segment_id orca_sim_segment_at(const orca_sim *s, int index)
{
    orca_segment_id id = {0, 0, 0};
    if (s && index >= 0 && index < s->segment_count - s->seg_dead_count) {
        int32_t r = s->seg_dead_count > 0 ? removed_entry(s->seg_dead, s->seg_dead_count, index)
                                          : index;
        id.slot = s->segment_slot[r];
        id.generation = s->segment_slots.generation[id.slot];
        id.sim = s->id;
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
