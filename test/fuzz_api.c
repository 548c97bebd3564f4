/* SPDX-License-Identifier: MIT */
/* API-sequence fuzzer (issue 12): the input bytes are a program of calls of the public API
 * (orca/sim.h), with doubles drawn over the whole binary64 range, and every call is followed
 * by invariant checks. A violated invariant prints what and where, then abort()s, so libFuzzer
 * keeps the input. Built as a libFuzzer target (cmake -DORCA_FUZZ=ON, clang) or, without
 * libFuzzer, linked with test/fuzz_driver.c into a seeded random driver (a ctest test).
 *
 * Three simulations run the same program:
 *   main  the configuration the input chooses: 1..4 workers, the built-in pool or an engine
 *         job system (synchronous, split, split in reverse, tiny ranges, deferred to finish,
 *         or a bad worker index), vector kernels on or off; worker count and kernels change
 *         during the program;
 *   ref   one worker, no callbacks, scalar code: every mirrored call must give the same
 *         status and afterwards the same orca_sim_hash (1 worker = N workers, kernels on =
 *         off). After each removal ref is rebuilt from scratch by adding main's remaining
 *         agents and segments in index order, so from then on it is a simulation that never
 *         had the removed object (removal = never added);
 *   alt   another configuration from the input: before each step it loads main's snapshot
 *         and steps too (snapshot continuation, a third worker setup).
 * Checked after every call:
 *   - no crash and no sanitizer report (the fuzz build has ASan + UBSan on the library too);
 *   - a refused call (status != ORCA_OK) leaves orca_sim_hash unchanged and sets a non-empty
 *     orca_sim_last_error; a query leaves the hash unchanged either way; documented-invalid
 *     input (NaN, a radius <= 0, dt <= 0, a coordinate at 2^21, a stale handle, ...) is refused;
 *   - load(save(x)) has x's hash (and saves to the same bytes) in a fresh simulation;
 *   - handles: every live handle maps to its index and back, every removed one is stale;
 *   - after each successful step: every position finite with |x|,|y| < 2^21, every velocity
 *     finite with |v|^2 <= R^2 + 2^-40 (R^2 + |v0|^2) (R the agent's max_speed, v0 its velocity
 *     before the step), and every new velocity and position equal, bit for bit, to a reference
 *     step computed here from the state before it with the building blocks of orca/solver.h
 *     and brute-force neighbour lists (sim.h: "Built on exactly the functions of
 *     orca/solver.h");
 *   - the queries against the same brute force: neighbour lists, constraints, overlaps;
 *   - the pedestrian model (docs/pedestrians.md) set, cleared and refused with parameters over
 *     the whole range, and agents' streams: the reference step and the constraints query
 *     then add counter mode, the agent time horizon and the headway half-planes, written here
 *     from the documentation (bits compared unless two agents stand at exactly one point: the
 *     separation rule the model turns on, docs/extensions.md, which the reference leaves out).
 * With the environment variable ORCA_FUZZ_TRACE set, each operation and each call's status
 * are printed on stderr (to read what an input does). */
#include <orca/orca.h>

#include "exact_ref.h"
#include "fuzz.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AGENTS 64
#define MAX_SEGS 40 /* adds stop at 32; one polyline may pass that by up to 8 */
#define SEG_ADD_LIMIT 32
#define MAX_OPS 200
#define MAX_RECS 512
#define MAX_PLANES (MAX_SEGS + 2 * MAX_AGENTS) /* headway half-planes too */

/* ---------------------------------------------------------------------------------------
 * Failure report
 * ------------------------------------------------------------------------------------- */

static int g_op;            /* index of the operation being run */
static int g_trace = -1;    /* ORCA_FUZZ_TRACE set: each operation and refusal on stderr */
static const char *g_opname = "setup";

static void violation(const char *fmt, ...)
{
    char prefix[96];
    snprintf(prefix, sizeof prefix, "fuzz_api at operation %d (%s)", g_op, g_opname);
    va_list ap;
    va_start(ap, fmt);
    fuzz_vviolation(prefix, fmt, ap);
}

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static int same(double a, double b)
{
    return bits(a) == bits(b);
}

static int same_vec(orca_vec2 a, orca_vec2 b)
{
    return same(a.x, b.x) && same(a.y, b.y);
}

static int same_def(const orca_agent_def *a, const orca_agent_def *b)
{
    return same_vec(a->position, b->position) && same_vec(a->velocity, b->velocity) &&
           same_vec(a->preferred_velocity, b->preferred_velocity) && same(a->radius, b->radius) &&
           same(a->max_speed, b->max_speed) && same(a->neighbor_dist, b->neighbor_dist) &&
           a->max_neighbors == b->max_neighbors && same(a->time_horizon, b->time_horizon) &&
           same(a->obstacle_time_horizon, b->obstacle_time_horizon);
}

static int is_finite(double x)
{
    return x - x == 0;
}

/* ---------------------------------------------------------------------------------------
 * Input reader: bytes past the end read as zero
 * ------------------------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
    double scale; /* of ordinary lengths and speeds (op "scale"): tiny and huge worlds */
} reader;

static unsigned rd_u8(reader *r)
{
    return r->at < r->n ? r->p[r->at++] : 0u;
}

static uint32_t rd_u32(reader *r)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
        v |= (uint32_t)rd_u8(r) << (8 * k);
    }
    return v;
}

static uint64_t rd_u64(reader *r)
{
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) {
        v |= (uint64_t)rd_u8(r) << (8 * k);
    }
    return v;
}

static unsigned rd_below(reader *r, unsigned n)
{
    return rd_u8(r) % n;
}

/* Edge values of binary64 (a sign is added on use). */
static const double EDGE[] = {
    0.0,
    0x1p-1074,                /* smallest subnormal */
    0x0.fffffffffffffp-1022,  /* largest subnormal */
    0x1p-1022,                /* DBL_MIN */
    1e-300,
    0x1p-537,                 /* squares underflow below this */
    0x1p-30,                  /* ORCA_RADIUS_MIN, ORCA_TIME_MIN and neighbours */
    0x1.fffffffffffffp-31,
    0x1.0000000000001p-30,
    1e-9,
    1e-6,
    0x1p20,
    0x1.fffffffffffffp20,     /* 2^21 and its neighbours */
    0x1p21,
    0x1.0000000000001p21,
    2097151.5,
    0x1p23,                   /* ORCA_NEIGHBOR_DIST_MAX */
    0x1.0000000000001p23,
    0x1p30,                   /* ORCA_SPEED_MAX, ORCA_TIME_MAX */
    0x1.0000000000001p30,
    0x1p31,                   /* ORCA_VELOCITY_LIMIT */
    0x1.0000000000001p31,
    3e38,
    1e150,
    1.44e163,
    0x1p511,
    1e300,
    DBL_MAX,
    INFINITY,
    NAN,
    0.5,
    1.5,
    2.0,
    10.0,
};
#define EDGE_COUNT (sizeof EDGE / sizeof EDGE[0])

static const double ORDINARY[] = {0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 15.0, 20.0, 100.0};
#define ORDINARY_COUNT (sizeof ORDINARY / sizeof ORDINARY[0])

/* Any double: raw bits (1 in 8), an edge value with a sign (3 in 16), else an ordinary one
 * (a table value with a sign, or a multiple of 1/4 in [-32, 32)). */
static double rd_double(reader *r)
{
    unsigned m = rd_u8(r);
    if (m < 32) {
        uint64_t u = rd_u64(r);
        double x;
        memcpy(&x, &u, sizeof x);
        return x;
    }
    if (m < 80) {
        double x = EDGE[rd_below(r, (unsigned)EDGE_COUNT)];
        return (m & 1) ? -x : x;
    }
    if (m < 160) {
        double x = ORDINARY[rd_below(r, (unsigned)ORDINARY_COUNT)];
        return (m & 1) ? -x : x;
    }
    return (double)(int8_t)rd_u8(r) * 0.25;
}

/* A coordinate: mostly within a few tens of metres (multiples of 1/2), sometimes anything. */
static double rd_coord(reader *r)
{
    unsigned m = rd_u8(r);
    if (m < 48) {
        return rd_double(r);
    }
    return ((double)(int8_t)rd_u8(r) * 0.5 + (double)(m & 3) * 0.125) * r->scale;
}

/* A step length: mostly ordinary steps, sometimes anything. */
static double rd_dt(reader *r)
{
    static const double DT[] = {0.25, 0.1, 0.5, 1.0, 0.05, 2.0, 0.01, 0.3};
    unsigned m = rd_u8(r);
    if (m < 40) {
        return rd_double(r);
    }
    return DT[m % 8];
}

static int rd_int(reader *r)
{
    static const int INTS[] = {-1, 0, 1, 2, 3, 5, 10, 63, 64, 1024, 1025, INT32_MIN, INT32_MAX, 4};
    unsigned m = rd_u8(r);
    if (m < 24) {
        return (int)rd_u32(r);
    }
    return INTS[m % (sizeof INTS / sizeof INTS[0])];
}

static orca_vec2 rd_vec(reader *r)
{
    orca_vec2 v;
    v.x = rd_double(r);
    v.y = rd_double(r);
    return v;
}

static orca_vec2 rd_point(reader *r)
{
    orca_vec2 v;
    v.x = rd_coord(r);
    v.y = rd_coord(r);
    return v;
}

/* ---------------------------------------------------------------------------------------
 * The engine job system stand-in (orca_sim_def.enqueue / finish), run on the caller
 * ------------------------------------------------------------------------------------- */

enum {
    JOB_SYNC,    /* the whole range at once, worker 0, returns NULL */
    JOB_SPLIT,   /* ranges of >= min_range in order, worker indices round robin */
    JOB_REVERSE, /* the same, last range first, returns a handle (finish does nothing) */
    JOB_TINY,    /* ranges of 1..7 items, last first */
    JOB_DEFER,   /* nothing until finish, which runs the split ranges */
    JOB_BAD,     /* split, one range with worker index -1 or worker_count: must be refused */
    JOB_MODES
};

typedef struct jobs {
    int mode;
    int workers; /* the simulation's worker count */
    unsigned shape; /* varies range lengths and worker numbering */
    int bad_emitted; /* bad indices given out (JOB_BAD) */
    int enqueued, finished;
    /* the deferred task */
    orca_task_fn *task;
    int count, min_range;
    void *task_context;
    int pending;
} jobs;

static void jobs_run(jobs *j, orca_task_fn *task, int count, int min_range, void *tctx)
{
    int starts[1024];
    int n = 0, at = 0;
    int minr = min_range > 0 ? min_range : 1;
    while (at < count && n < 1023) {
        int len;
        if (j->mode == JOB_TINY) {
            len = 1 + (int)((j->shape + (unsigned)n * 5u) % 7u);
        } else {
            len = minr * (1 + (int)((j->shape + (unsigned)n) % 3u));
        }
        starts[n++] = at;
        at = count - at > len ? at + len : count;
        if (j->mode != JOB_TINY && count - at < minr) {
            at = count; /* the rest joins this range: every range >= min_range */
        }
    }
    starts[n] = count;
    int reverse = j->mode == JOB_REVERSE || j->mode == JOB_TINY || (j->mode == JOB_DEFER && (j->shape & 1));
    int bad_at = j->mode == JOB_BAD ? (int)(j->shape % (unsigned)n) : -1;
    for (int q = 0; q < n; ++q) {
        int k = reverse ? n - 1 - q : q;
        int worker = (int)(((unsigned)q + j->shape) % (unsigned)j->workers);
        if (k == bad_at) {
            worker = (j->shape & 2) ? j->workers : -1;
            j->bad_emitted++;
        }
        task(starts[k], starts[k + 1], worker, tctx);
    }
}

static void *jobs_enqueue(orca_task_fn *task, int item_count, int min_range, void *task_context,
                          void *user_context)
{
    jobs *j = user_context;
    j->enqueued++;
    if (j->pending) {
        violation("enqueue called while an earlier task was not finished");
    }
    if (item_count <= 0) {
        violation("enqueue with %d items", item_count);
    }
    j->shape = j->shape * 1103515245u + 12345u;
    switch (j->mode) {
    case JOB_SYNC:
        task(0, item_count, 0, task_context);
        return NULL;
    case JOB_DEFER:
        j->task = task;
        j->count = item_count;
        j->min_range = min_range;
        j->task_context = task_context;
        j->pending = 1;
        return j;
    case JOB_REVERSE:
        jobs_run(j, task, item_count, min_range, task_context);
        return j;
    default:
        jobs_run(j, task, item_count, min_range, task_context);
        return NULL;
    }
}

static void jobs_finish(void *user_task, void *user_context)
{
    jobs *j = user_context;
    if (user_task != j) {
        violation("finish got a handle enqueue did not return");
    }
    j->finished++;
    if (j->pending) {
        j->pending = 0;
        jobs_run(j, j->task, j->count, j->min_range, j->task_context);
    }
}

/* ---------------------------------------------------------------------------------------
 * Simulation setups
 * ------------------------------------------------------------------------------------- */

typedef struct setup {
    int workers;   /* 1..4 */
    int callbacks; /* 0: the built-in pool; 1: the job system */
    int kernels;   /* vector kernels requested */
} setup;

static setup rd_setup(reader *r)
{
    unsigned b = rd_u8(r);
    setup s;
    s.workers = 1 + (int)(b & 3);
    s.callbacks = (b >> 2) & 1;
    s.kernels = !((b >> 3) & 1);
    return s;
}

static orca_sim *make_sim(setup st, jobs *j)
{
    orca_sim_def d = orca_sim_def_default();
    d.worker_count = st.workers;
    if (st.callbacks) {
        d.enqueue = jobs_enqueue;
        d.finish = jobs_finish;
        d.user_context = j;
        j->workers = st.workers;
    }
    orca_sim *s = NULL;
    if (orca_sim_create(&d, &s) != ORCA_OK || !s) {
        violation("orca_sim_create refused a valid definition (%d workers)", st.workers);
    }
    orca_sim_set_vector_kernels(s, st.kernels);
    return s;
}

/* ---------------------------------------------------------------------------------------
 * Plain copies of the state (through the getters) and the brute-force truth
 * ------------------------------------------------------------------------------------- */

typedef struct state {
    int n, m;
    orca_agent_def a[MAX_AGENTS];
    orca_vec2 sa[MAX_SEGS], sb[MAX_SEGS];
    int32_t stream[MAX_AGENTS];
    int ped_on;          /* the pedestrian model, and its parameters */
    orca_pedestrian ped;
} state;

static void read_state(const orca_sim *s, state *st)
{
    st->n = orca_sim_agent_count(s);
    st->m = orca_sim_segment_count(s);
    if (st->n < 0 || st->n > MAX_AGENTS || st->m < 0 || st->m > MAX_SEGS) {
        violation("counts out of range: %d agents, %d segments", st->n, st->m);
    }
    for (int i = 0; i < st->n; ++i) {
        orca_agent_id id = orca_sim_agent_at(s, i);
        if (orca_agent_get(s, id, &st->a[i]) != ORCA_OK ||
            orca_agent_get_stream(s, id, &st->stream[i]) != ORCA_OK) {
            violation("orca_agent_get refused the handle of agent %d", i);
        }
    }
    st->ped_on = orca_sim_get_pedestrian(s, &st->ped);
    for (int k = 0; k < st->m; ++k) {
        orca_segment_id id = orca_sim_segment_at(s, k);
        if (orca_segment_get(s, id, &st->sa[k], &st->sb[k]) != ORCA_OK) {
            violation("orca_segment_get refused the handle of segment %d", k);
        }
    }
}

