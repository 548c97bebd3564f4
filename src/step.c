/* SPDX-License-Identifier: MIT */
/* Neighbour selection and constraint order (docs/algorithm.md §11), the step (§12) with its
 * check before anything is applied (docs/limits.md), and the queries that show an agent's
 * neighbours, constraints and the deepest overlaps. The per-agent code is sim_step.inc,
 * compiled here twice (scalar, and AVX2 where the CPU has it; SIMD128 in that wasm module). */
#include "sim_internal.h"
#include "sim_check.h"
#include "sim_peek.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCAN_CHUNK CAND_CHUNK

/* The squared distances Dot(d, d), d = pos[q] - p, of len <= SCAN_CHUNK positions into dist;
 * returns the mask of those < filt2 (bit q for pos[q]), without branches. With lay (the
 * layers of the same sorted positions: the extended path's layered search), only those whose
 * layers meet `want` (the searching agent's mask) count; the plain copies of the search pass
 * a constant NULL, so they compile without the test. */
static ORCA_ALWAYS_INLINE uint32_t filter_chunk(const orca_vec2 *pos, const uint32_t *lay,
                                                uint32_t want, int len, orca_vec2 p,
                                                double filt2, double *dist)
{
    uint32_t mask = 0;
    for (int q = 0; q < len; ++q) {
        orca_vec2 d = v2_sub(pos[q], p);
        double d2 = v2_dot(d, d);
        dist[q] = d2;
        uint32_t ok = d2 < filt2;
        if (lay) {
            ok &= (lay[q] & want) != 0;
        }
        mask |= ok << q;
    }
    return mask;
}

/* Offers the agents at sorted positions [begin, end) with squared distance < filt2, other
 * than self, to the sorted list out (n entries, capacity cap); returns the new n. The
 * distance filter runs without branches over chunks of the range (about half the agents in
 * a row pass it, which a branch would mispredict); the survivors are offered in order. */
static ORCA_ALWAYS_INLINE int scan_agents(const orca_sim *s, int32_t self, orca_vec2 p,
                                          double filt2, int32_t begin, int32_t end,
                                          neighbor *out, int n, int cap, const uint32_t *lay,
                                          uint32_t want)
{
    double dist[SCAN_CHUNK];
    for (int32_t k0 = begin; k0 < end; k0 += SCAN_CHUNK) {
        int len = end - k0 > SCAN_CHUNK ? SCAN_CHUNK : (int)(end - k0);
        uint32_t mask = filter_chunk(s->cell_pos + k0, lay ? lay + k0 : NULL, want, len, p,
                                     filt2, dist);
        while (mask) {
            int q = lowest_bit(mask);
            mask &= mask - 1;
            if (k0 + q != self) {
                n = neighbor_offer(s->cell_index, dist[q], k0 + q, out, n, cap);
            }
        }
    }
    return n;
}

/* The rest of grid_search from orca_grid_query's *next = next on: out of line (only a search
 * beyond the hashed grid's cells needs it), and reading the agent's position and neighbour
 * distance again, so that grid_search keeps nothing more for it. */
static ORCA_NOINLINE int grid_search_rest(const orca_sim *s, int32_t self, neighbor *out,
                                         int n, int cap, int64_t next, const uint32_t *lay,
                                         uint32_t want)
{
    grid_range ranges[GRID_RANGES];
    orca_vec2 p = s->cell_pos[self];
    double nd = s->par[s->cell_index[self]].neighbor_dist;
    double nd2 = nd * nd;
    while (next > 0) {
        int nr = orca_grid_query(s, p, nd, ranges, &next);
        for (int r = 0; r < nr; ++r) {
            n = scan_agents(s, self, p, nd2, ranges[r].begin, ranges[r].end, out, n, cap, lay,
                            want);
        }
    }
    return n;
}

/* The neighbour search of the agent at sorted position self (at p, neighbour distance nd,
 * nd2 = nd * nd) in the hashed grid of a sparse scene: every agent orca_grid_query finds
 * offered to the sorted list out; returns its length. */
static ORCA_ALWAYS_INLINE int grid_search(const orca_sim *s, int32_t self, orca_vec2 p, double nd,
                                          double nd2, neighbor *out, int cap,
                                          const uint32_t *lay, uint32_t want)
{
    grid_range ranges[GRID_RANGES];
    int64_t next = 0;
    int n = 0;
    int nr = orca_grid_query(s, p, nd, ranges, &next);
    for (int r = 0; r < nr; ++r) {
        n = scan_agents(s, self, p, nd2, ranges[r].begin, ranges[r].end, out, n, cap, lay, want);
    }
    return next > 0 ? grid_search_rest(s, self, out, n, cap, next, lay, want) : n;
}

/* Column of the dense grid holding x (relative to the origin): floor(x * inv) clamped to
 * 0..w-1, the same cell as cell_coord gives wherever that is inside the grid. */
static ORCA_ALWAYS_INLINE int32_t dense_column(double x, double inv, double wmax, int32_t w)
{
    double q = x * inv;
    return q < 0 ? 0 : (q >= wmax ? w - 1 : (int32_t)q);
}

/* Offers the agents of row r within half-width hw of p.x. */
static ORCA_ALWAYS_INLINE int scan_row(const orca_sim *s, int32_t self, orca_vec2 p, double filt2,
                                       int32_t r, double hw, double m, neighbor *out, int n,
                                       int cap, const uint32_t *lay, uint32_t want)
{
    double inv = s->inv_cell_x, wmax = (double)s->grid_w;
    int32_t c0 = dense_column(p.x - hw - m - s->origin_x, inv, wmax, s->grid_w);
    int32_t c1 = dense_column(p.x + hw + m - s->origin_x, inv, wmax, s->grid_w);
    const int32_t *row = s->cell_start + (int64_t)r * s->grid_w;
    return scan_agents(s, self, p, filt2, row[c0], row[c1 + 1], out, n, cap, lay, want);
}

CAND_DEFINE_COUNT_RANKS(cand_count_ranks, 2)

#if defined(__GNUC__) || defined(__clang__)

/* Candidate i's rank against the first 2 * nv candidates (d, +inf past the last): the lanes
 * where d2[j] < d2[i], summed as -1 each; its entry goes to out[rank]. Returns the rank. */
static ORCA_ALWAYS_INLINE int64_t rank_place_2(const cand_buf *c, int i, const v2d *d,
                                               int nv, neighbor *out)
{
    v2d b = c->d2[i] - (v2d){0}; /* broadcast: x - 0 is x */
    v2m a = (v2m)(d[0] < b) + (v2m)(d[1] < b);
    for (int k = 2; k < nv; k += 2) {
        a += (v2m)(d[k] < b) + (v2m)(d[k + 1] < b);
    }
    int64_t r = -(a[0] + a[1]);
    out[r].dist2 = c->d2[i];
    out[r].at = (int32_t)c->at[i];
    return r;
}

/* cand_rank_fn of the scalar scan: as the vector scan's (kernels.c), in vectors of two
 * lanes (SSE2, NEON, or lane by lane where there is no vector unit). Up to 16 candidates
 * each one's rank is counted against all at once and its entry written at out[rank] (out has
 * room for RANK_ROOM entries); otherwise cand_count_ranks and cand_place. */
