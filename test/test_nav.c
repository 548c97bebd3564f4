/* SPDX-License-Identifier: MIT */
/* Navigation (docs/navigation.md): the path query against closed forms, its refusals, and the
 * angle function against libm (a test may use libm: only the library may not). */
#include "orca/nav.h"
#include "orca/scenario.h"
#include "nav_internal.h"
#include "scenario_internal.h"
#include "orca/sim.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static orca_sim *new_sim(void)
{
    orca_sim *sim = NULL;
    if (orca_sim_create(NULL, &sim) != ORCA_OK) {
        return NULL;
    }
    return sim;
}

/* A scenario of dt 0.1 with seed and workers, or NULL. */
static orca_scenario *new_scenario(uint64_t seed, int workers)
{
    orca_scenario *sc = NULL;
    if (orca_scenario_create(NULL, 0.1, seed, &sc) != ORCA_OK) {
        return NULL;
    }
    if (orca_sim_set_worker_count(orca_scenario_sim(sc), workers) != ORCA_OK) {
        orca_scenario_destroy(sc);
        return NULL;
    }
    return sc;
}

/* A ring corridor round a block: the outer loop 0..20 and the block 6..14 (a clockwise hole). */
static int add_ring(orca_sim *sim)
{
    orca_vec2 outer[4] = {vec(0, 0), vec(20, 0), vec(20, 20), vec(0, 20)};
    orca_vec2 inner[4] = {vec(6, 6), vec(6, 14), vec(14, 14), vec(14, 6)};
    return orca_sim_add_boundary(sim, outer, 4, NULL) == ORCA_OK &&
           orca_sim_add_boundary(sim, inner, 4, NULL) == ORCA_OK;
}

typedef struct path_out {
    orca_nav_result result;
    double length;
    int goal, count;
    orca_nav_corner c[64];
} path_out;

static orca_status query(orca_nav *nav, double r, orca_vec2 a, orca_vec2 b, path_out *o)
{
    memset(o, 0, sizeof *o);
    return orca_nav_path(nav, r, a, &b, 1, &o->result, &o->length, &o->goal, o->c, 64, &o->count);
}

static int test_angle(void)
{
    test_rng rng = {7};
    double worst = 0;
    for (int i = 0; i < 200000; ++i) {
        double x = test_rng_uniform(&rng, -10, 10), y = test_rng_uniform(&rng, -10, 10);
        if (i % 7 == 0) {
            x = 0;
        }
        if (i % 11 == 0) {
            y = 0;
        }
        double a = orca_nav_angle(y, x);
        double ref = atan2(y, x);
        if (ref < 0) {
            ref += 2 * M_PI;
        }
        ENSURE(a >= 0 && a < 2 * M_PI);
        double e = fabs(a - ref);
        if (e > M_PI) {
            e = 2 * M_PI - e; /* 0 and 2 pi are the same direction */
        }
        worst = e > worst ? e : worst;
    }
    ENSURE_MSG(worst < 4e-15, "worst %g", worst);
    ENSURE_BITS(orca_nav_angle(0, 0), 0.0);
    ENSURE_BITS(orca_nav_angle(0, 1), 0.0);
    ENSURE_NEAR(orca_nav_angle(1, 0), M_PI / 2, 1e-16);
    ENSURE_NEAR(orca_nav_angle(0, -1), M_PI, 1e-15);
    /* tiny and huge components */
    ENSURE_NEAR(orca_nav_angle(1e-300, 1e-300), M_PI / 4, 1e-15);
    ENSURE_NEAR(orca_nav_angle(-1e300, 1e300), 7 * M_PI / 4, 1e-15);
    return 0;
}

static int test_open_floor(void)
{
    orca_sim *sim = new_sim();
    ENSURE(sim);
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    path_out o;
    ENSURE(query(nav, 0.5, vec(0, 0), vec(3, 4), &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_OK && o.count == 0);
    ENSURE_BITS(o.length, 5.0);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);
    return 0;
}

/* A point obstacle (a zero-length wall) on the straight line: around a circle of radius r,
 * L = 2 sqrt(d^2 - r^2) + r * theta, theta = pi - 2 acos(r / d). */
static int test_point_obstacle(void)
{
    orca_sim *sim = new_sim();
    ENSURE(sim);
    orca_segment_id id;
    ENSURE(orca_sim_add_segment(sim, vec(0, 0), vec(0, 0), &id) == ORCA_OK);
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    double r = 1.0, d = 5.0;
    path_out o;
    ENSURE(query(nav, r, vec(-d, 0), vec(d, 0), &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_OK);
    ENSURE(o.count == 1);
    double theta = M_PI - 2 * acos(r / d);
    double L = 2 * sqrt(d * d - r * r) + r * theta;
    ENSURE_NEAR(o.length, L, 1e-12 * L);
    ENSURE(o.c[0].vertex.x == 0 && o.c[0].vertex.y == 0);
    /* ties between the two sides go the same way each time */
    path_out o2;
    ENSURE(query(nav, r, vec(-d, 0), vec(d, 0), &o2) == ORCA_OK);
    ENSURE(o2.c[0].side == o.c[0].side);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);
    return 0;
}

/* An L-bend: a wall from (0, -10) up to (0, 0) then right to (10, 0) ... walked around its
 * corner from below-left to above-right is a capsule detour; here a corridor corner: inner
 * wall corner at (0, 0) with walls (0,0)-(0,-10) and (0,0)-(10,0); start (-2, -5) [left of the
 * vertical wall], goal (5, 2) [above the horizontal wall]. The path turns around (0, 0)
 * clockwise-or-counter-clockwise on the outside: L = t1 + r*theta + t2. */
static int test_l_corner(void)
{
    orca_sim *sim = new_sim();
    ENSURE(sim);
    orca_segment_id id;
    ENSURE(orca_sim_add_segment(sim, vec(0, -10), vec(0, 0), &id) == ORCA_OK);
    ENSURE(orca_sim_add_segment(sim, vec(0, 0), vec(10, 0), &id) == ORCA_OK);
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    double r = 0.5;
    orca_vec2 s = vec(-2, -5), g = vec(5, 2);
    path_out o;
    ENSURE(query(nav, r, s, g, &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_OK && o.count == 1);
    /* closed form: tangents from s and g to the circle at the origin, and the arc between
     * the tangent points going around the outside (through the upper-left quadrant) */
    double ds = hypot(s.x, s.y), dg = hypot(g.x, g.y);
    double ts = sqrt(ds * ds - r * r), tg = sqrt(dg * dg - r * r);
    /* direction angles of the tangent points: */
    double as = atan2(s.y, s.x), ag = atan2(g.y, g.x);
    /* the path passes the origin with the origin on its right (clockwise): tangent point
     * angles as + acos(r/ds) (rotating toward the free side) and ag - acos(r/dg) */
    double ps = as - acos(r / ds), pg = ag + acos(r / dg);
    /* sweep clockwise from ps to pg */
    double sweep = ps - pg;
    while (sweep < 0) {
        sweep += 2 * M_PI;
    }
    double L1 = ts + tg + r * sweep;
    ps = as + acos(r / ds);
    pg = ag - acos(r / dg);
    sweep = pg - ps;
    while (sweep < 0) {
        sweep += 2 * M_PI;
    }
    double L2 = ts + tg + r * sweep;
    double L = L1 < L2 ? L1 : L2;
    ENSURE_MSG(fabs(o.length - L) <= 1e-12 * L, "length %.17g, closed form %.17g (%.17g, %.17g)",
               o.length, L, L1, L2);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);
    return 0;
}

/* Two rooms joined by one gap, the whole scene moved by (c, c) (the walls' largest coordinate
 * M is 10 + c); the path from (c - 5, c + dy) to (c + 5, c - dy). */
static int gap_scene(double width, double r, double c, double dy, orca_nav_result *res,
                     double *len)
{
    orca_sim *sim = new_sim();
    ENSURE(sim);
    /* a wall along x = c from y = c - 10 to y = c + 10 with a gap centred at y = c */
    double h = width / 2;
    orca_segment_id id;
    ENSURE(orca_sim_add_segment(sim, vec(c, c - 10), vec(c, c - h), &id) == ORCA_OK);
    ENSURE(orca_sim_add_segment(sim, vec(c, c + h), vec(c, c + 10), &id) == ORCA_OK);
    /* a box around both rooms (a loop, walkable inside) */
    orca_vec2 box[4] = {vec(c - 10, c - 10), vec(c + 10, c - 10), vec(c + 10, c + 10),
                        vec(c - 10, c + 10)};
    orca_boundary_id bid;
    ENSURE(orca_sim_add_boundary(sim, box, 4, &bid) == ORCA_OK);
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    path_out o;
    ENSURE(query(nav, r, vec(c - 5, c + dy), vec(c + 5, c - dy), &o) == ORCA_OK);
    *res = o.result;
    *len = o.length;
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);
    return 0;
}

/* Near the origin: width 2r + 1e-9 passes, 2r - 1e-9 does not. At any scale (docs/navigation.md,
 * "The walls": tol = 2^-40 (r + M)) a straight pass through the gap's middle keeps lim = r - tol
 * from both ends while the gap is narrower than 2r by at most 2 tol: open at 2r - tol, closed
 * at 2r - 4 tol; so 2r - 1e-9 is closed while 2 tol < 1e-9, r + M < 549.7 m (closed at M = 500,
 * open at M = 600). A path that has to turn in the gap needs at least 2r. */
