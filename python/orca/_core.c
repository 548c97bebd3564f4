/* SPDX-License-Identifier: MIT */
/* orca._core: the CPython binding of the orca library (docs/python.md).
 *
 * Written against the Python C API only (the limited set of calls every CPython 3.8+ has);
 * arrays come in and go out through the buffer protocol, so NumPy is needed only by the
 * Python layer (orca/__init__.py) when the user asks for arrays, never to build or import
 * this module. Every floating-point computation happens in the library's own translation
 * units, compiled by setup.py with the library's flags (-ffp-contract=off -fno-fast-math,
 * and -msse2 -mfpmath=sse on 32-bit x86): this file only copies doubles.
 *
 * Threads: a simulation or scenario is used from one thread at a time. step() releases the
 * GIL; while it runs, every other call on the same object (from another thread) raises
 * RuntimeError instead of racing with the step. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <orca/orca.h>
#include <orca/scenario.h>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

/* ------------------------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------------------------- */

static PyObject *Error;          /* orca.Error(Exception): every refusal of the library */
static PyObject *ArgumentError;  /* (Error, ValueError): ORCA_ERR_ARGUMENT */
static PyObject *StaleError;     /* (Error, ValueError): ORCA_ERR_STALE */
static PyObject *ForeignError;   /* (Error, ValueError): ORCA_ERR_FOREIGN */
static PyObject *FormatError;    /* (Error, ValueError): ORCA_ERR_FORMAT */
static PyObject *LimitError;     /* (Error, ValueError): ORCA_ERR_LIMIT */
static PyObject *OrcaMemoryError; /* (Error, MemoryError): ORCA_ERR_MEMORY */

/* Raises the exception class of status with the library's message; returns NULL. The
 * exception gets the attributes status (the enumerator's name) and code (its value). */
static PyObject *raise_status(int status, const char *message)
{
    PyObject *cls = Error;
    switch (status) {
    case ORCA_ERR_ARGUMENT: cls = ArgumentError; break;
    case ORCA_ERR_STALE: cls = StaleError; break;
    case ORCA_ERR_FOREIGN: cls = ForeignError; break;
    case ORCA_ERR_FORMAT: cls = FormatError; break;
    case ORCA_ERR_LIMIT: cls = LimitError; break;
    case ORCA_ERR_MEMORY: cls = OrcaMemoryError; break;
    default: break;
    }
    if (!message || !*message) {
        message = orca_status_name(status);
    }
    PyObject *exc = PyObject_CallFunction(cls, "s", message);
    if (!exc) {
        return NULL;
    }
    PyObject *name = PyUnicode_FromString(orca_status_name(status));
    PyObject *code = PyLong_FromLong(status);
    if (name && code) {
        PyObject_SetAttrString(exc, "status", name);
        PyObject_SetAttrString(exc, "code", code);
    }
    Py_XDECREF(name);
    Py_XDECREF(code);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

/* ------------------------------------------------------------------------------------------
 * Argument conversion
 * ---------------------------------------------------------------------------------------- */

/* A real number (float, int, NumPy scalar: anything with __float__ or __index__). Values are
 * passed on as they are (NaN, infinities, huge numbers): the library checks its ranges and
 * names the value. An int too large for a double is a ValueError. */
static int get_double(PyObject *obj, const char *name, double *out)
{
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || obj == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s must be a real number, got %.100s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s is too large for a double: %R", name, obj);
        } else if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be a real number, got %.100s", name,
                         Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    *out = v;
    return 0;
}

/* A finite real number (for the building blocks, which do not check their input). */
static int get_finite(PyObject *obj, const char *name, double *out)
{
    if (get_double(obj, name, out) < 0) {
        return -1;
    }
    if (!isfinite(*out)) {
        PyErr_Format(PyExc_ValueError, "%s must be finite, got %R", name, obj);
        return -1;
    }
    return 0;
}

