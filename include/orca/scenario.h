/* SPDX-License-Identifier: MIT */
/* orca scenarios: a simulation plus goals and the preferred-velocity rule, and the built-in
 * scenes of the algorithm's checks (antipodal circle, crossing blocks, a gap in a wall, a two-way
 * corridor) and a random scene for benchmarks. Shared by the tests, the orca command and the
 * benchmark. Everything here uses no libm function but sqrt: the results are the same bits
 * everywhere. The rule and the scenes are documented exactly in docs/scenarios.md. */
#ifndef ORCA_SCENARIO_H
#define ORCA_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "orca/nav.h"
#include "orca/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What steers an agent of a scenario. */
typedef enum orca_goal_kind {
    ORCA_GOAL_POINT = 0,    /**< walk to `target` at `preferred_speed` (docs/scenarios.md) */
    ORCA_GOAL_VELOCITY = 1, /**< keep the fixed preferred velocity `target` */
    ORCA_GOAL_NONE = 2,     /**< preferred velocity zero */
    ORCA_GOAL_SET = 3       /**< walk to the nearest point of goal set `goal_set` (by path
                                 length with navigation, else by straight distance) at
                                 `preferred_speed` (docs/navigation.md, "Shared goals") */
} orca_goal_kind;

typedef struct orca_goal {
    orca_goal_kind kind;
    orca_vec2 target;       /**< goal point (m) or fixed preferred velocity (m/s); for
                                 ORCA_GOAL_SET the set's point the agent heads for now (set
                                 by the scenario; ignored when adding) */
    double preferred_speed; /**< m/s, >= 0, for ORCA_GOAL_POINT and ORCA_GOAL_SET */
    int goal_set;           /**< for ORCA_GOAL_SET: the set's index (orca_scenario_add_goal_set) */
} orca_goal;

/** The default goal: kind ORCA_GOAL_NONE, target (0, 0), preferred_speed 1 m/s (the walking
 * speed of a point goal whose speed is not given). With orca_agent_def_default() these are the
 * one set of defaults of every front end: scene files, Python and the browser module take
 * theirs from these two functions (the table in docs/scenarios.md, "Defaults"). */
ORCA_API orca_goal orca_goal_default(void);

/** Built-in scenes. */
typedef enum orca_scene_kind {
    ORCA_SCENE_CIRCLE = 0,   /**< agents on a circle walk to the antipodal point */
    ORCA_SCENE_CROSSING = 1, /**< two square blocks cross at right angles */
    ORCA_SCENE_WALL_GAP = 2, /**< a crowd passes a gap in a wall */
    ORCA_SCENE_CORRIDOR = 3, /**< two groups pass each other in a corridor */
    ORCA_SCENE_RANDOM = 4,   /**< uniform in a square of side 4*sqrt(N), random goals in it */
    ORCA_SCENE_COUNT = 5
} orca_scene_kind;

/** "circle", "crossing", "wallgap", "corridor", "random"; NULL for an unknown kind. */
ORCA_API const char *orca_scene_name(orca_scene_kind kind);
/** The kind of a name above; -1 when unknown. */
ORCA_API int orca_scene_from_name(const char *name);

typedef struct orca_scenario orca_scenario;

/** An empty scenario: a new simulation (sim_def may be NULL), the step dt (> 0) and the seed
 * of the preferred-velocity perturbation. */
ORCA_API orca_status orca_scenario_create(const orca_sim_def *sim_def, double dt, uint64_t seed,
                                          orca_scenario **out);
/** A built-in scene with agent_count agents (the scene may round it, see docs/scenarios.md;
 * 0 means the scene's default size) and seed (also used to place random scenes). */
ORCA_API orca_status orca_scenario_create_builtin(orca_scene_kind kind, int agent_count,
                                                  uint64_t seed, const orca_sim_def *sim_def,
                                                  orca_scenario **out);
ORCA_API void orca_scenario_destroy(orca_scenario *sc);

