/* SPDX-License-Identifier: MIT */
/* orca_agents_refill (src/sim_internal.h), the trusted bulk refill orca on MPI puts its local
 * list into a simulation with every step (docs/mpi.md, "The refill"): a simulation refilled
 * with values holds what one that added them holds (the same hash, then the same bits step
 * after step), every handle issued before is stale and agent i's is orca_sim_agent_at(s, i),
 * shrinking and growing keep the slot table usable, a simulation with walkable-area
 * boundaries refilled steps as one that added the agents to the same loops (the disc check an
 * addition makes is the refill's only omission there), avoidance settings and streams stored
 * after a refill give the setters' hash, and a bad count is refused with nothing changed. */
#include "test.h"

#include <orca/sim.h>

#include "sim_internal.h"

/* Agent k of the test's crowd: two files walking into each other. */
static orca_agent_def crowd(int k)
{
    orca_agent_def d = orca_agent_def_default();
    d.position = vec((k % 2 ? 6.0 : -6.0) + 0.25 * k, 1.1 * (k / 2));
    d.velocity = vec(k % 2 ? -0.5 : 0.5, 0.0);
    d.preferred_velocity = vec(k % 2 ? -1.2 : 1.2, 0.01 * k);
    d.radius = 0.4 + 0.01 * k;
    d.neighbor_dist = 4.0 + k;
    d.max_neighbors = 3 + k;
    return d;
}

/* s refilled with crowd(0 .. n) (hints 0, as for added agents). */
static orca_status refill(orca_sim *s, int n)
{
    orca_status st = orca_agents_refill(s, n);
    for (int k = 0; st == ORCA_OK && k < n; ++k) {
        orca_agent_def d = crowd(k);
        orca_agent_store(s, k, &d);
        s->par[k].nb_guess = 0;
    }
    return st;
}

/* A simulation with the wall and crowd(0 .. n) added; NULL if refused. */
static orca_sim *added(int n)
{
    orca_sim *s = test_new_sim(1);
    orca_status st = s ? orca_sim_add_segment(s, vec(-3, -2), vec(3, -2), NULL) : ORCA_ERR_NULL;
    for (int k = 0; st == ORCA_OK && k < n; ++k) {
        orca_agent_def d = crowd(k);
        st = orca_sim_add_agent(s, &d, NULL);
    }
    if (st != ORCA_OK) {
        orca_sim_destroy(s);
        return NULL;
    }
    return s;
}

/* a and b stepped together: the same hash after every one of `steps` steps. */
static int same_steps(orca_sim *a, orca_sim *b, int steps)
{
    for (int step = 0; step < steps; ++step) {
        ENSURE(orca_sim_step(a, 0.25) == ORCA_OK && orca_sim_step(b, 0.25) == ORCA_OK);
        ENSURE_MSG(orca_sim_hash(a) == orca_sim_hash(b), "step %d", step);
    }
    return 0;
}

