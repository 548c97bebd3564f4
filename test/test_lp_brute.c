/* SPDX-License-Identifier: MIT */
/* The linear programs of docs/algorithm.md §8 to §10 against vertex-enumeration brute force:
 * on more than 10^5 random constraint sets each program must give the optimum when the set
 * is feasible, and the fallback the smallest largest penetration when it is not.
 *
 * 125,000 random sets in four families (random_feasible 50,000: made feasible by a witness;
 * random_infeasible 40,000: caps, mostly infeasible, a feasible hard prefix of 0..3;
 * random_degenerate 25,000: nearly parallel (sine 1e-3 .. 1e-15.5), exactly parallel and
 * anti-parallel, tangent and edge-crossing half-planes; hard_prefix_infeasible 10,000: the
 * program fails inside the hard prefix), 1..10 constraints, R from 0.01 to 100, p inside,
 * on and outside the disc and 0. Per set (check_set, judge):
 *
 *  1. orca_lp_solve. Classification: it fails exactly at the first index i whose prefix
 *     0..i is infeasible. Judged with the brute-force value M(i) = max over |v| <= R of
 *     min over k <= i of g_k(v) (M >= 0 exactly when the prefix is feasible) and a margin:
 *     prefixes with |M| <= margin are near-degenerate (a perturbation of the size of the
 *     rounding changes the answer, e.g. algorithm.md §8.3's 1e-12 parallel rule calls a sliver
 *     1e-13 wide infeasible) and are counted as not judged. Feasible: the result is feasible
 *     within tol and equals the brute-force closest point. Failed: the velocity held
 *     (choice 6) is the brute-force closest point of the prefix before the failing index.
 *  2. orca_lp_solve_direction with a random direction (15% exactly +-N_k, for the d.N = 0
 *     branch) over the same region: classification as above, feasibility, and v.dir equal
 *     to the brute-force maximum (positions are not compared: the optimum of a linear
 *     objective need not be unique).
 *  3. orca_solve: the same failing index as orca_lp_solve, the same bits as orca_lp_solve
 *     (feasible) or as orca_lp_fallback (failed), scratch not written beyond count; after a
 *     failure the fallback's smallest signed distance over the soft constraints equals the
 *     brute-force max-min, with the result inside the disc and the hard half-planes (or,
 *     when the program failed inside the hard prefix, the max-min over the hard prefix alone
 *     with nothing hard).
 *  4. A transcription of the programs of algorithm.md §8 to §10 (ref_*) gives the library's
 *     bits on every set. The library deviates from the brute force on some degenerate sets, in
 *     two ways that algorithm.md prescribes (choice 11; hand_parallel_rule_same_direction,
 *     hand_vertex_on_later_line): such a set is accepted only if changing exactly that rule of
 *     the transcription makes every check pass; it is counted and the first one is printed. Any
 *     other deviation fails the test.
 *
 * Tolerances. scale = R + max|P_k| + |p| bounds every coordinate of the data and of every
 * candidate, so a rounding costs about 1e-16 * scale.
 *   acc = 1e-14 * scale: the brute force accepts a candidate that violates a constraint or
 *         the disc by at most this. Its candidates are computed parametrically (a point of
 *         one line plus t times its direction), so their residual against their own defining
 *         lines is a few ulp of scale at any crossing angle; the brute force starts to miss
 *         optima below 3e-16 * scale (measured), so 1e-14 leaves a factor 30. A smaller acc
 *         makes the brute force more exact (an accepted candidate may lie acc/s beyond a
 *         vertex whose lines cross with sine s).
 *   tol = 1e-9 * scale: the comparison tolerance of a well-conditioned answer and the
 *         allowed violation of any result (algorithm.md §8.3's parallel rule may leave up to
 *         1e-12 * 2R). Far above rounding, far below any real error of the algorithm (a
 *         wrong vertex or a missed constraint is off by an amount of the order of the data).
 *   act = 1e-11 * scale: a constraint within act of an optimum counts as active there
 *         (covers acc and the parallel rule's 2e-12 * R).
 *   margin = tol, for the classification.
 *   Conditioning. A vertex where two active lines cross with sine s is determined only to
 *   (rounding or acc)/s: the solver's t = -num/denom and the brute force's acceptance can
 *   both move along the thin wedge by that much. The allowed error is therefore
 *   E = tol + 4 * acc / s_min, s_min the smallest sine among the active pairs at the
 *   brute-force optimum and at the result (exactly parallel pairs, sine 0, are left out: the
 *   programs handle them exactly; a line-circle pair uses the crossing angle at the point,
 *   floored at sqrt(acc/scale) = 1e-7, because a tangent line moves by a square root).
 *   Pairs with sine <= 1e-12 are in algorithm.md §8.3's parallel rule: see "Conditioning at a
 *   point". For a generic set s_min is of order 1 and E ~ tol. The printed statistics give,
 *   per check, the largest error over the well-conditioned sets (s_min >= 1e-3), the
 *   largest error * s_min / scale (the conditioning-free size of the error, a few ulp when
 *   both computations are right) and the largest error / E.
 *
 * Hand-made cases with answers derived in comments are at the end. */
#include "test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <orca/solver.h>

#define MAXK 12
#define GUARD 4

/* ---------------------------------------------------------------------------------------
 * Small vector helpers (the test's own, evaluated as written; -ffp-contract=off)
 * ------------------------------------------------------------------------------------- */

static orca_vec2 vv(double x, double y)
{
    orca_vec2 v = {x, y};
    return v;
}
static orca_vec2 vadd(orca_vec2 a, orca_vec2 b) { return vv(a.x + b.x, a.y + b.y); }
static orca_vec2 vsub(orca_vec2 a, orca_vec2 b) { return vv(a.x - b.x, a.y - b.y); }
static orca_vec2 vmul(orca_vec2 a, double s) { return vv(a.x * s, a.y * s); }
static double vdot(orca_vec2 a, orca_vec2 b) { return a.x * b.x + a.y * b.y; }
static double vcross(orca_vec2 a, orca_vec2 b) { return a.x * b.y - a.y * b.x; }
static double vlen(orca_vec2 a) { return sqrt(vdot(a, a)); }
static orca_vec2 vperp(orca_vec2 n) { return vv(-n.y, n.x); }
static double g_of(orca_halfplane h, orca_vec2 v) { return vdot(vsub(v, h.point), h.normal); }

/* ---------------------------------------------------------------------------------------
 * A constraint set and its tolerances
 * ------------------------------------------------------------------------------------- */

typedef struct lpset {
    int n;    /* constraints */
    int hard; /* hard prefix */
    double R;
    orca_vec2 p;
    orca_halfplane h[MAXK];
} lpset;

typedef struct tols {
    double scale, tol, acc, act, margin, sfloor;
} tols;

static tols make_tols(const lpset *s)
{
    double mx = 0;
    for (int k = 0; k < s->n; ++k) {
        double l = vlen(s->h[k].point);
        if (l > mx) {
            mx = l;
        }
    }
    tols t;
    t.scale = s->R + mx + vlen(s->p);
    t.tol = 1e-9 * t.scale;
    t.acc = 1e-14 * t.scale;
    t.act = 1e-11 * t.scale;
    t.margin = t.tol;
    t.sfloor = sqrt(1e-14); /* sqrt(acc / scale) */
    return t;
}

static double budget(const tols *t, double s)
{
    return t->tol + 4.0 * t->acc / s;
}

static void dump_set(const lpset *s)
{
    fprintf(stderr, "  set: n = %d, hard = %d, R = %a, p = (%a, %a)\n", s->n, s->hard, s->R,
            s->p.x, s->p.y);
    for (int k = 0; k < s->n; ++k) {
        fprintf(stderr, "  h[%d] = {point (%a, %a), normal (%a, %a)}\n", k, s->h[k].point.x,
                s->h[k].point.y, s->h[k].normal.x, s->h[k].normal.y);
    }
}

#define CHECK(c, ...)                                                                  \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #c);      \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
            dump_set(s);                                                               \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

/* ---------------------------------------------------------------------------------------
 * Brute force
 * ------------------------------------------------------------------------------------- */

/* A line {v : (v - q).n = 0}, n a unit normal, d = (-n.y, n.x) its direction. */
typedef struct bline {
    orca_vec2 q, n, d;
} bline;

static bline bl_plane(orca_halfplane h)
{
    bline b;
    b.q = h.point;
    b.n = h.normal;
    b.d = vperp(h.normal);
    return b;
}

/* The bisector g_k(v) = g_l(v): v.(N_k - N_l) = P_k.N_k - P_l.N_l. Its normal points to
 * where g_k > g_l. Returns 0 when N_k == N_l (no line). */
static int bl_bisector(orca_halfplane hk, orca_halfplane hl, bline *out)
{
    orca_vec2 m = vsub(hk.normal, hl.normal);
    double len = vlen(m);
    if (!(len > 0)) {
        return 0;
    }
    double c = (vdot(hk.point, hk.normal) - vdot(hl.point, hl.normal)) / len;
    out->n = vmul(m, 1.0 / len);
    out->q = vmul(out->n, c);
    out->d = vperp(out->n);
    return 1;
}

/* Intersection, parametric on a: the result lies on a to rounding, and on b to a few ulp
 * of the data (g_b = num + t*den with t = -num/den). */
static int bl_meet(bline a, bline b, orca_vec2 *v)
{
    double den = vdot(a.d, b.n);
    if (den == 0) {
        return 0;
    }
    double t = -vdot(vsub(a.q, b.q), b.n) / den;
    *v = vadd(a.q, vmul(a.d, t));
    return isfinite(v->x) && isfinite(v->y);
}

/* Intersections with the circle |v| = R, through the foot of the perpendicular (a
 * different formula from the solver's). A line outside the circle by at most acc counts as
 * tangent (one point, the foot). */
static int bl_circle(bline a, double R, double acc, orca_vec2 out[2])
{
    orca_vec2 f = vsub(a.q, vmul(a.d, vdot(a.q, a.d)));
    double h2 = R * R - vdot(f, f);
    if (!(h2 >= 0)) {
        if (!(h2 >= -2.0 * R * acc)) {
            return 0;
        }
        out[0] = f;
        return 1;
    }
    double hh = sqrt(h2);
    out[0] = vadd(f, vmul(a.d, hh));
    out[1] = vsub(f, vmul(a.d, hh));
    return 2;
}

static orca_vec2 bl_project(bline a, orca_vec2 p)
{
    return vsub(p, vmul(a.n, vdot(vsub(p, a.q), a.n)));
}

/* Inside the disc and planes[0..count) within acc. */
static int bf_inside(const orca_halfplane *h, int count, double R, orca_vec2 v, double acc)
{
    if (!(vlen(v) <= R + acc)) {
        return 0;
    }
    for (int k = 0; k < count; ++k) {
        if (!(g_of(h[k], v) >= -acc)) {
            return 0;
        }
    }
    return 1;
}

typedef struct bf_best {
    int found;
    double value; /* closest: distance to p (minimized); others: maximized */
    orca_vec2 v;
} bf_best;

static void bf_closest_consider(bf_best *b, const lpset *s, int count, orca_vec2 v, double acc)
{
    if (!bf_inside(s->h, count, s->R, v, acc)) {
        return;
    }
    double f = vlen(vsub(v, s->p));
    if (!b->found || f < b->value) {
        b->found = 1;
        b->value = f;
        b->v = v;
    }
}

