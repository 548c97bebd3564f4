/* SPDX-License-Identifier: MIT */
/* Walkable-area boundaries (docs/extensions.md, "Walkable-area boundaries"), against
 * independent truth: validation over the binary64 range with the state unchanged on refusal,
 * the half-planes against algorithm.md §7's builder, a point-in-polygon test (even-odd ray
 * casting, written here) and a brute-force point-segment distance after every step of
 * randomized scenes (pillar corners aimed at diagonally, dt beyond the obstacle horizon,
 * high speeds, crowds), the plain bits when no boundary is in reach or none exists, the hash
 * and snapshots, and the worker count. */
#include "exact_ref.h"
#include "test.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <orca/scenario.h>
#include <orca/sim.h>
#include <orca/solver.h>

/* Moves agent id to about q the way the library lets an agent past the walls: locked, it
 * keeps its velocity and no wall holds it (docs/extensions.md); one step of 1 s there, then
 * unlocked and at rest. The only agent of its simulation. */
static int drive_to(orca_sim *sim, orca_agent_id id, orca_vec2 q)
{
    orca_vec2 p;
    ENSURE(orca_agent_get_position(sim, id, &p) == ORCA_OK);
    ENSURE(orca_agent_set_locked(sim, id, 1) == ORCA_OK);
    orca_vec2 v = {q.x - p.x, q.y - p.y};
    ENSURE(orca_agent_set_velocity(sim, id, v) == ORCA_OK);
    ENSURE_MSG(orca_sim_step(sim, 1) == ORCA_OK, "%s", orca_sim_last_error(sim));
    ENSURE(orca_agent_set_locked(sim, id, 0) == ORCA_OK);
    orca_vec2 zero = {0, 0};
    ENSURE(orca_agent_set_velocity(sim, id, zero) == ORCA_OK);
    return 0;
}

/* --- independent geometry ----------------------------------------------------------- */

typedef struct loop {
    const orca_vec2 *p;
    int n;
} loop;

/* Even-odd ray casting towards +x: the number of edges the ray from q crosses. */
static int ray_crossings(const loop *l, orca_vec2 q)
{
    int c = 0;
    for (int k = 0; k < l->n; ++k) {
        orca_vec2 a = l->p[k], b = l->p[(k + 1) % l->n];
        if ((a.y > q.y) != (b.y > q.y)) {
            double x = a.x + (q.y - a.y) * (b.x - a.x) / (b.y - a.y);
            c += x > q.x;
        }
    }
    return c;
}

/* Distance from q to the segment a-b, by the projection clamped to [0, 1]. */
static double seg_dist(orca_vec2 q, orca_vec2 a, orca_vec2 b)
{
    double ex = b.x - a.x, ey = b.y - a.y;
    double t = ((q.x - a.x) * ex + (q.y - a.y) * ey) / (ex * ex + ey * ey);
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    double dx = a.x + t * ex - q.x, dy = a.y + t * ey - q.y;
    return sqrt(dx * dx + dy * dy);
}

/* Inside the walkable area of non-nested loops (outer first): inside loop 0 and outside the
 * others (the scenes below are built so). */
static int walkable(const loop *loops, int nl, orca_vec2 q)
{
    if (ray_crossings(&loops[0], q) % 2 == 0) {
        return 0;
    }
    for (int k = 1; k < nl; ++k) {
        if (ray_crossings(&loops[k], q) % 2 == 1) {
            return 0;
        }
    }
    return 1;
}

static double min_wall_dist(const loop *loops, int nl, orca_vec2 q)
{
    double m = HUGE_VAL;
    for (int l = 0; l < nl; ++l) {
        for (int k = 0; k < loops[l].n; ++k) {
            double d = seg_dist(q, loops[l].p[k], loops[l].p[(k + 1) % loops[l].n]);
            m = d < m ? d : m;
        }
    }
    return m;
}

/* --- scenes -------------------------------------------------------------------------- */

/* A 20 x 14 room (counter-clockwise) with a 4 x 4 pillar (clockwise) in the middle. */
static const orca_vec2 ROOM[] = {{0, 0}, {20, 0}, {20, 14}, {0, 14}};
static const orca_vec2 PILLAR[] = {{8, 5}, {8, 9}, {12, 9}, {12, 5}};
/* An L-shaped corridor 3 wide (counter-clockwise): the bend's inner corner is reflex. */
static const orca_vec2 BEND[] = {{0, 0}, {15, 0}, {15, 15}, {12, 15}, {12, 3}, {0, 3}};
/* A star-shaped hole (clockwise) with sharp reflex corners for the walkable area. */
static orca_vec2 STAR[10];

static void make_star(void)
{
    for (int k = 0; k < 10; ++k) {
        double a = -k * 3.14159265358979 / 5; /* clockwise */
        double r = k % 2 ? 1.0 : 3.0;
        STAR[k] = vec(10 + r * cos(a), 7 + r * sin(a));
    }
}

typedef struct scene {
    loop loops[3];
    int nl;
} scene;

static int add_loops(orca_sim *sim, const scene *sc)
{
    for (int l = 0; l < sc->nl; ++l) {
        if (orca_sim_add_boundary(sim, sc->loops[l].p, sc->loops[l].n, NULL) != ORCA_OK) {
            return 0;
        }
    }
    return 1;
}

/* A random walkable point at least `clear` from every wall. */
static orca_vec2 random_point(test_rng *rng, const scene *sc, double lox, double loy, double hix,
                              double hiy, double clear)
{
    for (;;) {
        orca_vec2 q = vec(test_rng_uniform(rng, lox, hix), test_rng_uniform(rng, loy, hiy));
        if (walkable(sc->loops, sc->nl, q) && min_wall_dist(sc->loops, sc->nl, q) >= clear) {
            return q;
        }
    }
}

/* The largest (radius - wall distance) / (radius + M) over the stress runs, M the largest
 * coordinate magnitude of the centre and the wall's ends: the disc check's scale. */
static double g_deficit = 0;

typedef struct stress {
    int agents, steps;
    double dt, speed, tau_obst, radius;
    int goals_outside; /* goals anywhere in a box twice the room: many beyond the walls */
    int corners;       /* goals at the pillar's or star's corners, aimed diagonally */
} stress;

/* Runs a randomized scene; after every step checks every agent against the independent
 * geometry. *worst receives the smallest wall distance / radius seen. */
static int run_stress(const scene *sc, const stress *st, unsigned long long seed, double bx,
                      double by, double *worst, int *fallbacks)
{
    test_rng rng = {seed};
    orca_sim *sim = test_new_sim(1);
    ENSURE(sim && add_loops(sim, sc));
    orca_vec2 goal[256];
    for (int i = 0; i < st->agents; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.radius = st->radius * test_rng_uniform(&rng, 0.5, 1.0);
        d.max_speed = st->speed;
        d.obstacle_time_horizon = st->tau_obst;
        d.time_horizon = 2;
        d.position = random_point(&rng, sc, 0, 0, bx, by, d.radius);
        ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
        if (st->corners) {
            const loop *h = &sc->loops[sc->nl - 1];
            orca_vec2 c = h->p[test_rng_next(&rng) % (unsigned)h->n];
            /* beyond the corner, seen from the agent: aims straight at it */
            goal[i] = vec(c.x + 0.5 * (c.x - d.position.x), c.y + 0.5 * (c.y - d.position.y));
        } else if (st->goals_outside) {
            goal[i] = vec(test_rng_uniform(&rng, -bx / 2, 1.5 * bx),
                          test_rng_uniform(&rng, -by / 2, 1.5 * by));
        } else {
            goal[i] = random_point(&rng, sc, 0, 0, bx, by, 0);
        }
    }
    double w = HUGE_VAL;
    int fb = 0;
    for (int s = 0; s < st->steps; ++s) {
        for (int i = 0; i < st->agents; ++i) {
            orca_agent_id id = orca_sim_agent_at(sim, i);
            orca_vec2 p;
            orca_agent_get_position(sim, id, &p);
            double dx = goal[i].x - p.x, dy = goal[i].y - p.y, l = sqrt(dx * dx + dy * dy);
            orca_vec2 v = l > 1e-9 ? vec(dx / l * st->speed, dy / l * st->speed) : vec(0, 0);
            orca_agent_set_preferred_velocity(sim, id, v);
        }
        ENSURE_MSG(orca_sim_step(sim, st->dt) == ORCA_OK, "%s", orca_sim_last_error(sim));
        fb += orca_sim_last_fallback_count(sim);
        for (int i = 0; i < st->agents; ++i) {
            orca_agent_def d;
            orca_agent_get(sim, orca_sim_agent_at(sim, i), &d);
            ENSURE_MSG(walkable(sc->loops, sc->nl, d.position),
                       "seed %llu step %d agent %d at (%.17g, %.17g) left the walkable area", seed,
                       s, i, d.position.x, d.position.y);
            double m = min_wall_dist(sc->loops, sc->nl, d.position) / d.radius;
            w = m < w ? m : w;
        }
        double deepest;
        int outside;
        ENSURE(orca_sim_measure_boundary(sim, &deepest, &outside) == ORCA_OK);
        ENSURE(outside == 0);
    }
    /* every position the steps reached is accepted again: all the agents, added at once to a
     * new simulation with the same loops (the disc check's tolerance covers the rounding) */
    orca_sim *again = test_new_sim(1);
    ENSURE(again && add_loops(again, sc));
    orca_agent_def defs[256];
    for (int i = 0; i < st->agents; ++i) {
        ENSURE(orca_agent_get(sim, orca_sim_agent_at(sim, i), &defs[i]) == ORCA_OK);
        orca_vec2 p = defs[i].position;
        for (int l = 0; l < sc->nl; ++l) { /* the deficit in units of the tolerance's scale */
            for (int k = 0; k < sc->loops[l].n; ++k) {
                orca_vec2 a = sc->loops[l].p[k], b = sc->loops[l].p[(k + 1) % sc->loops[l].n];
                double m = fmax(fmax(fmax(fabs(p.x), fabs(p.y)), fmax(fabs(a.x), fabs(a.y))),
                                fmax(fabs(b.x), fabs(b.y)));
                double def = (defs[i].radius - seg_dist(p, a, b)) / (defs[i].radius + m);
                g_deficit = def > g_deficit ? def : g_deficit;
            }
        }
    }
    ENSURE_MSG(orca_sim_add_agents(again, defs, st->agents, NULL) == ORCA_OK, "seed %llu: %s",
               seed, orca_sim_last_error(again));
    orca_sim_destroy(again);
    orca_sim_destroy(sim);
    *worst = w < *worst ? w : *worst;
    *fallbacks += fb;
    return 0;
}

