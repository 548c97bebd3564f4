/* SPDX-License-Identifier: MIT */
/* Navigation's clearance checks (docs/navigation.md, "The walls", "Clearance", "Arcs"): the
 * wall grid of one radius, whether a segment, a point or an arc keeps lim from every wall,
 * whether a point is inside the walkable area. Each answer is the same as a scan of every
 * wall would give; the grid and the stamps only make it faster. */
#include "nav_internal.h"

#include "alloc.h"
#include "exact.h"
#include "vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void orca_nv_grid_free(nav_grid *g)
{
    if (g) {
        orca_mem_free(g->start);
        orca_mem_free(g->walls);
        orca_mem_free(g);
    }
}

/* Whether wall k keeps lim from the segment p-q (box test first). */
static int nv_wall_clear(const orca_nav *nav, int k, orca_vec2 p, orca_vec2 q, double lo_x,
                         double hi_x, double lo_y, double hi_y, double lim2)
{
    orca_vec2 a = nav->wa[k], b = nav->wb[k];
    if ((a.x < lo_x && b.x < lo_x) || (a.x > hi_x && b.x > hi_x) ||
        (a.y < lo_y && b.y < lo_y) || (a.y > hi_y && b.y > hi_y)) {
        return 1; /* both ends beyond one side of the box: farther than lim */
    }
    return orca_nv_seg_seg_d2(p, q, a, b) >= lim2;
}

static int nv_cell(double x, double x0, double inv, int n)
{
    double c = (x - x0) * inv;
    if (!(c > 0)) {
        return 0;
    }
    if (c >= (double)n) {
        return n - 1;
    }
    return (int)c;
}

/* Whether the segment p-q keeps at least lim (at most the plan's lim) from every wall: its
 * squared distance to each is at least lim * lim (docs/navigation.md, "Clearance"). The walls
 * looked at are those of the cells the segment's box meets column by column (every wall within
 * lim of a point of the segment is listed in that point's cell); the answer is the same as
 * over all walls. */
/* W's wall stamps for a new check: 1 when they are there (sized to the walls), 0 when they
 * could not be had (the check then looks at a wall once per cell that lists it: the same
 * answer, more work). */
static int nv_stamps(const orca_nav *nav, nav_work *W)
{
    if (!W) {
        return 0;
    }
    if (W->stamp_cap < nav->nw) {
        uint32_t *st = orca_mem_zalloc((size_t)nav->nw, sizeof *st);
        if (!st) {
            return 0;
        }
        orca_mem_free(W->stamp);
        W->stamp = st;
        W->stamp_cap = nav->nw;
        W->check = 0;
    }
    if (++W->check == 0) {
        memset(W->stamp, 0, (size_t)W->stamp_cap * sizeof *W->stamp);
        W->check = 1;
    }
    return 1;
}

/* orca_nv_seg_clear, and with blocker not NULL the wall found within lim when it is not clear. */
static int nv_seg_clear_at(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 p,
                           orca_vec2 q, double lim, int *blocker)
{
    double lo_x = (p.x < q.x ? p.x : q.x) - lim, hi_x = (p.x < q.x ? q.x : p.x) + lim;
    double lo_y = (p.y < q.y ? p.y : q.y) - lim, hi_y = (p.y < q.y ? q.y : p.y) + lim;
    double lim2 = lim * lim;
    nav_grid *g = P ? P->grid : NULL;
    if (!g) {
        for (int k = 0; k < nav->nw; ++k) {
            if (!nv_wall_clear(nav, k, p, q, lo_x, hi_x, lo_y, hi_y, lim2)) {
                if (blocker) {
                    *blocker = k;
                }
                return 0;
            }
        }
        return 1;
    }
    uint32_t *stamp = nv_stamps(nav, W) ? W->stamp : NULL;
    /* columns of the segment (widened by a cell's 2^-20 against rounding), and in each the
     * rows between the segment's lowest and highest y there; the columns from both ends
     * inward, alternately, so that a wall near either end (where most blocked legs meet
     * theirs) is seen early: the answer does not depend on the order */
    double c = 1.0 / g->inv, e = c * 0x1p-20;
    int c0 = nv_cell((p.x < q.x ? p.x : q.x) - e, g->x0, g->inv, g->w);
    int c1 = nv_cell((p.x < q.x ? q.x : p.x) + e, g->x0, g->inv, g->w);
    double dx = q.x - p.x, dy = q.y - p.y;
    for (int ix = 0; ix <= c1 - c0; ++ix) {
        int cx = dx < 0 ? c1 - ix : c0 + ix;
        double ya = p.y, yb = q.y;
        if (dx != 0) {
            double xl = g->x0 + (double)cx * c - e, xr = g->x0 + (double)(cx + 1) * c + e;
            double ta = (xl - p.x) / dx, tb = (xr - p.x) / dx;
            if (ta > tb) {
                double t = ta;
                ta = tb;
                tb = t;
            }
            ta = ta < 0 ? 0.0 : (ta > 1 ? 1.0 : ta);
            tb = tb < 0 ? 0.0 : (tb > 1 ? 1.0 : tb);
            ya = p.y + ta * dy;
            yb = p.y + tb * dy;
        }
        double ylo = ya < yb ? ya : yb, yhi = ya < yb ? yb : ya;
        int r0 = nv_cell(ylo - e, g->y0, g->inv, g->h), r1 = nv_cell(yhi + e, g->y0, g->inv, g->h);
        for (int iy = 0; iy <= r1 - r0; ++iy) {
            int cell = (dy < 0 ? r1 - iy : r0 + iy) * g->w + cx;
            for (int j = g->start[cell]; j < g->start[cell + 1]; ++j) {
                int k = g->walls[j];
                if (stamp) {
                    if (stamp[k] == W->check) {
                        continue;
                    }
                    stamp[k] = W->check;
                }
                if (!nv_wall_clear(nav, k, p, q, lo_x, hi_x, lo_y, hi_y, lim2)) {
                    if (blocker) {
                        *blocker = k;
                    }
                    return 0;
                }
            }
        }
    }
    return 1;
}