typedef struct near {
    double d2;
    int index;
} near;

static int near_less(near a, near b)
{
    return a.d2 < b.d2 || (a.d2 == b.d2 && a.index < b.index);
}

static void near_sort(near *v, int n)
{
    for (int a = 1; a < n; ++a) {
        near t = v[a];
        int b = a;
        while (b > 0 && near_less(t, v[b - 1])) {
            v[b] = v[b - 1];
            --b;
        }
        v[b] = t;
    }
}

static orca_vec2 sub(orca_vec2 a, orca_vec2 b)
{
    orca_vec2 v = {a.x - b.x, a.y - b.y};
    return v;
}

/* Agents j != i with Dot(d, d) < neighbor_dist^2, the max_neighbors first by (d2, j). */
static int brute_agents(const state *st, int i, near *out)
{
    const orca_agent_def *a = &st->a[i];
    double nd2 = a->neighbor_dist * a->neighbor_dist;
    int n = 0;
    for (int j = 0; j < st->n; ++j) {
        if (j == i) {
            continue;
        }
        orca_vec2 d = sub(st->a[j].position, a->position);
        double d2 = d.x * d.x + d.y * d.y;
        if (d2 < nd2) {
            out[n].d2 = d2;
            out[n].index = j;
            ++n;
        }
    }
    near_sort(out, n);
    return n < a->max_neighbors ? n : a->max_neighbors;
}

/* Segments with SegDist2 (docs/algorithm.md §6.3) <= (obstacle_time_horizon*max_speed +
 * radius)^2, by (d2, k). */
static int brute_segments(const state *st, int i, near *out)
{
    const orca_agent_def *a = &st->a[i];
    double reach = a->obstacle_time_horizon * a->max_speed + a->radius;
    double reach2 = reach * reach;
    int n = 0;
    for (int k = 0; k < st->m; ++k) {
        double d2 = orca_segment_distance_squared(sub(st->sa[k], a->position), sub(st->sb[k], a->position));
        if (d2 <= reach2) {
            out[n].d2 = d2;
            out[n].index = k;
            ++n;
        }
    }
    near_sort(out, n);
    return n;
}

/* The pedestrian model's counter mode of agent i (docs/pedestrians.md, part A) from its list
 * nb (na entries), P its preferred velocity. */
static int brute_counter(const state *st, int i, const near *nb, int na)
{
    orca_vec2 P = st->a[i].preferred_velocity;
    double reach2 = st->ped.counter_reach * st->ped.counter_reach;
    for (int k = 0; st->stream[i] >= 0 && k < na && nb[k].d2 < reach2; ++k) {
        int j = nb[k].index;
        orca_vec2 q = st->a[j].preferred_velocity;
        if (st->stream[j] >= 0 && st->stream[j] != st->stream[i] && P.x * q.x + P.y * q.y < 0) {
            return 1;
        }
    }
    return 0;
}

/* The headway half-planes of agent i (part C) into out; returns their number. */
static int brute_headway(const state *st, int i, const near *nb, int na, orca_halfplane *out)
{
    const orca_agent_def *a = &st->a[i];
    orca_vec2 P = a->preferred_velocity;
    double pp = P.x * P.x + P.y * P.y, T = st->ped.time_gap;
    int n = 0;
    for (int k = 0; k < na && pp > 0 && n < st->ped.max_planes; ++k) {
        int j = nb[k].index;
        orca_vec2 d = sub(st->a[j].position, a->position), Q = st->a[j].preferred_velocity;
        double ahead = d.x * P.x + d.y * P.y;
        double L = (a->radius + st->a[j].radius) + st->ped.buffer;
        double m = L + a->max_speed * T;
        if (!(ahead > 0) || !(nb[k].d2 >= 0x1p-1022) || !(nb[k].d2 < m * m)) {
            continue;
        }
        double w = d.x * Q.x + d.y * Q.y;
        if (w < 0) {
            double lhs = (ahead * ahead) * (Q.x * Q.x + Q.y * Q.y), rhs = (w * w) * pp;
            if (lhs < rhs || (lhs == rhs && i < j)) {
                continue;
            }
        }
        double dist = sqrt(nb[k].d2);
        double c = (dist - L) / T;
        orca_vec2 u = {d.x / dist, d.y / dist};
        out[n].point.x = u.x * c;
        out[n].point.y = u.y * c;
        out[n].normal.x = -u.x;
        out[n].normal.y = -u.y;
        ++n;
    }
    return n;
}

/* 1 when the model is on and agent i has a list neighbour at exactly its position: there the
 * separation rule the model turns on (docs/extensions.md, "Coincident agents") may change a
 * half-plane, which the brute force does not model. */
static int brute_coincident(const state *st, int i)
{
    near nb[MAX_AGENTS];
    int na = st->ped_on ? brute_agents(st, i, nb) : 0;
    for (int k = 0; k < na; ++k) {
        orca_vec2 d = sub(st->a[nb[k].index].position, st->a[i].position);
        if (d.x == 0 && d.y == 0) {
            return 1;
        }
    }
    return 0;
}

/* The constraints of agent i for a step of dt, in docs/algorithm.md §11's order (with the
 * pedestrian model on, its time horizon and headway half-planes: docs/pedestrians.md); returns
 * the count, *hard the obstacles', *head the index of the first headway half-plane. */
static int brute_planes(const state *st, int i, double dt, orca_halfplane *planes, int *hard,
                        int *head, int *counter_out)
{
    near nb[MAX_AGENTS + MAX_SEGS];
    const orca_agent_def *a = &st->a[i];
    int no = brute_segments(st, i, nb);
    for (int k = 0; k < no; ++k) {
        int s = nb[k].index;
        planes[k] = orca_constraint_segment(sub(st->sa[s], a->position), sub(st->sb[s], a->position),
                                            a->radius, a->obstacle_time_horizon, dt, NULL);
    }
    int na = brute_agents(st, i, nb);
    int counter = st->ped_on && brute_counter(st, i, nb, na);
    double tau = a->time_horizon;
    if (st->ped_on && !counter && st->ped.time_gap < tau) {
        tau = st->ped.time_gap;
    }
    for (int k = 0; k < na; ++k) {
        const orca_agent_def *b = &st->a[nb[k].index];
        planes[no + k] = orca_constraint_agent(sub(b->position, a->position), a->radius + b->radius,
                                               a->velocity, b->velocity, tau, dt, NULL);
    }
    int nh = st->ped_on && !counter ? brute_headway(st, i, nb, na, planes + no + na) : 0;
    *hard = no;
    *head = no + na;
    *counter_out = counter;
    return no + na + nh;
}

/* The preferred velocity the program gets: in the pedestrian model's counter mode turned to
 * the right by atan(1/8), its length kept (docs/pedestrians.md, part D). */
static orca_vec2 brute_preferred(orca_vec2 P, int counter)
{
    if (!counter) {
        return P;
    }
    double c = 0x1.fc0bd88a0f1dap-1; /* 8 / sqrt(65) */
    orca_vec2 v = {(P.x + P.y * 0.125) * c, (P.y - P.x * 0.125) * c};
    return v;
}

/* The step of docs/algorithm.md §12 from st: every new velocity, then each position
 * p + v * dt. */
static void reference_step(const state *st, double dt, orca_vec2 *vel, orca_vec2 *pos)
{
    orca_halfplane planes[MAX_PLANES], scratch[MAX_PLANES];
    for (int i = 0; i < st->n; ++i) {
        int hard, head, counter;
        int count = brute_planes(st, i, dt, planes, &hard, &head, &counter);
        orca_solve_result res;
        if (orca_solve(planes, count, hard, st->a[i].max_speed,
                       brute_preferred(st->a[i].preferred_velocity, counter), scratch,
                       &res) != ORCA_OK) {
            violation("orca_solve refused agent %d's program (%d planes)", i, count);
        }
        /* failed at a headway half-plane: the fallback keeps every half-plane before it hard
         * (docs/pedestrians.md, part D) */
        if (res.fallback && res.failed >= head &&
            orca_lp_fallback(planes, count, head, res.failed, st->a[i].max_speed, scratch,
                             &res.velocity) != ORCA_OK) {
            violation("orca_lp_fallback refused agent %d's program (%d planes)", i, count);
        }
        vel[i] = res.velocity;
        if (st->a[i].max_speed == 0 && (vel[i].x != 0 || vel[i].y != 0)) {
            vel[i].x = 0; /* a non-zero result of max speed 0 (algorithm.md §11.3, choice 16) */
            vel[i].y = 0;
        }
    }
    for (int i = 0; i < st->n; ++i) {
        pos[i].x = st->a[i].position.x + vel[i].x * dt;
        pos[i].y = st->a[i].position.y + vel[i].y * dt;
    }
}

/* The documented ranges (sim.h, docs/limits.md): a value outside them must be refused. */
static int in_range(double x, double lo, double hi)
{
    return x >= lo && x <= hi; /* false for NaN */
}

static int coord_invalid(orca_vec2 p)
{
    return !(fabs(p.x) < ORCA_COORD_LIMIT && fabs(p.y) < ORCA_COORD_LIMIT);
}

static int vector_invalid(orca_vec2 v)
{
    return !(fabs(v.x) <= ORCA_VELOCITY_LIMIT && fabs(v.y) <= ORCA_VELOCITY_LIMIT);
}

static int dt_invalid(double dt)
{
    return !in_range(dt, ORCA_TIME_MIN, ORCA_TIME_MAX);
}

static int def_documented_invalid(const orca_agent_def *d)
{
    return coord_invalid(d->position) || vector_invalid(d->velocity) ||
           vector_invalid(d->preferred_velocity) ||
           !in_range(d->radius, ORCA_RADIUS_MIN, ORCA_RADIUS_MAX) ||
           !in_range(d->max_speed, 0, ORCA_SPEED_MAX) ||
           !in_range(d->neighbor_dist, 0, ORCA_NEIGHBOR_DIST_MAX) || d->max_neighbors < 0 ||
           d->max_neighbors > ORCA_MAX_NEIGHBORS_LIMIT ||
           !in_range(d->time_horizon, ORCA_TIME_MIN, ORCA_TIME_MAX) ||
           !in_range(d->obstacle_time_horizon, ORCA_TIME_MIN, ORCA_TIME_MAX);
}

/* ---------------------------------------------------------------------------------------
 * The disc check's oracle (docs/extensions.md, "Walkable-area boundaries"): written here, with
 * the exact orientation of exact_ref.h and a plain point-segment distance
 * ------------------------------------------------------------------------------------- */

#define MAX_BEDGES (17 * 8) /* 16 loops of up to 8 points, and one more being added */

typedef struct walls {
    int n;
    orca_vec2 a[MAX_BEDGES], b[MAX_BEDGES];
} walls;

static void read_walls(const orca_sim *s, walls *w)
{
    w->n = 0;
    for (int l = 0; l < orca_sim_boundary_count(s); ++l) {
        orca_vec2 pts[8];
        int n = 0;
        if (orca_boundary_get(s, orca_sim_boundary_at(s, l), pts, 8, &n) != ORCA_OK || n > 8 ||
            w->n + n > MAX_BEDGES) {
            violation("orca_boundary_get of loop %d", l);
        }
        for (int k = 0; k < n; ++k) {
            w->a[w->n] = pts[k];
            w->b[w->n] = pts[(k + 1) % n];
            w->n++;
        }
    }
}

static double wall_dist(orca_vec2 p, orca_vec2 a, orca_vec2 b)
{
    double ex = b.x - a.x, ey = b.y - a.y, ee = ex * ex + ey * ey;
    double t = ee > 0 ? ((p.x - a.x) * ex + (p.y - a.y) * ey) / ee : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double dx = a.x + t * ex - p.x, dy = a.y + t * ey - p.y;
    return sqrt(dx * dx + dy * dy);
}

/* 1: the disc (p, r) clearly fits, and the library must accept it; -1: clearly not, it must
 * refuse; 0: within the rounding around the tolerance 2^-40 (r + M), either. With first = 0
 * the check of an agent against every edge; else the check of a new loop (its edges from
 * `first` on) against an agent already there. */
static int fit_oracle(const walls *w, int first, orca_vec2 p, double r)
{
    int wn_old = 0, wn_new = 0, on_old = 0, on_new = 0, bad = 0, ok = 1;
    for (int k = 0; k < w->n; ++k) {
        orca_vec2 a = w->a[k], b = w->b[k];
        int up = a.y <= p.y && b.y > p.y, down = a.y > p.y && b.y <= p.y;
        int inbox = fmin(a.x, b.x) <= p.x && p.x <= fmax(a.x, b.x) && fmin(a.y, b.y) <= p.y &&
                    p.y <= fmax(a.y, b.y);
        int o = up || down || inbox ? exact_ref_orient(a, b, p) : 1;
        int on = inbox && o == 0;
        int c = on ? 0 : (up && o > 0) - (down && o < 0); /* the ray towards +x */
        if (k < first) {
            wn_old += c;
            on_old |= on;
            continue;
        }
        wn_new += c;
        on_new |= on;
        double d = wall_dist(p, a, b);
        double m = fmax(fmax(fmax(fabs(p.x), fabs(p.y)), fmax(fabs(a.x), fabs(a.y))),
                        fmax(fabs(b.x), fabs(b.y)));
        bad |= d < r - 0x1p-35 * (r + m);
        ok &= d >= r - 0x1p-45 * (r + m) && d >= 0x1p-44 * (r + m);
    }
    int inside_before = first == 0 || (!on_old && wn_old >= 1);
    if (on_new || (inside_before && wn_old + wn_new < 1) || bad) {
        return -1;
    }
    return ok ? 1 : 0;
}

/* The oracle's word on an agent added (or moved to p with radius r) in s, against its status:
 * a refusal (ORCA_ERR_ARGUMENT) of a valid agent that clearly fits, or an acceptance of one
 * that clearly does not, is a violation. */
static void check_fit(const orca_sim *s, const char *what, orca_vec2 p, double r,
                      orca_status st)
{
    if (orca_sim_boundary_count(s) == 0) {
        return;
    }
    char msg[600];
    snprintf(msg, sizeof msg, "%s", orca_sim_last_error(s)); /* the reads below clear it */
    walls *w = malloc(sizeof *w);
    if (!w) {
        abort();
    }
    read_walls(s, w);
    int o = fit_oracle(w, 0, p, r);
    free(w);
    if (o > 0 && st == ORCA_ERR_ARGUMENT) {
        violation("%s refused a disc that fits: (%.17g, %.17g) radius %.17g: %s", what, p.x, p.y,
                  r, msg);
    }
    if (o < 0 && st == ORCA_OK) {
        violation("%s accepted a disc that does not fit: (%.17g, %.17g) radius %.17g", what, p.x,
                  p.y, r);
    }
}

