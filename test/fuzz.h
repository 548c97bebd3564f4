/* SPDX-License-Identifier: MIT */
/* The fuzz targets (test/fuzz_api.c, test/fuzz_snapshot.c, test/fuzz_scene.c) and their seeded
 * driver (test/fuzz_driver.c). Each target defines LLVMFuzzerTestOneInput, which libFuzzer
 * calls in the fuzz build (cmake -DORCA_FUZZ=ON, clang; ORCA_LIBFUZZER defined). Built
 * without libFuzzer, the target also defines fuzz_generate and is linked with the driver,
 * which feeds it inputs made from a seed and the committed corpus (a ctest test). */
#ifndef ORCA_TEST_FUZZ_H
#define ORCA_TEST_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Runs one input; returns 0. An invariant violation abort()s. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef ORCA_LIBFUZZER
/* The driver's random numbers (splitmix64 from the seed): the same sequence everywhere. */
uint64_t fuzz_rand(void);
/* Writes one generated input of at most cap bytes into buf and returns its length. */
size_t fuzz_generate(uint8_t *buf, size_t cap);
#endif

#endif
