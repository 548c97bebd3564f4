/* SPDX-License-Identifier: MIT */
/* SVG picture of a run. Coordinates are metres in the simulation (y up); the picture maps
 * them to pixels with y flipped so that text stays upright. */
#define _POSIX_C_SOURCE 200809L
#include "svg.h"

#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_MAX_TRACKED 20000    /* trajectories drawn for at most this many agents */
#define SVG_POINT_BUDGET 100000  /* total trajectory points kept (before the last one) */
#define SVG_MIN_POINTS 16
#define SVG_MAX_POINTS 256
#define SVG_PLOT_PX 1000.0       /* the longer side of the plot, pixels */
#define SVG_MIN_WIDTH 820.0      /* room for the caption */
#define SVG_MARGIN 24.0
#define SVG_CAPTION_H 96.0
#define SVG_FOOTER_H 56.0
#define SVG_MARKER 3.0         /* start and goal marks, pixels */

typedef struct fpoint {
    float x, y;
} fpoint;

struct svg_rec {
    int agent_count;
    int stride;      /* trajectory of agent i is kept when i % stride == 0 */
    int tracked;     /* agents with a trajectory */
    int half;        /* C: points kept after a compaction; the buffer holds 2C */
    int count;       /* samples per tracked agent so far */
    uint64_t interval;
    fpoint *samples; /* tracked x 2C */
    orca_agent_id *ids; /* the tracked agents (they may leave: exits, docs/navigation.md) */
    orca_vec2 *start;   /* their starts and goals when recording began */
    orca_goal *goal;
};

static int record(svg_rec *r, orca_sim *sim)
{
    int cap = 2 * r->half;
    if (r->count == cap) {
        /* Keep every other sample and halve the sampling rate. */
        for (int t = 0; t < r->tracked; ++t) {
            fpoint *s = r->samples + (size_t)t * (size_t)cap;
            for (int j = 0; j < r->half; ++j) {
                s[j] = s[2 * j];
            }
        }
        r->count = r->half;
        r->interval *= 2;
        return 1; /* the caller checks the new interval */
    }
    for (int t = 0; t < r->tracked; ++t) {
        orca_vec2 p;
        fpoint *s = r->samples + (size_t)t * (size_t)cap;
        orca_status st = orca_agent_get_position(sim, r->ids[t], &p);
        if (st == ORCA_ERR_STALE && r->count > 0) {
            s[r->count] = s[r->count - 1]; /* it left: its trajectory ends where it was */
            continue;
        }
        if (st != ORCA_OK) {
            return -1;
        }
        /* Beyond float's range: infinity, left out of the picture (no overflowing
         * conversion). */
        s[r->count].x = fabs(p.x) < 3e38 ? (float)p.x : INFINITY;
        s[r->count].y = fabs(p.y) < 3e38 ? (float)p.y : INFINITY;
    }
    r->count++;
    return 0;
}

svg_rec *svg_create(orca_scenario *sc)
{
    orca_sim *sim = orca_scenario_sim(sc);
    svg_rec *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    r->agent_count = orca_sim_agent_count(sim);
    r->stride = (r->agent_count + SVG_MAX_TRACKED - 1) / SVG_MAX_TRACKED;
    if (r->stride < 1) {
        r->stride = 1;
    }
    r->tracked = (r->agent_count + r->stride - 1) / r->stride;
    int per = r->tracked > 0 ? SVG_POINT_BUDGET / (2 * r->tracked) : SVG_MAX_POINTS;
    if (per < SVG_MIN_POINTS / 2) {
        per = SVG_MIN_POINTS / 2;
    }
    if (per > SVG_MAX_POINTS / 2) {
        per = SVG_MAX_POINTS / 2;
    }
    r->half = per;
    r->interval = 1;
    size_t n = (size_t)r->tracked * (size_t)(2 * r->half);
    r->samples = malloc((n ? n : 1) * sizeof *r->samples);
    size_t nt = (size_t)(r->tracked ? r->tracked : 1);
    r->ids = malloc(nt * sizeof *r->ids);
    r->start = malloc(nt * sizeof *r->start);
    r->goal = malloc(nt * sizeof *r->goal);
    if (!r->samples || !r->ids || !r->start || !r->goal) {
        svg_destroy(r);
        return NULL;
    }
    for (int t = 0; t < r->tracked; ++t) {
        r->ids[t] = orca_sim_agent_at(sim, t * r->stride);
        if (orca_scenario_agent_goal(sc, t * r->stride, &r->goal[t], &r->start[t]) != ORCA_OK) {
            r->goal[t] = orca_goal_default(); /* added to the simulation directly */
            orca_agent_get_position(sim, r->ids[t], &r->start[t]);
        }
    }
    if (record(r, sim) < 0) {
        svg_destroy(r);
        return NULL;
    }
    return r;
}

