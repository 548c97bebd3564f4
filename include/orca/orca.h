/* SPDX-License-Identifier: MIT */
/* orca: the whole public API. */
#ifndef ORCA_ORCA_H
#define ORCA_ORCA_H

#include "orca/version.h"
#include "orca/base.h"
#include "orca/solver.h"
#include "orca/sim.h"
#include "orca/scenario.h"
#include "orca/nav.h"
#include "orca/scene_file.h"

#endif
