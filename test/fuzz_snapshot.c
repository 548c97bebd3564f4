/* SPDX-License-Identifier: MIT */
/* Snapshot fuzzer (issue 12): bytes for orca_sim_load. Input: one control byte, then the
 * snapshot bytes. A snapshot ends in the FNV-1a 64 checksum of all bytes before it
 * (little-endian; orca_sim_save), so that almost every mutation dies at the checksum: on 3 of
 * 4 inputs (control byte & 3 != 0) the harness first writes the right checksum over the last
 * 8 bytes, so the parser's deeper checks are reached.
 *
 * On inputs whose control byte has bit 7 set, an allocation of the load fails (the k-th, k from
 * bits 4..6; bit 2: every one from it on), through orca_set_allocator's hooks.
 *
 * Checked: no crash or sanitizer report; a refused load leaves the simulation (which holds a
 * small scene) as it was (hash, handles) with a non-empty message and ORCA_ERR_FORMAT (or
 * ORCA_ERR_MEMORY when an allocation failed, and only then); an
 * accepted load holds only documented-valid values (the pedestrian model's parameters and the
 * agents' streams included, never with the density-dependent speed), its handles map to their
 * indices, it saves
 * to the same bytes (but the header's unused word and the checksum) which load again to the same
 * hash in a fresh simulation, and it can be changed (agents and segments added and removed
 * through the loaded slot tables), queried and stepped (one worker and three the same; after a
 * successful step every position within |x|,|y| < 2^21 and every velocity component within
 * ORCA_VELOCITY_LIMIT).
 * Built as a libFuzzer target or with test/fuzz_driver.c (test/fuzz.h); the driver's inputs
 * are snapshots of small built-in scenes with mutations aimed at the format's fields. */
#include <orca/orca.h>

#include "fuzz.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 48
#define SLOT 12
#define AGENT 96
#define SEGMENT 36

static void violation(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fuzz_vviolation("fuzz_snapshot", fmt, ap);
}

static int is_finite(double x)
{
    return x - x == 0;
}

static int coord_ok(orca_vec2 p)
{
    return is_finite(p.x) && fabs(p.x) < ORCA_COORD_LIMIT && is_finite(p.y) &&
           fabs(p.y) < ORCA_COORD_LIMIT;
}

static int in_range(double x, double lo, double hi)
{
    return x >= lo && x <= hi; /* false for NaN */
}

static int vel_ok(orca_vec2 v)
{
    return fabs(v.x) <= ORCA_VELOCITY_LIMIT && fabs(v.y) <= ORCA_VELOCITY_LIMIT;
}

static orca_sim *new_sim(int workers)
{
    orca_sim_def d = orca_sim_def_default();
    d.worker_count = workers;
    orca_sim *s = NULL;
    if (orca_sim_create(&d, &s) != ORCA_OK) {
        violation("orca_sim_create(%d workers) failed", workers);
    }
    return s;
}

static unsigned char *save(const orca_sim *s, size_t *size)
{
    if (orca_sim_save(s, NULL, 0, size) != ORCA_OK) {
        violation("orca_sim_save size query failed: %s", orca_sim_last_error(s));
    }
    unsigned char *b = malloc(*size);
    if (!b) {
        abort();
    }
    if (orca_sim_save(s, b, *size, size) != ORCA_OK) {
        violation("orca_sim_save failed: %s", orca_sim_last_error(s));
    }
    return b;
}

/* Handles and indices agree in both directions. */
static void check_handles(const orca_sim *s)
{
    int n = orca_sim_agent_count(s), m = orca_sim_segment_count(s);
    for (int i = 0; i < n; ++i) {
        orca_agent_id id = orca_sim_agent_at(s, i);
        if (id.generation == 0 || orca_sim_agent_index(s, id) != i) {
            violation("agent %d's handle {%u, %u} maps to %d", i, (unsigned)id.slot,
                      (unsigned)id.generation, orca_sim_agent_index(s, id));
        }
    }
    for (int k = 0; k < m; ++k) {
        orca_segment_id id = orca_sim_segment_at(s, k);
        orca_vec2 a, b;
        if (id.generation == 0 || orca_segment_get(s, id, &a, &b) != ORCA_OK) {
            violation("segment %d's handle {%u, %u} is not live", k, (unsigned)id.slot,
                      (unsigned)id.generation);
        }
    }
}

