/* SPDX-License-Identifier: MIT */
/* orca on MPI's navigation (docs/mpi.md, "Navigation"): each rank runs the scenario's own
 * navigation pass (orca_sc_nav_advance) on its local simulation, through a scenario of its
 * own whose entries are the step's owned agents; an agent's path state (sc_nav) lives on the
 * heap of the rank that owns it, travels as bytes when its owner changes (mpi_nav_migrate),
 * and is hashed and counted as one process hashes and counts it. */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "scenario_internal.h"
#include "scenario_rule.h"
#include "sim_peek.h"

/* The rank's navigation: a scenario that is no scenario of the API, only what the scenario's
 * navigation pass reads (its simulation is the rank's local one, its entries the owned
 * agents, in key order, with the run's rule keys), and the counts of the paths this rank
 * dropped (agents that left by exits or were removed). */
struct mpi_nav {
    orca_scenario sc;
    uint64_t *rule_keys;
    int32_t *ent;
    int64_t entry_cap, list_cap;
    int64_t retired[NAV_COUNTS];
    int walls_changed; /* 1: the first pass finds the walls changed (every path planned again),
                          as the scenario the run came from would have at its next step */
    int *counts; /* 4 size: bytes sent and received per rank, and their displacements */
    double *capacity; /* per set: its capacity (the quickest exit choice) */
    double *flow;     /* per set point: its measured outflow, the same on every rank */
    int64_t *left;    /* scratch per set point: this step's departures here, then in all */
    sc_queue *pairs;  /* scratch: this rank's queue pairs, then every rank's */
    int64_t pairs_cap;
    int64_t *qk_all;  /* scratch: every rank's pairs as orca_sc_queue_build reads them */
    double *qr_all;
    int64_t all_cap;
    unsigned char *sbuf, *rbuf;
    int64_t sbuf_cap, rbuf_cap;
    int queues_refused; /* 1: the last gathering was refused (on every rank, its message set) */
};

_Static_assert(NAV_COUNTS == NAV_RETIRED, "the scenario's retired counts");

/* --- a path state as words (the migration's bytes) ------------------------------------- */

#define NAV_WORDS 26    /* a path state's words before its corners */
#define CORNER_WORDS 7  /* each corner's */

static unsigned char *put_w(unsigned char *p, uint64_t v)
{
    for (int b = 0; b < 8; ++b) {
        p[b] = (unsigned char)(v >> (8 * b));
    }
    return p + 8;
}

static uint64_t get_w(const unsigned char **p)
{
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) {
        v |= (uint64_t)(*p)[b] << (8 * b);
    }
    *p += 8;
    return v;
}

static unsigned char *put_d(unsigned char *p, double x)
{
    return put_w(p, f64_bits(x));
}

static double get_d(const unsigned char **p)
{
    return bits_f64(get_w(p));
}

/* The bytes of a path state (mpi_nav_put). */
static size_t nav_size(const sc_nav *v)
{
    return (NAV_WORDS + CORNER_WORDS * (size_t)v->route.count) * 8;
}

/* Writes v's nav_size(v) bytes at p, little-endian words; returns the end. */
static unsigned char *nav_put(const sc_nav *v, unsigned char *p)
{
    p = put_w(p, sc_nav_planned_word(v));
    p = put_w(p, (uint64_t)(int64_t)v->route.result);
    p = put_d(p, v->route.length);
    p = put_w(p, (uint64_t)(int64_t)v->route.goal);
    p = put_w(p, (uint64_t)(int64_t)v->route.count);
    p = put_w(p, (uint64_t)(int64_t)v->k);
    p = put_w(p, (uint64_t)(int64_t)v->prev_k);
    p = put_w(p, (uint64_t)(int64_t)v->stuck);
    p = put_w(p, (uint64_t)(int64_t)v->prev_stuck);
    p = put_d(p, v->best);
    p = put_d(p, v->prev_best);
    p = put_d(put_d(p, v->target.x), v->target.y);
    p = put_d(p, v->radius);
    p = put_w(p, (uint64_t)(int64_t)v->has_avoid);
    p = put_d(put_d(p, v->avoid.x), v->avoid.y);
    p = put_w(p, (uint64_t)(int64_t)v->plans);
    p = put_w(p, (uint64_t)(int64_t)v->reroutes);
    p = put_w(p, (uint64_t)(int64_t)v->replans);
    p = put_w(p, (uint64_t)(int64_t)v->exit);
    p = put_w(p, (uint64_t)(int64_t)v->exit_changes);
    p = put_w(p, (uint64_t)(int64_t)v->returns);
    p = put_w(p, v->left);
    p = put_d(put_d(p, v->dir.x), v->dir.y);
    for (int k = 0; k < v->route.count; ++k) {
        const orca_nav_corner *c = &v->route.corners[k];
        p = put_d(put_d(p, c->vertex.x), c->vertex.y);
        p = put_w(p, (uint64_t)(int64_t)c->side);
        p = put_d(put_d(p, c->enter.x), c->enter.y);
        p = put_d(put_d(p, c->leave.x), c->leave.y);
    }
    return p;
}

