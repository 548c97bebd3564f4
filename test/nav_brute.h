/* SPDX-License-Identifier: MIT */
/* nav_brute: an independent brute-force oracle for shortest paths of a disc among walls, for
 * the navigation tests (issue 28). Test code: clarity over speed, libm allowed, written from
 * the geometry alone (not from the library's navigation code).
 *
 * The problem it solves exactly (up to the tolerance below):
 * - Obstacles: segments, the walls and every edge of every walkable-area loop together. A
 *   zero-length segment (a == b) is a point obstacle, as in orca_sim_add_segment.
 * - Free space for radius r: the points at distance >= r from every obstacle segment (closed:
 *   distance exactly r is free).
 * - Walkable area: with loops, the points where the winding number of all loops is >= 1
 *   (+1 inside a counter-clockwise loop, -1 inside a clockwise one) and that lie on no edge
 *   (docs/extensions.md, "Walkable-area boundaries"); without loops, the whole plane. Only
 *   the start and the goal are tested: a free curve never crosses an edge, so it stays in the
 *   region where it starts.
 * - The answer: the length of the shortest curve from start to goal inside the free space,
 *   and that curve, made of straight segments and circular arcs of radius r around obstacle
 *   vertices (segment ends and loop points).
 *
 * Method: a tangent visibility graph. Nodes: the start, the goal, and points on the circles of
 * radius r around the (deduplicated) obstacle vertices: the ends of every common tangent of two
 * circles (two outer, two inner) and of the two tangents from the start and from the goal to
 * each circle. Edges: every such tangent segment, and the straight start-goal segment, whose
 * distance to every obstacle segment is >= r - tol; and, on each circle, the arc between each
 * two angularly adjacent nodes (both ways) when every point of the arc is at distance
 * >= r - tol from every obstacle segment, decided exactly (nav_brute.c, dist_arc_seg). Dijkstra
 * then gives the shortest path. Every graph path is a curve in the (tolerant) free space, and
 * the true shortest path is one of them, so the two lengths agree.
 *
 * Tolerance: tol = 1e-12 * (r + M), M the largest coordinate magnitude of the obstacles. A
 * point, segment or arc counts as free when its distance to every obstacle is >= r - tol. For
 * coordinates up to 100 m and r up to 10 m, tol <= 1.1e-10: far above the rounding of the
 * construction (about 1e-14 there) and far below 5e-10, so a gap 2r + 1e-9 wide is passable
 * and one 2r - 1e-9 wide is not. A radius r <= 1000 tol (about r <= 1e-9 M) is refused: the
 * tolerance would no longer be negligible.
 *
 * Cost: nb_prepare O(V^2 S) for V vertices and S segments (the floor plan of nav_scenes.h, 82
 * vertices and 49 walls: about 30 ms); nb_query O(V S) for the tangents of the start and the
 * goal and the arcs they split, then Dijkstra over the graph's nodes (about 1 ms there). */
#ifndef ORCA_TEST_NAV_BRUTE_H
#define ORCA_TEST_NAV_BRUTE_H

/** Statuses of nb_query and nb_shortest. */
enum {
    NB_OK = 0,            /**< a path: length and points */
    NB_NO_PATH = 1,       /**< start and goal are free but not connected in the free space */
    NB_START_BLOCKED = 2, /**< the start is not free, or outside the walkable area */
    NB_GOAL_BLOCKED = 3,  /**< the goal is not free, or outside the walkable area */
    NB_BAD_INPUT = 4,     /**< a non-finite value, r <= 0 (or r <= 1000 tol), a loop of fewer
                               than 3 points, a negative count, a NULL array with a positive
                               count (zero-length walls and loop edges are accepted: points) */
    NB_NO_MEMORY = 5      /**< malloc failed */
};

/** A wall segment from (ax, ay) to (bx, by); a == b is a point obstacle. */
typedef struct nb_seg {
    double ax, ay, bx, by;
} nb_seg;

