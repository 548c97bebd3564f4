/* SPDX-License-Identifier: MIT */
/* Navigation's shared goals (docs/navigation.md, "Shared goals"): a goal set's distances to
 * every node of a graph (one search backwards from the goals), kept with the graph, and the
 * queries that only connect their start to them. */
#include "nav_internal.h"

#include "alloc.h"
#include "vec.h"

#include <stdint.h>
#include <string.h>

void orca_nv_field_free(nav_field *f)
{
    orca_mem_free(f->goals);
    orca_mem_free(f->gv_ring);
    orca_mem_free(f->gv_key);
    orca_mem_free(f->gv_p);
    orca_mem_free(f->gv_goal);
    orca_mem_free(f->dist);
    orca_mem_free(f->len);
    orca_mem_free(f->next);
    orca_mem_free(f->ring_min);
    orca_mem_free(f->goal_ok);
}

/* The distances of every node to the nearest goal of the set (a search backwards from the
 * goals, docs/navigation.md "Shared goals"). */
nav_field *orca_nv_get_field(orca_nav *nav, nav_plan *P, nav_work *W, int64_t id,
                             const orca_vec2 *goals, int ng)
{
    for (int i = 0; i < P->field_count; ++i) {
        if (P->fields[i].id == id) {
            return &P->fields[i];
        }
    }
    nav_field *fs = orca_mem_resize(P->fields, (size_t)P->field_count + 1, sizeof *fs);
    if (!fs) {
        return NULL;
    }
    P->fields = fs;
    nav_field *F = &P->fields[P->field_count];
    memset(F, 0, sizeof *F);
    F->id = id;
    F->goal_ok = orca_mem_zalloc((size_t)ng, 1);
    F->goals = orca_mem_alloc((size_t)ng, sizeof *F->goals);
    if (!F->goal_ok || !F->goals) {
        orca_nv_field_free(F);
        return NULL;
    }
    memcpy(F->goals, goals, (size_t)ng * sizeof *goals);
    F->goal_count = ng;
    F->goal_any = orca_nv_check_goals(nav, P, W, goals, ng, F->goal_ok);
    nv_vpoint *gv = NULL;
    int ngv = orca_nv_goal_points(nav, P, W, goals, F->goal_ok, ng, 0, &gv);
    if (ngv < 0) {
        orca_nv_field_free(F);
        return NULL;
    }
    int nn = P->nn, total = nn + ngv;
    F->gv_count = ngv;
    F->gv_ring = orca_mem_alloc((size_t)ngv + 1, sizeof *F->gv_ring);
    F->gv_key = orca_mem_alloc((size_t)ngv + 1, sizeof *F->gv_key);
    F->gv_p = orca_mem_alloc((size_t)ngv + 1, sizeof *F->gv_p);
    F->gv_goal = orca_mem_alloc((size_t)ngv + 1, sizeof *F->gv_goal);
    F->dist = orca_mem_alloc((size_t)total + 1, sizeof *F->dist);
    F->len = orca_mem_alloc((size_t)total + 1, sizeof *F->len);
    F->next = orca_mem_alloc((size_t)total + 1, sizeof *F->next);
    if (!F->gv_ring || !F->gv_key || !F->gv_p || !F->gv_goal || !F->dist || !F->len ||
        !F->next) {
        orca_mem_free(gv);
        orca_nv_field_free(F);
        return NULL;
    }
    for (int j = 0; j < ngv; ++j) {
        F->gv_ring[j] = gv[j].ring;
        F->gv_key[j] = gv[j].key;
        F->gv_p[j] = gv[j].p;
        F->gv_goal[j] = gv[j].goal;
    }
    double *dist = F->dist, *len = F->len;
    int32_t *next = F->next;
    for (int i = 0; i < total; ++i) {
        dist[i] = 1.0 / 0.0;
        len[i] = 0.0;
        next[i] = -1;
    }
    nv_heap h = orca_nv_heap_open(W);
#define RELAXB(y, c, x)                                                                     \
    do {                                                                                    \
        if ((c) < dist[y]) {                                                  \
            dist[y] = (c);                                                                  \
            len[y] = (c);                                                                   \
            next[y] = (x);                                                                  \
            orca_nv_heap_push(&h, (c), (y));                                                   \
        }                                                                                   \
    } while (0)
    for (int j = 0; j < ngv; ++j) {
        RELAXB(nn + j, gv[j].leg, -1);
    }
    while (h.n > 0 && !h.oom) {
        double c;
        int32_t x;
        orca_nv_heap_pop(&h, &c, &x);
        if (c > dist[x]) {
            continue;
        }
        int g;
        double k;
        orca_vec2 px;
        if (x < nn) {
            g = P->node[x].ring;
            k = P->node[x].key;
            px = P->node[x].p;
        } else {
            g = gv[x - nn].ring;
            k = gv[x - nn].key;
            px = gv[x - nn].p;
        }
        int s = (g & 1) ? -1 : 1, vi = g >> 1;
        double d;
        int p;
        if (x < nn) {
            int m = P->ring_n[g];
            p = m >= 2 ? P->ring_nodes[P->ring_first[g] +
                                       (s > 0 ? (P->node[x].pos + m - 1) % m : (P->node[x].pos + 1) % m)]
                       : -1;
            if (p >= 0 && p != x && P->node[p].arc_free) {
                RELAXB(p, c + P->node[p].arc_len, x);
            }
            if (!P->node[x].dep) { /* an arrival: the leg's departure */
                int dn = P->node[x].mate;
                RELAXB(dn, c + P->node[x].leg, x);
            }
        } else {
            p = orca_nv_ring_prev_of(P, g, k, &d);
            if (p >= 0 && orca_nv_arc_clear_dir(P, nav, vi, s, P->node[p].p, px, d, P->lim)) {
                RELAXB(p, c + P->r * d, x);
            }
        }
    }
#undef RELAXB
    orca_mem_free(gv);
    F->ring_min = orca_mem_alloc((size_t)(2 * P->nv) + 1, sizeof *F->ring_min);
    if (h.oom || !F->ring_min) {
        orca_nv_field_free(F);
        return NULL;
    }
    for (int g = 0; g < 2 * P->nv; ++g) {
        F->ring_min[g] = 1.0 / 0.0;
    }
    for (int x = 0; x < total; ++x) {
        int g = x < nn ? P->node[x].ring : F->gv_ring[x - nn];
        F->ring_min[g] = dist[x] < F->ring_min[g] ? dist[x] : F->ring_min[g];
    }
    P->field_count++;
    return F;
}