static ORCA_ALWAYS_INLINE int cand_rank(cand_buf *c, const int32_t *cell_index, neighbor *out,
                                        int cap)
{
    int n = c->n;
    if (n > 16) {
        cand_count_ranks(c);
        return cand_place(c, cell_index, out, cap);
    }
    for (int q = 0; q < 16; ++q) {
        c->d2[n + q] = HUGE_VAL; /* never smaller */
    }
    v2d d[8];
    memcpy(d, c->d2, sizeof d);
    int64_t sum = 0;
    if (n <= 8) {
        for (int i = 0; i < n; ++i) {
            sum += rank_place_2(c, i, d, 4, out);
        }
    } else if (n <= 12) {
        for (int i = 0; i < n; ++i) {
            sum += rank_place_2(c, i, d, 6, out);
        }
    } else {
        for (int i = 0; i < n; ++i) {
            sum += rank_place_2(c, i, d, 8, out);
        }
    }
    return cand_ranked(c, n, cell_index, out, cap, 2 * sum);
}
#else
/* cand_rank_fn of the scalar scan */
static int cand_rank(cand_buf *c, const int32_t *cell_index, neighbor *out, int cap)
{
    cand_count_ranks(c);
    return cand_place(c, cell_index, out, cap);
}
#endif

#ifdef ORCA_HAVE_SIMD128
/* The box scan's filter in the SIMD128 module (sim_step.inc, STEP_KERNELS 2): the agents at
 * sorted positions k0 .. end - 1 (at most SCAN_CHUNK), two at a time without branches, their
 * squared distances and positions stored at c's candidates from c->n on, those that pass
 * (squared distance < filt2, before end, not self; with lay, layers meeting want) packed to
 * the front of each pair. Dot(d, d) is summed from the squares of p - pos = -d (the same
 * squares: a rounded difference only changes sign with its operands' order), x's then y's,
 * as filter_chunk. Each pair stores two entries (CAND_PAD covers the last) and reads one
 * position and layer past an odd end (CELL_POS_PAD). */
static ORCA_ALWAYS_INLINE void filter_pairs_simd128(cand_buf *c, const orca_vec2 *pos,
                                                    const uint32_t *lay, uint32_t want,
                                                    int32_t k0, int32_t end, int32_t self,
                                                    orca_vec2 p, double filt2)
{
    const v2d pxy = {p.x, p.y}, f2 = {filt2, filt2};
    const v2m endv = {end, end}, selfv = {self, self}, two = {2, 2};
    v2m at = {k0, (long long)k0 + 1};
    int cn = c->n;
    for (int32_t k = k0; k < end; k += 2) {
        v2d a, b;
        memcpy(&a, &pos[k], sizeof a); /* (x, y): one 128-bit load */
        memcpy(&b, &pos[k + 1], sizeof b);
        a = pxy - a;
        b = pxy - b;
        a = a * a;
        b = b * b;
        v2d d2 = __builtin_shufflevector(a, b, 0, 2) + __builtin_shufflevector(a, b, 1, 3);
        v2m in = (v2m)(d2 < f2) & (v2m)(at < endv) & (v2m)(at != selfv);
        if (lay) {
            const v2m l = {lay[k] & want, lay[k + 1] & want};
            in &= (v2m)(l != (v2m){0});
        }
        /* the first lane passes: the pair as it is; else the second lane first */
        v2m first = __builtin_shufflevector(in, in, 0, 0);
        v2d dsw = __builtin_shufflevector(d2, d2, 1, 0);
        v2m asw = __builtin_shufflevector(at, at, 1, 0);
        v2d dd = sel2(first, d2, dsw);
        v2m aa = (at & first) | (asw & ~first);
        memcpy(c->d2 + cn, &dd, sizeof dd);
        memcpy(c->at + cn, &aa, sizeof aa);
        cn -= (int)(in[0] + in[1]); /* -1 a passing lane */
        at += two;
    }
    c->n = cn;
}
#endif

static int neighbor_cmp(const void *pa, const void *pb)
{
    const neighbor *a = pa, *b = pb;
    if (a->dist2 < b->dist2) {
        return -1;
    }
    if (a->dist2 > b->dist2) {
        return 1;
    }
    return (a->index > b->index) - (a->index < b->index);
}

/* Segments within distance^2 <= limit2 of p, in order of (squared distance, index). */
static int select_segments(const orca_sim *s, worker *w, orca_vec2 p, double reach,
                           double limit2)
{
    if (s->segment_count == 0) {
        return 0;
    }
    double mg = 1e-9 * (d_abs(p.x) + d_abs(p.y) + reach) + MARGIN_ABS;
    double inv = s->inv_obstacle_cell;
    int32_t x0 = cell_coord(p.x - reach - mg, inv), x1 = cell_coord(p.x + reach + mg, inv);
    int32_t y0 = cell_coord(p.y - reach - mg, inv), y1 = cell_coord(p.y + reach + mg, inv);
    if (++w->query == 0) {
        memset(w->stamp, 0, (size_t)s->segment_count * sizeof *w->stamp);
        w->query = 1;
    }
    int n = 0;
    const cell_map *m = &s->obstacle_cells;
    /* The grid's cell is at least half the largest reach (build_obstacle_grid), so the block
     * is at most 6 by 6 cells. */
    for (int32_t cy = y0; cy <= y1; ++cy) {
        for (int32_t cx = x0; cx <= x1; ++cx) {
            int64_t h = cell_map_find(m, cell_key(cx, cy));
            if (h < 0) {
                continue;
            }
            int32_t begin = m->start[h], end = begin + m->count[h];
            for (int32_t q = begin; q < end; ++q) {
                int32_t k = s->obstacle_list[q];
                if (w->stamp[k] == w->query) {
                    continue;
                }
                w->stamp[k] = w->query;
                /* SegmentDistanceSquared of the ends relative to the agent */
                double d2 = orca_segment_distance_squared(v2_sub(s->seg_a[k], p),
                                                          v2_sub(s->seg_b[k], p));
                if (d2 <= limit2) {
                    w->obstacles[n].dist2 = d2;
                    w->obstacles[n].index = k;
                    ++n;
                }
            }
        }
    }
    if (n <= 16) {
        for (int a = 1; a < n; ++a) {
            neighbor t = w->obstacles[a];
            int b = a;
            while (b > 0 && neighbor_less(t.dist2, t.index, &w->obstacles[b - 1])) {
                w->obstacles[b] = w->obstacles[b - 1];
                --b;
            }
            w->obstacles[b] = t;
        }
    } else {
        qsort(w->obstacles, (size_t)n, sizeof *w->obstacles, neighbor_cmp); /* a total order */
    }
    return n;
}

/* Obstacles within reach: squared segment distance <= (obstacle horizon * max speed +
 * radius)^2 (algorithm.md §11.1). */
static int select_obstacles(const orca_sim *s, worker *w, int32_t i, orca_vec2 p)
{
    if (s->segment_count == 0) {
        return 0; /* without reading the agent's parameters */
    }
    double reach = s->par[i].tau_obst * s->par[i].max_speed + s->par[i].radius;
    return select_segments(s, w, p, reach, reach * reach);
}

/* The step's last line (docs/limits.md): the new velocity v of an agent at p with max speed
 * R and start-of-step velocity v0 is finite, within R up to the rounding of its program,
 * and takes the agent to a position within the coordinate limit, computed as the step's
 * part (2) computes it. Every comparison is false for NaN. */
static ORCA_ALWAYS_INLINE int step_result_ok(orca_vec2 v, orca_vec2 v0, orca_vec2 p, double R,
                                             double dt)
{
    double rr = R * R;
    orca_vec2 q = v2_add(p, v2_mul(v, dt));
    return v2_dot(v, v) <= rr + 0x1p-40 * (rr + v2_dot(v0, v0)) + 0x1p-1000 &&
           d_mag(q.x) < ORCA_COORD_LIMIT && d_mag(q.y) < ORCA_COORD_LIMIT;
}

