# SPDX-License-Identifier: MIT
"""A drop-in for Python-RVO2's ``rvo2`` module: ``from orca import rvo2``.

``rvo2.PyRVOSimulator`` has the constructor and methods of Python-RVO2's class of the same
name, so a script written for Python-RVO2 runs after changing its import line. Underneath
is an orca.Simulator: binary64 and deterministic (the same bits on every machine and for
any worker count), so the numbers are orca's, not RVO2's. The differences
(docs/python.md, "The rvo2 drop-in", lists them all):

- Obstacles: RVO2's polygons are one-sided (agents are kept outside a counterclockwise
  polygon); orca's segments are two-sided. addObstacle maps a polygon of n >= 3 vertices to
  its n edges (a closed polyline) and two vertices to one segment. As in RVO2, obstacles
  take effect at processObstacles().
- Values are checked: a negative radius, NaN, an out-of-range agent number and the like
  raise (orca.ArgumentError, a ValueError; IndexError) where RVO2 would go on or crash.
- The neighbour and ORCA-line getters report what the last doStep() used, as in RVO2: the
  simulator keeps a snapshot of the state before each step (one save(), linear in the agent
  count; PyRVOSimulator(..., record_neighbors=False) turns it off, and the getters then
  raise RuntimeError). The lines are orca's half-planes (docs/algorithm.md §6) written as
  RVO2 lines: a point and a direction with the permitted side on the left.
- queryVisibility is not provided (it raises NotImplementedError): orca has no visibility
  query, and an answer computed differently from RVO2's would look right and not be.
"""
import struct as _struct

import orca as _orca
from orca import _core

__all__ = ["PyRVOSimulator"]


def _pair(v, name):
    try:
        x, y = v
    except (TypeError, ValueError):
        raise TypeError("%s must be a pair (x, y), got %r" % (name, v)) from None
    return (x, y)


