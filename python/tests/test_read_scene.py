# SPDX-License-Identifier: MIT
"""orca.read_scene (docs/python.md, "Scene files"): a scene file read and built by the code
`orca run FILE` uses, stepping to the same state hash as `orca run FILE --steps N --json`
(ORCA_CLI), dt and seed overriding the file's as --dt and --seed do, and the errors: a bad
file ValueError with the message `orca run` prints, a file that cannot be opened OSError
naming the path."""
import errno
import glob
import json
import os
import subprocess

import pytest

import orca

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = sorted(p for p in glob.glob(os.path.join(ROOT, "examples", "*.txt"))
                  if os.path.basename(p) != "CMakeLists.txt")
# the validation suite's scenes (scripts/validation-scenes; grid statements), run by
# scripts/validate through read_scene
VALIDATION = sorted(glob.glob(os.path.join(ROOT, "examples", "validation", "*.txt")))

# Every statement of the format at once: name, dt, seed, separation, goal sets with an exit,
# navigation off, defaults, segments, a polyline block, a polygon, a boundary loop, waypoints
# with loop and arrive=, prefvel, none, the avoidance keys and an initial velocity.
MIXED = """\
orca-scene 1
name mixed one
dt 0.2
seed 77
separation on
goalset out 20 0 20 3 exit arrive=0.5
goalset meet 0 18
default radius 0.4
default preferred_speed 1.3
segment 5 -2 5 -1
polyline
8 8
9 9
10 8
end
polygon 12 12 13 12 13 13
boundary -30 -30 30 -30 30 30 -30 30
agent 0 0 goal 10 0 via 3 3 6 -3 loop arrive=0.6
agent 1 0 goalset out priority=2 layers=0x3 mask=0x1
agent 0 0 prefvel 0.5 -0.5 velocity=0.1,0.2 radius=0.3
agent -4 2 none locked=1
agent -6 -6 goalset meet max_speed=1.8 time_horizon=3 max_neighbors=4
agent 3 -8 goal -8 3 neighbor_dist=6 obstacle_time_horizon=1.5
"""


def cli():
    path = os.environ.get("ORCA_CLI", "")
    if not (path and os.access(path, os.X_OK)):
        pytest.skip("ORCA_CLI (the orca command) not given")
    return path


