# SPDX-License-Identifier: MIT
"""Every bad-input path: a clear error naming the value, no crash, and the simulation
unchanged (its hash, its save() bytes)."""
import math

import numpy as np
import pytest

import orca

MAX = 1.7976931348623157e308
TINY = 5e-324
EDGES = [0.0, -0.0, TINY, -TINY, 2.2250738585072014e-308, 2.0 ** -30,
         math.nextafter(2.0 ** -30, 0), 1.0, 2.0 ** 21, math.nextafter(2.0 ** 21, 0),
         math.nextafter(2.0 ** 21, math.inf), 2.0 ** 23, 2.0 ** 30, math.nextafter(2.0 ** 30, 0),
         math.nextafter(2.0 ** 30, math.inf), 2.0 ** 31, math.nextafter(2.0 ** 31, math.inf),
         1e300, MAX, -MAX, -1.0, math.inf, -math.inf, math.nan]

# documented ranges (include/orca/sim.h)
RANGES = {
    "radius": (orca.RADIUS_MIN, orca.RADIUS_MAX),
    "max_speed": (0.0, orca.SPEED_MAX),
    "neighbor_dist": (0.0, orca.NEIGHBOR_DIST_MAX),
    "time_horizon": (orca.TIME_MIN, orca.TIME_MAX),
    "obstacle_time_horizon": (orca.TIME_MIN, orca.TIME_MAX),
}


def populated():
    sim = orca.Simulator()
    sim.add_agents([(0, 0), (3, 0), (0, 3)], preferred_velocity=(0.5, 0.5))
    sim.add_segment((-5, -5), (5, -5))
    sim.step(0.25, 2)
    return sim


class Unchanged:
    def __init__(self, sim):
        self.sim = sim

    def __enter__(self):
        self.snap = self.sim.save()
        self.hash = self.sim.hash()
        return self

    def __exit__(self, *exc):
        assert self.sim.hash() == self.hash
        assert self.sim.save() == self.snap
        return False


def accepted(value, lo, hi):
    return lo <= value <= hi  # NaN compares false


@pytest.mark.parametrize("field", sorted(RANGES))
@pytest.mark.parametrize("value", EDGES, ids=repr)
def test_agent_scalar_edges(field, value):
    sim = populated()
    lo, hi = RANGES[field]
    a = sim.agents[0]
    if accepted(value, lo, hi):
        b = sim.add_agent((10, 10), **{field: value})
        assert b.get()[field] == value
        setattr(a, field, value)
        assert getattr(a, field) == value
    else:
        with Unchanged(sim):
            with pytest.raises(orca.ArgumentError) as e:
                sim.add_agent((10, 10), **{field: value})
            assert field.split("_")[-1] in str(e.value) or field in str(e.value)
            assert e.value.status == "ORCA_ERR_ARGUMENT"
            with pytest.raises(ValueError):
                setattr(a, field, value)
            with pytest.raises(orca.Error):
                sim.add_agents([(20, 20), (30, 30)], **{field: value})


@pytest.mark.parametrize("value", EDGES, ids=repr)
def test_position_and_velocity_edges(value):
    sim = populated()
    a = sim.agents[1]
    cases = [("position", abs(value) < orca.COORD_LIMIT),
             ("velocity", abs(value) <= orca.VELOCITY_LIMIT),
             ("preferred_velocity", abs(value) <= orca.VELOCITY_LIMIT)]
    for name, ok in cases:
        for vec in ((value, 0.0), (0.0, value)):
            if ok:
                setattr(a, name, vec)
                got = getattr(a, name)
                assert got == vec and [math.copysign(1, x) for x in got] == \
                    [math.copysign(1, x) for x in vec]
            else:
                with Unchanged(sim):
                    with pytest.raises(orca.ArgumentError) as e:
                        setattr(a, name, vec)
                    assert name.split("_")[-1] in str(e.value)
                    with pytest.raises(orca.ArgumentError):
                        sim.add_agent((1, 1), **{name: vec}) if name != "position" else \
                            sim.add_agent(vec)


