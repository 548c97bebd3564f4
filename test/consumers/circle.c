/* SPDX-License-Identifier: MIT */
/* A program using orca the way a user's program would (scripts/consumers builds it): the
 * 100-agent circle of the built-in scenes for 400 steps, then one line in the format of
 * test/golden/determinism.txt, which scripts/consumers compares with that file. Built against
 * an installed prefix (CMake package, pkg-config), the source tree (add_subdirectory,
 * FetchContent) and the single-file distribution (ORCA_SINGLE_FILE: orca.h beside it). */
#ifdef ORCA_SINGLE_FILE
#include "orca.h"
#else
#include <orca/orca.h>
#endif

#include <inttypes.h>
#include <stdio.h>

int main(void)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = 2;
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create_builtin(ORCA_SCENE_CIRCLE, 100, 1, &def, &sc);
    if (st != ORCA_OK) {
        fprintf(stderr, "circle: %s\n", orca_status_name(st));
        return 1;
    }
    int steps = 400;
    for (int k = 0; k < steps; ++k) {
        if (orca_scenario_step(sc) != ORCA_OK) {
            fprintf(stderr, "circle: step %d: %s\n", k, orca_scenario_last_error(sc));
            orca_scenario_destroy(sc);
            return 1;
        }
    }
    orca_sim *sim = orca_scenario_sim(sc);
    printf("circle agents=%d steps=%d hash=%016" PRIx64 "\n", orca_sim_agent_count(sim), steps,
           orca_sim_hash(sim));
    fprintf(stderr, "orca %s (bits version %d), headers %s\n", orca_version(),
            orca_bits_version(), ORCA_VERSION_STRING);
    orca_scenario_destroy(sc);
    return 0;
}
