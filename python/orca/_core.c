/* SPDX-License-Identifier: MIT */
/* orca._core, the CPython binding of the orca library (docs/python.md; _core.h describes it
 * and lists its files): the module's own small functions, its function table, its exception
 * classes and constants, and PyInit__core, the one exported symbol. */
#include "_core.h"

static PyObject *f_status_name(PyObject *self, PyObject *arg)
{
    (void)self;
    int st;
    if (get_int(arg, "status", INT32_MIN, INT32_MAX, &st) < 0) {
        return NULL;
    }
    return PyUnicode_FromString(orca_status_name(st));
}

static PyObject *f_kernels_available(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    orca_sim *sim = NULL;
    if (orca_sim_create(NULL, &sim) != ORCA_OK) {
        return raise_status(ORCA_ERR_MEMORY, orca_sim_last_error(NULL));
    }
    int on = orca_sim_set_vector_kernels(sim, 1);
    orca_sim_destroy(sim);
    return PyBool_FromLong(on);
}

/* agent_def_default() -> dict: orca_agent_def_default, the add_agent keywords' defaults
 * (docs/scenarios.md, "Defaults"). */
static PyObject *def_dict(const orca_agent_def *d)
{
    return Py_BuildValue("{s(dd)s(dd)s(dd)sdsdsdsisdsd}", "position", d->position.x,
                         d->position.y, "velocity", d->velocity.x, d->velocity.y,
                         "preferred_velocity", d->preferred_velocity.x,
                         d->preferred_velocity.y, "radius", d->radius, "max_speed",
                         d->max_speed, "neighbor_dist", d->neighbor_dist, "max_neighbors",
                         d->max_neighbors, "time_horizon", d->time_horizon,
                         "obstacle_time_horizon", d->obstacle_time_horizon);
}

static PyObject *f_agent_def_default(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    orca_agent_def d = orca_agent_def_default();
    return def_dict(&d);
}

/* pedestrian_agent() -> dict: orca_pedestrian_agent_def (docs/pedestrians.md, "The
 * preset"); pedestrian_default() -> dict: orca_pedestrian_default. */
static PyObject *f_pedestrian_agent(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    orca_agent_def d = orca_pedestrian_agent_def();
    return def_dict(&d);
}

static PyObject *f_pedestrian_default(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    orca_pedestrian p = orca_pedestrian_default();
    return pedestrian_dict(&p);
}

/* goal_default() -> dict: orca_goal_default (docs/scenarios.md, "Defaults"). */
static PyObject *f_goal_default(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    orca_goal g = orca_goal_default();
    return Py_BuildValue("{ss s(dd) sd}", "goal", goal_name(g.kind), "target", g.target.x,
                         g.target.y, "preferred_speed", g.preferred_speed);
}

