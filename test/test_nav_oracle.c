/* SPDX-License-Identifier: MIT */
/* Navigation against the independent oracle (test/nav_brute.c, written from the geometry, not
 * from the library): the scenes of test/nav_scenes.h and random wall scenes, path results and
 * lengths within 1e-9 relative (docs/navigation.md's method is exact). Every query is also
 * asked of the library's Dijkstra search (orca_nav_set_dijkstra), whose answer the A* search
 * must give to the bit: result, length, goal and every corner. */
#include "nav_brute.h"
#include "nav_internal.h"
#include "nav_scenes.h"
#include "orca/nav.h"
#include "orca/sim.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int expected_result(int nb)
{
    switch (nb) {
    case NB_OK: return ORCA_NAV_OK;
    case NB_NO_PATH: return ORCA_NAV_NO_PATH;
    case NB_START_BLOCKED: return ORCA_NAV_START_BLOCKED;
    case NB_GOAL_BLOCKED: return ORCA_NAV_GOAL_BLOCKED;
    default: return -1;
    }
}

typedef struct tally {
    int compared, ok;
    double worst;
} tally;

/* The query once by A* and once by Dijkstra's search: 0 when the two answers are the same
 * bits (result; on a path its length, goal and corners). */
static int same_as_dijkstra(orca_nav *nav, double r, orca_vec2 from, const orca_vec2 *goals,
                            int ng, const char *what, int k)
{
    orca_nav_corner a[64], b[64];
    orca_nav_result ra, rb;
    double la = 0, lb = 0;
    int ga = -1, gb = -1, ca = 0, cb = 0;
    ENSURE(orca_nav_path(nav, r, from, goals, ng, &ra, &la, &ga, a, 64, &ca) == ORCA_OK);
    orca_nav_set_dijkstra(nav, 1);
    orca_status st = orca_nav_path(nav, r, from, goals, ng, &rb, &lb, &gb, b, 64, &cb);
    orca_nav_set_dijkstra(nav, 0);
    ENSURE(st == ORCA_OK);
    ENSURE_MSG(ra == rb, "%s %d: A* %s, Dijkstra %s", what, k, orca_nav_result_name(ra),
               orca_nav_result_name(rb));
    if (ra != ORCA_NAV_OK) {
        return 0;
    }
    ENSURE_MSG(memcmp(&la, &lb, sizeof la) == 0 && ga == gb && ca == cb,
               "%s %d: (%.17g, %.17g) r %g: A* length %.17g goal %d corners %d, Dijkstra %.17g "
               "goal %d corners %d",
               what, k, from.x, from.y, r, la, ga, ca, lb, gb, cb);
    for (int c = 0; c < ca && c < 64; ++c) {
        ENSURE_MSG(memcmp(&a[c].vertex, &b[c].vertex, sizeof a[c].vertex) == 0 &&
                       a[c].side == b[c].side &&
                       memcmp(&a[c].enter, &b[c].enter, sizeof a[c].enter) == 0 &&
                       memcmp(&a[c].leave, &b[c].leave, sizeof a[c].leave) == 0,
                   "%s %d: corner %d differs between A* and Dijkstra", what, k, c);
    }
    return 0;
}

/* One query both ways; 0 when they agree. */
static int compare(orca_nav *nav, const nb_graph *g, double r, double sx, double sy, double gx,
                   double gy, const char *what, int k, tally *t)
{
    nb_path p;
    memset(&p, 0, sizeof p);
    int st = nb_query(g, sx, sy, gx, gy, &p);
    orca_vec2 from = {sx, sy}, goal = {gx, gy};
    orca_nav_result res;
    double len = 0;
    int count = 0;
    ENSURE(orca_nav_path(nav, r, from, &goal, 1, &res, &len, NULL, NULL, 0, &count) == ORCA_OK);
    if (same_as_dijkstra(nav, r, from, &goal, 1, what, k)) {
        return 1;
    }
    ENSURE_MSG((int)res == expected_result(st),
               "%s %d: (%.17g, %.17g) -> (%.17g, %.17g) r %g: library %s, oracle %s", what, k, sx,
               sy, gx, gy, r, orca_nav_result_name(res), nb_status_name(st));
    t->compared++;
    if (st == NB_OK) {
        double e = fabs(len - p.length) / (p.length > 1 ? p.length : 1);
        t->worst = e > t->worst ? e : t->worst;
        ENSURE_MSG(e <= 1e-9, "%s %d: (%.17g, %.17g) -> (%.17g, %.17g) r %g: library %.17g, "
                              "oracle %.17g",
                   what, k, sx, sy, gx, gy, r, len, p.length);
        t->ok++;
    }
    nb_path_free(&p);
    return 0;
}

