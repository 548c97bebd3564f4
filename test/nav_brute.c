/* SPDX-License-Identifier: MIT */
/* nav_brute: the brute-force shortest-path oracle of the navigation tests (nav_brute.h states
 * the problem, the method and the tolerance). Test code: plain C17 with libm, no part of the
 * library. */
#include "nav_brute.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NB_PI 3.14159265358979323846
#define NB_TWO_PI (2.0 * NB_PI)

typedef struct v2 {
    double x, y;
} v2;

/* A node of the graph: the start, the goal, or a point on the circle of radius r around an
 * obstacle vertex (circle >= 0), at the unit direction (ux, uy) from the vertex. */
typedef struct node {
    v2 p;
    v2 u;
    double ang; /* atan2(u.y, u.x), for the order around the circle */
    int circle; /* vertex index, or -1 */
} node;

/* A straight edge between two nodes. */
typedef struct sedge {
    int a, b;
    double len;
} sedge;

struct nb_graph {
    double r, tol;
    int nseg;
    v2 *sa, *sb; /* obstacle segments: the walls, then every loop edge */
    int nloops;
    int *loop_n;
    v2 *loop_p; /* all loop points */
    int nvert;
    v2 *vert; /* distinct segment ends, sorted by (x, y) */
    int nnode;
    node *node; /* base nodes: ends of the circle-circle tangents that are free */
    int nedge;
    sedge *edge; /* base straight edges */
    int *circ_start; /* nvert + 1 offsets into circ_node */
    int *circ_node;  /* base nodes of each circle, by angle */
    unsigned char *circ_free; /* per entry k of circ_node: the counter-clockwise arc from it
                                 to the next entry of its circle (cyclic) is free */
};

/* ---- geometry ----------------------------------------------------------------------- */

static v2 sub(v2 a, v2 b) { return (v2){a.x - b.x, a.y - b.y}; }
static double dot(v2 a, v2 b) { return a.x * b.x + a.y * b.y; }
static double cross(v2 a, v2 b) { return a.x * b.y - a.y * b.x; }
static double len(v2 a) { return hypot(a.x, a.y); }

/* Distance from p to the segment a-b (a point when a == b). */
static double dist_point_seg(v2 p, v2 a, v2 b)
{
    v2 ab = sub(b, a), ap = sub(p, a);
    double l2 = dot(ab, ab);
    double t = l2 > 0.0 ? dot(ap, ab) / l2 : 0.0;
    if (t < 0.0)
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    return len((v2){ap.x - t * ab.x, ap.y - t * ab.y});
}

static int sign(double v) { return (v > 0.0) - (v < 0.0); }

/* Distance between the segments p-q and a-b: 0 when they cross properly, otherwise the
 * smallest distance from an end of one to the other (the distance of two segments that do not
 * cross is attained at an end of one of them). A crossing judged wrongly by rounding has an
 * end within rounding of the other segment, so the result is then that tiny distance. */
static double dist_seg_seg(v2 p, v2 q, v2 a, v2 b)
{
    int o1 = sign(cross(sub(q, p), sub(a, p))), o2 = sign(cross(sub(q, p), sub(b, p)));
    int o3 = sign(cross(sub(b, a), sub(p, a))), o4 = sign(cross(sub(b, a), sub(q, a)));
    if (o1 * o2 < 0 && o3 * o4 < 0)
        return 0.0;
    double d = dist_point_seg(p, a, b);
    double e = dist_point_seg(q, a, b);
    if (e < d)
        d = e;
    e = dist_point_seg(a, p, q);
    if (e < d)
        d = e;
    e = dist_point_seg(b, p, q);
    if (e < d)
        d = e;
    return d;
}

static int point_is_clear(const nb_graph *g, v2 p)
{
    for (int k = 0; k < g->nseg; k++)
        if (dist_point_seg(p, g->sa[k], g->sb[k]) < g->r - g->tol)
            return 0;
    return 1;
}

static int seg_is_clear(const nb_graph *g, v2 p, v2 q)
{
    for (int k = 0; k < g->nseg; k++)
        if (dist_seg_seg(p, q, g->sa[k], g->sb[k]) < g->r - g->tol)
            return 0;
    return 1;
}

/* Winding number of all loops at p: +1 for each counter-clockwise loop around p, -1 for each
 * clockwise one (the crossing rule with the side test). Only called for points at least
 * r - tol from every edge, far from every edge compared with the rounding of the side test. */
static int winding(const nb_graph *g, v2 p)
{
    int w = 0, base = 0;
    for (int l = 0; l < g->nloops; l++) {
        int n = g->loop_n[l];
        for (int k = 0; k < n; k++) {
            v2 a = g->loop_p[base + k], b = g->loop_p[base + (k + 1) % n];
            double side = cross(sub(b, a), sub(p, a));
            if (a.y <= p.y) {
                if (b.y > p.y && side > 0.0)
                    w++;
            } else if (b.y <= p.y && side < 0.0) {
                w--;
            }
        }
        base += n;
    }
    return w;
}

/* Is the direction of angle phi within the counter-clockwise arc from angle a0 of angular
 * length span (0 .. 2 pi)? */
static int in_arc(double phi, double a0, double span)
{
    double d = phi - a0;
    if (d < 0.0)
        d += NB_TWO_PI;
    if (d >= NB_TWO_PI)
        d -= NB_TWO_PI;
    return d <= span;
}

