/* SPDX-License-Identifier: MIT */
/* The pedestrian model (docs/pedestrians.md): the step against a reference written here from
 * the documentation (the neighbour lists by brute force, counter mode, the agent half-planes
 * with the agent time horizon, the headway half-planes operation by operation, orca_solve),
 * with a rule whose values differ from the stored preferred velocities, on the scalar, vector
 * and diagnostics paths and 1 to 3 workers; the constraints query; the diagnostics' counts;
 * off changes no bit; the parameters and streams as state (hash, snapshot, damaged sections
 * refused); refused parameters and streams leave the state unchanged; the density-dependent
 * speed and the model refuse each other; streams through removals. */
#include "test.h"
#include "ext_bits.h"
#include "fuzz.h"
#include "sim_internal.h"
#include "sim_peek.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <orca/orca.h>

static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* --- the scene ----------------------------------------------------------------------------- */

/* n agents in a w by w square (random, at least 0.45 apart): the left half walks +x as
 * stream 0, the right half -x as stream 1, every fifth agent has no stream, every seventh
 * stands; preferred speeds 1.0 to 1.6 m/s with a small sideways part. */
static void add_crowd(orca_sim *s, int n, double w, int cap, double nd, unsigned long long seed)
{
    test_rng rng = {seed};
    orca_vec2 *at = malloc((size_t)n * sizeof *at);
    int m = 0;
    while (m < n) {
        orca_vec2 q = vec(test_rng_uniform(&rng, 0, w), test_rng_uniform(&rng, 0, w));
        int ok = 1;
        for (int k = 0; k < m && ok; ++k) {
            double dx = at[k].x - q.x, dy = at[k].y - q.y;
            ok = dx * dx + dy * dy >= 0.45 * 0.45;
        }
        if (!ok) {
            continue;
        }
        at[m] = q;
        int right = q.x > 0.5 * w;
        orca_agent_def d = orca_agent_def_default();
        d.position = q;
        d.velocity = vec(test_rng_uniform(&rng, -0.5, 0.5), test_rng_uniform(&rng, -0.5, 0.5));
        d.radius = test_rng_uniform(&rng, 0.17, 0.23);
        d.max_speed = 2;
        d.neighbor_dist = nd;
        d.max_neighbors = cap;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 0.5;
        double speed = test_rng_uniform(&rng, 1.0, 1.6);
        d.preferred_velocity = m % 7 == 3 ? vec(0, 0)
                                          : vec(right ? -speed : speed,
                                                test_rng_uniform(&rng, -0.2, 0.2));
        orca_agent_id id;
        orca_sim_add_agent(s, &d, &id);
        if (m % 5 != 2) {
            orca_agent_set_stream(s, id, right);
        }
        ++m;
    }
    free(at);
}

/* --- the reference ------------------------------------------------------------------------- */

typedef struct nb_entry {
    double d2;
    int j;
} nb_entry;

static int nb_cmp(const void *a, const void *b)
{
    const nb_entry *x = a, *y = b;
    if (x->d2 != y->d2) {
        return x->d2 < y->d2 ? -1 : 1;
    }
    return (x->j > y->j) - (x->j < y->j);
}

/* The state the reference reads, from the API. */
typedef struct ref_state {
    int n;
    orca_agent_def *def;
    int32_t *stream;
    orca_pedestrian ped;
} ref_state;

static void ref_read(const orca_sim *s, ref_state *r)
{
    r->n = orca_sim_agent_count(s);
    r->def = malloc((size_t)r->n * sizeof *r->def);
    r->stream = malloc((size_t)r->n * sizeof *r->stream);
    for (int i = 0; i < r->n; ++i) {
        orca_agent_get(s, orca_sim_agent_at(s, i), &r->def[i]);
        orca_agent_get_stream(s, orca_sim_agent_at(s, i), &r->stream[i]);
    }
    orca_sim_get_pedestrian(s, &r->ped);
}

static void ref_free(ref_state *r)
{
    free(r->def);
    free(r->stream);
}

/* Agent i's list (algorithm.md §11.2) by brute force: d2 < neighbor_dist^2, by (d2, index),
 * at most max_neighbors. Returns its length. */
static int ref_list(const ref_state *r, int i, nb_entry *out)
{
    const orca_agent_def *a = &r->def[i];
    int m = 0;
    for (int j = 0; j < r->n; ++j) {
        double dx = r->def[j].position.x - a->position.x;
        double dy = r->def[j].position.y - a->position.y;
        double d2 = dx * dx + dy * dy;
        if (j != i && d2 < a->neighbor_dist * a->neighbor_dist) {
            out[m].d2 = d2;
            out[m].j = j;
            ++m;
        }
    }
    qsort(out, (size_t)m, sizeof *out, nb_cmp);
    return m < a->max_neighbors ? m : a->max_neighbors;
}

/* Agent i's constraints with preferred velocity P (docs/pedestrians.md, parts A to C, as the
 * documentation writes them: no chunks, no masks), each neighbour's preferred velocity Q_j the
 * stored one. Returns the count; *counter and *headway what the model decided. */