typedef void scene_fn(ns_scene *);

/* A simulation with the scene's walls and loops, and navigation over it: 1, or 0 with
 * nothing left behind. */
static int scene_nav(const ns_scene *sc, orca_sim **sim, orca_nav **nav)
{
    if (orca_sim_create(NULL, sim) != ORCA_OK) {
        return 0;
    }
    if (ns_add_to_sim(sc, *sim) != ORCA_OK || orca_nav_create(*sim, nav) != ORCA_OK) {
        orca_sim_destroy(*sim);
        *sim = NULL;
        return 0;
    }
    return 1;
}

/* The box of a scene's walls and loops. */
static void scene_box(const ns_scene *sc, double *lo_x, double *lo_y, double *hi_x, double *hi_y)
{
    *lo_x = INFINITY, *lo_y = INFINITY, *hi_x = -INFINITY, *hi_y = -INFINITY;
    for (int k = 0; k < sc->nwalls; ++k) {
        *lo_x = fmin(*lo_x, fmin(sc->walls[k].ax, sc->walls[k].bx));
        *hi_x = fmax(*hi_x, fmax(sc->walls[k].ax, sc->walls[k].bx));
        *lo_y = fmin(*lo_y, fmin(sc->walls[k].ay, sc->walls[k].by));
        *hi_y = fmax(*hi_y, fmax(sc->walls[k].ay, sc->walls[k].by));
    }
    int lp = 0;
    for (int l = 0; l < sc->nloops; ++l) {
        for (int k = 0; k < sc->loop_n[l]; ++k, ++lp) {
            *lo_x = fmin(*lo_x, sc->loop_xy[2 * lp]);
            *hi_x = fmax(*hi_x, sc->loop_xy[2 * lp]);
            *lo_y = fmin(*lo_y, sc->loop_xy[2 * lp + 1]);
            *hi_y = fmax(*hi_y, sc->loop_xy[2 * lp + 1]);
        }
    }
}

static void gap_plus(ns_scene *sc) { ns_gap(1.0 + 1e-9, sc); }
static void gap_minus(ns_scene *sc) { ns_gap(1.0 - 1e-9, sc); }

static scene_fn *const k_scenes[] = {ns_maze, ns_bend, ns_rooms, ns_pillars, gap_plus, gap_minus,
                                     ns_floor};

