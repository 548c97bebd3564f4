# SPDX-License-Identifier: MIT
"""Waypoints through Python (docs/extensions.md, "Waypoints"): the switch re-computed here
from the positions after every step and compared with the library's current target, the
hash, the same bits for 1 and 3 workers, and the range of every argument."""
import math

import pytest

import orca

CORNERS = [(-15.0, -15.0), (15.0, -15.0), (15.0, 15.0), (-15.0, 15.0)]


def patrol(workers=1):
    """examples/patrol.txt: four agents counter-clockwise from the corners, four clockwise
    from the middles of the sides, looping, arrive distance 2 m."""
    sc = orca.Scenario(dt=0.25, seed=1, workers=workers)
    routes = []
    for a in range(4):
        start = CORNERS[a]
        wp = [CORNERS[(a + 1 + k) % 4] for k in range(3)]
        routes.append((start, wp))
    for s in range(4):
        p, q = CORNERS[s], CORNERS[(s + 1) % 4]
        start = ((p[0] + q[0]) * 0.5, (p[1] + q[1]) * 0.5)
        routes.append((start, [CORNERS[(s - k) % 4] for k in range(4)]))
    for i, (start, wp) in enumerate(routes):
        sc.add_agent(start, target=start, preferred_speed=1.5, radius=1.0)
        sc.set_waypoints(i, wp, loop=True, arrive_distance=2.0)
    return sc, routes


def test_patrol_laps_recomputed():
    sc, routes = patrol()
    cur = [0] * len(routes)
    switches = [0] * len(routes)
    closest = math.inf
    for step in range(1200):
        pos = sc.simulation.positions
        for a, (start, wp) in enumerate(routes):
            targets = wp + [start]
            gx, gy = targets[cur[a]]
            fx, fy = targets[cur[a] - 1]  # the leg's start (a loop: the goal before corner 0)
            dx, dy = gx - pos[a, 0], gy - pos[a, 1]
            if dx * dx + dy * dy <= 2.0 * 2.0 or dx * (gx - fx) + dy * (gy - fy) < 0:
                cur[a] = (cur[a] + 1) % len(targets)
                switches[a] += 1
        sc.step()
        for a in range(len(routes)):
            assert sc.waypoints(a)["current"] == cur[a], (step, a)
        pos = sc.simulation.positions
        for a in range(len(routes)):
            for b in range(a + 1, len(routes)):
                closest = min(closest, math.dist(pos[a], pos[b]) - 2.0)
    laps = [switches[a] // (len(routes[a][1]) + 1) for a in range(len(routes))]
    assert min(laps) >= 3, laps
    assert closest > -0.1
    assert sc.arrived_count == 0 and sc.all_arrived_step == -1


def test_workers_and_hash():
    a, _ = patrol(1)
    b, _ = patrol(3)
    a.step(300)
    b.step(300)
    assert a.hash() == b.hash()
    assert a.hash() != a.simulation.hash()  # the progress is in the scenario's hash
    # Without waypoints the scenario's hash is the simulation's.
    for i in range(8):
        a.set_waypoints(i, [])
    assert a.hash() == a.simulation.hash()
    assert a.agent_goal(0)["target"] == (-15.0, -15.0)
    c = orca.Scenario("corridor")
    c.step(3)
    assert c.hash() == c.simulation.hash()


def test_getters_and_index():
    sc = orca.Scenario(dt=0.25, seed=2)
    sc.add_agent((0, 0), target=(10, 0), preferred_speed=1.0)
    sc.set_waypoints(0, [(1, 1), (2, 2)], loop=False, arrive_distance=0.5)
    w = sc.waypoints(0)
    assert w == {"points": [(1.0, 1.0), (2.0, 2.0)], "loop": False,
                 "arrive_distance": 0.5, "current": 0}
    sc.set_waypoint_index(0, 2)
    assert sc.waypoints(0)["current"] == 2
    with pytest.raises(orca.ArgumentError, match="waypoint index"):
        sc.set_waypoint_index(0, 3)
    assert sc.waypoints(0)["current"] == 2


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 2.0 ** 21, -2.0 ** 21, 1e308])
def test_bad_points_change_nothing(bad):
    sc = orca.Scenario(dt=0.25, seed=2)
    sc.add_agent((0, 0), target=(10, 0))
    sc.set_waypoints(0, [(3, 3)], arrive_distance=1.0)
    before = sc.hash()
    with pytest.raises(orca.ArgumentError, match="waypoint 1"):
        sc.set_waypoints(0, [(1, 1), (bad, 0)])
    assert sc.hash() == before
    assert sc.waypoints(0)["points"] == [(3.0, 3.0)]


@pytest.mark.parametrize("bad", [-1.0, 5e-324, math.nextafter(2.0 ** -30, 0),
                                 math.nextafter(2.0 ** 23, math.inf), 1e308, math.nan,
                                 math.inf])
def test_bad_arrive_distance(bad):
    sc = orca.Scenario(dt=0.25, seed=2)
    sc.add_agent((0, 0), target=(10, 0))
    with pytest.raises(orca.ArgumentError, match="arrive_distance"):
        sc.set_waypoints(0, [(1, 1)], arrive_distance=bad)
    assert sc.waypoints(0)["points"] == []
    for good in (0.0, 2.0 ** -30, 2.0 ** 23):
        sc.set_waypoints(0, [(1, 1)], arrive_distance=good)
        assert sc.waypoints(0)["arrive_distance"] == good


def test_refusals():
    sc = orca.Scenario(dt=0.25, seed=2)
    sc.add_agent((0, 0), goal="velocity", target=(1, 0))
    with pytest.raises(orca.ArgumentError, match="point goal"):
        sc.set_waypoints(0, [(1, 1)])
    with pytest.raises(orca.ArgumentError, match="index"):
        sc.set_waypoints(5, [(1, 1)])
    with pytest.raises(orca.ArgumentError):
        sc.waypoints(-1)
