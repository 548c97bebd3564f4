/* SPDX-License-Identifier: MIT */
/* Allocation failures (docs/limits.md, "Sizes"): through orca_set_allocator's hooks, the 1st,
 * 2nd, ... allocation of every public call that allocates is made to fail, until the call
 * runs without a failure. Each failure must give the documented status with a message, leave
 * the state's hash as it was, leak nothing, and the same call must then succeed and give the
 * bits it gives when nothing ever failed. The hooks also count blocks, so a leak fails the
 * test in every build (ASan finds it too), and they check that the library allocates only on
 * the calling thread. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orca/orca.h>

#include "alloc.h"
#include "test.h"
#include "thread.h"

/* --- the failing allocator ---------------------------------------------------------------- */

typedef struct fail_alloc {
    long calls;   /* allocations and resizes since arming */
    long fail_at; /* this one (1-based) fails; 0: none */
    long failed;  /* how many failed */
    long live;    /* blocks allocated and not released */
    long total;   /* allocations and resizes ever */
    orca_thread_ident owner;
    int wrong_thread;
} fail_alloc;

static fail_alloc g_fa;

static int should_fail(void)
{
    if (orca_thread_id() != g_fa.owner) {
        g_fa.wrong_thread = 1;
    }
    ++g_fa.total;
    if (g_fa.fail_at > 0 && ++g_fa.calls == g_fa.fail_at) {
        ++g_fa.failed;
        return 1;
    }
    return 0;
}

static void *fa_alloc(size_t size, void *context)
{
    (void)context;
    if (should_fail()) {
        return NULL;
    }
    void *p = malloc(size);
    g_fa.live += p != NULL;
    return p;
}

static void *fa_resize(void *p, size_t size, void *context)
{
    (void)context;
    return should_fail() ? NULL : realloc(p, size);
}

static void fa_release(void *p, void *context)
{
    (void)context;
    --g_fa.live;
    free(p);
}

static int install(void)
{
    g_fa.owner = orca_thread_id();
    orca_allocator a = {fa_alloc, fa_resize, fa_release, NULL};
    return orca_set_allocator(&a) == ORCA_OK ? 0 : 1;
}

static void arm(long n)
{
    g_fa.calls = 0;
    g_fa.failed = 0;
    g_fa.fail_at = n;
}

static void disarm(void)
{
    g_fa.fail_at = 0;
}

/* --- fixtures ----------------------------------------------------------------------------- */

static orca_sim *new_sim(int workers)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    orca_sim *s = NULL;
    return orca_sim_create(&def, &s) == ORCA_OK ? s : NULL;
}

/* n agents on a jittered lattice of spacing `spacing` (a sparse one, with a huge spacing,
 * takes the hashed grid), walking to the other side, and segments a few walls. */
static int populate(orca_sim *s, int n, double spacing, int segments)
{
    test_rng g = {0xa110cull + (unsigned)n};
    int side = 1;
    while (side * side < n) {
        ++side;
    }
    for (int i = 0; i < n; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(spacing * (i % side) + test_rng_uniform(&g, 0, 0.1),
                         spacing * (i / side) + test_rng_uniform(&g, 0, 0.1));
        d.preferred_velocity = vec(test_rng_uniform(&g, -1, 1), test_rng_uniform(&g, -1, 1));
        d.max_neighbors = 1 + i % 12;
        ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    }
    for (int k = 0; k < segments; ++k) {
        double y = spacing * side * test_rng_uniform(&g, 0, 1);
        ENSURE(orca_sim_add_segment(s, vec(-5, y), vec(spacing * side * 0.5, y + 1), NULL) ==
               ORCA_OK);
    }
    return 0;
}

/* The checks after a call that failed at injection n: the status, a message, the hash. */
static int check_failure(const char *what, long n, orca_status st, orca_status expect,
                         const char *message, uint64_t h0, uint64_t h)
{
    ENSURE_MSG(st == expect, "%s, allocation %ld failing: %s, expected %s", what, n,
               orca_status_name(st), orca_status_name(expect));
    ENSURE_MSG(message && strstr(message, "memory") != NULL,
               "%s, allocation %ld failing: message '%s' does not say memory", what, n,
               message ? message : "(null)");
    ENSURE_MSG(h == h0, "%s, allocation %ld failing: the state changed", what, n);
    return 0;
}

