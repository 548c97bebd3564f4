/* SPDX-License-Identifier: MIT */
/* Builds the ORCA constraints of one agent by hand and solves them: docs/usage.md's C example. */
#include <orca/orca.h>
#include <stdio.h>

int main(void)
{
    /* Agent A at the origin, radius 0.5, moving right at 1 m/s; B 3 m ahead coming left. */
    orca_vec2 va = {1.0, 0.0}, vb = {-1.0, 0.0}, rel = {3.0, 0.1};
    orca_halfplane planes[2];
    /* A wall segment below A (hard constraint, listed first). */
    planes[0] = orca_constraint_segment((orca_vec2){-2.0, -1.0}, (orca_vec2){4.0, -1.0}, 0.5,
                                        2.0, 0.25, NULL);
    planes[1] = orca_constraint_agent(rel, 1.0, va, vb, 2.0, 0.25, NULL);
    orca_halfplane scratch[2];
    orca_solve_result res;
    orca_status st = orca_solve(planes, 2, 1, 1.5, va, scratch, &res);
    if (st != ORCA_OK) {
        fprintf(stderr, "orca_solve: %s\n", orca_status_name(st));
        return 1;
    }
    printf("new velocity (%.17g, %.17g), %s\n", res.velocity.x, res.velocity.y,
           res.fallback ? "fallback" : "feasible");
    return 0;
}
