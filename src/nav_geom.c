/* SPDX-License-Identifier: MIT */
/* Navigation's geometry (docs/navigation.md): the angle of a direction (a series, no libm) and
 * the distance between two segments; the smaller pieces its inner loops call (a point's
 * distance to a segment, the tangents from a point to a circle and between two circles) are
 * inline in nav_internal.h. Every operation is binary64 as written, sqrt the only function. */
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
double orca_nv_seg_seg_d2(orca_vec2 p, orca_vec2 q, orca_vec2 a, orca_vec2 b)
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

