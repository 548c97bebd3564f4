/* SPDX-License-Identifier: MIT */
/* orca simulator: agents and static segments stepped by ORCA, bit for bit as docs/algorithm.md
 * §11 (neighbours and constraint order) and §12 (the step) describe, with the
 * same bits for any worker count or split. Built on exactly the functions of orca/solver.h.
 *
 * Objects are addressed by value handles: slot + generation + the identity of the simulation
 * that issued the handle (orca_sim_id); all zero means "none". A handle that outlived its
 * object is detected (ORCA_ERR_STALE), never dereferenced, and a handle of another simulation
 * is refused (ORCA_ERR_FOREIGN, the message naming the handle and both simulations), never
 * applied to this one's object in the same slot. Every call that takes a handle checks it
 * before anything changes; the batch calls check every handle first. Handles compare equal
 * exactly when all three fields are equal.
 *
 * The identity is not state: the hash and snapshots do not hold it, and orca_sim_load keeps
 * the loading simulation's. So handles saved with a snapshot are valid again after loading
 * it into the simulation that issued them; in another simulation that loads the snapshot,
 * the same objects have the same slots and generations under that simulation's identity
 * (orca_sim_agent_at and the like give those handles, or set sim to its orca_sim_id).
 *
 * Every call that can refuse its input returns an orca_status; a refusal leaves the
 * simulation exactly as it was and orca_sim_last_error() then names the offending value
 * ("radius must be in [2^-30, 2^21] m, got -1").
 *
 * Threads: a simulation is used from one thread at a time (its own workers aside). The
 * queries (orca_sim_agent_constraints, orca_sim_agent_neighbors, orca_sim_measure_overlap,
 * orca_sim_measure_boundary) take a const pointer but refresh internal caches (the neighbour
 * and edge grids), so they too must not run concurrently with any other call on the same
 * simulation. */
#ifndef ORCA_SIM_H
#define ORCA_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "orca/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Accepted ranges (docs/limits.md derives them): within them no intermediate of a step can
 * overflow or become NaN, and a step's results stay within them. Values outside are refused
 * with ORCA_ERR_ARGUMENT and a message naming the value. */
/** Coordinates (positions, segment ends, goals) must have magnitude below this: 2^21. */
#define ORCA_COORD_LIMIT 2097152.0
/** radius in [ORCA_RADIUS_MIN, ORCA_RADIUS_MAX] = [2^-30, 2^21] m. */
#define ORCA_RADIUS_MIN 9.31322574615478515625e-10
#define ORCA_RADIUS_MAX 2097152.0
/** neighbor_dist in [0, 2^23] m (beyond any distance between two agents). */
#define ORCA_NEIGHBOR_DIST_MAX 8388608.0
/** max_speed (and a scenario goal's preferred_speed) in [0, 2^30] m/s. */
#define ORCA_SPEED_MAX 1073741824.0
/** Each component of a velocity or preferred velocity has magnitude at most 2^31 m/s. */
#define ORCA_VELOCITY_LIMIT 2147483648.0
/** time_horizon, obstacle_time_horizon and a step's dt in [2^-30, 2^30] s. */
#define ORCA_TIME_MIN 9.31322574615478515625e-10
#define ORCA_TIME_MAX 1073741824.0
/** Largest max_neighbors accepted. */
#define ORCA_MAX_NEIGHBORS_LIMIT 1024
/** Largest number of workers of the built-in pool. */
#define ORCA_MAX_WORKERS 64

typedef struct orca_sim orca_sim;

/** Handle of an agent (see the top of this file). */
typedef struct orca_agent_id {
    uint32_t slot;
    uint32_t generation; /**< 0 only in the null handle */
    uint32_t sim;        /**< orca_sim_id of the simulation that issued it; 0 only in the null
                              handle */
} orca_agent_id;

/** Handle of a segment obstacle (the fields as orca_agent_id's). */
typedef struct orca_segment_id {
    uint32_t slot;
    uint32_t generation;
    uint32_t sim;
} orca_segment_id;

/** Everything about one agent. Fill from orca_agent_def_default() and change what you need. */
typedef struct orca_agent_def {
    orca_vec2 position;           /**< m, |x|,|y| < ORCA_COORD_LIMIT */
    orca_vec2 velocity;           /**< m/s, |x|,|y| <= ORCA_VELOCITY_LIMIT */
    orca_vec2 preferred_velocity; /**< m/s, |x|,|y| <= ORCA_VELOCITY_LIMIT; set by the caller
                                       before each step */
    double radius;                /**< m, ORCA_RADIUS_MIN .. ORCA_RADIUS_MAX */
    double max_speed;             /**< m/s, 0 .. ORCA_SPEED_MAX */
    double neighbor_dist;         /**< m, 0 .. ORCA_NEIGHBOR_DIST_MAX: other agents closer
                                       than this are considered */
    int max_neighbors;            /**< 0 .. ORCA_MAX_NEIGHBORS_LIMIT */
    double time_horizon;          /**< s, ORCA_TIME_MIN .. ORCA_TIME_MAX: agent time horizon */
    double obstacle_time_horizon; /**< s, ORCA_TIME_MIN .. ORCA_TIME_MAX */
} orca_agent_def;

