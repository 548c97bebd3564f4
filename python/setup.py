# SPDX-License-Identifier: MIT
"""Builds orca._core from the library's own C sources (../src/*.c) with the library's
arithmetic flags, so that the module computes the C library's bits (docs/determinism.md):

- -std=c17 -ffp-contract=off -fno-fast-math (as CMakeLists.txt gives the library), and
  -msse2 -mfpmath=sse on 32-bit x86 (no x87 extended precision);
- src/kernels.c needs nothing more: it compiles its AVX2 kernels with target attributes on
  x86-64 and picks them at run time when the CPU has AVX2, exactly as in the CMake build
  (the step gives the same bits with or without them; the tests check both).

Flags that would change the arithmetic (-ffast-math and its parts, -Ofast,
-ffp-contract=fast) are refused when they come from the environment or from Python's own
build flags.
"""
import os
import platform
import struct
import sys
import sysconfig

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(ROOT, "src")
INCLUDE = os.path.join(ROOT, "include")

if not os.path.isfile(os.path.join(INCLUDE, "orca", "orca.h")):
    sys.exit("setup.py: the library's sources were not found next to python/ (%s); build from "
             "a checkout of the orca repository (pip install ./python)" % ROOT)

FORBIDDEN = ("-ffast-math", "-Ofast", "-funsafe-math-optimizations", "-fassociative-math",
             "-freciprocal-math", "-ffinite-math-only", "-fno-signed-zeros",
             "-fno-trapping-math", "-ffp-contract=fast", "-fcx-limited-range",
             "-fexcess-precision=fast", "-mfma")
flags_in_use = " ".join(str(sysconfig.get_config_var(v) or "") for v in ("CFLAGS", "CCSHARED",
                                                                          "OPT"))
flags_in_use += " " + os.environ.get("CFLAGS", "") + " " + os.environ.get("CPPFLAGS", "")
for f in FORBIDDEN:
    if f in flags_in_use.split():
        sys.exit("setup.py: %s is in the compiler flags (CFLAGS or Python's build flags); it "
                 "changes the arithmetic and orca's results; remove it" % f)

# setuptools wants /-separated paths relative to this directory
os.chdir(HERE)
sources = ["orca/_core.c"]
sources += sorted("../src/" + f for f in os.listdir(SRC) if f.endswith(".c"))

args = ["-std=c17", "-ffp-contract=off", "-fno-fast-math", "-O2"]
machine = platform.machine().lower()
if struct.calcsize("P") == 4 and machine in ("i386", "i486", "i586", "i686", "x86", "x86_64",
                                             "amd64"):
    args += ["-msse2", "-mfpmath=sse"]

setup(
    packages=["orca"],
    package_data={"orca": ["*.pyi", "py.typed"]},
    ext_modules=[
        Extension(
            "orca._core",
            sources=sources,
            include_dirs=["../include", "../src"],
            extra_compile_args=args,
            extra_link_args=["-pthread"],
            libraries=["m"],
        )
    ],
)