/** Leg k of a path joins point k to point k + 1: a straight segment (arc 0) or an arc of the
 * circle of radius r around (cx, cy), counter-clockwise (arc +1) or clockwise (arc -1). */
typedef struct nb_leg {
    int arc;
    double cx, cy;
    double length;
} nb_leg;

/** A query's answer. On NB_OK: n >= 1 points (the start first, the goal last; n = 1 when they
 * are equal), n - 1 legs, arcs = the number of legs that are arcs. Consecutive arcs around one
 * vertex in one direction are merged into one leg, so are straight legs in line, and legs no
 * longer than the tolerance are left out. */
typedef struct nb_path {
    int status;
    double length;
    int n;
    double *xy; /* 2 n values: x0, y0, x1, y1, ... */
    nb_leg *legs; /* n - 1 legs */
    int arcs;
} nb_path;

/** The graph of one set of obstacles and one radius, for many queries. */
typedef struct nb_graph nb_graph;

/** Builds the graph. loop_xy holds the points of all loops one after another (x, y pairs),
 * loop_n[k] the point count of loop k (each >= 3; loop k's edges join each point to the next
 * and the last to the first). Returns NB_OK (and *out), NB_BAD_INPUT or NB_NO_MEMORY (*out
 * NULL). walls, loop_xy and loop_n may be NULL when their counts are 0. */
int nb_prepare(const nb_seg *walls, int nwalls, const double *loop_xy, const int *loop_n,
               int nloops, double r, nb_graph **out);
void nb_free(nb_graph *g);

/** The shortest path from (sx, sy) to (gx, gy). Fills *out (free it with nb_path_free; on any
 * status but NB_OK it holds no points) and returns out->status. */
int nb_query(const nb_graph *g, double sx, double sy, double gx, double gy, nb_path *out);
void nb_path_free(nb_path *p);

/** The lengths of the shortest paths from n points (xy: x, y pairs) to each of ngoals goals
 * (goal_xy: x, y pairs), at once: one Dijkstra from each goal, then O(V S) per point for its
 * tangents and O(V) per point and goal. dist[k * ngoals + e] is the length from point k to
 * goal e, INFINITY when they are not connected, NAN when point k is not free (or not finite).
 * Returns NB_OK, NB_GOAL_BLOCKED (some goal is not free), NB_BAD_INPUT or NB_NO_MEMORY (dist
 * then unchanged). The same lengths as nb_query's up to rounding (about 1e-15 relative). The
 * nearest of several exits for many agents: floor plan, 4 exits, 2,000 points, about 0.5 s. */
int nb_distances(const nb_graph *g, int ngoals, const double *goal_xy, int n, const double *xy,
                 double *dist);

/** For checking positions (agents, paths of the library): the smallest distance from (x, y)
 * to an obstacle segment (INFINITY without any), and whether (x, y) is in the walkable area
 * (the winding rule above; always without loops; a point on an edge may count either way:
 * test the clearance too). A point is free when nb_clearance >= r - nb_tolerance and
 * nb_walkable. */
double nb_clearance(const nb_graph *g, double x, double y);
int nb_walkable(const nb_graph *g, double x, double y);

/** The tolerance of the graph (see above) and counts for reports. */
double nb_tolerance(const nb_graph *g);
int nb_vertex_count(const nb_graph *g);
int nb_node_count(const nb_graph *g);
int nb_edge_count(const nb_graph *g);

/** One query without keeping the graph: the status; *length (on NB_OK); the path's points
 * into path_xy (x, y pairs), at most path_cap of them, with *path_n the full count (the legs
 * between them as in nb_path: straight or arcs around obstacle vertices); *arcs the number
 * of arc legs. Any output pointer may be NULL (path_xy when path_cap is 0). */
int nb_shortest(const nb_seg *walls, int nwalls, const double *loop_xy, const int *loop_n,
                int nloops, double r, double sx, double sy, double gx, double gy,
                double *length, double *path_xy, int path_cap, int *path_n, int *arcs);

/** The status's name ("NB_OK", ...). */
const char *nb_status_name(int status);

#endif