static int test_gap(void)
{
    double r = 0.5;
    orca_nav_result res;
    double len;
    ENSURE(gap_scene(2 * r + 1e-9, r, 0, 3, &res, &len) == 0);
    ENSURE_MSG(res == ORCA_NAV_OK, "2r + 1e-9: %s", orca_nav_result_name(res));
    ENSURE(len > hypot(10, 6));
    ENSURE(gap_scene(2 * r - 1e-9, r, 0, 3, &res, &len) == 0);
    ENSURE_MSG(res == ORCA_NAV_NO_PATH, "2r - 1e-9: %s", orca_nav_result_name(res));
    ENSURE(gap_scene(2 * r + 0.5, r, 0, 3, &res, &len) == 0);
    ENSURE(res == ORCA_NAV_OK);
    const double offsets[] = {0, 490, 590, 1e3, 1e5, 0x1p20, 0x1p21 - 20};
    for (int k = 0; k < (int)(sizeof offsets / sizeof offsets[0]); ++k) {
        double c = offsets[k], M = c + 10, tol = 0x1p-40 * (r + M);
        ENSURE(gap_scene(2 * r - 4 * tol, r, c, 0, &res, &len) == 0);
        ENSURE_MSG(res == ORCA_NAV_NO_PATH, "M %g, 2r - 4 tol: %s", M, orca_nav_result_name(res));
        ENSURE(gap_scene(2 * r - tol, r, c, 0, &res, &len) == 0);
        ENSURE_MSG(res == ORCA_NAV_OK, "M %g, 2r - tol: %s", M, orca_nav_result_name(res));
        ENSURE(gap_scene(2 * r - 1e-9, r, c, 0, &res, &len) == 0);
        orca_nav_result expect = r + M < 0x1p39 * 1e-9 ? ORCA_NAV_NO_PATH : ORCA_NAV_OK;
        ENSURE_MSG(res == expect, "M %g, 2r - 1e-9: %s", M, orca_nav_result_name(res));
        ENSURE(gap_scene(2 * r - 1e-9, r, c, 3, &res, &len) == 0); /* turning in it */
        ENSURE_MSG(res == ORCA_NAV_NO_PATH, "M %g, turning: %s", M, orca_nav_result_name(res));
    }
    return 0;
}

static int test_blocked_ends(void)
{
    orca_sim *sim = new_sim();
    ENSURE(sim);
    orca_vec2 box[4] = {vec(0, 0), vec(10, 0), vec(10, 10), vec(0, 10)};
    orca_boundary_id bid;
    ENSURE(orca_sim_add_boundary(sim, box, 4, &bid) == ORCA_OK);
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    path_out o;
    ENSURE(query(nav, 0.5, vec(0.2, 5), vec(5, 5), &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_START_BLOCKED);
    ENSURE(query(nav, 0.5, vec(5, 5), vec(9.9, 5), &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_GOAL_BLOCKED);
    ENSURE(query(nav, 0.5, vec(5, 5), vec(20, 5), &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_GOAL_BLOCKED);
    ENSURE(query(nav, 0.5, vec(-5, 5), vec(5, 5), &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_START_BLOCKED);
    ENSURE(query(nav, 0.5, vec(2, 2), vec(8, 8), &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_OK && o.count == 0);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);
    return 0;
}

static int test_arguments(void)
{
    orca_sim *sim = new_sim();
    ENSURE(sim);
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(NULL, &nav) == ORCA_ERR_NULL && nav == NULL);
    ENSURE(orca_nav_create(sim, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    orca_nav_result res = ORCA_NAV_OK;
    orca_vec2 g = vec(1, 1);
    double bad[] = {0.0, -1.0, 0x1p-21, 0x1p21, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        ENSURE(orca_nav_path(nav, bad[i], vec(0, 0), &g, 1, &res, NULL, NULL, NULL, 0, NULL) ==
               ORCA_ERR_ARGUMENT);
        ENSURE(strstr(orca_nav_last_error(nav), "radius"));
    }
    ENSURE(orca_nav_path(nav, 0x1p-20, vec(0, 0), &g, 1, &res, NULL, NULL, NULL, 0, NULL) == ORCA_OK);
    ENSURE(orca_nav_path(nav, 0x1p20, vec(0, 0), &g, 1, &res, NULL, NULL, NULL, 0, NULL) == ORCA_OK);
    double badc[] = {NAN, INFINITY, -INFINITY, 0x1p21, -0x1p21, 1e300};
    for (size_t i = 0; i < sizeof badc / sizeof badc[0]; ++i) {
        ENSURE(orca_nav_path(nav, 1, vec(badc[i], 0), &g, 1, &res, NULL, NULL, NULL, 0, NULL) ==
               ORCA_ERR_ARGUMENT);
        ENSURE(strstr(orca_nav_last_error(nav), "from"));
        orca_vec2 gb = vec(0, badc[i]);
        ENSURE(orca_nav_path(nav, 1, vec(0, 0), &gb, 1, &res, NULL, NULL, NULL, 0, NULL) ==
               ORCA_ERR_ARGUMENT);
        ENSURE(strstr(orca_nav_last_error(nav), "goals[0]"));
    }
    ENSURE(orca_nav_path(nav, 1, vec(0x1.fffffffffffffp20, 0), &g, 1, &res, NULL, NULL, NULL, 0,
                         NULL) == ORCA_OK);
    ENSURE(orca_nav_path(nav, 1, vec(0, 0), &g, 0, &res, NULL, NULL, NULL, 0, NULL) ==
           ORCA_ERR_ARGUMENT);
    ENSURE(orca_nav_path(nav, 1, vec(0, 0), &g, ORCA_NAV_GOALS_MAX + 1, &res, NULL, NULL, NULL, 0,
                         NULL) == ORCA_ERR_LIMIT);
    ENSURE(orca_nav_path(nav, 1, vec(0, 0), NULL, 1, &res, NULL, NULL, NULL, 0, NULL) ==
           ORCA_ERR_NULL);
    ENSURE(orca_nav_path(nav, 1, vec(0, 0), &g, 1, NULL, NULL, NULL, NULL, 0, NULL) ==
           ORCA_ERR_NULL);
    ENSURE(orca_nav_path(nav, 1, vec(0, 0), &g, 1, &res, NULL, NULL, NULL, 3, NULL) ==
           ORCA_ERR_NULL);
    ENSURE(orca_nav_path(NULL, 1, vec(0, 0), &g, 1, &res, NULL, NULL, NULL, 0, NULL) ==
           ORCA_ERR_NULL);
    ENSURE(strcmp(orca_nav_result_name(ORCA_NAV_NO_PATH), "ORCA_NAV_NO_PATH") == 0);
    ENSURE(strcmp(orca_nav_result_name(99), "unknown result") == 0);
    orca_nav_destroy(nav);
    orca_nav_destroy(NULL);
    orca_sim_destroy(sim);
    return 0;
}

/* Line of sight (orca_nav_visible): the closed cases of a wall across, beside and touching
 * the segment, loop edges, a wall added between queries, the refusals; and on random walls a
 * visible segment (radius r >= 2^-20) is a path without corners for a disc of radius r. */
static double next_unit(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*x >> 11) * 0x1p-53;
}

static orca_vec2 next_point(uint64_t *x, double side)
{
    double px = next_unit(x) * side - side / 2;
    double py = next_unit(x) * side - side / 2;
    return vec(px, py);
}

static int visible(orca_nav *nav, double r, orca_vec2 a, orca_vec2 b)
{
    int v = -1;
    if (orca_nav_visible(nav, r, a, b, &v) != ORCA_OK) {
        return -1;
    }
    return v;
}

static int test_visibility(void)
{
    orca_sim *sim = new_sim();
    ENSURE(sim);
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    ENSURE(visible(nav, 0, vec(-2, 0), vec(2, 0)) == 1); /* no walls */
    ENSURE(orca_sim_add_segment(sim, vec(0, -1), vec(0, 1), NULL) == ORCA_OK);
    ENSURE(visible(nav, 0, vec(-2, 0), vec(2, 0)) == 0);  /* crosses */
    ENSURE(visible(nav, 0, vec(-2, 1), vec(2, 1)) == 0);  /* touches the end (0, 1) */
    ENSURE(visible(nav, 0, vec(-2, 2), vec(2, 2)) == 1);
    ENSURE(visible(nav, 0.5, vec(-2, 2), vec(2, 2)) == 1);
    ENSURE(visible(nav, 1, vec(-2, 2), vec(2, 2)) == 0); /* exactly 1 away: not farther */
    ENSURE(visible(nav, 0x1p20, vec(5, 5), vec(5, 5)) == 0);
    ENSURE(visible(nav, 0, vec(1, 0), vec(1, 0)) == 1); /* a point */
    ENSURE(visible(nav, 0, vec(0, 0.5), vec(0, 0.5)) == 0);
    /* walls added after a query are seen by the next one */
    ENSURE(visible(nav, 0, vec(3, -5), vec(3, 5)) == 1);
    ENSURE(orca_sim_add_segment(sim, vec(2, 0), vec(4, 0), NULL) == ORCA_OK);
    ENSURE(visible(nav, 0, vec(3, -5), vec(3, 5)) == 0);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);

    /* loop edges are walls: the ring corridor */
    sim = new_sim();
    ENSURE(sim && add_ring(sim));
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    ENSURE(visible(nav, 0.5, vec(1, 1), vec(19, 1)) == 1);
    ENSURE(visible(nav, 1, vec(1, 1), vec(19, 1)) == 0);
    ENSURE(visible(nav, 0, vec(1, 10), vec(19, 10)) == 0); /* through the block */
    ENSURE(visible(nav, 0, vec(30, 30), vec(40, 40)) == 1); /* outside: not asked */

    /* refusals: the message names the value, *visible untouched */
    double badr[] = {-1.0, -0x1p-1074, 0x1p20 * 2, NAN, INFINITY};
    for (size_t i = 0; i < sizeof badr / sizeof badr[0]; ++i) {
        int v = 7;
        ENSURE(orca_nav_visible(nav, badr[i], vec(0, 0), vec(1, 1), &v) == ORCA_ERR_ARGUMENT);
        ENSURE(v == 7 && strstr(orca_nav_last_error(nav), "radius"));
    }
    double badc[] = {NAN, INFINITY, 0x1p21, -1e300};
    for (size_t i = 0; i < sizeof badc / sizeof badc[0]; ++i) {
        int v = 7;
        ENSURE(orca_nav_visible(nav, 1, vec(badc[i], 0), vec(1, 1), &v) == ORCA_ERR_ARGUMENT);
        ENSURE(v == 7 && strncmp(orca_nav_last_error(nav), "a (", 3) == 0);
        ENSURE(orca_nav_visible(nav, 1, vec(0, 0), vec(1, badc[i]), &v) == ORCA_ERR_ARGUMENT);
        ENSURE(v == 7 && strncmp(orca_nav_last_error(nav), "b (", 3) == 0);
    }
    ENSURE(orca_nav_visible(nav, 1, vec(0, 0), vec(1, 1), NULL) == ORCA_ERR_NULL);
    ENSURE(orca_nav_visible(NULL, 1, vec(0, 0), vec(1, 1), NULL) == ORCA_ERR_NULL);
    ENSURE(visible(nav, 0, vec(0, 0), vec(0x1.fffffffffffffp20, 0)) == 0);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);

    /* random walls: visible at r means a straight path for a disc of radius r */
    sim = new_sim();
    ENSURE(sim);
    uint64_t x = 12345;
    for (int k = 0; k < 12; ++k) {
        orca_vec2 a = next_point(&x, 40), d = next_point(&x, 8);
        orca_vec2 b = vec(a.x + d.x, a.y + d.y);
        ENSURE(orca_sim_add_segment(sim, a, b, NULL) == ORCA_OK);
    }
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    int seen = 0, blocked = 0;
    for (int k = 0; k < 400; ++k) {
        orca_vec2 a = next_point(&x, 40), b = next_point(&x, 40);
        double r = 0.25 + next_unit(&x);
        int v = visible(nav, r, a, b);
        ENSURE(v == 0 || v == 1);
        if (v) {
            path_out o;
            ENSURE(query(nav, r, a, b, &o) == ORCA_OK);
            ENSURE_MSG(o.result == ORCA_NAV_OK && o.count == 0, "query %d: visible, no straight path", k);
            ENSURE_BITS(o.length, sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)));
        }
        seen += v;
        blocked += !v;
    }
    ENSURE(seen > 40 && blocked > 40);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);
    return 0;
}

