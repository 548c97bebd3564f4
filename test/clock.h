/* SPDX-License-Identifier: MIT */
/* The wall clock for the test programs' timings (shown, never compared): C11's timespec_get, or
 * on Windows clock(), which there counts wall time since the program started (MinGW-w64 on the
 * older C runtime has no timespec_get). */
#ifndef ORCA_TEST_CLOCK_H
#define ORCA_TEST_CLOCK_H

#include <time.h>

static inline double test_seconds(void)
{
#if defined(_WIN32)
    return (double)clock() / CLOCKS_PER_SEC;
#else
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
#endif
}

#endif
