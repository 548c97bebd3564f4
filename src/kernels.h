/* SPDX-License-Identifier: MIT */
/* Private: the step's batched kernels. Each one computes exactly the operations of the
 * scalar code it stands for (the operations of docs/algorithm.md, in their order), several lanes at
 * a time: IEEE addition, subtraction, multiplication, division and square root are correctly
 * rounded whatever the register width, selections copy bits, and no multiply-add is ever
 * formed. So the results are the same bits with or without them (docs/determinism.md); the
 * tests run every scene both ways. (The box scan squares p - q for the scalar q - p: the
 * same squares, as a rounded difference only changes sign with its operands' order.) */
#ifndef ORCA_KERNELS_H
#define ORCA_KERNELS_H

#include <stdint.h>
#include <string.h>

#include "orca/base.h"
#include "orca/solver.h"

/* One entry of a neighbour list. */
typedef struct neighbor {
    double dist2;
    int32_t index; /* agent or segment index: breaks distance ties. Lists of the hinted
                    * search (box_search, the step's) leave it unset when they are ranked:
                    * the agent's index is cell_index[at] */
    int32_t at;    /* agents: position in the sorted grid order */
} neighbor;

/* Inlining marks: they fix what the compiler inlines (fewer instructions, lp.inc), never what
 * is computed. gcc and clang, MSVC, else nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define ORCA_ALWAYS_INLINE __attribute__((always_inline)) inline
#define ORCA_NOINLINE __attribute__((noinline))
#define ORCA_COLD __attribute__((noinline, cold))
#elif defined(_MSC_VER)
#define ORCA_ALWAYS_INLINE __forceinline
#define ORCA_NOINLINE __declspec(noinline)
#define ORCA_COLD __declspec(noinline)
#else
#define ORCA_ALWAYS_INLINE inline
#define ORCA_NOINLINE
#define ORCA_COLD
#endif

/* x86-64 with gcc or clang: the kernels, and AVX2 copies of the step's code, are built and
 * chosen at run time (orca_kernels_available). ORCA_AVX marks a function compiled for AVX2
 * (and POPCNT, which every AVX2 CPU has): VEX encodings of the same IEEE operations; AVX2
 * does not include FMA. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(ORCA_NO_VECTOR)
#define ORCA_HAVE_AVX 1
#define ORCA_AVX __attribute__((target("avx2,popcnt")))
#endif

/* wasm32 with -msimd128 (clang): the agent constraints two at a time in 128-bit vectors of
 * the compiler's vector extensions (wasm SIMD128: no relaxed SIMD, no multiply-add), in the
 * step compiled for that module (web/orca-simd.wasm, chosen by the loader where the engine
 * validates SIMD128), with its box filter (step.c) and its LP copy (lp.inc). docs/web.md. */
#if defined(__wasm_simd128__) && defined(__clang__) && !defined(ORCA_NO_VECTOR)
#define ORCA_HAVE_SIMD128 1
#endif

/* Two lanes of binary64 and their masks (all ones where a comparison holds), in the
 * compiler's vector extensions (gcc, clang): each operation is the same IEEE operation as the
 * scalar code's on each lane (SSE2 or NEON natively, f64x2 in the wasm SIMD128 module). The
 * two-lane ranking (step.c), the SIMD128 kernels (kernels.c), box filter (step.c) and the
 * fallback's projections (lp.inc) use them. */
#if defined(__GNUC__) || defined(__clang__)
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2m __attribute__((vector_size(16)));
#endif
#ifdef ORCA_HAVE_SIMD128
/* m ? a : b lane by lane: copies bits. */
static inline v2d sel2(v2m m, v2d a, v2d b)
{
    return (v2d)(((v2m)a & m) | ((v2m)b & ~m));
}
#endif

/* solver.c: orca_constraint_agent_share, except that with `higher` set an exactly coincident
 * pair's degenerate direction (algorithm.md §3.7 with a + b == 0) is (-1, 0) instead of
 * (1, 0): the separation of coincident agents, given to the higher index of the pair
 * (docs/extensions.md, "Coincident agents"). higher = 0 gives orca_constraint_agent_share's
 * bits. Not exported. */
orca_halfplane orca_constraint_agent_sep(orca_vec2 rel_pos, double r, orca_vec2 va, orca_vec2 vb,
                                         double tau, double dt, double share, int higher,
                                         orca_form *form);

