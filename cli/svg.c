/* SPDX-License-Identifier: MIT */
/* SVG picture of a run. Coordinates are metres in the simulation (y up); the picture maps
 * them to pixels with y flipped so that text stays upright. It is drawn as the demo page
 * draws (web/app.js): each agent coloured by the direction of its goal, start and goal marks
 * over the trajectories, and with --svg-trail only the last seconds of each one, fading. The
 * agents come from a source (svg.h), visited in index order once per layer that needs them,
 * so that a source that streams them (orca-mpi's) never holds them all. */
#define _POSIX_C_SOURCE 200809L
#include "svg.h"

#include "text.h" /* the library's UTF-8 reader (src/text.h) */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_MAX_TRACKED 20000    /* trajectories drawn for at most this many agents */
#define SVG_POINT_BUDGET 100000  /* trajectory samples kept, all agents together */
#define SVG_MIN_POINTS 16        /* samples kept per agent, at least */
#define SVG_MAX_POINTS 8192      /* ... and at most (a whole run: half of them after halving) */
#define SVG_TRAIL_POINTS 256     /* samples per agent of a trail, at most */
#define SVG_PLOT_PX 1000.0       /* the longer side of the plot, pixels */
#define SVG_MIN_WIDTH 820.0      /* room for the caption */
#define SVG_MARGIN 24.0
#define SVG_CAPTION_H 96.0
#define SVG_FOOTER_H 56.0
#define SVG_MARKER 3.0           /* start and goal marks, pixels */
#define SVG_HUES 12              /* colours by goal direction, as the demo page's */
#define SVG_FADES 4              /* shades a trail fades through */
#define SVG_TURN 6.283185307179586 /* 2 pi: drawing only, the simulation uses no angles */

typedef struct fpoint {
    float x, y;
} fpoint;

struct svg_rec {
    int agent_count;
    int stride;      /* trajectory of agent i is kept when i % stride == 0 */
    int tracked;     /* agents with a trajectory */
    int cap;         /* samples per tracked agent the buffer holds */
    int count;       /* samples held per tracked agent */
    int oldest;      /* the slot of the oldest sample (a trail's ring; 0 for a whole run) */
    uint64_t interval;    /* steps between samples */
    uint64_t newest;      /* the run step of the newest sample */
    uint64_t last_step;   /* the run step of the current state */
    uint64_t trail_steps; /* 0: the whole run; else the trail's length in steps */
    double trail_seconds;
    fpoint *samples; /* tracked x cap */
    orca_vec2 *start;   /* the tracked agents' starts and goals when recording began (they
                           may leave: exits, docs/navigation.md) */
    orca_goal *goal;
    unsigned char *hue; /* their colours: SVG_HUES directions, or SVG_HUES for no direction */
};

/* --- colours ---------------------------------------------------------------------------------- */

/* The colour of a direction (dx, dy), as the demo page buckets it (web/page-sim.mjs): one of
 * SVG_HUES round the colour wheel, east red; SVG_HUES (grey) for no direction. */
static int direction_hue(double dx, double dy)
{
    if (!(dx != 0.0 || dy != 0.0) || !isfinite(dx) || !isfinite(dy)) {
        return SVG_HUES;
    }
    long k = lround(atan2(dy, dx) / SVG_TURN * SVG_HUES);
    return (int)(((k % SVG_HUES) + SVG_HUES) % SVG_HUES);
}

/* An agent's colour: the direction from its start to its goal point (to the point of its goal
 * set it heads for; to its first waypoint when its goal is its start, as on a looping route),
 * or of its fixed preferred velocity; grey without a goal. */
static int agent_hue(const orca_goal *g, orca_vec2 start, const orca_vec2 *first_waypoint)
{
    if (g->kind == ORCA_GOAL_VELOCITY) {
        return direction_hue(g->target.x, g->target.y);
    }
    if (g->kind != ORCA_GOAL_POINT && g->kind != ORCA_GOAL_SET) {
        return SVG_HUES;
    }
    orca_vec2 to = g->target;
    if (to.x == start.x && to.y == start.y && first_waypoint) {
        to = *first_waypoint;
    }
    return direction_hue(to.x - start.x, to.y - start.y);
}

/* "#rrggbb" of a colour bucket: HSL with saturation 0.68 and lightness 0.47 (the demo page's
 * hueRgb), grey (#6b7280) for SVG_HUES. */
