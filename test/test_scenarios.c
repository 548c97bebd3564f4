/* SPDX-License-Identifier: MIT */
/* Scenarios (docs/scenarios.md): the deterministic sine/cosine, the preferred-velocity rule
 * against its documented formula, error handling, the built-in scenes' geometry, the checked
 * scenes (docs/scenarios.md, "The checks") run to arrival with bounded overlap and no wall
 * crossed, and independence of the worker count. The observed figures are printed for the
 * task notes. */
#include "clock.h"
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <orca/scenario.h>

#include "scenario_rule.h"

/* ------------------------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------------------------- */

static double now_seconds(void) { return test_seconds(); }

/* The documented hash, written again here from docs/scenarios.md. */
static uint64_t doc_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const uint64_t G = 0x9E3779B97F4A7C15ull;

/* The documented rule (docs/scenarios.md, "The rule"). */
static orca_vec2 doc_rule(const orca_goal *goal, orca_vec2 p, double dt, uint64_t seed,
                          uint64_t k, uint64_t key)
{
    orca_vec2 pref = {0.0, 0.0};
    if (goal->kind == ORCA_GOAL_VELOCITY) {
        return goal->target;
    }
    if (goal->kind == ORCA_GOAL_NONE) {
        return pref;
    }
    double S = goal->preferred_speed;
    orca_vec2 to = {goal->target.x - p.x, goal->target.y - p.y};
    double dist = sqrt(to.x * to.x + to.y * to.y);
    if (dist > S * dt) {
        pref.x = (to.x / dist) * S;
        pref.y = (to.y / dist) * S;
    } else {
        pref.x = to.x / dt;
        pref.y = to.y / dt;
    }
    uint64_t h1 = doc_mix64(doc_mix64(doc_mix64(seed + G) + k) + key);
    uint64_t h2 = doc_mix64(h1 + G);
    double u1 = (double)(h1 >> 11) * 0x1.0p-53;
    double u2 = (double)(h2 >> 11) * 0x1.0p-53;
    double a = 1e-4 * S;
    pref.x = pref.x + (2.0 * u1 - 1.0) * a;
    pref.y = pref.y + (2.0 * u2 - 1.0) * a;
    return pref;
}

static orca_agent_def far_agent(double x, double y)
{
    orca_agent_def d = orca_agent_def_default();
    d.position.x = x;
    d.position.y = y;
    return d;
}

/* Do the closed segments p-q and a-b intersect (touching counts)? Orientation tests in
 * doubles; the test only needs to be conservative. */
