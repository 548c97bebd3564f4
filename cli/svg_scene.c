/* SPDX-License-Identifier: MIT */
/* The picture of an `orca run`: svg.h's record and picture, the agents read from the scenario
 * (its simulation's agents in index order, each with its goal, start, waypoints and
 * navigation path). */
#include "svg_scene.h"

#include <stdlib.h>

struct svg_scene {
    orca_scenario *sc;
    svg_rec *rec;
    orca_agent_id *ids; /* the tracked agents: index t * stride at the start */
};

/* svg_where_fn: where tracked agent t stands, 0 when it has left (an exit). */
static int where(void *self, int t, orca_vec2 *position)
{
    svg_scene *s = self;
    orca_status st = orca_agent_get_position(orca_scenario_sim(s->sc), s->ids[t], position);
    return st == ORCA_OK ? 1 : st == ORCA_ERR_STALE ? 0 : -1;
}

/* The agent's waypoints (malloc'd, *count of them), or NULL when it has none (or on a
 * failure). */
static orca_vec2 *waypoints_of(orca_scenario *sc, int index, int *count)
{
    int n = 0;
    *count = 0;
    if (orca_scenario_agent_waypoints(sc, index, NULL, 0, &n, NULL, NULL) != ORCA_OK || n <= 0) {
        return NULL;
    }
    orca_vec2 *p = malloc((size_t)n * sizeof *p);
    if (!p || orca_scenario_agent_waypoints(sc, index, p, n, &n, NULL, NULL) != ORCA_OK) {
        free(p);
        return NULL;
    }
    *count = n;
    return p;
}

svg_scene *svg_scene_create(orca_scenario *sc, double trail_seconds)
{
    orca_sim *sim = orca_scenario_sim(sc);
    svg_scene *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->sc = sc;
    s->rec = svg_rec_create(orca_sim_agent_count(sim), orca_scenario_dt(sc), trail_seconds);
    int tracked = s->rec ? svg_rec_tracked(s->rec) : 0;
    s->ids = malloc((size_t)(tracked ? tracked : 1) * sizeof *s->ids);
    if (!s->rec || !s->ids) {
        svg_scene_destroy(s);
        return NULL;
    }
    for (int t = 0; t < tracked; ++t) {
        int i = t * svg_rec_stride(s->rec);
        orca_goal goal;
        orca_vec2 start, first;
        int count = 0;
        s->ids[t] = orca_sim_agent_at(sim, i);
        if (orca_scenario_agent_goal(sc, i, &goal, &start) != ORCA_OK) {
            goal = orca_goal_default(); /* added to the simulation directly */
            orca_agent_get_position(sim, s->ids[t], &start);
        }
        int has_first =
            orca_scenario_agent_waypoints(sc, i, &first, 1, &count, NULL, NULL) == ORCA_OK &&
            count > 0;
        svg_rec_track(s->rec, t, start, &goal, has_first ? &first : NULL);
    }
    if (svg_rec_sample(s->rec, 0, where, s) != 0) {
        svg_scene_destroy(s);
        return NULL;
    }
    return s;
}

int svg_scene_sample(svg_scene *s, uint64_t run_step)
{
    return svg_rec_sample(s->rec, run_step, where, s);
}

/* Agent `index` (tracked as `track`, or -1) into a and visited; with_nav: its navigation path
 * too. Returns visit's result, or -1 when it cannot be read. */