/* Whether agent i's fallback counts in orca_sim_last_fallback_count: every agent's but a halo
 * copy's on MPI (step_check), whose own rank counts it. Read only when the fallback was
 * taken, so the common step pays nothing. */
static inline int counted(const orca_sim *s, int32_t i)
{
    return !s->step_check || s->step_check[i];
}

/* Records agent i as failing the check: the lowest such index wins (the same in any split). */
static ORCA_COLD void note_bad_agent(orca_sim *s, int32_t i)
{
    if (s->step_check && !s->step_check[i]) {
        atomic_store(&s->step_unchecked_bad, 1);
        return;
    }
    sim_atomic_min(&s->bad_agent, i);
}

int orca_step_result_kind(orca_vec2 v, orca_vec2 v0, orca_vec2 p, double max_speed, double dt)
{
    if (step_result_ok(v, v0, p, max_speed, dt)) {
        return ORCA_STEP_RESULT_OK;
    }
    if (!sim_finite(v.x) || !sim_finite(v.y)) {
        return ORCA_STEP_RESULT_NOT_FINITE;
    }
    orca_vec2 q = v2_add(p, v2_mul(v, dt));
    if (!(d_mag(q.x) < ORCA_COORD_LIMIT && d_mag(q.y) < ORCA_COORD_LIMIT)) {
        return ORCA_STEP_RESULT_LEAVES;
    }
    return ORCA_STEP_RESULT_TOO_FAST;
}

/* The refusal of a step whose new velocity v of agent i (start-of-step velocity v0) failed
 * step_result_ok (nothing was applied; the message says which part failed). */
static orca_status fail_step_result(const orca_sim *s, int32_t i, orca_vec2 v, orca_vec2 v0,
                                    double dt)
{
    double R = s->par[i].max_speed;
    orca_vec2 q = v2_add(s->pos[i], v2_mul(v, dt));
    const char *why = "is not finite";
    int kind = orca_step_result_kind(v, v0, s->pos[i], R, dt);
    if (kind == ORCA_STEP_RESULT_LEAVES) {
        return orca_fail(s, ORCA_ERR_LIMIT,
                    "step refused: agent %d (slot %u) would move to (%.17g, %.17g), beyond the "
                    "coordinate limit 2^21 (velocity (%.17g, %.17g), dt %.17g); nothing was "
                    "applied",
                    (int)i, (unsigned)s->agent_slot[i], q.x, q.y, v.x, v.y, dt);
    }
    if (kind == ORCA_STEP_RESULT_TOO_FAST) {
        why = "is faster than its max_speed beyond rounding";
    }
    return orca_fail(s, ORCA_ERR_LIMIT,
                "step refused: the new velocity (%.17g, %.17g) of agent %d (slot %u, max_speed "
                "%.17g) %s; nothing was applied",
                v.x, v.y, (int)i, (unsigned)s->agent_slot[i], R, why);
}

/* The box of the positions a step moves the agents of one range to (min and max are exact,
 * so the ranges' boxes combine to the same box in any split; a NaN never gets here: the step
 * is then refused and the box unused, or, for an agent step_check leaves unchecked, the box is
 * marked for counting again). The next grid is sized by it (grid.c, bounds). */
typedef struct moved_box {
    double lox, loy, hix, hiy;
} moved_box;

