/* SPDX-License-Identifier: MIT */
/* The state hash (on values, most significant byte first: the same on every machine) and
 * snapshots (versioned, little-endian, checksummed; loading checks everything and changes
 * nothing on a refusal). docs/determinism.md defines both. */
#include "sim_internal.h"
#include "snap_io.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static uint64_t hash_vec(uint64_t h, orca_vec2 v)
{
    return hash_f64(hash_f64(h, v.x), v.y);
}

/* A value as the hash reads it (hash_f64: most significant byte first, every NaN as one). */
static unsigned char *put_hashed(unsigned char *p, double x)
{
    return hash_put_u64(p, x != x ? 0x7ff8000000000000ull : f64_bits(x));
}

size_t orca_sim_hash_bytes(const orca_sim *s, int32_t i, int part, unsigned char *out)
{
    orca_agents_settle(s);
    unsigned char *p = out;
    if (part == HASH_CORE) {
        const agent_params *a = &s->par[i];
        p = put_hashed(put_hashed(p, s->pos[i].x), s->pos[i].y);
        p = put_hashed(put_hashed(p, s->vel[i].x), s->vel[i].y);
        p = put_hashed(put_hashed(p, s->pref[i].x), s->pref[i].y);
        p = put_hashed(put_hashed(put_hashed(p, a->radius), a->max_speed), a->neighbor_dist);
        p = hash_put_u64(p, (uint64_t)a->max_neighbors);
        p = put_hashed(put_hashed(p, a->tau), a->tau_obst);
    } else if (part == HASH_EXT) {
        agent_ext e = {1.0, 1u, UINT32_MAX, 0};
        if (s->ext) {
            e = s->ext[i];
        }
        p = put_hashed(p, e.priority);
        p = hash_put_u64(hash_put_u64(p, e.layers), e.mask);
        p = hash_put_u64(p, (uint64_t)e.locked);
    }
    return (size_t)(p - out);
}

/* This process's agents, in index order (orca_sim_hash). */
static uint64_t sim_agents_hash(void *ctx, uint64_t h, int part)
{
    const orca_sim *s = ctx;
    unsigned char bytes[HASH_SIM_BYTES];
    for (int32_t i = 0; i < s->agent_count; ++i) {
        h = hash_bytes(h, bytes, orca_sim_hash_bytes(s, i, part, bytes));
    }
    return h;
}

static int64_t sim_agents_count(void *ctx, int part)
{
    const orca_sim *s = ctx;
    return part == HASH_EXT ? s->ext_nondefault : s->agent_count;
}

uint64_t orca_hash_options(uint64_t h, int separation, const orca_density_speed *density,
                           const orca_pedestrian *ped)
{
    /* The separation option: one tag when it is on. */
    if (separation) {
        h = hash_u64(h, HASH_SEP_TAG);
    }
    /* The density-dependent speed likewise: a tag and its parameters when it is on. */
    if (density) {
        h = hash_u64(h, HASH_DEN_TAG);
        h = hash_f64(h, density->radius);
        h = hash_f64(h, density->gamma);
        h = hash_f64(h, density->max_density);
    }
    /* The pedestrian model likewise. */
    if (ped) {
        h = hash_u64(h, HASH_PED_TAG);
        h = hash_f64(h, ped->time_gap);
        h = hash_f64(h, ped->buffer);
        h = hash_f64(h, ped->counter_reach);
        h = hash_u64(h, (uint64_t)ped->max_planes);
    }
    return h;
}

uint64_t orca_sim_hash_with(const orca_sim *s, const hash_agents *agents)
{
    uint64_t h = FNV_OFFSET;
    orca_segments_settle(s);
    h = hash_u64(h, (uint64_t)agents->count(agents->ctx, HASH_CORE));
    h = agents->hash(agents->ctx, h, HASH_CORE);
    h = hash_u64(h, (uint64_t)s->segment_count);
    for (int32_t k = 0; k < s->segment_count; ++k) {
        h = hash_vec(h, s->seg_a[k]);
        h = hash_vec(h, s->seg_b[k]);
    }
    /* The avoidance settings enter only when some agent is not at the defaults, so every
     * state without them hashes as before the extensions existed (docs/extensions.md). */
    if (agents->count(agents->ctx, HASH_EXT) > 0) {
        h = hash_u64(h, HASH_EXT_TAG);
        h = agents->hash(agents->ctx, h, HASH_EXT);
    }
    /* The boundaries likewise enter only when there is one. */
    if (s->bnd && s->bnd->loop_count > 0) {
        const boundary_set *b = s->bnd;
        h = hash_u64(h, HASH_BND_TAG);
        h = hash_u64(h, (uint64_t)b->loop_count);
        for (int32_t l = 0; l < b->loop_count; ++l) {
            h = hash_u64(h, (uint64_t)b->loop_len[l]);
            for (int32_t k = 0; k < b->loop_len[l]; ++k) {
                h = hash_vec(h, b->ea[b->loop_first[l] + k]);
            }
        }
    }
    h = orca_hash_options(h, s->separation, s->density_on ? &s->density : NULL,
                          s->ped_on ? &s->ped : NULL);
    /* The streams while some agent has one (each as the 32 bits of its two's complement: -1
     * is 0xFFFFFFFF). */
    if (s->stream_count > 0) {
        h = hash_u64(h, HASH_STR_TAG);
        for (int32_t i = 0; i < s->agent_count; ++i) {
            h = hash_u64(h, (uint64_t)(uint32_t)s->stream[i]);
        }
    }
    return h;
}

