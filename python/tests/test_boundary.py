# SPDX-License-Identifier: MIT
"""Walkable-area boundaries from Python (docs/python.md, docs/extensions.md): the handles,
refusals with the state unchanged, and agents that never leave a room with a pillar, checked
by an even-odd ray test written here."""
import math

import pytest

import orca

ROOM = [(0, 0), (20, 0), (20, 14), (0, 14)]
PILLAR = [(8, 5), (8, 9), (12, 9), (12, 5)]


def crossings(loop, q):
    c = 0
    for k in range(len(loop)):
        (ax, ay), (bx, by) = loop[k], loop[(k + 1) % len(loop)]
        if (ay > q[1]) != (by > q[1]):
            if ax + (q[1] - ay) * (bx - ax) / (by - ay) > q[0]:
                c += 1
    return c


def walkable(q):
    return crossings(ROOM, q) % 2 == 1 and crossings(PILLAR, q) % 2 == 0


def test_handles_and_refusals():
    sim = orca.Simulator()
    sim.add_agent((4, 4))
    b = sim.add_boundary(ROOM)
    assert sim.boundaries == [b]
    assert b.points == [(float(x), float(y)) for x, y in ROOM]
    h = sim.hash()
    for bad in ([(0, 0), (1, 1)], [(0, 0), (1, 0), (0, 0)], [(0, 0), (1, 1), (2, 2)],
                [(0, 0), (1, 0), (1, 3e6)], [(0, 0), (1, 0), (1, math.nan)]):
        with pytest.raises(orca.ArgumentError):
            sim.add_boundary(bad)
        assert sim.hash() == h and len(sim.boundaries) == 1
    p = sim.add_boundary(PILLAR)
    sim.remove_boundary(p)
    assert not p.alive and b.alive
    assert sim.hash() == h
    with pytest.raises(orca.StaleHandleError):
        sim.remove_boundary(p)


def test_agents_stay_inside():
    sim = orca.Simulator(workers=2)
    sim.add_boundary(ROOM)
    sim.add_boundary(PILLAR)
    agents = []
    for k in range(12):
        a = sim.add_agent((2 + (k % 3) * 1.5, 2 + (k // 3) * 2.5), radius=0.5,
                          obstacle_time_horizon=2)
        agents.append(a)
    for step in range(200):
        for k, a in enumerate(agents):
            # aimed at the pillar's corners and beyond the far wall
            gx, gy = (25, 10) if k % 2 else (10, -5)
            x, y = a.position
            d = math.hypot(gx - x, gy - y)
            a.preferred_velocity = ((gx - x) / d * 2, (gy - y) / d * 2)
        sim.step(0.25)
        for a in agents:
            assert walkable(a.position)
        deepest, outside = sim.measure_boundary()
        assert outside == 0 and deepest < 1e-9


def test_agents_must_fit():
    """An agent's disc must fit in the walkable area (docs/extensions.md): refused when added
    or moved outside or against a wall, and a loop that would leave an agent outside is
    refused; the message names the agent, the loop and the distance; nothing changes."""
    sim = orca.Simulator()
    sim.add_boundary(ROOM)
    h = sim.hash()
    with pytest.raises(orca.ArgumentError, match=r"agent 0 at \(30, 7\) is outside the walkable"):
        sim.add_agent((30, 7), radius=0.5)
    with pytest.raises(orca.ArgumentError, match=r"is 0.30000000000000071 from boundary loop 0"):
        sim.add_agent((19.7, 7), radius=0.5)
    with pytest.raises(orca.ArgumentError, match=r"agent 2 of 3: agent 2 at \(10, 20\)"):
        sim.add_agents([(2, 2), (4, 2), (10, 20)], radius=0.5)
    assert sim.hash() == h and sim.agent_count == 0
    a = sim.add_agent((10, 2), radius=0.5)
    with pytest.raises(orca.ArgumentError, match=r"outside the walkable area"):
        a.position = (10, -3)
    assert a.position == (10.0, 2.0)
    with pytest.raises(orca.ArgumentError, match=r"would leave agent 0 \(slot 0\) at \(10, 2\)"):
        sim.add_boundary([(9, 1), (9, 3), (11, 3), (11, 1)])
    assert len(sim.boundaries) == 1
