/* SPDX-License-Identifier: MIT */
/* The density-dependent speed (docs/extensions.md, "Density-dependent speed"): the library's
 * exp(-x) against libm (here only) and at its edges; the factor; the step against the
 * estimate written out here from the positions (brute force) and the plain solve of the
 * scaled preferred velocity; a dense block slower than a sparse one; off changes no bit; the
 * same bits for any worker count and with or without the vector kernels; the parameters as
 * state (hash, snapshot, a damaged section refused); refused parameters over the binary64
 * range leave the state unchanged. */
#include "test.h"
#include "ext_bits.h"
#include "fuzz.h"
#include "sim_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <orca/orca.h>

static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* The distance in units in the last place between two positive finite doubles. */
static uint64_t ulps(double a, double b)
{
    uint64_t x = bits_of(a), y = bits_of(b);
    return x > y ? x - y : y - x;
}

/* --- exp(-x) ----------------------------------------------------------------------------- */

static int test_exp_against_libm(void)
{
    /* the range the step uses (x >= 0 up to where 1 - exp(-x) is 1) and beyond, densely near
     * 0 and at the reduction's boundaries (halves of ln 2) */
    test_rng rng = {29};
    uint64_t worst = 0;
    double worst_x = 0;
    for (int k = 0; k < 200000; ++k) {
        double x;
        if (k < 100000) {
            x = test_rng_uniform(&rng, 0, 40);
        } else if (k < 150000) {
            x = test_rng_uniform(&rng, 0, 708);
        } else if (k < 190000) {
            x = ldexp(test_rng_uniform(&rng, 1, 2), -(int)(test_rng_next(&rng) % 1074));
        } else {
            int j = (int)(test_rng_next(&rng) % 2040);
            x = (j + 0.5) * 0.69314718055994531 + test_rng_uniform(&rng, -1e-9, 1e-9);
            if (x > 708) {
                continue;
            }
        }
        double mine = orca_exp_neg(x), ref = exp(-x);
        uint64_t u = ulps(mine, ref);
        if (u > worst) {
            worst = u;
            worst_x = x;
        }
    }
    ENSURE_MSG(worst <= 2, "exp(-x) off libm by %llu ulp at x = %.17g", (unsigned long long)worst,
               worst_x);
    return 0;
}

static int test_exp_edges(void)
{
    ENSURE_BITS(orca_exp_neg(0.0), 1.0);
    ENSURE_BITS(orca_exp_neg(-0.0), 1.0);
    ENSURE_BITS(orca_exp_neg(4.9406564584124654e-324), 1.0);  /* 1 - subnormal rounds to 1 */
    ENSURE_BITS(orca_exp_neg(DBL_MIN), 1.0);
    ENSURE_BITS(orca_exp_neg(0x1p-54), 1.0);
    ENSURE(orca_exp_neg(0x1p-52) < 1.0);
    ENSURE(orca_exp_neg(708.0) > 0 && ulps(orca_exp_neg(708.0), exp(-708.0)) <= 2);
    ENSURE_BITS(orca_exp_neg(nextafter(708.0, 1000)), 0.0);
    ENSURE_BITS(orca_exp_neg(745.2), 0.0);
    ENSURE_BITS(orca_exp_neg(1e300), 0.0);
    ENSURE_BITS(orca_exp_neg(HUGE_VAL), 0.0);
    ENSURE_BITS(orca_exp_neg(NAN), 0.0);
    ENSURE_BITS(orca_exp_neg(-1.0), 1.0); /* outside the domain: as 0 */
    ENSURE_BITS(orca_exp_neg(-HUGE_VAL), 1.0);
    /* monotone (non-increasing) on a fine grid */
    double prev = 1.0;
    for (double x = 0; x < 40; x += 0.001) {
        double e = orca_exp_neg(x);
        ENSURE_MSG(e <= prev, "exp(-x) rises at x = %.17g", x);
        prev = e;
    }
    return 0;
}

/* --- the factor -------------------------------------------------------------------------- */

