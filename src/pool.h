/* SPDX-License-Identifier: MIT */
/* Private: the built-in worker pool. Each worker takes chunks of its own share of [0, count),
 * then of the others' as it runs out, and each writes only its own slots, so results never
 * depend on which worker ran which chunk. */
#ifndef ORCA_POOL_H
#define ORCA_POOL_H

#include "orca/sim.h"

typedef struct orca_pool orca_pool;

/* A pool of threads - 1 extra threads (the caller is worker 0). NULL on failure, with *error
 * (may be NULL) 0 when memory ran out, else the error number of the thread's start
 * (ORCA_THREAD_START_NAME: pthread_create, or _beginthreadex on Windows); threads == 1 needs
 * no pool. */
#if defined(_WIN32)
#define ORCA_THREAD_START_NAME "_beginthreadex"
#else
#define ORCA_THREAD_START_NAME "pthread_create"
#endif
orca_pool *orca_pool_create(int threads, int *error);
void orca_pool_destroy(orca_pool *pool);
/* 1 when the pool's threads spin between runs (no more threads than online CPUs): a run
 * then starts within about a microsecond, instead of waking sleeping threads. */
int orca_pool_spins(const orca_pool *pool);
/* Runs fn over [0, count) in chunks (worker w's share is the w-th of threads equal parts,
 * taken from its front; a worker done with its share takes from the backs of the others';
 * each chunk is half of what is left of a share, at least count / (64 threads) items and at
 * least one), each call with the index of the worker running it; returns when all are done. */
void orca_pool_run(orca_pool *pool, orca_task_fn *fn, int count, void *ctx);

#endif
