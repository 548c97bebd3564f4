/* SPDX-License-Identifier: MIT */
/* Private: exact signs of sums of products of coordinates (exact.c). Every input is a finite
 * double of magnitude below 2^21 (a validated coordinate). */
#ifndef ORCA_EXACT_H
#define ORCA_EXACT_H

#include "orca/base.h"

/* The sign (-1, 0, 1) of sum_k (p[k].x * p[k+1].y - p[k+1].x * p[k].y), k = 0 .. count - 1,
 * p[count] = p[0], in exact arithmetic: twice the signed area of the loop. count <= 2^24. */
int orca_exact_shoelace_sign(const orca_vec2 *p, int count);

/* The sign of Cross(b - a, q - a) in exact arithmetic: 1 when q lies left of the line a -> b,
 * -1 right of it, 0 on it. */
int orca_exact_orient(orca_vec2 a, orca_vec2 b, orca_vec2 q);

#endif
