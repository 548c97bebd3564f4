/* SPDX-License-Identifier: MIT */
/* orca._core.Scenario (orca.Scenario's base): its life cycle, step, agents and goals,
 * waypoints, record and snapshots; goal sets, exits and navigation are in _scenario_nav.c,
 * the method and property tables at the end of this file. */
#include "_core.h"

#include <stdlib.h>

int sc_ready(ScenarioObject *s)
{
    if (!s->sc) {
        PyErr_SetString(PyExc_RuntimeError, "the scenario is not initialised");
        return -1;
    }
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the scenario is stepping in another thread (use one thread at a time)");
        return -1;
    }
    return 0;
}

static PyObject *Scenario_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)args;
    (void)kwds;
    ScenarioObject *s = (ScenarioObject *)type->tp_alloc(type, 0);
    if (s) {
        s->sc = NULL;
        s->busy = 0;
    }
    return (PyObject *)s;
}

/* Scenario(scene=None, agents=0, seed=1, workers=1, dt=None): a built-in scene by name, or
 * with scene None an empty scenario with step dt (required) and seed. */
static int Scenario_init(ScenarioObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"scene", "agents", "seed", "workers", "dt", "pedestrian", NULL};
    PyObject *scene = Py_None, *ao = NULL, *so = NULL, *wo = NULL, *dto = Py_None;
    int pedestrian = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOOOOp:Scenario", kwlist, &scene, &ao, &so,
                                     &wo, &dto, &pedestrian)) {
        return -1;
    }
    if (s->sc) {
        PyErr_SetString(PyExc_RuntimeError, "Scenario.__init__ called twice");
        return -1;
    }
    orca_sim_def def = orca_sim_def_default();
    int agents = 0;
    unsigned long long seed = 1;
    if (wo && get_int(wo, "workers", 1, ORCA_MAX_WORKERS, &def.worker_count) < 0) {
        return -1;
    }
    if (ao && get_int(ao, "agents", 0, INT32_MAX, &agents) < 0) {
        return -1;
    }
    if (so && get_seed(so, &seed) < 0) {
        return -1;
    }
    orca_scenario *sc = NULL;
    orca_status st;
    if (scene == Py_None) {
        double dt = ORCA_PEDESTRIAN_DT; /* the preset's, when the scenario gives none */
        if (dto == Py_None && !pedestrian) {
            PyErr_SetString(PyExc_TypeError, "Scenario() without a scene needs dt (or "
                            "pedestrian=True)");
            return -1;
        }
        if (dto != Py_None && get_double(dto, "dt", &dt) < 0) {
            return -1;
        }
        st = orca_scenario_create(&def, dt, seed, &sc);
    } else {
        if (dto != Py_None) {
            PyErr_SetString(PyExc_TypeError, "a built-in scene has its own dt (pass dt only "
                            "without a scene)");
            return -1;
        }
        if (!PyUnicode_Check(scene)) {
            PyErr_Format(PyExc_TypeError, "scene must be a name (str), got %.100s",
                         Py_TYPE(scene)->tp_name);
            return -1;
        }
        const char *name = PyUnicode_AsUTF8(scene);
        if (!name) {
            return -1;
        }
        int kind = orca_scene_from_name(name);
        if (kind < 0) {
            PyErr_Format(PyExc_ValueError, "unknown scene %R (circle, crossing, wallgap, "
                         "corridor, random)", scene);
            return -1;
        }
        st = orca_scenario_create_builtin((orca_scene_kind)kind, agents, seed, &def, &sc);
    }
    if (st != ORCA_OK) {
        raise_status(st, orca_scenario_last_error(NULL));
        return -1;
    }
    if (pedestrian) {
        orca_pedestrian p = orca_pedestrian_default();
        st = orca_scenario_set_pedestrian(sc, &p);
        if (st != ORCA_OK) {
            raise_status(st, orca_scenario_last_error(sc));
            orca_scenario_destroy(sc);
            return -1;
        }
    }
    s->sc = sc;
    return 0;
}

