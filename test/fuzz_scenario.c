/* SPDX-License-Identifier: MIT */
/* Scenario snapshot fuzzer: bytes for orca_scenario_load (docs/scenarios.md, "Snapshots").
 * Input: one control byte, then the snapshot bytes. A scenario snapshot embeds the
 * simulation's snapshot (its own FNV-1a checksum in its last 8 bytes) and ends in the FNV-1a
 * checksum of every byte before it; on 3 inputs of 4 (control byte & 3 != 0) the harness
 * first writes both checksums (the inner one where the header's size field puts it), so that
 * the parser's deeper checks are reached.
 *
 * On inputs whose control byte has bit 7 set, an allocation of the load fails (the k-th, k
 * from bits 4..6; bit 2: every one from it on), through orca_set_allocator's hooks.
 *
 * Checked: no crash or sanitizer report; a refused load leaves the receiving scenario (which
 * holds a small navigated scene) as it was (its hash and its simulation's) with a message and
 * ORCA_ERR_FORMAT (ORCA_ERR_MEMORY when, and only when, an allocation failed); an accepted
 * load saves to bytes that load to the same hashes in a fresh scenario with three workers, and
 * the two step on with the same hashes, every position within |x|,|y| < 2^21.
 * Built as a libFuzzer target or with test/fuzz_driver.c (test/fuzz.h); the driver's inputs
 * are snapshots of small scenarios with walls, navigation, goal sets, exits and waypoints
 * (half of them with the pedestrian preset: the model and the goal-set agents' streams), with
 * mutations aimed at the format's fields. */
#include <orca/orca.h>

#include "fuzz.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 164    /* the scenario header before the simulation's snapshot */
#define SIM_SIZE_AT 24 /* where the header holds that snapshot's size (u64) */

static void violation(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fuzz_vviolation("fuzz_scenario", fmt, ap);
}

/* Writes the inner (simulation) checksum where the header says it is, then the outer one. */
static void fix_checksums(unsigned char *p, size_t n)
{
    if (n >= HEADER) {
        uint64_t s = fuzz_get64(p + SIM_SIZE_AT);
        if (s >= 8 && s <= n - HEADER) {
            fuzz_seal(p + HEADER, (size_t)s);
        }
    }
    fuzz_seal(p, n);
}

/* A walled room split by a wall with a door, navigation on, a goal set that is an exit, a
 * point goal behind the wall, and one agent with waypoints; with ped the pedestrian preset
 * before the agents (docs/pedestrians.md: the goal-set agents get streams). */
static orca_scenario *scene(int workers, int agents, uint64_t seed, int ped)
{
    orca_scenario *sc = NULL;
    if (orca_scenario_create(NULL, 0.25, seed, &sc) != ORCA_OK) {
        violation("orca_scenario_create failed");
    }
    orca_sim *s = orca_scenario_sim(sc);
    orca_vec2 room[4] = {{0, 0}, {20, 0}, {20, 12}, {0, 12}};
    orca_vec2 exit[1] = {{19, 2}};
    orca_vec2 wp[2] = {{4, 10}, {8, 10}};
    int set = -1;
    if (orca_sim_set_worker_count(s, workers) != ORCA_OK ||
        orca_sim_add_boundary(s, room, 4, NULL) != ORCA_OK ||
        orca_sim_add_segment(s, (orca_vec2){10, 0}, (orca_vec2){10, 5}, NULL) != ORCA_OK ||
        orca_sim_add_segment(s, (orca_vec2){10, 6.5}, (orca_vec2){10, 12}, NULL) != ORCA_OK ||
        orca_scenario_add_goal_set(sc, "out", exit, 1, &set) != ORCA_OK ||
        orca_scenario_set_goal_set_exit(sc, set, 0.5) != ORCA_OK ||
        orca_scenario_set_navigation(sc, 1) != ORCA_OK) {
        violation("building the scene failed: %s", orca_scenario_last_error(sc));
    }
    orca_pedestrian p = orca_pedestrian_default();
    if (ped && orca_scenario_set_pedestrian(sc, &p) != ORCA_OK) {
        violation("the pedestrian preset failed: %s", orca_scenario_last_error(sc));
    }
    for (int k = 0; k < agents; ++k) {
        orca_agent_def d = orca_agent_def_default();
        d.radius = 0.3;
        d.position = (orca_vec2){1.5 + (k % 4) * 1.5, 1.5 + (k / 4) * 1.5};
        orca_goal g = orca_goal_default();
        if (k % 3 == 0) {
            g.kind = ORCA_GOAL_SET;
            g.goal_set = set;
        } else {
            g.kind = ORCA_GOAL_POINT;
            g.target = (orca_vec2){15 + (k % 3), 9};
        }
        if (orca_scenario_add_agent(sc, &d, &g, NULL) != ORCA_OK) {
            violation("adding agent %d failed: %s", k, orca_scenario_last_error(sc));
        }
    }
    if (agents > 2 && orca_scenario_set_waypoints(sc, 2, wp, 2, 0, 0.0) != ORCA_OK) {
        violation("waypoints refused: %s", orca_scenario_last_error(sc));
    }
    return sc;
}