/* --- the calls ---------------------------------------------------------------------------- */

/* A call on an existing simulation. setup builds the state (without failures); call makes the
 * call under test and returns its status. The reference is the same call with nothing
 * failing: after each failure, the call is repeated without failures and must give the
 * reference's status and hash. */
typedef struct sim_case {
    const char *name;
    int workers;
    int (*setup)(orca_sim *s);
    orca_status (*call)(orca_sim *s);
} sim_case;

static int setup_dense(orca_sim *s) { return populate(s, 300, 3.0, 6); }
static int setup_sparse(orca_sim *s) { return populate(s, 200, 20000.0, 0); }
static int setup_full(orca_sim *s) { return populate(s, 64, 3.0, 16); } /* capacities full */

/* the dense scene inside a room (a loop around it) with a square pillar (a hole) beside it
 * (every agent's disc must fit in the walkable area) */
static int setup_room(orca_sim *s)
{
    ENSURE(populate(s, 300, 3.0, 6) == 0);
    orca_vec2 room[4] = {vec(-10, -10), vec(70, -10), vec(70, 70), vec(-10, 70)};
    orca_vec2 pillar[4] = {vec(56, 56), vec(56, 59), vec(59, 59), vec(59, 56)};
    ENSURE(orca_sim_add_boundary(s, room, 4, NULL) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(s, pillar, 4, NULL) == ORCA_OK);
    return 0;
}
/* a 40-point loop (a zigzag ring) around the agents and the room: the edge arrays grow, and
 * the agents are checked against it */
static orca_status call_add_boundary(orca_sim *s)
{
    orca_vec2 p[40];
    for (int k = 0; k < 20; ++k) {
        p[k] = vec(-60 + 10.0 * k, -40 + (k % 2) * 3.0);
        p[39 - k] = vec(-60 + 10.0 * k, 110 + (k % 2) * 3.0);
    }
    return orca_sim_add_boundary(s, p, 40, NULL);
}
/* the dense scene with avoidance settings other than the defaults (the extended path's
 * sorted copy of them is allocated by the step: docs/extensions.md) */