/* Walls change between queries: the structure follows. */
static int test_walls_change(void)
{
    orca_sim *sim = new_sim();
    ENSURE(sim);
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    path_out o;
    ENSURE(query(nav, 0.5, vec(-5, 0), vec(5, 0), &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_OK && o.count == 0);
    orca_segment_id id;
    ENSURE(orca_sim_add_segment(sim, vec(0, -3), vec(0, 3), &id) == ORCA_OK);
    ENSURE(query(nav, 0.5, vec(-5, 0), vec(5, 0), &o) == ORCA_OK);
    /* around one end of the wall: one corner, between the straight lines through the end */
    ENSURE(o.result == ORCA_NAV_OK && o.count == 1);
    ENSURE(fabs(o.c[0].vertex.y) == 3 && o.c[0].vertex.x == 0);
    ENSURE(o.length > 2 * sqrt(34.0) && o.length < 2 * sqrt(34.0) + 0.5 * M_PI);
    ENSURE(orca_sim_remove_segment(sim, id) == ORCA_OK);
    ENSURE(query(nav, 0.5, vec(-5, 0), vec(5, 0), &o) == ORCA_OK);
    ENSURE(o.result == ORCA_NAV_OK && o.count == 0);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);
    return 0;
}

/* A room with its door on the left and the agents' goals beyond its right wall: without
 * navigation they press against the right wall; with it every one walks out of the door and
 * round the room. */
