/* SPDX-License-Identifier: MIT */
/* The pedestrian model (docs/pedestrians.md): its parameters and their API, the agents'
 * streams, and the two per-agent parts the step runs on its extended path (step.c,
 * sim_step.inc): counter mode (part A) and the headway half-planes (part C). Every operation
 * is the one the documentation lists, in its order, so that a port reproduces the bits. Both
 * parts read only start-of-step state, from the step's sorted copies: positions and radii
 * (the grid's), the stored preferred velocities and the streams (orca_ped_prepare). */
#include "sim_internal.h"
#include "sim_peek.h"

#include <string.h>

/* --- parameters ---------------------------------------------------------------------------- */

orca_pedestrian orca_pedestrian_default(void)
{
    orca_pedestrian p = ORCA_PEDESTRIAN_DEFAULT;
    return p;
}

orca_status orca_check_pedestrian(const orca_sim *s, const orca_pedestrian *p)
{
    /* the negated comparisons also refuse NaN */
    if (!(p->time_gap >= ORCA_PED_TIME_GAP_MIN && p->time_gap <= ORCA_PED_TIME_GAP_MAX)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "pedestrian time_gap must be in [2^-30, 2^30] s, got %.17g",
                         p->time_gap);
    }
    if (!(p->buffer >= 0 && p->buffer <= ORCA_PED_BUFFER_MAX)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "pedestrian buffer must be in [0, 2^21] m, got %.17g", p->buffer);
    }
    if (!(p->counter_reach >= 0 && p->counter_reach <= ORCA_PED_COUNTER_REACH_MAX)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "pedestrian counter_reach must be in [0, 2^23] m, got %.17g",
                         p->counter_reach);
    }
    if (p->max_planes < 1 || p->max_planes > ORCA_MAX_NEIGHBORS_LIMIT) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "pedestrian max_planes must be in [1, %d], got %d",
                         ORCA_MAX_NEIGHBORS_LIMIT, p->max_planes);
    }
    return ORCA_OK;
}

orca_status orca_sim_set_pedestrian(orca_sim *s, const orca_pedestrian *p)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (!p) {
        s->ped_on = 0;
        return ORCA_OK;
    }
    orca_status st = orca_check_pedestrian(s, p);
    if (st != ORCA_OK) {
        return st;
    }
    if (s->density_on) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "the pedestrian model cannot be on with the density-dependent speed "
                         "(both set the walking speed): turn density_speed off first");
    }
    s->ped = *p;
    s->ped_on = 1;
    return ORCA_OK;
}

int orca_sim_get_pedestrian(const orca_sim *s, orca_pedestrian *out)
{
    if (!s) {
        return 0;
    }
    if (out) {
        *out = s->ped_on ? s->ped : orca_pedestrian_default();
    }
    return s->ped_on;
}

/* --- streams ------------------------------------------------------------------------------- */

int orca_sim_streams_reserve(orca_sim *s)
{
    if (s->stream) {
        return 1;
    }
    int32_t cap = s->agent_capacity > 0 ? s->agent_capacity : 1;
    int32_t *g = orca_mem_alloc((size_t)cap, sizeof *g);
    if (!g) {
        return 0;
    }
    for (int32_t k = 0; k < s->agent_count; ++k) {
        g[k] = -1; /* pending removals included: their entries are never read */
    }
    s->stream = g;
    return 1;
}

orca_status orca_check_stream(const orca_sim *s, int32_t stream)
{
    if (stream < -1) {
        return orca_fail(s, ORCA_ERR_ARGUMENT,
                         "stream must be -1 (none) or a number >= 0, got %ld", (long)stream);
    }
    return ORCA_OK;
}

orca_status orca_agent_set_stream(orca_sim *s, orca_agent_id id, int32_t stream)
{
    AGENT_OR_FAIL(s, id, i);
    orca_status st = orca_check_stream(s, stream);
    if (st != ORCA_OK) {
        return st;
    }
    if (!orca_stream_store(s, i, stream)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory for the streams of %d agents",
                         s->agent_count);
    }
    return ORCA_OK;
}

