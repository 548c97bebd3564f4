/* SPDX-License-Identifier: MIT */
/* The solver: velocity obstacles, ORCA half-planes and the linear programs of
 * docs/algorithm.md sections 2 to 10. Every expression follows that page's operand order;
 * comments cite its sections (as "algorithm.md §N") and the readings of docs/spec-choices.md
 * (as "choice N"). */
#include "orca/solver.h"

#include "kernels.h"
#include "vec.h"

#include <float.h>
#include <stddef.h>
#ifdef ORCA_HAVE_AVX
#include <immintrin.h>
#endif

double orca_halfplane_signed_distance(orca_halfplane h, orca_vec2 v)
{
    /* SignedDistance(v) = (v - P) . N */
    return v2_dot(v2_sub(v, h.point), h.normal);
}

/* ---------------------------------------------------------------------------------------
 * Velocity obstacle, support-function form
 * ------------------------------------------------------------------------------------- */

typedef struct vo_search {
    orca_vec2 a, b, wa, wb;
    double r, tol_a, tol_b;
    int admit_all; /* overlap form: no domain test */
    int has_best;
    double best;
    orca_vec2 best_n;
} vo_search;

static double vo_value(const vo_search *s, orca_vec2 n)
{
    /* Value of a candidate: min(n.wa, n.wb). Equal values give the same number either way. */
    double va = v2_dot(n, s->wa);
    double vb = v2_dot(n, s->wb);
    return vb < va ? vb : va;
}

static void vo_consider(vo_search *s, orca_vec2 n)
{
    /* Domain test: n.a + r <= tolA and n.b + r <= tolB (a NaN candidate fails it). */
    if (!s->admit_all && !(v2_dot(n, s->a) + s->r <= s->tol_a && v2_dot(n, s->b) + s->r <= s->tol_b)) {
        return;
    }
    double value = vo_value(s, n);
    /* A later candidate replaces the best only with a strictly greater value; the first
     * survivor is the best so far (algorithm.md §3.6, choice 2). */
    if (!s->has_best || value > s->best) {
        s->has_best = 1;
        s->best = value;
        s->best_n = n;
    }
}

static void vo_consider_unit(vo_search *s, orca_vec2 w)
{
    /* Unit(w), skipped when w = 0 (choice 1). */
    if (w.x == 0 && w.y == 0) {
        return;
    }
    vo_consider(s, v2_unit(w));
}

static void vo_consider_legs(vo_search *s, orca_vec2 p)
{
    /* rho2 = p.p, l = sqrt(rho2 - r*r), c = -r*p, q = (-p.y*l, p.x*l),
     * n = (c + q) / rho2 and n = (c - q) / rho2, each component divided separately. */
    double r = s->r;
    double rho2 = v2_dot(p, p);
    double l = sqrt(rho2 - r * r);
    orca_vec2 c = v2_mul(p, -r);
    orca_vec2 q = v2(-p.y * l, p.x * l);
    vo_consider(s, v2_div(v2_add(c, q), rho2));
    vo_consider(s, v2_div(v2_sub(c, q), rho2));
}

/* zero_x: the x component of the no-candidate direction when a + b is zero, 1 as
 * algorithm.md §3.7 says; -1 only for the separation of coincident agents
 * (docs/extensions.md, "Coincident agents"), which gives the higher index of a pair (-1, 0). */