int svg_sample(svg_rec *r, orca_scenario *sc, uint64_t run_step)
{
    if (run_step % r->interval != 0) {
        return 0;
    }
    int rc = record(r, orca_scenario_sim(sc));
    if (rc == 1) {
        if (run_step % r->interval != 0) {
            return 0;
        }
        rc = record(r, orca_scenario_sim(sc));
    }
    return rc < 0 ? -1 : 0;
}

void svg_destroy(svg_rec *r)
{
    if (r) {
        free(r->samples);
        free(r->ids);
        free(r->start);
        free(r->goal);
        free(r);
    }
}

/* --- drawing -------------------------------------------------------------------------------- */

typedef struct view {
    double xmin, xmax, ymin, ymax; /* metres */
    double scale;                  /* pixels per metre */
    double left, top;              /* pixel position of (xmin, ymax) */
} view;

static double px(const view *v, double x)
{
    return v->left + (x - v->xmin) * v->scale;
}

static double py(const view *v, double y)
{
    return v->top + (v->ymax - y) * v->scale;
}

/* Coordinates beyond this are left out of the box (the library keeps positions below 2^21
 * when agents are added, but a step may carry them much further): the box's width and the
 * pixel arithmetic then stay finite, and the far-away agents are clipped. */
#define SVG_BOX_LIMIT 1e300

static int drawable(double x, double y)
{
    return fabs(x) < SVG_BOX_LIMIT && fabs(y) < SVG_BOX_LIMIT; /* false for inf and NaN */
}

static void grow_box(double *box, double x, double y, double pad)
{
    if (!drawable(x, y) || !(pad < SVG_BOX_LIMIT)) {
        return;
    }
    if (x - pad < box[0]) box[0] = x - pad;
    if (x + pad > box[1]) box[1] = x + pad;
    if (y - pad < box[2]) box[2] = y - pad;
    if (y + pad > box[3]) box[3] = y + pad;
}

/* A distinct colour per agent: hues spaced by the golden angle. */
static void agent_colour(int i, char out[8])
{
    double h = fmod((double)i * 137.50776405, 360.0) / 60.0;
    double s = 0.72, l = 0.42;
    double c = (1.0 - fabs(2.0 * l - 1.0)) * s;
    double x = c * (1.0 - fabs(fmod(h, 2.0) - 1.0));
    double m = l - c / 2.0;
    double r = 0, g = 0, b = 0;
    switch ((int)h) {
    case 0: r = c; g = x; break;
    case 1: r = x; g = c; break;
    case 2: g = c; b = x; break;
    case 3: g = x; b = c; break;
    case 4: r = x; b = c; break;
    default: r = c; b = x; break;
    }
    snprintf(out, 8, "#%02x%02x%02x", (int)lround((r + m) * 255.0), (int)lround((g + m) * 255.0),
             (int)lround((b + m) * 255.0));
}

/* A round length near `target` metres: 1, 2 or 5 times a power of ten. */
static double nice_length(double target)
{
    double p = pow(10.0, floor(log10(target)));
    double m = target / p;
    return (m >= 5.0 ? 5.0 : m >= 2.0 ? 2.0 : 1.0) * p;
}