@pytest.mark.parametrize("value", [-1, 1025, 2 ** 31, -(2 ** 63), 10 ** 30])
def test_max_neighbors_out_of_range(value):
    sim = populated()
    with Unchanged(sim):
        with pytest.raises(ValueError) as e:
            sim.add_agent((9, 9), max_neighbors=value)
        assert str(value) in str(e.value)


def test_type_errors():
    sim = populated()
    a = sim.agents[0]
    with Unchanged(sim):
        for bad in ("1", None, b"x", [1.0]):
            with pytest.raises(TypeError):
                sim.add_agent((0, 0), radius=bad)
        with pytest.raises(TypeError):
            sim.add_agent((0, 0), max_neighbors=10.5)
        with pytest.raises(TypeError):
            sim.add_agent("ab")
        with pytest.raises(TypeError):
            sim.add_agent(5)
        with pytest.raises(ValueError, match="2 components"):
            sim.add_agent((1, 2, 3))
        with pytest.raises(ValueError, match="too large"):
            sim.add_agent((10 ** 400, 0))
        with pytest.raises(TypeError):
            sim.remove_agent(0)
        with pytest.raises(TypeError):
            sim.remove_segment(a)
        with pytest.raises(TypeError):
            sim.step("0.1")
        with pytest.raises(TypeError):
            a.position = None


@pytest.mark.parametrize("workers", [0, -1, 65, 10 ** 20])
def test_bad_workers(workers):
    with pytest.raises(ValueError, match="workers"):
        orca.Simulator(workers=workers)
    sim = populated()
    with pytest.raises(ValueError):
        sim.workers = workers
    assert sim.workers == 1
    with pytest.raises(TypeError):
        orca.Simulator(workers=1.0)


def test_stale_handles():
    sim = populated()
    a = sim.agents[0]
    seg = sim.segments[0]
    sim.remove_agent(a)
    sim.remove_segment(seg)
    with Unchanged(sim):
        for op in (lambda: a.position, lambda: a.velocity, lambda: a.radius, lambda: a.get(),
                   lambda: setattr(a, "position", (0, 0)), lambda: setattr(a, "radius", 1),
                   lambda: setattr(a, "preferred_velocity", (0, 0)),
                   lambda: sim.remove_agent(a), lambda: a.neighbors(),
                   lambda: a.constraints(0.1), lambda: sim.remove_segment(seg),
                   lambda: seg.ends):
            with pytest.raises(orca.StaleHandleError) as e:
                op()
            assert e.value.status == "ORCA_ERR_STALE"
            assert isinstance(e.value, ValueError)
    assert a.index == -1 and not a.alive
    # a handle of another simulation is refused there (test_handles.py has the rest)
    other = orca.Simulator()
    with pytest.raises(orca.ForeignHandleError):
        other.remove_agent(orca.Agent(other, a.handle))
    with pytest.raises(IndexError):
        sim.agent(5)


def test_add_agents_bad_arrays():
    sim = populated()
    with Unchanged(sim):
        with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
            sim.add_agents(np.zeros((3, 3)))
        with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
            sim.add_agents(np.zeros(6))
        with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
            sim.add_agents(np.zeros((2, 2, 2)))
        with pytest.raises(TypeError, match="float64"):
            sim.add_agents(np.zeros((3, 2), dtype=np.float32))
        with pytest.raises(TypeError, match="float64"):
            sim.add_agents(np.zeros((3, 2), dtype=np.int64))
        with pytest.raises(TypeError):
            sim.add_agents(7)
        with pytest.raises(TypeError):
            sim.add_agents(["ab", "cd"])
        with pytest.raises(ValueError):
            sim.add_agents([(1, 2), (3, 4, 5)])
        pts = np.array([[10.0, 10], [11, 10], [12, 10], [np.nan, 10], [14, 10]])
        with pytest.raises(orca.ArgumentError) as e:
            sim.add_agents(pts)
        assert "agent 3 of 5" in str(e.value) and "nan" in str(e.value)
        pts[3, 0] = 2.0 ** 22
        with pytest.raises(orca.ArgumentError, match="agent 3 of 5"):
            sim.add_agents(pts)
        with pytest.raises(orca.ArgumentError, match="radius"):
            sim.add_agents(pts[:2], radius=0)
    # strided (non-contiguous) float64 views are read correctly
    big = np.arange(12.0).reshape(3, 4)
    hs = sim.add_agents(big[:, ::2])
    assert [h.position for h in hs] == [(0.0, 2.0), (4.0, 6.0), (8.0, 10.0)]
    assert sim.add_agents([]) == [] and sim.add_agents(np.zeros((0, 2))) == []


