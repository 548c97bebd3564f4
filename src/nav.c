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
 * every order an index order. */
#include "nav_internal.h"

#include "exact.h"
#include "sim_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAV_PI_4 0x1.921fb54442d18p-1
#define NAV_PI_2 0x1.921fb54442d18p+0
#define NAV_PI 0x1.921fb54442d18p+1
#define NAV_2PI 0x1.921fb54442d18p+2
#define NAV_TAN_PI_8 0x1.a827999fcef32p-2
#define NAV_ATAN_TERMS 22
#define NAV_TOL 0x1p-40   /* clearance tolerance, relative to r + M (docs/navigation.md) */
#define NAV_TAUT 0x1p-20  /* the taut test's slack (a pruning: docs/navigation.md) */
#define NAV_CUT 0x1p-16   /* a wall across a pair's legs: its margin, relative to r + M */
#define NAV_ERROR_SIZE 256

/* --- angles ---------------------------------------------------------------------------- */

/* atan(t) for t in [0, 1]: above tan(pi/8), pi/4 + atan((t - 1) / (t + 1)); then the series
 * z - z^3/3 + z^5/5 - ... to 22 terms (|z| <= tan(pi/8): the first term left out is below
 * 2^-56 of the sum), by Horner's rule from the last term. */
static double nv_atan_unit(double t)
{
    double base = 0.0, z = t;
    if (t > NAV_TAN_PI_8) {
        z = (t - 1.0) / (t + 1.0);
        base = NAV_PI_4;
    }
    double z2 = z * z;
    double s = 0.0;
    for (int k = NAV_ATAN_TERMS - 1; k >= 0; --k) {
        s = 1.0 / (double)(2 * k + 1) - z2 * s;
    }
    return base + z * s;
}

double orca_nav_angle(double y, double x)
{
    double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
    if (!(ax > 0) && !(ay > 0)) {
        return 0.0;
    }
    double a = ay <= ax ? nv_atan_unit(ay / ax) : NAV_PI_2 - nv_atan_unit(ax / ay);
    if (x < 0) {
        a = NAV_PI - a;
    }
    if (y < 0) {
        a = NAV_2PI - a;
    }
    return a >= NAV_2PI ? 0.0 : a;
}

/* --- geometry -------------------------------------------------------------------------- */

static double nv_cross2(orca_vec2 a, orca_vec2 b) { return a.x * b.y - a.y * b.x; }

/* Squared distance from p to the segment a-b. */
static double nv_pt_seg_d2(orca_vec2 p, orca_vec2 a, orca_vec2 b)
{
    double abx = b.x - a.x, aby = b.y - a.y;
    double apx = p.x - a.x, apy = p.y - a.y;
    double l2 = abx * abx + aby * aby;
    double t = 0.0;
    if (l2 > 0) {
        t = (apx * abx + apy * aby) / l2;
        t = t < 0 ? 0.0 : (t > 1 ? 1.0 : t);
    }
    double dx = apx - t * abx, dy = apy - t * aby;
    return dx * dx + dy * dy;
}

/* Whether segments p-q and a-b cross at a point inside both (signs of the four crosses). */
static int nv_seg_cross(orca_vec2 p, orca_vec2 q, orca_vec2 a, orca_vec2 b)
{
    orca_vec2 pq = v2_sub(q, p), ab = v2_sub(b, a);
    double d1 = nv_cross2(pq, v2_sub(a, p)), d2 = nv_cross2(pq, v2_sub(b, p));
    double d3 = nv_cross2(ab, v2_sub(p, a)), d4 = nv_cross2(ab, v2_sub(q, a));
    return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) &&
           ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

/* Squared distance between segments p-q and a-b: 0 when they cross, else the least of the
 * four end-to-segment distances. */
static double nv_seg_seg_d2(orca_vec2 p, orca_vec2 q, orca_vec2 a, orca_vec2 b)
{
    if (nv_seg_cross(p, q, a, b)) {
        return 0.0;
    }
    double d = nv_pt_seg_d2(p, a, b), e = nv_pt_seg_d2(q, a, b);
    d = e < d ? e : d;
    e = nv_pt_seg_d2(a, p, q);
    d = e < d ? e : d;
    e = nv_pt_seg_d2(b, p, q);
    return e < d ? e : d;
}

/* The tangent point t on the circle (c, r) of the line from p that touches it with c on side
 * s of the direction p -> t (s = 1: left): with w = c - p, D2 = w.w, h = sqrt(D2 - r*r),
 * t = p + h (h w - s r perp(w)) / D2, perp(w) = (-w.y, w.x). 0 when p is not outside the
 * circle (D2 <= r*r). */
