# SPDX-License-Identifier: MIT
"""orca: deterministic optimal reciprocal collision avoidance (ORCA), bit for bit the C library.

The simulation runs in the orca C library (compiled into ``orca._core`` with the library's
own arithmetic flags), so a Python program computes the same bits as ``orca run`` and as
every other build of orca, for any worker count. docs/python.md is the full reference.

Five lines::

    import orca
    sim = orca.Simulator()
    a = sim.add_agent((0, 0), radius=0.5, max_speed=1, preferred_velocity=(1, 0))
    sim.step(0.25, steps=10)
    print(a.position, hex(sim.hash()))

Arrays (``positions``, ``velocities``, the building blocks' planes) are NumPy arrays of
float64; NumPy is imported only when one of them is used. Everything else works without it.
"""
import threading as _threading
import types as _types
from collections import namedtuple as _namedtuple

from . import _core
from ._core import (ArgumentError, Error, ForeignHandleError, FormatError, LimitError,
                    OutOfMemoryError, StaleHandleError)

__all__ = [
    "AGENT_DEFAULTS", "Agent", "AgentDiagnostics", "ArgumentError", "Avoidance", "Boundary",
    "Error", "Exited", "ForeignHandleError", "FormatError", "GOAL_DEFAULTS", "LimitError",
    "NavPath", "NavStats", "Navigator", "OutOfMemoryError", "PEDESTRIAN_AGENT",
    "PEDESTRIAN_DEFAULTS", "PEDESTRIAN_DT", "SCENES", "Scenario", "Segment", "Simulator",
    "StaleHandleError", "StepDiagnostics", "constraint_agent",
    "constraint_boundary", "constraint_segment", "halfplane_signed_distance",
    "kernels_available", "lp_fallback", "lp_solve", "nav_path", "pedestrian_free_speed",
    "read_scene",
    "segment_distance_squared",
    "sincos_turns",
    "solve", "vo_overlap", "vo_support", "library_version", "bits_version", "__version__",
]

__version__ = "0.3.0"
#: Version of the C library compiled into the module.
library_version = _core.library_version
#: Bits version of the C library: the same bits version gives the same state hash for the same
#: run on every machine (docs/install.md, "Versions").
bits_version = _core.bits_version

#: Names of the built-in scenes (docs/scenarios.md).
SCENES = ("circle", "crossing", "wallgap", "corridor", "random")

COORD_LIMIT = _core.COORD_LIMIT
RADIUS_MIN = _core.RADIUS_MIN
RADIUS_MAX = _core.RADIUS_MAX
NEIGHBOR_DIST_MAX = _core.NEIGHBOR_DIST_MAX
SPEED_MAX = _core.SPEED_MAX
VELOCITY_LIMIT = _core.VELOCITY_LIMIT
TIME_MIN = _core.TIME_MIN
TIME_MAX = _core.TIME_MAX
MAX_NEIGHBORS_LIMIT = _core.MAX_NEIGHBORS_LIMIT
MAX_WORKERS = _core.MAX_WORKERS
PRIORITY_MIN = _core.PRIORITY_MIN
PRIORITY_MAX = _core.PRIORITY_MAX
AGENTS_MAX = _core.AGENTS_MAX
SEGMENTS_MAX = _core.SEGMENTS_MAX
BOUNDARY_EDGES_MAX = _core.BOUNDARY_EDGES_MAX
WAYPOINTS_MAX = _core.WAYPOINTS_MAX
#: The most points of a goal set and goals of a path query (ORCA_NAV_GOALS_MAX).
NAV_GOALS_MAX = _core.NAV_GOALS_MAX

#: The defaults of every agent parameter, read from the C library (orca_agent_def_default):
#: the one set of defaults of docs/scenarios.md ("Defaults"), shared with scene files and the
#: browser module. Read-only.
AGENT_DEFAULTS = _types.MappingProxyType(_core.agent_def_default())
#: The default goal (orca_goal_default): 'none', and a point goal's preferred_speed when none
#: is given. Read-only.
GOAL_DEFAULTS = _types.MappingProxyType(_core.goal_default())
_AD = AGENT_DEFAULTS

# --- the pedestrian model and preset (docs/pedestrians.md) ---------------------------------

#: The pedestrian model's default parameters (orca_pedestrian_default): time_gap 0.5 s,
#: buffer 0.02 m, counter_reach 2 m, max_planes 4. Read-only.
PEDESTRIAN_DEFAULTS = _types.MappingProxyType(_core.pedestrian_default())
#: The pedestrian preset's agent (orca_pedestrian_agent_def): the defaults a Scenario's
#: add_agent uses while the pedestrian model is on. Read-only.
PEDESTRIAN_AGENT = _types.MappingProxyType(_core.pedestrian_agent())
#: The preset's step (s) when a scenario gives none (ORCA_PEDESTRIAN_DT).
PEDESTRIAN_DT = _core.PEDESTRIAN_DT


def pedestrian_free_speed(seed, key):
    """The pedestrian preset's free walking speed (m/s) of the agent with key `key` (its
    creation ordinal in the scenario) in a scenario of seed `seed`: Weidmann's N(1.34, 0.26)
    drawn without libm and clamped to [0.7, 2.0] (orca_pedestrian_free_speed)."""
    return _core.pedestrian_free_speed(seed, key)


def _checked_stream(stream):
    """None, or the stream after the library's check (before anything is added)."""
    return None if stream is None else _core.check_stream(stream)


def _apply_stream(sim, handles, stream):
    """Gives the agents just added the checked stream; if the library still refuses (out of
    memory only), they are removed again and the error raised."""
    try:
        for h in handles:
            _core.Sim.agent_set_stream(sim, h, stream)
    except BaseException:
        for h in reversed(handles):
            _core.Sim.remove_agent(sim, h)
        raise

_np = None
_np_lock = _threading.Lock()


def _numpy():
    """NumPy, imported on first use; a clear ImportError when it is not installed."""
    global _np
    if _np is None:
        with _np_lock:
            try:
                import numpy
            except ImportError as e:  # pragma: no cover - depends on the interpreter
                raise ImportError(
                    "orca: this call returns NumPy arrays and NumPy is not installed for this "
                    "interpreter (Debian: apt-get install python3-numpy, for /usr/bin/python3); "
                    "without it, get_positions(out=...) and get_velocities(out=...) fill any "
                    "writable float64 buffer, e.g. array.array('d')") from e
            _np = numpy
    return _np


def _as_array(raw, cols):
    np = _numpy()
    return np.frombuffer(raw, dtype=np.float64).reshape(-1, cols)


def _read(reader, sim):
    """A new (n, 2) array filled by one of the bulk readers."""
    np = _numpy()
    out = np.empty((_core.Sim.agent_count(sim), 2))
    reader(sim, out)
    return out


_AGENT_FIELDS = ("position", "velocity", "preferred_velocity", "radius", "max_speed",
                 "neighbor_dist", "max_neighbors", "time_horizon", "obstacle_time_horizon")


