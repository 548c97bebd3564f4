/* SPDX-License-Identifier: MIT */
/* Private: the floating-point contract every translation unit of the library includes first.
 * See docs/determinism.md. */
#ifndef ORCA_FP_H
#define ORCA_FP_H

#include <float.h>
#include <math.h>

/* Double expressions must be evaluated in double: binary64 stays binary64. That is
 * FLT_EVAL_METHOD 0, or 1 (float is widened to double, double stays double: gcc on s390x in
 * ISO C mode; the library computes nothing in float). x87 extended precision
 * (FLT_EVAL_METHOD 2) or an unknown method would change the bits. On 32-bit x86, build with
 * -msse2 -mfpmath=sse. */
#if !defined(FLT_EVAL_METHOD) || (FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 1)
#error "orca needs FLT_EVAL_METHOD 0 or 1 (on 32-bit x86 build with -msse2 -mfpmath=sse)"
#endif

#if defined(__FAST_MATH__)
#error "orca must not be built with -ffast-math (or -Ofast): it changes the arithmetic"
#endif

#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#error "orca must not be built with -ffinite-math-only"
#endif

/* Belt and braces for builds that drop -ffp-contract=off: clang honours the standard pragma
 * (gcc ignores it and relies on the flag). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#endif
