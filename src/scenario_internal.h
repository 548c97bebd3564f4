/* SPDX-License-Identifier: MIT */
/* Private: what the scenario's files share (docs/scenarios.md describes what they compute).
 * The scenario object and its tables are defined here; each file owns one part:
 *   scenario.c           the object: creation, accessors, errors, the handle -> key map,
 *                        agents and their goals, the scenario hash
 *   scenario_rule.c      the preferred-velocity rule, and waypoints (the targets it reads)
 *   scenario_sets.c      goal sets and exits
 *   scenario_nav.c       navigation's glue: each agent's path, planned, followed, re-routed
 *   scenario_step.c      the step (the passes before the simulation's) and its record
 *   scenario_builtin.c   the built-in scenes, their names and placement generator
 *   scenario_snapshot.c  the scenario snapshot (save and load)
 *   scenario_pedestrian.c  the pedestrian preset: its agent, free speeds and streams
 *   sincos.c             the deterministic sine and cosine (orca_sincos_turns)
 * Names shared between the files carry the orca_sc_ prefix (safe in a static archive) but are
 * not part of the API; the shared library hides them. Only + - * / and sqrt on binary64, and
 * integer operations: the same bits everywhere. */
#ifndef ORCA_SCENARIO_INTERNAL_H
#define ORCA_SCENARIO_INTERNAL_H

#include "fp.h"

#include <stdint.h>
#include <string.h>

#include "orca/scenario.h"
#include "nav_internal.h"
#include "scenario_rule.h"
#include "snap_io.h"
#include "vec.h"

#define SC_ERROR_SIZE 256
#define NAV_RETIRED 7 /* orca_scenario::retired */
#define SC_NAME_MAX 63 /* longest name accepted by orca_scenario_set_name */

/* From this many agents on, the scenario's per-agent passes before the step (the entry table,
 * exits, navigation) run on the simulation's workers. */
#define NAV_TASK_MIN 1024

/* The splitmix64 increment (golden ratio), shared by the hash and the generator. */
#define SC_GOLDEN UINT64_C(0x9E3779B97F4A7C15)

/* An arrive distance (waypoints, exits): 0 (the agent's radius) or in [2^-30, 2^23] m. */
#define SC_ARRIVE_MIN 0x1.0p-30
#define SC_ARRIVE_MAX 0x1.0p23

/* 2*pi rounded to nearest binary64, as an exact hexadecimal literal (a decimal literal may be
 * converted to either neighbour of the nearest value by the C standard). */
#define SC_TWO_PI 0x1.921fb54442d18p+2

/* Waypoints of one agent (docs/extensions.md, "Waypoints"). The agent's goal.target holds
 * its current target (points[index], or `goal` once index == count), so the rule reads it
 * as it reads any point goal and agents without waypoints cost nothing extra. */
typedef struct sc_waypoints {
    orca_vec2 *points;
    int count;
    int index;  /* current target: 0 .. count-1 a waypoint, count the goal point */
    int prev;   /* index before this step's switch (put back when the step is refused) */
    int loop;
    double arrive; /* 0: the agent's radius */
    orca_vec2 goal; /* the goal point (the target after the last waypoint) */
    orca_vec2 route_start; /* the agent's position when the waypoints were set: where the leg
                              to waypoint 0 starts on a route that does not loop (an input,
                              like the points) */
} sc_waypoints;

/* Navigation's state of one agent (docs/navigation.md, "Following a path"). */
typedef struct sc_nav {
    int planned;       /* 0: plan at the next step */
    nav_route route;   /* its path (result, corners, goal) */
    int k, prev_k;     /* the corner it heads for (route.count: the last leg); before the step */
    int stuck, prev_stuck; /* steps without progress */
    double best, prev_best; /* least distance to the current corner's leave point (or goal) */
    orca_vec2 target;  /* the goal point the path was planned to */
    double radius;     /* the radius it was planned for */
    int has_avoid;     /* re-routing: avoid's corners cost a penalty */
    orca_vec2 avoid;
    int plans, reroutes;
    int replans;       /* plans made because its leg was blocked (the leg check) */
    int leg;           /* 1: its path is the leg check's (no re-routing at its corners) */
    int exit;          /* the goal-set point it heads for (-1: none yet) */
    int exit_changes;  /* times a plan changed the goal-set point it heads for */
    int returns;       /* of those, changes back to a point it had left */
    uint64_t left;     /* the points (0 .. 63) of its goal set it has left for another */
    orca_vec2 dir;     /* this step's direction (unit) while a corner lies ahead */
} sc_nav;

