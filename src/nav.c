/* SPDX-License-Identifier: MIT */
/* Navigation (docs/navigation.md): shortest paths of a disc of radius r through the walls of a
 * simulation. The walls are the segments and the edges of the walkable-area loops; a path
 * keeps at least r from each, so it is made of straight legs tangent to circles of radius r
 * around wall ends and arcs of those circles. The structure kept per radius is the tangent
 * visibility graph: every leg between two such circles that is clear of the walls, its ends
 * (tangent points) as the nodes, and the arcs between angularly adjacent tangent points of a
 * circle. A query adds legs from the start and to the goals and runs Dijkstra's search; a goal
 * set keeps its distances to every node (one search backwards), so that each walker's query
 * only connects its start. Every operation is binary64 as written, sqrt the only function,
 * every order an index order.
 *
 * This file: the object and the API around it (creation, the walls it reads, the queries and
 * their checks); the parts it uses are listed in nav_internal.h. */
#include "nav_internal.h"

#include "sim_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static orca_status nav_fail(orca_nav *nav, orca_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(nav->error, sizeof nav->error, fmt, ap);
    va_end(ap);
    return st;
}

static void nv_work_free(nav_work *w)
{
    orca_mem_free(w->slot);
    orca_mem_free(w->heap);
    orca_mem_free(w->stamp);
    orca_mem_free(w->lb);
    orca_mem_free(w->order);
    memset(w, 0, sizeof *w);
}

static void nv_drop_plans(orca_nav *nav)
{
    for (int i = 0; i < nav->plan_count; ++i) {
        orca_nv_plan_free(nav->plans[i]);
    }
    orca_mem_free(nav->plans);
    nav->plans = NULL;
    nav->plan_count = 0;
}

const char *orca_nav_result_name(int result)
{
    switch (result) {
    case ORCA_NAV_OK: return "ORCA_NAV_OK";
    case ORCA_NAV_NO_PATH: return "ORCA_NAV_NO_PATH";
    case ORCA_NAV_START_BLOCKED: return "ORCA_NAV_START_BLOCKED";
    case ORCA_NAV_GOAL_BLOCKED: return "ORCA_NAV_GOAL_BLOCKED";
    default: return "unknown result";
    }
}

orca_status orca_nav_create(const orca_sim *sim, orca_nav **out)
{
    if (!out) {
        return ORCA_ERR_NULL;
    }
    *out = NULL;
    if (!sim) {
        return ORCA_ERR_NULL;
    }
    orca_nav *nav = orca_mem_zalloc(1, sizeof *nav);
    if (!nav) {
        return ORCA_ERR_MEMORY;
    }
    nav->sim = sim;
    nav->nw = -1; /* nothing read yet */
    if (orca_nav_workers(nav, 1) != ORCA_OK) {
        orca_mem_free(nav);
        return ORCA_ERR_MEMORY;
    }
    *out = nav;
    return ORCA_OK;
}

void orca_nav_rebind(orca_nav *nav, const orca_sim *sim)
{
    nav->sim = sim;
}

void orca_nav_destroy(orca_nav *nav)
{
    if (!nav) {
        return;
    }
    nv_drop_plans(nav);
    orca_mem_free(nav->wa);
    orca_mem_free(nav->wb);
    for (int w = 0; w < nav->work_count; ++w) {
        nv_work_free(&nav->work[w]);
    }
    orca_mem_free(nav->work);
    orca_mem_free(nav);
}

const char *orca_nav_last_error(const orca_nav *nav)
{
    return nav ? nav->error : "nav is NULL";
}

orca_status orca_nav_workers(orca_nav *nav, int count)
{
    if (count <= nav->work_count) {
        return ORCA_OK;
    }
    nav_work *w = orca_mem_resize(nav->work, (size_t)count, sizeof *w);
    if (!w) {
        return ORCA_ERR_MEMORY;
    }
    memset(w + nav->work_count, 0, (size_t)(count - nav->work_count) * sizeof *w);
    nav->work = w;
    nav->work_count = count;
    return ORCA_OK;
}

