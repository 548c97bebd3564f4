/* SPDX-License-Identifier: MIT */
/* orca._core.Sim (orca.Simulator's base): its life cycle, properties, step, snapshots and
 * the step's inspection; its agents, walls and extensions are in _sim_agents.c, _sim_walls.c
 * and _sim_extensions.c, its method and property tables at the end of this file. */
#include "_core.h"

#include <stdlib.h>

int sim_ready(SimObject *s)
{
    if (!s->sim) {
        PyErr_SetString(PyExc_RuntimeError, "the simulation is not initialised");
        return -1;
    }
    if (*s->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the simulation is stepping in another thread (use one thread at a time)");
        return -1;
    }
    return 0;
}

PyObject *sim_fail(SimObject *s, int status)
{
    return raise_status(status, orca_sim_last_error(s->sim));
}

static PyObject *Sim_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)args;
    (void)kwds;
    SimObject *s = (SimObject *)type->tp_alloc(type, 0);
    if (s) {
        s->sim = NULL;
        s->owner = NULL;
        s->own_busy = 0;
        s->busy = &s->own_busy;
    }
    return (PyObject *)s;
}

static int Sim_init(SimObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"workers", NULL};
    PyObject *wobj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:Simulator", kwlist, &wobj)) {
        return -1;
    }
    if (s->sim || s->owner) {
        PyErr_SetString(PyExc_RuntimeError, "Simulator.__init__ called twice");
        return -1;
    }
    orca_sim_def def = orca_sim_def_default();
    if (wobj && get_int(wobj, "workers", 1, ORCA_MAX_WORKERS, &def.worker_count) < 0) {
        return -1;
    }
    orca_sim *sim = NULL;
    orca_status st = orca_sim_create(&def, &sim);
    if (st != ORCA_OK) {
        raise_status(st, orca_sim_last_error(NULL));
        return -1;
    }
    s->sim = sim;
    return 0;
}

/* A view of a scenario's simulation holds the scenario (owner); the Python classes can make
 * cycles through their __dict__ (a Scenario caching its simulation view), so the type takes
 * part in garbage collection: it reports the owner, and the cycle is broken by clearing the
 * subclass's __dict__ (the owner itself is kept until deallocation, since sim points into it). */
static int Sim_traverse(SimObject *s, visitproc visit, void *arg)
{
    Py_VISIT(s->owner);
    return 0;
}

static void Sim_dealloc(SimObject *s)
{
    PyObject_GC_UnTrack(s);
    if (s->owner) {
        Py_CLEAR(s->owner);
    } else if (s->sim) {
        orca_sim_destroy(s->sim);
    }
    s->sim = NULL;
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *Sim_get_workers(SimObject *s, void *closure)
{
    (void)closure;
    SIM_READY(s);
    return PyLong_FromLong(orca_sim_get_worker_count(s->sim));
}

static int Sim_set_workers(SimObject *s, PyObject *value, void *closure)
{
    (void)closure;
    int w;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete workers");
        return -1;
    }
    if (sim_ready(s) < 0 || get_int(value, "workers", 1, ORCA_MAX_WORKERS, &w) < 0) {
        return -1;
    }
    orca_status st = orca_sim_set_worker_count(s->sim, w);
    if (st != ORCA_OK) {
        sim_fail(s, st);
        return -1;
    }
    return 0;
}

static PyObject *Sim_get_vector(SimObject *s, void *closure)
{
    (void)closure;
    SIM_READY(s);
    return PyBool_FromLong(orca_sim_get_vector_kernels(s->sim));
}

static int Sim_set_vector(SimObject *s, PyObject *value, void *closure)
{
    (void)closure;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete vector_kernels");
        return -1;
    }
    if (sim_ready(s) < 0) {
        return -1;
    }
    int on = PyObject_IsTrue(value);
    if (on < 0) {
        return -1;
    }
    orca_sim_set_vector_kernels(s->sim, on);
    return 0;
}

/* --- the step ----------------------------------------------------------------------------- */

/* step(dt, steps=1): the GIL is released while the library steps. A refused step stops the
 * loop (the simulation is as after the last accepted step) and raises. */