/* The order of neighbour lists: (squared distance, index). */
static inline int neighbor_less(double d2, int32_t idx, const neighbor *b)
{
    return d2 < b->dist2 || (d2 == b->dist2 && idx < b->index);
}

/* Offers the agent at sorted position k (agent index cell_index[k], squared distance d2) to
 * the sorted list out (n entries, capacity cap); returns the new n. The list ends up the
 * same whatever order the agents are offered in. */
static ORCA_ALWAYS_INLINE int neighbor_offer(const int32_t *cell_index, double d2, int32_t k,
                                             neighbor *out, int n, int cap)
{
    int32_t j = cell_index[k];
    if (n == cap && !neighbor_less(d2, j, &out[n - 1])) {
        return n;
    }
    int at = n < cap ? n++ : cap - 1;
    while (at > 0 && neighbor_less(d2, j, &out[at - 1])) {
        out[at] = out[at - 1];
        --at;
    }
    out[at].dist2 = d2;
    out[at].index = j;
    out[at].at = k;
    return n;
}

/* The hinted search collects the agents that pass its distance filter and then orders them
 * at once: each one's rank is the number of candidates at a smaller squared distance. Without
 * ties in distance the ranks are the sorted order; with ties (two candidates of one rank)
 * the list is built by insertion instead, which orders them by index. Ranking replaces a
 * mispredicted branch per step of an insertion with counting that runs without branches. */
#define RANK_CAP_MAX 16 /* lists up to this capacity are ranked; longer ones inserted */
#define RANK_ROOM 16    /* entries a ranked list has room for, whatever its capacity */
#define CAND_MAX 64     /* candidates held before ranking */
#define CAND_CHUNK 32   /* candidates a scan adds between checks for room */
#define CAND_PAD 12     /* zeroed entries past the candidates (whole groups of twelve) */

/* Candidates in any order (the list built from them does not depend on it). A scan may
 * store whole groups of four past n: the arrays hold CAND_PAD more entries. */
typedef struct cand_buf {
    double d2[CAND_MAX + CAND_PAD]; /* squared distances */
    int64_t at[CAND_MAX + CAND_PAD]; /* sorted positions */
    int64_t rank[CAND_MAX + CAND_PAD];
    int n;
    /* The vector box scan's state where it hands a long row over to its out-of-line rest
     * (kernels.c), passed here rather than as arguments so that the hand-over is a jump. */
    struct {
        const int32_t *lo, *last;
        int64_t w, span;
        const void *pos;
        const int32_t *cell_index;
        double px, filt2, py; /* not px, py: gcc 12 paired their stores through memory */
        int32_t self;
        int cap;
        const uint32_t *lay; /* the layered search's (orca_box_search_layered_vector) */
        uint32_t want;
    } rest;
} cand_buf;

/* Defines NAME(cand_buf *c): rank[i] = the number of candidates j with d2[j] < d2[i], twelve
 * i at a time. With gcc and clang in vectors of LANES doubles: step.c uses two lanes (SSE2,
 * NEON, or lane by lane where there is no vector unit), the AVX2 kernel four. Comparisons
 * only: nothing is rounded. */
#if defined(__GNUC__) || defined(__clang__)
#define CAND_DEFINE_COUNT_RANKS(NAME, LANES)                                                  \
    static ORCA_ALWAYS_INLINE void NAME(cand_buf *c)                                          \
    {                                                                                         \
        typedef double vd __attribute__((vector_size(8 * (LANES))));                          \
        typedef long long vi __attribute__((vector_size(8 * (LANES))));                       \
        enum { G = 12 / (LANES) }; /* vectors per twelve: 3 or 6 */                         \
        memset(c->d2 + c->n, 0, CAND_PAD * sizeof c->d2[0]);                                  \
        for (int i = 0; i < c->n; i += 12) {                                                  \
            vd d[6];                                                                          \
            memcpy(d, c->d2 + i, G * sizeof d[0]);                                            \
            /* named accumulators, which stay in registers (an array would not) */           \
            vi a0 = {0}, a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;                         \
            for (int j = 0; j < c->n; ++j) {                                                  \
                vd b = c->d2[j] - (vd){0}; /* broadcast: x - 0 is x */                        \
                /* -1 in the lanes where d2[j] < d2[i] */                                     \
                a0 -= (vi)(b < d[0]);                                                         \
                a1 -= (vi)(b < d[1]);                                                         \
                a2 -= (vi)(b < d[2]);                                                         \
                if (G > 3) {                                                                  \
                    a3 -= (vi)(b < d[3]);                                                     \
                    a4 -= (vi)(b < d[4]);                                                     \
                    a5 -= (vi)(b < d[5]);                                                     \
                }                                                                             \
            }                                                                                 \
            vi a[6] = {a0, a1, a2, a3, a4, a5};                                               \
            memcpy(c->rank + i, a, G * sizeof a[0]);                                          \
        }                                                                                     \
    }