static void hue_colour(int hue, char out[8])
{
    if (hue >= SVG_HUES) {
        snprintf(out, 8, "#6b7280");
        return;
    }
    double h = (double)hue * 6.0 / SVG_HUES; /* sextant of the wheel */
    double c = (1.0 - fabs(2.0 * 0.47 - 1.0)) * 0.68;
    double x = c * (1.0 - fabs(fmod(h, 2.0) - 1.0));
    double m = 0.47 - c / 2.0;
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

/* Writes s as XML 1.0 character data or attribute text: &<>"' as entities, characters XML
 * does not allow (most C0 controls, U+FFFE, U+FFFF) and bytes that are not UTF-8 as
 * &#xFFFD;. */
static void xml_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp = 0;
        int len = orca_utf8_next(p, &cp);
        if (len == 0) {
            fputs("&#xFFFD;", f);
            ++p;
            continue;
        }
        switch (cp) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\t':
        case '\n':
        case '\r': fprintf(f, "&#x%X;", (unsigned)cp); break;
        default:
            /* XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-]. */
            if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF) {
                fputs("&#xFFFD;", f);
            } else {
                fwrite(p, 1, (size_t)len, f);
            }
        }
        p += len;
    }
}

/* --- recording -------------------------------------------------------------------------------- */

/* The slot of sample j (0: the oldest) in a tracked agent's buffer. */
static int slot_of(const svg_rec *r, int j)
{
    return (r->oldest + j) % r->cap;
}

/* The run step of sample j (0: the oldest). */
static uint64_t step_of(const svg_rec *r, int j)
{
    return r->newest - (uint64_t)(r->count - 1 - j) * r->interval;
}

/* A whole run's buffer is full: keep every other sample and halve the sampling rate, so the
 * samples stay evenly spaced from the first step to the last. */
static void halve(svg_rec *r)
{
    int kept = (r->count + 1) / 2;
    for (int t = 0; t < r->tracked; ++t) {
        fpoint *s = r->samples + (size_t)t * (size_t)r->cap;
        for (int j = 0; j < kept; ++j) {
            s[j] = s[2 * j];
        }
    }
    r->count = kept;
    r->interval *= 2;
    r->newest = (uint64_t)(kept - 1) * r->interval;
}

/* Appends the current positions as the newest sample, taken at run step `step` (a trail's
 * ring drops its oldest when full). Returns 0, or -1 when where failed. */
static int record(svg_rec *r, uint64_t step, svg_where_fn *where, void *self)
{
    int slot;
    if (r->count < r->cap) {
        slot = slot_of(r, r->count);
    } else {
        slot = r->oldest; /* a trail: the oldest makes room */
        r->oldest = (r->oldest + 1) % r->cap;
        r->count--;
    }
    int before = r->count > 0 ? slot_of(r, r->count - 1) : -1;
    for (int t = 0; t < r->tracked; ++t) {
        orca_vec2 p;
        fpoint *s = r->samples + (size_t)t * (size_t)r->cap;
        int st = where(self, t, &p);
        if (st == 0 && before >= 0) {
            s[slot] = s[before]; /* it left: its trajectory ends where it was */
            continue;
        }
        if (st != 1) {
            return -1;
        }
        /* Beyond float's range: infinity, left out of the picture (no overflowing
         * conversion). */
        s[slot].x = fabs(p.x) < 3e38 ? (float)p.x : INFINITY;
        s[slot].y = fabs(p.y) < 3e38 ? (float)p.y : INFINITY;
    }
    r->count++;
    r->newest = step;
    return 0;
}

/* The agents with a trajectory: every stride-th (at most SVG_MAX_TRACKED), and room for their
 * starts, goals and colours. Returns 0, or -1 when out of memory. */
static int track_agents(svg_rec *r, int agent_count)
{
    r->agent_count = agent_count;
    r->stride = (r->agent_count + SVG_MAX_TRACKED - 1) / SVG_MAX_TRACKED;
    if (r->stride < 1) {
        r->stride = 1;
    }
    r->tracked = (r->agent_count + r->stride - 1) / r->stride;
    size_t nt = (size_t)(r->tracked ? r->tracked : 1);
    r->start = calloc(nt, sizeof *r->start);
    r->goal = calloc(nt, sizeof *r->goal);
    r->hue = calloc(nt, 1);
    return r->start && r->goal && r->hue ? 0 : -1;
}

/* The sampling: a whole run starts with every step and a buffer of up to SVG_MAX_POINTS per
 * agent within the budget; a trail keeps a ring of the samples of its last trail_steps. */