static void format_length(char *buf, size_t size, double metres)
{
    if (metres >= 1000.0) {
        snprintf(buf, size, "%g km", metres / 1000.0);
    } else if (metres >= 1.0) {
        snprintf(buf, size, "%g m", metres);
    } else {
        snprintf(buf, size, "%g cm", metres * 100.0);
    }
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

/* What the layers of one picture share: the scene, the final state and the mapping to
 * pixels. */
typedef struct picture {
    orca_scenario *sc;
    orca_sim *sim;
    const svg_rec *rec;
    int n, ns;           /* agents, wall segments */
    orca_vec2 *final_pos; /* by agent index */
    double *radius;
    view v;
    double plot_w, plot_h; /* the plot, pixels */
    double width, height;  /* the whole picture, pixels */
} picture;

/* The final state into p, and the box of every start, goal point, waypoint and final disc.
 * Returns 0, or -1 when out of memory or an agent cannot be read. */
static int read_agents(picture *p, double *box)
{
    size_t cap = (size_t)(p->n ? p->n : 1);
    p->final_pos = malloc(cap * sizeof *p->final_pos);
    p->radius = malloc(cap * sizeof *p->radius);
    if (!p->final_pos || !p->radius) {
        return -1;
    }
    for (int i = 0; i < p->n; ++i) {
        orca_agent_def def;
        orca_goal g;
        orca_vec2 start;
        if (orca_agent_get(p->sim, orca_sim_agent_at(p->sim, i), &def) != ORCA_OK ||
            orca_scenario_agent_goal(p->sc, i, &g, &start) != ORCA_OK) {
            return -1;
        }
        p->final_pos[i] = def.position;
        p->radius[i] = def.radius;
        grow_box(box, def.position.x, def.position.y, def.radius);
        grow_box(box, start.x, start.y, 0.0);
        if (g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET) {
            grow_box(box, g.target.x, g.target.y, 0.0);
        }
        int wn = 0;
        orca_vec2 *wp = waypoints_of(p->sc, i, &wn);
        for (int k = 0; k < wn; ++k) {
            grow_box(box, wp[k].x, wp[k].y, 0.0);
        }
        free(wp);
    }
    return 0;
}

/* The loop's points (malloc'd, *count of them), or NULL when it cannot be read. */
static orca_vec2 *boundary_points(orca_sim *sim, int index, int *count)
{
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

/* The box grown by the trajectories and the boundary loops, and by the walls up to 15% of
 * the agents' extent on each side: walls may reach far beyond the agents (a wall with a gap,
 * a long corridor), and the plot is clipped. */
static void grow_box_scene(const picture *p, double *box)
{
    const svg_rec *r = p->rec;
    for (int t = 0; t < r->tracked; ++t) {
        const fpoint *s = r->samples + (size_t)t * (size_t)(2 * r->half);
        for (int j = 0; j < r->count; ++j) {
            grow_box(box, s[j].x, s[j].y, 0.0);
        }
    }
    if (!(box[0] <= box[1])) {
        box[0] = -1.0; box[1] = 1.0; box[2] = -1.0; box[3] = 1.0;
    }
    int nbox = orca_sim_boundary_count(p->sim);
    for (int i = 0; i < nbox; ++i) {
        int np = 0;
        orca_vec2 *pts = boundary_points(p->sim, i, &np);
        for (int k = 0; k < np; ++k) {
            grow_box(box, pts[k].x, pts[k].y, 0.0);
        }
        free(pts);
    }
    if (p->ns > 0) {
        double ext = 0.15 * fmax(box[1] - box[0], box[3] - box[2]) + 2.0;
        double lim[4] = {box[0] - ext, box[1] + ext, box[2] - ext, box[3] + ext};
        double wall[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
        for (int i = 0; i < p->ns; ++i) {
            orca_vec2 a, b;
            if (orca_segment_get(p->sim, orca_sim_segment_at(p->sim, i), &a, &b) == ORCA_OK) {
                grow_box(wall, a.x, a.y, 0.0);
                grow_box(wall, b.x, b.y, 0.0);
            }
        }
        box[0] = fmin(box[0], fmax(wall[0], lim[0]));
        box[1] = fmax(box[1], fmin(wall[1], lim[1]));
        box[2] = fmin(box[2], fmax(wall[2], lim[2]));
        box[3] = fmax(box[3], fmin(wall[3], lim[3]));
    }
}

/* The view of the box with a margin: the longer side SVG_PLOT_PX pixels, a thin scene at
 * least 240 pixels high, room for the caption above and the footer below. */
static void layout(picture *p, const double *box)
{
    double wx = box[1] - box[0], wy = box[3] - box[2];
    double pad = 0.03 * (wx > wy ? wx : wy) + 1.0;
    view *v = &p->v;
    v->xmin = box[0] - pad;
    v->xmax = box[1] + pad;
    v->ymin = box[2] - pad;
    v->ymax = box[3] + pad;
    wx = v->xmax - v->xmin;
    wy = v->ymax - v->ymin;
    v->scale = SVG_PLOT_PX / (wx > wy ? wx : wy);
    p->plot_w = wx * v->scale;
    p->plot_h = wy * v->scale;
    if (p->plot_h < 240.0 && p->plot_w >= p->plot_h) {
        /* A long thin scene (a corridor): make the plot at least 240 px high. */
        double extra = (240.0 - p->plot_h) / v->scale / 2.0;
        v->ymin -= extra;
        v->ymax += extra;
        p->plot_h = 240.0;
    }
    p->width = p->plot_w + 2.0 * SVG_MARGIN;
    if (p->width < SVG_MIN_WIDTH) {
        p->width = SVG_MIN_WIDTH;
    }
    v->left = (p->width - p->plot_w) / 2.0;
    v->top = SVG_CAPTION_H;
    p->height = SVG_CAPTION_H + p->plot_h + SVG_FOOTER_H;
}

/* The document's start, the background, the plot's frame and the caption above it. */
static void draw_caption(FILE *f, const picture *p, const svg_caption *cap)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
            p->width, p->height, p->width, p->height);
    fprintf(f, "<title>orca run: ");
    cli_xml_text(f, cap->title);
    fprintf(f, "</title>\n");
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f6f6f3\" "
               "stroke=\"#d0d0c8\"/>\n",
            p->v.left, p->v.top, p->plot_w, p->plot_h);
    fprintf(f, "<g fill=\"#222\">\n<text x=\"%.0f\" y=\"30\" font-size=\"20\" "
               "font-weight=\"bold\">",
            SVG_MARGIN);
    cli_xml_text(f, cap->title);
    fprintf(f, "</text>\n");
    for (int i = 0; i < SVG_CAPTION_LINES && cap->lines[i]; ++i) {
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\">", SVG_MARGIN,
                52.0 + 18.0 * (double)i);
        cli_xml_text(f, cap->lines[i]);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</g>\n");
}

