/* SPDX-License-Identifier: MIT */
/* The step's batched kernels (kernels.h): x86-64 with AVX2, chosen at run time, and the wasm
 * SIMD128 module's (two lanes, the compiler's vector extensions). Every lane
 * computes the scalar code's operations in its order; both sides of a branch are computed
 * and the lane's side is selected, which copies bits. Elsewhere the scalar code runs. */
#include "fp.h"
#include "kernels.h"

#include "orca/solver.h"

#include <stddef.h>

#ifdef ORCA_HAVE_AVX
#include <immintrin.h>
#endif

int orca_kernels_available(void)
{
#if defined(ORCA_HAVE_SIMD128)
    return 1;
#elif defined(ORCA_HAVE_AVX)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#else
    return 0;
#endif
}

#if defined(ORCA_HAVE_AVX) || defined(ORCA_HAVE_SIMD128)
/* A lane in the overlap form: orca_constraint_agent itself. Out of line (rare), so that the
 * kernel's two groups do not make two more call sites of orca_constraint_agent: with them,
 * the link-time inliner stopped inlining it into the scalar step (+350 instructions per
 * agent-step there). */
static ORCA_NOINLINE void overlap_plane(orca_vec2 p, orca_vec2 v, double r, double tau,
                                                    double dt, const orca_vec2 *pos,
                                                    const orca_vec2 *vel, const double *radius,
                                                    int32_t at, orca_halfplane *out)
{
    orca_vec2 rel = {pos[at].x - p.x, pos[at].y - p.y};
    *out = orca_constraint_agent(rel, r + radius[at], v, vel[at], tau, dt, NULL);
}

/* A lane in the overlap form on the extended path: orca_constraint_agent_sep with the
 * lane's share, the separation given to the higher index (sep_self > the neighbour's index;
 * sep_self is INT32_MIN without the separation). */
static ORCA_NOINLINE void overlap_plane_share(orca_vec2 p, orca_vec2 v, double r, double tau,
                                             double dt, const orca_vec2 *pos,
                                             const orca_vec2 *vel, const double *radius,
                                             int32_t at, double share, int higher,
                                             orca_halfplane *out)
{
    orca_vec2 rel = {pos[at].x - p.x, pos[at].y - p.y};
    *out = orca_constraint_agent_sep(rel, r + radius[at], v, vel[at], tau, dt, share, higher,
                                     NULL);
}

/* The extended path's per-lane inputs: each neighbour's share, and what the separation of
 * coincident agents needs (orca_agent_planes_share_vector). */
typedef struct agent_shares {
    const double *share;
    const int32_t *cell_index;
    int32_t sep_self;
} agent_shares;
#endif

#ifdef ORCA_HAVE_AVX

/* The x and y components of a[i0], a[i1], a[i2], a[i3], one vector each. */
static ORCA_AVX inline void load_xy(const orca_vec2 *a, int32_t i0, int32_t i1, int32_t i2,
                                    int32_t i3, __m256d *x, __m256d *y)
{
    __m256d lo = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&a[i0].x)),
                                      _mm_loadu_pd(&a[i2].x), 1);
    __m256d hi = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&a[i1].x)),
                                      _mm_loadu_pd(&a[i3].x), 1);
    *x = _mm256_unpacklo_pd(lo, hi); /* a0.x a1.x a2.x a3.x */
    *y = _mm256_unpackhi_pd(lo, hi);
}

/* The constants of one agent's kernel call. */
typedef struct agent_consts {
    __m256d px, py, vx, vy, ra, tv, half, zero, sign;
} agent_consts;

/* Neighbours k .. k + m - 1 (m <= 4; the m lanes of the sorted positions i0..i3 that count),
 * their half-planes into out[k ..]. */
