/* SPDX-License-Identifier: MIT */
/* orca._core.Sim's walls: segments (one, a polyline, many) and walkable-area boundary loops
 * (docs/extensions.md, "Walkable-area boundaries"). */
#include "_core.h"

#include <limits.h>
#include <stdlib.h>

/* --- segments ----------------------------------------------------------------------------- */

PyObject *Sim_add_segment(SimObject *s, PyObject *args)
{
    PyObject *ao, *bo;
    if (!PyArg_UnpackTuple(args, "add_segment", 2, 2, &ao, &bo)) {
        return NULL;
    }
    SIM_READY(s);
    orca_vec2 a, b;
    if (get_vec2(ao, "a", &a) < 0 || get_vec2(bo, "b", &b) < 0) {
        return NULL;
    }
    orca_segment_id id;
    orca_status st = orca_sim_add_segment(s->sim, a, b, &id);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    return handle_int(id.slot, id.generation, id.sim);
}

PyObject *Sim_add_polyline(SimObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"points", "closed", NULL};
    PyObject *pts;
    int closed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|p:add_polyline", kwlist, &pts, &closed)) {
        return NULL;
    }
    SIM_READY(s);
    if (check_bulk(pts, "add_polyline", "points", (Py_ssize_t)1 << 26,
                   "the 2^26 (67108864) points of a polyline", ROW_BYTES_SEGMENT) < 0) {
        return NULL;
    }
    double *rows;
    Py_ssize_t n;
    if (get_rows(pts, "points", 2, 0, &rows, &n) < 0) {
        return NULL;
    }
    Py_ssize_t m = n < 2 ? 0 : (closed ? n : n - 1);
    orca_segment_id *ids = m > 0 ? malloc((size_t)m * sizeof *ids) : NULL;
    if (m > 0 && !ids) {
        free(rows);
        return PyErr_NoMemory();
    }
    orca_status st = orca_sim_add_polyline(s->sim, (const orca_vec2 *)(void *)rows, (int)n, closed,
                                           ids);
    free(rows);
    if (st != ORCA_OK) {
        free(ids);
        return sim_fail(s, st);
    }
    PyObject *list = PyList_New(m);
    for (Py_ssize_t i = 0; list && i < m; ++i) {
        PyObject *h = handle_int(ids[i].slot, ids[i].generation, ids[i].sim);
        if (!h) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, h);
    }
    free(ids);
    return list;
}

/* add_segments(a, b): rows a[k], b[k] (two (n, 2) float64 arrays or sequences of pairs) as
 * one orca_sim_add_segments; the library checks every value (its message names the row). */
PyObject *Sim_add_segments(SimObject *s, PyObject *args)
{
    PyObject *ao, *bo;
    if (!PyArg_UnpackTuple(args, "add_segments", 2, 2, &ao, &bo)) {
        return NULL;
    }
    SIM_READY(s);
    int have = orca_sim_segment_count(s->sim);
    char limit[160];
    PyOS_snprintf(limit, sizeof limit,
                  "the 2^28 (268435456) segments a simulation holds in all (it has %d)", have);
    if (check_bulk(ao, "add_segments", "a", ((Py_ssize_t)1 << 28) - have, limit,
                   ROW_BYTES_SEGMENT) < 0 ||
        check_bulk(bo, "add_segments", "b", ((Py_ssize_t)1 << 28) - have, limit,
                   ROW_BYTES_SEGMENT) < 0) {
        return NULL;
    }
    double *a = NULL, *b = NULL;
    Py_ssize_t na, nb;
    if (get_rows(ao, "a", 2, 0, &a, &na) < 0) {
        return NULL;
    }
    if (get_rows(bo, "b", 2, 0, &b, &nb) < 0) {
        free(a);
        return NULL;
    }
    PyObject *list = NULL;
    orca_segment_id *ids = NULL;
    if (na != nb) {
        PyErr_Format(PyExc_ValueError, "a and b must have the same number of rows, got %zd and "
                     "%zd", na, nb);
        goto done;
    }
    ids = malloc((size_t)(na > 0 ? na : 1) * sizeof *ids);
    if (!ids) {
        PyErr_NoMemory();
        goto done;
    }
    orca_status st = orca_sim_add_segments(s->sim, (const orca_vec2 *)(void *)a,
                                           (const orca_vec2 *)(void *)b, (int)na, ids);
    if (st != ORCA_OK) {
        sim_fail(s, st);
        goto done;
    }
    list = PyList_New(na);
    for (Py_ssize_t i = 0; list && i < na; ++i) {
        PyObject *h = handle_int(ids[i].slot, ids[i].generation, ids[i].sim);
        if (!h) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, h);
    }