static unsigned char *save(const orca_scenario *sc, size_t *size)
{
    if (orca_scenario_save(sc, NULL, 0, size) != ORCA_OK) {
        violation("orca_scenario_save size query failed: %s", orca_scenario_last_error(sc));
    }
    unsigned char *b = malloc(*size ? *size : 1);
    if (!b) {
        abort();
    }
    if (orca_scenario_save(sc, b, *size, size) != ORCA_OK) {
        violation("orca_scenario_save failed: %s", orca_scenario_last_error(sc));
    }
    return b;
}

static void check_positions(const orca_scenario *sc)
{
    const orca_sim *s = orca_scenario_sim((orca_scenario *)sc);
    const orca_vec2 *p = orca_sim_positions(s);
    for (int i = 0; i < orca_sim_agent_count(s); ++i) {
        if (!(fabs(p[i].x) < ORCA_COORD_LIMIT && fabs(p[i].y) < ORCA_COORD_LIMIT)) {
            violation("agent %d is at (%.17g, %.17g) after a step", i, p[i].x, p[i].y);
        }
    }
}

static fuzz_injector g_inj;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned control;
    size_t n;
    unsigned char *buf = fuzz_snapshot_input(&g_inj, "fuzz_scenario", data, size, &control, &n);
    if (!buf) {
        return 0;
    }
    if (control & 3) {
        fix_checksums(buf, n);
    }
    orca_scenario *sc = scene(1, 5, 9, 0);
    if (orca_scenario_step(sc) != ORCA_OK) {
        violation("the receiving scene's step failed: %s", orca_scenario_last_error(sc));
    }
    uint64_t h0 = orca_scenario_hash(sc), s0 = orca_sim_hash(orca_scenario_sim(sc));
    fuzz_arm(&g_inj, control);
    orca_status st = orca_scenario_load(sc, buf, n);
    g_inj.armed = 0;
    fuzz_check_load_status(&g_inj, "fuzz_scenario", st, orca_scenario_last_error(sc));
    if (st != ORCA_OK) {
        if (orca_scenario_hash(sc) != h0 || orca_sim_hash(orca_scenario_sim(sc)) != s0) {
            violation("a refused load (%s) changed the scenario", orca_scenario_last_error(sc));
        }
        /* it still steps as before */
        if (orca_scenario_step(sc) != ORCA_OK) {
            violation("the scenario does not step after a refused load: %s",
                      orca_scenario_last_error(sc));
        }
        orca_scenario_destroy(sc);
        free(buf);
        return 0;
    }
    /* accepted: its save loads to the same state in a fresh scenario with three workers */
    size_t n2;
    unsigned char *again = save(sc, &n2);
    orca_scenario *t = NULL;
    if (orca_scenario_create(NULL, 1.0, 1, &t) != ORCA_OK ||
        orca_sim_set_worker_count(orca_scenario_sim(t), 3) != ORCA_OK) {
        violation("creating a fresh scenario failed");
    }
    if (orca_scenario_load(t, again, n2) != ORCA_OK) {
        violation("the accepted snapshot's save does not load: %s", orca_scenario_last_error(t));
    }
    free(again);
    for (int k = 0; k < 4; ++k) {
        if (orca_scenario_hash(t) != orca_scenario_hash(sc) ||
            orca_sim_hash(orca_scenario_sim(t)) != orca_sim_hash(orca_scenario_sim(sc))) {
            violation("after %d steps the loaded copy (three workers) differs from the scenario",
                      k);
        }
        orca_status a = orca_scenario_step(sc), b = orca_scenario_step(t);
        if (a != b) {
            violation("a step gave %s with one worker and %s with three", orca_status_name(a),
                      orca_status_name(b));
        }
        if (a != ORCA_OK) {
            break;
        }
        check_positions(sc);
    }
    orca_scenario_destroy(t);
    orca_scenario_destroy(sc);
    free(buf);
    return 0;
}