static orca_vo vo_evaluate(orca_vec2 a, orca_vec2 b, double r, double tau, orca_vec2 x, int overlap,
                           double zero_x)
{
    vo_search s;
    s.a = a;
    s.b = b;
    s.r = r;
    /* wa = x - a/tau, wb = x - b/tau */
    s.wa = v2_sub(x, v2_div(a, tau));
    s.wb = v2_sub(x, v2_div(b, tau));
    /* tolA = 1e-9 * (|a| + r), tolB = 1e-9 * (|b| + r) */
    s.tol_a = 1e-9 * (v2_len(a) + r);
    s.tol_b = 1e-9 * (v2_len(b) + r);
    s.admit_all = overlap;
    s.has_best = 0;
    s.best = 0;
    s.best_n = v2(0, 0);

    int distinct = a.x != b.x || a.y != b.y;
    vo_consider_unit(&s, s.wa);
    if (distinct) {
        vo_consider_unit(&s, s.wb);
        /* +nn and -nn, nn = Unit((-e.y, e.x)), e = b - a, not zero for a != b (choice 1) */
        orca_vec2 e = v2_sub(b, a);
        orca_vec2 nn = v2_unit(v2(-e.y, e.x));
        vo_consider(&s, nn);
        vo_consider(&s, v2_neg(nn));
    }
    if (!overlap) {
        /* The leg normals of a, then of b when a != b (algorithm.md §3.4); not used for the
         * overlap form (§5, choice 3). */
        vo_consider_legs(&s, a);
        if (distinct) {
            vo_consider_legs(&s, b);
        }
    }
    if (!s.has_best) {
        /* No survivor: Unit(-(a + b)), or (1, 0) if a + b = 0 (choice 1). */
        orca_vec2 ab = v2_add(a, b);
        orca_vec2 n = ab.x == 0 && ab.y == 0 ? v2(zero_x, 0) : v2_unit(v2_neg(ab));
        s.best = vo_value(&s, n);
        s.best_n = n;
    }
    orca_vo out;
    /* d = best - r/tau, n = bestN */
    out.distance = s.best - r / tau;
    out.normal = s.best_n;
    return out;
}

orca_vo orca_vo_support(orca_vec2 a, orca_vec2 b, double r, double tau, orca_vec2 x)
{
    return vo_evaluate(a, b, r, tau, x, 0, 1);
}

orca_vo orca_vo_overlap(orca_vec2 a, orca_vec2 b, double r, double dt, orca_vec2 x)
{
    return vo_evaluate(a, b, r, dt, x, 1, 1);
}

/* ---------------------------------------------------------------------------------------
 * Velocity obstacle, closed case form for agents (section 4 of the paper)
 * ------------------------------------------------------------------------------------- */

orca_vo_cases orca_vo_agent_cases(orca_vec2 a, double r, double tau, orca_vec2 x)
{
    orca_vo_cases out;
    /* w = x - a/tau (each component divided); dot1 = w.a */
    orca_vec2 w = v2_sub(x, v2_div(a, tau));
    double dot1 = v2_dot(w, a);
    double rr = r * r;
    if (dot1 < 0 && dot1 * dot1 > rr * v2_dot(w, w)) {
        /* Cutoff: n = w / |w|, u = n * (r/tau - |w|). */
        double wl = v2_len(w);
        orca_vec2 n = v2_div(w, wl);
        out.normal = n;
        out.u = v2_mul(n, r / tau - wl);
        out.kind = ORCA_CASE_CUTOFF;
        return out;
    }
    double aa = v2_dot(a, a);
    double leg = sqrt(aa - rr);
    double cross = a.x * w.y - a.y * w.x;
    orca_vec2 dir;
    if (cross > 0) {
        /* Left leg: dir = ((a.x*leg - a.y*r), (a.x*r + a.y*leg)) / a.a, n = (-dir.y, dir.x) */
        dir = v2_div(v2(a.x * leg - a.y * r, a.x * r + a.y * leg), aa);
        out.normal = v2(-dir.y, dir.x);
        out.kind = ORCA_CASE_LEFT_LEG;
    } else {
        /* Right leg (also the cross = 0 tie): dir = ((a.x*leg + a.y*r), (a.y*leg - a.x*r)) / a.a,
         * n = (dir.y, -dir.x) */
        dir = v2_div(v2(a.x * leg + a.y * r, a.y * leg - a.x * r), aa);
        out.normal = v2(dir.y, -dir.x);
        out.kind = ORCA_CASE_RIGHT_LEG;
    }
    /* along = x.dir, u = dir * along - x */
    double along = v2_dot(x, dir);
    out.u = v2_sub(v2_mul(dir, along), x);
    return out;
}

double orca_segment_distance_squared(orca_vec2 a, orca_vec2 b)
{
    /* The clamped projection of the origin on a + t e (choice 4 for e.e == 0). */
    orca_vec2 e = v2_sub(b, a);
    double ee = v2_dot(e, e);
    double t = 0;
    if (ee > 0) {
        t = -v2_dot(a, e) / ee;
        if (t < 0) {
            t = 0;
        } else if (t > 1) {
            t = 1;
        }
    }
    orca_vec2 c = v2_add(a, v2_mul(e, t));
    return v2_dot(c, c);
}

