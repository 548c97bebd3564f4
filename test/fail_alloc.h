/* SPDX-License-Identifier: MIT */
/* A counting allocator for the allocation-failure tests (orca_set_allocator): with g_fail_at
 * k > 0 the k-th allocation or resize from the last reset of g_calls fails (g_failed counts
 * those); g_live counts the blocks alive, so a leak shows as a change of it. For one test
 * program (its definitions are static). */
#ifndef ORCA_TEST_FAIL_ALLOC_H
#define ORCA_TEST_FAIL_ALLOC_H

#include <stdlib.h>

static long g_calls, g_fail_at, g_live, g_failed;

static void *fa_alloc(size_t size, void *context)
{
    (void)context;
    if (g_fail_at > 0 && ++g_calls == g_fail_at) {
        ++g_failed;
        return NULL;
    }
    void *p = malloc(size);
    g_live += p != NULL;
    return p;
}

static void *fa_resize(void *p, size_t size, void *context)
{
    (void)context;
    if (g_fail_at > 0 && ++g_calls == g_fail_at) {
        ++g_failed;
        return NULL;
    }
    void *q = realloc(p, size);
    g_live += p == NULL && q != NULL;
    return q;
}

static void fa_release(void *p, void *context)
{
    (void)context;
    g_live -= p != NULL;
    free(p);
}

#endif