static void Scenario_dealloc(ScenarioObject *s)
{
    orca_scenario_destroy(s->sc);
    s->sc = NULL;
    Py_TYPE(s)->tp_free((PyObject *)s);
}

PyObject *sc_fail(ScenarioObject *s, int st)
{
    return raise_status(st, orca_scenario_last_error(s->sc));
}

/* _simulation(cls): a cls (a subclass of Sim) viewing the scenario's simulation; it keeps
 * the scenario alive and shares its busy flag. */
static PyObject *Scenario_simulation(ScenarioObject *s, PyObject *cls)
{
    SC_READY(s);
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &SimType)) {
        PyErr_SetString(PyExc_TypeError, "expected a subclass of orca._core.Sim");
        return NULL;
    }
    PyTypeObject *t = (PyTypeObject *)cls;
    SimObject *o = (SimObject *)t->tp_alloc(t, 0);
    if (!o) {
        return NULL;
    }
    o->sim = orca_scenario_sim(s->sc);
    Py_INCREF(s);
    o->owner = (PyObject *)s;
    o->busy = &s->busy;
    o->own_busy = 0;
    return (PyObject *)o;
}

static PyObject *Scenario_step(ScenarioObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"steps", NULL};
    PyObject *so = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:step", kwlist, &so)) {
        return NULL;
    }
    SC_READY(s);
    int steps = 1;
    if (so && get_int(so, "steps", 0, INT32_MAX, &steps) < 0) {
        return NULL;
    }
    orca_status st = ORCA_OK;
    int interrupted = 0;
    s->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    for (int k = 0; k < steps; ++k) {
        st = orca_scenario_step(s->sc);
        if (st != ORCA_OK) {
            break;
        }
        if (k + 1 < steps) {
            Py_BLOCK_THREADS
            interrupted = PyErr_CheckSignals() < 0;
            Py_UNBLOCK_THREADS
            if (interrupted) {
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    s->busy = 0;
    if (interrupted) {
        return NULL;
    }
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* The goal of add_agent: kind 'point', 'velocity', 'none' or 'set' (set: goal_set names the
 * set, by name or index; it takes no target). */
static int get_goal(ScenarioObject *s, PyObject *kind, PyObject *target, PyObject *speed,
                    PyObject *set, orca_goal *g)
{
    *g = orca_goal_default(); /* preferred_speed: the default unless given */
    if (!PyUnicode_Check(kind)) {
        PyErr_Format(PyExc_TypeError, "goal must be 'point', 'velocity', 'none' or 'set', got "
                     "%.100s", Py_TYPE(kind)->tp_name);
        return -1;
    }
    if (PyUnicode_CompareWithASCIIString(kind, "point") == 0) {
        g->kind = ORCA_GOAL_POINT;
    } else if (PyUnicode_CompareWithASCIIString(kind, "velocity") == 0) {
        g->kind = ORCA_GOAL_VELOCITY;
    } else if (PyUnicode_CompareWithASCIIString(kind, "none") == 0) {
        g->kind = ORCA_GOAL_NONE;
    } else if (PyUnicode_CompareWithASCIIString(kind, "set") == 0) {
        g->kind = ORCA_GOAL_SET;
    } else {
        PyErr_Format(PyExc_ValueError, "goal must be 'point', 'velocity', 'none' or 'set', got %R",
                     kind);
        return -1;
    }
    if (g->kind == ORCA_GOAL_SET) {
        if (set == Py_None) {
            PyErr_SetString(PyExc_TypeError, "a 'set' goal needs goal_set (a set's name or index)");
            return -1;
        }
        if (target != Py_None) {
            PyErr_SetString(PyExc_TypeError, "a 'set' goal takes goal_set, not target");
            return -1;
        }
        if (get_goal_set(s, set, &g->goal_set) < 0) {
            return -1;
        }
    } else if (set != Py_None) {
        PyErr_Format(PyExc_TypeError, "goal_set is for a 'set' goal, not %R", kind);
        return -1;
    }
    if (target != Py_None && get_vec2(target, "target", &g->target) < 0) {
        return -1;
    }
    if ((g->kind == ORCA_GOAL_POINT || g->kind == ORCA_GOAL_VELOCITY) && target == Py_None) {
        PyErr_SetString(PyExc_TypeError, "a 'point' or 'velocity' goal needs target");
        return -1;
    }
    if (speed != Py_None && get_double(speed, "preferred_speed", &g->preferred_speed) < 0) {
        return -1;
    }
    return 0;
}

const char *goal_name(orca_goal_kind k)
{
    return k == ORCA_GOAL_POINT      ? "point"
           : k == ORCA_GOAL_VELOCITY ? "velocity"
           : k == ORCA_GOAL_SET      ? "set"
                                     : "none";
}

/* add_agent(position, goal=None, target=None, preferred_speed=None, goal_set=None,
 * **agent fields) */
static PyObject *Scenario_add_agent(ScenarioObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"position", "goal", "target", "preferred_speed", "velocity",
                             "radius", "max_speed", "neighbor_dist", "max_neighbors",
                             "time_horizon", "obstacle_time_horizon", "goal_set", NULL};
    PyObject *pos, *kind = NULL, *target = Py_None, *speed = Py_None, *set = Py_None;
    agent_args a = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOOOOOOOOOO:add_agent", kwlist, &pos, &kind,
                                     &target, &speed, &a.velocity, &a.radius, &a.max_speed,
                                     &a.neighbor_dist, &a.max_neighbors, &a.time_horizon,
                                     &a.obstacle_time_horizon, &set)) {
        return NULL;
    }
    SC_READY(s);
    /* the defaults: the pedestrian preset's agent and a drawn free speed while the model is
     * on (docs/pedestrians.md, "The preset"), else the library's */
    orca_agent_def d = orca_agent_def_default();
    double free_speed = 0;
    int preset = orca_sim_get_pedestrian(orca_scenario_sim(s->sc), NULL);
    if (preset) {
        orca_scenario_pedestrian_agent(s->sc, &d, &free_speed);
    }
    orca_goal g;
    PyObject *point = NULL;
    if (!kind || kind == Py_None) {
        point = PyUnicode_FromString(set != Py_None ? "set" : target == Py_None ? "none" : "point");
        if (!point) {
            return NULL;
        }
        kind = point;
    }
    int bad = get_vec2(pos, "position", &d.position) < 0 || fill_def(&a, &d) < 0 ||
              get_goal(s, kind, target, speed, set, &g) < 0;
    Py_XDECREF(point);
    if (bad) {
        return NULL;
    }
    if (preset && speed == Py_None) {
        g.preferred_speed = free_speed;
    }
    orca_agent_id id;
    orca_status st = orca_scenario_add_agent(s->sc, &d, &g, &id);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    return handle_int(id.slot, id.generation, id.sim);
}

