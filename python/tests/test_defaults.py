# SPDX-License-Identifier: MIT
"""One set of defaults (issue 27, item 10; docs/scenarios.md, "Defaults"): Python's come from
the C library (orca_agent_def_default, orca_goal_default), so an agent added with defaults is
the agent a scene file or the C API makes. On b0a408d a point goal without preferred_speed
walked at the agent's max speed (2 m/s) in Python and at 1 m/s in a scene file: one agent,
two runs. test/golden/defaults-scene.txt, built here with Python's defaults, must reach the
hash of test/golden/defaults.txt, which the C API, `orca run` and the browser module reach."""
import inspect
import os
import re

import orca


def test_the_documented_values():
    assert dict(orca.AGENT_DEFAULTS) == {
        "position": (0.0, 0.0), "velocity": (0.0, 0.0), "preferred_velocity": (0.0, 0.0),
        "radius": 1.5, "max_speed": 2.0, "neighbor_dist": 15.0, "max_neighbors": 10,
        "time_horizon": 10.0, "obstacle_time_horizon": 10.0}
    assert dict(orca.GOAL_DEFAULTS) == {"goal": "none", "target": (0.0, 0.0),
                                        "preferred_speed": 1.0}
    # the signature shows the library's values
    params = inspect.signature(orca.Simulator.add_agent).parameters
    for name, value in orca.AGENT_DEFAULTS.items():
        if name != "position":
            assert params[name].default == value, name


def test_an_agent_with_defaults_is_the_c_default():
    sim = orca.Simulator()
    a = sim.add_agent((3, 4))
    want = dict(orca.AGENT_DEFAULTS, position=(3.0, 4.0))
    assert a.get() == want
    assert a.avoidance == orca.Avoidance(1.0, 1, 0xFFFFFFFF, False)
    b = sim.add_agents([(5, 6)])[0]
    assert b.get() == dict(want, position=(5.0, 6.0))


def test_point_goal_default_speed_is_one():
    sc = orca.Scenario(dt=0.25)
    sc.add_agent((0, 0), target=(10, 0))                  # max_speed 2 by default
    sc.add_agent((0, 5), target=(10, 5), max_speed=0.5)   # the speed does not follow it
    sc.add_agent((0, 9))
    assert sc.agent_goal(0)["preferred_speed"] == 1.0
    assert sc.agent_goal(1)["preferred_speed"] == 1.0
    assert sc.agent_goal(2)["goal"] == "none"


def test_defaults_scene_reaches_the_golden_hash(repo_root):
    golden_dir = os.path.join(repo_root, "test", "golden")
    with open(os.path.join(golden_dir, "defaults.txt")) as f:
        m = re.match(r"defaults-scene\.txt steps=(\d+) hash=([0-9a-f]{16})", f.read())
    steps, want = int(m.group(1)), m.group(2)
    sc = orca.Scenario(dt=0.25)  # a scene file's dt and seed
    with open(os.path.join(golden_dir, "defaults-scene.txt")) as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            assert words[0] == "agent"
            pos = (float(words[1]), float(words[2]))
            if len(words) > 3:
                assert words[3] == "goal" and len(words) == 6
                sc.add_agent(pos, target=(float(words[4]), float(words[5])))
            else:
                sc.add_agent(pos)
    assert sc.simulation.agent_count == 6
    sc.step(steps)
    assert sc.hexhash() == want