static int nv_tan_pc(orca_vec2 p, orca_vec2 c, double r, int s, orca_vec2 *t)
{
    double wx = c.x - p.x, wy = c.y - p.y;
    double d2 = wx * wx + wy * wy;
    double rr = r * r;
    if (!(d2 > rr)) {
        return 0;
    }
    double h = sqrt(d2 - rr);
    double sr = (double)s * r;
    t->x = p.x + h * (h * wx + sr * wy) / d2;
    t->y = p.y + h * (h * wy - sr * wx) / d2;
    return 1;
}

/* The leg from circle (u, r) on side su to circle (v, r) on side sv: its ends tu, tv. Same
 * sides: the outer tangent, tu = u - su r n, tv = v - su r n with n = perp(v - u) / |v - u|.
 * Opposite sides: the inner tangent through the midpoint m = (u + v) / 2 (|v - u| > 2r):
 * tv = nv_tan_pc(m, v, sv), tu the same from m to u with the side reversed. 0 when none. */
static int nv_tan_cc(orca_vec2 u, int su, orca_vec2 v, int sv, double r, orca_vec2 *tu,
                  orca_vec2 *tv)
{
    double dx = v.x - u.x, dy = v.y - u.y;
    double l2 = dx * dx + dy * dy;
    if (!(l2 > 0)) {
        return 0;
    }
    if (su == sv) {
        double l = sqrt(l2);
        double nx = -dy / l, ny = dx / l;
        double k = (double)su * r;
        tu->x = u.x - k * nx;
        tu->y = u.y - k * ny;
        tv->x = v.x - k * nx;
        tv->y = v.y - k * ny;
        return 1;
    }
    if (!(l2 > 4.0 * r * r)) {
        return 0;
    }
    orca_vec2 m = v2((u.x + v.x) * 0.5, (u.y + v.y) * 0.5);
    return nv_tan_pc(m, v, r, sv, tv) && nv_tan_pc(m, u, r, -su, tu);
}

/* --- the walls ------------------------------------------------------------------------- */

typedef struct nav_field {
    int64_t id;
    int goal_count;
    orca_vec2 *goals;
    int gv_count;      /* goal nodes: departure points toward a goal */
    int32_t *gv_ring;  /* by (ring, key, index) */
    double *gv_key;
    orca_vec2 *gv_p;
    int32_t *gv_goal;
    double *dist;      /* nodes then goal nodes: distance to the nearest goal */
    double *len;       /* the same without penalties (there are none here): path length */
    int32_t *next;     /* the next node; >= node_count: a goal node; -1 none */
    double *ring_min;  /* per ring: the least distance of its nodes and goal points */
} nav_field;

/* A cell index over the walls for the clearance checks of one radius: a wall is listed in
 * every cell its box widened by lim overlaps, so the walls within lim of a point are all
 * listed in that point's cell (docs/navigation.md, "The walls"). */
typedef struct nav_grid {
    double x0, y0, inv; /* cell of x: floor((x - x0) * inv) */
    int w, h;
    int32_t *start;     /* w * h + 1 */
    int32_t *walls;
} nav_grid;

/* The scratch of one thread's queries (docs/navigation.md, "Following a path": plans run on
 * the simulation's workers, each with its own): the search's per-node arrays, valid for the
 * nodes whose mark is this query's, its heap, and the clearance checks' per-wall stamps.
 * Nothing in it outlives a query but its capacity, so results never depend on which
 * thread's scratch a query used. */
typedef struct nv_slot {
    double dist; /* the cost */
    double wl;   /* the length of the edge from the predecessor (without penalty) */
    double pg;   /* the predecessor's cost when it reached the node */
    double hv;   /* the bound (nv_bound_at) */
    int32_t pred;
    uint32_t mark; /* the query that last wrote the slot */
} nv_slot;

typedef struct nav_work {
    nv_slot *slot; /* per node */
    uint32_t query;
    int cap;
    struct nv_hent *heap; /* the heap's entries */
    int hcap;
    uint32_t *stamp; /* per wall: the clearance check that last looked at it */
    uint32_t check;
    int stamp_cap;
} nav_work;

/* A node of the graph: a tangent point, its leg and the arc after it (docs/navigation.md, "The
 * graph"), together so that a search reads one node from one place. */
typedef struct nav_node {
    orca_vec2 p;      /* the tangent point */
    double key;       /* its angle around the vertex */
    double leg;       /* its leg's length */
    double arc_len;   /* the arc to the next node of the ring (in the ring's direction) */
    int32_t ring;     /* 2 * vertex + (side > 0 ? 0 : 1) */
    int32_t pos;      /* place in its ring */
    int32_t mate;     /* departure: its leg's arrival node; arrival: the departure node */
    uint8_t dep;      /* 1 departure, 0 arrival */
    uint8_t arc_free; /* whether that arc is clear */
} nav_node;