static int test_factor(void)
{
    orca_density_speed p = orca_density_speed_default();
    ENSURE_BITS(p.radius, 2.0);
    ENSURE_BITS(p.gamma, 1.913);
    ENSURE_BITS(p.max_density, 5.4);
    orca_density_speed q = ORCA_DENSITY_SPEED_DEFAULT;
    ENSURE(memcmp(&p, &q, sizeof p) == 0);
    /* a lone agent: the kernel's own weight 3 / (pi h^2) */
    neighbor none[1];
    double lone = orca_density_estimate(none, 0, 10, p.radius);
    ENSURE_NEAR(lone, 3 / (3.14159265358979323846 * 4), 1e-15);
    ENSURE(orca_density_factor(&p, lone) > 0.99);
    /* Weidmann's values (libm here) within rounding */
    for (double rho = 0.25; rho < 5.4; rho += 0.25) {
        double f = orca_density_factor(&p, rho);
        double ref = 1 - exp(-1.913 * (1 / rho - 1 / 5.4));
        ENSURE_NEAR(f, ref, 1e-15);
    }
    /* monotone: non-increasing in rho, 0 from max_density on, never negative */
    double prev = 1.0;
    for (double rho = 1e-3; rho < 8; rho *= 1.001) {
        double f = orca_density_factor(&p, rho);
        ENSURE_MSG(f <= prev && f >= 0, "factor %.17g at rho %.17g after %.17g", f, rho, prev);
        prev = f;
    }
    ENSURE_BITS(orca_density_factor(&p, 5.4), 0.0);
    ENSURE_BITS(orca_density_factor(&p, nextafter(5.4, 0)) >= 0 ? 1.0 : 0.0, 1.0);
    ENSURE_BITS(orca_density_factor(&p, HUGE_VAL), 0.0);
    ENSURE_BITS(orca_density_factor(&p, 1e-300), 1.0);
    return 0;
}

/* --- the step against the brute-force estimate --------------------------------------------- */

typedef struct nb_entry {
    double d2;
    int j;
} nb_entry;

static int nb_cmp(const void *a, const void *b)
{
    const nb_entry *x = a, *y = b;
    if (x->d2 != y->d2) {
        return x->d2 < y->d2 ? -1 : 1;
    }
    return (x->j > y->j) - (x->j < y->j);
}

/* Agent i's density from every position (docs/extensions.md, "Density-dependent speed"): the
 * list by (squared distance, index) within neighbor_dist, at most max_neighbors, then the
 * kernel, operation by operation as the documentation lists them. */
static double brute_density(const orca_vec2 *p, int n, int i, double nd, int cap, double radius)
{
    nb_entry *e = malloc((size_t)n * sizeof *e);
    int m = 0;
    for (int j = 0; j < n; ++j) {
        double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;
        double d2 = dx * dx + dy * dy;
        if (j != i && d2 < nd * nd) {
            e[m].d2 = d2;
            e[m].j = j;
            ++m;
        }
    }
    qsort(e, (size_t)m, sizeof *e, nb_cmp);
    if (m > cap) {
        m = cap;
    }
    double h2 = radius * radius;
    if (m == cap && m > 0 && e[m - 1].d2 < h2) {
        h2 = e[m - 1].d2;
    }
    double inv = 1.0 / h2, sum = 1.0;
    for (int k = 0; k < m; ++k) {
        double t = 1.0 - e[k].d2 * inv;
        if (!(t > 0)) {
            break;
        }
        sum += t * t;
    }
    free(e);
    return sum * 0x1.e8ec8a4aeacc4p-1 * inv;
}

