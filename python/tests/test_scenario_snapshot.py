# SPDX-License-Identifier: MIT
"""Scenario snapshots through Python (docs/scenarios.md "Snapshots", docs/python.md): save,
load, copy and pickle continue with the same bits with navigation, goal sets, exits and
waypoints in use; damaged bytes raise orca.FormatError naming the field and change nothing."""
import copy
import pickle
import struct

import pytest

import orca

ROOM = [(0, 4), (0, 0), (10, 0), (10, 10), (0, 10), (0, 6)]
FIELDS = dict(radius=0.3, preferred_speed=1.2, max_speed=1.5)


def scene(workers=1):
    sc = orca.Scenario(dt=0.25, seed=7, workers=workers)
    sc.simulation.add_polyline(ROOM)
    sc.add_goal_set("exits", [(-3, 5), (14, 5)], exit=True, arrive_distance=1.0)
    sc.navigation = True
    for k in range(4):
        sc.add_agent((7 + k % 2, 3 + k), goal_set="exits", **FIELDS)
    sc.add_agent((2, 2), target=(14, 8), **FIELDS)
    sc.set_waypoints(4, [(5, 8), (3, 8)], loop=True)
    return sc


def hashes(sc, steps):
    out = []
    for _ in range(steps):
        sc.step()
        out.append((sc.hash(), sc.simulation.hash()))
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_round_trip(workers):
    sc = scene(workers)
    sc.step(30)
    h0 = sc.hash()
    snap = sc.save()
    assert isinstance(snap, bytes) and snap[:8] == b"ORCASCEN"
    first = hashes(sc, 150)
    assert sc.exited.count >= 1
    sc.load(snap)
    assert sc.hash() == h0
    assert hashes(sc, 150) == first
    fresh = orca.Scenario(dt=0.5, seed=1)
    fresh.load(bytearray(snap))
    assert fresh.hash() == h0 and fresh.dt == 0.25 and fresh.seed == 7
    assert fresh.goal_sets == ["exits"] and fresh.navigation is True
    assert fresh.waypoints(4)["points"] == [(5.0, 8.0), (3.0, 8.0)]
    assert hashes(fresh, 150) == first
    assert fresh.exited == sc.exited


def test_copy_and_pickle():
    sc = scene()
    sc.step(20)
    for other in (sc.copy(), copy.copy(sc), copy.deepcopy(sc),
                  pickle.loads(pickle.dumps(sc, protocol=pickle.HIGHEST_PROTOCOL)),
                  pickle.loads(pickle.dumps(sc, protocol=0))):
        assert type(other) is orca.Scenario and other is not sc
        assert other.hash() == sc.hash() and other.save() == sc.save()
    twin = pickle.loads(pickle.dumps(sc))
    assert hashes(twin, 40) == hashes(sc, 40)


def test_refusals_change_nothing():
    sc = scene()
    sc.step(10)
    snap = sc.save()
    sc.step(3)
    h = sc.hash()
    with pytest.raises(orca.FormatError, match="truncated"):
        sc.load(snap[:-1])
    with pytest.raises(orca.FormatError, match="magic"):
        sc.load(b"")
    bad = bytearray(snap)
    bad[40] ^= 1
    with pytest.raises(orca.FormatError, match="checksum"):
        sc.load(bytes(bad))
    # dt NaN with the checksum made right: the message names the field
    bad = bytearray(snap)
    bad[32:40] = struct.pack("<Q", 0x7FF8000000000000)
    h64 = 0xCBF29CE484222325
    for byte in bad[:-8]:
        h64 = ((h64 ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    bad[-8:] = struct.pack("<Q", h64)
    with pytest.raises(orca.FormatError, match="dt nan"):
        sc.load(bytes(bad))
    with pytest.raises(TypeError, match="bytes"):
        sc.load(3)
    with pytest.raises(orca.FormatError, match="not an orca scenario snapshot"):
        sc.load(sc.simulation.save())
    assert sc.hash() == h
    sc.load(snap)


def test_plain_scene():
    sc = orca.Scenario("circle", agents=30, seed=2)
    sc.step(10)
    snap = sc.save()
    other = orca.Scenario(dt=1.0)
    other.load(snap)
    assert other.name == "circle"
    assert hashes(other, 20) == hashes(sc, 20)
