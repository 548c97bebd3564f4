# SPDX-License-Identifier: MIT
"""Seeded random sequences of API calls with values from the edges of binary64, wrong types
and stale handles: every call either succeeds or raises one of the documented exceptions,
a refused call leaves the state (its snapshot bytes) unchanged, and nothing crashes."""
import math
import os
import pickle
import random

import numpy as np
import pytest

import orca

FLOATS = [0.0, -0.0, 5e-324, 1e-300, 2.0 ** -30, 0.5, 1.0, 1.5, 10.0, 2.0 ** 21,
          math.nextafter(2.0 ** 21, 0), 2.0 ** 30, 2.0 ** 31, 1e300, 1.7976931348623157e308,
          -1.0, -1e300, math.inf, -math.inf, math.nan, 3, -3, 10 ** 400, True, np.float32(2.5),
          np.int64(7)]
JUNK = [None, "x", b"xy", [], [1.0], (1.0, 2.0, 3.0), {}, object(), np.zeros(3),
        np.zeros((2, 2), dtype=np.float32)]
EXPECTED = (ValueError, TypeError, IndexError, orca.Error)


def value(rng):
    r = rng.random()
    if r < 0.75:
        return rng.choice(FLOATS)
    return rng.choice(JUNK)


def vec(rng):
    r = rng.random()
    if r < 0.8:
        return (value(rng) if rng.random() < 0.3 else rng.uniform(-50, 50),
                value(rng) if rng.random() < 0.3 else rng.uniform(-50, 50))
    return value(rng)


def rows(rng, n, cols=2):
    r = rng.random()
    a = np.array([[rng.uniform(-50, 50) for _ in range(cols)] for _ in range(n)])
    if r < 0.2 and n:
        a[rng.randrange(n), rng.randrange(cols)] = rng.choice(FLOATS[13:22])
    elif r < 0.3:
        return a.astype(np.float32)
    elif r < 0.35:
        return a.tolist()
    elif r < 0.4:
        return a[:, :1]
    return a


def fields(rng):
    names = ["velocity", "radius", "max_speed", "neighbor_dist", "max_neighbors",
             "time_horizon", "obstacle_time_horizon", "preferred_velocity"]
    out = {}
    for name in rng.sample(names, rng.randrange(3)):
        out[name] = vec(rng) if "velocity" in name else (
            rng.randrange(-2, 1100) if name == "max_neighbors" and rng.random() < 0.7
            else value(rng))
    return out


# ORCA_FUZZ_SEEDS=300 for a longer run (6 by default)
@pytest.mark.parametrize("seed", range(int(os.environ.get("ORCA_FUZZ_SEEDS", "6"))))
def test_random_api_sequences(seed):
    rng = random.Random(seed)
    sim = orca.Simulator(workers=rng.choice([1, 2]))
    agents, segs = [], []
    for _ in range(600):
        op = rng.randrange(16)
        before = sim.save()
        try:
            if op == 0:
                agents.append(sim.add_agent(vec(rng), **fields(rng)))
            elif op == 1:
                agents.extend(sim.add_agents(rows(rng, rng.randrange(5)), **fields(rng)))
            elif op == 2 and agents:
                sim.remove_agent(rng.choice(agents))
            elif op == 3 and agents:
                a = rng.choice(agents)
                setattr(a, rng.choice(["position", "velocity", "preferred_velocity"]), vec(rng))
            elif op == 4 and agents:
                a = rng.choice(agents)
                setattr(a, rng.choice(["radius", "max_speed", "neighbor_dist",
                                       "max_neighbors", "time_horizon",
                                       "obstacle_time_horizon"]), value(rng))
            elif op == 5:
                segs.append(sim.add_segment(vec(rng), vec(rng)))
            elif op == 6:
                segs.extend(sim.add_polyline(rows(rng, rng.randrange(4)),
                                             closed=rng.random() < 0.5))
            elif op == 7 and segs:
                sim.remove_segment(rng.choice(segs))
            elif op == 8:
                sim.set_preferred_velocities(rows(rng, sim.agent_count + rng.choice([0, 0, 1])))
            elif op == 9:
                sim.step(rng.choice([0.1, 0.25, value(rng)]), rng.choice([1, 0, -1]))
            elif op == 10:
                if rng.random() < 0.5:
                    sim.load(before[: rng.randrange(len(before) + 1)])
                else:
                    # the handles travel with the simulator (a new simulation: its identity)
                    sim, agents, segs = pickle.loads(pickle.dumps((sim, agents, segs)))
            elif op == 11 and agents:
                a = rng.choice(agents)
                a.constraints(rng.choice([0.1, value(rng)]))
                a.neighbors()
                a.get()
            elif op == 12:
                sim.get_positions(out=np.empty((sim.agent_count + rng.choice([0, 1]), 2)))
                sim.velocities
            elif op == 13:
                orca.solve(rows(rng, rng.randrange(4), 4), value(rng), vec(rng),
                           hard_count=rng.randrange(3))
            elif op == 14:
                orca.constraint_agent(vec(rng), value(rng), vec(rng), vec(rng), value(rng), 0.1)
            elif op == 15:
                sim.workers = rng.choice([1, 2, 3, 0, 65])
        except EXPECTED:
            if op not in (10, 13, 14):
                assert sim.save() == before, "refused op %d changed the state" % op
        assert sim.agent_count == len(sim.positions)
    sim.hash()