/* A crowd of n agents in a w by w square (random, at least 0.45 apart), walking +x. */
static void add_crowd(orca_sim *s, int n, double w, int cap, double nd, unsigned long long seed)
{
    test_rng rng = {seed};
    orca_vec2 *at = malloc((size_t)n * sizeof *at);
    int m = 0;
    while (m < n) {
        orca_vec2 q = vec(test_rng_uniform(&rng, 0, w), test_rng_uniform(&rng, 0, w));
        int ok = 1;
        for (int k = 0; k < m && ok; ++k) {
            double dx = at[k].x - q.x, dy = at[k].y - q.y;
            ok = dx * dx + dy * dy >= 0.45 * 0.45;
        }
        if (!ok) {
            continue;
        }
        at[m++] = q;
        orca_agent_def d = orca_agent_def_default();
        d.position = q;
        d.radius = 0.2;
        d.max_speed = 2;
        d.neighbor_dist = nd;
        d.max_neighbors = cap;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 2;
        d.preferred_velocity = vec(1.34, 0.1 * (m % 3) - 0.1);
        orca_sim_add_agent(s, &d, NULL);
    }
    free(at);
}

/* One step with the density speed on equals, bit for bit, the extended path's step without
 * it (separation on: the same constraints) of the preferred velocities scaled by the factor of
 * the brute-force estimate; the stored preferred velocities do not change. Lists cut at
 * max_neighbors (12) and lists within the kernel radius (64) alike. */
static int test_step_against_brute_force(void)
{
    const int caps[2] = {12, 64};
    for (int c = 0; c < 2; ++c) {
        orca_sim *a = test_new_sim(1), *b = test_new_sim(1);
        ENSURE(a && b);
        add_crowd(a, 150, 7, caps[c], 3, 5 + c);
        add_crowd(b, 150, 7, caps[c], 3, 5 + c);
        orca_density_speed p = orca_density_speed_default();
        p.radius = 1.5;
        ENSURE(orca_sim_set_density_speed(a, &p) == ORCA_OK);
        ENSURE(orca_sim_set_separation(b, 1) == ORCA_OK);
        int n = orca_sim_agent_count(a);
        const orca_vec2 *pos = orca_sim_positions(a);
        orca_vec2 *pref = malloc((size_t)n * sizeof *pref);
        int slowed = 0;
        for (int i = 0; i < n; ++i) {
            orca_agent_def d;
            orca_agent_get(a, orca_sim_agent_at(a, i), &d);
            pref[i] = d.preferred_velocity;
            double f = orca_density_factor(&p, brute_density(pos, n, i, 3, caps[c], p.radius));
            slowed += f < 0.9;
            orca_vec2 v = vec(pref[i].x * f, pref[i].y * f);
            orca_agent_set_preferred_velocity(b, orca_sim_agent_at(b, i), v);
        }
        ENSURE(slowed > n / 4);
        ENSURE(orca_sim_step(a, 0.1) == ORCA_OK && orca_sim_step(b, 0.1) == ORCA_OK);
        for (int i = 0; i < n; ++i) {
            orca_agent_def da, db;
            orca_agent_get(a, orca_sim_agent_at(a, i), &da);
            orca_agent_get(b, orca_sim_agent_at(b, i), &db);
            ENSURE_BITS(da.velocity.x, db.velocity.x);
            ENSURE_BITS(da.velocity.y, db.velocity.y);
            ENSURE_BITS(da.position.x, db.position.x);
            ENSURE_BITS(da.position.y, db.position.y);
            ENSURE_BITS(da.preferred_velocity.x, pref[i].x); /* the stored value stays */
            ENSURE_BITS(da.preferred_velocity.y, pref[i].y);
        }
        free(pref);
        orca_sim_destroy(a);
        orca_sim_destroy(b);
    }
    return 0;
}

/* A dense block (3 per m^2) and a sparse one (0.5 per m^2), far apart, walk +x for 4 s:
 * with the extension the dense one's agents advance less than half as far as the sparse
 * one's and than without it (the sparse one barely slows). */
