/* SPDX-License-Identifier: MIT */
/* Counts instructions per agent-step with callgrind (scripts/count-instructions.sh): builds a
 * built-in scene, runs W warm-up steps uninstrumented, then S steps with callgrind's
 * collection on (the preferred-velocity rule and the ORCA step, no overlap bookkeeping).
 * Without valgrind it just runs. Usage: instr SCENE N WARMUP STEPS [scalar] [far=ND]
 * [extended] [pedestrian]; "scalar" turns the vector kernels off (the code other CPUs run);
 * "far=ND" sets the neighbour distance of the agent at the middle index to ND after the
 * warm-up (one far-reaching agent: bench/far.c times the same); "extended" turns the
 * separation option on after the warm-up (the extended path with nothing else), "pedestrian"
 * the pedestrian model with its defaults (docs/pedestrians.md). */
#include <orca/orca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#endif

int main(int argc, char **argv)
{
    int scalar = 0, extended = 0, pedestrian = 0;
    double far = -1;
    for (int a = 5; a < argc; ++a) {
        if (strcmp(argv[a], "scalar") == 0) {
            scalar = 1;
        } else if (strcmp(argv[a], "extended") == 0) {
            extended = 1;
        } else if (strcmp(argv[a], "pedestrian") == 0) {
            pedestrian = 1;
        } else if (strncmp(argv[a], "far=", 4) == 0 && atof(argv[a] + 4) >= 0) {
            far = atof(argv[a] + 4);
        } else {
            argc = 0;
        }
    }
    if (argc < 5) {
        fprintf(stderr,
                "usage: instr SCENE N WARMUP STEPS [scalar] [far=ND] [extended] [pedestrian]\n");
        return 2;
    }
    int kind = orca_scene_from_name(argv[1]);
    int n = atoi(argv[2]), warmup = atoi(argv[3]), steps = atoi(argv[4]);
    orca_scenario *sc;
    if (kind < 0 || orca_scenario_create_builtin((orca_scene_kind)kind, n, 1, NULL, &sc) != ORCA_OK) {
        fprintf(stderr, "instr: cannot build scene %s with %d agents\n", argv[1], n);
        return 2;
    }
    orca_scenario_set_recording(sc, 0);
    orca_sim *sim = orca_scenario_sim(sc);
    if (scalar) {
        orca_sim_set_vector_kernels(sim, 0);
    }
    for (int k = 0; k < warmup; ++k) {
        orca_scenario_step(sc);
    }
    if (far >= 0) {
        orca_agent_id id = orca_sim_agent_at(sim, orca_sim_agent_count(sim) / 2);
        orca_agent_def d;
        orca_agent_get(sim, id, &d);
        d.neighbor_dist = far;
        if (orca_agent_set(sim, id, &d) != ORCA_OK) {
            fprintf(stderr, "instr: %s\n", orca_sim_last_error(sim));
            return 2;
        }
    }
    orca_pedestrian ped = orca_pedestrian_default();
    if ((extended && orca_sim_set_separation(sim, 1) != ORCA_OK) ||
        (pedestrian && orca_scenario_set_pedestrian(sc, &ped) != ORCA_OK)) {
        fprintf(stderr, "instr: %s\n", orca_scenario_last_error(sc));
        return 2;
    }
    CALLGRIND_TOGGLE_COLLECT;
    for (int k = 0; k < steps; ++k) {
        orca_scenario_step(sc);
    }
    CALLGRIND_TOGGLE_COLLECT;
    printf("%d\n", orca_sim_agent_count(orca_scenario_sim(sc)));
    orca_scenario_destroy(sc);
    return 0;
}
