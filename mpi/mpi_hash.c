/* SPDX-License-Identifier: MIT */
/* orca on MPI's passes over every agent in key order through rank 0 (docs/mpi.md, "The
 * hash"): the state hash, streamed a window of keys at a time so that no rank holds every
 * agent, and the trajectories' CSV rows, which stream the same way. The windowed gathers
 * (entries of one size, records of varying length) serve mpi_visit.c's passes too. */
#include "mpi_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snap_io.h"

#define HASH_WINDOW 65536 /* keys per gather of orca_mpi_hash and orca_mpi_write_csv */

static uint64_t h_agent(uint64_t h, const orca_agent_def *d)
{
    h = hash_f64(h, d->position.x);
    h = hash_f64(h, d->position.y);
    h = hash_f64(h, d->velocity.x);
    h = hash_f64(h, d->velocity.y);
    h = hash_f64(h, d->preferred_velocity.x);
    h = hash_f64(h, d->preferred_velocity.y);
    h = hash_f64(h, d->radius);
    h = hash_f64(h, d->max_speed);
    h = hash_f64(h, d->neighbor_dist);
    h = hash_u64(h, (uint64_t)d->max_neighbors);
    h = hash_f64(h, d->time_horizon);
    return hash_f64(h, d->obstacle_time_horizon);
}

typedef struct hash_entry {
    uint64_t key;
    orca_agent_def def;
    agent_ext ext;
    int32_t stream;
    int32_t wp_index; /* -1: no waypoints */
} hash_entry;

/* The parts of the hash that run over every agent in key order, in the order of
 * docs/determinism.md's state hash: the agents, then (while some agent is not at the
 * defaults) their avoidance settings, then (while some agent has one) their streams, then
 * (while some agent has waypoints) their waypoint indices. */
enum { HP_CORE, HP_EXT, HP_STREAM, HP_WAYPOINT };

/* index: the agent's place in the index order (the waypoint part names it) */
static uint64_t h_part(uint64_t h, const hash_entry *e, int part, int64_t index)
{
    if (part == HP_WAYPOINT) {
        if (e->wp_index < 0) {
            return h;
        }
        return hash_u64(hash_u64(h, (uint64_t)index), (uint64_t)(int64_t)e->wp_index);
    }
    if (part == HP_CORE) {
        return h_agent(h, &e->def);
    }
    if (part == HP_EXT) {
        h = hash_f64(h, e->ext.priority);
        h = hash_u64(h, e->ext.layers);
        h = hash_u64(h, e->ext.mask);
        return hash_u64(h, (uint64_t)(int64_t)e->ext.locked);
    }
    return hash_u64(h, (uint64_t)(uint32_t)e->stream);
}

/* Scratch of the windowed passes: rank 0 takes the agents a window of HASH_WINDOW keys at a
 * time (its memory stays bounded; every agent's values pass through it once). */
typedef struct hash_scratch {
    uint64_t win;
    int *counts;
    hash_entry *mine, *got, *slot;
    unsigned char *seen;
} hash_scratch;

void mpi_window_gather(orca_mpi *m, const mpi_gather *g)
{
    int *counts = g->counts, *displs = g->counts + m->size;
    int size = (int)g->size;
    for (uint64_t w = 0; w < (g->keys + g->win - 1) / g->win; ++w) {
        int n = g->fill(g->ctx, w * g->win, (w + 1) * g->win, g->mine);
        MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, m->comm);
        int sum = 0;
        if (m->rank == 0) {
            for (int r = 0; r < m->size; ++r) {
                displs[r] = sum * size;
                sum += counts[r];
                counts[r] *= size;
            }
        }
        MPI_Gatherv(g->mine, n * size, MPI_BYTE, g->got, counts, displs, MPI_BYTE, 0, m->comm);
        if (m->rank == 0 && sum > 0) {
            g->take(g->ctx, w * g->win, g->got, sum);
        }
    }
}

/* What rank 0 does with each agent of a windowed pass, in key order. */
typedef void window_fn(void *context, const hash_entry *e);

typedef struct window_ctx {
    const orca_mpi *m;
    const hash_scratch *x;
    int64_t at; /* the next owned agent */
    window_fn *visit;
    void *context;
} window_ctx;

/* mpi_gather's fill: the owned agents of keys below end (those of the earlier windows have
 * gone). */
