/* SPDX-License-Identifier: MIT */
/* orca run --save and --load: snapshot files. --save writes the scenario's snapshot
 * (orca_scenario_save: the simulation, goals, waypoints, navigation state, exits and the
 * record), so any run can be stopped and continued to the same bits; --load reads it, and
 * also the simulation snapshots orca run wrote before (orca_sim_save, with a waypoint
 * section when some agent has waypoints). docs/usage.md, "Snapshots". */
#ifndef ORCA_CLI_SNAPFILE_H
#define ORCA_CLI_SNAPFILE_H

#include "cli.h"

/* Before the first step: refuses (EXIT_USAGE, message printed) a snapshot --load could not
 * read back (larger than CLI_SNAPSHOT_MAX). Returns an exit status. */
int snapfile_check_size(orca_scenario *sc);
/* Writes the scenario's snapshot to out. Returns an exit status (message printed). */
int snapfile_save(cli_out *out, orca_scenario *sc);
/* Restores the run saved in the file at path ('-': standard input) into sc, which was built
 * from the scene (and options) the snapshot was saved from; a snapshot of another scene is
 * refused. *whole_run is 1 for a scenario snapshot (the scenario's record of arrivals,
 * overlaps, fallbacks and exits goes on from the saved run's), 0 for a simulation snapshot
 * (the record starts with this run). Returns an exit status (message printed). */
int snapfile_load(const char *path, orca_scenario *sc, int *whole_run);

#endif
