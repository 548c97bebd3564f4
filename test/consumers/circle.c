/* SPDX-License-Identifier: MIT */
/* A program using orca the way a user's program would (scripts/consumers builds it): the
 * 100-agent circle of the built-in scenes for 400 steps, then one line in the format of
 * test/golden/determinism.txt, which scripts/consumers compares with that file. The same
 * circle written as a scene file and read back (orca/scene_file.h) must step to the same
 * hash. Built against
 * an installed prefix (CMake package, pkg-config), the source tree (add_subdirectory,
 * FetchContent) and the single-file distribution (ORCA_SINGLE_FILE: orca.h beside it). */
#ifdef ORCA_SINGLE_FILE
#include "orca.h"
#else
#include <orca/orca.h>
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* sc written as scene-file text, read and built again; NULL with a message on a refusal. */
static orca_scenario *through_scene_file(const orca_scenario *sc, const orca_sim_def *def)
{
    size_t size = 0;
    char *text = NULL;
    orca_scene_file *file = NULL;
    orca_scenario *out = NULL;
    orca_scene_build_def build = orca_scene_build_def_default();
    build.sim = *def;
    orca_status st = orca_scene_file_write_text(sc, NULL, NULL, 0, &size);
    if (st == ORCA_OK && !(text = malloc(size + 1))) {
        st = ORCA_ERR_MEMORY;
    }
    if (st == ORCA_OK) {
        st = orca_scene_file_write_text(sc, NULL, text, size + 1, &size);
    }
    if (st == ORCA_OK) {
        st = orca_scene_file_read_text(text, size, "circle.txt", &file);
    }
    if (st == ORCA_OK) {
        st = orca_scene_file_build(file, &build, &out);
    }
    if (st != ORCA_OK) {
        fprintf(stderr, "circle: the scene file: %s: %s\n", orca_status_name(st),
                orca_scene_file_last_error(file));
    }
    orca_scene_file_destroy(file);
    free(text);
    return out;
}

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
    orca_scenario *again = through_scene_file(sc, &def);
    if (!again) {
        orca_scenario_destroy(sc);
        return 1;
    }
    int steps = 400;
    for (int k = 0; k < steps; ++k) {
        if (orca_scenario_step(sc) != ORCA_OK || orca_scenario_step(again) != ORCA_OK) {
            fprintf(stderr, "circle: step %d: %s\n", k, orca_scenario_last_error(sc));
            orca_scenario_destroy(sc);
            orca_scenario_destroy(again);
            return 1;
        }
    }
    orca_sim *sim = orca_scenario_sim(sc);
    if (orca_scenario_hash(again) != orca_scenario_hash(sc)) {
        fprintf(stderr, "circle: read back from a scene file, the circle ends at %016" PRIx64
                        ", not %016" PRIx64 "\n",
                orca_scenario_hash(again), orca_scenario_hash(sc));
        orca_scenario_destroy(sc);
        orca_scenario_destroy(again);
        return 1;
    }
    orca_scenario_destroy(again);
    printf("circle agents=%d steps=%d hash=%016" PRIx64 "\n", orca_sim_agent_count(sim), steps,
           orca_sim_hash(sim));
    fprintf(stderr, "orca %s (bits version %d), headers %s\n", orca_version(),
            orca_bits_version(), ORCA_VERSION_STRING);
    orca_scenario_destroy(sc);
    return 0;
}
