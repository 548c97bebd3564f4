/* SPDX-License-Identifier: MIT */
/* orca._core.read_scene: a scene file read and built by the orca command's reader. */
#include "_core.h"

#include <errno.h>
#include <string.h>

#include "scene_file.h" /* cli/: the scene-file reader of `orca run` */

/* read_scene(cls, path, workers, dt, seed) -> a new cls (a subclass of Scenario): the scene
 * file read and built by the code `orca run FILE` uses (cli/scene_file.c: scene_read, then
 * scene_build; docs/scene-format.md), dt and seed overriding the file's when not None as
 * --dt and --seed do. A bad file raises ValueError with the message `orca run` prints
 * ("scene.txt:12: ..."); a file that cannot be opened or read OSError (FileNotFoundError,
 * IsADirectoryError, ...) naming the path; memory MemoryError. The GIL is released while
 * the file is read and the scenario built. */
PyObject *f_read_scene(PyObject *self, PyObject *args, PyObject *kwds)
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
    /* scene_read takes "-" for standard input: here it is the file named "-" */
    const char *path = PyBytes_AS_STRING(bytes);
    if (strcmp(path, "-") == 0) {
        path = "./-";
    }
    uint64_t seed64 = (uint64_t)seed;
    scene_desc *d = PyMem_RawMalloc(sizeof *d);
    char err[1024];
    orca_scenario *sc = NULL;
    int rc = -2;
    if (d) {
        Py_BEGIN_ALLOW_THREADS
        rc = scene_read(path, d, err, sizeof err);
        if (rc == 0) {
            rc = scene_build(d, &def, dto != Py_None ? &dt : NULL,
                             so != Py_None ? &seed64 : NULL, &sc, err, sizeof err);
        }
        Py_END_ALLOW_THREADS
    }
    int sys_errno = d ? d->sys_errno : 0;
    if (d) {
        scene_free(d);
        PyMem_RawFree(d);
    }
    if (rc != 0) {
        if (sys_errno) {
            errno = sys_errno;
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, po);
        } else if (rc == -2) {
            PyErr_NoMemory();
        } else {
            PyErr_SetString(PyExc_ValueError, err);
        }
        Py_DECREF(bytes);
        return NULL;
    }
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
