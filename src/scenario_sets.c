/* SPDX-License-Identifier: MIT */
/* Goal sets (docs/navigation.md, "Shared goals") and exits (docs/navigation.md, "Exits"):
 * named sets of goal points an agent walks to the nearest of, and sets whose agents leave
 * the simulation on arrival. */
#include "fp.h"

#include <string.h>

#include "alloc.h"
#include "scenario_internal.h"
#include "sim_peek.h"

/* ------------------------------------------------------------------------------------------
 * Goal sets (docs/navigation.md, "Shared goals")
 * ---------------------------------------------------------------------------------------- */

/* ORCA_OK when set is the index of one of sc's goal sets, else the refusal with its message. */
static orca_status check_set(orca_scenario *sc, int set)
{
    if (set < 0 || set >= sc->set_count) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "set must be in [0, %d), got %d", sc->set_count,
                            set);
    }
    return ORCA_OK;
}

orca_vec2 orca_sc_nearest_point(const sc_goal_set *set, orca_vec2 p)
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

orca_status orca_scenario_add_goal_set(orca_scenario *sc, const char *name, const orca_vec2 *points,
                                       int count, int *out)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!name) {
        return orca_sc_fail(sc, ORCA_ERR_NULL, "goal set name must not be NULL");
    }
    size_t len = strlen(name);
    if (len == 0 || len > 63) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                            "goal set name must have 1 to 63 characters, got %zu", len);
    }
    if (orca_scenario_goal_set_find(sc, name) >= 0) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "goal set '%s' exists already", name);
    }
    if (count < 1 || count > ORCA_NAV_GOALS_MAX) {
        return orca_sc_fail(sc, count < 1 ? ORCA_ERR_ARGUMENT : ORCA_ERR_LIMIT,
                            "goal set '%s': count must be in [1, %d], got %d", name,
                            ORCA_NAV_GOALS_MAX, count);
    }
    if (!points) {
        return orca_sc_fail(sc, ORCA_ERR_NULL, "goal set '%s': points must not be NULL", name);
    }
    for (int k = 0; k < count; ++k) {
        if (!is_coord(points[k])) {
            return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                                "goal set '%s': point %d must have finite coordinates of "
                                "magnitude below 2^21, got (%.17g, %.17g)",
                                name, k, points[k].x, points[k].y);
        }
    }
    if (sc->set_count == sc->set_capacity) {
        int cap = sc->set_capacity ? 2 * sc->set_capacity : 4;
        sc_goal_set *ns = orca_mem_resize(sc->sets, (size_t)cap, sizeof *ns);
        if (!ns) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory adding goal set '%s'", name);
        }
        sc->sets = ns;
        sc->set_capacity = cap;
    }
    orca_vec2 *pts = orca_mem_alloc((size_t)count, sizeof *pts);
    int *departed = orca_mem_zalloc((size_t)count, sizeof *departed);
    int64_t *last = orca_mem_alloc((size_t)count, sizeof *last);
    double *flow = orca_mem_zalloc((size_t)count, sizeof *flow);
    if (!pts || !departed || !last || !flow) {
        orca_mem_free(pts);
        orca_mem_free(departed);
        orca_mem_free(last);
        orca_mem_free(flow);
        return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory adding goal set '%s'", name);
    }
    for (int k = 0; k < count; ++k) {
        last[k] = -1;
    }
    for (int k = 0; k < count; ++k) {
        pts[k] = v2(points[k].x + 0.0, points[k].y + 0.0);
    }
    sc_goal_set *set = &sc->sets[sc->set_count];
    memset(set, 0, sizeof *set);
    memcpy(set->name, name, len + 1);
    set->points = pts;
    set->count = count;
    set->capacity = ORCA_NAV_EXIT_CAPACITY;
    set->departed = departed;
    set->last_departure = last;
    set->flow = flow;
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
    if (check_set(sc, set) != ORCA_OK) {
        return ORCA_ERR_ARGUMENT;
    }
    if (capacity < 0 || (capacity > 0 && !points)) {
        return orca_sc_fail(sc, capacity < 0 ? ORCA_ERR_ARGUMENT : ORCA_ERR_NULL,
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

/* ------------------------------------------------------------------------------------------
 * Exits (docs/navigation.md, "Exits")
 * ---------------------------------------------------------------------------------------- */

orca_status orca_scenario_set_goal_set_exit(orca_scenario *sc, int set, double arrive_distance)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (check_set(sc, set) != ORCA_OK) {
        return ORCA_ERR_ARGUMENT;
    }
    if (!is_arrive(arrive_distance)) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                            "arrive_distance must be 0 (the agent's radius) or in [2^-30, 2^23] "
                            "m, got %.17g",
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
    if (check_set(sc, set) != ORCA_OK) {
        return ORCA_ERR_ARGUMENT;
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

orca_status orca_scenario_exit_departures(const orca_scenario *sc_in, int set, int point,
                                          int *count, int64_t *last_step)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (check_set(sc, set) != ORCA_OK) {
        return ORCA_ERR_ARGUMENT;
    }
    if (point < 0 || point >= sc->sets[set].count) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "goal set '%s': point must be in [0, %d), got %d",
                            sc->sets[set].name, sc->sets[set].count, point);
    }
    if (count) {
        *count = sc->sets[set].departed[point];
    }
    if (last_step) {
        *last_step = sc->sets[set].last_departure[point];
    }
    return ORCA_OK;
}