static void plan_samples(svg_rec *r, double dt)
{
    int per = r->tracked > 0 ? SVG_POINT_BUDGET / r->tracked : SVG_MAX_POINTS;
    r->interval = 1;
    if (r->trail_seconds > 0.0) {
        double steps = ceil(r->trail_seconds / dt);
        r->trail_steps = steps >= 1.0 ? (steps < 1e12 ? (uint64_t)steps : (uint64_t)1e12) : 1;
        per = per < SVG_TRAIL_POINTS ? per : SVG_TRAIL_POINTS;
        per = per > SVG_MIN_POINTS ? per : SVG_MIN_POINTS;
        /* per - 2 intervals span the trail: its oldest point is at most one interval older
         * than the trail, and is left out when drawing */
        r->interval = (r->trail_steps + (uint64_t)per - 3) / (uint64_t)(per - 2);
        r->cap = (int)(r->trail_steps / r->interval) + 2;
    } else {
        per = per < SVG_MAX_POINTS ? per : SVG_MAX_POINTS;
        r->cap = per > SVG_MIN_POINTS ? per : SVG_MIN_POINTS;
    }
}

svg_rec *svg_rec_create(int agent_count, double dt, double trail_seconds)
{
    svg_rec *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    r->trail_seconds = trail_seconds;
    if (track_agents(r, agent_count) != 0) {
        svg_rec_destroy(r);
        return NULL;
    }
    plan_samples(r, dt);
    size_t n = (size_t)r->tracked * (size_t)r->cap;
    r->samples = malloc((n ? n : 1) * sizeof *r->samples);
    if (!r->samples) {
        svg_rec_destroy(r);
        return NULL;
    }
    return r;
}

int svg_rec_tracked(const svg_rec *r)
{
    return r->tracked;
}

int svg_rec_stride(const svg_rec *r)
{
    return r->stride;
}

void svg_rec_track(svg_rec *r, int t, orca_vec2 start, const orca_goal *goal,
                   const orca_vec2 *first_waypoint)
{
    r->start[t] = start;
    r->goal[t] = *goal;
    r->hue[t] = (unsigned char)agent_hue(goal, start, first_waypoint);
}

int svg_rec_due(const svg_rec *r, uint64_t run_step)
{
    if (run_step % r->interval != 0) {
        return 0;
    }
    /* a whole run's full buffer halves first, and then samples every other such step */
    return !(r->trail_steps == 0 && r->count == r->cap && run_step % (2 * r->interval) != 0);
}

int svg_rec_sample(svg_rec *r, uint64_t run_step, svg_where_fn *where, void *self)
{
    r->last_step = run_step;
    if (run_step % r->interval != 0) {
        return 0;
    }
    if (r->trail_steps == 0 && r->count == r->cap) {
        halve(r);
        if (run_step % r->interval != 0) {
            return 0;
        }
    }
    return record(r, run_step, where, self) < 0 ? -1 : 0;
}

