/* SPDX-License-Identifier: MIT */
/* orca on MPI with navigation, against one process, where the run changes under it
 * (test/mpi_tests.sh runs it on 1-4 ranks; docs/mpi.md, "Navigation"). Every rank runs the
 * distributed run, created from a navigated scenario, and alongside it the same scenario in
 * one process; the same changes go to both at the same step, and after every step (and every
 * change) orca_mpi_hash must equal orca_scenario_hash, borders moved every step:
 * - walls added and removed mid-run (every path planned again, as in one process);
 * - a checkpoint taken after a wall changed and before the next step (the manifest's
 *   navigation bit 4), restarted on every rank count from 1 to the job's, continued with the
 *   bits of the one process that just stepped on;
 * - agents removed (with their paths) and added (their first plan) through the API;
 * - with the quickest exit choice, a rank out of memory where the pass re-reads changed walls:
 *   the step is refused on every rank (no rank left waiting in the queues' gathering), and
 *   the run continues with the one-process bits. */
#include <orca/mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_test.h"

/* The library's allocations (orca_set_allocator): while fail_bytes > 0, a resize of a block to
 * exactly that many bytes fails (the nav's copy of the walls growing to the new wall count). */
static size_t fail_bytes;
static int failed_resizes;

static void *hook_alloc(size_t size, void *context)
{
    (void)context;
    return malloc(size);
}

static void *hook_resize(void *p, size_t size, void *context)
{
    (void)context;
    if (p && fail_bytes > 0 && size == fail_bytes) {
        failed_resizes++;
        return NULL;
    }
    return realloc(p, size);
}

static void hook_release(void *p, void *context)
{
    (void)context;
    free(p);
}

#define STEPS 30
#define MAXA 256

/* Two rooms joined by a door, a pillar in the right one, an exit set of two points at the
 * right wall; agents in both rooms heading for points in the other (behind the inner wall)
 * or for the exit set. */
static const double walls[7][4] = {{0, 0, 20, 0},  {20, 0, 20, 10},   {20, 10, 0, 10},
                                   {0, 10, 0, 0},  {10, 0, 10, 4},    {10, 5.5, 10, 10},
                                   {14, 3, 14, 7}};

/* agent k of the scene (or of a later addition, with another k): deterministic, no libm */
static void agent(int k, orca_agent_def *d, orca_goal *g, int set)
{
    *d = orca_agent_def_default();
    d->radius = 0.25;
    d->neighbor_dist = 3.0;
    d->max_speed = 1.5;
    d->time_horizon = 2.0;
    d->obstacle_time_horizon = 2.0;
    int left = k % 2 == 0;
    double x = 1.0 + 1.1 * (double)(k / 2 % 8), y = 1.0 + 1.1 * (double)(k / 16 % 8);
    d->position.x = left ? x : 20.0 - x;
    d->position.y = y;
    *g = orca_goal_default();
    g->kind = ORCA_GOAL_POINT;
    g->target.x = left ? 16.5 + 0.3 * (double)(k % 7) : 3.5 - 0.3 * (double)(k % 7);
    g->target.y = 1.0 + (double)(k % 9);
    g->preferred_speed = 1.2;
    if (k % 3 == 1) {
        g->kind = ORCA_GOAL_SET;
        g->goal_set = set;
    }
}

/* The scene as a scenario (every rank builds the same), with the pedestrian model when ped
 * (its agents of the exit set walk in that set's stream); ids receives the agents' handles. */
static orca_scenario *scene(int count, int ped, orca_agent_id *ids)
{
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create(NULL, 0.25, 44, &sc);
    CHECK(st == ORCA_OK, "scenario: %s", orca_scenario_last_error(NULL));
    orca_sim *sim = orca_scenario_sim(sc);
    for (int k = 0; k < 7; ++k) {
        orca_vec2 a = {walls[k][0], walls[k][1]}, b = {walls[k][2], walls[k][3]};
        CHECK(orca_sim_add_segment(sim, a, b, NULL) == ORCA_OK, "segment %d", k);
    }
    orca_vec2 exits[2] = {{19, 1.5}, {19, 8.5}};
    int set = -1;
    CHECK(orca_scenario_add_goal_set(sc, "out", exits, 2, &set) == ORCA_OK &&
              orca_scenario_set_goal_set_exit(sc, set, 0.5) == ORCA_OK &&
              orca_scenario_set_navigation(sc, 1) == ORCA_OK,
          "scene: %s", orca_scenario_last_error(sc));
    orca_pedestrian model = orca_pedestrian_default();
    CHECK(!ped || orca_scenario_set_pedestrian(sc, &model) == ORCA_OK, "scene: %s",
          orca_scenario_last_error(sc));
    for (int k = 0; k < count; ++k) {
        orca_agent_def d;
        orca_goal g;
        agent(k, &d, &g, set);
        CHECK(orca_scenario_add_agent(sc, &d, &g, &ids[k]) == ORCA_OK, "scene: %s",
              orca_scenario_last_error(sc));
    }
    return sc;
}