uint64_t orca_sim_hash(const orca_sim *s)
{
    if (!s) {
        return FNV_OFFSET;
    }
    orca_agents_settle(s);
    hash_agents agents = {sim_agents_hash, sim_agents_count, (void *)s};
    return orca_sim_hash_with(s, &agents);
}

#define SNAP_MAGIC "ORCASNAP"
#define SNAP_VERSION 1u     /* every agent at the extensions' defaults */
#define SNAP_VERSION_EXT 2u /* version 1 plus the avoidance settings after the segments */
#define SNAP_VERSION_FLAGS 3u /* the header's last word holds flags: 1 avoidance settings (as
                                 version 2), 2 the boundary section after them, 4 the
                                 separation option on (no bytes), 8 the density section
                                 (radius, gamma, max_density: 3 doubles) after the rest,
                                 16 the pedestrian section (time_gap, buffer, counter_reach:
                                 3 doubles; max_planes: 4 bytes) after it, 32 the stream
                                 section (4 bytes an agent) after that */
#define SNAP_FLAG_EXT 1u
#define SNAP_FLAG_BND 2u
#define SNAP_FLAG_SEP 4u
#define SNAP_FLAG_DEN 8u
#define SNAP_FLAG_PED 16u
#define SNAP_FLAG_STR 32u
#define SNAP_DEN 24
#define SNAP_PED 28
#define SNAP_BND_HEADER 16 /* loop count, slot count, free head, edge count */
#define SNAP_LOOP 8        /* slot, point count */
#define SNAP_EXT (8 + 3 * 4)
#define SNAP_HEADER 48        /* magic 8, version 4, steps 8, 2 x (count, slots, free head) 24, pad 4 */
#define SNAP_AGENT (4 + 11 * 8 + 4)
#define SNAP_SEGMENT (4 + 4 * 8)
#define SNAP_SLOT 12

static void put_slots(snap_writer *w, const slot_table *t)
{
    for (int32_t k = 0; k < t->count; ++k) {
        put_u32(w, t->generation[k]);
        put_u32(w, (uint32_t)t->index[k]);
        put_u32(w, (uint32_t)t->next_free[k]);
    }
}

/* The bytes of a snapshot with these counts (64-bit arithmetic: at most about 1.1e11 for
 * the largest counts, which a 32-bit size_t does not hold; callers compare with SIZE_MAX). */
static uint64_t snapshot_bytes(uint64_t agents, uint64_t agent_slots, uint64_t segments,
                               uint64_t segment_slots, int ext)
{
    return SNAP_HEADER + agent_slots * SNAP_SLOT + agents * SNAP_AGENT +
           segment_slots * SNAP_SLOT + segments * SNAP_SEGMENT + (ext ? agents * SNAP_EXT : 0) +
           8;
}

/* The boundary section's bytes. */
static uint64_t boundary_bytes(uint64_t loops, uint64_t slots, uint64_t edges)
{
    return SNAP_BND_HEADER + slots * SNAP_SLOT + loops * SNAP_LOOP + edges * 16;
}

