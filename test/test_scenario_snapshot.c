/* SPDX-License-Identifier: MIT */
/* Scenario snapshots (docs/scenarios.md, "Snapshots"): a saved and loaded scenario steps to the
 * same bits as the one saved, with navigation, re-routing, goal sets, exits and waypoints in
 * use, in itself and in a fresh scenario, with 1 and 2 workers; every damaged snapshot is
 * refused with a message naming the field and changes nothing; allocation failures too. */
#include "orca/scenario.h"
#include "orca/sim.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static orca_agent_def walker(double x, double y)
{
    orca_agent_def d = orca_agent_def_default();
    d.radius = 0.3;
    d.max_speed = 1.5;
    d.neighbor_dist = 3;
    d.time_horizon = 2;
    d.obstacle_time_horizon = 1;
    d.position = vec(x, y);
    return d;
}

static orca_goal point_goal(double x, double y)
{
    orca_goal g = orca_goal_default();
    g.kind = ORCA_GOAL_POINT;
    g.target = vec(x, y);
    g.preferred_speed = 1.2;
    return g;
}

/* Two doors in the wall x = 0, the short one blocked by an agent that stands in it (so the
 * walkers re-route), walkers with point goals (one with looping waypoints, one with a route
 * of three), and walkers heading for a goal set "out" that is an exit, and one for a set
 * "back" that is not. Navigation on. */
static orca_status build_doors(orca_scenario *sc)
{
    orca_sim *sim = orca_scenario_sim(sc);
    orca_status st = ORCA_OK;
    st |= orca_sim_add_segment(sim, vec(0, -10), vec(0, -2.0), NULL);
    st |= orca_sim_add_segment(sim, vec(0, -0.8), vec(0, 3.4), NULL);
    st |= orca_sim_add_segment(sim, vec(0, 4.6), vec(0, 10), NULL);
    orca_vec2 out[2] = {vec(6, 2), vec(6, -4)};
    orca_vec2 back[1] = {vec(-7, 6)};
    int s_out = -1, s_back = -1;
    st |= orca_scenario_add_goal_set(sc, "out", out, 2, &s_out);
    st |= orca_scenario_add_goal_set(sc, "back", back, 1, &s_back);
    st |= orca_scenario_set_goal_set_exit(sc, s_out, 0.6);
    st |= orca_scenario_set_navigation(sc, 1);
    if (st != ORCA_OK) {
        return ORCA_ERR_ARGUMENT;
    }
    for (int k = 0; k < 6; ++k) {
        orca_agent_def d = walker(-5 - (k % 3), -1 + (k / 3) * 1.0);
        orca_goal g = point_goal(5, (k / 3) * 1.0);
        if (k >= 3) {
            g.kind = ORCA_GOAL_SET;
            g.goal_set = k == 5 ? s_back : s_out;
        }
        if ((st = orca_scenario_add_agent(sc, &d, &g, NULL)) != ORCA_OK) {
            return st;
        }
    }
    orca_agent_def b = walker(0, -1.4); /* the blocker */
    b.radius = 0.55;
    b.max_speed = 0;
    orca_goal none = orca_goal_default();
    if ((st = orca_scenario_add_agent(sc, &b, &none, NULL)) != ORCA_OK) {
        return st;
    }
    orca_vec2 loop[2] = {vec(-3, -6), vec(-6, -6)};
    orca_vec2 route[3] = {vec(-4, 7), vec(3, 7), vec(4, 5)};
    st |= orca_scenario_set_waypoints(sc, 0, loop, 2, 1, 0.5);
    st |= orca_scenario_set_waypoints(sc, 1, route, 3, 0, 0);
    return st == ORCA_OK ? ORCA_OK : ORCA_ERR_ARGUMENT;
}

/* A ring corridor (walkable-area loops) walked by six agents. */
static orca_status build_ring(orca_scenario *sc)
{
    orca_sim *sim = orca_scenario_sim(sc);
    orca_vec2 outer[4] = {vec(0, 0), vec(20, 0), vec(20, 20), vec(0, 20)};
    orca_vec2 inner[4] = {vec(6, 6), vec(6, 14), vec(14, 14), vec(14, 6)};
    orca_status st = orca_sim_add_boundary(sim, outer, 4, NULL);
    st |= orca_sim_add_boundary(sim, inner, 4, NULL);
    st |= orca_scenario_set_navigation(sc, 1);
    for (int k = 0; k < 6 && st == ORCA_OK; ++k) {
        orca_agent_def d = walker(2 + (k % 3) * 1.0, 2 + (k / 3) * 1.0);
        orca_goal g = point_goal(17 + (k % 3) * 1.0, 17 + (k / 3) * 1.0 - 1);
        st = orca_scenario_add_agent(sc, &d, &g, NULL);
    }
    return st == ORCA_OK ? ORCA_OK : ORCA_ERR_ARGUMENT;
}

