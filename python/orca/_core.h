/* SPDX-License-Identifier: MIT */
/* orca._core: the CPython binding of the orca library (docs/python.md). This internal header
 * is shared by the binding's files and by nothing else; setup.py compiles them, with the
 * library's sources, into the one extension orca._core, whose only exported symbol is
 * PyInit__core (-fvisibility=hidden).
 *
 * Written against the Python C API only (the limited set of calls every CPython 3.8+ has);
 * arrays come in and go out through the buffer protocol, so NumPy is needed only by the
 * Python layer (orca/__init__.py) when the user asks for arrays, never to build or import
 * this module. Every floating-point computation happens in the library's own translation
 * units, compiled by setup.py with the library's flags (-ffp-contract=off -fno-fast-math,
 * and -msse2 -mfpmath=sse on 32-bit x86): these files only copy doubles.
 *
 * Threads: a simulation or scenario is used from one thread at a time. step() releases the
 * GIL; while it runs, every other call on the same object (from another thread) raises
 * RuntimeError instead of racing with the step.
 *
 * The files (python/orca/):
 *   _core.c            the module: its function table, exception classes and constants
 *   _common.c          what every type uses: errors, argument conversion, bulk limits,
 *                      buffers, handles, snapshot bytes
 *   _sim.c             the Sim type: life cycle, properties, step, snapshots, inspection,
 *                      and its method and property tables
 *   _sim_agents.c      Sim's agents: adding, removing, reading and changing them, in bulk too
 *   _sim_walls.c       Sim's segments and walkable-area boundary loops
 *   _sim_extensions.c  Sim's spatial queries, avoidance settings, diagnostics, separation
 *                      and density-dependent speed (docs/extensions.md), the pedestrian
 *                      model and streams (docs/pedestrians.md)
 *   _scenario.c        the Scenario type: life cycle, step, agents and goals, waypoints,
 *                      record, snapshots, and its tables
 *   _scenario_nav.c    Scenario's goal sets, exits and navigation (docs/navigation.md)
 *   _nav.c             the Nav type: path queries over a simulation's walls
 *   _blocks.c          the building blocks of orca/solver.h as module functions
 *   _read_scene.c      read_scene: a scene file read and built as by `orca run FILE`
 *
 * Names: Sim_*, Scenario_* and Nav_* are a type's methods and properties, f_* the module's
 * functions; a method defined outside its type's file is declared here for the type's table. */
#ifndef ORCA_PY_CORE_H
#define ORCA_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include <orca/orca.h>
#include <orca/scenario.h>

/* ------------------------------------------------------------------------------------------
 * Errors (_common.c; the classes are created by PyInit__core)
 * ---------------------------------------------------------------------------------------- */

extern PyObject *Error;           /* orca.Error(Exception): every refusal of the library */
extern PyObject *ArgumentError;   /* (Error, ValueError): ORCA_ERR_ARGUMENT */
extern PyObject *StaleError;      /* (Error, ValueError): ORCA_ERR_STALE */
extern PyObject *ForeignError;    /* (Error, ValueError): ORCA_ERR_FOREIGN */
extern PyObject *FormatError;     /* (Error, ValueError): ORCA_ERR_FORMAT */
extern PyObject *LimitError;      /* (Error, ValueError): ORCA_ERR_LIMIT */
extern PyObject *OrcaMemoryError; /* (Error, MemoryError): ORCA_ERR_MEMORY */

PyObject *raise_status(int status, const char *message);

/* ------------------------------------------------------------------------------------------
 * Argument conversion and results (_common.c)
 * ---------------------------------------------------------------------------------------- */

int get_double(PyObject *obj, const char *name, double *out);
int get_finite(PyObject *obj, const char *name, double *out);
int get_int(PyObject *obj, const char *name, long lo, long hi, int *out);
int get_vec2(PyObject *obj, const char *name, orca_vec2 *out);
int get_seed(PyObject *so, unsigned long long *out);
int get_rows(PyObject *obj, const char *name, int cols, int finite, double **out,
             Py_ssize_t *n_out);
int get_out_buffer(PyObject *obj, const char *name, Py_ssize_t count, Py_buffer *view);

PyObject *vec2_tuple(orca_vec2 v);
PyObject *int_list(const int *v, int n);

/* --- bulk calls: limits before allocation (issue 27, item 9) ------------------------------ */

/* What each row of a bulk call costs at least (copies, handles, the library's storage): the
 * bound of check_rows' memory check, never above the true cost. */
enum {
    ROW_BYTES_AGENT = 200,  /* a position copy, a handle int and its list slot, ~160 B of
                               agent storage in the library */
    ROW_BYTES_SEGMENT = 96, /* two end copies, a handle int and its list slot, the ends */
    ROW_BYTES_POINT = 32,   /* a point copy and its copy in the library (loops, waypoints) */
    ROW_BYTES_HANDLE = 12,  /* the handle array given to the library */
    ROW_BYTES_PLANE = 64    /* a plane copy and the program's scratch copy */
};