/* Every scene's pairs, and random points of its box paired up, at its radius and two others. */
static int test_scenes(void)
{
    static ns_scene sc;
    tally t = {0, 0, 0};
    test_rng rng = {2028};
    for (size_t i = 0; i < sizeof k_scenes / sizeof k_scenes[0]; ++i) {
        memset(&sc, 0, sizeof sc);
        k_scenes[i](&sc);
        orca_sim *sim = NULL;
        orca_nav *nav = NULL;
        ENSURE(scene_nav(&sc, &sim, &nav));
        double lo_x, lo_y, hi_x, hi_y;
        scene_box(&sc, &lo_x, &lo_y, &hi_x, &hi_y);
        double radii[3] = {sc.radius, sc.radius * 0.5, sc.radius * 1.37};
        for (int ri = 0; ri < 3; ++ri) {
            double r = radii[ri];
            nb_graph *g = NULL;
            ENSURE(ns_prepare(&sc, r, &g) == NB_OK);
            for (int k = 0; k < sc.npairs; ++k) {
                const ns_pair *q = &sc.pairs[k];
                if (compare(nav, g, r, q->sx, q->sy, q->gx, q->gy, sc.name, k, &t)) {
                    return 1;
                }
            }
            /* random points: those at least r + 1e-6 from every wall (or blocked by more than
             * 1e-6), so that the two tolerances cannot disagree on them */
            int done = 0;
            for (int tries = 0; done < 40 && tries < 4000; ++tries) {
                double sx = test_rng_uniform(&rng, lo_x - 2, hi_x + 2);
                double sy = test_rng_uniform(&rng, lo_y - 2, hi_y + 2);
                double gx = test_rng_uniform(&rng, lo_x - 2, hi_x + 2);
                double gy = test_rng_uniform(&rng, lo_y - 2, hi_y + 2);
                double cs = nb_clearance(g, sx, sy), cg = nb_clearance(g, gx, gy);
                if (fabs(cs - r) < 1e-6 || fabs(cg - r) < 1e-6) {
                    continue;
                }
                if (compare(nav, g, r, sx, sy, gx, gy, sc.name, 100 + done, &t)) {
                    return 1;
                }
                ++done;
            }
            nb_free(g);
        }
        orca_nav_destroy(nav);
        orca_sim_destroy(sim);
    }
    printf("  scenes: %d queries, %d paths, worst relative difference %.3g\n", t.compared, t.ok,
           t.worst);
    return 0;
}

/* Random wall scenes (walls of random length and direction, some of them points, some chained;
 * half inside a room with clockwise holes), random radii, random pairs. */
static int test_random_scenes(void)
{
    static ns_scene sc;
    test_rng rng = {4242};
    const char *env = getenv("NAV_ORACLE_SCENES");
    int nscenes = env ? atoi(env) : 60;
    tally t = {0, 0, 0};
    for (int i = 0; i < nscenes; ++i) {
        memset(&sc, 0, sizeof sc);
        sc.name = "random";
        double r = test_rng_uniform(&rng, 0.15, 0.8);
        if (test_rng_next(&rng) % 2) {
            const double room[] = {0, 0, 20, 0, 20, 20, 0, 20};
            memcpy(sc.loop_xy, room, sizeof room);
            sc.loop_n[sc.nloops++] = 4;
            int holes = (int)(test_rng_next(&rng) % 4);
            for (int h = 0; h < holes; ++h) {
                double cx = 2.0 + 4.0 * h + test_rng_uniform(&rng, 1.5, 2.5);
                double cy = test_rng_uniform(&rng, 3, 17);
                double e = test_rng_uniform(&rng, 0.3, 1.5);
                const double sq[] = {cx - e, cy - e, cx - e, cy + e, cx + e, cy + e, cx + e, cy - e};
                memcpy(sc.loop_xy + 8 * sc.nloops, sq, sizeof sq);
                sc.loop_n[sc.nloops++] = 4;
            }
        }
        int nw = 4 + (int)(test_rng_next(&rng) % 12);
        for (int k = 0; k < nw; ++k) {
            double ax = test_rng_uniform(&rng, 1, 19), ay = test_rng_uniform(&rng, 1, 19);
            double l = test_rng_next(&rng) % 8 == 0 ? 0.0 : test_rng_uniform(&rng, 0.5, 7);
            double a = test_rng_uniform(&rng, 0, 2 * M_PI);
            if (k > 0 && test_rng_next(&rng) % 4 == 0) {
                ax = sc.walls[k - 1].bx;
                ay = sc.walls[k - 1].by;
            }
            sc.walls[sc.nwalls++] = (nb_seg){ax, ay, ax + l * cos(a), ay + l * sin(a)};
        }
        orca_sim *sim = NULL;
        orca_nav *nav = NULL;
        ENSURE(scene_nav(&sc, &sim, &nav));
        nb_graph *g = NULL;
        ENSURE(ns_prepare(&sc, r, &g) == NB_OK);
        int done = 0;
        for (int tries = 0; done < 12 && tries < 2000; ++tries) {
            double sx = test_rng_uniform(&rng, -1, 21), sy = test_rng_uniform(&rng, -1, 21);
            double gx = test_rng_uniform(&rng, -1, 21), gy = test_rng_uniform(&rng, -1, 21);
            double cs = nb_clearance(g, sx, sy), cg = nb_clearance(g, gx, gy);
            if (fabs(cs - r) < 1e-6 || fabs(cg - r) < 1e-6) {
                continue;
            }
            char what[32];
            snprintf(what, sizeof what, "random scene %d", i);
            if (compare(nav, g, r, sx, sy, gx, gy, what, done, &t)) {
                return 1;
            }
            ++done;
        }
        nb_free(g);
        orca_nav_destroy(nav);
        orca_sim_destroy(sim);
    }
    printf("  random: %d scenes, %d queries, %d paths, worst relative difference %.3g\n", nscenes,
           t.compared, t.ok, t.worst);
    return 0;
}