int orca_nav_same_walls(const orca_nav *nav, const orca_sim *s)
{
    orca_segments_settle(s);
    int nseg = s->segment_count;
    int nloop = s->bnd ? s->bnd->edge_count : 0;
    int nw = nseg + nloop;
    int same = nw == nav->nw && nseg == nav->nseg;
    for (int k = 0; same && k < nw; ++k) {
        orca_vec2 a = k < nseg ? s->seg_a[k] : s->bnd->ea[k - nseg];
        orca_vec2 b = k < nseg ? s->seg_b[k] : s->bnd->eb[k - nseg];
        a = nv_norm0(a);
        b = nv_norm0(b);
        same = memcmp(&a, &nav->wa[k], sizeof a) == 0 && memcmp(&b, &nav->wb[k], sizeof b) == 0;
    }
    return same;
}

int orca_nav_sync(orca_nav *nav)
{
    return orca_nav_sync_to(nav, nav->sim);
}

int orca_nav_reserve_walls(orca_nav *nav, const orca_sim *s)
{
    orca_segments_settle(s);
    int nw = s->segment_count + (s->bnd ? s->bnd->edge_count : 0);
    if (nw > nav->wcap) {
        orca_vec2 *wa = orca_mem_resize(nav->wa, (size_t)nw, sizeof *wa);
        if (!wa) {
            return 0;
        }
        nav->wa = wa;
        orca_vec2 *wb = orca_mem_resize(nav->wb, (size_t)nw, sizeof *wb);
        if (!wb) {
            return 0;
        }
        nav->wb = wb;
        nav->wcap = nw;
    }
    return 1;
}

int orca_nav_sync_to(orca_nav *nav, const orca_sim *s)
{
    if (orca_nav_same_walls(nav, s)) {
        return 0;
    }
    if (!orca_nav_reserve_walls(nav, s)) {
        return -1;
    }
    int nseg = s->segment_count;
    int nw = nseg + (s->bnd ? s->bnd->edge_count : 0);
    double M = 0.0;
    for (int k = 0; k < nw; ++k) {
        orca_vec2 a = k < nseg ? s->seg_a[k] : s->bnd->ea[k - nseg];
        orca_vec2 b = k < nseg ? s->seg_b[k] : s->bnd->eb[k - nseg];
        nav->wa[k] = nv_norm0(a);
        nav->wb[k] = nv_norm0(b);
        double m[4] = {d_abs(a.x), d_abs(a.y), d_abs(b.x), d_abs(b.y)};
        for (int j = 0; j < 4; ++j) {
            M = m[j] > M ? m[j] : M;
        }
    }
    nav->nw = nw;
    nav->nseg = nseg;
    nav->M = M;
    nv_drop_plans(nav);
    return 1;
}

orca_status orca_nav_prepare(orca_nav *nav, double radius, int64_t field, const orca_vec2 *goals,
                             int goal_count)
{
    nav_plan *P = orca_nv_get_plan(nav, radius);
    if (!P) {
        return ORCA_ERR_MEMORY;
    }
    if (field >= 0 && !orca_nv_get_field(nav, P, &nav->work[0], field, goals, goal_count)) {
        return ORCA_ERR_MEMORY;
    }
    return ORCA_OK;
}

/* The indices in P of the wall ends at p[0 .. n-1] to vi (-1 for a point that is none). */
static void nav_vertices(const nav_plan *P, const orca_vec2 *p, int n, int *vi)
{
    for (int k = 0; k < n; ++k) {
        vi[k] = orca_nv_find_vertex(P, nv_norm0(p[k]));
    }
}

orca_status orca_nav_route(orca_nav *nav, int wk, double radius, orca_vec2 from,
                           const orca_vec2 *goals, int goal_count, int64_t field,
                           const orca_vec2 *avoid, double penalty, nav_route *out)
{
    return orca_nav_route_cost(nav, wk, radius, from, goals, goal_count, field, avoid, penalty,
                               NULL, 0, out, NULL);
}

