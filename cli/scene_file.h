/* SPDX-License-Identifier: MIT */
/* Scene files (docs/scene-format.md): a line-based text description of a scenario. */
#ifndef ORCA_CLI_SCENE_FILE_H
#define ORCA_CLI_SCENE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <orca/orca.h>

#define SCENE_NAME_MAX 63
/* Agents in a scene: the library's limit (docs/limits.md, "Sizes"); a `grid` line beyond it
 * is refused before anything is allocated. */
#define SCENE_AGENTS_MAX (1 << 30)

typedef struct scene_agent {
    orca_agent_def def;
    orca_goal goal;
    orca_agent_avoidance avoidance; /* priority=, layers=, mask=, locked= (docs/extensions.md) */
    int line;
    int via_first, via_count; /* waypoints (docs/extensions.md): points[via_first ..] */
    int loop;
    double arrive; /* 0: the agent's radius */
} scene_agent;

typedef enum scene_obstacle_kind {
    SCENE_SEGMENT = 0,
    SCENE_POLYLINE = 1,
    SCENE_POLYGON = 2,
    SCENE_BOUNDARY = 3 /* a walkable-area boundary loop (docs/extensions.md) */
} scene_obstacle_kind;

typedef struct scene_obstacle {
    scene_obstacle_kind kind;
    int first; /* index into points */
    int count; /* points (2 for a segment) */
    int line;
} scene_obstacle;

/* A parsed scene file. Only syntax and value ranges are checked by scene_read; the library
 * checks everything again when scene_build adds the objects. */
/* A named goal set: points[first .. first + count) */
typedef struct scene_goal_set {
    char name[64];
    int first, count, line;
    int exit;      /* `exit`: the agents that reach it leave (orca_scenario_set_goal_set_exit) */
    double arrive; /* `arrive=D` after `exit` (0: the agent's radius) */
} scene_goal_set;

typedef struct scene_desc {
    char path[512]; /* as given; "<stdin>" for "-" */
    int sys_errno;  /* when scene_read failed because the file could not be opened or read:
                     * the errno (ENOENT, EACCES, EISDIR, EIO, ...); else 0 */
    char name[SCENE_NAME_MAX + 1];
    int name_line; /* 0 when absent */
    double dt;
    int dt_line;
    uint64_t seed;
    int seed_line;
    int separation;      /* `separation on` (docs/extensions.md, "Coincident agents") */
    int separation_line; /* 0 when absent */
    int density_speed;   /* `density_speed on [radius=R] [gamma=G] [max_density=M]`
                            (docs/extensions.md, "Density-dependent speed") */
    orca_density_speed density; /* its parameters (the defaults where not given) */
    int density_line;    /* 0 when absent */
    int navigation;      /* `navigation on` (docs/navigation.md) */
    int navigation_line; /* 0 when absent */
    struct scene_goal_set *sets; /* `goalset NAME X1 Y1 ...`, in file order */
    int set_count, set_capacity;
    scene_agent *agents;
    int agent_count, agent_capacity;
    scene_obstacle *obstacles;
    int obstacle_count, obstacle_capacity;
    orca_vec2 *points;
    int point_count, point_capacity;
} scene_desc;

/* Reads a scene file ("-" is standard input): at most CLI_SCENE_FILE_MAX bytes, lines of at
 * most CLI_SCENE_LINE_MAX bytes, a leading UTF-8 byte-order mark skipped. Returns 0; -1 when
 * the file is bad (exit 2) or -2 when reading failed for another reason (out of memory, a
 * read error: exit 1), with a complete message ("scene.txt:12: radius must be > 0, got '-1'")
 * in err. *desc must be freed with scene_free in every case. */
int scene_read(const char *path, scene_desc *desc, char *err, size_t err_size);
void scene_free(scene_desc *desc);

/* Warns on stderr (up to 5 lines, then a count) about agents that start at exactly the same
 * point as an earlier agent, with both lines ("scene.txt:12: warning: agent 3 starts at the
 * same point as agent 1 (line 10) ..."), unless the built scenario separates coincident
 * agents (orca_sim_separation_active). Returns the number of such agents. */
int scene_warn_coincident(const scene_desc *desc, const orca_sim *sim, FILE *out);
/* The same over n positions in index order; lines (may be NULL) gives each agent's line,
 * where names the source ("scene.txt", "snapshot run.snap"). */
int cli_warn_coincident(const orca_vec2 *pos, int n, const int *lines, const char *where,
                        const orca_sim *sim, FILE *out);

/* Builds the scenario: dt and seed from the file unless overridden (non-NULL). Returns 0;
 * -1 when the library refuses the input (message with file and line in err: exit 2); -2 on
 * a runtime failure such as memory (exit 1). */
int scene_build(const scene_desc *desc, const orca_sim_def *sim_def, const double *dt_override,
                const uint64_t *seed_override, orca_scenario **out, char *err, size_t err_size);

/* Writes the scenario's current state as a scene file (positions, velocities, goals and
 * waypoints, parameters, segments, name, dt, seed), with `comment` as a header comment (may be NULL).
 * Reading it back and building gives the same orca_sim_hash as long as every preferred
 * velocity is zero (the rule sets them before each step). Returns 0, or -1 when the
 * scenario could not be read or the write failed. */
int scene_write(FILE *f, orca_scenario *sc, const char *comment);

/* Rebuilds sc into a new scenario with another dt (and sim definition): the same agents in the
 * same order (so the same perturbation keys), goals, waypoints (and their progress) and
 * segments. Returns an orca_status; on
 * a failure err receives what failed, the library's message and the status name. */
orca_status scene_clone(orca_scenario *sc, const orca_sim_def *sim_def, double dt, uint64_t seed,
                        orca_scenario **out, char *err, size_t err_size);

#endif
