/* SPDX-License-Identifier: MIT */
/* Navigation's geometry (docs/navigation.md): the angle of a direction (a series, no libm),
 * the distances between points and segments, and the tangents from a point to a circle and
 * between two circles. Every operation is binary64 as written, sqrt the only function. */
#include "nav_internal.h"

#include "vec.h"

#define NAV_PI_4 0x1.921fb54442d18p-1
#define NAV_PI_2 0x1.921fb54442d18p+0
#define NAV_TAN_PI_8 0x1.a827999fcef32p-2
#define NAV_ATAN_TERMS 22

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

double orca_nv_cross2(orca_vec2 a, orca_vec2 b) { return a.x * b.y - a.y * b.x; }

/* Squared distance from p to the segment a-b. */
double orca_nv_pt_seg_d2(orca_vec2 p, orca_vec2 a, orca_vec2 b)
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
    double d1 = orca_nv_cross2(pq, v2_sub(a, p)), d2 = orca_nv_cross2(pq, v2_sub(b, p));
    double d3 = orca_nv_cross2(ab, v2_sub(p, a)), d4 = orca_nv_cross2(ab, v2_sub(q, a));
    return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) &&
           ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

/* Squared distance between segments p-q and a-b: 0 when they cross, else the least of the
 * four end-to-segment distances. */
double orca_nv_seg_seg_d2(orca_vec2 p, orca_vec2 q, orca_vec2 a, orca_vec2 b)
{
    if (nv_seg_cross(p, q, a, b)) {
        return 0.0;
    }
    double d = orca_nv_pt_seg_d2(p, a, b), e = orca_nv_pt_seg_d2(q, a, b);
    d = e < d ? e : d;
    e = orca_nv_pt_seg_d2(a, p, q);
    d = e < d ? e : d;
    e = orca_nv_pt_seg_d2(b, p, q);
    return e < d ? e : d;
}

/* The tangent point t on the circle (c, r) of the line from p that touches it with c on side
 * s of the direction p -> t (s = 1: left): with w = c - p, D2 = w.w, h = sqrt(D2 - r*r),
 * t = p + h (h w - s r perp(w)) / D2, perp(w) = (-w.y, w.x). 0 when p is not outside the
 * circle (D2 <= r*r). */
int orca_nv_tan_pc(orca_vec2 p, orca_vec2 c, double r, int s, orca_vec2 *t)
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
 * tv = orca_nv_tan_pc(m, v, sv), tu the same from m to u with the side reversed. 0 when none. */
int orca_nv_tan_cc(orca_vec2 u, int su, orca_vec2 v, int sv, double r, orca_vec2 *tu,
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
    return orca_nv_tan_pc(m, v, r, sv, tv) && orca_nv_tan_pc(m, u, r, -su, tu);
}

/* A coordinate with -0 made +0 (x + 0.0), so that equal ends are equal bits. */
orca_vec2 orca_nv_norm0(orca_vec2 p) { return v2(p.x + 0.0, p.y + 0.0); }