# --- avoidance extensions and diagnostics (docs/extensions.md; issue 16) -------------------

#: An agent's avoidance settings (orca_agent_avoidance): priority (2^-30 .. 2^30, default 1; a
#: higher priority yields less), layers (32-bit mask, default 1), mask (the layers of the agents
#: it considers, default 0xFFFFFFFF), locked (bool, default False).
Avoidance = _namedtuple("Avoidance", "priority layers mask locked")
#: What the last step with diagnostics on did for one agent (orca_agent_diagnostics).
AgentDiagnostics = _namedtuple("AgentDiagnostics", "fallback failed_constraint neighbor_count "
                               "candidates neighbors_cut blocked locked headway_planes "
                               "counter_mode")
#: Counts over all agents of the last step with diagnostics on (orca_step_diagnostics).
StepDiagnostics = _namedtuple("StepDiagnostics", "agents fallback cut blocked locked headway "
                              "counter")

_AVOIDANCE_KEYS = ("priority", "layers", "mask", "locked")


def _avoidance(t):
    return Avoidance(t[0], t[1], t[2], bool(t[3]))


def _checked_avoidance(priority, layers, mask, locked):
    """None when no setting is given, else the settings (defaults for the others) after the
    library's check, so that a refusal comes before anything is added."""
    if priority is None and layers is None and mask is None and locked is None:
        return None
    return _core.check_avoidance(priority, layers, mask, locked)


def _pop_avoidance(params):
    return _checked_avoidance(*(params.pop(k, None) for k in _AVOIDANCE_KEYS))


def _apply_avoidance(sim, handles, av):
    """Gives the agents just added the checked settings av; if the library still refuses (out
    of memory only), they are removed again and the error raised."""
    try:
        for h in handles:
            _core.Sim.agent_set_avoidance(sim, h, *av)
    except BaseException:
        for h in reversed(handles):
            _core.Sim.remove_agent(sim, h)
        raise


def _handle(obj, kind):
    if isinstance(obj, kind):
        return obj._h
    raise TypeError("expected an orca.%s handle, got %s" % (kind.__name__, type(obj).__name__))


def _handles(items, kind, call):
    """The raw handles of a batch, its length checked against the library's limit before any
    item is read (issue 27, item 9)."""
    if not hasattr(items, "__len__"):
        items = list(items)
    _core._check_handle_count(call, len(items), kind is not Agent)
    return [_handle(a, kind) for a in items]


def _rehandle(cls, sim, slot, generation):
    """A handle of sim for the object in slot with generation (unpickling: the simulator
    unpickled with it is a new simulation, with its own identity)."""
    return cls(sim, (sim.sim_id << 64) | (generation << 32) | slot)


class _Handle:
    """What the handles of agents, segments and boundary loops share: the simulator and the
    raw handle, an int sim_id << 64 | generation << 32 | slot carrying the identity of the
    simulation that issued it (orca_sim_id). A handle used with another simulation raises
    orca.ForeignHandleError and changes nothing. Handles compare equal (and hash alike) by
    value: the same kind, slot, generation and simulation."""

    __slots__ = ("_sim", "_h")

    def __init__(self, sim, handle):
        self._sim = sim
        self._h = handle

    @property
    def handle(self):
        """The raw handle: sim_id << 64 | generation << 32 | slot."""
        return self._h

    @property
    def simulator(self):
        """The Simulator this handle belongs to."""
        return self._sim

    slot = property(lambda self: self._h & 0xffffffff, doc="The slot (part of the handle).")
    generation = property(lambda self: (self._h >> 32) & 0xffffffff,
                          doc="The slot's generation (part of the handle).")
    sim_id = property(lambda self: self._h >> 64,
                      doc="The identity of the simulation that issued it (Simulator.sim_id).")

    def __eq__(self, other):
        return type(other) is type(self) and other._h == self._h

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self).__name__, self._h))

    def __reduce__(self):
        return (_rehandle, (type(self), self._sim, self.slot, self.generation))

    def _fields(self):
        return "slot=%d generation=%d sim=%d" % (self.slot, self.generation, self.sim_id)

    def __repr__(self):
        return "<orca.%s %s>" % (type(self).__name__, self._fields())


