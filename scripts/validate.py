#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""orca's validation suite: RiMEA tests, SteerSuite scenes, the fundamental diagram and a
bottleneck sweep, judged by their published criteria (docs/validation.md).

Runs the scene files of examples/validation/ through the Python module (orca.read_scene,
the very code `orca run` uses, so every state hash below is the one `orca run FILE --steps
N` prints), measures them, and writes a report: a table (test, criterion, measured, verdict,
state hash, command to reproduce), charts (matplotlib) and the charts' data as CSV.

    scripts/validate                    the full suite: writes docs/validation.md and
                                        docs/validation/ (figures and CSV)
    scripts/validate --quick --out DIR  the bounded CI run: shorter corridors, the same
                                        criteria; the report goes to DIR
    --check FILE / --record FILE        compare every run's hash with FILE (exit 1 on a
                                        difference) / write them there
    --cli ORCA                          also run each short run with `ORCA run FILE --steps
                                        N --json` and require the same hash
    --only NAME[,NAME]                  only these tests (rimea1, rimea4, rimea4single,
                                        rimea6, rimea9, rimea12, steersuite, bottleneck)
    --workers N                         worker threads (the results are the same bits)

Exit status: 0 when every judged criterion passed (and every hash matched), 1 otherwise.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

import numpy as np

import orca

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENES = os.path.join(ROOT, "examples", "validation")

# Weidmann (1993): v(rho) = v0 (1 - exp(-gamma (1/rho - 1/rho_max)))
V0, GAMMA, RHO_MAX = 1.34, 1.913, 5.4
FD_DENSITIES = ["0.5", "1", "2", "3", "4", "5", "6"]
SINGLE_DENSITIES = ["0.5", "1", "1.5", "2", "2.25"]
BOTTLENECK_WIDTHS = ["0.8", "1", "1.2", "1.4", "1.6", "2", "2.5"]
# --cli runs `orca run` again on every run of at most this many agent-steps (the agents at
# the start times the steps): every run of the quick suite, the smaller ones of the full one
CLI_CHECK_MAX = 5_000_000
FD_TOLERANCE = 0.15  # the extension's criterion: within 15% of Weidmann, 0.5 to 4 agents/m^2


def weidmann(rho):
    rho = np.asarray(rho, dtype=float)
    with np.errstate(divide="ignore"):
        v = V0 * (1.0 - np.exp(-GAMMA * (1.0 / rho - 1.0 / RHO_MAX)))
    return np.where(rho < RHO_MAX, v, 0.0)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Run:
    """One scene file's run: the scenario, its step count and how to reproduce it."""

    def __init__(self, ctx, filename, density=False):
        self.ctx = ctx
        self.file = filename
        self.density = density
        self.sc = orca.read_scene(os.path.join(SCENES, filename), workers=ctx.workers)
        if density:
            self.sc.simulation.set_density_speed()
        self.dt = self.sc.dt
        self.steps = 0
        self.n0 = len(self.sc.simulation)

    @property
    def sim(self):
        return self.sc.simulation

    @property
    def t(self):
        return self.sim.step_count * self.dt

    def step(self, n=1):
        self.sc.step(n)
        self.steps += n  # step calls: once every agent has left, the step count stops

    def walls(self):
        return [s.ends for s in self.sim.segments]

    def command(self):
        return "orca run examples/validation/%s --steps %d%s" % (
            self.file, self.steps, " --density-speed" if self.density else "")

    def finish(self, key=None):
        """Records the run's hash (and checks it against the CLI and the golden file)."""
        h = self.sc.hexhash()
        key = key or (self.file + (" density" if self.density else ""))
        self.ctx.record_hash(key, self.steps, h, self)
        return h


class Context:
    def __init__(self, args):
        self.workers = args.workers
        self.quick = args.quick
        self.cli = args.cli
        self.golden = {}
        self.hashes = []
        self.failures = []
        if args.check:
            with open(args.check, encoding="utf-8") as f:
                for line in f:
                    line = line.split("#", 1)[0].strip()
                    if line:
                        key, steps, h = line.rsplit(None, 2)
                        self.golden[key] = (int(steps), h)

    def record_hash(self, key, steps, h, run):
        self.hashes.append((key, steps, h))
        if self.golden and key not in self.golden:
            self.failures.append("%s: no hash recorded for it in the --check file" % key)
        elif key in self.golden and self.golden[key] != (steps, h):
            self.failures.append("%s: hash %s after %d steps, expected %s after %d" % (
                key, h, steps, self.golden[key][1], self.golden[key][0]))
        if self.cli and run is not None and run.n0 * run.steps <= CLI_CHECK_MAX:
            cmd = [self.cli, "run", os.path.join(SCENES, run.file), "--steps", str(steps),
                   "--json", "-q", "-j", str(self.workers)]
            if run.density:
                cmd.append("--density-speed")
            out = subprocess.run(cmd, capture_output=True, text=True)
            got = json.loads(out.stdout)["hash"] if out.returncode == 0 else out.stderr.strip()
            if got != h:
                self.failures.append("%s: `orca run` gave %s, the module %s" % (key, got, h))


# ------------------------------------------------------------------------------------------
# RiMEA 1: one pedestrian, 40 m at 1.33 m/s in 26 to 34 s


def rimea1(ctx, rep):
    run = Run(ctx, "rimea01-corridor.txt")
    prev = run.sim.positions[0, 0]
    t40 = None
    while t40 is None and run.t < 60.0:
        run.step()
        x = run.sim.positions[0, 0]
        if x >= 40.0:
            t40 = run.t - run.dt * (x - 40.0) / (x - prev)
        prev = x
    h = run.finish()
    ok = t40 is not None and 26.0 <= t40 <= 34.0
    rep.row("RiMEA 1: speed in a corridor", "40 m in 26 to 34 s (1.33 m/s)",
            "%.2f s" % t40 if t40 is not None else "not reached in 60 s", ok, h, run.command())
    if t40 is None:
        rep.text("rimea1", "The agent did not reach x = 40 m within 60 s.")
    else:
        rep.text("rimea1", "The agent covers the 40 m in %.2f s (40 / 1.33 = 30.08 s)%s." % (
            t40, ": ORCA keeps the preferred velocity when nothing is in the way, and the walls "
            "1 m to either side never constrain it (their time horizon is 0.5 s)"
            if abs(t40 - 40.0 / 1.33) < 0.05 else ""))


# ------------------------------------------------------------------------------------------
# RiMEA 4: the fundamental diagram


def measure_spec(filename):
    """The scene's `# measure key=value ...` header line (scripts/validation-scenes writes it):
    where and when the fundamental diagram is measured."""
    with open(os.path.join(SCENES, filename), encoding="utf-8") as f:
        for line in f:
            if line.startswith("# measure "):
                return {k: float(v) for k, v in (w.split("=") for w in line.split()[2:])}
    raise SystemExit("validate: %s has no '# measure' line" % filename)


