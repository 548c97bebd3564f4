/* SPDX-License-Identifier: MIT */
/* The spatial queries (orca_sim_query_radius, _nearest, _box) against brute force written
 * here from sim.h's doc comments: every agent's position read through the API, the squared
 * distance d = p - c, d.x*d.x + d.y*d.y, the filter and the order stated there. Scenes cover
 * both agent grids (dense cells; hashed cells when the agents are spread too far), ties,
 * points on the edges, underflowing distances and the whole range of every argument. */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <orca/sim.h>

#define MAXN 1500

typedef struct truth {
    double d2;
    int index;
} truth;

static double uni(test_rng *g, double lo, double hi)
{
    return test_rng_uniform(g, lo, hi);
}

static int irand(test_rng *g, int n)
{
    return (int)(test_rng_next(g) % (unsigned long long)n);
}

static orca_vec2 position_of(const orca_sim *sim, int i)
{
    orca_vec2 p = {0, 0};
    orca_agent_get_position(sim, orca_sim_agent_at(sim, i), &p);
    return p;
}

/* Insertion sort by (d2, index), or by index. */
static void sort_truth(truth *t, int n, int by_index)
{
    for (int i = 1; i < n; ++i) {
        truth x = t[i];
        int j = i - 1;
        while (j >= 0 && (by_index ? t[j].index > x.index
                                   : (t[j].d2 > x.d2 || (t[j].d2 == x.d2 && t[j].index > x.index)))) {
            t[j + 1] = t[j];
            --j;
        }
        t[j + 1] = x;
    }
}

/* Brute force: the agents of the radius query (mode 0), the box query (mode 1) or all agents
 * with their distances (mode 2, for nearest). */
static int brute(const orca_sim *sim, int mode, orca_vec2 c, double r, orca_vec2 lo, orca_vec2 hi,
                 truth *out)
{
    int n = 0, total = orca_sim_agent_count(sim);
    for (int i = 0; i < total; ++i) {
        orca_vec2 p = position_of(sim, i);
        double dx = p.x - c.x, dy = p.y - c.y;
        double d2 = dx * dx + dy * dy;
        int keep = mode == 0   ? d2 <= r * r
                   : mode == 1 ? (lo.x <= p.x && p.x <= hi.x && lo.y <= p.y && p.y <= hi.y)
                               : 1;
        if (keep) {
            out[n].d2 = d2;
            out[n].index = i;
            ++n;
        }
    }
    sort_truth(out, n, mode == 1);
    return n;
}

static int check_radius(orca_sim *sim, orca_vec2 c, double r)
{
    static truth t[MAXN];
    static int got[MAXN];
    int n = brute(sim, 0, c, r, c, c, t), count = -1;
    ENSURE(orca_sim_query_radius(sim, c, r, got, MAXN, &count) == ORCA_OK);
    ENSURE_MSG(count == n, "radius %.17g at (%.17g, %.17g): %d agents, brute force %d", r, c.x,
               c.y, count, n);
    for (int k = 0; k < n; ++k) {
        ENSURE_MSG(got[k] == t[k].index, "radius entry %d: %d, brute force %d", k, got[k],
                   t[k].index);
    }
    return 0;
}

static int check_nearest(orca_sim *sim, orca_vec2 c, int k)
{
    static truth t[MAXN];
    static int got[MAXN + 10];
    int n = brute(sim, 2, c, 0, c, c, t), count = -1;
    int want = k < n ? k : n;
    for (int q = 0; q < MAXN + 10; ++q) {
        got[q] = -7;
    }
    ENSURE(orca_sim_query_nearest(sim, c, k, got, &count) == ORCA_OK);
    ENSURE_MSG(count == want, "nearest %d: count %d, expected %d", k, count, want);
    for (int q = 0; q < want; ++q) {
        ENSURE_MSG(got[q] == t[q].index, "nearest %d entry %d: %d, brute force %d (d2 %.17g)", k,
                   q, got[q], t[q].index, t[q].d2);
    }
    ENSURE(got[want] == -7);
    return 0;
}

static int check_box(orca_sim *sim, orca_vec2 lo, orca_vec2 hi)
{
    static truth t[MAXN];
    static int got[MAXN];
    int n = brute(sim, 1, lo, 0, lo, hi, t), count = -1;
    ENSURE(orca_sim_query_box(sim, lo, hi, got, MAXN, &count) == ORCA_OK);
    ENSURE_MSG(count == n, "box (%.17g, %.17g)-(%.17g, %.17g): %d agents, brute force %d", lo.x,
               lo.y, hi.x, hi.y, count, n);
    for (int k = 0; k < n; ++k) {
        ENSURE(got[k] == t[k].index);
    }
    return 0;
}

