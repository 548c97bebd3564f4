/* SPDX-License-Identifier: MIT */
/* The avoidance extensions (priority, layers and mask, locked agents) and the per-agent
 * diagnostics (docs/extensions.md), against independent truth: the plain step's bits for the
 * extended path at its defaults, shares derived by hand from sim.h's rule, neighbour lists and
 * candidate counts by brute force over every agent, and scenes with a measured outcome. */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <orca/scenario.h>
#include <orca/sim.h>
#include <orca/solver.h>

static orca_agent_id add(orca_sim *sim, orca_vec2 p, orca_vec2 v)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = p;
    d.velocity = v;
    d.preferred_velocity = v;
    orca_agent_id id = {0, 0, 0};
    orca_sim_add_agent(sim, &d, &id);
    return id;
}

static orca_vec2 pos_of(const orca_sim *sim, int i)
{
    orca_vec2 p = {0, 0};
    orca_agent_get_position(sim, orca_sim_agent_at(sim, i), &p);
    return p;
}

/* A built-in scene; mode 0 plain, 1 diagnostics on, 2 every agent at priority 3 on layer 2
 * with mask 2 (equal to the defaults in effect: shares 3/6 = 1/2, everyone considers
 * everyone). Returns the final positions and velocities (bits) in out[4 * n]. */
static int run_scene(orca_scene_kind kind, int agents, int steps, int workers, int mode,
                     double *out, int *n_out, uint64_t *hash_after_reset)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create_builtin(kind, agents, 1, &def, &sc) == ORCA_OK);
    orca_sim *sim = orca_scenario_sim(sc);
    int n = orca_sim_agent_count(sim);
    if (mode == 1) {
        ENSURE(orca_sim_set_diagnostics(sim, 1) == ORCA_OK);
    }
    if (mode == 2) {
        for (int i = 0; i < n; ++i) {
            orca_agent_avoidance a = orca_agent_avoidance_default();
            a.priority = 3;
            a.layers = 2;
            a.mask = 2;
            ENSURE(orca_agent_set_avoidance(sim, orca_sim_agent_at(sim, i), &a) == ORCA_OK);
        }
    }
    for (int s = 0; s < steps; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    for (int i = 0; i < n; ++i) {
        orca_agent_def d;
        ENSURE(orca_agent_get(sim, orca_sim_agent_at(sim, i), &d) == ORCA_OK);
        out[4 * i] = d.position.x;
        out[4 * i + 1] = d.position.y;
        out[4 * i + 2] = d.velocity.x;
        out[4 * i + 3] = d.velocity.y;
    }
    if (mode == 2) {
        /* back at the defaults, the state hashes as a plain run's */
        for (int i = 0; i < n; ++i) {
            orca_agent_avoidance a = orca_agent_avoidance_default();
            ENSURE(orca_agent_set_avoidance(sim, orca_sim_agent_at(sim, i), &a) == ORCA_OK);
        }
    }
    *hash_after_reset = orca_sim_hash(sim);
    *n_out = n;
    orca_scenario_destroy(sc);
    return 0;
}

/* The extended path at its defaults computes the plain step's bits, on scenes with and
 * without walls, for 1 and 3 workers. */
static int test_defaults_same_bits(void)
{
    static const struct {
        orca_scene_kind kind;
        int agents, steps;
    } cases[] = {{ORCA_SCENE_CIRCLE, 100, 120}, {ORCA_SCENE_WALL_GAP, 60, 120},
                 {ORCA_SCENE_CORRIDOR, 40, 100}, {ORCA_SCENE_RANDOM, 600, 30}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double *ref = malloc(4 * 2000 * sizeof(double)), *got = malloc(4 * 2000 * sizeof(double));
        ENSURE(ref && got);
        int n0 = 0, n = 0;
        uint64_t h0 = 0, h = 0;
        ENSURE(run_scene(cases[c].kind, cases[c].agents, cases[c].steps, 1, 0, ref, &n0, &h0) == 0);
        for (int mode = 1; mode <= 2; ++mode) {
            for (int workers = 1; workers <= 3; workers += 2) {
                ENSURE(run_scene(cases[c].kind, cases[c].agents, cases[c].steps, workers, mode, got,
                                 &n, &h) == 0);
                ENSURE(n == n0);
                for (int k = 0; k < 4 * n; ++k) {
                    ENSURE_BITS(got[k], ref[k]);
                }
                ENSURE_MSG(h == h0, "scene %d mode %d workers %d: %016llx vs %016llx", (int)c,
                           mode, workers, (unsigned long long)h, (unsigned long long)h0);
            }
        }
        free(ref);
        free(got);
    }
    return 0;
}

/* The plane of agent A against B is P = vA + share * u with the share of sim.h's rule:
 * u and n from the case form (a building block), the share written here by hand. */
