# SPDX-License-Identifier: MIT
"""Navigation through Python (docs/navigation.md, docs/python.md "Navigation"): a room whose
door faces away from the goals (the agents arrive only with navigation on), goal sets and
exits, agents without a path, the path query against a closed form, the same hash as
`orca run` on the same scene file (ORCA_CLI), and the refusals with the library's messages."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import orca
from test_bulk_limits import Lazy  # a sequence that fails if a row is read

# A 10 x 10 m room open only on its west side (a door from y 4 to 6), the goals east of it.
ROOM = [(0, 4), (0, 0), (10, 0), (10, 10), (0, 10), (0, 6)]
AGENTS = [((8.5, 3.0), (14.0, 3.0)), ((8.5, 5.0), (15.0, 5.0)), ((8.5, 7.0), (16.0, 7.0))]
FIELDS = dict(radius=0.4, preferred_speed=1.2, max_speed=1.5)
ENDS = {(0.0, 4.0), (0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0), (0.0, 6.0)}


def trap(navigation, workers=1):
    sc = orca.Scenario(dt=0.25, seed=3, workers=workers)
    sc.simulation.add_polyline(ROOM)
    for start, goal in AGENTS:
        sc.add_agent(start, target=goal, **FIELDS)
    sc.navigation = navigation
    return sc


def test_trap_room_arrives_only_with_navigation():
    plain = trap(False)
    plain.step(500)
    assert plain.arrived_count == 0 and plain.all_arrived_step == -1
    assert (plain.simulation.positions[:, 0] < 10).all()  # pressing on the east wall
    assert plain.agent_nav(0)["navigating"] is False and plain.nav_unreachable == 0
    assert plain.hash() == plain.simulation.hash()  # navigation off: the plain hash

    sc = trap(True)
    assert sc.navigation is True
    sc.step(1)
    for i, (start, goal) in enumerate(AGENTS):
        nav = sc.agent_nav(i)
        assert nav["navigating"] and nav["result"] == "ok" and nav["plans"] == 1
        assert nav["goal"] == goal and nav["reroutes"] == 0
        path = sc.agent_path(i)
        assert path.shape == (nav["corners"], 7) and nav["corners"] >= 3
        assert set(np.abs(path[:, 2])) == {1.0}
        for row in path:  # each corner is a wall end; enter and leave at the radius from it
            assert (row[0], row[1]) in ENDS
            for p in (row[3:5], row[5:7]):
                assert math.hypot(p[0] - row[0], p[1] - row[1]) == pytest.approx(0.4, rel=1e-12)
        assert nav["length"] > 20  # out by the west door and round the room
        # the agent's plan is the path query from its start (the same arithmetic)
        q = orca.Navigator(sc.simulation).path(0.4, start, [goal])
        assert q.result == "ok" and q.length == nav["length"]
        assert np.array_equal(q.corners, path)
    sc.step(499)
    assert sc.arrived_count == 3 and 0 < sc.all_arrived_step <= 500
    assert sc.nav_unreachable == 0
    assert sc.hash() != sc.simulation.hash()  # the path state is in the scenario's hash
    other = trap(True, workers=3)
    other.step(500)
    assert other.hash() == sc.hash()


def test_goal_set_exit_and_unreachable():
    sc = orca.Scenario(dt=0.25, seed=4)
    sim = sc.simulation
    sim.add_polyline(ROOM)
    sim.add_polyline([(20, 20), (24, 20), (24, 24), (20, 24)], closed=True)  # a closed box
    sc.navigation = True
    assert sc.add_goal_set("out", np.array([[15.0, 2.0], [15.0, 8.0]]), exit=True,
                           arrive_distance=0.5) == 0
    assert sc.add_goal_set("box", [(22, 22)]) == 1
    assert sc.goal_sets == ["out", "box"]
    g = sc.goal_set("out")
    assert g["index"] == 0 and g["exit"] is True and g["arrive_distance"] == 0.5
    assert np.array_equal(g["points"], [[15, 2], [15, 8]])
    assert sc.goal_set(1)["name"] == "box" and sc.goal_set("box")["exit"] is False
    for k in range(6):
        sc.add_agent((6.0 + k % 3, 2.5 + 2.5 * (k // 3)), goal_set="out", radius=0.4,
                     preferred_speed=1.2, max_speed=1.5)
    shut = sc.add_agent((30, 22), goal="set", goal_set=1, radius=0.4)
    assert sc.agent_goal(0)["goal"] == "set" and sc.agent_goal(0)["goal_set"] == "out"
    assert sc.agent_goal(6)["goal_set"] == "box" and sc.agent_goal(6)["target"] == (22.0, 22.0)
    sc.step(1)
    assert sc.nav_unreachable == 1
    assert sc.agent_nav(6)["result"] == "no_path" and sc.agent_path(6).shape == (0, 7)
    assert sc.exited == (0, -1)
    sc.step(599)
    count, last = sc.exited
    assert count == 6 and 0 < last <= 600 and sim.agent_count == 1
    assert sc.exited.count == 6 and sc.exited.last_step == last
    assert shut.position == (30.0, 22.0)  # without a path it stands
    assert sc.nav_unreachable == 1
    # the box's goal made reachable: the set becomes the open box's point
    sc.set_goal_set_exit("box", 0.0)
    assert sc.goal_set("box")["exit"] is True and sc.goal_set("box")["arrive_distance"] == 0.0


def test_path_query_closed_form():
    sim = orca.Simulator()
    sim.add_segment((0, 0), (0, 0))  # a point obstacle at the origin
    nav = orca.Navigator(sim)
    p = nav.path(1.0, (-5, 0), [(5, 0)])
    closed = 2 * math.sqrt(24) + (math.pi - 2 * math.acos(1 / 5))
    assert p.result == "ok" and p.goal_index == 0
    assert p.length == pytest.approx(closed, rel=1e-14, abs=0)
    assert p.corners.shape == (1, 7)
    vx, vy, side, ex, ey, lx, ly = p.corners[0]
    assert (vx, vy) == (0, 0) and side in (1.0, -1.0)
    h = math.sqrt(1 - 1 / 25)  # the tangent points from (+-5, 0) to the unit circle
    assert ex == pytest.approx(-0.2, abs=1e-15) and lx == pytest.approx(0.2, abs=1e-15)
    assert abs(ey) == pytest.approx(h, abs=1e-15) and ly == pytest.approx(ey, abs=1e-15)
    once = orca.nav_path(sim, 1.0, (-5, 0), [(5, 0)])
    assert once[:3] == p[:3] and np.array_equal(once.corners, p.corners)
    # the nearest goal (ties to the lower index), a straight leg, blocked ends
    q = nav.path(1.0, (-5, 0), [(5, 0), (-5, 3), (-5, -3)])
    assert q.result == "ok" and q.goal_index == 1 and q.length == 3.0 and q.corners.shape == (0, 7)
    assert nav.path(1.0, (-0.5, 0), [(5, 0)]).result == "start_blocked"
    b = nav.path(1.0, (-5, 0), [(0.5, 0)])
    assert b[:3] == ("goal_blocked", None, None) and b.corners.shape == (0, 7)
    st = nav.stats(1.0)
    assert st.walls == 1 and st.vertices == 1 and st.bytes > 0
    # a closed box: no path in; a wall added is seen by the next query
    sim.add_polyline([(10, -2), (14, -2), (14, 2), (10, 2)], closed=True)
    assert nav.path(0.5, (-5, 0), [(12, 0)]).result == "no_path"
    seg = sim.segments[-1]
    sim.remove_segment(seg)  # the west side of the box: open again
    assert nav.path(0.5, (-5, 0), [(12, 0)]).result == "ok"
    # it keeps the simulator alive
    n2 = orca.Navigator(orca.Simulator())
    assert n2.path(1.0, (0, 0), [(3, 4)]).length == 5.0
    assert isinstance(n2.simulator, orca.Simulator)


def test_same_hash_as_orca_run(tmp_path):
    cli = os.environ.get("ORCA_CLI", "")
    if not (cli and os.access(cli, os.X_OK)):
        pytest.skip("ORCA_CLI (the orca command) not given")
    path = tmp_path / "trap.txt"
    lines = ["orca-scene 1", "dt 0.25", "seed 3", "navigation on",
             "polyline " + " ".join("%g %g" % p for p in ROOM),
             "goalset out 15 2 15 8 exit arrive=0.5"]
    for start, goal in AGENTS:
        lines.append("agent %g %g goal %g %g radius=0.4 preferred_speed=1.2 max_speed=1.5"
                     % (start + goal))
    lines.append("agent 7 5 goalset out radius=0.4")
    path.write_text("\n".join(lines) + "\n")
    out = subprocess.run([cli, "run", str(path), "--steps", "400", "--json"], check=True,
                         capture_output=True, text=True)
    ref = json.loads(out.stdout)
    sc = trap(True)
    sc.add_goal_set("out", [(15, 2), (15, 8)], exit=True, arrive_distance=0.5)
    sc.add_agent((7, 5), goal_set="out", radius=0.4)
    sc.step(400)
    assert ref["navigation"] is True
    assert ref["hash"] == sc.hexhash()
    assert (ref["exited"], ref["exited_last_step"]) == tuple(sc.exited)
    assert ref["nav_unreachable"] == sc.nav_unreachable
    # orca run counts the agents that left as arrived; arrived_count only those still there
    assert ref["arrived"] == sc.arrived_count + sc.exited.count and sc.exited.count >= 1


def test_refusals_name_the_value_and_change_nothing():
    sc = orca.Scenario(dt=0.25, seed=1)
    sc.simulation.add_polyline(ROOM)
    sc.add_goal_set("out", [(15, 2)])
    sc.add_agent((5, 5), goal_set="out")
    sc.step(2)
    before = (sc.hash(), sc.goal_sets, sc.simulation.agent_count)

    def refused(exc, pattern, fn, *args, **kw):
        with pytest.raises(exc, match=pattern):
            fn(*args, **kw)
        assert (sc.hash(), sc.goal_sets, sc.simulation.agent_count) == before

    for bad in (math.nan, math.inf, -math.inf, 2.0 ** 21, -1e308):
        refused(orca.ArgumentError, r"goal set 'g': point 1 must have finite coordinates of "
                r"magnitude below 2\^21", sc.add_goal_set, "g", [(1, 1), (bad, 0)])
    refused(orca.ArgumentError, "goal set 'out' exists already", sc.add_goal_set, "out", [(1, 1)])
    refused(orca.ArgumentError, r"goal set name must have 1 to 63 characters, got 0",
            sc.add_goal_set, "", [(1, 1)])
    refused(orca.ArgumentError, r"got 64", sc.add_goal_set, "x" * 64, [(1, 1)])
    refused(ValueError, "NUL", sc.add_goal_set, "a\0b", [(1, 1)])
    refused(TypeError, "name must be a str", sc.add_goal_set, 3, [(1, 1)])
    refused(orca.ArgumentError, r"count must be in \[1, 65536\], got 0", sc.add_goal_set, "g", [])
    refused(orca.LimitError, r"add_goal_set: points has 65537 rows, beyond the 65536 points",
            sc.add_goal_set, "g", np.broadcast_to(np.zeros(2), (65537, 2)))
    refused(orca.LimitError, r"points has 65537 rows", sc.add_goal_set, "g", Lazy(65537))
    refused(ValueError, r"shape \(n, 2\)", sc.add_goal_set, "g", np.zeros((3, 3)))
    for bad in (-1.0, 5e-324, math.nextafter(2.0 ** -30, 0), math.nextafter(2.0 ** 23, math.inf),
                math.nan, math.inf):
        refused(orca.ArgumentError, r"arrive_distance must be 0 \(the agent's radius\) or in "
                r"\[2\^-30, 2\^23\] m, got ", sc.add_goal_set, "g", [(1, 1)], exit=True,
                arrive_distance=bad)
        refused(orca.ArgumentError, "arrive_distance must be 0", sc.set_goal_set_exit, "out", bad)
    refused(orca.ArgumentError, "arrive_distance is for exits", sc.add_goal_set, "g", [(1, 1)],
            arrive_distance=1.0)
    refused(orca.ArgumentError, r"unknown goal set 'gone' \(the scenario has 1",
            sc.add_agent, (1, 1), goal_set="gone")
    refused(orca.ArgumentError, r"goal_set must name a goal set: in \[0, 1\), got 5",
            sc.add_agent, (1, 1), goal_set=5)
    refused(orca.ArgumentError, r"got -1", sc.add_agent, (1, 1), goal="set", goal_set=-1)
    refused(TypeError, "needs goal_set", sc.add_agent, (1, 1), goal="set")
    refused(TypeError, "not target", sc.add_agent, (1, 1), goal_set="out", target=(2, 2))
    refused(TypeError, "goal_set is for a 'set' goal", sc.add_agent, (1, 1), goal="point",
            target=(2, 2), goal_set="out")
    refused(TypeError, "name .* or index", sc.add_agent, (1, 1), goal_set=1.0)
    refused(orca.ArgumentError, r"goal preferred_speed must be in \[0, 2\^30\]", sc.add_agent,
            (1, 1), goal_set="out", preferred_speed=-1)
    refused(orca.ArgumentError, r"set must be in \[0, 1\), got 3", sc.goal_set, 3)
    refused(orca.ArgumentError, "unknown goal set 'nope'", sc.goal_set, "nope")
    refused(orca.ArgumentError, r"index must be in \[0, 1\), got 1", sc.agent_nav, 1)
    refused(orca.ArgumentError, r"index must be in \[0, 1\), got -1", sc.agent_path, -1)
    with pytest.raises(AttributeError):
        del sc.navigation
    with pytest.raises(AttributeError):
        sc.nav_unreachable = 3
    # the path query: the library's messages
    nav = orca.Navigator(sc.simulation)
    for r in (0.0, -1.0, math.nan, math.inf, 2.0 ** -21, 2.0 ** 21):
        with pytest.raises(orca.ArgumentError, match="radius"):
            nav.path(r, (5, 5), [(15, 2)])
    for bad in ((math.nan, 0), (0, math.inf), (2.0 ** 21, 0)):
        with pytest.raises(orca.ArgumentError, match="from"):
            nav.path(0.5, bad, [(15, 2)])
        with pytest.raises(orca.ArgumentError, match="goal"):
            nav.path(0.5, (5, 5), [(15, 2), bad])
    with pytest.raises(orca.ArgumentError, match="goal_count"):
        nav.path(0.5, (5, 5), [])
    with pytest.raises(orca.LimitError, match="path: goals has 65537 rows"):
        nav.path(0.5, (5, 5), np.broadcast_to(np.zeros(2), (65537, 2)))
    with pytest.raises(orca.LimitError, match="path: goals has 65537 rows"):
        nav.path(0.5, (5, 5), Lazy(65537))
    with pytest.raises(TypeError, match="orca.Simulator"):
        orca.Navigator(sc)
    assert (sc.hash(), sc.goal_sets) == before[:2]


def test_set_goal_mid_run():
    """Scenario.set_goal: a new goal behind the room's wall is planned at the next step and
    reached; a goal set, then a fixed velocity (the path state goes); refusals name the value
    and change nothing."""
    sc = trap(True)
    sc.step(1)
    assert sc.agent_nav(0)["plans"] == 1
    sc.set_goal(0, target=(5.0, 5.0))  # inside the room again
    assert sc.agent_goal(0)["target"] == (5.0, 5.0)
    sc.step(1)
    nav = sc.agent_nav(0)
    assert nav["plans"] == 2 and nav["goal"] == (5.0, 5.0) and nav["corners"] == 0
    sc.set_goal(0, goal="velocity", target=(0.5, 0.0))
    assert sc.agent_nav(0)["navigating"] is False and sc.agent_nav(0)["plans"] == 0
    assert sc.add_goal_set("east", [(14.0, 3.0)]) == 0
    sc.set_goal(1, goal_set="east", preferred_speed=1.3)
    g = sc.agent_goal(1)
    assert g["goal"] == "set" and g["goal_set"] == "east" and g["preferred_speed"] == 1.3
    before = sc.hash()
    with pytest.raises(orca.ArgumentError, match=r"index must be in \[0, 3\), got 3"):
        sc.set_goal(3, target=(1.0, 1.0))
    with pytest.raises(orca.ArgumentError, match="goal point must have finite coordinates"):
        sc.set_goal(2, target=(float("nan"), 1.0))
    with pytest.raises(orca.ArgumentError, match="preferred_speed must be in"):
        sc.set_goal(2, target=(1.0, 1.0), preferred_speed=2.0**31)
    with pytest.raises((orca.ArgumentError, KeyError, ValueError)):
        sc.set_goal(2, goal_set="nowhere")
    sc.set_waypoints(2, [(9.0, 9.0)])
    with_wp = sc.hash()
    with pytest.raises(orca.ArgumentError, match="has waypoints: remove them first"):
        sc.set_goal(2, target=(1.0, 1.0))
    assert sc.hash() == with_wp
    sc.set_waypoints(2, [])
    assert sc.hash() == before
    sc.step(400)
    assert sc.agent_nav(1)["goal"] == (14.0, 3.0)


def test_exit_choice_leg_check_and_counts(tmp_path):
    """The leg check, the calm and quickest exit choices, an exit's capacity and the counts
    over the run: every agent leaves, exited == arrived, the departures add up, no agent
    changes its exit more than twice; the scene file with the same statements gives the
    same hash."""
    def build():
        sc = orca.Scenario(dt=0.25, seed=5)
        sc.simulation.add_polyline([(0, 0), (12, 0), (12, 12), (0, 12), (0, 0)])
        sc.navigation = True
        sc.add_goal_set("doors", [(1, 1), (11, 11)], exit=True, arrive_distance=0.5)
        for k in range(12):
            sc.add_agent((3.0 + 0.9 * (k % 4), 3.0 + 0.9 * (k // 4)), goal_set="doors",
                         radius=0.3, preferred_speed=1.2, max_speed=1.5)
        return sc

    sc = build()
    assert sc.nav_check is False and sc.exit_choice == "nearest"
    assert sc.goal_set_capacity("doors") == 1.0
    with pytest.raises(orca.ArgumentError, match="exit_choice must be 'nearest', 'calm' or "
                       "'quickest', got 'fast'"):
        sc.exit_choice = "fast"
    with pytest.raises(orca.ArgumentError):
        sc.set_goal_set_capacity("doors", 0.0)
    assert sc.exit_choice == "nearest" and sc.goal_set_capacity("doors") == 1.0
    sc.nav_check = True
    sc.exit_choice = "quickest"
    sc.set_goal_set_capacity(0, 2.5)
    assert sc.nav_check is True and sc.exit_choice == "quickest"
    assert sc.goal_set_capacity("doors") == 2.5
    start = sc.hash()
    sc.step(1000)
    c = sc.nav_counts()
    assert c["exited"] == 12 and c["arrived"] == 12 and c["at_exits"] == 0
    assert sc.exited.count == 12 and sc.simulation.agent_count == 0
    assert c["plans"] >= 12 and c["most_changes"] <= 2 and c["unreachable"] == 0
    assert c["exit_returns"] <= c["exit_changes"]
    left = [sc.exit_departures("doors", k) for k in range(2)]
    assert sum(d.count for d in left) == 12
    assert max(d.last_step for d in left) == sc.exited.last_step
    # the same scenario from a scene file with the statements
    path = tmp_path / "exits.txt"
    lines = ["orca-scene 1", "dt 0.25", "seed 5", "navigation on check=on exits=quickest",
             "goalset doors 1 1 11 11 exit arrive=0.5 capacity=2.5",
             "polyline 0 0 12 0 12 12 0 12 0 0"]
    lines += ["agent %.17g %.17g goalset doors radius=0.3 preferred_speed=1.2 max_speed=1.5"
              % (3.0 + 0.9 * (k % 4), 3.0 + 0.9 * (k // 4)) for k in range(12)]
    path.write_text("\n".join(lines) + "\n")
    read = orca.read_scene(str(path))
    assert read.nav_check is True and read.exit_choice == "quickest"
    assert read.goal_set_capacity("doors") == 2.5
    assert read.hash() == start


def _pushed_back(check, y):
    """A room whose east wall x = 0 has a door 1 m wide (y -0.5 .. 0.5); an agent from (-2, 0)
    to (4, y), with the leg check `check`, put back at (-0.35, y) at rest once past the door's
    jamb (its last leg: a queue pushed it back behind the wall). Then steps 1,200 times;
    returns the scenario, the agent and the step at which it first replanned (None: never)."""
    sc = orca.Scenario(dt=0.1, seed=1)
    sc.simulation.add_polyline([(0, -0.5), (0, -5), (-10, -5), (-10, 5), (0, 5), (0, 0.5)])
    sc.navigation = True
    sc.nav_check = check
    a = sc.add_agent((-2.0, 0.0), target=(4.0, y), radius=0.3, preferred_speed=1.2,
                     max_speed=1.5)
    for _ in range(400):
        sc.step(1)
        nav = sc.agent_nav(0)
        if nav["corner"] == nav["corners"]:
            break
    assert nav["corners"] == 1 and nav["corner"] == 1  # past the door's jamb
    a.position = (-0.35, y)
    a.velocity = (0.0, 0.0)
    replanned = None
    for step in range(1200):
        sc.step(1)
        if replanned is None and sc.nav_counts()["replans"] == 1:
            replanned = step
    return sc, a, replanned


def test_leg_check_frees_an_agent_pushed_behind_a_wall():
    """The stranded agent (docs/navigation.md, "Following a path", the leg check): on its
    last leg, pushed back beside the door to where its straight line to the goal runs square
    into the wall, it stands there for good without the check and arrives with it (one
    replan, at the first check: the path round the jamb is more than 1 m longer)."""
    stuck, a, _ = _pushed_back(False, 2.5)
    assert stuck.arrived_count == 0 and a.position[0] < 0
    assert stuck.nav_counts()["replans"] == 0
    freed, _, replanned = _pushed_back(True, 2.5)
    c = freed.nav_counts()
    assert freed.arrived_count == 1 and c["replans"] == 1 and c["plans"] == 2
    assert 35 <= replanned <= 45  # the first check, 4 s without progress


def test_leg_check_frees_an_agent_beside_the_jamb():
    """The same with the agent pushed against the wall just above the door's jamb: the path
    round the jamb is only some 0.3 m longer than its blocked straight leg, so the first check
    (4 s) keeps the leg and the second (8 s without progress) takes the path."""
    stuck, a, _ = _pushed_back(False, 0.7)
    assert stuck.arrived_count == 0 and a.position[0] < 0
    freed, _, replanned = _pushed_back(True, 0.7)
    c = freed.nav_counts()
    assert freed.arrived_count == 1 and c["replans"] == 1 and c["reroutes"] == 0
    assert 75 <= replanned <= 85  # the second check, 8 s without progress