static PyMethodDef module_methods[] = {
    {"constraint_agent", (PyCFunction)(void (*)(void))f_constraint_agent,
     METH_VARARGS | METH_KEYWORDS, "ORCA half-plane against another agent"},
    {"constraint_segment", (PyCFunction)(void (*)(void))f_constraint_segment,
     METH_VARARGS | METH_KEYWORDS, "ORCA half-plane against a segment"},
    {"constraint_boundary", (PyCFunction)(void (*)(void))f_constraint_boundary,
     METH_VARARGS | METH_KEYWORDS, "one-sided boundary half-plane or None"},
    {"vo_support", (PyCFunction)(void (*)(void))f_vo_support, METH_VARARGS | METH_KEYWORDS,
     "velocity obstacle, support form"},
    {"vo_overlap", (PyCFunction)(void (*)(void))f_vo_overlap, METH_VARARGS | METH_KEYWORDS,
     "velocity obstacle, overlap form"},
    {"segment_distance_squared", f_segment_distance_squared, METH_VARARGS,
     "squared distance from the origin to a segment"},
    {"halfplane_signed_distance", f_signed_distance, METH_VARARGS,
     "signed distance of v from a half-plane"},
    {"solve", (PyCFunction)(void (*)(void))f_solve, METH_VARARGS | METH_KEYWORDS,
     "the whole solve of one agent"},
    {"lp_solve", (PyCFunction)(void (*)(void))f_lp_solve, METH_VARARGS | METH_KEYWORDS,
     "the linear program"},
    {"lp_fallback", (PyCFunction)(void (*)(void))f_lp_fallback, METH_VARARGS | METH_KEYWORDS,
     "the fallback program"},
    {"sincos_turns", f_sincos_turns, METH_O, "deterministic sine and cosine of 2*pi*turns"},
    {"status_name", f_status_name, METH_O, "name of a status code"},
    {"kernels_available", f_kernels_available, METH_NOARGS,
     "kernels_available()\n--\n\nTrue when this CPU runs the AVX2 kernels"},
    {"check_avoidance", (PyCFunction)(void (*)(void))f_check_avoidance,
     METH_VARARGS | METH_KEYWORDS, "the avoidance settings checked by the library"},
    {"_check_handle_count", f_check_handle_count, METH_VARARGS,
     "_check_handle_count(call, n, segment, /)\n--\n\nN handles against the "
     "library's limit"},
    {"agent_def_default", f_agent_def_default, METH_NOARGS,
     "agent_def_default()\n--\n\nOrca_agent_def_default() as a dict of the "
     "add_agent keywords"},
    {"read_scene", (PyCFunction)(void (*)(void))f_read_scene, METH_VARARGS | METH_KEYWORDS,
     "read_scene(cls, path, workers, dt, seed, pedestrian)\n--\n\nA scene file built as by "
     "`orca run FILE`"},
    {"pedestrian_agent", f_pedestrian_agent, METH_NOARGS,
     "pedestrian_agent()\n--\n\nOrca_pedestrian_agent_def() as a dict of the "
     "add_agent keywords"},
    {"pedestrian_default", f_pedestrian_default, METH_NOARGS,
     "pedestrian_default()\n--\n\nOrca_pedestrian_default() as a dict"},
    {"pedestrian_free_speed", f_pedestrian_free_speed, METH_VARARGS,
     "pedestrian_free_speed(seed, key, /)\n--\n\nThe pedestrian preset's free speed (m/s) "
     "of the agent with key `key` in a scenario of seed `seed`."},
    {"check_stream", f_check_stream, METH_O,
     "check_stream(stream, /)\n--\n\nThe stream checked by the library"},
    {"goal_default", f_goal_default, METH_NOARGS,
     "goal_default()\n--\n\nOrca_goal_default() as a dict: goal, target, "
     "preferred_speed"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "orca._core", "The C binding of the orca library.", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

static PyObject *new_error(PyObject *m, const char *name, PyObject *bases, const char *doc)
{
    char full[64];
    snprintf(full, sizeof full, "orca.%s", name);
    PyObject *e = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    if (e && PyModule_AddObject(m, name, e) < 0) {
        Py_DECREF(e);
        return NULL;
    }
    if (e) {
        Py_INCREF(e); /* one reference kept by the global (_common.c) */
    }
    return e;
}

static PyObject *error_with(PyObject *m, const char *name, PyObject *other, const char *doc)
{
    PyObject *bases = PyTuple_Pack(2, Error, other);
    if (!bases) {
        return NULL;
    }
    PyObject *e = new_error(m, name, bases, doc);
    Py_DECREF(bases);
    return e;
}

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&SimType) < 0 || PyType_Ready(&ScenarioType) < 0 ||
        PyType_Ready(&NavType) < 0) {
        return NULL;
    }
    k_64 = PyLong_FromLong(64);
    if (!k_64) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) {
        return NULL;
    }
    Error = new_error(m, "Error", NULL,
                      "A refusal of the orca library; .status names it (ORCA_ERR_...).");
    if (!Error ||
        !(ArgumentError = error_with(m, "ArgumentError", PyExc_ValueError,
                                     "A value out of its documented range.")) ||
        !(StaleError = error_with(m, "StaleHandleError", PyExc_ValueError,
                                  "A handle that does not name a live object.")) ||
        !(ForeignError = error_with(m, "ForeignHandleError", PyExc_ValueError,
                                    "A handle of another simulation.")) ||
        !(FormatError = error_with(m, "FormatError", PyExc_ValueError,
                                   "Corrupt, truncated or foreign snapshot bytes.")) ||
        !(LimitError = error_with(m, "LimitError", PyExc_ValueError,
                                  "A count or step beyond the library's limits.")) ||
        !(OrcaMemoryError = error_with(m, "OutOfMemoryError", PyExc_MemoryError,
                                       "The allocator returned NULL."))) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&SimType);
    Py_INCREF(&ScenarioType);
    Py_INCREF(&NavType);
    if (PyModule_AddObject(m, "Sim", (PyObject *)&SimType) < 0 ||
        PyModule_AddObject(m, "Scenario", (PyObject *)&ScenarioType) < 0 ||
        PyModule_AddObject(m, "Nav", (PyObject *)&NavType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddStringConstant(m, "library_version", orca_version());
    PyModule_AddIntConstant(m, "bits_version", orca_bits_version());
    PyModule_AddObject(m, "COORD_LIMIT", PyFloat_FromDouble(ORCA_COORD_LIMIT));
    PyModule_AddObject(m, "RADIUS_MIN", PyFloat_FromDouble(ORCA_RADIUS_MIN));
    PyModule_AddObject(m, "RADIUS_MAX", PyFloat_FromDouble(ORCA_RADIUS_MAX));
    PyModule_AddObject(m, "NEIGHBOR_DIST_MAX", PyFloat_FromDouble(ORCA_NEIGHBOR_DIST_MAX));
    PyModule_AddObject(m, "SPEED_MAX", PyFloat_FromDouble(ORCA_SPEED_MAX));
    PyModule_AddObject(m, "VELOCITY_LIMIT", PyFloat_FromDouble(ORCA_VELOCITY_LIMIT));
    PyModule_AddObject(m, "TIME_MIN", PyFloat_FromDouble(ORCA_TIME_MIN));
    PyModule_AddObject(m, "TIME_MAX", PyFloat_FromDouble(ORCA_TIME_MAX));
    PyModule_AddIntConstant(m, "MAX_NEIGHBORS_LIMIT", ORCA_MAX_NEIGHBORS_LIMIT);
    PyModule_AddIntConstant(m, "MAX_WORKERS", ORCA_MAX_WORKERS);
    PyModule_AddIntConstant(m, "AGENTS_MAX", 1 << 30);
    PyModule_AddIntConstant(m, "SEGMENTS_MAX", 1 << 28);
    PyModule_AddIntConstant(m, "BOUNDARY_EDGES_MAX", ORCA_BOUNDARY_EDGES_MAX);
    PyModule_AddIntConstant(m, "WAYPOINTS_MAX", ORCA_WAYPOINTS_MAX);
    PyModule_AddIntConstant(m, "NAV_GOALS_MAX", ORCA_NAV_GOALS_MAX);
    PyModule_AddObject(m, "PRIORITY_MIN", PyFloat_FromDouble(ORCA_PRIORITY_MIN));
    PyModule_AddObject(m, "PRIORITY_MAX", PyFloat_FromDouble(ORCA_PRIORITY_MAX));
    PyModule_AddObject(m, "PEDESTRIAN_DT", PyFloat_FromDouble(ORCA_PEDESTRIAN_DT));
    return m;
}
