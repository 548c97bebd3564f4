/* SPDX-License-Identifier: MIT */
/* orca scene files: the line-based text format of docs/scene-format.md (`orca run FILE`),
 * read into a parsed scene, built into a scenario (orca/scenario.h), and written back from
 * any scenario. The command, the Python module, orca-mpi and the browser module all read
 * scene files through these calls, so one file gives one scenario, to the same bits,
 * everywhere.
 *
 * Reading checks the syntax and the value ranges of every line; building adds the objects
 * to a new scenario, where the library checks everything again. A refusal of either names
 * the file, the line and the value, exactly as `orca run` prints it:
 * "scene.txt:12: radius must be > 0, got '-1'" (docs/scene-format.md, "Errors"). Messages
 * quote the file's bytes as they are; `orca run` shows control characters and bytes that
 * are not UTF-8 as \xNN when it prints them.
 *
 * Numbers are read with the C library's strtod and written with %.17g, so the C locale's
 * number format must be in force (LC_NUMERIC "C", every C program's until it calls
 * setlocale). Threads: any number of files may be read, built and written at once, each
 * object by one thread at a time. */
#ifndef ORCA_SCENE_FILE_H
#define ORCA_SCENE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "orca/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of a scene file: 1 GiB. A larger regular file or text is refused before it is
 * read; a stream (a pipe, standard input) as soon as it passes the limit. */
#define ORCA_SCENE_FILE_MAX ((uint64_t)1 << 30)
/** Bytes of one line before its newline: 1 MiB (a long polygon takes its points one per
 * line instead: docs/scene-format.md, "Obstacles"). */
#define ORCA_SCENE_LINE_MAX ((size_t)1 << 20)

/** A parsed scene file: what the file says, checked line by line, before anything is built.
 * Opaque; made by the orca_scene_file_read* calls, freed by orca_scene_file_destroy. */
typedef struct orca_scene_file orca_scene_file;

/** Reads the file at path ("-" is a file of that name, not standard input: see
 * orca_scene_file_read_stream). On success *out is the parsed scene. On a refusal *out is
 * NULL and orca_scene_file_last_error(NULL) gives the message:
 *   ORCA_ERR_FORMAT  the text is not a valid scene ("scene.txt:3: unknown statement 'agnet'
 *                    ...", "scene.txt: the scene has no agents ..."; a NUL byte included);
 *   ORCA_ERR_LIMIT   beyond ORCA_SCENE_FILE_MAX or ORCA_SCENE_LINE_MAX, or a `grid` beyond
 *                    the 2^30 agents of a scene;
 *   ORCA_ERR_ARGUMENT path names nothing that can be opened as a file ("x.txt: cannot open:
 *                    No such file or directory", "dir: is a directory"): errno holds the
 *                    reason (ENOENT, EACCES, EISDIR, ...);
 *   ORCA_ERR_IO      reading failed after the file was opened ("x.txt: read error: ..."):
 *                    errno holds the reason;
 *   ORCA_ERR_MEMORY  out of memory ("out of memory reading x.txt (at line 9)");
 *   ORCA_ERR_NULL    path or out NULL.
 * A UTF-8 byte-order mark at the very start is skipped. */
ORCA_API orca_status orca_scene_file_read(const char *path, orca_scene_file **out);
/** The same from an open stream (standard input, say), read to its end; name is what the
 * messages call it ("<stdin>"). Open the stream in binary mode where that differs ("rb"); the
 * reader takes CR LF line ends itself. The stream is not closed. */
ORCA_API orca_status orca_scene_file_read_stream(FILE *stream, const char *name,
                                                 orca_scene_file **out);
/** The same from size bytes of text in memory (need not be NUL-terminated; a NUL byte within
 * size is refused as in a file); name is what the messages call it ("scene.txt"). */
ORCA_API orca_status orca_scene_file_read_text(const char *text, size_t size, const char *name,
                                               orca_scene_file **out);
/** Frees a parsed scene (NULL is ignored). Scenarios built from it live on. */
ORCA_API void orca_scene_file_destroy(orca_scene_file *file);