int orca_stream_store(orca_sim *s, int32_t i, int32_t g)
{
    if (!s->stream && g < 0) {
        return 1; /* nothing to store: every agent has none */
    }
    if (!orca_sim_streams_reserve(s)) {
        return 0;
    }
    s->stream_count += (g >= 0) - (s->stream[i] >= 0);
    s->stream[i] = g;
    return 1;
}

orca_status orca_agent_get_stream(const orca_sim *s, orca_agent_id id, int32_t *out)
{
    AGENT_OR_FAIL(s, id, i);
    if (!out) {
        return orca_fail(s, ORCA_ERR_NULL, "output pointer is NULL");
    }
    *out = s->stream ? s->stream[i] : -1;
    return ORCA_OK;
}

/* --- the step's part ----------------------------------------------------------------------- */

/* The sorted copies for the agents at sorted positions [begin, end), each its own slot, and
 * the least and largest stream >= 0 among them into the worker's (exact: the same in any
 * split). */
static void ped_gather_task(int begin, int end, int worker_index, void *context)
{
    orca_sim *s = context;
    if (orca_bad_worker_index(s, worker_index)) {
        return;
    }
    worker *w = &s->workers[worker_index];
    int32_t lo = w->stream_lo, hi = w->stream_hi;
    for (int32_t at = begin; at < end; ++at) {
        int32_t i = s->cell_index[at];
        int32_t g = s->stream ? s->stream[i] : -1;
        s->cell_pref[at] = s->pref[i];
        s->cell_stream[at] = g;
        lo = g >= 0 && g < lo ? g : lo;
        hi = g > hi ? g : hi;
    }
    w->stream_lo = lo;
    w->stream_hi = hi;
}

orca_status orca_ped_prepare(orca_sim *s)
{
    if (s->cell_ped_cap < s->agent_count) {
        orca_vec2 *q = orca_mem_resize(s->cell_pref, (size_t)s->agent_capacity, sizeof *q);
        if (q) {
            s->cell_pref = q;
        }
        int32_t *g = q ? orca_mem_resize(s->cell_stream, (size_t)s->agent_capacity, sizeof *g)
                       : NULL;
        if (!g) {
            return orca_fail(s, ORCA_ERR_MEMORY,
                             "out of memory for the pedestrian model's copies of %d agents",
                             s->agent_count);
        }
        s->cell_stream = g;
        s->cell_ped_cap = s->agent_capacity;
    }
    for (int k = 0; k < s->worker_count; ++k) {
        s->workers[k].stream_lo = INT32_MAX;
        s->workers[k].stream_hi = -1;
    }
    atomic_store(&s->bad_worker, -1);
    orca_run_light_task(s, ped_gather_task, s->agent_count, s);
    int bad = atomic_load(&s->bad_worker);
    if (bad >= 0) {
        return orca_fail_bad_worker(s, bad);
    }
    int32_t lo = INT32_MAX, hi = -1;
    for (int k = 0; k < s->worker_count; ++k) {
        lo = s->workers[k].stream_lo < lo ? s->workers[k].stream_lo : lo;
        hi = s->workers[k].stream_hi > hi ? s->workers[k].stream_hi : hi;
    }
    s->ped_opposing = lo < hi; /* two different streams >= 0 (hi = -1: none at all) */
    return ORCA_OK;
}

int orca_ped_counter(const orca_sim *s, int32_t self, orca_vec2 P, const neighbor *list, int na)
{
    int32_t g = s->cell_stream[self];
    if (g < 0 || !s->ped_opposing) {
        return 0; /* no stream, or nobody of another one */
    }
    double reach2 = s->ped.counter_reach * s->ped.counter_reach;
    for (int k = 0; k < na && list[k].dist2 < reach2; ++k) {
        int32_t at = list[k].at;
        int32_t h = s->cell_stream[at];
        orca_vec2 q = s->cell_pref[at];
        if (h >= 0 && h != g && v2_dot(P, q) < 0) {
            return 1;
        }
    }
    return 0;
}