static int test_same_as_added(void)
{
    orca_sim *a = added(7), *b = test_new_sim(2);
    ENSURE(a && b);
    ENSURE(orca_sim_add_segment(b, vec(-3, -2), vec(3, -2), NULL) == ORCA_OK);
    orca_agent_id old[4];
    for (int k = 0; k < 4; ++k) {
        orca_agent_def d = crowd(10 + k);
        ENSURE(orca_sim_add_agent(b, &d, &old[k]) == ORCA_OK);
    }
    ENSURE(orca_sim_remove_agent(b, old[1]) == ORCA_OK); /* a removal pending */
    ENSURE(refill(b, 7) == ORCA_OK);
    ENSURE(orca_sim_agent_count(b) == 7);
    orca_agent_def got;
    for (int k = 0; k < 4; ++k) {
        ENSURE(orca_agent_get(b, old[k], &got) == ORCA_ERR_STALE);
    }
    for (int k = 0; k < 7; ++k) {
        orca_agent_def want = crowd(k);
        ENSURE(orca_agent_get(b, orca_sim_agent_at(b, k), &got) == ORCA_OK);
        ENSURE(orca_sim_agent_index(b, orca_sim_agent_at(b, k)) == k);
        ENSURE_BITS(got.position.x, want.position.x);
        ENSURE_BITS(got.preferred_velocity.y, want.preferred_velocity.y);
        ENSURE(got.max_neighbors == want.max_neighbors);
    }
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    ENSURE(same_steps(a, b, 20) == 0);
    /* fewer, then more: the slot table stays consistent, additions after a refill work */
    orca_agent_id keep = orca_sim_agent_at(b, 1);
    ENSURE(refill(b, 3) == ORCA_OK);
    ENSURE(orca_sim_agent_count(b) == 3);
    ENSURE(orca_agent_get(b, keep, &got) == ORCA_ERR_STALE);
    ENSURE(orca_sim_agent_at(b, 3).sim == 0);
    orca_agent_def d = crowd(20);
    orca_agent_id extra;
    ENSURE(orca_sim_add_agent(b, &d, &extra) == ORCA_OK);
    ENSURE(orca_sim_agent_index(b, extra) == 3 && orca_sim_agent_count(b) == 4);
    ENSURE(orca_sim_remove_agent(b, orca_sim_agent_at(b, 0)) == ORCA_OK);
    ENSURE(refill(b, 9) == ORCA_OK);
    ENSURE(orca_agent_get(b, extra, &got) == ORCA_ERR_STALE);
    ENSURE(orca_sim_agent_count(b) == 9);
    orca_sim_destroy(a);
    a = added(9);
    ENSURE(a && same_steps(a, b, 5) == 0); /* after growing */
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

static int test_refusals(void)
{
    orca_sim *s = test_new_sim(1);
    ENSURE(s);
    ENSURE(refill(s, 3) == ORCA_OK);
    uint64_t h = orca_sim_hash(s);
    ENSURE(orca_agents_refill(s, -1) == ORCA_ERR_LIMIT);
    ENSURE(orca_agents_refill(s, (1 << 30) + 1) == ORCA_ERR_LIMIT);
    ENSURE(orca_sim_agent_count(s) == 3 && orca_sim_hash(s) == h);
    orca_sim_destroy(s);
    return 0;
}

/* A room with a pillar around the crowd: refilled after the loops (as orca on MPI's local
 * simulation is), and with the settings and streams stored as the refill's caller stores
 * them, the same hash and steps as the agents added and set one by one. */
static int test_boundaries_settings_streams(void)
{
    const orca_vec2 room[] = {{-30, -10}, {30, -10}, {30, 20}, {-30, 20}};
    const orca_vec2 pillar[] = {{-1, -8}, {-1, -6}, {1, -6}, {1, -8}};
    orca_sim *a = added(9), *b = test_new_sim(2);
    ENSURE(a && b);
    ENSURE(orca_sim_add_segment(b, vec(-3, -2), vec(3, -2), NULL) == ORCA_OK);
    for (int k = 0; k < 2; ++k) {
        ENSURE(orca_sim_add_boundary(a, k ? pillar : room, 4, NULL) == ORCA_OK);
        ENSURE(orca_sim_add_boundary(b, k ? pillar : room, 4, NULL) == ORCA_OK);
    }
    ENSURE(refill(b, 9) == ORCA_OK);
    for (int k = 0; k < 9; k += 2) {
        agent_ext e = orca_ext_defaults();
        e.priority = 1.0 + k;
        e.layers = 1u + (unsigned)(k % 3);
        ENSURE(orca_ext_store(b, k, &e));
        ENSURE(orca_agent_set_priority(a, orca_sim_agent_at(a, k), e.priority) == ORCA_OK);
        ENSURE(orca_agent_set_layers(a, orca_sim_agent_at(a, k), e.layers, e.mask) == ORCA_OK);
    }
    for (int k = 0; k < 9; ++k) {
        ENSURE(orca_stream_store(b, k, k % 2));
        ENSURE(orca_agent_set_stream(a, orca_sim_agent_at(a, k), k % 2) == ORCA_OK);
    }
    ENSURE(orca_sim_hash(a) == orca_sim_hash(b));
    ENSURE(same_steps(a, b, 12) == 0);
    orca_sim_destroy(a);
    orca_sim_destroy(b);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"same_as_added", test_same_as_added},
    {"refusals", test_refusals},
    {"boundaries_settings_streams", test_boundaries_settings_streams},
    {0, 0},
};
