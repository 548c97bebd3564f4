# SPDX-License-Identifier: MIT
"""Simulator.add_segments / remove_segments (orca_sim_add_segments, orca_sim_remove_segments)
and deferred segment removal: the same bits as one segment at a time, the list of segments in
index order as removing from a list gives, and a refusal changes nothing."""
import math

import numpy as np
import pytest

import orca


def _ends(seed, n):
    rng = np.random.default_rng(seed)
    return rng.uniform(-20, 20, size=(n, 2)), rng.uniform(-20, 20, size=(n, 2))


def _scene(batch):
    sim = orca.Simulator(workers=2)
    sim.add_agents(np.random.default_rng(1).uniform(-20, 20, size=(150, 2)),
                   preferred_velocity=(1, 0.5), radius=0.4)
    a, b = _ends(2, 60)
    if batch:
        segs = sim.add_segments(a, b)
    else:
        segs = [sim.add_segment(tuple(a[k]), tuple(b[k])) for k in range(60)]
    return sim, segs


def test_add_batch_equals_one_at_a_time():
    x, sx = _scene(True)
    y, sy = _scene(False)
    assert x.segment_count == y.segment_count == 60
    assert [(h.slot, h.generation) for h in sx] == [(h.slot, h.generation) for h in sy]
    assert [h.handle for h in x.segments] == [h.handle for h in sx]
    assert x.hash() == y.hash()


def test_remove_batch_equals_one_at_a_time_and_a_list():
    x, sx = _scene(True)
    y, sy = _scene(True)
    a, b = _ends(2, 60)
    ends = [(tuple(a[k]), tuple(b[k])) for k in range(60)]
    rng = np.random.default_rng(5)
    for rnd in range(6):
        pick = sorted(rng.choice(len(sx), size=min(7, len(sx)), replace=False),
                      key=lambda i: -((i * 31) % 7))
        x.remove_segments([sx[i] for i in pick])
        for i in pick:
            y.remove_segment(sy[i])
            y.hash()  # compacts at once
        keep = [i for i in range(len(sx)) if i not in set(pick)]
        sx = [sx[i] for i in keep]
        sy = [sy[i] for i in keep]
        ends = [ends[i] for i in keep]
        # index order with the removals pending, as the test's own list says
        assert x.segment_count == len(sx)
        assert [h.handle for h in x.segments] == [h.handle for h in sx]
        if rnd % 2:
            x.step(0.2, 2)
            y.step(0.2, 2)
        assert x.hash() == y.hash()
    # a simulation that never had the removed segments
    z = orca.Simulator()
    for h in x.agents:
        z.add_agent(h.position, velocity=h.velocity, preferred_velocity=(1, 0.5), radius=0.4)
    z.add_segments([e[0] for e in ends], [e[1] for e in ends])
    assert z.hash() == x.hash()
    z.step(0.2)
    x.step(0.2)
    assert z.hash() == x.hash()


def test_refusals_change_nothing():
    sim, segs = _scene(True)
    sim.remove_segment(segs[0])
    before = sim.hash()
    with pytest.raises(orca.StaleHandleError, match=r"ids\[1\]"):
        sim.remove_segments([segs[1], segs[0]])
    with pytest.raises(ValueError, match=r"ids\[0\] and ids\[2\]"):
        sim.remove_segments([segs[2], segs[3], segs[2]])
    sim.remove_segments([])
    assert sim.add_segments([], []) == []
    for bad in (2.0 ** 21, -2.0 ** 21, 1e300, -1.7976931348623157e308, math.inf, -math.inf,
                math.nan):
        a = np.zeros((3, 2))
        b = np.ones((3, 2))
        b[2, 1] = bad
        with pytest.raises(ValueError, match=r"b\[2\]\.y") as e:
            sim.add_segments(a, b)
        assert "nothing was added" in str(e.value)
        a[1, 0] = bad
        with pytest.raises(ValueError, match=r"a\[1\]\.x"):
            sim.add_segments(a, b)
    with pytest.raises(ValueError, match="same number of rows"):
        sim.add_segments(np.zeros((2, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError):
        sim.add_segments(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(TypeError):
        sim.remove_segments(5)
    with pytest.raises(TypeError):
        sim.remove_segments([segs[4], "x"])
    assert sim.segment_count == 59
    assert sim.hash() == before
    # the largest finite coordinates below the limit and the tiniest ones are accepted as given
    top = math.nextafter(2.0 ** 21, 0)
    got = sim.add_segments([(top, -top), (5e-324, -0.0)], [(-top, 2.2250738585072014e-308),
                                                          (0.0, -5e-324)])
    assert [tuple(g.ends[0]) for g in got] == [(top, -top), (5e-324, -0.0)]
    assert math.copysign(1, got[1].ends[0][1]) == -1
    assert sim.segment_count == 61
