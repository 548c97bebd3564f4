#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per agent-step, counted by callgrind (repeatable, unlike timings on a shared
# machine): the Release library (gcc -O3, LTO) on a built-in scene after a warm-up.
#   scripts/count-instructions.sh [SCENE] [AGENTS] [WARMUP] [STEPS] [scalar] [far=ND]
#                                 [extended] [pedestrian]
# defaults: random 100000 20 3 (the RVO2 comparison: steady state after 20 steps). "scalar"
# counts the scalar code only (the vector kernels off: what CPUs without AVX2 run); "far=ND"
# gives the agent at the middle index neighbour distance ND after the warm-up; "extended"
# turns the separation option on after it (the extended path alone), "pedestrian" the
# pedestrian model with its defaults (docs/pedestrians.md).
set -eu
cd "$(dirname "$0")/.."
scene=${1:-random} n=${2:-100000} warmup=${3:-20} steps=${4:-3} mode="${*:5}"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release --target orca_instr >/dev/null
out=$(mktemp)
agents=$(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out" \
  build/release/bench/orca_instr "$scene" "$n" "$warmup" "$steps" $mode 2>"$out.log")
total=$(grep -E '^summary:|^totals:' "$out" | head -n 1 | awk '{print $2}')
rm -f "$out" "$out.log"
echo "$scene, $agents agents, $steps steps after $warmup${mode:+ ($mode)}: $total instructions, $((total / (agents * steps))) per agent-step"
