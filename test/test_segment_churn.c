/* SPDX-License-Identifier: MIT */
/* Issue 17 for segments: deferred segment removal and the batch calls orca_sim_add_segments and
 * orca_sim_remove_segments, against independent truth:
 *   - interleavings: random sequences of segment adds (single, batch, polyline) and removals
 *     (single, batch), agent adds and removals, steps, queries, per-agent neighbours and
 *     constraints, overlap measurements, index lookups, hashes and save/load, on a simulation
 *     with 2 or 4 workers, against a reference with 1 worker doing every operation one at a
 *     time and compacting at once (it hashes after each one), and against the test's own list
 *     of the segments in index order (what removing from an array gives); now and then a
 *     simulation rebuilt from scratch from the live agents and that list (never having added
 *     the removed ones) must hash, and step, alike;
 *   - refusals: stale, repeated and null handles, NULL pointers, count < 0, count 0, points out
 *     of range over the whole binary64 range (and the edges that are accepted): the status,
 *     the entry named in the message, and the state unchanged;
 *   - the segment count limit of a batch, refused before any point is read.
 * Allocation failures of the new calls are in test_alloc.c. No expected value below was copied
 * from the library's output. */
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

static orca_vec2 rand_point(test_rng *g, double side)
{
    orca_vec2 p = {test_rng_uniform(g, -side, side), test_rng_uniform(g, -side, side)};
    return p;
}

static orca_agent_def random_agent(test_rng *g, double side)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = rand_point(g, side);
    d.preferred_velocity.x = test_rng_uniform(g, -2, 2);
    d.preferred_velocity.y = test_rng_uniform(g, -2, 2);
    d.radius = test_rng_uniform(g, 0.3, 1.0);
    d.neighbor_dist = test_rng_uniform(g, 2, 10);
    d.max_neighbors = (int)(test_rng_next(g) % 10);
    return d;
}

static int same_seg(orca_segment_id a, orca_segment_id b)
{
    return a.slot == b.slot && a.generation == b.generation && a.sim == b.sim;
}