static orca_sim *new_sim(int workers)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    orca_sim *sim = NULL;
    if (orca_sim_create(&def, &sim) != ORCA_OK) {
        return NULL;
    }
    return sim;
}

static int add_at(orca_sim *sim, orca_vec2 p, double neighbor_dist)
{
    orca_agent_def a = orca_agent_def_default();
    a.position = p;
    a.neighbor_dist = neighbor_dist;
    a.radius = 0.5;
    return orca_sim_add_agent(sim, &a, NULL) == ORCA_OK ? 0 : 1;
}

/* Random queries on one scene: radii from 0 to 2^23, k from 0 to more than the agents, boxes
 * random, around single agents (edges through them) and over the whole range of doubles. */
static int random_queries(orca_sim *sim, test_rng *g, double extent, int rounds)
{
    int n = orca_sim_agent_count(sim);
    for (int q = 0; q < rounds; ++q) {
        orca_vec2 c = vec(uni(g, -extent, extent), uni(g, -extent, extent));
        if (n > 0 && irand(g, 3) == 0) {
            c = position_of(sim, irand(g, n)); /* at an agent: distance 0 and ties */
        }
        double radii[6] = {0, uni(g, 0, 1), uni(g, 0, extent / 8), uni(g, 0, extent),
                           extent * 3, 8388608.0};
        for (int k = 0; k < 6; ++k) {
            if (check_radius(sim, c, radii[k])) {
                return 1;
            }
        }
        int ks[6] = {0, 1, 2, 1 + irand(g, 40), n, n + 3};
        for (int k = 0; k < 6; ++k) {
            if (check_nearest(sim, c, ks[k])) {
                return 1;
            }
        }
        double w = uni(g, 0, extent), h = uni(g, 0, extent);
        if (check_box(sim, vec(c.x - w, c.y - h), vec(c.x + w, c.y + h))) {
            return 1;
        }
        if (n > 0) {
            orca_vec2 a = position_of(sim, irand(g, n)), b = position_of(sim, irand(g, n));
            orca_vec2 lo = vec(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y);
            orca_vec2 hi = vec(a.x < b.x ? b.x : a.x, a.y < b.y ? b.y : a.y);
            if (check_box(sim, lo, hi) || check_box(sim, a, a) ||
                check_box(sim, vec(nextafter(a.x, INFINITY), a.y), vec(1e300, a.y))) {
                return 1;
            }
        }
    }
    return check_box(sim, vec(-1.7976931348623157e308, -1.7976931348623157e308),
                     vec(1.7976931348623157e308, 1.7976931348623157e308));
}

static int test_uniform_dense(void)
{
    test_rng g = {11};
    for (int workers = 1; workers <= 3; workers += 2) {
        orca_sim *sim = new_sim(workers);
        ENSURE(sim);
        for (int i = 0; i < 1000; ++i) {
            ENSURE(add_at(sim, vec(uni(&g, -200, 200), uni(&g, -120, 120)), 15) == 0);
        }
        ENSURE(random_queries(sim, &g, 250, 60) == 0);
        orca_sim_destroy(sim);
    }
    return 0;
}

/* Agents in clusters far apart with a small neighbour distance: too many cells for the dense
 * grid, so the hashed one answers (both of its paths: probing cells, scanning all). */
static int test_clusters_hashed(void)
{
    test_rng g = {12};
    orca_sim *sim = new_sim(1);
    ENSURE(sim);
    for (int c = 0; c < 12; ++c) {
        orca_vec2 at = vec(uni(&g, -2e6, 2e6), uni(&g, -2e6, 2e6));
        for (int i = 0; i < 40; ++i) {
            ENSURE(add_at(sim, vec(at.x + uni(&g, -30, 30), at.y + uni(&g, -30, 30)), 2) == 0);
        }
    }
    ENSURE(random_queries(sim, &g, 2e6, 40) == 0);
    /* small queries inside a cluster: probing the hashed cells */
    for (int q = 0; q < 200; ++q) {
        orca_vec2 c = position_of(sim, irand(&g, orca_sim_agent_count(sim)));
        ENSURE(check_radius(sim, c, uni(&g, 0, 20)) == 0);
        ENSURE(check_nearest(sim, c, 1 + irand(&g, 60)) == 0);
        ENSURE(check_box(sim, vec(c.x - 5, c.y - 9), vec(c.x + 7, c.y + 3)) == 0);
    }
    orca_sim_destroy(sim);
    return 0;
}

