/* SPDX-License-Identifier: MIT */
/* orca on MPI's scenes (docs/mpi.md, "Running it" and "What runs under MPI"): a run made from a
 * scenario (its walls, boundary loops, goal sets, waypoints and agents, every rank checking
 * that it was given rank 0's) or from a built-in scene's generator, each rank keeping its
 * share of the agents. */
#include "mpi_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_rule.h"
#include "snap_io.h"

/* Collective: every wall of sim, in index order. */
static orca_status add_walls(orca_mpi *m, orca_sim *sim)
{
    orca_status st = ORCA_OK;
    int ns = orca_sim_segment_count(sim);
    for (int k = 0; k < ns && st == ORCA_OK; ++k) {
        orca_vec2 a, b;
        orca_segment_get(sim, orca_sim_segment_at(sim, k), &a, &b);
        st = orca_mpi_add_segment(m, a, b);
    }
    return st;
}

/* Local: the run's boundary loops become count loops of len[l] points each, from pts on (the
 * same on every rank); 0 out of memory (nothing changed). */
int mpi_set_loops(orca_mpi *m, const int32_t *len, const orca_vec2 *pts, int32_t count,
                     int32_t points)
{
    int32_t *l = malloc(((size_t)count + 1) * sizeof *l);
    orca_vec2 *p = malloc(((size_t)points + 1) * sizeof *p);
    if (!l || !p) {
        free(l);
        free(p);
        return 0;
    }
    memcpy(l, len, (size_t)count * sizeof *l);
    memcpy(p, pts, (size_t)points * sizeof *p);
    free(m->bnd_len);
    free(m->bnd_pt);
    m->bnd_len = l;
    m->bnd_pt = p;
    m->bnd_n = count;
    m->bnd_points = points;
    m->local_stale = 1;
    return 1;
}

void mpi_sets_free(orca_mpi *m)
{
    free(m->set_first);
    free(m->set_count);
    free(m->set_exit);
    free(m->set_arrive);
    free(m->set_pt);
    free(m->set_left);
    free(m->set_last);
}

/* Local: the run's goal sets become n sets (count[k] points each from pts on, exit[k],
 * arrive[k]); 0 out of memory (nothing changed). */
int mpi_set_sets(orca_mpi *m, const int32_t *count, const int32_t *exit, const double *arrive,
                    const orca_vec2 *pts, int32_t n, int32_t points)
{
    int32_t *first = malloc(((size_t)n + 1) * sizeof *first);
    int32_t *c = malloc(((size_t)n + 1) * sizeof *c), *e = malloc(((size_t)n + 1) * sizeof *e);
    double *a = malloc(((size_t)n + 1) * sizeof *a);
    orca_vec2 *p = malloc(((size_t)points + 1) * sizeof *p);
    int64_t *left = calloc((size_t)points + 1, sizeof *left);
    int64_t *last = malloc(((size_t)points + 1) * sizeof *last);
    if (!first || !c || !e || !a || !p || !left || !last) {
        free(left);
        free(last);
        free(first);
        free(c);
        free(e);
        free(a);
        free(p);
        return 0;
    }
    for (int32_t k = 0, at = 0; k < n; at += count[k++]) {
        first[k] = at;
    }
    memcpy(c, count, (size_t)n * sizeof *c);
    memcpy(e, exit, (size_t)n * sizeof *e);
    memcpy(a, arrive, (size_t)n * sizeof *a);
    memcpy(p, pts, (size_t)points * sizeof *p);
    mpi_sets_free(m);
    for (int32_t k = 0; k < points; ++k) {
        last[k] = -1;
    }
    m->set_left = left;
    m->set_last = last;
    m->set_first = first;
    m->set_count = c;
    m->set_exit = e;
    m->set_arrive = a;
    m->set_pt = p;
    m->set_n = n;
    m->set_points = points;
    return 1;
}

/* The points of list k of src into pts (at most cap; pts NULL when cap is 0); its count. */
typedef int list_fn(const void *src, int k, orca_vec2 *pts, int cap);

static int loop_points(const void *src, int k, orca_vec2 *pts, int cap)
{
    const orca_sim *sim = src;
    int c = 0;
    orca_boundary_get(sim, orca_sim_boundary_at(sim, k), pts, cap, &c);
    return c;
}

