/* SPDX-License-Identifier: MIT */
/* Private vector helpers. Each one is docs/algorithm.md §1.3's definition, operands in order:
 * Dot(a, b) = a.x*b.x + a.y*b.y, Length = sqrt(Dot(a, a)); v / s and v * s act on each
 * component separately. */
#ifndef ORCA_VEC_H
#define ORCA_VEC_H

#include "fp.h"
#include "orca/base.h"

static inline orca_vec2 v2(double x, double y)
{
    orca_vec2 v = {x, y};
    return v;
}
static inline orca_vec2 v2_add(orca_vec2 a, orca_vec2 b) { return v2(a.x + b.x, a.y + b.y); }
static inline orca_vec2 v2_sub(orca_vec2 a, orca_vec2 b) { return v2(a.x - b.x, a.y - b.y); }
static inline orca_vec2 v2_neg(orca_vec2 a) { return v2(-a.x, -a.y); }
static inline orca_vec2 v2_mul(orca_vec2 a, double s) { return v2(a.x * s, a.y * s); }
static inline orca_vec2 v2_div(orca_vec2 a, double s) { return v2(a.x / s, a.y / s); }
static inline double v2_dot(orca_vec2 a, orca_vec2 b) { return a.x * b.x + a.y * b.y; }
static inline double v2_len(orca_vec2 a) { return sqrt(v2_dot(a, a)); }
/* Unit(w) of algorithm.md §1.3 for w != (0, 0): w / |w| as written when Dot(w, w) >= 2^-1022;
 * below that sqrt(Dot(w, w)) is not |w| to within rounding (the squares lost their low bits),
 * so w is first multiplied by 2^600 (exact) and the quotient is a unit vector again. */
static inline orca_vec2 v2_unit(orca_vec2 w)
{
    double ww = v2_dot(w, w);
    if (!(ww >= 0x1p-1022)) {
        w = v2_mul(w, 0x1p600);
        ww = v2_dot(w, w);
    }
    return v2_div(w, sqrt(ww));
}
static inline double d_abs(double a) { return a < 0 ? -a : a; }
/* |a| by clearing the sign bit: d_abs but for -0 (+0 here) and the sign of NaN. Only where
 * that cannot show: compared (|d| <= 1e-12), or summed with a positive term. One bitwise
 * and, where d_abs is a compare and a select. */
static inline double d_mag(double a)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_fabs(a);
#else
    return a < 0 ? -a : (a == 0 ? 0.0 : a);
#endif
}

#endif