static int trap_run(int navigation, int steps, int *arrived, int *unreachable, uint64_t *hash,
                    int workers)
{
    orca_scenario *sc = new_scenario(1, workers);
    ENSURE(sc != NULL);
    orca_sim *sim = orca_scenario_sim(sc);
    orca_vec2 room[6] = {vec(0, 4), vec(0, 0), vec(10, 0), vec(10, 10), vec(0, 10), vec(0, 6)};
    orca_segment_id ids[5];
    ENSURE(orca_sim_add_polyline(sim, room, 6, 0, ids) == ORCA_OK);
    ENSURE(orca_scenario_set_navigation(sc, navigation) == ORCA_OK);
    for (int k = 0; k < 12; ++k) {
        orca_agent_def d = orca_agent_def_default();
        d.radius = 0.3;
        d.max_speed = 1.5;
        d.neighbor_dist = 3;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 1;
        d.position = vec(8.5 - (k / 3) * 1.0, 4 + (k % 3) * 1.0);
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_POINT;
        g.target = vec(14 + (k / 3) * 1.0, 3 + (k % 3) * 1.5);
        g.preferred_speed = 1.2;
        ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    }
    for (int s = 0; s < steps; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    *arrived = orca_scenario_arrived_count(sc);
    *unreachable = orca_scenario_nav_unreachable(sc);
    *hash = orca_scenario_hash(sc);
    double wo = orca_scenario_max_wall_overlap(sc);
    ENSURE_MSG(wo < 0.01, "wall overlap %g", wo);
    orca_scenario_destroy(sc);
    return 0;
}

static int test_trap_room(void)
{
    int arrived, unreachable;
    uint64_t h1, h2, h0;
    ENSURE(trap_run(0, 800, &arrived, &unreachable, &h0, 1) == 0);
    ENSURE_MSG(arrived == 0, "without navigation %d arrived", arrived);
    ENSURE(trap_run(1, 800, &arrived, &unreachable, &h1, 1) == 0);
    ENSURE_MSG(arrived == 12, "with navigation %d of 12 arrived", arrived);
    ENSURE(unreachable == 0);
    ENSURE(trap_run(1, 800, &arrived, &unreachable, &h2, 3) == 0);
    ENSURE_MSG(h1 == h2, "1 worker %016llx, 3 workers %016llx", (unsigned long long)h1,
               (unsigned long long)h2);
    ENSURE(h0 != h1);
    return 0;
}

/* Navigation off: a scenario's hash and bits are those of the plain rule, even after it was
 * on and off again with no step between. */
static int test_off_is_plain(void)
{
    uint64_t h[2];
    for (int pass = 0; pass < 2; ++pass) {
        orca_scenario *sc = NULL;
        ENSURE(orca_scenario_create_builtin(ORCA_SCENE_WALL_GAP, 40, 3, NULL, &sc) == ORCA_OK);
        if (pass) {
            ENSURE(orca_scenario_set_navigation(sc, 1) == ORCA_OK);
            ENSURE(orca_scenario_get_navigation(sc) == 1);
            ENSURE(orca_scenario_set_navigation(sc, 0) == ORCA_OK);
        }
        ENSURE(orca_scenario_set_navigation(sc, 2) == ORCA_ERR_ARGUMENT);
        for (int s = 0; s < 50; ++s) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        h[pass] = orca_scenario_hash(sc);
        orca_scenario_destroy(sc);
    }
    ENSURE(h[0] == h[1]);
    return 0;
}

/* Goal sets: two exits of a room; each agent takes the nearer by path. */
static int test_goal_set(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.1, 1, &sc) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    /* a room 10 x 10 with a door in the left and the right wall; exits outside each */
    orca_segment_id id;
    ENSURE(orca_sim_add_segment(sim, vec(0, 0), vec(10, 0), &id) == ORCA_OK);
    ENSURE(orca_sim_add_segment(sim, vec(0, 10), vec(10, 10), &id) == ORCA_OK);
    ENSURE(orca_sim_add_segment(sim, vec(0, 0), vec(0, 4), &id) == ORCA_OK);
    ENSURE(orca_sim_add_segment(sim, vec(0, 6), vec(0, 10), &id) == ORCA_OK);
    ENSURE(orca_sim_add_segment(sim, vec(10, 0), vec(10, 4), &id) == ORCA_OK);
    ENSURE(orca_sim_add_segment(sim, vec(10, 6), vec(10, 10), &id) == ORCA_OK);
    orca_vec2 exits[2] = {vec(-3, 5), vec(13, 5)};
    int set = -1;
    ENSURE(orca_scenario_add_goal_set(sc, "exits", exits, 2, &set) == ORCA_OK && set == 0);
    ENSURE(orca_scenario_add_goal_set(sc, "exits", exits, 2, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_add_goal_set(sc, "", exits, 2, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_add_goal_set(sc, "x", exits, 0, NULL) == ORCA_ERR_ARGUMENT);
    orca_vec2 bad[1] = {vec(NAN, 0)};
    ENSURE(orca_scenario_add_goal_set(sc, "bad", bad, 1, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "point 0"));
    ENSURE(orca_scenario_goal_set_count(sc) == 1);
    ENSURE(orca_scenario_goal_set_find(sc, "exits") == 0);
    ENSURE(orca_scenario_goal_set_find(sc, "nope") == -1);
    ENSURE(orca_scenario_set_navigation(sc, 1) == ORCA_OK);
    for (int k = 0; k < 10; ++k) {
        orca_agent_def d = orca_agent_def_default();
        d.radius = 0.3;
        d.max_speed = 1.5;
        d.neighbor_dist = 3;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 1;
        d.position = vec(1.5 + (k % 5) * 1.6, (k / 5) ? 8.5 : 1.5);
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_SET;
        g.goal_set = 0;
        g.preferred_speed = 1.2;
        ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    }
    orca_goal g = orca_goal_default();
    g.kind = ORCA_GOAL_SET;
    g.goal_set = 1;
    orca_agent_def d = orca_agent_def_default();
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    for (int i = 0; i < 10; ++i) {
        orca_nav_agent na;
        ENSURE(orca_scenario_agent_nav(sc, i, &na, NULL, 0) == ORCA_OK);
        ENSURE(na.navigating && na.result == ORCA_NAV_OK && na.plans == 1);
        /* the nearer exit by path: the left one from x < 5 */
        orca_vec2 start;
        ENSURE(orca_scenario_agent_goal(sc, i, NULL, &start) == ORCA_OK);
        if (start.x != 5) {
            ENSURE_MSG((start.x < 5) == (na.goal.x < 0), "agent %d from %g went to %g", i, start.x,
                       na.goal.x);
        }
    }
    for (int s = 0; s < 400; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    const orca_vec2 *pos = orca_sim_positions(sim);
    for (int i = 0; i < 10; ++i) {
        ENSURE_MSG(pos[i].x < 0 || pos[i].x > 10, "agent %d still in the room at (%g, %g)", i,
                   pos[i].x, pos[i].y);
    }
    orca_scenario_destroy(sc);
    return 0;
}

/* A goal behind a wall that closes mid-run: the agents re-plan to the other way round. */
static int test_blocked_corridor(void)
{
    orca_scenario *sc = new_scenario(1, 1);
    ENSURE(sc != NULL);
    orca_sim *sim = orca_scenario_sim(sc);
    ENSURE(add_ring(sim));
    ENSURE(orca_scenario_set_navigation(sc, 1) == ORCA_OK);
    for (int k = 0; k < 6; ++k) {
        orca_agent_def d = orca_agent_def_default();
        d.radius = 0.3;
        d.max_speed = 1.5;
        d.neighbor_dist = 3;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 1;
        d.position = vec(2 + (k % 3) * 1.0, 2 + (k / 3) * 1.0);
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_POINT;
        g.target = vec(17 + (k % 3) * 1.0, 17 + (k / 3) * 1.0 - 1);
        g.preferred_speed = 1.2;
        ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    }
    for (int s = 0; s < 20; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    /* which way did agent 0 take? block that side's corridor with a wall across it */
    orca_nav_agent na;
    orca_nav_corner c[8];
    ENSURE(orca_scenario_agent_nav(sc, 0, &na, c, 8) == ORCA_OK);
    ENSURE(na.result == ORCA_NAV_OK && na.corners >= 1);
    int via_right = c[0].vertex.x == 14; /* around (14, 6): the lower-right way */
    orca_segment_id wall;
    if (via_right) {
        ENSURE(orca_sim_add_segment(sim, vec(14, 3), vec(20, 3), &wall) == ORCA_OK);
    } else {
        ENSURE(orca_sim_add_segment(sim, vec(3, 6), vec(3, 0), &wall) == ORCA_OK);
    }
    /* wait: the wall above must not overlap an agent: they are near (2..4, 2..3) */
    for (int s = 0; s < 900; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    ENSURE_MSG(orca_scenario_arrived_count(sc) == 6, "%d of 6 arrived",
               orca_scenario_arrived_count(sc));
    ENSURE(orca_scenario_agent_nav(sc, 0, &na, c, 8) == ORCA_OK);
    ENSURE(na.plans >= 2);
    orca_scenario_destroy(sc);
    return 0;
}

/* Re-routing (docs/navigation.md, "Following a path"): the short door is blocked by an agent
 * that stands in it (navigation does not see agents); after 4 s without progress the walker
 * plans again with the door's corner costing more and goes through the other door. */
static int test_reroute(void)
{
    uint64_t hashes[2];
    for (int workers = 1; workers <= 2; ++workers) {
        orca_scenario *sc = new_scenario(1, workers);
        ENSURE(sc != NULL);
        orca_sim *sim = orca_scenario_sim(sc);
        orca_segment_id id;
        ENSURE(orca_sim_add_segment(sim, vec(0, -10), vec(0, -2.0), &id) == ORCA_OK);
        ENSURE(orca_sim_add_segment(sim, vec(0, -0.8), vec(0, 3.4), &id) == ORCA_OK);
        ENSURE(orca_sim_add_segment(sim, vec(0, 4.6), vec(0, 10), &id) == ORCA_OK);
        ENSURE(orca_scenario_set_navigation(sc, 1) == ORCA_OK);
        orca_agent_def d = orca_agent_def_default();
        d.radius = 0.3;
        d.max_speed = 1.5;
        d.neighbor_dist = 3;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 1;
        d.position = vec(-5, 0);
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_POINT;
        g.target = vec(5, 0);
        g.preferred_speed = 1.2;
        ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
        orca_agent_def b = d; /* the blocker: in the short door, standing */
        b.radius = 0.55;
        b.max_speed = 0;
        b.position = vec(0, -1.4);
        orca_goal none = orca_goal_default();
        ENSURE(orca_scenario_add_agent(sc, &b, &none, NULL) == ORCA_OK);
        orca_nav_agent na;
        orca_nav_corner c[8];
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
        ENSURE(orca_scenario_agent_nav(sc, 0, &na, c, 8) == ORCA_OK);
        ENSURE(na.result == ORCA_NAV_OK && na.corners >= 1 && c[0].vertex.y == -0.8);
        for (int s = 0; s < 600; ++s) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        ENSURE(orca_scenario_agent_nav(sc, 0, &na, c, 8) == ORCA_OK);
        ENSURE_MSG(na.reroutes >= 1, "%d re-routings", na.reroutes);
        orca_vec2 p;
        ENSURE(orca_agent_get_position(sim, orca_sim_agent_at(sim, 0), &p) == ORCA_OK);
        ENSURE_MSG(hypot(p.x - 5, p.y) <= 0.3, "at (%g, %g) after %d re-routings", p.x, p.y,
                   na.reroutes);
        hashes[workers - 1] = orca_scenario_hash(sc);
        orca_scenario_destroy(sc);
    }
    ENSURE(hashes[0] == hashes[1]);
    return 0;
}

/* No path: a goal in a closed room is reported and the agent stands. */
static int test_unreachable(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.1, 1, &sc) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    orca_vec2 room[4] = {vec(10, 10), vec(10, 14), vec(14, 14), vec(14, 10)}; /* clockwise */
    orca_segment_id id;
    for (int k = 0; k < 4; ++k) {
        ENSURE(orca_sim_add_segment(sim, room[k], room[(k + 1) % 4], &id) == ORCA_OK);
    }
    ENSURE(orca_scenario_set_navigation(sc, 1) == ORCA_OK);
    orca_agent_def d = orca_agent_def_default();
    d.radius = 0.3;
    d.position = vec(0, 0);
    orca_goal g = orca_goal_default();
    g.kind = ORCA_GOAL_POINT;
    g.target = vec(12, 12);
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    for (int s = 0; s < 5; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    {
        orca_nav_agent q0, q1;
        orca_scenario_agent_nav(sc, 0, &q0, NULL, 0);
        orca_scenario_agent_nav(sc, 1, &q1, NULL, 0);
        ENSURE_MSG(orca_scenario_nav_unreachable(sc) == 1, "%s %s", orca_nav_result_name(q0.result), orca_nav_result_name(q1.result));
    }
    orca_nav_agent na;
    ENSURE(orca_scenario_agent_nav(sc, 0, &na, NULL, 0) == ORCA_OK);
    ENSURE(na.result == ORCA_NAV_NO_PATH);
    orca_vec2 p;
    ENSURE(orca_agent_get_position(sim, orca_sim_agent_at(sim, 0), &p) == ORCA_OK);
    ENSURE(p.x == 0 && p.y == 0);
    orca_scenario_destroy(sc);
    return 0;
}

/* orca_nav_stats_get, a start pushed nearer than r to a wall (it plans with the clearance it
 * has), a goal set no agent can reach, and the aim at a corner's own vertex. */
static int test_edges(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.1, 1, &sc) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    orca_vec2 room[6] = {vec(0, 4), vec(0, 0), vec(10, 0), vec(10, 10), vec(0, 10), vec(0, 6)};
    orca_segment_id ids[5];
    ENSURE(orca_sim_add_polyline(sim, room, 6, 0, ids) == ORCA_OK);
    orca_vec2 closed[4] = {vec(20, 20), vec(20, 24), vec(24, 24), vec(24, 20)};
    orca_segment_id cid[4];
    ENSURE(orca_sim_add_polyline(sim, closed, 4, 1, cid) == ORCA_OK);
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    orca_nav_stats st;
    ENSURE(orca_nav_stats_get(nav, 0.3, &st) == ORCA_OK);
    ENSURE(st.walls == 9 && st.vertices == 10 && st.legs > 0 && st.bytes > 0);
    ENSURE(orca_nav_stats_get(nav, 0.0, &st) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_nav_stats_get(nav, 0.3, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_nav_stats_get(NULL, 0.3, &st) == ORCA_ERR_NULL);
    ENSURE(strcmp(orca_nav_result_name(ORCA_NAV_OK), "ORCA_NAV_OK") == 0);
    ENSURE(strcmp(orca_nav_result_name(ORCA_NAV_START_BLOCKED), "ORCA_NAV_START_BLOCKED") == 0);
    ENSURE(strcmp(orca_nav_result_name(ORCA_NAV_GOAL_BLOCKED), "ORCA_NAV_GOAL_BLOCKED") == 0);
    orca_nav_destroy(nav);
    /* goal sets: one point inside the closed box (no path), one reachable */
    orca_vec2 inside[1] = {vec(22, 22)};
    orca_vec2 outside[1] = {vec(15, 5)};
    int s_in = -1, s_out = -1;
    ENSURE(orca_scenario_add_goal_set(sc, "in", inside, 1, &s_in) == ORCA_OK);
    ENSURE(orca_scenario_add_goal_set(sc, "out", outside, 1, &s_out) == ORCA_OK);
    ENSURE(orca_scenario_set_goal_set_exit(sc, s_out, 0.5) == ORCA_OK);
    ENSURE(orca_scenario_set_goal_set_exit(sc, s_out, -1) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_goal_set_exit(sc, 7, 0) == ORCA_ERR_ARGUMENT);
    int is_exit = 0;
    double arrive = 0;
    ENSURE(orca_scenario_goal_set_exit(sc, s_out, &is_exit, &arrive) == ORCA_OK && is_exit &&
           arrive == 0.5);
    ENSURE(orca_scenario_goal_set_exit(sc, s_in, &is_exit, NULL) == ORCA_OK && !is_exit);
    ENSURE(orca_scenario_set_navigation(sc, 1) == ORCA_OK);
    orca_agent_def d = orca_agent_def_default();
    d.radius = 0.3;
    d.max_speed = 1.5;
    d.neighbor_dist = 3;
    d.time_horizon = 2;
    d.obstacle_time_horizon = 1;
    orca_goal g = orca_goal_default();
    g.kind = ORCA_GOAL_SET;
    g.goal_set = s_in;
    d.position = vec(5, 5);
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    g.goal_set = s_out;
    d.position = vec(0.25, 8); /* 0.25 from the wall x = 0: nearer than its radius */
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    {
        orca_nav_agent q0, q1;
        orca_scenario_agent_nav(sc, 0, &q0, NULL, 0);
        orca_scenario_agent_nav(sc, 1, &q1, NULL, 0);
        ENSURE_MSG(orca_scenario_nav_unreachable(sc) == 1, "%s %s", orca_nav_result_name(q0.result), orca_nav_result_name(q1.result));
    }
    orca_nav_agent na;
    ENSURE(orca_scenario_agent_nav(sc, 1, &na, NULL, 0) == ORCA_OK);
    ENSURE_MSG(na.result == ORCA_NAV_OK, "%s", orca_nav_result_name(na.result));
    ENSURE(orca_scenario_agent_nav(sc, 0, &na, NULL, 0) == ORCA_OK && na.result == ORCA_NAV_NO_PATH);
    ENSURE(orca_scenario_agent_nav(sc, 9, &na, NULL, 0) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_agent_nav(sc, 0, NULL, NULL, 0) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_agent_nav(sc, 0, &na, NULL, 2) == ORCA_ERR_NULL);
    for (int k = 0; k < 400; ++k) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    int exited = 0;
    int64_t last = -2;
    ENSURE(orca_scenario_exited(sc, &exited, &last) == ORCA_OK && exited == 1 && last > 0);
    const char *name = NULL;
    int count = 0;
    orca_vec2 pts[1];
    ENSURE(orca_scenario_goal_set_get(sc, s_out, &name, pts, 1, &count) == ORCA_OK &&
           strcmp(name, "out") == 0 && count == 1 && pts[0].x == 15);
    ENSURE(orca_scenario_goal_set_get(sc, 5, &name, NULL, 0, NULL) == ORCA_ERR_ARGUMENT);
    orca_scenario_destroy(sc);
    /* the aim at the corner's own vertex */
    orca_nav_corner c;
    memset(&c, 0, sizeof c);
    c.vertex = vec(1, 1);
    c.side = 1;
    orca_vec2 a = orca_nav_aim(vec(1, 1), &c, 0.5);
    ENSURE(a.x == 0 && a.y == 0);
    return 0;
}

/* A ring corridor round a block (outer loop 0..20, a block 6..14) with navigation on and one
 * agent at (2, 2) heading for (18, 2); workers 1 or 2. */
static orca_scenario *ring_scene(int workers)
{
    orca_scenario *sc = new_scenario(1, workers);
    if (!sc) {
        return NULL;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    orca_agent_def d = orca_agent_def_default();
    d.radius = 0.3;
    d.max_speed = 1.5;
    d.position = vec(2, 2);
    orca_goal g = orca_goal_default();
    g.kind = ORCA_GOAL_POINT;
    g.target = vec(18, 2);
    g.preferred_speed = 1.2;
    if (!add_ring(sim) || orca_scenario_set_navigation(sc, 1) != ORCA_OK ||
        orca_scenario_add_agent(sc, &d, &g, NULL) != ORCA_OK) {
        orca_scenario_destroy(sc);
        return NULL;
    }
    return sc;
}

/* Changing a goal mid-run (orca_scenario_set_agent_goal): the agent plans a path to the new
 * goal at the next step and arrives there; then a goal set, then a fixed velocity (its path
 * state goes); the same bits with 1 and 2 workers. */
static int test_goal_change(void)
{
    uint64_t hashes[2];
    for (int w = 0; w < 2; ++w) {
        orca_scenario *sc = ring_scene(w + 1);
        ENSURE(sc != NULL);
        for (int s = 0; s < 30; ++s) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        orca_nav_agent na;
        ENSURE(orca_scenario_agent_nav(sc, 0, &na, NULL, 0) == ORCA_OK);
        ENSURE(na.result == ORCA_NAV_OK && na.plans == 1 && na.corners == 0); /* in sight */
        /* the opposite corner, behind the block: a path round it */
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_POINT;
        g.target = vec(18, 18);
        g.preferred_speed = 1.2;
        ENSURE(orca_scenario_set_agent_goal(sc, 0, &g) == ORCA_OK);
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
        ENSURE(orca_scenario_agent_nav(sc, 0, &na, NULL, 0) == ORCA_OK);
        ENSURE_MSG(na.result == ORCA_NAV_OK && na.plans == 2 && na.corners == 1,
                   "result %d, plans %d, corners %d", (int)na.result, na.plans, na.corners);
        ENSURE(na.goal.x == 18 && na.goal.y == 18);
        for (int s = 0; s < 400 && orca_scenario_arrived_count(sc) < 1; ++s) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        ENSURE(orca_scenario_arrived_count(sc) == 1);
        orca_goal got;
        ENSURE(orca_scenario_agent_goal(sc, 0, &got, NULL) == ORCA_OK);
        ENSURE(got.kind == ORCA_GOAL_POINT && got.target.x == 18 && got.target.y == 18);
        /* a goal set of two points: it heads for the nearer by path, (2, 2) */
        orca_vec2 pts[2] = {vec(2, 18), vec(2, 2)};
        int set = -1;
        ENSURE(orca_scenario_add_goal_set(sc, "meet", pts, 2, &set) == ORCA_OK);
        g.kind = ORCA_GOAL_SET;
        g.goal_set = set;
        ENSURE(orca_scenario_set_agent_goal(sc, 0, &g) == ORCA_OK);
        for (int s = 0; s < 400 && orca_scenario_arrived_count(sc) < 1; ++s) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        ENSURE(orca_scenario_agent_nav(sc, 0, &na, NULL, 0) == ORCA_OK);
        ENSURE(na.plans == 3 && na.goal.x == 2 && na.goal.y == 18);
        for (int s = 0; s < 400 && orca_scenario_arrived_count(sc) < 1; ++s) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        ENSURE(orca_scenario_arrived_count(sc) == 1);
        /* a fixed velocity: no path state */
        g = orca_goal_default();
        g.kind = ORCA_GOAL_VELOCITY;
        g.target = vec(0.5, 0);
        ENSURE(orca_scenario_set_agent_goal(sc, 0, &g) == ORCA_OK);
        ENSURE(orca_scenario_agent_nav(sc, 0, &na, NULL, 0) == ORCA_OK);
        ENSURE(!na.navigating && na.plans == 0 && na.corners == 0);
        orca_vec2 v[1];
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
        v[0] = vec(0, 0);
        ENSURE(orca_sim_swap_preferred_velocities(orca_scenario_sim(sc), v, 1) == ORCA_OK);
        ENSURE(v[0].x == 0.5 && v[0].y == 0);
        ENSURE(orca_sim_swap_preferred_velocities(orca_scenario_sim(sc), v, 1) == ORCA_OK);
        hashes[w] = orca_scenario_hash(sc);
        orca_scenario_destroy(sc);
    }
    ENSURE_MSG(hashes[0] == hashes[1], "%016llx with 1 worker, %016llx with 2",
               (unsigned long long)hashes[0], (unsigned long long)hashes[1]);
    return 0;
}

/* orca_scenario_set_agent_goal's refusals name the value and change nothing. */
static int test_goal_change_refused(void)
{
    orca_scenario *sc = ring_scene(1);
    ENSURE(sc != NULL);
    orca_sim *sim = orca_scenario_sim(sc);
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(3, 10);
    orca_agent_id direct;
    ENSURE(orca_sim_add_agent(sim, &d, &direct) == ORCA_OK); /* not through the scenario */
    orca_vec2 wp = vec(10, 3);
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    uint64_t before = orca_scenario_hash(sc);
    orca_goal g = orca_goal_default();
    g.kind = ORCA_GOAL_POINT;
    g.target = vec(18, 18);
    ENSURE(orca_scenario_set_agent_goal(NULL, 0, &g) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_set_agent_goal(sc, 0, NULL) == ORCA_ERR_NULL);
    ENSURE(strstr(orca_scenario_last_error(sc), "goal must not be NULL") != NULL);
    ENSURE(orca_scenario_set_agent_goal(sc, 2, &g) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "index must be in [0, 2), got 2") != NULL);
    ENSURE(orca_scenario_set_agent_goal(sc, -1, &g) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_set_agent_goal(sc, 1, &g) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "not added through the scenario") != NULL);
    const double bad[] = {0.0 / 0.0, 1.0 / 0.0, -1.0 / 0.0, 0x1p21, -0x1p21, 1.7976931348623157e308};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        orca_goal b = g;
        b.target.y = bad[k];
        ENSURE(orca_scenario_set_agent_goal(sc, 0, &b) == ORCA_ERR_ARGUMENT);
        ENSURE(strstr(orca_scenario_last_error(sc), "goal point must have finite") != NULL);
        b = g;
        b.preferred_speed = k == 3 ? 0x1p30 * (1 + 0x1p-52) : (k == 4 ? -0x1p-1074 : bad[k]);
        ENSURE(orca_scenario_set_agent_goal(sc, 0, &b) == ORCA_ERR_ARGUMENT);
        ENSURE(strstr(orca_scenario_last_error(sc), "preferred_speed must be in") != NULL);
    }
    orca_goal b = g;
    b.kind = ORCA_GOAL_SET;
    b.goal_set = 0; /* no set yet */
    ENSURE(orca_scenario_set_agent_goal(sc, 0, &b) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "goal_set must name a goal set: in [0, 0), got 0") != NULL);
    b.kind = (orca_goal_kind)7;
    ENSURE(orca_scenario_set_agent_goal(sc, 0, &b) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "goal kind must be") != NULL);
    ENSURE(orca_scenario_set_waypoints(sc, 0, &wp, 1, 0, 0.0) == ORCA_OK);
    uint64_t with_wp = orca_scenario_hash(sc);
    ENSURE(orca_scenario_set_agent_goal(sc, 0, &g) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "has waypoints: remove them first") != NULL);
    ENSURE(orca_scenario_hash(sc) == with_wp);
    ENSURE(orca_scenario_set_waypoints(sc, 0, NULL, 0, 0, 0.0) == ORCA_OK);
    ENSURE(orca_scenario_hash(sc) == before);
    /* the largest accepted values */
    b = g;
    b.target = vec(0x1p21 * (1 - 0x1p-53), -0x1p21 * (1 - 0x1p-53));
    b.preferred_speed = 0x1p30;
    ENSURE(orca_scenario_set_agent_goal(sc, 0, &b) == ORCA_OK);
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    orca_nav_agent na;
    ENSURE(orca_scenario_agent_nav(sc, 0, &na, NULL, 0) == ORCA_OK);
    ENSURE(na.result == ORCA_NAV_GOAL_BLOCKED); /* outside the walkable area */
    orca_scenario_destroy(sc);
    return 0;
}