/* The turn of the side preference: tan = 1/8 (about 7.1 degrees) and 8 / sqrt(65), the norm's
 * inverse, as binary64 evaluates it (the square root rounded, then the quotient; one ulp above
 * the nearest double of the exact value): a constant (docs/pedestrians.md, part D). */
#define PED_SIDE_TAN 0.125
#define PED_SIDE_NORM 0x1.fc0bd88a0f1dap-1

orca_vec2 orca_ped_keep_right(orca_vec2 P)
{
    /* the right of P = (x, y) is (y, -x): P + (y, -x) / 8, scaled back to |P| */
    return v2((P.x + P.y * PED_SIDE_TAN) * PED_SIDE_NORM,
              (P.y - P.x * PED_SIDE_TAN) * PED_SIDE_NORM);
}

/* List entries are filtered this many at a time, without branches, before any square root:
 * about half of a list lies behind the agent, and most of the rest beyond the reach. */
#define PED_CHUNK 8

/* The smallest squared distance of a headway pair: below it (centres within 2^-511 m) the
 * direction d / |d| would be lost to rounding, and ORCA's overlap case separates the pair. */
#define PED_D2_MIN 0x1p-1022

/* The mask of the entries list[0 .. len-1] ahead of the agent at p along P (a = Dot(d, P) > 0)
 * and within reach (d2 < m * m, m = (r + r_j + b) + R * T). */
static ORCA_ALWAYS_INLINE uint32_t ped_filter(const orca_sim *s, const neighbor *list, int len,
                                              orca_vec2 p, orca_vec2 P, double r, double b,
                                              double rt)
{
    uint32_t mask = 0;
    for (int q = 0; q < len; ++q) {
        int32_t at = list[q].at;
        orca_vec2 d = v2_sub(s->cell_pos[at], p);
        double a = v2_dot(d, P);
        double m = ((r + s->cell_radius[at]) + b) + rt;
        double d2 = list[q].dist2;
        uint32_t ok = (a > 0) & (d2 >= PED_D2_MIN) & (d2 < m * m);
        mask |= ok << q;
    }
    return mask;
}

int orca_ped_headway(const orca_sim *s, int32_t self, orca_vec2 P, const neighbor *list, int na,
                     orca_halfplane *out)
{
    double pp = v2_dot(P, P);
    if (!(pp > 0)) {
        return 0; /* standing: no headway to keep */
    }
    orca_vec2 p = s->cell_pos[self];
    double r = s->cell_radius[self];
    int32_t i = s->cell_index[self];
    double T = s->ped.time_gap, b = s->ped.buffer;
    double rt = s->par[i].max_speed * T;
    int most = s->ped.max_planes, n = 0;
    for (int k0 = 0; k0 < na; k0 += PED_CHUNK) {
        int len = na - k0 < PED_CHUNK ? na - k0 : PED_CHUNK;
        uint32_t mask = ped_filter(s, list + k0, len, p, P, r, b, rt);
        while (mask) {
            int q = lowest_bit(mask);
            mask &= mask - 1;
            int32_t at = list[k0 + q].at;
            orca_vec2 d = v2_sub(s->cell_pos[at], p);
            orca_vec2 Q = s->cell_pref[at];
            double w = v2_dot(d, Q);
            if (w < 0) {
                /* j walks towards i: the one ahead along Unit(P) + Unit(Q) goes first (its
                 * sign is that of a |Q| - |w| |P|, compared squared; ties: the lower index) */
                double a = v2_dot(d, P);
                double lhs = (a * a) * v2_dot(Q, Q);
                double rhs = (w * w) * pp;
                if (lhs < rhs || (lhs == rhs && i < s->cell_index[at])) {
                    continue;
                }
            }
            double L = (r + s->cell_radius[at]) + b;
            double dist = sqrt(list[k0 + q].dist2);
            double c = (dist - L) / T;
            orca_vec2 u = v2(d.x / dist, d.y / dist);
            out[n].point = v2(u.x * c, u.y * c);
            out[n].normal = v2(-u.x, -u.y);
            if (++n == most) {
                return n;
            }
        }
    }
    return n;
}