orca_status orca_sim_save(const orca_sim *s, void *buffer, size_t capacity, size_t *size)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_clear_error(s);
    if (!size) {
        return orca_fail(s, ORCA_ERR_NULL, "size pointer is NULL");
    }
    orca_agents_settle(s);
    orca_segments_settle(s);
    int ext = s->ext_nondefault > 0;
    const boundary_set *b = s->bnd && s->bnd->loop_count > 0 ? s->bnd : NULL;
    uint64_t bytes = snapshot_bytes((uint64_t)s->agent_count, (uint64_t)s->agent_slots.count,
                                    (uint64_t)s->segment_count, (uint64_t)s->segment_slots.count,
                                    ext);
    if (b) {
        bytes += boundary_bytes((uint64_t)b->loop_count, (uint64_t)b->slots.count,
                                (uint64_t)b->edge_count);
    }
    if (s->density_on) {
        bytes += SNAP_DEN;
    }
    if (s->ped_on) {
        bytes += SNAP_PED;
    }
    if (s->stream_count > 0) {
        bytes += 4 * (uint64_t)s->agent_count;
    }
    if (bytes > SIZE_MAX) {
        return orca_fail(s, ORCA_ERR_LIMIT, "the snapshot would need %llu bytes, more than a size_t holds",
                    (unsigned long long)bytes);
    }
    size_t need = (size_t)bytes;
    *size = need;
    if (!buffer) {
        return ORCA_OK;
    }
    if (capacity < need) {
        return orca_fail(s, ORCA_ERR_LIMIT, "snapshot needs %zu bytes, buffer holds %zu", need, capacity);
    }
    snap_writer w = {buffer};
    memcpy(w.p, SNAP_MAGIC, 8);
    w.p += 8;
    /* version 3: a boundary section, the separation option, the density, pedestrian or
     * stream section */
    int flagged = b || s->separation || s->density_on || s->ped_on || s->stream_count > 0;
    put_u32(&w, flagged ? SNAP_VERSION_FLAGS : ext ? SNAP_VERSION_EXT : SNAP_VERSION);
    put_u64(&w, s->steps);
    put_u32(&w, (uint32_t)s->agent_count);
    put_u32(&w, (uint32_t)s->agent_slots.count);
    put_u32(&w, (uint32_t)s->agent_slots.free_head);
    put_u32(&w, (uint32_t)s->segment_count);
    put_u32(&w, (uint32_t)s->segment_slots.count);
    put_u32(&w, (uint32_t)s->segment_slots.free_head);
    put_u32(&w, flagged ? (ext ? SNAP_FLAG_EXT : 0) | (b ? SNAP_FLAG_BND : 0) |
                              (s->separation ? SNAP_FLAG_SEP : 0) |
                              (s->density_on ? SNAP_FLAG_DEN : 0) |
                              (s->ped_on ? SNAP_FLAG_PED : 0) |
                              (s->stream_count > 0 ? SNAP_FLAG_STR : 0)
                        : 0);
    put_slots(&w, &s->agent_slots);
    for (int32_t i = 0; i < s->agent_count; ++i) {
        put_u32(&w, s->agent_slot[i]);
        put_vec(&w, s->pos[i]);
        put_vec(&w, s->vel[i]);
        put_vec(&w, s->pref[i]);
        put_f64(&w, s->par[i].radius);
        put_f64(&w, s->par[i].max_speed);
        put_f64(&w, s->par[i].neighbor_dist);
        put_f64(&w, s->par[i].tau);
        put_f64(&w, s->par[i].tau_obst);
        put_u32(&w, (uint32_t)s->par[i].max_neighbors);
    }
    put_slots(&w, &s->segment_slots);
    for (int32_t k = 0; k < s->segment_count; ++k) {
        put_u32(&w, s->segment_slot[k]);
        put_vec(&w, s->seg_a[k]);
        put_vec(&w, s->seg_b[k]);
    }
    for (int32_t i = 0; ext && i < s->agent_count; ++i) {
        put_f64(&w, s->ext[i].priority);
        put_u32(&w, s->ext[i].layers);
        put_u32(&w, s->ext[i].mask);
        put_u32(&w, (uint32_t)s->ext[i].locked);
    }
    if (b) {
        put_u32(&w, (uint32_t)b->loop_count);
        put_u32(&w, (uint32_t)b->slots.count);
        put_u32(&w, (uint32_t)b->slots.free_head);
        put_u32(&w, (uint32_t)b->edge_count);
        put_slots(&w, &b->slots);
        for (int32_t l = 0; l < b->loop_count; ++l) {
            put_u32(&w, b->loop_slot[l]);
            put_u32(&w, (uint32_t)b->loop_len[l]);
        }
        for (int32_t k = 0; k < b->edge_count; ++k) {
            put_vec(&w, b->ea[k]);
        }
    }
    if (s->density_on) {
        put_f64(&w, s->density.radius);
        put_f64(&w, s->density.gamma);
        put_f64(&w, s->density.max_density);
    }
    if (s->ped_on) {
        put_f64(&w, s->ped.time_gap);
        put_f64(&w, s->ped.buffer);
        put_f64(&w, s->ped.counter_reach);
        put_u32(&w, (uint32_t)s->ped.max_planes);
    }
    for (int32_t i = 0; s->stream_count > 0 && i < s->agent_count; ++i) {
        put_u32(&w, (uint32_t)s->stream[i]);
    }
    put_u64(&w, checksum(buffer, need - 8));
    return ORCA_OK;
}

/* Reads and checks a slot table against the dense array's slots (n objects). */
static orca_status get_slots(orca_sim *err, snap_reader *r, slot_table *t, int32_t slots,
                             int32_t free_head, const char *what)
{
    if (!orca_slots_reserve(t, slots > 0 ? slots : 1)) {
        return orca_fail(err, ORCA_ERR_MEMORY, "out of memory reading %s slots", what);
    }
    t->count = slots;
    t->free_head = free_head;
    for (int32_t k = 0; k < slots; ++k) {
        t->generation[k] = get_u32(r);
        t->index[k] = (int32_t)get_u32(r);
        t->next_free[k] = (int32_t)get_u32(r);
        if (t->generation[k] == 0) {
            return orca_fail(err, ORCA_ERR_FORMAT, "snapshot: %s slot %d has generation 0", what, k);
        }
    }
    /* the free list: every free slot exactly once, no cycle */
    int32_t walked = 0, free_slots = 0;
    for (int32_t k = 0; k < slots; ++k) {
        free_slots += t->index[k] == -1;
    }
    for (int32_t k = free_head; k != -1; k = t->next_free[k]) {
        if (k < 0 || k >= slots || t->index[k] != -1 || ++walked > free_slots) {
            return orca_fail(err, ORCA_ERR_FORMAT, "snapshot: %s free list is corrupt", what);
        }
    }
    if (walked != free_slots) {
        return orca_fail(err, ORCA_ERR_FORMAT, "snapshot: %s free list misses %d free slots", what,
                    free_slots - walked);
    }
    return ORCA_OK;
}