/* The point of {|v| <= R} and planes[0..count) closest to p: candidates p, p/|p|*R, the
 * projection of p on each line, each line-line and each line-circle intersection. */
static bf_best bf_closest(const lpset *s, int count, double acc)
{
    bf_best b = {0, 0, {0, 0}};
    bf_closest_consider(&b, s, count, s->p, acc);
    double lp = vlen(s->p);
    if (lp > 0) {
        bf_closest_consider(&b, s, count, vmul(s->p, s->R / lp), acc);
    }
    for (int k = 0; k < count; ++k) {
        bline a = bl_plane(s->h[k]);
        orca_vec2 c[2];
        bf_closest_consider(&b, s, count, bl_project(a, s->p), acc);
        int nc = bl_circle(a, s->R, acc, c);
        for (int i = 0; i < nc; ++i) {
            bf_closest_consider(&b, s, count, c[i], acc);
        }
        for (int l = 0; l < k; ++l) {
            orca_vec2 v;
            if (bl_meet(a, bl_plane(s->h[l]), &v)) {
                bf_closest_consider(&b, s, count, v, acc);
            }
            if (bl_meet(bl_plane(s->h[l]), a, &v)) {
                bf_closest_consider(&b, s, count, v, acc);
            }
        }
    }
    return b;
}

static void bf_dir_consider(bf_best *b, const lpset *s, int count, orca_vec2 v, orca_vec2 dhat,
                            double acc)
{
    if (!bf_inside(s->h, count, s->R, v, acc)) {
        return;
    }
    double f = vdot(v, dhat);
    if (!b->found || f > b->value) {
        b->found = 1;
        b->value = f;
        b->v = v;
    }
}

/* max v.dhat over the same region: candidates dhat*R, line-line and line-circle. */
static bf_best bf_direction(const lpset *s, int count, orca_vec2 dhat, double acc)
{
    bf_best b = {0, 0, {0, 0}};
    bf_dir_consider(&b, s, count, vmul(dhat, s->R), dhat, acc);
    for (int k = 0; k < count; ++k) {
        bline a = bl_plane(s->h[k]);
        orca_vec2 c[2];
        int nc = bl_circle(a, s->R, acc, c);
        for (int i = 0; i < nc; ++i) {
            bf_dir_consider(&b, s, count, c[i], dhat, acc);
        }
        for (int l = 0; l < k; ++l) {
            orca_vec2 v;
            if (bl_meet(a, bl_plane(s->h[l]), &v)) {
                bf_dir_consider(&b, s, count, v, dhat, acc);
            }
            if (bl_meet(bl_plane(s->h[l]), a, &v)) {
                bf_dir_consider(&b, s, count, v, dhat, acc);
            }
        }
    }
    return b;
}

/* min over soft k in [s0, s1) of g_k(v) */
static double min_g(const orca_halfplane *h, int s0, int s1, orca_vec2 v)
{
    double m = INFINITY;
    for (int k = s0; k < s1; ++k) {
        double g = g_of(h[k], v);
        if (g < m) {
            m = g;
        }
    }
    return m;
}

typedef struct mm_ctx {
    const orca_halfplane *h;
    int s0, s1, hard;
    double R, acc;
    bf_best b;
} mm_ctx;

static void mm_consider(mm_ctx *c, orca_vec2 v)
{
    if (!bf_inside(c->h, c->hard, c->R, v, c->acc)) {
        return;
    }
    double f = min_g(c->h, c->s0, c->s1, v);
    if (!c->b.found || f > c->b.value) {
        c->b.found = 1;
        c->b.value = f;
        c->b.v = v;
    }
}

static void mm_consider_line(mm_ctx *c, bline a)
{
    orca_vec2 pts[2];
    int np = bl_circle(a, c->R, c->acc, pts);
    for (int i = 0; i < np; ++i) {
        mm_consider(c, pts[i]);
    }
    for (int j = 0; j < c->hard; ++j) {
        orca_vec2 v;
        bline hj = bl_plane(c->h[j]);
        if (bl_meet(a, hj, &v)) {
            mm_consider(c, v);
        }
        if (bl_meet(hj, a, &v)) {
            mm_consider(c, v);
        }
    }
}

/* max over v in {|v| <= R} and the hard half-planes h[0..hard) of min over soft k in
 * [s0, s1) of g_k(v). The optimum of this concave piecewise-linear function over the disc
 * and the hard polygon is fixed by active constraints among: soft planes g_k = t, hard
 * lines, the circle. Candidates: R*N_k (one soft plane, the circle tangent), hard-hard and
 * hard-circle (one soft plane, a vertex of the region), bisector(k,l)-circle and
 * bisector(k,l)-hard (two soft planes), bisector(k,l)-bisector(k,m) (three soft planes). */
static bf_best bf_maxmin(const orca_halfplane *h, int s0, int s1, int hard, double R, double acc)
{
    mm_ctx c;
    c.h = h;
    c.s0 = s0;
    c.s1 = s1;
    c.hard = hard;
    c.R = R;
    c.acc = acc;
    c.b.found = 0;
    c.b.value = 0;
    c.b.v = vv(0, 0);
    for (int k = s0; k < s1; ++k) {
        mm_consider(&c, vmul(h[k].normal, R));
    }
    for (int j = 0; j < hard; ++j) {
        bline hj = bl_plane(h[j]);
        orca_vec2 pts[2];
        int np = bl_circle(hj, R, acc, pts);
        for (int i = 0; i < np; ++i) {
            mm_consider(&c, pts[i]);
        }
        for (int i = 0; i < j; ++i) {
            orca_vec2 v;
            if (bl_meet(hj, bl_plane(h[i]), &v)) {
                mm_consider(&c, v);
            }
            if (bl_meet(bl_plane(h[i]), hj, &v)) {
                mm_consider(&c, v);
            }
        }
    }
    bline bis[MAXK][MAXK];
    int has[MAXK][MAXK];
    for (int k = s0; k < s1; ++k) {
        for (int l = k + 1; l < s1; ++l) {
            has[k][l] = bl_bisector(h[k], h[l], &bis[k][l]);
            if (has[k][l]) {
                mm_consider_line(&c, bis[k][l]);
            }
        }
    }
    for (int k = s0; k < s1; ++k) {
        for (int l = k + 1; l < s1; ++l) {
            if (!has[k][l]) {
                continue;
            }
            for (int m = l + 1; m < s1; ++m) {
                orca_vec2 v;
                if (has[k][m] && bl_meet(bis[k][l], bis[k][m], &v)) {
                    mm_consider(&c, v);
                }
            }
        }
    }
    return c.b;
}

/* ---------------------------------------------------------------------------------------
 * Conditioning at a point: the smallest sine among the active pairs
 *
 * s  : over every active pair (line-line with a non-zero sine, line-circle floored);
 * sx : the same without the line-line pairs of sine <= RULE_S. Those are in the parallel
 *      rule of algorithm.md §8.3 (|d.N_j| <= 1e-12, and d_i.N_j is the sine): it ignores their
 *      crossing (or calls the sliver between them infeasible), so its answer may lie anywhere
 *      along the wedge they form, violating one of them by up to 1e-12 * 2R. For such "rule
 *      zone" optima only feasibility within tol and "not worse than the brute force" (with
 *      the budget of the other pairs, sx) are checked; the position and "not better" are not.
 * ------------------------------------------------------------------------------------- */

#define RULE_S 1.001e-12

typedef struct cond {
    double s, sx;
} cond;

static cond cond_min(cond a, cond b)
{
    cond c;
    c.s = a.s < b.s ? a.s : b.s;
    c.sx = a.sx < b.sx ? a.sx : b.sx;
    return c;
}

static cond smin_of(const orca_vec2 *nrm, int m, int disc, orca_vec2 v, double sfloor)
{
    cond r = {1, 1};
    for (int a = 0; a < m; ++a) {
        for (int b = a + 1; b < m; ++b) {
            double c = fabs(vcross(nrm[a], nrm[b]));
            if (c > 0 && c < r.s) {
                r.s = c;
            }
            if (c > RULE_S && c < r.sx) {
                r.sx = c;
            }
        }
    }
    double lv = vlen(v);
    if (disc && lv > 0) {
        orca_vec2 u = vmul(v, 1.0 / lv);
        for (int a = 0; a < m; ++a) {
            double c = fabs(vcross(nrm[a], u));
            if (c < sfloor) {
                c = sfloor;
            }
            if (c < r.s) {
                r.s = c;
            }
            if (c < r.sx) {
                r.sx = c;
            }
        }
    }
    return r;
}

/* Lines of planes[0..count) within act of v, and the circle. */
static cond cond_lines(const lpset *s, int count, orca_vec2 v, const tols *t)
{
    orca_vec2 nrm[MAXK];
    int m = 0;
    for (int k = 0; k < count; ++k) {
        if (fabs(g_of(s->h[k], v)) <= t->act) {
            nrm[m++] = s->h[k].normal;
        }
    }
    int disc = fabs(vlen(v) - s->R) <= t->act;
    return smin_of(nrm, m, disc, v, t->sfloor);
}

/* Max-min: hard lines within act, the circle, and the bisectors of the soft planes within
 * act of the minimum; a pair of soft planes whose normals are within RULE_S of each other
 * (or of opposite) counts as a rule-zone pair too (the fallback, algorithm.md §10, skips
 * mm <= 1e-24 and its programs apply the parallel rule to their bisectors). */
static cond cond_maxmin(const lpset *s, int s0, int s1, int hard, orca_vec2 v, const tols *t)
{
    orca_vec2 nrm[MAXK * MAXK];
    int act[MAXK];
    int na = 0, m = 0;
    double f = min_g(s->h, s0, s1, v);
    int rule = 0;
    for (int k = s0; k < s1; ++k) {
        if (g_of(s->h[k], v) <= f + t->act) {
            act[na++] = k;
        }
    }
    for (int a = 0; a < na; ++a) {
        for (int b = a + 1; b < na; ++b) {
            bline bl;
            if (fabs(vcross(s->h[act[a]].normal, s->h[act[b]].normal)) <= RULE_S) {
                rule = 1;
            }
            if (bl_bisector(s->h[act[a]], s->h[act[b]], &bl)) {
                nrm[m++] = bl.n;
            }
        }
    }
    for (int j = 0; j < hard; ++j) {
        if (fabs(g_of(s->h[j], v)) <= t->act) {
            nrm[m++] = s->h[j].normal;
        }
    }
    int disc = fabs(vlen(v) - s->R) <= t->act;
    cond c = smin_of(nrm, m, disc, v, t->sfloor);
    if (rule && c.s > RULE_S) {
        c.s = RULE_S;
    }
    return c;
}

/* ---------------------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------------------- */

typedef struct errstat {
    long n;              /* compared */
    long ill;            /* of which RULE_S < s_min < 1e-3 */
    long rule;           /* of which in the rule zone (position not compared) */
    double worst_wc;     /* largest error over the well-conditioned ones (s_min >= 1e-3) */
    double worst_wc_rel; /* the same divided by scale */
    double worst_norm;   /* largest error * s_min / scale outside the rule zone */
    double worst_ratio;  /* largest error / allowed E outside the rule zone */
} errstat;

