/* SPDX-License-Identifier: MIT */
/* Private: the built-in worker pool. Ranges are a fixed split of [0, count) by worker, and
 * each worker writes only its own slots, so results never depend on the pool. */
#ifndef ORCA_POOL_H
#define ORCA_POOL_H

#include "orca/sim.h"

typedef struct orca_pool orca_pool;

/* A pool of threads - 1 extra threads (the caller is worker 0). NULL on failure; threads
 * == 1 needs no pool. */
orca_pool *orca_pool_create(int threads);
void orca_pool_destroy(orca_pool *pool);
/* Runs fn over [0, count) split into one contiguous range per worker; returns when done. */
void orca_pool_run(orca_pool *pool, orca_task_fn *fn, int count, void *ctx);

#endif
