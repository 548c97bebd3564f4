/* SPDX-License-Identifier: MIT */
/* orca on MPI (docs/mpi.md): one run split across the processes of an MPI communicator by
 * spatial domains, with the bits of one process. Every agent carries its order key (its place
 * in the one-process index order); each rank owns the agents whose position lies in its domain
 * of the plane, steps them with copies of the other ranks' agents that its own can reach (the
 * halo), and hands agents that crossed a border to their new owner. The result of every step,
 * and so the state hash, equals the one-process run (an orca_scenario with the same agents,
 * goals, seed and dt) for any rank count, any domain layout and any rebalancing.
 *
 * Every function marked "collective" must be called by every rank of the communicator, in the
 * same order, with the same arguments where the comment says so; each returns the same status
 * on every rank, and a refusal names the value and the rank it came from and changes nothing
 * on any rank. Not thread-safe: one thread per rank calls these. Built when CMake finds MPI
 * (target orca::orca_mpi; link MPI::MPI_C). */
#ifndef ORCA_MPI_H
#define ORCA_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "orca/scenario.h"
#include "orca/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct orca_mpi orca_mpi;

/** How a distributed run is set up (orca_mpi_def_default gives the defaults). */
typedef struct orca_mpi_def {
    double dt;           /**< step length (s), as orca_sim_step accepts */
    uint64_t seed;       /**< the preferred-velocity rule's seed (docs/scenarios.md) */
    int workers;         /**< worker threads per rank (1..64; default 1): same bits for any */
    int vector_kernels;  /**< 1 (default): the vector kernels where the CPU has them */
    int rebalance_every; /**< rebuild the domains every this many steps (0: never; default
                              50); the bits do not depend on it */
    int record;          /**< 1 (default): keep the deepest overlaps over the run's states */
    int diagnostics;     /**< 1: the local step records per-agent diagnostics (same bits,
                              slower); 0 (default). The fallbacks are counted either way */
} orca_mpi_def;

orca_mpi_def orca_mpi_def_default(void);

/** Collective. An empty distributed run on comm (duplicated; the caller's stays its own); def
 * equal on every rank (it is checked). */
orca_status orca_mpi_create(MPI_Comm comm, const orca_mpi_def *def, orca_mpi **out);

/** Collective. A built-in scene (orca_scenario_create_builtin's arguments, same on every
 * rank): its agents, goals and walls, spread over the ranks by position. Every rank runs the
 * scene's generator but keeps only its share of the agents (no rank holds the whole scene).
 * def->dt and def->seed are ignored: the scene's dt (0.25 s) and seed apply. */
orca_status orca_mpi_create_builtin(MPI_Comm comm, orca_scene_kind kind, int agent_count,
                                             uint64_t seed, const orca_mpi_def *def,
                                             orca_mpi **out);

/** Collective. The agents, walls and extensions of a scenario: every rank passes a scenario
 * holding the same scene (a scene file read on every rank, say; the ranks' digests of it are
 * compared); each rank takes only its share. Refused when the scenario holds what the
 * distributed run does not support yet (docs/mpi.md, "What runs under MPI"): agents added to
 * its simulation directly (without a goal). */
orca_status orca_mpi_create_from_scenario(MPI_Comm comm, const orca_scenario *scenario,
                                                   const orca_mpi_def *def, orca_mpi **out);

/** Collective. Frees everything; NULL is ignored. */
void orca_mpi_destroy(orca_mpi *m);

/** The last refusal's message on this rank ("" when none); with m NULL, the last refusal of
 * orca_mpi_create, orca_mpi_create_builtin, orca_mpi_create_from_scenario or orca_mpi_restart
 * (the same on every rank, naming the rank it came from). */
const char *orca_mpi_last_error(const orca_mpi *m);

/** Steps taken (the one-process step count, carried over a restart). */
uint64_t orca_mpi_step_count(const orca_mpi *m);

/** Collective, same arguments on every rank: a wall segment (orca_sim_add_segment's rules;
 * every rank keeps every segment). */
orca_status orca_mpi_add_segment(orca_mpi *m, orca_vec2 a, orca_vec2 b);