static int test_no_crossing_stress(void)
{
    make_star();
    scene room = {{{ROOM, 4}, {PILLAR, 4}}, 2};
    scene bend = {{{BEND, 6}}, 1};
    scene star = {{{ROOM, 4}, {STAR, 10}}, 2};
    const stress cases[] = {
        /* agents, steps, dt, speed, tau_obst, radius, outside, corners */
        {40, 300, 0.25, 2, 10, 0.5, 1, 0},  /* defaults-like, goals beyond the walls */
        {40, 200, 0.25, 2, 10, 0.5, 0, 1},  /* pillar corners aimed at diagonally */
        {30, 200, 2.0, 3, 0.5, 0.4, 1, 0},  /* dt four times the obstacle horizon */
        {30, 200, 1.0, 40, 0.1, 0.3, 1, 0}, /* high speed: 40 m per step */
        {120, 200, 0.25, 2, 2, 0.5, 0, 1},  /* a crowd pushing at the corners */
    };
    double worst = HUGE_VAL;
    int fallbacks = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        for (unsigned long long seed = 1; seed <= 3; ++seed) {
            ENSURE(run_stress(&room, &cases[c], seed * 100 + c, 20, 14, &worst, &fallbacks) == 0);
            ENSURE(run_stress(&star, &cases[c], seed * 100 + c, 20, 14, &worst, &fallbacks) == 0);
            if (cases[c].corners) {
                continue; /* the bend has no hole: the corner goals use its own corners */
            }
            ENSURE(run_stress(&bend, &cases[c], seed * 100 + c, 15, 15, &worst, &fallbacks) == 0);
        }
    }
    /* every centre stayed at least its radius from every wall, up to rounding */
    printf("  boundary stress: smallest wall distance / radius %.17g, fallbacks %d; largest "
           "deficit %.3g (radius + M) = 2^%.1f, against the disc check's 2^-40\n",
           worst, fallbacks, g_deficit, g_deficit > 0 ? log2(g_deficit) : -INFINITY);
    ENSURE(g_deficit < 0x1p-46); /* the tolerance covers it 64 times over at least */
    ENSURE_MSG(worst >= 1 - 1e-9, "worst %.17g", worst);
    return 0;
}

/* --- validation ---------------------------------------------------------------------- */

static int test_validation(void)
{
    orca_sim *sim = test_new_sim(1);
    ENSURE(sim);
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(10, 2); /* clear of the room's walls and of the loops below */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(sim, ROOM, 4, NULL) == ORCA_OK);
    uint64_t h0 = orca_sim_hash(sim);
    orca_boundary_id id = {7, 7, orca_sim_id(sim)};
    orca_vec2 p[4];
    memcpy(p, ROOM, sizeof p);
    const double bad[] = {NAN, INFINITY, -INFINITY, 2097152.0, -2097152.0, 1e300, -1e300,
                          DBL_MAX, 4e6};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
        for (int k = 0; k < 8; ++k) {
            memcpy(p, ROOM, sizeof p);
            if (k % 2) {
                p[k / 2].y = bad[b];
            } else {
                p[k / 2].x = bad[b];
            }
            ENSURE(orca_sim_add_boundary(sim, p, 4, &id) == ORCA_ERR_ARGUMENT);
            ENSURE(strstr(orca_sim_last_error(sim), "boundary point") != NULL);
            ENSURE(id.slot == 7 && id.generation == 7);
        }
    }
    /* the largest magnitude below 2^21 and tiny values are accepted */
    orca_vec2 edge[3] = {{-2097151.9999999998, -2097151.9999999998}, {2097151.9999999998, -1e-300},
                         {5e-324, 2097151.9999999998}};
    orca_boundary_id eid;
    ENSURE(orca_sim_add_boundary(sim, edge, 3, &eid) == ORCA_OK);
    ENSURE(orca_sim_remove_boundary(sim, eid) == ORCA_OK);
    ENSURE(orca_sim_hash(sim) == h0);
    /* counts, equal points, zero area, NULL */
    ENSURE(orca_sim_add_boundary(sim, ROOM, 2, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_add_boundary(sim, ROOM, 0, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_add_boundary(sim, ROOM, -5, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_add_boundary(sim, NULL, 4, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_add_boundary(NULL, ROOM, 4, NULL) == ORCA_ERR_NULL);
    orca_vec2 dup[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}};
    ENSURE(orca_sim_add_boundary(sim, dup, 4, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(sim), "points 3 and 0 are equal") != NULL);
    orca_vec2 dup2[3] = {{0, 0}, {1e-300, 0}, {1e-300, 0}};
    ENSURE(orca_sim_add_boundary(sim, dup2, 3, NULL) == ORCA_ERR_ARGUMENT);
    orca_vec2 line[3] = {{0, 0}, {1, 1}, {2, 2}};
    ENSURE(orca_sim_add_boundary(sim, line, 3, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(sim), "zero area") != NULL);
    orca_vec2 fold[4] = {{0, 0}, {2, 0}, {0, 1}, {1, 1}}; /* crossing itself, area sum 1 */
    orca_vec2 bow[4] = {{0, 0}, {1, 1}, {1, 0}, {0, 1}};     /* a bow tie: area 0 */
    ENSURE(orca_sim_add_boundary(sim, bow, 4, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_add_boundary(sim, fold, 4, &eid) == ORCA_OK); /* not checked for crossings */
    ENSURE(orca_sim_remove_boundary(sim, eid) == ORCA_OK);
    /* tiny but non-zero area */
    orca_vec2 tiny[3] = {{0, 0}, {1e-300, 0}, {0, 1e-20}};
    ENSURE(orca_sim_add_boundary(sim, tiny, 3, &eid) == ORCA_OK);
    ENSURE(orca_sim_remove_boundary(sim, eid) == ORCA_OK);
    ENSURE(orca_sim_remove_boundary(sim, eid) == ORCA_ERR_STALE);
    orca_boundary_id zero = {0, 0, 0};
    ENSURE(orca_sim_remove_boundary(sim, zero) == ORCA_ERR_STALE);
    ENSURE(orca_sim_boundary_count(sim) == 1);
    ENSURE(orca_sim_hash(sim) == h0);
    /* get */
    orca_boundary_id b0 = orca_sim_boundary_at(sim, 0);
    ENSURE(b0.generation != 0);
    ENSURE(orca_sim_boundary_at(sim, 1).generation == 0);
    ENSURE(orca_sim_boundary_at(sim, -1).generation == 0);
    int n = 0;
    orca_vec2 got[8];
    ENSURE(orca_boundary_get(sim, b0, NULL, 0, &n) == ORCA_OK && n == 4);
    ENSURE(orca_boundary_get(sim, b0, got, 8, &n) == ORCA_OK);
    for (int k = 0; k < 4; ++k) {
        ENSURE_BITS(got[k].x, ROOM[k].x);
        ENSURE_BITS(got[k].y, ROOM[k].y);
    }
    ENSURE(orca_boundary_get(sim, b0, NULL, 3, &n) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_boundary_get(sim, b0, got, -1, &n) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_boundary_count(NULL) == 0);
    ENSURE(orca_sim_measure_boundary(NULL, NULL, NULL) == ORCA_ERR_NULL);
    orca_sim_destroy(sim);
    return 0;
}

/* --- the disc check (issue 27, item 2) ---------------------------------------------------- */

static int has(const orca_sim *sim, const char *text)
{
    return strstr(orca_sim_last_error(sim), text) != NULL;
}

#define ENSURE_ERR(sim, text) \
    ENSURE_MSG(has((sim), (text)), "message '%s' lacks '%s'", orca_sim_last_error(sim), (text))

static orca_agent_def disc(double x, double y, double r)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(x, y);
    d.radius = r;
    return d;
}

/* Adding an agent: its disc must fit in the walkable area (centre inside by the winding
 * number of all loops, on no edge, at least its radius from every edge up to 2^-40 (r + M));
 * single and batch (nothing added on a refusal), the message naming the agent, the loop, the
 * edge and the distance, the state unchanged. */
static int test_disc_check_add(void)
{
    orca_sim *sim = test_new_sim(1);
    ENSURE(sim && orca_sim_add_boundary(sim, ROOM, 4, NULL) == ORCA_OK &&
           orca_sim_add_boundary(sim, PILLAR, 4, NULL) == ORCA_OK);
    uint64_t h0 = orca_sim_hash(sim);
    orca_agent_def d = disc(30, 7, 0.5);
    orca_agent_id id = {9, 9, 9};
    ENSURE(orca_sim_add_agent(sim, &d, &id) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "agent 0 at (30, 7) is outside the walkable area (winding number 0 of the "
                    "boundary loops there), 10 from the nearest wall, boundary loop 0 (edge 1, "
                    "from (20, 0) to (20, 14))");
    ENSURE(id.slot == 9 && orca_sim_hash(sim) == h0 && orca_sim_agent_count(sim) == 0);
    d = disc(10, 7, 0.5); /* inside the pillar: winding number 1 - 1 */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "outside the walkable area (winding number 0");
    ENSURE_ERR(sim, "2 from the nearest wall, boundary loop 1 (edge 0, from (8, 5) to (8, 9))");
    d = disc(20, 7, 0.5); /* centred on an edge */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "agent 0 at (20, 7) lies on boundary loop 0 (edge 1, from (20, 0) to (20, "
                    "14))");
    d = disc(20, 14, 0.5); /* on a vertex: the lower of its two edges */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "lies on boundary loop 0 (edge 1");
    d = disc(8, 9, 0.5); /* on the pillar's corner */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "lies on boundary loop 1 (edge 0");
    d = disc(19.7, 7, 0.5); /* inside, closer than its radius */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "agent 0 at (19.699999999999999, 7) with radius 0.5 is 0.30000000000000071 "
                    "from boundary loop 0 (edge 1, from (20, 0) to (20, 14)): its centre must be "
                    "at least its radius from every wall");
    d = disc(7.8, 4.8, 0.5); /* near the pillar's corner (8, 5): the vertex is the nearest */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "from boundary loop 1");
    ENSURE(orca_sim_hash(sim) == h0 && orca_sim_agent_count(sim) == 0);
    /* the tolerance: 2^-40 (r + M) = 1.9e-11 here, M = 20 */
    d = disc(19.5, 7, 0.5); /* exactly r */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    d = disc(20 - 0.5 * (1 - 1e-13), 7, 0.5); /* r (1 - 1e-13): a step's rounding, accepted */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    d = disc(19.5 + 2e-11, 7, 0.5); /* 2e-11 too close: refused */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "agent 2 at");
    d = disc(-1e-310, 7, 0.5); /* a subnormal distance outside */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "outside the walkable area");
    d = disc(1e-310, 7, 0x1p-30); /* the same distance inside, the smallest radius */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "is 0 from boundary loop 0 (edge 3"); /* its square underflows */
    d = disc(0, 7, 0x1p-30);
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "lies on boundary loop 0 (edge 3");
    d = disc(0x1p-30, 7, 0x1p-30); /* touching the wall: fits */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    d = disc(10, 7, 0x1p21); /* the largest radius fits nowhere here */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_agent_count(sim) == 3);
    /* the batch: every definition checked before anything is added */
    uint64_t h1 = orca_sim_hash(sim);
    orca_agent_def defs[4] = {disc(2, 2, 0.5), disc(4, 2, 0.5), disc(2, 13.8, 0.5),
                              disc(30, 7, 0.5)};
    orca_agent_id ids[4];
    ENSURE(orca_sim_add_agents(sim, defs, 4, ids) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "defs[2]: agent 5 at (2, 13.800000000000001) with radius 0.5 is "
                    "0.19999999999999929 from boundary loop 0 (edge 2");
    ENSURE_ERR(sim, "nothing was added");
    ENSURE(orca_sim_hash(sim) == h1 && orca_sim_agent_count(sim) == 3);
    defs[2] = disc(2, 12, 0.5);
    defs[3] = disc(14, 7, 0.5);
    ENSURE(orca_sim_add_agents(sim, defs, 4, ids) == ORCA_OK);
    ENSURE(orca_sim_agent_count(sim) == 7);
    orca_sim_destroy(sim);
    /* a passage narrower than the agent: no place in it fits */
    orca_vec2 slot[4] = {{0, 0}, {10, 0}, {10, 0.6}, {0, 0.6}};
    sim = test_new_sim(1);
    ENSURE(sim && orca_sim_add_boundary(sim, slot, 4, NULL) == ORCA_OK);
    for (double x = 0.25; x < 10; x += 0.5) {
        d = disc(x, 0.3, 0.5);
        ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    }
    d = disc(5, 0.3, 0.3);
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    orca_sim_destroy(sim);
    /* near the coordinate limit: a room 4 wide whose walls are at 2^21 - 1 */
    double far = 2097151.0;
    orca_vec2 edge_room[4] = {vec(far - 4, far - 4), vec(far, far - 4), vec(far, far),
                              vec(far - 4, far)};
    sim = test_new_sim(1);
    ENSURE(sim && orca_sim_add_boundary(sim, edge_room, 4, NULL) == ORCA_OK);
    d = disc(far - 0.5, far - 2, 0.5);
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    d = disc(far - 0.25, far - 2, 0.5);
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    d = disc(far + 0.5, far - 2, 0.25);
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "outside");
    orca_sim_destroy(sim);
    /* without loops nothing is checked; segments are not loops */
    sim = test_new_sim(1);
    ENSURE(sim && orca_sim_add_segment(sim, vec(0, 0), vec(10, 0), NULL) == ORCA_OK);
    d = disc(5, 0, 1);
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    orca_sim_destroy(sim);
    return 0;
}