/* An integer in [lo, hi] (int or anything with __index__, e.g. NumPy integers). */
static int get_int(PyObject *obj, const char *name, long lo, long hi, int *out)
{
    if (PyFloat_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an integer, got %.100s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow = 0;
    PyObject *idx = PyNumber_Index(obj);
    if (!idx) {
        return -1;
    }
    long v = PyLong_AsLongAndOverflow(idx, &overflow);
    Py_DECREF(idx);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be in [%ld, %ld], got %R", name, lo, hi, obj);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* A 2-vector: any sequence of two real numbers (tuple, list, NumPy array of shape (2,)). */
static int get_vec2(PyObject *obj, const char *name, orca_vec2 *out)
{
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || !PySequence_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a pair of numbers (x, y), got %.100s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Size(obj);
    if (n < 0) {
        return -1;
    }
    if (n != 2) {
        PyErr_Format(PyExc_ValueError, "%s must have 2 components (x, y), got %zd", name, n);
        return -1;
    }
    char sub[96];
    for (Py_ssize_t i = 0; i < 2; ++i) {
        PyObject *item = PySequence_GetItem(obj, i);
        if (!item) {
            return -1;
        }
        snprintf(sub, sizeof sub, "%s.%s", name, i == 0 ? "x" : "y");
        int r = get_double(item, sub, i == 0 ? &out->x : &out->y);
        Py_DECREF(item);
        if (r < 0) {
            return -1;
        }
    }
    return 0;
}

/* Is the buffer's format a native or little/big-endian binary64 matching this machine? */
static int format_is_double(const char *f)
{
    if (!f) {
        return 0; /* PyBUF_FORMAT was asked: NULL means unsigned bytes */
    }
    if (f[0] == '@' || f[0] == '=') {
        ++f;
    } else if (f[0] == '<' || f[0] == '>' || f[0] == '!') {
        const unsigned one = 1;
        int little = *(const unsigned char *)&one == 1;
        if ((f[0] == '<') != little) {
            return 0;
        }
        ++f;
    }
    return f[0] == 'd' && f[1] == '\0';
}

/* An (n, cols) array of doubles into a malloc'd row-major copy (*out, n rows; NULL when
 * n == 0). Buffers (NumPy arrays, memoryviews) must have dtype float64 and shape (n, cols),
 * any strides; other objects must be sequences of n sequences of cols numbers. finite: refuse
 * NaN and infinities (for the building blocks). */
static int get_rows(PyObject *obj, const char *name, int cols, int finite, double **out,
                    Py_ssize_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (PyObject_CheckBuffer(obj)) {
        Py_buffer view;
        if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
            return -1;
        }
        int ok = 0;
        double *rows = NULL;
        Py_ssize_t n = 0;
        if (!format_is_double(view.format)) {
            PyErr_Format(PyExc_TypeError, "%s must be a float64 array, got format '%s'", name,
                         view.format ? view.format : "B");
        } else if (!(view.ndim == 2 && view.shape[1] == cols) &&
                   !(view.ndim == 1 && view.shape[0] == 0)) {
            if (view.ndim == 2) {
                PyErr_Format(PyExc_ValueError, "%s must have shape (n, %d), got (%zd, %zd)", name,
                             cols, view.shape[0], view.shape[1]);
            } else {
                PyErr_Format(PyExc_ValueError, "%s must have shape (n, %d), got %d dimension(s)",
                             name, cols, view.ndim);
            }
        } else if (view.ndim == 1 || view.shape[0] == 0) {
            ok = 1;
        } else if (view.shape[0] > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "%s has too many rows (%zd)", name, view.shape[0]);
        } else {
            n = view.shape[0];
            rows = malloc((size_t)n * (size_t)cols * sizeof(double));
            if (!rows) {
                PyErr_NoMemory();
            } else {
                const char *base = view.buf;
                Py_ssize_t s0 = view.strides ? view.strides[0] : cols * (Py_ssize_t)sizeof(double);
                Py_ssize_t s1 = view.strides ? view.strides[1] : (Py_ssize_t)sizeof(double);
                ok = 1;
                for (Py_ssize_t i = 0; i < n && ok; ++i) {
                    for (int j = 0; j < cols; ++j) {
                        double v;
                        memcpy(&v, base + i * s0 + j * s1, sizeof v);
                        if (finite && !isfinite(v)) {
                            PyObject *f = PyFloat_FromDouble(v);
                            if (f) {
                                PyErr_Format(PyExc_ValueError, "%s[%zd, %d] must be finite, "
                                             "got %R", name, i, j, f);
                                Py_DECREF(f);
                            }
                            ok = 0;
                            break;
                        }
                        rows[i * cols + j] = v;
                    }
                }
            }
        }
        PyBuffer_Release(&view);
        if (!ok) {
            free(rows);
            return -1;
        }
        *out = rows;
        *n_out = n;
        return 0;
    }
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || !PySequence_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an (n, %d) float64 array or a sequence of "
                     "%d-number sequences, got %.100s", name, cols, cols, Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Size(obj);
    if (n < 0) {
        return -1;
    }
    if (n > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s has too many rows (%zd)", name, n);
        return -1;
    }
    if (n == 0) {
        return 0;
    }
    double *rows = malloc((size_t)n * (size_t)cols * sizeof(double));
    if (!rows) {
        PyErr_NoMemory();
        return -1;
    }
    char sub[96];
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *row = PySequence_GetItem(obj, i);
        if (!row) {
            free(rows);
            return -1;
        }
        int bad = 0;
        snprintf(sub, sizeof sub, "%s[%zd]", name, i);
        if (PyUnicode_Check(row) || PyBytes_Check(row) || !PySequence_Check(row)) {
            PyErr_Format(PyExc_TypeError, "%s must be a sequence of %d numbers, got %.100s", sub,
                         cols, Py_TYPE(row)->tp_name);
            bad = 1;
        } else if (PySequence_Size(row) != cols) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_ValueError, "%s must have %d components, got %zd", sub, cols,
                             PySequence_Size(row));
            }
            bad = 1;
        }
        for (int j = 0; j < cols && !bad; ++j) {
            PyObject *item = PySequence_GetItem(row, j);
            char sub2[128];
            snprintf(sub2, sizeof sub2, "%s[%zd, %d]", name, i, j);
            if (!item || (finite ? get_finite(item, sub2, &rows[i * cols + j])
                                 : get_double(item, sub2, &rows[i * cols + j])) < 0) {
                bad = 1;
            }
            Py_XDECREF(item);
        }
        Py_DECREF(row);
        if (bad) {
            free(rows);
            return -1;
        }
    }
    *out = rows;
    *n_out = n;
    return 0;
}

