/* SPDX-License-Identifier: MIT */
/* Scenarios: a simulation plus goals, the preferred-velocity rule and the built-in scenes.
 * docs/scenarios.md is the normative description of everything computed here (the rule, the
 * perturbation hash, the placement generator, every scene's geometry); keep the two in step.
 * Only + - * / and sqrt on binary64, and integer operations: the same bits everywhere. */
#include "fp.h"

#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "orca/scenario.h"
#include "nav_internal.h"
#include "scenario_rule.h"
#include "sim_peek.h"
#include "snap_io.h"
#include "vec.h"

#define SC_ERROR_SIZE 256
#define SC_NAME_MAX 63 /* longest name accepted by orca_scenario_set_name */
/* Largest agent_count accepted by orca_scenario_create_builtin for each scene: the largest
 * whose every start, goal and wall end lies within the coordinate limit 2^21 (found by building
 * the scenes; docs/scenarios.md gives the geometry), at most 4,000,000. */
static const int k_max_counts[ORCA_SCENE_COUNT] = {2196132, 4000000, 1258287, 1677675, 4000000};

/* Built-in agent parameters (docs/scenarios.md, "Agent parameters"). */
#define SC_DT 0.25
#define SC_RADIUS 1.5
#define SC_MAX_SPEED 2.0
#define SC_PREF_SPEED 1.0
#define SC_NEIGHBOR_DIST 15.0
#define SC_MAX_NEIGHBORS 10
#define SC_TIME_HORIZON 10.0
#define SC_OBSTACLE_HORIZON 10.0

/* Perturbation amplitude per unit of preferred speed (docs/scenarios.md, "The rule"). */
#define SC_PERTURB 0x1.a36e2eb1c432dp-14 /* 1e-4 rounded to nearest (an exact hex literal) */

/* From this many agents on, the scenario's per-agent passes before the step (the entry table,
 * exits, navigation) run on the simulation's workers. */
#define NAV_TASK_MIN 1024

/* The splitmix64 increment (golden ratio), shared by the hash and the generator. */
#define SC_GOLDEN UINT64_C(0x9E3779B97F4A7C15)

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

/* Where the leg to target c begins (docs/extensions.md, "Waypoints"): the target before it;
 * for waypoint 0 the goal point on a looping route (the route is a cycle), else the route's
 * start. */
static orca_vec2 leg_start(const sc_waypoints *w, int c)
{
    if (c > 0) {
        return w->points[c - 1];
    }
    return w->loop ? w->goal : w->route_start;
}

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
    orca_vec2 dir;     /* this step's direction (unit) while a corner lies ahead */
} sc_nav;

/* A named goal set (orca_scenario_add_goal_set). */
typedef struct sc_goal_set {
    char name[64];
    orca_vec2 *points;
    int count;
    int exit;      /* orca_scenario_set_goal_set_exit */
    double arrive; /* its arrive distance (0: the agent's radius) */
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

    int navigation;      /* orca_scenario_set_navigation */
    orca_nav *nav;       /* created when navigation is first on */
    sc_goal_set *sets;
    int set_count, set_capacity;
    int set_agents;      /* entries with ORCA_GOAL_SET goals */
    int exit_sets;       /* sets that are exits */
    int exited;          /* agents that left by exits */
    int64_t exited_last_step;
    orca_agent_id *exit_ids; /* scratch: this step's leavers */
    int exit_cap;
    int32_t *ent;        /* the entry of each index this step (navigation, sets); after the
                            step, the first ent_hint of them are the next step's guesses */
    uint8_t *nav_flag;   /* scratch: per index, what nav_advance left to its serial pass */
    orca_vec2 *pref;     /* scratch: per index, the rule's value nav_advance computed */
    int ent_cap;
    int ent_hint;

    int measured_initial;
    int recording; /* 0: no overlap or arrival record (orca_scenario_set_recording) */
    int64_t all_arrived_step;
    double max_agent_overlap;
    double max_wall_overlap;
    uint64_t fallback_total;
};

/* Message of the last refused orca_scenario_create / _create_builtin on this thread (there is
 * no scenario to hold it); orca_scenario_last_error(NULL) returns it. */
static _Thread_local char g_create_error[SC_ERROR_SIZE];

/* ------------------------------------------------------------------------------------------
 * Small helpers
 * ---------------------------------------------------------------------------------------- */

static int is_finite(double x)
{
    return x - x == 0.0; /* false for +-inf and NaN (fast-math is refused by fp.h) */
}

/* A point with finite coordinates of magnitude below 2^21 (docs/limits.md). */
static int is_coord(orca_vec2 p)
{
    return is_finite(p.x) && is_finite(p.y) && d_abs(p.x) < ORCA_COORD_LIMIT &&
           d_abs(p.y) < ORCA_COORD_LIMIT;
}

static orca_status fail(orca_scenario *sc, orca_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sc ? sc->error : g_create_error, SC_ERROR_SIZE, fmt, ap);
    va_end(ap);
    return status;
}

static orca_status fail_sim(orca_scenario *sc, orca_status status, const char *what)
{
    return fail(sc, status, "%s: %s", what, orca_sim_last_error(sc->sim));
}

/* The splitmix64 output function (Steele, Lea, Flood 2014): a bijection of 64-bit integers. */
static uint64_t sc_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, 1): the top 53 bits times 2^-53 (exact: the integer is below 2^53). */
static double sc_unit(uint64_t h)
{
    return (double)(h >> 11) * 0x1.0p-53;
}

/* The placement generator of the random scene: splitmix64 with state = seed. */
typedef struct sc_rng {
    uint64_t state;
} sc_rng;

static uint64_t sc_rng_next(sc_rng *r)
{
    r->state += SC_GOLDEN;
    return sc_mix64(r->state);
}

/* ------------------------------------------------------------------------------------------
 * Deterministic sine and cosine of 2*pi*turns
 * ---------------------------------------------------------------------------------------- */

/* 2*pi and 1/n! rounded to nearest binary64, as exact hexadecimal literals (a decimal literal
 * may be converted to either neighbour of the nearest value by the C standard). */
#define SC_TWO_PI 0x1.921fb54442d18p+2

void orca_sincos_turns(double turns, double *sine, double *cosine)
{
    double s, c;
    if (!is_finite(turns)) {
        s = turns - turns; /* NaN */
        c = s;
    } else {
        /* Reduce to t in [0, 1): subtracting the integer part is exact. Beyond 2^52 every
         * double is an integer (and the int64 conversion would overflow beyond 2^63). */
        double t;
        double mag = d_abs(turns);
        if (mag >= 0x1.0p52) {
            t = 0.0;
        } else {
            t = turns - (double)(int64_t)turns;
            if (t < 0.0) {
                t = t + 1.0; /* may round up to 1.0 for tiny negative t */
            }
            if (t >= 1.0) {
                t = t - 1.0;
            }
        }
        /* Nearest quarter turn k (0..4) and the remainder r = t - k/4, |r| <= 1/8 (up to one
         * rounding of q + 0.5); r is exact (Sterbenz: t and k/4 are within a factor 2). */
        double q = t * 4.0;
        int k = (int)(q + 0.5);
        double r = t - (double)k * 0.25;
        double x = r * SC_TWO_PI; /* |x| <= pi/4 (plus a rounding) */
        double x2 = x * x;
        /* Taylor series: sine to x^17 (remainder below x^19/19! < 1e-19), cosine to x^18
         * (remainder below x^20/20! < 1e-20), Horner in x^2. */
        double ps = 0x1.952c77030ad4ap-49;      /* 1/17! (signs alternate) */
        ps = ps * x2 - 0x1.ae7f3e733b81fp-41;   /* 1/15! */
        ps = ps * x2 + 0x1.6124613a86d09p-33;   /* 1/13! */
        ps = ps * x2 - 0x1.ae64567f544e4p-26;   /* 1/11! */
        ps = ps * x2 + 0x1.71de3a556c734p-19;   /* 1/9! */
        ps = ps * x2 - 0x1.a01a01a01a01ap-13;   /* 1/7! */
        ps = ps * x2 + 0x1.1111111111111p-7;    /* 1/5! */
        ps = ps * x2 - 0x1.5555555555555p-3;    /* 1/3! */
        double sr = x + (x * x2) * ps;
        double pc = -0x1.6827863b97d97p-53;     /* -1/18! */
        pc = pc * x2 + 0x1.ae7f3e733b81fp-45;   /* 1/16! */
        pc = pc * x2 - 0x1.93974a8c07c9dp-37;   /* 1/14! */
        pc = pc * x2 + 0x1.1eed8eff8d898p-29;   /* 1/12! */
        pc = pc * x2 - 0x1.27e4fb7789f5cp-22;   /* 1/10! */
        pc = pc * x2 + 0x1.a01a01a01a01ap-16;   /* 1/8! */
        pc = pc * x2 - 0x1.6c16c16c16c17p-10;   /* 1/6! */
        pc = pc * x2 + 0x1.5555555555555p-5;    /* 1/4! */
        double cr = (1.0 - 0.5 * x2) + (x2 * x2) * pc;
        switch (k & 3) {
        case 0: s = sr; c = cr; break;
        case 1: s = cr; c = -sr; break;
        case 2: s = -sr; c = -cr; break;
        default: s = -cr; c = sr; break;
        }
        /* Exact zeros come out as +0 (at 0, 1/4, 1/2, 3/4 turns; -0 + 0 is +0). */
        s = s + 0.0;
        c = c + 0.0;
    }
    if (sine) {
        *sine = s;
    }
    if (cosine) {
        *cosine = c;
    }
}

/* ------------------------------------------------------------------------------------------
 * Names
 * ---------------------------------------------------------------------------------------- */

static const char *const k_scene_names[ORCA_SCENE_COUNT] = {"circle", "crossing", "wallgap",
                                                             "corridor", "random"};

const char *orca_scene_name(orca_scene_kind kind)
{
    if ((int)kind < 0 || (int)kind >= ORCA_SCENE_COUNT) {
        return NULL;
    }
    return k_scene_names[kind];
}

