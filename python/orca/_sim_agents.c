/* SPDX-License-Identifier: MIT */
/* orca._core.Sim's agents: adding them (one or many), removing them (one or a batch, and the
 * batch removal of segments, which shares its code), their handles, reading and changing
 * their fields, and the bulk arrays of positions and velocities. */
#include "_core.h"

#include <stdlib.h>
#include <string.h>

/* The fields of a that are given into *d (the others are kept); Scenario.add_agent uses it
 * too. */
int fill_def(const agent_args *a, orca_agent_def *d)
{
    if (a->velocity && get_vec2(a->velocity, "velocity", &d->velocity) < 0) return -1;
    if (a->preferred_velocity &&
        get_vec2(a->preferred_velocity, "preferred_velocity", &d->preferred_velocity) < 0)
        return -1;
    if (a->radius && get_double(a->radius, "radius", &d->radius) < 0) return -1;
    if (a->max_speed && get_double(a->max_speed, "max_speed", &d->max_speed) < 0) return -1;
    if (a->neighbor_dist && get_double(a->neighbor_dist, "neighbor_dist", &d->neighbor_dist) < 0)
        return -1;
    if (a->max_neighbors &&
        get_int(a->max_neighbors, "max_neighbors", INT32_MIN, INT32_MAX, &d->max_neighbors) < 0)
        return -1;
    if (a->time_horizon && get_double(a->time_horizon, "time_horizon", &d->time_horizon) < 0)
        return -1;
    if (a->obstacle_time_horizon &&
        get_double(a->obstacle_time_horizon, "obstacle_time_horizon",
                   &d->obstacle_time_horizon) < 0)
        return -1;
    return 0;
}

PyObject *Sim_add_agent(SimObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"position", "velocity", "radius", "max_speed", "neighbor_dist",
                             "max_neighbors", "time_horizon", "obstacle_time_horizon",
                             "preferred_velocity", NULL};
    PyObject *pos;
    agent_args a = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOOOOOOO:add_agent", kwlist, &pos,
                                     &a.velocity, &a.radius, &a.max_speed, &a.neighbor_dist,
                                     &a.max_neighbors, &a.time_horizon, &a.obstacle_time_horizon,
                                     &a.preferred_velocity)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_def d = orca_agent_def_default();
    if (get_vec2(pos, "position", &d.position) < 0 || fill_def(&a, &d) < 0) {
        return NULL;
    }
    orca_agent_id id;
    orca_status st = orca_sim_add_agent(s->sim, &d, &id);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    return handle_int(id.slot, id.generation, id.sim);
}

/* add_agents(positions, **params): every definition is checked first (on a scratch
 * simulation with one agent, by orca_agent_set, the same check as orca_sim_add_agent), so a
 * refusal leaves the simulation untouched. */
PyObject *Sim_add_agents(SimObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"positions", "velocity", "radius", "max_speed", "neighbor_dist",
                             "max_neighbors", "time_horizon", "obstacle_time_horizon",
                             "preferred_velocity", NULL};
    PyObject *posobj;
    agent_args a = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOOOOOOO:add_agents", kwlist, &posobj,
                                     &a.velocity, &a.radius, &a.max_speed, &a.neighbor_dist,
                                     &a.max_neighbors, &a.time_horizon, &a.obstacle_time_horizon,
                                     &a.preferred_velocity)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_def d = orca_agent_def_default();
    if (fill_def(&a, &d) < 0) {
        return NULL;
    }
    int have = orca_sim_agent_count(s->sim);
    char limit[160];
    PyOS_snprintf(limit, sizeof limit,
                  "the 2^30 (1073741824) agents a simulation holds in all (it has %d)", have);
    if (check_bulk(posobj, "add_agents", "positions", ((Py_ssize_t)1 << 30) - have, limit,
                   ROW_BYTES_AGENT) < 0) {
        return NULL;
    }
    double *rows;
    Py_ssize_t n;
    if (get_rows(posobj, "positions", 2, 0, &rows, &n) < 0) {
        return NULL;
    }
    PyObject *result = PyList_New(n);
    orca_sim *scratch = NULL;
    orca_agent_id sid;
    if (!result) {
        goto fail;
    }
    orca_status st = orca_sim_create(NULL, &scratch);
    if (st != ORCA_OK) {
        raise_status(st, orca_sim_last_error(NULL));
        goto fail;
    }
    orca_agent_def d0 = orca_agent_def_default();
    st = orca_sim_add_agent(scratch, &d0, &sid);
    if (st != ORCA_OK) {
        raise_status(st, orca_sim_last_error(scratch));
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        d.position.x = rows[2 * i];
        d.position.y = rows[2 * i + 1];
        st = orca_agent_set(scratch, sid, &d);
        if (st != ORCA_OK) {
            PyObject *msg = PyUnicode_FromFormat("agent %zd of %zd: %s", i, n,
                                                 orca_sim_last_error(scratch));
            if (msg) {
                raise_status(st, PyUnicode_AsUTF8(msg));
                Py_DECREF(msg);
            }
            goto fail;
        }
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        orca_agent_id id;
        d.position.x = rows[2 * i];
        d.position.y = rows[2 * i + 1];
        st = orca_sim_add_agent(s->sim, &d, &id);
        if (st != ORCA_OK) {
            /* memory, the agent-count limit or an agent whose disc does not fit in the
             * walkable area (docs/extensions.md) get here: take back what was added (the
             * state is as before; the handles of later additions may differ) */
            PyObject *msg = PyUnicode_FromFormat("agent %zd of %zd: %s", i, n,
                                                 orca_sim_last_error(s->sim));
            if (msg) {
                raise_status(st, PyUnicode_AsUTF8(msg));
                Py_DECREF(msg);
            }
            for (Py_ssize_t k = i - 1; k >= 0; --k) {
                orca_sim_remove_agent(s->sim, orca_sim_agent_at(s->sim,
                                                                orca_sim_agent_count(s->sim) - 1));
            }
            goto fail;
        }
        PyObject *h = handle_int(id.slot, id.generation, id.sim);
        if (!h) {
            goto fail; /* cannot happen in practice (a small int) */
        }
        PyList_SET_ITEM(result, i, h);
    }
    orca_sim_destroy(scratch);
    free(rows);
    return result;
