/* SPDX-License-Identifier: MIT */
/* orca-mpi run --svg (docs/mpi.md, "Pictures"): cli/svg.c draws the picture on rank 0 from a
 * source of agents whose passes are windowed gathers (orca_mpi_visit_agents). Rank 0 drives:
 * before each pass it broadcasts which one (every agent, or the tracked ones) and the other
 * ranks, waiting in mpi_svg_write, take part in it; a 0 ends the picture. Tracked agent t is
 * the agent of key t * stride (index t * stride at the start, as `orca run` tracks them). */
#include "orca_mpi_svg.h"

#include <stdlib.h>
#include <string.h>

enum { PASS_DONE, PASS_ALL, PASS_TRACKED };

struct mpi_svg {
    orca_mpi *m;
    int root;
    uint64_t agents; /* at the start: keys 0 .. agents - 1 */
    uint64_t stride; /* tracked agents: keys k < agents with k % stride == 0 */
    orca_mpi_keyed_point *starts; /* this rank's agents at the start, by key */
    int64_t start_n;
    /* rank 0 */
    svg_rec *rec;
    orca_vec2 *pos;         /* per tracked agent: where the last gather found it */
    unsigned char *present; /* ... and whether it is still in the run */
    /* with navigation, while the picture is drawn: per tracked agent, whether it has a path to
     * draw, its state and its corners' place in corners (SVG_NAV_CORNERS at most each) */
    unsigned char *has_path;
    orca_nav_agent *nav;
    int64_t *corner_at;
    orca_nav_corner *corners;
    int64_t corner_n, corner_cap;
    int failed; /* a path that found no room */
};

/* Collective: whether every rank passed ok (a failure here is running out of memory). */
static orca_status all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all ? ORCA_OK : ORCA_ERR_MEMORY;
}

static void track_one(void *context, const orca_mpi_agent_view *v)
{
    mpi_svg *s = context;
    svg_rec_track(s->rec, (int)(v->key / s->stride), v->def.position, &v->goal,
                  v->waypoint_count > 0 ? &v->waypoints[0] : NULL);
}