class Agent(_Handle):
    """Handle of an agent of a Simulator (slot, generation and the simulation's identity: a
    handle that outlived its agent raises orca.StaleHandleError, one of another simulation
    orca.ForeignHandleError; it never reaches another agent).

    The properties read and write the agent in the simulation; every write is checked by
    the library first and a refused write changes nothing.
    """

    __slots__ = ()

    @property
    def index(self):
        """Index of the agent in index order (the row in positions), -1 once removed."""
        return _core.Sim.agent_index(self._sim, self._h)

    @property
    def alive(self):
        """False once the agent was removed (or a load() dropped it)."""
        return self.index >= 0

    def get(self):
        """Every field as a dict (position, velocity, preferred_velocity as (x, y) tuples)."""
        return dict(zip(_AGENT_FIELDS, _core.Sim.agent_get(self._sim, self._h)))

    def set(self, **fields):
        """Changes the fields given (names as in Simulator.add_agent), all checked first."""
        _core.Sim.agent_set(self._sim, self._h, **fields)

    @property
    def position(self):
        """(x, y) in metres."""
        return _core.Sim.get_position(self._sim, self._h)

    @position.setter
    def position(self, value):
        _core.Sim.set_position(self._sim, self._h, value)

    @property
    def velocity(self):
        """(x, y) in metres per second."""
        return _core.Sim.get_velocity(self._sim, self._h)

    @velocity.setter
    def velocity(self, value):
        _core.Sim.set_velocity(self._sim, self._h, value)

    @property
    def preferred_velocity(self):
        """(x, y) in metres per second: what the agent would like to do in the next step."""
        return _core.Sim.agent_get(self._sim, self._h)[2]

    @preferred_velocity.setter
    def preferred_velocity(self, value):
        _core.Sim.set_preferred_velocity(self._sim, self._h, value)

    def _field(i, name, doc):
        def fget(self):
            return _core.Sim.agent_get(self._sim, self._h)[i]

        def fset(self, value):
            _core.Sim.agent_set(self._sim, self._h, **{name: value})

        return property(fget, fset, doc=doc)

    radius = _field(3, "radius", "Radius in metres, [2^-30, 2^21].")
    max_speed = _field(4, "max_speed", "Largest speed in m/s, [0, 2^30].")
    neighbor_dist = _field(5, "neighbor_dist", "Other agents closer than this are considered "
                           "(m, [0, 2^23]).")
    max_neighbors = _field(6, "max_neighbors", "Most agents considered, [0, 1024].")
    time_horizon = _field(7, "time_horizon", "Agent time horizon in s, [2^-30, 2^30].")
    obstacle_time_horizon = _field(8, "obstacle_time_horizon",
                                   "Obstacle time horizon in s, [2^-30, 2^30].")
    del _field

    # --- avoidance extensions and diagnostics (docs/extensions.md; issue 16) ---------------

    @property
    def avoidance(self):
        """The agent's Avoidance(priority, layers, mask, locked)."""
        return _avoidance(_core.Sim.agent_avoidance(self._sim, self._h))

    def set_avoidance(self, priority=None, layers=None, mask=None, locked=None):
        """Changes the settings given (the others are kept) in one checked write: a refused
        value raises orca.ArgumentError with the library's message and changes nothing."""
        _core.Sim.agent_set_avoidance(self._sim, self._h, priority, layers, mask, locked)

    @property
    def priority(self):
        """Share of avoidance: against B the agent takes p_B / (p_A + p_B); 2^-30 .. 2^30,
        default 1 (a higher priority yields less)."""
        return _core.Sim.agent_avoidance(self._sim, self._h)[0]

    @priority.setter
    def priority(self, value):
        _core.Sim.set_priority(self._sim, self._h, value)

    @property
    def layers(self):
        """The layers the agent is on (32-bit mask, default 1)."""
        return _core.Sim.agent_avoidance(self._sim, self._h)[1]

    @layers.setter
    def layers(self, value):
        _core.Sim.agent_set_avoidance(self._sim, self._h, layers=value)

    @property
    def mask(self):
        """The layers of the agents it considers (32-bit mask, default 0xFFFFFFFF)."""
        return _core.Sim.agent_avoidance(self._sim, self._h)[2]

    @mask.setter
    def mask(self, value):
        _core.Sim.agent_set_avoidance(self._sim, self._h, mask=value)

    @property
    def locked(self):
        """True when the agent is locked: it keeps its velocity, is not solved, and the agents
        that consider it avoid it as a moving obstacle (hard constraints)."""
        return bool(_core.Sim.agent_avoidance(self._sim, self._h)[3])

    @locked.setter
    def locked(self, value):
        _core.Sim.set_locked(self._sim, self._h, value)

    @property
    def stream(self):
        """The agent's stream (the pedestrian model's counter mode, docs/pedestrians.md): -1
        (none, the default) or a number >= 0; agents of different streams walking against
        each other keep their full time horizon and no headway."""
        return _core.Sim.agent_stream(self._sim, self._h)

    @stream.setter
    def stream(self, value):
        _core.Sim.agent_set_stream(self._sim, self._h, value)

    def diagnostics(self):
        """AgentDiagnostics of the last step with diagnostics on (all 0, failed_constraint
        -1, before one or for an agent added since)."""
        return AgentDiagnostics(*_core.Sim.agent_diagnostics(self._sim, self._h))

    def neighbors(self):
        """(agent indices, segment indices) the next step's constraints come from, in the
        order of docs/algorithm.md §11."""
        return _core.Sim.agent_neighbors(self._sim, self._h)

    def constraints(self, dt):
        """(planes, hard_count): the half-planes a step of length dt taken now would give
        this agent, an (n, 4) float64 array of rows (px, py, nx, ny), obstacle planes first.
        dt in s; each plane's point in m/s, its normal a unit vector."""
        raw, hard = _core.Sim.agent_constraints(self._sim, self._h, dt)
        return _as_array(raw, 4), hard

    def __repr__(self):
        return "<orca.Agent %s index=%d>" % (self._fields(), self.index)


class _ObjectHandle(_Handle):
    """Segments and boundary loops: `alive` through the kind's getter."""

    __slots__ = ()
    _get = None  # the _core.Sim getter of the kind, which raises StaleHandleError

    @property
    def alive(self):
        """False once it was removed."""
        try:
            type(self)._get(self._sim, self._h)
        except StaleHandleError:
            return False
        return True


class Segment(_ObjectHandle):
    """Handle of a two-sided segment obstacle of a Simulator."""

    __slots__ = ()
    _get = _core.Sim.segment_get

    @property
    def ends(self):
        """((ax, ay), (bx, by))."""
        return _core.Sim.segment_get(self._sim, self._h)


# --- walkable-area boundaries (docs/extensions.md, "Walkable-area boundaries") -----------

class Boundary(_ObjectHandle):
    """Handle of a walkable-area boundary loop of a Simulator."""

    __slots__ = ()
    _get = _core.Sim.boundary_get

    @property
    def points(self):
        """The loop's points as given: [(x, y), ...]."""
        return _core.Sim.boundary_get(self._sim, self._h)

# --- end of walkable-area boundaries -------------------------------------------------------


def _restore(cls, workers, snapshot, vector_kernels):
    sim = cls(workers=workers)
    sim.vector_kernels = vector_kernels
    sim.load(snapshot)
    return sim


