/* SPDX-License-Identifier: MIT */
/* orca: deterministic optimal reciprocal collision avoidance.
 * Basic types shared by every public header. No floating-point arithmetic happens in
 * public headers (the caller's compiler flags would apply to it); every computation is in
 * the library's own translation units, built with -ffp-contract=off. */
#ifndef ORCA_BASE_H
#define ORCA_BASE_H

#ifdef __cplusplus
extern "C" {
#endif

/** A 2D vector of binary64 components (metres, or metres per second for velocities). */
typedef struct orca_vec2 {
    double x, y;
} orca_vec2;

/** A half-plane { v : (v - point) . normal >= 0 } (spec "Half-planes").
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
    ORCA_ERR_LIMIT = -6,      /**< a count beyond what the library supports */
    ORCA_ERR_IO = -7          /**< a file could not be read or written */
} orca_status;

/** The enumerator's name ("ORCA_ERR_ARGUMENT"), or "unknown status". */
const char *orca_status_name(int status);

/** The library version as "MAJOR.MINOR.PATCH". */
const char *orca_version(void);

#ifdef __cplusplus
}
#endif
#endif
