/* SPDX-License-Identifier: MIT */
/* Scenarios: a simulation plus goals, the preferred-velocity rule and the built-in scenes
 * (scenario_internal.h lists the files). This one holds the object: creation, accessors,
 * errors, the handle -> key map, agents and their goals, and the scenario hash.
 * docs/scenarios.md is the normative description of everything computed here (the rule, the
 * perturbation hash, the placement generator, every scene's geometry); keep the two in step.
 * Only + - * / and sqrt on binary64, and integer operations: the same bits everywhere. */
#include "fp.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "scenario_internal.h"
#include "sim_peek.h"
#include "snap_io.h"

/* Message of the last refused orca_scenario_create / _create_builtin on this thread (there is
 * no scenario to hold it); orca_scenario_last_error(NULL) returns it. */
static _Thread_local char g_create_error[SC_ERROR_SIZE];

/* ------------------------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------------------------- */

orca_status orca_sc_fail(orca_scenario *sc, orca_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sc ? sc->error : g_create_error, SC_ERROR_SIZE, fmt, ap);
    va_end(ap);
    return status;
}

orca_status orca_sc_fail_sim(orca_scenario *sc, orca_status status, const char *what)
{
    return orca_sc_fail(sc, status, "%s: %s", what, orca_sim_last_error(sc->sim));
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

int orca_sc_map_find(const orca_scenario *sc, orca_agent_id id)
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

int orca_sc_map_put(int32_t *map, uint32_t size, const sc_agent *agents, orca_agent_id id,
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
        return orca_sc_fail(sc, ORCA_ERR_LIMIT, "scenario agent count limit (%d) reached",
                            INT_MAX / 4);
    }
    int need = sc->agent_count + 1;
    if (need > sc->agent_capacity) {
        int cap = sc->agent_capacity ? sc->agent_capacity * 2 : 16;
        sc_agent *a = orca_mem_resize(sc->agents, (size_t)cap, sizeof *a);
        if (!a) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory growing the agent table to %d",
                                cap);
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
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory growing the handle map to %u",
                                (unsigned)size);
        }
        for (uint32_t i = 0; i < size; ++i) {
            m[i] = -1;
        }
        for (int e = 0; e < sc->agent_count; ++e) {
            orca_sc_map_put(m, size, sc->agents, sc->agents[e].id, e);
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

orca_status orca_scenario_create(const orca_sim_def *sim_def, double dt, uint64_t seed,
                                 orca_scenario **out)
{
    if (!out) {
        return orca_sc_fail(NULL, ORCA_ERR_NULL, "out must not be NULL");
    }
    if (!(dt >= ORCA_TIME_MIN && dt <= ORCA_TIME_MAX)) {
        return orca_sc_fail(NULL, ORCA_ERR_ARGUMENT, "dt must be in [2^-30, 2^30] s, got %.17g",
                            dt);
    }
    orca_scenario *sc = orca_mem_zalloc(1, sizeof *sc);
    if (!sc) {
        return orca_sc_fail(NULL, ORCA_ERR_MEMORY, "out of memory allocating a scenario");
    }
    orca_sim *sim = NULL;
    orca_status st = orca_sim_create(sim_def, &sim);
    if (st != ORCA_OK) {
        orca_mem_free(sc);
        return orca_sc_fail(NULL, st, "creating the simulation: %s (%s)", orca_sim_last_error(NULL),
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
    orca_sc_free_tables(sc->agents, sc->agent_count, sc->sets, sc->set_count);
    orca_mem_free(sc->exit_ids);
    orca_mem_free(sc->exit_ent);
    orca_mem_free(sc->ent);
    orca_mem_free(sc->nav_flag);
    orca_mem_free(sc->pref);
    orca_mem_free(sc->plan_list);
    orca_mem_free(sc->qrem);
    orca_mem_free(sc->qkey);
    orca_mem_free(sc->queue);
    orca_mem_free(sc->qrun);
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
        return orca_sc_fail(sc, ORCA_ERR_NULL, "name must not be NULL");
    }
    size_t len = strlen(name);
    if (len == 0 || len > SC_NAME_MAX) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "name must have 1 to %d characters, got %zu",
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

orca_status orca_sc_check_goal(orca_scenario *sc, const orca_goal *goal)
{
    switch (goal->kind) {
    case ORCA_GOAL_POINT:
        if (!is_coord(goal->target)) {
            return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                                "goal point must have finite coordinates of magnitude below "
                                "2^21, got (%.17g, %.17g)",
                                goal->target.x, goal->target.y);
        }
        if (!(goal->preferred_speed >= 0.0 && goal->preferred_speed <= ORCA_SPEED_MAX)) {
            return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                                "goal preferred_speed must be in [0, 2^30] m/s, got %.17g",
                                goal->preferred_speed);
        }
        return ORCA_OK;
    case ORCA_GOAL_VELOCITY:
        if (!(d_abs(goal->target.x) <= ORCA_VELOCITY_LIMIT) ||
            !(d_abs(goal->target.y) <= ORCA_VELOCITY_LIMIT)) {
            return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                                "goal velocity must be finite with components of magnitude at most "
                                "2^31, got (%.17g, %.17g)",
                                goal->target.x, goal->target.y);
        }
        return ORCA_OK;
    case ORCA_GOAL_NONE:
        return ORCA_OK;
    case ORCA_GOAL_SET:
        if (goal->goal_set < 0 || goal->goal_set >= sc->set_count) {
            return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                                "goal_set must name a goal set: in [0, %d), got %d", sc->set_count,
                                goal->goal_set);
        }
        if (!(goal->preferred_speed >= 0.0 && goal->preferred_speed <= ORCA_SPEED_MAX)) {
            return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                                "goal preferred_speed must be in [0, 2^30] m/s, got %.17g",
                                goal->preferred_speed);
        }
        return ORCA_OK;
    default:
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "goal kind must be 0, 1, 2 or 3, got %d",
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
        return orca_sc_fail(sc, ORCA_ERR_NULL, "def must not be NULL");
    }
    if (!goal) {
        return orca_sc_fail(sc, ORCA_ERR_NULL, "goal must not be NULL");
    }
    orca_status st = orca_sc_check_goal(sc, goal);
    if (st != ORCA_OK) {
        return st;
    }
    st = reserve_one(sc);
    if (st != ORCA_OK) {
        return st;
    }
    /* the pedestrian preset's stream: room for it first, so that setting it cannot fail */
    int32_t stream = orca_sc_pedestrian_stream(sc, goal);
    if (stream >= 0 && !orca_sim_streams_reserve(sc->sim)) {
        return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory for the agents' streams");
    }
    orca_agent_id id;
    st = orca_sim_add_agent(sc->sim, def, &id);
    if (st != ORCA_OK) {
        return orca_sc_fail_sim(sc, st, "agent refused by the simulation");
    }
    if (stream >= 0) {
        orca_agent_set_stream(sc->sim, id, stream); /* room reserved: grown with the agents */
    }
    int e = sc->agent_count++;
    sc->agents[e].id = id;
    sc->agents[e].goal = *goal;
    sc->agents[e].start = def->position;
    sc->agents[e].wp = NULL;
    sc->agents[e].nv = NULL;
    if (goal->kind == ORCA_GOAL_SET) {
        sc->agents[e].goal.target = orca_sc_nearest_point(&sc->sets[goal->goal_set], def->position);
        sc->set_agents++;
    }
    if (orca_sc_map_put(sc->map, sc->map_size, sc->agents, id, e)) {
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
    int e = orca_sc_entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
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

int orca_sc_entry_of(orca_scenario *sc, int index)
{
    int count = orca_sim_agent_count(sc->sim);
    if (index < 0 || index >= count) {
        orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "index must be in [0, %d), got %d", count, index);
        return -1;
    }
    int e = key_at(sc, index, orca_sim_agent_at(sc->sim, index));
    if (e < 0) {
        orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                     "agent at index %d was not added through the scenario (it has no goal)",
                     index);
    }
    return e;
}