static int test_share_hand_derived(void)
{
    static const struct {
        double pa, pb;
        int b_mask_misses_a, b_locked;
        double share; /* A's share, derived by hand */
    } cases[] = {
        {1, 1, 0, 0, 0.5},   {3, 1, 0, 0, 0.25},   {1, 3, 0, 0, 0.75},
        {0x1p30, 0x1p30, 0, 0, 0.5}, {0x1p-30, 0x1p-30, 0, 0, 0.5},
        {1, 1, 1, 0, 1.0},   {5, 1, 0, 1, 1.0},    {7, 1, 1, 1, 1.0},
        {0x1p30, 0x1p-30, 0, 0, 0x1p-30 / (0x1p30 + 0x1p-30)},
    };
    double dt = 0.25, tau = 10, r = 1.5;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        orca_sim *sim = test_new_sim(1);
        ENSURE(sim);
        orca_vec2 va = vec(1, 0.1), vb = vec(-1, 0);
        orca_agent_id a = add(sim, vec(0, 0), va), b = add(sim, vec(9, 0.5), vb);
        orca_agent_avoidance sa = orca_agent_avoidance_default(), sb = sa;
        sa.priority = cases[c].pa;
        sb.priority = cases[c].pb;
        sb.locked = cases[c].b_locked;
        if (cases[c].b_mask_misses_a) {
            sa.layers = 4;
            sb.mask = 1 | 2 | 8;
        }
        ENSURE(orca_agent_set_avoidance(sim, a, &sa) == ORCA_OK);
        ENSURE(orca_agent_set_avoidance(sim, b, &sb) == ORCA_OK);
        orca_halfplane planes[4];
        int count = 0, hard = 0;
        ENSURE(orca_sim_agent_constraints(sim, a, dt, planes, 4, &count, &hard) == ORCA_OK);
        ENSURE(count == 1 && hard == cases[c].b_locked); /* locked: a hard constraint */
        orca_vo_cases vo = orca_vo_agent_cases(vec(9, 0.5), 2 * r, tau, vec(va.x - vb.x, va.y - vb.y));
        double sh = cases[c].share;
        ENSURE_BITS(planes[0].point.x, va.x + vo.u.x * sh);
        ENSURE_BITS(planes[0].point.y, va.y + vo.u.y * sh);
        ENSURE_BITS(planes[0].normal.x, vo.normal.x);
        ENSURE_BITS(planes[0].normal.y, vo.normal.y);
        orca_sim_destroy(sim);
    }
    return 0;
}

/* Head-on, each agent's velocity moves by its share of u: the moves' ratio is p_B / p_A. */
static int test_priority_head_on(void)
{
    static const double prio[][2] = {{1, 1}, {3, 1}, {100, 1}, {1, 40}};
    for (size_t c = 0; c < sizeof prio / sizeof prio[0]; ++c) {
        orca_sim *sim = test_new_sim(1);
        ENSURE(sim);
        orca_agent_id a = add(sim, vec(0, 0), vec(1, 0)), b = add(sim, vec(8, 0.25), vec(-1, 0));
        ENSURE(orca_agent_set_priority(sim, a, prio[c][0]) == ORCA_OK);
        ENSURE(orca_agent_set_priority(sim, b, prio[c][1]) == ORCA_OK);
        ENSURE(orca_sim_step(sim, 0.25) == ORCA_OK);
        orca_vec2 na, nb;
        orca_agent_get_velocity(sim, a, &na);
        orca_agent_get_velocity(sim, b, &nb);
        double da = hypot(na.x - 1, na.y), db = hypot(nb.x + 1, nb.y);
        ENSURE(da + db > 0.01); /* the constraint was active */
        double want = prio[c][1] / prio[c][0];
        ENSURE_MSG(fabs(da / db - want) <= 1e-9 * want, "moves %.17g %.17g ratio %.17g want %.17g",
                   da, db, da / db, want);
        orca_sim_destroy(sim);
    }
    return 0;
}

typedef struct nb {
    double d2;
    int j;
} nb;

/* Neighbour lists and candidate counts with random layers and masks equal a brute force over
 * every agent; the diagnostics' candidate counts too. */
