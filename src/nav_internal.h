/* SPDX-License-Identifier: MIT */
/* Private: what the scenario layer uses of the navigation (nav.c; docs/navigation.md), and
 * below it what the navigation's own files share. */
#ifndef ORCA_NAV_INTERNAL_H
#define ORCA_NAV_INTERNAL_H

#include "orca/nav.h"
#include "vec.h"

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

/* orca_nav_route, and with a field the cost it minimises (penalty included: the double
 * orca_nav_field_cost gives) to *cost (NULL: not wanted; +inf without a path, and without a
 * field: the search gives none). via[0 .. nvia-1] (at most 4): wall ends a query through a
 * field tries first (the corners of the agent's last path: the same route, found sooner). */
orca_status orca_nav_route_cost(orca_nav *nav, int worker, double radius, orca_vec2 from,
                                const orca_vec2 *goals, int goal_count, int64_t field,
                                const orca_vec2 *avoid, double penalty, const orca_vec2 *via,
                                int nvia, nav_route *out, double *cost);

/* The cost of the path orca_nav_route would give through the prepared field (penalty
 * included: the cost it minimises, not the length), +inf when there is none or the start or
 * every goal is blocked. ORCA_ERR_ARGUMENT when the field is not prepared. The library's
 * exit choice uses orca_nav_field_costs; this one query a field is the reference
 * test_nav_oracle holds that to. */
orca_status orca_nav_field_cost(orca_nav *nav, int worker, double radius, orca_vec2 from,
                                int64_t field, const orca_vec2 *avoid, double penalty,
                                double *cost);

/* orca_nav_field_cost for each of the prepared fields field[0 .. count-1] from one start, in
 * one pass (the same costs, each the same double): cost[j] for field[j]. With cap (NULL: none),
 * cost[j] is that cost where it is below cap[j] and +inf where it is not (the pass skips what
 * cannot go below the cap). ORCA_ERR_ARGUMENT when one is not prepared. */
orca_status orca_nav_field_costs(orca_nav *nav, int worker, double radius, orca_vec2 from,
                                 const int64_t *field, int count, const orca_vec2 *avoid,
                                 double penalty, const double *cap, double *cost);

/* An upper bound of orca_nav_field_cost's cost for the prepared field (the same double or
 * more): the least of the path's candidates straight to the field's goals and through the
 * wall ends at via[0 .. nvia-1] (at most 4; a point not a wall end: none), each computed as
 * the pass does; +inf when none of them is clear. Cheap: no search. ORCA_ERR_ARGUMENT when
 * the field is not prepared or nvia is out of range, ORCA_ERR_MEMORY. */
orca_status orca_nav_field_upper(orca_nav *nav, int worker, double radius, orca_vec2 from,
                                 int64_t field, const orca_vec2 *avoid, double penalty,
                                 const orca_vec2 *via, int nvia, double *upper);

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

/* --- the navigation's own files -------------------------------------------------------------
 * The structures and functions nav.c and its parts share; each file owns one part:
 *   nav.c         the object and the API around it: creation, the walls it reads, the queries
 *   nav_geom.c    geometry: the angle of a direction, the distance between two segments
 *   nav_clear.c   clearance: the wall grid; whether a segment, a point or an arc keeps lim
 *                 from every wall; whether a point is inside the walkable area
 *   nav_graph.c   the tangent visibility graph of one radius: vertices, legs, nodes, rings
 *   nav_search.c  a query's search from its start to the nearest goal, and its route
 *   nav_fields.c  shared goals: a goal set's distances to every node, and queries through them
 * and here, inline, the small geometry and tests of their inner loops (point to segment,
 * tangents, the taut test). Functions shared between the files carry the orca_nv_ prefix (safe
 * in a static archive) but are not part of the API; the shared library hides them. */

#define NAV_PI 0x1.921fb54442d18p+1
#define NAV_2PI 0x1.921fb54442d18p+2
#define NAV_TAUT 0x1p-20  /* the taut test's slack (a pruning: docs/navigation.md) */
#define NAV_ERROR_SIZE 256

typedef struct nav_field {
    int64_t id;
    int goal_count;
    orca_vec2 *goals;
    int gv_count;      /* goal nodes: departure points toward a goal */
    int32_t *gv_ring;  /* by (ring, key, index) */
    double *gv_key;
    orca_vec2 *gv_p;
    int32_t *gv_goal;
    double *dist;      /* nodes then goal nodes: distance to the nearest goal */
    double *len;       /* the same without penalties (there are none here): path length */
    int32_t *next;     /* the next node; >= node_count: a goal node; -1 none */
    double *ring_min;  /* per ring: the least distance of its nodes and goal points */
    uint8_t *goal_ok;  /* per goal: whether it is free (orca_nv_check_goals) */
    int goal_any;      /* whether any is */
} nav_field;