/* --- bulk calls: limits before allocation (issue 27, item 9) ------------------------------ */

/* The number of rows get_rows would read from obj, found without reading or copying any
 * (a buffer's first dimension, a sequence's length); 0 for what get_rows refuses by type.
 * -1 with an exception set when obj cannot say. */
static Py_ssize_t row_count(PyObject *obj)
{
    if (PyObject_CheckBuffer(obj)) {
        Py_buffer view;
        if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
            return -1;
        }
        Py_ssize_t n = view.ndim >= 1 && view.shape ? view.shape[0] : 0;
        PyBuffer_Release(&view);
        return n;
    }
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || !PySequence_Check(obj)) {
        return 0;
    }
    return PySequence_Size(obj);
}

/* The machine's physical memory in bytes, or 0 when it cannot be told. */
static unsigned long long physical_memory(void)
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) {
        return (unsigned long long)pages * (unsigned long long)size;
    }
#endif
    return 0;
}

/* What each row of a bulk call costs at least (copies, handles, the library's storage): the
 * bound of the memory check below, never above the true cost. */
enum {
    ROW_BYTES_AGENT = 200,  /* a position copy, a handle int and its list slot, ~160 B of
                               agent storage in the library */
    ROW_BYTES_SEGMENT = 96, /* two end copies, a handle int and its list slot, the ends */
    ROW_BYTES_POINT = 32,   /* a point copy and its copy in the library (loops, waypoints) */
    ROW_BYTES_HANDLE = 12,  /* the handle array given to the library */
    ROW_BYTES_PLANE = 64    /* a plane copy and the program's scratch copy */
};

/* Checks a bulk call of n rows (issue 27, item 9) before anything is allocated: n at most max
 * (limit: what bounds it, for the message), and n * row_bytes within the machine's physical
 * memory. Returns 0, or -1 with orca.LimitError or orca.OutOfMemoryError naming the count. */
static int check_rows(const char *call, const char *name, Py_ssize_t n, Py_ssize_t max,
                      const char *limit, Py_ssize_t row_bytes)
{
    char msg[512];
    if (n > max) {
        PyOS_snprintf(msg, sizeof msg, "%s: %s has %zd rows, beyond %s; nothing was changed",
                      call, name, n, limit);
        raise_status(ORCA_ERR_LIMIT, msg);
        return -1;
    }
    unsigned long long mem = physical_memory();
    unsigned long long need = (unsigned long long)n * (unsigned long long)row_bytes;
    if (mem > 0 && need > mem) {
        PyOS_snprintf(msg, sizeof msg,
                      "%s: %s has %zd rows, which need at least %llu bytes (%zd a row), more "
                      "than this machine's %llu bytes of memory; nothing was changed",
                      call, name, n, need, row_bytes, mem);
        raise_status(ORCA_ERR_MEMORY, msg);
        return -1;
    }
    return 0;
}

/* row_count of obj, then check_rows. */
static int check_bulk(PyObject *obj, const char *call, const char *name, Py_ssize_t max,
                      const char *limit, Py_ssize_t row_bytes)
{
    Py_ssize_t n = row_count(obj);
    return n < 0 ? -1 : check_rows(call, name, n, max, limit, row_bytes);
}

