/* SPDX-License-Identifier: MIT */
/* Exact signs of sums of products of coordinates: a loop's shoelace sum (its area test) and
 * the orientation of a point against a line (the inside test of the walkable area), both in
 * docs/extensions.md, "Walkable-area boundaries". A coordinate below 2^21 is an integer times
 * 2^-1074, so a product of two is an integer below 2^106 times 2^-2148: the sums are added as
 * integers in a fixed-point accumulator of 35 64-bit words, exact for subnormal inputs too.
 * A floating-point sum with a bound on its rounding decides first; the integers only when
 * that sum is too close to zero to tell. Integer operations only: the same answer everywhere. */
#include "exact.h"

#include "fp.h"
#include "vec.h"

#include <stdint.h>
#include <string.h>

/* Bits 0 .. 2239 weigh 2^-2148 .. 2^91: products below 2^42 (bit 2190), up to 2^26 of them. */
#define EXACT_WORDS 35

/* The magnitudes of the positive and of the negative products, apart: additions only. */
typedef struct exact_sum {
    uint64_t pos[EXACT_WORDS], neg[EXACT_WORDS];
} exact_sum;

/* x = (-1)^sign * m * 2^(e - 1074), m < 2^53, e >= 0. */
static void split(double x, uint64_t *m, int *e, int *sign)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    *sign = (int)(b >> 63);
    int be = (int)((b >> 52) & 0x7ff);
    uint64_t f = b & ((UINT64_C(1) << 52) - 1);
    if (be == 0) { /* zero or subnormal */
        *m = f;
        *e = 0;
    } else {
        *m = f | (UINT64_C(1) << 52);
        *e = be - 1;
    }
}

/* acc += m * 2^off, m = hi * 2^64 + lo. */
static void add_at(uint64_t *acc, uint64_t hi, uint64_t lo, int off)
{
    int w = off >> 6, sh = off & 63;
    uint64_t v[3];
    v[0] = lo << sh;
    v[1] = sh ? (lo >> (64 - sh)) | (hi << sh) : hi;
    v[2] = sh ? hi >> (64 - sh) : 0;
    uint64_t carry = 0;
    for (int k = 0; k < 3 || carry; ++k) {
        uint64_t add = k < 3 ? v[k] : 0;
        uint64_t s = acc[w + k] + add;
        uint64_t c1 = s < add;
        uint64_t s2 = s + carry;
        carry = c1 | (s2 < carry);
        acc[w + k] = s2;
    }
}

/* Adds sign * x * y (sign +1 or -1) to the sum. */
static void add_product(exact_sum *s, double x, double y, int sign)
{
    uint64_t mx, my;
    int ex, ey, sx, sy;
    split(x, &mx, &ex, &sx);
    split(y, &my, &ey, &sy);
    if (mx == 0 || my == 0) {
        return;
    }
    /* the 106-bit product from 32-bit halves (mx, my < 2^53) */
    uint64_t xh = mx >> 32, xl = mx & 0xffffffffu, yh = my >> 32, yl = my & 0xffffffffu;
    uint64_t lo = xl * yl;
    uint64_t mid = xh * yl + xl * yh; /* < 2^54 */
    uint64_t lo2 = lo + (mid << 32);
    uint64_t hi = xh * yh + (mid >> 32) + (lo2 < lo);
    int negative = (sx ^ sy) ? sign > 0 : sign < 0;
    add_at(negative ? s->neg : s->pos, hi, lo2, ex + ey);
}

static int exact_sign(const exact_sum *s)
{
    for (int k = EXACT_WORDS - 1; k >= 0; --k) {
        if (s->pos[k] != s->neg[k]) {
            return s->pos[k] > s->neg[k] ? 1 : -1;
        }
    }
    return 0;
}

int orca_exact_shoelace_sign(const orca_vec2 *p, int count)
{
    /* Floating-point first: each product rounds by at most eps |product| + 2^-1075 (eps =
     * 2^-53), each difference and the n - 1 additions by eps of their magnitudes, so the
     * computed sum is within (n + 2) eps A + n 2^-1074 of the exact one, A the sum of the
     * products' magnitudes; the bound below is twice that and more (A computed with the
     * same rounding, n eps <= 2^-28). */
    double sum = 0, mag = 0;
    for (int k = 0; k < count; ++k) {
        orca_vec2 a = p[k], b = p[k + 1 < count ? k + 1 : 0];
        double u = a.x * b.y, v = b.x * a.y;
        sum += u - v;
        mag += d_abs(u) + d_abs(v);
    }
    double bound = 0x1p-50 * (2.0 * (double)count + 2.0) * mag + (double)count * 0x1p-1060;
    if (sum > bound) {
        return 1;
    }
    if (-sum > bound) {
        return -1;
    }
    exact_sum s;
    memset(&s, 0, sizeof s);
    for (int k = 0; k < count; ++k) {
        orca_vec2 a = p[k], b = p[k + 1 < count ? k + 1 : 0];
        add_product(&s, a.x, b.y, 1);
        add_product(&s, b.x, a.y, -1);
    }
    return exact_sign(&s);
}

int orca_exact_orient(orca_vec2 a, orca_vec2 b, orca_vec2 q)
{
    /* (b - a) x (q - a) in floating point: each difference rounds by eps relative (exactly
     * when subnormal), each product by eps relative plus 2^-1075, the last difference by eps
     * relative: within 4.01 eps (|l| + |r|) + 2^-1073 of the exact value */
    double l = (b.x - a.x) * (q.y - a.y), r = (b.y - a.y) * (q.x - a.x);
    double det = l - r;
    double bound = 0x1p-50 * (d_abs(l) + d_abs(r)) + 0x1p-1060;
    if (det > bound) {
        return 1;
    }
    if (-det > bound) {
        return -1;
    }
    /* a x b + b x q + q x a, exactly */
    exact_sum s;
    memset(&s, 0, sizeof s);
    add_product(&s, a.x, b.y, 1);
    add_product(&s, a.y, b.x, -1);
    add_product(&s, b.x, q.y, 1);
    add_product(&s, b.y, q.x, -1);
    add_product(&s, q.x, a.y, 1);
    add_product(&s, q.y, a.x, -1);
    return exact_sign(&s);
}
