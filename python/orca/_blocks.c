/* SPDX-License-Identifier: MIT */
/* orca._core's building blocks: the pure functions of orca/solver.h (constraints, velocity
 * obstacles, the programs, the deterministic sine and cosine) as module functions. Inputs
 * are checked to be finite here (the library's pure functions leave that to the caller);
 * ranges beyond that are the library's contract. */
#include "_core.h"

#include <math.h>
#include <stdlib.h>

static PyObject *plane_tuple(orca_halfplane h)
{
    return Py_BuildValue("(dddd)", h.point.x, h.point.y, h.normal.x, h.normal.y);
}

static int get_fvec2(PyObject *obj, const char *name, orca_vec2 *v)
{
    if (get_vec2(obj, name, v) < 0) {
        return -1;
    }
    if (!isfinite(v->x) || !isfinite(v->y)) {
        PyErr_Format(PyExc_ValueError, "%s must be finite, got %R", name, obj);
        return -1;
    }
    return 0;
}

static int get_positive(PyObject *obj, const char *name, double *v)
{
    if (get_finite(obj, name, v) < 0) {
        return -1;
    }
    if (!(*v > 0)) {
        PyErr_Format(PyExc_ValueError, "%s must be > 0 and finite, got %R", name, obj);
        return -1;
    }
    return 0;
}

static int get_nonneg(PyObject *obj, const char *name, double *v)
{
    if (get_finite(obj, name, v) < 0) {
        return -1;
    }
    if (!(*v >= 0)) {
        PyErr_Format(PyExc_ValueError, "%s must be >= 0 and finite, got %R", name, obj);
        return -1;
    }
    return 0;
}

static const char *form_name(orca_form f)
{
    return f == ORCA_FORM_CASES ? "cases" : f == ORCA_FORM_SUPPORT ? "support" : "overlap";
}

PyObject *f_constraint_agent(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"rel_pos", "r", "va", "vb", "tau", "dt", NULL};
    PyObject *po, *ro, *vao, *vbo, *to, *dto;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOO:constraint_agent", kwlist, &po, &ro, &vao,
                                     &vbo, &to, &dto)) {
        return NULL;
    }
    orca_vec2 p, va, vb;
    double r, tau, dt;
    if (get_fvec2(po, "rel_pos", &p) < 0 || get_positive(ro, "r", &r) < 0 ||
        get_fvec2(vao, "va", &va) < 0 || get_fvec2(vbo, "vb", &vb) < 0 ||
        get_positive(to, "tau", &tau) < 0 || get_positive(dto, "dt", &dt) < 0) {
        return NULL;
    }
    orca_form form;
    orca_halfplane h = orca_constraint_agent(p, r, va, vb, tau, dt, &form);
    return Py_BuildValue("(Ns)", plane_tuple(h), form_name(form));
}

PyObject *f_constraint_segment(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"a", "b", "r", "tau", "dt", NULL};
    PyObject *ao, *bo, *ro, *to, *dto;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOO:constraint_segment", kwlist, &ao, &bo, &ro,
                                     &to, &dto)) {
        return NULL;
    }
    orca_vec2 a, b;
    double r, tau, dt;
    if (get_fvec2(ao, "a", &a) < 0 || get_fvec2(bo, "b", &b) < 0 ||
        get_positive(ro, "r", &r) < 0 || get_positive(to, "tau", &tau) < 0 ||
        get_positive(dto, "dt", &dt) < 0) {
        return NULL;
    }
    orca_form form;
    orca_halfplane h = orca_constraint_segment(a, b, r, tau, dt, &form);
    return Py_BuildValue("(Ns)", plane_tuple(h), form_name(form));
}

PyObject *f_constraint_boundary(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"a", "b", "clearance", "tau", NULL};
    PyObject *ao, *bo, *co, *to;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO:constraint_boundary", kwlist, &ao, &bo, &co,
                                     &to)) {
        return NULL;
    }
    orca_vec2 a, b;
    double c, tau;
    if (get_fvec2(ao, "a", &a) < 0 || get_fvec2(bo, "b", &b) < 0 ||
        get_nonneg(co, "clearance", &c) < 0 || get_positive(to, "tau", &tau) < 0) {
        return NULL;
    }
    orca_halfplane h;
    if (orca_constraint_boundary(a, b, c, tau, &h) == 1) {
        return plane_tuple(h);
    }
    Py_RETURN_NONE;
}

