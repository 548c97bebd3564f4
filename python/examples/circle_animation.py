#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The antipodal circle (docs/scenarios.md) as an animation: GIF (Pillow) or MP4 (ffmpeg).

Usage: python3 circle_animation.py [OUT.gif|OUT.mp4] [agents, default 100]
Needs Debian's python3-matplotlib (and python3-pil for GIF, ffmpeg for MP4). Prints the
state hash at the end: with 100 agents and 400 steps it is the golden 4be6d7e7a7e24a3a.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.animation import FFMpegWriter, FuncAnimation, PillowWriter  # noqa: E402

import orca  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "circle.gif"
agents = int(sys.argv[2]) if len(sys.argv) > 2 else 100
steps = 400
every = 4  # a frame every 4 steps (1 s of simulated time)

sc = orca.Scenario("circle", agents=agents, seed=1)
sim = sc.simulation
radius = sim.agent(0).radius
extent = max(abs(sim.positions).max(), 1.0) + 2 * radius

fig, ax = plt.subplots(figsize=(5, 5), dpi=80)
ax.set_xlim(-extent, extent)
ax.set_ylim(-extent, extent)
ax.set_aspect("equal")
ax.set_xticks([])
ax.set_yticks([])
pos = sim.positions
dots = ax.scatter(pos[:, 0], pos[:, 1], s=(radius * 72 * 5 / (2 * extent)) ** 2 * 3.14,
                  c=range(sim.agent_count), cmap="hsv")
title = ax.set_title("")


def frame(k):
    if k > 0:
        sc.step(every)
    dots.set_offsets(sim.positions)
    title.set_text("orca circle, %d agents, step %d" % (sim.agent_count, sim.step_count))
    return dots, title


anim = FuncAnimation(fig, frame, frames=steps // every + 1, blit=False)
writer = FFMpegWriter(fps=25) if out.endswith(".mp4") else PillowWriter(fps=25)
anim.save(out, writer=writer)
print("wrote %s: %d steps, state hash %s" % (out, sim.step_count, sim.hexhash()))