int orca_scene_from_name(const char *name)
{
    if (!name) {
        return -1;
    }
    for (int i = 0; i < ORCA_SCENE_COUNT; ++i) {
        if (strcmp(name, k_scene_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------------------------------
 * Handle -> key map (open addressing, linear probing; entries are only ever added)
 * ---------------------------------------------------------------------------------------- */

static uint64_t handle_key(orca_agent_id id)
{
    return ((uint64_t)id.slot << 32) | (uint64_t)id.generation;
}

static uint32_t map_home(uint64_t key, uint32_t size)
{
    return (uint32_t)(sc_mix64(key) & (uint64_t)(size - 1u));
}

/* The key of a handle added through the scenario, or -1. */
static int map_find(const orca_scenario *sc, orca_agent_id id)
{
    if (sc->map_size == 0 || id.generation == 0) {
        return -1;
    }
    uint64_t key = handle_key(id);
    uint32_t mask = sc->map_size - 1u;
    for (uint32_t i = map_home(key, sc->map_size);; i = (i + 1u) & mask) {
        int32_t e = sc->map[i];
        if (e < 0) {
            return -1;
        }
        if (handle_key(sc->agents[e].id) == key) {
            return e;
        }
    }
}

/* The key of the simulation's agent at index i (handle id), or -1. While handles are unique,
 * an agent added through the scenario and not moved in the index order since is key i itself:
 * the map's answer without the map (its random accesses are most of the rule's time). */
static inline int key_at(const orca_scenario *sc, int i, orca_agent_id id)
{
    if (!sc->shared_keys && i < sc->agent_count && sc->agents[i].id.slot == id.slot &&
        sc->agents[i].id.generation == id.generation) {
        return i;
    }
    return map_find(sc, id);
}

/* Inserts (or re-points) id -> e; the map must have room (load below one half). Returns 1
 * when it re-pointed a key already in the map. */
static int map_put(int32_t *map, uint32_t size, const sc_agent *agents, orca_agent_id id,
                   int32_t e)
{
    uint64_t key = handle_key(id);
    uint32_t mask = size - 1u;
    for (uint32_t i = map_home(key, size);; i = (i + 1u) & mask) {
        if (map[i] < 0 || handle_key(agents[map[i]].id) == key) {
            int repointed = map[i] >= 0;
            map[i] = e;
            return repointed;
        }
    }
}

/* Makes room for one more agent in the entry array, the map and the step scratch. Nothing
 * observable changes; on failure the old arrays stay as they were. */
static orca_status reserve_one(orca_scenario *sc)
{
    if (sc->agent_count >= INT_MAX / 4) {
        return fail(sc, ORCA_ERR_LIMIT, "scenario agent count limit (%d) reached",
                    INT_MAX / 4);
    }
    int need = sc->agent_count + 1;
    if (need > sc->agent_capacity) {
        int cap = sc->agent_capacity ? sc->agent_capacity * 2 : 16;
        sc_agent *a = orca_mem_resize(sc->agents, (size_t)cap, sizeof *a);
        if (!a) {
            return fail(sc, ORCA_ERR_MEMORY, "out of memory growing the agent table to %d", cap);
        }
        sc->agents = a;
        sc->agent_capacity = cap;
    }
    if ((uint64_t)need * 2u > sc->map_size) {
        uint32_t size = sc->map_size ? sc->map_size * 2u : 32u;
        while ((uint64_t)need * 2u > size) {
            size *= 2u;
        }
        int32_t *m = orca_mem_alloc((size_t)size, sizeof *m);
        if (!m) {
            return fail(sc, ORCA_ERR_MEMORY, "out of memory growing the handle map to %u",
                        (unsigned)size);
        }
        for (uint32_t i = 0; i < size; ++i) {
            m[i] = -1;
        }
        for (int e = 0; e < sc->agent_count; ++e) {
            map_put(m, size, sc->agents, sc->agents[e].id, e);
        }
        orca_mem_free(sc->map);
        sc->map = m;
        sc->map_size = size;
    }
    return ORCA_OK;
}

/* ------------------------------------------------------------------------------------------
 * Creation and accessors
 * ---------------------------------------------------------------------------------------- */

static void free_tables(sc_agent *agents, int agent_count, sc_goal_set *sets, int set_count);

orca_status orca_scenario_create(const orca_sim_def *sim_def, double dt, uint64_t seed,
                                 orca_scenario **out)
{
    if (!out) {
        return fail(NULL, ORCA_ERR_NULL, "out must not be NULL");
    }
    if (!(dt >= ORCA_TIME_MIN && dt <= ORCA_TIME_MAX)) {
        return fail(NULL, ORCA_ERR_ARGUMENT, "dt must be in [2^-30, 2^30] s, got %.17g", dt);
    }
    orca_scenario *sc = orca_mem_zalloc(1, sizeof *sc);
    if (!sc) {
        return fail(NULL, ORCA_ERR_MEMORY, "out of memory allocating a scenario");
    }
    orca_sim *sim = NULL;
    orca_status st = orca_sim_create(sim_def, &sim);
    if (st != ORCA_OK) {
        orca_mem_free(sc);
        return fail(NULL, st, "creating the simulation: %s (%s)", orca_sim_last_error(NULL),
                    orca_status_name(st));
    }
    sc->sim = sim;
    sc->dt = dt;
    sc->seed = seed;
    strcpy(sc->name, "custom");
    sc->error[0] = '\0';
    sc->all_arrived_step = -1;
    sc->recording = 1;
    *out = sc;
    return ORCA_OK;
}

void orca_scenario_destroy(orca_scenario *sc)
{
    if (!sc) {
        return;
    }
    orca_sim_destroy(sc->sim);
    free_tables(sc->agents, sc->agent_count, sc->sets, sc->set_count);
    orca_mem_free(sc->exit_ids);
    orca_mem_free(sc->ent);
    orca_mem_free(sc->nav_flag);
    orca_mem_free(sc->pref);
    orca_nav_destroy(sc->nav);
    orca_mem_free(sc->map);
    orca_mem_free(sc);
}

orca_sim *orca_scenario_sim(orca_scenario *sc)
{
    return sc ? sc->sim : NULL;
}

const char *orca_scenario_last_error(const orca_scenario *sc)
{
    return sc ? sc->error : g_create_error;
}

const char *orca_scenario_name(const orca_scenario *sc)
{
    return sc ? sc->name : "";
}

orca_status orca_scenario_set_name(orca_scenario *sc, const char *name)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!name) {
        return fail(sc, ORCA_ERR_NULL, "name must not be NULL");
    }
    size_t len = strlen(name);
    if (len == 0 || len > SC_NAME_MAX) {
        return fail(sc, ORCA_ERR_ARGUMENT, "name must have 1 to %d characters, got %zu",
                    SC_NAME_MAX, len);
    }
    memcpy(sc->name, name, len + 1);
    return ORCA_OK;
}

double orca_scenario_dt(const orca_scenario *sc)
{
    return sc ? sc->dt : 0.0;
}

uint64_t orca_scenario_seed(const orca_scenario *sc)
{
    return sc ? sc->seed : 0;
}

/* ------------------------------------------------------------------------------------------
 * Agents and goals
 * ---------------------------------------------------------------------------------------- */

/* The point of set nearest to p by straight distance (ties: the lower index). */
static orca_vec2 nearest_point(const sc_goal_set *set, orca_vec2 p)
{
    int best = 0;
    double bd = 0.0;
    for (int k = 0; k < set->count; ++k) {
        orca_vec2 d = v2_sub(set->points[k], p);
        double dd = v2_dot(d, d);
        if (k == 0 || dd < bd) {
            bd = dd;
            best = k;
        }
    }
    return set->points[best];
}

static orca_status check_goal(orca_scenario *sc, const orca_goal *goal)
{
    switch (goal->kind) {
    case ORCA_GOAL_POINT:
        if (!is_coord(goal->target)) {
            return fail(sc, ORCA_ERR_ARGUMENT,
                        "goal point must have finite coordinates of magnitude below 2^21, got "
                        "(%.17g, %.17g)",
                        goal->target.x, goal->target.y);
        }
        if (!(goal->preferred_speed >= 0.0 && goal->preferred_speed <= ORCA_SPEED_MAX)) {
            return fail(sc, ORCA_ERR_ARGUMENT,
                        "goal preferred_speed must be in [0, 2^30] m/s, got %.17g",
                        goal->preferred_speed);
        }
        return ORCA_OK;
    case ORCA_GOAL_VELOCITY:
        if (!(d_abs(goal->target.x) <= ORCA_VELOCITY_LIMIT) ||
            !(d_abs(goal->target.y) <= ORCA_VELOCITY_LIMIT)) {
            return fail(sc, ORCA_ERR_ARGUMENT,
                        "goal velocity must be finite with components of magnitude at most "
                        "2^31, got (%.17g, %.17g)",
                        goal->target.x, goal->target.y);
        }
        return ORCA_OK;
    case ORCA_GOAL_NONE:
        return ORCA_OK;
    case ORCA_GOAL_SET:
        if (goal->goal_set < 0 || goal->goal_set >= sc->set_count) {
            return fail(sc, ORCA_ERR_ARGUMENT,
                        "goal_set must name a goal set: in [0, %d), got %d", sc->set_count,
                        goal->goal_set);
        }
        if (!(goal->preferred_speed >= 0.0 && goal->preferred_speed <= ORCA_SPEED_MAX)) {
            return fail(sc, ORCA_ERR_ARGUMENT,
                        "goal preferred_speed must be in [0, 2^30] m/s, got %.17g",
                        goal->preferred_speed);
        }
        return ORCA_OK;
    default:
        return fail(sc, ORCA_ERR_ARGUMENT, "goal kind must be 0, 1, 2 or 3, got %d",
                    (int)goal->kind);
    }
}

orca_status orca_scenario_add_agent(orca_scenario *sc, const orca_agent_def *def,
                                    const orca_goal *goal, orca_agent_id *out)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!def) {
        return fail(sc, ORCA_ERR_NULL, "def must not be NULL");
    }
    if (!goal) {
        return fail(sc, ORCA_ERR_NULL, "goal must not be NULL");
    }
    orca_status st = check_goal(sc, goal);
    if (st != ORCA_OK) {
        return st;
    }
    st = reserve_one(sc);
    if (st != ORCA_OK) {
        return st;
    }
    orca_agent_id id;
    st = orca_sim_add_agent(sc->sim, def, &id);
    if (st != ORCA_OK) {
        return fail_sim(sc, st, "agent refused by the simulation");
    }
    int e = sc->agent_count++;
    sc->agents[e].id = id;
    sc->agents[e].goal = *goal;
    sc->agents[e].start = def->position;
    sc->agents[e].wp = NULL;
    sc->agents[e].nv = NULL;
    if (goal->kind == ORCA_GOAL_SET) {
        sc->agents[e].goal.target = nearest_point(&sc->sets[goal->goal_set], def->position);
        sc->set_agents++;
    }
    if (map_put(sc->map, sc->map_size, sc->agents, id, e)) {
        sc->shared_keys = 1;
    }
    if (out) {
        *out = id;
    }
    return ORCA_OK;
}

orca_status orca_scenario_agent_goal(const orca_scenario *sc_in, int index, orca_goal *goal,
                                     orca_vec2 *start)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    int count = orca_sim_agent_count(sc->sim);
    if (index < 0 || index >= count) {
        return fail(sc, ORCA_ERR_ARGUMENT, "index must be in [0, %d), got %d", count, index);
    }
    int e = key_at(sc, index, orca_sim_agent_at(sc->sim, index));
    if (e < 0) {
        return fail(sc, ORCA_ERR_ARGUMENT,
                    "agent at index %d was not added through the scenario (it has no goal)",
                    index);
    }
    if (goal) {
        *goal = sc->agents[e].goal;
        if (sc->agents[e].wp) {
            goal->target = sc->agents[e].wp->goal; /* the goal point, not the current target */
        }
    }
    if (start) {
        *start = sc->agents[e].start;
    }
    return ORCA_OK;
}

/* ------------------------------------------------------------------------------------------
 * Waypoints (docs/extensions.md, "Waypoints")
 * ---------------------------------------------------------------------------------------- */

#define SC_ARRIVE_MIN 0x1.0p-30
#define SC_ARRIVE_MAX 0x1.0p23

/* The scenario entry of the agent at simulation index `index` (added through the scenario),
 * or -1 with the message set. */
static int entry_of(orca_scenario *sc, int index)
{
    int count = orca_sim_agent_count(sc->sim);
    if (index < 0 || index >= count) {
        fail(sc, ORCA_ERR_ARGUMENT, "index must be in [0, %d), got %d", count, index);
        return -1;
    }
    int e = key_at(sc, index, orca_sim_agent_at(sc->sim, index));
    if (e < 0) {
        fail(sc, ORCA_ERR_ARGUMENT,
             "agent at index %d was not added through the scenario (it has no goal)", index);
    }
    return e;
}

orca_status orca_scenario_set_agent_goal(orca_scenario *sc, int index, const orca_goal *goal)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!goal) {
        return fail(sc, ORCA_ERR_NULL, "goal must not be NULL");
    }
    int e = entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
    }
    orca_status st = check_goal(sc, goal);
    if (st != ORCA_OK) {
        return st;
    }
    sc_agent *a = &sc->agents[e];
    if (a->wp) {
        return fail(sc, ORCA_ERR_ARGUMENT,
                    "agent at index %d has waypoints: remove them first "
                    "(orca_scenario_set_waypoints with count 0)",
                    index);
    }
    orca_vec2 here = orca_sim_positions(sc->sim)[index];
    sc->set_agents += (goal->kind == ORCA_GOAL_SET) - (a->goal.kind == ORCA_GOAL_SET);
    a->goal = *goal;
    if (goal->kind == ORCA_GOAL_SET) {
        a->goal.target = nearest_point(&sc->sets[goal->goal_set], here);
    }
    if (a->nv && (goal->kind == ORCA_GOAL_POINT || goal->kind == ORCA_GOAL_SET)) {
        a->nv->planned = 0; /* it plans anew at the next step, without the old route's penalty */
        a->nv->has_avoid = 0;
    } else if (a->nv) {
        orca_nav_route_free(&a->nv->route); /* no path state without a point or set goal */
        orca_mem_free(a->nv);
        a->nv = NULL;
    }
    return ORCA_OK;
}

orca_status orca_scenario_set_waypoints(orca_scenario *sc, int index, const orca_vec2 *points,
                                        int count, int loop, double arrive_distance)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    int e = entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
    }
    sc_agent *a = &sc->agents[e];
    if (a->goal.kind != ORCA_GOAL_POINT) {
        return fail(sc, ORCA_ERR_ARGUMENT,
                    "agent at index %d has goal kind %d; waypoints need a point goal "
                    "(ORCA_GOAL_POINT)",
                    index, (int)a->goal.kind);
    }
    if (count < 0) {
        return fail(sc, ORCA_ERR_ARGUMENT, "waypoint count must be >= 0, got %d", count);
    }
    if (count > ORCA_WAYPOINTS_MAX) {
        return fail(sc, ORCA_ERR_LIMIT, "waypoint count must be at most %d, got %d",
                    ORCA_WAYPOINTS_MAX, count);
    }
    if (count > 0 && !points) {
        return fail(sc, ORCA_ERR_NULL, "points must not be NULL (count %d)", count);
    }
    if (loop != 0 && loop != 1) {
        return fail(sc, ORCA_ERR_ARGUMENT, "loop must be 0 or 1, got %d", loop);
    }
    if (!(arrive_distance == 0.0 ||
          (arrive_distance >= SC_ARRIVE_MIN && arrive_distance <= SC_ARRIVE_MAX))) {
        return fail(sc, ORCA_ERR_ARGUMENT,
                    "arrive_distance must be 0 (the agent's radius) or in [2^-30, 2^23] m, got "
                    "%.17g",
                    arrive_distance);
    }
    for (int k = 0; k < count; ++k) {
        orca_vec2 p = points[k];
        if (!is_coord(p)) {
            return fail(sc, ORCA_ERR_ARGUMENT,
                        "waypoint %d must have finite coordinates of magnitude below 2^21, got "
                        "(%.17g, %.17g)",
                        k, p.x, p.y);
        }
    }
    orca_vec2 goal = a->wp ? a->wp->goal : a->goal.target;
    orca_vec2 here = {0, 0};
    if (count > 0 && orca_agent_get_position(sc->sim, a->id, &here) != ORCA_OK) {
        return fail_sim(sc, ORCA_ERR_STALE, "reading the agent's position");
    }
    sc_waypoints *w = NULL;
    if (count > 0) {
        w = orca_mem_zalloc(1, sizeof *w);
        orca_vec2 *copy = w ? orca_mem_alloc((size_t)count, sizeof *copy) : NULL;
        if (!copy) {
            orca_mem_free(w);
            return fail(sc, ORCA_ERR_MEMORY, "out of memory for %d waypoints", count);
        }
        memcpy(copy, points, (size_t)count * sizeof *copy);
        w->points = copy;
        w->count = count;
        w->index = 0;
        w->prev = 0;
        w->loop = loop;
        w->arrive = arrive_distance;
        w->goal = goal;
        w->route_start = here;
    }
    if (a->wp) {
        orca_mem_free(a->wp->points);
        orca_mem_free(a->wp);
        sc->waypoint_agents--;
    }
    a->wp = w;
    if (w) {
        sc->waypoint_agents++;
        a->goal.target = w->points[0];
    } else {
        a->goal.target = goal;
    }
    return ORCA_OK;
}

orca_status orca_scenario_agent_waypoints(const orca_scenario *sc_in, int index,
                                          orca_vec2 *points, int capacity, int *count,
                                          int *loop, double *arrive_distance)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (capacity < 0) {
        return fail(sc, ORCA_ERR_ARGUMENT, "capacity must be >= 0, got %d", capacity);
    }
    if (capacity > 0 && !points) {
        return fail(sc, ORCA_ERR_NULL, "points must not be NULL (capacity %d)", capacity);
    }
    int e = entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
    }
    const sc_waypoints *w = sc->agents[e].wp;
    int c = w ? w->count : 0;
    if (c > 0 && capacity > 0) {
        memcpy(points, w->points, (size_t)(c < capacity ? c : capacity) * sizeof *points);
    }
    if (count) {
        *count = c;
    }
    if (loop) {
        *loop = w ? w->loop : 0;
    }
    if (arrive_distance) {
        *arrive_distance = w ? w->arrive : 0.0;
    }
    return ORCA_OK;
}

orca_status orca_scenario_waypoint_index(const orca_scenario *sc_in, int index, int *current)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!current) {
        return fail(sc, ORCA_ERR_NULL, "current must not be NULL");
    }
    int e = entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
    }
    *current = sc->agents[e].wp ? sc->agents[e].wp->index : 0;
    return ORCA_OK;
}

orca_status orca_scenario_set_waypoint_index(orca_scenario *sc, int index, int current)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    int e = entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
    }
    sc_waypoints *w = sc->agents[e].wp;
    int c = w ? w->count : 0;
    if (current < 0 || current > c) {
        return fail(sc, ORCA_ERR_ARGUMENT,
                    "waypoint index of agent %d must be in [0, %d] (its %d waypoints, then the "
                    "goal), got %d",
                    index, c, c, current);
    }
    if (w) {
        w->index = current;
        sc->agents[e].goal.target = current < c ? w->points[current] : w->goal;
    }
    return ORCA_OK;
}

/* The switch of docs/extensions.md ("Waypoints") for every agent with waypoints, on the
 * current positions: at most one step forward each. Remembers the previous index. */