static double orient(orca_vec2 a, orca_vec2 b, orca_vec2 c)
{
    return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

static int on_segment(orca_vec2 a, orca_vec2 b, orca_vec2 c)
{
    return fmin(a.x, b.x) <= c.x && c.x <= fmax(a.x, b.x) && fmin(a.y, b.y) <= c.y &&
           c.y <= fmax(a.y, b.y);
}

static int segments_intersect(orca_vec2 p, orca_vec2 q, orca_vec2 a, orca_vec2 b)
{
    double d1 = orient(a, b, p), d2 = orient(a, b, q);
    double d3 = orient(p, q, a), d4 = orient(p, q, b);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) {
        return 1;
    }
    if (d1 == 0 && on_segment(a, b, p)) return 1;
    if (d2 == 0 && on_segment(a, b, q)) return 1;
    if (d3 == 0 && on_segment(p, q, a)) return 1;
    if (d4 == 0 && on_segment(p, q, b)) return 1;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * orca_sincos_turns
 * ---------------------------------------------------------------------------------------- */

/* Reference (test only, libm allowed): reduce exactly to the nearest quarter turn q and
 * r = t - q/4, |r| <= 1/8, then long-double sinl/cosl of 2 pi r (accurate even where long
 * double is binary64, since |2 pi r| <= pi/4) and an exact quadrant rotation. */
static void ref_sincos(double t, long double *s, long double *c)
{
    double q = nearbyint(t * 4.0);
    double r = t - q * 0.25;
    const long double two_pi = 6.283185307179586476925286766559L;
    long double sr = sinl(two_pi * (long double)r), cr = cosl(two_pi * (long double)r);
    long long k = (long long)fmod(q, 4.0);
    if (k < 0) {
        k += 4;
    }
    switch (k) {
    case 0: *s = sr; *c = cr; break;
    case 1: *s = cr; *c = -sr; break;
    case 2: *s = -sr; *c = -cr; break;
    default: *s = -cr; *c = sr; break;
    }
}

static int test_sincos_accuracy(void)
{
    test_rng rng = {42};
    double max_err = 0.0, worst = 0.0;
    for (int i = 0; i < 2000000; ++i) {
        double t;
        if (i < 400000) {
            t = (double)i / 400000.0; /* a dense sweep of one turn */
        } else if (i < 1200000) {
            t = test_rng_uniform(&rng, -4.0, 4.0);
        } else {
            t = test_rng_uniform(&rng, -1048576.0, 1048576.0); /* |turns| < 2^20 */
        }
        double s, c;
        orca_sincos_turns(t, &s, &c);
        long double rs, rc;
        ref_sincos(t, &rs, &rc);
        double es = (double)fabsl((long double)s - rs);
        double ec = (double)fabsl((long double)c - rc);
        if (es > max_err) {
            max_err = es;
            worst = t;
        }
        if (ec > max_err) {
            max_err = ec;
            worst = t;
        }
    }
    printf("    sincos_turns: max abs error %.3g (at turns %.17g) over 2e6 points\n", max_err,
           worst);
    ENSURE_MSG(max_err < 4e-16, "max error %.3g at %.17g", max_err, worst);
    return 0;
}

static int test_sincos_exact(void)
{
    static const struct {
        double t, s, c;
    } cases[] = {
        {0.0, 0.0, 1.0},   {0.25, 1.0, 0.0},  {0.5, 0.0, -1.0},   {0.75, -1.0, 0.0},
        {1.0, 0.0, 1.0},   {-0.25, -1.0, 0.0}, {-0.5, 0.0, -1.0}, {-0.75, 1.0, 0.0},
        {-1.0, 0.0, 1.0},  {3.25, 1.0, 0.0},  {-7.5, 0.0, -1.0},  {1048576.75, -1.0, 0.0},
        {-0.0, 0.0, 1.0},  {0x1.0p60, 0.0, 1.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        double s, c;
        orca_sincos_turns(cases[i].t, &s, &c);
        ENSURE_MSG(test_same_bits(s, cases[i].s) && test_same_bits(c, cases[i].c),
                   "turns %.17g: got (%a, %a), want (%a, %a)", cases[i].t, s, c, cases[i].s,
                   cases[i].c);
    }
    double s, c;
    orca_sincos_turns(NAN, &s, &c);
    ENSURE(s != s && c != c);
    orca_sincos_turns(INFINITY, &s, &c);
    ENSURE(s != s && c != c);
    orca_sincos_turns(0.125, &s, NULL); /* either output may be NULL */
    orca_sincos_turns(0.125, NULL, &c);
    ENSURE_NEAR(s, sqrt(0.5), 2e-16);
    ENSURE_NEAR(c, sqrt(0.5), 2e-16);
    /* odd symmetry of the sine: the reduction is exact, so sin(-t) == -sin(t) except where
     * t and -t reduce differently; check a range where both reduce to the mirrored r */
    for (int i = 1; i < 1000; ++i) {
        double t = (double)i / 8192.0;
        double s1, c1, s2, c2;
        orca_sincos_turns(t, &s1, &c1);
        orca_sincos_turns(-t, &s2, &c2);
        ENSURE_BITS(s1, -s2);
        ENSURE_BITS(c1, c2);
    }
    return 0;
}

/* The bits of 100000 values, hashed: the function uses only + - * / on binary64, so this is
 * the same on every conforming platform. */
static int test_sincos_bits(void)
{
    uint64_t h = 0;
    for (int i = 0; i < 100000; ++i) {
        double t = ((double)i - 50000.0) / 997.0;
        double s, c;
        orca_sincos_turns(t, &s, &c);
        uint64_t bs, bc;
        memcpy(&bs, &s, 8);
        memcpy(&bc, &c, 8);
        h = doc_mix64(h ^ bs) + bc;
    }
    printf("    sincos_turns bits hash: 0x%016llx\n", (unsigned long long)h);
    ENSURE(h == 0xd633ca404f86250full);
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * The rule
 * ---------------------------------------------------------------------------------------- */

static int test_hash_reference_vector(void)
{
    /* splitmix64 from state 0: the published first outputs. The scenario hash starts with
     * mix(seed + G), which for seed 0 is exactly this first output. */
    ENSURE(doc_mix64(G) == 0xE220A8397B1DCDAFull);
    ENSURE(doc_mix64(2 * G) == 0x6E789E6AA1B965F4ull);
    return 0;
}

static int test_rule_hand_cases(void)
{
    const double dt = 0.25;
    const uint64_t seed = 12345;
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, dt, seed, &sc) == ORCA_OK);
    ENSURE(strcmp(orca_scenario_name(sc), "custom") == 0);
    ENSURE(orca_scenario_dt(sc) == dt);
    ENSURE(orca_scenario_seed(sc) == seed);

    /* Agents 100 m apart: nobody is anybody's neighbour. */
    orca_goal goals[6] = {
        {ORCA_GOAL_POINT, {10.0, 5.0}, 1.3, 0},         /* far: (to / dist) * S */
        {ORCA_GOAL_POINT, {100.1, 0.05}, 1.0, 0},       /* near: to / dt */
        {ORCA_GOAL_VELOCITY, {0.3, -0.7}, 5.0, 0},      /* fixed velocity, no perturbation */
        {ORCA_GOAL_NONE, {9.0, 9.0}, 1.0, 0},           /* zero */
        {ORCA_GOAL_POINT, {250.0, -30.0}, 0.0, 0},      /* speed 0: zero plus zero perturbation */
        {ORCA_GOAL_POINT, {500.0, 0.0}, 2.0, 0},        /* exactly at the goal */
    };
    orca_agent_id ids[6];
    for (int i = 0; i < 6; ++i) {
        orca_agent_def d = far_agent(100.0 * (double)i, 0.0);
        ENSURE(orca_scenario_add_agent(sc, &d, &goals[i], &ids[i]) == ORCA_OK);
    }
    orca_sim *sim = orca_scenario_sim(sc);
    for (int step = 0; step < 3; ++step) {
        if (step == 2) {
            /* Removing agent 0 keeps the others' keys (creation ordinals). */
            ENSURE(orca_sim_remove_agent(sim, ids[0]) == ORCA_OK);
        }
        orca_vec2 before[6];
        for (int i = 0; i < 6; ++i) {
            if (step == 2 && i == 0) {
                continue;
            }
            ENSURE(orca_agent_get_position(sim, ids[i], &before[i]) == ORCA_OK);
        }
        uint64_t k = orca_sim_step_count(sim);
        ENSURE(k == (uint64_t)step);
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
        for (int i = 0; i < 6; ++i) {
            if (step == 2 && i == 0) {
                continue;
            }
            orca_agent_def d;
            ENSURE(orca_agent_get(sim, ids[i], &d) == ORCA_OK);
            orca_vec2 want = doc_rule(&goals[i], before[i], dt, seed, k, (uint64_t)i);
            ENSURE_MSG(test_same_bits(d.preferred_velocity.x, want.x) &&
                           test_same_bits(d.preferred_velocity.y, want.y),
                       "step %d agent %d: pref (%a, %a), documented (%a, %a)", step, i,
                       d.preferred_velocity.x, d.preferred_velocity.y, want.x, want.y);
        }
    }
    /* A few facts about the values themselves. */
    orca_agent_def d;
    ENSURE(orca_agent_get(sim, ids[2], &d) == ORCA_OK);
    ENSURE_BITS(d.preferred_velocity.x, 0.3);
    ENSURE_BITS(d.preferred_velocity.y, -0.7);
    ENSURE(orca_agent_get(sim, ids[3], &d) == ORCA_OK);
    ENSURE_BITS(d.preferred_velocity.x, 0.0);
    ENSURE_BITS(d.preferred_velocity.y, 0.0);
    ENSURE(orca_agent_get(sim, ids[1], &d) == ORCA_OK);
    ENSURE(fabs(d.preferred_velocity.x) <= 0.1 / dt + 1e-4); /* near: to / dt, small */
    ENSURE(orca_agent_get(sim, ids[5], &d) == ORCA_OK);
    ENSURE(fabs(d.preferred_velocity.x) <= 2e-4 && fabs(d.preferred_velocity.y) <= 2e-4);

    /* Arrival: agents 1 (0.11 m from its goal), 2, 3 (not POINT), 5 (at the goal); agent 4
     * (speed 0, far away) never arrives. */
    ENSURE(orca_scenario_arrived_count(sc) == 4);
    ENSURE(orca_scenario_all_arrived_step(sc) == -1);
    orca_scenario_destroy(sc);
    return 0;
}

/* The worked example of docs/scenarios.md, through the public API: seed 12345, step 7,
 * key 3, position (1.25, -0.5), goal (10, 5), S = 1.3, dt = 0.25. */
static int test_rule_worked_example(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 12345, &sc) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    orca_agent_id id[4];
    for (int i = 0; i < 4; ++i) {
        orca_agent_def d = far_agent(-300.0 - 100.0 * (double)i, 0.0);
        orca_goal g = {ORCA_GOAL_NONE, {0.0, 0.0}, 0.0, 0};
        if (i == 3) {
            g.kind = ORCA_GOAL_POINT;
            g.target.x = 10.0;
            g.target.y = 5.0;
            g.preferred_speed = 1.3;
        }
        ENSURE(orca_scenario_add_agent(sc, &d, &g, &id[i]) == ORCA_OK);
    }
    for (int k = 0; k < 7; ++k) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    ENSURE(orca_sim_step_count(sim) == 7);
    ENSURE(orca_agent_set_position(sim, id[3], (orca_vec2){1.25, -0.5}) == ORCA_OK);
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    orca_agent_def d;
    ENSURE(orca_agent_get(sim, id[3], &d) == ORCA_OK);
    ENSURE_BITS(d.preferred_velocity.x, 0x1.19c6b3df890fcp+0);
    ENSURE_BITS(d.preferred_velocity.y, 0x1.6229c19a37517p-1);
    uint64_t h1 = doc_mix64(doc_mix64(doc_mix64(12345 + G) + 7) + 3);
    ENSURE(h1 == 0xbbc383c02fe81d0aull);
    ENSURE(doc_mix64(h1 + G) == 0x1f53a37cccf3155dull);
    orca_scenario_destroy(sc);
    return 0;
}