static int visit_agent(svg_scene *s, int index, int track, int with_nav, svg_visit_fn *visit,
                       void *ctx)
{
    orca_sim *sim = orca_scenario_sim(s->sc);
    orca_agent_def def;
    svg_agent a = {0};
    a.track = track;
    if (orca_agent_get(sim, orca_sim_agent_at(sim, index), &def) != ORCA_OK ||
        orca_scenario_agent_goal(s->sc, index, &a.goal, &a.start) != ORCA_OK) {
        return -1;
    }
    a.position = def.position;
    a.radius = def.radius;
    orca_vec2 *wp = waypoints_of(s->sc, index, &a.waypoint_count);
    a.waypoints = wp;
    if (wp && orca_scenario_agent_waypoints(s->sc, index, NULL, 0, NULL, &a.waypoint_loop,
                                            NULL) != ORCA_OK) {
        a.waypoint_count = 0; /* drawn without its waypoints, as when it has none */
    }
    orca_nav_agent na;
    orca_nav_corner corners[SVG_NAV_CORNERS];
    if (with_nav && orca_scenario_get_navigation(s->sc) &&
        orca_scenario_agent_nav(s->sc, index, &na, corners, SVG_NAV_CORNERS) == ORCA_OK &&
        na.result == ORCA_NAV_OK) {
        a.nav = &na;
        a.corners = corners;
        a.corner_count = na.corners < SVG_NAV_CORNERS ? na.corners : SVG_NAV_CORNERS;
    }
    int rc = visit(ctx, &a);
    free(wp);
    return rc;
}

/* svg_source's agents: every agent in index order, or the tracked ones still in the run. */
static int scene_agents(void *self, int tracked_only, svg_visit_fn *visit, void *ctx)
{
    svg_scene *s = self;
    orca_sim *sim = orca_scenario_sim(s->sc);
    int tracked = svg_rec_tracked(s->rec);
    if (tracked_only) {
        for (int t = 0; t < tracked; ++t) {
            int cur = orca_sim_agent_index(sim, s->ids[t]);
            if (cur >= 0 && visit_agent(s, cur, t, 1, visit, ctx) != 0) {
                return -1;
            }
        }
        return 0;
    }
    int n = orca_sim_agent_count(sim);
    int *track_of = malloc((size_t)(n ? n : 1) * sizeof *track_of);
    if (!track_of) {
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        track_of[i] = -1;
    }
    for (int t = 0; t < tracked; ++t) {
        int cur = orca_sim_agent_index(sim, s->ids[t]);
        if (cur >= 0 && cur < n) {
            track_of[cur] = t;
        }
    }
    int rc = 0;
    for (int i = 0; i < n && rc == 0; ++i) {
        rc = visit_agent(s, i, track_of[i], 0, visit, ctx);
    }
    free(track_of);
    return rc;
}

static int scene_segment(void *self, int index, orca_vec2 *a, orca_vec2 *b)
{
    orca_sim *sim = orca_scenario_sim(((svg_scene *)self)->sc);
    return orca_segment_get(sim, orca_sim_segment_at(sim, index), a, b) == ORCA_OK ? 0 : -1;
}

static orca_vec2 *scene_boundary(void *self, int index, int *count)
{
    orca_sim *sim = orca_scenario_sim(((svg_scene *)self)->sc);
    orca_boundary_id bid = orca_sim_boundary_at(sim, index);
    int np = 0;
    *count = 0;
    if (orca_boundary_get(sim, bid, NULL, 0, &np) != ORCA_OK || np <= 0) {
        return NULL;
    }
    orca_vec2 *pts = malloc((size_t)np * sizeof *pts);
    if (!pts || orca_boundary_get(sim, bid, pts, np, &np) != ORCA_OK) {
        free(pts);
        return NULL;
    }
    *count = np;
    return pts;
}

int svg_scene_write(svg_scene *s, const svg_figures *fig, FILE *f)
{
    orca_sim *sim = orca_scenario_sim(s->sc);
    svg_source src = {s,
                      orca_sim_segment_count(sim),
                      orca_sim_boundary_count(sim),
                      orca_scenario_get_navigation(s->sc) != 0,
                      scene_agents,
                      scene_segment,
                      scene_boundary};
    return svg_draw(s->rec, &src, fig, f);
}

void svg_scene_destroy(svg_scene *s)
{
    if (s) {
        svg_rec_destroy(s->rec);
        free(s->ids);
        free(s);
    }
}
