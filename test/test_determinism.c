/* SPDX-License-Identifier: MIT */
/* Golden hashes: every built-in scenario after a fixed number of steps, for 1, 2, 3, 4 and 8
 * workers, must print exactly test/golden/determinism.txt (recorded from a reviewed run on
 * x86-64 with gcc -O2; the cross-target matrix checks the same file on every target). */
#include "test.h"

#include "determinism.c"

#include <stdlib.h>
#include <string.h>

#ifndef ORCA_GOLDEN_DIR
#error "ORCA_GOLDEN_DIR must name test/golden"
#endif

static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        return NULL;
    }
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                return NULL;
            }
            buf = b;
            cap *= 2;
        }
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static int test_golden_hashes(void)
{
    FILE *tmp = tmpfile();
    ENSURE(tmp != NULL);
    int failures = det_write(tmp);
    rewind(tmp);
    size_t n_got = 0, n_want = 0;
    char *got = read_all(tmp, &n_got);
    fclose(tmp);
    FILE *g = fopen(ORCA_GOLDEN_DIR "/determinism.txt", "rb");
    ENSURE_MSG(g != NULL, "cannot open %s", ORCA_GOLDEN_DIR "/determinism.txt");
    char *want = read_all(g, &n_want);
    fclose(g);
    ENSURE(got && want);
    printf("%s", got);
    int same = n_got == n_want && memcmp(got, want, n_got) == 0;
    if (!same) {
        fprintf(stderr, "expected:\n%sgot:\n%s", want, got);
    }
    free(got);
    free(want);
    ENSURE_MSG(failures == 0, "%d scenario runs failed or disagreed across worker counts", failures);
    ENSURE_MSG(same, "scenario hashes differ from the golden file");
    return 0;
}

/* The golden file holds the bits of bits version 2, the same hashes as bits version 1 (docs/install.md,
 * "Versions"): whoever changes a hash in it changes ORCA_BITS_VERSION (include/orca/version.h)
 * and this test with it. */
static int test_bits_version(void)
{
    ENSURE(ORCA_BITS_VERSION == 2);
    ENSURE(orca_bits_version() == ORCA_BITS_VERSION);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"golden_hashes", test_golden_hashes},
    {"bits_version", test_bits_version},
    {0, 0},
};