static ORCA_AVX ORCA_ALWAYS_INLINE void agent_group(const agent_consts *q, orca_vec2 p, orca_vec2 v,
                                                    double r, double tau, double dt,
                                                    const orca_vec2 *pos, const orca_vec2 *vel,
                                                    const double *radius, const neighbor *nb,
                                                    int k, int m, int32_t i0, int32_t i1,
                                                    int32_t i2, int32_t i3,
                                                    const agent_shares *e, orca_halfplane *out)
{
    const __m256d px = q->px, py = q->py, vx = q->vx, vy = q->vy, ra = q->ra, tv = q->tv;
    const __m256d half = q->half, zero = q->zero, sign = q->sign;
    __m256d bx, by, ux, uy;
    load_xy(pos, i0, i1, i2, i3, &bx, &by);
    load_xy(vel, i0, i1, i2, i3, &ux, &uy);
    __m256d rb = _mm256_set_pd(radius[i3], radius[i2], radius[i1], radius[i0]);
    /* orca_constraint_agent: a = pB - pA, r = rA + rB, x = vA - vB */
    __m256d ax = _mm256_sub_pd(bx, px), ay = _mm256_sub_pd(by, py);
    __m256d rr_ = _mm256_add_pd(ra, rb);
    __m256d xx = _mm256_sub_pd(vx, ux), xy = _mm256_sub_pd(vy, uy);
    __m256d aa = _mm256_add_pd(_mm256_mul_pd(ax, ax), _mm256_mul_pd(ay, ay));
    __m256d rr = _mm256_mul_pd(rr_, rr_);
    /* not a.a > r*r: the overlap form, lane by lane below */
    int overlap = _mm256_movemask_pd(_mm256_cmp_pd(aa, rr, _CMP_NGT_UQ)) & ((1 << m) - 1);

    /* orca_vo_agent_cases: w = x - a/tau, dot1 = w.a */
    __m256d wx = _mm256_sub_pd(xx, _mm256_div_pd(ax, tv));
    __m256d wy = _mm256_sub_pd(xy, _mm256_div_pd(ay, tv));
    __m256d dot1 = _mm256_add_pd(_mm256_mul_pd(wx, ax), _mm256_mul_pd(wy, ay));
    __m256d ww = _mm256_add_pd(_mm256_mul_pd(wx, wx), _mm256_mul_pd(wy, wy));
    __m256d cut = _mm256_and_pd(_mm256_cmp_pd(dot1, zero, _CMP_LT_OQ),
                                _mm256_cmp_pd(_mm256_mul_pd(dot1, dot1),
                                              _mm256_mul_pd(rr, ww), _CMP_GT_OQ));
    /* cutoff: n = w / |w|, u = n * (r/tau - |w|) */
    __m256d wl = _mm256_sqrt_pd(ww);
    __m256d cnx = _mm256_div_pd(wx, wl), cny = _mm256_div_pd(wy, wl);
    __m256d f = _mm256_sub_pd(_mm256_div_pd(rr_, tv), wl);
    __m256d cux = _mm256_mul_pd(cnx, f), cuy = _mm256_mul_pd(cny, f);
    __m256d nx = cnx, ny = cny, fx = cux, fy = cuy;
    /* Every lane in the cutoff case (most groups: the farther neighbours; the lanes past m
     * repeat lane 0): the blends below would select the cutoff values, so the legs are
     * skipped (lanes in the overlap form are replaced below either way). */
    if (_mm256_movemask_pd(cut) != 15) {
        /* legs: leg = sqrt(a.a - r*r), cross = a.x*w.y - a.y*w.x, left when cross > 0 */
        __m256d leg = _mm256_sqrt_pd(_mm256_sub_pd(aa, rr));
        __m256d cross = _mm256_sub_pd(_mm256_mul_pd(ax, wy), _mm256_mul_pd(ay, wx));
        __m256d left = _mm256_cmp_pd(cross, zero, _CMP_GT_OQ);
        __m256d axl = _mm256_mul_pd(ax, leg), ayl = _mm256_mul_pd(ay, leg);
        __m256d axr = _mm256_mul_pd(ax, rr_), ayr = _mm256_mul_pd(ay, rr_);
        /* left: (a.x*leg - a.y*r, a.x*r + a.y*leg); right: (a.x*leg + a.y*r, a.y*leg - a.x*r);
         * the selected numerators divided by a.a */
        __m256d dx = _mm256_div_pd(
            _mm256_blendv_pd(_mm256_add_pd(axl, ayr), _mm256_sub_pd(axl, ayr), left), aa);
        __m256d dy = _mm256_div_pd(
            _mm256_blendv_pd(_mm256_sub_pd(ayl, axr), _mm256_add_pd(axr, ayl), left), aa);
        /* left n = (-dir.y, dir.x), right n = (dir.y, -dir.x) */
        __m256d lnx = _mm256_blendv_pd(dy, _mm256_xor_pd(dy, sign), left);
        __m256d lny = _mm256_blendv_pd(_mm256_xor_pd(dx, sign), dx, left);
        /* along = x.dir, u = dir * along - x */
        __m256d along = _mm256_add_pd(_mm256_mul_pd(xx, dx), _mm256_mul_pd(xy, dy));
        __m256d lux = _mm256_sub_pd(_mm256_mul_pd(dx, along), xx);
        __m256d luy = _mm256_sub_pd(_mm256_mul_pd(dy, along), xy);

        nx = _mm256_blendv_pd(lnx, cnx, cut);
        ny = _mm256_blendv_pd(lny, cny, cut);
        fx = _mm256_blendv_pd(lux, cux, cut);
        fy = _mm256_blendv_pd(luy, cuy, cut);
    }
    /* P = vA + u * 0.5, or u * share on the extended path (the lanes past m repeat the
     * group's first share) */
    __m256d sh = half;
    if (e && e->share) {
        const double *h = e->share + k;
        sh = _mm256_set_pd(m > 3 ? h[3] : h[0], m > 2 ? h[2] : h[0], m > 1 ? h[1] : h[0], h[0]);
    }
    __m256d qx = _mm256_add_pd(vx, _mm256_mul_pd(fx, sh));
    __m256d qy = _mm256_add_pd(vy, _mm256_mul_pd(fy, sh));

    /* lanes to half-planes (point.x, point.y, normal.x, normal.y) */
    __m256d t0 = _mm256_unpacklo_pd(qx, qy), t1 = _mm256_unpackhi_pd(qx, qy);
    __m256d t2 = _mm256_unpacklo_pd(nx, ny), t3 = _mm256_unpackhi_pd(nx, ny);
    double *o = (double *)(out + k);
    _mm256_storeu_pd(o, _mm256_permute2f128_pd(t0, t2, 0x20));
    if (m > 1) {
        _mm256_storeu_pd(o + 4, _mm256_permute2f128_pd(t1, t3, 0x20));
    }
    if (m > 2) {
        _mm256_storeu_pd(o + 8, _mm256_permute2f128_pd(t0, t2, 0x31));
    }
    if (m > 3) {
        _mm256_storeu_pd(o + 12, _mm256_permute2f128_pd(t1, t3, 0x31));
    }
    while (overlap) {
        int l = __builtin_ctz((unsigned)overlap);
        overlap &= overlap - 1;
        int32_t at = nb[k + l].at;
        if (e) {
            overlap_plane_share(p, v, r, tau, dt, pos, vel, radius, at,
                                e->share ? e->share[k + l] : 0.5,
                                e->sep_self > e->cell_index[at], out + k + l);
        } else {
            overlap_plane(p, v, r, tau, dt, pos, vel, radius, at, out + k + l);
        }
    }
}

