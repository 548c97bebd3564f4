/* SPDX-License-Identifier: MIT */
/* orca on MPI (mpi/include/orca/mpi.h; docs/mpi.md describes every operation). Each rank keeps the
 * agents it owns in key order; a step sends every owned agent to each rank whose own agents
 * can reach it (the box that rank published), merges its own agents and the received ones in
 * key order into a local simulation (so the local index order is the global one restricted to
 * them), steps it, keeps the owned agents' results and hands the agents that left its domain
 * to their new owners. Since an agent's step reads only agents within its neighbour distance,
 * the walls (every rank has every wall) and the order of indices, the owned agents' results
 * are the one-process bits (docs/algorithm.md §11-12). */
#include "mpi_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scenario_rule.h"
#include "sim_peek.h"
#include "snap_io.h"

#define BALANCE_BINS 4096         /* histogram bins of the rebalancing rule */

void mpi_agent_clear(mpi_agent *a)
{
    /* field by field: a record travels as bytes, and a struct assigned whole may leave its
     * padding undefined (valgrind: writev of uninitialised bytes) */
    agent_ext e = orca_ext_defaults();
    memset(a, 0, sizeof *a);
    a->stream = -1;
    a->ext.priority = e.priority;
    a->ext.layers = e.layers;
    a->ext.mask = e.mask;
    a->ext.locked = e.locked;
    a->wp_row = -1;
}

char mpi_create_error[512];

orca_mpi_def orca_mpi_def_default(void)
{
    orca_mpi_def d;
    memset(&d, 0, sizeof d);
    d.dt = 0.25;
    d.seed = 1;
    d.workers = 1;
    d.vector_kernels = 1;
    d.rebalance_every = 50;
    d.record = 1;
    d.diagnostics = 0;
    return d;
}

uint64_t orca_mpi_step_count(const orca_mpi *m)
{
    return m ? m->steps : 0;
}

const char *orca_mpi_last_error(const orca_mpi *m)
{
    return m ? m->error : mpi_create_error;
}

/* --- errors: every rank agrees on the status and the first failing rank's message -------- */

orca_status mpi_local_fail(orca_mpi *m, orca_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->error, sizeof m->error, fmt, ap);
    va_end(ap);
    return st;
}

/* Collective: the status of the lowest failing rank (ORCA_OK when none failed); its message
 * goes to every rank's error, prefixed with the rank. */
orca_status mpi_agree(orca_mpi *m, orca_status st)
{
    int mine = st != ORCA_OK ? m->rank : m->size, first = m->size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, m->comm);
    if (first == m->size) {
        return ORCA_OK;
    }
    int code = (int)st;
    char msg[sizeof m->error];
    if (m->rank == first) {
        snprintf(msg, sizeof msg, "rank %d: %.480s", m->rank, m->error);
    }
    MPI_Bcast(&code, 1, MPI_INT, first, m->comm);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, m->comm);
    memcpy(m->error, msg, sizeof msg);
    return (orca_status)code;
}

/* --- growable arrays --------------------------------------------------------------------- */

int mpi_reserve(void **p, int64_t *cap, int64_t need, size_t size)
{
    if (need <= *cap) {
        return 1;
    }
    int64_t c = *cap > 0 ? *cap : 64;
    while (c < need) {
        c *= 2;
    }
    void *q = realloc(*p, (size_t)c * size);
    if (!q) {
        return 0;
    }
    *p = q;
    *cap = c;
    return 1;
}


/* --- domains ----------------------------------------------------------------------------- */

static double coord(orca_vec2 p, int axis)
{
    return axis ? p.y : p.x;
}

/* The node of the tree whose region holds p and that is not cut (yet, while rebalancing
 * builds the tree; once it is built, the leaf: the domain). */
static int open_node(const orca_mpi *m, orca_vec2 p)
{
    int k = 0;
    while (m->tree[k].lo >= 0) {
        k = coord(p, m->tree[k].axis) < m->tree[k].cut ? m->tree[k].lo : m->tree[k].hi;
    }
    return k;
}

/* The rank whose domain holds p. */
static int owner_of(const orca_mpi *m, orca_vec2 p)
{
    return m->tree[open_node(m, p)].r0;
}

/* A tree that splits the ranks in halves with every cut at 0 (before the first balancing). */
static void default_tree(orca_mpi *m)
{
    m->tree[0] = (dnode){0, 0, 0.0, -1, -1, 0, m->size};
    m->tree_n = 1;
    for (int k = 0; k < m->tree_n; ++k) {
        dnode *d = &m->tree[k];
        if (d->r1 - d->r0 > 1) {
            int mid = d->r0 + (d->r1 - d->r0) / 2;
            d->axis = d->depth & 1;
            d->lo = m->tree_n;
            d->hi = m->tree_n + 1;
            m->tree[m->tree_n++] = (dnode){0, d->depth + 1, 0.0, -1, -1, d->r0, mid};
            m->tree[m->tree_n++] = (dnode){0, d->depth + 1, 0.0, -1, -1, mid, d->r1};
        }
    }
}

/* This rank's domain as a box (x0, y0, x1, y1; infinite where unbounded). */
static void domain_box(const orca_mpi *m, double box[4])
{
    box[0] = box[1] = -HUGE_VAL;
    box[2] = box[3] = HUGE_VAL;
    int k = 0;
    while (m->tree[k].lo >= 0) {
        const dnode *d = &m->tree[k];
        if (m->rank < m->tree[d->lo].r1) {
            box[2 + d->axis] = d->cut;
            k = d->lo;
        } else {
            box[d->axis] = d->cut;
            k = d->hi;
        }
    }
}

/* --- merging lists in key order ---------------------------------------------------------- */

static int64_t merge2(mpi_agent *out, const mpi_agent *a, int64_t na, const mpi_agent *b,
                      int64_t nb)
{
    int64_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        out[k++] = a[i].key < b[j].key ? a[i++] : b[j++];
    }
    while (i < na) {
        out[k++] = a[i++];
    }
    while (j < nb) {
        out[k++] = b[j++];
    }
    return k;
}

/* m->merged = base (sorted, nbase entries) merged with every rank's block of m->recv (each
 * sorted by key); returns the count or -1 when out of memory. */
static int64_t merge_received(orca_mpi *m, const mpi_agent *base, int64_t nbase)
{
    int64_t total = nbase;
    for (int r = 0; r < m->size; ++r) {
        total += m->rcount[r];
    }
    if (RESERVE(m, merged, merged_cap, total) != ORCA_OK ||
        RESERVE(m, tmp, tmp_cap, total) != ORCA_OK) {
        return -1;
    }
    memcpy(m->merged, base, (size_t)nbase * sizeof *base);
    int64_t n = nbase;
    for (int r = 0; r < m->size; ++r) {
        if (m->rcount[r] == 0) {
            continue;
        }
        n = merge2(m->tmp, m->merged, n, m->recv + m->rdispl[r], m->rcount[r]);
        mpi_agent *t = m->merged;
        int64_t tc = m->merged_cap;
        m->merged = m->tmp;
        m->merged_cap = m->tmp_cap;
        m->tmp = t;
        m->tmp_cap = tc;
    }
    return n;
}

/* --- exchange ---------------------------------------------------------------------------- */

/* Collective: sends m->send in blocks by destination (m->scount), receives into m->recv
 * (m->rcount, m->rdispl, in units of agents). Returns the status agreed. */
static orca_status exchange(orca_mpi *m, double *seconds)
{
    double t0 = MPI_Wtime();
    MPI_Alltoall(m->scount, 1, MPI_INT, m->rcount, 1, MPI_INT, m->comm);
    int64_t total = 0;
    for (int r = 0; r < m->size; ++r) {
        m->rdispl[r] = (int)total;
        total += m->rcount[r];
    }
    orca_status st = ORCA_OK;
    if (total > INT32_MAX / (int64_t)sizeof(mpi_agent)) {
        st = mpi_local_fail(m, ORCA_ERR_LIMIT, "a rank would receive %lld agents at once",
                            (long long)total);
    } else {
        st = RESERVE(m, recv, recv_cap, total + 1);
    }
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        *seconds += MPI_Wtime() - t0;
        return st;
    }
    /* counts and displacements in bytes for MPI_BYTE */
    int *sc = m->rdispl + m->size, *sd = sc + m->size, *rc = sd + m->size, *rd = rc + m->size;
    for (int r = 0; r < m->size; ++r) {
        sc[r] = m->scount[r] * (int)sizeof(mpi_agent);
        sd[r] = m->sdispl[r] * (int)sizeof(mpi_agent);
        rc[r] = m->rcount[r] * (int)sizeof(mpi_agent);
        rd[r] = m->rdispl[r] * (int)sizeof(mpi_agent);
    }
    MPI_Alltoallv(m->send, sc, sd, MPI_BYTE, m->recv, rc, rd, MPI_BYTE, m->comm);
    *seconds += MPI_Wtime() - t0;
    return ORCA_OK;
}

