/* SPDX-License-Identifier: MIT */
/* orca solver building blocks: the velocity obstacle, the ORCA half-planes and the linear
 * programs of docs/algorithm.md (sections 2 to 10), as pure functions.
 *
 * Every function here is pure: no allocation, no global state, bounded time (every loop is
 * bounded by the constraint count, at most count^2 steps for a program and count^3 for the
 * fallback). The simulator (orca/sim.h) calls exactly these functions.
 *
 * Units: positions in metres relative to the steered agent (it sits at the origin),
 * velocities in metres per second, times in seconds. Any consistent units work.
 *
 * Numbers: the functions follow docs/algorithm.md's arithmetic literally (binary64, operands
 * in the written order, no fused multiply-add). They do not check their floating-point inputs. A
 * NaN or infinite input never causes a crash, a hang or an out-of-bounds access; its result
 * is whatever the literal arithmetic gives: usually NaN, but a branch that does not use the
 * value, or a comparison with NaN that selects another branch, can give a finite result
 * (docs/spec-choices.md, choice 10, lists the known cases). The simulator refuses non-finite
 * input before it reaches these functions. Pointers and counts are checked by the functions
 * that take them. Where the method leaves a choice open, docs/spec-choices.md records the
 * reading chosen. */
#ifndef ORCA_SOLVER_H
#define ORCA_SOLVER_H

#include "orca/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Half-planes (algorithm.md §2)
 * ------------------------------------------------------------------------------------- */

/** SignedDistance(v) = (v - h.point) . h.normal. Negative when v violates h; its magnitude
 * is then the penetration depth (for a unit normal). */
ORCA_API double orca_halfplane_signed_distance(orca_halfplane h, orca_vec2 v);

/* ---------------------------------------------------------------------------------------
 * The velocity obstacle (algorithm.md §3 to §5)
 * ------------------------------------------------------------------------------------- */

/** Signed distance of a velocity from a velocity obstacle, and the outward normal there.
 * The closest boundary point is x - distance * normal; the paper's u is -distance * normal. */
typedef struct orca_vo {
    double distance;  /**< positive outside the obstacle, negative inside (m/s) */
    orca_vec2 normal; /**< unit outward normal at the closest boundary point */
} orca_vo;

/** Support-function form: the velocity obstacle S = { s*k : k in K, s >= 1/tau } of the
 * segment a-b grown by r (the capsule K), at velocity x. a == b is a point obstacle (another
 * agent). Candidates in algorithm.md §3.4's order (wa/|wa|, wb/|wb|, +nn, -nn, the legs of a, the
 * legs of b), each tested against the domain n.a + r <= 1e-9*(|a|+r), n.b + r <= 1e-9*(|b|+r);
 * the first surviving candidate is the best, a later one replaces it only when its value
 * min(n.wa, n.wb) is strictly greater. With no survivor the normal is -(a+b)/|a+b| ((1,0)
 * when a + b = 0).
 * Valid input: r > 0, tau > 0 and the origin outside the capsule (orca_segment_distance_squared
 * (a, b) > r*r); otherwise use orca_vo_overlap. Outside that domain the result is whatever the
 * formula gives (legs of a point within r are NaN and skipped). */
ORCA_API orca_vo orca_vo_support(orca_vec2 a, orca_vec2 b, double r, double tau, orca_vec2 x);

/** Overlap form: the capsule K cut off at one time step, S = { k/dt : k in K }. The same
 * formula as orca_vo_support with tau replaced by dt, the legs not used and every candidate
 * admitted (no domain test). When no candidate exists (a == b and x == a/dt) the normal is
 * the no-survivor direction -(a+b)/|a+b|. Valid input: r > 0, dt > 0; any x. */
ORCA_API orca_vo orca_vo_overlap(orca_vec2 a, orca_vec2 b, double r, double dt, orca_vec2 x);

