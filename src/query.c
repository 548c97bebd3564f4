/* SPDX-License-Identifier: MIT */
/* Spatial queries (docs/extensions.md, "Spatial queries"): the agents within a radius of a
 * point, the k nearest agents to a point, the agents inside an axis-aligned box. Each result
 * is exact (it equals a brute-force scan over every agent, in the documented order); the
 * agent grid only chooses which agents are looked at. */
#include "sim_internal.h"

#include <stdint.h>
#include <stdlib.h>

/* A candidate that passed the exact test: its squared distance (radius and nearest queries)
 * and its agent index. */
typedef struct query_hit {
    double d2;
    int32_t index;
} query_hit;

/* (squared distance, index) order; the distances are finite (docs/limits.md), so this is a
 * total order and any correct sort gives the same list. */
static int hit_order(const void *a, const void *b)
{
    const query_hit *x = a, *y = b;
    if (x->d2 != y->d2) {
        return x->d2 < y->d2 ? -1 : 1;
    }
    return (x->index > y->index) - (x->index < y->index);
}

static int index_order(const void *a, const void *b)
{
    const query_hit *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* The kind of exact test a query applies to each candidate. */
typedef struct query_test {
    int radius;         /* 1: (p - c).(p - c) <= r2; 0: lo <= p <= hi componentwise */
    orca_vec2 c;        /* radius: the centre */
    double r2;          /* radius: r * r */
    orca_vec2 lo, hi;   /* the box (radius: the box around the disc, with a margin) */
} query_test;

/* Visits the sorted positions [begin, end) of the agent grid: appends those that pass the
 * test to hits (room for them was counted first). */
static int64_t test_range(const orca_sim *s, const query_test *t, int32_t begin, int32_t end,
                          query_hit *hits, int64_t n)
{
    for (int32_t k = begin; k < end; ++k) {
        orca_vec2 p = s->cell_pos[k];
        if (t->radius) {
            orca_vec2 d = v2_sub(p, t->c);
            double d2 = v2_dot(d, d);
            if (d2 <= t->r2) {
                hits[n].d2 = d2;
                hits[n].index = s->cell_index[k];
                ++n;
            }
        } else if (t->lo.x <= p.x && p.x <= t->hi.x && t->lo.y <= p.y && p.y <= t->hi.y) {
            hits[n].d2 = 0;
            hits[n].index = s->cell_index[k];
            ++n;
        }
    }
    return n;
}

/* The grid's cells that can hold an agent inside the box [lo, hi]. The agent grid files an
 * agent at p in column cell_coord(p.x - origin, inv) (dense; hashed: cell_coord(p.x, inv)),
 * and cell_coord, the subtraction and the multiplication are monotone, so lo.x <= p.x <= hi.x
 * puts the agent's column between those of lo.x and hi.x, rounding included: no margin is
 * needed. Calls visit(begin, end) for each range of sorted positions to look at; with hits
 * NULL only counts the candidates. Returns the number of hits (or candidates). */
static int64_t scan_box(const orca_sim *s, const query_test *t, query_hit *hits)
{
    int64_t n = 0;
    int32_t total = s->agent_count;
    if (s->grid_dense) {
        double inv = s->inv_cell, ox = s->origin_x, oy = s->origin_y;
        int32_t c0 = cell_coord(t->lo.x - ox, s->inv_cell_x);
        int32_t c1 = cell_coord(t->hi.x - ox, s->inv_cell_x);
        int32_t r0 = cell_coord(t->lo.y - oy, inv), r1 = cell_coord(t->hi.y - oy, inv);
        c0 = c0 < 0 ? 0 : c0;
        r0 = r0 < 0 ? 0 : r0;
        c1 = c1 >= s->grid_w ? s->grid_w - 1 : c1;
        r1 = r1 >= s->grid_h ? s->grid_h - 1 : r1;
        for (int32_t r = r0; r <= r1 && c0 <= c1; ++r) {
            int64_t row = (int64_t)r * s->grid_w;
            int32_t begin = s->cell_start[row + c0], end = s->cell_start[row + c1 + 1];
            n = hits ? test_range(s, t, begin, end, hits, n) : n + (end - begin);
        }
        return n;
    }
    /* Hashed cells: probe each cell of the box while they are fewer than the agents,
     * otherwise look at every agent. */
    double inv = s->inv_cell;
    int64_t x0 = cell_coord(t->lo.x, inv), x1 = cell_coord(t->hi.x, inv);
    int64_t y0 = cell_coord(t->lo.y, inv), y1 = cell_coord(t->hi.y, inv);
    if (x1 < x0 || y1 < y0) {
        return 0;
    }
    if ((x1 - x0 + 1) > (int64_t)total || (x1 - x0 + 1) * (y1 - y0 + 1) > (int64_t)total) {
        return hits ? test_range(s, t, 0, total, hits, 0) : total;
    }
    for (int64_t y = y0; y <= y1; ++y) {
        for (int64_t x = x0; x <= x1; ++x) {
            int64_t h = cell_map_find(&s->agent_cells, cell_key((int32_t)x, (int32_t)y));
            if (h < 0) {
                continue;
            }
            int32_t begin = s->agent_cells.start[h];
            int32_t end = begin + s->agent_cells.count[h];
            n = hits ? test_range(s, t, begin, end, hits, n) : n + (end - begin);
        }
    }
    return n;
}

/* Runs a query: builds the grid if needed, collects the hits in a buffer of the allocation
 * hooks (*out, *count; the caller frees *out), sorted by (distance, index) or by index. */
static orca_status collect(const orca_sim *s, const query_test *t, int by_index, query_hit **out,
                           int64_t *count)
{
    *out = NULL;
    *count = 0;
    orca_status st = orca_grid_prepare(s);
    if (st != ORCA_OK) {
        return st;
    }
    int64_t room = scan_box(s, t, NULL);
    if (room == 0) {
        return ORCA_OK;
    }
    query_hit *hits = orca_mem_alloc((size_t)room, sizeof *hits);
    if (!hits) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory for a query's %lld candidates",
                         (long long)room);
    }
    int64_t n = scan_box(s, t, hits);
    qsort(hits, (size_t)n, sizeof *hits, by_index ? index_order : hit_order);
    *out = hits;
    *count = n;
    return ORCA_OK;
}