/* A path state from nav_put's bytes at *p (at most `left` of them; *p moves past them), on
 * the heap; NULL when they are too few or memory is out. Only bytes this build wrote reach
 * it (a migration between ranks of one run). */
static sc_nav *nav_get(const unsigned char **p, size_t left)
{
    if (left < NAV_WORDS * 8) {
        return NULL;
    }
    const unsigned char *q = *p;
    sc_nav *v = orca_mem_zalloc(1, sizeof *v);
    if (!v) {
        return NULL;
    }
    if (!sc_nav_set_planned_word(v, get_w(&q))) {
        v->leg = -1; /* nav_sane refuses it */
    }
    v->route.result = (int)(int64_t)get_w(&q);
    v->route.length = get_d(&q);
    v->route.goal = (int)(int64_t)get_w(&q);
    int64_t count = (int64_t)get_w(&q);
    v->k = (int)(int64_t)get_w(&q);
    v->prev_k = (int)(int64_t)get_w(&q);
    v->stuck = (int)(int64_t)get_w(&q);
    v->prev_stuck = (int)(int64_t)get_w(&q);
    v->best = get_d(&q);
    v->prev_best = get_d(&q);
    v->target.x = get_d(&q);
    v->target.y = get_d(&q);
    v->radius = get_d(&q);
    v->has_avoid = (int)(int64_t)get_w(&q);
    v->avoid.x = get_d(&q);
    v->avoid.y = get_d(&q);
    v->plans = (int)(int64_t)get_w(&q);
    v->reroutes = (int)(int64_t)get_w(&q);
    v->replans = (int)(int64_t)get_w(&q);
    v->exit = (int)(int64_t)get_w(&q);
    v->exit_changes = (int)(int64_t)get_w(&q);
    v->returns = (int)(int64_t)get_w(&q);
    v->left = get_w(&q);
    v->dir.x = get_d(&q);
    v->dir.y = get_d(&q);
    if (count < 0 || (uint64_t)count > (left - NAV_WORDS * 8) / (CORNER_WORDS * 8)) {
        orca_mem_free(v);
        return NULL;
    }
    if (count > 0) {
        v->route.corners = orca_mem_alloc((size_t)count, sizeof *v->route.corners);
        if (!v->route.corners) {
            orca_mem_free(v);
            return NULL;
        }
    }
    v->route.count = v->route.cap = (int)count;
    for (int64_t k = 0; k < count; ++k) {
        orca_nav_corner *c = &v->route.corners[k];
        c->vertex.x = get_d(&q);
        c->vertex.y = get_d(&q);
        c->side = (int)(int64_t)get_w(&q);
        c->enter.x = get_d(&q);
        c->enter.y = get_d(&q);
        c->leave.x = get_d(&q);
        c->leave.y = get_d(&q);
    }
    *p = q;
    return v;
}

static void nav_free(sc_nav *v)
{
    if (v) {
        orca_nav_route_free(&v->route);
        orca_mem_free(v);
    }
}

/* --- the rank's navigation ------------------------------------------------------------- */

static orca_status mpi_queues(orca_scenario *sc, int n, void *ctx);

