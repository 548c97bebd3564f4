# SPDX-License-Identifier: MIT
"""Builds orca._core from the binding's C files (orca/*.c, which share orca/_core.h) and the
library's own C sources (../src/*.c, the scene-file reader of orca.read_scene included) with
the library's arithmetic flags, so that the module computes the C library's bits
(docs/determinism.md):

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
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(ROOT, "src")
INCLUDE = os.path.join(ROOT, "include")

if not (os.path.isfile(os.path.join(INCLUDE, "orca", "orca.h")) and
        os.path.isfile(os.path.join(SRC, "scene_file.c"))):
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
# the binding: orca/_core.c (the module) and the files orca/_core.h lists, one per type
sources = sorted("orca/" + f for f in os.listdir("orca") if f.endswith(".c"))
sources += sorted("../src/" + f for f in os.listdir(SRC) if f.endswith(".c"))

# -O3 and hidden symbols (only PyInit__core is exported, so calls between the library's
# files can be inlined in a shared object): speed only, the same operations.
args = ["-std=c17", "-ffp-contract=off", "-fno-fast-math", "-O3", "-fvisibility=hidden"]
machine = platform.machine().lower()
if struct.calcsize("P") == 4 and machine in ("i386", "i486", "i586", "i686", "x86", "x86_64",
                                             "amd64"):
    args += ["-msse2", "-mfpmath=sse"]

class BuildExt(build_ext):
    """Rebuilds every object, and adds link-time optimisation when gcc both compiles and links, as CMakeLists.txt does
    for the library's Release build (clang's LTO needs its own linker plugin): about 12% fewer
    instructions per agent-step, the same bits. ORCA_LTO=0 turns it off."""

    def finalize_options(self):
        super().finalize_options()
        # always compile everything: setuptools compares only the .c files' times with the
        # objects' (not the headers', nor the flags), and pip reuses python/build
        self.force = True

    def build_extensions(self):
        tools = [os.path.basename(str(getattr(self.compiler, attr, [""])[0]))
                 for attr in ("compiler_so", "linker_so")]
        gcc = all("gcc" in t and "clang" not in t for t in tools)
        if gcc and os.environ.get("ORCA_LTO", "1") != "0":
            for ext in self.extensions:
                ext.extra_compile_args = ext.extra_compile_args + ["-flto"]
                ext.extra_link_args = ext.extra_link_args + ["-flto=auto"] + args
        super().build_extensions()


setup(
    cmdclass={"build_ext": BuildExt},
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