fail:
    orca_sim_destroy(scratch);
    free(rows);
    Py_XDECREF(result);
    return NULL;
}

PyObject *Sim_remove_agent(SimObject *s, PyObject *arg)
{
    orca_agent_id id;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_sim_remove_agent(s->sim, id);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* --- batch removals (issue 17: orca_sim_remove_agents, orca_sim_remove_segments) -------- */

/* n handles of agents (segment 0) or segments for call, against the library's limit. */
static int check_handle_count(const char *call, Py_ssize_t n, int segment)
{
    return check_rows(call, "handles", n, segment ? (Py_ssize_t)1 << 28 : (Py_ssize_t)1 << 30,
                      segment ? "the 2^28 (268435456) segments a simulation holds"
                              : "the 2^30 (1073741824) agents a simulation holds",
                      ROW_BYTES_HANDLE);
}

/* _check_handle_count(call, n, segment): for the Python layer, before it reads a sequence of
 * handle objects. */
PyObject *f_check_handle_count(PyObject *self, PyObject *args)
{
    (void)self;
    const char *call;
    Py_ssize_t n;
    int segment;
    if (!PyArg_ParseTuple(args, "snp:_check_handle_count", &call, &n, &segment) ||
        check_handle_count(call, n, segment) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The handles of a sequence, removed in one call of the agents' (segment 0) or segments'
 * batch removal. */
static PyObject *remove_handles(SimObject *s, PyObject *arg, int segment)
{
    const char *what = segment ? "remove_segments" : "remove_agents";
    SIM_READY(s);
    /* the count against the library's limit before the sequence is read or copied */
    Py_ssize_t count = row_count(arg);
    if (count < 0 || check_handle_count(what, count, segment) < 0) {
        return NULL;
    }
    PyObject *seq = PySequence_Fast(arg, segment ? "remove_segments needs a sequence of segment "
                                                   "handles"
                                                 : "remove_agents needs a sequence of agent "
                                                   "handles");
    if (!seq) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (check_handle_count(what, n, segment) < 0) {
        Py_DECREF(seq);
        return NULL;
    }
    /* decoded as agent handles (segment handles have the same fields: copied below) */
    orca_agent_id *ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
    if (!ids) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (get_handle(PySequence_Fast_GET_ITEM(seq, i), &ids[i].slot, &ids[i].generation,
                       &ids[i].sim) < 0) {
            free(ids);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    orca_status st;
    if (segment) {
        orca_segment_id *sids = malloc((size_t)(n > 0 ? n : 1) * sizeof *sids);
        if (!sids) {
            free(ids);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < n; ++i) {
            sids[i].slot = ids[i].slot;
            sids[i].generation = ids[i].generation;
            sids[i].sim = ids[i].sim;
        }
        st = orca_sim_remove_segments(s->sim, sids, (int)n);
        free(sids);
    } else {
        st = orca_sim_remove_agents(s->sim, ids, (int)n);
    }
    free(ids);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

PyObject *Sim_remove_agents(SimObject *s, PyObject *arg)
{
    return remove_handles(s, arg, 0);
}

PyObject *Sim_remove_segments(SimObject *s, PyObject *arg)
{
    return remove_handles(s, arg, 1);
}

/* --- end of batch removals ---------------------------------------------------------------- */

PyObject *Sim_agent_count(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    return PyLong_FromLong(orca_sim_agent_count(s->sim));
}

/* The handles of every agent, segment or boundary loop of the simulation, in index order,
 * as ints (handle_int). */
PyObject *handle_list(SimObject *s, int kind)
{
    SIM_READY(s);
    const orca_sim *sim = s->sim;
    int n = kind == HANDLES_AGENT     ? orca_sim_agent_count(sim)
            : kind == HANDLES_SEGMENT ? orca_sim_segment_count(sim)
                                      : orca_sim_boundary_count(sim);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; ++i) {
        uint32_t slot, generation, id_sim;
        if (kind == HANDLES_AGENT) {
            orca_agent_id id = orca_sim_agent_at(sim, i);
            slot = id.slot, generation = id.generation, id_sim = id.sim;
        } else if (kind == HANDLES_SEGMENT) {
            orca_segment_id id = orca_sim_segment_at(sim, i);
            slot = id.slot, generation = id.generation, id_sim = id.sim;
        } else {
            orca_boundary_id id = orca_sim_boundary_at(sim, i);
            slot = id.slot, generation = id.generation, id_sim = id.sim;
        }
        PyObject *h = handle_int(slot, generation, id_sim);
        if (!h) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, h);
    }
    return list;
}

PyObject *Sim_agent_handles(SimObject *s, PyObject *unused)
{
    (void)unused;
    return handle_list(s, HANDLES_AGENT);
}

PyObject *Sim_agent_at(SimObject *s, PyObject *arg)
{
    int i;
    SIM_READY(s);
    if (get_int(arg, "index", INT32_MIN, INT32_MAX, &i) < 0) {
        return NULL;
    }
    int n = orca_sim_agent_count(s->sim);
    if (i < 0 || i >= n) {
        PyErr_Format(PyExc_IndexError, "agent index %d out of range (%d agent%s)", i, n,
                     n == 1 ? "" : "s");
        return NULL;
    }
    orca_agent_id id = orca_sim_agent_at(s->sim, i);
    return handle_int(id.slot, id.generation, id.sim);
}

PyObject *Sim_agent_index(SimObject *s, PyObject *arg)
{
    orca_agent_id id;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    return PyLong_FromLong(orca_sim_agent_index(s->sim, id));
}

/* agent_get(handle) -> (position, velocity, preferred_velocity, radius, max_speed,
 * neighbor_dist, max_neighbors, time_horizon, obstacle_time_horizon) */
PyObject *Sim_agent_get(SimObject *s, PyObject *arg)
{
    orca_agent_id id;
    orca_agent_def d;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_get(s->sim, id, &d);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    return Py_BuildValue("((dd)(dd)(dd)dddiddd)", d.position.x, d.position.y, d.velocity.x,
                         d.velocity.y, d.preferred_velocity.x, d.preferred_velocity.y, d.radius,
                         d.max_speed, d.neighbor_dist, d.max_neighbors, d.time_horizon,
                         d.obstacle_time_horizon);
}

/* agent_set(handle, **fields): the fields given are changed, the others kept; all checked
 * by the library before any is applied. */
PyObject *Sim_agent_set(SimObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"handle", "position", "velocity", "radius", "max_speed",
                             "neighbor_dist", "max_neighbors", "time_horizon",
                             "obstacle_time_horizon", "preferred_velocity", NULL};
    PyObject *h, *pos = NULL;
    agent_args a = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOOOOOOOO:agent_set", kwlist, &h, &pos,
                                     &a.velocity, &a.radius, &a.max_speed, &a.neighbor_dist,
                                     &a.max_neighbors, &a.time_horizon, &a.obstacle_time_horizon,
                                     &a.preferred_velocity)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_id id;
    orca_agent_def d;
    if (get_handle(h, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_get(s->sim, id, &d);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    if ((pos && get_vec2(pos, "position", &d.position) < 0) || fill_def(&a, &d) < 0) {
        return NULL;
    }
    st = orca_agent_set(s->sim, id, &d);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

typedef orca_status (*vec_setter)(orca_sim *, orca_agent_id, orca_vec2);

static PyObject *agent_set_vec(SimObject *s, PyObject *args, const char *what, vec_setter fn)
{
    PyObject *h, *v;
    if (!PyArg_UnpackTuple(args, what, 2, 2, &h, &v)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_id id;
    orca_vec2 x;
    if (get_handle(h, &id.slot, &id.generation, &id.sim) < 0 || get_vec2(v, what, &x) < 0) {
        return NULL;
    }
    orca_status st = fn(s->sim, id, x);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

PyObject *Sim_set_position(SimObject *s, PyObject *args)
{
    return agent_set_vec(s, args, "position", orca_agent_set_position);
}

PyObject *Sim_set_velocity(SimObject *s, PyObject *args)
{
    return agent_set_vec(s, args, "velocity", orca_agent_set_velocity);
}

PyObject *Sim_set_preferred_velocity(SimObject *s, PyObject *args)
{
    return agent_set_vec(s, args, "preferred_velocity", orca_agent_set_preferred_velocity);
}

PyObject *Sim_get_position(SimObject *s, PyObject *arg)
{
    orca_agent_id id;
    orca_vec2 v;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_get_position(s->sim, id, &v);
    return st == ORCA_OK ? vec2_tuple(v) : sim_fail(s, st);
}

PyObject *Sim_get_velocity(SimObject *s, PyObject *arg)
{
    orca_agent_id id;
    orca_vec2 v;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_get_velocity(s->sim, id, &v);
    return st == ORCA_OK ? vec2_tuple(v) : sim_fail(s, st);
}

/* Bulk reads: which = 0 positions, 1 velocities, 2 preferred velocities. With out (a
 * writable C-contiguous float64 buffer of 2n values) the values are written there and None
 * is returned; without, a new bytearray of 16n bytes is returned. */
static PyObject *bulk_read(SimObject *s, PyObject *args, PyObject *kwds, int which)
{
    static char *kwlist[] = {"out", NULL};
    PyObject *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O", kwlist, &out)) {
        return NULL;
    }
    SIM_READY(s);
    int n = orca_sim_agent_count(s->sim);
    Py_buffer view;
    PyObject *result = NULL;
    double *dst;
    if (out != Py_None) {
        if (get_out_buffer(out, "out", 2 * (Py_ssize_t)n, &view) < 0) {
            return NULL;
        }
        dst = view.buf;
    } else {
        result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n * 16);
        if (!result) {
            return NULL;
        }
        dst = (double *)(void *)PyByteArray_AS_STRING(result);
    }
    if (which == 0) {
        if (n > 0) {
            memcpy(dst, orca_sim_positions(s->sim), (size_t)n * sizeof(orca_vec2));
        }
    } else {
        for (int i = 0; i < n; ++i) {
            orca_agent_id id = orca_sim_agent_at(s->sim, i);
            orca_vec2 v = {0, 0};
            if (which == 1) {
                orca_agent_get_velocity(s->sim, id, &v);
            } else {
                orca_agent_def d;
                orca_agent_get(s->sim, id, &d);
                v = d.preferred_velocity;
            }
            dst[2 * i] = v.x;
            dst[2 * i + 1] = v.y;
        }
    }
    if (out != Py_None) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    return result;
}

PyObject *Sim_read_positions(SimObject *s, PyObject *args, PyObject *kwds)
{
    return bulk_read(s, args, kwds, 0);
}

PyObject *Sim_read_velocities(SimObject *s, PyObject *args, PyObject *kwds)
{
    return bulk_read(s, args, kwds, 1);
}

PyObject *Sim_read_preferred_velocities(SimObject *s, PyObject *args, PyObject *kwds)
{
    return bulk_read(s, args, kwds, 2);
}

/* set_preferred_velocities(array (n, 2) float64): one orca_sim_swap_preferred_velocities. */
PyObject *Sim_set_preferred_velocities(SimObject *s, PyObject *arg)
{
    SIM_READY(s);
    int n = orca_sim_agent_count(s->sim);
    orca_vec2 *v = NULL;
    orca_vec2 one;
    /* fast path: a C-contiguous float64 buffer is swapped through a copy */
    double *rows = NULL;
    /* the row count first: a wrong one is refused before anything is copied */
    Py_ssize_t rn = row_count(arg);
    if (rn < 0) {
        return NULL;
    }
    if (rn > n) {
        PyErr_Format(PyExc_ValueError, "preferred velocities must have shape (%d, 2) (one row "
                     "per agent), got %zd rows", n, rn);
        return NULL;
    }
    if (get_rows(arg, "preferred velocities", 2, 0, &rows, &rn) < 0) {
        return NULL;
    }
    if (rn != n) {
        free(rows);
        PyErr_Format(PyExc_ValueError, "preferred velocities must have shape (%d, 2) (one row "
                     "per agent), got %zd rows", n, rn);
        return NULL;
    }
    v = rn > 0 ? (orca_vec2 *)(void *)rows : &one;
    orca_status st = orca_sim_swap_preferred_velocities(s->sim, v, n);
    free(rows);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}
