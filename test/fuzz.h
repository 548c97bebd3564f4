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
#include <string.h>

#include <orca/orca.h>

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

static inline void fuzz_violation(const char *prefix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fuzz_vviolation(prefix, fmt, ap);
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

/* Installs the injector as the library's allocator, once per process and before the first
 * simulation exists (orca_set_allocator's rule); 0 when it is in place. */
static inline int fuzz_install_hooks(fuzz_injector *j)
{
    static int installed;
    if (!installed) {
        orca_allocator a = {fuzz_inj_alloc, fuzz_inj_resize, fuzz_inj_release, j};
        if (orca_set_allocator(&a) != ORCA_OK) {
            return -1;
        }
        installed = 1;
    }
    return 0;
}

/* Arms the injector from an input's control byte: with bit 7 set the k-th allocation fails
 * (k from bits 4..6), with bit 2 also every one after it. */
static inline void fuzz_arm(fuzz_injector *j, unsigned control)
{
    j->armed = (control & 0x80) != 0;
    j->countdown = (control >> 4) & 7;
    j->persistent = (control & 4) != 0;
    j->fired = 0;
}

/* The snapshot targets' input: installs the injector (a violation under PREFIX if it cannot
 * be), then returns the control byte in *control and a malloc'ed copy of the bytes after it
 * (*n of them; free it); NULL for an empty input or when memory runs out. */
static inline unsigned char *fuzz_snapshot_input(fuzz_injector *j, const char *prefix,
                                                 const uint8_t *data, size_t size,
                                                 unsigned *control, size_t *n)
{
    if (fuzz_install_hooks(j) != 0) {
        fuzz_violation(prefix, "orca_set_allocator refused the hooks");
    }
    if (size < 1) {
        return NULL;
    }
    *control = data[0];
    *n = size - 1;
    unsigned char *buf = malloc(*n ? *n : 1);
    if (buf && *n) {
        memcpy(buf, data + 1, *n);
    }
    return buf;
}

/* A load's status against the disarmed injector: ORCA_ERR_MEMORY exactly when an allocation
 * failed; a refusal ORCA_ERR_FORMAT or ORCA_ERR_MEMORY with a message (`message`, the
 * object's last error). Violations are reported under PREFIX. */
static inline void fuzz_check_load_status(const fuzz_injector *j, const char *prefix,
                                          orca_status st, const char *message)
{
    if (j->fired && st != ORCA_ERR_MEMORY) {
        fuzz_violation(prefix, "an allocation failed during the load, which gave %s",
                       orca_status_name(st));
    }
    if (!j->fired && st == ORCA_ERR_MEMORY) {
        fuzz_violation(prefix, "the load gave ORCA_ERR_MEMORY though no allocation failed");
    }
    if (st != ORCA_OK) {
        if (!message[0]) {
            fuzz_violation(prefix, "a refused load gave no message");
        }
        if (st != ORCA_ERR_FORMAT && st != ORCA_ERR_MEMORY) {
            fuzz_violation(prefix, "a refused load gave %s, not ORCA_ERR_FORMAT",
                           orca_status_name(st));
        }
    }
}

/* Snapshot bytes (little-endian words and the FNV-1a 64 checksum, as orca_sim_save writes). */
static inline uint32_t fuzz_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t fuzz_get64(const unsigned char *p)
{
    return (uint64_t)fuzz_get32(p) | (uint64_t)fuzz_get32(p + 4) << 32;
}

static inline void fuzz_put32(unsigned char *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k) {
        p[k] = (unsigned char)(v >> (8 * k));
    }
}

static inline void fuzz_put64(unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; ++k) {
        p[k] = (unsigned char)(v >> (8 * k));
    }
}

static inline uint64_t fuzz_fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < n; ++k) {
        h ^= p[k];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Writes over the last 8 of n bytes the checksum of those before them (nothing when n < 8). */
static inline void fuzz_seal(unsigned char *p, size_t n)
{
    if (n >= 8) {
        fuzz_put64(p + n - 8, fuzz_fnv1a(p, n - 8));
    }
}

#endif
