#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The comparison with RVO2 of docs/performance.md (the paper authors' C++ library, single
# precision), on the random scene `orca bench` times. RVO2 is not part of orca: give the path of a checkout of it
# (https://github.com/snape/RVO2; its src/*.cc or src/*.cpp are compiled, nothing is copied).
#   scripts/compare-rvo2.sh RVO2_DIR [SIZES] [ROUNDS] [instructions]
# defaults: SIZES 1000,10000,100000 ROUNDS 5. Builds orca's Release (gcc -O3, LTO) in
# build/release, and RVO2 with bench/rvo2_compare.cc in build/rvo2-compare at -O3 -DNDEBUG with
# LTO (-flto=auto -fno-fat-lto-objects: what RVO2's own ENABLE_INTERPROCEDURAL_OPTIMIZATION
# option gives with gcc), C++98 as RVO2's CMake file sets, without RVO2's hardening flags
# (they only slow it down). Then, ROUNDS times for each size, interleaved, one process each:
# orca (timed by rvo2_compare exactly as `orca bench --workers 1` times it), RVO2 with its
# agents in index order, RVO2 with its agents in Morton order; one timed run of S steps after
# 20 warm-up steps each (S as orca bench's default: 2000000/N clamped to 10..200). Timed with
# the process's CPU-time clock (CLOCK=wall in the environment: the monotonic clock, as orca
# bench). Prints every run and, per size, the medians with their ranges and the ratios of the
# medians. "instructions" adds callgrind's instructions per agent-step over 3 steps after the
# 20 warm-up steps for both (1 step from 1,000,000 agents). From 1,000,000 agents RVO2's
# warm-up alone takes minutes.
set -eu
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ ! -d "$1/src" ]; then
  echo "usage: scripts/compare-rvo2.sh RVO2_DIR [SIZES] [ROUNDS] [instructions]" >&2
  exit 2
fi
rvo2=$(cd "$1" && pwd) sizes=${2:-1000,10000,100000} rounds=${3:-5} instr=${4:-}
clock=cpu
[ "${CLOCK:-cpu}" = wall ] && clock=
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release --target orca_static orca_instr >/dev/null
out=build/rvo2-compare
mkdir -p "$out"
flags="-O3 -DNDEBUG -flto=auto -fno-fat-lto-objects"
inc="-I$rvo2/src -Iinclude"
# RVO2's CMake generates Export.h; a checkout has none.
if [ ! -f "$rvo2/src/Export.h" ]; then
  printf '#ifndef RVO_EXPORT_H_\n#define RVO_EXPORT_H_\n#define RVO_EXPORT\n#endif\n' >"$out/Export.h"
  inc="$inc -I$out"
fi
objs=()
for f in "$rvo2"/src/*.cc "$rvo2"/src/*.cpp; do
  [ -f "$f" ] || continue
  o="$out/$(basename "$f").o"
  # the C++ standard RVO2's CMake file sets (98), or the compiler's own for newer checkouts
  g++ -std=c++98 $flags $inc -c "$f" -o "$o" 2>/dev/null || g++ $flags $inc -c "$f" -o "$o"
  objs+=("$o")
done
g++ $flags $inc -c bench/rvo2_compare.cc -o "$out/rvo2_compare.o"
g++ $flags -o "$out/rvo2_compare" "$out/rvo2_compare.o" "${objs[@]}" build/release/liborca.a \
  -lpthread -lm
echo "RVO2: $rvo2 ($(git -C "$rvo2" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')), g++ $flags; clock: ${clock:-wall}"

rate() { awk '{for (i = 1; i < NF; ++i) if ($i == "median") print $(i + 1)}'; }
median() { sort -g "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
summary() { sort -g "$1" | awk '{v[NR] = $1} END {printf "%.3f M/s (%.3f..%.3f)", v[int((NR + 1) / 2)], v[1], v[NR]}'; }
for n in ${sizes//,/ }; do
  : >"$out/orca.$n"
  : >"$out/index.$n"
  : >"$out/morton.$n"
  for r in $(seq "$rounds"); do
    "$out/rvo2_compare" "$n" orca $clock runs 1 | rate >>"$out/orca.$n"
    "$out/rvo2_compare" "$n" $clock runs 1 | rate >>"$out/index.$n"
    "$out/rvo2_compare" "$n" $clock runs 1 morton | rate >>"$out/morton.$n"
    echo "$n agents, round $r: orca $(tail -n 1 "$out/orca.$n"), RVO2 $(tail -n 1 "$out/index.$n"), RVO2 in Morton order $(tail -n 1 "$out/morton.$n") M agent-steps/s"
  done
  o=$(median "$out/orca.$n") i=$(median "$out/index.$n") m=$(median "$out/morton.$n")
  echo "$n agents, medians (ranges) of $rounds: orca $(summary "$out/orca.$n"), RVO2 $(summary "$out/index.$n"), RVO2 in Morton order $(summary "$out/morton.$n");" \
    "orca / RVO2 $(awk -v a="$o" -v b="$i" 'BEGIN {printf "%.2f", a / b}'), orca / RVO2 in Morton order $(awk -v a="$o" -v b="$m" 'BEGIN {printf "%.2f", a / b}')"
  if [ "$instr" = instructions ]; then
    s=3
    [ "$n" -ge 1000000 ] && s=1
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out/cg.orca" \
      build/release/bench/orca_instr random "$n" 20 "$s" >/dev/null 2>"$out/cg.log"
    a=$(awk '/^totals:/ {print $2}' "$out/cg.orca")
    valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no \
      --callgrind-out-file="$out/cg.rvo2" "$out/rvo2_compare" "$n" steps "$s" callgrind \
      >/dev/null 2>"$out/cg.log"
    b=$(awk '/^totals:/ {print $2}' "$out/cg.rvo2")
    echo "$n agents, instructions per agent-step ($s steps after 20): orca $((a / (n * s))), RVO2 $((b / (n * s)))"
  fi
done