static void err_add(errstat *e, double err, double scale, cond c, double allowed)
{
    ++e->n;
    if (c.s <= RULE_S) {
        ++e->rule;
        return;
    }
    if (c.s < 1e-3) {
        ++e->ill;
    } else {
        if (err > e->worst_wc) {
            e->worst_wc = err;
        }
        if (err / scale > e->worst_wc_rel) {
            e->worst_wc_rel = err / scale;
        }
    }
    if (err * c.s / scale > e->worst_norm) {
        e->worst_norm = err * c.s / scale;
    }
    if (err / allowed > e->worst_ratio) {
        e->worst_ratio = err / allowed;
    }
}

static void err_print(const char *fam, const char *what, const errstat *e)
{
    printf("lp_brute %s: %s: %ld compared; largest error %.3g (%.3g * scale) over %ld "
           "well-conditioned (s_min >= 1e-3); %ld ill-conditioned; over both largest "
           "error * s_min / scale = %.3g, error / allowed = %.3g; %ld in the parallel-rule zone\n",
           fam, what, e->n, e->worst_wc, e->worst_wc_rel, e->n - e->ill - e->rule, e->ill,
           e->worst_norm, e->worst_ratio, e->rule);
}

typedef struct stats {
    long sets, feasible, failed, unjudged, fail_in_prefix;
    long explained[4]; /* deviations explained by FIX_PARALLEL, FIX_VERTEX, both */
    long explained_lp; /* of which orca_lp_solve itself failed spuriously */
    long explained_solve; /* of which orca_solve's velocity differs (by more than tol) */
    double explained_dv; /* largest |orca_solve velocity - corrected velocity| / R */
    double worst_violation; /* of a solver result, / scale */
    errstat closest;        /* |v - v*| of orca_lp_solve */
    errstat closest_obj;    /* |v - p| - |v* - p| */
    errstat held;           /* |v - v*| of the velocity held by a failed program */
    errstat dir;            /* v*.d - v.d of orca_lp_solve_direction */
    errstat fb_kept;        /* M* - min g(v) of the fallback, hard prefix kept */
    errstat fb_prefix;      /* the same when the program failed inside the hard prefix */
} stats;

static stats g_total;

static void stats_print(const char *fam, const stats *st)
{
    printf("lp_brute %s: %ld sets (%ld feasible, %ld failed of which %ld inside the hard prefix, "
           "%ld classifications near-degenerate and not judged); largest violation of a result = "
           "%.3g * scale\n",
           fam, st->sets, st->feasible, st->failed, st->fail_in_prefix, st->unjudged,
           st->worst_violation);
    printf("lp_brute %s: wrong answers explained by algorithm.md's literal rules (choice 11, "
           "see the hand tests): %ld by "
           "the parallel rule, %ld by the exact violation test, %ld needing both fixes; in %ld of "
           "them orca_lp_solve failed spuriously (the rest: the direction program or inside the "
           "fallback); orca_solve's velocity is wrong in %ld, by up to %.3g * R\n",
           fam, st->explained[1], st->explained[2], st->explained[3], st->explained_lp,
           st->explained_solve, st->explained_dv);
    err_print(fam, "feasible sets: |v - v*|", &st->closest);
    err_print(fam, "feasible sets: |v-p| - |v*-p|", &st->closest_obj);
    err_print(fam, "failed sets: held velocity |v - v*(prefix)|", &st->held);
    err_print(fam, "direction programs (feasible): v*.d - v.d", &st->dir);
    err_print(fam, "fallbacks (hard kept): M* - min g", &st->fb_kept);
    err_print(fam, "fallbacks (hard prefix relaxed): M* - min g", &st->fb_prefix);
    fflush(stdout);
}

static void errstat_merge(errstat *a, const errstat *b)
{
    a->n += b->n;
    a->ill += b->ill;
    if (b->worst_wc > a->worst_wc) {
        a->worst_wc = b->worst_wc;
    }
    if (b->worst_wc_rel > a->worst_wc_rel) {
        a->worst_wc_rel = b->worst_wc_rel;
    }
    if (b->worst_ratio > a->worst_ratio) {
        a->worst_ratio = b->worst_ratio;
    }
    a->rule += b->rule;
    if (b->worst_norm > a->worst_norm) {
        a->worst_norm = b->worst_norm;
    }
}

static void stats_merge(stats *a, const stats *b)
{
    a->sets += b->sets;
    a->feasible += b->feasible;
    a->failed += b->failed;
    a->unjudged += b->unjudged;
    for (int k = 1; k < 4; ++k) {
        a->explained[k] += b->explained[k];
    }
    a->explained_lp += b->explained_lp;
    a->explained_solve += b->explained_solve;
    if (b->explained_dv > a->explained_dv) {
        a->explained_dv = b->explained_dv;
    }
    a->fail_in_prefix += b->fail_in_prefix;
    if (b->worst_violation > a->worst_violation) {
        a->worst_violation = b->worst_violation;
    }
    errstat_merge(&a->closest, &b->closest);
    errstat_merge(&a->closest_obj, &b->closest_obj);
    errstat_merge(&a->held, &b->held);
    errstat_merge(&a->dir, &b->dir);
    errstat_merge(&a->fb_kept, &b->fb_kept);
    errstat_merge(&a->fb_prefix, &b->fb_prefix);
}

/* ---------------------------------------------------------------------------------------
 * The programs of docs/algorithm.md §8 to §10, transcribed, for attribution
 *
 * These programs are exact-arithmetic algorithms applied in binary64 without any
 * tolerance, and two of their rules misfire on degenerate data (see the hand tests
 * hand_parallel_rule_same_direction and hand_vertex_on_later_line). A deviation from the
 * brute force is accepted only when it is explained by one of these two, and it is then
 * counted and printed, never silently skipped. The programs below follow algorithm.md §8,
 * §9 and §10 line by line; with fix = 0 they must give the library's
 * bits on every set (checked on every set), and fix changes exactly these rules:
 *   FIX_PARALLEL: a parallel j (|d.N_j| <= 1e-12) with num < 0 is ignored, instead of making
 *     the program infeasible, when N_i.N_j > 0. The half-planes then face the same way and
 *     num < 0 means H_j is inside H_i, so the branch is reached only when v, on line j,
 *     rounds to the violated side of a line i that coincides with j to rounding.
 *   FIX_VERTEX: constraint i counts as satisfied when SD_i(v) >= -4 eps (R + |P_i|)
 *     (eps = DBL_EPSILON, the rounding of that dot product) instead of >= 0. When v is
 *     a vertex (of two lines, or of a line and the circle) and line i passes through the
 *     same point, the rounding of g_i(v) may call it violated, and the interval on line i is
 *     then that one point, which rounds to lo > hi: Line(i) fails (algorithm.md §8.3).
 * A set the library gets wrong counts as explained when the results with one or both fixes
 * pass every check; any other deviation fails the test.
 * ------------------------------------------------------------------------------------- */

enum { FIX_PARALLEL = 1, FIX_VERTEX = 2 };

static int ref_line(const orca_halfplane *h, int i, double R, orca_vec2 goal, const orca_vec2 *obj,
                    orca_vec2 *v, int fix)
{
    orca_vec2 P = h[i].point, N = h[i].normal;
    orca_vec2 d = vv(-N.y, N.x);
    double pd = vdot(P, d);
    double disc = pd * pd + R * R - vdot(P, P);
    if (disc < 0) {
        return 0;
    }
    double s = sqrt(disc);
    double lower = -pd - s, upper = -pd + s;
    for (int j = 0; j < i; ++j) {
        double denom = vdot(d, h[j].normal);
        double num = vdot(vsub(P, h[j].point), h[j].normal);
        if (fabs(denom) <= 1e-12) {
            if (num < 0 && !((fix & FIX_PARALLEL) && vdot(N, h[j].normal) > 0)) {
                return 0;
            }
            continue;
        }
        double t = -num / denom;
        if (denom > 0) {
            if (t > lower) {
                lower = t;
            }
        } else if (t < upper) {
            upper = t;
        }
        if (lower > upper) {
            return 0;
        }
    }
    double t;
    if (obj) {
        double dn = vdot(d, *obj);
        if (dn > 0) {
            *v = vadd(P, vmul(d, upper));
            return 1;
        }
        if (dn < 0) {
            *v = vadd(P, vmul(d, lower));
            return 1;
        }
        t = vdot(d, vsub(*v, P));
    } else {
        t = vdot(d, vsub(goal, P));
    }
    if (t < lower) {
        t = lower;
    } else if (t > upper) {
        t = upper;
    }
    *v = vadd(P, vmul(d, t));
    return 1;
}

static orca_lp_result ref_run(const orca_halfplane *h, int n, double R, orca_vec2 goal,
                              const orca_vec2 *obj, orca_vec2 start, int fix)
{
    orca_lp_result r;
    r.velocity = start;
    r.failed = -1;
    for (int i = 0; i < n; ++i) {
        double slack = (fix & FIX_VERTEX) ? -4 * DBL_EPSILON * (R + vlen(h[i].point)) : 0.0;
        if (g_of(h[i], r.velocity) >= slack) {
            continue;
        }
        if (!ref_line(h, i, R, goal, obj, &r.velocity, fix)) {
            r.failed = i;
            break;
        }
    }
    return r;
}

static orca_lp_result ref_solve(const orca_halfplane *h, int n, double R, orca_vec2 p, int fix)
{
    double len = vlen(p);
    orca_vec2 start = len <= R ? p : vmul(vv(p.x / len, p.y / len), R);
    return ref_run(h, n, R, p, NULL, start, fix);
}

static orca_lp_result ref_direction(const orca_halfplane *h, int n, double R, orca_vec2 dir,
                                    int fix)
{
    double len = vlen(dir);
    return ref_run(h, n, R, dir, &dir, vmul(vv(dir.x / len, dir.y / len), R), fix);
}

static orca_vec2 ref_fallback(const orca_halfplane *h, int count, int hard, int failed, double R,
                              int fix)
{
    if (failed < hard) {
        count = hard;
        hard = 0;
    }
    orca_halfplane sc[MAXK];
    for (int k = 0; k < hard; ++k) {
        sc[k] = h[k];
    }
    orca_vec2 v = ref_direction(sc, hard, R, h[hard].normal, fix).velocity;
    double level = g_of(h[hard], v);
    for (int j = hard + 1; j < count; ++j) {
        if (g_of(h[j], v) >= level) {
            continue;
        }
        int n = hard;
        double pjnj = vdot(h[j].point, h[j].normal);
        for (int k = hard; k < j; ++k) {
            orca_vec2 m = vsub(h[k].normal, h[j].normal);
            double mm = vdot(m, m);
            if (mm <= 1e-24) {
                continue;
            }
            double len = sqrt(mm);
            orca_vec2 mh = vv(m.x / len, m.y / len);
            double rhs = vdot(h[k].point, h[k].normal) - pjnj;
            sc[n].point = vmul(mh, rhs / len);
            sc[n].normal = mh;
            ++n;
        }
        orca_lp_result r = ref_direction(sc, n, R, h[j].normal, fix);
        if (r.failed < 0) {
            v = r.velocity;
            level = g_of(h[j], v);
        }
    }
    return v;
}

/* ---------------------------------------------------------------------------------------
 * The checks of one set
 * ------------------------------------------------------------------------------------- */

