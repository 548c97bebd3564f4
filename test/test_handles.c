/* SPDX-License-Identifier: MIT */
/* Handles carry the simulation that issued them (issue 27, item 8; include/orca/sim.h, top):
 *   - every call that takes a handle refuses a handle of another simulation with
 *     ORCA_ERR_FOREIGN, a message naming the handle and both simulations, and no change (the
 *     hash, the counts, the avoidance settings, the output arguments), even when the other
 *     simulation's handle has the slot and generation of a live object here;
 *   - the batch removals check every handle first;
 *   - the null handle is stale, a handle with slot or generation but no simulation (sim 0)
 *     is foreign;
 *   - identities: distinct, never 0, carried by every handle a simulation gives out (add,
 *     the batches, *_at, the scenario's add); not state: the hash and snapshots ignore it,
 *     orca_sim_load keeps the loading simulation's, so saved handles are valid again in the
 *     simulation that issued them and foreign in another that loads the snapshot, where the
 *     same slots and generations name the same objects under its own identity.
 * On the starting commit (b0a408d) a handle of B acted on A's object in the same slot: every
 * refusal below fails there (and the file does not compile: the handles had no sim field). */
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orca/scenario.h>
#include <orca/sim.h>

static orca_sim *sim_new(void)
{
    orca_sim *s = NULL;
    return orca_sim_create(NULL, &s) == ORCA_OK ? s : NULL;
}

static const orca_vec2 ROOM[] = {{-50, -50}, {50, -50}, {50, 50}, {-50, 50}};

/* The same content in every simulation it is called on, so that a handle of one names a live
 * object of the same slot and generation in the other: 6 agents (the one in slot 1 removed
 * and its slot reused, generation 2), 4 segments, one boundary loop. */
static int fill(orca_sim *s, orca_agent_id *agents, orca_segment_id *segs, orca_boundary_id *loop)
{
    orca_agent_def d = orca_agent_def_default();
    for (int i = 0; i < 6; ++i) {
        d.position = (orca_vec2){-12.0 + 4.0 * i, 1.0 * (i % 2)};
        d.preferred_velocity = (orca_vec2){i % 2 ? -1.0 : 1.0, 0};
        ENSURE(orca_sim_add_agent(s, &d, &agents[i]) == ORCA_OK);
    }
    ENSURE(orca_sim_remove_agent(s, agents[1]) == ORCA_OK);
    d.position = (orca_vec2){0, 20};
    ENSURE(orca_sim_add_agent(s, &d, &agents[1]) == ORCA_OK);
    ENSURE(agents[1].generation == 2);
    orca_vec2 a[4] = {{-20, -8}, {-20, 8}, {20, -8}, {0, 30}};
    orca_vec2 b[4] = {{20, -8}, {20, 8}, {20, 8}, {0, 30}};
    ENSURE(orca_sim_add_segments(s, a, b, 4, segs) == ORCA_OK);
    ENSURE(orca_sim_add_boundary(s, ROOM, 4, loop) == ORCA_OK);
    return 0;
}

/* What a refusal must not change: the hash, the counts, every agent's avoidance settings. */
typedef struct observed {
    uint64_t hash;
    int agents, segments, loops;
    orca_agent_avoidance av[8];
} observed;

static observed observe(const orca_sim *s)
{
    observed o;
    memset(&o, 0, sizeof o);
    o.hash = orca_sim_hash(s);
    o.agents = orca_sim_agent_count(s);
    o.segments = orca_sim_segment_count(s);
    o.loops = orca_sim_boundary_count(s);
    for (int i = 0; i < o.agents && i < 8; ++i) {
        orca_agent_get_avoidance(s, orca_sim_agent_at(s, i), &o.av[i]);
    }
    return o;
}

static int same_observed(const observed *a, const observed *b)
{
    return a->hash == b->hash && a->agents == b->agents && a->segments == b->segments &&
           a->loops == b->loops && memcmp(a->av, b->av, sizeof a->av) == 0;
}

/* The message of the last refusal foreign() checked. */
static char g_message[600];

/* st must be ORCA_ERR_FOREIGN with the message naming the handle {slot, generation, sim} of
 * kind and this simulation, and s as o says. */
