/* SPDX-License-Identifier: MIT */
/* orca._core.read_scene: a scene file read and built by the library's reader
 * (orca/scene_file.h), which the orca command uses. */
#include "_core.h"

#include <errno.h>

/* read_scene(cls, path, workers, dt, seed, pedestrian) -> a new cls (a subclass of
 * Scenario): the scene file read and built by the library's reader, which `orca run FILE`
 * uses (orca/scene_file.h: orca_scene_file_read, then orca_scene_file_build;
 * docs/scene-format.md), dt and seed overriding the file's when not None as --dt and --seed
 * do, pedestrian true building it with the pedestrian preset as --pedestrian does. A bad file raises ValueError
 * with the message `orca run` prints ("scene.txt:12: ..."); a file that cannot be opened or
 * read OSError (FileNotFoundError, IsADirectoryError, ...) naming the path; memory
 * MemoryError. The GIL is released while the file is read and the scenario built. */
PyObject *f_read_scene(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"cls", "path", "workers", "dt", "seed", "pedestrian", NULL};
    PyObject *cls, *po, *wo = NULL, *dto = Py_None, *so = Py_None;
    int pedestrian = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OOOp:read_scene", kwlist, &cls, &po, &wo,
                                     &dto, &so, &pedestrian)) {
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
    build.pedestrian = pedestrian;
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