/* The smallest distance between the segment a-b and the arc of the circle of radius r around
 * v from the point pa (at angle a0) counter-clockwise over the angle span to the point pb.
 *
 * Why these candidates are enough: the distance |P - Q| over P on the arc and Q on the
 * segment (both closed and bounded) has a minimum at some pair (P*, Q*). If it is 0, P* = Q*
 * is a point where the circle meets the segment inside the arc: candidate (4). Otherwise the
 * distance is smooth there and
 * - P* is an end of the arc: candidate (1), the distance from pa or pb to the segment;
 * - P* is inside the arc and Q* an end e of the segment: P* is then a local minimum of
 *   |P - e| on the circle, the point of the circle nearest e, v + r (e - v)/|e - v|, and the
 *   distance is ||e - v| - r| (2); when e = v every point of the circle is r from e, which
 *   never blocks and needs no candidate;
 * - P* inside the arc and Q* inside the segment: P* - Q* is perpendicular to the segment and
 *   to the circle's tangent at P*, so P* = v +- r n (n the segment's unit normal) and Q* its
 *   foot on the segment's line, inside the segment (3).
 * Every candidate is the distance of a real pair (P on the arc, Q on the segment), so the
 * smallest candidate is the minimum itself. A direction judged inside or outside the arc
 * wrongly by rounding lies at an end of the arc, where candidate (1) gives the same value up
 * to rounding. */
static double dist_arc_seg(v2 v, double r, v2 pa, v2 pb, double a0, double span, v2 a, v2 b)
{
    double best = dist_point_seg(pa, a, b);                   /* (1) */
    double d = dist_point_seg(pb, a, b);
    if (d < best)
        best = d;
    v2 ends[2] = {a, b};
    for (int k = 0; k < 2; k++) {                            /* (2) */
        v2 w = sub(ends[k], v);
        double lw = len(w);
        if (lw > 0.0 && in_arc(atan2(w.y, w.x), a0, span)) {
            d = fabs(lw - r);
            if (d < best)
                best = d;
        }
    }
    v2 ab = sub(b, a);
    double l2 = dot(ab, ab);
    if (l2 > 0.0) {
        double l = sqrt(l2);
        v2 n = {-ab.y / l, ab.x / l};
        for (int s = -1; s <= 1; s += 2) {                   /* (3) */
            v2 p = {v.x + s * r * n.x, v.y + s * r * n.y};
            double t = dot(sub(p, a), ab) / l2;
            if (t >= 0.0 && t <= 1.0 && in_arc(atan2(s * n.y, s * n.x), a0, span)) {
                d = fabs(cross(ab, sub(p, a))) / l;
                if (d < best)
                    best = d;
            }
        }
        /* (4): |a + t ab - v|^2 = r^2, 0 <= t <= 1 */
        v2 av = sub(a, v);
        double bq = dot(av, ab), cq = dot(av, av) - r * r;
        double disc = bq * bq - l2 * cq;
        if (disc >= 0.0) {
            double sq = sqrt(disc);
            for (int s = -1; s <= 1; s += 2) {
                double t = (-bq + s * sq) / l2;
                if (t >= 0.0 && t <= 1.0) {
                    v2 x = {av.x + t * ab.x, av.y + t * ab.y};
                    if (in_arc(atan2(x.y, x.x), a0, span))
                        best = 0.0;
                }
            }
        }
    }
    return best;
}

/* Is every point of the counter-clockwise arc of circle c from node na over the angle span to
 * node nb at distance >= r - tol from every obstacle segment? Exact up to rounding
 * (dist_arc_seg). */
static int arc_is_clear(const nb_graph *g, int c, const node *na, const node *nb, double span)
{
    v2 v = g->vert[c];
    for (int k = 0; k < g->nseg; k++)
        if (dist_arc_seg(v, g->r, na->p, nb->p, na->ang, span, g->sa[k], g->sb[k]) <
            g->r - g->tol)
            return 0;
    return 1;
}

/* ---- growable arrays ----------------------------------------------------------------- */

typedef struct nodes {
    node *a;
    int n, cap;
} nodes;

typedef struct sedges {
    sedge *a;
    int n, cap;
} sedges;

static int grow(void **a, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return 1;
    int c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *p = realloc(*a, (size_t)c * size);
    if (!p)
        return 0;
    *a = p;
    *cap = c;
    return 1;
}

static int push_node(nodes *ns, v2 centre, double r, v2 u, int circle)
{
    if (!grow((void **)&ns->a, &ns->cap, ns->n + 1, sizeof(node)))
        return -1;
    node *nd = &ns->a[ns->n];
    nd->u = u;
    nd->circle = circle;
    if (circle >= 0) {
        nd->p = (v2){centre.x + r * u.x, centre.y + r * u.y};
        nd->ang = atan2(u.y, u.x);
    } else {
        nd->p = centre;
        nd->ang = 0.0;
    }
    return ns->n++;
}

static int push_edge(sedges *es, int a, int b, double l)
{
    if (!grow((void **)&es->a, &es->cap, es->n + 1, sizeof(sedge)))
        return 0;
    es->a[es->n++] = (sedge){a, b, l};
    return 1;
}

/* ---- tangents ------------------------------------------------------------------------ */

/* The directions from the centre c of a circle of radius r to the points where the two
 * tangents from p touch it: u = cos(b) w +- sin(b) w_perp with w = (p - c)/|p - c| and
 * cos(b) = r/|p - c|, so that (p - t).u = 0 for t = c + r u. A p within r of c (only within
 * the tolerance, for a free p) gets the one direction w. Returns the count (0 when p = c). */
