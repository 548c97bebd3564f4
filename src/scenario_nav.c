/* SPDX-License-Identifier: MIT */
/* Navigation's glue (docs/navigation.md): each navigating agent's path, planned through
 * nav.c, followed corner by corner, re-routed when it makes no progress; its API, and its
 * part of the scenario hash. */
#include "fp.h"

#include <string.h>

#include "alloc.h"
#include "scenario_internal.h"
#include "sim_peek.h"
#include "snap_io.h"

/* The goal point of an agent's path: its target, or for a goal set the set's point the path
 * ends at. */
static orca_vec2 nav_goal(const orca_scenario *sc, const sc_agent *a, const sc_nav *v)
{
    if (a->goal.kind == ORCA_GOAL_SET && v->route.result == ORCA_NAV_OK && v->route.goal >= 0) {
        return sc->sets[a->goal.goal_set].points[v->route.goal];
    }
    return a->goal.target;
}

/* The goals of an agent's plans: its target, or its goal set's points with the set's index
 * as the field (docs/navigation.md, "Shared goals"); -1 without. */
static int64_t nav_goals(const orca_scenario *sc, const sc_agent *a, const orca_vec2 **goals,
                         int *count)
{
    if (a->goal.kind == ORCA_GOAL_SET) {
        const sc_goal_set *set = &sc->sets[a->goal.goal_set];
        *goals = set->points;
        *count = set->count;
        return a->goal.goal_set;
    }
    *goals = &a->goal.target;
    *count = 1;
    return -1;
}

/* Counts a plan's change of the goal-set point agent v heads for (any exit choice). */
static void nav_count_exit(sc_nav *v, int point)
{
    if (point < 0) {
        return; /* no path: the last point stays the one a change is counted from */
    }
    if (v->exit >= 0 && point != v->exit) {
        v->exit_changes++;
        if (point < 64 && (v->left >> point & 1u)) {
            v->returns++;
        }
        if (v->exit < 64) {
            v->left |= (uint64_t)1 << v->exit;
        }
    }
    v->exit = point;
}

/* Plans agent a (index i, at p, radius r) anew as worker `worker`, on structures
 * orca_nav_prepare built; avoid: a wall end to penalise (re-routing). A choosing agent
 * (orca_sc_choosing) heads for `chosen` (-2: choose now) through that point's distances.
 * Writes only the agent's own state. */
static orca_status nav_replan(const orca_scenario *sc, int worker, sc_agent *a, sc_nav *v,
                              int i, orca_vec2 p, double r, const orca_vec2 *avoid, int chosen)
{
    const orca_vec2 *goals;
    int count;
    int64_t field = nav_goals(sc, a, &goals, &count);
    orca_status st = ORCA_OK;
    int choosing = orca_sc_choosing(sc, a);
    double penalty = ORCA_NAV_PENALTY_TIME * a->goal.preferred_speed;
    int routed = -1; /* the point v->route was planned to in this call */
    orca_vec2 via[3]; /* the corners about the one its last path heads for: tried first */
    int nvia = orca_sc_path_ends(v, via);
    if (choosing && chosen == -2) {
        /* the path to the point it heads for first (with none yet, the nearest in a straight
         * line): the choice needs its cost, and keeps the point more often than not (then
         * this is the plan) */
        int e = v->exit >= 0 && v->exit < count ? v->exit : orca_sc_first_point(sc, a, p);
        double own = 0.0 / 0.0;
        if (e >= 0 && !sc->choice_reference) {
            st = orca_nav_route_cost(sc->nav, worker, r, p, goals + e, 1,
                                     orca_sc_point_key(a->goal.goal_set, e), avoid, penalty,
                                     via, nvia, &v->route, &own);
            routed = e;
        }
        if (st == ORCA_OK) {
            st = orca_sc_choose(sc, worker, a, i, p, r, avoid, routed, own, &chosen);
        }
    }
    choosing = choosing && chosen >= 0; /* else the set's nearest: none can be chosen */
    if (choosing) {
        goals += chosen;
        count = 1;
        field = orca_sc_point_key(a->goal.goal_set, chosen);
    }
    if (st == ORCA_OK && !(choosing && chosen == routed)) {
        st = orca_nav_route_cost(sc->nav, worker, r, p, goals, count, field, avoid, penalty,
                                 via, nvia, &v->route, NULL);
    }
    if (st != ORCA_OK) {
        return st;
    }
    if (choosing && v->route.result == ORCA_NAV_OK) {
        v->route.goal = chosen; /* the set's point, not the field's one goal */
    }
    v->planned = 1;
    v->leg = 0;
    v->k = 0;
    v->stuck = 0;
    v->best = 1.0 / 0.0;
    v->radius = r;
    v->plans++;
    if (a->goal.kind == ORCA_GOAL_SET) {
        int ok = v->route.result == ORCA_NAV_OK;
        a->goal.target = ok ? nav_goal(sc, a, v)
                            : orca_sc_nearest_point(&sc->sets[a->goal.goal_set], p);
        nav_count_exit(v, ok ? v->route.goal : -1);
    }
    v->target = a->goal.target;
    return ORCA_OK;
}

