/* SPDX-License-Identifier: MIT */
/* Private: an agent's whole state in a simulation as bytes, and agents inserted at given
 * indices (agent_record.c), for orca on MPI (mpi/). */
#ifndef ORCA_AGENT_RECORD_H
#define ORCA_AGENT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "orca/sim.h"

/* Bytes of a record: position, velocity, preferred velocity (6 doubles), radius, max speed,
 * neighbour distance, time horizons (5 doubles), max neighbours and the search hint (2 words
 * of 4), the avoidance settings (priority; layers, mask, locked: 3 words of 4) and a reserved
 * word 0. */
#define ORCA_AGENT_RECORD 120

/* Writes agent i's record (i a settled index: the simulation has no removal pending). */
void orca_agent_record_put(const orca_sim *s, int32_t i, unsigned char *out);
/* Whether a record's values are in range (orca_sim_add_agent's and
 * orca_agent_set_avoidance's checks; the hint finite, the reserved word 0); the refusal's
 * message is in s's error. */
orca_status orca_agent_record_check(const orca_sim *s, const unsigned char *in);
/* Agent i (settled) takes a record's values, unchecked (they were checked where they entered
 * the run). ORCA_ERR_MEMORY (nothing changed) when its settings need memory there is not. */
orca_status orca_agent_record_get(orca_sim *s, int32_t i, const unsigned char *in);
/* Inserts count agents from records (stride bytes apart), unchecked, so that the k-th new
 * agent has index at[k] afterwards (at ascending, each in [0, agent count + count)); the
 * others keep their order. ids (may be NULL) receives their handles. One pass over the
 * agents after at[0]. ORCA_ERR_MEMORY or ORCA_ERR_LIMIT (nothing changed) when there is no
 * room. */
orca_status orca_agents_insert(orca_sim *s, const int32_t *at, int32_t count,
                               const unsigned char *records, size_t stride, orca_agent_id *ids);

#endif