/* A few agents whose neighbour distance reaches far beyond the others' (up to 2^23): the
 * grid's cells are sized for the others, so a query of a large radius covers many rows or
 * cells. Dense (a crowd, and the far agents at its corners) and hashed (clusters far apart),
 * 1 and 3 workers, also after a step. */
static int test_far_reaching_agents(void)
{
    test_rng g = {15};
    for (int hashed = 0; hashed < 2; ++hashed) {
        for (int workers = 1; workers <= 3; workers += 2) {
            orca_sim *sim = new_sim(workers);
            ENSURE(sim);
            for (int c = 0; c < (hashed ? 10 : 1); ++c) {
                orca_vec2 at = hashed ? vec(uni(&g, -2e6, 2e6), uni(&g, -2e6, 2e6)) : vec(0, 0);
                double half = hashed ? 40 : 150;
                for (int i = 0; i < (hashed ? 100 : 1000); ++i) {
                    ENSURE(add_at(sim, vec(at.x + uni(&g, -half, half), at.y + uni(&g, -half, half)),
                                  hashed ? 4 : 15) == 0);
                }
            }
            orca_vec2 c0 = position_of(sim, 0);
            ENSURE(add_at(sim, vec(c0.x + 1, c0.y - 1), 8388608.0) == 0);
            ENSURE(add_at(sim, hashed ? vec(c0.x + 0.5, c0.y) : vec(-150, -150), 1048576.0) == 0);
            ENSURE(add_at(sim, hashed ? vec(-c0.x, c0.y) : vec(150, 150), 8388608.0) == 0);
            for (int round = 0; round < 2; ++round) {
                ENSURE(random_queries(sim, &g, hashed ? 2e6 : 200, 25) == 0);
                int n = orca_sim_agent_count(sim);
                for (int q = 0; q < 40; ++q) {
                    orca_vec2 c = position_of(sim, q < 3 ? n - 1 - q : irand(&g, n));
                    double r = q % 2 ? 8388608.0 : uni(&g, 20, hashed ? 1e6 : 400);
                    ENSURE(check_radius(sim, c, r) == 0);
                    ENSURE(check_nearest(sim, c, 1 + irand(&g, n)) == 0);
                }
                ENSURE(orca_sim_step(sim, 0.25) == ORCA_OK);
            }
            orca_sim_destroy(sim);
        }
    }
    return 0;
}

/* Many equal distances (a lattice, agents stacked on the same point): the index breaks ties;
 * points exactly on the disc and on the box's edges are inside. */
static int test_ties_and_edges(void)
{
    orca_sim *sim = new_sim(1);
    ENSURE(sim);
    for (int y = -6; y <= 6; ++y) {
        for (int x = -6; x <= 6; ++x) {
            ENSURE(add_at(sim, vec(x, y), 3) == 0);
        }
    }
    for (int i = 0; i < 5; ++i) {
        ENSURE(add_at(sim, vec(2, 1), 3) == 0);
    }
    /* (3, 4) and its kin lie at distance exactly 5 from the origin */
    ENSURE(check_radius(sim, vec(0, 0), 5) == 0);
    int got[200], count = 0;
    ENSURE(orca_sim_query_radius(sim, vec(0, 0), 5, got, 200, &count) == ORCA_OK);
    int found34 = 0;
    for (int k = 0; k < count; ++k) {
        orca_vec2 p = position_of(sim, got[k]);
        found34 |= p.x == 3 && p.y == 4;
    }
    ENSURE(found34);
    ENSURE(check_radius(sim, vec(2, 1), 0) == 0);
    ENSURE(orca_sim_query_radius(sim, vec(2, 1), 0, got, 200, &count) == ORCA_OK);
    ENSURE(count == 6); /* the lattice point and the five stacked on it, in index order */
    for (int k = 1; k < 6; ++k) {
        ENSURE(got[k] > got[k - 1]);
    }
    for (int k = 0; k <= 180; k += 7) {
        ENSURE(check_nearest(sim, vec(0.5, 0.5), k) == 0);
        ENSURE(check_nearest(sim, vec(2, 1), k) == 0);
    }
    ENSURE(check_box(sim, vec(-2, -3), vec(4, 1)) == 0);
    ENSURE(orca_sim_query_box(sim, vec(-2, -3), vec(4, 1), got, 200, &count) == ORCA_OK);
    ENSURE(count == 7 * 5 + 5);
    ENSURE(check_box(sim, vec(-2, -3), vec(-2, -3)) == 0);
    ENSURE(orca_sim_query_box(sim, vec(-2.5, 0.5), vec(-2.25, 0.75), got, 200, &count) == ORCA_OK);
    ENSURE(count == 0);
    orca_sim_destroy(sim);
    return 0;
}

