/* SPDX-License-Identifier: MIT */
/* orca on MPI against one process (test/mpi_tests.sh runs it on 1-4 ranks). Every rank runs
 * the distributed run and, alongside, the same scene as a plain orca_scenario; after every step
 * orca_mpi_hash must equal the plain run's orca_sim_hash. The scene: two groups crossing a
 * wall with two gaps, walking in both directions across the strips, packed so that the halos
 * are dense; borders moved every step; agents removed and added mid-run (from every rank);
 * refusals that name the value and change nothing; a checkpoint restarted on fewer ranks; a
 * step refused at the edge of the 2^21 square as in one process, naming the agent's key. */
#include <orca/mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_test.h"

#define MAXA 4096

/* The plain run: the scenario and each key's handle (agents are added in key order). */
static orca_scenario *ref;
static orca_agent_id handle_of[MAXA];
static int keys_used;

static void ref_add(const orca_agent_def *d, const orca_goal *g)
{
    orca_status st = orca_scenario_add_agent(ref, d, g, &handle_of[keys_used++]);
    CHECK(st == ORCA_OK, "reference add: %s", orca_scenario_last_error(ref));
}

/* agent k of a group: a packed block crossing to the other side of the wall */
static void agent(int k, int group, orca_agent_def *d, orca_goal *g)
{
    *d = orca_agent_def_default();
    d->radius = 0.5;
    d->neighbor_dist = 5.0;
    d->max_speed = 1.5;
    d->time_horizon = 4.0;
    d->obstacle_time_horizon = 2.0;
    double row = (double)(k / 8), col = (double)(k % 8);
    double side = group ? 1.0 : -1.0;
    d->position.x = side * (6.0 + 1.1 * row);
    d->position.y = -4.0 + 1.1 * col;
    *g = orca_goal_default();
    g->kind = ORCA_GOAL_POINT;
    g->target.x = -side * (8.0 + 1.1 * row);
    g->target.y = 4.0 - 1.1 * col;
    g->preferred_speed = 1.2;
}

static uint64_t ref_hash(void)
{
    return orca_sim_hash(orca_scenario_sim(ref));
}

static int same_hash(orca_mpi *m, const char *when, int step)
{
    orca_status st;
    uint64_t h = orca_mpi_hash(m, &st), want = ref_hash();
    CHECK(st == ORCA_OK && h == want, "%s, step %d: hash %016llx, one process %016llx (%s)", when,
          step, (unsigned long long)h, (unsigned long long)want, orca_mpi_last_error(m));
    if (h != want) {
        /* name the agents whose positions differ */
        static uint64_t keys[MAXA];
        static orca_vec2 pos[MAXA];
        int n = orca_mpi_local_agents(m, keys, pos, MAXA);
        orca_sim *sim = orca_scenario_sim(ref);
        for (int i = 0, shown = 0; i < n && shown < 5; ++i) {
            orca_vec2 p;
            orca_agent_get_position(sim, handle_of[keys[i]], &p);
            if (p.x != pos[i].x || p.y != pos[i].y) {
                fprintf(stderr, "rank %d: key %llu at (%.17g, %.17g), one process (%.17g, %.17g)\n",
                        rank, (unsigned long long)keys[i], pos[i].x, pos[i].y, p.x, p.y);
                ++shown;
            }
        }
    }
    return h == want;
}

/* Two agents near the edge of the 2^21 square, added by the last rank, stepped alongside one
 * process: the status and the hash after every step are those of one process. Key 0 stands at
 * x0 on its goal; key 1 walks from x1 at 10 m/s towards x1g. Returns the step one process
 * refused, or -1. */