int orca_nv_seg_clear(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 p,
                      orca_vec2 q, double lim)
{
    return nv_seg_clear_at(nav, P, W, p, q, lim, NULL);
}

/* orca_nv_seg_clear(p, q, lim), trying the walls of R first; a wall that blocks moves to R's
 * front. */
int orca_nv_seg_clear_recent(const orca_nav *nav, const nav_plan *P, nav_work *W,
                             nv_recent *R, orca_vec2 p, orca_vec2 q, double lim)
{
    double lo_x = (p.x < q.x ? p.x : q.x) - lim, hi_x = (p.x < q.x ? q.x : p.x) + lim;
    double lo_y = (p.y < q.y ? p.y : q.y) - lim, hi_y = (p.y < q.y ? q.y : p.y) + lim;
    double lim2 = lim * lim;
    int k = -1, at = -1;
    for (int t = 0; t < R->n; ++t) {
        if (!nv_wall_clear(nav, R->k[t], p, q, lo_x, hi_x, lo_y, hi_y, lim2)) {
            k = R->k[t];
            at = t;
            break;
        }
    }
    if (k < 0 && nv_seg_clear_at(nav, P, W, p, q, lim, &k)) {
        return 1;
    }
    if (at < 0) {
        at = R->n < NAV_RECENT ? R->n++ : NAV_RECENT - 1;
    }
    for (; at > 0; --at) {
        R->k[at] = R->k[at - 1];
    }
    R->k[0] = k;
    return 0;
}

/* Whether a point keeps lim from every wall. */
int orca_nv_pt_clear(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 p,
                     double lim)
{
    return orca_nv_seg_clear(nav, P, W, p, p, lim);
}

/* The plan's wall grid: cells of side max(2 lim, sqrt(box area / (4 walls))), at most 2^22
 * cells; NULL without walls or out of memory (the checks then look at every wall). */