/* A writable C-contiguous float64 buffer of exactly `count` doubles (an `out=` argument). */
static int get_out_buffer(PyObject *obj, const char *name, Py_ssize_t count, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a writable C-contiguous float64 array, got "
                     "%.100s", name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (!format_is_double(view->format)) {
        PyErr_Format(PyExc_TypeError, "%s must be a float64 array, got format '%s'", name,
                     view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    if (view->len != count * (Py_ssize_t)sizeof(double)) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd float64 values, has %zd", name, count,
                     view->len / (Py_ssize_t)sizeof(double));
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *vec2_tuple(orca_vec2 v)
{
    return Py_BuildValue("(dd)", v.x, v.y);
}

static PyObject *plane_tuple(orca_halfplane h)
{
    return Py_BuildValue("(dddd)", h.point.x, h.point.y, h.normal.x, h.normal.y);
}

/* ------------------------------------------------------------------------------------------
 * Handles: a Python int, sim << 64 | generation << 32 | slot (sim: the issuing simulation's
 * identity, orca_sim_id), wrapped by orca.Agent / orca.Segment / orca.Boundary. Two handles
 * are equal exactly when the ints are.
 * ---------------------------------------------------------------------------------------- */

static PyObject *k_64; /* the int 64 (a shift) */

static int get_handle(PyObject *obj, uint32_t *slot, uint32_t *generation, uint32_t *sim)
{
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "handle must be an int, got %.100s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *hi = PyNumber_Rshift(obj, k_64);
    if (!hi) {
        return -1;
    }
    unsigned long long top = PyLong_AsUnsignedLongLong(hi);
    Py_DECREF(hi);
    if ((top == (unsigned long long)-1 && PyErr_Occurred()) || top > 0xffffffffull) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "not a handle (an int in [0, 2^96)): %R", obj);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLongMask(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        return -1;
    }
    *slot = (uint32_t)(v & 0xffffffffu);
    *generation = (uint32_t)(v >> 32);
    *sim = (uint32_t)top;
    return 0;
}

static PyObject *handle_int(uint32_t slot, uint32_t generation, uint32_t sim)
{
    PyObject *low = PyLong_FromUnsignedLongLong(((unsigned long long)generation << 32) | slot);
    if (!low || sim == 0) {
        return low;
    }
    PyObject *top = PyLong_FromUnsignedLong(sim), *shifted = NULL, *h = NULL;
    if (top && (shifted = PyNumber_Lshift(top, k_64)) != NULL) {
        h = PyNumber_Or(shifted, low);
    }
    Py_XDECREF(top);
    Py_XDECREF(shifted);
    Py_DECREF(low);
    return h;
}

/* ------------------------------------------------------------------------------------------
 * Sim
 * ---------------------------------------------------------------------------------------- */

typedef struct SimObject {
    PyObject_HEAD
    orca_sim *sim;
    PyObject *owner; /* the Scenario whose simulation this is, or NULL (then we own sim) */
    int *busy;       /* 1 while a step runs without the GIL */
    int own_busy;
} SimObject;

static PyTypeObject SimType;

static int sim_ready(SimObject *s)
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

#define SIM_READY(s)              \
    do {                          \
        if (sim_ready(s) < 0) {   \
            return NULL;          \
        }                         \
    } while (0)

static PyObject *sim_fail(SimObject *s, int status)
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

/* The agent definition from keyword values (any may be NULL: the default). */
typedef struct agent_args {
    PyObject *velocity, *preferred_velocity, *radius, *max_speed, *neighbor_dist, *max_neighbors,
        *time_horizon, *obstacle_time_horizon;
} agent_args;

static int fill_def(const agent_args *a, orca_agent_def *d)
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

static PyObject *Sim_add_agent(SimObject *s, PyObject *args, PyObject *kwds)
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
static PyObject *Sim_add_agents(SimObject *s, PyObject *args, PyObject *kwds)
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

static PyObject *Sim_remove_agent(SimObject *s, PyObject *arg)
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

/* The handles of a sequence, removed in one call of the agents' (segment 0) or segments'
 * batch removal. */
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
static PyObject *f_check_handle_count(PyObject *self, PyObject *args)
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

static PyObject *Sim_remove_agents(SimObject *s, PyObject *arg)
{
    return remove_handles(s, arg, 0);
}

static PyObject *Sim_remove_segments(SimObject *s, PyObject *arg)
{
    return remove_handles(s, arg, 1);
}

/* --- end of batch removals ---------------------------------------------------------------- */

static PyObject *Sim_agent_count(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    return PyLong_FromLong(orca_sim_agent_count(s->sim));
}

/* The handles of every agent, segment or boundary loop of the simulation, in index order,
 * as ints (handle_int). */
enum { HANDLES_AGENT, HANDLES_SEGMENT, HANDLES_BOUNDARY };
static PyObject *handle_list(SimObject *s, int kind)
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

static PyObject *Sim_agent_handles(SimObject *s, PyObject *unused)
{
    (void)unused;
    return handle_list(s, HANDLES_AGENT);
}

static PyObject *Sim_agent_at(SimObject *s, PyObject *arg)
{
    int i;
    SIM_READY(s);
    if (get_int(arg, "index", INT32_MIN, INT32_MAX, &i) < 0) {
        return NULL;
    }
    int n = orca_sim_agent_count(s->sim);
    if (i < 0 || i >= n) {
        PyErr_Format(PyExc_IndexError, "agent index %d out of range (%d agents)", i, n);
        return NULL;
    }
    orca_agent_id id = orca_sim_agent_at(s->sim, i);
    return handle_int(id.slot, id.generation, id.sim);
}

static PyObject *Sim_agent_index(SimObject *s, PyObject *arg)
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
static PyObject *Sim_agent_get(SimObject *s, PyObject *arg)
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
static PyObject *Sim_agent_set(SimObject *s, PyObject *args, PyObject *kwds)
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

static PyObject *Sim_set_position(SimObject *s, PyObject *args)
{
    return agent_set_vec(s, args, "position", orca_agent_set_position);
}

static PyObject *Sim_set_velocity(SimObject *s, PyObject *args)
{
    return agent_set_vec(s, args, "velocity", orca_agent_set_velocity);
}

static PyObject *Sim_set_preferred_velocity(SimObject *s, PyObject *args)
{
    return agent_set_vec(s, args, "preferred_velocity", orca_agent_set_preferred_velocity);
}

static PyObject *Sim_get_position(SimObject *s, PyObject *arg)
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

static PyObject *Sim_get_velocity(SimObject *s, PyObject *arg)
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

static PyObject *Sim_read_positions(SimObject *s, PyObject *args, PyObject *kwds)
{
    return bulk_read(s, args, kwds, 0);
}

static PyObject *Sim_read_velocities(SimObject *s, PyObject *args, PyObject *kwds)
{
    return bulk_read(s, args, kwds, 1);
}

static PyObject *Sim_read_preferred_velocities(SimObject *s, PyObject *args, PyObject *kwds)
{
    return bulk_read(s, args, kwds, 2);
}

/* set_preferred_velocities(array (n, 2) float64): one orca_sim_swap_preferred_velocities. */
static PyObject *Sim_set_preferred_velocities(SimObject *s, PyObject *arg)
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

/* Segments */
static PyObject *Sim_add_segment(SimObject *s, PyObject *args)
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

static PyObject *Sim_add_polyline(SimObject *s, PyObject *args, PyObject *kwds)
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
static PyObject *Sim_add_segments(SimObject *s, PyObject *args)
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

static PyObject *Sim_remove_segment(SimObject *s, PyObject *arg)
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

static PyObject *Sim_segment_count(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    return PyLong_FromLong(orca_sim_segment_count(s->sim));
}

static PyObject *Sim_segment_handles(SimObject *s, PyObject *unused)
{
    (void)unused;
    return handle_list(s, HANDLES_SEGMENT);
}

static PyObject *Sim_segment_get(SimObject *s, PyObject *arg)
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

static PyObject *Sim_add_boundary(SimObject *s, PyObject *arg)
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

static PyObject *Sim_remove_boundary(SimObject *s, PyObject *arg)
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

static PyObject *Sim_boundary_handles(SimObject *s, PyObject *unused)
{
    (void)unused;
    return handle_list(s, HANDLES_BOUNDARY);
}

static PyObject *Sim_boundary_get(SimObject *s, PyObject *arg)
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

static PyObject *Sim_measure_boundary(SimObject *s, PyObject *unused)
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

/* --- end of walkable-area boundaries --------------------------------------------------- */

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

/* A snapshot as bytes: save (orca_sim_save's or orca_scenario_save's conventions) of obj. NULL
 * with *st the library's refusal, or with *st ORCA_OK and a Python error set. */
typedef orca_status save_fn(const void *obj, void *buffer, size_t capacity, size_t *size);
static PyObject *snapshot_bytes(save_fn *save, const void *obj, orca_status *st)
{
    size_t size = 0;
    *st = save(obj, NULL, 0, &size);
    if (*st != ORCA_OK) {
        return NULL;
    }
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (!b) {
        return NULL;
    }
    *st = save(obj, PyBytes_AS_STRING(b), size, &size);
    if (*st != ORCA_OK) {
        Py_DECREF(b);
        return NULL;
    }
    return b;
}

/* The bytes of load()'s argument (any object with the buffer protocol) in *view; -1 with a
 * TypeError naming what it should be ("a snapshot", "a scenario snapshot"). */
static int snapshot_view(PyObject *arg, const char *what, Py_buffer *view)
{
    if (PyObject_GetBuffer(arg, view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "load() takes bytes (%s from save()), got %.100s", what,
                     Py_TYPE(arg)->tp_name);
        return -1;
    }
    return 0;
}

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

static PyObject *int_list(const int *v, int n)
{
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; ++i) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (!x) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, x);
    }
    return list;
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