/* Distances whose squares underflow: the filter is the computed d.d <= r*r, so agents 1e-170
 * apart are all within radius 0 of each other (their squares are 0). */
static int test_underflow(void)
{
    orca_sim *sim = new_sim(1);
    ENSURE(sim);
    double tiny[6] = {0, 1e-170, -3e-170, 5e-162, 1e-150, 1e-100};
    for (int i = 0; i < 6; ++i) {
        orca_agent_def a = orca_agent_def_default();
        a.position = vec(tiny[i], -tiny[5 - i]);
        a.radius = 1e-9;
        a.neighbor_dist = 0;
        ENSURE(orca_sim_add_agent(sim, &a, NULL) == ORCA_OK);
    }
    double radii[5] = {0, 1e-300, 1e-160, 1e-140, 1e-90};
    for (int r = 0; r < 5; ++r) {
        for (int i = 0; i < 6; ++i) {
            ENSURE(check_radius(sim, position_of(sim, i), radii[r]) == 0);
            ENSURE(check_nearest(sim, position_of(sim, i), 3) == 0);
        }
    }
    orca_sim_destroy(sim);
    return 0;
}

/* The answers follow the state: after steps, removals, additions and moves. */
static int test_follows_state(void)
{
    test_rng g = {13};
    orca_sim *sim = new_sim(2);
    ENSURE(sim);
    ENSURE(check_nearest(sim, vec(0, 0), 3) == 0); /* no agents */
    ENSURE(check_radius(sim, vec(0, 0), 100) == 0);
    ENSURE(check_box(sim, vec(-1, -1), vec(1, 1)) == 0);
    for (int i = 0; i < 300; ++i) {
        ENSURE(add_at(sim, vec(uni(&g, -60, 60), uni(&g, -60, 60)), 10) == 0);
    }
    for (int round = 0; round < 12; ++round) {
        int n = orca_sim_agent_count(sim);
        for (int i = 0; i < n; ++i) {
            orca_agent_id id = orca_sim_agent_at(sim, i);
            ENSURE(orca_agent_set_preferred_velocity(sim, id, vec(uni(&g, -2, 2), uni(&g, -2, 2))) ==
                   ORCA_OK);
        }
        switch (round % 4) {
        case 0:
            ENSURE(orca_sim_step(sim, 0.25) == ORCA_OK);
            break;
        case 1:
            ENSURE(orca_sim_remove_agent(sim, orca_sim_agent_at(sim, irand(&g, n))) == ORCA_OK);
            break;
        case 2:
            ENSURE(add_at(sim, vec(uni(&g, -60, 60), uni(&g, -60, 60)), 40) == 0);
            break;
        default:
            ENSURE(orca_agent_set_position(sim, orca_sim_agent_at(sim, irand(&g, n)),
                                           vec(uni(&g, -500, 500), 3)) == ORCA_OK);
        }
        ENSURE(random_queries(sim, &g, 80, 3) == 0);
    }
    orca_sim_destroy(sim);
    return 0;
}

/* A smaller capacity: *count is the full number, the first capacity entries are written and
 * nothing after them. */