static orca_status check_output(const orca_sim *s, const int *indices, int capacity)
{
    if (capacity < 0 || (capacity > 0 && !indices)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "indices must hold capacity entries (capacity %d, indices %s)",
                         capacity, indices ? "given" : "NULL");
    }
    return ORCA_OK;
}

/* The box around the disc of radius r at c, widened for rounding: an agent whose computed
 * (p - c).(p - c) is at most r*r has |p.x - c.x| and |p.y - c.y| below r (1 + 2^-50) plus
 * the distance at which a square underflows (below 2^-537); the margin is far above both. */
static query_test radius_test(orca_vec2 c, double r)
{
    query_test t;
    double m = 1e-9 * (d_mag(c.x) + d_mag(c.y) + r) + MARGIN_ABS;
    t.radius = 1;
    t.c = c;
    t.r2 = r * r;
    t.lo.x = c.x - r - m;
    t.lo.y = c.y - r - m;
    t.hi.x = c.x + r + m;
    t.hi.y = c.y + r + m;
    return t;
}

static void write_hits(const query_hit *hits, int64_t n, int *indices, int capacity)
{
    for (int64_t k = 0; k < n && k < capacity; ++k) {
        indices[k] = hits[k].index;
    }
}

orca_status orca_sim_query_radius(const orca_sim *sim, orca_vec2 center, double radius,
                                  int *indices, int capacity, int *count)
{
    if (!sim) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(sim);
    orca_agents_settle(sim);
    orca_status st;
    if ((st = orca_check_coord(sim, "center", center)) != ORCA_OK ||
        (st = check_output(sim, indices, capacity)) != ORCA_OK) {
        return st;
    }
    if (!(radius >= 0 && radius <= ORCA_NEIGHBOR_DIST_MAX)) {
        return orca_fail(sim, ORCA_ERR_ARGUMENT, "radius must be in [0, 2^23] m, got %.17g",
                         radius);
    }
    query_test t = radius_test(center, radius);
    query_hit *hits;
    int64_t n;
    if ((st = collect(sim, &t, 0, &hits, &n)) != ORCA_OK) {
        return st;
    }
    write_hits(hits, n, indices, capacity);
    orca_mem_free(hits);
    if (count) {
        *count = (int)n;
    }
    return ORCA_OK;
}