static int test_layers_brute_force(void)
{
    enum { N = 500 };
    orca_sim *sim = test_new_sim(2);
    ENSURE(sim);
    test_rng g = {42};
    uint32_t layers[N], mask[N];
    int cap[N];
    double nd[N];
    for (int i = 0; i < N; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(test_rng_uniform(&g, -40, 40), test_rng_uniform(&g, -40, 40));
        d.preferred_velocity = vec(test_rng_uniform(&g, -2, 2), test_rng_uniform(&g, -2, 2));
        d.radius = 0.3;
        d.max_neighbors = cap[i] = (int)(test_rng_next(&g) % 12);
        d.neighbor_dist = nd[i] = test_rng_uniform(&g, 0, 12);
        orca_agent_id id;
        ENSURE(orca_sim_add_agent(sim, &d, &id) == ORCA_OK);
        layers[i] = 1u << (test_rng_next(&g) % 4);
        mask[i] = (uint32_t)(test_rng_next(&g) % 16);
        ENSURE(orca_agent_set_layers(sim, id, layers[i], mask[i]) == ORCA_OK);
    }
    ENSURE(orca_sim_set_diagnostics(sim, 1) == ORCA_OK);
    static nb truth[N];
    for (int round = 0; round < 3; ++round) {
        orca_vec2 p[N];
        for (int i = 0; i < N; ++i) {
            p[i] = pos_of(sim, i);
        }
        int within[N];
        for (int i = 0; i < N; ++i) {
            int m = 0;
            for (int j = 0; j < N; ++j) {
                double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, d2 = dx * dx + dy * dy;
                if (j != i && (mask[i] & layers[j]) && d2 < nd[i] * nd[i]) {
                    int k = m++;
                    while (k > 0 && (truth[k - 1].d2 > d2 || (truth[k - 1].d2 == d2 && truth[k - 1].j > j))) {
                        truth[k] = truth[k - 1];
                        --k;
                    }
                    truth[k].d2 = d2;
                    truth[k].j = j;
                }
            }
            within[i] = m;
            int got[16], count = -1;
            ENSURE(orca_sim_agent_neighbors(sim, orca_sim_agent_at(sim, i), got, 16, &count, NULL, 0,
                                            NULL) == ORCA_OK);
            int want = m < cap[i] ? m : cap[i];
            ENSURE_MSG(count == want, "agent %d: %d neighbours, brute force %d", i, count, want);
            for (int k = 0; k < count; ++k) {
                ENSURE(got[k] == truth[k].j);
            }
        }
        ENSURE(orca_sim_step(sim, 0.1) == ORCA_OK);
        orca_step_diagnostics sd;
        ENSURE(orca_sim_step_diagnostics(sim, &sd) == ORCA_OK);
        int cut = 0;
        for (int i = 0; i < N; ++i) {
            orca_agent_diagnostics dg;
            ENSURE(orca_agent_get_diagnostics(sim, orca_sim_agent_at(sim, i), &dg) == ORCA_OK);
            ENSURE_MSG(dg.candidates == within[i], "agent %d: %d candidates, brute force %d", i,
                       dg.candidates, within[i]);
            ENSURE(dg.neighbor_count == (within[i] < cap[i] ? within[i] : cap[i]));
            ENSURE(dg.neighbors_cut == (within[i] > cap[i]));
            cut += within[i] > cap[i];
        }
        ENSURE(sd.agents == N && sd.cut == cut && cut > 0);
    }
    orca_sim_destroy(sim);
    return 0;
}

/* Two groups on layers that ignore each other walk through each other; with the defaults they
 * avoid each other. Measured: the deepest overlap between the groups. */
static int test_groups_ignore_each_other(void)
{
    double deepest[2] = {0, 0};
    for (int mode = 0; mode < 2; ++mode) {
        orca_sim *sim = test_new_sim(1);
        ENSURE(sim);
        for (int i = 0; i < 10; ++i) {
            orca_agent_id a = add(sim, vec(-20, -9 + 2 * i), vec(1.5, 0));
            orca_agent_id b = add(sim, vec(20, -9 + 2 * i + 0.3), vec(-1.5, 0));
            if (mode == 1) {
                ENSURE(orca_agent_set_layers(sim, a, 1, 1) == ORCA_OK);
                ENSURE(orca_agent_set_layers(sim, b, 2, 2) == ORCA_OK);
            }
        }
        for (int s = 0; s < 120; ++s) {
            ENSURE(orca_sim_step(sim, 0.25) == ORCA_OK);
            for (int i = 0; i < 20; i += 2) {
                for (int j = 1; j < 20; j += 2) {
                    orca_vec2 p = pos_of(sim, i), q = pos_of(sim, j);
                    double o = (3.0 - hypot(p.x - q.x, p.y - q.y)) / 1.5;
                    deepest[mode] = o > deepest[mode] ? o : deepest[mode];
                }
            }
        }
        orca_sim_destroy(sim);
    }
    printf("  groups: deepest overlap between them %.4f (defaults), %.4f (layers ignore)\n",
           deepest[0], deepest[1]);
    ENSURE(deepest[0] < 0.05);
    ENSURE(deepest[1] > 1.0); /* they walked through each other */
    return 0;
}

/* A locked agent keeps its velocity and moves with it, bit for bit; a crowd walking across
 * its place never enters it. */