/** Collective, same index on every rank: removes the segment at index (0 .. count - 1, in the
 * order they were added, earlier removals closing the gaps); the others keep their order, as
 * orca_sim_remove_segment keeps them, so the run continues with the bits of one process that
 * removed the same segment. A bad or differing index is refused on every rank, nothing
 * removed. */
orca_status orca_mpi_remove_segment(orca_mpi *m, int index);

/** Collective. Each rank adds its own list (count may differ, 0 included): agent defs with
 * their goals (ORCA_GOAL_POINT, ORCA_GOAL_VELOCITY, ORCA_GOAL_NONE, or ORCA_GOAL_SET naming a
 * goal set of the run). The new agents come after every agent there is, in rank order and
 * then list order, with consecutive keys; this rank's first key goes to *first_key (may be
 * NULL). The keys are what a one-process scenario would give agents added in that order
 * (orca_scenario_add_agent): their rule keys and their index order; and so is each agent: a
 * goal set's heads for the set's point nearest to it and, with the pedestrian model, walks in
 * the set's stream; with navigation it has no path yet and plans at the next step. The
 * default avoidance settings. */
orca_status orca_mpi_add_agents(orca_mpi *m, const orca_agent_def *defs,
                                         const orca_goal *goals, int count, uint64_t *first_key);

/** Collective. Each rank names keys to remove (any rank may name any agent; a key named twice
 * is removed once). A key that names no agent refuses the whole call. */
orca_status orca_mpi_remove_agents(orca_mpi *m, const uint64_t *keys, int count);

/** Collective: one step of the scenario rule and orca_sim_step (docs/mpi.md, "The step"). */
orca_status orca_mpi_step(orca_mpi *m);

/** Collective: rebuild the domains by the agents' count now (docs/mpi.md, "Domains"). */
orca_status orca_mpi_rebalance(orca_mpi *m);

/** Collective: the rows of the current state in `orca run --csv`'s format, in index order
 * (the one-process order of the agents), written by rank 0 into f (the other ranks pass NULL
 * or anything): "step,time,agent,x,y,vx,vy" values, one line an agent, numbers as %.17g,
 * time = steps * dt. The rows pass through rank 0 a window of keys at a time, as the hash's
 * values do, so no rank holds every agent. ORCA_ERR_IO on every rank when rank 0's writes
 * fail (the header line is the caller's). */
orca_status orca_mpi_write_csv(orca_mpi *m, FILE *f);

/** Collective: the state hash, equal to orca_sim_hash of the one-process simulation in the
 * same state; the same value on every rank (0 with *status set on a failure, may be NULL). */
uint64_t orca_mpi_hash(orca_mpi *m, orca_status *status);

/** Global figures (collective to compute; the same on every rank). */
typedef struct orca_mpi_summary {
    int64_t agents;            /**< agents in the run */
    int64_t arrived;           /**< agents arrived (docs/scenarios.md's test) now */
    uint64_t steps;            /**< steps taken */
    double agent_overlap; /**< deepest agent-agent overlap over the recorded states, as a
                               fraction of the smaller radius (orca_sim_measure_overlap) */
    double wall_overlap;  /**< deepest agent-wall overlap likewise, a fraction of the radius */
    int64_t fallbacks;         /**< fallback count over the run (one process's count) */
    int32_t segments;          /**< wall segments */
    int64_t exited;            /**< agents that left by exits over the run (goal sets) */
    int64_t exited_last_step;  /**< the step count when the last of them left; -1: none */
} orca_mpi_summary;

/** Collective. Measures the current state too (so the final state enters the overlaps). */
orca_status orca_mpi_summarize(orca_mpi *m, orca_mpi_summary *out);

/** Collective: navigation's counts over the whole run, agents that left included, as
 * orca_scenario_nav_counts gives them in one process (sums over the ranks; most_changes the
 * largest); without navigation only exited, at_exits and arrived are not 0. The same on every
 * rank. */
orca_status orca_mpi_nav_counts(orca_mpi *m, orca_nav_counts *out);

/** Whether the run navigates (docs/mpi.md, "Navigation"): the same on every rank. */
int orca_mpi_navigation(const orca_mpi *m);