static int set_avoidance(orca_sim *s)
{
    for (int32_t i = 0; i < orca_sim_agent_count(s); ++i) {
        orca_agent_avoidance a = orca_agent_avoidance_default();
        a.layers = 1u << (i % 3);
        a.mask = 0x7u & ~(1u << ((i + 1) % 3));
        a.priority = 1 + i % 4;
        a.locked = i % 17 == 0;
        ENSURE(orca_agent_set_avoidance(s, orca_sim_agent_at(s, i), &a) == ORCA_OK);
    }
    return 0;
}
static int setup_avoid(orca_sim *s)
{
    ENSURE(populate(s, 300, 3.0, 6) == 0);
    return set_avoidance(s);
}
static int setup_room_avoid(orca_sim *s)
{
    ENSURE(setup_room(s) == 0);
    return set_avoidance(s);
}
static orca_status call_step(orca_sim *s) { return orca_sim_step(s, 0.25); }
static orca_status call_add_agent(orca_sim *s)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(-30, -30);
    return orca_sim_add_agent(s, &d, NULL);
}
/* the room and its pillar without agents: nothing built for the check yet */
static int setup_room_empty(orca_sim *s)
{
    orca_vec2 room[4] = {vec(-10, -10), vec(70, -10), vec(70, 70), vec(-10, 70)};
    orca_vec2 pillar[4] = {vec(56, 56), vec(56, 59), vec(59, 59), vec(59, 56)};
    ENSURE(orca_sim_add_boundary(s, room, 4, NULL) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(s, pillar, 4, NULL) == ORCA_OK);
    return 0;
}
/* an agent in the room, beside the pillar: checked against the walls (the check's index) */
static orca_status call_add_agent_room(orca_sim *s)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(62, 64);
    return orca_sim_add_agent(s, &d, NULL);
}
static orca_status call_add_segment(orca_sim *s)
{
    return orca_sim_add_segment(s, vec(-40, 0), vec(-40, 10), NULL);
}
static orca_status call_add_polyline(orca_sim *s)
{
    orca_vec2 p[40];
    for (int k = 0; k < 40; ++k) {
        p[k] = vec(-50 - k, (k % 2) * 3.0);
    }
    return orca_sim_add_polyline(s, p, 40, 1, NULL);
}
static orca_status call_add_segments(orca_sim *s)
{
    orca_vec2 a[40], b[40];
    for (int k = 0; k < 40; ++k) {
        a[k] = vec(-60 - k, 0);
        b[k] = vec(-60 - k, 2 + (k % 3));
    }
    return orca_sim_add_segments(s, a, b, 40, NULL);
}
/* batch removals (with one removal pending before them) */
static orca_status call_remove_agents(orca_sim *s)
{
    orca_agent_id ids[5];
    for (int k = 0; k < 5; ++k) {
        ids[k] = orca_sim_agent_at(s, 40 - 7 * k);
    }
    return orca_sim_remove_agents(s, ids, 5);
}
static orca_status call_remove_segments(orca_sim *s)
{
    orca_segment_id ids[5];
    for (int k = 0; k < 5; ++k) {
        ids[k] = orca_sim_segment_at(s, 14 - 3 * k);
    }
    return orca_sim_remove_segments(s, ids, 5);
}
static int setup_full_pending(orca_sim *s)
{
    ENSURE(populate(s, 64, 3.0, 16) == 0);
    ENSURE(orca_sim_remove_agent(s, orca_sim_agent_at(s, 1)) == ORCA_OK);
    ENSURE(orca_sim_remove_segment(s, orca_sim_segment_at(s, 1)) == ORCA_OK);
    return 0;
}
static orca_status call_workers(orca_sim *s) { return orca_sim_set_worker_count(s, 3); }
static orca_status call_constraints(orca_sim *s)
{
    orca_halfplane hp[8];
    int count = 0;
    return orca_sim_agent_constraints(s, orca_sim_agent_at(s, 5), 0.25, hp, 8, &count, NULL);
}
static orca_status call_neighbors(orca_sim *s)
{
    int a[8], g[8], na = 0, ng = 0;
    return orca_sim_agent_neighbors(s, orca_sim_agent_at(s, 7), a, 8, &na, g, 8, &ng);
}
static orca_status call_overlap(orca_sim *s)
{
    double a = 0, w = 0;
    return orca_sim_measure_overlap(s, &a, &w);
}

static unsigned char *g_snapshot;
static size_t g_snapshot_size;
static orca_status call_load(orca_sim *s) { return orca_sim_load(s, g_snapshot, g_snapshot_size); }
static unsigned char *g_snapshot_bnd; /* with boundaries */
static size_t g_snapshot_bnd_size;
static orca_status call_load_bnd(orca_sim *s)
{
    return orca_sim_load(s, g_snapshot_bnd, g_snapshot_bnd_size);
}

/* Runs one case: returns the number of injected failures, or -1. */
static long run_sim_case(const sim_case *c)
{
    /* the reference: nothing fails */
    orca_sim *ref = new_sim(c->workers);
    ENSURE(ref && c->setup(ref) == 0);
    orca_status want = c->call(ref);
    uint64_t want_hash = orca_sim_hash(ref);
    ENSURE_MSG(want == ORCA_OK, "%s: the reference call failed: %s", c->name,
               orca_sim_last_error(ref));
    orca_sim_destroy(ref);
    long n = 1;
    for (;; ++n) {
        orca_sim *s = new_sim(c->workers);
        ENSURE(s && c->setup(s) == 0);
        uint64_t h0 = orca_sim_hash(s);
        arm(n);
        orca_status st = c->call(s);
        long failed = g_fa.failed;
        disarm();
        if (failed == 0) {
            ENSURE_MSG(st == want && orca_sim_hash(s) == want_hash, "%s: %s", c->name,
                       orca_status_name(st));
            orca_sim_destroy(s);
            break;
        }
        if (check_failure(c->name, n, st, ORCA_ERR_MEMORY, orca_sim_last_error(s), h0,
                          orca_sim_hash(s)) != 0) {
            return -1;
        }
        /* the next call succeeds, with the reference's bits */
        st = c->call(s);
        ENSURE_MSG(st == want && orca_sim_hash(s) == want_hash,
                   "%s, after allocation %ld failed: %s (%s)", c->name, n, orca_status_name(st),
                   orca_sim_last_error(s));
        /* and the simulation goes on as the reference would */
        ENSURE(orca_sim_step(s, 0.25) == ORCA_OK);
        orca_sim_destroy(s);
    }
    return n - 1;
}