static orca_status check_slot_links(orca_sim *err, const slot_table *t, const uint32_t *dense,
                                    int32_t n, const char *what)
{
    int32_t live = 0;
    for (int32_t k = 0; k < t->count; ++k) {
        int32_t ix = t->index[k];
        if (ix == -1) {
            continue;
        }
        if (ix < 0 || ix >= n || dense[ix] != (uint32_t)k) {
            return orca_fail(err, ORCA_ERR_FORMAT, "snapshot: %s slot %d points to a wrong index %d", what,
                        k, ix);
        }
        ++live;
    }
    if (live != n) {
        return orca_fail(err, ORCA_ERR_FORMAT, "snapshot: %d %s slots for %d %ss", live, what, n, what);
    }
    return ORCA_OK;
}

/* Swaps the agent grid's arrays (scratch sized by the agent capacity) of two simulations. */
static void swap_grid_arrays(orca_sim *a, orca_sim *b)
{
    orca_sim t = *a;
#define SW(f) (a->f = b->f, b->f = t.f)
    SW(cell_index);
    SW(cell_pos);
    SW(cell_vel);
    SW(cell_radius);
    SW(rank);
#undef SW
}

/* Swaps the state (not the workers, callbacks or caches) of two simulations, and with grid set
 * the agent grid's arrays (sized by the agent capacity). */
static void swap_state(orca_sim *a, orca_sim *b, int grid)
{
    orca_sim t = *a;
#define SW(f) (a->f = b->f, b->f = t.f)
    SW(agent_count);
    SW(agent_capacity);
    SW(pos);
    SW(vel);
    SW(pref);
    SW(par);
    SW(agent_slot);
    SW(agent_slots);
    if (grid) {
        swap_grid_arrays(a, b);
    }
    SW(segment_count);
    SW(segment_capacity);
    SW(seg_a);
    SW(seg_b);
    SW(segment_slot);
    SW(segment_slots);
    SW(seg_dead);
    SW(seg_dead_count);
    SW(seg_dead_capacity);
    SW(steps);
    SW(separation);
    SW(density_on);
    SW(density);
    SW(ped_on);
    SW(ped);
    SW(stream);
    SW(stream_count);
    SW(ext);
    SW(ext_nondefault);
    SW(diag);
    SW(bnd);
    SW(dead);
    SW(dead_count);
    SW(dead_capacity);
    SW(index_limit);
#undef SW
    memset(&a->diag_counts, 0, sizeof a->diag_counts);
    a->grid_valid = 0;
    a->bounds_valid = 0;
    a->obstacle_grid_valid = 0;
}

/* What a snapshot's header says (with the boundary section's header): the counts, the free
 * lists' heads and which sections follow the segments. */
typedef struct snap_header {
    uint64_t steps;
    uint32_t na, nas, ns, nss; /* agents, agent slots, segments, segment slots */
    int32_t afree, sfree;      /* the slot tables' free list heads */
    int ext, bnd, sep, den;    /* avoidance settings, boundaries, separation, density */
    int ped, str;              /* the pedestrian model, streams */
    uint32_t nl, nls, ne;      /* boundary loops, their slots, their points */
    int32_t lfree;
} snap_header;

/* A refusal of a check that wrote its message into s's error (orca_check_agent_def, ...):
 * the message again as a format error, after where ("snapshot agent 3: ..."). */
