/* SPDX-License-Identifier: MIT */
/* Scene files (orca/scene_file.h): the reader and the builder (the writer is
 * src/scene_write.c). The format is documented in docs/scene-format.md; keep the two in step.
 * Only the public API of the scenario and the simulation is used here: a scene file is one
 * more front end, like the command, Python and the browser module, and the library checks
 * everything it builds. */
#include "orca/scene_file.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <sys/stat.h>
#endif

#include "alloc.h"
#include "scene_file_internal.h"
#include "text.h"

/* The file's defaults where it says nothing (docs/scenarios.md, "Defaults"); those of agent
 * parameters and preferred_speed are the library's (orca_agent_def_default,
 * orca_goal_default). */
#define SF_DEFAULT_DT 0.25
#define SF_DEFAULT_SEED 1u
#define SF_NAME_MAX 63
/* Agents in a scene: the library's limit (docs/limits.md, "Sizes"); a `grid` line beyond it
 * is refused before anything is allocated. */
#define SF_AGENTS_MAX (1 << 30)
#define SF_ERROR_SIZE 1024

typedef struct sf_agent {
    orca_agent_def def;
    orca_goal goal;
    orca_agent_avoidance avoidance; /* priority=, layers=, mask=, locked= (docs/extensions.md) */
    unsigned given;   /* the parameters a `default` line or a key gave (1 << param_kind): the
                         pedestrian preset fills the others (docs/pedestrians.md) */
    int stream_given; /* stream=K (docs/pedestrians.md) */
    int32_t stream;
    int line;
    int via_first, via_count; /* waypoints (docs/extensions.md): points[via_first ..] */
    int loop;
    double arrive; /* 0: the agent's radius */
} sf_agent;

typedef enum sf_obstacle_kind {
    SF_SEGMENT = 0,
    SF_POLYLINE = 1,
    SF_POLYGON = 2,
    SF_BOUNDARY = 3 /* a walkable-area boundary loop (docs/extensions.md) */
} sf_obstacle_kind;

typedef struct sf_obstacle {
    sf_obstacle_kind kind;
    int first; /* index into points */
    int count; /* points (2 for a segment) */
    int line;
} sf_obstacle;

/* A named goal set: points[first .. first + count) */
typedef struct sf_goal_set {
    char name[64];
    int first, count, line;
    int exit;      /* `exit`: the agents that reach it leave (orca_scenario_set_goal_set_exit) */
    double arrive; /* `arrive=D` after `exit` (0: the agent's radius) */
    double capacity; /* `capacity=C` after `exit` (0: not given) */
} sf_goal_set;

/* What the file says. Only syntax and value ranges are checked while reading; the library
 * checks everything again when orca_scene_file_build adds the objects. */
struct orca_scene_file {
    char *path; /* the name in messages: the path, or the caller's name of a stream or text */
    char name[SF_NAME_MAX + 1];
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
    int pedestrian;      /* `pedestrian on [time_gap=T] [buffer=B] [counter_reach=D]
                            [max_planes=N]` (docs/pedestrians.md) */
    orca_pedestrian ped; /* its parameters (the defaults where not given) */
    int pedestrian_line; /* 0 when absent */
    int navigation;      /* `navigation on [check=on|off] [exits=MODE]` (docs/navigation.md) */
    int navigation_line; /* 0 when absent */
    int nav_check;       /* check=on: the leg check */
    int exit_choice;     /* exits=nearest|calm|quickest (orca_exit_choice) */
    sf_goal_set *sets;   /* `goalset NAME X1 Y1 ...`, in file order */
    int set_count, set_capacity;
    sf_agent *agents;
    int agent_count, agent_capacity;
    sf_obstacle *obstacles;
    int obstacle_count, obstacle_capacity;
    orca_vec2 *points;
    int point_count, point_capacity;
    char error[SF_ERROR_SIZE]; /* the last refused build */
};

/* The message of the calling thread's last refused read or write (no object holds it). */
static _Thread_local char g_scene_file_error[SF_ERROR_SIZE];

orca_status orca_scene_file_fail(orca_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_scene_file_error, sizeof g_scene_file_error, fmt, ap);
    va_end(ap);
    return st;
}

void orca_scene_file_clear_error(void)
{
    g_scene_file_error[0] = '\0';
}

/* --- reader state -------------------------------------------------------------------------- */

typedef struct reader reader;
typedef struct line_source line_source;

/* Where the bytes come from: a stream read in chunks, or text in memory, through read_chunk
 * (so that a program that reads only text links no stream code). Lines are cut out of
 * buf[start, end), at most ORCA_SCENE_LINE_MAX bytes a line and ORCA_SCENE_FILE_MAX in all. */
struct line_source {
    /* up to n more bytes into to: their count, 0 at the end, -1 on a failure (message
     * written) */
    long (*read_chunk)(reader *r, line_source *ls, char *to, size_t n);
    FILE *stream;
    const char *text; /* the rest of the text: text[0 .. text_left) */
    size_t text_left;
    long origin;      /* the stream's position before the first read, or -1 (not a file) */
    int size_checked; /* the stream's size was compared with the limit */
    char *buf;
    size_t cap, start, end; /* unread bytes: buf[start, end) */
    uint64_t total;         /* bytes read so far */
    int eof;
};

struct reader {
    orca_scene_file *d;
    orca_status status; /* of the refusal: ORCA_ERR_FORMAT unless said otherwise */
    int sys_errno;      /* the reason of a failed read of the stream (errno), else 0 */
    int line;
    orca_agent_def defaults;
    double default_pref_speed;
    unsigned default_given; /* the parameters `default` lines set so far (1 << param_kind) */
    int version_line;
    int block;         /* the open polyline/polygon/boundary block: its obstacle, or -1 */
    char **tok;        /* the fields of the current line after its keyword */
    int tok_capacity;
    char qbuf[4][64];  /* quoted fields for messages (q) */
    int qnext;
};

/* A field quoted for a message, shortened when long ("'abc...'"). */
static const char *q(reader *r, const char *s)
{
    char *b = r->qbuf[r->qnext++ & 3];
    return orca_quote(b, sizeof r->qbuf[0], s);
}

static int out_of_memory(reader *r)
{
    r->status = orca_scene_file_fail(ORCA_ERR_MEMORY, "out of memory reading %s (at line %d)",
                                r->d->path, r->line);
    return -1;
}

/* "FILE:LINE: message", the refusal's status st. Returns -1. */
static int vfail_at(reader *r, orca_status st, const char *fmt, va_list ap)
{
    char *err = g_scene_file_error;
    size_t size = sizeof g_scene_file_error;
    r->status = st;
    int n = snprintf(err, size, "%s:%d: ", r->d->path, r->line);
    if (n >= 0 && (size_t)n < size) {
        vsnprintf(err + n, size - (size_t)n, fmt, ap);
    }
    return -1;
}

static int rfail(reader *r, const char *fmt, ...) ORCA_PRINTF(2, 3);
static int rlimit(reader *r, const char *fmt, ...) ORCA_PRINTF(2, 3);

/* A bad line (ORCA_ERR_FORMAT). */
static int rfail(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(r, ORCA_ERR_FORMAT, fmt, ap);
    va_end(ap);
    return -1;
}

/* A line beyond a limit of the format (ORCA_ERR_LIMIT). */
static int rlimit(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(r, ORCA_ERR_LIMIT, fmt, ap);
    va_end(ap);
    return -1;
}

/* Room for need elements of elem bytes in *ptr (capacity doubling from 64, at most 2^30). */
static int grow(void **ptr, int *capacity, int need, size_t elem)
{
    if (need <= *capacity) {
        return 0;
    }
    int cap = *capacity ? *capacity : 64;
    while (cap < need) {
        if (cap > (1 << 29)) {
            return -1;
        }
        cap *= 2;
    }
    void *p = orca_mem_resize(*ptr, (size_t)cap, elem); /* a 32-bit size_t: NULL, not short */
    if (!p) {
        return -1;
    }
    *ptr = p;
    *capacity = cap;
    return 0;
}

/* A number for `field`. */
static int num(reader *r, const char *field, const char *tok, double *out)
{
    char why[160];
    if (orca_parse_double(tok, out, why, sizeof why) != 0) {
        return rfail(r, "%s: %s", field, why);
    }
    return 0;
}

/* A coordinate: finite with magnitude below 2^21 (ORCA_COORD_LIMIT). */
static int coord(reader *r, const char *field, const char *tok, double *out)
{
    if (num(r, field, tok, out) != 0) {
        return -1;
    }
    if (!(*out < ORCA_COORD_LIMIT && *out > -ORCA_COORD_LIMIT)) {
        return rfail(r, "%s must have magnitude below 2^21 (2097152), got %s", field, q(r, tok));
    }
    return 0;
}

/* --- agent parameters ---------------------------------------------------------------------- */

/* The agent parameters that `default` and key=value accept. */
typedef enum param_kind {
    P_RADIUS,
    P_MAX_SPEED,
    P_NEIGHBOR_DIST,
    P_MAX_NEIGHBORS,
    P_TIME_HORIZON,
    P_OBSTACLE_TIME_HORIZON,
    P_PREFERRED_SPEED,
    P_VELOCITY, /* key=value only from here on */
    P_ARRIVE,   /* with via points */
    P_STREAM,   /* the pedestrian model's (docs/pedestrians.md) */
    P_PRIORITY, /* the avoidance extensions (docs/extensions.md) */
    P_LAYERS,
    P_MASK,
    P_LOCKED,
    P_UNKNOWN
} param_kind;