orca_status mpi_nav_create(orca_mpi *m, int check, int choice, const double *capacity,
                           const double *flow)
{
    mpi_nav *nv = calloc(1, sizeof *nv);
    int32_t n = m->set_n;
    sc_goal_set *sets = calloc((size_t)n + 1, sizeof *sets);
    nv = nv && sets ? nv : NULL;
    if (nv) {
        nv->counts = calloc(4 * (size_t)m->size, sizeof *nv->counts);
        nv->capacity = calloc((size_t)n + 1, sizeof *nv->capacity);
        nv->flow = calloc((size_t)m->set_points + 1, sizeof *nv->flow);
        nv->left = calloc(2 * (size_t)m->set_points + 1, sizeof *nv->left);
    }
    if (!nv || !nv->counts || !nv->capacity || !nv->flow || !nv->left) {
        if (nv) {
            free(nv->counts);
            free(nv->capacity);
            free(nv->flow);
            free(nv->left);
        }
        free(nv);
        free(sets);
        return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (navigation)");
    }
    for (int32_t k = 0; k < n; ++k) {
        nv->capacity[k] = capacity ? capacity[k] : ORCA_NAV_EXIT_CAPACITY;
    }
    if (flow) {
        memcpy(nv->flow, flow, (size_t)m->set_points * sizeof *flow);
    }
    orca_scenario *sc = &nv->sc;
    sc->dt = m->def.dt;
    sc->seed = m->def.seed;
    sc->navigation = 1;
    sc->nav_check = check;
    sc->exit_choice = choice;
    /* the run's sets: their points are the run's (read only); the outflows are the rank's
     * copy of the run's (mpi_nav_flows keeps every rank's equal) */
    for (int32_t k = 0; k < n; ++k) {
        sets[k].points = m->set_pt + m->set_first[k];
        sets[k].count = m->set_count[k];
        sets[k].exit = m->set_exit[k];
        sets[k].arrive = m->set_arrive[k];
        sets[k].capacity = nv->capacity[k];
        sets[k].flow = nv->flow + m->set_first[k];
        sc->exit_sets += sets[k].exit != 0;
    }
    sc->queue_fn = mpi_queues;
    sc->queue_ctx = m;
    sc->sets = sets;
    sc->set_count = sc->set_capacity = n;
    m->nav = nv;
    return ORCA_OK;
}

orca_status mpi_nav_from_scenario(orca_mpi *m, const orca_scenario *src)
{
    int32_t n = m->set_n;
    double *capacity = malloc(((size_t)n + 1) * sizeof *capacity);
    double *flow = malloc(((size_t)m->set_points + 1) * sizeof *flow);
    orca_status st = capacity && flow ? ORCA_OK
                                      : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory");
    for (int32_t k = 0; k < n && st == ORCA_OK; ++k) {
        capacity[k] = src->sets[k].capacity;
        for (int32_t j = 0; j < m->set_count[k]; ++j) {
            flow[m->set_first[k] + j] = src->sets[k].flow ? src->sets[k].flow[j] : 0.0;
        }
    }
    if (st == ORCA_OK) {
        st = mpi_nav_create(m, src->nav_check, src->exit_choice, capacity, flow);
    }
    free(capacity);
    free(flow);
    if (st == ORCA_OK) {
        m->nav->walls_changed = src->nav && !orca_nav_same_walls(src->nav, src->sim);
    }
    if (st == ORCA_OK && m->rank == 0) {
        /* the paths the scenario dropped before the run: counted once, on rank 0 */
        memcpy(m->nav->retired, src->retired, sizeof m->nav->retired);
    }
    return st;
}

void mpi_nav_walls_changed(orca_mpi *m)
{
    if (!m->nav->sc.nav) {
        m->nav->walls_changed = 1; /* (a nav that read the walls finds the change itself) */
    }
}

int mpi_nav_walls_pending(const orca_mpi *m)
{
    const mpi_nav *nv = m->nav;
    if (!nv) {
        return 0;
    }
    /* the nav's walls against the run's: the local simulation has the run's walls unless it
     * is to be rebuilt (local_stale), which only a change of walls asks for once it exists */
    return nv->sc.nav ? !m->local || m->local_stale || !orca_nav_same_walls(nv->sc.nav, m->local)
                      : nv->walls_changed;
}

void mpi_nav_set_walls_changed(orca_mpi *m, int changed)
{
    m->nav->walls_changed = changed;
}

int64_t *mpi_nav_retired(orca_mpi *m)
{
    return m->nav->retired;
}

int mpi_nav_settings(const orca_mpi *m, int *check, int *choice)
{
    *check = m->nav ? m->nav->sc.nav_check : 0;
    *choice = m->nav ? m->nav->sc.exit_choice : 0;
    return m->nav != NULL;
}

/* --- checkpoints ----------------------------------------------------------------------- */

size_t mpi_nav_record_words(const mpi_agent *a)
{
    return 1 + (a->nv ? NAV_WORDS + CORNER_WORDS * (size_t)a->nv->route.count : 0);
}

unsigned char *mpi_nav_record_put(const mpi_agent *a, unsigned char *p)
{
    p = put_w(p, (uint64_t)mpi_nav_record_words(a) - 1);
    return a->nv ? nav_put(a->nv, p) : p;
}

/* Whether a path state read from a checkpoint holds values a path can have (its checksum
 * passed: this catches a faulty writer). */
