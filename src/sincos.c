/* SPDX-License-Identifier: MIT */
/* The deterministic sine and cosine of 2*pi*turns (docs/scenarios.md, "orca_sincos_turns"):
 * + - * / on binary64 only, so the same bits everywhere, where libm's sin and cos differ
 * between C libraries. The built-in circle places its agents with it. */
#include "fp.h"

#include "scenario_internal.h"

void orca_sincos_turns(double turns, double *sine, double *cosine)
{
    double s, c;
    if (!is_finite(turns)) {
        s = turns - turns; /* NaN */
        c = s;
    } else {
        /* Reduce to t in [0, 1): subtracting the integer part is exact. Beyond 2^52 every
         * double is an integer (and the int64 conversion would overflow beyond 2^63). */
        double t;
        double mag = d_abs(turns);
        if (mag >= 0x1.0p52) {
            t = 0.0;
        } else {
            t = turns - (double)(int64_t)turns;
            if (t < 0.0) {
                t = t + 1.0; /* may round up to 1.0 for tiny negative t */
            }
            if (t >= 1.0) {
                t = t - 1.0;
            }
        }
        /* Nearest quarter turn k (0..4) and the remainder r = t - k/4, |r| <= 1/8 (up to one
         * rounding of q + 0.5); r is exact (Sterbenz: t and k/4 are within a factor 2). */
        double q = t * 4.0;
        int k = (int)(q + 0.5);
        double r = t - (double)k * 0.25;
        double x = r * SC_TWO_PI; /* |x| <= pi/4 (plus a rounding) */
        double x2 = x * x;
        /* Taylor series: sine to x^17 (remainder below x^19/19! < 1e-19), cosine to x^18
         * (remainder below x^20/20! < 1e-20), Horner in x^2. 1/n! rounded to nearest
         * binary64, as exact hexadecimal literals (as SC_TWO_PI). */
        double ps = 0x1.952c77030ad4ap-49;      /* 1/17! (signs alternate) */
        ps = ps * x2 - 0x1.ae7f3e733b81fp-41;   /* 1/15! */
        ps = ps * x2 + 0x1.6124613a86d09p-33;   /* 1/13! */
        ps = ps * x2 - 0x1.ae64567f544e4p-26;   /* 1/11! */
        ps = ps * x2 + 0x1.71de3a556c734p-19;   /* 1/9! */
        ps = ps * x2 - 0x1.a01a01a01a01ap-13;   /* 1/7! */
        ps = ps * x2 + 0x1.1111111111111p-7;    /* 1/5! */
        ps = ps * x2 - 0x1.5555555555555p-3;    /* 1/3! */
        double sr = x + (x * x2) * ps;
        double pc = -0x1.6827863b97d97p-53;     /* -1/18! */
        pc = pc * x2 + 0x1.ae7f3e733b81fp-45;   /* 1/16! */
        pc = pc * x2 - 0x1.93974a8c07c9dp-37;   /* 1/14! */
        pc = pc * x2 + 0x1.1eed8eff8d898p-29;   /* 1/12! */
        pc = pc * x2 - 0x1.27e4fb7789f5cp-22;   /* 1/10! */
        pc = pc * x2 + 0x1.a01a01a01a01ap-16;   /* 1/8! */
        pc = pc * x2 - 0x1.6c16c16c16c17p-10;   /* 1/6! */
        pc = pc * x2 + 0x1.5555555555555p-5;    /* 1/4! */
        double cr = (1.0 - 0.5 * x2) + (x2 * x2) * pc;
        switch (k & 3) {
        case 0: s = sr; c = cr; break;
        case 1: s = cr; c = -sr; break;
        case 2: s = -sr; c = -cr; break;
        default: s = -cr; c = sr; break;
        }
        /* Exact zeros come out as +0 (at 0, 1/4, 1/2, 3/4 turns; -0 + 0 is +0). */
        s = s + 0.0;
        c = c + 0.0;
    }
    if (sine) {
        *sine = s;
    }
    if (cosine) {
        *cosine = c;
    }
}
