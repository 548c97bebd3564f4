/* SPDX-License-Identifier: MIT */
/* The brute-force shortest-path oracle of the navigation tests (test/nav_brute.h) against
 * truth that does not come from it: closed forms (a straight line, a point obstacle, a square
 * pillar, a capsule, an L-bend, an S-curve through a gap), the statuses (blocked ends, a
 * closed room, a gap 2r +- 1e-9 wide, also 90 m from the origin, bad input), every returned
 * path checked with a distance written here (clearance of its straight legs exactly and of
 * 200 samples of every leg, inside the walkable area, continuous, smooth, its length),
 * symmetry (reversed queries, mirrored and rotated scenes), the triangle inequality, and a
 * roadmap of straight free segments between points around the corners (an independent upper
 * bound: the oracle must never be longer, and must come within 0.2% of it on the scenes, 0.5%
 * on random walls). Also: the scenes of test/nav_scenes.h load into a simulation, and
 * examples/floor.txt holds exactly the segments and exits of ns_floor. */
#include "nav_brute.h"
#include "nav_scenes.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orca/sim.h>

#define PI 3.14159265358979323846

/* ---- independent geometry (not nav_brute.c's) ------------------------------------------ */

typedef struct pt {
    double x, y;
} pt;

typedef struct segs {
    int n;
    pt a[NS_MAX_WALLS + NS_MAX_LOOP_POINTS], b[NS_MAX_WALLS + NS_MAX_LOOP_POINTS];
} segs;

/* Every obstacle segment of a scene: its walls, then its loop edges. */
static void scene_segs(const ns_scene *sc, segs *s)
{
    s->n = 0;
    for (int k = 0; k < sc->nwalls; k++) {
        s->a[s->n] = (pt){sc->walls[k].ax, sc->walls[k].ay};
        s->b[s->n++] = (pt){sc->walls[k].bx, sc->walls[k].by};
    }
    int base = 0;
    for (int l = 0; l < sc->nloops; l++) {
        int n = sc->loop_n[l];
        for (int k = 0; k < n; k++) {
            int j = (k + 1) % n;
            s->a[s->n] = (pt){sc->loop_xy[2 * (base + k)], sc->loop_xy[2 * (base + k) + 1]};
            s->b[s->n++] = (pt){sc->loop_xy[2 * (base + j)], sc->loop_xy[2 * (base + j) + 1]};
        }
        base += n;
    }
}

/* Nearest point of segment a-b to p, by the clamped parameter of the projection. */
static double pdist(pt p, pt a, pt b)
{
    double dx = b.x - a.x, dy = b.y - a.y;
    double l2 = dx * dx + dy * dy;
    double t = 0.0;
    if (l2 > 0.0) {
        t = ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2;
        t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    }
    double ex = a.x + t * dx - p.x, ey = a.y + t * dy - p.y;
    return sqrt(ex * ex + ey * ey);
}

static double clearance(const segs *s, pt p)
{
    double d = INFINITY;
    for (int k = 0; k < s->n; k++) {
        double e = pdist(p, s->a[k], s->b[k]);
        if (e < d)
            d = e;
    }
    return d;
}

/* Do the closed segments p-q and a-b meet? (Signs of the four orientations; collinear
 * touching is left to the distances, which are then ~0.) */
