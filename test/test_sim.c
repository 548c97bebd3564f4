/* SPDX-License-Identifier: MIT */
/* The simulator (orca/sim.h) against independent truth.
 *
 * Truth used here, all written in this file from docs/algorithm.md, sim.h's doc comments and
 * docs/determinism.md, never from the simulator's sources:
 *   - neighbours: brute force over every agent / segment (algorithm.md §11):
 *     obstacles with SegDist2 <= (obstacle_time_horizon*max_speed + radius)^2
 *     sorted by (squared distance, index); agents j != i with Dot(d, d) < neighbor_dist^2,
 *     the max_neighbors smallest by (squared distance, index);
 *   - constraints: orca_constraint_segment / orca_constraint_agent on those lists;
 *   - the step (algorithm.md §12): a reference step written here with orca_solve;
 *   - the hash: FNV-1a 64 over the documented value sequence, computed here;
 *   - everything else by comparing two routes that must agree (worker counts and task splits,
 *     removal vs never added, snapshot vs original, ...).
 * No expected value below was copied from the library's output. */
#include "test.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <orca/sim.h>
#include <orca/solver.h>

#include "thread.h"

/* ---------------------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------------------- */

static double uni(test_rng *g, double lo, double hi)
{
    return test_rng_uniform(g, lo, hi);
}

static int irand(test_rng *g, int n) /* 0 .. n-1 */
{
    return (int)(test_rng_next(g) % (unsigned long long)n);
}

static int chance(test_rng *g, double p)
{
    return uni(g, 0, 1) < p;
}

static int same_vec(orca_vec2 a, orca_vec2 b)
{
    return test_same_bits(a.x, b.x) && test_same_bits(a.y, b.y);
}

static int same_def(const orca_agent_def *a, const orca_agent_def *b)
{
    return same_vec(a->position, b->position) && same_vec(a->velocity, b->velocity) &&
           same_vec(a->preferred_velocity, b->preferred_velocity) &&
           test_same_bits(a->radius, b->radius) && test_same_bits(a->max_speed, b->max_speed) &&
           test_same_bits(a->neighbor_dist, b->neighbor_dist) &&
           a->max_neighbors == b->max_neighbors &&
           test_same_bits(a->time_horizon, b->time_horizon) &&
           test_same_bits(a->obstacle_time_horizon, b->obstacle_time_horizon);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* ---------------------------------------------------------------------------------------
 * The test's own copy of a scene ("world"): the truth the brute force reads
 * ------------------------------------------------------------------------------------- */

typedef struct world {
    int n, m, ncap, mcap;
    orca_agent_def *ag;
    orca_vec2 *sa, *sb;
} world;

static void world_free(world *w)
{
    free(w->ag);
    free(w->sa);
    free(w->sb);
    memset(w, 0, sizeof *w);
}

static void world_add_agent(world *w, orca_agent_def d)
{
    if (w->n == w->ncap) {
        w->ncap = w->ncap ? 2 * w->ncap : 64;
        w->ag = realloc(w->ag, (size_t)w->ncap * sizeof *w->ag);
        if (!w->ag) {
            exit(2);
        }
    }
    w->ag[w->n++] = d;
}

static void world_add_segment(world *w, orca_vec2 a, orca_vec2 b)
{
    if (w->m == w->mcap) {
        w->mcap = w->mcap ? 2 * w->mcap : 64;
        w->sa = realloc(w->sa, (size_t)w->mcap * sizeof *w->sa);
        w->sb = realloc(w->sb, (size_t)w->mcap * sizeof *w->sb);
        if (!w->sa || !w->sb) {
            exit(2);
        }
    }
    w->sa[w->m] = a;
    w->sb[w->m] = b;
    w->m++;
}

static world world_copy(const world *w)
{
    world c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < w->n; ++i) {
        world_add_agent(&c, w->ag[i]);
    }
    for (int k = 0; k < w->m; ++k) {
        world_add_segment(&c, w->sa[k], w->sb[k]);
    }
    return c;
}

static orca_sim *sim_new(int workers)
{
    orca_sim_def d = orca_sim_def_default();
    d.worker_count = workers;
    orca_sim *s = NULL;
    if (orca_sim_create(&d, &s) != ORCA_OK) {
        fprintf(stderr, "orca_sim_create(%d workers) failed\n", workers);
        exit(2);
    }
    return s;
}

/* Adds the world to the simulation (agents then segments, in index order) and checks that
 * the getters give the values back bit for bit. */
static int world_to_sim(const world *w, orca_sim *s)
{
    int n0 = orca_sim_agent_count(s), m0 = orca_sim_segment_count(s);
    for (int i = 0; i < w->n; ++i) {
        orca_agent_id id;
        orca_status st = orca_sim_add_agent(s, &w->ag[i], &id);
        ENSURE_MSG(st == ORCA_OK, "add agent %d: %s (%s)", i, orca_status_name(st),
                   orca_sim_last_error(s));
        ENSURE(orca_sim_agent_index(s, id) == n0 + i);
    }
    for (int k = 0; k < w->m; ++k) {
        orca_segment_id id;
        orca_status st = orca_sim_add_segment(s, w->sa[k], w->sb[k], &id);
        ENSURE_MSG(st == ORCA_OK, "add segment %d: %s (%s)", k, orca_status_name(st),
                   orca_sim_last_error(s));
    }
    for (int i = 0; i < w->n; ++i) {
        orca_agent_def d;
        ENSURE(orca_agent_get(s, orca_sim_agent_at(s, n0 + i), &d) == ORCA_OK);
        ENSURE_MSG(same_def(&d, &w->ag[i]), "agent %d reads back different values", i);
    }
    for (int k = 0; k < w->m; ++k) {
        orca_vec2 a, b;
        ENSURE(orca_segment_get(s, orca_sim_segment_at(s, m0 + k), &a, &b) == ORCA_OK);
        ENSURE(same_vec(a, w->sa[k]) && same_vec(b, w->sb[k]));
    }
    return 0;
}