static ORCA_ALWAYS_INLINE moved_box moved_box_empty(void)
{
    moved_box b = {HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    return b;
}

static ORCA_ALWAYS_INLINE void moved_box_add(moved_box *b, orca_vec2 q)
{
    b->lox = q.x < b->lox ? q.x : b->lox;
    b->loy = q.y < b->loy ? q.y : b->loy;
    b->hix = q.x > b->hix ? q.x : b->hix;
    b->hiy = q.y > b->hiy ? q.y : b->hiy;
}

/* g's box made empty, and widened by the box lo..hi: the workers' boxes (w->bounds, which
 * the grid's bounds pass no longer needs during the step) and their union in s->bounds. */
static void box_clear(grid_bounds *g)
{
    g->lox = g->loy = HUGE_VAL;
    g->hix = g->hiy = -HUGE_VAL;
}

static ORCA_ALWAYS_INLINE void box_widen(grid_bounds *g, double lox, double loy, double hix,
                                         double hiy)
{
    g->lox = lox < g->lox ? lox : g->lox;
    g->loy = loy < g->loy ? loy : g->loy;
    g->hix = hix > g->hix ? hix : g->hix;
    g->hiy = hiy > g->hiy ? hiy : g->hiy;
}

/* A range's box into its worker's. */
static ORCA_ALWAYS_INLINE void moved_box_merge(worker *w, const moved_box *b)
{
    box_widen(&w->bounds, b->lox, b->loy, b->hix, b->hiy);
}

#define PREFETCH_AHEAD 8 /* agents ahead whose own data the step fetches */

/* The step's loops over sorted positions k < end: the own parameters of the agent
 * PREFETCH_AHEAD places ahead are in index order, so they are fetched ahead. */
static ORCA_ALWAYS_INLINE void prefetch_ahead(const orca_sim *s, int k, int end)
{
    if (k + PREFETCH_AHEAD < end) {
        int32_t ia = s->cell_index[k + PREFETCH_AHEAD];
        PREFETCH(&s->step_pref[ia]);
        PREFETCH_WRITE(&s->vel[ia]); /* written at the end, as are the hint and pos */
        PREFETCH_WRITE(&s->pos[ia]);
        PREFETCH_WRITE(&s->par[ia]); /* the hint is written there */
        PREFETCH_WRITE((const char *)&s->par[ia] + sizeof(agent_params) - 1);
    }
}

/* ---------------------------------------------------------------------------------------
 * The extended path's pieces that both of its forms share (ext_step_agents below, with the
 * diagnostics; ext_step_fast in sim_step.inc, without them).
 * ------------------------------------------------------------------------------------- */

/* Agent a's share of the avoidance against agent b (docs/extensions.md, "Priority, layers and
 * locked agents"): 1 when b is locked or does not consider a, else p_b / (p_a + p_b). */
static ORCA_ALWAYS_INLINE double ext_share_of(const agent_ext *a, const agent_ext *b)
{
    if (b->locked || (b->mask & a->layers) == 0) {
        return 1.0;
    }
    return b->priority / (a->priority + b->priority);
}

/* The order of the agent half-planes of the agent at sorted position self, whose neighbour
 * list is w->agents (na entries): the locked neighbours first, then the others, each group in
 * the list's order (w->order when there is a locked one, else the list itself); each
 * neighbour's share into w->share in that order; *locked receives the locked count. Reads the
 * step's sorted copy of the settings (s->cell_ext). */
static ORCA_ALWAYS_INLINE const neighbor *ext_order(const orca_sim *s, worker *w, int32_t self,
                                                    int na, int *locked)
{
    const agent_ext *ce = s->cell_ext;
    const neighbor *list = w->agents;
    int nl = 0;
    if (s->ext_locked_any) {
        for (int k = 0; k < na; ++k) {
            nl += ce[w->agents[k].at].locked != 0;
        }
        if (nl > 0) {
            int a = 0, b = nl;
            for (int k = 0; k < na; ++k) {
                w->order[ce[w->agents[k].at].locked ? a++ : b++] = w->agents[k];
            }
            list = w->order;
        }
    }
    for (int k = 0; k < na; ++k) {
        w->share[k] = ext_share_of(&ce[self], &ce[list[k].at]);
    }
    *locked = nl;
    return list;
}

/* A locked agent (at sorted position k) keeps its velocity: the new position p + v dt, and
 * the check that it stays within the coordinate limit (docs/limits.md); with dg its
 * diagnostics. */
static void ext_step_locked(orca_sim *s, int32_t k, double dt, moved_box *box,
                            orca_agent_diagnostics *dg)
{
    int32_t i = s->cell_index[k];
    orca_vec2 v = s->cell_vel[k], p = s->cell_pos[k];
    orca_vec2 q = v2_add(p, v2_mul(v, dt));
    s->vel[i] = v;
    s->pos[i] = q;
    moved_box_add(box, q);
    if (!(d_mag(q.x) < ORCA_COORD_LIMIT && d_mag(q.y) < ORCA_COORD_LIMIT)) {
        note_bad_agent(s, i);
    }
    if (dg) {
        memset(dg, 0, sizeof *dg);
        dg->failed_constraint = -1;
        dg->locked = 1;
    }
}

/* Agent i's preferred velocity in the step: the step's copy, times f(rho) of its neighbour
 * list (na entries, in (squared distance, index) order) with the density-dependent speed on
 * (docs/extensions.md, "Density-dependent speed"), turned to the right in the pedestrian
 * model's counter mode (docs/pedestrians.md, part D; the two models exclude each other). */
static ORCA_ALWAYS_INLINE orca_vec2 ext_preferred(const orca_sim *s, const neighbor *list,
                                                  int na, int32_t i, int counter)
{
    orca_vec2 pref = s->step_pref[i];
    if (counter) {
        return orca_ped_keep_right(pref);
    }
    if (s->density_on) {
        double rho = orca_density_estimate(list, na, s->par[i].max_neighbors, s->density.radius);
        double f = orca_density_factor(&s->density, rho);
        pref = v2(pref.x * f, pref.y * f);
    }
    return pref;
}

/* Each copy twice: first the layered search alone (STEP_LAYERED 1: the extended path's
 * search where layers and masks hide agents from each other), then the whole step, whose
 * extended path calls the layered copy's select_agents as STEP_LFN(select_agents). */
#define STEP_LAYERED 1
#define STEP_FN(name) name##_lay
#define STEP_TARGET
#define STEP_KERNELS 0
#include "sim_step.inc"
#undef STEP_FN
#undef STEP_LAYERED

#define STEP_LAYERED 0
#define STEP_FN(name) name
#define STEP_LFN(name) name##_lay
#include "sim_step.inc"
#undef STEP_FN
#undef STEP_LFN
#undef STEP_TARGET
#undef STEP_KERNELS
#undef STEP_LAYERED

#ifdef ORCA_HAVE_AVX
#define STEP_LAYERED 1
#define STEP_FN(name) name##_avx2_lay
#define STEP_TARGET ORCA_AVX
#define STEP_KERNELS 1
#include "sim_step.inc"
#undef STEP_FN
#undef STEP_LAYERED

#define STEP_LAYERED 0
#define STEP_FN(name) name##_avx2
#define STEP_LFN(name) name##_avx2_lay
#include "sim_step.inc"
#undef STEP_FN
#undef STEP_LFN
#undef STEP_TARGET
#undef STEP_KERNELS
#undef STEP_LAYERED
#endif

#ifdef ORCA_HAVE_SIMD128
/* The wasm SIMD128 module (docs/web.md): the box scan's filter two at a time
 * (filter_pairs_simd128), the constraints by orca_agent_planes_simd128 (the extended path's
 * by orca_agent_planes_share_simd128), the solve's SIMD128 copy; the rest as the scalar copy. */
#define STEP_LAYERED 1
#define STEP_FN(name) name##_simd128_lay
#define STEP_TARGET
#define STEP_KERNELS 2
#include "sim_step.inc"
#undef STEP_FN
#undef STEP_LAYERED

#define STEP_LAYERED 0
#define STEP_FN(name) name##_simd128
#define STEP_LFN(name) name##_simd128_lay
#include "sim_step.inc"
#undef STEP_FN
#undef STEP_LFN
#undef STEP_TARGET
#undef STEP_KERNELS
#undef STEP_LAYERED
#endif

int orca_step_search_test(orca_sim *s, int32_t i, float hint, int kernels, int32_t *agents)
{
    if (orca_grid_prepare(s) != ORCA_OK) {
        return -1;
    }
    worker *w = &s->workers[0];
    s->par[i].nb_guess = hint;
    int n;
#ifdef ORCA_HAVE_AVX
    if (kernels && orca_kernels_available()) {
        n = select_agents_avx2(s, s->rank[i], w->agents, w->cand, 1);
    } else
#endif
#ifdef ORCA_HAVE_SIMD128
    if (kernels) {
        n = select_agents_simd128(s, s->rank[i], w->agents, w->cand, 1);
    } else
#endif
    {
        (void)kernels;
        n = select_agents(s, s->rank[i], w->agents, w->cand, 1);
    }
    for (int k = 0; k < n; ++k) {
        agents[k] = s->cell_index[w->agents[k].at];
    }
    return n;
}

/* ---------------------------------------------------------------------------------------
 * The extended path (docs/extensions.md): priority, layers and mask, locked agents, the
 * density-dependent speed, and the per-agent diagnostics. Scalar code; with every agent at
 * the defaults and the density-dependent speed off it computes the plain path's bits: the
 * same neighbour list (the agents within neighbor_dist, the max_neighbors first by (squared
 * distance, index)), the same constraint operations with share 1 / (1 + 1) = 0.5, and the
 * same solve.
 * ------------------------------------------------------------------------------------- */

/* Whether agent a (index) considers agent b (index): a.mask & b.layers. */
static ORCA_ALWAYS_INLINE int ext_considers(const orca_sim *s, int32_t a, int32_t b)
{
    return !s->ext || (s->ext[a].mask & s->ext[b].layers) != 0;
}

/* The neighbour list of the agent at sorted position self, among the agents it considers,
 * into out (by (squared distance, index), at most max_neighbors); *candidates receives how
 * many considered agents are within neighbor_dist. Every agent of the grid's cells within
 * neighbor_dist (orca_grid_query) is tested, so the count is exact. Out of line: inlined into
 * step_task with the plain step, its loop over the query's calls cost the scalar step 40
 * instructions an agent-step (measured at 10,000 agents). */
static ORCA_NOINLINE int ext_select_agents(const orca_sim *s, int32_t self,
                                                      neighbor *out, int *candidates)
{
    int32_t i = s->cell_index[self];
    int cap = s->par[i].max_neighbors;
    double nd = s->par[i].neighbor_dist;
    double nd2 = nd * nd;
    orca_vec2 p = s->cell_pos[self];
    int n = 0, within = 0;
    grid_range ranges[GRID_RANGES];
    int64_t next = 0;
    do {
        int nr = orca_grid_query(s, p, nd, ranges, &next);
        for (int r = 0; r < nr; ++r) {
            for (int32_t k = ranges[r].begin; k < ranges[r].end; ++k) {
                int32_t j = s->cell_index[k];
                if (k == self || !ext_considers(s, i, j)) {
                    continue;
                }
                orca_vec2 d = v2_sub(s->cell_pos[k], p);
                double d2 = v2_dot(d, d);
                if (d2 < nd2) {
                    ++within;
                    if (cap > 0) {
                        n = neighbor_offer(s->cell_index, d2, k, out, n, cap);
                    }
                }
            }
        }
    } while (next > 0);
    *candidates = within;
    return n;
}

/* Agent i's share of the avoidance against agent j: ext_share_of, 0.5 without extensions. */
static ORCA_ALWAYS_INLINE double ext_share(const orca_sim *s, int32_t i, int32_t j)
{
    return s->ext ? ext_share_of(&s->ext[i], &s->ext[j]) : 0.5;
}

/* build_constraints of the extended path: the boundary half-planes (docs/extensions.md,
 * "Walkable-area boundaries"), the same obstacles, then the agent half-planes with each
 * neighbour's share (locked neighbours' as hard constraints, after the segments'), then with
 * the pedestrian model the headway half-planes (docs/pedestrians.md; P the agent's preferred
 * velocity, *ped what the model decided). The list goes to w->planes, or with boundaries to
 * the boundary scratch of the worker (*planes_out receives it). *nb receives the number of
 * boundary half-planes (the first ones), *na_out and *candidates the neighbour counts. */
static int ext_build_constraints(const orca_sim *s, worker *w, int32_t self, double dt,
                                 orca_vec2 P, int *hard, int *nb, int *na_out, int *candidates,
                                 ped_result *ped, orca_halfplane **planes_out)
{
    int32_t i = s->cell_index[self];
    orca_vec2 p = s->cell_pos[self];
    orca_vec2 v = s->cell_vel[self];
    double r = s->cell_radius[self];
    double tau = s->par[i].tau;
    orca_halfplane *planes = w->planes;
    int n = 0;
    if (has_boundaries(s)) {
        int wi = (int)(w - s->workers);
        planes = s->bnd->ws[wi].planes;
        n = orca_boundary_constraints(s, wi, i, p, r, dt, planes);
    }
    *nb = n;
    *planes_out = planes;
    int no = select_obstacles(s, w, i, p);
    for (int k = 0; k < no; ++k) {
        int32_t seg = w->obstacles[k].index;
        planes[n++] = orca_constraint_segment(v2_sub(s->seg_a[seg], p), v2_sub(s->seg_b[seg], p),
                                              r, s->par[i].tau_obst, dt, NULL);
    }
    int na = ext_select_agents(s, self, w->agents, candidates);
    ped->counter = 0;
    ped->planes = 0;
    if (s->ped_on) {
        ped->counter = orca_ped_counter(s, self, P, w->agents, na);
        tau = ped_tau(&s->ped, tau, ped->counter);
    }
    /* With the separation of coincident agents, the higher index of a pair takes (-1, 0)
     * where algorithm.md §3.7 gives both (1, 0) (docs/extensions.md, "Coincident agents"). */
    int sep = sep_active(s);
    /* Locked neighbours act as moving obstacles: their half-planes (share 1) are hard, after
     * the segments' and before the others', each group in the list's order. */
    for (int pass = 1; pass >= 0; --pass) {
        for (int k = 0; k < na; ++k) {
            int32_t at = w->agents[k].at;
            int32_t j = s->cell_index[at];
            if ((s->ext && s->ext[j].locked) != pass) {
                continue;
            }
            planes[n++] = orca_constraint_agent_sep(
                v2_sub(s->cell_pos[at], p), r + s->cell_radius[at], v, s->cell_vel[at], tau, dt,
                ext_share(s, i, j), sep && i > j, NULL);
        }
        if (pass == 1) {
            *hard = n;
        }
    }
    if (s->ped_on && !ped->counter) {
        ped->planes = orca_ped_headway(s, self, P, w->agents, na, planes + n);
        n += ped->planes;
    }
    *na_out = na;
    return n;
}

/* step_agents of the extended path with the diagnostics (the scalar search above, which counts
 * the candidates); ext_step_fast (sim_step.inc) computes the same bits without them. */
static int ext_step_agents(orca_sim *s, worker *w, int begin, int end, double dt)
{
    int fallbacks = 0;
    moved_box box = moved_box_empty();
    for (int k = begin; k < end; ++k) {
        int32_t i = s->cell_index[k];
        orca_agent_diagnostics *dg = s->diagnostics ? &s->diag[i] : NULL;
        if (s->ext && s->ext[i].locked) {
            ext_step_locked(s, k, dt, &box, dg);
            continue;
        }
        int hard, nb, na, within;
        orca_halfplane *planes;
        ped_result ped;
        int count = ext_build_constraints(s, w, k, dt, s->step_pref[i], &hard, &nb, &na, &within,
                                          &ped, &planes);
        orca_vec2 pref = ext_preferred(s, w->agents, na, i, ped.counter);
        double max_speed = s->par[i].max_speed;
        orca_solve_result res =
            orca_solve_step_bnd(planes, count, hard, nb, max_speed, pref,
                                nb > 0 ? s->bnd->ws[(int)(w - s->workers)].scratch : w->scratch,
                                count - ped.planes);
        if (max_speed == 0) {
            stand_still(&res); /* its neighbours still count in the diagnostics */
        }
        s->vel[i] = res.velocity;
        s->pos[i] = v2_add(s->cell_pos[k], v2_mul(res.velocity, dt)); /* as in step_agents */
        moved_box_add(&box, s->pos[i]);
        fallbacks += res.fallback && counted(s, i);
        if (!step_result_ok(res.velocity, s->cell_vel[k], s->cell_pos[k], max_speed, dt)) {
            note_bad_agent(s, i);
        }
        if (dg) {
            double pp = v2_dot(pref, pref), vv = v2_dot(res.velocity, res.velocity);
            dg->fallback = res.fallback;
            dg->failed_constraint = res.failed;
            dg->neighbor_count = na;
            dg->candidates = within;
            dg->neighbors_cut = within > s->par[i].max_neighbors;
            dg->blocked = pp > 0 && 100 * vv <= pp;
            dg->locked = 0;
            dg->headway_planes = ped.planes;
            dg->counter_mode = ped.counter;
        }
    }
    moved_box_merge(w, &box);
    return fallbacks;
}

/* ---------------------------------------------------------------------------------------
 * The step
 * ------------------------------------------------------------------------------------- */

typedef struct step_ctx {
    orca_sim *sim;
    double dt;
    orca_step_rule_fn *rule; /* orca_sim_step_rule's, or NULL */
    void *rule_context;
    atomic_int bad_pref; /* the lowest index whose rule value is out of range, or the count */
} step_ctx;

/* Records index i as having a rule value out of range (as orca_agent_set_preferred_velocity
 * checks: sim_velocity_ok): the lowest such index wins. */
static ORCA_COLD void note_bad_pref(step_ctx *c, int32_t i)
{
    sim_atomic_min(&c->bad_pref, i);
}

/* The rule's preferred velocities of count agents (the rule's index, first and position:
 * orca_step_rule_fn) into pref_next (each agent's own slot), each checked as
 * orca_agent_set_preferred_velocity checks it (sim_velocity_ok). Inlined into its two callers,
 * each with its own constant kind of index. */
static ORCA_ALWAYS_INLINE void rule_run(step_ctx *c, const int32_t *index, int32_t first,
                                        const orca_vec2 *position, int count)
{
    orca_sim *s = c->sim;
    c->rule(c->rule_context, index, first, position, count, s->pref, s->pref_next);
    for (int j = 0; j < count; ++j) {
        int32_t i = index ? index[j] : first + j;
        if (!sim_velocity_ok(s->pref_next[i])) {
            note_bad_pref(c, i);
        }
    }
}

/* The agents at sorted positions [begin, end) (the rule inside the step's pass). */
static void rule_range(step_ctx *c, int begin, int end)
{
    orca_sim *s = c->sim;
    rule_run(c, s->cell_index + begin, 0, s->cell_pos + begin, end - begin);
}

/* The agents at indices [begin, end), in index order (the rule's own pass in a step that does
 * not fuse it: STEP_FUSE_MAX). */
static void rule_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    step_ctx *c = context;
    rule_run(c, NULL, begin, c->sim->pos + begin, end - begin);
}