def fd_run(ctx, filename, density, single):
    """Runs to the measurement's end; from its start on, every 0.25 s, counts the agents in
    each area (2 m x 2 m round y = 5, or 2 m of a single file) and sums their speeds. Returns
    per area (mean density, mean speed) and the run."""
    m = measure_spec(filename)
    c, o = m["centre"], m["offset"]
    if single:
        areas = [(c - 1, c + 1, -1e9, 1e9)]
    else:
        areas = [(c - o - 1, c - o + 1, 4, 6), (c - 1, c + 1, 4, 6), (c + o - 1, c + o + 1, 4, 6)]
    run = Run(ctx, filename, density)
    every = max(1, int(round(0.25 / run.dt)))
    start = int(round(m["start"] / run.dt))
    end = int(round(m["end"] / run.dt))
    count = np.zeros(len(areas))
    speed = np.zeros(len(areas))
    samples = 0
    run.step(start)
    while run.steps < end:
        run.step(every)
        p = run.sim.positions
        v = run.sim.velocities
        s = np.hypot(v[:, 0], v[:, 1])
        for k, (x0, x1, y0, y1) in enumerate(areas):
            m_ = (p[:, 0] >= x0) & (p[:, 0] < x1) & (p[:, 1] >= y0) & (p[:, 1] < y1)
            count[k] += m_.sum()
            speed[k] += s[m_].sum()
        samples += 1
    size = np.array([(x1 - x0) if single else (x1 - x0) * (y1 - y0) for x0, x1, y0, y1 in areas])
    rho = count / samples / size
    vm = np.where(count > 0, speed / np.maximum(count, 1), np.nan)
    return rho, vm, run


def rimea4(ctx, rep):
    suffix = "-short" if ctx.quick else ""
    rows = []
    for density in (False, True):
        for rho_s in FD_DENSITIES:
            t0 = time.perf_counter()
            rho, vm, run = fd_run(ctx, "rimea04-fd-%s%s.txt" % (rho_s, suffix), density, False)
            h = run.finish()
            log("  rimea4 %s/m^2%s: density %s, speed %s (%.1f s)" % (
                rho_s, " (density speed)" if density else "",
                np.round(rho, 2), np.round(vm, 3), time.perf_counter() - t0))
            for k, name in enumerate(("control 1", "main", "control 2")):
                rows.append({"extension": "density_speed" if density else "plain",
                             "nominal": float(rho_s), "area": name, "density": rho[k],
                             "speed": vm[k], "flow": rho[k] * vm[k],
                             "weidmann": float(weidmann(rho[k])), "hash": h,
                             "command": run.command()})
    rep.csv("fd", rows)
    # judged on the main area, 0.5 to 4 agents/m^2
    judged = [r for r in rows if r["area"] == "main" and r["nominal"] <= 4.0]

    def worst(ext):
        errs = [abs(r["speed"] - r["weidmann"]) / r["weidmann"] for r in judged
                if r["extension"] == ext]
        return max(errs)

    plain, ext = worst("plain"), worst("density_speed")
    rep.row("RiMEA 4: fundamental diagram, plain ORCA",
            "documented: speed against Weidmann, 0.5 to 4 agents/m^2",
            "worst %.0f%% from Weidmann" % (100 * plain), None, "7 runs, below",
            "scripts/validate --only rimea4")
    rep.row("RiMEA 4: fundamental diagram, density_speed on",
            "within 15% of Weidmann's speed, 0.5 to 4 agents/m^2",
            "worst %.1f%% from Weidmann" % (100 * ext), ext <= FD_TOLERANCE, "7 runs, below",
            "scripts/validate --only rimea4")
    rep.fd_rows = rows
    rep.figure_fd(rows)


def rimea4single(ctx, rep):
    suffix = "-short" if ctx.quick else ""
    rows = []
    for density in (False, True):
        for rho_s in SINGLE_DENSITIES:
            rho, vm, run = fd_run(ctx, "rimea04-single-%s%s.txt" % (rho_s, suffix), density,
                                  True)
            h = run.finish()
            rows.append({"extension": "density_speed" if density else "plain",
                         "nominal": float(rho_s), "density": rho[0], "speed": vm[0],
                         "flow": rho[0] * vm[0], "hash": h, "command": run.command()})
    rep.csv("fd-single", rows)
    lo = min(r["speed"] for r in rows if r["extension"] == "plain")
    rep.row("RiMEA 4: single file", "documented: speed against agents per metre",
            "plain: slowest %.2f m/s at %.2f /m" % (lo, max(r["density"] for r in rows)), None,
            "10 runs below", "scripts/validate --only rimea4single")
    rep.single_rows = rows
    rep.figure_single(rows)


# ------------------------------------------------------------------------------------------
# RiMEA 6: the corner


def segments_cross(p0, p1, walls):
    """For each agent, whether its move p0 -> p1 crosses a wall segment (proper or touching)."""
    hit = np.zeros(len(p0), dtype=bool)
    d = p1 - p0
    for (a, b) in walls:
        a = np.asarray(a, dtype=float)
        e = np.asarray(b, dtype=float) - a
        den = d[:, 0] * e[1] - d[:, 1] * e[0]
        w = a - p0
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (w[:, 0] * e[1] - w[:, 1] * e[0]) / den
            u = (w[:, 0] * d[:, 1] - w[:, 1] * d[:, 0]) / den
        hit |= (den != 0) & (s >= 0) & (s <= 1) & (u >= 0) & (u <= 1)
    return hit


class Tracker:
    """Follows agents by their first index through removals (exits): after a step that
    removed some, the handles say which rows are left."""

    def __init__(self, run):
        self.run = run
        hs = run.sim.agents
        self.id_of = {h: i for i, h in enumerate(hs)}
        self.ids = np.arange(len(hs))
        self.n0 = len(hs)
        self.left = np.full(len(hs), np.nan)  # time each left

    def after_step(self):
        n = len(self.run.sim)
        if n != len(self.ids):
            alive = np.array([self.id_of[h] for h in self.run.sim.agents], dtype=int)
            gone = np.setdiff1d(self.ids, alive)
            self.left[gone] = self.run.t
            self.ids = alive


def paths_rows(traj, **extra):
    """CSV rows (agent, time, x, y) of paths recorded as lists of (t, x, y) per agent."""
    return [dict(extra, agent=i, time=t, x=x, y=y) for i, path in enumerate(traj)
            for (t, x, y) in path]