/** The simulation inside (owned by the scenario). */
ORCA_API orca_sim *orca_scenario_sim(orca_scenario *sc);
ORCA_API const char *orca_scenario_last_error(const orca_scenario *sc);
ORCA_API const char *orca_scenario_name(const orca_scenario *sc); /**< "circle", ... or "custom" */
ORCA_API orca_status orca_scenario_set_name(orca_scenario *sc, const char *name);
ORCA_API double orca_scenario_dt(const orca_scenario *sc);
ORCA_API uint64_t orca_scenario_seed(const orca_scenario *sc);

/** Adds an agent with its goal (the agent's position is its start). */
ORCA_API orca_status orca_scenario_add_agent(orca_scenario *sc, const orca_agent_def *def,
                                             const orca_goal *goal, orca_agent_id *out);
/** The goal and start of the agent at index. */
ORCA_API orca_status orca_scenario_agent_goal(const orca_scenario *sc, int index, orca_goal *goal,
                                              orca_vec2 *start);
/** Gives the agent at index (added through the scenario) a new goal, checked as
 * orca_scenario_add_agent checks one; a goal set's agent heads for the set's nearest point
 * from where it stands. With navigation on it plans a path to the new goal at the next step
 * (docs/navigation.md, "Changing a goal"); an agent whose new goal is neither a point nor a
 * set drops its path state. An agent with waypoints is refused (remove them first with
 * orca_scenario_set_waypoints and count 0). A refusal names the value and changes nothing. */
ORCA_API orca_status orca_scenario_set_agent_goal(orca_scenario *sc, int index,
                                                  const orca_goal *goal);

/** Waypoints (an extension, off by default; docs/extensions.md, "Waypoints"): the points an
 * agent with an ORCA_GOAL_POINT goal visits, in order, before its goal point. The agent
 * walks to its current target by the rule (docs/scenarios.md); at the start of each step
 * (before the rule) an agent whose squared distance to its current target is <= D*D, or that
 * has passed it (it is beyond the line through the target perpendicular to the leg that leads
 * there: from the previous target; to waypoint 0 from the goal on a looping route, else from
 * where the agent stood when this call gave it its waypoints), takes the next one (at most one
 * per step), with D = arrive_distance, or the agent's radius when arrive_distance is 0. After the last waypoint comes the goal point, which behaves exactly
 * like a goal without waypoints (the same bits). With loop = 1 the goal is followed by the
 * first waypoint again, for ever; a looping agent never counts as arrived.
 * Takes the agent at simulation index `index` (added through orca_scenario_add_agent) and
 * count points (count 0 removes the waypoints). Accepted: count 0 to ORCA_WAYPOINTS_MAX,
 * points with finite coordinates of magnitude below 2^21, loop 0 or 1, arrive_distance 0 or
 * in [2^-30, 2^23] m. Sets the agent's current waypoint to 0 (the first). Anything else is
 * refused (ORCA_ERR_ARGUMENT, ORCA_ERR_NULL for points NULL with count > 0, ORCA_ERR_LIMIT
 * for count, ORCA_ERR_MEMORY) with a message naming the value; the scenario is unchanged. */
#define ORCA_WAYPOINTS_MAX 1048576
ORCA_API orca_status orca_scenario_set_waypoints(orca_scenario *sc, int index,
                                                 const orca_vec2 *points, int count, int loop,
                                                 double arrive_distance);
/** The waypoints of the agent at index: writes min(count, capacity) points (points may be
 * NULL when capacity is 0) and sets *count (0 for an agent without waypoints), *loop and
 * *arrive_distance (each pointer may be NULL). */
ORCA_API orca_status orca_scenario_agent_waypoints(const orca_scenario *sc, int index,
                                                   orca_vec2 *points, int capacity, int *count,
                                                   int *loop, double *arrive_distance);
/** The agent's current target: 0 .. count-1 a waypoint, count the goal point (0 for an agent
 * without waypoints). It is part of the scenario's state (orca_scenario_hash). */