Py_ssize_t row_count(PyObject *obj);
int check_rows(const char *call, const char *name, Py_ssize_t n, Py_ssize_t max,
               const char *limit, Py_ssize_t row_bytes);
int check_bulk(PyObject *obj, const char *call, const char *name, Py_ssize_t max,
               const char *limit, Py_ssize_t row_bytes);

/* --- handles ------------------------------------------------------------------------------ */

extern PyObject *k_64; /* the int 64 (a shift); created by PyInit__core */

int get_handle(PyObject *obj, uint32_t *slot, uint32_t *generation, uint32_t *sim);
PyObject *handle_int(uint32_t slot, uint32_t generation, uint32_t sim);

/* --- snapshots ---------------------------------------------------------------------------- */

typedef orca_status save_fn(const void *obj, void *buffer, size_t capacity, size_t *size);
PyObject *snapshot_bytes(save_fn *save, const void *obj, orca_status *st);
int snapshot_view(PyObject *arg, const char *what, Py_buffer *view);

/* ------------------------------------------------------------------------------------------
 * Sim (_sim.c, _sim_agents.c, _sim_walls.c, _sim_extensions.c)
 * ---------------------------------------------------------------------------------------- */

typedef struct SimObject {
    PyObject_HEAD
    orca_sim *sim;
    PyObject *owner; /* the Scenario whose simulation this is, or NULL (then we own sim) */
    int *busy;       /* 1 while a step runs without the GIL */
    int own_busy;
} SimObject;

extern PyTypeObject SimType;

int sim_ready(SimObject *s);
PyObject *sim_fail(SimObject *s, int status);

#define SIM_READY(s)              \
    do {                          \
        if (sim_ready(s) < 0) {   \
            return NULL;          \
        }                         \
    } while (0)

/* The agent definition from keyword values (any may be NULL: the default). */
typedef struct agent_args {
    PyObject *velocity, *preferred_velocity, *radius, *max_speed, *neighbor_dist, *max_neighbors,
        *time_horizon, *obstacle_time_horizon;
} agent_args;

int fill_def(const agent_args *a, orca_agent_def *d);

enum { HANDLES_AGENT, HANDLES_SEGMENT, HANDLES_BOUNDARY };
PyObject *handle_list(SimObject *s, int kind);