/* Walkable-area boundaries (docs/extensions.md): the loops as one path, the walkable area
 * (winding number non-zero: outer loops counter-clockwise, holes clockwise) shaded. */
static void draw_boundaries(FILE *f, const picture *p)
{
    int nbd = orca_sim_boundary_count(p->sim);
    if (nbd == 0) {
        return;
    }
    fprintf(f, "<path fill=\"#e3ecd9\" fill-rule=\"nonzero\" stroke=\"#4a5d3a\" "
               "stroke-width=\"2\" stroke-linejoin=\"round\" d=\"");
    for (int i = 0; i < nbd; ++i) {
        int np = 0;
        orca_vec2 *pts = boundary_points(p->sim, i, &np);
        int ok = np >= 3;
        for (int k = 0; ok && k < np; ++k) {
            ok = drawable(pts[k].x, pts[k].y);
        }
        for (int k = 0; ok && k < np; ++k) {
            fprintf(f, "%s%.1f %.1f", k == 0 ? "M" : " L", px(&p->v, pts[k].x),
                    py(&p->v, pts[k].y));
        }
        if (ok) {
            fprintf(f, " Z ");
        }
        free(pts);
    }
    fprintf(f, "\"/>\n");
}

/* Trajectories (sampled), each ending at the agent's final position. */
static void draw_trajectories(FILE *f, const picture *p)
{
    const svg_rec *r = p->rec;
    fprintf(f, "<g fill=\"none\" stroke-width=\"1.3\" stroke-opacity=\"0.75\" "
               "stroke-linejoin=\"round\" stroke-linecap=\"round\">\n");
    for (int t = 0; t < r->tracked; ++t) {
        char col[8];
        agent_colour(t * r->stride, col);
        const fpoint *s = r->samples + (size_t)t * (size_t)(2 * r->half);
        fprintf(f, "<polyline stroke=\"%s\" points=\"", col);
        double lx = 1e300, ly = 1e300;
        int drawn = 0;
        for (int j = 0; j < r->count; ++j) {
            if (!drawable(s[j].x, s[j].y)) {
                continue; /* beyond any picture (or beyond float) */
            }
            double x = px(&p->v, s[j].x), y = py(&p->v, s[j].y);
            if (drawn > 0 && fabs(x - lx) < 0.4 && fabs(y - ly) < 0.4) {
                continue; /* standing still: skip repeated points */
            }
            fprintf(f, "%s%.1f,%.1f", drawn ? " " : "", x, y);
            lx = x;
            ly = y;
            ++drawn;
        }
        int cur = orca_sim_agent_index(p->sim, r->ids[t]);
        if (cur >= 0 && drawable(p->final_pos[cur].x, p->final_pos[cur].y)) {
            fprintf(f, "%s%.1f,%.1f", drawn ? " " : "", px(&p->v, p->final_pos[cur].x),
                    py(&p->v, p->final_pos[cur].y));
        }
        fprintf(f, "\"/>\n");
    }
    fprintf(f, "</g>\n");
}