static orca_status waypoints_advance(orca_scenario *sc, const orca_vec2 *positions, int n)
{
    for (int e = 0; e < sc->agent_count; ++e) {
        if (sc->agents[e].wp) {
            sc->agents[e].wp->prev = sc->agents[e].wp->index;
        }
    }
    for (int i = 0; i < n; ++i) {
        orca_agent_id id = orca_sim_agent_at(sc->sim, i);
        int e = key_at(sc, i, id);
        if (e < 0 || !sc->agents[e].wp) {
            continue;
        }
        sc_agent *a = &sc->agents[e];
        sc_waypoints *w = a->wp;
        if (w->index == w->count && !w->loop) {
            continue; /* at the goal point: the plain rule */
        }
        double d = w->arrive;
        if (d == 0.0) {
            orca_agent_def def;
            memset(&def, 0, sizeof def);
            if (orca_agent_get(sc->sim, id, &def) != ORCA_OK) {
                return fail_sim(sc, ORCA_ERR_STALE, "reading an agent's radius");
            }
            d = def.radius;
        }
        double dx = a->goal.target.x - positions[i].x;
        double dy = a->goal.target.y - positions[i].y;
        double d2 = dx * dx + dy * dy;
        /* Passed: the target lies behind the agent along its leg (beyond the perpendicular
         * to the leg through the target), as when the crowd pushed it past. */
        orca_vec2 from = leg_start(w, w->index);
        double sx = a->goal.target.x - from.x;
        double sy = a->goal.target.y - from.y;
        if (d2 <= d * d || dx * sx + dy * sy < 0) {
            int next = w->index + 1;
            if (next > w->count) {
                next = 0; /* only with loop: after the goal point, the first waypoint */
            }
            w->index = next;
            a->goal.target = next < w->count ? w->points[next] : w->goal;
        }
    }
    return ORCA_OK;
}

/* Puts back the indices waypoints_advance changed (the step was refused). */
static void waypoints_restore(orca_scenario *sc)
{
    for (int e = 0; e < sc->agent_count; ++e) {
        sc_waypoints *w = sc->agents[e].wp;
        if (w && w->index != w->prev) {
            w->index = w->prev;
            sc->agents[e].goal.target = w->index < w->count ? w->points[w->index] : w->goal;
        }
    }
}

/* FNV-1a continued from h over v's bytes, most significant first (docs/determinism.md). */
static uint64_t sc_hash_u64(uint64_t h, uint64_t v)
{
    for (int b = 56; b >= 0; b -= 8) {
        h ^= (v >> b) & 0xffu;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static uint64_t sc_hash_f64(uint64_t h, double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return sc_hash_u64(h, u);
}

static uint64_t nav_hash(const orca_scenario *sc, uint64_t h);

uint64_t orca_scenario_hash(const orca_scenario *sc)
{
    if (!sc) {
        return orca_sim_hash(NULL);
    }
    uint64_t h = orca_sim_hash(sc->sim);
    if (sc->navigation) {
        h = nav_hash(sc, h);
    }
    if (sc->waypoint_agents == 0) {
        return h;
    }
    int n = orca_sim_agent_count(sc->sim);
    uint64_t m = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            if (m == 0) {
                return h;
            }
            h = sc_hash_u64(h, m);
        }
        for (int i = 0; i < n; ++i) {
            int e = key_at(sc, i, orca_sim_agent_at(sc->sim, i));
            if (e < 0 || !sc->agents[e].wp) {
                continue;
            }
            if (pass == 0) {
                ++m;
            } else {
                h = sc_hash_u64(h, (uint64_t)i);
                h = sc_hash_u64(h, (uint64_t)sc->agents[e].wp->index);
            }
        }
    }
    return h;
}

/* Navigation's part of the hash (docs/navigation.md, "State"): the tag, then for each agent
 * with a path state, in index order: its index, planned, result, corner, corner count, each
 * corner (vertex, side, enter, leave), goal point, stuck steps, best distance, the avoided
 * wall end (flag and point), plans and re-routings. */
static uint64_t nav_hash(const orca_scenario *sc, uint64_t h)
{
    static const char tag[] = "orca-nav";
    for (const char *c = tag; *c; ++c) {
        h ^= (uint64_t)(unsigned char)*c;
        h *= UINT64_C(0x100000001b3);
    }
    int n = orca_sim_agent_count(sc->sim);
    for (int i = 0; i < n; ++i) {
        int e = key_at(sc, i, orca_sim_agent_at(sc->sim, i));
        const sc_nav *v = e >= 0 ? sc->agents[e].nv : NULL;
        if (!v) {
            continue;
        }
        h = sc_hash_u64(h, (uint64_t)i);
        h = sc_hash_u64(h, (uint64_t)v->planned);
        h = sc_hash_u64(h, (uint64_t)v->route.result);
        h = sc_hash_u64(h, (uint64_t)v->k);
        int cnt = v->route.result == ORCA_NAV_OK ? v->route.count : 0;
        h = sc_hash_u64(h, (uint64_t)cnt);
        for (int k = 0; k < cnt; ++k) {
            const orca_nav_corner *c = &v->route.corners[k];
            h = sc_hash_f64(h, c->vertex.x);
            h = sc_hash_f64(h, c->vertex.y);
            h = sc_hash_u64(h, (uint64_t)(int64_t)c->side);
            h = sc_hash_f64(h, c->enter.x);
            h = sc_hash_f64(h, c->enter.y);
            h = sc_hash_f64(h, c->leave.x);
            h = sc_hash_f64(h, c->leave.y);
        }
        h = sc_hash_f64(h, sc->agents[e].goal.target.x);
        h = sc_hash_f64(h, sc->agents[e].goal.target.y);
        h = sc_hash_u64(h, (uint64_t)v->stuck);
        h = sc_hash_f64(h, v->best);
        h = sc_hash_u64(h, (uint64_t)v->has_avoid);
        h = sc_hash_f64(h, v->avoid.x);
        h = sc_hash_f64(h, v->avoid.y);
        h = sc_hash_u64(h, (uint64_t)v->plans);
        h = sc_hash_u64(h, (uint64_t)v->reroutes);
    }
    return h;
}

/* ------------------------------------------------------------------------------------------
 * The preferred-velocity rule (docs/scenarios.md, "The rule")
 * ---------------------------------------------------------------------------------------- */

/* The step's part of the perturbation's hash, the same for every agent: mix(mix(seed + G) +
 * step). */
static uint64_t perturb_step_hash(uint64_t seed, uint64_t step)
{
    return sc_mix64(sc_mix64(seed + SC_GOLDEN) + step);
}

/* step_hash = perturb_step_hash(seed, step) */
static orca_vec2 preferred_velocity(const orca_goal *goal, orca_vec2 position, double dt,
                                    uint64_t step_hash, uint64_t key)
{
    if (goal->kind == ORCA_GOAL_VELOCITY) {
        return goal->target;
    }
    if (goal->kind != ORCA_GOAL_POINT && goal->kind != ORCA_GOAL_SET) {
        return v2(0.0, 0.0);
    }
    double speed = goal->preferred_speed;
    orca_vec2 to = v2_sub(goal->target, position);
    double dist = sqrt(v2_dot(to, to));
    orca_vec2 pref;
    if (dist > speed * dt) {
        pref = v2_mul(v2_div(to, dist), speed);
    } else {
        pref = v2_div(to, dt);
    }
    /* The perturbation: h1 = mix(mix(mix(seed + G) + step) + key), h2 = mix(h1 + G). */
    uint64_t h1 = sc_mix64(step_hash + key);
    uint64_t h2 = sc_mix64(h1 + SC_GOLDEN);
    double amplitude = SC_PERTURB * speed;
    pref.x = pref.x + (2.0 * sc_unit(h1) - 1.0) * amplitude;
    pref.y = pref.y + (2.0 * sc_unit(h2) - 1.0) * amplitude;
    return pref;
}

/* The rule for other layers (scenario_rule.h: the MPI layer computes each owned agent's
 * preferred velocity itself, with the same bits). */
uint64_t orca_rule_step_hash(uint64_t seed, uint64_t step)
{
    return perturb_step_hash(seed, step);
}

orca_vec2 orca_rule_velocity(const orca_goal *goal, orca_vec2 position, double dt,
                             uint64_t step_hash, uint64_t key)
{
    return preferred_velocity(goal, position, dt, step_hash, key);
}

int orca_scenario_rule_key(const orca_scenario *sc, int index)
{
    return key_at(sc, index, orca_sim_agent_at(sc->sim, index));
}

int64_t orca_scenario_next_rule_key(const orca_scenario *sc)
{
    return (int64_t)sc->agent_count;
}

/* The preferred velocity toward a corner (docs/navigation.md, "Following a path"): the unit
 * direction times the preferred speed, plus the rule's perturbation. */
static orca_vec2 nav_velocity(orca_vec2 dir, double speed, uint64_t step_hash, uint64_t key)
{
    orca_vec2 pref = v2_mul(dir, speed);
    uint64_t h1 = sc_mix64(step_hash + key);
    uint64_t h2 = sc_mix64(h1 + SC_GOLDEN);
    double amplitude = SC_PERTURB * speed;
    pref.x = pref.x + (2.0 * sc_unit(h1) - 1.0) * amplitude;
    pref.y = pref.y + (2.0 * sc_unit(h2) - 1.0) * amplitude;
    return pref;
}

/* The rule's preferred velocity of agent a (entry e) at position, after the step's
 * navigation pass (docs/scenarios.md, docs/navigation.md): standing without a path, toward
 * the next corner while one lies ahead, else the plain rule. Only reads. */
static orca_vec2 agent_rule(const orca_scenario *sc, const sc_agent *a, int e, orca_vec2 position,
                            uint64_t step_hash)
{
    const sc_nav *v = sc->navigation && (a->goal.kind == ORCA_GOAL_POINT ||
                                         a->goal.kind == ORCA_GOAL_SET)
                          ? a->nv
                          : NULL;
    if (v && v->route.result != ORCA_NAV_OK) {
        return v2(0.0, 0.0); /* no path: it stands (docs/navigation.md) */
    }
    if (v && v->k < v->route.count) {
        return nav_velocity(v->dir, a->goal.preferred_speed, step_hash, (uint64_t)e);
    }
    return preferred_velocity(&a->goal, position, sc->dt, step_hash, (uint64_t)e);
}

static int agent_arrived(const sc_agent *a, orca_vec2 position, double radius)
{
    if (a->goal.kind != ORCA_GOAL_POINT && a->goal.kind != ORCA_GOAL_SET) {
        return 1;
    }
    if (a->wp && (a->wp->loop || a->wp->index < a->wp->count)) {
        return 0; /* a looping agent never arrives; others only at the goal point */
    }
    return v2_len(v2_sub(a->goal.target, position)) <= radius;
}

/* Arrival with the scenario's goal sets: an exit's agents within its arrive distance. */
static int agent_arrived_sc(const orca_scenario *sc, const sc_agent *a, orca_vec2 position,
                            double radius)
{
    if (a->goal.kind == ORCA_GOAL_SET && sc->sets[a->goal.goal_set].exit &&
        sc->sets[a->goal.goal_set].arrive > 0) {
        radius = sc->sets[a->goal.goal_set].arrive;
    }
    return agent_arrived(a, position, radius);
}

typedef struct arrive_ctx {
    const orca_scenario *sc;
    const orca_vec2 *positions;
    atomic_int arrived;
} arrive_ctx;

/* The arrived agents of [begin, end), added to the total once per range (a sum of integers:
 * the same in any split). Only reads. */
static void arrive_task(int begin, int end, int worker, void *context)
{
    (void)worker;
    arrive_ctx *c = context;
    const orca_scenario *sc = c->sc;
    int arrived = 0;
    for (int i = begin; i < end; ++i) {
        int e = key_at(sc, i, orca_sim_agent_at(sc->sim, i));
        arrived += e < 0 || agent_arrived_sc(sc, &sc->agents[e], c->positions[i],
                                             orca_sim_peek_radius(sc->sim, i));
    }
    atomic_fetch_add(&c->arrived, arrived);
}

/* Arrived agents in the current state; agents added to the simulation directly count as
 * arrived. On the simulation's workers from 16384 agents on (below, waking them costs more
 * than the pass). */
static int count_arrived(const orca_scenario *sc)
{
    int n = orca_sim_agent_count(sc->sim);
    arrive_ctx c;
    c.sc = sc;
    c.positions = orca_sim_positions(sc->sim);
    atomic_init(&c.arrived, 0);
    if (n < 16384 || orca_sim_run_task(sc->sim, arrive_task, n, &c) != ORCA_OK) {
        atomic_store(&c.arrived, 0);
        arrive_task(0, n, 0, &c);
    }
    return atomic_load(&c.arrived);
}

/* Whether every agent has arrived: stops at the first that has not (while agents are still
 * on their way, after a few). */