def cli_run(path, steps, *extra):
    out = subprocess.run([cli(), "run", str(path), "--steps", str(steps), "--json"] +
                         list(extra), check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def cli_error(path):
    """The message `orca run FILE` prints for a bad file (exit status 2)."""
    out = subprocess.run([cli(), "run", str(path), "--steps", "1"], capture_output=True,
                         text=True)
    assert out.returncode == 2, out.stderr
    return out.stderr.strip()


def write(tmp_path, text, name="scene.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_examples_same_hash_as_orca_run(path):
    ref = cli_run(path, 150)
    sc = orca.read_scene(path)
    sc.step(150)
    assert sc.hexhash() == ref["hash"]
    assert sc.name == ref["scene"]


@pytest.mark.parametrize("path", VALIDATION, ids=os.path.basename)
def test_validation_scenes_same_hash_as_orca_run(path):
    ref = cli_run(path, 3)
    sc = orca.read_scene(path)
    assert sc.simulation.agent_count == ref["agents"]
    sc.step(3)
    assert sc.hexhash() == ref["hash"]


def test_example_contents():
    # floor.txt: segments, navigation on, an exit goal set (no orca command needed)
    sc = orca.read_scene(os.path.join(ROOT, "examples", "floor.txt"))
    assert sc.name == "floor" and sc.dt == 0.1 and sc.seed == 1
    assert sc.navigation is True
    assert sc.goal_sets == ["exits"] and sc.goal_set("exits")["exit"] is True
    assert sc.simulation.agent_count > 0 and sc.simulation.segment_count > 0
    assert isinstance(sc, orca.Scenario) and type(sc) is orca.Scenario


def test_mixed_scene_same_hash_as_orca_run(tmp_path):
    path = write(tmp_path, MIXED)
    sc = orca.read_scene(path)
    assert (sc.name, sc.dt, sc.seed) == ("mixed one", 0.2, 77)
    assert sc.simulation.separation is True
    assert sc.goal_sets == ["out", "meet"]
    assert sc.waypoints(0)["loop"] is True and sc.waypoints(0)["arrive_distance"] == 0.6
    assert sc.agent_goal(2)["goal"] == "velocity"
    assert sc.simulation.agents[3].locked is True
    assert sc.simulation.agents[1].priority == 2.0
    assert len(sc.simulation.boundaries) == 1
    ref = cli_run(path, 120)
    sc.step(120)
    assert sc.hexhash() == ref["hash"]


def test_dt_seed_workers_override(tmp_path):
    path = write(tmp_path, MIXED)
    ref = cli_run(path, 80, "--dt", "0.125", "--seed", "12345678901234567890")
    for workers in (1, 3):
        sc = orca.read_scene(str(path), workers=workers, dt=0.125, seed=12345678901234567890)
        assert (sc.dt, sc.seed, sc.simulation.workers) == (0.125, 12345678901234567890, workers)
        sc.step(80)
        assert sc.hexhash() == ref["hash"]


def test_builtin_scene_written_by_orca_scene(tmp_path, golden):
    path = tmp_path / "circle.txt"
    n, steps, expected = golden["circle"]
    subprocess.run([cli(), "scene", "circle", "-n", str(n), "-o", str(path)], check=True)
    sc = orca.read_scene(path)
    sc.step(steps)
    assert sc.hexhash() == expected
    assert sc.hexhash() == cli_run(path, steps)["hash"]
    built = orca.Scenario("circle", agents=n)
    built.step(steps)
    assert built.hexhash() == expected


def test_path_kinds(tmp_path):
    path = write(tmp_path, "agent 0 0 goal 1 0\n")
    for p in (path, str(path), os.fsencode(str(path))):
        assert orca.read_scene(p).simulation.agent_count == 1
    # '-' is the file of that name, not standard input
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        write(tmp_path, "agent 0 0\nagent 3 0\n", name="-")
        assert orca.read_scene("-").simulation.agent_count == 2
    finally:
        os.chdir(cwd)


BAD = [
    ("agent 0 0 radius=-1\n", "scene.txt:1: radius must be > 0, got '-1'"),
    ("orca-scene 1\nagent 0 nan\n", None),
    ("agent 0 0\nagent 1e300 0\n", None),
    ("dt 0\nagent 0 0\n", None),
    ("agent 0 0 goalset nowhere\n", None),
    ("polyline\n1 1\n2 2\n", None),
    ("# nothing\n", None),
    ("", None),
    ("agent 0 0\nwarp 1\n", None),
    ("agent 0 0 goal 1 1 via 1 2 3\n", None),
    # refused by the library when built (orca_scene_file_build)
    ("agent 0 0 max_speed=1e300\n", None),
]


@pytest.mark.parametrize("text,message", BAD)
def test_bad_file_same_message_as_orca_run(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as e:
        orca.read_scene(path)
    assert str(path) in str(e.value)
    if message is not None:
        assert str(e.value) == str(tmp_path / message)
    if os.environ.get("ORCA_CLI"):
        assert str(e.value) == cli_error(path)


def test_cannot_open(tmp_path):
    missing = tmp_path / "missing.txt"
    with pytest.raises(FileNotFoundError) as e:
        orca.read_scene(missing)
    assert e.value.errno == errno.ENOENT and e.value.filename == missing
    assert str(missing) in str(e.value)
    with pytest.raises(IsADirectoryError) as e:
        orca.read_scene(str(tmp_path))
    assert e.value.filename == str(tmp_path)
    if hasattr(os, "geteuid") and os.geteuid() != 0:  # root reads every file
        locked = write(tmp_path, "agent 0 0\n", name="locked.txt")
        locked.chmod(0)
        with pytest.raises(PermissionError):
            orca.read_scene(locked)
    with pytest.raises(ValueError):  # a NUL in the path: Python's own refusal
        orca.read_scene("a\0b")


def test_bad_arguments(tmp_path):
    path = write(tmp_path, "agent 0 0\n")
    with pytest.raises(ValueError, match="workers"):
        orca.read_scene(path, workers=0)
    with pytest.raises(ValueError, match="seed"):
        orca.read_scene(path, seed=-1)
    with pytest.raises(ValueError, match="seed"):
        orca.read_scene(path, seed=2**64)
    with pytest.raises(TypeError):
        orca.read_scene(path, seed=1.5)
    with pytest.raises(TypeError):
        orca.read_scene(12)
    # a dt the library refuses: the message of orca_scene_file_build (as `orca run` would give it)
    for dt in (0.0, -1.0, float("nan"), float("inf"), 2.0**31, 5e-324):
        with pytest.raises(ValueError, match="dt must be"):
            orca.read_scene(path, dt=dt)
    sc = orca.read_scene(path, dt=2.0**-30, seed=2**64 - 1)
    assert (sc.dt, sc.seed) == (2.0**-30, 2**64 - 1)


def test_copy_pickle_of_a_read_scene(tmp_path):
    import pickle
    path = write(tmp_path, MIXED)
    sc = orca.read_scene(path)
    sc.step(10)
    for other in (sc.copy(), pickle.loads(pickle.dumps(sc))):
        other.step(20)
        assert other.name == "mixed one"
    sc.step(20)
    assert sc.hash() == other.hash()


# --- grid statements (docs/scene-format.md, "Grids") -----------------------------------------

def grid_positions(nx, ny, x0, y0, dx, dy, stagger=False):
    """The documented formula: x = X0 + (i + h) * DX, y = Y0 + j * DY, j outer, i inner
    (Python's float arithmetic is binary64 without contraction)."""
    return [(x0 + (i + (0.5 if stagger and j % 2 else 0.0)) * dx, y0 + j * dy)
            for j in range(ny) for i in range(nx)]


@pytest.mark.parametrize("nx,ny,x0,y0,dx,dy,stagger", [
    (4, 3, -1.0, 0.1, 0.1, -0.3, True),
    (5, 2, 0.3, -0.7, 1.0 / 3.0, 0.7, False),
    (3, 3, 2097150.0, -2097151.5, 0.6666666666666666, 1.5, True),
    (2, 2, -0.0, -0.0, 5e-324, -5e-324, False),
    (1, 4, 1e-300, 3.0, 1.7976931348623157e308, 1.25, False),
    (3, 1, -2.5, 0.0, -1.1, 0.0, True),
])
def test_grid_positions_are_the_formula(tmp_path, nx, ny, x0, y0, dx, dy, stagger):
    line = "grid %d %d %r %r %r %r%s none radius=0.01" % (nx, ny, x0, y0, dx, dy,
                                                          " stagger" if stagger else "")
    sc = orca.read_scene(write(tmp_path, line + "\n"))
    got = [tuple(p) for p in sc.simulation.positions.tolist()]
    want = grid_positions(nx, ny, x0, y0, dx, dy, stagger)
    assert len(got) == nx * ny
    for g, w in zip(got, want):  # the same bits, the sign of zero included
        assert g[0].hex() == w[0].hex() and g[1].hex() == w[1].hex()


GRID = """\
dt 0.2
goalset out 15 -3 15 3 exit
default radius 0.25
agent -9 0 goal 9 0
grid 6 4 -4 -2 0.8 0.9 stagger goal 10 10 via 5 -5 preferred_speed=1.2
default radius 0.3
grid 3 3 4 4 -0.9 -0.8 goalset out priority=1.5
grid 2 1 0 7 1 0 prefvel 0.5 -0.5 velocity=0.25,0
"""


def test_grid_same_hash_as_orca_run_and_as_agent_lines(tmp_path):
    path = write(tmp_path, GRID)
    sc = orca.read_scene(path)
    assert sc.simulation.agent_count == 1 + 24 + 9 + 2
    # the same scene with one agent line per grid agent
    lines = []
    for text in GRID.splitlines():
        f = text.split()
        if f[0] != "grid":
            lines.append(text)
            continue
        nx, ny = int(f[1]), int(f[2])
        x0, y0, dx, dy = map(float, f[3:7])
        stagger = f[7] == "stagger"
        rest = " ".join(f[8 if stagger else 7:])
        for x, y in grid_positions(nx, ny, x0, y0, dx, dy, stagger):
            lines.append("agent %r %r %s" % (x, y, rest))
    flat = orca.read_scene(write(tmp_path, "\n".join(lines) + "\n", name="flat.txt"))
    assert flat.hash() == sc.hash()
    sc.step(60)
    flat.step(60)
    assert flat.hexhash() == sc.hexhash()
    assert sc.hexhash() == cli_run(path, 60)["hash"]


GRID_BAD = [
    ("grid 0 2 0 0 1 1\n", "scene.txt:1: grid: NX must be between 1 and 1073741824, got '0'"),
    ("grid 2 1.5 0 0 1 1\n", "scene.txt:1: grid: NY: expected a whole number, got '1.5'"),
    ("grid 32768 32769 0 0 1 1\n", "scene.txt:1: grid: NX * NY = 1073774592 agents, more than "
     "the limit of 2^30 (1073741824) agents in a scene"),
    ("grid 2 2 0 0 nan 1\n", "scene.txt:1: grid DX: expected a finite number, got 'nan'"),
    ("grid 2 2 0 0 1 1e999\n", None),
    ("agent 0 0\ngrid 3 1 0 0 1.7e308 1\n",
     "scene.txt:2: grid: point (2, 0) x = inf must have magnitude below 2^21 (2097152)"),
    ("grid 1 2 2097151.5 0 1 1 stagger\n",
     "scene.txt:1: grid: point (0, 1) x = 2097152 must have magnitude below 2^21 (2097152)"),
    ("grid 1 3 0 0.5 1 -1048576.5\n",
     "scene.txt:1: grid: point (0, 2) y = -2097152.5 must have magnitude below 2^21 (2097152)"),
    ("grid 2 2 0 0 1 1 max_speed=1e300\n", None),
]


@pytest.mark.parametrize("text,message", GRID_BAD)
def test_grid_errors(tmp_path, text, message):
    test_bad_file_same_message_as_orca_run(tmp_path, text, message)
