/* SPDX-License-Identifier: MIT */
/* Reading a distributed run (docs/mpi.md, "Pictures"): its walls, boundary loops and step
 * length, which every rank holds, and its agents and their navigation paths, visited on rank
 * 0 in key order a window of keys at a time (mpi_hash.c's windowed gathers, as the hash
 * streams them), so that no rank holds every agent. `orca-mpi run --svg` draws its picture
 * from these. */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

#define VISIT_WINDOW 16384 /* keys per gather of orca_mpi_visit_agents (rank 0: about 13 MB) */

double orca_mpi_dt(const orca_mpi *m)
{
    return m ? m->def.dt : 0.0;
}

int orca_mpi_segment_count(const orca_mpi *m)
{
    return m ? (int)m->seg_n : 0;
}

orca_status orca_mpi_segment_get(const orca_mpi *m, int index, orca_vec2 *a, orca_vec2 *b)
{
    if (!m || !a || !b) {
        return ORCA_ERR_NULL;
    }
    if (index < 0 || index >= m->seg_n) {
        return ORCA_ERR_ARGUMENT;
    }
    *a = m->seg_a[index];
    *b = m->seg_b[index];
    return ORCA_OK;
}

int orca_mpi_boundary_count(const orca_mpi *m)
{
    return m ? (int)m->bnd_n : 0;
}

int orca_mpi_boundary_get(const orca_mpi *m, int index, orca_vec2 *points, int capacity)
{
    if (!m || index < 0 || index >= m->bnd_n) {
        return -1;
    }
    int32_t at = 0;
    for (int32_t l = 0; l < index; ++l) {
        at += m->bnd_len[l];
    }
    int n = m->bnd_len[index];
    for (int k = 0; k < n && k < capacity && points; ++k) {
        points[k] = m->bnd_pt[at + k];
    }
    return n;
}

/* An agent of a window (with its waypoint row, -1: none), or a point attached to a key
 * (is_point; its position in def). */
typedef struct visit_entry {
    uint64_t key;
    int32_t is_point, wp_row;
    orca_agent_def def;
    orca_goal goal;
} visit_entry;

typedef struct visit_scratch {
    uint64_t win;
    int *counts;                    /* counts and displacements, per rank */
    visit_entry *mine, *got, *slot; /* slot: the window's agents by key */
    orca_vec2 *pslot;               /* ... and their points */
    unsigned char *seen;            /* per key of the window: 1 an agent, 2 a point */
} visit_scratch;

static int kept(uint64_t key, uint64_t stride, uint64_t below)
{
    return stride == 0 || (key < below && key % stride == 0);
}

/* The keys a pass over the agents kept by (stride, below) runs over, and its window. */
static uint64_t pass_keys(const orca_mpi *m, uint64_t stride, uint64_t below, uint64_t *win)
{
    uint64_t keys = stride > 0 && below < m->next_key ? below : m->next_key;
    *win = keys < VISIT_WINDOW ? (keys > 0 ? keys : 1) : VISIT_WINDOW;
    return keys;
}

/* A pass's state: the scratch, what it visits and, on each rank, where its agents and points
 * of the next window start. */
typedef struct visit_pass {
    const orca_mpi *m;
    visit_scratch x;
    uint64_t stride, below;
    const orca_mpi_keyed_point *points;
    int64_t point_count;
    int64_t at, pat;
    orca_mpi_visit_fn *visit;
    void *context;
} visit_pass;

/* mpi_gather's fill: this rank's kept agents of the window's keys, then its points. */
static int visit_fill(void *ctx, uint64_t base, uint64_t end, void *mine)
{
    visit_pass *p = ctx;
    const orca_mpi *m = p->m;
    visit_entry *e = mine;
    int n = 0;
    for (; p->at < m->own_n && m->own[p->at].key < end; ++p->at) {
        const mpi_agent *a = &m->own[p->at];
        if (kept(a->key, p->stride, p->below)) {
            memset(&e[n], 0, sizeof e[n]); /* the padding travels too */
            e[n].key = a->key;
            e[n].wp_row = a->wp_row;
            e[n].def = a->def;
            e[n].goal = a->goal;
            ++n;
        }
    }
    for (; p->pat < p->point_count && p->points[p->pat].key < end; ++p->pat) {
        const orca_mpi_keyed_point *q = &p->points[p->pat];
        if (q->key >= base && kept(q->key, p->stride, p->below)) {
            memset(&e[n], 0, sizeof e[n]);
            e[n].key = q->key;
            e[n].is_point = 1;
            e[n].wp_row = -1;
            e[n].def.position = q->point;
            ++n;
        }
    }
    return n;
}

/* mpi_gather's take, on rank 0: the window's entries by key, then visit for each agent in key
 * order. */