/* Moving an agent (orca_agent_set, orca_agent_set_position) checks its disc when the position
 * or the radius changes; a loop removal may leave an agent outside, and such an agent keeps
 * its place until it is moved; the step itself is not checked. Locked agents are agents. */
static int test_disc_check_move(void)
{
    orca_vec2 annex[4] = {{30, 0}, {40, 0}, {40, 14}, {30, 14}};
    orca_sim *sim = test_new_sim(1);
    orca_boundary_id annex_id;
    ENSURE(sim && orca_sim_add_boundary(sim, ROOM, 4, NULL) == ORCA_OK &&
           orca_sim_add_boundary(sim, annex, 4, &annex_id) == ORCA_OK);
    orca_agent_def d = disc(5, 5, 0.5);
    orca_agent_id a, b;
    ENSURE(orca_sim_add_agent(sim, &d, &a) == ORCA_OK);
    d = disc(35, 7, 0.5);
    ENSURE(orca_sim_add_agent(sim, &d, &b) == ORCA_OK);
    uint64_t h0 = orca_sim_hash(sim);
    ENSURE(orca_agent_set_position(sim, a, vec(25, 7)) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "agent 0 at (25, 7) is outside the walkable area");
    ENSURE(orca_agent_set_position(sim, a, vec(0.2, 7)) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "agent 0 at (0.20000000000000001, 7) with radius 0.5 is 0.20000000000000001");
    d = disc(5, 5, 6); /* the radius grows past the walls */
    ENSURE(orca_agent_set(sim, a, &d) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "agent 0 at (5, 5) with radius 6 is 5 from boundary loop 0 (edge 0");
    ENSURE(orca_sim_hash(sim) == h0);
    ENSURE(orca_agent_set_position(sim, a, vec(15, 7)) == ORCA_OK);
    ENSURE(orca_agent_set_position(sim, b, vec(38, 2)) == ORCA_OK); /* within the annex */
    /* a locked agent is checked alike */
    ENSURE(orca_agent_set_locked(sim, b, 1) == ORCA_OK);
    ENSURE(orca_agent_set_position(sim, b, vec(25, 2)) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "agent 1 at (25, 2) is outside");
    ENSURE(orca_agent_set_locked(sim, b, 0) == ORCA_OK);
    /* removing the annex leaves agent 1 outside: said by the measurement, and no call that
     * keeps its place refuses it */
    ENSURE(orca_sim_remove_boundary(sim, annex_id) == ORCA_OK);
    int outside = -1;
    ENSURE(orca_sim_measure_boundary(sim, NULL, &outside) == ORCA_OK && outside == 1);
    ENSURE(orca_agent_get(sim, b, &d) == ORCA_OK);
    d.max_speed = 3; /* the same position and radius: not checked */
    ENSURE(orca_agent_set(sim, b, &d) == ORCA_OK);
    ENSURE(orca_agent_set_position(sim, b, d.position) == ORCA_OK);
    ENSURE(orca_sim_step(sim, 0.25) == ORCA_OK);
    /* a loop that does not concern it is added: the agent was outside already */
    ENSURE(orca_sim_add_boundary(sim, PILLAR, 4, NULL) == ORCA_OK);
    /* a snapshot holds the state as it is, and loads it unchecked */
    size_t n = 0;
    ENSURE(orca_sim_save(sim, NULL, 0, &n) == ORCA_OK);
    unsigned char *buf = malloc(n);
    ENSURE(buf && orca_sim_save(sim, buf, n, &n) == ORCA_OK);
    orca_sim *t = test_new_sim(2);
    ENSURE(t && orca_sim_load(t, buf, n) == ORCA_OK && orca_sim_hash(t) == orca_sim_hash(sim));
    free(buf);
    orca_sim_destroy(t);
    /* moving it back inside is checked and accepted */
    ENSURE(orca_agent_set_position(sim, b, vec(17, 12)) == ORCA_OK);
    ENSURE(orca_sim_measure_boundary(sim, NULL, &outside) == ORCA_OK && outside == 0);
    orca_sim_destroy(sim);
    return 0;
}

/* Adding a loop checks every agent against it: refused, naming the lowest agent index, when it
 * passes through an agent's centre or closer than its radius, or takes a centre that was
 * inside outside (every centre, for the first loop); the state unchanged. */