/* An agent heading for an exit point: the point's key and its remaining path length. */
typedef struct sc_queue {
    int64_t key;
    double rem;
} sc_queue;

/* A run of the sorted queue table: the entries first .. first+count-1 have this key. */
typedef struct sc_qrun {
    int64_t key;
    int first, count;
} sc_qrun;

/* A named goal set (orca_scenario_add_goal_set). */
typedef struct sc_goal_set {
    char name[64];
    orca_vec2 *points;
    int count;
    int exit;      /* orca_scenario_set_goal_set_exit */
    double arrive; /* its arrive distance (0: the agent's radius) */
    double capacity; /* agents a second each point lets out at least (the quickest choice) */
    int *departed;   /* per point: agents that left there */
    int64_t *last_departure; /* per point: the step count when the last left (-1: none) */
    double *flow;    /* per point: its outflow, agents a second (ORCA_NAV_FLOW_TIME average) */
} sc_goal_set;

/* One agent added through the scenario. Its index in sc->agents is its key (creation
 * ordinal); entries are never removed, so keys stay stable when agents are removed. */
typedef struct sc_agent {
    orca_agent_id id;
    orca_goal goal;
    orca_vec2 start;
    sc_waypoints *wp; /* NULL: no waypoints (the default) */
    sc_nav *nv;       /* NULL until navigation first steers it */
} sc_agent;

struct orca_scenario {
    orca_sim *sim;
    /* set only by orca_builtin_stream: the scene's agents go to emit, not to the simulation */
    orca_scene_emit_fn *emit;
    void *emit_ctx;
    int64_t emitted;
    double dt;
    uint64_t seed;
    char name[SC_NAME_MAX + 1];
    char error[SC_ERROR_SIZE];

    sc_agent *agents; /* every agent ever added through the scenario, by key */
    int agent_count;
    int agent_capacity;

    int32_t *map;      /* open addressing: handle -> key, -1 empty */
    int shared_keys;   /* 1 once two keys had the same handle (after a generation wrapped, or
                          a loaded snapshot handed out a handle again): key_at then asks the
                          map every time */
    uint32_t map_size; /* power of two, 0 when none */

    int waypoint_agents; /* entries with waypoints (0: the step skips the switching) */

    const uint64_t *rule_keys; /* NULL: entry e's rule key is e (its creation ordinal); orca on
                                  MPI's per-rank navigation (mpi/mpi_nav.c) gives each of its
                                  entries the run's */
    int navigation;      /* orca_scenario_set_navigation */
    int nav_check;       /* orca_scenario_set_nav_check */
    int exit_choice;     /* orca_scenario_set_exit_choice */
    int choice_reference; /* orca_sc_set_choice_reference */
    int64_t retired[NAV_RETIRED]; /* plans, re-routings, replans, exit changes, returns, agents that
                            changed and the most changes of one, of the paths dropped (a new
                            goal that is neither a point nor a set): NAV_RETIRED */
    orca_nav *nav;       /* created when navigation is first on */
    sc_goal_set *sets;
    int set_count, set_capacity;
    int set_agents;      /* entries with ORCA_GOAL_SET goals */
    int exit_sets;       /* sets that are exits */
    int exited;          /* agents that left by exits */
    int64_t exited_last_step;
    orca_agent_id *exit_ids; /* scratch: this step's leavers */
    int32_t *exit_ent;       /* scratch: their entries */
    int exit_cap;
    int32_t *ent;        /* the entry of each index this step (navigation, sets); after the
                            step, the first ent_hint of them are the next step's guesses */
    uint8_t *nav_flag;   /* scratch: per index, what orca_sc_nav_advance left to its serial
                            pass */
    orca_vec2 *pref;     /* scratch: per index, the rule's value orca_sc_nav_advance computed */
    int32_t *plan_list;  /* scratch: the indices that plan in this step, in order */
    double *qrem;        /* scratch: per index, the remaining path length to its exit point
                            (the queue-aware exit choice) */
    int64_t *qkey;       /* scratch: per index, that point's key (set, point), -1 none */
    sc_queue *queue;     /* scratch: (key, remaining) of every agent with an exit point,
                            sorted: the queues */
    /* NULL: the queues are orca_sc_queue_build's, of this simulation's agents; orca on MPI's
     * per-rank navigation (mpi/mpi_nav.c) gathers every rank's into sc->queue */
    orca_status (*queue_fn)(orca_scenario *sc, int n, void *ctx);
    void *queue_ctx;
    int queue_n, queue_cap;
    sc_qrun *qrun;       /* scratch: the table's runs of one key, by key */
    int qrun_n, qrun_cap;
    int ent_cap;
    int ent_hint;