/* ------------------------------------------------------------------------------------------
 * Spatial queries (docs/extensions.md, "Spatial queries"): lists of agent indices
 * ---------------------------------------------------------------------------------------- */

/* A list of the first count entries of indices (NULL with an exception set on failure). */
static PyObject *index_list(const int *indices, int count)
{
    PyObject *list = PyList_New(count);
    for (int i = 0; list && i < count; ++i) {
        PyObject *v = PyLong_FromLong(indices[i]);
        if (!v) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

/* query_radius and query_box: asks with room for every agent (a match never exceeds the
 * agent count), so one call answers. */
static PyObject *Sim_query_radius(SimObject *s, PyObject *args)
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
    PyObject *out = st == ORCA_OK ? index_list(idx, count) : sim_fail(s, st);
    free(idx);
    return out;
}

static PyObject *Sim_query_nearest(SimObject *s, PyObject *args)
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
    PyObject *out = st == ORCA_OK ? index_list(idx, count) : sim_fail(s, st);
    free(idx);
    return out;
}

static PyObject *Sim_query_box(SimObject *s, PyObject *args)
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
    PyObject *out = st == ORCA_OK ? index_list(idx, count) : sim_fail(s, st);
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
static PyObject *f_check_avoidance(PyObject *self, PyObject *args, PyObject *kwds)
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
static PyObject *Sim_agent_avoidance(SimObject *s, PyObject *arg)
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
static PyObject *Sim_agent_set_avoidance(SimObject *s, PyObject *args, PyObject *kwds)
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
static PyObject *Sim_set_priority(SimObject *s, PyObject *args)
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
static PyObject *Sim_set_layers(SimObject *s, PyObject *args)
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
static PyObject *Sim_set_locked(SimObject *s, PyObject *args)
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

