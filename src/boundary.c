/* SPDX-License-Identifier: MIT */
/* Walkable-area boundaries (docs/extensions.md, "Walkable-area boundaries"): closed loops of
 * edges with the walkable side on their left. Their API and storage, the edge grid, and the
 * hard half-planes an agent takes from them in a step (the extended path of step.c calls
 * orca_boundary_constraints). Without boundaries nothing here runs. */
#include "sim_internal.h"

#include "exact.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- storage ------------------------------------------------------------------------- */

static boundary_set *bnd_ensure(orca_sim *s)
{
    if (!s->bnd) {
        s->bnd = orca_mem_zalloc(1, sizeof *s->bnd);
        if (s->bnd) {
            s->bnd->slots.free_head = -1;
        }
    }
    return s->bnd;
}

static void scratch_free(boundary_set *b)
{
    for (int w = 0; b->ws && w < b->ws_count; ++w) {
        orca_mem_free(b->ws[w].stamp.mark);
        orca_mem_free(b->ws[w].feat);
        orca_mem_free(b->ws[w].planes);
        orca_mem_free(b->ws[w].scratch);
    }
    orca_mem_free(b->ws);
    b->ws = NULL;
    b->ws_count = 0;
    b->ws_edges = 0;
    b->ws_planes = 0;
}

void orca_boundary_free(boundary_set *b)
{
    if (!b) {
        return;
    }
    scratch_free(b);
    orca_mem_free(b->loop_first);
    orca_mem_free(b->loop_len);
    orca_mem_free(b->loop_slot);
    orca_slots_free(&b->slots);
    orca_mem_free(b->ea);
    orca_mem_free(b->eb);
    orca_mem_free(b->enext);
    orca_cell_map_free(&b->cells);
    orca_mem_free(b->list);
    orca_mem_free(b->occ);
    orca_mem_free(b->rows);
    orca_mem_free(b->row_edges);
    orca_mem_free(b->row_at);
    orca_mem_free(b->fit_stamp.mark);
    orca_mem_free(b);
}

static int reserve_loops(boundary_set *b, int32_t need)
{
    if (need <= b->loop_capacity) {
        return 1;
    }
    int32_t cap = b->loop_capacity ? b->loop_capacity : 4;
    while (cap < need) {
        cap *= 2;
    }
    int32_t *f = orca_mem_alloc((size_t)cap, sizeof *f);
    int32_t *l = orca_mem_alloc((size_t)cap, sizeof *l);
    uint32_t *sl = orca_mem_alloc((size_t)cap, sizeof *sl);
    if (!f || !l || !sl) {
        orca_mem_free(f);
        orca_mem_free(l);
        orca_mem_free(sl);
        return 0;
    }
    if (b->loop_count > 0) {
        memcpy(f, b->loop_first, (size_t)b->loop_count * sizeof *f);
        memcpy(l, b->loop_len, (size_t)b->loop_count * sizeof *l);
        memcpy(sl, b->loop_slot, (size_t)b->loop_count * sizeof *sl);
    }
    orca_mem_free(b->loop_first);
    orca_mem_free(b->loop_len);
    orca_mem_free(b->loop_slot);
    b->loop_first = f;
    b->loop_len = l;
    b->loop_slot = sl;
    b->loop_capacity = cap;
    return 1;
}

static int reserve_edges(boundary_set *b, int32_t need)
{
    if (need <= b->edge_capacity) {
        return 1;
    }
    int32_t cap = b->edge_capacity ? b->edge_capacity : 16;
    while (cap < need) {
        cap = cap > ORCA_BOUNDARY_EDGES_MAX / 2 ? ORCA_BOUNDARY_EDGES_MAX : cap * 2;
    }
    orca_vec2 *ea = orca_mem_alloc((size_t)cap, sizeof *ea);
    orca_vec2 *eb = orca_mem_alloc((size_t)cap, sizeof *eb);
    int32_t *en = orca_mem_alloc((size_t)cap, sizeof *en);
    if (!ea || !eb || !en) {
        orca_mem_free(ea);
        orca_mem_free(eb);
        orca_mem_free(en);
        return 0;
    }
    if (b->edge_count > 0) {
        memcpy(ea, b->ea, (size_t)b->edge_count * sizeof *ea);
        memcpy(eb, b->eb, (size_t)b->edge_count * sizeof *eb);
        memcpy(en, b->enext, (size_t)b->edge_count * sizeof *en);
    }
    orca_mem_free(b->ea);
    orca_mem_free(b->eb);
    orca_mem_free(b->enext);
    b->ea = ea;
    b->eb = eb;
    b->enext = en;
    b->edge_capacity = cap;
    return 1;
}

orca_status orca_check_boundary(const orca_sim *s, const orca_vec2 *points, int count,
                                int32_t existing_edges)
{
    if (count < 3) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "a boundary loop needs at least 3 points, got %d",
                         count);
    }
    if (count > ORCA_BOUNDARY_EDGES_MAX - existing_edges) {
        return orca_fail(s, ORCA_ERR_LIMIT,
                         "too many boundary edges: %d existing + %d new exceeds 2^24", existing_edges,
                         count);
    }
    for (int k = 0; k < count; ++k) {
        char what[48];
        snprintf(what, sizeof what, "boundary point %d", k);
        orca_status st = orca_check_coord(s, what, points[k]);
        if (st != ORCA_OK) {
            return st;
        }
    }
    for (int k = 0; k < count; ++k) {
        orca_vec2 a = points[k], b = points[(k + 1) % count];
        if (a.x == b.x && a.y == b.y) {
            return orca_fail(s, ORCA_ERR_ARGUMENT,
                             "boundary points %d and %d are equal (%.17g, %.17g): every edge needs "
                             "a length",
                             k, (k + 1) % count, a.x, a.y);
        }
    }
    /* twice the signed area, the shoelace sum of the given doubles, exactly: the same answer
     * for a loop and for the loop moved anywhere its points stay exact */
    if (orca_exact_shoelace_sign(points, count) == 0) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "boundary loop of %d points has zero area (its points are collinear or "
                         "it folds back on itself)",
                         count);
    }
    return ORCA_OK;
}