/** Which case of the closed agent form was taken. */
typedef enum orca_vo_case_kind {
    ORCA_CASE_CUTOFF = 0,    /**< x projects onto the cut-off arc */
    ORCA_CASE_LEFT_LEG = 1,  /**< cross(a, w) > 0 */
    ORCA_CASE_RIGHT_LEG = 2  /**< cross(a, w) <= 0 (the cross = 0 tie takes the right leg) */
} orca_vo_case_kind;

/** Result of the closed case form: u is the smallest change of x that reaches the
 * boundary, normal the outward unit normal there. */
typedef struct orca_vo_cases {
    orca_vec2 u;
    orca_vec2 normal;
    orca_vo_case_kind kind;
} orca_vo_cases;

/** Case form for another agent (algorithm.md §4): the truncated
 * cone around the point a (the other agent's relative position) with combined radius r and
 * horizon tau, at relative velocity x. Valid input: a.a > r*r, r > 0, tau > 0. It finds the
 * same boundary point as orca_vo_support(a, a, r, tau, x) up to rounding. */
ORCA_API orca_vo_cases orca_vo_agent_cases(orca_vec2 a, double r, double tau, orca_vec2 x);

/** Squared distance from the origin to the segment a-b, with the projection parameter
 * t = -(a.e)/(e.e) (e = b - a) clamped to [0, 1]; t = 0 when e.e == 0 (a point). */
ORCA_API double orca_segment_distance_squared(orca_vec2 a, orca_vec2 b);

/* ---------------------------------------------------------------------------------------
 * Constraint builders (algorithm.md §6 and §7)
 * ------------------------------------------------------------------------------------- */

/** Which construction a builder used. */
typedef enum orca_form {
    ORCA_FORM_CASES = 0,   /**< apart: closed case form (agents) */
    ORCA_FORM_SUPPORT = 1, /**< apart: support-function form (segments) */
    ORCA_FORM_OVERLAP = 2  /**< overlapping: capsule cut off at dt */
} orca_form;

/** ORCA half-plane for agent A against agent B (equation 6, responsibility 1/2).
 * rel_pos = pB - pA, r = rA + rB, va and vb the optimization (current) velocities,
 * tau the agent time horizon, dt the step. Apart (rel_pos.rel_pos > r*r): the case form,
 * P = va + 0.5*u, N = n. Overlapping: the overlap form with u = -d n.
 * form (may be NULL) receives ORCA_FORM_CASES or ORCA_FORM_OVERLAP.
 * Valid input: r > 0, tau > 0, dt > 0, finite vectors. */
ORCA_API orca_halfplane orca_constraint_agent(orca_vec2 rel_pos, double r, orca_vec2 va,
                                              orca_vec2 vb, double tau, double dt, orca_form *form);
/** The same half-plane with responsibility `share` instead of 1/2: P = va + share * u
 * (docs/extensions.md, "Priority, layers and locked agents"). share 0.5 gives
 * orca_constraint_agent's bits. Valid input: as above, share finite in [0, 1]. */
ORCA_API orca_halfplane orca_constraint_agent_share(orca_vec2 rel_pos, double r, orca_vec2 va,
                                                    orca_vec2 vb, double tau, double dt,
                                                    double share, orca_form *form);

/** ORCA half-plane for a static two-sided segment (section 5.4): a, b are the segment's ends
 * minus the agent's position, r the agent's radius, tau the obstacle horizon, dt the step.
 * Optimization velocity 0 and whole responsibility: P = u = -d n, N = n. Support form when
 * orca_segment_distance_squared(a, b) > r*r, overlap form otherwise. a == b is allowed (a
 * point obstacle). form (may be NULL) receives ORCA_FORM_SUPPORT or ORCA_FORM_OVERLAP.
 * Valid input: r > 0, tau > 0, dt > 0, finite vectors. */
ORCA_API orca_halfplane orca_constraint_segment(orca_vec2 a, orca_vec2 b, double r, double tau,
                                                double dt, orca_form *form);