/* set_pedestrian(time_gap=None, buffer=None, counter_reach=None, max_planes=None): the
 * pedestrian preset on (orca_scenario_set_pedestrian), each None keeping the value in use
 * (the default when off); clear_pedestrian() turns the model off. */
static PyObject *Scenario_set_pedestrian(ScenarioObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"time_gap", "buffer", "counter_reach", "max_planes", NULL};
    PyObject *obj[4] = {Py_None, Py_None, Py_None, Py_None};
    SC_READY(s);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOOO:set_pedestrian", kwlist, &obj[0],
                                     &obj[1], &obj[2], &obj[3])) {
        return NULL;
    }
    orca_pedestrian p;
    orca_sim_get_pedestrian(orca_scenario_sim(s->sc), &p);
    if (get_pedestrian(obj, &p) < 0) {
        return NULL;
    }
    orca_status st = orca_scenario_set_pedestrian(s->sc, &p);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

static PyObject *Scenario_clear_pedestrian(ScenarioObject *s, PyObject *unused)
{
    (void)unused;
    SC_READY(s);
    orca_scenario_set_pedestrian(s->sc, NULL); /* always accepted */
    Py_RETURN_NONE;
}

/* set_goal(index, goal=None, target=None, preferred_speed=None, goal_set=None): the agent's
 * new goal (orca_scenario_set_agent_goal); goal's default as in add_agent. */
