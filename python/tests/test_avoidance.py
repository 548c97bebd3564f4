# SPDX-License-Identifier: MIT
"""Priority, layers, locked agents and diagnostics through Python (docs/extensions.md,
"Priority, layers and locked agents" and "Diagnostics"): the same hash as `orca run` on a scene
file with priority=/layers=/mask=/locked= keys (ORCA_CLI), the defaults giving the plain bits,
the diagnostics re-computed here by a scan over every agent, bulk equal to per agent, counts
equal to the sums, and every refusal leaving the state unchanged."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import orca

MAX = 1.7976931348623157e308
BAD_PRIORITIES = [0.0, -0.0, -1.0, math.nan, math.inf, -math.inf, 2.0 ** 31,
                  math.nextafter(2.0 ** 30, math.inf), math.nextafter(2.0 ** -30, 0), 1e-300,
                  5e-324, MAX, -MAX, 1e300]
GOOD_PRIORITIES = [2.0 ** -30, 2.0 ** 30, 1.0, 0.5, 1000.0, math.nextafter(2.0 ** 30, 0)]


def lcg(seed):
    """A small deterministic generator (values in [0, 1)), so the scene is the same here and in
    the file handed to `orca run`."""
    state = seed
    while True:
        state = (state * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        yield (state >> 11) / 2.0 ** 53


def crowd(n=40, seed=7):
    """Agents of a crossing crowd with avoidance settings of every kind: (position, goal,
    radius, priority, layers, mask, locked, velocity)."""
    r = lcg(seed)
    agents = []
    for i in range(n):
        x, y = next(r) * 30 - 15, next(r) * 30 - 15
        agents.append({
            "position": (x, y), "target": (-x, -y), "radius": 0.4 + next(r) * 0.4,
            "priority": [1.0, 3.0, 0.25, 1000.0, 2.0 ** -30, 2.0 ** 30][i % 6],
            "layers": [1, 2, 3, 1][i % 4], "mask": [0xFFFFFFFF, 1, 2, 0xFFFFFFFF, 0][i % 5],
            "locked": i % 9 == 4,
            "velocity": (next(r) - 0.5, next(r) - 0.5) if i % 9 == 4 else (0.0, 0.0),
        })
    return agents


def scene_file(agents, path):
    lines = ["orca-scene 1", "dt 0.25", "seed 5", "segment -4 -1 4 -1"]
    for a in agents:
        lines.append("agent %r %r goal %r %r radius=%r preferred_speed=1.25 velocity=%r,%r "
                     "priority=%r layers=%d mask=0x%X locked=%d" % (
                         a["position"] + a["target"] + (a["radius"],) + a["velocity"] +
                         (a["priority"], a["layers"], a["mask"], int(a["locked"]))))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def scenario(agents, how):
    """The scene file's scenario built in Python: the settings as add_agent keywords
    ('keywords'), through the Simulator setters after adding ('setters'), or through
    Agent.set_avoidance ('agent')."""
    sc = orca.Scenario(dt=0.25, seed=5)
    sim = sc.simulation
    sim.add_segment((-4, -1), (4, -1))
    for a in agents:
        kw = dict(target=a["target"], preferred_speed=1.25, radius=a["radius"],
                  velocity=a["velocity"])
        if how == "keywords":
            sc.add_agent(a["position"], priority=a["priority"], layers=a["layers"],
                         mask=a["mask"], locked=a["locked"], **kw)
        else:
            h = sc.add_agent(a["position"], **kw)
            if how == "setters":
                sim.set_priority(h, a["priority"])
                sim.set_layers(h, a["layers"], a["mask"])
                sim.set_locked(h, a["locked"])
            else:
                h.set_avoidance(priority=a["priority"], layers=a["layers"], mask=a["mask"],
                                locked=a["locked"])
    return sc


def orca_cli():
    cli = os.environ.get("ORCA_CLI", "")
    if not (cli and os.access(cli, os.X_OK)):
        pytest.skip("ORCA_CLI (the orca command) not given")
    return cli


@pytest.mark.parametrize("how", ["keywords", "setters", "agent"])
def test_same_hash_and_diagnostics_as_orca_run(tmp_path, how):
    cli = orca_cli()
    agents = crowd()
    path = scene_file(agents, tmp_path / "crowd.txt")
    steps = 120
    out = subprocess.run([cli, "run", path, "--steps", str(steps), "--diagnostics", "--json"],
                         check=True, capture_output=True, text=True).stdout
    ref = json.loads(out)
    sc = scenario(agents, how)
    sim = sc.simulation
    sim.diagnostics = True
    totals = {"cut": 0, "blocked": 0, "locked": 0, "fallback": 0}
    for _ in range(steps):
        sc.step()
        c = sim.step_diagnostics()
        for k in totals:
            totals[k] += getattr(c, k)
    assert sc.hexhash() == ref["hash"]
    d = ref["diagnostics"]
    assert (totals["cut"], totals["blocked"], totals["locked"], totals["fallback"]) == (
        d["cut_agent_steps"], d["blocked_agent_steps"], d["locked_agent_steps"],
        d["fallback_agent_steps"])
    last = sim.step_diagnostics()
    assert (last.cut, last.blocked, last.fallback, last.locked) == (
        d["last_step"]["cut"], d["last_step"]["blocked"], d["last_step"]["fallback"],
        d["last_step"]["locked"])
    assert totals["locked"] == steps * sum(a["locked"] for a in agents)
    # the settings are part of the state: the plain crowd has another hash
    plain = orca.Scenario(dt=0.25, seed=5)
    plain.simulation.add_segment((-4, -1), (4, -1))
    for a in agents:
        plain.add_agent(a["position"], target=a["target"], preferred_speed=1.25,
                        radius=a["radius"], velocity=a["velocity"])
    plain.step(steps)
    assert plain.hash() != sc.hash()


def test_three_ways_agree():
    agents = crowd(30, seed=3)
    hashes = set()
    for how in ("keywords", "setters", "agent"):
        sc = scenario(agents, how)
        sc.step(60)
        hashes.add(sc.hash())
    assert len(hashes) == 1


def test_defaults_give_the_plain_bits(golden):
    # every agent explicitly at the defaults, with diagnostics on: the golden hash
    for name in ("circle", "wallgap"):
        agents, steps, expected = golden[name]
        sc = orca.Scenario(name, agents=agents, seed=1)
        sim = sc.simulation
        sim.diagnostics = True
        for a in sim.agents:
            a.set_avoidance(priority=1, layers=1, mask=0xFFFFFFFF, locked=False)
        sc.step(steps)
        assert sc.hexhash() == expected
        c = sim.step_diagnostics()
        assert c.agents == agents and c.locked == 0
    # away from the defaults and back: the plain state's hash and snapshot
    sim = orca.Simulator()
    sim.add_agents([(0, 0), (4, 0.5), (-3, 2)], preferred_velocity=(0.5, 0))
    sim.step(0.25, 3)
    h, snap = sim.hash(), sim.save()
    a = sim.agent(1)
    sim.set_priority(a, 7)
    sim.set_layers(a, 4, 4)
    sim.set_locked(a, True)
    assert sim.hash() != h
    sim.set_avoidance(a, priority=1.0, layers=1, mask=0xFFFFFFFF, locked=0)
    assert sim.hash() == h and sim.save() == snap


def test_settings_read_back_and_survive_a_snapshot():
    sim = orca.Simulator()
    a = sim.add_agent((0, 0), priority=2.5, layers=6, mask=0x80000001, locked=True)
    b = sim.add_agent((3, 0))
    assert a.avoidance == orca.Avoidance(2.5, 6, 0x80000001, True)
    assert sim.avoidance(b) == orca.Avoidance(1.0, 1, 0xFFFFFFFF, False)
    assert (a.priority, a.layers, a.mask, a.locked) == (2.5, 6, 0x80000001, True)
    b.priority = 2.0 ** -30
    b.layers = 0
    b.mask = 0xFFFFFFFF
    b.locked = 1
    assert b.avoidance == orca.Avoidance(2.0 ** -30, 0, 0xFFFFFFFF, True)
    b.set_avoidance(locked=False)  # the others kept
    assert b.avoidance == orca.Avoidance(2.0 ** -30, 0, 0xFFFFFFFF, False)
    copy = sim.copy()
    assert copy.hash() == sim.hash()
    assert [x.avoidance for x in copy.agents] == [x.avoidance for x in sim.agents]
    restored = orca.Simulator()
    restored.load(sim.save())
    assert restored.avoidance(restored.agent(0)) == a.avoidance
    # add_agents: the same settings for every agent
    hs = sim.add_agents([(10, 0), (12, 0)], priority=4, mask=2)
    assert all(h.avoidance == orca.Avoidance(4.0, 1, 2, False) for h in hs)


def test_locked_agent_keeps_its_velocity():
    sim = orca.Simulator()
    lk = sim.add_agent((0, 0), velocity=(0.1, 0.05), preferred_velocity=(1, 1), locked=True)
    for k in range(6):
        sim.add_agent((-6 + 2 * k, 3), preferred_velocity=(0, -1), radius=0.5)
    for _ in range(40):
        before = lk.position
        sim.step(0.25)
        assert lk.velocity == (0.1, 0.05)
        assert lk.position == (before[0] + 0.1 * 0.25, before[1] + 0.05 * 0.25)


def brute_force_diagnostics(pos, nd, maxn, layers, mask, locked):
    """candidates, neighbor_count, neighbors_cut of every agent by a scan over all agents."""
    n = len(pos)
    cand = np.zeros(n, dtype=np.int64)
    for i in range(n):
        if locked[i]:
            continue
        d = pos - pos[i]
        d2 = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
        ok = (d2 < nd[i] * nd[i]) & ((mask[i] & layers) != 0)
        ok[i] = False
        cand[i] = int(ok.sum())
    count = np.minimum(cand, maxn) * (~locked)
    return cand, count, (cand > maxn) & ~locked


@pytest.mark.parametrize("workers", [1, 3])
def test_diagnostics_against_a_scan(workers):
    r = lcg(11)
    n = 300
    sim = orca.Simulator(workers=workers)
    pos = [(next(r) * 60 - 30, next(r) * 60 - 30) for _ in range(n - 1)]
    pos.append((-32.0, 0.0))  # walks into the locked agent 0, which stands at (-31.4, 0): blocked
    pos[0] = (-31.4, 0.0)
    layers = np.array([int(next(r) * 4) for _ in range(n)], dtype=np.int64)
    mask = np.array([[1, 2, 3, 0xFFFFFFFF, 0][int(next(r) * 5)] for _ in range(n)], dtype=np.int64)
    locked = np.array([next(r) < 0.05 for _ in range(n)])
    locked[0], locked[n - 1] = True, False
    layers[0], mask[n - 1] = 1, 0xFFFFFFFF
    nd = np.array([next(r) * 8 for _ in range(n)])
    maxn = np.array([int(next(r) * 12) for _ in range(n)])
    for i in range(n):
        sim.add_agent(pos[i], radius=0.3, neighbor_dist=nd[i], max_neighbors=int(maxn[i]),
                      velocity=(0, 0) if i == 0 else (0.2, -0.1) if locked[i] else (0, 0),
                      layers=int(layers[i]),
                      mask=int(mask[i]), locked=bool(locked[i]),
                      priority=0.5 + next(r) * 4)
    pv = np.array([(-p[0] / 10, -p[1] / 10) for p in pos])
    pv[::17] = 0.0  # some want to stand still: never blocked
    pv[n - 1] = (1.0, 0.0)
    assert sim.diagnostics is False
    before = sim.step_diagnostics()
    assert tuple(before) == (0, 0, 0, 0, 0, 0, 0)
    sim.diagnostics = True
    checked = 0
    seen = np.zeros(3, dtype=np.int64)
    for step in range(12):
        sim.set_preferred_velocities(pv)
        p = sim.positions
        sim.step(0.25)
        d = sim.diagnostics_arrays()
        cand, count, cut = brute_force_diagnostics(p, nd, maxn, layers, mask, locked)
        assert np.array_equal(d["candidates"], cand)
        assert np.array_equal(d["neighbor_count"], count)
        assert np.array_equal(d["neighbors_cut"], cut.astype(np.int32))
        assert np.array_equal(d["locked"], locked.astype(np.int32))
        v = sim.velocities
        pp = pv[:, 0] * pv[:, 0] + pv[:, 1] * pv[:, 1]
        vv = v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1]
        blocked = (pp > 0) & (100 * vv <= pp) & ~locked
        assert np.array_equal(d["blocked"], blocked.astype(np.int32))
        assert np.all(d["failed_constraint"][d["fallback"] == 0] == -1)
        assert np.all(d["failed_constraint"][d["fallback"] == 1] >= 0)
        # bulk equals per agent; the counts are the sums
        for i, a in enumerate(sim.agents):
            assert tuple(sim.agent_diagnostics(a)) == tuple(int(d[k][i]) for k in
                                                             orca.AgentDiagnostics._fields)
            assert a.diagnostics() == sim.agent_diagnostics(a)
        c = sim.step_diagnostics()
        assert c == orca.StepDiagnostics(n, int(d["fallback"].sum()),
                                         int(d["neighbors_cut"].sum()), int(d["blocked"].sum()),
                                         int(d["locked"].sum()), 0, 0)
        assert c.fallback == sim.last_fallback_count
        checked += n
        seen += (c.cut, c.blocked, c.locked)
    assert np.all(seen > 0), seen  # every field is exercised
    # an agent added since the last step reads as cleared
    new = sim.add_agent((100, 100))
    assert new.diagnostics() == orca.AgentDiagnostics(0, -1, 0, 0, 0, 0, 0, 0, 0)
    assert sim.diagnostics_arrays()["candidates"].shape == (n + 1,)


def test_diagnostics_are_not_state():
    a = orca.Scenario("crossing", agents=50, seed=2)
    b = orca.Scenario("crossing", agents=50, seed=2)
    b.simulation.diagnostics = True
    a.step(40)
    b.step(40)
    assert a.hash() == b.hash() and a.simulation.save() == b.simulation.save()
    assert b.simulation.diagnostics is True and a.simulation.diagnostics is False
    assert b.simulation.step_diagnostics().agents == 50
    b.simulation.diagnostics = False
    assert b.simulation.diagnostics is False


@pytest.mark.parametrize("value", BAD_PRIORITIES, ids=repr)
def test_bad_priority_changes_nothing(value):
    sim = orca.Simulator()
    a = sim.add_agent((0, 0), priority=3, preferred_velocity=(1, 0))
    sim.add_agent((4, 0))
    sim.step(0.25, 2)
    h, snap = sim.hash(), sim.save()
    for call in (lambda: sim.set_priority(a, value),
                 lambda: sim.set_avoidance(a, priority=value, layers=5),
                 lambda: a.set_avoidance(priority=value),
                 lambda: setattr(a, "priority", value),
                 lambda: sim.add_agent((9, 9), priority=value),
                 lambda: sim.add_agents([(9, 9), (12, 9)], priority=value)):
        with pytest.raises(orca.ArgumentError, match=r"^priority must be in \[2\^-30, 2\^30\], "
                                                     r"got ") as e:
            call()
        assert e.value.status == "ORCA_ERR_ARGUMENT"
        assert sim.hash() == h and sim.save() == snap
    assert a.priority == 3.0


@pytest.mark.parametrize("value", GOOD_PRIORITIES, ids=repr)
def test_priority_range_edges_accepted(value):
    sim = orca.Simulator()
    a = sim.add_agent((0, 0))
    sim.set_priority(a, value)
    assert a.priority == value


def test_bad_locked_layers_and_stale_handles_change_nothing():
    sc = orca.Scenario(dt=0.25, seed=1)
    sc.add_agent((0, 0), target=(5, 0), layers=2)
    sc.add_agent((5, 0), target=(0, 0))
    sc.step(3)
    sim = sc.simulation
    a = sim.agent(0)
    h, snap = sc.hash(), sim.save()

    def refused(call, exc, pattern):
        with pytest.raises(exc, match=pattern):
            call()
        assert sc.hash() == h and sim.save() == snap

    for v in (2, -1, 7):
        msg = r"^locked must be 0 or 1, got %d$" % v
        refused(lambda: sim.set_locked(a, v), orca.ArgumentError, msg)
        refused(lambda: setattr(a, "locked", v), orca.ArgumentError, msg)
        refused(lambda: sim.set_avoidance(a, locked=v, priority=2), orca.ArgumentError, msg)
        refused(lambda: sim.add_agent((9, 9), locked=v), orca.ArgumentError, msg)
        refused(lambda: sc.add_agent((9, 9), locked=v), orca.ArgumentError, msg)
    refused(lambda: sim.set_locked(a, 2 ** 40), ValueError, "locked")
    refused(lambda: sim.set_locked(a, 1.0), TypeError, "locked must be an integer")
    for v in (-1, 2 ** 32, 2 ** 64):
        refused(lambda: sim.set_layers(a, v, 1), orca.ArgumentError, r"^layers must be in")
        refused(lambda: sim.set_layers(a, 1, v), orca.ArgumentError, r"^mask must be in")
        refused(lambda: setattr(a, "mask", v), orca.ArgumentError, r"^mask must be in")
        refused(lambda: sc.add_agent((9, 9), layers=v), orca.ArgumentError, r"^layers must be")
    refused(lambda: sim.set_layers(a, 1.0, 1), TypeError, "layers must be an integer")
    refused(lambda: sim.set_layers(a, True, 1), TypeError, "layers must be an integer")
    refused(lambda: sim.set_priority(a, "2"), TypeError, "priority must be a real number")
    refused(lambda: sim.set_priority(a, 10 ** 400), ValueError, "too large for a double")
    refused(lambda: sc.add_agent((9, 9), priority=0), orca.ArgumentError, "^priority")
    assert sim.agent_count == 2
    # a handle that outlived its agent
    b = sim.add_agent((20, 20))
    sim.remove_agent(b)
    h, snap = sc.hash(), sim.save()
    for call in (lambda: sim.set_priority(b, 2), lambda: sim.set_layers(b, 1, 1),
                 lambda: sim.set_locked(b, 1), lambda: sim.set_avoidance(b, priority=2),
                 lambda: sim.avoidance(b), lambda: b.avoidance,
                 lambda: sim.agent_diagnostics(b), lambda: b.diagnostics()):
        refused(call, orca.StaleHandleError,
                    r"agent handle \{slot \d+, generation \d+, sim \d+\} is stale")
    with pytest.raises(TypeError):
        sim.set_priority(0, 2)  # a raw int is not an Agent