static int all_arrived(const orca_scenario *sc)
{
    int n = orca_sim_agent_count(sc->sim);
    const orca_vec2 *positions = orca_sim_positions(sc->sim);
    for (int i = 0; i < n; ++i) {
        int e = key_at(sc, i, orca_sim_agent_at(sc->sim, i));
        if (e >= 0 &&
            !agent_arrived_sc(sc, &sc->agents[e], positions[i], orca_sim_peek_radius(sc->sim, i))) {
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------
 * Navigation (docs/navigation.md) and goal sets
 * ---------------------------------------------------------------------------------------- */

static int same_point(orca_vec2 a, orca_vec2 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The goal point of an agent's path: its target, or for a goal set the set's point the path
 * ends at. */
static orca_vec2 nav_goal(const orca_scenario *sc, const sc_agent *a, const sc_nav *v)
{
    if (a->goal.kind == ORCA_GOAL_SET && v->route.result == ORCA_NAV_OK && v->route.goal >= 0) {
        return sc->sets[a->goal.goal_set].points[v->route.goal];
    }
    return a->goal.target;
}

/* Plans agent a (at p, radius r) anew; avoid: a wall end to penalise (re-routing). */
static orca_status nav_replan(orca_scenario *sc, sc_agent *a, sc_nav *v, orca_vec2 p, double r,
                            const orca_vec2 *avoid)
{
    const orca_vec2 *goals = &a->goal.target;
    int count = 1, field = -1;
    if (a->goal.kind == ORCA_GOAL_SET) {
        const sc_goal_set *set = &sc->sets[a->goal.goal_set];
        goals = set->points;
        count = set->count;
        field = a->goal.goal_set;
    }
    double penalty = ORCA_NAV_PENALTY_TIME * a->goal.preferred_speed;
    orca_status st = orca_nav_route(sc->nav, r, p, goals, count, field, avoid, penalty, &v->route);
    if (st != ORCA_OK) {
        return fail(sc, st, "out of memory planning a path");
    }
    v->planned = 1;
    v->k = 0;
    v->stuck = 0;
    v->best = 1.0 / 0.0;
    v->radius = r;
    v->plans++;
    if (a->goal.kind == ORCA_GOAL_SET) {
        a->goal.target = v->route.result == ORCA_NAV_OK ? nav_goal(sc, a, v)
                                                         : nearest_point(&sc->sets[a->goal.goal_set], p);
    }
    v->target = a->goal.target;
    return ORCA_OK;
}

/* What an agent's navigation needs after the pass on the workers (nav_task). */
enum { NAV_DONE = 0, NAV_PLAN = 1, NAV_REROUTE = 2 };

/* The start of an agent's navigation in a step: keeps what nav_restore puts back and drops
 * the plan when the walls changed, or the agent has a new target (waypoints, a changed goal)
 * or radius. Returns whether it still has its plan. Writes only the agent's own state, and
 * doing it twice in a step is the same as doing it once. */
static int nav_prepare(const sc_agent *a, sc_nav *v, double r, int changed)
{
    v->prev_k = v->k;
    v->prev_stuck = v->stuck;
    v->prev_best = v->best;
    if (changed) {
        v->planned = 0; /* the walls changed: every path is planned again */
    }
    if (v->planned &&
        (v->radius != r ||
         (a->goal.kind == ORCA_GOAL_POINT && !same_point(a->goal.target, v->target)))) {
        v->planned = 0;
    }
    return v->planned;
}

/* Following a planned path (docs/navigation.md, "Following a path"): passes the corners the
 * agent at p is beyond, counts its progress and takes its direction. NAV_REROUTE when it made
 * no progress for ORCA_NAV_STUCK_TIME (then it takes no direction: the caller plans again
 * first). Reads the scenario, writes only the agent's own state. */
static int nav_follow(const orca_scenario *sc, const sc_agent *a, sc_nav *v, orca_vec2 p, double r)
{
    orca_vec2 goal = nav_goal(sc, a, v);
    while (v->k < v->route.count &&
           orca_nav_passed(p, &v->route.corners[v->k],
                           v->k + 1 < v->route.count ? &v->route.corners[v->k + 1] : NULL, goal,
                           r)) {
        v->k++;
        v->best = 1.0 / 0.0;
        v->stuck = 0;
    }
    /* progress: the distance to where the current leg ends */
    orca_vec2 o = v->k < v->route.count ? v->route.corners[v->k].leave : goal;
    double d = v2_len(v2_sub(o, p));
    if (d < v->best - ORCA_NAV_PROGRESS) {
        v->best = d;
        v->stuck = 0;
    } else {
        v->stuck++;
    }
    if (v->k < v->route.count && (double)v->stuck * sc->dt >= ORCA_NAV_STUCK_TIME) {
        return NAV_REROUTE; /* (on the last leg there is no other way: it waits, as in a queue
                               at the goal) */
    }
    if (v->k < v->route.count) {
        v->dir = orca_nav_aim(p, &v->route.corners[v->k], r);
    }
    return NAV_DONE;
}

/* Re-routing: the corner the agent is stuck at costs more; it plans again and takes its
 * direction. */
static orca_status nav_reroute(orca_scenario *sc, sc_agent *a, sc_nav *v, orca_vec2 p, double r)
{
    v->has_avoid = 1;
    v->avoid = v->route.corners[v->k].vertex;
    v->reroutes++;
    orca_status st = nav_replan(sc, a, v, p, r, &v->avoid);
    if (st == ORCA_OK && v->route.result == ORCA_NAV_OK && v->k < v->route.count) {
        v->dir = orca_nav_aim(p, &v->route.corners[v->k], r);
    }
    return st;
}

typedef struct nav_ctx {
    orca_scenario *sc;
    const int32_t *ent;
    const orca_vec2 *pos;
    uint8_t *flag; /* per index: NAV_DONE, NAV_PLAN or NAV_REROUTE */
    orca_vec2 *pref; /* per index: the rule's value (agent_rule) for the agents with an entry */
    uint64_t step_hash;
    int changed;   /* the walls changed since the last pass */
} nav_ctx;

/* The pass over agents [begin, end) that needs no planning (on the workers: each agent writes
 * only its own entry and flag): without navigation a goal-set agent takes the set's nearest
 * point; with it an agent with a plan follows it, and one that needs a plan or a re-routing is
 * flagged for nav_advance's serial pass. */
static void nav_task(int begin, int end, int worker, void *context)
{
    (void)worker;
    const nav_ctx *c = context;
    orca_scenario *sc = c->sc;
    for (int i = begin; i < end; ++i) {
        int e = c->ent[i];
        uint8_t f = NAV_DONE;
        sc_agent *a = e >= 0 ? &sc->agents[e] : NULL;
        if (a && (a->goal.kind == ORCA_GOAL_POINT || a->goal.kind == ORCA_GOAL_SET)) {
            if (!sc->navigation) {
                if (a->goal.kind == ORCA_GOAL_SET) {
                    a->goal.target = nearest_point(&sc->sets[a->goal.goal_set], c->pos[i]);
                }
            } else if (!a->nv) {
                f = NAV_PLAN;
            } else {
                double r = orca_sim_peek_radius(sc->sim, i);
                if (!nav_prepare(a, a->nv, r, c->changed)) {
                    f = NAV_PLAN;
                } else if (a->nv->route.result == ORCA_NAV_OK) {
                    f = (uint8_t)nav_follow(sc, a, a->nv, c->pos[i], r);
                }
            }
        }
        c->flag[i] = f;
        if (a && f == NAV_DONE) {
            c->pref[i] = agent_rule(sc, a, e, c->pos[i], c->step_hash);
        }
    }
}

/* Before the rule: each navigating agent plans when it must, passes the corners it is beyond,
 * counts its progress (re-routing when it has none for ORCA_NAV_STUCK_TIME) and takes its
 * direction; without navigation a goal-set agent takes the set's nearest point. The agents
 * that need no planning go on the workers (nav_task, from NAV_TASK_MIN agents on); then the
 * plans, which share the navigation's structures, in index order on the calling thread. Each
 * agent's result is that of doing all of it for it alone, so it is the same for any split. */
static orca_status nav_advance(orca_scenario *sc, const int32_t *ent, const orca_vec2 *pos,
                               int n, uint64_t step_hash)
{
    orca_sim *sim = sc->sim;
    nav_ctx c;
    c.sc = sc;
    c.ent = ent;
    c.pos = pos;
    c.flag = sc->nav_flag;
    c.pref = sc->pref;
    c.step_hash = step_hash;
    c.changed = 0;
    if (sc->navigation) {
        if (!sc->nav && orca_nav_create(sim, &sc->nav) != ORCA_OK) {
            return fail(sc, ORCA_ERR_MEMORY, "out of memory creating the navigation");
        }
        c.changed = orca_nav_sync(sc->nav);
        if (c.changed < 0) {
            return fail(sc, ORCA_ERR_MEMORY, "out of memory reading the walls");
        }
    }
    if (n < NAV_TASK_MIN || orca_sim_run_task(sim, nav_task, n, &c) != ORCA_OK) {
        nav_task(0, n, 0, &c);
    }
    if (!sc->navigation) {
        return ORCA_OK;
    }
    for (int i = 0; i < n; ++i) {
        if (c.flag[i] == NAV_DONE) {
            continue;
        }
        sc_agent *a = &sc->agents[ent[i]];
        orca_vec2 p = pos[i];
        double r = orca_sim_peek_radius(sim, i);
        if (c.flag[i] == NAV_REROUTE) {
            orca_status st = nav_reroute(sc, a, a->nv, p, r);
            if (st != ORCA_OK) {
                return st;
            }
            c.pref[i] = agent_rule(sc, a, ent[i], p, step_hash);
            continue;
        }
        if (!a->nv) {
            a->nv = orca_mem_zalloc(1, sizeof *a->nv);
            if (!a->nv) {
                return fail(sc, ORCA_ERR_MEMORY, "out of memory for an agent's path");
            }
            a->nv->prev_best = a->nv->best = 1.0 / 0.0;
        }
        sc_nav *v = a->nv;
        nav_prepare(a, v, r, c.changed);
        orca_status st = nav_replan(sc, a, v, p, r, v->has_avoid ? &v->avoid : NULL);
        if (st == ORCA_OK && v->route.result == ORCA_NAV_OK &&
            nav_follow(sc, a, v, p, r) == NAV_REROUTE) {
            st = nav_reroute(sc, a, v, p, r);
        }
        if (st != ORCA_OK) {
            return st;
        }
        c.pref[i] = agent_rule(sc, a, ent[i], p, step_hash);
    }
    return ORCA_OK;
}

/* Puts back the progress nav_advance changed (the step was refused); plans made are kept
 * (the same plans the step will make again). Entries of agents no longer in the simulation
 * are not read again. */
static void nav_restore(orca_scenario *sc)
{
    for (int e = 0; e < sc->agent_count; ++e) {
        sc_nav *v = sc->agents[e].nv;
        if (v && v->planned) {
            v->k = v->prev_k < v->route.count ? v->prev_k : v->k;
            v->stuck = v->prev_stuck;
            v->best = v->prev_best;
        }
    }
}

typedef struct exit_ctx {
    const orca_scenario *sc;
    const int32_t *ent;
    const orca_vec2 *pos;
    uint8_t *leaves; /* per index: 1 when the agent leaves */
} exit_ctx;

/* Which agents of [begin, end) are at their exit (on the workers: each index its own flag). */
static void exit_task(int begin, int end, int worker, void *context)
{
    (void)worker;
    const exit_ctx *c = context;
    const orca_scenario *sc = c->sc;
    for (int i = begin; i < end; ++i) {
        int e = c->ent[i];
        uint8_t out = 0;
        if (e >= 0 && sc->agents[e].goal.kind == ORCA_GOAL_SET) {
            const sc_goal_set *set = &sc->sets[sc->agents[e].goal.goal_set];
            if (set->exit) {
                double d = set->arrive > 0 ? set->arrive : orca_sim_peek_radius(sc->sim, i);
                out = v2_len(v2_sub(sc->agents[e].goal.target, c->pos[i])) <= d;
            }
        }
        c->leaves[i] = out;
    }
}

/* The agents heading for an exit and within its arrive distance leave (one batch removal, in
 * index order). */
static orca_status exits_leave(orca_scenario *sc, int32_t *ent)
{
    orca_sim *sim = sc->sim;
    int n = orca_sim_agent_count(sim);
    exit_ctx c;
    c.sc = sc;
    c.ent = ent;
    c.pos = orca_sim_positions(sim);
    c.leaves = sc->nav_flag;
    if (n < NAV_TASK_MIN || orca_sim_run_task(sim, exit_task, n, &c) != ORCA_OK) {
        exit_task(0, n, 0, &c);
    }
    int m = 0;
    for (int i = 0; i < n; ++i) {
        m += c.leaves[i];
    }
    if (m == 0) {
        return ORCA_OK;
    }
    if (m > sc->exit_cap) {
        orca_agent_id *ids = orca_mem_resize(sc->exit_ids, (size_t)m, sizeof *ids);
        if (!ids) {
            return fail(sc, ORCA_ERR_MEMORY, "out of memory removing agents at exits");
        }
        sc->exit_ids = ids;
        sc->exit_cap = m;
    }
    m = 0;
    for (int i = 0; i < n; ++i) {
        if (c.leaves[i]) {
            sc->exit_ids[m++] = orca_sim_agent_at(sim, i);
            ent[i] = -2; /* leaves */
        }
    }
    orca_status st = orca_sim_remove_agents(sim, sc->exit_ids, m);
    if (st != ORCA_OK) {
        for (int i = 0; i < n; ++i) {
            if (ent[i] == -2) {
                ent[i] = key_at(sc, i, orca_sim_agent_at(sim, i));
            }
        }
        return fail_sim(sc, st, "removing the agents at exits");
    }
    /* the entries of the agents that stay, in their new index order */
    int k = 0;
    for (int i = 0; i < n; ++i) {
        if (ent[i] != -2) {
            ent[k++] = ent[i];
        }
    }
    sc->exited += m;
    sc->exited_last_step = (int64_t)orca_sim_step_count(sim);
    return ORCA_OK;
}

orca_status orca_scenario_set_goal_set_exit(orca_scenario *sc, int set, double arrive_distance)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (set < 0 || set >= sc->set_count) {
        return fail(sc, ORCA_ERR_ARGUMENT, "set must be in [0, %d), got %d", sc->set_count, set);
    }
    if (!(arrive_distance == 0.0 ||
          (arrive_distance >= SC_ARRIVE_MIN && arrive_distance <= SC_ARRIVE_MAX))) {
        return fail(sc, ORCA_ERR_ARGUMENT,
                    "arrive_distance must be 0 (the agent's radius) or in [2^-30, 2^23] m, got "
                    "%.17g",
                    arrive_distance);
    }
    if (!sc->sets[set].exit) {
        sc->exit_sets++;
    }
    sc->sets[set].exit = 1;
    sc->sets[set].arrive = arrive_distance + 0.0;
    return ORCA_OK;
}

orca_status orca_scenario_goal_set_exit(const orca_scenario *sc_in, int set, int *exit,
                                        double *arrive_distance)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (set < 0 || set >= sc->set_count) {
        return fail(sc, ORCA_ERR_ARGUMENT, "set must be in [0, %d), got %d", sc->set_count, set);
    }
    if (exit) {
        *exit = sc->sets[set].exit;
    }
    if (arrive_distance) {
        *arrive_distance = sc->sets[set].arrive;
    }
    return ORCA_OK;
}

orca_status orca_scenario_exited(const orca_scenario *sc, int *count, int64_t *last_step)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (count) {
        *count = sc->exited;
    }
    if (last_step) {
        *last_step = sc->exited > 0 ? sc->exited_last_step : -1;
    }
    return ORCA_OK;
}

orca_status orca_scenario_set_navigation(orca_scenario *sc, int on)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (on != 0 && on != 1) {
        return fail(sc, ORCA_ERR_ARGUMENT, "navigation must be 0 or 1, got %d", on);
    }
    if (on && !sc->nav) {
        if (orca_nav_create(sc->sim, &sc->nav) != ORCA_OK) {
            return fail(sc, ORCA_ERR_MEMORY, "out of memory creating the navigation");
        }
    }
    if (on != sc->navigation) {
        for (int e = 0; e < sc->agent_count; ++e) {
            if (sc->agents[e].nv) {
                sc->agents[e].nv->planned = 0;
            }
        }
    }
    sc->navigation = on;
    return ORCA_OK;
}

int orca_scenario_get_navigation(const orca_scenario *sc)
{
    return sc ? sc->navigation : 0;
}

orca_status orca_scenario_add_goal_set(orca_scenario *sc, const char *name, const orca_vec2 *points,
                                       int count, int *out)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!name) {
        return fail(sc, ORCA_ERR_NULL, "goal set name must not be NULL");
    }
    size_t len = strlen(name);
    if (len == 0 || len > 63) {
        return fail(sc, ORCA_ERR_ARGUMENT, "goal set name must have 1 to 63 characters, got %zu",
                    len);
    }
    if (orca_scenario_goal_set_find(sc, name) >= 0) {
        return fail(sc, ORCA_ERR_ARGUMENT, "goal set '%s' exists already", name);
    }
    if (count < 1 || count > ORCA_NAV_GOALS_MAX) {
        return fail(sc, count < 1 ? ORCA_ERR_ARGUMENT : ORCA_ERR_LIMIT,
                    "goal set '%s': count must be in [1, %d], got %d", name, ORCA_NAV_GOALS_MAX,
                    count);
    }
    if (!points) {
        return fail(sc, ORCA_ERR_NULL, "goal set '%s': points must not be NULL", name);
    }
    for (int k = 0; k < count; ++k) {
        if (!is_coord(points[k])) {
            return fail(sc, ORCA_ERR_ARGUMENT,
                        "goal set '%s': point %d must have finite coordinates of magnitude below "
                        "2^21, got (%.17g, %.17g)",
                        name, k, points[k].x, points[k].y);
        }
    }
    if (sc->set_count == sc->set_capacity) {
        int cap = sc->set_capacity ? 2 * sc->set_capacity : 4;
        sc_goal_set *ns = orca_mem_resize(sc->sets, (size_t)cap, sizeof *ns);
        if (!ns) {
            return fail(sc, ORCA_ERR_MEMORY, "out of memory adding goal set '%s'", name);
        }
        sc->sets = ns;
        sc->set_capacity = cap;
    }
    orca_vec2 *pts = orca_mem_alloc((size_t)count, sizeof *pts);
    if (!pts) {
        return fail(sc, ORCA_ERR_MEMORY, "out of memory adding goal set '%s'", name);
    }
    for (int k = 0; k < count; ++k) {
        pts[k] = v2(points[k].x + 0.0, points[k].y + 0.0);
    }
    sc_goal_set *set = &sc->sets[sc->set_count];
    memset(set, 0, sizeof *set);
    memcpy(set->name, name, len + 1);
    set->points = pts;
    set->count = count;
    if (out) {
        *out = sc->set_count;
    }
    sc->set_count++;
    return ORCA_OK;
}