static int nav_sane(const sc_nav *v)
{
    int c = v->route.count;
    int ok = (v->leg == 0 || v->leg == 1) && v->route.result >= ORCA_NAV_OK &&
             v->route.result <= ORCA_NAV_GOAL_BLOCKED && v->route.goal >= -1 && v->k >= 0 &&
             v->k <= c && v->prev_k >= 0 && v->prev_k <= c && v->stuck >= 0 &&
             v->prev_stuck >= 0 && (v->has_avoid == 0 || v->has_avoid == 1) && v->plans >= 0 &&
             v->reroutes >= 0 && v->replans >= 0 && v->exit >= -1 && v->exit_changes >= 0 &&
             v->returns >= 0 && v->radius >= 0.0;
    for (int k = 0; ok && k < c; ++k) {
        ok = v->route.corners[k].side == 1 || v->route.corners[k].side == -1;
    }
    return ok;
}

orca_status mpi_nav_record_get(orca_mpi *m, const unsigned char **p, size_t left, mpi_agent *a)
{
    if (left < 8) {
        return mpi_local_fail(m, ORCA_ERR_FORMAT, "path words missing");
    }
    const unsigned char *q = *p;
    uint64_t n = get_w(&q);
    a->nv = NULL;
    if (n == 0) {
        *p = q;
        return ORCA_OK;
    }
    if (n > (left - 8) / 8 || n < NAV_WORDS || (n - NAV_WORDS) % CORNER_WORDS != 0) {
        return mpi_local_fail(m, ORCA_ERR_FORMAT, "a path of %llu words", (unsigned long long)n);
    }
    const unsigned char *start = q;
    sc_nav *v = nav_get(&q, (size_t)n * 8);
    if (!v) {
        return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (a path)");
    }
    if ((size_t)(q - start) != n * 8 || !nav_sane(v)) {
        nav_free(v);
        return mpi_local_fail(m, ORCA_ERR_FORMAT, "a path's values out of range");
    }
    a->nv = v;
    *p = q;
    return ORCA_OK;
}

const double *mpi_nav_capacities(const orca_mpi *m)
{
    return m->nav ? m->nav->capacity : NULL;
}

const double *mpi_nav_flows_now(const orca_mpi *m)
{
    return m->nav ? m->nav->flow : NULL;
}

/* --- the quickest exit choice's global state --------------------------------------------- */

int64_t *mpi_nav_step_left(orca_mpi *m)
{
    return m->nav && m->nav->sc.exit_choice == ORCA_EXIT_QUICKEST ? m->nav->left : NULL;
}

orca_status mpi_nav_flows(orca_mpi *m)
{
    mpi_nav *nv = m->nav;
    int32_t sp = m->set_points;
    int64_t *all = nv->left + sp;
    MPI_Allreduce(nv->left, all, sp, MPI_INT64_T, MPI_SUM, m->comm);
    /* the scenario's exits_flow (src/scenario_sets.c) with every rank's leavers: the decay,
     * then 1 / T for each leaver of the point, one at a time */
    double keep = 1.0 - m->def.dt / ORCA_NAV_FLOW_TIME;
    keep = keep > 0 ? keep : 0.0;
    for (int32_t k = 0; k < m->set_n; ++k) {
        for (int32_t j = 0; m->set_exit[k] && j < m->set_count[k]; ++j) {
            double *f = &nv->flow[m->set_first[k] + j];
            *f = *f * keep;
        }
    }
    for (int32_t k = 0; k < m->set_n; ++k) {
        for (int32_t j = 0; m->set_exit[k] && j < m->set_count[k]; ++j) {
            int32_t q = m->set_first[k] + j;
            for (int64_t c = 0; c < all[q]; ++c) {
                nv->flow[q] = nv->flow[q] + 1.0 / ORCA_NAV_FLOW_TIME;
            }
        }
    }
    memset(nv->left, 0, (size_t)sp * sizeof *nv->left);
    return ORCA_OK;
}

/* The queues (the scenario's queue_fn): every rank's (point key, remaining) pairs of its owned
 * agents (nav_task wrote them for the local list; halo copies have none), gathered on every
 * rank and sorted by orca_sc_queue_build: the one-process table. Collective. */