orca_status mpi_svg_start(orca_mpi *m, double trail_seconds, mpi_svg **out)
{
    *out = NULL;
    int64_t agents = 0;
    orca_status st = orca_mpi_count_arrived(m, NULL, &agents);
    if (st != ORCA_OK) {
        return st;
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mpi_svg *s = calloc(1, sizeof *s);
    int ok = s != NULL;
    int own = orca_mpi_local_agents(m, NULL, NULL, 0);
    uint64_t *keys = malloc((size_t)(own ? own : 1) * sizeof *keys);
    orca_vec2 *at = malloc((size_t)(own ? own : 1) * sizeof *at);
    if (s) {
        s->m = m;
        s->root = rank == 0;
        s->agents = (uint64_t)agents;
        s->starts = malloc((size_t)(own ? own : 1) * sizeof *s->starts);
        if (s->root) {
            s->rec = svg_rec_create((int)agents, orca_mpi_dt(m), trail_seconds);
        }
        int tracked = s->rec ? svg_rec_tracked(s->rec) : 0;
        if (s->root) {
            s->pos = malloc((size_t)(tracked ? tracked : 1) * sizeof *s->pos);
            s->present = malloc((size_t)(tracked ? tracked : 1));
        }
        ok = s->starts && keys && at && (!s->root || (s->rec && s->pos && s->present));
    }
    if (ok) {
        orca_mpi_local_agents(m, keys, at, own);
        for (int i = 0; i < own; ++i) {
            s->starts[i].key = keys[i];
            s->starts[i].point = at[i];
        }
        s->start_n = own;
    }
    free(keys);
    free(at);
    st = all_ok(ok);
    if (st == ORCA_OK) {
        int stride = s->root ? svg_rec_stride(s->rec) : 0;
        MPI_Bcast(&stride, 1, MPI_INT, 0, MPI_COMM_WORLD);
        s->stride = (uint64_t)stride;
        st = orca_mpi_visit_agents(m, s->stride, s->agents, NULL, 0, track_one, s);
    }
    if (st == ORCA_OK) {
        st = mpi_svg_sample(s, 0);
    }
    if (st != ORCA_OK) {
        mpi_svg_destroy(s);
        return st;
    }
    *out = s;
    return ORCA_OK;
}

static void sample_one(void *context, const orca_mpi_agent_view *v)
{
    mpi_svg *s = context;
    uint64_t t = v->key / s->stride;
    s->pos[t] = v->def.position;
    s->present[t] = 1;
}

/* svg_where_fn: the gathered position, 0 for an agent no rank holds (it left by an exit). */
static int where(void *self, int t, orca_vec2 *position)
{
    const mpi_svg *s = self;
    *position = s->pos[t];
    return s->present[t] ? 1 : 0;
}

orca_status mpi_svg_sample(mpi_svg *s, uint64_t run_step)
{
    int due = s->root ? svg_rec_due(s->rec, run_step) : 0;
    MPI_Bcast(&due, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (due) {
        if (s->root) {
            memset(s->present, 0, (size_t)svg_rec_tracked(s->rec));
        }
        orca_status st = orca_mpi_visit_agents(s->m, s->stride, s->agents, NULL, 0, sample_one, s);
        if (st != ORCA_OK) {
            return st;
        }
    }
    /* only the first sample can fail (an agent missing at the start), and only when due */
    int ok = !s->root || svg_rec_sample(s->rec, run_step, where, s) == 0;
    return due ? all_ok(ok) : ORCA_OK;
}

static void count_looping(void *context, const orca_mpi_agent_view *v)
{
    *(int *)context += v->waypoint_count > 0 && v->waypoint_loop;
}

orca_status mpi_svg_count_looping(orca_mpi *m, int *looping)
{
    *looping = 0;
    orca_status st = orca_mpi_visit_agents(m, 0, 0, NULL, 0, count_looping, looping);
    MPI_Bcast(looping, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return st;
}

/* A pass's visit: each agent as an svg_agent (a failure kept, the pass goes on); with_nav:
 * the tracked agents with their paths. */
typedef struct pass {
    const mpi_svg *s;
    svg_visit_fn *visit;
    void *ctx;
    int with_nav;
    int failed;
} pass;

static void pass_one(void *context, const orca_mpi_agent_view *v)
{
    pass *p = context;
    const mpi_svg *s = p->s;
    svg_agent a;
    memset(&a, 0, sizeof a);
    a.track = v->key < s->agents && v->key % s->stride == 0 ? (int)(v->key / s->stride) : -1;
    a.position = v->def.position;
    a.radius = v->def.radius;
    a.goal = v->goal;
    a.start = v->has_point ? v->point : v->def.position;
    a.waypoints = v->waypoints;
    a.waypoint_count = v->waypoint_count;
    a.waypoint_loop = v->waypoint_loop;
    if (p->with_nav && a.track >= 0 && s->has_path && s->has_path[a.track]) {
        a.nav = &s->nav[a.track];
        a.corners = s->corners + s->corner_at[a.track];
        a.corner_count = a.nav->corners < SVG_NAV_CORNERS ? a.nav->corners : SVG_NAV_CORNERS;
    }
    if (p->visit(p->ctx, &a) != 0) {
        p->failed = 1;
    }
}

/* Collective with the other ranks in mpi_svg_write: the pass `which` over the agents. */
static orca_status run_pass(mpi_svg *s, int which, pass *p)
{
    uint64_t stride = which == PASS_TRACKED ? s->stride : 0;
    return orca_mpi_visit_agents(s->m, stride, s->agents, s->starts, s->start_n,
                                 p ? pass_one : NULL, p);
}

/* svg_source's agents, on rank 0: the other ranks are told which pass, then all take part. */
static int source_agents(void *self, int tracked_only, svg_visit_fn *visit, void *ctx)
{
    mpi_svg *s = self;
    int which = tracked_only ? PASS_TRACKED : PASS_ALL;
    MPI_Bcast(&which, 1, MPI_INT, 0, MPI_COMM_WORLD);
    pass p = {s, visit, ctx, tracked_only, 0};
    return run_pass(s, which, &p) == ORCA_OK && !p.failed ? 0 : -1;
}

static int source_segment(void *self, int index, orca_vec2 *a, orca_vec2 *b)
{
    return orca_mpi_segment_get(((mpi_svg *)self)->m, index, a, b) == ORCA_OK ? 0 : -1;
}

static orca_vec2 *source_boundary(void *self, int index, int *count)
{
    const orca_mpi *m = ((mpi_svg *)self)->m;
    int n = orca_mpi_boundary_get(m, index, NULL, 0);
    orca_vec2 *pts = n > 0 ? malloc((size_t)n * sizeof *pts) : NULL;
    *count = pts ? orca_mpi_boundary_get(m, index, pts, n) : 0;
    return pts;
}

/* orca_mpi_path_fn, on rank 0: tracked agent's path kept when the picture draws it (its
 * last plan found one, as `orca run`'s picture asks), with the corners it draws. */
static void path_one(void *context, uint64_t key, const orca_nav_agent *nav,
                     const orca_nav_corner *corners)
{
    mpi_svg *s = context;
    uint64_t t = key / s->stride;
    if (nav->result != ORCA_NAV_OK) {
        return;
    }
    int n = nav->corners < SVG_NAV_CORNERS ? nav->corners : SVG_NAV_CORNERS;
    if (s->corner_n + n > s->corner_cap) {
        int64_t cap = s->corner_cap ? 2 * s->corner_cap : 1024;
        cap = cap < s->corner_n + n ? s->corner_n + n : cap;
        orca_nav_corner *grown = realloc(s->corners, (size_t)cap * sizeof *grown);
        if (!grown) {
            s->failed = 1;
            return;
        }
        s->corners = grown;
        s->corner_cap = cap;
    }
    memcpy(s->corners + s->corner_n, corners, (size_t)n * sizeof *corners);
    s->has_path[t] = 1;
    s->nav[t] = *nav;
    s->corner_at[t] = s->corner_n;
    s->corner_n += n;
}

/* Collective: with navigation, the tracked agents' paths now, on rank 0 (the picture's
 * navigation layer draws them). */
static orca_status gather_paths(mpi_svg *s)
{
    if (!orca_mpi_navigation(s->m)) {
        return ORCA_OK;
    }
    int ok = 1;
    if (s->root) {
        size_t tracked = (size_t)svg_rec_tracked(s->rec) + 1;
        s->has_path = calloc(tracked, 1);
        s->nav = malloc(tracked * sizeof *s->nav);
        s->corner_at = malloc(tracked * sizeof *s->corner_at);
        ok = s->has_path && s->nav && s->corner_at;
    }
    orca_status st = all_ok(ok);
    if (st == ORCA_OK) {
        st = orca_mpi_visit_paths(s->m, s->stride, s->agents, SVG_NAV_CORNERS,
                                  s->root ? path_one : NULL, s);
    }
    return st == ORCA_OK ? all_ok(!s->failed) : st;
}

int mpi_svg_write(mpi_svg *s, const svg_figures *fig, FILE *f)
{
    if (gather_paths(s) != ORCA_OK) {
        return -1;
    }
    int rc = 0;
    if (s->root) {
        svg_source src = {s,
                          orca_mpi_segment_count(s->m),
                          orca_mpi_boundary_count(s->m),
                          orca_mpi_navigation(s->m),
                          source_agents,
                          source_segment,
                          source_boundary};
        rc = svg_draw(s->rec, &src, fig, f);
        int done = PASS_DONE;
        MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        for (;;) {
            int which = PASS_DONE;
            MPI_Bcast(&which, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (which == PASS_DONE) {
                break;
            }
            run_pass(s, which, NULL);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

void mpi_svg_destroy(mpi_svg *s)
{
    if (s) {
        svg_rec_destroy(s->rec);
        free(s->starts);
        free(s->pos);
        free(s->present);
        free(s->has_path);
        free(s->nav);
        free(s->corner_at);
        free(s->corners);
        free(s);
    }
}