/* ---------------------------------------------------------------------------------------
 * Constraint builders
 * ------------------------------------------------------------------------------------- */

orca_halfplane orca_constraint_agent(orca_vec2 rel_pos, double r, orca_vec2 va, orca_vec2 vb,
                                     double tau, double dt, orca_form *form)
{
    return orca_constraint_agent_share(rel_pos, r, va, vb, tau, dt, 0.5, form);
}

orca_halfplane orca_constraint_agent_share(orca_vec2 rel_pos, double r, orca_vec2 va,
                                           orca_vec2 vb, double tau, double dt, double share,
                                           orca_form *form)
{
    /* a = b = pB - pA, r = rA + rB, x = vA - vB */
    orca_vec2 x = v2_sub(va, vb);
    orca_vec2 u, n;
    /* Overlap when distance^2 <= r*r; for a point the squared distance is a.a. */
    if (v2_dot(rel_pos, rel_pos) > r * r) {
        orca_vo_cases c = orca_vo_agent_cases(rel_pos, r, tau, x);
        u = c.u;
        n = c.normal;
        if (form) {
            *form = ORCA_FORM_CASES;
        }
    } else {
        orca_vo vo = orca_vo_overlap(rel_pos, rel_pos, r, dt, x);
        /* u = -d n */
        u = v2_mul(vo.normal, -vo.distance);
        n = vo.normal;
        if (form) {
            *form = ORCA_FORM_OVERLAP;
        }
    }
    /* P = vA + responsibility * u; the algorithm's responsibility is 1/2 (share 0.5:
     * u * 0.5 is the same operation as before the extension) */
    orca_halfplane h;
    h.point = v2_add(va, v2_mul(u, share));
    h.normal = n;
    return h;
}

orca_halfplane orca_constraint_agent_sep(orca_vec2 rel_pos, double r, orca_vec2 va, orca_vec2 vb,
                                         double tau, double dt, double share, int higher,
                                         orca_form *form)
{
    if (!higher || v2_dot(rel_pos, rel_pos) > r * r) {
        return orca_constraint_agent_share(rel_pos, r, va, vb, tau, dt, share, form);
    }
    /* The overlap form with (-1, 0) as the no-candidate direction when a + b computes to
     * zero; the rest as in orca_constraint_agent_share. */
    orca_vo vo = vo_evaluate(rel_pos, rel_pos, r, dt, v2_sub(va, vb), 1, -1);
    if (form) {
        *form = ORCA_FORM_OVERLAP;
    }
    orca_halfplane h;
    h.point = v2_add(va, v2_mul(v2_mul(vo.normal, -vo.distance), share));
    h.normal = vo.normal;
    return h;
}

orca_halfplane orca_constraint_segment(orca_vec2 a, orca_vec2 b, double r, double tau, double dt,
                                       orca_form *form)
{
    /* Optimization velocity zero, whole responsibility: P = u, N = n. */
    orca_vec2 x = v2(0, 0);
    orca_vo vo;
    if (orca_segment_distance_squared(a, b) > r * r) {
        vo = orca_vo_support(a, b, r, tau, x);
        if (form) {
            *form = ORCA_FORM_SUPPORT;
        }
    } else {
        vo = orca_vo_overlap(a, b, r, dt, x);
        if (form) {
            *form = ORCA_FORM_OVERLAP;
        }
    }
    orca_halfplane h;
    h.point = v2_mul(vo.normal, -vo.distance);
    h.normal = vo.normal;
    return h;
}

int orca_constraint_boundary(orca_vec2 a, orca_vec2 b, double clearance, double tau,
                             orca_halfplane *out)
{
    if (!out) {
        return ORCA_ERR_NULL;
    }
    /* e = b - a; no constraint when e = 0 (choice 1: |e| == 0) */
    orca_vec2 e = v2_sub(b, a);
    double le = v2_len(e);
    if (le == 0) {
        return 0;
    }
    /* s = -(a.e)/(e.e), n = (-e.y, e.x)/|e|, d = -(a.n) */
    double s = -v2_dot(a, e) / v2_dot(e, e);
    orca_vec2 n = v2_div(v2(-e.y, e.x), le);
    double d = -v2_dot(a, n);
    /* m = (clearance + 1e-6)/|e|: beside the stretch when s <= m or s >= 1 - m */
    double m = (clearance + 1e-6) / le;
    if (s <= m || s >= 1 - m) {
        return 0;
    }
    /* the stretch faces away */
    if (d < -1e-6) {
        return 0;
    }
    /* point -n * (d - clearance) / tau, read left to right (choice 8) */
    double k = d - clearance;
    out->point = v2_div(v2_mul(v2_neg(n), k), tau);
    out->normal = n;
    return 1;
}

