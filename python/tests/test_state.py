# SPDX-License-Identifier: MIT
"""save/load, pickle and copy round trips; handles and array semantics."""
import copy
import pickle

import numpy as np
import pytest

import orca


def make():
    sc = orca.Scenario("crossing", seed=1, workers=2)
    sc.step(50)
    return sc


def test_save_load_round_trip():
    sc = make()
    sim = sc.simulation
    snap = sim.save()
    assert isinstance(snap, bytes)
    h = sim.hash()
    other = orca.Simulator()
    other.load(snap)
    assert other.hash() == h
    assert other.step_count == sim.step_count
    assert other.save() == snap
    # the copy steps to the same bits as the original
    prefs = sim.preferred_velocities
    other.set_preferred_velocities(prefs)
    sim.step(sc.dt, steps=5)
    other.step(sc.dt, steps=5)
    assert other.hash() == sim.hash()


def test_load_restores_handles():
    sim = orca.Simulator()
    a = sim.add_agent((0, 0))
    b = sim.add_agent((5, 0))
    snap = sim.save()
    sim.remove_agent(a)
    assert not a.alive
    sim.load(snap)
    assert a.alive and a.index == 0 and b.index == 1
    assert a.position == (0.0, 0.0)


@pytest.mark.parametrize("proto", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle(proto):
    sim = make().simulation
    sim.workers = 3
    sim2 = pickle.loads(pickle.dumps(sim, protocol=proto))
    assert type(sim2) is orca.Simulator
    assert sim2.hash() == sim.hash()
    assert sim2.workers == 3
    assert sim2.step_count == sim.step_count
    sim.step(0.1, 3)
    sim2.step(0.1, 3)
    assert sim2.hash() == sim.hash()


def test_copy_is_independent():
    sim = orca.Simulator()
    sim.add_agents([(0, 0), (3, 0)], preferred_velocity=(1, 0))
    for c in (sim.copy(), copy.copy(sim), copy.deepcopy(sim)):
        assert c.hash() == sim.hash()
        c.step(0.25)
        assert c.hash() != sim.hash()
        assert c.agent_count == 2


def test_scenario_pickles_with_its_goals():
    sc = orca.Scenario("circle", agents=10)
    sc.step(3)
    twin = pickle.loads(pickle.dumps(sc))
    sc.step(5)
    twin.step(5)
    assert twin.hash() == sc.hash() and twin.name == "circle"


def test_positions_are_copies():
    sim = orca.Simulator()
    sim.add_agents(np.array([[0.0, 0.0], [4.0, 0.0]]))
    p = sim.positions
    assert p.dtype == np.float64 and p.shape == (2, 2) and p.flags.writeable
    p[0, 0] = 99.0
    assert sim.positions[0, 0] == 0.0
    assert sim.velocities.shape == (2, 2)
    assert sim.preferred_velocities.shape == (2, 2)
    empty = orca.Simulator()
    assert empty.positions.shape == (0, 2)
    empty.set_preferred_velocities(np.zeros((0, 2)))
    empty.step(0.1)


def test_get_positions_out_buffers():
    import array
    sim = orca.Simulator()
    sim.add_agents([(1.0, 2.0), (3.0, 4.0)])
    out = np.empty((2, 2))
    assert sim.get_positions(out=out) is out
    assert out.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    buf = array.array("d", [0.0] * 4)  # any writable float64 buffer, no NumPy needed
    _ = sim.get_positions(out=buf)
    assert list(buf) == [1.0, 2.0, 3.0, 4.0]
    sim.get_velocities(out=out)
    assert out.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_handles_and_agent_fields():
    sim = orca.Simulator()
    a = sim.add_agent((1, 2), velocity=(0.5, 0), radius=0.25, max_speed=1.5, neighbor_dist=7,
                      max_neighbors=3, time_horizon=4, obstacle_time_horizon=2,
                      preferred_velocity=(1, 1))
    assert a.get() == {"position": (1.0, 2.0), "velocity": (0.5, 0.0),
                       "preferred_velocity": (1.0, 1.0), "radius": 0.25, "max_speed": 1.5,
                       "neighbor_dist": 7.0, "max_neighbors": 3, "time_horizon": 4.0,
                       "obstacle_time_horizon": 2.0}
    a.radius = 0.5
    a.max_speed = np.float32(2.0)
    a.max_neighbors = np.int64(4)
    a.neighbor_dist = 8
    a.time_horizon = 5
    a.obstacle_time_horizon = 6
    a.position = np.array([3.0, 4.0])
    a.velocity = [0, 1]
    a.preferred_velocity = (np.float64(2), 0)
    assert (a.radius, a.max_speed, a.max_neighbors, a.neighbor_dist, a.time_horizon,
            a.obstacle_time_horizon) == (0.5, 2.0, 4, 8.0, 5.0, 6.0)
    assert a.position == (3.0, 4.0) and a.velocity == (0.0, 1.0)
    assert a.preferred_velocity == (2.0, 0.0)
    a.set(radius=1.0, position=(0, 0))
    assert a.radius == 1.0 and a.position == (0.0, 0.0)
    assert sim.agents == [a] and sim.agent(0) == a and len(sim) == 1
    assert hash(sim.agent(0)) == hash(a)
    assert "index=0" in repr(a)


def test_segments():
    sim = orca.Simulator()
    s = sim.add_segment((0, 0), (1, 0))
    poly = sim.add_polyline([(0, 1), (1, 1), (1, 2)], closed=True)
    assert len(poly) == 3 and sim.segment_count == 4
    open_ = sim.add_polyline(np.array([[5.0, 5.0], [6.0, 5.0], [7.0, 6.0]]))
    assert len(open_) == 2
    assert s.ends == ((0.0, 0.0), (1.0, 0.0))
    sim.remove_segment(s)
    assert not s.alive and sim.segment_count == 5
    assert sim.segments[0] == poly[0]


def test_remove_keeps_the_others_bits():
    # removing an agent gives the bits the simulation would have had without it
    pts = [(0.0, 0.0), (3.0, 0.5), (6.0, -0.5), (9.0, 0.0)]
    a = orca.Simulator()
    handles = a.add_agents(pts, preferred_velocity=(1, 0))
    a.remove_agent(handles[1])
    b = orca.Simulator()
    b.add_agents([pts[0]] + pts[2:], preferred_velocity=(1, 0))
    a.step(0.25, 10)
    b.step(0.25, 10)
    assert a.hash() == b.hash()


def test_neighbors_and_constraints():
    sim = orca.Simulator()
    a, b, c = sim.add_agents([(0, 0), (2, 0), (100, 0)], radius=0.5)
    sim.add_segment((-1, -2), (1, -2))
    agents, segs = a.neighbors()
    assert agents == [1] and segs == [0]
    planes, hard = a.constraints(0.25)
    assert planes.shape == (2, 4) and hard == 1


def test_scenario_api():
    sc = orca.Scenario(dt=0.25, seed=7)
    assert sc.name == "custom" and sc.dt == 0.25 and sc.seed == 7
    a = sc.add_agent((0, 0), target=(5, 0), radius=0.5, max_speed=1.0)
    b = sc.add_agent((5, 0.1), goal="velocity", target=(-1, 0), radius=0.5)
    c = sc.add_agent((0, 5), goal="none")
    assert sc.agent_goal(0) == {"goal": "point", "target": (5.0, 0.0),
                                "preferred_speed": 1.0, "start": (0.0, 0.0), "goal_set": None}
    assert sc.agent_goal(1)["goal"] == "velocity"
    assert sc.agent_goal(2)["goal"] == "none"
    sc.name = "mine"
    assert sc.name == "mine"
    sc.step(40)
    assert sc.simulation.step_count == 40
    assert sc.arrived_count >= 2
    assert sc.max_agent_overlap >= 0 and sc.max_wall_overlap == 0
    assert sc.fallback_total >= 0 and sc.all_arrived_step >= -1
    assert a.alive and b.alive and c.alive
    sc.set_recording(False)
    sc.step()
    assert "mine" in repr(sc)
    for name in orca.SCENES:
        assert orca.Scenario(name, agents=30).simulation.agent_count > 0


def test_scenario_views_share_one_simulation():
    sc = orca.Scenario(dt=0.25)
    a = sc.add_agent((0, 0), target=(3, 0))
    v1, v2 = sc.simulation, sc.simulation
    assert a == v1.agent(0) == v2.agent(0) and hash(a) == hash(v2.agent(0))
    v1.add_agent((5, 5))
    assert v2.agent_count == 2
    del sc  # a view keeps the scenario alive
    v1.step(0.25)
    assert v2.step_count == 1
    assert orca.Simulator().add_agent((0, 0)) != a
