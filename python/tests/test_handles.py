# SPDX-License-Identifier: MIT
"""Handles carry their simulation (issue 27, item 8): a handle of simulator B used with
simulator A raises orca.ForeignHandleError naming the handle and both simulations, and A is
unchanged; handles compare equal and hash by value (kind, slot, generation, simulation), so
they work as dict keys; agent(i) out of range raises IndexError; snapshots and pickles keep
each simulator's identity. On b0a408d B's handle acted on A's agent in the same slot."""
import pickle

import pytest

import orca


def filled():
    """A simulator with 5 agents (slot 1 reused: generation 2), 3 segments and a loop."""
    sim = orca.Simulator()
    agents = [sim.add_agent((-8 + 4 * i, 0.5 * (i % 2)), preferred_velocity=(1, 0))
              for i in range(5)]
    sim.remove_agent(agents[1])
    agents[1] = sim.add_agent((0, 20))
    segs = sim.add_segments([(-20, -8), (-20, 8), (5, 30)], [(20, -8), (20, 8), (5, 30)])
    loop = sim.add_boundary([(-50, -50), (50, -50), (50, 50), (-50, 50)])
    return sim, agents, segs, loop


def state(sim):
    return sim.hash(), sim.save(), sim.agent_count, sim.segment_count, len(sim.boundaries)


def test_foreign_handles_refused_everywhere():
    a, aa, sa, la = filled()
    b, ab, sb, lb = filled()
    assert a.sim_id != b.sim_id and a.sim_id > 0 and b.sim_id > 0
    before = state(a)
    for x, y in zip(aa, ab):
        assert (x.slot, x.generation) == (y.slot, y.generation) and x != y
        assert x.sim_id == a.sim_id and y.sim_id == b.sim_id
    want = r"agent handle \{slot %d, generation %d, sim %d\} belongs to another simulation " \
           r"\(this is sim %d\)"
    core = orca._core.Sim
    for y in ab:
        pattern = want % (y.slot, y.generation, b.sim_id, a.sim_id)
        h = y.handle
        for call in (lambda: a.remove_agent(y), lambda: a.remove_agents([aa[0], y]),
                     lambda: a.set_priority(y, 3), lambda: a.set_layers(y, 2, 2),
                     lambda: a.set_locked(y, True), lambda: a.set_avoidance(y, priority=2),
                     lambda: a.avoidance(y), lambda: a.agent_diagnostics(y),
                     lambda: core.agent_get(a, h), lambda: core.agent_set(a, h, radius=1),
                     lambda: core.set_position(a, h, (1, 1)),
                     lambda: core.set_velocity(a, h, (1, 1)),
                     lambda: core.set_preferred_velocity(a, h, (1, 1)),
                     lambda: core.get_position(a, h), lambda: core.get_velocity(a, h),
                     lambda: core.agent_constraints(a, h, 0.25),
                     lambda: core.agent_neighbors(a, h), lambda: core.remove_agent(a, h)):
            with pytest.raises(orca.ForeignHandleError, match=pattern) as e:
                call()
            assert e.value.status == "ORCA_ERR_FOREIGN" and isinstance(e.value, ValueError)
            assert state(a) == before
        assert core.agent_index(a, h) == -1
    for y in sb:
        pattern = r"segment handle \{slot %d, generation %d, sim %d\} belongs to another" % (
            y.slot, y.generation, b.sim_id)
        for call in (lambda: a.remove_segment(y), lambda: a.remove_segments([sa[0], y]),
                     lambda: core.segment_get(a, y.handle)):
            with pytest.raises(orca.ForeignHandleError, match=pattern):
                call()
            assert state(a) == before
    for call in (lambda: a.remove_boundary(lb), lambda: core.boundary_get(a, lb.handle)):
        with pytest.raises(orca.ForeignHandleError, match=r"boundary handle .* sim %d\}" %
                           b.sim_id):
            call()
        assert state(a) == before
    # A's own handles still work, and a handle that is not an int of 96 bits is refused
    a.set_priority(aa[2], 3)
    a.remove_agent(aa[3])
    assert a.agent_count == 4
    for bad in (-1, 1 << 96):
        with pytest.raises(ValueError, match="not a handle"):
            core.remove_agent(a, bad)


def test_handles_are_values():
    sim, agents, segs, loop = filled()
    other, oagents, osegs, oloop = filled()
    # the same agent through two routes: equal, the same hash, one dict key
    i = agents[2].index
    assert sim.agent(i) == agents[2] and hash(sim.agent(i)) == hash(agents[2])
    assert sim.agents[agents[1].index] == agents[1]
    d = {a: k for k, a in enumerate(agents)}
    assert d[sim.agent(agents[3].index)] == 3 and len(d) == 5
    assert sim.segments[1] == segs[1] and {segs[1]: 1}[sim.segments[1]] == 1
    assert sim.boundaries[0] == loop
    # same slot and generation in another simulator: different handles
    assert all(x != y for x, y in zip(agents, oagents))
    assert len(set(agents) | set(oagents)) == 10
    # kinds differ even with equal numbers
    assert orca.Segment(sim, agents[0].handle) != agents[0]
    # a scenario's views share one simulation: their handles are equal
    sc = orca.Scenario(dt=0.25)
    h = sc.add_agent((0, 0), target=(3, 0))
    assert sc.simulation.agent(0) == h and sc.simulation.sim_id == h.sim_id
    assert "sim=%d" % sim.sim_id in repr(agents[0])


def test_agent_index_out_of_range_raises():
    sim, agents, _, _ = filled()
    for i in (5, 6, -1, -6, 2 ** 31 - 1):
        with pytest.raises(IndexError):
            sim.agent(i)
    empty = orca.Simulator()
    with pytest.raises(IndexError):
        empty.agent(0)
    one = orca.Simulator()
    one.add_agent((0, 0))
    with pytest.raises(IndexError, match=r"agent index 1 out of range \(1 agent\)$"):
        one.agent(1)
    with pytest.raises(IndexError, match=r"agent index 5 out of range \(5 agents\)$"):
        sim.agent(5)


def test_snapshots_keep_each_identity():
    a, aa, sa, la = filled()
    snap = a.save()
    a.remove_agent(aa[2])
    assert not aa[2].alive
    a.load(snap)  # the simulator that issued the handles: valid again
    assert aa[2].alive and aa[2].position == (0.0, 0.0)
    b = orca.Simulator()
    sid = b.sim_id
    b.load(snap)
    assert b.sim_id == sid and b.save() == snap and b.hash() == a.hash()
    with pytest.raises(orca.ForeignHandleError):
        b.remove_agent(aa[2])
    # b's own handles: the same slots and generations under b's identity
    assert [(x.slot, x.generation) for x in b.agents] == [(x.slot, x.generation) for x in a.agents]
    assert b.agent(aa[2].index).position == aa[2].position
    # a pickle carries the handles with the simulator: they follow it to the new simulation
    b2, agents2 = pickle.loads(pickle.dumps((a, aa)))
    assert b2.sim_id != a.sim_id and all(x.sim_id == b2.sim_id for x in agents2)
    assert [x.position for x in agents2] == [x.position for x in aa]
    b2.remove_agent(agents2[0])
    assert b2.agent_count == 4 and a.agent_count == 5