static int window_fill(void *ctx, uint64_t base, uint64_t end, void *mine)
{
    (void)base;
    window_ctx *c = ctx;
    const orca_mpi *m = c->m;
    hash_entry *e = mine;
    int n = 0;
    while (c->at < m->own_n && m->own[c->at].key < end) {
        const mpi_agent *a = &m->own[c->at];
        memset(&e[n], 0, sizeof e[n]); /* the padding travels too */
        e[n].key = a->key;
        e[n].def = a->def;
        e[n].ext = a->ext;
        e[n].stream = a->stream;
        e[n].wp_index = a->wp_row >= 0 ? a->wp_index : -1;
        ++n;
        ++c->at;
    }
    return n;
}

/* mpi_gather's take: each rank's block is in key order; the keys of a window are distinct,
 * so a counting placement orders them. */
static void window_take(void *ctx, uint64_t base, const void *got, int sum)
{
    const window_ctx *c = ctx;
    const hash_scratch *x = c->x;
    const hash_entry *e = got;
    memset(x->seen, 0, x->win);
    for (int k = 0; k < sum; ++k) {
        uint64_t o = e[k].key - base;
        x->slot[o] = e[k];
        x->seen[o] = 1;
    }
    for (uint64_t o = 0; o < x->win; ++o) {
        if (x->seen[o]) {
            c->visit(c->context, &x->slot[o]);
        }
    }
}

/* Collective: visit(context, e) on rank 0 for every agent, in key order. */
static void window_pass(orca_mpi *m, const hash_scratch *x, window_fn *visit, void *context)
{
    window_ctx c = {m, x, 0, visit, context};
    mpi_gather g = {.keys = m->next_key, .win = x->win, .size = sizeof(hash_entry),
                    .counts = x->counts, .mine = x->mine, .got = x->got,
                    .fill = window_fill, .take = window_take, .ctx = &c};
    mpi_window_gather(m, &g);
}

typedef struct hash_visit {
    uint64_t h;
    int part;
    int64_t index;
} hash_visit;

static void hash_one(void *context, const hash_entry *e)
{
    hash_visit *v = context;
    v->h = h_part(v->h, e, v->part, v->index++);
}

/* Collective: h continued on rank 0 over every agent's part, in key order. */
static uint64_t hash_pass(orca_mpi *m, const hash_scratch *x, int part, uint64_t h)
{
    hash_visit v = {h, part, 0};
    window_pass(m, x, hash_one, &v);
    return v.h;
}

/* Collective: the scratch of a windowed pass (freed by scratch_free); ORCA_OK on every rank or
 * a refusal on every rank. */
static orca_status scratch_new(orca_mpi *m, hash_scratch *x)
{
    /* a window of HASH_WINDOW keys, or of every key when there are fewer */
    x->win = m->next_key < HASH_WINDOW ? (m->next_key > 0 ? m->next_key : 1) : HASH_WINDOW;
    x->counts = malloc(2 * (size_t)m->size * sizeof *x->counts);
    x->mine = malloc(x->win * sizeof *x->mine);
    x->got = m->rank == 0 ? malloc(x->win * sizeof *x->got) : NULL;
    x->slot = m->rank == 0 ? malloc(x->win * sizeof *x->slot) : NULL;
    x->seen = m->rank == 0 ? malloc(x->win) : NULL;
    orca_status st = x->counts && x->mine && (m->rank != 0 || (x->got && x->slot && x->seen))
                         ? ORCA_OK
                         : mpi_local_fail(m, ORCA_ERR_MEMORY,
                                          "out of memory (a pass over the agents)");
    return mpi_agree(m, st);
}

static void scratch_free(hash_scratch *x)
{
    free(x->counts);
    free(x->mine);
    free(x->got);
    free(x->slot);
    free(x->seen);
}

