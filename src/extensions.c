/* SPDX-License-Identifier: MIT */
/* Per-agent avoidance settings (priority, layers and mask, locked) and per-agent diagnostics
 * of the last step: their API and their storage (with that of the pedestrian model's streams,
 * pedestrian.c) (docs/extensions.md, "Priority, layers and
 * locked agents" and "Diagnostics"). The arrays are allocated when first needed; while every
 * agent is at the defaults and diagnostics are off the step never reads them (ext_path), so
 * it is the algorithm's plain step. The step's extended path is in step.c. */
#include "sim_internal.h"

#include <string.h>

static const agent_ext ext_default = {1.0, 1u, 0xFFFFFFFFu, 0};

orca_agent_avoidance orca_agent_avoidance_default(void)
{
    orca_agent_avoidance a;
    a.priority = ext_default.priority;
    a.layers = ext_default.layers;
    a.mask = ext_default.mask;
    a.locked = ext_default.locked;
    return a;
}

agent_ext orca_ext_defaults(void)
{
    return ext_default;
}

int orca_ext_is_default(const agent_ext *e)
{
    return e->priority == ext_default.priority && e->layers == ext_default.layers &&
           e->mask == ext_default.mask && e->locked == ext_default.locked;
}

static void diag_clear(orca_agent_diagnostics *d)
{
    memset(d, 0, sizeof *d);
    d->failed_constraint = -1;
}

int orca_ext_reserve(orca_sim *s, int32_t cap)
{
    if (s->ext) {
        agent_ext *p = orca_mem_resize(s->ext, (size_t)cap, sizeof *s->ext);
        if (!p) {
            return 0;
        }
        s->ext = p;
    }
    if (s->diag) {
        orca_agent_diagnostics *p = orca_mem_resize(s->diag, (size_t)cap, sizeof *s->diag);
        if (!p) {
            return 0;
        }
        s->diag = p;
    }
    if (s->stream) {
        int32_t *p = orca_mem_resize(s->stream, (size_t)cap, sizeof *s->stream);
        if (!p) {
            return 0;
        }
        s->stream = p;
    }
    return 1;
}

void orca_ext_append(orca_sim *s, int32_t i)
{
    if (s->ext) {
        s->ext[i] = ext_default;
    }
    if (s->diag) {
        diag_clear(&s->diag[i]);
    }
    if (s->stream) {
        s->stream[i] = -1;
    }
}

/* Allocates ext (every agent at the defaults) when it is not there yet. */
int orca_ext_ensure(orca_sim *s)
{
    if (s->ext) {
        return 1;
    }
    int32_t cap = s->agent_capacity > 0 ? s->agent_capacity : 1;
    agent_ext *e = orca_mem_alloc((size_t)cap, sizeof *e);
    if (!e) {
        return 0;
    }
    for (int32_t i = 0; i < s->agent_count; ++i) {
        e[i] = ext_default;
    }
    s->ext = e;
    return 1;
}

/* Allocates diag (every entry cleared) when it is not there yet. */
int orca_diag_ensure(orca_sim *s)
{
    if (s->diag) {
        return 1;
    }
    int32_t cap = s->agent_capacity > 0 ? s->agent_capacity : 1;
    orca_agent_diagnostics *d = orca_mem_alloc((size_t)cap, sizeof *d);
    if (!d) {
        return 0;
    }
    for (int32_t i = 0; i < s->agent_count; ++i) {
        diag_clear(&d[i]);
    }
    s->diag = d;
    return 1;
}

orca_status orca_check_avoidance(const orca_sim *s, const orca_agent_avoidance *a)
{
    /* the negated comparison also refuses NaN */
    if (!(a->priority >= ORCA_PRIORITY_MIN && a->priority <= ORCA_PRIORITY_MAX)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "priority must be in [2^-30, 2^30], got %.17g",
                         a->priority);
    }
    if (a->locked != 0 && a->locked != 1) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "locked must be 0 or 1, got %d", a->locked);
    }
    return ORCA_OK;
}

int orca_ext_store(orca_sim *s, int32_t i, const agent_ext *e)
{
    if (!s->ext && orca_ext_is_default(e)) {
        return 1; /* nothing to store: every agent is at the defaults */
    }
    if (!orca_ext_ensure(s)) {
        return 0;
    }
    s->ext_nondefault += !orca_ext_is_default(e) - !orca_ext_is_default(&s->ext[i]);
    s->ext[i] = *e;
    return 1;
}