static int crosses(pt p, pt q, pt a, pt b)
{
    double d1 = (q.x - p.x) * (a.y - p.y) - (q.y - p.y) * (a.x - p.x);
    double d2 = (q.x - p.x) * (b.y - p.y) - (q.y - p.y) * (b.x - p.x);
    double d3 = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
    double d4 = (b.x - a.x) * (q.y - a.y) - (b.y - a.y) * (q.x - a.x);
    return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

/* Is every point of segment p-q at least r from every obstacle? */
static int segment_clear(const segs *s, pt p, pt q, double r)
{
    for (int k = 0; k < s->n; k++) {
        if (crosses(p, q, s->a[k], s->b[k]))
            return 0;
        if (pdist(p, s->a[k], s->b[k]) < r || pdist(q, s->a[k], s->b[k]) < r ||
            pdist(s->a[k], p, q) < r || pdist(s->b[k], p, q) < r)
            return 0;
    }
    return 1;
}

/* Inside the walkable area: even-odd ray casting over the loops (the scenes' loops are simple
 * and nested one level, so even-odd and the winding rule agree); without loops, everywhere. */
static int inside(const ns_scene *sc, pt p)
{
    if (sc->nloops == 0)
        return 1;
    int in = 0, base = 0;
    for (int l = 0; l < sc->nloops; l++) {
        int n = sc->loop_n[l];
        for (int k = 0; k < n; k++) {
            int j = (k + 1) % n;
            double ax = sc->loop_xy[2 * (base + k)], ay = sc->loop_xy[2 * (base + k) + 1];
            double bx = sc->loop_xy[2 * (base + j)], by = sc->loop_xy[2 * (base + j) + 1];
            if ((ay > p.y) != (by > p.y) && p.x < ax + (p.y - ay) * (bx - ax) / (by - ay))
                in = !in;
        }
        base += n;
    }
    return in;
}

/* The unit direction of travel of leg k of a path at its start (end = 0) or end (end = 1). */
static pt leg_dir(const nb_path *p, int k, int end)
{
    pt a = {p->xy[2 * k], p->xy[2 * k + 1]}, b = {p->xy[2 * k + 2], p->xy[2 * k + 3]};
    const nb_leg *l = &p->legs[k];
    if (l->arc == 0) {
        double d = hypot(b.x - a.x, b.y - a.y);
        return (pt){(b.x - a.x) / d, (b.y - a.y) / d};
    }
    pt q = end ? b : a;
    double rx = q.x - l->cx, ry = q.y - l->cy, d = hypot(rx, ry);
    return (pt){-l->arc * ry / d, l->arc * rx / d};
}

/* The angle an arc leg turns through, from its points and its direction, in [0, 2 pi). */
static double arc_span(const nb_path *p, int k)
{
    const nb_leg *l = &p->legs[k];
    double a0 = atan2(p->xy[2 * k + 1] - l->cy, p->xy[2 * k] - l->cx);
    double a1 = atan2(p->xy[2 * k + 3] - l->cy, p->xy[2 * k + 2] - l->cx);
    double s = l->arc > 0 ? a1 - a0 : a0 - a1;
    while (s < 0)
        s += 2 * PI;
    return s;
}

/* Checks a path found for (s, g) at radius r in the scene, independently of how it was found:
 * it starts at s and ends at g; straight legs and arcs of radius r join up; at every inner
 * point the direction of travel goes on smoothly (a shortest path has no corner); the legs'
 * lengths are their geometry's and add up to the length; every straight leg is at least
 * r - tol from every obstacle (segment_clear), and 200 samples of every leg are too, and inside
 * the walkable area. */
static int check_path(const ns_scene *sc, const segs *s, double r, double tol, double sx,
                      double sy, double gx, double gy, const nb_path *p)
{
    ENSURE(p->status == NB_OK && p->n >= 1);
    ENSURE(p->xy[0] == sx && p->xy[1] == sy);
    ENSURE(p->xy[2 * p->n - 2] == gx && p->xy[2 * p->n - 1] == gy);
    double total = 0.0;
    int arcs = 0;
    for (int k = 0; k + 1 < p->n; k++) {
        const nb_leg *l = &p->legs[k];
        pt a = {p->xy[2 * k], p->xy[2 * k + 1]}, b = {p->xy[2 * k + 2], p->xy[2 * k + 3]};
        ENSURE(l->arc == 0 || l->arc == 1 || l->arc == -1);
        double span = 0.0;
        if (l->arc) {
            arcs++;
            ENSURE_NEAR(hypot(a.x - l->cx, a.y - l->cy), r, 1e-9);
            ENSURE_NEAR(hypot(b.x - l->cx, b.y - l->cy), r, 1e-9);
            span = arc_span(p, k);
            ENSURE_NEAR(l->length, r * span, 1e-9);
        } else {
            ENSURE_NEAR(l->length, hypot(b.x - a.x, b.y - a.y), 1e-9);
            ENSURE_MSG(segment_clear(s, a, b, r - tol), "%s: leg %d within r - tol of a wall",
                       sc->name, k);
        }
        total += l->length;
        double a0 = atan2(a.y - l->cy, a.x - l->cx);
        for (int i = 0; i <= 200; i++) {
            double t = i / 200.0;
            pt q;
            if (l->arc) {
                double ang = a0 + l->arc * t * span;
                q = (pt){l->cx + r * cos(ang), l->cy + r * sin(ang)};
            } else {
                q = (pt){a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};
            }
            double c = clearance(s, q);
            ENSURE_MSG(c >= r - tol, "%s: leg %d sample %d at (%.17g, %.17g): clearance %.17g, r %g",
                       sc->name, k, i, q.x, q.y, c, r);
            ENSURE_MSG(inside(sc, q), "%s: leg %d sample %d at (%.17g, %.17g) outside", sc->name,
                       k, i, q.x, q.y);
        }
        if (k > 0) {
            pt d0 = leg_dir(p, k - 1, 1), d1 = leg_dir(p, k, 0);
            ENSURE_MSG(d0.x * d1.x + d0.y * d1.y >= 1 - 1e-6, "%s: corner at point %d", sc->name,
                       k);
        }
    }
    ENSURE(arcs == p->arcs);
    ENSURE_NEAR(total, p->length, 1e-9 * (1 + p->length));
    return 0;
}

/* ---- closed forms ------------------------------------------------------------------------ */

static double query(const nb_seg *walls, int nwalls, const double *loop_xy, const int *loop_n,
                    int nloops, double r, double sx, double sy, double gx, double gy,
                    int *status, int *arcs)
{
    double l = -1;
    *status = nb_shortest(walls, nwalls, loop_xy, loop_n, nloops, r, sx, sy, gx, gy, &l, NULL,
                          0, NULL, arcs);
    return l;
}

static int test_open_straight(void)
{
    int st, arcs;
    double l = query(NULL, 0, NULL, NULL, 0, 0.5, 0, 0, 3, 4, &st, &arcs);
    ENSURE(st == NB_OK && arcs == 0);
    ENSURE_NEAR(l, 5.0, 1e-15);
    /* a wall beside the line, exactly r away, does not bend it */
    nb_seg w = {-10, 1, 10, 1};
    l = query(&w, 1, NULL, NULL, 0, 0.5, -5, 0.5, 5, 0.5, &st, &arcs);
    ENSURE(st == NB_OK && arcs == 0);
    ENSURE_NEAR(l, 10.0, 1e-15);
    double xy[8];
    int n = 0;
    ENSURE(nb_shortest(&w, 1, NULL, NULL, 0, 0.5, -5, 0, 5, 0, &l, xy, 4, &n, &arcs) == NB_OK);
    ENSURE(n == 2 && xy[0] == -5 && xy[1] == 0 && xy[2] == 5 && xy[3] == 0);
    /* start == goal */
    l = query(&w, 1, NULL, NULL, 0, 0.5, 2, 0, 2, 0, &st, &arcs);
    ENSURE(st == NB_OK && l == 0.0 && arcs == 0);
    return 0;
}

/* Around one point obstacle c from s to g (the line between them passing within r of c):
 * sqrt(ds^2 - r^2) + sqrt(dg^2 - r^2) + r (theta - acos(r/ds) - acos(r/dg)), theta the angle
 * between s - c and g - c; on the reflex side (around a corner whose walls take the other
 * side), 2 pi - theta in place of theta. */
static double around(double r, pt c, pt s, pt g, int reflex)
{
    double sx = s.x - c.x, sy = s.y - c.y, gx = g.x - c.x, gy = g.y - c.y;
    double ds = hypot(sx, sy), dg = hypot(gx, gy);
    double theta = acos((sx * gx + sy * gy) / (ds * dg));
    if (reflex)
        theta = 2 * PI - theta;
    return sqrt(ds * ds - r * r) + sqrt(dg * dg - r * r) + r * (theta - acos(r / ds) - acos(r / dg));
}

static int test_point_obstacle(void)
{
    /* a zero-length wall is a point obstacle */
    const double cases[][6] = {
        /* r, cx, cy, s, g */
        {0.5, 0, 0, -4, 0},
        {0.5, 0, 0, -4, 0.3},
        {1.0, 2, 3, -7, 3.5},
        {0.25, -1, 1, -1.5, 0.8},
        {2.0, 10, -20, -30, -19},
    };
    const double goals[][2] = {{4, 0}, {5, -0.2}, {9, 2}, {-0.3, 1.1}, {40, -20.5}};
    for (int k = 0; k < 5; k++) {
        double r = cases[k][0];
        pt c = {cases[k][1], cases[k][2]}, s = {cases[k][3], cases[k][4]};
        pt g = {goals[k][0], goals[k][1]};
        nb_seg w = {c.x, c.y, c.x, c.y};
        int st, arcs;
        double l = query(&w, 1, NULL, NULL, 0, r, s.x, s.y, g.x, g.y, &st, &arcs);
        double want = around(r, c, s, g, 0);
        ENSURE_MSG(st == NB_OK && arcs == 1, "case %d: %s, %d arcs", k, nb_status_name(st), arcs);
        ENSURE_MSG(fabs(l - want) <= 1e-12 * want, "case %d: %.17g, closed form %.17g", k, l, want);
    }
    return 0;
}

/* A square pillar of half-side a around the origin, from (-d, 0) to (d, 0): over two corners,
 * 2 (sqrt(q^2 - r^2) + r (pi/2 + atan(a/(d - a)) - acos(r/q))) + 2a, q = |(d - a, a)|. */
static int test_square_pillar(void)
{
    const double rs[] = {0.25, 0.5, 1.0};
    for (int i = 0; i < 3; i++) {
        double r = rs[i], a = 1.0, d = 6.0;
        double q = hypot(d - a, a);
        double want = 2 * (sqrt(q * q - r * r) + r * (PI / 2 + atan(a / (d - a)) - acos(r / q))) + 2 * a;
        /* as a clockwise hole in a counter-clockwise room */
        const double xy[] = {-10, -10, 10, -10, 10, 10, -10, 10, -a, -a, -a, a, a, a, a, -a};
        const int n[] = {4, 4};
        int st, arcs;
        double l = query(NULL, 0, xy, n, 2, r, -d, 0, d, 0, &st, &arcs);
        ENSURE_MSG(st == NB_OK && arcs == 2, "r %g: %s, %d arcs", r, nb_status_name(st), arcs);
        ENSURE_MSG(fabs(l - want) <= 1e-12 * want, "r %g: %.17g, closed form %.17g", r, l, want);
        /* as four wall segments */
        const nb_seg w[] = {{-a, -a, a, -a}, {a, -a, a, a}, {a, a, -a, a}, {-a, a, -a, -a}};
        l = query(w, 4, NULL, NULL, 0, r, -d, 0, d, 0, &st, &arcs);
        ENSURE(st == NB_OK && arcs == 2);
        ENSURE_MSG(fabs(l - want) <= 1e-12 * want, "walls, r %g: %.17g, closed form %.17g", r, l, want);
        /* from the pillar's diagonal: around one corner only */
        l = query(w, 4, NULL, NULL, 0, r, -d, -0.9 * d, 0.9 * d, d, &st, &arcs);
        want = around(r, (pt){-a, a}, (pt){-d, -0.9 * d}, (pt){0.9 * d, d}, 1);
        ENSURE(st == NB_OK && arcs == 1);
        ENSURE_MSG(fabs(l - want) <= 1e-12 * want, "diagonal, r %g: %.17g vs %.17g", r, l, want);
    }
    return 0;
}

/* One wall (0, -h)-(0, h), from (-d, 0) to (d, 0): around an end,
 * 2 sqrt(d^2 + h^2 - r^2) + r (pi + 2 atan(h/d) - 2 acos(r / |(d, h)|)). */
static int test_capsule(void)
{
    const double hs[] = {0.5, 2.0, 5.0};
    for (int i = 0; i < 3; i++) {
        double r = 0.4, h = hs[i], d = 3.0, q = hypot(d, h);
        double want = 2 * sqrt(q * q - r * r) + r * (PI + 2 * atan(h / d) - 2 * acos(r / q));
        nb_seg w = {0, -h, 0, h};
        int st, arcs;
        double l = query(&w, 1, NULL, NULL, 0, r, -d, 0, d, 0, &st, &arcs);
        ENSURE(st == NB_OK && arcs == 1);
        ENSURE_MSG(fabs(l - want) <= 1e-12 * want, "h %g: %.17g, closed form %.17g", h, l, want);
        /* along the wall's side at exactly r: the straight side of the capsule */
        l = query(&w, 1, NULL, NULL, 0, r, -r, -h - 3, -r, h + 3, &st, &arcs);
        ENSURE(st == NB_OK && arcs == 0);
        ENSURE_NEAR(l, 2 * h + 6, 1e-12);
    }
    return 0;
}

/* The L-bend of ns_bend: from s around the reflex corner c = (16, 4) to g (around(), the
 * reflex side: straight + r theta + straight). */
static int test_l_bend(void)
{
    ns_scene sc;
    ns_bend(&sc);
    const double q[][4] = {{2, 2, 18, 18}, {1.5, 1.2, 17.2, 18.5}, {3, 3.5, 19.5, 6}};
    for (int k = 0; k < 3; k++) {
        double r = sc.radius;
        pt c = {16, 4}, s = {q[k][0], q[k][1]}, g = {q[k][2], q[k][3]};
        double want = around(r, c, s, g, 1);
        int st, arcs;
        double l = query(NULL, 0, sc.loop_xy, sc.loop_n, sc.nloops, r, s.x, s.y, g.x, g.y, &st, &arcs);
        ENSURE(st == NB_OK && arcs == 1);
        ENSURE_MSG(fabs(l - want) <= 1e-12 * want, "pair %d: %.17g, closed form %.17g", k, l, want);
    }
    return 0;
}

/* ns_gap: passable at 2r + 1e-9 and at exactly 2r (free space is closed), not at 2r - 1e-9;
 * the straight line through the gap's middle is 10; the S-curve from (5, 2) to (15, 8) agrees
 * with its closed form for touching circles (within 1e-8: the 1e-9 of extra width changes it
 * by O(1e-9)). Also 90 m from the origin. */
static void shift_scene(ns_scene *sc, double dx, double dy)
{
    for (int k = 0; k < sc->nwalls; k++) {
        sc->walls[k].ax += dx;
        sc->walls[k].bx += dx;
        sc->walls[k].ay += dy;
        sc->walls[k].by += dy;
    }
    int np = 0;
    for (int l = 0; l < sc->nloops; l++)
        np += sc->loop_n[l];
    for (int k = 0; k < np; k++) {
        sc->loop_xy[2 * k] += dx;
        sc->loop_xy[2 * k + 1] += dy;
    }
    for (int k = 0; k < sc->npairs; k++) {
        sc->pairs[k].sx += dx;
        sc->pairs[k].gx += dx;
        sc->pairs[k].sy += dy;
        sc->pairs[k].gy += dy;
    }
}

static int test_gap(void)
{
    for (int far = 0; far < 2; far++)
        for (int w = -1; w <= 1; w++) {
            ns_scene sc;
            ns_gap(1.0 + w * 1e-9, &sc);
            double r = sc.radius, off = far ? 90.0 : 0.0;
            shift_scene(&sc, off, off);
            nb_graph *g;
            ENSURE(ns_prepare(&sc, r, &g) == NB_OK);
            for (int k = 0; k < sc.npairs; k++) {
                const ns_pair *p = &sc.pairs[k];
                nb_path path;
                int st = nb_query(g, p->sx, p->sy, p->gx, p->gy, &path);
                ENSURE_MSG(st == p->expect, "width 2r%+g, far %d, pair %d: %s, expected %s",
                           w * 1e-9, far, k, nb_status_name(st), nb_status_name(p->expect));
                ENSURE(p->expect == (k == 4 || w >= 0 ? NB_OK : NB_NO_PATH));
                nb_path_free(&path);
            }
            if (w >= 0) {
                nb_path path;
                ENSURE(nb_query(g, off + 5, off + 5, off + 15, off + 5, &path) == NB_OK);
                ENSURE_NEAR(path.length, 10.0, 1e-12);
                nb_path_free(&path);
                /* the S-curve: around A = (10, 5 - r) clockwise to its top, then around
                 * B = (10, 5 + r) counter-clockwise; symmetric about (10, 5) */
                pt a = {10, 5 - r}, s = {5, 2};
                double ds = hypot(s.x - a.x, s.y - a.y);
                double theta = atan2(s.y - a.y, s.x - a.x) + 2 * PI - acos(r / ds) - PI / 2;
                double want = 2 * (sqrt(ds * ds - r * r) + r * theta);
                ENSURE(nb_query(g, off + 5, off + 2, off + 15, off + 8, &path) == NB_OK);
                ENSURE_MSG(fabs(path.length - want) <= 1e-8, "S-curve %.17g, closed form %.17g",
                           path.length, want);
                ENSURE(path.arcs == 2);
                nb_path_free(&path);
            }
            nb_free(g);
        }
    return 0;
}

/* ---- statuses ---------------------------------------------------------------------------- */

static int test_blocked(void)
{
    ns_scene sc;
    ns_bend(&sc);
    nb_graph *g;
    double r = sc.radius;
    ENSURE(ns_prepare(&sc, r, &g) == NB_OK);
    nb_path p;
    ENSURE(nb_query(g, 2, 0.2, 18, 18, &p) == NB_START_BLOCKED);           /* 0.2 from a wall */
    ENSURE(nb_query(g, 18, 18, 2, 0.2, &p) == NB_GOAL_BLOCKED);
    ENSURE(nb_query(g, 2, 0.2, 2, 3.9, &p) == NB_START_BLOCKED);           /* both */
    ENSURE(nb_query(g, 2, 2, 10, 10, &p) == NB_GOAL_BLOCKED);              /* outside the L */
    ENSURE(nb_query(g, -5, 2, 2, 2, &p) == NB_START_BLOCKED);              /* outside */
    ENSURE(nb_query(g, 2, 2, 0, 2, &p) == NB_GOAL_BLOCKED);                /* on an edge */
    ENSURE(nb_query(g, 2, 2, 16 + r * 0.6, 4 - r * 0.6, &p) == NB_GOAL_BLOCKED); /* corner */
    ENSURE(p.n == 0 && p.xy == NULL);
    /* exactly r from the walls is free (closed free space) */
    ENSURE(nb_query(g, r, 2, 20 - r, 20 - r, &p) == NB_OK);
    ENSURE(p.xy[0] == r && p.xy[1] == 2);
    nb_path_free(&p);
    ENSURE(nb_query(g, 2, r, 2, 4 - r, &p) == NB_OK);
    ENSURE_NEAR(p.length, 4 - 2 * r, 1e-15);
    nb_path_free(&p);
    nb_free(g);
    /* a point outside the building is fine without loops */
    int st, arcs;
    nb_seg w = {0, 0, 1, 0};
    query(&w, 1, NULL, NULL, 0, 0.5, 0.5, 0.4, 5, 5, &st, &arcs);
    ENSURE(st == NB_START_BLOCKED);
    query(&w, 1, NULL, NULL, 0, 0.5, 50, 50, -50, -50, &st, &arcs);
    ENSURE(st == NB_OK);
    return 0;
}

static int test_closed_room(void)
{
    ns_scene sc;
    ns_rooms(&sc);
    nb_graph *g;
    ENSURE(ns_prepare(&sc, sc.radius, &g) == NB_OK);
    nb_path p;
    /* into the closet, out of it, and inside it */
    ENSURE(nb_query(g, 4, 10, 18.5, 10.5, &p) == NB_NO_PATH);
    ENSURE(nb_query(g, 18.5, 10.5, 2, 2, &p) == NB_NO_PATH);
    ENSURE(p.n == 0 && p.xy == NULL && p.legs == NULL);
    ENSURE(nb_query(g, 18.5, 10.5, 19, 11.5, &p) == NB_OK);
    nb_path_free(&p);
    nb_free(g);
    /* a room whose only door is narrower than 2r */
    ENSURE(ns_prepare(&sc, 0.61, &g) == NB_OK);
    ENSURE(nb_query(g, 2, 2, 18, 2, &p) == NB_NO_PATH);
    ENSURE(nb_query(g, 2, 2, 4, 11, &p) == NB_OK);
    nb_path_free(&p);
    /* the position helpers */
    ENSURE_NEAR(nb_clearance(g, 2, 3), 2.0, 1e-15);
    ENSURE(nb_clearance(g, 8, 1) == 0.0);
    ENSURE(nb_walkable(g, 2, 3) && nb_walkable(g, 18.5, 10.5) && !nb_walkable(g, -1, 3));
    nb_free(g);
    ENSURE(nb_prepare(NULL, 0, NULL, NULL, 0, 1.0, &g) == NB_OK);
    ENSURE(nb_clearance(g, 0, 0) == INFINITY && nb_walkable(g, 1e6, -1e6));
    nb_free(g);
    return 0;
}

static int test_bad_input(void)
{
    nb_graph *g = (nb_graph *)&g;
    nb_seg w = {0, 0, 1, 0};
    const double xy[] = {0, 0, 4, 0, 4, 4, 0, 4};
    const int n4[] = {4}, n2[] = {2};
    const double rs[] = {0.0, -1.0, NAN, INFINITY, -0.0, 1e-300};
    for (int k = 0; k < 6; k++) {
        ENSURE(nb_prepare(&w, 1, NULL, NULL, 0, rs[k], &g) == NB_BAD_INPUT);
        ENSURE(g == NULL);
    }
    nb_seg bad = {0, NAN, 1, 0};
    ENSURE(nb_prepare(&bad, 1, NULL, NULL, 0, 0.5, &g) == NB_BAD_INPUT);
    bad = (nb_seg){0, 0, INFINITY, 0};
    ENSURE(nb_prepare(&bad, 1, NULL, NULL, 0, 0.5, &g) == NB_BAD_INPUT);
    ENSURE(nb_prepare(&w, -1, NULL, NULL, 0, 0.5, &g) == NB_BAD_INPUT);
    ENSURE(nb_prepare(NULL, 1, NULL, NULL, 0, 0.5, &g) == NB_BAD_INPUT);
    ENSURE(nb_prepare(NULL, 0, xy, n2, 1, 0.5, &g) == NB_BAD_INPUT);
    ENSURE(nb_prepare(NULL, 0, NULL, n4, 1, 0.5, &g) == NB_BAD_INPUT);
    double xyn[8];
    memcpy(xyn, xy, sizeof xyn);
    xyn[5] = NAN;
    ENSURE(nb_prepare(NULL, 0, xyn, n4, 1, 0.5, &g) == NB_BAD_INPUT);
    ENSURE(nb_prepare(NULL, 0, xy, n4, 1, 0.5, &g) == NB_OK);
    nb_path p;
    ENSURE(nb_query(g, NAN, 1, 2, 2, &p) == NB_BAD_INPUT);
    ENSURE(nb_query(g, 1, 1, 2, INFINITY, &p) == NB_BAD_INPUT);
    ENSURE(nb_query(g, 1, 1, 3, 3, &p) == NB_OK);
    ENSURE_NEAR(p.length, sqrt(8.0), 1e-15);
    nb_path_free(&p);
    const double goal[] = {3, 3}, nan_goal[] = {3, NAN}, from[] = {1, 1, NAN, 0, 0.1, 2};
    double d[3] = {-1, -1, -1};
    ENSURE(nb_distances(g, 0, goal, 1, from, d) == NB_BAD_INPUT);
    ENSURE(nb_distances(g, 1, nan_goal, 1, from, d) == NB_BAD_INPUT);
    ENSURE(nb_distances(g, 1, goal, -1, from, d) == NB_BAD_INPUT);
    ENSURE(nb_distances(g, 1, goal, 1, NULL, d) == NB_BAD_INPUT && d[0] == -1);
    ENSURE(nb_distances(g, 1, goal, 3, from, d) == NB_OK);
    ENSURE_NEAR(d[0], sqrt(8.0), 1e-15);
    ENSURE(isnan(d[1]) && isnan(d[2])); /* not finite; 0.1 from a wall */
    nb_free(g);
    return 0;
}

/* ---- the scenes -------------------------------------------------------------------------- */

typedef void (*scene_fn)(ns_scene *);
static void gap_wide(ns_scene *sc) { ns_gap(1.0 + 1e-9, sc); }
static void gap_narrow(ns_scene *sc) { ns_gap(1.0 - 1e-9, sc); }
static const scene_fn scenes[] = {ns_maze, ns_bend, ns_rooms, ns_pillars, gap_wide, gap_narrow, ns_floor};
#define NSCENES ((int)(sizeof scenes / sizeof scenes[0]))

static int swapped(int st)
{
    return st == NB_START_BLOCKED ? NB_GOAL_BLOCKED : st == NB_GOAL_BLOCKED ? NB_START_BLOCKED : st;
}

/* Every scene's pairs: the expected status, the path checked by sampling, the same length
 * backwards; prints the lengths. */
static int test_scene_pairs(void)
{
    static ns_scene sc;
    static segs s;
    for (int i = 0; i < NSCENES; i++) {
        scenes[i](&sc);
        scene_segs(&sc, &s);
        nb_graph *g;
        ENSURE(ns_prepare(&sc, sc.radius, &g) == NB_OK);
        printf("  %s (r %g): %d vertices, %d tangent nodes\n", sc.name, sc.radius,
               nb_vertex_count(g), nb_node_count(g));
        for (int k = 0; k < sc.npairs; k++) {
            const ns_pair *q = &sc.pairs[k];
            nb_path p, b;
            int st = nb_query(g, q->sx, q->sy, q->gx, q->gy, &p);
            ENSURE_MSG(st == q->expect, "%s pair %d: %s, expected %s", sc.name, k,
                       nb_status_name(st), nb_status_name(q->expect));
            int sb = nb_query(g, q->gx, q->gy, q->sx, q->sy, &b);
            ENSURE(sb == swapped(st));
            printf("    (%g, %g) -> (%g, %g): %s", q->sx, q->sy, q->gx, q->gy, nb_status_name(st));
            if (st == NB_OK) {
                printf(" %.15g m, %d points, %d arcs", p.length, p.n, p.arcs);
                if (check_path(&sc, &s, sc.radius, nb_tolerance(g), q->sx, q->sy, q->gx, q->gy, &p))
                    return 1;
                if (check_path(&sc, &s, sc.radius, nb_tolerance(g), q->gx, q->gy, q->sx, q->sy, &b))
                    return 1;
                ENSURE_MSG(fabs(p.length - b.length) <= 1e-12 * p.length, "%s pair %d: %.17g back %.17g",
                           sc.name, k, p.length, b.length);
                ENSURE(p.length >= hypot(q->gx - q->sx, q->gy - q->sy) * (1 - 1e-15));
            }
            printf("\n");
            nb_path_free(&p);
            nb_path_free(&b);
        }
        nb_free(g);
    }
    /* the maze's long way has several turns */
    ns_maze(&sc);
    nb_path p;
    nb_graph *g;
    ENSURE(ns_prepare(&sc, sc.radius, &g) == NB_OK);
    ENSURE(nb_query(g, 1, 1, 1, 9, &p) == NB_OK && p.arcs >= 6);
    nb_path_free(&p);
    nb_free(g);
    return 0;
}

/* Mirrored (x -> -x, loops reversed to keep their sense) and rotated (x, y) -> (-y, x) scenes
 * give the same lengths. */
static void transform(ns_scene *sc, int mirror)
{
#define MAP(x, y)                                                                              \
    do {                                                                                       \
        double t_ = (x);                                                                       \
        if (mirror) {                                                                          \
            (x) = -t_;                                                                         \
        } else {                                                                               \
            (x) = -(y);                                                                        \
            (y) = t_;                                                                          \
        }                                                                                      \
    } while (0)
    for (int k = 0; k < sc->nwalls; k++) {
        MAP(sc->walls[k].ax, sc->walls[k].ay);
        MAP(sc->walls[k].bx, sc->walls[k].by);
    }
    int base = 0;
    for (int l = 0; l < sc->nloops; l++) {
        int n = sc->loop_n[l];
        for (int k = 0; k < n; k++)
            MAP(sc->loop_xy[2 * (base + k)], sc->loop_xy[2 * (base + k) + 1]);
        if (mirror)
            for (int k = 0; k < n / 2; k++)
                for (int c = 0; c < 2; c++) {
                    double t = sc->loop_xy[2 * (base + k) + c];
                    sc->loop_xy[2 * (base + k) + c] = sc->loop_xy[2 * (base + n - 1 - k) + c];
                    sc->loop_xy[2 * (base + n - 1 - k) + c] = t;
                }
        base += n;
    }
    for (int k = 0; k < sc->npairs; k++) {
        MAP(sc->pairs[k].sx, sc->pairs[k].sy);
        MAP(sc->pairs[k].gx, sc->pairs[k].gy);
    }
#undef MAP
}

static int test_symmetry(void)
{
    static ns_scene sc, tc;
    for (int i = 0; i < NSCENES; i++)
        for (int mirror = 0; mirror < 2; mirror++) {
            scenes[i](&sc);
            tc = sc;
            transform(&tc, mirror);
            nb_graph *g, *h;
            ENSURE(ns_prepare(&sc, sc.radius, &g) == NB_OK);
            ENSURE(ns_prepare(&tc, tc.radius, &h) == NB_OK);
            for (int k = 0; k < sc.npairs; k++) {
                const ns_pair *a = &sc.pairs[k], *b = &tc.pairs[k];
                nb_path p, q;
                int st = nb_query(g, a->sx, a->sy, a->gx, a->gy, &p);
                ENSURE_MSG(nb_query(h, b->sx, b->sy, b->gx, b->gy, &q) == st, "%s %s pair %d",
                           sc.name, mirror ? "mirrored" : "rotated", k);
                if (st == NB_OK)
                    ENSURE_MSG(fabs(p.length - q.length) <= 1e-12 * p.length,
                               "%s %s pair %d: %.17g vs %.17g", sc.name,
                               mirror ? "mirrored" : "rotated", k, p.length, q.length);
                nb_path_free(&p);
                nb_path_free(&q);
            }
            nb_free(g);
            nb_free(h);
        }
    return 0;
}

/* Random free points of a scene (at least r + 1e-6 from every obstacle, inside). */
static int random_points(const ns_scene *sc, const segs *s, double r, test_rng *rng, pt *out,
                         int n, double x0, double y0, double x1, double y1)
{
    int k = 0;
    for (int tries = 0; k < n && tries < 1000 * n; tries++) {
        pt p = {test_rng_uniform(rng, x0, x1), test_rng_uniform(rng, y0, y1)};
        if (clearance(s, p) >= r + 1e-6 && inside(sc, p))
            out[k++] = p;
    }
    return k;
}

static void bounds(const segs *s, double *x0, double *y0, double *x1, double *y1)
{
    *x0 = *y0 = INFINITY;
    *x1 = *y1 = -INFINITY;
    for (int k = 0; k < s->n; k++) {
        pt e[2] = {s->a[k], s->b[k]};
        for (int j = 0; j < 2; j++) {
            *x0 = fmin(*x0, e[j].x);
            *y0 = fmin(*y0, e[j].y);
            *x1 = fmax(*x1, e[j].x);
            *y1 = fmax(*y1, e[j].y);
        }
    }
}

/* L(a, c) <= L(a, b) + L(b, c), L(a, b) >= |a - b|, and being connected is transitive, over
 * random free points of every scene. */
static int test_triangle(void)
{
    static ns_scene sc;
    static segs s;
    test_rng rng = {28};
    enum { K = 10 };
    for (int i = 0; i < NSCENES; i++) {
        scenes[i](&sc);
        scene_segs(&sc, &s);
        double x0, y0, x1, y1;
        bounds(&s, &x0, &y0, &x1, &y1);
        pt p[K];
        ENSURE(random_points(&sc, &s, sc.radius, &rng, p, K, x0, y0, x1, y1) == K);
        nb_graph *g;
        ENSURE(ns_prepare(&sc, sc.radius, &g) == NB_OK);
        double L[K][K];
        for (int a = 0; a < K; a++)
            for (int b = 0; b < K; b++) {
                nb_path q;
                int st = nb_query(g, p[a].x, p[a].y, p[b].x, p[b].y, &q);
                ENSURE(st == NB_OK || st == NB_NO_PATH);
                L[a][b] = st == NB_OK ? q.length : INFINITY;
                if (st == NB_OK) {
                    ENSURE(q.length >= hypot(p[b].x - p[a].x, p[b].y - p[a].y) * (1 - 1e-15));
                    if (check_path(&sc, &s, sc.radius, nb_tolerance(g), p[a].x, p[a].y, p[b].x,
                                   p[b].y, &q))
                        return 1;
                }
                nb_path_free(&q);
            }
        for (int a = 0; a < K; a++)
            for (int b = 0; b < K; b++)
                for (int c = 0; c < K; c++) {
                    if (isfinite(L[a][b]) && isfinite(L[b][c]))
                        ENSURE_MSG(L[a][c] <= L[a][b] + L[b][c] + 1e-9,
                                   "%s: %d %d %d: %.17g > %.17g + %.17g", sc.name, a, b, c,
                                   L[a][c], L[a][b], L[b][c]);
                }
        nb_free(g);
    }
    return 0;
}

/* nb_distances (one Dijkstra from the goal for many starts) gives nb_query's lengths: for the
 * goals of every scene's pairs, from random free points, the pairs' starts and a blocked point
 * (an obstacle vertex: NAN); INFINITY where nb_query finds no path. */
static int test_distances(void)
{
    static ns_scene sc;
    static segs s;
    test_rng rng = {77};
    enum { K = 24 };
    int compared = 0;
    for (int i = 0; i < NSCENES; i++) {
        scenes[i](&sc);
        scene_segs(&sc, &s);
        double x0, y0, x1, y1;
        bounds(&s, &x0, &y0, &x1, &y1);
        pt p[K + NS_MAX_PAIRS + 1];
        int n = random_points(&sc, &s, sc.radius, &rng, p, K, x0, y0, x1, y1);
        for (int k = 0; k < sc.npairs; k++)
            p[n++] = (pt){sc.pairs[k].sx, sc.pairs[k].sy};
        p[n++] = s.a[0];
        nb_graph *g;
        ENSURE(ns_prepare(&sc, sc.radius, &g) == NB_OK);
        /* every goal at once, and the goals that are free at once */
        double goals[2 * NS_MAX_PAIRS];
        int ng = 0, free_goal[NS_MAX_PAIRS];
        for (int k = 0; k < sc.npairs; k++) {
            goals[2 * k] = sc.pairs[k].gx;
            goals[2 * k + 1] = sc.pairs[k].gy;
            if (sc.pairs[k].expect != NB_GOAL_BLOCKED)
                free_goal[ng++] = k;
        }
        static double d[(K + NS_MAX_PAIRS + 1) * NS_MAX_PAIRS];
        int st = nb_distances(g, sc.npairs, goals, n, &p[0].x, d);
        ENSURE(st == (ng < sc.npairs ? NB_GOAL_BLOCKED : NB_OK));
        for (int e = 0; e < ng; e++) {
            goals[2 * e] = sc.pairs[free_goal[e]].gx;
            goals[2 * e + 1] = sc.pairs[free_goal[e]].gy;
        }
        ENSURE(nb_distances(g, ng, goals, n, &p[0].x, d) == NB_OK);
        for (int e = 0; e < ng; e++) {
            const ns_pair *q = &sc.pairs[free_goal[e]];
            int k = free_goal[e];
            for (int j = 0; j < n; j++) {
                double dj = d[j * ng + e];
                nb_path path;
                int sq = nb_query(g, p[j].x, p[j].y, q->gx, q->gy, &path);
                if (sq == NB_OK) {
                    ENSURE_MSG(fabs(dj - path.length) <= 1e-12 * path.length,
                               "%s goal %d point %d: %.17g, nb_query %.17g", sc.name, k, j, dj,
                               path.length);
                    compared++;
                } else if (sq == NB_NO_PATH) {
                    ENSURE(dj == INFINITY);
                } else {
                    ENSURE(sq == NB_START_BLOCKED && isnan(dj));
                }
                nb_path_free(&path);
            }
        }
        nb_free(g);
    }
    printf("  %d lengths compared\n", compared);
    return 0;
}

/* ---- a roadmap: an independent upper bound ---------------------------------------------- */

/* A visibility graph of sample points: the queries' ends, points around every obstacle
 * vertex (corner_points) and a few random free points; edges: the pairs closer than reach
 * whose straight segment is at least r from every obstacle (segment_clear, written here). Any
 * roadmap path is a polyline in the free space, so its length is >= the shortest; with the
 * corner points it comes within a fraction of a percent (the 32-gons' sides against the arcs,
 * 1 - cos(pi/32), about 0.5%, on the arcs alone). */
typedef struct roadmap {
    int n;
    pt *p;
    int *start, *to;
    double *w;
} roadmap;

static int roadmap_build(roadmap *m, const segs *s, const pt *pts, int n, double r, double reach)
{
    m->n = n;
    m->p = malloc((size_t)n * sizeof(pt));
    m->start = calloc((size_t)n + 1, sizeof(int));
    int cap = 1 << 16, ne = 0;
    int *from = malloc((size_t)cap * sizeof(int));
    m->to = malloc((size_t)cap * sizeof(int));
    m->w = malloc((size_t)cap * sizeof(double));
    if (!m->p || !m->start || !from || !m->to || !m->w)
        return 0;
    memcpy(m->p, pts, (size_t)n * sizeof(pt));
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b)
                continue;
            double d = hypot(pts[b].x - pts[a].x, pts[b].y - pts[a].y);
            if (d > reach || (b < a) || !segment_clear(s, pts[a], pts[b], r))
                continue;
            if (ne + 2 > cap) {
                cap *= 2;
                from = realloc(from, (size_t)cap * sizeof(int));
                m->to = realloc(m->to, (size_t)cap * sizeof(int));
                m->w = realloc(m->w, (size_t)cap * sizeof(double));
                if (!from || !m->to || !m->w)
                    return 0;
            }
            from[ne] = a, m->to[ne] = b, m->w[ne++] = d;
            from[ne] = b, m->to[ne] = a, m->w[ne++] = d;
        }
    /* sort the edges by their source (counting sort) */
    int *to = malloc((size_t)(ne + 1) * sizeof(int));
    double *w = malloc((size_t)(ne + 1) * sizeof(double));
    int *fill = calloc((size_t)n, sizeof(int));
    if (!to || !w || !fill)
        return 0;
    for (int e = 0; e < ne; e++)
        m->start[from[e] + 1]++;
    for (int k = 0; k < n; k++)
        m->start[k + 1] += m->start[k];
    for (int e = 0; e < ne; e++) {
        int at = m->start[from[e]] + fill[from[e]]++;
        to[at] = m->to[e];
        w[at] = m->w[e];
    }
    free(from);
    free(fill);
    free(m->to);
    free(m->w);
    m->to = to;
    m->w = w;
    return 1;
}