/* What an agent's navigation needs after the pass on the workers (nav_task). */
enum { NAV_DONE = 0, NAV_PLAN = 1, NAV_REROUTE = 2, NAV_CHECK = 3, NAV_FAILED = 4 };

/* The start of an agent's navigation in a step: keeps what orca_sc_nav_restore puts back and drops
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

/* The direction toward the corner ahead (none on the last leg). */
static void nav_aim(sc_nav *v, orca_vec2 p, double r)
{
    if (v->k < v->route.count) {
        v->dir = orca_nav_aim(p, &v->route.corners[v->k], r);
    }
}

/* Whether the agent's steps without progress just reached a multiple of `time` seconds. */
static int nav_tick(const orca_scenario *sc, const sc_nav *v, double time)
{
    return v->stuck > 0 && (int)((double)v->stuck * sc->dt / time) >
                               (int)((double)(v->stuck - 1) * sc->dt / time);
}

/* Whether the leg check is due for agent v (docs/navigation.md, "Following a path", step 4):
 * on its last leg or a leg check's path, each ORCA_NAV_STUCK_TIME without progress. */
static int nav_leg_due(const orca_scenario *sc, const sc_nav *v)
{
    return sc->nav_check && (v->k == v->route.count || v->leg) &&
           nav_tick(sc, v, ORCA_NAV_STUCK_TIME);
}

/* Following a planned path (docs/navigation.md, "Following a path"): passes the corners the
 * agent at p is beyond, counts its progress and takes its direction. NAV_REROUTE when it made
 * no progress for ORCA_NAV_STUCK_TIME (then it takes no direction: the caller plans again
 * first). Reads the scenario, writes only the agent's own state. */
static int nav_follow(const orca_scenario *sc, const sc_agent *a, sc_nav *v, orca_vec2 p,
                      double r)
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
    int leg = sc->nav_check && v->leg; /* a leg check's path: checked, not re-routed */
    if (v->k < v->route.count && !leg && (double)v->stuck * sc->dt >= ORCA_NAV_STUCK_TIME) {
        return NAV_REROUTE;
    }
    /* on its last leg or a leg check's path, each ORCA_NAV_STUCK_TIME without progress: is
     * the leg still clear from where it stands (a crowd may have pushed it round a wall's
     * end)? and with the quickest exit choice, each ORCA_NAV_REVIEW_TIME: is another exit
     * quicker? */
    if (nav_leg_due(sc, v) ||
        (sc->exit_choice == ORCA_EXIT_QUICKEST && orca_sc_choosing(sc, a) &&
         nav_tick(sc, v, ORCA_NAV_REVIEW_TIME))) {
        return NAV_CHECK;
    }
    nav_aim(v, p, r);
    return NAV_DONE;
}

/* Re-routing: the corner the agent is stuck at costs more; it plans again and takes its
 * direction. */
static orca_status nav_reroute(const orca_scenario *sc, int worker, sc_agent *a, sc_nav *v,
                               int i, orca_vec2 p, double r)
{
    v->has_avoid = 1;
    v->avoid = v->route.corners[v->k].vertex;
    v->reroutes++;
    orca_status st = nav_replan(sc, worker, a, v, i, p, r, &v->avoid, -2);
    if (st == ORCA_OK && v->route.result == ORCA_NAV_OK) {
        nav_aim(v, p, r);
    }
    return st;
}