static PyObject *Scenario_set_goal(ScenarioObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"index", "goal", "target", "preferred_speed", "goal_set", NULL};
    PyObject *idx, *kind = NULL, *target = Py_None, *speed = Py_None, *set = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOOO:set_goal", kwlist, &idx, &kind, &target,
                                     &speed, &set)) {
        return NULL;
    }
    SC_READY(s);
    int i;
    if (get_int(idx, "index", INT32_MIN, INT32_MAX, &i) < 0) {
        return NULL;
    }
    orca_goal g;
    PyObject *point = NULL;
    if (!kind || kind == Py_None) {
        point = PyUnicode_FromString(set != Py_None ? "set" : target == Py_None ? "none" : "point");
        if (!point) {
            return NULL;
        }
        kind = point;
    }
    int bad = get_goal(s, kind, target, speed, set, &g) < 0;
    Py_XDECREF(point);
    if (bad) {
        return NULL;
    }
    orca_status st = orca_scenario_set_agent_goal(s->sc, i, &g);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* agent_goal(index) -> (kind, target, preferred_speed, start, goal set name or None) */
static PyObject *Scenario_agent_goal(ScenarioObject *s, PyObject *arg)
{
    SC_READY(s);
    int i;
    if (get_int(arg, "index", INT32_MIN, INT32_MAX, &i) < 0) {
        return NULL;
    }
    orca_goal g;
    orca_vec2 start;
    orca_status st = orca_scenario_agent_goal(s->sc, i, &g, &start);
    const char *set = NULL;
    if (st == ORCA_OK && g.kind == ORCA_GOAL_SET) {
        st = orca_scenario_goal_set_get(s->sc, g.goal_set, &set, NULL, 0, NULL);
    }
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    return Py_BuildValue("(s(dd)d(dd)z)", goal_name(g.kind), g.target.x, g.target.y,
                         g.preferred_speed, start.x, start.y, set);
}

/* set_waypoints(index, points, loop=False, arrive_distance=0.0) */
static PyObject *Scenario_set_waypoints(ScenarioObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"index", "points", "loop", "arrive_distance", NULL};
    PyObject *idx, *pts;
    int loop = 0;
    double arrive = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|pd:set_waypoints", kwlist, &idx, &pts,
                                     &loop, &arrive)) {
        return NULL;
    }
    SC_READY(s);
    int i;
    if (get_int(idx, "index", INT32_MIN, INT32_MAX, &i) < 0) {
        return NULL;
    }
    double *rows = NULL;
    Py_ssize_t n = 0;
    if (pts != Py_None &&
        (check_bulk(pts, "set_waypoints", "points", ORCA_WAYPOINTS_MAX,
                    "the 2^20 (1048576) waypoints of an agent (ORCA_WAYPOINTS_MAX)",
                    ROW_BYTES_POINT) < 0 ||
         get_rows(pts, "points", 2, 0, &rows, &n) < 0)) {
        return NULL;
    }
    if (n > INT32_MAX) {
        free(rows);
        PyErr_SetString(PyExc_ValueError, "too many waypoints");
        return NULL;
    }
    orca_status st = orca_scenario_set_waypoints(s->sc, i, (const orca_vec2 *)(void *)rows,
                                                 (int)n, loop, arrive);
    free(rows);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