/* Collective: hands every owned agent outside this rank's domain to its owner; own stays in key
 * order. */
static orca_status migrate(orca_mpi *m, double *seconds)
{
    if (m->size == 1) {
        return ORCA_OK; /* one domain, the whole plane: no pass over the agents */
    }
    m->local_mirror = 0;
    orca_status st = RESERVE(m, send, send_cap, m->own_n + 1);
    if (st == ORCA_OK) {
        for (int r = 0; r < m->size; ++r) {
            m->scount[r] = 0;
        }
        int64_t first = m->own_n; /* the first agent that leaves: those before it stay put */
        for (int64_t i = 0; i < m->own_n; ++i) {
            int o = owner_of(m, m->own[i].def.position);
            if (o != m->rank) {
                m->scount[o]++;
                first = first < i ? first : i;
            }
        }
        int64_t off = 0;
        for (int r = 0; r < m->size; ++r) {
            m->sdispl[r] = (int)off;
            off += m->scount[r];
        }
        int64_t kept = first;
        int *fill = m->rdispl; /* scratch until exchange overwrites it */
        for (int r = 0; r < m->size; ++r) {
            fill[r] = m->sdispl[r];
        }
        for (int64_t i = first; i < m->own_n; ++i) {
            int o = owner_of(m, m->own[i].def.position);
            if (o == m->rank) {
                m->own[kept++] = m->own[i];
            } else {
                m->send[fill[o]++] = m->own[i];
            }
        }
        m->stats.moved += off;
        m->stats.moved_bytes += off * (int64_t)sizeof(mpi_agent);
        m->own_n = kept;
    }
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        return st;
    }
    if ((st = exchange(m, seconds)) != ORCA_OK) {
        return st;
    }
    if (m->nav && (st = mpi_nav_migrate(m, seconds)) != ORCA_OK) {
        return st;
    }
    int64_t arrived = 0;
    for (int r = 0; r < m->size; ++r) {
        arrived += m->rcount[r];
    }
    /* with none received own is in key order already */
    int64_t n = arrived == 0 ? m->own_n : merge_received(m, m->own, m->own_n);
    st = mpi_agree(m, n < 0 ? ORCA_ERR_MEMORY : ORCA_OK);
    if (st != ORCA_OK || arrived == 0) {
        /* on a failure the agents sent are gone from here and did not arrive there */
        return st;
    }
    mpi_agent *t = m->own;
    int64_t tc = m->own_cap;
    m->own = m->merged;
    m->own_cap = m->merged_cap;
    m->merged = t;
    m->merged_cap = tc;
    m->own_n = n;
    return ORCA_OK;
}

/* An agent's reach: how far from it the agents lie that its step or the overlap record can
 * read. Its step reads only agents within its neighbour distance (algorithm.md §11.2); an
 * overlapping pair is within the sum of its radii, at most the larger agent's diameter, so
 * the owner of the larger one holds the pair. */
static double reach_of(const orca_agent_def *d)
{
    return d->neighbor_dist > 2.0 * d->radius ? d->neighbor_dist : 2.0 * d->radius;
}

/* Collective: every rank publishes the box its owned agents can read, the bounding box of
 * the squares of half-width reach around them (empty with no agents), into m->reach_box;
 * returns this rank's largest reach (0 with no agents). */
static double publish_reach(orca_mpi *m, double *seconds)
{
    double box[4] = {HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL}, widest = 0.0;
    for (int64_t i = 0; i < m->own_n; ++i) {
        const orca_agent_def *d = &m->own[i].def;
        double r = reach_of(d);
        widest = r > widest ? r : widest;
        /* wider than the reach by more than the rounding of the exact test (about 3 ulp of
         * the reach) and of p +- w (an ulp of 2^21 + w; positions below 2^21): an agent
         * sent too many is never read (the exact test decides), one too few would change
         * bits */
        double w = r * (1.0 + 0x1p-30) + 0x1p-28;
        box[0] = d->position.x - w < box[0] ? d->position.x - w : box[0];
        box[1] = d->position.y - w < box[1] ? d->position.y - w : box[1];
        box[2] = d->position.x + w > box[2] ? d->position.x + w : box[2];
        box[3] = d->position.y + w > box[3] ? d->position.y + w : box[3];
    }
    double t0 = MPI_Wtime();
    MPI_Allgather(box, 4, MPI_DOUBLE, m->reach_box, 4, MPI_DOUBLE, m->comm);
    *seconds += MPI_Wtime() - t0;
    return widest;
}

/* Local: m->readers = the other ranks whose reach box meets the bounding box of this rank's
 * agents (the only ones any of them can go to); returns their count. */
static int find_readers(orca_mpi *m)
{
    if (m->own_n == 0) {
        return 0;
    }
    orca_vec2 p = m->own[0].def.position;
    double lo_x = p.x, lo_y = p.y, hi_x = p.x, hi_y = p.y;
    for (int64_t i = 1; i < m->own_n; ++i) {
        p = m->own[i].def.position;
        lo_x = p.x < lo_x ? p.x : lo_x;
        lo_y = p.y < lo_y ? p.y : lo_y;
        hi_x = p.x > hi_x ? p.x : hi_x;
        hi_y = p.y > hi_y ? p.y : hi_y;
    }
    int n = 0;
    for (int r = 0; r < m->size; ++r) {
        const double *b = m->reach_box + 4 * r;
        if (r != m->rank && b[0] <= hi_x && b[2] >= lo_x && b[1] <= hi_y && b[3] >= lo_y) {
            m->readers[n++] = r;
        }
    }
    return n;
}

/* Whether the point p lies in the box b (x0, y0, x1, y1; an empty box holds none). */
static int in_box(const double *b, orca_vec2 p)
{
    return p.x >= b[0] && p.x <= b[2] && p.y >= b[1] && p.y <= b[3];
}

/* Collective: sends the halos (every owned agent to each other rank whose published reach box
 * holds it, publish_reach) and merges own and received agents in key order into m->order
 * (pointers into own and recv). */
static orca_status gather_halo(orca_mpi *m, int64_t *count, double *seconds)
{
    for (int r = 0; r < m->size; ++r) {
        m->scount[r] = 0;
    }
    int nr = find_readers(m);
    for (int64_t i = 0; i < m->own_n; ++i) {
        for (int j = 0; j < nr; ++j) {
            int r = m->readers[j];
            m->scount[r] += in_box(m->reach_box + 4 * r, m->own[i].def.position);
        }
    }
    int64_t off = 0;
    for (int r = 0; r < m->size; ++r) {
        m->sdispl[r] = (int)off;
        off += m->scount[r];
    }
    orca_status st = off > INT32_MAX / (int64_t)sizeof(mpi_agent)
                         ? mpi_local_fail(m, ORCA_ERR_LIMIT, "a rank would send %lld halo agents",
                                          (long long)off)
                         : RESERVE(m, send, send_cap, off + 1);
    if (st == ORCA_OK) {
        int *fill = m->rdispl;
        for (int r = 0; r < m->size; ++r) {
            fill[r] = m->sdispl[r];
        }
        for (int64_t i = 0; i < m->own_n; ++i) {
            for (int j = 0; j < nr; ++j) {
                int r = m->readers[j];
                if (in_box(m->reach_box + 4 * r, m->own[i].def.position)) {
                    m->send[fill[r]++] = m->own[i];
                }
            }
        }
    }
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        return st;
    }
    if ((st = exchange(m, seconds)) != ORCA_OK) {
        return st;
    }
    /* the local list: pointers to the owned agents and the received ones, merged by key
     * (each block is in key order) */
    int64_t total = m->own_n;
    for (int r = 0; r < m->size; ++r) {
        total += m->rcount[r];
    }
    st = RESERVE(m, order, order_cap, total + 1);
    if (st == ORCA_OK) {
        st = RESERVE(m, order_tmp, order_tmp_cap, total + 1);
    }
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        return st;
    }
    int64_t n = m->own_n;
    for (int64_t i = 0; i < n; ++i) {
        m->order[i] = &m->own[i];
    }
    for (int r = 0; r < m->size; ++r) {
        const mpi_agent *b = m->recv + m->rdispl[r];
        int64_t nb = m->rcount[r], i = 0, j = 0, k = 0;
        if (nb == 0) {
            continue;
        }
        while (i < n && j < nb) {
            m->order_tmp[k++] = m->order[i]->key < b[j].key ? m->order[i++] : &b[j++];
        }
        while (i < n) {
            m->order_tmp[k++] = m->order[i++];
        }
        while (j < nb) {
            m->order_tmp[k++] = &b[j++];
        }
        const mpi_agent **t = m->order;
        int64_t tc = m->order_cap;
        m->order = m->order_tmp;
        m->order_cap = m->order_tmp_cap;
        m->order_tmp = t;
        m->order_tmp_cap = tc;
        n = k;
    }
    m->stats.halo_sum += n - m->own_n;
    m->stats.halo_bytes += (n - m->own_n) * (int64_t)sizeof(mpi_agent);
    *count = n;
    return ORCA_OK;
}