int orca_scenario_goal_set_count(const orca_scenario *sc)
{
    return sc ? sc->set_count : 0;
}

int orca_scenario_goal_set_find(const orca_scenario *sc, const char *name)
{
    if (!sc || !name) {
        return -1;
    }
    for (int k = 0; k < sc->set_count; ++k) {
        if (strcmp(sc->sets[k].name, name) == 0) {
            return k;
        }
    }
    return -1;
}

orca_status orca_scenario_goal_set_get(const orca_scenario *sc_in, int set, const char **name,
                                       orca_vec2 *points, int capacity, int *count)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (set < 0 || set >= sc->set_count) {
        return fail(sc, ORCA_ERR_ARGUMENT, "set must be in [0, %d), got %d", sc->set_count, set);
    }
    if (capacity < 0 || (capacity > 0 && !points)) {
        return fail(sc, capacity < 0 ? ORCA_ERR_ARGUMENT : ORCA_ERR_NULL,
                    "points is NULL with capacity %d", capacity);
    }
    const sc_goal_set *s = &sc->sets[set];
    if (name) {
        *name = s->name;
    }
    for (int k = 0; k < s->count && k < capacity; ++k) {
        points[k] = s->points[k];
    }
    if (count) {
        *count = s->count;
    }
    return ORCA_OK;
}

orca_status orca_scenario_agent_nav(const orca_scenario *sc_in, int index, orca_nav_agent *out,
                                    orca_nav_corner *corners, int capacity)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!out) {
        return fail(sc, ORCA_ERR_NULL, "out must not be NULL");
    }
    if (capacity < 0 || (capacity > 0 && !corners)) {
        return fail(sc, capacity < 0 ? ORCA_ERR_ARGUMENT : ORCA_ERR_NULL,
                    "corners is NULL with capacity %d", capacity);
    }
    int e = entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
    }
    const sc_agent *a = &sc->agents[e];
    memset(out, 0, sizeof *out);
    out->navigating = sc->navigation &&
                      (a->goal.kind == ORCA_GOAL_POINT || a->goal.kind == ORCA_GOAL_SET);
    out->goal = a->goal.target;
    const sc_nav *v = a->nv;
    if (!v || !v->planned) {
        return ORCA_OK;
    }
    out->result = (orca_nav_result)v->route.result;
    out->corner = v->k;
    out->corners = v->route.result == ORCA_NAV_OK ? v->route.count : 0;
    out->length = v->route.length;
    out->plans = v->plans;
    out->reroutes = v->reroutes;
    out->goal = nav_goal(sc, a, v);
    for (int k = 0; k < out->corners && k < capacity; ++k) {
        corners[k] = v->route.corners[k];
    }
    return ORCA_OK;
}

int orca_scenario_nav_unreachable(const orca_scenario *sc)
{
    if (!sc || !sc->navigation) {
        return 0;
    }
    int n = orca_sim_agent_count(sc->sim), count = 0;
    for (int i = 0; i < n; ++i) {
        int e = key_at(sc, i, orca_sim_agent_at(sc->sim, i));
        const sc_nav *v = e >= 0 ? sc->agents[e].nv : NULL;
        count += v && v->planned && v->route.result != ORCA_NAV_OK;
    }
    return count;
}

typedef struct rule_ctx {
    orca_scenario *sc;
    const uint32_t *slots, *generations; /* orca_sim_peek_handles */
    uint64_t step_hash;                  /* perturb_step_hash of this step */
    const int32_t *ent;                  /* the entry of each index, or NULL: key_at */
    const orca_vec2 *pref;               /* NULL, or each entry's value, from nav_advance */
} rule_ctx;

/* The preferred-velocity rule of the agents at index[0 .. count-1] (orca_step_rule_fn: the
 * step runs it on the workers; each agent's value comes from the start-of-step state, the
 * step count, the seed and its key; only reads). Agents the scenario did not add keep the
 * preferred velocity their owner set. */
static void rule_agents(void *context, const int32_t *index, int32_t first,
                        const orca_vec2 *position, int count, const orca_vec2 *current,
                        orca_vec2 *out)
{
    const rule_ctx *c = context;
    const orca_scenario *sc = c->sc;
    for (int j = 0; j < count; ++j) {
        int32_t i = index ? index[j] : first + j;
        int e;
        if (c->ent) {
            e = c->ent[i];
        } else {
            orca_agent_id id;
            id.slot = c->slots[i];
            id.generation = c->generations[id.slot];
            e = key_at(sc, i, id);
        }
        if (e < 0) {
            out[i] = current[i];
            continue;
        }
        out[i] = c->pref ? c->pref[i]
                         : agent_rule(sc, &sc->agents[e], e, position[j], c->step_hash);
    }
}

typedef struct ent_ctx {
    orca_scenario *sc;
    const uint32_t *slots, *gens; /* orca_sim_peek_handles */
    int hint;                     /* ent[0 .. hint) hold the last step's entries */
} ent_ctx;

/* The entry of each index in [begin, end) into sc->ent (on the workers: each index its own
 * slot; the map is only read). The last step's entry of index i is the guess (right unless
 * agents were added or removed in between); a guess is taken only when its handle is the
 * agent's. */
static void ent_task(int begin, int end, int worker, void *context)
{
    (void)worker;
    const ent_ctx *c = context;
    orca_scenario *sc = c->sc;
    for (int i = begin; i < end; ++i) {
        orca_agent_id id;
        id.slot = c->slots[i];
        id.generation = c->gens[id.slot];
        int e = i < c->hint ? sc->ent[i] : -1;
        if (e < 0 || e >= sc->agent_count || sc->agents[e].id.slot != id.slot ||
            sc->agents[e].id.generation != id.generation) {
            e = key_at(sc, i, id);
        }
        sc->ent[i] = e;
    }
}

orca_status orca_scenario_step(orca_scenario *sc)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    orca_sim *sim = sc->sim;
    int n = orca_sim_agent_count(sim);

    /* The initial state (before the first step) enters the record too. */
    double init_agent = 0.0, init_wall = 0.0;
    int init_all_arrived = 0;
    uint64_t k = orca_sim_step_count(sim);
    if (!sc->measured_initial && sc->recording) {
        orca_status st = orca_sim_measure_overlap(sim, &init_agent, &init_wall);
        if (st != ORCA_OK) {
            return fail_sim(sc, st, "measuring the initial overlaps");
        }
        init_all_arrived = all_arrived(sc);
    }

    /* The entry of each index, once for the passes below (navigation, goal sets). */
    int32_t *ent = NULL;
    if (sc->navigation || sc->set_agents > 0 || sc->exit_sets > 0) {
        if (n > sc->ent_cap) {
            int32_t *q = orca_mem_resize(sc->ent, (size_t)n, sizeof *q);
            if (!q) {
                return fail(sc, ORCA_ERR_MEMORY, "out of memory for the step's agent table");
            }
            sc->ent = q;
            uint8_t *f = orca_mem_resize(sc->nav_flag, (size_t)n, sizeof *f);
            if (!f) {
                return fail(sc, ORCA_ERR_MEMORY, "out of memory for the step's agent table");
            }
            sc->nav_flag = f;
            orca_vec2 *pv = orca_mem_resize(sc->pref, (size_t)n, sizeof *pv);
            if (!pv) {
                return fail(sc, ORCA_ERR_MEMORY, "out of memory for the step's agent table");
            }
            sc->pref = pv;
            sc->ent_cap = n;
        }
        ent = sc->ent;
        ent_ctx c;
        c.sc = sc;
        orca_sim_peek_handles(sim, &c.slots, &c.gens);
        c.hint = sc->shared_keys ? 0 : (sc->ent_hint < n ? sc->ent_hint : n);
        if (n < NAV_TASK_MIN || orca_sim_run_task(sim, ent_task, n, &c) != ORCA_OK) {
            ent_task(0, n, 0, &c);
        }
        sc->ent_hint = n;
    }

    /* Exits (docs/navigation.md, "Exits"): the agents at an exit leave first. */
    if (sc->exit_sets > 0) {
        orca_status st = exits_leave(sc, ent);
        if (st != ORCA_OK) {
            return st;
        }
        n = orca_sim_agent_count(sim);
        sc->ent_hint = n;
    }

    /* Waypoints (docs/extensions.md): each agent with waypoints may take its next target,
     * on the current positions, before the rule reads the targets. */
    int switched = 0;
    if (sc->waypoint_agents > 0) {
        orca_status st = waypoints_advance(sc, orca_sim_positions(sim), n);
        switched = 1;
        if (st != ORCA_OK) {
            waypoints_restore(sc);
            return st;
        }
    }

    /* Navigation (docs/navigation.md) and goal sets: plans, corners passed, directions. */
    int navigated = 0;
    if (sc->navigation || sc->set_agents > 0) {
        orca_status st =
            nav_advance(sc, ent, orca_sim_positions(sim), n, perturb_step_hash(sc->seed, k));
        navigated = 1;
        if (st != ORCA_OK) {
            nav_restore(sc);
            if (switched) {
                waypoints_restore(sc);
            }
            return st;
        }
    }

    /* The rule and the step in one pass over the agents (rule_agent): a refused step
     * (including a rule value out of range) leaves the simulation as it was, preferred
     * velocities included. */
    rule_ctx ctx;
    ctx.sc = sc;
    orca_sim_peek_handles(sim, &ctx.slots, &ctx.generations);
    ctx.step_hash = perturb_step_hash(sc->seed, k);
    ctx.ent = ent;
    ctx.pref = navigated ? sc->pref : NULL;
    orca_status st = orca_sim_step_rule(sim, sc->dt, rule_agents, &ctx);
    if (st != ORCA_OK) {
        fail_sim(sc, st, "the simulation step failed");
        if (switched) {
            waypoints_restore(sc);
        }
        if (navigated) {
            nav_restore(sc);
        }
        return st;
    }

    sc->fallback_total += (uint64_t)orca_sim_last_fallback_count(sim);
    if (!sc->recording) {
        return ORCA_OK;
    }
    if (!sc->measured_initial) {
        sc->measured_initial = 1;
        if (init_agent > sc->max_agent_overlap) {
            sc->max_agent_overlap = init_agent;
        }
        if (init_wall > sc->max_wall_overlap) {
            sc->max_wall_overlap = init_wall;
        }
        if (init_all_arrived && sc->all_arrived_step < 0) {
            sc->all_arrived_step = (int64_t)k;
        }
    }
    double ao = 0.0, wo = 0.0;
    st = orca_sim_measure_overlap(sim, &ao, &wo);
    if (st != ORCA_OK) {
        /* The step happened; only the record could not be updated. */
        return fail_sim(sc, st, "measuring the overlaps after the step");
    }
    if (ao > sc->max_agent_overlap) {
        sc->max_agent_overlap = ao;
    }
    if (wo > sc->max_wall_overlap) {
        sc->max_wall_overlap = wo;
    }
    if (sc->all_arrived_step < 0 && all_arrived(sc)) {
        sc->all_arrived_step = (int64_t)orca_sim_step_count(sim);
    }
    return ORCA_OK;
}

int orca_scenario_arrived_count(const orca_scenario *sc)
{
    if (!sc) {
        return 0;
    }
    int a = count_arrived(sc);
    return a < 0 ? 0 : a;
}

int64_t orca_scenario_all_arrived_step(const orca_scenario *sc)
{
    return sc ? sc->all_arrived_step : -1;
}

double orca_scenario_max_agent_overlap(const orca_scenario *sc)
{
    return sc ? sc->max_agent_overlap : 0.0;
}

double orca_scenario_max_wall_overlap(const orca_scenario *sc)
{
    return sc ? sc->max_wall_overlap : 0.0;
}

orca_status orca_scenario_set_recording(orca_scenario *sc, int on)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    sc->recording = on != 0;
    return ORCA_OK;
}

uint64_t orca_scenario_fallback_total(const orca_scenario *sc)
{
    return sc ? sc->fallback_total : 0;
}

/* ------------------------------------------------------------------------------------------
 * Built-in scenes (docs/scenarios.md, "Scenes")
 * ---------------------------------------------------------------------------------------- */

static orca_agent_def scene_agent(orca_vec2 position)
{
    orca_agent_def d;
    memset(&d, 0, sizeof d);
    d.position = position;
    d.velocity = v2(0.0, 0.0);
    d.preferred_velocity = v2(0.0, 0.0);
    d.radius = SC_RADIUS;
    d.max_speed = SC_MAX_SPEED;
    d.neighbor_dist = SC_NEIGHBOR_DIST;
    d.max_neighbors = SC_MAX_NEIGHBORS;
    d.time_horizon = SC_TIME_HORIZON;
    d.obstacle_time_horizon = SC_OBSTACLE_HORIZON;
    return d;
}

static orca_status scene_add_speed(orca_scenario *sc, orca_vec2 start, orca_vec2 goal_point,
                                   double preferred_speed)
{
    orca_agent_def d = scene_agent(start);
    orca_goal g;
    memset(&g, 0, sizeof g);
    g.kind = ORCA_GOAL_POINT;
    g.target = goal_point;
    g.preferred_speed = preferred_speed;
    if (sc->emit) {
        return sc->emit(sc->emit_ctx, sc->emitted++, &d, &g);
    }
    return orca_scenario_add_agent(sc, &d, &g, NULL);
}

static orca_status scene_add(orca_scenario *sc, orca_vec2 start, orca_vec2 goal_point)
{
    return scene_add_speed(sc, start, goal_point, SC_PREF_SPEED);
}

static orca_status scene_wall(orca_scenario *sc, double ax, double ay, double bx, double by)
{
    orca_status st = orca_sim_add_segment(sc->sim, v2(ax, ay), v2(bx, by), NULL);
    if (st != ORCA_OK) {
        return fail_sim(sc, st, "wall refused by the simulation");
    }
    return ORCA_OK;
}

/* circle: n agents on a circle of radius n * 6 / (2 pi) (arc spacing 6 m = 4 radii), agent k
 * at R * (cos, sin)(k / n turns), goal the antipodal point. Preferred speed 0.75 m/s instead
 * of 1: at 1 the deepest overlap of the 300-agent circle spreads over 0.38..0.52 radius with
 * the seed (the checks' bound is 0.5, docs/scenarios.md); at 0.75 it stays near 0.35 (docs/scenarios.md). */
#define SC_CIRCLE_SPACING 6.0
#define SC_CIRCLE_PREF_SPEED 0.75