static orca_status mpi_queues(orca_scenario *sc, int n, void *ctx)
{
    orca_mpi *m = ctx;
    mpi_nav *nv = m->nav;
    int mine = 0;
    for (int i = 0; i < n; ++i) {
        mine += nv->ent[i] >= 0 && sc->qkey[i] >= 0;
    }
    orca_status st = ORCA_OK;
    int *counts = nv->counts, *displs = counts + m->size;
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, m->comm);
    int64_t total = 0;
    for (int r = 0; r < m->size; ++r) {
        total += counts[r];
    }
    if (total > INT32_MAX / (int64_t)sizeof(sc_queue) ||
        !mpi_reserve((void **)&nv->pairs, &nv->pairs_cap, total + 1, sizeof *nv->pairs)) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (the queues)");
    }
    int64_t kcap = nv->all_cap, rcap = nv->all_cap;
    if (st == ORCA_OK && (!mpi_reserve((void **)&nv->qk_all, &kcap, total + 1, sizeof(int64_t)) ||
                          !mpi_reserve((void **)&nv->qr_all, &rcap, total + 1, sizeof(double)))) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (the queues)");
    }
    nv->all_cap = kcap < rcap ? kcap : rcap;
    if ((st = mpi_agree(m, st)) != ORCA_OK) {
        nv->queues_refused = 1;
        return st;
    }
    int64_t at = 0;
    for (int r = 0; r < m->size; ++r) {
        displs[r] = (int)(at * (int64_t)sizeof(sc_queue));
        at += counts[r];
        counts[r] *= (int)sizeof(sc_queue);
    }
    sc_queue *own = malloc(((size_t)mine + 1) * sizeof *own);
    st = mpi_agree(m, own ? ORCA_OK
                          : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (the queues)"));
    if (st != ORCA_OK) {
        free(own);
        nv->queues_refused = 1;
        return st;
    }
    for (int i = 0, k = 0; i < n; ++i) {
        if (nv->ent[i] >= 0 && sc->qkey[i] >= 0) {
            own[k].key = sc->qkey[i];
            own[k].rem = sc->qrem[i];
            ++k;
        }
    }
    MPI_Allgatherv(own, mine * (int)sizeof(sc_queue), MPI_BYTE, nv->pairs, counts, displs,
                   MPI_BYTE, m->comm);
    free(own);
    for (int64_t k = 0; k < total; ++k) {
        nv->qk_all[k] = nv->pairs[k].key;
        nv->qr_all[k] = nv->pairs[k].rem;
    }
    /* the scenario's own sort of the pairs (its qkey and qrem stay the local list's: an
     * agent's own pair is read by its index) */
    int64_t *qk = sc->qkey;
    double *qr = sc->qrem;
    sc->qkey = nv->qk_all;
    sc->qrem = nv->qr_all;
    st = orca_sc_queue_build(sc, (int)total);
    sc->qkey = qk;
    sc->qrem = qr;
    st = mpi_agree(m, st == ORCA_OK ? ORCA_OK : mpi_local_fail(m, st, "%s", sc->error));
    nv->queues_refused = st != ORCA_OK;
    return st;
}

orca_status mpi_nav_clone(orca_mpi *m, const orca_scenario *src, int index, mpi_agent *a)
{
    int e = orca_sc_entry_of((orca_scenario *)src, index); /* only its message is written */
    const sc_nav *v = e >= 0 ? src->agents[e].nv : NULL;
    if (!v) {
        return ORCA_OK;
    }
    a->nv = orca_mem_zalloc(1, sizeof *a->nv);
    if (!a->nv) {
        return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (a path)");
    }
    *a->nv = *v;
    a->nv->route.corners = NULL;
    a->nv->route.cap = 0;
    if (v->route.count > 0) {
        a->nv->route.corners = orca_mem_alloc((size_t)v->route.count, sizeof *v->route.corners);
        if (!a->nv->route.corners) {
            orca_mem_free(a->nv);
            a->nv = NULL;
            return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (a path)");
        }
        memcpy(a->nv->route.corners, v->route.corners,
               (size_t)v->route.count * sizeof *v->route.corners);
        a->nv->route.cap = v->route.count;
    }
    return ORCA_OK;
}

int mpi_nav_route_goal(const mpi_agent *a)
{
    const sc_nav *v = a->nv;
    return v && v->route.result == ORCA_NAV_OK ? v->route.goal : -1;
}

void mpi_nav_agent(const orca_mpi *m, const mpi_agent *a, orca_nav_agent *out,
                   orca_nav_corner *corners, int capacity)
{
    memset(out, 0, sizeof *out);
    out->navigating = m->nav && (a->goal.kind == ORCA_GOAL_POINT || a->goal.kind == ORCA_GOAL_SET);
    out->goal = a->goal.target;
    const sc_nav *v = a->nv;
    if (!v || !v->planned) {
        return;
    }
    orca_sc_nav_describe(v, out, corners, capacity);
    int point = mpi_nav_route_goal(a); /* the set's point the path ends at (nav_goal) */
    if (a->goal.kind == ORCA_GOAL_SET && point >= 0) {
        out->goal = m->set_pt[m->set_first[a->goal.goal_set] + point];
    }
}

void mpi_nav_free_path(mpi_agent *a)
{
    nav_free(a->nv);
    a->nv = NULL;
}

