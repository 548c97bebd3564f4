/* SPDX-License-Identifier: MIT */
/* Private: what the scenario layer uses of the navigation (nav.c; docs/navigation.md). */
#ifndef ORCA_NAV_INTERNAL_H
#define ORCA_NAV_INTERNAL_H

#include "orca/nav.h"

#include <stdint.h>

/* A path as the scenario keeps it: the corners, in order, then goals[goal]. */
typedef struct nav_route {
    int result;   /* orca_nav_result */
    double length;
    int goal;
    int count;
    int cap;
    orca_nav_corner *corners;
} nav_route;

void orca_nav_route_free(nav_route *r);

/* Compares the simulation's walls with those the structures were built from; when they differ
 * drops every structure (rebuilt at the next query). 1: they changed, 0: the same, -1: out of
 * memory (nothing changed). */
int orca_nav_sync(orca_nav *nav);
/* orca_nav_sync with the walls of another simulation s (a staged snapshot's, which becomes
 * the nav's own simulation's state afterwards: orca_scenario_load). */
int orca_nav_sync_to(orca_nav *nav, const orca_sim *s);
/* Room for s's walls in the nav's copy of the walls it read, so that the next orca_nav_sync_to
 * (nav, s) cannot run out of memory; only the room changes (1), or nothing (0: out of
 * memory). orca on MPI asks before a pass whose gathering every rank must reach. */
int orca_nav_reserve_walls(orca_nav *nav, const orca_sim *s);
/* 1 when the structures were built from exactly s's walls (orca_nav_sync would return 0);
 * changes nothing. */
int orca_nav_same_walls(const orca_nav *nav, const orca_sim *s);
/* The nav reads its walls (orca_nav_sync) and runs its tasks on sim from now on; its
 * structures stay, and are dropped by the next orca_nav_sync only if sim's walls differ from
 * those they were built from (orca on MPI rebuilds its local simulation with the same walls). */
void orca_nav_rebind(orca_nav *nav, const orca_sim *sim);

/* Scratch for `count` threads of queries (worker indices 0 .. count-1): called before
 * queries run on the simulation's workers (it may move the scratch). ORCA_ERR_MEMORY leaves
 * the count it had. */
orca_status orca_nav_workers(orca_nav *nav, int count);

/* Builds what queries of `radius` need (the graph, its legs found on the simulation's
 * workers) and, with field >= 0 (an id the caller chooses), the distances of a set of goals (docs/navigation.md,
 * "Shared goals"): the same goals must come with the same field every time until the walls
 * change. On the walls of the last orca_nav_sync; on the calling thread, between steps (not
 * from a task). ORCA_OK or ORCA_ERR_MEMORY. */
orca_status orca_nav_prepare(orca_nav *nav, double radius, int64_t field,
                             const orca_vec2 *goals, int goal_count);

/* The path of orca_nav_path into *out (its corners array grown as needed), as worker `worker`
 * (its own scratch: queries of distinct workers may run at once), on what orca_nav_prepare
 * built (ORCA_ERR_ARGUMENT when it did not: this builds nothing). field >= 0 follows that goal
 * set's distances. avoid: NULL, or a wall end whose corners cost `penalty` metres more
 * (re-routing): in the whole search for a query without a field, at the first corner with one
 * (the rest follows the set's distances). The caller validated every value. ORCA_OK or
 * ORCA_ERR_MEMORY. */
orca_status orca_nav_route(orca_nav *nav, int worker, double radius, orca_vec2 from,
                           const orca_vec2 *goals, int goal_count, int64_t field,
                           const orca_vec2 *avoid, double penalty, nav_route *out);

/* The cost of the path orca_nav_route would give through the prepared field (penalty
 * included: the cost it minimises, not the length), +inf when there is none or the start or
 * every goal is blocked. ORCA_ERR_ARGUMENT when the field is not prepared. */
orca_status orca_nav_field_cost(orca_nav *nav, int worker, double radius, orca_vec2 from,
                                int64_t field, const orca_vec2 *avoid, double penalty,
                                double *cost);

/* 1: point-goal searches run without their bound (Dijkstra's search, docs/navigation.md,
 * "Search"): the same paths, slower; for the tests that check so. */
void orca_nav_set_dijkstra(orca_nav *nav, int on);

/* 1: graphs are built without their shortcuts (every candidate leg checked against the walls
 * from scratch, no pair skipped for a wall across it: docs/navigation.md, "The graph"): the
 * same graphs, slower; for the tests that check so. Applies to graphs built from now on. */
void orca_nav_set_plain_build(orca_nav *nav, int on);

/* A digest of the graph of `radius` (built as needed): every node's point, key, leg, arc,
 * ring, place, mate and flags and every ring's nodes; *cut the vertex pairs its build skipped
 * for a wall across them. For the tests. ORCA_OK or ORCA_ERR_MEMORY. */
orca_status orca_nav_graph_digest(orca_nav *nav, double radius, uint64_t *digest, int64_t *cut);

/* Where a walker at p heading for corner c (radius r) should go: the unit direction of the
 * tangent from p to c's circle on c's side, or along the circle when p is on or inside it
 * (docs/navigation.md, "Following a path"). (0, 0) when p is at c's vertex. */
orca_vec2 orca_nav_aim(orca_vec2 p, const orca_nav_corner *c, double r);

/* Whether the leg of a walker at p (radius r) still leads where it heads (docs/navigation.md,
 * "Following a path", step 4): the segment from p to the tangent point of its corner's circle
 * (with corner NULL: to goal) crosses no wall and comes within 2^-20 r of none (a leg that
 * only grazes a wall lets the walker slide along it). 1 also when p is on the corner's circle;
 * 0 when the leg is blocked or nothing is prepared for r. As worker `worker`, on what
 * orca_nav_prepare built. */
int orca_nav_leg_clear(orca_nav *nav, int worker, double radius, orca_vec2 p,
                       const orca_nav_corner *corner, orca_vec2 goal);

/* Whether a walker at p has passed corner c, whose path leaves it at c->leave in the
 * direction of the next corner or the goal (docs/navigation.md, "Following a path"). */
int orca_nav_passed(orca_vec2 p, const orca_nav_corner *c, const orca_nav_corner *next,
                    orca_vec2 goal, double r);

#endif