static int point_tangents(v2 p, v2 c, double r, v2 u[2])
{
    v2 w = sub(p, c);
    double d = len(w);
    if (!(d > 0.0))
        return 0;
    w.x /= d;
    w.y /= d;
    if (d <= r) {
        u[0] = w;
        return 1;
    }
    double cb = r / d, sb = sqrt((d - r) * (d + r)) / d;
    u[0] = (v2){cb * w.x - sb * w.y, cb * w.y + sb * w.x};
    u[1] = (v2){cb * w.x + sb * w.y, cb * w.y - sb * w.x};
    return 2;
}

/* The common tangents of two circles of radius r around c1 != c2: directions u1[k] from c1 and
 * u2[k] from c2 of their touching points. Outer tangents: u1 = u2 = +-e_perp (e the unit vector
 * c1 -> c2). Inner tangents, when |c2 - c1| >= 2r - 2 tol (closer circles overlap by more than
 * the tolerance allows): u1 = cos(a) e +- sin(a) e_perp with cos(a) = 2r/|c2 - c1| (at most 1),
 * u2 = -u1, so the segment t1-t2 = (c2 - c1) - 2r u1 is perpendicular to u1. Returns the
 * count. */
static int circle_tangents(v2 c1, v2 c2, double r, double tol, v2 u1[4], v2 u2[4])
{
    v2 e = sub(c2, c1);
    double d = len(e);
    e.x /= d;
    e.y /= d;
    v2 q = {-e.y, e.x};
    int n = 0;
    u1[n] = q;
    u2[n++] = q;
    u1[n] = (v2){-q.x, -q.y};
    u2[n++] = (v2){-q.x, -q.y};
    if (d >= 2.0 * r - 2.0 * tol) {
        double ca = 2.0 * r / d, sa = 0.0;
        if (ca > 1.0)
            ca = 1.0;
        if (d > 2.0 * r)
            sa = sqrt((d - 2.0 * r) * (d + 2.0 * r)) / d;
        for (int s = -1; s <= 1; s += 2) {
            u1[n] = (v2){ca * e.x + s * sa * q.x, ca * e.y + s * sa * q.y};
            u2[n] = (v2){-u1[n].x, -u1[n].y};
            n++;
        }
    }
    return n;
}

/* ---- building the graph -------------------------------------------------------------- */

/* A node in the order around a circle: its angle, its index, and (at a query) its position
 * among the circle's base nodes, or -1 for a node of the query. Ties by index. */
typedef struct centry {
    double ang;
    int node;
    int base_pos; /* position among the circle's base nodes, or -1 for a query node */
} centry;

static int cmp_centry(const void *pa, const void *pb)
{
    const centry *a = pa, *b = pb;
    if (a->ang != b->ang)
        return a->ang < b->ang ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node);
}


static int cmp_v2(const void *pa, const void *pb)
{
    const v2 *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    return 0;
}

static int finite2(double x, double y) { return isfinite(x) && isfinite(y); }

void nb_free(nb_graph *g)
{
    if (!g)
        return;
    free(g->sa);
    free(g->sb);
    free(g->loop_n);
    free(g->loop_p);
    free(g->vert);
    free(g->node);
    free(g->edge);
    free(g->circ_start);
    free(g->circ_node);
    free(g->circ_free);
    free(g);
}

