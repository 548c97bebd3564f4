/* SPDX-License-Identifier: MIT */
/* SVG picture of a run: obstacles, starts, goals, trajectories, final discs, scale, caption. */
#ifndef ORCA_CLI_SVG_H
#define ORCA_CLI_SVG_H

#include <stdint.h>
#include <stdio.h>

#include <orca/orca.h>

typedef struct svg_rec svg_rec;

/* Starts recording the scenario's agents from their current positions. Trajectories are kept
 * for at most SVG_MAX_TRACKED agents (every k-th agent beyond that). With trail_seconds 0
 * each covers the whole run with evenly spaced samples: every step at first, every other one
 * once the budget is full, and so on (a budget of up to 8,192 samples per agent, 100,000 in
 * all, of which half to all are in use); with trail_seconds > 0 only the last trail_seconds
 * of the run (a trail). Returns NULL when out of memory. */
svg_rec *svg_create(orca_scenario *sc, double trail_seconds);
/* Call after every step; `run_step` counts the steps of this run (1, 2, ...). Returns 0, -1 on
 * a read failure. */
int svg_sample(svg_rec *r, orca_scenario *sc, uint64_t run_step);
void svg_destroy(svg_rec *r);

#define SVG_CAPTION_LINES 4
typedef struct svg_caption {
    const char *title;                     /* first line, bold */
    const char *lines[SVG_CAPTION_LINES];  /* further lines (NULL to stop) */
} svg_caption;

/* Writes the picture of the current state. Returns 0, or -1 on a failure. */
int svg_write(svg_rec *r, orca_scenario *sc, FILE *f, const svg_caption *caption);

#endif
