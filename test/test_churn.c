/* SPDX-License-Identifier: MIT */
/* Issue 17's performance work against independent truth:
 *   - churn: deferred removal and the batch calls (orca_sim_remove_agents, orca_sim_add_agents)
 *     against a reference simulation doing the same operations one at a time with every
 *     removal compacted at once (orca_sim_positions after each call compacts), through random
 *     interleavings of add, remove, step, query, index lookups and hash, with 4 workers against
 *     1: the same hashes, counts, handles and indices at every check;
 *   - cold steps: a simulation saved and loaded into a new one before every step (no search
 *     hint ever), one loaded back after stepping another scene (every hint from a different
 *     agent: too small or too large), one loaded 2,000 times over (hints widened past any
 *     radius) and one whose agents all move far (hints dropped), against one stepping plainly:
 *     the same hashes;
 *   - orca_sim_measure_overlap against a brute force over every pair and every segment,
 *     computed here from sim.h's definition, on dense and sparse (hashed) grids, 1 and 4
 *     workers.
 * No expected value below was copied from the library's output. */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <orca/sim.h>

static orca_sim *sim_new(int workers)
{
    orca_sim_def d = orca_sim_def_default();
    d.worker_count = workers;
    orca_sim *s = NULL;
    return orca_sim_create(&d, &s) == ORCA_OK ? s : NULL;
}

static orca_agent_def random_agent(test_rng *g, double side)
{
    orca_agent_def d = orca_agent_def_default();
    d.position.x = test_rng_uniform(g, -side, side);
    d.position.y = test_rng_uniform(g, -side, side);
    d.preferred_velocity.x = test_rng_uniform(g, -2, 2);
    d.preferred_velocity.y = test_rng_uniform(g, -2, 2);
    d.radius = test_rng_uniform(g, 0.3, 1.2);
    d.neighbor_dist = test_rng_uniform(g, 2, 12);
    d.max_neighbors = (int)(test_rng_next(g) % 12);
    return d;
}

static int same_id(orca_agent_id a, orca_agent_id b)
{
    return a.slot == b.slot && a.generation == b.generation;
}

/* Both simulations answer index questions alike (the reference has nothing pending). */
static int check_indices(orca_sim *m, orca_sim *r, test_rng *g)
{
    int n = orca_sim_agent_count(r);
    ENSURE(orca_sim_agent_count(m) == n);
    for (int q = 0; q < 8 && n > 0; ++q) {
        int i = (int)(test_rng_next(g) % (unsigned long long)n);
        orca_agent_id a = orca_sim_agent_at(m, i), b = orca_sim_agent_at(r, i);
        ENSURE_MSG(same_id(a, b), "index %d: {%u,%u} vs {%u,%u}", i, a.slot, a.generation,
                   b.slot, b.generation);
        ENSURE(orca_sim_agent_index(m, a) == i);
    }
    ENSURE(orca_sim_agent_at(m, n).generation == 0);
    return 0;
}