/* Every value the simulation holds is in its documented range. */
static void check_values(const orca_sim *s)
{
    int n = orca_sim_agent_count(s), m = orca_sim_segment_count(s);
    for (int i = 0; i < n; ++i) {
        orca_agent_def d;
        if (orca_agent_get(s, orca_sim_agent_at(s, i), &d) != ORCA_OK) {
            violation("orca_agent_get of agent %d failed", i);
        }
        if (!(coord_ok(d.position) && vel_ok(d.velocity) && vel_ok(d.preferred_velocity) &&
              in_range(d.radius, ORCA_RADIUS_MIN, ORCA_RADIUS_MAX) &&
              in_range(d.max_speed, 0, ORCA_SPEED_MAX) &&
              in_range(d.neighbor_dist, 0, ORCA_NEIGHBOR_DIST_MAX) && d.max_neighbors >= 0 &&
              d.max_neighbors <= ORCA_MAX_NEIGHBORS_LIMIT &&
              in_range(d.time_horizon, ORCA_TIME_MIN, ORCA_TIME_MAX) &&
              in_range(d.obstacle_time_horizon, ORCA_TIME_MIN, ORCA_TIME_MAX))) {
            violation("agent %d holds an invalid value (position %.17g %.17g, radius %.17g, "
                      "max_speed %.17g, neighbor_dist %.17g, max_neighbors %d, horizons %.17g %.17g)",
                      i, d.position.x, d.position.y, d.radius, d.max_speed, d.neighbor_dist,
                      d.max_neighbors, d.time_horizon, d.obstacle_time_horizon);
        }
    }
    for (int k = 0; k < m; ++k) {
        orca_vec2 a, b;
        orca_segment_get(s, orca_sim_segment_at(s, k), &a, &b);
        if (!coord_ok(a) || !coord_ok(b)) {
            violation("segment %d has an end outside |x|,|y| < 2^21", k);
        }
    }
    orca_pedestrian p;
    if (orca_sim_get_pedestrian(s, &p) &&
        (!in_range(p.time_gap, ORCA_PED_TIME_GAP_MIN, ORCA_PED_TIME_GAP_MAX) ||
         !in_range(p.buffer, 0, ORCA_PED_BUFFER_MAX) ||
         !in_range(p.counter_reach, 0, ORCA_PED_COUNTER_REACH_MAX) || p.max_planes < 1 ||
         p.max_planes > ORCA_MAX_NEIGHBORS_LIMIT || orca_sim_get_density_speed(s, NULL))) {
        violation("the pedestrian model holds an invalid value (%.17g, %.17g, %.17g, %d) or "
                  "is on with the density-dependent speed",
                  p.time_gap, p.buffer, p.counter_reach, p.max_planes);
    }
    for (int i = 0; i < n; ++i) {
        int32_t g = -7;
        if (orca_agent_get_stream(s, orca_sim_agent_at(s, i), &g) != ORCA_OK || g < -1) {
            violation("agent %d holds the stream %d", i, (int)g);
        }
    }
}


static void check_step(orca_sim *s, orca_sim *t, double dt)
{
    uint64_t h0 = orca_sim_hash(s);
    orca_status st = orca_sim_step(s, dt);
    orca_status su = orca_sim_step(t, dt);
    if (st != su || orca_sim_hash(s) != orca_sim_hash(t)) {
        violation("one worker (%s) and three workers (%s) differ after a step",
                  orca_status_name(st), orca_status_name(su));
    }
    if (st != ORCA_OK) {
        if (orca_sim_hash(s) != h0 || !orca_sim_last_error(s)[0]) {
            violation("a refused step changed the state or gave no message");
        }
        return;
    }
    for (int i = 0; i < orca_sim_agent_count(s); ++i) {
        orca_agent_def d;
        orca_agent_get(s, orca_sim_agent_at(s, i), &d);
        if (!coord_ok(d.position) || !vel_ok(d.velocity)) {
            violation("after a step agent %d is at (%.17g, %.17g) with velocity (%.17g, %.17g)", i,
                      d.position.x, d.position.y, d.velocity.x, d.velocity.y);
        }
    }
}

/* Allocation failure during the load (control byte bit 7): the hooks fail the k-th allocation
 * (k = bits 4..6), or every one from it on (bit 2). */
static fuzz_injector g_inj;