/* ---------------------------------------------------------------------------------------
 * The world: the simulations, the handles ever given out, a checkpoint
 * ------------------------------------------------------------------------------------- */

enum { LIVE_NO = 0, LIVE_YES = 1, LIVE_UNKNOWN = 2 };

typedef struct rec {
    int segment; /* 0 agent, 1 segment */
    uint32_t slot, generation;
    int live;
} rec;

typedef struct world {
    orca_sim *main, *ref, *alt;
    uint64_t hm, hr; /* their hashes after the last check_mirror */
    setup main_setup, alt_setup;
    jobs main_jobs, alt_jobs;
    rec recs[MAX_RECS];
    int nrecs;
    /* a checkpoint for rollbacks */
    unsigned char *cp_bytes;
    size_t cp_size;
    uint64_t cp_hash;
    rec cp_recs[MAX_RECS];
    int cp_nrecs;
} world;

static void rec_add(world *w, int segment, uint32_t slot, uint32_t generation)
{
    if (w->nrecs < MAX_RECS) {
        rec r = {segment, slot, generation, LIVE_YES};
        w->recs[w->nrecs++] = r;
    }
}

static void rec_kill(world *w, int segment, uint32_t slot, uint32_t generation)
{
    for (int k = 0; k < w->nrecs; ++k) {
        rec *r = &w->recs[k];
        if (r->segment == segment && r->slot == slot && r->generation == generation) {
            r->live = LIVE_NO;
        }
    }
}

/* The simulation identity of a made-up handle: mostly main's, now and then the reference's
 * (a live simulation's handle, foreign to main), 0 (no simulation's) or any number. */
static uint32_t pick_sim(world *w, reader *r)
{
    unsigned m = rd_u8(r);
    return m < 192 ? orca_sim_id(w->main)
           : m < 224 ? orca_sim_id(w->ref)
           : m < 240 ? 0u
                     : rd_u32(r);
}

/* A handle for an agent operation: a live one by index, a recorded (maybe removed) one, or
 * a made-up one; each now and then with another simulation's identity. */
static orca_agent_id pick_agent(world *w, reader *r)
{
    unsigned m = rd_u8(r);
    int n = orca_sim_agent_count(w->main);
    orca_agent_id id = {0, 0, 0};
    if (m < 200 && n > 0) {
        id = orca_sim_agent_at(w->main, (int)(rd_u8(r) % (unsigned)n));
        if (m < 8) {
            id.sim = pick_sim(w, r); /* the same slot and generation, maybe foreign */
        }
        return id;
    }
    if (m < 236 && w->nrecs > 0) {
        const rec *q = &w->recs[rd_u8(r) % (unsigned)w->nrecs];
        id.slot = q->slot;
        id.generation = q->generation;
        id.sim = pick_sim(w, r);
        return id;
    }
    id.slot = rd_u8(r) % 80u;
    id.generation = rd_u8(r) % 4u;
    id.sim = id.slot == 0 && id.generation == 0 ? 0u : pick_sim(w, r);
    if (m == 255) {
        id.slot = rd_u32(r);
        id.generation = rd_u32(r);
        id.sim = rd_u32(r);
    }
    return id;
}

static orca_segment_id pick_segment(world *w, reader *r)
{
    unsigned m = rd_u8(r);
    int n = orca_sim_segment_count(w->main);
    orca_segment_id id = {0, 0, 0};
    if (m < 200 && n > 0) {
        id = orca_sim_segment_at(w->main, (int)(rd_u8(r) % (unsigned)n));
        if (m < 8) {
            id.sim = pick_sim(w, r);
        }
        return id;
    }
    if (m < 236 && w->nrecs > 0) {
        const rec *q = &w->recs[rd_u8(r) % (unsigned)w->nrecs];
        id.slot = q->slot;
        id.generation = q->generation;
        id.sim = pick_sim(w, r);
        return id;
    }
    id.slot = rd_u8(r) % 48u;
    id.generation = rd_u8(r) % 4u;
    id.sim = id.slot == 0 && id.generation == 0 ? 0u : pick_sim(w, r);
    return id;
}

/* The identity a handle for ref gets from a main handle's: a main handle is foreign to main
 * exactly when its ref handle is foreign to ref (the two identities exchanged; 0 and the
 * null handle kept). */
static uint32_t ref_sim(const world *w, uint32_t sim)
{
    uint32_t m = orca_sim_id(w->main), f = orca_sim_id(w->ref);
    return sim == m ? f : sim == f ? m : sim;
}

/* The ref handle of the object a main handle names (the same index); for a stale handle the
 * null handle, for a foreign one a handle foreign to ref. */
static orca_agent_id ref_agent(const world *w, orca_agent_id id)
{
    int i = orca_sim_agent_index(w->main, id);
    orca_agent_id none = {0, 0, 0};
    if (id.sim != orca_sim_id(w->main)) {
        orca_agent_id foreign = {id.slot, id.generation, ref_sim(w, id.sim)};
        return foreign;
    }
    return i < 0 ? none : orca_sim_agent_at(w->ref, i);
}

static orca_segment_id ref_segment(const world *w, orca_segment_id id)
{
    orca_segment_id none = {0, 0, 0};
    if (id.sim != orca_sim_id(w->main)) {
        orca_segment_id foreign = {id.slot, id.generation, ref_sim(w, id.sim)};
        return foreign;
    }
    for (int k = 0; k < orca_sim_segment_count(w->main); ++k) {
        orca_segment_id h = orca_sim_segment_at(w->main, k);
        if (h.slot == id.slot && h.generation == id.generation) {
            return orca_sim_segment_at(w->ref, k);
        }
    }
    return none;
}

/* ---------------------------------------------------------------------------------------
 * Checks shared by the operations
 * ------------------------------------------------------------------------------------- */

/* After a call on s that began with hash h0. */
static void after_call(const orca_sim *s, const char *which, uint64_t h0, orca_status st)
{
    if (g_trace > 0) {
        fprintf(stderr, "    %s: %s%s%s\n", which, orca_status_name(st), st ? ": " : "",
                st ? orca_sim_last_error(s) : "");
    }
    if (st == ORCA_OK) {
        return;
    }
    if (st > 0 || st < ORCA_ERR_FOREIGN) {
        violation("%s: status %d is not an orca_status", which, (int)st);
    }
    uint64_t h1 = orca_sim_hash(s);
    if (h1 != h0) {
        violation("%s: refused (%s: %s) but the hash changed %016llx -> %016llx", which,
                  orca_status_name(st), orca_sim_last_error(s), (unsigned long long)h0,
                  (unsigned long long)h1);
    }
    const char *e = orca_sim_last_error(s);
    if (!e || !e[0]) {
        violation("%s: refused (%s) with an empty orca_sim_last_error", which, orca_status_name(st));
    }
}

static void same_status(orca_status a, orca_status b, const world *w)
{
    if (a != b) {
        violation("main gave %s (%s), ref gave %s (%s)", orca_status_name(a),
                  orca_sim_last_error(w->main), orca_status_name(b), orca_sim_last_error(w->ref));
    }
}

/* main and ref have the same hash; it is kept (w->hm, w->hr) for the next operation. */
static void check_mirror(world *w)
{
    uint64_t a = orca_sim_hash(w->main), b = orca_sim_hash(w->ref);
    w->hm = a;
    w->hr = b;
    if (a != b) {
        violation("main (%d workers, %s, kernels %d) and ref (1 worker, scalar) differ: hash %016llx vs "
                  "%016llx",
                  orca_sim_get_worker_count(w->main), w->main_setup.callbacks ? "job system" : "pool",
                  orca_sim_get_vector_kernels(w->main), (unsigned long long)a, (unsigned long long)b);
    }
}

/* Handles and indices agree; recorded handles are live or stale as recorded. */
static void check_tables(const world *w)
{
    const orca_sim *s = w->main;
    int n = orca_sim_agent_count(s), m = orca_sim_segment_count(s);
    const orca_vec2 *pos = orca_sim_positions(s);
    if (n > 0 && !pos) {
        violation("orca_sim_positions is NULL with %d agents", n);
    }
    for (int i = 0; i < n; ++i) {
        orca_agent_id id = orca_sim_agent_at(s, i);
        if (id.generation == 0 || orca_sim_agent_index(s, id) != i) {
            violation("agent %d: handle {%u, %u} maps to index %d", i, (unsigned)id.slot,
                      (unsigned)id.generation, orca_sim_agent_index(s, id));
        }
        orca_vec2 p;
        if (orca_agent_get_position(s, id, &p) != ORCA_OK || !same_vec(p, pos[i])) {
            violation("agent %d: orca_agent_get_position disagrees with orca_sim_positions", i);
        }
    }
    orca_agent_id none = orca_sim_agent_at(s, n), neg = orca_sim_agent_at(s, -1);
    if (none.generation != 0 || none.slot != 0 || neg.generation != 0 || neg.slot != 0) {
        violation("orca_sim_agent_at out of range is not the null handle");
    }
    for (int k = 0; k < m; ++k) {
        orca_segment_id id = orca_sim_segment_at(s, k);
        if (id.generation == 0) {
            violation("segment %d has a null handle", k);
        }
    }
    /* every value stays in its accepted range (docs/limits.md), so any state saves, loads and
     * steps again */
    for (int i = 0; i < n; ++i) {
        orca_agent_def d;
        orca_agent_get(s, orca_sim_agent_at(s, i), &d);
        if (def_documented_invalid(&d)) {
            violation("agent %d holds a value outside the accepted ranges (position (%.17g, %.17g), "
                      "velocity (%.17g, %.17g), preferred (%.17g, %.17g))",
                      i, d.position.x, d.position.y, d.velocity.x, d.velocity.y,
                      d.preferred_velocity.x, d.preferred_velocity.y);
        }
    }
    orca_segment_id snone = orca_sim_segment_at(s, m);
    if (snone.generation != 0) {
        violation("orca_sim_segment_at out of range is not the null handle");
    }
    for (int k = 0; k < w->nrecs; ++k) {
        const rec *q = &w->recs[k];
        if (q->live == LIVE_UNKNOWN) {
            continue;
        }
        int live;
        if (q->segment) {
            orca_segment_id id = {q->slot, q->generation, orca_sim_id(s)};
            live = orca_segment_get(s, id, NULL, NULL) == ORCA_OK;
        } else {
            orca_agent_id id = {q->slot, q->generation, orca_sim_id(s)};
            live = orca_sim_agent_index(s, id) >= 0;
        }
        if (live != (q->live == LIVE_YES)) {
            violation("%s handle {%u, %u} is %s but should be %s", q->segment ? "segment" : "agent",
                      (unsigned)q->slot, (unsigned)q->generation, live ? "live" : "stale",
                      q->live == LIVE_YES ? "live" : "stale");
        }
    }
}

/* Saves s into a new buffer (checked: the size query, a short buffer, the save). */
static unsigned char *save_sim_hashed(const orca_sim *s, uint64_t h0, size_t *size)
{
    size_t need = 0;
    if (orca_sim_save(s, NULL, 0, &need) != ORCA_OK || need < 16) {
        violation("orca_sim_save size query failed (%zu)", need);
    }
    unsigned char *buf = malloc(need);
    if (!buf) {
        abort();
    }
    size_t got = 0;
    orca_status st = orca_sim_save(s, buf, need - 1, &got);
    if (st != ORCA_ERR_LIMIT || got != need) {
        violation("orca_sim_save into %zu of %zu bytes gave %s, size %zu", need - 1, need,
                  orca_status_name(st), got);
    }
    after_call(s, "orca_sim_save (short buffer)", h0, st);
    st = orca_sim_save(s, buf, need, &got);
    if (st != ORCA_OK || got != need) {
        violation("orca_sim_save gave %s, size %zu of %zu", orca_status_name(st), got, need);
    }
    *size = need;
    return buf;
}

static unsigned char *save_sim(const orca_sim *s, size_t *size)
{
    return save_sim_hashed(s, orca_sim_hash(s), size);
}

/* load(save(s)) in a fresh simulation: the same hash and the same bytes again. */
static void check_roundtrip(const orca_sim *s)
{
    size_t size;
    unsigned char *buf = save_sim(s, &size);
    orca_sim *t = NULL;
    if (orca_sim_create(NULL, &t) != ORCA_OK) {
        violation("orca_sim_create(NULL) failed");
    }
    orca_status st = orca_sim_load(t, buf, size);
    if (st != ORCA_OK) {
        violation("a fresh simulation refused a snapshot just saved: %s", orca_sim_last_error(t));
    }
    if (orca_sim_hash(t) != orca_sim_hash(s) || orca_sim_step_count(t) != orca_sim_step_count(s)) {
        violation("load(save(x)) has another hash or step count than x");
    }
    size_t size2;
    unsigned char *buf2 = save_sim(t, &size2);
    if (size2 != size || memcmp(buf, buf2, size) != 0) {
        violation("save(load(save(x))) differs from save(x)");
    }
    free(buf2);
    orca_sim_destroy(t);
    free(buf);
}

/* A fresh ref: main's agents and segments added in index order (one worker, scalar). */
static void rebuild_ref(world *w)
{
    state *st = malloc(sizeof *st);
    if (!st) {
        abort();
    }
    read_state(w->main, st);
    orca_sim *r = NULL;
    if (orca_sim_create(NULL, &r) != ORCA_OK) {
        violation("orca_sim_create(NULL) failed");
    }
    orca_sim_set_vector_kernels(r, 0);
    for (int k = 0; k < orca_sim_boundary_count(w->main); ++k) { /* boundaries: as they are */
        orca_vec2 pts[8];
        int n = 0;
        orca_boundary_get(w->main, orca_sim_boundary_at(w->main, k), pts, 8, &n);
        if (n > 8 || orca_sim_add_boundary(r, pts, n, NULL) != ORCA_OK) {
            violation("boundary %d of main, added again, is refused", k);
        }
    }
    int unfit = 0; /* an agent outside the area (a loop was removed) is refused again */
    for (int i = 0; i < st->n && !unfit; ++i) {
        orca_status sa = orca_sim_add_agent(r, &st->a[i], NULL);
        if (sa == ORCA_ERR_ARGUMENT && orca_sim_boundary_count(r) > 0) {
            check_fit(r, "orca_sim_add_agent (an agent of main, added again)",
                      st->a[i].position, st->a[i].radius, sa);
            unfit = 1;
        } else if (sa != ORCA_OK) {
            violation("agent %d of main, added again, is refused: %s", i, orca_sim_last_error(r));
        }
    }
    for (int k = 0; k < st->m && !unfit; ++k) {
        if (orca_sim_add_segment(r, st->sa[k], st->sb[k], NULL) != ORCA_OK) {
            violation("segment %d of main, added again, is refused: %s", k, orca_sim_last_error(r));
        }
    }
    for (int i = 0; i < st->n && !unfit; ++i) { /* the streams and the pedestrian model */
        if (orca_agent_set_stream(r, orca_sim_agent_at(r, i), st->stream[i]) != ORCA_OK) {
            violation("agent %d's stream %d, set again, is refused", i, (int)st->stream[i]);
        }
    }
    if (!unfit && st->ped_on && orca_sim_set_pedestrian(r, &st->ped) != ORCA_OK) {
        violation("main's pedestrian model, set again, is refused: %s", orca_sim_last_error(r));
    }
    if (unfit) {
        /* then main's state through a snapshot, which is not checked (docs/extensions.md) */
        size_t size;
        unsigned char *buf = save_sim(w->main, &size);
        orca_sim_destroy(r);
        r = NULL;
        if (orca_sim_create(NULL, &r) != ORCA_OK || orca_sim_load(r, buf, size) != ORCA_OK) {
            violation("a fresh simulation refused main's snapshot");
        }
        orca_sim_set_vector_kernels(r, 0);
        free(buf);
    }
    orca_sim_destroy(w->ref);
    w->ref = r;
    free(st);
    check_mirror(w);
}

