# SPDX-License-Identifier: MIT
"""The Python-RVO2 drop-in: a Python-RVO2-style script runs; the shim computes the bits of
an orca.Simulator driven the same way; the getters report what the last step used."""
import contextlib
import io
import math
import os
import runpy

import numpy as np
import pytest

import orca
from orca import rvo2

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "rvo2_example.py")


def test_example_script_runs():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        g = runpy.run_path(EXAMPLE, run_name="__main__")
    text = out.getvalue()
    assert "Simulation has 8 agents and 4 obstacle vertices in it." in text
    assert text.count("step=") == 20
    sim = g["sim"]
    assert math.isclose(sim.getGlobalTime(), 20.0, rel_tol=1e-12)
    # everyone got around the pillar to the opposite side, nobody went through it
    for a, (gx, gy) in zip(g["agents"], g["goals"]):
        x, y = sim.getAgentPosition(a)
        assert math.hypot(gx - x, gy - y) < 0.5
    # the same script twice: the same bits
    out2 = io.StringIO()
    with contextlib.redirect_stdout(out2):
        g2 = runpy.run_path(EXAMPLE, run_name="__main__")
    assert out2.getvalue() == text
    assert g2["sim"].simulator.hash() == sim.simulator.hash()


def test_same_bits_as_simulator():
    r = rvo2.PyRVOSimulator(0.25, 5.0, 4, 2.0, 1.5, 0.5, 1.0, (0.0, 0.0))
    s = orca.Simulator()
    pts = [(0, 0), (4, 0.2), (2, 3), (-1, 2)]
    for p in pts:
        r.addAgent(p)
        s.add_agent(p, radius=0.5, max_speed=1.0, neighbor_dist=5.0, max_neighbors=4,
                    time_horizon=2.0, obstacle_time_horizon=1.5)
    r.addObstacle([(1, -1), (2, -1)])
    r.processObstacles()
    s.add_segment((1, -1), (2, -1))
    for k in range(30):
        for i in range(4):
            v = (math.cos(i + k * 0.1), math.sin(i - k * 0.1))
            r.setAgentPrefVelocity(i, v)
            s.agents[i].preferred_velocity = v
        r.doStep()
        s.step(0.25)
    assert r.simulator.hash() == s.hash()
    assert r.getNumAgents() == 4 and r.getTimeStep() == 0.25


def test_constructor_and_agent_parameters():
    r = rvo2.PyRVOSimulator(0.1, 10, 7, 3, 4, 0.3, 2.5, velocity=(1, 0))
    a = r.addAgent((0, 0))
    assert (r.getAgentNeighborDist(a), r.getAgentMaxNeighbors(a), r.getAgentTimeHorizon(a),
            r.getAgentTimeHorizonObst(a), r.getAgentRadius(a), r.getAgentMaxSpeed(a),
            r.getAgentVelocity(a)) == (10.0, 7, 3.0, 4.0, 0.3, 2.5, (1.0, 0.0))
    b = r.addAgent((5, 5), 1.0, 2, 3.0, 4.0, 0.5, 6.0, (0.5, 0.5))
    assert b == 1
    assert (r.getAgentNeighborDist(b), r.getAgentMaxNeighbors(b), r.getAgentTimeHorizon(b),
            r.getAgentTimeHorizonObst(b), r.getAgentRadius(b), r.getAgentMaxSpeed(b),
            r.getAgentVelocity(b)) == (1.0, 2, 3.0, 4.0, 0.5, 6.0, (0.5, 0.5))
    r.setAgentDefaults(2.0, 3, 1.0, 1.0, 0.2, 1.0)
    c = r.addAgent([1, 1])
    assert r.getAgentRadius(c) == 0.2 and r.getAgentVelocity(c) == (0.0, 0.0)
    r.setAgentRadius(c, 0.25)
    r.setAgentMaxSpeed(c, 3)
    r.setAgentNeighborDist(c, 4)
    r.setAgentMaxNeighbors(c, 5)
    r.setAgentTimeHorizon(c, 6)
    r.setAgentTimeHorizonObst(c, 7)
    r.setAgentPosition(c, (2, 2))
    r.setAgentVelocity(c, (0.1, 0.2))
    r.setAgentPrefVelocity(c, (0.3, 0.4))
    assert (r.getAgentRadius(c), r.getAgentMaxSpeed(c), r.getAgentNeighborDist(c),
            r.getAgentMaxNeighbors(c), r.getAgentTimeHorizon(c), r.getAgentTimeHorizonObst(c),
            r.getAgentPosition(c), r.getAgentVelocity(c), r.getAgentPrefVelocity(c)) == \
        (0.25, 3.0, 4.0, 5, 6.0, 7.0, (2.0, 2.0), (0.1, 0.2), (0.3, 0.4))
    r.setTimeStep(0.5)
    r.doStep()
    assert r.getGlobalTime() == 0.5


