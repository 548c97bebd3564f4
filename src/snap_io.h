/* SPDX-License-Identifier: MIT */
/* Private: the byte layer of the snapshots (docs/determinism.md, "Snapshots"; the scenario's
 * in docs/scenarios.md, "Snapshots"): integers least significant byte first, doubles as
 * their IEEE-754 bit patterns, the FNV-1a checksum; the same bytes on every machine. Shared
 * by snapshot.c and scenario_snapshot.c (and the hash steps by the scenario's hash). Also the
 * two halves of orca_sim_load, for a caller that must check more than the simulation's bytes
 * before anything changes (orca_scenario_load). */
#ifndef ORCA_SNAP_IO_H
#define ORCA_SNAP_IO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "orca/sim.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static inline uint64_t f64_bits(double x)
{
    uint64_t v;
    memcpy(&v, &x, sizeof v);
    return v;
}

/* The state hash's section tags (docs/determinism.md): each section after the agents and
 * the walls starts with one. */
#define HASH_EXT_TAG 0x6f7263612d657874ull /* "orca-ext": the hash's extension section */
#define HASH_BND_TAG 0x6f7263612d626e64ull /* "orca-bnd": the hash's boundary section */
#define HASH_SEP_TAG 0x6f7263612d736570ull /* "orca-sep": the separation option is on */
#define HASH_DEN_TAG 0x6f7263612d64656eull /* "orca-den": the density-dependent speed is on */
#define HASH_PED_TAG 0x6f7263612d706564ull /* "orca-ped": the pedestrian model is on */
#define HASH_STR_TAG 0x6f7263612d737472ull /* "orca-str": some agent has a stream */

/* The state hash's steps (docs/determinism.md): FNV-1a over a value's bytes, most significant
 * first (independent of byte order); every NaN as 0x7ff8000000000000. */
static inline uint64_t hash_u64(uint64_t h, uint64_t v)
{
    for (int b = 56; b >= 0; b -= 8) {
        h ^= (v >> b) & 0xffu;
        h *= FNV_PRIME;
    }
    return h;
}

static inline uint64_t hash_f64(uint64_t h, double x)
{
    return hash_u64(h, x != x ? 0x7ff8000000000000ull : f64_bits(x));
}

static inline double bits_f64(uint64_t v)
{
    double x;
    memcpy(&x, &v, sizeof x);
    return x;
}

/* The hash's steps over bytes: hash_u64(h, v) is hash_bytes over hash_put_u64's 8 bytes. */
static inline unsigned char *hash_put_u64(unsigned char *p, uint64_t v)
{
    for (int b = 0; b < 8; ++b) {
        p[b] = (unsigned char)(v >> (56 - 8 * b));
    }
    return p + 8;
}

static inline uint64_t hash_bytes(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t k = 0; k < n; ++k) {
        h ^= p[k];
        h *= FNV_PRIME;
    }
    return h;
}

/* The state hash in parts (docs/determinism.md; the scenario's, docs/scenarios.md), for a
 * caller whose agents are not all in one simulation (orca on MPI): the hash's layout is
 * written once (orca_sim_hash_with, orca_sc_hash_with) and takes each per-agent part from
 * hash_agents, which gives every agent's bytes of the part (orca_sim_hash_bytes,
 * orca_sc_hash_bytes) in index order. The per-agent parts, in the order they enter: */
enum {
    HASH_CORE,     /* every agent: position, velocity, preferred velocity, parameters */
    HASH_EXT,      /* every agent's avoidance settings, while some are not the defaults */
    HASH_NAV,      /* with navigation on: each agent with a path state, its index first */
    HASH_NAV_CHOICE, /* with the leg check or an exit choice: each agent with a path state,
                        its index first, then its exit and the points it has left */
    HASH_WAYPOINT, /* each agent with waypoints: its index, then its current target */
    HASH_PARTS
};
#define HASH_SIM_BYTES 96 /* the most bytes one agent adds to HASH_CORE or HASH_EXT */

typedef struct hash_agents {
    /* h continued over every agent's bytes of part, in index order (an agent of HASH_NAV,
     * HASH_NAV_CHOICE or HASH_WAYPOINT with bytes: hash_u64 of its index, then its bytes) */
    uint64_t (*hash)(void *ctx, uint64_t h, int part);
    /* the agents the part counts: HASH_CORE all, HASH_EXT those not at the defaults,
     * HASH_WAYPOINT those with waypoints (HASH_NAV and HASH_NAV_CHOICE are not asked) */
    int64_t (*count)(void *ctx, int part);
    void *ctx;
} hash_agents;

/* orca_sim_hash with the agents' parts from agents (s gives the rest: walls, boundaries,
 * options). */
uint64_t orca_sim_hash_with(const orca_sim *s, const hash_agents *agents);
/* The state hash's sections of the simulation-wide options, in its order (NULL: off): the
 * separation option's tag, the density-dependent speed's, the pedestrian model's, each with
 * its parameters (orca on MPI hashes its run's options with it too). */
uint64_t orca_hash_options(uint64_t h, int separation, const orca_density_speed *density,
                           const orca_pedestrian *ped);
/* The bytes agent i (settled index) adds to part HASH_CORE or HASH_EXT (at most
 * HASH_SIM_BYTES); their count. */
size_t orca_sim_hash_bytes(const orca_sim *s, int32_t i, int part, unsigned char *out);

typedef struct snap_writer {
    unsigned char *p;
} snap_writer;

static inline void put_u32(snap_writer *w, uint32_t v)
{
    for (int b = 0; b < 4; ++b) {
        *w->p++ = (unsigned char)(v >> (8 * b));
    }
}

static inline void put_u64(snap_writer *w, uint64_t v)
{
    for (int b = 0; b < 8; ++b) {
        *w->p++ = (unsigned char)(v >> (8 * b));
    }
}

static inline void put_f64(snap_writer *w, double x)
{
    put_u64(w, f64_bits(x));
}

static inline void put_vec(snap_writer *w, orca_vec2 v)
{
    put_f64(w, v.x);
    put_f64(w, v.y);
}

typedef struct snap_reader {
    const unsigned char *p;
} snap_reader;

static inline uint32_t get_u32(snap_reader *r)
{
    uint32_t v = 0;
    for (int b = 0; b < 4; ++b) {
        v |= (uint32_t)*r->p++ << (8 * b);
    }
    return v;
}

static inline uint64_t get_u64(snap_reader *r)
{
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) {
        v |= (uint64_t)*r->p++ << (8 * b);
    }
    return v;
}

static inline orca_vec2 get_vec(snap_reader *r)
{
    orca_vec2 v;
    v.x = bits_f64(get_u64(r));
    v.y = bits_f64(get_u64(r));
    return v;
}

/* FNV-1a over n bytes: the snapshots' checksum. */
static inline uint64_t checksum(const unsigned char *p, size_t n)
{
    return hash_bytes(FNV_OFFSET, p, n);
}

/* orca_sim_load in two halves. The first checks the snapshot and builds its state apart
 * (messages and the status as orca_sim_load gives them, in sim's error; sim unchanged);
 * on ORCA_OK *staged holds it, and its walls may be read. The second puts the staged state
 * in (commit 1; this cannot fail) or drops it (commit 0), and frees what is left over. */
orca_status orca_sim_load_stage(orca_sim *sim, const void *buffer, size_t size,
                                orca_sim **staged);
void orca_sim_load_finish(orca_sim *sim, orca_sim *staged, int commit);

#endif