static int test_sim_calls(void)
{
    ENSURE(install() == 0);
    /* a snapshot of a state with free slots (removed agents and segments) */
    orca_sim *src = new_sim(1);
    ENSURE(src && populate(src, 120, 3.0, 12) == 0);
    ENSURE(orca_sim_remove_agent(src, orca_sim_agent_at(src, 17)) == ORCA_OK);
    ENSURE(orca_sim_remove_segment(src, orca_sim_segment_at(src, 3)) == ORCA_OK);
    ENSURE(orca_sim_step(src, 0.25) == ORCA_OK);
    ENSURE(orca_sim_save(src, NULL, 0, &g_snapshot_size) == ORCA_OK);
    g_snapshot = malloc(g_snapshot_size);
    ENSURE(g_snapshot && orca_sim_save(src, g_snapshot, g_snapshot_size, &g_snapshot_size) ==
                             ORCA_OK);
    orca_sim_destroy(src);
    src = new_sim(1);
    ENSURE(src && setup_room(src) == 0 && call_add_boundary(src) == ORCA_OK);
    ENSURE(orca_sim_step(src, 0.25) == ORCA_OK);
    ENSURE(orca_sim_save(src, NULL, 0, &g_snapshot_bnd_size) == ORCA_OK);
    g_snapshot_bnd = malloc(g_snapshot_bnd_size);
    ENSURE(g_snapshot_bnd && orca_sim_save(src, g_snapshot_bnd, g_snapshot_bnd_size,
                                           &g_snapshot_bnd_size) == ORCA_OK);
    orca_sim_destroy(src);

    const sim_case cases[] = {
        {"step (dense grid, walls)", 1, setup_dense, call_step},
        {"step (dense grid, 2 workers)", 2, setup_dense, call_step},
        {"step (hashed grid)", 1, setup_sparse, call_step},
        {"add_agent (growing)", 1, setup_full, call_add_agent},
        {"add_segment (growing)", 1, setup_full, call_add_segment},
        {"add_polyline", 1, setup_full, call_add_polyline},
        {"add_segments (growing)", 1, setup_full_pending, call_add_segments},
        {"remove_agents", 1, setup_full_pending, call_remove_agents},
        {"remove_segments", 1, setup_full_pending, call_remove_segments},
        {"remove_agents (first removals)", 1, setup_full, call_remove_agents},
        {"remove_segments (first removals)", 1, setup_full, call_remove_segments},
        {"set_worker_count", 1, setup_dense, call_workers},
        {"agent_constraints", 1, setup_dense, call_constraints},
        {"agent_neighbors", 2, setup_sparse, call_neighbors},
        {"measure_overlap", 1, setup_dense, call_overlap},
        {"load", 1, setup_dense, call_load},
        {"load (2 workers)", 2, setup_sparse, call_load},
        {"add_boundary (first)", 1, setup_dense, call_add_boundary},
        {"add_boundary (growing)", 1, setup_room, call_add_boundary},
        {"add_agent (boundaries)", 1, setup_room_empty, call_add_agent_room},
        {"step (boundaries)", 1, setup_room, call_step},
        {"step (boundaries, 2 workers)", 2, setup_room, call_step},
        {"step (avoidance settings)", 1, setup_avoid, call_step},
        {"step (avoidance, 2 workers)", 2, setup_avoid, call_step},
        {"step (avoidance, boundaries)", 1, setup_room_avoid, call_step},
        {"agent_constraints (boundaries)", 1, setup_room, call_constraints},
        {"load (boundaries)", 1, setup_room, call_load_bnd},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        long injected = run_sim_case(&cases[k]);
        ENSURE_MSG(injected >= 1, "%s: no allocation to fail", cases[k].name);
        printf("  %-30s %ld allocations failed one at a time\n", cases[k].name, injected);
    }
    free(g_snapshot);
    free(g_snapshot_bnd);
    ENSURE_MSG(g_fa.live == 0, "%ld blocks leaked", g_fa.live);
    return orca_set_allocator(NULL);
}

/* A removal whose pending list cannot grow compacts the pending removals and marks the agent
 * in the room that frees: it succeeds, with the bits of removals done one at a time. */