int orca_boundary_append(orca_sim *s, const orca_vec2 *points, int count, uint32_t slot)
{
    boundary_set *b = s->bnd;
    int32_t first = b->edge_count;
    for (int k = 0; k < count; ++k) {
        int32_t e = first + k;
        b->ea[e] = points[k];
        b->eb[e] = points[(k + 1) % count];
        b->enext[e] = k + 1 < count ? e + 1 : first;
    }
    b->edge_count = first + count;
    b->loop_first[b->loop_count] = first;
    b->loop_len[b->loop_count] = count;
    b->loop_slot[b->loop_count] = slot;
    b->loop_count++;
    b->grid_valid = 0;
    return 1;
}

/* Room for one more loop of count points (slots included); 0 when out of memory. */
static int reserve_loop(orca_sim *s, int count)
{
    boundary_set *b = bnd_ensure(s);
    return b && reserve_loops(b, b->loop_count + 1) && reserve_edges(b, b->edge_count + count) &&
           orca_slots_reserve(&b->slots, b->slots.count + 1);
}

static orca_status check_agents_for_loop(orca_sim *s, int32_t first);

orca_status orca_sim_add_boundary(orca_sim *s, const orca_vec2 *points, int count,
                                  orca_boundary_id *out)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (!points) {
        return orca_fail(s, ORCA_ERR_NULL, "points is NULL");
    }
    orca_status st = orca_check_boundary(s, points, count, s->bnd ? s->bnd->edge_count : 0);
    if (st != ORCA_OK) {
        return st;
    }
    if (!reserve_loop(s, count)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory adding a boundary of %d points", count);
    }
    boundary_set *b = s->bnd;
    int32_t slot = orca_slots_peek(&b->slots);
    int32_t first = b->edge_count;
    /* stored for the agents' check, taken back if it refuses */
    orca_boundary_append(s, points, count, (uint32_t)slot);
    if (s->agent_count - s->dead_count > 0) {
        st = check_agents_for_loop(s, first);
        if (st != ORCA_OK) {
            b->edge_count = first;
            b->loop_count--;
            b->grid_valid = 0;
            return st;
        }
    }
    orca_slots_take(&b->slots, slot, b->loop_count - 1);
    if (out) {
        out->slot = (uint32_t)slot;
        out->generation = b->slots.generation[slot];
        out->sim = s->id;
    }
    return ORCA_OK;
}

static int32_t loop_lookup(const orca_sim *s, orca_boundary_id id)
{
    return s->bnd && id.sim == s->id ? orca_slots_lookup(&s->bnd->slots, id.slot, id.generation)
                                     : -1;
}

#define LOOP_OR_FAIL(s, id, i)                                                              \
    if (!(s)) {                                                                             \
        return ORCA_ERR_NULL;                                                               \
    }                                                                                       \
    orca_clear_error(s);                                                                    \
    int32_t i = loop_lookup((s), (id));                                                     \
    if (i < 0) {                                                                            \
        return orca_fail_handle((s), "boundary", (id).slot, (id).generation, (id).sim, "", ""); \
    }

orca_status orca_sim_remove_boundary(orca_sim *s, orca_boundary_id id)
{
    LOOP_OR_FAIL(s, id, i);
    boundary_set *b = s->bnd;
    int32_t first = b->loop_first[i], len = b->loop_len[i];
    size_t tail = (size_t)(b->edge_count - first - len);
    memmove(&b->ea[first], &b->ea[first + len], tail * sizeof *b->ea);
    memmove(&b->eb[first], &b->eb[first + len], tail * sizeof *b->eb);
    memmove(&b->enext[first], &b->enext[first + len], tail * sizeof *b->enext);
    for (int32_t e = first; e < b->edge_count - len; ++e) {
        b->enext[e] -= len;
    }
    b->edge_count -= len;
    int32_t n = b->loop_count;
    size_t ltail = (size_t)(n - i - 1);
    memmove(&b->loop_first[i], &b->loop_first[i + 1], ltail * sizeof *b->loop_first);
    memmove(&b->loop_len[i], &b->loop_len[i + 1], ltail * sizeof *b->loop_len);
    memmove(&b->loop_slot[i], &b->loop_slot[i + 1], ltail * sizeof *b->loop_slot);
    for (int32_t k = i; k < n - 1; ++k) {
        b->loop_first[k] -= len;
    }
    orca_slots_after_removal(&b->slots, id.slot, b->loop_slot, i, n);
    b->loop_count = n - 1;
    b->grid_valid = 0;
    return ORCA_OK;
}

int orca_sim_boundary_count(const orca_sim *s)
{
    return s && s->bnd ? s->bnd->loop_count : 0;
}

orca_boundary_id orca_sim_boundary_at(const orca_sim *s, int index)
{
    orca_boundary_id id = {0, 0, 0};
    if (s && s->bnd && index >= 0 && index < s->bnd->loop_count) {
        id.slot = s->bnd->loop_slot[index];
        id.generation = s->bnd->slots.generation[id.slot];
        id.sim = s->id;
    }
    return id;
}

orca_status orca_boundary_get(const orca_sim *s, orca_boundary_id id, orca_vec2 *points,
                              int capacity, int *count)
{
    LOOP_OR_FAIL(s, id, i);
    if (capacity < 0 || (capacity > 0 && !points)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "points must hold capacity (%d) points", capacity);
    }
    const boundary_set *b = s->bnd;
    int32_t first = b->loop_first[i], len = b->loop_len[i];
    for (int32_t k = 0; k < len && k < capacity; ++k) {
        points[k] = b->ea[first + k];
    }
    if (count) {
        *count = len;
    }
    return ORCA_OK;
}

/* --- the edge grid (as the segment grid of grid.c, over the edges) -------------------- */