/* A crowd big enough for the navigation pass to run on the workers (2,500 agents in a walled
 * yard split by a wall with two doors, heading for an exit set and a point behind the wall;
 * re-routings in the queues): the same scenario hash with 1, 2 and 3 workers, step by step. */
static int test_crowd_workers(void)
{
    uint64_t first[60];
    for (int workers = 1; workers <= 3; ++workers) {
        orca_scenario *sc = new_scenario(7, workers);
        ENSURE(sc != NULL);
        orca_sim *sim = orca_scenario_sim(sc);
        orca_vec2 yard[4] = {vec(0, 0), vec(80, 0), vec(80, 60), vec(0, 60)};
        orca_boundary_id b;
        orca_segment_id w;
        ENSURE(orca_sim_add_boundary(sim, yard, 4, &b) == ORCA_OK);
        ENSURE(orca_sim_add_segment(sim, vec(60, 0), vec(60, 20), &w) == ORCA_OK);
        ENSURE(orca_sim_add_segment(sim, vec(60, 22), vec(60, 40), &w) == ORCA_OK);
        ENSURE(orca_sim_add_segment(sim, vec(60, 41.5), vec(60, 60), &w) == ORCA_OK);
        orca_vec2 exits[2] = {vec(79.5, 5), vec(79.5, 55)};
        int set = -1;
        ENSURE(orca_scenario_add_goal_set(sc, "exits", exits, 2, &set) == ORCA_OK);
        ENSURE(orca_scenario_set_goal_set_exit(sc, set, 1.0) == ORCA_OK);
        ENSURE(orca_scenario_set_navigation(sc, 1) == ORCA_OK);
        for (int k = 0; k < 2500; ++k) {
            orca_agent_def d = orca_agent_def_default();
            d.radius = 0.3;
            d.max_speed = 1.5;
            d.neighbor_dist = 2;
            d.max_neighbors = 8;
            d.time_horizon = 1;
            d.obstacle_time_horizon = 0.25;
            d.position = vec(2 + (k % 50) * 1.1, 2 + (k / 50) * 1.1);
            orca_goal g = orca_goal_default();
            if (k % 5 == 0) {
                g.kind = ORCA_GOAL_POINT;
                g.target = vec(70, 30 + (k % 7));
            } else {
                g.kind = ORCA_GOAL_SET;
                g.goal_set = set;
            }
            g.preferred_speed = 1.3;
            ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
        }
        for (int s = 0; s < 60; ++s) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
            uint64_t h = orca_scenario_hash(sc);
            if (workers == 1) {
                first[s] = h;
            } else {
                ENSURE_MSG(h == first[s], "step %d: %016llx with %d workers, %016llx with 1", s,
                           (unsigned long long)h, workers, (unsigned long long)first[s]);
            }
        }
        orca_nav_agent na;
        ENSURE(orca_scenario_agent_nav(sc, 0, &na, NULL, 0) == ORCA_OK);
        ENSURE(na.navigating && na.result == ORCA_NAV_OK);
        orca_scenario_destroy(sc);
    }
    return 0;
}