static PyObject *vo_tuple(orca_vo v)
{
    return Py_BuildValue("(d(dd))", v.distance, v.normal.x, v.normal.y);
}

PyObject *f_vo_support(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"a", "b", "r", "tau", "x", NULL};
    PyObject *ao, *bo, *ro, *to, *xo;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOO:vo_support", kwlist, &ao, &bo, &ro, &to,
                                     &xo)) {
        return NULL;
    }
    orca_vec2 a, b, x;
    double r, tau;
    if (get_fvec2(ao, "a", &a) < 0 || get_fvec2(bo, "b", &b) < 0 ||
        get_positive(ro, "r", &r) < 0 || get_positive(to, "tau", &tau) < 0 ||
        get_fvec2(xo, "x", &x) < 0) {
        return NULL;
    }
    if (!(orca_segment_distance_squared(a, b) > r * r)) {
        PyErr_SetString(PyExc_ValueError, "vo_support needs the origin outside the capsule "
                        "(segment_distance_squared(a, b) > r*r); use vo_overlap");
        return NULL;
    }
    return vo_tuple(orca_vo_support(a, b, r, tau, x));
}

PyObject *f_vo_overlap(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"a", "b", "r", "dt", "x", NULL};
    PyObject *ao, *bo, *ro, *to, *xo;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOO:vo_overlap", kwlist, &ao, &bo, &ro, &to,
                                     &xo)) {
        return NULL;
    }
    orca_vec2 a, b, x;
    double r, dt;
    if (get_fvec2(ao, "a", &a) < 0 || get_fvec2(bo, "b", &b) < 0 ||
        get_positive(ro, "r", &r) < 0 || get_positive(to, "dt", &dt) < 0 ||
        get_fvec2(xo, "x", &x) < 0) {
        return NULL;
    }
    return vo_tuple(orca_vo_overlap(a, b, r, dt, x));
}

PyObject *f_segment_distance_squared(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ao, *bo;
    if (!PyArg_UnpackTuple(args, "segment_distance_squared", 2, 2, &ao, &bo)) {
        return NULL;
    }
    orca_vec2 a, b;
    if (get_fvec2(ao, "a", &a) < 0 || get_fvec2(bo, "b", &b) < 0) {
        return NULL;
    }
    return PyFloat_FromDouble(orca_segment_distance_squared(a, b));
}

PyObject *f_signed_distance(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ho, *vo;
    if (!PyArg_UnpackTuple(args, "halfplane_signed_distance", 2, 2, &ho, &vo)) {
        return NULL;
    }
    double *rows;
    Py_ssize_t n;
    orca_vec2 v;
    if (get_fvec2(vo, "v", &v) < 0) {
        return NULL;
    }
    PyObject *wrapped = PyTuple_Pack(1, ho);
    if (!wrapped) {
        return NULL;
    }
    int r = get_rows(wrapped, "plane", 4, 1, &rows, &n);
    Py_DECREF(wrapped);
    if (r < 0) {
        return NULL;
    }
    orca_halfplane h = {{rows[0], rows[1]}, {rows[2], rows[3]}};
    free(rows);
    return PyFloat_FromDouble(orca_halfplane_signed_distance(h, v));
}

/* The planes argument of the programs: an (n, 4) array of rows (px, py, nx, ny), at most 2^29
 * of them (more than a step ever gives one agent: 2^28 segments, 2^24 boundary edges and 1024
 * neighbours). */
static int get_planes(PyObject *obj, const char *call, orca_halfplane **planes, int *count)
{
    double *rows;
    Py_ssize_t n;
    if (check_bulk(obj, call, "planes", (Py_ssize_t)1 << 29,
                   "the 2^29 (536870912) planes a program takes (more than a step gives an "
                   "agent)",
                   ROW_BYTES_PLANE) < 0 ||
        get_rows(obj, "planes", 4, 1, &rows, &n) < 0) {
        return -1;
    }
    *planes = (orca_halfplane *)(void *)rows;
    *count = (int)n;
    return 0;
}