static int edge_run(const char *what, double x0, double x1, double x1g)
{
    const double dt = 0.25;
    orca_scenario *one = NULL;
    orca_status st = orca_scenario_create(NULL, dt, 7, &one);
    CHECK(st == ORCA_OK, "%s: scenario", what);
    orca_mpi_def def = orca_mpi_def_default();
    def.dt = dt;
    def.seed = 7;
    def.rebalance_every = 1;
    orca_mpi *m = NULL;
    st = orca_mpi_create(MPI_COMM_WORLD, &def, &m);
    CHECK(st == ORCA_OK, "%s: create: %s", what, orca_mpi_last_error(NULL));
    orca_agent_def d[2];
    orca_goal g[2];
    for (int k = 0; k < 2; ++k) {
        d[k] = orca_agent_def_default();
        d[k].radius = 0.5;
        d[k].max_speed = 10.0;
        d[k].neighbor_dist = 20.0;
        d[k].time_horizon = 4.0;
        g[k] = orca_goal_default();
        g[k].kind = ORCA_GOAL_POINT;
    }
    d[0].position.x = x0;
    g[0].target = d[0].position;
    g[0].preferred_speed = 1.0;
    d[1].position.x = x1;
    g[1].target.x = x1g;
    g[1].preferred_speed = 10.0;
    for (int k = 0; k < 2; ++k) {
        CHECK(orca_scenario_add_agent(one, &d[k], &g[k], NULL) == ORCA_OK, "%s: add", what);
    }
    st = orca_mpi_add_agents(m, d, g, rank == ranks - 1 ? 2 : 0, NULL);
    CHECK(st == ORCA_OK, "%s: add: %s", what, orca_mpi_last_error(m));
    int refused_at = -1;
    for (int s = 0; s < 40 && refused_at < 0; ++s) {
        orca_status want = orca_scenario_step(one);
        uint64_t h1 = orca_sim_hash(orca_scenario_sim(one));
        st = orca_mpi_step(m);
        const char *msg = orca_mpi_last_error(m);
        CHECK(st == want, "%s, step %d: status %d, one process %d (%s)", what, s, (int)st,
              (int)want, msg);
        if (want != ORCA_OK) {
            refused_at = s;
            /* the position the one process names: "would move to (x, y)" */
            const char *at = strstr(orca_scenario_last_error(one), "would move to (");
            char where[96] = "";
            if (at) {
                const char *e = strchr(at, ')');
                snprintf(where, sizeof where, "%.*s", e ? (int)(e - at + 1) : 0, at);
            }
            CHECK(at && strstr(orca_scenario_last_error(one), "agent 1 ") != NULL,
                  "%s: one process refused another way: %s", what, orca_scenario_last_error(one));
            if (getenv("MPI_CHECK_SHOW") && rank == 0) {
                printf("%s: refused at step %d: %s\n", what, s, msg);
            }
            CHECK(where[0] && strstr(msg, where) != NULL && strstr(msg, "key 1 (") != NULL,
                  "%s: the refusal names key 1 and '%s': %s", what, where, msg);
        }
        orca_status hs;
        uint64_t h = orca_mpi_hash(m, &hs);
        CHECK(hs == ORCA_OK && h == h1, "%s, step %d: hash %016llx, one process %016llx", what, s,
              (unsigned long long)h, (unsigned long long)h1);
    }
    CHECK(refused_at < 0 || orca_mpi_step_count(m) == (uint64_t)refused_at,
          "%s: step count %llu after a refusal at %d", what,
          (unsigned long long)orca_mpi_step_count(m), refused_at);
    orca_mpi_destroy(m);
    orca_scenario_destroy(one);
    return refused_at;
}

/* The step's check near the edge of the 2^21 square (docs/mpi.md, step 5). */
static void edge_checks(void)
{
    const double edge = 2097152.0;
    /* key 1 walks to a goal just inside the edge, swerves round key 0 standing there and
     * would step beyond it: refused at the same step as one process, with the same position,
     * the agent named by its key; nothing changes */
    CHECK(edge_run("edge refusal", edge - 1.0, edge - 4.0, edge - 0.6) > 0,
          "edge refusal: one process refused no step in 40");
    /* key 1 arrives at a goal 0.6 m inside the edge at 10 m/s, 15 m from key 0: no step is
     * refused. Where key 1 is a halo copy (another rank owns it), its copy steps with the
     * preferred velocity of the step before, 10 m/s, and beyond the edge; that copy's result
     * is not checked (its owner's is) */
    CHECK(edge_run("edge, halo copy", edge - 45.0, edge - 30.0, edge - 0.6) < 0,
          "edge, halo copy: one process refused a step");
}

/* A small run of `count` agents (added by rank 0) with one wall and the given seed, stepped
 * `steps` times with the borders moved every step. */
static orca_mpi *small_run(uint64_t seed, int count, int steps)
{
    orca_mpi_def def = orca_mpi_def_default();
    def.seed = seed;
    def.rebalance_every = 1;
    orca_mpi *m = NULL;
    orca_status st = orca_mpi_create(MPI_COMM_WORLD, &def, &m);
    CHECK(st == ORCA_OK, "small run: %s", orca_mpi_last_error(NULL));
    orca_vec2 a = {-1, 3}, b = {1, 3};
    CHECK(orca_mpi_add_segment(m, a, b) == ORCA_OK, "small run: segment");
    orca_agent_def d[8];
    orca_goal g[8];
    for (int k = 0; k < count && k < 8; ++k) {
        agent(k, k & 1, &d[k], &g[k]);
    }
    st = orca_mpi_add_agents(m, d, g, rank == 0 ? count : 0, NULL);
    CHECK(st == ORCA_OK, "small run: add: %s", orca_mpi_last_error(m));
    for (int s = 0; s < steps && st == ORCA_OK; ++s) {
        st = orca_mpi_step(m);
    }
    CHECK(st == ORCA_OK, "small run: step: %s", orca_mpi_last_error(m));
    return m;
}