/* The floor plan's four exits as one goal set: the library's nearest exit by path equals the
 * least of the oracle's four lengths. */
static int test_floor_exits(void)
{
    static ns_scene sc;
    ns_floor(&sc);
    ENSURE(sc.npoints == 4);
    orca_sim *sim = NULL;
    orca_nav *nav = NULL;
    ENSURE(scene_nav(&sc, &sim, &nav));
    double r = sc.radius;
    nb_graph *g = NULL;
    ENSURE(ns_prepare(&sc, r, &g) == NB_OK);
    orca_vec2 exits[4];
    for (int e = 0; e < 4; ++e) {
        exits[e].x = sc.points[e].x;
        exits[e].y = sc.points[e].y;
    }
    test_rng rng = {77};
    int done = 0;
    double worst = 0;
    for (int tries = 0; done < 60 && tries < 5000; ++tries) {
        double sx = test_rng_uniform(&rng, 0, 56), sy = test_rng_uniform(&rng, 0, 36);
        if (nb_clearance(g, sx, sy) < r + 1e-6) {
            continue;
        }
        double best = INFINITY;
        int best_e = -1;
        for (int e = 0; e < 4; ++e) {
            nb_path p;
            memset(&p, 0, sizeof p);
            if (nb_query(g, sx, sy, exits[e].x, exits[e].y, &p) == NB_OK && p.length < best) {
                best = p.length;
                best_e = e;
            }
            nb_path_free(&p);
        }
        orca_vec2 from = {sx, sy};
        orca_nav_result res;
        double len = 0;
        int gi = -1;
        ENSURE(orca_nav_path(nav, r, from, exits, 4, &res, &len, &gi, NULL, 0, NULL) == ORCA_OK);
        if (same_as_dijkstra(nav, r, from, exits, 4, "floor exits", done)) {
            return 1;
        }
        if (best_e < 0) {
            ENSURE(res == ORCA_NAV_NO_PATH);
        } else {
            ENSURE_MSG(res == ORCA_NAV_OK, "(%g, %g): %s", sx, sy, orca_nav_result_name(res));
            double e = fabs(len - best) / best;
            worst = e > worst ? e : worst;
            ENSURE_MSG(e <= 1e-9, "(%g, %g): library %.17g (exit %d), oracle %.17g (exit %d)", sx,
                       sy, len, gi, best, best_e);
        }
        ++done;
    }
    printf("  floor: %d starts, worst relative difference %.3g\n", done, worst);
    nb_free(g);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);
    return 0;
}

/* Paths of exactly equal length (mirror-symmetric plans, start and goal on the mirror line;
 * the two ways round have the same bits): A* takes the one Dijkstra's search takes. */