/** Defaults (RVO2's examples): radius 1.5, max speed 2, neighbour distance 15, 10 neighbours,
 * both horizons 10, everything else zero. Every front end (scene files, Python, the browser
 * module) takes its agent defaults from this function (docs/scenarios.md, "Defaults"). */
ORCA_API orca_agent_def orca_agent_def_default(void);

/** A range task: process items [begin, end) as worker `worker` (0 <= worker < worker_count). */
typedef void orca_task_fn(int begin, int end, int worker, void *task_context);

/** Engine job system hook: run task over [0, item_count) split into ranges of at least
 * min_range items (any split gives the same bits), each call with a distinct worker index in
 * [0, worker_count) among the calls running at the same time. Return a handle passed to
 * finish, or NULL after running the work synchronously. */
typedef void *orca_enqueue_fn(orca_task_fn *task, int item_count, int min_range,
                              void *task_context, void *user_context);
/** Wait for a task enqueued by orca_enqueue_fn. */
typedef void orca_finish_fn(void *user_task, void *user_context);

/** Simulation definition. Fill from orca_sim_def_default(). */
typedef struct orca_sim_def {
    int worker_count;         /**< 1..ORCA_MAX_WORKERS: built-in threads (caller included), or
                                   the number of worker indices the callbacks use. Built-in
                                   threads no more than the online CPUs spin for about
                                   0.05-0.2 ms after each parallel pass before they sleep, so
                                   that the next pass starts at once */
    orca_enqueue_fn *enqueue; /**< optional: both set = use the engine's job system */
    orca_finish_fn *finish;
    void *user_context;
} orca_sim_def;

/** One worker, no callbacks. */
ORCA_API orca_sim_def orca_sim_def_default(void);

/** Creates a simulation (def may be NULL for the defaults). On a refusal *out is untouched
 * and orca_sim_last_error(NULL) gives the message. */
ORCA_API orca_status orca_sim_create(const orca_sim_def *def, orca_sim **out);
/** Destroys it (NULL is ignored). */
ORCA_API void orca_sim_destroy(orca_sim *sim);

/** The simulation's identity, which every handle it issues carries (the handles' sim field):
 * 1, 2, 3, ... in the order the process created its simulations (a process-wide counter,
 * thread-safe), wrapping after 2^32 - 1 creations and never 0. Two simulations alive at once
 * share one only if 2^32 - 1 others were created between them. Not state: orca_sim_load keeps
 * it, the hash and snapshots ignore it. 0 for NULL. */
ORCA_API uint32_t orca_sim_id(const orca_sim *sim);

/** The message of the last refused call on sim ("" if none). Valid until the next call.
 * With sim NULL: the message of the last refused orca_sim_create on the calling thread ("" if
 * the last one succeeded). */
ORCA_API const char *orca_sim_last_error(const orca_sim *sim);

/** Changes the worker count (1..ORCA_MAX_WORKERS) between steps. Results do not change. */
ORCA_API orca_status orca_sim_set_worker_count(orca_sim *sim, int worker_count);
ORCA_API int orca_sim_get_worker_count(const orca_sim *sim);

/** Vector kernels: on x86-64 CPUs with AVX2 the step builds the agent constraints four at a
 * time and filters neighbour candidates four at a time, and the rest of its per-agent code
 * runs a copy compiled for AVX2 (chosen when the simulation is created). They compute the
 * same operations as the scalar code and give the same bits
 * (docs/determinism.md); turning them off is a way to check that, or to time the scalar code
 * that other CPUs run. on = 0 turns them off, 1 turns them on where the CPU has them.
 * Returns 1 if the step uses them afterwards, 0 if not (also for sim == NULL). Results do
 * not change. */
ORCA_API int orca_sim_set_vector_kernels(orca_sim *sim, int on);
/** 1 if the step uses the vector kernels, 0 if not (also for sim == NULL). */
ORCA_API int orca_sim_get_vector_kernels(const orca_sim *sim);

/* --- agents ---------------------------------------------------------------------------- */

/** Adds an agent after all existing ones (its index is the agent count before the call).
 * With boundary loops its disc must fit in the walkable area (docs/extensions.md, "Agents
 * must fit"); so must the disc that orca_agent_set or orca_agent_set_position gives an agent
 * when they change its position or radius. */
ORCA_API orca_status orca_sim_add_agent(orca_sim *sim, const orca_agent_def *def,
                                        orca_agent_id *out);