def rimea6(ctx, rep):
    run = Run(ctx, "rimea06-corner.txt")
    walls = run.walls()
    tr = Tracker(run)
    traj = [[] for _ in range(tr.n0)]
    crossed = 0
    p = run.sim.positions
    for i in range(tr.n0):
        traj[i].append((0.0, p[i, 0], p[i, 1]))
    while len(run.sim) and run.t < 120.0:
        before = dict(zip(tr.ids, run.sim.positions))
        run.step()
        tr.after_step()
        p = run.sim.positions
        ids = tr.ids
        p0 = np.array([before[i] for i in ids]) if len(ids) else np.zeros((0, 2))
        if len(ids):
            crossed += int(segments_cross(p0, p, walls).sum())
        for k, i in enumerate(ids):
            traj[i].append((run.t, p[k, 0], p[k, 1]))
    wall = run.sc.max_wall_overlap
    h = run.finish()
    out = int(run.sc.exited.count)
    ok = out == 20 and crossed == 0 and wall == 0
    rep.row("RiMEA 6: corner", "all 20 reach the exit, none crosses a wall",
            "%d of 20 out by %.1f s; %d wall crossings; deepest wall overlap %g radius" % (
                out, run.t, crossed, wall), ok, h, run.command())
    rep.csv("rimea6", paths_rows(traj))
    rep.figure_trajectories("rimea6", walls, traj, "RiMEA 6: 20 agents round a corner",
                            (-0.5, 12.5, -0.5, 13.5))


# ------------------------------------------------------------------------------------------
# RiMEA 9: the room with four, then two exits


def evacuate(ctx, filename, cap, sample=None, every_agent=21):
    """Runs until the room is empty (or `cap` s): the agents left every second, the positions
    at `sample` s, and the paths (every 0.2 s) of every `every_agent`-th agent."""
    run = Run(ctx, filename)
    tr = Tracker(run)
    n0 = tr.n0
    curve = [(0.0, n0)]
    snap = None
    traj = [[] for _ in range(n0)]
    while len(run.sim) and run.t < cap:
        run.step()
        tr.after_step()
        if run.steps % 20 == 0:
            curve.append((run.t, len(run.sim)))
        if run.steps % 4 == 0:
            p = run.sim.positions
            for k in np.flatnonzero(tr.ids % every_agent == 0):
                traj[tr.ids[k]].append((run.t, p[k, 0], p[k, 1]))
        if sample is not None and snap is None and run.t >= sample:
            snap = run.sim.positions
    curve.append((run.t, len(run.sim)))
    ex = run.sc.exited
    t = ex.last_step * run.dt if ex.count == n0 else float("nan")
    return run, t, curve, snap, [path for path in traj[::every_agent]]


def rimea9(ctx, rep):
    r4, t4, c4, _, _ = evacuate(ctx, "rimea09-4exits.txt", 900.0)
    h4 = r4.finish()
    r2, t2, c2, snap, paths = evacuate(ctx, "rimea09-2exits.txt", 900.0, sample=30.0)
    h2 = r2.finish()
    ratio = t2 / t4
    ok = 1.6 <= ratio <= 2.4
    rep.row("RiMEA 9: room, 4 then 2 exits", "1.6 <= t(2 exits) / t(4 exits) <= 2.4",
            "t4 = %.1f s, t2 = %.1f s, ratio %.2f" % (t4, t2, ratio), ok,
            "%s, %s" % (h4, h2), "%s; %s" % (r4.command(), r2.command()))
    rows = [{"exits": 4, "time": t, "agents": n} for t, n in c4] + \
        [{"exits": 2, "time": t, "agents": n} for t, n in c2]
    rep.csv("rimea9", rows)
    # agent k of the CSV is agent 21 k of the scene (21: the lattice has 40 columns, so the
    # drawn agents start across the room rather than in two columns)
    rep.csv("rimea9-paths", paths_rows(paths))
    rep.figure_rimea9(c4, c2, r2.walls(), snap, t4, t2, paths)


# ------------------------------------------------------------------------------------------
# RiMEA 12: two bottlenecks in a row


def rimea12(ctx, rep):
    run = Run(ctx, "rimea12-bottleneck.txt")
    walls = run.walls()
    every = max(1, int(round(0.25 / run.dt)))
    cells = np.zeros((10, 26))  # 1 m cells over x -0.5..25.5 (26), y 0..10
    door, exit_ = [], []
    while len(run.sim) and run.t < 600.0:
        run.step(every)
        p = run.sim.positions
        ix = np.clip(np.floor(p[:, 0] + 0.5).astype(int), 0, 25)
        iy = np.clip(np.floor(p[:, 1]).astype(int), 0, 9)
        occ = np.zeros_like(cells)
        np.add.at(occ, (iy, ix), 1.0)
        cells = np.maximum(cells, occ)
        door.append(((p[:, 0] >= 8) & (p[:, 0] < 10) & (p[:, 1] >= 4) & (p[:, 1] < 6)).sum() / 4.0)
        exit_.append(((p[:, 0] >= 23) & (p[:, 0] < 25) & (p[:, 1] >= 4) & (p[:, 1] < 6)).sum()
                     / 4.0)
    h = run.finish()

    def peak(series):
        w = max(1, int(round(5.0 / (every * run.dt))))  # 5 s windows
        s = np.convolve(np.asarray(series), np.ones(w) / w, mode="valid")
        return float(s.max()) if len(s) else 0.0

    pd, pe = peak(door), peak(exit_)
    out = int(run.sc.exited.count)
    rep.row("RiMEA 12: two bottlenecks", "documented: congestion before door 1, none in room 2",
            "%d of 150 out by %.1f s; densest 5 s before door 1: %.2f /m^2, before the exit: "
            "%.2f /m^2" % (out, run.t, pd, pe), None, h, run.command())
    rep.csv("rimea12", [{"x": ix - 0.0, "y": iy + 0.5, "peak_agents_per_m2": cells[iy, ix]}
                        for iy in range(10) for ix in range(26)])
    rep.figure_rimea12(walls, cells, pd, pe)
    rep.rimea12 = (pd, pe)


# ------------------------------------------------------------------------------------------
# SteerSuite scenes and their composite score


def wall_distances(p, walls):
    d = np.full(len(p), np.inf)
    for (a, b) in walls:
        a = np.asarray(a, dtype=float)
        e = np.asarray(b, dtype=float) - a
        ee = float(e @ e)
        t = np.clip(((p - a) @ e) / ee, 0.0, 1.0) if ee > 0 else np.zeros(len(p))
        q = a + t[:, None] * e
        d = np.minimum(d, np.hypot(p[:, 0] - q[:, 0], p[:, 1] - q[:, 1]))
    return d


