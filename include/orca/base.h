/* SPDX-License-Identifier: MIT */
/* orca: deterministic optimal reciprocal collision avoidance.
 * Basic types shared by every public header. No floating-point arithmetic happens in
 * public headers (the caller's compiler flags would apply to it); every computation is in
 * the library's own translation units, built with -ffp-contract=off. */
#ifndef ORCA_BASE_H
#define ORCA_BASE_H

#include <stddef.h>

#include "orca/export.h"
#include "orca/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A 2D vector of binary64 components (metres, or metres per second for velocities). */
typedef struct orca_vec2 {
    double x, y;
} orca_vec2;

/** A half-plane { v : (v - point) . normal >= 0 } (docs/algorithm.md §2).
 * normal is a unit vector for every half-plane the library builds. */
typedef struct orca_halfplane {
    orca_vec2 point;
    orca_vec2 normal;
} orca_halfplane;

/** Status of a call that can refuse its input. Zero is success; every refusal is negative
 * and leaves all state as it was. orca_status_name() gives the enumerator's text. */
typedef enum orca_status {
    ORCA_OK = 0,
    ORCA_ERR_ARGUMENT = -1,   /**< a value out of its documented range (NaN, negative, ...) */
    ORCA_ERR_NULL = -2,       /**< a required pointer was NULL */
    ORCA_ERR_MEMORY = -3,     /**< the allocator returned NULL */
    ORCA_ERR_STALE = -4,      /**< a handle that does not name a live object */
    ORCA_ERR_FORMAT = -5,     /**< corrupt, truncated or foreign bytes (snapshots, files) */
    ORCA_ERR_LIMIT = -6,      /**< a count beyond what the library supports, or a step that
                                   would take an agent beyond the coordinate limit */
    ORCA_ERR_IO = -7,         /**< a file could not be read or written */
    ORCA_ERR_FOREIGN = -8     /**< a handle issued by another simulation (orca/sim.h) */
} orca_status;

/** The enumerator's name ("ORCA_ERR_ARGUMENT"), or "unknown status". */
ORCA_API const char *orca_status_name(int status);

/** Memory hooks: every allocation the library makes goes through them (in the style of
 * Box2D's b2SetAllocator and stb's STB*_MALLOC macros). alloc and resize behave as malloc and
 * realloc (resize is never given NULL or a size of 0) and return NULL on failure, which the
 * library reports as ORCA_ERR_MEMORY with the state unchanged; release behaves as free (never
 * given NULL). context is passed to each call. The library calls them from the thread that
 * called it, never from its worker threads. */
typedef struct orca_allocator {
    void *(*alloc)(size_t size, void *context);
    void *(*resize)(void *ptr, size_t size, void *context);
    void (*release)(void *ptr, void *context);
    void *context;
} orca_allocator;

/** Installs the hooks (NULL: the C library's malloc, realloc and free). Process-wide and not
 * thread-safe: call it while no orca object exists (a block is released by the hooks current
 * at that time). ORCA_ERR_NULL when one of the three functions is NULL (nothing changes). */
ORCA_API orca_status orca_set_allocator(const orca_allocator *allocator);
/** The hooks in use. */
ORCA_API orca_allocator orca_get_allocator(void);

#ifdef __cplusplus
}
#endif
#endif