    int measured_initial;
    int recording; /* 0: no overlap or arrival record (orca_scenario_set_recording) */
    int64_t all_arrived_step;
    double max_agent_overlap;
    double max_wall_overlap;
    uint64_t fallback_total;
};

/* --- small helpers -------------------------------------------------------------------- */

static inline int is_finite(double x)
{
    return x - x == 0.0; /* false for +-inf and NaN (fast-math is refused by fp.h) */
}

/* A point with finite coordinates of magnitude below 2^21 (docs/limits.md). */
static inline int is_coord(orca_vec2 p)
{
    return is_finite(p.x) && is_finite(p.y) && d_abs(p.x) < ORCA_COORD_LIMIT &&
           d_abs(p.y) < ORCA_COORD_LIMIT;
}

/* An arrive distance's range (SC_ARRIVE_MIN above). */
static inline int is_arrive(double d)
{
    return d == 0.0 || (d >= SC_ARRIVE_MIN && d <= SC_ARRIVE_MAX);
}

/* The same bits (a target moved, a loaded waypoint is the current one). */
static inline int same_point(orca_vec2 a, orca_vec2 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The splitmix64 output function (Steele, Lea, Flood 2014): a bijection of 64-bit integers. */
static inline uint64_t sc_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A path's `planned` word in the state hash, snapshots and MPI's records: bit 0 planned, bit 1
 * a leg check's path (docs/navigation.md, "State"). */
static inline unsigned sc_nav_planned_word(const sc_nav *v)
{
    return (unsigned)(v->planned | v->leg << 1);
}

/* Reads a `planned` word into v; 0 (v unchanged) when it is above 3. */
static inline int sc_nav_set_planned_word(sc_nav *v, uint64_t word)
{
    if (word > 3) {
        return 0;
    }
    v->planned = (int)(word & 1u);
    v->leg = (int)(word >> 1);
    return 1;
}

/* Uniform in [0, 1): the top 53 bits times 2^-53 (exact: the integer is below 2^53). */
static inline double sc_unit(uint64_t h)
{
    return (double)(h >> 11) * 0x1.0p-53;
}

/* --- errors (scenario.c) -------------------------------------------------------------- */

/* Writes the message into sc's error, or with sc NULL into this thread's message of a refused
 * creation (orca_scenario_last_error(NULL)); returns status. */
orca_status orca_sc_fail(orca_scenario *sc, orca_status status, const char *fmt, ...);
/* orca_sc_fail with "what: " before the simulation's message. */
orca_status orca_sc_fail_sim(orca_scenario *sc, orca_status status, const char *what);

/* --- the handle -> key map, agents and goals (scenario.c) ----------------------------- */

/* The key of a handle added through the scenario, or -1. */
int orca_sc_map_find(const orca_scenario *sc, orca_agent_id id);
/* Inserts (or re-points) id -> e; the map must have room (load below one half). Returns 1
 * when it re-pointed a key already in the map. */
int orca_sc_map_put(int32_t *map, uint32_t size, const sc_agent *agents, orca_agent_id id,
                    int32_t e);

/* The key of the simulation's agent at index i (handle id), or -1. While handles are unique,
 * an agent added through the scenario and not moved in the index order since is key i itself:
 * the map's answer without the map (its random accesses are most of the rule's time). */
static inline int key_at(const orca_scenario *sc, int i, orca_agent_id id)
{
    if (!sc->shared_keys && i < sc->agent_count && sc->agents[i].id.slot == id.slot &&
        sc->agents[i].id.generation == id.generation) {
        return i;
    }
    return orca_sc_map_find(sc, id);
}

/* The scenario entry of the agent at simulation index `index` (added through the scenario),
 * or -1 with the message set. */
int orca_sc_entry_of(orca_scenario *sc, int index);
/* ORCA_OK when orca_scenario_add_agent takes goal (its goal set one of sc's), else the
 * refusal with its message. */
orca_status orca_sc_check_goal(orca_scenario *sc, const orca_goal *goal);
/* Frees the entries' waypoints and paths and the sets' points (the tables themselves too). */
void orca_sc_free_tables(sc_agent *agents, int agent_count, sc_goal_set *sets, int set_count);

/* --- the rule and waypoints (scenario_rule.c) ----------------------------------------- */

/* The rule's preferred velocity of agent a (entry e) at position, after the step's
 * navigation pass (docs/scenarios.md, docs/navigation.md): standing without a path, toward
 * the next corner while one lies ahead, else the plain rule. Only reads. */
orca_vec2 orca_sc_agent_rule(const orca_scenario *sc, const sc_agent *a, int e,
                             orca_vec2 position, uint64_t step_hash);

typedef struct rule_ctx {
    orca_scenario *sc;
    const uint32_t *slots, *generations; /* orca_sim_peek_handles */
    uint64_t step_hash;                  /* orca_rule_step_hash of this step */
    const int32_t *ent;                  /* the entry of each index, or NULL: key_at */
    const orca_vec2 *pref;               /* NULL, or each entry's value (orca_sc_nav_advance) */
} rule_ctx;

/* The preferred-velocity rule of the agents at index[0 .. count-1] (orca_step_rule_fn with a
 * rule_ctx: the step runs it on the workers; each agent's value comes from the start-of-step
 * state, the step count, the seed and its key; only reads). Agents the scenario did not add
 * keep the preferred velocity their owner set. */
void orca_sc_rule_agents(void *context, const int32_t *index, int32_t first,
                         const orca_vec2 *position, int count, const orca_vec2 *current,
                         orca_vec2 *out);

/* The switch of docs/extensions.md ("Waypoints") for every agent with waypoints, on the
 * current positions: at most one step forward each. Remembers the previous index. */
orca_status orca_sc_waypoints_advance(orca_scenario *sc, const orca_vec2 *positions, int n);
/* Puts back the indices orca_sc_waypoints_advance changed (the step was refused). */
void orca_sc_waypoints_restore(orca_scenario *sc);

/* --- the pedestrian preset (scenario_pedestrian.c) ------------------------------------ */

/* The stream an agent with this goal gets when orca_scenario_add_agent adds it: its goal
 * set's index while the simulation's pedestrian model is on, else -1. */
int orca_sc_pedestrian_stream(const orca_scenario *sc, const orca_goal *goal);

/* --- goal sets and exits (scenario_sets.c) -------------------------------------------- */

/* The point of set nearest to p by straight distance (ties: the lower index). */
orca_vec2 orca_sc_nearest_point(const sc_goal_set *set, orca_vec2 p);
/* The agents heading for an exit and within its arrive distance leave (one batch removal, in
 * index order); ent (the entry of each index) keeps those of the agents that stay. */
orca_status orca_sc_exits_leave(orca_scenario *sc, int32_t *ent);

/* --- navigation (scenario_nav.c) ------------------------------------------------------ */

/* Before the rule: each navigating agent plans when it must, passes the corners it is beyond,
 * counts its progress (re-routing when it has none for ORCA_NAV_STUCK_TIME) and takes its
 * direction; without navigation a goal-set agent takes the set's nearest point. The agents
 * that need no planning go on the workers (nav_task, from NAV_TASK_MIN agents on); then the
 * plans, which share the navigation's structures, in index order on the calling thread. Each
 * agent's result is that of doing all of it for it alone, so it is the same for any split.
 * Each agent's rule value goes to sc->pref. */
orca_status orca_sc_nav_advance(orca_scenario *sc, const int32_t *ent, const orca_vec2 *pos,
                                int n, uint64_t step_hash);
/* --- the exit choice (scenario_choice.c) --------------------------------------------- */

/* Whether agent a's goal-set point is chosen by sc's exit choice (calm or quickest, a set of
 * at most ORCA_NAV_CHOICE_POINTS points). */
int orca_sc_choosing(const orca_scenario *sc, const sc_agent *a);
/* The navigation field of one point of a set (its own distances, orca_nav_prepare). */
int64_t orca_sc_point_key(int set, int point);
/* An agent's remaining path to its goal point: from p along the leave points of the corners
 * still ahead (docs/navigation.md, "Exit choice"). */
double orca_sc_remaining(const sc_nav *v, orca_vec2 p, orca_vec2 goal);
/* The wall ends of agent v's path about the corner it heads for (the one before, that one,
 * the one after, those that exist) to via; how many (0 without a path). The exit choice's
 * upper bound and a new plan try them first. */
int orca_sc_path_ends(const sc_nav *v, orca_vec2 via[3]);
/* The queues: sc->qkey and sc->qrem of indices 0 .. n-1, sorted by (key, remaining) into
 * sc->queue. ORCA_ERR_MEMORY with the message set. */
orca_status orca_sc_queue_build(orca_scenario *sc, int n);

/* Tests: with on, the exit choice weighs every point of the set from one uncapped pass, the
 * rule alone (the reference its capped passes are held to, choice by choice); 0 by default. */
void orca_sc_set_choice_reference(orca_scenario *sc, int on);
/* The point of agent a's set (at p) whose cost a first choice takes first: the nearest in a
 * straight line (squared distance, then index) of those it neither heads for nor left; -1
 * when there is none. Only the choice's speed depends on it. */
int orca_sc_first_point(const orca_scenario *sc, const sc_agent *a, orca_vec2 p);
/* The point agent a (index i, at p, radius r) heads for next, by sc's exit choice, or -1 when
 * none can be reached; avoid: the corner a re-routing penalises (NULL: none); own: the cost of
 * its path to point `known` where the caller has it (the double orca_nav_field_cost gives;
 * known the point it heads for now, or with none yet orca_sc_first_point's), else NaN and
 * known -1. On the worker's scratch; every point's field prepared. */
orca_status orca_sc_choose(const orca_scenario *sc, int worker, const sc_agent *a, int i,
                           orca_vec2 p, double r, const orca_vec2 *avoid, int known,
                           double own, int *chosen);

/* Puts back the progress orca_sc_nav_advance changed (the step was refused); plans made are
 * kept (the same plans the step will make again). Entries of agents no longer in the
 * simulation are not read again. */
void orca_sc_nav_restore(orca_scenario *sc);
/* orca_sc_nav_restore of one path (NULL: nothing). */
void orca_sc_nav_restore_path(sc_nav *v);
/* orca_scenario_agent_nav's fields that path v gives (v planned: result, corner, corner
 * count, length, plans, re-routings) and its first min(corners, capacity) corners. */
void orca_sc_nav_describe(const sc_nav *v, orca_nav_agent *out, orca_nav_corner *corners,
                          int capacity);
/* Navigation's part of the hash (docs/navigation.md, "State"): after its tag, for each agent
 * with a path state, in index order, its index and then these bytes: planned, result,
 * corner, corner count, each corner (vertex, side, enter, leave), goal point, stuck steps,
 * best distance, the avoided wall end (flag and point), plans and re-routings. Returns their
 * count (0 without a path state), written to out only when it is at most cap. */
size_t orca_sc_nav_hash_bytes(const sc_agent *a, unsigned char *out, size_t cap);
/* The exit choice's part (with the leg check or an exit choice other than nearest): after its
 * tag and the two settings, for each agent with a path state, in index order, its index and
 * then these bytes: its exit and the points it has left. Their count (16, or 0 without a
 * path state), written to out only when it is at most cap. */
size_t orca_sc_nav_choice_hash_bytes(const sc_agent *a, unsigned char *out, size_t cap);

/* --- the hash in parts (scenario.c; snap_io.h) ------------------------------------------ */

/* orca_scenario_hash with the agents' parts from agents (sc gives the rest). */
uint64_t orca_sc_hash_with(const orca_scenario *sc, const hash_agents *agents);
/* The bytes the agent at index i adds to part (snap_io.h's parts; HASH_NAV, HASH_NAV_CHOICE
 * and HASH_WAYPOINT without its index); their count, written to out only when at most cap. */
size_t orca_sc_hash_bytes(const orca_scenario *sc, int i, int part, unsigned char *out,
                          size_t cap);

#endif
