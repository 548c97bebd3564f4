/* SPDX-License-Identifier: MIT */
/* orca-mpi run --svg: the picture `orca run --svg` draws (cli/svg.h), of a distributed run,
 * with the same bytes; the agents pass through rank 0 a window of keys at a time. */
#ifndef ORCA_MPI_SVG_H
#define ORCA_MPI_SVG_H

#include <orca/mpi.h>

#include "svg.h"

typedef struct mpi_svg mpi_svg;

/* Collective: starts the picture of a run whose agents have the keys 0, 1, ... (a run just
 * created from a scene, as `orca run` numbers them): each rank keeps where its agents stand
 * now (their starts, by key), rank 0 the tracked agents' starts, goals and first sample.
 * ORCA_ERR_MEMORY on every rank when a rank runs out of memory. */
orca_status mpi_svg_start(orca_mpi *m, double trail_seconds, mpi_svg **out);
/* Collective, after every step; run_step counts the steps of this run (1, 2, ...): the tracked
 * agents' positions gathered to rank 0 when the record takes a sample. */
orca_status mpi_svg_sample(mpi_svg *s, uint64_t run_step);
/* Collective: the agents on looping waypoints now (the caption's figure), on every rank. */
orca_status mpi_svg_count_looping(orca_mpi *m, int *looping);
/* Collective: rank 0 writes the picture of the current state into f (the others pass NULL).
 * Returns 0 on every rank, or -1 on every rank when it failed (out of memory, or rank 0's
 * writes: ferror(f) tells). */
int mpi_svg_write(mpi_svg *s, const svg_figures *fig, FILE *f);
void mpi_svg_destroy(mpi_svg *s);

#endif
