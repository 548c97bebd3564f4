/* SPDX-License-Identifier: MIT */
/* Private: what the scene files' reader (src/scene_file.c) and writer (src/scene_write.c)
 * share. */
#ifndef ORCA_SCENE_FILE_INTERNAL_H
#define ORCA_SCENE_FILE_INTERNAL_H

#include "orca/base.h"
#include "text.h"

/* The calling thread's message of the last refused read or write
 * (orca_scene_file_last_error(NULL)): sets it and returns st. */
orca_status orca_scene_file_fail(orca_status st, const char *fmt, ...) ORCA_PRINTF(2, 3);
/* Empties it (a read or write succeeded). */
void orca_scene_file_clear_error(void);

#endif