static orca_status build_circle(orca_scenario *sc, int n)
{
    double radius = ((double)n * SC_CIRCLE_SPACING) / SC_TWO_PI;
    for (int k = 0; k < n; ++k) {
        double s, c;
        orca_sincos_turns((double)k / (double)n, &s, &c);
        orca_vec2 p = v2(radius * c, radius * s);
        orca_status st = scene_add_speed(sc, p, v2_neg(p), SC_CIRCLE_PREF_SPEED);
        if (st != ORCA_OK) {
            return st;
        }
    }
    return ORCA_OK;
}

/* crossing: two m x m blocks (2 m^2 agents, m the largest integer with 2 m^2 <= n, at least
 * 1), grid spacing 5 m (2 m between neighbours). Block A is centred at (-D, 0) and walks +x by
 * 2D; block B is centred at (0, -D) and walks +y by 2D; D = 5 m + 10. Each agent keeps its
 * place in the block: goal = start + (2D, 0) or start + (0, 2D). */
#define SC_BLOCK_SPACING 5.0

static orca_status build_crossing(orca_scenario *sc, int n)
{
    int m = 1;
    while (2 * (int64_t)(m + 1) * (m + 1) <= n) {
        ++m;
    }
    double d = SC_BLOCK_SPACING * (double)m + 10.0;
    double half = SC_BLOCK_SPACING * (double)(m - 1) * 0.5;
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) {
            /* offsets along and across the direction of travel */
            double u = SC_BLOCK_SPACING * (double)i - half;
            double w = SC_BLOCK_SPACING * (double)j - half;
            orca_status st = scene_add(sc, v2(u - d, w), v2(u + d, w));
            if (st != ORCA_OK) {
                return st;
            }
        }
    }
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) {
            double u = SC_BLOCK_SPACING * (double)i - half;
            double w = SC_BLOCK_SPACING * (double)j - half;
            orca_status st = scene_add(sc, v2(w, u - d), v2(w, u + d));
            if (st != ORCA_OK) {
                return st;
            }
        }
    }
    return ORCA_OK;
}

/* wallgap: a wall on the line x = 0 with a gap |y| < G/2, G = 12 m (4 diameters): segments
 * (0, G/2)-(0, L) and (0, -L)-(0, -G/2), L = 60 + 5 c (c start columns). The crowd is 5 rows
 * wide (16 m plus the radii, wider than the gap): agent i starts in column c = i / 5, row
 * r = i % 5 at (-(10 + 5c), 4(r - 2)). The goals lie in 3 rows inside the gap's band,
 * |y| <= 4 < G/2, so that an agent pressed against the wall always has a preferred velocity
 * with a component along the wall toward the gap (a goal straight behind the wall would be a
 * local minimum for ORCA, which plans no path): agent i's goal is column j = i / 3, row
 * i % 3 at (10 + 5j, 4((i % 3) - 1)), so the front of the crowd stops nearest the wall. */
#define SC_GAP_WIDTH 12.0
#define SC_GAP_ROWS 5
#define SC_GAP_ROW_SPACING 4.0
#define SC_GAP_GOAL_ROWS 3
#define SC_GAP_GOAL_ROW_SPACING 4.0

static orca_status build_wallgap(orca_scenario *sc, int n)
{
    int columns = (n + SC_GAP_ROWS - 1) / SC_GAP_ROWS;
    double wall_end = 60.0 + SC_BLOCK_SPACING * (double)columns;
    orca_status st = scene_wall(sc, 0.0, SC_GAP_WIDTH * 0.5, 0.0, wall_end);
    if (st == ORCA_OK) {
        st = scene_wall(sc, 0.0, -wall_end, 0.0, -(SC_GAP_WIDTH * 0.5));
    }
    for (int i = 0; i < n && st == ORCA_OK; ++i) {
        int c = i / SC_GAP_ROWS;
        int r = i % SC_GAP_ROWS;
        int j = i / SC_GAP_GOAL_ROWS;
        int gr = i % SC_GAP_GOAL_ROWS;
        orca_vec2 p = v2(-(10.0 + SC_BLOCK_SPACING * (double)c),
                         SC_GAP_ROW_SPACING * (double)(r - SC_GAP_ROWS / 2));
        orca_vec2 g = v2(10.0 + SC_BLOCK_SPACING * (double)j,
                         SC_GAP_GOAL_ROW_SPACING * (double)(gr - SC_GAP_GOAL_ROWS / 2));
        st = scene_add(sc, p, g);
    }
    return st;
}

/* corridor: walls y = -H and y = +H (H = 7.5) from x = -X to X, X = 20 + 5c + 40, with
 * c = n / 4 columns (at least 1; each group is 2 rows of c agents, so n rounds down to a
 * multiple of 4, at least 4). Group A agent (column j, row r) starts at (-(20 + 5j), -3 + 6r)
 * and walks +x by T = 40 + 5(c - 1) (its goal is the start of group B's agent in column c-1-j);
 * group B is the mirror image x -> -x and walks -x by T. Both groups use the same two rows,
 * so the agents meet exactly head on. */
#define SC_CORRIDOR_HALF_WIDTH 7.5
#define SC_CORRIDOR_ROW 3.0

static orca_status build_corridor(orca_scenario *sc, int n)
{
    int columns = n / 4;
    if (columns < 1) {
        columns = 1;
    }
    double x_end = 20.0 + SC_BLOCK_SPACING * (double)columns + 40.0;
    double travel = 40.0 + SC_BLOCK_SPACING * (double)(columns - 1);
    orca_status st = scene_wall(sc, -x_end, -SC_CORRIDOR_HALF_WIDTH, x_end,
                                -SC_CORRIDOR_HALF_WIDTH);
    if (st == ORCA_OK) {
        st = scene_wall(sc, -x_end, SC_CORRIDOR_HALF_WIDTH, x_end, SC_CORRIDOR_HALF_WIDTH);
    }
    for (int group = 0; group < 2 && st == ORCA_OK; ++group) {
        double dir = group == 0 ? 1.0 : -1.0;
        for (int j = 0; j < columns && st == ORCA_OK; ++j) {
            for (int r = 0; r < 2 && st == ORCA_OK; ++r) {
                double x = -(20.0 + SC_BLOCK_SPACING * (double)j) * dir;
                double y = -SC_CORRIDOR_ROW + 2.0 * SC_CORRIDOR_ROW * (double)r;
                st = scene_add(sc, v2(x, y), v2(x + travel * dir, y));
            }
        }
    }
    return st;
}

/* random: n agents uniform in the square [-L/2, L/2)^2, L = 4 sqrt(n); goals likewise. A
 * candidate point is (u1 * L - L/2, u2 * L - L/2) from two successive outputs of the placement
 * generator (splitmix64, state = seed). Starts are drawn first (agent 0, 1, ...), then goals;
 * a candidate closer than 2 radii (squared distance <= 9) to an accepted start (resp. goal) is
 * drawn again. A uniform grid of 4 m cells makes each test constant time. */
typedef struct sc_grid {
    int cells_per_side;
    double cell;
    double origin;
    int *head; /* per cell: first point, -1 */
    int *next; /* per point: next in its cell */
    orca_vec2 *points;
    int count;
} sc_grid;

static int grid_cell(const sc_grid *g, double v)
{
    int c = (int)((v - g->origin) / g->cell); /* v - origin >= 0: truncation is floor */
    if (c < 0) {
        c = 0;
    }
    if (c >= g->cells_per_side) {
        c = g->cells_per_side - 1;
    }
    return c;
}