static void visit_take(void *ctx, uint64_t base, const void *got, int sum)
{
    const visit_pass *p = ctx;
    const orca_mpi *m = p->m;
    const visit_scratch *x = &p->x;
    const visit_entry *entries = got;
    uint64_t win = x->win;
    memset(x->seen, 0, win);
    for (int k = 0; k < sum; ++k) {
        const visit_entry *e = &entries[k];
        uint64_t o = e->key - base;
        if (e->is_point) {
            x->pslot[o] = e->def.position;
            x->seen[o] |= 2;
        } else {
            x->slot[o] = *e;
            x->seen[o] |= 1;
        }
    }
    for (uint64_t o = 0; o < win; ++o) {
        if (x->seen[o] & 1) {
            orca_mpi_agent_view v;
            v.key = base + o;
            v.def = x->slot[o].def;
            v.goal = x->slot[o].goal;
            v.waypoints = NULL;
            v.waypoint_count = v.waypoint_loop = 0;
            int32_t k = x->slot[o].wp_row;
            if (k >= 0) {
                /* the goal point after the waypoints, not the current target */
                v.goal.target = m->wp.goal[k];
                v.waypoints = m->wp.pt + m->wp.first[k];
                v.waypoint_count = m->wp.count[k];
                v.waypoint_loop = m->wp.loop[k];
            }
            v.has_point = (x->seen[o] & 2) != 0;
            v.point = v.has_point ? x->pslot[o] : (orca_vec2){0.0, 0.0};
            p->visit(p->context, &v);
        }
    }
}

orca_status orca_mpi_visit_agents(orca_mpi *m, uint64_t stride, uint64_t below,
                                  const orca_mpi_keyed_point *points, int64_t point_count,
                                  orca_mpi_visit_fn *visit, void *context)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    uint64_t win, keys = pass_keys(m, stride, below, &win);
    int root = m->rank == 0;
    visit_pass p = {m, {0}, stride, below, points, point_count, 0, 0, visit, context};
    visit_scratch *x = &p.x;
    x->win = win;
    x->counts = malloc(2 * (size_t)m->size * sizeof *x->counts);
    x->mine = malloc(2 * win * sizeof *x->mine); /* a window's agents and points */
    x->got = root ? malloc(2 * win * sizeof *x->got) : NULL;
    x->slot = root ? malloc(win * sizeof *x->slot) : NULL;
    x->pslot = root ? malloc(win * sizeof *x->pslot) : NULL;
    x->seen = root ? malloc(win) : NULL;
    orca_status st = ORCA_OK;
    if (!x->counts || !x->mine || (root && (!x->got || !x->slot || !x->pslot || !x->seen))) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (a pass over the agents)");
    } else if (root && !visit) {
        st = mpi_local_fail(m, ORCA_ERR_NULL, "no visit function on rank 0");
    }
    st = mpi_agree(m, st);
    if (st == ORCA_OK) {
        mpi_gather g = {.keys = keys, .win = win, .size = sizeof(visit_entry),
                        .counts = x->counts, .mine = x->mine, .got = x->got,
                        .fill = visit_fill, .take = visit_take, .ctx = &p};
        mpi_window_gather(m, &g);
    }
    free(x->counts);
    free(x->mine);
    free(x->got);
    free(x->slot);
    free(x->pslot);
    free(x->seen);
    return st;
}

/* orca_mpi_visit_paths's pass: what it visits, and room for one path's corners. */
typedef struct path_pass {
    const orca_mpi *m;
    uint64_t stride, below;
    int capacity;
    orca_nav_corner *corners;
    orca_mpi_path_fn *visit;
    void *context;
} path_pass;

/* mpi_records' put: a kept agent's navigation state, then its first corners (each zeroed
 * first: its padding travels too). */
static int64_t path_put(void *ctx, const mpi_agent *a, unsigned char *out, size_t cap)
{
    const path_pass *p = ctx;
    if (!kept(a->key, p->stride, p->below)) {
        return -1;
    }
    orca_nav_agent nav;
    mpi_nav_agent(p->m, a, &nav, p->corners, p->capacity);
    int n = nav.corners < p->capacity ? nav.corners : p->capacity;
    size_t need = sizeof nav + (size_t)n * sizeof(orca_nav_corner);
    if (out && cap >= need) {
        memcpy(out, &nav, sizeof nav);
        for (int k = 0; k < n; ++k) {
            orca_nav_corner c;
            memset(&c, 0, sizeof c);
            c.vertex = p->corners[k].vertex;
            c.side = p->corners[k].side;
            c.enter = p->corners[k].enter;
            c.leave = p->corners[k].leave;
            memcpy(out + sizeof nav + (size_t)k * sizeof c, &c, sizeof c);
        }
    }
    return (int64_t)need;
}

/* mpi_records' take, on rank 0: the record back into a state and its corners, visited. */
static void path_take(void *ctx, uint64_t key, const unsigned char *bytes, size_t len)
{
    const path_pass *p = ctx;
    orca_nav_agent nav;
    memcpy(&nav, bytes, sizeof nav);
    memcpy(p->corners, bytes + sizeof nav, len - sizeof nav);
    p->visit(p->context, key, &nav, p->corners);
}

orca_status orca_mpi_visit_paths(orca_mpi *m, uint64_t stride, uint64_t below, int capacity,
                                 orca_mpi_path_fn *visit, void *context)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    orca_status st = ORCA_OK;
    path_pass p = {m, stride, below, capacity, NULL, visit, context};
    if (capacity < 0) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT, "capacity must be >= 0, got %d", capacity);
    } else if (!(p.corners = malloc((size_t)(capacity ? capacity : 1) * sizeof *p.corners))) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (a pass over the paths)");
    } else if (m->rank == 0 && !visit) {
        st = mpi_local_fail(m, ORCA_ERR_NULL, "no visit function on rank 0");
    }
    st = mpi_agree(m, st);
    if (st == ORCA_OK) {
        uint64_t win, keys = pass_keys(m, stride, below, &win);
        mpi_records r = {.keys = keys, .win = win, .put = path_put, .take = path_take,
                         .ctx = &p, .what = "the paths"};
        st = mpi_records_gather(m, &r);
    }
    free(p.corners);
    return st;
}