static const char *const k_param_names[] = {
    "radius",       "max_speed",           "neighbor_dist",   "max_neighbors",
    "time_horizon", "obstacle_time_horizon", "preferred_speed", "velocity",
    "arrive",       "stream",                "priority",        "layers",
    "mask",         "locked"};

static param_kind param_from_name(const char *name, size_t len)
{
    for (int i = 0; i < (int)P_UNKNOWN; ++i) {
        if (strlen(k_param_names[i]) == len && strncmp(k_param_names[i], name, len) == 0) {
            return (param_kind)i;
        }
    }
    return P_UNKNOWN;
}

/* Parses and range-checks one avoidance setting (agent lines only) into *av. */
static int set_avoidance_param(reader *r, param_kind k, const char *tok, orca_agent_avoidance *av)
{
    const char *name = k_param_names[k];
    char why[160];
    if (k == P_PRIORITY) {
        double v;
        if (num(r, name, tok, &v) != 0) {
            return -1;
        }
        if (!(v >= ORCA_PRIORITY_MIN && v <= ORCA_PRIORITY_MAX)) {
            return rfail(r, "priority must be in [2^-30, 2^30], got %s%s", q(r, tok),
                         orca_rounds_to_zero(tok, v));
        }
        av->priority = v;
        return 0;
    }
    long long n;
    long long max = k == P_LOCKED ? 1 : 0xFFFFFFFFll;
    int rc = orca_parse_long(tok, 0, max, &n, why, sizeof why);
    if (rc == -1) {
        return rfail(r, "%s: %s", name, why);
    }
    if (rc != 0) {
        return k == P_LOCKED ? rfail(r, "locked must be 0 or 1, got %s", q(r, tok))
                             : rfail(r, "%s must be a 32-bit mask (0 to 0xFFFFFFFF), got %s", name,
                                     q(r, tok));
    }
    if (k == P_LAYERS) {
        av->layers = (uint32_t)n;
    } else if (k == P_MASK) {
        av->mask = (uint32_t)n;
    } else {
        av->locked = (int)n;
    }
    return 0;
}

/* stream=K (agent lines only): -1 (none) or a whole number >= 0 that an int32 holds, the
 * library's range (orca_agent_set_stream). */
static int stream_param(reader *r, const char *tok, int32_t *stream)
{
    long long n;
    char why[160];
    int rc = orca_parse_long(tok, -1, INT32_MAX, &n, why, sizeof why);
    if (rc == -1) {
        return rfail(r, "stream: %s", why);
    }
    if (rc != 0) {
        return rfail(r, "stream must be -1 (none) or a number >= 0 (at most %ld), got %s",
                     (long)INT32_MAX, q(r, tok));
    }
    *stream = (int32_t)n;
    return 0;
}

/* velocity=VX,VY into def. */
static int velocity_param(reader *r, const char *tok, orca_agent_def *def)
{
    const char *comma = strchr(tok, ',');
    if (!comma || strchr(comma + 1, ',')) {
        return rfail(r, "velocity: expected VX,VY (two numbers and a comma), got %s", q(r, tok));
    }
    char x[128];
    size_t len = (size_t)(comma - tok);
    if (len >= sizeof x) {
        return rfail(r, "velocity: number too long in %s", q(r, tok));
    }
    memcpy(x, tok, len);
    x[len] = '\0';
    double vx, vy;
    if (num(r, "velocity x", x, &vx) != 0 || num(r, "velocity y", comma + 1, &vy) != 0) {
        return -1;
    }
    def->velocity.x = vx;
    def->velocity.y = vy;
    return 0;
}

/* max_neighbors=N (or its default) into def. */
static int max_neighbors_param(reader *r, const char *tok, orca_agent_def *def)
{
    long long n;
    char why[160];
    int rc = orca_parse_long(tok, 0, ORCA_MAX_NEIGHBORS_LIMIT, &n, why, sizeof why);
    if (rc == -1) {
        return rfail(r, "%s: %s", k_param_names[P_MAX_NEIGHBORS], why);
    }
    if (rc != 0) {
        return rfail(r, "max_neighbors must be between 0 and %d, got %s", ORCA_MAX_NEIGHBORS_LIMIT,
                     q(r, tok));
    }
    def->max_neighbors = (int)n;
    return 0;
}

/* A real parameter's value v (from tok) into *field: > 0 when positive, else >= 0. */
static int real_param(reader *r, param_kind k, const char *tok, double v, int positive,
                      double *field)
{
    if (positive && !(v > 0.0)) {
        return rfail(r, "%s must be > 0, got %s%s", k_param_names[k], q(r, tok),
                     orca_rounds_to_zero(tok, v));
    }
    if (!positive && !(v >= 0.0)) {
        return rfail(r, "%s must be >= 0, got %s", k_param_names[k], q(r, tok));
    }
    *field = v;
    return 0;
}

/* arrive=D: the library's range (orca_scenario_set_waypoints), 0 (the agent's radius) or
 * 2^-30 .. 2^23 m. */
static int arrive_param(reader *r, const char *tok, double v, double *arrive)
{
    if (!(v == 0.0 || (v >= 0x1.0p-30 && v <= 0x1.0p23))) {
        return rfail(r, "arrive must be 0 (the agent's radius) or between 2^-30 and 2^23 m, got "
                        "%s%s",
                     q(r, tok), orca_rounds_to_zero(tok, v));
    }
    *arrive = v;
    return 0;
}

/* Parses and range-checks one parameter value into def / *pref_speed / *arrive. */
static int set_param(reader *r, param_kind k, const char *tok, orca_agent_def *def,
                     double *pref_speed, double *arrive)
{
    if (k == P_MAX_NEIGHBORS) {
        return max_neighbors_param(r, tok, def);
    }
    if (k == P_VELOCITY) {
        return velocity_param(r, tok, def);
    }
    double v = 0.0;
    if (num(r, k_param_names[k], tok, &v) != 0) {
        return -1;
    }
    switch (k) {
    case P_RADIUS: return real_param(r, k, tok, v, 1, &def->radius);
    case P_MAX_SPEED: return real_param(r, k, tok, v, 0, &def->max_speed);
    case P_NEIGHBOR_DIST: return real_param(r, k, tok, v, 0, &def->neighbor_dist);
    case P_TIME_HORIZON: return real_param(r, k, tok, v, 1, &def->time_horizon);
    case P_OBSTACLE_TIME_HORIZON: return real_param(r, k, tok, v, 1, &def->obstacle_time_horizon);
    case P_PREFERRED_SPEED: return real_param(r, k, tok, v, 0, pref_speed);
    case P_ARRIVE: return arrive_param(r, tok, v, arrive);
    default: return 0; /* not a real parameter: handled above or by set_avoidance_param */
    }
}

/* --- points and obstacles ------------------------------------------------------------------ */

static int add_point(reader *r, double x, double y)
{
    orca_scene_file *d = r->d;
    if (grow((void **)&d->points, &d->point_capacity, d->point_count + 1, sizeof *d->points)) {
        return out_of_memory(r);
    }
    d->points[d->point_count].x = x;
    d->points[d->point_count].y = y;
    d->point_count++;
    return 0;
}

/* The tokens tok[0 .. 2 * count) as count points, named "PREFIX k x" and "PREFIX k y" in
 * messages with k from first_number on, appended to points. */
static int add_points(reader *r, const char *prefix, char **tok, int count, int first_number)
{
    for (int k = 0; k < count; ++k) {
        char fx[48], fy[48];
        snprintf(fx, sizeof fx, "%s %d x", prefix, first_number + k);
        snprintf(fy, sizeof fy, "%s %d y", prefix, first_number + k);
        double x, y;
        if (coord(r, fx, tok[2 * k], &x) != 0 || coord(r, fy, tok[2 * k + 1], &y) != 0 ||
            add_point(r, x, y) != 0) {
            return -1;
        }
    }
    return 0;
}

static int add_obstacle(reader *r, sf_obstacle_kind kind)
{
    orca_scene_file *d = r->d;
    if (grow((void **)&d->obstacles, &d->obstacle_capacity, d->obstacle_count + 1,
             sizeof *d->obstacles)) {
        return out_of_memory(r);
    }
    sf_obstacle *o = &d->obstacles[d->obstacle_count++];
    o->kind = kind;
    o->first = d->point_count;
    o->count = 0;
    o->line = r->line;
    return 0;
}

static const char *kind_name(sf_obstacle_kind k)
{
    return k == SF_SEGMENT    ? "segment"
           : k == SF_POLYLINE ? "polyline"
           : k == SF_POLYGON  ? "polygon"
                              : "boundary";
}

/* "x y" pairs of tokens into the last obstacle. */
static int obstacle_points(reader *r, char **tok, int ntok)
{
    sf_obstacle *o = &r->d->obstacles[r->d->obstacle_count - 1];
    if (ntok % 2 != 0) {
        return rfail(r, "%s: coordinates come in x y pairs, got %d numbers", kind_name(o->kind),
                     ntok);
    }
    if (add_points(r, "point", tok, ntok / 2, 1) != 0) {
        return -1;
    }
    r->d->obstacles[r->d->obstacle_count - 1].count += ntok / 2;
    return 0;
}