static double edge_cell_size(const orca_sim *s, const boundary_set *b)
{
    double lo = CELL_LIMIT, hi = -CELL_LIMIT;
    for (int32_t k = 0; k < b->edge_count; ++k) {
        double v[2] = {b->ea[k].x, b->ea[k].y};
        for (int q = 0; q < 2; ++q) {
            lo = v[q] < lo ? v[q] : lo;
            hi = v[q] > hi ? v[q] : hi;
        }
    }
    double extent = hi - lo;
    double maxabs = d_abs(lo) > d_abs(hi) ? d_abs(lo) : d_abs(hi);
    double cell = s->max_reach > 0 ? s->max_reach : 1;
    if (cell < extent / 4096) {
        cell = extent / 4096;
    }
    if (cell < maxabs / 268435456.0) {
        cell = maxabs / 268435456.0;
    }
    if (!(cell >= 0x1p-30)) {
        cell = 0x1p-30;
    }
    return cell;
}

#define OCC_MAX_CELLS (1 << 21) /* the largest table: 8 MiB */

/* The cell coordinates of a key of cell_key. */
static void key_cell(uint64_t key, int32_t *cx, int32_t *cy)
{
    *cx = (int32_t)((int64_t)(key >> 32) - 2 - (int64_t)CELL_LIMIT);
    *cy = (int32_t)((int64_t)(key & 0xFFFFFFFFu) - 2 - (int64_t)CELL_LIMIT);
}

/* The occupancy table of the edge grid just built (b->occ: entry (r, c), r in 0..occ_h and
 * c in 0..occ_w, counts the occupied cells of rows < r and columns < c of the occupied box;
 * NULL when it would exceed OCC_MAX_CELLS entries: only a shortcut is lost). 0 when out of
 * memory. */
static int build_occupancy(boundary_set *b)
{
    orca_mem_free(b->occ);
    b->occ = NULL;
    int64_t x0 = INT32_MAX, y0 = INT32_MAX, x1 = INT32_MIN, y1 = INT32_MIN;
    for (uint32_t h = 0; h <= b->cells.mask; ++h) {
        if (b->cells.keys[h] != CELL_EMPTY) {
            int32_t cx, cy;
            key_cell(b->cells.keys[h], &cx, &cy);
            x0 = cx < x0 ? cx : x0;
            x1 = cx > x1 ? cx : x1;
            y0 = cy < y0 ? cy : y0;
            y1 = cy > y1 ? cy : y1;
        }
    }
    if (x1 < x0) {
        return 1;
    }
    int64_t w = x1 - x0 + 1, h = y1 - y0 + 1, stride = w + 1;
    if (stride * (h + 1) > OCC_MAX_CELLS) {
        return 1;
    }
    int32_t *occ = orca_mem_zalloc((size_t)(stride * (h + 1)), sizeof *occ);
    if (!occ) {
        return 0;
    }
    for (uint32_t k = 0; k <= b->cells.mask; ++k) {
        if (b->cells.keys[k] != CELL_EMPTY) {
            int32_t cx, cy;
            key_cell(b->cells.keys[k], &cx, &cy);
            occ[(cy - y0 + 1) * stride + (cx - x0 + 1)] = 1;
        }
    }
    for (int64_t r = 1; r <= h; ++r) {
        for (int64_t c = 1; c <= w; ++c) {
            occ[r * stride + c] += occ[(r - 1) * stride + c] + occ[r * stride + c - 1] -
                                   occ[(r - 1) * stride + c - 1];
        }
    }
    b->occ = occ;
    b->occ_x = (int32_t)x0;
    b->occ_y = (int32_t)y0;
    b->occ_w = (int32_t)w;
    b->occ_h = (int32_t)h;
    return 1;
}

/* Whether the block of cells x0..x1 by y0..y1 may hold an edge: 1 without the table, else
 * whether one of its cells is occupied (four entries of the table). */
static int block_occupied(const boundary_set *b, int32_t x0, int32_t x1, int32_t y0, int32_t y1)
{
    const int32_t *t = b->occ;
    if (!t) {
        return 1;
    }
    int64_t c0 = (int64_t)x0 - b->occ_x, c1 = (int64_t)x1 - b->occ_x + 1;
    int64_t r0 = (int64_t)y0 - b->occ_y, r1 = (int64_t)y1 - b->occ_y + 1;
    c0 = c0 < 0 ? 0 : c0;
    r0 = r0 < 0 ? 0 : r0;
    c1 = c1 > b->occ_w ? b->occ_w : c1;
    r1 = r1 > b->occ_h ? b->occ_h : r1;
    if (c0 >= c1 || r0 >= r1) {
        return 0;
    }
    int64_t stride = (int64_t)b->occ_w + 1;
    return t[r1 * stride + c1] - t[r0 * stride + c1] - t[r1 * stride + c0] + t[r0 * stride + c0] >
           0;
}

static int build_edge_grid(const orca_sim *s, boundary_set *b)
{
    double want = edge_cell_size(s, b);
    if (b->grid_valid && want <= 2 * b->cell && want >= b->cell / 4) {
        return 1;
    }
    b->grid_valid = 0; /* until the rebuild below completes (it may run out of memory) */
    b->rows_valid = 0;
    b->cell = want;
    b->inv_cell = 1 / want;
    if (!orca_segment_index_build(b->ea, b->eb, b->edge_count, b->cell, b->inv_cell, &b->cells,
                                  &b->list, &b->list_len)) {
        return 0;
    }
    if (!build_occupancy(b)) {
        return 0;
    }
    b->grid_valid = 1;
    return 1;
}