def test_set_preferred_velocities_refusals():
    sim = populated()
    n = sim.agent_count
    with Unchanged(sim):
        with pytest.raises(ValueError, match=r"\(3, 2\)"):
            sim.set_preferred_velocities(np.zeros((n + 1, 2)))
        with pytest.raises(ValueError):
            sim.set_preferred_velocities(np.zeros((n, 3)))
        with pytest.raises(TypeError):
            sim.set_preferred_velocities(np.zeros((n, 2), dtype=np.float32))
        for bad in (math.nan, math.inf, 2.0 ** 32, -MAX):
            v = np.zeros((n, 2))
            v[n - 1, 1] = bad
            with pytest.raises(orca.ArgumentError):
                sim.set_preferred_velocities(v)
    v = np.full((n, 2), 0.25)
    sim.set_preferred_velocities(v)
    assert np.array_equal(sim.preferred_velocities, v)
    assert v[0, 0] == 0.25  # the caller's array is not changed by the swap


def test_out_buffer_refusals():
    sim = populated()
    with Unchanged(sim):
        with pytest.raises(ValueError, match="hold 6"):
            sim.get_positions(out=np.empty((2, 2)))
        with pytest.raises(TypeError):
            sim.get_positions(out=np.empty((3, 2), dtype=np.float32))
        ro = np.empty((3, 2))
        ro.flags.writeable = False
        with pytest.raises(TypeError):
            sim.get_positions(out=ro)
        with pytest.raises(TypeError):
            sim.get_positions(out=np.empty((3, 4))[:, ::2])
        with pytest.raises(TypeError):
            sim.get_velocities(out=b"x" * 48)


@pytest.mark.parametrize("dt", [0.0, -0.1, math.nan, math.inf, 2.0 ** 31, TINY, -MAX])
def test_bad_dt(dt):
    sim = populated()
    with Unchanged(sim):
        with pytest.raises(orca.ArgumentError, match="dt"):
            sim.step(dt)
        with pytest.raises(orca.ArgumentError, match="dt"):
            sim.agents[0].constraints(dt)
    with pytest.raises(orca.Error):
        orca.Scenario(dt=dt)


def test_bad_steps():
    sim = populated()
    with Unchanged(sim):
        with pytest.raises(ValueError):
            sim.step(0.1, -1)
        with pytest.raises(TypeError):
            sim.step(0.1, 2.0)
    sim.step(0.1, 0)


def test_step_refused_at_coordinate_limit():
    sim = orca.Simulator()
    edge = math.nextafter(orca.COORD_LIMIT, 0)
    sim.add_agent((0, 0), velocity=(1, 0), preferred_velocity=(1, 0))
    sim.add_agent((edge - 1, 0), velocity=(2, 0), preferred_velocity=(2, 0), max_speed=2)
    with Unchanged(sim):
        with pytest.raises(orca.LimitError) as e:
            sim.step(1.0)
        assert e.value.status == "ORCA_ERR_LIMIT" and "1" in str(e.value)
    # steps=k stops at the refused step and says which
    sim.agents[1].position = (edge - 5, 0)
    with pytest.raises(orca.LimitError, match="step 2 of 10"):
        sim.step(1.0, 10)
    assert sim.step_count == 2


def test_load_refusals():
    sim = populated()
    snap = sim.save()
    with Unchanged(sim):
        for bad in (b"", b"garbage", snap[:-1], snap[:10], bytes(len(snap)),
                    snap[:20] + bytes([snap[20] ^ 1]) + snap[21:]):
            try:
                sim.load(bad)
            except orca.FormatError as e:
                assert e.status == "ORCA_ERR_FORMAT"
            else:  # a flipped value byte can still be a valid snapshot: restore it
                sim.load(snap)
        with pytest.raises(TypeError):
            sim.load(123)
        with pytest.raises(TypeError):
            sim.load("text")