/* A plan from where the agent stands (its avoided corner kept) and its first following. */
static orca_status nav_plan_follow(const orca_scenario *sc, int worker, sc_agent *a, sc_nav *v,
                                   int i, orca_vec2 p, double r, int chosen)
{
    orca_status st =
        nav_replan(sc, worker, a, v, i, p, r, v->has_avoid ? &v->avoid : NULL, chosen);
    if (st == ORCA_OK && v->route.result == ORCA_NAV_OK) {
        int f = nav_follow(sc, a, v, p, r);
        if (f == NAV_REROUTE) {
            st = nav_reroute(sc, worker, a, v, i, p, r);
        } else if (f == NAV_CHECK) {
            nav_aim(v, p, r); /* (checked when it has made no progress since this plan) */
        }
    }
    return st;
}

/* The leg check's plan (docs/navigation.md, "Following a path", step 4): from where the agent
 * stands to the goal point it heads for (the same point of a set). On its last leg the path
 * replaces the straight leg when it is longer by more than ORCA_NAV_DETOUR (a wall, not a
 * wall's end the agent slides round, lies between), or when the agent has made no progress
 * for 2 ORCA_NAV_STUCK_TIME (it stands against a wall its leg runs square into); on a leg
 * check's path (`corner`: its leg to that corner is blocked) it always does. The path is a
 * leg check's path: no re-routing at its corners. *detour: whether it did. */
static orca_status nav_detour(const orca_scenario *sc, int worker, sc_agent *a, sc_nav *v,
                              orca_vec2 p, double r, int corner, int *detour)
{
    orca_vec2 goal = nav_goal(sc, a, v);
    nav_route path;
    memset(&path, 0, sizeof path);
    orca_status st = orca_nav_route(sc->nav, worker, r, p, &goal, 1, -1, NULL, 0.0, &path);
    *detour = st == ORCA_OK && path.result == ORCA_NAV_OK &&
              (corner || path.length > v2_len(v2_sub(goal, p)) + ORCA_NAV_DETOUR ||
               (double)v->stuck * sc->dt >= 2.0 * ORCA_NAV_STUCK_TIME);
    if (*detour) {
        path.goal = v->route.goal; /* (the set's point it heads for) */
        orca_nav_route_free(&v->route);
        v->route = path;
        v->leg = 1;
        v->k = 0;
        v->stuck = 0;
        v->best = 1.0 / 0.0;
        v->plans++;
        v->replans++;
        if (nav_follow(sc, a, v, p, r) != NAV_DONE) {
            nav_aim(v, p, r);
        }
    } else {
        orca_nav_route_free(&path);
    }
    return st;
}

/* An agent without progress (docs/navigation.md, "Following a path", step 4; "Exit choice"):
 * with the leg check, a blocked last leg is planned again from where the agent stands; with
 * the quickest exit choice, a quicker point is taken; else it follows its path. */
static orca_status nav_check(const orca_scenario *sc, int worker, sc_agent *a, sc_nav *v,
                             int i, orca_vec2 p, double r)
{
    if (nav_leg_due(sc, v)) {
        const orca_nav_corner *c = v->k < v->route.count ? &v->route.corners[v->k] : NULL;
        if (!orca_nav_leg_clear(sc->nav, worker, r, p, c, nav_goal(sc, a, v))) {
            int detour = 0;
            orca_status st = nav_detour(sc, worker, a, v, p, r, c != NULL, &detour);
            if (st != ORCA_OK || detour) {
                return st;
            }
        }
    }
    if (sc->exit_choice == ORCA_EXIT_QUICKEST && orca_sc_choosing(sc, a)) {
        int chosen = -1;
        orca_status st = orca_sc_choose(sc, worker, a, i, p, r, v->has_avoid ? &v->avoid : NULL,
                                        -1, 0.0 / 0.0, &chosen);
        if (st != ORCA_OK) {
            return st;
        }
        if (chosen >= 0 && chosen != v->exit) {
            return nav_plan_follow(sc, worker, a, v, i, p, r, chosen);
        }
    }
    nav_aim(v, p, r);
    return ORCA_OK;
}

typedef struct nav_ctx {
    orca_scenario *sc;
    const int32_t *ent;
    const orca_vec2 *pos;
    uint8_t *flag; /* per index: NAV_DONE, NAV_PLAN, NAV_REROUTE or NAV_CHECK; NAV_FAILED
                      after a plan that ran out of memory */
    orca_vec2 *pref; /* per index: the rule's value for the agents with an entry */
    const int32_t *list; /* the indices that plan this step, in order (plan_task) */
    uint64_t step_hash;
    int changed;   /* the walls changed since the last pass */
    int queues;    /* the quickest exit choice: nav_task writes sc->qkey, sc->qrem */
} nav_ctx;