typedef struct nav_plan {
    double r, tol, lim, lim2;
    nav_grid *grid;
    int nv;
    orca_vec2 *vp;
    int32_t *inc_first, *inc_n; /* incident wall directions of each vertex */
    orca_vec2 *inc_dir;
    int32_t *near_first, *near_n, *near_w; /* walls within 2r of each vertex */
    /* nodes: tangent points */
    int nn, ncap;
    nav_node *node;
    int32_t *ring_first, *ring_n, *ring_nodes; /* by (key, node) */
    int legs;
    int64_t cut;    /* vertex pairs skipped for a wall across them (nv_wall_cuts) */
    nav_field *fields;
    int field_count;
} nav_plan;

struct orca_nav {
    const orca_sim *sim;
    int nw, nseg;     /* walls: the segments, then the loops' edges */
    orca_vec2 *wa, *wb;
    int wcap;
    double M;         /* the largest coordinate magnitude of a wall end */
    nav_plan **plans;
    int plan_count;
    char error[NAV_ERROR_SIZE];
    nav_work *work; /* one scratch per thread that queries (orca_nav_workers) */
    int work_count;
    int dijkstra;   /* 1: point-goal searches without the bound (orca_nav_set_dijkstra) */
    int plain;      /* 1: graphs built without the shortcuts (orca_nav_set_plain_build) */
};

static orca_status nav_fail(orca_nav *nav, orca_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(nav->error, sizeof nav->error, fmt, ap);
    va_end(ap);
    return st;
}

static void nv_field_free(nav_field *f)
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
}

static void nv_grid_free(nav_grid *g)
{
    if (g) {
        orca_mem_free(g->start);
        orca_mem_free(g->walls);
        orca_mem_free(g);
    }
}

static void nv_work_free(nav_work *w)
{
    orca_mem_free(w->slot);
    orca_mem_free(w->heap);
    orca_mem_free(w->stamp);
    memset(w, 0, sizeof *w);
}

static void nv_plan_free(nav_plan *p)
{
    if (!p) {
        return;
    }
    nv_grid_free(p->grid);
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
    for (int i = 0; i < p->field_count; ++i) {
        nv_field_free(&p->fields[i]);
    }
    orca_mem_free(p->fields);
    orca_mem_free(p);
}