static orca_status refuse_checked(orca_sim *s, const char *fmt, ...) ORCA_PRINTF(2, 3);
static orca_status refuse_checked(orca_sim *s, const char *fmt, ...)
{
    char where[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(where, sizeof where, fmt, ap);
    va_end(ap);
    char msg[sizeof s->error];
    snprintf(msg, sizeof msg, "%s", s->error);
    return orca_fail(s, ORCA_ERR_FORMAT, "%s: %s", where, msg);
}

/* The version and the header's counts and flags; r is left after the header. */
static orca_status get_counts(orca_sim *s, snap_reader *r, snap_header *h)
{
    uint32_t version = get_u32(r);
    if (version != SNAP_VERSION && version != SNAP_VERSION_EXT && version != SNAP_VERSION_FLAGS) {
        return orca_fail(s, ORCA_ERR_FORMAT,
                         "snapshot version %u, this library reads versions %u to %u",
                         (unsigned)version, SNAP_VERSION, SNAP_VERSION_FLAGS);
    }
    h->ext = version == SNAP_VERSION_EXT;
    h->steps = get_u64(r);
    h->na = get_u32(r);
    h->nas = get_u32(r);
    h->afree = (int32_t)get_u32(r);
    h->ns = get_u32(r);
    h->nss = get_u32(r);
    h->sfree = (int32_t)get_u32(r);
    uint32_t flags = get_u32(r);
    if (version == SNAP_VERSION_FLAGS) {
        /* version 3 is written only with a boundary section, the separation option, the
         * density, pedestrian or stream section */
        uint32_t sections =
            SNAP_FLAG_BND | SNAP_FLAG_SEP | SNAP_FLAG_DEN | SNAP_FLAG_PED | SNAP_FLAG_STR;
        if ((flags & ~(SNAP_FLAG_EXT | sections)) != 0 || (flags & sections) == 0) {
            return orca_fail(s, ORCA_ERR_FORMAT, "snapshot flags %u are not known",
                             (unsigned)flags);
        }
        h->ext = (flags & SNAP_FLAG_EXT) != 0;
        h->bnd = (flags & SNAP_FLAG_BND) != 0;
        h->sep = (flags & SNAP_FLAG_SEP) != 0;
        h->den = (flags & SNAP_FLAG_DEN) != 0;
        h->ped = (flags & SNAP_FLAG_PED) != 0;
        h->str = (flags & SNAP_FLAG_STR) != 0;
    }
    if (h->na > (1u << 30) || h->nas > (1u << 30) || h->ns > (1u << 28) || h->nss > (1u << 28) ||
        h->na > h->nas || h->ns > h->nss) {
        return orca_fail(s, ORCA_ERR_FORMAT,
                         "snapshot counts out of range (%u agents, %u segments)",
                         (unsigned)h->na, (unsigned)h->ns);
    }
    return ORCA_OK;
}

/* The boundary section's counts, from its header right after the parts the snapshot's header
 * sizes (need bytes with the checksum). */
static orca_status get_boundary_counts(orca_sim *s, const unsigned char *bytes, size_t size,
                                       uint64_t need, snap_header *h)
{
    if ((uint64_t)size < need + SNAP_BND_HEADER) {
        return orca_fail(s, ORCA_ERR_FORMAT, "snapshot is %zu bytes, too short for its boundaries",
                         size);
    }
    snap_reader bh = {bytes + need - 8};
    h->nl = get_u32(&bh);
    h->nls = get_u32(&bh);
    h->lfree = (int32_t)get_u32(&bh);
    h->ne = get_u32(&bh);
    if (h->nl == 0 || h->nl > h->nls || h->nls > (1u << 24) || h->ne < 3 * h->nl ||
        h->ne > ORCA_BOUNDARY_EDGES_MAX) {
        return orca_fail(s, ORCA_ERR_FORMAT,
                         "snapshot boundary counts out of range (%u loops, %u slots, %u edges)",
                         (unsigned)h->nl, (unsigned)h->nls, (unsigned)h->ne);
    }
    return ORCA_OK;
}

/* The header, the size it gives and the checksum; r is left after the header. */
static orca_status get_header(orca_sim *s, const unsigned char *bytes, size_t size, snap_reader *r,
                              snap_header *h)
{
    if (size < SNAP_HEADER + 8 || memcmp(bytes, SNAP_MAGIC, 8) != 0) {
        return orca_fail(s, ORCA_ERR_FORMAT, "not an orca snapshot (%zu bytes, bad magic)", size);
    }
    r->p = bytes + 8;
    orca_status st = get_counts(s, r, h);
    if (st != ORCA_OK) {
        return st;
    }
    uint64_t need = snapshot_bytes(h->na, h->nas, h->ns, h->nss, h->ext);
    h->lfree = -1;
    if (h->bnd) {
        if ((st = get_boundary_counts(s, bytes, size, need, h)) != ORCA_OK) {
            return st;
        }
        need += boundary_bytes(h->nl, h->nls, h->ne);
    }
    if (h->den) {
        need += SNAP_DEN;
    }
    if (h->ped) {
        need += SNAP_PED;
    }
    if (h->str) {
        need += 4 * (uint64_t)h->na;
    }
    if ((uint64_t)size != need) {
        return orca_fail(s, ORCA_ERR_FORMAT,
                         "snapshot is %zu bytes, its header says %llu (truncated?)", size,
                         (unsigned long long)need);
    }
    snap_reader tail = {bytes + size - 8};
    if (get_u64(&tail) != checksum(bytes, size - 8)) {
        return orca_fail(s, ORCA_ERR_FORMAT, "snapshot checksum mismatch (corrupt bytes)");
    }
    return ORCA_OK;
}

/* The agents' slot table and the agents, each checked as orca_sim_add_agent checks it. */
static orca_status get_agents(orca_sim *s, orca_sim *t, snap_reader *r, const snap_header *h)
{
    uint32_t na = h->na;
    orca_status st = get_slots(s, r, &t->agent_slots, (int32_t)h->nas, h->afree, "agent");
    if (st != ORCA_OK) {
        return st;
    }
    if (!orca_agents_reserve(t, (int32_t)na > 0 ? (int32_t)na : 1)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory reading %u agents", (unsigned)na);
    }
    for (int32_t i = 0; i < (int32_t)na; ++i) {
        orca_agent_def d;
        t->agent_slot[i] = get_u32(r);
        d.position = get_vec(r);
        d.velocity = get_vec(r);
        d.preferred_velocity = get_vec(r);
        d.radius = bits_f64(get_u64(r));
        d.max_speed = bits_f64(get_u64(r));
        d.neighbor_dist = bits_f64(get_u64(r));
        d.time_horizon = bits_f64(get_u64(r));
        d.obstacle_time_horizon = bits_f64(get_u64(r));
        d.max_neighbors = (int32_t)get_u32(r);
        st = orca_check_agent_def(s, &d);
        if (st != ORCA_OK) {
            return refuse_checked(s, "snapshot agent %d", i);
        }
        orca_agent_store(t, i, &d);
        /* The search hint (select_agents) of the agent the simulation holds at the same
         * index, 5% wider for the steps between the snapshot and now: close when the
         * snapshot is an earlier state of the same agents (rollback; measured at 100,000
         * agents 6 steps apart, the first step costs 1.005 times a warm one in instructions
         * against 1.11 without hints), a wrong guess otherwise, which costs work and never
         * changes a result. */
        t->par[i].nb_guess = i < s->agent_count ? s->par[i].nb_guess * 1.05f : 0;
    }
    t->agent_count = (int32_t)na;
    t->index_limit = (int32_t)na;
    return check_slot_links(s, &t->agent_slots, t->agent_slot, t->agent_count, "agent");
}

/* The segments' slot table and the segments (their ends checked as coordinates). */
static orca_status get_segments(orca_sim *s, orca_sim *t, snap_reader *r, const snap_header *h)
{
    uint32_t ns = h->ns;
    orca_status st = get_slots(s, r, &t->segment_slots, (int32_t)h->nss, h->sfree, "segment");
    if (st != ORCA_OK) {
        return st;
    }
    if (!orca_segments_reserve(t, (int32_t)ns > 0 ? (int32_t)ns : 1)) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory reading %u segments", (unsigned)ns);
    }
    for (int32_t k = 0; k < (int32_t)ns; ++k) {
        t->segment_slot[k] = get_u32(r);
        t->seg_a[k] = get_vec(r);
        t->seg_b[k] = get_vec(r);
        char what[48];
        snprintf(what, sizeof what, "snapshot segment %d start", (int)k);
        if ((st = orca_check_coord(s, what, t->seg_a[k])) != ORCA_OK) {
            return ORCA_ERR_FORMAT;
        }
        snprintf(what, sizeof what, "snapshot segment %d end", (int)k);
        if ((st = orca_check_coord(s, what, t->seg_b[k])) != ORCA_OK) {
            return ORCA_ERR_FORMAT;
        }
    }
    t->segment_count = (int32_t)ns;
    return check_slot_links(s, &t->segment_slots, t->segment_slot, t->segment_count, "segment");
}

