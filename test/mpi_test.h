/* SPDX-License-Identifier: MIT */
/* What the MPI check programs (test/mpi_check.c, test/mpi_nav_check.c) share: this rank, the
 * rank count, the failed checks, and CHECK, which counts a failed condition and says where. */
#ifndef ORCA_MPI_TEST_H
#define ORCA_MPI_TEST_H

#include <stdio.h>

static int rank, ranks, failures;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            fprintf(stderr, "rank %d: %s:%d: %s: ", rank, __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
        }                                                                                      \
    } while (0)

#endif