/** Adds count agents (defs[0 .. count-1]) after all existing ones, in that order, exactly as
 * count calls of orca_sim_add_agent; ids (may be NULL) receives their handles. Every
 * definition is checked first: on a refusal (naming defs[k]) nothing is added. */
ORCA_API orca_status orca_sim_add_agents(orca_sim *sim, const orca_agent_def *defs, int count,
                                         orca_agent_id *ids);
/** Removes an agent; the others keep their relative order, so the simulation continues with
 * the bits it would have had if the agent had never existed. The handle is stale at once and
 * the count drops; the others' indices close the gap lazily: removals only mark agents, and
 * the next call that steps, queries, hashes, saves or reads the agents by index (positions,
 * preferred velocities, diagnostics, tasks) compacts all pending removals in one pass in
 * index order. So k removals cost O(k) plus one O(N) pass, however they are interleaved;
 * orca_sim_agent_at and orca_sim_agent_index answer without compacting (O(log pending)). */
ORCA_API orca_status orca_sim_remove_agent(orca_sim *sim, orca_agent_id id);
/** Removes count agents, exactly as count calls of orca_sim_remove_agent. Every handle is
 * checked first: a stale handle, one of another simulation or one listed twice is refused
 * (naming ids[k]) and nothing is removed. */
ORCA_API orca_status orca_sim_remove_agents(orca_sim *sim, const orca_agent_id *ids, int count);
ORCA_API int orca_sim_agent_count(const orca_sim *sim);
/** The handle of the agent at index (0 .. count-1), in index order; the null handle if out
 * of range. */
ORCA_API orca_agent_id orca_sim_agent_at(const orca_sim *sim, int index);
/** The index of a live agent, or -1 for a stale handle or one of another simulation. */
ORCA_API int orca_sim_agent_index(const orca_sim *sim, orca_agent_id id);

ORCA_API orca_status orca_agent_get(const orca_sim *sim, orca_agent_id id, orca_agent_def *out);
/** Replaces every field of the agent, after validating them all. */
ORCA_API orca_status orca_agent_set(orca_sim *sim, orca_agent_id id, const orca_agent_def *def);
ORCA_API orca_status orca_agent_set_position(orca_sim *sim, orca_agent_id id, orca_vec2 position);
ORCA_API orca_status orca_agent_set_velocity(orca_sim *sim, orca_agent_id id, orca_vec2 velocity);
ORCA_API orca_status orca_agent_set_preferred_velocity(orca_sim *sim, orca_agent_id id,
                                                       orca_vec2 v);
ORCA_API orca_status orca_agent_get_position(const orca_sim *sim, orca_agent_id id, orca_vec2 *out);
ORCA_API orca_status orca_agent_get_velocity(const orca_sim *sim, orca_agent_id id, orca_vec2 *out);

/** The positions of all agents in index order (orca_sim_agent_count entries), read-only.
 * Valid until the next call that adds, removes or moves agents, steps or loads (a pointer
 * into the simulation, for engines that read every agent each frame). NULL when sim is
 * NULL. */
ORCA_API const orca_vec2 *orca_sim_positions(const orca_sim *sim);

/** Exchanges the preferred velocities of all agents (index order) with v[0 .. count-1]:
 * afterwards the simulation has the values v held, and v holds the previous ones. count must
 * equal the agent count and every component must have magnitude at most ORCA_VELOCITY_LIMIT;
 * otherwise nothing changes. */
ORCA_API orca_status orca_sim_swap_preferred_velocities(orca_sim *sim, orca_vec2 *v, int count);

/** Runs fn over [0, count) on the simulation's workers (the built-in pool, the engine's
 * callbacks, or the caller), split as for a step, with worker indices in
 * [0, worker count). For per-agent work of the caller's own, such as preferred velocities:
 * fn must write only its own items. Returns when all items are done. */
ORCA_API orca_status orca_sim_run_task(orca_sim *sim, orca_task_fn *fn, int count, void *context);

/* --- segments -------------------------------------------------------------------------- */

/** Adds a two-sided segment a-b (a == b is a point obstacle); index = segment count before. */
ORCA_API orca_status orca_sim_add_segment(orca_sim *sim, orca_vec2 a, orca_vec2 b,
                                          orca_segment_id *out);
/** Adds count-1 segments p[0]-p[1], ..., (plus p[count-1]-p[0] when closed, for a polygon).
 * ids (may be NULL) receives count-1 (or count) handles. All points are validated first. */
ORCA_API orca_status orca_sim_add_polyline(orca_sim *sim, const orca_vec2 *points, int count,
                                           int closed, orca_segment_id *ids);