orca_status orca_agent_set_avoidance(orca_sim *s, orca_agent_id id, const orca_agent_avoidance *a)
{
    AGENT_OR_FAIL(s, id, i);
    if (!a) {
        return orca_fail(s, ORCA_ERR_NULL, "avoidance settings are NULL");
    }
    orca_status st = orca_check_avoidance(s, a);
    if (st != ORCA_OK) {
        return st;
    }
    agent_ext e = {a->priority, a->layers, a->mask, a->locked};
    if (!orca_ext_store(s, i, &e)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory for the avoidance settings of %d agents",
                         s->agent_count);
    }
    return ORCA_OK;
}

orca_status orca_agent_get_avoidance(const orca_sim *s, orca_agent_id id, orca_agent_avoidance *out)
{
    AGENT_OR_FAIL(s, id, i);
    if (!out) {
        return orca_fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    const agent_ext *e = s->ext ? &s->ext[i] : &ext_default;
    out->priority = e->priority;
    out->layers = e->layers;
    out->mask = e->mask;
    out->locked = e->locked;
    return ORCA_OK;
}

orca_status orca_agent_set_priority(orca_sim *s, orca_agent_id id, double priority)
{
    orca_agent_avoidance a;
    orca_status st = orca_agent_get_avoidance(s, id, &a);
    if (st != ORCA_OK) {
        return st;
    }
    a.priority = priority;
    return orca_agent_set_avoidance(s, id, &a);
}

orca_status orca_agent_set_layers(orca_sim *s, orca_agent_id id, uint32_t layers, uint32_t mask)
{
    orca_agent_avoidance a;
    orca_status st = orca_agent_get_avoidance(s, id, &a);
    if (st != ORCA_OK) {
        return st;
    }
    a.layers = layers;
    a.mask = mask;
    return orca_agent_set_avoidance(s, id, &a);
}

orca_status orca_agent_set_locked(orca_sim *s, orca_agent_id id, int locked)
{
    orca_agent_avoidance a;
    orca_status st = orca_agent_get_avoidance(s, id, &a);
    if (st != ORCA_OK) {
        return st;
    }
    a.locked = locked;
    return orca_agent_set_avoidance(s, id, &a);
}

/* --- separation of coincident agents ----------------------------------------------------- */

orca_status orca_sim_set_separation(orca_sim *s, int on)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (on != 0 && on != 1) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "separation must be 0 or 1, got %d", on);
    }
    s->separation = on;
    return ORCA_OK;
}

int orca_sim_get_separation(const orca_sim *s)
{
    return s ? s->separation : 0;
}

int orca_sim_separation_active(const orca_sim *s)
{
    return s ? sep_active(s) : 0;
}

/* --- diagnostics ------------------------------------------------------------------------ */

orca_status orca_sim_set_diagnostics(orca_sim *s, int on)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (on != 0 && on != 1) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "diagnostics must be 0 or 1, got %d", on);
    }
    if (on && !orca_diag_ensure(s)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory for the diagnostics of %d agents",
                         s->agent_count);
    }
    s->diagnostics = on;
    return ORCA_OK;
}

int orca_sim_get_diagnostics(const orca_sim *s)
{
    return s ? s->diagnostics : 0;
}

orca_status orca_agent_get_diagnostics(const orca_sim *s, orca_agent_id id,
                                       orca_agent_diagnostics *out)
{
    AGENT_OR_FAIL(s, id, i);
    if (!out) {
        return orca_fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    if (s->diag) {
        *out = s->diag[i];
    } else {
        diag_clear(out);
    }
    return ORCA_OK;
}

orca_status orca_sim_diagnostics(const orca_sim *s, orca_agent_diagnostics *out, int capacity,
                                 int *count)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (capacity < 0 || (capacity > 0 && !out)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "out must hold capacity (%d) entries", capacity);
    }
    orca_agents_settle(s);
    int n = capacity < s->agent_count ? capacity : s->agent_count;
    for (int i = 0; i < n; ++i) {
        if (s->diag) {
            out[i] = s->diag[i];
        } else {
            diag_clear(&out[i]);
        }
    }
    if (count) {
        *count = s->agent_count;
    }
    return ORCA_OK;
}

orca_status orca_sim_step_diagnostics(const orca_sim *s, orca_step_diagnostics *out)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (!out) {
        return orca_fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    *out = s->diag_counts;
    return ORCA_OK;
}
