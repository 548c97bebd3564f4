/* SPDX-License-Identifier: MIT */
/* The accepted ranges and the total step (docs/limits.md): values just outside every range are
 * refused and the edges themselves accepted; scenes drawn over the whole accepted ranges
 * (edges included) step without a NaN, an overflow or a broken limit, and the only step the
 * library refuses there is one that would take an agent beyond the coordinate limit, with the
 * state unchanged. The reproducers are here too. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orca/orca.h>

#include "sim_check.h"
#include "sim_peek.h"
#include "test.h"

static int irand(test_rng *g, int n)
{
    return (int)(test_rng_next(g) % (unsigned long long)n);
}

static int chance(test_rng *g, double p)
{
    return test_rng_uniform(g, 0, 1) < p;
}

/* 2^e for integer e (exact; no libm). */
static double pow2(int e)
{
    double x = 1;
    for (; e > 0; --e) {
        x *= 2;
    }
    for (; e < 0; ++e) {
        x *= 0.5;
    }
    return x;
}

/* A magnitude in [lo, hi] (lo > 0): an edge (lo, hi or a neighbour inside) one time in four,
 * otherwise log-uniform (a uniform mantissa times a power of two). */
static double magnitude(test_rng *g, double lo, double hi)
{
    switch (irand(g, 8)) {
    case 0: return lo;
    case 1: return hi;
    case 2: return nextafter(hi, 0);
    default: break;
    }
    int elo = 0, ehi = 0;
    frexp(lo, &elo);
    frexp(hi, &ehi);
    for (int tries = 0; tries < 100; ++tries) {
        double x = test_rng_uniform(g, 0.5, 1.0) * pow2(elo + irand(g, ehi - elo + 1));
        if (x >= lo && x <= hi) {
            return x;
        }
    }
    return lo;
}

/* A value in [0, hi] with 0, the edges and tiny values (down to subnormal) well represented. */
static double nonneg(test_rng *g, double hi)
{
    switch (irand(g, 10)) {
    case 0: return 0.0;
    case 1: return 4.9406564584124654e-324;
    case 2: return magnitude(g, 0x1p-1022, 0x1p-900);
    default: return magnitude(g, 0x1p-60, hi);
    }
}

static double sign(test_rng *g, double x)
{
    return chance(g, 0.5) ? -x : x;
}

/* A coordinate strictly inside (-2^21, 2^21). */
static double coord(test_rng *g, double centre, double spread)
{
    double x = centre + sign(g, nonneg(g, spread));
    double lim = nextafter(ORCA_COORD_LIMIT, 0);
    return x > lim ? lim : (x < -lim ? -lim : x);
}

/* An agent drawn over the accepted ranges around centre, with offsets up to spread. */
static orca_agent_def edge_agent(test_rng *g, orca_vec2 centre, double spread)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(coord(g, centre.x, spread), coord(g, centre.y, spread));
    double vmax = chance(g, 0.5) ? ORCA_VELOCITY_LIMIT : 4.0;
    d.velocity = vec(sign(g, nonneg(g, vmax)), sign(g, nonneg(g, vmax)));
    d.preferred_velocity = vec(sign(g, nonneg(g, vmax)), sign(g, nonneg(g, vmax)));
    d.radius = chance(g, 0.5) ? magnitude(g, ORCA_RADIUS_MIN, ORCA_RADIUS_MAX)
                              : magnitude(g, 0.1, 2.0);
    d.max_speed = chance(g, 0.5) ? nonneg(g, ORCA_SPEED_MAX) : magnitude(g, 0.5, 2.0);
    d.neighbor_dist = chance(g, 0.5) ? nonneg(g, ORCA_NEIGHBOR_DIST_MAX) : 15.0;
    d.max_neighbors = irand(g, 3) == 0 ? ORCA_MAX_NEIGHBORS_LIMIT : irand(g, 12);
    d.time_horizon = chance(g, 0.5) ? magnitude(g, ORCA_TIME_MIN, ORCA_TIME_MAX) : 10.0;
    d.obstacle_time_horizon =
        chance(g, 0.5) ? magnitude(g, ORCA_TIME_MIN, ORCA_TIME_MAX) : 10.0;
    return d;
}

typedef struct agent_state {
    orca_vec2 pos, vel;
    double max_speed;
} agent_state;

/* The invariants of an accepted state after a step, computed here from the values alone:
 * positions finite and within the coordinate limit, velocities finite and within max speed
 * up to the documented rounding (v.v <= R*R + 2^-40 (R*R + v0.v0)). */
/* The largest (v.v - R*R) / (R*R + v0.v0) seen: how close the sweep came to the bound 2^-40. */
static double g_worst;

static int check_stepped(const orca_sim *s, const agent_state *before, const char *what)
{
    int n = orca_sim_agent_count(s);
    for (int i = 0; i < n; ++i) {
        orca_agent_def d;
        ENSURE(orca_agent_get(s, orca_sim_agent_at(s, i), &d) == ORCA_OK);
        orca_vec2 p = d.position, v = d.velocity, v0 = before[i].vel;
        double R = d.max_speed;
        ENSURE_MSG(fabs(p.x) < ORCA_COORD_LIMIT && fabs(p.y) < ORCA_COORD_LIMIT,
                   "%s: agent %d at (%.17g, %.17g)", what, i, p.x, p.y);
        double vv = v.x * v.x + v.y * v.y;
        double lim = R * R + 0x1p-40 * (R * R + (v0.x * v0.x + v0.y * v0.y)) + 0x1p-1000;
        if (R * R + (v0.x * v0.x + v0.y * v0.y) > 0) {
            double excess = (vv - R * R) / (R * R + (v0.x * v0.x + v0.y * v0.y));
            g_worst = excess > g_worst ? excess : g_worst;
        }
        ENSURE_MSG(isfinite(v.x) && isfinite(v.y) && vv <= lim,
                   "%s: agent %d velocity (%.17g, %.17g), max speed %.17g, was (%.17g, %.17g)",
                   what, i, v.x, v.y, R, v0.x, v0.y);
        /* the next state is accepted again, as the snapshot loader will check */
        ENSURE(fabs(v.x) <= ORCA_VELOCITY_LIMIT && fabs(v.y) <= ORCA_VELOCITY_LIMIT);
    }
    return 0;
}

static void state_of(const orca_sim *s, agent_state *out)
{
    int n = orca_sim_agent_count(s);
    for (int i = 0; i < n; ++i) {
        orca_agent_def d;
        orca_agent_get(s, orca_sim_agent_at(s, i), &d);
        out[i].pos = d.position;
        out[i].vel = d.velocity;
        out[i].max_speed = d.max_speed;
    }
}

/* An engine job system that runs a task at once, in three ranges (worker indices 0..2). */
static void *split3(orca_task_fn *task, int count, int min_range, void *task_context,
                    void *user_context)
{
    (void)min_range;
    (void)user_context;
    for (int w = 0; w < 3; ++w) {
        int b = (int)((long long)count * w / 3), e = (int)((long long)count * (w + 1) / 3);
        if (b < e) {
            task(b, e, 2 - w, task_context);
        }
    }
    return NULL;
}

static void finish_none(void *user_task, void *user_context)
{
    (void)user_task;
    (void)user_context;
}