/* Dijkstra over the roadmap (a simple O(n^2) scan). */
static double roadmap_dist(const roadmap *m, int a, int b)
{
    double *d = malloc((size_t)m->n * sizeof(double));
    char *done = calloc((size_t)m->n, 1);
    for (int k = 0; k < m->n; k++)
        d[k] = INFINITY;
    d[a] = 0;
    for (;;) {
        int u = -1;
        for (int k = 0; k < m->n; k++)
            if (!done[k] && isfinite(d[k]) && (u < 0 || d[k] < d[u]))
                u = k;
        if (u < 0 || u == b)
            break;
        done[u] = 1;
        for (int e = m->start[u]; e < m->start[u + 1]; e++)
            if (d[u] + m->w[e] < d[m->to[e]])
                d[m->to[e]] = d[u] + m->w[e];
    }
    double r = d[b];
    free(d);
    free(done);
    return r;
}

static void roadmap_free(roadmap *m)
{
    free(m->p);
    free(m->start);
    free(m->to);
    free(m->w);
}

static int cmp_pt(const void *pa, const void *pb)
{
    const pt *a = pa, *b = pb;
    return a->x != b->x ? (a->x < b->x ? -1 : 1) : (a->y != b->y ? (a->y < b->y ? -1 : 1) : 0);
}