/* The pass over agents [begin, end) that needs no planning (on the workers: each agent writes
 * only its own entry and flag): without navigation a goal-set agent takes the set's nearest
 * point; with it an agent with a plan follows it, and one that needs a plan or a re-routing is
 * flagged for orca_sc_nav_advance's serial pass. */
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
                    a->goal.target = orca_sc_nearest_point(&sc->sets[a->goal.goal_set], c->pos[i]);
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
        if (c->queues) { /* the start-of-step queues: where each agent with a point is */
            const sc_nav *v = a ? a->nv : NULL;
            int with = v && v->planned && v->route.result == ORCA_NAV_OK && v->exit >= 0 &&
                       orca_sc_choosing(sc, a) && sc->sets[a->goal.goal_set].exit;
            sc->qkey[i] = with ? orca_sc_point_key(a->goal.goal_set, v->exit) : -1;
            sc->qrem[i] = with ? orca_sc_remaining(v, c->pos[i], nav_goal(sc, a, v)) : 0.0;
        }
        c->flag[i] = f;
        if (a && f == NAV_DONE) {
            c->pref[i] = orca_sc_agent_rule(sc, a, e, c->pos[i], c->step_hash);
        }
    }
}

/* The plans of the agents list[begin .. end) (on the workers, each with its own scratch:
 * each agent writes only its own state, flag and rule value): a re-routing, or a plan and its
 * first following. */
static void plan_task(int begin, int end, int worker, void *context)
{
    const nav_ctx *c = context;
    const orca_scenario *sc = c->sc;
    for (int k = begin; k < end; ++k) {
        int i = c->list[k];
        sc_agent *a = &sc->agents[c->ent[i]];
        sc_nav *v = a->nv;
        orca_vec2 p = c->pos[i];
        double r = orca_sim_peek_radius(sc->sim, i);
        orca_status st;
        if (c->flag[i] == NAV_REROUTE) {
            st = nav_reroute(sc, worker, a, v, i, p, r);
        } else if (c->flag[i] == NAV_CHECK) {
            st = nav_check(sc, worker, a, v, i, p, r);
        } else {
            st = nav_plan_follow(sc, worker, a, v, i, p, r, -2);
        }
        if (st != ORCA_OK) {
            c->flag[i] = NAV_FAILED;
            continue;
        }
        c->pref[i] = orca_sc_agent_rule(sc, a, c->ent[i], p, c->step_hash);
    }
}

/* The agents nav_task left to plan: their path state made, what their plans read built
 * (graphs, goal sets' distances), in index order on the calling thread; their indices to
 * sc->plan_list. Returns how many, or -1 with the message set. */
static int plan_list(orca_scenario *sc, const nav_ctx *c, int n)
{
    int m = 0;
    int64_t last_field = -1; /* the goal set (-1: a point goal) and radius of the last plan */
    double last_r = 0.0;
    for (int i = 0; i < n; ++i) {
        if (c->flag[i] == NAV_DONE) {
            continue;
        }
        sc_agent *a = &sc->agents[c->ent[i]];
        double r = orca_sim_peek_radius(sc->sim, i);
        if (!a->nv) {
            a->nv = orca_mem_zalloc(1, sizeof *a->nv);
            if (!a->nv) {
                orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory for an agent's path");
                return -1;
            }
            a->nv->prev_best = a->nv->best = 1.0 / 0.0;
            a->nv->exit = -1;
        }
        if (c->flag[i] == NAV_PLAN) {
            nav_prepare(a, a->nv, r, c->changed);
        }
        const orca_vec2 *goals;
        int count;
        int64_t field = nav_goals(sc, a, &goals, &count);
        if (m == 0 || field != last_field || r != last_r) {
            /* (what the agent before in the list prepared serves it as it is) */
            orca_status st = orca_nav_prepare(sc->nav, r, field, goals, count);
            for (int j = 0; st == ORCA_OK && orca_sc_choosing(sc, a) && j < count; ++j) {
                st = orca_nav_prepare(sc->nav, r, orca_sc_point_key(a->goal.goal_set, j),
                                      goals + j, 1);
            }
            if (st != ORCA_OK) {
                orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory building the navigation graph");
                return -1;
            }
            last_field = field;
            last_r = r;
        }
        sc->plan_list[m++] = i;
    }
    return m;
}

