/* SPDX-License-Identifier: MIT */
/* Private: every allocation of the library goes through these, and so through the hooks of
 * orca_set_allocator. Sizes given as count * size are checked for overflow (on 32-bit
 * machines a count of 2^30 agents times 16 bytes does not fit in a size_t): an overflow is a
 * failed allocation, never a short block. */
#ifndef ORCA_ALLOC_H
#define ORCA_ALLOC_H

#include <stddef.h>

/* count * size bytes, or NULL (also when the product overflows). Zero bytes allocate one. */
void *orca_mem_alloc(size_t count, size_t size);
/* The same, zeroed. */
void *orca_mem_zalloc(size_t count, size_t size);
/* Resizes p (NULL: allocates) to count * size bytes; NULL on failure, p untouched. */
void *orca_mem_resize(void *p, size_t count, size_t size);
/* Frees p (NULL is ignored). */
void orca_mem_free(void *p);

#endif
