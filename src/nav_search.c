/* SPDX-License-Identifier: MIT */
/* Navigation's search (docs/navigation.md, "Search"): a query's start and goal points on the
 * rings, the heap, and the search from the start to the nearest goal over the graph with
 * them, bounded for a few goals (the same path as Dijkstra's search); the route it writes,
 * corner by corner. */
#include "nav_internal.h"

#include "alloc.h"
#include "vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

nv_heap orca_nv_heap_open(nav_work *W)
{
    nv_heap h = {W->heap, 0, W->hcap, W, 0};
    return h;
}

static int nv_hent_less(nv_hent a, nv_hent b)
{
    return a.cost < b.cost || (a.cost == b.cost && a.node < b.node);
}

void orca_nv_heap_push(nv_heap *h, double cost, int32_t node)
{
    if (h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 1024;
        nv_hent *e = h->cap > INT32_MAX / 2 ? NULL
                                            : orca_mem_resize(h->W->heap, (size_t)cap, sizeof *e);
        if (!e) {
            h->oom = 1;
            return;
        }
        h->W->heap = h->e = e;
        h->W->hcap = h->cap = cap;
    }
    nv_hent x = {cost, node};
    int i = h->n++;
    while (i > 0 && nv_hent_less(x, h->e[(i - 1) / 4])) {
        h->e[i] = h->e[(i - 1) / 4];
        i = (i - 1) / 4;
    }
    h->e[i] = x;
}

void orca_nv_heap_pop(nv_heap *h, double *cost, int32_t *node)
{
    *cost = h->e[0].cost;
    *node = h->e[0].node;
    nv_hent x = h->e[--h->n];
    int n = h->n, i = 0;
    for (;;) {
        int c = 4 * i + 1;
        if (c >= n) {
            break;
        }
        int m = c, last = c + 4 < n ? c + 4 : n;
        for (int k = c + 1; k < last; ++k) {
            if (nv_hent_less(h->e[k], h->e[m])) {
                m = k;
            }
        }
        if (!nv_hent_less(h->e[m], x)) {
            break;
        }
        h->e[i] = h->e[m];
        i = m;
    }
    if (n > 0) {
        h->e[i] = x;
    }
}

/* W's per-node slots for a query over `total` nodes, and a new query mark (a node's slot
 * holds this query's values only once its mark is the query's). 0 out of memory. */
static int nv_work_open(nav_work *W, int total)
{
    if (total > W->cap) {
        nv_slot *q = orca_mem_zalloc((size_t)total, sizeof *q);
        if (!q) {
            return 0;
        }
        orca_mem_free(W->slot);
        W->slot = q;
        W->cap = total;
        W->query = 0;
    }
    if (++W->query == 0) {
        for (int i = 0; i < W->cap; ++i) {
            W->slot[i].mark = 0;
        }
        W->query = 1;
    }
    return 1;
}

static int nv_cmp_vpoint(const void *x, const void *y)
{
    const nv_vpoint *a = x, *b = y;
    if (a->ring != b->ring) {
        return a->ring < b->ring ? -1 : 1;
    }
    if (a->key != b->key) {
        return a->key < b->key ? -1 : 1;
    }
    if (a->goal != b->goal) {
        return a->goal < b->goal ? -1 : 1;
    }
    return 0;
}

/* A point's key, computed when first needed: a query's search reads the keys only of the
 * points on the rings it reaches (the same bits as computing every key first). */
static double nv_vkey(const nav_plan *P, nv_vpoint *v)
{
    if (v->key < 0) {
        orca_vec2 c = P->vp[v->ring >> 1];
        v->key = orca_nav_angle(v->p.y - c.y, v->p.x - c.x);
    }
    return v->key;
}

/* The first of a ring's m keys rk (ascending) that is >= k (or_equal) or > k (!or_equal); m
 * when none is. */
