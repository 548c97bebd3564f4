/* SPDX-License-Identifier: MIT */
/* The preferred-velocity rule (docs/scenarios.md, "The rule"), the step's rule pass, and
 * waypoints (docs/extensions.md, "Waypoints"): the targets the rule reads. */
#include "fp.h"

#include <string.h>

#include "alloc.h"
#include "scenario_internal.h"

/* Perturbation amplitude per unit of preferred speed (docs/scenarios.md, "The rule"). */
#define SC_PERTURB 0x1.a36e2eb1c432dp-14 /* 1e-4 rounded to nearest (an exact hex literal) */

/* ------------------------------------------------------------------------------------------
 * The preferred-velocity rule (docs/scenarios.md, "The rule")
 * ---------------------------------------------------------------------------------------- */

/* The step's part of the perturbation's hash, the same for every agent: mix(mix(seed + G) +
 * step). (scenario_rule.h: the MPI layer computes each owned agent's preferred velocity
 * itself, with the same bits.) */
uint64_t orca_rule_step_hash(uint64_t seed, uint64_t step)
{
    return sc_mix64(sc_mix64(seed + SC_GOLDEN) + step);
}

/* The perturbation added to a preferred velocity pref of preferred speed `speed`:
 * h1 = mix(mix(mix(seed + G) + step) + key), h2 = mix(h1 + G). */
static orca_vec2 perturb(orca_vec2 pref, double speed, uint64_t step_hash, uint64_t key)
{
    uint64_t h1 = sc_mix64(step_hash + key);
    uint64_t h2 = sc_mix64(h1 + SC_GOLDEN);
    double amplitude = SC_PERTURB * speed;
    pref.x = pref.x + (2.0 * sc_unit(h1) - 1.0) * amplitude;
    pref.y = pref.y + (2.0 * sc_unit(h2) - 1.0) * amplitude;
    return pref;
}

/* step_hash = orca_rule_step_hash(seed, step) */
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
    return perturb(pref, speed, step_hash, key);
}

/* The rule for other layers (scenario_rule.h). */
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
    return perturb(v2_mul(dir, speed), speed, step_hash, key);
}

/* (Static, so that the compiler may pass it parts of its arguments in the step's pass below
 * without link-time optimisation; orca_sc_agent_rule is it for the other files.) */
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
    uint64_t key = sc->rule_keys ? sc->rule_keys[e] : (uint64_t)e;
    if (v && v->k < v->route.count) {
        return nav_velocity(v->dir, a->goal.preferred_speed, step_hash, key);
    }
    return preferred_velocity(&a->goal, position, sc->dt, step_hash, key);
}

orca_vec2 orca_sc_agent_rule(const orca_scenario *sc, const sc_agent *a, int e,
                             orca_vec2 position, uint64_t step_hash)
{
    return agent_rule(sc, a, e, position, step_hash);
}

void orca_sc_rule_agents(void *context, const int32_t *index, int32_t first,
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

/* ------------------------------------------------------------------------------------------
 * Waypoints (docs/extensions.md, "Waypoints")
 * ---------------------------------------------------------------------------------------- */

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

orca_status orca_scenario_set_waypoints(orca_scenario *sc, int index, const orca_vec2 *points,
                                        int count, int loop, double arrive_distance)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    int e = orca_sc_entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
    }
    sc_agent *a = &sc->agents[e];
    if (a->goal.kind != ORCA_GOAL_POINT) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                            "agent at index %d has goal kind %d; waypoints need a point goal "
                            "(ORCA_GOAL_POINT)",
                            index, (int)a->goal.kind);
    }
    if (count < 0) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "waypoint count must be >= 0, got %d", count);
    }
    if (count > ORCA_WAYPOINTS_MAX) {
        return orca_sc_fail(sc, ORCA_ERR_LIMIT, "waypoint count must be at most %d, got %d",
                            ORCA_WAYPOINTS_MAX, count);
    }
    if (count > 0 && !points) {
        return orca_sc_fail(sc, ORCA_ERR_NULL, "points must not be NULL (count %d)", count);
    }
    if (loop != 0 && loop != 1) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "loop must be 0 or 1, got %d", loop);
    }
    if (!is_arrive(arrive_distance)) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                            "arrive_distance must be 0 (the agent's radius) or in [2^-30, 2^23] "
                            "m, got %.17g",
                            arrive_distance);
    }
    for (int k = 0; k < count; ++k) {
        orca_vec2 p = points[k];
        if (!is_coord(p)) {
            return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                                "waypoint %d must have finite coordinates of magnitude below "
                                "2^21, got (%.17g, %.17g)",
                                k, p.x, p.y);
        }
    }
    orca_vec2 goal = a->wp ? a->wp->goal : a->goal.target;
    orca_vec2 here = {0, 0};
    if (count > 0 && orca_agent_get_position(sc->sim, a->id, &here) != ORCA_OK) {
        return orca_sc_fail_sim(sc, ORCA_ERR_STALE, "reading the agent's position");
    }
    sc_waypoints *w = NULL;
    if (count > 0) {
        w = orca_mem_zalloc(1, sizeof *w);
        orca_vec2 *copy = w ? orca_mem_alloc((size_t)count, sizeof *copy) : NULL;
        if (!copy) {
            orca_mem_free(w);
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory for %d waypoints", count);
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
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "capacity must be >= 0, got %d", capacity);
    }
    if (capacity > 0 && !points) {
        return orca_sc_fail(sc, ORCA_ERR_NULL, "points must not be NULL (capacity %d)", capacity);
    }
    int e = orca_sc_entry_of(sc, index);
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
        return orca_sc_fail(sc, ORCA_ERR_NULL, "current must not be NULL");
    }
    int e = orca_sc_entry_of(sc, index);
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
    int e = orca_sc_entry_of(sc, index);
    if (e < 0) {
        return ORCA_ERR_ARGUMENT;
    }
    sc_waypoints *w = sc->agents[e].wp;
    int c = w ? w->count : 0;
    if (current < 0 || current > c) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                            "waypoint index of agent %d must be in [0, %d] (its %d waypoints, "
                            "then the goal), got %d",
                            index, c, c, current);
    }
    if (w) {
        w->index = current;
        sc->agents[e].goal.target = current < c ? w->points[current] : w->goal;
    }
    return ORCA_OK;
}

orca_status orca_sc_waypoints_advance(orca_scenario *sc, const orca_vec2 *positions, int n)
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
                return orca_sc_fail_sim(sc, ORCA_ERR_STALE, "reading an agent's radius");
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

void orca_sc_waypoints_restore(orca_scenario *sc)
{
    for (int e = 0; e < sc->agent_count; ++e) {
        sc_waypoints *w = sc->agents[e].wp;
        if (w && w->index != w->prev) {
            w->index = w->prev;
            sc->agents[e].goal.target = w->index < w->count ? w->points[w->index] : w->goal;
        }
    }
}
