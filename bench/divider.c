/* SPDX-License-Identifier: MIT */
/* What limits wider vectors in the step (docs/performance.md, "AVX-512"): the throughput of
 * binary64 division and square root per lane in 128-, 256- and 512-bit registers, on this CPU.
 * Eight independent chains of each operation (enough to hide the latency), timed by the
 * process's CPU time (clock()); prints nanoseconds per vector and per lane. x86-64 with gcc
 * or clang; the 256- and 512-bit rows only where the CPU has AVX2 / AVX-512F. Prints figures;
 * never judges. Usage: orca_divider [iterations in millions, default 20] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

static double seconds(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

/* Eight chains of `it` divisions (op 0) or square roots (op 1) each, in vectors of type V. The
 * empty asm keeps the compiler from folding the chains. */
#define CHAINS(NAME, TARGET, V, SET1, DIV, SQRT, CONSTRAINT)                                   \
    static TARGET __attribute__((noinline)) double NAME(long it, int op)                     \
    {                                                                                         \
        V a[8];                                                                               \
        for (int i = 0; i < 8; ++i) {                                                         \
            a[i] = SET1(1.0 + i * 1e-3);                                                      \
        }                                                                                     \
        const V b = SET1(1.0000001);                                                          \
        for (long k = 0; k < it; ++k) {                                                       \
            for (int i = 0; i < 8; ++i) {                                                     \
                a[i] = op ? SQRT(a[i]) : DIV(a[i], b);                                        \
            }                                                                                 \
            __asm__ volatile("" : "+" CONSTRAINT(a[0]), "+" CONSTRAINT(a[1]),                 \
                             "+" CONSTRAINT(a[2]), "+" CONSTRAINT(a[3]));                     \
        }                                                                                     \
        double s = 0;                                                                         \
        for (int i = 0; i < 8; ++i) {                                                         \
            s += a[i][0];                                                                     \
        }                                                                                     \
        return s;                                                                             \
    }

CHAINS(chains128, , __m128d, _mm_set1_pd, _mm_div_pd, _mm_sqrt_pd, "x")
CHAINS(chains256, __attribute__((target("avx2"))), __m256d, _mm256_set1_pd, _mm256_div_pd,
       _mm256_sqrt_pd, "x")
CHAINS(chains512, __attribute__((target("avx512f"))), __m512d, _mm512_set1_pd, _mm512_div_pd,
       _mm512_sqrt_pd, "v")

int main(int argc, char **argv)
{
    long it = (argc > 1 ? atol(argv[1]) : 20) * 1000000L;
    if (it <= 0) {
        fprintf(stderr, "orca_divider: iterations must be a positive number of millions\n");
        return 2;
    }
    __builtin_cpu_init();
    int has[3] = {1, __builtin_cpu_supports("avx2"), __builtin_cpu_supports("avx512f")};
    double (*fn[3])(long, int) = {chains128, chains256, chains512};
    const char *reg[3] = {"128-bit (SSE2)", "256-bit (AVX2)", "512-bit (AVX-512F)"};
    const char *opname[2] = {"division", "square root"};
    printf("%-12s %-20s %14s %12s\n", "operation", "registers", "ns/vector", "ns/lane");
    double sink = 0;
    for (int op = 0; op < 2; ++op) {
        for (int w = 0; w < 3; ++w) {
            if (!has[w]) {
                printf("%-12s %-20s %14s %12s\n", opname[op], reg[w], "-", "-");
                continue;
            }
            double t0 = seconds();
            sink += fn[w](it, op);
            double t = seconds() - t0;
            double per = t * 1e9 / ((double)it * 8.0);
            printf("%-12s %-20s %14.2f %12.3f\n", opname[op], reg[w], per, per / (2 << w));
        }
    }
    return sink == 12345.0; /* uses the results */
}
#else
int main(void)
{
    puts("orca_divider: x86-64 with gcc or clang only");
    return 0;
}
#endif
