#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the WebAssembly modules that web/orca.mjs loads (docs/web.md):
#   web/wasm/orca.wasm        scalar (any WebAssembly engine)
#   web/wasm/orca-simd.wasm   with -msimd128: the SIMD128 kernels (engines with fixed-width SIMD)
# clang --target=wasm32-wasi with wasi-libc, as the matrix's wasm32-wasi target, but as a
# WASI "reactor" (a library: no main; orca.mjs calls _initialize, then the ow_* exports of
# web/orca_wasm.c). One thread: -DORCA_NO_THREADS. Rebuilds only when a source is newer.
#   scripts/web-build.sh [--force]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
out=web/wasm
mkdir -p "$out"
sources=(src/*.c web/orca_wasm.c)
headers=(src/*.h src/*.inc include/orca/*.h)
common=(clang --target=wasm32-wasi -mexec-model=reactor -std=c17 -ffp-contract=off
    -fno-fast-math -O2 -DORCA_NO_THREADS -Iinclude -Isrc
    "-Wl,-z,stack-size=1048576" -Wl,--strip-debug)
build() { # build OUTPUT [extra flags...]
    local target=$1
    shift
    if [[ ${FORCE:-0} != 1 && -f $target ]]; then
        local newer
        newer=$(find "${sources[@]}" "${headers[@]}" "$0" -newer "$target" | head -n 1)
        if [[ -z $newer ]]; then
            echo "web-build: $target is up to date"
            return 0
        fi
    fi
    "${common[@]}" "$@" "${sources[@]}" -o "$target.tmp"
    mv "$target.tmp" "$target"
    echo "web-build: built $target ($(wc -c <"$target") bytes)"
}
[[ ${1:-} == --force ]] && FORCE=1
build "$out/orca.wasm"
build "$out/orca-simd.wasm" -msimd128
