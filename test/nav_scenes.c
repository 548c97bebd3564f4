/* SPDX-License-Identifier: MIT */
/* nav_scenes: the navigation tests' floor plans (nav_scenes.h). */
#include "nav_scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void full(const char *what)
{
    fprintf(stderr, "nav_scenes: too many %s (raise NS_MAX_*)\n", what);
    abort();
}

static void start(ns_scene *sc, const char *name, double radius)
{
    memset(sc, 0, sizeof *sc);
    sc->name = name;
    sc->radius = radius;
}

static void wall(ns_scene *sc, double ax, double ay, double bx, double by)
{
    if (sc->nwalls >= NS_MAX_WALLS)
        full("walls");
    sc->walls[sc->nwalls++] = (nb_seg){ax, ay, bx, by};
}

/* A loop of n points from xy (x, y pairs). */
static void loop(ns_scene *sc, int n, const double *xy)
{
    int used = 0;
    for (int l = 0; l < sc->nloops; l++)
        used += sc->loop_n[l];
    if (sc->nloops >= NS_MAX_LOOPS || used + n > NS_MAX_LOOP_POINTS)
        full("loops");
    memcpy(sc->loop_xy + 2 * used, xy, (size_t)(2 * n) * sizeof(double));
    sc->loop_n[sc->nloops++] = n;
}

/* A counter-clockwise rectangle (walkable inside). */
static void room_loop(ns_scene *sc, double x0, double y0, double x1, double y1)
{
    const double xy[8] = {x0, y0, x1, y0, x1, y1, x0, y1};
    loop(sc, 4, xy);
}

/* A clockwise square of half-side h around (cx, cy) (walkable outside). */
static void pillar_loop(ns_scene *sc, double cx, double cy, double h)
{
    const double xy[8] = {cx - h, cy - h, cx - h, cy + h, cx + h, cy + h, cx + h, cy - h};
    loop(sc, 4, xy);
}

static void pair(ns_scene *sc, double sx, double sy, double gx, double gy, int expect)
{
    if (sc->npairs >= NS_MAX_PAIRS)
        full("pairs");
    sc->pairs[sc->npairs++] = (ns_pair){sx, sy, gx, gy, expect};
}

static void point(ns_scene *sc, const char *name, double x, double y)
{
    if (sc->npoints >= NS_MAX_POINTS)
        full("points");
    sc->points[sc->npoints++] = (ns_point){name, x, y};
}

void ns_maze(ns_scene *sc)
{
    start(sc, "maze", 0.3);
    room_loop(sc, 0, 0, 10, 10);
    /* a serpentine: rows 2 m high joined at alternate ends */
    wall(sc, 0, 2, 8, 2);
    wall(sc, 2, 4, 10, 4);
    wall(sc, 0, 6, 8, 6);
    wall(sc, 2, 8, 10, 8);
    /* teeth into the rows, leaving 0.8 m beside each */
    wall(sc, 5, 0, 5, 1.2);
    wall(sc, 3, 2.8, 3, 4);
    wall(sc, 6, 6, 6, 7.2);
    wall(sc, 4, 8.8, 4, 10);
    pair(sc, 1, 1, 1, 9, NB_OK);
    pair(sc, 9, 1, 9, 9, NB_OK);
    pair(sc, 1, 1, 9, 5, NB_OK);
    pair(sc, 5, 3, 5, 7, NB_OK);
    pair(sc, 9, 9, 1, 1, NB_OK);
    pair(sc, 1, 1, 7, 1, NB_OK);
}

void ns_bend(ns_scene *sc)
{
    start(sc, "bend", 0.4);
    const double xy[12] = {0, 0, 20, 0, 20, 20, 16, 20, 16, 4, 0, 4};
    loop(sc, 6, xy);
    pair(sc, 2, 2, 18, 18, NB_OK);
    pair(sc, 1.5, 1.2, 17.2, 18.5, NB_OK);
    pair(sc, 18, 10, 3, 3, NB_OK);
    pair(sc, 2, 2, 12, 3, NB_OK);
    pair(sc, 18.8, 18.5, 1.5, 2.8, NB_OK);
    pair(sc, 2, 2, 10, 10, NB_GOAL_BLOCKED); /* outside the L */
    pair(sc, 2, 0.2, 18, 18, NB_START_BLOCKED); /* 0.2 from the wall */
}