int nb_prepare(const nb_seg *walls, int nwalls, const double *loop_xy, const int *loop_n,
               int nloops, double r, nb_graph **out)
{
    *out = NULL;
    if (nwalls < 0 || nloops < 0 || (nwalls > 0 && !walls) ||
        (nloops > 0 && (!loop_xy || !loop_n)) || !isfinite(r) || !(r > 0.0))
        return NB_BAD_INPUT;
    int npts = 0;
    for (int l = 0; l < nloops; l++) {
        if (loop_n[l] < 3 || loop_n[l] > (1 << 24) - npts)
            return NB_BAD_INPUT;
        npts += loop_n[l];
    }
    double m = 0.0;
    for (int k = 0; k < nwalls; k++) {
        if (!finite2(walls[k].ax, walls[k].ay) || !finite2(walls[k].bx, walls[k].by))
            return NB_BAD_INPUT;
        m = fmax(m, fmax(fmax(fabs(walls[k].ax), fabs(walls[k].ay)),
                         fmax(fabs(walls[k].bx), fabs(walls[k].by))));
    }
    for (int k = 0; k < 2 * npts; k++) {
        if (!isfinite(loop_xy[k]))
            return NB_BAD_INPUT;
        m = fmax(m, fabs(loop_xy[k]));
    }
    double tol = 1e-12 * (r + m);
    if (!(r > 1e3 * tol))
        return NB_BAD_INPUT; /* r below about 1e-9 M: the tolerance would matter */

    nb_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NB_NO_MEMORY;
    g->r = r;
    g->tol = tol;
    g->nseg = nwalls + npts;
    g->nloops = nloops;
    int nseg_alloc = g->nseg > 0 ? g->nseg : 1;
    g->sa = malloc((size_t)nseg_alloc * sizeof(v2));
    g->sb = malloc((size_t)nseg_alloc * sizeof(v2));
    g->loop_n = malloc((size_t)(nloops > 0 ? nloops : 1) * sizeof(int));
    g->loop_p = malloc((size_t)(npts > 0 ? npts : 1) * sizeof(v2));
    g->vert = malloc((size_t)(2 * nseg_alloc) * sizeof(v2));
    if (!g->sa || !g->sb || !g->loop_n || !g->loop_p || !g->vert) {
        nb_free(g);
        return NB_NO_MEMORY;
    }
    for (int k = 0; k < nwalls; k++) {
        g->sa[k] = (v2){walls[k].ax, walls[k].ay};
        g->sb[k] = (v2){walls[k].bx, walls[k].by};
    }
    for (int k = 0; k < npts; k++)
        g->loop_p[k] = (v2){loop_xy[2 * k], loop_xy[2 * k + 1]};
    int base = 0;
    for (int l = 0; l < nloops; l++) {
        int n = loop_n[l];
        g->loop_n[l] = n;
        for (int k = 0; k < n; k++) {
            g->sa[nwalls + base + k] = g->loop_p[base + k];
            g->sb[nwalls + base + k] = g->loop_p[base + (k + 1) % n];
        }
        base += n;
    }

    /* the distinct vertices */
    for (int k = 0; k < g->nseg; k++) {
        g->vert[2 * k] = g->sa[k];
        g->vert[2 * k + 1] = g->sb[k];
    }
    int nv = 2 * g->nseg;
    qsort(g->vert, (size_t)nv, sizeof(v2), cmp_v2);
    int u = 0;
    for (int k = 0; k < nv; k++)
        if (u == 0 || cmp_v2(&g->vert[u - 1], &g->vert[k]) != 0)
            g->vert[u++] = g->vert[k];
    g->nvert = u;

    /* circle-circle tangents that are clear of every obstacle */
    nodes ns = {0};
    sedges es = {0};
    for (int i = 0; i < g->nvert; i++)
        for (int j = i + 1; j < g->nvert; j++) {
            v2 u1[4], u2[4];
            int nt = circle_tangents(g->vert[i], g->vert[j], r, tol, u1, u2);
            for (int t = 0; t < nt; t++) {
                v2 p = {g->vert[i].x + r * u1[t].x, g->vert[i].y + r * u1[t].y};
                v2 q = {g->vert[j].x + r * u2[t].x, g->vert[j].y + r * u2[t].y};
                if (!seg_is_clear(g, p, q))
                    continue;
                int a = push_node(&ns, g->vert[i], r, u1[t], i);
                int b = push_node(&ns, g->vert[j], r, u2[t], j);
                if (a < 0 || b < 0 || !push_edge(&es, a, b, len(sub(ns.a[b].p, ns.a[a].p)))) {
                    free(ns.a);
                    free(es.a);
                    nb_free(g);
                    return NB_NO_MEMORY;
                }
            }
        }
    g->node = ns.a;
    g->nnode = ns.n;
    g->edge = es.a;
    g->nedge = es.n;

    /* each circle's nodes by angle, and which arcs between neighbours are clear */
    g->circ_start = calloc((size_t)g->nvert + 1, sizeof(int));
    g->circ_node = malloc((size_t)(g->nnode > 0 ? g->nnode : 1) * sizeof(int));
    g->circ_free = malloc((size_t)(g->nnode > 0 ? g->nnode : 1));
    if (!g->circ_start || !g->circ_node || !g->circ_free) {
        nb_free(g);
        return NB_NO_MEMORY;
    }
    for (int k = 0; k < g->nnode; k++)
        g->circ_start[g->node[k].circle + 1]++;
    for (int c = 0; c < g->nvert; c++)
        g->circ_start[c + 1] += g->circ_start[c];
    int *fill = calloc((size_t)(g->nvert > 0 ? g->nvert : 1), sizeof(int));
    if (!fill) {
        nb_free(g);
        return NB_NO_MEMORY;
    }
    for (int k = 0; k < g->nnode; k++) {
        int c = g->node[k].circle;
        g->circ_node[g->circ_start[c] + fill[c]++] = k;
    }
    free(fill);
    centry *order = malloc((size_t)(g->nnode > 0 ? g->nnode : 1) * sizeof(centry));
    if (!order) {
        nb_free(g);
        return NB_NO_MEMORY;
    }
    for (int c = 0; c < g->nvert; c++) {
        int s = g->circ_start[c], n = g->circ_start[c + 1] - s;
        for (int k = 0; k < n; k++)
            order[k] = (centry){g->node[g->circ_node[s + k]].ang, g->circ_node[s + k], k};
        qsort(order, (size_t)n, sizeof(centry), cmp_centry);
        for (int k = 0; k < n; k++)
            g->circ_node[s + k] = order[k].node;
        for (int k = 0; k < n; k++) {
            const node *na = &g->node[g->circ_node[s + k]];
            const node *nb = &g->node[g->circ_node[s + (k + 1) % n]];
            double span = k + 1 < n ? nb->ang - na->ang : nb->ang + NB_TWO_PI - na->ang;
            g->circ_free[s + k] = (unsigned char)arc_is_clear(g, c, na, nb, span);
        }
    }
    free(order);
    *out = g;
    return NB_OK;
}

double nb_clearance(const nb_graph *g, double x, double y)
{
    double d = INFINITY;
    for (int k = 0; k < g->nseg; k++) {
        double e = dist_point_seg((v2){x, y}, g->sa[k], g->sb[k]);
        if (e < d)
            d = e;
    }
    return d;
}

int nb_walkable(const nb_graph *g, double x, double y)
{
    return g->nloops == 0 || winding(g, (v2){x, y}) >= 1;
}

double nb_tolerance(const nb_graph *g) { return g->tol; }
int nb_vertex_count(const nb_graph *g) { return g->nvert; }
int nb_node_count(const nb_graph *g) { return g->nnode; }
int nb_edge_count(const nb_graph *g) { return g->nedge; }

/* ---- queries ------------------------------------------------------------------------- */

/* A directed edge of the query's adjacency: to node `to`, straight (kind 0) or along the
 * circle `circle` counter-clockwise (+1) or clockwise (-1). */