/* The one process: the scenario and each key's handle (keys in the order agents were added). */
typedef struct one_process {
    orca_scenario *sc;
    orca_agent_id id[MAXA];
    orca_segment_id seg[16];
    int keys, segs;
} one_process;

static void one_start(one_process *p, int count, int ped)
{
    p->sc = scene(count, ped, p->id);
    p->keys = count;
    orca_sim *sim = orca_scenario_sim(p->sc);
    p->segs = orca_sim_segment_count(sim);
    for (int k = 0; k < p->segs; ++k) {
        p->seg[k] = orca_sim_segment_at(sim, k);
    }
}

static orca_mpi *run_of(int count, int ped)
{
    orca_agent_id ids[MAXA];
    orca_scenario *sc = scene(count, ped, ids);
    orca_mpi_def def = orca_mpi_def_default();
    def.rebalance_every = 1; /* the borders move every step */
    orca_mpi *m = NULL;
    orca_status st = orca_mpi_create_from_scenario(MPI_COMM_WORLD, sc, &def, &m);
    CHECK(st == ORCA_OK, "create: %s", orca_mpi_last_error(NULL));
    orca_scenario_destroy(sc);
    return m;
}

/* Collective: the run's hash against want; 1 when equal. */
static int same(orca_mpi *m, uint64_t want, const char *what, int step)
{
    orca_status st;
    uint64_t h = orca_mpi_hash(m, &st);
    CHECK(st == ORCA_OK && h == want, "%s, step %d: hash %016llx, one process %016llx (%s)",
          what, step, (unsigned long long)h, (unsigned long long)want, orca_mpi_last_error(m));
    return st == ORCA_OK && h == want;
}

/* Collective: one step of the run and of the one process; 1 when the hashes are equal. */
static int step_both(orca_mpi *m, orca_scenario *one, const char *what, int s)
{
    CHECK(orca_scenario_step(one) == ORCA_OK, "%s, step %d (one process): %s", what, s,
          orca_scenario_last_error(one));
    CHECK(orca_mpi_step(m) == ORCA_OK, "%s, step %d: %s", what, s, orca_mpi_last_error(m));
    return same(m, orca_scenario_hash(one), what, s);
}

/* Collective: navigation's counts of the run against the one process's. */
static void same_counts(orca_mpi *m, const orca_scenario *sc, const char *what)
{
    orca_nav_counts a, b;
    orca_status st = orca_mpi_nav_counts(m, &a);
    CHECK(st == ORCA_OK && orca_scenario_nav_counts(sc, &b) == ORCA_OK, "%s: counts", what);
    CHECK(a.plans == b.plans && a.reroutes == b.reroutes && a.replans == b.replans &&
              a.exit_changes == b.exit_changes && a.unreachable == b.unreachable &&
              a.exited == b.exited && a.arrived == b.arrived && a.at_exits == b.at_exits,
          "%s: plans %lld, re-routings %lld, replans %lld, exit changes %lld, unreachable %d, "
          "exited %d, arrived %d, at exits %d; one process %lld, %lld, %lld, %lld, %d, %d, %d, %d",
          what, (long long)a.plans, (long long)a.reroutes, (long long)a.replans,
          (long long)a.exit_changes, a.unreachable, a.exited, a.arrived, a.at_exits,
          (long long)b.plans, (long long)b.reroutes, (long long)b.replans,
          (long long)b.exit_changes, b.unreachable, b.exited, b.arrived, b.at_exits);
    if (rank == 0 && getenv("MPI_CHECK_SHOW")) {
        printf("%s: %lld plans, %lld re-routings, %d without a path, %d exited\n", what,
               (long long)a.plans, (long long)a.reroutes, a.unreachable, a.exited);
    }
}