static int goal_set_points(const void *src, int k, orca_vec2 *pts, int cap)
{
    int c = 0;
    orca_scenario_goal_set_get(src, k, NULL, pts, cap, &c);
    return c;
}

/* Local: n lists of points from src, each list's length into *len and every point into *pts
 * (both allocated; freed by the caller, also on a refusal), the total into *points. */
static orca_status gather_lists(orca_mpi *m, const void *src, int32_t n, list_fn *get,
                                int32_t **len, orca_vec2 **pts, int32_t *points)
{
    *points = 0;
    *pts = NULL;
    *len = malloc(((size_t)n + 1) * sizeof **len);
    if (!*len) {
        return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (point lists)");
    }
    for (int32_t k = 0; k < n; ++k) {
        (*len)[k] = get(src, k, NULL, 0);
        *points += (*len)[k];
    }
    *pts = malloc(((size_t)*points + 1) * sizeof **pts);
    if (!*pts) {
        return mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (point lists)");
    }
    for (int32_t k = 0, at = 0; k < n; at += (*len)[k++]) {
        get(src, k, *pts + at, (*len)[k]);
    }
    return ORCA_OK;
}

/* Collective: the scenario's goal sets as the run's (points, exit, arrive distance), and the
 * agents that left by its exits so far (counted on rank 0). */
static orca_status add_sets(orca_mpi *m, const orca_scenario *sc)
{
    int32_t n = orca_scenario_goal_set_count(sc), points = 0, *count = NULL;
    orca_vec2 *pts = NULL;
    int32_t *exit = malloc(((size_t)n + 1) * sizeof *exit);
    double *arrive = malloc(((size_t)n + 1) * sizeof *arrive);
    orca_status st = exit && arrive
                         ? gather_lists(m, sc, n, goal_set_points, &count, &pts, &points)
                         : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (sets)");
    for (int32_t k = 0; k < n && st == ORCA_OK; ++k) {
        int x = 0;
        orca_scenario_goal_set_exit(sc, k, &x, &arrive[k]);
        exit[k] = x;
    }
    if (st == ORCA_OK && !mpi_set_sets(m, count, exit, arrive, pts, n, points)) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (sets)");
    }
    if (st == ORCA_OK && m->rank == 0) {
        int x = 0;
        int64_t last = -1;
        orca_scenario_exited(sc, &x, &last);
        m->exited = x;
        m->exited_last_step = last;
        for (int32_t k = 0; k < n; ++k) { /* the departures so far, counted once */
            for (int32_t j = 0; exit[k] && j < count[k]; ++j) {
                int left = 0;
                orca_scenario_exit_departures(sc, k, j, &left, &last);
                m->set_left[m->set_first[k] + j] = left;
                m->set_last[m->set_first[k] + j] = last;
            }
        }
    }
    free(count);
    free(exit);
    free(arrive);
    free(pts);
    return mpi_agree(m, st);
}

/* Collective: the scenario's boundary loops as the run's (the points as given, in index
 * order: each rank's local simulation adds them in that order before its agents). */
static orca_status add_loops(orca_mpi *m, const orca_sim *sim)
{
    int32_t n = orca_sim_boundary_count(sim), points = 0, *len = NULL;
    orca_vec2 *pts = NULL;
    orca_status st = gather_lists(m, sim, n, loop_points, &len, &pts, &points);
    if (st == ORCA_OK && !mpi_set_loops(m, len, pts, n, points)) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (boundaries)");
    }
    free(len);
    free(pts);
    return mpi_agree(m, st);
}

/* The end of every constructor: on a failure the run is freed and its message kept for
 * orca_mpi_last_error(NULL). */
orca_status mpi_finish_create(orca_mpi *m, orca_status st, orca_mpi **out)
{
    if (st != ORCA_OK) {
        snprintf(mpi_create_error, sizeof mpi_create_error, "%s", m->error);
        orca_mpi_destroy(m);
        return st;
    }
    *out = m;
    return ORCA_OK;
}