static orca_status build_plain(orca_scenario *sc)
{
    for (int k = 0; k < 8; ++k) {
        orca_agent_def d = walker(k * 1.0, 0);
        orca_goal g = point_goal(7 - k * 1.0, 3);
        orca_status st = orca_scenario_add_agent(sc, &d, &g, NULL);
        if (st != ORCA_OK) {
            return st;
        }
    }
    return ORCA_OK;
}

typedef orca_status (*builder)(orca_scenario *sc);

/* The doors with the leg check and the quickest exit choice (their state in the snapshot). */
static orca_status build_doors_quickest(orca_scenario *sc)
{
    orca_status st = build_doors(sc);
    st |= orca_scenario_set_nav_check(sc, 1);
    st |= orca_scenario_set_exit_choice(sc, ORCA_EXIT_QUICKEST);
    st |= orca_scenario_set_goal_set_capacity(sc, 0, 0.75);
    return st == ORCA_OK ? ORCA_OK : ORCA_ERR_ARGUMENT;
}

static orca_scenario *make(builder b, int workers)
{
    orca_scenario *sc = NULL;
    if (orca_scenario_create(NULL, 0.1, 5, &sc) != ORCA_OK) {
        return NULL;
    }
    if (orca_sim_set_worker_count(orca_scenario_sim(sc), workers) != ORCA_OK ||
        (b && b(sc) != ORCA_OK)) {
        orca_scenario_destroy(sc);
        return NULL;
    }
    return sc;
}

static unsigned char *save(orca_scenario *sc, size_t *size)
{
    if (orca_scenario_save(sc, NULL, 0, size) != ORCA_OK) {
        return NULL;
    }
    unsigned char *b = malloc(*size);
    if (b && orca_scenario_save(sc, b, *size, size) != ORCA_OK) {
        free(b);
        return NULL;
    }
    return b;
}

#define STEPS_MAX 400

/* Steps m times, recording both hashes after each step. */
static int run(orca_scenario *sc, int m, uint64_t *hs, uint64_t *hm)
{
    for (int s = 0; s < m; ++s) {
        ENSURE_MSG(orca_scenario_step(sc) == ORCA_OK, "%s", orca_scenario_last_error(sc));
        hs[s] = orca_scenario_hash(sc);
        hm[s] = orca_sim_hash(orca_scenario_sim(sc));
    }
    return 0;
}

static int same_run(orca_scenario *sc, int m, const uint64_t *hs, const uint64_t *hm)
{
    for (int s = 0; s < m; ++s) {
        ENSURE_MSG(orca_scenario_step(sc) == ORCA_OK, "%s", orca_scenario_last_error(sc));
        ENSURE_MSG(orca_scenario_hash(sc) == hs[s], "step %d after the load: scenario hash", s);
        ENSURE_MSG(orca_sim_hash(orca_scenario_sim(sc)) == hm[s], "step %d: sim hash", s);
    }
    return 0;
}

/* Save after k steps (and with add_wall a new wall after them), step m, load, step m again:
 * the same hashes; a fresh scenario (other dt, seed, worker count) loads it to the same; saving
 * a loaded scenario gives the same bytes. */
static int roundtrip(builder b, int k, int m, int workers, int add_wall)
{
    static uint64_t hs[STEPS_MAX], hm[STEPS_MAX];
    orca_scenario *sc = make(b, workers);
    ENSURE(sc && m <= STEPS_MAX);
    for (int s = 0; s < k; ++s) {
        ENSURE_MSG(orca_scenario_step(sc) == ORCA_OK, "%s", orca_scenario_last_error(sc));
    }
    if (add_wall) {
        ENSURE(orca_sim_add_segment(orca_scenario_sim(sc), vec(14, 3), vec(20, 3), NULL) ==
               ORCA_OK);
    }
    uint64_t h0 = orca_scenario_hash(sc);
    size_t size = 0;
    unsigned char *bytes = save(sc, &size);
    ENSURE(bytes);
    ENSURE(run(sc, m, hs, hm) == 0);
    ENSURE(orca_scenario_load(sc, bytes, size) == ORCA_OK);
    ENSURE(orca_scenario_hash(sc) == h0);
    size_t size2 = 0;
    unsigned char *again = save(sc, &size2);
    ENSURE(again && size2 == size && memcmp(again, bytes, size) == 0);
    free(again);
    ENSURE(same_run(sc, m, hs, hm) == 0);
    int exited = 0, exited2 = 0;
    int64_t last = 0, last2 = 0;
    orca_scenario_exited(sc, &exited, &last);
    orca_scenario *f = NULL;
    ENSURE(orca_scenario_create(NULL, 0.5, 99, &f) == ORCA_OK);
    ENSURE(orca_sim_set_worker_count(orca_scenario_sim(f), 3 - workers) == ORCA_OK);
    ENSURE(orca_scenario_load(f, bytes, size) == ORCA_OK);
    ENSURE(orca_scenario_hash(f) == h0);
    ENSURE(orca_scenario_dt(f) == 0.1 && orca_scenario_seed(f) == 5);
    ENSURE(same_run(f, m, hs, hm) == 0);
    orca_scenario_exited(f, &exited2, &last2);
    ENSURE(exited == exited2 && last == last2);
    ENSURE(orca_scenario_all_arrived_step(f) == orca_scenario_all_arrived_step(sc));
    ENSURE_BITS(orca_scenario_max_agent_overlap(f), orca_scenario_max_agent_overlap(sc));
    ENSURE(orca_scenario_fallback_total(f) == orca_scenario_fallback_total(sc));
    /* the loaded agents' handles name them in the fresh scenario */
    orca_sim *fs = orca_scenario_sim(f);
    if (orca_sim_agent_count(fs) > 0) {
        orca_goal g;
        ENSURE(orca_scenario_agent_goal(f, 0, &g, NULL) == ORCA_OK);
        orca_vec2 p;
        ENSURE(orca_agent_get_position(fs, orca_sim_agent_at(fs, 0), &p) == ORCA_OK);
    }
    orca_scenario_destroy(f);
    orca_scenario_destroy(sc);
    free(bytes);
    return 0;
}