void mpi_nav_destroy(orca_mpi *m)
{
    mpi_nav *nv = m->nav;
    for (int64_t i = 0; i < m->own_n; ++i) {
        nav_free(m->own[i].nv);
        m->own[i].nv = NULL;
    }
    if (!nv) {
        return;
    }
    orca_scenario *sc = &nv->sc;
    orca_nav_destroy(sc->nav);
    free(sc->sets);
    free(sc->agents);
    orca_mem_free(sc->nav_flag);
    orca_mem_free(sc->pref);
    orca_mem_free(sc->plan_list);
    orca_mem_free(sc->qkey);
    orca_mem_free(sc->qrem);
    orca_mem_free(sc->queue);
    free(nv->capacity);
    free(nv->flow);
    free(nv->left);
    free(nv->pairs);
    free(nv->qk_all);
    free(nv->qr_all);
    free(nv->rule_keys);
    free(nv->ent);
    free(nv->counts);
    free(nv->sbuf);
    free(nv->rbuf);
    free(nv);
    m->nav = NULL;
}

/* Adds path v's counts to r (NAV_COUNTS: plans, re-routings, replans, exit changes, returns,
 * agents that changed; the most changes of one, a maximum). */
static void count_path(int64_t *r, const sc_nav *v)
{
    r[0] += v->plans;
    r[1] += v->reroutes;
    r[2] += v->replans;
    r[3] += v->exit_changes;
    r[4] += v->returns;
    r[5] += v->exit_changes > 0;
    r[6] = v->exit_changes > r[6] ? v->exit_changes : r[6];
}

void mpi_nav_drop(orca_mpi *m, mpi_agent *a)
{
    if (a->nv) {
        count_path(m->nav->retired, a->nv);
        nav_free(a->nv);
        a->nv = NULL;
    }
}

/* Local: mpi_nav_pass's tables for n agents, the nav on the local simulation, and the
 * scenario's entries: the owned agents. */
