/* SPDX-License-Identifier: MIT */
/* orca on MPI's internals shared by its files (docs/mpi.md): mpi.c (the run: domains, halo,
 * step, rebalancing, creation, summaries), mpi_scene.c (runs made from a scenario or a
 * built-in scene), mpi_hash.c (the hash and the CSV rows, streamed through rank 0, and the
 * windowed gathers), mpi_checkpoint.c (checkpoints and restarts), mpi_waypoints.c, mpi_nav.c
 * (navigation) and mpi_visit.c (every agent and path through rank 0, for pictures). */
#ifndef ORCA_MPI_INTERNAL_H
#define ORCA_MPI_INTERNAL_H

#include "orca/mpi.h"

#include "sim_internal.h"

/* A node of the domain tree: an inner node cuts its region at `cut` along `axis` (0 x, 1 y):
 * coordinates below the cut go to child lo, the others to child hi; a leaf (lo = -1) is the
 * domain of rank r0. It covers ranks [r0, r1). */
typedef struct dnode {
    int axis, depth;
    double cut;
    int lo, hi;
    int r0, r1;
} dnode;

/* One agent as the ranks exchange it (bytes: every rank runs the same build). */
typedef struct mpi_agent {
    uint64_t key;      /* order key: its place in the one-process index order */
    uint64_t rule_key; /* the rule's key (docs/scenarios.md): its creation ordinal */
    orca_agent_def def;
    orca_goal goal;
    float hint;  /* the step's search-radius hint for this agent (not state: it never decides,
                    algorithm.md §11.4), carried so the local simulation starts warm */
    int32_t stream; /* the pedestrian model's stream (-1: none; docs/pedestrians.md) */
    agent_ext ext;  /* its avoidance settings (docs/extensions.md) */
    int32_t wp_row;   /* its row of the run's waypoint table (-1: no waypoints) */
    int32_t wp_index; /* its current target: 0 .. count-1 a waypoint, count the goal point */
    struct sc_nav *nv; /* with navigation: its path state, on its owner's heap (NULL: none
                          yet); in a halo copy or a record received, the sender's pointer,
                          never read (mpi_nav.c) */
} mpi_agent;

/* The rank's navigation (mpi_nav.c). */
typedef struct mpi_nav mpi_nav;
#define NAV_COUNTS 7 /* the counts of dropped paths (the scenario's NAV_RETIRED) */

/* The run's waypoint table (docs/mpi.md, "Waypoints"): one row per agent with waypoints, in
 * the scenario's index order, immutable; row k has count[k] points from pt[first[k]] on
 * (consecutive rows with the same points share them), loops (loop[k]), switches at
 * arrive[k] (0: the agent's radius), ends at goal[k] and starts its first leg at start[k]
 * (the agent's position when its waypoints were set). */
typedef struct mpi_wp_table {
    int32_t n;
    int64_t points;
    int64_t *first;
    int32_t *count, *loop;
    double *arrive;
    orca_vec2 *goal, *start, *pt;
} mpi_wp_table;

/* The simulation-wide settings of the run's extensions (docs/mpi.md, "What runs under MPI"):
 * each rank's local simulation gets them, and the hash and the checkpoints carry them. */
typedef struct mpi_options {
    int separation;
    int density_on;
    orca_density_speed density;
    int ped_on;
    orca_pedestrian ped;
} mpi_options;


