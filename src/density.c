/* SPDX-License-Identifier: MIT */
/* The density-dependent speed (docs/extensions.md, "Density-dependent speed"): its parameters
 * and their API, the local density of an agent from its neighbour list, the library's own
 * exp(-x), and the factor that scales the step's copy of the preferred velocity. Every
 * operation is the one the documentation lists, in its order, so that a port reproduces the
 * bits. The step applies it on its extended path (step.c, ext_step_agents). */
#include "sim_internal.h"

#include <string.h>

/* The split of ln 2: LN2_HI has its low 21 significand bits zero, so k * LN2_HI is exact for
 * every integer k below 2^21 (here k <= 1022). */
#define LN2_HI 0x1.62e42feep-1
#define LN2_LO 0x1.a39ef35793c76p-33
#define INV_LN2 0x1.71547652b82fep+0
/* exp(-x) is 0 for x above this: the result would be below 2^-1021, and its use (1 minus it)
 * rounds to 1 long before. */
#define EXP_NEG_MAX 708.0

double orca_exp_neg(double x)
{
    if (!(x <= EXP_NEG_MAX)) {
        return 0.0; /* large x, and NaN */
    }
    if (x < 0) {
        x = 0; /* outside the domain (the step never asks): exp(-0) */
    }
    /* x = k ln 2 + r, k the nearest integer to x / ln 2 (halves up), |r| <= about ln 2 / 2 */
    int32_t k = (int32_t)(x * INV_LN2 + 0.5);
    double kd = (double)k;
    double hi = x - kd * LN2_HI;
    double lo = kd * LN2_LO;
    double s = lo - hi; /* -r */
    /* exp(s) by its Taylor polynomial of degree 13, in Horner's order */
    double p = 0x1.6124613a86d09p-33;  /* 1/13! */
    p = p * s + 0x1.1eed8eff8d898p-29; /* 1/12! */
    p = p * s + 0x1.ae64567f544e4p-26; /* 1/11! */
    p = p * s + 0x1.27e4fb7789f5cp-22; /* 1/10! */
    p = p * s + 0x1.71de3a556c734p-19; /* 1/9! */
    p = p * s + 0x1.a01a01a01a01ap-16; /* 1/8! */
    p = p * s + 0x1.a01a01a01a01ap-13; /* 1/7! */
    p = p * s + 0x1.6c16c16c16c17p-10; /* 1/6! */
    p = p * s + 0x1.1111111111111p-7;  /* 1/5! */
    p = p * s + 0x1.5555555555555p-5;  /* 1/4! */
    p = p * s + 0x1.5555555555555p-3;  /* 1/3! */
    p = p * s + 0.5;
    p = p * s + 1.0;
    p = p * s + 1.0;
    /* times 2^-k, built from its bits (0 <= k <= 1022: a normal number) */
    uint64_t bits = (uint64_t)(1023 - k) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* 3 / pi, the biweight kernel's normalisation */
#define KERNEL_NORM 0x1.e8ec8a4aeacc4p-1

double orca_density_estimate(const neighbor *list, int n, int cap, double radius)
{
    double h2 = radius * radius;
    if (n == cap && n > 0 && list[n - 1].dist2 < h2) {
        h2 = list[n - 1].dist2; /* a full list: the kernel reaches its last entry */
    }
    if (!(h2 > 0)) {
        return HUGE_VAL; /* a full list of agents at the agent's own point */
    }
    double inv = 1.0 / h2;
    double sum = 1.0; /* the agent itself: (1 - 0)^2 */
    for (int k = 0; k < n; ++k) {
        double t = 1.0 - list[k].dist2 * inv;
        if (!(t > 0)) {
            break; /* the list is nearest first: the rest are beyond the kernel too */
        }
        sum += t * t;
    }
    return sum * KERNEL_NORM * inv;
}

double orca_density_factor(const orca_density_speed *p, double rho)
{
    if (!(rho < p->max_density)) {
        return 0.0;
    }
    double x = p->gamma * (1.0 / rho - 1.0 / p->max_density);
    return 1.0 - orca_exp_neg(x);
}

/* --- parameters -------------------------------------------------------------------------- */

orca_density_speed orca_density_speed_default(void)
{
    orca_density_speed d = ORCA_DENSITY_SPEED_DEFAULT;
    return d;
}

orca_status orca_check_density_speed(const orca_sim *s, const orca_density_speed *p)
{
    /* the negated comparisons also refuse NaN */
    if (!(p->radius >= ORCA_DENSITY_RADIUS_MIN && p->radius <= ORCA_DENSITY_RADIUS_MAX)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "density radius must be in [2^-30, 2^23] m, got %.17g", p->radius);
    }
    if (!(p->gamma >= ORCA_DENSITY_GAMMA_MIN && p->gamma <= ORCA_DENSITY_GAMMA_MAX)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "density gamma must be in [2^-30, 2^30] m^-2, got %.17g", p->gamma);
    }
    if (!(p->max_density >= ORCA_DENSITY_MAX_MIN && p->max_density <= ORCA_DENSITY_MAX_MAX)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "density max_density must be in [2^-30, 2^30] m^-2, got %.17g",
                         p->max_density);
    }
    return ORCA_OK;
}

orca_status orca_sim_set_density_speed(orca_sim *s, const orca_density_speed *p)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (!p) {
        s->density_on = 0;
        return ORCA_OK;
    }
    orca_status st = orca_check_density_speed(s, p);
    if (st != ORCA_OK) {
        return st;
    }
    if (s->ped_on) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "the density-dependent speed cannot be on with the pedestrian model "
                         "(both set the walking speed): turn the pedestrian model off first");
    }
    s->density = *p;
    s->density_on = 1;
    return ORCA_OK;
}

int orca_sim_get_density_speed(const orca_sim *s, orca_density_speed *out)
{
    if (!s) {
        return 0;
    }
    if (out) {
        *out = s->density_on ? s->density : orca_density_speed_default();
    }
    return s->density_on;
}