static int test_remove_when_pending_list_full(void)
{
    ENSURE(install() == 0);
    orca_sim *s = new_sim(1), *ref = new_sim(1);
    ENSURE(s && ref && populate(s, 200, 3.0, 0) == 0 && populate(ref, 200, 3.0, 0) == 0);
    orca_agent_id ids[65], rids[65];
    for (int k = 0; k < 65; ++k) {
        ids[k] = orca_sim_agent_at(s, 3 * k);
        rids[k] = orca_sim_agent_at(ref, 3 * k);
    }
    for (int k = 0; k < 64; ++k) { /* the pending list's first block is full */
        ENSURE(orca_sim_remove_agent(s, ids[k]) == ORCA_OK);
    }
    arm(1);
    orca_status st = orca_sim_remove_agent(s, ids[64]);
    long failed = g_fa.failed;
    disarm();
    ENSURE_MSG(failed == 1 && st == ORCA_OK, "failed %ld, %s", failed, orca_status_name(st));
    for (int k = 0; k < 65; ++k) {
        ENSURE(orca_sim_remove_agent(ref, rids[k]) == ORCA_OK);
        (void)orca_sim_positions(ref); /* compacted at once */
    }
    ENSURE(orca_sim_agent_count(s) == 135 && orca_sim_hash(s) == orca_sim_hash(ref));
    ENSURE(orca_sim_step(s, 0.25) == ORCA_OK && orca_sim_step(ref, 0.25) == ORCA_OK);
    ENSURE(orca_sim_hash(s) == orca_sim_hash(ref));
    orca_sim_destroy(s);
    orca_sim_destroy(ref);
    ENSURE_MSG(g_fa.live == 0, "%ld blocks leaked", g_fa.live);
    return orca_set_allocator(NULL);
}

/* A segment removal whose pending list cannot grow (the first one, or the 65th pending) still
 * succeeds: the pending removals and this one are made at once, with the bits and handles of
 * removals one at a time. */
static int test_remove_segment_when_pending_list_full(void)
{
    ENSURE(install() == 0);
    orca_sim *s = new_sim(1), *ref = new_sim(1);
    ENSURE(s && ref && populate(s, 50, 3.0, 200) == 0 && populate(ref, 50, 3.0, 200) == 0);
    orca_segment_id ids[66], rids[66];
    for (int k = 0; k < 66; ++k) {
        ids[k] = orca_sim_segment_at(s, 3 * k);
        rids[k] = orca_sim_segment_at(ref, 3 * k);
    }
    for (int k = 0; k < 66; ++k) {
        arm(k == 0 || k == 65 ? 1 : 0); /* no list yet; the list's first block full */
        orca_status st = orca_sim_remove_segment(s, ids[k]);
        long failed = g_fa.failed;
        disarm();
        ENSURE_MSG(st == ORCA_OK && (failed == 1) == (k == 0 || k == 65), "removal %d: %s, %ld",
                   k, orca_status_name(st), failed);
        ENSURE(orca_sim_remove_segment(ref, rids[k]) == ORCA_OK);
        (void)orca_sim_hash(ref); /* compacted at once */
        ENSURE(orca_sim_remove_segment(s, ids[k]) == ORCA_ERR_STALE);
    }
    ENSURE(orca_sim_segment_count(s) == 134);
    for (int k = 0; k < 134; ++k) {
        orca_segment_id a = orca_sim_segment_at(s, k), b = orca_sim_segment_at(ref, k);
        ENSURE(a.slot == b.slot && a.generation == b.generation);
    }
    ENSURE(orca_sim_hash(s) == orca_sim_hash(ref));
    ENSURE(orca_sim_step(s, 0.25) == ORCA_OK && orca_sim_step(ref, 0.25) == ORCA_OK);
    ENSURE(orca_sim_hash(s) == orca_sim_hash(ref));
    orca_sim_destroy(s);
    orca_sim_destroy(ref);
    ENSURE_MSG(g_fa.live == 0, "%ld blocks leaked", g_fa.live);
    return orca_set_allocator(NULL);
}

/* orca_sim_create, with and without the worker pool: the message comes from
 * orca_sim_last_error(NULL). */