static int same_vec(orca_vec2 a, orca_vec2 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The test's own record of a live segment: its handles in both simulations, its ends. */
typedef struct seg_rec {
    orca_segment_id m, r;
    orca_vec2 a, b;
} seg_rec;

#define MAX_SEGS 2048
#define MAX_AGENTS 1024

typedef struct world {
    orca_sim *m, *r;
    seg_rec segs[MAX_SEGS]; /* index order */
    int ns;
    orca_agent_id am[MAX_AGENTS], ar[MAX_AGENTS]; /* live agents, any order */
    int na;
} world;

/* The main simulation answers every index question as the list says, and the reference
 * agrees (it has nothing pending). */
static int check_segments(world *w, test_rng *g, int all)
{
    ENSURE_MSG(orca_sim_segment_count(w->m) == w->ns, "%d segments, the list has %d",
               orca_sim_segment_count(w->m), w->ns);
    ENSURE(orca_sim_segment_count(w->r) == w->ns);
    int probes = all ? w->ns : (w->ns < 6 ? w->ns : 6);
    for (int q = 0; q < probes; ++q) {
        int i = all ? q : (int)(test_rng_next(g) % (unsigned long long)w->ns);
        orca_segment_id a = orca_sim_segment_at(w->m, i), b = orca_sim_segment_at(w->r, i);
        ENSURE_MSG(same_seg(a, w->segs[i].m), "index %d: {%u,%u}, the list has {%u,%u}", i,
                   a.slot, a.generation, w->segs[i].m.slot, w->segs[i].m.generation);
        ENSURE(same_seg(b, w->segs[i].r));
        orca_vec2 pa, pb;
        ENSURE(orca_segment_get(w->m, a, &pa, &pb) == ORCA_OK);
        ENSURE(same_vec(pa, w->segs[i].a) && same_vec(pb, w->segs[i].b));
    }
    orca_segment_id none = {0, 0, 0};
    ENSURE(same_seg(orca_sim_segment_at(w->m, w->ns), none));
    ENSURE(same_seg(orca_sim_segment_at(w->m, -1), none));
    return 0;
}

/* A simulation built from scratch: the live agents in index order and the list's segments,
 * none of the removed ones ever added. */
static orca_sim *rebuilt(world *w)
{
    orca_sim *f = sim_new(1);
    if (!f) {
        return NULL;
    }
    int n = orca_sim_agent_count(w->m);
    for (int i = 0; i < n; ++i) {
        orca_agent_def d;
        if (orca_agent_get(w->m, orca_sim_agent_at(w->m, i), &d) != ORCA_OK ||
            orca_sim_add_agent(f, &d, NULL) != ORCA_OK) {
            orca_sim_destroy(f);
            return NULL;
        }
    }
    for (int k = 0; k < w->ns; ++k) {
        if (orca_sim_add_segment(f, w->segs[k].a, w->segs[k].b, NULL) != ORCA_OK) {
            orca_sim_destroy(f);
            return NULL;
        }
    }
    return f;
}

/* Takes k distinct random live segments out of the list (swapping each chosen one to the end
 * part, then closing the gaps in index order): their handles in ids (main) and rids. */
static void pick_segments(world *w, test_rng *g, int k, orca_segment_id *ids,
                          orca_segment_id *rids)
{
    for (int q = 0; q < k; ++q) {
        int at = (int)(test_rng_next(g) % (unsigned long long)w->ns);
        ids[q] = w->segs[at].m;
        rids[q] = w->segs[at].r;
        memmove(&w->segs[at], &w->segs[at + 1], (size_t)(w->ns - at - 1) * sizeof w->segs[0]);
        --w->ns;
    }
}

static int op_add_segments(world *w, test_rng *g, unsigned kind)
{
    int k = kind == 0 ? 1 : 1 + (int)(test_rng_next(g) % 24);
    if (w->ns + k + 1 > MAX_SEGS) {
        return 0;
    }
    orca_vec2 a[25], b[25];
    orca_segment_id ids[25];
    for (int q = 0; q < k; ++q) {
        a[q] = rand_point(g, 25);
        b[q] = q % 5 == 4 ? a[q] : rand_point(g, 25); /* a point obstacle now and then */
        if (kind == 2 && q > 0) {
            a[q] = b[q - 1]; /* a polyline */
        }
    }
    if (kind == 0) {
        ENSURE(orca_sim_add_segment(w->m, a[0], b[0], &ids[0]) == ORCA_OK);
    } else if (kind == 1) {
        ENSURE(orca_sim_add_segments(w->m, a, b, k, test_rng_next(g) % 4 ? ids : NULL) ==
               ORCA_OK);
        for (int q = 0; q < k; ++q) { /* the handles by index, when ids was NULL */
            ids[q] = orca_sim_segment_at(w->m, w->ns + q);
        }
    } else {
        orca_vec2 p[26];
        p[0] = a[0];
        for (int q = 0; q < k; ++q) {
            p[q + 1] = b[q];
        }
        ENSURE(orca_sim_add_polyline(w->m, p, k + 1, 0, ids) == ORCA_OK);
    }
    for (int q = 0; q < k; ++q) {
        seg_rec *e = &w->segs[w->ns + q];
        e->m = ids[q];
        e->a = a[q];
        e->b = b[q];
        ENSURE(orca_sim_add_segment(w->r, a[q], b[q], &e->r) == ORCA_OK);
        (void)orca_sim_hash(w->r); /* compacts at once */
    }
    w->ns += k;
    return 0;
}

static int op_remove_segments(world *w, test_rng *g, int batch)
{
    if (w->ns == 0) {
        return 0;
    }
    int k = batch ? 1 + (int)(test_rng_next(g) % (unsigned long long)(w->ns < 20 ? w->ns : 20))
                  : 1;
    orca_segment_id ids[20], rids[20];
    orca_segment_id keep = w->segs[0].m;
    pick_segments(w, g, k, ids, rids);
    for (int q = 0; q < k; ++q) {
        ENSURE(orca_sim_remove_segment(w->r, rids[q]) == ORCA_OK);
        (void)orca_sim_hash(w->r);
    }
    if (batch) {
        ENSURE(orca_sim_remove_segments(w->m, ids, k) == ORCA_OK);
    } else {
        ENSURE(orca_sim_remove_segment(w->m, ids[0]) == ORCA_OK);
    }
    /* stale at once, single and in a batch, with nothing changed by the refusal */
    orca_vec2 pa;
    ENSURE(orca_segment_get(w->m, ids[0], &pa, NULL) == ORCA_ERR_STALE);
    ENSURE(orca_sim_remove_segment(w->m, ids[k - 1]) == ORCA_ERR_STALE);
    if (w->ns > 0) {
        orca_segment_id two[2] = {w->segs[0].m, ids[0]};
        ENSURE(orca_sim_remove_segments(w->m, two, 2) == ORCA_ERR_STALE);
        ENSURE(strstr(orca_sim_last_error(w->m), "ids[1]") != NULL);
        orca_segment_id dup[3] = {w->segs[0].m, w->segs[w->ns - 1].m, w->segs[0].m};
        if (w->ns == 1) {
            dup[1] = w->segs[0].m; /* then ids[0] and ids[1] of two */
        }
        ENSURE(orca_sim_remove_segments(w->m, dup, w->ns == 1 ? 2 : 3) == ORCA_ERR_ARGUMENT);
        ENSURE(strstr(orca_sim_last_error(w->m), w->ns == 1 ? "ids[0] and ids[1]"
                                                            : "ids[0] and ids[2]") != NULL);
        ENSURE(orca_sim_segment_count(w->m) == w->ns);
        ENSURE(same_seg(orca_sim_segment_at(w->m, 0), w->segs[0].m));
    } else {
        ENSURE(orca_sim_remove_segments(w->m, &keep, 1) == ORCA_ERR_STALE);
    }
    return 0;
}

static int op_agents(world *w, test_rng *g, int remove)
{
    if (!remove && w->na < MAX_AGENTS - 8) {
        int k = 1 + (int)(test_rng_next(g) % 8);
        orca_agent_def d[8];
        for (int q = 0; q < k; ++q) {
            d[q] = random_agent(g, 25);
            ENSURE(orca_sim_add_agent(w->r, &d[q], &w->ar[w->na + q]) == ORCA_OK);
        }
        ENSURE(orca_sim_add_agents(w->m, d, k, &w->am[w->na]) == ORCA_OK);
        w->na += k;
    } else if (remove && w->na > 0) {
        int k = 1 + (int)(test_rng_next(g) % (unsigned long long)(w->na < 6 ? w->na : 6));
        orca_agent_id ids[6];
        for (int q = 0; q < k; ++q) {
            int at = (int)(test_rng_next(g) % (unsigned long long)w->na);
            ids[q] = w->am[at];
            ENSURE(orca_sim_remove_agent(w->r, w->ar[at]) == ORCA_OK);
            (void)orca_sim_hash(w->r);
            w->am[at] = w->am[w->na - 1];
            w->ar[at] = w->ar[w->na - 1];
            --w->na;
        }
        ENSURE(orca_sim_remove_agents(w->m, ids, k) == ORCA_OK);
    }
    return 0;
}

/* What reads the segments by index or builds the obstacle grid, with removals pending. */
static int op_readers(world *w, test_rng *g, unsigned kind)
{
    if (kind == 0 && w->na > 0) { /* an agent's obstacles (segment indices) and constraints */
        int at = (int)(test_rng_next(g) % (unsigned long long)w->na);
        int am[32], ar[32], sm[64], sr[64], cam = -1, car = -2, csm = -1, csr = -2;
        ENSURE(orca_sim_agent_neighbors(w->m, w->am[at], am, 32, &cam, sm, 64, &csm) == ORCA_OK);
        ENSURE(orca_sim_agent_neighbors(w->r, w->ar[at], ar, 32, &car, sr, 64, &csr) == ORCA_OK);
        ENSURE_MSG(cam == car && csm == csr, "agents %d/%d, segments %d/%d", cam, car, csm, csr);
        ENSURE(memcmp(am, ar, (size_t)(cam < 32 ? cam : 32) * sizeof *am) == 0);
        ENSURE(memcmp(sm, sr, (size_t)(csm < 64 ? csm : 64) * sizeof *sm) == 0);
        for (int q = 0; q < csm && q < 64; ++q) { /* indices into the list's order */
            ENSURE(sm[q] >= 0 && sm[q] < w->ns);
        }
        orca_halfplane pm[128], pr[128];
        int cm = -1, cr = -2, hm = -1, hr = -2;
        ENSURE(orca_sim_agent_constraints(w->m, w->am[at], 0.1, pm, 128, &cm, &hm) == ORCA_OK);
        ENSURE(orca_sim_agent_constraints(w->r, w->ar[at], 0.1, pr, 128, &cr, &hr) == ORCA_OK);
        ENSURE(cm == cr && hm == hr);
        ENSURE(memcmp(pm, pr, (size_t)(cm < 128 ? cm : 128) * sizeof *pm) == 0);
    } else if (kind == 1) {
        double am = -1, wm = -1, ar = -2, wr = -2;
        ENSURE(orca_sim_measure_overlap(w->m, &am, &wm) == ORCA_OK);
        ENSURE(orca_sim_measure_overlap(w->r, &ar, &wr) == ORCA_OK);
        ENSURE_BITS(am, ar);
        ENSURE_BITS(wm, wr);
    } else if (kind == 2 && w->na > 0) {
        int a[16], b[16], na = 0, nb = 0;
        orca_vec2 c = rand_point(g, 25);
        ENSURE(orca_sim_query_nearest(w->m, c, 16, a, &na) == ORCA_OK);
        ENSURE(orca_sim_query_nearest(w->r, c, 16, b, &nb) == ORCA_OK);
        ENSURE(na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0);
    } else if (kind == 3) { /* save, and load into the main simulation: handles kept */
        size_t sm = 0, sr = 0;
        ENSURE(orca_sim_save(w->m, NULL, 0, &sm) == ORCA_OK);
        ENSURE(orca_sim_save(w->r, NULL, 0, &sr) == ORCA_OK);
        ENSURE(sm == sr);
        unsigned char *bm = malloc(sm), *br = malloc(sr);
        ENSURE(bm && br);
        ENSURE(orca_sim_save(w->m, bm, sm, &sm) == ORCA_OK);
        ENSURE(orca_sim_save(w->r, br, sr, &sr) == ORCA_OK);
        /* the same bytes: the same state, slots and free lists as removals one at a time */
        ENSURE(memcmp(bm, br, sm) == 0);
        ENSURE(orca_sim_load(w->m, bm, sm) == ORCA_OK);
        free(bm);
        free(br);
    } else if (kind == 4) {
        ENSURE(orca_sim_hash(w->m) == orca_sim_hash(w->r));
    } else if (kind == 5) {
        orca_sim *f = rebuilt(w);
        ENSURE(f);
        ENSURE(orca_sim_hash(f) == orca_sim_hash(w->m));
        ENSURE(orca_sim_step(f, 0.1) == ORCA_OK);
        ENSURE(orca_sim_step(w->m, 0.1) == ORCA_OK);
        ENSURE(orca_sim_step(w->r, 0.1) == ORCA_OK);
        ENSURE(orca_sim_hash(f) == orca_sim_hash(w->m));
        orca_sim_destroy(f);
    }
    return 0;
}

static int test_interleavings(void)
{
    world *w = malloc(sizeof *w);
    ENSURE(w);
    for (unsigned seed = 1; seed <= 16; ++seed) {
        test_rng g = {seed * 6151u + 3};
        w->m = sim_new(seed % 2 ? 4 : 2);
        w->r = sim_new(1);
        ENSURE(w->m && w->r);
        w->ns = w->na = 0;
        /* a start: agents among walls */
        ENSURE(op_agents(w, &g, 0) == 0 && op_agents(w, &g, 0) == 0);
        ENSURE(op_add_segments(w, &g, 1) == 0);
        for (int ops = 0; ops < 300; ++ops) {
            unsigned op = (unsigned)(test_rng_next(&g) % 16);
            if (op <= 2) {
                ENSURE(op_add_segments(w, &g, op) == 0);
            } else if (op <= 5) {
                ENSURE(op_remove_segments(w, &g, op != 3) == 0);
            } else if (op <= 7) {
                ENSURE(op_agents(w, &g, op == 7) == 0);
            } else if (op == 8) {
                ENSURE(check_segments(w, &g, 0) == 0);
            } else if (op == 9) {
                ENSURE(orca_sim_step(w->m, 0.1) == ORCA_OK);
                ENSURE(orca_sim_step(w->r, 0.1) == ORCA_OK);
            } else {
                ENSURE(op_readers(w, &g, op - 10) == 0);
            }
        }
        ENSURE(check_segments(w, &g, 1) == 0);
        ENSURE(op_readers(w, &g, 5) == 0);
        ENSURE(orca_sim_hash(w->m) == orca_sim_hash(w->r));
        orca_sim_destroy(w->m);
        orca_sim_destroy(w->r);
    }
    free(w);
    return 0;
}

/* Removals in every order (ascending, descending, interleaved) between index lookups: the
 * lookups answer from the pending list as the list of the test says. */
static int test_orders(void)
{
    enum { N = 300 };
    for (int order = 0; order < 3; ++order) {
        orca_sim *s = sim_new(1);
        ENSURE(s);
        orca_vec2 a[N], b[N];
        orca_segment_id ids[N], list[N];
        for (int k = 0; k < N; ++k) {
            a[k] = (orca_vec2){k, 0};
            b[k] = (orca_vec2){k, 1};
        }
        ENSURE(orca_sim_add_segments(s, a, b, N, ids) == ORCA_OK);
        memcpy(list, ids, sizeof list);
        int n = N;
        for (int q = 0; q < N / 2; ++q) {
            int k = order == 0 ? 2 * q : (order == 1 ? N - 1 - 2 * q : (q * 7919) % N);
            int at = -1;
            for (int t = 0; t < n; ++t) {
                at = same_seg(list[t], ids[k]) ? t : at;
            }
            if (at < 0) {
                continue; /* already removed (the interleaved order repeats) */
            }
            ENSURE(orca_sim_remove_segment(s, ids[k]) == ORCA_OK);
            memmove(&list[at], &list[at + 1], (size_t)(n - at - 1) * sizeof list[0]);
            --n;
            ENSURE(orca_sim_segment_count(s) == n);
            for (int t = 0; t < n; t += 17) {
                ENSURE(same_seg(orca_sim_segment_at(s, t), list[t]));
            }
            ENSURE(same_seg(orca_sim_segment_at(s, n - 1), list[n - 1]));
        }
        /* adding with removals pending: after the live ones, in the order given */
        orca_segment_id more[2];
        ENSURE(orca_sim_add_segments(s, a, b, 2, more) == ORCA_OK);
        ENSURE(same_seg(orca_sim_segment_at(s, n), more[0]));
        ENSURE(same_seg(orca_sim_segment_at(s, n + 1), more[1]));
        ENSURE(same_seg(orca_sim_segment_at(s, n - 1), list[n - 1]));
        orca_sim_destroy(s);
    }
    return 0;
}

/* Pending removals outnumbering the live segments are compacted by the next addition: many
 * remove/add rounds without a step keep the answers of the test's list. */
static int test_remove_add_rounds(void)
{
    orca_sim *s = sim_new(1), *r = sim_new(1);
    ENSURE(s && r);
    test_rng g = {77};
    enum { N = 40 };
    orca_segment_id list[N], rlist[N];
    for (int k = 0; k < N; ++k) {
        orca_vec2 a = rand_point(&g, 10), b = rand_point(&g, 10);
        ENSURE(orca_sim_add_segment(s, a, b, &list[k]) == ORCA_OK);
        ENSURE(orca_sim_add_segment(r, a, b, &rlist[k]) == ORCA_OK);
    }
    for (int round = 0; round < 2000; ++round) {
        int at = (int)(test_rng_next(&g) % N);
        ENSURE(orca_sim_remove_segment(s, list[at]) == ORCA_OK);
        ENSURE(orca_sim_remove_segment(r, rlist[at]) == ORCA_OK);
        (void)orca_sim_hash(r);
        memmove(&list[at], &list[at + 1], (size_t)(N - at - 1) * sizeof list[0]);
        memmove(&rlist[at], &rlist[at + 1], (size_t)(N - at - 1) * sizeof rlist[0]);
        orca_vec2 a = rand_point(&g, 10), b = rand_point(&g, 10);
        ENSURE(orca_sim_add_segments(s, &a, &b, 1, &list[N - 1]) == ORCA_OK);
        ENSURE(orca_sim_add_segment(r, a, b, &rlist[N - 1]) == ORCA_OK);
        ENSURE(orca_sim_segment_count(s) == N);
        int t = (int)(test_rng_next(&g) % N);
        ENSURE(same_seg(orca_sim_segment_at(s, t), list[t]));
    }
    ENSURE(orca_sim_hash(s) == orca_sim_hash(r));
    orca_sim_destroy(s);
    orca_sim_destroy(r);
    return 0;
}

/* The refusals of the batch calls: status, the entry and value named, nothing changed. */
static int test_refusals(void)
{
    orca_sim *s = sim_new(1);
    ENSURE(s);
    orca_vec2 a[4] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}}, b[4] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}};
    orca_segment_id ids[4];
    ENSURE(orca_sim_add_segments(s, a, b, 4, ids) == ORCA_OK);
    ENSURE(orca_sim_remove_segment(s, ids[1]) == ORCA_OK); /* one pending */
    uint64_t h0 = orca_sim_hash(s);
    ENSURE(orca_sim_remove_segment(s, ids[3]) == ORCA_OK); /* and one pending from here on */
    orca_segment_id live[2] = {ids[0], ids[2]};

    /* add_segments: NULL, counts */
    ENSURE(orca_sim_add_segments(NULL, a, b, 1, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_add_segments(s, a, b, -1, NULL) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(s), "-1") != NULL);
    ENSURE(orca_sim_add_segments(s, NULL, NULL, 0, NULL) == ORCA_OK);
    ENSURE(orca_sim_add_segments(s, NULL, b, 2, NULL) == ORCA_ERR_NULL);
    ENSURE(strstr(orca_sim_last_error(s), "a is NULL") != NULL);
    ENSURE(orca_sim_add_segments(s, a, NULL, 2, NULL) == ORCA_ERR_NULL);
    ENSURE(strstr(orca_sim_last_error(s), "b is NULL") != NULL);
    /* points out of range, over the whole binary64 range, in either end and coordinate: the
     * entry and its value named */
    const double bad[] = {0x1p21, -0x1p21, 0x1.0000000000001p21, 1e300, -0x1.fffffffffffffp1023,
                          INFINITY, -INFINITY, NAN};
    for (size_t v = 0; v < sizeof bad / sizeof bad[0]; ++v) {
        for (int which = 0; which < 4; ++which) {
            orca_vec2 pa[3] = {{0, 0}, {5, 5}, {6, 6}}, pb[3] = {{1, 0}, {5, 6}, {7, 7}};
            orca_vec2 *p = which < 2 ? &pa[2] : &pb[1];
            if (which % 2) {
                p->y = bad[v];
            } else {
                p->x = bad[v];
            }
            orca_segment_id out[3] = {{9, 9, 9}, {9, 9, 9}, {9, 9, 9}};
            ENSURE(orca_sim_add_segments(s, pa, pb, 3, out) == ORCA_ERR_ARGUMENT);
            const char *msg = orca_sim_last_error(s);
            char want[32];
            snprintf(want, sizeof want, "%s.%c", which < 2 ? "a[2]" : "b[1]",
                     which % 2 ? 'y' : 'x');
            ENSURE_MSG(strstr(msg, want) != NULL && strstr(msg, "nothing was added") != NULL,
                       "'%s' does not name %s", msg, want);
            char value[64];
            snprintf(value, sizeof value, "got %.17g", bad[v]);
            ENSURE_MSG(strstr(msg, value) != NULL, "'%s' does not give %s", msg, value);
            ENSURE(out[0].slot == 9 && out[2].generation == 9); /* untouched */
            ENSURE(orca_sim_segment_count(s) == 2);
        }
    }
    /* the count limit, refused before any point is read (a and b hold 4) */
    ENSURE(orca_sim_add_segments(s, a, b, 1 << 28, NULL) == ORCA_ERR_LIMIT);
    ENSURE(orca_sim_add_segments(s, a, b, 0x7fffffff, NULL) == ORCA_ERR_LIMIT);
    ENSURE(strstr(orca_sim_last_error(s), "too many segments") != NULL);
    ENSURE(orca_sim_segment_count(s) == 2);

    /* remove_segments */
    ENSURE(orca_sim_remove_segments(NULL, live, 1) == ORCA_ERR_NULL);
    ENSURE(orca_sim_remove_segments(s, live, -3) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_remove_segments(s, NULL, 1) == ORCA_ERR_NULL);
    ENSURE(orca_sim_remove_segments(s, NULL, 0) == ORCA_OK);
    orca_segment_id stale[4] = {ids[0], ids[2], {0, 0, 0}, ids[3]};
    ENSURE(orca_sim_remove_segments(s, stale, 4) == ORCA_ERR_STALE);
    ENSURE(strstr(orca_sim_last_error(s), "ids[2]") != NULL); /* the null handle */
    stale[2] = (orca_segment_id){ids[0].slot, ids[0].generation + 1, ids[0].sim};
    ENSURE(orca_sim_remove_segments(s, stale, 4) == ORCA_ERR_STALE);
    ENSURE(strstr(orca_sim_last_error(s), "ids[2]") != NULL);
    stale[2] = (orca_segment_id){1000000, 1, orca_sim_id(s)};
    ENSURE(orca_sim_remove_segments(s, stale, 4) == ORCA_ERR_STALE);
    stale[2] = ids[1]; /* removed and compacted (the hash above) */
    ENSURE(orca_sim_remove_segments(s, stale, 3) == ORCA_ERR_STALE);
    ENSURE(strstr(orca_sim_last_error(s), "ids[2]") != NULL);
    orca_segment_id rep[3] = {ids[2], ids[0], ids[2]};
    ENSURE(orca_sim_remove_segments(s, rep, 3) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(s), "ids[0] and ids[2]") != NULL);
    /* the repeat of the lowest index is named, by its two entries */
    orca_segment_id rep2[4] = {ids[2], ids[0], ids[2], ids[0]};
    ENSURE(orca_sim_remove_segments(s, rep2, 4) == ORCA_ERR_ARGUMENT);
    ENSURE(strstr(orca_sim_last_error(s), "ids[1] and ids[3]") != NULL);
    orca_segment_id rep3[3] = {ids[0], ids[2], ids[2]};
    ENSURE(orca_sim_remove_segments(s, rep3, 3) == ORCA_ERR_ARGUMENT);
    ENSURE_MSG(strstr(orca_sim_last_error(s), "ids[1] and ids[2]") != NULL, "%s",
               orca_sim_last_error(s));
    ENSURE(orca_sim_remove_segment(NULL, ids[0]) == ORCA_ERR_NULL);
    ENSURE(orca_sim_segment_count(NULL) == 0);
    ENSURE(orca_sim_segment_at(NULL, 0).generation == 0);
    orca_vec2 only_b;
    ENSURE(orca_segment_get(s, ids[2], NULL, &only_b) == ORCA_OK && same_vec(only_b, b[2]));
    ENSURE(orca_sim_segment_count(s) == 2);
    ENSURE(same_seg(orca_sim_segment_at(s, 0), ids[0]) &&
           same_seg(orca_sim_segment_at(s, 1), ids[2]));
    /* the state is the one before the refusals, less the one removal made since */
    ENSURE(orca_sim_add_segment(s, a[3], b[3], &ids[3]) == ORCA_OK);
    ENSURE(orca_sim_hash(s) == h0);

    /* the accepted edges: the largest finite magnitudes below the limit, the tiniest values
     * and -0, stored with their bits */
    orca_vec2 ea[3] = {{0x1.fffffffffffffp20, -0x1.fffffffffffffp20}, {0x1p-1074, -0x1p-1074},
                       {-0.0, 0x1p-1022}};
    orca_vec2 eb[3] = {{-0x1.fffffffffffffp20, 0.0}, {-0.0, 0x1.fffffffffffffp20},
                       {0x1p-1074, 0x1p-1074}};
    orca_segment_id eid[3];
    ENSURE(orca_sim_add_segments(s, ea, eb, 3, eid) == ORCA_OK);
    for (int k = 0; k < 3; ++k) {
        orca_vec2 pa, pb;
        ENSURE(orca_segment_get(s, eid[k], &pa, &pb) == ORCA_OK);
        ENSURE(same_vec(pa, ea[k]) && same_vec(pb, eb[k]));
        ENSURE(same_seg(orca_sim_segment_at(s, 3 + k), eid[k]));
    }
    orca_agent_def d = orca_agent_def_default();
    d.position = (orca_vec2){0.5, 0.25};
    d.preferred_velocity = (orca_vec2){1, 0};
    ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    ENSURE(orca_sim_remove_agents(s, NULL, 0) == ORCA_OK && orca_sim_agent_count(s) == 1);
    ENSURE(orca_sim_remove_segments(s, eid, 2) == ORCA_OK);
    ENSURE(orca_sim_step(s, 0.1) == ORCA_OK);
    ENSURE(orca_sim_segment_count(s) == 4);
    ENSURE(same_seg(orca_sim_segment_at(s, 3), eid[2]));
    orca_sim_destroy(s);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"refusals", test_refusals},
    {"orders", test_orders},
    {"remove_add_rounds", test_remove_add_rounds},
    {"interleavings", test_interleavings},
    {0, 0},
};
