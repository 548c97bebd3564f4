/* SPDX-License-Identifier: MIT */
#include "orca/base.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

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
    case ORCA_ERR_FOREIGN: return "ORCA_ERR_FOREIGN";
    default: return "unknown status";
    }
}

const char *orca_version(void)
{
    return ORCA_VERSION_STRING;
}

int orca_bits_version(void)
{
    return ORCA_BITS_VERSION;
}

/* ---------------------------------------------------------------------------------------
 * Allocation hooks
 * ------------------------------------------------------------------------------------- */

static void *default_alloc(size_t size, void *context)
{
    (void)context;
    return malloc(size);
}

static void *default_resize(void *p, size_t size, void *context)
{
    (void)context;
    return realloc(p, size);
}

static void default_release(void *p, void *context)
{
    (void)context;
    free(p);
}

static orca_allocator g_allocator = {default_alloc, default_resize, default_release, NULL};

orca_status orca_set_allocator(const orca_allocator *allocator)
{
    if (!allocator) {
        g_allocator.alloc = default_alloc;
        g_allocator.resize = default_resize;
        g_allocator.release = default_release;
        g_allocator.context = NULL;
        return ORCA_OK;
    }
    if (!allocator->alloc || !allocator->resize || !allocator->release) {
        return ORCA_ERR_NULL;
    }
    g_allocator = *allocator;
    return ORCA_OK;
}

orca_allocator orca_get_allocator(void)
{
    return g_allocator;
}

/* count * size, or 0 when it overflows a size_t; zero bytes count as one. */
static size_t array_bytes(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        return 0;
    }
    size_t n = count * size;
    return n ? n : 1;
}

void *orca_mem_alloc(size_t count, size_t size)
{
    size_t n = array_bytes(count, size);
    return n ? g_allocator.alloc(n, g_allocator.context) : NULL;
}

void *orca_mem_zalloc(size_t count, size_t size)
{
    size_t n = array_bytes(count, size);
    void *p = n ? g_allocator.alloc(n, g_allocator.context) : NULL;
    if (p) {
        memset(p, 0, n);
    }
    return p;
}

void *orca_mem_resize(void *p, size_t count, size_t size)
{
    size_t n = array_bytes(count, size);
    if (!n) {
        return NULL;
    }
    return p ? g_allocator.resize(p, n, g_allocator.context)
             : g_allocator.alloc(n, g_allocator.context);
}

void orca_mem_free(void *p)
{
    if (p) {
        g_allocator.release(p, g_allocator.context);
    }
}