/* waypoints(index) -> (list of (x, y), loop, arrive_distance, current) */
static PyObject *Scenario_waypoints(ScenarioObject *s, PyObject *arg)
{
    SC_READY(s);
    int i;
    if (get_int(arg, "index", INT32_MIN, INT32_MAX, &i) < 0) {
        return NULL;
    }
    int n = 0, loop = 0, current = 0;
    double arrive = 0.0;
    orca_status st = orca_scenario_agent_waypoints(s->sc, i, NULL, 0, &n, &loop, &arrive);
    if (st == ORCA_OK) {
        st = orca_scenario_waypoint_index(s->sc, i, &current);
    }
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    orca_vec2 *p = n > 0 ? malloc((size_t)n * sizeof *p) : NULL;
    if (n > 0 && !p) {
        return PyErr_NoMemory();
    }
    if (n > 0) {
        orca_scenario_agent_waypoints(s->sc, i, p, n, &n, NULL, NULL);
    }
    PyObject *list = PyList_New(n);
    for (int k = 0; list && k < n; ++k) {
        PyObject *t = Py_BuildValue("(dd)", p[k].x, p[k].y);
        if (!t) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, k, t);
    }
    free(p);
    if (!list) {
        return NULL;
    }
    return Py_BuildValue("(NOdi)", list, loop ? Py_True : Py_False, arrive, current);
}

