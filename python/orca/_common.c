/* SPDX-License-Identifier: MIT */
/* orca._core: what every type of the binding uses (_core.h): raising the library's status as
 * an exception, argument conversion, the bulk calls' limits, output buffers, handles and
 * snapshot bytes. */
#include "_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

/* ------------------------------------------------------------------------------------------
 * Errors: the classes (_core.h says which status each stands for) are created by
 * PyInit__core
 * ---------------------------------------------------------------------------------------- */

PyObject *Error;
PyObject *ArgumentError;
PyObject *StaleError;
PyObject *ForeignError;
PyObject *FormatError;
PyObject *LimitError;
PyObject *OrcaMemoryError;

/* Raises the exception class of status with the library's message; returns NULL. The
 * exception gets the attributes status (the enumerator's name) and code (its value). */
PyObject *raise_status(int status, const char *message)
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
int get_double(PyObject *obj, const char *name, double *out)
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
int get_finite(PyObject *obj, const char *name, double *out)
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
int get_int(PyObject *obj, const char *name, long lo, long hi, int *out)
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

/* A seed: an integer in [0, 2^64). */
int get_seed(PyObject *so, unsigned long long *out)
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

/* A 2-vector: any sequence of two real numbers (tuple, list, NumPy array of shape (2,)). */
int get_vec2(PyObject *obj, const char *name, orca_vec2 *out)
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
int get_rows(PyObject *obj, const char *name, int cols, int finite, double **out,
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
Py_ssize_t row_count(PyObject *obj)
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

/* Checks a bulk call of n rows (issue 27, item 9) before anything is allocated: n at most max
 * (limit: what bounds it, for the message), and n * row_bytes within the machine's physical
 * memory. Returns 0, or -1 with orca.LimitError or orca.OutOfMemoryError naming the count. */
int check_rows(const char *call, const char *name, Py_ssize_t n, Py_ssize_t max,
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
int check_bulk(PyObject *obj, const char *call, const char *name, Py_ssize_t max,
               const char *limit, Py_ssize_t row_bytes)
{
    Py_ssize_t n = row_count(obj);
    return n < 0 ? -1 : check_rows(call, name, n, max, limit, row_bytes);
}

/* A writable C-contiguous float64 buffer of exactly `count` doubles (an `out=` argument). */
int get_out_buffer(PyObject *obj, const char *name, Py_ssize_t count, Py_buffer *view)
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

/* ------------------------------------------------------------------------------------------
 * Results
 * ---------------------------------------------------------------------------------------- */

PyObject *vec2_tuple(orca_vec2 v)
{
    return Py_BuildValue("(dd)", v.x, v.y);
}

/* A list of the first n entries of v, as ints (NULL with an exception set on failure). */
PyObject *int_list(const int *v, int n)
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

/* ------------------------------------------------------------------------------------------
 * Handles: a Python int, sim << 64 | generation << 32 | slot (sim: the issuing simulation's
 * identity, orca_sim_id), wrapped by orca.Agent / orca.Segment / orca.Boundary. Two handles
 * are equal exactly when the ints are.
 * ---------------------------------------------------------------------------------------- */

PyObject *k_64;

int get_handle(PyObject *obj, uint32_t *slot, uint32_t *generation, uint32_t *sim)
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

PyObject *handle_int(uint32_t slot, uint32_t generation, uint32_t sim)
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
 * Snapshots: Sim's and Scenario's save() and load()
 * ---------------------------------------------------------------------------------------- */

/* A snapshot as bytes: save (orca_sim_save's or orca_scenario_save's conventions) of obj. NULL
 * with *st the library's refusal, or with *st ORCA_OK and a Python error set. */
PyObject *snapshot_bytes(save_fn *save, const void *obj, orca_status *st)
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
int snapshot_view(PyObject *arg, const char *what, Py_buffer *view)
{
    if (PyObject_GetBuffer(arg, view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "load() takes bytes (%s from save()), got %.100s", what,
                     Py_TYPE(arg)->tp_name);
        return -1;
    }
    return 0;
}