/* Local: why this scenario cannot run distributed, or NULL. */
static const char *unsupported(const orca_scenario *sc)
{
    orca_scenario *s = (orca_scenario *)sc; /* orca_scenario_sim only reads here */
    orca_sim *sim = orca_scenario_sim(s);
    int n = orca_sim_agent_count(sim);
    for (int i = 0; i < n; ++i) {
        if (orca_scenario_rule_key(sc, i) < 0) {
            return "agents added to the simulation directly (without a goal)";
        }
    }
    return NULL;
}

/* The parts of a scenario every rank must pass alike (orca_mpi_create_from_scenario), as
 * digests, and what a refusal calls them. */
enum { SD_DT, SD_SEED, SD_AGENTS, SD_STATE, SD_GOALS, SD_SETS, SD_NAV, SD_COUNT };
static const char *const digest_name[SD_COUNT] = {
    "dt", "seed", "agent count", "agents, walls and options (its state hash)",
    "goals and waypoints", "goal sets and exits", "navigation"};

static void scenario_digests(const orca_scenario *sc, uint64_t d[SD_COUNT])
{
    orca_sim *sim = orca_scenario_sim((orca_scenario *)sc); /* only read */
    int n = orca_sim_agent_count(sim);
    d[SD_DT] = f64_bits(orca_scenario_dt(sc));
    d[SD_SEED] = orca_scenario_seed(sc);
    d[SD_AGENTS] = (uint64_t)n;
    d[SD_STATE] = orca_scenario_hash(sc);
    uint64_t h = FNV_OFFSET;
    for (int i = 0; i < n; ++i) {
        orca_goal g;
        orca_vec2 start;
        int count = 0, loop = 0;
        double arrive = 0.0;
        if (orca_scenario_agent_goal(sc, i, &g, &start) != ORCA_OK) {
            h = hash_u64(h, UINT64_MAX); /* an agent without a scenario entry */
            continue;
        }
        h = hash_u64(hash_u64(h, (uint64_t)g.kind), (uint64_t)(int64_t)g.goal_set);
        h = hash_f64(hash_f64(hash_f64(h, g.target.x), g.target.y), g.preferred_speed);
        orca_scenario_agent_waypoints(sc, i, NULL, 0, &count, &loop, &arrive);
        h = hash_f64(hash_u64(hash_u64(h, (uint64_t)count), (uint64_t)loop), arrive);
        h = mpi_waypoints_digest(h, sc, i);
        orca_vec2 *pts = count > 0 ? malloc((size_t)count * sizeof *pts) : NULL;
        if (pts) {
            orca_scenario_agent_waypoints(sc, i, pts, count, &count, NULL, NULL);
            for (int k = 0; k < count; ++k) {
                h = hash_f64(hash_f64(h, pts[k].x), pts[k].y);
            }
        } else if (count > 0) {
            h = hash_u64(h, UINT64_MAX - 1); /* out of memory: differs, and says so */
        }
        free(pts);
    }
    d[SD_GOALS] = h;
    h = FNV_OFFSET;
    for (int k = 0; k < orca_scenario_goal_set_count(sc); ++k) {
        const char *name = "";
        int count = 0, exit = 0;
        double arrive = 0.0;
        orca_scenario_goal_set_get(sc, k, &name, NULL, 0, &count);
        orca_scenario_goal_set_exit(sc, k, &exit, &arrive);
        for (const char *c = name; *c; ++c) {
            h = hash_u64(h, (uint64_t)(unsigned char)*c);
        }
        h = hash_f64(hash_u64(hash_u64(h, (uint64_t)count), (uint64_t)exit), arrive);
    }
    d[SD_SETS] = h;
    d[SD_NAV] = (uint64_t)orca_scenario_get_navigation(sc);
}

/* Collective: 1 when every rank's scenario has rank 0's digests; else 0 with the first
 * differing rank's message ("the scenario differs from rank 0's: its goals and waypoints") in
 * mpi_create_error on every rank. */