class Simulator(_core.Sim):
    """An orca simulation: agents and two-sided segment obstacles stepped by ORCA
    (docs/algorithm.md §11 and §12), the same bits for any worker count.

    Simulator(workers=1): workers is the number of threads a step uses (1..64, the calling
    thread included); the results do not depend on it.

    Thread safety: one thread at a time. step() releases the GIL while it runs; any call on
    the same simulation from another thread meanwhile raises RuntimeError. Different
    simulations step in parallel in different threads.
    """

    def __init__(self, workers=1):
        super().__init__(workers=workers)

    # --- agents ---------------------------------------------------------------------

    def add_agent(self, position, velocity=_AD["velocity"], radius=_AD["radius"],
                  max_speed=_AD["max_speed"], neighbor_dist=_AD["neighbor_dist"],
                  max_neighbors=_AD["max_neighbors"], time_horizon=_AD["time_horizon"],
                  obstacle_time_horizon=_AD["obstacle_time_horizon"],
                  preferred_velocity=_AD["preferred_velocity"], priority=None,
                  layers=None, mask=None, locked=None, stream=None):
        """Adds an agent after all others and returns its Agent handle.

        position, velocity and preferred_velocity are (x, y) pairs (tuples, lists, NumPy
        arrays); the defaults are the library's (orca_agent_def_default, read from it:
        orca.AGENT_DEFAULTS, the table of docs/scenarios.md, "Defaults"). priority, layers,
        mask and locked (None: the defaults 1, 1, 0xFFFFFFFF, False) are the avoidance
        settings of docs/extensions.md; stream (None: -1, none) the pedestrian model's
        (docs/pedestrians.md). A value out of its range raises orca.ArgumentError (a
        ValueError) naming it; nothing is added.
        """
        av = _checked_avoidance(priority, layers, mask, locked)
        g = _checked_stream(stream)
        h = _core.Sim.add_agent(
            self, position, velocity, radius, max_speed, neighbor_dist, max_neighbors,
            time_horizon, obstacle_time_horizon, preferred_velocity)
        if av is not None:
            _apply_avoidance(self, [h], av)
        if g is not None:
            _apply_stream(self, [h], g)
        return Agent(self, h)

    def add_agents(self, positions, **params):
        """Adds one agent per row of positions (an (n, 2) float64 array or a sequence of
        pairs), all with the parameters given (names and defaults as add_agent), in row
        order; returns their handles. Every agent is checked before any is added: on a
        refusal the simulation is unchanged and the message names the row. priority, layers,
        mask, locked and stream, when given, are the same for every agent (as the other
        params).
        More rows than the 2^30 agents a simulation holds (with those it has) raise
        orca.LimitError, and rows whose memory need exceeds the machine's
        orca.OutOfMemoryError, both before anything is read or allocated."""
        av = _pop_avoidance(params)
        g = _checked_stream(params.pop("stream", None))
        handles = _core.Sim.add_agents(self, positions, **params)
        if av is not None:
            _apply_avoidance(self, handles, av)
        if g is not None:
            _apply_stream(self, handles, g)
        return [Agent(self, h) for h in handles]

    def remove_agent(self, agent):
        """Removes an agent; the others keep their order (and the bits they would have had
        if it had never existed). A stale handle raises orca.StaleHandleError, a handle of
        another simulation orca.ForeignHandleError; neither changes anything."""
        _core.Sim.remove_agent(self, _handle(agent, Agent))

    def remove_agents(self, agents):
        """Removes several agents, exactly as remove_agent on each in turn, in one pass.
        Every handle is checked first: a stale one (orca.StaleHandleError), one of another
        simulation (orca.ForeignHandleError) or one listed twice (ValueError) removes
        nothing."""
        _core.Sim.remove_agents(self, _handles(agents, Agent, "remove_agents"))

    @property
    def agents(self):
        """Handles of all agents in index order (a new list)."""
        return [Agent(self, h) for h in _core.Sim.agent_handles(self)]

    def agent(self, index):
        """Handle of the agent at index (IndexError when out of range, never a null
        handle)."""
        return Agent(self, _core.Sim.agent_at(self, index))

    @property
    def agent_count(self):
        """Number of agents."""
        return _core.Sim.agent_count(self)

    def __len__(self):
        return _core.Sim.agent_count(self)

    # --- bulk state ------------------------------------------------------------------

    @property
    def positions(self):
        """Positions of all agents in index order: a new (n, 2) float64 NumPy array (a copy,
        writable, yours to keep; changing it does not move the agents)."""
        return _read(_core.Sim.read_positions, self)

    @property
    def velocities(self):
        """Velocities in index order: a new (n, 2) float64 NumPy array (a copy)."""
        return _read(_core.Sim.read_velocities, self)

    @property
    def preferred_velocities(self):
        """Preferred velocities in index order: a new (n, 2) float64 array (a copy)."""
        return _read(_core.Sim.read_preferred_velocities, self)

    def get_positions(self, out=None):
        """Positions into out (a writable C-contiguous float64 buffer of 2n values, e.g. an
        (n, 2) NumPy array reused every step: no allocation) and returns out; without out,
        like the positions property. Positions (x, y) in m."""
        if out is None:
            return self.positions
        _core.Sim.read_positions(self, out)
        return out

    def get_velocities(self, out=None):
        """Velocities into out (as get_positions) and returns out. Velocities (vx, vy) in m/s."""
        if out is None:
            return self.velocities
        _core.Sim.read_velocities(self, out)
        return out

    def set_preferred_velocities(self, velocities):
        """Sets every agent's preferred velocity from an (n, 2) float64 array (or a sequence
        of n pairs), row i for the agent at index i. The count must equal the agent count and
        every component must have magnitude at most 2^31; otherwise nothing changes."""
        _core.Sim.set_preferred_velocities(self, velocities)

    # --- segments ----------------------------------------------------------------------

    def add_segment(self, a, b):
        """Adds the two-sided segment a-b (a == b: a point obstacle); returns its handle."""
        return Segment(self, _core.Sim.add_segment(self, a, b))

    def add_polyline(self, points, closed=False):
        """Adds segments points[0]-points[1], ... (and points[-1]-points[0] when closed);
        returns their handles. All points are checked first."""
        return [Segment(self, h) for h in _core.Sim.add_polyline(self, points, closed)]

    def add_segments(self, a, b):
        """Adds the segments a[k]-b[k] (a and b: (n, 2) float64 arrays or sequences of n
        pairs), in row order, exactly as add_segment on each; returns their handles. Every
        point is checked first: on a refusal (ValueError naming a[k] or b[k] and the value)
        nothing is added."""
        return [Segment(self, h) for h in _core.Sim.add_segments(self, a, b)]

    def remove_segment(self, segment):
        """Removes a segment; the others keep their order (and the simulation the bits it
        would have had without it). A stale handle raises orca.StaleHandleError. Removals
        are deferred: the next step, query or hash compacts them all in one pass."""
        _core.Sim.remove_segment(self, _handle(segment, Segment))

    def remove_segments(self, segments):
        """Removes several segments, exactly as remove_segment on each in turn. Every handle
        is checked first: a stale one (orca.StaleHandleError) or one listed twice
        (ValueError) removes nothing."""
        _core.Sim.remove_segments(self, _handles(segments, Segment, "remove_segments"))

    @property
    def segments(self):
        """Handles of all segments in index order."""
        return [Segment(self, h) for h in _core.Sim.segment_handles(self)]

    @property
    def segment_count(self):
        """Number of segments."""
        return _core.Sim.segment_count(self)

    # --- walkable-area boundaries (docs/extensions.md) -----------------------------------

    def add_boundary(self, points):
        """Adds one closed loop [(x, y), ...] (at least 3 points), walkable on the left of
        each edge: outer loops counter-clockwise, holes clockwise. Agents keep their centres at
        least their radius from the edges they face. Returns its Boundary handle; ValueError
        (naming the value) on a refusal, nothing changed. While loops exist every agent's disc
        must fit in the walkable area: a loop that passes closer to an agent than its radius,
        or takes an agent from inside to outside (the first loop must enclose them all), is
        refused naming the agent, as is an agent added or moved where it does not fit."""
        return Boundary(self, _core.Sim.add_boundary(self, points))

    def remove_boundary(self, boundary):
        """Removes a loop (StaleHandleError for a stale handle)."""
        _core.Sim.remove_boundary(self, _handle(boundary, Boundary))

    @property
    def boundaries(self):
        """Handles of all loops in index order."""
        return [Boundary(self, h) for h in _core.Sim.boundary_handles(self)]

    def measure_boundary(self):
        """(deepest, outside): the largest (radius - distance) / radius of any agent to any
        edge (0 when all keep their radius), and the agents not in the walkable area."""
        return _core.Sim.measure_boundary(self)

    # --- end of walkable-area boundaries ---------------------------------------------------

    # --- stepping and state --------------------------------------------------------------

    def step(self, dt, steps=1):
        """Takes `steps` steps of length dt (s, [2^-30, 2^30]), releasing the GIL. A refused
        step (orca.LimitError: an agent would leave the coordinate range) raises; the
        simulation is then as after the last accepted step."""
        _core.Sim.step(self, dt, steps)

    @property
    def step_count(self):
        """Steps taken since creation (restored by load)."""
        return _core.Sim.step_count(self)

    @property
    def last_fallback_count(self):
        """Agents that needed the fallback program in the last step."""
        return _core.Sim.last_fallback_count(self)

    def hash(self):
        """The 64-bit state hash of docs/determinism.md as an int (format with
        '%016x' to compare with `orca run` and test/golden/determinism.txt)."""
        return _core.Sim.hash(self)

    def hexhash(self):
        """hash() as 16 hex digits."""
        return "%016x" % _core.Sim.hash(self)

    def save(self):
        """The whole simulation (agents, segments, handles, step count) as a versioned,
        byte-order-independent snapshot (bytes)."""
        return _core.Sim.save(self)

    def load(self, snapshot):
        """Replaces the state with a snapshot from save(); corrupt bytes raise
        orca.FormatError and change nothing. The simulator keeps its identity (sim_id): its
        own handles saved with the snapshot are valid again; handles of the simulator that
        saved it, if another, stay foreign here (use this simulator's agents, agent(i), ...,
        which have the same slots and generations)."""
        _core.Sim.load(self, snapshot)

    def measure_overlap(self):
        """(agent overlap, wall overlap): the deepest overlaps now, as fractions of radius."""
        return _core.Sim.measure_overlap(self)

    # --- spatial queries (docs/extensions.md, "Spatial queries") -----------------------

    def query_radius(self, center, radius):
        """Indices of the agents whose centre is within radius of center (squared distance
        <= radius * radius), ordered by (squared distance, index): exactly what a scan over
        every agent gives, found through the neighbour grid. center |x|, |y| < 2^21, radius
        in [0, 2^23] m; anything else raises orca.ArgumentError. Use agent(i) for handles."""
        return _core.Sim.query_radius(self, center, radius)

    def query_nearest(self, point, k):
        """Indices of the k agents nearest to point, ordered by (squared distance, index)
        (all of them when there are fewer than k). k >= 0. point: (x, y) in m."""
        return _core.Sim.query_nearest(self, point, k)

    def query_box(self, lo, hi):
        """Indices of the agents with lo <= position <= hi in both coordinates (edges
        included), in index order. lo and hi finite with lo <= hi.
        lo and hi: corners (x, y) in m."""
        return _core.Sim.query_box(self, lo, hi)

    # --- avoidance extensions and diagnostics (docs/extensions.md; issue 16) ---------------
    # The property `diagnostics` (bool, read and write; off at creation, not part of the state)
    # comes from orca._core.Sim, as do `separation` (bool, read and write; off at creation,
    # part of the state: agents at exactly one point are separated, docs/extensions.md,
    # "Coincident agents") and `separation_active` (read-only: the option, a boundary loop,
    # the density-dependent speed or avoidance settings away from the defaults).
    # The density-dependent speed (docs/extensions.md, "Density-dependent speed"; part of the
    # state, so save/load, copy and pickle keep it) is orca._core.Sim's too:
    # `set_density_speed(radius=None, gamma=None, max_density=None)` turns it on (None keeps
    # the value in use, the default when off), `clear_density_speed()` turns it off, and the
    # read-only `density_speed` is {'radius', 'gamma', 'max_density'} or None.
    # The pedestrian model (docs/pedestrians.md; part of the state) likewise:
    # `set_pedestrian(time_gap=None, buffer=None, counter_reach=None, max_planes=None)`,
    # `clear_pedestrian()` and the read-only `pedestrian` ({'time_gap', 'buffer',
    # 'counter_reach', 'max_planes'} or None); each agent's stream is Agent.stream.

    def avoidance(self, agent):
        """The agent's Avoidance(priority, layers, mask, locked)."""
        return _avoidance(_core.Sim.agent_avoidance(self, _handle(agent, Agent)))

    def set_avoidance(self, agent, priority=None, layers=None, mask=None, locked=None):
        """Changes the settings given (None: kept) in one write, checked by the library first
        (priority finite in [2^-30, 2^30], locked 0 or 1, layers and mask 32-bit); a refusal
        raises orca.ArgumentError with its message and changes nothing."""
        _core.Sim.agent_set_avoidance(self, _handle(agent, Agent), priority, layers, mask, locked)

    def set_priority(self, agent, priority):
        """orca_agent_set_priority: the share of avoidance (a higher priority yields less)."""
        _core.Sim.set_priority(self, _handle(agent, Agent), priority)

    def set_layers(self, agent, layers, mask):
        """orca_agent_set_layers: the layers the agent is on and the layers of the agents it
        considers (A considers B when A.mask & B.layers != 0), both 32-bit masks."""
        _core.Sim.set_layers(self, _handle(agent, Agent), layers, mask)

    def set_locked(self, agent, locked):
        """orca_agent_set_locked: a locked agent keeps its velocity (set it with
        agent.velocity) and is not solved; True/False or 1/0."""
        _core.Sim.set_locked(self, _handle(agent, Agent), locked)

    def agent_diagnostics(self, agent):
        """AgentDiagnostics of one agent for the last step with diagnostics on."""
        return AgentDiagnostics(*_core.Sim.agent_diagnostics(self, _handle(agent, Agent)))

    def diagnostics_arrays(self):
        """Every agent's diagnostics of the last step with diagnostics on, in index order
        (one orca_sim_diagnostics): a dict of new (n,) int32 NumPy arrays keyed by the
        AgentDiagnostics field names (fallback, failed_constraint, neighbor_count,
        candidates, neighbors_cut, blocked, locked, headway_planes, counter_mode)."""
        np = _numpy()
        fields = len(AgentDiagnostics._fields)
        table = np.frombuffer(_core.Sim.read_diagnostics(self),
                              dtype=np.int32).reshape(-1, fields)
        return {name: table[:, k].copy() for k, name in enumerate(AgentDiagnostics._fields)}

    def step_diagnostics(self):
        """StepDiagnostics(agents, fallback, cut, blocked, locked, headway, counter): the
        counts of the last step with diagnostics on (all 0 before one)."""
        return StepDiagnostics(*_core.Sim.step_diagnostics(self))

    def copy(self):
        """An independent simulation with the same state (and worker count): it steps to
        the same bits."""
        return _restore(type(self), self.workers, self.save(), self.vector_kernels)

    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        return (_restore, (type(self), self.workers, self.save(), self.vector_kernels))

    def __repr__(self):
        return "<orca.Simulator agents=%d segments=%d steps=%d workers=%d>" % (
            self.agent_count, self.segment_count, self.step_count, self.workers)


