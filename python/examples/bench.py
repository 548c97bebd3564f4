#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Throughput through Python, printed, never judged (docs/python.md, "Benchmark").

For each size of the random scene (the one `orca bench` times): warm up 20 steps, then time
  C        the scenario stepping itself (recording off: what `orca bench` times), one call
           for all steps: the library's own figure, measured in this process;
  Python   a learning-loop step: read every position into a reused array, compute every
           preferred velocity with NumPy (to the goal at speed 1), set them in bulk, step;
  binding  of that loop, the share spent in the binding's bulk calls (reading positions and
           setting preferred velocities), apart from the user's NumPy arithmetic.

Usage: python3 bench.py [sizes, default 1000,10000,100000] [workers, default 1]
"""
import sys
import time

import numpy as np

import orca


def best_of(runs, fn):
    best = None
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        t = time.perf_counter() - t0
        best = t if best is None or t < best else best
    return best


def bench(n, workers):
    steps = max(10, min(200, 2000000 // n))
    sc = orca.Scenario("random", agents=n, seed=1, workers=workers)
    sc.set_recording(False)
    sc.step(20)
    sim = sc.simulation
    n = sim.agent_count
    goals = np.array([sc.agent_goal(i)["target"] for i in range(n)])
    dt = sc.dt
    start = sim.save()

    def c_run():
        sim.load(start)
        sc.step(steps)

    t_c = best_of(3, c_run)

    pos = np.empty((n, 2))
    pref = np.empty((n, 2))

    def py_run():
        sim.load(start)
        for _ in range(steps):
            sim.get_positions(out=pos)
            np.subtract(goals, pos, out=pref)
            d = np.sqrt(pref[:, 0] * pref[:, 0] + pref[:, 1] * pref[:, 1])
            np.maximum(d, 1.0, out=d)
            np.divide(pref, d[:, None], out=pref)
            sim.set_preferred_velocities(pref)
            sim.step(dt)

    t_py = best_of(3, py_run)

    def binding_only():
        for _ in range(steps):
            sim.get_positions(out=pos)
            sim.set_preferred_velocities(pref)

    t_bind = best_of(3, binding_only)
    def copies():
        for _ in range(steps):
            sim.positions  # a new array each time, dropped at once

    copy = best_of(3, copies)
    rate_c = n * steps / t_c
    rate_py = n * steps / t_py
    print("%8d agents  %d worker(s)  %4d steps  C %6.2f M agent-steps/s   Python loop %6.2f M/s"
          "   bulk calls %5.2f%% of the step (%.3f ms/step), positions copy %.3f ms"
          % (n, workers, steps, rate_c / 1e6, rate_py / 1e6, 100.0 * t_bind / t_c,
             1000.0 * t_bind / steps, 1000.0 * copy / steps))


def main():
    sizes = [int(x) for x in (sys.argv[1] if len(sys.argv) > 1 else "1000,10000,100000").split(",")]
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    print("orca %s (library %s), vector kernels: %s" % (orca.__version__, orca.library_version,
                                                        orca.kernels_available()))
    for n in sizes:
        bench(n, workers)


if __name__ == "__main__":
    main()
