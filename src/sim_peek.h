/* SPDX-License-Identifier: MIT */
/* Private: reads of the simulation that the scenario layer makes from tasks on the workers.
 * Unlike the API's getters they touch no error state (so several workers may call them at
 * once) and check nothing: the index must be a live agent's (0 <= index < agent count). */
#ifndef ORCA_SIM_PEEK_H
#define ORCA_SIM_PEEK_H

#include "orca/sim.h"

/* The radius of the agent at index. */
double orca_sim_peek_radius(const orca_sim *sim, int index);

#endif