/* A cell index over the walls for the clearance checks of one radius: a wall is listed in
 * every cell its box widened by lim overlaps, so the walls within lim of a point are all
 * listed in that point's cell (docs/navigation.md, "The walls"). */
typedef struct nav_grid {
    double x0, y0, inv; /* cell of x: floor((x - x0) * inv) */
    int w, h;
    int32_t *start;     /* w * h + 1 */
    int32_t *walls;
} nav_grid;

/* The scratch of one thread's queries (docs/navigation.md, "Following a path": plans run on
 * the simulation's workers, each with its own): the search's per-node arrays, valid for the
 * nodes whose mark is this query's, its heap, and the clearance checks' per-wall stamps.
 * Nothing in it outlives a query but its capacity, so results never depend on which
 * thread's scratch a query used. */
typedef struct nv_slot {
    double dist; /* the cost */
    double wl;   /* the length of the edge from the predecessor (without penalty) */
    double pg;   /* the predecessor's cost when it reached the node */
    double hv;   /* the bound (nv_bound_at) */
    int32_t pred;
    uint32_t mark; /* the query that last wrote the slot */
} nv_slot;

typedef struct nav_work {
    nv_slot *slot; /* per node */
    uint32_t query;
    int cap;
    struct nv_hent *heap; /* the heap's entries */
    int hcap;
    uint32_t *stamp; /* per wall: the clearance check that last looked at it */
    uint32_t check;
    int stamp_cap;
    double *lb;     /* a field query's bounds and distances: two per wall end */
    int32_t *order; /* its heap of wall ends */
    int lb_cap;     /* the wall ends those two hold */
} nav_work;

/* A node of the graph: a tangent point, its leg and the arc after it (docs/navigation.md, "The
 * graph"), together so that a search reads one node from one place. */
typedef struct nav_node {
    orca_vec2 p;      /* the tangent point */
    double key;       /* its angle around the vertex */
    double leg;       /* its leg's length */
    double arc_len;   /* the arc to the next node of the ring (in the ring's direction) */
    int32_t ring;     /* 2 * vertex + (side > 0 ? 0 : 1) */
    int32_t pos;      /* place in its ring */
    int32_t mate;     /* departure: its leg's arrival node; arrival: the departure node */
    uint8_t dep;      /* 1 departure, 0 arrival */
    uint8_t arc_free; /* whether that arc is clear */
} nav_node;

typedef struct nav_plan {
    double r, tol, lim, lim2;
    nav_grid *grid;
    int nv;
    orca_vec2 *vp;
    int32_t *inc_first, *inc_n; /* incident wall directions of each vertex */
    orca_vec2 *inc_dir;
    int32_t *near_first, *near_n, *near_w; /* walls within 2r of each vertex */
    /* nodes: tangent points */
    int nn, ncap;
    nav_node *node;
    int32_t *ring_first, *ring_n, *ring_nodes; /* by (key, node) */
    double *ring_keys; /* the keys of ring_nodes, in the same places (a ring's search reads
                          them in a row) */
    int legs;
    int64_t cut;    /* vertex pairs skipped for a wall across them (nv_wall_cuts) */
    nav_field *fields;
    int field_count;
} nav_plan;

struct orca_nav {
    const orca_sim *sim;
    int nw, nseg;     /* walls: the segments, then the loops' edges */
    orca_vec2 *wa, *wb;
    int wcap;
    double M;         /* the largest coordinate magnitude of a wall end */
    nav_plan **plans;
    int plan_count;
    char error[NAV_ERROR_SIZE];
    nav_work *work; /* one scratch per thread that queries (orca_nav_workers) */
    int work_count;
    int dijkstra;   /* 1: point-goal searches without the bound (orca_nav_set_dijkstra) */
    int plain;      /* 1: graphs built without the shortcuts (orca_nav_set_plain_build) */
};

/* A heap of (cost, node), least cost first, ties to the lower node: 4-ary, each entry's cost
 * and node together, so that a pop reads a node's children from one or two cache lines. Any
 * heap that pops the least (cost, node) first pops the same sequence (entries with equal cost
 * and node are alike), so the layout changes no result. */
typedef struct nv_hent {
    double cost;
    int32_t node;
} nv_hent;

typedef struct nv_heap {
    nv_hent *e;
    int n, cap;
    nav_work *W; /* owns the entries (heap), grown here */
    int oom;     /* a push found no memory: the search is abandoned */
} nv_heap;

/* A point added for one query on a ring: the start's tangent points (arrivals) or the
 * departures toward a goal. */
typedef struct nv_vpoint {
    orca_vec2 p;
    double key; /* its angle around the vertex; -1 until needed (nv_vkey) */
    double leg; /* the leg to or from the query point */
    int32_t ring;
    int32_t goal; /* goal index (departures), -1 for the start's */
    int clear;    /* whether the leg is clear: 1, 0, or -1 not checked yet */
} nv_vpoint;

