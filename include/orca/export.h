/* SPDX-License-Identifier: MIT */
/* orca: ORCA_API, the mark of every public function.
 *
 * The library is compiled with hidden visibility (-fvisibility=hidden): of its functions only
 * those marked ORCA_API are exported from the shared library (liborca.so), so the private
 * functions its files share (allocation, the worker pool, the vector kernels) are not part of
 * its interface. What the mark means:
 *   - building the shared library (ORCA_BUILDING_SHARED, set by the library's CMake file):
 *     default visibility; on Windows __declspec(dllexport);
 *   - using the shared library on Windows (ORCA_SHARED, set by the orca::orca_shared target):
 *     __declspec(dllimport);
 *   - everything else (the static library, the single-file orca.c, a program using either, a
 *     program using the shared library on ELF platforms): nothing.
 * Define ORCA_API yourself before including orca's headers to override all of this. */
#ifndef ORCA_EXPORT_H
#define ORCA_EXPORT_H

#ifndef ORCA_API
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(ORCA_BUILDING_SHARED)
#define ORCA_API __declspec(dllexport)
#elif defined(ORCA_SHARED)
#define ORCA_API __declspec(dllimport)
#else
#define ORCA_API
#endif
#elif defined(ORCA_BUILDING_SHARED) && (defined(__GNUC__) || defined(__clang__))
#define ORCA_API __attribute__((visibility("default")))
#else
#define ORCA_API
#endif
#endif

#endif
