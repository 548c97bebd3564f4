/* SPDX-License-Identifier: MIT */
/* nav_scenes: the floor plans of the navigation tests (issue 28) as plain data, for the
 * brute-force oracle (nav_brute.h) and for an orca_sim (ns_add_to_sim). Each scene has wall
 * segments, walkable-area loops (counter-clockwise outer loops, clockwise holes: the layout
 * of nav_brute's nb_prepare), a suggested agent radius and start/goal pairs with the status
 * the oracle gives them at that radius. Coordinates in metres. */
#ifndef ORCA_TEST_NAV_SCENES_H
#define ORCA_TEST_NAV_SCENES_H

#include "nav_brute.h"
#include "orca/sim.h"

#define NS_MAX_WALLS 128
#define NS_MAX_LOOPS 16
#define NS_MAX_LOOP_POINTS 128 /* over all loops */
#define NS_MAX_PAIRS 12
#define NS_MAX_POINTS 8

/** A query: from (sx, sy) to (gx, gy); expect is the nav_brute status at the scene's radius. */
typedef struct ns_pair {
    double sx, sy, gx, gy;
    int expect;
} ns_pair;

/** A named point of a scene (the exits of ns_floor). */
typedef struct ns_point {
    const char *name;
    double x, y;
} ns_point;

typedef struct ns_scene {
    const char *name;
    double radius;
    int nwalls;
    nb_seg walls[NS_MAX_WALLS];
    int nloops;
    int loop_n[NS_MAX_LOOPS];
    double loop_xy[2 * NS_MAX_LOOP_POINTS]; /* the loops' points one loop after another */
    int npairs;
    ns_pair pairs[NS_MAX_PAIRS];
    int npoints;
    ns_point points[NS_MAX_POINTS];
} ns_scene;

/** A 10 x 10 m maze of 2 m corridors in a counter-clockwise loop: a serpentine with teeth,
 * paths of many turns. Radius 0.3. */
void ns_maze(ns_scene *sc);
/** The L-shaped corridor of examples/bend.txt (4 m wide; the inner corner (16, 4) is reflex).
 * Radius 0.4. */
void ns_bend(ns_scene *sc);
/** A 20 x 12 m loop split by walls into three rooms joined by 1.2 m doors, and a 3 x 3 m
 * closet without a door. Radius 0.3. */
void ns_rooms(ns_scene *sc);
/** A 30 x 20 m hall (counter-clockwise loop) with twelve 1 x 1 m square pillars and a
 * triangular one (clockwise loops). Radius 0.4. */
void ns_pillars(ns_scene *sc);
/** Two 10 x 10 m rooms in one loop, joined by one gap of the given width in the wall x = 10
 * between them, centred at y = 5. Radius 0.5: a width of 2r + 1e-9 is passable (pairs expect
 * NB_OK), 2r - 1e-9 is not (NB_NO_PATH); the expectations say width >= 2 * radius. */
void ns_gap(double width, ns_scene *sc);
/** The floor plan of examples/floor.txt (the same segments in the same order; its four exits
 * are the scene's points). Radius 0.3. */
void ns_floor(ns_scene *sc);

/** Adds the scene's walls (orca_sim_add_segment, in order) and then its loops
 * (orca_sim_add_boundary, in order) to sim. Returns the first refusal's status, or ORCA_OK. */
orca_status ns_add_to_sim(const ns_scene *sc, orca_sim *sim);

/** nb_prepare with the scene's walls and loops, at radius r. */
int ns_prepare(const ns_scene *sc, double r, nb_graph **out);

#endif
