# SPDX-License-Identifier: MIT
"""The density-dependent speed through Python (docs/extensions.md, "Density-dependent speed"):
on, off and its parameters; part of the state (hash, save/load, copy, pickle); refused values
over the binary64 range change nothing; a dense block walks slower than without it; the same
hash as `orca run` with `density_speed on` (ORCA_CLI)."""
import copy
import json
import math
import os
import pickle
import subprocess

import pytest

import orca

DEFAULTS = {"radius": 2.0, "gamma": 1.913, "max_density": 5.4}


def block(sim, x0=0.0, y0=0.0, gap=0.5, n=6):
    for i in range(n):
        for j in range(n):
            sim.add_agent((x0 + i * gap, y0 + j * gap), radius=0.2, neighbor_dist=2.0,
                          max_neighbors=64, time_horizon=2.0, preferred_velocity=(1.34, 0.0))


def test_on_off_and_parameters():
    sim = orca.Simulator()
    block(sim)
    assert sim.density_speed is None
    off = sim.hash()
    sim.set_density_speed()
    assert sim.density_speed == DEFAULTS
    assert sim.separation_active is True
    on = sim.hash()
    assert on != off
    sim.set_density_speed(radius=1.5)
    assert sim.density_speed == dict(DEFAULTS, radius=1.5)
    sim.set_density_speed(gamma=2, max_density=5)  # None keeps the value in use
    assert sim.density_speed == {"radius": 1.5, "gamma": 2.0, "max_density": 5.0}
    assert sim.hash() not in (on, off)
    sim.clear_density_speed()
    assert sim.density_speed is None and sim.hash() == off
    sim.set_density_speed()  # the defaults again after clearing
    assert sim.density_speed == DEFAULTS and sim.hash() == on


def test_state_travels():
    sim = orca.Simulator(workers=2)
    block(sim)
    sim.set_density_speed(radius=1.75, gamma=2.5, max_density=4.75)
    sim.step(0.1)
    snap = sim.save()
    for other in (sim.copy(), copy.deepcopy(sim), pickle.loads(pickle.dumps(sim))):
        assert other.density_speed == sim.density_speed
        assert other.hash() == sim.hash()
    fresh = orca.Simulator()
    fresh.load(snap)
    assert fresh.density_speed == sim.density_speed and fresh.hash() == sim.hash()
    for s in (sim, fresh):
        for _ in range(5):
            s.step(0.1)
    assert fresh.hash() == sim.hash()
    # a scenario's snapshot carries its simulation's
    sc = orca.Scenario(dt=0.1, seed=2)
    sc.add_agent((0.0, 0.0), target=(10.0, 0.0))
    sc.simulation.set_density_speed(radius=3.0)
    sc.step(3)
    for other in (sc.copy(), pickle.loads(pickle.dumps(sc))):
        assert other.simulation.density_speed == dict(DEFAULTS, radius=3.0)
        assert other.simulation.hash() == sc.simulation.hash()
    # a snapshot without it turns it off
    plain = orca.Simulator()
    block(plain)
    fresh.load(plain.save())
    assert fresh.density_speed is None and fresh.hash() == plain.hash()


@pytest.mark.parametrize("field", ["radius", "gamma", "max_density"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 5e-324,
                                   2.0 ** -31, 2.0 ** 31, 1e300, 1.7976931348623157e308])
def test_refused_values_change_nothing(field, value):
    sim = orca.Simulator()
    block(sim, n=2)
    sim.set_density_speed(radius=1.25, gamma=2.0, max_density=5.0)
    before = (sim.density_speed, sim.hash())
    with pytest.raises(orca.ArgumentError, match=field):
        sim.set_density_speed(**{field: value})
    assert (sim.density_speed, sim.hash()) == before
    sim.clear_density_speed()
    with pytest.raises(orca.ArgumentError):
        sim.set_density_speed(**{field: value})
    assert sim.density_speed is None


def test_type_errors():
    sim = orca.Simulator()
    with pytest.raises(TypeError):
        sim.set_density_speed(radius="2")
    with pytest.raises(TypeError):
        sim.set_density_speed(1, 2, 3, 4)
    assert sim.density_speed is None


def mean_advance(on, steps=40):
    sim = orca.Simulator()
    block(sim)
    if on:
        sim.set_density_speed()
    start = sim.positions.copy()
    for _ in range(steps):
        sim.step(0.1)
    return float((sim.positions[:, 0] - start[:, 0]).mean()) / (steps * 0.1)


def test_dense_block_slower():
    assert mean_advance(True) < 0.6 * mean_advance(False)


def test_pinned_hash():
    # the scene and hash of test/test_density.c's pinned_hash (and the browser module's test)
    sim = orca.Simulator()
    for i in range(100):
        sim.add_agent(((i % 10) * 0.5, (i // 10) * 0.5), radius=0.2, neighbor_dist=2.0,
                      max_neighbors=64, time_horizon=2.0, obstacle_time_horizon=2.0,
                      preferred_velocity=(1.34, 0.05 * (i % 3)))
    sim.set_density_speed()
    for _ in range(40):
        sim.step(0.1)
    assert sim.hexhash() == "f011970776cc6b30"


def test_same_hash_as_orca_run(tmp_path):
    cli = os.environ.get("ORCA_CLI", "")
    if not (cli and os.access(cli, os.X_OK)):
        pytest.skip("ORCA_CLI (the orca command) not given")
    path = tmp_path / "dense.txt"
    lines = ["density_speed on radius=1.5", "dt 0.1", "seed 3"]
    for i in range(5):
        for j in range(5):
            lines.append("agent %g %g goal 50 %g radius=0.2 neighbor_dist=2 max_neighbors=64 "
                         "time_horizon=2 preferred_speed=1.34" % (i * 0.5, j * 0.5, j * 0.5))
    path.write_text("\n".join(lines) + "\n")
    out = subprocess.run([cli, "run", str(path), "--steps", "60", "--json"], check=True,
                         capture_output=True, text=True)
    sc = orca.Scenario(dt=0.1, seed=3)
    sc.simulation.set_density_speed(radius=1.5)
    for i in range(5):
        for j in range(5):
            sc.add_agent((i * 0.5, j * 0.5), target=(50.0, j * 0.5), radius=0.2,
                         neighbor_dist=2.0, max_neighbors=64, time_horizon=2.0,
                         preferred_speed=1.34)
    sc.step(60)
    assert json.loads(out.stdout)["hash"] == "%016x" % sc.simulation.hash()