static int test_capacity(void)
{
    test_rng g = {14};
    orca_sim *sim = new_sim(1);
    ENSURE(sim);
    for (int i = 0; i < 100; ++i) {
        ENSURE(add_at(sim, vec(uni(&g, -10, 10), uni(&g, -10, 10)), 5) == 0);
    }
    int all[100], part[12], count = 0;
    ENSURE(orca_sim_query_radius(sim, vec(0, 0), 6, all, 100, &count) == ORCA_OK);
    ENSURE(count > 12);
    int full = count;
    for (int k = 0; k < 12; ++k) {
        part[k] = -1;
    }
    ENSURE(orca_sim_query_radius(sim, vec(0, 0), 6, part, 10, &count) == ORCA_OK);
    ENSURE(count == full);
    ENSURE(memcmp(part, all, 10 * sizeof part[0]) == 0 && part[10] == -1 && part[11] == -1);
    ENSURE(orca_sim_query_radius(sim, vec(0, 0), 6, NULL, 0, &count) == ORCA_OK);
    ENSURE(count == full);
    ENSURE(orca_sim_query_box(sim, vec(-5, -5), vec(5, 5), NULL, 0, &count) == ORCA_OK);
    ENSURE(count > 0);
    ENSURE(orca_sim_query_box(sim, vec(-5, -5), vec(5, 5), part, 3, NULL) == ORCA_OK);
    ENSURE(orca_sim_query_nearest(sim, vec(0, 0), 0, NULL, &count) == ORCA_OK && count == 0);
    orca_sim_destroy(sim);
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

/* Every argument outside its range is refused with a message naming it; the state stays. */
static int test_bad_arguments(void)
{
    orca_sim *sim = new_sim(1);
    ENSURE(sim);
    ENSURE(add_at(sim, vec(1, 2), 5) == 0);
    uint64_t h = orca_sim_hash(sim);
    int out[4], count = 99;
    double nan = NAN, inf = INFINITY;
    ENSURE(orca_sim_query_radius(NULL, vec(0, 0), 1, out, 4, &count) == ORCA_ERR_NULL);
    ENSURE(orca_sim_query_nearest(NULL, vec(0, 0), 1, out, &count) == ORCA_ERR_NULL);
    ENSURE(orca_sim_query_box(NULL, vec(0, 0), vec(1, 1), out, 4, &count) == ORCA_ERR_NULL);
    ENSURE(refused(sim, orca_sim_query_radius(sim, vec(nan, 0), 1, out, 4, &count), "center.x", h) == 0);
    ENSURE(refused(sim, orca_sim_query_radius(sim, vec(0, 2097152.0), 1, out, 4, &count), "center.y", h) == 0);
    ENSURE(refused(sim, orca_sim_query_radius(sim, vec(-inf, 0), 1, out, 4, &count), "center.x", h) == 0);
    ENSURE(orca_sim_query_radius(sim, vec(0, 2097151.75), 1, out, 4, &count) == ORCA_OK);
    double bad_r[6] = {-1, -0x1p-1074, nan, inf, 8388608.0 * (1 + 0x1p-52), 1e308};
    for (int k = 0; k < 6; ++k) {
        ENSURE(refused(sim, orca_sim_query_radius(sim, vec(0, 0), bad_r[k], out, 4, &count), "radius", h) == 0);
    }
    ENSURE(orca_sim_query_radius(sim, vec(0, 0), -0.0, out, 4, &count) == ORCA_OK);
    ENSURE(orca_sim_query_radius(sim, vec(0, 0), 0x1p-1074, out, 4, &count) == ORCA_OK);
    ENSURE(orca_sim_query_radius(sim, vec(-2097151.75, 2097151.75), 8388608.0, out, 4, &count) == ORCA_OK);
    ENSURE(count == 1);
    ENSURE(refused(sim, orca_sim_query_radius(sim, vec(0, 0), 1, NULL, 4, &count), "indices", h) == 0);
    ENSURE(refused(sim, orca_sim_query_radius(sim, vec(0, 0), 1, out, -1, &count), "capacity", h) == 0);
    ENSURE(refused(sim, orca_sim_query_nearest(sim, vec(0, nan), 1, out, &count), "point.y", h) == 0);
    ENSURE(refused(sim, orca_sim_query_nearest(sim, vec(0, 0), -1, out, &count), "k must", h) == 0);
    ENSURE(refused(sim, orca_sim_query_nearest(sim, vec(0, 0), 2, NULL, &count), "indices", h) == 0);
    ENSURE(refused(sim, orca_sim_query_box(sim, vec(nan, 0), vec(1, 1), out, 4, &count), "lo.x", h) == 0);
    ENSURE(refused(sim, orca_sim_query_box(sim, vec(0, 0), vec(1, inf), out, 4, &count), "hi.y", h) == 0);
    ENSURE(refused(sim, orca_sim_query_box(sim, vec(2, 0), vec(1, 1), out, 4, &count), "lo <= hi", h) == 0);
    ENSURE(refused(sim, orca_sim_query_box(sim, vec(0, 0), vec(1, 1), NULL, 1, &count), "indices", h) == 0);
    /* the last error is cleared by the next call that succeeds */
    ENSURE(orca_sim_query_box(sim, vec(0, 0), vec(1, 3), out, 4, &count) == ORCA_OK && count == 1);
    orca_sim_destroy(sim);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"uniform_dense", test_uniform_dense},
    {"clusters_hashed", test_clusters_hashed},
    {"far_reaching_agents", test_far_reaching_agents},
    {"ties_and_edges", test_ties_and_edges},
    {"underflow", test_underflow},
    {"follows_state", test_follows_state},
    {"capacity", test_capacity},
    {"bad_arguments", test_bad_arguments},
    {0, 0},
};
