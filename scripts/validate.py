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
                                        rimea6, rimea9, rimea12, steersuite, bottleneck,
                                        ped_bottleneck, liddle, hermes, fd_random,
                                        counterflow, exit_choice, rimea_model, queues)
    --variants NAME[,NAME]              the pedestrian experiments' configurations (plain,
                                        density_speed, pedestrian, preset, "preset T=0.8";
                                        default all, --quick plain and preset)
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
    """One scene file's run: the scenario, its step count and how to reproduce it. seed and
    dt replace the file's (`orca run --seed S --dt DT`); density and pedestrian turn the
    density-dependent speed or the pedestrian model on with their defaults
    (`--density-speed`, `--pedestrian`: docs/extensions.md, docs/pedestrians.md); suffix
    picks a version of the scene (FILE + suffix + .txt: the pedestrian preset's); exits and
    check set navigation's exit choice and leg check (`--exit-choice`, `--nav-check`:
    docs/navigation.md)."""

    def __init__(self, ctx, filename, density=False, seed=None, dt=None, pedestrian=False,
                 suffix="", exits=None, check=False):
        filename = filename[:-len(".txt")] + suffix + ".txt"
        self.ctx = ctx
        self.file = filename
        self.density = density
        self.pedestrian = pedestrian
        self.seed = seed
        self.dt_option = dt
        given = {k: v for k, v in (("seed", seed), ("dt", dt)) if v is not None}
        self.sc = orca.read_scene(os.path.join(SCENES, filename), workers=ctx.workers, **given)
        if density:
            self.sc.simulation.set_density_speed()
        if pedestrian:
            self.sc.set_pedestrian()
        self.exits = exits
        self.check = check
        if exits is not None:
            self.sc.exit_choice = exits
        if check:
            self.sc.nav_check = True
        self.dt = self.sc.dt
        self.steps = 0
        # (steps, hash) of the last state with agents in it, once a step has removed the last
        # ones (None before, and when a call of several steps that began with more than
        # LAST_WATCH agents removed them): the empty state's hash is the same for every
        # placement
        self.last = None
        self.agent_steps = 0
        self.n0 = len(self.sc.simulation)

    @property
    def sim(self):
        return self.sc.simulation

    @property
    def t(self):
        return self.sim.step_count * self.dt

    def step(self, n=1):
        start = self.steps
        if self.last is None and 0 < len(self.sim) <= LAST_WATCH:
            # one step at a time, each state's hash kept, until the last agents have left
            while self.steps < start + n:
                before = (self.steps, self.sc.hexhash())
                self.sc.step(1)
                self.steps += 1
                if len(self.sim) == 0:
                    self.last = before
                    break
        rest = start + n - self.steps
        if rest:
            self.sc.step(rest)
            self.steps += rest  # step calls: once every agent has left, the step count stops
        # the agents each step solved (those left after its exits), one step at a time: the
        # denominator of the share in the solver's fallback; None once a call stepped several
        if n == 1 and self.agent_steps is not None:
            self.agent_steps += len(self.sim)
        else:
            self.agent_steps = None

    def fallback_share(self):
        """The share of agent-steps whose linear program failed (the solver's fallback)."""
        return self.sc.fallback_total / self.agent_steps if self.agent_steps else float("nan")

    def walls(self):
        return [s.ends for s in self.sim.segments]

    def options(self):
        """The `orca run` options beyond the file and the step count."""
        opts = []
        if self.seed is not None:
            opts += ["--seed", str(self.seed)]
        if self.dt_option is not None:
            opts += ["--dt", repr(self.dt_option)]
        if self.density:
            opts.append("--density-speed")
        if self.pedestrian:
            opts.append("--pedestrian")
        if self.exits is not None:
            opts += ["--exit-choice", self.exits]
        if self.check:
            opts.append("--nav-check")
        return opts

    def hash_steps(self):
        """The step count whose state the run's hash is: the last state with agents in it
        when every agent has left, else the run's end."""
        return self.last[0] if self.last is not None else self.steps

    def command(self):
        return " ".join(["orca run examples/validation/%s --steps %d" % (
            self.file, self.hash_steps())] + self.options())

    def finish(self, key=None):
        """Records the run's hash (and checks it against the CLI and the golden file): of the
        last state with agents in it when every agent has left, else of the run's end."""
        h = self.last[1] if self.last is not None else self.sc.hexhash()
        if key is None:
            key = self.file + (" density" if self.density else "") + (
                " pedestrian" if self.pedestrian else "")
            key += "".join(" %s=%s" % (k, v) for k, v in (("seed", self.seed),
                                                          ("dt", self.dt_option),
                                                          ("exits", self.exits)) if v is not None)
            key += " check" if self.check else ""
        self.ctx.record_hash(key, self.hash_steps(), h, self)
        return h


class Context:
    def __init__(self, args):
        self.workers = args.workers
        self.quick = args.quick
        self.cli = args.cli
        self.variants = args.variants.split(",") if args.variants else None
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

    def variants_for(self, test):
        """The pedestrian experiments' configurations a test measures: [(label, Run
        options)] (the bounded run: plain ORCA and the pedestrian preset; --variants: those
        named)."""
        chosen = self.variants or (QUICK_VARIANTS if self.quick else None)
        return [(label, opts) for label, opts, tests in PED_VARIANTS
                if (tests is None or test in tests) and (chosen is None or label in chosen)]

    def record_hash(self, key, steps, h, run):
        self.hashes.append((key, steps, h))
        if self.golden and key not in self.golden:
            self.failures.append("%s: no hash recorded for it in the --check file" % key)
        elif key in self.golden and self.golden[key] != (steps, h):
            self.failures.append("%s: hash %s after %d steps, expected %s after %d" % (
                key, h, steps, self.golden[key][1], self.golden[key][0]))
        if self.cli and run is not None and run.n0 * run.steps <= CLI_CHECK_MAX:
            cmd = [self.cli, "run", os.path.join(SCENES, run.file), "--steps", str(steps),
                   "--json", "-q", "-j", str(self.workers)] + run.options()
            out = subprocess.run(cmd, capture_output=True, text=True)
            got = json.loads(out.stdout)["hash"] if out.returncode == 0 else out.stderr.strip()
            if got != h:
                self.failures.append("%s: `orca run` gave %s, the module %s" % (key, got, h))


# ------------------------------------------------------------------------------------------
# RiMEA 1: one pedestrian, 40 m at 1.33 m/s in 26 to 34 s


def rimea1_time(run):
    """The time the agent reaches x = 40 m (interpolated in the step), None after 60 s."""
    prev = run.sim.positions[0, 0]
    t40 = None
    while t40 is None and run.t < 60.0:
        run.step()
        x = run.sim.positions[0, 0]
        if x >= 40.0:
            t40 = run.t - run.dt * (x - 40.0) / (x - prev)
        prev = x
    return t40


def rimea1(ctx, rep):
    run = Run(ctx, "rimea01-corridor.txt")
    t40 = rimea1_time(run)
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


def rimea6_walk(run, walls):
    """Runs RiMEA 6 until the corner is empty or 120 s: every agent's path, the moves that
    crossed a wall."""
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
    return traj, crossed


def rimea6(ctx, rep):
    run = Run(ctx, "rimea06-corner.txt")
    walls = run.walls()
    traj, crossed = rimea6_walk(run, walls)
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


def evacuate(ctx, filename, cap, sample=None, every_agent=21, **opts):
    """Runs until the room is empty (or `cap` s): the agents left every second, the positions
    at `sample` s, and the paths (every 0.2 s) of every `every_agent`-th agent. opts: Run's."""
    run = Run(ctx, filename, **opts)
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


def rimea9_pair(ctx, rep, label="plain", opts=None, seed=None, dt=None):
    """Both variants of RiMEA 9 in one configuration, with the file's seed and dt or the given
    ones: (t4, t2, the runs, their hashes); their queue figures go to the queue table."""
    opts = opts or {}
    r4, t4, c4, _, _ = evacuate(ctx, "rimea09-4exits.txt", 900.0, seed=seed, dt=dt, **opts)
    h4 = r4.finish()
    r2, t2, c2, snap, paths = evacuate(ctx, "rimea09-2exits.txt", 900.0, sample=30.0, seed=seed,
                                       dt=dt, **opts)
    h2 = r2.finish()
    for r, h, doors in ((r4, h4, 4), (r2, h2, 2)):
        rep.queue_rows.append(dict(scene="RiMEA 9, %d exits, seed %d, dt %g s" % (
            doors, r.sc.seed, r.dt), extension=label, **queue_row(r), hash=h,
            command=r.command()))
    return t4, t2, (r4, c4), (r2, c2, snap, paths), (h4, h2)


# RiMEA 9's further runs (the full suite), in each configuration that measures it: the seeds
# of the preferred-velocity perturbation beyond the file's (1); and plain ORCA at a step of
# 0.25 s
RIMEA9_SEEDS = [2, 3]
RIMEA9_DT = 0.25


def rimea9_more(ctx, rep, label, opts, seed=None, dt=None):
    """A further pair: (configuration, t4, t2, seed, the step)."""
    t4, t2, (r4, _), _, _ = rimea9_pair(ctx, rep, label, opts, seed=seed, dt=dt)
    return label, t4, t2, r4.sc.seed, r4.dt


def rimea9_seeds(ctx, rep, first):
    """RiMEA 9 for several seeds per configuration (first: plain ORCA's pair of the file's
    seed, already run) and plain ORCA at dt 0.25, against the target."""
    more = [first]
    for label, opts in ctx.variants_for("rimea9"):
        if label != "plain":
            more.append(rimea9_more(ctx, rep, label, opts))
        more += [rimea9_more(ctx, rep, label, opts, seed=seed) for seed in RIMEA9_SEEDS]
        seeds = [m for m in more if m[0] == label]
        rep.target("RiMEA 9, %s, seeds %s" % (PED_LABEL[label], ", ".join(
                       str(m[3]) for m in seeds)),
                   "everyone out, 1.6 <= ratio <= 2.4 for every seed at the scene's dt",
                   "; ".join("seed %d: %.1f / %.1f s, ratio %.2f" % (s_, b_, a_, b_ / a_)
                             for _, a_, b_, s_, _ in seeds),
                   all(np.isfinite(a_) and np.isfinite(b_) and 1.6 <= b_ / a_ <= 2.4
                       for _, a_, b_, _, _ in seeds), "in the queue table",
                   "scripts/validate --only rimea9")
    more.append(rimea9_more(ctx, rep, "plain", {}, dt=RIMEA9_DT))
    _, a_, b_, _, _ = more[-1]
    rep.row("RiMEA 9 at dt = %g s, plain ORCA" % RIMEA9_DT,
            "documented: the ratio at a longer step",
            "t4 = %.1f s, t2 = %.1f s, ratio %.2f" % (a_, b_, b_ / a_), None,
            "in the queue table", "scripts/validate --only rimea9")
    return more


