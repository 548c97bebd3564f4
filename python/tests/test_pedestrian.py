# SPDX-License-Identifier: MIT
"""The pedestrian model and preset through Python (docs/pedestrians.md): on, off and its
parameters; streams; part of the state (hash, save/load, copy, pickle); refused values change
nothing; the density-dependent speed and the model refuse each other; the diagnostics' counts;
the preset's agent, free speeds and streams in a Scenario; the pinned hash of
test/test_pedestrian.c."""
import copy
import pickle

import pytest

import orca

DEFAULTS = {"time_gap": 0.5, "buffer": 0.02, "counter_reach": 2.0, "max_planes": 4}


def crowd(sim):
    """test_pedestrian.c's pinned scene: a 10 x 10 block, left half +x as stream 0, right
    half -x as stream 1, every seventh agent without a stream."""
    for i in range(100):
        left = i % 10 < 5
        sim.add_agent(((i % 10) * 0.6, (i // 10) * 0.6), radius=0.18, neighbor_dist=2.0,
                      max_neighbors=32, time_horizon=2.0, obstacle_time_horizon=0.5,
                      preferred_velocity=(1.34 if left else -1.34, 0.05 * (i % 3)),
                      stream=-1 if i % 7 == 0 else int(not left))


def test_pinned_hash():
    for workers in (1, 2):
        sim = orca.Simulator(workers=workers)
        crowd(sim)
        sim.set_pedestrian()
        sim.step(0.05, 40)
        assert sim.hexhash() == "ce7a33481513c27d"


def test_on_off_and_parameters():
    sim = orca.Simulator()
    crowd(sim)
    assert sim.pedestrian is None
    assert dict(orca.PEDESTRIAN_DEFAULTS) == DEFAULTS
    off = sim.hash()
    sim.set_pedestrian()
    assert sim.pedestrian == DEFAULTS and sim.separation_active
    on = sim.hash()
    assert on != off
    sim.set_pedestrian(time_gap=0.8)
    assert sim.pedestrian == dict(DEFAULTS, time_gap=0.8)
    sim.set_pedestrian(buffer=0, max_planes=8)  # None keeps the value in use
    assert sim.pedestrian == {"time_gap": 0.8, "buffer": 0.0, "counter_reach": 2.0,
                              "max_planes": 8}
    sim.clear_pedestrian()
    assert sim.pedestrian is None and sim.hash() == off
    sim.set_pedestrian()
    assert sim.hash() == on


def test_refusals_change_nothing():
    sim = orca.Simulator()
    crowd(sim)
    sim.set_pedestrian()
    h = sim.hash()
    for bad in ({"time_gap": 0.0}, {"time_gap": float("nan")}, {"buffer": -1.0},
                {"counter_reach": float("inf")}, {"max_planes": 0}, {"max_planes": 1025}):
        with pytest.raises(orca.ArgumentError) as e:
            sim.set_pedestrian(**bad)
        assert next(iter(bad)) in str(e.value) and "got" in str(e.value)
        assert sim.pedestrian == DEFAULTS and sim.hash() == h
    with pytest.raises(orca.ArgumentError, match="pedestrian model"):
        sim.set_density_speed()
    assert sim.density_speed is None and sim.hash() == h
    agent = sim.agent(3)
    with pytest.raises(orca.ArgumentError, match="stream"):
        agent.stream = -2
    with pytest.raises(orca.ArgumentError, match="stream"):
        sim.add_agent((50, 50), stream=-5)
    assert len(sim) == 100 and sim.hash() == h
    sim.clear_pedestrian()
    sim.set_density_speed()
    with pytest.raises(orca.ArgumentError, match="density"):
        sim.set_pedestrian()
    assert sim.pedestrian is None


def test_streams_and_state_travel():
    sim = orca.Simulator(workers=2)
    crowd(sim)
    assert [sim.agent(i).stream for i in (0, 1, 5, 7)] == [-1, 0, 1, -1]
    sim.set_pedestrian(time_gap=0.6, counter_reach=1.5)
    sim.step(0.05, 3)
    snap = sim.save()
    for other in (sim.copy(), copy.deepcopy(sim), pickle.loads(pickle.dumps(sim))):
        assert other.pedestrian == sim.pedestrian
        assert other.agent(5).stream == 1 and other.hash() == sim.hash()
    fresh = orca.Simulator()
    fresh.load(snap)
    assert fresh.hash() == sim.hash()
    sim.step(0.05, 5)
    fresh.step(0.05, 5)
    assert fresh.hash() == sim.hash()
    handles = sim.add_agents([(100, 0), (101, 0)], stream=4)
    assert [a.stream for a in handles] == [4, 4]


def test_diagnostics_counts():
    sim = orca.Simulator()
    crowd(sim)
    sim.set_pedestrian()
    sim.diagnostics = True
    sim.step(0.05, 10)
    steps = sim.step_diagnostics()
    arrays = sim.diagnostics_arrays()
    assert steps.headway == int(arrays["headway_planes"].sum()) > 0
    assert steps.counter == int(arrays["counter_mode"].sum()) > 0
    assert arrays["headway_planes"].max() <= 4
    one = sim.agent(12).diagnostics()
    assert one.headway_planes == arrays["headway_planes"][12]


def test_scenario_preset():
    sc = orca.Scenario(pedestrian=True, seed=9)
    assert sc.dt == orca.PEDESTRIAN_DT == 0.05 and sc.pedestrian == DEFAULTS
    sc.add_goal_set("east", [(20.0, 0.0)])
    sc.add_goal_set("west", [(-20.0, 0.0)])
    a = sc.add_agent((0.0, 0.0), goal_set="west")
    b = sc.add_agent((1.0, 0.0), goal_set="east", radius=0.2, stream=7)
    c = sc.add_agent((2.0, 0.0), target=(5.0, 5.0), preferred_speed=1.1)
    assert a.stream == 1 and b.stream == 7 and c.stream == -1
    assert a.radius == orca.PEDESTRIAN_AGENT["radius"] == 0.18 and b.radius == 0.2
    assert a.max_neighbors == 32 and a.time_horizon == 2.0
    assert sc.agent_goal(0)["preferred_speed"] == orca.pedestrian_free_speed(9, 0)
    assert sc.agent_goal(2)["preferred_speed"] == 1.1
    speeds = [orca.pedestrian_free_speed(1, k) for k in range(4000)]
    assert min(speeds) >= 0.7 and max(speeds) <= 2.0
    mean = sum(speeds) / len(speeds)
    sd = (sum((v - mean) ** 2 for v in speeds) / len(speeds)) ** 0.5
    assert abs(mean - 1.34) < 0.02 and abs(sd - 0.26) < 0.02
    sc.step(20)
    again = orca.Scenario(dt=1.0)
    again.load(sc.save())
    assert again.hash() == sc.hash() and again.pedestrian == DEFAULTS
    # turning the preset on later gives existing goal-set agents without a stream theirs
    late = orca.Scenario(dt=0.05)
    late.add_goal_set("exit", [(10.0, 0.0)])
    d = late.add_agent((0.0, 0.0), goal_set="exit")
    assert d.stream == -1 and d.radius == orca.AGENT_DEFAULTS["radius"]
    late.set_pedestrian(time_gap=0.8)
    assert d.stream == 0 and late.pedestrian["time_gap"] == 0.8
    late.clear_pedestrian()
    assert late.pedestrian is None


SCENE = ("orca-scene 1\nname ped\npedestrian on\ngoalset east 20 0 20 1 20 -1\n"
         "goalset west -20 0\nagent 0 0 goalset east\nagent 1 0 goalset west radius=0.2\n"
         "agent 2 0 goalset east stream=5\nagent 3 0 goal 10 10\ndefault max_neighbors 20\n"
         "default preferred_speed 1.1\ngrid 3 2 0 3 0.6 0.6 goalset west\n")


def test_scene_file_preset(tmp_path):
    # the scene of test/test_pedestrian.c's scene_file_preset (and test/cli_tests.sh)
    path = tmp_path / "ped.txt"
    path.write_text(SCENE)
    sc = orca.read_scene(path)
    assert sc.dt == 0.05 and sc.pedestrian == DEFAULTS
    assert [sc.simulation.agent(i).stream for i in range(4)] == [0, 1, 5, -1]
    sc.step(30)
    assert sc.hexhash() == "2e658813a4f566b3"
    plain = tmp_path / "plain.txt"
    plain.write_text(SCENE.replace("pedestrian on\n", ""))
    flag = orca.read_scene(plain, pedestrian=True)
    flag.step(30)
    assert flag.hexhash() == "2e658813a4f566b3"
    assert orca.read_scene(plain).pedestrian is None