/* Waypoint paths (docs/extensions.md): faint dashed lines from each waypoint to the next, to
 * the goal, and back to the first when the agent loops. */
static void draw_waypoints(FILE *f, const picture *p)
{
    const svg_rec *r = p->rec;
    fprintf(f, "<g fill=\"none\" stroke-width=\"1\" stroke-opacity=\"0.35\" "
               "stroke-dasharray=\"4 3\">\n");
    for (int t = 0; t < r->tracked; ++t) {
        int i = orca_sim_agent_index(p->sim, r->ids[t]);
        if (i < 0) {
            continue;
        }
        int wn = 0, loop = 0;
        orca_vec2 *wp = waypoints_of(p->sc, i, &wn);
        orca_goal g;
        if (!wp || orca_scenario_agent_goal(p->sc, i, &g, NULL) != ORCA_OK ||
            orca_scenario_agent_waypoints(p->sc, i, NULL, 0, NULL, &loop, NULL) != ORCA_OK) {
            free(wp);
            continue;
        }
        char col[8];
        agent_colour(i, col);
        fprintf(f, "<polyline stroke=\"%s\" points=\"", col);
        for (int k = 0; k <= wn + (loop ? 1 : 0); ++k) {
            orca_vec2 q = k < wn ? wp[k] : k == wn ? g.target : wp[0];
            if (drawable(q.x, q.y)) {
                fprintf(f, "%s%.1f,%.1f", k ? " " : "", px(&p->v, q.x), py(&p->v, q.y));
            }
        }
        fprintf(f, "\"/>\n");
        for (int k = 0; k < wn; ++k) {
            if (drawable(wp[k].x, wp[k].y)) {
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" stroke=\"%s\"/>\n",
                        px(&p->v, wp[k].x), py(&p->v, wp[k].y), SVG_MARKER * 0.6, col);
            }
        }
        free(wp);
    }
    fprintf(f, "</g>\n");
}

/* Wall segments, at least 3 pixels or 0.3 m wide. */
static void draw_walls(FILE *f, const picture *p)
{
    if (p->ns == 0) {
        return;
    }
    double unit = p->v.scale;
    fprintf(f, "<g stroke=\"#333\" stroke-width=\"%.1f\" stroke-linecap=\"round\">\n",
            unit * 0.3 > 3.0 ? unit * 0.3 : 3.0);
    for (int i = 0; i < p->ns; ++i) {
        orca_vec2 a, b;
        if (orca_segment_get(p->sim, orca_sim_segment_at(p->sim, i), &a, &b) == ORCA_OK &&
            drawable(a.x, a.y) && drawable(b.x, b.y)) {
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    px(&p->v, a.x), py(&p->v, a.y), px(&p->v, b.x), py(&p->v, b.y));
        }
    }
    fprintf(f, "</g>\n");
}

