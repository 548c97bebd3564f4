/* SPDX-License-Identifier: MIT */
/* orca._core.Nav (orca.Navigator's base): the path query of orca/nav.h over the walls of a
 * simulation (docs/navigation.md); and the form of a path's result, which Scenario.agent_nav
 * shares. */
#include "_core.h"

#include <stdlib.h>
#include <string.h>

/* "ok", "no_path", "start_blocked", "goal_blocked": orca_nav_result_name without its
 * "ORCA_NAV_" prefix, in lower case. */
PyObject *nav_result_str(int result)
{
    const char *name = orca_nav_result_name(result);
    char low[32];
    size_t skip = strncmp(name, "ORCA_NAV_", 9) == 0 ? 9 : 0, k = 0;
    for (; name[skip + k] && k + 1 < sizeof low; ++k) {
        char c = name[skip + k];
        low[k] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    low[k] = '\0';
    return PyUnicode_FromString(low);
}

/* corners as a bytearray of 7 doubles each: vertex x y, side, enter x y, leave x y. */
PyObject *corner_rows(const orca_nav_corner *c, int n)
{
    PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n * 7 * (Py_ssize_t)sizeof(double));
    if (!b) {
        return NULL;
    }
    double *w = (double *)(void *)PyByteArray_AS_STRING(b);
    for (int k = 0; k < n; ++k, w += 7) {
        w[0] = c[k].vertex.x;
        w[1] = c[k].vertex.y;
        w[2] = (double)c[k].side;
        w[3] = c[k].enter.x;
        w[4] = c[k].enter.y;
        w[5] = c[k].leave.x;
        w[6] = c[k].leave.y;
    }
    return b;
}

/* --- the Nav type ------------------------------------------------------------------------- */

typedef struct NavObject {
    PyObject_HEAD
    orca_nav *nav;
    SimObject *sim; /* kept alive: the query reads its walls */
} NavObject;

static PyObject *Nav_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)args;
    (void)kwds;
    NavObject *n = (NavObject *)type->tp_alloc(type, 0);
    if (n) {
        n->nav = NULL;
        n->sim = NULL;
    }
    return (PyObject *)n;
}

/* Nav(simulator) */
static int Nav_init(NavObject *n, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"simulator", NULL};
    PyObject *so;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Navigator", kwlist, &so)) {
        return -1;
    }
    if (n->nav) {
        PyErr_SetString(PyExc_RuntimeError, "Navigator.__init__ called twice");
        return -1;
    }
    if (!PyObject_TypeCheck(so, &SimType)) {
        PyErr_Format(PyExc_TypeError, "simulator must be an orca.Simulator (or a scenario's "
                     "simulation), got %.100s", Py_TYPE(so)->tp_name);
        return -1;
    }
    SimObject *s = (SimObject *)so;
    if (sim_ready(s) < 0) {
        return -1;
    }
    orca_status st = orca_nav_create(s->sim, &n->nav);
    if (st != ORCA_OK) {
        n->nav = NULL;
        raise_status(st, "out of memory creating the navigation object");
        return -1;
    }
    Py_INCREF(so);
    n->sim = s;
    return 0;
}

static void Nav_dealloc(NavObject *n)
{
    orca_nav_destroy(n->nav);
    n->nav = NULL;
    Py_CLEAR(n->sim);
    Py_TYPE(n)->tp_free((PyObject *)n);
}

static int nav_ready(NavObject *n)
{
    if (!n->nav) {
        PyErr_SetString(PyExc_RuntimeError, "the navigator is not initialised");
        return -1;
    }
    return sim_ready(n->sim);
}

static PyObject *nav_fail(NavObject *n, int st)
{
    return raise_status(st, orca_nav_last_error(n->nav));
}

/* path(radius, start, goals) -> (result, length, goal_index, corner rows bytearray); length
 * and goal_index None unless the result is 'ok'. The query runs without the GIL (a first
 * query for a radius builds the graph: milliseconds to seconds); meanwhile the simulation is
 * busy (other calls on it from other threads raise RuntimeError), as during a step. */