/* Local: a new local simulation with the walls (at the first step, and after a wall was
 * added). Later steps reuse it: its agents are removed and the new local list added, which
 * keeps its arrays (no page faults for a new simulation's memory each step). */
static orca_status new_local(orca_mpi *m)
{
    orca_sim_destroy(m->local);
    m->local = NULL;
    orca_sim_def sd = orca_sim_def_default();
    sd.worker_count = m->def.workers;
    orca_status st = orca_sim_create(&sd, &m->local);
    if (st != ORCA_OK) {
        m->local = NULL;
        return mpi_local_fail(m, st, "out of memory (a local simulation)");
    }
    orca_sim_set_vector_kernels(m->local, m->def.vector_kernels);
    if (m->def.diagnostics && (st = orca_sim_set_diagnostics(m->local, 1)) != ORCA_OK) {
        return mpi_local_fail(m, st, "%s", orca_sim_last_error(m->local));
    }
    for (int32_t k = 0; k < m->seg_n; ++k) {
        if ((st = orca_sim_add_segment(m->local, m->seg_a[k], m->seg_b[k], NULL)) != ORCA_OK) {
            return mpi_local_fail(m, st, "%s", orca_sim_last_error(m->local));
        }
    }
    for (int32_t l = 0, at = 0; l < m->bnd_n; at += m->bnd_len[l++]) {
        if ((st = orca_sim_add_boundary(m->local, m->bnd_pt + at, m->bnd_len[l], NULL)) !=
            ORCA_OK) {
            return mpi_local_fail(m, st, "%s", orca_sim_last_error(m->local));
        }
    }
    const mpi_options *o = &m->opt;
    if ((o->separation && (st = orca_sim_set_separation(m->local, 1)) != ORCA_OK) ||
        (o->density_on && (st = orca_sim_set_density_speed(m->local, &o->density)) != ORCA_OK) ||
        (o->ped_on && (st = orca_sim_set_pedestrian(m->local, &o->ped)) != ORCA_OK)) {
        return mpi_local_fail(m, st, "%s", orca_sim_last_error(m->local));
    }
    return ORCA_OK;
}

/* The owned index of a local list entry, or -1 for a halo agent. */
static int64_t owned_index(const orca_mpi *m, const mpi_agent *a)
{
    return a >= m->own && a < m->own + m->own_n ? (int64_t)(a - m->own) : -1;
}

/* Collective: the local list (docs/mpi.md, the step's 1-3), n agents in key order: the owned
 * agents and the halo received (*w: this rank's largest reach, publish_reach), or on a single
 * rank, which has no halo, its owned agents themselves (no pass over them; *w = 0). */
static orca_status local_list(orca_mpi *m, double *w, int64_t *n, double *seconds)
{
    m->local_own = m->size == 1;
    if (m->local_own) {
        *w = 0.0;
        *n = m->own_n;
        return ORCA_OK;
    }
    *w = publish_reach(m, seconds);
    return gather_halo(m, n, seconds);
}

/* Entry i of the local list. */
static const mpi_agent *local_agent(const orca_mpi *m, int64_t i)
{
    return m->local_own ? &m->own[i] : m->order[i];
}

/* The scenario rule's preferred velocity of agent a (step_hash: orca_rule_step_hash's for
 * step m->steps). */
static orca_vec2 rule_of(const orca_mpi *m, const mpi_agent *a, uint64_t step_hash)
{
    return orca_rule_velocity(&a->goal, a->def.position, m->def.dt, step_hash, a->rule_key);
}

/* Local: the local simulation holds the local list's n agents in that order, each with its
 * search hint from its last step (its owner's), as a one-process run keeps them from step to
 * step; m->owned[0 .. n) says which are owned; with rule, the owned agents' preferred
 * velocities are the scenario rule's for step m->steps. A trusted bulk refill
 * (orca_agents_refill), not a removal and an addition of every agent: every value was checked
 * when it entered the run or comes from a step that checked it (docs/mpi.md, "The refill"),
 * so none is checked again. On one rank, where the last step left the local simulation
 * holding own's agents and values (local_mirror), nothing is written (the last step wrote
 * the rule's values already: local_ruled). */
static orca_status fill_local(orca_mpi *m, int64_t n, int rule)
{
    int mirror = m->local_mirror && m->local_own && !m->local_stale && m->local &&
                 n == orca_sim_agent_count(m->local);
    m->local_mirror = 0; /* until the agents are its again (a refused step keeps own's) */
    if (n > INT32_MAX) {
        return mpi_local_fail(m, ORCA_ERR_LIMIT, "%lld agents on one rank", (long long)n);
    }
    orca_status st = RESERVE(m, owned, owned_cap, n + 1);
    if (st != ORCA_OK) {
        return st;
    }
    /* with the pedestrian model the neighbours' stored preferred velocities are read (its
     * headways and streams): the rule's values go to the step through rule_pref */
    int ped = m->opt.ped_on;
    if (ped && (st = RESERVE(m, rule_pref, rule_pref_cap, n + 1)) != ORCA_OK) {
        return st;
    }
    orca_vec2 *to = ped ? m->rule_pref : NULL;
    uint64_t sh = orca_rule_step_hash(m->def.seed, m->steps);
    if (mirror) {
        memset(m->owned, 1, (size_t)n);
        if (rule && !m->local_ruled) {
            orca_vec2 *out = ped ? to : m->local->pref;
            for (int64_t i = 0; i < n; ++i) {
                out[i] = rule_of(m, &m->own[i], sh);
            }
            m->local_ruled = 1;
        }
        m->local_mirror = !rule; /* the rule's values are own's only after the step */
        return ORCA_OK;
    }
    if (m->local_stale || !m->local) {
        if ((st = new_local(m)) != ORCA_OK) {
            return st;
        }
        m->local_stale = 0;
    }
    orca_sim *s = m->local;
    if ((st = orca_agents_refill(s, (int32_t)n)) != ORCA_OK) {
        return mpi_local_fail(m, st, "%s", orca_sim_last_error(s));
    }
    for (int64_t i = 0; i < n; ++i) {
        const mpi_agent *a = local_agent(m, i);
        int own = m->local_own || owned_index(m, a) >= 0;
        m->owned[i] = (unsigned char)own;
        orca_agent_store(s, (int32_t)i, &a->def);
        s->par[i].nb_guess = a->hint;
        if ((!orca_ext_is_default(&a->ext) && !orca_ext_store(s, (int32_t)i, &a->ext)) ||
            (a->stream >= 0 && !orca_stream_store(s, (int32_t)i, a->stream))) {
            return mpi_local_fail(m, ORCA_ERR_MEMORY,
                                  "out of memory (avoidance settings, streams)");
        }
        if (rule && own) {
            *(ped ? &to[i] : &s->pref[i]) = rule_of(m, a, sh);
        } else if (ped) {
            to[i] = a->def.preferred_velocity; /* a halo copy's: never applied */
        }
    }
    m->local_mirror = m->local_own && !rule;
    m->local_ruled = 0;
    return ORCA_OK;
}