void svg_rec_destroy(svg_rec *r)
{
    if (r) {
        free(r->samples);
        free(r->start);
        free(r->goal);
        free(r->hue);
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

/* What the layers of one picture share: the source, the record, the tracked agents' final
 * state and the mapping to pixels. Every agent's final state is read from the source once per
 * layer that needs it (the box, the discs), never held all at once. */
typedef struct picture {
    const svg_source *src;
    const svg_rec *rec;
    int ns;              /* wall segments */
    /* per tracked agent: whether it is still in the run, and then where it is and its goal */
    unsigned char *present;
    orca_vec2 *now_pos;
    orca_goal *now_goal;
    double *box;         /* while reading the agents: the box grown */
    int failed;          /* a visit failed */
    FILE *f;             /* while drawing a layer of agents */
    view v;
    double plot_w, plot_h; /* the plot, pixels */
    double width, height;  /* the whole picture, pixels */
} picture;

/* The box grown by an agent's final disc, start, goal point and waypoints; a tracked agent's
 * final state kept. */
static int read_agent(void *ctx, const svg_agent *a)
{
    picture *p = ctx;
    double *box = p->box;
    grow_box(box, a->position.x, a->position.y, a->radius);
    grow_box(box, a->start.x, a->start.y, 0.0);
    if (a->goal.kind == ORCA_GOAL_POINT || a->goal.kind == ORCA_GOAL_SET) {
        grow_box(box, a->goal.target.x, a->goal.target.y, 0.0);
    }
    for (int k = 0; k < a->waypoint_count; ++k) {
        grow_box(box, a->waypoints[k].x, a->waypoints[k].y, 0.0);
    }
    if (a->track >= 0 && a->track < p->rec->tracked) {
        p->present[a->track] = 1;
        p->now_pos[a->track] = a->position;
        p->now_goal[a->track] = a->goal;
    }
    return 0;
}

/* The final state: the box of every start, goal point, waypoint and final disc into box, and
 * the tracked agents' final state. Returns 0, or -1 when out of memory or the agents cannot be
 * read. */
static int read_agents(picture *p, double *box)
{
    size_t nt = (size_t)(p->rec->tracked ? p->rec->tracked : 1);
    p->present = calloc(nt, 1);
    p->now_pos = malloc(nt * sizeof *p->now_pos);
    p->now_goal = malloc(nt * sizeof *p->now_goal);
    if (!p->present || !p->now_pos || !p->now_goal) {
        return -1;
    }
    p->box = box;
    return p->src->agents(p->src->self, 0, read_agent, p);
}

/* An agent's colour in the picture: a tracked agent keeps its trajectory's (a goal set's point
 * may have changed). */
static int colour_of(const picture *p, const svg_agent *a)
{
    if (a->track >= 0 && a->track < p->rec->tracked) {
        return p->rec->hue[a->track];
    }
    return agent_hue(&a->goal, a->start, a->waypoint_count > 0 ? &a->waypoints[0] : NULL);
}

/* The box grown by the trajectories and the boundary loops, and by the walls up to 15% of
 * the agents' extent on each side: walls may reach far beyond the agents (a wall with a gap,
 * a long corridor), and the plot is clipped. */
static void grow_box_scene(const picture *p, double *box)
{
    const svg_rec *r = p->rec;
    for (int t = 0; t < r->tracked; ++t) {
        const fpoint *s = r->samples + (size_t)t * (size_t)r->cap;
        for (int j = 0; j < r->count; ++j) {
            grow_box(box, s[slot_of(r, j)].x, s[slot_of(r, j)].y, 0.0);
        }
    }
    if (!(box[0] <= box[1])) {
        box[0] = -1.0; box[1] = 1.0; box[2] = -1.0; box[3] = 1.0;
    }
    const svg_source *src = p->src;
    for (int i = 0; i < src->boundary_count; ++i) {
        int np = 0;
        orca_vec2 *pts = src->boundary(src->self, i, &np);
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
            if (src->segment(src->self, i, &a, &b) == 0) {
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

/* The caption's lines from the figures. */
typedef struct caption {
    char title[300], l1[700], l2[300], l3[1200];
} caption;

static void caption_of(const svg_figures *fig, caption *c)
{
    char arrival[300];
    svg_format_arrival(fig, arrival, sizeof arrival);
    const char *what = fig->description;
    snprintf(c->title, sizeof c->title, "orca · %s%s%s", fig->name, what ? " — " : "",
             what ? what : "");
    /* the walls: segments and walkable-area boundary loops */
    char walls[96], loops[48] = "";
    if (fig->boundaries > 0) {
        snprintf(loops, sizeof loops, "%d boundary loop%s", fig->boundaries,
                 fig->boundaries == 1 ? "" : "s");
    }
    if (fig->segments > 0) {
        snprintf(walls, sizeof walls, "%d wall segment%s%s%s", fig->segments,
                 fig->segments == 1 ? "" : "s", loops[0] ? ", " : "", loops);
    } else {
        snprintf(walls, sizeof walls, "%s", loops[0] ? loops : "no walls");
    }
    snprintf(c->l1, sizeof c->l1, "%d agent%s, %s · %llu step%s of %g s = %.6g s simulated · %s",
             fig->agents, fig->agents == 1 ? "" : "s", walls, (unsigned long long)fig->last_step,
             fig->last_step == 1 ? "" : "s", fig->dt, (double)fig->last_step * fig->dt, arrival);
    snprintf(c->l2, sizeof c->l2,
             "deepest overlap (fraction of radius): agent–agent %.3g, agent–wall %.3g · "
             "fallback solves %llu",
             fig->agent_overlap, fig->wall_overlap, (unsigned long long)fig->fallbacks);
    snprintf(c->l3, sizeof c->l3, "state hash %s (bits version %d) · %s · orca %s", fig->hash,
             orca_bits_version(), fig->source, orca_version());
}

/* The document's start, the background, the plot's frame and the caption above it. */
static void draw_caption(FILE *f, const picture *p, const caption *cap)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
            p->width, p->height, p->width, p->height);
    fprintf(f, "<title>orca run: ");
    xml_text(f, cap->title);
    fprintf(f, "</title>\n");
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f6f6f3\" "
               "stroke=\"#d0d0c8\"/>\n",
            p->v.left, p->v.top, p->plot_w, p->plot_h);
    fprintf(f, "<g fill=\"#222\">\n<text x=\"%.0f\" y=\"30\" font-size=\"20\" "
               "font-weight=\"bold\">",
            SVG_MARGIN);
    xml_text(f, cap->title);
    fprintf(f, "</text>\n");
    const char *lines[3] = {cap->l1, cap->l2, cap->l3};
    for (int i = 0; i < 3; ++i) {
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\">", SVG_MARGIN,
                52.0 + 18.0 * (double)i);
        xml_text(f, lines[i]);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</g>\n");
}

/* Walkable-area boundaries (docs/extensions.md): the loops as one path, the walkable area
 * (winding number non-zero: outer loops counter-clockwise, holes clockwise) shaded. */
static void draw_boundaries(FILE *f, const picture *p)
{
    const svg_source *src = p->src;
    int nbd = src->boundary_count;
    if (nbd == 0) {
        return;
    }
    fprintf(f, "<path fill=\"#e3ecd9\" fill-rule=\"nonzero\" stroke=\"#4a5d3a\" "
               "stroke-width=\"2\" stroke-linejoin=\"round\" d=\"");
    for (int i = 0; i < nbd; ++i) {
        int np = 0;
        orca_vec2 *pts = src->boundary(src->self, i, &np);
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

/* One trajectory's points in pixels, oldest first, with their ages in steps: the samples no
 * older than max_age (all of them: UINT64_MAX), then the agent's current position when it is
 * still in the simulation. Points nearer than half a pixel to the one before are left out
 * (standing still), so are points beyond any picture. Returns the count. */
typedef struct trace_point {
    double x, y;
    uint64_t age;
} trace_point;

static int trace_of(const picture *p, int t, uint64_t max_age, trace_point *out)
{
    const svg_rec *r = p->rec;
    const fpoint *s = r->samples + (size_t)t * (size_t)r->cap;
    int m = 0;
    for (int j = 0; j <= r->count; ++j) {
        double x, y;
        uint64_t age;
        if (j < r->count) {
            age = r->last_step - step_of(r, j);
            x = s[slot_of(r, j)].x;
            y = s[slot_of(r, j)].y;
        } else {
            if (!p->present[t]) {
                break;
            }
            age = 0;
            x = p->now_pos[t].x;
            y = p->now_pos[t].y;
        }
        if (age > max_age || !drawable(x, y)) {
            continue; /* older than the trail, or beyond any picture (or beyond float) */
        }
        trace_point q = {px(&p->v, x), py(&p->v, y), age};
        if (m > 0 && j < r->count && fabs(q.x - out[m - 1].x) < 0.4 &&
            fabs(q.y - out[m - 1].y) < 0.4) {
            continue;
        }
        out[m++] = q;
    }
    return m;
}

/* Writes the points from..to (inclusive) as one polyline. */
static void polyline(FILE *f, const trace_point *q, int from, int to, const char *col)
{
    fprintf(f, "<polyline stroke=\"%s\" points=\"", col);
    for (int k = from; k <= to; ++k) {
        fprintf(f, "%s%.1f,%.1f", k > from ? " " : "", q[k].x, q[k].y);
    }
    fprintf(f, "\"/>\n");
}

/* Trajectories of the whole run (sampled), each ending at the agent's final position. */
static void draw_trajectories(FILE *f, const picture *p, trace_point *q)
{
    const svg_rec *r = p->rec;
    fprintf(f, "<g fill=\"none\" stroke-width=\"1.3\" stroke-opacity=\"0.75\" "
               "stroke-linejoin=\"round\" stroke-linecap=\"round\">\n");
    for (int t = 0; t < r->tracked; ++t) {
        char col[8];
        hue_colour(r->hue[t], col);
        int m = trace_of(p, t, UINT64_MAX, q);
        if (m > 0) {
            polyline(f, q, 0, m - 1, col);
        }
    }
    fprintf(f, "</g>\n");
}

/* Trails (--svg-trail): each agent's last seconds, fading in SVG_FADES shades from the oldest
 * part (faint) to the newest; each part ends where the next begins. */
static void draw_trails(FILE *f, const picture *p, trace_point *q)
{
    const svg_rec *r = p->rec;
    uint64_t span = r->trail_steps;
    fprintf(f, "<g fill=\"none\" stroke-width=\"2\" stroke-linejoin=\"round\" "
               "stroke-linecap=\"round\">\n");
    for (int level = SVG_FADES - 1; level >= 0; --level) {
        /* the part of ages in [lo, hi]; level 0 the newest */
        uint64_t lo = span * (uint64_t)level / SVG_FADES;
        uint64_t hi = span * (uint64_t)(level + 1) / SVG_FADES;
        fprintf(f, "<g stroke-opacity=\"%.2f\">\n", 0.85 * (1.0 - (double)level / SVG_FADES));
        for (int t = 0; t < r->tracked; ++t) {
            int m = trace_of(p, t, span, q);
            int from = 0;
            while (from < m && q[from].age > hi) {
                ++from;
            }
            int to = from;
            while (to + 1 < m && q[to + 1].age >= lo) {
                ++to;
            }
            if (from > 0) {
                --from; /* joined to the older part */
            }
            if (to > from) {
                char col[8];
                hue_colour(r->hue[t], col);
                polyline(f, q, from, to, col);
            }
        }
        fprintf(f, "</g>\n");
    }
    fprintf(f, "</g>\n");
}

/* Waypoint paths (docs/extensions.md): faint dashed lines from each waypoint to the next, to
 * the goal, and back to the first when the agent loops. */
static int draw_waypoint_path(void *ctx, const svg_agent *a)
{
    const picture *p = ctx;
    FILE *f = p->f;
    int wn = a->waypoint_count;
    if (wn <= 0) {
        return 0;
    }
    char col[8];
    hue_colour(colour_of(p, a), col);
    fprintf(f, "<polyline stroke=\"%s\" points=\"", col);
    for (int k = 0; k <= wn + (a->waypoint_loop ? 1 : 0); ++k) {
        orca_vec2 q = k < wn ? a->waypoints[k] : k == wn ? a->goal.target : a->waypoints[0];
        if (drawable(q.x, q.y)) {
            fprintf(f, "%s%.1f,%.1f", k ? " " : "", px(&p->v, q.x), py(&p->v, q.y));
        }
    }
    fprintf(f, "\"/>\n");
    for (int k = 0; k < wn; ++k) {
        if (drawable(a->waypoints[k].x, a->waypoints[k].y)) {
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" stroke=\"%s\"/>\n",
                    px(&p->v, a->waypoints[k].x), py(&p->v, a->waypoints[k].y), SVG_MARKER * 0.6,
                    col);
        }
    }
    return 0;
}

static int draw_waypoints(FILE *f, picture *p)
{
    fprintf(f, "<g fill=\"none\" stroke-width=\"1\" stroke-opacity=\"0.35\" "
               "stroke-dasharray=\"4 3\">\n");
    int rc = p->src->agents(p->src->self, 1, draw_waypoint_path, p);
    fprintf(f, "</g>\n");
    return rc;
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
        if (p->src->segment(p->src->self, i, &a, &b) == 0 && drawable(a.x, a.y) &&
            drawable(b.x, b.y)) {
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    px(&p->v, a.x), py(&p->v, a.y), px(&p->v, b.x), py(&p->v, b.y));
        }
    }
    fprintf(f, "</g>\n");
}

/* Starts (small rings) and goals (small crosses) of the agents with a trajectory, over the
 * trajectories and walls and under the agents: drawn twice, first wide in white (a halo that
 * keeps them visible over the trajectories), then in the agent's colour. An agent still in
 * the simulation shows its goal now (a goal set's point may change). */
static void draw_marks(FILE *f, const picture *p)
{
    const svg_rec *r = p->rec;
    const double mk = SVG_MARKER;
    for (int pass = 0; pass < 2; ++pass) {
        fprintf(f, "<g fill=\"none\" stroke-width=\"%s\"%s>\n", pass ? "1.2" : "3",
                pass ? "" : " stroke=\"#fff\" stroke-opacity=\"0.9\"");
        for (int t = 0; t < r->tracked; ++t) {
            orca_goal g = p->present[t] ? p->now_goal[t] : r->goal[t];
            orca_vec2 start = r->start[t];
            char col[24] = "";
            if (pass) {
                char hex[8];
                hue_colour(r->hue[t], hex);
                snprintf(col, sizeof col, " stroke=\"%s\"", hex);
            }
            if (drawable(start.x, start.y)) {
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"%s/>", px(&p->v, start.x),
                        py(&p->v, start.y), mk, col);
            }
            if ((g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET) &&
                drawable(g.target.x, g.target.y)) {
                double gx = px(&p->v, g.target.x), gy = py(&p->v, g.target.y);
                fprintf(f, "<path d=\"M%.1f %.1fl%.1f %.1fm0 %.1fl%.1f %.1f\"%s/>", gx - mk,
                        gy - mk, 2 * mk, 2 * mk, -2 * mk, -2 * mk, 2 * mk, col);
            }
            fputc('\n', f);
        }
        fprintf(f, "</g>\n");
    }
}

