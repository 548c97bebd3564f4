/* SPDX-License-Identifier: MIT */
/* orca: the version of these headers, and of the library at run time (docs/install.md,
 * "Versions").
 *
 * ORCA_VERSION_MAJOR.MINOR.PATCH versions the C API (semantic versioning): within one major
 * version a newer library runs every program written for an older one. While the major
 * version is 0, each minor version may change the API and the ABI: then the promise holds
 * within one 0.MINOR (the shared library's SONAME is liborca.so.0.MINOR).
 *
 * ORCA_BITS_VERSION versions the results: the same bits version means the same results, bit
 * for bit, for the same calls (state hashes, snapshots' values, every double the API returns).
 * Any change of a golden hash (test/golden/determinism.txt) comes with a new bits version (and
 * never in a patch release). `orca run` and `orca --version` print it next to the hash. */
#ifndef ORCA_VERSION_H
#define ORCA_VERSION_H

#include "orca/export.h"

#define ORCA_VERSION_MAJOR 0
#define ORCA_VERSION_MINOR 3
#define ORCA_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH", made from the three numbers above. */
#define ORCA_VERSION_STRING_(a, b, c) #a "." #b "." #c
#define ORCA_VERSION_STRING_X_(a, b, c) ORCA_VERSION_STRING_(a, b, c)
#define ORCA_VERSION_STRING \
    ORCA_VERSION_STRING_X_(ORCA_VERSION_MAJOR, ORCA_VERSION_MINOR, ORCA_VERSION_PATCH)

/* One number for #if tests: MAJOR * 1000000 + MINOR * 1000 + PATCH (0.3.0 is 3000). */
#define ORCA_VERSION_NUMBER \
    (ORCA_VERSION_MAJOR * 1000000 + ORCA_VERSION_MINOR * 1000 + ORCA_VERSION_PATCH)

/* The bits version: 1 is the bits of 0.1.0 and 0.2.0; 2 (0.3.0) gives every hash of
 * test/golden/determinism.txt unchanged and other results only where CHANGELOG.md's 0.3.0
 * entry says (agents of max speed 0, vectors shorter than about 1e-154, waypoints passed,
 * coincident agents with an extension in use). */
#define ORCA_BITS_VERSION 2

#ifdef __cplusplus
extern "C" {
#endif

/** The library's version, "MAJOR.MINOR.PATCH" (ORCA_VERSION_STRING of the library that
 * runs, which may be newer than the headers a program was compiled with). */
ORCA_API const char *orca_version(void);

/** The library's bits version (ORCA_BITS_VERSION of the library that runs). */
ORCA_API int orca_bits_version(void);

#ifdef __cplusplus
}
#endif
#endif