/* Local: the deepest overlaps of the local state into the record. */
static orca_status measure(orca_mpi *m)
{
    double ao = 0.0, wo = 0.0;
    orca_status st = orca_sim_measure_overlap(m->local, &ao, &wo);
    if (st != ORCA_OK) {
        return mpi_local_fail(m, st, "%s", orca_sim_last_error(m->local));
    }
    if (ao > m->agent_overlap) {
        m->agent_overlap = ao;
    }
    if (wo > m->wall_overlap) {
        m->wall_overlap = wo;
    }
    return ORCA_OK;
}

/* Local: the message of a refused local step. A refused new velocity (an owned agent's: see
 * step_check) names the agent by its order key (the library's message numbers the agents of
 * the local simulation, which mean nothing outside this rank). */
static orca_status local_step_fail(orca_mpi *m, orca_status st, int64_t n)
{
    /* a refused new velocity is the step's only ORCA_ERR_LIMIT, and sets bad_agent */
    int b = atomic_load(&m->local->bad_agent);
    if (st != ORCA_ERR_LIMIT || b < 0 || b >= n) {
        return mpi_local_fail(m, st, "%s", orca_sim_last_error(m->local));
    }
    return mpi_local_fail(m, st, "the agent with key %llu (local index %d): %s",
                          (unsigned long long)local_agent(m, b)->key, b,
                          orca_sim_last_error(m->local));
}

/* Local: each owned agent takes its new position and velocity, its preferred velocity (the
 * step keeps the ones it was given: the rule's) and its search hint from the local
 * simulation (the step's 6). On one rank the local simulation then holds own's agents for the
 * next step (local_mirror), and the same pass writes the rule's preferred velocities for the
 * next step into it (from the new positions: local_ruled), while the agents' entries are at
 * hand, instead of another pass over them before that step. */
static void keep(orca_mpi *m, int64_t n)
{
    orca_vec2 *pos = m->local->pos, *vel = m->local->vel, *pref = m->local->pref;
    const agent_params *par = m->local->par;
    if (!m->local_own) {
        for (int64_t i = 0; i < n; ++i) {
            int64_t k = owned_index(m, m->order[i]);
            if (k >= 0) {
                mpi_agent *o = &m->own[k];
                o->def.position = pos[i];
                o->def.velocity = vel[i];
                o->def.preferred_velocity = pref[i];
                o->hint = par[i].nb_guess;
            }
        }
        return;
    }
    uint64_t sh = orca_rule_step_hash(m->def.seed, m->steps + 1);
    /* with goal sets the next step moves the targets first (sets_pass), so its rule runs in
     * fill_local (with navigation in mpi_nav_pass); with the pedestrian model the rule's
     * values go to rule_pref (the stored preferred velocities stay for the model to read) */
    int ahead = m->set_n == 0 && !m->nav; /* navigation's pass computes the rule */
    orca_vec2 *out = m->opt.ped_on ? m->rule_pref : pref;
    for (int64_t i = 0; i < n; ++i) {
        mpi_agent *o = &m->own[i];
        o->def.position = pos[i];
        o->def.velocity = vel[i];
        o->def.preferred_velocity = pref[i];
        o->hint = par[i].nb_guess;
        if (ahead) {
            out[i] = rule_of(m, o, sh);
        }
    }
    m->local_mirror = 1;
    m->local_ruled = ahead;
}

/* --- the step ---------------------------------------------------------------------------- */

/* The point of goal set k nearest to p: the least squared distance, the lowest index on a tie
 * (the scenario's own arithmetic, docs/navigation.md, "Shared goals"). */
static orca_vec2 nearest_point(const orca_mpi *m, int k, orca_vec2 p)
{
    const orca_vec2 *pt = m->set_pt + m->set_first[k];
    int best = 0;
    double bd = 0.0;
    for (int j = 0; j < m->set_count[k]; ++j) {
        double dx = pt[j].x - p.x, dy = pt[j].y - p.y;
        double dd = dx * dx + dy * dy;
        if (j == 0 || dd < bd) {
            bd = dd;
            best = j;
        }
    }
    return pt[best];
}

/* Whether owned agent a is at its exit: heading for an exit set and within its arrive
 * distance (its radius for 0) of the point it heads for. */
static int at_exit(const orca_mpi *m, const mpi_agent *a)
{
    if (a->goal.kind != ORCA_GOAL_SET || !m->set_exit[a->goal.goal_set]) {
        return 0;
    }
    double d = m->set_arrive[a->goal.goal_set] > 0 ? m->set_arrive[a->goal.goal_set]
                                                    : a->def.radius;
    double dx = a->goal.target.x - a->def.position.x, dy = a->goal.target.y - a->def.position.y;
    return sqrt(dx * dx + dy * dy) <= d;
}

/* The point of its exit set that owned agent a leaves by (the scenario's leaving_point,
 * src/scenario_sets.c): the point its path ends at when that is its target, else the first
 * point equal to its target. */
static int32_t leaving_point(const orca_mpi *m, const mpi_agent *a)
{
    int32_t k = a->goal.goal_set, count = m->set_count[k];
    const orca_vec2 *pt = m->set_pt + m->set_first[k];
    int g = mpi_nav_route_goal(a);
    if (g >= 0 && g < count && memcmp(&pt[g], &a->goal.target, sizeof pt[g]) == 0) {
        return g;
    }
    for (int32_t j = 0; j < count; ++j) {
        if (memcmp(&pt[j], &a->goal.target, sizeof pt[j]) == 0) {
            return j;
        }
    }
    return 0; /* (a target is always one of its set's points) */
}

/* Local, first in a step with goal sets (the scenario's order, docs/scenarios.md, "The step"):
 * the owned agents at their exits leave (removed; own stays in key order, so the one-process
 * index order of the others is kept), then every agent heading for a set takes the set's
 * point nearest to where it stands as its target. */
static void sets_pass(orca_mpi *m)
{
    int64_t keep = 0, left = 0, *step_left = m->nav ? mpi_nav_step_left(m) : NULL;
    for (int64_t i = 0; i < m->own_n; ++i) {
        if (at_exit(m, &m->own[i])) {
            left++;
            int32_t j = m->set_first[m->own[i].goal.goal_set] + leaving_point(m, &m->own[i]);
            m->set_left[j]++;
            m->set_last[j] = (int64_t)m->steps;
            if (step_left) {
                step_left[j]++;
            }
            if (m->nav) {
                mpi_nav_drop(m, &m->own[i]);
            }
            continue;
        }
        m->own[keep++] = m->own[i];
    }
    if (left > 0) {
        m->own_n = keep;
        m->exited += left;
        m->exited_last_step = (int64_t)m->steps;
        m->local_mirror = 0; /* own changed */
    }
    m->local_ruled = 0; /* the targets move: the rule runs after them (fill_local) */
    for (int64_t i = 0; i < m->own_n && !m->nav; ++i) { /* (navigation's plans choose) */
        mpi_agent *a = &m->own[i];
        if (a->goal.kind == ORCA_GOAL_SET) {
            a->goal.target = nearest_point(m, a->goal.goal_set, a->def.position);
        }
    }
}

/* The step's rule with the pedestrian model: the preferred velocities fill_local put in
 * rule_pref (orca_step_rule_fn). */
static void rule_values(void *context, const int32_t *index, int32_t first,
                        const orca_vec2 *position, int count, const orca_vec2 *current,
                        orca_vec2 *out)
{
    (void)position;
    (void)current;
    const orca_mpi *m = context;
    for (int j = 0; j < count; ++j) {
        int32_t i = index ? index[j] : first + j;
        out[i] = m->rule_pref[i];
    }
}