/* Navigation (docs/navigation.md): each tracked agent's path from where it stands, round the
 * corners still ahead, to its goal: thin dashed lines. */
static int draw_nav_path(void *ctx, const svg_agent *a)
{
    const picture *p = ctx;
    FILE *f = p->f;
    const orca_nav_agent *na = a->nav;
    if (!na || !drawable(a->position.x, a->position.y)) {
        return 0;
    }
    char col[8];
    hue_colour(colour_of(p, a), col);
    fprintf(f, "<polyline stroke=\"%s\" points=\"%.1f,%.1f", col, px(&p->v, a->position.x),
            py(&p->v, a->position.y));
    for (int k = na->corner; k < a->corner_count; ++k) {
        orca_vec2 pts[2] = {a->corners[k].enter, a->corners[k].leave};
        for (int e = 0; e < 2; ++e) {
            if (drawable(pts[e].x, pts[e].y)) {
                fprintf(f, " %.1f,%.1f", px(&p->v, pts[e].x), py(&p->v, pts[e].y));
            }
        }
    }
    if (drawable(na->goal.x, na->goal.y)) {
        fprintf(f, " %.1f,%.1f", px(&p->v, na->goal.x), py(&p->v, na->goal.y));
    }
    fprintf(f, "\"/>\n");
    return 0;
}