static int test_locked_never_entered(void)
{
    orca_sim *sim = test_new_sim(2);
    ENSURE(sim);
    orca_agent_id lk = add(sim, vec(0, 0), vec(0.1, 0.05));
    ENSURE(orca_agent_set_locked(sim, lk, 1) == ORCA_OK);
    ENSURE(orca_agent_set_preferred_velocity(sim, lk, vec(-2, 0)) == ORCA_OK); /* ignored */
    for (int i = 0; i < 24; ++i) {
        double y = -9 + (i % 6) * 3.5, x = -22 - (i / 6) * 3.5;
        add(sim, vec(x, y), vec(1.6, 0));
    }
    double deepest = 0, dt = 0.25;
    orca_vec2 expect = vec(0, 0);
    int fallbacks = 0;
    for (int s = 0; s < 200; ++s) {
        ENSURE(orca_sim_step(sim, dt) == ORCA_OK);
        fallbacks += orca_sim_last_fallback_count(sim);
        expect = vec(expect.x + 0.1 * dt, expect.y + 0.05 * dt);
        orca_vec2 p = pos_of(sim, 0), v;
        orca_agent_get_velocity(sim, lk, &v);
        ENSURE_BITS(p.x, expect.x);
        ENSURE_BITS(p.y, expect.y);
        ENSURE_BITS(v.x, 0.1);
        ENSURE_BITS(v.y, 0.05);
        for (int i = 1; i < 25; ++i) {
            orca_vec2 q = pos_of(sim, i);
            double o = (3.0 - hypot(p.x - q.x, p.y - q.y)) / 1.5;
            deepest = o > deepest ? o : deepest;
        }
    }
    /* every walker got past */
    int past = 0;
    for (int i = 1; i < 25; ++i) {
        past += pos_of(sim, i).x > 5;
    }
    printf("  locked: deepest overlap with the locked agent %.3g of the radius, %d of 24 walkers past, %d fallbacks\n",
           deepest, past, fallbacks);
    ENSURE(deepest <= 1e-9);
    ENSURE(past >= 20);
    orca_sim_destroy(sim);
    return 0;
}

/* A high-priority agent crossing a crowd keeps more of its speed than at priority 1. */
static int test_priority_crossing(void)
{
    double mean_speed[2];
    for (int mode = 0; mode < 2; ++mode) {
        orca_sim *sim = test_new_sim(1);
        ENSURE(sim);
        orca_agent_id vip = add(sim, vec(-25, 0), vec(1.5, 0));
        if (mode == 1) {
            ENSURE(orca_agent_set_priority(sim, vip, 1000) == ORCA_OK);
        }
        for (int i = 0; i < 60; ++i) {
            double x = -8 + (i % 6) * 3.4, y = -30 + (i / 6) * 3.4;
            add(sim, vec(x, y), vec(0, 1.2)); /* a crowd crossing upward */
        }
        orca_vec2 start = pos_of(sim, 0);
        int steps = 100;
        for (int s = 0; s < steps; ++s) {
            ENSURE(orca_agent_set_preferred_velocity(sim, vip, vec(1.5, 0)) == ORCA_OK);
            ENSURE(orca_sim_step(sim, 0.25) == ORCA_OK);
        }
        orca_vec2 end = pos_of(sim, 0);
        mean_speed[mode] = (end.x - start.x) / (steps * 0.25);
        orca_sim_destroy(sim);
    }
    printf("  crossing a crowd: mean forward speed %.3f m/s at priority 1, %.3f at 1000 (wants 1.5)\n",
           mean_speed[0], mean_speed[1]);
    ENSURE(mean_speed[1] > mean_speed[0]);
    ENSURE(mean_speed[1] > 1.2);
    return 0;
}

/* Diagnostics: fallback flags add up to the step's fallback count; a walker pushing into a
 * wall is blocked; the flags are the same for any worker count. */