#else
#define CAND_DEFINE_COUNT_RANKS(NAME, LANES)                                                  \
    static void NAME(cand_buf *c)                                                             \
    {                                                                                         \
        for (int i = 0; i < c->n; ++i) {                                                      \
            int64_t r = 0;                                                                    \
            for (int j = 0; j < c->n; ++j) {                                                  \
                r += c->d2[j] < c->d2[i];                                                     \
            }                                                                                 \
            c->rank[i] = r;                                                                   \
        }                                                                                     \
    }
#endif

/* Inserts every candidate into the sorted list out of n entries (after a tie in ranks, with
 * n = 0: ties go by index; lists longer than RANK_CAP_MAX); returns its new length. */
static inline int cand_insert(const cand_buf *c, const int32_t *cell_index, neighbor *out, int n,
                              int cap)
{
    for (int i = 0; i < c->n; ++i) {
        n = neighbor_offer(cell_index, c->d2[i], (int32_t)c->at[i], out, n, cap);
    }
    return n;
}

/* The length of the list out once each of the n = c->n candidates has been placed at
 * out[its rank] and twice_sum is twice the sum of the ranks (the vector scan counts two bits
 * a rank): the ranks add up to n(n-1)/2 exactly when there are no ties; otherwise insertion
 * decides (and rebuilds the list). */
static inline int cand_ranked(const cand_buf *c, int n, const int32_t *cell_index,
                              neighbor *out, int cap, int64_t twice_sum)
{
    if (twice_sum != (int64_t)n * (n - 1)) {
        return cand_insert(c, cell_index, out, 0, cap);
    }
    return n < cap ? n : cap;
}

/* The sorted list of the ranked candidates: those of rank < cap go to out[rank], then
 * cand_ranked. Returns its length. Ranked entries get dist2 and at, not index (nothing
 * reads it: the step uses at). */
static inline int cand_place(const cand_buf *c, const int32_t *cell_index, neighbor *out, int cap)
{
    int64_t sum = 0;
    for (int i = 0; i < c->n; ++i) {
        int64_t r = c->rank[i];
        sum += r;
        if (r < cap) {
            out[r].dist2 = c->d2[i];
            out[r].at = (int32_t)c->at[i];
        }
    }
    return cand_ranked(c, c->n, cell_index, out, cap, 2 * sum);
}

/* Index of the lowest set bit of m != 0. */
static ORCA_ALWAYS_INLINE int lowest_bit(uint32_t m)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctz(m);
#else
    int i = 0;
    while (!(m & 1u)) {
        m >>= 1;
        ++i;
    }
    return i;
#endif
}

/* Adds the candidates of one scanned chunk: bit q of mask is the agent at sorted position
 * k0 + q, at squared distance dist[q]; all but the agent at self. No branch per candidate. */
static ORCA_ALWAYS_INLINE void cand_add(cand_buf *c, uint64_t mask, const double *dist,
                                        int32_t k0, int32_t self)
{
    while (mask) {
#if defined(__GNUC__) || defined(__clang__)
        int q = __builtin_ctzll(mask);
#else
        int q = 0;
        while (!((mask >> q) & 1)) {
            ++q;
        }
#endif
        mask &= mask - 1;
        c->d2[c->n] = dist[q];
        c->at[c->n] = k0 + q;
        c->n += k0 + q != self;
    }
}

/* Keeps the cap best candidates (already placed in out, length n): room for another chunk. */
static inline void cand_keep(cand_buf *c, const neighbor *out, int n)
{
    for (int i = 0; i < n; ++i) {
        c->d2[i] = out[i].dist2;
        c->at[i] = out[i].at;
    }
    c->n = n;
}