/* The point counts of a finished polyline, polygon or boundary (reported at its first line). */
static int finish_obstacle(reader *r, const sf_obstacle *o)
{
    int save = r->line;
    r->line = o->line;
    int rc = 0;
    if (o->kind == SF_POLYLINE && o->count < 2) {
        rc = rfail(r, "polyline needs at least 2 points, got %d", o->count);
    } else if (o->kind == SF_POLYGON && o->count < 3) {
        rc = rfail(r, "polygon needs at least 3 points, got %d", o->count);
    } else if (o->kind == SF_BOUNDARY && o->count < 3) {
        rc = rfail(r, "boundary needs at least 3 points (boundary X1 Y1 X2 Y2 X3 Y3 ...), got %d",
                   o->count);
    }
    r->line = save;
    return rc;
}

/* --- agents -------------------------------------------------------------------------------- */

/* What a goal clause sets besides the goal itself: waypoints. */
typedef struct goal_clause {
    orca_goal goal;
    int via_first, via_count, loop;
} goal_clause;

/* goal GX GY [via X1 Y1 ... [loop]] from tok[*i] (which is "goal") on; *i moves past it. */
static int goal_point_clause(reader *r, char **tok, int ntok, int *i, goal_clause *c)
{
    if (ntok < *i + 3) {
        return rfail(r, "goal needs two coordinates: goal GX GY");
    }
    if (coord(r, "goal x", tok[*i + 1], &c->goal.target.x) != 0 ||
        coord(r, "goal y", tok[*i + 2], &c->goal.target.y) != 0) {
        return -1;
    }
    c->goal.kind = ORCA_GOAL_POINT;
    *i += 3;
    if (*i >= ntok || strcmp(tok[*i], "via") != 0) {
        return 0;
    }
    /* via X1 Y1 X2 Y2 ...: the numbers up to 'loop', a key=value or the end */
    int from = ++*i;
    while (*i < ntok && strcmp(tok[*i], "loop") != 0 && strchr(tok[*i], '=') == NULL) {
        ++*i;
    }
    int nums = *i - from;
    if (nums == 0) {
        return rfail(r, "via needs at least one point: goal GX GY via X1 Y1 [X2 Y2 ...] [loop]");
    }
    if (nums % 2 != 0) {
        return rfail(r, "via: coordinates come in x y pairs, got %d numbers", nums);
    }
    c->via_first = r->d->point_count;
    if (add_points(r, "via point", tok + from, nums / 2, 1) != 0) {
        return -1;
    }
    c->via_count = nums / 2;
    if (*i < ntok && strcmp(tok[*i], "loop") == 0) {
        c->loop = 1;
        ++*i;
    }
    return 0;
}

/* The goal clause of an agent or grid line at tok[*i] (`what` names the statement), if any:
 * goal ... | prefvel VX VY | none | goalset NAME. *i moves past it. */
static int goal_clause_at(reader *r, const char *what, char **tok, int ntok, int *i,
                          goal_clause *c)
{
    const orca_scene_file *d = r->d;
    const char *after = what[0] == 'g' ? "grid's placement" : "position";
    if (*i >= ntok || strchr(tok[*i], '=') != NULL) {
        return 0; /* no goal clause: none */
    }
    const char *w = tok[*i];
    if (strcmp(w, "goal") == 0) {
        return goal_point_clause(r, tok, ntok, i, c);
    }
    if (strcmp(w, "prefvel") == 0) {
        if (ntok < *i + 3) {
            return rfail(r, "prefvel needs two components: prefvel VX VY");
        }
        if (num(r, "prefvel x", tok[*i + 1], &c->goal.target.x) != 0 ||
            num(r, "prefvel y", tok[*i + 2], &c->goal.target.y) != 0) {
            return -1;
        }
        c->goal.kind = ORCA_GOAL_VELOCITY;
        *i += 3;
        return 0;
    }
    if (strcmp(w, "none") == 0) {
        *i += 1;
        return 0;
    }
    if (strcmp(w, "goalset") == 0) {
        if (ntok < *i + 2) {
            return rfail(r, "goalset needs the name of a goal set: goalset NAME");
        }
        int set = -1;
        for (int k = 0; k < d->set_count; ++k) {
            if (strcmp(d->sets[k].name, tok[*i + 1]) == 0) {
                set = k;
            }
        }
        if (set < 0) {
            return rfail(r, "%s: unknown goal set %s (declare it first: goalset NAME X1 Y1 [X2 "
                            "Y2 ...])",
                         what, q(r, tok[*i + 1]));
        }
        c->goal.kind = ORCA_GOAL_SET;
        c->goal.goal_set = set;
        *i += 2;
        return 0;
    }
    if (strcmp(w, "via") == 0 || strcmp(w, "loop") == 0) {
        return rfail(r, "%s: %s needs a goal point first (goal GX GY via X1 Y1 ... [loop])", what,
                     q(r, w));
    }
    return rfail(r, "%s: expected 'goal', 'goalset', 'prefvel', 'none' or key=value after the "
                    "%s, got %s",
                 what, after, q(r, w));
}

/* What follows the position on an agent line, and the placement on a grid line (`what`
 * names the statement in messages): the goal clause, then key=value overrides, from tok[i]
 * on, into *a with the defaults in force; a's position is the caller's. */
static int agent_clause(reader *r, const char *what, char **tok, int ntok, int i, sf_agent *a)
{
    orca_agent_def def = r->defaults;
    double pref_speed = r->default_pref_speed;
    goal_clause c = {orca_goal_default(), 0, 0, 0}; /* no goal clause: none */
    a->stream = -1;
    double arrive = 0.0;
    if (goal_clause_at(r, what, tok, ntok, &i, &c) != 0) {
        return -1;
    }
    unsigned seen = 0;
    orca_agent_avoidance avoidance = orca_agent_avoidance_default();
    for (; i < ntok; ++i) {
        const char *eq = strchr(tok[i], '=');
        if (!eq && (strcmp(tok[i], "via") == 0 || strcmp(tok[i], "loop") == 0)) {
            return rfail(r, "%s: %s must come right after 'goal GX GY' (goal GX GY via X1 Y1 ... "
                            "[loop])",
                         what, q(r, tok[i]));
        }
        if (!eq) {
            return rfail(r, "%s: expected key=value, got %s (goal, prefvel or none must come "
                            "right after the %s)",
                         what, q(r, tok[i]), what[0] == 'g' ? "grid's placement" : "position");
        }
        param_kind k = param_from_name(tok[i], (size_t)(eq - tok[i]));
        if (k == P_UNKNOWN) {
            tok[i][eq - tok[i]] = '\0'; /* the key alone, for the message */
            return rfail(r,
                         "unknown agent parameter %s (known: radius, max_speed, neighbor_dist, "
                         "max_neighbors, time_horizon, obstacle_time_horizon, preferred_speed, "
                         "velocity, arrive, stream, priority, layers, mask, locked)",
                         q(r, tok[i]));
        }
        if (seen & (1u << k)) {
            return rfail(r, "agent parameter '%s' given twice", k_param_names[k]);
        }
        seen |= 1u << k;
        if (k == P_ARRIVE && c.via_count == 0) {
            return rfail(r, "%s: arrive= needs via points (goal GX GY via X1 Y1 ... arrive=D)",
                         what);
        }
        if (k == P_STREAM ? stream_param(r, eq + 1, &a->stream) != 0
            : k >= P_PRIORITY ? set_avoidance_param(r, k, eq + 1, &avoidance) != 0
                              : set_param(r, k, eq + 1, &def, &pref_speed, &arrive) != 0) {
            return -1;
        }
    }
    a->stream_given = (seen >> P_STREAM) & 1;
    a->given = r->default_given | seen;
    if (c.goal.kind == ORCA_GOAL_POINT || c.goal.kind == ORCA_GOAL_SET) {
        c.goal.preferred_speed = pref_speed;
    }
    a->def = def;
    a->goal = c.goal;
    a->avoidance = avoidance;
    a->line = r->line;
    a->via_first = c.via_first;
    a->via_count = c.via_count;
    a->loop = c.loop;
    a->arrive = arrive;
    return 0;
}

/* Room for n more agents (n <= SF_AGENTS_MAX - agent_count). */
static int reserve_agents(reader *r, long long n)
{
    orca_scene_file *d = r->d;
    if (grow((void **)&d->agents, &d->agent_capacity, d->agent_count + (int)n, sizeof *d->agents)) {
        return out_of_memory(r);
    }
    return 0;
}

/* x = X0 + (i + h) * DX: h = 0.5 on the odd rows of a staggered grid, else 0 (i + h is exact);
 * the product rounded to binary64, then the sum (no contraction: -ffp-contract=off). The
 * port's formula (docs/scene-format.md, "Grids"). */
static double grid_coord(double origin, double index, double step)
{
    double offset = index * step;
    return origin + offset;
}

/* A grid's counts NX, NY and reals X0 Y0 DX DY (tok[0 .. 6)); their product within what the
 * scene may still hold. */
static int grid_numbers(reader *r, char **tok, long long n[2], double v[4])
{
    static const char *const count_name[2] = {"NX", "NY"};
    static const char *const real_name[4] = {"X0", "Y0", "DX", "DY"};
    char why[160];
    for (int k = 0; k < 2; ++k) {
        int rc = orca_parse_long(tok[k], 1, SF_AGENTS_MAX, &n[k], why, sizeof why);
        if (rc != 0) { /* "NX: expected a whole number, got 'x'", "NX must be between ..." */
            return rfail(r, "grid: %s%s %s", count_name[k], rc == -1 ? ":" : "", why);
        }
    }
    for (int k = 0; k < 4; ++k) {
        char field[16];
        snprintf(field, sizeof field, "grid %s", real_name[k]);
        if (num(r, field, tok[2 + k], &v[k]) != 0) {
            return -1;
        }
    }
    long long count = n[0] * n[1]; /* at most 2^60 */
    int before = r->d->agent_count;
    if (count > SF_AGENTS_MAX - before) {
        return count > SF_AGENTS_MAX
                   ? rlimit(r, "grid: NX * NY = %lld agents, more than the limit of 2^30 "
                               "(1073741824) agents in a scene",
                            count)
                   : rlimit(r, "grid: %lld agents after the %d before it, more than the limit "
                               "of 2^30 (1073741824) agents in a scene",
                            count, before);
    }
    return 0;
}