orca_status orca_mpi_step(orca_mpi *m)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    double t0 = MPI_Wtime(), comm = 0.0, w = 0.0;
    if (m->set_n > 0) {
        sets_pass(m);
        if (m->nav && mpi_nav_step_left(m)) {
            mpi_nav_flows(m); /* (collective: the exits' outflows, every rank's leavers) */
        }
    }
    orca_status st = ORCA_OK;
    if (m->wp.n > 0) {
        /* waypoints (docs/mpi.md, "Waypoints"): the next targets, before the rule reads them;
         * a switch moves a target, so a rule the last step computed ahead is stale */
        int switched = 0;
        st = mpi_waypoints_advance(m, &switched);
        if (switched) {
            m->local_ruled = 0;
        }
        st = mpi_agree(m, st);
        if (st != ORCA_OK) {
            return st;
        }
    }
    int64_t n = 0;
    st = local_list(m, &w, &n, &comm);
    if (st != ORCA_OK) {
        if (m->wp.n > 0) {
            mpi_waypoints_restore(m);
        }
        return st;
    }
    /* the rule for the owned agents (the halo agents' preferred velocities are not read);
     * with navigation its pass computes them */
    st = fill_local(m, n, !m->nav);
    int agreed = 0; /* 1: every rank refused already, the message naming the rank */
    if (m->nav) {
        st = mpi_nav_pass(m, n, st, &agreed);
    }
    if (st == ORCA_OK && m->def.record) {
        st = measure(m);
    }
    double ts = MPI_Wtime();
    if (st == ORCA_OK) {
        /* only the owned agents' new velocities can refuse the step: a halo copy may lack
         * some of its own neighbours, and its rank checks the real one */
        m->local->step_check = m->owned;
        st = m->opt.ped_on ? orca_sim_step_rule(m->local, m->def.dt, rule_values, m)
                           : orca_sim_step(m->local, m->def.dt);
        if (st != ORCA_OK) {
            local_step_fail(m, st, n);
        }
        m->local->step_check = NULL;
    }
    m->stats.solve_seconds += MPI_Wtime() - ts;
    /* the owned agents' fallbacks (step_check keeps a halo copy's out of the count: its own
     * rank counts it), so the sum over the ranks is one process's count */
    int64_t fb = st == ORCA_OK ? orca_sim_last_fallback_count(m->local) : 0;
    double ta = MPI_Wtime();
    st = agreed ? st : mpi_agree(m, st);
    comm += MPI_Wtime() - ta;
    if (st != ORCA_OK) {
        if (m->nav) {
            mpi_nav_restore(m); /* the progress only: plans made are kept */
        }
        m->stats.step_seconds += MPI_Wtime() - t0;
        m->stats.comm_seconds += comm;
        if (m->wp.n > 0) {
            mpi_waypoints_restore(m);
        }
        return st; /* nothing owned changed (the waypoints' switches put back) but the paths'
                      plans */
    }
    orca_agents_settle(m->local);
    keep(m, n);
    m->fallbacks += fb;
    m->steps++;
    m->stats.steps++;
    m->stats.owned_sum += m->own_n;
    st = migrate(m, &comm);
    if (st == ORCA_OK && m->def.rebalance_every > 0 &&
        m->steps % (uint64_t)m->def.rebalance_every == 0) {
        double tb = MPI_Wtime();
        st = orca_mpi_rebalance(m);
        comm += MPI_Wtime() - tb; /* rebalancing is all communication but a histogram */
    }
    m->stats.halo_width = w;
    m->stats.step_seconds += MPI_Wtime() - t0;
    m->stats.comm_seconds += comm;
    return st;
}

/* --- rebalancing ------------------------------------------------------------------------- */

orca_status orca_mpi_rebalance(orca_mpi *m)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    double comm = 0.0;
    if (m->size == 1) {
        return ORCA_OK;
    }
    /* Recursive bisection by count, a level at a time: every node of the level that covers
     * more than one rank is cut across the longer extent of its agents (x on a tie), at a
     * histogram bin edge, so that its lower half of the ranks gets its share of the node's
     * agents. Cutting across the longer side keeps domains as square as the crowd allows: a
     * long corridor is cut into lengths, not lengthwise, and the halos stay small. */
    int *slot = malloc((size_t)(2 * m->size) * sizeof *slot);
    double *mm = malloc((size_t)(8 * m->size) * sizeof *mm);
    size_t hist_cap = (size_t)(256 * m->size > 32768 ? 256 * m->size : 32768);
    long long *hist = calloc(2 * hist_cap, sizeof *hist);
    orca_status st = slot && mm && hist ? ORCA_OK
                                        : mpi_local_fail(m, ORCA_ERR_MEMORY,
                                                         "out of memory (balancing)");
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        free(slot);
        free(mm);
        free(hist);
        return st;
    }
    m->tree[0] = (dnode){0, 0, 0.0, -1, -1, 0, m->size};
    m->tree_n = 1;
    for (;;) {
        /* the open nodes to cut at this level */
        int np = 0;
        for (int k = 0; k < m->tree_n; ++k) {
            const dnode *d = &m->tree[k];
            slot[k] = d->lo < 0 && d->r1 - d->r0 > 1 ? np++ : -1;
        }
        if (np == 0) {
            break;
        }
        /* 4,096 bins per node while few nodes are cut at once, fewer (at least 256) for many */
        int bins = np <= 8 ? BALANCE_BINS : 32768 / np > 256 ? 32768 / np : 256;
        /* the extent of each open node's agents along x and y (entries 2 j and 2 j + 1) */
        double *lo = mm, *nhi = mm + 2 * np, *glo = mm + 4 * np, *gnhi = mm + 6 * np;
        for (int j = 0; j < 2 * np; ++j) {
            lo[j] = nhi[j] = HUGE_VAL;
        }
        for (int64_t i = 0; i < m->own_n; ++i) {
            int k = open_node(m, m->own[i].def.position);
            int j = slot[k];
            for (int axis = 0; j >= 0 && axis < 2; ++axis) {
                double c = coord(m->own[i].def.position, axis);
                lo[2 * j + axis] = c < lo[2 * j + axis] ? c : lo[2 * j + axis];
                nhi[2 * j + axis] = -c < nhi[2 * j + axis] ? -c : nhi[2 * j + axis];
            }
        }
        MPI_Allreduce(mm, glo, 4 * np, MPI_DOUBLE, MPI_MIN, m->comm);
        /* each open node's axis, then its extent along it in entry j */
        for (int k = 0; k < m->tree_n; ++k) {
            int j = slot[k];
            if (j < 0) {
                continue;
            }
            double ex = -gnhi[2 * j] - glo[2 * j], ey = -gnhi[2 * j + 1] - glo[2 * j + 1];
            int axis = glo[2 * j] < HUGE_VAL ? ey > ex : m->tree[k].depth & 1; /* no agents */
            m->tree[k].axis = axis;
            glo[j] = glo[2 * j + axis]; /* j <= 2 j: entries below j are final already */
            gnhi[j] = gnhi[2 * j + axis];
        }
        long long *h = hist, *gh = hist + hist_cap;
        memset(h, 0, (size_t)np * (size_t)bins * sizeof *h);
        for (int64_t i = 0; i < m->own_n; ++i) {
            int k = open_node(m, m->own[i].def.position);
            int j = slot[k];
            if (j >= 0 && glo[j] < -gnhi[j]) {
                double c = coord(m->own[i].def.position, m->tree[k].axis);
                double b = (c - glo[j]) * ((double)bins / (-gnhi[j] - glo[j]));
                int bin = b >= bins ? bins - 1 : (int)b;
                h[(size_t)j * (size_t)bins + (size_t)bin]++;
            }
        }
        MPI_Allreduce(h, gh, np * bins, MPI_LONG_LONG, MPI_SUM, m->comm);
        int n0 = m->tree_n;
        for (int k = 0; k < n0; ++k) {
            int j = slot[k];
            if (j < 0) {
                continue;
            }
            dnode *d = &m->tree[k];
            int mid = d->r0 + (d->r1 - d->r0) / 2;
            double a = glo[j], b = -gnhi[j];
            if (!(a < b)) {
                d->cut = a < HUGE_VAL ? a : 0.0; /* no agents, or all at one coordinate */
            } else {
                const long long *all = gh + (size_t)j * (size_t)bins;
                long long total = 0;
                for (int q = 0; q < bins; ++q) {
                    total += all[q];
                }
                long long want =
                    (long long)((double)total * (double)(mid - d->r0) / (double)(d->r1 - d->r0));
                long long cum = 0;
                int q = 0;
                while (q < bins && cum + all[q] <= want) {
                    cum += all[q++];
                }
                /* the bin edge nearer the target count */
                if (q < bins && want - cum > cum + all[q] - want) {
                    cum += all[q++];
                }
                double scale = (double)bins / (b - a);
                d->cut = q >= bins ? b + 1.0 : a + (double)q / scale;
            }
            d->lo = m->tree_n;
            d->hi = m->tree_n + 1;
            m->tree[m->tree_n++] = (dnode){0, d->depth + 1, 0.0, -1, -1, d->r0, mid};
            m->tree[m->tree_n++] = (dnode){0, d->depth + 1, 0.0, -1, -1, mid, d->r1};
        }
    }
    free(slot);
    free(mm);
    free(hist);
    return migrate(m, &comm);
}

