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

/* Agents whose avoidance settings are not the defaults (the hash's HASH_EXT count). */
int32_t orca_sim_peek_nondefault(const orca_sim *sim);

/* Runs fn over [0, count) on the simulation's workers in ranges of any size (orca_sim_run_task
 * keeps ranges of at least 64 items): for items that each cost much more than waking a worker,
 * such as plans. Each call's worker index is in [0, worker count). */
void orca_sim_run_heavy(orca_sim *sim, orca_task_fn *fn, int count, void *context);

/* Room for every agent's stream (the pedestrian model), so that orca_agent_set_stream on any
 * agent there is now cannot fail for memory; 0 when out of memory (nothing changed). */
int orca_sim_streams_reserve(orca_sim *sim);

/* A preferred-velocity rule that the step runs itself (the scenario's), on the workers, for
 * count agents at a time: the agents at index[0 .. count-1], or with index NULL those at
 * first .. first + count - 1. For each j < count, with i the j-th agent's index,
 * out[i] = the preferred velocity for this step of agent i (position[j]: its start-of-step
 * position), or current[i] (its preferred velocity now) to keep that. It may read the
 * simulation as the functions above do, and must write nothing else. */
typedef void orca_step_rule_fn(void *context, const int32_t *index, int32_t first,
                               const orca_vec2 *position, int count, const orca_vec2 *current,
                               orca_vec2 *out);

/* orca_sim_step with each agent's preferred velocity first set by rule (NULL: orca_sim_step).
 * The same as setting every agent's preferred velocity to the rule's value and then calling
 * orca_sim_step, but in the step's own pass over the agents; with the pedestrian model on, the
 * neighbours' preferred velocities it reads are still the stored ones (docs/pedestrians.md). On a refusal (a rule value
 * out of range: the lowest such index is named; or the step's own) nothing is applied, the
 * preferred velocities included. */
orca_status orca_sim_step_rule(orca_sim *sim, double dt, orca_step_rule_fn *rule, void *context);

#endif