typedef struct sweep_stats {
    long steps, refused, fallbacks;
} sweep_stats;

/* One scene of the sweep, stepped `steps` times with the scalar code on one worker and with
 * the vector kernels on three (a job system's, without threads: this runs thousands of scenes
 * under the sanitizers): the same status, message and hash each step. */
static int sweep_scene(unsigned long long seed, int steps, sweep_stats *st)
{
    test_rng g = {seed};
    int n = 2 + irand(&g, 30);
    orca_vec2 centre = vec(coord(&g, 0, ORCA_COORD_LIMIT), coord(&g, 0, ORCA_COORD_LIMIT));
    double spread = magnitude(&g, 0x1p-40, 0x1p22);
    orca_sim_def def = orca_sim_def_default();
    orca_sim *a = NULL, *b = NULL;
    ENSURE(orca_sim_create(&def, &a) == ORCA_OK);
    def.worker_count = 3;
    def.enqueue = split3;
    def.finish = finish_none;
    ENSURE(orca_sim_create(&def, &b) == ORCA_OK);
    orca_sim_set_vector_kernels(a, 0);
    orca_sim_set_vector_kernels(b, 1);
    for (int i = 0; i < n; ++i) {
        orca_agent_def d = edge_agent(&g, centre, spread);
        orca_status ra = orca_sim_add_agent(a, &d, NULL), rb = orca_sim_add_agent(b, &d, NULL);
        ENSURE_MSG(ra == ORCA_OK && rb == ORCA_OK, "seed %llu agent %d: %s", seed, i,
                   orca_sim_last_error(a));
    }
    int m = irand(&g, 4);
    for (int k = 0; k < m; ++k) {
        orca_vec2 p = vec(coord(&g, centre.x, spread), coord(&g, centre.y, spread));
        orca_vec2 q = chance(&g, 0.3) ? p : vec(coord(&g, p.x, spread), coord(&g, p.y, spread));
        ENSURE(orca_sim_add_segment(a, p, q, NULL) == ORCA_OK);
        ENSURE(orca_sim_add_segment(b, p, q, NULL) == ORCA_OK);
    }
    agent_state *before = malloc((size_t)n * sizeof *before);
    ENSURE(before);
    for (int k = 0; k < steps; ++k) {
        double dt = chance(&g, 0.2) ? magnitude(&g, ORCA_TIME_MIN, ORCA_TIME_MAX)
                                    : magnitude(&g, 0.01, 1.0);
        state_of(a, before);
        uint64_t h0 = orca_sim_hash(a);
        uint64_t count0 = orca_sim_step_count(a);
        orca_status ra = orca_sim_step(a, dt), rb = orca_sim_step(b, dt);
        char what[96];
        snprintf(what, sizeof what, "seed %llu step %d dt %.17g", seed, k, dt);
        ENSURE_MSG(ra == rb, "%s: statuses %s and %s", what, orca_status_name(ra),
                   orca_status_name(rb));
        ENSURE_MSG(strcmp(orca_sim_last_error(a), orca_sim_last_error(b)) == 0,
                   "%s: messages '%s' and '%s'", what, orca_sim_last_error(a),
                   orca_sim_last_error(b));
        ENSURE_MSG(orca_sim_hash(a) == orca_sim_hash(b), "%s: hashes differ", what);
        ++st->steps;
        if (ra == ORCA_OK) {
            ENSURE(orca_sim_step_count(a) == count0 + 1);
            st->fallbacks += orca_sim_last_fallback_count(a);
            if (check_stepped(a, before, what) != 0) {
                free(before);
                return 1;
            }
            continue;
        }
        /* Within the ranges the only refusal is an agent leaving the coordinate square. */
        ENSURE_MSG(ra == ORCA_ERR_LIMIT, "%s: %s (%s)", what, orca_status_name(ra),
                   orca_sim_last_error(a));
        ENSURE_MSG(strstr(orca_sim_last_error(a), "beyond the coordinate limit") != NULL,
                   "%s: %s", what, orca_sim_last_error(a));
        ENSURE(orca_sim_hash(a) == h0 && orca_sim_step_count(a) == count0);
        ++st->refused;
        break;
    }
    free(before);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

static int test_sweep_accepted_ranges(void)
{
    sweep_stats st;
    memset(&st, 0, sizeof st);
    for (unsigned long long seed = 1; seed <= 20000; ++seed) {
        ENSURE(sweep_scene(seed, 4, &st) == 0);
    }
    printf("  sweep: %ld steps, %ld refused (an agent leaving the square), %ld fallbacks; "
           "largest speed excess (v.v - R^2) / (R^2 + v0.v0) = %.3g (the bound: 2^-40 = %.3g)\n",
           st.steps, st.refused, st.fallbacks, g_worst, 0x1p-40);
    ENSURE(st.steps - st.refused > 20000 && st.refused > 1000 && st.fallbacks > 10000);
    return 0;
}


/* ---------------------------------------------------------------------------------------
 * The reproducers, and the same scenes at the edges of the ranges
 * ------------------------------------------------------------------------------------- */

static orca_agent_def at(double x, double y)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(x, y);
    return d;
}

static orca_status add(orca_sim *s, orca_agent_def d)
{
    return orca_sim_add_agent(s, &d, NULL);
}

/* Adds d, expecting a refusal that names field and the value's %.17g text, with the state
 * unchanged. */
static int refused(orca_sim *s, orca_agent_def d, const char *field, double value)
{
    uint64_t h = orca_sim_hash(s);
    int n = orca_sim_agent_count(s);
    char text[32];
    snprintf(text, sizeof text, "%.17g", value);
    ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_ERR_ARGUMENT);
    const char *e = orca_sim_last_error(s);
    ENSURE_MSG(strstr(e, field) == e && strstr(e, text) != NULL, "'%s' does not name %s = %s", e,
               field, text);
    ENSURE(orca_sim_hash(s) == h && orca_sim_agent_count(s) == n);
    return 0;
}

/* Steps s k times, each step checked as in the sweep; returns the number of steps taken. */
static int step_checked(orca_sim *s, double dt, int k, const char *what)
{
    int n = orca_sim_agent_count(s);
    agent_state *before = malloc((size_t)(n > 0 ? n : 1) * sizeof *before);
    int taken = 0;
    for (; taken < k; ++taken) {
        state_of(s, before);
        orca_status st = orca_sim_step(s, dt);
        if (st != ORCA_OK) {
            fprintf(stderr, "%s: step %d: %s (%s)\n", what, taken, orca_status_name(st),
                    orca_sim_last_error(s));
            break;
        }
        if (check_stepped(s, before, what) != 0) {
            break;
        }
    }
    free(before);
    return taken;
}

static int test_reproducer_huge_horizon(void)
{
    orca_sim *s = NULL;
    ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
    orca_agent_def b = at(3.2, 0);
    b.time_horizon = 1.44e163;
    ENSURE(add(s, at(0, 0)) == ORCA_OK);
    ENSURE(refused(s, b, "time_horizon", 1.44e163) == 0);
    b.time_horizon = 1e162;
    ENSURE(refused(s, b, "time_horizon", 1e162) == 0);
    /* the largest accepted horizon, on one agent and on all */
    b.time_horizon = ORCA_TIME_MAX;
    ENSURE(orca_sim_add_agent(s, &b, NULL) == ORCA_OK);
    orca_agent_def c = at(16, 0);
    c.time_horizon = ORCA_TIME_MAX;
    c.obstacle_time_horizon = ORCA_TIME_MAX;
    ENSURE(orca_sim_add_agent(s, &c, NULL) == ORCA_OK);
    ENSURE(step_checked(s, 0.25, 3, "horizon 2^30") == 3);
    ENSURE(step_checked(s, ORCA_TIME_MIN, 3, "horizon 2^30, dt 2^-30") == 3);
    orca_sim_destroy(s);
    return 0;
}

