/* SPDX-License-Identifier: MIT */
/* The vector kernels (src/kernels.h) against the scalar code they stand for, bit for bit:
 * orca_agent_planes_vector against orca_constraint_agent, lane by lane, over random and
 * deliberately awkward inputs (every branch of the agent case form, its ties and boundaries,
 * the overlap form, short last groups, huge, tiny, subnormal, infinite and NaN values);
 * orca_box_scan_vector against a brute-force neighbour list; then whole simulations with the
 * kernels on and off. Where the CPU has no vector kernels the
 * kernel comparisons are skipped (and say so); the simulation comparisons still run. */
#include "test.h"

#include <math.h>
#include <orca/orca.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "sim_internal.h"

#define MAX_NB 13

typedef struct kcase {
    orca_vec2 p, v;
    double r, tau, dt;
    int count;
    orca_vec2 pos[MAX_NB + 1], vel[MAX_NB + 1]; /* entry 0 is the agent itself */
    double radius[MAX_NB + 1];
} kcase;

static int same_plane(orca_halfplane a, orca_halfplane b)
{
    return test_same_bits(a.point.x, b.point.x) && test_same_bits(a.point.y, b.point.y) &&
           test_same_bits(a.normal.x, b.normal.x) && test_same_bits(a.normal.y, b.normal.y);
}

#ifdef ORCA_HAVE_AVX
/* Whether this CPU lacks the kernels (the comparison is then skipped, and says so). */
static int kernels_missing(void)
{
    if (orca_kernels_available()) {
        return 0;
    }
    printf("  (no vector kernels on this CPU: skipped)\n");
    return 1;
}

/* Runs the kernel on c (neighbours at sorted positions 1..count, listed in a shuffled order)
 * and compares every plane with the scalar builder; returns 0 when all agree. */
static int check_case(const kcase *c, test_rng *g, long long *planes, long long *all_cut)
{
    neighbor nb[MAX_NB];
    for (int k = 0; k < c->count; ++k) {
        nb[k].dist2 = 0;
        nb[k].index = k;
        nb[k].at = k + 1;
    }
    for (int k = c->count - 1; k > 0; --k) {
        int j = (int)(test_rng_next(g) % (unsigned long long)(k + 1));
        neighbor t = nb[k];
        nb[k] = nb[j];
        nb[j] = t;
    }
    orca_halfplane out[MAX_NB + 1];
    memset(out, 0x5a, sizeof out);
    orca_agent_planes_vector(c->p, c->v, c->r, c->tau, c->dt, c->pos, c->vel, c->radius, nb,
                             c->count, out);
    for (int k = 0; k < c->count; ++k) {
        int32_t at = nb[k].at;
        orca_vec2 rel = vec(c->pos[at].x - c->p.x, c->pos[at].y - c->p.y);
        orca_halfplane want =
            orca_constraint_agent(rel, c->r + c->radius[at], c->v, c->vel[at], c->tau, c->dt, NULL);
        ENSURE_MSG(same_plane(out[k], want),
                   "lane %d of %d: a = (%a, %a), r = %a, va = (%a, %a), vb = (%a, %a), tau = %a: "
                   "kernel (%a, %a; %a, %a), scalar (%a, %a; %a, %a)",
                   k, c->count, rel.x, rel.y, c->r + c->radius[at], c->v.x, c->v.y, c->vel[at].x,
                   c->vel[at].y, c->tau, out[k].point.x, out[k].point.y, out[k].normal.x,
                   out[k].normal.y, want.point.x, want.point.y, want.normal.x, want.normal.y);
        ++*planes;
    }
    /* the groups of four (the last one short) whose lanes are all in the cutoff case: the
     * kernel skips their legs */
    for (int k0 = 0; k0 < c->count; k0 += 4) {
        int cut = 1;
        for (int k = k0; k < k0 + 4 && k < c->count; ++k) {
            int32_t at = nb[k].at;
            orca_vec2 a = vec(c->pos[at].x - c->p.x, c->pos[at].y - c->p.y);
            orca_vec2 x = vec(c->v.x - c->vel[at].x, c->v.y - c->vel[at].y);
            double r = c->r + c->radius[at];
            cut = cut && a.x * a.x + a.y * a.y > r * r &&
                  orca_vo_agent_cases(a, r, c->tau, x).kind == ORCA_CASE_CUTOFF;
        }
        *all_cut += cut;
    }
    /* nothing written past the list */
    unsigned char guard[sizeof out[0]];
    memset(guard, 0x5a, sizeof guard);
    ENSURE(memcmp(&out[c->count], guard, sizeof guard) == 0);
    return 0;
}

/* A neighbour of kind `kind` relative to the agent: each kind aims at one branch or
 * boundary of the agent case form. */
static void make_neighbor(kcase *c, int at, int kind, test_rng *g) /* kind 0: anything */
{
    double s = test_rng_uniform(g, 0.5, 4);
    double rb = test_rng_uniform(g, 0.1, 2);
    double R = c->r + rb;
    orca_vec2 a = vec(test_rng_uniform(g, -15, 15), test_rng_uniform(g, -15, 15));
    orca_vec2 vb = vec(test_rng_uniform(g, -2, 2), test_rng_uniform(g, -2, 2));
    switch (kind) {
    case 1: /* overlapping (distance < r) */
        a = vec(test_rng_uniform(g, -R, R) * 0.7, test_rng_uniform(g, -R, R) * 0.7);
        break;
    case 2: /* exactly touching: a = (3, 4) * s, r = 5 * s (a.a == r*r in doubles for these) */
        s = (double)(1 + test_rng_next(g) % 8);
        a = vec(3 * s, 4 * s);
        rb = 5 * s - c->r;
        break;
    case 3: /* the same velocity: x = 0 */
        vb = c->v;
        break;
    case 4: /* w parallel to a (cross = 0): x = a/tau + k*a, exact for these small integers */
        a = vec((double)(int)test_rng_uniform(g, -9, 9), (double)(int)test_rng_uniform(g, -9, 9));
        if (a.x == 0 && a.y == 0) {
            a.x = 7;
        }
        vb = vec(c->v.x - (a.x / c->tau + s * a.x), c->v.y - (a.y / c->tau + s * a.y));
        break;
    case 5: /* heading straight in: the cutoff circle */
        vb = vec(c->v.x - a.x * 0.5, c->v.y - a.y * 0.5);
        break;
    case 6: /* huge and tiny scales */
        s = ldexp(1, (int)(test_rng_next(g) % 1200) - 600);
        a = vec(a.x * s, a.y * s);
        vb = vec(vb.x * s, vb.y * s);
        rb = rb * s;
        break;
    case 7: /* subnormal offsets */
        a = vec(a.x * 0x1p-1060, a.y * 0x1p-1060);
        break;
    case 8: /* infinite and NaN values */
    {
        static const double odd[] = {INFINITY, -INFINITY, NAN, 0x1p1023, -0.0};
        int which = (int)(test_rng_next(g) % 4);
        double val = odd[test_rng_next(g) % 5];
        if (which == 0) {
            a.x = val;
        } else if (which == 1) {
            a.y = val;
        } else if (which == 2) {
            vb.x = val;
        } else {
            rb = val;
        }
        break;
    }
    default:
        break;
    }
    c->pos[at] = vec(c->p.x + a.x, c->p.y + a.y);
    c->vel[at] = vb;
    c->radius[at] = rb;
}