/* Random interleavings; the reference does each operation alone and compacts at once. */
static int test_interleavings(void)
{
    for (unsigned seed = 1; seed <= 12; ++seed) {
        test_rng g = {seed * 7919u};
        orca_sim *m = sim_new(seed % 2 ? 4 : 2), *r = sim_new(1);
        ENSURE(m && r);
        orca_agent_id *live = malloc(4096 * sizeof *live); /* the main sim's handles */
        orca_agent_id *rlive = malloc(4096 * sizeof *rlive); /* the same agents' in r */
        ENSURE(live && rlive);
        int nl = 0;
        for (int ops = 0; ops < 400; ++ops) {
            unsigned op = (unsigned)(test_rng_next(&g) % 10);
            if (op <= 2 && nl < 4000) { /* add one or a batch */
                int k = op == 0 ? 1 : 1 + (int)(test_rng_next(&g) % 20);
                orca_agent_def defs[20];
                for (int q = 0; q < k; ++q) {
                    defs[q] = random_agent(&g, 20);
                }
                if (op == 0) {
                    ENSURE(orca_sim_add_agent(m, &defs[0], &live[nl]) == ORCA_OK);
                } else {
                    ENSURE(orca_sim_add_agents(m, defs, k, &live[nl]) == ORCA_OK);
                }
                for (int q = 0; q < k; ++q) {
                    ENSURE(orca_sim_add_agent(r, &defs[q], &rlive[nl + q]) == ORCA_OK);
                    (void)orca_sim_positions(r);
                }
                nl += k;
            } else if (op <= 5 && nl > 0) { /* remove one or a batch of distinct agents */
                int k = op == 3 ? 1 : 1 + (int)(test_rng_next(&g) % (nl < 15 ? nl : 15));
                orca_agent_id ids[15];
                for (int q = 0; q < k; ++q) {
                    int at = (int)(test_rng_next(&g) % (unsigned long long)(nl - q));
                    /* move the chosen one to the end of the live list, then take it */
                    orca_agent_id t = live[at], tr = rlive[at];
                    live[at] = live[nl - 1 - q];
                    rlive[at] = rlive[nl - 1 - q];
                    live[nl - 1 - q] = t;
                    rlive[nl - 1 - q] = tr;
                    ids[q] = t;
                    ENSURE(orca_sim_remove_agent(r, tr) == ORCA_OK);
                    (void)orca_sim_positions(r);
                }
                if (k == 1 && op == 3) {
                    ENSURE(orca_sim_remove_agent(m, ids[0]) == ORCA_OK);
                } else {
                    ENSURE(orca_sim_remove_agents(m, ids, k) == ORCA_OK);
                }
                nl -= k;
                /* a removed handle is stale at once, and refused in a batch */
                orca_agent_def out;
                ENSURE(orca_agent_get(m, ids[0], &out) == ORCA_ERR_STALE);
                ENSURE(orca_sim_agent_index(m, ids[0]) == -1);
                if (nl > 0) {
                    orca_agent_id two[2] = {live[0], ids[0]};
                    unsigned long long h = orca_sim_agent_count(m);
                    ENSURE(orca_sim_remove_agents(m, two, 2) == ORCA_ERR_STALE);
                    orca_agent_id dup[2] = {live[0], live[0]};
                    ENSURE(orca_sim_remove_agents(m, dup, 2) == ORCA_ERR_ARGUMENT);
                    ENSURE((unsigned long long)orca_sim_agent_count(m) == h);
                }
            } else if (op == 6) {
                ENSURE(check_indices(m, r, &g) == 0);
            } else if (op == 7 && nl > 0) { /* a query between removals */
                int a[32], b[32], na = 0, nb = 0;
                orca_vec2 c = {test_rng_uniform(&g, -20, 20), test_rng_uniform(&g, -20, 20)};
                ENSURE(orca_sim_query_nearest(m, c, 32, a, &na) == ORCA_OK);
                ENSURE(orca_sim_query_nearest(r, c, 32, b, &nb) == ORCA_OK);
                ENSURE(na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0);
            } else if (op == 8) {
                ENSURE(orca_sim_step(m, 0.1) == ORCA_OK);
                ENSURE(orca_sim_step(r, 0.1) == ORCA_OK);
            } else if (op == 9) {
                ENSURE(orca_sim_hash(m) == orca_sim_hash(r));
            }
            /* the agent's constraints and neighbours with removals pending (these build the
             * grid, which compacts, after finding the agent) */
            if (nl > 0 && op != 8 && test_rng_next(&g) % 4 == 0) {
                int at = (int)(test_rng_next(&g) % (unsigned long long)nl);
                orca_halfplane pa[64], pb[64];
                int ca = -1, cb = -2, ha = -1, hb = -2;
                ENSURE(orca_sim_agent_constraints(m, live[at], 0.1, pa, 64, &ca, &ha) == ORCA_OK);
                ENSURE(orca_sim_agent_constraints(r, rlive[at], 0.1, pb, 64, &cb, &hb) == ORCA_OK);
                ENSURE_MSG(ca == cb && ha == hb && memcmp(pa, pb, (size_t)ca * sizeof *pa) == 0,
                           "constraints of live agent %d: %d (%d hard) vs %d (%d hard)", at, ca,
                           ha, cb, hb);
                int na[64], nb2[64], sa[8], sb[8], cna = -1, cnb = -2, csa = -1, csb = -2;
                ENSURE(orca_sim_agent_neighbors(m, live[at], na, 64, &cna, sa, 8, &csa) == ORCA_OK);
                ENSURE(orca_sim_agent_neighbors(r, rlive[at], nb2, 64, &cnb, sb, 8, &csb) == ORCA_OK);
                ENSURE(cna == cnb && csa == csb && memcmp(na, nb2, (size_t)cna * sizeof *na) == 0);
            }
            /* handles still find the same agents (no compaction needed for that) */
            if (nl > 0) {
                int at = (int)(test_rng_next(&g) % (unsigned long long)nl);
                orca_agent_def x, y;
                ENSURE(orca_agent_get(m, live[at], &x) == ORCA_OK);
                ENSURE(orca_agent_get(r, rlive[at], &y) == ORCA_OK);
                ENSURE(memcmp(&x.position, &y.position, sizeof x.position) == 0);
            }
        }
        ENSURE(check_indices(m, r, &g) == 0);
        ENSURE(orca_sim_hash(m) == orca_sim_hash(r));
        size_t a = 0, b = 0;
        ENSURE(orca_sim_save(m, NULL, 0, &a) == ORCA_OK && orca_sim_save(r, NULL, 0, &b) == ORCA_OK);
        ENSURE(a == b);
        free(live);
        free(rlive);
        orca_sim_destroy(m);
        orca_sim_destroy(r);
    }
    return 0;
}