static int scratch_reserve(const orca_sim *s, boundary_set *b)
{
    /* + 4: the AVX2 fallback's projections (lp.inc, lp_project4) read and write four
     * half-planes at a time, up to three past a list (as the workers' buffers, grid.c) */
    int planes = b->edge_count + s->segment_count + s->max_nb + 4 +
                 (s->ped_on ? s->max_nb : 0); /* the pedestrian model's headway half-planes */
    if (b->ws && b->ws_count == s->worker_count && b->edge_count <= b->ws_edges &&
        planes <= b->ws_planes) {
        return 1;
    }
    int edges = b->edge_count > b->ws_edges ? b->edge_count : b->ws_edges;
    planes = planes > b->ws_planes ? planes : b->ws_planes;
    scratch_free(b);
    b->ws = orca_mem_zalloc((size_t)s->worker_count, sizeof *b->ws);
    if (!b->ws) {
        return 0;
    }
    b->ws_count = s->worker_count;
    for (int w = 0; w < s->worker_count; ++w) {
        boundary_scratch *k = &b->ws[w];
        k->stamp.mark = orca_mem_zalloc((size_t)edges + 1, sizeof *k->stamp.mark);
        k->stamp.count = edges + 1;
        k->feat = orca_mem_alloc((size_t)edges + 1, sizeof *k->feat);
        k->planes = orca_mem_alloc((size_t)planes, sizeof *k->planes);
        k->scratch = orca_mem_alloc((size_t)planes, sizeof *k->scratch);
        if (!k->stamp.mark || !k->feat || !k->planes || !k->scratch) {
            scratch_free(b);
            return 0;
        }
    }
    b->ws_edges = edges;
    b->ws_planes = planes;
    return 1;
}

int orca_boundary_prepare(orca_sim *s)
{
    boundary_set *b = s->bnd;
    if (!b || b->edge_count == 0) {
        return 1;
    }
    return build_edge_grid(s, b) && scratch_reserve(s, b);
}

/* --- the constraints ------------------------------------------------------------------ */

/* A fresh query of st for one pass over edges. */
static uint32_t stamp_next(boundary_stamp *st)
{
    if (++st->query == 0) {
        memset(st->mark, 0, (size_t)st->count * sizeof *st->mark);
        st->query = 1;
    }
    return st->query;
}

/* Edge k's feature for the agent at p (docs/extensions.md, "Walkable-area boundaries"):
 * 0 when the agent is behind the edge's line or the feature is beyond reach2. */
static int edge_feature(const boundary_set *b, int32_t k, orca_vec2 p, double c, double h,
                        double reach2, boundary_feature *out)
{
    orca_vec2 a = v2_sub(b->ea[k], p), bb = v2_sub(b->eb[k], p);
    orca_vec2 e = v2_sub(bb, a);
    if (e.x == 0 && e.y == 0) {
        return 0; /* rounded to a point: an edge far shorter than its distance to the agent */
    }
    double ee = v2_dot(e, e);
    orca_vec2 n = v2_unit(v2(-e.y, e.x)); /* (-e.y, e.x) / sqrt(ee) unless ee < 2^-1022 */
    double d = -v2_dot(a, n);
    if (d < 0) {
        return 0; /* behind the edge's line */
    }
    double t = -v2_dot(a, e) / ee;
    orca_vec2 u = n;
    double dist = d, d2 = d * d;
    int32_t key = 2 * k + 1;
    if (t <= 0 || t >= 1) {
        orca_vec2 w = t <= 0 ? a : bb; /* the vertex, relative to the agent */
        double w2 = v2_dot(w, w);
        if (w.x != 0 || w.y != 0) {
            key = t <= 0 ? 2 * k : 2 * b->enext[k];
            d2 = w2;
            dist = sqrt(w2);
            u = v2_unit(v2_neg(w)); /* (-w) / dist unless w2 is below 2^-1022 */
        }
    }
    if (!(d2 <= reach2)) {
        return 0;
    }
    out->d2 = d2;
    out->key = key;
    /* algorithm.md §7's half-plane with the unit vector u and distance dist */
    out->plane.point = v2_div(v2_mul(v2_neg(u), dist - c), h);
    out->plane.normal = u;
    return 1;
}

static int feature_less(const boundary_feature *x, const boundary_feature *y)
{
    return x->d2 < y->d2 || (x->d2 == y->d2 && x->key < y->key);
}

static int feature_cmp(const void *pa, const void *pb)
{
    const boundary_feature *x = pa, *y = pb;
    return feature_less(x, y) ? -1 : (feature_less(y, x) ? 1 : 0);
}

int orca_boundary_out_of_reach(const orca_sim *s, double dt)
{
    const boundary_set *b = s->bnd;
    if (!b || !b->occ || s->agent_count == 0) {
        return 0;
    }
    /* the box of the positions and the largest reach, as orca_boundary_constraints computes
     * each agent's */
    double lox = HUGE_VAL, loy = HUGE_VAL, hix = -HUGE_VAL, hiy = -HUGE_VAL, reach = 0;
    for (int32_t i = 0; i < s->agent_count; ++i) {
        orca_vec2 p = s->pos[i];
        double tau_o = s->par[i].tau_obst;
        double h = dt > tau_o ? dt : tau_o;
        double ri = h * s->par[i].max_speed + s->par[i].radius;
        reach = ri > reach ? ri : reach;
        lox = p.x < lox ? p.x : lox;
        hix = p.x > hix ? p.x : hix;
        loy = p.y < loy ? p.y : loy;
        hiy = p.y > hiy ? p.y : hiy;
    }
    /* Every agent's block lies in this one: each bound below is the same rounded operations
     * on operands at least as far out (rounding is monotone), the margin's too. */
    double ax = d_abs(lox) > d_abs(hix) ? d_abs(lox) : d_abs(hix);
    double ay = d_abs(loy) > d_abs(hiy) ? d_abs(loy) : d_abs(hiy);
    double mg = 1e-9 * (ax + ay + reach) + MARGIN_ABS;
    double inv = b->inv_cell;
    int32_t x0 = cell_coord(lox - reach - mg, inv), x1 = cell_coord(hix + reach + mg, inv);
    int32_t y0 = cell_coord(loy - reach - mg, inv), y1 = cell_coord(hiy + reach + mg, inv);
    return !block_occupied(b, x0, x1, y0, y1);
}

