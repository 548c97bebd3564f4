/* SPDX-License-Identifier: MIT */
/* Hand-checkable cases of the solver building blocks. */
#include "test.h"

#include <math.h>
#include <orca/solver.h>

static int test_signed_distance(void)
{
    orca_halfplane h = {{1, 0}, {1, 0}};
    ENSURE_BITS(orca_halfplane_signed_distance(h, (orca_vec2){3, 7}), 2.0);
    ENSURE_BITS(orca_halfplane_signed_distance(h, (orca_vec2){0.5, -7}), -0.5);
    return 0;
}

static int test_lp_unconstrained(void)
{
    orca_lp_result r;
    ENSURE(orca_lp_solve(NULL, 0, 2.0, (orca_vec2){3, 4}, &r) == ORCA_OK);
    ENSURE(r.failed == -1);
    ENSURE_BITS(r.velocity.x, (3.0 / 5.0) * 2.0);
    ENSURE_BITS(r.velocity.y, (4.0 / 5.0) * 2.0);
    ENSURE(orca_lp_solve(NULL, 0, 10.0, (orca_vec2){3, 4}, &r) == ORCA_OK);
    ENSURE_BITS(r.velocity.x, 3.0);
    return 0;
}

static int test_lp_bad_args(void)
{
    orca_lp_result r;
    orca_halfplane h = {{0, 0}, {1, 0}};
    ENSURE(orca_lp_solve(NULL, 1, 1.0, (orca_vec2){0, 0}, &r) == ORCA_ERR_NULL);
    ENSURE(orca_lp_solve(&h, 1, 1.0, (orca_vec2){0, 0}, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_lp_solve(&h, -1, 1.0, (orca_vec2){0, 0}, &r) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_lp_solve(&h, 1, -1.0, (orca_vec2){0, 0}, &r) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_lp_solve(&h, 1, NAN, (orca_vec2){0, 0}, &r) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_lp_solve(&h, 1, INFINITY, (orca_vec2){0, 0}, &r) == ORCA_ERR_ARGUMENT);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"signed_distance", test_signed_distance},
    {"lp_unconstrained", test_lp_unconstrained},
    {"lp_bad_args", test_lp_bad_args},
    {0, 0},
};