static orca_status pass_prepare(orca_mpi *m, int64_t n)
{
    mpi_nav *nv = m->nav;
    orca_scenario *sc = &nv->sc;
    int64_t own_n = m->own_n;
    /* the scenario's per-index scratch (its step's, orca_scenario_step) and the entries */
    if (n + 1 > nv->list_cap) {
        int64_t cap = n + 1;
        uint8_t *f = orca_mem_resize(sc->nav_flag, (size_t)cap, sizeof *f);
        sc->nav_flag = f ? f : sc->nav_flag;
        orca_vec2 *pv = f ? orca_mem_resize(sc->pref, (size_t)cap, sizeof *pv) : NULL;
        sc->pref = pv ? pv : sc->pref;
        int32_t *pl = pv ? orca_mem_resize(sc->plan_list, (size_t)cap, sizeof *pl) : NULL;
        sc->plan_list = pl ? pl : sc->plan_list;
        int64_t *qk = pl ? orca_mem_resize(sc->qkey, (size_t)cap, sizeof *qk) : NULL;
        sc->qkey = qk ? qk : sc->qkey;
        double *qr = qk ? orca_mem_resize(sc->qrem, (size_t)cap, sizeof *qr) : NULL;
        sc->qrem = qr ? qr : sc->qrem;
        pl = qr ? pl : NULL;
        int64_t ecap = nv->list_cap;
        if (!pl || !mpi_reserve((void **)&nv->ent, &ecap, cap, sizeof *nv->ent)) {
            return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (navigation's tables)");
        }
        nv->list_cap = cap;
    }
    int64_t acap = nv->entry_cap, kcap = nv->entry_cap;
    if (!mpi_reserve((void **)&sc->agents, &acap, own_n + 1, sizeof *sc->agents) ||
        !mpi_reserve((void **)&nv->rule_keys, &kcap, own_n + 1, sizeof *nv->rule_keys)) {
        return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (navigation's entries)");
    }
    nv->entry_cap = acap < kcap ? acap : kcap;
    if (!sc->nav) {
        /* a new nav finds the walls changed at its first read: unless they did change since
         * the paths were planned (walls_changed), that read is taken now, so that a run
         * continued from a scenario or a checkpoint keeps its paths */
        if (orca_nav_create(m->local, &sc->nav) != ORCA_OK ||
            (!nv->walls_changed && orca_nav_sync(sc->nav) < 0)) {
            return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (the navigation graph)");
        }
    } else {
        orca_nav_rebind(sc->nav, m->local); /* the local simulation may be a new one */
    }
    /* the pass reads changed walls (orca_nav_sync) before the quickest choice's gathering:
     * its one allocation is made here, where a failure is agreed on by every rank first */
    if (!orca_nav_reserve_walls(sc->nav, m->local)) {
        return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (reading the walls)");
    }
    sc->sim = m->local;
    sc->rule_keys = nv->rule_keys;
    /* entry k is owned agent k; the local list holds the owned agents in their key order */
    for (int64_t k = 0; k < own_n; ++k) {
        sc_agent *e = &sc->agents[k];
        memset(e, 0, sizeof *e);
        e->goal = m->own[k].goal;
        e->start = m->own[k].def.position;
        e->nv = m->own[k].nv;
        nv->rule_keys[k] = m->own[k].rule_key;
    }
    sc->agent_count = sc->agent_capacity = (int)own_n;
    for (int64_t i = 0, k = 0; i < n; ++i) {
        nv->ent[i] = m->owned[i] ? (int32_t)k++ : -1; /* halo copies: no entry */
    }
    return ORCA_OK;
}

orca_status mpi_nav_pass(orca_mpi *m, int64_t n, orca_status st, int *agreed)
{
    mpi_nav *nv = m->nav;
    orca_scenario *sc = &nv->sc;
    *agreed = 0;
    if (st == ORCA_OK) {
        st = pass_prepare(m, n);
    }
    if (sc->exit_choice == ORCA_EXIT_QUICKEST) {
        st = mpi_agree(m, st); /* the queues are gathered from every rank: all pass, or none */
        *agreed = st != ORCA_OK;
    }
    if (st != ORCA_OK) {
        return st;
    }
    nv->queues_refused = 0;
    int64_t own_n = m->own_n;
    st = orca_sc_nav_advance(sc, nv->ent, orca_sim_positions(m->local), (int)n,
                             orca_rule_step_hash(m->def.seed, m->steps));
    /* plans made are kept, a refused pass too (as one process keeps them) */
    for (int64_t k = 0; k < own_n; ++k) {
        m->own[k].goal.target = sc->agents[k].goal.target;
        m->own[k].nv = sc->agents[k].nv;
    }
    if (st != ORCA_OK) {
        orca_sc_nav_restore(sc);
        *agreed = nv->queues_refused; /* (its message is the refusing rank's) */
        return *agreed ? st : mpi_local_fail(m, st, "%s", sc->error);
    }
    /* the rule's values (into rule_pref with the pedestrian model, as fill_local's) */
    orca_vec2 *out = m->opt.ped_on ? m->rule_pref : m->local->pref;
    for (int64_t i = 0; i < n; ++i) {
        if (nv->ent[i] >= 0) {
            out[i] = sc->pref[i];
        }
    }
    return ORCA_OK;
}

void mpi_nav_restore(orca_mpi *m)
{
    for (int64_t k = 0; k < m->own_n; ++k) {
        orca_sc_nav_restore_path(m->own[k].nv);
    }
}

/* --- migration ------------------------------------------------------------------------- */

orca_status mpi_nav_migrate(orca_mpi *m, double *seconds)
{
    mpi_nav *nv = m->nav;
    int size = m->size;
    int *sc = nv->counts, *sd = sc + size, *rc = sd + size, *rd = rc + size;
    int64_t total = 0;
    for (int r = 0; r < size; ++r) {
        int64_t bytes = 0;
        for (int j = 0; j < m->scount[r]; ++j) {
            const sc_nav *v = m->send[m->sdispl[r] + j].nv;
            bytes += v ? (int64_t)nav_size(v) : 0;
        }
        sd[r] = (int)total;
        total += bytes;
        sc[r] = (int)bytes;
    }
    orca_status st = total > INT32_MAX ? mpi_local_fail(m, ORCA_ERR_LIMIT,
                                                        "%lld bytes of paths at once",
                                                        (long long)total)
                     : !mpi_reserve((void **)&nv->sbuf, &nv->sbuf_cap, total + 1, 1)
                         ? mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (paths)")
                         : ORCA_OK;
    int64_t sent = (int64_t)m->sdispl[size - 1] + m->scount[size - 1];
    if (st == ORCA_OK) {
        unsigned char *p = nv->sbuf;
        for (int64_t j = 0; j < sent; ++j) {
            if (m->send[j].nv) {
                p = nav_put(m->send[j].nv, p);
            }
        }
    }
    double t0 = MPI_Wtime();
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        *seconds += MPI_Wtime() - t0;
        return st;
    }
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, m->comm);
    int64_t got = 0;
    for (int r = 0; r < size; ++r) {
        rd[r] = (int)got;
        got += rc[r];
    }
    st = got > INT32_MAX ? mpi_local_fail(m, ORCA_ERR_LIMIT, "%lld bytes of paths at once",
                                          (long long)got)
         : !mpi_reserve((void **)&nv->rbuf, &nv->rbuf_cap, got + 1, 1)
             ? mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (paths)")
             : ORCA_OK;
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        *seconds += MPI_Wtime() - t0;
        return st;
    }
    MPI_Alltoallv(nv->sbuf, sc, sd, MPI_BYTE, nv->rbuf, rc, rd, MPI_BYTE, m->comm);
    *seconds += MPI_Wtime() - t0;
    /* the sent paths are bytes now; the received records' nv (their sender's pointer) says
     * only whether one follows, in the sender's order */
    for (int64_t j = 0; j < sent; ++j) {
        nav_free(m->send[j].nv);
        m->send[j].nv = NULL;
    }
    for (int r = 0; r < size; ++r) {
        const unsigned char *p = nv->rbuf + rd[r], *end = p + rc[r];
        for (int j = 0; j < m->rcount[r]; ++j) {
            mpi_agent *a = &m->recv[m->rdispl[r] + j];
            if (a->nv) {
                a->nv = nav_get(&p, (size_t)(end - p));
                if (!a->nv) {
                    st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (a path)");
                }
            }
        }
    }
    return mpi_agree(m, st);
}