#ifndef ORCA_LIBFUZZER
/* The driver's inputs: the snapshot of the scene above (2 to 9 agents, 0 to 40 steps: plans,
 * corners passed, agents gone by the exit; the pedestrian preset on half of them), with
 * mutations aimed at its fields. */

static uint64_t below(uint64_t n)
{
    return fuzz_rand() % n;
}

static const double EDGE[] = {0.0, -0.0, 0x1p-1074, 0x1p-30, 0x1.fffffffffffffp-31, 0x1p23,
                              0x1.0000000000001p23, 0x1p30, 0x1.0000000000001p30, 0x1p21,
                              0x1.fffffffffffffp20, -0x1p21, 1e300, 1.7976931348623157e308,
                              INFINITY, -INFINITY, NAN, -1.0, 0.5, 2.0};

size_t fuzz_generate(uint8_t *out, size_t cap)
{
    int ped = (int)below(2);
    orca_scenario *sc = scene(1, 2 + (int)below(8), fuzz_rand(), ped);
    for (int k = (int)below(41); k > 0; --k) {
        orca_scenario_step(sc);
    }
    size_t n;
    if (orca_scenario_save(sc, NULL, 0, &n) != ORCA_OK || n + 1 + 64 > cap) {
        orca_scenario_destroy(sc);
        return 0;
    }
    unsigned char *p = out + 1;
    orca_scenario_save(sc, p, n, &n);
    orca_scenario_destroy(sc);
    size_t body = HEADER + (size_t)fuzz_get64(p + SIM_SIZE_AT); /* the goal sets and entries */
    for (int m = (int)below(4); m >= 0; --m) {
        switch (below(9)) {
        case 0: /* a byte anywhere */
            p[below(n)] ^= (unsigned char)(1 + below(255));
            break;
        case 1: { /* a header word */
            static const uint32_t V[] = {0, 1, 2, 3, 8, 16, 0xffffffffu, 0x7fffffffu,
                                         0x1fffffffu, 0x20000000u};
            fuzz_put32(p + 8 + 4 * (size_t)below((HEADER - 8) / 4), V[below(10)]);
            break;
        }
        case 2: { /* a header size or count: near its value, or any small one */
            size_t at = 16 + 8 * (size_t)below(2);
            fuzz_put64(p + at, below(2) ? fuzz_get64(p + at) + below(3) - 1 : (uint64_t)below(1u << 20));
            break;
        }
        case 3: /* a double after the simulation's snapshot */
        case 4:
            if (body + 16 < n) {
                size_t at = body + (size_t)below(n - body - 16);
                double x = EDGE[below(sizeof EDGE / sizeof EDGE[0])];
                uint64_t u;
                memcpy(&u, &x, sizeof u);
                fuzz_put64(p + at, u);
            }
            break;
        case 5: /* a word after the simulation's snapshot */
            if (body + 12 < n) {
                static const uint32_t V[] = {0, 1, 2, 3, 4, 5, 7, 0xffffffffu, 0x10000u, 0x10001u,
                                             0x100000u, 0x100001u};
                fuzz_put32(p + body + below(n - body - 12), V[below(12)]);
            }
            break;
        case 6: /* truncate or extend */
            if (below(2)) {
                n -= (size_t)below(n < 64 ? n : 64);
            } else {
                size_t more = (size_t)below(64);
                for (size_t k = 0; k < more; ++k) {
                    p[n + k] = (unsigned char)fuzz_rand();
                }
                n += more;
            }
            break;
        case 7: /* a word of the simulation snapshot's end: its streams, pedestrian section */
            if (ped && body <= n && body >= HEADER + 8 + 64) {
                static const uint32_t V[] = {0xffffffffu, 0xfffffffeu, 0x80000000u, 0, 1, 5,
                                             1024, 1025};
                fuzz_put32(p + body - 12 - 4 * (size_t)below(16), V[below(8)]);
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
        out[0] &= 0xfc; /* checksums left as they are */
    }
    return n + 1;
}
#endif