def steersuite_run(ctx, filename, cap, radius=0.5, lanes=False, paths=False):
    """Runs until every agent has left by its target (each target is an exit, as SteerSuite
    disables an agent at its target) or `cap` seconds. Per agent: collisions (the steps at
    which it starts to overlap another agent or a wall), time (until it left, or the run's
    end), kinetic energy (the sum over steps of v^2 / 2, SteerSuite's measure at its 20 frames
    a second). With `paths`, every agent's path every 0.2 s; with `lanes`, the lane order
    every second."""
    from scipy.spatial import cKDTree

    run = Run(ctx, filename)
    walls = run.walls()
    tr = Tracker(run)
    n0 = tr.n0
    ke = np.zeros(n0)
    coll = np.zeros(n0, dtype=int)
    touching = np.zeros(n0, dtype=bool)
    traj = [[] for _ in range(n0)]
    goal_dir = None
    lane_series = []
    deepest = 0.0
    if lanes:  # the two groups: the first half walks +x, the second -x
        goal_dir = np.where(np.arange(n0) < n0 // 2, 1, -1)
    while len(run.sim) and run.t < cap:
        run.step()
        tr.after_step()
        ids = tr.ids
        if not len(ids):
            break
        p = run.sim.positions
        v = run.sim.velocities
        ke[ids] += 0.5 * (v[:, 0] ** 2 + v[:, 1] ** 2)
        over = np.zeros(len(ids), dtype=bool)
        pairs = cKDTree(p).query_pairs(2 * radius, output_type="ndarray")
        if len(pairs):
            d = np.hypot(*(p[pairs[:, 0]] - p[pairs[:, 1]]).T)
            pr = pairs[d < 2 * radius]
            over[pr[:, 0]] = True
            over[pr[:, 1]] = True
            if len(pr):
                deepest = max(deepest, float(2 * radius - d[d < 2 * radius].min()))
        wd = wall_distances(p, walls)
        over |= wd < radius
        deepest = max(deepest, float(radius - wd.min()))
        now = np.zeros(n0, dtype=bool)
        now[ids] = over
        coll += now & ~touching
        touching = now
        if paths and run.steps % 4 == 0:
            for k, i in enumerate(ids):
                traj[i].append((run.t, p[k, 0], p[k, 1]))
        if lanes and run.steps % 20 == 0:
            lane_series.append((run.t, lane_order(p, goal_dir[ids])))
    time_ = np.where(np.isnan(tr.left), run.t, tr.left)
    done = int(np.sum(~np.isnan(tr.left)))
    score = 50.0 * coll.mean() + time_.mean() + ke.mean()
    return {"run": run, "walls": walls, "agents": n0, "done": done, "collisions": coll.mean(),
            "time": time_.mean(), "energy": ke.mean(), "score": score, "traj": traj,
            "deepest": deepest,
            "lanes": lane_series}


def lane_order(p, direction):
    """Lane order of two counter-flowing groups: for each agent, the agents within 10 m along
    x and 0.5 m across; phi_i = ((same - opposite) / (same + opposite))^2; the mean over the
    agents that have any. 1: every agent in a lane of its own direction; about 0 when mixed."""
    dx = np.abs(p[:, None, 0] - p[None, :, 0])
    dy = np.abs(p[:, None, 1] - p[None, :, 1])
    near = (dx < 10.0) & (dy < 0.5)
    np.fill_diagonal(near, False)
    same = (near & (direction[:, None] == direction[None, :])).sum(1)
    tot = near.sum(1)
    ok = tot > 0
    if not ok.any():
        return float("nan")
    phi = ((2 * same[ok] - tot[ok]) / tot[ok]) ** 2
    return float(phi.mean())


# the SteerSuite scenes whose paths are drawn (and kept as CSV)
DRAWN = ("doorway-two-way", "circle-20")


def steersuite(ctx, rep):
    rows = []
    specs = [("bottleneck-squeeze", 900.0), ("doorway-two-way", 120.0),
             ("hallway-two-way", 400.0), ("circle-20", 120.0)]
    results = {}
    for name, cap in specs:
        t0 = time.perf_counter()
        short = "-short" if ctx.quick and name == "bottleneck-squeeze" else ""
        r = steersuite_run(ctx, "steersuite-%s%s.txt" % (name, short), cap,
                           lanes=name == "hallway-two-way", paths=name in DRAWN)
        h = r["run"].finish()
        log("  steersuite %s: %d/%d, score %.1f (%.1f s)" % (name, r["done"], r["agents"],
                                                            r["score"],
                                                            time.perf_counter() - t0))
        ok = r["done"] == r["agents"]
        crit = "all reach their targets (no deadlock); score documented"
        measured = "%d of %d arrived by %.1f s; score %.2f = 50 × %.3f collisions + %.2f s + " \
                   "%.2f energy; deepest overlap %.1f mm" % (
                       r["done"], r["agents"], r["run"].t, r["score"], r["collisions"],
                       r["time"], r["energy"], 1000 * r["deepest"])
        if name == "hallway-two-way" and r["lanes"]:
            first = r["lanes"][0]
            at30 = min(r["lanes"], key=lambda x: abs(x[0] - 30.0))
            measured += "; lane order %.2f at %.0f s, %.2f at %.0f s (0 mixed, 1 lanes)" % (
                first[1], first[0], at30[1], at30[0])
        rep.row("SteerSuite %s" % name, crit, measured, ok, h, r["run"].command())
        rows.append({"scene": name, "agents": r["agents"], "arrived": r["done"],
                     "collisions_per_agent": r["collisions"], "time_per_agent": r["time"],
                     "energy_per_agent": r["energy"], "score": r["score"], "hash": h})
        results[name] = r
    rep.csv("steersuite", rows)
    paths = []
    for name in DRAWN:
        if name in results:
            paths += paths_rows(results[name]["traj"], scene=name)
    rep.csv("steersuite-paths", paths)
    lanes = results.get("hallway-two-way", {}).get("lanes", [])
    if lanes:
        rep.csv("steersuite-lanes", [{"time": t, "lane_order": v} for t, v in lanes])
    rep.figure_steersuite(results)


# ------------------------------------------------------------------------------------------
# Bottleneck width sweep


def bottleneck(ctx, rep):
    rows = []
    for density in (False, True):
        for w_s in BOTTLENECK_WIDTHS:
            run = Run(ctx, "bottleneck-%s.txt" % w_s, density)
            n0 = len(run.sim)
            times = []
            while len(run.sim) and run.t < 600.0:
                run.step()
                p = run.sim.positions
                passed = int((p[:, 0] > 1.0).sum()) + run.sc.exited.count
                while len(times) < passed:
                    times.append(run.t)
            h = run.finish()
            w = float(w_s)
            flow = (140 - 10) / (times[139] - times[9]) if len(times) >= 140 else float("nan")
            rows.append({"extension": "density_speed" if density else "plain", "width": w,
                         "flow": flow, "specific_flow": flow / w,
                         "first": times[0] if times else float("nan"),
                         "last": times[-1] if times else float("nan"), "agents": n0,
                         "passed": len(times), "hash": h, "command": run.command()})
            log("  bottleneck %s m%s: %.2f /s, %.2f /(m s)" % (
                w_s, " (density speed)" if density else "", flow, flow / w))
    rep.csv("bottleneck", rows)
    plain = [r for r in rows if r["extension"] == "plain"]
    rep.row("Bottleneck width sweep", "documented: flow against width",
            "plain: " + ", ".join("%s m: %.2f /s" % (g(r["width"]), r["flow"]) for r in plain),
            None, "14 runs below", "scripts/validate --only bottleneck")
    rep.bottleneck_rows = rows
    rep.figure_bottleneck(rows)
    for r in rows:
        if r["passed"] != r["agents"]:
            rep.failures.append("bottleneck %s m (%s): %d of %d passed" % (
                g(r["width"]), r["extension"], r["passed"], r["agents"]))


def g(x):
    return ("%.2f" % x).rstrip("0").rstrip(".")


# ------------------------------------------------------------------------------------------
# The report


class Report:
    def __init__(self, out, figdir, quick):
        self.out = out
        self.figdir = figdir
        self.quick = quick
        self.rows = []
        self.texts = {}
        self.failures = []
        self.figures = {}
        os.makedirs(figdir, exist_ok=True)
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        self.plt = plt

    def row(self, test, criterion, measured, ok, h, command):
        verdict = "documented" if ok is None else ("pass" if ok else "FAIL")
        self.rows.append((test, criterion, measured, verdict, h, command))
        log("%-45s %s: %s" % (test, verdict, measured))
        if ok is False:
            self.failures.append("%s: %s" % (test, measured))

    def text(self, key, s):
        self.texts[key] = s

    def csv(self, name, rows):
        path = os.path.join(self.figdir, name + ".csv")
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
            w.writeheader()
            for r in rows:
                w.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})

    def save(self, fig, name):
        path = os.path.join(self.figdir, name + ".png")
        fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
        self.plt.close(fig)
        self.figures[name] = name + ".png"

    def draw_walls(self, ax, walls):
        for (a, b) in walls:
            ax.plot([a[0], b[0]], [a[1], b[1]], color="black", lw=1.5)

    def figure_fd(self, rows):
        plt = self.plt
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
        r = np.linspace(0.05, 5.4, 300)
        a1.plot(r, weidmann(r), color="black", lw=1.5, label="Weidmann (1993)")
        a1.fill_between(r, 0.85 * weidmann(r), 1.15 * weidmann(r), color="0.85",
                        label="Weidmann ±15%")
        a2.plot(r, r * weidmann(r), color="black", lw=1.5, label="Weidmann (1993)")
        for ext, colour, label in (("plain", "tab:red", "plain ORCA"),
                                   ("density_speed", "tab:blue", "density_speed on")):
            for area, marker in (("main", "o"), ("control 1", "^"), ("control 2", "v")):
                sel = [x for x in rows if x["extension"] == ext and x["area"] == area]
                d = [x["density"] for x in sel]
                a1.plot(d, [x["speed"] for x in sel], marker, color=colour, ms=6 if area ==
                        "main" else 4, label=label if area == "main" else None,
                        alpha=1.0 if area == "main" else 0.6)
                a2.plot(d, [x["flow"] for x in sel], marker, color=colour, ms=6 if area ==
                        "main" else 4, label=label if area == "main" else None,
                        alpha=1.0 if area == "main" else 0.6)
        a1.set_xlabel("density in the measuring area (agents/m²)")
        a1.set_ylabel("mean speed (m/s)")
        a2.set_xlabel("density in the measuring area (agents/m²)")
        a2.set_ylabel("flow = density × speed (1/(m·s))")
        a1.set_xlim(0, 6.5)
        a2.set_xlim(0, 6.5)
        a1.set_ylim(0, 1.6)
        a1.legend(fontsize=8)
        a2.legend(fontsize=8)
        a1.set_title("RiMEA 4: speed against density")
        a2.set_title("RiMEA 4: flow against density")
        self.save(fig, "fd")

    def figure_single(self, rows):
        plt = self.plt
        fig, ax = plt.subplots(figsize=(5.5, 4))
        for ext, colour, label in (("plain", "tab:red", "plain ORCA"),
                                   ("density_speed", "tab:blue", "density_speed on")):
            sel = [x for x in rows if x["extension"] == ext]
            ax.plot([x["density"] for x in sel], [x["speed"] for x in sel], "o-", color=colour,
                    label=label)
        ax.set_xlabel("agents per metre")
        ax.set_ylabel("mean speed (m/s)")
        ax.set_ylim(0, 1.6)
        ax.legend(fontsize=8)
        ax.set_title("RiMEA 4, single file (0.7 m corridor)")
        self.save(fig, "fd-single")

    def figure_trajectories(self, name, walls, traj, title, box):
        plt = self.plt
        fig, ax = plt.subplots(figsize=(5, 5.4))
        self.draw_walls(ax, walls)
        for t in traj:
            t = np.array(t)
            if len(t):
                ax.plot(t[:, 1], t[:, 2], lw=0.8)
                ax.plot(t[0, 1], t[0, 2], "o", color="0.4", ms=3)
        ax.set_aspect("equal")
        ax.set_xlim(box[0], box[1])
        ax.set_ylim(box[2], box[3])
        ax.set_title(title)
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        self.save(fig, name)

    def figure_rimea9(self, c4, c2, walls, snap, t4, t2, paths):
        plt = self.plt
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
        for c, label in ((c4, "4 exits: %.0f s" % t4), (c2, "2 exits: %.0f s" % t2)):
            c = np.array(c)
            a1.plot(c[:, 0], c[:, 1], label=label)
        a1.set_xlabel("time (s)")
        a1.set_ylabel("agents in the room")
        a1.legend()
        a1.set_title("RiMEA 9: evacuation of 1,000 agents")
        self.draw_walls(a2, walls)
        if snap is not None:
            a2.plot(snap[:, 0], snap[:, 1], "o", ms=1.2, color="0.7")
        for path in paths:
            path = np.array(path)
            if len(path):
                a2.plot(path[:, 1], path[:, 2], lw=0.7)
        a2.set_aspect("equal")
        a2.set_xlim(-2, 32)
        a2.set_ylim(-2, 22)
        a2.set_title("2 exits: every 21st agent's path; grey: all at 30 s")
        self.save(fig, "rimea9")

    def figure_rimea12(self, walls, cells, pd, pe):
        plt = self.plt
        fig, ax = plt.subplots(figsize=(9, 3.8))
        im = ax.imshow(cells, origin="lower", extent=(-0.5, 25.5, 0, 10), cmap="magma_r",
                       vmin=0, vmax=max(4.0, float(cells.max())))
        self.draw_walls(ax, walls)
        fig.colorbar(im, ax=ax, label="most agents in the 1 m² cell at once")
        ax.set_title("RiMEA 12: where the crowd packs (door 1 at x = 10, exit at x = 25)")
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        self.save(fig, "rimea12")

    def figure_steersuite(self, results):
        plt = self.plt
        fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
        r = results.get("doorway-two-way")
        if r:
            self.draw_walls(axes[0], r["walls"])
            for t in r["traj"]:
                t = np.array(t)
                if len(t):
                    axes[0].plot(t[:, 1], t[:, 2], lw=1.2)
            axes[0].set_xlim(-16, 16)
            axes[0].set_ylim(-4, 6)
            axes[0].set_aspect("equal")
            axes[0].set_title("doorway-two-way: paths")
        r = results.get("circle-20")
        if r:
            for t in r["traj"]:
                t = np.array(t)
                if len(t):
                    axes[1].plot(t[:, 1], t[:, 2], lw=0.8)
            axes[1].set_aspect("equal")
            axes[1].set_title("circle-20: paths")
        r = results.get("hallway-two-way")
        if r and r["lanes"]:
            s = np.array(r["lanes"])
            axes[2].plot(s[:, 0], s[:, 1])
            axes[2].set_ylim(0, 1.05)
            axes[2].set_xlabel("time (s)")
            axes[2].set_ylabel("lane order (1: lanes)")
            axes[2].set_title("hallway-two-way: lane formation")
        self.save(fig, "steersuite")

    def figure_bottleneck(self, rows):
        plt = self.plt
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8))
        a2.axhspan(1.5, 2.0, color="0.88", label="experiments: about 1.5 to 2")
        for ext, colour, label in (("plain", "tab:red", "plain ORCA"),
                                   ("density_speed", "tab:blue", "density_speed on")):
            sel = [r for r in rows if r["extension"] == ext]
            w = [r["width"] for r in sel]
            a1.plot(w, [r["flow"] for r in sel], "o-", color=colour, label=label)
            a2.plot(w, [r["specific_flow"] for r in sel], "o-", color=colour, label=label)
        a1.set_xlabel("bottleneck width (m)")
        a1.set_ylabel("flow (agents/s)")
        a1.set_ylim(bottom=0)
        a1.legend(fontsize=8)
        a1.set_title("Flow through a passage 2 m long")
        a2.set_xlabel("bottleneck width (m)")
        a2.set_ylabel("specific flow (1/(m·s))")
        a2.set_ylim(bottom=0)
        a2.legend(fontsize=8)
        a2.set_title("Flow per metre of width")
        self.save(fig, "bottleneck")