/* The kernel's loop over the list's groups of four; e NULL on the plain path. */
static ORCA_AVX ORCA_ALWAYS_INLINE void agent_planes(orca_vec2 p, orca_vec2 v, double r,
                                                     double tau, double dt, const orca_vec2 *pos,
                                                     const orca_vec2 *vel, const double *radius,
                                                     const neighbor *nb, int count,
                                                     const agent_shares *e, orca_halfplane *out)
{
    agent_consts q;
    q.px = _mm256_set1_pd(p.x);
    q.py = _mm256_set1_pd(p.y);
    q.vx = _mm256_set1_pd(v.x);
    q.vy = _mm256_set1_pd(v.y);
    q.ra = _mm256_set1_pd(r);
    q.tv = _mm256_set1_pd(tau);
    q.half = _mm256_set1_pd(0.5);
    q.zero = _mm256_setzero_pd();
    q.sign = _mm256_set1_pd(-0.0);
    int k = 0;
    for (; k + 4 <= count; k += 4) {
        agent_group(&q, p, v, r, tau, dt, pos, vel, radius, nb, k, 4, nb[k].at, nb[k + 1].at,
                    nb[k + 2].at, nb[k + 3].at, e, out);
    }
    if (k < count) {
        /* a short last group repeats its first lane; only its m lanes are stored */
        int m = count - k;
        int32_t i0 = nb[k].at;
        agent_group(&q, p, v, r, tau, dt, pos, vel, radius, nb, k, m, i0, m > 1 ? nb[k + 1].at : i0,
                    m > 2 ? nb[k + 2].at : i0, i0, e, out);
    }
}

ORCA_AVX void orca_agent_planes_vector(orca_vec2 p, orca_vec2 v, double r, double tau, double dt,
                                       const orca_vec2 *pos, const orca_vec2 *vel,
                                       const double *radius, const neighbor *nb, int count,
                                       orca_halfplane *out)
{
    agent_planes(p, v, r, tau, dt, pos, vel, radius, nb, count, NULL, out);
}

ORCA_AVX void orca_agent_planes_share_vector(orca_vec2 p, orca_vec2 v, double r, double tau,
                                             double dt, const orca_vec2 *pos,
                                             const orca_vec2 *vel, const double *radius,
                                             const neighbor *nb, int count, const double *share,
                                             const int32_t *cell_index, int32_t sep_self,
                                             orca_halfplane *out)
{
    agent_shares e = {share, cell_index, sep_self};
    agent_planes(p, v, r, tau, dt, pos, vel, radius, nb, count, &e, out);
}

CAND_DEFINE_COUNT_RANKS(cand_count_ranks_vector, 4)

/* Candidate i's rank against the candidates d0..d3 (+inf past the last): the lanes j where
 * d2[j] < d2[i], as bytes (two a lane) counted; its entry goes to out[rank]. Returns twice
 * the rank. */
