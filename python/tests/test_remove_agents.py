# SPDX-License-Identifier: MIT
"""Simulator.remove_agents (orca_sim_remove_agents): the same bits as removing the agents one
at a time, and a refusal removes nothing."""
import numpy as np
import pytest

import orca


def _scene():
    rng = np.random.default_rng(3)
    sim = orca.Simulator()
    pts = rng.uniform(-20, 20, size=(200, 2))
    handles = sim.add_agents(pts, preferred_velocity=(1, 0), radius=0.5)
    return sim, handles


def test_batch_equals_one_at_a_time():
    a, ha = _scene()
    b, hb = _scene()
    pick = [7, 150, 3, 99, 42]
    a.remove_agents([ha[i] for i in pick])
    for i in pick:
        b.remove_agent(hb[i])
    assert a.agent_count == b.agent_count == 195
    assert a.hash() == b.hash()
    a.step(0.25, 5)
    b.step(0.25, 5)
    assert a.hash() == b.hash()
    # the same slots and generations (each simulation's handles carry its own identity)
    assert [(h.slot, h.generation) for h in a.agents] == [(h.slot, h.generation) for h in b.agents]
    assert all(h.sim_id == a.sim_id for h in a.agents)


def test_refusals_remove_nothing():
    sim, h = _scene()
    before = sim.hash()
    sim.remove_agent(h[0])
    with pytest.raises(orca.StaleHandleError):
        sim.remove_agents([h[1], h[0]])
    with pytest.raises(ValueError):
        sim.remove_agents([h[2], h[2]])
    assert sim.agent_count == 199
    sim.remove_agents([])
    assert sim.agent_count == 199
    assert sim.hash() != before