void ns_rooms(ns_scene *sc)
{
    start(sc, "rooms", 0.3);
    room_loop(sc, 0, 0, 20, 12);
    /* west room | doors at y 2.4-3.6 (to the south-east room) and 9-10.2 (north-east) */
    wall(sc, 8, 0, 8, 2.4);
    wall(sc, 8, 3.6, 8, 9);
    wall(sc, 8, 10.2, 8, 12);
    /* south-east / north-east rooms, door at x 16-17.2 */
    wall(sc, 8, 6, 16, 6);
    wall(sc, 17.2, 6, 20, 6);
    /* a closet without a door in the north-east corner */
    wall(sc, 17, 9, 17, 12);
    wall(sc, 17, 9, 20, 9);
    pair(sc, 2, 2, 18, 2, NB_OK);
    pair(sc, 2, 2, 12, 10, NB_OK);
    pair(sc, 12, 2, 12, 10, NB_OK);
    pair(sc, 18, 4, 4, 11, NB_OK);
    pair(sc, 4, 10, 18.5, 10.5, NB_NO_PATH); /* into the closet */
    pair(sc, 18.5, 10.5, 19, 11.5, NB_OK);   /* within the closet */
}

void ns_pillars(ns_scene *sc)
{
    start(sc, "pillars", 0.4);
    room_loop(sc, 0, 0, 30, 20);
    for (int j = 1; j <= 3; j++)
        for (int i = 1; i <= 4; i++)
            pillar_loop(sc, 6.0 * i, 5.0 * j, 0.5);
    const double tri[6] = {14, 1.5, 15, 3.2, 16, 1.5}; /* clockwise */
    loop(sc, 3, tri);
    pair(sc, 1, 1, 29, 19, NB_OK);
    pair(sc, 1, 10, 29, 10, NB_OK);
    pair(sc, 15, 0.8, 15, 19, NB_OK);
    pair(sc, 3, 17, 27, 3, NB_OK);
    pair(sc, 6, 2, 12, 18, NB_OK);
    pair(sc, 6, 5, 20, 10, NB_START_BLOCKED); /* inside a pillar */
}

void ns_gap(double width, ns_scene *sc)
{
    start(sc, "gap", 0.5);
    room_loop(sc, 0, 0, 20, 10);
    wall(sc, 10, 0, 10, 5 - 0.5 * width);
    wall(sc, 10, 5 + 0.5 * width, 10, 10);
    int e = width >= 2 * sc->radius ? NB_OK : NB_NO_PATH;
    pair(sc, 5, 5, 15, 5, e);
    pair(sc, 5, 2, 15, 8, e);
    pair(sc, 2, 8, 18, 2, e);
    pair(sc, 9, 5, 11, 5, e);
    pair(sc, 5, 5, 2, 8, NB_OK); /* the same room */
}

