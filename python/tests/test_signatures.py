# SPDX-License-Identifier: MIT
"""help(orca.Simulator) and the like show every public method's signature and, where it takes
or returns a physical quantity, its unit (docs/python.md): inspect.signature works on each
(the C methods' docstrings are in the "name($self, ...)\\n--\\n\\n" form), each has a
docstring, and a method with a length, speed or time parameter (or a reader of positions or
velocities) names the unit (m, m/s or s) in it."""
import inspect
import re

import orca

CLASSES = [orca.Simulator, orca.Scenario, orca.Navigator, orca.Agent, orca.Segment, orca.Boundary]
FUNCTIONS = ["read_scene", "nav_path", "constraint_agent", "constraint_segment",
             "constraint_boundary", "vo_support", "vo_overlap", "segment_distance_squared",
             "halfplane_signed_distance", "solve", "lp_solve", "lp_fallback", "sincos_turns",
             "kernels_available"]
# parameter names that are lengths (m), speeds (m/s) or times (s)
PHYSICAL = {
    "position", "positions", "center", "point", "lo", "hi", "start", "target", "radius",
    "neighbor_dist", "arrive_distance", "clearance", "velocity", "preferred_velocity",
    "max_speed", "speed", "preferred_speed", "dt", "time_horizon", "obstacle_time_horizon", "xy",
}
READERS = re.compile(r"(get_|read_)(position|velocit|preferred)")
UNIT = re.compile(r"(?<![\w/])(m|m/s|s)(?![\w/])")


def public_methods():
    for cls in CLASSES:
        for name in sorted(dir(cls)):
            if name.startswith("_"):
                continue
            member = inspect.getattr_static(cls, name)
            if isinstance(member, property):
                continue
            attr = getattr(cls, name)
            if callable(attr):
                yield f"{cls.__name__}.{name}", attr
    for name in FUNCTIONS:
        yield name, getattr(orca, name)


def test_every_public_method_has_a_signature_and_a_docstring():
    missing = []
    for name, fn in public_methods():
        try:
            inspect.signature(fn)
        except (ValueError, TypeError):
            missing.append(f"{name}: no signature")
        if not (fn.__doc__ or "").strip():
            missing.append(f"{name}: no docstring")
    assert missing == []


def test_physical_quantities_have_units():
    missing = []
    count = 0
    for name, fn in public_methods():
        params = set(inspect.signature(fn).parameters)
        if params & PHYSICAL or READERS.search(name):
            count += 1
            if not UNIT.search(fn.__doc__ or ""):
                missing.append(f"{name}{inspect.signature(fn)}")
    assert count > 20
    assert missing == []


def test_help_shows_signatures():
    text = orca.Simulator.__doc__ or ""
    assert text.strip()
    import pydoc
    page = pydoc.render_doc(orca.Simulator, renderer=pydoc.plaintext)
    assert "get_position(self, handle, /)" in page
    assert "step(self, dt, steps=1)" in page