/* --- creation ---------------------------------------------------------------------------- */

static void free_all(orca_mpi *m)
{
    if (!m) {
        return;
    }
    mpi_nav_destroy(m); /* (before the local simulation its graph reads) */
    orca_sim_destroy(m->local);
    free(m->own);
    free(m->tree);
    free(m->reach_box);
    free(m->readers);
    free(m->seg_a);
    free(m->seg_b);
    free(m->send);
    free(m->recv);
    free(m->merged);
    free(m->tmp);
    free(m->scount);
    free(m->order);
    free(m->order_tmp);
    free(m->owned);
    free(m->rule_pref);
    free(m->bnd_len);
    free(m->bnd_pt);
    mpi_sets_free(m);
    mpi_wp_table_free(&m->wp);
    free(m->wp_prev);
    if (m->comm != MPI_COMM_NULL) {
        MPI_Comm_free(&m->comm);
    }
    free(m);
}

void orca_mpi_destroy(orca_mpi *m)
{
    free_all(m);
}

/* Checks the def on this rank; 0 and the message in mpi_create_error when bad. */
static int def_ok(const orca_mpi_def *d)
{
    if (!(d->dt >= 0x1p-30 && d->dt <= 0x1p20)) {
        snprintf(mpi_create_error, sizeof mpi_create_error,
                 "dt must be in [2^-30, 2^20] s, got %.17g", d->dt);
        return 0;
    }
    if (d->workers < 1 || d->workers > ORCA_MAX_WORKERS) {
        snprintf(mpi_create_error, sizeof mpi_create_error, "workers must be in [1, %d], got %d",
                 ORCA_MAX_WORKERS, d->workers);
        return 0;
    }
    if (d->rebalance_every < 0) {
        snprintf(mpi_create_error, sizeof mpi_create_error, "rebalance_every must be >= 0, got %d",
                 d->rebalance_every);
        return 0;
    }
    if ((d->record != 0 && d->record != 1) || (d->diagnostics != 0 && d->diagnostics != 1) ||
        (d->vector_kernels != 0 && d->vector_kernels != 1)) {
        snprintf(mpi_create_error, sizeof mpi_create_error,
                 "record, diagnostics and vector_kernels must be 0 or 1, got %d, %d, %d",
                 d->record, d->diagnostics, d->vector_kernels);
        return 0;
    }
    return 1;
}

/* Collective: 1 on every rank when ok holds on every rank; else the first failing rank's
 * mpi_create_error on every rank. */
int mpi_agree_create(MPI_Comm comm, int ok)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = ok ? size : rank, first = size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) {
        return 1;
    }
    char msg[sizeof mpi_create_error];
    if (rank == first) {
        snprintf(msg, sizeof msg, "rank %d: %.480s", rank, mpi_create_error);
    }
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, comm);
    memcpy(mpi_create_error, msg, sizeof msg);
    return 0;
}

/* Collective: an identifier for a new run, rank 0's, from its clock and an address (not
 * state: it only tells one run's checkpoint parts from another's). */
static uint64_t new_run_id(MPI_Comm comm)
{
    uint64_t id = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    id ^= (uint64_t)(uintptr_t)&id;
    for (int k = 0; k < 2; ++k) { /* splitmix64's output function, twice */
        id = (id ^ (id >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        id = (id ^ (id >> 27)) * UINT64_C(0x94D049BB133111EB);
        id ^= id >> 31;
    }
    MPI_Bcast(&id, 1, MPI_UINT64_T, 0, comm);
    return id;
}

orca_status orca_mpi_create(MPI_Comm comm, const orca_mpi_def *def, orca_mpi **out)
{
    if (!out) {
        return ORCA_ERR_NULL;
    }
    *out = NULL;
    mpi_create_error[0] = '\0';
    orca_mpi_def d = def ? *def : orca_mpi_def_default();
    int ok = def_ok(&d);
    /* the same def everywhere: compare with rank 0's bytes of the fields that matter */
    double mine[6] = {d.dt, (double)(d.seed >> 32), (double)(d.seed & 0xffffffffu),
                      (double)d.rebalance_every, (double)d.record, (double)d.diagnostics};
    double root[6];
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, 6, MPI_DOUBLE, 0, comm);
    if (ok && memcmp(root, mine, sizeof root) != 0) {
        snprintf(mpi_create_error, sizeof mpi_create_error,
                 "the definition (dt, seed, rebalance_every, record, diagnostics) differs "
                 "from rank 0's");
        ok = 0;
    }
    orca_mpi *m = NULL;
    if (ok) {
        m = calloc(1, sizeof *m);
        if (m) {
            m->comm = MPI_COMM_NULL;
            m->exited_last_step = -1;
        } else {
            snprintf(mpi_create_error, sizeof mpi_create_error, "out of memory");
            ok = 0;
        }
    }
    if (ok) {
        MPI_Comm_rank(comm, &m->rank);
        MPI_Comm_size(comm, &m->size);
        m->def = d;
        /* scount, sdispl, rcount, rdispl, then the exchange's four byte arrays */
        m->scount = malloc(8 * (size_t)m->size * sizeof *m->scount);
        m->tree = malloc((size_t)(2 * m->size) * sizeof *m->tree);
        m->reach_box = malloc(4 * (size_t)m->size * sizeof *m->reach_box);
        m->readers = malloc((size_t)m->size * sizeof *m->readers);
        orca_sim_def sd = orca_sim_def_default();
        sd.worker_count = d.workers;
        if (!m->scount || !m->tree || !m->reach_box || !m->readers ||
            orca_sim_create(&sd, &m->local) != ORCA_OK) {
            snprintf(mpi_create_error, sizeof mpi_create_error, "out of memory");
            ok = 0;
        } else {
            m->sdispl = m->scount + m->size;
            m->rcount = m->sdispl + m->size;
            m->rdispl = m->rcount + m->size;
            default_tree(m);
            orca_sim_set_vector_kernels(m->local, d.vector_kernels);
            if (d.diagnostics) {
                orca_sim_set_diagnostics(m->local, 1);
            }
        }
    }
    if (!mpi_agree_create(comm, ok)) {
        if (m) {
            m->comm = MPI_COMM_NULL;
        }
        free_all(m);
        return ORCA_ERR_ARGUMENT;
    }
    MPI_Comm_dup(comm, &m->comm);
    m->run_id = new_run_id(m->comm);
    m->stats.rank = m->rank;
    m->stats.ranks = m->size;
    *out = m;
    return ORCA_OK;
}

orca_status orca_mpi_add_segment(orca_mpi *m, orca_vec2 a, orca_vec2 b)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    /* the same arguments everywhere */
    double mine[4] = {a.x, a.y, b.x, b.y}, root[4];
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, 4, MPI_DOUBLE, 0, m->comm);
    orca_status st = ORCA_OK;
    if (memcmp(root, mine, sizeof root) != 0) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT,
                            "segment (%.17g, %.17g)-(%.17g, %.17g) differs from rank 0's", a.x, a.y,
                            b.x, b.y);
    }
    if (st == ORCA_OK) {
        int64_t cap_a = m->seg_cap, cap_b = m->seg_cap;
        if (!mpi_reserve((void **)&m->seg_a, &cap_a, (int64_t)m->seg_n + 1, sizeof *m->seg_a) ||
            !mpi_reserve((void **)&m->seg_b, &cap_b, (int64_t)m->seg_n + 1, sizeof *m->seg_b)) {
            st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (segments)");
        } else {
            m->seg_cap = (int32_t)(cap_a < cap_b ? cap_a : cap_b);
        }
    }
    if (st == ORCA_OK) {
        /* the simulator's own checks, on a probe: nothing here changes before every rank
         * agrees (the local simulation gets the walls from seg_a, seg_b at each step) */
        orca_sim_def sd = orca_sim_def_default();
        orca_sim *probe = NULL;
        if ((st = orca_sim_create(&sd, &probe)) != ORCA_OK) {
            mpi_local_fail(m, st, "out of memory");
        } else if ((st = orca_sim_add_segment(probe, a, b, NULL)) != ORCA_OK) {
            mpi_local_fail(m, st, "%s", orca_sim_last_error(probe));
        }
        orca_sim_destroy(probe);
    }
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        return st; /* every rank failed alike (same arguments) or nothing was added */
    }
    m->seg_a[m->seg_n] = a;
    m->seg_b[m->seg_n] = b;
    m->seg_n++;
    m->local_stale = 1;
    if (m->nav) {
        mpi_nav_walls_changed(m);
    }
    return ORCA_OK;
}