/* Ranks the candidates of c into the sorted list out (capacity cap <= RANK_CAP_MAX) and
 * returns its length: the file's count of ranks and cand_place, or a fused version. */
typedef int (*cand_rank_fn)(cand_buf *c, const int32_t *cell_index, neighbor *out, int cap);

/* Makes room in c (called when fewer than CAND_CHUNK entries are free) and returns the new
 * length of the list out: lists up to RANK_CAP_MAX are ranked and their entries kept as the
 * only candidates; longer ones take every candidate by insertion and empty c. */
static ORCA_ALWAYS_INLINE int cand_flush(cand_buf *c, cand_rank_fn rank,
                                         const int32_t *cell_index, neighbor *out, int n, int cap)
{
    if (cap <= RANK_CAP_MAX) {
        n = rank(c, cell_index, out, cap);
        cand_keep(c, out, n);
        return n;
    }
    n = cand_insert(c, cell_index, out, n, cap);
    c->n = 0;
    return n;
}

/* The list of the candidates left in c (after the last scan), with n entries taken before. */
static ORCA_ALWAYS_INLINE int cand_finish(cand_buf *c, cand_rank_fn rank,
                                          const int32_t *cell_index, neighbor *out, int n, int cap)
{
    if (cap <= RANK_CAP_MAX) {
        return rank(c, cell_index, out, cap);
    }
    return cand_flush(c, rank, cell_index, out, n, cap);
}

/* Positions readable past the last agent of the sorted copy (the vector scan reads groups
 * of four). */
#define CELL_POS_PAD 3

/* Whether this build has vector kernels and this CPU runs them (x86-64 with AVX2; a wasm
 * module built with SIMD128, which an engine without it refuses to compile). */
int orca_kernels_available(void);

#ifdef ORCA_HAVE_AVX
/* The agent constraints of one agent (position p, velocity v, radius r, horizon tau) against
 * the agents nb[0..count) of a neighbour list, read at their sorted positions from pos, vel
 * and radius: out[k] = orca_constraint_agent(pos[at] - p, r + radius[at], v, vel[at], tau,
 * dt, NULL) with at = nb[k].at, bit for bit. Call only when orca_kernels_available(). */
void orca_agent_planes_vector(orca_vec2 p, orca_vec2 v, double r, double tau, double dt,
                              const orca_vec2 *pos, const orca_vec2 *vel, const double *radius,
                              const neighbor *nb, int count, orca_halfplane *out);

/* orca_agent_planes_vector on the extended path (docs/extensions.md): out[k] =
 * orca_constraint_agent_sep(pos[at] - p, r + radius[at], v, vel[at], tau, dt, share[k],
 * sep_self > cell_index[at], NULL), bit for bit, with share NULL every share[k] 0.5;
 * sep_self is the agent's index with the separation of coincident agents, INT32_MIN without. */
void orca_agent_planes_share_vector(orca_vec2 p, orca_vec2 v, double r, double tau, double dt,
                                    const orca_vec2 *pos, const orca_vec2 *vel,
                                    const double *radius, const neighbor *nb, int count,
                                    const double *share, const int32_t *cell_index,
                                    int32_t sep_self, orca_halfplane *out);

/* The dense agent grid as the vector box search reads it (grid.c fills it with the grid). */
typedef struct box_grid {
    const int32_t *cell_start; /* prefix sums of the cells, row by row */
    const orca_vec2 *pos;      /* positions in the sorted order */
    const int32_t *cell_index; /* agent index of each sorted position */
    double origin[4];          /* origin x, origin x, origin y, origin y */
    double top[4];             /* w - 0.5, w - 0.5, h - 0.5, h - 0.5 */
    double inv[4];             /* inv_cell_x, inv_cell_x, inv_cell, inv_cell */
    int32_t w, h;
} box_grid;

/* The cells of the box around p that box_search scans: c[0], c[1] = dense_column(p.x -
 * bound - m - origin_x), dense_column(p.x + bound + m - origin_x), c[2], c[3] the same
 * rows with p.y and origin_y (step.c; the same operations, the same integers). */
void orca_box_cells_vector(const box_grid *g, orca_vec2 p, double bound, double m, int32_t c[4]);

/* box_search (sim_step.inc) on CPUs with the kernels: the block of orca_box_cells_vector scanned
 * by orca_box_scan_vector. */