/** Adds count segments a[k]-b[k] (k = 0 .. count-1) after all existing ones, in that order,
 * exactly as count calls of orca_sim_add_segment; ids (may be NULL) receives their handles.
 * Every point is checked first: on a refusal (naming a[k] or b[k] and the value) nothing is
 * added. count 0 adds nothing (a and b may then be NULL). */
ORCA_API orca_status orca_sim_add_segments(orca_sim *sim, const orca_vec2 *a, const orca_vec2 *b,
                                           int count, orca_segment_id *ids);
/** Removes a segment; the others keep their relative order, so the simulation continues with
 * the bits it would have had if the segment had never existed. As for agents, the handle is
 * stale at once and the count drops, and the others' indices close the gap lazily: the next
 * call that steps, queries, measures, hashes or saves compacts all pending removals in one
 * pass in index order, updating the obstacle grid on the way (no rebuild from the geometry).
 * So k removals cost O(k) plus one O(S) pass, however they are interleaved;
 * orca_sim_segment_at answers without compacting (O(log pending)). Additions still rebuild
 * the obstacle grid at the next step. */
ORCA_API orca_status orca_sim_remove_segment(orca_sim *sim, orca_segment_id id);
/** Removes count segments, exactly as count calls of orca_sim_remove_segment. Every handle is
 * checked first: a stale handle, one of another simulation or one listed twice is refused
 * (naming ids[k]) and nothing is removed. */
ORCA_API orca_status orca_sim_remove_segments(orca_sim *sim, const orca_segment_id *ids,
                                              int count);
ORCA_API int orca_sim_segment_count(const orca_sim *sim);
/** The handle of the segment at index (0 .. count-1), in index order; the null handle if out
 * of range. */
ORCA_API orca_segment_id orca_sim_segment_at(const orca_sim *sim, int index);
ORCA_API orca_status orca_segment_get(const orca_sim *sim, orca_segment_id id, orca_vec2 *a,
                                      orca_vec2 *b);

/* --- walkable-area boundaries (docs/extensions.md, "Walkable-area boundaries") --------- */

/* Off by default: with no boundary the step is the algorithm's, bit for bit. A boundary is
 * one closed loop of points p[0], ..., p[count-1] given as the real walls; its edges are
 * p[k] -> p[(k+1) mod count] with the walkable side on their left (outer loops
 * counter-clockwise, holes clockwise). Each agent keeps its centre at least its radius from
 * every edge it faces (clearance = radius, so agents of any size share one loop): the edges
 * and their vertices within reach give hard half-planes (algorithm.md §7's arithmetic),
 * placed before the segments' in the constraint list. An agent that starts a step in the
 * walkable area at least its radius from the walls ends it there (docs/extensions.md states
 * the guarantee and its rounding). */

/** Largest total number of boundary edges (points over all loops): 2^24. */
#define ORCA_BOUNDARY_EDGES_MAX 16777216

/** Handle of a boundary loop (the fields as orca_agent_id's). */
typedef struct orca_boundary_id {
    uint32_t slot;
    uint32_t generation;
    uint32_t sim;
} orca_boundary_id;

/** Adds one closed loop (index = boundary count before the call). count >= 3 points, each
 * coordinate finite with magnitude below ORCA_COORD_LIMIT, no two consecutive points equal
 * (p[count-1] and p[0] included), a signed area (the shoelace sum of the given doubles,
 * computed exactly) that is not zero, at most ORCA_BOUNDARY_EDGES_MAX edges over all loops,
 * and every agent's disc clear of the loop and not taken from inside the walkable area to
 * outside (the first loop must enclose every agent). On a refusal nothing changes and the
 * message names the value or the lowest agent index. out may be NULL. */
ORCA_API orca_status orca_sim_add_boundary(orca_sim *sim, const orca_vec2 *points, int count,
                                           orca_boundary_id *out);
/** Removes a loop; the simulation continues as if it had never been added (agents it held
 * may be left outside the walkable area: orca_sim_measure_boundary counts them). */
ORCA_API orca_status orca_sim_remove_boundary(orca_sim *sim, orca_boundary_id id);
ORCA_API int orca_sim_boundary_count(const orca_sim *sim);
/** The handle of the loop at index (0 .. count-1); the null handle if out of range. */
ORCA_API orca_boundary_id orca_sim_boundary_at(const orca_sim *sim, int index);
/** The loop's points as given: writes min(capacity, its count) points (points may be NULL
 * when capacity is 0); *count (may be NULL) receives its point count. */
ORCA_API orca_status orca_boundary_get(const orca_sim *sim, orca_boundary_id id,
                                       orca_vec2 *points, int capacity, int *count);