static int nv_ring_search(const double *rk, int m, double k, int or_equal)
{
    int lo = 0, hi = m;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (or_equal ? rk[mid] >= k : rk[mid] > k) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* The ring node a point of key k on ring g reaches first in the ring's direction, and the
 * sweep to it; -1 for an empty ring. Ties: a node of equal key is reached (sweep 0). */
int orca_nv_ring_next_of(const nav_plan *P, int g, double k, double *delta)
{
    int m = P->ring_n[g];
    if (m == 0) {
        return -1;
    }
    const int32_t *rn = P->ring_nodes + P->ring_first[g];
    const double *rk = P->ring_keys + P->ring_first[g];
    int s = (g & 1) ? -1 : 1;
    int at;
    if (s > 0) { /* the first with key >= k */
        int lo = nv_ring_search(rk, m, k, 1);
        at = lo == m ? 0 : lo;
    } else { /* the last with key <= k */
        int lo = nv_ring_search(rk, m, k, 0);
        at = lo == 0 ? m - 1 : lo - 1;
    }
    *delta = nv_ring_delta(k, rk[at], s);
    return rn[at];
}

/* The ring node reached last before a point of key k on ring g, against the ring's
 * direction (the node whose arc leads to it), and the sweep from it; -1 for an empty ring. */
int orca_nv_ring_prev_of(const nav_plan *P, int g, double k, double *delta)
{
    int m = P->ring_n[g];
    if (m == 0) {
        return -1;
    }
    const int32_t *rn = P->ring_nodes + P->ring_first[g];
    const double *rk = P->ring_keys + P->ring_first[g];
    int s = (g & 1) ? -1 : 1;
    int at;
    if (s > 0) { /* the last with key <= k */
        int lo = nv_ring_search(rk, m, k, 0);
        at = lo == 0 ? m - 1 : lo - 1;
    } else { /* the first with key >= k */
        int lo = nv_ring_search(rk, m, k, 1);
        at = lo == m ? 0 : lo;
    }
    *delta = nv_ring_delta(rk[at], k, s);
    return rn[at];
}

/* The departures toward the goals (each goal, each ring: the tangent from the goal, kept when
 * clear and taut), sorted by (ring, key, goal). Returns the count, -1 out of memory. */
int orca_nv_goal_points(const orca_nav *nav, const nav_plan *P, nav_work *W,
                        const orca_vec2 *goals, const uint8_t *ok, int ng, int lazy,
                        nv_vpoint **out)
{
    int cap = 16, n = 0;
    nv_vpoint *v = orca_mem_alloc((size_t)cap, sizeof *v);
    if (!v) {
        return -1;
    }
    for (int g = 0; g < ng; ++g) {
        if (!ok[g]) {
            continue;
        }
        for (int vi = 0; vi < P->nv; ++vi) {
            for (int side = 0; side < 2; ++side) {
                int s = side ? -1 : 1;
                orca_vec2 t;
                if (!nv_tan_pc(goals[g], P->vp[vi], P->r, -s, &t)) {
                    continue;
                }
                orca_vec2 f = v2_sub(goals[g], t);
                if (!nv_taut(P, vi, s, f) ||
                    (!lazy && !orca_nv_seg_clear(nav, P, W, t, goals[g], P->lim))) {
                    continue;
                }
                if (n == cap) {
                    nv_vpoint *q = orca_mem_resize(v, (size_t)cap * 2, sizeof *q);
                    if (!q) {
                        orca_mem_free(v);
                        return -1;
                    }
                    v = q;
                    cap *= 2;
                }
                v[n].p = t;
                v[n].key = -1.0;
                v[n].leg = v2_len(f);
                v[n].ring = 2 * vi + side;
                v[n].goal = g;
                v[n].clear = lazy ? -1 : 1;
                ++n;
            }
        }
    }
    /* the points of one goal come in ring order, one a ring: sorted already; those of several
     * goals are sorted by (ring, key, goal), their keys computed first (and every key of a
     * set's points, which it keeps) */
    int several = 0;
    for (int k = 1; k < n && !several; ++k) {
        several = v[k].goal != v[0].goal;
    }
    for (int k = 0; k < n && (several || !lazy); ++k) {
        nv_vkey(P, &v[k]);
    }
    if (several) {
        qsort(v, (size_t)n, sizeof *v, nv_cmp_vpoint);
    }
    *out = v;
    return n;
}

/* The first goal point of ring g in gv[0 .. ngv) (sorted), or ngv. */
static int nv_gv_lower(const nv_vpoint *gv, int ngv, int g)
{
    int lo = 0, hi = ngv;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (gv[mid].ring < g) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* The start's arrivals: for each ring, the tangent from the start, kept when the leg keeps
 * start_lim from the walls and is taut at the vertex. */
static int nv_start_points(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 from,
                           double start_lim, int lazy, nv_vpoint **out)
{
    nv_vpoint *v = orca_mem_alloc((size_t)(2 * P->nv + 1), sizeof *v);
    if (!v) {
        return -1;
    }
    int n = 0;
    for (int vi = 0; vi < P->nv; ++vi) {
        for (int side = 0; side < 2; ++side) {
            int s = side ? -1 : 1;
            orca_vec2 t;
            if (!nv_tan_pc(from, P->vp[vi], P->r, s, &t)) {
                continue;
            }
            orca_vec2 f = v2_sub(t, from);
            if ((start_lim == P->lim && !nv_taut(P, vi, s, f)) ||
                (!lazy && !orca_nv_seg_clear(nav, P, W, from, t, start_lim))) {
                continue;
            }
            v[n].p = t;
            v[n].key = -1.0;
            v[n].leg = v2_len(f);
            v[n].ring = 2 * vi + side;
            v[n].goal = -1;
            v[n].clear = lazy ? -1 : 1;
            ++n;
        }
    }
    *out = v;
    return n;
}

static int nv_route_reserve(nav_route *out, int count)
{
    if (count > out->cap) {
        orca_nav_corner *c = orca_mem_resize(out->corners, (size_t)count, sizeof *c);
        if (!c) {
            return 0;
        }
        out->corners = c;
        out->cap = count;
    }
    return 1;
}

void orca_nav_route_free(nav_route *r)
{
    orca_mem_free(r->corners);
    r->corners = NULL;
    r->cap = 0;
    r->count = 0;
}

/* Appends point p on ring g (vertex, side) to the route's corners: a new corner when the ring
 * differs from the last one's, else the last corner's leave point. */
int orca_nv_route_point(nav_route *out, const nav_plan *P, int g, orca_vec2 p, int *last_ring)
{
    if (g == *last_ring) {
        out->corners[out->count - 1].leave = p;
        return 1;
    }
    if (!nv_route_reserve(out, out->count + 1)) {
        return 0;
    }
    orca_nav_corner *c = &out->corners[out->count++];
    c->vertex = P->vp[g >> 1];
    c->side = (g & 1) ? -1 : 1;
    c->enter = p;
    c->leave = p;
    *last_ring = g;
    return 1;
}

int orca_nv_check_start(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 from,
                        double *start_lim, int relax)
{
    *start_lim = P->lim;
    if (!orca_nv_inside(nav, from)) {
        return ORCA_NAV_START_BLOCKED;
    }
    if (!orca_nv_pt_clear(nav, P, W, from, P->lim)) {
        if (!relax) {
            return ORCA_NAV_START_BLOCKED;
        }
        /* a walker pushed closer than r plans its first leg with the clearance it has */
        double d = sqrt(orca_nv_pt_wall_d2(nav, from)) * (1.0 - NAV_TAUT);
        if (!(d > 0)) {
            return ORCA_NAV_START_BLOCKED;
        }
        *start_lim = d;
    }
    return ORCA_NAV_OK;
}

int orca_nv_check_goals(const orca_nav *nav, const nav_plan *P, nav_work *W,
                        const orca_vec2 *goals, int ng, uint8_t *ok)
{
    int any = 0;
    for (int g = 0; g < ng; ++g) {
        ok[g] = (uint8_t)(orca_nv_inside(nav, goals[g]) &&
                          orca_nv_pt_clear(nav, P, W, goals[g], P->lim));
        any |= ok[g];
    }
    return any;
}

int orca_nv_check_ends(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 from,
                       const orca_vec2 *goals, int ng, uint8_t *ok, double *start_lim,
                       int relax)
{
    int res = orca_nv_check_start(nav, P, W, from, start_lim, relax);
    if (res != ORCA_NAV_OK) {
        return res;
    }
    return orca_nv_check_goals(nav, P, W, goals, ng, ok) ? ORCA_NAV_OK : ORCA_NAV_GOAL_BLOCKED;
}

/* The search's lower bound of the cost from a point to the end (docs/navigation.md,
 * "Search"): (1 - 2^-20) times the least distance to a usable goal, less 2^-20 (r + M), and
 * not below 0; 0 for every point of a query of more than NAV_BOUND_GOALS goals (a plain
 * Dijkstra search). The margins exceed the rounding of any path's cost, so every node of a
 * shortest path has a key below the end's. */
#define NAV_BOUND_GOALS 16
#define NAV_BOUND_SLACK 0x1p-20

typedef struct nv_bound {
    const orca_vec2 *goals;
    const uint8_t *ok;
    int ng;     /* 0: no bound */
    double abs; /* 2^-20 (r + M) */
} nv_bound;

static double nv_bound_at(const nv_bound *b, orca_vec2 p)
{
    double best = 1.0 / 0.0;
    for (int g = 0; g < b->ng; ++g) {
        if (b->ok[g]) {
            orca_vec2 d = v2_sub(b->goals[g], p);
            double dd = v2_dot(d, d);
            best = dd < best ? dd : best;
        }
    }
    if (!(best < 1.0 / 0.0)) {
        return 0.0;
    }
    double h = (1.0 - NAV_BOUND_SLACK) * sqrt(best) - b->abs;
    return h > 0 ? h : 0.0;
}

/* Forward search from `from` to the nearest goal (docs/navigation.md, "Search"). Node ids:
 * the graph's [0, nn), the start's points [nn, nn + ns), the goal points after them, the end
 * last. A node's cost, its predecessor, the predecessor's cost when it relaxed the node and
 * the edge's length without penalty are in W, valid for the nodes this query opened; the
 * heap is ordered by (cost + bound, node). With bound 0 (astar 0) it is Dijkstra's search;
 * with the bound the same path (docs/navigation.md, "Search", why). */
orca_status orca_nv_search(orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 from,
                           const orca_vec2 *goals, int ng, const orca_vec2 *avoid,
                           double penalty, int relax, int astar, nav_route *out)
{
    out->count = 0;
    out->length = 0.0;
    out->goal = -1;
    uint8_t *ok = orca_mem_zalloc((size_t)ng, 1);
    if (!ok) {
        return ORCA_ERR_MEMORY;
    }
    double start_lim;
    out->result = orca_nv_check_ends(nav, P, W, from, goals, ng, ok, &start_lim, relax);
    if (out->result != ORCA_NAV_OK) {
        orca_mem_free(ok);
        return ORCA_OK;
    }
    nv_vpoint *sv = NULL, *gv = NULL;
    int ns = nv_start_points(nav, P, W, from, start_lim, 1, &sv);
    int ngv = ns < 0 ? -1 : orca_nv_goal_points(nav, P, W, goals, ok, ng, 1, &gv);
    int nn = P->nn;
    int total = nn + (ns > 0 ? ns : 0) + (ngv > 0 ? ngv : 0) + 1;
    if (ns < 0 || ngv < 0 || !nv_work_open(W, total)) {
        orca_mem_free(ok);
        orca_mem_free(sv);
        orca_mem_free(gv);
        return ORCA_ERR_MEMORY;
    }
    int end = total - 1;
    int avoid_v = avoid ? orca_nv_find_vertex(P, nv_norm0(*avoid)) : -1;
    nv_bound bound = {goals, ok, astar && ng <= NAV_BOUND_GOALS ? ng : 0,
                      NAV_BOUND_SLACK * (P->r + nav->M)};
    nv_slot *S = W->slot;
    uint32_t q = W->query;
    nv_heap h = orca_nv_heap_open(W);
    /* A node's slots, opened at its first relaxation: cost +inf and its bound. */
#define OPEN(y, p)                                                                          \
    do {                                                                                    \
        if (S[y].mark != q) {                                                                 \
            S[y].mark = q;                                                                    \
            S[y].dist = 1.0 / 0.0;                                                            \
            S[y].pred = -1;                                                                   \
            S[y].hv = (y) == end ? 0.0 : nv_bound_at(&bound, (p));                            \
        }                                                                                   \
    } while (0)
    /* y reached from x (whose cost was gx) at cost c, by an edge of length l: a lower cost
     * wins; an equal one goes to the lower (gx, x), as Dijkstra's order would have it */
#define RELAX(y, p, c, l, x, gx)                                                            \
    do {                                                                                    \
        OPEN(y, p);                                                                         \
        double c_ = (c);                                                                    \
        if (c_ < S[y].dist ||                                                                 \
            (c_ == S[y].dist && ((gx) < S[y].pg || ((gx) == S[y].pg && (x) < S[y].pred)))) {         \
            int better_ = c_ < S[y].dist;                                                     \
            S[y].dist = c_;                                                                   \
            S[y].wl = (l);                                                                    \
            S[y].pred = (x);                                                                  \
            S[y].pg = (gx);                                                                   \
            if (better_) {                                                                  \
                orca_nv_heap_push(&h, c_ + S[y].hv, (y));                                     \
            }                                                                               \
        }                                                                                   \
    } while (0)
    for (int g = 0; g < ng; ++g) {
        if (ok[g] && orca_nv_seg_clear(nav, P, W, from, goals[g], start_lim)) {
            double l = v2_len(v2_sub(goals[g], from));
            OPEN(end, from);
            if (l < S[end].dist) {
                S[end].dist = l;
                S[end].wl = l;
                S[end].pg = 0.0;
                S[end].pred = -2 - g; /* straight from the start to goal g */
                orca_nv_heap_push(&h, l, end);
            }
        }
    }
    for (int k = 0; k < ns; ++k) {
        double pen = (sv[k].ring >> 1) == avoid_v ? penalty : 0.0;
        RELAX(nn + k, sv[k].p, sv[k].leg + pen, sv[k].leg, -1, 0.0);
    }
    while (h.n > 0 && !h.oom) {
        double key;
        int32_t x;
        orca_nv_heap_pop(&h, &key, &x);
        if (key > S[x].dist + S[x].hv) {
            continue; /* stale: x was reached at a lower cost since */
        }
        if (x == end) {
            break;
        }
        /* a start or goal point's leg is checked when it is first taken: one that is not
         * clear was never a node (docs/navigation.md, "Search") */
        nv_vpoint *vp = x < nn ? NULL : x < nn + ns ? &sv[x - nn] : &gv[x - nn - ns];
        if (vp && vp->clear < 0) {
            vp->clear = vp->goal < 0 ? orca_nv_seg_clear(nav, P, W, from, vp->p, start_lim)
                                     : orca_nv_seg_clear(nav, P, W, vp->p, goals[vp->goal], P->lim);
        }
        if (vp && !vp->clear) {
            continue;
        }
        double c = S[x].dist;
        if (x >= nn + ns) { /* a goal point: its leg to the goal */
            const nv_vpoint *gp = &gv[x - nn - ns];
            RELAX(end, from, c + gp->leg, gp->leg, x, c);
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
            g = sv[x - nn].ring;
            k = nv_vkey(P, &sv[x - nn]);
            px = sv[x - nn].p;
        }
        int s = (g & 1) ? -1 : 1, vi = g >> 1;
        double dy = 0.0;
        int y;
        if (x < nn) {
            y = P->ring_n[g] >= 2 ? P->ring_nodes[P->ring_first[g] +
                                                  (s > 0 ? (P->node[x].pos + 1) % P->ring_n[g]
                                                         : (P->node[x].pos + P->ring_n[g] - 1) %
                                                               P->ring_n[g])]
                                  : -1;
            if (y >= 0) {
                dy = nv_ring_delta(k, P->node[y].key, s);
            }
        } else {
            y = orca_nv_ring_next_of(P, g, k, &dy);
        }
        /* goal points on this ring up to the next node */
        for (int j = nv_gv_lower(gv, ngv, g); j < ngv && gv[j].ring == g; ++j) {
            double d = nv_ring_delta(k, nv_vkey(P, &gv[j]), s);
            if ((y < 0 || d <= dy) &&
                orca_nv_arc_clear_dir(P, nav, vi, s, px, gv[j].p, d, x < nn ? P->lim : start_lim)) {
                double a = P->r * d;
                RELAX(nn + ns + j, gv[j].p, c + a, a, x, c);
            }
        }
        if (y >= 0 && y != x) {
            int free = x < nn ? P->node[x].arc_free
                              : orca_nv_arc_clear_dir(P, nav, vi, s, px, P->node[y].p, dy,
                                                      start_lim);
            if (free) {
                double a = P->r * dy;
                RELAX(y, P->node[y].p, c + a, a, x, c);
            }
        }
        if (x < nn && P->node[x].dep) {
            int m = P->node[x].mate;
            double pen = (P->node[m].ring >> 1) == avoid_v ? penalty : 0.0;
            RELAX(m, P->node[m].p, c + P->node[x].leg + pen, P->node[x].leg, x, c);
        }
    }
#undef RELAX
#undef OPEN
    orca_status st = ORCA_OK;
    if (h.oom) {
        st = ORCA_ERR_MEMORY;
    } else if (S[end].mark != q || !(S[end].dist < 1.0 / 0.0)) {
        out->result = ORCA_NAV_NO_PATH;
    } else {
        /* the nodes from the end back to the start, then forward into corners; the length
         * adds the edges' lengths from the start, as the costs were added */
        int cnt = 0;
        for (int x = S[end].pred; x >= 0; x = S[x].pred) {
            ++cnt;
        }
        int32_t *seq = orca_mem_alloc((size_t)cnt + 1, sizeof *seq);
        if (!seq) {
            st = ORCA_ERR_MEMORY;
        } else {
            int i = cnt;
            int gx = S[end].pred;
            for (int x = gx; x >= 0; x = S[x].pred) {
                seq[--i] = x;
            }
            out->goal = gx <= -2 ? -2 - gx : gv[gx - nn - ns].goal;
            double length = 0.0;
            int last = -1;
            for (i = 0; i < cnt && st == ORCA_OK; ++i) {
                int x = seq[i];
                length = i == 0 ? S[x].wl : length + S[x].wl;
                int g = x < nn ? P->node[x].ring : x < nn + ns ? sv[x - nn].ring : gv[x - nn - ns].ring;
                orca_vec2 p = x < nn ? P->node[x].p : x < nn + ns ? sv[x - nn].p : gv[x - nn - ns].p;
                if (!orca_nv_route_point(out, P, g, p, &last)) {
                    st = ORCA_ERR_MEMORY;
                }
            }
            out->length = cnt == 0 ? S[end].wl : length + S[end].wl;
            orca_mem_free(seq);
        }
    }
    orca_mem_free(ok);
    orca_mem_free(sv);
    orca_mem_free(gv);
    return st;
}