static ORCA_AVX ORCA_ALWAYS_INLINE int64_t rank_place(const cand_buf *c, int i, __m256d d0,
                                                      __m256d d1, __m256d d2, __m256d d3,
                                                      int three, neighbor *out)
{
    __m256d b = _mm256_broadcast_sd(c->d2 + i);
    __m256i m01 = _mm256_packs_epi32(_mm256_castpd_si256(_mm256_cmp_pd(d0, b, _CMP_LT_OQ)),
                                     _mm256_castpd_si256(_mm256_cmp_pd(d1, b, _CMP_LT_OQ)));
    /* up to twelve candidates: three vectors (d3 is not read) */
    __m256i m23 = _mm256_packs_epi32(_mm256_castpd_si256(_mm256_cmp_pd(d2, b, _CMP_LT_OQ)),
                                     three ? _mm256_setzero_si256()
                                           : _mm256_castpd_si256(_mm256_cmp_pd(d3, b, _CMP_LT_OQ)));
    uint32_t bits = (uint32_t)_mm256_movemask_epi8(_mm256_packs_epi16(m01, m23));
    int64_t r2 = __builtin_popcountll(bits); /* twice the rank: its entry's offset / 8 */
    neighbor *e = (neighbor *)(void *)((char *)out + r2 * 8);
    e->dist2 = c->d2[i];
    e->at = (int32_t)c->at[i];
    return r2;
}

/* cand_rank_fn of the vector scan. Up to 16 candidates (nearly always) each one's rank is
 * counted against all at once: its squared distance compared with four vectors of them
 * (+inf past the last: never smaller), the lane masks packed to bytes, two bits a lane, and
 * counted; the entry is written at once, at out[rank] even when rank >= cap (out has room
 * for RANK_ROOM entries). Otherwise cand_count_ranks_vector and cand_place. */
/* Ties in rank (rare): the list by insertion. Out of line, so that the ranking's callers
 * reach it by a jump and keep nothing for it. */
static ORCA_AVX ORCA_NOINLINE int cand_insert_ties(const cand_buf *c,
                                                               const int32_t *cell_index,
                                                               neighbor *out, int cap)
{
    return cand_insert(c, cell_index, out, 0, cap);
}

/* Every candidate's rank_place, n <= 12 (three) or n <= 16: the first three or four vectors
 * of squared distances, +inf past the last. Returns twice the sum of the ranks. */
static ORCA_AVX ORCA_ALWAYS_INLINE int64_t rank_all(cand_buf *c, int n, int three, neighbor *out)
{
    const __m256d inf = _mm256_set1_pd(HUGE_VAL);
    for (int q = 0; q < (three ? 12 : 16); q += 4) {
        _mm256_storeu_pd(c->d2 + n + q, inf);
    }
    const __m256d d0 = _mm256_loadu_pd(c->d2), d1 = _mm256_loadu_pd(c->d2 + 4);
    const __m256d d2 = _mm256_loadu_pd(c->d2 + 8);
    const __m256d d3 = three ? inf : _mm256_loadu_pd(c->d2 + 12);
    int64_t sum = 0;
    /* two at a time (half the loop's own instructions), then the odd one */
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        sum += rank_place(c, i, d0, d1, d2, d3, three, out);
        sum += rank_place(c, i + 1, d0, d1, d2, d3, three, out);
    }
    if (i < n) {
        sum += rank_place(c, i, d0, d1, d2, d3, three, out);
    }
    return sum;
}

/* cand_rank_vector for at most 16 candidates. */
static ORCA_AVX ORCA_ALWAYS_INLINE int cand_rank_small(cand_buf *c, const int32_t *cell_index,
                                                       neighbor *out, int cap)
{
    _Static_assert(sizeof(neighbor) == 16 && RANK_ROOM >= 16, "cand_rank_vector's placement");
    int n = c->n;
    int64_t sum = n <= 12 ? rank_all(c, n, 1, out) : rank_all(c, n, 0, out);
    /* the ranks add up to n(n-1)/2 exactly when there are no ties (cand_ranked) */
    if (__builtin_expect(sum != (int64_t)n * (n - 1), 0)) {
        return cand_insert_ties(c, cell_index, out, cap);
    }
    return n < cap ? n : cap;
}

static ORCA_AVX ORCA_ALWAYS_INLINE int cand_rank_vector(cand_buf *c, const int32_t *cell_index,
                                                        neighbor *out, int cap)
{
    if (c->n > 16) {
        cand_count_ranks_vector(c);
        return cand_place(c, cell_index, out, cap);
    }
    return cand_rank_small(c, cell_index, out, cap);
}

/* Row m: the 32-bit halves of the 64-bit lanes selected by the four bits of m, in order,
 * then filler: _mm256_permutevar8x32 with it (widened to 32 bits) moves the selected lanes to
 * the front. */
static const uint8_t pack_lanes[16][8] __attribute__((aligned(8))) = {
    {0, 1, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 1, 0, 1},
    {2, 3, 0, 1, 0, 1, 0, 1}, {0, 1, 2, 3, 0, 1, 0, 1},
    {4, 5, 0, 1, 0, 1, 0, 1}, {0, 1, 4, 5, 0, 1, 0, 1},
    {2, 3, 4, 5, 0, 1, 0, 1}, {0, 1, 2, 3, 4, 5, 0, 1},
    {6, 7, 0, 1, 0, 1, 0, 1}, {0, 1, 6, 7, 0, 1, 0, 1},
    {2, 3, 6, 7, 0, 1, 0, 1}, {0, 1, 2, 3, 6, 7, 0, 1},
    {4, 5, 6, 7, 0, 1, 0, 1}, {0, 1, 4, 5, 6, 7, 0, 1},
    {2, 3, 4, 5, 6, 7, 0, 1}, {0, 1, 2, 3, 4, 5, 6, 7},
};