/** The point count of goal set `set` (index order) when it is an exit, 0 when it is not, -1
 * when the run has no such set (the same on every rank; no communication). */
int orca_mpi_exit_points(const orca_mpi *m, int set);

/** Collective: the agents that left by point `point` of exit set `set` over the run and the
 * step count when the last did (-1: none), as orca_scenario_exit_departures gives them; either
 * pointer may be NULL. A restart starts them from 0 (checkpoints do not hold them yet). */
orca_status orca_mpi_exit_departures(orca_mpi *m, int set, int point, int64_t *left,
                                     int64_t *last);

/** Collective and cheap (one pass over the owned agents, one MPI_Allreduce): the agents
 * arrived now (docs/scenarios.md's test, as in orca_mpi_summary) and the agents in the run,
 * the same on every rank. Either pointer may be NULL. A run until every agent has arrived
 * (`orca-mpi run --max-steps`) asks after every step. */
orca_status orca_mpi_count_arrived(orca_mpi *m, int64_t *arrived, int64_t *agents);

/** This rank's exchange figures, summed over the steps since orca_mpi_reset_stats. */
typedef struct orca_mpi_stats {
    int rank, ranks;
    int64_t steps;          /**< steps counted */
    int64_t owned;          /**< agents owned now */
    int64_t owned_sum;      /**< owned agents summed over the steps */
    int64_t halo_sum;       /**< halo agents received, summed over the steps */
    int64_t halo_bytes;     /**< bytes received for halos */
    int64_t moved;          /**< agents handed to another rank after steps */
    int64_t moved_bytes;    /**< bytes sent for them */
    double step_seconds;    /**< wall time inside orca_mpi_step */
    double comm_seconds;    /**< of which in MPI calls (exchange, reductions, waiting) */
    double solve_seconds;   /**< of which in orca_sim_step */
    double box[4];          /**< this rank's domain: x0 <= x < x1, y0 <= y < y1 as
                                 (x0, y0, x1, y1), infinite where unbounded */
    double halo_width;      /**< the last step's largest reach of this rank's agents (m):
                                 max(neighbour distance, 2 radius); its halo holds the
                                 agents within it of its own (0 with none, and on one rank,
                                 which has no halo) */
} orca_mpi_stats;

void orca_mpi_get_stats(const orca_mpi *m, orca_mpi_stats *out);
void orca_mpi_reset_stats(orca_mpi *m);

/** This rank's agents, in key order (positions; keys may be NULL): writes min(capacity, owned)
 * entries and returns the owned count. */
int orca_mpi_local_agents(const orca_mpi *m, uint64_t *keys, orca_vec2 *positions,
                                   int capacity);

/** Collective: a checkpoint in directory dir (which must exist): each rank writes its part
 * (step-S-part-RRRRR.bin) and rank 0 the manifest (manifest.bin, written last: a checkpoint
 * without it is incomplete), which records the state hash, the run's identifier and each
 * part's digest. A part of this run's earlier checkpoint in dir is removed once the new
 * manifest is in place. ORCA_ERR_IO with the operating system's reason when a file cannot be
 * written. */
orca_status orca_mpi_checkpoint(orca_mpi *m, const char *dir);

/** Collective: checks that every rank can write files in dir (each creates and removes one);
 * ORCA_ERR_IO naming the rank and the operating system's reason ("No such file or
 * directory", "Permission denied") when one cannot. Call it before the first step of a run
 * that will write checkpoints there. */
orca_status orca_mpi_check_directory(orca_mpi *m, const char *dir);

/** Collective: a run restored from the checkpoint in dir, on any number of ranks (def's
 * workers, vector_kernels, rebalance_every, record and diagnostics apply; its dt and seed are
 * the checkpoint's). It checks everything it reads and refuses (ORCA_ERR_FORMAT), naming the
 * file and the field, any byte that differs from what was written: each file's checksum, the
 * manifest's values, each part's run identifier, rank, step and digest against the manifest,
 * every agent's values, and the restored state's hash against the manifest's. It continues
 * with the bits of the run that wrote it. */