orca_status orca_nav_route_cost(orca_nav *nav, int wk, double radius, orca_vec2 from,
                                const orca_vec2 *goals, int goal_count, int64_t field,
                                const orca_vec2 *avoid, double penalty, const orca_vec2 *via,
                                int nvia, nav_route *out, double *cost)
{
    if (cost) {
        *cost = 1.0 / 0.0;
    }
    const nav_plan *P = orca_nv_find_plan(nav, radius);
    const nav_field *F = P && field >= 0 ? orca_nv_find_field(P, field) : NULL;
    if (!P || (field >= 0 && !F) || nvia < 0 || nvia > 4 || wk < 0 ||
        wk >= nav->work_count) {
        return ORCA_ERR_ARGUMENT; /* not prepared (orca_nav_prepare, orca_nav_workers) */
    }
    nav_work *W = &nav->work[wk];
    from = nv_norm0(from);
    if (F) {
        int vi[4];
        nav_vertices(P, via, nvia, vi);
        return orca_nv_field_route(nav, P, F, W, from,
                                   avoid ? orca_nv_find_vertex(P, nv_norm0(*avoid)) : -1,
                                   penalty, vi, nvia, out, cost);
    }
    return orca_nv_search(nav, P, W, from, goals, goal_count, avoid, penalty, 1, !nav->dijkstra,
                          out);
}

orca_status orca_nav_field_cost(orca_nav *nav, int wk, double radius, orca_vec2 from,
                                int64_t field, const orca_vec2 *avoid, double penalty,
                                double *cost)
{
    const nav_plan *P = orca_nv_find_plan(nav, radius);
    const nav_field *F = P ? orca_nv_find_field(P, field) : NULL;
    if (!F || wk < 0 || wk >= nav->work_count) {
        return ORCA_ERR_ARGUMENT; /* not prepared */
    }
    return orca_nv_field_route(nav, P, F, &nav->work[wk], nv_norm0(from),
                               avoid ? orca_nv_find_vertex(P, nv_norm0(*avoid)) : -1,
                               penalty, NULL, 0, NULL, cost);
}

orca_status orca_nav_field_upper(orca_nav *nav, int wk, double radius, orca_vec2 from,
                                 int64_t field, const orca_vec2 *avoid, double penalty,
                                 const orca_vec2 *via, int nvia, double *upper)
{
    const nav_plan *P = orca_nv_find_plan(nav, radius);
    const nav_field *F = P ? orca_nv_find_field(P, field) : NULL;
    if (!F || nvia < 0 || nvia > 4 || wk < 0 || wk >= nav->work_count) {
        return ORCA_ERR_ARGUMENT; /* not prepared */
    }
    int vi[4];
    nav_vertices(P, via, nvia, vi);
    return orca_nv_field_upper(nav, P, F, &nav->work[wk], nv_norm0(from),
                               avoid ? orca_nv_find_vertex(P, nv_norm0(*avoid)) : -1, penalty,
                               vi, nvia, upper);
}

orca_status orca_nav_field_costs(orca_nav *nav, int wk, double radius, orca_vec2 from,
                                 const int64_t *field, int count, const orca_vec2 *avoid,
                                 double penalty, const double *cap, double *cost)
{
    const nav_plan *P = orca_nv_find_plan(nav, radius);
    if (!P || count < 1 || wk < 0 || wk >= nav->work_count) {
        return ORCA_ERR_ARGUMENT; /* not prepared */
    }
    const nav_field **F = orca_mem_alloc((size_t)count, sizeof *F);
    if (!F) {
        return ORCA_ERR_MEMORY;
    }
    for (int j = 0; j < count; ++j) {
        F[j] = orca_nv_find_field(P, field[j]);
        if (!F[j]) {
            orca_mem_free((void *)F);
            return ORCA_ERR_ARGUMENT;
        }
    }
    orca_status st = orca_nv_field_costs(nav, P, F, count, &nav->work[wk], nv_norm0(from),
                                         avoid ? orca_nv_find_vertex(P, nv_norm0(*avoid)) : -1,
                                         penalty, cap, cost);
    orca_mem_free((void *)F);
    return st;
}

