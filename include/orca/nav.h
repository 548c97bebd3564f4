/* SPDX-License-Identifier: MIT */
/* orca navigation: shortest paths through the walls of a simulation (its segments and
 * walkable-area loops) for a disc of a given radius, which keeps that radius of clearance from
 * every wall. The method and its arithmetic, operation by operation, are in
 * docs/navigation.md: an exact tangent visibility graph, straight legs and arcs around wall
 * ends, binary64 and sqrt only, every order an index order; the same bits everywhere.
 * Scenarios use it for their agents (orca/scenario.h: orca_scenario_set_navigation); this
 * header is the path query itself, for programs that steer their own agents. */
#ifndef ORCA_NAV_H
#define ORCA_NAV_H

#include "orca/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a path query found. */
typedef enum orca_nav_result {
    ORCA_NAV_OK = 0,            /**< a path (possibly a straight line: no corners) */
    ORCA_NAV_NO_PATH = 1,       /**< start and goal are free but not connected */
    ORCA_NAV_START_BLOCKED = 2, /**< the start is closer than the radius to a wall, or outside
                                     every walkable-area loop (when loops exist) */
    ORCA_NAV_GOAL_BLOCKED = 3   /**< every goal is: closer than the radius to a wall, or
                                     outside the walkable area */
} orca_nav_result;

/** The name of a result ("ORCA_NAV_NO_PATH"), or "unknown result". */
ORCA_API const char *orca_nav_result_name(int result);

/** A corner of a path: the path meets the circle of the query's radius around a wall end
 * (`vertex`) at `enter`, follows it to `leave` (counter-clockwise when side is +1, the vertex
 * on the walker's left; clockwise when -1), then goes straight on. */
typedef struct orca_nav_corner {
    orca_vec2 vertex;
    int side;
    orca_vec2 enter, leave;
} orca_nav_corner;

typedef struct orca_nav orca_nav;

/** A navigation object over the walls of sim (not owned; it must outlive the object). The
 * walls are read at each query; when they changed since the last one the object rebuilds what
 * it keeps (docs/navigation.md, "Changes"). */
ORCA_API orca_status orca_nav_create(const orca_sim *sim, orca_nav **out);
ORCA_API void orca_nav_destroy(orca_nav *nav);
/** The message of the last refused call on nav ("" when none). */
ORCA_API const char *orca_nav_last_error(const orca_nav *nav);

/** The shortest path of a disc of `radius` (in [2^-20, 2^20] m) from `from` to the nearest of
 * goals[0 .. goal_count-1] (1 <= goal_count <= ORCA_NAV_GOALS_MAX; coordinates finite, of
 * magnitude below 2^21), keeping at least `radius` from every wall (docs/navigation.md).
 * Sets *result; when ORCA_NAV_OK also *length (m), *goal_index (the goal reached; ties go to
 * the lower index) and *count, the number of corners, writing the first min(count, capacity)
 * of them to corners (which may be NULL when capacity is 0). Each output pointer but result
 * may be NULL. Refusals (ORCA_ERR_ARGUMENT naming the value, ORCA_ERR_NULL, ORCA_ERR_MEMORY)
 * change nothing. */
#define ORCA_NAV_GOALS_MAX 65536
ORCA_API orca_status orca_nav_path(orca_nav *nav, double radius, orca_vec2 from,
                                   const orca_vec2 *goals, int goal_count,
                                   orca_nav_result *result, double *length, int *goal_index,
                                   orca_nav_corner *corners, int capacity, int *count);

/** Line of sight (docs/navigation.md, "Visibility"): *visible = 1 when every wall (segment or
 * walkable-area loop edge) is farther than `radius` from the segment a-b, i.e. its squared
 * distance to the segment (docs/navigation.md, "The walls": 0 when they cross) is greater
 * than radius * radius; else 0. So at radius 0 a wall that crosses or touches the segment
 * blocks it. Walls are two-sided; whether a or b lies inside the walkable area is not asked.
 * radius in [0, 2^20] m; a and b finite with magnitude below 2^21. Refusals (ORCA_ERR_ARGUMENT
 * naming the value, ORCA_ERR_NULL, ORCA_ERR_MEMORY) leave *visible untouched. Linear in the
 * number of walls; builds no graph. */
ORCA_API orca_status orca_nav_visible(orca_nav *nav, double radius, orca_vec2 a, orca_vec2 b,
                                      int *visible);

/** Statistics of the structure kept for a radius (built if needed): the wall ends used as
 * corners, the tangent legs between them and the bytes held. */
typedef struct orca_nav_stats {
    int walls;
    int vertices;
    int legs;
    size_t bytes;
} orca_nav_stats;
ORCA_API orca_status orca_nav_stats_get(orca_nav *nav, double radius, orca_nav_stats *out);

/** The angle of (x, y) in [0, 2*pi), with only + - * / and sqrt-free series (no libm): the
 * same bits everywhere (docs/navigation.md, "Angles"). (0, 0) gives 0. */
ORCA_API double orca_nav_angle(double y, double x);

#ifdef __cplusplus
}
#endif
#endif