typedef struct mcache {
    int have[MAXK];
    double m[MAXK];
} mcache;

/* M(i): max over the disc of min over k <= i of g_k (all soft, nothing hard). */
static double prefix_M(const lpset *s, mcache *mc, int i, const tols *t)
{
    if (!mc->have[i]) {
        bf_best b = bf_maxmin(s->h, 0, i + 1, 0, s->R, t->acc);
        mc->m[i] = b.found ? b.value : -INFINITY;
        mc->have[i] = 1;
    }
    return mc->m[i];
}

/* Worst violation of the disc and planes[0..count) at v. */
static double violation(const orca_halfplane *h, int count, double R, orca_vec2 v)
{
    double w = vlen(v) - R;
    for (int k = 0; k < count; ++k) {
        double g = -g_of(h[k], v);
        if (g > w) {
            w = g;
        }
    }
    return w;
}

/* What one implementation (the library, or the transcription with the fix) answered. */
typedef struct outcome {
    orca_lp_result lp; /* orca_lp_solve */
    orca_lp_result dl; /* orca_lp_solve_direction */
    orca_vec2 fb;      /* orca_solve's velocity after a failure (the fallback) */
} outcome;

/* The measurements of one judged outcome, added to the statistics when it passes. */
typedef struct measures {
    int unjudged;
    int closest_valid, held_valid, dir_valid, fb_valid, fb_prefix;
    double scale, viol;
    double c_err, c_obj, c_E;
    double d_err, d_E;
    double f_err, f_E;
    cond c_s, d_s, f_s;
} measures;