orca_status orca_mpi_remove_segment(orca_mpi *m, int index)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    /* the same index everywhere */
    int root = index;
    MPI_Bcast(&root, 1, MPI_INT, 0, m->comm);
    orca_status st = ORCA_OK;
    if (root != index) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT, "segment index %d differs from rank 0's (%d)",
                            index, root);
    } else if (index < 0 || index >= m->seg_n) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT, "segment index %d: the run has %d segments",
                            index,
                            (int)m->seg_n);
    }
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        return st; /* nothing removed */
    }
    /* the others keep their order, as orca_sim_remove_segment keeps it */
    size_t after = (size_t)(m->seg_n - index - 1);
    memmove(m->seg_a + index, m->seg_a + index + 1, after * sizeof *m->seg_a);
    memmove(m->seg_b + index, m->seg_b + index + 1, after * sizeof *m->seg_b);
    m->seg_n--;
    m->local_stale = 1;
    if (m->nav) {
        mpi_nav_walls_changed(m);
    }
    return ORCA_OK;
}

/* Local: checks one goal as orca_scenario_add_agent does, for the kinds the distributed run
 * supports. */
static orca_status check_goal(orca_mpi *m, const orca_goal *g, int i)
{
    switch (g->kind) {
    case ORCA_GOAL_POINT:
        if (!(fabs(g->target.x) < ORCA_COORD_LIMIT && fabs(g->target.y) < ORCA_COORD_LIMIT)) {
            return mpi_local_fail(m, ORCA_ERR_ARGUMENT,
                                  "agent %d: goal point must have finite coordinates of magnitude "
                                  "below 2^21, got (%.17g, %.17g)",
                                  i, g->target.x, g->target.y);
        }
        if (!(g->preferred_speed >= 0.0 && g->preferred_speed <= ORCA_SPEED_MAX)) {
            return mpi_local_fail(m, ORCA_ERR_ARGUMENT,
                                  "agent %d: goal preferred_speed must be in [0, 2^30] m/s, got %.17g",
                                  i, g->preferred_speed);
        }
        return ORCA_OK;
    case ORCA_GOAL_VELOCITY:
        if (!(fabs(g->target.x) <= ORCA_VELOCITY_LIMIT && fabs(g->target.y) <= ORCA_VELOCITY_LIMIT)) {
            return mpi_local_fail(m, ORCA_ERR_ARGUMENT,
                                  "agent %d: goal velocity must be finite with components of "
                                  "magnitude at most 2^31, got (%.17g, %.17g)",
                                  i, g->target.x, g->target.y);
        }
        return ORCA_OK;
    case ORCA_GOAL_NONE:
        return ORCA_OK;
    case ORCA_GOAL_SET:
        if (g->goal_set < 0 || g->goal_set >= m->set_n) {
            return mpi_local_fail(m, ORCA_ERR_ARGUMENT,
                                  "agent %d: goal_set must name a goal set: in [0, %d), got %d", i,
                                  (int)m->set_n, g->goal_set);
        }
        if (!(g->preferred_speed >= 0.0 && g->preferred_speed <= ORCA_SPEED_MAX)) {
            return mpi_local_fail(m, ORCA_ERR_ARGUMENT,
                                  "agent %d: goal preferred_speed must be in [0, 2^30] m/s, got %.17g",
                                  i, g->preferred_speed);
        }
        return ORCA_OK;
    default:
        return mpi_local_fail(m, ORCA_ERR_ARGUMENT,
                              "agent %d: goal kind must be 0, 1, 2 or 3, got %d",
                              i, (int)g->kind);
    }
}

/* Local: checks the defs through the local simulation's own checks (it is refilled before the
 * next step); the state does not change. */
orca_status mpi_check_agent(orca_mpi *m, const orca_sim *probe, const orca_agent_def *def,
                            const orca_goal *goal, int64_t i)
{
    orca_status st = check_goal(m, goal, (int)i);
    if (st == ORCA_OK && (st = orca_check_agent_def(probe, def)) != ORCA_OK) {
        mpi_local_fail(m, st, "agent %lld: %s", (long long)i, orca_sim_last_error(probe));
    }
    return st;
}

orca_status mpi_check_defs(orca_mpi *m, const orca_agent_def *defs, const orca_goal *goals,
                              int count)
{
    orca_sim *probe = NULL;
    orca_status st = orca_sim_create(NULL, &probe);
    if (st != ORCA_OK) {
        return mpi_local_fail(m, st, "out of memory");
    }
    for (int i = 0; i < count && st == ORCA_OK; ++i) {
        st = mpi_check_agent(m, probe, &defs[i], &goals[i], i);
    }
    orca_sim_destroy(probe);
    return st;
}

/* Local: appends agents with keys from key0 and rule keys from rkey0 (all larger than every
 * key here, so own stays sorted). */
static orca_status append_own(orca_mpi *m, const orca_agent_def *defs, const orca_goal *goals,
                              int count, uint64_t key0, uint64_t rkey0)
{
    orca_status st = RESERVE(m, own, own_cap, m->own_n + count + 1);
    if (st != ORCA_OK) {
        return st;
    }
    for (int i = 0; i < count; ++i) {
        mpi_agent *a = &m->own[m->own_n + i];
        mpi_agent_clear(a);
        a->key = key0 + (uint64_t)i;
        a->rule_key = rkey0 + (uint64_t)i;
        a->def = defs[i];
        a->goal = goals[i];
        if (a->goal.kind == ORCA_GOAL_SET) {
            a->goal.target = nearest_point(m, a->goal.goal_set, a->def.position);
            /* the pedestrian model's stream of its set, as orca_scenario_add_agent gives it */
            a->stream = m->opt.ped_on ? a->goal.goal_set : -1;
        }
    }
    m->own_n += count;
    return ORCA_OK;
}

orca_status orca_mpi_add_agents(orca_mpi *m, const orca_agent_def *defs, const orca_goal *goals,
                                int count, uint64_t *first_key)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    m->local_mirror = 0; /* own changes */
    orca_status st = ORCA_OK;
    if (count < 0) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT, "count must be >= 0, got %d", count);
    } else if (count > 0 && (!defs || !goals)) {
        st = mpi_local_fail(m, ORCA_ERR_NULL, "defs or goals is NULL with count %d", count);
    } else {
        st = mpi_check_defs(m, defs, goals, count);
    }
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        return st;
    }
    long long mine = count, before = 0, total = 0;
    MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, m->comm);
    if (m->rank == 0) {
        before = 0;
    }
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, m->comm);
    st = mpi_agree(m, append_own(m, defs, goals, count, m->next_key + (uint64_t)before,
                             m->next_rule_key + (uint64_t)before));
    if (st != ORCA_OK) {
        if (m->rank >= 0) {
            /* undo the appends that did happen */
            int64_t keep = 0;
            for (int64_t i = 0; i < m->own_n; ++i) {
                if (m->own[i].key < m->next_key) {
                    m->own[keep++] = m->own[i];
                }
            }
            m->own_n = keep;
        }
        return st;
    }
    if (first_key) {
        *first_key = m->next_key + (uint64_t)before;
    }
    m->next_key += (uint64_t)total;
    m->next_rule_key += (uint64_t)total;
    double comm = 0.0;
    return migrate(m, &comm);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The owned index of key, or -1. */