/* ---------------------------------------------------------------------------------------
 * Operations
 * ------------------------------------------------------------------------------------- */

/* Overrides one field of d with a value from the input. */
static void override_field(reader *r, orca_agent_def *d)
{
    switch (rd_below(r, 10)) {
    case 0: d->position = rd_point(r); break;
    case 1: d->velocity = rd_vec(r); break;
    case 2: d->preferred_velocity = rd_vec(r); break;
    case 3: d->radius = rd_double(r); break;
    case 4: d->max_speed = rd_double(r); break;
    case 5: d->neighbor_dist = rd_double(r); break;
    case 6: d->max_neighbors = rd_int(r); break;
    case 7: d->time_horizon = rd_double(r); break;
    case 8: d->obstacle_time_horizon = rd_double(r); break;
    default: /* an ordinary positive value into one of the scalars */
        {
            double v = ORDINARY[rd_below(r, (unsigned)ORDINARY_COUNT)];
            switch (rd_below(r, 5)) {
            case 0: d->radius = v; break;
            case 1: d->max_speed = v; break;
            case 2: d->neighbor_dist = v; break;
            case 3: d->time_horizon = v; break;
            default: d->obstacle_time_horizon = v; break;
            }
        }
    }
}

/* The default agent in the world's scale (lengths and speeds; times stay). */
static orca_agent_def scaled_default(const reader *r)
{
    orca_agent_def d = orca_agent_def_default();
    d.radius *= r->scale;
    d.max_speed *= r->scale;
    d.neighbor_dist *= r->scale;
    return d;
}

static void op_add_agent(world *w, reader *r)
{
    orca_agent_def d = scaled_default(r);
    d.position = rd_point(r);
    d.preferred_velocity.x = (double)(int8_t)rd_u8(r) / 64.0 * r->scale;
    d.preferred_velocity.y = (double)(int8_t)rd_u8(r) / 64.0 * r->scale;
    for (unsigned k = rd_below(r, 5); k > 0; --k) {
        override_field(r, &d);
    }
    int null_def = rd_u8(r) == 0;
    if (orca_sim_agent_count(w->main) >= MAX_AGENTS) {
        return;
    }
    orca_agent_id a, b;
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_sim_add_agent(w->main, null_def ? NULL : &d, &a);
    after_call(w->main, "orca_sim_add_agent", h0, st);
    orca_status sr = orca_sim_add_agent(w->ref, null_def ? NULL : &d, &b);
    after_call(w->ref, "orca_sim_add_agent (ref)", r0, sr);
    same_status(st, sr, w);
    if (!null_def && !def_documented_invalid(&d)) {
        check_fit(w->main, "orca_sim_add_agent", d.position, d.radius, st);
    }
    if (st == ORCA_OK && (null_def || def_documented_invalid(&d))) {
        violation("orca_sim_add_agent accepted an invalid definition (radius %.17g, max_speed %.17g, "
                  "neighbor_dist %.17g, max_neighbors %d, horizons %.17g %.17g)",
                  d.radius, d.max_speed, d.neighbor_dist, d.max_neighbors, d.time_horizon,
                  d.obstacle_time_horizon);
    }
    if (st == ORCA_OK) {
        if (a.generation == 0 || orca_sim_agent_index(w->main, a) != orca_sim_agent_count(w->main) - 1) {
            violation("the new agent's handle does not name the last index");
        }
        orca_agent_def back;
        if (orca_agent_get(w->main, a, &back) != ORCA_OK || !same_def(&back, &d)) {
            violation("orca_agent_get does not give back the added definition");
        }
        rec_add(w, 0, a.slot, a.generation);
    }
}

/* Several ordinary agents at once, on a square lattice (to reach crowded scenes quickly). */
static void op_add_block(world *w, reader *r)
{
    int k = 1 + (int)rd_below(r, 24);
    orca_vec2 base = rd_point(r);
    double spacing = 0.5 * (double)(1 + rd_below(r, 8)) * r->scale;
    orca_agent_def d = scaled_default(r);
    unsigned variant = rd_u8(r);
    if (variant & 1) {
        override_field(r, &d);
    }
    orca_vec2 goal = rd_point(r);
    int cols = 1;
    while (cols * cols < k) {
        ++cols;
    }
    for (int q = 0; q < k && orca_sim_agent_count(w->main) < MAX_AGENTS; ++q) {
        orca_agent_def e = d;
        e.position.x = base.x + spacing * (double)(q % cols);
        e.position.y = base.y + spacing * (double)(q / cols);
        e.preferred_velocity.x = (goal.x - e.position.x) * 0.125;
        e.preferred_velocity.y = (goal.y - e.position.y) * 0.125;
        if (variant & 2) {
            e.velocity = e.preferred_velocity;
        }
        orca_agent_id a, b;
        uint64_t h0 = orca_sim_hash(w->main), r0 = orca_sim_hash(w->ref);
        orca_status st = orca_sim_add_agent(w->main, &e, &a);
        after_call(w->main, "orca_sim_add_agent", h0, st);
        orca_status sr = orca_sim_add_agent(w->ref, &e, &b);
        after_call(w->ref, "orca_sim_add_agent (ref)", r0, sr);
        same_status(st, sr, w);
        if (!def_documented_invalid(&e)) {
            check_fit(w->main, "orca_sim_add_agent", e.position, e.radius, st);
        }
        if (st == ORCA_OK && def_documented_invalid(&e)) {
            violation("orca_sim_add_agent accepted an invalid definition");
        }
        if (st == ORCA_OK) {
            rec_add(w, 0, a.slot, a.generation);
        }
    }
}

static void op_remove_agent(world *w, reader *r)
{
    orca_agent_id id = pick_agent(w, r);
    orca_agent_id rid = ref_agent(w, id);
    int was = orca_sim_agent_index(w->main, id);
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_sim_remove_agent(w->main, id);
    after_call(w->main, "orca_sim_remove_agent", h0, st);
    orca_status sr = orca_sim_remove_agent(w->ref, rid);
    after_call(w->ref, "orca_sim_remove_agent (ref)", r0, sr);
    same_status(st, sr, w);
    if ((st == ORCA_OK) != (was >= 0)) {
        violation("orca_sim_remove_agent of a handle at index %d gave %s", was, orca_status_name(st));
    }
    if ((st == ORCA_ERR_FOREIGN) !=
        (id.sim != orca_sim_id(w->main) && (id.slot | id.generation | id.sim) != 0)) {
        violation("orca_sim_remove_agent of {%u, %u, sim %u} in sim %u gave %s", id.slot,
                  id.generation, id.sim, orca_sim_id(w->main), orca_status_name(st));
    }
    if (st == ORCA_OK) {
        if (orca_sim_agent_index(w->main, id) != -1) {
            violation("a removed agent's handle is still live");
        }
        rec_kill(w, 0, id.slot, id.generation);
        check_mirror(w);
        rebuild_ref(w);
    }
}

/* orca_sim_remove_agents: up to 4 handles (a stale or repeated one now and then), against the
 * reference removing them one at a time; a refusal changes nothing. */
static void op_remove_agents(world *w, reader *r)
{
    int k = 1 + (int)rd_below(r, 4);
    orca_agent_id ids[4], rids[4];
    int live = 1;
    for (int q = 0; q < k; ++q) {
        ids[q] = pick_agent(w, r);
        if (q > 0 && rd_below(r, 8) == 0) {
            ids[q] = ids[q - 1]; /* a repeat: refused */
        }
        rids[q] = ref_agent(w, ids[q]);
        live &= orca_sim_agent_index(w->main, ids[q]) >= 0;
        for (int p = 0; p < q; ++p) {
            live &= ids[p].slot != ids[q].slot || ids[p].generation != ids[q].generation;
        }
    }
    uint64_t h0 = w->hm;
    orca_status st = orca_sim_remove_agents(w->main, ids, k);
    after_call(w->main, "orca_sim_remove_agents", h0, st);
    if ((st == ORCA_OK) != live) {
        violation("orca_sim_remove_agents of %d handles (all live and distinct: %d) gave %s", k,
                  live, orca_status_name(st));
    }
    if (st != ORCA_OK) {
        if (orca_sim_hash(w->main) != h0) {
            violation("a refused orca_sim_remove_agents changed the state");
        }
        return;
    }
    for (int q = 0; q < k; ++q) {
        uint64_t r0 = orca_sim_hash(w->ref);
        orca_status sr = orca_sim_remove_agent(w->ref, rids[q]);
        after_call(w->ref, "orca_sim_remove_agent (ref)", r0, sr);
        if (sr != ORCA_OK) {
            violation("the reference refused a removal the batch made");
        }
        if (orca_sim_agent_index(w->main, ids[q]) != -1) {
            violation("a removed agent's handle is still live");
        }
        rec_kill(w, 0, ids[q].slot, ids[q].generation);
    }
    check_mirror(w);
    rebuild_ref(w);
}

static void op_remove_segment(world *w, reader *r)
{
    orca_segment_id id = pick_segment(w, r);
    orca_segment_id rid = ref_segment(w, id);
    int was = orca_segment_get(w->main, id, NULL, NULL) == ORCA_OK;
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_sim_remove_segment(w->main, id);
    after_call(w->main, "orca_sim_remove_segment", h0, st);
    orca_status sr = orca_sim_remove_segment(w->ref, rid);
    after_call(w->ref, "orca_sim_remove_segment (ref)", r0, sr);
    same_status(st, sr, w);
    if ((st == ORCA_OK) != was) {
        violation("orca_sim_remove_segment of a %s handle gave %s", was ? "live" : "stale",
                  orca_status_name(st));
    }
    if ((st == ORCA_ERR_FOREIGN) !=
        (id.sim != orca_sim_id(w->main) && (id.slot | id.generation | id.sim) != 0)) {
        violation("orca_sim_remove_segment of {%u, %u, sim %u} in sim %u gave %s", id.slot,
                  id.generation, id.sim, orca_sim_id(w->main), orca_status_name(st));
    }
    if (st == ORCA_OK) {
        rec_kill(w, 1, id.slot, id.generation);
        check_mirror(w);
        rebuild_ref(w);
    }
}

/* orca_sim_add_segments: up to 4 segments (points from the whole binary64 range now and then),
 * against the reference adding them one at a time; a refusal adds nothing. */
static void op_add_segments(world *w, reader *r)
{
    int k = (int)rd_below(r, 5);
    orca_vec2 a[4], b[4];
    int invalid = 0;
    for (int q = 0; q < k; ++q) {
        a[q] = rd_point(r);
        b[q] = rd_u8(r) < 64 ? a[q] : rd_point(r);
        invalid |= coord_invalid(a[q]) || coord_invalid(b[q]);
    }
    unsigned how = rd_u8(r);
    int null_ids = how == 1;
    if (orca_sim_segment_count(w->main) >= SEG_ADD_LIMIT) {
        return;
    }
    orca_segment_id ids[4];
    uint64_t h0 = w->hm;
    orca_status st = orca_sim_add_segments(w->main, how == 0 && k > 0 ? NULL : a, b,
                                           how == 2 ? -1 - k : k, null_ids ? NULL : ids);
    after_call(w->main, "orca_sim_add_segments", h0, st);
    invalid |= (how == 0 && k > 0) || how == 2;
    if ((st == ORCA_OK) == invalid) {
        violation("orca_sim_add_segments of %d segments (invalid: %d) gave %s", k, invalid,
                  orca_status_name(st));
    }
    if (st != ORCA_OK) {
        return;
    }
    int m = orca_sim_segment_count(w->main);
    for (int q = 0; q < k; ++q) {
        uint64_t r0 = orca_sim_hash(w->ref);
        orca_segment_id rid;
        orca_status sr = orca_sim_add_segment(w->ref, a[q], b[q], &rid);
        after_call(w->ref, "orca_sim_add_segment (ref)", r0, sr);
        orca_segment_id h = orca_sim_segment_at(w->main, m - k + q);
        if (sr != ORCA_OK || (!null_ids && (h.slot != ids[q].slot ||
                                             h.generation != ids[q].generation))) {
            violation("orca_sim_add_segments: segment %d is not as one orca_sim_add_segment's", q);
        }
        rec_add(w, 1, h.slot, h.generation);
    }
    check_mirror(w);
    rebuild_ref(w);
}

/* orca_sim_remove_segments: as op_remove_agents, for segments. */
static void op_remove_segments(world *w, reader *r)
{
    int k = 1 + (int)rd_below(r, 4);
    orca_segment_id ids[4], rids[4];
    int live = 1;
    for (int q = 0; q < k; ++q) {
        ids[q] = pick_segment(w, r);
        if (q > 0 && rd_below(r, 8) == 0) {
            ids[q] = ids[q - 1]; /* a repeat: refused */
        }
        rids[q] = ref_segment(w, ids[q]);
        live &= orca_segment_get(w->main, ids[q], NULL, NULL) == ORCA_OK;
        for (int p = 0; p < q; ++p) {
            live &= ids[p].slot != ids[q].slot || ids[p].generation != ids[q].generation;
        }
    }
    uint64_t h0 = w->hm;
    orca_status st = orca_sim_remove_segments(w->main, ids, k);
    after_call(w->main, "orca_sim_remove_segments", h0, st);
    if ((st == ORCA_OK) != live) {
        violation("orca_sim_remove_segments of %d handles (all live and distinct: %d) gave %s", k,
                  live, orca_status_name(st));
    }
    if (st != ORCA_OK) {
        return;
    }
    for (int q = 0; q < k; ++q) {
        uint64_t r0 = orca_sim_hash(w->ref);
        orca_status sr = orca_sim_remove_segment(w->ref, rids[q]);
        after_call(w->ref, "orca_sim_remove_segment (ref)", r0, sr);
        if (sr != ORCA_OK) {
            violation("the reference refused a segment removal the batch made");
        }
        if (orca_segment_get(w->main, ids[q], NULL, NULL) != ORCA_ERR_STALE) {
            violation("a removed segment's handle is still live");
        }
        rec_kill(w, 1, ids[q].slot, ids[q].generation);
    }
    check_mirror(w);
    rebuild_ref(w);
}

