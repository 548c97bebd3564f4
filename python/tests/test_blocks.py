# SPDX-License-Identifier: MIT
"""The building blocks (orca/solver.h) from Python, NumPy in and out; the simulator's
constraints are the builders' results bit for bit."""
import numpy as np

import orca


def test_constraint_agent_forms():
    plane, form = orca.constraint_agent((3, 0), 1.0, (1, 0), (-1, 0), 2.0, 0.1)
    assert form == "cases" and plane.shape == (4,) and plane.dtype == np.float64
    assert plane[2] < 0  # pushes A back, away from B
    assert abs(plane[2] ** 2 + plane[3] ** 2 - 1) < 1e-15
    _, form = orca.constraint_agent((0.5, 0), 1.0, (0, 0), (0, 0), 2.0, 0.1)
    assert form == "overlap"


def test_constraint_segment_and_boundary():
    plane, form = orca.constraint_segment((-1, 2), (1, 2), 0.5, 2.0, 0.1)
    assert form == "support" and plane[3] < 0
    _, form = orca.constraint_segment((-1, 0.2), (1, 0.2), 0.5, 2.0, 0.1)
    assert form == "overlap"
    assert orca.constraint_boundary((1, 1), (1, 1), 0.0, 1.0) is None
    b = orca.constraint_boundary((-5, -1), (5, -1), 0.0, 2.0)
    assert b is not None and b.shape == (4,)


def test_vo_and_distances():
    d, n = orca.vo_support((3, 0), (3, 0), 1.0, 2.0, (0, 0))
    assert d > 0 and n.shape == (2,)
    d2, n2 = orca.vo_overlap((0.5, 0), (0.5, 0), 1.0, 0.1, (0, 0))
    assert d2 < 0
    assert orca.segment_distance_squared((3, -1), (3, 1)) == 9.0
    assert orca.halfplane_signed_distance((0, 0, 1, 0), (2, 5)) == 2.0
    s, c = orca.sincos_turns(0.25)
    assert abs(s - 1) < 1e-15 and abs(c) < 1e-15


def test_solve_and_programs():
    r = orca.solve(np.zeros((0, 4)), 1.0, (3.0, 4.0))
    assert r.failed == -1 and not r.fallback
    assert np.allclose(r.velocity, [0.6, 0.8])
    v, failed = orca.lp_solve([[0.5, 0, 1, 0]], 2.0, (0, 0))
    assert failed == -1 and v.tolist() == [0.5, 0.0]
    v, failed = orca.lp_solve([[0.5, 0, 1, 0]], 2.0, (0, 1), direction=True)
    assert failed == -1
    # contradicting constraints: the program fails, the fallback answers
    planes = np.array([[0.5, 0, 1, 0], [-0.5, 0, -1, 0]])
    r = orca.solve(planes, 2.0, (0, 0))
    assert r.failed == 1 and r.fallback
    fb = orca.lp_fallback(planes, 0, 1, 2.0)
    assert np.array_equal(fb, r.velocity)
    r = orca.solve(planes, 2.0, (0, 0), hard_count=1)
    assert r.fallback and "SolveResult" in repr(r)


def test_simulator_planes_are_the_builders():
    sim = orca.Simulator()
    a = sim.add_agent((0, 0), velocity=(0.5, 0.1), radius=0.4, time_horizon=3.0)
    b = sim.add_agent((2.5, 0.3), velocity=(-0.3, 0.0), radius=0.6)
    s = sim.add_segment((-2, -1.5), (2, -1.2))
    planes, hard = a.constraints(0.2)
    assert hard == 1 and planes.shape == (2, 4)
    seg, _ = orca.constraint_segment((-2, -1.5), (2, -1.2), 0.4, a.obstacle_time_horizon, 0.2)
    ag, _ = orca.constraint_agent((2.5, 0.3), 1.0, (0.5, 0.1), (-0.3, 0.0), 3.0, 0.2)
    assert np.array_equal(planes[0], seg)
    assert np.array_equal(planes[1], ag)
    assert b.alive and s.alive