static int ref_planes(const ref_state *r, int i, orca_vec2 P, double dt, orca_halfplane *planes,
                      int *counter, int *headway)
{
    nb_entry *list = malloc((size_t)r->n * sizeof *list);
    int na = ref_list(r, i, list);
    const orca_agent_def *a = &r->def[i];
    const orca_pedestrian *ped = &r->ped;
    /* A. counter mode */
    int cm = 0;
    if (r->stream[i] >= 0) {
        for (int k = 0; k < na; ++k) {
            if (!(list[k].d2 < ped->counter_reach * ped->counter_reach)) {
                break;
            }
            int j = list[k].j;
            orca_vec2 q = r->def[j].preferred_velocity;
            if (r->stream[j] >= 0 && r->stream[j] != r->stream[i] && P.x * q.x + P.y * q.y < 0) {
                cm = 1;
                break;
            }
        }
    }
    double tau = cm ? a->time_horizon
                    : (ped->time_gap < a->time_horizon ? ped->time_gap : a->time_horizon);
    /* B. the agent half-planes */
    int n = 0;
    for (int k = 0; k < na; ++k) {
        const orca_agent_def *b = &r->def[list[k].j];
        orca_vec2 d = vec(b->position.x - a->position.x, b->position.y - a->position.y);
        planes[n++] = orca_constraint_agent(d, a->radius + b->radius, a->velocity, b->velocity,
                                            tau, dt, NULL);
    }
    /* C. the headway half-planes */
    int h = 0;
    double pp = P.x * P.x + P.y * P.y;
    for (int k = 0; k < na && !cm && pp > 0 && h < ped->max_planes; ++k) {
        int j = list[k].j;
        const orca_agent_def *b = &r->def[j];
        orca_vec2 d = vec(b->position.x - a->position.x, b->position.y - a->position.y);
        double ahead = d.x * P.x + d.y * P.y;
        if (!(ahead > 0) || !(list[k].d2 >= 0x1p-1022)) {
            continue;
        }
        double L = (a->radius + b->radius) + ped->buffer;
        double m = L + a->max_speed * ped->time_gap;
        if (!(list[k].d2 < m * m)) {
            continue;
        }
        orca_vec2 Q = b->preferred_velocity;
        double w = d.x * Q.x + d.y * Q.y;
        if (w < 0) {
            double lhs = (ahead * ahead) * (Q.x * Q.x + Q.y * Q.y);
            double rhs = (w * w) * pp;
            if (lhs < rhs || (lhs == rhs && i < j)) {
                continue;
            }
        }
        double dist = sqrt(list[k].d2);
        double c = (dist - L) / ped->time_gap;
        orca_vec2 u = vec(d.x / dist, d.y / dist);
        planes[n].point = vec(u.x * c, u.y * c);
        planes[n].normal = vec(-u.x, -u.y);
        ++n;
        ++h;
    }
    free(list);
    *counter = cm;
    *headway = h;
    return n;
}

/* The reference step's new velocities (pref[i]: each agent's preferred velocity P for the
 * step); the totals of counter mode and headway half-planes; *head_fallbacks grows by the
 * programs that failed at a headway half-plane. */
static void ref_velocities(const ref_state *r, const orca_vec2 *pref, double dt, orca_vec2 *out,
                           int *counters, int *headways, int *head_fallbacks)
{
    orca_halfplane *planes = malloc((size_t)(2 * r->n + 1) * sizeof *planes);
    orca_halfplane *scratch = malloc((size_t)(2 * r->n + 1) * sizeof *scratch);
    *counters = *headways = 0;
    for (int i = 0; i < r->n; ++i) {
        int cm, h;
        int count = ref_planes(r, i, pref[i], dt, planes, &cm, &h);
        /* D. in counter mode the program gets P turned right by atan(1/8), its length kept */
        orca_vec2 P = pref[i];
        double c = 0x1.fc0bd88a0f1dap-1; /* 8 / sqrt(65) */
        orca_vec2 goal = cm ? vec((P.x + P.y * 0.125) * c, (P.y - P.x * 0.125) * c) : P;
        orca_solve_result res;
        orca_solve(planes, count, 0, r->def[i].max_speed, goal, scratch, &res);
        if (res.fallback && res.failed >= count - h) {
            /* failed at a headway half-plane: the agent half-planes before it stay hard */
            orca_lp_fallback(planes, count, count - h, res.failed, r->def[i].max_speed, scratch,
                             &res.velocity);
            ++*head_fallbacks;
        }
        out[i] = res.velocity;
        *counters += cm;
        *headways += h;
    }
    free(planes);
    free(scratch);
}

/* A step rule whose values are not the stored preferred velocities: each turned a little and
 * slowed, so that the step's P and the neighbours' Q differ. */
static void turn_rule(void *context, const int32_t *index, int32_t first,
                      const orca_vec2 *position, int count, const orca_vec2 *current,
                      orca_vec2 *out)
{
    (void)context;
    (void)position;
    for (int k = 0; k < count; ++k) {
        int32_t i = index ? index[k] : first + k;
        orca_vec2 c = current[i];
        out[i] = vec(0.9 * c.x - 0.25 * c.y, 0.25 * c.x + 0.9 * c.y);
    }
}

static orca_vec2 turned(orca_vec2 c)
{
    return vec(0.9 * c.x - 0.25 * c.y, 0.25 * c.x + 0.9 * c.y);
}

/* One step of the model equals the reference, bit for bit, with and without a rule, on
 * 1 to 3 workers, with and without the vector kernels and with the diagnostics' scalar path
 * (whose counts equal the reference's); the scene has counter-mode agents and agents with
 * headway half-planes, and lists cut at max_neighbors (10) and not (64); and once with every
 * stream the same (then the step skips counter mode: nobody is in it). */
static int test_step_against_reference(void)
{
    const int caps[3] = {10, 64, 32};
    int head_fallbacks = 0;
    for (int c = 0; c < 3; ++c) {
        for (int rule = 0; rule < 2; ++rule) {
            for (int variant = 0; variant < 4; ++variant) {
                int workers = 1 + variant % 3, kernels = variant != 1, diag = variant == 3;
                orca_sim *s = test_new_sim(workers);
                ENSURE(s);
                orca_sim_set_vector_kernels(s, kernels);
                add_crowd(s, 160, 7, caps[c], 2.5, 21 + c);
                for (int i = 0; c == 2 && i < orca_sim_agent_count(s); ++i) {
                    orca_agent_set_stream(s, orca_sim_agent_at(s, i), i % 5 == 2 ? -1 : 3);
                }
                orca_pedestrian ped = orca_pedestrian_default();
                ped.max_planes = c == 0 ? 3 : 1024;
                ENSURE(orca_sim_set_pedestrian(s, &ped) == ORCA_OK);
                ENSURE(orca_sim_set_diagnostics(s, diag) == ORCA_OK);
                /* ten steps first, so that velocities are the solver's own and some programs
                 * fail at a headway half-plane (48 over the 24 runs) */
                for (int t = 0; t < 10; ++t) {
                    ENSURE(orca_sim_step(s, 0.05) == ORCA_OK);
                }
                ref_state r;
                ref_read(s, &r);
                orca_vec2 *pref = malloc((size_t)r.n * sizeof *pref);
                orca_vec2 *want = malloc((size_t)r.n * sizeof *want);
                for (int i = 0; i < r.n; ++i) {
                    pref[i] = rule ? turned(r.def[i].preferred_velocity)
                                   : r.def[i].preferred_velocity;
                }
                int counters, headways;
                ref_velocities(&r, pref, 0.05, want, &counters, &headways, &head_fallbacks);
                ENSURE_MSG((c == 2 ? counters == 0 : counters > 10) && headways > r.n / 2,
                           "counter %d, headway %d", counters, headways);
                ENSURE(orca_sim_step_rule(s, 0.05, rule ? turn_rule : NULL, NULL) == ORCA_OK);
                for (int i = 0; i < r.n; ++i) {
                    orca_agent_def d;
                    orca_agent_get(s, orca_sim_agent_at(s, i), &d);
                    ENSURE_MSG(test_same_bits(d.velocity.x, want[i].x) &&
                                   test_same_bits(d.velocity.y, want[i].y),
                               "cap %d rule %d workers %d kernels %d diag %d agent %d: (%a, %a), "
                               "reference (%a, %a)",
                               caps[c], rule, workers, kernels, diag, i, d.velocity.x,
                               d.velocity.y, want[i].x, want[i].y);
                    ENSURE_BITS(d.preferred_velocity.x, pref[i].x); /* the rule's became stored */
                }
                if (diag) {
                    orca_step_diagnostics sd;
                    ENSURE(orca_sim_step_diagnostics(s, &sd) == ORCA_OK);
                    ENSURE_MSG(sd.counter == counters && sd.headway == headways,
                               "diagnostics counter %d headway %d, reference %d %d", sd.counter,
                               sd.headway, counters, headways);
                }
                free(pref);
                free(want);
                ref_free(&r);
                orca_sim_destroy(s);
            }
        }
    }
    /* the fallback's headway rule (part D) was exercised */
    ENSURE_MSG(head_fallbacks > 0, "no program failed at a headway half-plane");
    return 0;
}