static int draw_nav_paths(FILE *f, picture *p)
{
    if (!p->src->navigation) {
        return 0;
    }
    fprintf(f, "<g fill=\"none\" stroke-width=\"1\" stroke-opacity=\"0.6\" "
               "stroke-dasharray=\"3 2\">\n");
    int rc = p->src->agents(p->src->self, 1, draw_nav_path, p);
    fprintf(f, "</g>\n");
    return rc;
}

/* Final positions: discs of the true radius. */
static int draw_disc(void *ctx, const svg_agent *a)
{
    const picture *p = ctx;
    if (!drawable(a->position.x, a->position.y)) {
        return 0;
    }
    char col[8];
    hue_colour(colour_of(p, a), col);
    fprintf(p->f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\" stroke=\"%s\"/>\n",
            px(&p->v, a->position.x), py(&p->v, a->position.y), a->radius * p->v.scale, col, col);
    return 0;
}

static int draw_discs(FILE *f, picture *p)
{
    fprintf(f, "<g fill-opacity=\"0.6\" stroke-width=\"1\">\n");
    int rc = p->src->agents(p->src->self, 0, draw_disc, p);
    fprintf(f, "</g>\n");
    return rc;
}

/* The legend's items flow left to right from x and wrap to a second row at the right edge;
 * each is a mark 20 pixels wide and a text of about 6.6 pixels a character. */
