/* SPDX-License-Identifier: MIT */
/* The exit choice of goal-set agents (docs/navigation.md, "Exit choice"): with
 * ORCA_EXIT_CALM an agent keeps the point it heads for unless another is quicker by the
 * margin, and never goes back to one it left; ORCA_EXIT_QUICKEST adds the queue ahead of it
 * at each point to the walking time. The queues are counted from the start-of-step state in
 * index order, so every agent's choice is the same for any worker count. */
#include "fp.h"

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

int orca_sc_path_ends(const sc_nav *v, orca_vec2 via[3])
{
    int n = 0;
    for (int k = v->k - 1; k <= v->k + 1 && v->route.result == ORCA_NAV_OK; ++k) {
        if (k >= 0 && k < v->route.count) {
            via[n++] = v->route.corners[k].vertex;
        }
    }
    return n;
}

/* The sort key of an entry: its 64 bits of remaining path (a double >= 0, whose bits order as
 * its values; -0 as +0), then the point key's 64 bits (>= 0). */
static uint64_t queue_digits(const sc_queue *q, int word)
{
    if (word) {
        return (uint64_t)q->key;
    }
    double rem = q->rem == 0 ? 0.0 : q->rem;
    uint64_t u;
    memcpy(&u, &rem, sizeof u);
    return u;
}

/* The sorted table's runs of one key (sc->qrun, by key: the table's order). ORCA_ERR_MEMORY
 * with the message set. */
static orca_status queue_runs(orca_scenario *sc)
{
    const sc_queue *q = sc->queue;
    int n = 0;
    for (int k = 0; k < sc->queue_n; ++k) {
        n += k == 0 || q[k].key != q[k - 1].key;
    }
    if (n > sc->qrun_cap) {
        sc_qrun *r = orca_mem_resize(sc->qrun, (size_t)n, sizeof *r);
        if (!r) {
            return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory counting the exits' queues");
        }
        sc->qrun = r;
        sc->qrun_cap = n;
    }
    n = 0;
    for (int k = 0; k < sc->queue_n; ++k) {
        if (k == 0 || q[k].key != q[k - 1].key) {
            sc->qrun[n].key = q[k].key;
            sc->qrun[n++].first = k;
        }
        sc->qrun[n - 1].count = k + 1 - sc->qrun[n - 1].first;
    }
    sc->qrun_n = n;
    return ORCA_OK;
}