/* The roadmap's corner points, after the n points already in pts (at most cap in all): around
 * every distinct obstacle vertex, the corners of a regular 32-gon whose sides are at least r
 * from the vertex (so that the path around the corner along them is clear), the points r
 * (1 + 1e-6) from it square to each segment that ends there (so that the path along a wall's
 * side at r is there too), and points in the narrow passages next to it (below); the ones that
 * are free and inside. Returns the new count. */
static int corner_points(const ns_scene *sc, const segs *s, double r, pt *pts, int n, int cap)
{
    enum { K = 32 };
    pt *v = malloc((size_t)(2 * s->n + 1) * sizeof(pt));
    if (!v)
        return n;
    for (int k = 0; k < s->n; k++) {
        v[2 * k] = s->a[k];
        v[2 * k + 1] = s->b[k];
    }
    qsort(v, (size_t)(2 * s->n), sizeof(pt), cmp_pt);
    double rk = r * (1 + 1e-6) / cos(PI / K);
    for (int k = 0; k < 2 * s->n; k++) {
        if (k > 0 && cmp_pt(&v[k - 1], &v[k]) == 0)
            continue;
        for (int a = 0; a < K && n < cap; a++) {
            pt q = {v[k].x + rk * cos(2 * PI * a / K), v[k].y + rk * sin(2 * PI * a / K)};
            if (clearance(s, q) >= r && inside(sc, q))
                pts[n++] = q;
        }
        for (int j = 0; j < s->n; j++) {
            pt e = s->a[j], f = s->b[j];
            if (cmp_pt(&e, &v[k]) != 0) {
                e = s->b[j];
                f = s->a[j];
            }
            double l = hypot(f.x - e.x, f.y - e.y);
            if (cmp_pt(&e, &v[k]) != 0 || l == 0)
                continue;
            for (int side = -1; side <= 1; side += 2) {
                double d = r * (1 + 1e-6) * side / l;
                pt q = {e.x - d * (f.y - e.y), e.y + d * (f.x - e.x)};
                if (n < cap && clearance(s, q) >= r && inside(sc, q))
                    pts[n++] = q;
            }
        }
        /* narrow passages: where a segment passes 2r to 4r from the vertex, the points r (1 +
         * 1e-6) from the vertex and from the segment on the line between their nearest points */
        for (int j = 0; j < s->n; j++) {
            pt e = s->a[j], f = s->b[j];
            if (cmp_pt(&e, &v[k]) == 0 || cmp_pt(&f, &v[k]) == 0)
                continue;
            double fx = f.x - e.x, fy = f.y - e.y, l2 = fx * fx + fy * fy;
            double t = l2 > 0 ? ((v[k].x - e.x) * fx + (v[k].y - e.y) * fy) / l2 : 0;
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            pt q = {e.x + t * fx, e.y + t * fy};
            double d = hypot(q.x - v[k].x, q.y - v[k].y);
            if (d < 2 * r || d > 4 * r)
                continue;
            double u = r * (1 + 1e-6) / d;
            pt m[2] = {{v[k].x + u * (q.x - v[k].x), v[k].y + u * (q.y - v[k].y)},
                       {q.x + u * (v[k].x - q.x), q.y + u * (v[k].y - q.y)}};
            for (int i = 0; i < 2; i++)
                if (n < cap && clearance(s, m[i]) >= r && inside(sc, m[i]))
                    pts[n++] = m[i];
        }
    }
    free(v);
    return n;
}

