/* SPDX-License-Identifier: MIT */
#include "orca/base.h"

const char *orca_status_name(int status)
{
    switch (status) {
    case ORCA_OK: return "ORCA_OK";
    case ORCA_ERR_ARGUMENT: return "ORCA_ERR_ARGUMENT";
    case ORCA_ERR_NULL: return "ORCA_ERR_NULL";
    case ORCA_ERR_MEMORY: return "ORCA_ERR_MEMORY";
    case ORCA_ERR_STALE: return "ORCA_ERR_STALE";
    case ORCA_ERR_FORMAT: return "ORCA_ERR_FORMAT";
    case ORCA_ERR_LIMIT: return "ORCA_ERR_LIMIT";
    case ORCA_ERR_IO: return "ORCA_ERR_IO";
    default: return "unknown status";
    }
}

const char *orca_version(void)
{
    return "0.1.0";
}