static PyObject *Sim_get_diagnostics(SimObject *s, void *closure)
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

static int Sim_set_diagnostics(SimObject *s, PyObject *value, void *closure)
{
    (void)closure;
    return sim_set_flag(s, value, "diagnostics", orca_sim_set_diagnostics);
}

/* separation (bool, state: docs/extensions.md, "Coincident agents") and separation_active */
static PyObject *Sim_get_separation(SimObject *s, void *closure)
{
    (void)closure;
    SIM_READY(s);
    return PyBool_FromLong(orca_sim_get_separation(s->sim));
}

static int Sim_set_separation(SimObject *s, PyObject *value, void *closure)
{
    (void)closure;
    return sim_set_flag(s, value, "separation", orca_sim_set_separation);
}

static PyObject *Sim_get_separation_active(SimObject *s, void *closure)
{
    (void)closure;
    SIM_READY(s);
    return PyBool_FromLong(orca_sim_separation_active(s->sim));
}

/* The density-dependent speed (state: docs/extensions.md, "Density-dependent speed"):
 * set_density_speed(radius=None, gamma=None, max_density=None) turns it on, each None keeping
 * the value in use (the default when off); clear_density_speed() turns it off; the property
 * density_speed is a dict of the three, or None when off. The library checks the ranges. */
static PyObject *Sim_set_density_speed(SimObject *s, PyObject *args, PyObject *kwds)
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

static PyObject *Sim_clear_density_speed(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    orca_sim_set_density_speed(s->sim, NULL); /* always accepted */
    Py_RETURN_NONE;
}

static PyObject *Sim_get_density_speed(SimObject *s, void *closure)
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

static PyObject *diag_tuple(const orca_agent_diagnostics *d)
{
    return Py_BuildValue("(iiiiiii)", d->fallback, d->failed_constraint, d->neighbor_count,
                         d->candidates, d->neighbors_cut, d->blocked, d->locked);
}

/* agent_diagnostics(handle) -> (fallback, failed_constraint, neighbor_count, candidates,
 * neighbors_cut, blocked, locked) */
static PyObject *Sim_agent_diagnostics(SimObject *s, PyObject *arg)
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

/* read_diagnostics() -> bytearray of n * 7 int32 (orca_agent_diagnostics in index order, the
 * fields in the struct's order), one orca_sim_diagnostics */
static PyObject *Sim_read_diagnostics(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    int n = orca_sim_agent_count(s->sim);
    PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n * 7 * 4);
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
        w[7 * i + 0] = d[i].fallback;
        w[7 * i + 1] = d[i].failed_constraint;
        w[7 * i + 2] = d[i].neighbor_count;
        w[7 * i + 3] = d[i].candidates;
        w[7 * i + 4] = d[i].neighbors_cut;
        w[7 * i + 5] = d[i].blocked;
        w[7 * i + 6] = d[i].locked;
    }
    free(d);
    return b;
}