/* Every point of the grid within the coordinate limit. Rounding is monotonic, so every point
 * lies within the extreme ones: x at i + h = 0 and NX - 1 (and 0.5 more on an odd row of a
 * staggered grid), y at j = 0 and NY - 1. */
static int grid_extent(reader *r, const long long n[2], const double v[4], int stagger)
{
    for (int k = 0; k < 4; ++k) {
        long long i = (k & 1) ? n[0] - 1 : 0, j = k >> 1; /* j = 1: an odd row */
        if (j == 1 && !(stagger && n[1] > 1)) {
            break;
        }
        double x = grid_coord(v[0], (double)i + (j ? 0.5 : 0.0), v[2]);
        if (!(x < ORCA_COORD_LIMIT && x > -ORCA_COORD_LIMIT)) {
            return rfail(r, "grid: point (%lld, %lld) x = %.17g must have magnitude below 2^21 "
                            "(2097152)",
                         i, j, x);
        }
    }
    for (int k = 0; k < 2; ++k) {
        long long j = k ? n[1] - 1 : 0;
        double y = grid_coord(v[1], (double)j, v[3]);
        if (!(y < ORCA_COORD_LIMIT && y > -ORCA_COORD_LIMIT)) {
            return rfail(r, "grid: point (0, %lld) y = %.17g must have magnitude below 2^21 "
                            "(2097152)",
                         j, y);
        }
    }
    return 0;
}

/* --- statements ---------------------------------------------------------------------------- *
 * One handler a keyword: tok[0 .. ntok) are the fields after it (for `name`, tok[0] is the
 * rest of the line as it is). Each returns 0, or -1 with the message written. */

typedef int statement_fn(reader *r, const char *kw, char **tok, int ntok);

static int once(reader *r, int *line, const char *what)
{
    if (*line) {
        return rfail(r, "%s given twice (first on line %d)", what, *line);
    }
    *line = r->line;
    return 0;
}

/* KEYWORD on|off, at most once per file (its line in *line): *on from the first field; with
 * `alone` nothing may follow it. */
static int on_off(reader *r, const char *kw, int *line, char **tok, int ntok, int alone, int *on)
{
    if (once(r, line, kw) != 0) {
        return -1;
    }
    if ((alone ? ntok != 1 : ntok < 1) ||
        (strcmp(tok[0], "on") != 0 && strcmp(tok[0], "off") != 0)) {
        return rfail(r, "%s takes 'on' or 'off', got %s", kw, q(r, ntok ? tok[0] : ""));
    }
    *on = strcmp(tok[0], "on") == 0;
    return 0;
}

/* name TEXT: the rest of the line. */
static int st_name(reader *r, const char *kw, char **tok, int ntok)
{
    (void)kw;
    (void)ntok;
    orca_scene_file *d = r->d;
    const char *rest = tok[0];
    if (once(r, &d->name_line, "name") != 0) {
        return -1;
    }
    size_t len = strlen(rest);
    if (len == 0 || len > SF_NAME_MAX) {
        return rfail(r, "name must have 1 to %d bytes, got %zu", SF_NAME_MAX, len);
    }
    char why[96];
    if (orca_check_text(rest, why, sizeof why) != 0) {
        return rfail(r, "name: %s (the name must be UTF-8 text without control characters)", why);
    }
    memcpy(d->name, rest, len + 1);
    return 0;
}

/* orca-scene 1 */
static int st_version(reader *r, const char *kw, char **tok, int ntok)
{
    (void)kw;
    if (once(r, &r->version_line, "orca-scene") != 0) {
        return -1;
    }
    if (ntok != 1 || strcmp(tok[0], "1") != 0) {
        return rfail(r, "orca-scene: this orca reads format version 1, got %s",
                     q(r, ntok ? tok[0] : ""));
    }
    return 0;
}

/* KEYWORD VALUE, at most once per file (its line in *line); `what` says what VALUE is. */
static int one_field(reader *r, const char *kw, int *line, const char *what, int ntok)
{
    if (once(r, line, kw) != 0) {
        return -1;
    }
    if (ntok != 1) {
        return rfail(r, "%s takes %s, got %d fields", kw, what, ntok);
    }
    return 0;
}

/* dt SECONDS */
static int st_dt(reader *r, const char *kw, char **tok, int ntok)
{
    orca_scene_file *d = r->d;
    if (one_field(r, kw, &d->dt_line, "one number (seconds)", ntok) != 0 ||
        num(r, "dt", tok[0], &d->dt) != 0) {
        return -1;
    }
    if (!(d->dt > 0.0)) {
        return rfail(r, "dt must be > 0, got %s%s", q(r, tok[0]),
                     orca_rounds_to_zero(tok[0], d->dt));
    }
    return 0;
}

/* seed N */
static int st_seed(reader *r, const char *kw, char **tok, int ntok)
{
    orca_scene_file *d = r->d;
    if (one_field(r, kw, &d->seed_line, "one whole number", ntok) != 0) {
        return -1;
    }
    char why[160];
    if (orca_parse_u64(tok[0], &d->seed, why, sizeof why) != 0) {
        return rfail(r, "seed: %s", why);
    }
    return 0;
}

/* separation on|off */
static int st_separation(reader *r, const char *kw, char **tok, int ntok)
{
    return on_off(r, kw, &r->d->separation_line, tok, ntok, 1, &r->d->separation);
}

/* navigation on|off [check=on|off] [exits=nearest|calm|quickest] (docs/scene-format.md):
 * the parameters only with 'on', each at most once. */
static int st_navigation(reader *r, const char *kw, char **tok, int ntok)
{
    orca_scene_file *d = r->d;
    if (on_off(r, kw, &d->navigation_line, tok, ntok, 0, &d->navigation) != 0) {
        return -1;
    }
    if (!d->navigation && ntok > 1) {
        return rfail(r, "navigation off takes nothing after it, got %s", q(r, tok[1]));
    }
    int seen_check = 0, seen_exits = 0;
    for (int i = 1; i < ntok; ++i) {
        if (strncmp(tok[i], "check=", 6) == 0 && !seen_check++) {
            const char *v = tok[i] + 6;
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
                return rfail(r, "navigation check= takes 'on' or 'off', got %s", q(r, v));
            }
            d->nav_check = strcmp(v, "on") == 0;
        } else if (strncmp(tok[i], "exits=", 6) == 0 && !seen_exits++) {
            d->exit_choice = orca_exit_choice_from_name(tok[i] + 6);
            if (d->exit_choice < 0) {
                return rfail(r, "navigation exits= takes nearest, calm or quickest, got %s",
                             q(r, tok[i] + 6));
            }
        } else {
            return rfail(r, "navigation: after 'on' only check=on|off and "
                            "exits=nearest|calm|quickest, each once, may follow, got %s",
                         q(r, tok[i]));
        }
    }
    return 0;
}

/* The KEY=VALUE fields after `KEYWORD on` (tok[1] on): each one of the n keys, at most once,
 * its number into *fields[k] (`expected` lists them for the message). With `off` nothing may
 * follow. */
static int on_off_numbers(reader *r, const char *kw, char **tok, int ntok, int on,
                          const char *const *keys, double *const *fields, int n,
                          const char *expected)
{
    if (!on && ntok > 1) {
        return rfail(r, "%s off takes nothing after it, got %s", kw, q(r, tok[1]));
    }
    unsigned seen = 0;
    for (int i = 1; i < ntok; ++i) {
        const char *eq = strchr(tok[i], '=');
        int k = 0;
        while (k < n && !(eq && (size_t)(eq - tok[i]) == strlen(keys[k]) &&
                          strncmp(tok[i], keys[k], strlen(keys[k])) == 0)) {
            ++k;
        }
        if (k == n) {
            return rfail(r, "%s: expected %s, got %s", kw, expected, q(r, tok[i]));
        }
        if (seen & (1u << k)) {
            return rfail(r, "%s: %s given twice", kw, keys[k]);
        }
        seen |= 1u << k;
        char field[48];
        snprintf(field, sizeof field, "%s %s", kw, keys[k]);
        if (num(r, field, eq + 1, fields[k]) != 0) {
            return -1;
        }
    }
    return 0;
}

/* density_speed on|off [radius=R] [gamma=G] [max_density=M] (docs/scene-format.md): the
 * parameters only with 'on', each at most once; their ranges are the library's, checked when
 * the scenario is built (orca_sim_set_density_speed, the message naming this line). */
static int st_density(reader *r, const char *kw, char **tok, int ntok)
{
    orca_scene_file *d = r->d;
    if (on_off(r, kw, &d->density_line, tok, ntok, 0, &d->density_speed) != 0) {
        return -1;
    }
    d->density = orca_density_speed_default();
    static const char *const keys[3] = {"radius", "gamma", "max_density"};
    double *const fields[3] = {&d->density.radius, &d->density.gamma, &d->density.max_density};
    return on_off_numbers(r, kw, tok, ntok, d->density_speed, keys, fields, 3,
                          "radius=R, gamma=G or max_density=M");
}