typedef struct legend {
    FILE *f;
    double x, y;       /* where the next item's mark begins; the text's baseline */
    double left, right;
} legend;

static void legend_item(legend *l, const char *mark_fmt, const char *text)
{
    double w = 24.0 + 6.6 * (double)strlen(text) + 16.0;
    if (l->x + w > l->right && l->x > l->left) {
        l->x = l->left;
        l->y += 18.0;
    }
    /* mark_fmt draws the mark at (x, y): centre x + 9, the text's middle y - 4 */
    fprintf(l->f, mark_fmt, l->x + 9.0, l->y - 4.0);
    fprintf(l->f, "<text x=\"%.1f\" y=\"%.1f\">", l->x + 24.0, l->y);
    xml_text(l->f, text);
    fprintf(l->f, "</text>\n");
    l->x += w;
}

/* The colour key: a spoke in each direction's colour round the point. */
static void draw_colour_key(FILE *f, double cx, double cy)
{
    fprintf(f, "<g stroke-width=\"2\" stroke-linecap=\"round\">");
    for (int k = 0; k < SVG_HUES; ++k) {
        char col[8];
        hue_colour(k, col);
        double a = SVG_TURN * (double)k / SVG_HUES;
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1f\" stroke=\"%s\"/>", cx + 3.0 * cos(a),
                cy - 3.0 * sin(a), cx + 8.0 * cos(a), cy - 8.0 * sin(a), col);
    }
    fprintf(f, "</g>");
}