nav_grid *orca_nv_grid_build(const orca_nav *nav, double lim)
{
    int nw = nav->nw;
    if (nw == 0) {
        return NULL;
    }
    double x0 = nav->wa[0].x, x1 = x0, y0 = nav->wa[0].y, y1 = y0;
    for (int k = 0; k < nw; ++k) {
        orca_vec2 e[2] = {nav->wa[k], nav->wb[k]};
        for (int j = 0; j < 2; ++j) {
            x0 = e[j].x < x0 ? e[j].x : x0;
            x1 = e[j].x > x1 ? e[j].x : x1;
            y0 = e[j].y < y0 ? e[j].y : y0;
            y1 = e[j].y > y1 ? e[j].y : y1;
        }
    }
    x0 -= lim;
    y0 -= lim;
    x1 += lim;
    y1 += lim;
    double cell = sqrt((x1 - x0) * (y1 - y0) / (4.0 * (double)nw));
    cell = cell > 2 * lim ? cell : 2 * lim;
    while ((x1 - x0) / cell * ((y1 - y0) / cell) > 4194304.0) {
        cell *= 2;
    }
    nav_grid *g = orca_mem_zalloc(1, sizeof *g);
    if (!g) {
        return NULL;
    }
    g->x0 = x0;
    g->y0 = y0;
    g->inv = 1.0 / cell;
    g->w = (int)((x1 - x0) * g->inv) + 1;
    g->h = (int)((y1 - y0) * g->inv) + 1;
    size_t cells = (size_t)g->w * (size_t)g->h;
    g->start = orca_mem_zalloc(cells + 1, sizeof *g->start);
    if (!g->start) {
        orca_nv_grid_free(g);
        return NULL;
    }
    /* two passes: count, then fill */
    int64_t total = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int k = 0; k < nw; ++k) {
            orca_vec2 a = nav->wa[k], b = nav->wb[k];
            int cx0 = nv_cell((a.x < b.x ? a.x : b.x) - lim, x0, g->inv, g->w);
            int cx1 = nv_cell((a.x < b.x ? b.x : a.x) + lim, x0, g->inv, g->w);
            int cy0 = nv_cell((a.y < b.y ? a.y : b.y) - lim, y0, g->inv, g->h);
            int cy1 = nv_cell((a.y < b.y ? b.y : a.y) + lim, y0, g->inv, g->h);
            for (int cy = cy0; cy <= cy1; ++cy) {
                for (int cx = cx0; cx <= cx1; ++cx) {
                    size_t cellno = (size_t)cy * (size_t)g->w + (size_t)cx;
                    if (pass == 0) {
                        g->start[cellno + 1]++;
                        ++total;
                    } else {
                        g->walls[g->start[cellno]++] = k;
                    }
                }
            }
        }
        if (pass == 0) {
            if (total > INT32_MAX) {
                orca_nv_grid_free(g);
                return NULL;
            }
            for (size_t c = 0; c < cells; ++c) {
                g->start[c + 1] += g->start[c];
            }
            g->walls = orca_mem_alloc((size_t)total + 1, sizeof *g->walls);
            if (!g->walls) {
                orca_nv_grid_free(g);
                return NULL;
            }
        }
    }
    /* the fill advanced each start to the next cell's: shift back */
    for (size_t c = cells; c > 0; --c) {
        g->start[c] = g->start[c - 1];
    }
    g->start[0] = 0;
    return g;
}

/* The least squared distance from p to a wall (+inf without walls). */
double orca_nv_pt_wall_d2(const orca_nav *nav, orca_vec2 p)
{
    double best = 1.0 / 0.0;
    for (int k = 0; k < nav->nw; ++k) {
        double d = nv_pt_seg_d2(p, nav->wa[k], nav->wb[k]);
        best = d < best ? d : best;
    }
    return best;
}

/* Inside the walkable area: without loops everywhere; else the winding number of the loops'
 * edges at p, by exact orientations, at least 1 (docs/extensions.md's rule). */
int orca_nv_inside(const orca_nav *nav, orca_vec2 p)
{
    if (nav->nw == nav->nseg) {
        return 1;
    }
    int w = 0;
    for (int k = nav->nseg; k < nav->nw; ++k) {
        orca_vec2 a = nav->wa[k], b = nav->wb[k];
        if (a.y <= p.y) {
            if (b.y > p.y && orca_exact_orient(a, b, p) > 0) {
                ++w;
            }
        } else if (b.y <= p.y && orca_exact_orient(a, b, p) < 0) {
            --w;
        }
    }
    return w >= 1;
}

/* Whether direction u lies on the counter-clockwise arc from ua to ub of sweep delta
 * (0 < delta < 2 pi). */
static int nv_in_sweep(orca_vec2 u, orca_vec2 ua, orca_vec2 ub, double delta)
{
    if (delta <= NAV_PI) {
        return nv_cross2(ua, u) >= 0 && nv_cross2(u, ub) >= 0;
    }
    return !(nv_cross2(ub, u) > 0 && nv_cross2(u, ua) > 0);
}

/* Whether the counter-clockwise arc of the circle (v, r) from pa to pb, of sweep delta
 * (0 <= delta < 2 pi), keeps lim from every wall near v (docs/navigation.md, "Arcs"): the
 * distance from an arc to a segment is least at an end of the arc (to the segment), at an end
 * of the segment (to the arc, where its direction from v lies on the arc), or where the
 * segment's line meets the circle or is nearest to v. */
