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

#if defined(__GNUC__) || defined(__clang__)
#define ORCA_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define ORCA_ALWAYS_INLINE inline
#endif

/* The order of neighbour lists: (squared distance, index). */
static inline int neighbor_less(double d2, int32_t idx, const neighbor *b)
{
    return d2 < b->dist2 || (d2 == b->dist2 && idx < b->index);
}

/* Offers the agent at sorted position k (agent index cell_index[k], squared distance d2) to
 * the sorted list out (n entries, capacity cap); returns the new n. The list ends up the
 * same whatever order the agents are offered in. */
static ORCA_ALWAYS_INLINE int neighbor_offer(const int32_t *cell_index, double d2, int32_t k,
                                             neighbor *out, int n, int cap)
{
    int32_t j = cell_index[k];
    if (n == cap && !neighbor_less(d2, j, &out[n - 1])) {
        return n;
    }
    int at = n < cap ? n++ : cap - 1;
    while (at > 0 && neighbor_less(d2, j, &out[at - 1])) {
        out[at] = out[at - 1];
        --at;
    }
    out[at].dist2 = d2;
    out[at].index = j;
    out[at].at = k;
    return n;
}

/* Positions readable past the last agent of the sorted copy (the vector scan reads pairs). */
#define CELL_POS_PAD 2

/* Whether this build has vector kernels and this CPU runs them (x86-64 with AVX). */
int orca_kernels_available(void);

/* The agent constraints of one agent (position p, velocity v, radius r, horizon tau) against
 * the agents nb[0..count) of a neighbour list, read at their sorted positions from pos, vel
 * and radius: out[k] = orca_constraint_agent(pos[at] - p, r + radius[at], v, vel[at], tau,
 * dt, NULL) with at = nb[k].at, bit for bit. Call only when orca_kernels_available(). */
void orca_agent_planes_vector(orca_vec2 p, orca_vec2 v, double r, double tau, double dt,
                              const orca_vec2 *pos, const orca_vec2 *vel, const double *radius,
                              const neighbor *nb, int count, orca_halfplane *out);

/* The hinted search's scan (sim.c, box_search): rows row, row + w, ... (`rows` of them) of
 * the dense grid's prefix sums, columns c0..c1 of each; offers every agent other than the one
 * at sorted position self whose squared distance Dot(d, d), d = pos[k] - p, is below filt2 to
 * the empty list out, and returns its length. pos must be readable CELL_POS_PAD entries past
 * the last agent. */
int orca_box_scan_vector(const int32_t *row, int32_t w, int32_t rows, int32_t c0, int32_t c1,
                         const orca_vec2 *pos, const int32_t *cell_index, int32_t self,
                         orca_vec2 p, double filt2, neighbor *out, int cap);

#endif