static void op_agent_set(world *w, reader *r)
{
    orca_agent_id id = pick_agent(w, r);
    orca_agent_def d = orca_agent_def_default();
    orca_agent_get(w->main, id, &d); /* may be stale: then the defaults */
    orca_agent_def was = d;
    for (unsigned k = 1 + rd_below(r, 3); k > 0; --k) {
        override_field(r, &d);
    }
    int null_def = rd_u8(r) == 0;
    orca_agent_id rid = ref_agent(w, id);
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_agent_set(w->main, id, null_def ? NULL : &d);
    after_call(w->main, "orca_agent_set", h0, st);
    orca_status sr = orca_agent_set(w->ref, rid, null_def ? NULL : &d);
    after_call(w->ref, "orca_agent_set (ref)", r0, sr);
    same_status(st, sr, w);
    /* the disc is checked when the position or the radius changes */
    if (!null_def && !def_documented_invalid(&d) && orca_sim_agent_index(w->main, id) >= 0 &&
        (d.position.x != was.position.x || d.position.y != was.position.y ||
         d.radius != was.radius)) {
        check_fit(w->main, "orca_agent_set", d.position, d.radius, st);
    }
    if (st == ORCA_OK && (null_def || def_documented_invalid(&d) || orca_sim_agent_index(w->main, id) < 0)) {
        violation("orca_agent_set accepted an invalid definition or handle");
    }
}

static void op_set_vector(world *w, reader *r, int which)
{
    orca_agent_id id = pick_agent(w, r);
    orca_vec2 v = which == 0 ? rd_point(r) : rd_vec(r);
    if (which != 0 && rd_u8(r) < 128) {
        v.x = (double)(int8_t)rd_u8(r) / 32.0 * r->scale; /* mostly ordinary velocities */
        v.y = (double)(int8_t)rd_u8(r) / 32.0 * r->scale;
    }
    orca_agent_id rid = ref_agent(w, id);
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st, sr;
    const char *name;
    int invalid;
    if (which == 0) {
        name = "orca_agent_set_position";
        orca_agent_def was;
        int live = orca_agent_get(w->main, id, &was) == ORCA_OK;
        st = orca_agent_set_position(w->main, id, v);
        sr = orca_agent_set_position(w->ref, rid, v);
        invalid = coord_invalid(v);
        after_call(w->main, name, h0, st);
        if (live && !invalid && (v.x != was.position.x || v.y != was.position.y)) {
            check_fit(w->main, name, v, was.radius, st);
        }
    } else if (which == 1) {
        name = "orca_agent_set_velocity";
        st = orca_agent_set_velocity(w->main, id, v);
        sr = orca_agent_set_velocity(w->ref, rid, v);
        invalid = vector_invalid(v);
    } else {
        name = "orca_agent_set_preferred_velocity";
        st = orca_agent_set_preferred_velocity(w->main, id, v);
        sr = orca_agent_set_preferred_velocity(w->ref, rid, v);
        invalid = vector_invalid(v);
    }
    if (which != 0) { /* the position's was checked above, before the disc check */
        after_call(w->main, name, h0, st);
    }
    after_call(w->ref, name, r0, sr);
    same_status(st, sr, w);
    if (st == ORCA_OK && (invalid || orca_sim_agent_index(w->main, id) < 0)) {
        violation("%s accepted (%.17g, %.17g) or a stale handle", name, v.x, v.y);
    }
    if (st == ORCA_OK) {
        orca_vec2 back;
        orca_status sg = which == 0 ? orca_agent_get_position(w->main, id, &back)
                                    : which == 1 ? orca_agent_get_velocity(w->main, id, &back)
                                                 : ORCA_OK;
        if (which == 2) {
            orca_agent_def d;
            sg = orca_agent_get(w->main, id, &d);
            back = d.preferred_velocity;
        }
        if (sg != ORCA_OK || !same_vec(back, v)) {
            violation("%s: the getter does not give back the value", name);
        }
    }
}

static void op_add_segment(world *w, reader *r)
{
    orca_vec2 a = rd_point(r), b = rd_point(r);
    if (rd_u8(r) < 64) {
        b = a; /* a point obstacle */
    }
    if (orca_sim_segment_count(w->main) >= SEG_ADD_LIMIT) {
        return;
    }
    orca_segment_id ia, ib;
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_sim_add_segment(w->main, a, b, &ia);
    after_call(w->main, "orca_sim_add_segment", h0, st);
    orca_status sr = orca_sim_add_segment(w->ref, a, b, &ib);
    after_call(w->ref, "orca_sim_add_segment (ref)", r0, sr);
    same_status(st, sr, w);
    if (st == ORCA_OK && (coord_invalid(a) || coord_invalid(b))) {
        violation("orca_sim_add_segment accepted (%.17g, %.17g)-(%.17g, %.17g)", a.x, a.y, b.x, b.y);
    }
    if (st == ORCA_OK) {
        orca_vec2 ga, gb;
        if (orca_segment_get(w->main, ia, &ga, &gb) != ORCA_OK || !same_vec(ga, a) || !same_vec(gb, b)) {
            violation("orca_segment_get does not give back the segment");
        }
        rec_add(w, 1, ia.slot, ia.generation);
    }
}

static void op_add_polyline(world *w, reader *r)
{
    orca_vec2 pts[8];
    int count = (int)rd_below(r, 9);
    int closed = rd_u8(r) & 1;
    for (int k = 0; k < count; ++k) {
        pts[k] = rd_point(r);
    }
    unsigned how = rd_u8(r);
    int null_points = how == 0;
    int null_ids = how == 1;
    if (how == 2) {
        count = -count;
    }
    int n = count < 2 ? 0 : (closed ? count : count - 1);
    if (orca_sim_segment_count(w->main) >= SEG_ADD_LIMIT) {
        return;
    }
    orca_segment_id ids[8], rids[8];
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_sim_add_polyline(w->main, null_points ? NULL : pts, count, closed,
                                           null_ids ? NULL : ids);
    after_call(w->main, "orca_sim_add_polyline", h0, st);
    orca_status sr = orca_sim_add_polyline(w->ref, null_points ? NULL : pts, count, closed, rids);
    after_call(w->ref, "orca_sim_add_polyline (ref)", r0, sr);
    same_status(st, sr, w);
    int invalid = null_points || count < 2;
    for (int k = 0; k < count && !invalid; ++k) {
        invalid = coord_invalid(pts[k]);
    }
    if (st == ORCA_OK && invalid) {
        violation("orca_sim_add_polyline accepted invalid points (count %d)", count);
    }
    if (st == ORCA_OK) {
        int m = orca_sim_segment_count(w->main);
        for (int k = 0; k < n; ++k) {
            orca_segment_id h = orca_sim_segment_at(w->main, m - n + k);
            if (!null_ids && (h.slot != ids[k].slot || h.generation != ids[k].generation)) {
                violation("orca_sim_add_polyline's handle %d is not segment %d's", k, m - n + k);
            }
            orca_vec2 ga, gb;
            orca_segment_get(w->main, h, &ga, &gb);
            if (!same_vec(ga, pts[k]) || !same_vec(gb, pts[(k + 1) % count])) {
                violation("polyline segment %d has other ends than its points", k);
            }
            rec_add(w, 1, h.slot, h.generation);
        }
    }
}

static void op_swap(world *w, reader *r)
{
    int n = orca_sim_agent_count(w->main);
    orca_vec2 v[MAX_AGENTS + 1], v0[MAX_AGENTS + 1], rv[MAX_AGENTS + 1];
    unsigned how = rd_u8(r);
    for (int i = 0; i <= n && i <= MAX_AGENTS; ++i) {
        if (rd_u8(r) < 16) {
            v[i] = rd_vec(r);
        } else {
            v[i].x = (double)(int8_t)rd_u8(r) / 64.0;
            v[i].y = (double)(int8_t)rd_u8(r) / 64.0;
        }
    }
    int count = n;
    if (how == 1) {
        count = n + 1;
    } else if (how == 2) {
        count = n - 1;
    }
    int null_v = how == 3 && n > 0;
    memcpy(v0, v, sizeof v);
    memcpy(rv, v, sizeof v);
    state *before = malloc(sizeof *before);
    if (!before) {
        abort();
    }
    read_state(w->main, before);
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_sim_swap_preferred_velocities(w->main, null_v ? NULL : v, count);
    after_call(w->main, "orca_sim_swap_preferred_velocities", h0, st);
    orca_status sr = orca_sim_swap_preferred_velocities(w->ref, null_v ? NULL : rv, count);
    after_call(w->ref, "orca_sim_swap_preferred_velocities (ref)", r0, sr);
    same_status(st, sr, w);
    int invalid = count != n || null_v;
    for (int i = 0; i < count && !invalid; ++i) {
        invalid = vector_invalid(v0[i]);
    }
    if (st == ORCA_OK && invalid) {
        violation("orca_sim_swap_preferred_velocities accepted invalid input (count %d of %d)", count, n);
    }
    if (st != ORCA_OK && memcmp(v, v0, sizeof v) != 0) {
        violation("a refused orca_sim_swap_preferred_velocities changed the caller's array");
    }
    if (st == ORCA_OK) {
        for (int i = 0; i < n; ++i) {
            orca_agent_def d;
            orca_agent_get(w->main, orca_sim_agent_at(w->main, i), &d);
            if (!same_vec(v[i], before->a[i].preferred_velocity) || !same_vec(d.preferred_velocity, v0[i])) {
                violation("orca_sim_swap_preferred_velocities did not exchange agent %d's values", i);
            }
        }
    }
    free(before);
}

/* Which part of the step's check (docs/limits.md, "The step's last line") the new velocity v
 * of agent i fails, computed here: 1 not finite, 2 faster than the bound, 3 leaves the
 * coordinate square; 0 when it passes. */
static int step_check(const state *pre, int i, orca_vec2 v, orca_vec2 p)
{
    double R = pre->a[i].max_speed;
    orca_vec2 v0 = pre->a[i].velocity;
    if (!(is_finite(v.x) && is_finite(v.y))) {
        return 1;
    }
    if (!(v.x * v.x + v.y * v.y <=
          R * R + 0x1p-40 * (R * R + v0.x * v0.x + v0.y * v0.y) + 0x1p-1000)) {
        return 2;
    }
    if (!(fabs(p.x) < ORCA_COORD_LIMIT && fabs(p.y) < ORCA_COORD_LIMIT)) {
        return 3;
    }
    return 0;
}

/* After a step of dt from pre (valid dt, at least one agent) that gave status st: with vel and
 * pos the reference step's results, either the step was applied and main holds exactly them,
 * each passing the check, or it was refused and the reference has an agent that fails the
 * check, the lowest of them named. Inside the accepted ranges only the coordinate part may
 * fail. */
static void check_step_result(const state *pre, const orca_sim *s, double dt, orca_status st)
{
    orca_vec2 vel[MAX_AGENTS], pos[MAX_AGENTS];
    if (orca_sim_boundary_count(s) > 0) {
        /* The reference step does not model walkable-area boundaries (test_boundary.c checks
         * them): an applied step's results still pass the check, a refusal is ORCA_ERR_LIMIT. */
        for (int i = 0; st == ORCA_OK && i < pre->n; ++i) {
            orca_agent_id id = orca_sim_agent_at(s, i);
            orca_vec2 p, v;
            orca_agent_get_position(s, id, &p);
            orca_agent_get_velocity(s, id, &v);
            if (step_check(pre, i, v, p) != 0) {
                violation("after the step (dt %.17g) with boundaries agent %d fails the check", dt, i);
            }
        }
        if (st != ORCA_OK && st != ORCA_ERR_LIMIT) {
            violation("the step with boundaries was refused with %s", orca_status_name(st));
        }
        return;
    }
    for (int i = 0; i < pre->n; ++i) {
        if (brute_coincident(pre, i)) {
            return; /* main and ref agree (check_mirror); the reference leaves this case out */
        }
    }
    reference_step(pre, dt, vel, pos);
    int first = -1;
    for (int i = 0; i < pre->n; ++i) {
        int kind = step_check(pre, i, vel[i], pos[i]);
        if (kind == 1 || kind == 2) {
            double R = pre->a[i].max_speed;
            violation("inside the accepted ranges the reference step gives agent %d the velocity "
                      "(%.17g, %.17g) (max_speed %.17g, velocity before (%.17g, %.17g), dt %.17g): "
                      "%s, which docs/limits.md rules out",
                      i, vel[i].x, vel[i].y, R, pre->a[i].velocity.x, pre->a[i].velocity.y, dt,
                      kind == 1 ? "not finite" : "above the speed bound");
        }
        if (kind != 0 && first < 0) {
            first = i;
        }
    }
    if (st != ORCA_OK) {
        const char *msg = orca_sim_last_error(s);
        char name[32];
        snprintf(name, sizeof name, "agent %d ", first);
        if (first < 0) {
            violation("the step (dt %.17g) was refused (%s: %s) but the reference step moves every "
                      "agent within the limits",
                      dt, orca_status_name(st), msg);
        }
        if (st != ORCA_ERR_LIMIT || !strstr(msg, name)) {
            violation("the step (dt %.17g) was refused with %s (%s); agent %d is the lowest that "
                      "leaves the coordinate square (ORCA_ERR_LIMIT)",
                      dt, orca_status_name(st), msg, first);
        }
        return;
    }
    for (int i = 0; i < pre->n; ++i) {
        orca_agent_id id = orca_sim_agent_at(s, i);
        orca_vec2 p, v;
        orca_agent_get_position(s, id, &p);
        orca_agent_get_velocity(s, id, &v);
        int kind = step_check(pre, i, v, p);
        if (kind != 0) {
            violation("after the step (dt %.17g) agent %d has position (%.17g, %.17g), velocity "
                      "(%.17g, %.17g): %s (max_speed %.17g, velocity before (%.17g, %.17g))",
                      dt, i, p.x, p.y, v.x, v.y,
                      kind == 1 ? "not finite" : kind == 2 ? "above the speed bound" : "outside |x|,|y| < 2^21",
                      pre->a[i].max_speed, pre->a[i].velocity.x, pre->a[i].velocity.y);
        }
        if (!same_vec(v, vel[i]) || !same_vec(p, pos[i])) {
            violation("agent %d after the step (dt %.17g): velocity (%a, %a) position (%a, %a); the "
                      "reference step from orca/solver.h gives velocity (%a, %a) position (%a, %a)",
                      i, dt, v.x, v.y, p.x, p.y, vel[i].x, vel[i].y, pos[i].x, pos[i].y);
        }
    }
}

