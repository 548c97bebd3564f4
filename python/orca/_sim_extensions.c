/* SPDX-License-Identifier: MIT */
/* orca._core.Sim's extensions (docs/extensions.md): spatial queries, the avoidance settings
 * (priority, layers, locked agents), diagnostics, the separation of coincident agents, the
 * density-dependent speed, and the pedestrian model with the agents' streams
 * (docs/pedestrians.md). */
#include "_core.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------------------------
 * Spatial queries (docs/extensions.md, "Spatial queries"): lists of agent indices
 * ---------------------------------------------------------------------------------------- */

/* query_radius and query_box: asks with room for every agent (a match never exceeds the
 * agent count), so one call answers. */
PyObject *Sim_query_radius(SimObject *s, PyObject *args)
{
    PyObject *co, *ro;
    orca_vec2 c;
    double r;
    SIM_READY(s);
    if (!PyArg_ParseTuple(args, "OO", &co, &ro) || get_vec2(co, "center", &c) < 0 ||
        get_double(ro, "radius", &r) < 0) {
        return NULL;
    }
    int n = orca_sim_agent_count(s->sim);
    int *idx = malloc(((size_t)n + 1) * sizeof(int));
    if (!idx) {
        return PyErr_NoMemory();
    }
    int count = 0;
    orca_status st = orca_sim_query_radius(s->sim, c, r, idx, n, &count);
    PyObject *out = st == ORCA_OK ? int_list(idx, count) : sim_fail(s, st);
    free(idx);
    return out;
}

PyObject *Sim_query_nearest(SimObject *s, PyObject *args)
{
    PyObject *po, *ko;
    orca_vec2 p;
    int k;
    SIM_READY(s);
    if (!PyArg_ParseTuple(args, "OO", &po, &ko) || get_vec2(po, "point", &p) < 0 ||
        get_int(ko, "k", INT32_MIN, INT32_MAX, &k) < 0) {
        return NULL;
    }
    int n = orca_sim_agent_count(s->sim);
    int room = k > 0 && k < n ? k : n; /* the library writes min(k, n) entries */
    int *idx = malloc(((size_t)room + 1) * sizeof(int));
    if (!idx) {
        return PyErr_NoMemory();
    }
    int count = 0;
    /* a k larger than the agent count is passed as the count (the same answer), so the
     * buffer is never smaller than what the library writes */
    orca_status st = orca_sim_query_nearest(s->sim, p, k > n ? n : k, idx, &count);
    PyObject *out = st == ORCA_OK ? int_list(idx, count) : sim_fail(s, st);
    free(idx);
    return out;
}

PyObject *Sim_query_box(SimObject *s, PyObject *args)
{
    PyObject *lo_o, *hi_o;
    orca_vec2 lo, hi;
    SIM_READY(s);
    if (!PyArg_ParseTuple(args, "OO", &lo_o, &hi_o) || get_vec2(lo_o, "lo", &lo) < 0 ||
        get_vec2(hi_o, "hi", &hi) < 0) {
        return NULL;
    }
    int n = orca_sim_agent_count(s->sim);
    int *idx = malloc(((size_t)n + 1) * sizeof(int));
    if (!idx) {
        return PyErr_NoMemory();
    }
    int count = 0;
    orca_status st = orca_sim_query_box(s->sim, lo, hi, idx, n, &count);
    PyObject *out = st == ORCA_OK ? int_list(idx, count) : sim_fail(s, st);
    free(idx);
    return out;
}

/* ------------------------------------------------------------------------------------------
 * Avoidance extensions and diagnostics (docs/extensions.md, "Priority, layers and locked
 * agents" and "Diagnostics"; issue 16). Values go to the library as they are: it checks the
 * ranges and names a bad value; only what its C types cannot carry (a layer mask outside
 * 32 bits, a locked flag outside int) is refused here.
 * ---------------------------------------------------------------------------------------- */