typedef struct dedge {
    int to, kind, circle;
    double len;
} dedge;

/* An undirected edge before the adjacency is built: a -> b straight, or the arc from a
 * counter-clockwise to b. */
typedef struct uedge {
    int a, b, kind, circle;
    double len;
} uedge;

typedef struct uedges {
    uedge *a;
    int n, cap;
} uedges;

static int push_uedge(uedges *es, int a, int b, int kind, int circle, double l)
{
    if (!grow((void **)&es->a, &es->cap, es->n + 1, sizeof(uedge)))
        return 0;
    es->a[es->n++] = (uedge){a, b, kind, circle, l};
    return 1;
}

/* Binary heap of (distance, node) with lazy deletion. */
typedef struct heap_item {
    double d;
    int n;
} heap_item;

typedef struct heap {
    heap_item *a;
    int n, cap;
} heap;

static int heap_push(heap *h, double d, int n)
{
    if (!grow((void **)&h->a, &h->cap, h->n + 1, sizeof(heap_item)))
        return 0;
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h->a[p].d <= d)
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = (heap_item){d, n};
    return 1;
}

static heap_item heap_pop(heap *h)
{
    heap_item top = h->a[0], last = h->a[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->a[c + 1].d < h->a[c].d)
            c++;
        if (last.d <= h->a[c].d)
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n > 0)
        h->a[i] = last;
    return top;
}

void nb_path_free(nb_path *p)
{
    if (!p)
        return;
    free(p->xy);
    free(p->legs);
    p->xy = NULL;
    p->legs = NULL;
    p->n = 0;
}

static int endpoint_status(const nb_graph *g, v2 p)
{
    if (!point_is_clear(g, p))
        return 0;
    if (g->nloops > 0 && winding(g, p) < 1)
        return 0;
    return 1;
}

/* Fills out's points and legs from the Dijkstra predecessors of the goal: pred (the node
 * before), pkind (0 straight, +1 / -1 an arc counter-clockwise / clockwise), pcircle (the
 * arc's vertex) and plen (the edge's length). Legs no longer than tol are left out (the next
 * leg then starts at the last point kept, within tol of its own start; the goal stays the last
 * point), and consecutive arcs around one vertex in one direction become one leg, as do
 * consecutive straight legs in line (within tol). */
static int build_path(const nb_graph *g, const node *nd, const int *pred, const int *pkind,
                      const int *pcircle, const double *plen, int start, int goal,
                      nb_path *out)
{
    int n = 1;
    for (int k = goal; k != start; k = pred[k])
        n++;
    int *seq = malloc((size_t)n * sizeof(int));
    out->xy = malloc((size_t)(2 * n) * sizeof(double));
    out->legs = malloc((size_t)n * sizeof(nb_leg));
    if (!seq || !out->xy || !out->legs) {
        free(seq);
        nb_path_free(out);
        return 0;
    }
    for (int k = goal, i = n - 1; i >= 0; k = pred[k], i--)
        seq[i] = k;
    int m = 1; /* points kept */
    double dropped = 0.0;
    out->xy[0] = nd[start].p.x;
    out->xy[1] = nd[start].p.y;
    for (int i = 1; i < n; i++) {
        int b = seq[i];
        nb_leg leg = {pkind[b], 0.0, 0.0, plen[b]};
        if (leg.arc) {
            leg.cx = g->vert[pcircle[b]].x;
            leg.cy = g->vert[pcircle[b]].y;
        }
        if (leg.length <= g->tol) {
            dropped += leg.length;
            continue;
        }
        const nb_leg *prev = m > 1 ? &out->legs[m - 2] : NULL;
        if (prev && leg.arc != 0 && prev->arc == leg.arc && prev->cx == leg.cx &&
            prev->cy == leg.cy) {
            out->legs[m - 2].length += leg.length; /* the arc goes on around the vertex */
        } else if (prev && leg.arc == 0 && prev->arc == 0 &&
                   dist_point_seg((v2){out->xy[2 * m - 2], out->xy[2 * m - 1]},
                                  (v2){out->xy[2 * m - 4], out->xy[2 * m - 3]},
                                  nd[b].p) <= g->tol) {
            out->legs[m - 2].length += leg.length; /* the line goes on (past a vertex) */
        } else {
            out->legs[m - 1] = leg;
            m++;
        }
        out->xy[2 * (m - 1)] = nd[b].p.x;
        out->xy[2 * (m - 1) + 1] = nd[b].p.y;
    }
    if (m == 1) { /* every leg was within tol: one straight leg to the goal */
        out->legs[0] = (nb_leg){0, 0.0, 0.0, 0.0};
        m = 2;
    }
    out->legs[m - 2].length += dropped;
    out->xy[2 * (m - 1)] = nd[goal].p.x;
    out->xy[2 * (m - 1) + 1] = nd[goal].p.y;
    free(seq);
    out->n = m;
    out->arcs = 0;
    for (int i = 0; i + 1 < m; i++)
        out->arcs += out->legs[i].arc != 0;
    return 1;
}

/* The graph of a query: the base nodes, then one node for each of the query's points, then
 * the points' tangent nodes; each circle's nodes in angular order with the clear arcs between
 * neighbours; the adjacency of all edges, both ways. */
typedef struct qgraph {
    nodes ns;
    int first_point; /* node of the query's first point */
    int *cstart;     /* nvert + 1 offsets into centries */
    centry *cent;    /* each circle's nodes by angle */
    unsigned char *cclear; /* the arc from cent[k] counter-clockwise to the next is clear */
    int *deg;        /* nn + 1 offsets into adj */
    dedge *adj;
} qgraph;

