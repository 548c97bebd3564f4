/* SPDX-License-Identifier: MIT */
/* The scenario's preferred-velocity rule (docs/scenarios.md, "The rule") for the library's
 * other layers: the MPI layer (mpi/mpi.c) computes each agent's preferred velocity with
 * these, with the bits of orca_scenario_step. */
#ifndef ORCA_SCENARIO_RULE_H
#define ORCA_SCENARIO_RULE_H

#include <stdint.h>

#include "orca/scenario.h"

/* The step's part of the perturbation hash: mix(mix(seed + G) + step). */
uint64_t orca_rule_step_hash(uint64_t seed, uint64_t step);
/* The rule's preferred velocity of an agent with this goal (ORCA_GOAL_POINT, _VELOCITY or
 * _NONE; ORCA_GOAL_SET reads goal->target as its point) at position, with its rule key. */
orca_vec2 orca_rule_velocity(const orca_goal *goal, orca_vec2 position, double dt,
                             uint64_t step_hash, uint64_t key);
/* The rule key (creation ordinal) of the agent at simulation index `index`, or -1 when it
 * was not added through the scenario. */
int orca_scenario_rule_key(const orca_scenario *sc, int index);
/* The key the next agent added through the scenario will get. */
int64_t orca_scenario_next_rule_key(const orca_scenario *sc);

/* A built-in scene streamed: each agent (index, def, goal) goes to emit in index order (a
 * refusal from emit stops the build with its status) instead of into the scenario, which
 * comes back with the scene's walls, dt, seed and name but no agents. The agents' rule keys
 * are their indices. */
typedef orca_status orca_scene_emit_fn(void *ctx, int64_t index, const orca_agent_def *def,
                                       const orca_goal *goal);
orca_status orca_builtin_stream(orca_scene_kind kind, int agent_count, uint64_t seed,
                                orca_scene_emit_fn *emit, void *emit_ctx, orca_scenario **out);

#endif