/* Whether a step runs the rule inside its pass over the agents (in the grid's order, where
 * each agent's index-order data is scattered: a cache line per agent for the rule's reads and
 * writes) or in a pass of its own in index order (streaming through memory). Fused, a
 * scenario step is one parallel pass instead of two, which small crowds on several workers
 * feel most; apart, large crowds read their arrays in order (measured on the random scene:
 * fused, 1,000,000 agents were 14% slower and 100,000 5%). The bits are the same either
 * way. */
#define STEP_FUSE_MAX 32768

/* The step for the agents at sorted positions [begin, end) (docs/algorithm.md §12): each
 * new velocity from the start-of-step state and, at once, the new position p + v * dt, into
 * the agent's own slots (step_agents). Part (1) reads positions and velocities only from the
 * grid's start-of-step copies, so an agent moved early is never seen moved by another; a
 * refused step puts both back from those copies. */
static void step_task(int begin, int end, int worker_index, void *context)
{
    step_ctx *c = context;
    orca_sim *s = c->sim;
    if (orca_bad_worker_index(s, worker_index)) {
        return;
    }
    worker *w = &s->workers[worker_index];
    if (c->rule && s->agent_count <= STEP_FUSE_MAX) {
        rule_range(c, begin, end);
    }
    if (ext_path(s)) {
        if (s->diagnostics) {
            w->fallbacks += ext_step_agents(s, w, begin, end, c->dt);
        }
#ifdef ORCA_HAVE_AVX
        else if (s->vector) {
            w->fallbacks += ext_step_fast_avx2(s, w, begin, end, c->dt);
        }
#endif
#ifdef ORCA_HAVE_SIMD128
        else if (s->vector) {
            w->fallbacks += ext_step_fast_simd128(s, w, begin, end, c->dt);
        }
#endif
        else {
            w->fallbacks += ext_step_fast(s, w, begin, end, c->dt);
        }
    }
#ifdef ORCA_HAVE_AVX
    else if (s->vector) {
        w->fallbacks += step_agents_avx2(s, w, begin, end, c->dt);
    }
#endif
#ifdef ORCA_HAVE_SIMD128
    else if (s->vector) {
        w->fallbacks += step_agents_simd128(s, w, begin, end, c->dt);
    }
#endif
    else {
        w->fallbacks += step_agents(s, w, begin, end, c->dt);
    }
}