static void qgraph_free(qgraph *q)
{
    free(q->ns.a);
    free(q->cstart);
    free(q->cent);
    free(q->cclear);
    free(q->deg);
    free(q->adj);
    memset(q, 0, sizeof *q);
}

/* Builds the query graph for the points pts[0 .. npts-1] (which must be free): their own
 * straight segment when npts == 2, their tangents to every circle, and the arcs among all
 * nodes of each circle. Returns 0 when out of memory. */
static int qgraph_build(const nb_graph *g, const v2 *pts, int npts, qgraph *q)
{
    double r = g->r;
    uedges es = {0};
    int *qcount = NULL;
    memset(q, 0, sizeof *q);

    if (!grow((void **)&q->ns.a, &q->ns.cap, g->nnode + npts, sizeof(node)))
        goto fail;
    if (g->nnode > 0)
        memcpy(q->ns.a, g->node, (size_t)g->nnode * sizeof(node));
    q->ns.n = g->nnode;
    q->first_point = q->ns.n;
    for (int k = 0; k < npts; k++)
        push_node(&q->ns, pts[k], r, (v2){0, 0}, -1);
    for (int k = 0; k < g->nedge; k++)
        if (!push_uedge(&es, g->edge[k].a, g->edge[k].b, 0, -1, g->edge[k].len))
            goto fail;
    if (npts == 2 && seg_is_clear(g, pts[0], pts[1]) &&
        !push_uedge(&es, q->first_point, q->first_point + 1, 0, -1, len(sub(pts[1], pts[0]))))
        goto fail;
    int first_tangent = q->ns.n;
    for (int c = 0; c < g->nvert; c++)
        for (int e = 0; e < npts; e++) {
            v2 u[2];
            int nt = point_tangents(pts[e], g->vert[c], r, u);
            for (int k = 0; k < nt; k++) {
                v2 t = {g->vert[c].x + r * u[k].x, g->vert[c].y + r * u[k].y};
                if (!seg_is_clear(g, pts[e], t))
                    continue;
                int a = push_node(&q->ns, g->vert[c], r, u[k], c);
                if (a < 0 ||
                    !push_uedge(&es, q->first_point + e, a, 0, -1, len(sub(q->ns.a[a].p, pts[e]))))
                    goto fail;
            }
        }

    /* each circle's nodes, base and new, by angle */
    int nn = q->ns.n;
    q->cstart = calloc((size_t)g->nvert + 1, sizeof(int));
    qcount = calloc((size_t)g->nvert + 1, sizeof(int));
    q->cent = malloc((size_t)(nn + 1) * sizeof(centry));
    q->cclear = malloc((size_t)(nn + 1));
    if (!q->cstart || !qcount || !q->cent || !q->cclear)
        goto fail;
    for (int k = first_tangent; k < nn; k++)
        qcount[q->ns.a[k].circle]++;
    for (int c = 0; c < g->nvert; c++)
        q->cstart[c + 1] = q->cstart[c] + (g->circ_start[c + 1] - g->circ_start[c]) + qcount[c];
    for (int c = 0; c < g->nvert; c++) {
        int bs = g->circ_start[c], nbase = g->circ_start[c + 1] - bs;
        centry *ce = q->cent + q->cstart[c];
        for (int k = 0; k < nbase; k++)
            ce[k] = (centry){q->ns.a[g->circ_node[bs + k]].ang, g->circ_node[bs + k], k};
        qcount[c] = nbase; /* now the fill count */
    }
    for (int k = first_tangent; k < nn; k++) {
        int c = q->ns.a[k].circle;
        q->cent[q->cstart[c] + qcount[c]++] = (centry){q->ns.a[k].ang, k, -1};
    }

    /* the arcs between neighbours: a piece of a clear base arc is clear; the others are checked */
    for (int c = 0; c < g->nvert; c++) {
        int bs = g->circ_start[c], nbase = g->circ_start[c + 1] - bs;
        int mn = q->cstart[c + 1] - q->cstart[c];
        centry *ce = q->cent + q->cstart[c];
        unsigned char *cl = q->cclear + q->cstart[c];
        if (mn > nbase)
            qsort(ce, (size_t)mn, sizeof(centry), cmp_centry);
        int last = nbase - 1; /* the base arc that holds entry k: from the last base node */
        for (int k = 0; k < mn; k++) {
            if (ce[k].base_pos >= 0)
                last = ce[k].base_pos;
            int k1 = (k + 1) % mn;
            const node *na = &q->ns.a[ce[k].node], *nb = &q->ns.a[ce[k1].node];
            double span = k + 1 < mn ? nb->ang - na->ang : nb->ang + NB_TWO_PI - na->ang;
            if (ce[k].base_pos >= 0 && ce[k1].base_pos >= 0)
                cl[k] = g->circ_free[bs + ce[k].base_pos]; /* a base arc, unsplit */
            else if (last >= 0 && g->circ_free[bs + last])
                cl[k] = 1;
            else
                cl[k] = (unsigned char)arc_is_clear(g, c, na, nb, span);
            if (mn > 1 && cl[k] && !push_uedge(&es, ce[k].node, ce[k1].node, 1, c, r * span))
                goto fail;
        }
    }

    /* the adjacency, both ways */
    q->deg = calloc((size_t)nn + 1, sizeof(int));
    q->adj = malloc((size_t)(2 * es.n + 1) * sizeof(dedge));
    int *fill = calloc((size_t)nn + 1, sizeof(int));
    if (!q->deg || !q->adj || !fill) {
        free(fill);
        goto fail;
    }
    for (int k = 0; k < es.n; k++) {
        q->deg[es.a[k].a + 1]++;
        q->deg[es.a[k].b + 1]++;
    }
    for (int k = 0; k < nn; k++)
        q->deg[k + 1] += q->deg[k];
    for (int k = 0; k < es.n; k++) {
        const uedge *e = &es.a[k];
        q->adj[q->deg[e->a] + fill[e->a]++] = (dedge){e->b, e->kind, e->circle, e->len};
        q->adj[q->deg[e->b] + fill[e->b]++] = (dedge){e->a, -e->kind, e->circle, e->len};
    }
    free(fill);
    free(es.a);
    free(qcount);
    return 1;
fail:
    free(es.a);
    free(qcount);
    qgraph_free(q);
    return 0;
}

