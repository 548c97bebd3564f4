/* SPDX-License-Identifier: MIT */
/* Exact signs of sums of products of doubles for the tests, written apart from the library's
 * (src/exact.c: 64-bit words, positive and negative sums apart, a floating-point filter): here
 * every product is split into 32-bit pieces added, with their signs, to signed 64-bit limbs
 * that carry only at the end, and the mantissas come from frexp. Inputs are finite doubles of
 * magnitude below 2^21. */
#ifndef ORCA_TEST_EXACT_REF_H
#define ORCA_TEST_EXACT_REF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <orca/base.h>

/* 32-bit limbs, bit 0 weighing 2^-2148: products below 2^42 and their sums fit well inside */
#define EXACT_REF_LIMBS 72

typedef struct exact_ref {
    int64_t limb[EXACT_REF_LIMBS];
} exact_ref;

/* |x| = m * 2^(e - 1074) exactly, m < 2^53, e >= 0 */
static inline void exact_ref_split(double x, uint64_t *m, int *e)
{
    if (x == 0) {
        *m = 0;
        *e = 0;
        return;
    }
    int ex;
    double f = frexp(fabs(x), &ex); /* |x| = f 2^ex, 0.5 <= f < 1 */
    uint64_t mm = (uint64_t)ldexp(f, 53);
    int ee = ex - 53 + 1074;
    while (ee < 0) { /* a subnormal: its low bits are zero */
        mm >>= 1;
        ++ee;
    }
    *m = mm;
    *e = ee;
}

/* acc += sign * v * 2^off, v < 2^32 */
static inline void exact_ref_piece(exact_ref *acc, uint64_t v, int off, int sign)
{
    int limb = off / 32, sh = off % 32;
    uint64_t s = v << sh; /* below 2^64 */
    acc->limb[limb] += sign * (int64_t)(s & 0xffffffffu);
    acc->limb[limb + 1] += sign * (int64_t)(s >> 32);
}

/* acc += sign * x * y */
static inline void exact_ref_add(exact_ref *acc, double x, double y, int sign)
{
    uint64_t mx, my;
    int ex, ey;
    exact_ref_split(x, &mx, &ex);
    exact_ref_split(y, &my, &ey);
    if ((x < 0) != (y < 0)) {
        sign = -sign;
    }
    uint64_t xh = mx >> 32, xl = mx & 0xffffffffu, yh = my >> 32, yl = my & 0xffffffffu;
    int off = ex + ey;
    uint64_t parts[4] = {xl * yl, xh * yl, xl * yh, xh * yh};
    int shifts[4] = {0, 32, 32, 64};
    for (int k = 0; k < 4; ++k) {
        exact_ref_piece(acc, parts[k] & 0xffffffffu, off + shifts[k], sign);
        exact_ref_piece(acc, parts[k] >> 32, off + shifts[k] + 32, sign);
    }
}

static inline int exact_ref_sign(const exact_ref *acc)
{
    int64_t carry = 0;
    int nonzero = 0;
    for (int k = 0; k < EXACT_REF_LIMBS; ++k) {
        int64_t v = acc->limb[k] + carry;
        int64_t low = v & 0xffffffff;
        carry = (v - low) / 4294967296LL;
        nonzero |= low != 0;
    }
    return carry < 0 ? -1 : carry > 0 ? 1 : nonzero;
}

/* sign of sum_k (p[k].x p[k+1].y - p[k+1].x p[k].y) */
static inline int exact_ref_shoelace(const orca_vec2 *p, int n)
{
    exact_ref acc;
    memset(&acc, 0, sizeof acc);
    for (int k = 0; k < n; ++k) {
        orca_vec2 a = p[k], b = p[(k + 1) % n];
        exact_ref_add(&acc, a.x, b.y, 1);
        exact_ref_add(&acc, b.x, a.y, -1);
    }
    return exact_ref_sign(&acc);
}

/* sign of (b - a) x (q - a): 1 when q lies left of a -> b */
static inline int exact_ref_orient(orca_vec2 a, orca_vec2 b, orca_vec2 q)
{
    orca_vec2 p[3] = {a, b, q};
    return exact_ref_shoelace(p, 3);
}

#endif