static int foreign(const orca_sim *s, const observed *o, orca_status st, const char *call,
                   const char *kind, uint32_t slot, uint32_t generation, uint32_t sim)
{
    char want[200];
    snprintf(want, sizeof want,
             "%s handle {slot %u, generation %u, sim %u} belongs to another simulation (this "
             "is sim %u)",
             kind, (unsigned)slot, (unsigned)generation, (unsigned)sim, (unsigned)orca_sim_id(s));
    ENSURE_MSG(st == ORCA_ERR_FOREIGN, "%s gave %s (%s)", call, orca_status_name(st),
               orca_sim_last_error(s));
    ENSURE_MSG(strstr(orca_sim_last_error(s), want) != NULL, "%s: message '%s', wanted '%s'",
               call, orca_sim_last_error(s), want);
    snprintf(g_message, sizeof g_message, "%s", orca_sim_last_error(s)); /* observe clears it */
    observed now = observe(s);
    ENSURE_MSG(same_observed(o, &now), "%s: a refusal changed the simulation", call);
    return 0;
}

#define FOREIGN_AGENT(call)                                                              \
    ENSURE(foreign(a, &o, (call), #call, "agent", hb.slot, hb.generation, hb.sim) == 0)
#define FOREIGN_SEGMENT(call)                                                            \
    ENSURE(foreign(a, &o, (call), #call, "segment", sb.slot, sb.generation, sb.sim) == 0)
#define FOREIGN_LOOP(call)                                                               \
    ENSURE(foreign(a, &o, (call), #call, "boundary", lb.slot, lb.generation, lb.sim) == 0)

/* Every call of sim.h that takes a handle, given B's handle of the object in the same slot
 * and generation as a live one of A. */
static int test_foreign_refused_everywhere(void)
{
    orca_sim *a = sim_new(), *b = sim_new();
    ENSURE(a && b);
    orca_agent_id ag_a[6], ag_b[6];
    orca_segment_id sg_a[4], sg_b[4];
    orca_boundary_id lp_a, lp_b;
    ENSURE(fill(a, ag_a, sg_a, &lp_a) == 0);
    ENSURE(fill(b, ag_b, sg_b, &lp_b) == 0);
    ENSURE(orca_sim_set_diagnostics(a, 1) == ORCA_OK);
    ENSURE(orca_sim_step(a, 0.25) == ORCA_OK);
    ENSURE(orca_sim_step(b, 0.25) == ORCA_OK);
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b)); /* the same state: the identity is not in it */
    for (int k = 0; k < 6; ++k) {
        orca_agent_id ha = ag_a[k], hb = ag_b[k];
        ENSURE(ha.slot == hb.slot && ha.generation == hb.generation && ha.sim != hb.sim);
        observed o = observe(a);
        orca_agent_def d = orca_agent_def_default(), out;
        memset(&out, 0x5a, sizeof out);
        const orca_agent_def untouched = out;
        orca_vec2 v = {0x1p-3, 7}, vo = {123, 456};
        orca_halfplane planes[16];
        int count = -7, hard = -7, na = -7, ns = -7, agents[16], segs[16];
        orca_agent_avoidance av = orca_agent_avoidance_default(), avo;
        av.priority = 5;
        orca_agent_diagnostics dg;
        ENSURE(orca_agent_get(a, ha, &out) == ORCA_OK); /* A's own handle works */
        memset(&out, 0x5a, sizeof out);

        FOREIGN_AGENT(orca_sim_remove_agent(a, hb));
        FOREIGN_AGENT(orca_agent_get(a, hb, &out));
        ENSURE(memcmp(&out, &untouched, sizeof out) == 0);
        FOREIGN_AGENT(orca_agent_set(a, hb, &d));
        FOREIGN_AGENT(orca_agent_set_position(a, hb, v));
        FOREIGN_AGENT(orca_agent_set_velocity(a, hb, v));
        FOREIGN_AGENT(orca_agent_set_preferred_velocity(a, hb, v));
        FOREIGN_AGENT(orca_agent_get_position(a, hb, &vo));
        FOREIGN_AGENT(orca_agent_get_velocity(a, hb, &vo));
        ENSURE(vo.x == 123 && vo.y == 456);
        FOREIGN_AGENT(orca_sim_agent_constraints(a, hb, 0.25, planes, 16, &count, &hard));
        FOREIGN_AGENT(orca_sim_agent_neighbors(a, hb, agents, 16, &na, segs, 16, &ns));
        ENSURE(count == -7 && hard == -7 && na == -7 && ns == -7);
        FOREIGN_AGENT(orca_agent_set_avoidance(a, hb, &av));
        FOREIGN_AGENT(orca_agent_get_avoidance(a, hb, &avo));
        FOREIGN_AGENT(orca_agent_set_priority(a, hb, 5));
        FOREIGN_AGENT(orca_agent_set_layers(a, hb, 2, 2));
        FOREIGN_AGENT(orca_agent_set_locked(a, hb, 1));
        FOREIGN_AGENT(orca_agent_get_diagnostics(a, hb, &dg));
        ENSURE(orca_sim_agent_index(a, hb) == -1);
        ENSURE(orca_sim_agent_index(a, ha) >= 0);
        /* and the other way round */
        observed ob = observe(b);
        ENSURE(orca_agent_set_priority(b, ha, 5) == ORCA_ERR_FOREIGN);
        ENSURE(orca_sim_remove_agent(b, ha) == ORCA_ERR_FOREIGN);
        observed ob2 = observe(b);
        ENSURE(same_observed(&ob, &ob2));
    }
    for (int k = 0; k < 4; ++k) {
        orca_segment_id sb = sg_b[k];
        observed o = observe(a);
        orca_vec2 p = {1, 2}, q = {3, 4};
        FOREIGN_SEGMENT(orca_sim_remove_segment(a, sb));
        FOREIGN_SEGMENT(orca_segment_get(a, sb, &p, &q));
        ENSURE(p.x == 1 && p.y == 2 && q.x == 3 && q.y == 4);
        ENSURE(orca_segment_get(a, sg_a[k], &p, &q) == ORCA_OK);
    }
    {
        orca_boundary_id lb = lp_b;
        observed o = observe(a);
        orca_vec2 pts[4];
        int n = -1;
        FOREIGN_LOOP(orca_sim_remove_boundary(a, lb));
        FOREIGN_LOOP(orca_boundary_get(a, lb, pts, 4, &n));
        ENSURE(n == -1);
        ENSURE(orca_boundary_get(a, lp_a, pts, 4, &n) == ORCA_OK && n == 4);
    }
    /* the objects are still there and A's own handles act on them */
    ENSURE(orca_sim_agent_count(a) == 6 && orca_sim_segment_count(a) == 4);
    ENSURE(orca_sim_boundary_count(a) == 1);
    ENSURE(orca_agent_set_priority(a, ag_a[2], 5) == ORCA_OK);
    ENSURE(orca_sim_remove_agent(a, ag_a[3]) == ORCA_OK);
    ENSURE(orca_sim_remove_segment(a, sg_a[0]) == ORCA_OK);
    ENSURE(orca_sim_remove_boundary(a, lp_a) == ORCA_OK);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

/* The batches check every handle first: one foreign handle among live ones removes nothing. */
static int test_foreign_in_batches(void)
{
    orca_sim *a = sim_new(), *b = sim_new();
    ENSURE(a && b);
    orca_agent_id ag_a[6], ag_b[6];
    orca_segment_id sg_a[4], sg_b[4];
    orca_boundary_id lp_a, lp_b;
    ENSURE(fill(a, ag_a, sg_a, &lp_a) == 0);
    ENSURE(fill(b, ag_b, sg_b, &lp_b) == 0);
    observed o = observe(a);
    for (int at = 0; at < 3; ++at) {
        orca_agent_id ids[3] = {ag_a[0], ag_a[2], ag_a[4]};
        orca_agent_id hb = ag_b[at == 0 ? 5 : 1];
        ids[at] = hb;
        orca_status st = orca_sim_remove_agents(a, ids, 3);
        ENSURE(foreign(a, &o, st, "orca_sim_remove_agents", "agent", hb.slot, hb.generation,
                       hb.sim) == 0);
        char name[16];
        snprintf(name, sizeof name, "ids[%d]: ", at);
        ENSURE(strstr(g_message, name) != NULL);
        ENSURE(strstr(g_message, "nothing was removed") != NULL);
        orca_segment_id sids[3] = {sg_a[0], sg_a[1], sg_a[3]};
        orca_segment_id sb = sg_b[2];
        sids[at] = sb;
        st = orca_sim_remove_segments(a, sids, 3);
        ENSURE(foreign(a, &o, st, "orca_sim_remove_segments", "segment", sb.slot,
                       sb.generation, sb.sim) == 0);
        ENSURE(strstr(g_message, name) != NULL);
    }
    /* a foreign handle after a stale one: the first bad entry is named */
    orca_agent_id gone = ag_a[0];
    ENSURE(orca_sim_remove_agent(a, gone) == ORCA_OK);
    orca_agent_id mixed[2] = {gone, ag_b[2]};
    ENSURE(orca_sim_remove_agents(a, mixed, 2) == ORCA_ERR_STALE);
    ENSURE(strstr(orca_sim_last_error(a), "ids[0]: ") != NULL);
    /* all A's own: removed */
    orca_agent_id own[2] = {ag_a[2], ag_a[4]};
    ENSURE(orca_sim_remove_agents(a, own, 2) == ORCA_OK);
    ENSURE(orca_sim_agent_count(a) == 3);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

/* The null handle is stale; slot or generation without a simulation is foreign; a handle of a
 * destroyed simulation is foreign. */
static int test_null_and_unissued(void)
{
    orca_sim *a = sim_new();
    ENSURE(a);
    orca_agent_id ag[6];
    orca_segment_id sg[4];
    orca_boundary_id lp;
    ENSURE(fill(a, ag, sg, &lp) == 0);
    observed o = observe(a);
    orca_agent_id null_agent = {0, 0, 0};
    orca_segment_id null_seg = {0, 0, 0};
    orca_boundary_id null_loop = {0, 0, 0};
    ENSURE(orca_sim_remove_agent(a, null_agent) == ORCA_ERR_STALE);
    ENSURE(strstr(orca_sim_last_error(a), "{slot 0, generation 0, sim 0} is stale (the null") !=
           NULL);
    ENSURE(orca_sim_remove_segment(a, null_seg) == ORCA_ERR_STALE);
    ENSURE(orca_sim_remove_boundary(a, null_loop) == ORCA_ERR_STALE);
    ENSURE(orca_sim_remove_agents(a, &null_agent, 1) == ORCA_ERR_STALE);
    ENSURE(orca_sim_agent_index(a, null_agent) == -1);
    /* what a program built with the two-field handles of 0.2 would pass: sim 0 */
    orca_agent_id old_style = {ag[2].slot, ag[2].generation, 0};
    ENSURE(orca_agent_set_priority(a, old_style, 3) == ORCA_ERR_FOREIGN);
    ENSURE_MSG(strstr(orca_sim_last_error(a), "was issued by no simulation") != NULL, "%s",
               orca_sim_last_error(a));
    orca_segment_id seg_old = {sg[1].slot, sg[1].generation, 0};
    ENSURE(orca_sim_remove_segment(a, seg_old) == ORCA_ERR_FOREIGN);
    orca_boundary_id loop_old = {lp.slot, lp.generation, 0};
    ENSURE(orca_sim_remove_boundary(a, loop_old) == ORCA_ERR_FOREIGN);
    /* a stale handle of this simulation is stale, not foreign */
    orca_agent_id later = ag[2];
    later.generation += 1;
    ENSURE(orca_sim_remove_agent(a, later) == ORCA_ERR_STALE);
    ENSURE(strstr(orca_sim_last_error(a), "is stale") != NULL);
    /* a handle of a destroyed simulation */
    orca_sim *gone = sim_new();
    ENSURE(gone);
    orca_agent_id hg[6];
    orca_segment_id sgg[4];
    orca_boundary_id lg;
    ENSURE(fill(gone, hg, sgg, &lg) == 0);
    orca_sim_destroy(gone);
    ENSURE(orca_sim_remove_agent(a, hg[2]) == ORCA_ERR_FOREIGN);
    observed now = observe(a);
    ENSURE(same_observed(&o, &now));
    orca_sim_destroy(a);
    return 0;
}

/* Identities: never 0, distinct, in creation order; every handle a simulation gives out
 * carries its identity; the null handle from *_at out of range is all zero. */
static int test_identity(void)
{
    ENSURE(orca_sim_id(NULL) == 0);
    orca_sim *s[5];
    for (int k = 0; k < 5; ++k) {
        s[k] = sim_new();
        ENSURE(s[k] && orca_sim_id(s[k]) != 0);
        for (int j = 0; j < k; ++j) {
            ENSURE(orca_sim_id(s[j]) != orca_sim_id(s[k]));
        }
        if (k > 0) {
            ENSURE(orca_sim_id(s[k]) == orca_sim_id(s[k - 1]) + 1); /* one thread creating */
        }
    }
    orca_sim *a = s[4];
    uint32_t id = orca_sim_id(a);
    orca_agent_id ag[6];
    orca_segment_id sg[4];
    orca_boundary_id lp;
    ENSURE(fill(a, ag, sg, &lp) == 0);
    for (int k = 0; k < 6; ++k) {
        ENSURE(ag[k].sim == id);
        ENSURE(orca_sim_agent_at(a, k).sim == id);
    }
    orca_agent_def defs[2] = {orca_agent_def_default(), orca_agent_def_default()};
    defs[1].position.x = 40;
    orca_agent_id two[2];
    ENSURE(orca_sim_add_agents(a, defs, 2, two) == ORCA_OK);
    ENSURE(two[0].sim == id && two[1].sim == id);
    orca_segment_id poly[3];
    orca_vec2 pts[3] = {{-30, 30}, {-25, 30}, {-25, 35}};
    ENSURE(orca_sim_add_polyline(a, pts, 3, 1, poly) == ORCA_OK);
    for (int k = 0; k < 3; ++k) {
        ENSURE(poly[k].sim == id);
    }
    for (int k = 0; k < 4; ++k) {
        ENSURE(sg[k].sim == id && orca_sim_segment_at(a, k).sim == id);
    }
    ENSURE(lp.sim == id && orca_sim_boundary_at(a, 0).sim == id);
    /* with removals pending (agent_at's other path) */
    ENSURE(orca_sim_remove_agent(a, ag[0]) == ORCA_OK);
    ENSURE(orca_sim_agent_at(a, 2).sim == id);
    orca_agent_id none = orca_sim_agent_at(a, orca_sim_agent_count(a));
    ENSURE(none.slot == 0 && none.generation == 0 && none.sim == 0);
    none = orca_sim_agent_at(a, -1);
    ENSURE(none.slot == 0 && none.generation == 0 && none.sim == 0);
    none = orca_sim_agent_at(NULL, 0);
    ENSURE(none.sim == 0);
    orca_segment_id snone = orca_sim_segment_at(a, 99);
    ENSURE(snone.slot == 0 && snone.generation == 0 && snone.sim == 0);
    orca_boundary_id lnone = orca_sim_boundary_at(a, 1);
    ENSURE(lnone.slot == 0 && lnone.generation == 0 && lnone.sim == 0);
    /* the identity stays through a step, a worker change and a load */
    ENSURE(orca_sim_step(a, 0.25) == ORCA_OK);
    ENSURE(orca_sim_set_worker_count(a, 2) == ORCA_OK);
    ENSURE(orca_sim_id(a) == id);
    for (int k = 0; k < 5; ++k) {
        orca_sim_destroy(s[k]);
    }
    /* the scenario's handles are its simulation's */
    orca_scenario *sc = NULL, *sc2 = NULL;
    ENSURE(orca_scenario_create(NULL, 0.25, 1, &sc) == ORCA_OK);
    ENSURE(orca_scenario_create(NULL, 0.25, 1, &sc2) == ORCA_OK);
    orca_goal g = orca_goal_default();
    orca_agent_def d = orca_agent_def_default();
    orca_agent_id h1, h2;
    ENSURE(orca_scenario_add_agent(sc, &d, &g, &h1) == ORCA_OK);
    ENSURE(orca_scenario_add_agent(sc2, &d, &g, &h2) == ORCA_OK);
    ENSURE(h1.sim == orca_sim_id(orca_scenario_sim(sc)));
    ENSURE(h2.sim == orca_sim_id(orca_scenario_sim(sc2)) && h1.sim != h2.sim);
    ENSURE(h1.slot == h2.slot && h1.generation == h2.generation);
    ENSURE(orca_sim_remove_agent(orca_scenario_sim(sc), h2) == ORCA_ERR_FOREIGN);
    ENSURE(orca_sim_agent_count(orca_scenario_sim(sc)) == 1);
    orca_scenario_destroy(sc);
    orca_scenario_destroy(sc2);
    return 0;
}

static unsigned char *save(const orca_sim *s, size_t *size)
{
    if (orca_sim_save(s, NULL, 0, size) != ORCA_OK) {
        return NULL;
    }
    unsigned char *buf = malloc(*size);
    if (buf && orca_sim_save(s, buf, *size, size) != ORCA_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Snapshots: the identity is not in them; a load keeps the loading simulation's. */
static int test_save_load(void)
{
    orca_sim *a = sim_new(), *b = sim_new();
    ENSURE(a && b);
    uint32_t ida = orca_sim_id(a), idb = orca_sim_id(b);
    orca_agent_id ag[6];
    orca_segment_id sg[4];
    orca_boundary_id lp;
    ENSURE(fill(a, ag, sg, &lp) == 0);
    size_t size, size_b;
    unsigned char *snap = save(a, &size);
    ENSURE(snap);
    uint64_t h = orca_sim_hash(a);
    /* into the simulation that issued the handles: removed objects come back, the handles
     * saved with the snapshot are valid again */
    ENSURE(orca_sim_remove_agent(a, ag[2]) == ORCA_OK);
    ENSURE(orca_sim_remove_segment(a, sg[1]) == ORCA_OK);
    ENSURE(orca_sim_remove_boundary(a, lp) == ORCA_OK);
    orca_vec2 p;
    ENSURE(orca_agent_get_position(a, ag[2], &p) == ORCA_ERR_STALE);
    ENSURE(orca_sim_load(a, snap, size) == ORCA_OK);
    ENSURE(orca_sim_id(a) == ida && orca_sim_hash(a) == h);
    for (int k = 0; k < 6; ++k) {
        ENSURE(orca_sim_agent_index(a, ag[k]) >= 0);
        ENSURE(orca_agent_get_position(a, ag[k], &p) == ORCA_OK);
    }
    ENSURE(orca_segment_get(a, sg[1], NULL, NULL) == ORCA_OK);
    ENSURE(orca_boundary_get(a, lp, NULL, 0, NULL) == ORCA_OK);
    /* into another simulation: the same state and the same bytes; its identity stays, so A's
     * handles are foreign there and B's own handles (the same slots and generations) work */
    orca_agent_def extra = orca_agent_def_default();
    ENSURE(orca_sim_add_agent(b, &extra, NULL) == ORCA_OK); /* other content, replaced */
    ENSURE(orca_sim_load(b, snap, size) == ORCA_OK);
    ENSURE(orca_sim_id(b) == idb && orca_sim_hash(b) == h);
    unsigned char *snap_b = save(b, &size_b);
    ENSURE(snap_b && size_b == size && memcmp(snap, snap_b, size) == 0);
    observed o = observe(b);
    for (int k = 0; k < 6; ++k) {
        orca_agent_id hb = orca_sim_agent_at(b, orca_sim_agent_index(a, ag[k]));
        ENSURE(hb.slot == ag[k].slot && hb.generation == ag[k].generation && hb.sim == idb);
        ENSURE(orca_agent_get_position(b, hb, &p) == ORCA_OK);
        orca_agent_id moved = ag[k];
        moved.sim = idb;
        ENSURE(orca_sim_agent_index(b, moved) == orca_sim_agent_index(a, ag[k]));
        orca_agent_id a_handle = ag[k];
        ENSURE(foreign(b, &o, orca_sim_remove_agent(b, a_handle), "remove_agent", "agent",
                       a_handle.slot, a_handle.generation, ida) == 0);
    }
    ENSURE(orca_segment_get(b, sg[1], NULL, NULL) == ORCA_ERR_FOREIGN);
    orca_segment_id s1 = sg[1];
    s1.sim = idb;
    ENSURE(orca_segment_get(b, s1, NULL, NULL) == ORCA_OK);
    ENSURE(orca_sim_remove_boundary(b, lp) == ORCA_ERR_FOREIGN);
    ENSURE(orca_sim_boundary_at(b, 0).sim == idb);
    /* both continue alike */
    ENSURE(orca_sim_step(a, 0.25) == ORCA_OK && orca_sim_step(b, 0.25) == ORCA_OK);
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    free(snap);
    free(snap_b);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"foreign_refused_everywhere", test_foreign_refused_everywhere},
    {"foreign_in_batches", test_foreign_in_batches},
    {"null_and_unissued", test_null_and_unissued},
    {"identity", test_identity},
    {"save_load", test_save_load},
    {0, 0},
};