static int test_ties(void)
{
    orca_sim *sim = NULL;
    ENSURE(orca_sim_create(NULL, &sim) == ORCA_OK);
    orca_segment_id id;
    /* a square pillar and a wall across the middle with two equal gaps */
    const double w[][4] = {{-1, -1, 1, -1}, {1, -1, 1, 1}, {1, 1, -1, 1}, {-1, 1, -1, -1},
                           {6, -8, 6, -2},  {6, -1, 6, 1},  {6, 2, 6, 8}};
    for (size_t k = 0; k < sizeof w / sizeof w[0]; ++k) {
        orca_vec2 a = {w[k][0], w[k][1]}, b = {w[k][2], w[k][3]};
        ENSURE(orca_sim_add_segment(sim, a, b, &id) == ORCA_OK);
    }
    orca_nav *nav = NULL;
    ENSURE(orca_nav_create(sim, &nav) == ORCA_OK);
    const double pts[][4] = {{-5, 0, 3, 0}, {3, 0, -5, 0}, {-5, 0, 10, 0}, {10, 0, -5, 0},
                             {4, 0, 8, 0},  {-3, 0, 10, 0}, {8, 0, -3, 0}, {10, 0, 4, 0}};
    int tied = 0;
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; ++k) {
        for (int ri = 0; ri < 3; ++ri) {
            double r = 0.2 + 0.15 * ri;
            orca_vec2 from = {pts[k][0], pts[k][1]}, goal = {pts[k][2], pts[k][3]};
            if (same_as_dijkstra(nav, r, from, &goal, 1, "ties", (int)k)) {
                return 1;
            }
            /* the plan is its own mirror image in y (to the bit: mirrored points give
             * mirrored tangents), so a path whose first corner is off the line y = 0 has a
             * mirror image of the same length: a tie */
            orca_nav_result res;
            orca_nav_corner c[8];
            int n = 0;
            ENSURE(orca_nav_path(nav, r, from, &goal, 1, &res, NULL, NULL, c, 8, &n) == ORCA_OK);
            tied += res == ORCA_NAV_OK && n > 0 && c[0].vertex.y != 0;
        }
    }
    ENSURE_MSG(tied >= 8, "only %d tied queries", tied);
    printf("  ties: %d queries with two shortest paths, A* = Dijkstra\n", tied);
    orca_nav_destroy(nav);
    orca_sim_destroy(sim);
    return 0;
}

/* The scenes of the field tests. */
static scene_fn *const k_field_scenes[] = {ns_floor, ns_rooms, ns_maze, ns_pillars, ns_bend};
enum { FIELD_SCENES = sizeof k_field_scenes / sizeof k_field_scenes[0] };

/* Scene fn's simulation and navigation (one worker, synced) and its box (scene_box): 1, or 0
 * when they could not be made. */
static int field_scene(scene_fn *fn, ns_scene *sc, orca_sim **sim, orca_nav **nav, double *box)
{
    memset(sc, 0, sizeof *sc);
    fn(sc);
    if (!scene_nav(sc, sim, nav) || orca_nav_workers(*nav, 1) != ORCA_OK ||
        orca_nav_sync(*nav) < 0) {
        return 0;
    }
    scene_box(sc, &box[0], &box[1], &box[2], &box[3]);
    return 1;
}

/* nf (at most 16) fields of random goals in the box for radius r, ids base, base + 1, ...:
 * each of one goal, the last of three. 1, or 0 when one could not be prepared. */
static int random_fields(orca_nav *nav, test_rng *rng, const double *box, double r, int64_t base,
                         int nf, int64_t *ids)
{
    orca_vec2 goals[16 + 2];
    if (nf > 16) {
        return 0;
    }
    for (int f = 0; f < nf + 2; ++f) {
        goals[f] = vec(test_rng_uniform(rng, box[0], box[2]), test_rng_uniform(rng, box[1], box[3]));
    }
    for (int f = 0; f < nf; ++f) {
        ids[f] = base + f;
        if (orca_nav_prepare(nav, r, ids[f], &goals[f], f < nf - 1 ? 1 : 3) != ORCA_OK) {
            return 0;
        }
    }
    return 1;
}

/* The exit choice's costs to every point of a set in one pass (orca_nav_field_costs) against
 * one query a point (orca_nav_field_cost, which follows each field as a route does): the same
 * doubles, with and without an avoided wall end, for starts and goals inside and outside the
 * walls' clearance (blocked ones: +inf); one field alone; and with a cap for each field (below, at, one ulp
 * either side of and above its cost, zero, none), each cost below its cap the same double and
 * the others +inf. */