/* The constants of one box scan. */
typedef struct box_consts {
    __m256d pxy, f2; /* p.x p.y p.x p.y, filt2 */
    __m256i selfv;
    const uint32_t *lay; /* the layered search (the extended path): the sorted layers, or NULL */
    __m128i want;        /* the searching agent's mask, four times */
} box_consts;

/* Agents k0 .. k1 - 1 (those before end), four at a time without branches: each group's
 * squared distances, those below filt2 (of agents before end, other than self) packed to
 * the front and stored at c's candidates from cn on with their positions. Returns the new
 * count of candidates (each group stores four entries: CAND_PAD covers the last). */
static ORCA_AVX ORCA_ALWAYS_INLINE int64_t box_groups(const box_consts *q, const orca_vec2 *pos,
                                                      int32_t k0, int32_t k1, int32_t end,
                                                      cand_buf *c, int64_t cn)
{
    /* after the pairwise sums below, lanes 0..3 hold the agents at k, k + 2, k + 1, k + 3 */
    const __m256i lane = _mm256_setr_epi64x(0, 2, 1, 3), four = _mm256_set1_epi64x(4);
    const __m256i endv = _mm256_set1_epi64x(end);
    __m256i at = _mm256_add_epi64(_mm256_set1_epi64x(k0), lane);
    for (const orca_vec2 *p = pos + k0, *pe = pos + k1; p < pe; p += 4) {
        /* Dot(d, d) = d.x*d.x + d.y*d.y, d = pos - p: the squares of d0 and d1 in one vector,
         * of d2 and d3 in another, and each pair's sum (hadd: d0 d2 d1 d3). Computed from
         * p - pos = -d exactly (rounding is symmetric), which has the same squares, so that
         * the positions are subtracted straight from memory. */
        __m256d a = _mm256_sub_pd(q->pxy, _mm256_loadu_pd(&p[0].x)); /* d0.x d0.y d1.x d1.y */
        __m256d b = _mm256_sub_pd(q->pxy, _mm256_loadu_pd(&p[2].x)); /* d2.x d2.y d3.x d3.y */
        __m256d d2 = _mm256_hadd_pd(_mm256_mul_pd(a, a), _mm256_mul_pd(b, b));
        __m256i in = _mm256_and_si256(_mm256_castpd_si256(_mm256_cmp_pd(d2, q->f2, _CMP_LT_OQ)),
                                      _mm256_cmpgt_epi64(endv, at));
        in = _mm256_andnot_si256(_mm256_cmpeq_epi64(at, q->selfv), in);
        if (q->lay) {
            /* the layers of the four agents that miss the mask, in the lanes' order */
            const uint32_t *l = q->lay + (p - pos);
            __m128i hid = _mm_cmpeq_epi32(_mm_and_si128(_mm_loadu_si128((const __m128i *)l),
                                                        q->want),
                                          _mm_setzero_si128());
            hid = _mm_shuffle_epi32(hid, _MM_SHUFFLE(3, 1, 2, 0));
            in = _mm256_andnot_si256(_mm256_cvtepi32_epi64(hid), in);
        }
        int m = _mm256_movemask_pd(_mm256_castsi256_pd(in));
        /* the row's bytes widened to 32 bits: one instruction, and its index scales by 8 */
        __m256i perm = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)pack_lanes[m]));
        _mm256_storeu_pd(c->d2 + cn,
                         _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(d2), perm)));
        _mm256_storeu_si256((__m256i *)(c->at + cn), _mm256_permutevar8x32_epi32(at, perm));
        cn += __builtin_popcount((unsigned)m);
        at = _mm256_add_epi64(at, four);
    }
    return cn;
}

/* A row of more agents than c has room for: chunks of CAND_CHUNK agents (a multiple of four
 * past the row's start), with room made before each (the cap best so far kept). Out of line:
 * rare, and inlined it took registers from box_scan's row loop. Returns the list's length;
 * c->n is the candidates' count. */
static ORCA_AVX ORCA_NOINLINE int
box_row_chunked(const box_consts *q, const orca_vec2 *pos, int32_t k0, int32_t end,
                const int32_t *cell_index, neighbor *out, cand_buf *c, int n, int cap)
{
    while (k0 < end) {
        if (c->n > CAND_MAX - CAND_CHUNK) {
            n = cand_flush(c, cand_rank_vector, cell_index, out, n, cap);
        }
        int32_t k1 = end - k0 > CAND_CHUNK ? k0 + CAND_CHUNK : end;
        c->n = (int)box_groups(q, pos, k0, k1, end, c, c->n);
        k0 = k1;
    }
    return n;
}

/* box_scan from the row at c->rest.lo on, with c->n candidates already taken: rows of any
 * length, then the list. Out of line: box_scan hands over to it at a row longer than its
 * buffer's room, by a jump (its state in c->rest), so that it keeps no values for a call. */