static int test_reproducer_huge_values(void)
{
    orca_sim *s = NULL;
    ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
    orca_agent_def a = at(0, 0), b = at(6.4, 7.29e-304), e = at(1.5, 0);
    a.velocity = vec(1e299, 0);
    b.max_speed = 1.76e159;
    e.radius = 1.74e77;
    ENSURE(refused(s, a, "velocity.x", 1e299) == 0);
    ENSURE(refused(s, b, "max_speed", 1.76e159) == 0);
    ENSURE(refused(s, e, "radius", 1.74e77) == 0);
    /* the same scene at the edges: velocity 2^31, max speed 2^30, radius 2^21 */
    a.velocity = vec(ORCA_VELOCITY_LIMIT, 0);
    b.max_speed = ORCA_SPEED_MAX;
    e.radius = ORCA_RADIUS_MAX;
    ENSURE(orca_sim_add_agent(s, &a, NULL) == ORCA_OK);
    ENSURE(orca_sim_add_agent(s, &b, NULL) == ORCA_OK);
    ENSURE(add(s, at(9.61, 0)) == ORCA_OK);
    ENSURE(add(s, at(12.8, 0)) == ORCA_OK);
    ENSURE(orca_sim_add_agent(s, &e, NULL) == ORCA_OK);
    ENSURE(step_checked(s, 0x1p-12, 3, "huge values at the edges") == 3); /* 2^30 m/s */
    orca_sim_destroy(s);
    return 0;
}

/* A neighbour's huge velocity must not break an agent's speed limit (the issue: max speed 2,
 * speed 3e299). */
static int test_reproducer_speed_limit(void)
{
    orca_sim *s = NULL;
    ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
    orca_agent_def a = at(0, 0), b = at(5, 0);
    a.preferred_velocity = vec(1, 0);
    a.velocity = vec(1e300, 0);
    ENSURE(refused(s, a, "velocity.x", 1e300) == 0);
    b.preferred_velocity = vec(-1, 0);
    for (int k = 0; k < 3; ++k) {
        double v = k == 0 ? ORCA_VELOCITY_LIMIT : (k == 1 ? -ORCA_VELOCITY_LIMIT : 1e6);
        orca_sim_destroy(s);
        ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
        a.velocity = vec(v, 0);
        ENSURE(orca_sim_add_agent(s, &a, NULL) == ORCA_OK);
        ENSURE(orca_sim_add_agent(s, &b, NULL) == ORCA_OK);
        ENSURE(step_checked(s, 0.25, 1, "a neighbour at 2^31") == 1);
        orca_vec2 vb;
        ENSURE(orca_agent_get_velocity(s, orca_sim_agent_at(s, 1), &vb) == ORCA_OK);
        ENSURE_MSG(vb.x * vb.x + vb.y * vb.y <= 4.0 * (1 + 0x1p-40),
                   "agent 1 (max speed 2) got (%.17g, %.17g)", vb.x, vb.y);
    }
    orca_sim_destroy(s);
    return 0;
}

/* The fuzzer's case (fuzz_api seed 1, input 180, once the segment batches were among its
 * operations): an agent whose max speed is tiny enough that squares of its velocity are
 * subnormal. R = 2.2227587494850775e-162 (just under 2^-537; R*R rounds to 2^-1074, the
 * smallest subnormal) and the new velocity (a, -a), a = 1.5717277847026288e-162, of length R
 * up to rounding: each square (just above 2^-1075) rounds up to 2^-1074, so v.v is twice
 * R*R, and the check refused the step. limits.md, "The speed bound": the check now allows
 * 2^-1000 absolutely, which lets no speed that means anything through. Then steps with tiny
 * speeds in several directions, alone and with a neighbour and a segment, are all taken. */
static int test_reproducer_subnormal_speed(void)
{
    const double a = 1.5717277847026288e-162, R0 = 2.2227587494850775e-162;
    ENSURE(a * a + a * a > R0 * R0); /* the case: the squares round up */
    ENSURE(orca_step_result_kind(vec(a, -a), vec(2.1270332620645399e-162, -6.4527975366002896e-163),
                                 vec(22, -46.375), R0, 0.5) == ORCA_STEP_RESULT_OK);
    /* and what the check is for still fails it */
    ENSURE(orca_step_result_kind(vec(0x1p-499, 0), vec(0, 0), vec(0, 0), R0, 0.5) ==
           ORCA_STEP_RESULT_TOO_FAST);
    ENSURE(orca_step_result_kind(vec(0, -(1 + 0x1p-30)), vec(0, 0), vec(0, 0), 1, 0.5) ==
           ORCA_STEP_RESULT_TOO_FAST);
    ENSURE(orca_step_result_kind(vec(0x1p-480 * (1 + 0x1p-30), 0), vec(0, 0), vec(0, 0), 0x1p-480,
                                 0.5) == ORCA_STEP_RESULT_TOO_FAST);
    const double speeds[] = {0x1p-537, 0x1.6a09e667f3bcdp-537, 0x1p-600, 0x1p-1074, 0x1p-520,
                             0x1p-496, 0x1p-480};
    const orca_vec2 dirs[] = {{1, -1}, {-3, 2}, {1e-300, 1}, {5, 5}};
    for (size_t k = 0; k < sizeof speeds / sizeof speeds[0]; ++k) {
        for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; ++d) {
            for (int crowd = 0; crowd < 2; ++crowd) {
                orca_sim *s = NULL;
                ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
                orca_agent_def a = at(0, 0);
                a.max_speed = speeds[k];
                a.preferred_velocity = dirs[d];
                ENSURE(orca_sim_add_agent(s, &a, NULL) == ORCA_OK);
                if (crowd) {
                    orca_agent_def b = at(3.5, -0.5);
                    b.preferred_velocity = vec(-1, 0);
                    ENSURE(orca_sim_add_agent(s, &b, NULL) == ORCA_OK);
                    ENSURE(orca_sim_add_segment(s, vec(-2, -1.6), vec(2, -1.6), NULL) == ORCA_OK);
                }
                for (int step = 0; step < 4; ++step) {
                    ENSURE_MSG(orca_sim_step(s, 0.5) == ORCA_OK, "R %a, direction %zu: %s",
                               speeds[k], d, orca_sim_last_error(s));
                }
                orca_vec2 v;
                ENSURE(orca_agent_get_velocity(s, orca_sim_agent_at(s, 0), &v) == ORCA_OK);
                double R = speeds[k];
                /* exactly (no subnormal squares): |v| within R (1 + 2^-40) + 2^-500 */
                double vx = v.x * 0x1p600, vy = v.y * 0x1p600, Rs = R * 0x1p600;
                ENSURE_MSG(vx * vx + vy * vy <= Rs * Rs * (1 + 0x1p-39) + 0x1p200,
                           "R %a: v (%a, %a)", R, v.x, v.y);
                orca_sim_destroy(s);
            }
        }
    }
    return 0;
}