/* Every agent's state in the simulation equals the world's, bit for bit. */
static int sim_matches_world(const orca_sim *s, const world *w, const char *what, int step)
{
    ENSURE_MSG(orca_sim_agent_count(s) == w->n, "%s step %d: %d agents, expected %d", what, step,
               orca_sim_agent_count(s), w->n);
    ENSURE(orca_sim_segment_count(s) == w->m);
    for (int i = 0; i < w->n; ++i) {
        orca_agent_def d;
        ENSURE(orca_agent_get(s, orca_sim_agent_at(s, i), &d) == ORCA_OK);
        ENSURE_MSG(same_def(&d, &w->ag[i]),
                   "%s step %d agent %d: sim p=(%a,%a) v=(%a,%a), reference p=(%a,%a) v=(%a,%a)",
                   what, step, i, d.position.x, d.position.y, d.velocity.x, d.velocity.y,
                   w->ag[i].position.x, w->ag[i].position.y, w->ag[i].velocity.x,
                   w->ag[i].velocity.y);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Brute force (algorithm.md §11, neighbours and constraint order)
 * ------------------------------------------------------------------------------------- */

typedef struct bf_item {
    double d2;
    int index;
} bf_item;

/* The order (squared distance, index): a total order, so qsort's instability is moot. */
static int bf_cmp(const void *pa, const void *pb)
{
    const bf_item *a = pa, *b = pb;
    if (a->d2 < b->d2) {
        return -1;
    }
    if (a->d2 > b->d2) {
        return 1;
    }
    return (a->index > b->index) - (a->index < b->index);
}

typedef struct bf_stats {
    long agent_ties;     /* consecutive listed agents with bit-identical squared distance */
    long agent_cut_ties; /* a tie at the max_neighbors cut: the index decided who is in */
    long segment_ties;
    long at_reach;       /* segments exactly at the reach distance (d2 == reach^2) */
    long agents_listed, segments_listed;
} bf_stats;

/* Agents j != i with Dot(d, d) < neighbor_dist^2 (d = pj - pi), the max_neighbors smallest. */
static int bf_agents(const world *w, int i, bf_item *tmp, int *out, bf_stats *st)
{
    const orca_agent_def *a = &w->ag[i];
    double nd2 = a->neighbor_dist * a->neighbor_dist;
    int c = 0;
    for (int j = 0; j < w->n; ++j) {
        if (j == i) {
            continue;
        }
        double dx = w->ag[j].position.x - a->position.x;
        double dy = w->ag[j].position.y - a->position.y;
        double d2 = dx * dx + dy * dy;
        if (d2 < nd2) {
            tmp[c].d2 = d2;
            tmp[c].index = j;
            ++c;
        }
    }
    qsort(tmp, (size_t)c, sizeof *tmp, bf_cmp);
    int k = c < a->max_neighbors ? c : a->max_neighbors;
    for (int q = 0; q < k; ++q) {
        out[q] = tmp[q].index;
        if (st && q > 0 && tmp[q].d2 == tmp[q - 1].d2) {
            st->agent_ties++;
        }
    }
    if (st && k > 0 && k < c && tmp[k].d2 == tmp[k - 1].d2) {
        st->agent_cut_ties++;
    }
    if (st) {
        st->agents_listed += k;
    }
    return k;
}

static double reach_of(const orca_agent_def *a)
{
    return a->obstacle_time_horizon * a->max_speed + a->radius;
}

/* Segments with SegDist2(a - p, b - p) <= reach^2 (algorithm.md §6.3, §11.1), by
 * (distance^2, index). */
static int bf_segments(const world *w, int i, bf_item *tmp, int *out, bf_stats *st)
{
    const orca_agent_def *a = &w->ag[i];
    double reach = reach_of(a);
    double lim = reach * reach;
    orca_vec2 p = a->position;
    int c = 0;
    for (int k = 0; k < w->m; ++k) {
        double d2 = orca_segment_distance_squared(vec(w->sa[k].x - p.x, w->sa[k].y - p.y),
                                                  vec(w->sb[k].x - p.x, w->sb[k].y - p.y));
        if (d2 <= lim) {
            tmp[c].d2 = d2;
            tmp[c].index = k;
            ++c;
            if (st && d2 == lim) {
                st->at_reach++;
            }
        }
    }
    qsort(tmp, (size_t)c, sizeof *tmp, bf_cmp);
    for (int q = 0; q < c; ++q) {
        out[q] = tmp[q].index;
        if (st && q > 0 && tmp[q].d2 == tmp[q - 1].d2) {
            st->segment_ties++;
        }
    }
    if (st) {
        st->segments_listed += c;
    }
    return c;
}

/* The half-planes of agent i from the brute-force lists, in algorithm.md §11's order. */
static int bf_planes(const world *w, int i, double dt, const int *segs, int ns, const int *agents,
                     int na, orca_halfplane *out)
{
    const orca_agent_def *a = &w->ag[i];
    orca_vec2 p = a->position;
    int c = 0;
    for (int q = 0; q < ns; ++q) {
        int k = segs[q];
        out[c++] = orca_constraint_segment(vec(w->sa[k].x - p.x, w->sa[k].y - p.y),
                                           vec(w->sb[k].x - p.x, w->sb[k].y - p.y), a->radius,
                                           a->obstacle_time_horizon, dt, NULL);
    }
    for (int q = 0; q < na; ++q) {
        const orca_agent_def *b = &w->ag[agents[q]];
        out[c++] = orca_constraint_agent(vec(b->position.x - p.x, b->position.y - p.y),
                                         a->radius + b->radius, a->velocity, b->velocity,
                                         a->time_horizon, dt, NULL);
    }
    return c;
}

/* For every agent: orca_sim_agent_neighbors equals the brute force, and
 * orca_sim_agent_constraints equals the half-planes built from the brute-force lists. */
typedef struct query_buffers {
    bf_item *tmp;
    int *ea, *es, *ga, *gs;
    orca_halfplane *ep, *gp;
} query_buffers;

static int check_queries_in(orca_sim *s, const world *w, double dt, bf_stats *st,
                            const char *what, const query_buffers *b)
{
    int n = w->n, m = w->m;
    bf_item *tmp = b->tmp;
    int *ea = b->ea, *es = b->es, *ga = b->ga, *gs = b->gs;
    orca_halfplane *ep = b->ep, *gp = b->gp;
    ENSURE(orca_sim_agent_count(s) == n && orca_sim_segment_count(s) == m);
    for (int i = 0; i < n; ++i) {
        orca_agent_id id = orca_sim_agent_at(s, i);
        int na = bf_agents(w, i, tmp, ea, st);
        int ns = bf_segments(w, i, tmp, es, st);
        int gna = -1, gns = -1;
        orca_status rc = orca_sim_agent_neighbors(s, id, ga, n + 1, &gna, gs, m + 1, &gns);
        ENSURE_MSG(rc == ORCA_OK, "%s: neighbors(%d): %s", what, i, orca_sim_last_error(s));
        ENSURE_MSG(gna == na, "%s: agent %d at (%a, %a): %d agent neighbours, brute force %d",
                   what, i, w->ag[i].position.x, w->ag[i].position.y, gna, na);
        for (int k = 0; k < na; ++k) {
            ENSURE_MSG(ga[k] == ea[k], "%s: agent %d neighbour #%d is %d, brute force %d", what, i,
                       k, ga[k], ea[k]);
        }
        ENSURE_MSG(gns == ns, "%s: agent %d at (%a, %a) reach %a: %d segments, brute force %d",
                   what, i, w->ag[i].position.x, w->ag[i].position.y, reach_of(&w->ag[i]), gns,
                   ns);
        for (int k = 0; k < ns; ++k) {
            ENSURE_MSG(gs[k] == es[k], "%s: agent %d segment #%d is %d, brute force %d", what, i, k,
                       gs[k], es[k]);
        }
        int ne = bf_planes(w, i, dt, es, ns, ea, na, ep);
        int gc = -1, gh = -1;
        rc = orca_sim_agent_constraints(s, id, dt, gp, n + m + 1, &gc, &gh);
        ENSURE_MSG(rc == ORCA_OK, "%s: constraints(%d): %s", what, i, orca_sim_last_error(s));
        ENSURE_MSG(gc == ne && gh == ns, "%s: agent %d: %d constraints (%d hard), expected %d (%d)",
                   what, i, gc, gh, ne, ns);
        for (int k = 0; k < ne; ++k) {
            ENSURE_BITS(gp[k].point.x, ep[k].point.x);
            ENSURE_BITS(gp[k].point.y, ep[k].point.y);
            ENSURE_BITS(gp[k].normal.x, ep[k].normal.x);
            ENSURE_BITS(gp[k].normal.y, ep[k].normal.y);
        }
    }
    return 0;
}

static int check_queries(orca_sim *s, const world *w, double dt, bf_stats *st, const char *what)
{
    size_t n = (size_t)w->n, m = (size_t)w->m;
    query_buffers b;
    b.tmp = xmalloc((n + m + 1) * sizeof *b.tmp);
    b.ea = xmalloc((n + 1) * sizeof *b.ea);
    b.es = xmalloc((m + 1) * sizeof *b.es);
    b.ga = xmalloc((n + 1) * sizeof *b.ga);
    b.gs = xmalloc((m + 1) * sizeof *b.gs);
    b.ep = xmalloc((n + m + 1) * sizeof *b.ep);
    b.gp = xmalloc((n + m + 1) * sizeof *b.gp);
    int rc = check_queries_in(s, w, dt, st, what, &b);
    free(b.tmp);
    free(b.ea);
    free(b.es);
    free(b.ga);
    free(b.gs);
    free(b.ep);
    free(b.gp);
    return rc;
}

/* Builds the simulation of a world and checks every agent's queries. */
static int check_world(const world *w, int workers, double dt, bf_stats *st, const char *what)
{
    orca_sim *s = sim_new(workers);
    int rc = world_to_sim(w, s);
    if (rc == 0) {
        rc = check_queries(s, w, dt, st, what);
    }
    orca_sim_destroy(s);
    return rc;
}

/* The same world, and the world plus one agent about 1e6 m away: the bounding box is then far
 * too sparse for the dense grid, so the hashed 3x3 grid is used (grid.c's comment). */
static int check_world_both_grids(const world *w, double dt, bf_stats *st, const char *what,
                                  orca_vec2 far)
{
    int rc = check_world(w, 1, dt, st, what);
    if (rc != 0) {
        return rc;
    }
    world f = world_copy(w);
    /* agent 0's parameters: the grid's cell size (from the largest neighbour distance and
     * radius) stays the same */
    orca_agent_def d = w->n > 0 ? w->ag[0] : orca_agent_def_default();
    d.position = far;
    world_add_agent(&f, d);
    char name[128];
    snprintf(name, sizeof name, "%s + far agent", what);
    rc = check_world(&f, 1, dt, st, name);
    world_free(&f);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Scene generators
 * ------------------------------------------------------------------------------------- */

/* An agent with every parameter varied. */
static orca_agent_def random_agent(test_rng *g, double half_width)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(uni(g, -half_width, half_width), uni(g, -half_width, half_width));
    d.velocity = vec(uni(g, -2, 2), uni(g, -2, 2));
    d.preferred_velocity = vec(uni(g, -2, 2), uni(g, -2, 2));
    d.radius = chance(g, 0.1) ? uni(g, 0.001, 0.05) : uni(g, 0.1, 1.0);
    d.max_speed = chance(g, 0.1) ? 0.0 : uni(g, 0.1, 3.0);
    d.neighbor_dist = chance(g, 0.05) ? 0.0 : uni(g, 0.5, 8.0);
    int mn = irand(g, 10);
    d.max_neighbors = mn == 0 ? 0 : (mn == 1 ? 1 + irand(g, 200) : irand(g, 16));
    d.time_horizon = uni(g, 0.5, 6.0);
    d.obstacle_time_horizon = uni(g, 0.1, 4.0);
    return d;
}

/* A random scene of n agents. */
static void scene_random(world *w, test_rng *g, int n)
{
    double hw = sqrt((double)n) * 1.5;
    for (int i = 0; i < n; ++i) {
        world_add_agent(w, random_agent(g, hw));
    }
}

/* Integer lattice with holes, duplicates (coincident agents), -0.0, negative coordinates and
 * exact parameter values: many bit-identical squared distances, also at the neighbour
 * distance itself (excluded: strictly less) and at the max_neighbors cut. */
static void scene_lattice(world *w, test_rng *g, int side)
{
    static const double nds[] = {0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0};
    for (int iy = 0; iy < side; ++iy) {
        for (int ix = 0; ix < side; ++ix) {
            if (chance(g, 0.25)) {
                continue;
            }
            int copies = chance(g, 0.1) ? 2 : 1;
            for (int c = 0; c < copies; ++c) {
                orca_agent_def d = orca_agent_def_default();
                double x = (double)(ix - side / 2), y = (double)(iy - side / 2);
                if (x == 0 && chance(g, 0.5)) {
                    x = -0.0;
                }
                if (y == 0 && chance(g, 0.5)) {
                    y = -0.0;
                }
                d.position = vec(x, y);
                d.velocity = vec((double)(irand(g, 5) - 2) * 0.5, (double)(irand(g, 5) - 2) * 0.5);
                d.preferred_velocity = vec((double)(irand(g, 3) - 1), (double)(irand(g, 3) - 1));
                d.radius = chance(g, 0.5) ? 0.25 : 0.375;
                d.max_speed = (double)irand(g, 3);
                d.neighbor_dist = nds[irand(g, 7)];
                d.max_neighbors = irand(g, 9);
                d.time_horizon = 2.0;
                d.obstacle_time_horizon = 1.0 + (double)irand(g, 3);
                world_add_agent(w, d);
            }
        }
    }
    /* symmetric rings around a few centres: eight agents at bit-identical squared distances */
    for (int c = 0; c < 4; ++c) {
        double cx = (double)(irand(g, side) - side / 2), cy = (double)(irand(g, side) - side / 2);
        double a = 0.75 + 0.25 * (double)irand(g, 4), b = 0.5 * (double)irand(g, 3);
        double pts[8][2] = {{a, b}, {-a, b}, {a, -b}, {-a, -b}, {b, a}, {-b, a}, {b, -a}, {-b, -a}};
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(cx, cy);
        d.radius = 0.125;
        d.neighbor_dist = 3.0;
        d.max_neighbors = 1 + irand(g, 7);
        world_add_agent(w, d);
        for (int k = 0; k < 8; ++k) {
            d.position = vec(cx + pts[k][0], cy + pts[k][1]);
            d.max_neighbors = irand(g, 4);
            world_add_agent(w, d);
        }
    }
}

/* Agents on the grids' cell borders. The largest neighbor_dist is 3 and the largest radius 1,
 * so cmax = max(3, 2) = 3 and the dense cell is cmax/2 = 1.5 (or cmax/4 = 0.75, or cmax, the
 * finer sizes grid.c may pick) with origin at (min x, min y) = (-9, -6): agents sit at
 * multiples of 1.5 from there (borders for every one of those sizes but cmax, which gets
 * every other one) and at odd multiples of 0.75 (borders of cmax/4). The hashed grid (cell 3,
 * origin 0) has borders at the even multiples of 1.5 from (-9, -6). Some agents sit one ulp
 * beside a border. */
/* The agents of the cell-border scenes: neighbour distance 3 (the cells are 1.5), obstacle
 * horizon 1, max speed 1. */
static orca_agent_def border_agent(double radius, int max_neighbors, double horizon)
{
    orca_agent_def d = orca_agent_def_default();
    d.radius = radius;
    d.neighbor_dist = 3.0;
    d.max_neighbors = max_neighbors;
    d.time_horizon = horizon;
    d.obstacle_time_horizon = 1.0;
    d.max_speed = 1.0;
    return d;
}

static void scene_borders(world *w, test_rng *g, int n)
{
    const double ox = -9.0, oy = -6.0, c = 1.5;
    orca_agent_def d = border_agent(1.0, 12, 3.0);
    d.position = vec(ox, oy);
    world_add_agent(w, d);
    for (int i = 1; i < n; ++i) {
        double x = ox + c * (double)irand(g, 13), y = oy + c * (double)irand(g, 11);
        int k = irand(g, 6);
        if (k == 0 && x > ox) {
            x = nextafter(x, -INFINITY);
        } else if (k == 1) {
            x = nextafter(x, INFINITY);
        } else if (k == 2 && y > oy) {
            y = nextafter(y, -INFINITY);
        } else if (k == 3) {
            x += c * 0.5; /* cell centre column */
        }
        d.position = vec(x == 0 ? (chance(g, 0.5) ? -0.0 : 0.0) : x, y);
        d.velocity = vec(uni(g, -1, 1), uni(g, -1, 1));
        d.radius = chance(g, 0.5) ? 1.0 : 0.5;
        d.neighbor_dist = chance(g, 0.5) ? 3.0 : (chance(g, 0.5) ? 1.5 : 2.25);
        d.max_neighbors = irand(g, 14);
        world_add_agent(w, d);
    }
}

/* A cluster near the coordinate limit with tiny radii and neighbour distances (cells far
 * smaller than the coordinates' ulp-scaled margins), plus agents on the largest accepted
 * coordinate. */
static void scene_far_tiny(world *w, test_rng *g, int n, orca_vec2 base, double r)
{
    for (int i = 0; i < n; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(base.x + r * (double)(irand(g, 40) - 20), base.y + r * (double)(irand(g, 40) - 20));
        d.velocity = vec(uni(g, -1, 1) * r, uni(g, -1, 1) * r);
        d.radius = r * (chance(g, 0.5) ? 0.5 : 0.25);
        d.neighbor_dist = r * (double)(1 + irand(g, 4));
        d.max_neighbors = irand(g, 10);
        d.max_speed = chance(g, 0.5) ? 0.0 : r;
        d.time_horizon = 2.0;
        d.obstacle_time_horizon = 1.0;
        world_add_agent(w, d);
    }
}

/* Random segments: short ones, points (a == b) and long ones crossing many cells. */
static void segments_random(world *w, test_rng *g, int count, double half_width)
{
    for (int k = 0; k < count; ++k) {
        orca_vec2 a = vec(uni(g, -half_width, half_width), uni(g, -half_width, half_width));
        orca_vec2 b;
        int kind = irand(g, 10);
        if (kind == 0) {
            b = a; /* a point obstacle */
        } else if (kind == 1) {
            double len = uni(g, 2, 4) * half_width, ang = uni(g, 0, 6.283185307179586);
            b = vec(a.x + len * cos(ang), a.y + len * sin(ang));
            b.x = b.x > 2e6 ? 2e6 : (b.x < -2e6 ? -2e6 : b.x);
            b.y = b.y > 2e6 ? 2e6 : (b.y < -2e6 ? -2e6 : b.y);
        } else if (kind == 2) {
            b = vec(a.x + uni(g, -40, 40), a.y); /* axis-aligned */
        } else {
            b = vec(a.x + uni(g, -3, 3), a.y + uni(g, -3, 3));
        }
        world_add_segment(w, a, b);
    }
}

/* Agents at integer positions with reach exactly 5 (obstacle_time_horizon 2 * max_speed 2 +
 * radius 1), and segments at exactly the reach distance (included: <=), one ulp beyond it
 * (excluded), and several at the same distance (ties by index). */
static void scene_exact_reach(world *w, test_rng *g, int n)
{
    for (int i = 0; i < n; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec((double)(irand(g, 200) - 100) * 4, (double)(irand(g, 200) - 100) * 4);
        d.radius = 1.0;
        d.max_speed = 2.0;
        d.obstacle_time_horizon = 2.0;
        d.neighbor_dist = 8.0;
        d.max_neighbors = 6;
        world_add_agent(w, d);
        orca_vec2 p = d.position;
        switch (irand(g, 6)) {
        case 0: /* horizontal at y + 5, perpendicular foot inside the segment */
            world_add_segment(w, vec(p.x - 7, p.y + 5), vec(p.x + 7, p.y + 5));
            break;
        case 1: /* two points at (3, 4) and (-4, -3): distance^2 25 each, a tie */
            world_add_segment(w, vec(p.x + 3, p.y + 4), vec(p.x + 3, p.y + 4));
            world_add_segment(w, vec(p.x - 4, p.y - 3), vec(p.x - 4, p.y - 3));
            break;
        case 2: /* a segment whose nearest point is its end, at distance 5 */
            world_add_segment(w, vec(p.x + 9, p.y), vec(p.x + 5, p.y));
            break;
        case 3: /* one ulp beyond the reach: excluded */
            world_add_segment(w, vec(p.x - 7, nextafter(p.y - 5, -INFINITY)),
                              vec(p.x + 7, nextafter(p.y - 5, -INFINITY)));
            break;
        case 4: /* vertical at x - 5, and a copy of it: equal distances, index order */
            world_add_segment(w, vec(p.x - 5, p.y - 1), vec(p.x - 5, p.y + 3));
            world_add_segment(w, vec(p.x - 5, p.y + 3), vec(p.x - 5, p.y - 1));
            break;
        default: /* a diagonal through (3, 4) perpendicular to it: distance 5 (3-4-5) */
            world_add_segment(w, vec(p.x + 3 + 4, p.y + 4 - 3), vec(p.x + 3 - 4, p.y + 4 + 3));
            break;
        }
    }
}

/* ---------------------------------------------------------------------------------------
 * 1. Neighbour selection against brute force
 * ------------------------------------------------------------------------------------- */

static int test_neighbors_random(void)
{
    static const int sizes[] = {2000, 1000, 400, 400, 200, 90, 90, 30, 7, 2, 1};
    bf_stats st;
    memset(&st, 0, sizeof st);
    for (int t = 0; t < 11; ++t) {
        test_rng g = {0x5eed0000u + (unsigned)t};
        world w;
        memset(&w, 0, sizeof w);
        scene_random(&w, &g, sizes[t]);
        char name[64];
        snprintf(name, sizeof name, "random scene %d (%d agents)", t, sizes[t]);
        orca_vec2 far = vec(uni(&g, 0.5e6, 2e6), uni(&g, 0.5e6, 2e6));
        far.x = t % 2 ? -far.x : far.x;
        far.y = t % 3 ? -far.y : far.y;
        ENSURE(check_world_both_grids(&w, 0.25, &st, name, far) == 0);
        world_free(&w);
    }
    ENSURE_MSG(st.agents_listed > 10000, "only %ld neighbours listed", st.agents_listed);
    return 0;
}

static int test_neighbors_ties(void)
{
    bf_stats st;
    memset(&st, 0, sizeof st);
    for (int t = 0; t < 3; ++t) {
        test_rng g = {0x71e5u + (unsigned)t};
        world w;
        memset(&w, 0, sizeof w);
        scene_lattice(&w, &g, t == 0 ? 36 : 12);
        ENSURE(check_world_both_grids(&w, 0.1, &st, "lattice", vec(-1.5e6, 2097151.0)) == 0);
        world_free(&w);
    }
    /* the scenes did exercise the tie rule, including at the max_neighbors cut */
    ENSURE_MSG(st.agent_ties > 1000 && st.agent_cut_ties > 100, "ties %ld, at the cut %ld",
               st.agent_ties, st.agent_cut_ties);
    return 0;
}

static int test_neighbors_cell_borders(void)
{
    bf_stats st;
    memset(&st, 0, sizeof st);
    for (int t = 0; t < 3; ++t) {
        test_rng g = {0xb0de7u + (unsigned)t};
        world w;
        memset(&w, 0, sizeof w);
        scene_borders(&w, &g, t == 0 ? 700 : 60);
        ENSURE(check_world_both_grids(&w, 0.1, &st, "borders", vec(1.25e6, 1.25e6)) == 0);
        world_free(&w);
    }
    ENSURE_MSG(st.agent_ties > 100 && st.agent_cut_ties > 10, "ties %ld, at the cut %ld",
               st.agent_ties, st.agent_cut_ties);
    return 0;
}

/* Pairs across the grid's row and column edges (cells of 1.5 from the corner agent at the
 * origin): agent A a hair (1e-6) inside a cell, agent B straight out from it at just under
 * the neighbour distance (3 - 1e-7), so that B's search ends exactly at A's row or column
 * (its margin is far below the hair). An agent filed one cell off by a rounding slip is
 * then missed. Pairs lie 7 apart, so each agent's list holds its partner. */
static void scene_edges(world *w)
{
    const double ox = -9.0, oy = -6.0, c = 1.5, hair = 1e-6, gap = 3.0 - 1e-7;
    orca_agent_def d = border_agent(0.5, 4, 2.0);
    d.position = vec(ox, oy);
    world_add_agent(w, d);
    for (int k = 1; k <= 12; ++k) {
        for (int side = 0; side < 2; ++side) {
            double edge = (double)(k + 4 * side); /* edges 1..12 and 5..16 cells out */
            double along = 0.25 + 7.0 * (double)(2 * k + side);
            /* row edge oy + edge*c: A just above it with B above A, or just below with B below */
            orca_vec2 a = vec(ox + along, oy + edge * c + (side ? -hair : hair));
            d.position = a;
            world_add_agent(w, d);
            d.position = vec(a.x, a.y + (side ? -gap : gap));
            world_add_agent(w, d);
            /* column edge ox + edge*c: the same across x */
            a = vec(ox + edge * c + (side ? -hair : hair), oy + along);
            d.position = a;
            world_add_agent(w, d);
            d.position = vec(a.x + (side ? -gap : gap), a.y);
            world_add_agent(w, d);
        }
    }
}

static int test_neighbors_far_coordinates(void)
{
    const double lim = nextafter(ORCA_COORD_LIMIT, 0);
    bf_stats st;
    memset(&st, 0, sizeof st);
    struct {
        orca_vec2 base;
        double r;
    } cases[] = {
        {{2097000.0, -2096000.5}, 1e-4},
        {{-2097100.25, 2097100.125}, 1e-6},
        {{-0.0, 1.5e6}, 4e-9}, /* radii 1e-9 and 2e-9, near ORCA_RADIUS_MIN */
        {{lim - 1e-3, -lim + 1e-3}, 1e-5},
    };
    for (int t = 0; t < 4; ++t) {
        test_rng g = {0xfa7u + (unsigned)t};
        world w;
        memset(&w, 0, sizeof w);
        scene_far_tiny(&w, &g, 300, cases[t].base, cases[t].r);
        /* agents on the largest accepted coordinates */
        orca_agent_def d = w.ag[0];
        d.position = vec(lim, -lim);
        world_add_agent(&w, d);
        d.position = vec(-lim, lim);
        world_add_agent(&w, d);
        ENSURE(check_world(&w, 1, 0.1, &st, "far cluster") == 0);
        /* hashed grid: the same cluster without the extreme agents but with one far away */
        world h;
        memset(&h, 0, sizeof h);
        for (int i = 0; i < w.n - 2; ++i) {
            world_add_agent(&h, w.ag[i]);
        }
        ENSURE(check_world_both_grids(&h, 0.1, &st, "far cluster (no extremes)",
                                      vec(-cases[t].base.x * 0.5, -cases[t].base.y * 0.5)) == 0);
        world_free(&w);
        world_free(&h);
    }
    ENSURE(st.agents_listed > 1000);
    return 0;
}

/* Extreme but valid parameters, at the edges of the accepted ranges: the largest neighbour
 * distance (the whole scene is one cell), max_neighbors at its limit, the smallest and the
 * largest radius, the largest reach (horizon 2^30 times speed 2^30: every segment is within
 * reach), zero neighbour distance. */
static int test_neighbors_extreme_parameters(void)
{
    test_rng g = {0xe87eu};
    world w;
    memset(&w, 0, sizeof w);
    scene_random(&w, &g, 300);
    segments_random(&w, &g, 60, 20);
    w.ag[0].neighbor_dist = ORCA_NEIGHBOR_DIST_MAX;
    w.ag[0].max_neighbors = ORCA_MAX_NEIGHBORS_LIMIT;
    w.ag[1].neighbor_dist = ORCA_NEIGHBOR_DIST_MAX;
    w.ag[1].max_neighbors = 17;
    w.ag[2].radius = ORCA_RADIUS_MIN;
    w.ag[3].radius = 1e-9;
    w.ag[4].max_speed = ORCA_SPEED_MAX;
    w.ag[4].obstacle_time_horizon = ORCA_TIME_MAX; /* reach 2^60 */
    w.ag[5].neighbor_dist = 0.0;
    w.ag[5].max_neighbors = ORCA_MAX_NEIGHBORS_LIMIT;
    w.ag[6].radius = ORCA_RADIUS_MAX;
    w.ag[7].position = w.ag[8].position; /* coincident */
    bf_stats st;
    memset(&st, 0, sizeof st);
    ENSURE(check_world_both_grids(&w, 0.1, &st, "extreme parameters", vec(-2e6, -2e6)) == 0);
    world_free(&w);
    return 0;
}

/* Distances whose squares are subnormal: Dot(d, d) then rounds by up to half the smallest
 * subnormal, a large fraction of itself, so sqrt(d2) is no longer the distance to within a
 * margin relative to the coordinates. The rule still reads only d2: with max_neighbors 1,
 * two candidates whose d2 round to the same smallest subnormal tie, and the smaller index
 * wins. (Radii are at least 2^-30, so the grid's cells are far wider than these distances.) */
static int test_neighbors_subnormal_tie(void)
{
    world w;
    memset(&w, 0, sizeof w);
    orca_agent_def d = orca_agent_def_default();
    d.radius = ORCA_RADIUS_MIN;
    d.neighbor_dist = 1e-161; /* neighbor_dist^2 = 1e-322, a subnormal */
    d.max_neighbors = 1;
    d.position = vec(0, 2.65e-162); /* index 0: C, straight above S */
    world_add_agent(&w, d);
    d.position = vec(0, 0); /* index 1: S */
    world_add_agent(&w, d);
    d.position = vec(2.2e-162, 0); /* index 2: B, beside S */
    world_add_agent(&w, d);
    d.position = vec(0, 2.4e-162 - 1e-161); /* index 3: D, farther below S */
    world_add_agent(&w, d);
    /* both squares round to the smallest subnormal: a tie, so C (index 0) is S's neighbour */
    ENSURE(2.65e-162 * 2.65e-162 == 4.9406564584124654e-324);
    ENSURE(2.2e-162 * 2.2e-162 == 4.9406564584124654e-324);
    int rc = check_world(&w, 1, 0.1, NULL, "subnormal tie (minimal)");
    world_free(&w);
    ENSURE(rc == 0);
    return 0;
}

static int test_segments_subnormal_reach(void)
{
    world w;
    memset(&w, 0, sizeof w);
    orca_agent_def d = orca_agent_def_default();
    d.radius = ORCA_RADIUS_MIN;
    d.neighbor_dist = 1e-161;
    d.max_neighbors = 1;
    /* the same for obstacles: point obstacles 1e-163 and 1e-300 away both have
     * SegDist2 0 (within the reach 2^-30 of radius and zero speed): a tie, listed
     * by index */
    memset(&w, 0, sizeof w);
    d.position = vec(0, 0);
    d.max_speed = 0;
    world_add_agent(&w, d);
    world_add_segment(&w, vec(1e-163, 0), vec(1e-163, 0));
    world_add_segment(&w, vec(-1e-300, 0), vec(-1e-300, 0));
    ENSURE(1e-163 * 1e-163 == 0);
    int rc = check_world(&w, 1, 0.1, NULL, "subnormal reach (minimal)");
    world_free(&w);
    ENSURE(rc == 0);
    return 0;
}

/* Random scenes at the scale of test_neighbors_subnormal_tie. */
static int test_neighbors_subnormal_random(void)
{
    world w;
    for (int t = 0; t < 4; ++t) {
        test_rng g = {0x5b0u + (unsigned)t};
        memset(&w, 0, sizeof w);
        for (int i = 0; i < 200; ++i) {
            orca_agent_def a = orca_agent_def_default();
            a.position = vec(uni(&g, -1, 1) * 4e-161, uni(&g, -1, 1) * 4e-161);
            a.radius = ORCA_RADIUS_MIN;
            a.neighbor_dist = uni(&g, 1, 3) * 1e-161;
            a.max_neighbors = 1 + irand(&g, 4);
            world_add_agent(&w, a);
        }
        int rc = check_world_both_grids(&w, 0.1, NULL, "subnormal distances", vec(1e6, 1e6));
        world_free(&w);
        ENSURE(rc == 0);
    }
    return 0;
}

/* Output capacities smaller than the lists: the full counts are reported, the first
 * `capacity` entries are written and nothing beyond them. */
static int test_query_capacities(void)
{
    test_rng g = {0xca9u};
    world w;
    memset(&w, 0, sizeof w);
    scene_random(&w, &g, 200);
    segments_random(&w, &g, 200, 20);
    orca_sim *s = sim_new(1);
    ENSURE(world_to_sim(&w, s) == 0);
    bf_item *tmp = xmalloc((size_t)(w.n + w.m) * sizeof *tmp);
    int *ea = xmalloc((size_t)w.n * sizeof *ea), *es = xmalloc((size_t)w.m * sizeof *es);
    orca_halfplane *ep = xmalloc((size_t)(w.n + w.m) * sizeof *ep);
    int checked = 0;
    for (int i = 0; i < w.n; ++i) {
        int na = bf_agents(&w, i, tmp, ea, NULL), ns = bf_segments(&w, i, tmp, es, NULL);
        int ne = bf_planes(&w, i, 0.1, es, ns, ea, na, ep);
        int ca = na / 2, cs = ns / 2, cp = ne / 2;
        int ga[8], gs[8];
        orca_halfplane gp[8];
        if (ca > 6 || cs > 6 || cp > 6) {
            continue;
        }
        for (int k = 0; k < 8; ++k) {
            ga[k] = gs[k] = -7;
            gp[k].point = gp[k].normal = vec(-7, -7);
        }
        int gna = -1, gns = -1, gc = -1, gh = -1;
        orca_agent_id id = orca_sim_agent_at(s, i);
        ENSURE(orca_sim_agent_neighbors(s, id, ga, ca, &gna, gs, cs, &gns) == ORCA_OK);
        ENSURE(gna == na && gns == ns);
        for (int k = 0; k < 8; ++k) {
            ENSURE(k < ca ? ga[k] == ea[k] : ga[k] == -7);
            ENSURE(k < cs ? gs[k] == es[k] : gs[k] == -7);
        }
        ENSURE(orca_sim_agent_constraints(s, id, 0.1, gp, cp, &gc, &gh) == ORCA_OK);
        ENSURE(gc == ne && gh == ns);
        for (int k = 0; k < 8; ++k) {
            if (k < cp) {
                ENSURE(same_vec(gp[k].point, ep[k].point) && same_vec(gp[k].normal, ep[k].normal));
            } else {
                ENSURE(gp[k].point.x == -7 && gp[k].normal.y == -7);
            }
        }
        /* counts may be NULL */
        ENSURE(orca_sim_agent_neighbors(s, id, ga, ca, NULL, gs, cs, NULL) == ORCA_OK);
        ENSURE(orca_sim_agent_constraints(s, id, 0.1, gp, cp, NULL, NULL) == ORCA_OK);
        checked += na > 1 || ns > 1;
    }
    ENSURE(checked > 20);
    free(tmp);
    free(ea);
    free(es);
    free(ep);
    orca_sim_destroy(s);
    world_free(&w);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * 1b. Obstacle selection against brute force
 * ------------------------------------------------------------------------------------- */

static int test_segments_random_maps(void)
{
    bf_stats st;
    memset(&st, 0, sizeof st);
    for (int t = 0; t < 4; ++t) {
        test_rng g = {0x5e6u + (unsigned)t};
        world w;
        memset(&w, 0, sizeof w);
        int n = t == 0 ? 500 : 120;
        scene_random(&w, &g, n);
        /* thousands of segments in scene 0 */
        segments_random(&w, &g, t == 0 ? 3000 : 150, sqrt((double)n) * 2.5);
        if (t == 2) {
            /* one agent with a large reach: a large segment cell */
            w.ag[3].max_speed = 40;
            w.ag[3].obstacle_time_horizon = 3;
        }
        if (t == 3) {
            /* segments across the whole coordinate range passing near agents (0 .. 1.2 reach
             * off their centres): cells of extent/4096, thousands of cells per segment */
            for (int q = 0; q < 20; ++q) {
                const orca_agent_def *a = &w.ag[irand(&g, w.n)];
                double ang = uni(&g, 0, 6.283185307179586);
                orca_vec2 dir = vec(cos(ang), sin(ang));
                double off = uni(&g, 0, 1.2) * reach_of(a);
                orca_vec2 c = vec(a->position.x - dir.y * off, a->position.y + dir.x * off);
                double tx = 2.0e6 / (fabs(dir.x) > 1e-3 ? fabs(dir.x) : 1e-3);
                double ty = 2.0e6 / (fabs(dir.y) > 1e-3 ? fabs(dir.y) : 1e-3);
                double len = (tx < ty ? tx : ty) * 0.9;
                world_add_segment(&w, vec(c.x - dir.x * len, c.y - dir.y * len),
                                  vec(c.x + dir.x * len, c.y + dir.y * len));
            }
        }
        ENSURE(check_world_both_grids(&w, 0.2, &st, "segment map", vec(1e6, 1e6)) == 0);
        world_free(&w);
    }
    ENSURE(st.segments_listed > 1000);
    return 0;
}

static int test_segments_exact_reach(void)
{
    bf_stats st;
    memset(&st, 0, sizeof st);
    test_rng g = {0xeac7u};
    world w;
    memset(&w, 0, sizeof w);
    scene_exact_reach(&w, &g, 400);
    ENSURE(check_world_both_grids(&w, 0.1, &st, "exact reach", vec(-1e6, 5e5)) == 0);
    ENSURE_MSG(st.at_reach > 200 && st.segment_ties > 50, "at reach %ld, ties %ld", st.at_reach,
               st.segment_ties);
    world_free(&w);
    return 0;
}

/* Regression: tiny reach (radius 1e-6, zero max speed) at coordinates ~2e6. A segment cell of
 * the reach would put the cell coordinates beyond the grid's clamp, and segments registered
 * in clamped cells were lost. */
static int test_segments_far_tiny_reach(void)
{
    bf_stats st;
    memset(&st, 0, sizeof st);
    /* x and y of similar value keep the segments' coordinate range small (a wide range would
     * widen the cells by itself) */
    static const orca_vec2 bases[] = {{1.9e6, 1.9e6},      {-2097151.5, -2097151.0},
                                      {1.5e6, 1.5e6 + 1},  {1.9e6, -2.0e6},
                                      {-2097151.5, 2097151.5}};
    for (int t = 0; t < 5; ++t) {
        test_rng g = {0xc1a4u + (unsigned)t};
        world w;
        memset(&w, 0, sizeof w);
        const double r = 1e-6;
        for (int i = 0; i < 100; ++i) {
            orca_agent_def d = orca_agent_def_default();
            d.position = vec(bases[t].x + uni(&g, -1e-3, 1e-3), bases[t].y + uni(&g, -1e-3, 1e-3));
            d.radius = r;
            d.max_speed = 0.0;
            d.neighbor_dist = 4 * r;
            d.max_neighbors = 3;
            world_add_agent(&w, d);
            /* segments at 0 .. 2 r from the agent, some crossing it */
            orca_vec2 p = d.position;
            double off = uni(&g, 0, 2 * r);
            world_add_segment(&w, vec(p.x - 3 * r, p.y + off), vec(p.x + 3 * r, p.y + off));
            world_add_segment(&w, vec(p.x + off, p.y), vec(p.x + off, p.y));
        }
        ENSURE(check_world(&w, 1, 0.1, &st, "far tiny reach") == 0);
        world_free(&w);
    }
    ENSURE_MSG(st.segments_listed > 200, "only %ld segments listed", st.segments_listed);
    return 0;
}

/* The segment grid is cached while the reach stays within a factor: changing agents' reach
 * between queries (orca_agent_set) must not change the answer. */
static int test_segments_reach_changes(void)
{
    test_rng g = {0x4eacu};
    world w;
    memset(&w, 0, sizeof w);
    scene_random(&w, &g, 150);
    segments_random(&w, &g, 400, 30);
    orca_sim *s = sim_new(2);
    ENSURE(world_to_sim(&w, s) == 0);
    static const double factors[] = {1.0, 1.5, 3.0, 0.3, 0.2, 10.0, 0.01, 1.9};
    for (int f = 0; f < 8; ++f) {
        for (int i = 0; i < w.n; ++i) {
            if (chance(&g, 0.5)) {
                w.ag[i].max_speed *= factors[f];
                w.ag[i].obstacle_time_horizon *= factors[(f + 3) % 8];
                ENSURE(orca_agent_set(s, orca_sim_agent_at(s, i), &w.ag[i]) == ORCA_OK);
            }
        }
        ENSURE(check_queries(s, &w, 0.1, NULL, "reach changes") == 0);
    }
    orca_sim_destroy(s);
    world_free(&w);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * 2. The step against a reference step
 * ------------------------------------------------------------------------------------- */

/* The step (algorithm.md §12): (1) every new velocity from the start-of-step state: the
 * brute-force lists, their half-planes, orca_solve(planes, count, hard, max_speed,
 * preferred); (2) each velocity becomes v_new and each position p + v_new * dt, per
 * component. Returns the number of agents that needed the fallback. */
/* Standing agents (max speed 0) seen by ref_step: results the rule replaced (the text's
 * program gave a non-zero velocity) and results kept with a negative zero in them. */
static int ref_standing_replaced, ref_standing_negative_zero;

static int ref_step(world *w, double dt)
{
    int n = w->n, m = w->m;
    bf_item *tmp = xmalloc((size_t)(n + m + 1) * sizeof *tmp);
    int *ea = xmalloc((size_t)(n + 1) * sizeof *ea), *es = xmalloc((size_t)(m + 1) * sizeof *es);
    orca_halfplane *planes = xmalloc((size_t)(n + m + 1) * sizeof *planes);
    orca_halfplane *scratch = xmalloc((size_t)(n + m + 1) * sizeof *scratch);
    orca_vec2 *nv = xmalloc((size_t)(n + 1) * sizeof *nv);
    int fallbacks = 0;
    for (int i = 0; i < n; ++i) {
        int na = bf_agents(w, i, tmp, ea, NULL);
        int ns = bf_segments(w, i, tmp, es, NULL);
        int c = bf_planes(w, i, dt, es, ns, ea, na, planes);
        orca_solve_result res;
        if (orca_solve(planes, c, ns, w->ag[i].max_speed, w->ag[i].preferred_velocity, scratch,
                       &res) != ORCA_OK) {
            fprintf(stderr, "orca_solve refused agent %d\n", i);
            exit(2);
        }
        nv[i] = res.velocity;
        if (w->ag[i].max_speed == 0) {
            /* stands still: a non-zero result becomes (+0, +0), a zero of either sign stays,
             * and no fallback is counted (algorithm.md §11.3, choice 16) */
            if (nv[i].x != 0 || nv[i].y != 0) {
                nv[i].x = 0;
                nv[i].y = 0;
                ++ref_standing_replaced;
            } else if (signbit(nv[i].x) || signbit(nv[i].y)) {
                ++ref_standing_negative_zero;
            }
            continue;
        }
        fallbacks += res.fallback;
    }
    for (int i = 0; i < n; ++i) {
        w->ag[i].velocity = nv[i];
        w->ag[i].position.x = w->ag[i].position.x + w->ag[i].velocity.x * dt;
        w->ag[i].position.y = w->ag[i].position.y + w->ag[i].velocity.y * dt;
    }
    free(tmp);
    free(ea);
    free(es);
    free(planes);
    free(scratch);
    free(nv);
    return fallbacks;
}

/* Goals for a walled scene: each agent heads for a point across the box. */
typedef struct goals {
    orca_vec2 *at;
    double *speed;
} goals;

static orca_vec2 goal_velocity(orca_vec2 p, orca_vec2 goal, double speed, double dt)
{
    double dx = goal.x - p.x, dy = goal.y - p.y;
    double d = sqrt(dx * dx + dy * dy);
    if (d > speed * dt) {
        return vec(dx / d * speed, dy / d * speed);
    }
    return vec(dx / dt, dy / dt);
}

/* A box of half-width hw with walls (a closed polygon), interior wall pieces, a few point
 * obstacles, and n agents (some overlapping at the start) with goals across the box. */
static void scene_walled(world *w, goals *gl, test_rng *g, int n, double hw)
{
    orca_vec2 box[4] = {{-hw, -hw}, {hw, -hw}, {hw, hw}, {-hw, hw}};
    for (int k = 0; k < 4; ++k) {
        world_add_segment(w, box[k], box[(k + 1) % 4]);
    }
    for (int k = 0; k < 12; ++k) {
        orca_vec2 a = vec(uni(g, -hw, hw) * 0.8, uni(g, -hw, hw) * 0.8);
        double len = uni(g, 0, 0.3 * hw), ang = uni(g, 0, 6.283185307179586);
        world_add_segment(w, a, vec(a.x + len * cos(ang), a.y + len * sin(ang)));
    }
    gl->at = xmalloc((size_t)n * sizeof *gl->at);
    gl->speed = xmalloc((size_t)n * sizeof *gl->speed);
    for (int i = 0; i < n; ++i) {
        orca_agent_def d = random_agent(g, hw * 0.95);
        d.radius = uni(g, 0.2, 0.5);
        d.max_speed = uni(g, 0.5, 2.0);
        d.neighbor_dist = uni(g, 2, 6);
        d.max_neighbors = 1 + irand(g, 12);
        d.obstacle_time_horizon = uni(g, 0.5, 3);
        d.time_horizon = uni(g, 1, 4);
        world_add_agent(w, d);
        gl->at[i] = vec(-d.position.x + uni(g, -1, 1), -d.position.y + uni(g, -1, 1));
        gl->speed[i] = d.max_speed * uni(g, 0.8, 1.2);
    }
}

/* Sets every agent's preferred velocity toward its goal (plus a tiny perturbation), in the
 * world and in the simulation. */
static int set_preferred(orca_sim *s, world *w, const goals *gl, test_rng *g, double dt)
{
    for (int i = 0; i < w->n; ++i) {
        orca_vec2 v = goal_velocity(w->ag[i].position, gl->at[i], gl->speed[i], dt);
        v.x += uni(g, -1e-3, 1e-3);
        w->ag[i].preferred_velocity = v;
        ENSURE(orca_agent_set_preferred_velocity(s, orca_sim_agent_at(s, i), v) == ORCA_OK);
    }
    return 0;
}

/* The documented hash (sim.h, docs/determinism.md), written here: FNV-1a 64 over values, each
 * value's 8 bytes most significant first; doubles as their bit patterns (NaN as
 * 0x7ff8000000000000); integers as 64-bit. */
typedef struct fnv {
    uint64_t h;
} fnv;

static void fnv_u64(fnv *f, uint64_t v)
{
    for (int k = 7; k >= 0; --k) {
        f->h ^= (uint64_t)(unsigned char)(v >> (8 * k));
        f->h *= 0x100000001b3ull;
    }
}

static void fnv_f64(fnv *f, double x)
{
    uint64_t v;
    memcpy(&v, &x, sizeof v);
    if (x != x) {
        v = 0x7ff8000000000000ull;
    }
    fnv_u64(f, v);
}

static uint64_t doc_hash(const world *w)
{
    fnv f = {0xcbf29ce484222325ull};
    fnv_u64(&f, (uint64_t)w->n);
    for (int i = 0; i < w->n; ++i) {
        const orca_agent_def *a = &w->ag[i];
        fnv_f64(&f, a->position.x);
        fnv_f64(&f, a->position.y);
        fnv_f64(&f, a->velocity.x);
        fnv_f64(&f, a->velocity.y);
        fnv_f64(&f, a->preferred_velocity.x);
        fnv_f64(&f, a->preferred_velocity.y);
        fnv_f64(&f, a->radius);
        fnv_f64(&f, a->max_speed);
        fnv_f64(&f, a->neighbor_dist);
        fnv_u64(&f, (uint64_t)(int64_t)a->max_neighbors);
        fnv_f64(&f, a->time_horizon);
        fnv_f64(&f, a->obstacle_time_horizon);
    }
    fnv_u64(&f, (uint64_t)w->m);
    for (int k = 0; k < w->m; ++k) {
        fnv_f64(&f, w->sa[k].x);
        fnv_f64(&f, w->sa[k].y);
        fnv_f64(&f, w->sb[k].x);
        fnv_f64(&f, w->sb[k].y);
    }
    return f.h;
}

/* Deepest overlaps by brute force, from sim.h's definition: pairs (rA + rB - distance) /
 * min(rA, rB) when distance < rA + rB; agent-segment (r - distance) / r when the segment is
 * within r; 0 when nothing overlaps. */
static void bf_overlap(const world *w, double *agents, double *walls)
{
    double deepest = 0, wall = 0;
    for (int i = 0; i < w->n; ++i) {
        const orca_agent_def *a = &w->ag[i];
        for (int j = i + 1; j < w->n; ++j) {
            const orca_agent_def *b = &w->ag[j];
            double dx = b->position.x - a->position.x, dy = b->position.y - a->position.y;
            double d2 = dx * dx + dy * dy, rr = a->radius + b->radius;
            if (d2 < rr * rr) {
                double rmin = a->radius < b->radius ? a->radius : b->radius;
                double o = (rr - sqrt(d2)) / rmin;
                deepest = o > deepest ? o : deepest;
            }
        }
        for (int k = 0; k < w->m; ++k) {
            orca_vec2 p = a->position;
            double d2 = orca_segment_distance_squared(vec(w->sa[k].x - p.x, w->sa[k].y - p.y),
                                                      vec(w->sb[k].x - p.x, w->sb[k].y - p.y));
            if (d2 <= a->radius * a->radius) {
                double o = (a->radius - sqrt(d2)) / a->radius;
                wall = o > wall ? o : wall;
            }
        }
    }
    *agents = deepest;
    *walls = wall;
}

/* Steps the simulation of w and the reference side by side, comparing every agent bit for bit
 * after each step (and the fallback count, the hash, and now and then the overlap measure).
 * With goals, preferred velocities are set toward them before each step; without, they stay. */
static int reference_run(world *w, const goals *gl, int steps, double dt, int workers,
                         const char *what, int *fallbacks, int *overlaps)
{
    test_rng g = {0xabcdu};
    orca_sim *s = sim_new(workers);
    ENSURE(world_to_sim(w, s) == 0);
    for (int step = 0; step < steps; ++step) {
        if (gl) {
            ENSURE(set_preferred(s, w, gl, &g, dt) == 0);
        }
        if (step % 10 == 0) {
            double ga, gw, ea, ew;
            ENSURE(orca_sim_measure_overlap(s, &ga, &gw) == ORCA_OK);
            bf_overlap(w, &ea, &ew);
            ENSURE_BITS(ga, ea);
            ENSURE_BITS(gw, ew);
            *overlaps += ea > 0;
        }
        int fb = ref_step(w, dt);
        *fallbacks += fb;
        /* the vector kernels (where the CPU has them) and the scalar code, step by step */
        orca_sim_set_vector_kernels(s, step % 2);
        orca_status st = orca_sim_step(s, dt);
        ENSURE_MSG(st == ORCA_OK, "%s step %d: %s", what, step, orca_sim_last_error(s));
        ENSURE(sim_matches_world(s, w, what, step) == 0);
        ENSURE_MSG(orca_sim_last_fallback_count(s) == fb, "%s step %d: %d fallbacks, reference %d",
                   what, step, orca_sim_last_fallback_count(s), fb);
        ENSURE(orca_sim_step_count(s) == (uint64_t)step + 1);
        ENSURE(orca_sim_hash(s) == doc_hash(w));
    }
    orca_sim_destroy(s);
    return 0;
}

/* scene_edges: the queries against brute force on both grids, and a few steps against the
 * reference step. */
static int test_neighbors_cell_edges(void)
{
    bf_stats st;
    memset(&st, 0, sizeof st);
    world w;
    memset(&w, 0, sizeof w);
    scene_edges(&w);
    ENSURE(check_world_both_grids(&w, 0.1, &st, "cell edges", vec(1.25e6, 1.25e6)) == 0);
    int fallbacks = 0, overlaps = 0;
    ENSURE(reference_run(&w, NULL, 5, 0.1, 1, "cell edges", &fallbacks, &overlaps) == 0);
    world_free(&w);
    ENSURE(st.agents_listed >= 96);
    return 0;
}

static int test_step_matches_reference(void)
{
    int fallbacks = 0, overlaps = 0;
    for (int t = 0; t < 3; ++t) {
        test_rng g = {0x57e9u + (unsigned)t};
        world w;
        memset(&w, 0, sizeof w);
        goals gl;
        int n = t == 0 ? 300 : (t == 1 ? 60 : 150);
        scene_walled(&w, &gl, &g, n, t == 0 ? 18 : (t == 1 ? 7 : 12));
        if (t == 2) {
            /* one agent far away: the hashed grid */
            orca_agent_def d = w.ag[0];
            d.position = vec(-1.5e6, 1e6);
            world_add_agent(&w, d);
            gl.at = realloc(gl.at, (size_t)w.n * sizeof *gl.at);
            gl.speed = realloc(gl.speed, (size_t)w.n * sizeof *gl.speed);
            ENSURE(gl.at && gl.speed);
            gl.at[w.n - 1] = vec(-1.5e6 + 30, 1e6);
            gl.speed[w.n - 1] = 1;
        }
        const double dt = t == 1 ? 0.25 : 0.1;
        ENSURE(reference_run(&w, &gl, t == 1 ? 120 : 50, dt, 1 + t, "walled scene", &fallbacks,
                             &overlaps) == 0);
        world_free(&w);
        free(gl.at);
        free(gl.speed);
    }
    /* the scenes did reach the fallback and overlapping states */
    ENSURE_MSG(fallbacks > 0 && overlaps > 0, "fallbacks %d, overlaps %d", fallbacks, overlaps);
    return 0;
}

/* The step with exact ties, coincident agents, -0.0, cell borders, segments at exactly the
 * reach, and far coordinates with tiny radii: preferred velocities stay as generated. */
static int test_step_matches_reference_special(void)
{
    int fallbacks = 0, overlaps = 0;
    world w;
    test_rng g = {0x5ec1u};
    memset(&w, 0, sizeof w);
    scene_lattice(&w, &g, 14);
    ENSURE(reference_run(&w, NULL, 25, 0.125, 2, "lattice", &fallbacks, &overlaps) == 0);
    world_free(&w);
    memset(&w, 0, sizeof w);
    scene_borders(&w, &g, 150);
    ENSURE(reference_run(&w, NULL, 25, 0.1, 3, "borders", &fallbacks, &overlaps) == 0);
    world_free(&w);
    memset(&w, 0, sizeof w);
    scene_exact_reach(&w, &g, 150);
    for (int i = 0; i < w.n; ++i) {
        w.ag[i].preferred_velocity = vec(uni(&g, -2, 2), uni(&g, -2, 2));
    }
    ENSURE(reference_run(&w, NULL, 20, 0.1, 1, "exact reach", &fallbacks, &overlaps) == 0);
    world_free(&w);
    memset(&w, 0, sizeof w);
    scene_far_tiny(&w, &g, 150, vec(-2097000.5, 2096999.25), 1e-4);
    for (int i = 0; i < w.n; ++i) {
        w.ag[i].preferred_velocity = vec(uni(&g, -1e-4, 1e-4), uni(&g, -1e-4, 1e-4));
    }
    ENSURE(reference_run(&w, NULL, 20, 0.5, 2, "far tiny", &fallbacks, &overlaps) == 0);
    world_free(&w);
    memset(&w, 0, sizeof w);
    scene_random(&w, &g, 200);
    segments_random(&w, &g, 100, 20);
    w.ag[0].neighbor_dist = ORCA_NEIGHBOR_DIST_MAX;
    w.ag[0].max_neighbors = ORCA_MAX_NEIGHBORS_LIMIT;
    w.ag[1].max_speed = ORCA_SPEED_MAX;
    w.ag[1].obstacle_time_horizon = ORCA_TIME_MAX;
    w.ag[2].radius = ORCA_RADIUS_MIN;
    ENSURE(reference_run(&w, NULL, 10, 0.1, 4, "extreme parameters", &fallbacks, &overlaps) == 0);
    world_free(&w);
    ENSURE_MSG(fallbacks > 0 && overlaps > 0, "fallbacks %d, overlaps %d", fallbacks, overlaps);
    return 0;
}

/* Agents with max speed 0 (pillars) among walkers, with preferred velocities of every sign:
 * the text's program gives them zeros of either sign, which the step keeps (choice 16), so the
 * library has the bits of a port of algorithm.md that has no rule for max speed 0 (the
 * reference replaced no result) and its documented hash. */
static int test_standing_agents_as_text(void)
{
    int fallbacks = 0, overlaps = 0;
    test_rng g = {0x5a0du};
    world w;
    memset(&w, 0, sizeof w);
    goals gl;
    scene_walled(&w, &gl, &g, 120, 8);
    for (int i = 0; i < w.n; i += 3) {
        w.ag[i].max_speed = 0; /* its goal still gives it a preferred velocity */
    }
    ref_standing_replaced = ref_standing_negative_zero = 0;
    ENSURE(reference_run(&w, &gl, 60, 0.25, 2, "standing agents", &fallbacks, &overlaps) == 0);
    world_free(&w);
    free(gl.at);
    free(gl.speed);
    ENSURE_MSG(ref_standing_replaced == 0 && ref_standing_negative_zero > 100,
               "replaced %d, negative zeros %d", ref_standing_replaced,
               ref_standing_negative_zero);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * 2b. Agents that reach far beyond the others
 * ------------------------------------------------------------------------------------- */

/* The agent's parameters with another neighbour distance and list length. */
static orca_agent_def reaching(orca_agent_def d, double nd, int max_nb)
{
    d.neighbor_dist = nd;
    d.max_neighbors = max_nb;
    return d;
}

/* Scenes with a few agents whose neighbour distance reaches far beyond the others' (up to
 * 2^23): the grid's cells are sized for the others (docs/determinism.md, "The grid only
 * chooses what is looked at"), so their searches cover many rows or cells. kind 0: one far
 * agent in a random scene (neighbour distances up to 8); 1: a few, of several reaches and
 * list lengths; 2: far agents with max_neighbors 0 and 1; 3: far agents at the corners of the
 * agents' box; 4: reaches of a few dozen rows with long lists; 5: clusters far apart (the
 * hashed grid) with far agents; 6: a dense crowd with 2 m neighbour distances and agents
 * reaching 12 m and 25 m (many rows; on the hashed grid a block of more than 16 cells, and
 * one of more cells than an eighth of the agents); 7: neighbour distances at the edges of
 * their range (0, -0, subnormal, the smallest normal, around the binades' ends, just below
 * and at 2^23) among the others; 8: most agents at 0, -0 and subnormal neighbour distances
 * (the cells then sized by the largest diameter) and a few reaching far. */
static void scene_far_reaching(world *w, test_rng *g, int kind)
{
    static const double edges[] = {0.0, -0.0, 4.9406564584124654e-324, 2.2250738585072014e-308,
                                   0x1p-41, 0x1p-40, 0x1.fffffffffffffp-41, 1e-9, 0.5,
                                   0x1.fffffffffffffp+22, ORCA_NEIGHBOR_DIST_MAX};
    if (kind >= 7) {
        scene_random(w, g, 600);
        for (int i = 0; i < w->n; ++i) {
            if (kind == 7 ? i % 50 == 0 : i % 100 != 0) {
                w->ag[i].neighbor_dist = edges[(i / (kind == 7 ? 50 : 1)) % 11];
                w->ag[i].max_neighbors = kind == 7 ? 1 + irand(g, 30) : w->ag[i].max_neighbors;
            }
        }
        return;
    }
    if (kind <= 4) {
        scene_random(w, g, 600);
        int n = w->n;
        orca_agent_def *a = w->ag;
        if (kind == 0) {
            a[n / 2] = reaching(a[n / 2], ORCA_NEIGHBOR_DIST_MAX, 10);
        } else if (kind == 1) {
            a[5] = reaching(a[5], 1048576.0, 5);
            a[77] = reaching(a[77], ORCA_NEIGHBOR_DIST_MAX, ORCA_MAX_NEIGHBORS_LIMIT);
            a[300] = reaching(a[300], 1e5, 1);
            a[401] = reaching(a[401], 300, 40);
            a[402] = reaching(a[402], 30, 200);
        } else if (kind == 2) {
            a[10] = reaching(a[10], ORCA_NEIGHBOR_DIST_MAX, 0);
            a[11] = reaching(a[11], ORCA_NEIGHBOR_DIST_MAX, 1);
            a[12] = reaching(a[12], 4194304.0, 0);
        } else if (kind == 3) {
            orca_vec2 lo = a[0].position, hi = a[0].position;
            for (int i = 1; i < n; ++i) {
                lo = vec(fmin(lo.x, a[i].position.x), fmin(lo.y, a[i].position.y));
                hi = vec(fmax(hi.x, a[i].position.x), fmax(hi.y, a[i].position.y));
            }
            orca_agent_def d = reaching(a[3], ORCA_NEIGHBOR_DIST_MAX, 10);
            d.position = lo;
            world_add_agent(w, d);
            d = reaching(a[4], 50, 30);
            d.position = vec(hi.x, lo.y);
            world_add_agent(w, d);
            d = reaching(a[5], ORCA_NEIGHBOR_DIST_MAX, ORCA_MAX_NEIGHBORS_LIMIT);
            d.position = hi;
            world_add_agent(w, d);
            d = reaching(a[6], 2097152.0, 3);
            d.position = vec(lo.x, hi.y);
            world_add_agent(w, d);
        } else {
            for (int i = 0; i < n; i += 97) {
                a[i] = reaching(a[i], uni(g, 20, 60), 100 + irand(g, 200));
            }
        }
        return;
    }
    if (kind == 5) {
        for (int c = 0; c < 10; ++c) {
            orca_vec2 at = vec(uni(g, -1.8e6, 1.8e6), uni(g, -1.8e6, 1.8e6));
            for (int i = 0; i < 60; ++i) {
                orca_agent_def d = random_agent(g, 25);
                d.position = vec(at.x + d.position.x, at.y + d.position.y);
                world_add_agent(w, d);
            }
        }
        w->ag[7] = reaching(w->ag[7], ORCA_NEIGHBOR_DIST_MAX, 20);
        w->ag[130] = reaching(w->ag[130], 5e5, ORCA_MAX_NEIGHBORS_LIMIT);
        w->ag[250] = reaching(w->ag[250], 2097152.0, 0);
        w->ag[251] = reaching(w->ag[251], 40, 50);
        return;
    }
    for (int i = 0; i < 1600; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(uni(g, 0, 60), uni(g, 0, 60));
        d.velocity = vec(uni(g, -1, 1), uni(g, -1, 1));
        d.preferred_velocity = vec(uni(g, -1, 1), uni(g, -1, 1));
        d.radius = 0.2;
        d.neighbor_dist = 2;
        d.max_neighbors = 10;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 1;
        world_add_agent(w, d);
    }
    for (int i = 100; i < 400; i += 100) {
        w->ag[i] = reaching(w->ag[i], 12, 40 + i);
    }
    w->ag[1000] = reaching(w->ag[1000], 25, 300);
}

/* The agents j != i within agent i's neighbour distance (its candidates). */
static int bf_candidates(const world *w, int i)
{
    const orca_agent_def *a = &w->ag[i];
    double nd2 = a->neighbor_dist * a->neighbor_dist;
    int c = 0;
    for (int j = 0; j < w->n; ++j) {
        double dx = w->ag[j].position.x - a->position.x;
        double dy = w->ag[j].position.y - a->position.y;
        c += j != i && dx * dx + dy * dy < nd2;
    }
    return c;
}

/* The extended path (diagnostics on, 3 workers): the same lists and constraints as the brute
 * force; after a step, each agent's candidate count is the brute force's and the state the
 * plain path's (1 worker). */
static int check_world_extended(const world *w, double dt, bf_stats *st, const char *what)
{
    orca_sim *s = sim_new(3), *plain = sim_new(1);
    ENSURE(world_to_sim(w, s) == 0 && world_to_sim(w, plain) == 0);
    ENSURE(orca_sim_set_diagnostics(s, 1) == ORCA_OK);
    char name[160];
    snprintf(name, sizeof name, "%s, extended path", what);
    ENSURE(check_queries(s, w, dt, st, name) == 0);
    ENSURE(orca_sim_step(s, dt) == ORCA_OK && orca_sim_step(plain, dt) == ORCA_OK);
    ENSURE_MSG(orca_sim_hash(s) == orca_sim_hash(plain), "%s: the step differs", name);
    orca_agent_diagnostics *dg = xmalloc((size_t)(w->n + 1) * sizeof *dg);
    int count = 0;
    ENSURE(orca_sim_diagnostics(s, dg, w->n, &count) == ORCA_OK && count == w->n);
    for (int i = 0; i < w->n; ++i) {
        int want = bf_candidates(w, i);
        ENSURE_MSG(dg[i].candidates == want, "%s: agent %d: %d candidates, brute force %d", name,
                   i, dg[i].candidates, want);
    }
    free(dg);
    orca_sim_destroy(s);
    orca_sim_destroy(plain);
    return 0;
}

/* Every agent's neighbours and constraints against brute force on scenes with far-reaching
 * agents: both grids, 1 and 3 workers, the plain and the extended path. */
static int test_neighbors_far_reaching(void)
{
    bf_stats st;
    memset(&st, 0, sizeof st);
    for (int kind = 0; kind < 9; ++kind) {
        test_rng g = {0xfa4ea0u + (unsigned)kind};
        world w;
        memset(&w, 0, sizeof w);
        scene_far_reaching(&w, &g, kind);
        char name[64];
        snprintf(name, sizeof name, "far-reaching agents, scene %d", kind);
        ENSURE(check_world_both_grids(&w, 0.1, &st, name, vec(-1.9e6, 1.7e6)) == 0);
        ENSURE(check_world(&w, 3, 0.1, &st, name) == 0);
        ENSURE(check_world_extended(&w, 0.1, &st, name) == 0);
        world_free(&w);
    }
    ENSURE(st.agents_listed > 10000);
    return 0;
}

/* Steps of scenes with far-reaching agents against the reference step (the vector kernels and
 * the scalar code alternating, 1 and 3 workers); and with one agent at priority 2 (the
 * extended path's own bits), the same hashes on 1 and 3 workers, kernels on and off. */
static int test_step_far_reaching(void)
{
    int fallbacks = 0, overlaps = 0;
    static const int kinds[] = {0, 1, 3, 5, 6, 7, 8};
    for (int k = 0; k < 7; ++k) {
        test_rng g = {0x57fa4u + (unsigned)k};
        world w;
        memset(&w, 0, sizeof w);
        scene_far_reaching(&w, &g, kinds[k]);
        char name[64];
        snprintf(name, sizeof name, "far-reaching agents, scene %d", kinds[k]);
        ENSURE(reference_run(&w, NULL, 6, 0.1, 1 + 2 * (k % 2), name, &fallbacks, &overlaps) == 0);
        world_free(&w);
        memset(&w, 0, sizeof w);
        g.s = 0x57fa4u + (unsigned)k;
        scene_far_reaching(&w, &g, kinds[k]);
        orca_sim *a = sim_new(1), *b = sim_new(3);
        ENSURE(world_to_sim(&w, a) == 0 && world_to_sim(&w, b) == 0);
        orca_agent_avoidance av = orca_agent_avoidance_default();
        av.priority = 2;
        for (int q = 0; q < 2; ++q) {
            orca_sim *s = q ? b : a;
            ENSURE(orca_agent_set_avoidance(s, orca_sim_agent_at(s, w.n / 3), &av) == ORCA_OK);
        }
        orca_sim_set_vector_kernels(b, 0);
        for (int step = 0; step < 6; ++step) {
            ENSURE(orca_sim_step(a, 0.1) == ORCA_OK && orca_sim_step(b, 0.1) == ORCA_OK);
            ENSURE_MSG(orca_sim_hash(a) == orca_sim_hash(b), "%s, priority 2, step %d", name,
                       step);
        }
        orca_sim_destroy(a);
        orca_sim_destroy(b);
        world_free(&w);
    }
    ENSURE_MSG(fallbacks > 0, "fallbacks %d", fallbacks);
    return 0;
}

/* The queries build the neighbour grid (a cache of positions, velocities and radii); changing
 * an agent between a query and the next step must be seen by the step. Each setter kind runs
 * in its own scene so that one failure does not hide the others. */
static int run_setters_after_queries(int kind, const char *what)
{
    test_rng g = {0x5e77u + (unsigned)kind};
    world w;
    memset(&w, 0, sizeof w);
    goals gl;
    scene_walled(&w, &gl, &g, 120, 10);
    orca_sim *s = sim_new(2);
    ENSURE(world_to_sim(&w, s) == 0);
    const double dt = 0.1;
    for (int step = 0; step < 12; ++step) {
        ENSURE(set_preferred(s, &w, &gl, &g, dt) == 0);
        /* a query (builds the grids), then setters */
        int which = step % 3;
        if (which == 0) {
            int cnt = 0;
            ENSURE(orca_sim_agent_neighbors(s, orca_sim_agent_at(s, 0), NULL, 0, &cnt, NULL, 0,
                                            NULL) == ORCA_OK);
        } else if (which == 1) {
            ENSURE(orca_sim_measure_overlap(s, NULL, NULL) == ORCA_OK);
        } else {
            int cnt = 0;
            ENSURE(orca_sim_agent_constraints(s, orca_sim_agent_at(s, 5), dt, NULL, 0, &cnt, NULL) ==
                   ORCA_OK);
        }
        for (int q = 0; q < 10; ++q) {
            int i = irand(&g, w.n);
            orca_agent_id id = orca_sim_agent_at(s, i);
            if (kind == 0) {
                orca_vec2 v = vec(uni(&g, -1, 1), uni(&g, -1, 1));
                w.ag[i].velocity = v;
                ENSURE(orca_agent_set_velocity(s, id, v) == ORCA_OK);
            } else if (kind == 1) {
                orca_vec2 p = vec(w.ag[i].position.x + uni(&g, -2, 2), w.ag[i].position.y);
                w.ag[i].position = p;
                ENSURE(orca_agent_set_position(s, id, p) == ORCA_OK);
            } else if (kind == 2) {
                w.ag[i].radius *= 1.5;
                w.ag[i].neighbor_dist *= 1.5;
                w.ag[i].velocity.y = -w.ag[i].velocity.y;
                ENSURE(orca_agent_set(s, id, &w.ag[i]) == ORCA_OK);
            } else {
                w.ag[i].max_speed *= 0.5;
                w.ag[i].obstacle_time_horizon *= 3;
                ENSURE(orca_agent_set(s, id, &w.ag[i]) == ORCA_OK);
            }
        }
        ref_step(&w, dt);
        ENSURE(orca_sim_step(s, dt) == ORCA_OK);
        ENSURE_MSG(sim_matches_world(s, &w, what, step) == 0, "%s: the step did not see the change",
                   what);
    }
    orca_sim_destroy(s);
    world_free(&w);
    free(gl.at);
    free(gl.speed);
    return 0;
}

static int test_step_after_query_set_velocity(void)
{
    /* Minimal form: agents A at (0, 0) and B at (5, 0), default parameters (radii 1.5), at
     * rest. Route 0 sets A's velocity to (1, 0) before any query; route 1 first runs a query
     * (orca_sim_agent_neighbors, which builds the neighbour grid), then sets the same
     * velocity. A's constraint and the step must be the same either way. */
    uint64_t h[2];
    int stale_plane[2] = {0, 0};
    orca_halfplane got[2];
    const orca_halfplane want =
        orca_constraint_agent(vec(5, 0), 3.0, vec(1, 0), vec(0, 0), 10.0, 0.1, NULL);
    for (int route = 0; route < 2; ++route) {
        orca_sim *s = sim_new(1);
        orca_agent_def d = orca_agent_def_default();
        orca_agent_id a, b;
        int cnt = 0, ok = 1;
        ok &= orca_sim_add_agent(s, &d, &a) == ORCA_OK;
        d.position = vec(5, 0);
        ok &= orca_sim_add_agent(s, &d, &b) == ORCA_OK;
        if (route == 1) {
            ok &= orca_sim_agent_neighbors(s, a, NULL, 0, &cnt, NULL, 0, NULL) == ORCA_OK;
            ok &= cnt == 1;
        }
        ok &= orca_agent_set_velocity(s, a, vec(1, 0)) == ORCA_OK;
        /* the constraint A sees now: built from the new velocity against B at rest */
        ok &= orca_sim_agent_constraints(s, a, 0.1, &got[route], 1, &cnt, NULL) == ORCA_OK;
        ok &= cnt == 1;
        stale_plane[route] = !same_vec(got[route].point, want.point) ||
                             !same_vec(got[route].normal, want.normal);
        ok &= orca_sim_step(s, 0.1) == ORCA_OK;
        h[route] = orca_sim_hash(s);
        orca_sim_destroy(s);
        ENSURE(ok);
    }
    for (int route = 0; route < 2; ++route) {
        ENSURE_MSG(!stale_plane[route],
                   "route %d: orca_sim_agent_constraints after orca_agent_set_velocity: point "
                   "(%.17g, %.17g), expected (%.17g, %.17g) from the new velocity",
                   route, got[route].point.x, got[route].point.y, want.point.x, want.point.y);
    }
    ENSURE_MSG(h[0] == h[1],
               "orca_agent_set_velocity after a query is not seen by the next step (hash %016llx "
               "vs %016llx)",
               (unsigned long long)h[0], (unsigned long long)h[1]);
    return run_setters_after_queries(0, "orca_agent_set_velocity after a query");
}

static int test_step_after_query_other_setters(void)
{
    ENSURE(run_setters_after_queries(1, "orca_agent_set_position after a query") == 0);
    ENSURE(run_setters_after_queries(2, "orca_agent_set (radius, velocity) after a query") == 0);
    ENSURE(run_setters_after_queries(3, "orca_agent_set (reach) after a query") == 0);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * 3. Worker independence
 * ------------------------------------------------------------------------------------- */

enum { CB_REVERSE, CB_DEFERRED, CB_THREADS, CB_BAD_INDEX, CB_NEGATIVE_INDEX };

/* Engine job system stand-ins (orca_sim_def.enqueue / finish). */
typedef struct engine {
    int mode;
    const orca_sim *sim; /* to read the current worker count */
    test_rng g;
    /* the pending task */
    orca_task_fn *task;
    void *task_context;
    int *ranges; /* begin, end pairs */
    int range_count, range_cap;
    atomic_int next;
    int workers;
    orca_thread threads[ORCA_MAX_WORKERS];
    struct engine_thread_arg {
        struct engine *e;
        int id;
    } args[ORCA_MAX_WORKERS];
    long tasks, calls;
    int tiny; /* split into ranges of 1..7 items instead of >= min_range */
} engine;

static void engine_split(engine *e, int count, int min_range)
{
    e->range_count = 0;
    int at = 0;
    while (at < count) {
        int len = e->tiny ? 1 + irand(&e->g, 7) : min_range + irand(&e->g, 2 * min_range + 1);
        if (irand(&e->g, 8) == 0) {
            len = count; /* sometimes one big range */
        }
        int end = at + len > count ? count : at + len;
        if (e->range_count == e->range_cap) {
            e->range_cap = e->range_cap ? 2 * e->range_cap : 64;
            e->ranges = realloc(e->ranges, (size_t)e->range_cap * 2 * sizeof *e->ranges);
            if (!e->ranges) {
                exit(2);
            }
        }
        e->ranges[2 * e->range_count] = at;
        e->ranges[2 * e->range_count + 1] = end;
        e->range_count++;
        at = end;
    }
}

ORCA_THREAD_PROC(engine_thread)
{
    struct engine_thread_arg *a = arg;
    engine *e = a->e;
    for (;;) {
        int k = atomic_fetch_add(&e->next, 1);
        if (k >= e->range_count) {
            break;
        }
        e->task(e->ranges[2 * k], e->ranges[2 * k + 1], a->id, e->task_context);
    }
    return 0;
}

static void *engine_enqueue(orca_task_fn *task, int item_count, int min_range, void *task_context,
                            void *user_context)
{
    engine *e = user_context;
    int wc = orca_sim_get_worker_count(e->sim);
    e->tasks++;
    e->task = task;
    e->task_context = task_context;
    engine_split(e, item_count, min_range);
    switch (e->mode) {
    case CB_REVERSE:
    case CB_BAD_INDEX:
    case CB_NEGATIVE_INDEX: {
        /* synchronously, last range first, worker indices reused round-robin */
        int bad = e->mode == CB_REVERSE ? -1 : irand(&e->g, e->range_count);
        for (int k = e->range_count - 1; k >= 0; --k) {
            int worker = (e->range_count - 1 - k) % wc;
            if (k == bad) {
                worker = e->mode == CB_BAD_INDEX ? wc : -1;
            }
            e->calls++;
            task(e->ranges[2 * k], e->ranges[2 * k + 1], worker, task_context);
        }
        return NULL;
    }
    case CB_DEFERRED:
        return e; /* run in finish */
    default: { /* CB_THREADS: real threads, each with its own index, dynamic scheduling */
        atomic_store(&e->next, 0);
        e->workers = wc;
        for (int t = 0; t < wc; ++t) {
            e->args[t].e = e;
            e->args[t].id = t;
            if (orca_thread_start(&e->threads[t], engine_thread, &e->args[t]) != 0) {
                fprintf(stderr, "thread start failed\n");
                exit(2);
            }
        }
        return e;
    }
    }
}

static void engine_finish(void *user_task, void *user_context)
{
    engine *e = user_context;
    if (user_task != e) {
        fprintf(stderr, "finish got a foreign handle\n");
        exit(2);
    }
    if (e->mode == CB_DEFERRED) {
        int wc = orca_sim_get_worker_count(e->sim);
        /* a shuffled order, worker indices from the top down */
        for (int k = e->range_count - 1; k > 0; --k) {
            int j = irand(&e->g, k + 1);
            int b = e->ranges[2 * k], en = e->ranges[2 * k + 1];
            e->ranges[2 * k] = e->ranges[2 * j];
            e->ranges[2 * k + 1] = e->ranges[2 * j + 1];
            e->ranges[2 * j] = b;
            e->ranges[2 * j + 1] = en;
        }
        for (int k = 0; k < e->range_count; ++k) {
            e->calls++;
            e->task(e->ranges[2 * k], e->ranges[2 * k + 1], wc - 1 - (k % wc), e->task_context);
        }
    } else {
        for (int t = 0; t < e->workers; ++t) {
            orca_thread_join(e->threads[t]);
        }
    }
}

static orca_sim *sim_with_engine(engine *e, int mode, int workers, unsigned seed)
{
    memset(e, 0, sizeof *e);
    e->mode = mode;
    e->g.s = seed;
    atomic_init(&e->next, 0);
    orca_sim_def d = orca_sim_def_default();
    d.worker_count = workers;
    d.enqueue = engine_enqueue;
    d.finish = engine_finish;
    d.user_context = e;
    orca_sim *s = NULL;
    if (orca_sim_create(&d, &s) != ORCA_OK) {
        fprintf(stderr, "orca_sim_create with callbacks failed\n");
        exit(2);
    }
    e->sim = s;
    return s;
}

/* A scene for the worker tests, and a run of `steps` steps recording the hash after each. */
typedef struct run_scene {
    world w;
    goals gl;
} run_scene;

static void run_scene_make(run_scene *r, int n, unsigned seed)
{
    test_rng g = {seed};
    memset(r, 0, sizeof *r);
    scene_walled(&r->w, &r->gl, &g, n, sqrt((double)n) * 1.2);
}

static void run_scene_free(run_scene *r)
{
    world_free(&r->w);
    free(r->gl.at);
    free(r->gl.speed);
}

/* Steps sim (already holding the scene) from step `from` to `to`, recording hashes. The
 * preferred velocities come from the simulation's own positions (so every run that agrees so
 * far sets the same values). */
static int run_steps(orca_sim *s, const run_scene *r, int from, int to, uint64_t *hashes)
{
    const double dt = 0.1;
    for (int step = from; step < to; ++step) {
        int n = orca_sim_agent_count(s);
        for (int i = 0; i < n; ++i) {
            orca_agent_id id = orca_sim_agent_at(s, i);
            orca_vec2 p;
            ENSURE(orca_agent_get_position(s, id, &p) == ORCA_OK);
            int gi = i % r->w.n;
            orca_vec2 v = goal_velocity(p, r->gl.at[gi], r->gl.speed[gi], dt);
            v.y += 1e-4 * (double)((i * 7 + step) % 5 - 2);
            ENSURE(orca_agent_set_preferred_velocity(s, id, v) == ORCA_OK);
        }
        orca_status st = orca_sim_step(s, dt);
        ENSURE_MSG(st == ORCA_OK, "step %d: %s", step, orca_sim_last_error(s));
        hashes[step] = orca_sim_hash(s);
    }
    return 0;
}

#define WORKER_STEPS 20

static int test_workers_builtin(void)
{
    run_scene r;
    run_scene_make(&r, 500, 0x3047u);
    uint64_t ref[WORKER_STEPS], got[WORKER_STEPS];
    static const int counts[] = {1, 2, 3, 4, 8};
    for (int c = 0; c < 5; ++c) {
        orca_sim *s = sim_new(counts[c]);
        ENSURE(orca_sim_get_worker_count(s) == counts[c]);
        ENSURE(world_to_sim(&r.w, s) == 0);
        ENSURE(run_steps(s, &r, 0, WORKER_STEPS, c == 0 ? ref : got) == 0);
        if (c > 0) {
            for (int k = 0; k < WORKER_STEPS; ++k) {
                ENSURE_MSG(got[k] == ref[k], "%d workers: hash differs at step %d", counts[c], k);
            }
        }
        orca_sim_destroy(s);
    }
    /* the worker count changed mid-run: 1 -> 4 -> 2 -> 8 -> 3 -> 1 */
    orca_sim *s = sim_new(1);
    ENSURE(world_to_sim(&r.w, s) == 0);
    static const int change[] = {4, 2, 8, 3, 1};
    for (int part = 0; part < 5; ++part) {
        int from = part * WORKER_STEPS / 5, to = (part + 1) * WORKER_STEPS / 5;
        ENSURE(run_steps(s, &r, from, to, got) == 0);
        ENSURE(orca_sim_set_worker_count(s, change[part]) == ORCA_OK);
        ENSURE(orca_sim_get_worker_count(s) == change[part]);
    }
    for (int k = 0; k < WORKER_STEPS; ++k) {
        ENSURE_MSG(got[k] == ref[k], "worker count changed mid-run: hash differs at step %d", k);
    }
    orca_sim_destroy(s);
    run_scene_free(&r);
    return 0;
}

static int test_workers_callbacks(void)
{
    run_scene r;
    run_scene_make(&r, 400, 0xcb5u);
    uint64_t ref[WORKER_STEPS], got[WORKER_STEPS];
    {
        orca_sim *s = sim_new(1);
        ENSURE(world_to_sim(&r.w, s) == 0);
        ENSURE(run_steps(s, &r, 0, WORKER_STEPS, ref) == 0);
        orca_sim_destroy(s);
    }
    static const struct {
        int mode, workers, tiny;
    } cfg[] = {
        {CB_REVERSE, 1, 0},  {CB_REVERSE, 3, 0},  {CB_REVERSE, 5, 1},  {CB_DEFERRED, 2, 0},
        {CB_DEFERRED, 7, 1}, {CB_THREADS, 2, 0},  {CB_THREADS, 4, 1},  {CB_THREADS, 8, 0},
    };
    for (int c = 0; c < 8; ++c) {
        engine e;
        orca_sim *s = sim_with_engine(&e, cfg[c].mode, cfg[c].workers, 0x1234u + (unsigned)c);
        e.tiny = cfg[c].tiny;
        ENSURE(world_to_sim(&r.w, s) == 0);
        ENSURE(run_steps(s, &r, 0, WORKER_STEPS / 2, got) == 0);
        /* the number of worker indices may change mid-run too */
        ENSURE(orca_sim_set_worker_count(s, cfg[c].workers + 1) == ORCA_OK);
        ENSURE(run_steps(s, &r, WORKER_STEPS / 2, WORKER_STEPS, got) == 0);
        for (int k = 0; k < WORKER_STEPS; ++k) {
            ENSURE_MSG(got[k] == ref[k], "callbacks mode %d, %d workers: hash differs at step %d",
                       cfg[c].mode, cfg[c].workers, k);
        }
        ENSURE_MSG(e.tasks >= WORKER_STEPS, "the enqueue callback was used %ld times", e.tasks);
        orca_sim_destroy(s);
        free(e.ranges);
    }
    run_scene_free(&r);
    return 0;
}

/* A callback that passes a worker index outside [0, worker_count): the step is refused and the
 * state is unchanged. */
static int test_workers_bad_index(void)
{
    run_scene r;
    run_scene_make(&r, 300, 0xbadu);
    for (int mode = CB_BAD_INDEX; mode <= CB_NEGATIVE_INDEX; ++mode) {
        for (int workers = 1; workers <= 4; workers += 3) {
            engine e;
            orca_sim *s = sim_with_engine(&e, CB_REVERSE, workers, 0x99u);
            ENSURE(world_to_sim(&r.w, s) == 0);
            uint64_t h[4];
            ENSURE(run_steps(s, &r, 0, 3, h) == 0);
            uint64_t before = orca_sim_hash(s);
            uint64_t steps = orca_sim_step_count(s);
            e.mode = mode;
            orca_status st = orca_sim_step(s, 0.1);
            ENSURE_MSG(st != ORCA_OK, "a bad worker index was accepted");
            ENSURE(orca_sim_hash(s) == before);
            ENSURE(orca_sim_step_count(s) == steps);
            ENSURE(strlen(orca_sim_last_error(s)) > 0);
            /* a good split afterwards continues as if the bad step never happened */
            e.mode = CB_REVERSE;
            ENSURE(run_steps(s, &r, 3, 4, h) == 0);
            orca_sim *t = sim_new(1);
            ENSURE(world_to_sim(&r.w, t) == 0);
            uint64_t h2[4];
            ENSURE(run_steps(t, &r, 0, 4, h2) == 0);
            ENSURE(h[3] == h2[3]);
            orca_sim_destroy(t);
            orca_sim_destroy(s);
            free(e.ranges);
        }
    }
    run_scene_free(&r);
    return 0;
}

/* From 16384 agents up the light per-agent passes (the grid's bounds, cells and copies, the
 * position update, the preferred-velocity exchange) run on the workers too: the same bits
 * there, a bad worker index refused before anything changes, and the exchange's check
 * naming the lowest bad index in any split. */
static int test_workers_large(void)
{
    run_scene r;
    run_scene_make(&r, 20000, 0x1a76eu);
    uint64_t ref[3], got[3];
    orca_sim *s = sim_new(1);
    ENSURE(world_to_sim(&r.w, s) == 0);
    ENSURE(run_steps(s, &r, 0, 3, ref) == 0);
    orca_sim_destroy(s);
    for (int workers = 2; workers <= 3; ++workers) {
        s = sim_new(workers);
        ENSURE(world_to_sim(&r.w, s) == 0);
        ENSURE(run_steps(s, &r, 0, 3, got) == 0);
        for (int k = 0; k < 3; ++k) {
            ENSURE_MSG(got[k] == ref[k], "%d workers: hash differs at step %d", workers, k);
        }
        /* the exchange: two bad values, the lower index is reported, nothing changes */
        int n = orca_sim_agent_count(s);
        orca_vec2 *v = calloc((size_t)n, sizeof *v);
        ENSURE(v != NULL);
        v[19000].y = INFINITY;
        v[17000].x = NAN;
        uint64_t h0 = orca_sim_hash(s);
        ENSURE(orca_sim_swap_preferred_velocities(s, v, n) == ORCA_ERR_ARGUMENT);
        ENSURE_MSG(strstr(orca_sim_last_error(s), "agent 17000") != NULL, "%s",
                   orca_sim_last_error(s));
        ENSURE(orca_sim_hash(s) == h0 && v[0].x == 0 && v[0].y == 0);
        free(v);
        orca_sim_destroy(s);
    }
    static const struct {
        int mode, workers, tiny;
    } cfg[] = {{CB_THREADS, 2, 0}, {CB_DEFERRED, 3, 1}, {CB_REVERSE, 4, 0}};
    for (int c = 0; c < 3; ++c) {
        engine e;
        s = sim_with_engine(&e, cfg[c].mode, cfg[c].workers, 0x77u + (unsigned)c);
        e.tiny = cfg[c].tiny;
        ENSURE(world_to_sim(&r.w, s) == 0);
        ENSURE(run_steps(s, &r, 0, 3, got) == 0);
        for (int k = 0; k < 3; ++k) {
            ENSURE_MSG(got[k] == ref[k], "callbacks mode %d: hash differs at step %d",
                       cfg[c].mode, k);
        }
        /* the light passes went through the engine too: five tasks a step, not one */
        ENSURE_MSG(e.tasks >= 15, "the enqueue callback was used %ld times in 3 steps", e.tasks);
        /* a bad worker index: refused, nothing changed */
        uint64_t before = orca_sim_hash(s);
        e.mode = CB_BAD_INDEX;
        ENSURE(orca_sim_step(s, 0.1) != ORCA_OK);
        ENSURE(orca_sim_hash(s) == before);
        ENSURE(strstr(orca_sim_last_error(s), "worker index") != NULL);
        orca_sim_destroy(s);
        free(e.ranges);
    }
    run_scene_free(&r);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * 4. Removal
 * ------------------------------------------------------------------------------------- */

#define REMOVE_STEPS 12

/* Scene A: the agents and segments; scene B: the same plus an extra agent and segment added in
 * the middle (and one at the end), removed before the first step. Same bits. */
static int test_remove_before_first_step(void)
{
    run_scene r;
    run_scene_make(&r, 200, 0x4e40u);
    test_rng g = {0x77u};
    uint64_t ha[REMOVE_STEPS], hb[REMOVE_STEPS];
    orca_sim *a = sim_new(2);
    ENSURE(world_to_sim(&r.w, a) == 0);
    ENSURE(run_steps(a, &r, 0, REMOVE_STEPS, ha) == 0);
    for (int variant = 0; variant < 3; ++variant) {
        orca_sim *b = sim_new(1 + variant);
        int k = variant == 0 ? 0 : (variant == 1 ? r.w.n / 2 : r.w.n);
        int j = variant == 0 ? r.w.m : (variant == 1 ? r.w.m / 2 : 0);
        orca_agent_id x = {0, 0, 0}, x2;
        orca_segment_id y = {0, 0, 0}, y2;
        /* the extra agent sits among the others: it would change their neighbours */
        orca_agent_def extra = r.w.ag[irand(&g, r.w.n)];
        extra.position.x += 0.3;
        for (int i = 0; i <= r.w.n; ++i) {
            if (i == k) {
                ENSURE(orca_sim_add_agent(b, &extra, &x) == ORCA_OK);
            }
            if (i < r.w.n) {
                ENSURE(orca_sim_add_agent(b, &r.w.ag[i], NULL) == ORCA_OK);
            }
        }
        ENSURE(orca_sim_add_agent(b, &extra, &x2) == ORCA_OK);
        for (int q = 0; q <= r.w.m; ++q) {
            if (q == j) {
                ENSURE(orca_sim_add_segment(b, vec(-3, -3), vec(3, 3), &y) == ORCA_OK);
            }
            if (q < r.w.m) {
                ENSURE(orca_sim_add_segment(b, r.w.sa[q], r.w.sb[q], NULL) == ORCA_OK);
            }
        }
        ENSURE(orca_sim_add_segment(b, vec(1, -2), vec(1, 2), &y2) == ORCA_OK);
        ENSURE(orca_sim_agent_index(b, x) == k);
        ENSURE(orca_sim_remove_agent(b, x) == ORCA_OK);
        ENSURE(orca_sim_remove_agent(b, x2) == ORCA_OK);
        ENSURE(orca_sim_remove_segment(b, y) == ORCA_OK);
        ENSURE(orca_sim_remove_segment(b, y2) == ORCA_OK);
        ENSURE(orca_sim_agent_count(b) == r.w.n && orca_sim_segment_count(b) == r.w.m);
        ENSURE(sim_matches_world(b, &r.w, "added then removed", 0) == 0);
        ENSURE(run_steps(b, &r, 0, REMOVE_STEPS, hb) == 0);
        for (int s2 = 0; s2 < REMOVE_STEPS; ++s2) {
            ENSURE_MSG(ha[s2] == hb[s2], "variant %d: hash differs at step %d", variant, s2);
        }
        orca_sim_destroy(b);
    }
    orca_sim_destroy(a);
    run_scene_free(&r);
    return 0;
}

/* A fresh simulation rebuilt from s's state: agents by orca_agent_get in index order,
 * segments by orca_segment_get. */
static orca_sim *rebuild(const orca_sim *s, int workers)
{
    orca_sim *t = sim_new(workers);
    for (int i = 0; i < orca_sim_agent_count(s); ++i) {
        orca_agent_def d;
        if (orca_agent_get(s, orca_sim_agent_at(s, i), &d) != ORCA_OK ||
            orca_sim_add_agent(t, &d, NULL) != ORCA_OK) {
            exit(3);
        }
    }
    for (int k = 0; k < orca_sim_segment_count(s); ++k) {
        orca_vec2 a, b;
        if (orca_segment_get(s, orca_sim_segment_at(s, k), &a, &b) != ORCA_OK ||
            orca_sim_add_segment(t, a, b, NULL) != ORCA_OK) {
            exit(3);
        }
    }
    return t;
}

static int test_remove_mid_run(void)
{
    run_scene r;
    run_scene_make(&r, 250, 0x3e3u);
    test_rng g = {0x123u};
    orca_sim *s = sim_new(3);
    ENSURE(world_to_sim(&r.w, s) == 0);
    uint64_t hs[3 * REMOVE_STEPS], hf[3 * REMOVE_STEPS];
    ENSURE(run_steps(s, &r, 0, REMOVE_STEPS, hs) == 0);
    int n = orca_sim_agent_count(s), m = orca_sim_segment_count(s);
    /* every handle and its state before the removal */
    orca_agent_id *ids = xmalloc((size_t)n * sizeof *ids);
    orca_agent_def *defs = xmalloc((size_t)n * sizeof *defs);
    int *removed = calloc((size_t)n, sizeof *removed);
    orca_segment_id *sids = xmalloc((size_t)m * sizeof *sids);
    orca_vec2 *sa = xmalloc((size_t)m * sizeof *sa), *sb = xmalloc((size_t)m * sizeof *sb);
    int *sremoved = calloc((size_t)m, sizeof *sremoved);
    ENSURE(removed && sremoved);
    for (int i = 0; i < n; ++i) {
        ids[i] = orca_sim_agent_at(s, i);
        ENSURE(orca_agent_get(s, ids[i], &defs[i]) == ORCA_OK);
    }
    for (int k = 0; k < m; ++k) {
        sids[k] = orca_sim_segment_at(s, k);
        ENSURE(orca_segment_get(s, sids[k], &sa[k], &sb[k]) == ORCA_OK);
    }
    /* remove the first, the last and random agents; segments likewise */
    removed[0] = removed[n - 1] = 1;
    for (int q = 0; q < 20; ++q) {
        removed[irand(&g, n)] = 1;
    }
    sremoved[0] = sremoved[m - 1] = sremoved[m / 2] = 1;
    for (int i = n - 1; i >= 0; i -= 2) { /* an order unrelated to the indices */
        if (removed[i]) {
            ENSURE(orca_sim_remove_agent(s, ids[i]) == ORCA_OK);
        }
    }
    for (int i = n - 2; i >= 0; i -= 2) {
        if (removed[i]) {
            ENSURE(orca_sim_remove_agent(s, ids[i]) == ORCA_OK);
        }
    }
    for (int k = 0; k < m; ++k) {
        if (sremoved[k]) {
            ENSURE(orca_sim_remove_segment(s, sids[k]) == ORCA_OK);
        }
    }
    /* the other handles still name their agents, at their new indices */
    int at = 0;
    for (int i = 0; i < n; ++i) {
        orca_agent_def d;
        if (removed[i]) {
            ENSURE(orca_agent_get(s, ids[i], &d) == ORCA_ERR_STALE);
            ENSURE(orca_sim_agent_index(s, ids[i]) == -1);
            ENSURE(orca_sim_remove_agent(s, ids[i]) == ORCA_ERR_STALE);
            ENSURE(orca_agent_set_position(s, ids[i], vec(0, 0)) == ORCA_ERR_STALE);
            continue;
        }
        ENSURE(orca_agent_get(s, ids[i], &d) == ORCA_OK);
        ENSURE(same_def(&d, &defs[i]));
        ENSURE(orca_sim_agent_index(s, ids[i]) == at);
        orca_agent_id back = orca_sim_agent_at(s, at);
        ENSURE(back.slot == ids[i].slot && back.generation == ids[i].generation);
        ++at;
    }
    ENSURE(orca_sim_agent_count(s) == at);
    int sat = 0;
    for (int k = 0; k < m; ++k) {
        orca_vec2 a, b;
        if (sremoved[k]) {
            ENSURE(orca_segment_get(s, sids[k], &a, &b) == ORCA_ERR_STALE);
            ENSURE(orca_sim_remove_segment(s, sids[k]) == ORCA_ERR_STALE);
            continue;
        }
        ENSURE(orca_segment_get(s, sids[k], &a, &b) == ORCA_OK);
        ENSURE(same_vec(a, sa[k]) && same_vec(b, sb[k]));
        orca_segment_id back = orca_sim_segment_at(s, sat);
        ENSURE(back.slot == sids[k].slot && back.generation == sids[k].generation);
        ++sat;
    }
    ENSURE(orca_sim_segment_count(s) == sat);
    /* a fresh simulation from the remaining state continues with the same bits */
    orca_sim *f = rebuild(s, 1);
    ENSURE(orca_sim_hash(f) == orca_sim_hash(s));
    ENSURE(run_steps(s, &r, REMOVE_STEPS, 2 * REMOVE_STEPS, hs) == 0);
    ENSURE(run_steps(f, &r, REMOVE_STEPS, 2 * REMOVE_STEPS, hf) == 0);
    for (int k = REMOVE_STEPS; k < 2 * REMOVE_STEPS; ++k) {
        ENSURE_MSG(hs[k] == hf[k], "after removal: hash differs from the rebuilt sim at step %d", k);
    }
    /* reused slots get new generations: the old handles stay stale */
    orca_agent_id *old = xmalloc(64 * sizeof *old);
    int nold = 0;
    for (int cycle = 0; cycle < 64; ++cycle) {
        orca_agent_def d = defs[cycle % n];
        orca_agent_id id;
        ENSURE(orca_sim_add_agent(s, &d, &id) == ORCA_OK);
        ENSURE(id.generation != 0);
        for (int i = 0; i < n; ++i) {
            ENSURE(!(removed[i] && ids[i].slot == id.slot && ids[i].generation == id.generation));
        }
        for (int q = 0; q < nold; ++q) {
            ENSURE(!(old[q].slot == id.slot && old[q].generation == id.generation));
        }
        ENSURE(orca_sim_agent_index(s, id) == orca_sim_agent_count(s) - 1);
        if (cycle % 2 == 0) {
            ENSURE(orca_sim_remove_agent(s, id) == ORCA_OK);
            old[nold++] = id;
        }
    }
    for (int q = 0; q < nold; ++q) {
        ENSURE(orca_sim_agent_index(s, old[q]) == -1);
    }
    for (int i = 0; i < n; ++i) {
        ENSURE((orca_sim_agent_index(s, ids[i]) == -1) == (removed[i] != 0));
    }
    /* segments: the same */
    orca_segment_id sold[32];
    int nsold = 0;
    for (int cycle = 0; cycle < 32; ++cycle) {
        orca_segment_id id;
        ENSURE(orca_sim_add_segment(s, vec(cycle, 0), vec(cycle, 1), &id) == ORCA_OK);
        for (int k = 0; k < m; ++k) {
            ENSURE(!(sremoved[k] && sids[k].slot == id.slot && sids[k].generation == id.generation));
        }
        for (int q = 0; q < nsold; ++q) {
            ENSURE(!(sold[q].slot == id.slot && sold[q].generation == id.generation));
        }
        ENSURE(orca_sim_remove_segment(s, id) == ORCA_OK);
        sold[nsold++] = id;
    }
    for (int q = 0; q < nsold; ++q) {
        orca_vec2 a;
        ENSURE(orca_segment_get(s, sold[q], &a, NULL) == ORCA_ERR_STALE);
    }
    for (int k = 0; k < m; ++k) {
        orca_vec2 a;
        ENSURE((orca_segment_get(s, sids[k], &a, NULL) == ORCA_ERR_STALE) == (sremoved[k] != 0));
    }
    /* the null handle and out-of-range slots are stale; agent_at out of range is null */
    orca_agent_id null_id = {0, 0, 0}, wild = {1u << 30, 1, orca_sim_id(s)};
    orca_agent_def d;
    ENSURE(orca_agent_get(s, null_id, &d) == ORCA_ERR_STALE);
    ENSURE(orca_agent_get(s, wild, &d) == ORCA_ERR_STALE);
    orca_agent_id none = orca_sim_agent_at(s, orca_sim_agent_count(s));
    ENSURE(none.slot == 0 && none.generation == 0);
    none = orca_sim_agent_at(s, -1);
    ENSURE(none.generation == 0);
    orca_segment_id snone = orca_sim_segment_at(s, orca_sim_segment_count(s));
    ENSURE(snone.slot == 0 && snone.generation == 0);
    free(old);
    free(ids);
    free(defs);
    free(removed);
    free(sids);
    free(sa);
    free(sb);
    free(sremoved);
    orca_sim_destroy(f);
    orca_sim_destroy(s);
    run_scene_free(&r);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * 5. The hash is defined on values
 * ------------------------------------------------------------------------------------- */

static int test_hash_definition(void)
{
    /* empty */
    world w;
    memset(&w, 0, sizeof w);
    orca_sim *s = sim_new(1);
    ENSURE(orca_sim_hash(s) == doc_hash(&w));
    /* a small scene with a segment, values with every byte non-trivial */
    orca_agent_def d = orca_agent_def_default();
    d.position = vec(1.25, -3.0e-7);
    d.velocity = vec(-0.0, 0.1);
    d.preferred_velocity = vec(1.9876543210987654e9, -2.5);
    d.radius = 0.3;
    d.max_speed = 1.75;
    d.neighbor_dist = 12.5;
    d.max_neighbors = 1000;
    d.time_horizon = 3.0;
    d.obstacle_time_horizon = 0.6;
    world_add_agent(&w, d);
    d.position = vec(-2097151.0, 5.0);
    d.max_neighbors = 0;
    d.radius = 1.2345678901234567e-9;
    world_add_agent(&w, d);
    world_add_segment(&w, vec(-1, 2), vec(3.5, -0.0));
    ENSURE(world_to_sim(&w, s) == 0);
    ENSURE_MSG(orca_sim_hash(s) == doc_hash(&w), "hash %016llx, documented %016llx",
               (unsigned long long)orca_sim_hash(s), (unsigned long long)doc_hash(&w));
    /* -0.0 and +0.0 differ (agent position, velocity, segment end) */
    orca_agent_id a0 = orca_sim_agent_at(s, 0);
    uint64_t h0 = orca_sim_hash(s);
    ENSURE(orca_agent_set_velocity(s, a0, vec(0.0, 0.1)) == ORCA_OK);
    w.ag[0].velocity.x = 0.0;
    ENSURE(orca_sim_hash(s) != h0);
    ENSURE(orca_sim_hash(s) == doc_hash(&w));
    orca_sim *t = sim_new(1);
    world w2 = world_copy(&w);
    w2.sb[0].y = 0.0;
    ENSURE(world_to_sim(&w2, t) == 0);
    ENSURE(orca_sim_hash(t) != orca_sim_hash(s));
    ENSURE(orca_sim_hash(t) == doc_hash(&w2));
    orca_sim_destroy(t);
    /* handles do not enter: the same values after add/remove churn give the same hash */
    t = sim_new(2);
    orca_agent_id junk;
    orca_segment_id sjunk;
    ENSURE(orca_sim_add_agent(t, &w.ag[1], &junk) == ORCA_OK);
    ENSURE(orca_sim_add_segment(t, vec(0, 0), vec(1, 1), &sjunk) == ORCA_OK);
    ENSURE(world_to_sim(&w, t) == 0);
    ENSURE(orca_sim_remove_agent(t, junk) == ORCA_OK);
    ENSURE(orca_sim_remove_segment(t, sjunk) == ORCA_OK);
    ENSURE(orca_sim_hash(t) == orca_sim_hash(s));
    orca_sim_destroy(t);
    orca_sim_destroy(s);
    /* the step count does not enter: a resting agent (zero velocities and speed) */
    world_free(&w);
    world_free(&w2);
    memset(&w, 0, sizeof w);
    d = orca_agent_def_default();
    d.position = vec(2.0, 3.0);
    d.max_speed = 0.0;
    world_add_agent(&w, d);
    s = sim_new(1);
    ENSURE(world_to_sim(&w, s) == 0);
    h0 = orca_sim_hash(s);
    ENSURE(orca_sim_step(s, 0.5) == ORCA_OK);
    ENSURE(orca_sim_step_count(s) == 1);
    ENSURE(orca_sim_hash(s) == h0);
    ENSURE(orca_sim_hash(s) == doc_hash(&w));
    orca_sim_destroy(s);
    world_free(&w);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * 6. Snapshots
 * ------------------------------------------------------------------------------------- */

static unsigned char *save_all(const orca_sim *s, size_t *size)
{
    size_t need = 0;
    if (orca_sim_save(s, NULL, 0, &need) != ORCA_OK || need == 0) {
        fprintf(stderr, "size query failed\n");
        exit(2);
    }
    unsigned char *buf = xmalloc(need);
    size_t got = 0;
    if (orca_sim_save(s, buf, need, &got) != ORCA_OK || got != need) {
        fprintf(stderr, "save failed\n");
        exit(2);
    }
    *size = need;
    return buf;
}

/* A simulation with history: stepped, agents and segments removed (free slots, generations
 * above 1). */
static orca_sim *sim_with_history(run_scene *r, int workers, int steps)
{
    orca_sim *s = sim_new(workers);
    if (world_to_sim(&r->w, s) != 0) {
        exit(2);
    }
    uint64_t h[64];
    if (run_steps(s, r, 0, steps, h) != 0) {
        exit(2);
    }
    for (int q = 0; q < 5; ++q) {
        orca_sim_remove_agent(s, orca_sim_agent_at(s, (q * 37) % orca_sim_agent_count(s)));
    }
    orca_sim_remove_segment(s, orca_sim_segment_at(s, 1));
    orca_agent_id id;
    orca_sim_add_agent(s, &r->w.ag[3], &id); /* reuses a slot */
    return s;
}

/* Every observable of two simulations agrees: hash, counts, step count, every agent's handle
 * (slot and generation; each carries its own simulation's identity) and values, every
 * segment's handle and ends. a's handles are foreign in b (a != b), and reach the same object
 * there with b's identity. */
static int same_sims(const orca_sim *a, const orca_sim *b)
{
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    ENSURE(orca_sim_agent_count(a) == orca_sim_agent_count(b));
    ENSURE(orca_sim_segment_count(a) == orca_sim_segment_count(b));
    ENSURE(orca_sim_step_count(a) == orca_sim_step_count(b));
    ENSURE(a == b || orca_sim_id(a) != orca_sim_id(b));
    for (int i = 0; i < orca_sim_agent_count(a); ++i) {
        orca_agent_id ia = orca_sim_agent_at(a, i), ib = orca_sim_agent_at(b, i);
        ENSURE(ia.slot == ib.slot && ia.generation == ib.generation);
        ENSURE(ia.sim == orca_sim_id(a) && ib.sim == orca_sim_id(b));
        orca_agent_def da, db;
        ENSURE(orca_agent_get(a, ia, &da) == ORCA_OK);
        ENSURE(orca_agent_get(b, ib, &db) == ORCA_OK);
        ENSURE(same_def(&da, &db));
        ENSURE(orca_sim_agent_index(b, ib) == i);
        if (a != b) {
            ENSURE(orca_agent_get(b, ia, &db) == ORCA_ERR_FOREIGN);
            ENSURE(orca_sim_agent_index(b, ia) == -1);
            orca_agent_id moved = ia;
            moved.sim = orca_sim_id(b);
            ENSURE(orca_sim_agent_index(b, moved) == i);
        }
    }
    for (int k = 0; k < orca_sim_segment_count(a); ++k) {
        orca_segment_id ia = orca_sim_segment_at(a, k), ib = orca_sim_segment_at(b, k);
        ENSURE(ia.slot == ib.slot && ia.generation == ib.generation);
        ENSURE(ia.sim == orca_sim_id(a) && ib.sim == orca_sim_id(b));
        orca_vec2 a1, a2, b1, b2;
        ENSURE(orca_segment_get(a, ia, &a1, &a2) == ORCA_OK);
        ENSURE(orca_segment_get(b, ib, &b1, &b2) == ORCA_OK);
        ENSURE(same_vec(a1, b1) && same_vec(a2, b2));
        ENSURE(a == b || orca_segment_get(b, ia, &b1, &b2) == ORCA_ERR_FOREIGN);
    }
    return 0;
}

static int test_snapshot_roundtrip_and_continue(void)
{
    run_scene r;
    run_scene_make(&r, 220, 0x5a4u);
    orca_sim *s = sim_with_history(&r, 2, 8);
    /* handles removed before the save */
    orca_agent_id gone = orca_sim_agent_at(s, 0);
    ENSURE(orca_sim_remove_agent(s, gone) == ORCA_OK);
    size_t size;
    unsigned char *snap = save_all(s, &size);
    /* load into a fresh sim and into one with other content and another worker count */
    for (int variant = 0; variant < 4; ++variant) {
        orca_sim *t;
        engine e;
        if (variant == 3) {
            t = sim_with_engine(&e, CB_DEFERRED, 3, 0x42u);
        } else {
            t = sim_new(variant == 0 ? 1 : (variant == 1 ? 4 : 8));
        }
        if (variant >= 1) {
            run_scene other;
            run_scene_make(&other, 30, 0x0e4u + (unsigned)variant);
            ENSURE(world_to_sim(&other.w, t) == 0);
            run_scene_free(&other);
        }
        int workers = orca_sim_get_worker_count(t);
        ENSURE_MSG(orca_sim_load(t, snap, size) == ORCA_OK, "%s", orca_sim_last_error(t));
        ENSURE(orca_sim_get_worker_count(t) == workers); /* the worker setup is kept */
        ENSURE(same_sims(s, t) == 0);
        orca_agent_def d;
        ENSURE(orca_agent_get(t, gone, &d) == ORCA_ERR_FOREIGN); /* s's handle */
        orca_agent_id gone_t = gone;
        gone_t.sim = orca_sim_id(t);
        ENSURE(orca_agent_get(t, gone_t, &d) == ORCA_ERR_STALE);
        /* the saved snapshot of the loaded sim is byte-identical */
        size_t size2;
        unsigned char *snap2 = save_all(t, &size2);
        ENSURE(size2 == size && memcmp(snap, snap2, size) == 0);
        free(snap2);
        /* continuing: the same bits as continuing the original (from a reloaded copy of it) */
        orca_sim *o = sim_new(1 + variant);
        ENSURE(orca_sim_load(o, snap, size) == ORCA_OK);
        uint64_t ho[REMOVE_STEPS], ht[REMOVE_STEPS];
        ENSURE(run_steps(o, &r, 0, REMOVE_STEPS, ho) == 0);
        ENSURE(run_steps(t, &r, 0, REMOVE_STEPS, ht) == 0);
        for (int k = 0; k < REMOVE_STEPS; ++k) {
            ENSURE_MSG(ho[k] == ht[k], "variant %d: hash differs %d steps after the load", variant,
                       k + 1);
        }
        /* new objects get the same handles in both (the free lists were restored) */
        orca_agent_id n1, n2;
        ENSURE(orca_sim_add_agent(o, &r.w.ag[0], &n1) == ORCA_OK);
        ENSURE(orca_sim_add_agent(t, &r.w.ag[0], &n2) == ORCA_OK);
        ENSURE(n1.slot == n2.slot && n1.generation == n2.generation);
        ENSURE(same_sims(o, t) == 0);
        orca_sim_destroy(o);
        orca_sim_destroy(t);
        if (variant == 3) {
            free(e.ranges);
        }
    }
    /* continuing the original itself equals continuing a restored copy */
    orca_sim *t = sim_new(3);
    ENSURE(orca_sim_load(t, snap, size) == ORCA_OK);
    uint64_t hs[REMOVE_STEPS], ht[REMOVE_STEPS];
    ENSURE(run_steps(s, &r, 0, REMOVE_STEPS, hs) == 0);
    ENSURE(run_steps(t, &r, 0, REMOVE_STEPS, ht) == 0);
    for (int k = 0; k < REMOVE_STEPS; ++k) {
        ENSURE(hs[k] == ht[k]);
    }
    ENSURE(same_sims(s, t) == 0);
    /* loading the old snapshot rewinds s */
    ENSURE(orca_sim_load(s, snap, size) == ORCA_OK);
    orca_sim *u = sim_new(1);
    ENSURE(orca_sim_load(u, snap, size) == ORCA_OK);
    ENSURE(same_sims(s, u) == 0);
    /* an empty simulation round-trips too */
    orca_sim *empty = sim_new(1);
    size_t esize;
    unsigned char *esnap = save_all(empty, &esize);
    ENSURE(orca_sim_load(u, esnap, esize) == ORCA_OK);
    ENSURE(same_sims(empty, u) == 0);
    ENSURE(orca_sim_agent_count(u) == 0 && orca_sim_segment_count(u) == 0);
    free(esnap);
    orca_sim_destroy(empty);
    orca_sim_destroy(u);
    orca_sim_destroy(t);
    orca_sim_destroy(s);
    free(snap);
    run_scene_free(&r);
    return 0;
}

static uint64_t fnv_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < n; ++k) {
        h ^= p[k];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* docs/determinism.md: the snapshot ends in an FNV-1a checksum of the rest (little-endian, as
 * every integer in it). Rewrites it after a deliberate change. */
static void fix_checksum(unsigned char *p, size_t size)
{
    uint64_t h = fnv_bytes(p, size - 8);
    for (int b = 0; b < 8; ++b) {
        p[size - 8 + (size_t)b] = (unsigned char)(h >> (8 * b));
    }
}

/* The state of a target that a refused load must leave alone. */
typedef struct target_state {
    uint64_t hash, steps;
    int agents, segments;
    orca_agent_id first;
} target_state;

static target_state target_get(const orca_sim *t)
{
    target_state st;
    st.hash = orca_sim_hash(t);
    st.steps = orca_sim_step_count(t);
    st.agents = orca_sim_agent_count(t);
    st.segments = orca_sim_segment_count(t);
    st.first = orca_sim_agent_at(t, 0);
    return st;
}

static int target_same(const orca_sim *t, const target_state *st)
{
    target_state now = target_get(t);
    return now.hash == st->hash && now.steps == st->steps && now.agents == st->agents &&
           now.segments == st->segments && now.first.slot == st->first.slot &&
           now.first.generation == st->first.generation &&
           orca_sim_agent_index(t, st->first) == 0;
}

/* A loaded forged snapshot must describe a valid simulation: every agent's values pass the
 * checks of orca_sim_add_agent, every handle maps to its index, and it can step. */
static int loaded_state_valid(orca_sim *t)
{
    orca_sim *v = sim_new(1);
    for (int i = 0; i < orca_sim_agent_count(t); ++i) {
        orca_agent_id id = orca_sim_agent_at(t, i);
        ENSURE(id.generation != 0);
        ENSURE(orca_sim_agent_index(t, id) == i);
        orca_agent_def d;
        ENSURE(orca_agent_get(t, id, &d) == ORCA_OK);
        ENSURE_MSG(orca_sim_add_agent(v, &d, NULL) == ORCA_OK, "loaded an invalid agent: %s",
                   orca_sim_last_error(v));
    }
    for (int k = 0; k < orca_sim_segment_count(t); ++k) {
        orca_segment_id id = orca_sim_segment_at(t, k);
        ENSURE(id.generation != 0);
        orca_vec2 a, b;
        ENSURE(orca_segment_get(t, id, &a, &b) == ORCA_OK);
        ENSURE_MSG(orca_sim_add_segment(v, a, b, NULL) == ORCA_OK, "loaded an invalid segment: %s",
                   orca_sim_last_error(v));
    }
    ENSURE(orca_sim_hash(v) == orca_sim_hash(t));
    orca_sim_destroy(v);
    ENSURE(orca_sim_step(t, 0.1) == ORCA_OK);
    /* new objects get fresh handles */
    orca_agent_id id;
    orca_agent_def d = orca_agent_def_default();
    ENSURE(orca_sim_add_agent(t, &d, &id) == ORCA_OK);
    ENSURE(orca_sim_agent_index(t, id) == orca_sim_agent_count(t) - 1);
    return 0;
}

static int test_snapshot_refusals(void)
{
    run_scene r;
    run_scene_make(&r, 12, 0x5b5u);
    orca_sim *s = sim_with_history(&r, 1, 3);
    size_t size;
    unsigned char *snap = save_all(s, &size);
    /* size query and too small a buffer */
    size_t need = 0;
    ENSURE(orca_sim_save(s, NULL, 0, &need) == ORCA_OK && need == size);
    ENSURE(orca_sim_save(s, NULL, 12345, &need) == ORCA_OK && need == size);
    unsigned char *small = xmalloc(size);
    memset(small, 0xab, size);
    need = 0;
    ENSURE(orca_sim_save(s, small, size - 1, &need) == ORCA_ERR_LIMIT);
    ENSURE(need == size);
    for (size_t k = 0; k < size; ++k) {
        ENSURE(small[k] == 0xab); /* nothing written */
    }
    ENSURE(orca_sim_save(s, small, 0, &need) == ORCA_ERR_LIMIT);
    ENSURE(orca_sim_save(s, small, size, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_save(NULL, small, size, &need) == ORCA_ERR_NULL);
    free(small);
    /* the documented frame: magic, version 1 (little-endian), checksum of the rest */
    ENSURE(memcmp(snap, "ORCASNAP", 8) == 0);
    ENSURE(snap[8] == 1 && snap[9] == 0 && snap[10] == 0 && snap[11] == 0);
    uint64_t sum = 0;
    for (int b = 7; b >= 0; --b) {
        sum = (sum << 8) | snap[size - 8 + (size_t)b];
    }
    ENSURE(sum == fnv_bytes(snap, size - 8));

    /* the target: a different simulation that refusals must leave alone */
    run_scene r2;
    run_scene_make(&r2, 9, 0x7a7u);
    orca_sim *t = sim_new(2);
    ENSURE(world_to_sim(&r2.w, t) == 0);
    uint64_t hh[2];
    ENSURE(run_steps(t, &r2, 0, 2, hh) == 0);
    target_state ts = target_get(t);
    unsigned char *bad = xmalloc(size);
    /* every byte flipped, one at a time */
    for (size_t k = 0; k < size; ++k) {
        memcpy(bad, snap, size);
        bad[k] ^= 0xff;
        orca_status st = orca_sim_load(t, bad, size);
        ENSURE_MSG(st == ORCA_ERR_FORMAT, "byte %zu flipped: status %s", k, orca_status_name(st));
        ENSURE(target_same(t, &ts));
        bad[k] ^= 0xff ^ (unsigned char)(1u << (k % 8)); /* a single bit */
        ENSURE(orca_sim_load(t, bad, size) == ORCA_ERR_FORMAT);
        ENSURE(target_same(t, &ts));
    }
    /* truncated at every length, and one byte too long */
    for (size_t len = 0; len < size; ++len) {
        orca_status st = orca_sim_load(t, snap, len);
        ENSURE_MSG(st == ORCA_ERR_FORMAT, "truncated to %zu bytes: status %s", len,
                   orca_status_name(st));
        ENSURE(target_same(t, &ts));
    }
    unsigned char *longer = xmalloc(size + 1);
    memcpy(longer, snap, size);
    longer[size] = 0;
    ENSURE(orca_sim_load(t, longer, size + 1) == ORCA_ERR_FORMAT);
    ENSURE(target_same(t, &ts));
    free(longer);
    /* wrong magic and wrong versions, with a valid checksum */
    memcpy(bad, snap, size);
    bad[0] = 'X';
    fix_checksum(bad, size);
    ENSURE(orca_sim_load(t, bad, size) == ORCA_ERR_FORMAT);
    ENSURE(target_same(t, &ts));
    static const unsigned char versions[][4] = {{0, 0, 0, 0}, {2, 0, 0, 0}, {1, 0, 0, 1}, {0xff, 0xff, 0xff, 0xff}};
    for (int v = 0; v < 4; ++v) {
        memcpy(bad, snap, size);
        memcpy(bad + 8, versions[v], 4);
        fix_checksum(bad, size);
        ENSURE(orca_sim_load(t, bad, size) == ORCA_ERR_FORMAT);
        ENSURE(target_same(t, &ts));
    }
    /* forged content with a valid checksum: every byte changed (all bits, the top bit or a
     * random pattern, in turn). Either refused (ORCA_ERR_FORMAT, target unchanged) or loaded
     * into a valid simulation. */
    size_t tsize;
    unsigned char *tsnap = save_all(t, &tsize);
    test_rng g = {0xf0e9u};
    int refused = 0, loaded = 0;
    for (size_t k = 12; k < size - 8; ++k) {
        memcpy(bad, snap, size);
        unsigned char vals[3] = {0xff, 0x80, (unsigned char)(test_rng_next(&g) | 1)};
        unsigned char x = vals[k % 3];
        bad[k] ^= x;
        fix_checksum(bad, size);
        orca_status st = orca_sim_load(t, bad, size);
        if (st == ORCA_OK) {
            ++loaded;
            ENSURE_MSG(loaded_state_valid(t) == 0, "forged byte %zu (^%02x) loaded an invalid state",
                       k, x);
            ENSURE(orca_sim_load(t, tsnap, tsize) == ORCA_OK); /* restore the target */
            ENSURE(target_same(t, &ts));
        } else {
            ++refused;
            ENSURE_MSG(st == ORCA_ERR_FORMAT, "forged byte %zu: status %s", k, orca_status_name(st));
            ENSURE(target_same(t, &ts));
        }
    }
    free(tsnap);
    ENSURE(refused > 0 && loaded > 0);
    /* NULL buffer */
    ENSURE(orca_sim_load(t, NULL, size) == ORCA_ERR_NULL);
    ENSURE(target_same(t, &ts));
    ENSURE(orca_sim_load(NULL, snap, size) == ORCA_ERR_NULL);
    /* and the genuine snapshot still loads */
    ENSURE(orca_sim_load(t, snap, size) == ORCA_OK);
    ENSURE(same_sims(s, t) == 0);
    free(bad);
    free(snap);
    orca_sim_destroy(t);
    orca_sim_destroy(s);
    run_scene_free(&r);
    run_scene_free(&r2);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * 7. Bad input
 * ------------------------------------------------------------------------------------- */

/* The state a refused call must leave alone. */
typedef struct sim_state {
    uint64_t hash, steps;
    int agents, segments;
} sim_state;

static sim_state state_of(const orca_sim *s)
{
    sim_state st = {orca_sim_hash(s), orca_sim_step_count(s), orca_sim_agent_count(s),
                    orca_sim_segment_count(s)};
    return st;
}

static int state_same(const orca_sim *s, sim_state st)
{
    sim_state now = state_of(s);
    return now.hash == st.hash && now.steps == st.steps && now.agents == st.agents &&
           now.segments == st.segments;
}

/* The refusal names the value: the message contains both words. */
static int error_names(const orca_sim *s, const char *field, const char *value)
{
    const char *e = orca_sim_last_error(s);
    ENSURE_MSG(strstr(e, field) != NULL && strstr(e, value) != NULL,
               "error message \"%s\" does not name %s = %s", e, field, value);
    return 0;
}

typedef struct bad_case {
    const char *field, *value;
    int which;
    double x;
} bad_case;

static orca_agent_def apply_bad(orca_agent_def d, const bad_case *c)
{
    switch (c->which) {
    case 0: d.position.x = c->x; break;
    case 1: d.position.y = c->x; break;
    case 2: d.velocity.x = c->x; break;
    case 3: d.velocity.y = c->x; break;
    case 4: d.preferred_velocity.x = c->x; break;
    case 5: d.preferred_velocity.y = c->x; break;
    case 6: d.radius = c->x; break;
    case 7: d.max_speed = c->x; break;
    case 8: d.neighbor_dist = c->x; break;
    case 9: d.max_neighbors = (int)c->x; break;
    case 10: d.time_horizon = c->x; break;
    default: d.obstacle_time_horizon = c->x; break;
    }
    return d;
}

static int test_bad_agent_values(void)
{
    const double nan = NAN, inf = INFINITY;
    const bad_case cases[] = {
        {"position", "nan", 0, nan},        {"position", "inf", 1, -inf},
        {"position", "2097152", 0, 2097152.0}, {"position", "-2097152", 1, -2097152.0},
        {"position", "1e+300", 0, 1e300},   {"velocity", "nan", 2, nan},
        {"velocity", "inf", 3, inf},        {"preferred_velocity", "inf", 4, -inf},
        {"preferred_velocity", "nan", 5, nan}, {"radius", "-1", 6, -1.0},
        {"radius", "0", 6, 0.0},            {"radius", "-0", 6, -0.0},
        {"radius", "nan", 6, nan},          {"radius", "inf", 6, inf},
        {"max_speed", "-1", 7, -1.0},       {"max_speed", "nan", 7, nan},
        {"max_speed", "inf", 7, inf},       {"neighbor_dist", "-0.5", 8, -0.5},
        {"neighbor_dist", "inf", 8, inf},   {"max_neighbors", "-1", 9, -1.0},
        {"max_neighbors", "1025", 9, 1025.0}, {"time_horizon", "0", 10, 0.0},
        {"time_horizon", "-2", 10, -2.0},   {"time_horizon", "nan", 10, nan},
        {"obstacle_time_horizon", "-3", 11, -3.0}, {"obstacle_time_horizon", "0", 11, 0.0},
        {"obstacle_time_horizon", "inf", 11, inf},
        /* just outside the accepted ranges (the value's text is its %.17g) */
        {"velocity", NULL, 2, nextafter(ORCA_VELOCITY_LIMIT, inf)},
        {"velocity", NULL, 3, -nextafter(ORCA_VELOCITY_LIMIT, inf)},
        {"preferred_velocity", NULL, 4, nextafter(ORCA_VELOCITY_LIMIT, inf)},
        {"preferred_velocity", "1e+300", 5, -1e300},
        {"radius", NULL, 6, nextafter(ORCA_RADIUS_MIN, 0)},
        {"radius", NULL, 6, nextafter(ORCA_RADIUS_MAX, inf)},
        {"radius", "1e+308", 6, 1e308},
        {"radius", NULL, 6, 4.9406564584124654e-324},
        {"max_speed", NULL, 7, nextafter(ORCA_SPEED_MAX, inf)},
        {"max_speed", NULL, 7, 1.76e159},
        {"neighbor_dist", NULL, 8, nextafter(ORCA_NEIGHBOR_DIST_MAX, inf)},
        {"neighbor_dist", NULL, 8, 1e150},
        {"time_horizon", NULL, 10, nextafter(ORCA_TIME_MIN, 0)},
        {"time_horizon", NULL, 10, nextafter(ORCA_TIME_MAX, inf)},
        {"time_horizon", NULL, 10, 1.44e163},
        {"obstacle_time_horizon", NULL, 11, nextafter(ORCA_TIME_MIN, 0)},
        {"obstacle_time_horizon", NULL, 11, nextafter(ORCA_TIME_MAX, inf)},
        {"obstacle_time_horizon", NULL, 11, 4.9406564584124654e-324},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    run_scene r;
    run_scene_make(&r, 10, 0xbad0u);
    orca_sim *s = sim_new(2);
    ENSURE(world_to_sim(&r.w, s) == 0);
    uint64_t h[2];
    ENSURE(run_steps(s, &r, 0, 2, h) == 0);
    orca_agent_id id = orca_sim_agent_at(s, 4);
    orca_agent_def orig;
    ENSURE(orca_agent_get(s, id, &orig) == ORCA_OK);
    sim_state st = state_of(s);
    for (int c = 0; c < ncases; ++c) {
        orca_agent_def d = apply_bad(orig, &cases[c]);
        char text[32];
        snprintf(text, sizeof text, "%.17g", cases[c].x);
        const char *value = cases[c].value ? cases[c].value : text;
        orca_agent_id out = {77, 77, 77};
        orca_status rc = orca_sim_add_agent(s, &d, &out);
        ENSURE_MSG(rc == ORCA_ERR_ARGUMENT, "case %d (%s = %s): add gave %s", c, cases[c].field,
                   value, orca_status_name(rc));
        ENSURE(error_names(s, cases[c].field, value) == 0);
        ENSURE(state_same(s, st));
        ENSURE(out.slot == 77 && out.generation == 77); /* not written */
        rc = orca_agent_set(s, id, &d);
        ENSURE_MSG(rc == ORCA_ERR_ARGUMENT, "case %d (%s = %s): set gave %s", c, cases[c].field,
                   value, orca_status_name(rc));
        ENSURE(error_names(s, cases[c].field, value) == 0);
        ENSURE(state_same(s, st));
        orca_agent_def now;
        ENSURE(orca_agent_get(s, id, &now) == ORCA_OK && same_def(&now, &orig));
        /* the single-field setters */
        if (cases[c].which <= 1) {
            ENSURE(orca_agent_set_position(s, id, d.position) == ORCA_ERR_ARGUMENT);
            ENSURE(error_names(s, "position", value) == 0);
        } else if (cases[c].which <= 3) {
            ENSURE(orca_agent_set_velocity(s, id, d.velocity) == ORCA_ERR_ARGUMENT);
            ENSURE(error_names(s, "velocity", value) == 0);
        } else if (cases[c].which <= 5) {
            ENSURE(orca_agent_set_preferred_velocity(s, id, d.preferred_velocity) ==
                   ORCA_ERR_ARGUMENT);
            ENSURE(error_names(s, "preferred_velocity", value) == 0);
        }
        ENSURE(state_same(s, st));
    }
    /* the limits: the largest accepted values are accepted */
    const double below = nextafter(ORCA_COORD_LIMIT, 0);
    ENSURE(below < 2097152.0);
    const bad_case good[] = {
        {"", "", 0, below},
        {"", "", 1, -below},
        {"", "", 0, -0.0},
        {"", "", 7, 0.0},
        {"", "", 8, 0.0},
        {"", "", 9, 0.0},
        {"", "", 9, 1024.0},
        {"", "", 2, ORCA_VELOCITY_LIMIT},
        {"", "", 3, -ORCA_VELOCITY_LIMIT},
        {"", "", 4, -ORCA_VELOCITY_LIMIT},
        {"", "", 5, ORCA_VELOCITY_LIMIT},
        {"", "", 2, 4.9406564584124654e-324},
        {"", "", 6, ORCA_RADIUS_MIN},
        {"", "", 6, ORCA_RADIUS_MAX},
        {"", "", 7, ORCA_SPEED_MAX},
        {"", "", 8, ORCA_NEIGHBOR_DIST_MAX},
        {"", "", 10, ORCA_TIME_MIN},
        {"", "", 10, ORCA_TIME_MAX},
        {"", "", 11, ORCA_TIME_MIN},
        {"", "", 11, ORCA_TIME_MAX},
    };
    for (int c = 0; c < (int)(sizeof good / sizeof good[0]); ++c) {
        orca_agent_def d = apply_bad(orig, &good[c]);
        orca_agent_id out;
        orca_status rc = orca_sim_add_agent(s, &d, &out);
        ENSURE_MSG(rc == ORCA_OK, "good case %d refused: %s", c, orca_sim_last_error(s));
        ENSURE(orca_sim_remove_agent(s, out) == ORCA_OK);
        ENSURE(orca_agent_set(s, id, &d) == ORCA_OK);
        ENSURE(orca_agent_set(s, id, &orig) == ORCA_OK);
    }
    ENSURE(orca_agent_set_position(s, id, vec(below, -below)) == ORCA_OK);
    ENSURE(orca_agent_set_position(s, id, orig.position) == ORCA_OK);
    ENSURE(state_same(s, st));
    /* segments: coordinates */
    static const double badc[] = {2097152.0, -2097152.0, NAN, INFINITY, -3e6};
    for (int c = 0; c < 5; ++c) {
        for (int end = 0; end < 4; ++end) {
            orca_vec2 a = vec(1, 2), b = vec(3, 4);
            double *f = end == 0 ? &a.x : (end == 1 ? &a.y : (end == 2 ? &b.x : &b.y));
            *f = badc[c];
            orca_segment_id out;
            ENSURE(orca_sim_add_segment(s, a, b, &out) == ORCA_ERR_ARGUMENT);
            ENSURE(strlen(orca_sim_last_error(s)) > 0);
            ENSURE(state_same(s, st));
        }
    }
    ENSURE(error_names(s, "segment", "-3000000") == 0);
    orca_segment_id sid;
    ENSURE(orca_sim_add_segment(s, vec(below, -below), vec(-below, below), &sid) == ORCA_OK);
    ENSURE(orca_sim_remove_segment(s, sid) == ORCA_OK);
    ENSURE(state_same(s, st));
    orca_sim_destroy(s);
    run_scene_free(&r);
    return 0;
}


/* Forged snapshots with a valid checksum: a generation of 0, a free list that misses a free
 * slot, and a live slot turned into a free one (a consistent free list, one slot short of the
 * agents), a segment end beyond 2^21. Each is refused with a message naming the fault, the
 * target unchanged. */
static void put_u32_le(unsigned char *p, uint32_t v)
{
    for (int b = 0; b < 4; ++b) {
        p[b] = (unsigned char)(v >> (8 * b));
    }
}

static uint32_t get_u32_le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int test_snapshot_forged_slots(void)
{
    run_scene r;
    run_scene_make(&r, 12, 0x5107u);
    orca_sim *s = sim_with_history(&r, 1, 2);
    size_t size;
    unsigned char *snap = save_all(s, &size);
    orca_sim *t = sim_new(1);
    ENSURE(world_to_sim(&r.w, t) == 0);
    target_state ts = target_get(t);
    unsigned char *bad = xmalloc(size);
    /* agent slots start at 48, 12 bytes each: generation, index, next free */
    uint32_t slots = get_u32_le(snap + 24), head = get_u32_le(snap + 28);
    ENSURE(head != 0xffffffffu && slots > 2); /* sim_with_history left free slots */
    uint32_t live = 0;
    while (get_u32_le(snap + 48 + 12 * live + 4) == 0xffffffffu) {
        ++live;
    }
    struct {
        const char *message;
        int kind;
    } cases[] = {{"has generation 0", 0}, {"free list misses", 1}, {"slots for", 2}};
    for (int c = 0; c < 3; ++c) {
        memcpy(bad, snap, size);
        if (cases[c].kind == 0) {
            put_u32_le(bad + 48 + 12 * 1, 0);
        } else if (cases[c].kind == 1) {
            put_u32_le(bad + 28, 0xffffffffu);
        } else {
            /* live slot `live` becomes the head of the free list */
            put_u32_le(bad + 48 + 12 * live + 4, 0xffffffffu);
            put_u32_le(bad + 48 + 12 * live + 8, head);
            put_u32_le(bad + 28, live);
        }
        fix_checksum(bad, size);
        ENSURE(orca_sim_load(t, bad, size) == ORCA_ERR_FORMAT);
        ENSURE_MSG(strstr(orca_sim_last_error(t), cases[c].message) != NULL, "case %d: %s", c,
                   orca_sim_last_error(t));
        ENSURE(target_same(t, &ts));
    }
    /* a segment end beyond 2^21: the segment is named */
    uint32_t agents = get_u32_le(snap + 20), seg_slots = get_u32_le(snap + 36);
    size_t seg0 = 48 + 12 * (size_t)slots + 96 * (size_t)agents + 12 * (size_t)seg_slots;
    ENSURE(get_u32_le(snap + 32) > 0 && seg0 + 36 <= size - 8);
    memcpy(bad, snap, size);
    double far = 3e6;
    uint64_t fb;
    memcpy(&fb, &far, sizeof fb);
    put_u32_le(bad + seg0 + 4 + 16, (uint32_t)fb); /* b.x, little-endian */
    put_u32_le(bad + seg0 + 4 + 20, (uint32_t)(fb >> 32));
    fix_checksum(bad, size);
    ENSURE(orca_sim_load(t, bad, size) == ORCA_ERR_FORMAT);
    ENSURE_MSG(strstr(orca_sim_last_error(t), "snapshot segment 0 end.x") != NULL &&
                   strstr(orca_sim_last_error(t), "3000000") != NULL,
               "%s", orca_sim_last_error(t));
    ENSURE(target_same(t, &ts));
    free(bad);
    free(snap);
    orca_sim_destroy(s);
    orca_sim_destroy(t);
    run_scene_free(&r);
    return 0;
}

/* More than 16 obstacles in one list (sorted by qsort) with equal distances: 20 copies of a
 * point obstacle and of a segment around each of a few agents tie, and the index decides. */
static int test_segments_many_ties(void)
{
    world w;
    memset(&w, 0, sizeof w);
    for (int i = 0; i < 6; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(40.0 * i, 0);
        d.max_speed = 1.0;
        d.obstacle_time_horizon = 5.0;
        world_add_agent(&w, d);
        for (int k = 0; k < 20; ++k) {
            world_add_segment(&w, vec(40.0 * i + 3, 1), vec(40.0 * i + 3, 1));
            world_add_segment(&w, vec(40.0 * i - 2, -4), vec(40.0 * i + 2, -4));
        }
    }
    bf_stats st;
    memset(&st, 0, sizeof st);
    ENSURE(check_world(&w, 2, 0.1, &st, "many obstacle ties") == 0);
    world_free(&w);
    return 0;
}

/* The dense grid's counting sort in blocks needs room for two blocks' counts in the grid's
 * scratch (4 counts per agent of capacity per array); a grid of more cells than that sorts on
 * one thread. 16,384 agents (the light-pass threshold) over 260 x 260 cells of 7.5 m: the
 * same bits on one and two workers. */
static int test_grid_sort_one_thread(void)
{
    uint64_t h[2];
    for (int workers = 1; workers <= 2; ++workers) {
        orca_sim *s = sim_new(workers);
        test_rng g = {0x50f7u};
        for (int i = 0; i < 16384; ++i) {
            orca_agent_def d = orca_agent_def_default();
            d.position = vec(i == 0 ? 0 : uni(&g, 0, 1942.5), i == 1 ? 1942.5 : uni(&g, 0, 1942.5));
            if (i == 0) {
                d.position.y = 0;
            }
            if (i == 1) {
                d.position.x = 1942.5;
            }
            d.preferred_velocity = vec(uni(&g, -1, 1), uni(&g, -1, 1));
            ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
        }
        for (int k = 0; k < 3; ++k) {
            ENSURE(orca_sim_step(s, 0.25) == ORCA_OK);
        }
        h[workers - 1] = orca_sim_hash(s);
        orca_sim_destroy(s);
    }
    ENSURE(h[0] == h[1]);
    return 0;
}

/* Long neighbour lists in a dense crowd: the hinted search collects more candidates than its
 * buffer holds at once (it ranks them in batches); the steps against the reference. */
static int test_step_long_lists(void)
{
    world w;
    memset(&w, 0, sizeof w);
    for (int i = 0; i < 400; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(1.1 * (i % 20), 1.1 * (i / 20));
        d.radius = 0.5;
        d.max_neighbors = 100 + i % 40;
        d.neighbor_dist = 12;
        d.preferred_velocity = vec(i % 2 ? 1.0 : -1.0, 0.25);
        world_add_agent(&w, d);
    }
    int fallbacks = 0, overlaps = 0;
    ENSURE(reference_run(&w, NULL, 6, 0.1, 1, "long lists", &fallbacks, &overlaps) == 0);
    world_free(&w);
    return 0;
}

/* NULL simulations and pointers in the calls test_bad_calls does not reach. */
static int test_null_arguments(void)
{
    orca_vec2 v[2] = {{0, 0}, {0, 0}};
    ENSURE(orca_sim_swap_preferred_velocities(NULL, v, 2) == ORCA_ERR_NULL);
    ENSURE(orca_sim_add_polyline(NULL, v, 2, 0, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_run_task(NULL, NULL, 1, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_hash(NULL) == 0xcbf29ce484222325ull);
    ENSURE(orca_sim_positions(NULL) == NULL);
    ENSURE(orca_sim_step_count(NULL) == 0 && orca_sim_last_fallback_count(NULL) == 0);
    orca_sim *s = sim_new(1);
    ENSURE(orca_sim_swap_preferred_velocities(s, NULL, 0) == ORCA_OK);
    ENSURE(orca_sim_add_agent(s, &(orca_agent_def){.radius = 1, .time_horizon = 1,
                                                   .obstacle_time_horizon = 1},
                              NULL) == ORCA_OK);
    ENSURE(orca_sim_swap_preferred_velocities(s, NULL, 1) == ORCA_ERR_NULL);
    ENSURE(strstr(orca_sim_last_error(s), "NULL") != NULL);
    orca_sim_destroy(s);
    return 0;
}

static int test_bad_calls(void)
{
    run_scene r;
    run_scene_make(&r, 10, 0xbad1u);
    orca_sim *s = sim_new(1);
    ENSURE(world_to_sim(&r.w, s) == 0);
    uint64_t h[2];
    ENSURE(run_steps(s, &r, 0, 2, h) == 0);
    sim_state st = state_of(s);
    /* dt */
    static const double bad_dt[] = {0.0, -0.0, -1.0, NAN, INFINITY, -INFINITY};
    static const char *bad_dt_text[] = {"0", "-0", "-1", "nan", "inf", "-inf"};
    for (int c = 0; c < 6; ++c) {
        ENSURE(orca_sim_step(s, bad_dt[c]) == ORCA_ERR_ARGUMENT);
        ENSURE(error_names(s, "dt", bad_dt_text[c]) == 0);
        ENSURE(state_same(s, st));
        orca_halfplane hp[4];
        int cnt;
        ENSURE(orca_sim_agent_constraints(s, orca_sim_agent_at(s, 0), bad_dt[c], hp, 4, &cnt, NULL) ==
               ORCA_ERR_ARGUMENT);
        ENSURE(state_same(s, st));
    }
    /* stale and null handles */
    orca_agent_id null_id = {0, 0, 0};
    orca_agent_def d;
    orca_vec2 v;
    ENSURE(orca_agent_get(s, null_id, &d) == ORCA_ERR_STALE);
    ENSURE(strstr(orca_sim_last_error(s), "stale") != NULL);
    ENSURE(orca_agent_set(s, null_id, &r.w.ag[0]) == ORCA_ERR_STALE);
    ENSURE(orca_agent_set_position(s, null_id, vec(0, 0)) == ORCA_ERR_STALE);
    ENSURE(orca_agent_set_velocity(s, null_id, vec(0, 0)) == ORCA_ERR_STALE);
    ENSURE(orca_agent_set_preferred_velocity(s, null_id, vec(0, 0)) == ORCA_ERR_STALE);
    ENSURE(orca_agent_get_position(s, null_id, &v) == ORCA_ERR_STALE);
    ENSURE(orca_agent_get_velocity(s, null_id, &v) == ORCA_ERR_STALE);
    ENSURE(orca_sim_remove_agent(s, null_id) == ORCA_ERR_STALE);
    ENSURE(orca_sim_agent_constraints(s, null_id, 0.1, NULL, 0, NULL, NULL) == ORCA_ERR_STALE);
    ENSURE(orca_sim_agent_neighbors(s, null_id, NULL, 0, NULL, NULL, 0, NULL) == ORCA_ERR_STALE);
    orca_agent_id live = orca_sim_agent_at(s, 3);
    orca_agent_id older = {live.slot, live.generation + 1, live.sim}; /* not issued yet */
    ENSURE(orca_agent_get(s, older, &d) == ORCA_ERR_STALE);
    orca_segment_id snull = {0, 0, 0};
    ENSURE(orca_sim_remove_segment(s, snull) == ORCA_ERR_STALE);
    ENSURE(orca_segment_get(s, snull, &v, &v) == ORCA_ERR_STALE);
    ENSURE(state_same(s, st));
    /* NULL pointers */
    ENSURE(orca_sim_add_agent(s, NULL, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_agent_set(s, live, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_agent_get(s, live, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_agent_get_position(s, live, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_agent_get_velocity(s, live, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_add_polyline(s, NULL, 3, 0, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_add_agent(NULL, &r.w.ag[0], NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_step(NULL, 0.1) == ORCA_ERR_NULL);
    ENSURE(orca_sim_remove_agent(NULL, live) == ORCA_ERR_NULL);
    ENSURE(orca_sim_add_segment(NULL, vec(0, 0), vec(1, 1), NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_set_worker_count(NULL, 2) == ORCA_ERR_NULL);
    ENSURE(orca_sim_measure_overlap(NULL, NULL, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_create(NULL, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_sim_agent_count(NULL) == 0 && orca_sim_segment_count(NULL) == 0);
    orca_sim_destroy(NULL);
    /* output arrays that cannot hold their capacities */
    ENSURE(orca_sim_agent_neighbors(s, live, NULL, 5, NULL, NULL, 0, NULL) < 0);
    ENSURE(orca_sim_agent_neighbors(s, live, NULL, 0, NULL, NULL, 3, NULL) < 0);
    ENSURE(orca_sim_agent_constraints(s, live, 0.1, NULL, 2, NULL, NULL) < 0);
    ENSURE(state_same(s, st));
    /* worker counts */
    ENSURE(orca_sim_set_worker_count(s, 0) == ORCA_ERR_ARGUMENT);
    ENSURE(error_names(s, "worker", "0") == 0);
    ENSURE(orca_sim_set_worker_count(s, ORCA_MAX_WORKERS + 1) == ORCA_ERR_ARGUMENT);
    ENSURE(error_names(s, "worker", "65") == 0);
    ENSURE(orca_sim_get_worker_count(s) == 1);
    orca_sim_def def = orca_sim_def_default();
    orca_sim *t = NULL;
    def.worker_count = 0;
    ENSURE(orca_sim_create(&def, &t) == ORCA_ERR_ARGUMENT && t == NULL);
    def.worker_count = ORCA_MAX_WORKERS + 1;
    ENSURE(orca_sim_create(&def, &t) == ORCA_ERR_ARGUMENT && t == NULL);
    def.worker_count = 2;
    def.enqueue = engine_enqueue; /* without finish */
    ENSURE(orca_sim_create(&def, &t) == ORCA_ERR_ARGUMENT && t == NULL);
    def.enqueue = NULL;
    def.finish = engine_finish;
    ENSURE(orca_sim_create(&def, &t) == ORCA_ERR_ARGUMENT && t == NULL);
    ENSURE(orca_sim_create(NULL, &t) == ORCA_OK && t != NULL);
    ENSURE(orca_sim_get_worker_count(t) == 1);
    ENSURE(strcmp(orca_sim_last_error(t), "") == 0);
    orca_sim_destroy(t);
    /* polyline: a bad point in the middle adds nothing; too few points */
    orca_vec2 pts[5] = {{0, 0}, {1, 0}, {1, NAN}, {2, 2}, {0, 3}};
    orca_segment_id ids[5] = {{9, 9, 9}, {9, 9, 9}, {9, 9, 9}, {9, 9, 9}, {9, 9, 9}};
    ENSURE(orca_sim_add_polyline(s, pts, 5, 0, ids) == ORCA_ERR_ARGUMENT);
    ENSURE(error_names(s, "point 2", "nan") == 0);
    ENSURE(state_same(s, st));
    ENSURE(ids[0].slot == 9 && ids[0].generation == 9);
    pts[2].y = 2097152.0;
    ENSURE(orca_sim_add_polyline(s, pts, 5, 1, ids) == ORCA_ERR_ARGUMENT);
    ENSURE(error_names(s, "point 2", "2097152") == 0);
    ENSURE(state_same(s, st));
    pts[2].y = 1;
    ENSURE(orca_sim_add_polyline(s, pts, 1, 0, ids) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_add_polyline(s, pts, 0, 1, ids) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_add_polyline(s, pts, -3, 0, ids) == ORCA_ERR_ARGUMENT);
    ENSURE(state_same(s, st));
    orca_sim_destroy(s);
    run_scene_free(&r);
    return 0;
}

/* Zero agents: a step is a no-op (with and without segments). */
static int test_zero_agents(void)
{
    orca_sim *s = sim_new(4);
    sim_state st = state_of(s);
    ENSURE(orca_sim_step(s, 0.1) == ORCA_OK);
    ENSURE(state_same(s, st));
    ENSURE(orca_sim_add_segment(s, vec(0, 0), vec(1, 0), NULL) == ORCA_OK);
    st = state_of(s);
    ENSURE(orca_sim_step(s, 0.1) == ORCA_OK);
    ENSURE(state_same(s, st));
    double ao = -1, wo = -1;
    ENSURE(orca_sim_measure_overlap(s, &ao, &wo) == ORCA_OK && ao == 0 && wo == 0);
    /* all agents removed again */
    orca_agent_def d = orca_agent_def_default();
    orca_agent_id id;
    ENSURE(orca_sim_add_agent(s, &d, &id) == ORCA_OK);
    ENSURE(orca_sim_remove_agent(s, id) == ORCA_OK);
    ENSURE(state_same(s, st));
    ENSURE(orca_sim_step(s, 0.1) == ORCA_OK);
    ENSURE(state_same(s, st));
    orca_sim_destroy(s);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * 8. Polyline / polygon helpers
 * ------------------------------------------------------------------------------------- */

static int test_polylines(void)
{
    orca_sim *s = sim_new(1);
    ENSURE(orca_sim_add_segment(s, vec(-5, -5), vec(-6, -6), NULL) == ORCA_OK);
    test_rng g = {0x9011u};
    orca_vec2 pts[9];
    for (int k = 0; k < 9; ++k) {
        pts[k] = vec(uni(&g, -50, 50), uni(&g, -50, 50));
    }
    pts[4] = pts[3]; /* a repeated point: a point segment */
    for (int closed = 0; closed <= 1; ++closed) {
        for (int count = 2; count <= 9; count += 7) {
            int before = orca_sim_segment_count(s);
            orca_segment_id ids[10];
            memset(ids, 0, sizeof ids);
            ENSURE(orca_sim_add_polyline(s, pts, count, closed, ids) == ORCA_OK);
            int added = closed ? count : count - 1;
            ENSURE(orca_sim_segment_count(s) == before + added);
            for (int k = 0; k < added; ++k) {
                orca_vec2 a, b;
                ENSURE(orca_segment_get(s, ids[k], &a, &b) == ORCA_OK);
                ENSURE(same_vec(a, pts[k]));
                ENSURE(same_vec(b, pts[(k + 1) % count])); /* the closing one back to pts[0] */
                orca_segment_id at = orca_sim_segment_at(s, before + k);
                ENSURE(at.slot == ids[k].slot && at.generation == ids[k].generation);
            }
            ENSURE(ids[added].generation == 0); /* nothing more written */
        }
    }
    /* ids may be NULL; the hash equals segment-by-segment adds */
    orca_sim *t = sim_new(1);
    ENSURE(orca_sim_add_segment(t, vec(-5, -5), vec(-6, -6), NULL) == ORCA_OK);
    for (int closed = 0; closed <= 1; ++closed) {
        for (int count = 2; count <= 9; count += 7) {
            int added = closed ? count : count - 1;
            for (int k = 0; k < added; ++k) {
                ENSURE(orca_sim_add_segment(t, pts[k], pts[(k + 1) % count], NULL) == ORCA_OK);
            }
        }
    }
    ENSURE(orca_sim_hash(s) == orca_sim_hash(t));
    orca_sim *u = sim_new(1);
    ENSURE(orca_sim_add_segment(u, vec(-5, -5), vec(-6, -6), NULL) == ORCA_OK);
    for (int closed = 0; closed <= 1; ++closed) {
        for (int count = 2; count <= 9; count += 7) {
            ENSURE(orca_sim_add_polyline(u, pts, count, closed, NULL) == ORCA_OK);
        }
    }
    ENSURE(orca_sim_hash(u) == orca_sim_hash(t));
    orca_sim_destroy(u);
    orca_sim_destroy(t);
    orca_sim_destroy(s);
    return 0;
}

/* orca_sim_positions, orca_sim_swap_preferred_velocities and orca_sim_run_task: the bulk
 * access an engine (and the scenario module) uses. */
typedef struct mark_ctx {
    int *hits;
    int workers;
    int bad_worker;
} mark_ctx;

static void mark_task(int begin, int end, int worker, void *context)
{
    mark_ctx *c = context;
    if (worker < 0 || worker >= c->workers) {
        c->bad_worker = 1;
    }
    for (int i = begin; i < end; ++i) {
        c->hits[i] += 1;
    }
}

static int test_bulk_access(void)
{
    for (int workers = 1; workers <= 4; ++workers) {
        orca_sim *s = sim_new(workers);
        int n = 37;
        for (int i = 0; i < n; ++i) {
            orca_agent_def d = orca_agent_def_default();
            d.position = (orca_vec2){3.0 * i, -2.0 * i};
            d.preferred_velocity = (orca_vec2){i, 0};
            ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
        }
        const orca_vec2 *pos = orca_sim_positions(s);
        for (int i = 0; i < n; ++i) {
            orca_vec2 p;
            ENSURE(orca_agent_get_position(s, orca_sim_agent_at(s, i), &p) == ORCA_OK);
            ENSURE_BITS(pos[i].x, p.x);
            ENSURE_BITS(pos[i].y, p.y);
        }
        /* the exchange: all or nothing */
        orca_vec2 v[37];
        for (int i = 0; i < n; ++i) {
            v[i] = (orca_vec2){0, i};
        }
        uint64_t h0 = orca_sim_hash(s);
        ENSURE(orca_sim_swap_preferred_velocities(s, v, n - 1) == ORCA_ERR_ARGUMENT);
        v[20].x = NAN;
        ENSURE(orca_sim_swap_preferred_velocities(s, v, n) == ORCA_ERR_ARGUMENT);
        ENSURE(strstr(orca_sim_last_error(s), "agent 20") != NULL);
        ENSURE(orca_sim_hash(s) == h0 && isnan(v[20].x));
        v[20].x = 0;
        ENSURE(orca_sim_swap_preferred_velocities(s, v, n) == ORCA_OK);
        for (int i = 0; i < n; ++i) {
            orca_agent_def d;
            ENSURE(orca_agent_get(s, orca_sim_agent_at(s, i), &d) == ORCA_OK);
            ENSURE(d.preferred_velocity.x == 0 && d.preferred_velocity.y == i);
            ENSURE(v[i].x == i && v[i].y == 0); /* the previous values came back */
        }
        /* every item exactly once, worker indices in range */
        int hits[1000] = {0};
        mark_ctx c = {hits, workers, 0};
        ENSURE(orca_sim_run_task(s, mark_task, 1000, &c) == ORCA_OK);
        for (int i = 0; i < 1000; ++i) {
            ENSURE(hits[i] == 1);
        }
        ENSURE(!c.bad_worker);
        ENSURE(orca_sim_run_task(s, NULL, 10, &c) == ORCA_ERR_NULL);
        ENSURE(orca_sim_run_task(s, mark_task, -1, &c) == ORCA_ERR_ARGUMENT);
        ENSURE(orca_sim_run_task(s, mark_task, 0, &c) == ORCA_OK);
        orca_sim_destroy(s);
    }
    ENSURE(orca_sim_positions(NULL) == NULL);
    return 0;
}

/* The built-in pool's chunks (pool.c: each worker takes from the front of its own share,
 * then from the backs of the others'): for counts around the shares' and the smallest
 * chunk's edges, with 2 to 64 threads (more than the CPUs, so that some shares are taken by
 * others), every item exactly once, every chunk inside [0, count) and not empty, worker
 * indices in range, and no more chunks than the smallest chunk allows. */
typedef struct chunk_ctx {
    atomic_int *hits;
    atomic_int chunks, bad;
    int count, workers;
} chunk_ctx;

static void chunk_task(int begin, int end, int worker, void *context)
{
    chunk_ctx *c = context;
    if (worker < 0 || worker >= c->workers || begin < 0 || end > c->count || begin >= end) {
        atomic_fetch_add(&c->bad, 1);
        return;
    }
    atomic_fetch_add(&c->chunks, 1);
    for (int i = begin; i < end; ++i) {
        atomic_fetch_add(&c->hits[i], 1);
    }
}

static int test_pool_chunks(void)
{
    static const int workers[] = {2, 3, 5, 8, 64};
    static const int counts[] = {0,   1,   2,   3,    5,    63,    64,    65,
                                 127, 128, 129, 1000, 4099, 65537, 200003};
    atomic_int *hits = malloc(200003 * sizeof *hits);
    ENSURE(hits);
    for (size_t w = 0; w < sizeof workers / sizeof *workers; ++w) {
        orca_sim *s = sim_new(workers[w]);
        ENSURE(s);
        for (size_t k = 0; k < sizeof counts / sizeof *counts; ++k) {
            int n = counts[k];
            for (int round = 0; round < 3; ++round) {
                chunk_ctx c;
                c.hits = hits;
                c.count = n;
                c.workers = workers[w];
                atomic_init(&c.chunks, 0);
                atomic_init(&c.bad, 0);
                for (int i = 0; i < n; ++i) {
                    atomic_init(&hits[i], 0);
                }
                ENSURE(orca_sim_run_task(s, chunk_task, n, &c) == ORCA_OK);
                ENSURE_MSG(atomic_load(&c.bad) == 0, "%d workers, %d items: a bad chunk",
                           workers[w], n);
                for (int i = 0; i < n; ++i) {
                    ENSURE_MSG(atomic_load(&hits[i]) == 1,
                               "%d workers, %d items: item %d ran %d times", workers[w], n, i,
                               atomic_load(&hits[i]));
                }
                /* chunks of at least n / (64 threads) items, but the last of each share */
                int least = n / (64 * workers[w]);
                int most = least > 0 ? n / least + 2 * workers[w] : n;
                ENSURE_MSG(atomic_load(&c.chunks) <= most, "%d workers, %d items: %d chunks",
                           workers[w], n, atomic_load(&c.chunks));
            }
        }
        orca_sim_destroy(s);
    }
    free(hits);
    return 0;
}

/* The grid keeps the agents' box between steps (a step records where it moved them): every
 * other change of positions or sizes must drop it. Random steps, far moves
 * (orca_agent_set_position, orca_agent_set), larger neighbour distances and radii, additions
 * far outside the box, removals and worker-count changes, each followed by a step, against a
 * copy loaded from a snapshot before that step (a fresh simulator, no kept box): the same
 * state after the step, every time. A stale box would place agents outside the grid (ASan
 * sees the writes) or miss neighbours (the hashes differ). */
/* Every agent's neighbour list in s against a freshly loaded copy's (whose grid comes from a
 * bounds pass over every agent), then both stepped `steps` times: the same hash. */
static int lists_match_fresh(orca_sim *s, const char *what, int steps)
{
    size_t size = 0;
    ENSURE(orca_sim_save(s, NULL, 0, &size) == ORCA_OK);
    unsigned char *buf = malloc(size);
    ENSURE(buf && orca_sim_save(s, buf, size, &size) == ORCA_OK);
    orca_sim *ref = NULL;
    orca_sim_def rdef = orca_sim_def_default();
    ENSURE(orca_sim_create(&rdef, &ref) == ORCA_OK && orca_sim_load(ref, buf, size) == ORCA_OK);
    free(buf);
    for (int i = 0; i < orca_sim_agent_count(s); ++i) {
        int la[256], lb[256], na = 0, nb = 0, sa = 0, sb = 0;
        ENSURE(orca_sim_agent_neighbors(s, orca_sim_agent_at(s, i), la, 256, &na, NULL, 0, &sa) ==
               ORCA_OK);
        ENSURE(orca_sim_agent_neighbors(ref, orca_sim_agent_at(ref, i), lb, 256, &nb, NULL, 0,
                                        &sb) == ORCA_OK);
        ENSURE_MSG(na == nb && memcmp(la, lb, (size_t)na * sizeof *la) == 0,
                   "%s, agent %d: %d neighbours, the fresh copy %d", what, i, na, nb);
    }
    for (int k = 0; k < steps; ++k) {
        ENSURE(orca_sim_step(s, 0.25) == ORCA_OK && orca_sim_step(ref, 0.25) == ORCA_OK);
    }
    ENSURE_MSG(orca_sim_hash(s) == orca_sim_hash(ref), "%s: hashes differ after %d steps", what,
               steps);
    orca_sim_destroy(ref);
    return 0;
}

static int test_grid_box_kept(void)
{
    test_rng g = {0x626f78u};
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = 2;
    orca_sim *s = NULL;
    ENSURE(orca_sim_create(&def, &s) == ORCA_OK);
    for (int i = 0; i < 300; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec(uni(&g, -30, 30), uni(&g, -30, 30));
        d.preferred_velocity = vec(uni(&g, -1, 1), uni(&g, -1, 1));
        d.neighbor_dist = 15;
        d.max_neighbors = 100; /* every agent within 15 m: one the grid lost would be missed */
        ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
    }
    for (int round = 0; round < 300; ++round) {
        int n = orca_sim_agent_count(s);
        orca_agent_id id = orca_sim_agent_at(s, irand(&g, n));
        orca_agent_def d;
        ENSURE(orca_agent_get(s, id, &d) == ORCA_OK);
        /* a new place: far outside (a hashed grid), just beyond the agents' box on one side
         * (dense, among neighbours: a box that missed it would lose them), or inside */
        const orca_vec2 *pos = orca_sim_positions(s);
        double lo[2] = {pos[0].x, pos[0].y}, hi[2] = {pos[0].x, pos[0].y};
        for (int i = 1; i < n; ++i) {
            double c[2] = {pos[i].x, pos[i].y};
            for (int a = 0; a < 2; ++a) {
                lo[a] = c[a] < lo[a] ? c[a] : lo[a];
                hi[a] = c[a] > hi[a] ? c[a] : hi[a];
            }
        }
        double q[2] = {uni(&g, lo[0], hi[0]), uni(&g, lo[1], hi[1])};
        int where = irand(&g, 3), axis = irand(&g, 2);
        if (where == 0) {
            q[axis] = chance(&g, 0.5) ? -1000.0 : 1000.0;
        } else if (where == 1) {
            q[axis] = chance(&g, 0.5) ? lo[axis] - uni(&g, 0.5, 14) : hi[axis] + uni(&g, 0.5, 14);
        }
        orca_vec2 place = vec(q[0], q[1]);
        switch (irand(&g, 7)) {
        case 0: ENSURE(orca_agent_set_position(s, id, place) == ORCA_OK); break;
        case 1:
            d.position = place;
            d.neighbor_dist = uni(&g, 1, 60);
            d.radius = uni(&g, 0.1, 4);
            ENSURE(orca_agent_set(s, id, &d) == ORCA_OK);
            break;
        case 2:
            d.position = place;
            ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
            break;
        case 3:
            if (n > 10) {
                ENSURE(orca_sim_remove_agent(s, id) == ORCA_OK);
            }
            break;
        case 4: ENSURE(orca_sim_set_worker_count(s, 1 + irand(&g, 3)) == ORCA_OK); break;
        default: break; /* steps only */
        }
        /* the grid built now, from the kept box, finds what the fresh copy's finds */
        char what[32];
        snprintf(what, sizeof what, "round %d", round);
        ENSURE(lists_match_fresh(s, what, 1 + irand(&g, 2)) == 0);
    }
    orca_sim_destroy(s);
    return 0;
}

/* The box a step keeps, widened by the edits between steps: pairs of agents 1 m apart put
 * two and a half cells (and 1,000 m) beyond each side of the box by orca_agent_set_position,
 * orca_agent_set and orca_sim_add_agent must find each other (a box not widened on that side
 * puts them in wrong cells); removals keep the box (agents at its edges removed). */
static int test_grid_box_edits(void)
{
    for (int kind = 0; kind < 3; ++kind) {
        for (int side = 0; side < 4; ++side) {
            for (int far = 0; far < 2; ++far) {
                test_rng g = {0x65646974u + (unsigned)(kind * 8 + side * 2 + far)};
                orca_sim *s = NULL;
                orca_sim_def def = orca_sim_def_default();
                def.worker_count = 2;
                ENSURE(orca_sim_create(&def, &s) == ORCA_OK);
                orca_agent_def d = orca_agent_def_default();
                d.neighbor_dist = 15; /* cells of 7.5 m */
                d.max_neighbors = 200;
                for (int i = 0; i < 200; ++i) {
                    d.position = vec(uni(&g, -30, 30), uni(&g, -30, 30));
                    ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
                }
                ENSURE(orca_sim_step(s, 0.25) == ORCA_OK); /* the box is now the step's */
                const orca_vec2 *pos = orca_sim_positions(s);
                double lo[2] = {pos[0].x, pos[0].y}, hi[2] = {pos[0].x, pos[0].y};
                for (int i = 1; i < 200; ++i) {
                    double c[2] = {pos[i].x, pos[i].y};
                    for (int a = 0; a < 2; ++a) {
                        lo[a] = c[a] < lo[a] ? c[a] : lo[a];
                        hi[a] = c[a] > hi[a] ? c[a] : hi[a];
                    }
                }
                int axis = side % 2;
                double beyond = far ? 1000 : 18.75;
                double at = side < 2 ? lo[axis] - beyond : hi[axis] + beyond;
                double mid = 0.5 * (lo[1 - axis] + hi[1 - axis]);
                orca_agent_id pair[2];
                for (int k = 0; k < 2; ++k) {
                    double q[2];
                    q[axis] = at + (side < 2 ? -(double)k : (double)k);
                    q[1 - axis] = mid;
                    orca_vec2 place = vec(q[0], q[1]);
                    if (kind == 2) {
                        d.position = place;
                        ENSURE(orca_sim_add_agent(s, &d, &pair[k]) == ORCA_OK);
                    } else {
                        pair[k] = orca_sim_agent_at(s, 10 + k);
                        if (kind == 0) {
                            ENSURE(orca_agent_set_position(s, pair[k], place) == ORCA_OK);
                        } else {
                            orca_agent_def e;
                            ENSURE(orca_agent_get(s, pair[k], &e) == ORCA_OK);
                            e.position = place;
                            ENSURE(orca_agent_set(s, pair[k], &e) == ORCA_OK);
                        }
                    }
                }
                /* independent truth: 1 m apart, so each lists the other */
                for (int k = 0; k < 2; ++k) {
                    int list[256], count = 0, seg = 0;
                    ENSURE(orca_sim_agent_neighbors(s, pair[k], list, 256, &count, NULL, 0, &seg) ==
                           ORCA_OK);
                    int other = orca_sim_agent_index(s, pair[1 - k]), found = 0;
                    for (int j = 0; j < count; ++j) {
                        found |= list[j] == other;
                    }
                    ENSURE_MSG(found, "kind %d, side %d, far %d: agent %d does not list %d", kind,
                               side, far, orca_sim_agent_index(s, pair[k]), other);
                }
                char what[64];
                snprintf(what, sizeof what, "kind %d, side %d, far %d", kind, side, far);
                ENSURE(lists_match_fresh(s, what, 1) == 0);
                /* removals: the agents at the box's edges (the box is kept) */
                for (int a = 0; a < 2; ++a) {
                    pos = orca_sim_positions(s);
                    int lo_i = 0, hi_i = 0;
                    for (int i = 1; i < orca_sim_agent_count(s); ++i) {
                        double c = a ? pos[i].y : pos[i].x;
                        lo_i = c < (a ? pos[lo_i].y : pos[lo_i].x) ? i : lo_i;
                        hi_i = c > (a ? pos[hi_i].y : pos[hi_i].x) ? i : hi_i;
                    }
                    orca_agent_id ids[2] = {orca_sim_agent_at(s, lo_i), orca_sim_agent_at(s, hi_i)};
                    ENSURE(orca_sim_remove_agents(s, ids, lo_i == hi_i ? 1 : 2) == ORCA_OK);
                }
                snprintf(what, sizeof what, "kind %d, side %d, far %d, removed", kind, side, far);
                ENSURE(lists_match_fresh(s, what, 1) == 0);
                orca_sim_destroy(s);
            }
        }
    }
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"bulk_access", test_bulk_access},
    {"standing_agents_as_text", test_standing_agents_as_text},
    {"pool_chunks", test_pool_chunks},
    {"neighbors_random", test_neighbors_random},
    {"neighbors_ties", test_neighbors_ties},
    {"neighbors_cell_borders", test_neighbors_cell_borders},
    {"neighbors_cell_edges", test_neighbors_cell_edges},
    {"neighbors_far_coordinates", test_neighbors_far_coordinates},
    {"neighbors_extreme_parameters", test_neighbors_extreme_parameters},
    {"query_capacities", test_query_capacities},
    {"neighbors_subnormal_tie", test_neighbors_subnormal_tie},
    {"neighbors_subnormal_random", test_neighbors_subnormal_random},
    {"segments_random_maps", test_segments_random_maps},
    {"segments_exact_reach", test_segments_exact_reach},
    {"segments_far_tiny_reach", test_segments_far_tiny_reach},
    {"segments_subnormal_reach", test_segments_subnormal_reach},
    {"segments_reach_changes", test_segments_reach_changes},
    {"step_matches_reference", test_step_matches_reference},
    {"step_matches_reference_special", test_step_matches_reference_special},
    {"neighbors_far_reaching", test_neighbors_far_reaching},
    {"step_far_reaching", test_step_far_reaching},
    {"step_after_query_set_velocity", test_step_after_query_set_velocity},
    {"step_after_query_other_setters", test_step_after_query_other_setters},
    {"workers_builtin", test_workers_builtin},
    {"workers_callbacks", test_workers_callbacks},
    {"workers_bad_index", test_workers_bad_index},
    {"workers_large", test_workers_large},
    {"remove_before_first_step", test_remove_before_first_step},
    {"remove_mid_run", test_remove_mid_run},
    {"hash_definition", test_hash_definition},
    {"snapshot_roundtrip_and_continue", test_snapshot_roundtrip_and_continue},
    {"snapshot_refusals", test_snapshot_refusals},
    {"bad_agent_values", test_bad_agent_values},
    {"bad_calls", test_bad_calls},
    {"snapshot_forged_slots", test_snapshot_forged_slots},
    {"segments_many_ties", test_segments_many_ties},
    {"grid_sort_one_thread", test_grid_sort_one_thread},
    {"step_long_lists", test_step_long_lists},
    {"null_arguments", test_null_arguments},
    {"zero_agents", test_zero_agents},
    {"polylines", test_polylines},
    {"grid_box_kept", test_grid_box_kept},
    {"grid_box_edits", test_grid_box_edits},
    {0, 0},
};