class PyRVOSimulator:
    """PyRVOSimulator(timeStep, neighborDist, maxNeighbors, timeHorizon, timeHorizonObst,
    radius, maxSpeed, velocity=(0, 0)): the step length and the defaults of new agents, as
    in Python-RVO2. Extra keyword arguments: workers (threads of a step, 1..64; same bits)
    and record_neighbors (see the module's docstring)."""

    def __init__(self, timeStep, neighborDist, maxNeighbors, timeHorizon, timeHorizonObst,
                 radius, maxSpeed, velocity=(0, 0), *, workers=1, record_neighbors=True):
        self._sim = _orca.Simulator(workers=workers)
        self._handles = []  # agent number -> handle (agents are never removed here)
        self._pending = []  # obstacles added since the last processObstacles
        self._vertices = []  # every obstacle vertex: (x, y)
        self._next = []  # vertex number -> next vertex number in its obstacle
        self._prev = []
        self._seg_vertex = []  # segment index -> vertex number of its first end
        self._time = 0.0
        self._record = bool(record_neighbors)
        self._before = None  # snapshot before the last step
        self._before_dt = None
        self._before_sim = None
        self._cache = {}
        self.setTimeStep(timeStep)
        self.setAgentDefaults(neighborDist, maxNeighbors, timeHorizon, timeHorizonObst, radius,
                              maxSpeed, velocity)

    # --- setup ---------------------------------------------------------------------------

    def setTimeStep(self, timeStep):
        """Sets the step length (s); checked at once (orca.ArgumentError when out of range)."""
        dt = float(timeStep)
        if not (_orca.TIME_MIN <= dt <= _orca.TIME_MAX):
            raise _orca.ArgumentError("timeStep must be in [2^-30, 2^30] s, got %r" % (timeStep,))
        self._dt = dt

    def setAgentDefaults(self, neighbor_dist, max_neighbors, time_horizon, time_horizon_obst,
                         radius, max_speed, velocity=(0, 0)):
        """The parameters addAgent(pos) gives new agents; checked at once by the library."""
        d = dict(neighbor_dist=neighbor_dist, max_neighbors=max_neighbors,
                 time_horizon=time_horizon, obstacle_time_horizon=time_horizon_obst,
                 radius=radius, max_speed=max_speed, velocity=_pair(velocity, "velocity"))
        probe = _orca.Simulator()
        probe.add_agent((0.0, 0.0), **d)  # raises with the library's message if out of range
        self._defaults = d

    def addAgent(self, pos, neighborDist=None, maxNeighbors=None, timeHorizon=None,
                 timeHorizonObst=None, radius=None, maxSpeed=None, velocity=None):
        """Adds an agent at pos with the defaults, or with the parameters given; returns its
        number (0, 1, ...). Python-RVO2 asks for all parameters or none; here any parameter
        left out (None) takes its default."""
        d = dict(self._defaults)
        for key, value in (("neighbor_dist", neighborDist), ("max_neighbors", maxNeighbors),
                           ("time_horizon", timeHorizon),
                           ("obstacle_time_horizon", timeHorizonObst), ("radius", radius),
                           ("max_speed", maxSpeed)):
            if value is not None:
                d[key] = value
        if velocity is not None:
            d["velocity"] = _pair(velocity, "velocity")
        agent = self._sim.add_agent(_pair(pos, "pos"), **d)
        self._handles.append(agent.handle)
        return len(self._handles) - 1

    def addObstacle(self, vertices):
        """Adds an obstacle (a list of (x, y) vertices: a polygon, or two vertices for a
        segment); returns the number of its first vertex. It takes effect at
        processObstacles(). orca's segments are two-sided (see the module's docstring)."""
        pts = [tuple(float(c) for c in _pair(v, "vertex")) for v in vertices]
        if len(pts) < 2:
            raise _orca.ArgumentError("an obstacle needs at least 2 vertices, got %d" % len(pts))
        probe = _orca.Simulator()
        probe.add_polyline(pts, closed=len(pts) > 2)  # checks every vertex now
        first = len(self._vertices)
        n = len(pts)
        for k, p in enumerate(pts):
            self._vertices.append(p)
            self._next.append(first + (k + 1) % n)
            self._prev.append(first + (k - 1) % n)
        self._pending.append((first, pts))
        return first

    def processObstacles(self):
        """Puts the obstacles added since the last call into the simulation."""
        for first, pts in self._pending:
            closed = len(pts) > 2
            self._sim.add_polyline(pts, closed=closed)
            for k in range(len(pts) if closed else 1):
                self._seg_vertex.append(first + k)
        self._pending = []

    # --- stepping ------------------------------------------------------------------------

    def doStep(self):
        """One step of timeStep (the GIL is released while it runs)."""
        if self._record:
            self._before = self._sim.save()
            self._before_dt = self._dt
            self._before_sim = None
            self._cache = {}
        _core.Sim.step(self._sim, self._dt, 1)
        self._time += self._dt

    def getGlobalTime(self):
        """Sum of the steps taken (s)."""
        return self._time

    def getTimeStep(self):
        """The step length (s)."""
        return self._dt

    def getNumAgents(self):
        """Number of agents."""
        return len(self._handles)

    # --- agents --------------------------------------------------------------------------

    def _h(self, agent_no):
        if isinstance(agent_no, bool) or not hasattr(agent_no, "__index__"):
            raise TypeError("agent number must be an integer, got %r" % (agent_no,))
        i = agent_no.__index__()
        if not 0 <= i < len(self._handles):
            n = len(self._handles)
            raise IndexError("agent number %d out of range (%d agent%s)" % (i, n, "" if n == 1 else "s"))
        return self._handles[i]

    def getAgentPosition(self, agent_no):
        """(x, y)."""
        return _core.Sim.get_position(self._sim, self._h(agent_no))

    def getAgentVelocity(self, agent_no):
        """(x, y)."""
        return _core.Sim.get_velocity(self._sim, self._h(agent_no))

    def getAgentPrefVelocity(self, agent_no):
        """(x, y)."""
        return _core.Sim.agent_get(self._sim, self._h(agent_no))[2]

    def _field(self, agent_no, i):
        return _core.Sim.agent_get(self._sim, self._h(agent_no))[i]

    def getAgentRadius(self, agent_no):
        return self._field(agent_no, 3)

    def getAgentMaxSpeed(self, agent_no):
        return self._field(agent_no, 4)

    def getAgentNeighborDist(self, agent_no):
        return self._field(agent_no, 5)

    def getAgentMaxNeighbors(self, agent_no):
        return self._field(agent_no, 6)

    def getAgentTimeHorizon(self, agent_no):
        return self._field(agent_no, 7)

    def getAgentTimeHorizonObst(self, agent_no):
        return self._field(agent_no, 8)

    def setAgentPosition(self, agent_no, position):
        _core.Sim.set_position(self._sim, self._h(agent_no), position)

    def setAgentVelocity(self, agent_no, velocity):
        _core.Sim.set_velocity(self._sim, self._h(agent_no), velocity)

    def setAgentPrefVelocity(self, agent_no, velocity):
        _core.Sim.set_preferred_velocity(self._sim, self._h(agent_no), velocity)

    def setAgentRadius(self, agent_no, radius):
        _core.Sim.agent_set(self._sim, self._h(agent_no), radius=radius)

    def setAgentMaxSpeed(self, agent_no, max_speed):
        _core.Sim.agent_set(self._sim, self._h(agent_no), max_speed=max_speed)

    def setAgentNeighborDist(self, agent_no, neighbor_dist):
        _core.Sim.agent_set(self._sim, self._h(agent_no), neighbor_dist=neighbor_dist)

    def setAgentMaxNeighbors(self, agent_no, max_neighbors):
        _core.Sim.agent_set(self._sim, self._h(agent_no), max_neighbors=max_neighbors)

    def setAgentTimeHorizon(self, agent_no, time_horizon):
        _core.Sim.agent_set(self._sim, self._h(agent_no), time_horizon=time_horizon)

    def setAgentTimeHorizonObst(self, agent_no, timeHorizonObst):
        _core.Sim.agent_set(self._sim, self._h(agent_no), obstacle_time_horizon=timeHorizonObst)

    # --- what the last step used -------------------------------------------------------------

    def _last(self, agent_no):
        """(agent neighbours, segment neighbours, lines) of the agent in the last step."""
        h = self._h(agent_no)
        if not self._record:
            raise RuntimeError("neighbour and ORCA-line getters need record_neighbors=True "
                               "(PyRVOSimulator(..., record_neighbors=True))")
        got = self._cache.get(h)
        if got is not None:
            return got
        if self._before is None:
            got = ([], [], [])  # before the first step: nothing computed yet (as RVO2)
        else:
            if self._before_sim is None:
                self._before_sim = _orca.Simulator()
                self._before_sim.load(self._before)
            before = self._before_sim
            # the same slot and generation under the copy's identity (handles carry theirs)
            hb = (before.sim_id << 64) | (h & 0xffffffffffffffff)
            if _core.Sim.agent_index(before, hb) < 0:
                got = ([], [], [])  # added after the last step
            else:
                agents, segs = _core.Sim.agent_neighbors(before, hb)
                raw, _hard = _core.Sim.agent_constraints(before, hb, self._before_dt)
                vals = _struct.unpack("=%dd" % (len(raw) // 8), bytes(raw))
                lines = []
                for k in range(0, len(vals), 4):
                    px, py, nx, ny = vals[k:k + 4]
                    # permitted side {v : (v - p) . n >= 0} = left of direction (n.y, -n.x)
                    lines.append((px, py, ny, -nx))
                got = (agents, segs, lines)
        self._cache[h] = got
        return got

    def getAgentNumAgentNeighbors(self, agent_no):
        """Number of agents the last step considered for this agent."""
        return len(self._last(agent_no)[0])

    def getAgentAgentNeighbor(self, agent_no, neighbor_no):
        """Agent number of the neighbor_no-th neighbour in the last step (nearest first)."""
        return self._last(agent_no)[0][neighbor_no]

    def getAgentNumObstacleNeighbors(self, agent_no):
        """Number of obstacle segments the last step considered for this agent."""
        return len(self._last(agent_no)[1])

    def getAgentObstacleNeighbor(self, agent_no, obstacle_no):
        """Vertex number of the first end of the obstacle_no-th obstacle edge the last step
        considered (RVO2 numbers edges by their first vertex)."""
        return self._seg_vertex[self._last(agent_no)[1][obstacle_no]]

    def getAgentNumORCALines(self, agent_no):
        """Number of ORCA lines in the last step (obstacle lines first, as in RVO2)."""
        return len(self._last(agent_no)[2])

    def getAgentORCALine(self, agent_no, line_no):
        """(point.x, point.y, direction.x, direction.y) of an ORCA line of the last step;
        permitted velocities are on the left of direction."""
        return self._last(agent_no)[2][line_no]

    # --- obstacles -----------------------------------------------------------------------

    def getNumObstacleVertices(self):
        return len(self._vertices)

    def getObstacleVertex(self, vertex_no):
        return self._vertices[vertex_no]

    def getNextObstacleVertexNo(self, vertex_no):
        return self._next[vertex_no]

    def getPrevObstacleVertexNo(self, vertex_no):
        return self._prev[vertex_no]

    def queryVisibility(self, point1, point2, radius=0.0):
        """Not provided: orca has no visibility query (see the module's docstring)."""
        raise NotImplementedError("orca.rvo2: queryVisibility is not supported (orca has no "
                                  "visibility query; see docs/python.md)")

    # --- orca extras ---------------------------------------------------------------------

    @property
    def simulator(self):
        """The orca.Simulator underneath (agent number i is its agent at index i)."""
        return self._sim