static int same_scenario(MPI_Comm comm, const orca_scenario *sc)
{
    uint64_t mine[SD_COUNT], root[SD_COUNT];
    scenario_digests(sc, mine);
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, SD_COUNT, MPI_UINT64_T, 0, comm);
    int k = 0;
    while (k < SD_COUNT && mine[k] == root[k]) {
        ++k;
    }
    if (k < SD_COUNT) {
        snprintf(mpi_create_error, sizeof mpi_create_error,
                 "the scenario differs from rank 0's: its %s (every rank must pass the same "
                 "scene)",
                 digest_name[k]);
    }
    return mpi_agree_create(comm, k == SD_COUNT);
}

orca_status orca_mpi_create_from_scenario(MPI_Comm comm, const orca_scenario *sc,
                                          const orca_mpi_def *def, orca_mpi **out)
{
    if (!out) {
        return ORCA_ERR_NULL;
    }
    *out = NULL;
    mpi_create_error[0] = '\0';
    if (!sc) {
        snprintf(mpi_create_error, sizeof mpi_create_error, "no scenario (NULL)");
    }
    if (!mpi_agree_create(comm, sc != NULL)) {
        return ORCA_ERR_NULL;
    }
    if (!same_scenario(comm, sc)) {
        return ORCA_ERR_ARGUMENT;
    }
    const char *why = unsupported(sc);
    if (why) {
        snprintf(mpi_create_error, sizeof mpi_create_error,
                 "the scenario uses %s, which does not run under MPI yet (docs/mpi.md, \"What "
                 "runs under MPI\")",
                 why);
    }
    if (!mpi_agree_create(comm, why == NULL)) {
        return ORCA_ERR_ARGUMENT;
    }
    orca_mpi_def d = def ? *def : orca_mpi_def_default();
    d.dt = orca_scenario_dt(sc);
    d.seed = orca_scenario_seed(sc);
    orca_mpi *m = NULL;
    orca_status st = orca_mpi_create(comm, &d, &m);
    if (st != ORCA_OK) {
        return st;
    }
    orca_sim *sim = orca_scenario_sim((orca_scenario *)sc);
    st = add_walls(m, sim);
    if (st == ORCA_OK) {
        st = add_loops(m, sim);
    }
    if (st == ORCA_OK) {
        st = add_sets(m, sc);
    }
    if (st == ORCA_OK && orca_scenario_get_navigation(sc)) {
        st = mpi_agree(m, mpi_nav_from_scenario(m, sc));
    }
    m->opt.separation = orca_sim_get_separation(sim);
    m->opt.density_on = orca_sim_get_density_speed(sim, &m->opt.density);
    m->opt.ped_on = orca_sim_get_pedestrian(sim, &m->opt.ped);
    int n = orca_sim_agent_count(sim);
    int mine = (n - m->rank + m->size - 1) / m->size;
    int32_t *row_of = malloc(((size_t)n + 1) * sizeof *row_of);
    if (st == ORCA_OK) {
        st = row_of ? mpi_add_waypoints(m, sc, row_of)
                    : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (waypoints)");
        st = mpi_agree(m, st);
    }
    if (st == ORCA_OK) {
        st = RESERVE(m, own, own_cap, (int64_t)mine + 1);
        for (int i = m->rank; i < n && st == ORCA_OK; i += m->size) {
            mpi_agent *a = &m->own[m->own_n++];
            mpi_agent_clear(a);
            a->key = (uint64_t)i;
            a->rule_key = (uint64_t)orca_scenario_rule_key(sc, i);
            orca_agent_id id = orca_sim_agent_at(sim, i);
            orca_agent_get(sim, id, &a->def);
            orca_scenario_agent_goal(sc, i, &a->goal, NULL);
            if (sim->ext) {
                a->ext = sim->ext[i];
            }
            if (sim->stream) {
                a->stream = sim->stream[i];
            }
            mpi_waypoints_attach(m, a, sc, i, row_of[i]);
            if (m->nav) {
                st = mpi_nav_clone(m, sc, i, a);
            }
        }
        st = mpi_agree(m, st);
    }
    free(row_of);
    if (st == ORCA_OK) {
        m->steps = orca_sim_step_count(sim);
        m->next_key = (uint64_t)n;
        m->next_rule_key = (uint64_t)orca_scenario_next_rule_key(sc);
        st = orca_mpi_rebalance(m);
    }
    return mpi_finish_create(m, st, out);
}

