/* SPDX-License-Identifier: MIT */
/* The exit choice of goal-set agents (docs/navigation.md, "Exit choice"): with
 * ORCA_EXIT_CALM an agent keeps the point it heads for unless another is quicker by the
 * margin, and never goes back to one it left; ORCA_EXIT_QUICKEST adds the queue ahead of it
 * at each point to the walking time. The queues are counted from the start-of-step state in
 * index order, so every agent's choice is the same for any worker count. */
#include "fp.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "scenario_internal.h"
#include "sim_peek.h"

int orca_sc_choosing(const orca_scenario *sc, const sc_agent *a)
{
    return sc->exit_choice != ORCA_EXIT_NEAREST && a->goal.kind == ORCA_GOAL_SET &&
           sc->sets[a->goal.goal_set].count <= ORCA_NAV_CHOICE_POINTS;
}

int64_t orca_sc_point_key(int set, int point)
{
    return ((int64_t)(set + 1) << 32) | (int64_t)point;
}

/* ------------------------------------------------------------------------------------------
 * The queues (ORCA_EXIT_QUICKEST)
 * ---------------------------------------------------------------------------------------- */

double orca_sc_remaining(const sc_nav *v, orca_vec2 p, orca_vec2 goal)
{
    if (v->k >= v->route.count) {
        return v2_len(v2_sub(goal, p));
    }
    const orca_nav_corner *c = v->route.corners;
    double rem = v2_len(v2_sub(c[v->k].leave, p));
    for (int k = v->k; k + 1 < v->route.count; ++k) {
        rem += v2_len(v2_sub(c[k + 1].leave, c[k].leave));
    }
    return rem + v2_len(v2_sub(goal, c[v->route.count - 1].leave));
}

static int cmp_queue(const void *x, const void *y)
{
    const sc_queue *a = x, *b = y;
    if (a->key != b->key) {
        return a->key < b->key ? -1 : 1;
    }
    return a->rem < b->rem ? -1 : (a->rem > b->rem);
}

orca_status orca_sc_queue_build(orca_scenario *sc, int n)
{
    int m = 0;
    for (int i = 0; i < n; ++i) {
        m += sc->qkey[i] >= 0;
    }
    if (m > sc->queue_cap) {
        sc_queue *q = orca_mem_resize(sc->queue, (size_t)m, sizeof *q);
        if (!q) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory counting the exits' queues");
        }
        sc->queue = q;
        sc->queue_cap = m;
    }
    m = 0;
    for (int i = 0; i < n; ++i) {
        if (sc->qkey[i] >= 0) {
            sc->queue[m].key = sc->qkey[i];
            sc->queue[m].rem = sc->qrem[i];
            ++m;
        }
    }
    if (m > 1) {
        qsort(sc->queue, (size_t)m, sizeof *sc->queue, cmp_queue);
    }
    sc->queue_n = m;
    return ORCA_OK;
}