/* Starts (small rings) and goals (small crosses) of the agents with a trajectory; an agent
 * still in the simulation shows its goal now (a goal set's point may change). */
static void draw_marks(FILE *f, const picture *p)
{
    const svg_rec *r = p->rec;
    const double marker = SVG_MARKER;
    fprintf(f, "<g fill=\"none\" stroke-width=\"1.2\">\n");
    for (int t = 0; t < r->tracked; ++t) {
        orca_goal g = r->goal[t];
        orca_vec2 start = r->start[t];
        int cur = orca_sim_agent_index(p->sim, r->ids[t]);
        orca_vec2 st0;
        if (cur >= 0 && orca_scenario_agent_goal(p->sc, cur, &g, &st0) != ORCA_OK) {
            g = r->goal[t];
        }
        char col[8];
        agent_colour(t * r->stride, col);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" stroke=\"%s\"/>",
                px(&p->v, start.x), py(&p->v, start.y), marker, col);
        if ((g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET) &&
            drawable(g.target.x, g.target.y)) {
            double gx = px(&p->v, g.target.x), gy = py(&p->v, g.target.y);
            fprintf(f, "<path d=\"M%.1f %.1fl%.1f %.1fm0 %.1fl%.1f %.1f\" stroke=\"%s\"/>",
                    gx - marker, gy - marker, 2 * marker, 2 * marker, -2 * marker, -2 * marker,
                    2 * marker, col);
        }
        fputc('\n', f);
    }
    fprintf(f, "</g>\n");
}

/* Navigation (docs/navigation.md): each tracked agent's path from where it stands, round the
 * corners still ahead, to its goal: thin dashed lines. */
static void draw_nav_paths(FILE *f, const picture *p)
{
    if (!orca_scenario_get_navigation(p->sc)) {
        return;
    }
    const svg_rec *r = p->rec;
    fprintf(f, "<g fill=\"none\" stroke-width=\"1\" stroke-opacity=\"0.6\" "
               "stroke-dasharray=\"3 2\">\n");
    orca_nav_corner corners[64];
    for (int t = 0; t < r->tracked; ++t) {
        int cur = orca_sim_agent_index(p->sim, r->ids[t]);
        orca_nav_agent na;
        if (cur < 0 || orca_scenario_agent_nav(p->sc, cur, &na, corners, 64) != ORCA_OK ||
            na.result != ORCA_NAV_OK || !drawable(p->final_pos[cur].x, p->final_pos[cur].y)) {
            continue;
        }
        char col[8];
        agent_colour(t * r->stride, col);
        fprintf(f, "<polyline stroke=\"%s\" points=\"%.1f,%.1f", col,
                px(&p->v, p->final_pos[cur].x), py(&p->v, p->final_pos[cur].y));
        for (int k = na.corner; k < na.corners && k < 64; ++k) {
            orca_vec2 pts[2] = {corners[k].enter, corners[k].leave};
            for (int e = 0; e < 2; ++e) {
                if (drawable(pts[e].x, pts[e].y)) {
                    fprintf(f, " %.1f,%.1f", px(&p->v, pts[e].x), py(&p->v, pts[e].y));
                }
            }
        }
        if (drawable(na.goal.x, na.goal.y)) {
            fprintf(f, " %.1f,%.1f", px(&p->v, na.goal.x), py(&p->v, na.goal.y));
        }
        fprintf(f, "\"/>\n");
    }
    fprintf(f, "</g>\n");
}

/* Final positions: discs of the true radius. */
static void draw_discs(FILE *f, const picture *p)
{
    fprintf(f, "<g fill-opacity=\"0.55\" stroke-width=\"1\">\n");
    for (int i = 0; i < p->n; ++i) {
        if (!drawable(p->final_pos[i].x, p->final_pos[i].y)) {
            continue;
        }
        char col[8];
        agent_colour(i, col);
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\" stroke=\"%s\"/>\n",
                px(&p->v, p->final_pos[i].x), py(&p->v, p->final_pos[i].y),
                p->radius[i] * p->v.scale, col, col);
    }
    fprintf(f, "</g>\n");
}