static int test_create(void)
{
    ENSURE(install() == 0);
    for (int workers = 1; workers <= 4; workers += 3) {
        long n = 1;
        for (;; ++n) {
            orca_sim_def def = orca_sim_def_default();
            def.worker_count = workers;
            orca_sim *s = (orca_sim *)&g_fa; /* must stay untouched */
            arm(n);
            orca_status st = orca_sim_create(&def, &s);
            long failed = g_fa.failed;
            disarm();
            if (failed == 0) {
                ENSURE(st == ORCA_OK && s != (orca_sim *)&g_fa);
                ENSURE(strcmp(orca_sim_last_error(NULL), "") == 0);
                orca_sim_destroy(s);
                break;
            }
            ENSURE(s == (orca_sim *)&g_fa);
            ENSURE(check_failure("create", n, st, ORCA_ERR_MEMORY, orca_sim_last_error(NULL), 0,
                                 0) == 0);
        }
        printf("  create (%d workers)             %ld allocations failed one at a time\n",
               workers, n - 1);
        ENSURE(n > 1);
    }
    ENSURE_MSG(g_fa.live == 0, "%ld blocks leaked", g_fa.live);
    return orca_set_allocator(NULL);
}

/* The scenario layer: creation (every built-in scene), adding agents, stepping. */
static int test_scenario_calls(void)
{
    ENSURE(install() == 0);
    for (int kind = 0; kind <= ORCA_SCENE_COUNT; ++kind) {
        /* kind == ORCA_SCENE_COUNT: orca_scenario_create, then adding agents (growing its
         * tables) and stepping */
        uint64_t want = 0;
        long n = 0;
        for (;; ++n) {
            orca_scenario *sc = NULL;
            arm(n);
            orca_status st = kind < ORCA_SCENE_COUNT
                                 ? orca_scenario_create_builtin((orca_scene_kind)kind, 60, 3,
                                                                NULL, &sc)
                                 : orca_scenario_create(NULL, 0.25, 3, &sc);
            const char *what = kind < ORCA_SCENE_COUNT ? orca_scene_name(kind) : "custom";
            int stage = 0; /* 0 create, 1 add, 2 step */
            for (int i = 0; st == ORCA_OK && kind == ORCA_SCENE_COUNT && i < 40; ++i) {
                orca_agent_def d = orca_agent_def_default();
                d.position = vec(4.0 * i, 0.5 * (i % 3));
                orca_goal goal = {ORCA_GOAL_POINT, {-4.0 * i, 0}, 1.0, 0};
                stage = 1;
                st = orca_scenario_add_agent(sc, &d, &goal, NULL);
            }
            for (int k = 0; st == ORCA_OK && k < 3; ++k) {
                stage = 2;
                st = orca_scenario_step(sc);
            }
            long failed = g_fa.failed;
            disarm();
            if (n == 0) {
                ENSURE_MSG(st == ORCA_OK, "%s: %s", what, orca_scenario_last_error(sc));
                want = orca_sim_hash(orca_scenario_sim(sc));
                orca_scenario_destroy(sc);
                continue;
            }
            if (failed == 0) {
                ENSURE(st == ORCA_OK && orca_sim_hash(orca_scenario_sim(sc)) == want);
                orca_scenario_destroy(sc);
                break;
            }
            const char *msg = orca_scenario_last_error(stage == 0 ? NULL : sc);
            ENSURE_MSG(st == ORCA_ERR_MEMORY && strstr(msg, "memory") != NULL,
                       "%s, allocation %ld failing (stage %d): %s, '%s'", what, n, stage,
                       orca_status_name(st), msg);
            if (stage == 0) {
                ENSURE(sc == NULL);
                continue;
            }
            orca_scenario_destroy(sc); /* test_scenario_step_retry goes on after a failure */
        }
        printf("  scenario %-21s %ld allocations failed one at a time\n",
               kind < ORCA_SCENE_COUNT ? orca_scene_name(kind) : "custom", n - 1);
        ENSURE(n > 1);
    }
    ENSURE_MSG(g_fa.live == 0, "%ld blocks leaked", g_fa.live);
    return orca_set_allocator(NULL);
}

/* A scenario's first step (the one that sizes the grids and scratch; later steps of the same
 * scene allocate nothing) that fails allocating leaves the scenario as it was: the same step
 * again, nothing failing, and the run gives the reference's bits and records. */