static int test_roadmap(void)
{
    static ns_scene sc;
    static segs s;
    static pt pts[8000];
    test_rng rng = {2028};
    /* (not the 2r + 1e-9 gap: a roadmap passes it only along its middle line) */
    const scene_fn which[] = {ns_maze, ns_bend, ns_rooms, ns_pillars, gap_narrow, ns_floor};
    const int counts[] = {50, 50, 50, 50, 50, 100};
    for (int i = 0; i < 6; i++) {
        which[i](&sc);
        scene_segs(&sc, &s);
        double r = sc.radius, x0, y0, x1, y1;
        bounds(&s, &x0, &y0, &x1, &y1);
        int n = 0;
        for (int k = 0; k < sc.npairs; k++) {
            pts[n++] = (pt){sc.pairs[k].sx, sc.pairs[k].sy};
            pts[n++] = (pt){sc.pairs[k].gx, sc.pairs[k].gy};
        }
        n = corner_points(&sc, &s, r, pts, n, 8000);
        n += random_points(&sc, &s, r, &rng, pts + n, counts[i] < 8000 - n ? counts[i] : 8000 - n,
                           x0, y0, x1, y1);
        roadmap m;
        ENSURE(roadmap_build(&m, &s, pts, n, r, INFINITY));
        nb_graph *g;
        ENSURE(ns_prepare(&sc, r, &g) == NB_OK);
        double worst = 0;
        for (int k = 0; k < sc.npairs; k++) {
            const ns_pair *q = &sc.pairs[k];
            if (q->expect != NB_OK && q->expect != NB_NO_PATH)
                continue;
            double rm = roadmap_dist(&m, 2 * k, 2 * k + 1);
            nb_path p;
            int st = nb_query(g, q->sx, q->sy, q->gx, q->gy, &p);
            if (st == NB_NO_PATH) {
                ENSURE_MSG(!isfinite(rm), "%s pair %d: no path, but the roadmap has %.17g",
                           sc.name, k, rm);
                continue;
            }
            ENSURE(st == NB_OK);
            ENSURE_MSG(isfinite(rm), "%s pair %d: the roadmap found no path (%.17g)", sc.name, k,
                       p.length);
            ENSURE_MSG(p.length <= rm + 1e-9, "%s pair %d: %.17g, roadmap %.17g", sc.name, k,
                       p.length, rm);
            ENSURE_MSG(rm <= 1.002 * p.length, "%s pair %d: %.17g, roadmap %.17g", sc.name, k,
                       p.length, rm);
            if (rm / p.length - 1 > worst)
                worst = rm / p.length - 1;
            nb_path_free(&p);
        }
        printf("  %s: roadmap of %d nodes, at most %.2f%% longer\n", sc.name, n, 100 * worst);
        nb_free(g);
        roadmap_free(&m);
    }
    return 0;
}