static int test_kernel_matches_scalar(void)
{
    if (kernels_missing()) {
        return 0;
    }
    test_rng g = {0x6b65726e656c73ull};
    long long planes = 0, all_cut = 0;
    for (int round = 0; round < 40000; ++round) {
        kcase c;
        memset(&c, 0, sizeof c);
        c.p = vec(test_rng_uniform(&g, -100, 100), test_rng_uniform(&g, -100, 100));
        if (round % 7 == 0) {
            c.p = vec(0, 0);
        }
        c.v = vec(test_rng_uniform(&g, -2, 2), test_rng_uniform(&g, -2, 2));
        c.r = test_rng_uniform(&g, 0.1, 2);
        c.tau = round % 5 == 0 ? 1 : test_rng_uniform(&g, 0.1, 20);
        c.dt = round % 3 == 0 ? 0.25 : test_rng_uniform(&g, 0.01, 1);
        c.count = 1 + round % MAX_NB;
        c.pos[0] = c.p;
        c.vel[0] = c.v;
        c.radius[0] = c.r;
        int kinds = round < 20000 ? 9 : 6; /* the second half without non-finite values */
        /* every tenth round: every neighbour heading straight in with tau < 2, nearly all in
         * the cutoff case (whole groups of them: the kernel's shortcut) */
        int straight = round % 10 == 5;
        if (straight) {
            c.tau = test_rng_uniform(&g, 0.1, 1.9);
        }
        for (int k = 1; k <= c.count; ++k) {
            int kind = straight ? 5 : (int)(test_rng_next(&g) % (unsigned long long)kinds);
            make_neighbor(&c, k, kind, &g);
        }
        if (check_case(&c, &g, &planes, &all_cut)) {
            return 1;
        }
    }
    printf("  %lld planes compared, %lld groups all in the cutoff case\n", planes, all_cut);
    ENSURE(all_cut > 1000);
    return 0;
}

/* The vector scan of the hinted search against brute force: random grids (rows of cells
 * with random prefix sums over a random position array), random query points, radii, list
 * capacities and the agent itself somewhere in the block or not; ties in distance broken by
 * index. */
static int test_box_scan_matches_brute_force(void)
{
    if (kernels_missing()) {
        return 0;
    }
    enum { W = 9, H = 7, NMAX = 400 };
    test_rng g = {0x626f78ull};
    long long lists = 0, offered = 0;
    for (int round = 0; round < 20000; ++round) {
        int32_t start[W * H + 1];
        orca_vec2 pos[NMAX + CELL_POS_PAD];
        int32_t index[NMAX];
        int n = 0;
        start[0] = 0;
        int per_cell = 1 + round % 6;
        for (int c = 0; c < W * H; ++c) {
            int k = (int)(test_rng_next(&g) % (unsigned long long)(per_cell + 1));
            n = n + k > NMAX ? NMAX : n + k;
            start[c + 1] = n;
        }
        double scale = round % 5 == 0 ? 1e-3 : (round % 5 == 1 ? 1e6 : 1);
        for (int k = 0; k < n + CELL_POS_PAD; ++k) {
            /* coarse coordinates in some rounds: equal distances, ties broken by index */
            double x = test_rng_uniform(&g, -10, 10), y = test_rng_uniform(&g, -10, 10);
            if (round % 3 == 0) {
                x = (double)(int)x;
                y = (double)(int)y;
            }
            pos[k] = vec(x * scale, y * scale);
        }
        for (int k = 0; k < n; ++k) {
            index[k] = k;
        }
        for (int k = n - 1; k > 0; --k) { /* agent indices in a shuffled order */
            int j = (int)(test_rng_next(&g) % (unsigned long long)(k + 1));
            int32_t t = index[k];
            index[k] = index[j];
            index[j] = t;
        }
        int32_t r0 = (int32_t)(test_rng_next(&g) % H), r1 = (int32_t)(test_rng_next(&g) % H);
        int32_t c0 = (int32_t)(test_rng_next(&g) % W), c1 = (int32_t)(test_rng_next(&g) % W);
        if (r0 > r1) {
            int32_t t = r0;
            r0 = r1;
            r1 = t;
        }
        if (c0 > c1) {
            int32_t t = c0;
            c0 = c1;
            c1 = t;
        }
        orca_vec2 p = vec(test_rng_uniform(&g, -10, 10) * scale, test_rng_uniform(&g, -10, 10) * scale);
        int32_t self = n > 0 && round % 2 ? (int32_t)(test_rng_next(&g) % (unsigned)n) : -1;
        if (self >= 0) {
            p = pos[self];
        }
        double rad = test_rng_uniform(&g, 0, 15) * scale;
        double filt2 = rad * rad;
        if (round % 4 == 3 && n > 0) { /* exactly some candidate's squared distance */
            int32_t k = (int32_t)(test_rng_next(&g) % (unsigned)n);
            double dx = pos[k].x - p.x, dy = pos[k].y - p.y;
            filt2 = dx * dx + dy * dy;
        }
        int cap = 1 + (int)(test_rng_next(&g) % 24); /* over 16: insertion */

        neighbor got[24], want[24];
        cand_buf cand;
        int ng = orca_box_scan_vector(start + r0 * W, W, r1 - r0 + 1, c0, c1, pos, index, self, p,
                                      filt2, got, &cand, cap);
        int nw = 0;
        for (int32_t r = r0; r <= r1; ++r) {
            for (int32_t k = start[r * W + c0]; k < start[r * W + c1 + 1]; ++k) {
                double dx = pos[k].x - p.x, dy = pos[k].y - p.y;
                double d2 = dx * dx + dy * dy;
                if (k == self || !(d2 < filt2)) {
                    continue;
                }
                ++offered;
                /* brute force: insert into a sorted list, keep the cap smallest */
                neighbor e = {d2, index[k], k};
                int at = nw < cap ? nw++ : cap;
                while (at > 0 && (e.dist2 < want[at - 1].dist2 ||
                                  (e.dist2 == want[at - 1].dist2 && e.index < want[at - 1].index))) {
                    if (at < cap) {
                        want[at] = want[at - 1];
                    }
                    --at;
                }
                if (at < cap) {
                    want[at] = e;
                }
            }
        }
        ENSURE_MSG(ng == nw, "round %d: %d entries, brute force %d", round, ng, nw);
        for (int k = 0; k < nw; ++k) {
            /* the ranked lists carry dist2 and at (index is cell_index[at]) */
            ENSURE_MSG(test_same_bits(got[k].dist2, want[k].dist2) && got[k].at == want[k].at,
                       "round %d, entry %d: (%a, at %d), brute force (%a, at %d)", round, k,
                       got[k].dist2, got[k].at, want[k].dist2, want[k].at);
        }
        ++lists;
    }
    printf("  %lld lists, %lld candidates within the radius\n", lists, offered);
    return 0;
}

/* The scalar search's column of x (step.c, dense_column): 0 below the grid, w - 1 at or past
 * its end, the truncated quotient otherwise. */
static int32_t column_of(double x, double inv, int32_t w)
{
    double q = x * inv;
    return q < 0 ? 0 : (q >= (double)w ? w - 1 : (int32_t)q);
}

/* orca_box_cells_vector against the scalar formula: random grids and points inside, near
 * and far outside them, radii from tiny to huge, values at cell boundaries. */
