# SPDX-License-Identifier: MIT
"""The examples of python/examples run (small sizes; the animation only where matplotlib and
Pillow are installed)."""
import os
import re
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def run(script, *args):
    env = dict(os.environ)
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, script)] + list(args),
                          check=True, capture_output=True, text=True, env=env,
                          cwd=os.path.dirname(EXAMPLES), timeout=300).stdout


def test_loop_example_is_reproducible():
    a = run("loop_10k.py", "400", "20", "1")
    b = run("loop_10k.py", "400", "20", "2")
    ha = re.search(r"hash ([0-9a-f]{16})", a).group(1)
    hb = re.search(r"hash ([0-9a-f]{16})", b).group(1)
    assert ha == hb  # 1 and 2 workers: the same bits


def test_bench_example_runs():
    out = run("bench.py", "300", "1")
    assert "agent-steps/s" in out


def test_circle_animation(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("PIL")
    gif = str(tmp_path / "circle.gif")
    out = run("circle_animation.py", gif, "100")
    assert os.path.getsize(gif) > 0
    assert "state hash 4be6d7e7a7e24a3a" in out  # the golden circle, drawn