/* solve(planes, max_speed, preferred, hard_count=0) -> (velocity, failed, fallback) */
PyObject *f_solve(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"planes", "max_speed", "preferred", "hard_count", NULL};
    PyObject *po, *mo, *pro, *ho = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|O:solve", kwlist, &po, &mo, &pro, &ho)) {
        return NULL;
    }
    double ms;
    orca_vec2 pref;
    if (get_nonneg(mo, "max_speed", &ms) < 0 || get_fvec2(pro, "preferred", &pref) < 0) {
        return NULL;
    }
    orca_halfplane *planes;
    int n, hard = 0;
    if (get_planes(po, "solve", &planes, &n) < 0) {
        return NULL;
    }
    if (ho && get_int(ho, "hard_count", 0, n, &hard) < 0) {
        free(planes);
        return NULL;
    }
    orca_halfplane *scratch = n > 0 ? malloc((size_t)n * sizeof *scratch) : NULL;
    if (n > 0 && !scratch) {
        free(planes);
        return PyErr_NoMemory();
    }
    orca_solve_result res;
    orca_status st = orca_solve(planes, n, hard, ms, pref, scratch, &res);
    free(planes);
    free(scratch);
    if (st != ORCA_OK) {
        return raise_status(st, NULL);
    }
    return Py_BuildValue("((dd)iO)", res.velocity.x, res.velocity.y, res.failed,
                         res.fallback ? Py_True : Py_False);
}

/* lp_solve(planes, max_speed, preferred, direction=False) -> (velocity, failed) */
PyObject *f_lp_solve(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"planes", "max_speed", "preferred", "direction", NULL};
    PyObject *po, *mo, *pro;
    int direction = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|p:lp_solve", kwlist, &po, &mo, &pro,
                                     &direction)) {
        return NULL;
    }
    double ms;
    orca_vec2 pref;
    if (get_nonneg(mo, "max_speed", &ms) < 0 || get_fvec2(pro, "preferred", &pref) < 0) {
        return NULL;
    }
    if (direction && pref.x == 0 && pref.y == 0) {
        PyErr_SetString(PyExc_ValueError, "direction must be non-zero, got (0, 0)");
        return NULL;
    }
    orca_halfplane *planes;
    int n;
    if (get_planes(po, "lp_solve", &planes, &n) < 0) {
        return NULL;
    }
    orca_lp_result res;
    orca_status st = direction ? orca_lp_solve_direction(planes, n, ms, pref, &res)
                               : orca_lp_solve(planes, n, ms, pref, &res);
    free(planes);
    if (st != ORCA_OK) {
        return raise_status(st, NULL);
    }
    return Py_BuildValue("((dd)i)", res.velocity.x, res.velocity.y, res.failed);
}

/* lp_fallback(planes, hard_count, failed_index, max_speed) -> velocity */
PyObject *f_lp_fallback(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"planes", "hard_count", "failed_index", "max_speed", NULL};
    PyObject *po, *ho, *fo, *mo;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO:lp_fallback", kwlist, &po, &ho, &fo, &mo)) {
        return NULL;
    }
    double ms;
    if (get_nonneg(mo, "max_speed", &ms) < 0) {
        return NULL;
    }
    orca_halfplane *planes;
    int n, hard, failed;
    if (get_planes(po, "lp_fallback", &planes, &n) < 0) {
        return NULL;
    }
    if (n < 1) {
        free(planes);
        PyErr_SetString(PyExc_ValueError, "lp_fallback needs at least one plane");
        return NULL;
    }
    if (get_int(ho, "hard_count", 0, n, &hard) < 0 ||
        get_int(fo, "failed_index", 0, n - 1, &failed) < 0) {
        free(planes);
        return NULL;
    }
    orca_halfplane *scratch = malloc((size_t)n * sizeof *scratch);
    if (!scratch) {
        free(planes);
        return PyErr_NoMemory();
    }
    orca_vec2 v;
    orca_status st = orca_lp_fallback(planes, n, hard, failed, ms, scratch, &v);
    free(planes);
    free(scratch);
    if (st != ORCA_OK) {
        return raise_status(st, NULL);
    }
    return vec2_tuple(v);
}

PyObject *f_sincos_turns(PyObject *self, PyObject *arg)
{
    (void)self;
    double t, s, c;
    if (get_finite(arg, "turns", &t) < 0) {
        return NULL;
    }
    orca_sincos_turns(t, &s, &c);
    return Py_BuildValue("(dd)", s, c);
}