void orca_nav_set_dijkstra(orca_nav *nav, int on)
{
    nav->dijkstra = on != 0;
}

void orca_nav_set_plain_build(orca_nav *nav, int on)
{
    nav->plain = on != 0;
}

/* FNV-1a over bytes, most significant first (a digest for the tests). */
static uint64_t nv_fnv(uint64_t h, uint64_t v, int bytes)
{
    for (int b = bytes - 1; b >= 0; --b) {
        h = (h ^ ((v >> (8 * b)) & 0xff)) * UINT64_C(0x100000001b3);
    }
    return h;
}

static uint64_t nv_fnv_d(uint64_t h, double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return nv_fnv(h, u, 8);
}

orca_status orca_nav_graph_digest(orca_nav *nav, double radius, uint64_t *digest, int64_t *cut)
{
    if (orca_nav_sync(nav) < 0) {
        return ORCA_ERR_MEMORY;
    }
    nav_plan *P = orca_nv_get_plan(nav, radius);
    if (!P) {
        return ORCA_ERR_MEMORY;
    }
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    h = nv_fnv(h, (uint64_t)P->nv, 8);
    h = nv_fnv(h, (uint64_t)P->nn, 8);
    for (int n = 0; n < P->nn; ++n) {
        const nav_node *d = &P->node[n];
        h = nv_fnv_d(nv_fnv_d(h, d->p.x), d->p.y);
        h = nv_fnv_d(nv_fnv_d(nv_fnv_d(h, d->key), d->leg), d->arc_len);
        h = nv_fnv(h, (uint64_t)(uint32_t)d->ring, 4);
        h = nv_fnv(h, (uint64_t)(uint32_t)d->pos, 4);
        h = nv_fnv(h, (uint64_t)(uint32_t)d->mate, 4);
        h = nv_fnv(h, (uint64_t)d->dep, 1);
        h = nv_fnv(h, (uint64_t)d->arc_free, 1);
    }
    for (int g = 0; g < 2 * P->nv; ++g) {
        h = nv_fnv(h, (uint64_t)(uint32_t)P->ring_n[g], 4);
        for (int k = 0; k < P->ring_n[g]; ++k) {
            h = nv_fnv(h, (uint64_t)(uint32_t)P->ring_nodes[P->ring_first[g] + k], 4);
        }
    }
    *digest = h;
    *cut = P->cut;
    return ORCA_OK;
}

/* --- following ------------------------------------------------------------------------- */

int orca_nav_leg_clear(orca_nav *nav, int wk, double radius, orca_vec2 p,
                       const orca_nav_corner *corner, orca_vec2 goal)
{
    const nav_plan *P = orca_nv_find_plan(nav, radius);
    if (!P || wk < 0 || wk >= nav->work_count) {
        return 0;
    }
    nav_work *W = &nav->work[wk];
    p = nv_norm0(p);
    orca_vec2 to = goal;
    if (corner && !nv_tan_pc(p, corner->vertex, radius, corner->side, &to)) {
        return 1; /* on its corner's circle: it is at the corner */
    }
    /* a leg that only grazes a wall lets the walker slide along it or round its end; one
     * through a wall (within 2^-20 r of it: crossing, or touching) does not */
    return orca_nv_seg_clear(nav, P, W, p, to, NAV_TAUT * radius);
}

orca_vec2 orca_nav_aim(orca_vec2 p, const orca_nav_corner *c, double r)
{
    double wx = c->vertex.x - p.x, wy = c->vertex.y - p.y;
    double d2 = wx * wx + wy * wy;
    double h2 = d2 - r * r;
    double h = h2 > 0 ? sqrt(h2) : 0.0;
    double sr = (double)c->side * r;
    orca_vec2 d = v2(h * wx + sr * wy, h * wy - sr * wx);
    if (d.x == 0 && d.y == 0) {
        return v2(0.0, 0.0);
    }
    return v2_unit(d);
}

