/* SPDX-License-Identifier: MIT */
/* orca._core.Scenario's goal sets, exits and navigation (docs/navigation.md). */
#include "_core.h"

#include <stdlib.h>
#include <string.h>

/* The UTF-8 text of a str (what: its name in a message), NULL with TypeError or ValueError
 * (a NUL inside, which C would cut the name at). */
static const char *str_arg(PyObject *obj, const char *what)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str, got %.100s", what, Py_TYPE(obj)->tp_name);
        return NULL;
    }
    Py_ssize_t size = 0;
    const char *text = PyUnicode_AsUTF8AndSize(obj, &size);
    if (text && strlen(text) != (size_t)size) {
        PyErr_Format(PyExc_ValueError, "%s must not contain a NUL character, got %R", what, obj);
        return NULL;
    }
    return text;
}

/* A goal set named by its name (str) or its index (int) into *out (an index the library then
 * checks); an unknown name is orca.ArgumentError. */
int get_goal_set(ScenarioObject *s, PyObject *obj, int *out)
{
    if (PyUnicode_Check(obj)) {
        const char *name = str_arg(obj, "goal_set");
        if (!name) {
            return -1;
        }
        *out = orca_scenario_goal_set_find(s->sc, name);
        if (*out < 0) {
            char msg[160];
            PyOS_snprintf(msg, sizeof msg, "unknown goal set '%.63s' (the scenario has %d; "
                          "add_goal_set adds one)", name, orca_scenario_goal_set_count(s->sc));
            raise_status(ORCA_ERR_ARGUMENT, msg);
            return -1;
        }
        return 0;
    }
    if (PyFloat_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "goal_set must be a set's name (str) or index (int), got "
                     "%.100s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    return get_int(obj, "goal_set", INT32_MIN, INT32_MAX, out);
}

/* The exit arrive distance, checked before a set is added so that a refusal adds nothing:
 * 0 (the agent's radius) or in [2^-30, 2^23] m, orca_scenario_set_goal_set_exit's range and
 * message. */
static int check_exit_arrive(double d)
{
    if (d == 0.0 || (d >= 0x1.0p-30 && d <= 0x1.0p23)) {
        return 0;
    }
    char msg[160];
    PyOS_snprintf(msg, sizeof msg, "arrive_distance must be 0 (the agent's radius) or in "
                  "[2^-30, 2^23] m, got %.17g", d);
    raise_status(ORCA_ERR_ARGUMENT, msg);
    return -1;
}

PyObject *Scenario_get_navigation(ScenarioObject *s, void *closure)
{
    (void)closure;
    SC_READY(s);
    return PyBool_FromLong(orca_scenario_get_navigation(s->sc));
}

/* A bool property's setter: value's truth to set (what: the property's name). */
static int set_on_off(ScenarioObject *s, PyObject *value, const char *what,
                      orca_status (*set)(orca_scenario *, int))
{
    if (!value) {
        PyErr_Format(PyExc_AttributeError, "cannot delete %s", what);
        return -1;
    }
    if (sc_ready(s) < 0) {
        return -1;
    }
    int on = PyObject_IsTrue(value);
    if (on < 0) {
        return -1;
    }
    orca_status st = set(s->sc, on);
    if (st != ORCA_OK) {
        sc_fail(s, st);
        return -1;
    }
    return 0;
}

int Scenario_set_navigation(ScenarioObject *s, PyObject *value, void *closure)
{
    (void)closure;
    return set_on_off(s, value, "navigation", orca_scenario_set_navigation);
}

PyObject *Scenario_get_nav_unreachable(ScenarioObject *s, void *closure)
{
    (void)closure;
    SC_READY(s);
    return PyLong_FromLong(orca_scenario_nav_unreachable(s->sc));
}

/* add_goal_set(name, points, exit=False, arrive_distance=0.0) -> index */
PyObject *Scenario_add_goal_set(ScenarioObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"name", "points", "exit", "arrive_distance", NULL};
    PyObject *name, *pts, *ao = NULL;
    int exit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|pO:add_goal_set", kwlist, &name, &pts,
                                     &exit, &ao)) {
        return NULL;
    }
    SC_READY(s);
    const char *cname = str_arg(name, "name");
    double arrive = 0.0;
    if (!cname || (ao && get_double(ao, "arrive_distance", &arrive) < 0)) {
        return NULL;
    }
    if (!exit && arrive != 0.0) {
        raise_status(ORCA_ERR_ARGUMENT, "arrive_distance is for exits: pass exit=True with it");
        return NULL;
    }
    if (check_exit_arrive(arrive) < 0 ||
        check_bulk(pts, "add_goal_set", "points", ORCA_NAV_GOALS_MAX,
                   "the 65536 points of a goal set (ORCA_NAV_GOALS_MAX)", ROW_BYTES_POINT) < 0) {
        return NULL;
    }
    double *rows = NULL;
    Py_ssize_t n = 0;
    if (get_rows(pts, "points", 2, 0, &rows, &n) < 0) {
        return NULL;
    }
    int index = -1;
    orca_status st = orca_scenario_add_goal_set(s->sc, cname, (const orca_vec2 *)(void *)rows,
                                                (int)n, &index);
    free(rows);
    if (st == ORCA_OK && exit) {
        st = orca_scenario_set_goal_set_exit(s->sc, index, arrive); /* checked above */
    }
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    return PyLong_FromLong(index);
}

