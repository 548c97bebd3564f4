/* SPDX-License-Identifier: MIT */
/* The scenario snapshot (docs/scenarios.md, "Snapshots"): orca_scenario_save and
 * orca_scenario_load, the simulation's snapshot plus the scenario's tables. */
#include "fp.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "scenario_internal.h"
#include "snap_io.h"

#define SCS_MAGIC "ORCASCEN"
#define SCS_VERSION 2u   /* 2: the leg check, the exit choice and their counts; 1 still read */
#define SCS_NAV_ON 1u    /* navigation on */
#define SCS_RECORDING 2u /* recording on */
#define SCS_MEASURED 4u  /* the initial state entered the record */
#define SCS_REPLAN 8u    /* the walls navigation last read are not the simulation's: its next
                            navigated step plans every path anew */
#define SCS_NAV_CHECK 16u /* the leg check on (version 2) */
#define SCS_FLAGS 31u
#define SCS_NAME 64      /* a name: its bytes, then zeros */
#define SCS_HEADER 164   /* magic 8, version 4, flags 4, total 8, sim bytes 8, dt 8, seed 8,
                            exited 4, its step 8, all arrived 8, 2 overlaps 16, fallbacks 8,
                            name 64, set count 4, entry count 4 */
#define SCS_HEADER2 (4 + 8 * NAV_RETIRED) /* version 2, after the entry count: exit choice 4,
                                              the retired paths' counts */
