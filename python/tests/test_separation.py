# SPDX-License-Identifier: MIT
"""Coincident agents and stationary agents through Python (docs/extensions.md, "Coincident
agents"; docs/algorithm.md §11.3): the separation option as state (hash, snapshots), when it is
active, a fused pair parting and reaching its goals, the same hash as `orca run` with
`separation on` (ORCA_CLI), and an agent with max speed 0 standing exactly still."""
import json
import math
import os
import subprocess

import pytest

import orca


def fused_pair(sep):
    sc = orca.Scenario(dt=0.25, seed=3)
    sc.simulation.separation = sep
    for target in ((-10.0, 3.0), (10.0, -4.0)):
        sc.add_agent((0.0, 0.0), target=target, radius=0.5, max_speed=1.5, neighbor_dist=5.0,
                     time_horizon=2.0, obstacle_time_horizon=2.0, preferred_speed=1.3)
    return sc


def test_fused_pair_parts_and_arrives():
    sc = fused_pair(True)
    sc.step(200)
    assert sc.arrived_count == 2
    plain = fused_pair(False)
    plain.step(200)
    p = plain.simulation.positions
    assert plain.arrived_count == 0 and p[0][0] == p[1][0] and p[0][1] == p[1][1]


def test_option_is_state():
    sim = orca.Simulator()
    sim.add_agent((1.0, 2.0))
    assert sim.separation is False and sim.separation_active is False
    off = sim.hash()
    snap_off = sim.save()
    sim.separation = True
    assert sim.separation is True and sim.separation_active is True
    on = sim.hash()
    assert on != off
    snap_on = sim.save()
    sim.load(snap_off)
    assert sim.separation is False and sim.hash() == off
    sim.load(snap_on)
    assert sim.separation is True and sim.hash() == on
    sim.separation = False
    assert sim.hash() == off


def test_active_with_extensions():
    sim = orca.Simulator()
    a = sim.add_agent((0.0, 0.0))
    sim.add_agent((0.0, 0.0))
    assert sim.separation_active is False
    sim.diagnostics = True
    assert sim.separation_active is False  # diagnostics never change a bit
    sim.set_priority(a, 2.0)
    assert sim.separation_active is True and sim.separation is False
    sim.set_priority(a, 1.0)
    assert sim.separation_active is False
    sim.add_boundary([(-50, -50), (50, -50), (50, 50), (-50, 50)])
    assert sim.separation_active is True


def test_same_hash_as_orca_run(tmp_path):
    cli = os.environ.get("ORCA_CLI", "")
    if not (cli and os.access(cli, os.X_OK)):
        pytest.skip("ORCA_CLI (the orca command) not given")
    path = tmp_path / "fused.txt"
    path.write_text("separation on\ndt 0.25\nseed 3\n"
                    "agent 0 0 goal -10 3 radius=0.5 max_speed=1.5 neighbor_dist=5 "
                    "time_horizon=2 obstacle_time_horizon=2 preferred_speed=1.3\n"
                    "agent 0 0 goal 10 -4 radius=0.5 max_speed=1.5 neighbor_dist=5 "
                    "time_horizon=2 obstacle_time_horizon=2 preferred_speed=1.3\n")
    out = subprocess.run([cli, "run", str(path), "--steps", "120", "--json"], check=True,
                         capture_output=True, text=True)
    assert "warning" not in out.stderr
    sc = fused_pair(True)
    sc.step(120)
    assert json.loads(out.stdout)["hash"] == "%016x" % sc.simulation.hash()


def test_max_speed_zero_stands_still():
    sim = orca.Simulator()
    still = sim.add_agent((1.5, -2.25), max_speed=0.0, preferred_velocity=(1e-200, 0.0))
    sim.add_agent((-3.0, -2.0), preferred_velocity=(1.0, 0.0))
    for step in range(20):
        sim.step(0.25)
        vx, vy = still.velocity
        assert (vx, vy) == (0.0, 0.0)   # a zero: its program's own if a zero, else (+0, +0)
        if step == 0:                   # (1e-200, 0), replaced
            assert (math.copysign(1, vx), math.copysign(1, vy)) == (1.0, 1.0)
        assert tuple(still.position) == (1.5, -2.25)


def test_max_speed_zero_keeps_the_programs_zero():
    sim = orca.Simulator()
    alone = sim.add_agent((40.0, 40.0), max_speed=0.0, preferred_velocity=(-1.0, 2.0))
    for _ in range(5):
        sim.step(0.25)
        vx, vy = alone.velocity
        # (p / |p|) * 0 = (-0, +0): the program's result, within the max speed, is kept
        assert (math.copysign(1, vx), vx, math.copysign(1, vy), vy) == (-1.0, 0.0, 1.0, 0.0)
        assert tuple(alone.position) == (40.0, 40.0)