static int test_navigation_roundtrip(void)
{
    for (int workers = 1; workers <= 2; ++workers) {
        ENSURE(roundtrip(build_doors, 1, 200, workers, 0) == 0);
        ENSURE(roundtrip(build_doors, 45, 300, workers, 0) == 0); /* stuck at the blocker */
        ENSURE(roundtrip(build_doors, 120, 250, workers, 0) == 0);
        ENSURE(roundtrip(build_ring, 20, 200, workers, 1) == 0); /* walls just changed */
        ENSURE(roundtrip(build_ring, 20, 100, workers, 0) == 0);
        ENSURE(roundtrip(build_doors_quickest, 60, 250, workers, 0) == 0);
    }
    /* the doors scene re-routes and lets agents out within those steps */
    orca_scenario *sc = make(build_doors, 1);
    ENSURE(sc);
    for (int s = 0; s < 400; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    int exited = 0;
    orca_scenario_exited(sc, &exited, NULL);
    orca_nav_agent na;
    int reroutes = 0;
    for (int i = 0; i < orca_sim_agent_count(orca_scenario_sim(sc)); ++i) {
        ENSURE(orca_scenario_agent_nav(sc, i, &na, NULL, 0) == ORCA_OK);
        reroutes += na.reroutes;
    }
    ENSURE_MSG(exited >= 1 && reroutes >= 1, "%d exited, %d re-routings", exited, reroutes);
    orca_scenario_destroy(sc);
    return 0;
}

static int test_plain_roundtrip(void)
{
    ENSURE(roundtrip(build_plain, 0, 50, 1, 0) == 0);
    ENSURE(roundtrip(build_plain, 30, 50, 2, 0) == 0);
    ENSURE(roundtrip(NULL, 0, 3, 1, 0) == 0); /* an empty scenario */
    /* a built-in scene's name, and navigation toggled on and off after the save */
    orca_scenario *sc = NULL, *f = NULL;
    ENSURE(orca_scenario_create_builtin(ORCA_SCENE_CIRCLE, 20, 3, NULL, &sc) == ORCA_OK);
    ENSURE(orca_scenario_set_recording(sc, 0) == ORCA_OK);
    size_t size = 0;
    unsigned char *bytes = save(sc, &size);
    ENSURE(bytes);
    ENSURE(orca_scenario_create(NULL, 1, 1, &f) == ORCA_OK);
    ENSURE(orca_scenario_load(f, bytes, size) == ORCA_OK);
    ENSURE(strcmp(orca_scenario_name(f), "circle") == 0);
    for (int s = 0; s < 5; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK && orca_scenario_step(f) == ORCA_OK);
    }
    ENSURE(orca_scenario_hash(sc) == orca_scenario_hash(f));
    ENSURE(orca_scenario_max_agent_overlap(f) == 0); /* recording stayed off */
    ENSURE(orca_scenario_set_navigation(sc, 1) == ORCA_OK && orca_scenario_set_navigation(f, 1) == ORCA_OK);
    ENSURE(orca_scenario_step(sc) == ORCA_OK && orca_scenario_step(f) == ORCA_OK);
    ENSURE(orca_scenario_hash(sc) == orca_scenario_hash(f));
    orca_scenario_destroy(f);
    orca_scenario_destroy(sc);
    free(bytes);
    return 0;
}

/* --- refusals ----------------------------------------------------------------------------- */

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(unsigned char *p, uint32_t v)
{
    for (int b = 0; b < 4; ++b) {
        p[b] = (unsigned char)(v >> (8 * b));
    }
}