/* Every half-plane of agent id is built on a unit normal (|N|^2 within 2^-50 of 1). */
static int unit_normals(orca_sim *s, orca_agent_id id, double dt, const char *what)
{
    orca_halfplane hp[64];
    int count = 0, hard = 0;
    ENSURE(orca_sim_agent_constraints(s, id, dt, hp, 64, &count, &hard) == ORCA_OK);
    for (int k = 0; k < count; ++k) {
        double l = hp[k].normal.x * hp[k].normal.x + hp[k].normal.y * hp[k].normal.y;
        ENSURE_MSG(fabs(l - 1) <= 0x1p-50, "%s: half-plane %d of %d has |N|^2 = %.17g", what, k,
                   count, l);
    }
    return 0;
}

/* Steps an agent pressing against something at full speed in eight directions; none may be
 * refused (issue 27, item 4). */
static int press_steps(orca_sim *s, orca_agent_id id, int steps, const char *what)
{
    for (int k = 0; k < steps; ++k) {
        double ang = (double)(k % 8) * 0.7853981633974483;
        orca_vec2 pref = vec(20 * cos(ang), 20 * sin(ang));
        ENSURE(orca_agent_set_preferred_velocity(s, id, pref) == ORCA_OK);
        ENSURE(unit_normals(s, id, 0.25, what) == 0);
        ENSURE_MSG(orca_sim_step(s, 0.25) == ORCA_OK, "%s, step %d: %s", what, k,
                   orca_sim_last_error(s));
    }
    return 0;
}

/* Issue 27, item 4: vectors whose squared length is subnormal. A segment 1e-160 long (its
 * e.e about 1e-320) gave the normal nn = (-e.y, e.x)/|e| a length of 1.0001, and every step of
 * an agent pressing on it at full speed was refused as faster than its max_speed; so were two
 * agents 1e-160 apart (the overlap form's wa/|wa|), an agent 1e-160 from a point obstacle, and
 * an agent in front of a boundary edge 1e-160 long. algorithm.md §1.3's Unit now scales such
 * a vector by 2^600 first: every normal is a unit vector and no step is refused. */
static int test_reproducer_tiny_vectors(void)
{
    const double tiny = 1.0048e-160; /* sqrt(tiny*tiny) is 0.99988 tiny */
    ENSURE(tiny / sqrt(tiny * tiny) > 1 + 1e-5);
    /* the segment, added by each of the four ways, and a snapshot */
    for (int way = 0; way < 5; ++way) {
        orca_sim *s = NULL;
        ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
        orca_vec2 a = vec(0, 0), b = vec(tiny, 0), pts[2] = {a, b};
        orca_status st = way == 0   ? orca_sim_add_segment(s, a, b, NULL)
                         : way == 1 ? orca_sim_add_segments(s, &a, &b, 1, NULL)
                         : way == 2 ? orca_sim_add_polyline(s, pts, 2, 0, NULL)
                                    : orca_sim_add_polyline(s, pts, 2, 1, NULL);
        ENSURE(st == ORCA_OK);
        orca_agent_def d = at(0, 0.8);
        d.radius = 0.5;
        orca_agent_id id;
        ENSURE(orca_sim_add_agent(s, &d, &id) == ORCA_OK);
        if (way == 4) { /* through a snapshot of the first way's scene */
            size_t n = 0;
            ENSURE(orca_sim_save(s, NULL, 0, &n) == ORCA_OK);
            unsigned char *buf = malloc(n);
            ENSURE(buf && orca_sim_save(s, buf, n, &n) == ORCA_OK);
            orca_sim *t = NULL;
            ENSURE(orca_sim_create(NULL, &t) == ORCA_OK && orca_sim_load(t, buf, n) == ORCA_OK);
            free(buf);
            orca_sim_destroy(s);
            s = t;
            id = orca_sim_agent_at(s, 0);
        }
        ENSURE(orca_agent_set_preferred_velocity(s, id, vec(20, -20)) == ORCA_OK);
        for (int k = 0; k < 10; ++k) { /* the case: pressing down-right */
            ENSURE(unit_normals(s, id, 0.25, "segment") == 0);
            ENSURE_MSG(orca_sim_step(s, 0.25) == ORCA_OK, "way %d: %s", way, orca_sim_last_error(s));
        }
        ENSURE(press_steps(s, id, 16, "segment") == 0);
        orca_sim_destroy(s);
    }
    /* positions: two agents, an agent and a point obstacle, 1e-160 and less apart */
    const double gaps[] = {1e-160, 2.512e-161, 3e-162, 4e-163, 0x1p-537, 0x1p-1074};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; ++g) {
        for (int obstacle = 0; obstacle < 2; ++obstacle) {
            orca_sim *s = NULL;
            ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
            orca_agent_def d = at(0, 0);
            d.radius = 0.05;
            if (obstacle) {
                ENSURE(orca_sim_add_segment(s, vec(0, 0), vec(0, 0), NULL) == ORCA_OK);
            } else {
                ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
            }
            d.position = vec(gaps[g], 0);
            orca_agent_id id;
            ENSURE(orca_sim_add_agent(s, &d, &id) == ORCA_OK);
            ENSURE(press_steps(s, id, 8, obstacle ? "point obstacle" : "two agents") == 0);
            orca_sim_destroy(s);
        }
    }
    /* a boundary edge 1e-160 long in a room's top wall, an agent right in front of it */
    orca_vec2 room[6] = {vec(-10, -10), vec(10, -10), vec(10, 10), vec(tiny, 10), vec(0, 10),
                         vec(-10, 10)};
    for (int k = 0; k < 8; ++k) {
        orca_sim *s = NULL;
        ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
        ENSURE(orca_sim_add_boundary(s, room, 6, NULL) == ORCA_OK);
        orca_agent_def d = at(tiny / 2, 9.4);
        d.radius = 0.5;
        d.obstacle_time_horizon = 2;
        double ang = (double)k * 0.7853981633974483;
        d.preferred_velocity = vec(20 * cos(ang), 20 * sin(ang));
        orca_agent_id id;
        ENSURE(orca_sim_add_agent(s, &d, &id) == ORCA_OK);
        ENSURE(unit_normals(s, id, 0.25, "boundary edge") == 0);
        ENSURE_MSG(orca_sim_step(s, 0.25) == ORCA_OK, "direction %d: %s", k,
                   orca_sim_last_error(s));
        orca_sim_destroy(s);
    }
    /* a sweep: agents, segments and boundary edges at every scale where squares are
     * subnormal, pressed at full speed; every normal unit, every step taken */
    test_rng g = {0x7177ull};
    for (int trial = 0; trial < 400; ++trial) {
        int e = 500 + irand(&g, 575); /* lengths 2^-500 .. 2^-1074 */
        double u = pow2(-e);
        orca_sim *s = NULL;
        ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
        orca_vec2 off = vec((double)(irand(&g, 9) - 4) * u, (double)(irand(&g, 9) - 4) * u);
        switch (trial % 3) {
        case 0:
            ENSURE(orca_sim_add_segment(s, vec(0, 0), off, NULL) == ORCA_OK);
            break;
        case 1: {
            orca_agent_def o = at(off.x, off.y);
            o.radius = 0.05;
            ENSURE(orca_sim_add_agent(s, &o, NULL) == ORCA_OK);
            break;
        }
        default: {
            orca_vec2 w[6] = {vec(-10, -10), vec(10, -10), vec(10, 10), vec(u, 10), vec(0, 10),
                              vec(-10, 10)};
            ENSURE(orca_sim_add_boundary(s, w, 6, NULL) == ORCA_OK);
            break;
        }
        }
        orca_agent_def d = at((double)(irand(&g, 3)) * u, trial % 3 == 2 ? 9.4 : 0.2);
        d.radius = trial % 3 == 2 ? 0.5 : 0.05;
        if (trial % 3 == 1) {
            d.position = vec((double)(irand(&g, 5) - 2) * u, (double)(irand(&g, 5) - 2) * u);
            if (d.position.x == off.x && d.position.y == off.y) {
                d.position.x += u;
            }
        }
        orca_agent_id id;
        ENSURE(orca_sim_add_agent(s, &d, &id) == ORCA_OK);
        ENSURE(press_steps(s, id, 3, "sweep") == 0);
        orca_sim_destroy(s);
    }
    return 0;
}

