/* SPDX-License-Identifier: MIT */
/* Scene files: reader, builder and writer. The format is documented in docs/scene-format.md;
 * keep the two in step. */
#define _POSIX_C_SOURCE 200809L
#include "scene_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The defaults of agent parameters and preferred_speed are the library's
 * (orca_agent_def_default, orca_goal_default: docs/scenarios.md, "Defaults"). */
#define SCENE_DEFAULT_DT 0.25

/* --- reader state -------------------------------------------------------------------------- */

typedef struct reader {
    scene_desc *d;
    char *err;
    size_t err_size;
    int line;
    orca_agent_def defaults;
    double default_pref_speed;
    int version_line;
    /* open polyline/polygon block: index of the obstacle, or -1 */
    int block;
    int runtime;       /* the failure is not the file's fault (out of memory, read error) */
    char qbuf[4][64];  /* quoted fields for messages (q) */
    int qnext;
} reader;

/* A field quoted for a message, shortened when long ("'abc...'"). */
static const char *q(reader *r, const char *s)
{
    char *b = r->qbuf[r->qnext++ & 3];
    return cli_quote(b, sizeof r->qbuf[0], s);
}

static int out_of_memory(reader *r)
{
    r->runtime = 1;
    snprintf(r->err, r->err_size, "out of memory reading %s (at line %d)", r->d->path, r->line);
    return -1;
}

static int rfail(reader *r, const char *fmt, ...)
    CLI_PRINTF(2, 3)
    ;

static int rfail(reader *r, const char *fmt, ...)
{
    int n = snprintf(r->err, r->err_size, "%s:%d: ", r->d->path, r->line);
    if (n < 0 || (size_t)n >= r->err_size) {
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->err_size - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

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
    if ((size_t)cap > SIZE_MAX / elem) { /* a 32-bit size_t: 2^30 agents do not fit */
        return -1;
    }
    void *p = realloc(*ptr, (size_t)cap * elem);
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
    if (cli_parse_double(tok, out, why, sizeof why) != 0) {
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
    P_PRIORITY, /* the avoidance extensions (docs/extensions.md) */
    P_LAYERS,
    P_MASK,
    P_LOCKED,
    P_UNKNOWN
} param_kind;

static const char *const k_param_names[] = {
    "radius",       "max_speed",           "neighbor_dist",   "max_neighbors",
    "time_horizon", "obstacle_time_horizon", "preferred_speed", "velocity",
    "arrive",       "priority",              "layers",          "mask",
    "locked"};

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
                         cli_rounds_to_zero(tok, v));
        }
        av->priority = v;
        return 0;
    }
    long long n;
    long long max = k == P_LOCKED ? 1 : 0xFFFFFFFFll;
    int rc = cli_parse_long(tok, 0, max, &n, why, sizeof why);
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