/* The avoidance settings' section (docs/extensions.md), each agent's checked as
 * orca_agent_set_avoidance checks them. */
static orca_status get_avoidance(orca_sim *s, orca_sim *t, snap_reader *r, uint32_t na)
{
    t->ext = orca_mem_alloc((size_t)t->agent_capacity, sizeof *t->ext);
    if (!t->ext) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory reading the avoidance settings");
    }
    for (int32_t i = 0; i < (int32_t)na; ++i) {
        orca_agent_avoidance a;
        a.priority = bits_f64(get_u64(r));
        a.layers = get_u32(r);
        a.mask = get_u32(r);
        uint32_t locked = get_u32(r);
        if (locked > 1) {
            return orca_fail(s, ORCA_ERR_FORMAT, "snapshot agent %d: locked must be 0 or 1, got %u",
                             i, (unsigned)locked);
        }
        a.locked = (int)locked;
        if (orca_check_avoidance(s, &a) != ORCA_OK) {
            return refuse_checked(s, "snapshot agent %d", i);
        }
        t->ext[i].priority = a.priority;
        t->ext[i].layers = a.layers;
        t->ext[i].mask = a.mask;
        t->ext[i].locked = a.locked;
        t->ext_nondefault += !orca_ext_is_default(&t->ext[i]);
    }
    /* orca_sim_save writes the section only when some agent is off the defaults, so a
     * snapshot whose section holds only defaults is not one it wrote: refused, so that
     * every snapshot loaded saves back to the same bytes (docs/extensions.md) */
    if (t->ext_nondefault == 0) {
        return orca_fail(s, ORCA_ERR_FORMAT,
                         "snapshot: its avoidance section (version 2, or flag 1 of version 3) "
                         "holds only default settings for its %u agents; orca writes it only "
                         "when some agent is off the defaults",
                         (unsigned)na);
    }
    return ORCA_OK;
}

