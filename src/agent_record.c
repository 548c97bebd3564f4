/* SPDX-License-Identifier: MIT */
/* An agent's whole state in a simulation as bytes (its record), and agents inserted at given
 * indices: what orca on MPI (mpi/, docs/mpi.md) moves between processes, keeps for the copies
 * of its neighbours' agents and writes into checkpoints. The record holds every per-agent value
 * of the simulation (the search hint included, which is not state but keeps a moved agent's
 * search warm), so a new per-agent value travels with its agent by being added here and to
 * orca_agents_move. Values are little-endian (snap_io.h): a record reads back on any machine. */
#include "agent_record.h"

#include "sim_internal.h"
#include "snap_io.h"

void orca_agent_record_put(const orca_sim *s, int32_t i, unsigned char *out)
{
    snap_writer w = {out};
    const agent_params *p = &s->par[i];
    put_vec(&w, s->pos[i]);
    put_vec(&w, s->vel[i]);
    put_vec(&w, s->pref[i]);
    put_f64(&w, p->radius);
    put_f64(&w, p->max_speed);
    put_f64(&w, p->neighbor_dist);
    put_f64(&w, p->tau);
    put_f64(&w, p->tau_obst);
    put_u32(&w, (uint32_t)p->max_neighbors);
    uint32_t hint;
    memcpy(&hint, &p->nb_guess, sizeof hint);
    put_u32(&w, hint);
    agent_ext e = {1.0, 1u, UINT32_MAX, 0};
    if (s->ext) {
        e = s->ext[i];
    }
    put_f64(&w, e.priority);
    put_u32(&w, e.layers);
    put_u32(&w, e.mask);
    put_u32(&w, (uint32_t)e.locked);
    put_u32(&w, 0); /* reserved */
}

/* The record's values (def, settings, hint). */
static void record_read(const unsigned char *in, orca_agent_def *d, agent_ext *e, float *hint,
                        uint32_t *reserved)
{
    snap_reader r = {in};
    d->position = get_vec(&r);
    d->velocity = get_vec(&r);
    d->preferred_velocity = get_vec(&r);
    d->radius = bits_f64(get_u64(&r));
    d->max_speed = bits_f64(get_u64(&r));
    d->neighbor_dist = bits_f64(get_u64(&r));
    d->time_horizon = bits_f64(get_u64(&r));
    d->obstacle_time_horizon = bits_f64(get_u64(&r));
    d->max_neighbors = (int)(int32_t)get_u32(&r);
    uint32_t h = get_u32(&r);
    memcpy(hint, &h, sizeof *hint);
    e->priority = bits_f64(get_u64(&r));
    e->layers = get_u32(&r);
    e->mask = get_u32(&r);
    e->locked = (int32_t)get_u32(&r);
    *reserved = get_u32(&r);
}

orca_status orca_agent_record_check(const orca_sim *s, const unsigned char *in)
{
    orca_agent_def d;
    agent_ext e;
    float hint;
    uint32_t reserved;
    record_read(in, &d, &e, &hint, &reserved);
    orca_status st = orca_check_agent_def(s, &d);
    if (st != ORCA_OK) {
        return st;
    }
    orca_agent_avoidance a = {e.priority, e.layers, e.mask, (int)e.locked};
    if ((st = orca_check_avoidance(s, &a)) != ORCA_OK) {
        return st;
    }
    if (!(hint - hint == 0.0f) || reserved != 0) {
        return orca_fail(s, ORCA_ERR_FORMAT, "search hint %g or reserved word %u out of range",
                         (double)hint, (unsigned)reserved);
    }
    return ORCA_OK;
}

/* Agent i takes the record's values (storage only: the grid is rebuilt at the next step). */
static int record_store(orca_sim *s, int32_t i, const unsigned char *in)
{
    orca_agent_def d;
    agent_ext e;
    float hint;
    uint32_t reserved;
    record_read(in, &d, &e, &hint, &reserved);
    if (!orca_ext_store(s, i, &e)) {
        return 0;
    }
    orca_agent_store(s, i, &d);
    s->par[i].nb_guess = hint;
    if (s->bounds_valid) {
        bounds_add(&s->bounds, &s->par[i], d.position);
    }
    return 1;
}

orca_status orca_agent_record_get(orca_sim *s, int32_t i, const unsigned char *in)
{
    orca_agents_settle(s);
    if (s->bounds_valid) {
        bounds_drop_sizes(&s->bounds, &s->par[i]);
    }
    if (!record_store(s, i, in)) {
        if (s->bounds_valid) {
            bounds_add_sizes(&s->bounds, &s->par[i]); /* the old values stay */
        }
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory for the avoidance settings of %d "
                         "agents", s->agent_count);
    }
    s->grid_valid = 0;
    return ORCA_OK;
}

orca_status orca_agents_insert(orca_sim *s, const int32_t *at, int32_t count,
                               const unsigned char *records, size_t stride, orca_agent_id *ids)
{
    orca_agents_settle(s);
    int32_t n = s->agent_count;
    if (count <= 0) {
        return ORCA_OK;
    }
    if (n > (1 << 30) - count) {
        return orca_fail(s, ORCA_ERR_LIMIT, "too many agents (%d + %d)", n, count);
    }
    if (!orca_agents_reserve(s, n + count) ||
        !orca_slots_reserve(&s->agent_slots, s->agent_slots.count + count)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory inserting %d agents", count);
    }
    /* the settings' array first, when a record needs it (so that nothing fails below) */
    for (int32_t k = 0; k < count && !s->ext; ++k) {
        orca_agent_def d;
        agent_ext e;
        float hint;
        uint32_t reserved;
        record_read(records + (size_t)k * stride, &d, &e, &hint, &reserved);
        if (!orca_ext_is_default(&e) && !orca_ext_ensure(s)) {
            return orca_fail(s, ORCA_ERR_MEMORY, "out of memory for the avoidance settings of "
                             "%d agents", n + count);
        }
    }
    /* From the last insertion back: the old agents after the k-th new one (old indices from
     * at[k] - k) move up by k + 1, whole runs, leaving the new agents' places free. */
    int32_t end = n;
    for (int32_t k = count - 1; k >= 0; --k) {
        int32_t begin = at[k] - k;
        orca_agents_move(s, begin + k + 1, begin, end - begin);
        end = begin;
    }
    s->agent_count = n + count;
    s->index_limit = n + count;
    for (int32_t k = 0; k < count; ++k) {
        int32_t i = at[k];
        int32_t slot = orca_slots_peek(&s->agent_slots);
        orca_slots_take(&s->agent_slots, slot, i);
        s->agent_slot[i] = (uint32_t)slot;
        /* defaults first (counted as such), then the record's values */
        s->par[i].max_neighbors = 0;
        orca_ext_append(s, i);
        record_store(s, i, records + (size_t)k * stride); /* room made: it cannot fail */
        if (ids) {
            ids[k].slot = (uint32_t)slot;
            ids[k].generation = s->agent_slots.generation[slot];
            ids[k].sim = s->id;
        }
    }
    s->grid_valid = 0;
    return ORCA_OK;
}