/* pedestrian on|off [time_gap=T] [buffer=B] [counter_reach=D] [max_planes=N]
 * (docs/pedestrians.md): the preset, with the model's parameters (the defaults where not
 * given) only with 'on'; max_planes a whole number; the ranges are the library's, checked when
 * the scenario is built (orca_scenario_set_pedestrian, the message naming this line). */
static int st_pedestrian(reader *r, const char *kw, char **tok, int ntok)
{
    orca_scene_file *d = r->d;
    if (on_off(r, kw, &d->pedestrian_line, tok, ntok, 0, &d->pedestrian) != 0) {
        return -1;
    }
    d->ped = orca_pedestrian_default();
    double planes = (double)d->ped.max_planes;
    static const char *const keys[4] = {"time_gap", "buffer", "counter_reach", "max_planes"};
    double *const fields[4] = {&d->ped.time_gap, &d->ped.buffer, &d->ped.counter_reach, &planes};
    if (on_off_numbers(r, kw, tok, ntok, d->pedestrian, keys, fields, 4,
                       "time_gap=T, buffer=B, counter_reach=D or max_planes=N") != 0) {
        return -1;
    }
    if (!(planes >= (double)INT_MIN && planes <= (double)INT_MAX && planes == (double)(int)planes)) {
        return rfail(r, "pedestrian max_planes must be a whole number, got %.17g", planes);
    }
    d->ped.max_planes = (int)planes;
    return 0;
}

/* The `exit [arrive=D] [capacity=C]` after a goal set's points (tok[from] on). */
static int goal_set_exit(reader *r, char **tok, int ntok, int from, sf_goal_set *gs)
{
    int seen_arrive = 0, seen_capacity = 0;
    for (int k = from; k < ntok; ++k) {
        if (strcmp(tok[k], "exit") == 0 && k == from) {
            gs->exit = 1;
        } else if (strncmp(tok[k], "arrive=", 7) == 0 && gs->exit && !seen_arrive++) {
            if (num(r, "arrive", tok[k] + 7, &gs->arrive) != 0) {
                return -1;
            }
            if (!(gs->arrive == 0.0 || (gs->arrive >= 0x1p-30 && gs->arrive <= 0x1p23))) {
                return rfail(r, "arrive must be 0 (the agent's radius) or between 2^-30 and 2^23 "
                                "m, got %s",
                             q(r, tok[k] + 7));
            }
        } else if (strncmp(tok[k], "capacity=", 9) == 0 && gs->exit && !seen_capacity++) {
            if (num(r, "capacity", tok[k] + 9, &gs->capacity) != 0) {
                return -1;
            }
            if (!(gs->capacity >= 0x1p-30 && gs->capacity <= 0x1p30)) {
                return rfail(r, "capacity must be between 2^-30 and 2^30 agents a second, got %s",
                             q(r, tok[k] + 9));
            }
        } else {
            return rfail(r, "goalset: after the points only 'exit' and then 'arrive=D' and "
                            "'capacity=C' (each once) may follow, got %s",
                         q(r, tok[k]));
        }
    }
    return 0;
}

/* goalset NAME X1 Y1 [X2 Y2 ...] [exit [arrive=D] [capacity=C]] */
static int st_goalset(reader *r, const char *kw, char **tok, int ntok)
{
    (void)kw;
    orca_scene_file *d = r->d;
    int nums = 0;
    while (1 + nums < ntok && strcmp(tok[1 + nums], "exit") != 0 &&
           strchr(tok[1 + nums], '=') == NULL) {
        ++nums;
    }
    if (ntok < 3 || nums < 2 || nums % 2 != 0) {
        return rfail(r, "goalset takes a name and points: goalset NAME X1 Y1 [X2 Y2 ...] [exit "
                        "[arrive=D] [capacity=C]], got %d fields",
                     ntok);
    }
    sf_goal_set parsed;
    memset(&parsed, 0, sizeof parsed);
    if (goal_set_exit(r, tok, ntok, 1 + nums, &parsed) != 0) {
        return -1;
    }
    size_t len = strlen(tok[0]);
    if (len > 63) {
        return rfail(r, "goalset: the name has %zu characters, at most 63", len);
    }
    for (int k = 0; k < d->set_count; ++k) {
        if (strcmp(d->sets[k].name, tok[0]) == 0) {
            return rfail(r, "goalset %s is declared twice (first on line %d)", q(r, tok[0]),
                         d->sets[k].line);
        }
    }
    if (grow((void **)&d->sets, &d->set_capacity, d->set_count + 1, sizeof *d->sets)) {
        return out_of_memory(r);
    }
    sf_goal_set *gs = &d->sets[d->set_count];
    memset(gs, 0, sizeof *gs);
    memcpy(gs->name, tok[0], len + 1);
    gs->first = d->point_count;
    gs->line = r->line;
    gs->exit = parsed.exit;
    gs->arrive = parsed.arrive;
    gs->capacity = parsed.capacity;
    if (add_points(r, "goalset point", tok + 1, nums / 2, 1) != 0) {
        return -1;
    }
    gs->count = nums / 2;
    d->set_count++;
    return 0;
}

/* default KEY VALUE */
static int st_default(reader *r, const char *kw, char **tok, int ntok)
{
    (void)kw;
    if (ntok != 2) {
        return rfail(r, "default takes a parameter name and a value (default radius 1.5), got %d "
                        "fields",
                     ntok);
    }
    param_kind k = param_from_name(tok[0], strlen(tok[0]));
    if (k == P_UNKNOWN || k >= P_VELOCITY) {
        return rfail(r,
                     "unknown default %s (known: radius, max_speed, neighbor_dist, "
                     "max_neighbors, time_horizon, obstacle_time_horizon, preferred_speed)",
                     q(r, tok[0]));
    }
    double unused = 0.0;
    r->default_given |= 1u << k;
    return set_param(r, k, tok[1], &r->defaults, &r->default_pref_speed, &unused);
}

/* agent X Y [GOAL] [key=value ...] */
static int st_agent(reader *r, const char *kw, char **tok, int ntok)
{
    (void)kw;
    if (ntok < 2) {
        return rfail(r, "agent needs a position: agent X Y [goal GX GY [via X1 Y1 ... [loop]] | "
                        "goalset NAME | prefvel VX VY | none] [key=value ...]");
    }
    orca_vec2 p;
    sf_agent a;
    if (coord(r, "x", tok[0], &p.x) != 0 || coord(r, "y", tok[1], &p.y) != 0 ||
        agent_clause(r, "agent", tok, ntok, 2, &a) != 0 || reserve_agents(r, 1) != 0) {
        return -1;
    }
    a.def.position = p;
    r->d->agents[r->d->agent_count++] = a;
    return 0;
}

/* grid NX NY X0 Y0 DX DY [stagger] [GOAL] [key=value ...] (docs/scene-format.md, "Grids"):
 * NX * NY agents in index order j (rows) outer, i inner, each as an agent line with the same
 * goal clause and overrides, at (grid_coord(X0, i + h, DX), grid_coord(Y0, j, DY)). */
static int st_grid(reader *r, const char *kw, char **tok, int ntok)
{
    (void)kw;
    orca_scene_file *d = r->d;
    if (ntok < 6) {
        return rfail(r, "grid takes NX NY X0 Y0 DX DY first: grid NX NY X0 Y0 DX DY [stagger] "
                        "[goal GX GY [via ...] | goalset NAME | prefvel VX VY | none] "
                        "[key=value ...], got %d fields",
                     ntok);
    }
    long long n[2];
    double v[4];
    int stagger = ntok > 6 && strcmp(tok[6], "stagger") == 0;
    sf_agent a;
    if (grid_numbers(r, tok, n, v) != 0 || grid_extent(r, n, v, stagger) != 0 ||
        agent_clause(r, "grid", tok, ntok, 6 + stagger, &a) != 0 ||
        reserve_agents(r, n[0] * n[1]) != 0) {
        return -1;
    }
    for (long long j = 0; j < n[1]; ++j) {
        double h = stagger && (j & 1) ? 0.5 : 0.0;
        double y = grid_coord(v[1], (double)j, v[3]);
        for (long long i = 0; i < n[0]; ++i) {
            a.def.position.x = grid_coord(v[0], (double)i + h, v[2]);
            a.def.position.y = y;
            d->agents[d->agent_count++] = a;
        }
    }
    return 0;
}

/* segment AX AY BX BY */
static int st_segment(reader *r, const char *kw, char **tok, int ntok)
{
    (void)kw;
    if (ntok != 4) {
        return rfail(r, "segment takes 4 numbers (segment AX AY BX BY), got %d", ntok);
    }
    if (add_obstacle(r, SF_SEGMENT) != 0) {
        return -1;
    }
    return obstacle_points(r, tok, ntok);
}

/* polyline|polygon|boundary X1 Y1 ..., or alone: a block of "X Y" lines up to `end`. */
static int st_shape(reader *r, const char *kw, char **tok, int ntok)
{
    orca_scene_file *d = r->d;
    sf_obstacle_kind kind = kw[0] == 'b' ? SF_BOUNDARY : kw[4] == 'l' ? SF_POLYLINE : SF_POLYGON;
    if (add_obstacle(r, kind) != 0) {
        return -1;
    }
    if (ntok == 0) {
        r->block = d->obstacle_count - 1; /* points follow, one per line, until 'end' */
        return 0;
    }
    if (obstacle_points(r, tok, ntok) != 0) {
        return -1;
    }
    return finish_obstacle(r, &d->obstacles[d->obstacle_count - 1]);
}