struct orca_mpi {
    MPI_Comm comm;
    int rank, size;
    orca_mpi_def def;
    uint64_t steps;
    uint64_t next_key, next_rule_key;
    orca_sim *local;
    int local_stale; /* 1: rebuild the local simulation (walls changed) */
    int local_own;   /* 1: the local list is own itself (one rank: no halo), not order */
    int local_mirror; /* 1: the local simulation holds own's agents in order with own's values
                         (one rank, after a step's keep), but for the owned agents' preferred
                         velocities when local_ruled; whatever changes own clears it */
    int local_ruled;  /* with local_mirror: those are the rule's for step m->steps already */
    mpi_agent *own;
    int64_t own_n, own_cap;
    dnode *tree;    /* the domains: 2 size - 1 nodes, the root first (docs/mpi.md, "Domains") */
    int tree_n;
    double *reach_box; /* per rank, the box its owned agents can read (x0, y0, x1, y1; empty:
                          x0 > x1), from the last halo exchange (docs/mpi.md, "Halo") */
    int *readers;      /* scratch: the ranks whose reach box meets this rank's agents */
    orca_vec2 *seg_a, *seg_b;
    int32_t seg_n, seg_cap;
    /* the walkable-area boundary loops, in index order: loop l has bnd_len[l] points, from
     * bnd_pt[sum of the earlier lengths] on */
    int32_t *bnd_len;
    orca_vec2 *bnd_pt;
    int32_t bnd_n, bnd_points;
    /* the goal sets (docs/navigation.md, "Shared goals"), in index order: set k has
     * set_count[k] points from set_pt[set_first[k]] on, and is an exit (set_exit[k]) with
     * arrive distance set_arrive[k] (0: the agent's radius) */
    int32_t set_n, set_points, *set_first, *set_count, *set_exit;
    double *set_arrive;
    orca_vec2 *set_pt;
    int64_t *set_left, *set_last; /* per point of the sets: this rank's agents that left
                                     there and the step count when the last did (-1: none) */
    mpi_wp_table wp;  /* the waypoint table */
    int32_t *wp_prev; /* scratch: per owned agent, its wp_index before this step's switch */
    int64_t wp_prev_cap;
    int64_t exited;           /* this rank's owned agents that left by exits */
    int64_t exited_last_step; /* the step count when the last of them left, or -1 */
    mpi_options opt;
    mpi_nav *nav; /* NULL: navigation is off */
    /* scratch */
    mpi_agent *send, *recv, *merged, *tmp;
    int64_t send_cap, recv_cap, merged_cap, tmp_cap;
    int *scount, *sdispl, *rcount, *rdispl;
    const mpi_agent **order, **order_tmp; /* the local list: owned and halo agents by key */
    int64_t order_cap, order_tmp_cap;
    unsigned char *owned; /* per entry of the local list: 1 owned, 0 a halo copy */
    int64_t owned_cap;
    orca_vec2 *rule_pref; /* with the pedestrian model: per entry, this step's preferred
                             velocity, which the step takes from the rule (fill_local) */
    int64_t rule_pref_cap;
    /* record */
    double agent_overlap, wall_overlap;
    int64_t fallbacks;
    orca_mpi_stats stats;
    uint64_t run_id; /* this run's identifier (checkpoints name it; a restart keeps it) */
    char last_part[4200]; /* this rank's part of the last checkpoint it wrote, or "" */
    char error[512];
};

/* A new record: zero, with no stream, the default avoidance settings and no waypoints. */
void mpi_agent_clear(mpi_agent *a);

/* The message of a refusal before a run exists (orca_mpi_last_error(NULL)). */
extern char mpi_create_error[512];

