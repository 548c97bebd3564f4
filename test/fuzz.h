/* SPDX-License-Identifier: MIT */
/* The fuzz targets (test/fuzz_api.c, test/fuzz_snapshot.c, test/fuzz_scenario.c,
 * test/fuzz_scene.c) and their seeded
 * driver (test/fuzz_driver.c). Each target defines LLVMFuzzerTestOneInput, which libFuzzer
 * calls in the fuzz build (cmake -DORCA_FUZZ=ON, clang; ORCA_LIBFUZZER defined). Built
 * without libFuzzer, the target also defines fuzz_generate and is linked with the driver,
 * which feeds it inputs made from a seed and the committed corpus (a ctest test). */
#ifndef ORCA_TEST_FUZZ_H
#define ORCA_TEST_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs one input; returns 0. An invariant violation abort()s. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef ORCA_LIBFUZZER
/* The driver's random numbers (splitmix64 from the seed): the same sequence everywhere. */
uint64_t fuzz_rand(void);
/* Writes one generated input of at most cap bytes into buf and returns its length. */
size_t fuzz_generate(uint8_t *buf, size_t cap);
#endif

/* Prints "PREFIX: invariant violated: MESSAGE" and aborts (libFuzzer then saves the input). */
static inline void fuzz_vviolation(const char *prefix, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: invariant violated: ", prefix);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    abort();
}

/* Allocation failure for orca_set_allocator's hooks (context: the injector): once armed, the
 * allocation after `countdown` more fails, and with persistent every one after it too. */
typedef struct fuzz_injector {
    int armed, persistent, fired;
    unsigned countdown;
} fuzz_injector;

static inline int fuzz_inj_fail(fuzz_injector *j)
{
    if (!j->armed) {
        return 0;
    }
    if (j->countdown > 0) {
        j->countdown--;
        return 0;
    }
    j->armed = j->persistent;
    j->fired++;
    return 1;
}

static inline void *fuzz_inj_alloc(size_t size, void *context)
{
    return fuzz_inj_fail(context) ? NULL : malloc(size);
}

static inline void *fuzz_inj_resize(void *p, size_t size, void *context)
{
    return fuzz_inj_fail(context) ? NULL : realloc(p, size);
}

static inline void fuzz_inj_release(void *p, void *context)
{
    (void)context;
    free(p);
}

#endif