int orca_boundary_constraints(const orca_sim *s, int worker_index, int32_t i, orca_vec2 p,
                              double r, double dt, orca_halfplane *out)
{
    const boundary_set *b = s->bnd;
    boundary_scratch *ws = &b->ws[worker_index];
    double tau_o = s->par[i].tau_obst;
    double h = dt > tau_o ? dt : tau_o;
    double reach = h * s->par[i].max_speed + r;
    double reach2 = reach * reach;
    int n = 0;
    double mg = 1e-9 * (d_abs(p.x) + d_abs(p.y) + reach) + MARGIN_ABS;
    double inv = b->inv_cell;
    int32_t x0 = cell_coord(p.x - reach - mg, inv), x1 = cell_coord(p.x + reach + mg, inv);
    int32_t y0 = cell_coord(p.y - reach - mg, inv), y1 = cell_coord(p.y + reach + mg, inv);
    int64_t block = ((int64_t)x1 - x0 + 1) * ((int64_t)y1 - y0 + 1);
    if (!block_occupied(b, x0, x1, y0, y1)) {
        /* no edge in the block (every point of an edge lies in a cell that lists it) */
    } else if (block > (int64_t)b->edge_count) {
        /* a reach far beyond the cells: every edge, in index order */
        for (int32_t k = 0; k < b->edge_count; ++k) {
            n += edge_feature(b, k, p, r, h, reach2, &ws->feat[n]);
        }
    } else {
        uint32_t *mark = ws->stamp.mark, query = stamp_next(&ws->stamp);
        for (int32_t cy = y0; cy <= y1; ++cy) {
            for (int32_t cx = x0; cx <= x1; ++cx) {
                int64_t hh = cell_map_find(&b->cells, cell_key(cx, cy));
                if (hh < 0) {
                    continue;
                }
                int32_t begin = b->cells.start[hh], end = begin + b->cells.count[hh];
                for (int32_t q = begin; q < end; ++q) {
                    int32_t k = b->list[q];
                    if (mark[k] == query) {
                        continue;
                    }
                    mark[k] = query;
                    n += edge_feature(b, k, p, r, h, reach2, &ws->feat[n]);
                }
            }
        }
    }
    /* order by (squared distance, key); a vertex two edges share comes twice with the same
     * bits: keep it once */
    if (n <= 16) {
        for (int a = 1; a < n; ++a) {
            boundary_feature t = ws->feat[a];
            int c = a;
            while (c > 0 && feature_less(&t, &ws->feat[c - 1])) {
                ws->feat[c] = ws->feat[c - 1];
                --c;
            }
            ws->feat[c] = t;
        }
    } else {
        qsort(ws->feat, (size_t)n, sizeof *ws->feat, feature_cmp);
    }
    int m = 0;
    for (int k = 0; k < n; ++k) {
        if (k > 0 && ws->feat[k].key == ws->feat[k - 1].key) {
            continue;
        }
        out[m++] = ws->feat[k].plane;
    }
    return m;
}

/* --- the disc check ------------------------------------------------------------------- */

/* An agent's disc fits in the walkable area when its centre is inside (the winding number of
 * all loops at the centre is at least 1, and the centre lies on no edge) and no edge is
 * closer to the centre than its radius, up to FIT_TOL times the radius and the largest
 * coordinate of the centre and the edge's ends (docs/extensions.md: the step's own rounding
 * leaves agents up to about 2^-52 of those magnitudes inside it). */
#define FIT_TOL 0x1p-40

/* One occupied cell of the edge grid; key = cell_key(row, column), so that the keys sort by
 * row, then column. */
typedef struct boundary_row {
    uint64_t key;
    int32_t cell;  /* its slot in the cell map */
    int32_t begin; /* its edges: row_edges[begin .. next row entry's begin) */
} boundary_row;

/* An edge as a cell lists it, with its ends: the ray reads a row's cells in one pass. */
typedef struct boundary_row_edge {
    orca_vec2 a, b;
    int32_t k;
} boundary_row_edge;

static int row_cmp(const void *x, const void *y)
{
    uint64_t a = ((const boundary_row *)x)->key, b = ((const boundary_row *)y)->key;
    return a < b ? -1 : a > b;
}

/* The edge grid, its occupied cells in row order and a stamp per edge; 0 when out of memory
 * (nothing else changed). */
static int fit_prepare(orca_sim *s)
{
    boundary_set *b = s->bnd;
    /* any valid grid serves (the step's may be sized for other reaches): its size is not
     * recomputed here, which would cost a pass over the edges per check */
    if (!b->grid_valid && !build_edge_grid(s, b)) {
        return 0;
    }
    if (b->fit_stamp.count < b->edge_count) {
        uint32_t *st = orca_mem_zalloc((size_t)b->edge_count, sizeof *st);
        if (!st) {
            return 0;
        }
        orca_mem_free(b->fit_stamp.mark);
        b->fit_stamp.mark = st;
        b->fit_stamp.count = b->edge_count;
        b->fit_stamp.query = 0;
    }
    if (!b->rows_valid) {
        int32_t n = 0;
        for (uint32_t h = 0; h <= b->cells.mask; ++h) {
            n += b->cells.keys[h] != CELL_EMPTY;
        }
        boundary_row *rows = orca_mem_alloc((size_t)n + 1, sizeof *rows);
        if (!rows) {
            return 0;
        }
        n = 0;
        for (uint32_t h = 0; h <= b->cells.mask; ++h) {
            uint64_t k = b->cells.keys[h];
            if (k != CELL_EMPTY) {
                /* cell_key(cx, cy) holds cx + 2 + 2^30 in the high half: swap the halves */
                rows[n].key = (k << 32) | (k >> 32);
                rows[n].cell = (int32_t)h;
                ++n;
            }
        }
        qsort(rows, (size_t)n, sizeof *rows, row_cmp);
        /* rows from the first occupied one to the last: at most about 4096 of them (a cell is
         * at least 1/4096 of the edges' extent) */
        int64_t first = n > 0 ? (int64_t)(rows[0].key >> 32) : 0;
        int32_t span = n > 0 ? (int32_t)((int64_t)(rows[n - 1].key >> 32) - first + 1) : 0;
        boundary_row_edge *re = orca_mem_alloc((size_t)b->list_len + 1, sizeof *re);
        int32_t *row_at = orca_mem_alloc((size_t)span + 1, sizeof *row_at);
        if (!re || !row_at) {
            orca_mem_free(rows);
            orca_mem_free(re);
            orca_mem_free(row_at);
            return 0;
        }
        for (int32_t j = 0, c = 0; j <= span; ++j) {
            while (c < n && (int64_t)(rows[c].key >> 32) - first < j) {
                ++c;
            }
            row_at[j] = c;
        }
        int32_t at = 0;
        for (int32_t c = 0; c < n; ++c) {
            int32_t h = rows[c].cell, lb = b->cells.start[h], le = lb + b->cells.count[h];
            rows[c].begin = at;
            for (int32_t m = lb; m < le; ++m) {
                int32_t k = b->list[m];
                re[at].a = b->ea[k];
                re[at].b = b->eb[k];
                re[at].k = k;
                ++at;
            }
        }
        rows[n].begin = at; /* the end of the last cell */
        orca_mem_free(b->rows);
        orca_mem_free(b->row_edges);
        orca_mem_free(b->row_at);
        b->rows = rows;
        b->row_edges = re;
        b->row_count = n;
        b->row_at = row_at;
        b->row_first = first;
        b->row_span = span;
        b->rows_valid = 1;
    }
    return 1;
}