/* Under the plot: the scale bar at the left, the legend after it. */
static void draw_footer(FILE *f, const picture *p)
{
    const view *v = &p->v;
    const svg_rec *r = p->rec;
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

    legend l = {f, bx + bar_px + 70.0, by, bx + bar_px + 70.0, p->width - SVG_MARGIN};
    fprintf(f, "<g font-size=\"12\" fill=\"#222\">\n");
    draw_colour_key(f, l.x + 9.0, l.y - 4.0);
    legend_item(&l, "", "colour: direction of the goal");
    legend_item(&l,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"none\" stroke=\"#444\" "
                "stroke-width=\"1.2\"/>",
                "start");
    legend_item(&l,
                "<path d=\"M%.1f %.1fm-3 -3l6 6m0 -6l-6 6\" stroke=\"#444\" "
                "stroke-width=\"1.2\"/>",
                "goal");
    char what[160];
    if (r->trail_steps > 0) {
        snprintf(what, sizeof what, "trail: the last %g s%s", r->trail_seconds,
                 r->stride > 1 ? " (a sample of agents)" : "");
    } else if (r->interval == 1) {
        snprintf(what, sizeof what, "trajectory%s, a point every step",
                 r->stride > 1 ? " (a sample of agents)" : "");
    } else {
        snprintf(what, sizeof what, "trajectory%s, a point every %llu steps",
                 r->stride > 1 ? " (a sample of agents)" : "", (unsigned long long)r->interval);
    }
    legend_item(&l, "<path d=\"M%.1f %.1fm-9 0h18\" stroke=\"#888\" stroke-width=\"1.5\"/>",
                what);
    legend_item(&l,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"#888\" fill-opacity=\"0.6\" "
                "stroke=\"#888\"/>",
                "agent now (disc = true radius)");
    if (p->ns > 0) {
        legend_item(&l, "<path d=\"M%.1f %.1fm-9 0h18\" stroke=\"#333\" stroke-width=\"3\"/>",
                    "wall");
    }
    fprintf(f, "</g>\n");
}

const char *svg_scene_description(int kind)
{
    switch (kind) {
    case ORCA_SCENE_CIRCLE: return "agents on a circle walk to the opposite point";
    case ORCA_SCENE_CROSSING: return "two blocks of agents cross at right angles";
    case ORCA_SCENE_WALL_GAP: return "a crowd passes through a gap in a wall";
    case ORCA_SCENE_CORRIDOR: return "two groups pass each other in a corridor";
    case ORCA_SCENE_RANDOM: return "random starts and goals in a square";
    default: return NULL;
    }
}

void svg_format_arrival(const svg_figures *fig, char *buf, size_t size)
{
    if (fig->all_arrived_step >= 0) {
        snprintf(buf, size, "%s%d agent%s arrived at step %lld (t = %.6g s)",
                 fig->agents == 1 ? "" : "all ", fig->agents, fig->agents == 1 ? "" : "s",
                 (long long)fig->all_arrived_step, (double)fig->all_arrived_step * fig->dt);
        return;
    }
    char loops[80] = "";
    if (fig->looping > 0) {
        snprintf(loops, sizeof loops, "%d loop%s %s waypoints for ever", fig->looping,
                 fig->looping == 1 ? "s" : "", fig->looping == 1 ? "its" : "their");
    }
    const char *cap = fig->stopped_by_cap ? "the step cap stopped the run" : "";
    snprintf(buf, size, "%d of %d agent%s arrived, %d did not%s%s%s%s%s", fig->arrived,
             fig->agents, fig->agents == 1 ? "" : "s", fig->agents - fig->arrived,
             loops[0] || cap[0] ? " (" : "", loops, loops[0] && cap[0] ? "; " : "", cap,
             loops[0] || cap[0] ? ")" : "");
}

/* The picture's layers, bottom to top: boundaries, waypoint paths, trajectories or trails,
 * walls, navigation paths, starts and goals, the agents now; everything in metres clipped to
 * the plot. */
int svg_draw(const svg_rec *r, const svg_source *src, const svg_figures *fig, FILE *f)
{
    picture p;
    memset(&p, 0, sizeof p);
    p.src = src;
    p.rec = r;
    p.ns = src->segment_count;
    p.f = f;
    double box[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    trace_point *q = malloc((size_t)(r->cap + 1) * sizeof *q);
    int rc = -1;
    if (q && read_agents(&p, box) == 0) {
        caption cap;
        caption_of(fig, &cap);
        grow_box_scene(&p, box);
        layout(&p, box);
        draw_caption(f, &p, &cap);
        fprintf(f, "<clipPath id=\"plot\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%.1f\"/></clipPath>\n<g clip-path=\"url(#plot)\">\n",
                p.v.left, p.v.top, p.plot_w, p.plot_h);
        draw_boundaries(f, &p);
        rc = draw_waypoints(f, &p);
        if (r->trail_steps > 0) {
            draw_trails(f, &p, q);
        } else {
            draw_trajectories(f, &p, q);
        }
        draw_walls(f, &p);
        rc |= draw_nav_paths(f, &p);
        draw_marks(f, &p);
        rc |= draw_discs(f, &p);
        fprintf(f, "</g>\n");
        draw_footer(f, &p);
        fprintf(f, "</svg>\n");
        rc = rc != 0 || ferror(f) ? -1 : 0;
    }
    free(q);
    free(p.present);
    free(p.now_pos);
    free(p.now_goal);
    return rc;
}
