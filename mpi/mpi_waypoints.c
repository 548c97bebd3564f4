/* SPDX-License-Identifier: MIT */
/* orca on MPI's waypoints (docs/mpi.md, "Waypoints"): the run's waypoint table, read from the
 * scenario, and each step's switch of every owned agent with waypoints to its next target,
 * with the arithmetic of the one-process step (docs/extensions.md, "Waypoints"). */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"
#include "snap_io.h"

int mpi_wp_table_alloc(mpi_wp_table *t, int32_t n, int64_t points)
{
    size_t rows = (size_t)n + 1;
    memset(t, 0, sizeof *t);
    t->first = malloc(rows * sizeof *t->first);
    t->count = malloc(rows * sizeof *t->count);
    t->loop = malloc(rows * sizeof *t->loop);
    t->arrive = malloc(rows * sizeof *t->arrive);
    t->goal = malloc(rows * sizeof *t->goal);
    t->start = malloc(rows * sizeof *t->start);
    t->pt = malloc(((size_t)points + 1) * sizeof *t->pt);
    if (!t->first || !t->count || !t->loop || !t->arrive || !t->goal || !t->start || !t->pt) {
        mpi_wp_table_free(t);
        return 0;
    }
    t->n = n;
    t->points = points;
    return 1;
}

void mpi_wp_table_free(mpi_wp_table *t)
{
    free(t->first);
    free(t->count);
    free(t->loop);
    free(t->arrive);
    free(t->goal);
    free(t->start);
    free(t->pt);
    memset(t, 0, sizeof *t);
}

/* Whether the points at and prev_at (count and prev_count of them) are the same. */
static int same_points(const orca_vec2 *pts, int64_t at, int64_t prev_at, int32_t count,
                       int32_t prev_count)
{
    return count == prev_count &&
           memcmp(pts + at, pts + prev_at, (size_t)count * sizeof *pts) == 0;
}

orca_status mpi_add_waypoints(orca_mpi *m, const orca_scenario *sc_in, int32_t *row_of)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only read */
    int n = orca_sim_agent_count(sc->sim);
    int32_t rows = 0;
    int64_t points = 0;
    for (int i = 0; i < n; ++i) {
        int e = orca_sc_entry_of(sc, i);
        const sc_waypoints *w = e >= 0 ? sc->agents[e].wp : NULL;
        row_of[i] = w ? rows : -1;
        if (w) {
            rows++;
            points += w->count;
        }
    }
    mpi_wp_table t;
    if (!mpi_wp_table_alloc(&t, rows, points)) {
        return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (waypoints)");
    }
    int64_t at = 0;
    for (int i = 0, k = 0; i < n; ++i) {
        if (row_of[i] < 0) {
            continue;
        }
        const sc_waypoints *w = sc->agents[orca_sc_entry_of(sc, i)].wp;
        memcpy(t.pt + at, w->points, (size_t)w->count * sizeof *t.pt);
        t.first[k] = at;
        t.count[k] = w->count;
        /* an agent of a grid line has its neighbour's route: the points are kept once */
        if (k > 0 && same_points(t.pt, at, t.first[k - 1], w->count, t.count[k - 1])) {
            t.first[k] = t.first[k - 1];
        } else {
            at += w->count;
        }
        t.loop[k] = w->loop;
        t.arrive[k] = w->arrive;
        t.goal[k] = w->goal;
        t.start[k] = w->route_start;
        k++;
    }
    t.points = at;
    mpi_wp_table_free(&m->wp);
    m->wp = t;
    return ORCA_OK;
}

uint64_t mpi_waypoints_digest(uint64_t h, const orca_scenario *sc_in, int i)
{
    orca_scenario *sc = (orca_scenario *)sc_in; /* only read */
    int e = orca_sc_entry_of(sc, i);
    const sc_waypoints *w = e >= 0 ? sc->agents[e].wp : NULL;
    if (!w) {
        return h;
    }
    h = hash_f64(hash_f64(h, w->goal.x), w->goal.y);
    return hash_f64(hash_f64(h, w->route_start.x), w->route_start.y);
}

orca_vec2 mpi_waypoints_target(const orca_mpi *m, int32_t k, int32_t c)
{
    const mpi_wp_table *t = &m->wp;
    return c < t->count[k] ? t->pt[t->first[k] + c] : t->goal[k];
}

/* Where the leg to target c of row k begins: the target before it; for waypoint 0 the goal
 * point on a looping route (the route is a cycle), else the route's start. */
static orca_vec2 leg_start(const orca_mpi *m, int32_t k, int32_t c)
{
    const mpi_wp_table *t = &m->wp;
    if (c > 0) {
        return t->pt[t->first[k] + c - 1];
    }
    return t->loop[k] ? t->goal[k] : t->start[k];
}

void mpi_waypoints_attach(const orca_mpi *m, mpi_agent *a, const orca_scenario *sc_in, int i,
                          int32_t row)
{
    a->wp_row = row;
    a->wp_index = 0;
    if (row < 0) {
        return;
    }
    orca_scenario *sc = (orca_scenario *)sc_in; /* only read */
    a->wp_index = sc->agents[orca_sc_entry_of(sc, i)].wp->index;
    a->goal.target = mpi_waypoints_target(m, row, a->wp_index); /* (the API gives the goal point) */
}

orca_status mpi_waypoints_advance(orca_mpi *m, int *switched)
{
    *switched = 0;
    orca_status st = RESERVE(m, wp_prev, wp_prev_cap, m->own_n + 1);
    if (st != ORCA_OK) {
        return st;
    }
    for (int64_t i = 0; i < m->own_n; ++i) {
        mpi_agent *a = &m->own[i];
        m->wp_prev[i] = a->wp_index;
        int32_t k = a->wp_row;
        if (k < 0 || (a->wp_index == m->wp.count[k] && !m->wp.loop[k])) {
            continue; /* no waypoints, or at the goal point: the plain rule */
        }
        double d = m->wp.arrive[k] != 0.0 ? m->wp.arrive[k] : a->def.radius;
        double dx = a->goal.target.x - a->def.position.x;
        double dy = a->goal.target.y - a->def.position.y;
        double d2 = dx * dx + dy * dy;
        /* passed: the target lies behind the agent along its leg */
        orca_vec2 from = leg_start(m, k, a->wp_index);
        double sx = a->goal.target.x - from.x;
        double sy = a->goal.target.y - from.y;
        if (d2 <= d * d || dx * sx + dy * sy < 0) {
            int32_t next = a->wp_index + 1;
            if (next > m->wp.count[k]) {
                next = 0; /* only with loop: after the goal point, the first waypoint */
            }
            a->wp_index = next;
            a->goal.target = mpi_waypoints_target(m, k, next);
            *switched = 1;
        }
    }
    return ORCA_OK;
}

void mpi_waypoints_restore(orca_mpi *m)
{
    for (int64_t i = 0; i < m->own_n; ++i) {
        mpi_agent *a = &m->own[i];
        if (a->wp_row >= 0 && a->wp_index != m->wp_prev[i]) {
            a->wp_index = m->wp_prev[i];
            a->goal.target = mpi_waypoints_target(m, a->wp_row, a->wp_index);
        }
    }
}

int mpi_waypoints_pending(const orca_mpi *m, const mpi_agent *a)
{
    return a->wp_row >= 0 && (m->wp.loop[a->wp_row] || a->wp_index < m->wp.count[a->wp_row]);
}