static int grid_clear(const sc_grid *g, orca_vec2 p, double min_dist_sq)
{
    int cx = grid_cell(g, p.x), cy = grid_cell(g, p.y);
    for (int y = cy - 1; y <= cy + 1; ++y) {
        if (y < 0 || y >= g->cells_per_side) {
            continue;
        }
        for (int x = cx - 1; x <= cx + 1; ++x) {
            if (x < 0 || x >= g->cells_per_side) {
                continue;
            }
            for (int i = g->head[y * g->cells_per_side + x]; i >= 0; i = g->next[i]) {
                orca_vec2 d = v2_sub(g->points[i], p);
                if (v2_dot(d, d) <= min_dist_sq) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

static void grid_insert(sc_grid *g, orca_vec2 p)
{
    int cell = grid_cell(g, p.y) * g->cells_per_side + grid_cell(g, p.x);
    int i = g->count++;
    g->points[i] = p;
    g->next[i] = g->head[cell];
    g->head[cell] = i;
}

#define SC_RANDOM_MAX_TRIES 100000

static orca_status random_points(orca_scenario *sc, sc_rng *rng, int n, double side,
                                 sc_grid *g, const char *what)
{
    double half = side * 0.5;
    double min_dist = 2.0 * SC_RADIUS;
    double min_dist_sq = min_dist * min_dist;
    for (int c = 0; c < g->cells_per_side * g->cells_per_side; ++c) {
        g->head[c] = -1;
    }
    g->count = 0;
    for (int i = 0; i < n; ++i) {
        int placed = 0;
        for (int t = 0; t < SC_RANDOM_MAX_TRIES && !placed; ++t) {
            double u1 = sc_unit(sc_rng_next(rng));
            double u2 = sc_unit(sc_rng_next(rng));
            orca_vec2 p = v2(u1 * side - half, u2 * side - half);
            if (grid_clear(g, p, min_dist_sq)) {
                grid_insert(g, p);
                placed = 1;
            }
        }
        if (!placed) {
            return fail(sc, ORCA_ERR_LIMIT, "random scene: could not place %s %d after %d tries",
                        what, i, SC_RANDOM_MAX_TRIES);
        }
    }
    return ORCA_OK;
}

static orca_status build_random(orca_scenario *sc, int n, uint64_t seed)
{
    double side = 4.0 * sqrt((double)n);
    sc_grid g;
    memset(&g, 0, sizeof g);
    /* Cells wider than the 3 m test distance (by a margin far above any rounding of the cell
     * index), so every point within 3 m of a candidate is in the 3 x 3 block around it. */
    g.cell = 2.0 * SC_RADIUS + 1.0;
    g.cells_per_side = (int)(side / g.cell) + 1;
    g.origin = -(side * 0.5);
    size_t cells = (size_t)g.cells_per_side * (size_t)g.cells_per_side;
    g.head = orca_mem_alloc(cells, sizeof *g.head);
    g.next = orca_mem_alloc((size_t)n, sizeof *g.next);
    g.points = orca_mem_alloc((size_t)n, sizeof *g.points);
    orca_vec2 *starts = orca_mem_alloc((size_t)n, sizeof *starts);
    orca_status st = ORCA_OK;
    if (!g.head || !g.next || !g.points || !starts) {
        st = fail(sc, ORCA_ERR_MEMORY, "out of memory placing %d random agents", n);
    }
    sc_rng rng = {seed};
    if (st == ORCA_OK) {
        st = random_points(sc, &rng, n, side, &g, "start");
    }
    if (st == ORCA_OK) {
        memcpy(starts, g.points, (size_t)n * sizeof *starts);
        st = random_points(sc, &rng, n, side, &g, "goal");
    }
    for (int i = 0; i < n && st == ORCA_OK; ++i) {
        st = scene_add(sc, starts[i], g.points[i]);
    }
    orca_mem_free(g.head);
    orca_mem_free(g.next);
    orca_mem_free(g.points);
    orca_mem_free(starts);
    return st;
}

static const int k_default_counts[ORCA_SCENE_COUNT] = {100, 98, 40, 40, 1000};

static orca_status create_builtin(orca_scene_kind kind, int agent_count, uint64_t seed,
                                  const orca_sim_def *sim_def, orca_scene_emit_fn *emit,
                                  void *emit_ctx, orca_scenario **out);

orca_status orca_scenario_create_builtin(orca_scene_kind kind, int agent_count, uint64_t seed,
                                         const orca_sim_def *sim_def, orca_scenario **out)
{
    return create_builtin(kind, agent_count, seed, sim_def, NULL, NULL, out);
}

orca_status orca_builtin_stream(orca_scene_kind kind, int agent_count, uint64_t seed,
                                orca_scene_emit_fn *emit, void *emit_ctx, orca_scenario **out)
{
    return create_builtin(kind, agent_count, seed, NULL, emit, emit_ctx, out);
}

static orca_status create_builtin(orca_scene_kind kind, int agent_count, uint64_t seed,
                                  const orca_sim_def *sim_def, orca_scene_emit_fn *emit,
                                  void *emit_ctx, orca_scenario **out)
{
    if (!out) {
        return fail(NULL, ORCA_ERR_NULL, "out must not be NULL");
    }
    if ((int)kind < 0 || (int)kind >= ORCA_SCENE_COUNT) {
        return fail(NULL, ORCA_ERR_ARGUMENT, "scene kind must be in [0, %d), got %d",
                    ORCA_SCENE_COUNT, (int)kind);
    }
    if (agent_count < 0) {
        return fail(NULL, ORCA_ERR_ARGUMENT, "agent_count must be >= 0, got %d", agent_count);
    }
    if (agent_count > k_max_counts[kind]) {
        return fail(NULL, ORCA_ERR_LIMIT,
                    "agent_count must be at most %d for scene %s (the largest whose starts, "
                    "goals and walls lie within 2^21 of the origin), got %d",
                    k_max_counts[kind], k_scene_names[kind], agent_count);
    }
    int n = agent_count ? agent_count : k_default_counts[kind];
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create(sim_def, SC_DT, seed, &sc);
    if (st != ORCA_OK) {
        return st; /* message already in g_create_error */
    }
    snprintf(sc->name, sizeof sc->name, "%s", k_scene_names[kind]);
    sc->emit = emit;
    sc->emit_ctx = emit_ctx;
    switch (kind) {
    case ORCA_SCENE_CIRCLE: st = build_circle(sc, n); break;
    case ORCA_SCENE_CROSSING: st = build_crossing(sc, n); break;
    case ORCA_SCENE_WALL_GAP: st = build_wallgap(sc, n); break;
    case ORCA_SCENE_CORRIDOR: st = build_corridor(sc, n); break;
    default: st = build_random(sc, n, seed); break;
    }
    sc->emit = NULL;
    if (st != ORCA_OK) {
        fail(NULL, st, "building scene %s with %d agents: %s", k_scene_names[kind], n,
             sc->error);
        orca_scenario_destroy(sc);
        return st;
    }
    *out = sc;
    return ORCA_OK;
}

orca_goal orca_goal_default(void)
{
    orca_goal g;
    memset(&g, 0, sizeof g);
    g.kind = ORCA_GOAL_NONE;
    g.preferred_speed = 1.0; /* docs/scenarios.md, "Defaults" */
    return g;
}

/* ------------------------------------------------------------------------------------------
 * Snapshots (docs/scenarios.md, "Snapshots")
 * ---------------------------------------------------------------------------------------- */

#define SCS_MAGIC "ORCASCEN"
#define SCS_VERSION 1u
#define SCS_NAV_ON 1u    /* navigation on */
#define SCS_RECORDING 2u /* recording on */
#define SCS_MEASURED 4u  /* the initial state entered the record */
#define SCS_REPLAN 8u    /* the walls navigation last read are not the simulation's: its next
                            navigated step plans every path anew */
#define SCS_FLAGS 15u
#define SCS_NAME 64      /* a name: its bytes, then zeros */
#define SCS_HEADER 164   /* magic 8, version 4, flags 4, total 8, sim bytes 8, dt 8, seed 8,
                            exited 4, its step 8, all arrived 8, 2 overlaps 16, fallbacks 8,
                            name 64, set count 4, entry count 4 */
#define SCS_SET (SCS_NAME + 4 + 8 + 4) /* then 16 a point */
#define SCS_ENTRY 60                     /* then the parts */
#define SCS_WAYPOINTS 52                 /* then 16 a point */
#define SCS_NAV 108                      /* then SCS_CORNER a corner */
#define SCS_CORNER 52

/* Frees the entries' waypoints and paths and the sets' points (the tables themselves too). */
static void free_tables(sc_agent *agents, int agent_count, sc_goal_set *sets, int set_count)
{
    for (int e = 0; e < agent_count; ++e) {
        if (agents[e].wp) {
            orca_mem_free(agents[e].wp->points);
            orca_mem_free(agents[e].wp);
        }
        if (agents[e].nv) {
            orca_nav_route_free(&agents[e].nv->route);
            orca_mem_free(agents[e].nv);
        }
    }
    for (int k = 0; k < set_count; ++k) {
        orca_mem_free(sets[k].points);
    }
    orca_mem_free(agents);
    orca_mem_free(sets);
}

static void put_name(snap_writer *w, const char *name)
{
    size_t len = strlen(name);
    memcpy(w->p, name, len);
    memset(w->p + len, 0, SCS_NAME - len);
    w->p += SCS_NAME;
}

/* Whether the walls navigation last read are not the simulation's (or it read none). */
static int nav_replans(const orca_scenario *sc)
{
    return !sc->nav || !orca_nav_same_walls(sc->nav, sc->sim);
}

orca_status orca_scenario_save(const orca_scenario *sc_in, void *buffer, size_t capacity,
                               size_t *size)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!size) {
        return fail(sc, ORCA_ERR_NULL, "size pointer is NULL");
    }
    size_t sim_bytes = 0;
    orca_status st = orca_sim_save(sc->sim, NULL, 0, &sim_bytes);
    if (st != ORCA_OK) {
        return fail_sim(sc, st, "saving the simulation");
    }
    uint64_t need = SCS_HEADER + (uint64_t)sim_bytes + 8;
    for (int k = 0; k < sc->set_count; ++k) {
        need += SCS_SET + 16 * (uint64_t)sc->sets[k].count;
    }
    for (int e = 0; e < sc->agent_count; ++e) {
        const sc_agent *a = &sc->agents[e];
        need += SCS_ENTRY;
        if (a->wp) {
            need += SCS_WAYPOINTS + 16 * (uint64_t)a->wp->count;
        }
        if (a->nv) {
            need += SCS_NAV + SCS_CORNER * (uint64_t)a->nv->route.count;
        }
    }
    if (need > SIZE_MAX) {
        return fail(sc, ORCA_ERR_LIMIT,
                    "the scenario snapshot would need %llu bytes, more than a size_t holds",
                    (unsigned long long)need);
    }
    *size = (size_t)need;
    if (!buffer) {
        return ORCA_OK;
    }
    if (capacity < (size_t)need) {
        return fail(sc, ORCA_ERR_LIMIT, "scenario snapshot needs %zu bytes, buffer holds %zu",
                    (size_t)need, capacity);
    }
    snap_writer w = {buffer};
    memcpy(w.p, SCS_MAGIC, 8);
    w.p += 8;
    put_u32(&w, SCS_VERSION);
    put_u32(&w, (sc->navigation ? SCS_NAV_ON : 0) | (sc->recording ? SCS_RECORDING : 0) |
                    (sc->measured_initial ? SCS_MEASURED : 0) |
                    (nav_replans(sc) ? SCS_REPLAN : 0));
    put_u64(&w, need);
    put_u64(&w, (uint64_t)sim_bytes);
    put_f64(&w, sc->dt);
    put_u64(&w, sc->seed);
    put_u32(&w, (uint32_t)sc->exited);
    put_u64(&w, (uint64_t)sc->exited_last_step);
    put_u64(&w, (uint64_t)sc->all_arrived_step);
    put_f64(&w, sc->max_agent_overlap);
    put_f64(&w, sc->max_wall_overlap);
    put_u64(&w, sc->fallback_total);
    put_name(&w, sc->name);
    put_u32(&w, (uint32_t)sc->set_count);
    put_u32(&w, (uint32_t)sc->agent_count);
    (void)orca_sim_save(sc->sim, w.p, sim_bytes, &sim_bytes); /* its size: it cannot fail */
    w.p += sim_bytes;
    for (int k = 0; k < sc->set_count; ++k) {
        const sc_goal_set *s = &sc->sets[k];
        put_name(&w, s->name);
        put_u32(&w, (uint32_t)s->exit);
        put_f64(&w, s->arrive);
        put_u32(&w, (uint32_t)s->count);
        for (int j = 0; j < s->count; ++j) {
            put_vec(&w, s->points[j]);
        }
    }
    for (int e = 0; e < sc->agent_count; ++e) {
        const sc_agent *a = &sc->agents[e];
        put_u32(&w, a->id.slot);
        put_u32(&w, a->id.generation);
        put_u32(&w, (uint32_t)a->goal.kind);
        put_u32(&w, (uint32_t)a->goal.goal_set);
        put_vec(&w, a->goal.target);
        put_f64(&w, a->goal.preferred_speed);
        put_vec(&w, a->start);
        put_u32(&w, (a->wp ? 1u : 0u) | (a->nv ? 2u : 0u));
        if (a->wp) {
            const sc_waypoints *p = a->wp;
            put_u32(&w, (uint32_t)p->count);
            put_u32(&w, (uint32_t)p->index);
            put_u32(&w, (uint32_t)p->loop);
            put_f64(&w, p->arrive);
            put_vec(&w, p->goal);
            put_vec(&w, p->route_start);
            for (int j = 0; j < p->count; ++j) {
                put_vec(&w, p->points[j]);
            }
        }
        if (a->nv) {
            const sc_nav *v = a->nv;
            put_u32(&w, (uint32_t)v->planned);
            put_u32(&w, (uint32_t)v->route.result);
            put_f64(&w, v->route.length);
            put_u32(&w, (uint32_t)v->route.goal);
            put_u32(&w, (uint32_t)v->route.count);
            put_u32(&w, (uint32_t)v->k);
            put_u32(&w, (uint32_t)v->stuck);
            put_f64(&w, v->best);
            put_vec(&w, v->target);
            put_f64(&w, v->radius);
            put_u32(&w, (uint32_t)v->has_avoid);
            put_vec(&w, v->avoid);
            put_u32(&w, (uint32_t)v->plans);
            put_u32(&w, (uint32_t)v->reroutes);
            put_vec(&w, v->dir);
            for (int j = 0; j < v->route.count; ++j) {
                const orca_nav_corner *c = &v->route.corners[j];
                put_vec(&w, c->vertex);
                put_u32(&w, (uint32_t)c->side);
                put_vec(&w, c->enter);
                put_vec(&w, c->leave);
            }
        }
    }
    put_u64(&w, checksum(buffer, (size_t)need - 8));
    return ORCA_OK;
}

/* Reading: bounds-checked, every refusal names the field and its offset. */
typedef struct scs_reader {
    snap_reader r;
    const unsigned char *base, *end;
    orca_scenario *sc;
} scs_reader;

static orca_status scs_bad(scs_reader *in, const char *fmt, ...)
{
    char msg[SC_ERROR_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail(in->sc, ORCA_ERR_FORMAT, "scenario snapshot, offset %zu: %s",
                (size_t)(in->r.p - in->base), msg);
}

/* Whether n more bytes are there (else the message). */
static int scs_has(scs_reader *in, uint64_t n, const char *what)
{
    if ((uint64_t)(in->end - in->r.p) < n) {
        scs_bad(in, "%s needs %llu bytes, %zu are left (truncated or a wrong count)", what,
                (unsigned long long)n, (size_t)(in->end - in->r.p));
        return 0;
    }
    return 1;
}

static int is_arrive(double d)
{
    return d == 0.0 || (d >= SC_ARRIVE_MIN && d <= SC_ARRIVE_MAX);
}

/* A name of SCS_NAME bytes: 1 .. 63 characters, then zeros only. */
static orca_status get_name(scs_reader *in, char *out, const char *what)
{
    const unsigned char *p = in->r.p;
    size_t len = 0;
    while (len < SCS_NAME && p[len] != 0) {
        ++len;
    }
    for (size_t k = len; k < SCS_NAME; ++k) {
        if (p[k] != 0) {
            return scs_bad(in, "%s: bytes after its end are not zero", what);
        }
    }
    if (len == 0 || len >= SCS_NAME) {
        return scs_bad(in, "%s must have 1 to 63 characters, has %zu", what, len);
    }
    memcpy(out, p, len + 1);
    in->r.p += SCS_NAME;
    return ORCA_OK;
}

static int cmp_set_names(const void *x, const void *y)
{
    const sc_goal_set *a = *(const sc_goal_set *const *)x;
    const sc_goal_set *b = *(const sc_goal_set *const *)y;
    return strcmp(a->name, b->name);
}

/* The loaded scenario, before it replaces the scenario's own state. */
typedef struct scs_state {
    orca_sim *staged; /* the simulation (orca_sim_load_stage) */
    sc_goal_set *sets;
    int set_count;
    sc_agent *agents;
    int agent_count, agent_capacity;
    int32_t *map;
    uint32_t map_size;
    int shared_keys;
    orca_nav *nav; /* a new navigation object, or NULL */
    int keep_nav;  /* 1: the scenario's own navigation object stays */
} scs_state;

static orca_status get_sets(scs_reader *in, scs_state *t, uint32_t count)
{
    if (!scs_has(in, (uint64_t)count * SCS_SET, "the goal sets")) {
        return ORCA_ERR_FORMAT;
    }
    t->sets = orca_mem_zalloc(count > 0 ? count : 1, sizeof *t->sets);
    sc_goal_set **order = orca_mem_alloc(count > 0 ? count : 1, sizeof *order);
    if (!t->sets || !order) {
        orca_mem_free(order);
        return fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading %u goal sets",
                    (unsigned)count);
    }
    orca_status st = ORCA_OK;
    for (uint32_t k = 0; k < count && st == ORCA_OK; ++k) {
        sc_goal_set *s = &t->sets[k];
        char what[40];
        snprintf(what, sizeof what, "goal set %u name", (unsigned)k);
        if (!scs_has(in, SCS_SET, "a goal set")) {
            st = ORCA_ERR_FORMAT;
            break;
        }
        if ((st = get_name(in, s->name, what)) != ORCA_OK) {
            break;
        }
        uint32_t exit = get_u32(&in->r);
        s->arrive = bits_f64(get_u64(&in->r));
        uint32_t n = get_u32(&in->r);
        if (exit > 1) {
            st = scs_bad(in, "goal set %u: exit must be 0 or 1, got %u", (unsigned)k,
                         (unsigned)exit);
        } else if (!is_arrive(s->arrive)) {
            st = scs_bad(in,
                         "goal set %u: arrive distance must be 0 or in [2^-30, 2^23] m, got "
                         "%.17g",
                         (unsigned)k, s->arrive);
        } else if (n < 1 || n > ORCA_NAV_GOALS_MAX) {
            st = scs_bad(in, "goal set %u: point count must be in [1, %d], got %u", (unsigned)k,
                         ORCA_NAV_GOALS_MAX, (unsigned)n);
        } else if (scs_has(in, 16 * (uint64_t)n, "a goal set's points")) {
            s->exit = (int)exit;
            s->points = orca_mem_alloc(n, sizeof *s->points);
            if (!s->points) {
                st = fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading goal set %u",
                          (unsigned)k);
                break;
            }
            s->count = (int)n;
            t->set_count = (int)k + 1;
            for (uint32_t j = 0; j < n && st == ORCA_OK; ++j) {
                s->points[j] = get_vec(&in->r);
                if (!is_coord(s->points[j])) {
                    st = scs_bad(in,
                                 "goal set %u point %u must have finite coordinates of "
                                 "magnitude below 2^21, got (%.17g, %.17g)",
                                 (unsigned)k, (unsigned)j, s->points[j].x, s->points[j].y);
                }
            }
        } else {
            st = ORCA_ERR_FORMAT;
        }
        order[k] = s;
    }
    if (st == ORCA_OK && count > 1) {
        qsort(order, count, sizeof *order, cmp_set_names);
        for (uint32_t k = 1; k < count && st == ORCA_OK; ++k) {
            if (strcmp(order[k - 1]->name, order[k]->name) == 0) {
                st = scs_bad(in, "two goal sets are called '%s'", order[k]->name);
            }
        }
    }
    orca_mem_free(order);
    return st;
}

static orca_status get_waypoints(scs_reader *in, sc_agent *a, int e)
{
    if (!scs_has(in, SCS_WAYPOINTS, "an entry's waypoints")) {
        return ORCA_ERR_FORMAT;
    }
    uint32_t count = get_u32(&in->r), index = get_u32(&in->r), loop = get_u32(&in->r);
    double arrive = bits_f64(get_u64(&in->r));
    orca_vec2 goal = get_vec(&in->r), route_start = get_vec(&in->r);
    if (a->goal.kind != ORCA_GOAL_POINT) {
        return scs_bad(in, "entry %d has waypoints but goal kind %d", e, (int)a->goal.kind);
    }
    if (count < 1 || count > ORCA_WAYPOINTS_MAX) {
        return scs_bad(in, "entry %d: waypoint count must be in [1, %d], got %u", e,
                       ORCA_WAYPOINTS_MAX, (unsigned)count);
    }
    if (index > count || loop > 1 || !is_arrive(arrive)) {
        return scs_bad(in,
                       "entry %d: waypoint index %u (of %u), loop %u or arrive distance %.17g "
                       "out of range",
                       e, (unsigned)index, (unsigned)count, (unsigned)loop, arrive);
    }
    if (!is_coord(goal) || !is_coord(route_start)) {
        return scs_bad(in, "entry %d: waypoints' goal or start is not a finite point below 2^21",
                       e);
    }
    if (!scs_has(in, 16 * (uint64_t)count, "an entry's waypoint points")) {
        return ORCA_ERR_FORMAT;
    }
    sc_waypoints *w = orca_mem_zalloc(1, sizeof *w);
    orca_vec2 *pts = w ? orca_mem_alloc(count, sizeof *pts) : NULL;
    if (!pts) {
        orca_mem_free(w);
        return fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading %u waypoints",
                    (unsigned)count);
    }
    w->points = pts;
    w->count = (int)count;
    w->index = w->prev = (int)index;
    w->loop = (int)loop;
    w->arrive = arrive;
    w->goal = goal;
    w->route_start = route_start;
    a->wp = w;
    for (int j = 0; j < (int)count; ++j) {
        pts[j] = get_vec(&in->r);
        if (!is_coord(pts[j])) {
            return scs_bad(in, "entry %d: waypoint %d is not a finite point below 2^21", e, j);
        }
    }
    orca_vec2 cur = w->index < w->count ? pts[w->index] : w->goal;
    if (!same_point(cur, a->goal.target)) {
        return scs_bad(in, "entry %d: goal target is not its current waypoint %d", e, w->index);
    }
    return ORCA_OK;
}