int orca_nav_passed(orca_vec2 p, const orca_nav_corner *c, const orca_nav_corner *next,
                    orca_vec2 goal, double r)
{
    (void)r;
    orca_vec2 to = next ? next->enter : goal;
    orca_vec2 e = v2_sub(to, c->leave);
    return v2_dot(v2_sub(p, c->leave), e) >= 0 &&
           (double)c->side * nv_cross2(e, v2_sub(p, c->vertex)) <= 0;
}

/* --- the API --------------------------------------------------------------------------- */

static int nv_finite_coord(double x) { return x - x == 0 && d_abs(x) < 0x1p21; }

static orca_status nv_check_query(orca_nav *nav, double radius, orca_vec2 from, const orca_vec2 *goals,
                               int goal_count)
{
    if (!(radius >= 0x1p-20 && radius <= 0x1p20)) {
        return nav_fail(nav, ORCA_ERR_ARGUMENT, "radius %.17g must be in [2^-20, 2^20] m",
                        radius);
    }
    if (!nv_finite_coord(from.x) || !nv_finite_coord(from.y)) {
        return nav_fail(nav, ORCA_ERR_ARGUMENT,
                        "from (%.17g, %.17g) must be finite with magnitude below 2^21", from.x,
                        from.y);
    }
    if (goal_count < 1 || goal_count > ORCA_NAV_GOALS_MAX) {
        return nav_fail(nav, goal_count < 1 ? ORCA_ERR_ARGUMENT : ORCA_ERR_LIMIT,
                        "goal_count %d must be in [1, %d]", goal_count, ORCA_NAV_GOALS_MAX);
    }
    if (!goals) {
        return nav_fail(nav, ORCA_ERR_NULL, "goals is NULL");
    }
    for (int g = 0; g < goal_count; ++g) {
        if (!nv_finite_coord(goals[g].x) || !nv_finite_coord(goals[g].y)) {
            return nav_fail(nav, ORCA_ERR_ARGUMENT,
                            "goals[%d] (%.17g, %.17g) must be finite with magnitude below 2^21",
                            g, goals[g].x, goals[g].y);
        }
    }
    return ORCA_OK;
}

orca_status orca_nav_path(orca_nav *nav, double radius, orca_vec2 from, const orca_vec2 *goals,
                          int goal_count, orca_nav_result *result, double *length,
                          int *goal_index, orca_nav_corner *corners, int capacity, int *count)
{
    if (!nav) {
        return ORCA_ERR_NULL;
    }
    nav->error[0] = 0;
    if (!result) {
        return nav_fail(nav, ORCA_ERR_NULL, "result is NULL");
    }
    if (capacity < 0 || (capacity > 0 && !corners)) {
        return nav_fail(nav, capacity < 0 ? ORCA_ERR_ARGUMENT : ORCA_ERR_NULL,
                        "corners is NULL with capacity %d", capacity);
    }
    orca_status st = nv_check_query(nav, radius, from, goals, goal_count);
    if (st != ORCA_OK) {
        return st;
    }
    if (orca_nav_sync(nav) < 0) {
        return nav_fail(nav, ORCA_ERR_MEMORY, "out of memory reading the walls");
    }
    nav_plan *P = orca_nv_get_plan(nav, radius);
    if (!P) {
        return nav_fail(nav, ORCA_ERR_MEMORY, "out of memory building the graph");
    }
    nav_route r;
    memset(&r, 0, sizeof r);
    orca_vec2 *g0 = orca_mem_alloc((size_t)goal_count, sizeof *g0);
    if (!g0) {
        return nav_fail(nav, ORCA_ERR_MEMORY, "out of memory");
    }
    for (int g = 0; g < goal_count; ++g) {
        g0[g] = nv_norm0(goals[g]);
    }
    st = orca_nv_search(nav, P, &nav->work[0], nv_norm0(from), g0, goal_count, NULL, 0.0, 0,
                        !nav->dijkstra, &r);
    orca_mem_free(g0);
    if (st != ORCA_OK) {
        orca_nav_route_free(&r);
        return nav_fail(nav, st, "out of memory searching");
    }
    *result = (orca_nav_result)r.result;
    if (r.result == ORCA_NAV_OK) {
        if (length) {
            *length = r.length;
        }
        if (goal_index) {
            *goal_index = r.goal;
        }
        if (count) {
            *count = r.count;
        }
        for (int i = 0; i < r.count && i < capacity; ++i) {
            corners[i] = r.corners[i];
        }
    }
    orca_nav_route_free(&r);
    return ORCA_OK;
}