/* The first occupied cell in [lo, hi) with key >= key (hi if none). */
static int32_t row_lower(const boundary_set *b, int32_t lo, int32_t hi, uint64_t key)
{
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (b->rows[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* What the check finds for a disc; edges before `from` count only in wn (and on_old). */
typedef struct disc_fit {
    int wn;            /* winding number of all loops at the centre */
    int wn_new;        /* the part of it from the edges from `from` on */
    int on_old;        /* the centre lies on an edge before `from` */
    int32_t on_edge;   /* the lowest edge from `from` on through the centre, or -1 */
    int32_t near_edge; /* the nearest edge from `from` on closer than the radius, or -1 */
    double near_dist;
} disc_fit;

/* Edge a -> b's share of the winding number at p, counted on the ray from p towards +x
 * (right) or -x: +1 for an upward edge (a.y <= p.y < b.y) with p on its left (the ray crosses
 * it right of p), -1 for a downward one with p on its right; towards -x the other way round.
 * The sides are exact (orca_exact_orient), so every ray gives the exact winding number of a
 * point on no edge. *on is set when p lies on the edge. */
static int edge_winding(orca_vec2 a, orca_vec2 b, orca_vec2 p, int right, int *on)
{
    int below_a = a.y <= p.y, below_b = b.y <= p.y;
    *on = 0;
    /* neither crossing the line y = p.y nor touching it: most edges */
    if (below_a == below_b && (!below_a || (a.y < p.y && b.y < p.y))) {
        return 0;
    }
    int up = below_a && !below_b, down = !below_a && below_b;
    int inbox = (a.x < b.x ? a.x : b.x) <= p.x && p.x <= (a.x < b.x ? b.x : a.x) &&
                (a.y < b.y ? a.y : b.y) <= p.y && p.y <= (a.y < b.y ? b.y : a.y);
    if (!up && !down && !inbox) {
        return 0;
    }
    int o = orca_exact_orient(a, b, p);
    if (o == 0 && inbox) {
        *on = 1;
        return 0;
    }
    if (right) {
        return (up && o > 0) - (down && o < 0);
    }
    return (down && o > 0) - (up && o < 0);
}

/* The winding number at p over the edges of p's row of cells on one side of p: the side
 * whose cells list fewer edges. Every point of an edge lies in a cell that lists the edge, and
 * the ray's crossings lie in p's row on that side (p's column and its neighbour included), so
 * does an edge through p (it is counted in f->on_edge or f->on_old); a row without occupied
 * cells has none. Each edge once (st). */
static void fit_ray(const boundary_set *b, boundary_stamp *st, orca_vec2 p, int32_t from,
                    disc_fit *f)
{
    int32_t cx = cell_coord(p.x, b->inv_cell), cy = cell_coord(p.y, b->inv_cell);
    int64_t j = ((int64_t)cy + 2 + (int64_t)CELL_LIMIT) - b->row_first; /* cell_key's half */
    if (j < 0 || j >= b->row_span) {
        return;
    }
    int32_t lo = b->row_at[j], hi = b->row_at[j + 1];
    int32_t right_begin = row_lower(b, lo, hi, cell_key(cy, cx - 1));
    int32_t left_end = row_lower(b, right_begin, hi, cell_key(cy, cx + 2));
    const boundary_row *rows = b->rows;
    int right = rows[hi].begin - rows[right_begin].begin <= rows[left_end].begin - rows[lo].begin;
    int32_t begin = right ? right_begin : lo, end = right ? hi : left_end;
    uint32_t *mark = st->mark, q = stamp_next(st);
    /* the cells [begin, end) of one row are consecutive: so are their edges */
    const boundary_row_edge *re = b->row_edges;
    for (int32_t m = rows[begin].begin, me = rows[end].begin; m < me; ++m) {
        orca_vec2 ea = re[m].a, eb = re[m].b;
        if ((ea.y > p.y && eb.y > p.y) || (ea.y < p.y && eb.y < p.y)) {
            continue; /* off the line y = p.y: no part in wn, not through p (most edges) */
        }
        int32_t k = re[m].k;
        if (mark[k] == q) {
            continue;
        }
        mark[k] = q;
        int on;
        int w = edge_winding(ea, eb, p, right, &on);
        f->wn += w;
        if (k >= from) {
            f->wn_new += w;
            if (on && (f->on_edge < 0 || k < f->on_edge)) {
                f->on_edge = k;
            }
        } else {
            f->on_old |= on;
        }
    }
}

static double fit_max(double m, double v)
{
    v = d_abs(v);
    return v > m ? v : m;
}

/* What fit_near does with an edge near the disc of centre p and radius r. */
typedef void edge_visit(const boundary_set *b, int32_t k, orca_vec2 p, double r, void *acc);

/* Edge k's distance from p against the radius r, with the tolerance, into the disc_fit acc. */
static void fit_edge_near(const boundary_set *b, int32_t k, orca_vec2 p, double r, void *acc)
{
    disc_fit *f = acc;
    orca_vec2 a = b->ea[k], e = b->eb[k];
    double d = sqrt(orca_segment_distance_squared(v2_sub(a, p), v2_sub(e, p)));
    double m = fit_max(fit_max(fit_max(fit_max(fit_max(d_abs(p.x), p.y), a.x), a.y), e.x), e.y);
    if (d + FIT_TOL * (r + m) < r &&
        (f->near_edge < 0 || d < f->near_dist || (d == f->near_dist && k < f->near_edge))) {
        f->near_edge = k;
        f->near_dist = d;
    }
}

/* Visits the edges from `from` on within r of p, each once (st): those the grid lists in the
 * cells of [p - q, p + q] (q: r with the margin of the constraints' search), or all of them
 * when that block has more cells. Every edge whose squared distance from p (computed) is below
 * r * r is among them: its nearest point is within r of p up to a rounding of a few units in
 * the last place of its ends' coordinates relative to p, which q's margin and the grid's (a
 * cell lists the edges within 0.75 cell of its centre, 0.04 cell beyond the cell, and a cell
 * is at least 2^-28 of the largest edge coordinate) exceed many times over. */
static ORCA_ALWAYS_INLINE void fit_near(const boundary_set *b, boundary_stamp *st, orca_vec2 p,
                                        double r, int32_t from, edge_visit *visit, void *acc)
{
    double q = r + 1e-9 * (d_abs(p.x) + d_abs(p.y) + r) + MARGIN_ABS;
    double inv = b->inv_cell;
    int32_t x0 = cell_coord(p.x - q, inv), x1 = cell_coord(p.x + q, inv);
    int32_t y0 = cell_coord(p.y - q, inv), y1 = cell_coord(p.y + q, inv);
    int64_t block = ((int64_t)x1 - x0 + 1) * ((int64_t)y1 - y0 + 1);
    if (block > (int64_t)(b->edge_count - from)) {
        for (int32_t k = from; k < b->edge_count; ++k) {
            visit(b, k, p, r, acc);
        }
        return;
    }
    uint32_t *mark = st->mark, stamp = stamp_next(st);
    for (int32_t cy = y0; cy <= y1; ++cy) {
        for (int32_t cx = x0; cx <= x1; ++cx) {
            int64_t h = cell_map_find(&b->cells, cell_key(cx, cy));
            if (h < 0) {
                continue;
            }
            int32_t lb = b->cells.start[h], le = lb + b->cells.count[h];
            for (int32_t m = lb; m < le; ++m) {
                int32_t k = b->list[m];
                if (k < from || mark[k] == stamp) {
                    continue;
                }
                mark[k] = stamp;
                visit(b, k, p, r, acc);
            }
        }
    }
}

static disc_fit fit_query(boundary_set *b, orca_vec2 p, double r, int32_t from)
{
    disc_fit f = {0, 0, 0, -1, -1, 0};
    fit_ray(b, &b->fit_stamp, p, from, &f);
    fit_near(b, &b->fit_stamp, p, r, from, fit_edge_near, &f);
    return f;
}

/* The loop of edge k (its index) and k's place in it. */
static int32_t loop_of_edge(const boundary_set *b, int32_t k, int32_t *at)
{
    int32_t lo = 0, hi = b->loop_count; /* the last loop starting at or before k */
    while (hi - lo > 1) {
        int32_t mid = lo + (hi - lo) / 2;
        if (b->loop_first[mid] <= k) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    *at = k - b->loop_first[lo];
    return lo;
}

/* "boundary loop L (edge E, from (x, y) to (x, y))" into buf. */
static const char *edge_name(const boundary_set *b, int32_t k, char *buf, size_t size)
{
    int32_t at;
    int32_t l = loop_of_edge(b, k, &at);
    snprintf(buf, size, "boundary loop %d (edge %d, from (%.17g, %.17g) to (%.17g, %.17g))",
             (int)l, (int)at, b->ea[k].x, b->ea[k].y, b->eb[k].x, b->eb[k].y);
    return buf;
}

orca_status orca_boundary_check_agent(orca_sim *s, int32_t index, orca_vec2 p, double r)
{
    boundary_set *b = s->bnd;
    if (!b || b->edge_count == 0) {
        return ORCA_OK;
    }
    if (!fit_prepare(s)) {
        return orca_fail(s, ORCA_ERR_MEMORY,
                         "out of memory checking agent %d against the boundaries", (int)index);
    }
    disc_fit f = fit_query(b, p, r, 0);
    if (f.on_edge < 0 && f.wn >= 1 && f.near_edge < 0) {
        return ORCA_OK;
    }
    char who[32], edge[160];
    snprintf(who, sizeof who, "agent %d", (int)index);
    if (f.on_edge >= 0) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "%s at (%.17g, %.17g) lies on %s: its disc must fit inside the walkable "
                         "area",
                         who, p.x, p.y, edge_name(b, f.on_edge, edge, sizeof edge));
    }
    if (f.wn < 1) {
        /* the nearest edge, for the message (one pass over them: a refusal) */
        int32_t best = 0;
        double bd = HUGE_VAL;
        for (int32_t k = 0; k < b->edge_count; ++k) {
            double d2 = orca_segment_distance_squared(v2_sub(b->ea[k], p), v2_sub(b->eb[k], p));
            if (d2 < bd) {
                bd = d2;
                best = k;
            }
        }
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "%s at (%.17g, %.17g) is outside the walkable area (winding number %d "
                         "of the boundary loops there), %.17g from the nearest wall, %s",
                         who, p.x, p.y, f.wn, sqrt(bd), edge_name(b, best, edge, sizeof edge));
    }
    if (f.near_edge >= 0) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "%s at (%.17g, %.17g) with radius %.17g is %.17g from %s: its centre "
                         "must be at least its radius from every wall",
                         who, p.x, p.y, r, f.near_dist,
                         edge_name(b, f.near_edge, edge, sizeof edge));
    }
    return ORCA_OK;
}