static int test_field_costs(void)
{
    static ns_scene sc;
    test_rng rng = {777};
    int compared = 0, finite = 0, capped_below = 0;
    for (int i = 0; i < FIELD_SCENES; ++i) {
        orca_sim *sim = NULL;
        orca_nav *nav = NULL;
        double box[4];
        ENSURE(field_scene(k_field_scenes[i], &sc, &sim, &nav, box));
        double lo_x = box[0], lo_y = box[1], hi_x = box[2], hi_y = box[3];
        double radii[2] = {sc.radius, sc.radius * 0.6};
        for (int ri = 0; ri < 2; ++ri) {
            double r = radii[ri];
            /* nine fields: eight of one goal each, one of three goals */
            enum { NF = 9 };
            int64_t ids[NF];
            ENSURE(random_fields(nav, &rng, box, r, 100 * ri, NF, ids));
            for (int q = 0; q < 120; ++q) {
                orca_vec2 from = vec(test_rng_uniform(&rng, lo_x - 1, hi_x + 1),
                                     test_rng_uniform(&rng, lo_y - 1, hi_y + 1));
                const orca_vec2 *avoid = NULL;
                orca_vec2 end;
                double penalty = 0.0;
                if (q % 2 && sc.nwalls > 0) { /* a wall's end costs more */
                    const nb_seg *w = &sc.walls[test_rng_next(&rng) % (unsigned)sc.nwalls];
                    end = q % 4 == 1 ? vec(w->ax, w->ay) : vec(w->bx, w->by);
                    avoid = &end;
                    penalty = test_rng_uniform(&rng, 0.5, 12.0);
                }
                double joint[NF], one[NF], cap[NF], capped[NF];
                ENSURE(orca_nav_field_costs(nav, 0, r, from, ids, NF, avoid, penalty, NULL, joint) ==
                       ORCA_OK);
                for (int f = 0; f < NF; ++f) {
                    ENSURE(orca_nav_field_cost(nav, 0, r, from, ids[f], avoid, penalty, &one[f]) ==
                           ORCA_OK);
                    ENSURE_MSG(memcmp(&one[f], &joint[f], sizeof one[f]) == 0,
                               "%s r %g, start (%.17g, %.17g), field %d: one query %.17g, all "
                               "at once %.17g",
                               sc.name, r, from.x, from.y, f, one[f], joint[f]);
                    compared++;
                    finite += one[f] < INFINITY;
                    /* caps below, at and above the cost, one ulp either side of it, none */
                    double c = one[f] < INFINITY ? one[f] : test_rng_uniform(&rng, 0, 100);
                    static const double scale[] = {0.5, 0.9, 1.0, 1.1, 2.0, 0.0};
                    int pick = (int)(test_rng_next(&rng) % 9);
                    cap[f] = pick < 6   ? c * scale[pick]
                             : pick == 6 ? nextafter(c, 0.0)
                             : pick == 7 ? nextafter(c, INFINITY)
                                         : INFINITY;
                }
                /* one field alone: the same double */
                int f1 = (int)(test_rng_next(&rng) % NF);
                double alone = 0.0;
                ENSURE(orca_nav_field_costs(nav, 0, r, from, &ids[f1], 1, avoid, penalty, NULL,
                                            &alone) == ORCA_OK);
                ENSURE_MSG(memcmp(&alone, &one[f1], sizeof alone) == 0,
                           "%s r %g, start (%.17g, %.17g), field %d alone: %.17g, one query %.17g",
                           sc.name, r, from.x, from.y, f1, alone, one[f1]);
                /* with caps: each cost where it is below its cap, else +inf */
                ENSURE(orca_nav_field_costs(nav, 0, r, from, ids, NF, avoid, penalty, cap,
                                            capped) == ORCA_OK);
                for (int f = 0; f < NF; ++f) {
                    double want = one[f] < cap[f] ? one[f] : INFINITY;
                    ENSURE_MSG(memcmp(&want, &capped[f], sizeof want) == 0,
                               "%s r %g, start (%.17g, %.17g), field %d, cap %.17g: cost %.17g, "
                               "with the cap %.17g",
                               sc.name, r, from.x, from.y, f, cap[f], one[f], capped[f]);
                    capped_below += one[f] < cap[f] && one[f] < INFINITY;
                }
            }
        }
        orca_nav_destroy(nav);
        orca_sim_destroy(sim);
    }
    ENSURE_MSG(finite > compared / 3, "only %d of %d costs finite", finite, compared);
    ENSURE_MSG(capped_below > finite / 4 && capped_below < finite, "%d of %d below their caps",
               capped_below, finite);
    printf("  field costs: %d costs, %d of them finite, the same doubles both ways; with caps "
           "%d below theirs, the rest +inf\n",
           compared, finite, capped_below);
    return 0;
}