orca_status orca_scenario_set_goal_set_capacity(orca_scenario *sc, int set, double capacity)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (check_set(sc, set) != ORCA_OK) {
        return ORCA_ERR_ARGUMENT;
    }
    if (!(capacity >= 0x1p-30 && capacity <= 0x1p30)) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                            "goal set '%s': capacity must be in [2^-30, 2^30] agents a second, "
                            "got %.17g",
                            sc->sets[set].name, capacity);
    }
    sc->sets[set].capacity = capacity;
    return ORCA_OK;
}

orca_status orca_scenario_goal_set_capacity(const orca_scenario *sc_in, int set, double *capacity)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (check_set(sc, set) != ORCA_OK) {
        return ORCA_ERR_ARGUMENT;
    }
    if (capacity) {
        *capacity = sc->sets[set].capacity;
    }
    return ORCA_OK;
}

/* The point of agent a's set it is leaving by: its path's, else the one its target is. */
static int leaving_point(const sc_agent *a, const sc_goal_set *set)
{
    if (a->nv && a->nv->route.result == ORCA_NAV_OK && a->nv->route.goal >= 0 &&
        a->nv->route.goal < set->count && same_point(set->points[a->nv->route.goal], a->goal.target)) {
        return a->nv->route.goal;
    }
    for (int k = 0; k < set->count; ++k) {
        if (same_point(set->points[k], a->goal.target)) {
            return k;
        }
    }
    return 0; /* (a target is always one of its set's points) */
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

/* The exits' outflows (docs/navigation.md, "Exit choice"): each point's average of the
 * agents a second that left there, f = f (1 - dt / T) + n / T with n this step's leavers
 * (T = ORCA_NAV_FLOW_TIME; the factor not below 0). */
static void exits_flow(orca_scenario *sc, int m)
{
    double keep = 1.0 - sc->dt / ORCA_NAV_FLOW_TIME;
    keep = keep > 0 ? keep : 0.0;
    for (int k = 0; k < sc->set_count; ++k) {
        sc_goal_set *set = &sc->sets[k];
        for (int j = 0; set->exit && j < set->count; ++j) {
            set->flow[j] = set->flow[j] * keep;
        }
    }
    for (int j = 0; j < m; ++j) {
        const sc_agent *a = &sc->agents[sc->exit_ent[j]];
        sc_goal_set *set = &sc->sets[a->goal.goal_set];
        int point = leaving_point(a, set);
        set->departed[point]++;
        set->last_departure[point] = sc->exited_last_step;
        set->flow[point] = set->flow[point] + 1.0 / ORCA_NAV_FLOW_TIME;
    }
}

orca_status orca_sc_exits_leave(orca_scenario *sc, int32_t *ent)
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
        exits_flow(sc, 0);
        return ORCA_OK;
    }
    if (m > sc->exit_cap) {
        orca_agent_id *ids = orca_mem_resize(sc->exit_ids, (size_t)m, sizeof *ids);
        if (!ids) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory removing agents at exits");
        }
        sc->exit_ids = ids;
        int32_t *es = orca_mem_resize(sc->exit_ent, (size_t)m, sizeof *es);
        if (!es) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory removing agents at exits");
        }
        sc->exit_ent = es;
        sc->exit_cap = m;
    }
    m = 0;
    for (int i = 0; i < n; ++i) {
        if (c.leaves[i]) {
            sc->exit_ids[m++] = orca_sim_agent_at(sim, i);
            sc->exit_ent[m - 1] = ent[i];
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
        return orca_sc_fail_sim(sc, st, "removing the agents at exits");
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
    exits_flow(sc, m);
    return ORCA_OK;
}
