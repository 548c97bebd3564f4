/* SPDX-License-Identifier: MIT */
/* One set of defaults (issue 27, item 10; docs/scenarios.md, "Defaults"): the C API's
 * orca_agent_def_default and orca_goal_default are the defaults of scene files, Python and the
 * browser module. test/golden/defaults-scene.txt is a scene with every parameter at its
 * default; built here from the C defaults (its positions and goals read from the file) it must
 * reach the hash of test/golden/defaults.txt, which `orca run` on the file (test/cli_tests.sh),
 * Python (python/tests/test_defaults.py) and the browser module (web/test/node-test.mjs) must
 * reach too. The values below are the documented table, written out here (not copied from the
 * library's output). */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orca/scenario.h>
#include <orca/sim.h>

#ifndef ORCA_GOLDEN_DIR
#define ORCA_GOLDEN_DIR "test/golden"
#endif

/* The table of docs/scenarios.md, "Defaults". */
static int test_the_documented_values(void)
{
    orca_agent_def d = orca_agent_def_default();
    ENSURE(d.position.x == 0 && d.position.y == 0 && d.velocity.x == 0 && d.velocity.y == 0);
    ENSURE(d.preferred_velocity.x == 0 && d.preferred_velocity.y == 0);
    ENSURE(d.radius == 1.5 && d.max_speed == 2 && d.neighbor_dist == 15);
    ENSURE(d.max_neighbors == 10 && d.time_horizon == 10 && d.obstacle_time_horizon == 10);
    orca_goal g = orca_goal_default();
    ENSURE(g.kind == ORCA_GOAL_NONE && g.target.x == 0 && g.target.y == 0);
    ENSURE(g.preferred_speed == 1);
    orca_agent_avoidance a = orca_agent_avoidance_default();
    ENSURE(a.priority == 1 && a.layers == 1 && a.mask == 0xFFFFFFFFu && a.locked == 0);
    return 0;
}

/* The defaults scene built from the C defaults reaches the golden hash. */
static int test_defaults_scene(void)
{
    FILE *f = fopen(ORCA_GOLDEN_DIR "/defaults-scene.txt", "r");
    ENSURE(f);
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 1, &sc) == ORCA_OK); /* scene files' dt and seed */
    char line[256];
    int agents = 0;
    while (fgets(line, sizeof line, f)) {
        double x, y, gx, gy;
        orca_agent_def d = orca_agent_def_default();
        orca_goal g = orca_goal_default();
        int n = sscanf(line, "agent %lf %lf goal %lf %lf", &x, &y, &gx, &gy);
        if (n < 2) {
            ENSURE_MSG(line[0] == '#' || line[0] == '\n', "unexpected line: %s", line);
            continue;
        }
        d.position = (orca_vec2){x, y};
        if (n == 4) {
            g.kind = ORCA_GOAL_POINT; /* the speed stays the default */
            g.target = (orca_vec2){gx, gy};
        }
        ENSURE(orca_scenario_add_agent(sc, &d, &g, NULL) == ORCA_OK);
        ++agents;
    }
    fclose(f);
    ENSURE(agents == 6);
    f = fopen(ORCA_GOLDEN_DIR "/defaults.txt", "r");
    ENSURE(f);
    int steps = 0;
    unsigned long long want = 0;
    ENSURE(fscanf(f, "defaults-scene.txt steps=%d hash=%llx", &steps, &want) == 2);
    fclose(f);
    for (int k = 0; k < steps; ++k) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    uint64_t h = orca_scenario_hash(sc);
    ENSURE_MSG(h == want, "hash %016llx, golden %016llx", (unsigned long long)h, want);
    /* a point goal's speed is the default walking speed, whatever the max speed */
    orca_goal g;
    ENSURE(orca_scenario_agent_goal(sc, 0, &g, NULL) == ORCA_OK);
    ENSURE(g.kind == ORCA_GOAL_POINT && g.preferred_speed == 1);
    ENSURE(orca_scenario_agent_goal(sc, 5, &g, NULL) == ORCA_OK && g.kind == ORCA_GOAL_NONE);
    orca_scenario_destroy(sc);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"the_documented_values", test_the_documented_values},
    {"defaults_scene", test_defaults_scene},
    {0, 0},
};