/* set_goal_set_exit(set, arrive_distance=0.0) */
PyObject *Scenario_set_goal_set_exit(ScenarioObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"set", "arrive_distance", NULL};
    PyObject *so, *ao = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:set_goal_set_exit", kwlist, &so, &ao)) {
        return NULL;
    }
    SC_READY(s);
    int set;
    double arrive = 0.0;
    if (get_goal_set(s, so, &set) < 0 ||
        (ao && get_double(ao, "arrive_distance", &arrive) < 0)) {
        return NULL;
    }
    orca_status st = orca_scenario_set_goal_set_exit(s->sc, set, arrive);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* goal_set_count() -> int */
PyObject *Scenario_goal_set_count(ScenarioObject *s, PyObject *unused)
{
    (void)unused;
    SC_READY(s);
    return PyLong_FromLong(orca_scenario_goal_set_count(s->sc));
}

/* goal_set_get(set) -> (index, name, points bytearray (x y per point), exit, arrive_distance) */
PyObject *Scenario_goal_set_get(ScenarioObject *s, PyObject *arg)
{
    SC_READY(s);
    int set, n = 0, exit = 0;
    const char *name = NULL;
    double arrive = 0.0;
    if (get_goal_set(s, arg, &set) < 0) {
        return NULL;
    }
    orca_status st = orca_scenario_goal_set_get(s->sc, set, &name, NULL, 0, &n);
    if (st == ORCA_OK) {
        st = orca_scenario_goal_set_exit(s->sc, set, &exit, &arrive);
    }
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n * 16);
    if (!b) {
        return NULL;
    }
    st = orca_scenario_goal_set_get(s->sc, set, NULL,
                                    (orca_vec2 *)(void *)PyByteArray_AS_STRING(b), n, &n);
    if (st != ORCA_OK) {
        Py_DECREF(b);
        return sc_fail(s, st);
    }
    return Py_BuildValue("(isNOd)", set, name, b, exit ? Py_True : Py_False, arrive);
}

/* exited() -> (count, last_step) */
PyObject *Scenario_exited(ScenarioObject *s, PyObject *unused)
{
    (void)unused;
    SC_READY(s);
    int count = 0;
    int64_t last = -1;
    orca_status st = orca_scenario_exited(s->sc, &count, &last);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    return Py_BuildValue("(iL)", count, (long long)last);
}

/* agent_nav(index) -> (navigating, result or None before a plan, corner, corners, length,
 * plans, reroutes, (goal x, y), corner rows bytearray) */
PyObject *Scenario_agent_nav(ScenarioObject *s, PyObject *arg)
{
    SC_READY(s);
    int i;
    if (get_int(arg, "index", INT32_MIN, INT32_MAX, &i) < 0) {
        return NULL;
    }
    orca_nav_agent a;
    orca_status st = orca_scenario_agent_nav(s->sc, i, &a, NULL, 0);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    orca_nav_corner *c = NULL;
    if (a.corners > 0) {
        c = malloc((size_t)a.corners * sizeof *c);
        if (!c) {
            return PyErr_NoMemory();
        }
        st = orca_scenario_agent_nav(s->sc, i, &a, c, a.corners);
        if (st != ORCA_OK) {
            free(c);
            return sc_fail(s, st);
        }
    }
    PyObject *rows = corner_rows(c, a.corners);
    free(c);
    if (!rows) {
        return NULL;
    }
    PyObject *result = NULL;
    if (a.plans > 0) {
        result = nav_result_str(a.result);
        if (!result) {
            Py_DECREF(rows);
            return NULL;
        }
    } else {
        result = Py_None;
        Py_INCREF(result);
    }
    return Py_BuildValue("(ONiidii(dd)N)", a.navigating ? Py_True : Py_False, result, a.corner,
                         a.corners, a.length, a.plans, a.reroutes, a.goal.x, a.goal.y, rows);
}