/* Rank 0 reads a whole small file; returns its size (-1 when it cannot). */
static long slurp(const char *path, unsigned char *buf, long cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    long n = (long)fread(buf, 1, (size_t)cap, f);
    fclose(f);
    return n;
}

/* Rewrites byte `at` of the file in place (no truncation: the sweep writes thousands). */
static void poke(const char *path, long at, unsigned char value)
{
    FILE *f = fopen(path, "r+b");
    CHECK(f && fseek(f, at, SEEK_SET) == 0 && fputc(value, f) == value, "cannot patch %s",
          path);
    if (f) {
        fclose(f);
    }
}

static void spill(const char *path, const unsigned char *buf, long n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(buf, 1, (size_t)n, f) == (size_t)n, "cannot write %s", path);
    if (f) {
        fclose(f);
    }
}

/* Collective: a restart from dir: 1 when it refused naming `name`, 0 when it restarted to
 * `want`, -1 when it restarted to another hash or refused without naming the file. */
static int restart_verdict(MPI_Comm comm, const char *dir, const char *name, uint64_t want,
                           char *msg, size_t msgsize)
{
    orca_mpi *r = NULL;
    orca_status st = orca_mpi_restart(comm, dir, NULL, &r);
    if (st != ORCA_OK) {
        snprintf(msg, msgsize, "%s", orca_mpi_last_error(NULL));
        return strstr(msg, name) ? 1 : -1;
    }
    uint64_t h = orca_mpi_hash(r, &st);
    snprintf(msg, msgsize, "restarted to %016llx", (unsigned long long)h);
    orca_mpi_destroy(r);
    return st == ORCA_OK && h == want ? 0 : -1;
}

/* Flips every bit of every stride-th byte of each file of the checkpoint of step 4 in dir
 * (the manifest and `parts` parts), one at a time, and restarts from it on comm (the ranks of
 * comm call this; rank 0 of the world flips): each must be refused naming the file, or
 * restart to want. Adds to counts[3] the refusals, the right restarts and the wrong ones. */
static void sweep_files(MPI_Comm comm, const char *dir, int parts, long stride, uint64_t want,
                        long counts[3])
{
    static unsigned char buf[1 << 16];
    for (int f = -1; f < parts; ++f) {
        char path[512], name[64];
        if (f < 0) {
            snprintf(name, sizeof name, "manifest.bin");
        } else {
            snprintf(name, sizeof name, "step-4-part-%05d.bin", f);
        }
        snprintf(path, sizeof path, "%s/%s", dir, name);
        long n = rank == 0 ? slurp(path, buf, sizeof buf) : 0;
        MPI_Bcast(&n, 1, MPI_LONG, 0, comm);
        CHECK(n > 0, "sweep: cannot read %s", path);
        for (long at = 0; at < n; at += stride) {
            for (int bit = 0; bit < 8; ++bit) {
                if (rank == 0) {
                    poke(path, at, (unsigned char)(buf[at] ^ (1u << bit)));
                }
                MPI_Barrier(comm);
                char msg[600];
                int v = restart_verdict(comm, dir, name, want, msg, sizeof msg);
                counts[v == 1 ? 0 : v == 0 ? 1 : 2]++;
                CHECK(v >= 0, "sweep: %s byte %ld bit %d: %s", name, at, bit, msg);
                if (getenv("MPI_CHECK_SHOW") && rank == 0 && bit == 0 && at % 97 == 0) {
                    printf("sweep: %s byte %ld bit 0: %s\n", name, at, msg);
                }
            }
            if (rank == 0) {
                poke(path, at, buf[at]);
            }
        }
        MPI_Barrier(comm);
    }
}

/* Checkpoints run m into dir (m destroyed), then sweeps it: every bit of every stride-th byte
 * restarted on one rank (one[3]), every bit of every 29th byte on every rank (all[3]);
 * returns the checkpoint's hash. */