/** The message of the last refused orca_scene_file_build on file ("" if none). With file
 * NULL: the message of the last refused read or write on the calling thread ("" once one
 * succeeded). Valid until the next call that can change it. */
ORCA_API const char *orca_scene_file_last_error(const orca_scene_file *file);

/** The line (1, 2, ...) of the file that gave the agent at index (0 .. agents - 1, in file
 * order, which is the index order of the built scenario's agents); a `grid` line gives all
 * of its agents. 0 for any other index. For messages about agents, such as the command's
 * warning about agents that start at one point. */
ORCA_API int orca_scene_file_agent_line(const orca_scene_file *file, int index);

/** How orca_scene_file_build makes the scenario. Fill from orca_scene_build_def_default(). */
typedef struct orca_scene_build_def {
    orca_sim_def sim; /**< the simulation's setup (orca_sim_def_default(): one worker) */
    int use_dt;       /**< 1: dt replaces the file's step (orca run --dt); 0: the file's
                           `dt`, or 0.25 s when it has none */
    double dt;        /**< the step in seconds when use_dt is 1 (checked by the scenario) */
    int use_seed;     /**< 1: seed replaces the file's (orca run --seed); 0: the file's
                           `seed`, or 1 when it has none */
    uint64_t seed;    /**< the perturbation's seed when use_seed is 1 */
    int pedestrian;   /**< 1: the pedestrian preset (orca run --pedestrian) as if the file
                           said `pedestrian on`, unless it says so with parameters of its own
                           (kept); 0: the file's `pedestrian` statement (docs/pedestrians.md) */
} orca_scene_build_def;

/** The simulation's defaults, and the file's dt and seed. */
ORCA_API orca_scene_build_def orca_scene_build_def_default(void);

/** Builds a new scenario from the parsed scene (def may be NULL for the defaults): its name,
 * options, goal sets, walls and agents in file order, each agent with its goal, waypoints,
 * avoidance settings and stream. With the pedestrian preset (`pedestrian on`, or
 * def->pedestrian) the model is on before the agents are added, every agent parameter that
 * neither a `default` line nor a key gives is the preset's (orca_pedestrian_agent_def), a
 * point or set goal's preferred speed not given is the free speed drawn for the agent
 * (orca_pedestrian_free_speed with its key, its place among the agents), and the step is
 * ORCA_PEDESTRIAN_DT when neither the file nor def gives one. A refusal of the library (a value the reader cannot check alone,
 * such as an agent outside the walkable area) is returned with its status and
 * orca_scene_file_last_error(file) naming the file and the line ("scene.txt:31: agent 17:
 * ..."); *out is then untouched. The file can be built any number of times. */
ORCA_API orca_status orca_scene_file_build(orca_scene_file *file, const orca_scene_build_def *def,
                                           orca_scenario **out);

/** Writes the scenario's current state as a scene file: its name, dt, seed and options, the
 * goal sets, the agents' parameters (the first agent's as `default` lines, the others' where
 * they differ), positions, velocities, goals, waypoints and avoidance settings, and the
 * walls, with comment (may be NULL) as a header comment line. Numbers are written with 17
 * significant digits, which read back as the same bits: the text read and built gives the
 * same orca_sim_hash, name, dt, seed, goals and waypoints as long as every preferred velocity
 * is zero (the rule sets them before each step). What the format does not hold (a waypoint
 * agent's progress, navigation's state, the exits' counts) starts afresh. ORCA_ERR_IO (with
 * errno) when the stream refuses the text, ORCA_ERR_MEMORY, ORCA_ERR_NULL; the message is
 * orca_scene_file_last_error(NULL). */
ORCA_API orca_status orca_scene_file_write(FILE *stream, const orca_scenario *sc,
                                           const char *comment);
/** The same text into buffer, NUL-terminated: *size receives its length in bytes (without
 * the NUL). With buffer NULL (capacity 0) only *size is set (ORCA_OK); with capacity below
 * *size + 1, ORCA_ERR_LIMIT and buffer (when capacity > 0) holds an empty string. */
ORCA_API orca_status orca_scene_file_write_text(const orca_scenario *sc, const char *comment,
                                                char *buffer, size_t capacity, size_t *size);

#ifdef __cplusplus
}
#endif
#endif