static int nv_arc_clear(const nav_plan *P, const orca_nav *nav, int vi, orca_vec2 pa, orca_vec2 pb,
                        double delta, double lim)
{
    orca_vec2 v = P->vp[vi];
    orca_vec2 ua = v2_sub(pa, v), ub = v2_sub(pb, v);
    double r = P->r, lim2 = lim * lim;
    int sweep = delta > 0;
    for (int j = P->near_first[vi]; j < P->near_first[vi] + P->near_n[vi]; ++j) {
        int k = P->near_w[j];
        orca_vec2 a = nav->wa[k], b = nav->wb[k];
        if (nv_pt_seg_d2(pa, a, b) < lim2 || nv_pt_seg_d2(pb, a, b) < lim2) {
            return 0;
        }
        if (!sweep) {
            continue;
        }
        for (int e = 0; e < 2; ++e) {
            orca_vec2 u = v2_sub(e ? b : a, v);
            double uu = v2_dot(u, u);
            if (uu > 0 && nv_in_sweep(u, ua, ub, delta)) {
                double d = sqrt(uu) - r;
                if (d_abs(d) < lim) {
                    return 0;
                }
            }
        }
        orca_vec2 ab = v2_sub(b, a);
        double l2 = v2_dot(ab, ab);
        if (!(l2 > 0)) {
            continue;
        }
        double t0 = v2_dot(v2_sub(v, a), ab) / l2;
        orca_vec2 f = v2(a.x + t0 * ab.x, a.y + t0 * ab.y);
        orca_vec2 vf = v2_sub(f, v);
        double dl2 = v2_dot(vf, vf);
        if (dl2 < r * r) {
            double hh = sqrt((r * r - dl2) / l2);
            for (int e = 0; e < 2; ++e) {
                double t = e ? t0 + hh : t0 - hh;
                if (t >= 0 && t <= 1) {
                    orca_vec2 q = v2(a.x + t * ab.x, a.y + t * ab.y);
                    orca_vec2 u = v2_sub(q, v);
                    if (v2_dot(u, u) > 0 && nv_in_sweep(u, ua, ub, delta)) {
                        return 0;
                    }
                }
            }
        } else if (t0 > 0 && t0 < 1 && nv_in_sweep(vf, ua, ub, delta)) {
            if (sqrt(dl2) - r < lim) {
                return 0;
            }
        }
    }
    return 1;
}

/* The arc from node-like point pa (key ka) to pb (key kb) on ring (vi, s) in the ring's
 * direction: its sweep, and whether it is clear. */
int orca_nv_arc_clear_dir(const nav_plan *P, const orca_nav *nav, int vi, int s, orca_vec2 pa,
                          orca_vec2 pb, double delta, double lim)
{
    return s > 0 ? nv_arc_clear(P, nav, vi, pa, pb, delta, lim)
                 : nv_arc_clear(P, nav, vi, pb, pa, delta, lim);
}

static int nv_cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return a < b ? -1 : (a > b);
}

/* Into out: every wall of the grid's cells that overlap the square of half side d (plus a
 * margin) around p, ascending and each once; 0 out of memory. Each wall is in every cell its
 * box widened by lim overlaps, so a wall with a point within d of p is among them. The margin,
 * a cell's 2^-20 and 2^-40 of span (the plan's r + M), is far above the rounding of a
 * point-to-wall distance computed below d (a few units in the last place of M): the exact
 * test that follows then keeps exactly the walls a scan of every wall would. */
int orca_nv_near_candidates(const nav_grid *g, orca_vec2 p, double d, double span, nv_cand *out)
{
    double q = d + (1.0 / g->inv) * 0x1p-20 + span * 0x1p-40;
    int cx0 = nv_cell(p.x - q, g->x0, g->inv, g->w), cx1 = nv_cell(p.x + q, g->x0, g->inv, g->w);
    int cy0 = nv_cell(p.y - q, g->y0, g->inv, g->h), cy1 = nv_cell(p.y + q, g->y0, g->inv, g->h);
    out->n = 0;
    for (int cy = cy0; cy <= cy1; ++cy) {
        for (int cx = cx0; cx <= cx1; ++cx) {
            size_t cell = (size_t)cy * (size_t)g->w + (size_t)cx;
            for (int j = g->start[cell]; j < g->start[cell + 1]; ++j) {
                if (out->n == out->cap) {
                    int cap = out->cap ? 2 * out->cap : 64;
                    int32_t *t = orca_mem_resize(out->k, (size_t)cap, sizeof *t);
                    if (!t) {
                        return 0;
                    }
                    out->k = t;
                    out->cap = cap;
                }
                out->k[out->n++] = g->walls[j];
            }
        }
    }
    if (out->n > 1) {
        qsort(out->k, (size_t)out->n, sizeof *out->k, nv_cmp_i32);
    }
    int m = 0;
    for (int t = 0; t < out->n; ++t) {
        if (m == 0 || out->k[m - 1] != out->k[t]) {
            out->k[m++] = out->k[t];
        }
    }
    out->n = m;
    return 1;
}