/* Stepping refuses to take an agent beyond 2^21 (the issue: an agent at x = 2097000 walking
 * right, or dt 1e300), names it, and changes nothing; a snapshot of any state the library
 * reached loads again. */
static int test_reproducer_coordinate_limit(void)
{
    orca_sim *s = NULL;
    ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
    orca_agent_def a = at(2097000, 0), b = at(0, 0);
    a.preferred_velocity = vec(2, 0);
    b.preferred_velocity = vec(-1, 0.5);
    ENSURE(orca_sim_add_agent(s, &b, NULL) == ORCA_OK);
    ENSURE(orca_sim_add_agent(s, &a, NULL) == ORCA_OK);
    /* dt 1e300 is outside the range */
    uint64_t h = orca_sim_hash(s);
    ENSURE(orca_sim_step(s, 1e300) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(s), "dt must be in") != NULL);
    ENSURE(orca_sim_hash(s) == h);
    int steps = 0;
    orca_status st = ORCA_OK;
    unsigned char *snap = NULL;
    while (steps < 1000) {
        size_t size = 0;
        ENSURE(orca_sim_save(s, NULL, 0, &size) == ORCA_OK);
        free(snap);
        snap = malloc(size);
        ENSURE(snap && orca_sim_save(s, snap, size, &size) == ORCA_OK);
        h = orca_sim_hash(s);
        st = orca_sim_step(s, 0.25);
        if (st != ORCA_OK) {
            break;
        }
        ++steps;
    }
    ENSURE_MSG(st == ORCA_ERR_LIMIT, "%d steps, %s", steps, orca_status_name(st));
    const char *e = orca_sim_last_error(s);
    ENSURE_MSG(strstr(e, "agent 1 (slot 1) would move to (2097152") != NULL &&
                   strstr(e, "beyond the coordinate limit") != NULL,
               "%s", e);
    ENSURE(orca_sim_hash(s) == h);
    ENSURE(steps > 50); /* 152 m at 2 m/s and dt 0.25: about 300 steps */
    /* the last state loads again, into a fresh simulation */
    orca_sim *t = NULL;
    size_t size = 0;
    ENSURE(orca_sim_save(s, NULL, 0, &size) == ORCA_OK);
    ENSURE(orca_sim_create(NULL, &t) == ORCA_OK);
    ENSURE(orca_sim_load(t, snap, size) == ORCA_OK && orca_sim_hash(t) == h);
    /* without the agent at the edge the step goes on */
    ENSURE(orca_sim_remove_agent(s, orca_sim_agent_at(s, 1)) == ORCA_OK);
    ENSURE(orca_sim_step(s, 0.25) == ORCA_OK);
    /* the largest dt: everyone moving leaves, the lowest index is named */
    ENSURE(orca_sim_step(t, ORCA_TIME_MAX) == ORCA_ERR_LIMIT);
    ENSURE(strstr(orca_sim_last_error(t), "agent 0 (slot 0) would move") != NULL);
    ENSURE(orca_sim_hash(t) == h);
    /* agents that do not move may take any step */
    for (int i = 0; i < 2; ++i) {
        ENSURE(orca_agent_set_velocity(t, orca_sim_agent_at(t, i), vec(0, 0)) == ORCA_OK);
        ENSURE(orca_agent_set_preferred_velocity(t, orca_sim_agent_at(t, i), vec(0, 0)) ==
               ORCA_OK);
    }
    ENSURE(orca_sim_step(t, ORCA_TIME_MAX) == ORCA_OK);
    free(snap);
    orca_sim_destroy(s);
    orca_sim_destroy(t);
    return 0;
}

/* Little-endian fields and the FNV-1a checksum of a snapshot (docs/determinism.md). */
static void put32(unsigned char *p, uint32_t v)
{
    for (int b = 0; b < 4; ++b) {
        p[b] = (unsigned char)(v >> (8 * b));
    }
}

static void seal(unsigned char *p, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k + 8 < size + 0 && k < size - 8; ++k) {
        h ^= p[k];
        h *= 0x100000001b3ull;
    }
    for (int b = 0; b < 8; ++b) {
        p[size - 8 + (size_t)b] = (unsigned char)(h >> (8 * b));
    }
}

/* A 56-byte snapshot whose header claims 2^30 agents (or 2^28 segments) with a valid
 * checksum: the size computation would wrap on a 32-bit machine; it is refused everywhere. */
static int test_reproducer_snapshot_counts(void)
{
    orca_sim *s = NULL;
    ENSURE(orca_sim_create(NULL, &s) == ORCA_OK);
    ENSURE(add(s, at(1, 2)) == ORCA_OK);
    uint64_t h = orca_sim_hash(s);
    static const uint32_t counts[][4] = {
        {1u << 30, 1u << 30, 0, 0},          {0, 0, 1u << 28, 1u << 28},
        {1u << 30, 1u << 30, 1u << 28, 1u << 28}, {0, 0x2aaaaaabu, 0, 0},
        {0, 1u << 30, 0, 1u << 28},
    };
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        unsigned char b[56];
        memset(b, 0, sizeof b);
        memcpy(b, "ORCASNAP", 8);
        put32(b + 8, 1);                 /* version */
        put32(b + 20, counts[c][0]);     /* agents */
        put32(b + 24, counts[c][1]);     /* agent slots */
        put32(b + 28, 0xffffffffu);      /* free head -1 */
        put32(b + 32, counts[c][2]);     /* segments */
        put32(b + 36, counts[c][3]);     /* segment slots */
        put32(b + 40, 0xffffffffu);
        seal(b, sizeof b);
        orca_status st = orca_sim_load(s, b, sizeof b);
        ENSURE_MSG(st == ORCA_ERR_FORMAT, "case %zu: %s (%s)", c, orca_status_name(st),
                   orca_sim_last_error(s));
        ENSURE(orca_sim_hash(s) == h);
    }
    orca_sim_destroy(s);
    return 0;
}

/* The step's check itself (the step evaluates the same predicate): each failing part is
 * classified, at the edges of each comparison. */