/* Moves order[k] down the binary heap order[0 .. hn) of vertices kept by (lb, index). */
static void nv_sift_down(const double *lb, int32_t *order, int hn, int k)
{
    for (;;) {
        int l = 2 * k + 1, m = k;
        if (l < hn && (lb[order[l]] < lb[order[m]] ||
                       (lb[order[l]] == lb[order[m]] && order[l] < order[m]))) {
            m = l;
        }
        if (l + 1 < hn && (lb[order[l + 1]] < lb[order[m]] ||
                           (lb[order[l + 1]] == lb[order[m]] && order[l + 1] < order[m]))) {
            m = l + 1;
        }
        if (m == k) {
            return;
        }
        int32_t t = order[k];
        order[k] = order[m];
        order[m] = t;
        k = m;
    }
}

/* The first of field F's goal points on ring g (they are sorted by ring): F->gv_count when
 * none is. */
static int field_ring_first(const nav_field *F, int g)
{
    int lo = 0, hi = F->gv_count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (F->gv_ring[mid] < g) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* The best candidate of a query through a goal set's distances so far: its cost, its key
 * (INT64_MIN: a direct leg; else (ring << 32) + the goal point's place on the ring, or
 * INT32_MAX for the ring's next node), the goal of a direct leg, the ring, start point and
 * first node after it. */
typedef struct nv_best {
    double cost;
    int64_t key;
    int goal, ring, first;
    orca_vec2 p;
} nv_best;

/* The candidates through vertex vi for field F's query from `from` (orca_nv_field_route): each
 * one below the best, or equal with a lower key, whose leg and arc are clear becomes the
 * best. */
static void nv_route_vertex(const orca_nav *nav, const nav_plan *P, const nav_field *F,
                            nav_work *W, orca_vec2 from, double start_lim, int vi, int avoid_v,
                            double penalty, nv_best *b)
{
    int nn = P->nn, ngv = F->gv_count;
    for (int side = 0; side < 2; ++side) {
        int s = side ? -1 : 1;
        orca_vec2 t;
        if (!nv_tan_pc(from, P->vp[vi], P->r, s, &t)) {
            continue;
        }
        orca_vec2 f = v2_sub(t, from);
        if (start_lim == P->lim && !nv_taut(P, vi, s, f)) {
            continue;
        }
        /* the leg's clearance is checked once a candidate through it would win (-1: not
         * yet): the same result as checking it first, without the walk along the leg for
         * the start points that cannot win */
        int clear = -1;
        double leg = v2_len(f);
        double pen = vi == avoid_v ? penalty : 0.0;
        double key_t = orca_nav_angle(t.y - P->vp[vi].y, t.x - P->vp[vi].x);
        int g = 2 * vi + side;
        int64_t base = (int64_t)g << 32;
        double dy = 0.0;
        int y = orca_nv_ring_next_of(P, g, key_t, &dy);
        int lo = field_ring_first(F, g);
        for (int j = lo; j < ngv && F->gv_ring[j] == g; ++j) {
            double d = nv_ring_delta(key_t, F->gv_key[j], s);
            if (y >= 0 && d > dy) {
                continue;
            }
            double c = leg + P->r * d + F->dist[nn + j] + pen;
            int64_t key = base + (j - lo);
            if (!(c < b->cost || (c == b->cost && key < b->key))) {
                continue;
            }
            if (clear < 0) {
                clear = orca_nv_seg_clear(nav, P, W, from, t, start_lim);
            }
            if (!clear) {
                break;
            }
            if (orca_nv_arc_clear_dir(P, nav, vi, s, t, F->gv_p[j], d, start_lim)) {
                *b = (nv_best){c, key, -1, g, nn + j, t};
            }
        }
        if (y >= 0 && clear != 0) {
            double c = leg + P->r * dy + F->dist[y] + pen;
            int64_t key = base + INT32_MAX;
            if ((c < b->cost || (c == b->cost && key < b->key)) &&
                (clear > 0 || (clear = orca_nv_seg_clear(nav, P, W, from, t, start_lim)) != 0) &&
                orca_nv_arc_clear_dir(P, nav, vi, s, t, P->node[y].p, dy, start_lim)) {
                *b = (nv_best){c, key, -1, g, y, t};
            }
        }
    }
}

/* The first vertex of P (sorted by (x, y)) whose x is above x (at or above with `at`); nv if
 * none. */
static int nv_first_x(const nav_plan *P, double x, int at)
{
    int lo = 0, hi = P->nv;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (at ? P->vp[mid].x < x : P->vp[mid].x <= x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* How many vertices of least bound a field query tries before it builds its heap. */
#define NAV_SEEDS 8
/* fields of one orca_nv_field_costs call whose flags live on the stack (a goal set's points) */
#define NV_FIELDS_SMALL 64

/* Whether vi is among seed[0 .. n-1]. */
static int nv_seeded(const int *seed, int n, int vi)
{
    for (int k = 0; k < n; ++k) {
        if (seed[k] == vi) {
            return 1;
        }
    }
    return 0;
}

/* Worker W's scratch for a field query on P: W->lb (2 P->nv + 2) and W->order (P->nv + 1),
 * grown as needed and kept for the next query. 0 when memory could not be had. */
static int nv_field_scratch(const nav_plan *P, nav_work *W)
{
    if (W->lb_cap < P->nv + 1) {
        double *lb = orca_mem_alloc(2 * (size_t)P->nv + 2, sizeof *lb);
        int32_t *order = orca_mem_alloc((size_t)P->nv + 1, sizeof *order);
        if (!lb || !order) {
            orca_mem_free(lb);
            orca_mem_free(order);
            return 0;
        }
        orca_mem_free(W->lb);
        orca_mem_free(W->order);
        W->lb = lb;
        W->order = order;
        W->lb_cap = P->nv + 1;
    }
    return 1;
}

/* A query through a goal set's distances: connect the start, take the best first node, then
 * follow the distances' next nodes. The route to out (NULL: none), the least cost (penalty
 * included) to *cost (NULL: not wanted). via[0 .. nvia-1]: vertices to try first (-1: none),
 * which decide only how fast the result comes. */
orca_status orca_nv_field_route(const orca_nav *nav, const nav_plan *P, const nav_field *F,
                                nav_work *W, orca_vec2 from, int avoid_v, double penalty,
                                const int *via, int nvia, nav_route *out, double *cost)
{
    nav_route local;
    if (!out) {
        memset(&local, 0, sizeof local);
        out = &local; /* the cost alone: no corners are written */
    }
    if (cost) {
        *cost = 1.0 / 0.0;
    }
    out->count = 0;
    out->length = 0.0;
    out->goal = -1;
    int ng = F->goal_count;
    const uint8_t *ok = F->goal_ok; /* (the goals' check, made with the field) */
    double start_lim;
    out->result = orca_nv_check_start(nav, P, W, from, &start_lim, 1);
    if (out->result == ORCA_NAV_OK && !F->goal_any) {
        out->result = ORCA_NAV_GOAL_BLOCKED;
    }
    if (out->result != ORCA_NAV_OK) {
        return ORCA_OK;
    }
    if (!nv_field_scratch(P, W)) {
        return ORCA_ERR_MEMORY;
    }
    /* the direct legs come first (key INT64_MIN) */
    nv_best b = {1.0 / 0.0, INT64_MIN, -1, -1, -1, v2(0.0, 0.0)};
    for (int g = 0; g < ng; ++g) { /* straight to a goal */
        if (ok[g] && orca_nv_seg_clear(nav, P, W, from, F->goals[g], start_lim)) {
            double l = v2_len(v2_sub(F->goals[g], from));
            if (l < b.cost) {
                b.cost = l;
                b.goal = g;
            }
        }
    }
    /* The start points, vertex by vertex in the order of a lower bound of the cost through the
     * vertex, (|from - v| - r + the least distance on its rings) (1 - 2^-30), until the bound
     * exceeds the best cost found: the result is that of trying every start point, the least
     * cost winning and ties going to the earlier candidate (direct legs, then by vertex, side,
     * goal point, next node), as docs/navigation.md says. */
    int nn = P->nn, nv = P->nv;
    double *lb = W->lb;
    int32_t *order = W->order;
    /* The caller's vertices first (via: those of its last path), then those of least bound,
     * one at a time (in (bound, index) order), until one gives a path or NAV_SEEDS more were
     * tried: then the heap holds only the vertices whose bound does not exceed the best cost
     * (the others would never be popped: the best only falls). The result is the least
     * (cost, key) of the candidates, whichever order the vertices are tried in; when the heap
     * pops a seed, it is not tried again. */
    int seed[2 * NAV_SEEDS], ns = 0;
    for (int k = 0; k < nvia && k < NAV_SEEDS; ++k) {
        if (via[k] >= 0 && via[k] < nv && !nv_seeded(seed, ns, via[k])) {
            seed[ns++] = via[k];
            nv_route_vertex(nav, P, F, W, from, start_lim, via[k], avoid_v, penalty, &b);
        }
    }
    /* A vertex's bound is at least (its distance less r) (1 - 2^-30), so with a best cost
     * found only those within that cost + r of the start in x can be popped (with a relative
     * 2^-20 more, beyond any rounding): a run of the vertices, which are sorted by (x, y)
     * (orca_nv_field_costs, the same run). */
    double reach = b.cost * (1.0 + 0x1p-20) + P->r * (1.0 + 0x1p-20);
    int v0 = 0, v1 = nv;
    if (reach < 1.0 / 0.0) {
        v0 = nv_first_x(P, from.x - reach, 1);
        v1 = nv_first_x(P, from.x + reach, 0);
    }
    for (int vi = v0; vi < v1; ++vi) {
        double dm = F->ring_min[2 * vi] < F->ring_min[2 * vi + 1] ? F->ring_min[2 * vi]
                                                                   : F->ring_min[2 * vi + 1];
        double dp = v2_len(v2_sub(P->vp[vi], from)) - P->r;
        lb[vi] = ((dp > 0 ? dp : 0.0) + dm) * (1.0 - 0x1p-30);
    }
    for (int tried = 0; tried < NAV_SEEDS && !(b.cost < 1.0 / 0.0); ++tried) {
        int m = -1;
        for (int vi = v0; vi < v1; ++vi) {
            if (lb[vi] <= b.cost && (m < 0 || lb[vi] < lb[m]) && !nv_seeded(seed, ns, vi)) {
                m = vi;
            }
        }
        if (m < 0) {
            break;
        }
        seed[ns++] = m;
        nv_route_vertex(nav, P, F, W, from, start_lim, m, avoid_v, penalty, &b);
    }
    int hn = 0;
    for (int vi = v0; vi < v1; ++vi) {
        if (lb[vi] <= b.cost) {
            order[hn++] = vi;
        }
    }
    /* a binary heap of vertices by (bound, index) */
    for (int i = hn / 2 - 1; i >= 0; --i) {
        nv_sift_down(lb, order, hn, i);
    }
    while (hn > 0) {
        int vi = order[0];
        if (!(lb[vi] <= b.cost)) {
            break; /* every vertex left costs more (or nothing is reachable through it) */
        }
        order[0] = order[--hn];
        nv_sift_down(lb, order, hn, 0);
        if (!nv_seeded(seed, ns, vi)) {
            nv_route_vertex(nav, P, F, W, from, start_lim, vi, avoid_v, penalty, &b);
        }
    }
    if (cost) {
        *cost = b.cost; /* +inf without a path */
    }
    if (out == &local) {
        return ORCA_OK;
    }
    orca_status st = ORCA_OK;
    if (!(b.cost < 1.0 / 0.0)) {
        out->result = ORCA_NAV_NO_PATH;
    } else if (b.goal >= 0) {
        out->length = b.cost;
        out->goal = b.goal;
    } else {
        out->length = b.cost - ((b.ring >> 1) == avoid_v ? penalty : 0.0);
        int last = -1;
        if (!orca_nv_route_point(out, P, b.ring, b.p, &last)) {
            st = ORCA_ERR_MEMORY;
        }
        for (int x = b.first; x >= 0 && st == ORCA_OK; x = x < nn ? F->next[x] : -1) {
            int g = x < nn ? P->node[x].ring : F->gv_ring[x - nn];
            orca_vec2 p = x < nn ? P->node[x].p : F->gv_p[x - nn];
            if (!orca_nv_route_point(out, P, g, p, &last)) {
                st = ORCA_ERR_MEMORY;
            }
            if (x >= nn) {
                out->goal = F->gv_goal[x - nn];
            }
        }
    }
    return st;
}

/* Field F's bound of the cost through vertex vi from a start `near` (its distance to vi less
 * the radius, at least 0) away: orca_nv_field_route's, the same operations. */
static double field_bound(const nav_field *F, double near, int vi)
{
    const double *rm = F->ring_min;
    double dm = rm[2 * vi] < rm[2 * vi + 1] ? rm[2 * vi] : rm[2 * vi + 1];
    return (near + dm) * (1.0 - 0x1p-30);
}

/* Field f's goals (their check, made with the field) and the straight legs to them from a
 * start that passed orca_nv_check_start (its clearance start_lim): *best falls to the least
 * clear leg below it. Whether any goal is free. */
static int nv_field_start(const orca_nav *nav, const nav_plan *P, const nav_field *f,
                          nav_work *W, orca_vec2 from, double start_lim, double *best)
{
    for (int g = 0; g < f->goal_count; ++g) { /* straight to a goal */
        if (f->goal_ok[g] && orca_nv_seg_clear(nav, P, W, from, f->goals[g], start_lim)) {
            double l = v2_len(v2_sub(f->goals[g], from));
            if (l < *best) {
                *best = l;
            }
        }
    }
    return f->goal_any;
}

/* The candidates through vertex vi (`near` from the start: field_bound's) for each live field
 * F[j] whose bound there does not exceed its best cost[j]: cost[j] falls to the least clear
 * one below it, each computed as docs/navigation.md says (leg, arc, the field's distance, the
 * penalty at the avoided vertex). */
static void nv_vertex_costs(const orca_nav *nav, const nav_plan *P, const nav_field *const *F,
                            int nf, const uint8_t *live, nav_work *W, orca_vec2 from,
                            double start_lim, int vi, double near, int avoid_v, double penalty,
                            double *cost)
{
    int nn = P->nn;
    int wanted = 0; /* some field whose bound at vi does not exceed its best */
    for (int j = 0; j < nf && !wanted; ++j) {
        wanted = live[j] && field_bound(F[j], near, vi) <= cost[j];
    }
    for (int side = 0; side < 2 && wanted; ++side) {
        int s = side ? -1 : 1;
        orca_vec2 t;
        if (!nv_tan_pc(from, P->vp[vi], P->r, s, &t)) {
            continue;
        }
        orca_vec2 f = v2_sub(t, from);
        if (start_lim == P->lim && !nv_taut(P, vi, s, f)) {
            continue;
        }
        int clear = -1, yarc = -1; /* checked once a candidate would win (-1: not yet) */
        double leg = v2_len(f);
        double pen = vi == avoid_v ? penalty : 0.0;
        double key_t = orca_nav_angle(t.y - P->vp[vi].y, t.x - P->vp[vi].x);
        int g = 2 * vi + side;
        double dy = 0.0;
        int y = orca_nv_ring_next_of(P, g, key_t, &dy);
        for (int j = 0; j < nf && clear != 0; ++j) {
            const nav_field *fj = F[j];
            if (!live[j] || !(field_bound(F[j], near, vi) <= cost[j])) {
                continue; /* nothing through vi beats its best */
            }
            int ngv = fj->gv_count;
            for (int k = field_ring_first(fj, g); k < ngv && fj->gv_ring[k] == g; ++k) {
                double d = nv_ring_delta(key_t, fj->gv_key[k], s);
                if (y >= 0 && d > dy) {
                    continue;
                }
                double c = leg + P->r * d + fj->dist[nn + k] + pen;
                if (!(c < cost[j])) {
                    continue;
                }
                if (clear < 0) {
                    clear = orca_nv_seg_clear(nav, P, W, from, t, start_lim);
                }
                if (!clear) {
                    break;
                }
                if (orca_nv_arc_clear_dir(P, nav, vi, s, t, fj->gv_p[k], d, start_lim)) {
                    cost[j] = c;
                }
            }
            if (y >= 0 && clear != 0) {
                double c = leg + P->r * dy + fj->dist[y] + pen;
                if (c < cost[j] &&
                    (clear > 0 ||
                     (clear = orca_nv_seg_clear(nav, P, W, from, t, start_lim)) != 0)) {
                    if (yarc < 0) {
                        yarc = orca_nv_arc_clear_dir(P, nav, vi, s, t, P->node[y].p, dy,
                                                     start_lim);
                    }
                    if (yarc) {
                        cost[j] = c;
                    }
                }
            }
        }
    }
}

/* The costs orca_nv_field_route gives without a route (out NULL) through each of the fields
 * F[0 .. nf-1], from one start, in one pass over the start points (the exit choice weighs every
 * point of a goal set). Each cost is the least over the same candidates, each computed with the
 * same operations as there; which candidates are tried, and in which order, decides ties
 * between candidates only, and a tie leaves the least cost as it is. So cost[j] is the same
 * double that orca_nv_field_route gives for F[j]. Shared between the fields: the start's check,
 * the distances to the vertices, the tangents, the legs' clearance and the arcs to graph nodes;
 * a vertex is popped while its bound is below some field's best cost, and a field skips a
 * vertex whose own bound is not. With cap (NULL: none), cost[j] is that double where it is
 * below cap[j], else +inf: cap[j] is field j's best cost from the start, so the vertices and
 * candidates that cannot go below it are skipped, and those that can are tried as before. */
orca_status orca_nv_field_costs(const orca_nav *nav, const nav_plan *P,
                                const nav_field *const *F, int nf, nav_work *W, orca_vec2 from,
                                int avoid_v, double penalty, const double *cap, double *cost)
{
    for (int j = 0; j < nf; ++j) {
        /* with a cap, only candidates below it count: it starts as the best so far */
        cost[j] = cap ? cap[j] : 1.0 / 0.0;
    }
    int nv = P->nv;
    uint8_t small[NV_FIELDS_SMALL] = {0};
    uint8_t *live = nf <= NV_FIELDS_SMALL ? small : orca_mem_zalloc((size_t)nf, 1);
    if (!live || !nv_field_scratch(P, W)) {
        if (live != small) {
            orca_mem_free(live);
        }
        return ORCA_ERR_MEMORY;
    }
    double *lb = W->lb;
    int32_t *order = W->order;
    double start_lim;
    int any = 0;
    if (orca_nv_check_start(nav, P, W, from, &start_lim, 1) == ORCA_NAV_OK) {
        for (int j = 0; j < nf; ++j) {
            live[j] = (uint8_t)nv_field_start(nav, P, F[j], W, from, start_lim, &cost[j]);
            any |= live[j]; /* (a field whose goals are blocked: +inf) */
        }
    }
    if (!any) {
        for (int j = 0; j < nf; ++j) {
            cost[j] = 1.0 / 0.0;
        }
        if (live != small) {
            orca_mem_free(live);
        }
        return ORCA_OK;
    }
    for (int j = 0; j < nf; ++j) {
        if (!live[j]) {
            cost[j] = 1.0 / 0.0; /* its goals blocked (a cap was only a start) */
        }
    }
    /* lb[vi]: the least of the live fields' bounds at vi, by which the vertices are popped;
     * lb[nv + vi]: the distance part of every field's bound there (field_bound). The pass
     * stops at the first vertex whose bound exceeds every live field's best, and the bests
     * only fall: a vertex whose bound exceeds the largest best now (a cap, a goal in sight)
     * would never be popped, and is left out of the heap. */
    double top = -1.0;
    for (int j = 0; j < nf; ++j) {
        if (live[j] && !(cost[j] <= top)) {
            top = cost[j];
        }
    }
    /* Every field's bound at vi is at least near (1 - 2^-30), and near >= |x_vi - x| - r: the
     * vertices that can be popped lie within top + r of the start in x (with a relative
     * 2^-20 more, beyond any rounding), a run of the vertices, which are sorted by (x, y). */
    double reach = top * (1.0 + 0x1p-20) + P->r * (1.0 + 0x1p-20);
    int v0 = 0, v1 = nv;
    if (reach < 1.0 / 0.0) {
        v0 = nv_first_x(P, from.x - reach, 1);
        v1 = nv_first_x(P, from.x + reach, 0);
    }
    double *near = lb + nv;
    for (int vi = v0; vi < v1; ++vi) {
        double dp = v2_len(v2_sub(P->vp[vi], from)) - P->r;
        near[vi] = dp > 0 ? dp : 0.0;
        lb[vi] = 1.0 / 0.0;
    }
    /* field by field (the same least: each vertex's fields in the same order); a vertex whose
     * distance part alone exceeds the largest best keeps +inf, left out either way */
    for (int j = 0; j < nf; ++j) {
        for (int vi = v0; vi < v1 && live[j]; ++vi) {
            if (near[vi] * (1.0 - 0x1p-30) <= top) {
                double b = field_bound(F[j], near[vi], vi);
                lb[vi] = b < lb[vi] ? b : lb[vi];
            }
        }
    }
    int hn = 0;
    for (int vi = v0; vi < v1; ++vi) {
        if (lb[vi] <= top) {
            order[hn++] = vi;
        }
    }
    for (int i = hn / 2 - 1; i >= 0; --i) {
        nv_sift_down(lb, order, hn, i);
    }
    while (hn > 0) {
        int vi = order[0];
        double most = -1.0; /* the largest best cost of a live field (+inf: none found yet) */
        for (int j = 0; j < nf; ++j) {
            if (live[j] && !(cost[j] <= most)) {
                most = cost[j];
            }
        }
        if (!(lb[vi] <= most)) {
            break; /* every vertex left costs more than each field's best */
        }
        order[0] = order[--hn];
        nv_sift_down(lb, order, hn, 0);
        nv_vertex_costs(nav, P, F, nf, live, W, from, start_lim, vi, near[vi], avoid_v,
                        penalty, cost);
    }
    for (int j = 0; j < nf && cap; ++j) {
        if (!(cost[j] < cap[j])) {
            cost[j] = 1.0 / 0.0; /* nothing below its cap */
        }
    }
    if (live != small) {
        orca_mem_free(live);
    }
    return ORCA_OK;
}

/* An upper bound of the cost orca_nv_field_costs gives field F from `from`: the least of its
 * candidates straight to the goals and through the vertices via[0 .. nvia-1] (those not -1),
 * each the same double as there (nv_field_start, nv_vertex_costs). That cost is the least over
 * every candidate, these among them, so it is at most this bound; +inf when none of these is
 * clear, or the start or the goals are blocked. */
orca_status orca_nv_field_upper(const orca_nav *nav, const nav_plan *P, const nav_field *F,
                                nav_work *W, orca_vec2 from, int avoid_v, double penalty,
                                const int *via, int nvia, double *upper)
{
    *upper = 1.0 / 0.0;
    double start_lim, best = 1.0 / 0.0;
    if (orca_nv_check_start(nav, P, W, from, &start_lim, 1) != ORCA_NAV_OK ||
        !nv_field_start(nav, P, F, W, from, start_lim, &best)) {
        return ORCA_OK;
    }
    for (int k = 0; k < nvia; ++k) {
        int vi = via[k];
        if (vi >= 0 && vi < P->nv) {
            double dp = v2_len(v2_sub(P->vp[vi], from)) - P->r;
            uint8_t live = 1;
            nv_vertex_costs(nav, P, &F, 1, &live, W, from, start_lim, vi, dp > 0 ? dp : 0.0,
                            avoid_v, penalty, &best);
        }
    }
    *upper = best;
    return ORCA_OK;
}

nav_field *orca_nv_find_field(const nav_plan *P, int64_t id)
{
    for (int i = 0; i < P->field_count; ++i) {
        if (P->fields[i].id == id) {
            return &P->fields[i];
        }
    }
    return NULL;
}