/* A 32-bit layer mask: an integer in [0, 2^32 - 1] (int or __index__, not float or bool). */
static int get_u32(PyObject *obj, const char *name, uint32_t *out)
{
    if (PyFloat_Check(obj) || PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an integer (a 32-bit mask), got %.100s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *idx = PyNumber_Index(obj);
    if (!idx) {
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    Py_DECREF(idx);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow || v < 0 || v > 0xFFFFFFFFLL) {
        PyObject *msg = PyUnicode_FromFormat("%s must be in [0, 0xFFFFFFFF], got %R", name, obj);
        if (msg) {
            raise_status(ORCA_ERR_ARGUMENT, PyUnicode_AsUTF8(msg));
            Py_DECREF(msg);
        }
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* The avoidance settings given (any may be NULL or None: kept from *a). */
typedef struct avoid_args {
    PyObject *priority, *layers, *mask, *locked;
} avoid_args;

static int fill_avoidance(const avoid_args *a, orca_agent_avoidance *av)
{
    if (a->priority && a->priority != Py_None &&
        get_double(a->priority, "priority", &av->priority) < 0)
        return -1;
    if (a->layers && a->layers != Py_None && get_u32(a->layers, "layers", &av->layers) < 0)
        return -1;
    if (a->mask && a->mask != Py_None && get_u32(a->mask, "mask", &av->mask) < 0) return -1;
    if (a->locked && a->locked != Py_None &&
        get_int(a->locked, "locked", INT32_MIN, INT32_MAX, &av->locked) < 0)
        return -1;
    return 0;
}

static PyObject *avoidance_tuple(const orca_agent_avoidance *av)
{
    return Py_BuildValue("(dkki)", av->priority, (unsigned long)av->layers,
                         (unsigned long)av->mask, av->locked);
}

/* check_avoidance(priority=None, layers=None, mask=None, locked=None) -> (priority, layers,
 * mask, locked): the settings (the defaults where None) after the library's own check
 * (orca_agent_set_avoidance on an agent of a scratch simulation), so that add_agent can refuse
 * them with the library's message before it adds anything. */
PyObject *f_check_avoidance(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"priority", "layers", "mask", "locked", NULL};
    avoid_args a = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOOO:check_avoidance", kwlist, &a.priority,
                                     &a.layers, &a.mask, &a.locked)) {
        return NULL;
    }
    orca_agent_avoidance av = orca_agent_avoidance_default();
    if (fill_avoidance(&a, &av) < 0) {
        return NULL;
    }
    orca_sim *scratch = NULL;
    orca_status st = orca_sim_create(NULL, &scratch);
    if (st != ORCA_OK) {
        return raise_status(st, orca_sim_last_error(NULL));
    }
    orca_agent_def d = orca_agent_def_default();
    orca_agent_id id;
    st = orca_sim_add_agent(scratch, &d, &id);
    if (st == ORCA_OK) {
        st = orca_agent_set_avoidance(scratch, id, &av);
    }
    PyObject *r = st == ORCA_OK ? avoidance_tuple(&av) : raise_status(st, orca_sim_last_error(scratch));
    orca_sim_destroy(scratch);
    return r;
}

/* agent_avoidance(handle) -> (priority, layers, mask, locked) */
PyObject *Sim_agent_avoidance(SimObject *s, PyObject *arg)
{
    orca_agent_id id;
    orca_agent_avoidance av;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_get_avoidance(s->sim, id, &av);
    return st == ORCA_OK ? avoidance_tuple(&av) : sim_fail(s, st);
}

/* agent_set_avoidance(handle, priority=None, layers=None, mask=None, locked=None): the fields
 * given replace the agent's, the others are kept; one orca_agent_set_avoidance. */