/* The sorted copy of the avoidance settings (s->cell_ext, s->cell_layers) for the agents at
 * sorted positions [begin, end); a range where some agent's layers miss every agent's mask
 * (s->ext_mask_and) sets the context's flag (then the search must filter by layers). */
typedef struct ext_gather_ctx {
    orca_sim *sim;
    atomic_int layered;
} ext_gather_ctx;

static void ext_gather_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index; /* each sorted position is its own slot */
    ext_gather_ctx *c = context;
    orca_sim *s = c->sim;
    uint32_t all = s->ext_mask_and;
    int layered = 0;
    for (int32_t at = begin; at < end; ++at) {
        if (at + 16 < end) {
            PREFETCH(&s->ext[s->cell_index[at + 16]]);
        }
        const agent_ext *e = &s->ext[s->cell_index[at]];
        s->cell_ext[at] = *e;
        s->cell_layers[at] = e->layers;
        layered |= (e->layers & all) == 0;
    }
    if (layered) {
        atomic_store(&c->layered, 1);
    }
}

/* The AND of every agent's mask and whether any agent is locked, over agents [begin, end)
 * into the context (AND and OR give the same result in any order of the ranges). */
typedef struct ext_scan_ctx {
    const orca_sim *sim;
    atomic_uint mask_and;
    atomic_int locked;
} ext_scan_ctx;

static void ext_scan_task(int begin, int end, int worker_index, void *context)
{
    (void)worker_index;
    ext_scan_ctx *c = context;
    const agent_ext *ext = c->sim->ext;
    uint32_t all = 0xFFFFFFFFu;
    int locked = 0;
    for (int32_t i = begin; i < end; ++i) {
        all &= ext[i].mask;
        locked |= ext[i].locked;
    }
    atomic_fetch_and(&c->mask_and, all);
    if (locked) {
        atomic_fetch_or(&c->locked, 1);
    }
}

/* Before a step of the extended path without diagnostics (ext_step_fast): whether an agent
 * may reach a boundary edge (s->ext_boundaries), whether settings
 * other than the defaults exist (s->ext_shares), and then their sorted copy, whether any agent
 * is locked and whether the layers hide some agent from another (s->ext_layered: otherwise
 * the plain search finds the same lists). A cache, refilled each such step. */
static orca_status ext_prepare(orca_sim *s, double dt)
{
    s->ext_boundaries = has_boundaries(s) && !orca_boundary_out_of_reach(s, dt);
    s->ext_shares = s->ext && s->ext_nondefault > 0;
    s->ext_layered = 0;
    s->ext_locked_any = 0;
    if (!s->ext_shares) {
        return ORCA_OK;
    }
    if (s->cell_ext_cap < s->agent_count) {
        agent_ext *e = orca_mem_resize(s->cell_ext, (size_t)s->agent_capacity, sizeof *e);
        if (e) {
            s->cell_ext = e;
        }
        /* the vector scan reads groups of four: CELL_POS_PAD entries past the last, zero */
        uint32_t *l = e ? orca_mem_resize(s->cell_layers,
                                          (size_t)s->agent_capacity + CELL_POS_PAD, sizeof *l)
                        : NULL;
        if (l) {
            memset(l + s->agent_capacity, 0, CELL_POS_PAD * sizeof *l);
        }
        if (!l) {
            return orca_fail(s, ORCA_ERR_MEMORY,
                             "out of memory for the avoidance settings of %d agents",
                             s->agent_count);
        }
        s->cell_layers = l;
        s->cell_ext_cap = s->agent_capacity;
    }
    ext_scan_ctx m;
    m.sim = s;
    atomic_init(&m.mask_and, 0xFFFFFFFFu);
    atomic_init(&m.locked, 0);
    orca_run_light_task(s, ext_scan_task, s->agent_count, &m);
    s->ext_mask_and = atomic_load(&m.mask_and);
    s->ext_locked_any = atomic_load(&m.locked) != 0;
    ext_gather_ctx c;
    c.sim = s;
    atomic_init(&c.layered, 0);
    orca_run_task(s, ext_gather_task, s->agent_count, &c);
    s->ext_layered = atomic_load(&c.layered);
    return ORCA_OK;
}

orca_status orca_sim_step(orca_sim *s, double dt)
{
    return orca_sim_step_rule(s, dt, NULL, NULL);
}