static int test_step_check_kinds(void)
{
    const double nan = NAN, inf = INFINITY, lim = ORCA_COORD_LIMIT;
    const orca_vec2 o = vec(0, 0);
    ENSURE(orca_step_result_kind(vec(2, 0), o, o, 2, 1) == ORCA_STEP_RESULT_OK);
    ENSURE(orca_step_result_kind(vec(nan, 0), o, o, 2, 1) == ORCA_STEP_RESULT_NOT_FINITE);
    ENSURE(orca_step_result_kind(vec(0, inf), o, o, 2, 1) == ORCA_STEP_RESULT_NOT_FINITE);
    ENSURE(orca_step_result_kind(vec(-inf, nan), o, o, 2, 1) == ORCA_STEP_RESULT_NOT_FINITE);
    /* speed: R = 2, v0 = 0: v.v may exceed 4 by 4 * 2^-40 */
    double edge = sqrt(4 + 4 * 0x1p-40);
    ENSURE(edge * edge <= 4 + 4 * 0x1p-40);
    ENSURE(orca_step_result_kind(vec(edge, 0), o, o, 2, 1) == ORCA_STEP_RESULT_OK);
    ENSURE(orca_step_result_kind(vec(nextafter(edge, 3), 0), o, o, 2, 1) ==
           ORCA_STEP_RESULT_TOO_FAST);
    ENSURE(orca_step_result_kind(vec(1e-300, 0), o, o, 0, 1) == ORCA_STEP_RESULT_OK);
    ENSURE(orca_step_result_kind(vec(1e-150, 0), o, o, 0, 1) == ORCA_STEP_RESULT_TOO_FAST);
    /* the start-of-step speed widens the rounding: v0 = 2^20 allows v.v up to 4 + 2^-40 (4 + 2^40) */
    ENSURE(orca_step_result_kind(vec(1.4, 0), vec(0x1p20, 0), o, 1, 1) == ORCA_STEP_RESULT_OK);
    ENSURE(orca_step_result_kind(vec(1.5, 0), vec(0x1p20, 0), o, 1, 1) ==
           ORCA_STEP_RESULT_TOO_FAST);
    /* position: p + v*dt must stay below 2^21 in magnitude */
    ENSURE(orca_step_result_kind(vec(1, 0), o, vec(nextafter(lim, 0) - 1, 0), 2, 1) ==
           ORCA_STEP_RESULT_OK);
    ENSURE(orca_step_result_kind(vec(1, 0), o, vec(lim - 1, 0), 2, 1) ==
           ORCA_STEP_RESULT_LEAVES);
    ENSURE(orca_step_result_kind(vec(0, -2), o, vec(0, 1 - lim), 2, 1) ==
           ORCA_STEP_RESULT_LEAVES);
    ENSURE(orca_step_result_kind(vec(0, -2), o, vec(0, 1 - lim), 2, 0.25) ==
           ORCA_STEP_RESULT_OK);
    /* too fast and leaving: the position is named (it is what a user can act on) */
    ENSURE(orca_step_result_kind(vec(1e9, 0), o, o, 2, 1) == ORCA_STEP_RESULT_LEAVES);
    ENSURE(orca_step_result_kind(vec(1e5, 0), o, o, 2, 1) == ORCA_STEP_RESULT_TOO_FAST);
    return 0;
}

/* The built-in scenes' largest agent counts (docs/scenarios.md): the geometry at the maximum
 * stays below 2^21 and one more agent would not; one more is refused before anything is
 * built. */
static int test_builtin_maxima(void)
{
    const double two_pi = 0x1.921fb54442d18p+2, lim = ORCA_COORD_LIMIT;
    const int circle = 2196132, wallgap = 1258287, corridor = 1677675;
    /* circle: agent 0 starts at (R, 0), R = (n * 6) / 2 pi */
    ENSURE(((double)circle * 6.0) / two_pi < lim);
    ENSURE(((double)(circle + 1) * 6.0) / two_pi >= lim);
    /* wallgap: the last goal column is at 10 + 5 * floor((n - 1) / 3) */
    ENSURE(10.0 + 5.0 * (double)((wallgap - 1) / 3) < lim);
    ENSURE(10.0 + 5.0 * (double)(wallgap / 3) >= lim);
    /* corridor: the walls end at 20 + 5 * floor(n / 4) + 40 (n = 4 columns + 3 rounds down) */
    ENSURE(60.0 + 5.0 * (double)(corridor / 4) < lim);
    ENSURE(60.0 + 5.0 * (double)((corridor + 1) / 4) >= lim);
    const int maxima[ORCA_SCENE_COUNT] = {circle, 4000000, wallgap, corridor, 4000000};
    for (int k = 0; k < ORCA_SCENE_COUNT; ++k) {
        orca_scenario *sc = NULL;
        orca_status st = orca_scenario_create_builtin((orca_scene_kind)k, maxima[k] + 1, 1, NULL,
                                                      &sc);
        ENSURE_MSG(st == ORCA_ERR_LIMIT && sc == NULL, "%s: %s", orca_scene_name(k),
                   orca_status_name(st));
        char text[96];
        snprintf(text, sizeof text, "at most %d for scene %s", maxima[k], orca_scene_name(k));
        ENSURE_MSG(strstr(orca_scenario_last_error(NULL), text) != NULL, "%s",
                   orca_scenario_last_error(NULL));
    }
    return 0;
}

/* The scenario layer's own values: its dt, a goal's preferred speed and a fixed velocity. */
static int test_scenario_ranges(void)
{
    orca_scenario *sc = NULL;
    const double bad_dt[] = {nextafter(ORCA_TIME_MIN, 0), nextafter(ORCA_TIME_MAX, INFINITY),
                             0.0, 1e300, NAN};
    for (int k = 0; k < 5; ++k) {
        ENSURE(orca_scenario_create(NULL, bad_dt[k], 1, &sc) == ORCA_ERR_ARGUMENT && !sc);
        ENSURE(strstr(orca_scenario_last_error(NULL), "dt must be in [2^-30, 2^30] s") != NULL);
    }
    ENSURE(orca_scenario_create(NULL, ORCA_TIME_MAX, 1, &sc) == ORCA_OK);
    orca_scenario_destroy(sc);
    ENSURE(orca_scenario_create(NULL, ORCA_TIME_MIN, 1, &sc) == ORCA_OK);
    orca_agent_def d = at(0, 0);
    orca_goal g = {ORCA_GOAL_POINT, {10, 0}, nextafter(ORCA_SPEED_MAX, INFINITY), 0};
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "preferred_speed must be in [0, 2^30]") != NULL);
    g.preferred_speed = -0.5;
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    g.kind = ORCA_GOAL_VELOCITY;
    g.target = vec(0, -nextafter(ORCA_VELOCITY_LIMIT, INFINITY));
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "goal velocity must be finite") != NULL);
    ENSURE(orca_sim_agent_count(orca_scenario_sim(sc)) == 0);
    /* the edges are accepted, and the rule's preferred velocities stay within the range */
    g.target = vec(ORCA_VELOCITY_LIMIT, -ORCA_VELOCITY_LIMIT);
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    g.kind = ORCA_GOAL_POINT;
    g.target = vec(-nextafter(ORCA_COORD_LIMIT, 0), 5);
    g.preferred_speed = ORCA_SPEED_MAX;
    d.position = vec(1e6, 2e6);
    d.max_speed = ORCA_SPEED_MAX;
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    orca_scenario_destroy(sc);
    return 0;
}