/* Random scenes: walls of random length and direction (some of them points), sometimes inside
 * a counter-clockwise room with clockwise square holes, at random radii; random free pairs.
 * Every path is checked (check_path) and against the roadmap: never longer than it, at most
 * 0.5% shorter, and connected whenever it connects (the roadmap may miss a passage only a
 * little wider than 2r: counted, not failed). NAV_BRUTE_STRESS=N in the environment runs N
 * scenes instead of 6. */
static int test_random_scenes(void)
{
    static ns_scene sc;
    static segs s;
    static pt pts[4000];
    test_rng rng = {282828};
    const char *env = getenv("NAV_BRUTE_STRESS");
    int nscenes = env ? atoi(env) : 6;
    double worst = 0;
    int compared = 0, unconnected = 0;
    for (int i = 0; i < nscenes; i++) {
        memset(&sc, 0, sizeof sc);
        sc.name = "random";
        sc.radius = test_rng_uniform(&rng, 0.15, 0.8);
        int loops = test_rng_next(&rng) % 2;
        if (loops) {
            const double room[] = {0, 0, 20, 0, 20, 20, 0, 20};
            memcpy(sc.loop_xy, room, sizeof room);
            sc.loop_n[sc.nloops++] = 4;
            int holes = (int)(test_rng_next(&rng) % 4);
            for (int h = 0; h < holes; h++) {
                /* in a column of its own, so that holes never overlap (test inside()'s
                 * even-odd rule is the winding rule only for loops that do not) */
                double cx = 2.0 + 4.0 * h + test_rng_uniform(&rng, 1.5, 2.5);
                double cy = test_rng_uniform(&rng, 3, 17);
                double e = test_rng_uniform(&rng, 0.3, 1.5);
                const double sq[] = {cx - e, cy - e, cx - e, cy + e, cx + e, cy + e, cx + e, cy - e};
                memcpy(sc.loop_xy + 8 * sc.nloops, sq, sizeof sq);
                sc.loop_n[sc.nloops++] = 4;
            }
        }
        int nw = 4 + (int)(test_rng_next(&rng) % 10);
        for (int k = 0; k < nw; k++) {
            double ax = test_rng_uniform(&rng, 1, 19), ay = test_rng_uniform(&rng, 1, 19);
            double l = test_rng_next(&rng) % 8 == 0 ? 0.0 : test_rng_uniform(&rng, 0.5, 7);
            double a = test_rng_uniform(&rng, 0, 2 * PI);
            /* a quarter of the walls start at an earlier wall's end: corners and chains */
            if (k > 0 && test_rng_next(&rng) % 4 == 0) {
                ax = sc.walls[k - 1].bx;
                ay = sc.walls[k - 1].by;
            }
            sc.walls[sc.nwalls++] = (nb_seg){ax, ay, ax + l * cos(a), ay + l * sin(a)};
        }
        scene_segs(&sc, &s);
        double r = sc.radius;
        int n = random_points(&sc, &s, r, &rng, pts, 8, 0, 0, 20, 20);
        sc.npairs = n / 2;
        for (int k = 0; k < sc.npairs; k++)
            sc.pairs[k] = (ns_pair){pts[2 * k].x, pts[2 * k].y, pts[2 * k + 1].x, pts[2 * k + 1].y, NB_OK};
        n = corner_points(&sc, &s, r, pts, n, 4000);
        /* (walls reach out of the room when there is none) */
        n += random_points(&sc, &s, r, &rng, pts + n, 100, -4, -4, 24, 24);
        roadmap m;
        ENSURE(roadmap_build(&m, &s, pts, n, r, INFINITY));
        nb_graph *g;
        ENSURE(ns_prepare(&sc, r, &g) == NB_OK);
        for (int k = 0; k < sc.npairs; k++) {
            const ns_pair *q = &sc.pairs[k];
            nb_path p;
            int st = nb_query(g, q->sx, q->sy, q->gx, q->gy, &p);
            ENSURE_MSG(st == NB_OK || st == NB_NO_PATH, "scene %d pair %d: %s", i, k,
                       nb_status_name(st));
            double rm = roadmap_dist(&m, 2 * k, 2 * k + 1);
            if (st == NB_NO_PATH) {
                ENSURE_MSG(!isfinite(rm), "scene %d pair %d: no path, roadmap %.17g", i, k, rm);
                continue;
            }
            if (check_path(&sc, &s, r, nb_tolerance(g), q->sx, q->sy, q->gx, q->gy, &p))
                return 1;
            if (isfinite(rm)) {
                ENSURE_MSG(p.length <= rm + 1e-9 && rm <= 1.005 * p.length,
                           "scene %d pair %d: %.17g, roadmap %.17g", i, k, p.length, rm);
                compared++;
                if (rm / p.length - 1 > worst)
                    worst = rm / p.length - 1;
            } else {
                unconnected++;
            }
            nb_path_free(&p);
        }
        nb_free(g);
        roadmap_free(&m);
    }
    printf("  %d scenes: %d paths compared, roadmap at most %.2f%% longer; %d the roadmap missed\n",
           nscenes, compared, 100 * worst, unconnected);
    return 0;
}