orca_status orca_sim_step_rule(orca_sim *s, double dt, orca_step_rule_fn *rule, void *context)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    orca_status st = orca_check_dt(s, dt);
    if (st != ORCA_OK) {
        return st;
    }
    orca_agents_settle(s);
    if (s->agent_count == 0) {
        return ORCA_OK;
    }
    st = orca_grid_prepare(s);
    if (st != ORCA_OK) {
        return st;
    }
    if (s->diagnostics && !orca_diag_ensure(s)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory for the diagnostics of %d agents",
                         s->agent_count);
    }
    if (rule && s->pref_next_cap != s->agent_capacity) {
        orca_vec2 *q = orca_mem_resize(s->pref_next, (size_t)s->agent_capacity, sizeof *q);
        if (!q) {
            return orca_fail(s, ORCA_ERR_MEMORY,
                             "out of memory for the preferred velocities of %d agents",
                             s->agent_count);
        }
        s->pref_next = q;
        s->pref_next_cap = s->agent_capacity;
    }
    for (int w = 0; w < s->worker_count; ++w) {
        s->workers[w].fallbacks = 0;
    }
    atomic_store(&s->bad_worker, -1);
    atomic_store(&s->bad_agent, s->agent_count);
    atomic_store(&s->step_unchecked_bad, 0);
    if (ext_path(s) && !s->diagnostics) {
        st = ext_prepare(s, dt);
        if (st != ORCA_OK) {
            return st;
        }
    }
    if (s->ped_on && (st = orca_ped_prepare(s)) != ORCA_OK) {
        return st;
    }
    step_ctx ctx;
    ctx.sim = s;
    ctx.dt = dt;
    ctx.rule = rule;
    ctx.rule_context = context;
    atomic_init(&ctx.bad_pref, s->agent_count);
    s->step_pref = rule ? s->pref_next : s->pref;
    if (rule && s->agent_count > STEP_FUSE_MAX) {
        orca_run_task(s, rule_task, s->agent_count, &ctx);
    }
    for (int w = 0; w < s->worker_count; ++w) {
        box_clear(&s->workers[w].bounds);
    }
    /* every new velocity from the start-of-step state, then every new position (step_task) */
    orca_run_task(s, step_task, s->agent_count, &ctx);
    int bad = atomic_load(&s->bad_worker);
    int bad_agent = atomic_load(&s->bad_agent);
    int bad_pref = atomic_load(&ctx.bad_pref);
    if (bad >= 0 || bad_pref < s->agent_count || bad_agent < s->agent_count) {
        orca_vec2 v = bad_agent < s->agent_count ? s->vel[bad_agent] : v2(0, 0);
        /* Put the start-of-step velocities and positions back from the grid's copy (the
         * preferred velocities were never replaced). */
        for (int32_t k = 0; k < s->agent_count; ++k) {
            s->vel[s->cell_index[k]] = s->cell_vel[k];
            s->pos[s->cell_index[k]] = s->cell_pos[k];
        }
        if (bad >= 0) {
            return orca_fail_bad_worker(s, bad);
        }
        if (bad_pref < s->agent_count) {
            return orca_fail_preferred(s, bad_pref, s->pref_next[bad_pref]);
        }
        return fail_step_result(s, bad_agent, v, s->vel[bad_agent], dt);
    }
    if (rule) {
        /* the rule's values become the preferred velocities (an exchange of the arrays:
         * both hold agent_capacity entries) */
        orca_vec2 *t = s->pref;
        s->pref = s->pref_next;
        s->pref_next = t;
    }
    int fallbacks = 0;
    box_clear(&s->bounds); /* the next grid's box: where the agents are now */
    for (int w = 0; w < s->worker_count; ++w) {
        const grid_bounds *b = &s->workers[w].bounds;
        fallbacks += s->workers[w].fallbacks;
        box_widen(&s->bounds, b->lox, b->loy, b->hix, b->hiy);
    }
    if (atomic_load(&s->step_unchecked_bad)) {
        s->bounds_valid = 0; /* an unchecked position may not be finite: count again */
    }
    s->last_fallbacks = fallbacks;
    if (s->diagnostics) {
        /* the counts, in index order (each agent wrote only its own entry) */
        orca_step_diagnostics c = {s->agent_count, 0, 0, 0, 0, 0, 0};
        for (int32_t i = 0; i < s->agent_count; ++i) {
            c.fallback += s->diag[i].fallback;
            c.cut += s->diag[i].neighbors_cut;
            c.blocked += s->diag[i].blocked;
            c.locked += s->diag[i].locked;
            c.headway += s->diag[i].headway_planes;
            c.counter += s->diag[i].counter_mode;
        }
        s->diag_counts = c;
    }
    s->steps++;
    s->grid_valid = 0;
    return ORCA_OK;
}

uint64_t orca_sim_step_count(const orca_sim *s)
{
    return s ? s->steps : 0;
}

int orca_sim_last_fallback_count(const orca_sim *s)
{
    return s ? s->last_fallbacks : 0;
}

orca_status orca_sim_agent_constraints(const orca_sim *s, orca_agent_id id, double dt,
                                       orca_halfplane *planes, int capacity, int *count,
                                       int *hard_count)
{
    if (s) {
        orca_agents_settle(s); /* before the lookup: building the grid below would compact */
    }
    AGENT_OR_FAIL(s, id, i);
    orca_status st = orca_check_dt(s, dt);
    if (st != ORCA_OK) {
        return st;
    }
    if (capacity < 0 || (capacity > 0 && !planes)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "planes must hold capacity (%d) half-planes", capacity);
    }
    st = orca_grid_prepare(s);
    if (st != ORCA_OK) {
        return st;
    }
    if (s->ped_on && (st = orca_ped_prepare((orca_sim *)s)) != ORCA_OK) {
        return st;
    }
    worker *w = &s->workers[0];
    int hard = 0, nb, na, within, n = 0;
    orca_halfplane *list = w->planes;
    ped_result ped;
    if (!ext_path(s)) {
        n = build_constraints(s, w, s->rank[i], dt, &hard, 0);
    } else if (!(s->ext && s->ext[i].locked)) { /* a locked agent has none: it is not solved */
        /* the stored preferred velocity: the one a step without a rule solves with */
        n = ext_build_constraints(s, w, s->rank[i], dt, s->pref[i], &hard, &nb, &na, &within,
                                  &ped, &list);
    }
    for (int k = 0; k < n && k < capacity; ++k) {
        planes[k] = list[k];
    }
    if (count) {
        *count = n;
    }
    if (hard_count) {
        *hard_count = hard;
    }
    return ORCA_OK;
}

orca_status orca_sim_agent_neighbors(const orca_sim *s, orca_agent_id id, int *agents,
                                     int agent_capacity, int *agent_count, int *segments,
                                     int segment_capacity, int *segment_count)
{
    if (s) {
        orca_agents_settle(s); /* before the lookup: building the grid below would compact */
    }
    AGENT_OR_FAIL(s, id, i);
    if (agent_capacity < 0 || (agent_capacity > 0 && !agents) || segment_capacity < 0 ||
        (segment_capacity > 0 && !segments)) {
        return orca_fail(s, ORCA_ERR_ARGUMENT, "output arrays must hold their capacities");
    }
    orca_status st = orca_grid_prepare(s);
    if (st != ORCA_OK) {
        return st;
    }
    worker *w = &s->workers[0];
    int locked = s->ext && s->ext[i].locked; /* not solved: no neighbours, no obstacles */
    int no = locked ? 0 : select_obstacles(s, w, i, s->pos[i]);
    for (int k = 0; k < no && k < segment_capacity; ++k) {
        segments[k] = w->obstacles[k].index;
    }
    int within, na = 0;
    if (!ext_path(s)) {
        na = select_agents(s, s->rank[i], w->agents, w->cand, 0);
    } else if (!locked) {
        na = ext_select_agents(s, s->rank[i], w->agents, &within);
    }
    for (int k = 0; k < na && k < agent_capacity; ++k) {
        agents[k] = w->agents[k].index;
    }
    if (agent_count) {
        *agent_count = na;
    }
    if (segment_count) {
        *segment_count = no;
    }
    return ORCA_OK;
}

