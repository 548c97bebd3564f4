/* SPDX-License-Identifier: MIT */
#include "test.h"
#include "clock.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

int test_same_bits(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

unsigned long long test_rng_next(test_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double test_rng_uniform(test_rng *r, double lo, double hi)
{
    double u = (double)(test_rng_next(r) >> 11) * 0x1.0p-53;
    return lo + (hi - lo) * u;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;
    for (const orca_test *t = ORCA_TESTS; t->name; ++t) {
        if (filter && !strstr(t->name, filter)) {
            continue;
        }
        double t0 = test_seconds();
        int rc = t->fn();
        double ms = (test_seconds() - t0) * 1e3;
        printf("%-4s %s (%.0f ms)\n", rc == 0 ? "ok" : "FAIL", t->name, ms);
        fflush(stdout);
        if (rc == 0) {
            ++passed;
        } else {
            ++failed;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