/* orca_sim_agent_constraints gives the reference's half-planes (P the stored preferred
 * velocity), the headway ones after the agent ones, none hard. */
static int test_constraints_query(void)
{
    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    add_crowd(s, 120, 6, 32, 2.5, 5);
    orca_pedestrian ped = orca_pedestrian_default();
    ENSURE(orca_sim_set_pedestrian(s, &ped) == ORCA_OK);
    ENSURE(orca_sim_step(s, 0.05) == ORCA_OK);
    ref_state r;
    ref_read(s, &r);
    orca_halfplane *want = malloc((size_t)(2 * r.n) * sizeof *want);
    orca_halfplane *got = malloc((size_t)(2 * r.n) * sizeof *got);
    int with_headway = 0;
    for (int i = 0; i < r.n; ++i) {
        int cm, h, count, hard;
        int n = ref_planes(&r, i, r.def[i].preferred_velocity, 0.05, want, &cm, &h);
        ENSURE(orca_sim_agent_constraints(s, orca_sim_agent_at(s, i), 0.05, got, 2 * r.n, &count,
                                          &hard) == ORCA_OK);
        ENSURE_MSG(count == n && hard == 0, "agent %d: %d planes (%d hard), reference %d", i,
                   count, hard, n);
        ENSURE(memcmp(got, want, (size_t)n * sizeof *got) == 0);
        with_headway += h > 0;
    }
    ENSURE(with_headway > r.n / 3);
    free(want);
    free(got);
    ref_free(&r);
    orca_sim_destroy(s);
    return 0;
}

/* --- behaviour ----------------------------------------------------------------------------- */

/* A file of 12 agents walking +x at 1.5 m/s behind a standing one, 0.5 m apart: with the
 * model each follower stops at its headway distance (the two radii and the buffer) behind the
 * agent ahead and never nearer, and the last ones slow down long before they arrive; plain
 * ORCA walks them into each other (measured: 0.380000000 m and 0.24 m/s against 0.3457 m, an
 * overlap, and 0.55 m/s). Returns the least centre distance of
 * neighbours in the file over the run and the last agent's mean speed over the first 2 s. */
static int file_run(int on, double *least, double *speed)
{
    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    for (int k = 0; k < 13; ++k) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(-0.5 * k, 0);
        d.radius = 0.18;
        d.max_speed = 2;
        d.neighbor_dist = 2;
        d.max_neighbors = 32;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 0.5;
        d.preferred_velocity = k == 0 ? vec(0, 0) : vec(1.5, 0);
        ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    }
    if (on) {
        orca_pedestrian p = orca_pedestrian_default();
        ENSURE(orca_sim_set_pedestrian(s, &p) == ORCA_OK);
    }
    *least = HUGE_VAL;
    for (int t = 0; t < 200; ++t) {
        ENSURE(orca_sim_step(s, 0.05) == ORCA_OK);
        const orca_vec2 *p = orca_sim_positions(s);
        for (int k = 1; k < 13; ++k) {
            double dx = p[k - 1].x - p[k].x, dy = p[k - 1].y - p[k].y;
            double d = sqrt(dx * dx + dy * dy);
            *least = d < *least ? d : *least;
        }
        if (t == 39) {
            *speed = (p[12].x + 6.0) / 2.0;
        }
    }
    orca_sim_destroy(s);
    return 0;
}

static int test_queue_keeps_headway(void)
{
    double on_d, off_d, on_v, off_v;
    ENSURE(file_run(1, &on_d, &on_v) == 0);
    ENSURE(file_run(0, &off_d, &off_v) == 0);
    ENSURE_MSG(on_d >= 0.38 - 1e-9 && off_d < 0.36 && on_v < 0.5 * off_v,
               "model: least distance %.6f m, last agent %.3f m/s; plain: %.6f m, %.3f m/s",
               on_d, on_v, off_d, off_v);
    return 0;
}

/* Two agents walking into each other, 6 m apart, the second offset across by off (streams 0 and
 * 1, or none with streams == 0), on the preset's values but for a neighbour distance of 10 m
 * and a counter reach of 8 m: counter mode then starts before ORCA's half-plane binds (with the
 * preset's 2 m the half-plane, built from the straight velocities, already binds when counter
 * mode starts, and the offset chooses the side: docs/pedestrians.md). Returns, at the step
 * where they pass (the first with x0 >= x1), y0 - y1 (< 0: the agent walking +x passes on its
 * right, -y) and the least centre distance over the run. */