static ORCA_AVX ORCA_NOINLINE int box_scan_rest(cand_buf *c, neighbor *out)
{
    box_consts q;
    q.pxy = _mm256_setr_pd(c->rest.px, c->rest.py, c->rest.px, c->rest.py);
    q.f2 = _mm256_set1_pd(c->rest.filt2);
    q.selfv = _mm256_set1_epi64x(c->rest.self);
    q.lay = c->rest.lay;
    q.want = _mm_set1_epi32((int)c->rest.want);
    const orca_vec2 *pos = c->rest.pos;
    const int32_t *cell_index = c->rest.cell_index;
    int cap = c->rest.cap;
    int n = 0;
    for (const int32_t *lo = c->rest.lo;; lo += c->rest.w) {
        n = box_row_chunked(&q, pos, lo[0], lo[c->rest.span], cell_index, out, c, n, cap);
        if (lo == c->rest.last) {
            break;
        }
    }
    return cand_finish(c, cand_rank_vector, cell_index, out, n, cap);
}

/* The list of the candidates in c when there are more than 16 of them or its capacity is
 * over 16 (cand_finish). Out of line, as box_scan_rest. */
static ORCA_AVX ORCA_NOINLINE int box_finish_long(cand_buf *c,
                                                              const int32_t *cell_index,
                                                              neighbor *out, int cap)
{
    return cand_finish(c, cand_rank_vector, cell_index, out, 0, cap);
}

static ORCA_AVX ORCA_ALWAYS_INLINE int
box_scan(const int32_t *row, int32_t w, int32_t rows, int32_t c0, int32_t c1,
         const orca_vec2 *pos, const int32_t *cell_index, int32_t self, orca_vec2 p,
         double filt2, neighbor *out, cand_buf *c, int cap, const uint32_t *lay, uint32_t want)
{
    box_consts q;
    q.pxy = _mm256_setr_pd(p.x, p.y, p.x, p.y);
    q.f2 = _mm256_set1_pd(filt2);
    q.selfv = _mm256_set1_epi64x(self);
    q.lay = lay;
    q.want = _mm_set1_epi32((int)want);
    int64_t cn = 0; /* the candidates' count in a register through the scan */
    const int32_t *lo = row + c0, *last = lo + (int64_t)(rows - 1) * w;
    const int64_t span = (int64_t)c1 + 1 - c0;
    for (;; lo += w) {
        int32_t k0 = lo[0], end = lo[span];
        if (__builtin_expect((int64_t)end - k0 + cn > CAND_MAX, 0)) {
            /* a row longer than the buffer's room (rare) */
            c->n = (int)cn;
            c->rest.lo = lo;
            c->rest.last = last;
            c->rest.w = w;
            c->rest.span = span;
            c->rest.pos = pos;
            c->rest.cell_index = cell_index;
            c->rest.px = p.x;
            c->rest.py = p.y;
            c->rest.filt2 = filt2;
            c->rest.self = self;
            c->rest.cap = cap;
            c->rest.lay = lay;
            c->rest.want = want;
            return box_scan_rest(c, out);
        }
        /* the row fits into the buffer in one go (nearly always) */
        cn = box_groups(&q, pos, k0, end, end, c, cn);
        if (lo == last) {
            break;
        }
    }
    c->n = (int)cn;
    if (__builtin_expect(cn > 16 || cap > RANK_CAP_MAX, 0)) {
        return box_finish_long(c, cell_index, out, cap);
    }
    return cand_rank_small(c, cell_index, out, cap);
}

ORCA_AVX int orca_box_scan_vector(const int32_t *row, int32_t w, int32_t rows, int32_t c0,
                                  int32_t c1, const orca_vec2 *pos, const int32_t *cell_index,
                                  int32_t self, orca_vec2 p, double filt2, neighbor *out,
                                  cand_buf *c, int cap)
{
    return box_scan(row, w, rows, c0, c1, pos, cell_index, self, p, filt2, out, c, cap, NULL, 0);
}

/* dense_column four times at once: q = x * inv with x = ((p + -bound) + -m) - origin for
 * the low ends (p + -b is p - b) and ((p + bound) + m) - origin for the high ends; then 0
 * for q < 0, w - 1 for q >= w and (int)q otherwise, which is truncation of q clamped to
 * [0, w - 0.5]. */
static ORCA_AVX ORCA_ALWAYS_INLINE __m128i box_cells(const box_grid *g, orca_vec2 p, double bound,
                                                     double m)
{
    const __m256d sign = _mm256_setr_pd(-0.0, 0.0, -0.0, 0.0);
    /* x x y y from the registers (setr_pd made gcc 12 store p and load it back) */
    __m256d t = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_set1_pd(p.x)), _mm_set1_pd(p.y), 1);
    t = _mm256_add_pd(t, _mm256_xor_pd(_mm256_set1_pd(bound), sign));
    t = _mm256_add_pd(t, _mm256_xor_pd(_mm256_set1_pd(m), sign));
    t = _mm256_sub_pd(t, _mm256_loadu_pd(g->origin));
    t = _mm256_mul_pd(t, _mm256_loadu_pd(g->inv));
    t = _mm256_min_pd(_mm256_max_pd(t, _mm256_setzero_pd()), _mm256_loadu_pd(g->top));
    return _mm256_cvttpd_epi32(t);
}