orca_status mpi_records_gather(orca_mpi *m, const mpi_records *r)
{
    int root = m->rank == 0;
    uint64_t win = r->win, windows = (r->keys + win - 1) / win;
    int64_t at = 0, cap = 0, gcap = 0;
    unsigned char *mine = NULL, *got = NULL;
    int *counts = malloc(2 * (size_t)m->size * sizeof *counts), *displs = counts + m->size;
    int64_t *where = root ? malloc(win * sizeof *where) : NULL;
    orca_status st = counts && (!root || where)
                         ? ORCA_OK
                         : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (%s)", r->what);
    for (uint64_t w = 0; w < windows && (st = mpi_agree(m, st)) == ORCA_OK; ++w) {
        uint64_t end = (w + 1) * win;
        int64_t len = 0;
        while (at < m->own_n && m->own[at].key < end) {
            const mpi_agent *a = &m->own[at];
            int64_t need = r->put(r->ctx, a, NULL, 0);
            if (need >= 0 && !mpi_reserve((void **)&mine, &cap, len + 16 + need, 1)) {
                st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (%s)", r->what);
                break;
            }
            if (need >= 0) {
                memcpy(mine + len, &a->key, 8);
                uint64_t n = (uint64_t)need;
                memcpy(mine + len + 8, &n, 8);
                r->put(r->ctx, a, mine + len + 16, (size_t)need);
                len += 16 + need;
            }
            ++at;
        }
        if (len > INT32_MAX) {
            st = mpi_local_fail(m, ORCA_ERR_LIMIT, "%lld bytes of %s in one window",
                                (long long)len, r->what);
        }
        if ((st = mpi_agree(m, st)) != ORCA_OK) {
            break;
        }
        int n = (int)len;
        MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, m->comm);
        int64_t sum = 0;
        if (root) {
            for (int k = 0; k < m->size; ++k) {
                displs[k] = (int)sum;
                sum += counts[k];
            }
            if (sum > INT32_MAX || !mpi_reserve((void **)&got, &gcap, sum + 1, 1)) {
                st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (%s)", r->what);
            }
        }
        if ((st = mpi_agree(m, st)) != ORCA_OK) {
            break;
        }
        MPI_Gatherv(mine, n, MPI_BYTE, got, counts, displs, MPI_BYTE, 0, m->comm);
        if (!root) {
            continue;
        }
        /* every record of the window once: its place, by key */
        uint64_t base = w * win;
        for (uint64_t k = 0; k < win; ++k) {
            where[k] = -1;
        }
        for (int64_t o = 0; o < sum;) {
            uint64_t key, bytes;
            memcpy(&key, got + o, 8);
            memcpy(&bytes, got + o + 8, 8);
            where[key - base] = o;
            o += 16 + (int64_t)bytes;
        }
        for (uint64_t k = 0; k < win; ++k) {
            if (where[k] >= 0) {
                uint64_t bytes;
                memcpy(&bytes, got + where[k] + 8, 8);
                r->take(r->ctx, base + k, got + where[k] + 16, (size_t)bytes);
            }
        }
    }
    free(mine);
    free(got);
    free(counts);
    free(where);
    return st;
}

typedef struct nav_visit {
    int part;
    uint64_t h, index;
} nav_visit;

static int64_t nav_put(void *ctx, const mpi_agent *a, unsigned char *out, size_t cap)
{
    return (int64_t)mpi_nav_hash_bytes(a, ((const nav_visit *)ctx)->part, out, cap);
}

/* Every agent present has a record, so the records count the index. */
static void nav_take(void *ctx, uint64_t key, const unsigned char *bytes, size_t len)
{
    (void)key;
    nav_visit *v = ctx;
    if (len > 0) {
        v->h = hash_u64(v->h, v->index);
        v->h = hash_bytes(v->h, bytes, len);
    }
    ++v->index;
}

/* Collective: h continued on rank 0 over navigation's part (HASH_NAV or HASH_NAV_CHOICE) of
 * every agent with bytes in it, in key order, each after its one-process index (its place
 * among the agents present): docs/navigation.md's "State" as orca_scenario_hash hashes it.
 * The bytes vary in length, so each window's travel as (key, length, bytes) records. */
static orca_status nav_pass(orca_mpi *m, const hash_scratch *x, int part, uint64_t *h)
{
    nav_visit v = {part, *h, 0};
    mpi_records r = {.keys = m->next_key, .win = x->win, .put = nav_put, .take = nav_take,
                     .ctx = &v, .what = "the paths' hash"};
    orca_status st = mpi_records_gather(m, &r);
    *h = v.h;
    return st;
}

typedef struct csv_visit {
    FILE *f;
    uint64_t step;
    double t;
    long long index;
} csv_visit;

static void csv_one(void *context, const hash_entry *e)
{
    csv_visit *v = context;
    fprintf(v->f, "%llu,%.17g,%lld,%.17g,%.17g,%.17g,%.17g\n", (unsigned long long)v->step, v->t,
            v->index++, e->def.position.x, e->def.position.y, e->def.velocity.x,
            e->def.velocity.y);
}

