#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A script in the style of Python-RVO2's examples, run by orca's drop-in.

For Python-RVO2 the first line would read `import rvo2`; with orca it is the only change.
Eight agents start on a circle around a square pillar and walk to the opposite side; the
script prints the time and every agent's position every ten steps.
"""
from orca import rvo2

# time step 1/10 s, neighbour distance 3 m, 6 neighbours, time horizons 2 s and 1 s,
# radius 0.4 m, maximum speed 1.5 m/s
sim = rvo2.PyRVOSimulator(1 / 10., 3.0, 6, 2.0, 1.0, 0.4, 1.5)

starts = [(6.0, 0.0), (4.24, 4.24), (0.0, 6.0), (-4.24, 4.24),
          (-6.0, 0.0), (-4.24, -4.24), (0.0, -6.0), (4.24, -4.24)]
agents = [sim.addAgent(p) for p in starts]
goals = [(-x, -y) for (x, y) in starts]

# a square pillar, counterclockwise, as RVO2 wants its polygons
sim.addObstacle([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)])
sim.processObstacles()

print("Simulation has %i agents and %i obstacle vertices in it." %
      (sim.getNumAgents(), sim.getNumObstacleVertices()))
print("Running simulation")

for step in range(200):
    for a, (gx, gy) in zip(agents, goals):
        x, y = sim.getAgentPosition(a)
        dx, dy = gx - x, gy - y
        dist = (dx * dx + dy * dy) ** 0.5
        speed = min(1.5, dist / sim.getTimeStep())
        if dist > 0:
            # toward the goal, with a slight lean to the right so that nobody stays
            # stuck head-on against the pillar
            ux, uy = dx / dist, dy / dist
            sim.setAgentPrefVelocity(a, ((ux + 0.1 * uy) * speed, (uy - 0.1 * ux) * speed))
        else:
            sim.setAgentPrefVelocity(a, (0, 0))
    sim.doStep()
    if step % 10 == 9:
        positions = ["(%5.2f, %5.2f)" % sim.getAgentPosition(a) for a in agents]
        print("step=%3i  t=%.2f  %s" % (step + 1, sim.getGlobalTime(), " ".join(positions)))