ORCA_API orca_status orca_scenario_waypoint_index(const orca_scenario *sc, int index,
                                                  int *current);
/** Sets the current target (0 .. count, as above), e.g. to restore a saved run. */
ORCA_API orca_status orca_scenario_set_waypoint_index(orca_scenario *sc, int index, int current);
/** The scenario's state hash: orca_sim_hash of its simulation when no agent has waypoints
 * (so every scene without waypoints has the hash it always had); otherwise the same FNV-1a
 * continued over each waypoint agent's current target (docs/extensions.md). */
ORCA_API uint64_t orca_scenario_hash(const orca_scenario *sc);

/** Navigation (an extension, off by default; docs/navigation.md): with it on, every agent with
 * an ORCA_GOAL_POINT or ORCA_GOAL_SET goal walks along a shortest path that keeps its radius
 * from every wall (segments and walkable-area loops) instead of straight at its goal: at the
 * start of each step, before the rule, each such agent plans when it has no path yet, when its
 * target or the walls changed, or when it made no progress toward its next corner for
 * ORCA_NAV_STUCK_TIME seconds (re-routing: that corner then costs ORCA_NAV_PENALTY_TIME *
 * preferred_speed metres more), passes the corners it is beyond, and heads for the next; on the last leg the rule is
 * the plain one (the same bits as without navigation). An agent without a path stands (its
 * preferred velocity is zero) and is counted by orca_scenario_nav_unreachable. With it off
 * nothing here runs and every result is as before. ORCA_ERR_ARGUMENT for on not 0 or 1. */
#define ORCA_NAV_STUCK_TIME 4.0
#define ORCA_NAV_PENALTY_TIME 8.0
#define ORCA_NAV_PROGRESS 0.1
#define ORCA_NAV_REVIEW_TIME 1.0
#define ORCA_NAV_DETOUR 1.0
ORCA_API orca_status orca_scenario_set_navigation(orca_scenario *sc, int on);
ORCA_API int orca_scenario_get_navigation(const orca_scenario *sc);

/** The leg check (docs/navigation.md, "Following a path", step 4; an extension, off by
 * default): an agent on its last leg that has made no progress for ORCA_NAV_STUCK_TIME checks,
 * and again each ORCA_NAV_STUCK_TIME while it makes none, that the leg from where it stands
 * to its goal is still clear of the walls; a blocked leg (a crowd pushed it aside beside a
 * door) is planned again from there, and the path replaces the leg when longer than it by
 * more than ORCA_NAV_DETOUR, or at any length from the second check (2 ORCA_NAV_STUCK_TIME
 * without progress: it stands against a wall beside a jamb), so that no agent is left standing
 * against a wall. Such a path is not re-routed at its corners (a queue holds the agent there);
 * the check goes on at them, and plans again when the leg to the corner is blocked. (Before
 * its last leg, re-routing after ORCA_NAV_STUCK_TIME plans it again anyway.) Off, every result
 * is as before. ORCA_ERR_ARGUMENT for on not 0 or 1. */
ORCA_API orca_status orca_scenario_set_nav_check(orca_scenario *sc, int on);
ORCA_API int orca_scenario_get_nav_check(const orca_scenario *sc);

/** How a goal-set agent chooses the point it heads for (docs/navigation.md, "Exit choice"). */
typedef enum orca_exit_choice {
    ORCA_EXIT_NEAREST = 0,  /**< the nearest by path, at every plan (the default) */
    ORCA_EXIT_CALM = 1,     /**< the quickest by walking time at the first plan; then another
                                 only when quicker by ORCA_NAV_EXIT_MARGIN, and never one it
                                 left */
    ORCA_EXIT_QUICKEST = 2  /**< as calm, the time counting the queue ahead at an exit (agents
                                 heading there with less of their path left, over the exit's
                                 capacity), reviewed each ORCA_NAV_REVIEW_TIME it makes no
                                 progress */
} orca_exit_choice;
#define ORCA_NAV_EXIT_MARGIN 0.15
#define ORCA_NAV_EXIT_CHANGES 2
#define ORCA_NAV_EXIT_COMMIT 5.0
#define ORCA_NAV_CHOICE_POINTS 64
#define ORCA_NAV_EXIT_CAPACITY 1.0
#define ORCA_NAV_FLOW_TIME 10.0
/** Sets the exit choice of every goal set of at most ORCA_NAV_CHOICE_POINTS points (larger
 * sets keep the nearest); with navigation off it does nothing. Off (ORCA_EXIT_NEAREST), every
 * result is as before. ORCA_ERR_ARGUMENT for a value not in the enum. */
