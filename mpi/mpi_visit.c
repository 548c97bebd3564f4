/* SPDX-License-Identifier: MIT */
/* Reading a distributed run (docs/mpi.md, "Pictures"): its walls, boundary loops and step
 * length, which every rank holds, and its agents, visited on rank 0 in key order a window of
 * keys at a time (as the hash streams them, mpi_hash.c), so that no rank holds every agent.
 * `orca-mpi run --svg` draws its picture from these. */
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
    int *counts;                    /* counts and displacements, per rank */
    visit_entry *mine, *got, *slot; /* slot: the window's agents by key */
    orca_vec2 *pslot;               /* ... and their points */
    unsigned char *seen;            /* per key of the window: 1 an agent, 2 a point */
} visit_scratch;

static int kept(uint64_t key, uint64_t stride, uint64_t below)
{
    return stride == 0 || (key < below && key % stride == 0);
}

/* Rank 0: the window's entries by key, then visit for each agent in key order. */
static void visit_window(const orca_mpi *m, const visit_scratch *x, int sum, uint64_t base,
                         uint64_t win, orca_mpi_visit_fn *visit, void *context)
{
    memset(x->seen, 0, win);
    for (int k = 0; k < sum; ++k) {
        const visit_entry *e = &x->got[k];
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
            visit(context, &v);
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
    uint64_t keys = stride > 0 && below < m->next_key ? below : m->next_key;
    uint64_t win = keys < VISIT_WINDOW ? (keys > 0 ? keys : 1) : VISIT_WINDOW;
    int root = m->rank == 0;
    visit_scratch x;
    x.counts = malloc(2 * (size_t)m->size * sizeof *x.counts);
    x.mine = malloc(2 * win * sizeof *x.mine); /* a window's agents and points */
    x.got = root ? malloc(2 * win * sizeof *x.got) : NULL;
    x.slot = root ? malloc(win * sizeof *x.slot) : NULL;
    x.pslot = root ? malloc(win * sizeof *x.pslot) : NULL;
    x.seen = root ? malloc(win) : NULL;
    orca_status st = ORCA_OK;
    if (!x.counts || !x.mine || (root && (!x.got || !x.slot || !x.pslot || !x.seen))) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (a pass over the agents)");
    } else if (root && !visit) {
        st = mpi_local_fail(m, ORCA_ERR_NULL, "no visit function on rank 0");
    }
    st = mpi_agree(m, st);
    int *counts = x.counts, *displs = x.counts + m->size;
    int64_t at = 0, pat = 0;
    for (uint64_t w = 0; st == ORCA_OK && w < (keys + win - 1) / win; ++w) {
        uint64_t end = (w + 1) * win;
        int n = 0;
        for (; at < m->own_n && m->own[at].key < end; ++at) {
            const mpi_agent *a = &m->own[at];
            if (kept(a->key, stride, below)) {
                visit_entry *e = &x.mine[n++];
                memset(e, 0, sizeof *e);
                e->key = a->key;
                e->wp_row = a->wp_row;
                e->def = a->def;
                e->goal = a->goal;
            }
        }
        for (; pat < point_count && points[pat].key < end; ++pat) {
            if (points[pat].key >= w * win && kept(points[pat].key, stride, below)) {
                visit_entry *e = &x.mine[n++];
                memset(e, 0, sizeof *e);
                e->key = points[pat].key;
                e->is_point = 1;
                e->wp_row = -1;
                e->def.position = points[pat].point;
            }
        }
        MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, m->comm);
        int sum = 0;
        if (root) {
            for (int r = 0; r < m->size; ++r) {
                displs[r] = sum * (int)sizeof(visit_entry);
                sum += counts[r];
                counts[r] *= (int)sizeof(visit_entry);
            }
        }
        MPI_Gatherv(x.mine, n * (int)sizeof(visit_entry), MPI_BYTE, x.got, counts, displs,
                    MPI_BYTE, 0, m->comm);
        if (root && sum > 0) {
            visit_window(m, &x, sum, w * win, win, visit, context);
        }
    }
    free(x.counts);
    free(x.mine);
    free(x.got);
    free(x.slot);
    free(x.pslot);
    free(x.seen);
    return st;
}