def _restore_scenario(cls, workers, snapshot):
    sc = cls(dt=1.0, workers=workers)
    sc.load(snapshot)
    return sc


class Scenario(_core.Scenario):
    """A simulation plus goals and the preferred-velocity rule of docs/scenarios.md.

    Scenario("circle", agents=100, seed=1, workers=1): a built-in scene (SCENES; agents=0 is
    the scene's default size, and the scene may round it). Scenario(dt=0.25, seed=1): an
    empty scenario to fill with add_agent. step() sets every scenario agent's preferred
    velocity by the rule and steps the simulation: the same bits as `orca run`.
    pedestrian=True turns the pedestrian preset on (set_pedestrian(); docs/pedestrians.md),
    and an empty scenario then needs no dt (the preset's PEDESTRIAN_DT, 0.05 s).
    """

    def __init__(self, scene=None, agents=0, seed=1, workers=1, dt=None, pedestrian=False):
        super().__init__(scene, agents, seed, workers, dt, pedestrian)

    @property
    def simulation(self):
        """The simulation inside: a Simulator viewing the scenario's state (agents added or
        moved there are seen by the scenario). Each access gives a new view of the same
        simulation (not cached: a cached view would make a reference cycle and keep a big
        scenario's memory until the garbage collector runs); a view keeps the scenario
        alive."""
        return _core.Scenario._simulation(self, Simulator)

    def step(self, steps=1):
        """Takes `steps` steps (preferred velocities by the rule, then a step of dt),
        releasing the GIL."""
        _core.Scenario.step(self, steps)

    def add_agent(self, position, goal=None, target=None, preferred_speed=None, goal_set=None,
                  **fields):
        """Adds an agent with its goal and returns its Agent handle.

        goal: 'point' (walk to target at preferred_speed, default 1 m/s: orca_goal_default,
        orca.GOAL_DEFAULTS), 'velocity' (keep the fixed preferred velocity target), 'none', or
        'set' (walk to the nearest point of the goal set goal_set, a name or index from
        add_goal_set: by path length with navigation on, else by straight distance); by
        default 'set' when goal_set is given, 'point' when a target is, else 'none'. fields:
        as Simulator.add_agent (the avoidance settings priority, layers, mask and locked
        and the stream included; their defaults are the library's). While the pedestrian
        model is on (set_pedestrian) the agent parameters not given are the preset's
        (PEDESTRIAN_AGENT), a point or set goal's preferred_speed not given is the preset's
        free speed drawn for this agent (pedestrian_free_speed(seed, key)), and a set goal's
        agent gets the set's index as stream unless stream is given.
        """
        av = _pop_avoidance(fields)
        g = _checked_stream(fields.pop("stream", None))
        h = _core.Scenario.add_agent(self, position, goal, target, preferred_speed,
                                     goal_set=goal_set, **fields)
        sim = self.simulation
        if av is not None:
            _core.Sim.agent_set_avoidance(sim, h, *av)  # checked above (only memory could refuse it)
        if g is not None:
            _core.Sim.agent_set_stream(sim, h, g)  # checked above (only memory could refuse it)
        return Agent(sim, h)

    @property
    def pedestrian(self):
        """The pedestrian model's parameters when on (a dict: Simulator.pedestrian), else
        None. set_pedestrian(time_gap=None, buffer=None, counter_reach=None, max_planes=None)
        turns the preset on (orca_scenario_set_pedestrian: the model, the goal-set agents'
        streams, and the preset's defaults for agents added afterwards); clear_pedestrian()
        turns the model off."""
        return self.simulation.pedestrian

    def set_goal(self, index, goal=None, target=None, preferred_speed=None, goal_set=None):
        """Gives the agent at index a new goal (arguments and defaults as add_agent's). With
        navigation on it plans a path to it at the next step; a goal that is neither 'point'
        nor 'set' drops its path state. An agent with waypoints raises orca.ArgumentError
        (remove them first: set_waypoints(index, [])), as does a bad value, naming it; nothing
        changes then."""
        _core.Scenario.set_goal(self, index, goal, target, preferred_speed, goal_set)

    def agent_goal(self, index):
        """{'goal', 'target', 'preferred_speed', 'start', 'goal_set'} of the agent at index:
        for a 'set' goal, target is the set's point it heads for now and goal_set the set's
        name (None for the other kinds)."""
        kind, target, speed, start, gset = _core.Scenario.agent_goal(self, index)
        return {"goal": kind, "target": target, "preferred_speed": speed, "start": start,
                "goal_set": gset}

    # --- navigation (docs/navigation.md) ---------------------------------------------------
    # The properties `navigation` (bool, read and write; off at creation), `nav_check` (the
    # leg check, bool, off at creation), `exit_choice` ('nearest' at creation, 'calm' or
    # 'quickest') and the read-only `nav_unreachable` (agents whose last plan found no path)
    # come from orca._core.Scenario.

    def add_goal_set(self, name, points, exit=False, arrive_distance=0.0):
        """Adds a named goal set (exits, meeting points) and returns its index (0, 1, ... in
        the order added): name 1 to 63 characters, unique; points an (n, 2) float64 array or a
        sequence of pairs, 1 to NAV_GOALS_MAX (65536) of them, finite, of magnitude below 2^21.
        exit=True makes it an exit: an agent heading for it leaves the simulation once within
        arrive_distance of its point (0: its radius; else [2^-30, 2^23] m), counted by
        `exited`. More points than the limit raise orca.LimitError before any is read; a bad
        value orca.ArgumentError naming it; nothing is added then."""
        return _core.Scenario.add_goal_set(self, name, points, bool(exit), arrive_distance)

    def set_goal_set_exit(self, goal_set, arrive_distance=0.0):
        """Makes the goal set (name or index) an exit with arrive_distance (see
        add_goal_set). arrive_distance in m."""
        _core.Scenario.set_goal_set_exit(self, goal_set, arrive_distance)

    @property
    def goal_sets(self):
        """The names of the goal sets in index order (a new list)."""
        return [_core.Scenario.goal_set_get(self, k)[1]
                for k in range(_core.Scenario.goal_set_count(self))]

    def goal_set(self, goal_set):
        """{'index', 'name', 'points' (an (n, 2) float64 array, a copy), 'exit',
        'arrive_distance'} of the goal set given by name or index."""
        index, name, raw, exit, arrive = _core.Scenario.goal_set_get(self, goal_set)
        return {"index": index, "name": name, "points": _as_array(raw, 2), "exit": exit,
                "arrive_distance": arrive}

    @property
    def exited(self):
        """Exited(count, last_step): agents that left by exits so far, and the step count at
        which the last one left (-1 when none)."""
        return Exited(*_core.Scenario.exited(self))

    def set_goal_set_capacity(self, goal_set, capacity):
        """Sets the capacity of each point of the exit set (name or index) in agents a second,
        for exit_choice 'quickest' (finite, in [2^-30, 2^30]; 1 until set)."""
        _core.Scenario.set_goal_set_capacity(self, goal_set, capacity)

    def goal_set_capacity(self, goal_set):
        """The capacity of each point of the set (name or index), agents a second."""
        return _core.Scenario.goal_set_capacity(self, goal_set)

    def exit_departures(self, goal_set, point_index):
        """Exited(count, last_step) of the agents that left by the point of index point_index
        of the exit set given by name or index (last_step -1: none left there)."""
        return Exited(*_core.Scenario.exit_departures(self, goal_set, point_index))

    def nav_counts(self):
        """Navigation's counts over the whole run, agents that left by exits included
        (orca_scenario_nav_counts): a dict with plans, reroutes, replans (leg check),
        exit_changes, exit_returns, agents_changed, most_changes, exited, at_exits (within
        their exit's arrive distance, leaving at the next step), arrived (arrived now plus
        exited) and unreachable."""
        return _core.Scenario.nav_counts(self)

    def agent_nav(self, index):
        """What navigation knows of the agent at index (orca_scenario_agent_nav): a dict with
        navigating (bool: navigation steers it), result ('ok', 'no_path', 'start_blocked',
        'goal_blocked'; None before its first plan), corner (the corner it heads for, 0 ..
        corners; corners = on its last leg), corners, length (m, when planned), plans,
        reroutes and goal (the point its path ends at)."""
        nav, result, corner, corners, length, plans, reroutes, goal, _ = \
            _core.Scenario.agent_nav(self, index)
        return {"navigating": nav, "result": result, "corner": corner, "corners": corners,
                "length": length, "plans": plans, "reroutes": reroutes, "goal": goal}

    def agent_path(self, index):
        """The corners of the agent's path: a new (k, 7) float64 array, one row per corner,
        columns vertex x, vertex y, side (+1: the path turns counter-clockwise round the
        vertex, -1 clockwise), enter x, enter y, leave x, leave y (the path meets the circle of
        the agent's radius round the vertex at enter and leaves it at leave). (0, 7) before a
        plan, on a straight path and without a path. agent_nav(index)['corner'] is the row it
        heads for."""
        return _as_array(_core.Scenario.agent_nav(self, index)[8], 7)

    def _info(self, key):
        return _core.Scenario.info(self)[key]

    name = property(lambda self: self._info("name"),
                    lambda self, v: _core.Scenario.set_name(self, v),
                    doc="The scene's name ('circle', ...) or 'custom'.")
    dt = property(lambda self: self._info("dt"), doc="The step length in seconds.")
    seed = property(lambda self: self._info("seed"), doc="The seed of the rule's perturbation.")
    arrived_count = property(lambda self: self._info("arrived"),
                             doc="Agents now within their radius of their goal point.")
    all_arrived_step = property(lambda self: self._info("all_arrived_step"),
                                doc="Step count when all agents were first arrived, or -1.")
    max_agent_overlap = property(lambda self: self._info("max_agent_overlap"),
                                 doc="Deepest agent-agent overlap so far (fraction of radius).")
    max_wall_overlap = property(lambda self: self._info("max_wall_overlap"),
                                doc="Deepest agent-wall overlap so far (fraction of radius).")
    fallback_total = property(lambda self: self._info("fallback_total"),
                              doc="Agent solves that used the fallback, over all steps.")

    def set_recording(self, on):
        """Recording of overlaps and arrivals after each step (on by default); off is what
        a benchmark times. The simulation's bits are the same either way."""
        _core.Scenario.set_recording(self, on)

    def set_waypoints(self, index, points, loop=False, arrive_distance=0.0):
        """Gives the agent at index (added with a 'point' goal) points to visit in order
        before its goal (docs/extensions.md, "Waypoints"): an (n, 2) array or a sequence of
        pairs; [] removes them. It takes the next one when its squared distance to the
        current one is <= D*D, D = arrive_distance (0: its radius). With loop the goal is
        followed by the first point again, and the agent never counts as arrived. Starts at
        the first point. A bad value raises orca.ArgumentError naming it; nothing changes.
        Points (x, y) and arrive_distance in m."""
        _core.Scenario.set_waypoints(self, index, points, bool(loop), arrive_distance)

    def waypoints(self, index):
        """{'points': [(x, y), ...], 'loop', 'arrive_distance', 'current'} of the agent at
        index; current is the index of its current target (len(points) = the goal)."""
        pts, loop, arrive, current = _core.Scenario.waypoints(self, index)
        return {"points": pts, "loop": loop, "arrive_distance": arrive, "current": current}

    def set_waypoint_index(self, index, current):
        """Sets the agent's current target (0 .. len(points); len(points) is the goal)."""
        _core.Scenario.set_waypoint_index(self, index, current)

    def hash(self):
        """The scenario's state hash (int): the simulation's hash when no agent has
        waypoints and navigation is off, else continued over each waypoint agent's current
        target and, with navigation on, every agent's path state (orca_scenario_hash; the hash
        `orca run` prints)."""
        return _core.Scenario.hash(self)

    def hexhash(self):
        """hash() as 16 hex digits."""
        return "%016x" % _core.Scenario.hash(self)

    def save(self):
        """The whole scenario as a versioned, byte-order-independent snapshot (bytes): its
        simulation, dt, seed, name, every agent's goal, start, waypoints and navigation state,
        the goal sets and exits, the counters and the record (docs/scenarios.md,
        "Snapshots")."""
        return _core.Scenario.save(self)

    def load(self, snapshot):
        """Replaces the whole state (the simulation's included) with a snapshot from
        save() of this or any scenario: stepping on gives the same bits as stepping the saved
        one. Corrupt bytes raise orca.FormatError naming the field, and change nothing. The
        simulation keeps its identity (sim_id) and worker count."""
        _core.Scenario.load(self, snapshot)

    def copy(self):
        """An independent scenario with the same state (and worker count): it steps to the
        same bits."""
        return _restore_scenario(type(self), self.simulation.workers, self.save())

    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        return (_restore_scenario, (type(self), self.simulation.workers, self.save()))

    def __repr__(self):
        return "<orca.Scenario %s agents=%d steps=%d>" % (
            self.name, self.simulation.agent_count, self.simulation.step_count)