int orca_box_search_vector(const box_grid *g, int32_t self, orca_vec2 p, double bound, double m,
                           double filt2, neighbor *out, cand_buf *c, int cap);

/* orca_box_search_vector on the extended path where layers hide agents: only the agents
 * whose layers lay[k] (sorted positions, readable CELL_POS_PAD entries past the last) meet
 * want count. */
int orca_box_search_layered_vector(const box_grid *g, int32_t self, orca_vec2 p, double bound,
                                   double m, double filt2, neighbor *out, cand_buf *c, int cap,
                                   const uint32_t *lay, uint32_t want);

/* The scan of orca_box_search_vector on given cells (the tests call it directly): rows row,
 * row + w, ... (`rows` of them) of the dense grid's prefix sums, columns c0..c1 of each;
 * writes to out the list of the agents other than the one at sorted position self whose
 * squared distance Dot(d, d), d = pos[k] - p, is below filt2 (the cap first in algorithm.md's
 * order) and returns its length. rows >= 1; out has room for cap and for RANK_ROOM entries
 * (placement may write past the list); pos must be readable CELL_POS_PAD entries past the
 * last agent; c is scratch for the candidates. */
int orca_box_scan_vector(const int32_t *row, int32_t w, int32_t rows, int32_t c0, int32_t c1,
                         const orca_vec2 *pos, const int32_t *cell_index, int32_t self,
                         orca_vec2 p, double filt2, neighbor *out, cand_buf *c, int cap);
#endif

#ifdef ORCA_HAVE_SIMD128
/* orca_agent_planes_vector's contract, two lanes at a time in SIMD128 vectors (kernels.c). */
void orca_agent_planes_simd128(orca_vec2 p, orca_vec2 v, double r, double tau, double dt,
                               const orca_vec2 *pos, const orca_vec2 *vel, const double *radius,
                               const neighbor *nb, int count, orca_halfplane *out);
/* orca_agent_planes_share_vector's contract, two lanes at a time (the extended path). */
void orca_agent_planes_share_simd128(orca_vec2 p, orca_vec2 v, double r, double tau, double dt,
                                     const orca_vec2 *pos, const orca_vec2 *vel,
                                     const double *radius, const neighbor *nb, int count,
                                     const double *share, const int32_t *cell_index,
                                     int32_t sep_self, orca_halfplane *out);
#endif

/* The step's solve: orca_solve without the checks of its arguments (the simulator has
 * validated them); lp.inc. The _avx2 copy runs only when orca_kernels_available(). */
orca_solve_result orca_solve_step(const orca_halfplane *planes, int count, int hard_count,
                                  double max_speed, orca_vec2 preferred, orca_halfplane *scratch);
/* orca_solve_step with the first nb half-planes a walkable area's boundary ones (nb > 0): a
 * program that fails within the hard ones keeps them hard (docs/extensions.md,
 * "Walkable-area boundaries"); and a program that fails at or after soft_from (the pedestrian
 * model's headway half-planes; count when there are none) keeps every half-plane before
 * soft_from hard in its fallback (docs/pedestrians.md, part D); lp.inc. */
orca_solve_result orca_solve_step_bnd(const orca_halfplane *planes, int count, int hard_count,
                                      int nb, double max_speed, orca_vec2 preferred,
                                      orca_halfplane *scratch, int soft_from);
#ifdef ORCA_HAVE_AVX
orca_solve_result orca_solve_step_bnd_avx2(const orca_halfplane *planes, int count,
                                           int hard_count, int nb, double max_speed,
                                           orca_vec2 preferred, orca_halfplane *scratch,
                                           int soft_from);
orca_solve_result orca_solve_step_avx2(const orca_halfplane *planes, int count, int hard_count,
                                       double max_speed, orca_vec2 preferred,
                                       orca_halfplane *scratch);
#endif
#ifdef ORCA_HAVE_SIMD128
/* The SIMD128 module's copies (lp.inc with LP_VECTOR 2). */
orca_solve_result orca_solve_step_simd128(const orca_halfplane *planes, int count,
                                          int hard_count, double max_speed, orca_vec2 preferred,
                                          orca_halfplane *scratch);
orca_solve_result orca_solve_step_bnd_simd128(const orca_halfplane *planes, int count,
                                              int hard_count, int nb, double max_speed,
                                              orca_vec2 preferred, orca_halfplane *scratch,
                                              int soft_from);
#endif

#endif
