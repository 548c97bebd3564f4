/* SPDX-License-Identifier: MIT */
/* The seeded driver of a fuzz target, for builds without libFuzzer (test/fuzz.h):
 *
 *   fuzz_api [--seed S] [--count N] [--only K] [--write FILE] [PATH ...]
 *
 * replays every PATH (a file, or every regular file of a directory in name order), then runs
 * N inputs that the target's fuzz_generate makes from the seed (splitmix64: the same inputs on
 * every machine; N is 1000 by default, 0 when paths are given without --count). --only K runs generated input K alone (with --write FILE it is also written
 * to FILE, e.g. to add it to the corpus or to run it under libFuzzer or a debugger).
 * An invariant violation or a crash stops the run: the driver prints which input it was and
 * the input in base64 (so a CI log is enough to reproduce it), and exits non-zero. */
#include "clock.h"
#include "fuzz.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INPUT_MAX (1u << 16)

static uint64_t rng_state;
static const char *prog = "fuzz";

uint64_t fuzz_rand(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* What is running, for the crash report. */
static const uint8_t *cur_data;
static size_t cur_size;
static char cur_what[600];

static void put(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t k = write(2, s, n);
        if (k <= 0) {
            return;
        }
        s += k;
        n -= (size_t)k;
    }
}

/* Prints the running input (async-signal-safe: write(2) only). */
static void report(void)
{
    static int done;
    if (done || !cur_data) {
        return;
    }
    done = 1;
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    put("\n");
    put(prog);
    put(": FAILED on ");
    put(cur_what);
    put("\n");
    put(prog);
    put(": the input in base64 (decode with `base64 -d > crash.bin`, then run `");
    put(prog);
    put(" crash.bin`):\n");
    char line[80];
    size_t at = 0;
    for (size_t k = 0; k < cur_size; k += 3) {
        uint32_t v = (uint32_t)cur_data[k] << 16;
        if (k + 1 < cur_size) {
            v |= (uint32_t)cur_data[k + 1] << 8;
        }
        if (k + 2 < cur_size) {
            v |= cur_data[k + 2];
        }
        line[at++] = b64[(v >> 18) & 63];
        line[at++] = b64[(v >> 12) & 63];
        line[at++] = k + 1 < cur_size ? b64[(v >> 6) & 63] : '=';
        line[at++] = k + 2 < cur_size ? b64[v & 63] : '=';
        if (at == 76 || k + 3 >= cur_size) {
            line[at++] = '\n';
            line[at] = 0;
            put(line);
            at = 0;
        }
    }
    put(prog);
    put(": end of input\n");
}

static void on_signal(int sig)
{
    report();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Sanitizers end the process without a signal; they call this first (weak: absent in builds
 * without them). */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void run(const uint8_t *data, size_t size)
{
    cur_data = data;
    cur_size = size;
    LLVMFuzzerTestOneInput(data, size);
    cur_data = NULL;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_file(const char *path, uint8_t *buf)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s\n", prog, path);
        return -1;
    }
    size_t n = fread(buf, 1, INPUT_MAX, f);
    fclose(f);
    snprintf(cur_what, sizeof cur_what, "the file %s (%zu bytes)", path, n);
    run(buf, n);
    return 1;
}

/* Replays a file or every regular file of a directory; returns the number of files. */
static int replay(const char *path, uint8_t *buf)
{
    DIR *d = opendir(path);
    if (!d) {
        return replay_file(path, buf);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **t = realloc(names, cap * sizeof *names);
            if (!t) {
                exit(2);
            }
            names = t;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) {
            exit(2);
        }
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        ++n;
    }
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    int files = 0;
    for (size_t k = 0; k < n; ++k) {
        int r = replay_file(names[k], buf);
        if (r < 0) {
            return -1;
        }
        files += r;
        free(names[k]);
    }
    free(names);
    return files;
}

int main(int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    prog = slash ? slash + 1 : argv[0];
    unsigned long long seed = 1, count = 1000, only = 0;
    int have_only = 0, have_count = 0;
    const char *write_path = NULL;
    const char *paths[256];
    int npaths = 0;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--seed") && a + 1 < argc) {
            seed = strtoull(argv[++a], NULL, 0);
        } else if (!strcmp(argv[a], "--count") && a + 1 < argc) {
            count = strtoull(argv[++a], NULL, 0);
            have_count = 1;
        } else if (!strcmp(argv[a], "--only") && a + 1 < argc) {
            only = strtoull(argv[++a], NULL, 0);
            have_only = 1;
        } else if (!strcmp(argv[a], "--write") && a + 1 < argc) {
            write_path = argv[++a];
        } else if (argv[a][0] == '-' && argv[a][1]) {
            fprintf(stderr, "usage: %s [--seed S] [--count N] [--only K] [--write FILE] [PATH ...]\n",
                    prog);
            return 2;
        } else if (npaths < 256) {
            paths[npaths++] = argv[a];
        }
    }
    if (npaths > 0 && !have_count) {
        count = 0; /* only the files */
    }
    signal(SIGABRT, on_signal);
    signal(SIGSEGV, on_signal);
#ifdef SIGBUS /* not on Windows */
    signal(SIGBUS, on_signal);
#endif
    signal(SIGFPE, on_signal);
    signal(SIGILL, on_signal);
    if (__sanitizer_set_death_callback) {
        __sanitizer_set_death_callback(report);
    }
    uint8_t *buf = malloc(INPUT_MAX);
    if (!buf) {
        return 2;
    }
    double t0 = test_seconds();
    int files = 0;
    for (int p = 0; p < npaths; ++p) {
        int r = replay(paths[p], buf);
        if (r < 0) {
            return 2;
        }
        files += r;
    }
    unsigned long long ran = 0;
    for (unsigned long long k = have_only ? only : 0; k < (have_only ? only + 1 : count); ++k) {
        /* input k depends on the seed and k alone */
        rng_state = seed * 0x9E3779B97F4A7C15ull + k * 0xD1B54A32D192ED03ull;
        size_t n = fuzz_generate(buf, INPUT_MAX);
        snprintf(cur_what, sizeof cur_what,
                 "generated input %llu of seed %llu (%zu bytes; again: %s --seed %llu --only %llu)", k,
                 seed, n, prog, seed, k);
        if (write_path) {
            FILE *f = fopen(write_path, "wb");
            if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
                fprintf(stderr, "%s: cannot write %s\n", prog, write_path);
                return 2;
            }
        }
        run(buf, n);
        ++ran;
    }
    double s = test_seconds() - t0;
    printf("%s: %d corpus files and %llu generated inputs (seed %llu) passed in %.2f s\n", prog, files,
           ran, seed, s);
    free(buf);
    return 0;
}