static void op_step(world *w, reader *r)
{
    double dt = rd_dt(r);
    state *pre = malloc(sizeof *pre);
    if (!pre) {
        abort();
    }
    read_state(w->main, pre);
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    size_t size;
    unsigned char *snap = save_sim_hashed(w->main, h0, &size);
    uint64_t steps0 = orca_sim_step_count(w->main);
    w->main_jobs.bad_emitted = 0;
    orca_status st = orca_sim_step(w->main, dt);
    after_call(w->main, "orca_sim_step", h0, st);
    int bad_worker = w->main_jobs.bad_emitted > 0;
    if (bad_worker && st == ORCA_OK) {
        violation("orca_sim_step accepted a worker index outside 0..%d from the job system",
                  orca_sim_get_worker_count(w->main) - 1);
    }
    if (dt_invalid(dt) && st == ORCA_OK && pre->n > 0) {
        violation("orca_sim_step accepted dt %.17g", dt);
    }
    if (orca_sim_step_count(w->main) != steps0 + (st == ORCA_OK && pre->n > 0)) {
        /* zero agents: "a no-op" (the count may or may not advance) */
        if (!(pre->n == 0 && st == ORCA_OK && orca_sim_step_count(w->main) == steps0 + 1)) {
            violation("the step count went %llu -> %llu (status %s)", (unsigned long long)steps0,
                      (unsigned long long)orca_sim_step_count(w->main), orca_status_name(st));
        }
    }
    if (!bad_worker) {
        orca_status sr = orca_sim_step(w->ref, dt);
        after_call(w->ref, "orca_sim_step (ref)", r0, sr);
        same_status(st, sr, w);
        check_mirror(w);
        /* alt continues main's snapshot */
        orca_status sl = orca_sim_load(w->alt, snap, size);
        if (sl != ORCA_OK) {
            violation("alt refused main's snapshot: %s", orca_sim_last_error(w->alt));
        }
        orca_status sa = orca_sim_step(w->alt, dt); /* from main's state: hash h0 */
        after_call(w->alt, "orca_sim_step (alt)", h0, sa);
        if (sa != st || orca_sim_hash(w->alt) != orca_sim_hash(w->main)) {
            violation("alt (%d workers, %s, kernels %d) stepped from main's snapshot gives %s, hash "
                      "%016llx; main gave %s, %016llx",
                      orca_sim_get_worker_count(w->alt), w->alt_setup.callbacks ? "job system" : "pool",
                      orca_sim_get_vector_kernels(w->alt), orca_status_name(sa),
                      (unsigned long long)orca_sim_hash(w->alt), orca_status_name(st),
                      (unsigned long long)orca_sim_hash(w->main));
        }
    }
    if (pre->n > 0 && !dt_invalid(dt) && !bad_worker) {
        check_step_result(pre, w->main, dt, st);
    }
    free(snap);
    free(pre);
}

static void op_roundtrip(world *w, reader *r)
{
    (void)r;
    check_roundtrip(w->main);
    /* loading a sim's own snapshot changes nothing */
    size_t size;
    unsigned char *buf = save_sim(w->main, &size);
    uint64_t h0 = orca_sim_hash(w->main);
    orca_status st = orca_sim_load(w->main, buf, size);
    if (st != ORCA_OK || orca_sim_hash(w->main) != h0) {
        violation("loading main's own snapshot gave %s and hash change", orca_status_name(st));
    }
    free(buf);
}

static void op_checkpoint(world *w, reader *r)
{
    (void)r;
    free(w->cp_bytes);
    w->cp_bytes = save_sim(w->main, &w->cp_size);
    w->cp_hash = orca_sim_hash(w->main);
    memcpy(w->cp_recs, w->recs, sizeof w->recs);
    w->cp_nrecs = w->nrecs;
}

static void op_rollback(world *w, reader *r)
{
    (void)r;
    if (!w->cp_bytes) {
        return;
    }
    orca_status st = orca_sim_load(w->main, w->cp_bytes, w->cp_size);
    orca_status sr = orca_sim_load(w->ref, w->cp_bytes, w->cp_size);
    if (st != ORCA_OK || sr != ORCA_OK) {
        violation("a checkpoint's snapshot was refused: %s", orca_sim_last_error(st ? w->main : w->ref));
    }
    if (orca_sim_hash(w->main) != w->cp_hash) {
        violation("the rollback did not restore the checkpoint's hash");
    }
    check_mirror(w);
    memcpy(w->recs, w->cp_recs, sizeof w->recs);
    w->nrecs = w->cp_nrecs;
}

/* A damaged snapshot: a truncation or a changed byte must be refused (the checksum); with
 * the checksum fixed up it may be accepted, and then ref loads it too. */
static void op_bad_load(world *w, reader *r)
{
    size_t size;
    unsigned char *buf = save_sim(w->main, &size);
    unsigned how = rd_u8(r);
    size_t at = (size_t)rd_u32(r) % size;
    unsigned char x = (unsigned char)(1 + rd_below(r, 255));
    size_t len = size;
    int must_refuse = 1;
    if (how < 64) {
        len = at; /* truncated */
    } else {
        buf[at] ^= x;
        if (how >= 128 && size >= 8) {
            /* FNV-1a 64 of all bytes but the last 8, little-endian (orca_sim_save) */
            uint64_t h = 0xcbf29ce484222325ull;
            for (size_t k = 0; k + 8 < size; ++k) {
                h ^= buf[k];
                h *= 0x100000001b3ull;
            }
            for (int k = 0; k < 8; ++k) {
                buf[size - 8 + (size_t)k] = (unsigned char)(h >> (8 * k));
            }
            must_refuse = 0;
        }
    }
    uint64_t h0 = orca_sim_hash(w->main);
    orca_status st = orca_sim_load(w->main, buf, len);
    after_call(w->main, "orca_sim_load (damaged)", h0, st);
    if (must_refuse && st == ORCA_OK) {
        violation("orca_sim_load accepted a %s snapshot", how < 64 ? "truncated" : "corrupt");
    }
    if (st != ORCA_OK && st != ORCA_ERR_FORMAT && st != ORCA_ERR_MEMORY) {
        violation("orca_sim_load refused damaged bytes with %s, not ORCA_ERR_FORMAT", orca_status_name(st));
    }
    if (st == ORCA_OK) {
        orca_status sr = orca_sim_load(w->ref, buf, len);
        if (sr != ORCA_OK) {
            violation("ref refused a snapshot main accepted");
        }
        check_mirror(w);
        check_roundtrip(w->main);
        /* which handles live now is whatever the bytes say */
        for (int k = 0; k < w->nrecs; ++k) {
            w->recs[k].live = LIVE_UNKNOWN;
        }
    }
    free(buf);
}

static void op_set_workers(world *w, reader *r)
{
    static const int COUNTS[] = {1, 2, 3, 4, 0, -1, 65, INT32_MIN, INT32_MAX, 64};
    int c = COUNTS[rd_below(r, 10)];
    if (c == 64 && !w->main_setup.callbacks) {
        c = 2; /* no 64 threads */
    }
    uint64_t h0 = orca_sim_hash(w->main);
    int before = orca_sim_get_worker_count(w->main);
    orca_status st = orca_sim_set_worker_count(w->main, c);
    after_call(w->main, "orca_sim_set_worker_count", h0, st);
    int valid = c >= 1 && c <= ORCA_MAX_WORKERS;
    if ((st == ORCA_OK) != valid) {
        violation("orca_sim_set_worker_count(%d) gave %s", c, orca_status_name(st));
    }
    if (orca_sim_get_worker_count(w->main) != (st == ORCA_OK ? c : before)) {
        violation("the worker count is %d after orca_sim_set_worker_count(%d) gave %s",
                  orca_sim_get_worker_count(w->main), c, orca_status_name(st));
    }
    if (orca_sim_hash(w->main) != h0) {
        violation("orca_sim_set_worker_count changed the state");
    }
    w->main_jobs.workers = orca_sim_get_worker_count(w->main);
}

static void op_set_kernels(world *w, reader *r)
{
    int on = (int)rd_below(r, 3);
    uint64_t h0 = orca_sim_hash(w->main);
    int got = orca_sim_set_vector_kernels(w->main, on);
    if (got != orca_sim_get_vector_kernels(w->main) || (on == 0 && got != 0) || (got != 0 && got != 1)) {
        violation("orca_sim_set_vector_kernels(%d) returned %d, get says %d", on, got,
                  orca_sim_get_vector_kernels(w->main));
    }
    if (orca_sim_hash(w->main) != h0) {
        violation("orca_sim_set_vector_kernels changed the state");
    }
}

static void op_job_mode(world *w, reader *r)
{
    w->main_jobs.mode = (int)rd_below(r, JOB_MODES);
    w->main_jobs.shape = rd_u8(r);
}

/* A new main with another setup (or a refused definition), continuing from a snapshot. */
static void op_recreate(world *w, reader *r)
{
    setup su = rd_setup(r);
    unsigned bad = rd_u8(r);
    orca_sim_def d = orca_sim_def_default();
    d.worker_count = su.workers;
    if (su.callbacks) {
        d.enqueue = jobs_enqueue;
        d.finish = jobs_finish;
        d.user_context = &w->main_jobs;
    }
    int invalid = 0;
    if (bad < 8) {
        static const int BAD[] = {0, -1, 65, INT32_MIN};
        d.worker_count = BAD[bad & 3];
        invalid = 1;
    } else if (bad < 12) {
        d.enqueue = jobs_enqueue; /* one callback without the other */
        d.finish = NULL;
        invalid = 1;
    } else if (bad < 16) {
        d.enqueue = NULL;
        d.finish = jobs_finish;
        invalid = 1;
    }
    orca_sim *sentinel = (orca_sim *)(void *)&d;
    orca_sim *s = sentinel;
    orca_status st = orca_sim_create(&d, &s);
    if (invalid) {
        if (st == ORCA_OK || s != sentinel) {
            violation("orca_sim_create accepted an invalid definition (workers %d) or wrote *out",
                      d.worker_count);
        }
        if (st == ORCA_OK && s) {
            orca_sim_destroy(s);
        }
        return;
    }
    if (st != ORCA_OK || !s) {
        violation("orca_sim_create refused %d workers", d.worker_count);
    }
    orca_sim_set_vector_kernels(s, su.kernels);
    size_t size;
    unsigned char *buf = save_sim(w->main, &size);
    if (orca_sim_load(s, buf, size) != ORCA_OK || orca_sim_hash(s) != orca_sim_hash(w->main)) {
        violation("a new simulation did not load main's snapshot to the same hash");
    }
    free(buf);
    orca_sim_destroy(w->main);
    w->main = s;
    w->main_setup = su;
    w->main_jobs.workers = su.workers;
    w->main_jobs.pending = 0;
}

/* orca_sim_run_task: every item once, worker indices in range. */
typedef struct cover {
    unsigned char seen[256];
    int workers, bad;
} cover;

static void cover_task(int begin, int end, int worker, void *context)
{
    cover *c = context;
    if (worker < 0 || worker >= c->workers) {
        c->bad = 1;
    }
    for (int k = begin; k < end; ++k) {
        if (k < 0 || k >= 256) {
            c->bad = 2;
            return;
        }
        c->seen[k]++;
    }
}

static void op_run_task(world *w, reader *r)
{
    int count = (int)rd_below(r, 201) - 1;
    int null_fn = rd_u8(r) == 0;
    cover c;
    memset(&c, 0, sizeof c);
    c.workers = orca_sim_get_worker_count(w->main);
    w->main_jobs.bad_emitted = 0;
    uint64_t h0 = orca_sim_hash(w->main);
    orca_status st = orca_sim_run_task(w->main, null_fn ? NULL : cover_task, count, &c);
    after_call(w->main, "orca_sim_run_task", h0, st);
    if ((st == ORCA_OK) != (!null_fn && count >= 0)) {
        violation("orca_sim_run_task(count %d, fn %s) gave %s", count, null_fn ? "NULL" : "set",
                  orca_status_name(st));
    }
    if (st == ORCA_OK) {
        if (c.bad == 2 || (c.bad == 1 && w->main_jobs.bad_emitted == 0)) {
            violation("orca_sim_run_task gave a range outside [0, %d) or a bad worker index", count);
        }
        for (int k = 0; k < count; ++k) {
            if (c.seen[k] != 1) {
                violation("orca_sim_run_task ran item %d of %d %d times", k, count, c.seen[k]);
            }
        }
    }
    if (orca_sim_hash(w->main) != h0) {
        violation("orca_sim_run_task changed the state");
    }
}

static void op_query_neighbors(world *w, reader *r)
{
    orca_agent_id id = pick_agent(w, r);
    int acap = (int)rd_below(r, MAX_AGENTS + 2) - 1;
    int scap = (int)rd_below(r, MAX_SEGS + 2) - 1;
    int agents[MAX_AGENTS + 1], segs[MAX_SEGS + 1];
    int ragents[MAX_AGENTS + 1], rsegs[MAX_SEGS + 1];
    int na = -7, ns = -7, rna = -7, rns = -7;
    orca_agent_id rid = ref_agent(w, id);
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_sim_agent_neighbors(w->main, id, agents, acap, &na, segs, scap, &ns);
    if (orca_sim_hash(w->main) != h0) {
        violation("orca_sim_agent_neighbors changed the state");
    }
    after_call(w->main, "orca_sim_agent_neighbors", h0, st);
    orca_status sr = orca_sim_agent_neighbors(w->ref, rid, ragents, acap, &rna, rsegs, scap, &rns);
    after_call(w->ref, "orca_sim_agent_neighbors (ref)", r0, sr);
    same_status(st, sr, w);
    int i = orca_sim_agent_index(w->main, id);
    if (st == ORCA_OK && (i < 0 || acap < 0 || scap < 0)) {
        violation("orca_sim_agent_neighbors accepted a stale handle or a negative capacity");
    }
    if (st != ORCA_OK) {
        return;
    }
    state *s = malloc(sizeof *s);
    if (!s) {
        abort();
    }
    read_state(w->main, s);
    near ba[MAX_AGENTS], bs[MAX_SEGS];
    int bna = brute_agents(s, i, ba), bns = brute_segments(s, i, bs);
    if (na != bna || ns != bns || rna != na || rns != ns) {
        violation("agent %d has %d neighbours and %d obstacles (ref %d, %d); brute force %d, %d", i, na,
                  ns, rna, rns, bna, bns);
    }
    for (int k = 0; k < na && k < acap; ++k) {
        if (agents[k] != ba[k].index || ragents[k] != agents[k]) {
            violation("agent %d: neighbour %d is %d (ref %d), brute force %d", i, k, agents[k],
                      ragents[k], ba[k].index);
        }
    }
    for (int k = 0; k < ns && k < scap; ++k) {
        if (segs[k] != bs[k].index || rsegs[k] != segs[k]) {
            violation("agent %d: obstacle %d is %d (ref %d), brute force %d", i, k, segs[k], rsegs[k],
                      bs[k].index);
        }
    }
    free(s);
}

