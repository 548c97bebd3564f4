#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what scripts/test needs (Debian/Ubuntu, apt): the build tools, clang's sanitizer
# runtime, the toolchains and emulators of the cross-target matrix (scripts/matrix.sh), MinGW-w64
# and Wine for the Windows stage (scripts/windows), and
# what the Python binding needs to build and test (scripts/test-python), Mono for the C#
# binding (scripts/test-dotnet), Chromium and npm for the browser tests (scripts/web-test.sh).
# Idempotent: packages already installed (dpkg -s) are not asked for again, and when nothing
# is missing apt-get is not run at all. Runs apt-get through sudo when not root.
#
# Usage: scripts/install-deps.sh [--check] [--stage STAGE]
#   (no option)      install what any stage of scripts/test lacks (what .ci/run does)
#   --check          only list what is missing (exit 1 if any)
#   --stage STAGE    only what one stage needs: demo (scripts/demo: compiler, CMake, Ninja),
#                    quick (scripts/test --quick: the Release suite), or all (the default)
set -euo pipefail

check=0
stage=all
while [[ $# -gt 0 ]]; do
    case $1 in
        --check) check=1 ;;
        --stage) stage=${2:-}; shift ;;
        --stage=*) stage=${1#--stage=} ;;
        *) echo "install-deps: unknown argument '$1' (--check, --stage demo|quick|all)" >&2; exit 2 ;;
    esac
    shift
done
case $stage in
    demo|quick|all) ;;
    *) echo "install-deps: unknown stage '$stage' (demo, quick or all)" >&2; exit 2 ;;
esac

# The multilib and wasm runtime packages carry the compiler's major version; follow the
# installed gcc and clang (Debian 12: gcc 12, clang 14).
gcc_major=12
if command -v gcc >/dev/null 2>&1; then
    gcc_major=$(gcc -dumpversion | cut -d. -f1)
fi
clang_major=14
if command -v clang >/dev/null 2>&1; then
    clang_major=$(clang -dumpversion | cut -d. -f1)
fi

# scripts/demo: a C compiler with the C library's headers, CMake and Ninja.
DEMO=(cmake ninja-build)
command -v gcc >/dev/null 2>&1 || DEMO+=(gcc)
[[ -e /usr/include/stdio.h ]] || DEMO+=(libc6-dev)
# scripts/test --quick (the Release suite): the demo's, and python3 for the CLI tests' JSON
# checks and the documentation's examples.
QUICK=("${DEMO[@]}" python3)
PACKAGES=(
    "${QUICK[@]}"                                           # the build and the CLI tests
    gcovr                                                   # coverage of src/
    pkgconf g++ dpkg-dev file                               # scripts/consumers (pkg-config, C++17, .deb)
    "libclang-rt-$clang_major-dev"                          # ASan, UBSan, TSan, libFuzzer (clang)
    "gcc-$gcc_major-multilib"                               # i686 (-m32; not gcc-multilib, which
                                                            # conflicts with the cross compilers:
                                                            # scripts/m32-include gives its asm link)
    qemu-user                                               # qemu-aarch64, -s390x, -riscv64, -i386
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross             # aarch64
    gcc-s390x-linux-gnu libc6-dev-s390x-cross               # s390x (big-endian)
    gcc-riscv64-linux-gnu libc6-dev-riscv64-cross           # riscv64
    musl-tools                                              # musl, static
    lld wasi-libc "libclang-rt-$clang_major-dev-wasm32"     # wasm32-wasi (wasm-ld, libc, builtins)
    gcc-mingw-w64-x86-64 gcc-mingw-w64-i686 wine64          # Windows: MinGW-w64 (gcc; clang with lld) and Wine
    python3-dev python3-setuptools python3-pip python3-venv # the Python binding (python/)
    python3-numpy python3-pytest                            # its arrays and tests
    mypy                                                    # its type stubs (mypy --strict, stubtest)
    python3-scipy                                           # scripts/validate (collision counts)
    openmpi-bin libopenmpi-dev                              # orca on MPI (mpi/, test/mpi_tests.sh)
    python3-matplotlib python3-pil                          # its animation example (tested)
    mono-mcs mono-runtime libmono-corlib4.5-cil             # the C# binding (dotnet/, scripts/test-dotnet):
    libmono-system-core4.0-cil libmono-system-numerics4.0-cil  # C# 7.2, Linq, System.Numerics
    libmono-system-numerics-vectors4.0-cil zip unzip        # Vector2; its .nupkg (scripts/dotnet-pack)
    chromium                                                # the browser tests (scripts/web-test.sh)
)
# Compilers and Node.js are usually there already (maybe not from apt: nodesource, nvm);
# ask apt for them only when the command is missing (scripts/wasi-run.mjs needs node:wasi
# with version 'preview1': Node 18.17 or later; tested with Node 20).
command -v gcc >/dev/null 2>&1 || PACKAGES+=(gcc)
command -v clang >/dev/null 2>&1 || PACKAGES+=(clang)
command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || PACKAGES+=(npm)         # puppeteer-core into web/node_modules
command -v timeout >/dev/null 2>&1 || PACKAGES+=(coreutils)
command -v diff >/dev/null 2>&1 || PACKAGES+=(diffutils)

case $stage in
    demo) PACKAGES=("${DEMO[@]}") ;;
    quick) PACKAGES=("${QUICK[@]}") ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
    if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed'; then
        missing+=("$p")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps: all ${#PACKAGES[@]} packages of stage $stage already installed"
    exit 0
fi
echo "install-deps: stage $stage: missing: ${missing[*]}"
if [[ $check == 1 ]]; then
    exit 1
fi

SUDO=()
if [[ $(id -u) != 0 ]]; then
    SUDO=(sudo)
fi
# Wait for another apt/dpkg run instead of failing on its lock. (env: sudo drops variables.)
APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y)
"${APT[@]}" update
# Say what is coming before it comes: apt's own count of the packages with their dependencies,
# the download and the disk space (a fresh Debian 12 machine: about 140 packages, 1.4 GB on
# disk, 5 to 15 minutes with a fast mirror).
plan=$("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get install \
       --no-install-recommends --assume-no "${missing[@]}" 2>/dev/null || true)
count=$(sed -n 's/.* \([0-9][0-9]*\) newly installed.*/\1/p' <<<"$plan" | head -n 1)
download=$(sed -n 's/^Need to get \([^ ]* [^ ]*\).*/\1/p' <<<"$plan" | head -n 1)
disk=$(sed -n 's/^After this operation, \([^ ]* [^ ]*\) of additional disk space.*/\1/p' <<<"$plan" | head -n 1)
if [[ -n $count ]]; then
    echo "install-deps: installing ${#missing[@]} packages and their dependencies: $count packages," \
         "${download:-?} to download, ${disk:-?} on disk (minutes, with apt's progress below)"
fi
"${APT[@]}" install --no-install-recommends "${missing[@]}"
