/* SPDX-License-Identifier: MIT */
/* Private: the step's batched kernels. Each one computes exactly the operations of the
 * scalar code it stands for (the text's operations, in the written order), several lanes at
 * a time: IEEE addition, subtraction, multiplication, division and square root are correctly
 * rounded whatever the register width, selections copy bits, and no multiply-add is ever
 * formed. So the results are the same bits with or without them (docs/determinism.md); the
 * tests run every scene both ways. */
#ifndef ORCA_KERNELS_H
#define ORCA_KERNELS_H

#include <stdint.h>

#include "orca/base.h"

/* One entry of a neighbour list. */
typedef struct neighbor {
    double dist2;
    int32_t index; /* agent or segment index: breaks distance ties */
    int32_t at;    /* agents: position in the sorted grid order */
} neighbor;

/* Whether this build has vector kernels and this CPU runs them (x86-64 with AVX). */
int orca_kernels_available(void);

/* The agent constraints of one agent (position p, velocity v, radius r, horizon tau) against
 * the agents nb[0..count) of a neighbour list, read at their sorted positions from pos, vel
 * and radius: out[k] = orca_constraint_agent(pos[at] - p, r + radius[at], v, vel[at], tau,
 * dt, NULL) with at = nb[k].at, bit for bit. Call only when orca_kernels_available(). */
void orca_agent_planes_vector(orca_vec2 p, orca_vec2 v, double r, double tau, double dt,
                              const orca_vec2 *pos, const orca_vec2 *vel, const double *radius,
                              const neighbor *nb, int count, orca_halfplane *out);

#endif