static int test_rule_perturbation_spread(void)
{
    /* The perturbation is uniform in [-1e-4 S, 1e-4 S) per component and differs between
     * agents, steps and seeds. */
    const double dt = 0.25;
    double lo = 1.0, hi = -1.0;
    orca_goal g = {ORCA_GOAL_POINT, {1000.0, 0.0}, 1.0, 0};
    for (uint64_t k = 0; k < 2000; ++k) {
        orca_vec2 p = doc_rule(&g, (orca_vec2){0.0, 0.0}, dt, 7, k, 3);
        double e = p.y;
        lo = fmin(lo, e);
        hi = fmax(hi, e);
        ENSURE(e >= -1e-4 && e < 1e-4);
    }
    ENSURE(lo < -0.9e-4 && hi > 0.9e-4);
    orca_vec2 a = doc_rule(&g, (orca_vec2){0, 0}, dt, 7, 5, 3);
    orca_vec2 b = doc_rule(&g, (orca_vec2){0, 0}, dt, 8, 5, 3);
    orca_vec2 c = doc_rule(&g, (orca_vec2){0, 0}, dt, 7, 5, 4);
    ENSURE(a.y != b.y && a.y != c.y);
    return 0;
}

static int test_foreign_agents(void)
{
    /* An agent added to the simulation directly keeps the preferred velocity its owner set,
     * counts as arrived and has no goal. */
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.5, 1, &sc) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    orca_agent_def d = far_agent(0.0, 0.0);
    d.preferred_velocity.x = 0.5;
    orca_agent_id id;
    ENSURE(orca_sim_add_agent(sim, &d, &id) == ORCA_OK);
    d = far_agent(100.0, 0.0);
    orca_goal g = {ORCA_GOAL_POINT, {200.0, 0.0}, 1.0, 0};
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    ENSURE(orca_agent_get(sim, id, &d) == ORCA_OK);
    ENSURE_BITS(d.preferred_velocity.x, 0.5);
    ENSURE(orca_scenario_arrived_count(sc) == 1);
    orca_goal out;
    orca_vec2 start;
    ENSURE(orca_scenario_agent_goal(sc, 0, &out, &start) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "index 0") != NULL);
    ENSURE(orca_scenario_agent_goal(sc, 1, &out, &start) == ORCA_OK);
    ENSURE(out.kind == ORCA_GOAL_POINT && out.target.x == 200.0 && start.x == 100.0);
    orca_scenario_destroy(sc);
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------------------------- */