def rimea9(ctx, rep):
    t4, t2, (r4, c4), (r2, c2, snap, paths), (h4, h2) = rimea9_pair(ctx, rep)
    ratio = t2 / t4
    ok = 1.6 <= ratio <= 2.4
    rep.row("RiMEA 9: room, 4 then 2 exits", "1.6 <= t(2 exits) / t(4 exits) <= 2.4",
            "t4 = %.1f s, t2 = %.1f s, ratio %.2f" % (t4, t2, ratio), ok,
            "%s, %s" % (h4, h2), "%s; %s" % (r4.command(), r2.command()))
    first = ("plain", t4, t2, r4.sc.seed, r4.dt)
    rep.rimea9_runs = [first] if ctx.quick else rimea9_seeds(ctx, rep, first)
    rows = [{"exits": 4, "time": t, "agents": n} for t, n in c4] + \
        [{"exits": 2, "time": t, "agents": n} for t, n in c2]
    rep.csv("rimea9", rows)
    # agent k of the CSV is agent 21 k of the scene (21: the lattice has 40 columns, so the
    # drawn agents start across the room rather than in two columns)
    rep.csv("rimea9-paths", paths_rows(paths))
    rep.figure_rimea9(c4, c2, r2.walls(), snap, t4, t2, paths)


# ------------------------------------------------------------------------------------------
# RiMEA 12: two bottlenecks in a row


def rimea12_walk(run):
    """Runs RiMEA 12 until the rooms are empty or 600 s: per 1 m cell the most agents it held
    at once, and the densest 5 s before door 1 and before the exit (agents/m^2)."""
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

    def peak(series):
        w = max(1, int(round(5.0 / (every * run.dt))))  # 5 s windows
        s = np.convolve(np.asarray(series), np.ones(w) / w, mode="valid")
        return float(s.max()) if len(s) else 0.0

    return cells, peak(door), peak(exit_)


def rimea12(ctx, rep):
    run = Run(ctx, "rimea12-bottleneck.txt")
    walls = run.walls()
    cells, pd, pe = rimea12_walk(run)
    h = run.finish()
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


def crossings(run, beyond, cap):
    """Steps one step at a time until everyone has left or `cap` seconds: times[k] is when
    k + 1 agents had crossed the counting line (beyond(positions): per agent, past it; the
    agents that left by an exit count as past it)."""
    times = []
    while len(run.sim) and run.t < cap:
        run.step()
        passed = int(beyond(run.sim.positions).sum()) + run.sc.exited.count
        while len(times) < passed:
            times.append(run.t)
    return times


def flow_between(times, first, last):
    """Agents per second across the line from the first-th to the last-th crossing."""
    if len(times) < last:
        return float("nan")
    return (last - first) / (times[last - 1] - times[first - 1])


def bottleneck(ctx, rep):
    rows = []
    for density in (False, True):
        for w_s in BOTTLENECK_WIDTHS:
            run = Run(ctx, "bottleneck-%s.txt" % w_s, density)
            n0 = len(run.sim)
            times = crossings(run, lambda p: p[:, 0] > 1.0, 600.0)
            h = run.finish()
            w = float(w_s)
            flow = flow_between(times, 10, 140)
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


# ------------------------------------------------------------------------------------------
# Pedestrian experiments: scenes built after published experiments, measured as those were,
# against the pedestrian targets (docs/validation.md, "Pedestrian experiments"). A target
# that a configuration does not meet is reported "not met" with the measurement; it is not a
# failure of the suite (the published criteria above are).

# The configurations measured: each with the Run options that make it and the tests that
# measure it (None: every test); their names in the report and the figures' colours. Plain
# ORCA and the density-dependent speed are orca as it was; the pedestrian model over the
# scenes' agents (`orca run --pedestrian`), and the pedestrian preset (the scenes' versions
# with `pedestrian on`, scripts/validation-scenes) at its time gap and at 0.8 s
# (docs/pedestrians.md: the trade-off between the fundamental diagram and the bottleneck).
PED_VARIANTS = (
    ("plain", {}, None),
    ("density_speed", {"density": True},
     ("ped_bottleneck", "liddle", "hermes", "fd_random", "counterflow")),
    ("pedestrian", {"pedestrian": True}, None),
    ("preset", {"suffix": "-ped"}, None),
    ("preset T=0.8", {"suffix": "-ped-t0.8"}, ("ped_bottleneck", "fd_random")),
)
PED_LABEL = {"plain": "plain ORCA", "density_speed": "density_speed on",
             "pedestrian": "pedestrian model, the scene's agents",
             "preset": "pedestrian preset", "preset T=0.8": "pedestrian preset, time gap 0.8 s"}
PED_COLOUR = {"plain": "tab:red", "density_speed": "tab:blue", "pedestrian": "tab:green",
              "preset": "tab:olive", "preset T=0.8": "tab:purple"}
QUICK_VARIANTS = ("plain", "preset")
LAST_WATCH = 64  # a run's last state with agents is kept once at most this many are left
PED_BOTTLENECK_WIDTHS = ["0.9", "1.2", "1.6", "2", "2.5"]
PED_BOTTLENECK_SEEDS = [1, 2, 3]
LIDDLE_WIDTHS = ["0.9", "1", "1.1", "1.2", "1.4", "1.6", "1.8", "2", "2.2", "2.5"]
HERMES_WIDTHS = ["2.4", "3", "3.6", "4.4", "5"]
FDR_DENSITIES = ["0.5", "1", "2", "3", "4"]
CF_DENSITIES = ["1", "1.5", "2"]
# the targets
JS_BAND = (1.5, 2.1)  # specific flow, 1/(m s), at every width
FLAT_BAND = (0.8, 1.25)  # specific flow at 2.5 m over that at 0.9 m
QUEUE_FALLBACK = 0.10  # share of agent-steps in the solver's fallback
QUEUE_OVERLAP = 0.05  # deepest overlap, radii
CF_RATIO = 0.7  # counter-flow speed over the one-way speed
EXIT_CHANGES = 2  # changes of exit per agent
EXIT_SPREAD = 1.25  # last departures: the latest over the earliest
EXPERIMENTS = os.path.join(ROOT, "docs", "validation", "experiments")