static int test_disc_check_loop(void)
{
    orca_sim *sim = test_new_sim(2);
    ENSURE(sim);
    orca_agent_def defs[4] = {disc(2, 2, 0.5), disc(30, 30, 0.5), disc(10, 7, 0.5),
                              disc(15, 7, 0.5)};
    ENSURE(orca_sim_add_agents(sim, defs, 4, NULL) == ORCA_OK);
    uint64_t h0 = orca_sim_hash(sim);
    orca_boundary_id id = {5, 5, 5};
    ENSURE(orca_sim_add_boundary(sim, ROOM, 4, &id) == ORCA_ERR_ARGUMENT); /* agent 1 outside */
    ENSURE_ERR(sim, "the new boundary loop 0 would leave agent 1 (slot 1) at (30, 30) outside "
                    "the walkable area (winding number 0 there); the loop was not added");
    ENSURE(id.slot == 5 && orca_sim_hash(sim) == h0 && orca_sim_boundary_count(sim) == 0);
    ENSURE(orca_sim_remove_agent(sim, orca_sim_agent_at(sim, 1)) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(sim, ROOM, 4, &id) == ORCA_OK);
    uint64_t h1 = orca_sim_hash(sim);
    /* the pillar takes agent 1 (at (10, 7), its index after the removal) outside */
    ENSURE(orca_sim_add_boundary(sim, PILLAR, 4, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "the new boundary loop 1 would leave agent 1 (slot 2) at (10, 7) outside");
    /* a loop through agent 2's centre; one 0.2 from agent 0 */
    orca_vec2 through[3] = {{15, 5}, {17, 7}, {15, 7}};
    ENSURE(orca_sim_add_boundary(sim, through, 3, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "the new boundary loop 1 (edge 1, from (17, 7) to (15, 7)) passes through "
                    "agent 2 (slot 3) at (15, 7)");
    orca_vec2 close[3] = {{2.2, 1}, {3, 1}, {2.2, 3}}; /* a hole's order would be refused too */
    ENSURE(orca_sim_add_boundary(sim, close, 3, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_ERR(sim, "the new boundary loop 1 (edge 2, from (2.2000000000000002, 3) to "
                    "(2.2000000000000002, 1)) is 0.20000000000000018 from agent 0 (slot 0) at "
                    "(2, 2) with radius 0.5");
    ENSURE(orca_sim_hash(sim) == h1 && orca_sim_boundary_count(sim) == 1);
    /* a hole that leaves every disc clear is added; the step and the check agree */
    orca_vec2 hole[4] = {{5, 9}, {5, 11}, {7, 11}, {7, 9}};
    ENSURE(orca_sim_add_boundary(sim, hole, 4, NULL) == ORCA_OK);
    /* a second outer loop around it all: the winding number goes to 2, still inside */
    orca_vec2 outer[4] = {{-5, -5}, {25, -5}, {25, 20}, {-5, 20}};
    ENSURE(orca_sim_add_boundary(sim, outer, 4, NULL) == ORCA_OK);
    /* the scenario layer passes the refusal on */
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 1, &sc) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(orca_scenario_sim(sc), ROOM, 4, NULL) == ORCA_OK);
    orca_goal goal;
    memset(&goal, 0, sizeof goal);
    goal.kind = ORCA_GOAL_NONE;
    orca_agent_def out = disc(25, 7, 0.5);
    ENSURE(orca_scenario_add_agent(sc, &out, &goal, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE_MSG(strstr(orca_scenario_last_error(sc), "agent 0 at (25, 7) is outside") != NULL,
               "%s", orca_scenario_last_error(sc));
    orca_scenario_destroy(sc);
    orca_sim_destroy(sim);
    return 0;
}

/* --- the exact area test (issue 27, item 5) ------------------------------------------------ */

/* 1: the loop is added (then removed again), 0: refused as zero area; -1 another refusal */
static int area_accepted(orca_sim *sim, const orca_vec2 *p, int n)
{
    orca_boundary_id id;
    orca_status st = orca_sim_add_boundary(sim, p, n, &id);
    if (st == ORCA_OK) {
        return orca_sim_remove_boundary(sim, id) == ORCA_OK ? 1 : -1;
    }
    return st == ORCA_ERR_ARGUMENT && has(sim, "has zero area") ? 0 : -1;
}

/* A random double for the loops below: ordinary, huge, tiny, subnormal, or a small integer. */
static double area_value(test_rng *g)
{
    switch (test_rng_next(g) % 6) {
    case 0: return test_rng_uniform(g, -10, 10);
    case 1: return test_rng_uniform(g, -2097151, 2097151);
    case 2: return ldexp(test_rng_uniform(g, -1, 1), -(int)(test_rng_next(g) % 1100));
    case 3: return (double)((int)(test_rng_next(g) % 7) - 3);
    case 4: return ldexp((double)((int)(test_rng_next(g) % 9) - 4), -1074);
    default: return 2e6 + ldexp((double)(test_rng_next(g) % 64), -5);
    }
}

/* A loop of n points (3..8): random, or points on one line (exactly, with steps of few bits
 * from a base anywhere), then maybe one coordinate moved by one unit in the last place. */
static void area_loop(test_rng *g, orca_vec2 *p, int n)
{
    unsigned kind = (unsigned)(test_rng_next(g) % 4);
    if (kind == 0) {
        for (int k = 0; k < n; ++k) {
            p[k] = vec(area_value(g), area_value(g));
        }
        return;
    }
    orca_vec2 base = vec(area_value(g), area_value(g));
    int e = (int)(test_rng_next(g) % 60) - 50;
    if (kind == 3) {
        e = -1074 + (int)(test_rng_next(g) % 40);
    }
    orca_vec2 dir = vec(ldexp((double)((int)(test_rng_next(g) % 15) - 7), e),
                        ldexp((double)((int)(test_rng_next(g) % 15) - 7), e));
    for (int k = 0; k < n; ++k) {
        double t = (double)((int)(test_rng_next(g) % 9) - 4);
        p[k] = vec(base.x + t * dir.x, base.y + t * dir.y);
        if (kind == 3) { /* the base at the origin: the subnormal steps stay exact */
            p[k] = vec(t * dir.x, t * dir.y);
        }
    }
    if (test_rng_next(g) % 3 == 0) {
        int k = (int)(test_rng_next(g) % (unsigned)n);
        p[k].y = nextafter(p[k].y, test_rng_next(g) % 2 ? INFINITY : -INFINITY);
    }
}

static int test_area_exact(void)
{
    orca_sim *sim = test_new_sim(1);
    ENSURE(sim);
    /* the room: 1 cm square at (2e6, 2e6), and at the origin */
    double o = 2e6;
    orca_vec2 cm[4] = {vec(o, o), vec(o + 0.01, o), vec(o + 0.01, o + 0.01), vec(o, o + 0.01)};
    orca_vec2 cm0[4] = {vec(0, 0), vec(0.01, 0), vec(0.01, 0.01), vec(0, 0.01)};
    ENSURE_MSG(area_accepted(sim, cm, 4) == 1, "%s", orca_sim_last_error(sim));
    ENSURE(area_accepted(sim, cm0, 4) == 1);
    /* exactly collinear: huge, subnormal, mixed; a bow tie of exactly zero area, also where
     * the rounded sum is not zero */
    orca_vec2 line_huge[3] = {vec(-2097151.5, -2097151.5), vec(0, 0), vec(2097151.5, 2097151.5)};
    orca_vec2 line_sub[4] = {vec(0, 0), vec(5e-324, 1e-323), vec(1e-323, 2e-323),
                             vec(-5e-324, -1e-323)};
    orca_vec2 line_mixed[4] = {vec(0x1p20, 0x1p-980), vec(1, 0x1p-1000), vec(-0x1p20, -0x1p-980),
                               vec(3, 0x1.8p-999)};
    orca_vec2 line_far[3] = {vec(1234567.125, 7654.375), vec(1234567.375, 7655.125),
                             vec(1234567.625, 7655.875)};
    orca_vec2 bow[4] = {vec(0, 0), vec(1, 1), vec(1, 0), vec(0, 1)};
    orca_vec2 bow_far[4] = {vec(o, o), vec(o + 1, o + 1), vec(o + 1, o), vec(o, o + 1)};
    orca_vec2 bow_skew[4] = {vec(o + 0.1, o + 0.3), vec(o + 0.7, o + 0.9), vec(o + 0.7, o + 0.3),
                             vec(o + 0.1, o + 0.9)};
    const orca_vec2 *zero[] = {line_huge, line_sub, line_mixed, line_far, bow, bow_far, bow_skew};
    const int zero_n[] = {3, 4, 4, 3, 4, 4, 4};
    for (int k = 0; k < 7; ++k) {
        ENSURE(exact_ref_shoelace(zero[k], zero_n[k]) == 0);
        ENSURE_MSG(area_accepted(sim, zero[k], zero_n[k]) == 0, "loop %d: %s", k,
                   orca_sim_last_error(sim));
    }
    /* the smallest areas there are: refused only when exactly zero */
    orca_vec2 tiny_sub[3] = {vec(0, 0), vec(5e-324, 0), vec(0, 5e-324)}; /* area 2^-2149 */
    orca_vec2 skew_far[3] = {vec(1234567.125, 7654.375), vec(1234567.375, 7655.125),
                             vec(1234567.625, nextafter(7655.875, 0))};
    ENSURE(area_accepted(sim, tiny_sub, 3) == 1);
    ENSURE(area_accepted(sim, skew_far, 3) == 1);
    /* random loops against the independent exact sum (exact_ref.h) */
    test_rng g = {0xa4eaull};
    int accepted = 0, refused = 0, rounded_zero = 0, rounded_nonzero = 0;
    for (int trial = 0; trial < 40000; ++trial) {
        orca_vec2 p[8];
        int n = 3 + (int)(test_rng_next(&g) % 6);
        area_loop(&g, p, n);
        int valid = 1;
        for (int k = 0; k < n; ++k) {
            orca_vec2 a = p[k], b = p[(k + 1) % n];
            valid &= fabs(a.x) < 2097152 && fabs(a.y) < 2097152 && !(a.x == b.x && a.y == b.y);
        }
        if (!valid) {
            continue;
        }
        int want = exact_ref_shoelace(p, n) != 0;
        int got = area_accepted(sim, p, n);
        ENSURE_MSG(got == want, "trial %d: %d points, accepted %d, exact area %s", trial, n, got,
                   want ? "non-zero" : "zero");
        double sum = 0; /* the rounded sum the test was before */
        for (int k = 0; k < n; ++k) {
            sum += p[k].x * p[(k + 1) % n].y - p[(k + 1) % n].x * p[k].y;
        }
        rounded_zero += want && sum == 0;
        rounded_nonzero += !want && sum != 0;
        ++*(want ? &accepted : &refused);
    }
    printf("  exact area: %d loops accepted, %d refused as zero area; the rounded sum in index "
           "order was 0 for %d of the first and not 0 for %d of the others\n",
           accepted, refused, rounded_zero, rounded_nonzero);
    ENSURE(accepted > 10000 && refused > 5000 && rounded_zero > 500 && rounded_nonzero > 500);
    orca_sim_destroy(sim);
    return 0;
}

/* --- the half-planes against §7's builder --------------------------------------------- */

static int test_builder_bits(void)
{
    /* one agent facing one edge's interior: the boundary half-plane is exactly the builder's
     * with clearance = radius and horizon = max(obstacle horizon, dt) */
    test_rng rng = {99};
    for (int trial = 0; trial < 2000; ++trial) {
        orca_sim *sim = test_new_sim(1);
        ENSURE(sim);
        double s = pow(2, test_rng_uniform(&rng, -10, 10));
        orca_vec2 tri[3] = {{-100 * s, -s}, {100 * s, -s}, {0, 100 * s}};
        ENSURE(orca_sim_add_boundary(sim, tri, 3, NULL) == ORCA_OK);
        orca_agent_def d = orca_agent_def_default();
        d.radius = s * test_rng_uniform(&rng, 0.01, 0.5);
        d.max_speed = s * test_rng_uniform(&rng, 0, 3);
        d.obstacle_time_horizon = test_rng_uniform(&rng, 0.1, 5);
        orca_vec2 target = vec(s * test_rng_uniform(&rng, -5, 5),
                               s * test_rng_uniform(&rng, -0.9, 2));
        d.position = vec(0, 30 * s); /* fits; then driven (locked) to the target, which may
                                        lie closer to the bottom wall than the radius */
        orca_agent_id id;
        ENSURE(orca_sim_add_agent(sim, &d, &id) == ORCA_OK);
        ENSURE(drive_to(sim, id, target) == 0);
        ENSURE(orca_agent_get_position(sim, id, &d.position) == ORCA_OK);
        double dt = test_rng_uniform(&rng, 0.01, 8);
        orca_halfplane planes[8];
        int count = 0, hard = 0;
        ENSURE(orca_sim_agent_constraints(sim, id, dt, planes, 8, &count, &hard) == ORCA_OK);
        double h = dt > d.obstacle_time_horizon ? dt : d.obstacle_time_horizon;
        orca_halfplane want;
        int got = orca_constraint_boundary(vec(tri[0].x - d.position.x, tri[0].y - d.position.y),
                                           vec(tri[1].x - d.position.x, tri[1].y - d.position.y),
                                           d.radius, h, &want);
        double reach = h * d.max_speed + d.radius;
        double dist = d.position.y + s;
        ENSURE(hard == count);
        if (got == 1 && dist <= reach * (1 - 1e-12)) {
            ENSURE(count >= 1);
            ENSURE_BITS(planes[0].point.x, want.point.x);
            ENSURE_BITS(planes[0].point.y, want.point.y);
            ENSURE_BITS(planes[0].normal.x, want.normal.x);
            ENSURE_BITS(planes[0].normal.y, want.normal.y);
        }
        if (dist > reach * (1 + 1e-12)) {
            ENSURE(count == 0 || planes[0].normal.y != 1); /* the bottom edge is out of reach */
        }
        orca_sim_destroy(sim);
    }
    return 0;
}

/* The half-plane of a pillar corner seen diagonally: the vertex rule (normal from the
 * corner to the agent), which the builder alone does not give. */
static int test_corner_plane(void)
{
    orca_sim *sim = test_new_sim(1);
    ENSURE(sim);
    ENSURE(orca_sim_add_boundary(sim, ROOM, 4, NULL) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(sim, PILLAR, 4, NULL) == ORCA_OK);
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(6, 3); /* below-left of the corner (8, 5) */
    d.radius = 0.5;
    d.obstacle_time_horizon = 1;
    orca_agent_id id;
    ENSURE(orca_sim_add_agent(sim, &d, &id) == ORCA_OK);
    orca_halfplane planes[16];
    int count, hard;
    ENSURE(orca_sim_agent_constraints(sim, id, 0.25, planes, 16, &count, &hard) == ORCA_OK);
    /* reach 2.5: the corner (distance sqrt 8 = 2.83) is out; with horizon 2, reach 4.5 */
    ENSURE(count == 0);
    d.obstacle_time_horizon = 2;
    ENSURE(orca_agent_set(sim, id, &d) == ORCA_OK);
    ENSURE(orca_sim_agent_constraints(sim, id, 0.25, planes, 16, &count, &hard) == ORCA_OK);
    /* the corner (once, though two edges share it), then the wall y = 0 (distance 3); the wall
     * x = 0 (distance 6) is beyond reach, the pillar's far edges face away */
    ENSURE(count == 2 && hard == 2);
    ENSURE(planes[1].normal.x == 0 && planes[1].normal.y == 1);
    double l = sqrt(8);
    ENSURE_NEAR(planes[0].normal.x, -2 / l, 1e-15);
    ENSURE_NEAR(planes[0].normal.y, -2 / l, 1e-15);
    /* point = -n (dist - r) / h */
    ENSURE_NEAR(planes[0].point.x, 2 / l * (l - 0.5) / 2, 1e-14);
    orca_sim_destroy(sim);
    return 0;
}

/* --- plain bits, hash, snapshots, workers -------------------------------------------- */

static orca_sim *crowd(int workers, int with_room, int far_loop)
{
    orca_sim *sim = test_new_sim(workers);
    if (!sim) {
        return NULL;
    }
    test_rng rng = {5};
    for (int i = 0; i < 60; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.radius = 0.4;
        d.obstacle_time_horizon = 2;
        d.position = vec(test_rng_uniform(&rng, 1, 19), test_rng_uniform(&rng, 1, 4.4));
        d.preferred_velocity = vec(test_rng_uniform(&rng, -2, 2), test_rng_uniform(&rng, -2, 2));
        orca_sim_add_agent(sim, &d, NULL);
    }
    if (with_room) {
        orca_sim_add_boundary(sim, ROOM, 4, NULL);
        orca_sim_add_boundary(sim, PILLAR, 4, NULL);
    }
    if (far_loop) {
        /* a room around them whose walls are beyond every agent's reach */
        orca_vec2 far[3] = {{-1e6, -1e6}, {1e6, -1e6}, {0, 1e6}};
        orca_sim_add_boundary(sim, far, 3, NULL);
    }
    return sim;
}

static int test_plain_bits(void)
{
    /* a loop beyond every agent's reach: the positions and velocities are the plain step's */
    orca_sim *a = crowd(1, 0, 0), *b = crowd(1, 0, 1);
    ENSURE(a && b);
    for (int s = 0; s < 50; ++s) {
        ENSURE(orca_sim_step(a, 0.25) == ORCA_OK && orca_sim_step(b, 0.25) == ORCA_OK);
    }
    for (int i = 0; i < 60; ++i) {
        orca_agent_def da, db;
        orca_agent_get(a, orca_sim_agent_at(a, i), &da);
        orca_agent_get(b, orca_sim_agent_at(b, i), &db);
        ENSURE_BITS(da.position.x, db.position.x);
        ENSURE_BITS(da.position.y, db.position.y);
        ENSURE_BITS(da.velocity.x, db.velocity.x);
        ENSURE_BITS(da.velocity.y, db.velocity.y);
    }
    ENSURE(orca_sim_hash(a) != orca_sim_hash(b)); /* the section is there */
    /* removed = never added: hash and snapshot bytes */
    orca_boundary_id far = orca_sim_boundary_at(b, 0);
    ENSURE(orca_sim_remove_boundary(b, far) == ORCA_OK);
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    size_t na = 0, nb = 0;
    orca_sim_save(a, NULL, 0, &na);
    orca_sim_save(b, NULL, 0, &nb);
    ENSURE(na == nb);
    unsigned char *ba = malloc(na), *bb = malloc(nb);
    ENSURE(ba && bb);
    ENSURE(orca_sim_save(a, ba, na, &na) == ORCA_OK && orca_sim_save(b, bb, nb, &nb) == ORCA_OK);
    ENSURE(memcmp(ba, bb, na) == 0);
    free(ba);
    free(bb);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

static int test_hash_snapshot_workers(void)
{
    orca_sim *a = crowd(1, 1, 0), *b = crowd(4, 1, 0);
    ENSURE(a && b);
    for (int s = 0; s < 40; ++s) {
        ENSURE(orca_sim_step(a, 0.25) == ORCA_OK && orca_sim_step(b, 0.25) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    /* the loops enter the hash */
    orca_sim *c = crowd(1, 0, 0), *c2 = crowd(1, 1, 0);
    ENSURE(c && c2 && orca_sim_hash(c) != orca_sim_hash(c2));
    orca_sim_destroy(c);
    orca_sim_destroy(c2);
    /* snapshot round trip, then both continue with the same bits */
    size_t n = 0;
    ENSURE(orca_sim_save(a, NULL, 0, &n) == ORCA_OK);
    unsigned char *buf = malloc(n);
    ENSURE(buf && orca_sim_save(a, buf, n, &n) == ORCA_OK);
    ENSURE(buf[8] == 3); /* version 3: flags */
    orca_sim *r = test_new_sim(2);
    ENSURE(r && orca_sim_load(r, buf, n) == ORCA_OK);
    ENSURE(orca_sim_hash(r) == orca_sim_hash(a));
    ENSURE(orca_sim_boundary_count(r) == 2);
    orca_boundary_id h0 = orca_sim_boundary_at(a, 1), h1 = orca_sim_boundary_at(r, 1);
    ENSURE(h0.slot == h1.slot && h0.generation == h1.generation);
    for (int s = 0; s < 20; ++s) {
        ENSURE(orca_sim_step(a, 0.25) == ORCA_OK && orca_sim_step(r, 0.25) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(r) == orca_sim_hash(a));
    /* every truncation and every single-byte change is refused, the state unchanged */
    uint64_t hr = orca_sim_hash(r);
    for (size_t k = 0; k < n; k += 7) {
        ENSURE(orca_sim_load(r, buf, k) == ORCA_ERR_FORMAT);
        buf[k] ^= 0x5a;
        ENSURE(orca_sim_load(r, buf, n) == ORCA_ERR_FORMAT);
        buf[k] ^= 0x5a;
    }
    ENSURE(orca_sim_hash(r) == hr);
    /* a snapshot without boundaries (version 1) replaces them */
    orca_sim *p = crowd(1, 0, 0);
    size_t pn = 0;
    orca_sim_save(p, NULL, 0, &pn);
    unsigned char *pb = malloc(pn);
    ENSURE(pb && orca_sim_save(p, pb, pn, &pn) == ORCA_OK && pb[8] == 1);
    ENSURE(orca_sim_load(r, pb, pn) == ORCA_OK);
    ENSURE(orca_sim_boundary_count(r) == 0 && orca_sim_hash(r) == orca_sim_hash(p));
    free(pb);
    free(buf);
    orca_sim_destroy(p);
    orca_sim_destroy(r);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

/* An agent in a passage narrower than its diameter: the boundary half-planes contradict each
 * other; the step completes (the fallback relaxes them) and nothing is NaN. */
static int test_narrow(void)
{
    /* a 4 x 4 chamber with a slot 0.6 wide and 10 long on its right */
    orca_vec2 area[8] = {{0, 0}, {4, 0}, {4, 1.7}, {14, 1.7}, {14, 2.3}, {4, 2.3}, {4, 4}, {0, 4}};
    orca_sim *sim = test_new_sim(1);
    ENSURE(sim && orca_sim_add_boundary(sim, area, 8, NULL) == ORCA_OK);
    orca_agent_def d = orca_agent_def_default();
    d.radius = 0.5;
    d.position = vec(9, 2); /* in the slot: refused */
    ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(sim), "is 0.29999999999999982 from boundary loop 0") !=
           NULL);
    d.position = vec(2, 2); /* in the chamber; then driven into the slot, locked */
    orca_agent_id id;
    ENSURE(orca_sim_add_agent(sim, &d, &id) == ORCA_OK);
    ENSURE(drive_to(sim, id, vec(9, 2)) == 0);
    ENSURE(orca_agent_set_preferred_velocity(sim, id, vec(1, 0)) == ORCA_OK);
    for (int s = 0; s < 20; ++s) {
        ENSURE(orca_sim_step(sim, 0.25) == ORCA_OK);
        ENSURE(orca_sim_last_fallback_count(sim) == 1);
    }
    orca_vec2 p;
    orca_agent_get_position(sim, orca_sim_agent_at(sim, 0), &p);
    ENSURE(p.x == p.x && p.y > 1.7 && p.y < 2.3); /* it stays between the walls */
    orca_sim_destroy(sim);
    return 0;
}

/* The handle API at its edges, removal from the middle, the measurement's optional outputs,
 * and steps that change what the edge grid and the workers' scratch are sized by: a many-sided
 * pillar (more than 16 features in reach: the sorted path), a dt beyond the horizon (a longer
 * reach), more workers, coordinates near the limit. Checked: the loops that remain and their
 * points, a snapshot round trip after the removal, and the invariant (every centre inside the
 * area after every step, by the measurement; the last agent against the room's walls). */
static int test_api_edges(void)
{
    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    orca_boundary_id none = {1, 1, orca_sim_id(s)};
    ENSURE(orca_sim_remove_boundary(s, none) == ORCA_ERR_STALE); /* no loop ever */
    ENSURE(orca_boundary_get(s, none, NULL, 0, NULL) == ORCA_ERR_STALE);
    ENSURE(orca_sim_boundary_at(s, 0).generation == 0);
    double deepest = -1;
    int outside = -1;
    ENSURE(orca_sim_measure_boundary(s, &deepest, &outside) == ORCA_OK);
    ENSURE(deepest == 0 && outside == 0);
    /* three loops: a room, a 24-sided pillar, a small square hole; remove the middle one */
    orca_vec2 room[4] = {vec(-20, -20), vec(20, -20), vec(20, 20), vec(-20, 20)};
    orca_vec2 pillar[24];
    for (int k = 0; k < 24; ++k) { /* clockwise: a hole; no sin/cos: a polygon on a square */
        int side = k / 6, t = k % 6;
        double u = -3 + t;
        pillar[k] = side == 0 ? vec(u, 3) : side == 1 ? vec(3, -u) : side == 2 ? vec(-u, -3)
                                                                   : vec(-3, u);
    }
    orca_vec2 hole[4] = {vec(10, 10), vec(10, 12), vec(12, 12), vec(12, 10)};
    orca_boundary_id ids[3];
    ENSURE(orca_sim_add_boundary(s, room, 4, &ids[0]) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(s, pillar, 24, &ids[1]) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(s, hole, 4, &ids[2]) == ORCA_OK);
    ENSURE(orca_sim_boundary_count(s) == 3);
    ENSURE(orca_sim_boundary_at(s, -1).generation == 0 && orca_sim_boundary_at(s, 3).generation == 0);
    int count = -1;
    orca_vec2 got[30];
    ENSURE(orca_boundary_get(s, ids[1], NULL, 0, &count) == ORCA_OK && count == 24);
    ENSURE(orca_boundary_get(s, ids[1], got, 5, NULL) == ORCA_OK);
    ENSURE(memcmp(got, pillar, 5 * sizeof *got) == 0);
    ENSURE(orca_boundary_get(s, ids[1], got, -1, NULL) != ORCA_OK);
    /* agents around the pillar, a few pressed against its corners */
    orca_sim *r = test_new_sim(1);
    ENSURE(r);
    for (int i = 0; i < 40; ++i) {
        orca_agent_def d = orca_agent_def_default();
        double a = (double)(i % 8) - 3.5, b = (double)(i / 8) - 2;
        d.position = vec(a * 2.2, 9 + b * 2.2); /* above the pillar, below the room top */
        d.preferred_velocity = vec(i % 2 ? 1.5 : -1.5, -2);
        d.max_speed = 2;
        ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
        ENSURE(orca_sim_add_agent(r, &d, NULL) == ORCA_OK);
    }
    for (int k = 0; k < 8; ++k) {
        ENSURE(orca_sim_step(s, 0.25) == ORCA_OK);
    }
    ENSURE(orca_sim_measure_boundary(s, NULL, NULL) == ORCA_OK); /* both outputs optional */
    ENSURE(orca_sim_measure_boundary(s, &deepest, NULL) == ORCA_OK);
    ENSURE(orca_sim_measure_boundary(s, NULL, &outside) == ORCA_OK && outside == 0);
    /* removing the pillar: the others keep their order and points; the state round-trips */
    ENSURE(orca_sim_remove_boundary(s, ids[1]) == ORCA_OK);
    ENSURE(orca_sim_remove_boundary(s, ids[1]) == ORCA_ERR_STALE);
    ENSURE(orca_sim_boundary_count(s) == 2);
    ENSURE(orca_sim_boundary_at(s, 1).slot == ids[2].slot);
    ENSURE(orca_boundary_get(s, ids[2], got, 30, &count) == ORCA_OK && count == 4);
    ENSURE(memcmp(got, hole, sizeof hole) == 0);
    size_t size = 0;
    ENSURE(orca_sim_save(s, NULL, 0, &size) == ORCA_OK);
    unsigned char *snap = malloc(size);
    ENSURE(snap && orca_sim_save(s, snap, size, &size) == ORCA_OK);
    ENSURE(orca_sim_load(r, snap, size) == ORCA_OK);
    ENSURE(orca_sim_hash(r) == orca_sim_hash(s));
    free(snap);
    orca_sim_destroy(r);
    orca_sim_remove_boundary(s, ids[2]);
    ENSURE(orca_sim_add_boundary(s, pillar, 24, &ids[1]) == ORCA_OK);
    /* more workers, then a dt far beyond the horizon (the reach and the grid grow), then
     * back: the centres stay inside the room and outside the pillar at every step */
    const int workers[4] = {1, 3, 3, 2};
    const double dts[4] = {0.25, 0.25, 40.0, 0.1};
    for (int phase = 0; phase < 4; ++phase) {
        ENSURE(orca_sim_set_worker_count(s, workers[phase]) == ORCA_OK);
        for (int k = 0; k < 6; ++k) {
            orca_status st = orca_sim_step(s, dts[phase]);
            ENSURE_MSG(st == ORCA_OK, "phase %d: %s", phase, orca_sim_last_error(s));
            ENSURE(orca_sim_measure_boundary(s, NULL, &outside) == ORCA_OK);
            ENSURE_MSG(outside == 0, "phase %d step %d: %d agents outside", phase, k, outside);
        }
    }
    orca_sim_destroy(s);
    /* a room near the coordinate limit: the edge grid's cells follow the coordinates */
    s = test_new_sim(1);
    ENSURE(s);
    double far = 0x1p20;
    orca_vec2 big[4] = {vec(far - 20, far - 20), vec(far + 20, far - 20), vec(far + 20, far + 20),
                        vec(far - 20, far + 20)};
    ENSURE(orca_sim_add_boundary(s, big, 4, NULL) == ORCA_OK);
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(far, far);
    d.preferred_velocity = vec(2, 2);
    d.max_speed = 2;
    ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    for (int k = 0; k < 80; ++k) {
        ENSURE(orca_sim_step(s, 0.5) == ORCA_OK);
    }
    ENSURE(orca_sim_measure_boundary(s, NULL, &outside) == ORCA_OK && outside == 0);
    orca_agent_def out;
    ENSURE(orca_agent_get(s, orca_sim_agent_at(s, 0), &out) == ORCA_OK);
    ENSURE_MSG(out.position.x <= far + 20 - 0.5 * (1 - 1e-9) && out.position.y <= far + 20 - 0.5,
               "agent at (%.17g, %.17g)", out.position.x - far, out.position.y - far);
    orca_sim_destroy(s);
    return 0;
}

/* --- the measurement against a brute-force oracle ------------------------------------------ */

/* Edge a -> b's share of the winding number at q on the ray towards +x (an upward edge,
 * a.y <= q.y < b.y, with q on its left: +1; a downward one with q on its right: -1), the
 * sides exact (exact_ref_orient); *on when q lies on the edge. */
static int ref_winding(orca_vec2 a, orca_vec2 b, orca_vec2 q, int *on)
{
    *on = 0;
    int up = a.y <= q.y && q.y < b.y, down = b.y <= q.y && q.y < a.y;
    int inbox = fmin(a.x, b.x) <= q.x && q.x <= fmax(a.x, b.x) && fmin(a.y, b.y) <= q.y &&
                q.y <= fmax(a.y, b.y);
    if (!up && !down && !inbox) {
        return 0; /* the sign cannot matter: saves the exact sum */
    }
    int o = exact_ref_orient(a, b, q);
    *on = o == 0 && inbox;
    return (up && o > 0) - (down && o < 0);
}

/* orca_sim_measure_boundary as its definition reads, over every agent and every edge, agent
 * by agent (index order): over[i] the largest (r - sqrt(d2)) / r over the edges with
 * d2 < r * r (d2 from orca_segment_distance_squared of the edge's ends relative to the
 * centre), or 0; out[i] 1 when the winding number at the centre is below 1 or the centre lies
 * on an edge (then on[i] = 1). The measurement is the largest over[i] and the sum of out[i]. */
static int ref_agents(const orca_sim *sim, double *over, int *out, int *on)
{
    int nl = orca_sim_boundary_count(sim), ne = 0;
    for (int l = 0; l < nl; ++l) {
        int n = 0;
        ENSURE(orca_boundary_get(sim, orca_sim_boundary_at(sim, l), NULL, 0, &n) == ORCA_OK);
        ne += n;
    }
    orca_vec2 *pts = malloc((size_t)(ne + 1) * sizeof *pts);
    orca_vec2 *ea = malloc((size_t)(ne + 1) * sizeof *ea);
    orca_vec2 *eb = malloc((size_t)(ne + 1) * sizeof *eb);
    ENSURE(pts && ea && eb);
    int m = 0;
    for (int l = 0; l < nl; ++l) {
        int n = 0;
        ENSURE(orca_boundary_get(sim, orca_sim_boundary_at(sim, l), pts, ne, &n) == ORCA_OK);
        for (int k = 0; k < n; ++k, ++m) {
            ea[m] = pts[k];
            eb[m] = pts[(k + 1) % n];
        }
    }
    for (int i = 0; i < orca_sim_agent_count(sim); ++i) {
        orca_agent_def d;
        ENSURE(orca_agent_get(sim, orca_sim_agent_at(sim, i), &d) == ORCA_OK);
        orca_vec2 p = d.position;
        double r = d.radius, worst = 0;
        int wn = 0, on_any = 0;
        for (int k = 0; k < ne; ++k) {
            double d2 = orca_segment_distance_squared(vec(ea[k].x - p.x, ea[k].y - p.y),
                                                      vec(eb[k].x - p.x, eb[k].y - p.y));
            if (d2 < r * r) {
                double o = (r - sqrt(d2)) / r;
                worst = o > worst ? o : worst;
            }
            int at;
            wn += ref_winding(ea[k], eb[k], p, &at);
            on_any |= at;
        }
        over[i] = worst;
        out[i] = ne > 0 && (wn < 1 || on_any);
        on[i] = on_any;
    }
    free(pts);
    free(ea);
    free(eb);
    return 0;
}

/* The measurement against the oracle's figures: deepest bit for bit, outside exactly. */
static int measure_is(orca_sim *sim, double want, int want_out, const char *what)
{
    double got = -1;
    int got_out = -1;
    ENSURE_MSG(orca_sim_measure_boundary(sim, &got, &got_out) == ORCA_OK, "%s: %s", what,
               orca_sim_last_error(sim));
    ENSURE_MSG(memcmp(&got, &want, sizeof got) == 0 && got_out == want_out,
               "%s, %d workers: deepest %a outside %d, the oracle %a and %d", what,
               orca_sim_get_worker_count(sim), got, got_out, want, want_out);
    return 0;
}

static const double *g_over; /* by_over's key */

static int by_over(const void *x, const void *y)
{
    double a = g_over[*(const int *)x], b = g_over[*(const int *)y];
    return a > b ? -1 : a < b;
}

/* The measurement of sim against the oracle with 1, 2 and 3 workers; then, with `each`, agent
 * by agent: the agents removed one at a time, the most overlapping first, measured after
 * each removal (so every agent's own overlap is the deepest once, and its part of the count is
 * the count's change). Adds the oracle's figures to totals[0..2] (outside, on an edge,
 * states with an overlap). */
static int measure_matches(orca_sim *sim, const char *what, int each, int *totals)
{
    int n = orca_sim_agent_count(sim);
    double *over = malloc((size_t)(n + 1) * sizeof *over);
    int *out = malloc((size_t)(n + 1) * sizeof *out), *on = malloc((size_t)(n + 1) * sizeof *on);
    int *order = malloc((size_t)(n + 1) * sizeof *order);
    orca_agent_id *ids = malloc((size_t)(n + 1) * sizeof *ids);
    ENSURE(over && out && on && order && ids);
    ENSURE(ref_agents(sim, over, out, on) == 0);
    double want = 0;
    int want_out = 0;
    for (int i = 0; i < n; ++i) {
        want = over[i] > want ? over[i] : want;
        want_out += out[i];
        totals[1] += on[i];
        order[i] = i;
        ids[i] = orca_sim_agent_at(sim, i);
    }
    totals[0] += want_out;
    totals[2] += want > 0;
    for (int w = 1; w <= 3; ++w) {
        ENSURE(orca_sim_set_worker_count(sim, w) == ORCA_OK);
        if (measure_is(sim, want, want_out, what)) {
            return 1;
        }
    }
    if (each) {
        g_over = over;
        qsort(order, (size_t)n, sizeof *order, by_over);
        for (int j = 0; j < n; ++j) {
            ENSURE(orca_sim_remove_agent(sim, ids[order[j]]) == ORCA_OK);
            want_out -= out[order[j]];
            want = j + 1 < n ? over[order[j + 1]] : 0;
            char at[96];
            snprintf(at, sizeof at, "%s, agent %d removed (%d of %d)", what, order[j], j + 1, n);
            if (measure_is(sim, want, want_out, at)) {
                return 1;
            }
        }
    }
    free(over);
    free(out);
    free(on);
    free(order);
    free(ids);
    return 0;
}

/* A random test scene in unit coordinates on a grid of 1/4 (the caller scales and shifts
 * them exactly): a concave star-shaped room (8 to 24 corners at radius 6 to 10 around the
 * origin, counter-clockwise), up to four holes in the slots (+-2.25, +-2.25) (rectangles,
 * diamonds with diagonal edges, a rectangle with an island: a loop inside a hole), and at
 * times a second room, a rectangle right of the first. Loops as (start, count) into pts. */
typedef struct mscene {
    orca_vec2 pts[96];
    int start[12], len[12], nl;
} mscene;

static double quarter(double x)
{
    return floor(4 * x + 0.5) / 4;
}

static void mscene_loop(mscene *m, const orca_vec2 *p, int n)
{
    int at = m->nl ? m->start[m->nl - 1] + m->len[m->nl - 1] : 0;
    memcpy(&m->pts[at], p, (size_t)n * sizeof *p);
    m->start[m->nl] = at;
    m->len[m->nl] = n;
    ++m->nl;
}

/* The rectangle [x0, x1] x [y0, y1]: counter-clockwise (a room) or clockwise (a hole). */
static void mscene_rect(mscene *m, double x0, double y0, double x1, double y1, int ccw)
{
    orca_vec2 r[4] = {vec(x0, y0), vec(x1, y0), vec(x1, y1), vec(x0, y1)};
    if (!ccw) {
        orca_vec2 t = r[1];
        r[1] = r[3];
        r[3] = t;
    }
    mscene_loop(m, r, 4);
}

static void mscene_make(mscene *m, test_rng *g)
{
    memset(m, 0, sizeof *m);
    int n = 8 + (int)(test_rng_next(g) % 17);
    orca_vec2 star[24];
    for (int k = 0; k < n; ++k) {
        double a = 2 * 3.14159265358979 * k / n, r = test_rng_uniform(g, 6, 10);
        star[k] = vec(quarter(r * cos(a)), quarter(r * sin(a)));
    }
    mscene_loop(m, star, n);
    for (int slot = 0; slot < 4; ++slot) {
        double cx = slot & 1 ? 2.25 : -2.25, cy = slot & 2 ? 2.25 : -2.25;
        double h = quarter(test_rng_uniform(g, 0.5, 1.25));
        switch (test_rng_next(g) % 4) {
        case 0:
            break;
        case 1:
            mscene_rect(m, cx - h, cy - quarter(h * 0.7), cx + h, cy + h, 0);
            break;
        case 2: {
            orca_vec2 d[4] = {vec(cx - h, cy), vec(cx, cy + h), vec(cx + h, cy), vec(cx, cy - h)};
            mscene_loop(m, d, 4); /* clockwise */
            break;
        }
        default:
            mscene_rect(m, cx - 1.25, cy - 1.25, cx + 1.25, cy + 1.25, 0);
            mscene_rect(m, cx - 0.5, cy - 0.5, cx + 0.5, cy + 0.25, 1);
            break;
        }
    }
    if (test_rng_next(g) % 2) {
        mscene_rect(m, 14, -3, 20, quarter(test_rng_uniform(g, 1, 5)), 1);
    }
}

/* Many random scenes (seeded) at several scales and places (near the coordinate limit, tiny),
 * measured against the oracle with 1, 2 and 3 workers: agents at random places inside
 * (added where the disc check takes them, then a few steps pushing them against the walls:
 * touching), and agents driven past the walls by a locked step onto exact points: corners,
 * points of edges (diagonal ones too), points a little either side of an edge (overlapping
 * or outside), points of the grid of 1/64 and cell corners (cell borders and the rows' lines:
 * the edge grid's cells are 1 m at scale 1, for the agents' reach of about 1.1 m does not
 * resize them) and on the line of a corner (the ray through it); then again with a loop
 * removed (the centres it held outside, or a hole's inside), and agent by agent. */
static int test_measure_oracle(void)
{
    /* scale, offset */
    static const double place[][2] = {{1, 0},           {1, 0},         {0.5, 0},
                                      {1, 0x1p21 - 32}, {1, -0x1p21 + 32}, {0x1p-20, 0},
                                      {0x1p-28, 0},     {1024, 0x1p20}};
    int nplace = (int)(sizeof place / sizeof place[0]);
    int totals[3] = {0, 0, 0};
    for (int seed = 0; seed < 24; ++seed) {
        test_rng g = {0x5eed0000ull + (unsigned long long)seed};
        double sc = place[seed % nplace][0], off = place[seed % nplace][1];
        mscene m;
        mscene_make(&m, &g);
        orca_sim *sim = test_new_sim(1);
        ENSURE(sim);
        orca_boundary_id ids[12];
        for (int l = 0; l < m.nl; ++l) {
            orca_vec2 p[32];
            for (int k = 0; k < m.len[l]; ++k) {
                orca_vec2 u = m.pts[m.start[l] + k];
                p[k] = vec(off + sc * u.x, off + sc * u.y);
            }
            ENSURE_MSG(orca_sim_add_boundary(sim, p, m.len[l], &ids[l]) == ORCA_OK,
                       "seed %d loop %d: %s", seed, l, orca_sim_last_error(sim));
        }
        orca_agent_def d = orca_agent_def_default();
        d.max_speed = 0.6 * sc;
        d.neighbor_dist = 2 * sc;
        d.max_neighbors = 5;
        d.time_horizon = 1;
        d.obstacle_time_horizon = 1;
        /* inside, at random places, pushed about */
        for (int t = 0; t < 400; ++t) {
            d.radius = sc * test_rng_uniform(&g, 0.15, 0.5);
            d.position = vec(off + sc * test_rng_uniform(&g, -10, 20),
                             off + sc * test_rng_uniform(&g, -10, 10));
            double a = test_rng_uniform(&g, 0, 6.283);
            d.preferred_velocity = vec(d.max_speed * cos(a), d.max_speed * sin(a));
            orca_status st = orca_sim_add_agent(sim, &d, NULL);
            ENSURE(st == ORCA_OK || st == ORCA_ERR_ARGUMENT);
        }
        for (int k = 0; k < 6; ++k) {
            ENSURE_MSG(orca_sim_step(sim, 0.5) == ORCA_OK, "%s", orca_sim_last_error(sim));
        }
        /* driven onto exact points (all on the grid of 1/64: p + (q - p) is q) */
        enum { DRIVEN = 80 };
        orca_agent_id drv[DRIVEN];
        orca_vec2 target[DRIVEN];
        int nd = 0;
        d.preferred_velocity = vec(0, 0);
        for (int t = 0; t < 4000 && nd < DRIVEN; ++t) {
            d.radius = sc * test_rng_uniform(&g, 0.15, 0.5);
            double ux = floor(test_rng_uniform(&g, -10, 20) * 64) / 64;
            double uy = floor(test_rng_uniform(&g, -10, 10) * 64) / 64;
            d.position = vec(off + sc * ux, off + sc * uy);
            if (orca_sim_add_agent(sim, &d, &drv[nd]) != ORCA_OK) {
                continue;
            }
            int l = (int)(test_rng_next(&g) % (unsigned)m.nl);
            int k = (int)(test_rng_next(&g) % (unsigned)m.len[l]);
            orca_vec2 a = m.pts[m.start[l] + k], b = m.pts[m.start[l] + (k + 1) % m.len[l]];
            double f = (double)(test_rng_next(&g) % 9) / 8;
            double e = (double)((int)(test_rng_next(&g) % 33) - 16) / 64;
            orca_vec2 q;
            switch (test_rng_next(&g) % 6) {
            case 0: /* a corner */
                q = a;
                break;
            case 1: /* a point of the edge */
                q = vec(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f);
                break;
            case 2: /* a little either side of it (along its normal, unnormalised) */
                q = vec(a.x + (b.x - a.x) * f - (b.y - a.y) * e / 4,
                        a.y + (b.y - a.y) * f + (b.x - a.x) * e / 4);
                break;
            case 3: /* on the line of a corner */
                q = vec(floor(test_rng_uniform(&g, -10, 20) * 64) / 64, a.y);
                break;
            case 4: /* a cell corner */
                q = vec(floor(test_rng_uniform(&g, -10, 20)), floor(test_rng_uniform(&g, -10, 10)));
                break;
            default: /* anywhere on the grid of 1/64 */
                q = vec(floor(test_rng_uniform(&g, -12, 22) * 64) / 64,
                        floor(test_rng_uniform(&g, -12, 12) * 64) / 64);
                break;
            }
            target[nd] = vec(off + sc * q.x, off + sc * q.y);
            ENSURE(orca_agent_set_locked(sim, drv[nd], 1) == ORCA_OK);
            ENSURE(orca_agent_set_velocity(sim, drv[nd], vec(target[nd].x - d.position.x,
                                                               target[nd].y - d.position.y)) ==
                   ORCA_OK);
            ++nd;
        }
        ENSURE_MSG(orca_sim_step(sim, 1) == ORCA_OK, "%s", orca_sim_last_error(sim));
        for (int i = 0; i < nd; ++i) {
            orca_vec2 p;
            ENSURE(orca_agent_get_position(sim, drv[i], &p) == ORCA_OK);
            ENSURE(p.x == target[i].x && p.y == target[i].y);
        }
        char what[64];
        snprintf(what, sizeof what, "seed %d", seed);
        if (measure_matches(sim, what, 0, totals)) {
            return 1;
        }
        /* agent by agent, in a copy (a snapshot keeps the loops, agents and locks) */
        size_t size = 0;
        ENSURE(orca_sim_save(sim, NULL, 0, &size) == ORCA_OK);
        unsigned char *snap = malloc(size);
        orca_sim *copy = test_new_sim(1);
        ENSURE(snap && copy && orca_sim_save(sim, snap, size, &size) == ORCA_OK);
        ENSURE(orca_sim_load(copy, snap, size) == ORCA_OK);
        free(snap);
        if (measure_matches(copy, what, 1, totals)) {
            return 1;
        }
        orca_sim_destroy(copy);
        /* a loop removed: the room (every centre it held outside) or another */
        int l = seed % 3 == 0 ? 0 : (int)(test_rng_next(&g) % (unsigned)m.nl);
        ENSURE(orca_sim_remove_boundary(sim, ids[l]) == ORCA_OK);
        snprintf(what, sizeof what, "seed %d without loop %d", seed, l);
        if (measure_matches(sim, what, 1, totals)) {
            return 1;
        }
        orca_sim_destroy(sim);
    }
    /* the scenes reached what they are for */
    ENSURE_MSG(totals[0] > 200 && totals[1] > 20 && totals[2] > 30,
               "outside %d, on an edge %d, overlapping %d", totals[0], totals[1], totals[2]);
    return 0;
}

#include "fail_alloc.h"

/* Out of memory in the measurement (the edge grid, its rows or the workers' scratch to build,
 * after a loop's removal on three workers): ORCA_ERR_MEMORY with a message, the outputs and
 * the state unchanged, nothing leaked; then it measures as the oracle does. */
static int test_measure_memory(void)
{
    orca_allocator alloc = {fa_alloc, fa_resize, fa_release, NULL};
    ENSURE(orca_set_allocator(&alloc) == ORCA_OK);
    long live0 = g_live;
    int failed = 0;
    for (long k = 1; k < 1000; ++k) {
        orca_sim *sim = test_new_sim(3);
        ENSURE(sim);
        orca_vec2 room[4] = {vec(0, 0), vec(30, 0), vec(30, 30), vec(0, 30)};
        orca_vec2 hole[4] = {vec(10, 10), vec(10, 20), vec(20, 20), vec(20, 10)};
        orca_boundary_id hid;
        ENSURE(orca_sim_add_boundary(sim, room, 4, NULL) == ORCA_OK);
        ENSURE(orca_sim_add_boundary(sim, hole, 4, &hid) == ORCA_OK);
        orca_agent_def d = orca_agent_def_default();
        d.radius = 0.4;
        for (int i = 0; i < 29 * 29; ++i) {
            d.position = vec(1 + i % 29, 1 + i / 29);
            orca_status st = orca_sim_add_agent(sim, &d, NULL);
            ENSURE(st == ORCA_OK || st == ORCA_ERR_ARGUMENT); /* none in the hole */
        }
        ENSURE(orca_sim_remove_boundary(sim, hid) == ORCA_OK);
        uint64_t h = orca_sim_hash(sim);
        double deepest = -7;
        int outside = -7;
        g_calls = 0;
        g_failed = 0;
        g_fail_at = k;
        orca_status st = orca_sim_measure_boundary(sim, &deepest, &outside);
        g_fail_at = 0;
        if (g_failed > 0) {
            ENSURE_MSG(st == ORCA_ERR_MEMORY, "allocation %ld failing: %s", k,
                       orca_status_name(st));
            ENSURE(strstr(orca_sim_last_error(sim), "out of memory measuring") != NULL);
            ENSURE(deepest == -7 && outside == -7);
            ENSURE(orca_sim_hash(sim) == h);
            ++failed;
        } else {
            ENSURE(st == ORCA_OK);
        }
        int totals[3] = {0, 0, 0};
        if (measure_matches(sim, "after the failure", 0, totals)) {
            return 1;
        }
        ENSURE(orca_sim_step(sim, 0.1) == ORCA_OK);
        orca_sim_destroy(sim);
        ENSURE_MSG(g_live == live0, "allocation %ld failing: %ld blocks leaked", k, g_live - live0);
        if (g_failed == 0) {
            break; /* the measurement made fewer allocations than k */
        }
    }
    ENSURE(orca_set_allocator(NULL) == ORCA_OK);
    ENSURE(failed >= 8); /* grid, rows and the three workers' scratch */
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"api_edges", test_api_edges},
    {"validation", test_validation},
    {"disc_check_add", test_disc_check_add},
    {"disc_check_move", test_disc_check_move},
    {"disc_check_loop", test_disc_check_loop},
    {"area_exact", test_area_exact},
    {"builder_bits", test_builder_bits},
    {"corner_plane", test_corner_plane},
    {"plain_bits", test_plain_bits},
    {"hash_snapshot_workers", test_hash_snapshot_workers},
    {"narrow", test_narrow},
    {"no_crossing_stress", test_no_crossing_stress},
    {"measure_oracle", test_measure_oracle},
    {"measure_memory", test_measure_memory},
    {0, 0},
};