orca_status orca_mpi_restart(MPI_Comm comm, const char *dir, const orca_mpi_def *def,
                                      orca_mpi **out);

/* --- reading the run (mpi_visit.c): what a picture of it needs ------------------------------ */

/** The run's step length (s): def->dt, or a built-in scene's, or a checkpoint's. */
double orca_mpi_dt(const orca_mpi *m);
/** The wall segments (every rank holds them all, in index order). */
int orca_mpi_segment_count(const orca_mpi *m);
/** Segment `index`'s end points; ORCA_ERR_ARGUMENT when there is no such segment. */
orca_status orca_mpi_segment_get(const orca_mpi *m, int index, orca_vec2 *a, orca_vec2 *b);
/** The walkable-area boundary loops (every rank holds them all, in index order). */
int orca_mpi_boundary_count(const orca_mpi *m);
/** Loop `index`'s points: writes min(capacity, count) of them and returns its count, or -1
 * when there is no such loop. */
int orca_mpi_boundary_get(const orca_mpi *m, int index, orca_vec2 *points, int capacity);

/** A point a rank attaches to an agent's order key for orca_mpi_visit_agents (where the agent
 * stood when the rank owned it, say). */
typedef struct orca_mpi_keyed_point {
    uint64_t key;
    orca_vec2 point;
} orca_mpi_keyed_point;

/** One agent of the current state as orca_mpi_visit_agents hands it to rank 0. */
typedef struct orca_mpi_agent_view {
    uint64_t key;       /**< its order key: its place in the one-process index order */
    orca_agent_def def; /**< its position, velocity, preferred velocity and parameters now */
    orca_goal goal;     /**< its goal now, as orca_scenario_agent_goal gives it: a goal set's
                             point it heads for; with waypoints, the goal point after them */
    const orca_vec2 *waypoints; /**< its waypoints (the run's table; NULL with none) */
    int waypoint_count, waypoint_loop;
    int has_point;      /**< 1: some rank attached `point` to its key */
    orca_vec2 point;
} orca_mpi_agent_view;

typedef void orca_mpi_visit_fn(void *context, const orca_mpi_agent_view *agent);

/** Collective: visit(context, agent) on rank 0 for every agent in key order (the one-process
 * index order), or with stride > 0 only for the agents of keys k < below with k % stride ==
 * 0. The agents pass through rank 0 a window of keys at a time (as orca_mpi_hash's values
 * do), so no rank holds every agent. points (point_count of them, in increasing key order;
 * NULL with 0) are this rank's points attached to keys: each visited agent carries the point
 * of its key, whichever rank holds it (points of keys no agent has are dropped). stride, below
 * and visit's results are the caller's: visit is called on rank 0 only (NULL elsewhere).
 * ORCA_ERR_MEMORY on every rank when a rank runs out of memory. */
orca_status orca_mpi_visit_agents(orca_mpi *m, uint64_t stride, uint64_t below,
                                  const orca_mpi_keyed_point *points, int64_t point_count,
                                  orca_mpi_visit_fn *visit, void *context);

/** One agent's navigation state as orca_mpi_visit_paths hands it to rank 0: the agent's order
 * key, its state as orca_scenario_agent_nav gives it in one process, and its path's first
 * min(nav->corners, capacity) corners. */
typedef void orca_mpi_path_fn(void *context, uint64_t key, const orca_nav_agent *nav,
                              const orca_nav_corner *corners);

/** Collective: path(context, ...) on rank 0 for every agent in key order, or with stride > 0
 * only for the agents of keys k < below with k % stride == 0 (as orca_mpi_visit_agents
 * chooses them): its navigation state and path now (docs/mpi.md, "Pictures"), which live on
 * its owner. The states pass through rank 0 a window of keys at a time, as records of their
 * length. ORCA_ERR_ARGUMENT on every rank when capacity < 0; ORCA_ERR_MEMORY on every rank
 * when a rank runs out of memory. */
orca_status orca_mpi_visit_paths(orca_mpi *m, uint64_t stride, uint64_t below, int capacity,
                                 orca_mpi_path_fn *visit, void *context);

#ifdef __cplusplus
}
#endif

#endif