/* Candidate walls, ascending and each once. */
typedef struct nv_cand {
    int32_t *k;
    int n, cap;
} nv_cand;

/* The walls that last blocked a leg of one vertex, most recent first: most legs of a vertex
 * that are not clear are blocked by one of a few walls (those of its room), so these are
 * tried before the full check. A leg is clear when every wall keeps lim from it, so which
 * wall is tried first does not change the answer, only how soon a blocked leg is known. */
#define NAV_RECENT 8

typedef struct nv_recent {
    int32_t k[NAV_RECENT];
    int n;
} nv_recent;

/* The small geometry and tests of the files' inner loops, inline here as vec.h's are (each is
 * binary64 as written: inlining changes no bit, and keeps the loops as fast as in one file). */

static inline double nv_cross2(orca_vec2 a, orca_vec2 b) { return a.x * b.y - a.y * b.x; }

/* Squared distance from p to the segment a-b. */
static inline double nv_pt_seg_d2(orca_vec2 p, orca_vec2 a, orca_vec2 b)
{
    double abx = b.x - a.x, aby = b.y - a.y;
    double apx = p.x - a.x, apy = p.y - a.y;
    double l2 = abx * abx + aby * aby;
    double t = 0.0;
    if (l2 > 0) {
        t = (apx * abx + apy * aby) / l2;
        t = t < 0 ? 0.0 : (t > 1 ? 1.0 : t);
    }
    double dx = apx - t * abx, dy = apy - t * aby;
    return dx * dx + dy * dy;
}

/* The tangent point t on the circle (c, r) of the line from p that touches it with c on side
 * s of the direction p -> t (s = 1: left): with w = c - p, D2 = w.w, h = sqrt(D2 - r*r),
 * t = p + h (h w - s r perp(w)) / D2, perp(w) = (-w.y, w.x). 0 when p is not outside the
 * circle (D2 <= r*r). */
static inline int nv_tan_pc(orca_vec2 p, orca_vec2 c, double r, int s, orca_vec2 *t)
{
    double wx = c.x - p.x, wy = c.y - p.y;
    double d2 = wx * wx + wy * wy;
    double rr = r * r;
    if (!(d2 > rr)) {
        return 0;
    }
    double h = sqrt(d2 - rr);
    double sr = (double)s * r;
    t->x = p.x + h * (h * wx + sr * wy) / d2;
    t->y = p.y + h * (h * wy - sr * wx) / d2;
    return 1;
}

/* The leg from circle (u, r) on side su to circle (v, r) on side sv: its ends tu, tv. Same
 * sides: the outer tangent, tu = u - su r n, tv = v - su r n with n = perp(v - u) / |v - u|.
 * Opposite sides: the inner tangent through the midpoint m = (u + v) / 2 (|v - u| > 2r):
 * tv = nv_tan_pc(m, v, sv), tu the same from m to u with the side reversed. 0 when none. */
static inline int nv_tan_cc(orca_vec2 u, int su, orca_vec2 v, int sv, double r, orca_vec2 *tu,
                            orca_vec2 *tv)
{
    double dx = v.x - u.x, dy = v.y - u.y;
    double l2 = dx * dx + dy * dy;
    if (!(l2 > 0)) {
        return 0;
    }
    if (su == sv) {
        double l = sqrt(l2);
        double nx = -dy / l, ny = dx / l;
        double k = (double)su * r;
        tu->x = u.x - k * nx;
        tu->y = u.y - k * ny;
        tv->x = v.x - k * nx;
        tv->y = v.y - k * ny;
        return 1;
    }
    if (!(l2 > 4.0 * r * r)) {
        return 0;
    }
    orca_vec2 m = v2((u.x + v.x) * 0.5, (u.y + v.y) * 0.5);
    return nv_tan_pc(m, v, r, sv, tv) && nv_tan_pc(m, u, r, -su, tu);
}

/* A coordinate with -0 made +0 (x + 0.0), so that equal ends are equal bits. */
static inline orca_vec2 nv_norm0(orca_vec2 p) { return v2(p.x + 0.0, p.y + 0.0); }

/* The sweep of the arc from key ka to key kb on a ring of side s, in the ring's direction
 * (orca_nv_arc_clear_dir). */
static inline double nv_ring_delta(double ka, double kb, int s)
{
    double d = s > 0 ? kb - ka : ka - kb;
    return d < 0 ? d + NAV_2PI : d;
}

/* The taut test at vertex v for a leg in direction f that passes v on side s: every wall that
 * starts at v lies on v's side of the line through v along f, s * Cross(f, w) >= -slack
 * (docs/navigation.md, "The graph"). */