/* The simulation that receives the bytes holds this scene first. */
static void prior_scene(orca_sim *s)
{
    orca_agent_def d = orca_agent_def_default();
    for (int k = 0; k < 3; ++k) {
        d.position.x = 3.0 * k;
        d.position.y = 1.0;
        d.preferred_velocity.x = 1.0;
        orca_sim_add_agent(s, &d, NULL);
    }
    orca_sim_add_segment(s, (orca_vec2){-5, 4}, (orca_vec2){5, 4}, NULL);
    orca_sim_remove_agent(s, orca_sim_agent_at(s, 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned control;
    size_t n;
    unsigned char *buf = fuzz_snapshot_input(&g_inj, "fuzz_snapshot", data, size, &control, &n);
    if (!buf) {
        return 0;
    }
    if (control & 3) {
        fuzz_seal(buf, n);
    }
    orca_sim *s = new_sim(1);
    prior_scene(s);
    uint64_t h0 = orca_sim_hash(s);
    orca_agent_id first = orca_sim_agent_at(s, 0);
    fuzz_arm(&g_inj, control);
    orca_status st = orca_sim_load(s, buf, n);
    g_inj.armed = 0;
    fuzz_check_load_status(&g_inj, "fuzz_snapshot", st, orca_sim_last_error(s));
    if (st != ORCA_OK) {
        if (orca_sim_hash(s) != h0 || orca_sim_agent_index(s, first) != 0 ||
            orca_sim_agent_count(s) != 2 || orca_sim_segment_count(s) != 1) {
            violation("a refused load (%s) changed the simulation", orca_sim_last_error(s));
        }
        orca_sim_destroy(s);
        free(buf);
        return 0;
    }
    check_values(s);
    check_handles(s);
    /* save(load(x)) is x but for the header's unused word (bytes 44..47) and the checksum */
    size_t n2;
    unsigned char *again = save(s, &n2);
    if (n2 != n || memcmp(again, buf, 44) != 0 ||
        (n > HEADER + 8 && memcmp(again + HEADER, buf + HEADER, n - HEADER - 8) != 0)) {
        violation("the accepted snapshot saves to other bytes (%zu -> %zu bytes)", n, n2);
    }
    orca_sim *t = new_sim(3);
    if (orca_sim_load(t, again, n2) != ORCA_OK || orca_sim_hash(t) != orca_sim_hash(s)) {
        violation("the snapshot saved after a load does not load to the same hash: %s",
                  orca_sim_last_error(t));
    }
    free(again);
    /* queries */
    double ao, wo;
    if (orca_sim_measure_overlap(s, &ao, &wo) != ORCA_OK || !(ao >= 0) || !(wo >= 0)) {
        violation("orca_sim_measure_overlap on the loaded state failed or gave %.17g %.17g", ao, wo);
    }
    if (orca_sim_agent_count(s) > 0) {
        int nb[8], sg[8], na = 0, ns = 0;
        orca_halfplane planes[8];
        int count = 0;
        if (orca_sim_agent_neighbors(s, orca_sim_agent_at(s, 0), nb, 8, &na, sg, 8, &ns) != ORCA_OK ||
            orca_sim_agent_constraints(s, orca_sim_agent_at(s, 0), 0.25, planes, 8, &count, NULL) !=
                ORCA_OK) {
            violation("a query on the loaded state failed: %s", orca_sim_last_error(s));
        }
    }
    /* steps, one worker against three */
    for (int k = 0; k < 3; ++k) {
        check_step(s, t, k == 1 ? 1.0 : 0.25);
    }
    /* the loaded slot tables in use: add, remove, add again */
    orca_agent_def d = orca_agent_def_default();
    d.position.x = 0.5 * (double)(control >> 2);
    for (int k = 0; k < 2; ++k) {
        orca_agent_id a, b;
        orca_status sa = orca_sim_add_agent(s, &d, &a), sb = orca_sim_add_agent(t, &d, &b);
        if (sa != ORCA_OK || sb != ORCA_OK || a.slot != b.slot || a.generation != b.generation) {
            violation("adding an agent after the load failed or gave different handles");
        }
        orca_segment_id g;
        if (orca_sim_add_segment(s, d.position, (orca_vec2){1, 1}, &g) != ORCA_OK ||
            orca_sim_add_segment(t, d.position, (orca_vec2){1, 1}, NULL) != ORCA_OK) {
            violation("adding a segment after the load failed");
        }
        orca_agent_id victim = orca_sim_agent_at(s, (int)(control % (unsigned)orca_sim_agent_count(s)));
        orca_agent_id tv = orca_sim_agent_at(t, orca_sim_agent_index(s, victim));
        if (orca_sim_remove_agent(s, victim) != ORCA_OK || orca_sim_remove_agent(t, tv) != ORCA_OK) {
            violation("removing a loaded agent failed");
        }
        orca_segment_id sv = orca_sim_segment_at(s, 0);
        orca_segment_id tsv = orca_sim_segment_at(t, 0);
        if (orca_sim_remove_segment(s, sv) != ORCA_OK || orca_sim_remove_segment(t, tsv) != ORCA_OK) {
            violation("removing a loaded segment failed");
        }
        check_handles(s);
        if (orca_sim_hash(s) != orca_sim_hash(t)) {
            violation("one and three workers differ after adds and removals");
        }
    }
    check_step(s, t, 0.25);
    orca_sim_destroy(t);
    orca_sim_destroy(s);
    free(buf);
    return 0;
}

#ifndef ORCA_LIBFUZZER
/* The driver's inputs: the snapshot of a small built-in scene (some agents and segments
 * removed, so that the slot tables have free lists; on half of them the pedestrian model and
 * some agents' streams), with mutations aimed at its fields. */

static uint64_t below(uint64_t n)
{
    return fuzz_rand() % n;
}

static const double EDGE[] = {0.0, -0.0, 0x1p-1074, 0x1p-1022, 1e-300, 0x1p-30,
                              0x1.fffffffffffffp-31, 0x1p23, 0x1.0000000000001p23,
                              0x1.0000000000001p30, 0x1p31, 0x1.0000000000001p31, 0x1p20,
                              0x1.fffffffffffffp20, 0x1p21, 0x1.0000000000001p21, -0x1p21, 0x1p30,
                              1e150, 1.44e163, 1e300, 1.7976931348623157e308, INFINITY, -INFINITY,
                              NAN, -1.0, 0.5, 2.0, 10.0};

size_t fuzz_generate(uint8_t *out, size_t cap)
{
    orca_scene_kind kind = (orca_scene_kind)below(ORCA_SCENE_COUNT);
    int agents = 2 + (int)below(14);
    orca_scenario *sc = NULL;
    if (orca_scenario_create_builtin(kind, agents, fuzz_rand(), NULL, &sc) != ORCA_OK) {
        return 0;
    }
    orca_sim *s = orca_scenario_sim(sc);
    for (int k = (int)below(4); k > 0; --k) {
        orca_scenario_step(sc);
    }
    for (int k = (int)below(4); k > 0 && orca_sim_agent_count(s) > 1; --k) {
        orca_sim_remove_agent(s, orca_sim_agent_at(s, (int)below((uint64_t)orca_sim_agent_count(s))));
    }
    for (int k = (int)below(3); k > 0 && orca_sim_segment_count(s) > 0; --k) {
        orca_sim_remove_segment(s, orca_sim_segment_at(s, (int)below((uint64_t)orca_sim_segment_count(s))));
    }
    int ped = (int)below(2);
    if (ped) {
        orca_pedestrian pp = orca_pedestrian_default();
        pp.time_gap = below(2) ? pp.time_gap : 0.25 * (double)(1 + below(8));
        pp.max_planes = below(2) ? pp.max_planes : 1 + (int)below(8);
        orca_sim_set_pedestrian(s, &pp);
        for (int i = 0; i < orca_sim_agent_count(s); ++i) {
            orca_agent_set_stream(s, orca_sim_agent_at(s, i), (int32_t)below(4) - 1);
        }
    }
    size_t n;
    if (orca_sim_save(s, NULL, 0, &n) != ORCA_OK || n + 1 + 64 > cap) {
        orca_scenario_destroy(sc);
        return 0;
    }
    unsigned char *p = out + 1;
    orca_sim_save(s, p, n, &n);
    orca_scenario_destroy(sc);
    uint32_t na = fuzz_get32(p + 20), nas = fuzz_get32(p + 24), ns = fuzz_get32(p + 32), nss = fuzz_get32(p + 36);
    size_t agents_at = HEADER + (size_t)nas * SLOT;
    size_t segs_at = agents_at + (size_t)na * AGENT + (size_t)nss * SLOT;
    int segs_fit = ns > 0 && segs_at + (size_t)ns * SEGMENT + 8 <= n;
    for (int m = (int)below(4); m >= 0; --m) {
        switch (below(10)) {
        case 0: /* a byte */
            p[below(n)] ^= (unsigned char)(1 + below(255));
            break;
        case 1: { /* a header word */
            static const uint32_t V[] = {0, 1, 2, 0xffffffffu, 0x7fffffffu, 0x40000000u, 0x40000001u,
                                         0x10000001u, 3, 16};
            size_t at = 8 + 4 * (size_t)below(10);
            uint32_t v = below(3) == 0 ? fuzz_get32(p + at) + (uint32_t)below(3) - 1u : V[below(10)];
            fuzz_put32(p + at, v);
            break;
        }
        case 2: { /* a slot table word */
            if (n < HEADER + SLOT + 8) {
                break;
            }
            size_t at = HEADER + 4 * (size_t)below((n - HEADER - 8) / 4);
            static const uint32_t V[] = {0, 1, 0xffffffffu, 0xfffffffeu, 0x7fffffffu, 2, 5};
            fuzz_put32(p + at, below(2) ? V[below(7)] : fuzz_get32(p + at) + 1u);
            break;
        }
        case 3: /* an agent's double */
        case 4:
            if (na > 0 && agents_at + (size_t)na * AGENT <= n) {
                size_t at = agents_at + (size_t)below(na) * AGENT + 4 + 8 * (size_t)below(11);
                double x = EDGE[below(sizeof EDGE / sizeof EDGE[0])];
                uint64_t u;
                memcpy(&u, &x, sizeof u);
                fuzz_put64(p + at, u);
            }
            break;
        case 5: /* an agent's max_neighbors */
            if (na > 0 && agents_at + (size_t)na * AGENT <= n) {
                static const uint32_t V[] = {0, 1, 1024, 1025, 0xffffffffu, 0x80000000u};
                fuzz_put32(p + agents_at + (size_t)below(na) * AGENT + 92, V[below(6)]);
            }
            break;
        case 6: /* truncate or extend */
            if (below(2)) {
                n -= (size_t)below(n < 16 ? n : 16);
            } else {
                size_t more = (size_t)below(64);
                for (size_t k = 0; k < more; ++k) {
                    p[n + k] = (unsigned char)fuzz_rand();
                }
                n += more;
            }
            break;
        case 8: /* an agent's or a segment's slot: another's, one past the table, anything */
            if (na > 0 && agents_at + (size_t)na * AGENT <= n && below(2)) {
                size_t at = agents_at + (size_t)below(na) * AGENT;
                uint32_t v[3] = {fuzz_get32(p + agents_at + (size_t)below(na) * AGENT), nas, (uint32_t)below(4)};
                fuzz_put32(p + at, v[below(3)]);
            } else if (segs_fit) {
                size_t at = segs_at + (size_t)below(ns) * SEGMENT;
                uint32_t v[3] = {fuzz_get32(p + segs_at + (size_t)below(ns) * SEGMENT), nss, (uint32_t)below(4)};
                fuzz_put32(p + at, v[below(3)]);
            }
            break;
        case 7: /* the pedestrian section's doubles and word, or a stream (the snapshot's end) */
            if (ped && n >= HEADER + 8 + 4) {
                size_t tail = n - 8, at = tail - 4 - 4 * (size_t)below(na + 8);
                if (at >= HEADER && below(2)) {
                    static const uint32_t V[] = {0xffffffffu, 0xfffffffeu, 0x80000000u, 0, 1, 1024,
                                                 1025};
                    fuzz_put32(p + at, V[below(7)]);
                } else if (at >= HEADER + 4) {
                    double x = EDGE[below(sizeof EDGE / sizeof EDGE[0])];
                    uint64_t u;
                    memcpy(&u, &x, sizeof u);
                    fuzz_put64(p + at - 4, u);
                }
            }
            break;
        case 9: /* a segment coordinate */
            if (segs_fit) {
                size_t at = segs_at + (size_t)below(ns) * SEGMENT + 4 + 8 * (size_t)below(4);
                double x = EDGE[below(sizeof EDGE / sizeof EDGE[0])];
                uint64_t u;
                memcpy(&u, &x, sizeof u);
                fuzz_put64(p + at, u);
            }
            break;
        default: /* a word anywhere */
            if (n >= 4) {
                fuzz_put32(p + below(n - 3), (uint32_t)fuzz_rand());
            }
            break;
        }
    }
    out[0] = (uint8_t)fuzz_rand();
    if (below(8) == 0) {
        out[0] &= 0xfc; /* checksum left as it is */
    }
    return n + 1;
}
#endif