/* Stores the boundary loops (their slots, lengths and the points of all, in order) into t,
 * each checked as orca_sim_add_boundary checks it. */
static orca_status store_loops(orca_sim *s, orca_sim *t, const orca_vec2 *pts,
                               const uint32_t *slot_of, const uint32_t *len_of, uint32_t nl,
                               uint32_t ne)
{
    uint32_t at = 0;
    boundary_set *bs = t->bnd;
    for (uint32_t l = 0; l < nl; ++l) {
        if (orca_check_boundary(s, pts + at, (int)len_of[l], (int32_t)at) != ORCA_OK) {
            return refuse_checked(s, "snapshot boundary %u", (unsigned)l);
        }
        if (bs->loop_capacity == 0) {
            /* room for every loop and edge at once */
            bs->loop_first = orca_mem_alloc((size_t)nl, sizeof *bs->loop_first);
            bs->loop_len = orca_mem_alloc((size_t)nl, sizeof *bs->loop_len);
            bs->loop_slot = orca_mem_alloc((size_t)nl, sizeof *bs->loop_slot);
            bs->ea = orca_mem_alloc((size_t)ne, sizeof *bs->ea);
            bs->eb = orca_mem_alloc((size_t)ne, sizeof *bs->eb);
            bs->enext = orca_mem_alloc((size_t)ne, sizeof *bs->enext);
            if (!bs->loop_first || !bs->loop_len || !bs->loop_slot || !bs->ea || !bs->eb ||
                !bs->enext) {
                return orca_fail(s, ORCA_ERR_MEMORY, "out of memory reading the boundaries");
            }
            bs->loop_capacity = (int32_t)nl;
            bs->edge_capacity = (int32_t)ne;
        }
        orca_boundary_append(t, pts + at, (int)len_of[l], slot_of[l]);
        at += len_of[l];
    }
    return ORCA_OK;
}

/* The boundary section (docs/extensions.md, "Walkable areas"): its slot table, the loops'
 * slots and lengths, then their points. */
static orca_status get_boundaries(orca_sim *s, orca_sim *t, snap_reader *r, const snap_header *h)
{
    uint32_t nl = h->nl, ne = h->ne;
    r->p += SNAP_BND_HEADER;
    t->bnd = orca_mem_zalloc(1, sizeof *t->bnd);
    if (!t->bnd) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory reading the boundaries");
    }
    t->bnd->slots.free_head = -1;
    orca_status st = get_slots(s, r, &t->bnd->slots, (int32_t)h->nls, h->lfree, "boundary");
    if (st != ORCA_OK) {
        return st;
    }
    const unsigned char *loops = r->p;
    uint64_t sum = 0;
    for (uint32_t l = 0; l < nl; ++l) {
        (void)get_u32(r);
        sum += get_u32(r);
    }
    if (sum != ne) {
        return orca_fail(s, ORCA_ERR_FORMAT,
                         "snapshot boundary loops hold %llu points, its header says %u",
                         (unsigned long long)sum, (unsigned)ne);
    }
    orca_vec2 *pts = orca_mem_alloc((size_t)ne, sizeof *pts);
    uint32_t *slot_of = orca_mem_alloc((size_t)nl, sizeof *slot_of);
    uint32_t *len_of = orca_mem_alloc((size_t)nl, sizeof *len_of);
    if (!pts || !slot_of || !len_of) {
        st = orca_fail(s, ORCA_ERR_MEMORY, "out of memory reading the boundaries");
    } else {
        snap_reader lr = {loops};
        for (uint32_t l = 0; l < nl; ++l) {
            slot_of[l] = get_u32(&lr);
            len_of[l] = get_u32(&lr);
        }
        for (uint32_t k = 0; k < ne; ++k) {
            pts[k] = get_vec(r);
        }
        st = store_loops(s, t, pts, slot_of, len_of, nl, ne);
    }
    orca_mem_free(pts);
    orca_mem_free(slot_of);
    orca_mem_free(len_of);
    if (st != ORCA_OK) {
        return st;
    }
    return check_slot_links(s, &t->bnd->slots, t->bnd->loop_slot, t->bnd->loop_count,
                            "boundary");
}

/* The density section (docs/extensions.md, "Density-dependent speed"), checked as
 * orca_sim_set_density_speed checks it. */
static orca_status get_density(orca_sim *s, orca_sim *t, snap_reader *r)
{
    orca_density_speed d;
    d.radius = bits_f64(get_u64(r));
    d.gamma = bits_f64(get_u64(r));
    d.max_density = bits_f64(get_u64(r));
    if (orca_check_density_speed(s, &d) != ORCA_OK) {
        return refuse_checked(s, "snapshot density section");
    }
    t->density = d;
    t->density_on = 1;
    return ORCA_OK;
}

/* The pedestrian section (docs/pedestrians.md), checked as orca_sim_set_pedestrian checks it;
 * a snapshot with the density section too is refused as that call refuses it. */