/* --- the hash and the counts ----------------------------------------------------------- */

size_t mpi_nav_hash_bytes(const mpi_agent *a, int part, unsigned char *out, size_t cap)
{
    sc_agent e;
    memset(&e, 0, sizeof e);
    e.goal = a->goal;
    e.nv = a->nv;
    return part == HASH_NAV ? orca_sc_nav_hash_bytes(&e, out, cap)
                            : orca_sc_nav_choice_hash_bytes(&e, out, cap);
}

int mpi_nav_choice_hashed(const orca_mpi *m)
{
    return m->nav && (m->nav->sc.nav_check || m->nav->sc.exit_choice != ORCA_EXIT_NEAREST);
}

void mpi_nav_hash_settings(const orca_mpi *m, uint64_t *check, uint64_t *choice)
{
    *check = (uint64_t)m->nav->sc.nav_check;
    *choice = (uint64_t)m->nav->sc.exit_choice;
}

/* Whether owned agent a is at its exit (orca_scenario_nav_counts's at_exits). */
static int at_exit(const orca_mpi *m, const mpi_agent *a)
{
    if (a->goal.kind != ORCA_GOAL_SET || !m->set_exit[a->goal.goal_set]) {
        return 0;
    }
    double arrive = m->set_arrive[a->goal.goal_set];
    return v2_len(v2_sub(a->goal.target, a->def.position)) <= (arrive > 0 ? arrive : a->def.radius);
}

orca_status orca_mpi_nav_counts(orca_mpi *m, orca_nav_counts *out)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    orca_status st = out ? ORCA_OK : mpi_local_fail(m, ORCA_ERR_NULL, "out must not be NULL");
    st = mpi_agree(m, st);
    if (st != ORCA_OK) {
        return st;
    }
    memset(out, 0, sizeof *out);
    /* the paths' counts (those dropped, then those of the owned agents), then agents at
     * exits, without a path, and that left: sums, but the most changes of one, a maximum */
    int64_t c[NAV_COUNTS + 3], g[NAV_COUNTS + 3], most = 0;
    memset(c, 0, sizeof c);
    if (m->nav) {
        memcpy(c, m->nav->retired, sizeof m->nav->retired);
    }
    for (int64_t i = 0; i < m->own_n; ++i) {
        const mpi_agent *a = &m->own[i];
        if (a->nv) {
            count_path(c, a->nv);
            c[NAV_COUNTS + 1] += a->nv->planned && a->nv->route.result != ORCA_NAV_OK;
        }
        c[NAV_COUNTS] += at_exit(m, a);
    }
    c[NAV_COUNTS + 2] = m->exited;
    most = c[NAV_COUNTS - 1];
    c[NAV_COUNTS - 1] = 0;
    MPI_Allreduce(c, g, NAV_COUNTS + 3, MPI_INT64_T, MPI_SUM, m->comm);
    MPI_Allreduce(&most, &g[NAV_COUNTS - 1], 1, MPI_INT64_T, MPI_MAX, m->comm);
    int64_t arrived = 0;
    st = orca_mpi_count_arrived(m, &arrived, NULL);
    out->plans = g[0];
    out->reroutes = g[1];
    out->replans = g[2];
    out->exit_changes = g[3];
    out->exit_returns = g[4];
    out->agents_changed = (int)g[5];
    out->most_changes = (int)g[6];
    out->at_exits = (int)g[NAV_COUNTS];
    out->unreachable = (int)g[NAV_COUNTS + 1];
    out->exited = (int)g[NAV_COUNTS + 2];
    out->arrived = (int)(arrived + g[NAV_COUNTS + 2]);
    return st;
}