static int test_diagnostics(void)
{
    orca_agent_diagnostics first[64];
    for (int workers = 1; workers <= 4; workers += 3) {
        orca_sim *sim = test_new_sim(workers);
        ENSURE(sim);
        ENSURE(orca_sim_set_diagnostics(sim, 1) == ORCA_OK);
        ENSURE(orca_sim_get_diagnostics(sim) == 1);
        ENSURE(orca_sim_add_segment(sim, vec(-10, 2), vec(10, 2), NULL) == ORCA_OK);
        orca_agent_id w = add(sim, vec(0, 0), vec(0, 0));
        ENSURE(orca_agent_set_preferred_velocity(sim, w, vec(0, 2)) == ORCA_OK);
        /* a tight ring of agents all heading to the centre: fallbacks */
        for (int i = 0; i < 40; ++i) {
            double x = 30 + (i % 8) * 1.2, y = (i / 8) * 1.2;
            orca_agent_id id = add(sim, vec(x, y), vec(0, 0));
            ENSURE(orca_agent_set_preferred_velocity(sim, id, vec(34.2 - x, 2.4 - y)) == ORCA_OK);
        }
        ENSURE(orca_agent_set_locked(sim, orca_sim_agent_at(sim, 5), 1) == ORCA_OK);
        int saw_fallback = 0;
        for (int s = 0; s < 6; ++s) {
            ENSURE(orca_agent_set_preferred_velocity(sim, w, vec(0, 2)) == ORCA_OK);
            ENSURE(orca_sim_step(sim, 0.25) == ORCA_OK);
            orca_agent_diagnostics all[64];
            int count = 0;
            ENSURE(orca_sim_diagnostics(sim, all, 64, &count) == ORCA_OK && count == 41);
            orca_step_diagnostics sd;
            ENSURE(orca_sim_step_diagnostics(sim, &sd) == ORCA_OK);
            int fb = 0, blocked = 0, locked = 0;
            for (int i = 0; i < count; ++i) {
                fb += all[i].fallback;
                blocked += all[i].blocked;
                locked += all[i].locked;
                ENSURE((all[i].failed_constraint >= 0) == (all[i].fallback == 1) || all[i].locked);
            }
            ENSURE(fb == orca_sim_last_fallback_count(sim) && sd.fallback == fb);
            ENSURE(sd.blocked == blocked && sd.locked == 1 && locked == 1 && all[5].locked);
            saw_fallback |= fb > 0;
            if (s >= 3) {
                ENSURE_MSG(all[0].blocked, "step %d: the walker at the wall is not blocked", s);
            }
            if (s == 5 && workers == 1) {
                memcpy(first, all, sizeof all);
            } else if (s == 5) {
                ENSURE(memcmp(first, all, sizeof all) == 0);
            }
        }
        ENSURE(saw_fallback);
        /* an agent added since the step: cleared entry */
        orca_agent_id late = add(sim, vec(50, 50), vec(0, 0));
        orca_agent_diagnostics dg;
        ENSURE(orca_agent_get_diagnostics(sim, late, &dg) == ORCA_OK);
        ENSURE(dg.failed_constraint == -1 && dg.fallback == 0 && dg.candidates == 0);
        orca_sim_destroy(sim);
    }
    return 0;
}

/* Writes a snapshot's checksum (FNV-1a over everything before it, little-endian) after an
 * edit of its bytes. */
static void fix_checksum(unsigned char *snap, size_t size)
{
    uint64_t ck = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < size - 8; ++k) {
        ck = (ck ^ snap[k]) * 0x100000001b3ull;
    }
    for (int k = 0; k < 8; ++k) {
        snap[size - 8 + k] = (unsigned char)(ck >> (8 * k));
    }
}

/* Settings enter the hash and snapshots only when some agent is not at the defaults; a
 * snapshot round trip keeps them; removing the only non-default agent gives the plain state. */