/** One-sided boundary constraint (algorithm.md §7) for the stretch a -> b of a walkable area
 * already shrunk by the agent radius (relative to the agent; walkable side to the left of
 * a -> b). Returns 1 and writes *out when there is a constraint: normal n = (-e.y, e.x)/|e|,
 * point (-n * (d - clearance)) / tau, i.e. v.n >= -(d - clearance)/tau. Returns 0 and leaves
 * *out untouched when there is none: e = b - a is zero; s <= m or s >= 1 - m (the agent is
 * beside the stretch) with s = -(a.e)/(e.e), m = (clearance + 1e-6)/|e|; or d < -1e-6 (the
 * stretch faces away) with d = -(a.n). Returns ORCA_ERR_NULL when out is NULL.
 * Valid input: clearance >= 0, tau > 0. */
ORCA_API int orca_constraint_boundary(orca_vec2 a, orca_vec2 b, double clearance, double tau,
                                      orca_halfplane *out);

/* ---------------------------------------------------------------------------------------
 * The linear programs (algorithm.md §8 to §10)
 * ------------------------------------------------------------------------------------- */

/** Result of a linear program. */
typedef struct orca_lp_result {
    orca_vec2 velocity; /**< the optimum when feasible; else the velocity held when the program
                             stopped (inside the disc and the constraints before `failed`) */
    int failed;         /**< -1 when feasible, else the index of the first failing constraint */
} orca_lp_result;

/** The program in list order: the velocity in the disc |v| <= max_speed and every half-plane
 * that is closest to preferred. planes[0..count) are processed in order (start point, the
 * interval on each violated line, the 1e-12 parallel test). Returns ORCA_OK, or
 * ORCA_ERR_NULL (planes NULL with count > 0, or out NULL), ORCA_ERR_ARGUMENT (count < 0,
 * max_speed negative or not finite); out is written only on ORCA_OK. */
ORCA_API orca_status orca_lp_solve(const orca_halfplane *planes, int count, double max_speed,
                                   orca_vec2 preferred, orca_lp_result *out);

/** Objective-direction variant: maximizes v . direction over the same region. Start
 * (direction/|direction|) * max_speed; on each violated line t goes to the upper end when
 * d.direction > 0, the lower end when < 0, and the projection of the current v clamped to the
 * interval when = 0. direction must be non-zero (a zero direction gives NaN). Errors as
 * orca_lp_solve. */
ORCA_API orca_status orca_lp_solve_direction(const orca_halfplane *planes, int count,
                                             double max_speed, orca_vec2 direction,
                                             orca_lp_result *out);

/** The fallback (section 5.3) after a program failed at failed_index: the velocity in the
 * disc and the hard half-planes planes[0..hard_count) that maximizes the smallest signed
 * distance to the soft ones, computed incrementally in list order. When failed_index <
 * hard_count the hard prefix alone is relaxed (as soft constraints, nothing hard) and the
 * rest is ignored. scratch must hold count half-planes (the projected lists are built
 * there). Writes *velocity. Errors: ORCA_ERR_NULL, ORCA_ERR_ARGUMENT (count < 1, hard_count
 * outside [0, count], failed_index outside [0, count), max_speed negative or not finite). */
ORCA_API orca_status orca_lp_fallback(const orca_halfplane *planes, int count, int hard_count,
                                      int failed_index, double max_speed, orca_halfplane *scratch,
                                      orca_vec2 *velocity);

/** Result of orca_solve. */
typedef struct orca_solve_result {
    orca_vec2 velocity; /**< the new velocity */
    int failed;         /**< -1 when the program was feasible, else its failing index */
    int fallback;       /**< 1 when the fallback produced velocity */
} orca_solve_result;

/** The whole solve of one agent: orca_lp_solve, and when it fails orca_lp_fallback.
 * scratch must hold count half-planes (it may be NULL when count == 0). Errors as the two
 * functions; out is written only on ORCA_OK. */
ORCA_API orca_status orca_solve(const orca_halfplane *planes, int count, int hard_count,
                                double max_speed, orca_vec2 preferred, orca_halfplane *scratch,
                                orca_solve_result *out);

#ifdef __cplusplus
}
#endif
#endif