def experiment(name):
    """The rows of docs/validation/experiments/NAME.csv (its '#' lines give the source), the
    numbers as floats."""
    with open(os.path.join(EXPERIMENTS, name + ".csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return [{k: v if k == "run" else float(v) for k, v in r.items()} for r in rows]


def bottleneck_experiments():
    """Specific flow against width, per experiment: {label: (widths, J / b)}."""
    lid = experiment("bottleneck-liddle2011")
    out = {
        "Kretz et al. 2006": [(r["width_m"], r["flow_per_s"] / r["width_m"])
                              for r in experiment("bottleneck-kretz2006")],
        "Seyfried et al. 2009": [(r["width_m"], r["specific_flow_per_m_s"])
                                 for r in experiment("bottleneck-seyfried2009")],
        "Liddle et al. 2011": [(r["width_cm"] / 100.0,
                                150.0 / (r["t4_s"] - r["t1_s"]) / (r["width_cm"] / 100.0))
                               for r in lid],
        "Liao et al. 2014 (Hermes)": [(r["width_m"], r["flow_per_s"] / r["width_m"])
                                      for r in experiment("bottleneck-hermes2014")],
    }
    return {k: (np.array([w for w, _ in v]), np.array([j for _, j in v])) for k, v in out.items()}


def tag(label):
    """A configuration's mark in the log: none for plain ORCA."""
    return "" if label == "plain" else " (%s)" % label


def variants(rows):
    """[(configuration, its rows)] in PED_VARIANTS' order, those with rows."""
    out = [(label, [r for r in rows if r["extension"] == label]) for label, _, _ in PED_VARIANTS]
    return [(label, sel) for label, sel in out if sel]


def spread(values, fmt="%.2f"):
    """'a' for one value or equal ones, 'lo–hi' for several."""
    lo, hi = fmt % min(values), fmt % max(values)
    return lo if lo == hi else "%s–%s" % (lo, hi)


def queue_row(run):
    """The queue figures of a run stepped one step at a time."""
    return {"fallback": run.fallback_share(), "overlap": run.sc.max_agent_overlap}


def ped_bottleneck(ctx, rep):
    """The bottleneck 2.8 m long: 200 agents, widths 0.9 to 2.5 m, three placements."""
    widths = ["0.9", "2.5"] if ctx.quick else PED_BOTTLENECK_WIDTHS
    seeds = [1] if ctx.quick else PED_BOTTLENECK_SEEDS
    rows = []
    for label, opts in ctx.variants_for("ped_bottleneck"):
        for seed in seeds:
            for w_s in widths:
                run = Run(ctx, "bottleneck28-%s-s%d.txt" % (w_s, seed), **opts)
                times = crossings(run, lambda p: p[:, 0] > 1.4, 900.0)
                h = run.finish()
                w = float(w_s)
                flow = flow_between(times, 20, 180)
                rows.append(dict({"extension": label, "width": w, "seed": seed, "flow": flow,
                                  "specific_flow": flow / w, "passed": len(times),
                                  "agents": run.n0, "last": times[-1] if times else float("nan"),
                                  "hash": h, "command": run.command()}, **queue_row(run)))
                log("  bottleneck28 %s m, placement %d%s: %.2f /(m s), fallback %.1f%%, "
                    "overlap %.3f r" % (w_s, seed, tag(label),
                                        flow / w, 100 * rows[-1]["fallback"],
                                        rows[-1]["overlap"]))
                if len(times) != run.n0:
                    # agents stranded beside the passage: the same run with the leg check
                    again = Run(ctx, "bottleneck28-%s-s%d.txt" % (w_s, seed), check=True, **opts)
                    rows[-1]["passed_check"] = len(crossings(again, lambda p: p[:, 0] > 1.4,
                                                             900.0))
                    rows[-1]["hash_check"] = again.finish()
                    rows[-1]["command_check"] = again.command()
    rep.csv("ped-bottleneck", rows)
    for label, sel in variants(rows):
        js = np.array([r["specific_flow"] for r in sel])
        in_band = bool(np.all((js >= JS_BAND[0]) & (js <= JS_BAND[1])))
        by = {}
        for r in sel:
            by.setdefault(r["width"], []).append(r["specific_flow"])
        rep.target("Bottleneck 2.8 m, %s: specific flow" % PED_LABEL[label],
                   "1.5 to 2.1 /(m·s) at 0.9, 1.2, 1.6, 2.0 and 2.5 m",
                   ", ".join("%s m: %s" % (g(w), spread(by[w])) for w in sorted(by)),
                   in_band, "%d runs below" % len(sel), "scripts/validate --only ped_bottleneck")
        ratios = []
        for seed in seeds:
            j = {r["width"]: r["specific_flow"] for r in sel if r["seed"] == seed}
            ratios.append(j[2.5] / j[0.9])
        rep.target("Bottleneck 2.8 m, %s: flat in width" % PED_LABEL[label],
                   "J/b at 2.5 m within 0.8 to 1.25 times J/b at 0.9 m",
                   "ratio %s" % ", ".join("%.2f" % x for x in ratios),
                   all(FLAT_BAND[0] <= x <= FLAT_BAND[1] for x in ratios),
                   "%d runs below" % len(sel), "scripts/validate --only ped_bottleneck")
    rep.ped_bottleneck_rows = rows
    rep.figure_ped_bottleneck(rows, rep.liddle_rows, rep.hermes_rows)
    rep.queue_rows += [dict(scene="bottleneck 2.8 m, %s m, placement %d" % (g(r["width"]),
                                                                             r["seed"]),
                            extension=r["extension"], fallback=r["fallback"],
                            overlap=r["overlap"], hash=r["hash"], command=r["command"])
                       for r in rows]


def liddle(ctx, rep):
    """Liddle et al.'s series: 180 agents, a passage 2 m long, widths 0.9 to 2.5 m."""
    exp = dict(zip(*bottleneck_experiments()["Liddle et al. 2011"]))
    rows = []
    for label, opts in ctx.variants_for("liddle"):
        for w_s in LIDDLE_WIDTHS:
            run = Run(ctx, "liddle-%s.txt" % w_s, **opts)
            times = crossings(run, lambda p: p[:, 0] > 1.0, 900.0)
            h = run.finish()
            w = float(w_s)
            flow = flow_between(times, 15, 165)
            rows.append({"extension": label, "width": w, "flow": flow, "specific_flow": flow / w,
                         "experiment_flow": exp[w] * w, "passed": len(times),
                         "agents": run.n0, "hash": h, "command": run.command()})
            log("  liddle %s m%s: %.2f /s (experiment %.2f)" % (
                w_s, tag(label), flow, exp[w] * w))
    rep.csv("liddle", rows)
    for label, sel in variants(rows):
        off = [r["flow"] / r["experiment_flow"] - 1 for r in sel]
        rep.row("Liddle et al. 2011 bottlenecks, %s" % PED_LABEL[label],
                "documented: flow against the experiment's, 0.9 to 2.5 m",
                "%s from the experiment" % spread([100 * o for o in off], "%+.0f%%"),
                None, "%d runs below" % len(sel), "scripts/validate --only liddle")
    rep.liddle_rows = rows
    rep.figure_ped_bottleneck(rep.ped_bottleneck_rows, rows, rep.hermes_rows)


def hermes(ctx, rep):
    """The Hermes wide bottlenecks: 350 agents, boards 1 m deep, gaps 2.4 to 5 m."""
    exp = {r["width_m"]: r for r in experiment("bottleneck-hermes2014")}
    exp_js = [r["flow_per_s"] / b for b, r in exp.items()]
    rows = []
    box = (-1.4, 1.4, 0.6, 2.6)
    for label, opts in ctx.variants_for("hermes"):
        for b_s in HERMES_WIDTHS:
            run = Run(ctx, "hermes-%s.txt" % b_s, **opts)
            times, dens = [], []
            while len(run.sim) and run.t < 900.0:
                run.step()
                p = run.sim.positions
                passed = int((p[:, 1] < 0.0).sum()) + run.sc.exited.count
                while len(times) < passed:
                    times.append(run.t)
                inbox = (p[:, 0] > box[0]) & (p[:, 0] < box[1]) & (p[:, 1] > box[2]) & \
                    (p[:, 1] < box[3])
                v = run.sim.velocities[inbox]
                dens.append((run.t, inbox.sum() / 5.6,
                             float(np.hypot(v[:, 0], v[:, 1]).mean()) if len(v) else np.nan))
            h = run.finish()
            n = run.n0
            lo, hi = int(np.ceil(0.1 * n)), int(np.floor(0.9 * n))
            flow = flow_between(times, lo, hi)
            t0, t1 = (times[lo - 1], times[hi - 1]) if len(times) >= hi else (0, 0)
            win = [(d, s) for t, d, s in dens if t0 <= t <= t1]
            b = float(b_s)
            e = exp[b]
            rows.append({"extension": label, "width": b, "flow": flow,
                         "specific_flow": flow / b,
                         "density": float(np.mean([d for d, _ in win])) if win else np.nan,
                         "speed": float(np.nanmean([s for _, s in win])) if win else np.nan,
                         "experiment_flow": e["flow_per_s"],
                         "experiment_density": e["density_per_m2"],
                         "experiment_speed": e["speed_m_s"], "passed": len(times),
                         "agents": n, "hash": h, "command": run.command()})
            log("  hermes %s m%s: %.2f /s (experiment %.2f), in front %.2f /m^2 %.2f m/s" % (
                b_s, tag(label), flow, e["flow_per_s"],
                rows[-1]["density"], rows[-1]["speed"]))
    rep.csv("hermes", rows)
    for label, sel in variants(rows):
        rep.row("Hermes wide bottlenecks (Liao et al. 2014), %s" % PED_LABEL[label],
                "documented: flow per metre against the experiment's %.2f to %.2f, 2.4 to "
                "5 m" % (min(exp_js), max(exp_js)),
                ", ".join("%s m: %.2f" % (g(r["width"]), r["specific_flow"]) for r in sel),
                None, "%d runs below" % len(sel), "scripts/validate --only hermes")
    rep.hermes_rows = rows
    rep.figure_ped_bottleneck(rep.ped_bottleneck_rows, rep.liddle_rows, rows)


def corridor_data(name):
    """An experiment's fundamental-diagram samples: (density, speed) arrays."""
    rows = experiment(name)
    return (np.array([r["density_per_m2"] for r in rows]),
            np.array([r["speed_m_s"] for r in rows]))


def near(data, rho, half=0.25):
    """The experiment's mean speed and sample count within rho +- half."""
    d, v = data
    sel = np.abs(d - rho) <= half
    return (float(v[sel].mean()) if sel.any() else float("nan")), int(sel.sum())


def fd_random(ctx, rep):
    """The fundamental diagram over the corridor's whole width, agents at random."""
    densities = ["2", "4"] if ctx.quick else FDR_DENSITIES
    julich = corridor_data("fd-zhang2011-corridor")
    rows = []
    for label, opts in ctx.variants_for("fd_random"):
        for rho_s in densities:
            filename = "fd-random-%s.txt" % rho_s
            m = measure_spec(filename)
            run = Run(ctx, filename, **opts)
            x0, x1 = m["centre"] - m["half"], m["centre"] + m["half"]
            every = max(1, int(round(0.25 / run.dt)))
            run.step(int(round(m["start"] / run.dt)))
            # whole width, the 1 m strips along each wall, the 8 m between them
            parts = {"whole": (0, 10), "south strip": (0, 1), "north strip": (9, 10),
                     "bulk": (1, 9)}
            count = dict.fromkeys(parts, 0)
            speed = dict.fromkeys(parts, 0.0)
            samples = 0
            while run.steps < int(round(m["end"] / run.dt)):
                run.step(every)
                p = run.sim.positions
                v = run.sim.velocities
                s = np.hypot(v[:, 0], v[:, 1])
                for k, (y0, y1) in parts.items():
                    sel = (p[:, 0] >= x0) & (p[:, 0] < x1) & (p[:, 1] >= y0) & (p[:, 1] < y1)
                    count[k] += int(sel.sum())
                    speed[k] += float(s[sel].sum())
                samples += 1
            h = run.finish()
            rho = count["whole"] / samples / (10.0 * (x1 - x0))
            vm = {k: speed[k] / count[k] if count[k] else float("nan") for k in parts}
            jv, jn = near(julich, rho)
            rows.append({"extension": label, "nominal": float(rho_s), "density": rho,
                         "speed": vm["whole"], "flow": rho * vm["whole"],
                         "weidmann": float(weidmann(rho)),
                         "south_strip_speed": vm["south strip"],
                         "north_strip_speed": vm["north strip"], "bulk_speed": vm["bulk"],
                         "julich_speed": jv, "julich_samples": jn, "hash": h,
                         "steps": run.steps, "command": run.command()})
            log("  fd-random %s/m^2%s: %.2f /m^2, %.3f m/s (Weidmann %.3f), strips %.2f / %.2f,"
                " bulk %.2f" % (rho_s, tag(label), rho, vm["whole"], rows[-1]["weidmann"],
                                vm["south strip"], vm["north strip"], vm["bulk"]))
    rep.csv("fd-random", rows)
    for label, sel in variants(rows):
        off = [r["speed"] / r["weidmann"] - 1 for r in sel]
        worst = max(off, key=abs)
        rep.target("Fundamental diagram over the whole width, %s" % PED_LABEL[label],
                   "within 15% of Weidmann, 0.5 to 4 agents/m², random placement",
                   "worst %+.1f%% from Weidmann (%s)" % (100 * worst, ", ".join(
                       "%s: %+.0f%%" % (g(r["nominal"]), 100 * o) for r, o in zip(sel, off))),
                   abs(worst) <= FD_TOLERANCE, "%d runs below" % len(sel),
                   "scripts/validate --only fd_random")
        jul = [(r, r["speed"] / r["julich_speed"] - 1) for r in sel if r["julich_samples"]]
        rep.row("Fundamental diagram against the Jülich corridor, %s" % PED_LABEL[label],
                "documented: speed against Zhang et al. 2011's at the same density (±0.25)",
                ", ".join("%s: %+.0f%%" % (g(r["nominal"]), 100 * o) for r, o in jul), None,
                "%d runs below" % len(sel), "scripts/validate --only fd_random")
    rep.fdr_rows = rows
    rep.figure_fd_random(rows)


def lane_groups(run):
    """+1 for each agent of the goal set east, -1 for west (the agents never leave)."""
    return np.array([1 if run.sc.agent_goal(i)["goal_set"] == "east" else -1
                     for i in range(len(run.sim))])


def corridor_speed(run, duration, centre, lanes=False):
    """Every second up to `duration` s: the mean speed along each agent's walking direction of
    the agents within 10 m of x = centre; with `lanes`, every 10 s the lane order of those
    within 20 m. Returns [(t, speed)], [(t, lane order)]."""
    direction = lane_groups(run)
    per = int(round(1.0 / run.dt))
    speeds, order = [], []
    while run.t < duration - 1e-9:
        run.step(per)
        p = run.sim.positions
        sel = np.abs(p[:, 0] - centre) < 10.0
        speeds.append((run.t, float((run.sim.velocities[sel, 0] * direction[sel]).mean())))
        if lanes and run.steps % (10 * per) == 0:
            near_ = np.abs(p[:, 0] - centre) < 20.0
            order.append((run.t, lane_order(p[near_], direction[near_])))
    return speeds, order


def window(series, t0, t1):
    return float(np.mean([v for t, v in series if t0 < t <= t1 + 1e-9]))


def counterflow(ctx, rep):
    """A corridor 4 m wide, each agent walking either way at random, against the same agents
    all walking one way; and two blocks walking into each other."""
    densities = ["2"] if ctx.quick else CF_DENSITIES
    duration = 30.0 if ctx.quick else 120.0
    rows, series = [], {}
    for label, opts in ctx.variants_for("counterflow"):
        for rho_s in densities:
            res = {}
            for kind in ("oneway", "mixed"):
                filename = "counterflow-%s-%s.txt" % (rho_s, kind)
                run = Run(ctx, filename, **opts)
                sp, lanes = corridor_speed(run, duration, measure_spec(filename)["centre"],
                                           lanes=kind == "mixed")
                res[kind] = (sp, lanes, run.finish(), run.command())
                series[(label, rho_s, kind)] = sp
            (so, _, ho, co), (sm, lm, hm, cm) = res["oneway"], res["mixed"]
            last = (duration - 20.0, duration)
            row = {"extension": label, "density": float(rho_s),
                   "oneway_speed": window(so, 0, duration), "mixed_speed": window(sm, 0, duration),
                   "oneway_last20": window(so, *last), "mixed_last20": window(sm, *last),
                   "lane_order_first": lm[0][1] if lm else float("nan"),
                   "lane_order_last": lm[-1][1] if lm else float("nan"),
                   "hash_oneway": ho, "hash_mixed": hm, "command_oneway": co,
                   "command_mixed": cm}
            row["ratio"] = row["mixed_speed"] / row["oneway_speed"]
            row["ratio_last20"] = row["mixed_last20"] / row["oneway_last20"]
            rows.append(row)
            log("  counterflow %s/m^2%s: one-way %.2f, mixed %.2f m/s (last 20 s %.2f / %.2f),"
                " lanes %.2f" % (rho_s, tag(label),
                                 row["oneway_speed"], row["mixed_speed"], row["oneway_last20"],
                                 row["mixed_last20"], row["lane_order_last"]))
    rep.csv("counterflow", rows)
    rep.csv("counterflow-speed", [{"extension": k[0], "density": float(k[1]), "kind": k[2],
                                    "time": t, "speed": v}
                                   for k, sp in series.items() for t, v in sp])
    for label, sel in variants(rows):
        ok = all(r["ratio"] >= CF_RATIO and r["ratio_last20"] >= CF_RATIO for r in sel)
        rep.target("Counter-flow, 4 m corridor, %s" % PED_LABEL[label],
                   "no jam: mean speed at least 70%% of the one-way speed over %.0f s and "
                   "over its last 20 s" % duration,
                   "; ".join("%s /m²: %.0f%%, last 20 s %.0f%%, lane order %.2f" % (
                       g(r["density"]), 100 * r["ratio"], 100 * r["ratio_last20"],
                       r["lane_order_last"]) for r in sel), ok, "%d runs below" % (2 * len(sel)),
                   "scripts/validate --only counterflow")
    rep.cf_rows = rows
    rep.cf_series = series
    rep.figure_counterflow(rows, series)
    if not ctx.quick:
        counterflow_blocks(ctx, rep)


def counterflow_blocks(ctx, rep):
    rows = []
    for label, opts in ctx.variants_for("counterflow"):
        res = {}
        for name in ("counterflow-block-oneway", "counterflow-blocks"):
            run = Run(ctx, name + ".txt", **opts)
            tr = Tracker(run)
            x0 = run.sim.positions[:, 0].copy()
            goal_x = np.array([102.0 if run.sc.agent_goal(i)["goal_set"] == "east" else -2.0
                               for i in range(tr.n0)])
            out120 = None
            while len(run.sim) and run.t < 600.0:
                run.step()
                tr.after_step()
                if out120 is None and run.t >= 120.0 - 1e-9:
                    out120 = int(run.sc.exited.count)
            out = ~np.isnan(tr.left)
            speed = np.abs(goal_x - x0)[out] / tr.left[out]
            res[name] = {"out120": out120 if out120 is not None else int(run.sc.exited.count),
                         "out": int(out.sum()), "agents": tr.n0,
                         "last": float(np.nanmax(tr.left)) if out.any() else float("nan"),
                         "speed": float(speed.mean()) if out.any() else float("nan"),
                         "hash": run.finish(), "command": run.command()}
        one, two = res["counterflow-block-oneway"], res["counterflow-blocks"]
        row = {"extension": label, "agents": two["agents"], "out_120s": two["out120"],
               "out": two["out"], "last": two["last"], "speed": two["speed"],
               "oneway_speed": one["speed"], "oneway_last": one["last"],
               "ratio": two["speed"] / one["speed"], "hash": two["hash"],
               "hash_oneway": one["hash"], "command": two["command"],
               "command_oneway": one["command"]}
        rows.append(row)
        log("  blocks%s: %d of %d out after 120 s, %d after 600 s (last %.0f s); %.2f m/s "
            "against %.2f" % (
            tag(label), row["out_120s"], row["agents"], row["out"],
            row["last"], row["speed"], row["oneway_speed"]))
        rep.target("Two blocks of 2 agents/m² walking into each other, %s" % PED_LABEL[label],
                   "all pass; mean speed at least 70% of one block's alone",
                   "%d of %d out after 120 s, %d after 600 s (the last at %.0f s); %.2f m/s, "
                   "%.0f%% of %.2f m/s" % (row["out_120s"], row["agents"], row["out"],
                                           row["last"], row["speed"], 100 * row["ratio"],
                                           row["oneway_speed"]),
                   row["out"] == row["agents"] and row["ratio"] >= CF_RATIO,
                   "%s, %s" % (row["hash"], row["hash_oneway"]),
                   "%s; %s" % (row["command"], row["command_oneway"]))
    rep.csv("counterflow-blocks", rows)
    rep.blocks_rows = rows


def exit_targets(run, exits):
    """The index of each agent's exit (the set's point it heads for), -1 without one."""
    out = np.empty(len(run.sim), dtype=int)
    for i in range(len(out)):
        t = run.sc.agent_goal(i)["target"]
        out[i] = exits.index(tuple(t)) if t is not None and tuple(t) in exits else -1
    return out


# The exit choices measured (docs/navigation.md, "Exits"): each with its Run options and its
# name in the report. The queue-aware one runs with the leg check, as navigation.md measures it.
EXIT_CHOICES = (("nearest", {}), ("calm", {"exits": "calm"}),
                ("quickest", {"exits": "quickest", "check": True}))
EXIT_CHOICE_LABEL = {"nearest": "nearest exit", "calm": "calm choice",
                     "quickest": "quickest choice, leg check"}


def exit_choice_run(ctx, label, opts, choice):
    """The exit-choice scene in one configuration and exit choice: per exit its agents and
    last departure, per agent its changes of exit and its exit, and the run's figures."""
    run = Run(ctx, "exit-choice.txt", **opts, **dict(EXIT_CHOICES)[choice])
    name = "%s, %s" % (PED_LABEL[label], EXIT_CHOICE_LABEL[choice])
    exits = [tuple(p) for p in run.sc.goal_set("exits")["points"]]
    tr = Tracker(run)
    n0 = tr.n0
    current = exit_targets(run, exits)
    changes = np.zeros(n0, dtype=int)
    left_by = np.full(n0, -1)
    last_pos = run.sim.positions.copy()
    while len(run.sim) and run.t < 900.0:
        run.step()
        ids_before = tr.ids
        tr.after_step()
        for i in np.setdiff1d(ids_before, tr.ids):  # it left by the exit nearest to where it
            # was last seen
            left_by[i] = int(np.argmin([np.hypot(*(last_pos[i] - np.array(e))) for e in exits]))
        last_pos[tr.ids] = run.sim.positions
        if run.steps % 5 == 0 and len(run.sim):
            now = exit_targets(run, exits)
            changes[tr.ids] += (now != current[tr.ids]) & (current[tr.ids] >= 0) & (now >= 0)
            current[tr.ids] = now
    h = run.finish()
    per_exit = []
    for k, e in enumerate(exits):
        sel = left_by == k
        per_exit.append({"extension": label, "choice": choice, "exit": k, "point": e,
                         "agents": int(sel.sum()),
                         "last": float(tr.left[sel].max()) if sel.any() else float("nan")})
    lasts = [x["last"] for x in per_exit if x["agents"]]
    row = {"extension": label, "choice": choice, "name": name, "agents": n0,
           "out": int((~np.isnan(tr.left)).sum()),
           "total": run.sc.exited.last_step * run.dt,
           "changed": int((changes > 0).sum()), "over_two": int((changes > EXIT_CHANGES).sum()),
           "most": int(changes.max()), "spread": max(lasts) / min(lasts),
           "hash": h, "command": run.command(), **queue_row(run)}
    agents_rows = [{"extension": label, "choice": choice, "agent": i, "exit": int(left_by[i]),
                    "changes": int(c), "left": tr.left[i]} for i, c in enumerate(changes)]
    log("  exit choice%s, %s: %d of %d out by %.1f s; %d changed exit, %d more than twice (most "
        "%d); last departures %s" % (tag(label), choice, row["out"],
                                     n0, row["total"], row["changed"], row["over_two"],
                                     row["most"], ", ".join("%.0f s" % x for x in lasts)))
    return row, per_exit, agents_rows, changes


def exit_choice(ctx, rep):
    """Three exits of unequal catchment, 1,000 agents, with each exit choice: changes of
    exit, last departures; the queue-aware choice against the nearest exit's total time."""
    runs = [(label,) + exit_choice_run(ctx, label, opts, choice)
            for label, opts in ctx.variants_for("exit_choice") for choice, _ in EXIT_CHOICES]
    total = {(r[1]["extension"], r[1]["choice"]): r[1]["total"] for r in runs}
    for label, row, per_exit, _, _ in runs:
        rep.target("Exit choice, %s: changes of exit" % row["name"],
                   "no agent changes exit more than twice (1,000 agents, three exits)",
                   "%d of %d changed, %d more than twice, at most %d times" % (
                       row["changed"], row["agents"], row["over_two"], row["most"]),
                   row["over_two"] == 0, row["hash"], row["command"])
        if row["choice"] == "quickest":
            rep.target("Exit choice, %s: balance" % row["name"],
                       "the exits' last departures within 25% of each other",
                       "%s (agents %s); empty after %.1f s" % (
                           ", ".join("%.1f s" % x["last"] for x in per_exit),
                           ", ".join(str(x["agents"]) for x in per_exit), row["total"]),
                       row["spread"] <= EXIT_SPREAD, row["hash"], row["command"])
            near = total[(label, "nearest")]
            rep.target("Exit choice, %s: total time" % row["name"],
                       "the last agent out earlier than with the nearest exit",
                       "%.1f s against %.1f s (%+.0f%%)" % (
                           row["total"], near, 100 * (row["total"] / near - 1)),
                       row["total"] < near, row["hash"], row["command"])
        rep.queue_rows.append(dict(scene="exit choice (floor plan), %s" % (
                                       EXIT_CHOICE_LABEL[row["choice"]]), extension=label,
                                   fallback=row["fallback"], overlap=row["overlap"],
                                   hash=row["hash"], command=row["command"]))
    rep.csv("exit-choice", [dict(x, point="%g %g" % x["point"]) for r in runs for x in r[2]])
    rep.csv("exit-choice-agents", [a for r in runs for a in r[3]])
    rep.exit_runs = runs
    rep.figure_exit_choice(runs)


def rimea_model(ctx, rep):
    """RiMEA 1, 6 and 12 in the pedestrian model's configurations, against their criteria
    (RiMEA 1's agent keeps the test's 1.33 m/s: its line gives it; RiMEA 4's diagram is the
    whole-width one above)."""
    for label, opts in ctx.variants_for("rimea_model"):
        if label == "plain":
            continue  # RiMEA 1, 6 and 12 above
        name = PED_LABEL[label]
        run = Run(ctx, "rimea01-corridor.txt", **opts)
        t40 = rimea1_time(run)
        rep.target("RiMEA 1, %s" % name, "40 m in 26 to 34 s (1.33 m/s)",
                   "%.2f s" % t40 if t40 is not None else "not reached in 60 s",
                   t40 is not None and 26.0 <= t40 <= 34.0, run.finish(), run.command())
        run = Run(ctx, "rimea06-corner.txt", **opts)
        _, crossed = rimea6_walk(run, run.walls())
        out, wall = int(run.sc.exited.count), run.sc.max_wall_overlap
        rep.target("RiMEA 6, %s" % name, "all 20 reach the exit, none crosses a wall",
                   "%d of 20 out by %.1f s; %d wall crossings; deepest wall overlap %g radius" % (
                       out, run.t, crossed, wall), out == 20 and crossed == 0 and wall == 0,
                   run.finish(), run.command())
        run = Run(ctx, "rimea12-bottleneck.txt", **opts)
        _, pd, pe = rimea12_walk(run)
        out = int(run.sc.exited.count)
        rep.row("RiMEA 12, %s" % name, "documented: congestion before door 1, none in room 2",
                "%d of 150 out by %.1f s; densest 5 s before door 1: %.2f /m^2, before the "
                "exit: %.2f /m^2" % (out, run.t, pd, pe), None, run.finish(), run.command())


def queues(ctx, rep):
    """The queue figures of the runs above (bottlenecks, RiMEA 9, exit choice) against the
    target."""
    for label, sel in variants(rep.queue_rows):
        f = max(r["fallback"] for r in sel)
        o = max(r["overlap"] for r in sel)
        rep.target("Queues, %s" % PED_LABEL[label],
                   "at most 10% of agent-steps in the solver's fallback, deepest overlap at "
                   "most 0.05 radii",
                   "fallback %.0f%% to %.0f%%, deepest overlap up to %.2f r (%d runs)" % (
                       100 * min(r["fallback"] for r in sel), 100 * f, o, len(sel)),
                   f <= QUEUE_FALLBACK and o <= QUEUE_OVERLAP, "%d runs below" % len(sel),
                   "scripts/validate --only ped_bottleneck,rimea9,exit_choice,queues")
    rep.csv("queues", rep.queue_rows)


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
        self.queue_rows = []  # the queue figures of the runs that have queues
        self.ped_bottleneck_rows, self.liddle_rows, self.hermes_rows = [], [], []
        self.fdr_rows, self.cf_rows, self.cf_series, self.blocks_rows = [], [], {}, []
        self.rimea9_runs, self.exit_runs = [], []
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

    def target(self, test, criterion, measured, ok, h, command):
        """A pedestrian target: "met" or "not met", reported, never a failure of the suite
        (a configuration that does not meet one is shown with its measurement)."""
        verdict = "met" if ok else "not met"
        self.rows.append((test, criterion, measured, verdict, h, command))
        log("%-45s %s: %s" % (test, verdict, measured))

    def text(self, key, s):
        self.texts[key] = s

    def csv(self, name, rows):
        path = os.path.join(self.figdir, name + ".csv")
        with open(path, "w", newline="", encoding="utf-8") as f:
            # every row's keys in order of first appearance (blank where a row lacks one)
            keys = list(dict.fromkeys(k for r in rows for k in r))
            w = csv.DictWriter(f, fieldnames=keys, restval="", lineterminator="\n")
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

    def figure_ped_bottleneck(self, rows, liddle_rows, hermes_rows):
        """Specific flow against width: the scenes against the experiments."""
        plt = self.plt
        panels = [p for p in (rows, liddle_rows, hermes_rows) if p]
        fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
        axes = list(axes[0])
        exp = bottleneck_experiments()
        markers = dict(zip(exp, ("D", "s", "^", "v")))
        titles = iter([t for t, p in (("Bottleneck 2.8 m long, 200 agents", rows),
                                      ("Liddle et al.'s bottlenecks, 180 agents", liddle_rows),
                                      ("Hermes wide bottlenecks, 350 agents", hermes_rows)) if p])
        for ax, sel in zip(axes, panels):
            if sel is rows:
                ax.axhspan(*JS_BAND, color="0.88", label="target 1.5 to 2.1")
            for name, (w, js) in exp.items():
                ax.plot(w, js, markers[name], color="black", mfc="none", ms=6, label=name)
            for label, pts in variants(sel):
                ws = sorted({r["width"] for r in pts})
                vals = [[r["specific_flow"] for r in pts if r["width"] == w] for w in ws]
                mean = [np.mean(v) for v in vals]
                err = [[m - min(v) for m, v in zip(mean, vals)],
                       [max(v) - m for m, v in zip(mean, vals)]]
                ax.errorbar(ws, mean, yerr=err, fmt="o-", color=PED_COLOUR[label], capsize=3,
                            label=PED_LABEL[label])
            ax.set_xlabel("bottleneck width (m)")
            ax.set_ylabel("specific flow J/b (1/(m·s))")
            ax.set_ylim(0, 3.5)
            ax.set_title(next(titles))
            ax.legend(fontsize=7)
        self.save(fig, "ped-bottleneck")

    def figure_fd_random(self, rows):
        plt = self.plt
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
        r = np.linspace(0.05, 5.4, 300)
        d, v = corridor_data("fd-zhang2011-corridor")
        a1.plot(d, v, ".", color="0.6", ms=3, label="Zhang et al. 2011, corridor 3 m")
        a2.plot(d, d * v, ".", color="0.6", ms=3, label="Zhang et al. 2011, corridor 3 m")
        a1.fill_between(r, 0.85 * weidmann(r), 1.15 * weidmann(r), color="0.88",
                        label="Weidmann ±15%")
        a1.plot(r, weidmann(r), color="black", lw=1.5, label="Weidmann (1993)")
        a2.plot(r, r * weidmann(r), color="black", lw=1.5, label="Weidmann (1993)")
        for label, sel in variants(rows):
            colour = PED_COLOUR[label]
            a1.plot([x["density"] for x in sel], [x["speed"] for x in sel], "o", color=colour,
                    ms=7, label=PED_LABEL[label] + ", whole width")
            a1.plot([x["density"] for x in sel], [x["bulk_speed"] for x in sel], "x",
                    color=colour, ms=6, label=PED_LABEL[label] + ", more than 1 m off walls")
            a2.plot([x["density"] for x in sel], [x["flow"] for x in sel], "o", color=colour,
                    ms=7, label=PED_LABEL[label])
        for ax in (a1, a2):
            ax.set_xlabel("density over the whole width (agents/m²)")
            ax.set_xlim(0, 5)
            ax.legend(fontsize=7)
        a1.set_ylabel("mean speed (m/s)")
        a1.set_ylim(0, 1.9)
        a2.set_ylabel("specific flow = density × speed (1/(m·s))")
        a1.set_title("Corridor 10 m wide, agents at random")
        a2.set_title("Flow against density")
        self.save(fig, "fd-random")

    def figure_counterflow(self, rows, series):
        plt = self.plt
        dens = sorted({k[1] for k in series}, key=float)
        fig, axes = plt.subplots(1, len(dens) + 1, figsize=(4.2 * (len(dens) + 1), 3.8),
                                 squeeze=False)
        axes = list(axes[0])
        for ax, rho_s in zip(axes, dens):
            for (label, rho, kind), sp in series.items():
                if rho != rho_s:
                    continue
                s = np.array(sp)
                ax.plot(s[:, 0], s[:, 1], "-" if kind == "mixed" else ":",
                        color=PED_COLOUR[label], label="%s, %s" % (PED_LABEL[label], kind))
            ax.set_ylim(0, 1.6)
            ax.set_xlabel("time (s)")
            ax.set_ylabel("speed along the walking direction (m/s)")
            ax.set_title("Corridor 4 m, %s agents/m²" % rho_s)
            ax.legend(fontsize=7)
        ax = axes[-1]
        for name, marker in (("fd-zhang2011-corridor", "."), ("fd-zhang2012-bidirectional", "x")):
            d, v = corridor_data(name)
            ax.plot(d, v, marker, color="0.55", ms=4, label="Zhang et al. 2011, one-way" if
                    "2011" in name else "Zhang et al. 2012, bidirectional")
        for label, sel in variants(rows):
            colour = PED_COLOUR[label]
            ax.plot([r["density"] for r in sel], [r["oneway_speed"] for r in sel], "o",
                    mfc="none", color=colour, label=PED_LABEL[label] + ", one-way")
            ax.plot([r["density"] for r in sel], [r["mixed_speed"] for r in sel], "o",
                    color=colour, label=PED_LABEL[label] + ", mixed")
        ax.set_xlim(0, 4)
        ax.set_ylim(0, 1.9)
        ax.set_xlabel("density (agents/m²; the runs: their fill)")
        ax.set_ylabel("mean speed (m/s)")
        ax.set_title("Against the corridor experiments")
        ax.legend(fontsize=6)
        self.save(fig, "counterflow")

    def figure_exit_choice(self, runs):
        """Per configuration: the departures per exit against time, and the changes of exit
        per agent."""
        plt = self.plt
        fig, axes = plt.subplots(len(runs), 2, figsize=(10, 3.8 * len(runs)), squeeze=False)
        for (a1, a2), (label, row, per_exit, agents_rows, changes) in zip(axes, runs):
            for x in per_exit:
                t = np.sort([r["left"] for r in agents_rows if r["exit"] == x["exit"]])
                a1.step(np.concatenate(([0.0], t)), np.arange(len(t) + 1), where="post",
                        label="exit %d at (%g, %g): %d agents, last %.0f s" % (
                            x["exit"], x["point"][0], x["point"][1], x["agents"], x["last"]))
            a1.set_xlabel("time (s)")
            a1.set_ylabel("agents out by the exit")
            a1.legend(fontsize=7)
            a1.set_title("%s: departures per exit" % row["name"], fontsize=9)
            a2.hist(changes, bins=np.arange(changes.max() + 2) - 0.5, color=PED_COLOUR[label])
            a2.set_yscale("log")
            a2.set_xlabel("changes of exit per agent")
            a2.set_ylabel("agents")
            a2.set_title("%s: changes of exit" % row["name"], fontsize=9)
        fig.tight_layout()
        self.save(fig, "exit-choice")


def weidmann_capacity():
    """Weidmann's largest specific flow max rho v(rho) and where (a fine grid)."""
    r = np.linspace(0.01, RHO_MAX, 100000)
    j = r * weidmann(r)
    return float(j.max()), float(r[j.argmax()])


def binned(data, lo, hi):
    """An experiment's samples with density in [lo, hi): their mean speed, Weidmann's mean
    speed at their densities, their count."""
    d, v = data
    sel = (d >= lo) & (d < hi)
    return float(v[sel].mean()), float(weidmann(d[sel]).mean()), int(sel.sum())


EXPERIMENT_SOURCES = [
    ("Kretz et al. 2006", "bottleneck 0.4 to 1.2 m wide", "flow by width (their Table 3)",
     "bottleneck-kretz2006"),
    ("Seyfried et al. 2009", "bottleneck 0.8 to 1.2 m wide, 60 persons",
     "flow by width", "bottleneck-seyfried2009"),
    ("Liddle et al. 2011 (Rupprecht et al. 2011)", "bottleneck 0.9 to 2.5 m wide, 180 persons",
     "four crossing times by width; flow 150 / (t4 - t1)", "bottleneck-liddle2011"),
    ("Liao et al. 2014 (Hermes)", "boards 1 m deep, gap 2.4 to 5 m, 350 persons",
     "flow, density and speed in front of the gap", "bottleneck-hermes2014"),
    ("Zhang et al. 2011", "one-way corridor 3 m wide", "density and speed samples",
     "fd-zhang2011-corridor"),
    ("Zhang et al. 2012", "bidirectional corridor 3.6 m wide", "density and speed samples",
     "fd-zhang2012-bidirectional"),
]


def ped_report(rep, names, fig, data):
    """docs/validation.md's part on the pedestrian experiments (the tests that ran)."""
    if not (rep.ped_bottleneck_rows or rep.liddle_rows or rep.hermes_rows or rep.fdr_rows or
            rep.cf_rows or rep.queue_rows or rep.exit_runs):
        return ""
    t = ["## Pedestrian experiments\n\n"]
    cap, at = weidmann_capacity()
    t.append(
        "An evacuation's time is decided at the doors, in the queues and where streams meet. "
        "The scenes of this part are built after published experiments and measured the way "
        "those were; each is held against a target a pedestrian model should meet:\n\n"
        "- **Bottleneck**: specific flow (agents per metre of width and second) within %g to "
        "%g at widths 0.9, 1.2, 1.6, 2.0 and 2.5 m, and flat: at 2.5 m within %g to %g times "
        "that at 0.9 m.\n"
        "- **Fundamental diagram** within 15%% of Weidmann's from 0.5 to 4 agents/m², measured "
        "over the corridor's whole width (the strips along the walls included), agents placed "
        "at random.\n"
        "- **Counter-flow** in a corridor 4 m wide at 1, 1.5 and 2 agents/m², each agent "
        "walking either way at random, and two blocks of 2 agents/m² walking into each other: "
        "no jam, the mean speed at least %d%% of the one-way speed at the same density, lanes "
        "reported (the lane order).\n"
        "- **Queues** (the bottlenecks, RiMEA 9, the exit choice): at most %d%% of agent-steps "
        "in the solver's fallback ([algorithm.md](algorithm.md) §10: the linear program was "
        "infeasible, the velocity the least violation) and the deepest overlap at most %g "
        "radii.\n"
        "- **RiMEA 9** for several seeds: everyone out, the ratio within 1.6 to 2.4.\n"
        "- **Exit choice**, three exits of unequal catchment, 1,000 agents: no agent changes "
        "exit more than %d times; with a choice that weighs the queues, the exits' last "
        "departures within 25%% of each other and the last agent out earlier than with the "
        "nearest exit.\n\n"
        "A configuration that does not meet a target is marked *not met* with its "
        "measurement; that is a finding, not a failure of the suite. The configurations "
        "measured: plain ORCA; ORCA with the density-dependent speed "
        "([extensions.md](extensions.md), Weidmann's law, whose largest flow is %.3f agents "
        "per metre and second at %.2f agents/m²: no stream slowed by it can carry more); and "
        "the pedestrian model ([pedestrians.md](pedestrians.md): headway half-planes, time "
        "gap 0.5 s) over the scenes as they are (`orca run --pedestrian`: the agents keep "
        "the scenes' radius 0.2 m and free speeds, 1.34 m/s or RiMEA 4's classes); the "
        "pedestrian preset, the model with the preset's agents (radius 0.18 m, free speeds "
        "drawn from Weidmann's distribution); and the preset with a time gap of 0.8 s, the "
        "other side of the trade-off between the fundamental diagram and the bottleneck "
        "(pedestrians.md). The preset's runs read each scene's version with `pedestrian on` "
        "(`FILE-ped.txt`, `FILE-ped-t0.8.txt`: the same walls, goals and agents, without the "
        "validation pedestrian's default lines).\n\n" % (
            JS_BAND[0], JS_BAND[1], FLAT_BAND[0], FLAT_BAND[1], int(100 * CF_RATIO),
            int(100 * QUEUE_FALLBACK), QUEUE_OVERLAP, EXIT_CHANGES, cap, at))
    t.append("The experiments' points, each file with its source and how the numbers were "
             "obtained (all tabulated from the papers' tables or from the experiments' "
             "trajectories, none digitised from a figure):\n\n")
    t.append(md_table(["experiment", "setup", "data", "file"],
                      [(a, b, c, "[%s.csv](validation/experiments/%s.csv)" % (f, f))
                       for a, b, c, f in EXPERIMENT_SOURCES]))
    t.append("\n")
    if rep.ped_bottleneck_rows or rep.liddle_rows or rep.hermes_rows:
        t.append(ped_bottleneck_text(rep, fig, data, cap))
    if rep.fdr_rows:
        t.append(fd_random_text(rep, fig, data))
    if rep.fdr_rows and rep.ped_bottleneck_rows:
        t.append(tradeoff_text(rep, cap))
    if rep.cf_rows:
        t.append(counterflow_text(rep, fig, data))
    if rep.queue_rows:
        t.append(queue_text(rep, data))
    if len(rep.rimea9_runs) > 1:
        t.append(rimea9_seeds_text(rep))
    if rep.exit_runs:
        t.append(exit_choice_text(rep, fig, data))
    return "".join(t)


def ped_bottleneck_text(rep, fig, data, cap):
    t = ["### Bottlenecks\n\n![Bottlenecks against the experiments](%s)\n\n" %
         fig("ped-bottleneck")]
    t.append("The black markers are the experiments (files above); each panel's coloured "
             "points are one scene's runs, a bar the spread over the placements.\n\n")
    rows = rep.ped_bottleneck_rows
    if rows:
        t.append(
            "**Bottleneck 2.8 m long.** 200 agents wait at random in a room 10 m deep and 8 m "
            "wide and leave through a passage 2.8 m long; the flow is counted across the "
            "passage's middle from the 20th to the 180th agent. They leave at a line of 26 "
            "points 3 m behind the passage, each at its nearest, so that a wide stream is not "
            "funnelled onto one point, a second bottleneck (the sweep above exits at one "
            "point). Three placements of the crowd, the same for every width. Data: %s.\n\n"
            % data("ped-bottleneck"))
        t.append(md_table(
            ["width (m)", "placement", "configuration", "J/b (1/(m·s))", "passed", "fallback",
             "deepest overlap (r)", "hash"],
            [(g(r["width"]), r["seed"], PED_LABEL[label], "%.2f" % r["specific_flow"],
              "%d of %d" % (r["passed"], r["agents"]), "%.0f%%" % (100 * r["fallback"]),
              "%.3f" % r["overlap"], "`%s`" % r["hash"])
             for label, sel in variants(rows) for r in sel]))
        by = dict(variants(rows))
        exp = bottleneck_experiments()
        narrow = np.concatenate([js[w >= 0.9] for k, (w, js) in exp.items() if "Hermes" not in k])
        wide = exp["Liao et al. 2014 (Hermes)"][1]
        t.append("\n")
        if "plain" in by:
            plain = by["plain"]
            at = {x: [r["specific_flow"] for r in plain if r["width"] == x] for x in (0.9, 2.5)}
            t.append(
                "Plain ORCA's specific flow grows with the width, from %s at 0.9 m to %s at "
                "2.5 m: its agents keep their free speed up to the passage and stream through "
                "it several abreast, so the passage carries what its width lets through. In the "
                "queue before it %.0f%% to %.0f%% of the agent-steps end in the solver's "
                "fallback and neighbours overlap by up to %.2f radii. " % (
                    spread(at[0.9]), spread(at[2.5]), 100 * min(r["fallback"] for r in plain),
                    100 * max(r["fallback"] for r in plain), max(r["overlap"] for r in plain)))
        if "density_speed" in by:
            js_on = [r["specific_flow"] for r in by["density_speed"]]
            t.append(
                "With the density-dependent speed the queue walks at Weidmann's speed for its "
                "density, close to standstill, and the flow stays at %.2f to %.2f, under "
                "Weidmann's largest flow (%.2f): a law of speed against density alone bounds "
                "the flow through the passage by the law's largest flow. " % (
                    min(js_on), max(js_on), cap))
        t.append(
            "%s"
            "The experiments' crowds pass bottlenecks of 0.9 to 2.5 m at %.2f to %.2f per "
            "metre and second (Kretz, Seyfried, Liddle) and the Hermes gaps of 2.4 to 5 m at "
            "%.2f to %.2f: denser, at a given speed, than Weidmann's law lets a crowd "
            "move.\n\n"
            "%s"
            "Each run: `orca run examples/validation/bottleneck28-W-sK.txt --steps N` (N and "
            "the options of each configuration in the CSV's command column).\n\n" % (
                model_bottleneck_text(by), narrow.min(), narrow.max(), wide.min(), wide.max(),
                stranded_text(rows)))
    if rep.liddle_rows:
        t.append(
            "**Liddle et al.'s series.** 180 agents at random in a room 10 m deep and 8 m wide, "
            "a passage 2 m long (JuPedSim's replica of the series; the paper's own drawing "
            "was not at hand), widths 0.9 to 2.5 m; the flow from the 15th to the 165th agent, "
            "150 as in the experiment's. Data: %s.\n\n" % data("liddle"))
        t.append(md_table(
            ["width (m)", "configuration", "flow (1/s)", "experiment", "off by", "hash"],
            [(g(r["width"]), PED_LABEL[label], "%.2f" % r["flow"],
              "%.2f" % r["experiment_flow"],
              "%+.0f%%" % (100 * (r["flow"] / r["experiment_flow"] - 1)), "`%s`" % r["hash"])
             for label, sel in variants(rep.liddle_rows) for r in sel]))
        t.append("\nEach run: `orca run examples/validation/liddle-W.txt --steps N` (N and the "
                 "options in the CSV).\n\n")
    if rep.hermes_rows:
        rows = rep.hermes_rows
        t.append(
            "**Hermes wide bottlenecks.** 350 agents at random in the semicircle of radius "
            "8.618 m in front of boards 1 m deep in a corridor 20 m wide, gaps 2.4 to 5 m; the "
            "flow across the gap's middle between 10%% and 90%% of the crossings, the density "
            "and the speed in the 2.8 m × 2 m box in front of the gap over the same time, as "
            "the experiment's were measured. Data: %s.\n\n" % data("hermes"))
        t.append(md_table(
            ["gap (m)", "configuration", "J/b", "density in front", "speed", "experiment: J/b",
             "density", "speed", "hash"],
            [(g(r["width"]), PED_LABEL[label], "%.2f" % r["specific_flow"],
              "%.2f" % r["density"], "%.2f" % r["speed"],
              "%.2f" % (r["experiment_flow"] / r["width"]), "%.2f" % r["experiment_density"],
              "%.2f" % r["experiment_speed"], "`%s`" % r["hash"])
             for label, sel in variants(rows) for r in sel]))
        ed = [r["experiment_density"] for r in rows]
        ev = [r["experiment_speed"] for r in rows]
        t.append(
            "\nIn front of the Hermes gaps people stood at %.1f to %.1f per m² and still "
            "moved at %.2f to %.2f m/s, where Weidmann's law gives %.2f to %.2f m/s: the "
            "measured crowd is denser at a given speed than the law. Each run: `orca run "
            "examples/validation/hermes-B.txt --steps N` (N and the options in the CSV).\n\n" % (
                min(ed), max(ed), min(ev), max(ev), float(weidmann(max(ed))),
                float(weidmann(min(ed)))))
    return "".join(t)


MODEL_VARIANTS = ("pedestrian", "preset", "preset T=0.8")


def stranded_text(rows):
    """The runs in which agents were left in the room after 900 s, if any."""
    left = [r for r in rows if r["passed"] != r["agents"]]
    if not left:
        return ""
    return (
        "In %d of the %d runs agents had not passed after 900 s: %s. They stand beside the "
        "passage's "
        "mouth, pushed there by the queue, and navigation does not plan them again (an agent "
        "on its path's last leg walks straight at its exit point, into the wall; "
        "[navigation.md](navigation.md), \"Following a path\"); with the pedestrian model "
        "nobody pushes them on. The flow is measured before that. These runs are without the "
        "leg check (`--nav-check`); run again with it: %s.\n\n" % (
            len(left), len(rows), "; ".join("%s, %s m, placement %d: %d of %d" % (
                PED_LABEL[r["extension"]], g(r["width"]), r["seed"], r["passed"], r["agents"])
                for r in left),
            "; ".join("%d of %d passed (`%s`, `%s`)" % (
                r["passed_check"], r["agents"], r["hash_check"], r["command_check"])
                for r in left)))


def model_bottleneck_text(by):
    """What the model's configurations measured in the bottleneck of 2.8 m."""
    out = []
    for label in MODEL_VARIANTS:
        if label not in by:
            continue
        sel = by[label]
        js = [r["specific_flow"] for r in sel]
        ratios = [a["specific_flow"] / b["specific_flow"] for a in sel for b in sel
                  if a["seed"] == b["seed"] and a["width"] == 2.5 and b["width"] == 0.9]
        out.append(
            "The %s: %.2f to %.2f per metre and second over the widths and placements, at "
            "2.5 m %s times its flow at 0.9 m; at most %.1f%% of agent-steps in the fallback, "
            "overlaps up to %.3f radii. " % (
                PED_LABEL[label], min(js), max(js), spread(ratios),
                100 * max(r["fallback"] for r in sel), max(r["overlap"] for r in sel)))
    return "".join(out)


def fd_random_text(rep, fig, data):
    rows = rep.fdr_rows
    julich = corridor_data("fd-zhang2011-corridor")
    t = ["### Fundamental diagram over the whole width\n\n![Fundamental diagram, whole width]"
         "(%s)\n\nData: %s.\n\n" % (fig("fd-random"), data("fd-random"))]
    t.append(
        "A corridor 10 m wide and %s long, the agents placed at random (a lattice dissolved "
        "by the hard-disc Monte Carlo of `scripts/validation-scenes`), free speeds from "
        "RiMEA 4's five classes at random; speed and density are measured every 0.25 s from "
        "10 s to 30 s over the whole width of the 10 m in the middle, and over the 1 m strips "
        "along each wall and the 8 m between them. The Jülich column is the mean speed of "
        "the corridor experiment's samples (Zhang et al. 2011) within ±0.25 agents/m² of the "
        "run's density, with their count.\n\n" % ("110 m"))
    t.append(md_table(
        ["agents/m² (fill)", "configuration", "density", "speed", "Weidmann", "off by",
         "strips along the walls", "between them", "Jülich (samples)", "hash"],
        [(g(r["nominal"]), PED_LABEL[r["extension"]], "%.2f" % r["density"],
          "%.3f" % r["speed"], "%.3f" % r["weidmann"],
          "%+.1f%%" % (100 * (r["speed"] / r["weidmann"] - 1)),
          "%.2f, %.2f" % (r["south_strip_speed"], r["north_strip_speed"]),
          "%.2f" % r["bulk_speed"],
          "%.2f (%d)" % (r["julich_speed"], r["julich_samples"]) if r["julich_samples"] else
          "—", "`%s`" % r["hash"]) for _, sel in variants(rows) for r in sel]))
    by = dict(variants(rows))
    bins = [(lo, hi) + binned(julich, lo, hi) for lo, hi in ((0.5, 1.5), (1.5, 2.5), (2.5, 4.0))]
    t.append("\n")
    if "plain" in by:
        t.append("Plain ORCA walks at its free speed at every density: nothing in it slows a "
                 "crowd that walks one way. ")
    if "density_speed" in by:
        top = by["density_speed"][-1]
        t.append(
            "With the density-dependent speed the crowd follows Weidmann in the middle of the "
            "corridor but not along its walls: at %s agents/m² the strips along the walls walk "
            "at %.2f and %.2f m/s, the 8 m between them at %.2f (Weidmann: %.2f), which puts "
            "the whole width %+.0f%% off. The density estimate counts the neighbours in a disc "
            "of 2 m (extensions.md); near a wall part of that disc is wall, so the estimate is "
            "low and the agent fast. " % (
                g(top["nominal"]), top["south_strip_speed"], top["north_strip_speed"],
                top["bulk_speed"], top["weidmann"], 100 * (top["speed"] / top["weidmann"] - 1)))
    for label in MODEL_VARIANTS:
        if label in by:
            t.append("The %s: %s from Weidmann, %s from the Jülich samples at the same "
                     "density. " % (PED_LABEL[label], ", ".join(
                         "%+.0f%% at %s" % (100 * (r["speed"] / r["weidmann"] - 1),
                                            g(r["nominal"])) for r in by[label]), ", ".join(
                         "%+.0f%%" % (100 * (r["speed"] / r["julich_speed"] - 1))
                         for r in by[label] if r["julich_samples"])))
    t.append(
        "\n\nThe Jülich corridor measurements (Zhang et al. 2011) are not Weidmann's curve "
        "either: their samples' mean speed is %s.\n\n"
        "Each run: `orca run examples/validation/fd-random-D.txt --steps %d` (each "
        "configuration's file and options in the CSV's command column).\n\n" % (
            "; ".join("%.2f m/s from %g to %g agents/m² (%d samples), where Weidmann's is "
                      "%.2f at the same densities (%+.0f%%)" % (v, lo, hi, n, w, 100 * (v / w - 1))
                      for lo, hi, v, w, n in bins), rows[0]["steps"]))
    return "".join(t)


def tradeoff_text(rep, cap):
    """The fundamental diagram against the bottleneck, per configuration: the corridor's
    largest measured flow, the diagram's worst deviation from Weidmann, the bottleneck's
    specific flows."""
    fd, bn = dict(variants(rep.fdr_rows)), dict(variants(rep.ped_bottleneck_rows))
    rows = []
    for label in [lab for lab, _, _ in PED_VARIANTS if lab in fd and lab in bn]:
        off = [r["speed"] / r["weidmann"] - 1 for r in fd[label]]
        rows.append((PED_LABEL[label], "%.2f" % max(r["flow"] for r in fd[label]),
                     "%+.0f%%" % (100 * max(off, key=abs)),
                     spread([r["specific_flow"] for r in bn[label]])))
    t = ["### The fundamental diagram against the bottleneck\n\n"]
    t.append(
        "A crowd whose speed follows a local law carries through a passage, in the steady "
        "state, at most the law's largest flow in a corridor: Weidmann's is %.2f per metre and "
        "second. The table sets each configuration's largest flow in the corridor above, its "
        "worst deviation from Weidmann there (0.5 to 4 agents/m²) and its specific flow in the "
        "bottleneck of 2.8 m side by side.\n\n" % cap)
    t.append(md_table(["configuration", "largest flow in the corridor (1/(m·s))",
                       "worst off Weidmann", "bottleneck J/b"], rows))
    return "".join(t) + "\n"


def counterflow_text(rep, fig, data):
    rows = rep.cf_rows
    t = ["### Counter-flow\n\n![Counter-flow](%s)\n\nData: %s, %s (every second).\n\n" % (
        fig("counterflow"), data("counterflow"), data("counterflow-speed"))]
    t.append(
        "A corridor 4 m wide and 380 m long, the agents at random, each walking towards +x or "
        "-x at random (mixed), against the same agents all walking towards +x (one-way). "
        "Every second, the mean speed along each agent's walking direction of the agents "
        "within 10 m of the middle; every 10 s the lane order of those within 20 m "
        "(`lane_order`: 1 when every agent's neighbours within 0.5 m across and 10 m along "
        "walk its way, about 0 mixed). The last panel puts the runs' mean speeds beside the "
        "Jülich corridor experiments, one-way and bidirectional.\n\n")
    t.append(md_table(
        ["agents/m²", "configuration", "one-way (m/s)", "mixed (m/s)", "mixed / one-way",
         "last 20 s", "lane order (first, last)", "hashes (one-way, mixed)"],
        [(g(r["density"]), PED_LABEL[r["extension"]], "%.2f" % r["oneway_speed"],
          "%.2f" % r["mixed_speed"], "%.0f%%" % (100 * r["ratio"]),
          "%.0f%%" % (100 * r["ratio_last20"]),
          "%.2f, %.2f" % (r["lane_order_first"], r["lane_order_last"]),
          "`%s`, `%s`" % (r["hash_oneway"], r["hash_mixed"])) for r in rows]))
    uni, bi = corridor_data("fd-zhang2011-corridor"), corridor_data("fd-zhang2012-bidirectional")
    t.append("\nThe Jülich experiments at the densities of the runs (samples within ±0.25 "
             "agents/m²): %s.\n" % "; ".join(
                 "%s agents/m²: one-way %s, bidirectional %s" % (g(rho), *[
                     "%.2f m/s (%d)" % (v, n) if n else "no samples" for v, _, n in (
                         binned(d, rho - 0.25, rho + 0.25) if np.any(
                             np.abs(d[0] - rho) <= 0.25) else (0.0, 0.0, 0)
                         for d in (uni, bi))])
                 for rho in sorted({r["density"] for r in rows})))
    t.append("\nEach run: `orca run examples/validation/counterflow-D-K.txt --steps N` (K "
             "`mixed` or `oneway`; N and each configuration's options in the CSV's command "
             "columns).\n\n")
    if rep.blocks_rows:
        t.append(
            "**Two blocks.** 200 agents at 2 agents/m² (25 m of the corridor 4 m wide) walk "
            "into 200 others 10 m away and leave at the far ends; the reference is the first "
            "block alone. Speed: each agent's distance from its start to its exit over the "
            "time it took, averaged. Data: %s.\n\n" % data("counterflow-blocks"))
        t.append(md_table(
            ["configuration", "out after 120 s", "out", "last out (s)", "speed (m/s)",
             "one block alone", "ratio", "hashes (blocks, one block)"],
            [(PED_LABEL[r["extension"]], "%d of %d" % (r["out_120s"], r["agents"]),
              r["out"], "%.1f" % r["last"], "%.2f" % r["speed"], "%.2f" % r["oneway_speed"],
              "%.0f%%" % (100 * r["ratio"]), "`%s`, `%s`" % (r["hash"], r["hash_oneway"]))
             for r in rep.blocks_rows]))
        t.append("\nRuns: `orca run examples/validation/counterflow-blocks.txt --steps N` and "
                 "`counterflow-block-oneway.txt` (N and the options in the CSV).\n\n")
    return "".join(t)


def queue_text(rep, data):
    t = ["### Queues\n\nThe share of agent-steps whose linear program was infeasible (the "
         "solver's fallback) and the deepest overlap of two agents over the run (the "
         "scenario's record, in radii), in every run above with a queue. Data: %s.\n\n" %
         data("queues")]
    t.append(md_table(["run", "configuration", "fallback", "deepest overlap (r)", "hash"],
                      [(r["scene"], PED_LABEL[r["extension"]], "%.1f%%" % (100 * r["fallback"]),
                        "%.3f" % r["overlap"], "`%s`" % r["hash"]) for r in rep.queue_rows]))
    t.append("\nA queue is where ORCA's reciprocity fails: every agent in it wants to move "
             "forward, the ones in front cannot, and the half-planes of a packed neighbourhood "
             "have no common velocity, so the solver falls back to the least violation and "
             "the agents push into each other.\n\n")
    return "".join(t)


def rimea9_seeds_text(rep):
    t = ["### RiMEA 9 for several seeds\n\nThe seed of the preferred-velocity perturbation "
         "(`orca run --seed S`) and a step of 0.25 s (`--dt 0.25`) instead of the scene's "
         "0.05 s; their fallback and overlap are in the queue table.\n\n"]
    t.append(md_table(["configuration", "seed", "dt (s)", "4 exits (s)", "2 exits (s)", "ratio"],
                      [(PED_LABEL[label], s, g(dt), "%.1f" % a, "%.1f" % b, "%.2f" % (b / a))
                       for label, a, b, s, dt in rep.rimea9_runs]))
    return "".join(t) + "\n"


def exit_choice_text(rep, fig, data):
    t = ["### Exit choice\n\n![Exit choice](%s)\n\nData: %s (per exit), %s (per agent).\n\n" % (
        fig("exit-choice"), data("exit-choice"), data("exit-choice-agents"))]
    t.append(
        "1,000 agents at random in a room 40 m × 20 m leave by three exits 1.2 m wide: west "
        "(x = 0, y 9.4..10.6), north (y = 20, x 33.4..34.6) and east (x = 40, y 2.4..3.6), "
        "each agent at the nearest by path length, so their catchments are unequal. Every "
        "0.25 s each agent's exit (the set's point it heads for) is read and a change "
        "counted; the exit an agent left by is the one nearest to where it was last "
        "seen.\n\n")
    t.append(md_table(["configuration", "exit", "agents", "last departure (s)"],
                      [(row["name"], "%d at (%g, %g)" % (x["exit"], x["point"][0],
                                                          x["point"][1]),
                        x["agents"], "%.1f" % x["last"])
                       for label, row, per_exit, _, _ in rep.exit_runs for x in per_exit]))
    t.append("\n")
    for label, row, _, _, _ in rep.exit_runs:
        t.append(
            "%s: %d of %d agents out after %.1f s; %d changed exit, %d more than twice, at "
            "most %d times; the last departures lie %.0f%% apart. Run: `%s`.\n\n" % (
                row["name"], row["out"], row["agents"], row["total"], row["changed"],
                row["over_two"], row["most"], 100 * (row["spread"] - 1), row["command"]))
    t.append("Each configuration runs with the three exit choices of "
             "[navigation.md](navigation.md) (\"Exits\"): the nearest exit by path (the "
             "default), the calm choice (an agent keeps its exit unless another is quicker by a "
             "margin, at most two changes) and the quickest choice (the walking time against "
             "the queue ahead at the door's flow), the latter with the leg check. With the "
             "nearest exit the changes come from re-routing after 4 s without progress, which "
             "makes the corner of a queued door costlier and can send an agent to another exit "
             "([navigation.md](navigation.md), \"Following a path\").\n\n")
    return "".join(t)


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
        "worker count, so each number here can be reproduced to the bit. A run after which "
        "every agent has left gives the hash of its last state with agents in it (the step "
        "before the last ones left; the command stops there): the empty state is the same "
        "for every placement of a crowd. orca %s, bits "
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
             "(RiMEA 12 says so itself), or it has no published pass mark. \"met\" and \"not "
             "met\": a pedestrian target ([Pedestrian experiments](#pedestrian-experiments)); "
             "a target not met is a finding, shown with its measurement, not a failure of the "
             "suite.\n\n")

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
            "counted at the passage's middle between the 10th and the 140th agent. They leave "
            "at one point 2 m behind the passage, on which a wide stream converges again; the "
            "bottlenecks of the pedestrian experiments below exit at lines of points. Each run: "
            "`orca run examples/validation/bottleneck-W.txt --steps N` (N as in the CSV's "
            "command column; `--density-speed` for the second series).\n")
    t.append(ped_report(rep, names, fig, data))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(t))


