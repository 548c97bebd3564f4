# SPDX-License-Identifier: MIT
"""Bulk calls refuse counts beyond the library's limits before anything is read or allocated
(issue 27, item 9): 2^30 agents in all, 2^28 segments, 2^26 polyline points, 2^24 boundary
edges, 2^20 waypoints, 2^29 planes. The arrays below are NumPy broadcast views (stride 0):
2^30 + 1 rows that cost no memory. On b0a408d add_agents copied such an array into a 16 GiB
block and the process was killed for memory after about a minute (24 GB machine); here each
refusal is a LimitError naming the count and the limit, at once, and nothing changes."""
import os
import time

import numpy as np
import pytest

import orca

QUICK = 2.0  # seconds: a refusal reads no row (a copy of 2^28 rows alone takes longer)


def rows(n, cols=2):
    """n rows of zeros costing no memory (a read-only broadcast view)."""
    return np.broadcast_to(np.zeros(cols), (n, cols))


class Lazy:
    """A sequence that reports a length and would fail if read."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        raise AssertionError("a refused bulk call read element %r" % (i,))


def refused(sim, call, exc, pattern):
    before = (sim.hash(), sim.save())
    t0 = time.perf_counter()
    with pytest.raises(exc, match=pattern) as e:
        call()
    took = time.perf_counter() - t0
    assert took < QUICK, "the refusal took %.2f s" % took
    assert (sim.hash(), sim.save()) == before
    return e.value


def populated():
    sim = orca.Simulator()
    sim.add_agents([(0, 0), (3, 0), (6, 0)])
    sim.add_segment((0, -5), (5, -5))
    return sim


def test_add_agents_beyond_2_30():
    sim = populated()
    e = refused(sim, lambda: sim.add_agents(rows(2 ** 30 + 1)), orca.LimitError,
                r"positions has 1073741825 rows, beyond the 2\^30 \(1073741824\) agents")
    assert e.status == "ORCA_ERR_LIMIT"
    # the agents already there count: 2^30 - 2 more would make 2^30 + 1
    refused(sim, lambda: sim.add_agents(rows(2 ** 30 - 2)), orca.LimitError,
            r"1073741822 rows, beyond .* \(it has 3\)")
    # a Python sequence of that length is refused before it is read
    refused(sim, lambda: sim.add_agents(Lazy(2 ** 31 + 5)), orca.LimitError, "2147483653 rows")
    assert sim.agent_count == 3


def test_memory_need_beyond_the_machine():
    # within the count limit, but more memory than the machine has: refused before allocating
    try:
        mem = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        pytest.skip("physical memory unknown")
    n = 2 ** 30 - 3
    if n * 200 <= mem:
        pytest.skip("this machine has memory for 2^30 agents")
    sim = populated()
    e = refused(sim, lambda: sim.add_agents(rows(n)), orca.OutOfMemoryError,
                r"1073741821 rows, which need at least \d+ bytes .* more than this machine's")
    assert e.status == "ORCA_ERR_MEMORY" and isinstance(e, MemoryError)


def test_segments_polylines_boundaries_waypoints_planes():
    sim = populated()
    refused(sim, lambda: sim.add_segments(rows(2 ** 28 + 1), rows(2 ** 28 + 1)), orca.LimitError,
            r"add_segments: a has 268435457 rows, beyond the 2\^28 \(268435456\) segments")
    refused(sim, lambda: sim.add_segments(rows(2), rows(2 ** 28)), orca.LimitError,
            r"b has 268435456 rows, beyond .* \(it has 1\)")
    refused(sim, lambda: sim.add_polyline(rows(2 ** 26 + 1)), orca.LimitError,
            r"add_polyline: points has 67108865 rows, beyond the 2\^26")
    refused(sim, lambda: sim.add_boundary(rows(2 ** 24 + 1)), orca.LimitError,
            r"add_boundary: points has 16777217 rows, beyond the 2\^24 \(16777216\)")
    refused(sim, lambda: sim.set_preferred_velocities(rows(2 ** 30 + 1)), ValueError,
            r"shape \(3, 2\)")
    refused(sim, lambda: sim.remove_agents(Lazy(2 ** 30 + 1)), orca.LimitError,
            r"remove_agents: handles has 1073741825 rows, beyond the 2\^30")
    refused(sim, lambda: sim.remove_segments(Lazy(2 ** 28 + 1)), orca.LimitError,
            r"remove_segments: handles has 268435457 rows, beyond the 2\^28")
    t0 = time.perf_counter()
    with pytest.raises(orca.LimitError, match=r"solve: planes has 536870913 rows, beyond"):
        orca.solve(rows(2 ** 29 + 1, 4), 1.0, (1, 0))
    with pytest.raises(orca.LimitError, match=r"lp_solve: planes has 536870913 rows"):
        orca.lp_solve(rows(2 ** 29 + 1, 4), 1.0, (1, 0))
    assert time.perf_counter() - t0 < QUICK
    sc = orca.Scenario(dt=0.25)
    sc.add_agent((0, 0), target=(5, 0))
    h = sc.hash()
    t0 = time.perf_counter()
    with pytest.raises(orca.LimitError, match=r"points has 1048577 rows, beyond the 2\^20"):
        sc.set_waypoints(0, rows(2 ** 20 + 1))
    assert time.perf_counter() - t0 < QUICK and sc.hash() == h
    assert sc.waypoints(0)["points"] == []


def test_at_the_limits_still_accepted():
    # the checks refuse only beyond the limits: small batches and the edge counts of the
    # cheap ones are accepted
    sim = orca.Simulator()
    sim.add_agents(rows(4) + np.arange(8.0).reshape(4, 2))
    sc = orca.Scenario(dt=0.25)
    sc.add_agent((0, 0), target=(5, 0))
    pts = np.stack([np.arange(2.0 ** 20) % 1000, np.zeros(2 ** 20)], axis=1)
    sc.set_waypoints(0, pts)
    assert sc.waypoints(0)["current"] == 0
    assert sim.agent_count == 4