/** Measures the agents against the boundaries: *deepest (may be NULL) the largest
 * (r - distance) / r over agents and edges, where distance is from the agent's centre to the
 * nearest point of the edge, or 0 when every agent is at least its radius from every edge;
 * *outside (may be NULL) the number of agents whose centre is not in the walkable area
 * (winding number of all loops around it < 1, or on an edge). With no boundary or no agent
 * both are 0. Linear work on the workers, over the edge grid of the disc check (built on
 * first use and kept with the loops; docs/extensions.md, "Agents must fit"): the same
 * results for any worker count. ORCA_ERR_MEMORY (with a message; the outputs untouched)
 * when that grid or the workers' scratch cannot be built. */
ORCA_API orca_status orca_sim_measure_boundary(const orca_sim *sim, double *deepest,
                                               int *outside);

/* --- stepping -------------------------------------------------------------------------- */

/** One step: every new velocity from the start-of-step state, then velocity and position
 * (position + velocity * dt). dt in [ORCA_TIME_MIN, ORCA_TIME_MAX]. Zero agents is a no-op.
 * Before anything is applied, every new velocity v is checked (docs/limits.md): it must be
 * finite, within the agent's max speed R up to the rounding of its program,
 * v.v <= R*R + 2^-40 * (R*R + v0.v0) with v0 the agent's velocity at the start of the step,
 * and move the agent to a position within ORCA_COORD_LIMIT. Otherwise the whole step is
 * refused (ORCA_ERR_LIMIT, the lowest such agent index named in the message) and the
 * simulation is unchanged. Within the accepted ranges only the position check can fire (an
 * agent walking off the 2^21 square). */
ORCA_API orca_status orca_sim_step(orca_sim *sim, double dt);
/** Steps taken since creation (restored by snapshots). */
ORCA_API uint64_t orca_sim_step_count(const orca_sim *sim);
/** How many agents needed the fallback (section 5.3) in the last step. */
ORCA_API int orca_sim_last_fallback_count(const orca_sim *sim);

/** The constraints agent id would use in a step of length dt taken now, in algorithm.md §11's
 * order: hard (obstacle) half-planes first. Writes at most capacity half-planes; *count
 * receives the full number, *hard_count the number of obstacle half-planes (either may be
 * NULL). For debugging and drawing. */
ORCA_API orca_status orca_sim_agent_constraints(const orca_sim *sim, orca_agent_id id, double dt,
                                                orca_halfplane *planes, int capacity, int *count,
                                                int *hard_count);
/** The neighbours (agent indices, in order) and obstacles (segment indices, in order) that
 * the constraints above come from. */
ORCA_API orca_status orca_sim_agent_neighbors(const orca_sim *sim, orca_agent_id id, int *agents,
                                              int agent_capacity, int *agent_count, int *segments,
                                              int segment_capacity, int *segment_count);

/** Deepest overlaps in the current state, as fractions of radius: agent pairs
 * (rA + rB - distance) / min(rA, rB), and agent-segment (r - distance) / r; 0 when nothing
 * overlaps. Either pointer may be NULL. Uses the neighbour grid: linear work. */
ORCA_API orca_status orca_sim_measure_overlap(const orca_sim *sim, double *agent_overlap,
                                              double *wall_overlap);

/* --- per-agent avoidance (docs/extensions.md, "Priority, layers and locked agents") ------ */

/* Extensions beyond the algorithm, off by default: with every agent at the defaults below the
 * step is the algorithm's, bit for bit (and as fast). Agent A takes the share
 * p_B / (p_A + p_B) of the avoidance against B (1/2 at equal priorities, exactly); A considers
 * B only when (A.mask & B.layers) != 0, and agents A does not consider take no neighbour slot;
 * A takes the whole avoidance (share 1) against B when B is locked or does not consider A.
 * A locked agent is not solved: it keeps the velocity it has (set it with
 * orca_agent_set_velocity) and moves with it. */

/** priority in [ORCA_PRIORITY_MIN, ORCA_PRIORITY_MAX] = [2^-30, 2^30]. */
#define ORCA_PRIORITY_MIN 9.31322574615478515625e-10
#define ORCA_PRIORITY_MAX 1073741824.0

typedef struct orca_agent_avoidance {
    double priority; /**< > 0, default 1: a higher priority yields less */
    uint32_t layers; /**< default 1: the layers the agent is on */
    uint32_t mask;   /**< default 0xFFFFFFFF: the layers of the agents it considers */
    int locked;      /**< 0 or 1, default 0: keeps its velocity, is not solved */
} orca_agent_avoidance;

/** priority 1, layers 1, mask 0xFFFFFFFF, not locked: every agent considers every other and
 * takes half of each avoidance, as the algorithm does. */
ORCA_API orca_agent_avoidance orca_agent_avoidance_default(void);
/** Replaces the agent's avoidance settings after validating them (priority finite within
 * [ORCA_PRIORITY_MIN, ORCA_PRIORITY_MAX], locked 0 or 1); on a refusal nothing changes. */