static int test_errors(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.0, 1, &sc) == ORCA_ERR_ARGUMENT);
    ENSURE(sc == NULL);
    ENSURE(strstr(orca_scenario_last_error(NULL), "dt") != NULL);
    ENSURE(orca_scenario_create(NULL, NAN, 1, &sc) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_create(NULL, INFINITY, 1, &sc) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_create(NULL, 0.1, 1, NULL) == ORCA_ERR_NULL);
    orca_sim_def bad = orca_sim_def_default();
    bad.worker_count = 0;
    ENSURE(orca_scenario_create(&bad, 0.1, 1, &sc) != ORCA_OK);
    ENSURE(sc == NULL);

    ENSURE(orca_scenario_create_builtin((orca_scene_kind)7, 0, 1, NULL, &sc) ==
           ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(NULL), "7") != NULL);
    ENSURE(orca_scenario_create_builtin(ORCA_SCENE_CIRCLE, -3, 1, NULL, &sc) ==
           ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(NULL), "-3") != NULL);
    ENSURE(orca_scenario_create_builtin(ORCA_SCENE_CIRCLE, 0, 1, NULL, NULL) == ORCA_ERR_NULL);
    ENSURE(sc == NULL);

    ENSURE(orca_scenario_create(NULL, 0.25, 1, &sc) == ORCA_OK);
    orca_agent_def d = far_agent(0.0, 0.0);
    orca_goal g = {ORCA_GOAL_POINT, {NAN, 0.0}, 1.0, 0};
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "nan") != NULL);
    g.target.x = 3e6;
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "3000000") != NULL);
    g.target.x = 1.0;
    g.preferred_speed = -2.0;
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "-2") != NULL);
    g.preferred_speed = 1.0;
    g.kind = (orca_goal_kind)9;
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "9") != NULL);
    g.kind = ORCA_GOAL_VELOCITY;
    g.target.x = INFINITY;
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    g.kind = ORCA_GOAL_POINT;
    g.target.x = 1.0;
    ENSURE(orca_scenario_add_agent(sc, NULL, &g, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_add_agent(sc, &d, NULL, NULL) == ORCA_ERR_NULL);
    d.radius = -1.0; /* refused by the simulation: its message is passed on */
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "radius") != NULL);
    ENSURE(orca_sim_agent_count(orca_scenario_sim(sc)) == 0);

    ENSURE(orca_scenario_set_name(sc, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_set_name(sc, "") == ORCA_ERR_ARGUMENT);
    char longname[100];
    memset(longname, 'x', 99);
    longname[99] = '\0';
    ENSURE(orca_scenario_set_name(sc, longname) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "99") != NULL);
    ENSURE(strcmp(orca_scenario_name(sc), "custom") == 0);
    ENSURE(orca_scenario_set_name(sc, "mine") == ORCA_OK);
    ENSURE(strcmp(orca_scenario_name(sc), "mine") == 0);
    ENSURE(orca_scenario_agent_goal(sc, 0, NULL, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_scenario_agent_goal(sc, -1, NULL, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_scenario_last_error(sc), "-1") != NULL);

    /* An empty scenario: all (zero) agents are arrived at the first step. */
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    ENSURE(orca_scenario_all_arrived_step(sc) == 0);

    /* NULL scenarios are refused or give neutral values. */
    ENSURE(orca_scenario_step(NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_add_agent(NULL, &d, &g, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_set_name(NULL, "x") == ORCA_ERR_NULL);
    ENSURE(orca_scenario_sim(NULL) == NULL);
    ENSURE(orca_scenario_all_arrived_step(NULL) == -1);
    orca_scenario_destroy(NULL);
    orca_scenario_destroy(sc);
    return 0;
}

static int test_names(void)
{
    static const char *names[] = {"circle", "crossing", "wallgap", "corridor", "random"};
    for (int i = 0; i < ORCA_SCENE_COUNT; ++i) {
        ENSURE(strcmp(orca_scene_name((orca_scene_kind)i), names[i]) == 0);
        ENSURE(orca_scene_from_name(names[i]) == i);
    }
    ENSURE(orca_scene_name((orca_scene_kind)5) == NULL);
    ENSURE(orca_scene_name((orca_scene_kind)-1) == NULL);
    ENSURE(orca_scene_from_name("Circle") == -1);
    ENSURE(orca_scene_from_name(NULL) == -1);
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Built-in scenes: geometry
 * ---------------------------------------------------------------------------------------- */

static int scene_count(orca_scene_kind kind, int n)
{
    orca_scenario *sc = NULL;
    if (orca_scenario_create_builtin(kind, n, 1, NULL, &sc) != ORCA_OK) {
        return -1;
    }
    int count = orca_sim_agent_count(orca_scenario_sim(sc));
    orca_scenario_destroy(sc);
    return count;
}

static int test_scene_sizes(void)
{
    ENSURE(scene_count(ORCA_SCENE_CIRCLE, 0) == 100);
    ENSURE(scene_count(ORCA_SCENE_CIRCLE, 7) == 7);
    ENSURE(scene_count(ORCA_SCENE_CROSSING, 0) == 98);
    ENSURE(scene_count(ORCA_SCENE_CROSSING, 100) == 98);
    ENSURE(scene_count(ORCA_SCENE_CROSSING, 127) == 98);
    ENSURE(scene_count(ORCA_SCENE_CROSSING, 128) == 128);
    ENSURE(scene_count(ORCA_SCENE_CROSSING, 1) == 2);
    ENSURE(scene_count(ORCA_SCENE_WALL_GAP, 0) == 40);
    ENSURE(scene_count(ORCA_SCENE_WALL_GAP, 13) == 13);
    ENSURE(scene_count(ORCA_SCENE_CORRIDOR, 0) == 40);
    ENSURE(scene_count(ORCA_SCENE_CORRIDOR, 43) == 40);
    ENSURE(scene_count(ORCA_SCENE_CORRIDOR, 1) == 4);
    ENSURE(scene_count(ORCA_SCENE_RANDOM, 0) == 1000);
    ENSURE(scene_count(ORCA_SCENE_RANDOM, 1) == 1);
    return 0;
}

/* Every scene starts with no two agents overlapping, no agent within its radius of a wall,
 * every start and goal inside the coordinate range, every parameter as documented. */
static int test_scene_geometry(void)
{
    for (int kind = 0; kind < ORCA_SCENE_COUNT; ++kind) {
        static const int sizes[] = {0, 1, 5, 300};
        for (int si = 0; si < 4; ++si) {
            orca_scenario *sc = NULL;
            ENSURE(orca_scenario_create_builtin((orca_scene_kind)kind, sizes[si], 99, NULL,
                                                &sc) == ORCA_OK);
            ENSURE(strcmp(orca_scenario_name(sc), orca_scene_name((orca_scene_kind)kind)) == 0);
            ENSURE(orca_scenario_dt(sc) == 0.25);
            orca_sim *sim = orca_scenario_sim(sc);
            double ao = -1, wo = -1;
            ENSURE(orca_sim_measure_overlap(sim, &ao, &wo) == ORCA_OK);
            ENSURE_MSG(ao == 0.0 && wo == 0.0, "%s n=%d: initial overlap %g, wall %g",
                       orca_scenario_name(sc), sizes[si], ao, wo);
            int n = orca_sim_agent_count(sim);
            for (int i = 0; i < n; ++i) {
                orca_agent_def d;
                orca_goal g;
                orca_vec2 start;
                ENSURE(orca_agent_get(sim, orca_sim_agent_at(sim, i), &d) == ORCA_OK);
                ENSURE(orca_scenario_agent_goal(sc, i, &g, &start) == ORCA_OK);
                ENSURE(g.kind == ORCA_GOAL_POINT &&
                       g.preferred_speed == (kind == ORCA_SCENE_CIRCLE ? 0.75 : 1.0));
                ENSURE(start.x == d.position.x && start.y == d.position.y);
                ENSURE(d.radius == 1.5 && d.max_speed == 2.0 && d.neighbor_dist == 15.0 &&
                       d.max_neighbors == 10 && d.time_horizon == 10.0 &&
                       d.obstacle_time_horizon == 10.0);
                /* goals also keep clear of the walls */
                for (int s = 0; s < orca_sim_segment_count(sim); ++s) {
                    orca_vec2 a, b;
                    ENSURE(orca_segment_get(sim, orca_sim_segment_at(sim, s), &a, &b) ==
                           ORCA_OK);
                    orca_vec2 e = {b.x - a.x, b.y - a.y};
                    orca_vec2 w = {g.target.x - a.x, g.target.y - a.y};
                    double t = (w.x * e.x + w.y * e.y) / (e.x * e.x + e.y * e.y);
                    t = t < 0 ? 0 : t > 1 ? 1 : t;
                    double dx = a.x + e.x * t - g.target.x, dy = a.y + e.y * t - g.target.y;
                    ENSURE(dx * dx + dy * dy > 1.5 * 1.5);
                }
            }
            orca_scenario_destroy(sc);
        }
    }
    return 0;
}

/* The initial states of the default scenes (seed 1), as documented in docs/scenarios.md:
 * the placement uses only + - * / sqrt and integers, so these are the same everywhere. */
static int test_scene_initial_hashes(void)
{
    static const uint64_t want[ORCA_SCENE_COUNT] = {
        0x922cb08072ae8602ull, 0xf96f7d3f5331cdffull, 0xa81a8467161b04adull,
        0x7b69aec04623a0f7ull, 0x7f325805d127ce5full,
    };
    for (int kind = 0; kind < ORCA_SCENE_COUNT; ++kind) {
        orca_scenario *sc = NULL;
        ENSURE(orca_scenario_create_builtin((orca_scene_kind)kind, 0, 1, NULL, &sc) == ORCA_OK);
        uint64_t h = orca_sim_hash(orca_scenario_sim(sc));
        ENSURE_MSG(h == want[kind], "%s: initial hash 0x%016llx, documented 0x%016llx",
                   orca_scenario_name(sc), (unsigned long long)h,
                   (unsigned long long)want[kind]);
        orca_scenario_destroy(sc);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Built-in scenes: running to arrival (docs/scenarios.md, "The checks")
 * ---------------------------------------------------------------------------------------- */

typedef struct scene_run {
    int64_t arrived_step;
    double agent_overlap;
    double wall_overlap;
    uint64_t fallbacks;
    int wall_crossings;
    double seconds;
    int agents;
} scene_run;

static int run_scene(orca_scene_kind kind, int n, uint64_t seed, int workers, int budget,
                     scene_run *out)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create_builtin(kind, n, seed, &def, &sc) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    int count = orca_sim_agent_count(sim);
    int segs = orca_sim_segment_count(sim);
    orca_vec2 *wall = malloc(sizeof *wall * (size_t)(2 * segs + 1));
    orca_vec2 *prev = malloc(sizeof *prev * (size_t)(count + 1));
    ENSURE(wall && prev);
    for (int s = 0; s < segs; ++s) {
        ENSURE(orca_segment_get(sim, orca_sim_segment_at(sim, s), &wall[2 * s],
                                &wall[2 * s + 1]) == ORCA_OK);
    }
    memset(out, 0, sizeof *out);
    out->agents = count;
    double t0 = now_seconds();
    for (int step = 0; step < budget && orca_scenario_all_arrived_step(sc) < 0; ++step) {
        if (segs > 0) {
            for (int i = 0; i < count; ++i) {
                ENSURE(orca_agent_get_position(sim, orca_sim_agent_at(sim, i), &prev[i]) ==
                       ORCA_OK);
            }
        }
        ENSURE_MSG(orca_scenario_step(sc) == ORCA_OK, "%s", orca_scenario_last_error(sc));
        for (int i = 0; i < count && segs > 0; ++i) {
            orca_vec2 p;
            ENSURE(orca_agent_get_position(sim, orca_sim_agent_at(sim, i), &p) == ORCA_OK);
            for (int s = 0; s < segs; ++s) {
                if (segments_intersect(prev[i], p, wall[2 * s], wall[2 * s + 1])) {
                    if (out->wall_crossings++ == 0) {
                        fprintf(stderr, "agent %d crossed wall %d at step %d: (%g,%g)->(%g,%g)\n",
                                i, s, step, prev[i].x, prev[i].y, p.x, p.y);
                    }
                }
            }
        }
    }
    out->seconds = now_seconds() - t0;
    out->arrived_step = orca_scenario_all_arrived_step(sc);
    out->agent_overlap = orca_scenario_max_agent_overlap(sc);
    out->wall_overlap = orca_scenario_max_wall_overlap(sc);
    out->fallbacks = orca_scenario_fallback_total(sc);
    int arrived = orca_scenario_arrived_count(sc);
    printf("    %-8s n=%-5d seed %llu: ", orca_scenario_name(sc), count, (unsigned long long)seed);
    if (out->arrived_step >= 0) {
        printf("all arrived at step %lld (%.1f s simulated)", (long long)out->arrived_step,
               (double)out->arrived_step * orca_scenario_dt(sc));
    } else {
        printf("%d of %d arrived after %llu steps", arrived, count,
               (unsigned long long)orca_sim_step_count(sim));
    }
    printf(", deepest overlap %.4f r (walls %.4f r), fallback solves %llu, wall crossings %d, "
           "%.2f s\n",
           out->agent_overlap, out->wall_overlap, (unsigned long long)out->fallbacks,
           out->wall_crossings, out->seconds);
    fflush(stdout);
    free(wall);
    free(prev);
    orca_scenario_destroy(sc);
    return 0;
}

static int check_scene(orca_scene_kind kind, int n, int workers, int budget, double bound)
{
    scene_run r;
    if (run_scene(kind, n, 1, workers, budget, &r) != 0) {
        return 1;
    }
    ENSURE_MSG(r.arrived_step >= 0 && r.arrived_step <= budget,
               "not all agents arrived within %d steps", budget);
    ENSURE_MSG(r.agent_overlap <= bound, "deepest overlap %.4f r above the bound %.2f r",
               r.agent_overlap, bound);
    ENSURE_MSG(r.wall_overlap <= bound, "deepest wall overlap %.4f r above the bound %.2f r",
               r.wall_overlap, bound);
    ENSURE(r.wall_overlap < 1.0);
    ENSURE(r.wall_crossings == 0);
    return 0;
}

static int test_crossing(void) { return check_scene(ORCA_SCENE_CROSSING, 0, 1, 2000, 0.1); }
static int test_wallgap(void) { return check_scene(ORCA_SCENE_WALL_GAP, 0, 1, 4000, 0.1); }
static int test_corridor(void) { return check_scene(ORCA_SCENE_CORRIDOR, 0, 1, 2000, 0.1); }
static int test_circle_100(void) { return check_scene(ORCA_SCENE_CIRCLE, 100, 1, 5000, 0.5); }
static int test_circle_300(void) { return check_scene(ORCA_SCENE_CIRCLE, 300, 1, 12000, 0.5); }
static int test_circle_1000(void)
{
    return check_scene(ORCA_SCENE_CIRCLE, 1000, 1, 32000, 0.75);
}

/* ------------------------------------------------------------------------------------------
 * Worker count independence
 * ---------------------------------------------------------------------------------------- */

static int run_hash(orca_scene_kind kind, int n, int workers, int steps, uint64_t *hash,
                    double *overlap, uint64_t *fallbacks)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create_builtin(kind, n, 5, &def, &sc) == ORCA_OK);
    for (int i = 0; i < steps; ++i) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    *hash = orca_sim_hash(orca_scenario_sim(sc));
    *overlap = orca_scenario_max_agent_overlap(sc);
    *fallbacks = orca_scenario_fallback_total(sc);
    orca_scenario_destroy(sc);
    return 0;
}

static int check_workers(orca_scene_kind kind, int n, int steps)
{
    uint64_t h1, h3, f1, f3;
    double o1, o3;
    if (run_hash(kind, n, 1, steps, &h1, &o1, &f1) || run_hash(kind, n, 3, steps, &h3, &o3, &f3)) {
        return 1;
    }
    printf("    %s n=%d after %d steps: hash 0x%016llx (1 worker), 0x%016llx (3 workers)\n",
           orca_scene_name(kind), n, steps, (unsigned long long)h1, (unsigned long long)h3);
    ENSURE(h1 == h3);
    ENSURE_BITS(o1, o3);
    ENSURE(f1 == f3);
    return 0;
}

static int test_workers_circle(void) { return check_workers(ORCA_SCENE_CIRCLE, 100, 100); }
static int test_workers_random(void) { return check_workers(ORCA_SCENE_RANDOM, 1000, 100); }

static int test_worker_change_mid_run(void)
{
    /* Changing the worker count between steps changes nothing either. */
    uint64_t h1, f1;
    double o1;
    if (run_hash(ORCA_SCENE_CROSSING, 0, 1, 200, &h1, &o1, &f1)) {
        return 1;
    }
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create_builtin(ORCA_SCENE_CROSSING, 0, 5, NULL, &sc) == ORCA_OK);
    for (int i = 0; i < 200; ++i) {
        ENSURE(orca_sim_set_worker_count(orca_scenario_sim(sc), 1 + i % 4) == ORCA_OK);
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(orca_scenario_sim(sc)) == h1);
    orca_scenario_destroy(sc);
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Notes for the record (no assertion on arrival)
 * ---------------------------------------------------------------------------------------- */

static int test_random_runs(void)
{
    /* The random scene is for benchmarks (it is dense, 0.44 of the square covered, and many
     * agents end up blocked by others sitting on their goals); its figures are printed, not
     * bounded. */
    scene_run r;
    if (run_scene(ORCA_SCENE_RANDOM, 1000, 1, 2, 400, &r) != 0) {
        return 1;
    }
    return 0;
}

static int test_small_circle(void)
{
    /* The note: a small symmetric circle can settle into a still ring of touching
     * agents under the literal algorithm (docs/scenarios.md). Printed for the record, not
     * asserted either way. */
    scene_run r;
    if (run_scene(ORCA_SCENE_CIRCLE, 16, 1, 1, 2000, &r) != 0) {
        return 1;
    }
    return 0;
}


static orca_vec2 vec2(double x, double y)
{
    orca_vec2 v = {x, y};
    return v;
}

/* ------------------------------------------------------------------------------------------
 * Refused steps and the records
 * ---------------------------------------------------------------------------------------- */

/* A scenario whose step the simulation refuses (an agent walking off the 2^21 square) is
 * left exactly as it was: preferred velocities, state, step count and records. */
static int test_step_refused(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.5, 3, &sc) == ORCA_OK);
    orca_agent_def d = far_agent(2097140.0, 0.0);
    orca_goal g = {ORCA_GOAL_VELOCITY, {2.0, 0.0}, 0.0, 0};
    ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
    d = far_agent(0.0, 0.0);
    d.preferred_velocity = vec2(0.125, -0.5); /* kept by an agent without a goal rule */
    orca_goal none = {ORCA_GOAL_NONE, {0.0, 0.0}, 0.0, 0};
    ENSURE(orca_scenario_add_agent(sc, &d, &none, NULL) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    orca_status st = ORCA_OK;
    int steps = 0;
    for (; steps < 100 && st == ORCA_OK; ++steps) {
        uint64_t h = orca_sim_hash(sim);
        uint64_t k = orca_sim_step_count(sim);
        st = orca_scenario_step(sc);
        if (st != ORCA_OK) {
            ENSURE(st == ORCA_ERR_LIMIT);
            ENSURE(strstr(orca_scenario_last_error(sc), "step refused: agent 0") != NULL);
            ENSURE(orca_sim_hash(sim) == h && orca_sim_step_count(sim) == k);
        }
    }
    ENSURE(st == ORCA_ERR_LIMIT && steps > 5);
    /* the refusal is repeatable, and removing the agent lets the scenario go on */
    ENSURE(orca_scenario_step(sc) == ORCA_ERR_LIMIT);
    ENSURE(orca_sim_remove_agent(sim, orca_sim_agent_at(sim, 0)) == ORCA_OK);
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    orca_scenario_destroy(sc);
    return 0;
}

/* Recording off: no overlap or arrival record (the simulation's bits are the same). Agents
 * that overlap each other and a wall from the start enter the record at the first step. */
static int test_recording(void)
{
    uint64_t h[2];
    for (int on = 0; on <= 1; ++on) {
        orca_scenario *sc = NULL;
        ENSURE(orca_scenario_create(NULL, 0.25, 9, &sc) == ORCA_OK);
        ENSURE(orca_scenario_set_recording(sc, on) == ORCA_OK);
        orca_agent_def d = far_agent(0.0, 0.0);
        orca_goal g = {ORCA_GOAL_POINT, {10.0, 0.0}, 1.0, 0};
        ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
        d.position = vec2(1.0, 0.5); /* overlaps the first by 2 m of 3 */
        ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
        ENSURE(orca_sim_add_segment(orca_scenario_sim(sc), vec2(-5.0, -1.0), vec2(5.0, -1.0),
                                    NULL) == ORCA_OK);
        for (int k = 0; k < 30; ++k) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        h[on] = orca_sim_hash(orca_scenario_sim(sc));
        if (on) {
            ENSURE(orca_scenario_max_agent_overlap(sc) > 0.5);
            ENSURE(orca_scenario_max_wall_overlap(sc) > 0.25);
        } else {
            ENSURE(orca_scenario_max_agent_overlap(sc) == 0 &&
                   orca_scenario_max_wall_overlap(sc) == 0);
            ENSURE(orca_scenario_all_arrived_step(sc) == -1);
        }
        ENSURE(orca_scenario_fallback_total(sc) > 0);
        orca_scenario_destroy(sc);
    }
    ENSURE(h[0] == h[1]);
    ENSURE(orca_scenario_set_recording(NULL, 1) == ORCA_ERR_NULL);
    return 0;
}

/* The rule and the built-in scenes for other layers (scenario_rule.h, used by the MPI layer):
 * a streamed scene emits exactly the agents and goals the built scene holds, in index order,
 * with the same walls; the rule's velocity for each agent equals what a scenario step sets. */
typedef struct stream_ctx {
    const orca_scenario *sc;
    int64_t count;
    int bad, stop_at;
} stream_ctx;

static orca_status stream_check(void *ctx, int64_t index, const orca_agent_def *def,
                                const orca_goal *goal)
{
    stream_ctx *c = ctx;
    if (index == c->stop_at) {
        return ORCA_ERR_MEMORY;
    }
    orca_sim *sim = orca_scenario_sim((orca_scenario *)c->sc);
    orca_agent_def d;
    orca_goal g;
    c->bad += index != c->count;
    c->bad += orca_agent_get(sim, orca_sim_agent_at(sim, (int)index), &d) != ORCA_OK ||
              d.position.x != def->position.x || d.position.y != def->position.y ||
              d.velocity.x != def->velocity.x || d.velocity.y != def->velocity.y ||
              d.radius != def->radius || d.max_speed != def->max_speed ||
              d.neighbor_dist != def->neighbor_dist || d.max_neighbors != def->max_neighbors ||
              d.time_horizon != def->time_horizon ||
              d.obstacle_time_horizon != def->obstacle_time_horizon;
    c->bad += orca_scenario_agent_goal(c->sc, (int)index, &g, NULL) != ORCA_OK ||
              g.kind != goal->kind || g.target.x != goal->target.x ||
              g.target.y != goal->target.y || g.preferred_speed != goal->preferred_speed;
    c->bad += orca_scenario_rule_key(c->sc, (int)index) != (int)index;
    c->count++;
    return ORCA_OK;
}

static int test_stream_and_rule(void)
{
    for (int kind = 0; kind < ORCA_SCENE_COUNT; ++kind) {
        orca_scenario *built = NULL, *walls = NULL;
        ENSURE(orca_scenario_create_builtin((orca_scene_kind)kind, 0, 3, NULL, &built) == ORCA_OK);
        stream_ctx c = {built, 0, 0, -1};
        ENSURE(orca_builtin_stream((orca_scene_kind)kind, 0, 3, stream_check, &c, &walls) ==
               ORCA_OK);
        orca_sim *bs = orca_scenario_sim(built), *ws = orca_scenario_sim(walls);
        ENSURE_MSG(c.bad == 0 && c.count == orca_sim_agent_count(bs), "%s: %d bad of %lld",
                   orca_scene_name((orca_scene_kind)kind), c.bad, (long long)c.count);
        ENSURE(orca_sim_agent_count(ws) == 0 &&
               orca_sim_segment_count(ws) == orca_sim_segment_count(bs));
        ENSURE(orca_scenario_next_rule_key(built) == c.count);
        /* the rule, computed outside the scenario, equals the step's preferred velocities */
        uint64_t sh = orca_rule_step_hash(3, 0);
        orca_vec2 want[100];
        int n = orca_sim_agent_count(bs) < 100 ? orca_sim_agent_count(bs) : 100;
        for (int i = 0; i < n; ++i) {
            orca_goal g;
            orca_vec2 p;
            ENSURE(orca_scenario_agent_goal(built, i, &g, NULL) == ORCA_OK);
            ENSURE(orca_agent_get_position(bs, orca_sim_agent_at(bs, i), &p) == ORCA_OK);
            want[i] = orca_rule_velocity(&g, p, orca_scenario_dt(built), sh, (uint64_t)i);
        }
        ENSURE(orca_scenario_step(built) == ORCA_OK);
        for (int i = 0; i < n; ++i) {
            orca_agent_def d;
            ENSURE(orca_agent_get(bs, orca_sim_agent_at(bs, i), &d) == ORCA_OK);
            ENSURE_BITS(d.preferred_velocity.x, want[i].x);
            ENSURE_BITS(d.preferred_velocity.y, want[i].y);
        }
        /* a refusal from the receiver stops the build with its status */
        stream_ctx stop = {built, 0, 0, 5};
        orca_scenario *none = NULL;
        ENSURE(orca_builtin_stream((orca_scene_kind)kind, 0, 3, stream_check, &stop, &none) ==
                   ORCA_ERR_MEMORY &&
               none == NULL);
        orca_scenario_destroy(built);
        orca_scenario_destroy(walls);
    }
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"sincos_exact", test_sincos_exact},
    {"sincos_accuracy", test_sincos_accuracy},
    {"sincos_bits", test_sincos_bits},
    {"hash_reference_vector", test_hash_reference_vector},
    {"rule_hand_cases", test_rule_hand_cases},
    {"rule_worked_example", test_rule_worked_example},
    {"rule_perturbation_spread", test_rule_perturbation_spread},
    {"foreign_agents", test_foreign_agents},
    {"errors", test_errors},
    {"step_refused", test_step_refused},
    {"recording", test_recording},
    {"names", test_names},
    {"scene_sizes", test_scene_sizes},
    {"scene_geometry", test_scene_geometry},
    {"scene_initial_hashes", test_scene_initial_hashes},
    {"workers_circle", test_workers_circle},
    {"workers_random", test_workers_random},
    {"worker_change_mid_run", test_worker_change_mid_run},
    {"crossing", test_crossing},
    {"wallgap", test_wallgap},
    {"corridor", test_corridor},
    {"circle_100", test_circle_100},
    {"circle_300", test_circle_300},
    {"circle_1000", test_circle_1000},
    {"small_circle_note", test_small_circle},
    {"random_note", test_random_runs},
    {"stream_and_rule", test_stream_and_rule},
    {0, 0},
};
