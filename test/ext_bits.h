/* SPDX-License-Identifier: MIT */
/* The bits check every opt-in layer of the step shares (the pedestrian model, the density
 * speed): a crowd stepped with the layer on gives one state hash on 1, 2 and 3 workers, with
 * the vector kernels and without, and a hash other than the plain step's. Each test file gives
 * its own crowd and the call that turns its layer on. */
#ifndef ORCA_TEST_EXT_BITS_H
#define ORCA_TEST_EXT_BITS_H

#include <stdint.h>

#include "test.h"

typedef void test_sim_fn(orca_sim *s);

/* The hash after `steps` steps of dt of the crowd (on: with the layer turned on); 0 if a
 * step or the simulation was refused. */
static uint64_t test_ext_run_hash(int workers, int kernels, test_sim_fn *crowd, test_sim_fn *on,
                                  double dt, int steps)
{
    orca_sim *s = test_new_sim(workers);
    if (!s) {
        return 0;
    }
    orca_sim_set_vector_kernels(s, kernels);
    crowd(s);
    if (on) {
        on(s);
    }
    for (int t = 0; t < steps; ++t) {
        if (orca_sim_step(s, dt) != ORCA_OK) {
            orca_sim_destroy(s);
            return 0;
        }
    }
    uint64_t h = orca_sim_hash(s);
    orca_sim_destroy(s);
    return h;
}

/* 30 steps of dt: the same hash on 1-3 workers with the kernels on and off, and the layer
 * changes the walk. */
static int test_ext_same_bits(test_sim_fn *crowd, test_sim_fn *on, double dt)
{
    uint64_t ref = test_ext_run_hash(1, 0, crowd, on, dt, 30);
    ENSURE(ref != 0);
    for (int w = 1; w <= 3; ++w) {
        for (int k = 0; k < 2; ++k) {
            ENSURE_MSG(test_ext_run_hash(w, k, crowd, on, dt, 30) == ref, "workers %d, kernels %d",
                       w, k);
        }
    }
    ENSURE(test_ext_run_hash(1, 1, crowd, NULL, dt, 30) != ref); /* it does change the walk */
    return 0;
}

#endif