ORCA_API orca_status orca_agent_set_avoidance(orca_sim *sim, orca_agent_id id,
                                              const orca_agent_avoidance *avoidance);
ORCA_API orca_status orca_agent_get_avoidance(const orca_sim *sim, orca_agent_id id,
                                              orca_agent_avoidance *out);
/** The fields one at a time (the others keep their values). */
ORCA_API orca_status orca_agent_set_priority(orca_sim *sim, orca_agent_id id, double priority);
ORCA_API orca_status orca_agent_set_layers(orca_sim *sim, orca_agent_id id, uint32_t layers,
                                           uint32_t mask);
ORCA_API orca_status orca_agent_set_locked(orca_sim *sim, orca_agent_id id, int locked);

/* --- coincident agents (docs/extensions.md, "Coincident agents") ------------------------ */

/* Two agents at exactly the same position, moving at the same velocity, get the same
 * normal from the algorithm's overlap form ((1, 0) for both: algorithm.md §5 and §3.7), so
 * the algorithm never separates them. The separation rule gives the agent with the higher
 * index of such a pair (-1, 0) instead: the pair parts in one step. It is active whenever
 * the step is already beyond the algorithm's bits (some agent's avoidance settings differ
 * from the defaults, or a boundary loop exists) and wherever orca_sim_set_separation turned
 * it on; otherwise the step is the algorithm's, bit for bit (and such a pair stays fused).
 * It changes nothing but that degenerate direction. */

/** Turns the separation of coincident agents on (1) or off (0, at creation) for every step,
 * plain scenes included (the step then runs the extended path). Part of the state: the hash
 * and snapshots carry it when on. */
ORCA_API orca_status orca_sim_set_separation(orca_sim *sim, int on);
/** The option as set (0 for sim == NULL). */
ORCA_API int orca_sim_get_separation(const orca_sim *sim);
/** 1 when the next step separates coincident agents: the option, or avoidance settings away
 * from the defaults, or a boundary loop, or the density-dependent speed (0 for sim == NULL). */
ORCA_API int orca_sim_separation_active(const orca_sim *sim);

/* --- density-dependent speed (docs/extensions.md, "Density-dependent speed") ------------- */
/* Off by default: then the step is the algorithm's, bit for bit. When on, each step estimates
 * every solved agent's local density rho from its neighbour list (a biweight kernel, the agent
 * itself included; no extra search) and solves with its preferred velocity times
 * f(rho) = 1 - exp(-gamma (1/rho - 1/max_density)) for rho < max_density, 0 otherwise (the
 * pedestrians' fundamental diagram: slower in a denser crowd). The stored preferred velocities
 * are unchanged: only the step's copy is scaled. The exp is the library's own (+ - * / only).
 * The kernel reaches `radius`, or the last entry of a full neighbour list when that is nearer;
 * agents beyond neighbor_dist are not in the list, so give the agents neighbor_dist >= radius. */
/** radius in [2^-30, 2^23] m; gamma and max_density in [2^-30, 2^30] m^-2 (docs/limits.md). */
#define ORCA_DENSITY_RADIUS_MIN 9.31322574615478515625e-10
#define ORCA_DENSITY_RADIUS_MAX 8388608.0
#define ORCA_DENSITY_GAMMA_MIN 9.31322574615478515625e-10
#define ORCA_DENSITY_GAMMA_MAX 1073741824.0
#define ORCA_DENSITY_MAX_MIN 9.31322574615478515625e-10
#define ORCA_DENSITY_MAX_MAX 1073741824.0
typedef struct orca_density_speed {
    double radius;      /**< m: the kernel's reach (default 2) */
    double gamma;       /**< m^-2: how fast the speed falls with density (default 1.913) */
    double max_density; /**< agents per m^2 at which the agents stop (default 5.4) */
} orca_density_speed;
/** The defaults as an initializer: radius 2 m, gamma 1.913 m^-2, max_density 5.4 m^-2
 * (Weidmann's fundamental diagram). */
#define ORCA_DENSITY_SPEED_DEFAULT {2.0, 1.913, 5.4}
/** The same as a function. */
ORCA_API orca_density_speed orca_density_speed_default(void);
/** Turns the density-dependent speed on with the parameters *params (checked first: on a
 * refusal nothing changes and the message names the value), or off with params NULL (off at
 * creation). Part of the state: the hash and snapshots carry the parameters when on. */
ORCA_API orca_status orca_sim_set_density_speed(orca_sim *sim, const orca_density_speed *params);
/** 1 when on, 0 when off (also for sim == NULL). out (may be NULL) receives the parameters
 * when on, the defaults when off. */
ORCA_API int orca_sim_get_density_speed(const orca_sim *sim, orca_density_speed *out);