/* The leg check (orca_scenario_set_nav_check; docs/navigation.md, "Following a path"). */
PyObject *Scenario_get_nav_check(ScenarioObject *s, void *closure)
{
    (void)closure;
    SC_READY(s);
    return PyBool_FromLong(orca_scenario_get_nav_check(s->sc));
}

int Scenario_set_nav_check(ScenarioObject *s, PyObject *value, void *closure)
{
    (void)closure;
    return set_on_off(s, value, "nav_check", orca_scenario_set_nav_check);
}

/* The exit choice by name: 'nearest', 'calm' or 'quickest' (orca_exit_choice_name). */
PyObject *Scenario_get_exit_choice(ScenarioObject *s, void *closure)
{
    (void)closure;
    SC_READY(s);
    return PyUnicode_FromString(orca_exit_choice_name(orca_scenario_get_exit_choice(s->sc)));
}

int Scenario_set_exit_choice(ScenarioObject *s, PyObject *value, void *closure)
{
    (void)closure;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete exit_choice");
        return -1;
    }
    if (sc_ready(s) < 0) {
        return -1;
    }
    const char *name = str_arg(value, "exit_choice");
    if (!name) {
        return -1;
    }
    int choice = orca_exit_choice_from_name(name);
    if (choice < 0) {
        char msg[160];
        PyOS_snprintf(msg, sizeof msg, "exit_choice must be 'nearest', 'calm' or 'quickest', "
                      "got '%.63s'", name);
        raise_status(ORCA_ERR_ARGUMENT, msg);
        return -1;
    }
    orca_status st = orca_scenario_set_exit_choice(s->sc, choice);
    if (st != ORCA_OK) {
        sc_fail(s, st);
        return -1;
    }
    return 0;
}

/* set_goal_set_capacity(set, capacity) */
PyObject *Scenario_set_goal_set_capacity(ScenarioObject *s, PyObject *args)
{
    PyObject *so, *co;
    if (!PyArg_ParseTuple(args, "OO:set_goal_set_capacity", &so, &co)) {
        return NULL;
    }
    SC_READY(s);
    int set;
    double capacity = 0.0;
    if (get_goal_set(s, so, &set) < 0 || get_double(co, "capacity", &capacity) < 0) {
        return NULL;
    }
    orca_status st = orca_scenario_set_goal_set_capacity(s->sc, set, capacity);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* goal_set_capacity(set) -> float */
PyObject *Scenario_goal_set_capacity(ScenarioObject *s, PyObject *arg)
{
    SC_READY(s);
    int set;
    double capacity = 0.0;
    if (get_goal_set(s, arg, &set) < 0) {
        return NULL;
    }
    orca_status st = orca_scenario_goal_set_capacity(s->sc, set, &capacity);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    return PyFloat_FromDouble(capacity);
}

/* exit_departures(set, point) -> (count, last_step) */
PyObject *Scenario_exit_departures(ScenarioObject *s, PyObject *args)
{
    PyObject *so;
    int point;
    if (!PyArg_ParseTuple(args, "Oi:exit_departures", &so, &point)) {
        return NULL;
    }
    SC_READY(s);
    int set, count = 0;
    int64_t last = -1;
    if (get_goal_set(s, so, &set) < 0) {
        return NULL;
    }
    orca_status st = orca_scenario_exit_departures(s->sc, set, point, &count, &last);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    return Py_BuildValue("(iL)", count, (long long)last);
}

/* nav_counts() -> dict of orca_nav_counts's fields */
PyObject *Scenario_nav_counts(ScenarioObject *s, PyObject *unused)
{
    (void)unused;
    SC_READY(s);
    orca_nav_counts c;
    orca_status st = orca_scenario_nav_counts(s->sc, &c);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    return Py_BuildValue("{sLsLsLsLsLsisisisisisi}", "plans", (long long)c.plans, "reroutes",
                         (long long)c.reroutes, "replans", (long long)c.replans, "exit_changes",
                         (long long)c.exit_changes, "exit_returns", (long long)c.exit_returns,
                         "agents_changed", c.agents_changed, "most_changes", c.most_changes,
                         "exited", c.exited, "at_exits", c.at_exits, "arrived", c.arrived,
                         "unreachable", c.unreachable);
}