static uint64_t sweep_run(orca_mpi *m, const char *dir, long stride, long one[3], long all[3])
{
    orca_status st = orca_mpi_checkpoint(m, dir);
    CHECK(st == ORCA_OK, "sweep: checkpoint: %s", orca_mpi_last_error(m));
    uint64_t want = orca_mpi_hash(m, &st);
    orca_mpi_destroy(m);
    MPI_Comm solo;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
    if (solo != MPI_COMM_NULL) {
        sweep_files(solo, dir, ranks, stride, want, one);
        MPI_Comm_free(&solo);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (ranks > 1) {
        sweep_files(MPI_COMM_WORLD, dir, ranks, 29, want, all);
    }
    return want;
}

/* A small navigated run (docs/mpi.md, "Navigation"), from a scenario: a wall between six
 * agents and their goals, half of them heading for a two-point exit set by the quickest exit
 * choice with the leg check, stepped 4 steps, so that its checkpoint holds paths with
 * corners, exit points and the exits' capacity and outflows. */
static orca_mpi *small_nav_run(void)
{
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create(NULL, 0.25, 5, &sc);
    CHECK(st == ORCA_OK, "small navigated run: %s", orca_scenario_last_error(NULL));
    orca_vec2 a = {0, -3}, b = {0, 3}, pts[2] = {{8, -6}, {8, 6}};
    int set = -1;
    CHECK(orca_sim_add_segment(orca_scenario_sim(sc), a, b, NULL) == ORCA_OK &&
              orca_scenario_add_goal_set(sc, "out", pts, 2, &set) == ORCA_OK &&
              orca_scenario_set_goal_set_exit(sc, set, 0.0) == ORCA_OK &&
              orca_scenario_set_navigation(sc, 1) == ORCA_OK &&
              orca_scenario_set_nav_check(sc, 1) == ORCA_OK &&
              orca_scenario_set_exit_choice(sc, ORCA_EXIT_QUICKEST) == ORCA_OK,
          "small navigated run: %s", orca_scenario_last_error(sc));
    for (int k = 0; k < 6; ++k) {
        orca_agent_def d;
        orca_goal g;
        agent(k, 0, &d, &g);
        d.position.x = -3.0 - 1.2 * (k % 3);
        d.position.y = -1.5 + 1.5 * (k / 3);
        g.target.x = 4.0;
        g.target.y = (double)k - 2.5;
        if (k & 1) {
            g.kind = ORCA_GOAL_SET;
            g.goal_set = set;
        }
        CHECK(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK, "small navigated run: %s",
              orca_scenario_last_error(sc));
    }
    orca_mpi_def def = orca_mpi_def_default();
    def.rebalance_every = 1;
    orca_mpi *m = NULL;
    st = orca_mpi_create_from_scenario(MPI_COMM_WORLD, sc, &def, &m);
    orca_scenario_destroy(sc);
    CHECK(st == ORCA_OK, "small navigated run: %s", orca_mpi_last_error(NULL));
    for (int s = 0; s < 4 && st == ORCA_OK; ++s) {
        st = orca_mpi_step(m);
    }
    CHECK(st == ORCA_OK, "small navigated run: step: %s", orca_mpi_last_error(m));
    return m;
}

/* The corruption sweep of a navigated checkpoint (format version 5: paths after the records,
 * navigation's words in the manifest): every bit of every third byte restarted on one rank (3
 * is prime to the words' 8 bytes, so every byte of a word is hit across the words), every bit
 * of every 29th byte on every rank; each refused naming the file or restarted to the
 * checkpoint's hash. */
static void nav_corruption_sweep(const char *dir)
{
    char sub[512];
    snprintf(sub, sizeof sub, "%s/nav", dir);
    if (rank == 0) {
        mkdir(sub, 0700);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long one[3] = {0, 0, 0}, all[3] = {0, 0, 0};
    uint64_t want = sweep_run(small_nav_run(), sub, 3, one, all);
    char msg[600];
    CHECK(restart_verdict(MPI_COMM_WORLD, sub, "-", want, msg, sizeof msg) == 0,
          "navigated sweep: the checkpoint restored: %s", msg);
    if (rank == 0) {
        printf("navigated checkpoint corruption (%d part%s): every bit of every 3rd byte "
               "restarted on 1 rank: %ld flips, %ld refused naming the file, %ld restarted to the right "
               "hash, %ld wrong; every 29th byte on %d ranks: %ld flips, %ld wrong\n",
               ranks, ranks == 1 ? "" : "s", one[0] + one[1] + one[2], one[0], one[1], one[2],
               ranks, all[0] + all[1] + all[2], all[2]);
    }
}

/* Checkpoint corruption (docs/mpi.md, "Checkpoints"): a small checkpoint written by every
 * rank; every single-bit flip of every byte of its files (the manifest and each part),
 * restarted on one rank (which reads every part), is refused naming the file or restarts to
 * the checkpoint's hash; every bit of every 29th byte likewise restarted on every rank (the
 * refusal of one rank reaches all). A part of a run with another seed and another rank's part
 * are refused naming the field; a directory one rank cannot write, naming the rank and the
 * OS's reason. */
static void corruption_sweep(const char *dir)
{
    long one[3] = {0, 0, 0}, all[3] = {0, 0, 0};
    uint64_t want = sweep_run(small_run(11, 3, 4), dir, 1, one, all);
    orca_mpi *m = NULL;
    orca_status st = ORCA_OK;
    if (rank == 0) {
        printf("checkpoint corruption (%d part%s): every bit of every byte restarted on 1 rank: "
               "%ld flips, %ld refused naming the file, %ld restarted to the right hash, %ld "
               "wrong\n",
               ranks, ranks == 1 ? "" : "s", one[0] + one[1] + one[2], one[0], one[1], one[2]);
        if (ranks > 1) {
            printf("checkpoint corruption: every bit of every 29th byte restarted on %d ranks: "
                   "%ld flips, %ld refused, %ld right, %ld wrong\n",
                   ranks, all[0] + all[1] + all[2], all[0], all[1], all[2]);
        }
    }
    static unsigned char buf[1 << 16];
    char msg[600];
    CHECK(restart_verdict(MPI_COMM_WORLD, dir, "-", want, msg, sizeof msg) == 0,
          "sweep: the checkpoint restored: %s", msg);
    /* parts that are not this checkpoint's: another seed's run (its own run identifier),
     * another rank's part */
    char other[512];
    snprintf(other, sizeof other, "%s-other", dir);
    if (rank == 0) {
        mkdir(other, 0700);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    m = small_run(12, 3, 4);
    CHECK(orca_mpi_checkpoint(m, other) == ORCA_OK, "sweep: the other run's checkpoint");
    orca_mpi_destroy(m);
    static unsigned char keep[1 << 16];
    char part0[600], from[600];
    snprintf(part0, sizeof part0, "%s/step-4-part-00000.bin", dir);
    long kept = rank == 0 ? slurp(part0, keep, sizeof keep) : 0;
    struct {
        const char *what, *from, *field;
    } cases[2] = {{"a part of a run with another seed", "step-4-part-00000.bin", "run_id"},
                  {"another rank's part", "step-4-part-00001.bin", "rank"}};
    for (int c = 0; c < (ranks > 1 ? 2 : 1); ++c) {
        snprintf(from, sizeof from, "%s/%s", c == 0 ? other : dir, cases[c].from);
        if (rank == 0) {
            long n = slurp(from, buf, sizeof buf);
            CHECK(n > 0, "sweep: cannot read %s", from);
            spill(part0, buf, n);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        int v = restart_verdict(MPI_COMM_WORLD, dir, "step-4-part-00000.bin", want, msg,
                                sizeof msg);
        CHECK(v == 1 && strstr(msg, cases[c].field), "%s: %s", cases[c].what, msg);
        if (rank == 0) {
            printf("%s: refused: %s\n", cases[c].what, msg);
            spill(part0, keep, kept);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* a directory that cannot be written: named with the OS's reason before anything runs */
    m = small_run(11, 1, 0);
    char bad[600];
    snprintf(bad, sizeof bad, "%s/%s", dir, rank == ranks - 1 ? "missing/sub" : ".");
    st = orca_mpi_check_directory(m, bad);
    char want_msg[64];
    snprintf(want_msg, sizeof want_msg, "rank %d: checkpoint directory", ranks - 1);
    CHECK(st == ORCA_ERR_IO && strstr(orca_mpi_last_error(m), want_msg) &&
              strstr(orca_mpi_last_error(m), "No such file or directory"),
          "an unwritable directory: %d '%s'", (int)st, orca_mpi_last_error(m));
    CHECK(orca_mpi_check_directory(m, dir) == ORCA_OK, "a writable directory: %s",
          orca_mpi_last_error(m));
    orca_mpi_destroy(m);
    if (rank == 0) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", other);
        CHECK(system(cmd) == 0, "could not remove %s", other);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const double dt = 0.25;
    const uint64_t seed = 7;
    orca_status st = orca_scenario_create(NULL, dt, seed, &ref);
    CHECK(st == ORCA_OK, "scenario");
    orca_mpi_def def = orca_mpi_def_default();
    def.dt = dt;
    def.seed = seed;
    def.rebalance_every = 1; /* the borders move every step */
    def.diagnostics = 1;
    orca_mpi *m = NULL;
    st = orca_mpi_create(MPI_COMM_WORLD, &def, &m);
    CHECK(st == ORCA_OK, "create: %s", orca_mpi_last_error(NULL));
    /* a wall along x = 0 with two gaps */
    orca_vec2 wall[4][2] = {{{0, -30}, {0, -3}}, {{0, -1.5}, {0, 1.5}}, {{0, 3}, {0, 30}},
                            {{-20, 12}, {20, 12}}};
    orca_segment_id wall_id[4];
    for (int k = 0; k < 4; ++k) {
        CHECK(orca_mpi_add_segment(m, wall[k][0], wall[k][1]) == ORCA_OK, "segment");
        orca_sim_add_segment(orca_scenario_sim(ref), wall[k][0], wall[k][1], &wall_id[k]);
    }
    /* 160 agents, added by every rank in turn: rank r adds the agents k with k % ranks == r of
     * each group, so the keys interleave ranks; the reference adds them in the same key order */
    int per_group = 80;
    orca_agent_def defs[MAXA];
    orca_goal goals[MAXA];
    int mine = 0;
    for (int r = 0; r < ranks; ++r) {
        for (int group = 0; group < 2; ++group) {
            for (int k = 0; k < per_group; ++k) {
                if (k % ranks != r) {
                    continue;
                }
                orca_agent_def d;
                orca_goal g;
                agent(k, group, &d, &g);
                ref_add(&d, &g);
                if (r == rank) {
                    defs[mine] = d;
                    goals[mine] = g;
                    ++mine;
                }
            }
        }
    }
    uint64_t first = 0;
    st = orca_mpi_add_agents(m, defs, goals, mine, &first);
    CHECK(st == ORCA_OK, "add: %s", orca_mpi_last_error(m));
    same_hash(m, "start", 0);

    /* refusals: a bad value on the last rank only; every rank refuses, the state stays */
    {
        orca_agent_def d;
        orca_goal g;
        agent(0, 0, &d, &g);
        d.radius = rank == ranks - 1 ? -1.0 : 0.5;
        st = orca_mpi_add_agents(m, &d, &g, 1, NULL);
        CHECK(st == ORCA_ERR_ARGUMENT, "a negative radius: status %d", (int)st);
        char want[128];
        snprintf(want, sizeof want, "rank %d: agent 0: radius", ranks - 1);
        CHECK(strstr(orca_mpi_last_error(m), want) != NULL, "message '%s'",
              orca_mpi_last_error(m));
        g.kind = ORCA_GOAL_POINT;
        g.target.x = rank == 0 ? 1e300 : 0.0;
        d.radius = 0.5;
        st = orca_mpi_add_agents(m, &d, &g, 1, NULL);
        CHECK(st == ORCA_ERR_ARGUMENT && strstr(orca_mpi_last_error(m), "goal point") != NULL,
              "goal at 1e300: %d '%s'", (int)st, orca_mpi_last_error(m));
        uint64_t nokey = 1u << 30;
        st = orca_mpi_remove_agents(m, &nokey, rank == 0 ? 1 : 0);
        CHECK(st == ORCA_ERR_ARGUMENT &&
                  strstr(orca_mpi_last_error(m), "key 1073741824 names no agent") != NULL,
              "unknown key: %d '%s'", (int)st, orca_mpi_last_error(m));
        orca_vec2 a = {rank == 0 ? 0.0 : 1.0, 0}, b = {5, 5};
        if (ranks > 1) {
            st = orca_mpi_add_segment(m, a, b);
            CHECK(st == ORCA_ERR_ARGUMENT && strstr(orca_mpi_last_error(m), "differs") != NULL,
                  "segments that differ: %d '%s'", (int)st, orca_mpi_last_error(m));
        }
        orca_mpi_def bad = def;
        bad.dt = rank == ranks - 1 ? 0.0 : dt;
        orca_mpi *m2 = NULL;
        st = orca_mpi_create(MPI_COMM_WORLD, &bad, &m2);
        CHECK(st == ORCA_ERR_ARGUMENT && m2 == NULL &&
                  strstr(orca_mpi_last_error(NULL), "dt must be in") != NULL,
              "dt 0: %d '%s'", (int)st, orca_mpi_last_error(NULL));
        /* a scenario or a built-in scene that differs on the last rank: refused on every
         * rank, naming that rank and what differs */
        if (ranks > 1) {
            orca_scenario *sc = NULL;
            orca_scenario_create(NULL, dt, seed, &sc);
            for (int k = 0; k < 4; ++k) {
                agent(k, k & 1, &d, &g);
                if (k == 2 && rank == ranks - 1) {
                    g.preferred_speed = 1.25;
                }
                orca_scenario_add_agent(sc, &d, &g, NULL);
            }
            st = orca_mpi_create_from_scenario(MPI_COMM_WORLD, sc, &def, &m2);
            snprintf(want, sizeof want, "rank %d: the scenario differs from rank 0's: its goals",
                     ranks - 1);
            CHECK(st == ORCA_ERR_ARGUMENT && m2 == NULL &&
                      strstr(orca_mpi_last_error(NULL), want) != NULL,
                  "a scenario that differs: %d '%s'", (int)st, orca_mpi_last_error(NULL));
            orca_scenario_destroy(sc);
            st = orca_mpi_create_builtin(MPI_COMM_WORLD, ORCA_SCENE_CIRCLE,
                                         rank == ranks - 1 ? 12 : 10, 1, &def, &m2);
            snprintf(want, sizeof want, "rank %d: the built-in scene", ranks - 1);
            CHECK(st == ORCA_ERR_ARGUMENT && m2 == NULL &&
                      strstr(orca_mpi_last_error(NULL), want) != NULL,
                  "a built-in scene that differs: %d '%s'", (int)st, orca_mpi_last_error(NULL));
        }
        same_hash(m, "after the refusals", 0);
    }

    char dir[256];
    mpi_test_dir(dir, (int)sizeof dir, "orca-mpi-check");
    uint64_t ck_hash = 0;
    int steps = 120, ok = 1;
    for (int s = 1; s <= steps && ok; ++s) {
        /* the rule, then the step, in the plain run */
        CHECK(orca_scenario_step(ref) == ORCA_OK, "reference step");
        st = orca_mpi_step(m);
        CHECK(st == ORCA_OK, "step %d: %s", s, orca_mpi_last_error(m));
        ok = same_hash(m, "after the step", s);
        int64_t arrived = -1, agents = -1;
        st = orca_mpi_count_arrived(m, &arrived, &agents);
        CHECK(st == ORCA_OK && arrived == orca_scenario_arrived_count(ref) &&
                  agents == orca_sim_agent_count(orca_scenario_sim(ref)),
              "step %d: %lld of %lld arrived, one process %d of %d", s, (long long)arrived,
              (long long)agents, orca_scenario_arrived_count(ref),
              orca_sim_agent_count(orca_scenario_sim(ref)));
        if (s == 30) {
            /* remove every 5th key (each rank names a share of them, one named twice) */
            uint64_t rm[64];
            int n = 0;
            for (uint64_t k = 0; k < 160; k += 5) {
                if ((int)(k / 5) % ranks == rank) {
                    rm[n++] = k;
                }
            }
            if (rank == 0) {
                rm[n++] = 5; /* twice: removed once */
            }
            st = orca_mpi_remove_agents(m, rm, n);
            CHECK(st == ORCA_OK, "remove: %s", orca_mpi_last_error(m));
            for (uint64_t k = 0; k < 160; k += 5) {
                orca_sim_remove_agent(orca_scenario_sim(ref), handle_of[k]);
            }
            ok = same_hash(m, "after removals", s);
        }
        if (s == 38) {
            /* a wall removed mid-run: the middle piece of the wall at x = 0 (index 1), which
             * opens the gap between the two others; first the refusals (an index out of range,
             * one that differs on the last rank), which remove nothing */
            st = orca_mpi_remove_segment(m, 4);
            CHECK(st == ORCA_ERR_ARGUMENT &&
                      strstr(orca_mpi_last_error(m), "segment index 4: the run has 4") != NULL,
                  "segment index 4: %d '%s'", (int)st, orca_mpi_last_error(m));
            if (ranks > 1) {
                st = orca_mpi_remove_segment(m, rank == ranks - 1 ? 2 : 1);
                CHECK(st == ORCA_ERR_ARGUMENT && strstr(orca_mpi_last_error(m), "differs") != NULL,
                      "segment indices that differ: %d '%s'", (int)st, orca_mpi_last_error(m));
            }
            ok = ok && same_hash(m, "after refused wall removals", s);
            st = orca_mpi_remove_segment(m, 1);
            CHECK(st == ORCA_OK, "remove segment: %s", orca_mpi_last_error(m));
            orca_sim_remove_segment(orca_scenario_sim(ref), wall_id[1]);
            ok = ok && same_hash(m, "after a wall removed", s);
        }
        if (s == 45) {
            /* additions: every rank adds 3 agents coming in from the top */
            int count = 0;
            for (int r = 0; r < ranks; ++r) {
                for (int i = 0; i < 3; ++i) {
                    orca_agent_def d;
                    orca_goal g;
                    agent(0, i & 1, &d, &g);
                    d.position.x = -15.0 + 3.0 * (double)(3 * r + i);
                    d.position.y = 9.0;
                    g.target.x = -d.position.x;
                    g.target.y = -9.0;
                    ref_add(&d, &g);
                    if (r == rank) {
                        defs[count] = d;
                        goals[count] = g;
                        ++count;
                    }
                }
            }
            uint64_t k0 = 0;
            st = orca_mpi_add_agents(m, defs, goals, count, &k0);
            CHECK(st == ORCA_OK && k0 == 160u + 3u * (uint64_t)rank, "add mid-run: %d, key %llu",
                  (int)st, (unsigned long long)k0);
            ok = same_hash(m, "after additions", s);
        }
        if (s == 60) {
            /* one agent out and one in, so the count stays: on one rank the local simulation,
             * which otherwise keeps the last step's agents, must take the new list */
            uint64_t out = 1;
            st = orca_mpi_remove_agents(m, &out, rank == 0 ? 1 : 0);
            CHECK(st == ORCA_OK, "remove one: %s", orca_mpi_last_error(m));
            orca_sim_remove_agent(orca_scenario_sim(ref), handle_of[out]);
            orca_agent_def d;
            orca_goal g;
            agent(0, 0, &d, &g);
            d.position.x = 0.0;
            d.position.y = 12.0;
            g.target.x = 0.0;
            g.target.y = -12.0;
            ref_add(&d, &g);
            st = orca_mpi_add_agents(m, &d, &g, rank == ranks - 1 ? 1 : 0, NULL);
            CHECK(st == ORCA_OK, "add one: %s", orca_mpi_last_error(m));
            ok = same_hash(m, "after one out and one in", s);
        }
        if (s == 80) {
            st = orca_mpi_checkpoint(m, dir);
            CHECK(st == ORCA_OK, "checkpoint: %s", orca_mpi_last_error(m));
        }
        if (s == 100) {
            ck_hash = ref_hash();
        }
    }
    orca_mpi_summary sum;
    st = orca_mpi_summarize(m, &sum);
    CHECK(st == ORCA_OK && sum.agents == 160 - 32 + 3 * ranks && sum.steps == (uint64_t)steps &&
              sum.fallbacks >= 0 && sum.segments == 3,
          "summary: %lld agents, %llu steps, %lld fallbacks", (long long)sum.agents,
          (unsigned long long)sum.steps, (long long)sum.fallbacks);
    CHECK(sum.arrived == orca_scenario_arrived_count(ref), "arrived %lld, one process %d",
          (long long)sum.arrived, orca_scenario_arrived_count(ref));
    orca_mpi_stats stats;
    orca_mpi_get_stats(m, &stats);
    long long moved = stats.moved, moved_all = 0;
    MPI_Allreduce(&moved, &moved_all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(ranks == 1 || moved_all > 0, "no agent crossed a border");
    orca_mpi_destroy(m);

    /* the checkpoint of step 80 restarted on every rank count from 1 to this one (a
     * sub-communicator of the first ranks), 20 steps more: the one-process hash of step 100 */
    for (int sub = 1; sub <= ranks; ++sub) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, rank < sub ? 0 : MPI_UNDEFINED, rank, &c);
        if (c != MPI_COMM_NULL) {
            orca_mpi *r = NULL;
            st = orca_mpi_restart(c, dir, &def, &r);
            CHECK(st == ORCA_OK, "restart on %d ranks: %s", sub, orca_mpi_last_error(NULL));
            for (int s = 0; s < 20 && st == ORCA_OK; ++s) {
                st = orca_mpi_step(r);
            }
            uint64_t h = st == ORCA_OK ? orca_mpi_hash(r, &st) : 0;
            CHECK(st == ORCA_OK && h == ck_hash && orca_mpi_step_count(r) == 100,
                  "restart on %d ranks: %016llx at step %llu, one process %016llx", sub,
                  (unsigned long long)h, (unsigned long long)orca_mpi_step_count(r),
                  (unsigned long long)ck_hash);
            orca_mpi_destroy(r);
            MPI_Comm_free(&c);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    corruption_sweep(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    nav_corruption_sweep(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) {
            fprintf(stderr, "could not remove %s\n", dir);
        }
    }
    orca_scenario_destroy(ref);
    edge_checks();
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("mpi_check on %d ranks: %s (%d failed checks; %d steps, hash equal at every one, "
               "restarts on 1..%d ranks)\n",
               ranks, all ? "FAILED" : "passed", all, steps, ranks);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