/* --- 1. walls changed mid-run, and checkpoints taken just after ------------------------- */

#define ADD_AT 8     /* a wall added after this step (a detour in the right room) */
#define REMOVE_AT 16 /* the lower part of the inner wall removed after this step */
static const orca_vec2 added_a = {12, 1}, added_b = {12, 8.5};

/* The wall changes of the steps, to the distributed run. */
static void mpi_walls(orca_mpi *m, int s)
{
    if (s == ADD_AT) {
        CHECK(orca_mpi_add_segment(m, added_a, added_b) == ORCA_OK, "add a wall: %s",
              orca_mpi_last_error(m));
    }
    if (s == REMOVE_AT) {
        CHECK(orca_mpi_remove_segment(m, 4) == ORCA_OK, "remove a wall: %s",
              orca_mpi_last_error(m));
    }
}

/* ... and to the one process (the same segments, the same order) */
static void one_walls(one_process *p, int s)
{
    orca_sim *sim = orca_scenario_sim(p->sc);
    if (s == ADD_AT) {
        CHECK(orca_sim_add_segment(sim, added_a, added_b, &p->seg[p->segs++]) == ORCA_OK,
              "add a wall (one process)");
    }
    if (s == REMOVE_AT) {
        CHECK(orca_sim_remove_segment(sim, p->seg[4]) == ORCA_OK, "remove a wall (one process)");
    }
}