static int64_t find_own(const orca_mpi *m, uint64_t key)
{
    int64_t lo = 0, hi = m->own_n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (m->own[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < m->own_n && m->own[lo].key == key ? lo : -1;
}

orca_status orca_mpi_remove_agents(orca_mpi *m, const uint64_t *keys, int count)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    m->local_mirror = 0; /* own changes */
    orca_status st = ORCA_OK;
    if (count < 0) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT, "count must be >= 0, got %d", count);
    } else if (count > 0 && !keys) {
        st = mpi_local_fail(m, ORCA_ERR_NULL, "keys is NULL with count %d", count);
    }
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        return st;
    }
    int *counts = m->rcount, *displs = m->rdispl; /* free between exchanges */
    MPI_Allgather(&count, 1, MPI_INT, counts, 1, MPI_INT, m->comm);
    long long total = 0;
    for (int r = 0; r < m->size; ++r) {
        displs[r] = (int)total;
        total += counts[r];
    }
    uint64_t *all = malloc((size_t)(total + 1) * sizeof *all);
    st = all ? ORCA_OK : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (%lld keys)", total);
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        free(all);
        return st;
    }
    MPI_Allgatherv(keys, count, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, m->comm);
    qsort(all, (size_t)total, sizeof *all, cmp_u64);
    long long distinct = 0;
    for (long long i = 0; i < total; ++i) {
        if (i == 0 || all[i] != all[i - 1]) {
            all[distinct++] = all[i];
        }
    }
    /* every key must name an agent: count the ones found anywhere */
    unsigned char *found = calloc((size_t)distinct + 1, 1);
    unsigned char *any = calloc((size_t)distinct + 1, 1);
    st = found && any ? ORCA_OK : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory");
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        free(all);
        free(found);
        free(any);
        return st;
    }
    for (long long i = 0; i < distinct; ++i) {
        found[i] = find_own(m, all[i]) >= 0;
    }
    MPI_Allreduce(found, any, (int)distinct, MPI_UNSIGNED_CHAR, MPI_MAX, m->comm);
    for (long long i = 0; i < distinct; ++i) {
        if (!any[i]) {
            if (m->rank == 0) {
                mpi_local_fail(m, ORCA_ERR_ARGUMENT, "key %llu names no agent",
                               (unsigned long long)all[i]);
            }
            st = mpi_agree(m, m->rank == 0 ? ORCA_ERR_ARGUMENT : ORCA_OK);
            free(all);
            free(found);
            free(any);
            return st;
        }
    }
    int64_t keep = 0;
    long long j = 0;
    for (int64_t i = 0; i < m->own_n; ++i) {
        while (j < distinct && all[j] < m->own[i].key) {
            ++j;
        }
        if (!(j < distinct && all[j] == m->own[i].key)) {
            m->own[keep++] = m->own[i];
        } else if (m->nav) {
            mpi_nav_drop(m, &m->own[i]);
        }
    }
    m->own_n = keep;
    free(all);
    free(found);
    free(any);
    return ORCA_OK;
}

/* --- summaries ------------------------------------------------------------------------- */

int orca_mpi_navigation(const orca_mpi *m)
{
    return m && m->nav;
}

int orca_mpi_exit_points(const orca_mpi *m, int set)
{
    if (!m || set < 0 || set >= m->set_n) {
        return -1;
    }
    return m->set_exit[set] ? m->set_count[set] : 0;
}

orca_status orca_mpi_exit_departures(orca_mpi *m, int set, int point, int64_t *left,
                                     int64_t *last)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    orca_status st = ORCA_OK;
    if (set < 0 || set >= m->set_n || !m->set_exit[set]) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT, "set %d is not an exit set of the run", set);
    } else if (point < 0 || point >= m->set_count[set]) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT, "point %d out of range (set %d has %d)",
                            point, set, (int)m->set_count[set]);
    }
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        return st;
    }
    int32_t j = m->set_first[set] + point;
    long long mine[2] = {m->set_left[j], -m->set_last[j]}, all[2] = {0, 0};
    MPI_Allreduce(&mine[0], &all[0], 1, MPI_LONG_LONG, MPI_SUM, m->comm);
    mine[1] = m->set_last[j];
    MPI_Allreduce(&mine[1], &all[1], 1, MPI_LONG_LONG, MPI_MAX, m->comm);
    if (left) {
        *left = all[0];
    }
    if (last) {
        *last = all[1];
    }
    return ORCA_OK;
}

/* Local: the owned agents arrived now (docs/scenarios.md's test: within its radius of its goal
 * point; an agent without a point goal counts as arrived). */
static long long arrived_here(const orca_mpi *m)
{
    long long n = 0;
    for (int64_t i = 0; i < m->own_n; ++i) {
        const mpi_agent *a = &m->own[i];
        if (a->goal.kind != ORCA_GOAL_POINT && a->goal.kind != ORCA_GOAL_SET) {
            n++;
        } else if (!mpi_waypoints_pending(m, a)) {
            /* an exit's agents within its arrive distance (docs/navigation.md, "Exits") */
            double r = a->goal.kind == ORCA_GOAL_SET && m->set_exit[a->goal.goal_set] &&
                               m->set_arrive[a->goal.goal_set] > 0
                           ? m->set_arrive[a->goal.goal_set]
                           : a->def.radius;
            orca_vec2 d = {a->goal.target.x - a->def.position.x,
                           a->goal.target.y - a->def.position.y};
            n += sqrt(d.x * d.x + d.y * d.y) <= r;
        }
    }
    return n;
}

orca_status orca_mpi_count_arrived(orca_mpi *m, int64_t *arrived, int64_t *agents)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    long long loc[2] = {arrived_here(m), m->own_n}, glob[2];
    MPI_Allreduce(loc, glob, 2, MPI_LONG_LONG, MPI_SUM, m->comm);
    if (arrived) {
        *arrived = glob[0];
    }
    if (agents) {
        *agents = glob[1];
    }
    return ORCA_OK;
}

orca_status orca_mpi_summarize(orca_mpi *m, orca_mpi_summary *out)
{
    if (!m || !out) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    double comm = 0.0;
    orca_status st = ORCA_OK;
    if (m->def.record) {
        /* the current state's overlaps: a fresh halo */
        double w = 0.0;
        int64_t n = 0;
        if ((st = local_list(m, &w, &n, &comm)) != ORCA_OK) {
            return st;
        }
        m->stats.halo_sum -= n - m->own_n; /* not a step's exchange */
        m->stats.halo_bytes -= (n - m->own_n) * (int64_t)sizeof(mpi_agent);
        st = fill_local(m, n, 0);
        if (st == ORCA_OK) {
            st = measure(m);
        }
        st = mpi_agree(m, st);
        if (st != ORCA_OK) {
            return st;
        }
    }
    long long loc[4] = {m->own_n, arrived_here(m), m->fallbacks, m->exited}, glob[4];
    MPI_Allreduce(loc, glob, 4, MPI_LONG_LONG, MPI_SUM, m->comm);
    long long last = m->exited_last_step, glast = -1;
    MPI_Allreduce(&last, &glast, 1, MPI_LONG_LONG, MPI_MAX, m->comm);
    double ov[2] = {m->agent_overlap, m->wall_overlap}, gov[2];
    MPI_Allreduce(ov, gov, 2, MPI_DOUBLE, MPI_MAX, m->comm);
    out->agents = glob[0];
    out->arrived = glob[1];
    out->fallbacks = glob[2];
    out->exited = glob[3];
    out->exited_last_step = glast;
    out->steps = m->steps;
    out->agent_overlap = gov[0];
    out->wall_overlap = gov[1];
    out->segments = m->seg_n;
    return ORCA_OK;
}

void orca_mpi_get_stats(const orca_mpi *m, orca_mpi_stats *out)
{
    if (!m || !out) {
        return;
    }
    *out = m->stats;
    out->owned = m->own_n;
    domain_box(m, out->box);
}

void orca_mpi_reset_stats(orca_mpi *m)
{
    if (!m) {
        return;
    }
    memset(&m->stats, 0, sizeof m->stats);
    m->stats.rank = m->rank;
    m->stats.ranks = m->size;
}

int orca_mpi_local_agents(const orca_mpi *m, uint64_t *keys, orca_vec2 *positions, int capacity)
{
    if (!m) {
        return 0;
    }
    for (int64_t i = 0; i < m->own_n && i < capacity; ++i) {
        if (keys) {
            keys[i] = m->own[i].key;
        }
        if (positions) {
            positions[i] = m->own[i].def.position;
        }
    }
    return (int)m->own_n;
}
