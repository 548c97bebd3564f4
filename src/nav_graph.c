/* SPDX-License-Identifier: MIT */
/* Navigation's graph (docs/navigation.md, "The graph"): the tangent visibility graph of one
 * radius, built from the walls the nav read: the vertices (the distinct wall ends), the legs
 * between their circles found on the simulation's workers vertex by vertex, their ends as
 * nodes numbered in the order of (i, j, sides), the rings of each circle and the arcs between
 * adjacent nodes. The structures kept per radius, built once and found again. */
#include "nav_internal.h"

#include "sim_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NAV_TOL 0x1p-40   /* clearance tolerance, relative to r + M (docs/navigation.md) */
#define NAV_CUT 0x1p-16   /* a wall across a pair's legs: its margin, relative to r + M */

static int nv_cmp_vec(const void *x, const void *y)
{
    const orca_vec2 *a = x, *b = y;
    if (a->x != b->x) {
        return a->x < b->x ? -1 : 1;
    }
    if (a->y != b->y) {
        return a->y < b->y ? -1 : 1;
    }
    return 0;
}

/* The vertex at p (present: the ends were sorted and made unique). */
int orca_nv_find_vertex(const nav_plan *P, orca_vec2 p)
{
    int lo = 0, hi = P->nv - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = nv_cmp_vec(&P->vp[mid], &p);
        if (c == 0) {
            return mid;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

/* Writes node n at p of key `key` on ring `ring` (its leg, mate and arc set by the caller). */
static void nv_set_node(nav_plan *P, int n, orca_vec2 p, double key, int ring, int dep)
{
    nav_node *d = &P->node[n];
    memset(d, 0, sizeof *d);
    d->p = p;
    d->key = key;
    d->ring = ring;
    d->dep = (uint8_t)dep;
}

/* A node as the rings sort them: by (ring, key, node). */
typedef struct nv_ring_entry {
    int32_t ring, node;
    double key;
} nv_ring_entry;

static int nv_cmp_ring_entry(const void *x, const void *y)
{
    const nv_ring_entry *a = x, *b = y;
    if (a->ring != b->ring) {
        return a->ring < b->ring ? -1 : 1;
    }
    if (a->key != b->key) {
        return a->key < b->key ? -1 : 1;
    }
    return a->node < b->node ? -1 : (a->node > b->node);
}

/* A leg found from vertex i: to vertex j with sides su, sv, its ends and length. */
typedef struct nv_leg {
    int32_t j;
    int8_t su, sv;
    orca_vec2 tu, tv;
    double ku, kv; /* the keys of tu around vertex i and of tv around j */
    double len;
} nv_leg;

/* The legs of one vertex (in (j, sides) order), and whether memory ran out finding them. */
typedef struct nv_row {
    nv_leg *v;
    int n, cap, oom;
    int cut; /* pairs skipped for a wall across them */
} nv_row;

typedef struct nv_rows {
    const orca_nav *nav;
    nav_plan *P;
    nv_row *row;           /* per vertex */
    int32_t *row_first;    /* per vertex: the place of its first leg */
    nv_ring_entry *entries; /* per node, bucketed by ring */
} nv_rows;

/* Whether wall k lies across every leg between the circles of radius r around u and v, so
 * that none of the pair's legs is clear (docs/navigation.md, "The graph", walls across a
 * pair): u and v on strictly opposite sides of the wall's line, each farther than
 * rho = r + 2m from it; the wall's ends on strictly opposite sides of the line u-v, each
 * farther than rho from the segment u-v (rho2 = rho * rho, m = 2^-16 (r + M)). Then every
 * segment from within r + m of u to within r + m of v crosses the wall inside both, with the
 * four crosses of the crossing test far from 0, so each of the pair's computed legs (tangent
 * points within far less than m of their circles) crosses the wall: squared distance 0. */
static int nv_wall_cuts(const orca_nav *nav, int k, orca_vec2 u, orca_vec2 v, double rho2)
{
    orca_vec2 a = nav->wa[k], b = nav->wb[k];
    orca_vec2 ab = v2_sub(b, a);
    double cu = nv_cross2(ab, v2_sub(u, a)), cv = nv_cross2(ab, v2_sub(v, a));
    if (!((cu > 0 && cv < 0) || (cu < 0 && cv > 0))) {
        return 0;
    }
    double l2 = v2_dot(ab, ab);
    if (!(cu * cu > rho2 * l2) || !(cv * cv > rho2 * l2)) {
        return 0;
    }
    orca_vec2 uv = v2_sub(v, u);
    double ca = nv_cross2(uv, v2_sub(a, u)), cb = nv_cross2(uv, v2_sub(b, u));
    return ((ca > 0 && cb < 0) || (ca < 0 && cb > 0)) && nv_pt_seg_d2(a, u, v) > rho2 &&
           nv_pt_seg_d2(b, u, v) > rho2;
}

/* The legs from the vertices [begin, end) to every later vertex (on the workers: each vertex
 * writes its own row; the clearance checks use the worker's stamps). */
static void nv_legs_task(int begin, int end, int wk, void *context)
{
    const nv_rows *c = context;
    const nav_plan *P = c->P;
    nav_work *W = wk < c->nav->work_count ? &c->nav->work[wk] : NULL;
    double rho = P->r + 2.0 * NAV_CUT * (P->r + c->nav->M), rho2 = rho * rho;
    for (int i = begin; i < end; ++i) {
        nv_row *row = &c->row[i];
        nv_recent recent = {{0}, 0};
        for (int j = i + 1; j < P->nv && !row->oom; ++j) {
            /* a pair that a wall lies across has no leg: the walls that last blocked one of
             * i's legs are tried (one that lies across moves to the front) */
            int cut = -1;
            for (int t = 0; t < recent.n && cut < 0 && !c->nav->plain; ++t) {
                cut = nv_wall_cuts(c->nav, recent.k[t], P->vp[i], P->vp[j], rho2) ? t : -1;
            }
            if (cut >= 0) {
                int32_t w = recent.k[cut];
                for (; cut > 0; --cut) {
                    recent.k[cut] = recent.k[cut - 1];
                }
                recent.k[0] = w;
                row->cut++;
                continue;
            }
            for (int k = 0; k < 4; ++k) {
                int su = (k & 2) ? -1 : 1, sv = (k & 1) ? -1 : 1;
                orca_vec2 tu, tv;
                if (!nv_tan_cc(P->vp[i], su, P->vp[j], sv, P->r, &tu, &tv)) {
                    continue;
                }
                orca_vec2 f = v2_sub(tv, tu);
                if (!nv_taut(P, i, su, f) || !nv_taut(P, j, sv, f) ||
                    !(c->nav->plain
                          ? orca_nv_seg_clear(c->nav, P, W, tu, tv, P->lim)
                          : orca_nv_seg_clear_recent(c->nav, P, W, &recent, tu, tv, P->lim))) {
                    continue;
                }
                if (row->n == row->cap) {
                    int cap = row->cap ? 2 * row->cap : 16;
                    nv_leg *q = orca_mem_resize(row->v, (size_t)cap, sizeof *q);
                    if (!q) {
                        row->oom = 1;
                        break;
                    }
                    row->v = q;
                    row->cap = cap;
                }
                nv_leg *l = &row->v[row->n++];
                l->j = j;
                l->su = (int8_t)su;
                l->sv = (int8_t)sv;
                l->tu = tu;
                l->tv = tv;
                l->ku = orca_nav_angle(tu.y - P->vp[i].y, tu.x - P->vp[i].x);
                l->kv = orca_nav_angle(tv.y - P->vp[j].y, tv.x - P->vp[j].x);
                l->len = v2_len(f);
            }
        }
    }
}

/* The four nodes of leg l from vertex i (docs/navigation.md, "The graph"): the departure on
 * ring (i, su), the arrival on (j, sv), the departure on (j, -sv), the arrival on (i, -su),
 * numbered from 4 * number, number the leg's place in the order of (i, j, sides). */
static void nv_set_leg(nav_plan *P, int i, const nv_leg *l, int number)
{
    int su = l->su, sv = l->sv, j = l->j;
    int d1 = 4 * number, a1 = d1 + 1, d2 = d1 + 2, a2 = d1 + 3;
    nv_set_node(P, d1, l->tu, l->ku, 2 * i + (su > 0 ? 0 : 1), 1);
    nv_set_node(P, a1, l->tv, l->kv, 2 * j + (sv > 0 ? 0 : 1), 0);
    nv_set_node(P, d2, l->tv, l->kv, 2 * j + (sv > 0 ? 1 : 0), 1);
    nv_set_node(P, a2, l->tu, l->ku, 2 * i + (su > 0 ? 1 : 0), 0);
    P->node[d1].mate = a1;
    P->node[a1].mate = d1;
    P->node[d2].mate = a2;
    P->node[a2].mate = d2;
    P->node[d1].leg = P->node[a1].leg = P->node[d2].leg = P->node[a2].leg = l->len;
}

/* The nodes of the rows [begin, end) (on the workers: each row writes the nodes of its own
 * legs, numbered from its first leg's place, row_first). */
static void nv_nodes_task(int begin, int end, int wk, void *context)
{
    (void)wk;
    const nv_rows *c = context;
    for (int i = begin; i < end; ++i) {
        for (int k = 0; k < c->row[i].n; ++k) {
            nv_set_leg(c->P, i, &c->row[i].v[k], c->row_first[i] + k);
        }
    }
}

/* The rings [begin, end): each ring's entries (bucketed by ring in node order) sorted by
 * (key, node), then its nodes' places (on the workers: each ring sorts its own entries and
 * writes its own nodes). */
static void nv_rings_task(int begin, int end, int wk, void *context)
{
    (void)wk;
    const nv_rows *c = context;
    nav_plan *P = c->P;
    for (int g = begin; g < end; ++g) {
        int first = P->ring_first[g], m = P->ring_n[g];
        nv_ring_entry *re = c->entries + first;
        if (m > 1) {
            qsort(re, (size_t)m, sizeof *re, nv_cmp_ring_entry);
        }
        for (int k = 0; k < m; ++k) {
            P->ring_nodes[first + k] = re[k].node;
            P->ring_keys[first + k] = P->node[re[k].node].key;
            P->node[re[k].node].pos = k;
        }
    }
}

/* The arcs of the rings [begin, end): each node's arc to the next node of its ring, its length
 * and whether it is clear (on the workers: each ring writes its own nodes' slots). */
static void nv_arcs_task(int begin, int end, int wk, void *context)
{
    (void)wk;
    const nv_rows *c = context;
    nav_plan *P = c->P;
    for (int g = begin; g < end; ++g) {
        int m = P->ring_n[g], s = (g & 1) ? -1 : 1, vi = g >> 1;
        if (m < 2) {
            continue;
        }
        const int32_t *rn = P->ring_nodes + P->ring_first[g];
        for (int k = 0; k < m; ++k) {
            int a = rn[k];
            int b = rn[s > 0 ? (k + 1) % m : (k + m - 1) % m];
            double d = nv_ring_delta(P->node[a].key, P->node[b].key, s);
            P->node[a].arc_len = P->r * d;
            P->node[a].arc_free = (uint8_t)orca_nv_arc_clear_dir(P, c->nav, vi, s, P->node[a].p,
                                                                 P->node[b].p, d, P->lim);
        }
    }
}

void orca_nv_plan_free(nav_plan *p)
{
    if (!p) {
        return;
    }
    orca_nv_grid_free(p->grid);
    orca_mem_free(p->vp);
    orca_mem_free(p->inc_first);
    orca_mem_free(p->inc_n);
    orca_mem_free(p->inc_dir);
    orca_mem_free(p->near_first);
    orca_mem_free(p->near_n);
    orca_mem_free(p->near_w);
    orca_mem_free(p->node);
    orca_mem_free(p->ring_first);
    orca_mem_free(p->ring_n);
    orca_mem_free(p->ring_nodes);
    orca_mem_free(p->ring_keys);
    for (int i = 0; i < p->field_count; ++i) {
        orca_nv_field_free(&p->fields[i]);
    }
    orca_mem_free(p->fields);
    orca_mem_free(p);
}

static nav_plan *nv_build_plan(orca_nav *nav, double r)
{
    nav_plan *P = orca_mem_zalloc(1, sizeof *P);
    if (!P) {
        return NULL;
    }
    P->r = r;
    P->tol = NAV_TOL * (r + nav->M);
    P->lim = r - P->tol;
    P->lim2 = P->lim * P->lim;
    int nw = nav->nw;
    if (orca_nav_workers(nav, orca_sim_get_worker_count(nav->sim)) != ORCA_OK) {
        goto fail;
    }
    P->grid = orca_nv_grid_build(nav, P->lim);
    /* vertices: the distinct wall ends, by (x, y) */
    P->vp = orca_mem_alloc((size_t)(2 * nw + 1), sizeof *P->vp);
    if (!P->vp) {
        goto fail;
    }
    for (int k = 0; k < nw; ++k) {
        P->vp[2 * k] = nav->wa[k];
        P->vp[2 * k + 1] = nav->wb[k];
    }
    if (nw > 0) {
        qsort(P->vp, (size_t)(2 * nw), sizeof *P->vp, nv_cmp_vec);
    }
    int nv = 0;
    for (int k = 0; k < 2 * nw; ++k) {
        if (nv == 0 || nv_cmp_vec(&P->vp[nv - 1], &P->vp[k]) != 0) {
            P->vp[nv++] = P->vp[k];
        }
    }
    P->nv = nv;
    /* incident directions */
    P->inc_first = orca_mem_zalloc((size_t)nv + 1, sizeof *P->inc_first);
    P->inc_n = orca_mem_zalloc((size_t)nv + 1, sizeof *P->inc_n);
    P->inc_dir = orca_mem_alloc((size_t)(2 * nw + 1), sizeof *P->inc_dir);
    P->near_first = orca_mem_zalloc((size_t)nv + 1, sizeof *P->near_first);
    P->near_n = orca_mem_zalloc((size_t)nv + 1, sizeof *P->near_n);
    if (!P->inc_first || !P->inc_n || !P->inc_dir || !P->near_first || !P->near_n) {
        goto fail;
    }
    int32_t *wv = orca_mem_alloc((size_t)(2 * nw + 1), sizeof *wv);
    if (!wv) {
        goto fail;
    }
    for (int k = 0; k < nw; ++k) {
        wv[2 * k] = orca_nv_find_vertex(P, nav->wa[k]);
        wv[2 * k + 1] = orca_nv_find_vertex(P, nav->wb[k]);
        if (wv[2 * k] != wv[2 * k + 1]) {
            P->inc_n[wv[2 * k]]++;
            P->inc_n[wv[2 * k + 1]]++;
        }
    }
    for (int v = 0, at = 0; v < nv; ++v) {
        P->inc_first[v] = at;
        at += P->inc_n[v];
        P->inc_n[v] = 0;
    }
    for (int k = 0; k < nw; ++k) {
        int a = wv[2 * k], b = wv[2 * k + 1];
        if (a != b) {
            P->inc_dir[P->inc_first[a] + P->inc_n[a]++] = v2_sub(nav->wb[k], nav->wa[k]);
            P->inc_dir[P->inc_first[b] + P->inc_n[b]++] = v2_sub(nav->wa[k], nav->wb[k]);
        }
    }
    orca_mem_free(wv);
    /* walls within 2r of each vertex (those an arc of radius r around it can come within
     * lim < r of), in wall order: the candidates from the grid (orca_nv_near_candidates), each
     * tested exactly as a scan of every wall would */
    {
        int cap = 64, used = 0;
        P->near_w = orca_mem_alloc((size_t)cap, sizeof *P->near_w);
        nv_cand cand = {NULL, 0, 0};
        if (!P->near_w) {
            goto fail;
        }
        double rr4 = 4.0 * r * r;
        for (int v = 0; v < nv; ++v) {
            P->near_first[v] = used;
            if (P->grid &&
                !orca_nv_near_candidates(P->grid, P->vp[v], 2.0 * r, r + nav->M, &cand)) {
                orca_mem_free(cand.k);
                goto fail;
            }
            int m = P->grid ? cand.n : nw;
            for (int t = 0; t < m; ++t) {
                int k = P->grid ? cand.k[t] : t;
                if (nv_pt_seg_d2(P->vp[v], nav->wa[k], nav->wb[k]) < rr4) {
                    if (used == cap) {
                        int32_t *q = orca_mem_resize(P->near_w, (size_t)cap * 2, sizeof *q);
                        if (!q) {
                            orca_mem_free(cand.k);
                            goto fail;
                        }
                        P->near_w = q;
                        cap *= 2;
                    }
                    P->near_w[used++] = k;
                }
            }
            P->near_n[v] = used - P->near_first[v];
        }
        orca_mem_free(cand.k);
    }
    /* legs: for each pair i < j and sides (su, sv), the tangent from i to j, kept when taut at
     * both ends and clear of the walls (found on the workers, vertex by vertex); it and its
     * reverse become four nodes, numbered in the order of (i, j, sides) */
    {
        nv_rows rows = {nav, P, orca_mem_zalloc((size_t)nv + 1, sizeof *rows.row),
                        orca_mem_alloc((size_t)nv + 1, sizeof *rows.row_first), NULL};
        int ok = rows.row && rows.row_first;
        if (ok && nv > 0) {
            orca_run_task_ranged((orca_sim *)nav->sim, nv_legs_task, nv, 8, &rows);
        }
        int64_t legs = 0;
        for (int i = 0; ok && i < nv; ++i) {
            ok = !rows.row[i].oom;
            rows.row_first[i] = (int32_t)legs;
            legs += rows.row[i].n;
            P->cut += rows.row[i].cut;
        }
        ok = ok && legs <= (INT32_MAX - 1) / 4;
        if (ok) {
            P->nn = P->ncap = (int)(4 * legs);
            P->legs = (int)legs;
            P->node = orca_mem_alloc((size_t)P->nn + 1, sizeof *P->node);
            ok = P->node != NULL;
        }
        if (ok && nv > 0) {
            orca_run_task_ranged((orca_sim *)nav->sim, nv_nodes_task, nv, 8, &rows);
        }
        for (int i = 0; rows.row && i < nv; ++i) {
            orca_mem_free(rows.row[i].v);
        }
        orca_mem_free(rows.row);
        orca_mem_free(rows.row_first);
        if (!ok) {
            goto fail;
        }
    }
    /* rings: nodes by (ring, key, index), bucketed by ring in node order and then sorted
     * ring by ring on the workers; arcs to the next node in the ring's direction */
    int nr = 2 * nv;
    P->ring_first = orca_mem_zalloc((size_t)nr + 1, sizeof *P->ring_first);
    P->ring_n = orca_mem_zalloc((size_t)nr + 1, sizeof *P->ring_n);
    P->ring_nodes = orca_mem_alloc((size_t)P->nn + 1, sizeof *P->ring_nodes);
    P->ring_keys = orca_mem_alloc((size_t)P->nn + 1, sizeof *P->ring_keys);
    if (!P->ring_first || !P->ring_n || !P->ring_nodes || !P->ring_keys) {
        goto fail;
    }
    {
        nv_rows rows = {nav, P, NULL, NULL,
                        orca_mem_alloc((size_t)P->nn + 1, sizeof *rows.entries)};
        if (!rows.entries) {
            goto fail;
        }
        for (int n = 0; n < P->nn; ++n) {
            P->ring_n[P->node[n].ring]++;
        }
        for (int g = 0, at = 0; g < nr; ++g) {
            P->ring_first[g] = at;
            at += P->ring_n[g];
            P->ring_n[g] = 0;
        }
        for (int n = 0; n < P->nn; ++n) {
            int g = P->node[n].ring;
            nv_ring_entry *e = &rows.entries[P->ring_first[g] + P->ring_n[g]++];
            e->ring = g;
            e->node = n;
            e->key = P->node[n].key;
        }
        if (nr > 0) {
            orca_run_task_ranged((orca_sim *)nav->sim, nv_rings_task, nr, 64, &rows);
            orca_run_task_ranged((orca_sim *)nav->sim, nv_arcs_task, nr, 64, &rows);
        }
        orca_mem_free(rows.entries);
    }
    return P;
fail:
    orca_nv_plan_free(P);
    return NULL;
}

nav_plan *orca_nv_get_plan(orca_nav *nav, double r)
{
    for (int i = 0; i < nav->plan_count; ++i) {
        if (nav->plans[i]->r == r) {
            return nav->plans[i];
        }
    }
    nav_plan **pl = orca_mem_resize(nav->plans, (size_t)nav->plan_count + 1, sizeof *pl);
    if (!pl) {
        return NULL;
    }
    nav->plans = pl;
    nav_plan *P = nv_build_plan(nav, r);
    if (!P) {
        return NULL;
    }
    nav->plans[nav->plan_count++] = P;
    return P;
}

/* The structure kept for radius r, or NULL when it is not built. */
nav_plan *orca_nv_find_plan(const orca_nav *nav, double r)
{
    for (int i = 0; i < nav->plan_count; ++i) {
        if (nav->plans[i]->r == r) {
            return nav->plans[i];
        }
    }
    return NULL;
}
