/* SPDX-License-Identifier: MIT */
/* SVG picture of a run: obstacles, starts, goals, trajectories, final discs, scale, caption.
 * The picture is drawn from a *source* of agents (svg_source): `orca run` reads its scenario
 * (svg_scene.h), `orca-mpi run` gathers the agents through rank 0 a window of keys at a time
 * (mpi/orca_mpi_svg.c); both give the same bytes for the same run. */
#ifndef ORCA_CLI_SVG_H
#define ORCA_CLI_SVG_H

#include <stdint.h>
#include <stdio.h>

#include <orca/orca.h>

/* --- the record: the tracked agents' trajectories ------------------------------------------- */

typedef struct svg_rec svg_rec;

/* Starts a record of a run of agent_count agents. Trajectories are kept for at most
 * SVG_MAX_TRACKED agents: those of index i with i % stride == 0 at the start (svg_rec_stride),
 * tracked agent t being index t * stride. With trail_seconds 0 each covers the whole run with
 * evenly spaced samples: every step at first, every other one once the budget is full, and so
 * on (a budget of up to 8,192 samples per agent, 100,000 in all, of which half to all are in
 * use); with trail_seconds > 0 only the last trail_seconds of the run (a trail). The caller
 * then gives each tracked agent's start and goal (svg_rec_track) and the first sample
 * (svg_rec_sample at run step 0). Returns NULL when out of memory. */
svg_rec *svg_rec_create(int agent_count, double dt, double trail_seconds);
int svg_rec_tracked(const svg_rec *r);
int svg_rec_stride(const svg_rec *r);
/* Tracked agent t: where it started and its goal then; its colour is the direction from its
 * start to its goal point (to first_waypoint when the goal is its start, as on a looping route;
 * NULL: no waypoint), or of a goal velocity. */
void svg_rec_track(svg_rec *r, int t, orca_vec2 start, const orca_goal *goal,
                   const orca_vec2 *first_waypoint);
/* Where tracked agent t stands now: 1 with *position set, 0 when it has left the run (by an
 * exit, docs/navigation.md), -1 on a failure. */
typedef int svg_where_fn(void *self, int t, orca_vec2 *position);
/* Whether svg_rec_sample at this run step records a sample (and so calls where). */
int svg_rec_due(const svg_rec *r, uint64_t run_step);
/* Call after every step; `run_step` counts the steps of this run (0 at the start, then 1, 2,
 * ...). Returns 0, -1 when where failed. */
int svg_rec_sample(svg_rec *r, uint64_t run_step, svg_where_fn *where, void *self);
void svg_rec_destroy(svg_rec *r);

/* --- the source: the agents and the scene at the end of the run ---------------------------- */

#define SVG_NAV_CORNERS 64 /* corners of a navigation path drawn, at most */

/* One agent of the final state, as a source reports it (valid during the call only). */
typedef struct svg_agent {
    int track;          /* its trajectory (svg_rec's t), or -1 */
    orca_vec2 position; /* now */
    double radius;
    orca_goal goal;  /* its goal now (a goal set's point may have changed) */
    orca_vec2 start; /* where it started */
    /* its waypoints (docs/extensions.md), NULL with none, and whether it loops them */
    const orca_vec2 *waypoints;
    int waypoint_count, waypoint_loop;
    /* its navigation path (docs/navigation.md; tracked agents only), NULL with none: the
     * corners from nav->corner to corner_count - 1 (corner_count at most SVG_NAV_CORNERS),
     * then nav->goal */
    const orca_nav_agent *nav;
    const orca_nav_corner *corners;
    int corner_count;
} svg_agent;

/* Returns 0, or -1 to report a failure (the pass goes on; the picture fails). */
typedef int svg_visit_fn(void *ctx, const svg_agent *a);

typedef struct svg_source {
    void *self;
    int segment_count;  /* wall segments */
    int boundary_count; /* walkable-area boundary loops */
    int navigation;     /* 1: the run navigates (the picture has a navigation layer) */
    /* Calls visit for every agent in index order, or (tracked_only) for the tracked agents
     * still in the run; returns 0, or -1 when it could not read them (or visit failed). */
    int (*agents)(void *self, int tracked_only, svg_visit_fn *visit, void *ctx);
    /* Segment `index`: 0 with its end points, else -1. */
    int (*segment)(void *self, int index, orca_vec2 *a, orca_vec2 *b);
    /* Loop `index`'s points (malloc'd, *count of them), or NULL when it cannot be read. */
    orca_vec2 *(*boundary)(void *self, int index, int *count);
} svg_source;

/* --- the caption and the picture ------------------------------------------------------------ */

/* The run's figures the caption gives. */
typedef struct svg_figures {
    const char *name;        /* the scenario's name */
    const char *description; /* a built-in scene's line (svg_scene_description), or NULL */
    const char *source;      /* "scene file F", "built-in scene, seed S" */
    int agents;              /* the scene's agents (those that left by exits included) */
    int arrived;             /* of them, arrived (those that left by exits included) */
    int looping;             /* agents on looping waypoints */
    int segments, boundaries;
    int stopped_by_cap;       /* 1: --max-steps' cap stopped the run */
    int64_t all_arrived_step; /* the step all had arrived at, or -1 */
    uint64_t last_step;       /* the step count of the final state */
    double dt;
    double agent_overlap, wall_overlap; /* the deepest, as fractions of the radius */
    uint64_t fallbacks;
    const char *hash; /* the state hash, 16 hex digits */
} svg_figures;

/* One line about a built-in scene (orca_scene_kind), or NULL. */
const char *svg_scene_description(int kind);
/* "all 40 agents arrived at step 377 (t = 94.25 s)", "3 of 8 agents arrived, 5 did not (5 loop
 * their waypoints for ever; the step cap stopped the run)" */
void svg_format_arrival(const svg_figures *fig, char *buf, size_t size);

/* Writes the picture of the final state, its caption from the figures. Returns 0, or -1 on a
 * failure (the source's, or out of memory). */
int svg_draw(const svg_rec *r, const svg_source *src, const svg_figures *fig, FILE *f);

#endif