static void wr64(unsigned char *p, uint64_t v)
{
    for (int b = 0; b < 8; ++b) {
        p[b] = (unsigned char)(v >> (8 * b));
    }
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Writes the total size and the checksum (FNV-1a of everything before it) anew. */
static void reseal(unsigned char *b, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k + 8 < size; ++k) {
        h ^= b[k];
        h *= 0x100000001b3ull;
    }
    wr64(b + 16, (uint64_t)size);
    wr64(b + size - 8, h);
}

/* Offsets of a snapshot's parts (docs/scenarios.md, "Snapshots"). */
typedef struct layout {
    size_t sim, sets, entries;
    size_t entry[16];
    int entry_count;
} layout;

static void find_layout(const unsigned char *b, layout *l)
{
    l->sim = 224; /* the header 164, version 2's 60 */
    size_t p = l->sim + (size_t)rd64(b + 24);
    l->sets = p;
    uint32_t sets = rd32(b + 156), entries = rd32(b + 160);
    for (uint32_t k = 0; k < sets; ++k) {
        p += 88 + 36 * (size_t)rd32(b + p + 76);
    }
    l->entries = p;
    l->entry_count = (int)entries;
    for (uint32_t e = 0; e < entries && e < 16; ++e) {
        l->entry[e] = p;
        uint32_t parts = rd32(b + p + 56);
        p += 60;
        if (parts & 1) {
            p += 52 + 16 * (size_t)rd32(b + p);
        }
        if (parts & 2) {
            p += 132 + 52 * (size_t)rd32(b + p + 20);
        }
    }
}

typedef struct probe {
    orca_scenario *sc;
    uint64_t h, hsim;
} probe;

/* Loads the damaged bytes: refused with status, a message containing want, nothing changed. */
static int refused(probe *pr, const unsigned char *b, size_t size, orca_status status,
                   const char *want)
{
    orca_status st = orca_scenario_load(pr->sc, b, size);
    const char *msg = orca_scenario_last_error(pr->sc);
    ENSURE_MSG(st == status, "status %s (%s), wanted %s", orca_status_name(st), msg, want);
    ENSURE_MSG(strstr(msg, want) != NULL, "message '%s' does not name '%s'", msg, want);
    ENSURE(orca_scenario_hash(pr->sc) == pr->h);
    ENSURE(orca_sim_hash(orca_scenario_sim(pr->sc)) == pr->hsim);
    return 0;
}

/* A copy with the field of `bytes` bytes (4 or 8) at off set to v (resealed): refused. */
static int try_field(probe *pr, const unsigned char *b, size_t size, size_t off, int bytes,
                     uint64_t v, const char *want)
{
    unsigned char *c = malloc(size);
    ENSURE(c);
    memcpy(c, b, size);
    if (bytes == 4) {
        wr32(c + off, (uint32_t)v);
    } else {
        wr64(c + off, v);
    }
    reseal(c, size);
    int r = refused(pr, c, size, ORCA_ERR_FORMAT, want);
    free(c);
    return r;
}

#define try32(pr, b, size, off, v, want) try_field(pr, b, size, off, 4, v, want)
#define try64(pr, b, size, off, v, want) try_field(pr, b, size, off, 8, v, want)

#define NAN_BITS 0x7ff8000000000000ull