/* step_diagnostics() -> (agents, fallback, cut, blocked, locked) */
static PyObject *Sim_step_diagnostics(SimObject *s, PyObject *unused)
{
    (void)unused;
    SIM_READY(s);
    orca_step_diagnostics c;
    orca_status st = orca_sim_step_diagnostics(s->sim, &c);
    if (st != ORCA_OK) {
        return sim_fail(s, st);
    }
    return Py_BuildValue("(iiiii)", c.agents, c.fallback, c.cut, c.blocked, c.locked);
}

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
    {"separation_active", (getter)Sim_get_separation_active, NULL,
     "True when the next step separates coincident agents: the option, a boundary loop or "
     "avoidance settings away from the defaults (read-only)",
     NULL},
    {"sim_id", (getter)Sim_get_sim_id, NULL,
     "the simulation's identity (orca_sim_id), carried by every handle it issues", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SimType = {
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

/* ------------------------------------------------------------------------------------------
 * Scenario
 * ---------------------------------------------------------------------------------------- */

typedef struct ScenarioObject {
    PyObject_HEAD
    orca_scenario *sc;
    int busy;
} ScenarioObject;

static int sc_ready(ScenarioObject *s)
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

#define SC_READY(s)              \
    do {                         \
        if (sc_ready(s) < 0) {   \
            return NULL;         \
        }                        \
    } while (0)

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

/* A seed: an integer in [0, 2^64). */
static int get_seed(PyObject *so, unsigned long long *out)
{
    if (!PyLong_Check(so) && !PyIndex_Check(so)) {
        PyErr_Format(PyExc_TypeError, "seed must be an integer, got %.100s",
                     Py_TYPE(so)->tp_name);
        return -1;
    }
    PyObject *idx = PyNumber_Index(so);
    if (!idx) {
        return -1;
    }
    unsigned long long seed = PyLong_AsUnsignedLongLong(idx);
    Py_DECREF(idx);
    if (seed == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "seed must be in [0, 2^64), got %R", so);
        return -1;
    }
    *out = seed;
    return 0;
}

/* Scenario(scene=None, agents=0, seed=1, workers=1, dt=None): a built-in scene by name, or
 * with scene None an empty scenario with step dt (required) and seed. */
static int Scenario_init(ScenarioObject *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"scene", "agents", "seed", "workers", "dt", NULL};
    PyObject *scene = Py_None, *ao = NULL, *so = NULL, *wo = NULL, *dto = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOOOO:Scenario", kwlist, &scene, &ao, &so,
                                     &wo, &dto)) {
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
        double dt;
        if (dto == Py_None) {
            PyErr_SetString(PyExc_TypeError, "Scenario() without a scene needs dt");
            return -1;
        }
        if (get_double(dto, "dt", &dt) < 0) {
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
    s->sc = sc;
    return 0;
}

static void Scenario_dealloc(ScenarioObject *s)
{
    orca_scenario_destroy(s->sc);
    s->sc = NULL;
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *sc_fail(ScenarioObject *s, int st)
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

static int get_goal_set(ScenarioObject *s, PyObject *obj, int *out);

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

static const char *goal_name(orca_goal_kind k)
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
    orca_agent_def d = orca_agent_def_default();
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
    orca_agent_id id;
    orca_status st = orca_scenario_add_agent(s->sc, &d, &g, &id);
    if (st != ORCA_OK) {
        return sc_fail(s, st);
    }
    return handle_int(id.slot, id.generation, id.sim);
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

/* --- navigation (docs/navigation.md) ------------------------------------------------------ */

/* "ok", "no_path", "start_blocked", "goal_blocked": orca_nav_result_name without its
 * "ORCA_NAV_" prefix, in lower case. */
static PyObject *nav_result_str(int result)
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
static PyObject *corner_rows(const orca_nav_corner *c, int n)
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
static int get_goal_set(ScenarioObject *s, PyObject *obj, int *out)
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

static PyObject *Scenario_get_navigation(ScenarioObject *s, void *closure)
{
    (void)closure;
    SC_READY(s);
    return PyBool_FromLong(orca_scenario_get_navigation(s->sc));
}

static int Scenario_set_navigation(ScenarioObject *s, PyObject *value, void *closure)
{
    (void)closure;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete navigation");
        return -1;
    }
    if (sc_ready(s) < 0) {
        return -1;
    }
    int on = PyObject_IsTrue(value);
    if (on < 0) {
        return -1;
    }
    orca_status st = orca_scenario_set_navigation(s->sc, on);
    if (st != ORCA_OK) {
        sc_fail(s, st);
        return -1;
    }
    return 0;
}

static PyObject *Scenario_get_nav_unreachable(ScenarioObject *s, void *closure)
{
    (void)closure;
    SC_READY(s);
    return PyLong_FromLong(orca_scenario_nav_unreachable(s->sc));
}

/* add_goal_set(name, points, exit=False, arrive_distance=0.0) -> index */
static PyObject *Scenario_add_goal_set(ScenarioObject *s, PyObject *args, PyObject *kwds)
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
static PyObject *Scenario_set_goal_set_exit(ScenarioObject *s, PyObject *args, PyObject *kwds)
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
static PyObject *Scenario_goal_set_count(ScenarioObject *s, PyObject *unused)
{
    (void)unused;
    SC_READY(s);
    return PyLong_FromLong(orca_scenario_goal_set_count(s->sc));
}

/* goal_set_get(set) -> (index, name, points bytearray (x y per point), exit, arrive_distance) */
static PyObject *Scenario_goal_set_get(ScenarioObject *s, PyObject *arg)
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
static PyObject *Scenario_exited(ScenarioObject *s, PyObject *unused)
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
static PyObject *Scenario_agent_nav(ScenarioObject *s, PyObject *arg)
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
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ScenarioType = {
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

/* ------------------------------------------------------------------------------------------
 * Nav: the path query of orca/nav.h over the walls of a simulation (docs/navigation.md)
 * ---------------------------------------------------------------------------------------- */

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

static PyTypeObject NavType = {
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

/* ------------------------------------------------------------------------------------------
 * The building blocks (orca/solver.h). Inputs are checked to be finite here (the library's
 * pure functions leave that to the caller); ranges beyond that are the library's contract.
 * ---------------------------------------------------------------------------------------- */

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

static PyObject *f_constraint_agent(PyObject *self, PyObject *args, PyObject *kwds)
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

static PyObject *f_constraint_segment(PyObject *self, PyObject *args, PyObject *kwds)
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

static PyObject *f_constraint_boundary(PyObject *self, PyObject *args, PyObject *kwds)
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

static PyObject *f_vo_support(PyObject *self, PyObject *args, PyObject *kwds)
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

static PyObject *f_vo_overlap(PyObject *self, PyObject *args, PyObject *kwds)
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

static PyObject *f_segment_distance_squared(PyObject *self, PyObject *args)
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

static PyObject *f_signed_distance(PyObject *self, PyObject *args)
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
static PyObject *f_solve(PyObject *self, PyObject *args, PyObject *kwds)
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
static PyObject *f_lp_solve(PyObject *self, PyObject *args, PyObject *kwds)
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
static PyObject *f_lp_fallback(PyObject *self, PyObject *args, PyObject *kwds)
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

static PyObject *f_sincos_turns(PyObject *self, PyObject *arg)
{
    (void)self;
    double t, s, c;
    if (get_finite(arg, "turns", &t) < 0) {
        return NULL;
    }
    orca_sincos_turns(t, &s, &c);
    return Py_BuildValue("(dd)", s, c);
}

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
static PyObject *f_agent_def_default(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    orca_agent_def d = orca_agent_def_default();
    return Py_BuildValue("{s(dd)s(dd)s(dd)sdsdsdsisdsd}", "position", d.position.x,
                         d.position.y, "velocity", d.velocity.x, d.velocity.y,
                         "preferred_velocity", d.preferred_velocity.x, d.preferred_velocity.y,
                         "radius", d.radius, "max_speed", d.max_speed, "neighbor_dist",
                         d.neighbor_dist, "max_neighbors", d.max_neighbors, "time_horizon",
                         d.time_horizon, "obstacle_time_horizon", d.obstacle_time_horizon);
}

/* read_scene(cls, path, workers, dt, seed) -> a new cls (a subclass of Scenario): the scene
 * file read and built by the library's reader, which `orca run FILE` uses (orca/scene_file.h:
 * orca_scene_file_read, then orca_scene_file_build; docs/scene-format.md), dt and seed
 * overriding the file's when not None as --dt and --seed do. A bad file raises ValueError
 * with the message `orca run` prints ("scene.txt:12: ..."); a file that cannot be opened or
 * read OSError (FileNotFoundError, IsADirectoryError, ...) naming the path; memory
 * MemoryError. The GIL is released while the file is read and the scenario built. */
static PyObject *f_read_scene(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"cls", "path", "workers", "dt", "seed", NULL};
    PyObject *cls, *po, *wo = NULL, *dto = Py_None, *so = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OOO:read_scene", kwlist, &cls, &po, &wo,
                                     &dto, &so)) {
        return NULL;
    }
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &ScenarioType)) {
        PyErr_SetString(PyExc_TypeError, "expected a subclass of orca._core.Scenario");
        return NULL;
    }
    orca_sim_def def = orca_sim_def_default();
    double dt = 0.0;
    unsigned long long seed = 0;
    if ((wo && get_int(wo, "workers", 1, ORCA_MAX_WORKERS, &def.worker_count) < 0) ||
        (dto != Py_None && get_double(dto, "dt", &dt) < 0) ||
        (so != Py_None && get_seed(so, &seed) < 0)) {
        return NULL;
    }
    PyObject *bytes = NULL; /* the path in the file system's encoding */
    if (!PyUnicode_FSConverter(po, &bytes)) {
        return NULL;
    }
    orca_scene_build_def build = orca_scene_build_def_default();
    build.sim = def;
    build.use_dt = dto != Py_None;
    build.dt = dt;
    build.use_seed = so != Py_None;
    build.seed = (uint64_t)seed;
    const char *path = PyBytes_AS_STRING(bytes); /* "-" is the file of that name */
    orca_scene_file *file = NULL;
    orca_scenario *sc = NULL;
    orca_status st;
    int sys_errno = 0;
    Py_BEGIN_ALLOW_THREADS
    st = orca_scene_file_read(path, &file);
    if (st == ORCA_ERR_ARGUMENT || st == ORCA_ERR_IO) {
        sys_errno = errno; /* the file could not be opened or read */
    }
    if (st == ORCA_OK) {
        st = orca_scene_file_build(file, &build, &sc);
    }
    Py_END_ALLOW_THREADS
    if (st != ORCA_OK) {
        if (sys_errno) {
            errno = sys_errno;
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, po);
        } else if (st == ORCA_ERR_MEMORY) {
            PyErr_NoMemory();
        } else {
            PyErr_SetString(PyExc_ValueError, orca_scene_file_last_error(file));
        }
        orca_scene_file_destroy(file);
        Py_DECREF(bytes);
        return NULL;
    }
    orca_scene_file_destroy(file);
    Py_DECREF(bytes);
    PyTypeObject *t = (PyTypeObject *)cls;
    ScenarioObject *s = (ScenarioObject *)t->tp_alloc(t, 0);
    if (!s) {
        orca_scenario_destroy(sc);
        return NULL;
    }
    s->sc = sc;
    s->busy = 0;
    return (PyObject *)s;
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
     "read_scene(cls, path, workers, dt, seed)\n--\n\nA scene file built as by "
     "`orca run FILE`"},
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
        Py_INCREF(e); /* one reference kept by this file's static */
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
    return m;
}