/* The batch calls refuse bad input whole. */
static int test_batch_refusals(void)
{
    orca_sim *s = sim_new(1);
    ENSURE(s);
    orca_agent_def d[3] = {orca_agent_def_default(), orca_agent_def_default(),
                           orca_agent_def_default()};
    d[1].position.x = 3;
    d[2].radius = -1;
    ENSURE(orca_sim_add_agents(s, d, 3, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(s), "defs[2]") != NULL);
    ENSURE(orca_sim_agent_count(s) == 0);
    d[2].radius = 0x1p-1074; /* tiny but below the minimum radius */
    ENSURE(orca_sim_add_agents(s, d, 3, NULL) == ORCA_ERR_ARGUMENT);
    d[2].position.x = -1e300;
    d[2].radius = 1;
    ENSURE(orca_sim_add_agents(s, d, 3, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_agent_count(s) == 0);
    ENSURE(orca_sim_add_agents(s, d, -1, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_add_agents(s, NULL, 2, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_add_agents(s, NULL, 0, NULL) == ORCA_OK);
    d[2].position.x = 6;
    orca_agent_id ids[3];
    ENSURE(orca_sim_add_agents(s, d, 3, ids) == ORCA_OK);
    ENSURE(orca_sim_agent_count(s) == 3);
    ENSURE(orca_sim_agent_index(s, ids[2]) == 2);
    ENSURE(orca_sim_remove_agents(s, ids, -1) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_remove_agents(s, NULL, 1) == ORCA_ERR_NULL);
    ENSURE(orca_sim_remove_agents(NULL, ids, 1) == ORCA_ERR_NULL);
    orca_agent_id bad[2] = {ids[0], {ids[1].slot, ids[1].generation + 1, ids[1].sim}};
    ENSURE(orca_sim_remove_agents(s, bad, 2) == ORCA_ERR_STALE);
    ENSURE(strstr(orca_sim_last_error(s), "ids[1]") != NULL);
    ENSURE(orca_sim_agent_count(s) == 3);
    orca_agent_id twice[3] = {ids[2], ids[0], ids[2]};
    ENSURE(orca_sim_remove_agents(s, twice, 3) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(s), "ids[0] and ids[2]") != NULL);
    ENSURE(orca_sim_remove_agents(s, ids, 2) == ORCA_OK);
    ENSURE(orca_sim_agent_count(s) == 1 && orca_sim_agent_index(s, ids[2]) == 0);
    ENSURE(orca_sim_positions(s)[0].x == 6);
    orca_sim_destroy(s);
    return 0;
}

/* A grid of agents in groups of different density (clusters, a sparse border), so that the
 * search's estimate is sometimes too small and sometimes beyond neighbor_dist. */
static orca_sim *cold_scene(int workers, unsigned seed)
{
    orca_sim *s = sim_new(workers);
    if (!s) {
        return NULL;
    }
    test_rng g = {seed};
    for (int i = 0; i < 1500; ++i) {
        orca_agent_def d = orca_agent_def_default();
        double spread = i % 3 == 0 ? 60 : (i % 3 == 1 ? 8 : 2);
        double cx = i % 5 == 0 ? 30 : -10;
        d.position.x = cx + test_rng_uniform(&g, -spread, spread);
        d.position.y = test_rng_uniform(&g, -spread, spread);
        d.preferred_velocity.x = test_rng_uniform(&g, -1.5, 1.5);
        d.preferred_velocity.y = test_rng_uniform(&g, -1.5, 1.5);
        d.radius = 0.2 + (double)(i % 4) * 0.1;
        d.neighbor_dist = 3 + (double)(i % 7) * 2;
        d.max_neighbors = 1 + i % 15;
        if (orca_sim_add_agent(s, &d, NULL) != ORCA_OK) {
            orca_sim_destroy(s);
            return NULL;
        }
    }
    return s;
}

/* A snapshot of s (malloc'd, *size bytes), or NULL. */
static void *save_all(orca_sim *s, size_t *size)
{
    *size = 0;
    if (orca_sim_save(s, NULL, 0, size) != ORCA_OK) {
        return NULL;
    }
    void *buf = malloc(*size);
    if (buf && orca_sim_save(s, buf, *size, size) != ORCA_OK) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

static int test_cold_steps(void)
{
    orca_sim *plain = cold_scene(1, 5), *loaded = cold_scene(4, 5), *moved = cold_scene(2, 5);
    orca_sim *stale = cold_scene(3, 5), *other = cold_scene(2, 11), *widened = cold_scene(2, 5);
    ENSURE(plain && loaded && moved && stale && other && widened);
    int n = orca_sim_agent_count(plain);
    size_t other_size = 0;
    void *other_buf = save_all(other, &other_size);
    ENSURE(other_buf);
    for (int step = 0; step < 12; ++step) {
        /* loaded: every step from a snapshot, into a new simulation (no hint ever) */
        size_t size = 0;
        void *buf = save_all(loaded, &size);
        ENSURE(buf);
        orca_sim_destroy(loaded);
        loaded = sim_new(4);
        ENSURE(loaded && orca_sim_load(loaded, buf, size) == ORCA_OK);
        free(buf);
        /* stale: the other scene loaded and stepped, then this state loaded back, so that
         * each agent starts from the hint of the other scene's agent at its index */
        buf = save_all(stale, &size);
        ENSURE(buf && orca_sim_load(stale, other_buf, other_size) == ORCA_OK);
        ENSURE(orca_sim_step(stale, 0.2) == ORCA_OK);
        ENSURE(orca_sim_load(stale, buf, size) == ORCA_OK);
        free(buf);
        /* widened: loaded over and over without a step (each load widens the hints) */
        if (step == 3) {
            buf = save_all(widened, &size);
            ENSURE(buf);
            for (int k = 0; k < 2000; ++k) {
                ENSURE(orca_sim_load(widened, buf, size) == ORCA_OK);
            }
            free(buf);
        }
        /* moved: every agent far away and back to where it was (hints dropped) */
        for (int i = 0; i < n; ++i) {
            orca_agent_id id = orca_sim_agent_at(moved, i);
            orca_vec2 p, far = {1000, -1000};
            ENSURE(orca_agent_get_position(moved, id, &p) == ORCA_OK);
            ENSURE(orca_agent_set_position(moved, id, far) == ORCA_OK);
            ENSURE(orca_agent_set_position(moved, id, p) == ORCA_OK);
        }
        ENSURE(orca_sim_step(plain, 0.2) == ORCA_OK);
        ENSURE(orca_sim_step(loaded, 0.2) == ORCA_OK);
        ENSURE(orca_sim_step(moved, 0.2) == ORCA_OK);
        ENSURE(orca_sim_step(stale, 0.2) == ORCA_OK);
        ENSURE(orca_sim_step(widened, 0.2) == ORCA_OK);
        ENSURE_MSG(orca_sim_hash(plain) == orca_sim_hash(loaded), "step %d (loaded)", step);
        ENSURE_MSG(orca_sim_hash(plain) == orca_sim_hash(moved), "step %d (moved)", step);
        ENSURE_MSG(orca_sim_hash(plain) == orca_sim_hash(stale), "step %d (stale)", step);
        ENSURE_MSG(orca_sim_hash(plain) == orca_sim_hash(widened), "step %d (widened)", step);
    }
    free(other_buf);
    orca_sim_destroy(plain);
    orca_sim_destroy(loaded);
    orca_sim_destroy(moved);
    orca_sim_destroy(stale);
    orca_sim_destroy(other);
    orca_sim_destroy(widened);
    return 0;
}

/* sim.h: agent pairs (rA + rB - distance) / min(rA, rB), agent-segment (r - distance) / r,
 * the deepest of each, 0 when nothing overlaps; distance = sqrt(d.d), d = pB - pA. */
static double seg_dist2(orca_vec2 a, orca_vec2 b, orca_vec2 p)
{
    /* the closest point of segment a-b to p, relative to p, as algorithm.md §2 defines it */
    orca_vec2 ab = {b.x - a.x, b.y - a.y}, ap = {p.x - a.x, p.y - a.y};
    double len2 = ab.x * ab.x + ab.y * ab.y;
    double t = len2 > 0 ? (ap.x * ab.x + ap.y * ab.y) / len2 : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    double dx = a.x + t * ab.x - p.x, dy = a.y + t * ab.y - p.y;
    return dx * dx + dy * dy;
}

static int test_overlap_brute(void)
{
    for (unsigned seed = 1; seed <= 6; ++seed) {
        test_rng g = {seed * 104729u};
        int sparse = seed % 2 == 0; /* agents spread over a huge area: the hashed grid */
        orca_sim *s[2] = {sim_new(1), sim_new(4)};
        ENSURE(s[0] && s[1]);
        int n = 600;
        orca_vec2 *p = malloc((size_t)n * sizeof *p);
        double *rad = malloc((size_t)n * sizeof *rad);
        ENSURE(p && rad);
        for (int i = 0; i < n; ++i) {
            orca_agent_def d = orca_agent_def_default();
            double side = sparse ? 1e6 : 25;
            if (sparse && i % 2) {
                d.position = p[i - 1];
                d.position.x += test_rng_uniform(&g, -2, 2);
            } else {
                d.position.x = test_rng_uniform(&g, -side, side);
                d.position.y = test_rng_uniform(&g, -side, side);
            }
            d.radius = test_rng_uniform(&g, 0.05, 1.5);
            p[i] = d.position;
            rad[i] = d.radius;
            for (int k = 0; k < 2; ++k) {
                ENSURE(orca_sim_add_agent(s[k], &d, NULL) == ORCA_OK);
            }
        }
        orca_vec2 sa[3] = {{-30, 0}, {0, -30}, {5, 5}}, sb[3] = {{30, 0.5}, {1, 30}, {5, 5}};
        for (int k = 0; k < 2; ++k) {
            for (int q = 0; q < 3; ++q) {
                ENSURE(orca_sim_add_segment(s[k], sa[q], sb[q], NULL) == ORCA_OK);
            }
        }
        double deep = 0, wall = 0;
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                if (j == i) {
                    continue;
                }
                double rr = rad[i] + rad[j];
                orca_vec2 d = {p[j].x - p[i].x, p[j].y - p[i].y};
                double d2 = d.x * d.x + d.y * d.y;
                if (d2 < rr * rr) {
                    double o = (rr - sqrt(d2)) / (rad[i] < rad[j] ? rad[i] : rad[j]);
                    deep = o > deep ? o : deep;
                }
            }
            double best = INFINITY;
            for (int q = 0; q < 3; ++q) {
                double d2 = seg_dist2(sa[q], sb[q], p[i]);
                best = d2 < best ? d2 : best;
            }
            if (best <= rad[i] * rad[i]) {
                double o = (rad[i] - sqrt(best)) / rad[i];
                wall = o > wall ? o : wall;
            }
        }
        ENSURE_MSG(deep > 0 && (sparse || wall > 0), "seed %u: %g %g", seed, deep, wall);
        for (int k = 0; k < 2; ++k) {
            double ao = -1, wo = -1;
            ENSURE(orca_sim_measure_overlap(s[k], &ao, &wo) == ORCA_OK);
            ENSURE_BITS(ao, deep);
            /* the wall distance comes from the library's segment distance: a few ulps */
            ENSURE_NEAR(wo, wall, 1e-12);
        }
        free(p);
        free(rad);
        orca_sim_destroy(s[0]);
        orca_sim_destroy(s[1]);
    }
    return 0;
}

/* Pending removals and the calls that read every agent: the boundary measurement and the
 * diagnostics see only the live agents (an agent outside the area, removed, is not counted). */
static int test_pending_and_measures(void)
{
    orca_sim *s = sim_new(2);
    ENSURE(s);
    orca_vec2 room[4] = {{-10, -10}, {10, -10}, {10, 10}, {-10, 10}};
    orca_vec2 annex[4] = {{20, -10}, {40, -10}, {40, 10}, {20, 10}};
    orca_boundary_id b, gone;
    ENSURE(orca_sim_add_boundary(s, room, 4, &b) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(s, annex, 4, &gone) == ORCA_OK);
    orca_agent_def d = orca_agent_def_default();
    orca_agent_id in1, out1, in2;
    d.position = (orca_vec2){0, 0};
    ENSURE(orca_sim_add_agent(s, &d, &in1) == ORCA_OK);
    d.position = (orca_vec2){30, 0}; /* in the annex, outside the room once it goes */
    ENSURE(orca_sim_add_agent(s, &d, &out1) == ORCA_OK);
    d.position = (orca_vec2){5, 5};
    ENSURE(orca_sim_add_agent(s, &d, &in2) == ORCA_OK);
    ENSURE(orca_sim_remove_boundary(s, gone) == ORCA_OK);
    double deepest = -1;
    int outside = -1;
    ENSURE(orca_sim_measure_boundary(s, &deepest, &outside) == ORCA_OK);
    ENSURE(outside == 1);
    ENSURE(orca_sim_remove_agent(s, out1) == ORCA_OK);
    ENSURE(orca_sim_measure_boundary(s, &deepest, &outside) == ORCA_OK);
    ENSURE_MSG(outside == 0, "the removed agent outside the room still counted: %d", outside);
    ENSURE(orca_sim_agent_index(s, in2) == 1);
    orca_sim_destroy(s);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"pending_and_measures", test_pending_and_measures},
    {"interleavings", test_interleavings},
    {"batch_refusals", test_batch_refusals},
    {"cold_steps", test_cold_steps},
    {"overlap_brute", test_overlap_brute},
    {0, 0},
};