/* Judging prints only when verbose (the library's outcome, once it is known to fail). */
#define JCHECK(c, ...)                                                                 \
    do {                                                                               \
        if (!(c)) {                                                                    \
            if (verbose) {                                                             \
                fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #c);  \
                fprintf(stderr, __VA_ARGS__);                                          \
                fprintf(stderr, "\n");                                                 \
                dump_set(s);                                                           \
                fprintf(stderr, "  direction = (%a, %a)\n", dir.x, dir.y);             \
            }                                                                          \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

/* Classification of a program's failing index f (-1 when feasible): it fails exactly at the
 * first prefix that is infeasible. Judged by the brute-force max-min value of the prefix,
 * M >= 0 iff feasible, with the margin: |M| <= margin is near-degenerate (the feasible part,
 * if any, is thinner than the tolerance, and rounding or algorithm.md §8.3's 1e-12 parallel
 * rule may decide either way), and is counted as not judged. */
static int judge_class(const lpset *s, mcache *mc, int f, const tols *t, measures *ms,
                       orca_vec2 dir, int verbose, const char *which)
{
    if (f < 0) {
        double M = prefix_M(s, mc, s->n - 1, t);
        if (M < t->margin && M >= -t->margin) {
            ms->unjudged = 1;
        }
        JCHECK(M >= -t->margin,
               "%s reports feasible, but the set is clearly infeasible: brute-force max-min M = "
               "%a (margin %a)",
               which, M, t->margin);
        return 0;
    }
    JCHECK(f < s->n, "%s: failing index %d out of range", which, f);
    double M = prefix_M(s, mc, f, t);
    if (M <= t->margin && M > -t->margin) {
        ms->unjudged = 1;
    }
    JCHECK(M <= t->margin,
           "%s fails at %d, but constraints 0..%d are clearly feasible: M = %a (margin %a)", which,
           f, f, M, t->margin);
    if (f > 0) {
        double M0 = prefix_M(s, mc, f - 1, t);
        if (M0 < t->margin && M0 >= -t->margin) {
            ms->unjudged = 1;
        }
        JCHECK(M0 >= -t->margin,
               "%s fails at %d, but already constraints 0..%d are clearly infeasible: M = %a",
               which, f, f - 1, M0);
    }
    return 0;
}

static int judge(const lpset *s, const tols *t, mcache *mc, orca_vec2 dir, const outcome *o,
                 measures *ms, int verbose)
{
    memset(ms, 0, sizeof *ms);
    ms->scale = t->scale;
    orca_vec2 dhat = vmul(dir, 1.0 / vlen(dir));

    /* 1. orca_lp_solve: classification, the result feasible, equal to the brute force (or,
     * after a failure, the velocity held equal to the optimum of the prefix before it) */
    const orca_lp_result *lp = &o->lp;
    if (judge_class(s, mc, lp->failed, t, ms, dir, verbose, "orca_lp_solve")) {
        return 1;
    }
    int cnt = lp->failed < 0 ? s->n : lp->failed;
    double viol = violation(s->h, cnt, s->R, lp->velocity);
    JCHECK(viol <= t->tol,
           "orca_lp_solve (failed = %d) result (%a, %a) violates the disc or a constraint before "
           "%d by %a",
           lp->failed, lp->velocity.x, lp->velocity.y, cnt, viol);
    ms->viol = viol;
    bf_best b = bf_closest(s, cnt, t->acc);
    if (b.found) {
        cond c = cond_min(cond_lines(s, cnt, b.v, t), cond_lines(s, cnt, lp->velocity, t));
        int rule = c.s <= RULE_S;
        double E = budget(t, c.s), Ex = budget(t, c.sx);
        double err = vlen(vsub(lp->velocity, b.v));
        double obj = vlen(vsub(lp->velocity, s->p)) - b.value;
        JCHECK(rule || err <= E,
               "orca_lp_solve (failed = %d): result (%a, %a), brute force over the first %d "
               "constraints (%a, %a), |v - v*| = %.3g > allowed %.3g (s_min %.3g)",
               lp->failed, lp->velocity.x, lp->velocity.y, cnt, b.v.x, b.v.y, err, E, c.s);
        JCHECK(obj <= Ex,
               "orca_lp_solve: |v - p| exceeds the brute-force optimum by %.3g > %.3g: v = (%a, "
               "%a), v* = (%a, %a)",
               obj, Ex, lp->velocity.x, lp->velocity.y, b.v.x, b.v.y);
        if (lp->failed < 0) {
            ms->closest_valid = 1;
        } else {
            ms->held_valid = 1;
        }
        ms->c_err = err;
        ms->c_obj = obj > 0 ? obj : 0;
        ms->c_s = c;
        ms->c_E = E;
    } else {
        /* no candidate within acc: the region is empty or thinner than acc, which the
         * classification must have found near-degenerate */
        JCHECK(ms->unjudged,
               "brute force finds no point of the region but the classification is clear");
    }

    /* 2. orca_lp_solve_direction: classification, feasibility, the objective */
    const orca_lp_result *dl = &o->dl;
    if (judge_class(s, mc, dl->failed, t, ms, dir, verbose, "orca_lp_solve_direction")) {
        return 1;
    }
    int dcnt = dl->failed < 0 ? s->n : dl->failed;
    viol = violation(s->h, dcnt, s->R, dl->velocity);
    JCHECK(viol <= t->tol,
           "direction result (%a, %a) violates the disc or a constraint before %d by %a",
           dl->velocity.x, dl->velocity.y, dcnt, viol);
    if (viol > ms->viol) {
        ms->viol = viol;
    }
    bf_best bd = bf_direction(s, dcnt, dhat, t->acc);
    if (bd.found) {
        cond c = cond_min(cond_lines(s, dcnt, bd.v, t), cond_lines(s, dcnt, dl->velocity, t));
        int rule = c.s <= RULE_S;
        double E = budget(t, c.s), Ex = budget(t, c.sx);
        double gap = bd.value - vdot(dl->velocity, dhat);
        JCHECK(gap <= Ex && (rule || -gap <= E),
               "orca_lp_solve_direction (failed = %d): v = (%a, %a) with v.d = %a, brute force "
               "v* = (%a, %a) with v*.d = %a: gap %.3g, allowed %.3g (s_min %.3g)",
               dl->failed, dl->velocity.x, dl->velocity.y, vdot(dl->velocity, dhat), bd.v.x,
               bd.v.y, bd.value, gap, gap > 0 ? Ex : E, c.s);
        ms->dir_valid = dl->failed < 0;
        ms->d_err = fabs(gap);
        ms->d_s = c;
        ms->d_E = E;
    } else {
        JCHECK(ms->unjudged,
               "direction: brute force finds no point of the region but the classification is "
               "clear");
    }

    /* 3. the fallback after a failure: the max-min over the soft constraints */
    if (lp->failed < 0) {
        return 0;
    }
    /* algorithm.md §10: a failure inside the hard prefix relaxes that prefix by itself, with
     * nothing hard, and ignores the rest of the list; a later failure relaxes the whole list
     * with the first hard_count half-planes kept hard. */
    int in_prefix = lp->failed < s->hard;
    int s0 = in_prefix ? 0 : s->hard;
    int s1 = in_prefix ? s->hard : s->n;
    int hard = in_prefix ? 0 : s->hard;
    orca_vec2 vf = o->fb;
    viol = violation(s->h, hard, s->R, vf);
    JCHECK(viol <= t->tol, "fallback result (%a, %a) violates the disc or a hard constraint by %a",
           vf.x, vf.y, viol);
    if (viol > ms->viol) {
        ms->viol = viol;
    }
    bf_best bm = bf_maxmin(s->h, s0, s1, hard, s->R, t->acc);
    JCHECK(bm.found, "brute-force max-min finds no point in the disc and the hard half-planes");
    cond c = cond_min(cond_maxmin(s, s0, s1, hard, bm.v, t), cond_maxmin(s, s0, s1, hard, vf, t));
    int rule = c.s <= RULE_S;
    double E = budget(t, c.s), Ex = budget(t, c.sx);
    double fv = min_g(s->h, s0, s1, vf);
    double gap = bm.value - fv;
    JCHECK(gap <= Ex,
           "fallback (failed at %d, hard %d, soft %d..%d): v = (%a, %a) reaches min g = %a, brute "
           "force v* = (%a, %a) reaches %a: worse by %.3g > allowed %.3g (s_min %.3g)",
           lp->failed, s->hard, s0, s1 - 1, vf.x, vf.y, fv, bm.v.x, bm.v.y, bm.value, gap, Ex,
           c.sx);
    JCHECK(rule || -gap <= E,
           "fallback better than the brute force by %.3g (> %.3g): the brute force is wrong? v = "
           "(%a, %a), v* = (%a, %a)",
           -gap, E, vf.x, vf.y, bm.v.x, bm.v.y);
    ms->fb_valid = 1;
    ms->fb_prefix = in_prefix;
    ms->f_err = fabs(gap);
    ms->f_s = c;
    ms->f_E = E;
    return 0;
}

static void stats_add(stats *st, const measures *ms, const outcome *o)
{
    ++st->sets;
    if (o->lp.failed < 0) {
        ++st->feasible;
    } else {
        ++st->failed;
        if (ms->fb_prefix) {
            ++st->fail_in_prefix;
        }
    }
    if (ms->unjudged) {
        ++st->unjudged;
    }
    if (ms->viol / ms->scale > st->worst_violation) {
        st->worst_violation = ms->viol / ms->scale;
    }
    if (ms->closest_valid) {
        err_add(&st->closest, ms->c_err, ms->scale, ms->c_s, ms->c_E);
        err_add(&st->closest_obj, ms->c_obj, ms->scale, ms->c_s, ms->c_E);
    }
    if (ms->held_valid) {
        err_add(&st->held, ms->c_err, ms->scale, ms->c_s, ms->c_E);
    }
    if (ms->dir_valid) {
        err_add(&st->dir, ms->d_err, ms->scale, ms->d_s, ms->d_E);
    }
    if (ms->fb_valid) {
        err_add(ms->fb_prefix ? &st->fb_prefix : &st->fb_kept, ms->f_err, ms->scale, ms->f_s,
                ms->f_E);
    }
}

static orca_vec2 random_direction(test_rng *rng, const lpset *s);

#define SAME2(a, b) (test_same_bits((a).x, (b).x) && test_same_bits((a).y, (b).y))

static int check_set(const lpset *s, test_rng *rng, stats *st)
{
    tols t = make_tols(s);
    mcache mc;
    memset(&mc, 0, sizeof mc);
    orca_vec2 dir = random_direction(rng, s);

    /* the library */
    outcome lib;
    CHECK(orca_lp_solve(s->h, s->n, s->R, s->p, &lib.lp) == ORCA_OK, "orca_lp_solve status");
    CHECK(orca_lp_solve_direction(s->h, s->n, s->R, dir, &lib.dl) == ORCA_OK, "direction status");
    orca_halfplane scratch[MAXK + GUARD];
    orca_halfplane sentinel = {{-7.25, 3.5}, {0.125, -9.0}};
    for (int k = 0; k < MAXK + GUARD; ++k) {
        scratch[k] = sentinel;
    }
    orca_solve_result sr;
    CHECK(orca_solve(s->h, s->n, s->hard, s->R, s->p, scratch, &sr) == ORCA_OK,
          "orca_solve status");
    for (int k = s->n; k < MAXK + GUARD; ++k) {
        CHECK(memcmp(&scratch[k], &sentinel, sizeof sentinel) == 0,
              "orca_solve wrote scratch[%d] beyond count", k);
    }
    CHECK(sr.failed == lib.lp.failed, "orca_solve failed = %d, orca_lp_solve failed = %d",
          sr.failed, lib.lp.failed);
    CHECK(sr.fallback == (lib.lp.failed >= 0), "orca_solve fallback = %d with failed = %d",
          sr.fallback, sr.failed);
    lib.fb = sr.velocity;
    if (lib.lp.failed < 0) {
        CHECK(SAME2(sr.velocity, lib.lp.velocity), "orca_solve and orca_lp_solve differ");
    } else {
        orca_vec2 vf = {NAN, NAN};
        CHECK(orca_lp_fallback(s->h, s->n, s->hard, lib.lp.failed, s->R, scratch, &vf) == ORCA_OK,
              "orca_lp_fallback status");
        CHECK(SAME2(sr.velocity, vf), "orca_solve (%a, %a) and orca_lp_fallback (%a, %a) differ",
              sr.velocity.x, sr.velocity.y, vf.x, vf.y);
    }

    /* the transcription with fix = 0 gives the library's bits */
    outcome lit;
    lit.lp = ref_solve(s->h, s->n, s->R, s->p, 0);
    lit.dl = ref_direction(s->h, s->n, s->R, dir, 0);
    lit.fb = lit.lp.failed < 0 ? lit.lp.velocity
                               : ref_fallback(s->h, s->n, s->hard, lit.lp.failed, s->R, 0);
    CHECK(lit.lp.failed == lib.lp.failed && SAME2(lit.lp.velocity, lib.lp.velocity) &&
              lit.dl.failed == lib.dl.failed && SAME2(lit.dl.velocity, lib.dl.velocity) &&
              SAME2(lit.fb, lib.fb),
          "the transcription of algorithm.md differs from the library: lp %d (%a, %a) vs %d "
          "(%a, %a); direction %d vs %d; solve (%a, %a) vs (%a, %a)",
          lit.lp.failed, lit.lp.velocity.x, lit.lp.velocity.y, lib.lp.failed, lib.lp.velocity.x,
          lib.lp.velocity.y, lit.dl.failed, lib.dl.failed, lit.fb.x, lit.fb.y, lib.fb.x, lib.fb.y);

    measures ms;
    if (judge(s, &t, &mc, dir, &lib, &ms, 0) == 0) {
        stats_add(st, &ms, &lib);
        return 0;
    }
    /* The library deviates. Accepted (and counted) only when one of the two fixes of
     * algorithm.md's literal rules (choice 11), or both, make every check pass. */
    for (int fix = 1; fix <= 3; ++fix) {
        outcome fx;
        fx.lp = ref_solve(s->h, s->n, s->R, s->p, fix);
        fx.dl = ref_direction(s->h, s->n, s->R, dir, fix);
        fx.fb = fx.lp.failed < 0 ? fx.lp.velocity
                                 : ref_fallback(s->h, s->n, s->hard, fx.lp.failed, s->R, fix);
        if (judge(s, &t, &mc, dir, &fx, &ms, 0) != 0) {
            continue;
        }
        if (g_total.explained[fix] + st->explained[fix] == 0) {
            fprintf(stderr,
                    "lp_brute: NOTE: first set where algorithm.md's %s gives a wrong answer "
                    "(with the fix every check passes); the library's answer fails this "
                    "check:\n",
                    fix == 1 ? "parallel rule" : fix == 2 ? "exact violation test" : "two rules");
            judge(s, &t, &mc, dir, &lib, &ms, 1);
        }
        ++st->explained[fix];
        if (fx.lp.failed != lib.lp.failed) {
            ++st->explained_lp;
        }
        orca_vec2 vlib = lib.lp.failed < 0 ? lib.lp.velocity : lib.fb;
        orca_vec2 vfx = fx.lp.failed < 0 ? fx.lp.velocity : fx.fb;
        double dv = vlen(vsub(vlib, vfx)) / s->R;
        if (dv > st->explained_dv) {
            st->explained_dv = dv;
        }
        if (dv * s->R > t.tol) {
            ++st->explained_solve;
        }
        stats_add(st, &ms, &fx);
        return 0;
    }
    judge(s, &t, &mc, dir, &lib, &ms, 1);
    return 1;
}

/* ---------------------------------------------------------------------------------------
 * Generators
 * ------------------------------------------------------------------------------------- */

static double U(test_rng *r, double lo, double hi) { return test_rng_uniform(r, lo, hi); }

static int randint(test_rng *r, int lo, int hi) /* inclusive */
{
    return lo + (int)(test_rng_next(r) % (unsigned long long)(hi - lo + 1));
}

/* A unit vector normalised with sqrt (rejection from the square keeps the angle uniform). */
static orca_vec2 rand_unit(test_rng *r)
{
    for (;;) {
        double x = U(r, -1, 1), y = U(r, -1, 1);
        double l2 = x * x + y * y;
        if (l2 > 1e-4 && l2 <= 1) {
            double l = sqrt(l2);
            return vv(x / l, y / l);
        }
    }
}

static orca_vec2 normalized(orca_vec2 v)
{
    double l = vlen(v);
    return vv(v.x / l, v.y / l);
}

static orca_vec2 rand_in_disc(test_rng *r, double rad)
{
    return vmul(rand_unit(r), rad * sqrt(U(r, 0, 1)));
}

enum { K_GENERIC, K_EDGE, K_CAP, K_TANGENT, K_NEAR_PARALLEL, K_PARALLEL, K_COUNT };

/* A half-plane of the given kind, given the k already generated. */
static orca_halfplane gen_plane(test_rng *r, const lpset *s, int k, int kind)
{
    double R = s->R;
    orca_halfplane h;
    if ((kind == K_NEAR_PARALLEL || kind == K_PARALLEL) && k == 0) {
        kind = K_GENERIC;
    }
    switch (kind) {
    default:
    case K_GENERIC:
        h.normal = rand_unit(r);
        h.point = rand_in_disc(r, 1.5 * R);
        break;
    case K_EDGE: /* the line passes through the disc's edge: |P| = R to rounding */
        h.normal = rand_unit(r);
        h.point = vmul(rand_unit(r), R);
        break;
    case K_CAP: /* keeps only a cap of the disc (v.N >= c, c in (0.2R, 1.1R)) */
        h.normal = rand_unit(r);
        h.point = vadd(vmul(h.normal, R * U(r, 0.2, 1.1)), vmul(vperp(h.normal), U(r, -R, R)));
        break;
    case K_TANGENT: { /* the line at distance R(1 - delta) from the centre, either side */
        h.normal = rand_unit(r);
        double e = U(r, 0, 1);
        double delta = e < 0.2 ? 0.0 : pow(10.0, -U(r, 1, 14));
        double side = (test_rng_next(r) & 1) ? 1.0 : -1.0;
        h.point =
            vadd(vmul(h.normal, side * R * (1.0 - delta)), vmul(vperp(h.normal), U(r, -R, R)));
        break;
    }
    case K_NEAR_PARALLEL: { /* normal within eps of +-N_j, eps from 1e-3 down to 1e-15.5 */
        int j = randint(r, 0, k - 1);
        double eps = pow(10.0, -U(r, 3, 15.5));
        double sg = (test_rng_next(r) & 1) ? 1.0 : -1.0;
        h.normal = normalized(vadd(vmul(s->h[j].normal, sg), vmul(rand_unit(r), eps)));
        double e = U(r, 0, 1);
        if (e < 0.4) {
            h.point = s->h[j].point; /* the lines cross at P_j */
        } else if (e < 0.7) {
            h.point = vadd(s->h[j].point, vmul(rand_unit(r), R * pow(10.0, -U(r, 1, 14))));
        } else {
            h.point = rand_in_disc(r, 1.5 * R);
        }
        break;
    }
    case K_PARALLEL: { /* exactly parallel or anti-parallel to N_j, shifted along N_j */
        int j = randint(r, 0, k - 1);
        orca_vec2 nj = s->h[j].normal;
        h.normal = (test_rng_next(r) & 1) ? nj : vv(-nj.x, -nj.y);
        double e = U(r, 0, 1);
        double off = e < 0.25 ? 0.0
                     : e < 0.5 ? ((test_rng_next(r) & 1) ? 1 : -1) * R * pow(10.0, -U(r, 1, 14))
                               : U(r, -0.8 * R, 0.8 * R);
        h.point = vadd(vadd(s->h[j].point, vmul(nj, off)), vmul(vperp(nj), U(r, -R, R)));
        break;
    }
    }
    return h;
}

/* Weighted choice of a kind; w has K_COUNT weights summing to 100. */
static int pick_kind(test_rng *r, const int *w)
{
    int x = randint(r, 0, 99);
    for (int k = 0; k < K_COUNT; ++k) {
        if (x < w[k]) {
            return k;
        }
        x -= w[k];
    }
    return K_GENERIC;
}

static void gen_common(test_rng *r, lpset *s)
{
    double e = U(r, 0, 1);
    s->R = e < 0.1 ? 1.0 : pow(10.0, U(r, -2, 2));
    e = U(r, 0, 1);
    if (e < 0.05) {
        s->p = vv(0, 0);
    } else if (e < 0.1) {
        s->p = vmul(rand_unit(r), s->R); /* on the circle */
    } else if (e < 0.55) {
        s->p = rand_in_disc(r, 0.999 * s->R); /* inside */
    } else {
        s->p = vmul(rand_unit(r), s->R * U(r, 1.001, 3.0)); /* outside */
    }
}

/* Flip N (exactly) when the witness w violates the half-plane: w stays feasible. */
static void flip_for(orca_halfplane *h, orca_vec2 w)
{
    if (g_of(*h, w) < 0) {
        h->normal = vv(-h->normal.x, -h->normal.y);
    }
}

static orca_vec2 random_direction(test_rng *rng, const lpset *s)
{
    double e = U(rng, 0, 1);
    if (e < 0.15 && s->n > 0) {
        /* exactly +-N_k: some line has d.dir == 0, the branch of algorithm.md §9 that
         * projects the velocity held before that line */
        orca_vec2 n = s->h[randint(rng, 0, s->n - 1)].normal;
        return (test_rng_next(rng) & 1) ? n : vv(-n.x, -n.y);
    }
    if (e < 0.2) {
        static const orca_vec2 axes[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        return axes[randint(rng, 0, 3)];
    }
    return vmul(rand_unit(rng), pow(10.0, U(rng, -3, 3)));
}

/* ---------------------------------------------------------------------------------------
 * Random families
 * ------------------------------------------------------------------------------------- */

/* Sets made feasible by a witness (every half-plane flipped to contain a random point of
 * the disc); hard prefix of random length (orca_solve must then equal orca_lp_solve). */
static int test_random_feasible(void)
{
    static const int w[K_COUNT] = {50, 20, 5, 5, 10, 10};
    test_rng rng = {0x5eed0001ull};
    stats st;
    memset(&st, 0, sizeof st);
    for (int it = 0; it < 50000; ++it) {
        lpset s;
        gen_common(&rng, &s);
        s.n = randint(&rng, 1, 10);
        s.hard = randint(&rng, 0, s.n);
        orca_vec2 wit = rand_in_disc(&rng, s.R);
        for (int k = 0; k < s.n; ++k) {
            s.h[k] = gen_plane(&rng, &s, k, pick_kind(&rng, w));
            flip_for(&s.h[k], wit);
        }
        if (check_set(&s, &rng, &st)) {
            fprintf(stderr, "  (random_feasible, iteration %d)\n", it);
            return 1;
        }
    }
    stats_print("random_feasible", &st);
    stats_merge(&g_total, &st);
    return 0;
}

/* Mostly infeasible sets: caps and random half-planes, no witness for the soft ones; a hard
 * prefix (0..3) made feasible by a witness, as obstacle constraints are. */
static int test_random_infeasible(void)
{
    static const int w[K_COUNT] = {30, 10, 40, 0, 10, 10};
    test_rng rng = {0x5eed0002ull};
    stats st;
    memset(&st, 0, sizeof st);
    for (int it = 0; it < 40000; ++it) {
        lpset s;
        gen_common(&rng, &s);
        s.n = randint(&rng, 2, 10);
        s.hard = randint(&rng, 0, s.n - 1 < 3 ? s.n - 1 : 3);
        orca_vec2 wit = rand_in_disc(&rng, s.R);
        for (int k = 0; k < s.n; ++k) {
            s.h[k] = gen_plane(&rng, &s, k, pick_kind(&rng, w));
            if (k < s.hard) {
                flip_for(&s.h[k], wit);
            }
        }
        if (check_set(&s, &rng, &st)) {
            fprintf(stderr, "  (random_infeasible, iteration %d)\n", it);
            return 1;
        }
    }
    stats_print("random_infeasible", &st);
    stats_merge(&g_total, &st);
    return 0;
}

/* Near-degenerate geometry: nearly parallel (1e-3 .. 1e-15.5), exactly parallel and
 * anti-parallel, tangent and edge-crossing half-planes; half of the sets with a witness. */
static int test_random_degenerate(void)
{
    static const int w[K_COUNT] = {15, 15, 0, 15, 30, 25};
    test_rng rng = {0x5eed0003ull};
    stats st;
    memset(&st, 0, sizeof st);
    for (int it = 0; it < 25000; ++it) {
        lpset s;
        gen_common(&rng, &s);
        s.n = randint(&rng, 2, 10);
        s.hard = randint(&rng, 0, s.n);
        int witness = (int)(test_rng_next(&rng) & 1);
        orca_vec2 wit = rand_in_disc(&rng, s.R);
        for (int k = 0; k < s.n; ++k) {
            s.h[k] = gen_plane(&rng, &s, k, pick_kind(&rng, w));
            if (witness || k < s.hard) {
                flip_for(&s.h[k], wit);
            }
        }
        if (check_set(&s, &rng, &st)) {
            fprintf(stderr, "  (random_degenerate, iteration %d)\n", it);
            return 1;
        }
    }
    stats_print("random_degenerate", &st);
    stats_merge(&g_total, &st);
    return 0;
}

/* The branch where the program fails inside the hard prefix: hard prefixes of 2..5 caps
 * (no witness), kept when orca_lp_solve fails inside them; 0..5 soft constraints after. */
static int test_random_hard_prefix_infeasible(void)
{
    static const int wsoft[K_COUNT] = {50, 20, 20, 0, 5, 5};
    test_rng rng = {0x5eed0004ull};
    stats st;
    memset(&st, 0, sizeof st);
    int kept = 0, tried = 0;
    while (kept < 10000) {
        ++tried;
        lpset s;
        gen_common(&rng, &s);
        s.hard = randint(&rng, 2, 5);
        s.n = s.hard + randint(&rng, 0, 5);
        for (int k = 0; k < s.n; ++k) {
            int kind = k < s.hard ? ((test_rng_next(&rng) % 4) ? K_CAP : K_NEAR_PARALLEL)
                                  : pick_kind(&rng, wsoft);
            s.h[k] = gen_plane(&rng, &s, k, kind);
        }
        orca_lp_result lp;
        if (orca_lp_solve(s.h, s.n, s.R, s.p, &lp) != ORCA_OK || lp.failed < 0 ||
            lp.failed >= s.hard) {
            continue;
        }
        ++kept;
        if (check_set(&s, &rng, &st)) {
            fprintf(stderr, "  (hard_prefix_infeasible, set %d)\n", kept);
            return 1;
        }
    }
    ENSURE(st.sets == 10000);
    printf("lp_brute hard_prefix_infeasible: kept %d of %d generated sets\n", kept, tried);
    stats_print("hard_prefix_infeasible", &st);
    stats_merge(&g_total, &st);
    return 0;
}

static int test_summary(void)
{
    if (g_total.sets == 0) {
        return 0; /* run alone (filtered): nothing to sum */
    }
    stats_print("ALL", &g_total);
    ENSURE(g_total.sets >= 100000);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Hand-made cases
 * ------------------------------------------------------------------------------------- */

static orca_halfplane hp(double px, double py, double nx, double ny)
{
    orca_halfplane h = {{px, py}, {nx, ny}};
    return h;
}

/* Exactly parallel (denominator exactly 0), "infeasible because num < 0".
 * h0: v.x >= 0.5 (P (0.5,0), N (1,0)); h1: v.x <= 0.2 (P (0.2,0), N (-1,0)). R = 2,
 * p = (1, 0). Start v = p (|p| = 1 <= 2). h0: g = 0.5 >= 0, continue. h1: g = -0.8 < 0:
 * d = (-N.y, N.x) = (-0, -1), j = 0: denom = d.N0 = -0 + -0 = -0, |denom| <= 1e-12, parallel;
 * num = (P1 - P0).N0 = -0.3 < 0: infeasible at 1. The held velocity is p.
 * Fallback with nothing hard: first soft h0, maximize v.x: v = (2, 0), level = 1.5.
 * h1: g1(2,0) = -1.8 < 1.5: bisector k = 0: m = N0 - N1 = (2, 0), len 2, mh = (1, 0),
 * rhs = 0.5 - (-0.2) = 0.7: the half-plane v.x >= 0.35. Maximize g1 (direction (-1, 0)):
 * start (-2, 0) violates it; on its line d = (-0, 1), d.(-1,0) = 0: v, as held before the
 * line, is projected (algorithm.md §9), t = d.((-2,0) - (0.35,0)) = 0, v = (0.35, 0). Both penetrations 0.15. */
static int test_hand_parallel_infeasible(void)
{
    orca_halfplane h[2] = {hp(0.5, 0, 1, 0), hp(0.2, 0, -1, 0)};
    orca_lp_result r;
    ENSURE(orca_lp_solve(h, 2, 2.0, vv(1, 0), &r) == ORCA_OK);
    ENSURE(r.failed == 1);
    ENSURE_BITS(r.velocity.x, 1.0);
    ENSURE_BITS(r.velocity.y, 0.0);
    orca_halfplane scratch[2];
    orca_solve_result sr;
    ENSURE(orca_solve(h, 2, 0, 2.0, vv(1, 0), scratch, &sr) == ORCA_OK);
    ENSURE(sr.failed == 1 && sr.fallback == 1);
    ENSURE_NEAR(sr.velocity.x, 0.35, 1e-15);
    ENSURE_BITS(sr.velocity.y, 0.0);
    ENSURE_NEAR(g_of(h[0], sr.velocity), -0.15, 1e-15);
    ENSURE_NEAR(g_of(h[1], sr.velocity), -0.15, 1e-15);
    return 0;
}

/* Exactly parallel, "otherwise j is ignored". h0: v.x <= 1.5 (P (1.5,0), N (-1,0));
 * h1: v.x >= 0.5 (P (0.5,0), N (1,0)). R = 2, p = (0, 1). Start v = p; h0: g = 1.5, ok.
 * h1: g = -0.5: d = (-0, 1), pd = 0, s = sqrt(3.75); j = 0: denom = 0, num = (0.5 - 1.5) *
 * -1 = 1 >= 0: ignored. t = d.(p - P1) = 1: v = (0.5, 1), feasible. */
static int test_hand_parallel_ignored(void)
{
    orca_halfplane h[2] = {hp(1.5, 0, -1, 0), hp(0.5, 0, 1, 0)};
    orca_lp_result r;
    ENSURE(orca_lp_solve(h, 2, 2.0, vv(0, 1), &r) == ORCA_OK);
    ENSURE(r.failed == -1);
    ENSURE_BITS(r.velocity.x, 0.5);
    ENSURE_BITS(r.velocity.y, 1.0);
    return 0;
}

/* Nearly parallel, |denom| = 2^-42 (2.3e-13 <= 1e-12), where the rule changes the answer.
 * h0: P (0.5 + 2^-43, 0), N (-1, 2^-42) (unit: 1 + 2^-84 rounds to 1), i.e. roughly
 * v.x <= 0.5 + 2^-43 + 2^-42 v.y. h1: v.x >= 0.5. R = 2, p = (0, -1.5).
 * Start v = p: g0 = 0.5 + 2^-43 - 1.5 * 2^-42 > 0, ok. h1: g = -0.5, line x = 0.5 with
 * d = (-0, 1); j = 0: denom = d.N0 = 2^-42 <= 1e-12: parallel, num = (P1 - P0).N0 = 2^-43
 * >= 0, ignored. t = d.(p - P1) = -1.5: v = (0.5, -1.5), feasible, exactly.
 * (Without the rule, t = -num/denom = -0.5 would raise the lower end and give (0.5, -0.5),
 * the exact optimum; the literal program's answer violates h0 by 2^-42, well inside
 * 2e-12 * R.) */
static int test_hand_near_parallel_ignored(void)
{
    orca_halfplane h[2] = {hp(0.5 + 0x1p-43, 0, -1, 0x1p-42), hp(0.5, 0, 1, 0)};
    ENSURE_BITS(vlen(h[0].normal), 1.0);
    orca_lp_result r;
    ENSURE(orca_lp_solve(h, 2, 2.0, vv(0, -1.5), &r) == ORCA_OK);
    ENSURE(r.failed == -1);
    ENSURE_BITS(r.velocity.x, 0.5);
    ENSURE_BITS(r.velocity.y, -1.5);
    ENSURE_BITS(g_of(h[0], r.velocity), -0x1p-42);
    return 0;
}

/* Nearly parallel, with num < 0 (algorithm.md §8.3: Line(i) fails): h0: P (0.5 - 2^-43, 0),
 * N (-1, 2^-42); h1: v.x >= 0.5. On x = 0.5 the exact h0 still holds for v.y >= 0.5 (a sliver
 * 2^-43 deep), but denom = 2^-42 <= 1e-12 and num = -2^-43 < 0: the program fails at 1. Held
 * velocity: p = (0, -1.5) (h0 holds there). */
static int test_hand_near_parallel_infeasible(void)
{
    orca_halfplane h[2] = {hp(0.5 - 0x1p-43, 0, -1, 0x1p-42), hp(0.5, 0, 1, 0)};
    orca_lp_result r;
    ENSURE(orca_lp_solve(h, 2, 2.0, vv(0, -1.5), &r) == ORCA_OK);
    ENSURE(r.failed == 1);
    ENSURE_BITS(r.velocity.x, 0.0);
    ENSURE_BITS(r.velocity.y, -1.5);
    return 0;
}

/* The parallel rule (algorithm.md §8.3, choice 11) on a same-direction pair whose lines
 * coincide to rounding: a feasible set reported infeasible. h0: v.(0.6, 0.8) >= 0 (P (0, 0));
 * h1: the same normal, P (1, -0.75), which is on line 0 in real numbers (0.6 - 0.75 * 0.8 =
 * 0). As doubles the offset P1.N is 0x1.3333333333333p-1 - 0.75 * 0x1.999999999999ap-1 =
 * -2^-54 (exactly), so H1 = {v.N >= -2^-54} contains H0 and h1 is redundant: the set is the
 * half-plane h0 in the disc, and the exact answer for p = (-2.25, 0.75), R = 4 is the
 * projection of p on line 0, (-1.8, 1.35) (orca_lp_solve with h0 alone gives exactly that).
 * The program (algorithm.md §8): start v = p; h0: g = -0.75 < 0, line 0 with
 * d = (-0.8, 0.6): t = 2.25, v = (-0x1.ccccccccccccdp+0, 0x1.5999999999999p+0). h1: g1(v)
 * computes to -2^-52 < 0, so line 1 is processed; j = 0: denom = d.N0 = 0 exactly,
 * num = (P1 - P0).N0 computes to 1*0.6 + (-0.75)*0.8 = -2^-53 < 0: a parallel earlier line
 * with num < 0 makes Line(1) fail.
 * failed = 1, and orca_solve runs the fallback, whose max-min point is R*N = (2.4, 3.2):
 * 4.2 m/s away from the optimum, because a duplicate of h0 was added.
 * In exact arithmetic this branch cannot be reached with N_i = N_j (v in H_j implies v in
 * H_i when num < 0); the rule is only sound for anti-parallel pairs. The library follows
 * algorithm.md literally (a port must reproduce its bits), so this test pins that behaviour
 * (choice 11); the random tests count the same mechanism (reported infeasible by the
 * parallel rule, FIX_PARALLEL) instead of failing on it. A fix would change algorithm.md and
 * the bits, e.g. failing only when num < 0 and N_i.N_j < 0, and ignoring j otherwise. */
static int test_hand_parallel_rule_same_direction(void)
{
    orca_halfplane h[2] = {hp(0, 0, 0.6, 0.8), hp(1, -0.75, 0.6, 0.8)};
    ENSURE_BITS(vlen(h[0].normal), 1.0);
    orca_vec2 p = vv(-2.25, 0.75);
    orca_lp_result r;
    ENSURE(orca_lp_solve(h, 1, 4.0, p, &r) == ORCA_OK);
    ENSURE(r.failed == -1);
    ENSURE_BITS(r.velocity.x, -0x1.ccccccccccccdp+0);
    ENSURE_BITS(r.velocity.y, 0x1.5999999999999p+0);
    ENSURE_BITS(g_of(h[1], r.velocity), -0x1p-52);
    ENSURE(orca_lp_solve(h, 2, 4.0, p, &r) == ORCA_OK);
    ENSURE(r.failed == 1); /* the parallel rule (choice 11); the set is feasible */
    orca_halfplane scratch[2];
    orca_solve_result sr;
    ENSURE(orca_solve(h, 2, 0, 4.0, p, scratch, &sr) == ORCA_OK);
    ENSURE(sr.failed == 1 && sr.fallback == 1);
    ENSURE_BITS(sr.velocity.x, 0x1.3333333333333p+1);
    ENSURE_BITS(sr.velocity.y, 0x1.999999999999ap+1);
    /* with the one rule changed (FIX_PARALLEL) the program is feasible, with h0's answer
     * to rounding (p projected on line 1 instead of line 0) */
    r = ref_solve(h, 2, 4.0, p, FIX_PARALLEL);
    ENSURE(r.failed == -1);
    ENSURE_NEAR(r.velocity.x, -1.8, 1e-15);
    ENSURE_NEAR(r.velocity.y, 1.35, 1e-15);
    printf("lp_brute: NOTE: the parallel rule (choice 11): a duplicate of h0 moves the answer "
           "from (-1.8, 1.35) to (%.17g, %.17g)\n", sr.velocity.x, sr.velocity.y);
    return 0;
}

/* The exact violation test (algorithm.md §8.2, choice 11) at a vertex that a later line passes
 * through: a feasible set reported infeasible, with a 53-degree crossing (no near-parallel
 * lines involved).
 * P = (1, 4)/sqrt(17) = (0x1.f0b6848d2af1cp-3, 0x1.f0b6848d2af1cp-1), |P| computes to exactly
 * 1 = R: P is on the circle. h0: v.y >= P.y (N (0, 1)), the cap of the disc above the chord
 * through P; h1: the line through the same P with N (-0.6, 0.8), v.y >= P.y + 0.75 (v.x -
 * P.x), which is looser than h0 wherever v.x <= P.x, so it is redundant in the cap. The
 * exact answer for p = (0.5, 0) is the chord's end nearest p, P itself.
 * The program (algorithm.md §8): start v = p; h0: violated; line 0, d = (-1, 0), pd = -P.x,
 * s = sqrt(P.x^2 + 1 - P.P) = 0x1.f0b6848d2af1dp-3 (one ulp above P.x): the interval is
 * [P.x - s, P.x + s] = [-2^-55, ..]; t = d.(p - P) = -0x1.07a4bdb96a872p-2 is below it, so
 * t = -2^-55 and v = (0x1.f0b6848d2af1dp-3, P.y): P, one ulp out in x. h1: g1(v) = one ulp *
 * -0.6 = -0x1.3333333333333p-56 < 0, so line 1 is processed: d = (-0.8, -0.6), pd =
 * -0x1.8d5ed070ef27cp-1, s = 0x1.8d5ed070ef27bp-1: lower = -pd - s = 2^-53 (0 in real numbers,
 * P on the circle); j = 0: denom = -0.6 < 0, num = (P - P).N0 = 0, t = 0 lowers the upper
 * end to 0: lower > upper, infeasible at 1. The part of line 1 in the disc and in h0 is the
 * single point P (t = 0), and its two ends round to the wrong order.
 * orca_solve then runs the fallback: max min(g0, g1) over the disc is at (0, 1): 0.25 m/s from
 * the optimum with R = 1. algorithm.md is literal here too (§8.2 skips a half-plane only when
 * SD_i(v) >= 0, with no tolerance; §8.3 fails as soon as lo > hi), and the library follows it;
 * the random tests count this mechanism (FIX_VERTEX: a violation test with a tolerance of a few
 * ulp, SD_i(v) >= -4 eps (R + |P_i|), removes it). */
static int test_hand_vertex_on_later_line(void)
{
    orca_vec2 P = vv(0x1.f0b6848d2af1cp-3, 0x1.f0b6848d2af1cp-1);
    ENSURE_BITS(vlen(P), 1.0);
    ENSURE_BITS(0.6 * 0.6 + 0.8 * 0.8, 1.0);
    orca_halfplane h[2] = {{P, {0, 1}}, {P, {-0.6, 0.8}}};
    orca_vec2 p = vv(0.5, 0);
    orca_lp_result r;
    ENSURE(orca_lp_solve(h, 1, 1.0, p, &r) == ORCA_OK);
    ENSURE(r.failed == -1);
    ENSURE_BITS(r.velocity.x, 0x1.f0b6848d2af1dp-3);
    ENSURE_BITS(r.velocity.y, 0x1.f0b6848d2af1cp-1);
    ENSURE_BITS(g_of(h[1], r.velocity), -0x1.3333333333333p-56);
    ENSURE(orca_lp_solve(h, 2, 1.0, p, &r) == ORCA_OK);
    ENSURE(r.failed == 1); /* choice 11; the set is feasible and h1 redundant */
    ENSURE(orca_lp_solve_direction(h, 2, 1.0, vv(1, 0), &r) == ORCA_OK);
    ENSURE(r.failed == 1); /* the same through the direction program */
    orca_halfplane scratch[2];
    orca_solve_result sr;
    ENSURE(orca_solve(h, 2, 0, 1.0, p, scratch, &sr) == ORCA_OK);
    ENSURE(sr.failed == 1 && sr.fallback == 1);
    ENSURE_BITS(sr.velocity.x, 0.0);
    ENSURE_BITS(sr.velocity.y, 1.0);
    /* with the violation test given a few ulp (FIX_VERTEX) the answer is P (+ 1 ulp) */
    r = ref_solve(h, 2, 1.0, p, FIX_VERTEX);
    ENSURE(r.failed == -1);
    ENSURE_BITS(r.velocity.x, 0x1.f0b6848d2af1dp-3);
    ENSURE_BITS(r.velocity.y, 0x1.f0b6848d2af1cp-1);
    printf("lp_brute: NOTE: the exact violation test (choice 11): a redundant h1 through P "
           "moves the answer from P = (%.17g, %.17g) to (%.17g, %.17g)\n",
           P.x, P.y, sr.velocity.x, sr.velocity.y);
    return 0;
}

/* The first failing index. R = 2, p = (1, 1).
 * h0: v.x >= 0.5; h1: v.y >= 0.5; h2: v.x + v.y <= 0.5 (N = -(1,1)/sqrt2, P (0.25, 0.25));
 * h3: v.x >= 3 (outside the disc on its own). Start (1, 1): h0, h1 hold; h2: g < 0. Line 2:
 * d = (s, -s) with s = 1/sqrt2 (to rounding), pd = 0; j = 0: denom = s > 0, num = -0.25:
 * t = 0.25/s raises the lower end; j = 1: denom = -s < 0, num = -0.25: t = -0.25/s lowers
 * the upper end: lower > upper, infeasible at 2 (not 3, though 3 is infeasible too).
 * The held velocity is (1, 1).
 * Second list: h0 and then h3: line 3, pd*pd + R*R - P.P = 4 - 9 < 0: infeasible at 1. */
static int test_hand_first_failing_index(void)
{
    double s = 1.0 / sqrt(2.0);
    orca_halfplane h[4] = {hp(0.5, 0, 1, 0), hp(0, 0.5, 0, 1), hp(0.25, 0.25, -s, -s),
                           hp(3, 0, 1, 0)};
    orca_lp_result r;
    ENSURE(orca_lp_solve(h, 4, 2.0, vv(1, 1), &r) == ORCA_OK);
    ENSURE(r.failed == 2);
    ENSURE_BITS(r.velocity.x, 1.0);
    ENSURE_BITS(r.velocity.y, 1.0);
    ENSURE(orca_lp_solve_direction(h, 4, 2.0, vv(1, 1), &r) == ORCA_OK);
    ENSURE(r.failed == 2);
    orca_halfplane h2[2] = {hp(0.5, 0, 1, 0), hp(3, 0, 1, 0)};
    ENSURE(orca_lp_solve(h2, 2, 2.0, vv(1, 1), &r) == ORCA_OK);
    ENSURE(r.failed == 1);
    ENSURE_BITS(r.velocity.x, 1.0);
    ENSURE_BITS(r.velocity.y, 1.0);
    /* orca_solve reports the same index; with hard_count 3 it is inside the hard prefix */
    orca_halfplane scratch[4];
    orca_solve_result sr;
    ENSURE(orca_solve(h, 4, 3, 2.0, vv(1, 1), scratch, &sr) == ORCA_OK);
    ENSURE(sr.failed == 2 && sr.fallback == 1);
    return 0;
}

/* Direction program by hand: h0: v.x >= 0.5, h1: v.y >= 0.5, R = 2, direction (-1, -1).
 * Start (-1,-1)/sqrt2 * 2. h0 violated: line x = 0.5, d = (-0, 1), d.dir = -1 < 0: the
 * lower end t = -sqrt(3.75): v = (0.5, -sqrt(3.75)). h1 violated: line y = 0.5, d = (-1, 0);
 * j = 0: denom = -1, num = -0.5, t = -0.5 lowers the upper end; d.dir = 1 > 0: the upper
 * end: v = (0, 0.5) + (-1, 0) * -0.5 = (0.5, 0.5), the vertex. */
static int test_hand_direction(void)
{
    orca_halfplane h[2] = {hp(0.5, 0, 1, 0), hp(0, 0.5, 0, 1)};
    orca_lp_result r;
    ENSURE(orca_lp_solve_direction(h, 2, 2.0, vv(-1, -1), &r) == ORCA_OK);
    ENSURE(r.failed == -1);
    ENSURE_BITS(r.velocity.x, 0.5);
    ENSURE_BITS(r.velocity.y, 0.5);
    return 0;
}

/* Fallback with a hard constraint that binds, and the d.N = 0 branch on a hard line.
 * h0 (hard): v.x <= 0.5 (P (0.5,0), N (-1,0)); h1: v.y >= 1 (P (0,1), N (0,1));
 * h2: v.x >= 3 (P (3,0), N (1,0)). R = 2, p = (0, 0).
 * Program: start (0,0): h0 ok; h1 violated: line y = 1, d = (-1, 0), t = d.(p - P) = -0:
 * v = (0, 1); h2 violated: line x = 3 is outside the disc (0 + 4 - 9 < 0): fails at 2.
 * Fallback, h0 hard: first soft h1: maximize v.y: start (0, 2), h0 holds: v = (0, 2),
 * level = 1. h2: g2 = -3 < 1: bisector of h1 and h2: m = (0,1) - (1,0) = (-1, 1),
 * rhs = 1 - 3 = -2: v.y >= v.x - 2. Maximize g2 (direction (1, 0)): start (2, 0); h0
 * violated: line x = 0.5, d = (-0, -1), d.(1,0) = -0: neither > 0 nor < 0, so v as held
 * before the line is projected (algorithm.md §9): t = d.((2,0) - (0.5,0)) = -0, v = (0.5, 0). The bisector
 * holds there (0 >= -1.5). Result (0.5, 0): min(g1, g2) = min(-1, -2.5) = -2.5, the
 * max-min (g2 = v.x - 3 <= -2.5 whenever v.x <= 0.5). */
static int test_hand_fallback_hard(void)
{
    orca_halfplane h[3] = {hp(0.5, 0, -1, 0), hp(0, 1, 0, 1), hp(3, 0, 1, 0)};
    orca_halfplane scratch[3];
    orca_solve_result sr;
    ENSURE(orca_solve(h, 3, 1, 2.0, vv(0, 0), scratch, &sr) == ORCA_OK);
    ENSURE(sr.failed == 2 && sr.fallback == 1);
    ENSURE_BITS(sr.velocity.x, 0.5);
    ENSURE_BITS(sr.velocity.y, 0.0);
    orca_vec2 v;
    ENSURE(orca_lp_fallback(h, 3, 1, 2, 2.0, scratch, &v) == ORCA_OK);
    ENSURE_BITS(v.x, 0.5);
    ENSURE_BITS(v.y, 0.0);
    return 0;
}

/* The program fails inside the hard prefix. h0: v.x >= 1, h1: v.x <= -1 (both hard),
 * h2: v.y >= 1.5 (soft). R = 2, p = (0, 0). Program: h0 violated: line x = 1, t = 0:
 * v = (1, 0); h1 violated: line x = -1, d = (-0, -1); j = 0: denom = -0, parallel,
 * num = (-1 - 1) * 1 = -2 < 0: infeasible at 1 < hard count = 2.
 * algorithm.md §10: the hard prefix is relaxed by itself, nothing hard, and h2 is ignored:
 * first soft h0: maximize v.x: (2, 0), level 1. h1: g1 = -3 < 1: bisector
 * m = (2, 0), rhs = 1 - 1 = 0: v.x >= 0 (point (0, 0)). Maximize g1 (direction (-1, 0)):
 * start (-2, 0) violates it; line d = (-0, 1), d.(-1,0) = 0: projection of v, t = 0:
 * v = (0, 0). Result (0, 0), min g = -1. h2 is ignored: with it (g2(0,0) = -1.5 < -1) the
 * result would move up. */
static int test_hand_fallback_prefix(void)
{
    orca_halfplane h[3] = {hp(1, 0, 1, 0), hp(-1, 0, -1, 0), hp(0, 1.5, 0, 1)};
    orca_halfplane scratch[3];
    orca_solve_result sr;
    ENSURE(orca_solve(h, 3, 2, 2.0, vv(0, 0), scratch, &sr) == ORCA_OK);
    ENSURE(sr.failed == 1 && sr.fallback == 1);
    ENSURE_BITS(sr.velocity.x, 0.0);
    ENSURE_BITS(sr.velocity.y, 0.0);
    /* the same list with nothing hard: h2 now counts and lifts the result */
    ENSURE(orca_solve(h, 3, 0, 2.0, vv(0, 0), scratch, &sr) == ORCA_OK);
    ENSURE(sr.failed == 1 && sr.fallback == 1);
    ENSURE(sr.velocity.y > 0.1);
    return 0;
}

/* orca_lp_fallback and orca_solve argument errors; the output is left untouched. */
static int test_hand_fallback_args(void)
{
    orca_halfplane h[2] = {hp(0.5, 0, 1, 0), hp(0.2, 0, -1, 0)};
    orca_halfplane scratch[2];
    const orca_vec2 mark = {12.5, -3.25};
    orca_vec2 v = mark;
    ENSURE(orca_lp_fallback(h, 2, 0, 1, 2.0, NULL, &v) == ORCA_ERR_NULL);
    ENSURE(orca_lp_fallback(NULL, 2, 0, 1, 2.0, scratch, &v) == ORCA_ERR_NULL);
    ENSURE(orca_lp_fallback(h, 2, 0, 1, 2.0, scratch, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_lp_fallback(h, 2, 3, 1, 2.0, scratch, &v) == ORCA_ERR_ARGUMENT);  /* hard > count */
    ENSURE(orca_lp_fallback(h, 2, -1, 1, 2.0, scratch, &v) == ORCA_ERR_ARGUMENT); /* hard < 0 */
    ENSURE(orca_lp_fallback(h, 2, 0, 2, 2.0, scratch, &v) == ORCA_ERR_ARGUMENT); /* failed=count */
    ENSURE(orca_lp_fallback(h, 2, 0, -1, 2.0, scratch, &v) == ORCA_ERR_ARGUMENT); /* failed < 0 */
    ENSURE(orca_lp_fallback(h, 0, 0, 0, 2.0, scratch, &v) == ORCA_ERR_ARGUMENT);  /* count < 1 */
    ENSURE(orca_lp_fallback(h, -1, 0, 0, 2.0, scratch, &v) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_lp_fallback(h, 2, 0, 1, -1.0, scratch, &v) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_lp_fallback(h, 2, 0, 1, NAN, scratch, &v) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_lp_fallback(h, 2, 0, 1, INFINITY, scratch, &v) == ORCA_ERR_ARGUMENT);
    ENSURE_BITS(v.x, mark.x);
    ENSURE_BITS(v.y, mark.y);
    ENSURE(orca_lp_fallback(h, 2, 0, 1, 2.0, scratch, &v) == ORCA_OK);
    ENSURE_NEAR(v.x, 0.35, 1e-15);

    orca_solve_result sr, mark_sr;
    memset(&mark_sr, 0x5a, sizeof mark_sr);
    sr = mark_sr;
    ENSURE(orca_solve(h, 2, 0, 2.0, vv(1, 0), NULL, &sr) == ORCA_ERR_NULL);
    ENSURE(orca_solve(h, 2, 3, 2.0, vv(1, 0), scratch, &sr) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_solve(h, 2, -1, 2.0, vv(1, 0), scratch, &sr) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_solve(h, 2, 0, 2.0, vv(1, 0), scratch, NULL) == ORCA_ERR_NULL);
    ENSURE(memcmp(&sr, &mark_sr, sizeof sr) == 0);
    /* count 0: scratch may be NULL, nothing fails */
    ENSURE(orca_solve(NULL, 0, 0, 2.0, vv(3, 4), NULL, &sr) == ORCA_OK);
    ENSURE(sr.failed == -1 && sr.fallback == 0);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"hand_parallel_infeasible", test_hand_parallel_infeasible},
    {"hand_parallel_ignored", test_hand_parallel_ignored},
    {"hand_near_parallel_ignored", test_hand_near_parallel_ignored},
    {"hand_near_parallel_infeasible", test_hand_near_parallel_infeasible},
    {"hand_parallel_rule_same_direction", test_hand_parallel_rule_same_direction},
    {"hand_vertex_on_later_line", test_hand_vertex_on_later_line},
    {"hand_first_failing_index", test_hand_first_failing_index},
    {"hand_direction", test_hand_direction},
    {"hand_fallback_hard", test_hand_fallback_hard},
    {"hand_fallback_prefix", test_hand_fallback_prefix},
    {"hand_fallback_args", test_hand_fallback_args},
    {"random_feasible", test_random_feasible},
    {"random_infeasible", test_random_infeasible},
    {"random_degenerate", test_random_degenerate},
    {"random_hard_prefix_infeasible", test_random_hard_prefix_infeasible},
    {"summary", test_summary},
    {0, 0},
};
