/* SPDX-License-Identifier: MIT */
/* Private: reads of the simulation that the scenario layer makes from tasks on the workers.
 * Unlike the API's getters they touch no error state (so several workers may call them at
 * once) and check nothing: the index must be a live agent's (0 <= index < agent count). */
#ifndef ORCA_SIM_PEEK_H
#define ORCA_SIM_PEEK_H

#include "orca/sim.h"

/* The radius of the agent at index. */
double orca_sim_peek_radius(const orca_sim *sim, int index);
/* The handles' arrays, with every pending removal compacted: the slot of the agent at index
 * i is slots[i], its generation generations[slots[i]]. Valid until agents are added or
 * removed. */
void orca_sim_peek_handles(const orca_sim *sim, const uint32_t **slots,
                           const uint32_t **generations);

#endif