/* ---------------------------------------------------------------------------------------
 * The linear programs
 * ------------------------------------------------------------------------------------- */

/* The programs themselves are in lp.inc: the copy every CPU runs (and the functions below
 * use), and the AVX2 copy of the step (kernels.h, orca_solve_step_avx2). */
#define LP_FN(name) name
#define LP_TARGET
#define LP_VECTOR 0
#include "lp.inc"
#undef LP_FN
#undef LP_TARGET
#undef LP_VECTOR

#ifdef ORCA_HAVE_AVX
#define LP_FN(name) name##_avx2
#define LP_TARGET ORCA_AVX
#define LP_VECTOR 1
#include "lp.inc"
#undef LP_FN
#undef LP_TARGET
#undef LP_VECTOR
#endif

#ifdef ORCA_HAVE_SIMD128
/* the SIMD128 module's copy (docs/web.md): the fallback's projections two at a time */
#define LP_FN(name) name##_simd128
#define LP_TARGET
#define LP_VECTOR 2
#include "lp.inc"
#undef LP_FN
#undef LP_TARGET
#undef LP_VECTOR
#endif

static orca_status lp_check(const orca_halfplane *planes, int count, double max_speed,
                            const void *out)
{
    if (!out || (count > 0 && !planes)) {
        return ORCA_ERR_NULL;
    }
    /* max_speed >= 0 and finite (NaN fails the first test) */
    if (count < 0 || !(max_speed >= 0) || max_speed > DBL_MAX) {
        return ORCA_ERR_ARGUMENT;
    }
    return ORCA_OK;
}

orca_status orca_lp_solve(const orca_halfplane *planes, int count, double max_speed,
                          orca_vec2 preferred, orca_lp_result *out)
{
    orca_status st = lp_check(planes, count, max_speed, out);
    if (st != ORCA_OK) {
        return st;
    }
    *out = lp_run(planes, count, max_speed, preferred, NULL, lp_start_toward(preferred, max_speed));
    return ORCA_OK;
}

orca_status orca_lp_solve_direction(const orca_halfplane *planes, int count, double max_speed,
                                    orca_vec2 direction, orca_lp_result *out)
{
    orca_status st = lp_check(planes, count, max_speed, out);
    if (st != ORCA_OK) {
        return st;
    }
    *out = lp_run_direction(planes, count, max_speed, direction);
    return ORCA_OK;
}

orca_status orca_lp_fallback(const orca_halfplane *planes, int count, int hard_count,
                             int failed_index, double max_speed, orca_halfplane *scratch,
                             orca_vec2 *velocity)
{
    orca_status st = lp_check(planes, count, max_speed, velocity);
    if (st != ORCA_OK) {
        return st;
    }
    if (!scratch || !planes) {
        return ORCA_ERR_NULL;
    }
    if (count < 1 || hard_count < 0 || hard_count > count || failed_index < 0 ||
        failed_index >= count) {
        return ORCA_ERR_ARGUMENT;
    }
    *velocity = lp_fallback_dispatch(planes, count, hard_count, failed_index, max_speed, scratch);
    return ORCA_OK;
}

orca_status orca_solve(const orca_halfplane *planes, int count, int hard_count, double max_speed,
                       orca_vec2 preferred, orca_halfplane *scratch, orca_solve_result *out)
{
    orca_status st = lp_check(planes, count, max_speed, out);
    if (st != ORCA_OK) {
        return st;
    }
    if (count > 0 && !scratch) {
        return ORCA_ERR_NULL;
    }
    if (hard_count < 0 || hard_count > count) {
        return ORCA_ERR_ARGUMENT;
    }
    orca_solve_result res =
        orca_solve_step(planes, count, hard_count, max_speed, preferred, scratch);
    *out = res;
    return ORCA_OK;
}
