/* SPDX-License-Identifier: MIT */
/* orca run --save and --load: scenario snapshots, and the simulation snapshots of earlier
 * versions (snapfile.h). */
#define _POSIX_C_SOURCE 200809L
#include "snapfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The first bytes of the two formats (docs/scenarios.md, docs/determinism.md): a stream that
 * begins with neither is refused as soon as they have been read, not after a gigabyte. */
#define SCENARIO_MAGIC "ORCASCEN"
#define SIM_MAGIC "ORCASNAP"

/* --- saving ---------------------------------------------------------------------------------- */

/* The snapshot's size into *size; EXIT_USAGE (message printed) when --load could not read it
 * back. */
static int snapshot_size(orca_scenario *sc, size_t *size)
{
    orca_status st = orca_scenario_save(sc, NULL, 0, size);
    if (st != ORCA_OK) {
        cli_error("--save: %s (%s)", orca_scenario_last_error(sc), orca_status_name(st));
        return EXIT_RUNTIME;
    }
    if (*size > CLI_SNAPSHOT_MAX) {
        char lim[64], got[64];
        int n = orca_sim_agent_count(orca_scenario_sim(sc));
        cli_format_bytes(lim, sizeof lim, CLI_SNAPSHOT_MAX);
        cli_format_bytes(got, sizeof got, *size);
        cli_error("--save: the snapshot would be %s, more than the limit of %s that --load "
                  "reads (%d agent%s)",
                  got, lim, n, n == 1 ? "" : "s");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int snapfile_check_size(orca_scenario *sc)
{
    size_t size = 0;
    return snapshot_size(sc, &size);
}

int snapfile_save(cli_out *out, orca_scenario *sc)
{
    size_t size = 0;
    int rc = snapshot_size(sc, &size);
    if (rc != EXIT_OK) {
        /* It grew during the run (navigation's paths): too late to refuse the command line. */
        return EXIT_RUNTIME;
    }
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf) {
        cli_error("--save: out of memory (%zu bytes)", size);
        return EXIT_RUNTIME;
    }
    orca_status st = orca_scenario_save(sc, buf, size, &size);
    if (st != ORCA_OK) {
        cli_error("--save: %s (%s)", orca_scenario_last_error(sc), orca_status_name(st));
        free(buf);
        return EXIT_RUNTIME;
    }
    size_t put = fwrite(buf, 1, size, out->f);
    free(buf);
    if (put != size) {
        cli_error("--save: %s: write failed: %s", out->path, strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* --- loading a scenario snapshot ------------------------------------------------------------- */

/* What a run never changes in its scenario (agents leave only by exits): a snapshot whose
 * scenario differs in any of these was saved from another scene or with other options. */
typedef struct scene_facts {
    char name[64];
    double dt;
    uint64_t seed;
    int agents, exited; /* in the simulation; left by exits */
    int segments, boundaries, goal_sets;
} scene_facts;

static void facts_of(orca_scenario *sc, scene_facts *f)
{
    orca_sim *sim = orca_scenario_sim(sc);
    snprintf(f->name, sizeof f->name, "%s", orca_scenario_name(sc));
    f->dt = orca_scenario_dt(sc);
    f->seed = orca_scenario_seed(sc);
    f->agents = orca_sim_agent_count(sim);
    f->exited = 0;
    orca_scenario_exited(sc, &f->exited, NULL);
    f->segments = orca_sim_segment_count(sim);
    f->boundaries = orca_sim_boundary_count(sim);
    f->goal_sets = orca_scenario_goal_set_count(sc);
}

/* "the snapshot has 3 agents (1 of them left by exits) but the scene has 2": a count that
 * differs (the first one), or 0 when none does. The agents that left count as the scene's. */
static int count_differs(const scene_facts *snap, const scene_facts *scene, char *why,
                         size_t size)
{
    const char *what[4][2] = {{"agent", "agents"},
                              {"wall segment", "wall segments"},
                              {"boundary loop", "boundary loops"},
                              {"goal set", "goal sets"}};
    int a[4] = {snap->agents + snap->exited, snap->segments, snap->boundaries, snap->goal_sets};
    int b[4] = {scene->agents, scene->segments, scene->boundaries, scene->goal_sets};
    for (int k = 0; k < 4; ++k) {
        if (a[k] != b[k]) {
            char left[64] = "";
            if (k == 0 && snap->exited > 0) {
                snprintf(left, sizeof left, " (%d of them left by exits)", snap->exited);
            }
            snprintf(why, size, "the snapshot has %d %s%s but the scene has %d", a[k],
                     what[k][a[k] != 1], left, b[k]);
            return 1;
        }
    }
    return 0;
}

/* Refuses a snapshot of another scene: its name, counts, dt and seed must be the scene's.
 * Returns 0, or -1 with the message printed. */
static int check_same_scene(const char *shown, const scene_facts *snap,
                            const scene_facts *scene)
{
    char why[400];
    const char *hint = "give the scene the snapshot was saved from";
    if (strcmp(snap->name, scene->name) != 0) {
        char a[80], b[80];
        snprintf(why, sizeof why, "the snapshot is of scene %s but the scene is %s",
                 cli_quote(a, sizeof a, snap->name), cli_quote(b, sizeof b, scene->name));
    } else if (count_differs(snap, scene, why, sizeof why)) {
        /* why is set */
    } else if (snap->dt != scene->dt) {
        snprintf(why, sizeof why, "the snapshot's dt is %.17g s but the scene's is %.17g s",
                 snap->dt, scene->dt);
        hint = "give the --dt the snapshot was saved with";
    } else if (snap->seed != scene->seed) {
        snprintf(why, sizeof why, "the snapshot's seed is %llu but the scene's is %llu",
                 (unsigned long long)snap->seed, (unsigned long long)scene->seed);
        hint = "give the --seed the snapshot was saved with";
    } else {
        return 0;
    }
    cli_error("--load: %s: %s (%s)", shown, why, hint);
    return -1;
}

/* An orca_scenario_save snapshot: the whole run as saved (the record of arrivals, overlaps,
 * fallbacks and exits included). */
static int load_scenario(const char *shown, const unsigned char *data, size_t size,
                         orca_scenario *sc)
{
    scene_facts scene, snap;
    facts_of(sc, &scene);
    orca_status st = orca_scenario_load(sc, data, size);
    if (st != ORCA_OK) {
        cli_error("--load: %s: %s", shown, orca_scenario_last_error(sc));
        return st == ORCA_ERR_MEMORY ? EXIT_RUNTIME : EXIT_USAGE;
    }
    facts_of(sc, &snap);
    return check_same_scene(shown, &snap, &scene) != 0 ? EXIT_USAGE : EXIT_OK;
}

/* --- loading a simulation snapshot of an earlier version ------------------------------------- */

/* Waypoint progress after the simulation's snapshot (docs/usage.md, "Snapshots"), as orca run
 * wrote it before it saved scenarios, when some agent had waypoints. Layout, integers
 * little-endian: for each waypoint agent in index order its index and current target (u32
 * each), then the agent count m (u32), the FNV-1a checksum of the section's bytes before it
 * (u64), the section's whole length (u64) and the 8 bytes "ORCAWAYP". */
#define WAYP_MAGIC "ORCAWAYP"
#define WAYP_FOOTER 28 /* m, checksum, length, magic */

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int b = bytes - 1; b >= 0; --b) {
        v = (v << 8) | p[b];
    }
    return v;
}

static uint64_t wayp_checksum(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Splits the file into the simulation's snapshot (*sim_size bytes) and checks the waypoint
 * section after it, if any. Returns 0 (with *wayp at the section or NULL), or -1 with a
 * message in err. */
static int wayp_split(const unsigned char *data, size_t size, size_t *sim_size,
                      const unsigned char **wayp, size_t *wayp_size, char *err, size_t err_size)
{
    *sim_size = size;
    *wayp = NULL;
    *wayp_size = 0;
    if (size < WAYP_FOOTER || memcmp(data + size - 8, WAYP_MAGIC, 8) != 0) {
        return 0;
    }
    uint64_t len = get_le(data + size - 16, 8);
    if (len < WAYP_FOOTER || len > size || (len - WAYP_FOOTER) % 8 != 0) {
        snprintf(err, err_size, "the waypoint section has a bad length (%llu of %zu bytes)",
                 (unsigned long long)len, size);
        return -1;
    }
    const unsigned char *w = data + size - len;
    size_t body = (size_t)len - WAYP_FOOTER;
    uint64_t m = get_le(w + body, 4);
    if (m * 8 != body || get_le(w + body + 4, 8) != wayp_checksum(w, body + 4)) {
        snprintf(err, err_size, "the waypoint section is corrupt (count or checksum)");
        return -1;
    }
    *sim_size = size - (size_t)len;
    *wayp = w;
    *wayp_size = body;
    return 0;
}

/* Each listed agent's current target. Returns an exit status (message printed). */
static int restore_waypoints(const char *shown, const unsigned char *wayp, size_t wayp_size,
                             orca_scenario *sc)
{
    int n = orca_sim_agent_count(orca_scenario_sim(sc));
    for (size_t at = 0; at < wayp_size; at += 8) {
        int index = (int)get_le(wayp + at, 4);
        uint64_t current = get_le(wayp + at + 4, 4);
        int c = 0;
        if (index < 0 || index >= n ||
            orca_scenario_agent_waypoints(sc, index, NULL, 0, &c, NULL, NULL) != ORCA_OK ||
            c == 0) {
            cli_error("--load: %s: the snapshot has waypoint progress for agent %d, which has "
                      "no waypoints in the scene (give the scene the snapshot was saved from)",
                      shown, index);
            return EXIT_USAGE;
        }
        if (current > (uint64_t)c ||
            orca_scenario_set_waypoint_index(sc, index, (int)current) != ORCA_OK) {
            cli_error("--load: %s: agent %d: %s", shown, index,
                      current > (uint64_t)c ? "waypoint index beyond its waypoints"
                                            : orca_scenario_last_error(sc));
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

/* An orca_sim_save snapshot (and its waypoint section): the agents, walls and step count;
 * the goals, dt and seed come from the scene, whose agents it must match one for one. */
static int load_simulation(const char *shown, const unsigned char *data, size_t size,
                           orca_scenario *sc)
{
    char err[1024];
    orca_sim *sim = orca_scenario_sim(sc);
    int scene_agents = orca_sim_agent_count(sim);
    size_t sim_size = size, wayp_size = 0;
    const unsigned char *wayp = NULL;
    if (wayp_split(data, size, &sim_size, &wayp, &wayp_size, err, sizeof err) != 0) {
        cli_error("--load: %s: %s", shown, err);
        return EXIT_USAGE;
    }
    orca_status st = orca_sim_load(sim, data, sim_size);
    if (st != ORCA_OK) {
        cli_error("--load: %s: %s", shown, orca_sim_last_error(sim));
        return st == ORCA_ERR_MEMORY ? EXIT_RUNTIME : EXIT_USAGE;
    }
    int n = orca_sim_agent_count(sim);
    if (n != scene_agents) {
        cli_error("--load: %s: the snapshot has %d agent%s but the scene has %d (give the scene "
                  "the snapshot was saved from)",
                  shown, n, n == 1 ? "" : "s", scene_agents);
        return EXIT_USAGE;
    }
    for (int i = 0; i < n; ++i) {
        if (orca_scenario_agent_goal(sc, i, NULL, NULL) != ORCA_OK) {
            cli_error("--load: %s: agent %d of the snapshot is not an agent of the scene (give "
                      "the scene the snapshot was saved from)",
                      shown, i);
            return EXIT_USAGE;
        }
    }
    return restore_waypoints(shown, wayp, wayp_size, sc);
}

/* --- loading ---------------------------------------------------------------------------------- */

int snapfile_load(const char *path, orca_scenario *sc, int *whole_run)
{
    static const char *const magics[] = {SCENARIO_MAGIC, SIM_MAGIC, NULL};
    unsigned char *data = NULL;
    size_t size = 0;
    char err[1024];
    int rc = cli_read_file(path, CLI_SNAPSHOT_MAX, "snapshot", magics, &data, &size, err,
                           sizeof err);
    if (rc != CLI_READ_OK) {
        cli_error("--load: %s", err);
        return rc == CLI_READ_RUNTIME ? EXIT_RUNTIME : EXIT_USAGE;
    }
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    *whole_run = size >= 8 && memcmp(data, SCENARIO_MAGIC, 8) == 0;
    if (*whole_run) {
        rc = load_scenario(shown, data, size, sc);
    } else {
        rc = load_simulation(shown, data, size, sc);
    }
    free(data);
    return rc;
}
