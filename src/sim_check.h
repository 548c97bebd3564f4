/* SPDX-License-Identifier: MIT */
/* Private: the step's check of each new velocity before anything is applied (docs/limits.md,
 * "The step's last line"), as a classification for the refusal's message and for the tests
 * (the step itself evaluates the same predicate inline). */
#ifndef ORCA_SIM_CHECK_H
#define ORCA_SIM_CHECK_H

#include "orca/base.h"

enum {
    ORCA_STEP_RESULT_OK = 0,
    ORCA_STEP_RESULT_NOT_FINITE = 1, /* a component is NaN or infinite */
    ORCA_STEP_RESULT_TOO_FAST = 2,   /* v.v > R*R + 2^-40 (R*R + v0.v0) + 2^-1000 */
    ORCA_STEP_RESULT_LEAVES = 3      /* p + v*dt has a coordinate of magnitude >= 2^21 */
};

/* Which part of the check the new velocity v fails, for an agent at p with max speed R and
 * start-of-step velocity v0, in a step of dt; ORCA_STEP_RESULT_OK when it passes. */
int orca_step_result_kind(orca_vec2 v, orca_vec2 v0, orca_vec2 p, double max_speed, double dt);

#endif