static int test_refusals(void)
{
    orca_scenario *sc = make(build_doors, 1);
    ENSURE(sc);
    for (int s = 0; s < 50; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    size_t size = 0;
    unsigned char *b = save(sc, &size);
    ENSURE(b);
    /* the probe: another state of the same scene, which no refusal may change */
    for (int s = 0; s < 7; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    probe pr = {sc, orca_scenario_hash(sc), orca_sim_hash(orca_scenario_sim(sc))};
    layout l;
    find_layout(b, &l);
    ENSURE(l.entry_count == 7);
    /* every prefix */
    for (size_t n = 0; n < size; n += 1 + (n > 400) * 7) {
        ENSURE(refused(&pr, b, n, ORCA_ERR_FORMAT, n < 172 ? "snapshot" : "truncated") == 0);
    }
    /* every prefix, resealed: the reader stops at the field that runs short */
    for (size_t n = 172; n < size; n += 1 + (n > 400) * 13) {
        unsigned char *c = malloc(n);
        ENSURE(c);
        memcpy(c, b, n);
        reseal(c, n);
        orca_status st = orca_scenario_load(sc, c, n);
        ENSURE_MSG(st == ORCA_ERR_FORMAT, "prefix %zu: %s", n, orca_status_name(st));
        ENSURE(orca_scenario_hash(sc) == pr.h);
        free(c);
    }
    /* flipped bytes: the checksum */
    for (size_t k = 0; k < size; k += 5) {
        b[k] ^= 0x20;
        ENSURE(refused(&pr, b, size, ORCA_ERR_FORMAT, k < 8 ? "magic" : k < 12 ? "version"
                                                      : k >= 16 && k < 24 ? "truncated"
                                                                          : "checksum") == 0);
        b[k] ^= 0x20;
    }
    ENSURE(refused(&pr, NULL, size, ORCA_ERR_NULL, "NULL") == 0);
    ENSURE(orca_scenario_load(NULL, b, size) == ORCA_ERR_NULL);
    /* header fields */
    ENSURE(try32(&pr, b, size, 8, 3, "version 3") == 0);
    ENSURE(try32(&pr, b, size, 8, 0, "version 0") == 0);
    ENSURE(try32(&pr, b, size, 12, 32 | 1, "flags") == 0);
    ENSURE(try32(&pr, b, size, 164, 3, "exit choice 3") == 0);
    ENSURE(try64(&pr, b, size, 168, (uint64_t)-1, "retired path count 0") == 0);
    ENSURE(try64(&pr, b, size, 24, (uint64_t)size, "the simulation needs") == 0);
    ENSURE(try64(&pr, b, size, 24, 40, "the simulation") == 0);
    ENSURE(try64(&pr, b, size, 32, 0, "dt") == 0);
    ENSURE(try64(&pr, b, size, 32, NAN_BITS, "dt") == 0);
    ENSURE(try32(&pr, b, size, 48, 0x80000000u, "exit count") == 0);
    ENSURE(try64(&pr, b, size, 52, (uint64_t)-1, "exit count") == 0);
    ENSURE(try64(&pr, b, size, 60, (uint64_t)-2, "all-arrived") == 0);
    ENSURE(try64(&pr, b, size, 68, NAN_BITS, "overlaps") == 0);
    ENSURE(try64(&pr, b, size, 76, 0xfff0000000000000ull, "overlaps") == 0);
    ENSURE(try32(&pr, b, size, 92, 0, "scenario name: bytes after its end") == 0);
    ENSURE(try32(&pr, b, size, 92 + 40, 0x41u, "bytes after its end") == 0);
    {
        unsigned char *c = malloc(size);
        ENSURE(c);
        memcpy(c, b, size);
        memset(c + 92, 'A', 64);
        reseal(c, size);
        ENSURE(refused(&pr, c, size, ORCA_ERR_FORMAT, "scenario name must have 1 to 63") == 0);
        memset(c + 92, 0, 64);
        reseal(c, size);
        ENSURE(refused(&pr, c, size, ORCA_ERR_FORMAT, "has 0") == 0);
        free(c);
    }
    ENSURE(try32(&pr, b, size, 156, 0xffffffffu, "the goal sets needs") == 0);
    ENSURE(try32(&pr, b, size, 156, 3, "set 2 name") == 0);
    ENSURE(try32(&pr, b, size, 160, 0xffffffffu, "entry count") == 0);
    ENSURE(try32(&pr, b, size, 160, 0x10000000u, "the entries needs") == 0);
    ENSURE(try32(&pr, b, size, 160, 6, "bytes after the last entry") == 0);
    ENSURE(try32(&pr, b, size, 160, 8, "an entry needs") == 0);
    /* the embedded simulation's own checks */
    ENSURE(try32(&pr, b, size, l.sim + 8, 99, "the simulation: snapshot version 99") == 0);
    /* goal sets: set 0 "out" (2 points, exit), set 1 "back" */
    size_t s0 = l.sets, s1 = l.sets + 88 + 2 * 36;
    ENSURE(try32(&pr, b, size, s1, 0x74756f, "two goal sets are called 'out'") == 0);
    ENSURE(try32(&pr, b, size, s0 + 64, 2, "exit must be 0 or 1") == 0);
    ENSURE(try64(&pr, b, size, s0 + 68, NAN_BITS, "arrive distance") == 0);
    ENSURE(try32(&pr, b, size, s0 + 76, 0, "point count") == 0);
    ENSURE(try32(&pr, b, size, s0 + 76, 0xffffffffu, "point count") == 0);
    ENSURE(try32(&pr, b, size, s0 + 76, 65536, "points needs") == 0);
    ENSURE(try64(&pr, b, size, s0 + 80, NAN_BITS, "goal set 0: capacity") == 0);
    ENSURE(try64(&pr, b, size, s0 + 80, 0, "goal set 0: capacity") == 0);
    ENSURE(try64(&pr, b, size, s0 + 88, NAN_BITS, "goal set 0 point 0") == 0);
    ENSURE(try64(&pr, b, size, s1 + 88 + 8, 0x4150000000000000ull, "goal set 1 point 0") == 0);
    ENSURE(try32(&pr, b, size, s0 + 88 + 16, 0x80000000u, "departures") == 0);
    ENSURE(try64(&pr, b, size, s0 + 88 + 20, 7, "departures 0, last departure 7") == 0);
    ENSURE(try64(&pr, b, size, s0 + 88 + 28, NAN_BITS, "outflow") == 0);
    /* entries: 0 waypoints (loop) + path, 1 waypoints + path, 3 a goal set, 6 the blocker */
    size_t e0 = l.entry[0], e1 = l.entry[1], e3 = l.entry[3], e6 = l.entry[6];
    ENSURE(rd32(b + e0 + 56) == 3 && rd32(b + e3 + 56) == 2 && rd32(b + e6 + 56) == 0);
    ENSURE(try32(&pr, b, size, e0 + 4, 0, "entry 0: handle generation 0") == 0);
    ENSURE(try32(&pr, b, size, e0 + 8, 7, "entry 0: goal kind must be") == 0);
    ENSURE(try64(&pr, b, size, e3 + 16, NAN_BITS, "entry 3: goal target") == 0);
    ENSURE(try32(&pr, b, size, e3 + 12, 2, "entry 3: goal_set must name a goal set") == 0);
    ENSURE(try32(&pr, b, size, e3 + 12, 0xffffffffu, "entry 3: goal_set") == 0);
    ENSURE(try64(&pr, b, size, e3 + 32, NAN_BITS, "entry 3: goal preferred_speed") == 0);
    ENSURE(try64(&pr, b, size, e3 + 40, NAN_BITS, "entry 3: start") == 0);
    ENSURE(try32(&pr, b, size, e3 + 56, 4, "entry 3: parts") == 0);
    ENSURE(try32(&pr, b, size, e3 + 56, 3, "entry 3 has waypoints but goal kind 3") == 0);
    ENSURE(try32(&pr, b, size, e6 + 56, 2, "navigation state needs") == 0);
    ENSURE(try32(&pr, b, size, e6 + 56, 1, "waypoints needs") == 0);
    ENSURE(try32(&pr, b, size, e0 + 8, 2, "entry 0 has waypoints but goal kind 2") == 0);
    ENSURE(try64(&pr, b, size, e0 + 16, NAN_BITS, "entry 0: goal point") == 0);
    ENSURE(try64(&pr, b, size, e1 + 16, 0x4000000000000000ull, "current waypoint") == 0);
    size_t w0 = e0 + 60; /* entry 0's waypoints */
    ENSURE(try32(&pr, b, size, w0, 0, "waypoint count") == 0);
    ENSURE(try32(&pr, b, size, w0, 0xffffffffu, "waypoint count") == 0);
    ENSURE(try32(&pr, b, size, w0, 1000000, "waypoint points needs") == 0);
    ENSURE(try32(&pr, b, size, w0 + 4, 3, "waypoint index 3") == 0);
    ENSURE(try32(&pr, b, size, w0 + 8, 2, "loop 2") == 0);
    ENSURE(try64(&pr, b, size, w0 + 12, NAN_BITS, "arrive distance") == 0);
    ENSURE(try64(&pr, b, size, w0 + 20, NAN_BITS, "goal or start") == 0);
    ENSURE(try64(&pr, b, size, w0 + 52, NAN_BITS, "waypoint 0 is not") == 0);
    size_t v3 = e3 + 60; /* entry 3's path */
    ENSURE(try32(&pr, b, size, v3, 4, "planned 4") == 0);
    ENSURE(try32(&pr, b, size, v3 + 4, 4, "result 4") == 0);
    ENSURE(try64(&pr, b, size, v3 + 8, NAN_BITS, "path length") == 0);
    ENSURE(try32(&pr, b, size, v3 + 16, 2, "path goal 2") == 0);
    ENSURE(try32(&pr, b, size, v3 + 16, 0xfffffffeu, "path goal -2") == 0);
    ENSURE(try32(&pr, b, size, v3 + 20, 0xffffffffu, "corners needs") == 0);
    ENSURE(try32(&pr, b, size, v3 + 24, 0xffffffffu, "path corner") == 0);
    ENSURE(try32(&pr, b, size, v3 + 28, 0x80000000u, "stuck steps") == 0);
    ENSURE(try64(&pr, b, size, v3 + 32, NAN_BITS, "best distance") == 0);
    ENSURE(try64(&pr, b, size, v3 + 56, 0xfff0000000000000ull, "radius") == 0);
    ENSURE(try64(&pr, b, size, v3 + 40, NAN_BITS, "target") == 0);
    ENSURE(try32(&pr, b, size, v3 + 64, 2, "avoid flag 2") == 0);
    ENSURE(try32(&pr, b, size, v3 + 84, 0x80000000u, "plans") == 0);
    ENSURE(try32(&pr, b, size, v3 + 88, 1000, "re-routings") == 0);
    ENSURE(try64(&pr, b, size, v3 + 92, NAN_BITS, "direction") == 0);
    ENSURE(try32(&pr, b, size, v3 + 108, 0x7fffffffu, "replans") == 0);
    ENSURE(try32(&pr, b, size, v3 + 112, 2, "path exit 2") == 0);
    ENSURE(try32(&pr, b, size, v3 + 112, 0xfffffffeu, "path exit -2") == 0);
    ENSURE(try32(&pr, b, size, v3 + 116, 0x7fffffffu, "exit changes") == 0);
    ENSURE(try32(&pr, b, size, v3 + 120, 1, "returns 1") == 0);
    if (rd32(b + v3 + 20) > 0) {
        ENSURE(try32(&pr, b, size, v3 + 132 + 16, 0, "corner 0 is not a corner (side 0)") == 0);
        ENSURE(try64(&pr, b, size, v3 + 132 + 20, NAN_BITS, "corner 0") == 0);
    }
    ENSURE(try32(&pr, b, size, e3 + 8, 2, "entry 3 has a path but goal kind 2") == 0);
    /* accepted: two entries with one handle (the map then asks for every key) */
    {
        unsigned char *c = malloc(size);
        ENSURE(c);
        memcpy(c, b, size);
        memcpy(c + e1, c + e0, 8);
        reseal(c, size);
        orca_scenario *o = make(NULL, 1);
        ENSURE(o && orca_scenario_load(o, c, size) == ORCA_OK);
        size_t n = 0;
        unsigned char *again = save(o, &n);
        ENSURE(again && n == size && memcmp(again, c, size) == 0);
        ENSURE(orca_scenario_step(o) == ORCA_OK);
        free(again);
        orca_scenario_destroy(o);
        /* another set's point: the scenario's navigation structures are not kept */
        memcpy(c, b, size);
        c[s1 + 88] ^= 1; /* set 1's point x: -7 one unit in the last place away */
        reseal(c, size);
        o = make(build_doors, 1);
        ENSURE(o && orca_scenario_step(o) == ORCA_OK);
        ENSURE(orca_scenario_load(o, c, size) == ORCA_OK);
        ENSURE(orca_scenario_step(o) == ORCA_OK);
        orca_scenario_destroy(o);
        /* one set more in the loading scenario */
        o = make(build_doors, 1);
        orca_vec2 extra = vec(1, 1);
        ENSURE(o && orca_scenario_step(o) == ORCA_OK &&
               orca_scenario_add_goal_set(o, "extra", &extra, 1, NULL) == ORCA_OK);
        ENSURE(orca_scenario_load(o, b, size) == ORCA_OK);
        ENSURE(orca_scenario_goal_set_count(o) == 2 && orca_scenario_goal_set_find(o, "extra") < 0);
        orca_scenario_destroy(o);
        free(c);
    }
    /* a set that runs past the bytes although the count fits the first bound */
    {
        orca_scenario *o = make(NULL, 1);
        orca_vec2 many[10], one = vec(2, 2);
        for (int k = 0; k < 10; ++k) {
            many[k] = vec(k, 0);
        }
        ENSURE(o && orca_scenario_add_goal_set(o, "a", many, 10, NULL) == ORCA_OK &&
               orca_scenario_add_goal_set(o, "b", &one, 1, NULL) == ORCA_OK);
        size_t n = 0;
        unsigned char *c = save(o, &n);
        ENSURE(c);
        probe po = {o, orca_scenario_hash(o), orca_sim_hash(orca_scenario_sim(o))};
        ENSURE(try32(&po, c, n, 156, 3, "a goal set needs") == 0);
        free(c);
        orca_scenario_destroy(o);
    }
    /* and the scenario still steps as before */
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    ENSURE(orca_scenario_load(sc, b, size) == ORCA_OK);
    /* save: NULL size, small buffer */
    ENSURE(orca_scenario_save(NULL, b, size, &size) == ORCA_ERR_NULL);
    ENSURE(orca_scenario_save(sc, b, size, NULL) == ORCA_ERR_NULL);
    size_t need = 0;
    ENSURE(orca_scenario_save(sc, b, size - 1, &need) == ORCA_ERR_LIMIT && need == size);
    ENSURE(strstr(orca_scenario_last_error(sc), "needs") != NULL);
    orca_scenario_destroy(sc);
    free(b);
    return 0;
}

/* A version 1 snapshot (before the leg check and the exit choice): the version 2 bytes
 * without what version 2 added. It loads; its paths' points are their sets'; it steps to the
 * bits the version 2 snapshot steps to. */
static int test_version1(void)
{
    orca_scenario *sc = make(build_doors, 1);
    ENSURE(sc);
    for (int s = 0; s < 60; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    size_t size = 0;
    unsigned char *b = save(sc, &size);
    ENSURE(b);
    layout l;
    find_layout(b, &l);
    unsigned char *v1 = malloc(size);
    ENSURE(v1);
    size_t n = 0;
#define COPY(from, to)                                                                          \
    do {                                                                                        \
        memcpy(v1 + n, b + (from), (to) - (from));                                              \
        n += (to) - (from);                                                                     \
    } while (0)
    COPY(0, 164); /* the header without version 2's 60 bytes, the simulation */
    COPY(224, l.sets);
    size_t p = l.sets;
    for (uint32_t k = 0; k < rd32(b + 160 - 4); ++k) { /* sets: no capacity, points alone */
        uint32_t points = rd32(b + p + 76);
        COPY(p, p + 80);
        for (uint32_t j = 0; j < points; ++j) {
            COPY(p + 88 + 36 * j, p + 88 + 36 * j + 16);
        }
        p += 88 + 36 * (size_t)points;
    }
    for (int e = 0; e < l.entry_count; ++e) { /* entries: paths without the 24 bytes */
        size_t q = l.entry[e], end = e + 1 < l.entry_count ? l.entry[e + 1] : size - 8;
        uint32_t parts = rd32(b + q + 56);
        size_t nav = q + 60 + ((parts & 1) ? 52 + 16 * (size_t)rd32(b + q + 60) : 0);
        if (parts & 2) {
            COPY(q, nav + 108);
            COPY(nav + 132, end);
        } else {
            COPY(q, end);
        }
    }
#undef COPY
    n += 8;
    wr32(v1 + 8, 1);
    wr64(v1 + 16, (uint64_t)n); /* (reseal sums the bytes before it writes the size) */
    reseal(v1, n);
    orca_scenario *a = make(NULL, 1), *c = make(NULL, 2);
    ENSURE(a && c);
    ENSURE_MSG(orca_scenario_load(a, v1, n) == ORCA_OK, "%s", orca_scenario_last_error(a));
    ENSURE(orca_scenario_load(c, b, size) == ORCA_OK);
    ENSURE(orca_scenario_hash(a) == orca_scenario_hash(c));
    for (int s = 0; s < 200; ++s) {
        ENSURE(orca_scenario_step(a) == ORCA_OK && orca_scenario_step(c) == ORCA_OK);
        ENSURE(orca_scenario_hash(a) == orca_scenario_hash(c));
    }
    /* and a version 1 snapshot with version 2's flag is refused */
    wr32(v1 + 12, rd32(v1 + 12) | 16);
    reseal(v1, n);
    ENSURE(orca_scenario_load(a, v1, n) == ORCA_ERR_FORMAT);
    ENSURE(strstr(orca_scenario_last_error(a), "leg check") != NULL);
    orca_scenario_destroy(a);
    orca_scenario_destroy(c);
    orca_scenario_destroy(sc);
    free(v1);
    free(b);
    return 0;
}

/* --- allocation failures ------------------------------------------------------------------ */

#include "fail_alloc.h"

/* Loads bytes into a scenario built by b (NULL: an empty one) with the k-th allocation
 * failing: ORCA_OK, or ORCA_ERR_MEMORY with nothing changed. *reached: the k-th came. */
static int load_failing(builder b, const unsigned char *bytes, size_t size, long k, int *reached)
{
    orca_scenario *sc = make(b, 1);
    ENSURE(sc);
    if (b) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK); /* it has its navigation structures */
    }
    uint64_t h = orca_scenario_hash(sc), hs = orca_sim_hash(orca_scenario_sim(sc));
    g_calls = 0;
    g_failed = 0;
    g_fail_at = k;
    orca_status st = orca_scenario_load(sc, bytes, size);
    size_t n = 0;
    orca_status st2 = orca_scenario_save(sc, NULL, 0, &n);
    g_fail_at = 0;
    *reached = g_failed > 0;
    ENSURE(st2 == ORCA_OK);
    ENSURE_MSG(st == ORCA_OK || st == ORCA_ERR_MEMORY, "allocation %ld failing: %s", k,
               orca_status_name(st));
    if (st == ORCA_ERR_MEMORY) {
        ENSURE(orca_scenario_hash(sc) == h && orca_sim_hash(orca_scenario_sim(sc)) == hs);
    }
    ENSURE(orca_scenario_step(sc) == ORCA_OK);
    orca_scenario_destroy(sc);
    return 0;
}

static int test_allocation_failures(void)
{
    orca_allocator a = {fa_alloc, fa_resize, fa_release, NULL};
    ENSURE(orca_set_allocator(&a) == ORCA_OK);
    long live0 = g_live;
    orca_scenario *sc = make(build_doors, 1);
    ENSURE(sc);
    for (int s = 0; s < 50; ++s) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    size_t size = 0;
    unsigned char *bytes = save(sc, &size);
    ENSURE(bytes);
    orca_scenario_destroy(sc);
    builder targets[2] = {build_doors, NULL};
    int runs = 0;
    for (int t = 0; t < 2; ++t) {
        for (long k = 1; k < 100000; ++k) {
            int reached = 0;
            ENSURE(load_failing(targets[t], bytes, size, k, &reached) == 0);
            ENSURE_MSG(g_live == live0, "allocation %ld failing: %ld blocks leaked", k,
                       g_live - live0);
            ++runs;
            if (!reached) {
                break;
            }
        }
    }
    free(bytes);
    ENSURE(orca_set_allocator(NULL) == ORCA_OK);
    ENSURE(runs > 20);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"version1", test_version1},
    {"navigation_roundtrip", test_navigation_roundtrip},
    {"plain_roundtrip", test_plain_roundtrip},
    {"refusals", test_refusals},
    {"allocation_failures", test_allocation_failures},
    {0, 0},
};