static int test_box_cells_match_scalar(void)
{
    if (kernels_missing()) {
        return 0;
    }
    test_rng g = {0x63656c6cull};
    long long boxes = 0;
    for (int round = 0; round < 200000; ++round) {
        box_grid grid;
        memset(&grid, 0, sizeof grid);
        double scale = round % 4 == 0 ? 1e-6 : (round % 4 == 1 ? 1e9 : 1);
        double cell = test_rng_uniform(&g, 0.5, 20) * scale;
        grid.w = 1 + (int32_t)(test_rng_next(&g) % 3000);
        grid.h = 1 + (int32_t)(test_rng_next(&g) % 3000);
        double ox = test_rng_uniform(&g, -1000, 1000) * scale;
        double oy = test_rng_uniform(&g, -1000, 1000) * scale;
        grid.origin[0] = grid.origin[1] = ox;
        grid.origin[2] = grid.origin[3] = oy;
        grid.top[0] = grid.top[1] = (double)grid.w - 0.5;
        grid.top[2] = grid.top[3] = (double)grid.h - 0.5;
        /* columns as wide as the rows, or a third (or another fraction) of their height */
        int split = round % 3 == 0 ? 1 : (round % 3 == 1 ? 3 : 1 + (int)(test_rng_next(&g) % 8));
        double cellx = cell / split;
        grid.inv[0] = grid.inv[1] = 1 / cellx;
        grid.inv[2] = grid.inv[3] = 1 / cell;
        /* points over the grid and a margin of its size around it, some on cell edges */
        double x = ox + test_rng_uniform(&g, -1, 2) * grid.w * cellx;
        double y = oy + test_rng_uniform(&g, -1, 2) * grid.h * cell;
        if (round % 5 == 0) {
            x = ox + (double)(int64_t)test_rng_uniform(&g, -10, grid.w + 10) * cellx;
        }
        if (round % 7 == 0) {
            x = round % 2 ? 1e300 : -1e300; /* far outside: clamped ends */
        }
        double bound = test_rng_uniform(&g, 0, 30) * scale;
        if (round % 11 == 0) {
            bound = round % 2 ? 0 : 1e308; /* a radius over the largest double's half */
        }
        double m = 1e-9 * test_rng_uniform(&g, 0, 1e4) * scale;
        orca_vec2 p = vec(x, y);
        int32_t got[4];
        orca_box_cells_vector(&grid, p, bound, m, got);
        int32_t want[4] = {column_of(p.x - bound - m - ox, grid.inv[0], grid.w),
                           column_of(p.x + bound + m - ox, grid.inv[0], grid.w),
                           column_of(p.y - bound - m - oy, grid.inv[2], grid.h),
                           column_of(p.y + bound + m - oy, grid.inv[2], grid.h)};
        for (int k = 0; k < 4; ++k) {
            ENSURE_MSG(got[k] == want[k],
                       "round %d, end %d: %d, scalar %d (p = (%a, %a), bound %a, m %a, w %d, h %d, "
                       "origin (%a, %a), inv %a, %a)",
                       round, k, got[k], want[k], p.x, p.y, bound, m, grid.w, grid.h, ox, oy,
                       grid.inv[0], grid.inv[2]);
        }
        ++boxes;
    }
    printf("  %lld boxes\n", boxes);
    return 0;
}
#else
static int test_kernel_matches_scalar(void)
{
    printf("  (no vector kernels in this build: skipped)\n");
    return 0;
}

static int test_box_scan_matches_brute_force(void)
{
    printf("  (no vector kernels in this build: skipped)\n");
    return 0;
}

static int test_box_cells_match_scalar(void)
{
    printf("  (no vector kernels in this build: skipped)\n");
    return 0;
}
#endif

/* The step's solve, its AVX2 copy (lp.inc: the velocity of the check loop held in
 * registers, the four-lane projections of the fallback, lines cut four at a time from the
 * eighth on: lp_cut4) against the copy every CPU runs, bit for bit: random constraint sets of
 * up to 40 lines, most of them infeasible (the fallback), with
 * repeated, opposite and nearly parallel normals (|d.N| about 1e-12 either side: parallel
 * lines, skipped projections), lines through the origin (intersections at +0 and -0, ties at
 * zero, points of +0 and -0 components; one set in 16 all such lines), hard prefixes, and huge (1e150), tiny (1e-150) and zero values. */
static int test_solve_copies_agree(void)
{
#ifdef ORCA_HAVE_AVX
    if (kernels_missing()) {
        return 0;
    }
    enum { NMAX = 40 };
    test_rng g = {0x6c70ull};
    long long fallbacks = 0, sets = 0;
    for (int round = 0; round < 200000; ++round) {
        /* three entries of room past the list, as the step's buffers have (lp_project4
         * reads and writes four at a time): NaN there, which must not count */
        orca_halfplane planes[NMAX + 3], sa[NMAX], sb[NMAX + 3];
        int count = 1 + (int)(test_rng_next(&g) % NMAX);
        int hard = (int)(test_rng_next(&g) % 4);
        hard = hard > count ? count : hard;
        static const double scales[] = {1e-6, 1e6, 1e-150, 1e150, 1, 1, 1, 1};
        double scale = scales[round % 8];
        for (int k = 0; k < count; ++k) {
            double a = test_rng_uniform(&g, -3.2, 3.2);
            orca_vec2 n = vec(a, test_rng_uniform(&g, -1, 1));
            double len = sqrt(n.x * n.x + n.y * n.y);
            n = len > 0 ? vec(n.x / len, n.y / len) : vec(1, 0);
            int kind = (int)(test_rng_next(&g) % 10);
            if (k > 0 && kind == 0) {
                n = planes[test_rng_next(&g) % (unsigned)k].normal; /* parallel, same side */
            } else if (k > 0 && kind == 1) {
                orca_vec2 o = planes[test_rng_next(&g) % (unsigned)k].normal;
                n = vec(-o.x, -o.y); /* opposite */
            } else if (k > 0 && kind >= 7) {
                /* nearly parallel: an earlier normal turned by about 1e-12 (|d.N| near the
                 * 1e-12 of the parallel test, on either side of it), maybe reversed */
                orca_vec2 o = planes[test_rng_next(&g) % (unsigned)k].normal;
                double e = test_rng_uniform(&g, 0.5e-12, 2e-12) * (kind == 8 ? -1 : 1);
                n = vec(o.x - e * o.y, o.y + e * o.x);
                if (kind == 9) {
                    n = vec(-n.x, -n.y);
                }
            }
            orca_vec2 pt =
                vec(test_rng_uniform(&g, -2, 2) * scale, test_rng_uniform(&g, -2, 2) * scale);
            if (kind == 2 || (kind >= 7 && test_rng_next(&g) % 2) || round % 16 == 5) {
                /* through the origin: t = +0 or -0, ties at 0; a point of -0 components
                 * keeps the sign of the end it is moved by (-0 + -0 = -0) */
                int z = (int)(test_rng_next(&g) % 4);
                pt = vec(z & 1 ? -0.0 : 0.0, z & 2 ? -0.0 : 0.0);
            } else if (kind == 3) {
                pt = vec(n.x * scale, n.y * scale); /* its line at distance scale */
            }
            planes[k].point = pt;
            planes[k].normal = n;
        }
        double max_speed = round % 11 == 0 ? 0 : test_rng_uniform(&g, 0.1, 3) * scale;
        orca_vec2 pref =
            vec(test_rng_uniform(&g, -3, 3) * scale, test_rng_uniform(&g, -3, 3) * scale);
        for (int k = count; k < count + 3; ++k) {
            planes[k].point = vec(NAN, NAN);
            planes[k].normal = vec(NAN, NAN);
        }
        orca_solve_result ra = orca_solve_step(planes, count, hard, max_speed, pref, sa);
        orca_solve_result rb = orca_solve_step_avx2(planes, count, hard, max_speed, pref, sb);
        ENSURE_MSG(test_same_bits(ra.velocity.x, rb.velocity.x) &&
                       test_same_bits(ra.velocity.y, rb.velocity.y) && ra.failed == rb.failed &&
                       ra.fallback == rb.fallback,
                   "round %d: (%a, %a) failed %d, AVX2 copy (%a, %a) failed %d", round,
                   ra.velocity.x, ra.velocity.y, ra.failed, rb.velocity.x, rb.velocity.y,
                   rb.failed);
        fallbacks += ra.fallback;
        ++sets;
    }
    printf("  %lld constraint sets, %lld through the fallback\n", sets, fallbacks);
#else
    printf("  (no AVX2 copy in this build: skipped)\n");
#endif
    return 0;
}