orca_status orca_scenario_set_agent_goal(orca_scenario *sc, int index, const orca_goal *goal)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!goal) {
        return orca_sc_fail(sc, ORCA_ERR_NULL, "goal must not be NULL");
    }
    int e = orca_sc_entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
    }
    orca_status st = orca_sc_check_goal(sc, goal);
    if (st != ORCA_OK) {
        return st;
    }
    sc_agent *a = &sc->agents[e];
    if (a->wp) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                            "agent at index %d has waypoints: remove them first "
                            "(orca_scenario_set_waypoints with count 0)",
                            index);
    }
    orca_vec2 here = orca_sim_positions(sc->sim)[index];
    sc->set_agents += (goal->kind == ORCA_GOAL_SET) - (a->goal.kind == ORCA_GOAL_SET);
    a->goal = *goal;
    if (goal->kind == ORCA_GOAL_SET) {
        a->goal.target = orca_sc_nearest_point(&sc->sets[goal->goal_set], here);
    }
    if (a->nv && (goal->kind == ORCA_GOAL_POINT || goal->kind == ORCA_GOAL_SET)) {
        a->nv->planned = 0; /* it plans anew at the next step, without the old route's penalty */
        a->nv->has_avoid = 0;
        a->nv->exit = -1;   /* and chooses among the new goal's points afresh */
        a->nv->left = 0;
    } else if (a->nv) {
        const sc_nav *v = a->nv; /* its counts stay in the run's (orca_scenario_nav_counts) */
        sc->retired[0] += v->plans;
        sc->retired[1] += v->reroutes;
        sc->retired[2] += v->replans;
        sc->retired[3] += v->exit_changes;
        sc->retired[4] += v->returns;
        sc->retired[5] += v->exit_changes > 0;
        sc->retired[6] = v->exit_changes > sc->retired[6] ? v->exit_changes : sc->retired[6];
        orca_nav_route_free(&a->nv->route); /* no path state without a point or set goal */
        orca_mem_free(a->nv);
        a->nv = NULL;
    }
    return ORCA_OK;
}