/* The built-in scene's agents as they are generated: this rank keeps every size-th one
 * (index % size == rank); the rebalancing afterwards hands each to its owner. */
static orca_status keep_share(void *ctx, int64_t index, const orca_agent_def *def,
                              const orca_goal *goal)
{
    orca_mpi *m = ctx;
    if (index % m->size != m->rank) {
        return ORCA_OK;
    }
    orca_status st = RESERVE(m, own, own_cap, m->own_n + 1);
    if (st != ORCA_OK) {
        return st;
    }
    mpi_agent *a = &m->own[m->own_n++];
    mpi_agent_clear(a);
    a->key = (uint64_t)index;
    a->rule_key = (uint64_t)index;
    a->def = *def;
    a->goal = *goal;
    return ORCA_OK;
}

/* Local: the built-in scene's agents kept here, checked as orca_mpi_add_agents checks them
 * (the goal, then the definition by the simulation's own check): the generator hands them on
 * unchecked, and the local simulation's refill (fill_local) trusts what own holds. */
static orca_status check_own(orca_mpi *m)
{
    orca_sim *probe = NULL;
    orca_status st = orca_sim_create(NULL, &probe);
    if (st != ORCA_OK) {
        return mpi_local_fail(m, st, "out of memory");
    }
    for (int64_t i = 0; i < m->own_n && st == ORCA_OK; ++i) {
        const mpi_agent *a = &m->own[i];
        st = mpi_check_agent(m, probe, &a->def, &a->goal, (int64_t)a->key); /* the scene's index */
    }
    orca_sim_destroy(probe);
    return st;
}

orca_status orca_mpi_create_builtin(MPI_Comm comm, orca_scene_kind kind, int agent_count,
                                    uint64_t seed, const orca_mpi_def *def, orca_mpi **out)
{
    if (!out) {
        return ORCA_ERR_NULL;
    }
    *out = NULL;
    /* the same scene everywhere */
    mpi_create_error[0] = '\0';
    uint64_t args[3] = {(uint64_t)kind, (uint64_t)(int64_t)agent_count, seed}, root[3];
    memcpy(root, args, sizeof root);
    MPI_Bcast(root, 3, MPI_UINT64_T, 0, comm);
    int same = memcmp(args, root, sizeof root) == 0;
    if (!same) {
        snprintf(mpi_create_error, sizeof mpi_create_error,
                 "the built-in scene (kind %d, %d agents, seed %llu) differs from rank 0's (kind "
                 "%d, %d agents, seed %llu)",
                 (int)kind, agent_count, (unsigned long long)seed, (int)root[0],
                 (int)(int64_t)root[1], (unsigned long long)root[2]);
    }
    if (!mpi_agree_create(comm, same)) {
        return ORCA_ERR_ARGUMENT;
    }
    orca_mpi_def d = def ? *def : orca_mpi_def_default();
    d.dt = 0.25; /* every built-in scene's (docs/scenarios.md) */
    d.seed = seed;
    orca_mpi *m = NULL;
    orca_status st = orca_mpi_create(comm, &d, &m);
    if (st != ORCA_OK) {
        return st;
    }
    /* every rank runs the scene's generator (the random scene's rejection sampling needs
     * every earlier point) but keeps only its share of the agents */
    orca_scenario *sc = NULL;
    st = orca_builtin_stream(kind, agent_count, seed, keep_share, m, &sc);
    if (st != ORCA_OK && !m->error[0]) {
        mpi_local_fail(m, st, "%s", orca_scenario_last_error(NULL));
    }
    if (st == ORCA_OK) {
        st = check_own(m);
    }
    st = mpi_agree(m, st);
    if (st == ORCA_OK && orca_scenario_dt(sc) != d.dt) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT, "the scene's dt is not 0.25");
    }
    if (st == ORCA_OK) {
        st = add_walls(m, orca_scenario_sim(sc));
    }
    if (st == ORCA_OK) {
        long long mine = m->own_n, total = 0;
        MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, m->comm);
        m->next_key = (uint64_t)total;
        m->next_rule_key = (uint64_t)total;
        st = orca_mpi_rebalance(m);
    }
    orca_scenario_destroy(sc);
    return mpi_finish_create(m, st, out);
}