static void nv_drop_plans(orca_nav *nav)
{
    for (int i = 0; i < nav->plan_count; ++i) {
        nv_plan_free(nav->plans[i]);
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

/* A coordinate with -0 made +0 (x + 0.0), so that equal ends are equal bits. */
static orca_vec2 nv_norm0(orca_vec2 p) { return v2(p.x + 0.0, p.y + 0.0); }

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

/* --- building the graph for one radius --------------------------------------------------- */

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
static int nv_find_vertex(const nav_plan *P, orca_vec2 p)
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

/* Whether wall k keeps lim from the segment p-q (box test first). */
static int nv_wall_clear(const orca_nav *nav, int k, orca_vec2 p, orca_vec2 q, double lo_x,
                         double hi_x, double lo_y, double hi_y, double lim2)
{
    orca_vec2 a = nav->wa[k], b = nav->wb[k];
    if ((a.x < lo_x && b.x < lo_x) || (a.x > hi_x && b.x > hi_x) ||
        (a.y < lo_y && b.y < lo_y) || (a.y > hi_y && b.y > hi_y)) {
        return 1; /* both ends beyond one side of the box: farther than lim */
    }
    return nv_seg_seg_d2(p, q, a, b) >= lim2;
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

/* nv_seg_clear, and with blocker not NULL the wall found within lim when it is not clear. */
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

static int nv_seg_clear(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 p,
                        orca_vec2 q, double lim)
{
    return nv_seg_clear_at(nav, P, W, p, q, lim, NULL);
}

/* The walls that last blocked a leg of one vertex, most recent first: most legs of a vertex
 * that are not clear are blocked by one of a few walls (those of its room), so these are
 * tried before the full check. A leg is clear when every wall keeps lim from it, so which
 * wall is tried first does not change the answer, only how soon a blocked leg is known. */
#define NAV_RECENT 8

typedef struct nv_recent {
    int32_t k[NAV_RECENT];
    int n;
} nv_recent;

/* nv_seg_clear(p, q, lim), trying the walls of R first; a wall that blocks moves to R's
 * front. */
static int nv_seg_clear_recent(const orca_nav *nav, const nav_plan *P, nav_work *W,
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
static int nv_pt_clear(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 p,
                       double lim)
{
    return nv_seg_clear(nav, P, W, p, p, lim);
}

/* The plan's wall grid: cells of side max(2 lim, sqrt(box area / (4 walls))), at most 2^22
 * cells; NULL without walls or out of memory (the checks then look at every wall). */
static nav_grid *nv_grid_build(const orca_nav *nav, double lim)
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
        nv_grid_free(g);
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
                nv_grid_free(g);
                return NULL;
            }
            for (size_t c = 0; c < cells; ++c) {
                g->start[c + 1] += g->start[c];
            }
            g->walls = orca_mem_alloc((size_t)total + 1, sizeof *g->walls);
            if (!g->walls) {
                nv_grid_free(g);
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
static double nv_pt_wall_d2(const orca_nav *nav, orca_vec2 p)
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
static int nv_inside(const orca_nav *nav, orca_vec2 p)
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

/* The taut test at vertex v for a leg in direction f that passes v on side s: every wall that
 * starts at v lies on v's side of the line through v along f, s * Cross(f, w) >= -slack
 * (docs/navigation.md, "The graph"). */
static int nv_taut(const nav_plan *P, int v, int s, orca_vec2 f)
{
    double ff = v2_dot(f, f);
    for (int k = P->inc_first[v]; k < P->inc_first[v] + P->inc_n[v]; ++k) {
        orca_vec2 w = P->inc_dir[k];
        double c = (double)s * nv_cross2(f, w);
        if (c < 0 && c * c > NAV_TAUT * NAV_TAUT * ff * v2_dot(w, w)) {
            return 0;
        }
    }
    return 1;
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
static double nv_ring_delta(double ka, double kb, int s)
{
    double d = s > 0 ? kb - ka : ka - kb;
    return d < 0 ? d + NAV_2PI : d;
}

static int nv_arc_clear_dir(const nav_plan *P, const orca_nav *nav, int vi, int s, orca_vec2 pa,
                            orca_vec2 pb, double delta, double lim)
{
    return s > 0 ? nv_arc_clear(P, nav, vi, pa, pb, delta, lim)
                 : nv_arc_clear(P, nav, vi, pb, pa, delta, lim);
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
                    !(c->nav->plain ? nv_seg_clear(c->nav, P, W, tu, tv, P->lim)
                                    : nv_seg_clear_recent(c->nav, P, W, &recent, tu, tv, P->lim))) {
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
            P->node[a].arc_free =
                (uint8_t)nv_arc_clear_dir(P, c->nav, vi, s, P->node[a].p, P->node[b].p, d, P->lim);
        }
    }
}

/* Candidate walls, ascending and each once. */
typedef struct nv_cand {
    int32_t *k;
    int n, cap;
} nv_cand;

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
static int nv_near_candidates(const nav_grid *g, orca_vec2 p, double d, double span, nv_cand *out)
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
    P->grid = nv_grid_build(nav, P->lim);
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
        wv[2 * k] = nv_find_vertex(P, nav->wa[k]);
        wv[2 * k + 1] = nv_find_vertex(P, nav->wb[k]);
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
     * lim < r of), in wall order: the candidates from the grid (nv_near_candidates), each
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
            if (P->grid && !nv_near_candidates(P->grid, P->vp[v], 2.0 * r, r + nav->M, &cand)) {
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
    if (!P->ring_first || !P->ring_n || !P->ring_nodes) {
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
    nv_plan_free(P);
    return NULL;
}

static nav_plan *nv_get_plan(orca_nav *nav, double r)
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

/* --- search ---------------------------------------------------------------------------- */

/* A heap of (cost, node), least cost first, ties to the lower node: 4-ary, each entry's cost
 * and node together, so that a pop reads a node's children from one or two cache lines. Any
 * heap that pops the least (cost, node) first pops the same sequence (entries with equal cost
 * and node are alike), so the layout changes no result. */
typedef struct nv_hent {
    double cost;
    int32_t node;
} nv_hent;

typedef struct nv_heap {
    nv_hent *e;
    int n, cap;
    nav_work *W; /* owns the entries (heap), grown here */
    int oom;     /* a push found no memory: the search is abandoned */
} nv_heap;

static nv_heap nv_heap_open(nav_work *W)
{
    nv_heap h = {W->heap, 0, W->hcap, W, 0};
    return h;
}

static int nv_hent_less(nv_hent a, nv_hent b)
{
    return a.cost < b.cost || (a.cost == b.cost && a.node < b.node);
}

static void nv_heap_push(nv_heap *h, double cost, int32_t node)
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

static void nv_heap_pop(nv_heap *h, double *cost, int32_t *node)
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

/* A point added for one query on a ring: the start's tangent points (arrivals) or the
 * departures toward a goal. */
typedef struct nv_vpoint {
    orca_vec2 p;
    double key; /* its angle around the vertex; -1 until needed (nv_vkey) */
    double leg; /* the leg to or from the query point */
    int32_t ring;
    int32_t goal; /* goal index (departures), -1 for the start's */
    int clear;    /* whether the leg is clear: 1, 0, or -1 not checked yet */
} nv_vpoint;

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

/* The ring node a point of key k on ring g reaches first in the ring's direction, and the
 * sweep to it; -1 for an empty ring. Ties: a node of equal key is reached (sweep 0). */
static int nv_ring_next_of(const nav_plan *P, int g, double k, double *delta)
{
    int m = P->ring_n[g];
    if (m == 0) {
        return -1;
    }
    const int32_t *rn = P->ring_nodes + P->ring_first[g];
    int s = (g & 1) ? -1 : 1;
    int lo = 0, hi = m; /* s > 0: the first with key >= k; s < 0: the last with key <= k */
    if (s > 0) {
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (P->node[rn[mid]].key >= k) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        int n = rn[lo == m ? 0 : lo];
        *delta = nv_ring_delta(k, P->node[n].key, s);
        return n;
    }
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (P->node[rn[mid]].key > k) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    int n = rn[lo == 0 ? m - 1 : lo - 1];
    *delta = nv_ring_delta(k, P->node[n].key, s);
    return n;
}

/* The ring node reached last before a point of key k on ring g, against the ring's
 * direction (the node whose arc leads to it), and the sweep from it; -1 for an empty ring. */
static int nv_ring_prev_of(const nav_plan *P, int g, double k, double *delta)
{
    int m = P->ring_n[g];
    if (m == 0) {
        return -1;
    }
    const int32_t *rn = P->ring_nodes + P->ring_first[g];
    int s = (g & 1) ? -1 : 1;
    int lo = 0, hi = m;
    if (s > 0) { /* the last with key <= k */
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (P->node[rn[mid]].key > k) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        int n = rn[lo == 0 ? m - 1 : lo - 1];
        *delta = nv_ring_delta(P->node[n].key, k, s);
        return n;
    }
    while (lo < hi) { /* the first with key >= k */
        int mid = lo + (hi - lo) / 2;
        if (P->node[rn[mid]].key >= k) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    int n = rn[lo == m ? 0 : lo];
    *delta = nv_ring_delta(P->node[n].key, k, s);
    return n;
}

/* The departures toward the goals (each goal, each ring: the tangent from the goal, kept when
 * clear and taut), sorted by (ring, key, goal). Returns the count, -1 out of memory. */
static int nv_goal_points(const orca_nav *nav, const nav_plan *P, nav_work *W,
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
                    (!lazy && !nv_seg_clear(nav, P, W, t, goals[g], P->lim))) {
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
                (!lazy && !nv_seg_clear(nav, P, W, from, t, start_lim))) {
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
static int nv_route_point(nav_route *out, const nav_plan *P, int g, orca_vec2 p, int *last_ring)
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

/* Checks start and goals: the result, the start's leg clearance, and which goals are free. */
static int nv_check_ends(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 from,
                         const orca_vec2 *goals, int ng, uint8_t *ok, double *start_lim,
                         int relax)
{
    *start_lim = P->lim;
    if (!nv_inside(nav, from)) {
        return ORCA_NAV_START_BLOCKED;
    }
    if (!nv_pt_clear(nav, P, W, from, P->lim)) {
        if (!relax) {
            return ORCA_NAV_START_BLOCKED;
        }
        /* a walker pushed closer than r plans its first leg with the clearance it has */
        double d = sqrt(nv_pt_wall_d2(nav, from)) * (1.0 - NAV_TAUT);
        if (!(d > 0)) {
            return ORCA_NAV_START_BLOCKED;
        }
        *start_lim = d;
    }
    int any = 0;
    for (int g = 0; g < ng; ++g) {
        ok[g] = (uint8_t)(nv_inside(nav, goals[g]) && nv_pt_clear(nav, P, W, goals[g], P->lim));
        any |= ok[g];
    }
    return any ? ORCA_NAV_OK : ORCA_NAV_GOAL_BLOCKED;
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
static orca_status nv_search(orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 from,
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
    out->result = nv_check_ends(nav, P, W, from, goals, ng, ok, &start_lim, relax);
    if (out->result != ORCA_NAV_OK) {
        orca_mem_free(ok);
        return ORCA_OK;
    }
    nv_vpoint *sv = NULL, *gv = NULL;
    int ns = nv_start_points(nav, P, W, from, start_lim, 1, &sv);
    int ngv = ns < 0 ? -1 : nv_goal_points(nav, P, W, goals, ok, ng, 1, &gv);
    int nn = P->nn;
    int total = nn + (ns > 0 ? ns : 0) + (ngv > 0 ? ngv : 0) + 1;
    if (ns < 0 || ngv < 0 || !nv_work_open(W, total)) {
        orca_mem_free(ok);
        orca_mem_free(sv);
        orca_mem_free(gv);
        return ORCA_ERR_MEMORY;
    }
    int end = total - 1;
    int avoid_v = avoid ? nv_find_vertex(P, nv_norm0(*avoid)) : -1;
    nv_bound bound = {goals, ok, astar && ng <= NAV_BOUND_GOALS ? ng : 0,
                      NAV_BOUND_SLACK * (P->r + nav->M)};
    nv_slot *S = W->slot;
    uint32_t q = W->query;
    nv_heap h = nv_heap_open(W);
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
                nv_heap_push(&h, c_ + S[y].hv, (y));                                          \
            }                                                                               \
        }                                                                                   \
    } while (0)
    for (int g = 0; g < ng; ++g) {
        if (ok[g] && nv_seg_clear(nav, P, W, from, goals[g], start_lim)) {
            double l = v2_len(v2_sub(goals[g], from));
            OPEN(end, from);
            if (l < S[end].dist) {
                S[end].dist = l;
                S[end].wl = l;
                S[end].pg = 0.0;
                S[end].pred = -2 - g; /* straight from the start to goal g */
                nv_heap_push(&h, l, end);
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
        nv_heap_pop(&h, &key, &x);
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
            vp->clear = vp->goal < 0 ? nv_seg_clear(nav, P, W, from, vp->p, start_lim)
                                     : nv_seg_clear(nav, P, W, vp->p, goals[vp->goal], P->lim);
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
            y = nv_ring_next_of(P, g, k, &dy);
        }
        /* goal points on this ring up to the next node */
        for (int j = nv_gv_lower(gv, ngv, g); j < ngv && gv[j].ring == g; ++j) {
            double d = nv_ring_delta(k, nv_vkey(P, &gv[j]), s);
            if ((y < 0 || d <= dy) &&
                nv_arc_clear_dir(P, nav, vi, s, px, gv[j].p, d, x < nn ? P->lim : start_lim)) {
                double a = P->r * d;
                RELAX(nn + ns + j, gv[j].p, c + a, a, x, c);
            }
        }
        if (y >= 0 && y != x) {
            int free = x < nn ? P->node[x].arc_free
                              : nv_arc_clear_dir(P, nav, vi, s, px, P->node[y].p, dy, start_lim);
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
                if (!nv_route_point(out, P, g, p, &last)) {
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

/* --- shared goals ---------------------------------------------------------------------- */

/* The distances of every node to the nearest goal of the set (a search backwards from the
 * goals, docs/navigation.md "Shared goals"). */
static nav_field *nv_get_field(orca_nav *nav, nav_plan *P, nav_work *W, int64_t id,
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
    uint8_t *ok = orca_mem_zalloc((size_t)ng, 1);
    F->goals = orca_mem_alloc((size_t)ng, sizeof *F->goals);
    if (!ok || !F->goals) {
        orca_mem_free(ok);
        nv_field_free(F);
        return NULL;
    }
    memcpy(F->goals, goals, (size_t)ng * sizeof *goals);
    F->goal_count = ng;
    for (int g = 0; g < ng; ++g) {
        ok[g] = (uint8_t)(nv_inside(nav, goals[g]) && nv_pt_clear(nav, P, W, goals[g], P->lim));
    }
    nv_vpoint *gv = NULL;
    int ngv = nv_goal_points(nav, P, W, goals, ok, ng, 0, &gv);
    orca_mem_free(ok);
    if (ngv < 0) {
        nv_field_free(F);
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
        nv_field_free(F);
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
    nv_heap h = nv_heap_open(W);
#define RELAXB(y, c, x)                                                                     \
    do {                                                                                    \
        if ((c) < dist[y]) {                                                  \
            dist[y] = (c);                                                                  \
            len[y] = (c);                                                                   \
            next[y] = (x);                                                                  \
            nv_heap_push(&h, (c), (y));                                                        \
        }                                                                                   \
    } while (0)
    for (int j = 0; j < ngv; ++j) {
        RELAXB(nn + j, gv[j].leg, -1);
    }
    while (h.n > 0 && !h.oom) {
        double c;
        int32_t x;
        nv_heap_pop(&h, &c, &x);
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
            p = nv_ring_prev_of(P, g, k, &d);
            if (p >= 0 && nv_arc_clear_dir(P, nav, vi, s, P->node[p].p, px, d, P->lim)) {
                RELAXB(p, c + P->r * d, x);
            }
        }
    }
#undef RELAXB
    orca_mem_free(gv);
    F->ring_min = orca_mem_alloc((size_t)(2 * P->nv) + 1, sizeof *F->ring_min);
    if (h.oom || !F->ring_min) {
        nv_field_free(F);
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

/* A query through a goal set's distances: connect the start, take the best first node, then
 * follow the distances' next nodes. */
static orca_status nv_field_route(const orca_nav *nav, const nav_plan *P, const nav_field *F,
                                  nav_work *W, orca_vec2 from, int avoid_v, double penalty,
                                  nav_route *out, double *cost)
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
    uint8_t *ok = orca_mem_zalloc((size_t)ng, 1);
    if (!ok) {
        return ORCA_ERR_MEMORY;
    }
    double start_lim;
    out->result = nv_check_ends(nav, P, W, from, F->goals, ng, ok, &start_lim, 1);
    if (out->result != ORCA_NAV_OK) {
        orca_mem_free(ok);
        return ORCA_OK;
    }
    double best = 1.0 / 0.0;
    int best_goal = -1;  /* straight to a goal */
    /* (or a start point below, then a node or goal point) */
    for (int g = 0; g < ng; ++g) {
        if (ok[g] && nv_seg_clear(nav, P, W, from, F->goals[g], start_lim)) {
            double l = v2_len(v2_sub(F->goals[g], from));
            if (l < best) {
                best = l;
                best_goal = g;
            }
        }
    }
    orca_mem_free(ok);
    /* The start points, vertex by vertex in the order of a lower bound of the cost through the
     * vertex, (|from - v| - r + the least distance on its rings) (1 - 2^-30), until the bound
     * exceeds the best cost found: the result is that of trying every start point, the least
     * cost winning and ties going to the earlier candidate (direct legs, then by vertex, side,
     * goal point, next node), as docs/navigation.md says. */
    int nn = P->nn, ngv = F->gv_count, nv = P->nv;
    int64_t best_key = INT64_MIN; /* the direct legs come first */
    int best_ring = -1, best_first = -1;
    orca_vec2 best_p = v2(0.0, 0.0);
    double *lb = orca_mem_alloc((size_t)nv + 1, sizeof *lb);
    int32_t *order = orca_mem_alloc((size_t)nv + 1, sizeof *order);
    if (!lb || !order) {
        orca_mem_free(lb);
        orca_mem_free(order);
        return ORCA_ERR_MEMORY;
    }
    for (int vi = 0; vi < nv; ++vi) {
        double dm = F->ring_min[2 * vi] < F->ring_min[2 * vi + 1] ? F->ring_min[2 * vi]
                                                                   : F->ring_min[2 * vi + 1];
        double dp = v2_len(v2_sub(P->vp[vi], from)) - P->r;
        lb[vi] = ((dp > 0 ? dp : 0.0) + dm) * (1.0 - 0x1p-30);
        order[vi] = vi;
    }
    /* a binary heap of vertices by (bound, index) */
    int hn = nv;
    for (int i = hn / 2 - 1; i >= 0; --i) {
        nv_sift_down(lb, order, hn, i);
    }
    while (hn > 0) {
        int vi = order[0];
        if (!(lb[vi] <= best)) {
            break; /* every vertex left costs more (or nothing is reachable through it) */
        }
        order[0] = order[--hn];
        nv_sift_down(lb, order, hn, 0);
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
            int y = nv_ring_next_of(P, g, key_t, &dy);
            int lo = 0, hi = ngv;
            while (lo < hi) {
                int mid = lo + (hi - lo) / 2;
                if (F->gv_ring[mid] < g) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            for (int j = lo; j < ngv && F->gv_ring[j] == g; ++j) {
                double d = nv_ring_delta(key_t, F->gv_key[j], s);
                if (y >= 0 && d > dy) {
                    continue;
                }
                double c = leg + P->r * d + F->dist[nn + j] + pen;
                int64_t key = base + (j - lo);
                if (!(c < best || (c == best && key < best_key))) {
                    continue;
                }
                if (clear < 0) {
                    clear = nv_seg_clear(nav, P, W, from, t, start_lim);
                }
                if (!clear) {
                    break;
                }
                if (nv_arc_clear_dir(P, nav, vi, s, t, F->gv_p[j], d, start_lim)) {
                    best = c;
                    best_key = key;
                    best_goal = -1;
                    best_ring = g;
                    best_p = t;
                    best_first = nn + j;
                }
            }
            if (y >= 0 && clear != 0) {
                double c = leg + P->r * dy + F->dist[y] + pen;
                int64_t key = base + INT32_MAX;
                if ((c < best || (c == best && key < best_key)) &&
                    (clear > 0 || (clear = nv_seg_clear(nav, P, W, from, t, start_lim)) != 0) &&
                    nv_arc_clear_dir(P, nav, vi, s, t, P->node[y].p, dy, start_lim)) {
                    best = c;
                    best_key = key;
                    best_goal = -1;
                    best_ring = g;
                    best_p = t;
                    best_first = y;
                }
            }
        }
    }
    orca_mem_free(lb);
    orca_mem_free(order);
    if (cost) {
        *cost = best; /* +inf without a path */
        return ORCA_OK;
    }
    orca_status st = ORCA_OK;
    if (!(best < 1.0 / 0.0)) {
        out->result = ORCA_NAV_NO_PATH;
    } else if (best_goal >= 0) {
        out->length = best;
        out->goal = best_goal;
    } else {
        out->length = best - ((best_ring >> 1) == avoid_v ? penalty : 0.0);
        int last = -1;
        if (!nv_route_point(out, P, best_ring, best_p, &last)) {
            st = ORCA_ERR_MEMORY;
        }
        for (int x = best_first; x >= 0 && st == ORCA_OK; x = x < nn ? F->next[x] : -1) {
            int g = x < nn ? P->node[x].ring : F->gv_ring[x - nn];
            orca_vec2 p = x < nn ? P->node[x].p : F->gv_p[x - nn];
            if (!nv_route_point(out, P, g, p, &last)) {
                st = ORCA_ERR_MEMORY;
            }
            if (x >= nn) {
                out->goal = F->gv_goal[x - nn];
            }
        }
    }
    return st;
}

/* The structure kept for radius r, or NULL when it is not built. */
static nav_plan *nv_find_plan(const orca_nav *nav, double r)
{
    for (int i = 0; i < nav->plan_count; ++i) {
        if (nav->plans[i]->r == r) {
            return nav->plans[i];
        }
    }
    return NULL;
}

static nav_field *nv_find_field(const nav_plan *P, int64_t id)
{
    for (int i = 0; i < P->field_count; ++i) {
        if (P->fields[i].id == id) {
            return &P->fields[i];
        }
    }
    return NULL;
}

orca_status orca_nav_prepare(orca_nav *nav, double radius, int64_t field, const orca_vec2 *goals,
                             int goal_count)
{
    nav_plan *P = nv_get_plan(nav, radius);
    if (!P) {
        return ORCA_ERR_MEMORY;
    }
    if (field >= 0 && !nv_get_field(nav, P, &nav->work[0], field, goals, goal_count)) {
        return ORCA_ERR_MEMORY;
    }
    return ORCA_OK;
}

orca_status orca_nav_route(orca_nav *nav, int wk, double radius, orca_vec2 from,
                           const orca_vec2 *goals, int goal_count, int64_t field,
                           const orca_vec2 *avoid, double penalty, nav_route *out)
{
    const nav_plan *P = nv_find_plan(nav, radius);
    const nav_field *F = P && field >= 0 ? nv_find_field(P, field) : NULL;
    if (!P || (field >= 0 && !F) || wk < 0 || wk >= nav->work_count) {
        return ORCA_ERR_ARGUMENT; /* not prepared (orca_nav_prepare, orca_nav_workers) */
    }
    nav_work *W = &nav->work[wk];
    from = nv_norm0(from);
    if (F) {
        return nv_field_route(nav, P, F, W, from,
                              avoid ? nv_find_vertex(P, nv_norm0(*avoid)) : -1, penalty, out,
                              NULL);
    }
    return nv_search(nav, P, W, from, goals, goal_count, avoid, penalty, 1, !nav->dijkstra, out);
}

orca_status orca_nav_field_cost(orca_nav *nav, int wk, double radius, orca_vec2 from,
                                int64_t field, const orca_vec2 *avoid, double penalty,
                                double *cost)
{
    const nav_plan *P = nv_find_plan(nav, radius);
    const nav_field *F = P ? nv_find_field(P, field) : NULL;
    if (!F || wk < 0 || wk >= nav->work_count) {
        return ORCA_ERR_ARGUMENT; /* not prepared */
    }
    return nv_field_route(nav, P, F, &nav->work[wk], nv_norm0(from),
                          avoid ? nv_find_vertex(P, nv_norm0(*avoid)) : -1, penalty, NULL, cost);
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
    nav_plan *P = nv_get_plan(nav, radius);
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
    const nav_plan *P = nv_find_plan(nav, radius);
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
    return nv_seg_clear(nav, P, W, p, to, NAV_TAUT * radius);
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
    nav_plan *P = nv_get_plan(nav, radius);
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
    st = nv_search(nav, P, &nav->work[0], nv_norm0(from), g0, goal_count, NULL, 0.0, 0,
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
 * one side of the segment's box grown by radius are farther; the others by nv_seg_seg_d2.
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
        seen = nv_seg_seg_d2(a, b, p, q) > r2;
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
    nav_plan *P = nv_get_plan(nav, radius);
    if (!P) {
        return nav_fail(nav, ORCA_ERR_MEMORY, "out of memory building the graph");
    }
    out->walls = nav->nw;
    out->vertices = P->nv;
    out->legs = P->legs;
    size_t b = sizeof *P + (size_t)P->nv * (sizeof(orca_vec2) + 4 * sizeof(int32_t)) +
               (size_t)P->ncap * sizeof(nav_node) + (size_t)P->nn * sizeof(int32_t);
    for (int i = 0; i < P->field_count; ++i) {
        b += (size_t)(P->nn + P->fields[i].gv_count) * (2 * sizeof(double) + sizeof(int32_t));
    }
    out->bytes = b;
    return ORCA_OK;
}