/* --- pedestrian model (docs/pedestrians.md) ---------------------------------------------- */
/* Off by default: then the step is the algorithm's, bit for bit. When on, each solved agent i
 * keeps a time gap behind the agents ahead of it: for each neighbour j ahead along i's
 * preferred velocity P (and not a walker coming towards i that i passes first), within reach,
 * the soft half-plane Dot(v, n) <= (|d| - (r_i + r_j + buffer)) / time_gap, n = d / |d|, goes
 * after the agent half-planes (at most max_planes of them, in the list's order), and the
 * agent's ORCA time horizon is min(time_horizon, time_gap). An agent of stream g >= 0 with a
 * neighbour of another stream h >= 0 within counter_reach whose stored preferred velocity
 * opposes P (Dot < 0) is in counter mode: no headway half-planes, its full time horizon. The
 * neighbours' preferred velocities are the stored ones at the start of the step (the same
 * bits for any worker count, with a step rule or without). Refused together with the
 * density-dependent speed (both set the walking speed). */
/** time_gap in [2^-30, 2^30] s; buffer in [0, 2^21] m; counter_reach in [0, 2^23] m;
 * max_planes in [1, ORCA_MAX_NEIGHBORS_LIMIT]. */
#define ORCA_PED_TIME_GAP_MIN 9.31322574615478515625e-10
#define ORCA_PED_TIME_GAP_MAX 1073741824.0
#define ORCA_PED_BUFFER_MAX 2097152.0
#define ORCA_PED_COUNTER_REACH_MAX 8388608.0
typedef struct orca_pedestrian {
    double time_gap;      /**< s: T, the headway kept to the agent ahead (default 0.5) */
    double buffer;        /**< m: b, added to the two radii in the headway (default 0.02) */
    double counter_reach; /**< m: Dc, how near an opposing stream puts an agent in counter
                               mode (default 2) */
    int max_planes;       /**< the most headway half-planes an agent gets (default 4) */
} orca_pedestrian;
/** The defaults as an initializer: time_gap 0.5 s, buffer 0.02 m, counter_reach 2 m,
 * max_planes 4. */
#define ORCA_PEDESTRIAN_DEFAULT {0.5, 0.02, 2.0, 4}
/** The same as a function. */
ORCA_API orca_pedestrian orca_pedestrian_default(void);
/** Turns the pedestrian model on with the parameters *params (checked first: on a refusal
 * nothing changes and the message names the value; refused while the density-dependent speed
 * is on), or off with params NULL (off at creation). Part of the state: the hash and snapshots
 * carry the parameters when on. orca_sim_set_density_speed refuses to turn the density speed
 * on while this is on. */
ORCA_API orca_status orca_sim_set_pedestrian(orca_sim *sim, const orca_pedestrian *params);
/** 1 when on, 0 when off (also for sim == NULL). out (may be NULL) receives the parameters
 * when on, the defaults when off. */
ORCA_API int orca_sim_get_pedestrian(const orca_sim *sim, orca_pedestrian *out);
/** An agent's stream (the pedestrian model's counter mode): -1 (none, the default: never
 * opposes anybody) or a number >= 0 (streams with different numbers oppose each other when
 * they walk against each other). Part of the state: the hash and snapshots carry every
 * agent's stream while some agent has one >= 0. Values below -1 are refused. */
ORCA_API orca_status orca_agent_set_stream(orca_sim *sim, orca_agent_id id, int32_t stream);
ORCA_API orca_status orca_agent_get_stream(const orca_sim *sim, orca_agent_id id, int32_t *out);

/* --- per-agent diagnostics (docs/extensions.md, "Diagnostics") --------------------------- */

/** What the last step did for one agent (when diagnostics are on). */
typedef struct orca_agent_diagnostics {
    int fallback;          /**< 1: the linear program failed and the fallback chose the velocity */
    int failed_constraint; /**< the index (hard constraints first) where the program failed, or -1 */
    int neighbor_count;    /**< agents in the neighbour list */
    int candidates;        /**< agents it considers within neighbor_dist (itself excluded) */
    int neighbors_cut;     /**< 1: candidates > max_neighbors (the list was cut) */
    int blocked;           /**< 1: preferred velocity p != 0 and new velocity v with
                                100 * v.v <= p.p (at most a tenth of the wanted speed) */
    int locked;            /**< 1: the agent was locked (no solve; the fields above are 0) */
    int headway_planes;    /**< the pedestrian model's headway half-planes it got
                                (docs/pedestrians.md; 0 with the model off) */
    int counter_mode;      /**< 1: the pedestrian model put it in counter mode */
} orca_agent_diagnostics;

/** Counts over all agents of the last step with diagnostics on. */
typedef struct orca_step_diagnostics {
    int agents;    /**< agents in that step */
    int fallback;  /**< agents whose velocity came from the fallback */
    int cut;       /**< agents whose neighbour list was cut at max_neighbors */
    int blocked;   /**< agents blocked */
    int locked;    /**< locked agents */
    int headway;   /**< the pedestrian model's headway half-planes, summed over the agents */
    int counter;   /**< agents the pedestrian model put in counter mode */
} orca_step_diagnostics;