/* ---- the scenes outside the oracle ------------------------------------------------------ */

static int test_scenes_load(void)
{
    static ns_scene sc;
    for (int i = 0; i < NSCENES; i++) {
        scenes[i](&sc);
        orca_sim_def d = orca_sim_def_default();
        orca_sim *sim = NULL;
        ENSURE(orca_sim_create(&d, &sim) == ORCA_OK);
        ENSURE_MSG(ns_add_to_sim(&sc, sim) == ORCA_OK, "%s: %s", sc.name, orca_sim_last_error(sim));
        ENSURE(orca_sim_segment_count(sim) == sc.nwalls);
        ENSURE(orca_sim_boundary_count(sim) == sc.nloops);
        orca_sim_destroy(sim);
    }
    return 0;
}

/* examples/floor.txt holds ns_floor: its `segment` lines are ns_floor's walls in order, its
 * `# exit NAME X Y` lines the scene's points, and it has no other obstacle statement. */
static int test_floor_file(void)
{
    static ns_scene sc;
    ns_floor(&sc);
    FILE *f = fopen(ORCA_EXAMPLES_DIR "/floor.txt", "r");
    ENSURE_MSG(f != NULL, "cannot open %s", ORCA_EXAMPLES_DIR "/floor.txt");
    char line[512];
    int nseg = 0, nexit = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char word[64], name[64];
        double v[4];
        if (sscanf(line, " # exit %63s %lf %lf", name, &v[0], &v[1]) == 3) {
            ENSURE_MSG(nexit < sc.npoints, "floor.txt:%d: more exits than ns_floor's %d", lineno,
                       sc.npoints);
            ENSURE_MSG(strcmp(name, sc.points[nexit].name) == 0 && v[0] == sc.points[nexit].x &&
                           v[1] == sc.points[nexit].y,
                       "floor.txt:%d: exit %s (%g, %g), ns_floor has %s (%g, %g)", lineno, name,
                       v[0], v[1], sc.points[nexit].name, sc.points[nexit].x, sc.points[nexit].y);
            nexit++;
            continue;
        }
        if (sscanf(line, " %63s", word) != 1 || word[0] == '#')
            continue;
        ENSURE_MSG(strcmp(word, "polyline") && strcmp(word, "polygon") && strcmp(word, "boundary"),
                   "floor.txt:%d: '%s' (ns_floor reads segment lines only)", lineno, word);
        if (strcmp(word, "segment") != 0)
            continue;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char rest[8];
        ENSURE_MSG(sscanf(line, " segment %lf %lf %lf %lf %7s", &v[0], &v[1], &v[2], &v[3], rest) == 4,
                   "floor.txt:%d: a segment line of 4 numbers", lineno);
        ENSURE_MSG(nseg < sc.nwalls, "floor.txt:%d: more segments than ns_floor's %d", lineno, sc.nwalls);
        const nb_seg *w = &sc.walls[nseg];
        ENSURE_MSG(v[0] == w->ax && v[1] == w->ay && v[2] == w->bx && v[3] == w->by,
                   "floor.txt:%d: segment %g %g %g %g, ns_floor's wall %d is %g %g %g %g", lineno,
                   v[0], v[1], v[2], v[3], nseg, w->ax, w->ay, w->bx, w->by);
        nseg++;
    }
    fclose(f);
    ENSURE_MSG(nseg == sc.nwalls, "floor.txt has %d segments, ns_floor %d", nseg, sc.nwalls);
    ENSURE_MSG(nexit == sc.npoints, "floor.txt has %d exits, ns_floor %d", nexit, sc.npoints);
    return 0;
}