/* Under the plot: the scale bar at the left, the legend at the right. */
static void draw_footer(FILE *f, const picture *p)
{
    const view *v = &p->v;
    double bar_m = nice_length((v->xmax - v->xmin) / 5.0);
    double bar_px = bar_m * v->scale;
    double bx = v->left, by = v->top + p->plot_h + 22.0;
    char len[32];
    format_length(len, sizeof len, bar_m);
    fprintf(f, "<g stroke=\"#222\" stroke-width=\"2\" fill=\"none\">"
               "<path d=\"M%.1f %.1fv-8M%.1f %.1fh%.1fM%.1f %.1fv-8\"/></g>\n",
            bx, by, bx, by - 4.0, bar_px, bx + bar_px, by);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"#222\">%s</text>\n",
            bx + bar_px + 8.0, by, len);

    double lx = v->left + p->plot_w - 520.0;
    if (lx < bx + bar_px + 90.0) {
        lx = bx + bar_px + 90.0;
    }
    double ly = by;
    int sampled = p->rec->stride > 1;
    fprintf(f, "<g font-size=\"12\" fill=\"#222\">\n");
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"none\" stroke=\"#444\" "
               "stroke-width=\"1.2\"/><text x=\"%.1f\" y=\"%.1f\">start</text>\n",
            lx, ly - 4.0, lx + 8.0, ly);
    lx += 50.0;
    fprintf(f, "<path d=\"M%.1f %.1fl6 6m0 -6l-6 6\" stroke=\"#444\" stroke-width=\"1.2\"/>"
               "<text x=\"%.1f\" y=\"%.1f\">goal</text>\n",
            lx - 3.0, ly - 7.0, lx + 8.0, ly);
    lx += 46.0;
    fprintf(f, "<path d=\"M%.1f %.1fh18\" stroke=\"#c44\" stroke-width=\"1.5\"/>"
               "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
            lx - 3.0, ly - 4.0, lx + 20.0, ly,
            sampled ? "trajectory (a sample of agents)" : "trajectory");
    lx += sampled ? 210.0 : 90.0;
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"#c44\" fill-opacity=\"0.55\" "
               "stroke=\"#c44\"/><text x=\"%.1f\" y=\"%.1f\">final position (disc = true "
               "radius)</text>\n",
            lx + 3.0, ly - 4.0, lx + 14.0, ly);
    if (p->ns > 0) {
        lx += 230.0;
        fprintf(f, "<path d=\"M%.1f %.1fh18\" stroke=\"#333\" stroke-width=\"3\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">wall</text>\n",
                lx, ly - 4.0, lx + 22.0, ly);
    }
    fprintf(f, "</g>\n");
}

/* The picture's layers, bottom to top: boundaries, trajectories, waypoint paths, walls,
 * starts and goals, navigation paths, final discs; everything in metres clipped to the
 * plot. */
int svg_write(svg_rec *r, orca_scenario *sc, FILE *f, const svg_caption *cap)
{
    picture p;
    memset(&p, 0, sizeof p);
    p.sc = sc;
    p.sim = orca_scenario_sim(sc);
    p.rec = r;
    p.n = orca_sim_agent_count(p.sim);
    p.ns = orca_sim_segment_count(p.sim);
    double box[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    if (read_agents(&p, box) != 0) {
        free(p.final_pos);
        free(p.radius);
        return -1;
    }
    grow_box_scene(&p, box);
    layout(&p, box);
    draw_caption(f, &p, cap);
    fprintf(f, "<clipPath id=\"plot\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
               "height=\"%.1f\"/></clipPath>\n<g clip-path=\"url(#plot)\">\n",
            p.v.left, p.v.top, p.plot_w, p.plot_h);
    draw_boundaries(f, &p);
    draw_trajectories(f, &p);
    draw_waypoints(f, &p);
    draw_walls(f, &p);
    draw_marks(f, &p);
    draw_nav_paths(f, &p);
    draw_discs(f, &p);
    fprintf(f, "</g>\n");
    draw_footer(f, &p);
    fprintf(f, "</svg>\n");
    free(p.final_pos);
    free(p.radius);
    return ferror(f) ? -1 : 0;
}