static int block_advance(int on, double *dense, double *sparse)
{
    orca_sim *s = test_new_sim(2);
    ENSURE(s);
    int count[2] = {0, 0};
    for (int b = 0; b < 2; ++b) {
        double gap = b == 0 ? 1 / sqrt(3.0) : 1 / sqrt(0.5);
        double y0 = b == 0 ? 0 : 100;
        for (double x = 0; x < 10; x += gap) {
            for (double y = 0; y < 10; y += gap) {
                orca_agent_def d = orca_agent_def_default();
                d.position = vec(x, y0 + y);
                d.radius = 0.2;
                d.neighbor_dist = 2;
                d.max_neighbors = 64;
                d.time_horizon = 2;
                d.preferred_velocity = vec(1.34, 0);
                ENSURE(orca_sim_add_agent(s, &d, NULL) == ORCA_OK);
                count[b]++;
            }
        }
    }
    if (on) {
        orca_density_speed p = orca_density_speed_default();
        ENSURE(orca_sim_set_density_speed(s, &p) == ORCA_OK);
    }
    orca_vec2 *start = malloc((size_t)(count[0] + count[1]) * sizeof *start);
    memcpy(start, orca_sim_positions(s), (size_t)(count[0] + count[1]) * sizeof *start);
    for (int t = 0; t < 40; ++t) {
        ENSURE(orca_sim_step(s, 0.1) == ORCA_OK);
    }
    const orca_vec2 *p = orca_sim_positions(s);
    double sum[2] = {0, 0};
    for (int i = 0; i < count[0] + count[1]; ++i) {
        sum[i >= count[0]] += p[i].x - start[i].x;
    }
    *dense = sum[0] / count[0] / 4;
    *sparse = sum[1] / count[1] / 4;
    free(start);
    orca_sim_destroy(s);
    return 0;
}

static int test_dense_block_slower(void)
{
    double dense, sparse, dense_off, sparse_off;
    ENSURE(block_advance(1, &dense, &sparse) == 0);
    ENSURE(block_advance(0, &dense_off, &sparse_off) == 0);
    ENSURE_MSG(dense < 0.5 * sparse && dense < 0.5 * dense_off && sparse > 0.95 * sparse_off,
               "on: dense %.4f m/s, sparse %.4f m/s; off: dense %.4f m/s, sparse %.4f m/s",
               dense, sparse, dense_off, sparse_off);
    return 0;
}

/* --- state and bits ------------------------------------------------------------------------ */

static void bits_crowd(orca_sim *s)
{
    add_crowd(s, 400, 12, 20, 2, 77);
}

static void bits_on(orca_sim *s)
{
    orca_density_speed p = orca_density_speed_default();
    orca_sim_set_density_speed(s, &p);
}

static int test_same_bits_any_workers_and_kernels(void)
{
    return test_ext_same_bits(bits_crowd, bits_on, 0.1);
}