/* set_waypoint_index(index, current) */
static PyObject *Scenario_set_waypoint_index(ScenarioObject *s, PyObject *args)
{
    PyObject *idx, *cur;
    if (!PyArg_ParseTuple(args, "OO:set_waypoint_index", &idx, &cur)) {
        return NULL;
    }
    SC_READY(s);
    int i, c;
    if (get_int(idx, "index", INT32_MIN, INT32_MAX, &i) < 0 ||
        get_int(cur, "current", INT32_MIN, INT32_MAX, &c) < 0) {
        return NULL;
    }
    orca_status st = orca_scenario_set_waypoint_index(s->sc, i, c);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

static PyObject *Scenario_hash(ScenarioObject *s, PyObject *unused)
{
    (void)unused;
    SC_READY(s);
    return PyLong_FromUnsignedLongLong((unsigned long long)orca_scenario_hash(s->sc));
}

static PyObject *Scenario_info(ScenarioObject *s, PyObject *unused)
{
    (void)unused;
    SC_READY(s);
    double a = orca_scenario_max_agent_overlap(s->sc), w = orca_scenario_max_wall_overlap(s->sc);
    return Py_BuildValue("{s:s,s:d,s:K,s:i,s:L,s:d,s:d,s:K}", "name", orca_scenario_name(s->sc),
                         "dt", orca_scenario_dt(s->sc), "seed",
                         (unsigned long long)orca_scenario_seed(s->sc), "arrived",
                         orca_scenario_arrived_count(s->sc), "all_arrived_step",
                         (long long)orca_scenario_all_arrived_step(s->sc), "max_agent_overlap", a,
                         "max_wall_overlap", w, "fallback_total",
                         (unsigned long long)orca_scenario_fallback_total(s->sc));
}

static PyObject *Scenario_set_recording(ScenarioObject *s, PyObject *arg)
{
    SC_READY(s);
    int on = PyObject_IsTrue(arg);
    if (on < 0) {
        return NULL;
    }
    orca_status st = orca_scenario_set_recording(s->sc, on);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

static PyObject *Scenario_set_name(ScenarioObject *s, PyObject *arg)
{
    SC_READY(s);
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "name must be a str, got %.100s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name) {
        return NULL;
    }
    orca_status st = orca_scenario_set_name(s->sc, name);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

static orca_status scenario_save_fn(const void *obj, void *buffer, size_t capacity,
                                    size_t *size)
{
    return orca_scenario_save(obj, buffer, capacity, size);
}

static PyObject *Scenario_save(ScenarioObject *s, PyObject *unused)
{
    (void)unused;
    SC_READY(s);
    orca_status st;
    PyObject *b = snapshot_bytes(scenario_save_fn, s->sc, &st);
    return b || st == ORCA_OK ? b : sc_fail(s, st);
}

static PyObject *Scenario_load(ScenarioObject *s, PyObject *arg)
{
    SC_READY(s);
    Py_buffer view;
    if (snapshot_view(arg, "a scenario snapshot", &view) < 0) {
        return NULL;
    }
    orca_status st = orca_scenario_load(s->sc, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    Py_RETURN_NONE;
}

static PyMethodDef Scenario_methods[] = {
    {"_simulation", (PyCFunction)Scenario_simulation, METH_O, "the simulation inside"},
    {"step", (PyCFunction)(void (*)(void))Scenario_step, METH_VARARGS | METH_KEYWORDS,
     "step($self, steps=1)\n--\n\nAdvances dt s (2^-30 .. 2^30), steps times; "
     "releases the GIL."},
    {"add_agent", (PyCFunction)(void (*)(void))Scenario_add_agent, METH_VARARGS | METH_KEYWORDS,
     "add_agent($self, position, goal=None, target=None, preferred_speed=None, "
     "goal_set=None, **fields)\n--\n\nReturns handle"},
    {"set_pedestrian", (PyCFunction)(void (*)(void))Scenario_set_pedestrian,
     METH_VARARGS | METH_KEYWORDS,
     "set_pedestrian($self, time_gap=None, buffer=None, counter_reach=None, "
     "max_planes=None)\n--\n\nTurns the pedestrian preset on (docs/pedestrians.md): the "
     "model (time_gap in s, buffer in m, counter_reach in m, max_planes a count; None keeps "
     "the value in use), goal-set agents' streams, and the preset's defaults for agents "
     "added afterwards."},
    {"clear_pedestrian", (PyCFunction)Scenario_clear_pedestrian, METH_NOARGS,
     "clear_pedestrian($self, /)\n--\n\nTurns the pedestrian model off."},
    {"set_goal", (PyCFunction)(void (*)(void))Scenario_set_goal, METH_VARARGS | METH_KEYWORDS,
     "set_goal($self, index, goal=None, target=None, preferred_speed=None, "
     "goal_set=None)\n--\n\nGives the agent at index a new goal (checked as a new "
     "agent's): target (x, y) in m or a goal_set, preferred_speed in m/s."},
    {"agent_goal", (PyCFunction)Scenario_agent_goal, METH_O,
     "agent_goal($self, index, /)\n--\n\nReturns (kind, target, preferred_speed, "
     "start, goal set name or None)"},
    {"add_goal_set", (PyCFunction)(void (*)(void))Scenario_add_goal_set,
     METH_VARARGS | METH_KEYWORDS,
     "add_goal_set($self, name, points, exit=False, "
     "arrive_distance=0.0)\n--\n\nReturns index"},
    {"set_goal_set_exit", (PyCFunction)(void (*)(void))Scenario_set_goal_set_exit,
     METH_VARARGS | METH_KEYWORDS, "set_goal_set_exit($self, set, arrive_distance=0.0)\n--\n\nMakes the goal set "
     "an exit: agents within arrive_distance (m) of one of its points leave."},
    {"goal_set_count", (PyCFunction)Scenario_goal_set_count, METH_NOARGS, "goal_set_count($self, /)\n--\n\nReturns the number of goal sets."},
    {"goal_set_get", (PyCFunction)Scenario_goal_set_get, METH_O,
     "goal_set_get($self, name or index, /)\n--\n\nReturns the goal set given by "
     "name or index: (index, name, points as float64 bytes of (x, y) in m, exit, "
     "arrive_distance in m)."},
    {"exited", (PyCFunction)Scenario_exited, METH_NOARGS, "exited($self, /)\n--\n\nReturns (count, last_step)"},
    {"set_goal_set_capacity", (PyCFunction)Scenario_set_goal_set_capacity, METH_VARARGS,
     "set_goal_set_capacity($self, set, capacity, /)\n--\n\nSets the capacity of each point "
     "of an exit set (agents a second) for the quickest exit choice."},
    {"goal_set_capacity", (PyCFunction)Scenario_goal_set_capacity, METH_O,
     "goal_set_capacity($self, set, /)\n--\n\nReturns the capacity of each point of the set "
     "(agents a second)."},
    {"exit_departures", (PyCFunction)Scenario_exit_departures, METH_VARARGS,
     "exit_departures($self, set, point_index, /)\n--\n\nReturns (count, last_step) of the "
     "agents that left by that point of the exit set."},
    {"nav_counts", (PyCFunction)Scenario_nav_counts, METH_NOARGS,
     "nav_counts($self, /)\n--\n\nReturns navigation's counts over the whole run (a dict)."},
    {"agent_nav", (PyCFunction)Scenario_agent_nav, METH_O,
     "agent_nav($self, index, /)\n--\n\nReturns (navigating, result, corner, "
     "corners, length, plans, reroutes, goal, corner rows bytes)"},
    {"set_waypoints", (PyCFunction)(void (*)(void))Scenario_set_waypoints,
     METH_VARARGS | METH_KEYWORDS,
     "set_waypoints($self, index, points, loop=False, "
     "arrive_distance=0.0)\n--\n\nGives the agent at index waypoints (points (x, y) "
     "in m), loop or not; arrive_distance in m."},
    {"waypoints", (PyCFunction)Scenario_waypoints, METH_O,
     "waypoints($self, index, /)\n--\n\nReturns (points, loop, arrive_distance, "
     "current)"},
    {"set_waypoint_index", (PyCFunction)Scenario_set_waypoint_index, METH_VARARGS,
     "set_waypoint_index($self, index, current, /)\n--\n\nSets which waypoint the "
     "agent at index heads for (current; len(points) = its goal)."},
    {"hash", (PyCFunction)Scenario_hash, METH_NOARGS, "hash($self, /)\n--\n\nOrca_scenario_hash"},
    {"info", (PyCFunction)Scenario_info, METH_NOARGS, "info($self, /)\n--\n\nReturns the record (a dict)."},
    {"set_recording", (PyCFunction)Scenario_set_recording, METH_O, "set_recording($self, on, /)\n--\n\nTurns the per-step recording (overlaps, "
     "arrivals) on or off."},
    {"set_name", (PyCFunction)Scenario_set_name, METH_O, "set_name($self, name, /)\n--\n\nSets the scenario's name (a string)."},
    {"save", (PyCFunction)Scenario_save, METH_NOARGS, "save($self, /)\n--\n\nReturns bytes"},
    {"load", (PyCFunction)Scenario_load, METH_O, "load($self, bytes, /)\n--\n\nReplaces the state with a snapshot of save() "
     "(bytes); damaged bytes raise and change nothing."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Scenario_getset[] = {
    {"navigation", (getter)Scenario_get_navigation, (setter)Scenario_set_navigation,
     "navigation on or off (bool; off at creation): agents with a point or set goal walk along "
     "shortest paths round the walls (docs/navigation.md)",
     NULL},
    {"nav_unreachable", (getter)Scenario_get_nav_unreachable, NULL,
     "agents whose last plan found no path (orca_scenario_nav_unreachable)", NULL},
    {"nav_check", (getter)Scenario_get_nav_check, (setter)Scenario_set_nav_check,
     "the leg check on or off (bool; off at creation): an agent without progress whose leg is "
     "blocked by a wall plans again (docs/navigation.md)",
     NULL},
    {"exit_choice", (getter)Scenario_get_exit_choice, (setter)Scenario_set_exit_choice,
     "how goal-set agents choose their point: 'nearest' (at creation), 'calm' or 'quickest' "
     "(docs/navigation.md, \"Exit choice\")",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ScenarioType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orca._core.Scenario",
    .tp_basicsize = sizeof(ScenarioObject),
    .tp_dealloc = (destructor)Scenario_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Low-level scenario object; use orca.Scenario.",
    .tp_methods = Scenario_methods,
    .tp_getset = Scenario_getset,
    .tp_init = (initproc)Scenario_init,
    .tp_new = Scenario_new,
};