/* The deepest overlaps (orca_sim_measure_overlap) on the workers: each pair of overlapping
 * agents is examined once, from the one earlier in the grid's sorted order, and each worker
 * keeps the largest values of its agents. A pair's value (rA + rB - sqrt(d.d)) / min(rA, rB)
 * has the same bits from either side (d and -d have the same squares), and the largest of a
 * set is the same in any order and split: the result never depends on the worker count. */
typedef struct overlap_ctx {
    const orca_sim *sim;
    double rmax;  /* the largest radius */
    double reach; /* dense grid: every agent overlapping one at p is within this of p in x and
                     y, the margin for the cell arithmetic included */
} overlap_ctx;

/* The largest radius, each worker over its part (cell_radius: every agent's radius). */
static void rmax_task(int begin, int end, int worker_index, void *context)
{
    orca_sim *s = (orca_sim *)((overlap_ctx *)context)->sim;
    if (orca_bad_worker_index(s, worker_index)) {
        return;
    }
    double r = s->workers[worker_index].overlap[0];
    for (int32_t k = begin; k < end; ++k) {
        r = s->cell_radius[k] > r ? s->cell_radius[k] : r;
    }
    s->workers[worker_index].overlap[0] = r;
}

/* The deepest overlap of the agent at sorted position k (at p, radius ri) with the agents at
 * sorted positions [begin, end), at least `deepest`. */
static ORCA_ALWAYS_INLINE double overlap_range(const orca_sim *s, orca_vec2 p, double ri,
                                               int32_t begin, int32_t end, double deepest)
{
    for (int32_t t = begin; t < end; ++t) {
        double rj = s->cell_radius[t];
        double rr = ri + rj;
        orca_vec2 d = v2_sub(s->cell_pos[t], p);
        double d2 = v2_dot(d, d);
        if (d2 < rr * rr) { /* rare: a well-predicted branch */
            double rmin = ri < rj ? ri : rj;
            double o = (rr - sqrt(d2)) / rmin;
            deepest = o > deepest ? o : deepest;
        }
    }
    return deepest;
}

static void overlap_task(int begin, int end, int worker_index, void *context)
{
    overlap_ctx *c = context;
    orca_sim *s = (orca_sim *)c->sim;
    if (orca_bad_worker_index(s, worker_index)) {
        return;
    }
    worker *w = &s->workers[worker_index];
    double deepest = w->overlap[0], wall = w->overlap[1];
    double inv = s->inv_cell, invx = s->inv_cell_x, ox = s->origin_x, oy = s->origin_y;
    double b = c->reach;
    int32_t gw = s->grid_w, gh = s->grid_h;
    for (int32_t k = begin; k < end; ++k) {
        orca_vec2 p = s->cell_pos[k];
        double ri = s->cell_radius[k];
        if (s->grid_dense) {
            /* Sorted positions after k: the rest of the agent's row from its own cell on, and
             * the rows above it, over the columns within reach. */
            int32_t c0 = dense_column(p.x - b - ox, invx, (double)gw, gw);
            int32_t c1 = dense_column(p.x + b - ox, invx, (double)gw, gw);
            int32_t ry = dense_column(p.y - oy, inv, (double)gh, gh);
            int32_t r1 = dense_column(p.y + b - oy, inv, (double)gh, gh);
            const int32_t *row = s->cell_start + (int64_t)ry * gw;
            deepest = overlap_range(s, p, ri, k + 1, row[c1 + 1], deepest);
            for (int32_t r = ry + 1; r <= r1; ++r) {
                row += gw;
                deepest = overlap_range(s, p, ri, row[c0], row[c1 + 1], deepest);
            }
        } else {
            grid_range ranges[GRID_RANGES];
            int64_t next = 0;
            do {
                int nr = orca_grid_query(s, p, ri + c->rmax, ranges, &next);
                for (int r = 0; r < nr; ++r) {
                    int32_t from = ranges[r].begin > k ? ranges[r].begin : k + 1;
                    deepest = overlap_range(s, p, ri, from, ranges[r].end, deepest);
                }
            } while (next > 0);
        }
        if (s->segment_count > 0) {
            int no = select_segments(s, w, p, ri, ri * ri);
            if (no > 0) {
                double o = (ri - sqrt(w->obstacles[0].dist2)) / ri;
                wall = o > wall ? o : wall;
            }
        }
    }
    w->overlap[0] = deepest;
    w->overlap[1] = wall;
}

orca_status orca_sim_measure_overlap(const orca_sim *sim, double *agent_overlap,
                                     double *wall_overlap)
{
    if (!sim) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(sim);
    orca_status st = orca_grid_prepare(sim);
    if (st != ORCA_OK) {
        return st;
    }
    orca_sim *s = (orca_sim *)sim; /* the workers' scratch only */
    overlap_ctx c = {sim, 0, 0};
    /* On the workers; if the engine's callbacks give a bad worker index, again on the caller
     * (a measurement changes nothing, so there is nothing to refuse). */
    for (int serial = 0; serial < 2; ++serial) {
        atomic_store(&s->bad_worker, -1);
        for (int w = 0; w < s->worker_count; ++w) {
            s->workers[w].overlap[0] = 0;
        }
        if (serial) {
            rmax_task(0, s->agent_count, 0, &c);
        } else {
            orca_run_light_task(s, rmax_task, s->agent_count, &c);
        }
        c.rmax = 0;
        for (int w = 0; w < s->worker_count; ++w) {
            c.rmax = s->workers[w].overlap[0] > c.rmax ? s->workers[w].overlap[0] : c.rmax;
            s->workers[w].overlap[0] = 0;
            s->workers[w].overlap[1] = 0;
        }
        if (s->grid_dense) {
            /* Two overlapping agents are closer than 2 rmax; the margin of the cell arithmetic
             * (dense_margin) for the point of the grid farthest from 0, twice. */
            double wide = (double)s->grid_w * s->cell_x, tall = (double)s->grid_h * s->cell;
            double far = d_mag(s->origin_x) + d_mag(s->origin_y) + 2 * (wide > tall ? wide : tall);
            double q = 2 * c.rmax;
            c.reach = q + 2 * (1e-9 * (2 * far + q + s->cell) + MARGIN_ABS);
        }
        if (atomic_load(&s->bad_worker) < 0 && s->agent_count > 0) {
            if (serial) {
                overlap_task(0, s->agent_count, 0, &c);
            } else {
                orca_run_task(s, overlap_task, s->agent_count, &c);
            }
        }
        if (atomic_load(&s->bad_worker) < 0) {
            break;
        }
    }
    double deepest = 0, wall = 0;
    for (int w = 0; w < s->worker_count; ++w) {
        deepest = s->workers[w].overlap[0] > deepest ? s->workers[w].overlap[0] : deepest;
        wall = s->workers[w].overlap[1] > wall ? s->workers[w].overlap[1] : wall;
    }
    if (agent_overlap) {
        *agent_overlap = deepest;
    }
    if (wall_overlap) {
        *wall_overlap = wall;
    }
    return ORCA_OK;
}