orca_status orca_sc_nav_advance(orca_scenario *sc, const int32_t *ent, const orca_vec2 *pos,
                                int n, uint64_t step_hash)
{
    orca_sim *sim = sc->sim;
    nav_ctx c;
    c.sc = sc;
    c.ent = ent;
    c.pos = pos;
    c.flag = sc->nav_flag;
    c.pref = sc->pref;
    c.list = sc->plan_list;
    c.step_hash = step_hash;
    c.changed = 0;
    c.queues = sc->navigation && sc->exit_choice == ORCA_EXIT_QUICKEST && sc->exit_sets > 0;
    if (sc->navigation) {
        if (!sc->nav && orca_nav_create(sim, &sc->nav) != ORCA_OK) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory creating the navigation");
        }
        c.changed = orca_nav_sync(sc->nav);
        if (c.changed < 0) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory reading the walls");
        }
    }
    if (n < NAV_TASK_MIN || orca_sim_run_task(sim, nav_task, n, &c) != ORCA_OK) {
        nav_task(0, n, 0, &c);
    }
    if (!sc->navigation) {
        return ORCA_OK;
    }
    if (c.queues) {
        orca_status st = sc->queue_fn ? sc->queue_fn(sc, n, sc->queue_ctx)
                                      : orca_sc_queue_build(sc, n);
        if (st != ORCA_OK) {
            return st;
        }
    }
    int m = plan_list(sc, &c, n);
    if (m < 0) {
        return ORCA_ERR_MEMORY;
    }
    if (m == 0) {
        return ORCA_OK;
    }
    if (orca_nav_workers(sc->nav, orca_sim_get_worker_count(sim)) != ORCA_OK) {
        return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory for the planners' scratch");
    }
    orca_sim_run_heavy(sim, plan_task, m, &c);
    for (int k = 0; k < m; ++k) {
        if (c.flag[sc->plan_list[k]] == NAV_FAILED) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory planning a path");
        }
    }
    return ORCA_OK;
}

void orca_sc_nav_restore_path(sc_nav *v)
{
    if (v && v->planned) {
        v->k = v->prev_k < v->route.count ? v->prev_k : v->k;
        v->stuck = v->prev_stuck;
        v->best = v->prev_best;
    }
}

void orca_sc_nav_restore(orca_scenario *sc)
{
    for (int e = 0; e < sc->agent_count; ++e) {
        orca_sc_nav_restore_path(sc->agents[e].nv);
    }
}

orca_status orca_scenario_set_navigation(orca_scenario *sc, int on)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (on != 0 && on != 1) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "navigation must be 0 or 1, got %d", on);
    }
    if (on && !sc->nav) {
        if (orca_nav_create(sc->sim, &sc->nav) != ORCA_OK) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory creating the navigation");
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

orca_status orca_scenario_agent_nav(const orca_scenario *sc_in, int index, orca_nav_agent *out,
                                    orca_nav_corner *corners, int capacity)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only the error message is written */
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!out) {
        return orca_sc_fail(sc, ORCA_ERR_NULL, "out must not be NULL");
    }
    if (capacity < 0 || (capacity > 0 && !corners)) {
        return orca_sc_fail(sc, capacity < 0 ? ORCA_ERR_ARGUMENT : ORCA_ERR_NULL,
                            "corners is NULL with capacity %d", capacity);
    }
    int e = orca_sc_entry_of(sc, index);
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
    orca_sc_nav_describe(v, out, corners, capacity);
    out->goal = nav_goal(sc, a, v);
    return ORCA_OK;
}