/* Dijkstra from node src until node stop is settled (stop -1: all). The arrays (nn entries
 * each) receive the distance (INFINITY when unreached) and, when pred is not NULL, the
 * predecessor, the kind of edge from it (0, +1, -1), its circle and its length. */
static int dijkstra(const qgraph *q, int src, int stop, double *dist, int *pred, int *pkind,
                    int *pcircle, double *plen)
{
    int nn = q->ns.n;
    heap h = {0};
    unsigned char *done = calloc((size_t)nn + 1, 1);
    if (!done)
        return 0;
    for (int k = 0; k < nn; k++)
        dist[k] = INFINITY;
    dist[src] = 0.0;
    if (!heap_push(&h, 0.0, src)) {
        free(done);
        return 0;
    }
    while (h.n > 0) {
        heap_item it = heap_pop(&h);
        if (done[it.n])
            continue;
        done[it.n] = 1;
        if (it.n == stop)
            break;
        for (int k = q->deg[it.n]; k < q->deg[it.n + 1]; k++) {
            const dedge *e = &q->adj[k];
            double nd = it.d + e->len;
            if (nd < dist[e->to]) {
                dist[e->to] = nd;
                if (pred) {
                    pred[e->to] = it.n;
                    pkind[e->to] = e->kind;
                    pcircle[e->to] = e->circle;
                    plen[e->to] = e->len;
                }
                if (!heap_push(&h, nd, e->to)) {
                    free(h.a);
                    free(done);
                    return 0;
                }
            }
        }
    }
    free(h.a);
    free(done);
    return 1;
}

int nb_query(const nb_graph *g, double sx, double sy, double gx, double gy, nb_path *out)
{
    memset(out, 0, sizeof *out);
    if (!finite2(sx, sy) || !finite2(gx, gy))
        return out->status = NB_BAD_INPUT;
    v2 pts[2] = {{sx, sy}, {gx, gy}};
    if (!endpoint_status(g, pts[0]))
        return out->status = NB_START_BLOCKED;
    if (!endpoint_status(g, pts[1]))
        return out->status = NB_GOAL_BLOCKED;
    if (sx == gx && sy == gy) {
        out->xy = malloc(2 * sizeof(double));
        out->legs = malloc(sizeof(nb_leg));
        if (!out->xy || !out->legs) {
            nb_path_free(out);
            return out->status = NB_NO_MEMORY;
        }
        out->xy[0] = sx;
        out->xy[1] = sy;
        out->n = 1;
        return out->status = NB_OK;
    }
    qgraph q;
    if (!qgraph_build(g, pts, 2, &q))
        return out->status = NB_NO_MEMORY;
    int nn = q.ns.n, is = q.first_point, ig = q.first_point + 1, status = NB_NO_MEMORY;
    double *dist = malloc((size_t)nn * sizeof(double)), *plen = malloc((size_t)nn * sizeof(double));
    int *pred = malloc((size_t)nn * sizeof(int)), *pkind = malloc((size_t)nn * sizeof(int));
    int *pcircle = malloc((size_t)nn * sizeof(int));
    if (dist && plen && pred && pkind && pcircle &&
        dijkstra(&q, is, ig, dist, pred, pkind, pcircle, plen)) {
        if (!isfinite(dist[ig]))
            status = NB_NO_PATH;
        else if (build_path(g, q.ns.a, pred, pkind, pcircle, plen, is, ig, out)) {
            out->length = dist[ig];
            status = NB_OK;
        }
    }
    if (status != NB_OK)
        nb_path_free(out);
    out->status = status;
    free(dist);
    free(plen);
    free(pred);
    free(pkind);
    free(pcircle);
    qgraph_free(&q);
    return status;
}

/* The distance from the goal to a start p through p's tangent point t on circle c (the node u
 * from the centre): t's angular neighbours among the circle's nodes of the goal's graph, each
 * reached from the goal in dist[], then the arc from the neighbour to t if it is clear (the
 * neighbours' own arc, when clear, holds both pieces), then the segment t-p. No other way
 * through t can be shorter: from t, p is reached by the straight segment. */