ORCA_AVX void orca_box_cells_vector(const box_grid *g, orca_vec2 p, double bound, double m,
                                    int32_t c[4])
{
    _mm_storeu_si128((__m128i *)(void *)c, box_cells(g, p, bound, m));
}

/* Out of line: inlined into select_agents, its loops shared registers with the caller's
 * values and reloaded or moved them on every row (measured: 18 instructions an agent-step). */
ORCA_AVX ORCA_NOINLINE int orca_box_search_vector(const box_grid *g, int32_t self,
                                                             orca_vec2 p, double bound, double m,
                                                             double filt2, neighbor *out,
                                                             cand_buf *c, int cap)
{
    __m128i cr = box_cells(g, p, bound, m);
    int32_t c0 = _mm_cvtsi128_si32(cr), c1 = _mm_extract_epi32(cr, 1);
    int32_t r0 = _mm_extract_epi32(cr, 2), r1 = _mm_extract_epi32(cr, 3);
    return box_scan(g->cell_start + (int64_t)r0 * g->w, g->w, r1 - r0 + 1, c0, c1, g->pos,
                    g->cell_index, self, p, filt2, out, c, cap, NULL, 0);
}

ORCA_AVX ORCA_NOINLINE int orca_box_search_layered_vector(const box_grid *g, int32_t self,
                                                          orca_vec2 p, double bound, double m,
                                                          double filt2, neighbor *out,
                                                          cand_buf *c, int cap,
                                                          const uint32_t *lay, uint32_t want)
{
    __m128i cr = box_cells(g, p, bound, m);
    int32_t c0 = _mm_cvtsi128_si32(cr), c1 = _mm_extract_epi32(cr, 1);
    int32_t r0 = _mm_extract_epi32(cr, 2), r1 = _mm_extract_epi32(cr, 3);
    return box_scan(g->cell_start + (int64_t)r0 * g->w, g->w, r1 - r0 + 1, c0, c1, g->pos,
                    g->cell_index, self, p, filt2, out, c, cap, lay, want);
}

#endif

#ifdef ORCA_HAVE_SIMD128

/* v2d, v2m and sel2: kernels.h. With -msimd128 each operation is one f64x2 instruction. */
static inline v2d sqrt2(v2d x)
{
    return __builtin_wasm_sqrt_f64x2(x);
}

/* The sign bit flipped: -x exactly. */
static inline v2d neg2(v2d x)
{
    const v2m sign = {INT64_MIN, INT64_MIN};
    return (v2d)((v2m)x ^ sign);
}

static inline v2d splat2(double x)
{
    return (v2d){x, x};
}

/* Neighbours k and k + 1 (m = 1: only k; the sorted positions i0, i1), their half-planes into
 * out[k ..]: the AVX2 kernel's operations above, in its order, two lanes wide; e NULL on the
 * plain path. */