static inline int nv_taut(const nav_plan *P, int v, int s, orca_vec2 f)
{
    double ff = v2_dot(f, f);
    for (int k = P->inc_first[v]; k < P->inc_first[v] + P->inc_n[v]; ++k) {
        orca_vec2 w = P->inc_dir[k];
        double c = (double)s * nv_cross2(f, w);
        if (c < 0 && c * c > NAV_TAUT * NAV_TAUT * ff * v2_dot(w, w)) {
            return 0;
        }
    }
    return 1;
}

/* nav_geom.c */
double orca_nv_seg_seg_d2(orca_vec2 p, orca_vec2 q, orca_vec2 a, orca_vec2 b);

/* nav_clear.c */
void orca_nv_grid_free(nav_grid *g);
nav_grid *orca_nv_grid_build(const orca_nav *nav, double lim);
int orca_nv_seg_clear(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 p,
                      orca_vec2 q, double lim);
int orca_nv_seg_clear_recent(const orca_nav *nav, const nav_plan *P, nav_work *W,
                             nv_recent *R, orca_vec2 p, orca_vec2 q, double lim);
int orca_nv_pt_clear(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 p,
                     double lim);
double orca_nv_pt_wall_d2(const orca_nav *nav, orca_vec2 p);
int orca_nv_inside(const orca_nav *nav, orca_vec2 p);
int orca_nv_arc_clear_dir(const nav_plan *P, const orca_nav *nav, int vi, int s, orca_vec2 pa,
                          orca_vec2 pb, double delta, double lim);
int orca_nv_near_candidates(const nav_grid *g, orca_vec2 p, double d, double span,
                            nv_cand *out);

/* nav_graph.c */
int orca_nv_find_vertex(const nav_plan *P, orca_vec2 p);
void orca_nv_plan_free(nav_plan *p);
nav_plan *orca_nv_get_plan(orca_nav *nav, double r);
nav_plan *orca_nv_find_plan(const orca_nav *nav, double r);

/* nav_search.c */
nv_heap orca_nv_heap_open(nav_work *W);
void orca_nv_heap_push(nv_heap *h, double cost, int32_t node);
void orca_nv_heap_pop(nv_heap *h, double *cost, int32_t *node);
int orca_nv_ring_next_of(const nav_plan *P, int g, double k, double *delta);
int orca_nv_ring_prev_of(const nav_plan *P, int g, double k, double *delta);
int orca_nv_goal_points(const orca_nav *nav, const nav_plan *P, nav_work *W,
                        const orca_vec2 *goals, const uint8_t *ok, int ng, int lazy,
                        nv_vpoint **out);
int orca_nv_route_point(nav_route *out, const nav_plan *P, int g, orca_vec2 p, int *last_ring);
/* The start's check: ORCA_NAV_OK or ORCA_NAV_START_BLOCKED, and *start_lim its first leg's
 * clearance (relax: a start closer than r to a wall plans with the clearance it has). */
int orca_nv_check_start(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 from,
                        double *start_lim, int relax);
/* Which goals are free (ok[g]); whether any is. */
int orca_nv_check_goals(const orca_nav *nav, const nav_plan *P, nav_work *W,
                        const orca_vec2 *goals, int ng, uint8_t *ok);
/* Both: the result, the start's leg clearance, and which goals are free. */
int orca_nv_check_ends(const orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 from,
                       const orca_vec2 *goals, int ng, uint8_t *ok, double *start_lim,
                       int relax);
orca_status orca_nv_search(orca_nav *nav, const nav_plan *P, nav_work *W, orca_vec2 from,
                           const orca_vec2 *goals, int ng, const orca_vec2 *avoid,
                           double penalty, int relax, int astar, nav_route *out);

/* nav_fields.c */
void orca_nv_field_free(nav_field *f);
nav_field *orca_nv_get_field(orca_nav *nav, nav_plan *P, nav_work *W, int64_t id,
                             const orca_vec2 *goals, int ng);
nav_field *orca_nv_find_field(const nav_plan *P, int64_t id);
orca_status orca_nv_field_route(const orca_nav *nav, const nav_plan *P, const nav_field *F,
                                nav_work *W, orca_vec2 from, int avoid_v, double penalty,
                                const int *via, int nvia, nav_route *out, double *cost);
orca_status orca_nv_field_costs(const orca_nav *nav, const nav_plan *P,
                                const nav_field *const *F, int nf, nav_work *W, orca_vec2 from,
                                int avoid_v, double penalty, const double *cap, double *cost);
orca_status orca_nv_field_upper(const orca_nav *nav, const nav_plan *P, const nav_field *F,
                                nav_work *W, orca_vec2 from, int avoid_v, double penalty,
                                const int *via, int nvia, double *upper);

#endif