static void walls_checks(const char *dir)
{
    one_process one;
    one_start(&one, 60, 0);
    orca_mpi *m = run_of(60, 0);
    uint64_t want[STEPS + 1];
    char ck[2][600];
    int ck_step[2] = {ADD_AT, REMOVE_AT};
    for (int c = 0; c < 2; ++c) {
        snprintf(ck[c], sizeof ck[c], "%s/walls-%d", dir, ck_step[c]);
        if (rank == 0) {
            mkdir(ck[c], 0700);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int ok = same(m, orca_scenario_hash(one.sc), "walls: start", 0);
    for (int s = 1; s <= STEPS && ok; ++s) {
        ok = step_both(m, one.sc, "walls, after the step", s);
        one_walls(&one, s);
        mpi_walls(m, s);
        want[s] = orca_scenario_hash(one.sc);
        ok = ok && same(m, want[s], "walls, after the change", s);
        for (int c = 0; c < 2; ++c) {
            if (s == ck_step[c]) {
                /* the walls changed since the paths were planned: bit 4 of the manifest */
                CHECK(orca_mpi_checkpoint(m, ck[c]) == ORCA_OK, "checkpoint at %d: %s", s,
                      orca_mpi_last_error(m));
            }
        }
    }
    same_counts(m, one.sc, "walls changed mid-run");
    orca_mpi_destroy(m);
    /* each checkpoint restarted on every rank count up to the job's, continued to STEPS with
     * the same later changes: the one process's hash after every step, and its counts */
    orca_mpi_def def = orca_mpi_def_default();
    def.rebalance_every = 1;
    for (int c = 0; c < 2; ++c) {
        for (int sub = 1; sub <= ranks; ++sub) {
            MPI_Comm comm;
            MPI_Comm_split(MPI_COMM_WORLD, rank < sub ? 0 : MPI_UNDEFINED, rank, &comm);
            if (comm == MPI_COMM_NULL) {
                continue;
            }
            char what[96];
            snprintf(what, sizeof what, "the checkpoint of step %d restarted on %d rank%s",
                     ck_step[c], sub, sub == 1 ? "" : "s");
            orca_mpi *r = NULL;
            orca_status st = orca_mpi_restart(comm, ck[c], &def, &r);
            CHECK(st == ORCA_OK, "%s: %s", what, orca_mpi_last_error(NULL));
            int good = st == ORCA_OK && same(r, want[ck_step[c]], what, ck_step[c]);
            for (int s = ck_step[c] + 1; s <= STEPS && good; ++s) {
                CHECK(orca_mpi_step(r) == ORCA_OK, "%s, step %d: %s", what, s,
                      orca_mpi_last_error(r));
                mpi_walls(r, s);
                good = same(r, want[s], what, s);
            }
            if (good) {
                same_counts(r, one.sc, what);
            }
            orca_mpi_destroy(r);
            MPI_Comm_free(&comm);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    orca_scenario_destroy(one.sc);
}

/* --- 2. agents removed and added with navigation on ------------------------------------- */

/* Collective: removes `count` keys (rank k % ranks names key k; rank 0 names the first twice)
 * from the run and the one process. */
static void remove_keys(orca_mpi *m, one_process *p, const uint64_t *keys, int count)
{
    uint64_t mine[16];
    int n = 0;
    for (int i = 0; i < count; ++i) {
        if ((int)(keys[i] % (uint64_t)ranks) == rank) {
            mine[n++] = keys[i];
        }
        CHECK(orca_sim_remove_agent(orca_scenario_sim(p->sc), p->id[keys[i]]) == ORCA_OK,
              "remove key %llu (one process)", (unsigned long long)keys[i]);
    }
    if (rank == 0 && count > 0) {
        mine[n++] = keys[0];
    }
    CHECK(orca_mpi_remove_agents(m, mine, n) == ORCA_OK, "remove: %s", orca_mpi_last_error(m));
}

/* Collective: every rank adds `per_rank` agents (ordinals from k0, rank by rank); the one
 * process adds them in key order. */
static void add_agents(orca_mpi *m, one_process *p, int k0, int per_rank)
{
    orca_agent_def d[8];
    orca_goal g[8];
    int mine = 0;
    for (int r = 0; r < ranks; ++r) {
        for (int i = 0; i < per_rank; ++i) {
            orca_agent_def dd;
            orca_goal gg;
            agent(k0 + r * per_rank + i, &dd, &gg, 0);
            /* in the corridor between the rooms' rows, not on another agent */
            dd.position.y = 9.4 - 0.6 * (double)(r % 2);
            dd.position.x = (dd.position.x < 10.0 ? 1.0 : 11.0) + 0.9 * (double)(r * per_rank + i);
            CHECK(orca_scenario_add_agent(p->sc, &dd, &gg, &p->id[p->keys]) == ORCA_OK,
                  "add (one process): %s", orca_scenario_last_error(p->sc));
            p->keys++;
            if (r == rank) {
                d[mine] = dd;
                g[mine] = gg;
                ++mine;
            }
        }
    }
    uint64_t first = 0;
    CHECK(orca_mpi_add_agents(m, d, g, mine, &first) == ORCA_OK &&
              first == (uint64_t)(p->keys - (ranks - rank) * per_rank),
          "add: %s (first key %llu)", orca_mpi_last_error(m), (unsigned long long)first);
}

/* Agents removed (with their paths) and added (their first plan at the next step) mid-run;
 * with ped, under the pedestrian model, whose agents added with a goal set take the set's
 * stream (orca_scenario_add_agent's, docs/pedestrians.md). */
static void agents_checks(int ped)
{
    one_process one;
    one_start(&one, 48, ped);
    orca_mpi *m = run_of(48, ped);
    int ok = same(m, orca_scenario_hash(one.sc), "agents: start", 0);
    for (int s = 1; s <= STEPS && ok; ++s) {
        ok = step_both(m, one.sc, "agents, after the step", s);
        if (s == 3) {
            /* agents with paths (point goals behind the wall, the exit set's) removed */
            uint64_t keys[5] = {3, 4, 10, 17, 31};
            remove_keys(m, &one, keys, 5);
            ok = ok && same(m, orca_scenario_hash(one.sc), "agents, after removals", s);
        }
        if (s == 5 || s == 12) {
            /* agents added by every rank: their first plan at the next step */
            add_agents(m, &one, s == 5 ? 48 : 60, 2);
            ok = ok && same(m, orca_scenario_hash(one.sc), "agents, after additions", s);
        }
        if (s == 9) {
            /* an added agent out (with the path it planned) and one in: the count stays */
            uint64_t key = 49;
            remove_keys(m, &one, &key, 1);
            add_agents(m, &one, 57, 1);
            ok = ok && same(m, orca_scenario_hash(one.sc), "agents, one out and one in", s);
        }
        if (s == 20) {
            same_counts(m, one.sc, "agents removed and added");
        }
    }
    same_counts(m, one.sc, "agents removed and added, at the end");
    orca_mpi_destroy(m);
    orca_scenario_destroy(one.sc);
}

/* --- 3. out of memory re-reading changed walls, with the quickest exit choice ------------- */

/* docs/mpi.md, "Navigation": the pass re-reads changed walls before the quickest choice's
 * gathering of every rank's queue pairs. Two walls added (9, where the nav's copy holds 7)
 * and the copy's growth failed on the last rank: every rank refuses the step naming it, and
 * changes what one process's refusal of it changes (the exits at the step's start: they
 * stay), and the step taken again continues with the bits of one process. */
static void memory_checks(void)
{
    orca_scenario *sc[2];
    orca_agent_id ids[MAXA];
    for (int k = 0; k < 2; ++k) {
        sc[k] = scene(60, 0, ids);
        CHECK(orca_scenario_set_exit_choice(sc[k], ORCA_EXIT_QUICKEST) == ORCA_OK, "quickest");
    }
    orca_mpi_def def = orca_mpi_def_default();
    def.rebalance_every = 1;
    orca_mpi *m = NULL;
    orca_status st = orca_mpi_create_from_scenario(MPI_COMM_WORLD, sc[1], &def, &m);
    CHECK(st == ORCA_OK, "create: %s", orca_mpi_last_error(NULL));
    orca_scenario_destroy(sc[1]);
    orca_scenario *one = sc[0];
    const orca_vec2 w[2][2] = {{{12, 1}, {12, 8.5}}, {{16, 6}, {18, 6}}};
    int ok = 1;
    for (int s = 1; s <= 12 && ok; ++s) {
        if (s == 4) {
            for (int k = 0; k < 2; ++k) {
                CHECK(orca_mpi_add_segment(m, w[k][0], w[k][1]) == ORCA_OK &&
                          orca_sim_add_segment(orca_scenario_sim(one), w[k][0], w[k][1], NULL) ==
                              ORCA_OK,
                      "add a wall: %s", orca_mpi_last_error(m));
            }
            /* the one process refused likewise: its agents at the exits have left (and the
             * outflows decayed), as the step begins, and nothing else changes */
            fail_bytes = 9 * sizeof(orca_vec2);
            CHECK(orca_scenario_step(one) == ORCA_ERR_MEMORY, "one process: %s",
                  orca_scenario_last_error(one));
            failed_resizes = 0;
            fail_bytes = rank == ranks - 1 ? 9 * sizeof(orca_vec2) : 0;
            st = orca_mpi_step(m);
            fail_bytes = 0;
            char want[96];
            snprintf(want, sizeof want, "rank %d: out of memory (reading the walls)", ranks - 1);
            CHECK(st == ORCA_ERR_MEMORY && strcmp(orca_mpi_last_error(m), want) == 0 &&
                      orca_mpi_step_count(m) == 3,
                  "out of memory re-reading the walls: status %d, '%s' (want '%s'), step %llu",
                  (int)st, orca_mpi_last_error(m), want,
                  (unsigned long long)orca_mpi_step_count(m));
            CHECK(rank != ranks - 1 || failed_resizes == 1, "%d resizes failed, want 1",
                  failed_resizes);
            if (rank == 0 && getenv("MPI_CHECK_SHOW")) {
                printf("refused: %s\n", orca_mpi_last_error(m));
            }
            ok = same(m, orca_scenario_hash(one), "after the refused step", 3);
        }
        ok = ok && step_both(m, one, "quickest choice, walls added", s);
    }
    same_counts(m, one, "quickest choice, a step refused for memory");
    orca_mpi_destroy(m);
    orca_scenario_destroy(one);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    orca_allocator hooks = {hook_alloc, hook_resize, hook_release, NULL};
    orca_set_allocator(&hooks);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    char dir[256];
    mpi_test_dir(dir, (int)sizeof dir, "orca-mpi-nav-check");
    walls_checks(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    agents_checks(0);
    MPI_Barrier(MPI_COMM_WORLD);
    agents_checks(1);
    MPI_Barrier(MPI_COMM_WORLD);
    memory_checks();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) {
            fprintf(stderr, "could not remove %s\n", dir);
        }
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("mpi_nav_check on %d ranks: %s (%d failed checks; walls changed mid-run and "
               "before checkpoints restarted on 1..%d ranks, agents removed and added, also "
               "under the pedestrian model, %d steps each; a step refused on every rank for one "
               "rank's memory; the hash equal to one process's after every step and change)\n",
               ranks, all ? "FAILED" : "passed", all, ranks, STEPS);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
