/* SPDX-License-Identifier: MIT */
/* The pedestrian preset (docs/pedestrians.md, "The preset"): the recommended agent, the free
 * speeds drawn without libm, and the scenario's switch, which turns the simulation's model on
 * and gives goal-set agents their set's index as stream. Only + - * / on binary64 and integer
 * operations: the same bits everywhere. */
#include "fp.h"

#include "scenario_internal.h"
#include "sim_peek.h"

/* The free-speed draw's tag, in place of the rule's step number: "ped_spd1". */
#define PED_SPEED_TAG UINT64_C(0x7065645f73706431)
/* Weidmann's free speed: mean 1.34 m/s, standard deviation 0.26 m/s (the doubles nearest to
 * them, as exact hexadecimal literals), and sqrt(3) (the Irwin-Hall sum's scale to variance 1). */
#define PED_SPEED_MEAN 0x1.570a3d70a3d71p+0
#define PED_SPEED_SD 0x1.0a3d70a3d70a4p-2
#define PED_SQRT3 0x1.bb67ae8584caap+0
#define PED_SPEED_MIN 0.7
#define PED_SPEED_MAX 2.0

orca_agent_def orca_pedestrian_agent_def(void)
{
    orca_agent_def d = orca_agent_def_default();
    d.radius = 0.18;
    d.max_speed = 2.0;
    d.neighbor_dist = 2.0;
    d.max_neighbors = 32;
    d.time_horizon = 2.0;
    d.obstacle_time_horizon = 0.5;
    return d;
}

double orca_pedestrian_free_speed(uint64_t seed, uint64_t key)
{
    uint64_t h = sc_mix64(sc_mix64(sc_mix64(seed + SC_GOLDEN) + PED_SPEED_TAG) + key);
    double u[4];
    for (int k = 0; k < 4; ++k) {
        if (k > 0) {
            h = sc_mix64(h + SC_GOLDEN);
        }
        u[k] = sc_unit(h);
    }
    /* four uniforms summed: mean 2, variance 1/3; scaled to variance 1 */
    double z = (((u[0] + u[1]) + (u[2] + u[3])) - 2.0) * PED_SQRT3;
    double v = PED_SPEED_MEAN + PED_SPEED_SD * z;
    v = v < PED_SPEED_MIN ? PED_SPEED_MIN : v;
    return v > PED_SPEED_MAX ? PED_SPEED_MAX : v;
}

orca_status orca_scenario_pedestrian_agent(const orca_scenario *sc, orca_agent_def *def,
                                           double *free_speed)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (def) {
        *def = orca_pedestrian_agent_def();
    }
    if (free_speed) {
        *free_speed = orca_pedestrian_free_speed(sc->seed, (uint64_t)sc->agent_count);
    }
    return ORCA_OK;
}

int orca_sc_pedestrian_stream(const orca_scenario *sc, const orca_goal *goal)
{
    return goal->kind == ORCA_GOAL_SET && orca_sim_get_pedestrian(sc->sim, NULL) ? goal->goal_set
                                                                                 : -1;
}

orca_status orca_scenario_set_pedestrian(orca_scenario *sc, const orca_pedestrian *params)
{
    if (!sc) {
        return ORCA_ERR_NULL;
    }
    if (!params) {
        return orca_sim_set_pedestrian(sc->sim, NULL);
    }
    /* room for the streams first, so that nothing below can fail after the model is on (an
     * array of -1 alone is not state) */
    if (sc->set_agents > 0 && !orca_sim_streams_reserve(sc->sim)) {
        return orca_sc_fail(sc, ORCA_ERR_MEMORY, "out of memory for the streams of %d agents",
                            orca_sim_agent_count(sc->sim));
    }
    orca_status st = orca_sim_set_pedestrian(sc->sim, params);
    if (st != ORCA_OK) {
        return orca_sc_fail_sim(sc, st, "pedestrian model refused");
    }
    for (int e = 0; e < sc->agent_count && sc->set_agents > 0; ++e) {
        const sc_agent *a = &sc->agents[e];
        int32_t g;
        if (a->goal.kind == ORCA_GOAL_SET && orca_agent_get_stream(sc->sim, a->id, &g) == ORCA_OK &&
            g < 0) {
            orca_agent_set_stream(sc->sim, a->id, a->goal.goal_set);
        }
    }
    return ORCA_OK;
}