/* A room of 160 agents behind a wall with two doors of unequal catchment (most agents
 * nearer the lower one), both leading to an exit point each, run until every agent has left:
 * with each exit choice and the leg check, on 1 and 2 workers and with the reference choice
 * (every point's cost from one uncapped pass: orca_sc_set_choice_reference). The same hash
 * every step on all three; no agent changes its exit more than twice with calm and quickest; the counts over
 * the run add up once the room is empty (exited = arrived = 160, the departures per point
 * sum to it, plans at least one an agent). */
/* The agents of the exit-choice scenes, at p. */
static orca_agent_def exit_agent(orca_vec2 p)
{
    orca_agent_def d = orca_agent_def_default();
    d.radius = 0.25;
    d.max_speed = 1.5;
    d.neighbor_dist = 2;
    d.max_neighbors = 8;
    d.time_horizon = 1;
    d.obstacle_time_horizon = 0.25;
    d.position = p;
    return d;
}

static orca_scenario *exits_room(int choice, int workers)
{
    orca_scenario *sc = new_scenario(11, workers);
    if (!sc) {
        return NULL;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    orca_vec2 yard[4] = {vec(0, 0), vec(30, 0), vec(30, 20), vec(0, 20)};
    orca_boundary_id b;
    orca_segment_id w;
    orca_vec2 exits[2] = {vec(28, 4.6), vec(28, 15.6)};
    int set = -1, ok = orca_sim_add_boundary(sim, yard, 4, &b) == ORCA_OK &&
                       orca_sim_add_segment(sim, vec(20, 0), vec(20, 4), &w) == ORCA_OK &&
                       orca_sim_add_segment(sim, vec(20, 5.2), vec(20, 15), &w) == ORCA_OK &&
                       orca_sim_add_segment(sim, vec(20, 16.2), vec(20, 20), &w) == ORCA_OK &&
                       orca_scenario_add_goal_set(sc, "exits", exits, 2, &set) == ORCA_OK &&
                       orca_scenario_set_goal_set_exit(sc, set, 0.5) == ORCA_OK &&
                       orca_scenario_set_navigation(sc, 1) == ORCA_OK &&
                       orca_scenario_set_nav_check(sc, 1) == ORCA_OK &&
                       orca_scenario_set_exit_choice(sc, choice) == ORCA_OK;
    for (int k = 0; ok && k < 160; ++k) {
        orca_agent_def d = exit_agent(vec(2 + (k % 16) * 1.0, 1 + (k / 16) * (k < 128 ? 1.0 : 1.4)));
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_SET;
        g.goal_set = set;
        g.preferred_speed = 1.3;
        ok = orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK;
    }
    if (!ok) {
        orca_scenario_destroy(sc);
        return NULL;
    }
    return sc;
}

/* A room whose east wall x = 0 has a door 1 m wide (y -0.5 .. 0.5); a walker from (-2, 0) to
 * `target`, with the leg check `check`; after it passes the door's jamb (its last leg) it is
 * put at `at`, at rest (a queue pushed it back behind the wall). NULL on failure. */
static orca_scenario *jamb_room(int check, orca_vec2 target, orca_vec2 at, int workers)
{
    orca_scenario *sc = new_scenario(1, workers);
    if (!sc) {
        return NULL;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    orca_vec2 room[6] = {vec(0, -0.5), vec(0, -5), vec(-10, -5), vec(-10, 5), vec(0, 5),
                         vec(0, 0.5)};
    orca_agent_def d = exit_agent(vec(-2, 0));
    d.radius = 0.3;
    orca_goal g = orca_goal_default();
    g.kind = ORCA_GOAL_POINT;
    g.target = target;
    g.preferred_speed = 1.2;
    orca_nav_agent n = {0};
    int ok = orca_sim_add_polyline(sim, room, 6, 0, NULL) == ORCA_OK &&
             orca_scenario_set_navigation(sc, 1) == ORCA_OK &&
             orca_scenario_set_nav_check(sc, check) == ORCA_OK &&
             orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK;
    for (int s = 0; ok && s < 400; ++s) {
        ok = orca_scenario_step(sc) == ORCA_OK &&
             orca_scenario_agent_nav(sc, 0, &n, NULL, 0) == ORCA_OK;
        if (n.corners == 1 && n.corner == 1) {
            break;
        }
    }
    orca_agent_id id = orca_sim_agent_at(sim, 0);
    if (!ok || n.corners != 1 || n.corner != 1 || orca_agent_set_position(sim, id, at) != ORCA_OK ||
        orca_agent_set_velocity(sim, id, vec(0, 0)) != ORCA_OK) {
        orca_scenario_destroy(sc);
        return NULL;
    }
    return sc;
}

/* The leg check (docs/navigation.md, "Following a path", step 4) frees an agent pushed square
 * against the wall beside a door's jamb, where the path round the jamb is only some 0.3 m
 * longer than its blocked straight leg: at the second check (8 s without progress) it takes
 * that path, a leg check's path, whose corner is not re-routed from; the same bits on 1 and
 * 2 workers and through a snapshot taken on that path. Without the check it stands there.
 * Held at that corner by a queue it waits; put where its leg to the corner is blocked it
 * plans again at the next check. */
static int test_leg_check_jamb(void)
{
    orca_vec2 target = vec(4, 0.7), at = vec(-0.35, 0.7);
    orca_scenario *off = jamb_room(0, target, at, 1);
    ENSURE(off);
    for (int s = 0; s < 600; ++s) {
        ENSURE(orca_scenario_step(off) == ORCA_OK);
    }
    orca_nav_counts c;
    ENSURE(orca_scenario_nav_counts(off, &c) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(off);
    orca_vec2 p = vec(0, 0);
    ENSURE(orca_agent_get_position(sim, orca_sim_agent_at(sim, 0), &p) == ORCA_OK);
    ENSURE_MSG(orca_scenario_arrived_count(off) == 0 && p.x < 0 && c.replans == 0,
               "without the check: arrived %d at (%g, %g), %lld replans",
               orca_scenario_arrived_count(off), p.x, p.y, (long long)c.replans);
    orca_scenario_destroy(off);

    orca_scenario *one = jamb_room(1, target, at, 1), *two = jamb_room(1, target, at, 2);
    ENSURE(one && two);
    int s = 0, replanned = -1;
    unsigned char *snap = NULL;
    size_t size = 0;
    uint64_t h[600];
    for (; s < 600; ++s) {
        ENSURE(orca_scenario_step(one) == ORCA_OK && orca_scenario_step(two) == ORCA_OK);
        ENSURE_MSG(orca_scenario_hash(one) == orca_scenario_hash(two), "step %d: 1 and 2 workers",
                   s);
        ENSURE(orca_scenario_nav_counts(one, &c) == ORCA_OK);
        if (replanned < 0 && c.replans == 1) {
            replanned = s;
            const sc_nav *v = one->agents[0].nv;
            ENSURE(v && v->leg == 1 && v->k == 0 && v->route.count == 1);
            ENSURE(orca_scenario_save(one, NULL, 0, &size) == ORCA_OK);
            snap = malloc(size);
            ENSURE(snap && orca_scenario_save(one, snap, size, &size) == ORCA_OK);
        }
        if (replanned >= 0) {
            h[s - replanned] = orca_scenario_hash(one);
        }
        if (orca_scenario_arrived_count(one) == 1) {
            break;
        }
    }
    /* the checks at 4 s (the detour is too short) and at 8 s (taken) */
    ENSURE_MSG(replanned >= 79 && replanned <= 81 && s < 600 && c.replans == 1 && c.reroutes == 0,
               "replanned at step %d, arrived at step %d, %lld replans, %lld re-routings",
               replanned, s, (long long)c.replans, (long long)c.reroutes);
    ENSURE(orca_scenario_load(two, snap, size) == ORCA_OK && two->agents[0].nv->leg == 1);
    ENSURE(orca_scenario_hash(two) == h[0]);
    for (int k = 1; k <= s - replanned; ++k) {
        ENSURE(orca_scenario_step(two) == ORCA_OK);
        ENSURE_MSG(orca_scenario_hash(two) == h[k], "step %d after the load", k);
    }
    free(snap);
    orca_scenario_destroy(one);
    orca_scenario_destroy(two);

    /* held at its leg check's corner by an agent that stands in the door (a queue; it does
     * not move), with its leg to the corner clear: it waits there, 20 s, without a
     * re-routing (a re-routed path would cost that corner more); when the other walks on,
     * it arrives */
    orca_scenario *q = jamb_room(1, target, at, 1);
    ENSURE(q);
    orca_agent_def d = exit_agent(vec(0.05, 0));
    d.radius = 0.3;
    d.max_speed = 0;
    orca_goal g = orca_goal_default();
    g.kind = ORCA_GOAL_POINT;
    g.target = d.position;
    ENSURE(orca_scenario_add_agent(q, &d, &g, NULL) == ORCA_OK);
    for (s = 0; s < 280; ++s) {
        ENSURE(orca_scenario_step(q) == ORCA_OK);
    }
    const sc_nav *v = q->agents[0].nv;
    ENSURE(orca_scenario_nav_counts(q, &c) == ORCA_OK);
    ENSURE_MSG(v->leg == 1 && v->k == 0 && v->stuck >= 150 && c.reroutes == 0 &&
                   c.replans == 1 && orca_scenario_arrived_count(q) == 1,
               "held: leg %d, corner %d, %d steps without progress, %lld re-routings, %lld "
               "replans, %d arrived", v->leg, v->k, v->stuck, (long long)c.reroutes,
               (long long)c.replans, orca_scenario_arrived_count(q));
    orca_sim *qs = orca_scenario_sim(q);
    orca_agent_id other = orca_sim_agent_at(qs, 1);
    ENSURE(orca_agent_get(qs, other, &d) == ORCA_OK);
    d.max_speed = 1.5;
    g.target = vec(4, -2);
    ENSURE(orca_agent_set(qs, other, &d) == ORCA_OK &&
           orca_scenario_set_agent_goal(q, 1, &g) == ORCA_OK);
    for (s = 0; s < 300 && orca_scenario_arrived_count(q) < 2; ++s) {
        ENSURE(orca_scenario_step(q) == ORCA_OK);
    }
    ENSURE_MSG(orca_scenario_arrived_count(q) == 2, "%d arrived", orca_scenario_arrived_count(q));
    orca_scenario_destroy(q);

    /* on its leg check's path, put outside the room beside the jamb, east of the wall: its
     * leg to the corner crosses the wall, so the next check (4 s) plans again from there and
     * takes the new path at any length (here its straight line to the goal, no longer than
     * the leg; on its last leg it would wait for the second check); it arrives */
    orca_scenario *far = jamb_room(1, target, at, 1);
    ENSURE(far);
    for (s = 0; s < 100 && far->agents[0].nv->replans == 0; ++s) {
        ENSURE(orca_scenario_step(far) == ORCA_OK);
    }
    orca_sim *fs = orca_scenario_sim(far);
    orca_agent_id id = orca_sim_agent_at(fs, 0);
    ENSURE(far->agents[0].nv->leg == 1 && far->agents[0].nv->k == 0 &&
           orca_agent_set_position(fs, id, vec(0.35, 1.5)) == ORCA_OK &&
           orca_agent_set_velocity(fs, id, vec(0, 0)) == ORCA_OK);
    for (s = 0; s < 100 && far->agents[0].nv->replans == 1; ++s) {
        ENSURE(orca_scenario_step(far) == ORCA_OK);
    }
    v = far->agents[0].nv;
    ENSURE_MSG(s <= 41 && v->replans == 2 && v->leg == 1 && v->reroutes == 0,
               "after %d steps: %d replans, leg %d, %d corners (at %d), %d re-routings", s,
               v->replans, v->leg, v->route.count, v->k, v->reroutes);
    for (s = 0; s < 600 && orca_scenario_arrived_count(far) == 0; ++s) {
        ENSURE(orca_scenario_step(far) == ORCA_OK);
    }
    ENSURE_MSG(orca_scenario_arrived_count(far) == 1 && v->replans == 2 && v->reroutes == 0,
               "%d arrived after %d steps, %d replans, %d re-routings",
               orca_scenario_arrived_count(far), s, v->replans, v->reroutes);
    orca_scenario_destroy(far);
    return 0;
}

static int test_exit_choice(void)
{
    for (int choice = ORCA_EXIT_NEAREST; choice <= ORCA_EXIT_QUICKEST; ++choice) {
        orca_scenario *one = exits_room(choice, 1), *two = exits_room(choice, 2);
        orca_scenario *ref = exits_room(choice, 1);
        ENSURE(one && two && ref);
        orca_sc_set_choice_reference(ref, 1);
        int s = 0;
        for (; s < 6000 && orca_sim_agent_count(orca_scenario_sim(one)) > 0; ++s) {
            ENSURE(orca_scenario_step(one) == ORCA_OK && orca_scenario_step(two) == ORCA_OK &&
                   orca_scenario_step(ref) == ORCA_OK);
            ENSURE_MSG(orca_scenario_hash(one) == orca_scenario_hash(two),
                       "%s: step %d differs on 2 workers", orca_exit_choice_name(choice), s);
            ENSURE_MSG(orca_scenario_hash(one) == orca_scenario_hash(ref),
                       "%s: step %d differs from the reference choice",
                       orca_exit_choice_name(choice), s);
        }
        orca_scenario_destroy(ref);
        orca_nav_counts c;
        ENSURE(orca_scenario_nav_counts(one, &c) == ORCA_OK);
        ENSURE_MSG(c.exited == 160 && c.arrived == 160 && c.at_exits == 0,
                   "%s: %d exited, %d arrived after %d steps", orca_exit_choice_name(choice),
                   c.exited, c.arrived, s);
        ENSURE(c.plans >= 160 && c.plans >= c.reroutes + c.replans && c.unreachable == 0);
        ENSURE(c.exit_returns <= c.exit_changes && c.agents_changed <= 160);
        if (choice != ORCA_EXIT_NEAREST) {
            ENSURE_MSG(c.most_changes <= ORCA_NAV_EXIT_CHANGES, "%s: an agent changed %d times",
                       orca_exit_choice_name(choice), c.most_changes);
        }
        int sum = 0;
        for (int point = 0; point < 2; ++point) {
            int left = 0;
            int64_t last = -1;
            ENSURE(orca_scenario_exit_departures(one, 0, point, &left, &last) == ORCA_OK);
            sum += left;
        }
        ENSURE(sum == 160);
        orca_scenario_destroy(one);
        orca_scenario_destroy(two);
    }
    return 0;
}

/* Rooms of 12 x 10 m, three by three, a 1.2 m door in the middle of every inner wall, and
 * five exits (doors of 2 m in the outer wall with an exit point 1.5 m beyond, unequal in
 * number around the plan), 720 agents spread over the rooms heading for them, at the given
 * speed: long queues, re-routings and reviews. */
static orca_scenario *exits_rooms(int choice, int reference, double speed)
{
    orca_scenario *sc = new_scenario(5, 1);
    if (!sc) {
        return NULL;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    orca_segment_id w;
    int ok = 1;
    const double W = 12, H = 10, D = 1.2, E = 2.0;
    /* outer walls: west with exits at rooms 0 and 2, east at room 1, south at room 1, north
     * at room 2 */
    for (int k = 0; k < 3 && ok; ++k) {
        double y0 = k * H, y1 = y0 + H, ym = y0 + H / 2;
        double x0 = k * W, x1 = x0 + W, xm = x0 + W / 2;
        int west = k != 1, east = k == 1, south = k == 1, north = k == 2;
        ok = (west ? orca_sim_add_segment(sim, vec(0, y0), vec(0, ym - E / 2), &w) == ORCA_OK &&
                         orca_sim_add_segment(sim, vec(0, ym + E / 2), vec(0, y1), &w) == ORCA_OK
                   : orca_sim_add_segment(sim, vec(0, y0), vec(0, y1), &w) == ORCA_OK) &&
             (east ? orca_sim_add_segment(sim, vec(3 * W, y0), vec(3 * W, ym - E / 2), &w) ==
                             ORCA_OK &&
                         orca_sim_add_segment(sim, vec(3 * W, ym + E / 2), vec(3 * W, y1), &w) ==
                             ORCA_OK
                   : orca_sim_add_segment(sim, vec(3 * W, y0), vec(3 * W, y1), &w) == ORCA_OK) &&
             (south ? orca_sim_add_segment(sim, vec(x0, 0), vec(xm - E / 2, 0), &w) == ORCA_OK &&
                          orca_sim_add_segment(sim, vec(xm + E / 2, 0), vec(x1, 0), &w) == ORCA_OK
                    : orca_sim_add_segment(sim, vec(x0, 0), vec(x1, 0), &w) == ORCA_OK) &&
             (north ? orca_sim_add_segment(sim, vec(x0, 3 * H), vec(xm - E / 2, 3 * H), &w) ==
                              ORCA_OK &&
                          orca_sim_add_segment(sim, vec(xm + E / 2, 3 * H), vec(x1, 3 * H), &w) ==
                              ORCA_OK
                    : orca_sim_add_segment(sim, vec(x0, 3 * H), vec(x1, 3 * H), &w) == ORCA_OK);
    }
    /* inner walls with doors */
    for (int i = 1; i < 3 && ok; ++i) {
        for (int k = 0; k < 3 && ok; ++k) {
            double y0 = k * H, ym = y0 + H / 2, x0 = k * W, xm = x0 + W / 2;
            ok = orca_sim_add_segment(sim, vec(i * W, y0), vec(i * W, ym - D / 2), &w) == ORCA_OK &&
                 orca_sim_add_segment(sim, vec(i * W, ym + D / 2), vec(i * W, y0 + H), &w) ==
                     ORCA_OK &&
                 orca_sim_add_segment(sim, vec(x0, i * H), vec(xm - D / 2, i * H), &w) == ORCA_OK &&
                 orca_sim_add_segment(sim, vec(xm + D / 2, i * H), vec(x0 + W, i * H), &w) ==
                     ORCA_OK;
        }
    }
    orca_vec2 exits[5] = {vec(-1.5, H / 2), vec(-1.5, 2 * H + H / 2), vec(3 * W + 1.5, H + H / 2),
                          vec(W + W / 2, -1.5), vec(2 * W + W / 2, 3 * H + 1.5)};
    int set = -1;
    ok = ok && orca_scenario_add_goal_set(sc, "exits", exits, 5, &set) == ORCA_OK &&
         orca_scenario_set_goal_set_exit(sc, set, 0.5) == ORCA_OK &&
         orca_scenario_set_navigation(sc, 1) == ORCA_OK &&
         orca_scenario_set_nav_check(sc, 1) == ORCA_OK &&
         orca_scenario_set_exit_choice(sc, choice) == ORCA_OK;
    for (int k = 0; ok && k < 720; ++k) {
        int room = k % 9, slot = k / 9; /* 80 a room, 10 x 8 */
        orca_agent_def d = exit_agent(vec((room % 3) * W + 1.3 + (slot % 10) * 1.05,
                                          (room / 3) * H + 1.3 + (slot / 10) * 1.05));
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_SET;
        g.goal_set = set;
        g.preferred_speed = speed * (1.0 + 0.1 * (double)(k % 5));
        ok = orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK;
    }
    if (!ok) {
        orca_scenario_destroy(sc);
        return NULL;
    }
    orca_sc_set_choice_reference(sc, reference);
    return sc;
}

/* Mid-run, in both runs alike: exit 2's point (east) shut in a box of walls, so the agents
 * heading there choose anew with their own point cut off (some of them after leaving another
 * point), and 45 agents added in the rooms' middles (first choices with queues at the
 * exits). */
static int exits_rooms_cut(orca_scenario *sc, int set, double speed)
{
    orca_vec2 box[4] = {vec(37, 14), vec(38, 14), vec(38, 16), vec(37, 16)};
    if (orca_sim_add_polyline(orca_scenario_sim(sc), box, 4, 1, NULL) != ORCA_OK) {
        return 0;
    }
    for (int k = 0; k < 45; ++k) {
        int room = k % 9, slot = k / 9;
        orca_agent_def d = exit_agent(vec((room % 3) * 12 + 4 + slot, (room / 3) * 10 + 5));
        orca_goal g = orca_goal_default();
        g.kind = ORCA_GOAL_SET;
        g.goal_set = set;
        g.preferred_speed = speed * (1.0 + 0.1 * (double)(k % 5));
        if (orca_scenario_add_agent(sc, &d, &g, NULL) != ORCA_OK) {
            return 0;
        }
    }
    return 1;
}

/* The calm and quickest choices with their capped passes (the own point's cost first, the
 * others' only where one could win, the queue's and the straight line's bounds; a first
 * choice's nearest point first and the others below its time) against the reference choice
 * (every point's cost from one uncapped pass), the same hash every step of a plan of nine
 * rooms and five exits with queues, at two walking speeds (the preferred speed 1.0 and 0.4
 * m/s: walking times short and long against the queues' waits), and at 1.0 m/s with an exit
 * closed and agents added mid-run (exits_rooms_cut); and the choices made: some agents change
 * exit. */
static int test_exit_choice_reference(void)
{
    for (int choice = ORCA_EXIT_CALM; choice <= ORCA_EXIT_QUICKEST; ++choice) {
        int changed = 0;
        for (int run = 0; run < 3; ++run) {
            double speed = run == 1 ? 0.4 : 1.0;
            int cut = run == 2 ? 150 : -1; /* the step exits_rooms_cut runs before */
            orca_scenario *fast = exits_rooms(choice, 0, speed);
            orca_scenario *ref = exits_rooms(choice, 1, speed);
            ENSURE(fast && ref);
            int s = 0;
            for (; s < 1500 && orca_sim_agent_count(orca_scenario_sim(fast)) > 0; ++s) {
                if (s == cut) {
                    ENSURE(exits_rooms_cut(fast, 0, speed) && exits_rooms_cut(ref, 0, speed));
                }
                ENSURE(orca_scenario_step(fast) == ORCA_OK && orca_scenario_step(ref) == ORCA_OK);
                ENSURE_MSG(orca_scenario_hash(fast) == orca_scenario_hash(ref),
                           "%s at %g m/s%s: step %d differs from the reference choice",
                           orca_exit_choice_name(choice), speed, cut >= 0 ? ", cut" : "", s);
            }
            orca_nav_counts c;
            ENSURE(orca_scenario_nav_counts(fast, &c) == ORCA_OK);
            printf("  %s at %.1f m/s%s: %d steps, %d exited, %d changed exit (%lld changes), "
                   "%lld re-routings\n",
                   orca_exit_choice_name(choice), speed, cut >= 0 ? ", exit 2 shut" : "", s,
                   c.exited, c.agents_changed, (long long)c.exit_changes, (long long)c.reroutes);
            ENSURE(c.exited > 100);
            changed += c.agents_changed;
            orca_scenario_destroy(fast);
            orca_scenario_destroy(ref);
        }
        ENSURE_MSG(changed > 0, "%s: no agent changed exit", orca_exit_choice_name(choice));
    }
    return 0;
}

#include "fail_alloc.h"

/* Allocation failures: the 1st, 2nd, ... allocation of a run with walls, a path query, goal
 * sets, exits and navigated steps fails in turn; every call reports ORCA_ERR_MEMORY or
 * succeeds, and nothing leaks. */
static int nav_run(void)
{
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create(NULL, 0.1, 1, &sc);
    if (st != ORCA_OK) {
        return st == ORCA_ERR_MEMORY ? 0 : 1;
    }
    orca_sim *sim = orca_scenario_sim(sc);
    orca_vec2 room[6] = {vec(0, 4), vec(0, 0), vec(10, 0), vec(10, 10), vec(0, 10), vec(0, 6)};
    orca_vec2 exits[2] = {vec(-3, 5), vec(14, 5)};
    orca_nav *nav = NULL;
    int set = -1, bad = 0;
    if (orca_sim_add_polyline(sim, room, 6, 0, NULL) != ORCA_OK ||
        orca_scenario_add_goal_set(sc, "exits", exits, 2, &set) != ORCA_OK ||
        orca_scenario_set_goal_set_exit(sc, set, 1.0) != ORCA_OK ||
        orca_scenario_set_navigation(sc, 1) != ORCA_OK) {
        goto done;
    }
    for (int k = 0; k < 4; ++k) {
        orca_agent_def d = orca_agent_def_default();
        d.radius = 0.3;
        d.max_speed = 1.5;
        d.neighbor_dist = 3;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 1;
        d.position = vec(7 + k % 2, 3 + k);
        orca_goal g = orca_goal_default();
        g.kind = k == 3 ? ORCA_GOAL_POINT : ORCA_GOAL_SET;
        g.target = vec(14, 8);
        g.goal_set = set;
        if (orca_scenario_add_agent(sc, &d, &g, NULL) != ORCA_OK) {
            goto done;
        }
    }
    for (int s = 0; s < 20; ++s) {
        st = orca_scenario_step(sc);
        if (st != ORCA_OK) {
            bad |= st != ORCA_ERR_MEMORY;
            goto done;
        }
    }
    if (orca_nav_create(sim, &nav) != ORCA_OK) {
        goto done;
    }
    int seen = -1; /* the first query reads the walls: its allocation may fail */
    st = orca_nav_visible(nav, 0.3, vec(8, 5), vec(14, 5), &seen);
    bad |= st != ORCA_OK && st != ORCA_ERR_MEMORY;
    bad |= st == ORCA_OK && seen != 0; /* through the room's east wall */
    bad |= st == ORCA_ERR_MEMORY && seen != -1;
    orca_nav_result res;
    orca_nav_corner c[4];
    int cnt = 0;
    st = orca_nav_path(nav, 0.3, vec(8, 5), exits, 2, &res, NULL, NULL, c, 4, &cnt);
    bad |= st != ORCA_OK && st != ORCA_ERR_MEMORY;
    orca_nav_stats stats;
    st = orca_nav_stats_get(nav, 0.4, &stats);
    bad |= st != ORCA_OK && st != ORCA_ERR_MEMORY;
done:
    orca_nav_destroy(nav);
    orca_scenario_destroy(sc);
    return bad;
}

static int test_allocation_failures(void)
{
    orca_allocator a = {fa_alloc, fa_resize, fa_release, NULL};
    ENSURE(orca_set_allocator(&a) == ORCA_OK);
    int runs = 0;
    for (long k = 1; k < 100000; ++k) {
        g_calls = 0;
        g_failed = 0;
        g_fail_at = k;
        long live0 = g_live;
        int bad = nav_run();
        g_fail_at = 0;
        ENSURE_MSG(!bad, "allocation %ld failing: a status other than ORCA_ERR_MEMORY", k);
        ENSURE_MSG(g_live == live0, "allocation %ld failing: %ld blocks leaked", k, g_live - live0);
        ++runs;
        if (g_failed == 0) {
            break; /* the whole run passed without reaching allocation k */
        }
    }
    ENSURE(orca_set_allocator(NULL) == ORCA_OK);
    ENSURE(runs > 10);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"edges", test_edges},
    {"allocation_failures", test_allocation_failures},
    {"trap_room", test_trap_room},
    {"off_is_plain", test_off_is_plain},
    {"goal_set", test_goal_set},
    {"blocked_corridor", test_blocked_corridor},
    {"goal_change", test_goal_change},
    {"crowd_workers", test_crowd_workers},
    {"exit_choice", test_exit_choice},
    {"leg_check_jamb", test_leg_check_jamb},
    {"exit_choice_reference", test_exit_choice_reference},
    {"goal_change_refused", test_goal_change_refused},
    {"unreachable", test_unreachable},
    {"reroute", test_reroute},
    {"angle", test_angle},
    {"open_floor", test_open_floor},
    {"point_obstacle", test_point_obstacle},
    {"l_corner", test_l_corner},
    {"gap", test_gap},
    {"blocked_ends", test_blocked_ends},
    {"arguments", test_arguments},
    {"walls_change", test_walls_change},
    {"visibility", test_visibility},
    {0, 0},
};