def write_hashes(path, hashes, quick):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Validation runs (scripts/validate%s --record): scene file [density], step "
                "calls, scenario hash.\n" % (" --quick" if quick else ""))
        for key, steps, h in hashes:
            f.write("%s %d %s\n" % (key, steps, h))


def by_extension(rows):
    """(the plain runs, the runs with the density-dependent speed), each in run order."""
    return ([r for r in rows if r["extension"] == "plain"],
            [r for r in rows if r["extension"] == "density_speed"])


def md_table(header, rows):
    out = "| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n"
    for r in rows:
        out += "| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |\n"
    return out


def write_report(rep, ctx, path, elapsed, args, names):
    """docs/validation.md: the table, then each test with its figure, its data and what it
    shows. Everything with a number in it comes from this run."""
    fig = lambda name: "validation/%s.png" % name
    data = lambda name: "[%s.csv](validation/%s.csv)" % (name, name)
    mode = ("the bounded CI run (`scripts/validate --quick`: corridors of 100 m measured for "
            "20 s instead of 1,000 m for 60 s)" if args.quick else
            "the full suite (`scripts/validate`)")
    t = []
    t.append("# Validation: RiMEA tests, SteerSuite scenes, the fundamental diagram\n\n")
    t.append("<!-- Written by scripts/validate; edit that script, not this file. -->\n\n")
    t.append(
        "How does orca's crowd compare with the standard tests of evacuation software and with "
        "measured crowds? This page is written by `scripts/validate` from %s: it runs the scene "
        "files of [examples/validation/](../examples/validation/) (written by "
        "`scripts/validation-scenes`), judges each test by its published criterion and draws "
        "the figures from the runs. Every run ends in a state hash; the command beside it "
        "(`orca run FILE --steps N`) prints the same hash on every machine, compiler and "
        "worker count, so each number here can be reproduced to the bit. orca %s, bits "
        "version %d; the suite took %.0f s on two workers of this project's machine "
        "(docs/performance.md).\n\n" % (mode, orca.__version__, orca.bits_version, elapsed))
    t.append("Run it:\n\n```\nscripts/validate                      # the full suite: "
             "rewrites this page and docs/validation/\nscripts/validate --quick --out /tmp/v   "
             "# the CI subset (a few minutes), the report in /tmp/v\n```\n\n")
    t.append("## Results\n\n")
    t.append(md_table(["test", "criterion", "measured", "verdict", "state hash",
                       "reproduce"],
                      [(a, b, c, "**%s**" % d if d != "documented" else d,
                        "`%s`" % e if "run" not in e else e, "`%s`" % f)
                       for a, b, c, d, e, f in rep.rows]))
    t.append("\n\"documented\": the test asks for the behaviour to be shown, not judged "
             "(RiMEA 12 says so itself), or it has no published pass mark.\n\n")

    t.append("## The agents\n\n")
    t.append(
        "The RiMEA tests and the bottleneck sweep use one pedestrian: a disc of radius 0.2 m, "
        "free speed 1.34 m/s (Weidmann's mean; 1.33 m/s in RiMEA 1 as the test asks), at most "
        "2 m/s, neighbours within 2 m (at most 32, enough for the density-dependent speed's "
        "estimate), time horizons 2 s (agents) and 0.5 s "
        "(walls), steps of 0.05 s. The SteerSuite scenes keep SteerSuite's agents: radius "
        "0.5 m, desired speed 1.3 m/s (circle-20: each agent's own), steps of 0.05 s (its 20 "
        "frames a second). Where a goal is out of sight (RiMEA 6, 9, 12, the bottlenecks, "
        "bottleneck-squeeze, doorway-two-way) the agents use orca's navigation "
        "([navigation.md](navigation.md)) to a goal set that is an exit: an agent leaves the "
        "simulation once within 0.5 m of its exit point, 1 m outside the door (SteerSuite's "
        "agents leave within their radius of their target, as SteerSuite disables them "
        "there; in bottleneck-squeeze within 10 m of it, since 1,000 agents leaving only at "
        "one point would queue at the point, a second bottleneck the test is not "
        "about).\n\n")

    t.append("## Sources\n\n")
    t.append(
        "- RiMEA: *Richtlinie für Mikroskopische Entfluchtungsanalysen* (Guideline for "
        "Microscopic Evacuation Analysis), RiMEA e.V. The test descriptions followed here are "
        "those of version 3.0.0 (2016), tests 1, 4, 6, 9 and 12; the pass marks are: RiMEA 1, "
        "26 to 34 s for 40 m at 1.33 m/s; RiMEA 9, a ratio of 1.6 to 2.4 between the "
        "evacuation times with two and with four exits; RiMEA 6, every agent round the corner "
        "without crossing a wall; RiMEA 4 and 12 ask for the behaviour to be documented. The "
        "geometry of tests 6, 9 and 12 where the text gives no number (the corner's legs, the "
        "exits' places, the rooms of test 12) is that of the RiMEA system tests shipped with "
        "JuPedSim. Version 4.1.1 of the guideline could not be consulted for this page; where "
        "it changes a test, this page follows 3.0.0.\n"
        "- SteerSuite (Singh, Kapadia, Faloutsos, Reinman: *SteerBench: a benchmark suite for "
        "evaluating steering behaviors*, Computer Animation and Virtual Worlds 20, 2009): the "
        "test cases bottleneck-squeeze, doorway-two-way, hallway-two-way and circle-20 of its "
        "`testcases/` (their x, z plane is x, y here; their boxes are closed polygons; the "
        "agents of a region are placed at random, seeds 29 and 30, since a region is filled "
        "at random there too). The composite score is SteerSuite's first composite technique: "
        "50 × collisions + time + kinetic energy, each averaged over the agents. Here a "
        "collision is a step at which an agent starts to overlap another agent or a wall "
        "(distance below the sum of radii, or below its radius), time is the time until the "
        "agent reached its target (the run's length if it did not), and kinetic energy is the "
        "sum over steps of |v|²/2 (unit mass), SteerSuite's per-frame sum at its 20 frames a "
        "second.\n"
        "- Weidmann, U.: *Transporttechnik der Fussgänger*, Schriftenreihe des IVT Nr. 90, ETH "
        "Zürich, 1993: v(ρ) = v0 (1 − exp(−γ (1/ρ − 1/ρmax))), v0 = 1.34 m/s, γ = 1.913 /m², "
        "ρmax = 5.4 /m².\n"
        "- Bottleneck experiments: Seyfried et al., *New insights into pedestrian flow through "
        "bottlenecks*, Transportation Science 43 (2009); Rupprecht, Klingsch, Seyfried, "
        "*Influence of geometry parameters on pedestrian flow through bottleneck*, PED 2010 "
        "(2011): the flow grows about in proportion to the width, about 1.5 to 2 agents per "
        "metre and second. The grey band of the sweep's figure marks that range; it is an "
        "order of magnitude, not a pass mark.\n\n")

    if "rimea1" in names:
        t.append("## RiMEA 1: speed in a corridor\n\n%s\n\n" % rep.texts.get("rimea1", ""))

    if "rimea4" in names:
        rows = rep.fd_rows
        t.append("## RiMEA 4: the fundamental diagram\n\n")
        t.append(
            "A corridor 10 m wide and %s long is filled on a triangular lattice at 0.5 to 6 "
            "agents/m²; free speeds 1.24 to 1.44 m/s by column (mean 1.34), everyone walking "
            "along the corridor. %s, every 0.25 s, the agents inside three 2 m × 2 m areas in "
            "the crowd (%s) are counted and their speeds averaged. The figure plots the "
            "measured density against the measured speed, main area large, control areas "
            "small.\n\n" % (("100 m", "From 10 s to 30 s", "the main area at x = 55 m, "
                             "two control areas 8 m before and after") if args.quick else
                            ("1,000 m", "From 10 s to 70 s (RiMEA: 60 s after 10 s)",
                             "the main area at x = 600 m, two control areas 10 m before and "
                             "after")))
        t.append("![The fundamental diagram](%s)\n\nData: %s.\n\n" % (fig("fd"), data("fd")))
        main = [r for r in rows if r["area"] == "main"]
        tab = []
        for rho_s in FD_DENSITIES:
            p = [r for r in main if r["nominal"] == float(rho_s) and r["extension"] == "plain"][0]
            e = [r for r in main if r["nominal"] == float(rho_s) and
                 r["extension"] == "density_speed"][0]
            tab.append((rho_s, "%.2f" % p["density"], "%.3f" % p["speed"],
                        "%.3f" % p["weidmann"], "%+.0f%%" % (100 * (p["speed"] / p["weidmann"] - 1))
                        if p["weidmann"] > 0 else "—",
                        "%.2f" % e["density"], "%.3f" % e["speed"], "%.3f" % e["weidmann"],
                        "%+.1f%%" % (100 * (e["speed"] / e["weidmann"] - 1))
                        if e["weidmann"] > 0 else "—",
                        "`%s`, `%s`" % (p["hash"], e["hash"])))
        t.append(md_table(["agents/m² (fill)", "plain: density", "speed", "Weidmann", "off by",
                           "density_speed: density", "speed", "Weidmann", "off by",
                           "hashes (plain, on)"], tab))
        t.append(
            "\nPlain ORCA does not slow down with density the way people do. An agent keeps its "
            "preferred velocity unless a collision within its time horizon forces a change; a "
            "crowd that walks the same way at about the same speed forces almost none, so the "
            "dense lattice flows at nearly its free speed and only the speed classes' "
            "differences cost something. People slow down long before they touch: the "
            "fundamental diagram is a behavioural law, not a geometric one. The opt-in "
            "density-dependent speed ([extensions.md](extensions.md), \"Density-dependent "
            "speed\") adds that law: each agent estimates the density around it from the "
            "neighbours it already has and scales its preferred velocity by Weidmann's "
            "factor. With it on, the measured speeds follow Weidmann's curve within the "
            "criterion from 0.5 to 4 agents/m² (the table's \"off by\"). Above 4 agents/m² "
            "Weidmann's speed falls to zero at 5.4; the lattices of 5 and 6 agents/m² are "
            "shown but not judged.\n\n"
            "Each row's runs: `orca run examples/validation/rimea04-fd-D%s.txt --steps %d` "
            "(plain) and the same with `--density-speed`.\n\n" % (
                "-short" if args.quick else "", 600 if args.quick else 1400))

    if "rimea4single" in names:
        rows = rep.single_rows
        t.append("## RiMEA 4: single file\n\n")
        t.append(
            "The same measurement in a corridor 0.7 m wide, where two agents of 0.4 m cannot "
            "pass: 0.5 to 2.25 agents per metre, free speeds 1.24 to 1.44 m/s in turn, measured "
            "over 2 m in the middle.\n\n![Single file](%s)\n\nData: %s.\n\n" % (
                fig("fd-single"), data("fd-single")))
        t.append(md_table(["agents/m (fill)", "plain: per metre", "speed", "density_speed: per "
                           "metre", "speed", "hashes (plain, on)"],
                          [(g(p["nominal"]), "%.2f" % p["density"], "%.3f" % p["speed"],
                            "%.2f" % e["density"], "%.3f" % e["speed"],
                            "`%s`, `%s`" % (p["hash"], e["hash"]))
                           for p, e in zip(*by_extension(rows))]))
        plain, on = by_extension(rows)
        t.append(
            "\nIn a single file an agent cannot pass a slower one: the plain speeds fall from "
            "%.2f to %.2f m/s as the file closes up, towards the slowest class's 1.24 m/s, and "
            "no further, since nothing in plain ORCA slows a file that has room to move. With "
            "the density-dependent speed on, the file slows from %.2f to %.2f m/s: the "
            "estimate counts a file's neighbours as an area density (the kernel is a disc), "
            "which is not a single-file law; single-file measurements (for example Seyfried "
            "et al., *The fundamental diagram of pedestrian movement revisited*, J. Stat. "
            "Mech. 2005) would need a rule of their own.\n\n" % (
                plain[0]["speed"], plain[-1]["speed"], on[0]["speed"], on[-1]["speed"]))

    if "rimea6" in names:
        t.append("## RiMEA 6: the corner\n\n![RiMEA 6 trajectories](%s)\n\nData: %s (every "
                 "agent's path, every step).\n\n" % (fig("rimea6"), data("rimea6")))
        t.append("Every agent's path, from its start (grey dot) to the exit at the top. The "
                 "check follows each agent from step to step and counts a move that crosses a "
                 "wall segment; the deepest overlap with a wall is the scenario's record.\n\n")

    if "rimea9" in names:
        t.append("## RiMEA 9: a room with four, then two exits\n\n![RiMEA 9](%s)\n\nData: %s "
                 "(agents in the room against time), %s (the paths drawn: agent k is the "
                 "scene's agent 21 k, every 0.2 s).\n\n" % (
                     fig("rimea9"), data("rimea9"), data("rimea9-paths")))
        t.append("1,000 agents on a lattice fill the 30 m × 20 m room and leave by the nearest "
                 "exit by path length. With two exits the same crowd queues at half the doors: "
                 "the time roughly doubles, as the test expects. The paths show the queues' "
                 "churn: an agent that makes no progress for 4 s towards a door's corner plans "
                 "again with that corner made costlier ([navigation.md](navigation.md), "
                 "\"Following a path\"), so some agents in a long queue switch to the other "
                 "exit and back.\n\n")

    if "rimea12" in names:
        pd, pe = rep.rimea12
        t.append("## RiMEA 12: two bottlenecks in a row\n\n![RiMEA 12](%s)\n\nData: %s.\n\n" % (
            fig("rimea12"), data("rimea12")))
        t.append("The map shows, for each square metre, the most agents it held at once over "
                 "the run. The crowd packs before the first door (the densest 5 s in the 2 m × "
                 "2 m area before it: %.2f agents/m²); the 1 m door and corridor meter the "
                 "flow, so room 2 never congests (%.2f agents/m² before the exit): the "
                 "behaviour the test asks to see.\n\n" % (pd, pe))

    if "steersuite" in names:
        t.append("## SteerSuite scenes\n\n![SteerSuite](%s)\n\nData: %s (the scores), %s "
                 "(the paths drawn, every 0.2 s), %s (the lane order, every second).\n\n" % (
                     fig("steersuite"), data("steersuite"), data("steersuite-paths"),
                     data("steersuite-lanes")))
        t.append(
            "doorway-two-way is the classic deadlock of reciprocal methods: two agents meet "
            "head on in a doorway only one can pass. orca's preferred-velocity rule perturbs "
            "each preferred velocity by 10^-4 of the speed (scenarios.md), which breaks the "
            "symmetry: one yields and both pass. hallway-two-way shows lane formation: the "
            "lane order (the right-hand panel; 1 when every agent's neighbours within 0.5 m "
            "across and 10 m along walk its way) rises as the two groups interpenetrate. A "
            "lower score is better; SteerSuite's own tables rate other steering methods on the "
            "same scenes, but with their own agents' timing, so the scores compare orca's runs "
            "with each other (for example across versions) rather than with those tables.\n\n")

    if "bottleneck" in names:
        rows = rep.bottleneck_rows
        t.append("## Bottleneck width sweep\n\n![Bottleneck sweep](%s)\n\nData: %s.\n\n" % (
            fig("bottleneck"), data("bottleneck")))
        pairs = zip(*by_extension(rows))
        t.append(md_table(["width (m)", "plain: flow (1/s)", "per metre", "last out (s)",
                           "density_speed: flow (1/s)", "per metre", "last out (s)",
                           "hashes (plain, on)"],
                          [(g(p["width"]), "%.2f" % p["flow"], "%.2f" % p["specific_flow"],
                            "%.1f" % p["last"], "%.2f" % e["flow"], "%.2f" % e["specific_flow"],
                            "%.1f" % e["last"], "`%s`, `%s`" % (p["hash"], e["hash"]))
                           for p, e in pairs]))
        plain, on = by_extension(rows)
        t.append(
            "\nNeither series matches the experiments. Plain ORCA's specific flow grows with "
            "the width, from %.2f to %.2f agents/(m·s): its agents queue before the passage "
            "without slowing and stream through it at full speed, several abreast once it is "
            "wider than about 1.2 m. With the density-dependent speed the queue itself walks at "
            "Weidmann's jam speed, and the flow through the passage falls to %.2f to %.2f "
            "agents/(m·s), below the measurements: Weidmann's law comes from corridors, while "
            "people in a bottleneck accept a denser crowd at a given speed. The figures are "
            "what the method and the extension do, shown rather than tuned.\n\n" % (
                min(r["specific_flow"] for r in plain), max(r["specific_flow"] for r in plain),
                min(r["specific_flow"] for r in on), max(r["specific_flow"] for r in on)))
        t.append(
            "150 agents leave a 10 m × 10 m room through a passage 2 m long; the flow is "
            "counted at the passage's middle between the 10th and the 140th agent. Each run: "
            "`orca run examples/validation/bottleneck-W.txt --steps N` (N as in the CSV's "
            "command column; `--density-speed` for the second series).\n")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(t))