static orca_status get_pedestrian(orca_sim *s, orca_sim *t, snap_reader *r)
{
    orca_pedestrian p;
    p.time_gap = bits_f64(get_u64(r));
    p.buffer = bits_f64(get_u64(r));
    p.counter_reach = bits_f64(get_u64(r));
    p.max_planes = (int)get_u32(r);
    if (orca_check_pedestrian(s, &p) != ORCA_OK) {
        return refuse_checked(s, "snapshot pedestrian section");
    }
    if (t->density_on) {
        return orca_fail(s, ORCA_ERR_FORMAT,
                         "snapshot: it has both the density section and the pedestrian section; "
                         "the two cannot be on together");
    }
    t->ped = p;
    t->ped_on = 1;
    return ORCA_OK;
}

/* The stream section: each agent's stream, -1 (none) or >= 0. orca_sim_save writes it only
 * while some agent has one >= 0, so a section of -1 alone is refused (every snapshot loaded
 * saves back to the same bytes). */
static orca_status get_streams(orca_sim *s, orca_sim *t, snap_reader *r, uint32_t na)
{
    t->stream = orca_mem_alloc((size_t)t->agent_capacity, sizeof *t->stream);
    if (!t->stream) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory reading the streams");
    }
    for (int32_t i = 0; i < (int32_t)na; ++i) {
        int32_t g = (int32_t)get_u32(r);
        if (g < -1) {
            return orca_fail(s, ORCA_ERR_FORMAT,
                             "snapshot agent %d: stream must be -1 (none) or >= 0, got %ld", i,
                             (long)g);
        }
        t->stream[i] = g;
        t->stream_count += g >= 0;
    }
    if (t->stream_count == 0) {
        return orca_fail(s, ORCA_ERR_FORMAT,
                         "snapshot: its stream section (flag 32) holds no stream >= 0 for its %u "
                         "agents; orca writes it only when some agent has one",
                         (unsigned)na);
    }
    return ORCA_OK;
}

/* Reads a snapshot into t (zeroed but for the free list heads), section by section in the
 * format's order; s only gets the messages (and lends the agents' search hints). */
static orca_status load_into(orca_sim *s, orca_sim *t, const unsigned char *bytes, size_t size)
{
    snap_header h;
    memset(&h, 0, sizeof h);
    snap_reader r;
    orca_status st = get_header(s, bytes, size, &r, &h);
    if (st == ORCA_OK) {
        st = get_agents(s, t, &r, &h);
    }
    if (st == ORCA_OK) {
        st = get_segments(s, t, &r, &h);
    }
    if (st == ORCA_OK && h.ext) {
        st = get_avoidance(s, t, &r, h.na);
    }
    if (st == ORCA_OK && h.bnd) {
        st = get_boundaries(s, t, &r, &h);
    }
    if (st == ORCA_OK && h.den) {
        st = get_density(s, t, &r);
    }
    if (st == ORCA_OK && h.ped) {
        st = get_pedestrian(s, t, &r);
    }
    if (st == ORCA_OK && h.str) {
        st = get_streams(s, t, &r, h.na);
    }
    if (st != ORCA_OK) {
        return st;
    }
    t->steps = h.steps;
    t->separation = h.sep;
    return ORCA_OK;
}

orca_status orca_sim_load_stage(orca_sim *s, const void *buffer, size_t size, orca_sim **staged)
{
    *staged = NULL;
    orca_clear_error(s);
    if (!buffer) {
        return orca_fail(s, ORCA_ERR_NULL, "snapshot buffer is NULL");
    }
    orca_sim *t = orca_mem_zalloc(1, sizeof *t);
    if (!t) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory reading a snapshot");
    }
    t->agent_slots.free_head = -1;
    t->segment_slots.free_head = -1;
    orca_status st = load_into(s, t, buffer, size);
    if (st != ORCA_OK) {
        orca_sim_load_finish(s, t, 0);
        return st;
    }
    *staged = t;
    return ORCA_OK;
}

void orca_sim_load_finish(orca_sim *s, orca_sim *t, int commit)
{
    if (!t) {
        return;
    }
    if (commit) {
        /* The grid's arrays are scratch (rebuilt by the next step): at the same capacity the
         * ones already in use are kept rather than the new ones, whose pages the first step
         * would fault in. */
        swap_state(s, t, s->agent_capacity != t->agent_capacity);
    }
    /* t now holds whichever state is discarded */
    orca_free_agent_arrays(t);
    orca_mem_free(t->seg_a);
    orca_mem_free(t->seg_b);
    orca_mem_free(t->segment_slot);
    orca_mem_free(t->seg_dead);
    orca_slots_free(&t->agent_slots);
    orca_slots_free(&t->segment_slots);
    orca_boundary_free(t->bnd);
    orca_mem_free(t);
}

orca_status orca_sim_load(orca_sim *s, const void *buffer, size_t size)
{
    if (!s) {
        return ORCA_ERR_NULL;
    }
    orca_sim *t = NULL;
    orca_status st = orca_sim_load_stage(s, buffer, size, &t);
    if (st == ORCA_OK) {
        orca_sim_load_finish(s, t, 1);
    }
    return st;
}