/* The floor plan at three more radii: every exit is reachable from every room at 0.25 and
 * 0.45 (doors of 1 m let 0.45 through), and at 0.55 from every room but S4, whose only door is
 * 1 m wide. */
static int test_floor_exits(void)
{
    static ns_scene sc;
    ns_floor(&sc);
    const pt rooms[] = {{7, 5}, {21, 5}, {35, 5}, {49, 5}, {7, 31}, {21, 31}, {35, 31}, {49, 31}, {13.5, 18}, {42.5, 18}};
    const double rs[] = {0.25, 0.45, 0.55};
    for (int i = 0; i < 3; i++) {
        nb_graph *g;
        ENSURE(ns_prepare(&sc, rs[i], &g) == NB_OK);
        for (int k = 0; k < 10; k++)
            for (int e = 0; e < sc.npoints; e++) {
                nb_path p;
                int st = nb_query(g, rooms[k].x, rooms[k].y, sc.points[e].x, sc.points[e].y, &p);
                /* at 0.55, the 1 m door of room S4 (its only one) is shut; room N4 has
                 * another door, to N3 */
                int want = rs[i] < 0.5 || k != 3 ? NB_OK : NB_NO_PATH;
                ENSURE_MSG(st == want, "r %g, room %d, exit %s: %s", rs[i], k, sc.points[e].name,
                           nb_status_name(st));
                nb_path_free(&p);
            }
        nb_free(g);
    }
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"open_straight", test_open_straight},
    {"point_obstacle", test_point_obstacle},
    {"square_pillar", test_square_pillar},
    {"capsule", test_capsule},
    {"l_bend", test_l_bend},
    {"gap", test_gap},
    {"blocked", test_blocked},
    {"closed_room", test_closed_room},
    {"bad_input", test_bad_input},
    {"scene_pairs", test_scene_pairs},
    {"symmetry", test_symmetry},
    {"triangle", test_triangle},
    {"distances", test_distances},
    {"roadmap", test_roadmap},
    {"random_scenes", test_random_scenes},
    {"scenes_load", test_scenes_load},
    {"floor_file", test_floor_file},
    {"floor_exits", test_floor_exits},
    {0, 0},
};