def test_segment_refusals():
    sim = populated()
    with Unchanged(sim):
        with pytest.raises(orca.ArgumentError):
            sim.add_segment((0, 0), (math.nan, 1))
        with pytest.raises(orca.ArgumentError):
            sim.add_segment((0, 0), (orca.COORD_LIMIT, 1))
        with pytest.raises(orca.ArgumentError):
            sim.add_polyline([(0, 0), (1, 1), (math.inf, 1)], closed=True)
        with pytest.raises(ValueError):
            sim.add_polyline(np.zeros((3, 3)))
        with pytest.raises(orca.Error):
            sim.add_polyline([(0, 0)])


def test_scenario_refusals():
    with pytest.raises(ValueError, match="unknown scene"):
        orca.Scenario("nowhere")
    with pytest.raises(TypeError):
        orca.Scenario(3)
    with pytest.raises(TypeError, match="dt"):
        orca.Scenario()
    with pytest.raises(TypeError):
        orca.Scenario("circle", dt=0.1)
    with pytest.raises(ValueError):
        orca.Scenario("circle", seed=-1)
    with pytest.raises(orca.Error):
        orca.Scenario("circle", agents=10 ** 9)
    sc = orca.Scenario(dt=0.25)
    with pytest.raises(ValueError):
        sc.add_agent((0, 0), goal="somewhere")
    with pytest.raises(TypeError):
        sc.add_agent((0, 0), goal="point")
    with pytest.raises(orca.ArgumentError):
        sc.add_agent((0, 0), target=(1, 1), preferred_speed=-1)
    with pytest.raises(orca.Error):
        sc.agent_goal(0)
    assert sc.simulation.agent_count == 0


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_building_blocks_refuse_non_finite(bad):
    with pytest.raises(ValueError, match="finite"):
        orca.constraint_agent((bad, 0), 1, (0, 0), (0, 0), 1, 0.1)
    with pytest.raises(ValueError):
        orca.constraint_agent((3, 0), bad, (0, 0), (0, 0), 1, 0.1)
    with pytest.raises(ValueError):
        orca.constraint_segment((1, 1), (2, bad), 0.5, 1, 0.1)
    with pytest.raises(ValueError):
        orca.constraint_boundary((1, 1), (2, 1), bad, 1)
    with pytest.raises(ValueError):
        orca.solve(np.array([[0, 0, 1, bad]]), 1, (0, 0))
    with pytest.raises(ValueError):
        orca.solve(np.zeros((0, 4)), bad, (0, 0))
    with pytest.raises(ValueError):
        orca.lp_solve([[0, 0, 0, 1]], 1, (bad, 0))
    with pytest.raises(ValueError):
        orca.vo_overlap((1, 0), (1, 0), 0.5, 0.1, (bad, 0))
    with pytest.raises(ValueError):
        orca.sincos_turns(bad)


def test_building_blocks_bad_shapes_and_ranges():
    with pytest.raises(ValueError):
        orca.solve(np.zeros((2, 3)), 1, (0, 0))
    with pytest.raises(TypeError):
        orca.solve(np.zeros((2, 4), dtype=np.float32), 1, (0, 0))
    with pytest.raises(ValueError):
        orca.solve(np.zeros((1, 4)), 1, (0, 0), hard_count=2)
    with pytest.raises(ValueError):
        orca.solve(np.zeros((1, 4)), -1, (0, 0))
    with pytest.raises(ValueError):
        orca.constraint_agent((3, 0), 0, (0, 0), (0, 0), 1, 0.1)
    with pytest.raises(ValueError, match="non-zero"):
        orca.lp_solve(np.zeros((0, 4)), 1, (0, 0), direction=True)
    with pytest.raises(ValueError):
        orca.lp_fallback(np.zeros((0, 4)), 0, 0, 1)
    with pytest.raises(ValueError):
        orca.lp_fallback(np.zeros((2, 4)), 0, 2, 1)
    with pytest.raises(ValueError, match="capsule"):
        orca.vo_support((0.1, 0), (0.1, 0), 1, 1, (0, 0))