static double via_tangent(const nb_graph *g, const qgraph *q, const double *dist, int c, v2 u,
                          v2 p)
{
    int s = q->cstart[c], mn = q->cstart[c + 1] - s;
    if (mn == 0)
        return INFINITY;
    node t = {{g->vert[c].x + g->r * u.x, g->vert[c].y + g->r * u.y}, u, atan2(u.y, u.x), c};
    const centry *ce = q->cent + s;
    int k = 0; /* the first entry after t; t lies on the arc from entry k - 1 (cyclic) to k */
    while (k < mn && ce[k].ang <= t.ang)
        k++;
    int prev = (k + mn - 1) % mn, next = k % mn;
    const node *np = &q->ns.a[ce[prev].node], *nx = &q->ns.a[ce[next].node];
    double sp = t.ang - np->ang, sn = nx->ang - t.ang;
    if (sp < 0.0)
        sp += NB_TWO_PI;
    if (sn < 0.0)
        sn += NB_TWO_PI;
    int whole = q->cclear[s + prev];
    double best = INFINITY;
    if (isfinite(dist[ce[prev].node]) && (whole || arc_is_clear(g, c, np, &t, sp)))
        best = dist[ce[prev].node] + g->r * sp;
    if (isfinite(dist[ce[next].node]) && (whole || arc_is_clear(g, c, &t, nx, sn)) &&
        dist[ce[next].node] + g->r * sn < best)
        best = dist[ce[next].node] + g->r * sn;
    return best + len(sub(p, t.p));
}

int nb_distances(const nb_graph *g, int ngoals, const double *goal_xy, int n, const double *xy,
                 double *dist)
{
    if (ngoals < 1 || !goal_xy || n < 0 || (n > 0 && (!xy || !dist)))
        return NB_BAD_INPUT;
    for (int e = 0; e < ngoals; e++)
        if (!finite2(goal_xy[2 * e], goal_xy[2 * e + 1]))
            return NB_BAD_INPUT;
    for (int e = 0; e < ngoals; e++)
        if (!endpoint_status(g, (v2){goal_xy[2 * e], goal_xy[2 * e + 1]}))
            return NB_GOAL_BLOCKED;
    int status = NB_NO_MEMORY, built = 0;
    qgraph *q = calloc((size_t)ngoals, sizeof(qgraph));
    double **d = calloc((size_t)ngoals, sizeof(double *));
    v2 *tu = malloc((size_t)(2 * g->nvert + 1) * sizeof(v2)); /* a point's clear tangents */
    int *tc = malloc((size_t)(2 * g->nvert + 1) * sizeof(int));
    if (!q || !d || !tu || !tc)
        goto done;
    for (; built < ngoals; built++) {
        v2 goal = {goal_xy[2 * built], goal_xy[2 * built + 1]};
        if (!qgraph_build(g, &goal, 1, &q[built]))
            goto done;
        d[built] = malloc((size_t)q[built].ns.n * sizeof(double));
        if (!d[built] ||
            !dijkstra(&q[built], q[built].first_point, -1, d[built], NULL, NULL, NULL, NULL)) {
            built++;
            goto done;
        }
    }
    for (int k = 0; k < n; k++) {
        v2 p = {xy[2 * k], xy[2 * k + 1]};
        double *out = dist + (size_t)k * (size_t)ngoals;
        if (!finite2(p.x, p.y) || !endpoint_status(g, p)) {
            for (int e = 0; e < ngoals; e++)
                out[e] = NAN;
            continue;
        }
        int nt = 0;
        for (int c = 0; c < g->nvert; c++) {
            v2 u[2];
            int m = point_tangents(p, g->vert[c], g->r, u);
            for (int j = 0; j < m; j++) {
                v2 t = {g->vert[c].x + g->r * u[j].x, g->vert[c].y + g->r * u[j].y};
                if (seg_is_clear(g, p, t)) {
                    tu[nt] = u[j];
                    tc[nt++] = c;
                }
            }
        }
        for (int e = 0; e < ngoals; e++) {
            v2 goal = {goal_xy[2 * e], goal_xy[2 * e + 1]};
            double best = INFINITY;
            if (p.x == goal.x && p.y == goal.y)
                best = 0.0;
            else if (seg_is_clear(g, p, goal))
                best = len(sub(goal, p));
            for (int j = 0; j < nt; j++) {
                double v = via_tangent(g, &q[e], d[e], tc[j], tu[j], p);
                if (v < best)
                    best = v;
            }
            out[e] = best;
        }
    }
    status = NB_OK;
done:
    for (int e = 0; e < built; e++) {
        qgraph_free(&q[e]);
        free(d[e]);
    }
    free(q);
    free(d);
    free(tu);
    free(tc);
    return status;
}

int nb_shortest(const nb_seg *walls, int nwalls, const double *loop_xy, const int *loop_n,
                int nloops, double r, double sx, double sy, double gx, double gy,
                double *length, double *path_xy, int path_cap, int *path_n, int *arcs)
{
    nb_graph *g = NULL;
    int st = nb_prepare(walls, nwalls, loop_xy, loop_n, nloops, r, &g);
    if (st != NB_OK)
        return st;
    nb_path p;
    st = nb_query(g, sx, sy, gx, gy, &p);
    nb_free(g);
    if (length)
        *length = st == NB_OK ? p.length : 0.0;
    if (path_n)
        *path_n = st == NB_OK ? p.n : 0;
    if (arcs)
        *arcs = st == NB_OK ? p.arcs : 0;
    if (st == NB_OK && path_xy)
        for (int k = 0; k < p.n && k < path_cap; k++) {
            path_xy[2 * k] = p.xy[2 * k];
            path_xy[2 * k + 1] = p.xy[2 * k + 1];
        }
    nb_path_free(&p);
    return st;
}

const char *nb_status_name(int status)
{
    switch (status) {
    case NB_OK: return "NB_OK";
    case NB_NO_PATH: return "NB_NO_PATH";
    case NB_START_BLOCKED: return "NB_START_BLOCKED";
    case NB_GOAL_BLOCKED: return "NB_GOAL_BLOCKED";
    case NB_BAD_INPUT: return "NB_BAD_INPUT";
    case NB_NO_MEMORY: return "NB_NO_MEMORY";
    default: return "unknown";
    }
}