/* The loop just appended (its edges from `first` on) against every agent, in index order:
 * refused when it passes through an agent's centre or closer than its radius, or takes a
 * centre that was inside the area (every centre, for the first loop) outside. */
static orca_status check_agents_for_loop(orca_sim *s, int32_t first)
{
    boundary_set *b = s->bnd;
    int32_t loop = b->loop_count - 1;
    if (!fit_prepare(s)) {
        return orca_fail(s, ORCA_ERR_MEMORY,
                         "out of memory checking the agents against a new boundary loop");
    }
    orca_agents_settle(s);
    char edge[160];
    for (int32_t i = 0; i < s->agent_count; ++i) {
        orca_vec2 p = s->pos[i];
        double r = s->par[i].radius;
        disc_fit f = fit_query(b, p, r, first);
        unsigned slot = (unsigned)s->agent_slot[i];
        if (f.on_edge >= 0) {
            return orca_fail(s, ORCA_ERR_ARGUMENT,
                             "the new %s passes through agent %d (slot %u) at (%.17g, %.17g): "
                             "every agent's disc must fit inside the walkable area; the loop "
                             "was not added",
                             edge_name(b, f.on_edge, edge, sizeof edge), (int)i, slot, p.x, p.y);
        }
        int inside_before = first == 0 || (!f.on_old && f.wn - f.wn_new >= 1);
        if (inside_before && f.wn < 1) {
            return orca_fail(s, ORCA_ERR_ARGUMENT,
                             "the new boundary loop %d would leave agent %d (slot %u) at (%.17g, "
                             "%.17g) outside the walkable area (winding number %d there); the "
                             "loop was not added",
                             (int)loop, (int)i, slot, p.x, p.y, f.wn);
        }
        if (f.near_edge >= 0) {
            return orca_fail(s, ORCA_ERR_ARGUMENT,
                             "the new %s is %.17g from agent %d (slot %u) at (%.17g, %.17g) with "
                             "radius %.17g: every agent's centre must be at least its radius "
                             "from every wall; the loop was not added",
                             edge_name(b, f.near_edge, edge, sizeof edge), f.near_dist, (int)i,
                             slot, p.x, p.y, r);
        }
    }
    return ORCA_OK;
}