static ORCA_ALWAYS_INLINE void agent_pair(orca_vec2 p, orca_vec2 v, double r, double tau,
                                          double dt, const orca_vec2 *pos, const orca_vec2 *vel,
                                          const double *radius, int k, int m, int32_t i0,
                                          int32_t i1, const agent_shares *e, orca_halfplane *out)
{
    const v2d px = splat2(p.x), py = splat2(p.y), vx = splat2(v.x), vy = splat2(v.y);
    const v2d ra = splat2(r), tv = splat2(tau), half = splat2(0.5), zero = splat2(0.0);
    v2d p0, p1, u0, u1;
    memcpy(&p0, &pos[i0], sizeof p0); /* (x, y) of each: one 128-bit load */
    memcpy(&p1, &pos[i1], sizeof p1);
    memcpy(&u0, &vel[i0], sizeof u0);
    memcpy(&u1, &vel[i1], sizeof u1);
    const v2d bx = __builtin_shufflevector(p0, p1, 0, 2), by = __builtin_shufflevector(p0, p1, 1, 3);
    const v2d ux = __builtin_shufflevector(u0, u1, 0, 2), uy = __builtin_shufflevector(u0, u1, 1, 3);
    const v2d rb = {radius[i0], radius[i1]};
    /* orca_constraint_agent: a = pB - pA, r = rA + rB, x = vA - vB */
    v2d ax = bx - px, ay = by - py;
    v2d rr_ = ra + rb;
    v2d xx = vx - ux, xy = vy - uy;
    v2d aa = ax * ax + ay * ay;
    v2d rr = rr_ * rr_;
    /* not a.a > r*r: the overlap form, lane by lane below */
    v2m overlap = ~(aa > rr);

    /* orca_vo_agent_cases: w = x - a/tau, dot1 = w.a */
    v2d wx = xx - ax / tv;
    v2d wy = xy - ay / tv;
    v2d dot1 = wx * ax + wy * ay;
    v2d ww = wx * wx + wy * wy;
    v2m cut = (dot1 < zero) & (dot1 * dot1 > rr * ww);
    /* cutoff: n = w / |w|, u = n * (r/tau - |w|) */
    v2d wl = sqrt2(ww);
    v2d cnx = wx / wl, cny = wy / wl;
    v2d f = rr_ / tv - wl;
    v2d cux = cnx * f, cuy = cny * f;
    /* legs: leg = sqrt(a.a - r*r), cross = a.x*w.y - a.y*w.x, left when cross > 0 */
    v2d leg = sqrt2(aa - rr);
    v2d cross = ax * wy - ay * wx;
    v2m left = cross > zero;
    v2d axl = ax * leg, ayl = ay * leg;
    v2d axr = ax * rr_, ayr = ay * rr_;
    /* left: (a.x*leg - a.y*r, a.x*r + a.y*leg); right: (a.x*leg + a.y*r, a.y*leg - a.x*r);
     * the selected numerators divided by a.a */
    v2d dx = sel2(left, axl - ayr, axl + ayr) / aa;
    v2d dy = sel2(left, axr + ayl, ayl - axr) / aa;
    /* left n = (-dir.y, dir.x), right n = (dir.y, -dir.x) */
    v2d lnx = sel2(left, neg2(dy), dy);
    v2d lny = sel2(left, dx, neg2(dx));
    /* along = x.dir, u = dir * along - x */
    v2d along = xx * dx + xy * dy;
    v2d lux = dx * along - xx;
    v2d luy = dy * along - xy;

    v2d nx = sel2(cut, cnx, lnx), ny = sel2(cut, cny, lny);
    v2d fx = sel2(cut, cux, lux), fy = sel2(cut, cuy, luy);
    /* P = vA + u * 0.5, or u * share on the extended path (lane 1 of m = 1 repeats the
     * first share) */
    v2d sh = half;
    if (e && e->share) {
        sh = (v2d){e->share[k], e->share[m > 1 ? k + 1 : k]};
    }
    v2d qx = vx + fx * sh;
    v2d qy = vy + fy * sh;

    /* lanes to half-planes (point.x, point.y, normal.x, normal.y): 128-bit stores */
    v2d lane0[2] = {__builtin_shufflevector(qx, qy, 0, 2), __builtin_shufflevector(nx, ny, 0, 2)};
    memcpy(out + k, lane0, sizeof lane0);
    if (m > 1) {
        v2d lane1[2] = {__builtin_shufflevector(qx, qy, 1, 3), __builtin_shufflevector(nx, ny, 1, 3)};
        memcpy(out + k + 1, lane1, sizeof lane1);
    }
    for (int l = 0; l < m; ++l) {
        if (overlap[l]) {
            int32_t at = l ? i1 : i0;
            if (e) {
                overlap_plane_share(p, v, r, tau, dt, pos, vel, radius, at,
                                    e->share ? e->share[k + l] : 0.5,
                                    e->sep_self > e->cell_index[at], out + k + l);
            } else {
                overlap_plane(p, v, r, tau, dt, pos, vel, radius, at, out + k + l);
            }
        }
    }
}

/* The kernel's loop over the list's pairs; e NULL on the plain path. */
static ORCA_ALWAYS_INLINE void agent_pairs(orca_vec2 p, orca_vec2 v, double r, double tau,
                                           double dt, const orca_vec2 *pos, const orca_vec2 *vel,
                                           const double *radius, const neighbor *nb, int count,
                                           const agent_shares *e, orca_halfplane *out)
{
    int k = 0;
    for (; k + 2 <= count; k += 2) {
        agent_pair(p, v, r, tau, dt, pos, vel, radius, k, 2, nb[k].at, nb[k + 1].at, e, out);
    }
    if (k < count) {
        /* the odd last one: its lane twice, one stored */
        agent_pair(p, v, r, tau, dt, pos, vel, radius, k, 1, nb[k].at, nb[k].at, e, out);
    }
}

void orca_agent_planes_simd128(orca_vec2 p, orca_vec2 v, double r, double tau, double dt,
                               const orca_vec2 *pos, const orca_vec2 *vel, const double *radius,
                               const neighbor *nb, int count, orca_halfplane *out)
{
    agent_pairs(p, v, r, tau, dt, pos, vel, radius, nb, count, NULL, out);
}

void orca_agent_planes_share_simd128(orca_vec2 p, orca_vec2 v, double r, double tau, double dt,
                                     const orca_vec2 *pos, const orca_vec2 *vel,
                                     const double *radius, const neighbor *nb, int count,
                                     const double *share, const int32_t *cell_index,
                                     int32_t sep_self, orca_halfplane *out)
{
    agent_shares e = {share, cell_index, sep_self};
    agent_pairs(p, v, r, tau, dt, pos, vel, radius, nb, count, &e, out);
}

#endif
