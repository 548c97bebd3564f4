/* SPDX-License-Identifier: MIT */
/* A tiny test runner (after Box2D's): each test_*.c file is one executable that defines
 * ORCA_TESTS, a table of test functions ending in {0}; test/runner.c runs them all (or those
 * whose name contains argv[1]) and closes with "N passed, N failed". A test returns 0 when it
 * passes; the ENSURE macros print file and line and return 1. */
#ifndef ORCA_TEST_H
#define ORCA_TEST_H

#include <stdio.h>

#include <orca/orca.h>

typedef struct orca_test {
    const char *name;
    int (*fn)(void);
} orca_test;

extern const orca_test ORCA_TESTS[];

/* Helpers shared by the test files. */
static inline orca_vec2 vec(double x, double y)
{
    orca_vec2 v = {x, y};
    return v;
}

/* A simulation with the default definition and `workers` workers; NULL if refused. */
static inline orca_sim *test_new_sim(int workers)
{
    orca_sim_def d = orca_sim_def_default();
    d.worker_count = workers;
    orca_sim *sim = NULL;
    return orca_sim_create(&d, &sim) == ORCA_OK ? sim : NULL;
}

#define ENSURE(c)                                                                      \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "%s:%d: ENSURE(%s) failed\n", __FILE__, __LINE__, #c);     \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

#define ENSURE_MSG(c, ...)                                                             \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "%s:%d: ENSURE(%s) failed: ", __FILE__, __LINE__, #c);     \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

/* Bit-identical doubles (+0 and -0 differ; NaN equals NaN of the same bits). */
int test_same_bits(double a, double b);

#define ENSURE_BITS(a, b)                                                              \
    ENSURE_MSG(test_same_bits((a), (b)), "%s = %.17g (%a), %s = %.17g (%a)", #a,       \
               (double)(a), (double)(a), #b, (double)(b), (double)(b))

#define ENSURE_NEAR(a, b, tol)                                                         \
    ENSURE_MSG(((a) - (b) <= (tol)) && ((b) - (a) <= (tol)),                           \
               "%s = %.17g, %s = %.17g, tolerance %g", #a, (double)(a), #b,            \
               (double)(b), (double)(tol))

/* A small deterministic generator for tests (splitmix64). */
typedef struct test_rng {
    unsigned long long s;
} test_rng;
unsigned long long test_rng_next(test_rng *r);
/* uniform in [lo, hi) */
double test_rng_uniform(test_rng *r, double lo, double hi);

#endif