PyObject *Sim_agent_set_avoidance(SimObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"handle", "priority", "layers", "mask", "locked", NULL};
    PyObject *h;
    avoid_args a = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOOO:set_avoidance", kwlist, &h,
                                     &a.priority, &a.layers, &a.mask, &a.locked)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_id id;
    orca_agent_avoidance av;
    if (get_handle(h, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_get_avoidance(s->sim, id, &av);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    if (fill_avoidance(&a, &av) < 0) {
        return NULL;
    }
    st = orca_agent_set_avoidance(s->sim, id, &av);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* set_priority(handle, priority): orca_agent_set_priority */
PyObject *Sim_set_priority(SimObject *s, PyObject *args)
{
    PyObject *h, *po;
    if (!PyArg_UnpackTuple(args, "set_priority", 2, 2, &h, &po)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_id id;
    double p;
    if (get_handle(h, &id.slot, &id.generation, &id.sim) < 0 || get_double(po, "priority", &p) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_set_priority(s->sim, id, p);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* set_layers(handle, layers, mask): orca_agent_set_layers */
PyObject *Sim_set_layers(SimObject *s, PyObject *args)
{
    PyObject *h, *lo, *mo;
    if (!PyArg_UnpackTuple(args, "set_layers", 3, 3, &h, &lo, &mo)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_id id;
    uint32_t layers, mask;
    if (get_handle(h, &id.slot, &id.generation, &id.sim) < 0 || get_u32(lo, "layers", &layers) < 0 ||
        get_u32(mo, "mask", &mask) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_set_layers(s->sim, id, layers, mask);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* set_locked(handle, locked): orca_agent_set_locked (True/False or 0/1; the library refuses
 * any other integer with its message) */
PyObject *Sim_set_locked(SimObject *s, PyObject *args)
{
    PyObject *h, *lo;
    if (!PyArg_UnpackTuple(args, "set_locked", 2, 2, &h, &lo)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_id id;
    int locked;
    if (get_handle(h, &id.slot, &id.generation, &id.sim) < 0 ||
        get_int(lo, "locked", INT32_MIN, INT32_MAX, &locked) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_set_locked(s->sim, id, locked);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

PyObject *Sim_get_diagnostics(SimObject *s, void *closure)
{
    (void)closure;
    SIM_READY(s);
    return PyBool_FromLong(orca_sim_get_diagnostics(s->sim));
}

/* A bool property written through one orca_sim_set_* call (diagnostics, separation). */
static int sim_set_flag(SimObject *s, PyObject *value, const char *name,
                        orca_status (*set)(orca_sim *, int))
{
    if (!value) {
        PyErr_Format(PyExc_AttributeError, "cannot delete %s", name);
        return -1;
    }
    if (sim_ready(s) < 0) {
        return -1;
    }
    int on = PyObject_IsTrue(value);
    if (on < 0) {
        return -1;
    }
    orca_status st = set(s->sim, on);
    if (st != ORCA_OK) {
        sim_fail(s, st);
        return -1;
    }
    return 0;
}

int Sim_set_diagnostics(SimObject *s, PyObject *value, void *closure)
{
    (void)closure;
    return sim_set_flag(s, value, "diagnostics", orca_sim_set_diagnostics);
}

/* separation (bool, state: docs/extensions.md, "Coincident agents") and separation_active */
PyObject *Sim_get_separation(SimObject *s, void *closure)
{
    (void)closure;
    SIM_READY(s);
    return PyBool_FromLong(orca_sim_get_separation(s->sim));
}

int Sim_set_separation(SimObject *s, PyObject *value, void *closure)
{
    (void)closure;
    return sim_set_flag(s, value, "separation", orca_sim_set_separation);
}

PyObject *Sim_get_separation_active(SimObject *s, void *closure)
{
    (void)closure;
    SIM_READY(s);
    return PyBool_FromLong(orca_sim_separation_active(s->sim));
}

/* The density-dependent speed (state: docs/extensions.md, "Density-dependent speed"):
 * set_density_speed(radius=None, gamma=None, max_density=None) turns it on, each None keeping
 * the value in use (the default when off); clear_density_speed() turns it off; the property
 * density_speed is a dict of the three, or None when off. The library checks the ranges. */
PyObject *Sim_set_density_speed(SimObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"radius", "gamma", "max_density", NULL};
    PyObject *obj[3] = {Py_None, Py_None, Py_None};
    SIM_READY(s);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOO:set_density_speed", kwlist, &obj[0],
                                     &obj[1], &obj[2])) {
        return NULL;
    }
    orca_density_speed p;
    orca_sim_get_density_speed(s->sim, &p); /* the defaults when off */
    double *field[3] = {&p.radius, &p.gamma, &p.max_density};
    for (int k = 0; k < 3; ++k) {
        if (obj[k] != Py_None && get_double(obj[k], kwlist[k], field[k]) < 0) {
            return NULL;
        }
    }
    orca_status st = orca_sim_set_density_speed(s->sim, &p);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

PyObject *Sim_clear_density_speed(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    orca_sim_set_density_speed(s->sim, NULL); /* always accepted */
    Py_RETURN_NONE;
}

PyObject *Sim_get_density_speed(SimObject *s, void *closure)
{
    (void)closure;
    SIM_READY(s);
    orca_density_speed p;
    if (!orca_sim_get_density_speed(s->sim, &p)) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("{s:d,s:d,s:d}", "radius", p.radius, "gamma", p.gamma, "max_density",
                         p.max_density);
}

/* The pedestrian model (state: docs/pedestrians.md): set_pedestrian(time_gap=None,
 * buffer=None, counter_reach=None, max_planes=None) turns it on, each None keeping the value
 * in use (the default when off); clear_pedestrian() turns it off; the property pedestrian is
 * a dict of the four, or None when off. The library checks the ranges. */
int get_pedestrian(PyObject *const obj[4], orca_pedestrian *p)
{
    static const char *names[4] = {"time_gap", "buffer", "counter_reach", "max_planes"};
    double *field[3] = {&p->time_gap, &p->buffer, &p->counter_reach};
    for (int k = 0; k < 3; ++k) {
        if (obj[k] != Py_None && get_double(obj[k], names[k], field[k]) < 0) {
            return -1;
        }
    }
    if (obj[3] != Py_None && get_int(obj[3], names[3], INT32_MIN, INT32_MAX, &p->max_planes) < 0) {
        return -1;
    }
    return 0;
}

PyObject *Sim_set_pedestrian(SimObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"time_gap", "buffer", "counter_reach", "max_planes", NULL};
    PyObject *obj[4] = {Py_None, Py_None, Py_None, Py_None};
    SIM_READY(s);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOOO:set_pedestrian", kwlist, &obj[0],
                                     &obj[1], &obj[2], &obj[3])) {
        return NULL;
    }
    orca_pedestrian p;
    orca_sim_get_pedestrian(s->sim, &p); /* the defaults when off */
    if (get_pedestrian(obj, &p) < 0) {
        return NULL;
    }
    orca_status st = orca_sim_set_pedestrian(s->sim, &p);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

PyObject *Sim_clear_pedestrian(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    orca_sim_set_pedestrian(s->sim, NULL); /* always accepted */
    Py_RETURN_NONE;
}

PyObject *pedestrian_dict(const orca_pedestrian *p)
{
    return Py_BuildValue("{s:d,s:d,s:d,s:i}", "time_gap", p->time_gap, "buffer", p->buffer,
                         "counter_reach", p->counter_reach, "max_planes", p->max_planes);
}

PyObject *Sim_get_pedestrian(SimObject *s, void *closure)
{
    (void)closure;
    SIM_READY(s);
    orca_pedestrian p;
    if (!orca_sim_get_pedestrian(s->sim, &p)) {
        Py_RETURN_NONE;
    }
    return pedestrian_dict(&p);
}

/* agent_stream(handle) -> int: orca_agent_get_stream */
PyObject *Sim_agent_stream(SimObject *s, PyObject *arg)
{
    orca_agent_id id;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    int32_t g;
    orca_status st = orca_agent_get_stream(s->sim, id, &g);
    return st == ORCA_OK ? PyLong_FromLong((long)g) : sim_fail(s, st);
}

/* agent_set_stream(handle, stream): orca_agent_set_stream */
PyObject *Sim_agent_set_stream(SimObject *s, PyObject *args)
{
    PyObject *h, *go;
    if (!PyArg_UnpackTuple(args, "agent_set_stream", 2, 2, &h, &go)) {
        return NULL;
    }
    SIM_READY(s);
    orca_agent_id id;
    int g;
    if (get_handle(h, &id.slot, &id.generation, &id.sim) < 0 ||
        get_int(go, "stream", INT32_MIN, INT32_MAX, &g) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_set_stream(s->sim, id, g);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* check_stream(stream) -> int: the stream after the library's check (orca_agent_set_stream on
 * an agent of a scratch simulation), so that add_agent can refuse it with the library's
 * message before it adds anything. */
PyObject *f_check_stream(PyObject *self, PyObject *arg)
{
    (void)self;
    int g;
    if (get_int(arg, "stream", INT32_MIN, INT32_MAX, &g) < 0) {
        return NULL;
    }
    orca_sim *scratch = NULL;
    orca_status st = orca_sim_create(NULL, &scratch);
    if (st != ORCA_OK) {
        return raise_status(st, orca_sim_last_error(NULL));
    }
    orca_agent_def d = orca_agent_def_default();
    orca_agent_id id;
    st = orca_sim_add_agent(scratch, &d, &id);
    if (st == ORCA_OK) {
        st = orca_agent_set_stream(scratch, id, g);
    }
    PyObject *r = st == ORCA_OK ? PyLong_FromLong((long)g)
                                : raise_status(st, orca_sim_last_error(scratch));
    orca_sim_destroy(scratch);
    return r;
}

/* pedestrian_free_speed(seed, key) -> float: orca_pedestrian_free_speed */
PyObject *f_pedestrian_free_speed(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *so, *ko;
    unsigned long long seed, key;
    if (!PyArg_UnpackTuple(args, "pedestrian_free_speed", 2, 2, &so, &ko) ||
        get_seed(so, &seed) < 0 || get_seed(ko, &key) < 0) {
        return NULL;
    }
    return PyFloat_FromDouble(orca_pedestrian_free_speed(seed, key));
}

static PyObject *diag_tuple(const orca_agent_diagnostics *d)
{
    return Py_BuildValue("(iiiiiiiii)", d->fallback, d->failed_constraint, d->neighbor_count,
                         d->candidates, d->neighbors_cut, d->blocked, d->locked,
                         d->headway_planes, d->counter_mode);
}

/* agent_diagnostics(handle) -> (fallback, failed_constraint, neighbor_count, candidates,
 * neighbors_cut, blocked, locked, headway_planes, counter_mode) */
PyObject *Sim_agent_diagnostics(SimObject *s, PyObject *arg)
{
    orca_agent_id id;
    orca_agent_diagnostics d;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_agent_get_diagnostics(s->sim, id, &d);
    return st == ORCA_OK ? diag_tuple(&d) : sim_fail(s, st);
}

/* read_diagnostics() -> bytearray of n * DIAG_FIELDS int32 (orca_agent_diagnostics in index
 * order, the fields in the struct's order), one orca_sim_diagnostics */
#define DIAG_FIELDS 9
PyObject *Sim_read_diagnostics(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    int n = orca_sim_agent_count(s->sim);
    PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n * DIAG_FIELDS * 4);
    if (!b) {
        return NULL;
    }
    orca_agent_diagnostics *d = n > 0 ? malloc((size_t)n * sizeof *d) : NULL;
    if (n > 0 && !d) {
        Py_DECREF(b);
        return PyErr_NoMemory();
    }
    int count = 0;
    orca_status st = orca_sim_diagnostics(s->sim, d, n, &count);
    if (st != ORCA_OK) {
        free(d);
        Py_DECREF(b);
        return sim_fail(s, st);
    }
    int32_t *w = (int32_t *)(void *)PyByteArray_AS_STRING(b);
    for (int i = 0; i < n; ++i) {
        int32_t *row = w + (size_t)DIAG_FIELDS * (size_t)i;
        row[0] = d[i].fallback;
        row[1] = d[i].failed_constraint;
        row[2] = d[i].neighbor_count;
        row[3] = d[i].candidates;
        row[4] = d[i].neighbors_cut;
        row[5] = d[i].blocked;
        row[6] = d[i].locked;
        row[7] = d[i].headway_planes;
        row[8] = d[i].counter_mode;
    }
    free(d);
    return b;
}

/* step_diagnostics() -> (agents, fallback, cut, blocked, locked, headway, counter) */
PyObject *Sim_step_diagnostics(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    orca_step_diagnostics c;
    orca_status st = orca_sim_step_diagnostics(s->sim, &c);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    return Py_BuildValue("(iiiiiii)", c.agents, c.fallback, c.cut, c.blocked, c.locked,
                         c.headway, c.counter);
}