static orca_status get_nav(scs_reader *in, const scs_state *t, sc_agent *a, int e)
{
    if (!scs_has(in, SCS_NAV, "an entry's navigation state")) {
        return ORCA_ERR_FORMAT;
    }
    sc_nav *v = orca_mem_zalloc(1, sizeof *v);
    if (!v) {
        return fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading a path");
    }
    a->nv = v;
    uint32_t planned = get_u32(&in->r), result = get_u32(&in->r);
    v->route.length = bits_f64(get_u64(&in->r));
    int32_t goal = (int32_t)get_u32(&in->r);
    uint32_t count = get_u32(&in->r), k = get_u32(&in->r), stuck = get_u32(&in->r);
    v->best = bits_f64(get_u64(&in->r));
    v->target = get_vec(&in->r);
    v->radius = bits_f64(get_u64(&in->r));
    uint32_t has_avoid = get_u32(&in->r);
    v->avoid = get_vec(&in->r);
    uint32_t plans = get_u32(&in->r), reroutes = get_u32(&in->r);
    v->dir = get_vec(&in->r);
    int goals = a->goal.kind == ORCA_GOAL_SET ? t->sets[a->goal.goal_set].count : 1;
    if (a->goal.kind != ORCA_GOAL_POINT && a->goal.kind != ORCA_GOAL_SET) {
        return scs_bad(in, "entry %d has a path but goal kind %d", e, (int)a->goal.kind);
    }
    if (planned > 1 || result > ORCA_NAV_GOAL_BLOCKED || has_avoid > 1) {
        return scs_bad(in, "entry %d: path planned %u, result %u or avoid flag %u out of range",
                       e, (unsigned)planned, (unsigned)result, (unsigned)has_avoid);
    }
    if (goal < -1 || goal >= goals) {
        return scs_bad(in, "entry %d: path goal %d must be in [-1, %d)", e, (int)goal, goals);
    }
    if (k > count || stuck > INT_MAX || plans > INT_MAX || reroutes > INT_MAX ||
        reroutes > plans) {
        return scs_bad(in,
                       "entry %d: path corner %u (of %u), stuck steps %u, plans %u or "
                       "re-routings %u out of range",
                       e, (unsigned)k, (unsigned)count, (unsigned)stuck, (unsigned)plans,
                       (unsigned)reroutes);
    }
    if (!(v->route.length >= 0.0) || !(v->best >= 0.0) || !(v->radius >= 0.0) ||
        !is_finite(v->radius) || !is_coord(v->target) || !is_coord(v->avoid) ||
        !is_finite(v->dir.x) || !is_finite(v->dir.y)) {
        return scs_bad(in,
                       "entry %d: path length %.17g, best distance %.17g, radius %.17g, target, "
                       "avoided point or direction out of range",
                       e, v->route.length, v->best, v->radius);
    }
    if (!scs_has(in, SCS_CORNER * (uint64_t)count, "a path's corners")) {
        return ORCA_ERR_FORMAT;
    }
    if (count > 0) {
        v->route.corners = orca_mem_alloc(count, sizeof *v->route.corners);
        if (!v->route.corners) {
            return fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading a path of %u corners",
                        (unsigned)count);
        }
        v->route.cap = (int)count;
    }
    v->planned = (int)planned;
    v->route.result = (int)result;
    v->route.goal = goal;
    v->route.count = (int)count;
    v->k = v->prev_k = (int)k;
    v->stuck = v->prev_stuck = (int)stuck;
    v->prev_best = v->best;
    v->has_avoid = (int)has_avoid;
    v->plans = (int)plans;
    v->reroutes = (int)reroutes;
    for (uint32_t j = 0; j < count; ++j) {
        orca_nav_corner *c = &v->route.corners[j];
        c->vertex = get_vec(&in->r);
        c->side = (int)(int32_t)get_u32(&in->r);
        c->enter = get_vec(&in->r);
        c->leave = get_vec(&in->r);
        if ((c->side != 1 && c->side != -1) || !is_coord(c->vertex) ||
            !is_finite(c->enter.x) || !is_finite(c->enter.y) || !is_finite(c->leave.x) ||
            !is_finite(c->leave.y)) {
            return scs_bad(in, "entry %d: path corner %u is not a corner (side %d)", e,
                           (unsigned)j, c->side);
        }
    }
    return ORCA_OK;
}

static orca_status get_entries(scs_reader *in, scs_state *t, uint32_t count)
{
    if (count > INT_MAX / 4) {
        return scs_bad(in, "entry count %u is above the limit %d", (unsigned)count, INT_MAX / 4);
    }
    if (!scs_has(in, (uint64_t)count * SCS_ENTRY, "the entries")) {
        return ORCA_ERR_FORMAT;
    }
    int cap = count > 16 ? (int)count : 16;
    uint32_t size = 32u;
    while ((uint64_t)(count + 1u) * 2u > size) {
        size *= 2u;
    }
    t->agents = orca_mem_zalloc((size_t)cap, sizeof *t->agents);
    t->map = orca_mem_alloc(size, sizeof *t->map);
    if (!t->agents || !t->map) {
        return fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading %u entries", (unsigned)count);
    }
    t->agent_capacity = cap;
    t->map_size = size;
    for (uint32_t i = 0; i < size; ++i) {
        t->map[i] = -1;
    }
    orca_scenario goals; /* check_goal against the loaded sets */
    memset(&goals, 0, sizeof goals);
    goals.set_count = t->set_count;
    for (int e = 0; e < (int)count; ++e) {
        if (!scs_has(in, SCS_ENTRY, "an entry")) {
            return ORCA_ERR_FORMAT;
        }
        sc_agent *a = &t->agents[e];
        t->agent_count = e + 1; /* its parts are freed with it */
        a->id.slot = get_u32(&in->r);
        a->id.generation = get_u32(&in->r);
        a->goal.kind = (orca_goal_kind)get_u32(&in->r);
        a->goal.goal_set = (int)(int32_t)get_u32(&in->r);
        a->goal.target = get_vec(&in->r);
        a->goal.preferred_speed = bits_f64(get_u64(&in->r));
        a->start = get_vec(&in->r);
        uint32_t parts = get_u32(&in->r);
        if (a->id.generation == 0) {
            return scs_bad(in, "entry %d: handle generation 0", e);
        }
        if (check_goal(&goals, &a->goal) != ORCA_OK) {
            return scs_bad(in, "entry %d: %s", e, goals.error);
        }
        if (a->goal.kind == ORCA_GOAL_SET && !is_coord(a->goal.target)) {
            return scs_bad(in, "entry %d: goal target (%.17g, %.17g) is not a finite point "
                           "below 2^21", e, a->goal.target.x, a->goal.target.y);
        }
        if (!is_finite(a->start.x) || !is_finite(a->start.y)) {
            return scs_bad(in, "entry %d: start (%.17g, %.17g) is not finite", e, a->start.x,
                           a->start.y);
        }
        if (parts > 3) {
            return scs_bad(in, "entry %d: parts %u are not known", e, (unsigned)parts);
        }
        orca_status st = ORCA_OK;
        if ((parts & 1u) && (st = get_waypoints(in, a, e)) != ORCA_OK) {
            return st;
        }
        if ((parts & 2u) && (st = get_nav(in, t, a, e)) != ORCA_OK) {
            return st;
        }
        if (map_put(t->map, t->map_size, t->agents, a->id, e)) {
            t->shared_keys = 1;
        }
    }
    return ORCA_OK;
}

/* Whether two lists of goal sets have the same points (navigation keeps the distances to a
 * set's points by the set's index). */
static int same_sets(const sc_goal_set *a, int na, const sc_goal_set *b, int nb)
{
    if (na != nb) {
        return 0;
    }
    for (int k = 0; k < na; ++k) {
        if (a[k].count != b[k].count ||
            memcmp(a[k].points, b[k].points, (size_t)a[k].count * sizeof *a[k].points) != 0) {
            return 0;
        }
    }
    return 1;
}

static void scs_discard(orca_scenario *sc, scs_state *t)
{
    orca_sim_load_finish(sc->sim, t->staged, 0);
    free_tables(t->agents, t->agent_count, t->sets, t->set_count);
    orca_mem_free(t->map);
    orca_nav_destroy(t->nav);
}

orca_status orca_scenario_load(orca_scenario *sc, const void *buffer, size_t size)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!buffer) {
        return fail(sc, ORCA_ERR_NULL, "scenario snapshot buffer is NULL");
    }
    const unsigned char *bytes = buffer;
    if (size < SCS_HEADER + 8 || memcmp(bytes, SCS_MAGIC, 8) != 0) {
        return fail(sc, ORCA_ERR_FORMAT, "not an orca scenario snapshot (%zu bytes, bad magic)",
                    size);
    }
    scs_reader in = {{bytes + 8}, bytes, bytes + size - 8, sc};
    uint32_t version = get_u32(&in.r);
    if (version != SCS_VERSION) {
        return fail(sc, ORCA_ERR_FORMAT, "scenario snapshot version %u, this library reads %u",
                    (unsigned)version, SCS_VERSION);
    }
    uint32_t flags = get_u32(&in.r);
    uint64_t total = get_u64(&in.r);
    if (total != size) {
        return fail(sc, ORCA_ERR_FORMAT,
                    "scenario snapshot is %zu bytes, its header says %llu (truncated?)", size,
                    (unsigned long long)total);
    }
    snap_reader tail = {bytes + size - 8};
    if (get_u64(&tail) != checksum(bytes, size - 8)) {
        return fail(sc, ORCA_ERR_FORMAT, "scenario snapshot checksum mismatch (corrupt bytes)");
    }
    uint64_t sim_bytes = get_u64(&in.r);
    double dt = bits_f64(get_u64(&in.r));
    uint64_t seed = get_u64(&in.r);
    int32_t exited = (int32_t)get_u32(&in.r);
    int64_t exited_last = (int64_t)get_u64(&in.r);
    int64_t all_arrived = (int64_t)get_u64(&in.r);
    double max_agent = bits_f64(get_u64(&in.r));
    double max_wall = bits_f64(get_u64(&in.r));
    uint64_t fallbacks = get_u64(&in.r);
    char name[SCS_NAME];
    orca_status st = get_name(&in, name, "scenario name");
    if (st != ORCA_OK) {
        return st;
    }
    uint32_t set_count = get_u32(&in.r), entry_count = get_u32(&in.r);
    if ((flags & ~SCS_FLAGS) != 0) {
        return fail(sc, ORCA_ERR_FORMAT, "scenario snapshot flags %u are not known",
                    (unsigned)flags);
    }
    if (!(dt >= ORCA_TIME_MIN && dt <= ORCA_TIME_MAX)) {
        return fail(sc, ORCA_ERR_FORMAT, "scenario snapshot dt %.17g is not in [2^-30, 2^30] s",
                    dt);
    }
    if (exited < 0 || exited_last < 0 || all_arrived < -1) {
        return fail(sc, ORCA_ERR_FORMAT,
                    "scenario snapshot exit count %d, its step %lld or all-arrived step %lld "
                    "out of range",
                    (int)exited, (long long)exited_last, (long long)all_arrived);
    }
    if (!(max_agent >= 0.0 && is_finite(max_agent) && max_wall >= 0.0 && is_finite(max_wall))) {
        return fail(sc, ORCA_ERR_FORMAT,
                    "scenario snapshot overlaps %.17g and %.17g must be finite and >= 0",
                    max_agent, max_wall);
    }
    if (!scs_has(&in, sim_bytes, "the simulation")) {
        return ORCA_ERR_FORMAT;
    }
    scs_state t;
    memset(&t, 0, sizeof t);
    st = orca_sim_load_stage(sc->sim, in.r.p, (size_t)sim_bytes, &t.staged);
    if (st != ORCA_OK) {
        return fail_sim(sc, st, "scenario snapshot, the simulation");
    }
    in.r.p += sim_bytes;
    st = get_sets(&in, &t, set_count);
    if (st == ORCA_OK) {
        st = get_entries(&in, &t, entry_count);
    }
    if (st == ORCA_OK && in.r.p != in.end) {
        st = scs_bad(&in, "%zu bytes after the last entry", (size_t)(in.end - in.r.p));
    }
    /* Navigation's structures are not saved (they follow from the walls): the scenario's own
     * stay when they were built from the loaded walls and sets; otherwise new ones are read
     * from the loaded walls now, unless the snapshot's next navigated step plans every path
     * anew anyway (then none: the step makes them). */
    if (st == ORCA_OK && (flags & SCS_NAV_ON) && !(flags & SCS_REPLAN)) {
        if (sc->nav && orca_nav_same_walls(sc->nav, t.staged) &&
            same_sets(sc->sets, sc->set_count, t.sets, t.set_count)) {
            t.keep_nav = 1;
        } else if (orca_nav_create(sc->sim, &t.nav) != ORCA_OK ||
                   orca_nav_sync_to(t.nav, t.staged) < 0) {
            st = fail(sc, ORCA_ERR_MEMORY, "out of memory reading the walls for navigation");
        }
    }
    if (st != ORCA_OK) {
        scs_discard(sc, &t);
        return st;
    }
    /* Commit: nothing below fails. */
    orca_sim_load_finish(sc->sim, t.staged, 1);
    uint32_t sim_id = orca_sim_id(sc->sim);
    for (int e = 0; e < t.agent_count; ++e) {
        t.agents[e].id.sim = sim_id; /* the handles this scenario's simulation gives */
    }
    free_tables(sc->agents, sc->agent_count, sc->sets, sc->set_count);
    orca_mem_free(sc->map);
    if (!t.keep_nav) {
        orca_nav_destroy(sc->nav);
        sc->nav = t.nav;
    }
    sc->agents = t.agents;
    sc->agent_count = t.agent_count;
    sc->agent_capacity = t.agent_capacity;
    sc->map = t.map;
    sc->map_size = t.map_size;
    sc->shared_keys = t.shared_keys;
    sc->sets = t.sets;
    sc->set_count = sc->set_capacity = t.set_count;
    sc->waypoint_agents = sc->set_agents = sc->exit_sets = 0;
    for (int e = 0; e < sc->agent_count; ++e) {
        sc->waypoint_agents += sc->agents[e].wp != NULL;
        sc->set_agents += sc->agents[e].goal.kind == ORCA_GOAL_SET;
    }
    for (int k = 0; k < sc->set_count; ++k) {
        sc->exit_sets += sc->sets[k].exit;
    }
    sc->navigation = (flags & SCS_NAV_ON) != 0;
    sc->recording = (flags & SCS_RECORDING) != 0;
    sc->measured_initial = (flags & SCS_MEASURED) != 0;
    sc->dt = dt;
    sc->seed = seed;
    memcpy(sc->name, name, sizeof sc->name);
    sc->exited = (int)exited;
    sc->exited_last_step = exited_last;
    sc->all_arrived_step = all_arrived;
    sc->max_agent_overlap = max_agent;
    sc->max_wall_overlap = max_wall;
    sc->fallback_total = fallbacks;
    sc->error[0] = '\0';
    return ORCA_OK;
}