/* Line of sight: every wall farther than radius from the segment a-b (strictly, so that a
 * wall that touches the segment blocks it at radius 0). The walls whose ends are both beyond
 * one side of the segment's box grown by radius are farther; the others by orca_nv_seg_seg_d2.
 * A linear scan in wall order (no plan is built: a query of its own costs no graph). */
orca_status orca_nav_visible(orca_nav *nav, double radius, orca_vec2 a, orca_vec2 b, int *visible)
{
    if (!nav) {
        return ORCA_ERR_NULL;
    }
    nav->error[0] = 0;
    if (!visible) {
        return nav_fail(nav, ORCA_ERR_NULL, "visible is NULL");
    }
    if (!(radius >= 0 && radius <= 0x1p20)) {
        return nav_fail(nav, ORCA_ERR_ARGUMENT, "radius %.17g must be in [0, 2^20] m", radius);
    }
    orca_vec2 ends[2] = {a, b};
    for (int e = 0; e < 2; ++e) {
        if (!nv_finite_coord(ends[e].x) || !nv_finite_coord(ends[e].y)) {
            return nav_fail(nav, ORCA_ERR_ARGUMENT,
                            "%s (%.17g, %.17g) must be finite with magnitude below 2^21",
                            e ? "b" : "a", ends[e].x, ends[e].y);
        }
    }
    if (orca_nav_sync(nav) < 0) {
        return nav_fail(nav, ORCA_ERR_MEMORY, "out of memory reading the walls");
    }
    a = nv_norm0(a);
    b = nv_norm0(b);
    double lo_x = (a.x < b.x ? a.x : b.x) - radius, hi_x = (a.x < b.x ? b.x : a.x) + radius;
    double lo_y = (a.y < b.y ? a.y : b.y) - radius, hi_y = (a.y < b.y ? b.y : a.y) + radius;
    double r2 = radius * radius;
    int seen = 1;
    for (int k = 0; seen && k < nav->nw; ++k) {
        orca_vec2 p = nav->wa[k], q = nav->wb[k];
        if ((p.x < lo_x && q.x < lo_x) || (p.x > hi_x && q.x > hi_x) ||
            (p.y < lo_y && q.y < lo_y) || (p.y > hi_y && q.y > hi_y)) {
            continue;
        }
        seen = orca_nv_seg_seg_d2(a, b, p, q) > r2;
    }
    *visible = seen;
    return ORCA_OK;
}

orca_status orca_nav_stats_get(orca_nav *nav, double radius, orca_nav_stats *out)
{
    if (!nav || !out) {
        return ORCA_ERR_NULL;
    }
    if (!(radius >= 0x1p-20 && radius <= 0x1p20)) {
        return nav_fail(nav, ORCA_ERR_ARGUMENT, "radius %.17g must be in [2^-20, 2^20] m",
                        radius);
    }
    if (orca_nav_sync(nav) < 0) {
        return nav_fail(nav, ORCA_ERR_MEMORY, "out of memory reading the walls");
    }
    nav_plan *P = orca_nv_get_plan(nav, radius);
    if (!P) {
        return nav_fail(nav, ORCA_ERR_MEMORY, "out of memory building the graph");
    }
    out->walls = nav->nw;
    out->vertices = P->nv;
    out->legs = P->legs;
    size_t b = sizeof *P + (size_t)P->nv * (sizeof(orca_vec2) + 4 * sizeof(int32_t)) +
               (size_t)P->ncap * sizeof(nav_node) +
               (size_t)P->nn * (sizeof(int32_t) + sizeof(double));
    for (int i = 0; i < P->field_count; ++i) {
        b += (size_t)(P->nn + P->fields[i].gv_count) * (2 * sizeof(double) + sizeof(int32_t));
    }
    out->bytes = b;
    return ORCA_OK;
}