#define SCS_SET (SCS_NAME + 4 + 8 + 4) /* then 16 a point */
#define SCS_SET2 8                       /* version 2: capacity 8; then 20 more a point */
#define SCS_POINT2 20                    /* departed 4, the last departure 8, outflow 8 */
#define SCS_ENTRY 60                     /* then the parts */
#define SCS_WAYPOINTS 52                 /* then 16 a point */
#define SCS_NAV 108                      /* then (version 2) SCS_NAV2, then SCS_CORNER a corner */
#define SCS_NAV2 24                      /* replans 4, exit 4, changes 4, returns 4, left 8 */
#define SCS_CORNER 52

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
        return orca_sc_fail(sc, ORCA_ERR_NULL, "size pointer is NULL");
    }
    size_t sim_bytes = 0;
    orca_status st = orca_sim_save(sc->sim, NULL, 0, &sim_bytes);
    if (st != ORCA_OK) {
        return orca_sc_fail_sim(sc, st, "saving the simulation");
    }
    uint64_t need = SCS_HEADER + SCS_HEADER2 + (uint64_t)sim_bytes + 8;
    for (int k = 0; k < sc->set_count; ++k) {
        need += SCS_SET + SCS_SET2 + (16 + SCS_POINT2) * (uint64_t)sc->sets[k].count;
    }
    for (int e = 0; e < sc->agent_count; ++e) {
        const sc_agent *a = &sc->agents[e];
        need += SCS_ENTRY;
        if (a->wp) {
            need += SCS_WAYPOINTS + 16 * (uint64_t)a->wp->count;
        }
        if (a->nv) {
            need += SCS_NAV + SCS_NAV2 + SCS_CORNER * (uint64_t)a->nv->route.count;
        }
    }
    if (need > SIZE_MAX) {
        return orca_sc_fail(sc, ORCA_ERR_LIMIT,
                            "the scenario snapshot would need %llu bytes, more than a size_t holds",
                            (unsigned long long)need);
    }
    *size = (size_t)need;
    if (!buffer) {
        return ORCA_OK;
    }
    if (capacity < (size_t)need) {
        return orca_sc_fail(sc, ORCA_ERR_LIMIT,
                            "scenario snapshot needs %zu bytes, buffer holds %zu", (size_t)need,
                            capacity);
    }
    snap_writer w = {buffer};
    memcpy(w.p, SCS_MAGIC, 8);
    w.p += 8;
    put_u32(&w, SCS_VERSION);
    put_u32(&w, (sc->navigation ? SCS_NAV_ON : 0) | (sc->recording ? SCS_RECORDING : 0) |
                    (sc->measured_initial ? SCS_MEASURED : 0) |
                    (nav_replans(sc) ? SCS_REPLAN : 0) | (sc->nav_check ? SCS_NAV_CHECK : 0));
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
    put_u32(&w, (uint32_t)sc->exit_choice);
    for (int k = 0; k < NAV_RETIRED; ++k) {
        put_u64(&w, (uint64_t)sc->retired[k]);
    }
    (void)orca_sim_save(sc->sim, w.p, sim_bytes, &sim_bytes); /* its size: it cannot fail */
    w.p += sim_bytes;
    for (int k = 0; k < sc->set_count; ++k) {
        const sc_goal_set *s = &sc->sets[k];
        put_name(&w, s->name);
        put_u32(&w, (uint32_t)s->exit);
        put_f64(&w, s->arrive);
        put_u32(&w, (uint32_t)s->count);
        put_f64(&w, s->capacity);
        for (int j = 0; j < s->count; ++j) {
            put_vec(&w, s->points[j]);
            put_u32(&w, (uint32_t)s->departed[j]);
            put_u64(&w, (uint64_t)s->last_departure[j]);
            put_f64(&w, s->flow[j]);
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
            put_u32(&w, sc_nav_planned_word(v));
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
            put_u32(&w, (uint32_t)v->replans);
            put_u32(&w, (uint32_t)v->exit);
            put_u32(&w, (uint32_t)v->exit_changes);
            put_u32(&w, (uint32_t)v->returns);
            put_u64(&w, v->left);
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
    uint32_t version; /* 1 or 2 */
} scs_reader;

static orca_status scs_bad(scs_reader *in, const char *fmt, ...)
{
    char msg[SC_ERROR_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return orca_sc_fail(in->sc, ORCA_ERR_FORMAT, "scenario snapshot, offset %zu: %s",
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

/* Point j of goal set k: its coordinates, and (version 2) its departures and outflow. */
static orca_status get_point(scs_reader *in, sc_goal_set *s, uint32_t k, uint32_t j)
{
    s->points[j] = get_vec(&in->r);
    if (!is_coord(s->points[j])) {
        return scs_bad(in,
                       "goal set %u point %u must have finite coordinates of magnitude below "
                       "2^21, got (%.17g, %.17g)",
                       (unsigned)k, (unsigned)j, s->points[j].x, s->points[j].y);
    }
    s->last_departure[j] = -1;
    if (in->version < 2) {
        return ORCA_OK; /* (no departures counted, no outflow) */
    }
    uint32_t departed = get_u32(&in->r);
    int64_t last = (int64_t)get_u64(&in->r);
    double flow = bits_f64(get_u64(&in->r));
    if (departed > INT_MAX || last < -1 || (departed == 0) != (last == -1) ||
        !(flow >= 0.0 && is_finite(flow))) {
        return scs_bad(in,
                       "goal set %u point %u: departures %u, last departure %lld or outflow "
                       "%.17g out of range",
                       (unsigned)k, (unsigned)j, (unsigned)departed, (long long)last, flow);
    }
    s->departed[j] = (int)departed;
    s->last_departure[j] = last;
    s->flow[j] = flow;
    return ORCA_OK;
}

static orca_status get_sets(scs_reader *in, scs_state *t, uint32_t count)
{
    uint64_t set_bytes = SCS_SET + (in->version >= 2 ? SCS_SET2 : 0);
    uint64_t point_bytes = 16 + (in->version >= 2 ? SCS_POINT2 : 0);
    if (!scs_has(in, (uint64_t)count * set_bytes, "the goal sets")) {
        return ORCA_ERR_FORMAT;
    }
    t->sets = orca_mem_zalloc(count > 0 ? count : 1, sizeof *t->sets);
    sc_goal_set **order = orca_mem_alloc(count > 0 ? count : 1, sizeof *order);
    if (!t->sets || !order) {
        orca_mem_free(order);
        return orca_sc_fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading %u goal sets",
                            (unsigned)count);
    }
    orca_status st = ORCA_OK;
    for (uint32_t k = 0; k < count && st == ORCA_OK; ++k) {
        sc_goal_set *s = &t->sets[k];
        char what[40];
        snprintf(what, sizeof what, "goal set %u name", (unsigned)k);
        if (!scs_has(in, set_bytes, "a goal set")) {
            st = ORCA_ERR_FORMAT;
            break;
        }
        if ((st = get_name(in, s->name, what)) != ORCA_OK) {
            break;
        }
        uint32_t exit = get_u32(&in->r);
        s->arrive = bits_f64(get_u64(&in->r));
        uint32_t n = get_u32(&in->r);
        s->capacity = in->version >= 2 ? bits_f64(get_u64(&in->r)) : ORCA_NAV_EXIT_CAPACITY;
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
        } else if (!(s->capacity >= 0x1p-30 && s->capacity <= 0x1p30)) {
            st = scs_bad(in, "goal set %u: capacity %.17g is not in [2^-30, 2^30]", (unsigned)k,
                         s->capacity);
        } else if (scs_has(in, point_bytes * (uint64_t)n, "a goal set's points")) {
            s->exit = (int)exit;
            s->points = orca_mem_alloc(n, sizeof *s->points);
            s->departed = orca_mem_zalloc(n, sizeof *s->departed);
            s->last_departure = orca_mem_alloc(n, sizeof *s->last_departure);
            s->flow = orca_mem_zalloc(n, sizeof *s->flow);
            t->set_count = (int)k + 1; /* (its arrays are freed with it) */
            if (!s->points || !s->departed || !s->last_departure || !s->flow) {
                st = orca_sc_fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading goal set %u",
                                  (unsigned)k);
                break;
            }
            s->count = (int)n;
            for (uint32_t j = 0; j < n && st == ORCA_OK; ++j) {
                st = get_point(in, s, k, j);
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
        return orca_sc_fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading %u waypoints",
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
    if (!scs_has(in, SCS_NAV + (in->version >= 2 ? SCS_NAV2 : 0),
                 "an entry's navigation state")) {
        return ORCA_ERR_FORMAT;
    }
    sc_nav *v = orca_mem_zalloc(1, sizeof *v);
    if (!v) {
        return orca_sc_fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading a path");
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
    /* version 2: the leg check's and the exit choice's; version 1: none yet, and the point
     * the path ends at its set's point */
    uint32_t replans = 0, changes = 0, returns = 0;
    int32_t exit = -1;
    if (in->version >= 2) {
        replans = get_u32(&in->r);
        exit = (int32_t)get_u32(&in->r);
        changes = get_u32(&in->r);
        returns = get_u32(&in->r);
        v->left = get_u64(&in->r);
    } else if (a->goal.kind == ORCA_GOAL_SET && result == ORCA_NAV_OK) {
        exit = goal;
    }
    int goals = a->goal.kind == ORCA_GOAL_SET ? t->sets[a->goal.goal_set].count : 1;
    if (a->goal.kind != ORCA_GOAL_POINT && a->goal.kind != ORCA_GOAL_SET) {
        return scs_bad(in, "entry %d has a path but goal kind %d", e, (int)a->goal.kind);
    }
    if (planned > 3 || result > ORCA_NAV_GOAL_BLOCKED || has_avoid > 1) {
        return scs_bad(in, "entry %d: path planned %u, result %u or avoid flag %u out of range",
                       e, (unsigned)planned, (unsigned)result, (unsigned)has_avoid);
    }
    if (goal < -1 || goal >= goals) {
        return scs_bad(in, "entry %d: path goal %d must be in [-1, %d)", e, (int)goal, goals);
    }
    if (exit < -1 || exit >= goals || (a->goal.kind != ORCA_GOAL_SET && exit != -1) ||
        replans > plans || changes > plans || returns > changes) {
        return scs_bad(in,
                       "entry %d: path exit %d, replans %u, exit changes %u or returns %u out of "
                       "range",
                       e, (int)exit, (unsigned)replans, (unsigned)changes, (unsigned)returns);
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
            return orca_sc_fail(in->sc, ORCA_ERR_MEMORY,
                                "out of memory reading a path of %u corners", (unsigned)count);
        }
        v->route.cap = (int)count;
    }
    sc_nav_set_planned_word(v, planned); /* (at most 3: checked above) */
    v->route.result = (int)result;
    v->route.goal = goal;
    v->route.count = (int)count;
    v->k = v->prev_k = (int)k;
    v->stuck = v->prev_stuck = (int)stuck;
    v->prev_best = v->best;
    v->has_avoid = (int)has_avoid;
    v->plans = (int)plans;
    v->reroutes = (int)reroutes;
    v->replans = (int)replans;
    v->exit = exit;
    v->exit_changes = (int)changes;
    v->returns = (int)returns;
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
        return orca_sc_fail(in->sc, ORCA_ERR_MEMORY, "out of memory reading %u entries",
                            (unsigned)count);
    }
    t->agent_capacity = cap;
    t->map_size = size;
    for (uint32_t i = 0; i < size; ++i) {
        t->map[i] = -1;
    }
    orca_scenario goals; /* orca_sc_check_goal against the loaded sets */
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
        if (orca_sc_check_goal(&goals, &a->goal) != ORCA_OK) {
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
        if (orca_sc_map_put(t->map, t->map_size, t->agents, a->id, e)) {
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
    orca_sc_free_tables(t->agents, t->agent_count, t->sets, t->set_count);
    orca_mem_free(t->map);
    orca_nav_destroy(t->nav);
}

orca_status orca_scenario_load(orca_scenario *sc, const void *buffer, size_t size)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!buffer) {
        return orca_sc_fail(sc, ORCA_ERR_NULL, "scenario snapshot buffer is NULL");
    }
    const unsigned char *bytes = buffer;
    if (size < SCS_HEADER + 8 || memcmp(bytes, SCS_MAGIC, 8) != 0) {
        return orca_sc_fail(sc, ORCA_ERR_FORMAT,
                            "not an orca scenario snapshot (%zu bytes, bad magic)", size);
    }
    scs_reader in = {{bytes + 8}, bytes, bytes + size - 8, sc, 0};
    uint32_t version = get_u32(&in.r);
    if (version < 1 || version > SCS_VERSION) {
        return orca_sc_fail(sc, ORCA_ERR_FORMAT,
                            "scenario snapshot version %u, this library reads 1 to %u",
                            (unsigned)version, SCS_VERSION);
    }
    in.version = version;
    uint32_t flags = get_u32(&in.r);
    uint64_t total = get_u64(&in.r);
    if (total != size) {
        return orca_sc_fail(sc, ORCA_ERR_FORMAT,
                            "scenario snapshot is %zu bytes, its header says %llu (truncated?)",
                            size, (unsigned long long)total);
    }
    snap_reader tail = {bytes + size - 8};
    if (get_u64(&tail) != checksum(bytes, size - 8)) {
        return orca_sc_fail(sc, ORCA_ERR_FORMAT,
                            "scenario snapshot checksum mismatch (corrupt bytes)");
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
    uint32_t exit_choice = ORCA_EXIT_NEAREST;
    int64_t retired[NAV_RETIRED] = {0};
    if (version >= 2) {
        if (!scs_has(&in, SCS_HEADER2, "the header")) {
            return ORCA_ERR_FORMAT;
        }
        exit_choice = get_u32(&in.r);
        for (int k = 0; k < NAV_RETIRED; ++k) {
            retired[k] = (int64_t)get_u64(&in.r);
            if (retired[k] < 0) {
                return orca_sc_fail(sc, ORCA_ERR_FORMAT,
                                    "scenario snapshot: retired path count %d is negative", k);
            }
        }
    }
    if (exit_choice > ORCA_EXIT_QUICKEST ||
        (version < 2 && (flags & SCS_NAV_CHECK) != 0)) {
        return orca_sc_fail(sc, ORCA_ERR_FORMAT,
                            "scenario snapshot exit choice %u (or leg check flag) not known",
                            (unsigned)exit_choice);
    }
    if ((flags & ~SCS_FLAGS) != 0) {
        return orca_sc_fail(sc, ORCA_ERR_FORMAT, "scenario snapshot flags %u are not known",
                            (unsigned)flags);
    }
    if (!(dt >= ORCA_TIME_MIN && dt <= ORCA_TIME_MAX)) {
        return orca_sc_fail(sc, ORCA_ERR_FORMAT,
                            "scenario snapshot dt %.17g is not in [2^-30, 2^30] s", dt);
    }
    if (exited < 0 || exited_last < 0 || all_arrived < -1) {
        return orca_sc_fail(sc, ORCA_ERR_FORMAT,
                            "scenario snapshot exit count %d, its step %lld or all-arrived "
                            "step %lld out of range",
                            (int)exited, (long long)exited_last, (long long)all_arrived);
    }
    if (!(max_agent >= 0.0 && is_finite(max_agent) && max_wall >= 0.0 && is_finite(max_wall))) {
        return orca_sc_fail(sc, ORCA_ERR_FORMAT,
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
        return orca_sc_fail_sim(sc, st, "scenario snapshot, the simulation");
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
            st = orca_sc_fail(sc, ORCA_ERR_MEMORY,
                              "out of memory reading the walls for navigation");
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
    orca_sc_free_tables(sc->agents, sc->agent_count, sc->sets, sc->set_count);
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
    sc->nav_check = (flags & SCS_NAV_CHECK) != 0;
    sc->exit_choice = (int)exit_choice;
    memcpy(sc->retired, retired, sizeof retired);
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
