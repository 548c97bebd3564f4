/* SPDX-License-Identifier: MIT */
/* What the MPI check programs (test/mpi_check.c, test/mpi_nav_check.c) share: this rank, the
 * rank count, the failed checks, and CHECK, which counts a failed condition and says where. */
#ifndef ORCA_MPI_TEST_H
#define ORCA_MPI_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A directory for the run's checkpoints, /tmp/PREFIX-PID with rank 0's process id, made by
 * rank 0; every rank gets its name (collective). */
static void mpi_test_dir(char *dir, int size, const char *prefix)
{
    snprintf(dir, (size_t)size, "/tmp/%s-%ld", prefix, (long)getpid());
    MPI_Bcast(dir, size, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        mkdir(dir, 0700);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

#endif
