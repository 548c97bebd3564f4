/* SPDX-License-Identifier: MIT */
/* The scenario's step (docs/scenarios.md): the passes before the simulation's step (entries,
 * exits, waypoints, navigation), the step with the rule, and the record it keeps (overlaps,
 * arrivals, fallbacks). */
#include "fp.h"

#include <stdatomic.h>

#include "alloc.h"
#include "scenario_internal.h"
#include "sim_peek.h"

/* ------------------------------------------------------------------------------------------
 * Arrival (docs/scenarios.md, "Records and errors")
 * ---------------------------------------------------------------------------------------- */

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
 * The step (docs/scenarios.md, "The step")
 * ---------------------------------------------------------------------------------------- */

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
            return orca_sc_fail_sim(sc, st, "measuring the initial overlaps");
        }
        init_all_arrived = all_arrived(sc);
    }

    /* The entry of each index, once for the passes below (navigation, goal sets). */
    int32_t *ent = NULL;
    if (sc->navigation || sc->set_agents > 0 || sc->exit_sets > 0) {
        if (n > sc->ent_cap) {
            int32_t *q = orca_mem_resize(sc->ent, (size_t)n, sizeof *q);
            if (!q) {
                return orca_sc_fail(sc, ORCA_ERR_MEMORY,
                                    "out of memory for the step's agent table");
            }
            sc->ent = q;
            uint8_t *f = orca_mem_resize(sc->nav_flag, (size_t)n, sizeof *f);
            if (!f) {
                return orca_sc_fail(sc, ORCA_ERR_MEMORY,
                                    "out of memory for the step's agent table");
            }
            sc->nav_flag = f;
            orca_vec2 *pv = orca_mem_resize(sc->pref, (size_t)n, sizeof *pv);
            if (!pv) {
                return orca_sc_fail(sc, ORCA_ERR_MEMORY,
                                    "out of memory for the step's agent table");
            }
            sc->pref = pv;
            int32_t *pl = orca_mem_resize(sc->plan_list, (size_t)n, sizeof *pl);
            if (!pl) {
                return orca_sc_fail(sc, ORCA_ERR_MEMORY,
                                    "out of memory for the step's agent table");
            }
            sc->plan_list = pl;
            double *qr = orca_mem_resize(sc->qrem, (size_t)n, sizeof *qr);
            if (!qr) {
                return orca_sc_fail(sc, ORCA_ERR_MEMORY,
                                    "out of memory for the step's agent table");
            }
            sc->qrem = qr;
            int64_t *qk = orca_mem_resize(sc->qkey, (size_t)n, sizeof *qk);
            if (!qk) {
                return orca_sc_fail(sc, ORCA_ERR_MEMORY,
                                    "out of memory for the step's agent table");
            }
            sc->qkey = qk;
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
        orca_status st = orca_sc_exits_leave(sc, ent);
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
        orca_status st = orca_sc_waypoints_advance(sc, orca_sim_positions(sim), n);
        switched = 1;
        if (st != ORCA_OK) {
            orca_sc_waypoints_restore(sc);
            return st;
        }
    }

    /* Navigation (docs/navigation.md) and goal sets: plans, corners passed, directions. */
    int navigated = 0;
    if (sc->navigation || sc->set_agents > 0) {
        orca_status st = orca_sc_nav_advance(sc, ent, orca_sim_positions(sim), n,
                                             orca_rule_step_hash(sc->seed, k));
        navigated = 1;
        if (st != ORCA_OK) {
            orca_sc_nav_restore(sc);
            if (switched) {
                orca_sc_waypoints_restore(sc);
            }
            return st;
        }
    }

    /* The rule and the step in one pass over the agents (orca_sc_rule_agents): a refused step
     * (including a rule value out of range) leaves the simulation as it was, preferred
     * velocities included. */
    rule_ctx ctx;
    ctx.sc = sc;
    orca_sim_peek_handles(sim, &ctx.slots, &ctx.generations);
    ctx.step_hash = orca_rule_step_hash(sc->seed, k);
    ctx.ent = ent;
    ctx.pref = navigated ? sc->pref : NULL;
    orca_status st = orca_sim_step_rule(sim, sc->dt, orca_sc_rule_agents, &ctx);
    if (st != ORCA_OK) {
        orca_sc_fail_sim(sc, st, "the simulation step failed");
        if (switched) {
            orca_sc_waypoints_restore(sc);
        }
        if (navigated) {
            orca_sc_nav_restore(sc);
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
        return orca_sc_fail_sim(sc, st, "measuring the overlaps after the step");
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

/* ------------------------------------------------------------------------------------------
 * The record (docs/scenarios.md, "Records and errors")
 * ---------------------------------------------------------------------------------------- */

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