ORCA_API orca_status orca_scenario_set_exit_choice(orca_scenario *sc, int choice);
ORCA_API int orca_scenario_get_exit_choice(const orca_scenario *sc);
/** "nearest", "calm", "quickest"; NULL for another value. */
ORCA_API const char *orca_exit_choice_name(int choice);
/** The choice of a name above; -1 when unknown. */
ORCA_API int orca_exit_choice_from_name(const char *name);

/** A named goal set (exits, gathering points): count points (1 .. ORCA_NAV_GOALS_MAX, finite,
 * magnitude below 2^21), name 1 .. 63 characters, unique in the scenario. *out (may be NULL)
 * receives its index (0, 1, ... in the order added), which ORCA_GOAL_SET goals name. Agents
 * heading for one set share one structure per radius (docs/navigation.md, "Shared goals"). */
ORCA_API orca_status orca_scenario_add_goal_set(orca_scenario *sc, const char *name,
                                                const orca_vec2 *points, int count, int *out);
/** Makes a goal set an exit (docs/navigation.md, "Exits"): at the start of each step every
 * agent heading for the set whose distance to the set's point it heads for is at most
 * arrive_distance (0: its radius; else in [2^-30, 2^23] m) leaves the simulation (removed, in
 * index order, before anything else of the step) and is counted by orca_scenario_exited.
 * Until it leaves, such an agent counts as arrived. */
ORCA_API orca_status orca_scenario_set_goal_set_exit(orca_scenario *sc, int set,
                                                     double arrive_distance);
/** Whether the set is an exit, and its arrive distance (either pointer may be NULL). */
ORCA_API orca_status orca_scenario_goal_set_exit(const orca_scenario *sc, int set, int *exit,
                                                 double *arrive_distance);
/** Agents that left by exits so far, and the step count at which the last one left (-1 when
 * none); either pointer may be NULL. */
ORCA_API orca_status orca_scenario_exited(const orca_scenario *sc, int *count, int64_t *last_step);
/** Agents that left by point `point` of exit set `set` so far, and the step count at which
 * the last of them left (-1 when none); either pointer may be NULL. */
ORCA_API orca_status orca_scenario_exit_departures(const orca_scenario *sc, int set, int point,
                                                   int *count, int64_t *last_step);
/** The capacity of each point of an exit set for the quickest exit choice: agents a second
 * (finite, in [2^-30, 2^30]; ORCA_NAV_EXIT_CAPACITY until set: about what a 1 m door lets
 * through, docs/navigation.md, "Exit choice"). */
ORCA_API orca_status orca_scenario_set_goal_set_capacity(orca_scenario *sc, int set,
                                                         double capacity);
ORCA_API orca_status orca_scenario_goal_set_capacity(const orca_scenario *sc, int set,
                                                     double *capacity);
ORCA_API int orca_scenario_goal_set_count(const orca_scenario *sc);
/** The index of the set called name, or -1. */
ORCA_API int orca_scenario_goal_set_find(const orca_scenario *sc, const char *name);
/** The set's name and points (the first min(count, capacity) to points; *count its size). */
ORCA_API orca_status orca_scenario_goal_set_get(const orca_scenario *sc, int set, const char **name,
                                                orca_vec2 *points, int capacity, int *count);