TESTS = {"rimea1": rimea1, "rimea4": rimea4, "rimea4single": rimea4single, "rimea6": rimea6,
         "rimea9": rimea9, "rimea12": rimea12, "steersuite": steersuite,
         "bottleneck": bottleneck, "ped_bottleneck": ped_bottleneck, "liddle": liddle,
         "hermes": hermes, "fd_random": fd_random, "counterflow": counterflow,
         "exit_choice": exit_choice, "rimea_model": rimea_model, "queues": queues}
# the tests the bounded run (--quick) leaves out unless --only names them
QUICK_SKIP = ("liddle", "hermes", "exit_choice")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", help="report directory (default: docs/)")
    ap.add_argument("--check")
    ap.add_argument("--record")
    ap.add_argument("--cli")
    ap.add_argument("--only")
    ap.add_argument("--variants", help="the pedestrian experiments' configurations to measure, "
                    "comma-separated (%s; default: all, --quick: %s)" % (
                        ", ".join(v[0] for v in PED_VARIANTS), ",".join(QUICK_VARIANTS)))
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if args.quick and not args.out:
        ap.error("--quick writes its report elsewhere than docs/: give --out DIR")
    names = args.only.split(",") if args.only else [
        n for n in TESTS if not (args.quick and n in QUICK_SKIP)]
    for n in names:
        if n not in TESTS:
            ap.error("unknown test %r (%s)" % (n, ", ".join(TESTS)))
    for v in args.variants.split(",") if args.variants else []:
        if v not in [p[0] for p in PED_VARIANTS]:
            ap.error("unknown configuration %r in --variants (%s)" % (
                v, ", ".join(p[0] for p in PED_VARIANTS)))
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