/* examples/floor.txt, segment for segment (test_nav_brute checks the file against this). */
static const nb_seg floor_walls[] = {
    /* outer walls, exits 2 m wide at both ends of both corridors */
    {0, 0, 56, 0},
    {56, 0, 56, 10.5},
    {56, 12.5, 56, 23.5},
    {56, 25.5, 56, 36},
    {56, 36, 0, 36},
    {0, 36, 0, 25.5},
    {0, 23.5, 0, 12.5},
    {0, 10.5, 0, 0},
    /* stubs 1.5 m outside each exit */
    {0, 10.5, -1.5, 10.5},
    {0, 12.5, -1.5, 12.5},
    {0, 23.5, -1.5, 23.5},
    {0, 25.5, -1.5, 25.5},
    {56, 10.5, 57.5, 10.5},
    {56, 12.5, 57.5, 12.5},
    {56, 23.5, 57.5, 23.5},
    {56, 25.5, 57.5, 25.5},
    /* south rooms' north wall (y 10), doors 1.2, 1.4, 1.6, 1.0 m */
    {0, 10, 6.4, 10},
    {7.6, 10, 20.3, 10},
    {21.7, 10, 34.2, 10},
    {35.8, 10, 48.5, 10},
    {49.5, 10, 56, 10},
    /* south rooms' dividers; a door between S1 and S2 */
    {14, 0, 14, 4},
    {14, 5.2, 14, 10},
    {28, 0, 28, 10},
    {42, 0, 42, 10},
    /* halls' south wall (y 13): doors 1.5 m, the cross corridor x 27-29 */
    {0, 13, 8, 13},
    {9.5, 13, 19, 13},
    {20.5, 13, 27, 13},
    {29, 13, 35.5, 13},
    {37, 13, 46.5, 13},
    {48, 13, 56, 13},
    /* the cross corridor; a door into the west hall */
    {27, 13, 27, 17.4},
    {27, 18.6, 27, 23},
    {29, 13, 29, 23},
    /* halls' north wall (y 23) */
    {0, 23, 5, 23},
    {6.5, 23, 21, 23},
    {22.5, 23, 27, 23},
    {29, 23, 33.5, 23},
    {35, 23, 49.5, 23},
    {51, 23, 56, 23},
    /* north rooms' south wall (y 26), doors 1.2, 1.4, 1.6, 1.0 m */
    {0, 26, 3, 26},
    {4.2, 26, 23.6, 26},
    {25, 26, 30, 26},
    {31.6, 26, 51, 26},
    {52, 26, 56, 26},
    /* north rooms' dividers; a door between N3 and N4 */
    {14, 26, 14, 36},
    {28, 26, 28, 36},
    {42, 26, 42, 31},
    {42, 32.2, 42, 36},
};

void ns_floor(ns_scene *sc)
{
    start(sc, "floor", 0.3);
    for (size_t k = 0; k < sizeof floor_walls / sizeof floor_walls[0]; k++)
        wall(sc, floor_walls[k].ax, floor_walls[k].ay, floor_walls[k].bx, floor_walls[k].by);
    point(sc, "west_south", -1, 11.5);
    point(sc, "west_north", -1, 24.5);
    point(sc, "east_south", 57, 11.5);
    point(sc, "east_north", 57, 24.5);
    pair(sc, 7, 5, -1, 11.5, NB_OK);        /* room S1 to the west-south exit */
    pair(sc, 35, 31, 57, 24.5, NB_OK);      /* room N3 to the east-north exit */
    pair(sc, 13.5, 18, 57, 11.5, NB_OK);    /* west hall to the east-south exit */
    pair(sc, 21, 5, 49, 31, NB_OK);         /* room S2 to room N4 */
    pair(sc, 49, 5, -1, 24.5, NB_OK);       /* room S4 to the west-north exit */
    pair(sc, 7, 31, 35, 5, NB_OK);          /* room N1 to room S3 */
    pair(sc, 42.5, 18, 13.5, 18, NB_OK);    /* east hall to west hall */
    pair(sc, 28, 18, 21, 31, NB_OK);        /* cross corridor to room N2 */
    pair(sc, -1, 11.5, 57, 24.5, NB_OK);    /* exit to exit */
    pair(sc, 7, 5, 7, 5.2, NB_OK);
}

orca_status ns_add_to_sim(const ns_scene *sc, orca_sim *sim)
{
    for (int k = 0; k < sc->nwalls; k++) {
        const nb_seg *w = &sc->walls[k];
        orca_status st = orca_sim_add_segment(sim, (orca_vec2){w->ax, w->ay},
                                              (orca_vec2){w->bx, w->by}, NULL);
        if (st != ORCA_OK)
            return st;
    }
    int base = 0;
    for (int l = 0; l < sc->nloops; l++) {
        orca_vec2 p[NS_MAX_LOOP_POINTS];
        for (int k = 0; k < sc->loop_n[l]; k++)
            p[k] = (orca_vec2){sc->loop_xy[2 * (base + k)], sc->loop_xy[2 * (base + k) + 1]};
        orca_status st = orca_sim_add_boundary(sim, p, sc->loop_n[l], NULL);
        if (st != ORCA_OK)
            return st;
        base += sc->loop_n[l];
    }
    return ORCA_OK;
}

int ns_prepare(const ns_scene *sc, double r, nb_graph **out)
{
    return nb_prepare(sc->walls, sc->nwalls, sc->loop_xy, sc->loop_n, sc->nloops, r, out);
}