/** What navigation knows of one agent (docs/navigation.md, "Diagnostics"). */
typedef struct orca_nav_agent {
    int navigating;        /**< 1 when navigation steers this agent */
    orca_nav_result result; /**< of its last plan */
    int corner;            /**< the corner it heads for: 0 .. corners (corners: the last leg) */
    int corners;           /**< corners of its path */
    double length;         /**< the path's length when planned (m) */
    int plans;             /**< plans made, re-routings included */
    int reroutes;          /**< plans made because it made no progress */
    orca_vec2 goal;        /**< the goal point its path ends at */
} orca_nav_agent;

/** The navigation state of the agent at index; its path's corners to corners (the first
 * min(corners, capacity); corners may be NULL when capacity is 0). Before its first plan
 * navigating is 1 and corners 0. */
ORCA_API orca_status orca_scenario_agent_nav(const orca_scenario *sc, int index,
                                             orca_nav_agent *out, orca_nav_corner *corners,
                                             int capacity);
/** Agents whose last plan found no path (navigation on), for the current state. */
ORCA_API int orca_scenario_nav_unreachable(const orca_scenario *sc);

/** Navigation's counts over the whole run (docs/navigation.md, "Diagnostics"): every agent
 * ever added through the scenario, those that left by exits included. */
typedef struct orca_nav_counts {
    int64_t plans;        /**< plans made (re-routings and replans included) */
    int64_t reroutes;     /**< plans made because an agent made no progress at a corner */
    int64_t replans;      /**< plans made because an agent's leg was blocked (leg check) */
    int64_t exit_changes; /**< plans that changed the goal-set point an agent heads for */
    int64_t exit_returns; /**< of those, changes back to a point the agent had left */
    int agents_changed;   /**< agents that changed their point at least once */
    int most_changes;     /**< the most changes of one agent */
    int exited;           /**< agents that left by exits (orca_scenario_exited) */
    int at_exits;         /**< agents now within their exit's arrive distance: they leave at
                               the start of the next step (arrived, not yet exited) */
    int arrived;          /**< agents arrived now (orca_scenario_arrived_count) plus exited:
                               every agent when all have arrived */
    int unreachable;      /**< orca_scenario_nav_unreachable */
} orca_nav_counts;
ORCA_API orca_status orca_scenario_nav_counts(const orca_scenario *sc, orca_nav_counts *out);

/* --- the pedestrian preset (docs/pedestrians.md, "The preset") ------------------------- */

/** The preset's step length when a scene gives none (s). */
#define ORCA_PEDESTRIAN_DT 0.05
/** The preset's agent: radius 0.18 m, max_speed 2 m/s, neighbor_dist 2 m, max_neighbors 32,
 * time_horizon 2 s, obstacle_time_horizon 0.5 s; position and velocities zero. Every front end
 * starts a pedestrian scene's agents from it (as from orca_agent_def_default otherwise). */
ORCA_API orca_agent_def orca_pedestrian_agent_def(void);
/** The preset's free (preferred) walking speed of the agent with key `key` (its creation
 * ordinal in the scenario) in a scenario of seed `seed`: Weidmann's N(1.34, 0.26) m/s,
 * drawn as an Irwin-Hall sum of four uniforms (no libm: docs/pedestrians.md gives every
 * operation) and clamped to [0.7, 2.0] m/s. */
ORCA_API double orca_pedestrian_free_speed(uint64_t seed, uint64_t key);
/** The preset's agent and free speed for the agent orca_scenario_add_agent adds next (key:
 * the scenario's count of agents added so far): *def = orca_pedestrian_agent_def() and
 * *free_speed = orca_pedestrian_free_speed(seed, key) (either pointer may be NULL). */
ORCA_API orca_status orca_scenario_pedestrian_agent(const orca_scenario *sc, orca_agent_def *def,
                                                    double *free_speed);