orca_status orca_mpi_write_csv(orca_mpi *m, FILE *f)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    orca_status st = m->rank == 0 && !f ? mpi_local_fail(m, ORCA_ERR_NULL, "no file on rank 0")
                                        : ORCA_OK;
    st = mpi_agree(m, st);
    hash_scratch x;
    memset(&x, 0, sizeof x);
    if (st == ORCA_OK) {
        st = scratch_new(m, &x);
    }
    if (st == ORCA_OK) {
        csv_visit v = {f, m->steps, (double)m->steps * m->def.dt, 0};
        window_pass(m, &x, csv_one, &v);
        if (m->rank == 0 && ferror(f)) {
            st = mpi_local_fail(m, ORCA_ERR_IO, "writing the rows: %s", strerror(errno));
        }
        st = mpi_agree(m, st);
    }
    scratch_free(&x);
    return st;
}

uint64_t orca_mpi_hash(orca_mpi *m, orca_status *status)
{
    if (status) {
        *status = ORCA_OK;
    }
    if (!m) {
        if (status) {
            *status = ORCA_ERR_NULL;
        }
        return 0;
    }
    m->error[0] = '\0';
    /* the agents, those not at the avoidance defaults, those with a stream and those with
     * waypoints, over all ranks */
    long long mine[4] = {m->own_n, 0, 0, 0}, total[4] = {0, 0, 0, 0};
    for (int64_t i = 0; i < m->own_n; ++i) {
        mine[1] += !orca_ext_is_default(&m->own[i].ext);
        mine[2] += m->own[i].stream >= 0;
        mine[3] += m->own[i].wp_row >= 0;
    }
    MPI_Allreduce(mine, total, 4, MPI_LONG_LONG, MPI_SUM, m->comm);
    hash_scratch x;
    orca_status st = scratch_new(m, &x);
    uint64_t h = FNV_OFFSET;
    if (st == ORCA_OK) {
        /* the sections of the one-process state hash (docs/determinism.md), in its order */
        h = hash_u64(h, (uint64_t)total[0]);
        h = hash_pass(m, &x, HP_CORE, h);
        h = hash_u64(h, (uint64_t)m->seg_n);
        for (int32_t k = 0; k < m->seg_n; ++k) {
            h = hash_f64(h, m->seg_a[k].x);
            h = hash_f64(h, m->seg_a[k].y);
            h = hash_f64(h, m->seg_b[k].x);
            h = hash_f64(h, m->seg_b[k].y);
        }
        if (total[1] > 0) {
            h = hash_u64(h, HASH_EXT_TAG);
            h = hash_pass(m, &x, HP_EXT, h);
        }
        if (m->bnd_n > 0) {
            h = hash_u64(h, HASH_BND_TAG);
            h = hash_u64(h, (uint64_t)m->bnd_n);
            for (int32_t l = 0, at = 0; l < m->bnd_n; at += m->bnd_len[l++]) {
                h = hash_u64(h, (uint64_t)m->bnd_len[l]);
                for (int32_t k = 0; k < m->bnd_len[l]; ++k) {
                    h = hash_f64(h, m->bnd_pt[at + k].x);
                    h = hash_f64(h, m->bnd_pt[at + k].y);
                }
            }
        }
        const mpi_options *o = &m->opt;
        h = orca_hash_options(h, o->separation, o->density_on ? &o->density : NULL,
                              o->ped_on ? &o->ped : NULL);
        if (total[2] > 0) {
            h = hash_u64(h, HASH_STR_TAG);
            h = hash_pass(m, &x, HP_STREAM, h);
        }
        if (m->nav) { /* the scenario's sections after the simulation's (orca_sc_hash_with) */
            static const char tag[] = "orca-nav", tag2[] = "orca-nav-choice";
            h = hash_bytes(h, (const unsigned char *)tag, sizeof tag - 1);
            st = nav_pass(m, &x, HASH_NAV, &h);
            if (st == ORCA_OK && mpi_nav_choice_hashed(m)) {
                uint64_t check, choice;
                mpi_nav_hash_settings(m, &check, &choice);
                h = hash_bytes(h, (const unsigned char *)tag2, sizeof tag2 - 1);
                h = hash_u64(hash_u64(h, check), choice);
                st = nav_pass(m, &x, HASH_NAV_CHOICE, &h);
            }
        }
        /* the scenario's waypoint section (docs/determinism.md): their count, then each
         * agent with waypoints by its index and its current target's index */
        if (st == ORCA_OK && total[3] > 0) {
            h = hash_u64(h, (uint64_t)total[3]);
            h = hash_pass(m, &x, HP_WAYPOINT, h);
        }
        MPI_Bcast(&h, 1, MPI_UINT64_T, 0, m->comm);
    }
    scratch_free(&x);
    if (status) {
        *status = st;
    }
    return st == ORCA_OK ? h : 0;
}