void orca_sc_nav_describe(const sc_nav *v, orca_nav_agent *out, orca_nav_corner *corners,
                          int capacity)
{
    out->result = (orca_nav_result)v->route.result;
    out->corner = v->k;
    out->corners = v->route.result == ORCA_NAV_OK ? v->route.count : 0;
    out->length = v->route.length;
    out->plans = v->plans;
    out->reroutes = v->reroutes;
    for (int k = 0; k < out->corners && k < capacity; ++k) {
        corners[k] = v->route.corners[k];
    }
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

/* Whether agent a (at p, radius r) is at its exit: it leaves at the next step's start. */
static int at_exit(const orca_scenario *sc, const sc_agent *a, orca_vec2 p, double r)
{
    if (a->goal.kind != ORCA_GOAL_SET || !sc->sets[a->goal.goal_set].exit) {
        return 0;
    }
    double arrive = sc->sets[a->goal.goal_set].arrive;
    return v2_len(v2_sub(a->goal.target, p)) <= (arrive > 0 ? arrive : r);
}

orca_status orca_scenario_nav_counts(const orca_scenario *sc, orca_nav_counts *out)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!out) {
        return orca_sc_fail((orca_scenario *)sc, ORCA_ERR_NULL, "out must not be NULL");
    }
    memset(out, 0, sizeof *out);
    out->plans = sc->retired[0];
    out->reroutes = sc->retired[1];
    out->replans = sc->retired[2];
    out->exit_changes = sc->retired[3];
    out->exit_returns = sc->retired[4];
    out->agents_changed = (int)sc->retired[5];
    out->most_changes = (int)sc->retired[6];
    for (int e = 0; e < sc->agent_count; ++e) { /* every entry: those that left too */
        const sc_nav *v = sc->agents[e].nv;
        if (v) {
            out->plans += v->plans;
            out->reroutes += v->reroutes;
            out->replans += v->replans;
            out->exit_changes += v->exit_changes;
            out->exit_returns += v->returns;
            out->agents_changed += v->exit_changes > 0;
            out->most_changes = v->exit_changes > out->most_changes ? v->exit_changes
                                                                    : out->most_changes;
        }
    }
    int n = orca_sim_agent_count(sc->sim);
    const orca_vec2 *pos = orca_sim_positions(sc->sim);
    for (int i = 0; i < n; ++i) {
        int e = key_at(sc, i, orca_sim_agent_at(sc->sim, i));
        out->at_exits += e >= 0 && at_exit(sc, &sc->agents[e], pos[i],
                                            orca_sim_peek_radius(sc->sim, i));
    }
    out->exited = sc->exited;
    out->arrived = orca_scenario_arrived_count(sc) + sc->exited;
    out->unreachable = orca_scenario_nav_unreachable(sc);
    return ORCA_OK;
}

size_t orca_sc_nav_hash_bytes(const sc_agent *a, unsigned char *out, size_t cap)
{
    const sc_nav *v = a->nv;
    if (!v) {
        return 0;
    }
    int cnt = v->route.result == ORCA_NAV_OK ? v->route.count : 0;
    size_t need = (13 + 7 * (size_t)cnt) * 8;
    if (need > cap) {
        return need;
    }
    /* doubles as their bits as they are (no NaN reaches navigation's hash) */
    unsigned char *p = out;
    p = hash_put_u64(p, sc_nav_planned_word(v));
    p = hash_put_u64(p, (uint64_t)v->route.result);
    p = hash_put_u64(p, (uint64_t)v->k);
    p = hash_put_u64(p, (uint64_t)cnt);
    for (int k = 0; k < cnt; ++k) {
        const orca_nav_corner *c = &v->route.corners[k];
        p = hash_put_u64(hash_put_u64(p, f64_bits(c->vertex.x)), f64_bits(c->vertex.y));
        p = hash_put_u64(p, (uint64_t)(int64_t)c->side);
        p = hash_put_u64(hash_put_u64(p, f64_bits(c->enter.x)), f64_bits(c->enter.y));
        p = hash_put_u64(hash_put_u64(p, f64_bits(c->leave.x)), f64_bits(c->leave.y));
    }
    p = hash_put_u64(hash_put_u64(p, f64_bits(a->goal.target.x)), f64_bits(a->goal.target.y));
    p = hash_put_u64(p, (uint64_t)v->stuck);
    p = hash_put_u64(p, f64_bits(v->best));
    p = hash_put_u64(p, (uint64_t)v->has_avoid);
    p = hash_put_u64(hash_put_u64(p, f64_bits(v->avoid.x)), f64_bits(v->avoid.y));
    p = hash_put_u64(p, (uint64_t)v->plans);
    p = hash_put_u64(p, (uint64_t)v->reroutes);
    return need;
}

size_t orca_sc_nav_choice_hash_bytes(const sc_agent *a, unsigned char *out, size_t cap)
{
    const sc_nav *v = a->nv;
    if (!v) {
        return 0;
    }
    if (cap >= 16) {
        hash_put_u64(hash_put_u64(out, (uint64_t)(int64_t)v->exit), v->left);
    }
    return 16;
}