TESTS = {"rimea1": rimea1, "rimea4": rimea4, "rimea4single": rimea4single, "rimea6": rimea6,
         "rimea9": rimea9, "rimea12": rimea12, "steersuite": steersuite,
         "bottleneck": bottleneck}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", help="report directory (default: docs/)")
    ap.add_argument("--check")
    ap.add_argument("--record")
    ap.add_argument("--cli")
    ap.add_argument("--only")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if args.quick and not args.out:
        ap.error("--quick writes its report elsewhere than docs/: give --out DIR")
    names = args.only.split(",") if args.only else list(TESTS)
    for n in names:
        if n not in TESTS:
            ap.error("unknown test %r (%s)" % (n, ", ".join(TESTS)))
    out = args.out or os.path.join(ROOT, "docs")
    ctx = Context(args)
    rep = Report(out, os.path.join(out, "validation"), args.quick)
    t0 = time.perf_counter()
    for n in names:
        log("== %s" % n)
        TESTS[n](ctx, rep)
    elapsed = time.perf_counter() - t0
    write_report(rep, ctx, os.path.join(out, "validation.md"), elapsed, args, names)
    if args.record:
        write_hashes(args.record, ctx.hashes, args.quick)
    failures = rep.failures + ctx.failures
    for f in failures:
        log("validate: FAILED: " + f)
    log("validate: %d runs, %d failures, %.0f s" % (len(ctx.hashes), len(failures), elapsed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
