/* SPDX-License-Identifier: MIT */
/* What the measuring programs share: a monotonic clock, medians and comma-separated lists of
 * numbers on the command line. (Programs that time on a thread's CPU clock keep their own.) */
#ifndef ORCA_BENCH_UTIL_H
#define ORCA_BENCH_UTIL_H

#include <orca/orca.h>

#include <stdlib.h>
#include <time.h>

/* Seconds on a monotonic clock. */
static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline orca_vec2 vec(double x, double y)
{
    orca_vec2 v = {x, y};
    return v;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0 .. n) (n >= 1; v is sorted). */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A comma-separated list of positive numbers into out (at most max); returns the count, or
 * -1 for anything else. */
static inline int parse_list(const char *s, double *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || !(v > 0)) {
            return -1;
        }
        out[n++] = v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            return -1;
        }
    }
    return *s ? -1 : n;
}

#endif