static int test_off_changes_nothing(void)
{
    /* never on, and on then off again: the same hashes as the plain step */
    orca_sim *a = test_new_sim(1), *b = test_new_sim(1);
    ENSURE(a && b);
    add_crowd(a, 100, 6, 10, 3, 9);
    add_crowd(b, 100, 6, 10, 3, 9);
    orca_density_speed out;
    ENSURE(orca_sim_get_density_speed(a, &out) == 0);
    ENSURE_BITS(out.radius, 2.0);
    uint64_t h0 = orca_sim_hash(a);
    orca_density_speed p = orca_density_speed_default();
    ENSURE(orca_sim_set_density_speed(b, &p) == ORCA_OK);
    ENSURE(orca_sim_get_density_speed(b, NULL) == 1);
    ENSURE(orca_sim_hash(b) != h0);
    ENSURE(orca_sim_separation_active(b) == 1);
    ENSURE(orca_sim_set_density_speed(b, NULL) == ORCA_OK);
    ENSURE(orca_sim_get_density_speed(b, NULL) == 0);
    ENSURE(orca_sim_separation_active(b) == 0);
    ENSURE(orca_sim_hash(b) == h0);
    for (int t = 0; t < 20; ++t) {
        ENSURE(orca_sim_step(a, 0.1) == ORCA_OK && orca_sim_step(b, 0.1) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    /* NULL simulation */
    ENSURE(orca_sim_set_density_speed(NULL, &p) == ORCA_ERR_NULL);
    ENSURE(orca_sim_get_density_speed(NULL, &out) == 0);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

static int test_snapshot_round_trip(void)
{
    orca_sim *a = test_new_sim(1), *b = test_new_sim(2);
    ENSURE(a && b);
    add_crowd(a, 120, 6, 20, 2, 11);
    orca_density_speed p = {1.75, 2.5, 4.75};
    ENSURE(orca_sim_set_density_speed(a, &p) == ORCA_OK);
    for (int t = 0; t < 5; ++t) {
        ENSURE(orca_sim_step(a, 0.1) == ORCA_OK);
    }
    size_t size = 0;
    ENSURE(orca_sim_save(a, NULL, 0, &size) == ORCA_OK);
    unsigned char *buf = malloc(size);
    ENSURE(orca_sim_save(a, buf, size, &size) == ORCA_OK);
    ENSURE(orca_sim_load(b, buf, size) == ORCA_OK);
    orca_density_speed q;
    ENSURE(orca_sim_get_density_speed(b, &q) == 1);
    ENSURE(memcmp(&p, &q, sizeof p) == 0);
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    for (int t = 0; t < 10; ++t) {
        ENSURE(orca_sim_step(a, 0.1) == ORCA_OK && orca_sim_step(b, 0.1) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));

    /* a damaged section (radius NaN, gamma 0, max_density -1; the checksum sealed again) is
     * refused, naming the section and the value, and nothing changes */
    uint64_t hb = orca_sim_hash(b);
    const uint64_t bad[3] = {0x7ff8000000000000ull, 0, bits_of(-1.0)};
    const char *names[3] = {"radius", "gamma", "max_density"};
    for (int f = 0; f < 3; ++f) {
        unsigned char *d = malloc(size);
        memcpy(d, buf, size);
        fuzz_put64(d + size - 8 - 24 + 8 * f, bad[f]);
        fuzz_seal(d, size);
        ENSURE(orca_sim_load(b, d, size) == ORCA_ERR_FORMAT);
        const char *msg = orca_sim_last_error(b);
        ENSURE_MSG(strstr(msg, "snapshot density section") && strstr(msg, names[f]), "%s", msg);
        ENSURE(orca_sim_hash(b) == hb);
        free(d);
    }
    /* the flag without its section: a wrong size */
    ENSURE(orca_sim_load(b, buf, size - 24) == ORCA_ERR_FORMAT);
    ENSURE(orca_sim_hash(b) == hb);

    /* with a boundary section and the separation flag before it */
    orca_sim *c = test_new_sim(1);
    add_crowd(c, 30, 4, 20, 2, 13);
    const orca_vec2 room[4] = {{-5, -5}, {10, -5}, {10, 10}, {-5, 10}};
    ENSURE(orca_sim_add_boundary(c, room, 4, NULL) == ORCA_OK);
    ENSURE(orca_sim_set_separation(c, 1) == ORCA_OK);
    ENSURE(orca_sim_set_density_speed(c, &p) == ORCA_OK);
    size_t cs = 0;
    orca_sim_save(c, NULL, 0, &cs);
    unsigned char *cb = malloc(cs);
    ENSURE(orca_sim_save(c, cb, cs, &cs) == ORCA_OK);
    ENSURE(fuzz_get32(cb + 44) == (2u | 4u | 8u));
    ENSURE(orca_sim_load(b, cb, cs) == ORCA_OK);
    ENSURE(orca_sim_get_density_speed(b, &q) == 1 && memcmp(&p, &q, sizeof p) == 0);
    ENSURE(orca_sim_hash(b) == orca_sim_hash(c));
    ENSURE(orca_sim_step(b, 0.1) == ORCA_OK && orca_sim_step(c, 0.1) == ORCA_OK);
    ENSURE(orca_sim_hash(b) == orca_sim_hash(c));
    free(cb);
    orca_sim_destroy(c);

    /* a snapshot without the extension (version 1) loads and turns it off */
    orca_sim *plain = test_new_sim(1);
    add_crowd(plain, 10, 3, 10, 2, 3);
    size_t ps = 0;
    orca_sim_save(plain, NULL, 0, &ps);
    unsigned char *pb = malloc(ps);
    ENSURE(orca_sim_save(plain, pb, ps, &ps) == ORCA_OK);
    ENSURE(fuzz_get32(pb + 8) == 1);
    ENSURE(orca_sim_load(b, pb, ps) == ORCA_OK);
    ENSURE(orca_sim_get_density_speed(b, NULL) == 0);
    ENSURE(orca_sim_hash(b) == orca_sim_hash(plain));
    free(pb);
    free(buf);
    orca_sim_destroy(plain);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

/* Every field over the binary64 range: the accepted edges, and refusals that leave the state
 * (the parameters, the hash) as it was with a message naming the field and the value. */
static int test_refused_parameters(void)
{
    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    add_crowd(s, 5, 3, 10, 2, 1);
    orca_density_speed on = {1.25, 2.0, 5.0};
    ENSURE(orca_sim_set_density_speed(s, &on) == ORCA_OK);
    uint64_t h = orca_sim_hash(s);
    const double lo[3] = {ORCA_DENSITY_RADIUS_MIN, ORCA_DENSITY_GAMMA_MIN, ORCA_DENSITY_MAX_MIN};
    const double hi[3] = {ORCA_DENSITY_RADIUS_MAX, ORCA_DENSITY_GAMMA_MAX, ORCA_DENSITY_MAX_MAX};
    const char *names[3] = {"radius", "gamma", "max_density"};
    for (int f = 0; f < 3; ++f) {
        const double refused[] = {NAN, -NAN, HUGE_VAL, -HUGE_VAL, 0.0, -0.0, -1.0,
                                  4.9406564584124654e-324, DBL_MIN, nextafter(lo[f], 0),
                                  nextafter(hi[f], HUGE_VAL), 1e300, DBL_MAX, -DBL_MAX};
        for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k) {
            orca_density_speed p = on;
            double *field = f == 0 ? &p.radius : f == 1 ? &p.gamma : &p.max_density;
            *field = refused[k];
            ENSURE_MSG(orca_sim_set_density_speed(s, &p) == ORCA_ERR_ARGUMENT, "%s = %.17g",
                       names[f], refused[k]);
            const char *msg = orca_sim_last_error(s);
            ENSURE_MSG(strstr(msg, names[f]) && strstr(msg, "got"), "%s", msg);
            orca_density_speed now;
            ENSURE(orca_sim_get_density_speed(s, &now) == 1);
            ENSURE(memcmp(&now, &on, sizeof on) == 0);
            ENSURE(orca_sim_hash(s) == h);
        }
        /* the edges are accepted, and a step runs with them */
        const double edges[2] = {lo[f], hi[f]};
        for (int e = 0; e < 2; ++e) {
            orca_density_speed p = on;
            double *field = f == 0 ? &p.radius : f == 1 ? &p.gamma : &p.max_density;
            *field = edges[e];
            ENSURE_MSG(orca_sim_set_density_speed(s, &p) == ORCA_OK, "%s", orca_sim_last_error(s));
            ENSURE_MSG(orca_sim_step(s, 0.1) == ORCA_OK, "%s", orca_sim_last_error(s));
        }
        ENSURE(orca_sim_set_density_speed(s, &on) == ORCA_OK);
        h = orca_sim_hash(s);
    }
    /* a refused value while off leaves it off */
    ENSURE(orca_sim_set_density_speed(s, NULL) == ORCA_OK);
    orca_density_speed p = on;
    p.gamma = NAN;
    ENSURE(orca_sim_set_density_speed(s, &p) == ORCA_ERR_ARGUMENT);
    ENSURE(orca_sim_get_density_speed(s, NULL) == 0);
    orca_sim_destroy(s);
    return 0;
}

/* A full list of agents at the agent's own point: infinite density, factor 0 (no NaN); and a
 * locked agent keeps its velocity whatever the density. */
static int test_degenerate_lists(void)
{
    neighbor list[3] = {{0, 1, 1}, {0, 2, 2}, {0, 3, 3}};
    orca_density_speed p = orca_density_speed_default();
    double rho = orca_density_estimate(list, 3, 3, 2.0);
    ENSURE(rho == HUGE_VAL);
    ENSURE_BITS(orca_density_factor(&p, rho), 0.0);
    /* the same list not full: the kernel's radius, three agents at weight 1 plus itself */
    rho = orca_density_estimate(list, 3, 4, 2.0);
    ENSURE_NEAR(rho, 4 * 3 / (3.14159265358979323846 * 4), 1e-15);

    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    add_crowd(s, 60, 4, 20, 2, 4);
    ENSURE(orca_sim_set_density_speed(s, &p) == ORCA_OK);
    orca_agent_id id = orca_sim_agent_at(s, 7);
    ENSURE(orca_agent_set_velocity(s, id, vec(0.5, 0.25)) == ORCA_OK);
    ENSURE(orca_agent_set_locked(s, id, 1) == ORCA_OK);
    ENSURE(orca_sim_step(s, 0.1) == ORCA_OK);
    orca_vec2 v;
    ENSURE(orca_agent_get_velocity(s, id, &v) == ORCA_OK);
    ENSURE_BITS(v.x, 0.5);
    ENSURE_BITS(v.y, 0.25);
    orca_sim_destroy(s);
    return 0;
}

/* The bits pinned: a 10 x 10 block (0.5 m apart) walking +x with the defaults, 40 steps of
 * 0.1 s; python/tests/test_density.py and the browser module's test build the same scene and
 * expect the same hash (on every machine: docs/determinism.md). */
#define PINNED_HASH 0xf011970776cc6b30ull

static uint64_t pinned_scene_hash(int workers, int kernels)
{
    orca_sim *s = test_new_sim(workers);
    if (!s) {
        return 0;
    }
    orca_sim_set_vector_kernels(s, kernels);
    for (int i = 0; i < 100; ++i) {
        orca_agent_def d = orca_agent_def_default();
        d.position = vec((i % 10) * 0.5, (i / 10) * 0.5);
        d.radius = 0.2;
        d.neighbor_dist = 2;
        d.max_neighbors = 64;
        d.time_horizon = 2;
        d.obstacle_time_horizon = 2;
        d.preferred_velocity = vec(1.34, 0.05 * (i % 3));
        orca_sim_add_agent(s, &d, NULL);
    }
    orca_density_speed p = ORCA_DENSITY_SPEED_DEFAULT;
    orca_sim_set_density_speed(s, &p);
    for (int t = 0; t < 40; ++t) {
        orca_sim_step(s, 0.1);
    }
    uint64_t h = orca_sim_hash(s);
    orca_sim_destroy(s);
    return h;
}

static int test_pinned_hash(void)
{
    for (int w = 1; w <= 2; ++w) {
        for (int k = 0; k < 2; ++k) {
            uint64_t h = pinned_scene_hash(w, k);
            ENSURE_MSG(h == PINNED_HASH, "hash %016llx, pinned %016llx (workers %d, kernels %d)",
                       (unsigned long long)h, (unsigned long long)PINNED_HASH, w, k);
        }
    }
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"pinned_hash", test_pinned_hash},
    {"exp_against_libm", test_exp_against_libm},
    {"exp_edges", test_exp_edges},
    {"factor", test_factor},
    {"step_against_brute_force", test_step_against_brute_force},
    {"dense_block_slower", test_dense_block_slower},
    {"same_bits_any_workers_and_kernels", test_same_bits_any_workers_and_kernels},
    {"off_changes_nothing", test_off_changes_nothing},
    {"snapshot_round_trip", test_snapshot_round_trip},
    {"refused_parameters", test_refused_parameters},
    {"degenerate_lists", test_degenerate_lists},
    {0, 0},
};