static void op_query_constraints(world *w, reader *r)
{
    orca_agent_id id = pick_agent(w, r);
    double dt = rd_dt(r);
    int cap = (int)rd_below(r, MAX_PLANES + 2) - 1;
    orca_halfplane planes[MAX_PLANES + 1], rplanes[MAX_PLANES + 1];
    int count = -7, hard = -7, rcount = -7, rhard = -7;
    orca_agent_id rid = ref_agent(w, id);
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_sim_agent_constraints(w->main, id, dt, planes, cap, &count, &hard);
    if (orca_sim_hash(w->main) != h0) {
        violation("orca_sim_agent_constraints changed the state");
    }
    after_call(w->main, "orca_sim_agent_constraints", h0, st);
    orca_status sr = orca_sim_agent_constraints(w->ref, rid, dt, rplanes, cap, &rcount, &rhard);
    after_call(w->ref, "orca_sim_agent_constraints (ref)", r0, sr);
    same_status(st, sr, w);
    int i = orca_sim_agent_index(w->main, id);
    if (st == ORCA_OK && (i < 0 || cap < 0 || dt_invalid(dt))) {
        violation("orca_sim_agent_constraints accepted a stale handle, capacity %d or dt %.17g", cap, dt);
    }
    if (st != ORCA_OK) {
        return;
    }
    state *s = malloc(sizeof *s);
    if (!s) {
        abort();
    }
    read_state(w->main, s);
    if (orca_sim_boundary_count(w->main) > 0) {
        /* the brute force does not model boundaries (test_boundary.c checks them): main and
         * ref agree */
        if (rcount != count || rhard != hard) {
            violation("agent %d: %d constraints (%d hard), ref %d (%d)", i, count, hard, rcount,
                      rhard);
        }
        for (int k = 0; k < count && k < cap; ++k) {
            if (memcmp(&planes[k], &rplanes[k], sizeof planes[k]) != 0) {
                violation("agent %d: constraint %d differs from ref's", i, k);
            }
        }
        free(s);
        return;
    }
    if (brute_coincident(s, i)) {
        free(s);
        return; /* the separation rule: not in the brute force (main and ref agree) */
    }
    orca_halfplane bp[MAX_PLANES];
    int bhard, bhead, bcounter;
    int bcount = brute_planes(s, i, dt, bp, &bhard, &bhead, &bcounter);
    if (count != bcount || hard != bhard || rcount != count || rhard != hard) {
        violation("agent %d: %d constraints (%d hard), ref %d (%d); brute force %d (%d)", i, count, hard,
                  rcount, rhard, bcount, bhard);
    }
    for (int k = 0; k < count && k < cap; ++k) {
        if (!same_vec(planes[k].point, bp[k].point) || !same_vec(planes[k].normal, bp[k].normal) ||
            memcmp(&planes[k], &rplanes[k], sizeof planes[k]) != 0) {
            violation("agent %d: constraint %d differs from orca/solver.h's on the brute-force lists", i, k);
        }
    }
    free(s);
}

static void op_query_overlap(world *w, reader *r)
{
    unsigned how = rd_u8(r);
    double ao = -1, wo = -1, rao = -1, rwo = -1;
    uint64_t h0 = w->hm, r0 = w->hr; /* both as at the start of the operation */
    orca_status st = orca_sim_measure_overlap(w->main, (how & 1) ? NULL : &ao, (how & 2) ? NULL : &wo);
    if (orca_sim_hash(w->main) != h0) {
        violation("orca_sim_measure_overlap changed the state");
    }
    after_call(w->main, "orca_sim_measure_overlap", h0, st);
    orca_status sr = orca_sim_measure_overlap(w->ref, (how & 1) ? NULL : &rao, (how & 2) ? NULL : &rwo);
    after_call(w->ref, "orca_sim_measure_overlap (ref)", r0, sr);
    same_status(st, sr, w);
    if (st != ORCA_OK) {
        return;
    }
    state *s = malloc(sizeof *s);
    if (!s) {
        abort();
    }
    read_state(w->main, s);
    double deepest = 0, wall = 0;
    for (int i = 0; i < s->n; ++i) {
        const orca_agent_def *a = &s->a[i];
        for (int j = i + 1; j < s->n; ++j) {
            double rr = a->radius + s->a[j].radius;
            orca_vec2 d = sub(s->a[j].position, a->position);
            double d2 = d.x * d.x + d.y * d.y;
            if (d2 < rr * rr) {
                double rmin = a->radius < s->a[j].radius ? a->radius : s->a[j].radius;
                double o = (rr - sqrt(d2)) / rmin;
                deepest = o > deepest ? o : deepest;
            }
        }
        double best = INFINITY;
        for (int k = 0; k < s->m; ++k) {
            double d2 = orca_segment_distance_squared(sub(s->sa[k], a->position), sub(s->sb[k], a->position));
            if (d2 <= a->radius * a->radius && d2 < best) {
                best = d2;
            }
        }
        if (best != INFINITY) {
            double o = (a->radius - sqrt(best)) / a->radius;
            wall = o > wall ? o : wall;
        }
    }
    if (!(how & 1) && (!same(ao, deepest) || !same(rao, ao))) {
        violation("agent overlap %.17g (ref %.17g), brute force %.17g", ao, rao, deepest);
    }
    if (!(how & 2) && (!same(wo, wall) || !same(rwo, wo))) {
        violation("wall overlap %.17g (ref %.17g), brute force %.17g", wo, rwo, wall);
    }
    free(s);
}

/* Every function given a NULL simulation: ORCA_ERR_NULL, or the documented neutral value. */
static void check_null_sim(orca_agent_id id, orca_segment_id sid)
{
    orca_agent_def d = orca_agent_def_default();
    orca_vec2 v = {0, 0}, pts[2] = {{0, 0}, {1, 1}};
    orca_halfplane planes[2];
    int ints[2], count = 0;
    double o = 0;
    size_t size = 0;
    orca_status st[] = {
        orca_sim_set_worker_count(NULL, 2),
        orca_sim_add_agent(NULL, &d, NULL),
        orca_sim_remove_agent(NULL, id),
        orca_agent_get(NULL, id, &d),
        orca_agent_set(NULL, id, &d),
        orca_agent_set_position(NULL, id, v),
        orca_agent_set_velocity(NULL, id, v),
        orca_agent_set_preferred_velocity(NULL, id, v),
        orca_agent_get_position(NULL, id, &v),
        orca_agent_get_velocity(NULL, id, &v),
        orca_sim_swap_preferred_velocities(NULL, pts, 2),
        orca_sim_run_task(NULL, cover_task, 1, NULL),
        orca_sim_add_segment(NULL, pts[0], pts[1], NULL),
        orca_sim_add_polyline(NULL, pts, 2, 0, NULL),
        orca_sim_remove_segment(NULL, sid),
        orca_segment_get(NULL, sid, &v, &v),
        orca_sim_step(NULL, 0.25),
        orca_sim_agent_constraints(NULL, id, 0.25, planes, 2, &count, &count),
        orca_sim_agent_neighbors(NULL, id, ints, 2, &count, ints, 2, &count),
        orca_sim_measure_overlap(NULL, &o, &o),
        orca_sim_save(NULL, NULL, 0, &size),
        orca_sim_load(NULL, pts, sizeof pts),
        orca_sim_create(NULL, NULL),
    };
    for (size_t k = 0; k < sizeof st / sizeof st[0]; ++k) {
        if (st[k] != ORCA_ERR_NULL) {
            violation("call %zu of check_null_sim gave %s, not ORCA_ERR_NULL", k, orca_status_name(st[k]));
        }
    }
    orca_agent_id na = orca_sim_agent_at(NULL, 0);
    orca_segment_id ns = orca_sim_segment_at(NULL, 0);
    const char *e = orca_sim_last_error(NULL);
    if (orca_sim_agent_count(NULL) != 0 || orca_sim_segment_count(NULL) != 0 ||
        orca_sim_agent_index(NULL, id) != -1 || na.generation != 0 || ns.generation != 0 ||
        orca_sim_positions(NULL) != NULL || orca_sim_step_count(NULL) != 0 ||
        orca_sim_last_fallback_count(NULL) != 0 || orca_sim_get_worker_count(NULL) != 0 ||
        orca_sim_set_vector_kernels(NULL, 1) != 0 || orca_sim_get_vector_kernels(NULL) != 0 ||
        !e || !e[0]) {
        violation("a query of a NULL simulation did not give its neutral value");
    }
    orca_sim_destroy(NULL);
    (void)orca_sim_hash(NULL);
}

/* Getters with stale handles and NULL outputs. */
static void op_getters(world *w, reader *r)
{
    orca_agent_id id = pick_agent(w, r);
    orca_segment_id sid = pick_segment(w, r);
    unsigned how = rd_u8(r);
    int live = orca_sim_agent_index(w->main, id) >= 0;
    uint64_t h0 = orca_sim_hash(w->main);
    orca_agent_def d;
    orca_vec2 v;
    orca_status st = orca_agent_get(w->main, id, (how & 1) ? NULL : &d);
    after_call(w->main, "orca_agent_get", h0, st);
    if ((st == ORCA_OK) != (live && !(how & 1))) {
        violation("orca_agent_get (live %d, out %s) gave %s", live, (how & 1) ? "NULL" : "set",
                  orca_status_name(st));
    }
    st = orca_agent_get_position(w->main, id, (how & 2) ? NULL : &v);
    after_call(w->main, "orca_agent_get_position", h0, st);
    if ((st == ORCA_OK) != (live && !(how & 2))) {
        violation("orca_agent_get_position gave %s", orca_status_name(st));
    }
    st = orca_agent_get_velocity(w->main, id, (how & 4) ? NULL : &v);
    after_call(w->main, "orca_agent_get_velocity", h0, st);
    if ((st == ORCA_OK) != (live && !(how & 4))) {
        violation("orca_agent_get_velocity gave %s", orca_status_name(st));
    }
    orca_vec2 a, b;
    st = orca_segment_get(w->main, sid, &a, &b);
    after_call(w->main, "orca_segment_get", h0, st);
    if (st == ORCA_OK && ref_segment(w, sid).generation == 0) {
        violation("orca_segment_get accepted a handle that is not in the segment list");
    }
    size_t size = 0;
    st = orca_sim_save(w->main, NULL, 0, (how & 8) ? NULL : &size);
    after_call(w->main, "orca_sim_save (NULL size)", h0, st);
    if ((st == ORCA_OK) != !(how & 8)) {
        violation("orca_sim_save with a NULL size pointer gave %s", orca_status_name(st));
    }
    st = orca_sim_load(w->main, NULL, 100);
    after_call(w->main, "orca_sim_load (NULL)", h0, st);
    if (st == ORCA_OK) {
        violation("orca_sim_load accepted a NULL buffer");
    }
    if (how & 16) {
        check_null_sim(id, sid);
    }
}

/* Lengths and speeds of the values that follow: the same scenes in a tiny or a huge world. */
static void op_scale(world *w, reader *r)
{
    static const double SCALE[] = {1.0, 0x1p-29, 0x1p-12, 0x1p8, 0x1p14, 1.0};
    (void)w;
    r->scale = SCALE[rd_below(r, 6)];
}

/* Allocation failure: the hooks (orca_set_allocator, installed before the first simulation
 * exists) fail the k-th allocation of one call on main (or every one from the k-th on). The call
 * must then be refused with ORCA_ERR_MEMORY and change nothing; if no allocation failed it
 * must behave as always (and ref then mirrors it). */
static fuzz_injector g_inj;

static void op_alloc_fail(world *w, reader *r)
{
    unsigned which = rd_below(r, 8);
    unsigned countdown = rd_below(r, 6);
    int persistent = (int)(rd_u8(r) & 1);
    orca_agent_def d = scaled_default(r);
    d.position = rd_point(r);
    orca_vec2 pts[4] = {rd_point(r), rd_point(r), rd_point(r), rd_point(r)};
    double dt = rd_dt(r);
    setup su = rd_setup(r);
    if ((which == 0 && orca_sim_agent_count(w->main) >= MAX_AGENTS) ||
        (which <= 2 && which >= 1 && orca_sim_segment_count(w->main) >= SEG_ADD_LIMIT)) {
        return;
    }
    size_t size = 0;
    unsigned char *snap = which == 4 ? save_sim_hashed(w->main, w->hm, &size) : NULL;
    int workers = 1 + (orca_sim_get_worker_count(w->main) % 4);
    uint64_t h0 = w->hm;
    orca_agent_id a = {0, 0, 0};
    orca_segment_id sid[4];
    orca_sim *created = NULL, *sentinel = (orca_sim *)(void *)&d;
    orca_status st;
    const char *name;
    w->main_jobs.bad_emitted = 0;
    g_inj.armed = 1;
    g_inj.persistent = persistent;
    g_inj.countdown = countdown;
    g_inj.fired = 0;
    switch (which) {
    case 0: name = "orca_sim_add_agent"; st = orca_sim_add_agent(w->main, &d, &a); break;
    case 1: name = "orca_sim_add_segment"; st = orca_sim_add_segment(w->main, pts[0], pts[1], sid); break;
    case 2: name = "orca_sim_add_polyline"; st = orca_sim_add_polyline(w->main, pts, 4, 1, sid); break;
    case 3: name = "orca_sim_step"; st = orca_sim_step(w->main, dt); break;
    case 4: name = "orca_sim_load"; st = orca_sim_load(w->main, snap, size); break;
    case 5: name = "orca_sim_set_worker_count"; st = orca_sim_set_worker_count(w->main, workers); break;
    case 6: name = "orca_sim_measure_overlap"; st = orca_sim_measure_overlap(w->main, NULL, NULL); break;
    default: {
        orca_sim_def def = orca_sim_def_default();
        def.worker_count = su.workers;
        created = sentinel;
        name = "orca_sim_create";
        st = orca_sim_create(&def, &created);
        break;
    }
    }
    int fired = g_inj.fired;
    g_inj.armed = 0;
    w->main_jobs.workers = orca_sim_get_worker_count(w->main);
    if (which == 7) {
        if (st == ORCA_OK) {
            orca_sim_destroy(created);
        } else if (created != sentinel) {
            violation("a refused orca_sim_create wrote *out");
        }
    } else {
        after_call(w->main, name, h0, st);
    }
    if (fired && st != ORCA_ERR_MEMORY) {
        violation("%s: an allocation failed (the %u-th%s) but the call gave %s", name, countdown + 1,
                  persistent ? " and all after it" : "", orca_status_name(st));
    }
    if (!fired && st == ORCA_ERR_MEMORY) {
        violation("%s gave ORCA_ERR_MEMORY though no allocation failed", name);
    }
    if (fired || which == 7 || which == 5 || w->main_jobs.bad_emitted > 0) {
        /* nothing to mirror (the worker count is main's alone; a bad worker index from the
         * job system refuses main's step, op_step checks that) */
        free(snap);
        return;
    }
    /* no allocation failed: the call as usual, mirrored on ref */
    orca_status sr;
    uint64_t r0 = w->hr;
    switch (which) {
    case 0: sr = orca_sim_add_agent(w->ref, &d, NULL); break;
    case 1: sr = orca_sim_add_segment(w->ref, pts[0], pts[1], NULL); break;
    case 2: sr = orca_sim_add_polyline(w->ref, pts, 4, 1, NULL); break;
    case 3: sr = orca_sim_step(w->ref, dt); break;
    case 4: sr = orca_sim_load(w->ref, snap, size); break;
    default: sr = orca_sim_measure_overlap(w->ref, NULL, NULL); break;
    }
    after_call(w->ref, name, r0, sr);
    same_status(st, sr, w);
    if (st == ORCA_OK && which == 0) {
        rec_add(w, 0, a.slot, a.generation);
    } else if (st == ORCA_OK && which == 1) {
        rec_add(w, 1, sid[0].slot, sid[0].generation);
    } else if (st == ORCA_OK && which == 2) {
        for (int k = 0; k < 4; ++k) {
            rec_add(w, 1, sid[k].slot, sid[k].generation);
        }
    }
    free(snap);
}