static PyObject *Nav_path(NavObject *n, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"radius", "start", "goals", NULL};
    PyObject *ro, *so, *go;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO:path", kwlist, &ro, &so, &go)) {
        return NULL;
    }
    if (nav_ready(n) < 0) {
        return NULL;
    }
    double radius;
    orca_vec2 start;
    if (get_double(ro, "radius", &radius) < 0 || get_vec2(so, "start", &start) < 0 ||
        check_bulk(go, "path", "goals", ORCA_NAV_GOALS_MAX,
                   "the 65536 goals of a query (ORCA_NAV_GOALS_MAX)", ROW_BYTES_POINT) < 0) {
        return NULL;
    }
    double *goals = NULL;
    Py_ssize_t count = 0;
    if (get_rows(go, "goals", 2, 0, &goals, &count) < 0) {
        return NULL;
    }
    static const orca_vec2 none = {0.0, 0.0}; /* count 0: the library names it */
    const orca_vec2 *g = count > 0 ? (const orca_vec2 *)(void *)goals : &none;
    int capacity = 64, corners = 0, index = -1;
    orca_nav_corner *c = malloc((size_t)capacity * sizeof *c);
    if (!c) {
        free(goals);
        return PyErr_NoMemory();
    }
    orca_nav_result result = ORCA_NAV_NO_PATH;
    double length = 0.0;
    orca_status st;
    *n->sim->busy = 1;
    for (;;) {
        Py_BEGIN_ALLOW_THREADS
        st = orca_nav_path(n->nav, radius, start, g, (int)count, &result, &length, &index, c,
                           capacity, &corners);
        Py_END_ALLOW_THREADS
        if (st != ORCA_OK || result != ORCA_NAV_OK || corners <= capacity) {
            break;
        }
        orca_nav_corner *more = realloc(c, (size_t)corners * sizeof *c); /* asked again: the
                                                                             graph is kept */
        if (!more) {
            break;
        }
        c = more;
        capacity = corners;
    }
    *n->sim->busy = 0;
    free(goals);
    if (st != ORCA_OK) {
        free(c);
        return nav_fail(n, st);
    }
    if (result == ORCA_NAV_OK && corners > capacity) {
        free(c);
        return PyErr_NoMemory();
    }
    PyObject *rows = corner_rows(c, result == ORCA_NAV_OK ? corners : 0);
    free(c);
    PyObject *name = rows ? nav_result_str(result) : NULL;
    if (!name) {
        Py_XDECREF(rows);
        return NULL;
    }
    if (result != ORCA_NAV_OK) {
        return Py_BuildValue("(NOON)", name, Py_None, Py_None, rows);
    }
    return Py_BuildValue("(NdiN)", name, length, index, rows);
}

/* stats(radius) -> (walls, vertices, legs, bytes) */
static PyObject *Nav_stats(NavObject *n, PyObject *arg)
{
    if (nav_ready(n) < 0) {
        return NULL;
    }
    double radius;
    if (get_double(arg, "radius", &radius) < 0) {
        return NULL;
    }
    orca_nav_stats out;
    orca_status st;
    *n->sim->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = orca_nav_stats_get(n->nav, radius, &out);
    Py_END_ALLOW_THREADS
    *n->sim->busy = 0;
    if (st != ORCA_OK) {
        return nav_fail(n, st);
    }
    return Py_BuildValue("(iiin)", out.walls, out.vertices, out.legs, (Py_ssize_t)out.bytes);
}

static PyObject *Nav_get_simulator(NavObject *n, void *closure)
{
    (void)closure;
    if (!n->sim) {
        Py_RETURN_NONE;
    }
    Py_INCREF(n->sim);
    return (PyObject *)n->sim;
}

static PyMethodDef Nav_methods[] = {
    {"path", (PyCFunction)(void (*)(void))Nav_path, METH_VARARGS | METH_KEYWORDS,
     "path($self, radius, start, goals)\n--\n\nReturns (result, length, goal_index, "
     "corner rows bytes)"},
    {"stats", (PyCFunction)Nav_stats, METH_O,
     "stats($self, radius, /)\n--\n\nReturns (walls, vertices, legs, bytes)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Nav_getset[] = {
    {"simulator", (getter)Nav_get_simulator, NULL, "the simulation whose walls it reads", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject NavType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orca._core.Nav",
    .tp_basicsize = sizeof(NavObject),
    .tp_dealloc = (destructor)Nav_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Low-level path query object; use orca.Navigator.",
    .tp_methods = Nav_methods,
    .tp_getset = Nav_getset,
    .tp_init = (initproc)Nav_init,
    .tp_new = Nav_new,
};