/* --- measurement --------------------------------------------------------------------- */

/* Edge k's intrusion into the disc, (r - distance) / r when the squared distance is below
 * r * r, into the largest so far (the double acc). */
static void measure_edge(const boundary_set *b, int32_t k, orca_vec2 p, double r, void *acc)
{
    double *worst = acc;
    double d2 = orca_segment_distance_squared(v2_sub(b->ea[k], p), v2_sub(b->eb[k], p));
    if (d2 < r * r) {
        double o = (r - sqrt(d2)) / r;
        *worst = o > *worst ? o : *worst;
    }
}

/* Each worker's part of the measurement, over its agents: the largest intrusion and the count
 * of centres outside. The largest of a set and a count are the same in any order and split:
 * the result never depends on the worker count. */
static void measure_task(int begin, int end, int worker_index, void *context)
{
    orca_sim *s = context;
    if (orca_bad_worker_index(s, worker_index)) {
        return;
    }
    const boundary_set *b = s->bnd;
    boundary_scratch *ws = &b->ws[worker_index];
    double worst = ws->deepest;
    int out = ws->outside;
    for (int32_t i = begin; i < end; ++i) {
        orca_vec2 p = s->pos[i];
        double r = s->par[i].radius;
        disc_fit f = {0, 0, 0, -1, -1, 0};
        fit_ray(b, &ws->stamp, p, 0, &f); /* the exact winding number, or the centre on an edge */
        out += f.wn < 1 || f.on_edge >= 0;
        fit_near(b, &ws->stamp, p, r, 0, measure_edge, &worst);
    }
    ws->deepest = worst;
    ws->outside = out;
}

orca_status orca_sim_measure_boundary(const orca_sim *sim, double *deepest, int *outside)
{
    if (!sim) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(sim);
    orca_sim *s = (orca_sim *)sim; /* the caches only: agent storage, edge grid, scratch */
    orca_agents_settle(s);        /* the workers read the agents by index */
    double worst = 0;
    int out = 0;
    boundary_set *b = s->bnd;
    if (b && b->edge_count > 0 && s->agent_count > 0) {
        if (!fit_prepare(s) || !scratch_reserve(s, b)) {
            return orca_fail(s, ORCA_ERR_MEMORY,
                             "out of memory measuring %d agents against %d boundary edges "
                             "(the edge grid or the workers' scratch)",
                             (int)s->agent_count, (int)b->edge_count);
        }
        /* On the workers; if the engine's callbacks give a bad worker index, again on the
         * caller (a measurement changes nothing, so there is nothing to refuse). */
        for (int serial = 0; serial < 2; ++serial) {
            atomic_store(&s->bad_worker, -1);
            for (int w = 0; w < b->ws_count; ++w) {
                b->ws[w].deepest = 0;
                b->ws[w].outside = 0;
            }
            if (serial) {
                measure_task(0, s->agent_count, 0, s);
            } else {
                orca_run_task(s, measure_task, s->agent_count, s);
            }
            if (atomic_load(&s->bad_worker) < 0) {
                break;
            }
        }
        for (int w = 0; w < b->ws_count; ++w) {
            worst = b->ws[w].deepest > worst ? b->ws[w].deepest : worst;
            out += b->ws[w].outside;
        }
    }
    if (deepest) {
        *deepest = worst;
    }
    if (outside) {
        *outside = out;
    }
    return ORCA_OK;
}