static int head_on_pair(int streams, double off, double *side, double *least)
{
    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    for (int k = 0; k < 2; ++k) {
        orca_agent_def d = orca_agent_def_default();
        d.position = k == 0 ? vec(-3, 0) : vec(3, off);
        d.radius = 0.18;
        d.max_speed = 2;
        d.neighbor_dist = 10;
        d.max_neighbors = 32;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 0.5;
        d.preferred_velocity = vec(k == 0 ? 1.3 : -1.3, 0);
        orca_agent_id id;
        ENSURE(orca_sim_add_agent(s, &d, &id) == ORCA_OK);
        ENSURE(orca_agent_set_stream(s, id, streams ? k : -1) == ORCA_OK);
    }
    orca_pedestrian p = orca_pedestrian_default();
    p.counter_reach = 8;
    ENSURE(orca_sim_set_pedestrian(s, &p) == ORCA_OK);
    *side = HUGE_VAL;
    *least = HUGE_VAL;
    for (int t = 0; t < 120; ++t) {
        ENSURE(orca_sim_step(s, 0.05) == ORCA_OK);
        const orca_vec2 *q = orca_sim_positions(s);
        double dx = q[1].x - q[0].x, dy = q[1].y - q[0].y;
        double d = sqrt(dx * dx + dy * dy);
        *least = d < *least ? d : *least;
        if (*side == HUGE_VAL && q[0].x >= q[1].x) {
            *side = q[0].y - q[1].y;
        }
    }
    orca_sim_destroy(s);
    ENSURE(*side != HUGE_VAL);
    return 0;
}

/* Counter mode's side preference (part D): of two agents of opposing streams walking into each
 * other, each passes on its right, also when the other starts 5 cm towards that side (without
 * the turn the offsets -5 and +5 cm, mirror images, would pass on opposite sides); without
 * streams (no counter mode) ORCA lets the offset choose the other side. Measured: y0 - y1 about
 * -0.7 m with streams, +0.39 m without. */
static int test_head_on_keeps_right(void)
{
    const double offs[3] = {-0.05, 0, 0.05};
    for (int k = 0; k < 3; ++k) {
        double side, least;
        ENSURE(head_on_pair(1, offs[k], &side, &least) == 0);
        ENSURE_MSG(side < -0.2 && least >= 0.36, "offset %g: y0 - y1 %.4f m when passing, least "
                   "distance %.4f m", offs[k], side, least);
    }
    double side, least;
    ENSURE(head_on_pair(0, -0.05, &side, &least) == 0);
    ENSURE_MSG(side > 0.2, "without streams, offset -0.05: y0 - y1 %.4f m", side);
    return 0;
}

/* --- state and bits ------------------------------------------------------------------------ */

static void bits_crowd(orca_sim *s)
{
    add_crowd(s, 400, 12, 20, 2, 77);
}

static void bits_on(orca_sim *s)
{
    orca_pedestrian p = orca_pedestrian_default();
    orca_sim_set_pedestrian(s, &p);
}

static int test_same_bits_any_workers_and_kernels(void)
{
    return test_ext_same_bits(bits_crowd, bits_on, 0.05);
}