/* Local: this rank's refusal (its message kept for mpi_agree); returns st. */
orca_status mpi_local_fail(orca_mpi *m, orca_status st, const char *fmt, ...);
/* Collective: every rank's status agreed (the lowest refusing rank's message on all). */
orca_status mpi_agree(orca_mpi *m, orca_status st);
/* Collective, before a run exists: whether every rank passed ok (mpi_create_error otherwise). */
int mpi_agree_create(MPI_Comm comm, int ok);
/* Grows *p to hold need entries of size bytes; 0 out of memory (nothing changed). */
int mpi_reserve(void **p, int64_t *cap, int64_t need, size_t size);
#define RESERVE(m, arr, cap, need)                                                             \
    (mpi_reserve((void **)&(m)->arr, &(m)->cap, (need), sizeof *(m)->arr)                          \
         ? ORCA_OK                                                                             \
         : mpi_local_fail((m), ORCA_ERR_MEMORY, "out of memory (%lld entries of %s)",              \
                      (long long)(need), #arr))

/* Local: agent i's goal and definition checked as orca_mpi_add_agents checks them, the
 * definition by the library's own check on probe (a simulation made for checking); the
 * refusal's message names the agent as i. */
orca_status mpi_check_agent(orca_mpi *m, const orca_sim *probe, const orca_agent_def *def,
                            const orca_goal *goal, int64_t i);
/* Local: checks agent definitions and goals as orca_mpi_add_agents does. */
orca_status mpi_check_defs(orca_mpi *m, const orca_agent_def *defs, const orca_goal *goals,
                           int count);
/* The end of every constructor (on a failure the run is freed, its message kept). */
orca_status mpi_finish_create(orca_mpi *m, orca_status st, orca_mpi **out);
/* Local: the run's boundary loops and goal sets replaced (0 out of memory, nothing changed). */
int mpi_set_loops(orca_mpi *m, const int32_t *len, const orca_vec2 *pts, int32_t count,
                  int32_t points);
int mpi_set_sets(orca_mpi *m, const int32_t *count, const int32_t *exit, const double *arrive,
                 const orca_vec2 *pts, int32_t n, int32_t points);
/* Frees the goal sets' arrays (their points, bookkeeping and departures), leaving the fields
 * to the caller. */
void mpi_sets_free(orca_mpi *m);

/* --- waypoints (mpi_waypoints.c; docs/mpi.md, "Waypoints") --------------------------------- */

/* A table of n rows and room for points points, their values unset (0 out of memory, *t
 * empty); mpi_wp_table_free frees one (and leaves it empty). */
int mpi_wp_table_alloc(mpi_wp_table *t, int32_t n, int64_t points);
void mpi_wp_table_free(mpi_wp_table *t);
/* Local: the run's waypoint table from the scenario's agents, a row per agent with waypoints
 * in index order; row_of[i] (room for every agent) the row of index i, or -1. */
orca_status mpi_add_waypoints(orca_mpi *m, const orca_scenario *sc, int32_t *row_of);
/* Local: record a of the scenario's agent at index i takes its row of the table (-1: none),
 * the scenario's current waypoint index and that index's target. */
void mpi_waypoints_attach(const orca_mpi *m, mpi_agent *a, const orca_scenario *sc, int i,
                          int32_t row);
/* h continued over what the public API does not tell of the agent at index i's waypoints:
 * its goal point after them and its route's start. */
uint64_t mpi_waypoints_digest(uint64_t h, const orca_scenario *sc, int i);
/* Local, in a step after the exits: each owned agent with waypoints takes its next target when
 * it has reached or passed its current one (*switched: 1 when some did); the indices before
 * are kept for mpi_waypoints_restore. */
orca_status mpi_waypoints_advance(orca_mpi *m, int *switched);
/* The target of row k at index c: waypoint c, or the goal point after the last. */
orca_vec2 mpi_waypoints_target(const orca_mpi *m, int32_t k, int32_t c);
/* Local: the indices and targets before mpi_waypoints_advance (the step was refused). */
void mpi_waypoints_restore(orca_mpi *m);
/* Whether owned agent a has waypoints still ahead (a looping route always): it has not
 * arrived, wherever it stands. */
int mpi_waypoints_pending(const orca_mpi *m, const mpi_agent *a);
/* --- navigation (mpi_nav.c; docs/mpi.md, "Navigation") -------------------------------- */

struct orca_scenario;
/* Local: the run's navigation with the leg check and exit choice given (after the run's sets
 * are set), each set's capacity and each set point's outflow (NULL: the default capacity,
 * outflows 0). */
orca_status mpi_nav_create(orca_mpi *m, int check, int choice, const double *capacity,
                           const double *flow);
/* The run's per-set capacities and per-point outflows (NULL without navigation). */
const double *mpi_nav_capacities(const orca_mpi *m);
const double *mpi_nav_flows_now(const orca_mpi *m);
/* With the quickest exit choice: per set point, this step's departures on this rank (sets_pass
 * counts them), else NULL; and, collective, the outflows updated with every rank's. */
int64_t *mpi_nav_step_left(orca_mpi *m);
orca_status mpi_nav_flows(orca_mpi *m);
/* Local: mpi_nav_create with scenario src's settings; rank 0 keeps the counts of the paths
 * src dropped. */
orca_status mpi_nav_from_scenario(orca_mpi *m, const struct orca_scenario *src);
/* The run's walls changed (a segment added or removed); whether the next pass finds them
 * changed since the paths were planned (a checkpoint keeps it), and that flag set (a
 * restart). */
void mpi_nav_walls_changed(orca_mpi *m);
int mpi_nav_walls_pending(const orca_mpi *m);
void mpi_nav_set_walls_changed(orca_mpi *m, int changed);
/* The rank's counts of dropped paths (NAV_RETIRED of them: plans, re-routings, replans, exit
 * changes, returns, agents that changed, the most changes of one). */
int64_t *mpi_nav_retired(orca_mpi *m);
/* Whether navigation is on, and its leg check and exit choice. */
int mpi_nav_settings(const orca_mpi *m, int *check, int *choice);
/* A checkpoint's path words of owned agent a: their count (1, then the path's words when it
 * has one), written at p (little-endian words; returns the end). */
size_t mpi_nav_record_words(const mpi_agent *a);
unsigned char *mpi_nav_record_put(const mpi_agent *a, unsigned char *p);
/* Local: a->nv from a checkpoint's words at *p (at most left bytes; *p moves past them),
 * checked; a refusal with the message set. */
orca_status mpi_nav_record_get(orca_mpi *m, const unsigned char **p, size_t left, mpi_agent *a);
/* Local: a copy of the path state of src's agent at index (if it has one) into a->nv. */
orca_status mpi_nav_clone(orca_mpi *m, const struct orca_scenario *src, int index,
                          mpi_agent *a);
/* The set point agent a's path ends at, or -1 (no path). */
int mpi_nav_route_goal(const mpi_agent *a);
/* Frees a->nv (a record that is not the run's). */
void mpi_nav_free_path(mpi_agent *a);
/* Frees the run's navigation and every owned agent's path. */
void mpi_nav_destroy(orca_mpi *m);
/* An owned agent leaves the run (an exit, a removal): its path's counts join the rank's
 * retired totals, its path is freed. */
void mpi_nav_drop(orca_mpi *m, mpi_agent *a);
/* After fill_local (st its status): the scenario's navigation pass over the local list's n
 * agents (the owned ones), their rule values into the local step's preferred velocities
 * (rule_pref with the pedestrian model). Local, but collective with the quickest exit choice
 * (its queues): every rank calls it then, and a refusal on one is agreed by all; *agreed is
 * then 1 on every rank (the message names the rank already), else 0. */
orca_status mpi_nav_pass(orca_mpi *m, int64_t n, orca_status st, int *agreed);
/* The progress mpi_nav_pass changed, put back (the step was refused). */
void mpi_nav_restore(orca_mpi *m);
/* Collective, in migrate after the records' exchange: the paths of the records sent follow
 * them as bytes; the received records get theirs. */
orca_status mpi_nav_migrate(orca_mpi *m, double *seconds);
/* The bytes owned agent a adds to the hash's part HASH_NAV or HASH_NAV_CHOICE (snap_io.h),
 * without its index; their count, written only when at most cap. */
size_t mpi_nav_hash_bytes(const mpi_agent *a, int part, unsigned char *out, size_t cap);
/* Whether the hash has the exit choice's section (the leg check or an exit choice on), and
 * its two settings. */
int mpi_nav_choice_hashed(const orca_mpi *m);
void mpi_nav_hash_settings(const orca_mpi *m, uint64_t *check, uint64_t *choice);
/* Owned agent a's navigation state as orca_scenario_agent_nav gives an agent's in one
 * process: *out, and its path's first min(out->corners, capacity) corners (the current path,
 * as the last pass left it) to corners (NULL when capacity is 0). */
void mpi_nav_agent(const orca_mpi *m, const mpi_agent *a, orca_nav_agent *out,
                   orca_nav_corner *corners, int capacity);

/* --- passes over the agents through rank 0, a window of keys at a time (mpi_hash.c) ------ */

/* A gather of fixed-size entries: for each window [base, base + win) of the keys below
 * `keys`, every rank's fill writes its entries of the window's keys at mine (each `size`
 * bytes; in key order) and returns their count; rank 0's take then has every rank's entries
 * of the window (count of them, rank after rank) at got. counts (2 per rank), mine and got
 * (rank 0) are the caller's scratch. */
typedef struct mpi_gather {
    uint64_t keys, win;
    size_t size;
    int *counts;
    void *mine, *got;
    int (*fill)(void *ctx, uint64_t base, uint64_t end, void *mine);
    void (*take)(void *ctx, uint64_t base, const void *got, int count);
    void *ctx;
} mpi_gather;
/* Collective: g's windows, one after the other. */
void mpi_window_gather(orca_mpi *m, const mpi_gather *g);

/* A gather of records of varying length: for each window of win keys below `keys`, each
 * owned agent's record is put(ctx, a, out, cap)'s bytes (their count, written only when at
 * most cap; -1: the agent has no record), and rank 0's take has every record of the window
 * in key order (the agent's key, the record's bytes and their count). */
typedef struct mpi_records {
    uint64_t keys, win;
    int64_t (*put)(void *ctx, const mpi_agent *a, unsigned char *out, size_t cap);
    void (*take)(void *ctx, uint64_t key, const unsigned char *bytes, size_t len);
    void *ctx;
    const char *what; /* what the records are, for a refusal ("the paths' hash") */
} mpi_records;
/* Collective: r's windows, one after the other; ORCA_OK on every rank, or a refusal (out of
 * memory) on every rank. */
orca_status mpi_records_gather(orca_mpi *m, const mpi_records *r);

#endif