/* Whole runs: every built-in scene with the kernels on and off, hashes compared after every
 * step, and the constraint query of every agent compared at the end (queries run the scalar
 * copy either way; test_kernel_matches_scalar compares the kernel with it). */
static int test_sim_vector_off_on(void)
{
    for (int kind = 0; kind < ORCA_SCENE_COUNT; ++kind) {
        orca_scenario *a = NULL, *b = NULL;
        ENSURE(orca_scenario_create_builtin((orca_scene_kind)kind, 300, 7, NULL, &a) == ORCA_OK);
        ENSURE(orca_scenario_create_builtin((orca_scene_kind)kind, 300, 7, NULL, &b) == ORCA_OK);
        orca_sim *sa = orca_scenario_sim(a), *sb = orca_scenario_sim(b);
        ENSURE(orca_sim_set_vector_kernels(sb, 0) == 0);
        ENSURE(orca_sim_get_vector_kernels(sb) == 0);
        ENSURE(orca_sim_get_vector_kernels(sa) == orca_kernels_available());
        for (int step = 0; step < 120; ++step) {
            ENSURE(orca_scenario_step(a) == ORCA_OK);
            ENSURE(orca_scenario_step(b) == ORCA_OK);
            ENSURE_MSG(orca_sim_hash(sa) == orca_sim_hash(sb), "%s, step %d",
                       orca_scene_name((orca_scene_kind)kind), step);
        }
        int n = orca_sim_agent_count(sa);
        for (int i = 0; i < n; ++i) {
            orca_halfplane pa[64], pb[64];
            int ca = 0, cb = 0;
            ENSURE(orca_sim_agent_constraints(sa, orca_sim_agent_at(sa, i), 0.25, pa, 64, &ca,
                                              NULL) == ORCA_OK);
            ENSURE(orca_sim_agent_constraints(sb, orca_sim_agent_at(sb, i), 0.25, pb, 64, &cb,
                                              NULL) == ORCA_OK);
            ENSURE(ca == cb);
            for (int k = 0; k < ca && k < 64; ++k) {
                ENSURE(same_plane(pa[k], pb[k]));
            }
        }
        /* and back on: the answer says whether the CPU has them */
        ENSURE(orca_sim_set_vector_kernels(sb, 1) == orca_kernels_available());
        orca_scenario_destroy(a);
        orca_scenario_destroy(b);
    }
    ENSURE(orca_sim_set_vector_kernels(NULL, 1) == 0);
    ENSURE(orca_sim_get_vector_kernels(NULL) == 0);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The step's neighbour search (orca_step_search_test: select_agents as the step runs it,
 * from a given hint) against brute force, in both copies. Each scene fixes the grid's cells
 * exactly: every agent's neighbour distance is 16 s (s a power of two), so the dense grid's
 * rows are 8 s tall and its columns 2 s wide (16 s square cells in the sparse variant), and
 * an agent at the lower corner puts the origin there. Each searched centre gets a hint g
 * (the first search radius is lim = g * 1.03) and a ring of agents just inside lim: two on
 * the axes, on a column edge and on a row edge lim (1 - t) away (t from 1e-13 to 1e-6), or
 * for every other centre one at a corner of cells off the axes lim (1 - t) away (the end of
 * its row's chord, for a search that trims its rows to the disc), the others where the
 * circle of radius lim (1 - t) crosses the other column and row edges, or anywhere on it; no
 * other agent is as near. On the sides above and right of the centre they sit on the edge
 * (the first place in a cell), below and left of it just before the edge (the last place in
 * a cell). A search that
 * looks at too few cells on any side loses one of them while its list still fills from the
 * rest, and the list differs from the brute force's. Centres also sit at the grid's first
 * and last rows and columns. */
typedef struct ss_world {
    int n, cap_room;
    orca_vec2 *pos;
    int *max_nb;
    float *hint;     /* centres: their hint; others 0 */
    int *axis;       /* 1: an axis agent of a ring (t1 or t2), for the count of sharp cases */
    double lo[2], hi[2];
} ss_world;

static int ss_add(ss_world *w, orca_vec2 p, int max_nb, float hint, int axis)
{
    if (!(p.x >= w->lo[0] && p.x <= w->hi[0] && p.y >= w->lo[1] && p.y <= w->hi[1])) {
        return -1;
    }
    if (w->n == w->cap_room) {
        w->cap_room = w->cap_room ? 2 * w->cap_room : 1024;
        w->pos = realloc(w->pos, (size_t)w->cap_room * sizeof *w->pos);
        w->max_nb = realloc(w->max_nb, (size_t)w->cap_room * sizeof *w->max_nb);
        w->hint = realloc(w->hint, (size_t)w->cap_room * sizeof *w->hint);
        w->axis = realloc(w->axis, (size_t)w->cap_room * sizeof *w->axis);
        if (!w->pos || !w->max_nb || !w->hint || !w->axis) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    w->pos[w->n] = p;
    w->max_nb[w->n] = max_nb;
    w->hint[w->n] = hint;
    w->axis[w->n] = axis;
    return w->n++;
}

/* t from 1e-13 to 1e-6, log-uniform */
static double ss_t(test_rng *g)
{
    return pow(10, test_rng_uniform(g, -13, -6));
}

/* The ring of a centre p at radius about lim (its agents appended to w). ex, ey: the
 * column and row edges' spacing from the origin (lo). */
static void ss_ring(ss_world *w, test_rng *g, orca_vec2 p, double lim, double ex, double ey)
{
    for (int axis = 0; axis < 2; ++axis) {
        double pc = axis ? p.y : p.x, e = axis ? ey : ex, o = w->lo[axis];
        for (double k = ceil((pc - lim - o) / e); o + k * e < pc + lim; ++k) {
            double edge = o + k * e;
            edge = edge < pc ? nextafter(edge, -INFINITY) : edge; /* as the axis agents */
            double off = edge - pc;
            if (test_rng_next(g) % 2) {
                continue;
            }
            double d = lim * (1 - ss_t(g));
            if (!(off * off < d * d)) {
                continue;
            }
            double along = sqrt(d * d - off * off) * (test_rng_next(g) % 2 ? 1 : -1);
            orca_vec2 q = axis ? vec(p.x + along, edge) : vec(edge, p.y + along);
            ss_add(w, q, 10, 0, 0);
        }
    }
    for (int k = 0; k < 4; ++k) {
        double d = lim * (1 - ss_t(g)), a = test_rng_uniform(g, 0, 6.283185307179586);
        ss_add(w, vec(p.x + d * cos(a), p.y + d * sin(a)), 10, 0, 0);
    }
}

static int ss_less(double d2a, int a, double d2b, int b)
{
    return d2a < d2b || (d2a == d2b && a < b);
}

static int test_step_search_matches_brute_force(void)
{
    static const struct {
        double s, x, y; /* scale, lower corner */
        int sparse;     /* 1: few agents over a wide box, square cells of 16 s */
    } cases[] = {
        {1, 0, 0, 0},
        {1, 1048576.0, -1048640.0, 0},
        {1, -2097000.0, 2096000.0, 0}, /* near the largest coordinates */
        {0x1p-24, 0, 0, 0},
        {0x1p-24, 3 * 0x1p-9, -5 * 0x1p-8, 0},
        {2048, 0, -131072.0, 0},
        {1, 0, 0, 1},
        {0x1p-20, 1024.0, 512.0, 1},
    };
    long long lists = 0, sharp = 0, entries = 0;
    for (int round = 0; round < 200; ++round) {
        int cs = round % 8;
        double s = cases[cs].s;
        int sparse = cases[cs].sparse;
        test_rng g = {0x5ea6c400ull + (unsigned)round};
        ss_world w;
        memset(&w, 0, sizeof w);
        double width = (sparse ? 1200 : 120) * s, height = (sparse ? 640 : 64) * s;
        double ex = (sparse ? 16 : 2) * s, ey = (sparse ? 16 : 8) * s;
        w.lo[0] = cases[cs].x;
        w.lo[1] = cases[cs].y;
        w.hi[0] = w.lo[0] + width;
        w.hi[1] = w.lo[1] + height;
        ss_add(&w, vec(w.lo[0], w.lo[1]), 10, 0, 0); /* the origin */
        ss_add(&w, vec(w.hi[0], w.hi[1]), 10, 0, 0); /* the last row and column */
        /* centres, each with its two axis agents and its ring */
        int centres = 0;
        orca_vec2 cp[64];
        double clim[64];
        for (int tries = 0; tries < 400 && centres < 40; ++tries) {
            float hint = (float)(test_rng_uniform(&g, 3, 9) * s);
            double lim = (double)hint * 1.03; /* the first search radius, as select_agents */
            int sx = test_rng_next(&g) % 2 ? 1 : -1, sy = test_rng_next(&g) % 2 ? 1 : -1;
            /* the edges the axis agents sit on: some on the grid's ends */
            int nx = (int)(width / ex), ny = (int)(height / ey);
            int kx = (int)(test_rng_next(&g) % (unsigned)(nx + 1));
            int ky = (int)(test_rng_next(&g) % (unsigned)(ny + 1));
            if (tries % 5 == 0) {
                kx = sx > 0 ? nx : 0;
            }
            if (tries % 5 == 1) {
                ky = sy > 0 ? ny : 0;
            }
            double xe = w.lo[0] + kx * ex, ye = w.lo[1] + ky * ey;
            /* on the edge above or right of p, or just before the edge below or left of it:
             * the last place in the cell beyond the one the search's side ends in */
            double ax = sx > 0 ? xe : nextafter(xe, -INFINITY);
            double ay = sy > 0 ? ye : nextafter(ye, -INFINITY);
            orca_vec2 p = vec(xe - sx * (lim * (1 - ss_t(&g))), ye - sy * (lim * (1 - ss_t(&g))));
            int corner = tries % 2; /* one agent at the corner (ax, ay) instead, off the axes */
            if (corner) {
                double a = test_rng_uniform(&g, 0.15, 1.42); /* from the axes by 0.15 or more */
                double d = lim * (1 - ss_t(&g));
                p = vec(ax - sx * d * cos(a), ay - sy * d * sin(a));
            }
            if (!(p.x >= w.lo[0] && p.x <= w.hi[0] && p.y >= w.lo[1] && p.y <= w.hi[1])) {
                continue;
            }
            int clash = 0; /* centres apart: each ring the only agents near its centre */
            for (int c = 0; c < centres; ++c) {
                double dx = p.x - cp[c].x, dy = p.y - cp[c].y;
                clash |= dx * dx + dy * dy < 4 * (lim + clim[c]) * (lim + clim[c]);
            }
            if (clash) {
                continue;
            }
            int first = w.n;
            int ci = ss_add(&w, p, 1, hint, 0);
            if (corner) {
                ss_add(&w, vec(ax, ay), 10, 0, 1);
            } else {
                ss_add(&w, vec(ax, p.y), 10, 0, 1);
                ss_add(&w, vec(p.x, ay), 10, 0, 1);
            }
            ss_ring(&w, &g, p, lim, ex, ey);
            int ring = w.n - first - 1;
            /* lists of 1 to 16 (ranked) and some longer (insertion), some longer than the
             * ring (the first search does not fill: the wider ones run) */
            int cap = 1 + (int)(test_rng_next(&g) % (unsigned)(ring + 2));
            cap = tries % 7 == 0 ? 17 + (int)(test_rng_next(&g) % 8) : cap;
            w.max_nb[ci] = cap;
            cp[centres] = p;
            clim[centres++] = lim;
        }
        /* other agents, one per 16 s^2 on average, none within 1.5 lim of a centre */
        int fill = (int)(width * height / (16 * s * s));
        fill = sparse ? 400 : fill;
        for (int k = 0; k < fill; ++k) {
            orca_vec2 q = vec(test_rng_uniform(&g, w.lo[0], w.hi[0]),
                              test_rng_uniform(&g, w.lo[1], w.hi[1]));
            int near = 0;
            for (int c = 0; c < centres; ++c) {
                double dx = q.x - cp[c].x, dy = q.y - cp[c].y;
                near |= dx * dx + dy * dy < 2.25 * clim[c] * clim[c];
            }
            if (!near) {
                ss_add(&w, q, 10, 0, 0);
            }
        }
        orca_sim_def def = orca_sim_def_default();
        orca_sim *sim = NULL;
        ENSURE(orca_sim_create(&def, &sim) == ORCA_OK);
        for (int i = 0; i < w.n; ++i) {
            orca_agent_def d = orca_agent_def_default();
            d.position = w.pos[i];
            d.radius = 0.1 * s;
            d.neighbor_dist = 16 * s;
            d.max_neighbors = w.max_nb[i];
            ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
        }
        int32_t got[32];
        ENSURE(orca_step_search_test(sim, 0, 0, 0, got) >= 0); /* builds the grid */
        /* the cells the scene was built for */
        ENSURE_MSG(sim->grid_dense && sim->cell == (sparse ? 16 : 8) * s &&
                       sim->cell_x == ex && sim->origin_x == w.lo[0] &&
                       sim->origin_y == w.lo[1],
                   "round %d: grid %d, cells %a by %a", round, sim->grid_dense, sim->cell_x,
                   sim->cell);
        double nd2 = (16 * s) * (16 * s);
        for (int i = 0; i < w.n; ++i) {
            if (w.hint[i] == 0) {
                continue;
            }
            /* brute force: the cap first by (squared distance, index) within 16 s */
            int cap = w.max_nb[i], nw = 0;
            int want[32];
            double wd2[32];
            for (int j = 0; j < w.n; ++j) {
                double dx = w.pos[j].x - w.pos[i].x, dy = w.pos[j].y - w.pos[i].y;
                double d2 = dx * dx + dy * dy;
                if (j == i || !(d2 < nd2)) {
                    continue;
                }
                int at = nw < cap ? nw++ : cap;
                while (at > 0 && ss_less(d2, j, wd2[at - 1], want[at - 1])) {
                    if (at < cap) {
                        want[at] = want[at - 1];
                        wd2[at] = wd2[at - 1];
                    }
                    --at;
                }
                if (at < cap) {
                    want[at] = j;
                    wd2[at] = d2;
                }
            }
            for (int k = 0; k < nw; ++k) {
                sharp += w.axis[want[k]] && k + 1 < nw;
            }
            for (int kernels = 0; kernels < 2; ++kernels) {
                int ng = orca_step_search_test(sim, i, w.hint[i], kernels, got);
                ENSURE_MSG(ng == nw, "round %d, agent %d at (%a, %a), hint %a, kernels %d: %d "
                           "neighbours, brute force %d", round, i, w.pos[i].x, w.pos[i].y,
                           (double)w.hint[i], kernels, ng, nw);
                for (int k = 0; k < nw; ++k) {
                    ENSURE_MSG(got[k] == want[k], "round %d, agent %d at (%a, %a), hint %a, "
                               "kernels %d: neighbour #%d is %d, brute force %d", round, i,
                               w.pos[i].x, w.pos[i].y, (double)w.hint[i], kernels, k, got[k],
                               want[k]);
                }
                ++lists;
                entries += nw;
            }
        }
        orca_sim_destroy(sim);
        free(w.pos);
        free(w.max_nb);
        free(w.hint);
        free(w.axis);
    }
    printf("  %lld lists, %lld entries, %lld axis agents listed before the last entry\n", lists,
           entries, sharp);
    ENSURE(lists > 8000 && sharp > 2000);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The grid's cells and a few far-reaching agents (grid.c, grid_need; docs/determinism.md,
 * "The grid only chooses what is looked at"): the cells are sized for the neighbour
 * distances of most agents, so one agent of neighbour distance 2^23 (or a few) leaves them
 * as they were, and its own search, in both copies and from any hint, still gives the brute
 * force's list.
 * ------------------------------------------------------------------------------------- */

/* The grid of sim as the next step builds it: dense or not, row height and column width. */
static int grid_cells(orca_sim *sim, int *dense, double *cell, double *cell_x)
{
    ENSURE(orca_grid_prepare(sim) == ORCA_OK);
    *dense = sim->grid_dense;
    *cell = sim->cell;
    *cell_x = sim->cell_x;
    return 0;
}

#define ENSURE_CELLS(sim, want_dense, want_cell, what)                                       \
    do {                                                                                      \
        int dense_ = -1;                                                                      \
        double cell_ = 0, cell_x_ = 0;                                                        \
        ENSURE(grid_cells((sim), &dense_, &cell_, &cell_x_) == 0);                            \
        ENSURE_MSG(dense_ == (want_dense) && cell_ == (want_cell), "%s: grid %d, cells %a, "  \
                   "expected grid %d, cells %a", (what), dense_, cell_, (int)(want_dense),    \
                   (double)(want_cell));                                                      \
    } while (0)

static orca_agent_id far_add(orca_sim *sim, orca_vec2 p, double nd, int max_nb, double radius)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = p;
    d.neighbor_dist = nd;
    d.max_neighbors = max_nb;
    d.radius = radius;
    orca_agent_id id = {0, 0, 0};
    orca_sim_add_agent(sim, &d, &id);
    return id;
}

static int far_set_nd(orca_sim *sim, int i, double nd)
{
    orca_agent_id id = orca_sim_agent_at(sim, i);
    orca_agent_def d;
    ENSURE(orca_agent_get(sim, id, &d) == ORCA_OK);
    d.neighbor_dist = nd;
    ENSURE(orca_agent_set(sim, id, &d) == ORCA_OK);
    return 0;
}

static int test_grid_cells_far_agents(void)
{
    const double far = 8388608.0; /* ORCA_NEIGHBOR_DIST_MAX */
    test_rng g = {0xfa5ce11ull};
    /* dense: 2000 agents over 150 m by 150 m, neighbour distance 15 */
    orca_sim *sim = NULL;
    orca_sim_def def = orca_sim_def_default();
    ENSURE(orca_sim_create(&def, &sim) == ORCA_OK);
    for (int i = 0; i < 2000; ++i) {
        far_add(sim, vec(test_rng_uniform(&g, 0, 150), test_rng_uniform(&g, 0, 150)), 15, 10,
                0.5);
    }
    /* one neighbour distance: rows half of it tall (and columns a quarter of that wide) */
    ENSURE_CELLS(sim, 1, 7.5, "plain");
    ENSURE(sim->cell_x == 7.5 / 4);
    far_add(sim, vec(75, 75), far, 10, 0.5);
    ENSURE_CELLS(sim, 1, 7.5, "one agent of neighbour distance 2^23");
    far_add(sim, vec(0.25, 149.5), 1048576.0, 1, 0.5);
    far_add(sim, vec(149.75, 0.5), 1e6, ORCA_MAX_NEIGHBORS_LIMIT, 0.5);
    ENSURE_CELLS(sim, 1, 7.5, "four far agents");
    far_add(sim, vec(20, 30), far, 0, 0.5); /* no search: not counted */
    ENSURE_CELLS(sim, 1, 7.5, "and one with max_neighbors 0");
    /* not rare: an eighth of the agents at 60 m */
    for (int i = 0; i < 250; ++i) {
        ENSURE(far_set_nd(sim, 8 * i, 60) == 0);
    }
    ENSURE_CELLS(sim, 1, 30, "an eighth at 60 m");
    for (int i = 0; i < 250; ++i) {
        ENSURE(far_set_nd(sim, 8 * i, 15) == 0);
    }
    ENSURE_CELLS(sim, 1, 7.5, "back at 15 m");
    /* the others move to 3 m: agent 0 at 15 m is rare now (the edits keep the counts) */
    for (int i = 1; i < 2000; ++i) {
        ENSURE(far_set_nd(sim, i, 3) == 0);
    }
    ENSURE_CELLS(sim, 1, 1.5, "agent 0 and the far ones rare");
    /* a radius beyond the neighbour distances sizes the cells */
    orca_agent_id big = far_add(sim, vec(80, 80), 0, 0, 4);
    ENSURE_CELLS(sim, 1, 4, "radius 4");
    ENSURE(orca_sim_remove_agent(sim, big) == ORCA_OK);
    /* with 9 agents at 3 m left, none is rare: the largest neighbour distance, as always */
    orca_agent_id gone[1990];
    for (int i = 0; i < 1990; ++i) {
        gone[i] = orca_sim_agent_at(sim, 10 + i);
    }
    ENSURE(orca_sim_remove_agents(sim, gone, 1990) == ORCA_OK);
    ENSURE_CELLS(sim, 1, far / 2, "14 agents");
    /* and the same from a snapshot (the sizes from a pass over the agents) */
    size_t size = 0;
    ENSURE(orca_sim_save(sim, NULL, 0, &size) == ORCA_OK);
    unsigned char *snap = malloc(size);
    ENSURE(snap && orca_sim_save(sim, snap, size, &size) == ORCA_OK);
    ENSURE(orca_sim_load(sim, snap, size) == ORCA_OK);
    free(snap);
    ENSURE_CELLS(sim, 1, far / 2, "14 agents, loaded");
    orca_sim_destroy(sim);

    /* hashed: 8 clusters far apart; cells a little over the neighbour distance */
    ENSURE(orca_sim_create(&def, &sim) == ORCA_OK);
    for (int c = 0; c < 8; ++c) {
        orca_vec2 at = vec(test_rng_uniform(&g, -1.5e6, 1.5e6), test_rng_uniform(&g, -1.5e6, 1.5e6));
        for (int i = 0; i < 250; ++i) {
            far_add(sim, vec(at.x + test_rng_uniform(&g, 0, 60), at.y + test_rng_uniform(&g, 0, 60)),
                    15, 10, 0.5);
        }
    }
    double hashed = 15 * (1 + 0x1p-20) + 0x1p-530;
    ENSURE_CELLS(sim, 0, hashed, "clusters");
    far_add(sim, vec(0, 0), far, 10, 0.5);
    far_add(sim, vec(-2e6, 2e6), 1e5, 300, 0.5);
    ENSURE_CELLS(sim, 0, hashed, "clusters and far agents");
    orca_sim_destroy(sim);

    /* neighbour distances 0, -0 and subnormal, radii the smallest: cells of the diameter
     * (hashed: a dense array of them would be far too large), and one far agent changes
     * nothing */
    ENSURE(orca_sim_create(&def, &sim) == ORCA_OK);
    static const double tiny[] = {0.0, -0.0, 4.9406564584124654e-324, 2.2250738585072014e-308};
    for (int i = 0; i < 400; ++i) {
        far_add(sim, vec(test_rng_uniform(&g, 0, 150), test_rng_uniform(&g, 0, 150)), tiny[i % 4],
                10, ORCA_RADIUS_MIN);
    }
    hashed = 0x1p-29 * (1 + 0x1p-20) + 0x1p-530;
    ENSURE_CELLS(sim, 0, hashed, "tiny");
    far_add(sim, vec(75, 75), far, 10, ORCA_RADIUS_MIN);
    ENSURE_CELLS(sim, 0, hashed, "tiny and a far agent");
    orca_sim_destroy(sim);
    return 0;
}

/* The dense grid's counting sort on the workers (in blocks of agents, the cells' offsets in
 * spans of cells) against the one on the caller (one worker): the same sorted order and the
 * same cell starts, agent for agent and cell for cell, for 2 to 8 workers (4 to 16 blocks, 16
 * to 64 spans), over a uniform crowd, a clustered one (most cells and whole spans empty) and
 * one where every agent shares one cell's row. */
static int grid_order(int workers, int layout, int32_t **index, int32_t **start, size_t *cells)
{
    orca_sim *sim = NULL;
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    ENSURE(orca_sim_create(&def, &sim) == ORCA_OK);
    test_rng g = {0x5047u + (unsigned)layout};
    const int n = 40000;
    for (int i = 0; i < n; ++i) {
        orca_vec2 p;
        if (layout == 0) {
            p = vec(test_rng_uniform(&g, 0, 400), test_rng_uniform(&g, 0, 400));
        } else if (layout == 1) {
            double cx = 100.0 * (double)(i % 3), cy = 150.0 * (double)(i % 2);
            p = vec(cx + test_rng_uniform(&g, 0, 20), cy + test_rng_uniform(&g, 0, 20));
        } else {
            p = vec(test_rng_uniform(&g, 0, 2000), 0.5 * (double)(i % 2));
        }
        orca_agent_def d = orca_agent_def_default();
        d.position = p;
        d.neighbor_dist = 4;
        d.radius = 0.2;
        ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    }
    ENSURE(orca_grid_prepare(sim) == ORCA_OK);
    ENSURE(sim->grid_dense);
    *cells = (size_t)sim->grid_w * (size_t)sim->grid_h;
    *index = malloc((size_t)n * sizeof **index);
    *start = malloc((*cells + 1) * sizeof **start);
    ENSURE(*index && *start);
    memcpy(*index, sim->cell_index, (size_t)n * sizeof **index);
    memcpy(*start, sim->cell_start, (*cells + 1) * sizeof **start);
    orca_sim_destroy(sim);
    return 0;
}

static int test_grid_sort_on_workers(void)
{
    for (int layout = 0; layout < 3; ++layout) {
        int32_t *index1, *start1;
        size_t cells1;
        ENSURE(grid_order(1, layout, &index1, &start1, &cells1) == 0);
        for (int workers = 2; workers <= 8; workers += workers < 4 ? 1 : 4) {
            int32_t *index, *start;
            size_t cells;
            ENSURE(grid_order(workers, layout, &index, &start, &cells) == 0);
            ENSURE(cells == cells1);
            ENSURE(memcmp(index, index1, 40000 * sizeof *index) == 0);
            ENSURE(memcmp(start, start1, (cells + 1) * sizeof *start) == 0);
            free(index);
            free(start);
        }
        free(index1);
        free(start1);
    }
    return 0;
}

/* The hashed grid's build on the workers (the map cut into parts of slots, cells put off
 * where a part's probes would leave it) against the one on the caller (one worker): the same
 * sorted order, the same cells with the same ranges, and every agent inside its cell's range,
 * for 2 to 8 workers, over crowds too sparse for the dense grid: uniform, on a ring, in three
 * far clusters (many agents a cell), in cells whose first slots all lie in the first 2,048 of
 * the table (one part holds every cell; on 8 workers most are put off) and with 31 agents in
 * cells whose first slots are the table's last 30 (a dozen put off, their probes wrapping to
 * the table's start). */
enum { HASH_N = 40000 };

/* A position in the middle of cell (cx, cy) of size cell. */
static orca_vec2 hashed_cell_centre(int32_t cx, int32_t cy, double cell)
{
    return vec(((double)cx + 0.5) * cell, ((double)cy + 0.5) * cell);
}

/* A cell whose first slot in a table of mask + 1 slots lies in [lo, hi). */
static void hashed_cell_in(test_rng *g, uint32_t mask, uint32_t lo, uint32_t hi, int32_t *cx,
                           int32_t *cy)
{
    for (;;) {
        *cx = (int32_t)test_rng_uniform(g, -262144, 262144);
        *cy = (int32_t)test_rng_uniform(g, -262144, 262144);
        uint32_t h = cell_hash(cell_key(*cx, *cy), mask);
        if (h >= lo && h < hi) {
            return;
        }
    }
}

static orca_sim *hashed_crowd(int workers, int layout, double cell)
{
    orca_sim *sim = NULL;
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = workers;
    if (orca_sim_create(&def, &sim) != ORCA_OK) {
        return NULL;
    }
    test_rng g = {0x4a5e7u + (unsigned)layout};
    const uint32_t mask = 131071; /* 2 * 40,000 + 2 slots, to a power of two */
    int32_t special[6000][2];
    int specials = layout == 3 ? 6000 : (layout == 4 ? 31 : 0);
    for (int k = 0; k < specials; ++k) {
        hashed_cell_in(&g, mask, layout == 3 ? 0 : mask + 1 - 30, layout == 3 ? 2048 : mask + 1,
                       &special[k][0], &special[k][1]);
    }
    for (int i = 0; i < HASH_N; ++i) {
        orca_vec2 p;
        if (layout == 0 || (layout == 4 && i % 1300 != 0)) {
            p = vec(test_rng_uniform(&g, -2e6, 2e6), test_rng_uniform(&g, -2e6, 2e6));
        } else if (layout == 1) {
            /* (1 - t^2, 2t) / (1 + t^2) on a ring of 100 km */
            double t = test_rng_uniform(&g, -1, 1);
            p = vec(1e5 * (1 - t * t) / (1 + t * t), 1e5 * 2 * t / (1 + t * t));
        } else if (layout == 2) {
            double cx = 1e6 * (double)(i % 3 - 1), cy = 1e6 * (double)(i % 2);
            p = vec(cx + test_rng_uniform(&g, 0, 20), cy + test_rng_uniform(&g, 0, 20));
        } else {
            int k = layout == 3 ? (i / 4) % specials : i / 1300; /* 4 agents a cell, or 1 */
            p = hashed_cell_centre(special[k][0], special[k][1], cell);
        }
        orca_agent_def d = orca_agent_def_default();
        d.position = p;
        d.neighbor_dist = 4;
        d.radius = 0.2;
        if (orca_sim_add_agent(sim, &d, NULL) != ORCA_OK) {
            orca_sim_destroy(sim);
            return NULL;
        }
    }
    return sim;
}

/* Every agent inside the range of its cell, at its rank. */
static int hashed_ranges_hold_agents(const orca_sim *sim)
{
    for (int32_t i = 0; i < sim->agent_count; ++i) {
        int32_t cx = cell_coord(sim->pos[i].x, sim->inv_cell);
        int32_t cy = cell_coord(sim->pos[i].y, sim->inv_cell);
        int64_t h = cell_map_find(&sim->agent_cells, cell_key(cx, cy));
        ENSURE(h >= 0);
        int32_t r = sim->rank[i], begin = sim->agent_cells.start[h];
        ENSURE(r >= begin && r < begin + sim->agent_cells.count[h]);
        ENSURE(sim->cell_index[r] == i);
    }
    return 0;
}

static int test_hashed_grid_on_workers(void)
{
    /* the cells' size: that of a hashed grid for these agents (neighbour distance 4) */
    orca_sim *probe = hashed_crowd(1, 0, 0);
    ENSURE(probe && orca_grid_prepare(probe) == ORCA_OK && !probe->grid_dense);
    double cell = probe->cell;
    orca_sim_destroy(probe);
    for (int layout = 0; layout < 5; ++layout) {
        orca_sim *one = hashed_crowd(1, layout, cell);
        ENSURE(one && orca_grid_prepare(one) == ORCA_OK);
        ENSURE(!one->grid_dense && one->cell == cell && one->agent_cells.mask == 131071);
        ENSURE(hashed_ranges_hold_agents(one) == 0);
        const cell_map *m1 = &one->agent_cells;
        int cells1 = 0;
        for (uint32_t k = 0; k <= m1->mask; ++k) {
            cells1 += m1->keys[k] != CELL_EMPTY;
        }
        for (int workers = 2; workers <= 8; workers += workers < 4 ? 1 : 4) {
            orca_sim *sim = hashed_crowd(workers, layout, cell);
            ENSURE(sim && orca_grid_prepare(sim) == ORCA_OK && !sim->grid_dense);
            ENSURE(memcmp(sim->cell_index, one->cell_index, HASH_N * sizeof *one->cell_index) == 0);
            ENSURE(memcmp(sim->rank, one->rank, HASH_N * sizeof *one->rank) == 0);
            ENSURE(hashed_ranges_hold_agents(sim) == 0);
            const cell_map *m = &sim->agent_cells;
            int cells = 0;
            for (uint32_t k = 0; k <= m->mask; ++k) {
                if (m->keys[k] == CELL_EMPTY) {
                    continue;
                }
                ++cells;
                int64_t h = cell_map_find(m1, m->keys[k]);
                ENSURE(h >= 0 && m1->start[h] == m->start[k] && m1->count[h] == m->count[k]);
            }
            ENSURE(cells == cells1);
            orca_sim_destroy(sim);
        }
        orca_sim_destroy(one);
    }
    return 0;
}

/* The step's search (orca_step_search_test) of far-reaching agents in a dense grid sized for
 * the others, in both copies, from no hint, a too small one, a right one and "not full",
 * against brute force. */
static int test_step_search_far_agents(void)
{
    enum { N = 3000 };
    static orca_vec2 pos[N + 16];
    static int32_t got[ORCA_MAX_NEIGHBORS_LIMIT + 1];
    static int32_t want[ORCA_MAX_NEIGHBORS_LIMIT + 1];
    static double wd2[ORCA_MAX_NEIGHBORS_LIMIT + 1];
    static const struct {
        double nd;
        int cap;
        orca_vec2 at; /* < 0: a corner of the box */
    } far[] = {
        {8388608.0, 10, {100, 60}},   {8388608.0, 1, {-1, -1}},    {1048576.0, 16, {-2, -1}},
        {8388608.0, 1024, {30, 100}}, {45.0, 200, {-1, -2}},       {120.0, 17, {199, 119}},
        {1e6, 700, {150, 20}},        {31.0, 1024, {-2, -2}},
    };
    const int nf = (int)(sizeof far / sizeof far[0]);
    test_rng g = {0x5ea7fa4ull};
    orca_sim *sim = NULL;
    orca_sim_def def = orca_sim_def_default();
    ENSURE(orca_sim_create(&def, &sim) == ORCA_OK);
    int n = 0;
    for (; n < N; ++n) {
        pos[n] = vec(test_rng_uniform(&g, 0, 200), test_rng_uniform(&g, 0, 120));
        orca_agent_def d = orca_agent_def_default();
        d.position = pos[n];
        d.radius = 0.25;
        d.neighbor_dist = 6;
        d.max_neighbors = 10;
        ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
    }
    for (int f = 0; f < nf; ++f) {
        orca_vec2 p = far[f].at;
        p.x = p.x == -1 ? 0 : (p.x == -2 ? 200 : p.x);
        p.y = p.y == -1 ? 0 : (p.y == -2 ? 120 : p.y);
        pos[n] = p;
        orca_agent_def d = orca_agent_def_default();
        d.position = p;
        d.radius = 0.25;
        d.neighbor_dist = far[f].nd;
        d.max_neighbors = far[f].cap;
        ENSURE(orca_sim_add_agent(sim, &d, NULL) == ORCA_OK);
        ++n;
    }
    ENSURE(orca_step_search_test(sim, 0, 0, 0, got) >= 0);
    ENSURE(sim->grid_dense && sim->cell == 3); /* rows 3 m tall, whatever the far agents */
    long long lists = 0;
    for (int f = 0; f < nf; ++f) {
        int i = N + f, cap = far[f].cap, nw = 0;
        double nd2 = far[f].nd * far[f].nd;
        for (int j = 0; j < n; ++j) {
            double dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y;
            double d2 = dx * dx + dy * dy;
            if (j == i || !(d2 < nd2)) {
                continue;
            }
            int at = nw < cap ? nw++ : cap;
            while (at > 0 && ss_less(d2, j, wd2[at - 1], want[at - 1])) {
                if (at < cap) {
                    want[at] = want[at - 1];
                    wd2[at] = wd2[at - 1];
                }
                --at;
            }
            if (at < cap) {
                want[at] = j;
                wd2[at] = d2;
            }
        }
        float right = nw > 0 ? (float)sqrt(wd2[nw - 1]) : 0;
        float hints[5] = {0, -1, 0.5f, right, right * 0.9f};
        for (int h = 0; h < 5; ++h) {
            for (int kernels = 0; kernels < 2; ++kernels) {
                int ng = orca_step_search_test(sim, i, hints[h], kernels, got);
                ENSURE_MSG(ng == nw, "far agent %d (neighbour distance %a, cap %d), hint %a, "
                           "kernels %d: %d neighbours, brute force %d", f, far[f].nd, cap,
                           (double)hints[h], kernels, ng, nw);
                for (int k = 0; k < nw; ++k) {
                    ENSURE_MSG(got[k] == want[k], "far agent %d, hint %a, kernels %d: neighbour "
                               "#%d is %d, brute force %d", f, (double)hints[h], kernels, k,
                               got[k], want[k]);
                }
                ++lists;
            }
        }
    }
    orca_sim_destroy(sim);
    ENSURE(lists == 10 * nf);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"kernel_matches_scalar", test_kernel_matches_scalar},
    {"box_scan_matches_brute_force", test_box_scan_matches_brute_force},
    {"box_cells_match_scalar", test_box_cells_match_scalar},
    {"solve_copies_agree", test_solve_copies_agree},
    {"sim_vector_off_on", test_sim_vector_off_on},
    {"step_search_matches_brute_force", test_step_search_matches_brute_force},
    {"grid_cells_far_agents", test_grid_cells_far_agents},
    {"grid_sort_on_workers", test_grid_sort_on_workers},
    {"hashed_grid_on_workers", test_hashed_grid_on_workers},
    {"step_search_far_agents", test_step_search_far_agents},
    {0, 0},
};