/** Turns the pedestrian model of the scenario's simulation on with *params
 * (orca_sim_set_pedestrian: the same checks and refusals; NULL turns it off) and gives every
 * agent with an ORCA_GOAL_SET goal and no stream (-1) its goal set's index as stream. While
 * the model is on, orca_scenario_add_agent gives each agent it adds with an ORCA_GOAL_SET goal
 * its set's index as stream too (orca_agent_set_stream changes it afterwards); point,
 * velocity and no goals keep -1. A goal changed later keeps the stream. */
ORCA_API orca_status orca_scenario_set_pedestrian(orca_scenario *sc,
                                                  const orca_pedestrian *params);

/** Sets every agent's preferred velocity by the rule (for the current step count), steps the
 * simulation by dt, then updates the arrival record and the deepest overlaps. */
ORCA_API orca_status orca_scenario_step(orca_scenario *sc);

/** Agents with ORCA_GOAL_POINT (or ORCA_GOAL_SET: the set's point they head for) currently
 * within their radius of the goal (others count as arrived); an agent with waypoints only once its current target is the goal point and it
 * does not loop. */
ORCA_API int orca_scenario_arrived_count(const orca_scenario *sc);
/** The step count at which all agents were first arrived at once, or -1. */
ORCA_API int64_t orca_scenario_all_arrived_step(const orca_scenario *sc);

/** Deepest overlaps seen over all steps so far (and the initial state), as fractions of the
 * radius: agents (rA + rB - distance) / min(rA, rB), walls (r - distance) / r; 0 when none. */
ORCA_API double orca_scenario_max_agent_overlap(const orca_scenario *sc);
ORCA_API double orca_scenario_max_wall_overlap(const orca_scenario *sc);
/** Recording (on by default): after each step, measure the deepest overlaps and the
 * arrival record above (linear work on the calling thread). Off, orca_scenario_step only sets
 * the preferred velocities and steps (the fallback total is still kept): what a benchmark
 * times. The simulation's bits are the same either way. */
ORCA_API orca_status orca_scenario_set_recording(orca_scenario *sc, int on);

/** How many agent solves used the fallback, summed over all steps. */
ORCA_API uint64_t orca_scenario_fallback_total(const orca_scenario *sc);

/** Snapshots of a whole scenario (docs/scenarios.md, "Snapshots"): its simulation
 * (orca_sim_save's bytes inside), dt, seed, name, every agent's goal, start, waypoints and
 * navigation state, the goal sets and exits, the counters and the record; versioned and
 * byte-order independent. Navigation's structures are not in it (they follow from the walls
 * and are rebuilt as needed). Stepping a loaded scenario gives the same bits as stepping the
 * saved one (orca_scenario_hash and orca_sim_hash), in this scenario or another.
 * Save: with buffer NULL, *size receives the size needed (ORCA_OK); with capacity too small,
 * the size and ORCA_ERR_LIMIT (nothing written). */
ORCA_API orca_status orca_scenario_save(const orca_scenario *sc, void *buffer, size_t capacity,
                                        size_t *size);
/** Replaces the scenario's whole state (its simulation's included, as orca_sim_load does)
 * with a snapshot of orca_scenario_save, from this scenario or any other. Corrupt, truncated
 * or foreign bytes are refused with ORCA_ERR_FORMAT and a message naming the field and its
 * offset; ORCA_ERR_MEMORY when out of memory; on any refusal the scenario and its simulation
 * are unchanged. The simulation keeps its worker setup and identity (orca_sim_id): the
 * agents have the slots and generations they had when saved, so their handles from the saved
 * scenario, with this simulation's identity, name them here. */
ORCA_API orca_status orca_scenario_load(orca_scenario *sc, const void *buffer, size_t size);

/** Deterministic sine and cosine of 2*pi*turns using only + - * / (no libm): the same bits
 * everywhere; accurate to a few units in the last place for |turns| < 2^20. */
ORCA_API void orca_sincos_turns(double turns, double *sine, double *cosine);

#ifdef __cplusplus
}
#endif
#endif