static int test_scenario_step_retry(void)
{
    ENSURE(install() == 0);
    orca_scenario *ref = NULL;
    ENSURE(orca_scenario_create_builtin(ORCA_SCENE_WALL_GAP, 30, 5, NULL, &ref) == ORCA_OK);
    for (int k = 0; k < 4; ++k) {
        ENSURE(orca_scenario_step(ref) == ORCA_OK);
    }
    uint64_t want = orca_sim_hash(orca_scenario_sim(ref));
    double want_overlap = orca_scenario_max_agent_overlap(ref);
    orca_scenario_destroy(ref);
    long n = 1;
    for (;; ++n) {
        orca_scenario *sc = NULL;
        ENSURE(orca_scenario_create_builtin(ORCA_SCENE_WALL_GAP, 30, 5, NULL, &sc) == ORCA_OK);
        uint64_t h0 = orca_sim_hash(orca_scenario_sim(sc));
        uint64_t steps0 = orca_sim_step_count(orca_scenario_sim(sc));
        arm(n);
        orca_status st = orca_scenario_step(sc);
        long failed = g_fa.failed;
        disarm();
        if (failed == 0) {
            orca_scenario_destroy(sc);
            break;
        }
        ENSURE(check_failure("scenario step", n, st, ORCA_ERR_MEMORY,
                             orca_scenario_last_error(sc), h0,
                             orca_sim_hash(orca_scenario_sim(sc))) == 0);
        ENSURE(orca_sim_step_count(orca_scenario_sim(sc)) == steps0);
        for (int k = 0; k < 4; ++k) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        ENSURE(orca_sim_hash(orca_scenario_sim(sc)) == want);
        ENSURE(orca_scenario_max_agent_overlap(sc) == want_overlap);
        orca_scenario_destroy(sc);
    }
    printf("  scenario step (retried)        %ld allocations failed one at a time\n", n - 1);
    ENSURE(n > 1);
    ENSURE_MSG(g_fa.live == 0, "%ld blocks leaked", g_fa.live);
    return orca_set_allocator(NULL);
}

/* The hooks themselves: a NULL function is refused and changes nothing, NULL restores the C
 * library's functions, a count * size that overflows never reaches the hook, and every
 * allocation of the tests above came from the calling thread (workers included). */
static int test_hooks(void)
{
    ENSURE(install() == 0);
    orca_allocator bad = orca_get_allocator();
    bad.resize = NULL;
    ENSURE(orca_set_allocator(&bad) == ORCA_ERR_NULL);
    ENSURE(orca_get_allocator().alloc == fa_alloc);
    long before = g_fa.total;
    ENSURE(orca_mem_alloc(SIZE_MAX / 8, 16) == NULL);
    ENSURE(orca_mem_zalloc(3, SIZE_MAX / 2) == NULL);
    ENSURE(orca_mem_resize(NULL, SIZE_MAX, 2) == NULL);
    ENSURE(g_fa.total == before);
    void *p = orca_mem_alloc(0, 16); /* zero bytes: a block of one */
    ENSURE(p && g_fa.total == before + 1);
    orca_mem_free(p);
    orca_mem_free(NULL);
    ENSURE(g_fa.live == 0);
    ENSURE(!g_fa.wrong_thread);
    ENSURE(orca_set_allocator(NULL) == ORCA_OK);
    ENSURE(orca_get_allocator().alloc != fa_alloc);
    orca_sim *s = new_sim(2);
    ENSURE(s && populate(s, 50, 3.0, 2) == 0 && orca_sim_step(s, 0.25) == ORCA_OK);
    orca_sim_destroy(s);
    return 0;
}

/* Waypoints (docs/extensions.md): setting them fails cleanly at each of its allocations (the
 * old waypoints and the hash kept); a first step that fails allocating puts the progress
 * back, and the retried run gives the reference's bits. */