/* Never on, and on then off again (streams cleared): the plain hashes and steps. */
static int test_off_changes_nothing(void)
{
    orca_sim *a = test_new_sim(1), *b = test_new_sim(1);
    ENSURE(a && b);
    add_crowd(a, 100, 6, 10, 3, 9);
    add_crowd(b, 100, 6, 10, 3, 9);
    for (int i = 0; i < 100; ++i) {
        ENSURE(orca_agent_set_stream(a, orca_sim_agent_at(a, i), -1) == ORCA_OK);
    }
    orca_pedestrian out;
    ENSURE(orca_sim_get_pedestrian(a, &out) == 0);
    ENSURE_BITS(out.time_gap, 0.5);
    ENSURE(out.max_planes == 4);
    uint64_t h0 = orca_sim_hash(a);
    uint64_t hs = orca_sim_hash(b);
    ENSURE(hs != h0); /* the streams are state */
    orca_pedestrian p = orca_pedestrian_default();
    ENSURE(orca_sim_set_pedestrian(b, &p) == ORCA_OK);
    ENSURE(orca_sim_get_pedestrian(b, NULL) == 1);
    ENSURE(orca_sim_hash(b) != hs);
    ENSURE(orca_sim_separation_active(b) == 1);
    ENSURE(orca_sim_set_pedestrian(b, NULL) == ORCA_OK);
    ENSURE(orca_sim_get_pedestrian(b, NULL) == 0);
    ENSURE(orca_sim_separation_active(b) == 0);
    ENSURE(orca_sim_hash(b) == hs);
    for (int i = 0; i < 100; ++i) {
        ENSURE(orca_agent_set_stream(b, orca_sim_agent_at(b, i), -1) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(b) == h0);
    for (int t = 0; t < 20; ++t) {
        ENSURE(orca_sim_step(a, 0.1) == ORCA_OK && orca_sim_step(b, 0.1) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    /* streams alone (model off) change no velocity: the same walk as without them */
    orca_sim *c = test_new_sim(1);
    add_crowd(c, 100, 6, 10, 3, 9);
    for (int t = 0; t < 20; ++t) {
        ENSURE(orca_sim_step(c, 0.1) == ORCA_OK);
    }
    for (int i = 0; i < 100; ++i) {
        orca_vec2 va, vc;
        orca_agent_get_velocity(a, orca_sim_agent_at(a, i), &va);
        orca_agent_get_velocity(c, orca_sim_agent_at(c, i), &vc);
        ENSURE_BITS(va.x, vc.x);
        ENSURE_BITS(va.y, vc.y);
    }
    orca_sim_destroy(c);
    ENSURE(orca_sim_set_pedestrian(NULL, &p) == ORCA_ERR_NULL);
    ENSURE(orca_sim_get_pedestrian(NULL, &out) == 0);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

static unsigned char *save(const orca_sim *s, size_t *size)
{
    *size = 0;
    orca_sim_save(s, NULL, 0, size);
    unsigned char *buf = malloc(*size);
    return orca_sim_save(s, buf, *size, size) == ORCA_OK ? buf : NULL;
}

static int test_snapshot_round_trip(void)
{
    orca_sim *a = test_new_sim(1), *b = test_new_sim(2);
    ENSURE(a && b);
    add_crowd(a, 120, 6, 20, 2, 11);
    orca_pedestrian p = {0.75, 0.03, 1.5, 6};
    ENSURE(orca_sim_set_pedestrian(a, &p) == ORCA_OK);
    for (int t = 0; t < 5; ++t) {
        ENSURE(orca_sim_step(a, 0.05) == ORCA_OK);
    }
    size_t size;
    unsigned char *buf = save(a, &size);
    ENSURE(buf);
    ENSURE(fuzz_get32(buf + 8) == 3 && fuzz_get32(buf + 44) == (16u | 32u));
    ENSURE(orca_sim_load(b, buf, size) == ORCA_OK);
    orca_pedestrian q;
    ENSURE(orca_sim_get_pedestrian(b, &q) == 1);
    ENSURE(q.time_gap == p.time_gap && q.buffer == p.buffer &&
           q.counter_reach == p.counter_reach && q.max_planes == p.max_planes);
    int32_t g;
    ENSURE(orca_agent_get_stream(b, orca_sim_agent_at(b, 0), &g) == ORCA_OK && g == 0);
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    size_t size2;
    unsigned char *again = save(b, &size2);
    ENSURE(again && size2 == size && memcmp(again, buf, size) == 0);
    free(again);
    for (int t = 0; t < 10; ++t) {
        ENSURE(orca_sim_step(a, 0.05) == ORCA_OK && orca_sim_step(b, 0.05) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));

    /* damaged sections (the checksum sealed again) are refused, naming the section and the
     * value, and nothing changes */
    uint64_t hb = orca_sim_hash(b);
    size_t ped_at = size - 8 - 4 * 120 - 28;
    struct {
        size_t at;
        uint64_t bits;
        int word; /* 1: a 4-byte field */
        const char *name;
    } bad[] = {
        {ped_at, 0x7ff8000000000000ull, 0, "time_gap"},
        {ped_at, 0, 0, "time_gap"},
        {ped_at + 8, 0xbff0000000000000ull, 0, "buffer"},
        {ped_at + 16, 0x7ff0000000000000ull, 0, "counter_reach"},
        {ped_at + 24, 0, 1, "max_planes"},
        {ped_at + 24, 1025, 1, "max_planes"},
        {ped_at + 28, 0xfffffffeu, 1, "stream"},
    };
    for (size_t f = 0; f < sizeof bad / sizeof bad[0]; ++f) {
        unsigned char *d = malloc(size);
        memcpy(d, buf, size);
        if (bad[f].word) {
            fuzz_put32(d + bad[f].at, (uint32_t)bad[f].bits);
        } else {
            fuzz_put64(d + bad[f].at, bad[f].bits);
        }
        fuzz_seal(d, size);
        ENSURE(orca_sim_load(b, d, size) == ORCA_ERR_FORMAT);
        const char *msg = orca_sim_last_error(b);
        ENSURE_MSG(strstr(msg, "snapshot") && strstr(msg, bad[f].name), "%s", msg);
        ENSURE(orca_sim_hash(b) == hb);
        free(d);
    }
    /* a stream section of -1 alone is not one orca writes */
    unsigned char *d = malloc(size);
    memcpy(d, buf, size);
    for (int i = 0; i < 120; ++i) {
        fuzz_put32(d + ped_at + 28 + 4 * i, 0xffffffffu);
    }
    fuzz_seal(d, size);
    ENSURE(orca_sim_load(b, d, size) == ORCA_ERR_FORMAT);
    ENSURE_MSG(strstr(orca_sim_last_error(b), "stream section"), "%s", orca_sim_last_error(b));
    free(d);
    /* the flags without their sections: a wrong size */
    ENSURE(orca_sim_load(b, buf, size - 4 * 120) == ORCA_ERR_FORMAT);
    ENSURE(orca_sim_hash(b) == hb);

    /* the density and pedestrian sections together are refused */
    orca_sim *c = test_new_sim(1);
    add_crowd(c, 20, 4, 10, 2, 3);
    orca_density_speed den = orca_density_speed_default();
    ENSURE(orca_sim_set_density_speed(c, &den) == ORCA_OK);
    size_t cs;
    unsigned char *cb = save(c, &cs);
    unsigned char *both = malloc(cs + 28);
    memcpy(both, cb, cs - 8 - 80); /* up to the stream section */
    memcpy(both + cs - 8 - 80 + 28, cb + cs - 8 - 80, 80 + 8);
    fuzz_put64(both + cs - 8 - 80, bits_of(0.5));
    fuzz_put64(both + cs - 8 - 80 + 8, 0);
    fuzz_put64(both + cs - 8 - 80 + 16, bits_of(2.0));
    fuzz_put32(both + cs - 8 - 80 + 24, 4);
    fuzz_put32(both + 44, fuzz_get32(both + 44) | 16u);
    fuzz_seal(both, cs + 28);
    ENSURE(orca_sim_load(b, both, cs + 28) == ORCA_ERR_FORMAT);
    ENSURE_MSG(strstr(orca_sim_last_error(b), "both"), "%s", orca_sim_last_error(b));
    ENSURE(orca_sim_hash(b) == hb);
    free(both);
    free(cb);
    orca_sim_destroy(c);

    /* a snapshot without the model loads and turns it off, streams cleared */
    orca_sim *plain = test_new_sim(1);
    orca_agent_def def = orca_agent_def_default();
    ENSURE(orca_sim_add_agent(plain, &def, NULL) == ORCA_OK);
    size_t ps;
    unsigned char *pb = save(plain, &ps);
    ENSURE(fuzz_get32(pb + 8) == 1);
    ENSURE(orca_sim_load(b, pb, ps) == ORCA_OK);
    ENSURE(orca_sim_get_pedestrian(b, NULL) == 0);
    ENSURE(orca_agent_get_stream(b, orca_sim_agent_at(b, 0), &g) == ORCA_OK && g == -1);
    ENSURE(orca_sim_hash(b) == orca_sim_hash(plain));
    free(pb);
    free(buf);
    orca_sim_destroy(plain);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

/* Every parameter over the binary64 range and int edges: refusals leave the state as it was,
 * with a message naming the field and the value; the edges are accepted and step. */
static int test_refused_parameters(void)
{
    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    add_crowd(s, 8, 3, 10, 2, 1);
    orca_pedestrian on = {0.6, 0.01, 1.0, 5};
    ENSURE(orca_sim_set_pedestrian(s, &on) == ORCA_OK);
    uint64_t h = orca_sim_hash(s);
    const double lo[3] = {ORCA_PED_TIME_GAP_MIN, 0.0, 0.0};
    const double hi[3] = {ORCA_PED_TIME_GAP_MAX, ORCA_PED_BUFFER_MAX, ORCA_PED_COUNTER_REACH_MAX};
    const char *names[3] = {"time_gap", "buffer", "counter_reach"};
    for (int f = 0; f < 3; ++f) {
        const double refused[] = {NAN, -NAN, HUGE_VAL, -HUGE_VAL, -1.0, -DBL_MIN,
                                  nextafter(hi[f], HUGE_VAL), 1e300, DBL_MAX, -DBL_MAX,
                                  f == 0 ? 0.0 : -4.9406564584124654e-324,
                                  f == 0 ? nextafter(lo[f], 0) : -1e-300};
        for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k) {
            orca_pedestrian p = on;
            double *field = f == 0 ? &p.time_gap : f == 1 ? &p.buffer : &p.counter_reach;
            *field = refused[k];
            ENSURE_MSG(orca_sim_set_pedestrian(s, &p) == ORCA_ERR_ARGUMENT, "%s = %.17g",
                       names[f], refused[k]);
            const char *msg = orca_sim_last_error(s);
            ENSURE_MSG(strstr(msg, names[f]) && strstr(msg, "got"), "%s", msg);
            orca_pedestrian now;
            ENSURE(orca_sim_get_pedestrian(s, &now) == 1);
            ENSURE(now.time_gap == on.time_gap && now.buffer == on.buffer &&
                   now.counter_reach == on.counter_reach && now.max_planes == on.max_planes);
            ENSURE(orca_sim_hash(s) == h);
        }
        const double edges[2] = {lo[f], hi[f]};
        for (int e = 0; e < 2; ++e) {
            orca_pedestrian p = on;
            double *field = f == 0 ? &p.time_gap : f == 1 ? &p.buffer : &p.counter_reach;
            *field = edges[e];
            ENSURE_MSG(orca_sim_set_pedestrian(s, &p) == ORCA_OK, "%s", orca_sim_last_error(s));
            ENSURE_MSG(orca_sim_step(s, 0.05) == ORCA_OK, "%s", orca_sim_last_error(s));
        }
        ENSURE(orca_sim_set_pedestrian(s, &on) == ORCA_OK);
        h = orca_sim_hash(s);
    }
    const int planes[] = {0, -1, 1025, INT32_MIN, INT32_MAX};
    for (size_t k = 0; k < sizeof planes / sizeof planes[0]; ++k) {
        orca_pedestrian p = on;
        p.max_planes = planes[k];
        ENSURE(orca_sim_set_pedestrian(s, &p) == ORCA_ERR_ARGUMENT);
        ENSURE_MSG(strstr(orca_sim_last_error(s), "max_planes"), "%s", orca_sim_last_error(s));
        ENSURE(orca_sim_hash(s) == h);
    }
    /* streams: below -1 refused, the state unchanged */
    orca_agent_id id = orca_sim_agent_at(s, 2);
    const int32_t streams[] = {-2, INT32_MIN};
    for (int k = 0; k < 2; ++k) {
        ENSURE(orca_agent_set_stream(s, id, streams[k]) == ORCA_ERR_ARGUMENT);
        ENSURE_MSG(strstr(orca_sim_last_error(s), "stream"), "%s", orca_sim_last_error(s));
        ENSURE(orca_sim_hash(s) == h);
    }
    ENSURE(orca_agent_set_stream(s, id, INT32_MAX) == ORCA_OK);
    ENSURE(orca_sim_step(s, 0.05) == ORCA_OK);
    ENSURE(orca_agent_get_stream(s, id, NULL) == ORCA_ERR_NULL);
    /* the density-dependent speed and the model refuse each other, naming both */
    orca_density_speed den = orca_density_speed_default();
    h = orca_sim_hash(s);
    ENSURE(orca_sim_set_density_speed(s, &den) == ORCA_ERR_ARGUMENT);
    const char *msg = orca_sim_last_error(s);
    ENSURE_MSG(strstr(msg, "density") && strstr(msg, "pedestrian"), "%s", msg);
    ENSURE(orca_sim_get_density_speed(s, NULL) == 0 && orca_sim_hash(s) == h);
    ENSURE(orca_sim_set_pedestrian(s, NULL) == ORCA_OK);
    ENSURE(orca_sim_set_density_speed(s, &den) == ORCA_OK);
    h = orca_sim_hash(s);
    ENSURE(orca_sim_set_pedestrian(s, &on) == ORCA_ERR_ARGUMENT);
    msg = orca_sim_last_error(s);
    ENSURE_MSG(strstr(msg, "density") && strstr(msg, "pedestrian"), "%s", msg);
    ENSURE(orca_sim_get_pedestrian(s, NULL) == 0 && orca_sim_hash(s) == h);
    /* a refused value while off leaves it off */
    orca_pedestrian p = on;
    p.time_gap = NAN;
    ENSURE(orca_sim_set_density_speed(s, NULL) == ORCA_OK);
    ENSURE(orca_sim_set_pedestrian(s, &p) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_get_pedestrian(s, NULL) == 0);
    orca_sim_destroy(s);
    return 0;
}

/* Streams follow their agents through removals (compaction), additions and the hash's rule
 * (in it while some agent has one). */
static int test_streams_through_removals(void)
{
    orca_sim *s = test_new_sim(1), *t = test_new_sim(1);
    ENSURE(s && t);
    orca_agent_id ids[40];
    for (int k = 0; k < 40; ++k) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(3.0 * k, 0);
        ENSURE(orca_sim_add_agent(s, &d, &ids[k]) == ORCA_OK);
        if (k % 2 == 0) {
            ENSURE(orca_sim_add_agent(t, &d, NULL) == ORCA_OK);
        }
    }
    for (int k = 0; k < 40; ++k) {
        ENSURE(orca_agent_set_stream(s, ids[k], k % 4 == 0 ? k : -1) == ORCA_OK);
    }
    for (int k = 1; k < 40; k += 2) {
        ENSURE(orca_sim_remove_agent(s, ids[k]) == ORCA_OK);
    }
    ENSURE(orca_sim_agent_count(s) == 20);
    for (int k = 0; k < 20; ++k) {
        int32_t g;
        ENSURE(orca_agent_get_stream(s, orca_sim_agent_at(s, k), &g) == ORCA_OK);
        ENSURE_MSG(g == (k % 2 == 0 ? 2 * k : -1), "agent %d stream %d", k, g);
        ENSURE(orca_agent_set_stream(t, orca_sim_agent_at(t, k), g) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(s) == orca_sim_hash(t));
    /* removing every agent with a stream takes the section out of the hash */
    for (int k = 0; k < 40; k += 4) {
        ENSURE(orca_sim_remove_agent(s, ids[k]) == ORCA_OK);
    }
    orca_agent_def d = orca_agent_def_default();
    ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    int32_t g;
    ENSURE(orca_agent_get_stream(s, orca_sim_agent_at(s, 10), &g) == ORCA_OK && g == -1);
    orca_sim *u = test_new_sim(1);
    for (int k = 0; k < orca_sim_agent_count(s); ++k) {
        orca_agent_def e;
        orca_agent_get(s, orca_sim_agent_at(s, k), &e);
        orca_sim_add_agent(u, &e, NULL);
    }
    ENSURE(orca_sim_hash(s) == orca_sim_hash(u));
    orca_sim_destroy(u);
    orca_sim_destroy(s);
    orca_sim_destroy(t);
    return 0;
}

/* --- scene files (docs/scene-format.md, docs/pedestrians.md) ----------------------------- */

static const char k_scene[] = "orca-scene 1\n"
                              "name ped\n"
                              "pedestrian on\n"
                              "goalset east 20 0 20 1 20 -1\n"
                              "goalset west -20 0\n"
                              "agent 0 0 goalset east\n"
                              "agent 1 0 goalset west radius=0.2\n"
                              "agent 2 0 goalset east stream=5\n"
                              "agent 3 0 goal 10 10\n"
                              "default max_neighbors 20\n"
                              "default preferred_speed 1.1\n"
                              "grid 3 2 0 3 0.6 0.6 goalset west\n";

static orca_scenario *scene_of(const char *text, int preset_flag)
{
    orca_scene_file *f = NULL;
    if (orca_scene_file_read_text(text, strlen(text), "ped.txt", &f) != ORCA_OK) {
        fprintf(stderr, "%s\n", orca_scene_file_last_error(NULL));
        return NULL;
    }
    orca_scene_build_def def = orca_scene_build_def_default();
    def.pedestrian = preset_flag;
    orca_scenario *sc = NULL;
    if (orca_scene_file_build(f, &def, &sc) != ORCA_OK) {
        fprintf(stderr, "%s\n", orca_scene_file_last_error(f));
    }
    orca_scene_file_destroy(f);
    return sc;
}

static uint64_t stepped_hash(orca_scenario *sc, int steps)
{
    for (int t = 0; t < steps; ++t) {
        if (orca_scenario_step(sc) != ORCA_OK) {
            return 0;
        }
    }
    return orca_scenario_hash(sc);
}

/* The statement and the preset: the file gives the scenario built through the C API (the
 * preset's agent where the file gives nothing, `default` lines and keys kept, the free speeds
 * drawn by key, dt 0.05 s, streams by goal set and stream=); the build's flag without the
 * statement is the statement; the written scenario reads back to the same bits. */
static int test_scene_file_preset(void)
{
    orca_scenario *f = scene_of(k_scene, 0);
    ENSURE(f);
    ENSURE_BITS(orca_scenario_dt(f), ORCA_PEDESTRIAN_DT);
    orca_scenario *c = NULL;
    ENSURE(orca_scenario_create(NULL, ORCA_PEDESTRIAN_DT, 1, &c) == ORCA_OK);
    ENSURE(orca_scenario_set_name(c, "ped") == ORCA_OK);
    orca_pedestrian p = orca_pedestrian_default();
    ENSURE(orca_scenario_set_pedestrian(c, &p) == ORCA_OK);
    const orca_vec2 east[3] = {{20, 0}, {20, 1}, {20, -1}}, west[1] = {{-20, 0}};
    ENSURE(orca_scenario_add_goal_set(c, "east", east, 3, NULL) == ORCA_OK);
    ENSURE(orca_scenario_add_goal_set(c, "west", west, 1, NULL) == ORCA_OK);
    for (int k = 0; k < 10; ++k) {
        orca_agent_def d;
        orca_goal g = orca_goal_default();
        ENSURE(orca_scenario_pedestrian_agent(c, &d, &g.preferred_speed) == ORCA_OK);
        g.kind = k == 3 ? ORCA_GOAL_POINT : ORCA_GOAL_SET;
        g.goal_set = k == 0 || k == 2 ? 0 : 1;
        g.target = vec(10, 10);
        d.position = k < 4 ? vec(k, 0) : vec(((k - 4) % 3) * 0.6, 3 + ((k - 4) / 3) * 0.6);
        if (k == 1) {
            d.radius = 0.2;
        }
        if (k >= 4) {
            d.max_neighbors = 20;
            g.preferred_speed = 1.1;
        }
        orca_agent_id id;
        ENSURE(orca_scenario_add_agent(c, &d, &g, &id) == ORCA_OK);
        if (k == 2) {
            ENSURE(orca_agent_set_stream(orca_scenario_sim(c), id, 5) == ORCA_OK);
        }
    }
    orca_sim *fs = orca_scenario_sim(f);
    int32_t g;
    orca_goal goal;
    ENSURE(orca_agent_get_stream(fs, orca_sim_agent_at(fs, 1), &g) == ORCA_OK && g == 1);
    ENSURE(orca_agent_get_stream(fs, orca_sim_agent_at(fs, 2), &g) == ORCA_OK && g == 5);
    ENSURE(orca_agent_get_stream(fs, orca_sim_agent_at(fs, 3), &g) == ORCA_OK && g == -1);
    ENSURE(orca_scenario_agent_goal(f, 0, &goal, NULL) == ORCA_OK);
    ENSURE_BITS(goal.preferred_speed, orca_pedestrian_free_speed(1, 0));
    ENSURE(orca_sim_hash(fs) == orca_sim_hash(orca_scenario_sim(c)));
    /* written and read back */
    size_t size = 0;
    ENSURE(orca_scene_file_write_text(f, NULL, NULL, 0, &size) == ORCA_OK);
    char *text = malloc(size + 1);
    ENSURE(orca_scene_file_write_text(f, NULL, text, size + 1, &size) == ORCA_OK);
    ENSURE_MSG(strstr(text, "pedestrian on time_gap=0.5 buffer=0.02 counter_reach=2 max_planes=4") &&
                   strstr(text, "stream=5") && !strstr(text, "stream=1"),
               "%s", text);
    orca_scenario *back = scene_of(text, 0);
    ENSURE(back && orca_sim_hash(orca_scenario_sim(back)) == orca_sim_hash(fs));
    uint64_t h = stepped_hash(f, 30);
    ENSURE(h != 0 && stepped_hash(c, 30) == h && stepped_hash(back, 30) == h);
    /* the build's flag is the statement (its parameters kept when given) */
    char *without = malloc(sizeof k_scene);
    const char *at = strstr(k_scene, "pedestrian on\n");
    size_t head = (size_t)(at - k_scene);
    memcpy(without, k_scene, head);
    strcpy(without + head, at + strlen("pedestrian on\n"));
    orca_scenario *flag = scene_of(without, 1);
    ENSURE(flag && stepped_hash(flag, 30) == h);
    orca_scenario *plain = scene_of(without, 0);
    ENSURE(plain && orca_sim_get_pedestrian(orca_scenario_sim(plain), NULL) == 0);
    ENSURE_BITS(orca_scenario_dt(plain), 0.25);
    orca_scenario *own = scene_of("pedestrian on time_gap=0.8 max_planes=6\nagent 0 0 goal 5 0\n", 1);
    ENSURE(own && orca_sim_get_pedestrian(orca_scenario_sim(own), &p) == 1);
    ENSURE(p.time_gap == 0.8 && p.max_planes == 6 && p.buffer == 0.02);
    free(text);
    free(without);
    orca_scenario_destroy(own);
    orca_scenario_destroy(plain);
    orca_scenario_destroy(flag);
    orca_scenario_destroy(back);
    orca_scenario_destroy(c);
    orca_scenario_destroy(f);
    return 0;
}

/* Bad statements and keys are refused with the line and the value named. */
static int test_scene_file_refusals(void)
{
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"pedestrian\nagent 0 0\n", "ped.txt:1: pedestrian takes 'on' or 'off', got ''"},
        {"pedestrian off time_gap=1\nagent 0 0\n", "pedestrian off takes nothing after it"},
        {"pedestrian on speed=1\nagent 0 0\n",
         "pedestrian: expected time_gap=T, buffer=B, counter_reach=D or max_planes=N, got 'speed=1'"},
        {"pedestrian on buffer=1 buffer=2\nagent 0 0\n", "pedestrian: buffer given twice"},
        {"pedestrian on max_planes=2.5\nagent 0 0\n",
         "pedestrian max_planes must be a whole number, got 2.5"},
        {"pedestrian on\npedestrian off\nagent 0 0\n", "ped.txt:2: pedestrian given twice (first on line 1)"},
        {"agent 0 0 stream=-2\n", "ped.txt:1: stream must be -1 (none) or a number >= 0"},
        {"agent 0 0 stream=abc\n", "ped.txt:1: stream: "},
        {"agent 0 0 stream=1 stream=2\n", "agent parameter 'stream' given twice"},
        {"default stream 1\nagent 0 0\n", "unknown default 'stream'"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        orca_scene_file *f = NULL;
        ENSURE(orca_scene_file_read_text(bad[k].text, strlen(bad[k].text), "ped.txt", &f) ==
               ORCA_ERR_FORMAT);
        const char *msg = orca_scene_file_last_error(NULL);
        ENSURE_MSG(strstr(msg, bad[k].message), "'%s' gave '%s'", bad[k].text, msg);
    }
    /* the library's ranges, at the build, naming the line */
    static const struct {
        const char *text, *message;
    } build[] = {
        {"pedestrian on time_gap=0\nagent 0 0\n",
         "ped.txt:1: pedestrian model refused: pedestrian time_gap must be in [2^-30, 2^30] s, got 0"},
        {"density_speed on\npedestrian on\nagent 0 0\n", "ped.txt:2: "},
    };
    for (size_t k = 0; k < sizeof build / sizeof build[0]; ++k) {
        orca_scene_file *f = NULL;
        ENSURE(orca_scene_file_read_text(build[k].text, strlen(build[k].text), "ped.txt", &f) == ORCA_OK);
        orca_scenario *sc = NULL;
        ENSURE(orca_scene_file_build(f, NULL, &sc) == ORCA_ERR_ARGUMENT && !sc);
        ENSURE_MSG(strstr(orca_scene_file_last_error(f), build[k].message), "%s",
                   orca_scene_file_last_error(f));
        orca_scene_file_destroy(f);
    }
    return 0;
}

/* The bits pinned: a 10 x 10 block (0.6 m apart), its left half walking +x as stream 0 and
 * its right half -x as stream 1 (every seventh agent without a stream), the model's defaults,
 * 40 steps of 0.05 s; python/tests/test_pedestrian.py and the browser module's test build the
 * same scene and expect the same hash (on every machine: docs/determinism.md). */
#define PINNED_HASH 0xce7a33481513c27dull

static uint64_t pinned_scene_hash(int workers, int kernels)
{
    orca_sim *s = test_new_sim(workers);
    if (!s) {
        return 0;
    }
    orca_sim_set_vector_kernels(s, kernels);
    for (int i = 0; i < 100; ++i) {
        int left = i % 10 < 5;
        orca_agent_def d = orca_agent_def_default();
        d.position = vec((i % 10) * 0.6, (i / 10) * 0.6);
        d.radius = 0.18;
        d.neighbor_dist = 2;
        d.max_neighbors = 32;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 0.5;
        d.preferred_velocity = vec(left ? 1.34 : -1.34, 0.05 * (i % 3));
        orca_agent_id id;
        orca_sim_add_agent(s, &d, &id);
        orca_agent_set_stream(s, id, i % 7 == 0 ? -1 : !left);
    }
    orca_pedestrian p = ORCA_PEDESTRIAN_DEFAULT;
    orca_sim_set_pedestrian(s, &p);
    for (int t = 0; t < 40; ++t) {
        orca_sim_step(s, 0.05);
    }
    uint64_t h = orca_sim_hash(s);
    orca_sim_destroy(s);
    return h;
}

static int test_pinned_hash(void)
{
    for (int w = 1; w <= 2; ++w) {
        for (int k = 0; k < 2; ++k) {
            uint64_t h = pinned_scene_hash(w, k);
            ENSURE_MSG(h == PINNED_HASH, "hash %016llx, pinned %016llx (workers %d, kernels %d)",
                       (unsigned long long)h, (unsigned long long)PINNED_HASH, w, k);
        }
    }
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"pinned_hash", test_pinned_hash},
    {"step_against_reference", test_step_against_reference},
    {"constraints_query", test_constraints_query},
    {"queue_keeps_headway", test_queue_keeps_headway},
    {"head_on_keeps_right", test_head_on_keeps_right},
    {"same_bits_any_workers_and_kernels", test_same_bits_any_workers_and_kernels},
    {"off_changes_nothing", test_off_changes_nothing},
    {"snapshot_round_trip", test_snapshot_round_trip},
    {"refused_parameters", test_refused_parameters},
    {"streams_through_removals", test_streams_through_removals},
    {"scene_file_preset", test_scene_file_preset},
    {"scene_file_refusals", test_scene_file_refusals},
    {0, 0},
};
