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
    # refused by the library when built (scene_build)
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
    # a dt the library refuses: the message of scene_build (as `orca run` would give it)
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
