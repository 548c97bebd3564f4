/* SPDX-License-Identifier: MIT */
/* The picture of an `orca run` (svg.h) with its scenario as the source of the agents. */
#ifndef ORCA_CLI_SVG_SCENE_H
#define ORCA_CLI_SVG_SCENE_H

#include "svg.h"

typedef struct svg_scene svg_scene;

/* Starts recording the scenario's agents from their current positions (svg_rec_create).
 * Returns NULL when out of memory or the agents cannot be read. */
svg_scene *svg_scene_create(orca_scenario *sc, double trail_seconds);
/* Call after every step; `run_step` counts the steps of this run (1, 2, ...). Returns 0, -1 on
 * a read failure. */
int svg_scene_sample(svg_scene *s, uint64_t run_step);
/* Writes the picture of the scenario's current state. Returns 0, or -1 on a failure. */
int svg_scene_write(svg_scene *s, const svg_figures *fig, FILE *f);
void svg_scene_destroy(svg_scene *s);

#endif