static int test_state(void)
{
    orca_sim *a = test_new_sim(1), *b = test_new_sim(1);
    ENSURE(a && b);
    orca_agent_id ids[3];
    for (int i = 0; i < 3; ++i) {
        ids[i] = add(a, vec(i * 4.0, 0), vec(0.5, 0));
        add(b, vec(i * 4.0, 0), vec(0.5, 0));
    }
    size_t size_plain = 0, size = 0;
    ENSURE(orca_sim_save(a, NULL, 0, &size_plain) == ORCA_OK);
    uint64_t h0 = orca_sim_hash(a);
    /* set and reset: nothing changes */
    ENSURE(orca_agent_set_priority(a, ids[1], 5) == ORCA_OK);
    ENSURE(orca_sim_hash(a) != h0);
    ENSURE(orca_agent_set_priority(a, ids[1], 1) == ORCA_OK);
    ENSURE(orca_sim_hash(a) == h0);
    ENSURE(orca_sim_save(a, NULL, 0, &size) == ORCA_OK && size == size_plain);
    unsigned char *pa = malloc(size), *pb = malloc(size);
    ENSURE(pa && pb);
    ENSURE(orca_sim_save(a, pa, size, &size) == ORCA_OK);
    ENSURE(orca_sim_save(b, pb, size, &size) == ORCA_OK);
    ENSURE(memcmp(pa, pb, size) == 0); /* byte for byte a plain snapshot */
    free(pa);
    free(pb);
    /* non-default settings: a larger snapshot that restores them */
    orca_agent_avoidance s1 = {0x1p-30, 0xF0F0F0F0u, 7u, 1};
    ENSURE(orca_agent_set_avoidance(a, ids[2], &s1) == ORCA_OK);
    ENSURE(orca_sim_save(a, NULL, 0, &size) == ORCA_OK && size == size_plain + 3 * 20);
    unsigned char *snap = malloc(size);
    ENSURE(snap && orca_sim_save(a, snap, size, &size) == ORCA_OK);
    uint64_t h1 = orca_sim_hash(a);
    orca_sim *c = test_new_sim(3);
    ENSURE(c && orca_sim_load(c, snap, size) == ORCA_OK);
    ENSURE(orca_sim_hash(c) == h1);
    orca_agent_avoidance got;
    ENSURE(orca_agent_get_avoidance(c, orca_sim_agent_at(c, 2), &got) == ORCA_OK);
    ENSURE_BITS(got.priority, 0x1p-30);
    ENSURE(got.layers == 0xF0F0F0F0u && got.mask == 7u && got.locked == 1);
    for (int s = 0; s < 10; ++s) {
        ENSURE(orca_sim_step(a, 0.25) == ORCA_OK && orca_sim_step(c, 0.25) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(a) == orca_sim_hash(c));
    /* a corrupt setting in a snapshot is refused by name; the state stays */
    uint64_t hc = orca_sim_hash(c);
    /* the last agent's locked field sits just before the checksum */
    unsigned char *bad = malloc(size);
    ENSURE(bad);
    memcpy(bad, snap, size);
    bad[size - 12] = 5;
    fix_checksum(bad, size);
    ENSURE(orca_sim_load(c, bad, size) == ORCA_ERR_FORMAT);
    ENSURE_MSG(strstr(orca_sim_last_error(c), "locked must be 0 or 1, got 5") != NULL, "%s",
               orca_sim_last_error(c));
    ENSURE(orca_sim_hash(c) == hc);
    /* a section that holds only defaults is not one orca_sim_save writes (it would save back
     * as version 1): refused by name, the state stays; with the last agent's settings set
     * back to the defaults, and with version 2 on a snapshot of no agents */
    orca_agent_avoidance dflt;
    ENSURE(orca_agent_get_avoidance(a, ids[0], &dflt) == ORCA_OK);
    memcpy(bad, snap, size);
    unsigned char *e = bad + size - 8 - 20;
    uint64_t pb64;
    memcpy(&pb64, &dflt.priority, 8);
    for (int k = 0; k < 8; ++k) {
        e[k] = (unsigned char)(pb64 >> (8 * k));
    }
    uint32_t words[3] = {dflt.layers, dflt.mask, (uint32_t)dflt.locked};
    for (int w = 0; w < 3; ++w) {
        for (int k = 0; k < 4; ++k) {
            e[8 + 4 * w + k] = (unsigned char)(words[w] >> (8 * k));
        }
    }
    fix_checksum(bad, size);
    ENSURE(orca_sim_load(c, bad, size) == ORCA_ERR_FORMAT);
    ENSURE_MSG(strstr(orca_sim_last_error(c), "holds only default settings for its 3 agents") !=
                   NULL,
               "%s", orca_sim_last_error(c));
    ENSURE(orca_sim_hash(c) == hc);
    orca_sim *empty = test_new_sim(1);
    ENSURE(empty);
    size_t esize = 0;
    unsigned char ebuf[256];
    ENSURE(orca_sim_save(empty, ebuf, sizeof ebuf, &esize) == ORCA_OK && ebuf[8] == 1);
    ebuf[8] = 2;
    fix_checksum(ebuf, esize);
    ENSURE(orca_sim_load(c, ebuf, esize) == ORCA_ERR_FORMAT);
    ENSURE_MSG(strstr(orca_sim_last_error(c), "for its 0 agents") != NULL, "%s",
               orca_sim_last_error(c));
    ENSURE(orca_sim_hash(c) == hc);
    orca_sim_destroy(empty);
    free(bad);
    free(snap);
    /* removing the only agent with settings gives a plain state */
    ENSURE(orca_sim_remove_agent(a, ids[2]) == ORCA_OK);
    orca_sim *d = test_new_sim(1);
    ENSURE(d);
    for (int i = 0; i < 2; ++i) {
        orca_agent_def def;
        ENSURE(orca_agent_get(a, orca_sim_agent_at(a, i), &def) == ORCA_OK);
        ENSURE(orca_sim_add_agent(d, &def, NULL) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(a) == orca_sim_hash(d));
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    orca_sim_destroy(c);
    orca_sim_destroy(d);
    return 0;
}

static int refused(orca_sim *sim, orca_status st, const char *needle, uint64_t hash)
{
    ENSURE_MSG(st == ORCA_ERR_ARGUMENT, "status %d", (int)st);
    const char *msg = orca_sim_last_error(sim);
    ENSURE_MSG(strstr(msg, needle) != NULL, "message '%s' does not name '%s'", msg, needle);
    ENSURE(orca_sim_hash(sim) == hash);
    return 0;
}

/* Every value outside its range is refused with a message naming it; the state stays. */
static int test_bad_arguments(void)
{
    orca_sim *sim = test_new_sim(1);
    ENSURE(sim);
    orca_agent_id id = add(sim, vec(0, 0), vec(0, 0));
    ENSURE(orca_agent_set_priority(sim, id, 2) == ORCA_OK);
    uint64_t h = orca_sim_hash(sim);
    static const struct {
        double p;
        const char *text;
    } bad[] = {{0, "got 0"},          {-1, "got -1"},          {NAN, "got nan"},
               {INFINITY, "got inf"}, {-INFINITY, "got -inf"}, {0x1p30 * 2, "got 2147483648"},
               {0x1p-31, "got 4.6566128730773926e-10"}, {1e308, "got 1e+308"},
               {5e-324, "got 4.9406564584124654e-324"}, {-0.0, "got -0"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        ENSURE(refused(sim, orca_agent_set_priority(sim, id, bad[k].p), "priority", h) == 0);
        ENSURE(refused(sim, orca_agent_set_priority(sim, id, bad[k].p), bad[k].text, h) == 0);
    }
    ENSURE(orca_agent_set_priority(sim, id, 0x1p30) == ORCA_OK);
    ENSURE(orca_agent_set_priority(sim, id, 0x1p-30) == ORCA_OK);
    ENSURE(orca_agent_set_priority(sim, id, 2) == ORCA_OK);
    ENSURE(refused(sim, orca_agent_set_locked(sim, id, 2), "locked must be 0 or 1, got 2", h) == 0);
    ENSURE(refused(sim, orca_agent_set_locked(sim, id, -1), "got -1", h) == 0);
    ENSURE(refused(sim, orca_sim_set_diagnostics(sim, 7), "diagnostics must be 0 or 1, got 7", h) == 0);
    orca_agent_id stale = {id.slot, id.generation + 1, id.sim};
    ENSURE(orca_agent_set_priority(sim, stale, 1) == ORCA_ERR_STALE);
    ENSURE(orca_agent_set_avoidance(sim, id, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_agent_get_avoidance(sim, id, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_agent_set_priority(NULL, id, 1) == ORCA_ERR_NULL);
    ENSURE(orca_sim_diagnostics(sim, NULL, 3, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_diagnostics(sim, NULL, -1, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_step_diagnostics(sim, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_hash(sim) == h);
    /* a locked agent walking off the coordinate limit: the step is refused whole */
    orca_agent_id edge = add(sim, vec(2097151.5, 0), vec(1e6, 0));
    ENSURE(orca_agent_set_locked(sim, edge, 1) == ORCA_OK);
    uint64_t h2 = orca_sim_hash(sim);
    ENSURE(orca_sim_step(sim, 0.25) == ORCA_ERR_LIMIT);
    ENSURE_MSG(strstr(orca_sim_last_error(sim), "beyond the coordinate limit") != NULL, "%s",
               orca_sim_last_error(sim));
    ENSURE(orca_sim_hash(sim) == h2);
    /* faster than its max_speed is fine for a locked agent */
    ENSURE(orca_agent_set_velocity(sim, edge, vec(-1e6, 0)) == ORCA_OK);
    ENSURE(orca_sim_step(sim, 0.25) == ORCA_OK);
    orca_sim_destroy(sim);
    return 0;
}

/* One random scene of the extended path (seed): up to 400 agents in a square boundary loop
 * (tight: many agents see its edges; from seed 16 on four clusters far apart, which the
 * hashed grid holds), with walls, coincident pairs, random priorities over
 * the whole range, layers and masks (some zero), locked agents, max_neighbors 0..30 (lists
 * past the ranked length), neighbour distances 0..12 m, and the density-dependent speed and
 * the separation option in some seeds; variant picks which settings are used. */
static orca_sim *fast_scene(unsigned long long seed, int variant, int workers, int kernels,
                            int diagnostics)
{
    test_rng r = {seed * 0x9e3779b97f4a7c15ull + (unsigned long long)variant};
    orca_sim *sim = test_new_sim(workers);
    if (!sim) {
        return NULL;
    }
    orca_sim_set_vector_kernels(sim, kernels);
    orca_sim_set_diagnostics(sim, diagnostics);
    /* from seed 16 on a sparse scene (the hashed grid): clusters far apart in a large loop */
    int sparse = seed >= 16;
    double half = sparse ? 3000 : test_rng_uniform(&r, 5, 25);
    if (variant != 3) {
        orca_vec2 loop[4] = {vec(-half, -half), vec(half, -half), vec(half, half), vec(-half, half)};
        if (orca_sim_add_boundary(sim, loop, 4, NULL) != ORCA_OK) {
            orca_sim_destroy(sim);
            return NULL;
        }
    }
    if (test_rng_next(&r) % 2) {
        orca_sim_add_segment(sim, vec(-half / 3, 0), vec(half / 3, half / 5), NULL);
    }
    int n = 20 + (int)(test_rng_next(&r) % 380);
    orca_agent_def last = orca_agent_def_default();
    for (int i = 0; i < n; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.radius = test_rng_uniform(&r, 0.1, 0.6);
        double m = half - d.radius - 0.01;
        d.position = vec(test_rng_uniform(&r, -m, m), test_rng_uniform(&r, -m, m));
        if (sparse) {
            double cx = i % 2 ? 2250 : -2250, cy = i % 4 < 2 ? 2250 : -2250;
            d.position = vec(cx + test_rng_uniform(&r, -8, 8), cy + test_rng_uniform(&r, -8, 8));
        }
        d.velocity = vec(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1));
        if (i > 0 && test_rng_next(&r) % 8 == 0) {
            /* coincident with the last one, at its velocity: the pair the separation parts */
            d.position = last.position;
            d.velocity = last.velocity;
            d.radius = last.radius;
        }
        last = d;
        d.preferred_velocity = vec(test_rng_uniform(&r, -2, 2), test_rng_uniform(&r, -2, 2));
        d.max_speed = test_rng_uniform(&r, 0, 2.5);
        d.max_neighbors = (int)(test_rng_next(&r) % 31);
        d.neighbor_dist = test_rng_uniform(&r, 0, 12);
        orca_agent_id id;
        if (orca_sim_add_agent(sim, &d, &id) != ORCA_OK) {
            continue; /* e.g. a disc across the wall */
        }
        orca_agent_avoidance a = orca_agent_avoidance_default();
        static const double prio[] = {1, 1, 2, 0x1p-30, 0x1p30, 7.25};
        if (variant == 0 || variant == 2) {
            a.priority = test_rng_next(&r) % 3 ? prio[test_rng_next(&r) % 6]
                                               : test_rng_uniform(&r, 0.5, 10);
            a.locked = test_rng_next(&r) % 4 == 0;
        }
        if (variant == 0 || variant == 1) {
            a.layers = 1u << (test_rng_next(&r) % 4);
            a.mask = (uint32_t)(test_rng_next(&r) % 16);
        }
        orca_agent_set_avoidance(sim, id, &a);
    }
    if (seed % 3 == 0) {
        orca_density_speed ds = orca_density_speed_default();
        orca_sim_set_density_speed(sim, &ds);
    }
    if (seed % 4 == 1) {
        orca_sim_set_separation(sim, 1);
    }
    return sim;
}

/* The extended path without diagnostics (the plain step's search and kernels: ext_step_fast)
 * against the same step with diagnostics on (the extended path's own scalar search and
 * builder, which counts candidates), state hash after every step: random scenes with every
 * combination of priorities, layers and locked agents, with and without a boundary loop, the
 * vector kernels on and off, 1, 2 and 3 workers. */
static int test_fast_path_same_bits(void)
{
    for (unsigned long long seed = 0; seed < 24; ++seed) {
        int variant = (int)(seed % 4);
        orca_sim *ref = fast_scene(seed, variant, 1, 0, 1);
        ENSURE(ref);
        orca_sim *fast[4];
        for (int f = 0; f < 4; ++f) {
            fast[f] = fast_scene(seed, variant, 1 + f % 3, f != 1, 0);
            ENSURE(fast[f]);
            ENSURE(orca_sim_hash(fast[f]) == orca_sim_hash(ref));
        }
        for (int step = 0; step < 25; ++step) {
            orca_status st = orca_sim_step(ref, 0.1);
            ENSURE_MSG(st == ORCA_OK, "seed %llu step %d: %s", seed, step,
                       orca_sim_last_error(ref));
            for (int f = 0; f < 4; ++f) {
                ENSURE(orca_sim_step(fast[f], 0.1) == ORCA_OK);
                ENSURE_MSG(orca_sim_hash(fast[f]) == orca_sim_hash(ref),
                           "seed %llu variant %d step %d run %d: %016llx vs %016llx", seed,
                           variant, step, f, (unsigned long long)orca_sim_hash(fast[f]),
                           (unsigned long long)orca_sim_hash(ref));
                ENSURE(orca_sim_last_fallback_count(fast[f]) ==
                       orca_sim_last_fallback_count(ref));
            }
        }
        orca_sim_destroy(ref);
        for (int f = 0; f < 4; ++f) {
            orca_sim_destroy(fast[f]);
        }
    }
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"defaults_same_bits", test_defaults_same_bits},
    {"share_hand_derived", test_share_hand_derived},
    {"priority_head_on", test_priority_head_on},
    {"layers_brute_force", test_layers_brute_force},
    {"groups_ignore_each_other", test_groups_ignore_each_other},
    {"locked_never_entered", test_locked_never_entered},
    {"priority_crossing", test_priority_crossing},
    {"diagnostics", test_diagnostics},
    {"state", test_state},
    {"bad_arguments", test_bad_arguments},
    {"fast_path_same_bits", test_fast_path_same_bits},
    {0, 0},
};