/* Whether two routes are the same to the bit: result, length, goal and every corner. */
static int same_route(const nav_route *a, const nav_route *b)
{
    if (a->result != b->result || memcmp(&a->length, &b->length, sizeof a->length) != 0 ||
        a->goal != b->goal || a->count != b->count) {
        return 0;
    }
    for (int k = 0; k < a->count; ++k) {
        const orca_nav_corner *x = &a->corners[k], *y = &b->corners[k];
        if (memcmp(&x->vertex, &y->vertex, sizeof x->vertex) != 0 || x->side != y->side ||
            memcmp(&x->enter, &y->enter, sizeof x->enter) != 0 ||
            memcmp(&x->leave, &y->leave, sizeof x->leave) != 0) {
            return 0;
        }
    }
    return 1;
}

/* The shortcuts of a query through a field, against the plain query: a route through a field
 * tried first at given wall ends (orca_nav_route_cost's via: the corners of the route itself,
 * random wall ends, points that are none) is the same route to the bit, and its cost is
 * orca_nav_field_cost's double; the upper bound from given wall ends (orca_nav_field_upper)
 * is at least that cost, and exactly it when they include the route's first corner (or the
 * route is a straight leg). Fields of one and of three goals, with and without an avoided
 * wall end, starts inside and outside the walls' clearance. */