def test_numpy_inputs():
    r = rvo2.PyRVOSimulator(np.float64(0.1), np.float32(3), np.int64(5), np.float64(2),
                            np.float64(2), np.float64(0.4), np.float32(1.0))
    a = r.addAgent(np.array([1.0, 2.0]))
    b = r.addAgent((np.float32(3), np.int32(4)))
    r.setAgentPrefVelocity(np.int64(a), np.array([0.5, 0.0]))
    r.setAgentPrefVelocity(b, [np.float64(-0.5), 0])
    r.addObstacle(np.array([[5.0, 5.0], [6.0, 5.0], [6.0, 6.0]]))
    r.processObstacles()
    r.doStep()
    assert r.getNumAgents() == 2 and r.getNumObstacleVertices() == 3


def test_obstacles_take_effect_at_process_obstacles():
    r = rvo2.PyRVOSimulator(0.1, 3, 5, 2, 2, 0.4, 1)
    n0 = r.addObstacle([(0, 0), (1, 0)])
    n1 = r.addObstacle([(3, 0), (4, 0), (4, 1), (3, 1)])
    assert (n0, n1) == (0, 2)
    assert r.simulator.segment_count == 0
    r.processObstacles()
    assert r.simulator.segment_count == 5
    assert r.getNumObstacleVertices() == 6
    assert r.getObstacleVertex(3) == (4.0, 0.0)
    assert r.getNextObstacleVertexNo(5) == 2 and r.getPrevObstacleVertexNo(2) == 5
    assert r.getNextObstacleVertexNo(0) == 1 and r.getNextObstacleVertexNo(1) == 0


def test_neighbor_and_line_getters_report_the_last_step():
    r = rvo2.PyRVOSimulator(0.25, 4, 10, 2, 2, 0.5, 1)
    a = r.addAgent((0, 0))
    b = r.addAgent((2, 0))
    c = r.addAgent((50, 0))
    r.addObstacle([(-1, -1.5), (3, -1.5)])
    r.processObstacles()
    assert r.getAgentNumAgentNeighbors(a) == 0  # nothing computed before the first step
    assert r.getAgentNumORCALines(a) == 0
    r.setAgentPrefVelocity(a, (1, 0))
    r.setAgentPrefVelocity(b, (-1, 0))
    before = r.simulator.copy()
    r.doStep()
    assert r.getAgentNumAgentNeighbors(a) == 1 and r.getAgentAgentNeighbor(a, 0) == b
    assert r.getAgentNumAgentNeighbors(c) == 0
    assert r.getAgentNumObstacleNeighbors(a) == 1 and r.getAgentObstacleNeighbor(a, 0) == 0
    assert r.getAgentNumORCALines(a) == 2
    # the lines are the half-planes the step used, written as RVO2 lines
    planes, hard = before.agents[0].constraints(0.25)
    for k in range(2):
        px, py, dx, dy = r.getAgentORCALine(a, k)
        assert (px, py, dx, dy) == (planes[k, 0], planes[k, 1], planes[k, 3], -planes[k, 2])
        # the new velocity is on the permitted side (left of the direction)
        vx, vy = r.getAgentVelocity(a)
        assert dx * (vy - py) - dy * (vx - px) >= -1e-12
    d = r.addAgent((10, 10))
    assert r.getAgentNumAgentNeighbors(d) == 0  # added after the last step
    with pytest.raises(IndexError):
        r.getAgentAgentNeighbor(a, 5)


def test_record_off_and_unsupported():
    r = rvo2.PyRVOSimulator(0.25, 4, 10, 2, 2, 0.5, 1, record_neighbors=False)
    a = r.addAgent((0, 0))
    r.doStep()
    with pytest.raises(RuntimeError, match="record_neighbors"):
        r.getAgentNumAgentNeighbors(a)
    with pytest.raises(NotImplementedError, match="queryVisibility"):
        r.queryVisibility((0, 0), (1, 1), 0.1)


def test_shim_errors():
    with pytest.raises(orca.ArgumentError, match="radius"):
        rvo2.PyRVOSimulator(0.25, 4, 10, 2, 2, -0.5, 1)
    with pytest.raises(orca.ArgumentError, match="timeStep"):
        rvo2.PyRVOSimulator(0.0, 4, 10, 2, 2, 0.5, 1)
    r = rvo2.PyRVOSimulator(0.25, 4, 10, 2, 2, 0.5, 1)
    with pytest.raises(IndexError):
        r.getAgentPosition(0)
    one = rvo2.PyRVOSimulator(0.25, 4, 10, 2, 2, 0.5, 1)
    one.addAgent((0, 0))
    with pytest.raises(IndexError, match=r"agent number 1 out of range \(1 agent\)$"):
        one.getAgentPosition(1)
    with pytest.raises(TypeError):
        r.getAgentPosition(0.0)
    a = r.addAgent((0, 0))
    with pytest.raises(orca.ArgumentError):
        r.setAgentPrefVelocity(a, (math.nan, 0))
    with pytest.raises(orca.ArgumentError):
        r.addAgent((0, 0), radius=0)
    with pytest.raises(orca.ArgumentError):
        r.addObstacle([(0, 0)])
    with pytest.raises(orca.ArgumentError):
        r.addObstacle([(0, 0), (math.inf, 0)])
    with pytest.raises(TypeError):
        r.addAgent(3)
    assert r.getNumAgents() == 1 and r.getNumObstacleVertices() == 0