/** Turns per-agent diagnostics on or off (off at creation; not part of the state: snapshots
 * and the hash ignore it). When on, each step records every agent's diagnostics; the step
 * then runs the extensions' neighbour search (exact candidate counts), slower than the plain
 * step but with the same bits. */
ORCA_API orca_status orca_sim_set_diagnostics(orca_sim *sim, int on);
ORCA_API int orca_sim_get_diagnostics(const orca_sim *sim);
/** The last step's diagnostics of one agent. All zero (failed_constraint -1) for an agent
 * added since, after a load, or when no step has run with diagnostics on (ORCA_OK). */
ORCA_API orca_status orca_agent_get_diagnostics(const orca_sim *sim, orca_agent_id id,
                                                orca_agent_diagnostics *out);
/** Bulk: every agent's diagnostics in index order into out (room for capacity entries; writes
 * min(capacity, agent count)); *count (may be NULL) receives the agent count. */
ORCA_API orca_status orca_sim_diagnostics(const orca_sim *sim, orca_agent_diagnostics *out,
                                          int capacity, int *count);
/** The counts of the last step with diagnostics on (all zero before one). */
ORCA_API orca_status orca_sim_step_diagnostics(const orca_sim *sim, orca_step_diagnostics *out);

/* --- spatial queries (docs/extensions.md, "Spatial queries") ---------------------------- */

/* Exact answers over the agents' current positions, as agent indices (orca_sim_agent_at gives
 * the handles): each equals a scan over every agent, in the order stated. Each writes at most
 * its capacity of indices and sets *count (may be NULL) to the number of agents that match,
 * which may be larger: call again with more room. The grid is built if the state changed
 * since the last step or query (linear work, as the next step would do); then a query looks
 * only at the grid cells its region touches. Not concurrent with other calls on sim. */

/** Agents at squared distance (p - center).(p - center) <= radius * radius, in order of
 * (squared distance, index). center: |x|, |y| < 2^21; radius in [0, 2^23] m. */
ORCA_API orca_status orca_sim_query_radius(const orca_sim *sim, orca_vec2 center, double radius,
                                           int *indices, int capacity, int *count);
/** The k agents nearest to point, in order of (squared distance, index): the first k of that
 * order over every agent (all of them when there are fewer). indices holds k entries;
 * *count receives min(k, agent count). point: |x|, |y| < 2^21; k >= 0. */
ORCA_API orca_status orca_sim_query_nearest(const orca_sim *sim, orca_vec2 point, int k,
                                            int *indices, int *count);
/** Agents with lo.x <= x <= hi.x and lo.y <= y <= hi.y (edges included), in index order.
 * lo and hi finite (any magnitude) with lo <= hi in both components. */
ORCA_API orca_status orca_sim_query_box(const orca_sim *sim, orca_vec2 lo, orca_vec2 hi,
                                        int *indices, int capacity, int *count);

/* --- state ----------------------------------------------------------------------------- */

/** 64-bit hash of the state's values (docs/determinism.md): agent count, then per agent in
 * index order position, velocity, preferred velocity and every parameter, then segment count
 * and ends, then the extensions' sections only when used (docs/extensions.md). Each double
 * enters as its IEEE-754 bit pattern read as an integer (so -0.0 and
 * +0.0 differ), every NaN as 0x7ff8000000000000; integers most significant byte first. The
 * same on every machine, whatever its byte order. Handles and the step count do not enter. */
ORCA_API uint64_t orca_sim_hash(const orca_sim *sim);

/** Writes the whole simulation (agents, segments, handles' slots and generations, step
 * count; not the identity, orca_sim_id) as a versioned,
 * byte-order-independent snapshot. With buffer NULL or capacity too small, *size receives
 * the size needed and ORCA_ERR_LIMIT is returned (nothing written) unless buffer is NULL
 * (then ORCA_OK). */
ORCA_API orca_status orca_sim_save(const orca_sim *sim, void *buffer, size_t capacity,
                                   size_t *size);
/** Replaces the simulation's state with a snapshot; corrupt, truncated or foreign bytes are
 * refused with ORCA_ERR_FORMAT and the simulation is unchanged. The worker setup and the
 * identity (orca_sim_id) are kept: handles this simulation issued and saved with the
 * snapshot are valid again afterwards; a snapshot of another simulation gives its objects
 * the slots and generations they had there, under this simulation's identity (handles of
 * the other simulation stay foreign here: see the top of this file). */
ORCA_API orca_status orca_sim_load(orca_sim *sim, const void *buffer, size_t size);

#ifdef __cplusplus
}
#endif
#endif
