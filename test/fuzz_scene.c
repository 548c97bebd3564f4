/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "scene_file.h"

/* libFuzzer harness for the scene-file reader and builder (cmake -DORCA_FUZZ=ON with clang;
 * run build/cli/fuzz_scene CORPUS_DIR). Any crash, sanitizer report or hang is a bug: bad
 * files must be refused with a message. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/orca-fuzz-scene.%d.txt", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    scene_desc d;
    char err[512];
    if (scene_read(path, &d, err, sizeof err) == 0) {
        orca_scenario *sc = NULL;
        if (scene_build(&d, NULL, NULL, NULL, &sc, err, sizeof err) == 0 && sc) {
            for (int k = 0; k < 3; ++k) orca_scenario_step(sc);
            orca_scenario_destroy(sc);
        }
    }
    scene_free(&d);
    return 0;
}