static int test_waypoints(void)
{
    ENSURE(install() == 0);
    orca_vec2 old_pts[1] = {vec(3, 3)};
    orca_vec2 pts[3] = {vec(0, 0), vec(5, 5), vec(9, 0)};
    long n = 1;
    for (;; ++n) {
        orca_scenario *sc = NULL;
        ENSURE(orca_scenario_create(NULL, 0.25, 3, &sc) == ORCA_OK);
        orca_agent_def d = orca_agent_def_default();
        orca_goal goal = {ORCA_GOAL_POINT, {10, 0}, 1.0, 0};
        ENSURE(orca_scenario_add_agent(sc, &d, &goal, NULL) == ORCA_OK);
        ENSURE(orca_scenario_set_waypoints(sc, 0, old_pts, 1, 1, 0.0) == ORCA_OK);
        uint64_t h0 = orca_scenario_hash(sc);
        arm(n);
        orca_status st = orca_scenario_set_waypoints(sc, 0, pts, 3, 0, 0.0);
        long failed = g_fa.failed;
        disarm();
        if (failed == 0) {
            ENSURE(st == ORCA_OK);
            orca_scenario_destroy(sc);
            break;
        }
        ENSURE(st == ORCA_ERR_MEMORY && strstr(orca_scenario_last_error(sc), "memory"));
        int count = 0, loop = 0;
        ENSURE(orca_scenario_agent_waypoints(sc, 0, NULL, 0, &count, &loop, NULL) == ORCA_OK);
        ENSURE(count == 1 && loop == 1 && orca_scenario_hash(sc) == h0);
        orca_scenario_destroy(sc);
    }
    ENSURE(n > 1);
    /* The first step fails allocating while the agent stands on its first waypoint. */
    uint64_t want = 0;
    for (long k = 0;; ++k) {
        orca_scenario *sc = NULL;
        ENSURE(orca_scenario_create(NULL, 0.25, 3, &sc) == ORCA_OK);
        orca_agent_def d = orca_agent_def_default();
        orca_goal goal = {ORCA_GOAL_POINT, {10, 0}, 1.0, 0};
        ENSURE(orca_scenario_add_agent(sc, &d, &goal, NULL) == ORCA_OK);
        d.position = vec(0, 8);
        ENSURE(orca_scenario_add_agent(sc, &d, &goal, NULL) == ORCA_OK);
        ENSURE(orca_scenario_set_waypoints(sc, 0, pts, 3, 1, 0.0) == ORCA_OK);
        uint64_t h0 = orca_scenario_hash(sc);
        arm(k);
        orca_status st = orca_scenario_step(sc);
        long failed = g_fa.failed;
        disarm();
        if (k > 0 && failed == 0) {
            ENSURE(st == ORCA_OK);
            for (int s = 0; s < 20; ++s) {
                ENSURE(orca_scenario_step(sc) == ORCA_OK);
            }
            ENSURE(orca_scenario_hash(sc) == want);
            orca_scenario_destroy(sc);
            ENSURE(k > 1); /* the first step did allocate, and each failure was tried */
            printf("  waypoints: the first step failed at each of its %ld allocations\n", k - 1);
            break;
        }
        if (k == 0) {
            ENSURE(st == ORCA_OK);
            for (int s = 0; s < 20; ++s) {
                ENSURE(orca_scenario_step(sc) == ORCA_OK);
            }
            want = orca_scenario_hash(sc);
            orca_scenario_destroy(sc);
            continue;
        }
        ENSURE(st == ORCA_ERR_MEMORY);
        int cur = -1;
        ENSURE(orca_scenario_waypoint_index(sc, 0, &cur) == ORCA_OK && cur == 0);
        ENSURE(orca_scenario_hash(sc) == h0);
        ENSURE(orca_scenario_step(sc) == ORCA_OK); /* the same step again */
        ENSURE(orca_scenario_waypoint_index(sc, 0, &cur) == ORCA_OK && cur == 1);
        for (int s = 0; s < 20; ++s) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK);
        }
        ENSURE(orca_scenario_hash(sc) == want);
        orca_scenario_destroy(sc);
    }
    ENSURE_MSG(g_fa.live == 0, "%ld blocks leaked", g_fa.live);
    return orca_set_allocator(NULL);
}

const orca_test ORCA_TESTS[] = {
    {"remove_when_pending_list_full", test_remove_when_pending_list_full},
    {"remove_segment_when_pending_list_full", test_remove_segment_when_pending_list_full},
    {"create", test_create},
    {"sim_calls", test_sim_calls},
    {"scenario_calls", test_scenario_calls},
    {"scenario_step_retry", test_scenario_step_retry},
    {"waypoints", test_waypoints},
    {"hooks", test_hooks},
    {0, 0},
};
