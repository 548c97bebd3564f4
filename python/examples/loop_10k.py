#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The loop of a learning environment: 10,000 agents whose preferred velocities come from
NumPy every step (here: to a goal, with a swirl), stepped by orca, positions read back in
bulk. Prints the throughput and the final state hash (the same on every machine).

Usage: python3 loop_10k.py [agents, default 10000] [steps, default 100] [workers, default 1]
"""
import sys
import time

import numpy as np

import orca

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
workers = int(sys.argv[3]) if len(sys.argv) > 3 else 1

side = 4.0 * np.sqrt(n)
# a grid of starts (no randomness: the run is reproducible to the bit)
k = int(np.ceil(np.sqrt(n)))
ij = np.stack(np.divmod(np.arange(n), k), axis=1).astype(np.float64)
starts = (ij + 0.5) * (side / k) - side / 2
goals = -starts  # everyone to the mirror point: the crowd crosses the centre

sim = orca.Simulator(workers=workers)
sim.add_agents(starts, radius=0.5, max_speed=2.0, neighbor_dist=5.0, max_neighbors=10,
               time_horizon=2.0, obstacle_time_horizon=2.0)

pos = np.empty((n, 2))
pref = np.empty((n, 2))
t0 = time.perf_counter()
for step in range(steps):
    sim.get_positions(out=pos)  # no allocation: the same array every step
    to = goals - pos
    dist = np.sqrt(to[:, 0] * to[:, 0] + to[:, 1] * to[:, 1])
    scale = np.minimum(1.5, dist) / np.maximum(dist, 1e-9)
    pref[:, 0] = to[:, 0] * scale - 0.2 * to[:, 1] * scale
    pref[:, 1] = to[:, 1] * scale + 0.2 * to[:, 0] * scale
    sim.set_preferred_velocities(pref)
    sim.step(0.1)
elapsed = time.perf_counter() - t0
done = np.count_nonzero(np.hypot(*(goals - sim.positions).T) < 1.0)
print("%d agents, %d steps in %.2f s: %.2f M agent-steps/s; %d at their goal; hash %s"
      % (n, steps, elapsed, n * steps / elapsed / 1e6, done, sim.hexhash()))