/* Every status has its enumerator's name; the version; two neutral calls. */
static int test_status_names(void)
{
    static const struct {
        orca_status st;
        const char *name;
    } names[] = {{ORCA_OK, "ORCA_OK"},
                 {ORCA_ERR_ARGUMENT, "ORCA_ERR_ARGUMENT"},
                 {ORCA_ERR_NULL, "ORCA_ERR_NULL"},
                 {ORCA_ERR_MEMORY, "ORCA_ERR_MEMORY"},
                 {ORCA_ERR_STALE, "ORCA_ERR_STALE"},
                 {ORCA_ERR_FORMAT, "ORCA_ERR_FORMAT"},
                 {ORCA_ERR_LIMIT, "ORCA_ERR_LIMIT"},
                 {ORCA_ERR_IO, "ORCA_ERR_IO"},
                 {ORCA_ERR_FOREIGN, "ORCA_ERR_FOREIGN"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
        ENSURE(strcmp(orca_status_name(names[k].st), names[k].name) == 0);
    }
    ENSURE(strcmp(orca_status_name(-99), "unknown status") == 0);
    ENSURE(strcmp(orca_status_name(1), "unknown status") == 0);
    /* the version: the library's string is made of the headers' three numbers (CMake checks
     * project()'s version against them) */
    char version[40];
    snprintf(version, sizeof version, "%d.%d.%d", ORCA_VERSION_MAJOR, ORCA_VERSION_MINOR,
             ORCA_VERSION_PATCH);
    ENSURE(strcmp(orca_version(), version) == 0);
    ENSURE(strcmp(orca_version(), ORCA_VERSION_STRING) == 0);
    ENSURE(strcmp(ORCA_VERSION_STRING, "0.3.0") == 0);
    ENSURE(ORCA_VERSION_NUMBER == 3000);
    /* a tiny negative turn rounds up to a whole turn and is reduced to 0: sine +0, cosine 1 */
    double sn = -1, cs = -1;
    orca_sincos_turns(-1e-20, &sn, &cs);
    ENSURE(sn == 0 && !signbit(sn) && cs == 1);
    ENSURE(orca_scenario_agent_goal(NULL, 0, NULL, NULL) == ORCA_ERR_NULL);
    return 0;
}

/* orca_sim_swap_preferred_velocities checks its values with a bit-pattern test: each edge of
 * the range, NaNs of both signs and the infinities, at several indices (the lowest bad one is
 * named; 20,000 agents split the pass over two workers); a refusal restores both arrays. */
static int test_swap_edges(void)
{
    const double L = ORCA_VELOCITY_LIMIT;
    const struct {
        double x;
        int ok;
    } values[] = {{L, 1},          {-L, 1},        {nextafter(L, INFINITY), 0},
                  {-nextafter(L, INFINITY), 0}, {NAN, 0}, {-NAN, 0},
                  {INFINITY, 0},   {-INFINITY, 0}, {1.7976931348623157e308, 0},
                  {0.0, 1},        {-0.0, 1},      {4.9406564584124654e-324, 1},
                  {nextafter(L, 0), 1}};
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = 2;
    orca_sim *s = NULL;
    ENSURE(orca_sim_create(&def, &s) == ORCA_OK);
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        ENSURE(add(s, at((double)(i % 200) * 4.0, (double)(i / 200) * 4.0)) == ORCA_OK);
    }
    orca_vec2 *v = malloc((size_t)n * sizeof *v), *orig = malloc((size_t)n * sizeof *orig);
    orca_vec2 *passed = malloc((size_t)n * sizeof *passed);
    ENSURE(v && orig && passed);
    for (int i = 0; i < n; ++i) {
        orig[i] = vec(0.5 * (i % 7), -0.25 * (i % 5));
    }
    const int where[] = {0, 3, 9999, 10000, n - 1};
    for (size_t c = 0; c < sizeof values / sizeof values[0]; ++c) {
        for (size_t w = 0; w < sizeof where / sizeof where[0]; ++w) {
            for (int comp = 0; comp < 2; ++comp) {
                memcpy(v, orig, (size_t)n * sizeof *v);
                if (comp) {
                    v[where[w]].y = values[c].x;
                } else {
                    v[where[w]].x = values[c].x;
                }
                if (!values[c].ok && w + 1 < sizeof where / sizeof where[0]) {
                    v[n - 1].y = NAN; /* a later bad value: the lowest index is named */
                }
                uint64_t h = orca_sim_hash(s);
                memcpy(passed, v, (size_t)n * sizeof *v);
                orca_status st = orca_sim_swap_preferred_velocities(s, v, n);
                if (values[c].ok) {
                    ENSURE_MSG(st == ORCA_OK, "%.17g refused", values[c].x);
                    /* put the previous values back */
                    ENSURE(orca_sim_swap_preferred_velocities(s, v, n) == ORCA_OK);
                    ENSURE(orca_sim_hash(s) == h);
                    continue;
                }
                ENSURE_MSG(st == ORCA_ERR_ARGUMENT, "%.17g accepted", values[c].x);
                char text[48];
                snprintf(text, sizeof text, "of agent %d must be", where[w]);
                ENSURE_MSG(strstr(orca_sim_last_error(s), text) != NULL, "%s",
                           orca_sim_last_error(s));
                ENSURE(orca_sim_hash(s) == h);
                ENSURE(memcmp(v, passed, (size_t)n * sizeof *v) == 0); /* as they were */
            }
        }
    }
    free(v);
    free(orig);
    free(passed);
    orca_sim_destroy(s);
    return 0;
}

/* The rule of test_step_rule: the values of rule_values by index; NaN in x means "keep". */
typedef struct rule_table {
    const orca_vec2 *values;
    int calls_after; /* set by the rule when called for an index >= this many agents */
    int count;
} rule_table;

static void table_rule(void *context, const int32_t *index, int32_t first,
                       const orca_vec2 *position, int count, const orca_vec2 *current,
                       orca_vec2 *out)
{
    (void)position;
    rule_table *t = context;
    for (int j = 0; j < count; ++j) {
        int32_t i = index ? index[j] : first + j;
        if (i < 0 || i >= t->count) {
            t->calls_after = 1;
            continue;
        }
        uint64_t bits;
        double x = t->values[i].x;
        memcpy(&bits, &x, sizeof bits);
        /* "keep": this one NaN pattern (other NaNs are values to refuse) */
        out[i] = bits == 0x7ff4000000000001ull ? current[i] : t->values[i];
    }
}

/* orca_sim_step_rule (the scenario's step): with every rule value in range it gives the bits
 * of setting each preferred velocity and calling orca_sim_step, agents the rule leaves keep
 * theirs, and the results do not depend on the worker count; a value just outside the range
 * (each edge, NaN, infinities, the largest double) at any index refuses the step, names the
 * lowest bad index and leaves everything as it was (the preferred velocities included). */
/* One step of s[0] and s[1] with the table's rule against s[2], the reference: each value
 * set with orca_agent_set_preferred_velocity (none where the table keeps), then the plain
 * step; the same hash. */