/* _sim_agents.c */
PyObject *Sim_add_agent(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_add_agents(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_remove_agent(SimObject *s, PyObject *arg);
PyObject *Sim_remove_agents(SimObject *s, PyObject *arg);
PyObject *Sim_remove_segments(SimObject *s, PyObject *arg);
PyObject *Sim_agent_count(SimObject *s, PyObject *unused);
PyObject *Sim_agent_handles(SimObject *s, PyObject *unused);
PyObject *Sim_agent_at(SimObject *s, PyObject *arg);
PyObject *Sim_agent_index(SimObject *s, PyObject *arg);
PyObject *Sim_agent_get(SimObject *s, PyObject *arg);
PyObject *Sim_agent_set(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_set_position(SimObject *s, PyObject *args);
PyObject *Sim_set_velocity(SimObject *s, PyObject *args);
PyObject *Sim_set_preferred_velocity(SimObject *s, PyObject *args);
PyObject *Sim_get_position(SimObject *s, PyObject *arg);
PyObject *Sim_get_velocity(SimObject *s, PyObject *arg);
PyObject *Sim_read_positions(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_read_velocities(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_read_preferred_velocities(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_set_preferred_velocities(SimObject *s, PyObject *arg);

/* _sim_walls.c */
PyObject *Sim_add_segment(SimObject *s, PyObject *args);
PyObject *Sim_add_polyline(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_add_segments(SimObject *s, PyObject *args);
PyObject *Sim_remove_segment(SimObject *s, PyObject *arg);
PyObject *Sim_segment_count(SimObject *s, PyObject *unused);
PyObject *Sim_segment_handles(SimObject *s, PyObject *unused);
PyObject *Sim_segment_get(SimObject *s, PyObject *arg);
PyObject *Sim_add_boundary(SimObject *s, PyObject *arg);
PyObject *Sim_remove_boundary(SimObject *s, PyObject *arg);
PyObject *Sim_boundary_handles(SimObject *s, PyObject *unused);
PyObject *Sim_boundary_get(SimObject *s, PyObject *arg);
PyObject *Sim_measure_boundary(SimObject *s, PyObject *unused);

/* _sim_extensions.c */
PyObject *Sim_query_radius(SimObject *s, PyObject *args);
PyObject *Sim_query_nearest(SimObject *s, PyObject *args);
PyObject *Sim_query_box(SimObject *s, PyObject *args);
PyObject *Sim_agent_avoidance(SimObject *s, PyObject *arg);
PyObject *Sim_agent_set_avoidance(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_set_priority(SimObject *s, PyObject *args);
PyObject *Sim_set_layers(SimObject *s, PyObject *args);
PyObject *Sim_set_locked(SimObject *s, PyObject *args);
PyObject *Sim_get_diagnostics(SimObject *s, void *closure);
int Sim_set_diagnostics(SimObject *s, PyObject *value, void *closure);
PyObject *Sim_get_separation(SimObject *s, void *closure);
int Sim_set_separation(SimObject *s, PyObject *value, void *closure);
PyObject *Sim_get_separation_active(SimObject *s, void *closure);
PyObject *Sim_set_density_speed(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_clear_density_speed(SimObject *s, PyObject *unused);
PyObject *Sim_get_density_speed(SimObject *s, void *closure);
int get_pedestrian(PyObject *const obj[4], orca_pedestrian *p);
PyObject *pedestrian_dict(const orca_pedestrian *p);
PyObject *Sim_set_pedestrian(SimObject *s, PyObject *args, PyObject *kwds);
PyObject *Sim_clear_pedestrian(SimObject *s, PyObject *unused);
PyObject *Sim_get_pedestrian(SimObject *s, void *closure);
PyObject *Sim_agent_stream(SimObject *s, PyObject *arg);
PyObject *Sim_agent_set_stream(SimObject *s, PyObject *args);
PyObject *Sim_agent_diagnostics(SimObject *s, PyObject *arg);
PyObject *Sim_read_diagnostics(SimObject *s, PyObject *unused);
PyObject *Sim_step_diagnostics(SimObject *s, PyObject *unused);

/* ------------------------------------------------------------------------------------------
 * Scenario (_scenario.c, _scenario_nav.c)
 * ---------------------------------------------------------------------------------------- */

typedef struct ScenarioObject {
    PyObject_HEAD
    orca_scenario *sc;
    int busy;
} ScenarioObject;

extern PyTypeObject ScenarioType;

int sc_ready(ScenarioObject *s);
PyObject *sc_fail(ScenarioObject *s, int st);

#define SC_READY(s)              \
    do {                         \
        if (sc_ready(s) < 0) {   \
            return NULL;         \
        }                        \
    } while (0)

const char *goal_name(orca_goal_kind k);

/* _scenario_nav.c */
int get_goal_set(ScenarioObject *s, PyObject *obj, int *out);
PyObject *Scenario_get_navigation(ScenarioObject *s, void *closure);
int Scenario_set_navigation(ScenarioObject *s, PyObject *value, void *closure);
PyObject *Scenario_get_nav_unreachable(ScenarioObject *s, void *closure);
PyObject *Scenario_add_goal_set(ScenarioObject *s, PyObject *args, PyObject *kwds);
PyObject *Scenario_set_goal_set_exit(ScenarioObject *s, PyObject *args, PyObject *kwds);
PyObject *Scenario_goal_set_count(ScenarioObject *s, PyObject *unused);
PyObject *Scenario_goal_set_get(ScenarioObject *s, PyObject *arg);
PyObject *Scenario_exited(ScenarioObject *s, PyObject *unused);
PyObject *Scenario_agent_nav(ScenarioObject *s, PyObject *arg);
PyObject *Scenario_get_nav_check(ScenarioObject *s, void *closure);
int Scenario_set_nav_check(ScenarioObject *s, PyObject *value, void *closure);
PyObject *Scenario_get_exit_choice(ScenarioObject *s, void *closure);
int Scenario_set_exit_choice(ScenarioObject *s, PyObject *value, void *closure);
PyObject *Scenario_set_goal_set_capacity(ScenarioObject *s, PyObject *args);
PyObject *Scenario_goal_set_capacity(ScenarioObject *s, PyObject *arg);
PyObject *Scenario_exit_departures(ScenarioObject *s, PyObject *args);
PyObject *Scenario_nav_counts(ScenarioObject *s, PyObject *unused);

/* ------------------------------------------------------------------------------------------
 * Nav (_nav.c)
 * ---------------------------------------------------------------------------------------- */

extern PyTypeObject NavType;

PyObject *nav_result_str(int result);
PyObject *corner_rows(const orca_nav_corner *c, int n);

/* ------------------------------------------------------------------------------------------
 * Module functions defined next to what they serve, for the module's table (_core.c)
 * ---------------------------------------------------------------------------------------- */

/* _sim_agents.c, _sim_extensions.c */
PyObject *f_check_handle_count(PyObject *self, PyObject *args);
PyObject *f_check_avoidance(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *f_check_stream(PyObject *self, PyObject *arg);
PyObject *f_pedestrian_free_speed(PyObject *self, PyObject *args);

/* _blocks.c */
PyObject *f_constraint_agent(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *f_constraint_segment(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *f_constraint_boundary(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *f_vo_support(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *f_vo_overlap(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *f_segment_distance_squared(PyObject *self, PyObject *args);
PyObject *f_signed_distance(PyObject *self, PyObject *args);
PyObject *f_solve(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *f_lp_solve(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *f_lp_fallback(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *f_sincos_turns(PyObject *self, PyObject *arg);

/* _read_scene.c */
PyObject *f_read_scene(PyObject *self, PyObject *args, PyObject *kwds);

#endif