/* `end` outside a block (inside one, block_line takes it). */
static int st_end(reader *r, const char *kw, char **tok, int ntok)
{
    (void)kw;
    (void)tok;
    (void)ntok;
    return rfail(r, "'end' without a polyline, polygon or boundary block");
}

typedef struct statement_def {
    const char *keyword;
    statement_fn *fn;
    int raw; /* takes the rest of the line as it is (`name`) */
} statement_def;

static const statement_def k_statements[] = {
    {"name", st_name, 1},         {"orca-scene", st_version, 0}, {"dt", st_dt, 0},
    {"seed", st_seed, 0},         {"separation", st_separation, 0},
    {"density_speed", st_density, 0}, {"pedestrian", st_pedestrian, 0},
    {"navigation", st_navigation, 0},
    {"goalset", st_goalset, 0},   {"default", st_default, 0},    {"agent", st_agent, 0},
    {"grid", st_grid, 0},         {"segment", st_segment, 0},    {"polyline", st_shape, 0},
    {"polygon", st_shape, 0},     {"boundary", st_shape, 0},     {"end", st_end, 0},
};

static const statement_def *find_statement(const char *kw)
{
    for (size_t i = 0; i < sizeof k_statements / sizeof k_statements[0]; ++i) {
        if (strcmp(kw, k_statements[i].keyword) == 0) {
            return &k_statements[i];
        }
    }
    return NULL;
}

/* --- lines --------------------------------------------------------------------------------- */

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* Trims blanks (and the CR of a CR LF line end) at both ends in place. */
static char *trim(char *s)
{
    while (is_blank(*s) || *s == '\r') {
        ++s;
    }
    size_t n = strlen(s);
    while (n > 0 && (is_blank(s[n - 1]) || s[n - 1] == '\r' || s[n - 1] == '\n')) {
        s[--n] = '\0';
    }
    return s;
}

/* Splits text on blanks into r->tok; *ntok their count. */
static int tokenize(reader *r, char *text, int *ntok)
{
    int n = 0;
    for (char *p = text; *p;) {
        if (is_blank(*p)) {
            ++p;
            continue;
        }
        if (grow((void **)&r->tok, &r->tok_capacity, n + 1, sizeof *r->tok)) {
            return out_of_memory(r);
        }
        r->tok[n++] = p;
        while (*p && !is_blank(*p)) {
            ++p;
        }
        if (*p) {
            *p++ = '\0';
        }
    }
    *ntok = n;
    return 0;
}

/* A line inside a polyline, polygon or boundary block: "X Y" (kw is the first number), or
 * `end`; any other statement means the block was not closed. */
static int block_line(reader *r, const char *kw, const statement_def *st, char *rest)
{
    sf_obstacle *o = &r->d->obstacles[r->block];
    int is_end = st && strcmp(kw, "end") == 0;
    if (st && !is_end) {
        return rfail(r, "'%s' inside the %s block started on line %d (missing 'end'?)", kw,
                     kind_name(o->kind), o->line);
    }
    int ntok;
    if (tokenize(r, rest, &ntok) != 0) {
        return -1;
    }
    if (is_end) {
        if (ntok != 0) {
            return rfail(r, "'end' takes nothing after it");
        }
        r->block = -1;
        return finish_obstacle(r, o);
    }
    if (ntok != 1) {
        return rfail(r, "inside the %s block started on line %d: expected 'X Y' or 'end', got %d "
                        "fields",
                     kind_name(o->kind), o->line, ntok + 1);
    }
    char fx[48], fy[48];
    snprintf(fx, sizeof fx, "point %d x", o->count + 1);
    snprintf(fy, sizeof fy, "point %d y", o->count + 1);
    double x, y;
    if (coord(r, fx, kw, &x) != 0 || coord(r, fy, r->tok[0], &y) != 0 || add_point(r, x, y)) {
        return -1;
    }
    r->d->obstacles[r->block].count++;
    return 0;
}

/* One line: comment and blanks stripped, the keyword's handler called with the fields. */
static int statement(reader *r, char *text)
{
    char *hash = strchr(text, '#'); /* a comment runs from the first '#' to the line's end */
    if (hash) {
        *hash = '\0';
    }
    text = trim(text);
    if (*text == '\0') {
        return 0;
    }
    char *kw = text;
    char *rest = text;
    while (*rest && !is_blank(*rest)) {
        ++rest;
    }
    if (*rest) {
        *rest++ = '\0';
    }
    rest = trim(rest);
    const statement_def *st = find_statement(kw);
    if (r->block >= 0) {
        return block_line(r, kw, st, rest);
    }
    if (!st) {
        return rfail(r, "unknown statement %s (expected orca-scene, name, dt, seed, default, "
                        "agent, grid, segment, polyline, polygon, boundary, separation, "
                        "navigation, goalset, density_speed, pedestrian)",
                     q(r, kw));
    }
    if (st->raw) {
        return st->fn(r, kw, &rest, 1);
    }
    int ntok;
    if (tokenize(r, rest, &ntok) != 0) {
        return -1;
    }
    return st->fn(r, kw, r->tok, ntok);
}

/* --- the bytes ------------------------------------------------------------------------------ */

#define LS_CHUNK ((size_t)1 << 16)

/* What the file system said about name, errno e: a directory (read(2) on one says EISDIR;
 * Windows refuses to open one) or a path that cannot be opened is a bad argument, a failed
 * read of an open file an I/O error. */
static orca_status file_refusal(const char *name, int e, int opened)
{
    if (e == EISDIR) {
        return orca_scene_file_fail(ORCA_ERR_ARGUMENT, "%s: is a directory", name);
    }
    if (!opened) {
        return orca_scene_file_fail(ORCA_ERR_ARGUMENT, "%s: cannot open: %s", name, strerror(e));
    }
    return orca_scene_file_fail(ORCA_ERR_IO, "%s: read error: %s", name, strerror(e));
}

/* A failed read of the stream; errno holds the reason. */
static int stream_error(reader *r)
{
    r->sys_errno = errno ? errno : EIO;
    r->status = file_refusal(r->d->path, r->sys_errno, 1);
    return -1;
}

/* A size over the limit, refused before it is read. */
static int too_large(reader *r, unsigned long long size)
{
    char lim[64], got[64];
    orca_format_bytes(lim, sizeof lim, ORCA_SCENE_FILE_MAX);
    orca_format_bytes(got, sizeof got, size);
    r->status = orca_scene_file_fail(ORCA_ERR_LIMIT,
                                     "%s: %s is more than the limit of %s for a scene file",
                                     r->d->path, got, lim);
    return -1;
}

/* A stream that seeks (a regular file) is refused before it is read when what is left of it
 * is over the limit; a pipe or a terminal does not seek and is counted as it is read. Called
 * once, after the first chunk: a directory has refused the read by then (its "size" is
 * nothing to go by). */
static int check_stream_size(reader *r, line_source *ls)
{
    ls->size_checked = 1;
    FILE *f = ls->stream;
    long here = ls->origin >= 0 ? ftell(f) : -1;
    if (here < 0 || fseek(f, 0, SEEK_END) != 0) {
        return 0;
    }
    long end = ftell(f);
    if (fseek(f, here, SEEK_SET) != 0) {
        return stream_error(r);
    }
    if (end > ls->origin && (unsigned long long)(end - ls->origin) > ORCA_SCENE_FILE_MAX) {
        return too_large(r, (unsigned long long)(end - ls->origin));
    }
    return 0;
}

static long read_text_chunk(reader *r, line_source *ls, char *to, size_t n)
{
    (void)r;
    size_t k = n < ls->text_left ? n : ls->text_left;
    memcpy(to, ls->text, k);
    ls->text += k;
    ls->text_left -= k;
    return (long)k;
}

static long read_stream_chunk(reader *r, line_source *ls, char *to, size_t n)
{
    size_t got = fread(to, 1, n, ls->stream);
    if (got < n && ferror(ls->stream)) {
        return stream_error(r);
    }
    if (!ls->size_checked && got == n && check_stream_size(r, ls) != 0) {
        return -1;
    }
    return (long)got;
}

/* Room for another chunk and the terminating NUL: the unread bytes moved to the front, then
 * the buffer grown (up to a line and a chunk). *scanned (bytes known to have no '\n') moves
 * with them. */
static int make_room(reader *r, line_source *ls, size_t *scanned)
{
    if (ls->start > 0) {
        memmove(ls->buf, ls->buf + ls->start, ls->end - ls->start);
        ls->end -= ls->start;
        *scanned -= ls->start;
        ls->start = 0;
    }
    if (ls->cap - ls->end < LS_CHUNK + 1) {
        /* doubled, it holds the unread bytes (at most cap) and a chunk more */
        size_t ncap = ls->cap ? ls->cap * 2 : LS_CHUNK + 1;
        char *nb = orca_mem_resize(ls->buf, ncap, 1);
        if (!nb) {
            return out_of_memory(r);
        }
        ls->buf = nb;
        ls->cap = ncap;
    }
    return 0;
}

/* Reads the next chunk after buf[end]: the total counted against the limit, a NUL byte
 * refused at once (not after a megabyte of them), the end of the input noted. */