def read_scene(path, workers=1, dt=None, seed=None, pedestrian=False):
    """A Scenario built from a scene file (docs/scene-format.md) by the very code `orca run
    FILE` uses: stepping it gives the bits `orca run FILE` gives (goals, waypoints, goal sets,
    exits, navigation, separation, walls, boundaries, dt, seed and name from the file). dt and
    seed, when given, replace the file's as `orca run --dt/--seed` do; pedestrian=True builds
    it with the pedestrian preset as `orca run --pedestrian` does (docs/pedestrians.md);
    workers as Scenario's.
    path is a str, bytes or os.PathLike ('-' is a file of that name, not standard input).

    A bad file raises ValueError with the message `orca run` prints ("scene.txt:12: radius
    must be > 0, got '-1'"); a file that cannot be opened or read OSError naming the path
    (FileNotFoundError, PermissionError, IsADirectoryError, ...); running out of memory
    MemoryError. Unlike `orca run`, it prints no warning about agents that start at one
    point."""
    return _core.read_scene(Scenario, path, workers, dt, seed, pedestrian)


# --- navigation: the path query (orca/nav.h; docs/navigation.md) -------------------------

#: Agents that left a scenario by exits, and the step count of the last (-1: none).
Exited = _namedtuple("Exited", "count last_step")
#: A path query's answer: result ('ok', 'no_path', 'start_blocked', 'goal_blocked'), length (m)
#: and goal_index (the goal reached) when 'ok' (else None), corners (a (k, 7) float64 array as
#: Scenario.agent_path: vertex x, y, side, enter x, y, leave x, y; (0, 7) unless 'ok').
NavPath = _namedtuple("NavPath", "result length goal_index corners")
#: The graph kept for a radius: walls, vertices (wall ends), legs (tangents), bytes held.
NavStats = _namedtuple("NavStats", "walls vertices legs bytes")


