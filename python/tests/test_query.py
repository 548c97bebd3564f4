# SPDX-License-Identifier: MIT
"""Spatial queries through Python (docs/extensions.md, "Spatial queries") against a brute force
over the positions array, in the documented order."""
import numpy as np
import pytest

import orca


def scene():
    sc = orca.Scenario("random", agents=2000, seed=7)
    sc.step(5)
    return sc.simulation


def brute_radius(pos, c, r):
    d = (pos[:, 0] - c[0]) * (pos[:, 0] - c[0]) + (pos[:, 1] - c[1]) * (pos[:, 1] - c[1])
    rr = r * r
    return sorted((float(d[i]), i) for i in range(len(pos)) if d[i] <= rr)


def test_radius_nearest_box_equal_brute_force():
    sim = scene()
    pos = sim.positions
    rng = np.random.default_rng(3)
    lo_all, hi_all = pos.min(axis=0), pos.max(axis=0)
    for _ in range(60):
        c = rng.uniform(lo_all - 10, hi_all + 10)
        r = float(rng.choice([0.0, 0.5, 3.0, 12.0, 80.0, 1e4]))
        want = [i for _, i in brute_radius(pos, c, r)]
        assert sim.query_radius(c, r) == want
        k = int(rng.integers(0, 40))
        everyone = [i for _, i in brute_radius(pos, c, 1e9)]
        assert sim.query_nearest(c, k) == everyone[:k]
        a, b = rng.uniform(lo_all - 5, hi_all + 5), rng.uniform(lo_all - 5, hi_all + 5)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        inside = [i for i in range(len(pos))
                  if lo[0] <= pos[i, 0] <= hi[0] and lo[1] <= pos[i, 1] <= hi[1]]
        assert sim.query_box(lo, hi) == inside


def test_query_edges_and_ties():
    sim = orca.Simulator()
    for p in [(1, 0), (0, 1), (-1, 0), (0, -1), (3, 0)]:
        sim.add_agent(p)
    # four agents at squared distance exactly 1: index order breaks the tie
    assert sim.query_radius((0, 0), 1.0) == [0, 1, 2, 3]
    assert sim.query_nearest((0, 0), 2) == [0, 1]
    assert sim.query_nearest((0, 0), 100) == [0, 1, 2, 3, 4]
    assert sim.query_nearest((0, 0), 0) == []
    # box edges included; a box of one point
    assert sim.query_box((3, 0), (3, 0)) == [4]
    assert sim.query_box((-1e300, -1e300), (1e300, 1e300)) == [0, 1, 2, 3, 4]
    assert orca.Simulator().query_nearest((0, 0), 3) == []


@pytest.mark.parametrize("call, arg", [
    (lambda s: s.query_radius((float("nan"), 0), 1), "nan"),
    (lambda s: s.query_radius((2.0 ** 21, 0), 1), "2097152"),
    (lambda s: s.query_radius((0, 0), -1), "-1"),
    (lambda s: s.query_radius((0, 0), 2.0 ** 24), "16777216"),
    (lambda s: s.query_nearest((0, 0), -1), "-1"),
    (lambda s: s.query_nearest((float("inf"), 0), 1), "inf"),
    (lambda s: s.query_box((1, 0), (0, 1)), "1"),
    (lambda s: s.query_box((0, 0), (float("inf"), 1)), "inf"),
])
def test_query_errors_name_the_value(call, arg):
    sim = orca.Simulator()
    sim.add_agent((0, 0))
    h = sim.hash()
    with pytest.raises(orca.ArgumentError) as e:
        call(sim)
    assert arg in str(e.value).lower()
    assert sim.hash() == h


def test_query_wrong_types():
    sim = orca.Simulator()
    with pytest.raises(TypeError):
        sim.query_radius("here", 1)
    with pytest.raises((TypeError, ValueError)):
        sim.query_nearest((0, 0), 1.5)