static int fill(reader *r, line_source *ls)
{
    long got = ls->read_chunk(r, ls, ls->buf + ls->end, LS_CHUNK);
    if (got < 0) {
        return -1;
    }
    if (got == 0) {
        ls->eof = 1;
        return 0;
    }
    ls->total += (uint64_t)got;
    if (ls->total > ORCA_SCENE_FILE_MAX) {
        char lim[64];
        orca_format_bytes(lim, sizeof lim, ORCA_SCENE_FILE_MAX);
        r->status = orca_scene_file_fail(ORCA_ERR_LIMIT,
                                         "%s: more than the limit of %s for a scene file "
                                         "(stopped reading at line %d)",
                                         r->d->path, lim, r->line + 1);
        return -1;
    }
    char *nul = memchr(ls->buf + ls->end, '\0', (size_t)got);
    ls->end += (size_t)got;
    if (nul) {
        int at = r->line + 1;
        for (char *p = ls->buf + ls->start; p < nul; ++p) {
            at += *p == '\n';
        }
        r->line = at;
        return rfail(r, "NUL byte in the line (is this a text file?)");
    }
    return 0;
}

/* The next line without its '\n', NUL-terminated in place. Returns 1, 0 at the end, -1 on a
 * failure (message written). */
static int next_line(reader *r, line_source *ls, char **line, size_t *len)
{
    size_t scanned = ls->start; /* bytes before this have no '\n' */
    for (;;) {
        char *nl = ls->end > scanned ? memchr(ls->buf + scanned, '\n', ls->end - scanned) : NULL;
        if (nl || (ls->eof && ls->end > ls->start)) {
            size_t n = nl ? (size_t)(nl - (ls->buf + ls->start)) : ls->end - ls->start;
            if (n > ORCA_SCENE_LINE_MAX) {
                break; /* reported below */
            }
            *line = ls->buf + ls->start;
            *len = n;
            (*line)[n] = '\0'; /* over the '\n', or the spare byte after the data */
            ls->start += nl ? n + 1 : n;
            return 1;
        }
        if (ls->eof) {
            return 0;
        }
        if (ls->end - ls->start > ORCA_SCENE_LINE_MAX) {
            break;
        }
        scanned = ls->end;
        if (make_room(r, ls, &scanned) != 0 || fill(r, ls) != 0) {
            return -1;
        }
    }
    char lim[64];
    orca_format_bytes(lim, sizeof lim, ORCA_SCENE_LINE_MAX);
    r->line++;
    return rlimit(r, "the line is longer than the limit of %s (a long polyline or polygon can "
                     "take its points one per line, up to 'end')",
                  lim);
}

/* --- reading -------------------------------------------------------------------------------- */

void orca_scene_file_destroy(orca_scene_file *d)
{
    if (!d) {
        return;
    }
    orca_mem_free(d->agents);
    orca_mem_free(d->obstacles);
    orca_mem_free(d->points);
    orca_mem_free(d->sets);
    orca_mem_free(d->path);
    orca_mem_free(d);
}

/* An empty scene named name, with the file format's defaults. */
static orca_scene_file *scene_file_new(const char *name)
{
    orca_scene_file *d = orca_mem_zalloc(1, sizeof *d);
    size_t len = strlen(name);
    char *path = d ? orca_mem_alloc(len + 1, 1) : NULL;
    if (!path) {
        orca_mem_free(d);
        orca_scene_file_fail(ORCA_ERR_MEMORY, "out of memory reading %s", name);
        return NULL;
    }
    memcpy(path, name, len + 1);
    d->path = path;
    d->dt = SF_DEFAULT_DT;
    d->seed = SF_DEFAULT_SEED;
    snprintf(d->name, sizeof d->name, "custom");
    d->density = orca_density_speed_default();
    return d;
}

/* Every line of the source through statement(), then what only the whole file can show. */
static int read_lines(reader *r, line_source *ls)
{
    orca_scene_file *d = r->d;
    char *line = NULL;
    size_t len = 0;
    int rc;
    while ((rc = next_line(r, ls, &line, &len)) == 1) {
        r->line++;
        if (r->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
            line += 3; /* a UTF-8 byte-order mark (editors on Windows write one): skipped */
        }
        if (statement(r, line) != 0) {
            return -1;
        }
    }
    if (rc != 0) {
        return -1;
    }
    if (r->block >= 0) {
        r->line = d->obstacles[r->block].line;
        return rfail(r, "%s block has no 'end'", kind_name(d->obstacles[r->block].kind));
    }
    if (d->agent_count == 0) {
        const char *what = ls->total == 0 ? "the file is empty" : "the scene has no agents";
        r->status = orca_scene_file_fail(ORCA_ERR_FORMAT, "%s: %s (add 'agent X Y ...' lines)",
                                         d->path, what);
        return -1;
    }
    return 0;
}

/* Reads the source into a new scene named name. */
static orca_status read_source(line_source *ls, const char *name, orca_scene_file **out)
{
    orca_scene_file *d = scene_file_new(name);
    if (!d) {
        return ORCA_ERR_MEMORY;
    }
    reader r;
    memset(&r, 0, sizeof r);
    r.d = d;
    r.status = ORCA_ERR_FORMAT;
    r.defaults = orca_agent_def_default();
    r.default_pref_speed = orca_goal_default().preferred_speed;
    r.block = -1;
    int rc = read_lines(&r, ls);
    orca_mem_free(ls->buf);
    orca_mem_free(r.tok);
    if (rc != 0) {
        orca_scene_file_destroy(d);
        if (r.sys_errno) {
            errno = r.sys_errno; /* the reason of a failed read, for the caller */
        }
        return r.status;
    }
    g_scene_file_error[0] = '\0';
    *out = d;
    return ORCA_OK;
}

orca_status orca_scene_file_read_stream(FILE *stream, const char *name, orca_scene_file **out)
{
    if (!out) {
        return orca_scene_file_fail(ORCA_ERR_NULL, "out must not be NULL");
    }
    *out = NULL;
    if (!stream || !name) {
        return orca_scene_file_fail(ORCA_ERR_NULL, "%s must not be NULL",
                                    stream ? "name" : "stream");
    }
    line_source ls;
    memset(&ls, 0, sizeof ls);
    ls.read_chunk = read_stream_chunk;
    ls.stream = stream;
    ls.origin = ftell(stream);
    return read_source(&ls, name, out);
}

orca_status orca_scene_file_read_text(const char *text, size_t size, const char *name,
                                      orca_scene_file **out)
{
    if (!out) {
        return orca_scene_file_fail(ORCA_ERR_NULL, "out must not be NULL");
    }
    *out = NULL;
    if ((!text && size > 0) || !name) {
        return orca_scene_file_fail(ORCA_ERR_NULL, "%s must not be NULL", name ? "text" : "name");
    }
    if ((uint64_t)size > ORCA_SCENE_FILE_MAX) {
        char lim[64], got[64];
        orca_format_bytes(lim, sizeof lim, ORCA_SCENE_FILE_MAX);
        orca_format_bytes(got, sizeof got, (unsigned long long)size);
        return orca_scene_file_fail(ORCA_ERR_LIMIT,
                                    "%s: %s is more than the limit of %s for a scene file", name,
                                    got, lim);
    }
    line_source ls;
    memset(&ls, 0, sizeof ls);
    ls.read_chunk = read_text_chunk;
    ls.text = text ? text : "";
    ls.text_left = size;
    return read_source(&ls, name, out);
}

/* Why path cannot be opened: errno as fopen left it, except that Windows says "permission
 * denied" for a directory, which is called what it is. */
static int open_errno(const char *path)
{
    int e = errno ? errno : ENOENT;
#if defined(_WIN32)
    struct stat st;
    if (e == EACCES && stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR) {
        e = EISDIR;
    }
#else
    (void)path;
#endif
    return e;
}

orca_status orca_scene_file_read(const char *path, orca_scene_file **out)
{
    if (!out) {
        return orca_scene_file_fail(ORCA_ERR_NULL, "out must not be NULL");
    }
    *out = NULL;
    if (!path) {
        return orca_scene_file_fail(ORCA_ERR_NULL, "path must not be NULL");
    }
    errno = 0;
    FILE *f = fopen(path, "rb"); /* binary: no CR LF translation, no stop at ^Z on Windows */
    if (!f) {
        int e = open_errno(path);
        orca_status st = file_refusal(path, e, 0);
        errno = e;
        return st;
    }
    orca_status st = orca_scene_file_read_stream(f, path, out);
    int e = errno;
    fclose(f);
    errno = e;
    return st;
}

const char *orca_scene_file_last_error(const orca_scene_file *d)
{
    return d ? d->error : g_scene_file_error;
}

int orca_scene_file_agent_line(const orca_scene_file *d, int index)
{
    return d && index >= 0 && index < d->agent_count ? d->agents[index].line : 0;
}

/* --- building ------------------------------------------------------------------------------ */

orca_scene_build_def orca_scene_build_def_default(void)
{
    orca_scene_build_def def;
    memset(&def, 0, sizeof def);
    def.sim = orca_sim_def_default();
    def.dt = SF_DEFAULT_DT;
    def.seed = SF_DEFAULT_SEED;
    return def;
}

static orca_status build_fail(orca_scene_file *d, orca_status st, const char *fmt, ...)
    ORCA_PRINTF(3, 4);

/* The build's refusal st, with its message on d. */
static orca_status build_fail(orca_scene_file *d, orca_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->error, sizeof d->error, fmt, ap);
    va_end(ap);
    return st;
}

/* Whether d is built with the pedestrian preset (docs/pedestrians.md), and its parameters:
 * the file's `pedestrian on`, or def's flag (then the file's own parameters, when it gives
 * the statement with 'on', else the defaults). */