static int rule_steps_agree(orca_sim *s[3], rule_table *t)
{
    for (int i = 0; i < t->count; ++i) {
        if (t->values[i].x != t->values[i].x) {
            continue; /* kept */
        }
        ENSURE(orca_agent_set_preferred_velocity(s[2], orca_sim_agent_at(s[2], i),
                                                 t->values[i]) == ORCA_OK);
    }
    ENSURE(orca_sim_step(s[2], 0.25) == ORCA_OK);
    for (int k = 0; k < 2; ++k) {
        ENSURE(orca_sim_step_rule(s[k], 0.25, table_rule, t) == ORCA_OK);
        ENSURE(orca_sim_hash(s[k]) == orca_sim_hash(s[2]));
    }
    return 0;
}

static int step_rule_case(int n)
{
    const double L = ORCA_VELOCITY_LIMIT;
    const uint64_t keep_bits = 0x7ff4000000000001ull;
    double keep;
    memcpy(&keep, &keep_bits, sizeof keep);
    orca_vec2 *values = malloc((size_t)n * sizeof *values);
    ENSURE(values);
    for (int i = 0; i < n; ++i) {
        values[i] = i % 11 == 0 ? vec(keep, 0) : vec(0.25 * (i % 9) - 1, 0.5 - 0.125 * (i % 7));
    }
    values[5] = vec(L, -L); /* the edges themselves are accepted */
    orca_sim *s[3] = {NULL, NULL, NULL};
    int workers[3] = {1, 3, 1};
    for (int k = 0; k < 3; ++k) {
        orca_sim_def def = orca_sim_def_default();
        def.worker_count = workers[k];
        ENSURE(orca_sim_create(&def, &s[k]) == ORCA_OK);
        for (int i = 0; i < n; ++i) {
            orca_agent_def d = at((double)(i % 200) * 2.5, (double)(i / 200) * 2.5);
            d.preferred_velocity = vec(0.1 * (i % 3), -0.2);
            d.max_speed = 2;
            ENSURE(add(s[k], d) == ORCA_OK);
        }
    }
    rule_table t = {values, 0, n};
    for (int step = 0; step < 3; ++step) {
        ENSURE(rule_steps_agree(s, &t) == 0);
        for (int i = 0; i < n; i += 97) {
            orca_agent_def a, b;
            ENSURE(orca_agent_get(s[0], orca_sim_agent_at(s[0], i), &a) == ORCA_OK);
            ENSURE(orca_agent_get(s[2], orca_sim_agent_at(s[2], i), &b) == ORCA_OK);
            ENSURE_BITS(a.preferred_velocity.x, b.preferred_velocity.x);
            ENSURE_BITS(a.preferred_velocity.y, b.preferred_velocity.y);
            ENSURE_BITS(a.position.x, b.position.x);
            ENSURE_BITS(a.velocity.y, b.velocity.y);
        }
    }
    ENSURE(!t.calls_after);
    /* refusals: one bad value (and a later one) at several indices, both components */
    const double bad[] = {nextafter(L, INFINITY), -nextafter(L, INFINITY), NAN, -NAN,
                          INFINITY, -INFINITY, 1.7976931348623157e308};
    const int where[] = {0, 1, 1499, 2998};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
        for (size_t w = 0; w < sizeof where / sizeof where[0]; ++w) {
            for (int k = 0; k < 2; ++k) {
                orca_vec2 save = values[where[w]], save_last = values[n - 1];
                orca_vec2 q = vec(0.5, 0.5); /* not "keep" */
                if ((b + w) % 2) {
                    q.y = bad[b];
                } else {
                    q.x = bad[b];
                }
                values[where[w]] = q;
                values[n - 1] = vec(0, NAN); /* a later bad value: the lowest is named */
                uint64_t h = orca_sim_hash(s[k]);
                orca_agent_def before;
                ENSURE(orca_agent_get(s[k], orca_sim_agent_at(s[k], where[w]), &before) == ORCA_OK);
                ENSURE(orca_sim_step_rule(s[k], 0.25, table_rule, &t) == ORCA_ERR_ARGUMENT);
                char text[48];
                snprintf(text, sizeof text, "of agent %d must be", where[w]);
                ENSURE_MSG(strstr(orca_sim_last_error(s[k]), text) != NULL, "%s",
                           orca_sim_last_error(s[k]));
                ENSURE(orca_sim_hash(s[k]) == h);
                orca_agent_def after;
                ENSURE(orca_agent_get(s[k], orca_sim_agent_at(s[k], where[w]), &after) == ORCA_OK);
                ENSURE(memcmp(&before.position, &after.position, sizeof before.position) == 0);
                ENSURE(memcmp(&before.velocity, &after.velocity, sizeof before.velocity) == 0);
                ENSURE(memcmp(&before.preferred_velocity, &after.preferred_velocity,
                              sizeof before.preferred_velocity) == 0);
                values[where[w]] = save;
                values[n - 1] = save_last;
            }
        }
    }
    /* after the refusals the simulations still agree with the reference */
    ENSURE(rule_steps_agree(s, &t) == 0);
    /* a step refused for its result (an agent would leave the coordinate range) with the
     * rule: positions, velocities and preferred velocities stay */
    orca_agent_def far = at(ORCA_COORD_LIMIT - 1, 0);
    far.max_speed = 100;
    far.preferred_velocity = vec(100, 0);
    ENSURE(add(s[0], far) == ORCA_OK);
    t.count = n + 1;
    orca_vec2 *more = realloc(values, (size_t)(n + 1) * sizeof *more);
    ENSURE(more);
    values = more;
    t.values = values;
    values[n] = vec(100, 0);
    uint64_t h = orca_sim_hash(s[0]);
    ENSURE(orca_sim_step_rule(s[0], 0.25, table_rule, &t) == ORCA_ERR_LIMIT);
    ENSURE(orca_sim_hash(s[0]) == h);
    for (int k = 0; k < 3; ++k) {
        orca_sim_destroy(s[k]);
    }
    free(values);
    return 0;
}

/* Below and above the size from which the step runs the rule in a pass of its own (in index
 * order) instead of inside its pass over the agents (step.c, STEP_FUSE_MAX = 32,768): the
 * same results either way. */
static int test_step_rule(void)
{
    return step_rule_case(3000) || step_rule_case(40000);
}

const orca_test ORCA_TESTS[] = {
    {"status_names", test_status_names},
    {"swap_edges", test_swap_edges},
    {"step_rule", test_step_rule},
    {"scenario_ranges", test_scenario_ranges},
    {"builtin_maxima", test_builtin_maxima},
    {"reproducer_huge_horizon", test_reproducer_huge_horizon},
    {"reproducer_huge_values", test_reproducer_huge_values},
    {"reproducer_speed_limit", test_reproducer_speed_limit},
    {"reproducer_subnormal_speed", test_reproducer_subnormal_speed},
    {"reproducer_tiny_vectors", test_reproducer_tiny_vectors},
    {"reproducer_coordinate_limit", test_reproducer_coordinate_limit},
    {"reproducer_snapshot_counts", test_reproducer_snapshot_counts},
    {"step_check_kinds", test_step_check_kinds},
    {"sweep_accepted_ranges", test_sweep_accepted_ranges},
    {0, 0},
};
