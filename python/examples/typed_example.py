# SPDX-License-Identifier: MIT
"""A typed program using orca's API, checked by `mypy --strict` against the stubs
(python/orca/__init__.pyi, rvo2.pyi; scripts/test-python). Prints the circle's state hash at
step 400 and a few values of a small simulator."""
from typing import List

import numpy as np
import numpy.typing as npt

import orca
from orca import rvo2


def circle_hash(steps: int) -> str:
    sc: orca.Scenario = orca.Scenario("circle", agents=100, seed=1)
    sc.step(steps)
    return sc.hexhash()


def walk() -> List[float]:
    sim = orca.Simulator(workers=1)
    a: orca.Agent = sim.add_agent((0.0, 0.0), radius=0.5, max_speed=1.0,
                                  preferred_velocity=(1.0, 0.0))
    sim.add_segment((3.0, -1.0), (3.0, 1.0))
    sim.step(0.25, steps=8)
    pos: npt.NDArray[np.float64] = sim.positions
    x, y = a.position
    return [float(pos[0, 0]), x, y]


def drop_in() -> float:
    sim = rvo2.PyRVOSimulator(0.25, 15.0, 10, 10.0, 10.0, 1.5, 2.0)
    i = sim.addAgent((0.0, 0.0))
    sim.setAgentPrefVelocity(i, (1.0, 0.0))
    sim.doStep()
    return sim.getAgentPosition(i)[0]


if __name__ == "__main__":
    print("circle hash at step 400:", circle_hash(400))
    print("walk:", walk())
    print("drop-in x:", drop_in())