static int preset_of(const orca_scene_file *d, const orca_scene_build_def *def,
                     orca_pedestrian *p)
{
    *p = d->pedestrian ? d->ped : orca_pedestrian_default();
    return d->pedestrian || def->pedestrian;
}

/* The new scenario for d (dt and seed the file's unless def replaces them; without a `dt`
 * line the preset's step when d is built with it). */
static orca_status create_scenario(orca_scene_file *d, const orca_scene_build_def *def,
                                   orca_scenario **out)
{
    orca_pedestrian p;
    double file_dt = !d->dt_line && preset_of(d, def, &p) ? ORCA_PEDESTRIAN_DT : d->dt;
    double dt = def->use_dt ? def->dt : file_dt;
    uint64_t seed = def->use_seed ? def->seed : d->seed;
    orca_status st = orca_scenario_create(&def->sim, dt, seed, out);
    if (st == ORCA_OK) {
        return ORCA_OK;
    }
    /* No scenario holds the message: the library keeps it for orca_scenario_last_error
     * (NULL); it may be empty (out of memory), so the status is named too. */
    const char *msg = orca_scenario_last_error(NULL);
    char where[SF_ERROR_SIZE / 2];
    if (def->use_dt || !d->dt_line) {
        snprintf(where, sizeof where, "%s", d->path);
    } else {
        snprintf(where, sizeof where, "%s:%d", d->path, d->dt_line);
    }
    return build_fail(d, st, "%s: creating the scenario (orca_scenario_create): %s (%s)", where,
                      msg && msg[0] ? msg : "failed", orca_status_name(st));
}

/* The options, goal sets and navigation of the file, and the pedestrian preset (before any
 * agent, so that goal-set agents walk in their set's stream); a refusal names its line. */
static orca_status build_options(orca_scene_file *d, const orca_scene_build_def *def,
                                 orca_scenario *sc)
{
    orca_sim *sim = orca_scenario_sim(sc);
    orca_status st;
    if (d->name_line && (st = orca_scenario_set_name(sc, d->name)) != ORCA_OK) {
        return build_fail(d, st, "%s:%d: %s", d->path, d->name_line,
                          orca_scenario_last_error(sc));
    }
    if (d->separation && (st = orca_sim_set_separation(sim, 1)) != ORCA_OK) {
        return build_fail(d, st, "%s:%d: %s", d->path, d->separation_line,
                          orca_sim_last_error(sim));
    }
    if (d->density_speed && (st = orca_sim_set_density_speed(sim, &d->density)) != ORCA_OK) {
        return build_fail(d, st, "%s:%d: %s", d->path, d->density_line, orca_sim_last_error(sim));
    }
    for (int k = 0; k < d->set_count; ++k) {
        const sf_goal_set *gs = &d->sets[k];
        int set = -1;
        st = orca_scenario_add_goal_set(sc, gs->name, d->points + gs->first, gs->count, &set);
        if (st == ORCA_OK && gs->exit) {
            st = orca_scenario_set_goal_set_exit(sc, set, gs->arrive);
        }
        if (st == ORCA_OK && gs->capacity > 0) {
            st = orca_scenario_set_goal_set_capacity(sc, set, gs->capacity);
        }
        if (st != ORCA_OK) {
            return build_fail(d, st, "%s:%d: %s", d->path, gs->line, orca_scenario_last_error(sc));
        }
    }
    if (d->navigation && ((st = orca_scenario_set_navigation(sc, 1)) != ORCA_OK ||
                          (st = orca_scenario_set_nav_check(sc, d->nav_check)) != ORCA_OK ||
                          (st = orca_scenario_set_exit_choice(sc, d->exit_choice)) != ORCA_OK)) {
        return build_fail(d, st, "%s:%d: %s", d->path, d->navigation_line,
                          orca_scenario_last_error(sc));
    }
    orca_pedestrian p;
    if (preset_of(d, def, &p) && (st = orca_scenario_set_pedestrian(sc, &p)) != ORCA_OK) {
        if (!d->pedestrian) {
            return build_fail(d, st, "%s: the pedestrian preset: %s", d->path,
                              orca_scenario_last_error(sc));
        }
        return build_fail(d, st, "%s:%d: %s", d->path, d->pedestrian_line,
                          orca_scenario_last_error(sc));
    }
    return ORCA_OK;
}

/* Agent a's definition and goal with the pedestrian preset: the preset's value of every
 * parameter no `default` line or key gave, and the free speed drawn for the agent the
 * scenario adds next where its point or set goal has no speed given. */
static orca_status preset_agent(const sf_agent *a, const orca_scenario *sc, orca_agent_def *def,
                                orca_goal *goal)
{
    orca_agent_def pd;
    double speed;
    orca_status st = orca_scenario_pedestrian_agent(sc, &pd, &speed);
    if (st != ORCA_OK) {
        return st;
    }
    unsigned given = a->given;
    def->radius = (given >> P_RADIUS) & 1 ? def->radius : pd.radius;
    def->max_speed = (given >> P_MAX_SPEED) & 1 ? def->max_speed : pd.max_speed;
    def->neighbor_dist = (given >> P_NEIGHBOR_DIST) & 1 ? def->neighbor_dist : pd.neighbor_dist;
    def->max_neighbors = (given >> P_MAX_NEIGHBORS) & 1 ? def->max_neighbors : pd.max_neighbors;
    def->time_horizon = (given >> P_TIME_HORIZON) & 1 ? def->time_horizon : pd.time_horizon;
    def->obstacle_time_horizon = (given >> P_OBSTACLE_TIME_HORIZON) & 1
                                     ? def->obstacle_time_horizon
                                     : pd.obstacle_time_horizon;
    if (!((given >> P_PREFERRED_SPEED) & 1) &&
        (goal->kind == ORCA_GOAL_POINT || goal->kind == ORCA_GOAL_SET)) {
        goal->preferred_speed = speed;
    }
    return ORCA_OK;
}

/* The walls in file order. */
static orca_status build_obstacles(orca_scene_file *d, orca_sim *sim)
{
    for (int i = 0; i < d->obstacle_count; ++i) {
        const sf_obstacle *o = &d->obstacles[i];
        orca_status st;
        if (o->kind == SF_SEGMENT) {
            st = orca_sim_add_segment(sim, d->points[o->first], d->points[o->first + 1], NULL);
        } else if (o->kind == SF_BOUNDARY) {
            st = orca_sim_add_boundary(sim, d->points + o->first, o->count, NULL);
        } else {
            st = orca_sim_add_polyline(sim, d->points + o->first, o->count,
                                       o->kind == SF_POLYGON, NULL);
        }
        if (st != ORCA_OK) {
            return build_fail(d, st, "%s:%d: %s", d->path, o->line, orca_sim_last_error(sim));
        }
    }
    return ORCA_OK;
}

/* The agents in file order, each with its goal, avoidance settings, stream and waypoints
 * (with the pedestrian preset on, its agent's values where the file gives none). */
static orca_status build_agents(orca_scene_file *d, orca_scenario *sc)
{
    orca_sim *sim = orca_scenario_sim(sc);
    int preset = orca_sim_get_pedestrian(sim, NULL);
    for (int i = 0; i < d->agent_count; ++i) {
        const sf_agent *a = &d->agents[i];
        orca_agent_def def = a->def;
        orca_goal goal = a->goal;
        orca_status st = preset ? preset_agent(a, sc, &def, &goal) : ORCA_OK;
        orca_agent_id id;
        if (st == ORCA_OK) {
            st = orca_scenario_add_agent(sc, &def, &goal, &id);
        }
        if (st == ORCA_OK && (st = orca_agent_set_avoidance(sim, id, &a->avoidance)) != ORCA_OK) {
            return build_fail(d, st, "%s:%d: agent %d: %s", d->path, a->line, i,
                              orca_sim_last_error(sim));
        }
        if (st == ORCA_OK && a->stream_given &&
            (st = orca_agent_set_stream(sim, id, a->stream)) != ORCA_OK) {
            return build_fail(d, st, "%s:%d: agent %d: %s", d->path, a->line, i,
                              orca_sim_last_error(sim));
        }
        if (st == ORCA_OK && a->via_count > 0) {
            st = orca_scenario_set_waypoints(sc, orca_sim_agent_index(sim, id),
                                             d->points + a->via_first, a->via_count, a->loop,
                                             a->arrive);
        }
        if (st != ORCA_OK) {
            return build_fail(d, st, "%s:%d: agent %d: %s", d->path, a->line, i,
                              orca_scenario_last_error(sc));
        }
    }
    return ORCA_OK;
}

orca_status orca_scene_file_build(orca_scene_file *d, const orca_scene_build_def *def,
                                  orca_scenario **out)
{
    if (!d) {
        return ORCA_ERR_NULL;
    }
    if (!out) {
        return build_fail(d, ORCA_ERR_NULL, "out must not be NULL");
    }
    orca_scene_build_def defaults = orca_scene_build_def_default();
    orca_scenario *sc = NULL;
    orca_status st = create_scenario(d, def ? def : &defaults, &sc);
    if (st == ORCA_OK) {
        st = build_options(d, def ? def : &defaults, sc);
    }
    if (st == ORCA_OK) {
        st = build_obstacles(d, orca_scenario_sim(sc));
    }
    if (st == ORCA_OK) {
        st = build_agents(d, sc);
    }
    if (st != ORCA_OK) {
        orca_scenario_destroy(sc);
        return st;
    }
    d->error[0] = '\0';
    *out = sc;
    return ORCA_OK;
}