orca_status orca_sim_query_nearest(const orca_sim *sim, orca_vec2 point, int k, int *indices,
                                   int *count)
{
    if (!sim) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(sim);
    orca_agents_settle(sim);
    orca_status st;
    if ((st = orca_check_coord(sim, "point", point)) != ORCA_OK) {
        return st;
    }
    if (k < 0) {
        return orca_fail(sim, ORCA_ERR_ARGUMENT, "k must be >= 0, got %d", k);
    }
    if ((st = check_output(sim, indices, k)) != ORCA_OK) {
        return st;
    }
    int32_t total = sim->agent_count;
    int want = k < total ? k : (int)total;
    if (want == 0) {
        if (count) {
            *count = 0;
        }
        return ORCA_OK;
    }
    if ((st = orca_grid_prepare(sim)) != ORCA_OK) {
        return st;
    }
    /* Disc queries of growing radius until one holds at least `want` agents: every agent
     * outside it is farther than every agent inside, so its first `want` entries in
     * (distance, index) order are the answer. A radius of 2^23 holds every agent (centre and
     * positions are below 2^21 in magnitude), so the loop ends. */
    double r = sim->cell > 0 ? sim->cell : 1;
    r = r > ORCA_NEIGHBOR_DIST_MAX ? ORCA_NEIGHBOR_DIST_MAX : r;
    for (;;) {
        query_test t = radius_test(point, r);
        query_hit *hits;
        int64_t n;
        if ((st = collect(sim, &t, 0, &hits, &n)) != ORCA_OK) {
            return st;
        }
        if (n >= want || r >= ORCA_NEIGHBOR_DIST_MAX) {
            write_hits(hits, n < want ? n : want, indices, want);
            orca_mem_free(hits);
            if (count) {
                *count = (int)(n < want ? n : want);
            }
            return ORCA_OK;
        }
        orca_mem_free(hits);
        r = r * 4 > ORCA_NEIGHBOR_DIST_MAX ? ORCA_NEIGHBOR_DIST_MAX : r * 4;
    }
}

orca_status orca_sim_query_box(const orca_sim *sim, orca_vec2 lo, orca_vec2 hi, int *indices,
                               int capacity, int *count)
{
    if (!sim) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(sim);
    orca_agents_settle(sim);
    orca_status st;
    if ((st = check_output(sim, indices, capacity)) != ORCA_OK) {
        return st;
    }
    const char *names[4] = {"lo.x", "lo.y", "hi.x", "hi.y"};
    double v[4] = {lo.x, lo.y, hi.x, hi.y};
    for (int q = 0; q < 4; ++q) {
        if (!sim_finite(v[q])) {
            return orca_fail(sim, ORCA_ERR_ARGUMENT, "%s must be finite, got %.17g", names[q],
                             v[q]);
        }
    }
    if (!(lo.x <= hi.x) || !(lo.y <= hi.y)) {
        return orca_fail(sim, ORCA_ERR_ARGUMENT,
                         "the box must have lo <= hi, got lo (%.17g, %.17g), hi (%.17g, %.17g)",
                         lo.x, lo.y, hi.x, hi.y);
    }
    query_test t;
    t.radius = 0;
    t.c = lo;
    t.r2 = 0;
    t.lo = lo;
    t.hi = hi;
    query_hit *hits;
    int64_t n;
    if ((st = collect(sim, &t, 1, &hits, &n)) != ORCA_OK) {
        return st;
    }
    write_hits(hits, n, indices, capacity);
    orca_mem_free(hits);
    if (count) {
        *count = (int)n;
    }
    return ORCA_OK;
}