class Navigator(_core.Nav):
    """Shortest paths through the walls of a Simulator (its segments and walkable-area loops)
    for a disc of a given radius that keeps that radius from every wall (orca_nav_path,
    docs/navigation.md): exact, the same bits everywhere.

    Navigator(simulator): reads the simulator's walls at each query and rebuilds what it
    keeps when they changed; a graph per radius is built by the first query for that radius
    (milliseconds for hundreds of wall ends, seconds for thousands) and kept. Queries release
    the GIL; meanwhile the simulator is busy (calls on it from other threads raise
    RuntimeError). It keeps the simulator alive.
    """

    def __init__(self, simulator):
        super().__init__(simulator)

    def path(self, radius, start, goals):
        """NavPath(result, length, goal_index, corners): the shortest path of a disc of radius
        (in [2^-20, 2^20] m) from start to the nearest of goals (an (n, 2) float64 array or a
        sequence of pairs, 1 to NAV_GOALS_MAX of them; ties go to the lower index). A bad
        value raises orca.ArgumentError with the library's message."""
        result, length, index, raw = _core.Nav.path(self, radius, start, goals)
        return NavPath(result, length, index, _as_array(raw, 7))

    def stats(self, radius):
        """NavStats(walls, vertices, legs, bytes) of the graph for radius (built if needed).
        radius in m."""
        return NavStats(*_core.Nav.stats(self, radius))

    def __repr__(self):
        return "<orca.Navigator of %r>" % (self.simulator,)