orca_status orca_sc_queue_build(orca_scenario *sc, int n)
{
    int m = 0;
    for (int i = 0; i < n; ++i) {
        m += sc->qkey[i] >= 0;
    }
    if (m > sc->queue_cap) {
        /* the table and as many entries of scratch for its sort */
        sc_queue *q = orca_mem_resize(sc->queue, 2 * (size_t)m, sizeof *q);
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
    /* sorted by (key, remaining): a least significant digit radix sort, a byte a pass, the
     * remaining path's 8 bytes and then the key's (a pass where every entry has the same
     * byte is skipped). Entries of equal key and remaining path are alike, so the table is the
     * same whatever sort makes it. */
    sc->queue_n = m;
    if (m < 2) {
        return queue_runs(sc); /* (no table may exist yet: nothing to sort) */
    }
    uint32_t cnt[16][256]; /* per byte position: the entries of each byte value */
    memset(cnt, 0, sizeof cnt);
    for (int k = 0; k < m; ++k) {
        for (int w = 0; w < 2; ++w) {
            uint64_t u = queue_digits(&sc->queue[k], w);
            for (int b = 0; b < 8; ++b) {
                cnt[8 * w + b][(u >> (8 * b)) & 0xff]++;
            }
        }
    }
    sc_queue *src = sc->queue, *dst = sc->queue + sc->queue_cap;
    for (int d = 0; d < 16; ++d) {
        int w = d / 8, b = d % 8;
        uint32_t at = 0;
        int same = 0;
        for (int v = 0; v < 256; ++v) {
            uint32_t c = cnt[d][v];
            same |= c == (uint32_t)m;
            cnt[d][v] = at;
            at += c;
        }
        if (same) {
            continue;
        }
        for (int k = 0; k < m; ++k) {
            uint64_t u = queue_digits(&src[k], w);
            dst[cnt[d][(u >> (8 * b)) & 0xff]++] = src[k];
        }
        sc_queue *t = src;
        src = dst;
        dst = t;
    }
    if (src != sc->queue) {
        memcpy(sc->queue, src, (size_t)m * sizeof *src);
    }
    return queue_runs(sc);
}

/* The queue table's run of key, or NULL when no entry has it. */
static const sc_qrun *queue_run(const orca_scenario *sc, int64_t key)
{
    int lo = 0, hi = sc->qrun_n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sc->qrun[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < sc->qrun_n && sc->qrun[lo].key == key ? &sc->qrun[lo] : NULL;
}

/* The agents heading for the point of `key` whose remaining path is shorter than len. */
static int queue_ahead(const orca_scenario *sc, int64_t key, double len)
{
    const sc_qrun *run = queue_run(sc, key);
    if (!run) {
        return 0;
    }
    int lo = run->first, hi = run->first + run->count;
    while (lo < hi) { /* the first entry of the run at or after len */
        int mid = lo + (hi - lo) / 2;
        if (sc->queue[mid].rem < len) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo - run->first;
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

/* The double after x >= 0 (+inf stays): its bits plus one, -0 as +0. */
static double next_up(double x)
{
    if (!(x < 1.0 / 0.0)) {
        return x;
    }
    uint64_t u;
    x = x == 0 ? 0.0 : x;
    memcpy(&u, &x, sizeof u);
    ++u;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The cap on agent i's cost to point j (key) of exit set gs beyond which the queue there alone
 * makes j lose: point_time's wait Q / C (C the larger of j's outflow and the set's capacity) is
 * at least `win` once Q >= K agents are ahead, K the least count with K / C >= win (as rounded);
 * Q counts the entries of j's queue whose remaining path is below the cost, less the agent's
 * own entry if it is in that queue. So every cost above the remaining path R of j's K-th entry
 * (one more with its own) loses, and the cap is the double after R: a cost at or below R is
 * reported, as it may win. +inf when the queue is shorter. */
static double queue_cap(const orca_scenario *sc, int i, int64_t key, double win,
                        const sc_goal_set *gs, int j)
{
    double c = gs->flow[j] > gs->capacity ? gs->flow[j] : gs->capacity;
    double kd = win * c;
    if (!(kd < (double)sc->queue_n)) {
        return 1.0 / 0.0; /* (also a NaN) */
    }
    int64_t k = (int64_t)kd + 1;
    while ((double)(k - 1) / c >= win && k > 1) {
        --k; /* the least such count, as rounded */
    }
    while (!((double)k / c >= win)) {
        ++k;
    }
    k += sc->qkey[i] == key; /* its own entry */
    const sc_qrun *run = queue_run(sc, key);
    if (!run || k > run->count) {
        return 1.0 / 0.0;
    }
    return next_up(sc->queue[run->first + k - 1].rem);
}

/* An upper bound of agent a's cost from p to its own point e (field key) without a search
 * (orca_nav_field_upper): its path straight to the point, or through the wall end it heads
 * for, the one before or the one after when it follows a route there. +inf when none is
 * clear. */
static orca_status own_upper(const orca_scenario *sc, int worker, const sc_agent *a, orca_vec2 p,
                             double r, const orca_vec2 *avoid, double penalty, int64_t key,
                             double *upper)
{
    const sc_nav *v = a->nv;
    orca_vec2 via[3];
    int n = v->planned && v->route.goal == v->exit ? orca_sc_path_ends(v, via) : 0;
    return orca_nav_field_upper(sc->nav, worker, r, p, key, avoid, penalty, via, n, upper);
}

/* The cost of the path from p to the point of field key, as one pass for that point gives it:
 * capped at cap (+inf: none), and without a cap where nothing was below it. A capped pass
 * skips the wall ends beyond its cap; a cost below the cap is the same double. */
static orca_status point_cost(const orca_scenario *sc, int worker, orca_vec2 p, double r,
                              const orca_vec2 *avoid, double penalty, int64_t key, double cap,
                              double *cost)
{
    if (cap < 1.0 / 0.0) {
        orca_status st =
            orca_nav_field_costs(sc->nav, worker, r, p, &key, 1, avoid, penalty, &cap, cost);
        if (st != ORCA_OK || *cost < 1.0 / 0.0) {
            return st;
        }
    }
    return orca_nav_field_costs(sc->nav, worker, r, p, &key, 1, avoid, penalty, NULL, cost);
}

/* The cost of agent a's path from p to its own point (field key), as one pass for that point
 * gives it (point_cost): with a finite upper bound of it, capped just above that (the cost is
 * below the cap, so the same double); else with a cap of 1.25 times its remaining path (and
 * the corner's penalty) plus 1 m where it follows a route there; else without a cap. */
static orca_status own_cost(const orca_scenario *sc, int worker, const sc_agent *a, orca_vec2 p,
                            double r, const orca_vec2 *avoid, double penalty, int64_t key,
                            double upper, double *cost)
{
    const sc_nav *v = a->nv;
    int e = v->exit;
    double cap = 1.0 / 0.0;
    if (upper < 1.0 / 0.0) {
        cap = next_up(upper);
    } else if (v->planned && v->route.result == ORCA_NAV_OK && v->route.goal == e) {
        orca_vec2 goal = sc->sets[a->goal.goal_set].points[e];
        cap = 1.25 * (orca_sc_remaining(v, p, goal) + penalty) + 1.0;
    }
    return point_cost(sc, worker, p, r, avoid, penalty, key, cap, cost);
}

/* The points of agent a's set not in `skip` (bit j: point j; its own, e, for choice_others)
 * that could win with the threshold win (their time below it), and their caps: the walking
 * cap v win (with a relative 2^-20 more) or queue_cap's where that is lower. A point whose
 * straight line from p reaches its cap cannot win (a path is at least that long: a relative
 * 2^-20 below it covers the rounding of its sum) and is left out. Writes their keys to ok and
 * caps to caps, in point order; returns how many. Each cap is nondecreasing in win, so a point
 * left out at one threshold is left out at every lower one. */
static int choice_caps(const orca_scenario *sc, const sc_agent *a, int i, orca_vec2 p,
                       uint64_t skip, const int64_t *key, double win, int64_t *ok, double *caps)
{
    const sc_goal_set *gs = &sc->sets[a->goal.goal_set];
    double speed = a->goal.preferred_speed;
    double cap = win * (speed > 0 ? speed : 1.0) * (1.0 + 0x1p-20);
    int queues = sc->exit_choice == ORCA_EXIT_QUICKEST && gs->exit;
    int n = 0;
    for (int j = 0; j < gs->count; ++j) {
        if (skip >> j & 1u) {
            continue;
        }
        double cj = queues ? queue_cap(sc, i, key[j], win, gs, j) : 1.0 / 0.0;
        cj = cj < cap ? cj : cap;
        if (v2_len(v2_sub(gs->points[j], p)) * (1.0 - 0x1p-20) >= cj) {
            continue; /* it cannot win: +inf, as its true time would lose */
        }
        ok[n] = key[j];
        caps[n++] = cj;
    }
    return n;
}

/* The costs and times of agent a's points other than its own, e, where one could win: below
 * the cap of choice_others (and queue_cap's where the exit's queue alone makes it lose), from
 * one capped pass; +inf where the straight line to the point reaches the cap (a path is at
 * least that long). */
static orca_status choice_costs(const orca_scenario *sc, int worker, const sc_agent *a, int i,
                                orca_vec2 p, double r, const orca_vec2 *avoid, int e,
                                const int64_t *key, double win, double *d, double *t)
{
    int count = sc->sets[a->goal.goal_set].count;
    double speed = a->goal.preferred_speed;
    int64_t ok[ORCA_NAV_CHOICE_POINTS];
    double caps[ORCA_NAV_CHOICE_POINTS], dk[ORCA_NAV_CHOICE_POINTS];
    int n = choice_caps(sc, a, i, p, (uint64_t)1 << e, key, win, ok, caps);
    for (int j = 0; j < count; ++j) {
        d[j] = j == e ? d[j] : 1.0 / 0.0;
    }
    if (n > 0) {
        double penalty = ORCA_NAV_PENALTY_TIME * speed;
        orca_status st =
            orca_nav_field_costs(sc->nav, worker, r, p, ok, n, avoid, penalty, caps, dk);
        if (st != ORCA_OK) {
            return st;
        }
    }
    for (int j = 0, k = 0; j < count; ++j) {
        if (j == e) {
            continue;
        }
        if (k < n && ok[k] == key[j]) {
            d[j] = dk[k++];
        }
        t[j] = point_time(sc, a, i, j, d[j]);
    }
    return ORCA_OK;
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
    int known = sc->choice_reference; /* every point's d and t given: the rule alone */
    if (v->exit_changes >= ORCA_NAV_EXIT_CHANGES || d[e] <= ORCA_NAV_EXIT_COMMIT ||
        (!known && !(win > 0)) || count < 2) {
        *chosen = e; /* settled, or none can win */
        return ORCA_OK;
    }
    if (!known) {
        orca_status st = choice_costs(sc, worker, a, i, p, r, avoid, e, key, win, d, t);
        if (st != ORCA_OK) {
            return st;
        }
    }
    int b = -1;
    for (int j = 0; j < count; ++j) {
        if (j == e) {
            continue;
        }
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

/* Whether agent a (index i, at p) keeps its point e by choice_others's rule, decided from an
 * upper bound U >= D_e of its cost there alone (0: undecided). Its time is nondecreasing in
 * the cost (the walk, and the queue entries with less remaining path), so keep <= T(U), and
 * the threshold 0.75 keep - change <= that of T(U) (rounding keeps the order). choice_others
 * keeps e when the agent is settled, D_e <= ORCA_NAV_EXIT_COMMIT, the threshold is not above
 * 0, or no other point is left by choice_caps; each follows from the same with U and T(U)
 * (a finite U: a path there exists, so keep is finite). */
static int keeps(const orca_scenario *sc, const sc_agent *a, int i, orca_vec2 p, int e,
                 const int64_t *key, double upper)
{
    const sc_nav *v = a->nv;
    if (!(upper < 1.0 / 0.0)) {
        return 0;
    }
    if (v->exit_changes >= ORCA_NAV_EXIT_CHANGES || upper <= ORCA_NAV_EXIT_COMMIT ||
        sc->sets[a->goal.goal_set].count < 2) {
        return 1;
    }
    double change = sc->exit_choice == ORCA_EXIT_QUICKEST ? ORCA_NAV_PENALTY_TIME : 0.0;
    double win = 0.75 * point_time(sc, a, i, e, upper) - change;
    if (!(win > 0)) {
        return 1;
    }
    int64_t ok[ORCA_NAV_CHOICE_POINTS];
    double caps[ORCA_NAV_CHOICE_POINTS];
    return choice_caps(sc, a, i, p, (uint64_t)1 << e, key, win, ok, caps) == 0;
}

int orca_sc_first_point(const orca_scenario *sc, const sc_agent *a, orca_vec2 p)
{
    const sc_goal_set *gs = &sc->sets[a->goal.goal_set];
    const sc_nav *v = a->nv;
    int b = -1;
    double bd = 0.0;
    for (int j = 0; j < gs->count; ++j) {
        orca_vec2 dj = v2_sub(gs->points[j], p);
        double sq = v2_dot(dj, dj);
        if (j != v->exit && !(v->left >> j & 1u) && (b < 0 || sq < bd)) {
            b = j;
            bd = sq;
        }
    }
    return b;
}

/* The costs and times of agent a's points for a first choice (none yet, or its own, e, cut
 * off), which takes the quickest point it did not leave, the first in point order among equal
 * times (orca_sc_choose). Point j0 first: `known` where the caller has its cost (own) and it
 * may be chosen, else orca_sc_first_point's, by one pass capped at its upper bound
 * (orca_nav_field_upper, straight to it) where that is finite. With j0's time t0 finite, the
 * winner's time is at most t0 and a point whose time is above t0 loses, so every other point
 * not left (and not e) needs its cost only below choice_caps's cap for the threshold
 * next_up(t0): one capped pass; the others, and the points it left (a point not left wins),
 * are +inf and lose as their true times would. So the choice is the one every point's cost
 * gives, to the bit. Without such a j0: every point's cost, uncapped. */
static orca_status first_costs(const orca_scenario *sc, int worker, const sc_agent *a, int i,
                               orca_vec2 p, double r, const orca_vec2 *avoid, int e, int known,
                               double own, const int64_t *key, double *d, double *t)
{
    const sc_nav *v = a->nv;
    int count = sc->sets[a->goal.goal_set].count;
    double penalty = ORCA_NAV_PENALTY_TIME * a->goal.preferred_speed;
    int given = known >= 0 && known < count && known != e && !(v->left >> known & 1u) &&
                own == own;
    int j0 = given ? known : orca_sc_first_point(sc, a, p);
    orca_status st = ORCA_OK;
    for (int j = 0; j < count; ++j) {
        d[j] = t[j] = 1.0 / 0.0;
    }
    if (j0 >= 0) {
        if (given) {
            d[j0] = own;
        } else {
            double upper = 1.0 / 0.0;
            st = orca_nav_field_upper(sc->nav, worker, r, p, key[j0], avoid, penalty, NULL, 0,
                                      &upper);
            if (st == ORCA_OK) {
                st = point_cost(sc, worker, p, r, avoid, penalty, key[j0], next_up(upper),
                                &d[j0]);
            }
            if (st != ORCA_OK) {
                return st;
            }
        }
        t[j0] = point_time(sc, a, i, j0, d[j0]);
    }
    if (j0 < 0 || !(t[j0] < 1.0 / 0.0)) {
        st = orca_nav_field_costs(sc->nav, worker, r, p, key, count, avoid, penalty, NULL, d);
        for (int j = 0; j < count && st == ORCA_OK; ++j) {
            t[j] = point_time(sc, a, i, j, d[j]);
        }
        return st;
    }
    uint64_t skip = v->left | (uint64_t)1 << j0 | (e >= 0 ? (uint64_t)1 << e : 0u);
    int64_t ok[ORCA_NAV_CHOICE_POINTS];
    double caps[ORCA_NAV_CHOICE_POINTS], dk[ORCA_NAV_CHOICE_POINTS];
    int n = choice_caps(sc, a, i, p, skip, key, next_up(t[j0]), ok, caps);
    if (n > 0) {
        st = orca_nav_field_costs(sc->nav, worker, r, p, ok, n, avoid, penalty, caps, dk);
    }
    for (int j = 0, k = 0; j < count && k < n && st == ORCA_OK; ++j) {
        if (ok[k] == key[j]) {
            d[j] = dk[k++];
            t[j] = point_time(sc, a, i, j, d[j]);
        }
    }
    return st;
}

orca_status orca_sc_choose(const orca_scenario *sc, int worker, const sc_agent *a, int i,
                           orca_vec2 p, double r, const orca_vec2 *avoid, int known,
                           double own, int *chosen)
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
    if (e >= 0 && !sc->choice_reference) {
        if (known == e && own == own) {
            d[e] = own; /* the caller's */
        } else {
            /* an upper bound of its own cost first: often enough to keep its point */
            double upper = 1.0 / 0.0;
            st = own_upper(sc, worker, a, p, r, avoid, penalty, key[e], &upper);
            if (st != ORCA_OK) {
                return st;
            }
            if (keeps(sc, a, i, p, e, key, upper)) {
                *chosen = e;
                return ORCA_OK;
            }
            /* its own point's cost: with a finite time there, the others' costs are needed
             * only below the cost at which they could win (choice_others) */
            st = own_cost(sc, worker, a, p, r, avoid, penalty, key[e], upper, &d[e]);
            if (st != ORCA_OK) {
                return st;
            }
        }
        t[e] = point_time(sc, a, i, e, d[e]);
        if (t[e] < 1.0 / 0.0) {
            return choice_others(sc, worker, a, i, p, r, avoid, e, key, d, t, chosen);
        }
    }
    if (sc->choice_reference) {
        /* every point's cost, uncapped: the rule alone */
        st = orca_nav_field_costs(sc->nav, worker, r, p, key, count, avoid, penalty, NULL, d);
        if (st != ORCA_OK) {
            return st;
        }
        for (int j = 0; j < count; ++j) {
            t[j] = point_time(sc, a, i, j, d[j]);
        }
        if (e >= 0 && t[e] < 1.0 / 0.0) {
            return choice_others(sc, worker, a, i, p, r, avoid, e, key, d, t, chosen);
        }
    } else {
        st = first_costs(sc, worker, a, i, p, r, avoid, e, known, own, key, d, t);
        if (st != ORCA_OK) {
            return st;
        }
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

void orca_sc_set_choice_reference(orca_scenario *sc, int on)
{
    sc->choice_reference = on != 0;
}

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
