# SPDX-License-Identifier: MIT
"""Shared fixtures: the repository root and the golden hashes (test/golden/determinism.txt,
read at test time so that the Python tests follow the C suite's reference)."""
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "test", "golden", "determinism.txt")


def read_golden():
    cases = {}
    with open(GOLDEN) as f:
        for line in f:
            m = re.match(r"^(\w+) agents=(\d+) steps=(\d+) hash=([0-9a-f]{16})$", line.strip())
            if m:
                cases[m.group(1)] = (int(m.group(2)), int(m.group(3)), m.group(4))
    return cases


@pytest.fixture(scope="session")
def golden():
    cases = read_golden()
    assert cases, "no cases in %s" % GOLDEN
    return cases


@pytest.fixture(scope="session")
def repo_root():
    return ROOT