typedef void op_fn(world *w, reader *r);

typedef struct op {
    const char *name;
    op_fn *fn;
    int weight;
    int keeps_positions; /* orca_sim_positions stays valid across it (sim.h) */
} op;

static void op_set_position(world *w, reader *r) { op_set_vector(w, r, 0); }
static void op_set_velocity(world *w, reader *r) { op_set_vector(w, r, 1); }
static void op_set_pref(world *w, reader *r) { op_set_vector(w, r, 2); }

/* --- walkable-area boundaries -------------------------------------------------------- */

/* A loop of 0..8 fuzzed points (sometimes a valid room around the origin), added to both
 * simulations: refused when invalid (count < 3, a bad coordinate, two consecutive equal
 * points, an exactly zero shoelace sum) or when an agent clearly does not fit with it,
 * accepted when it is valid and every agent clearly fits (fit_oracle), the points given back
 * as they were. */
static void op_add_boundary(world *w, reader *r)
{
    orca_vec2 pts[8];
    int count = (int)rd_below(r, 9);
    for (int k = 0; k < count; ++k) {
        pts[k] = rd_point(r);
    }
    if (rd_u8(r) < 96) {
        double h = 1 + rd_below(r, 40);
        orca_vec2 room[4] = {{-h, -h}, {h, -h}, {h, h}, {-h, h}};
        count = 4;
        for (int k = 0; k < 4; ++k) {
            pts[k] = (rd_u8(r) & 1) ? room[k] : room[3 - k]; /* outer or hole order */
        }
    }
    if (orca_sim_boundary_count(w->main) >= 16) {
        return;
    }
    int invalid = count < 3;
    for (int k = 0; k < count && !invalid; ++k) {
        orca_vec2 a = pts[k], b = pts[(k + 1) % count];
        invalid = coord_invalid(a) || (a.x == b.x && a.y == b.y);
    }
    invalid = invalid || exact_ref_shoelace(pts, count) == 0; /* the exact area */
    /* the agents against the loop: one that clearly does not fit makes a valid loop refused;
     * when every one clearly fits, it is added */
    int verdict = 1;
    if (!invalid) {
        walls *wl = malloc(sizeof *wl);
        if (!wl) {
            abort();
        }
        read_walls(w->main, wl);
        int first = wl->n;
        for (int k = 0; k < count; ++k) {
            wl->a[wl->n] = pts[k];
            wl->b[wl->n] = pts[(k + 1) % count];
            wl->n++;
        }
        for (int i = 0; i < orca_sim_agent_count(w->main) && verdict >= 0; ++i) {
            orca_agent_def d;
            orca_agent_get(w->main, orca_sim_agent_at(w->main, i), &d);
            int o = fit_oracle(wl, first, d.position, d.radius);
            verdict = o < verdict ? o : verdict;
        }
        free(wl);
    }
    orca_boundary_id id, rid;
    uint64_t h0 = w->hm, r0 = w->hr;
    orca_status st = orca_sim_add_boundary(w->main, pts, count, &id);
    after_call(w->main, "orca_sim_add_boundary", h0, st);
    orca_status sr = orca_sim_add_boundary(w->ref, pts, count, &rid);
    after_call(w->ref, "orca_sim_add_boundary (ref)", r0, sr);
    same_status(st, sr, w);
    if (st == ORCA_OK ? invalid || verdict < 0 : !invalid && verdict > 0) {
        violation("orca_sim_add_boundary: status %s for a loop of %d points that is %s (the "
                  "agents: %s): %s",
                  orca_status_name(st), count, invalid ? "invalid" : "valid",
                  verdict > 0 ? "all fit" : verdict < 0 ? "one does not fit" : "unclear",
                  st == ORCA_OK ? "" : orca_sim_last_error(w->main));
    }
    if (st == ORCA_OK) {
        orca_vec2 back[8];
        int n = 0;
        if (orca_boundary_get(w->main, id, back, 8, &n) != ORCA_OK || n != count) {
            violation("orca_boundary_get does not give back the loop");
        }
        for (int k = 0; k < n && k < count; ++k) {
            if (!same_vec(back[k], pts[k])) {
                violation("orca_boundary_get: point %d differs", k);
            }
        }
    }
}

static void op_remove_boundary(world *w, reader *r)
{
    int n = orca_sim_boundary_count(w->main);
    if (n == 0) {
        return;
    }
    int k = (int)rd_below(r, (unsigned)n);
    orca_status st = orca_sim_remove_boundary(w->main, orca_sim_boundary_at(w->main, k));
    orca_status sr = orca_sim_remove_boundary(w->ref, orca_sim_boundary_at(w->ref, k));
    same_status(st, sr, w);
    if (st != ORCA_OK || orca_sim_boundary_count(w->main) != n - 1) {
        violation("orca_sim_remove_boundary of a live loop: %s", orca_status_name(st));
    }
    double deep = -1;
    int outside = -1;
    if (orca_sim_measure_boundary(w->main, &deep, &outside) != ORCA_OK || !(deep >= 0) ||
        outside < 0) {
        violation("orca_sim_measure_boundary: %.17g %d", deep, outside);
    }
}

/* --- end of walkable-area boundaries ------------------------------------------------- */

/* --- the pedestrian model (docs/pedestrians.md) ------------------------------------------ */

/* The model off (1 in 4), or on with parameters each the default or drawn over the whole
 * range: refused exactly when one is outside its range, the parameters given back. */
static void op_pedestrian(world *w, reader *r)
{
    unsigned m = rd_u8(r);
    orca_pedestrian p = orca_pedestrian_default();
    p.time_gap = (m & 2) ? rd_double(r) : p.time_gap;
    p.buffer = (m & 4) ? rd_double(r) : p.buffer;
    p.counter_reach = (m & 8) ? rd_double(r) : p.counter_reach;
    p.max_planes = (m & 16) ? rd_int(r) : p.max_planes;
    const orca_pedestrian *arg = m < 64 ? NULL : &p;
    int invalid = arg && (!in_range(p.time_gap, ORCA_PED_TIME_GAP_MIN, ORCA_PED_TIME_GAP_MAX) ||
                          !in_range(p.buffer, 0, ORCA_PED_BUFFER_MAX) ||
                          !in_range(p.counter_reach, 0, ORCA_PED_COUNTER_REACH_MAX) ||
                          p.max_planes < 1 || p.max_planes > ORCA_MAX_NEIGHBORS_LIMIT);
    uint64_t h0 = w->hm, r0 = w->hr;
    orca_status st = orca_sim_set_pedestrian(w->main, arg);
    after_call(w->main, "orca_sim_set_pedestrian", h0, st);
    orca_status sr = orca_sim_set_pedestrian(w->ref, arg);
    after_call(w->ref, "orca_sim_set_pedestrian (ref)", r0, sr);
    same_status(st, sr, w);
    if ((st == ORCA_OK) == invalid) {
        violation("orca_sim_set_pedestrian(%.17g, %.17g, %.17g, %d) gave %s", p.time_gap, p.buffer,
                  p.counter_reach, p.max_planes, orca_status_name(st));
    }
    orca_pedestrian back;
    int on = orca_sim_get_pedestrian(w->main, &back);
    if (st == ORCA_OK && (on != (arg != NULL) ||
                          (arg && (!same(back.time_gap, p.time_gap) || !same(back.buffer, p.buffer) ||
                                   !same(back.counter_reach, p.counter_reach) ||
                                   back.max_planes != p.max_planes)))) {
        violation("orca_sim_get_pedestrian does not give back what was set");
    }
}

/* An agent's stream from the int table (-1, 0, 1, ..., INT32_MIN, INT32_MAX and raw words):
 * refused exactly below -1 (and for a stale or foreign handle), given back. */
static void op_stream(world *w, reader *r)
{
    orca_agent_id id = pick_agent(w, r);
    int32_t g = rd_u8(r) < 160 ? (int32_t)rd_below(r, 4) - 1 : (int32_t)rd_int(r);
    uint64_t h0 = w->hm, r0 = w->hr;
    orca_status st = orca_agent_set_stream(w->main, id, g);
    after_call(w->main, "orca_agent_set_stream", h0, st);
    orca_status sr = orca_agent_set_stream(w->ref, ref_agent(w, id), g);
    after_call(w->ref, "orca_agent_set_stream (ref)", r0, sr);
    same_status(st, sr, w);
    int live = orca_sim_agent_index(w->main, id) >= 0;
    if ((st == ORCA_OK) != (live && g >= -1)) {
        violation("orca_agent_set_stream(%d) of a %s agent gave %s", (int)g, live ? "live" : "dead",
                  orca_status_name(st));
    }
    int32_t back = -7;
    if (st == ORCA_OK && (orca_agent_get_stream(w->main, id, &back) != ORCA_OK || back != g)) {
        violation("orca_agent_get_stream gives %d after %d was set", (int)back, (int)g);
    }
}



static const op OPS[] = {
    {"add_agent", op_add_agent, 28, 0},
    {"add_block", op_add_block, 6, 0},
    {"remove_agent", op_remove_agent, 12, 0},
    {"remove_agents", op_remove_agents, 6, 0},
    {"agent_set", op_agent_set, 12, 0},
    {"set_position", op_set_position, 10, 0},
    {"set_velocity", op_set_velocity, 10, 1},
    {"set_preferred_velocity", op_set_pref, 12, 1},
    {"add_segment", op_add_segment, 10, 0},
    {"add_polyline", op_add_polyline, 6, 0},
    {"remove_segment", op_remove_segment, 6, 0},
    {"add_segments", op_add_segments, 4, 0},
    {"remove_segments", op_remove_segments, 4, 0},
    {"swap_preferred_velocities", op_swap, 8, 1},
    {"step", op_step, 56, 0},
    {"save_load", op_roundtrip, 5, 0},
    {"checkpoint", op_checkpoint, 4, 1},
    {"rollback", op_rollback, 4, 0},
    {"bad_load", op_bad_load, 5, 0},
    {"set_worker_count", op_set_workers, 5, 1},
    {"set_vector_kernels", op_set_kernels, 5, 1},
    {"job_mode", op_job_mode, 4, 1},
    {"recreate", op_recreate, 4, 0},
    {"run_task", op_run_task, 3, 1},
    {"neighbors", op_query_neighbors, 8, 1},
    {"constraints", op_query_constraints, 8, 1},
    {"overlap", op_query_overlap, 5, 1},
    {"getters", op_getters, 4, 0},
    {"scale", op_scale, 3, 1},
    {"alloc_fail", op_alloc_fail, 6, 0},
    {"add_boundary", op_add_boundary, 4, 0},
    {"remove_boundary", op_remove_boundary, 2, 0},
    {"pedestrian", op_pedestrian, 4, 1},
    {"stream", op_stream, 5, 1},
};
#define OP_COUNT (sizeof OPS / sizeof OPS[0])

static const op *op_of(unsigned byte)
{
    static unsigned char table[256];
    static int ready;
    if (!ready) {
        int total = 0;
        for (size_t k = 0; k < OP_COUNT; ++k) {
            total += OPS[k].weight;
        }
        /* byte b -> the op whose cumulative weight range holds b * total / 256 */
        for (unsigned b = 0; b < 256; ++b) {
            int x = (int)(b * (unsigned)total / 256u), acc = 0;
            size_t k = 0;
            while (acc + OPS[k].weight <= x) {
                acc += OPS[k].weight;
                ++k;
            }
            table[b] = (unsigned char)k;
        }
        ready = 1;
    }
    return &OPS[table[byte]];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size, 0, 1.0};
    if (g_trace < 0) {
        g_trace = getenv("ORCA_FUZZ_TRACE") != NULL;
    }
    if (fuzz_install_hooks(&g_inj) != 0) {
        violation("orca_set_allocator refused the hooks");
    }
    g_inj.armed = 0;
    world *w = calloc(1, sizeof *w);
    if (!w) {
        return 0;
    }
    g_op = -1;
    g_opname = "setup";
    w->main_setup = rd_setup(&r);
    w->main_jobs.mode = (int)rd_below(&r, JOB_MODES - 1); /* JOB_BAD only later (job_mode) */
    w->main_jobs.shape = rd_u8(&r);
    w->alt_setup = rd_setup(&r);
    w->alt_jobs.mode = (int)rd_below(&r, JOB_MODES - 1);
    w->alt_jobs.shape = rd_u8(&r);
    w->main = make_sim(w->main_setup, &w->main_jobs);
    w->ref = make_sim((setup){1, 0, 0}, NULL);
    w->alt = make_sim(w->alt_setup, &w->alt_jobs);
    check_mirror(w);
    for (g_op = 0; g_op < MAX_OPS && r.at < r.n; ++g_op) {
        const op *o = op_of(rd_u8(&r));
        g_opname = o->name;
        if (g_trace > 0) {
            fprintf(stderr, "op %d: %s (%d agents, %d segments)\n", g_op, o->name,
                    orca_sim_agent_count(w->main), orca_sim_segment_count(w->main));
        }
        const orca_sim *before = w->main;
        const orca_vec2 *pos = orca_sim_positions(w->main);
        int n = orca_sim_agent_count(w->main);
        orca_vec2 copy[MAX_AGENTS];
        if (n > 0) {
            memcpy(copy, pos, (size_t)n * sizeof *pos);
        }
        o->fn(w, &r);
        if (o->keeps_positions && w->main == before && n > 0) {
            /* read through the old pointer (ASan: still allocated) */
            if (memcmp(copy, pos, (size_t)n * sizeof *pos) != 0) {
                violation("orca_sim_positions' array changed across %s", o->name);
            }
        }
        if (w->main_jobs.pending || w->alt_jobs.pending) {
            violation("a deferred task was never finished");
        }
        check_mirror(w);
        check_tables(w);
    }
    g_opname = "end";
    check_roundtrip(w->main);
    orca_sim_destroy(w->main);
    orca_sim_destroy(w->ref);
    orca_sim_destroy(w->alt);
    free(w->cp_bytes);
    free(w);
    return 0;
}

#ifndef ORCA_LIBFUZZER
/* The seeded driver's inputs (test/fuzz_driver.c): uniform random bytes (the reader's
 * tables turn them into mostly ordinary values with edge values mixed in). */
size_t fuzz_generate(uint8_t *buf, size_t cap)
{
    size_t n = 64 + (size_t)(fuzz_rand() % 2048u);
    n = n > cap ? cap : n;
    for (size_t k = 0; k < n; ++k) {
        buf[k] = (uint8_t)fuzz_rand();
    }
    return n;
}
#endif