void orca_sc_free_tables(sc_agent *agents, int agent_count, sc_goal_set *sets, int set_count)
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
        orca_mem_free(sets[k].departed);
        orca_mem_free(sets[k].last_departure);
        orca_mem_free(sets[k].flow);
    }
    orca_mem_free(agents);
    orca_mem_free(sets);
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
 * The scenario hash (docs/extensions.md, "Waypoints"; docs/navigation.md, "State")
 * ---------------------------------------------------------------------------------------- */

size_t orca_sc_hash_bytes(const orca_scenario *sc, int i, int part, unsigned char *out,
                          size_t cap)
{
    if (part == HASH_CORE || part == HASH_EXT) {
        return cap >= HASH_SIM_BYTES ? orca_sim_hash_bytes(sc->sim, i, part, out) : HASH_SIM_BYTES;
    }
    int e = key_at(sc, i, orca_sim_agent_at(sc->sim, i));
    if (e < 0) {
        return 0;
    }
    const sc_agent *a = &sc->agents[e];
    if (part == HASH_NAV) {
        return orca_sc_nav_hash_bytes(a, out, cap);
    }
    if (part == HASH_NAV_CHOICE) {
        return orca_sc_nav_choice_hash_bytes(a, out, cap);
    }
    if (!a->wp) {
        return 0;
    }
    if (cap >= 8) {
        hash_put_u64(out, (uint64_t)a->wp->index);
    }
    return 8;
}

/* This process's agents, in index order (orca_scenario_hash). */
static uint64_t sc_agents_hash(void *ctx, uint64_t h, int part)
{
    const orca_scenario *sc = ctx;
    int n = orca_sim_agent_count(sc->sim);
    unsigned char small[HASH_SIM_BYTES], *buf = small;
    size_t cap = sizeof small;
    for (int i = 0; i < n; ++i) {
        size_t len = orca_sc_hash_bytes(sc, i, part, buf, cap);
        if (len > cap) {
            unsigned char *b = orca_mem_resize(buf == small ? NULL : buf, len, 1);
            if (!b) {
                h = hash_u64(h, UINT64_MAX); /* out of memory: a hash no state has */
                break;
            }
            buf = b;
            cap = len;
            len = orca_sc_hash_bytes(sc, i, part, buf, cap);
        }
        if (len > 0 && part != HASH_CORE && part != HASH_EXT) {
            h = hash_u64(h, (uint64_t)i);
        }
        h = hash_bytes(h, buf, len);
    }
    if (buf != small) {
        orca_mem_free(buf);
    }
    return h;
}

static int64_t sc_agents_count(void *ctx, int part)
{
    const orca_scenario *sc = ctx;
    int n = orca_sim_agent_count(sc->sim);
    if (part == HASH_EXT) {
        return orca_sim_peek_nondefault(sc->sim);
    }
    if (part != HASH_WAYPOINT) {
        return n;
    }
    int64_t m = 0;
    for (int i = 0; i < n && sc->waypoint_agents > 0; ++i) {
        int e = key_at(sc, i, orca_sim_agent_at(sc->sim, i));
        m += e >= 0 && sc->agents[e].wp;
    }
    return m;
}

uint64_t orca_sc_hash_with(const orca_scenario *sc, const hash_agents *agents)
{
    uint64_t h = orca_sim_hash_with(sc->sim, agents);
    if (sc->navigation) {
        static const char tag[] = "orca-nav";
        h = hash_bytes(h, (const unsigned char *)tag, sizeof tag - 1);
        h = agents->hash(agents->ctx, h, HASH_NAV);
        /* the leg check and the exit choice only when not the defaults: the hash navigation
         * always had otherwise (docs/navigation.md, "State") */
        if (sc->nav_check || sc->exit_choice != ORCA_EXIT_NEAREST) {
            static const char tag2[] = "orca-nav-choice";
            h = hash_bytes(h, (const unsigned char *)tag2, sizeof tag2 - 1);
            h = hash_u64(h, (uint64_t)sc->nav_check);
            h = hash_u64(h, (uint64_t)sc->exit_choice);
            h = agents->hash(agents->ctx, h, HASH_NAV_CHOICE);
        }
    }
    int64_t m = agents->count(agents->ctx, HASH_WAYPOINT);
    if (m > 0) {
        h = hash_u64(h, (uint64_t)m);
        h = agents->hash(agents->ctx, h, HASH_WAYPOINT);
    }
    return h;
}

uint64_t orca_scenario_hash(const orca_scenario *sc)
{
    if (!sc) {
        return orca_sim_hash(NULL);
    }
    hash_agents agents = {sc_agents_hash, sc_agents_count, (void *)sc};
    return orca_sc_hash_with(sc, &agents);
}