static PyObject *Sim_step(SimObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dt", "steps", NULL};
    PyObject *dto, *so = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:step", kwlist, &dto, &so)) {
        return NULL;
    }
    SIM_READY(s);
    double dt;
    int steps = 1;
    if (get_double(dto, "dt", &dt) < 0 ||
        (so && get_int(so, "steps", 0, INT32_MAX, &steps) < 0)) {
        return NULL;
    }
    orca_status st = ORCA_OK;
    int done = 0;
    int interrupted = 0;
    *s->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    for (; done < steps; ++done) {
        st = orca_sim_step(s->sim, dt);
        if (st != ORCA_OK) {
            break;
        }
        if (done + 1 < steps) {
            /* signals (Ctrl-C) between steps: the loop stops after a whole step */
            Py_BLOCK_THREADS
            interrupted = PyErr_CheckSignals() < 0;
            Py_UNBLOCK_THREADS
            if (interrupted) {
                ++done;
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    *s->busy = 0;
    if (interrupted) {
        return NULL;
    }
    if (st != ORCA_OK) {
        if (steps > 1) {
            PyObject *msg = PyUnicode_FromFormat("step %d of %d: %s", done, steps,
                                                 orca_sim_last_error(s->sim));
            if (msg) {
                raise_status(st, PyUnicode_AsUTF8(msg));
                Py_DECREF(msg);
            }
            return NULL;
        }
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

static PyObject *Sim_step_count(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    return PyLong_FromUnsignedLongLong(orca_sim_step_count(s->sim));
}

static PyObject *Sim_last_fallback_count(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    return PyLong_FromLong(orca_sim_last_fallback_count(s->sim));
}

static PyObject *Sim_hash(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    return PyLong_FromUnsignedLongLong(orca_sim_hash(s->sim));
}

/* --- snapshots ---------------------------------------------------------------------------- */

static orca_status sim_save_fn(const void *obj, void *buffer, size_t capacity, size_t *size)
{
    return orca_sim_save(obj, buffer, capacity, size);
}

static PyObject *Sim_save(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    orca_status st;
    PyObject *b = snapshot_bytes(sim_save_fn, s->sim, &st);
    return b || st == ORCA_OK ? b : sim_fail(s, st);
}

static PyObject *Sim_load(SimObject *s, PyObject *arg)
{
    SIM_READY(s);
    Py_buffer view;
    if (snapshot_view(arg, "a snapshot", &view) < 0) {
        return NULL;
    }
    orca_status st = orca_sim_load(s->sim, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* --- inspection: the constraints, neighbours and overlaps of the state -------------------- */

/* agent_constraints(handle, dt) -> (bytearray of count*4 doubles, hard_count) */
static PyObject *Sim_agent_constraints(SimObject *s, PyObject *args)
{
    PyObject *h, *dto;
    if (!PyArg_UnpackTuple(args, "agent_constraints", 2, 2, &h, &dto)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_id id;
    double dt;
    if (get_handle(h, &id.slot, &id.generation, &id.sim) < 0 || get_double(dto, "dt", &dt) < 0) {
        return NULL;
    }
    if (!(dt >= ORCA_TIME_MIN && dt <= ORCA_TIME_MAX)) {
        PyErr_Format(ArgumentError, "dt must be in [2^-30, 2^30] s, got %R", dto);
        return NULL;
    }
    int count = 0, hard = 0;
    orca_status st = orca_sim_agent_constraints(s->sim, id, dt, NULL, 0, &count, &hard);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)count * 32);
    if (!b) {
        return NULL;
    }
    if (count > 0) {
        st = orca_sim_agent_constraints(s->sim, id, dt,
                                        (orca_halfplane *)(void *)PyByteArray_AS_STRING(b), count,
                                        &count, &hard);
        if (st != ORCA_OK) {
            Py_DECREF(b);
            return sim_fail(s, st);
        }
    }
    return Py_BuildValue("(Ni)", b, hard);
}

/* agent_neighbors(handle) -> (agent indices, segment indices) */
static PyObject *Sim_agent_neighbors(SimObject *s, PyObject *arg)
{
    SIM_READY(s);
    orca_agent_id id;
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    int na = 0, ns = 0;
    orca_status st = orca_sim_agent_neighbors(s->sim, id, NULL, 0, &na, NULL, 0, &ns);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    int *ag = malloc(((size_t)na + 1) * sizeof(int));
    int *sg = malloc(((size_t)ns + 1) * sizeof(int));
    if (!ag || !sg) {
        free(ag);
        free(sg);
        return PyErr_NoMemory();
    }
    st = orca_sim_agent_neighbors(s->sim, id, ag, na, &na, sg, ns, &ns);
    PyObject *r = NULL;
    if (st != ORCA_OK) {
        sim_fail(s, st);
    } else {
        r = Py_BuildValue("(NN)", int_list(ag, na), int_list(sg, ns));
    }
    free(ag);
    free(sg);
    return r;
}

static PyObject *Sim_measure_overlap(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    double a = 0, w = 0;
    orca_status st = orca_sim_measure_overlap(s->sim, &a, &w);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    return Py_BuildValue("(dd)", a, w);
}

/* sim_id: orca_sim_id, the identity every handle of this simulation carries (views of one
 * scenario's simulation share it). */
static PyObject *Sim_get_sim_id(SimObject *s, void *closure)
{
    (void)closure;
    if (!s->sim) {
        PyErr_SetString(PyExc_RuntimeError, "the simulation is not initialised");
        return NULL;
    }
    return PyLong_FromUnsignedLong(orca_sim_id(s->sim));
}

/* --- the tables (the methods of _sim_agents.c, _sim_walls.c and _sim_extensions.c too) ---- */

static PyMethodDef Sim_methods[] = {
    {"add_agent", (PyCFunction)(void (*)(void))Sim_add_agent, METH_VARARGS | METH_KEYWORDS,
     "add_agent($self, position, velocity=(0, 0), radius=1.5, max_speed=2, "
     "neighbor_dist=15, max_neighbors=10, time_horizon=10, "
     "obstacle_time_horizon=10, preferred_velocity=(0, 0))\n--\n\nReturns int handle"},
    {"add_agents", (PyCFunction)(void (*)(void))Sim_add_agents, METH_VARARGS | METH_KEYWORDS,
     "add_agents($self, positions, **params)\n--\n\nReturns list of int handles; "
     "all checked before any is added"},
    {"remove_agent", (PyCFunction)Sim_remove_agent, METH_O, "remove_agent($self, handle, /)\n--\n\nRemoves the agent of handle; a stale or "
     "foreign handle raises and changes nothing."},
    {"remove_agents", (PyCFunction)Sim_remove_agents, METH_O, "remove_agents($self, handles, /)\n--\n\nRemoves the agents of handles (a "
     "sequence), as remove_agent on each in turn; every handle is checked first "
     "(nothing removed on a refusal)."},
    {"agent_count", (PyCFunction)Sim_agent_count, METH_NOARGS, "agent_count($self, /)\n--\n\nNumber of agents"},
    {"agent_handles", (PyCFunction)Sim_agent_handles, METH_NOARGS, "agent_handles($self, /)\n--\n\nReturns every agent's handle in index order."},
    {"agent_at", (PyCFunction)Sim_agent_at, METH_O, "agent_at($self, index, /)\n--\n\nReturns the handle of the agent at index (0 "
     ".. agent_count - 1)."},
    {"query_radius", (PyCFunction)Sim_query_radius, METH_VARARGS,
     "query_radius($self, center, radius, /)\n--\n\nReturns the indices of the "
     "agents within radius (m) of center (x, y) (m), by (squared distance, index)."},
    {"query_nearest", (PyCFunction)Sim_query_nearest, METH_VARARGS,
     "query_nearest($self, point, k, /)\n--\n\nReturns the indices of the k agents "
     "nearest point (x, y) (m), by (squared distance, index)."},
    {"query_box", (PyCFunction)Sim_query_box, METH_VARARGS,
     "query_box($self, lo, hi, /)\n--\n\nReturns the indices of the agents inside "
     "the box lo..hi (corners (x, y) in m, edges included), in index order."},
    {"set_density_speed", (PyCFunction)(void (*)(void))Sim_set_density_speed,
     METH_VARARGS | METH_KEYWORDS,
     "set_density_speed($self, radius=None, gamma=None, "
     "max_density=None)\n--\n\nTurns the density-dependent speed on "
     "(docs/extensions.md): radius in m, gamma in 1/m^2, max_density in agents/m^2; "
     "None keeps the value in use (the default when off: radius 2 m, gamma 1.913, "
     "max_density 5.4)."},
    {"clear_density_speed", (PyCFunction)Sim_clear_density_speed, METH_NOARGS,
     "clear_density_speed($self, /)\n--\n\nTurns the density-dependent speed off."},
    {"set_pedestrian", (PyCFunction)(void (*)(void))Sim_set_pedestrian,
     METH_VARARGS | METH_KEYWORDS,
     "set_pedestrian($self, time_gap=None, buffer=None, counter_reach=None, "
     "max_planes=None)\n--\n\nTurns the pedestrian model on (docs/pedestrians.md): "
     "time_gap in s, buffer in m, counter_reach in m, max_planes a count; None keeps the "
     "value in use (the default when off: time_gap 0.5 s, buffer 0.02 m, counter_reach 2 m, "
     "max_planes 4)."},
    {"clear_pedestrian", (PyCFunction)Sim_clear_pedestrian, METH_NOARGS,
     "clear_pedestrian($self, /)\n--\n\nTurns the pedestrian model off."},
    {"agent_stream", (PyCFunction)Sim_agent_stream, METH_O,
     "agent_stream($self, handle, /)\n--\n\nReturns the agent's stream (-1: none)."},
    {"agent_set_stream", (PyCFunction)Sim_agent_set_stream, METH_VARARGS,
     "agent_set_stream($self, handle, stream, /)\n--\n\nSets the agent's stream (-1: none, "
     "or a number >= 0; docs/pedestrians.md)."},
    /* avoidance extensions and diagnostics (issue 16) */
    {"agent_avoidance", (PyCFunction)Sim_agent_avoidance, METH_O,
     "agent_avoidance($self, handle, /)\n--\n\nReturns the agent's avoidance "
     "settings: (priority, layers, mask, locked)."},
    {"agent_set_avoidance", (PyCFunction)(void (*)(void))Sim_agent_set_avoidance,
     METH_VARARGS | METH_KEYWORDS,
     "agent_set_avoidance($self, handle, priority=None, layers=None, mask=None, "
     "locked=None)\n--\n\nSets the agent's avoidance settings (docs/extensions.md); "
     "None keeps a value."},
    {"set_priority", (PyCFunction)Sim_set_priority, METH_VARARGS, "set_priority($self, handle, p, /)\n--\n\nSets the agent's priority p (a whole "
     "number, docs/extensions.md)."},
    {"set_layers", (PyCFunction)Sim_set_layers, METH_VARARGS, "set_layers($self, handle, layers, mask, /)\n--\n\nSets the agent's layers and "
     "mask (32-bit masks, docs/extensions.md)."},
    {"set_locked", (PyCFunction)Sim_set_locked, METH_VARARGS, "set_locked($self, handle, locked, /)\n--\n\nLocks (True) or unlocks the "
     "agent: a locked agent keeps its velocity."},
    {"agent_diagnostics", (PyCFunction)Sim_agent_diagnostics, METH_O,
     "agent_diagnostics($self, handle, /)\n--\n\nReturns (fallback, "
     "failed_constraint, neighbor_count, candidates, neighbors_cut, blocked, locked)"},
    {"read_diagnostics", (PyCFunction)Sim_read_diagnostics, METH_NOARGS,
     "read_diagnostics($self, /)\n--\n\nReturns the last step's per-agent "
     "diagnostics: a bytearray of n * 7 int32."},
    {"step_diagnostics", (PyCFunction)Sim_step_diagnostics, METH_NOARGS,
     "step_diagnostics($self, /)\n--\n\nReturns (agents, fallback, cut, blocked, "
     "locked)"},
    {"agent_index", (PyCFunction)Sim_agent_index, METH_O, "agent_index($self, handle, /)\n--\n\nReturns the agent's index, or -1 for a "
     "stale handle."},
    {"agent_get", (PyCFunction)Sim_agent_get, METH_O, "agent_get($self, handle, /)\n--\n\nReturns the agent's fields as a tuple: "
     "position (m), velocity (m/s), preferred velocity (m/s), radius (m), max speed "
     "(m/s), neighbour distance (m), max neighbours, time horizon (s), obstacle "
     "time horizon (s)."},
    {"agent_set", (PyCFunction)(void (*)(void))Sim_agent_set, METH_VARARGS | METH_KEYWORDS,
     "agent_set($self, handle, **fields)\n--\n\nChanges the given fields of the "
     "agent: position (m), velocity, preferred_velocity, max_speed (m/s), radius, "
     "neighbor_dist (m), max_neighbors, time_horizon, obstacle_time_horizon (s); "
     "all checked before any changes."},
    {"set_position", (PyCFunction)Sim_set_position, METH_VARARGS, "set_position($self, handle, xy, /)\n--\n\nMoves the agent to xy = (x, y) in m."},
    {"set_velocity", (PyCFunction)Sim_set_velocity, METH_VARARGS, "set_velocity($self, handle, xy, /)\n--\n\nSets the agent's velocity xy = (vx, "
     "vy) in m/s."},
    {"set_preferred_velocity", (PyCFunction)Sim_set_preferred_velocity, METH_VARARGS,
     "set_preferred_velocity($self, handle, xy, /)\n--\n\nSets the agent's "
     "preferred velocity xy = (vx, vy) in m/s."},
    {"get_position", (PyCFunction)Sim_get_position, METH_O, "get_position($self, handle, /)\n--\n\nReturns the agent's position (x, y) in "
     "m."},
    {"get_velocity", (PyCFunction)Sim_get_velocity, METH_O, "get_velocity($self, handle, /)\n--\n\nReturns the agent's velocity (vx, vy) "
     "in m/s."},
    {"read_positions", (PyCFunction)(void (*)(void))Sim_read_positions,
     METH_VARARGS | METH_KEYWORDS, "read_positions($self, out=None)\n--\n\nEvery agent's position (x, y) in m, "
     "index order, as n * 2 float64: into out (a writable buffer) or a new "
     "bytearray."},
    {"read_velocities", (PyCFunction)(void (*)(void))Sim_read_velocities,
     METH_VARARGS | METH_KEYWORDS, "read_velocities($self, out=None)\n--\n\nEvery agent's velocity (vx, vy) in "
     "m/s, index order, as n * 2 float64: into out (a writable buffer) or a new "
     "bytearray."},
    {"read_preferred_velocities", (PyCFunction)(void (*)(void))Sim_read_preferred_velocities,
     METH_VARARGS | METH_KEYWORDS, "read_preferred_velocities($self, out=None)\n--\n\nEvery agent's preferred "
     "velocity (vx, vy) in m/s, index order, as n * 2 float64: into out (a writable "
     "buffer) or a new bytearray."},
    {"set_preferred_velocities", (PyCFunction)Sim_set_preferred_velocities, METH_O,
     "set_preferred_velocities($self, array of shape (n, 2), /)\n--\n\nSets every "
     "agent's preferred velocity from an (n, 2) float64 array, (vx, vy) in m/s, "
     "index order."},
    {"add_segment", (PyCFunction)Sim_add_segment, METH_VARARGS, "add_segment($self, a, b, /)\n--\n\nAdds the wall from a to b (each (x, y) in "
     "m); returns its handle."},
    {"add_polyline", (PyCFunction)(void (*)(void))Sim_add_polyline, METH_VARARGS | METH_KEYWORDS,
     "add_polyline($self, points, closed=False)\n--\n\nAdds the walls between "
     "consecutive points ((x, y) in m), closed: also last to first; returns their "
     "handles."},
    {"add_segments", (PyCFunction)Sim_add_segments, METH_VARARGS, "add_segments($self, a, b, /)\n--\n\nAdds the walls a[k]-b[k] (points (x, y) "
     "in m); returns their handles."},
    {"remove_segment", (PyCFunction)Sim_remove_segment, METH_O, "remove_segment($self, handle, /)\n--\n\nRemoves the wall of handle; a stale "
     "or foreign handle raises and changes nothing."},
    {"remove_segments", (PyCFunction)Sim_remove_segments, METH_O, "remove_segments($self, handles, /)\n--\n\nRemoves the walls of handles "
     "(checked first; nothing removed on a refusal)."},
    {"segment_count", (PyCFunction)Sim_segment_count, METH_NOARGS, "segment_count($self, /)\n--\n\nNumber of segments"},
    {"segment_handles", (PyCFunction)Sim_segment_handles, METH_NOARGS, "segment_handles($self, /)\n--\n\nReturns every segment's handle in index "
     "order."},
    {"segment_get", (PyCFunction)Sim_segment_get, METH_O, "segment_get($self, handle, /)\n--\n\nReturns the segment's ends (a, b), each "
     "(x, y) in m."},
    /* walkable-area boundaries */
    {"add_boundary", (PyCFunction)Sim_add_boundary, METH_O, "add_boundary($self, points, /)\n--\n\nAdds a walkable-area loop (points (x, "
     "y) in m, walkable on the left); returns its handle."},
    {"remove_boundary", (PyCFunction)Sim_remove_boundary, METH_O, "remove_boundary($self, handle, /)\n--\n\nRemoves the boundary loop of handle."},
    {"boundary_handles", (PyCFunction)Sim_boundary_handles, METH_NOARGS,
     "boundary_handles($self, /)\n--\n\nReturns every boundary loop's handle in "
     "index order."},
    {"boundary_get", (PyCFunction)Sim_boundary_get, METH_O, "boundary_get($self, handle, /)\n--\n\nReturns the boundary loop's points, "
     "each (x, y) in m."},
    {"measure_boundary", (PyCFunction)Sim_measure_boundary, METH_NOARGS,
     "measure_boundary($self, /)\n--\n\nReturns (deepest intrusion into a boundary "
     "as a fraction of the radius, agents outside)."},
    /* end of walkable-area boundaries */
    {"step", (PyCFunction)(void (*)(void))Sim_step, METH_VARARGS | METH_KEYWORDS,
     "step($self, dt, steps=1)\n--\n\nAdvances dt s (2^-30 .. 2^30), steps times; "
     "releases the GIL."},
    {"step_count", (PyCFunction)Sim_step_count, METH_NOARGS, "step_count($self, /)\n--\n\nSteps taken"},
    {"last_fallback_count", (PyCFunction)Sim_last_fallback_count, METH_NOARGS,
     "last_fallback_count($self, /)\n--\n\nAgents that needed the fallback in the "
     "last step"},
    {"hash", (PyCFunction)Sim_hash, METH_NOARGS, "hash($self, /)\n--\n\n64-bit state hash (int)"},
    {"save", (PyCFunction)Sim_save, METH_NOARGS, "save($self, /)\n--\n\nReturns bytes"},
    {"load", (PyCFunction)Sim_load, METH_O, "load($self, bytes, /)\n--\n\nReplaces the state with a snapshot of save() "
     "(bytes); damaged bytes raise and change nothing."},
    {"agent_constraints", (PyCFunction)Sim_agent_constraints, METH_VARARGS,
     "agent_constraints($self, handle, dt, /)\n--\n\nReturns the agent's "
     "constraints for a step of dt s: (bytearray of half-planes, 4 float64 each: "
     "point (m/s), unit normal; count of hard ones)."},
    {"agent_neighbors", (PyCFunction)Sim_agent_neighbors, METH_O,
     "agent_neighbors($self, handle, /)\n--\n\nReturns the agent's neighbours of "
     "the last step: (agent indices, segment indices)."},
    {"measure_overlap", (PyCFunction)Sim_measure_overlap, METH_NOARGS,
     "measure_overlap($self, /)\n--\n\nReturns the deepest overlaps now: "
     "(agent-agent, agent-wall), as fractions of the radius."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Sim_getset[] = {
    {"workers", (getter)Sim_get_workers, (setter)Sim_set_workers,
     "worker threads (1..64); the results do not depend on it", NULL},
    {"vector_kernels", (getter)Sim_get_vector, (setter)Sim_set_vector,
     "True when the step uses the AVX2 kernels (same bits either way)", NULL},
    {"diagnostics", (getter)Sim_get_diagnostics, (setter)Sim_set_diagnostics,
     "True while each step records per-agent diagnostics (issue 16; same bits either way)",
     NULL},
    {"separation", (getter)Sim_get_separation, (setter)Sim_set_separation,
     "True: agents at exactly one point are separated in every step (state; "
     "docs/extensions.md, Coincident agents)",
     NULL},
    {"density_speed", (getter)Sim_get_density_speed, NULL,
     "the density-dependent speed's parameters {'radius', 'gamma', 'max_density'} when on, "
     "else None (state; docs/extensions.md, Density-dependent speed)",
     NULL},
    {"pedestrian", (getter)Sim_get_pedestrian, NULL,
     "the pedestrian model's parameters {'time_gap', 'buffer', 'counter_reach', "
     "'max_planes'} when on, else None (state; docs/pedestrians.md)",
     NULL},
    {"separation_active", (getter)Sim_get_separation_active, NULL,
     "True when the next step separates coincident agents: the option, a boundary loop or "
     "avoidance settings away from the defaults (read-only)",
     NULL},
    {"sim_id", (getter)Sim_get_sim_id, NULL,
     "the simulation's identity (orca_sim_id), carried by every handle it issues", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject SimType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orca._core.Sim",
    .tp_basicsize = sizeof(SimObject),
    .tp_dealloc = (destructor)Sim_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)Sim_traverse,
    .tp_doc = "Low-level simulation object; use orca.Simulator.",
    .tp_methods = Sim_methods,
    .tp_getset = Sim_getset,
    .tp_init = (initproc)Sim_init,
    .tp_new = Sim_new,
};