/* The agents heading for the point of `key` whose remaining path is shorter than len. */
static int queue_ahead(const orca_scenario *sc, int64_t key, double len)
{
    int lo = 0, hi = sc->queue_n;
    while (lo < hi) { /* the first entry at or after (key, len) */
        int mid = lo + (hi - lo) / 2;
        const sc_queue *q = &sc->queue[mid];
        if (q->key < key || (q->key == key && q->rem < len)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    int first = lo;
    lo = 0;
    hi = first;
    while (lo < hi) { /* the first entry of key */
        int mid = lo + (hi - lo) / 2;
        if (sc->queue[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return first - lo;
}

/* ------------------------------------------------------------------------------------------
 * The choice
 * ---------------------------------------------------------------------------------------- */

/* The estimated time of agent a (index i) to point j of its set, whose path there costs `cost`
 * metres (+inf: no path; orca_nav_field_costs): that over its preferred speed, W; with
 * ORCA_EXIT_QUICKEST at an exit, the agents ahead of it, Q, pass the point at its capacity C
 * (its measured outflow, at least the set's capacity) while it walks, and those still ahead
 * when it arrives, Q - C W, cost it (Q - C W) / C more: max(W, Q / C). +inf without a path. */
static double point_time(const orca_scenario *sc, const sc_agent *a, int i, int j, double cost)
{
    if (!(cost < 1.0 / 0.0)) {
        return 1.0 / 0.0;
    }
    int set = a->goal.goal_set;
    double v = a->goal.preferred_speed;
    double t = v > 0 ? cost / v : cost;
    const sc_goal_set *s = &sc->sets[set];
    if (sc->exit_choice == ORCA_EXIT_QUICKEST && s->exit) {
        int64_t key = orca_sc_point_key(set, j);
        int ahead = queue_ahead(sc, key, cost);
        if (sc->qkey[i] == key && sc->qrem[i] < cost) {
            --ahead; /* itself */
        }
        double cap = s->flow[j] > s->capacity ? s->flow[j] : s->capacity;
        double wait = (double)ahead / cap;
        t = wait > t ? wait : t;
    }
    return t;
}

/* The choice of agent a (index i, at p, radius r) that keeps its point e unless another is
 * quicker by the margin ((keep - t) / (keep + t) above ORCA_NAV_EXIT_MARGIN; twice that for a
 * point it left), with t[e] = keep finite: the quickest of those; none after
 * ORCA_NAV_EXIT_CHANGES changes, or within ORCA_NAV_EXIT_COMMIT of its point. d[e] and t[e] are
 * known. A point j wins only when its time (with the quickest choice's 8 s for a change) is
 * below keep (1 - m) / (1 + m) < 0.75 keep, so only when t[j] < 0.75 keep - change and then
 * its cost D_j <= v t[j] (t[j] >= W_j = D_j / v) is below v (0.75 keep - change): the other
 * points' costs come from one pass capped there (with a relative 2^-20 more, which covers
 * the rounding of the products and quotients), each cost below the cap the same double as
 * without one, each other +inf and, as its true time would, losing. So the choice is the one
 * the costs of every point give, to the bit (docs/navigation.md, "Exit choice"). */
static orca_status choice_others(const orca_scenario *sc, int worker, const sc_agent *a, int i,
                                 orca_vec2 p, double r, const orca_vec2 *avoid, int e,
                                 const int64_t *key, double *d, double *t, int *chosen)
{
    const sc_nav *v = a->nv;
    int count = sc->sets[a->goal.goal_set].count;
    double keep = t[e];
    double change = sc->exit_choice == ORCA_EXIT_QUICKEST ? ORCA_NAV_PENALTY_TIME : 0.0;
    double win = 0.75 * keep - change; /* a point's time must be below this to win */
    if (v->exit_changes >= ORCA_NAV_EXIT_CHANGES || d[e] <= ORCA_NAV_EXIT_COMMIT ||
        !(win > 0) || count < 2) {
        *chosen = e; /* settled, or none can win */
        return ORCA_OK;
    }
    double speed = a->goal.preferred_speed;
    double cap = win * (speed > 0 ? speed : 1.0) * (1.0 + 0x1p-20);
    int64_t ok[ORCA_NAV_CHOICE_POINTS];
    double caps[ORCA_NAV_CHOICE_POINTS], dk[ORCA_NAV_CHOICE_POINTS];
    int n = 0;
    for (int j = 0; j < count; ++j) {
        if (j != e) {
            ok[n] = key[j];
            caps[n++] = cap;
        }
    }
    double penalty = ORCA_NAV_PENALTY_TIME * speed;
    orca_status st = orca_nav_field_costs(sc->nav, worker, r, p, ok, n, avoid, penalty, caps, dk);
    if (st != ORCA_OK) {
        return st;
    }
    int b = -1;
    for (int j = 0, k = 0; j < count; ++j) {
        if (j == e) {
            continue;
        }
        d[j] = dk[k++];
        t[j] = point_time(sc, a, i, j, d[j]);
        double margin = (v->left >> j & 1u) ? 2.0 * ORCA_NAV_EXIT_MARGIN : ORCA_NAV_EXIT_MARGIN;
        /* (with the queues, a change costs what a re-routing's corner does: the walk to
         * another exit takes longer among others than the estimate's free walk) */
        double tj = t[j] + change;
        if (tj < keep && keep - tj > margin * (keep + tj) && (b < 0 || t[j] < t[b])) {
            b = j;
        }
    }
    *chosen = b >= 0 ? b : e;
    return ORCA_OK;
}

orca_status orca_sc_choose(const orca_scenario *sc, int worker, const sc_agent *a, int i,
                           orca_vec2 p, double r, const orca_vec2 *avoid, int *chosen)
{
    const sc_nav *v = a->nv;
    int set = a->goal.goal_set, count = sc->sets[set].count;
    int e = v->exit >= 0 && v->exit < count ? v->exit : -1;
    double t[ORCA_NAV_CHOICE_POINTS] = {0}, d[ORCA_NAV_CHOICE_POINTS] = {0};
    int64_t key[ORCA_NAV_CHOICE_POINTS] = {0};
    for (int j = 0; j < count; ++j) {
        key[j] = orca_sc_point_key(set, j);
    }
    /* the cost of its path to each point (its own distances, the avoided corner's penalty),
     * in one pass over where it stands */
    double penalty = ORCA_NAV_PENALTY_TIME * a->goal.preferred_speed;
    orca_status st = ORCA_OK;
    if (e >= 0) {
        /* its own point first: with a finite time there, the others' costs are needed only
         * below the cost at which they could win (choice_others) */
        st = orca_nav_field_costs(sc->nav, worker, r, p, &key[e], 1, avoid, penalty, NULL, &d[e]);
        if (st != ORCA_OK) {
            return st;
        }
        t[e] = point_time(sc, a, i, e, d[e]);
        if (t[e] < 1.0 / 0.0) {
            return choice_others(sc, worker, a, i, p, r, avoid, e, key, d, t, chosen);
        }
    }
    st = orca_nav_field_costs(sc->nav, worker, r, p, key, count, avoid, penalty, NULL, d);
    if (st != ORCA_OK) {
        return st;
    }
    for (int j = 0; j < count; ++j) {
        t[j] = point_time(sc, a, i, j, d[j]);
    }
    /* none yet, or its own is cut off: the quickest, a point it left only when no other is
     * reachable */
    int b = -1;
    for (int pass = 0; pass < 2 && b < 0; ++pass) {
        for (int j = 0; j < count; ++j) {
            int was_left = (v->left >> j & 1u) != 0;
            if (j != e && was_left == pass && t[j] < 1.0 / 0.0 && (b < 0 || t[j] < t[b])) {
                b = j;
            }
        }
    }
    *chosen = b;
    return ORCA_OK;
}

/* ------------------------------------------------------------------------------------------
 * The API
 * ---------------------------------------------------------------------------------------- */

/* Every path plans anew at the next navigated step (a setting its plans follow changed). */
static void replan_all(orca_scenario *sc)
{
    for (int e = 0; e < sc->agent_count; ++e) {
        if (sc->agents[e].nv) {
            sc->agents[e].nv->planned = 0;
        }
    }
}

orca_status orca_scenario_set_nav_check(orca_scenario *sc, int on)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (on != 0 && on != 1) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT, "nav_check must be 0 or 1, got %d", on);
    }
    sc->nav_check = on;
    return ORCA_OK;
}

int orca_scenario_get_nav_check(const orca_scenario *sc)
{
    return sc ? sc->nav_check : 0;
}

orca_status orca_scenario_set_exit_choice(orca_scenario *sc, int choice)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (choice < ORCA_EXIT_NEAREST || choice > ORCA_EXIT_QUICKEST) {
        return orca_sc_fail(sc, ORCA_ERR_ARGUMENT,
                            "exit choice must be 0 (nearest), 1 (calm) or 2 (quickest), got %d",
                            choice);
    }
    if (choice != sc->exit_choice) {
        replan_all(sc);
    }
    sc->exit_choice = choice;
    return ORCA_OK;
}

int orca_scenario_get_exit_choice(const orca_scenario *sc)
{
    return sc ? sc->exit_choice : ORCA_EXIT_NEAREST;
}

const char *orca_exit_choice_name(int choice)
{
    switch (choice) {
    case ORCA_EXIT_NEAREST: return "nearest";
    case ORCA_EXIT_CALM: return "calm";
    case ORCA_EXIT_QUICKEST: return "quickest";
    default: return NULL;
    }
}

int orca_exit_choice_from_name(const char *name)
{
    for (int k = ORCA_EXIT_NEAREST; name && k <= ORCA_EXIT_QUICKEST; ++k) {
        if (strcmp(name, orca_exit_choice_name(k)) == 0) {
            return k;
        }
    }
    return -1;
}