def nav_path(simulator, radius, start, goals):
    """Navigator(simulator).path(radius, start, goals): one query (a Navigator keeps the
    graph between queries; use one for many). radius in m; start and goals (x, y) in m."""
    return Navigator(simulator).path(radius, start, goals)


# --- the building blocks (orca/solver.h), NumPy in and out --------------------------------

def _vec(t):
    return _numpy().array(t, dtype=_numpy().float64)


def constraint_agent(rel_pos, r, va, vb, tau, dt):
    """ORCA half-plane of agent A against agent B (docs/algorithm.md §6): rel_pos = pB - pA,
    r = rA + rB, va and vb the current velocities, tau the time horizon, dt the step.
    Returns (plane, form): plane a (4,) float64 array (px, py, nx, ny), form 'cases' or
    'overlap'. Units: rel_pos and r in m, va and vb in m/s, tau and dt in s."""
    plane, form = _core.constraint_agent(rel_pos, r, va, vb, tau, dt)
    return _vec(plane), form


def constraint_segment(a, b, r, tau, dt):
    """ORCA half-plane for a static two-sided segment a-b (relative to the agent) for an
    agent of radius r (docs/algorithm.md §6). Returns (plane, form) with form 'support' or
    'overlap'. Units: a, b and r in m, tau and dt in s."""
    plane, form = _core.constraint_segment(a, b, r, tau, dt)
    return _vec(plane), form


def constraint_boundary(a, b, clearance, tau):
    """One-sided boundary constraint for the stretch a -> b of a walkable area
    (docs/algorithm.md §7): a (4,) plane array, or None when there is no constraint.
    Units: a, b and clearance in m, tau in s."""
    plane = _core.constraint_boundary(a, b, clearance, tau)
    return None if plane is None else _vec(plane)


def vo_support(a, b, r, tau, x):
    """Signed distance of velocity x from the velocity obstacle of segment a-b grown by r
    with horizon tau (support form, docs/algorithm.md §3): (distance, normal (2,) array).
    The origin must be outside the capsule (ValueError otherwise)."""
    d, n = _core.vo_support(a, b, r, tau, x)
    return d, _vec(n)


def vo_overlap(a, b, r, dt, x):
    """The overlap form (capsule cut off at dt): (distance, normal (2,) array).
    Units: a, b and r in m, dt in s, x in m/s."""
    d, n = _core.vo_overlap(a, b, r, dt, x)
    return d, _vec(n)


def segment_distance_squared(a, b):
    """Squared distance from the origin to the segment a-b."""
    return _core.segment_distance_squared(a, b)


def halfplane_signed_distance(plane, v):
    """(v - point) . normal for a plane (px, py, nx, ny)."""
    return _core.halfplane_signed_distance(plane, v)


class SolveResult(tuple):
    """(velocity, failed, fallback): the new velocity ((2,) array), the index of the first
    failing constraint (-1 when feasible) and whether the fallback produced the velocity."""

    __slots__ = ()

    def __new__(cls, velocity, failed, fallback):
        return tuple.__new__(cls, (velocity, failed, fallback))

    velocity = property(lambda self: self[0])
    failed = property(lambda self: self[1])
    fallback = property(lambda self: self[2])

    def __repr__(self):
        return "SolveResult(velocity=%r, failed=%d, fallback=%r)" % tuple(self)


def solve(planes, max_speed, preferred, hard_count=0):
    """The whole solve of one agent (docs/algorithm.md §8 to §10): the linear program over
    the disc |v| <= max_speed and planes (an (n, 4) float64 array of rows px, py, nx, ny, the
    first hard_count of them hard), closest to preferred; the fallback when it fails.
    Returns a SolveResult (velocity, failed, fallback).
    Units: max_speed, preferred and the planes' points in m/s."""
    v, failed, fallback = _core.solve(planes, max_speed, preferred, hard_count)
    return SolveResult(_vec(v), failed, fallback)


def lp_solve(planes, max_speed, preferred, direction=False):
    """The linear program alone: (velocity (2,) array, failed index or -1). direction=True
    maximises v . preferred instead (the objective-direction variant).
    Units: max_speed, preferred and the planes' points in m/s."""
    v, failed = _core.lp_solve(planes, max_speed, preferred, direction)
    return _vec(v), failed


def lp_fallback(planes, hard_count, failed_index, max_speed):
    """The fallback program after lp_solve failed at failed_index: a (2,) array.
    Units: max_speed and the planes' points in m/s."""
    return _vec(_core.lp_fallback(planes, hard_count, failed_index, max_speed))


def sincos_turns(turns):
    """Deterministic (sin, cos) of 2*pi*turns with + - * / only (the circle scene's)."""
    return _core.sincos_turns(turns)


def kernels_available():
    """True when this CPU runs the AVX2 kernels (x86-64 with AVX2); the bits are the same
    either way."""
    return _core.kernels_available()