static int test_field_shortcuts(void)
{
    static ns_scene sc;
    test_rng rng = {4242};
    int routes = 0, exact = 0, above = 0, seeded = 0, ends = 0;
    for (int i = 0; i < FIELD_SCENES; ++i) {
        double box[4], r;
        orca_sim *sim = NULL;
        orca_nav *nav = NULL;
        ENSURE(field_scene(k_field_scenes[i], &sc, &sim, &nav, box));
        r = sc.radius;
        enum { NF = 4 };
        int64_t ids[NF];
        ENSURE(random_fields(nav, &rng, box, r, 500, NF, ids));
        nav_route plain, tried;
        memset(&plain, 0, sizeof plain);
        memset(&tried, 0, sizeof tried);
        for (int q = 0; q < 200; ++q) {
            orca_vec2 from = vec(test_rng_uniform(&rng, box[0] - 1, box[2] + 1),
                                 test_rng_uniform(&rng, box[1] - 1, box[3] + 1));
            int f = q % NF;
            const orca_vec2 *avoid = NULL;
            orca_vec2 end;
            double penalty = 0.0;
            if (q % 3 == 1 && sc.nwalls > 0) {
                const nb_seg *w = &sc.walls[test_rng_next(&rng) % (unsigned)sc.nwalls];
                end = q % 2 ? vec(w->ax, w->ay) : vec(w->bx, w->by);
                avoid = &end;
                penalty = test_rng_uniform(&rng, 0.5, 12.0);
            }
            double one = 0.0, cost = 0.0, cost2 = 0.0, upper = 0.0;
            ENSURE(orca_nav_field_cost(nav, 0, r, from, ids[f], avoid, penalty, &one) == ORCA_OK);
            ENSURE(orca_nav_route_cost(nav, 0, r, from, NULL, 0, ids[f], avoid, penalty, NULL, 0,
                                       &plain, &cost) == ORCA_OK);
            ENSURE_MSG(memcmp(&cost, &one, sizeof one) == 0,
                       "%s start (%.17g, %.17g): route's cost %.17g, field cost %.17g", sc.name,
                       from.x, from.y, cost, one);
            /* wall ends to try first: the route's own corners (some), random wall ends, a
             * point that is none */
            orca_vec2 via[4];
            int nvia = 0, first = 0;
            if (plain.result == ORCA_NAV_OK && plain.count > 0 && q % 4 != 3) {
                via[nvia++] = plain.corners[q % 5 == 0 && plain.count > 1 ? 1 : 0].vertex;
                first = memcmp(&via[0], &plain.corners[0].vertex, sizeof via[0]) == 0;
            }
            for (int k = 0; k < 2 && sc.nwalls > 0; ++k) {
                const nb_seg *w = &sc.walls[test_rng_next(&rng) % (unsigned)sc.nwalls];
                via[nvia++] = k ? vec(w->ax, w->ay) : vec(w->bx, w->by);
            }
            via[nvia++] = from;
            ENSURE(orca_nav_route_cost(nav, 0, r, from, NULL, 0, ids[f], avoid, penalty, via,
                                       nvia, &tried, &cost2) == ORCA_OK);
            ENSURE_MSG(same_route(&plain, &tried) && memcmp(&cost2, &one, sizeof one) == 0,
                       "%s start (%.17g, %.17g), field %d: the route differs when wall ends are "
                       "tried first (cost %.17g, %.17g)",
                       sc.name, from.x, from.y, f, one, cost2);
            /* every wall end alone, each a start that may give a loose best cost first */
            for (int k = 0; q % 8 == 0 && k < 2 * sc.nwalls; ++k) {
                const nb_seg *w = &sc.walls[k / 2];
                orca_vec2 one_end = k % 2 ? vec(w->bx, w->by) : vec(w->ax, w->ay);
                ENSURE(orca_nav_route_cost(nav, 0, r, from, NULL, 0, ids[f], avoid, penalty,
                                           &one_end, 1, &tried, &cost2) == ORCA_OK);
                ENSURE_MSG(same_route(&plain, &tried) && memcmp(&cost2, &one, sizeof one) == 0,
                           "%s start (%.17g, %.17g), field %d: the route differs when wall end "
                           "(%.17g, %.17g) is tried first (cost %.17g, %.17g)",
                           sc.name, from.x, from.y, f, one_end.x, one_end.y, one, cost2);
                ends++;
            }
            ENSURE(orca_nav_field_upper(nav, 0, r, from, ids[f], avoid, penalty, via, nvia,
                                        &upper) == ORCA_OK);
            ENSURE_MSG(upper >= one,
                       "%s start (%.17g, %.17g), field %d: upper bound %.17g below the cost "
                       "%.17g",
                       sc.name, from.x, from.y, f, upper, one);
            if (plain.result == ORCA_NAV_OK && (plain.count == 0 || first)) {
                ENSURE_MSG(memcmp(&upper, &one, sizeof one) == 0,
                           "%s start (%.17g, %.17g), field %d: upper bound %.17g through the "
                           "first corner, the cost %.17g",
                           sc.name, from.x, from.y, f, upper, one);
                exact++;
            } else if (upper > one && upper < INFINITY) {
                above++;
            }
            seeded += first;
            routes++;
        }
        orca_nav_route_free(&plain);
        orca_nav_route_free(&tried);
        orca_nav_destroy(nav);
        orca_sim_destroy(sim);
    }
    ENSURE_MSG(exact > routes / 4 && above > 0 && seeded > routes / 8,
               "%d routes: %d upper bounds exact, %d above the cost, %d seeded with the first "
               "corner", routes, exact, above, seeded);
    printf("  field shortcuts: %d routes (and %d with one wall end) the same with wall ends "
           "tried first; upper bounds %d exact, %d above the cost\n",
           routes, ends, exact, above);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"field_costs", test_field_costs},
    {"field_shortcuts", test_field_shortcuts},
    {"ties", test_ties},
    {"scenes", test_scenes},
    {"random_scenes", test_random_scenes},
    {"floor_exits", test_floor_exits},
    {0, 0},
};