done:
    free(a);
    free(b);
    free(ids);
    return list;
}

PyObject *Sim_remove_segment(SimObject *s, PyObject *arg)
{
    orca_segment_id id;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_sim_remove_segment(s->sim, id);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

PyObject *Sim_segment_count(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    return PyLong_FromLong(orca_sim_segment_count(s->sim));
}

PyObject *Sim_segment_handles(SimObject *s, PyObject *unused)
{
    (void)unused;
    return handle_list(s, HANDLES_SEGMENT);
}

PyObject *Sim_segment_get(SimObject *s, PyObject *arg)
{
    orca_segment_id id;
    orca_vec2 a, b;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_segment_get(s->sim, id, &a, &b);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    return Py_BuildValue("((dd)(dd))", a.x, a.y, b.x, b.y);
}

/* --- walkable-area boundaries (docs/extensions.md, "Walkable-area boundaries") --------- */

PyObject *Sim_add_boundary(SimObject *s, PyObject *arg)
{
    SIM_READY(s);
    /* the count alone here (the library checks the total over all loops) */
    if (check_bulk(arg, "add_boundary", "points", ORCA_BOUNDARY_EDGES_MAX,
                   "the 2^24 (16777216) boundary edges a simulation holds in all",
                   ROW_BYTES_POINT) < 0) {
        return NULL;
    }
    double *rows;
    Py_ssize_t n;
    if (get_rows(arg, "points", 2, 0, &rows, &n) < 0) {
        return NULL;
    }
    if (n > INT_MAX) {
        free(rows);
        PyErr_SetString(PyExc_ValueError, "add_boundary: too many points");
        return NULL;
    }
    orca_boundary_id id;
    orca_status st =
        orca_sim_add_boundary(s->sim, (const orca_vec2 *)(void *)rows, (int)n, &id);
    free(rows);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    return handle_int(id.slot, id.generation, id.sim);
}

PyObject *Sim_remove_boundary(SimObject *s, PyObject *arg)
{
    orca_boundary_id id;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    orca_status st = orca_sim_remove_boundary(s->sim, id);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    Py_RETURN_NONE;
}

PyObject *Sim_boundary_handles(SimObject *s, PyObject *unused)
{
    (void)unused;
    return handle_list(s, HANDLES_BOUNDARY);
}

PyObject *Sim_boundary_get(SimObject *s, PyObject *arg)
{
    orca_boundary_id id;
    SIM_READY(s);
    if (get_handle(arg, &id.slot, &id.generation, &id.sim) < 0) {
        return NULL;
    }
    int n = 0;
    orca_status st = orca_boundary_get(s->sim, id, NULL, 0, &n);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    orca_vec2 *pts = malloc((size_t)n * sizeof *pts);
    if (!pts) {
        return PyErr_NoMemory();
    }
    st = orca_boundary_get(s->sim, id, pts, n, &n);
    if (st != ORCA_OK) {
        free(pts);
        return sim_fail(s, st);
    }
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; ++i) {
        PyObject *t = Py_BuildValue("(dd)", pts[i].x, pts[i].y);
        if (!t) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, t);
    }
    free(pts);
    return list;
}

PyObject *Sim_measure_boundary(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    double deepest = 0;
    int outside = 0;
    orca_status st = orca_sim_measure_boundary(s->sim, &deepest, &outside);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    return Py_BuildValue("(di)", deepest, outside);
}