/* Parses and range-checks one parameter value into def / *pref_speed. */
static int set_param(reader *r, param_kind k, const char *tok, orca_agent_def *def,
                     double *pref_speed, double *arrive)
{
    const char *name = k_param_names[k];
    double v = 0.0;
    if (k == P_MAX_NEIGHBORS) {
        long long n;
        char why[160];
        int rc = cli_parse_long(tok, 0, ORCA_MAX_NEIGHBORS_LIMIT, &n, why, sizeof why);
        if (rc == -1) {
            return rfail(r, "%s: %s", name, why);
        }
        if (rc != 0) {
            return rfail(r, "max_neighbors must be between 0 and %d, got %s",
                         ORCA_MAX_NEIGHBORS_LIMIT, q(r, tok));
        }
        def->max_neighbors = (int)n;
        return 0;
    }
    if (k == P_VELOCITY) {
        const char *comma = strchr(tok, ',');
        if (!comma || strchr(comma + 1, ',')) {
            return rfail(r, "velocity: expected VX,VY (two numbers and a comma), got %s",
                         q(r, tok));
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
    if (num(r, name, tok, &v) != 0) {
        return -1;
    }
    switch (k) {
    case P_RADIUS:
        if (!(v > 0.0)) {
            return rfail(r, "radius must be > 0, got %s%s", q(r, tok),
                         cli_rounds_to_zero(tok, v));
        }
        def->radius = v;
        break;
    case P_MAX_SPEED:
        if (!(v >= 0.0)) {
            return rfail(r, "max_speed must be >= 0, got %s", q(r, tok));
        }
        def->max_speed = v;
        break;
    case P_NEIGHBOR_DIST:
        if (!(v >= 0.0)) {
            return rfail(r, "neighbor_dist must be >= 0, got %s", q(r, tok));
        }
        def->neighbor_dist = v;
        break;
    case P_TIME_HORIZON:
        if (!(v > 0.0)) {
            return rfail(r, "time_horizon must be > 0, got %s%s", q(r, tok),
                         cli_rounds_to_zero(tok, v));
        }
        def->time_horizon = v;
        break;
    case P_OBSTACLE_TIME_HORIZON:
        if (!(v > 0.0)) {
            return rfail(r, "obstacle_time_horizon must be > 0, got %s%s", q(r, tok),
                         cli_rounds_to_zero(tok, v));
        }
        def->obstacle_time_horizon = v;
        break;
    case P_PREFERRED_SPEED:
        if (!(v >= 0.0)) {
            return rfail(r, "preferred_speed must be >= 0, got %s", q(r, tok));
        }
        *pref_speed = v;
        break;
    case P_ARRIVE:
        /* The library's range (orca_scenario_set_waypoints): 0 (the radius) or 2^-30 .. 2^23 */
        if (!(v == 0.0 || (v >= 0x1.0p-30 && v <= 0x1.0p23))) {
            return rfail(r, "arrive must be 0 (the agent's radius) or between 2^-30 and 2^23 m, "
                            "got %s%s",
                         q(r, tok), cli_rounds_to_zero(tok, v));
        }
        *arrive = v;
        break;
    default:
        break;
    }
    return 0;
}

/* --- statements ---------------------------------------------------------------------------- */

static int add_point(reader *r, double x, double y)
{
    scene_desc *d = r->d;
    if (grow((void **)&d->points, &d->point_capacity, d->point_count + 1, sizeof *d->points)) {
        return out_of_memory(r);
    }
    d->points[d->point_count].x = x;
    d->points[d->point_count].y = y;
    d->point_count++;
    return 0;
}

static int add_obstacle(reader *r, scene_obstacle_kind kind)
{
    scene_desc *d = r->d;
    if (grow((void **)&d->obstacles, &d->obstacle_capacity, d->obstacle_count + 1,
             sizeof *d->obstacles)) {
        return out_of_memory(r);
    }
    scene_obstacle *o = &d->obstacles[d->obstacle_count++];
    o->kind = kind;
    o->first = d->point_count;
    o->count = 0;
    o->line = r->line;
    return 0;
}

static const char *kind_name(scene_obstacle_kind k)
{
    return k == SCENE_SEGMENT    ? "segment"
           : k == SCENE_POLYLINE ? "polyline"
           : k == SCENE_POLYGON  ? "polygon"
                                 : "boundary";
}

/* "x y" pairs of tokens into the last obstacle. */
static int obstacle_points(reader *r, char **tok, int ntok, int first_index)
{
    scene_obstacle *o = &r->d->obstacles[r->d->obstacle_count - 1];
    if (ntok % 2 != 0) {
        return rfail(r, "%s: coordinates come in x y pairs, got %d numbers", kind_name(o->kind),
                     ntok);
    }
    for (int i = 0; i + 1 < ntok; i += 2) {
        char fx[48], fy[48];
        int k = first_index + i / 2 + 1;
        snprintf(fx, sizeof fx, "point %d x", k);
        snprintf(fy, sizeof fy, "point %d y", k);
        double x, y;
        if (coord(r, fx, tok[i], &x) != 0 || coord(r, fy, tok[i + 1], &y) != 0 ||
            add_point(r, x, y) != 0) {
            return -1;
        }
        o->count++;
    }
    return 0;
}

static int finish_obstacle(reader *r, const scene_obstacle *o)
{
    int save = r->line;
    r->line = o->line;
    int rc = 0;
    if (o->kind == SCENE_POLYLINE && o->count < 2) {
        rc = rfail(r, "polyline needs at least 2 points, got %d", o->count);
    } else if (o->kind == SCENE_POLYGON && o->count < 3) {
        rc = rfail(r, "polygon needs at least 3 points, got %d", o->count);
    } else if (o->kind == SCENE_BOUNDARY && o->count < 3) {
        rc = rfail(r, "boundary needs at least 3 points (boundary X1 Y1 X2 Y2 X3 Y3 ...), got %d",
                   o->count);
    }
    r->line = save;
    return rc;
}

/* What follows the position on an agent line, and the placement on a grid line (`what`
 * names the statement in messages): the goal clause, then key=value overrides, from tok[i]
 * on, into *a with the defaults in force; a's position and line are the caller's. */
static int agent_clause(reader *r, const char *what, char **tok, int ntok, int i, scene_agent *a)
{
    scene_desc *d = r->d;
    orca_agent_def def = r->defaults;
    double pref_speed = r->default_pref_speed;
    orca_goal goal = orca_goal_default(); /* no goal clause: none */
    int via_first = 0, via_count = 0, loop = 0;
    double arrive = 0.0;
    if (i < ntok && strchr(tok[i], '=') == NULL) {
        if (strcmp(tok[i], "goal") == 0) {
            if (ntok < i + 3) {
                return rfail(r, "goal needs two coordinates: goal GX GY");
            }
            if (coord(r, "goal x", tok[i + 1], &goal.target.x) != 0 ||
                coord(r, "goal y", tok[i + 2], &goal.target.y) != 0) {
                return -1;
            }
            goal.kind = ORCA_GOAL_POINT;
            i += 3;
            if (i < ntok && strcmp(tok[i], "via") == 0) {
                /* via X1 Y1 X2 Y2 ...: the numbers up to 'loop', a key=value or the end */
                int from = ++i;
                while (i < ntok && strcmp(tok[i], "loop") != 0 && strchr(tok[i], '=') == NULL) {
                    ++i;
                }
                int nums = i - from;
                if (nums == 0) {
                    return rfail(r, "via needs at least one point: goal GX GY via X1 Y1 [X2 Y2 "
                                    "...] [loop]");
                }
                if (nums % 2 != 0) {
                    return rfail(r, "via: coordinates come in x y pairs, got %d numbers", nums);
                }
                via_first = d->point_count;
                for (int k = 0; k < nums; k += 2) {
                    char fx[48], fy[48];
                    snprintf(fx, sizeof fx, "via point %d x", k / 2 + 1);
                    snprintf(fy, sizeof fy, "via point %d y", k / 2 + 1);
                    double x, y;
                    if (coord(r, fx, tok[from + k], &x) != 0 ||
                        coord(r, fy, tok[from + k + 1], &y) != 0 || add_point(r, x, y) != 0) {
                        return -1;
                    }
                }
                via_count = nums / 2;
                if (i < ntok && strcmp(tok[i], "loop") == 0) {
                    loop = 1;
                    ++i;
                }
            }
        } else if (strcmp(tok[i], "prefvel") == 0) {
            if (ntok < i + 3) {
                return rfail(r, "prefvel needs two components: prefvel VX VY");
            }
            if (num(r, "prefvel x", tok[i + 1], &goal.target.x) != 0 ||
                num(r, "prefvel y", tok[i + 2], &goal.target.y) != 0) {
                return -1;
            }
            goal.kind = ORCA_GOAL_VELOCITY;
            i += 3;
        } else if (strcmp(tok[i], "none") == 0) {
            i += 1;
        } else if (strcmp(tok[i], "goalset") == 0) {
            if (ntok < i + 2) {
                return rfail(r, "goalset needs the name of a goal set: goalset NAME");
            }
            int set = -1;
            for (int k = 0; k < d->set_count; ++k) {
                if (strcmp(d->sets[k].name, tok[i + 1]) == 0) {
                    set = k;
                }
            }
            if (set < 0) {
                return rfail(r, "%s: unknown goal set %s (declare it first: goalset NAME X1 "
                                "Y1 [X2 Y2 ...])",
                             what, q(r, tok[i + 1]));
            }
            goal.kind = ORCA_GOAL_SET;
            goal.goal_set = set;
            i += 2;
        } else if (strcmp(tok[i], "via") == 0 || strcmp(tok[i], "loop") == 0) {
            return rfail(r, "%s: %s needs a goal point first (goal GX GY via X1 Y1 ... "
                            "[loop])",
                         what, q(r, tok[i]));
        } else {
            return rfail(r, "%s: expected 'goal', 'goalset', 'prefvel', 'none' or key=value "
                            "after the %s, got %s",
                         what, what[0] == 'g' ? "grid's placement" : "position", q(r, tok[i]));
        }
    }
    unsigned seen = 0;
    orca_agent_avoidance avoidance = orca_agent_avoidance_default();
    for (; i < ntok; ++i) {
        const char *eq = strchr(tok[i], '=');
        if (!eq && (strcmp(tok[i], "via") == 0 || strcmp(tok[i], "loop") == 0)) {
            return rfail(r, "%s: %s must come right after 'goal GX GY' (goal GX GY via X1 Y1 "
                            "... [loop])",
                         what, q(r, tok[i]));
        }
        if (!eq) {
            return rfail(r, "%s: expected key=value, got %s (goal, prefvel or none must "
                            "come right after the %s)",
                         what, q(r, tok[i]), what[0] == 'g' ? "grid's placement" : "position");
        }
        param_kind k = param_from_name(tok[i], (size_t)(eq - tok[i]));
        if (k == P_UNKNOWN) {
            *(char *)eq = '\0'; /* the key alone, for the message */
            return rfail(r,
                         "unknown agent parameter %s (known: radius, max_speed, "
                         "neighbor_dist, max_neighbors, time_horizon, obstacle_time_horizon, "
                         "preferred_speed, velocity, arrive, priority, layers, mask, locked)",
                         q(r, tok[i]));
        }
        if (seen & (1u << k)) {
            return rfail(r, "agent parameter '%s' given twice", k_param_names[k]);
        }
        seen |= 1u << k;
        if (k == P_ARRIVE && via_count == 0) {
            return rfail(r, "%s: arrive= needs via points (goal GX GY via X1 Y1 ... "
                            "arrive=D)",
                         what);
        }
        if (k >= P_PRIORITY ? set_avoidance_param(r, k, eq + 1, &avoidance) != 0
                            : set_param(r, k, eq + 1, &def, &pref_speed, &arrive) != 0) {
            return -1;
        }
    }
    if (goal.kind == ORCA_GOAL_POINT || goal.kind == ORCA_GOAL_SET) {
        goal.preferred_speed = pref_speed;
    }
    a->def = def;
    a->goal = goal;
    a->avoidance = avoidance;
    a->line = r->line;
    a->via_first = via_first;
    a->via_count = via_count;
    a->loop = loop;
    a->arrive = arrive;
    return 0;
}

/* Room for n more agents (n <= SCENE_AGENTS_MAX - agent_count). */
static int reserve_agents(reader *r, long long n)
{
    scene_desc *d = r->d;
    if (grow((void **)&d->agents, &d->agent_capacity, d->agent_count + (int)n, sizeof *d->agents)) {
        return out_of_memory(r);
    }
    return 0;
}

static int st_agent(reader *r, char **tok, int ntok)
{
    if (ntok < 2) {
        return rfail(r, "agent needs a position: agent X Y [goal GX GY [via X1 Y1 ... [loop]] | "
                        "goalset NAME | prefvel VX VY | none] [key=value ...]");
    }
    orca_vec2 p;
    scene_agent a;
    if (coord(r, "x", tok[0], &p.x) != 0 || coord(r, "y", tok[1], &p.y) != 0 ||
        agent_clause(r, "agent", tok, ntok, 2, &a) != 0 || reserve_agents(r, 1) != 0) {
        return -1;
    }
    a.def.position = p;
    r->d->agents[r->d->agent_count++] = a;
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

/* grid NX NY X0 Y0 DX DY [stagger] [GOAL] [key=value ...] (docs/scene-format.md, "Grids"):
 * NX * NY agents in index order j (rows) outer, i inner, each as an agent line with the same
 * goal clause and overrides, at (grid_coord(X0, i + h, DX), grid_coord(Y0, j, DY)). */
static int st_grid(reader *r, char **tok, int ntok)
{
    scene_desc *d = r->d;
    if (ntok < 6) {
        return rfail(r, "grid takes NX NY X0 Y0 DX DY first: grid NX NY X0 Y0 DX DY [stagger] "
                        "[goal GX GY [via ...] | goalset NAME | prefvel VX VY | none] "
                        "[key=value ...], got %d fields",
                     ntok);
    }
    static const char *const count_name[2] = {"NX", "NY"};
    static const char *const real_name[4] = {"X0", "Y0", "DX", "DY"};
    long long n[2];
    double v[4];
    char why[160];
    for (int k = 0; k < 2; ++k) {
        int rc = cli_parse_long(tok[k], 1, SCENE_AGENTS_MAX, &n[k], why, sizeof why);
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
    if (count > SCENE_AGENTS_MAX - d->agent_count) {
        return count > SCENE_AGENTS_MAX
                   ? rfail(r, "grid: NX * NY = %lld agents, more than the limit of 2^30 "
                              "(1073741824) agents in a scene",
                           count)
                   : rfail(r, "grid: %lld agents after the %d before it, more than the limit "
                              "of 2^30 (1073741824) agents in a scene",
                           count, d->agent_count);
    }
    int stagger = ntok > 6 && strcmp(tok[6], "stagger") == 0;
    /* Rounding is monotonic, so every point lies within the extreme ones: x at i + h = 0 and
     * NX - 1 (and 0.5 more on an odd row of a staggered grid), y at j = 0 and NY - 1. */
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
    scene_agent a;
    if (agent_clause(r, "grid", tok, ntok, 6 + stagger, &a) != 0 ||
        reserve_agents(r, count) != 0) {
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

/* Trims blanks at both ends in place. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f') {
        ++s;
    }
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
                     s[n - 1] == '\v' || s[n - 1] == '\f' || s[n - 1] == '\n')) {
        s[--n] = '\0';
    }
    return s;
}

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

/* density_speed on|off [radius=R] [gamma=G] [max_density=M] (docs/scene-format.md): the
 * parameters only with 'on', each at most once; their ranges are the library's, checked when
 * the scenario is built (orca_sim_set_density_speed, the message naming this line). */
static int density_statement(reader *r, char **tok, int ntok)
{
    scene_desc *d = r->d;
    if (on_off(r, "density_speed", &d->density_line, tok, ntok, 0, &d->density_speed) != 0) {
        return -1;
    }
    d->density = orca_density_speed_default();
    if (!d->density_speed && ntok > 1) {
        return rfail(r, "density_speed off takes nothing after it, got %s", q(r, tok[1]));
    }
    static const char *const keys[3] = {"radius", "gamma", "max_density"};
    double *fields[3] = {&d->density.radius, &d->density.gamma, &d->density.max_density};
    int seen[3] = {0, 0, 0};
    for (int i = 1; i < ntok; ++i) {
        const char *eq = strchr(tok[i], '=');
        int k = 0;
        while (k < 3 && !(eq && (size_t)(eq - tok[i]) == strlen(keys[k]) &&
                          strncmp(tok[i], keys[k], strlen(keys[k])) == 0)) {
            ++k;
        }
        if (k == 3) {
            return rfail(r, "density_speed: expected radius=R, gamma=G or max_density=M, got %s",
                         q(r, tok[i]));
        }
        if (seen[k]++) {
            return rfail(r, "density_speed: %s given twice", keys[k]);
        }
        char field[32];
        snprintf(field, sizeof field, "density_speed %s", keys[k]);
        if (num(r, field, eq + 1, fields[k]) != 0) {
            return -1;
        }
    }
    return 0;
}

static int statement(reader *r, char *text, char ***tokbuf, int *tokcap)
{
    /* Comments: from the first '#' to the end of the line. */
    char *hash = strchr(text, '#');
    if (hash) {
        *hash = '\0';
    }
    text = trim(text);
    if (*text == '\0') {
        return 0;
    }
    /* The keyword, then the rest. */
    char *kw = text;
    char *rest = text;
    while (*rest && *rest != ' ' && *rest != '\t' && *rest != '\v' && *rest != '\f') {
        ++rest;
    }
    if (*rest) {
        *rest++ = '\0';
    }
    rest = trim(rest);
    scene_desc *d = r->d;

    if (strcmp(kw, "name") == 0) {
        if (r->block >= 0) {
            const scene_obstacle *o = &d->obstacles[r->block];
            return rfail(r, "'name' inside the %s block started on line %d (missing 'end'?)",
                         kind_name(o->kind), o->line);
        }
        if (once(r, &d->name_line, "name") != 0) {
            return -1;
        }
        size_t len = strlen(rest);
        if (len == 0 || len > SCENE_NAME_MAX) {
            return rfail(r, "name must have 1 to %d bytes, got %zu", SCENE_NAME_MAX, len);
        }
        char why[96];
        if (cli_check_text(rest, why, sizeof why) != 0) {
            return rfail(r, "name: %s (the name must be UTF-8 text without control "
                            "characters)",
                         why);
        }
        memcpy(d->name, rest, len + 1);
        return 0;
    }

    /* Tokenize the rest on blanks. */
    int ntok = 0;
    for (char *p = rest; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\v' || *p == '\f') {
            ++p;
        }
        if (!*p) {
            break;
        }
        if (grow((void **)tokbuf, tokcap, ntok + 1, sizeof **tokbuf)) {
            return out_of_memory(r);
        }
        (*tokbuf)[ntok++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\v' && *p != '\f') {
            ++p;
        }
        if (*p) {
            *p++ = '\0';
        }
    }
    char **tok = *tokbuf;

    if (r->block >= 0) {
        scene_obstacle *o = &d->obstacles[r->block];
        if (strcmp(kw, "end") == 0) {
            if (ntok != 0) {
                return rfail(r, "'end' takes nothing after it");
            }
            r->block = -1;
            return finish_obstacle(r, o);
        }
        /* A point line: "X Y". kw is the first number. */
        static const char *const keywords[] = {"agent",   "segment", "polyline", "polygon",
                                               "boundary", "default", "dt", "seed", "orca-scene",
                                               "separation", "navigation", "goalset",
                                               "grid", "density_speed"};
        for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; ++i) {
            if (strcmp(kw, keywords[i]) == 0) {
                return rfail(r, "'%s' inside the %s block started on line %d (missing 'end'?)",
                             kw, kind_name(o->kind), o->line);
            }
        }
        if (ntok != 1) {
            return rfail(r, "inside the %s block started on line %d: expected 'X Y' or 'end', "
                            "got %d fields",
                         kind_name(o->kind), o->line, ntok + 1);
        }
        char fx[48], fy[48];
        snprintf(fx, sizeof fx, "point %d x", o->count + 1);
        snprintf(fy, sizeof fy, "point %d y", o->count + 1);
        double x, y;
        if (coord(r, fx, kw, &x) != 0 || coord(r, fy, tok[0], &y) != 0 || add_point(r, x, y)) {
            return -1;
        }
        d->obstacles[r->block].count++;
        return 0;
    }

    if (strcmp(kw, "orca-scene") == 0) {
        if (once(r, &r->version_line, "orca-scene") != 0) {
            return -1;
        }
        if (ntok != 1 || strcmp(tok[0], "1") != 0) {
            return rfail(r, "orca-scene: this orca reads format version 1, got %s",
                         q(r, ntok ? tok[0] : ""));
        }
        return 0;
    }
    if (strcmp(kw, "dt") == 0) {
        if (once(r, &d->dt_line, "dt") != 0) {
            return -1;
        }
        if (ntok != 1) {
            return rfail(r, "dt takes one number (seconds), got %d fields", ntok);
        }
        if (num(r, "dt", tok[0], &d->dt) != 0) {
            return -1;
        }
        if (!(d->dt > 0.0)) {
            return rfail(r, "dt must be > 0, got %s%s", q(r, tok[0]),
                         cli_rounds_to_zero(tok[0], d->dt));
        }
        return 0;
    }
    if (strcmp(kw, "seed") == 0) {
        if (once(r, &d->seed_line, "seed") != 0) {
            return -1;
        }
        if (ntok != 1) {
            return rfail(r, "seed takes one whole number, got %d fields", ntok);
        }
        char why[160];
        if (cli_parse_u64(tok[0], &d->seed, why, sizeof why) != 0) {
            return rfail(r, "seed: %s", why);
        }
        return 0;
    }
    if (strcmp(kw, "separation") == 0) {
        return on_off(r, "separation", &d->separation_line, tok, ntok, 1, &d->separation);
    }
    if (strcmp(kw, "density_speed") == 0) {
        return density_statement(r, tok, ntok);
    }
    if (strcmp(kw, "navigation") == 0) {
        return on_off(r, "navigation", &d->navigation_line, tok, ntok, 1, &d->navigation);
    }
    if (strcmp(kw, "goalset") == 0) {
        /* goalset NAME X1 Y1 [X2 Y2 ...] [exit [arrive=D]] */
        int nums = 0;
        while (1 + nums < ntok && strcmp(tok[1 + nums], "exit") != 0 &&
               strchr(tok[1 + nums], '=') == NULL) {
            ++nums;
        }
        if (ntok < 3 || nums < 2 || nums % 2 != 0) {
            return rfail(r, "goalset takes a name and points: goalset NAME X1 Y1 [X2 Y2 ...] "
                            "[exit [arrive=D]], got %d fields",
                         ntok);
        }
        int is_exit = 0;
        double arrive = 0.0;
        for (int k = 1 + nums; k < ntok; ++k) {
            if (strcmp(tok[k], "exit") == 0 && k == 1 + nums) {
                is_exit = 1;
            } else if (strncmp(tok[k], "arrive=", 7) == 0 && is_exit && k == 2 + nums) {
                if (num(r, "arrive", tok[k] + 7, &arrive) != 0) {
                    return -1;
                }
                if (!(arrive == 0.0 || (arrive >= 0x1p-30 && arrive <= 0x1p23))) {
                    return rfail(r, "arrive must be 0 (the agent's radius) or between 2^-30 and "
                                    "2^23 m, got %s",
                                 q(r, tok[k] + 7));
                }
            } else {
                return rfail(r, "goalset: after the points only 'exit' and then 'arrive=D' may "
                                "follow, got %s",
                             q(r, tok[k]));
            }
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
        if (d->set_count == d->set_capacity) {
            int cap = d->set_capacity ? 2 * d->set_capacity : 4;
            scene_goal_set *ns = realloc(d->sets, (size_t)cap * sizeof *ns);
            if (!ns) {
                return rfail(r, "out of memory");
            }
            d->sets = ns;
            d->set_capacity = cap;
        }
        scene_goal_set *gs = &d->sets[d->set_count];
        memset(gs, 0, sizeof *gs);
        memcpy(gs->name, tok[0], len + 1);
        gs->first = d->point_count;
        gs->line = r->line;
        gs->exit = is_exit;
        gs->arrive = arrive;
        for (int k = 1; k < 1 + nums; k += 2) {
            char fx[48], fy[48];
            snprintf(fx, sizeof fx, "goalset point %d x", (k + 1) / 2);
            snprintf(fy, sizeof fy, "goalset point %d y", (k + 1) / 2);
            double x, y;
            if (coord(r, fx, tok[k], &x) != 0 || coord(r, fy, tok[k + 1], &y) != 0 ||
                add_point(r, x, y) != 0) {
                return -1;
            }
        }
        gs->count = nums / 2;
        d->set_count++;
        return 0;
    }
    if (strcmp(kw, "default") == 0) {
        if (ntok != 2) {
            return rfail(r, "default takes a parameter name and a value (default radius 1.5), "
                            "got %d fields",
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
        return set_param(r, k, tok[1], &r->defaults, &r->default_pref_speed, &unused);
    }
    if (strcmp(kw, "agent") == 0) {
        return st_agent(r, tok, ntok);
    }
    if (strcmp(kw, "grid") == 0) {
        return st_grid(r, tok, ntok);
    }
    if (strcmp(kw, "segment") == 0) {
        if (ntok != 4) {
            return rfail(r, "segment takes 4 numbers (segment AX AY BX BY), got %d", ntok);
        }
        if (add_obstacle(r, SCENE_SEGMENT) != 0) {
            return -1;
        }
        return obstacle_points(r, tok, ntok, 0);
    }
    if (strcmp(kw, "polyline") == 0 || strcmp(kw, "polygon") == 0 ||
        strcmp(kw, "boundary") == 0) {
        scene_obstacle_kind kind = kw[0] == 'b'   ? SCENE_BOUNDARY
                                   : kw[4] == 'l' ? SCENE_POLYLINE
                                                  : SCENE_POLYGON;
        if (add_obstacle(r, kind) != 0) {
            return -1;
        }
        if (ntok == 0) {
            r->block = r->d->obstacle_count - 1; /* points follow, one per line, until 'end' */
            return 0;
        }
        if (obstacle_points(r, tok, ntok, 0) != 0) {
            return -1;
        }
        return finish_obstacle(r, &d->obstacles[d->obstacle_count - 1]);
    }
    if (strcmp(kw, "end") == 0) {
        return rfail(r, "'end' without a polyline, polygon or boundary block");
    }
    return rfail(r, "unknown statement %s (expected orca-scene, name, dt, seed, default, "
                    "agent, grid, segment, polyline, polygon, boundary, separation, "
                    "navigation, goalset, density_speed)",
                 q(r, kw));
}

/* Lines of a file descriptor, read in chunks: at most CLI_SCENE_LINE_MAX bytes a line and
 * CLI_SCENE_FILE_MAX bytes in all, no NUL byte. */
typedef struct line_reader {
    int fd;
    char *buf;
    size_t cap, start, end; /* unread bytes: buf[start, end) */
    uint64_t total;         /* bytes read so far */
    int eof;
} line_reader;

#define LR_CHUNK ((size_t)1 << 16)

/* The next line without its '\n', NUL-terminated in place. Returns 1, 0 at the end, -1 on a
 * failure (message written; r->runtime set when it is not the file's fault). */
static int next_line(reader *r, line_reader *lr, char **line, size_t *len)
{
    size_t scanned = lr->start; /* bytes before this have no '\n' */
    for (;;) {
        char *nl = lr->end > scanned ? memchr(lr->buf + scanned, '\n', lr->end - scanned) : NULL;
        if (nl || (lr->eof && lr->end > lr->start)) {
            size_t n = nl ? (size_t)(nl - (lr->buf + lr->start)) : lr->end - lr->start;
            if (n > CLI_SCENE_LINE_MAX) {
                break; /* reported below */
            }
            *line = lr->buf + lr->start;
            *len = n;
            (*line)[n] = '\0'; /* over the '\n', or the spare byte after the data */
            lr->start += nl ? n + 1 : n;
            return 1;
        }
        if (lr->eof) {
            return 0;
        }
        if (lr->end - lr->start > CLI_SCENE_LINE_MAX) {
            break;
        }
        scanned = lr->end;
        /* Room for another chunk and the terminating NUL: move the unread bytes to the front,
         * then grow the buffer (up to a line and a chunk). */
        if (lr->start > 0) {
            memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
            lr->end -= lr->start;
            scanned -= lr->start;
            lr->start = 0;
        }
        if (lr->cap - lr->end < LR_CHUNK + 1) {
            size_t ncap = lr->cap ? lr->cap * 2 : LR_CHUNK + 1;
            if (ncap < lr->end + LR_CHUNK + 1) {
                ncap = lr->end + LR_CHUNK + 1;
            }
            char *nb = realloc(lr->buf, ncap);
            if (!nb) {
                return out_of_memory(r);
            }
            lr->buf = nb;
            lr->cap = ncap;
        }
        long got = cli_read_some(lr->fd, lr->buf + lr->end, LR_CHUNK);
        if (got < 0) {
            int e = errno;
            if (e != EISDIR) {
                r->runtime = 1;
            }
            r->d->sys_errno = e;
            snprintf(r->err, r->err_size, "%s: read error: %s", r->d->path,
                     e == EISDIR ? "is a directory" : strerror(e));
            return -1;
        }
        if (got == 0) {
            lr->eof = 1;
            continue;
        }
        lr->total += (uint64_t)got;
        if (lr->total > CLI_SCENE_FILE_MAX) {
            char lim[64];
            cli_format_bytes(lim, sizeof lim, CLI_SCENE_FILE_MAX);
            snprintf(r->err, r->err_size,
                     "%s: more than the limit of %s for a scene file (stopped reading at line %d)",
                     r->d->path, lim, r->line + 1);
            return -1;
        }
        /* A NUL byte: not a text file (report it now, not after a megabyte of them). */
        char *nul = memchr(lr->buf + lr->end, '\0', (size_t)got);
        lr->end += (size_t)got;
        if (nul) {
            int at = r->line + 1;
            for (char *p = lr->buf + lr->start; p < nul; ++p) {
                at += *p == '\n';
            }
            r->line = at;
            return rfail(r, "NUL byte in the line (is this a text file?)");
        }
    }
    char lim[64];
    cli_format_bytes(lim, sizeof lim, CLI_SCENE_LINE_MAX);
    r->line++;
    return rfail(r, "the line is longer than the limit of %s (a long polyline or polygon "
                    "can take its points one per line, up to 'end')",
                 lim);
}

int scene_read(const char *path, scene_desc *d, char *err, size_t err_size)
{
    memset(d, 0, sizeof *d);
    int is_stdin = strcmp(path, "-") == 0;
    snprintf(d->path, sizeof d->path, "%s", is_stdin ? "<stdin>" : path);
    d->dt = SCENE_DEFAULT_DT;
    d->seed = CLI_DEFAULT_SEED;
    snprintf(d->name, sizeof d->name, "custom");

    line_reader lr;
    memset(&lr, 0, sizeof lr);
    long long regular = -1;
    if (cli_open_input(path, &lr.fd, &regular, err, err_size) != CLI_READ_OK) {
        d->sys_errno = errno ? errno : EIO;
        return -1;
    }
    if (regular >= 0 && (unsigned long long)regular > CLI_SCENE_FILE_MAX) {
        char lim[64], got[64];
        cli_format_bytes(lim, sizeof lim, CLI_SCENE_FILE_MAX);
        cli_format_bytes(got, sizeof got, (unsigned long long)regular);
        snprintf(err, err_size, "%s: %s is more than the limit of %s for a scene file", d->path,
                 got, lim);
        if (!is_stdin) {
            cli_close_fd(lr.fd);
        }
        return -1;
    }
    reader r;
    memset(&r, 0, sizeof r);
    r.d = d;
    r.err = err;
    r.err_size = err_size;
    r.defaults = orca_agent_def_default();
    r.default_pref_speed = orca_goal_default().preferred_speed;
    r.block = -1;

    char **tokbuf = NULL;
    int tokcap = 0;
    int rc = 0;
    char *line = NULL;
    size_t len = 0;
    while ((rc = next_line(&r, &lr, &line, &len)) == 1) {
        r.line++;
        if (r.line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
            line += 3; /* a UTF-8 byte-order mark (editors on Windows write one): skipped */
        }
        if (statement(&r, line, &tokbuf, &tokcap) != 0) {
            rc = -1;
            break;
        }
    }
    if (rc == 0 && r.block >= 0) {
        r.line = d->obstacles[r.block].line;
        rc = rfail(&r, "%s block has no 'end'", kind_name(d->obstacles[r.block].kind));
    }
    if (rc == 0 && d->agent_count == 0) {
        snprintf(err, err_size, "%s: %s (add 'agent X Y ...' lines)", d->path,
                 lr.total == 0 ? "the file is empty" : "the scene has no agents");
        rc = -1;
    }
    free(lr.buf);
    free(tokbuf);
    if (!is_stdin) {
        cli_close_fd(lr.fd);
    }
    return rc == 0 ? 0 : r.runtime ? -2 : -1;
}

void scene_free(scene_desc *d)
{
    free(d->agents);
    free(d->obstacles);
    free(d->points);
    free(d->sets);
    d->agents = NULL;
    d->obstacles = NULL;
    d->points = NULL;
    d->sets = NULL;
}

/* --- coincident starts -------------------------------------------------------------------- */

/* Agent indices ordered by position (x, then y, compared as numbers), then index. */
static const orca_vec2 *g_sort_pos;
static int by_position(const void *pa, const void *pb)
{
    int i = *(const int *)pa, j = *(const int *)pb;
    const orca_vec2 *p = &g_sort_pos[i], *q = &g_sort_pos[j];
    if (p->x != q->x) {
        return p->x < q->x ? -1 : 1;
    }
    if (p->y != q->y) {
        return p->y < q->y ? -1 : 1;
    }
    return i < j ? -1 : i > j;
}

int cli_warn_coincident(const orca_vec2 *pos, int n, const int *lines, const char *where,
                        const orca_sim *sim, FILE *out)
{
    if (n < 2 || (sim && orca_sim_separation_active(sim))) {
        return 0;
    }
    int *order = malloc((size_t)n * sizeof *order);
    if (!order) {
        return 0; /* a warning only: nothing to report without memory */
    }
    for (int i = 0; i < n; ++i) {
        order[i] = i;
    }
    g_sort_pos = pos;
    qsort(order, (size_t)n, sizeof *order, by_position);
    int found = 0, first = 0; /* first: where the group of agents at one point begins */
    for (int k = 1; k < n; ++k) {
        orca_vec2 a = pos[order[first]], b = pos[order[k]];
        if (a.x != b.x || a.y != b.y) {
            first = k;
            continue;
        }
        if (++found > 5) {
            continue;
        }
        if (lines) {
            fprintf(out, "%s:%d: warning: agent %d starts at the same point as agent %d (line %d)",
                    where, lines[order[k]], order[k], order[first], lines[order[first]]);
        } else {
            fprintf(out, "%s: warning: agent %d starts at the same point as agent %d", where,
                    order[k], order[first]);
        }
        fprintf(out,
                ", (%.17g, %.17g): agents at one point with equal velocities never separate "
                "unless the separation is on ('separation on', orca run --separation; "
                "docs/extensions.md)\n",
                b.x, b.y);
    }
    if (found > 5) {
        fprintf(out, "%s: warning: %d more agents start at the same point as an earlier one\n",
                where, found - 5);
    }
    free(order);
    return found;
}

int scene_warn_coincident(const scene_desc *d, const orca_sim *sim, FILE *out)
{
    if (d->agent_count < 2 || (sim && orca_sim_separation_active(sim))) {
        return 0;
    }
    orca_vec2 *pos = malloc((size_t)d->agent_count * sizeof *pos);
    int *lines = malloc((size_t)d->agent_count * sizeof *lines);
    int found = 0;
    if (pos && lines) {
        for (int i = 0; i < d->agent_count; ++i) {
            pos[i] = d->agents[i].def.position;
            lines[i] = d->agents[i].line;
        }
        found = cli_warn_coincident(pos, d->agent_count, lines, d->path, sim, out);
    }
    free(pos);
    free(lines);
    return found;
}

/* --- building ------------------------------------------------------------------------------ */

static int runtime_status(orca_status st)
{
    return st == ORCA_ERR_MEMORY ? -2 : -1;
}

int scene_build(const scene_desc *d, const orca_sim_def *sim_def, const double *dt_override,
                const uint64_t *seed_override, orca_scenario **out, char *err, size_t err_size)
{
    double dt = dt_override ? *dt_override : d->dt;
    uint64_t seed = seed_override ? *seed_override : d->seed;
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create(sim_def, dt, seed, &sc);
    if (st != ORCA_OK) {
        /* No scenario holds the message: the library keeps it for orca_scenario_last_error
         * (NULL); it may be empty (out of memory), so the status is named too. */
        const char *msg = orca_scenario_last_error(NULL);
        char where[600];
        if (dt_override || !d->dt_line) {
            snprintf(where, sizeof where, "%s", d->path);
        } else {
            snprintf(where, sizeof where, "%s:%d", d->path, d->dt_line);
        }
        snprintf(err, err_size, "%s: creating the scenario (orca_scenario_create): %s (%s)",
                 where, msg && msg[0] ? msg : "failed", orca_status_name(st));
        return runtime_status(st);
    }
    if (d->name_line) {
        st = orca_scenario_set_name(sc, d->name);
        if (st != ORCA_OK) {
            snprintf(err, err_size, "%s:%d: %s", d->path, d->name_line,
                     orca_scenario_last_error(sc));
            orca_scenario_destroy(sc);
            return runtime_status(st);
        }
    }
    orca_sim *sim = orca_scenario_sim(sc);
    if (d->separation && (st = orca_sim_set_separation(sim, 1)) != ORCA_OK) {
        snprintf(err, err_size, "%s:%d: %s", d->path, d->separation_line, orca_sim_last_error(sim));
        orca_scenario_destroy(sc);
        return runtime_status(st);
    }
    if (d->density_speed && (st = orca_sim_set_density_speed(sim, &d->density)) != ORCA_OK) {
        snprintf(err, err_size, "%s:%d: %s", d->path, d->density_line, orca_sim_last_error(sim));
        orca_scenario_destroy(sc);
        return runtime_status(st);
    }
    for (int k = 0; k < d->set_count; ++k) {
        const scene_goal_set *gs = &d->sets[k];
        int set = -1;
        st = orca_scenario_add_goal_set(sc, gs->name, d->points + gs->first, gs->count, &set);
        if (st == ORCA_OK && gs->exit) {
            st = orca_scenario_set_goal_set_exit(sc, set, gs->arrive);
        }
        if (st != ORCA_OK) {
            snprintf(err, err_size, "%s:%d: %s", d->path, gs->line, orca_scenario_last_error(sc));
            orca_scenario_destroy(sc);
            return runtime_status(st);
        }
    }
    if (d->navigation && (st = orca_scenario_set_navigation(sc, 1)) != ORCA_OK) {
        snprintf(err, err_size, "%s:%d: %s", d->path, d->navigation_line,
                 orca_scenario_last_error(sc));
        orca_scenario_destroy(sc);
        return runtime_status(st);
    }
    for (int i = 0; i < d->obstacle_count; ++i) {
        const scene_obstacle *o = &d->obstacles[i];
        if (o->kind == SCENE_SEGMENT) {
            st = orca_sim_add_segment(sim, d->points[o->first], d->points[o->first + 1], NULL);
        } else if (o->kind == SCENE_BOUNDARY) {
            st = orca_sim_add_boundary(sim, d->points + o->first, o->count, NULL);
        } else {
            st = orca_sim_add_polyline(sim, d->points + o->first, o->count,
                                       o->kind == SCENE_POLYGON, NULL);
        }
        if (st != ORCA_OK) {
            snprintf(err, err_size, "%s:%d: %s", d->path, o->line, orca_sim_last_error(sim));
            orca_scenario_destroy(sc);
            return runtime_status(st);
        }
    }
    for (int i = 0; i < d->agent_count; ++i) {
        const scene_agent *a = &d->agents[i];
        orca_agent_id id;
        st = orca_scenario_add_agent(sc, &a->def, &a->goal, &id);
        if (st == ORCA_OK) {
            st = orca_agent_set_avoidance(sim, id, &a->avoidance);
            if (st != ORCA_OK) {
                snprintf(err, err_size, "%s:%d: agent %d: %s", d->path, a->line, i,
                         orca_sim_last_error(sim));
                orca_scenario_destroy(sc);
                return runtime_status(st);
            }
        }
        if (st == ORCA_OK && a->via_count > 0) {
            st = orca_scenario_set_waypoints(sc, orca_sim_agent_index(sim, id),
                                             d->points + a->via_first, a->via_count, a->loop,
                                             a->arrive);
        }
        if (st != ORCA_OK) {
            snprintf(err, err_size, "%s:%d: agent %d: %s", d->path, a->line, i,
                     orca_scenario_last_error(sc));
            orca_scenario_destroy(sc);
            return runtime_status(st);
        }
    }
    *out = sc;
    return 0;
}

orca_status scene_clone(orca_scenario *src, const orca_sim_def *sim_def, double dt, uint64_t seed,
                        orca_scenario **out, char *err, size_t err_size)
{
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create(sim_def, dt, seed, &sc);
    if (st != ORCA_OK) {
        const char *msg = orca_scenario_last_error(NULL);
        snprintf(err, err_size, "creating the scenario (orca_scenario_create): %s (%s)",
                 msg && msg[0] ? msg : "failed", orca_status_name(st));
        return st;
    }
    orca_sim *from = orca_scenario_sim(src);
    orca_sim *to = orca_scenario_sim(sc);
    st = orca_scenario_set_name(sc, orca_scenario_name(src));
    if (st == ORCA_OK) {
        st = orca_sim_set_separation(to, orca_sim_get_separation(from));
    }
    orca_density_speed dens;
    if (st == ORCA_OK && orca_sim_get_density_speed(from, &dens)) {
        st = orca_sim_set_density_speed(to, &dens);
    }
    int ns = orca_sim_segment_count(from);
    for (int i = 0; i < ns && st == ORCA_OK; ++i) {
        orca_vec2 a, b;
        st = orca_segment_get(from, orca_sim_segment_at(from, i), &a, &b);
        if (st == ORCA_OK) {
            st = orca_sim_add_segment(to, a, b, NULL);
        }
    }
    int nbd = orca_sim_boundary_count(from);
    for (int i = 0; i < nbd && st == ORCA_OK; ++i) {
        orca_boundary_id bid = orca_sim_boundary_at(from, i);
        int np = 0;
        st = orca_boundary_get(from, bid, NULL, 0, &np);
        orca_vec2 *pts = st == ORCA_OK ? malloc((size_t)np * sizeof *pts) : NULL;
        if (st == ORCA_OK && !pts) {
            st = ORCA_ERR_MEMORY;
        }
        if (st == ORCA_OK) {
            st = orca_boundary_get(from, bid, pts, np, &np);
        }
        if (st == ORCA_OK) {
            st = orca_sim_add_boundary(to, pts, np, NULL);
        }
        free(pts);
    }
    int na = orca_sim_agent_count(from);
    for (int i = 0; i < na && st == ORCA_OK; ++i) {
        orca_agent_def def;
        orca_goal goal;
        st = orca_agent_get(from, orca_sim_agent_at(from, i), &def);
        if (st == ORCA_OK) {
            st = orca_scenario_agent_goal(src, i, &goal, NULL);
        }
        orca_agent_avoidance av;
        if (st == ORCA_OK) {
            st = orca_agent_get_avoidance(from, orca_sim_agent_at(from, i), &av);
        }
        orca_agent_id id;
        if (st == ORCA_OK) {
            st = orca_scenario_add_agent(sc, &def, &goal, &id);
        }
        if (st == ORCA_OK) {
            st = orca_agent_set_avoidance(to, id, &av);
        }
        int wn = 0, loop = 0, current = 0;
        double arrive = 0.0;
        if (st == ORCA_OK) {
            st = orca_scenario_agent_waypoints(src, i, NULL, 0, &wn, &loop, &arrive);
        }
        if (st == ORCA_OK && wn > 0) {
            orca_vec2 *pts = malloc((size_t)wn * sizeof *pts);
            if (!pts) {
                st = ORCA_ERR_MEMORY;
                break;
            }
            st = orca_scenario_agent_waypoints(src, i, pts, wn, &wn, &loop, &arrive);
            if (st == ORCA_OK) {
                st = orca_scenario_set_waypoints(sc, i, pts, wn, loop, arrive);
            }
            free(pts);
            if (st == ORCA_OK) {
                st = orca_scenario_waypoint_index(src, i, &current);
            }
            if (st == ORCA_OK) {
                st = orca_scenario_set_waypoint_index(sc, i, current);
            }
        }
    }
    if (st != ORCA_OK) {
        /* The message is the new scenario's (or its simulation's): copy it before the
         * scenario goes. */
        const char *msg = orca_scenario_last_error(sc);
        if (!msg[0]) {
            msg = orca_sim_last_error(to);
        }
        snprintf(err, err_size, "copying the scene: %s (%s)", msg[0] ? msg : "failed",
                 orca_status_name(st));
        orca_scenario_destroy(sc);
        return st;
    }
    *out = sc;
    return ORCA_OK;
}

/* --- writing ------------------------------------------------------------------------------- */

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int is_plus_zero(double a)
{
    return same_bits(a, 0.0);
}

/* " via X1 Y1 ... [loop]" for an agent with waypoints; *arrive gets its arrive distance. */
static int write_waypoints(FILE *f, orca_scenario *sc, int index, double *arrive)
{
    int n = 0, loop = 0;
    if (orca_scenario_agent_waypoints(sc, index, NULL, 0, &n, &loop, arrive) != ORCA_OK) {
        return -1;
    }
    if (n == 0) {
        return 0;
    }
    orca_vec2 *p = malloc((size_t)n * sizeof *p);
    if (!p || orca_scenario_agent_waypoints(sc, index, p, n, &n, &loop, arrive) != ORCA_OK) {
        free(p);
        return -1;
    }
    fputs(" via", f);
    for (int k = 0; k < n; ++k) {
        fprintf(f, " %.17g %.17g", p[k].x, p[k].y);
    }
    if (loop) {
        fputs(" loop", f);
    }
    free(p);
    return 0;
}

int scene_write(FILE *f, orca_scenario *sc, const char *comment)
{
    orca_sim *sim = orca_scenario_sim(sc);
    int na = orca_sim_agent_count(sim);
    int ns = orca_sim_segment_count(sim);
    orca_agent_def base = orca_agent_def_default();
    double base_pref = orca_goal_default().preferred_speed;
    /* Defaults from the first agent: built-in scenes give every agent the same parameters. */
    if (na > 0) {
        orca_goal g;
        if (orca_agent_get(sim, orca_sim_agent_at(sim, 0), &base) != ORCA_OK ||
            orca_scenario_agent_goal(sc, 0, &g, NULL) != ORCA_OK) {
            return -1;
        }
        if (g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET) {
            base_pref = g.preferred_speed;
        }
    }
    fprintf(f, "# orca scene file (format: docs/scene-format.md)\n");
    if (comment) {
        fprintf(f, "# %s\n", comment);
    }
    fprintf(f, "orca-scene 1\n");
    fprintf(f, "name %s\n", orca_scenario_name(sc));
    fprintf(f, "dt %.17g\n", orca_scenario_dt(sc));
    fprintf(f, "seed %llu\n", (unsigned long long)orca_scenario_seed(sc));
    if (orca_sim_get_separation(sim)) {
        fprintf(f, "separation on\n");
    }
    orca_density_speed dens;
    if (orca_sim_get_density_speed(sim, &dens)) {
        fprintf(f, "density_speed on radius=%.17g gamma=%.17g max_density=%.17g\n", dens.radius,
                dens.gamma, dens.max_density);
    }
    if (orca_scenario_get_navigation(sc)) {
        fprintf(f, "navigation on\n");
    }
    for (int k = 0; k < orca_scenario_goal_set_count(sc); ++k) {
        const char *name = NULL;
        int np = 0;
        if (orca_scenario_goal_set_get(sc, k, &name, NULL, 0, &np) != ORCA_OK) {
            return -1;
        }
        orca_vec2 *pts = malloc((size_t)np * sizeof *pts);
        if (!pts || orca_scenario_goal_set_get(sc, k, NULL, pts, np, &np) != ORCA_OK) {
            free(pts);
            return -1;
        }
        fprintf(f, "goalset %s", name);
        for (int j = 0; j < np; ++j) {
            fprintf(f, " %.17g %.17g", pts[j].x, pts[j].y);
        }
        int is_exit = 0;
        double arrive = 0.0;
        if (orca_scenario_goal_set_exit(sc, k, &is_exit, &arrive) != ORCA_OK) {
            free(pts);
            return -1;
        }
        if (is_exit) {
            fprintf(f, " exit");
            if (arrive != 0.0) {
                fprintf(f, " arrive=%.17g", arrive);
            }
        }
        fprintf(f, "\n");
        free(pts);
    }
    fprintf(f, "\n# defaults for the agent lines below\n");
    fprintf(f, "default radius %.17g\n", base.radius);
    fprintf(f, "default max_speed %.17g\n", base.max_speed);
    fprintf(f, "default neighbor_dist %.17g\n", base.neighbor_dist);
    fprintf(f, "default max_neighbors %d\n", base.max_neighbors);
    fprintf(f, "default time_horizon %.17g\n", base.time_horizon);
    fprintf(f, "default obstacle_time_horizon %.17g\n", base.obstacle_time_horizon);
    fprintf(f, "default preferred_speed %.17g\n", base_pref);

    fprintf(f, "\n# %d segment%s: segment AX AY BX BY\n", ns, ns == 1 ? "" : "s");
    for (int i = 0; i < ns; ++i) {
        orca_vec2 a, b;
        if (orca_segment_get(sim, orca_sim_segment_at(sim, i), &a, &b) != ORCA_OK) {
            return -1;
        }
        fprintf(f, "segment %.17g %.17g %.17g %.17g\n", a.x, a.y, b.x, b.y);
    }
    int nbd = orca_sim_boundary_count(sim);
    if (nbd > 0) {
        fprintf(f, "\n# %d walkable-area boundar%s: boundary X1 Y1 X2 Y2 X3 Y3 ... (walkable on "
                   "the left)\n",
                nbd, nbd == 1 ? "y" : "ies");
    }
    for (int i = 0; i < nbd; ++i) {
        orca_boundary_id bid = orca_sim_boundary_at(sim, i);
        int np = 0;
        if (orca_boundary_get(sim, bid, NULL, 0, &np) != ORCA_OK) {
            return -1;
        }
        orca_vec2 *pts = malloc((size_t)np * sizeof *pts);
        if (!pts || orca_boundary_get(sim, bid, pts, np, &np) != ORCA_OK) {
            free(pts);
            return -1;
        }
        fprintf(f, "boundary");
        for (int k = 0; k < np; ++k) {
            fprintf(f, " %.17g %.17g", pts[k].x, pts[k].y);
        }
        fprintf(f, "\n");
        free(pts);
    }

    fprintf(f, "\n# %d agent%s: agent X Y [goal GX GY [via X1 Y1 ... [loop]] | prefvel VX VY | "
               "none] [key=value ...]\n",
            na, na == 1 ? "" : "s");
    for (int i = 0; i < na; ++i) {
        orca_agent_def def;
        orca_goal g;
        double arrive = 0.0;
        if (orca_agent_get(sim, orca_sim_agent_at(sim, i), &def) != ORCA_OK ||
            orca_scenario_agent_goal(sc, i, &g, NULL) != ORCA_OK) {
            return -1;
        }
        fprintf(f, "agent %.17g %.17g", def.position.x, def.position.y);
        switch (g.kind) {
        case ORCA_GOAL_POINT:
            fprintf(f, " goal %.17g %.17g", g.target.x, g.target.y);
            if (write_waypoints(f, sc, i, &arrive) != 0) {
                return -1;
            }
            break;
        case ORCA_GOAL_VELOCITY: fprintf(f, " prefvel %.17g %.17g", g.target.x, g.target.y); break;
        case ORCA_GOAL_SET: {
            const char *name = NULL;
            if (orca_scenario_goal_set_get(sc, g.goal_set, &name, NULL, 0, NULL) != ORCA_OK) {
                return -1;
            }
            fprintf(f, " goalset %s", name);
            break;
        }
        default: fprintf(f, " none"); break;
        }
        if (!same_bits(def.radius, base.radius)) {
            fprintf(f, " radius=%.17g", def.radius);
        }
        if (!same_bits(def.max_speed, base.max_speed)) {
            fprintf(f, " max_speed=%.17g", def.max_speed);
        }
        if (!same_bits(def.neighbor_dist, base.neighbor_dist)) {
            fprintf(f, " neighbor_dist=%.17g", def.neighbor_dist);
        }
        if (def.max_neighbors != base.max_neighbors) {
            fprintf(f, " max_neighbors=%d", def.max_neighbors);
        }
        if (!same_bits(def.time_horizon, base.time_horizon)) {
            fprintf(f, " time_horizon=%.17g", def.time_horizon);
        }
        if (!same_bits(def.obstacle_time_horizon, base.obstacle_time_horizon)) {
            fprintf(f, " obstacle_time_horizon=%.17g", def.obstacle_time_horizon);
        }
        if ((g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET) &&
            !same_bits(g.preferred_speed, base_pref)) {
            fprintf(f, " preferred_speed=%.17g", g.preferred_speed);
        }
        if (!is_plus_zero(def.velocity.x) || !is_plus_zero(def.velocity.y)) {
            fprintf(f, " velocity=%.17g,%.17g", def.velocity.x, def.velocity.y);
        }
        if (!is_plus_zero(arrive)) {
            fprintf(f, " arrive=%.17g", arrive);
        }
        orca_agent_avoidance av, av0 = orca_agent_avoidance_default();
        if (orca_agent_get_avoidance(sim, orca_sim_agent_at(sim, i), &av) != ORCA_OK) {
            return -1;
        }
        if (!same_bits(av.priority, av0.priority)) {
            fprintf(f, " priority=%.17g", av.priority);
        }
        if (av.layers != av0.layers) {
            fprintf(f, " layers=0x%x", (unsigned)av.layers);
        }
        if (av.mask != av0.mask) {
            fprintf(f, " mask=0x%x", (unsigned)av.mask);
        }
        if (av.locked) {
            fprintf(f, " locked=1");
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}
