/* SPDX-License-Identifier: MIT */
/* Slot tables: handle -> dense index, with generations, so a handle that outlived its object
 * is detected (ORCA_ERR_STALE), never dereferenced. Agents and segments have one each. */
#include "sim_internal.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void orca_slots_free(slot_table *t)
{
    orca_mem_free(t->generation);
    orca_mem_free(t->index);
    orca_mem_free(t->next_free);
    memset(t, 0, sizeof *t);
    t->free_head = -1;
}

int orca_slots_reserve(slot_table *t, int32_t need)
{
    if (need <= t->capacity) {
        return 1;
    }
    int32_t cap = t->capacity ? t->capacity : 16;
    while (cap < need) {
        cap = cap > (1 << 29) ? need : cap * 2;
    }
    uint32_t *g = orca_mem_resize(t->generation, (size_t)cap, sizeof *g);
    if (!g) {
        return 0;
    }
    t->generation = g;
    int32_t *ix = orca_mem_resize(t->index, (size_t)cap, sizeof *ix);
    if (!ix) {
        return 0;
    }
    t->index = ix;
    int32_t *nf = orca_mem_resize(t->next_free, (size_t)cap, sizeof *nf);
    if (!nf) {
        return 0;
    }
    t->next_free = nf;
    t->capacity = cap;
    return 1;
}

/* The slot a new object will take (reserve first). */
int32_t orca_slots_peek(const slot_table *t)
{
    return t->free_head >= 0 ? t->free_head : t->count;
}

void orca_slots_take(slot_table *t, int32_t slot, int32_t index)
{
    if (slot == t->free_head) {
        t->free_head = t->next_free[slot];
    } else {
        t->generation[slot] = 1;
        t->count = slot + 1;
    }
    t->index[slot] = index;
    t->next_free[slot] = -1;
}

void orca_slots_release(slot_table *t, int32_t slot)
{
    t->index[slot] = -1;
    uint32_t g = t->generation[slot] + 1;
    t->generation[slot] = g == 0 ? 1 : g;
    t->next_free[slot] = t->free_head;
    t->free_head = slot;
}

/* After the dense object at index i of n was removed and the arrays shifted down: frees its
 * slot and points the slots of the objects that moved at their new indices. */
void orca_slots_after_removal(slot_table *t, uint32_t slot, const uint32_t *dense, int32_t i,
                                int32_t n)
{
    orca_slots_release(t, (int32_t)slot);
    for (int32_t k = i; k < n - 1; ++k) {
        t->index[dense[k]] = k;
    }
}

int32_t orca_slots_lookup(const slot_table *t, uint32_t slot, uint32_t generation)
{
    if (generation == 0 || slot >= (uint32_t)t->count || t->generation[slot] != generation) {
        return -1;
    }
    return t->index[slot];
}

orca_status orca_fail_handle(const orca_sim *s, const char *kind, uint32_t slot,
                             uint32_t generation, uint32_t sim, const char *prefix,
                             const char *suffix)
{
    unsigned a = (unsigned)slot, g = (unsigned)generation, h = (unsigned)sim;
    if (slot == 0 && generation == 0 && sim == 0) {
        return orca_fail(s, ORCA_ERR_STALE,
                         "%s%s handle {slot 0, generation 0, sim 0} is stale (the null handle "
                         "names no %s)%s",
                         prefix, kind, kind, suffix);
    }
    if (sim == 0) {
        return orca_fail(s, ORCA_ERR_FOREIGN,
                         "%s%s handle {slot %u, generation %u, sim 0} was issued by no "
                         "simulation (this is sim %u)%s",
                         prefix, kind, a, g, (unsigned)s->id, suffix);
    }
    if (sim != s->id) {
        return orca_fail(s, ORCA_ERR_FOREIGN,
                         "%s%s handle {slot %u, generation %u, sim %u} belongs to another "
                         "simulation (this is sim %u)%s",
                         prefix, kind, a, g, h, (unsigned)s->id, suffix);
    }
    return orca_fail(s, ORCA_ERR_STALE, "%s%s handle {slot %u, generation %u, sim %u} is stale%s",
                     prefix, kind, a, g, h, suffix);
}
