/* SPDX-License-Identifier: MIT */
/* Scene files (orca/scene_file.h): the writer, a scenario as the text of docs/scene-format.md
 * (what `orca scene` writes), to a stream or a buffer. Only the scenario's and the
 * simulation's public API is read. */
#include "orca/scene_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "scene_file_internal.h"

/* Where the text goes: a stream, or a buffer of cap bytes (len counts what would be written,
 * also beyond cap). Through a function pointer, so that a program that writes only to
 * buffers (the browser module) links no stream code. */
typedef struct sink sink;
struct sink {
    void (*emit)(sink *s, const char *fmt, va_list ap);
    FILE *f;
    char *buf;
    size_t cap, len;
};

static void emit_stream(sink *s, const char *fmt, va_list ap)
{
    vfprintf(s->f, fmt, ap);
}

static void emit_buffer(sink *s, const char *fmt, va_list ap)
{
    size_t room = s->len < s->cap ? s->cap - s->len : 0;
    int n = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
    s->len += n > 0 ? (size_t)n : 0;
}

static void put(sink *s, const char *fmt, ...) ORCA_PRINTF(2, 3);

static void put(sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    s->emit(s, fmt, ap);
    va_end(ap);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* A failed read of the scenario while writing it: its status, the library's message. */
static orca_status write_fail(orca_status st, const orca_scenario *sc)
{
    if (st == ORCA_ERR_MEMORY) {
        return orca_scene_file_fail(st, "writing the scene: out of memory");
    }
    return orca_scene_file_fail(st, "writing the scene: %s (%s)", orca_scenario_last_error(sc),
                           orca_status_name(st));
}

/* " X1 Y1 X2 Y2 ..." */
static void put_points(sink *s, const orca_vec2 *p, int n)
{
    for (int k = 0; k < n; ++k) {
        put(s, " %.17g %.17g", p[k].x, p[k].y);
    }
}

/* " via X1 Y1 ... [loop]" for an agent with waypoints; *arrive gets its arrive distance. */
static orca_status write_waypoints(sink *s, const orca_scenario *sc, int index, double *arrive)
{
    int n = 0, loop = 0;
    orca_status st = orca_scenario_agent_waypoints(sc, index, NULL, 0, &n, &loop, arrive);
    if (st != ORCA_OK || n == 0) {
        return st;
    }
    orca_vec2 *p = orca_mem_alloc((size_t)n, sizeof *p);
    st = p ? orca_scenario_agent_waypoints(sc, index, p, n, &n, &loop, arrive) : ORCA_ERR_MEMORY;
    if (st == ORCA_OK) {
        put(s, " via");
        put_points(s, p, n);
        if (loop) {
            put(s, " loop");
        }
    }
    orca_mem_free(p);
    return st;
}

/* `goalset NAME X1 Y1 ... [exit [arrive=D] [capacity=C]]` lines (capacity only when not the
 * default). */
static orca_status write_goal_sets(sink *s, const orca_scenario *sc)
{
    for (int k = 0; k < orca_scenario_goal_set_count(sc); ++k) {
        const char *name = NULL;
        int np = 0, is_exit = 0;
        double arrive = 0.0, capacity = ORCA_NAV_EXIT_CAPACITY;
        orca_status st = orca_scenario_goal_set_get(sc, k, &name, NULL, 0, &np);
        orca_vec2 *pts = st == ORCA_OK ? orca_mem_alloc((size_t)np, sizeof *pts) : NULL;
        if (st == ORCA_OK && !pts) {
            st = ORCA_ERR_MEMORY;
        }
        if (st == ORCA_OK) {
            st = orca_scenario_goal_set_get(sc, k, NULL, pts, np, &np);
        }
        if (st == ORCA_OK) {
            st = orca_scenario_goal_set_exit(sc, k, &is_exit, &arrive);
        }
        if (st == ORCA_OK) {
            st = orca_scenario_goal_set_capacity(sc, k, &capacity);
        }
        if (st == ORCA_OK) {
            put(s, "goalset %s", name);
            put_points(s, pts, np);
            if (is_exit) {
                put(s, " exit");
                if (arrive != 0.0) {
                    put(s, " arrive=%.17g", arrive);
                }
                if (capacity != ORCA_NAV_EXIT_CAPACITY) {
                    put(s, " capacity=%.17g", capacity);
                }
            }
            put(s, "\n");
        }
        orca_mem_free(pts);
        if (st != ORCA_OK) {
            return st;
        }
    }
    return ORCA_OK;
}

/* The header: name, dt, seed, options, goal sets, then the `default` lines (base, base_pref). */
static orca_status write_header(sink *s, const orca_scenario *sc, const char *comment,
                                const orca_agent_def *base, double base_pref)
{
    const orca_sim *sim = orca_scenario_sim((orca_scenario *)sc); /* only read */
    put(s, "# orca scene file (format: docs/scene-format.md)\n");
    if (comment) {
        put(s, "# %s\n", comment);
    }
    put(s, "orca-scene 1\n");
    put(s, "name %s\n", orca_scenario_name(sc));
    put(s, "dt %.17g\n", orca_scenario_dt(sc));
    put(s, "seed %llu\n", (unsigned long long)orca_scenario_seed(sc));
    if (orca_sim_get_separation(sim)) {
        put(s, "separation on\n");
    }
    orca_density_speed dens;
    if (orca_sim_get_density_speed(sim, &dens)) {
        put(s, "density_speed on radius=%.17g gamma=%.17g max_density=%.17g\n", dens.radius,
            dens.gamma, dens.max_density);
    }
    orca_pedestrian ped;
    if (orca_sim_get_pedestrian(sim, &ped)) {
        put(s, "pedestrian on time_gap=%.17g buffer=%.17g counter_reach=%.17g max_planes=%d\n",
            ped.time_gap, ped.buffer, ped.counter_reach, ped.max_planes);
    }
    if (orca_scenario_get_navigation(sc)) {
        put(s, "navigation on");
        if (orca_scenario_get_nav_check(sc)) {
            put(s, " check=on");
        }
        if (orca_scenario_get_exit_choice(sc) != ORCA_EXIT_NEAREST) {
            put(s, " exits=%s", orca_exit_choice_name(orca_scenario_get_exit_choice(sc)));
        }
        put(s, "\n");
    }
    orca_status st = write_goal_sets(s, sc);
    if (st != ORCA_OK) {
        return st;
    }
    put(s, "\n# defaults for the agent lines below\n");
    put(s, "default radius %.17g\n", base->radius);
    put(s, "default max_speed %.17g\n", base->max_speed);
    put(s, "default neighbor_dist %.17g\n", base->neighbor_dist);
    put(s, "default max_neighbors %d\n", base->max_neighbors);
    put(s, "default time_horizon %.17g\n", base->time_horizon);
    put(s, "default obstacle_time_horizon %.17g\n", base->obstacle_time_horizon);
    put(s, "default preferred_speed %.17g\n", base_pref);
    return ORCA_OK;
}

/* The segments, then the boundary loops. */
static orca_status write_walls(sink *s, const orca_sim *sim)
{
    int ns = orca_sim_segment_count(sim);
    put(s, "\n# %d segment%s: segment AX AY BX BY\n", ns, ns == 1 ? "" : "s");
    for (int i = 0; i < ns; ++i) {
        orca_vec2 a, b;
        orca_status st = orca_segment_get(sim, orca_sim_segment_at(sim, i), &a, &b);
        if (st != ORCA_OK) {
            return st;
        }
        put(s, "segment %.17g %.17g %.17g %.17g\n", a.x, a.y, b.x, b.y);
    }
    int nbd = orca_sim_boundary_count(sim);
    if (nbd > 0) {
        put(s, "\n# %d walkable-area boundar%s: boundary X1 Y1 X2 Y2 X3 Y3 ... (walkable on the "
               "left)\n",
            nbd, nbd == 1 ? "y" : "ies");
    }
    for (int i = 0; i < nbd; ++i) {
        orca_boundary_id bid = orca_sim_boundary_at(sim, i);
        int np = 0;
        orca_status st = orca_boundary_get(sim, bid, NULL, 0, &np);
        orca_vec2 *pts = st == ORCA_OK ? orca_mem_alloc((size_t)np, sizeof *pts) : NULL;
        if (st == ORCA_OK && !pts) {
            st = ORCA_ERR_MEMORY;
        }
        if (st == ORCA_OK) {
            st = orca_boundary_get(sim, bid, pts, np, &np);
        }
        if (st == ORCA_OK) {
            put(s, "boundary");
            put_points(s, pts, np);
            put(s, "\n");
        }
        orca_mem_free(pts);
        if (st != ORCA_OK) {
            return st;
        }
    }
    return ORCA_OK;
}

/* The key=value overrides of an agent whose parameters differ from base (bit for bit). */
static void put_overrides(sink *s, const orca_agent_def *def, const orca_agent_def *base)
{
    if (!same_bits(def->radius, base->radius)) {
        put(s, " radius=%.17g", def->radius);
    }
    if (!same_bits(def->max_speed, base->max_speed)) {
        put(s, " max_speed=%.17g", def->max_speed);
    }
    if (!same_bits(def->neighbor_dist, base->neighbor_dist)) {
        put(s, " neighbor_dist=%.17g", def->neighbor_dist);
    }
    if (def->max_neighbors != base->max_neighbors) {
        put(s, " max_neighbors=%d", def->max_neighbors);
    }
    if (!same_bits(def->time_horizon, base->time_horizon)) {
        put(s, " time_horizon=%.17g", def->time_horizon);
    }
    if (!same_bits(def->obstacle_time_horizon, base->obstacle_time_horizon)) {
        put(s, " obstacle_time_horizon=%.17g", def->obstacle_time_horizon);
    }
}

/* The avoidance settings that differ from the defaults. */
static void put_avoidance(sink *s, const orca_agent_avoidance *av)
{
    orca_agent_avoidance av0 = orca_agent_avoidance_default();
    if (!same_bits(av->priority, av0.priority)) {
        put(s, " priority=%.17g", av->priority);
    }
    if (av->layers != av0.layers) {
        put(s, " layers=0x%x", (unsigned)av->layers);
    }
    if (av->mask != av0.mask) {
        put(s, " mask=0x%x", (unsigned)av->mask);
    }
    if (av->locked) {
        put(s, " locked=1");
    }
}

/* One agent line. */
static orca_status write_agent(sink *s, const orca_scenario *sc, int i,
                               const orca_agent_def *base, double base_pref)
{
    const orca_sim *sim = orca_scenario_sim((orca_scenario *)sc); /* only read */
    orca_agent_id id = orca_sim_agent_at(sim, i);
    orca_agent_def def;
    orca_goal g;
    orca_agent_avoidance av;
    int32_t stream = -1;
    double arrive = 0.0;
    orca_status st = orca_agent_get(sim, id, &def);
    if (st == ORCA_OK) {
        st = orca_scenario_agent_goal(sc, i, &g, NULL);
    }
    if (st == ORCA_OK) {
        st = orca_agent_get_avoidance(sim, id, &av);
    }
    if (st == ORCA_OK) {
        st = orca_agent_get_stream(sim, id, &stream);
    }
    if (st != ORCA_OK) {
        return st;
    }
    put(s, "agent %.17g %.17g", def.position.x, def.position.y);
    if (g.kind == ORCA_GOAL_POINT) {
        put(s, " goal %.17g %.17g", g.target.x, g.target.y);
        st = write_waypoints(s, sc, i, &arrive);
    } else if (g.kind == ORCA_GOAL_VELOCITY) {
        put(s, " prefvel %.17g %.17g", g.target.x, g.target.y);
    } else if (g.kind == ORCA_GOAL_SET) {
        const char *name = NULL;
        st = orca_scenario_goal_set_get(sc, g.goal_set, &name, NULL, 0, NULL);
        if (st == ORCA_OK) {
            put(s, " goalset %s", name);
        }
    } else {
        put(s, " none");
    }
    if (st != ORCA_OK) {
        return st;
    }
    put_overrides(s, &def, base);
    if ((g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET) &&
        !same_bits(g.preferred_speed, base_pref)) {
        put(s, " preferred_speed=%.17g", g.preferred_speed);
    }
    if (!same_bits(def.velocity.x, 0.0) || !same_bits(def.velocity.y, 0.0)) {
        put(s, " velocity=%.17g,%.17g", def.velocity.x, def.velocity.y);
    }
    if (!same_bits(arrive, 0.0)) {
        put(s, " arrive=%.17g", arrive);
    }
    /* the stream where it is not the one the reader gives (with the pedestrian model on, a
     * goal-set agent's is its set's index; else none) */
    int32_t given = orca_sim_get_pedestrian(sim, NULL) && g.kind == ORCA_GOAL_SET ? g.goal_set : -1;
    if (stream != given) {
        put(s, " stream=%ld", (long)stream);
    }
    put_avoidance(s, &av);
    put(s, "\n");
    return ORCA_OK;
}

/* The whole scene file into s. */
static orca_status write_scene(sink *s, const orca_scenario *sc, const char *comment)
{
    const orca_sim *sim = orca_scenario_sim((orca_scenario *)sc); /* only read */
    int na = orca_sim_agent_count(sim);
    orca_agent_def base = orca_agent_def_default();
    double base_pref = orca_goal_default().preferred_speed;
    /* Defaults from the first agent: built-in scenes give every agent the same parameters. */
    orca_status st = ORCA_OK;
    if (na > 0) {
        orca_goal g = orca_goal_default();
        st = orca_agent_get(sim, orca_sim_agent_at(sim, 0), &base);
        if (st == ORCA_OK) {
            st = orca_scenario_agent_goal(sc, 0, &g, NULL);
        }
        if (st == ORCA_OK && (g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET)) {
            base_pref = g.preferred_speed;
        }
    }
    if (st == ORCA_OK) {
        st = write_header(s, sc, comment, &base, base_pref);
    }
    if (st == ORCA_OK) {
        st = write_walls(s, sim);
    }
    if (st == ORCA_OK) {
        put(s, "\n# %d agent%s: agent X Y [goal GX GY [via X1 Y1 ... [loop]] | prefvel VX VY | "
               "none] [key=value ...]\n",
            na, na == 1 ? "" : "s");
    }
    for (int i = 0; i < na && st == ORCA_OK; ++i) {
        st = write_agent(s, sc, i, &base, base_pref);
    }
    return st == ORCA_OK ? ORCA_OK : write_fail(st, sc);
}

orca_status orca_scene_file_write(FILE *stream, const orca_scenario *sc, const char *comment)
{
    if (!stream || !sc) {
        return orca_scene_file_fail(ORCA_ERR_NULL, "%s must not be NULL", stream ? "sc" : "stream");
    }
    sink s = {emit_stream, stream, NULL, 0, 0};
    orca_status st = write_scene(&s, sc, comment);
    if (st == ORCA_OK && ferror(stream)) {
        int e = errno ? errno : EIO;
        orca_scene_file_fail(ORCA_ERR_IO, "writing the scene: %s", strerror(e));
        errno = e;
        return ORCA_ERR_IO;
    }
    if (st == ORCA_OK) {
        orca_scene_file_clear_error();
    }
    return st;
}

orca_status orca_scene_file_write_text(const orca_scenario *sc, const char *comment, char *buffer,
                                       size_t capacity, size_t *size)
{
    if (!sc || !size || (!buffer && capacity > 0)) {
        return orca_scene_file_fail(ORCA_ERR_NULL, "%s must not be NULL",
                               !sc ? "sc" : !size ? "size" : "buffer");
    }
    sink s = {emit_buffer, NULL, buffer, capacity, 0};
    orca_status st = write_scene(&s, sc, comment);
    if (st != ORCA_OK) {
        return st;
    }
    *size = s.len;
    if (buffer && s.len >= capacity) {
        if (capacity > 0) {
            buffer[0] = '\0';
        }
        return orca_scene_file_fail(ORCA_ERR_LIMIT,
                                    "writing the scene: the text has %zu bytes, the buffer room "
                                    "for %zu",
                                    s.len, capacity - 1);
    }
    orca_scene_file_clear_error();
    return ORCA_OK;
}
