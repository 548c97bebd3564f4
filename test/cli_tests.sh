#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tests of the orca command (issue 4), run against the built binary:
#   bash test/cli_tests.sh path/to/orca
# Needs python3 or node (JSON), and xmllint or python3 (SVG). The last line of output is
# "N passed, N failed"; the exit status is non-zero when anything failed.
set -u

ORCA=${1:-}
if [[ -z "$ORCA" || ! -x "$ORCA" ]]; then
    echo "usage: $0 path/to/orca" >&2
    echo "0 passed, 1 failed"
    exit 2
fi
ORCA=$(cd "$(dirname "$ORCA")" && pwd)/$(basename "$ORCA")

SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-cli-tests.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 2

# A Windows build (orca.exe) runs through ORCA_EMULATOR (scripts/wine-run; set by ctest in a
# MinGW build): "$ORCA" becomes a small script that starts it so. WINDOWS=1 then: the checks
# of POSIX behaviour (signals, file modes, symbolic links, /dev files, ulimit) are skipped
# and counted as such, and a few expectations take Windows' form (NUL, backslashes).
#
# Wine itself once ended a run in CI with status 1 and no output at all, where the same command
# gives its message and status 2 every time since (150 runs in a row). orca never ends with a
# non-zero status without a message, so the script runs such a command once more and lists it
# at the end ("run again under Wine"): a run that fails so twice, or that gives other output
# the second time, still fails its check. The script passes signals on (in_time's timeout).
WINDOWS=0
if [[ $ORCA == *.exe ]]; then
    WINDOWS=1
    if [[ -n ${ORCA_EMULATOR:-} ]]; then
        {
            echo '#!/usr/bin/env bash'
            printf 'emu=%q exe=%q log=%q\n' "$ORCA_EMULATOR" "$ORCA" "$TMP/wine-reruns.txt"
            cat <<'WRAP'
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
trap '[[ -n ${pid:-} ]] && kill -TERM "$pid" 2>/dev/null' TERM INT
once() {
    "$emu" "$exe" "$@" <&0 >"$out" 2>"$err" &
    pid=$!
    wait "$pid"
    status=$?
    while kill -0 "$pid" 2>/dev/null; do wait "$pid"; status=$?; done
}
once "$@"
if [[ $status -eq 1 && ! -s $out && ! -s $err ]]; then
    printf '%s\n' "orca $*" >>"$log"
    once "$@"
fi
cat "$out"
cat "$err" >&2
exit "$status"
WRAP
        } > "$TMP/orca-emulated"
        chmod +x "$TMP/orca-emulated"
        ORCA=$TMP/orca-emulated
    fi
fi

# The null device, and the error for a path through a plain file, on this system.
DEVNULL=/dev/null
NOT_A_DIR="Not a directory"
if ((WINDOWS)); then
    DEVNULL=NUL
    NOT_A_DIR="No such file or directory"
fi

PASSED=0
FAILED=0
SKIPPED=0
pass() { PASSED=$((PASSED + 1)); }
# skip_checks N: N checks that need a POSIX system, skipped on Windows (counted as skipped).
skip_checks() { SKIPPED=$((SKIPPED + $1)); }
fail() {
    FAILED=$((FAILED + 1))
    echo "FAIL: $*"
}
# check NAME COMMAND...: passes when the command succeeds.
check() {
    local name=$1
    shift
    if "$@"; then pass; else fail "$name"; fi
}

# --- helpers ---------------------------------------------------------------------------------

if command -v python3 > /dev/null 2>&1; then
    JSON_TOOL=python3
elif command -v node > /dev/null 2>&1; then
    JSON_TOOL=node
else
    echo "cli_tests.sh needs python3 or node to parse JSON" >&2
    echo "0 passed, 1 failed"
    exit 2
fi

# json_get FILE KEY: prints the value of a top-level key ("null" for null, true/false).
json_get() {
    if [[ $JSON_TOOL == python3 ]]; then
        python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))[sys.argv[2]]
print("null" if v is None else ("true" if v is True else ("false" if v is False else v)))' "$1" "$2"
    else
        node -e '
const v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]];
console.log(v === null ? "null" : String(v));' "$1" "$2"
    fi
}

# json_valid FILE: the file is exactly one JSON object.
json_valid() {
    if [[ $JSON_TOOL == python3 ]]; then
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert isinstance(d, dict)' "$1" 2> /dev/null
    else
        node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); if (typeof d !== "object" || Array.isArray(d)) process.exit(1);' "$1" 2> /dev/null
    fi
}

# xml_valid FILE
xml_valid() {
    if command -v xmllint > /dev/null 2>&1; then
        xmllint --noout "$1" 2> /dev/null
    elif command -v python3 > /dev/null 2>&1; then
        python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1" 2> /dev/null
    else
        echo "(no xmllint or python3: SVG well-formedness not checked)" >&2
        return 0
    fi
}

# hash_of ARGS...: runs orca with --json and prints the state hash (empty on failure).
hash_of() {
    "$ORCA" "$@" --json > hash.json 2> hash.err || { cat hash.err >&2; return 1; }
    json_get hash.json hash
}

is_hex16() { [[ $1 =~ ^[0-9a-f]{16}$ ]]; }

# expect_status WANT NAME COMMAND...: runs the command (output to out.txt/err.txt).
expect_status() {
    local want=$1 name=$2
    shift 2
    "$@" > out.txt 2> err.txt
    local got=$?
    if [[ $got -eq $want ]]; then
        pass
    else
        fail "$name: exit status $got, expected $want (stderr: $(head -c 300 err.txt))"
    fi
}

# err_matches NAME REGEX: err.txt matches the extended regular expression.
err_matches() {
    if grep -Eq -- "$2" err.txt; then
        pass
    else
        fail "$1: stderr '$(head -c 300 err.txt)' does not match /$2/"
    fi
}

# --- version and help ------------------------------------------------------------------------

expect_status 0 "--version" "$ORCA" --version
check "--version text" grep -Eq '^orca [0-9]+\.[0-9]+\.[0-9]+ \(bits version [0-9]+\)$' out.txt
BITS=$(sed -nE 's/^orca .* \(bits version ([0-9]+)\)$/\1/p' out.txt)
expect_status 0 "--help" "$ORCA" --help
check "--help lists the commands" grep -q "bench" out.txt
expect_status 0 "help" "$ORCA" help
for c in run scene bench; do
    expect_status 0 "help $c" "$ORCA" help "$c"
    expect_status 0 "$c --help" "$ORCA" "$c" --help
    check "$c --help starts with Usage" grep -q "^Usage: orca $c" out.txt
    # printf's escape shown literally (issue 31: "P%%" in orca help bench)
    check "$c --help shows no '%%'" test -z "$(grep -F '%%' out.txt)"
done
"$ORCA" run --help > runhelp.txt
for opt in --scene --agents --seed --steps --max-steps --dt --workers --json --csv --every --svg \
    --save --load --quiet; do
    check "run --help documents $opt" grep -q -- "$opt" runhelp.txt
done
"$ORCA" bench --help > benchhelp.txt
for opt in --sizes --workers --runs --steps --warmup --csv --cold --churn --extensions; do
    check "bench --help documents $opt" grep -q -- "$opt" benchhelp.txt
done
expect_status 2 "no command" "$ORCA"
expect_status 2 "unknown command" "$ORCA" frobnicate
err_matches "unknown command message" "unknown command 'frobnicate'"
expect_status 2 "help of an unknown command" "$ORCA" help frobnicate
check "unknown command: no suggestion when nothing is near" eval '! grep -q "did you mean" err.txt'
# A slip gets the nearest command or option by edit distance, for every subcommand.
for slip in "rnu|unknown command 'rnu': did you mean 'run'\\? \\(commands:" \
            "help sceen|help: unknown command 'sceen': did you mean 'scene'\\?" \
            "--verison|unknown option '--verison': did you mean '--version'\\?" \
            "run --scene circle --stpes 3|run: unknown option '--stpes': did you mean '--steps'\\?" \
            "run --scene circle --max-step 3|run: unknown option '--max-step': did you mean '--max-steps'\\?" \
            "run --scene circle -steps 3|run: unknown option '-steps': did you mean '--steps'\\?" \
            "run --scene circle --svgtrail 3|run: unknown option '--svgtrail': did you mean '--svg-trail'\\?" \
            "scene circle --ouput x.txt|scene: unknown option '--ouput': did you mean '--output'\\?" \
            "bench --size 100|bench: unknown option '--size': did you mean '--sizes'\\?" \
            "bench --cld|bench: unknown option '--cld': did you mean '--cold'\\?" \
            "run --scene circel|--scene: unknown scene 'circel': did you mean 'circle'\\? \\(built-in scenes:" \
            "bench --scene wallgp|--scene: unknown scene 'wallgp': did you mean 'wallgap'\\?"; do
    args=${slip%%|*}
    # shellcheck disable=SC2086
    expect_status 2 "slip: orca $args" "$ORCA" $args
    err_matches "slip: orca $args: did you mean" "^orca: ${slip#*|}"
done

# --- every built-in scene, briefly -------------------------------------------------------------

declare -A DEFAULT_AGENTS=([circle]=100 [crossing]=98 [wallgap]=40 [corridor]=40)
for s in circle crossing wallgap corridor random; do
    extra=()
    [[ $s == random ]] && extra=(-n 200)
    expect_status 0 "run --scene $s" "$ORCA" run --scene "$s" "${extra[@]}" --steps 20
    cp out.txt "summary-$s.txt"
    for field in "agents" "segments" "steps" "simulated time" "arrival" "deepest overlap" \
        "mean speed" "fallback" "wall time" "throughput" "state hash"; do
        check "$s summary has '$field'" grep -q "^  $field " "summary-$s.txt"
    done
    check "$s summary hash is 16 hex digits and the bits version" \
        grep -Eq "^  state hash +[0-9a-f]{16} \\(bits version $BITS\\)\$" "summary-$s.txt"
    check "$s summary names the scene" grep -q "^orca run: $s " "summary-$s.txt"
    check "$s: no progress on a non-terminal stderr" test ! -s err.txt

    expect_status 0 "run --scene $s --json" "$ORCA" run --scene "$s" "${extra[@]}" --steps 20 --json
    cp out.txt "$s.json"
    check "$s --json is one JSON object" json_valid "$s.json"
    check "$s --json scene" test "$(json_get "$s.json" scene)" = "$s"
    check "$s --json steps" test "$(json_get "$s.json" steps)" = 20
    check "$s --json last_step" test "$(json_get "$s.json" last_step)" = 20
    want=${DEFAULT_AGENTS[$s]:-200}
    check "$s --json agents = $want" test "$(json_get "$s.json" agents)" = "$want"
    check "$s --json hash" is_hex16 "$(json_get "$s.json" hash)"
    check "$s json hash = text hash" grep -q "$(json_get "$s.json" hash)" "summary-$s.txt"
    check "$s --json bits_version = --version's" test "$(json_get "$s.json" bits_version)" = "$BITS"
    for key in segments dt seed simulated_time arrived not_arrived all_arrived \
        all_arrived_step max_agent_overlap max_wall_overlap mean_speed fallback_total \
        wall_time agent_steps_per_second workers; do
        check "$s --json has $key" json_get "$s.json" "$key" > /dev/null
    done
done
check "wallgap has 2 segments" test "$(json_get wallgap.json segments)" = 2
check "circle has 0 segments" test "$(json_get circle.json segments)" = 0

# Until all arrived (the default) and the step cap.
expect_status 0 "corridor until all arrived" "$ORCA" run --scene corridor --json
cp out.txt arrive.json
check "corridor: all arrived" test "$(json_get arrive.json all_arrived)" = true
check "corridor: stopped at the arrival step" \
    test "$(json_get arrive.json all_arrived_step)" = "$(json_get arrive.json last_step)"
check "corridor: not_arrived 0" test "$(json_get arrive.json not_arrived)" = 0
expect_status 0 "circle with --max-steps 10" "$ORCA" run --scene circle --max-steps 10 --json
cp out.txt capped.json
check "capped: not all arrived" test "$(json_get capped.json all_arrived)" = false
check "capped: 10 steps" test "$(json_get capped.json steps)" = 10
check "capped: arrival step null" test "$(json_get capped.json all_arrived_step)" = null
expect_status 0 "circle with --max-steps 10 (text)" "$ORCA" run --scene circle --max-steps 10
check "capped text says how many did not arrive" grep -Eq "arrival +[0-9]+ of 100 agents arrived, [0-9]+ did not" out.txt

# Quiet, and JSON still printed with --quiet.
expect_status 0 "--quiet" "$ORCA" run --scene corridor --steps 5 --quiet
check "--quiet prints nothing" test ! -s out.txt
expect_status 0 "--quiet --json" "$ORCA" run --scene corridor --steps 5 --quiet --json
check "--quiet --json prints JSON" json_valid out.txt

# The same bits for any worker count.
h1=$(hash_of run --scene random -n 300 --steps 30 -j 1)
h2=$(hash_of run --scene random -n 300 --steps 30 -j 2)
h3=$(hash_of run --scene random -n 300 --steps 30 -j 3)
check "random -j 1 hash" is_hex16 "$h1"
check "random: -j 2 = -j 1" test "$h1" = "$h2"
check "random: -j 3 = -j 1" test "$h1" = "$h3"
check "-j 0 (one per CPU) works" test "$(hash_of run --scene random -n 300 --steps 30 -j 0)" = "$h1"

# And with the scalar code only (--scalar): the vector kernels give the same bits.
check "random: --scalar = default" test "$(hash_of run --scene random -n 300 --steps 30 --scalar)" = "$h1"
check "random: --scalar -j 2 = default" \
    test "$(hash_of run --scene random -n 300 --steps 30 --scalar -j 2)" = "$h1"
expect_status 0 "run --scalar --json" "$ORCA" run --scene circle -n 20 --steps 3 --scalar --json
check "--scalar: vector_kernels false" test "$(json_get out.txt vector_kernels)" = false
"$ORCA" run --scene circle --steps 3 --json > out.txt
check "plain scene: extended_path false" test "$(json_get out.txt extended_path)" = false
"$ORCA" run --scene circle --steps 3 --diagnostics --json > out.txt
check "--diagnostics: extended_path true" test "$(json_get out.txt extended_path)" = true
expect_status 0 "run --scalar text" "$ORCA" run --scene circle -n 20 --steps 3 --scalar
check "--scalar: the summary says scalar code" grep -q "1 worker, scalar code)" out.txt
expect_status 0 "bench --scalar" "$ORCA" bench --sizes 200 --runs 1 --steps 2 --workers 1 --scalar
check "bench --scalar: the header says so" grep -q "scalar code (--scalar)" out.txt
expect_status 2 "run --scalar=1 (takes no value)" "$ORCA" run --scene circle --scalar=1

# Seeds and dt change the run.
hs1=$(hash_of run --scene random -n 100 --steps 5 --seed 1)
hs2=$(hash_of run --scene random -n 100 --steps 5 --seed 2)
check "another seed gives another random scene" test "$hs1" != "$hs2"
expect_status 0 "--dt" "$ORCA" run --scene corridor --steps 3 --dt 0.1 --json
check "--dt is used" test "$(json_get out.txt dt)" = 0.1

# --- CSV ---------------------------------------------------------------------------------------

expect_status 0 "--csv --every" "$ORCA" run --scene corridor --steps 23 --csv traj.csv --every 5 --quiet
check "CSV header" test "$(head -n 1 traj.csv)" = "step,time,agent,x,y,vx,vy"
# Steps 0, 5, 10, 15, 20 and the last, 23: 6 x 40 rows + the header.
check "CSV row count" test "$(wc -l < traj.csv)" -eq 241
check "CSV steps" test "$(tail -n +2 traj.csv | cut -d, -f1 | uniq | tr '\n' ' ')" = "0 5 10 15 20 23 "
check "CSV last row is agent 39 at step 23" grep -q "^23,5.75,39," traj.csv
if command -v python3 > /dev/null 2>&1; then
    check "CSV numbers parse, 7 columns" python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ["step", "time", "agent", "x", "y", "vx", "vy"]
for r in rows[1:]:
    assert len(r) == 7
    int(r[0]); int(r[2]); [float(x) for x in r[1:2] + r[3:]]
' traj.csv
fi
expect_status 0 "--csv default every step" "$ORCA" run --scene corridor --steps 4 --csv all.csv --quiet
check "CSV every step: 5 x 40 rows + header" test "$(wc -l < all.csv)" -eq 201
expect_status 2 "--every without --csv" "$ORCA" run --scene corridor --steps 4 --every 2
expect_status 0 "--csv - (standard output)" "$ORCA" run --scene corridor --steps 2 --csv -
check "--csv - prints only the CSV" test "$(head -n 1 out.txt),$(wc -l < out.txt)" = "step,time,agent,x,y,vx,vy,121"
expect_status 2 "--csv - with --json" "$ORCA" run --scene corridor --steps 2 --csv - --json

# --- SVG ---------------------------------------------------------------------------------------

expect_status 0 "--svg" "$ORCA" run --scene wallgap --steps 60 --svg pic.svg
check "SVG is well-formed XML" xml_valid pic.svg
check "SVG root element" grep -q "<svg xmlns=\"http://www.w3.org/2000/svg\"" pic.svg
check "SVG caption names the scene" grep -q "wallgap" pic.svg
check "SVG caption has the hash" grep -q "$(grep -Eo '[0-9a-f]{16}' out.txt | head -n 1)" pic.svg
check "SVG has a scale bar label" grep -Eq '>[0-9.]+ (m|km|cm)</text>' pic.svg
check "SVG has one trajectory per agent" test "$(grep -c '<polyline' pic.svg)" -eq 40
check "SVG draws the 2 walls" test "$(grep -c '<line ' pic.svg)" -eq 2
check "SVG final discs: true radius 1.5 m scaled" grep -q 'fill-opacity="0.6"' pic.svg
expect_status 0 "--svg with 1000 agents" "$ORCA" run --scene random -n 1000 --steps 300 --svg big.svg --quiet
check "SVG of 1000 agents x 300 steps stays below 3 MB" test "$(wc -c < big.svg)" -lt 3000000
check "big SVG well-formed" xml_valid big.svg
# Trajectories are sampled evenly over the whole run, however long: 100 agents walking +x at
# 1 m/s for 20,000 steps; the legend says every how many steps (K), each trajectory has a
# point every K steps from step 0 to 20,000 and the final position, equally spaced.
printf 'grid 1 100 0 0 1 3 prefvel 1 0\n' > walk.txt
expect_status 0 "--svg of a long run" "$ORCA" run walk.txt --steps 20000 --svg walk.svg --quiet
expect_status 0 "--svg of a long run: --svg-trail 1250" "$ORCA" run walk.txt --steps 20000 --svg walk-trail.svg --svg-trail 1250 --quiet
expect_status 0 "patrol to the step cap" "$ORCA" run "$SRC_DIR/examples/patrol.txt" --svg patrol-cap.svg --quiet
# colours: the direction of the goal (two agents walking +x share one, a third walking -x not)
printf 'agent 0 0 goal 10 0\nagent 0 5 goal 10 5\nagent 10 10 goal 0 10\n' > dirs.txt
expect_status 0 "--svg: colours by direction" "$ORCA" run dirs.txt --steps 10 --svg dirs.svg --quiet
if command -v python3 > /dev/null 2>&1; then
    check "SVG: a point every K steps over the whole run, evenly spaced" python3 -c '
import re, sys
s = open(sys.argv[1]).read()
k = int(re.search(r"a point every (\d+) steps", s).group(1))
lines = re.findall(r"<polyline stroke=\"#[0-9a-f]{6}\" points=\"([^\"]*)\"", s)
assert len(lines) == 100, len(lines)
for q in lines:
    x = [float(p.split(",")[0]) for p in q.split()]
    assert len(x) == 20000 // k + 2, (len(x), k)
    d = [b - a for a, b in zip(x, x[1:-1])]
    assert max(d) - min(d) < 0.15, (min(d), max(d))
    assert x[-1] == x[-2]  # the final position is the sample at step 20000
' walk.svg
    check "SVG: patrol to the cap draws at least 4000 points per agent" python3 -c '
import re, sys
s = open(sys.argv[1]).read()
lines = re.findall(r"<polyline stroke=\"#[0-9a-f]{6}\" points=\"([^\"]*)\"", s)
n = [len(q.split()) for q in lines if len(q.split()) > 100]
assert len(n) == 8 and min(n) >= 4000, n
' patrol-cap.svg
    # --svg-trail 1250: the last 1250 s = 5000 steps of 20,000, so a quarter of each path
    check "SVG: --svg-trail draws the last seconds only" python3 -c '
import re, sys
def extent(path):
    s = open(path).read()
    lines = re.findall(r"<polyline stroke=\"#[0-9a-f]{6}\" points=\"([^\"]*)\"", s)
    xs = {}
    for q in lines:
        x = [float(p.split(",")[0]) for p in q.split()]
        xs.setdefault(q.split()[-1].split(",")[1], []).extend(x)  # by the final y
    return [max(x) - min(x) for x in xs.values()]
whole, trail = extent(sys.argv[1]), extent(sys.argv[2])
assert len(whole) == len(trail) == 100, (len(whole), len(trail))
for w, t in zip(whole, trail):
    assert abs(t / w - 0.25) < 0.002, (t, w)
' walk.svg walk-trail.svg
    check "SVG: colours by the direction of the goal" python3 -c '
import re, sys
c = re.findall(r"<polyline stroke=\"(#[0-9a-f]{6})\"", open(sys.argv[1]).read())
assert len(c) == 3 and c[0] == c[1] != c[2], c
' dirs.svg
else
    skip_checks 4
fi
check "SVG: --svg-trail fades in 4 shades" test "$(grep -c '<g stroke-opacity=' walk-trail.svg)" -eq 4
check "SVG: the legend says how long the trails are" grep -q "trail: the last 1250 s" walk-trail.svg
# the start and goal marks (white halo first) come after the trajectories: drawn over them
check "SVG: marks drawn over the trajectories" test "$(grep -n 'stroke="#fff"' dirs.svg | cut -d: -f1)" -gt "$(grep -n '<polyline' dirs.svg | tail -n 1 | cut -d: -f1)"
expect_status 2 "--svg-trail 0" "$ORCA" run dirs.txt --steps 1 --svg x.svg --svg-trail 0
err_matches "--svg-trail 0: message" "^orca: --svg-trail: must be > 0 seconds, got '0'$"
expect_status 2 "--svg-trail without --svg" "$ORCA" run dirs.txt --steps 1 --svg-trail 5
err_matches "--svg-trail without --svg: message" "^orca: run: --svg-trail needs --svg$"
expect_status 2 "--svg-trail x" "$ORCA" run dirs.txt --steps 1 --svg x.svg --svg-trail x
err_matches "--svg-trail x: message" "^orca: --svg-trail: "

# --- scene files: write, read, round trip ------------------------------------------------------

for s in circle crossing wallgap corridor random; do
    expect_status 0 "scene $s -o" "$ORCA" scene "$s" -o "$s.txt"
    check "scene $s file header" grep -q "^orca-scene 1$" "$s.txt"
    a=$(hash_of run --scene "$s" --steps 25)
    b=$(hash_of run "$s.txt" --steps 25)
    check "$s: built-in hash after 25 steps" is_hex16 "$a"
    check "$s: scene file gives the built-in's hash" test "$a" = "$b"
    a0=$(hash_of run --scene "$s" --steps 0)
    b0=$(hash_of run "$s.txt" --steps 0)
    check "$s: same initial hash" test "$a0" = "$b0"
done
# One set of defaults (issue 27, item 10): the scene with every parameter at its default
# reaches the hash the C API, Python and the browser module reach (test/golden/defaults.txt).
read -r _ steps_eq hash_eq < "$SRC_DIR/test/golden/defaults.txt"
check "defaults scene: the hash of test/golden/defaults.txt" \
    test "$(hash_of run "$SRC_DIR/test/golden/defaults-scene.txt" --steps "${steps_eq#steps=}")" = "${hash_eq#hash=}"
"$ORCA" scene random -n 150 --seed 7 > r7.txt
check "scene to stdout, -n and --seed" test "$(grep -c '^agent ' r7.txt)" -eq 150
check "random -n 150 --seed 7 round trip" \
    test "$(hash_of run --scene random -n 150 --seed 7 --steps 10)" = "$(hash_of run r7.txt --steps 10)"
"$ORCA" scene corridor --dt 0.125 > c125.txt
check "scene --dt round trip" \
    test "$(hash_of run --scene corridor --dt 0.125 --steps 10)" = "$(hash_of run c125.txt --steps 10)"
check "--seed overrides the file's seed" \
    test "$(hash_of run --scene circle --seed 9 --steps 10)" = "$(hash_of run circle.txt --seed 9 --steps 10)"
check "scene file from standard input" \
    test "$(hash_of run - --steps 10 < corridor.txt)" = "$(hash_of run --scene corridor --steps 10)"

# Hexadecimal floats read as the same bits as decimals; obstacles in all three forms.
cat > dec.txt << 'EOF'
# decimal
name forms
dt 0.25
seed 3
default radius 0.5
segment -10 -3 10 -3
polyline -10 3 0 4 10 3
polygon 20 20 22 20 22 22
polygon
  -20 -20   # block form
  -22 -20
  -22 -22
end
agent -5 0 goal 5 0.75
agent 5 0 goal -5 0 radius=0.625 velocity=-0.5,0
agent 0 1 prefvel 0.25 0
agent 0 -1 none max_neighbors=3
agent 0 -2
EOF
cat > hex.txt << 'EOF'
name forms
dt 0x1p-2
seed 0x3
default radius 0x1p-1
segment -0xAp0 -3 10 -0x1.8p1
polyline -10 3 0 4 10 3
polygon 20 20 22 20 22 22
polygon -20 -20 -22 -20 -22 -22
agent -5 0 goal 5 0x1.8p-1
agent 5 0 goal -5 0 radius=0x1.4p-1 velocity=-0x1p-1,0
agent 0 1 prefvel 0x1p-2 0
agent 0 -1 none max_neighbors=0x3
agent 0 -2 none
EOF
hd=$(hash_of run dec.txt --steps 12)
hh=$(hash_of run hex.txt --steps 12)
check "hand-written scene runs" is_hex16 "$hd"
check "hex floats give the same bits as decimals" test "$hd" = "$hh"
check "segments of segment + polyline + 2 polygons = 1 + 2 + 3 + 3" test "$(json_get hash.json segments)" = 9
check "scene name from the file" test "$(json_get hash.json scene)" = forms
expect_status 2 "no goal point and no --steps" "$ORCA" run - <<< 'agent 0 0'
err_matches "no goal point message" "give --steps"

# Walkable-area boundaries: both forms give the same bits, the summary measures them, and the
# examples keep every agent at least its radius from the walls.
cat > bnd1.txt << 'EOF'
boundary 0 0 24 0 24 16 0 16
boundary 10 6 10 10 14 10 14 6
agent 2 8 goal 22 8 radius=0.5
agent 22 8.5 goal 2 8 radius=0.5
EOF
cat > bnd2.txt << 'EOF'
boundary
  0 0
  24 0
  24 16
  0 16
end
boundary 10 6 10 10 14 10 14 6
agent 2 8 goal 22 8 radius=0.5
agent 22 8.5 goal 2 8 radius=0.5
EOF
b1=$(hash_of run bnd1.txt --steps 40)
check "boundary scene runs" is_hex16 "$b1"
check "boundary line and block forms give the same bits" test "$b1" = "$(hash_of run bnd2.txt --steps 40)"
check "boundary JSON counts loops" test "$(json_get hash.json boundaries)" = 2
check "boundary JSON: nobody outside" test "$(json_get hash.json max_outside)" = 0
for ex in room bend; do
    "$ORCA" run "$SRC_DIR/examples/$ex.txt" > ex.txt 2>&1
    check "examples/$ex.txt: all arrive" grep -q "all 14 agents arrived" ex.txt
    check "examples/$ex.txt: no intrusion" grep -q "deepest intrusion 0 .*at most 0 agents outside" ex.txt
done
"$ORCA" run bnd1.txt --steps 5 --svg bnd.svg > /dev/null 2>&1
check "boundary drawn in the SVG" grep -q 'fill-rule="nonzero"' bnd.svg

# --- scene file errors: exit 2, file:line: message, no run ---------------------------------------

# bad_scene NAME LINE REGEX CONTENT: the file is refused with "bad.txt:LINE: ...REGEX".
bad_scene() {
    local name=$1 line=$2 regex=$3
    printf '%b' "$4" > bad.txt
    expect_status 2 "bad scene ($name)" "$ORCA" run bad.txt --steps 5
    err_matches "bad scene ($name) message" "^bad\.txt:$line: .*$regex"
    check "bad scene ($name): nothing on stdout" test ! -s out.txt
}
bad_scene "negative radius" 3 "radius must be > 0, got '-1'" 'dt 0.25\nagent 0 0 goal 1 1\nagent 5 5 goal 1 1 radius=-1\n'
bad_scene "zero default radius" 1 "radius must be > 0" 'default radius 0\nagent 0 0\n'
bad_scene "not a number" 2 "goal x: expected a number, got '1O'" '# c\nagent 0 0 goal 1O 1\n'
bad_scene "trailing garbage" 1 "x: expected a number, got '1.5m'" 'agent 1.5m 0\n'
bad_scene "NaN" 1 "expected a finite number, got 'nan'" 'agent nan 0\n'
bad_scene "infinity" 1 "expected a finite number" 'agent 0 0 goal inf 0\n'
bad_scene "overflow" 1 "out of range" 'agent 0 0 max_speed=1e999\n'
bad_scene "coordinate limit" 1 "magnitude below 2\\^21" 'agent 3e6 0\n'
bad_scene "unknown statement" 2 "unknown statement 'agnet'" 'agent 0 0\nagnet 1 1\n'
bad_scene "unknown parameter" 1 "unknown agent parameter 'radus'" 'agent 0 0 radus=1\n'
bad_scene "max_neighbors range" 1 "max_neighbors must be between 0 and 1024" 'agent 0 0 max_neighbors=5000\n'
bad_scene "max_neighbors fraction" 1 "max_neighbors: expected a whole number" 'agent 0 0 max_neighbors=2.5\n'
bad_scene "negative seed" 1 "seed: expected a whole number" 'seed -1\nagent 0 0\n'
bad_scene "dt twice" 3 "dt given twice \\(first on line 1\\)" 'dt 0.25\nagent 0 0\ndt 0.5\n'
bad_scene "dt zero" 1 "dt must be > 0" 'dt 0\nagent 0 0\n'
bad_scene "short segment" 2 "segment takes 4 numbers" 'agent 0 0\nsegment 0 0 1\n'
bad_scene "short polygon" 1 "polygon needs at least 3 points, got 2" 'polygon 0 0 1 1\nagent 5 5\n'
bad_scene "unterminated block" 2 "polygon block has no 'end'" 'agent 5 5\npolygon\n0 0\n1 0\n2 2\n'
bad_scene "statement inside a block" 3 "'agent' inside the polygon block started on line 1 \\(missing 'end'\\?\\)" 'polygon\n0 0\nagent 1 1\n'
bad_scene "bad velocity" 1 "velocity: expected VX,VY" 'agent 0 0 velocity=1\n'
bad_scene "parameter twice" 1 "given twice" 'agent 0 0 radius=1 radius=2\n'
bad_scene "library refusal" 1 "agent 0: .*max_speed must be in \\[0, 2\\^30\\] m/s, got 1(\\.0*1)?e\\+300" 'agent 0 0 max_speed=1e300 obstacle_time_horizon=1e300\n'
bad_scene "format version" 1 "format version 1" 'orca-scene 2\nagent 0 0\n'
bad_scene "short boundary" 1 "boundary needs at least 3 points .*got 2" 'boundary 0 0 1 1\nagent 5 5\n'
bad_scene "odd boundary" 2 "boundary: coordinates come in x y pairs, got 5 numbers" 'agent 5 5\nboundary 0 0 1 1 2\n'
bad_scene "boundary point" 1 "point 2 y must have magnitude below 2\\^21" 'boundary 0 0 1 3e6 2 2\nagent 5 5\n'
bad_scene "boundary equal points" 2 "boundary points 2 and 0 are equal" 'agent 0.5 0.2\nboundary 0 0 1 0 0 0\n'
bad_scene "boundary zero area" 1 "zero area" 'boundary 0 0 1 1 2 2\nagent 5 5\n'
bad_scene "unterminated boundary block" 2 "boundary block has no 'end'" 'agent 5 5\nboundary\n0 0\n1 0\n'
# an agent whose disc does not fit in the walkable area: its own line, whatever the order
bad_scene "agent outside the boundary" 2 "agent 1: .*agent 1 at \\(30, 5\\) is outside the walkable area .*boundary loop 0 \\(edge 1" 'agent 5 5\nagent 30 5\nboundary 0 0 20 0 20 10 0 10\n'
bad_scene "agent against the boundary" 2 "agent 0 at \\(19.5, 5\\) with radius 1.5 is 0.5 from boundary loop 0" 'boundary 0 0 20 0 20 10 0 10\nagent 19.5 5\n'
bad_scene "agent in a hole" 3 "agent 0 at \\(10, 5\\) is outside the walkable area" 'boundary 0 0 20 0 20 10 0 10\nboundary 9 4 9 6 11 6 11 4\nagent 10 5 radius=0.5\n'

printf '# only a comment\n' > empty.txt
expect_status 2 "scene without agents" "$ORCA" run empty.txt --steps 1
err_matches "scene without agents message" "^empty\.txt: the scene has no agents"
expect_status 2 "missing scene file" "$ORCA" run does-not-exist.txt
err_matches "missing scene file message" "does-not-exist\.txt: cannot open"

# --- command-line errors -------------------------------------------------------------------------

expect_status 2 "--agents abc" "$ORCA" run --scene circle --agents abc
err_matches "--agents abc message" "^orca: --agents: expected a whole number, got 'abc'$"
expect_status 2 "-n trailing garbage" "$ORCA" run --scene circle -n 10x
err_matches "-n 10x message" "expected a whole number, got '10x'"
expect_status 2 "-n 0" "$ORCA" run --scene circle -n 0
expect_status 2 "--dt nan" "$ORCA" run --scene circle --dt nan
err_matches "--dt nan message" "^orca: --dt: expected a finite number, got 'nan'$"
expect_status 2 "--dt -1" "$ORCA" run --scene circle --dt -1
expect_status 2 "--dt 1e999" "$ORCA" run --scene circle --dt 1e999
expect_status 2 "--steps -1" "$ORCA" run --scene circle --steps -1
expect_status 2 "--seed too big" "$ORCA" run --scene circle --seed 18446744073709551616
expect_status 2 "--workers 65" "$ORCA" run --scene circle -j 65
expect_status 2 "unknown option" "$ORCA" run --scene circle --frobnicate
err_matches "unknown option message" "unknown option '--frobnicate'$"
expect_status 2 "unknown scene" "$ORCA" run --scene blob
expect_status 2 "missing option value" "$ORCA" run --scene circle --steps
expect_status 2 "no scene" "$ORCA" run
expect_status 2 "scene file and --scene" "$ORCA" run circle.txt --scene circle
expect_status 2 "--agents with a scene file" "$ORCA" run circle.txt -n 10
expect_status 2 "too many agents (library limit)" "$ORCA" run --scene circle -n 5000000
err_matches "library limit message" "agent_count must be at most"
expect_status 2 "circle beyond 2^21 (library limit)" "$ORCA" run --scene circle -n 2196133
err_matches "circle limit message" "agent_count must be at most 2196132 for scene circle"
expect_status 2 "scene: unknown name" "$ORCA" scene blob
expect_status 2 "bench: bad size" "$ORCA" bench --sizes 1000,abc
expect_status 2 "bench: bad workers" "$ORCA" bench --workers 0

# --- runtime failures: exit 1 ----------------------------------------------------------------------

expect_status 1 "unwritable --csv" "$ORCA" run --scene corridor --steps 1 --csv "$TMP/no/such/dir/x.csv"
expect_status 1 "unwritable --save" "$ORCA" run --scene corridor --steps 1 --save "$TMP/no/such/dir/x.snap"

# --- snapshots ------------------------------------------------------------------------------------

expect_status 0 "50 steps + --save" "$ORCA" run --scene corridor --steps 50 --save half.snap --quiet
check "snapshot written" test -s half.snap
hfull=$(hash_of run --scene corridor --steps 100)
hcont=$(hash_of run --scene corridor --load half.snap --steps 50)
check "load + 50 steps = 100 steps" test "$hfull" = "$hcont"
check "continued run reports first_step 50" test "$(json_get hash.json first_step)" = 50
check "continued run reports last_step 100" test "$(json_get hash.json last_step)" = 100
check "load with a scene file and 2 workers = 100 steps" \
    test "$(hash_of run corridor.txt --load half.snap --steps 50 -j 2)" = "$hfull"
expect_status 0 "random: 50 steps + --save" "$ORCA" run --scene random -n 300 --steps 50 --save r.snap -j 2 --quiet
check "random: load + 50 = 100" \
    test "$(hash_of run --scene random -n 300 --load r.snap --steps 50)" = "$(hash_of run --scene random -n 300 --steps 100)"
check "--save writes the scenario's snapshot" test "$(head -c 8 half.snap)" = ORCASCEN
# a snapshot of another scene, or of other options, is refused, naming the difference
expect_status 2 "--load of another scene's snapshot" "$ORCA" run --scene circle --load half.snap --steps 1
err_matches "mismatched snapshot message" "^orca: --load: half\.snap: the snapshot is of scene 'corridor' but the scene is 'circle' \(give the scene the snapshot was saved from\)$"
expect_status 2 "--load with another -n" "$ORCA" run --scene corridor -n 20 --load half.snap --steps 1
err_matches "--load with another -n: message" "^orca: --load: half\.snap: the snapshot has 40 agents but the scene has 20 \(give"
expect_status 2 "--load with another --dt" "$ORCA" run --scene corridor --dt 0.125 --load half.snap --steps 1
err_matches "--load with another --dt: message" "the snapshot's dt is 0\.25 s but the scene's is 0\.125 s \(give the --dt the snapshot was saved with\)$"
expect_status 2 "--load with another --seed" "$ORCA" run --scene corridor --seed 2 --load half.snap --steps 1
err_matches "--load with another --seed: message" "the snapshot's seed is 1 but the scene's is 2 \(give the --seed the snapshot was saved with\)$"
sed '/^segment/d' corridor.txt > corridor-open.txt
expect_status 2 "--load into the scene without its walls" "$ORCA" run corridor-open.txt --load half.snap --steps 1
err_matches "--load without the walls: message" "the snapshot has [0-9]+ wall segments but the scene has 0"
# Simulation snapshots of orca 0.3 (orca_sim_save's bytes, ORCASNAP) still load: the goals, dt
# and seed come from the scene. test/golden/orca-0.3-corridor-50.snap is orca 0.3.0's
# 'orca run --scene corridor --steps 50 --save'.
OLD_SNAP="$SRC_DIR/test/golden/orca-0.3-corridor-50.snap"
check "orca 0.3 snapshot: load + 50 steps = 100 steps" \
    test "$(hash_of run --scene corridor --load "$OLD_SNAP" --steps 50)" = "$hfull"
check "orca 0.3 snapshot: the summary covers this run (first_step 50)" test "$(json_get hash.json first_step)" = 50
expect_status 2 "orca 0.3 snapshot of another scene" "$ORCA" run --scene circle --load "$OLD_SNAP" --steps 1
err_matches "orca 0.3 snapshot of another scene: message" "the snapshot has 40 agents but the scene has 100 \(give"
head -c 64 half.snap > trunc.snap
expect_status 2 "--load of a truncated snapshot" "$ORCA" run --scene corridor --load trunc.snap --steps 1
err_matches "truncated snapshot message" "^orca: --load: trunc\.snap: "
printf 'not a snapshot at all' > junk.snap
expect_status 2 "--load of junk" "$ORCA" run --scene corridor --load junk.snap --steps 1
expect_status 2 "--load of a missing file" "$ORCA" run --scene corridor --load nope.snap --steps 1

# --- bench (tiny: it prints figures, it never judges speed) -----------------------------------------

expect_status 0 "bench, tiny" "$ORCA" bench --sizes 200,400 --workers 1,2 --runs 2 --steps 3 --warmup 2 --csv bench.csv
check "bench prints a row per size and worker count" test "$(grep -Ec '^ +(200|400) +[12] ' out.txt)" -eq 4
check "bench reports the same bits" test "$(grep -c ' yes$' out.txt)" -eq 4
check "bench CSV header" grep -q "^scene,agents,workers,steps,warmup,runs,median_agent_steps_per_s" bench.csv
check "bench CSV rows" test "$(wc -l < bench.csv)" -eq 5
expect_status 0 "bench --scene circle" "$ORCA" bench --scene circle --sizes 100 --workers 1 --runs 1 --steps 2 --warmup 0
# issue 17: cold steps and churn (figures only)
expect_status 0 "bench --cold, tiny" "$ORCA" bench --cold --sizes 300 --workers 1,2 --runs 2 --warmup 2
check "bench --cold prints build, load and move per worker count" test "$(grep -Ec '^ +300 +[12] +(build|load|move) ' out.txt)" -eq 6
expect_status 0 "bench --churn, tiny" "$ORCA" bench --churn 5 --sizes 400 --workers 1,2 --runs 2 --steps 3 --warmup 2
check "bench --churn prints a row per worker count, k = 20" test "$(grep -Ec '^ +400 +[12] +3 +20 ' out.txt)" -eq 2
expect_status 2 "bench --churn out of range" "$ORCA" bench --churn 60
expect_status 2 "bench --churn not a number" "$ORCA" bench --churn abc
expect_status 2 "bench --cold with --churn" "$ORCA" bench --cold --churn 1
expect_status 2 "bench --cold with --csv" "$ORCA" bench --cold --csv x.csv
# --extensions: the plain and the extended path, interleaved (issue 30)
for m in mix defaults; do
    expect_status 0 "bench --extensions $m, tiny" "$ORCA" bench --extensions "$m" --sizes 300 --runs 1 --steps 2 --warmup 2 --workers 1,2 --csv "ext-$m.csv"
    check "bench --extensions $m: the header line names the mix" grep -q "^orca bench --extensions $m: scene random, seed 1, " out.txt
    check "bench --extensions $m: the columns" grep -Eq '^ +agents +workers +S +plain/s +extended/s +ratio +ratio range +same plain +same ext$' out.txt
    check "bench --extensions $m: a row per worker count, same bits on both paths" \
        test "$(grep -Ec '^ +300 +[12] +2 +[0-9.e+]+ +[0-9.e+]+ +[0-9.]+ +[0-9.]+\.\.[0-9.]+ +yes +yes$' out.txt)" -eq 2
    check "bench --extensions $m: says what it applied" grep -q "^  $m at 300 agents: " out.txt
    check "bench --extensions $m: CSV header" grep -q "^scene,extensions,agents,workers,steps,warmup,runs,plain_median_agent_steps_per_s,.*,ratio_median,ratio_min,ratio_max,plain_same_bits,extended_same_bits,plain_hash,extended_hash$" "ext-$m.csv"
    check "bench --extensions $m: CSV rows" test "$(grep -Ec "^random,$m,300,[12],2,2,1,.*,1,1,[0-9a-f]{16},[0-9a-f]{16}$" "ext-$m.csv")" -eq 2
    hashes=$(sed 1d "ext-$m.csv" | cut -d, -f19,20 | sort -u)
    check "bench --extensions $m: CSV: one hash per path over the worker counts; they differ" \
        test "$(wc -l <<< "$hashes")" -eq 1 -a "${hashes%,*}" != "${hashes#*,}"
    if [[ $m == mix ]]; then
        check "bench --extensions mix: 5% of 300 locked, the outer loop 3.5 m out, 4 pillars" \
            grep -Eq '^  mix at 300 agents: 15 locked \(5\.0%\), outer square 3\.5 m beyond the agents and goals, 4 pillars ' out.txt
    else
        check "bench --extensions defaults: one loop 100 m out" \
            grep -q '^  defaults at 300 agents: one loop 100 m beyond the agents and goals' out.txt
    fi
done
expect_status 0 "bench --extensions --scalar" "$ORCA" bench --extensions defaults --sizes 200 --runs 1 --steps 2 --warmup 0 --workers 1 --scalar
check "bench --extensions --scalar: the header says so" grep -q "scalar code (--scalar)" out.txt
check "bench --extensions --scalar: a row" grep -Eq '^ +200 +1 +2 .* yes +yes$' out.txt
expect_status 2 "bench --extensions bad value" "$ORCA" bench --extensions fast
err_matches "bench --extensions bad value: message" "--extensions: 'defaults', 'mix' or 'pedestrian', got 'fast'"
expect_status 2 "bench --extensions with --cold" "$ORCA" bench --extensions mix --cold
err_matches "bench --extensions with --cold: message" "--extensions .*does not go with --cold"
expect_status 2 "bench --extensions with --churn" "$ORCA" bench --extensions defaults --churn 5
err_matches "bench --extensions with --churn: message" "--extensions .*does not go with --churn"

# --- issue 12: inputs, outputs and messages of the command (hostile input) ---------------------

# in_time SECONDS ARGS...: runs orca with a time limit and, where the binary runs under one
# (not with AddressSanitizer, which reserves terabytes of address space), a 1 GB address-space
# limit: a command that reads without bound fails these tests instead of the machine.
VMEM_OK=0
if (ulimit -v 400000 && "$ORCA" --version) > /dev/null 2>&1; then
    VMEM_OK=1
fi
TIMEOUT=()
if command -v timeout > /dev/null 2>&1; then
    TIMEOUT=(timeout)
fi
in_time() {
    local secs=$1
    shift
    local t=()
    [[ ${#TIMEOUT[@]} -gt 0 ]] && t=(timeout "$secs")
    if [[ $VMEM_OK == 1 ]]; then
        (ulimit -v 1000000 && "${t[@]}" "$ORCA" "$@")
    else
        "${t[@]}" "$ORCA" "$@"
    fi
}
# file_mode FILE: permission bits in octal (GNU or BSD stat).
file_mode() { stat -c %a "$1" 2> /dev/null || stat -f %Lp "$1"; }
# no_temporaries: no FILE.tmp.XXXXXX left in the test directory.
no_temporaries() { ! compgen -G "*.tmp.*" > /dev/null; }
# same_text FILE TEXT
same_text() { [[ "$(cat "$1")" == "$2" ]]; }

# Bounded reads: /dev/zero is refused at once, as a scene file and as a snapshot.
expect_status 2 "run /dev/zero" in_time 20 run /dev/zero
err_matches "run /dev/zero names the NUL byte" "^/dev/zero:1: NUL byte"
expect_status 2 "--load /dev/zero" in_time 20 run --scene circle --load /dev/zero
err_matches "--load /dev/zero: not a snapshot" "^orca: --load: /dev/zero: not a snapshot \(it does not begin with ORCASCEN or ORCASNAP\)$"
# A regular file larger than the limit is refused before it is read (sparse: no disk used).
dd if=/dev/null of=huge.bin bs=1 count=0 seek=1073741825 2> /dev/null
expect_status 2 "scene file over 1 GiB" in_time 20 run huge.bin
err_matches "scene file over 1 GiB message" "^huge\.bin: 1\.0 GiB \(1073741825 bytes\) is more than the limit of 1 GiB for a scene file$"
expect_status 2 "snapshot over 1 GiB" in_time 20 run --scene circle --load huge.bin
err_matches "snapshot over 1 GiB message" "^orca: --load: huge\.bin: .* is more than the limit of 1 GiB for a snapshot$"
rm -f huge.bin
# A pipe is counted as it is read: 1 GiB of comment lines, then the refusal.
comment_line=$(printf '#%.0s' $(seq 1000))
{ echo 'agent 0 0'; yes "$comment_line"; } 2> /dev/null | in_time 60 run - --steps 1 > out.txt 2> err.txt
check "scene from a pipe over 1 GiB: exit 2" test "$?" -eq 2
err_matches "scene from a pipe over 1 GiB message" "^<stdin>: more than the limit of 1 GiB for a scene file \(stopped reading at line [0-9]+\)$"
# Lines: up to 1 MiB (1048576 bytes before the newline).
{ head -c 1048576 /dev/zero | tr '\0' '#'; printf '\nagent 0 0\n'; } > longline.txt
expect_status 0 "a line of exactly 1 MiB" in_time 20 run longline.txt --steps 1
{ head -c 1048577 /dev/zero | tr '\0' '#'; printf '\nagent 0 0\n'; } > longline.txt
expect_status 2 "a line over 1 MiB" in_time 20 run longline.txt --steps 1
err_matches "a line over 1 MiB message" "^longline\.txt:1: the line is longer than the limit of 1 MiB"
head -c 3000000 /dev/zero | tr '\0' 'a' > longline.txt
expect_status 2 "one 3 MB line without a newline" in_time 20 run longline.txt --steps 1
err_matches "one 3 MB line message" "^longline\.txt:1: the line is longer than the limit of 1 MiB"
# Out of memory while reading says so (exit 1), never "no agents".
if [[ $VMEM_OK == 1 ]]; then
    (ulimit -v 300000 && "$ORCA" run --scene circle --load <(printf ORCASNAP; head -c 600000000 /dev/zero 2> /dev/null)) > out.txt 2> err.txt
    check "snapshot pipe under ulimit -v: exit 1" test "$?" -eq 1
    err_matches "snapshot pipe under ulimit -v message" "^orca: --load: out of memory reading /dev/fd/[0-9]+ \(after [0-9.]+ MiB"
    yes 'agent 0 0' 2> /dev/null | (ulimit -v 150000 && "$ORCA" run - --steps 1) > out.txt 2> err.txt
    check "endless scene under ulimit -v: exit 1" test "$?" -eq 1
    err_matches "endless scene under ulimit -v message" "^out of memory reading <stdin> \(at line [0-9]+\)$"
else
    echo "(ulimit -v does not work with this binary: out-of-memory tests skipped)"
    skip_checks 4
fi

# Directories, empty names.
mkdir -p adir
expect_status 2 "scene file is a directory" "$ORCA" run adir
err_matches "scene file directory message" "^adir: is a directory$"
expect_status 2 "--load of a directory" "$ORCA" run --scene corridor --load adir
err_matches "--load directory message" "^orca: --load: adir: is a directory$"
expect_status 1 "--csv to a directory" "$ORCA" run --scene corridor --steps 1 --csv adir
err_matches "--csv directory message" "^orca: --csv: adir: is a directory$"
expect_status 2 "empty scene file name" "$ORCA" run ''
err_matches "empty scene file name message" "empty scene file name"
expect_status 2 "empty --svg name" "$ORCA" run --scene corridor --svg ''
expect_status 2 "two outputs on one file" "$ORCA" run --scene corridor --steps 1 --csv same.out --svg same.out
err_matches "two outputs message" "--csv and --svg name the same file"
cp corridor.txt own.txt
expect_status 2 "--csv over the scene file" "$ORCA" run own.txt --steps 1 --csv own.txt
err_matches "--csv over the scene file message" "--csv 'own\.txt' would replace the scene file"
check "--csv over the scene file: the scene is kept" cmp -s own.txt corridor.txt
cp half.snap own.snap
expect_status 2 "--svg over the --load snapshot" "$ORCA" run --scene corridor --load own.snap --steps 1 --svg own.snap
expect_status 0 "--save over the --load snapshot (in place)" "$ORCA" run --scene corridor --load own.snap --steps 50 --save own.snap --quiet
check "--save in place: 50 + 50 steps" test "$(hash_of run --scene corridor --load own.snap --steps 0)" = "$hfull"
expect_status 0 "two outputs on $DEVNULL" "$ORCA" run --scene corridor --steps 1 --csv "$DEVNULL" --svg "$DEVNULL" --quiet

# Snapshots through standard input and output.
expect_status 0 "--save - (standard output)" "$ORCA" run --scene corridor --steps 50 --save -
cp out.txt piped.snap
check "--save -: the snapshot only" cmp -s piped.snap half.snap
check "--load - (standard input) continues with the same bits" \
    test "$(hash_of run --scene corridor --load - --steps 50 < piped.snap)" = "$hfull"
expect_status 2 "scene and snapshot both from standard input" "$ORCA" run - --load - --steps 1
expect_status 0 "--svg - (standard output)" "$ORCA" run --scene corridor --steps 5 --svg -
cp out.txt piped.svg
check "--svg -: a well-formed picture" xml_valid piped.svg
expect_status 2 "--svg - with --csv -" "$ORCA" run --scene corridor --steps 5 --svg - --csv -

# Atomic outputs: a run that fails partway leaves the old files and no temporary.
for f in a.csv a.svg a.snap; do echo OLD > "$f"; done
if ((WINDOWS)); then
    skip_checks 12 # ulimit -f, SIGXFSZ, SIGTERM
else
(trap '' XFSZ; ulimit -f 40; "$ORCA" run --scene corridor --steps 200 --csv a.csv --svg a.svg --save a.snap) > out.txt 2> err.txt
check "write error (file size limit): exit 1" test "$?" -eq 1
err_matches "write error message" "^orca: --(csv|svg|save): a\.(csv|svg|snap): write failed: File too large"
check "write error: old CSV kept" same_text a.csv OLD
check "write error: old SVG kept (not truncated at the start)" same_text a.svg OLD
check "write error: old snapshot kept" same_text a.snap OLD
check "write error: no temporary file left" no_temporaries
(ulimit -f 40; "$ORCA" run --scene corridor --steps 200 --csv a.csv --svg a.svg --save a.snap) > out.txt 2> err.txt
check "killed by SIGXFSZ: status 128+25" test "$?" -eq 153
check "killed by SIGXFSZ: old CSV kept" same_text a.csv OLD
check "killed by SIGXFSZ: no temporary file left" no_temporaries
"$ORCA" run --scene random -n 20000 --steps 1000000 --csv a.csv --svg a.svg --save a.snap > out.txt 2> err.txt &
run_pid=$!
sleep 1
kill -TERM "$run_pid"
wait "$run_pid"
check "SIGTERM: status 128+15" test "$?" -eq 143
check "SIGTERM: old files kept" test "$(cat a.csv a.svg a.snap)" = "$(printf 'OLD\nOLD\nOLD')"
check "SIGTERM: no temporary file left" no_temporaries
fi
# A path that cannot be written fails before the first step (also --save, written last).
echo x > plainfile
expect_status 1 "unwritable --save fails at once" in_time 20 run --scene random -n 2000 --steps 1000000 --save plainfile/x.snap
err_matches "unwritable --save message" "^orca: --save: plainfile/x\.snap: cannot write: $NOT_A_DIR$"
check "unwritable --save: no summary" test ! -s out.txt
expect_status 1 "unwritable --svg fails at once" in_time 20 run --scene random -n 2000 --steps 1000000 --svg plainfile/x.svg
# Success replaces the file, keeps its mode; a new file gets 0666 less the umask; a symbolic
# link stays a link to the new contents.
chmod 600 a.csv
expect_status 0 "--csv over an existing file" "$ORCA" run --scene corridor --steps 2 --csv a.csv --quiet
check "--csv replaced the file" test "$(head -n 1 a.csv)" = "step,time,agent,x,y,vx,vy"
if ((WINDOWS)); then
    skip_checks 5 # file modes, symbolic links
else
check "--csv kept the file's mode 600" test "$(file_mode a.csv)" = 600
rm -f new.csv
(umask 022 && "$ORCA" run --scene corridor --steps 2 --csv new.csv --quiet)
check "a new --csv file has mode 644 under umask 022" test "$(file_mode new.csv)" = 644
echo OLD > real.svg
ln -sf real.svg link.svg
expect_status 0 "--svg through a symbolic link" "$ORCA" run --scene corridor --steps 2 --svg link.svg --quiet
check "the link is still a link" test -L link.svg
check "the linked file was replaced" xml_valid real.svg
fi
check "atomic outputs: no temporary file left" no_temporaries
# orca scene -o and bench --csv the same way.
echo OLD > s.txt
if ((WINDOWS)); then
    skip_checks 2 # ulimit -f
else
(trap '' XFSZ; ulimit -f 8; "$ORCA" scene random -n 2000 -o s.txt) > out.txt 2> err.txt
check "scene -o write error: exit 1" test "$?" -eq 1
check "scene -o write error: old file kept" same_text s.txt OLD
fi
expect_status 1 "scene -o into a missing directory" "$ORCA" scene circle -o no/such/dir/c.txt
echo OLD > b.csv
expect_status 1 "bench with a size that fails" "$ORCA" bench --scene circle --sizes 100,4000000 --workers 1 --runs 1 --steps 1 --warmup 0 --csv b.csv
check "bench failure: old CSV kept" same_text b.csv OLD
err_matches "bench failure: says the CSV was not written" "--csv: b\.csv not written"
expect_status 2 "bench --csv -" "$ORCA" bench --csv -
check "scene -o, bench: no temporary file left" no_temporaries
# Standard output that cannot be written is a failure with a message.
if ((WINDOWS)); then
    skip_checks 5 # /dev/full
elif [[ -w /dev/full ]]; then
    "$ORCA" run --scene corridor --steps 1 > /dev/full 2> err.txt
    check "summary to /dev/full: exit 1" test "$?" -eq 1
    err_matches "summary to /dev/full message" "^orca: standard output: write failed"
    "$ORCA" --help > /dev/full 2> err.txt
    check "--help to /dev/full: exit 1" test "$?" -eq 1
    "$ORCA" run --scene corridor --steps 1 --csv /dev/full > out.txt 2> err.txt
    check "--csv /dev/full: exit 1" test "$?" -eq 1
    err_matches "--csv /dev/full message" "^orca: --csv: /dev/full: write failed: No space left on device$"
fi

# A UTF-8 byte-order mark at the start of a scene file is skipped; elsewhere it is shown.
printf '\xef\xbb\xbforca-scene 1\r\n' > bom.txt
grep -v '^orca-scene' corridor.txt >> bom.txt
check "a byte-order mark is skipped" test "$(hash_of run bom.txt --steps 3)" = "$(hash_of run corridor.txt --steps 3)"
printf 'agent 0 0\n\xef\xbb\xbfagent 1 1\n' > bad.txt
expect_status 2 "a byte-order mark on line 2" "$ORCA" run bad.txt --steps 1
err_matches "a byte-order mark on line 2 is shown" "^bad\.txt:2: unknown statement '\\\\xef\\\\xbb\\\\xbfagent'"

# Names: UTF-8 text only; the JSON and the SVG carry any name and any file name.
bad_scene "name not UTF-8" 1 "name: invalid UTF-8 at byte 3 \\(\\\\xff\\)" 'name ab\xffc\nagent 0 0\n'
bad_scene "name overlong UTF-8" 1 "name: invalid UTF-8 at byte 1" 'name \xc0\xafx\nagent 0 0\n'
bad_scene "name with a C1 control" 1 "name: control character U\\+0085 at byte 2" 'name a\xc2\x85\nagent 0 0\n'
bad_scene "name with a control character" 1 "name: control character U\\+001B" 'name a\x1b[31m\nagent 0 0\n'
printf 'name <&"x'"'"'> é ✓ 𝄞\ndt 0.25\nagent -5 0 goal 5 0\nagent 5 0 goal -5 0\n' > names.txt
expect_status 0 "a name with XML and JSON specials" "$ORCA" run names.txt --steps 3 --json --svg names.svg
cp out.txt names.json
check "name: the JSON parses" json_valid names.json
check "name: the JSON keeps the name" test "$(json_get names.json scene)" = "<&\"x'> é ✓ 𝄞"
check "name: the SVG parses" xml_valid names.svg
if command -v python3 > /dev/null 2>&1; then
    check "name: the SVG title keeps the name" python3 -c '
import sys, xml.etree.ElementTree as E
t = E.parse(sys.argv[1]).getroot().find("{http://www.w3.org/2000/svg}title").text
assert "<&\"x'"'"'> é ✓ 𝄞" in t, t' names.svg
fi
if ((WINDOWS)); then
    skip_checks 6 # Windows file names hold no control characters, and arguments are text
else
weird=$'s\x01\xff\t.txt'
cp corridor.txt "$weird"
expect_status 0 "a file name with control and non-UTF-8 bytes" "$ORCA" run "$weird" --steps 3 --json --svg "$weird.svg" --csv "$weird.csv"
cp out.txt weird.json
check "odd file name: the JSON parses" json_valid weird.json
check "odd file name: the SVG parses" xml_valid "$weird.svg"
check "odd file name: JSON source with U+FFFD for the byte" test "$(json_get weird.json source)" = $'scene file s\x01\xef\xbf\xbd\t.txt'
"$ORCA" run "nope$weird" 2> err.txt
err_matches "odd file name in a message: bytes shown as \\xNN" "^nopes\\\\x01\\\\xff\\\\x09\\.txt: cannot open"
"$ORCA" run "$weird" --steps 1 > out.txt 2> err.txt
check "odd file name in the text summary: bytes shown as \\xNN" \
    grep -q '^orca run: corridor (scene file s\\x01\\xff\\x09\.txt)$' out.txt
fi
# Long fields are shortened in messages.
printf 'agent 0 0 goal %s 0\n' "$(head -c 5000 /dev/zero | tr '\0' '7')x" > bad.txt
expect_status 2 "a 5000-character field" "$ORCA" run bad.txt --steps 1
check "a 5000-character field: a short message" test "$(wc -c < err.txt)" -lt 200
err_matches "a 5000-character field message" "^bad\.txt:1: goal x: expected a number, got '7{37}\.\.\.'$"

# Numbers that round to 0 and empty files say so.
expect_status 2 "--dt 1e-400" "$ORCA" run --scene circle --dt 1e-400
err_matches "--dt 1e-400 message" "^orca: --dt: must be > 0, got '1e-400' \(it rounds to 0\)$"
bad_scene "radius underflow" 1 "radius must be > 0, got '0x1p-1100' \(it rounds to 0\)" 'agent 0 0 radius=0x1p-1100\n'
: > empty0.txt
expect_status 2 "an empty scene file" "$ORCA" run empty0.txt --steps 1
err_matches "an empty scene file message" "^empty0\.txt: the file is empty \(add 'agent X Y \.\.\.' lines\)$"

# Library failures without a simulation to ask name the status.
expect_status 2 "built-in scene refused" "$ORCA" run --scene circle -n 5000000
err_matches "built-in scene refused: status name" "^orca: building scene circle with 5000000 agents: agent_count must be at most 2196132 for scene circle \(the largest whose starts, goals and walls lie within 2\^21 of the origin\), got 5000000 \(ORCA_ERR_LIMIT\)$"

# The summary says why the run stopped.
expect_status 0 "step cap (text)" "$ORCA" run --scene circle --max-steps 3
check "step cap: not 'until all arrived'" eval '! grep -q "until all arrived" out.txt'
check "step cap: the steps line says the cap stopped it" grep -Eq "^  steps +3 \(stopped by the step cap, --max-steps 3\)" out.txt
check "step cap: the arrival line says so" grep -q "did not (the step cap stopped the run)" out.txt
expect_status 0 "step cap (JSON)" "$ORCA" run --scene circle --max-steps 3 --json
check "step cap: stop_reason step_cap" test "$(json_get out.txt stop_reason)" = step_cap
check "step cap: max_steps 3" test "$(json_get out.txt max_steps)" = 3
check "all arrived: stop_reason all_arrived" test "$(json_get arrive.json stop_reason)" = all_arrived
expect_status 0 "all arrived (text)" "$ORCA" run --scene corridor
check "all arrived: the steps line says so" grep -Eq "^  steps +[0-9]+ \(until all arrived\)" out.txt
expect_status 0 "--steps (JSON)" "$ORCA" run --scene circle --steps 3 --json
check "--steps: stop_reason steps" test "$(json_get out.txt stop_reason)" = steps
# One agent: singular words ("1 agent arrived", not "all 1 agents")
printf 'agent 0 0 goal 5 0\n' > one.txt
expect_status 0 "one agent arrives" "$ORCA" run one.txt --svg one.svg
check "one agent: '1 agent arrived at step'" grep -Eq "^  arrival +1 agent arrived at step [0-9]+ \(t = " out.txt
check "one agent: the caption too" grep -q ">1 agent, no walls · [0-9]* steps of 0.25 s" one.svg
check "one agent: no 'all 1 agents' anywhere" eval '! grep -q "1 agents" out.txt one.svg'
expect_status 0 "orca scene of 1 agent" "$ORCA" scene circle -n 1
check "orca scene of 1 agent: '1 agent' in the comment" grep -q "^# written by orca .*: built-in scene circle, 1 agent, seed 1$" out.txt
# The caption counts walls and boundary loops: the room has no wall segment but two loops.
expect_status 0 "room: --svg" "$ORCA" run "$SRC_DIR/examples/room.txt" --steps 5 --svg room.svg --quiet
check "room: the caption names the boundary loops, not 'no walls'" grep -q ">14 agents, 2 boundary loops · 5 steps" room.svg

# A step that would carry an agent beyond the coordinate limit is refused (docs/limits.md):
# exit 1, the agent named, and the outputs' old files left as they were.
printf 'dt 1e6\nagent 0 0 prefvel 2 0\nagent 0 5 goal 1e6 0 preferred_speed=2\n' > far.txt
echo 'an older picture' > far.svg
expect_status 1 "an agent walking off the map" "$ORCA" run far.txt --steps 3 --svg far.svg --json
err_matches "walking off the map: the step is refused, naming the agent" "step refused: agent 0 \\(slot 0\\) would move to \\(4000000, 0\\), beyond the coordinate limit 2\\^21"
check "walking off the map: the older picture is kept" grep -q 'an older picture' far.svg

# --- paths and line ends: the system's own separator (a backslash on Windows) --------------------
# (The files are made here with '/'; the command is given the system's separator.)

S='/'
((WINDOWS)) && S=\\
mkdir -p sub
sed 's/$/\r/' corridor.txt > sub/crlf.txt
check "CR LF scene file: the same run as LF" \
    test "$(hash_of run "sub${S}crlf.txt" --steps 3)" = "$(hash_of run corridor.txt --steps 3)"
"$ORCA" run "sub${S}crlf.txt" --steps 1 --json > out.txt
check "the JSON source keeps the path as given" test "$(json_get out.txt source)" = "scene file sub${S}crlf.txt"
expect_status 2 "missing scene file in a subdirectory" "$ORCA" run "sub${S}nope.txt"
err_matches "its message shows the path as given" "^sub\\${S}nope\\.txt: cannot open: No such file or directory$"
printf 'agent 0 0\r\nagent 1\r\n' > sub/bad.txt
expect_status 2 "bad CR LF scene file in a subdirectory" "$ORCA" run "sub${S}bad.txt"
err_matches "its message: path as given, line 2, no CR" "^sub\\${S}bad\\.txt:2: [^"$'\r'"]*$"
echo OLD > sub/out.csv
expect_status 0 "--csv over an existing file in a subdirectory" \
    "$ORCA" run --scene corridor --steps 2 --csv "sub${S}out.csv" --quiet
check "it was replaced" test "$(head -n 1 sub/out.csv)" = "step,time,agent,x,y,vx,vy"
check "no temporary file left in the subdirectory" test -z "$(cd sub && compgen -G '*.tmp.*')"
expect_status 1 "--csv into a missing directory" "$ORCA" run --scene corridor --steps 1 --csv "no${S}such${S}x.csv"
err_matches "its message shows the path as given" "^orca: --csv: no\\${S}such\\${S}x\\.csv: cannot write: No such file or directory$"

# --- spatial queries (docs/extensions.md) ------------------------------------------------------
# The answers against brute force over the final positions of the --csv output (python3).
expect_status 0 "queries (JSON)" "$ORCA" run --scene random -n 400 --steps 12 --json \
    --csv q.csv --every 1000 --near 3.5,-2,9 --nearest 3.5,-2,17 --box -12,-5,4,20
check "queries: JSON valid" json_valid out.txt
if [[ $JSON_TOOL == python3 ]]; then
    check "queries: the answers equal brute force over the final positions" python3 -c '
import csv, json, sys
res = json.load(open("out.txt"))
rows = [r for r in csv.DictReader(open("q.csv")) if int(r["step"]) == res["last_step"]]
pos = {int(r["agent"]): (float(r["x"]), float(r["y"])) for r in rows}
def d2(i, x, y):
    dx, dy = pos[i][0] - x, pos[i][1] - y
    return dx * dx + dy * dy
q = res["near"]
near = sorted((d2(i, q["x"], q["y"]), i) for i in pos if d2(i, q["x"], q["y"]) <= q["radius"] ** 2)
assert q["agents"] == [i for _, i in near] and q["count"] == len(near) > 0, q
q = res["nearest"]
nearest = sorted((d2(i, q["x"], q["y"]), i) for i in pos)[: int(q["k"])]
assert q["agents"] == [i for _, i in nearest] and q["count"] == 17, q
q = res["box"]
box = [i for i in sorted(pos) if q["x0"] <= pos[i][0] <= q["x1"] and q["y0"] <= pos[i][1] <= q["y1"]]
assert q["agents"] == box and q["count"] == len(box) > 0, q
'
fi
expect_status 0 "queries (text)" "$ORCA" run --scene circle -n 100 --steps 3 --near 0,0,1e3 \
    --nearest 0,0,2 --box -1e300,-1e300,1e300,0
check "queries: --near shows 20 of 100" grep -Eq '^  --near +100 agents within 1000 m of \(0, 0\): ([0-9]+ ){19}[0-9]+ \.\.\. \(all of them in --json\)$' out.txt
check "queries: --nearest line" grep -Eq '^  --nearest +the 2 agents nearest to \(0, 0\): [0-9]+ [0-9]+$' out.txt
check "queries: --box line" grep -Eq '^  --box +[0-9]+ agents in \(-1e\+300, -1e\+300\)-\(1e\+300, 0\): ' out.txt
expect_status 2 "--near with two numbers" "$ORCA" run --scene circle --steps 1 --near 0,0
err_matches "--near with two numbers: the form" "--near: expected X,Y,RADIUS, got '0,0'"
expect_status 2 "--near radius beyond 2^23" "$ORCA" run --scene circle --steps 1 --near 0,0,1e300
err_matches "--near radius beyond 2^23: named" "--near: radius must be in \[0, 2\^23\] m, got 1.0000000000000001e\+300"
expect_status 2 "--nearest point beyond 2^21" "$ORCA" run --scene circle --steps 1 --nearest 0,-3e6,1
err_matches "--nearest point beyond 2^21: named" "--nearest: point.y must be finite with magnitude below 2\^21"
expect_status 2 "--nearest K negative" "$ORCA" run --scene circle --steps 1 --nearest 0,0,-1
err_matches "--nearest K negative: named" "--nearest: K must be"
expect_status 2 "--box upside down" "$ORCA" run --scene circle --steps 1 --box 0,0,-1,5
err_matches "--box upside down: named" "--box: the box must have lo <= hi"
expect_status 2 "--box with nan" "$ORCA" run --scene circle --steps 1 --box nan,0,1,1
err_matches "--box with nan: named" "--box: X0"
expect_status 2 "--near twice" "$ORCA" run --scene circle --steps 1 --near 0,0,1 --near 0,0,2
err_matches "--near twice: said" "--near given twice"

# --- avoidance extensions and diagnostics (docs/extensions.md) ---------------------------------
# --diagnostics keeps the bits; its counts are in the summary and the JSON.
hp=$(hash_of run --scene crossing --steps 60)
hd=$(hash_of run --scene crossing --steps 60 --diagnostics -j 2)
check "--diagnostics: the same hash as without" test -n "$hp" -a "$hp" = "$hd"
expect_status 0 "--diagnostics (JSON)" "$ORCA" run --scene crossing --steps 60 --diagnostics --json
check "--diagnostics: JSON valid" json_valid out.txt
if [[ $JSON_TOOL == python3 ]]; then
    check "--diagnostics: JSON counts" python3 -c '
import json
d = json.load(open("out.txt"))["diagnostics"]
assert d["cut_agent_steps"] > 0 and d["locked_agent_steps"] == 0, d
assert d["fallback_agent_steps"] == json.load(open("out.txt"))["fallback_total"], d
assert set(d["last_step"]) == {"cut", "blocked", "fallback", "locked"}, d
'
fi
expect_status 0 "--diagnostics (text)" "$ORCA" run --scene crossing --steps 60 --diagnostics
check "--diagnostics: summary line" grep -Eq '^  diagnostics +neighbour lists cut [0-9]+, blocked [0-9]+, locked 0 agent-steps; last step: ' out.txt
# Scene-file settings: a locked agent keeps its velocity; a priority changes the bits; every
# setting's range is checked with the file and line.
printf 'agent 0 0 goal 10 0 velocity=0.5,0 locked=1\nagent 10 0.5 goal 0 0 priority=4 layers=0x3 mask=1\n' > ext.txt
expect_status 0 "avoidance settings in a scene file" "$ORCA" run ext.txt --steps 8 --csv ext.csv
check "a locked agent keeps its velocity" grep -q '^8,2,0,1,0,0.5,0$' ext.csv
printf 'agent 0 0 goal 10 0\nagent 10 0.5 goal 0 0\n' > ext0.txt
printf 'agent 0 0 goal 10 0 priority=1 layers=1 mask=0xFFFFFFFF locked=0\nagent 10 0.5 goal 0 0\n' > ext1.txt
check "settings at their defaults: the plain hash" test "$(hash_of run ext0.txt --steps 40)" = "$(hash_of run ext1.txt --steps 40)"
printf 'agent 0 0 goal 10 0 priority=3\nagent 10 0.5 goal 0 0\n' > ext2.txt
check "a priority changes the bits" test "$(hash_of run ext0.txt --steps 40)" != "$(hash_of run ext2.txt --steps 40)"
for bad in "priority=0|priority must be in \\[2\\^-30, 2\\^30\\], got '0'" \
           "priority=nan|priority: expected a finite number, got 'nan'" \
           "priority=1e300|priority must be in \\[2\\^-30, 2\\^30\\], got '1e300'" \
           "priority=1e-400|priority must be in \\[2\\^-30, 2\\^30\\], got '1e-400' \\(it rounds to 0\\)" \
           "priority=2147483648|priority must be in \\[2\\^-30, 2\\^30\\], got '2147483648'" \
           "layers=0x100000000|layers must be a 32-bit mask \\(0 to 0xFFFFFFFF\\), got '0x100000000'" \
           "mask=-1|mask must be a 32-bit mask" \
           "locked=2|locked must be 0 or 1, got '2'" \
           "locked=yes|locked: "; do
    kv=${bad%%|*}
    msg=${bad#*|}
    printf 'agent 0 0\nagent 5 5 %s\n' "$kv" > extbad.txt
    expect_status 2 "scene file $kv" "$ORCA" run extbad.txt --steps 1
    err_matches "scene file $kv: named with the line" "extbad.txt:2: $msg"
done
printf 'default priority 2\nagent 0 0\n' > extbad.txt
expect_status 2 "default priority (agent lines only)" "$ORCA" run extbad.txt --steps 1
err_matches "default priority: named" "unknown default 'priority'"
# --- waypoints (docs/extensions.md) ------------------------------------------------------------
PATROL="$SRC_DIR/examples/patrol.txt"
expect_status 0 "patrol example" "$ORCA" run "$PATROL" --steps 2000 --csv patrol.csv --svg patrol.svg --json
cp out.txt patrol.json
check "patrol: JSON" json_valid patrol.json
check "patrol: looping agents never arrive" test "$(json_get patrol.json arrived)" = 0
check "patrol: JSON counts the looping agents" test "$(json_get patrol.json looping)" = 8
# Without --steps a looping scene runs to the step cap; the summary says why, in its words.
expect_status 0 "patrol to the step cap (text)" "$ORCA" run "$PATROL"
check "patrol: the steps line says why the run ended" grep -q "^  steps             20000 (stopped at the default step cap 20000 (--max-steps): 8 agents follow looping waypoints and never arrive; give --steps N), dt 0.25 s$" out.txt
check "patrol: the arrival line counts the looping agents" grep -q "^  arrival           0 of 8 agents arrived, 8 did not (8 loop their waypoints for ever; the step cap stopped the run)$" out.txt
printf 'agent 0 0 goal 5 0\nagent 0 5 goal 0 5 via 5 5 loop\n' > loop1.txt
expect_status 0 "one looping agent of two, to a cap" "$ORCA" run loop1.txt --max-steps 100
check "one looping agent: the steps line" grep -q "(stopped at the step cap, --max-steps 100: 1 agent follows looping waypoints and never arrives; give --steps N)" out.txt
check "one looping agent: the arrival line" grep -q "1 of 2 agents arrived, 1 did not (1 loops its waypoints for ever; the step cap stopped the run)" out.txt
check "patrol: SVG well-formed" xml_valid patrol.svg
check "patrol: SVG draws the waypoint paths" grep -q 'stroke-dasharray="4 3"' patrol.svg
check "patrol: -j 4 = -j 1" test "$(hash_of run "$PATROL" --steps 300 -j 4)" = "$(hash_of run "$PATROL" --steps 300)"
if command -v python3 > /dev/null 2>&1; then
    # The switch re-computed from the CSV (every step's positions): each agent goes round
    # its corners in order; count the laps and the closest approach of two agents. A looping
    # route's leg to its first corner starts at its goal point (docs/extensions.md).
    check "patrol: laps re-computed from the CSV" python3 -c '
import csv, math, sys
routes = {}
for line in open(sys.argv[1]):
    f = line.split("#")[0].split()
    if f[:1] == ["agent"]:
        v = f.index("via"); l = f.index("loop")
        pts = [float(t) for t in f[v + 1:l]]
        wp = list(zip(pts[0::2], pts[1::2])) + [(float(f[4]), float(f[5]))]
        routes[len(routes)] = wp
pos = {}
for r in csv.DictReader(open(sys.argv[2])):
    pos.setdefault(int(r["step"]), {})[int(r["agent"])] = (float(r["x"]), float(r["y"]))
cur = {a: 0 for a in routes}; switches = {a: 0 for a in routes}; gap = 1e9
for s in sorted(pos)[:-1]:
    for a, wp in routes.items():
        x, y = pos[s][a]; gx, gy = wp[cur[a]]; fx, fy = wp[cur[a] - 1]
        dx, dy = gx - x, gy - y
        if dx * dx + dy * dy <= 2.0 * 2.0 or dx * (gx - fx) + dy * (gy - fy) < 0:
            cur[a] = (cur[a] + 1) % len(wp); switches[a] += 1
    p = pos[s]
    gap = min(gap, min(math.dist(p[a], p[b]) - 2 for a in p for b in p if a < b))
laps = [switches[a] // len(routes[a]) for a in routes]
assert min(laps) >= 4 and gap > -0.1, (laps, gap)
' "$PATROL" patrol.csv
fi
hwp=$(hash_of run "$PATROL" --steps 400)
expect_status 0 "patrol: 200 steps + --save" "$ORCA" run "$PATROL" --steps 200 --save wp.snap --quiet
check "patrol: --load + 200 steps = 400 steps" test "$(hash_of run "$PATROL" --load wp.snap --steps 200)" = "$hwp"
# orca 0.3 saved the simulation and, after it, a waypoint section (each agent's current target,
# ORCAWAYP at the end): test/golden/orca-0.3-patrol-200.snap is its 'orca run
# examples/patrol.txt --steps 200 --save'.
cp "$SRC_DIR/test/golden/orca-0.3-patrol-200.snap" wp03.snap
check "orca 0.3 patrol snapshot: the waypoint section" test "$(tail -c 8 wp03.snap)" = ORCAWAYP
check "orca 0.3 patrol snapshot: --load + 200 steps = 400 steps" test "$(hash_of run "$PATROL" --load wp03.snap --steps 200)" = "$hwp"
expect_status 2 "--load of waypoint progress into a scene without waypoints" "$ORCA" run --scene circle -n 8 --load wp03.snap --steps 1
err_matches "waypoint progress for an agent without waypoints" "--load: wp03\.snap: the snapshot has waypoint progress for agent 0, which has no waypoints"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[-30] ^= 1; open(sys.argv[2], "wb").write(b)' wp03.snap bad-wp.snap
expect_status 2 "--load of a corrupt waypoint section" "$ORCA" run "$PATROL" --load bad-wp.snap --steps 1
err_matches "corrupt waypoint section: said" "--load: bad-wp\.snap: the waypoint section is corrupt"
# A goal with one waypoint: the same scene written with the final target only differs.
printf 'agent 0 0 goal 10 0 via 5 5\nagent 0 10 goal 10 10\n' > via.txt
printf 'agent 0 0 goal 10 0\nagent 0 10 goal 10 10\n' > novia.txt
check "a waypoint changes the run" test "$(hash_of run via.txt --steps 20)" != "$(hash_of run novia.txt --steps 20)"
expect_status 0 "via: until all arrived" "$ORCA" run via.txt --json
check "via: all arrived" test "$(json_get out.txt all_arrived)" = true
# Scene-file errors: file, line and the bad token.
wp_bad() { # NAME LINE REGEX
    printf 'agent 5 5 goal 1 1\n%s\n' "$2" > wpbad.txt
    expect_status 2 "waypoints: $1" "$ORCA" run wpbad.txt --steps 1
    err_matches "waypoints: $1: message" "^wpbad\.txt:2: $3"
}
wp_bad "via without points" "agent 0 0 goal 1 1 via" "via needs at least one point"
wp_bad "odd via numbers" "agent 0 0 goal 1 1 via 1 2 3" "via: coordinates come in x y pairs, got 3 numbers"
wp_bad "via NaN" "agent 0 0 goal 1 1 via 1 nan" "via point 1 y: "
wp_bad "via beyond 2^21" "agent 0 0 goal 1 1 via 2 2 2097152 0" "via point 2 x must have magnitude below 2\^21 \(2097152\), got '2097152'"
wp_bad "via before goal" "agent 0 0 via 1 1 goal 2 2" "agent: 'via' needs a goal point first"
wp_bad "via after prefvel" "agent 0 0 prefvel 1 1 via 2 2" "agent: 'via' must come right after 'goal GX GY'"
wp_bad "loop without via" "agent 0 0 goal 1 1 loop" "agent: 'loop' must come right after 'goal GX GY'"
wp_bad "arrive without via" "agent 0 0 goal 1 1 arrive=2" "agent: arrive= needs via points"
wp_bad "arrive negative" "agent 0 0 goal 1 1 via 2 2 arrive=-1" "arrive must be 0 \(the agent's radius\) or between 2\^-30 and 2\^23 m, got '-1'"
wp_bad "arrive subnormal" "agent 0 0 goal 1 1 via 2 2 arrive=5e-324" "arrive must be 0 .*, got '5e-324'"
wp_bad "arrive huge" "agent 0 0 goal 1 1 via 2 2 arrive=1e308" "arrive must be 0 .*, got '1e308'"
wp_bad "arrive inf" "agent 0 0 goal 1 1 via 2 2 arrive=inf" "arrive: "
wp_bad "arrive as a default" "default arrive 2" "unknown default 'arrive'"
wp_bad "arrive twice" "agent 0 0 goal 1 1 via 2 2 arrive=1 arrive=2" "agent parameter 'arrive' given twice"

# --- coincident agents (docs/extensions.md, "Coincident agents") -----------------------------
# Two agents start at one point: the run warns with both lines; without the separation they
# never part (neither arrives), with --separation or 'separation on' both arrive; the option is
# in the JSON and changes the hash; a boundary loop turns it on without the option (no warning).
printf 'dt 0.25\nagent 0 0 goal -10 3\nagent 5 5 goal 1 1\nagent 0 0 goal 10 -4\n' > fused.txt
expect_status 0 "fused: plain run" "$ORCA" run fused.txt --steps 200 --json
check "fused: plain: 1 of 3 arrived" test "$(json_get out.txt arrived)" = 1
check "fused: plain: separation false" test "$(json_get out.txt separation)" = false
err_matches "fused: warning with both lines" "^fused\.txt:4: warning: agent 2 starts at the same point as agent 0 \(line 2\), \(0, 0\)"
expect_status 0 "fused: --separation" "$ORCA" run fused.txt --separation --json
check "fused: --separation: all arrived" test "$(json_get out.txt all_arrived)" = true
check "fused: --separation: separation true" test "$(json_get out.txt separation)" = true
check "fused: --separation: extended path" test "$(json_get out.txt extended_path)" = true
check "fused: --separation: no warning" test ! -s err.txt
hsep=$(json_get out.txt hash)
printf 'separation on\n' | cat - fused.txt > fused-on.txt
check "fused: 'separation on' = --separation" test "$(hash_of run fused-on.txt)" = "$hsep"
check "fused: -j 3 = -j 1" test "$(hash_of run fused-on.txt -j 3)" = "$hsep"
printf 'separation off\n' | cat - fused.txt > fused-off.txt
check "fused: 'separation off' = plain" test "$(hash_of run fused-off.txt --steps 200)" = "$(hash_of run fused.txt --steps 200)"
check "fused: separation changes the hash" test "$(hash_of run fused-on.txt --steps 0)" != "$(hash_of run fused.txt --steps 0)"
# the option travels in the snapshot
expect_status 0 "fused: save half" "$ORCA" run fused-on.txt --steps 50 --save fused.snap
expect_status 0 "fused: load without the option" "$ORCA" run fused.txt --load fused.snap --json
check "fused: the snapshot keeps the option" test "$(json_get out.txt separation)" = true
check "fused: --load: no warning for the file's starts" test ! -s err.txt
check "fused: save + load = one run" test "$(json_get out.txt hash)" = "$hsep"
# a boundary around the agents: active without the option, no warning
printf 'boundary -20 -20 20 -20 20 20 -20 20\n' | cat - fused.txt > fused-bnd.txt
expect_status 0 "fused: boundary" "$ORCA" run fused-bnd.txt --json
check "fused: boundary: separation true, all arrived" test "$(json_get out.txt separation)/$(json_get out.txt all_arrived)" = true/true
check "fused: boundary: no warning" test ! -s err.txt
# the built-in scenes are unchanged: no option, no warning, golden circle hash
expect_status 0 "circle: no separation" "$ORCA" run --scene circle --steps 400 --json
check "circle: separation false, no warning" test "$(json_get out.txt separation)" = false -a ! -s err.txt
check "circle: golden hash" test "$(json_get out.txt hash)" = 4be6d7e7a7e24a3a
# statement_bad KEYWORD NAME LINE REGEX: a scene whose second line is LINE is refused (exit
# 2) with the message REGEX after "FILE:2: "
statement_bad() {
    printf 'agent 5 5 goal 1 1\n%s\n' "$3" > "$1-bad.txt"
    expect_status 2 "$1: $2" "$ORCA" run "$1-bad.txt" --steps 1
    err_matches "$1: $2: message" "^$1-bad\.txt:2: $4"
}
sep_bad() { statement_bad separation "$@"; }
sep_bad "no value" "separation" "separation takes 'on' or 'off', got ''"
sep_bad "bad value" "separation 1" "separation takes 'on' or 'off', got '1'"
sep_bad "two values" "separation on off" "separation takes 'on' or 'off', got 'on'"
printf 'separation on\nagent 5 5 goal 1 1\nseparation off\n' > sepbad.txt
expect_status 2 "separation twice" "$ORCA" run sepbad.txt --steps 1
err_matches "separation twice: message" "^sepbad\.txt:3: "

# --- grid: a block of agents on a lattice (docs/scene-format.md, "Grids") ----------------------
# The same agents as agent lines, in index order j outer, i inner: the same hash; the values
# below are exact in binary64, so the agent lines can be written by hand.
printf 'dt 0.2\ndefault radius 0.2\ngrid 3 3 -3 1 0.5 -0.75 stagger goal 4 4 preferred_speed=1.2 max_speed=1.5\nagent 9 9 none\n' > grid.txt
{
    printf 'dt 0.2\ndefault radius 0.2\n'
    for y in 1 0.25 -0.5; do
        for x in -3 -2.5 -2; do
            [[ $y == 0.25 ]] && x=$(awk "BEGIN { print $x + 0.25 }")
            printf 'agent %s %s goal 4 4 preferred_speed=1.2 max_speed=1.5\n' "$x" "$y"
        done
    done
    printf 'agent 9 9 none\n'
} > grid-agents.txt
hgrid=$(hash_of run grid.txt --steps 60)
check "grid: a hash" is_hex16 "$hgrid"
check "grid: = the agent lines" test "$hgrid" = "$(hash_of run grid-agents.txt --steps 60)"
check "grid: 10 agents" test "$(json_get hash.json agents)" = 10
check "grid: -j 3 = -j 1" test "$(hash_of run grid.txt --steps 60 -j 3)" = "$hgrid"
# via waypoints and goal sets are an agent line's; a default line after the grid does not apply
printf 'goalset out 20 0 20 5\ngrid 2 2 0 0 1 1 goalset out\ngrid 2 1 0 -3 1 1 goal 5 -3 via 2 -5 loop arrive=0.5\ndefault radius 0.3\n' > grid2.txt
printf 'goalset out 20 0 20 5\nagent 0 0 goalset out\nagent 1 0 goalset out\nagent 0 1 goalset out\nagent 1 1 goalset out\nagent 0 -3 goal 5 -3 via 2 -5 loop arrive=0.5\nagent 1 -3 goal 5 -3 via 2 -5 loop arrive=0.5\n' > grid2-agents.txt
check "grid: goal sets and waypoints = agent lines" test "$(hash_of run grid2.txt --steps 40)" = "$(hash_of run grid2-agents.txt --steps 40)"
# 60,000 agents in one line (a corridor fill)
printf 'grid 600 100 -300 -50 1 1 prefvel 1 0 radius=0.3\n' > grid60k.txt
expect_status 0 "grid: 60,000 agents" "$ORCA" run grid60k.txt --steps 1 --json
check "grid: 60,000 agents counted" test "$(json_get out.txt agents)" = 60000
# DX = DY = 0: every agent at one point, warned about with the grid's line
printf '# c\ngrid 3 2 1 1 0 0\n' > gridzero.txt
expect_status 0 "grid: zero steps" "$ORCA" run gridzero.txt --steps 1
err_matches "grid: zero steps: coincident warning with the line" "^gridzero\.txt:2: warning: agent 1 starts at the same point as agent 0 \(line 2\)"
check "grid: zero steps: five warnings and a count" test "$(grep -c warning err.txt)" = 5
printf 'separation on\ngrid 3 2 1 1 0 0\n' > gridsep.txt
expect_status 0 "grid: zero steps, separation on" "$ORCA" run gridsep.txt --steps 3
check "grid: zero steps, separation on: no warning" test ! -s err.txt
# the smallest subnormal step and the largest finite number that keeps the points in range
printf 'grid 3 2 0 0 4.9406564584124654e-324 -0x1p-1074 none\n' > gridtiny.txt
expect_status 0 "grid: subnormal DX" "$ORCA" run gridtiny.txt --steps 2
printf 'grid 1 2 0 0 1.7976931348623157e308 1 none\n' > gridcol.txt
expect_status 0 "grid: one column, any DX" "$ORCA" run gridcol.txt --steps 2
printf 'grid 2 2 2097150 -2097151.5 0x1.ffffffffp0 1.5 none\n' > gridedge.txt
expect_status 0 "grid: the last point just inside 2^21" "$ORCA" run gridedge.txt --steps 0
grid_bad() { # NAME REGEX GRID-LINE: the grid on line 2 is refused with "gridbad.txt:2: REGEX"
    printf 'goalset g 1 1\n%s\n' "$3" > gridbad.txt
    expect_status 2 "grid: $1" "$ORCA" run gridbad.txt --steps 1
    err_matches "grid: $1: message" "^gridbad\.txt:2: $2"
}
grid_bad "too few fields" "grid takes NX NY X0 Y0 DX DY first: .*got 5 fields" "grid 2 2 0 0 1"
grid_bad "NX 0" "grid: NX must be between 1 and 1073741824, got '0'" "grid 0 2 0 0 1 1"
grid_bad "NY negative" "grid: NY must be between 1 and 1073741824, got '-3'" "grid 2 -3 0 0 1 1"
grid_bad "NX fraction" "grid: NX: expected a whole number, got '1.5'" "grid 1.5 2 0 0 1 1"
grid_bad "NX exponent" "grid: NX: expected a whole number, got '1e3'" "grid 1e3 2 0 0 1 1"
grid_bad "NX huge" "grid: NX must be between 1 and 1073741824, got '99999999999999999999'" "grid 99999999999999999999 1 0 0 1 1"
grid_bad "NX 2^30 + 1" "grid: NX must be between 1 and 1073741824, got '1073741825'" "grid 1073741825 1 0 0 1 1"
grid_bad "NX * NY beyond 2^30" "grid: NX \* NY = 1073774592 agents, more than the limit of 2\^30 \(1073741824\) agents in a scene" "grid 32768 32769 0 0 1 1"
grid_bad "NX * NY = 2^60" "grid: NX \* NY = 1152921504606846976 agents" "grid 0x40000000 0x40000000 0 0 1 1"
grid_bad "DX NaN" "grid DX: expected a finite number, got 'nan'" "grid 2 2 0 0 nan 1"
grid_bad "DY infinite" "grid DY: expected a finite number, got '-inf'" "grid 2 2 0 0 1 -inf"
grid_bad "DX overflow" "grid DX: number out of range" "grid 2 2 0 0 1e999 1"
grid_bad "X0 text" "grid X0: expected a number, got '0,5'" "grid 2 2 0,5 0 1 1"
grid_bad "X0 beyond 2^21" "grid: point \(0, 0\) x = 3000000 must have magnitude below 2\^21 \(2097152\)" "grid 2 2 3e6 0 1 1"
grid_bad "last column at 2^21" "grid: point \(1, 0\) x = 2097152 must have magnitude below 2\^21" "grid 2 1 2097151 0 1 1"
grid_bad "negative DX past -2^21" "grid: point \(4, 0\) x = -2097152 must have magnitude" "grid 5 1 -2097148 0 -1 1"
grid_bad "stagger: the odd row's half step" "grid: point \(0, 1\) x = 2097152 must have magnitude" "grid 1 2 2097151.5 0 1 1 stagger"
grid_bad "i * DX overflows" "grid: point \(2, 0\) x = inf must have magnitude" "grid 3 1 0 0 1.7e308 1"
grid_bad "last row beyond 2^21" "grid: point \(0, 2\) y = -2097152.5 must have magnitude" "grid 1 3 0 0.5 1 -1048576.5"
grid_bad "unknown goal set" "grid: unknown goal set 'h'" "grid 2 2 0 0 1 1 goalset h"
grid_bad "via without a goal" "grid: 'via' needs a goal point first" "grid 2 2 0 0 1 1 via 1 1"
grid_bad "stagger after the goal" "grid: expected key=value, got 'stagger'" "grid 2 2 0 0 1 1 goal 1 1 stagger"
grid_bad "a word for the goal" "grid: expected 'goal', 'goalset', 'prefvel', 'none' or key=value after the grid's placement, got 'staggered'" "grid 2 2 0 0 1 1 staggered"
grid_bad "bad radius" "radius must be > 0, got '0'" "grid 2 2 0 0 1 1 radius=0"
grid_bad "library refusal names the first agent" "agent 0: agent refused by the simulation: max_speed must be in" "grid 2 2 0 0 1 1 max_speed=1e300"
printf 'polygon\n0 0\n1 0\ngrid 2 2 5 5 1 1\n' > gridbad.txt
expect_status 2 "grid: inside a block" "$ORCA" run gridbad.txt --steps 1
err_matches "grid: inside a block: message" "^gridbad\.txt:4: 'grid' inside the polygon block started on line 1"

# --- navigation (docs/navigation.md) ---------------------------------------------------------
# A room whose door faces away from the goals: without navigation nobody arrives, with it all
# do; goal sets by name; the summary and JSON report it; errors name the line.
printf 'default radius 0.3\ndefault max_speed 1.5\ndefault neighbor_dist 3\ndefault time_horizon 2\ndefault obstacle_time_horizon 1\npolyline 0 4  0 0  10 0  10 10  0 10  0 6\ngoalset exits 15 5 -5 12\nagent 8.5 4 goal 14 3\nagent 8.5 5 goalset exits\nagent 7.5 6 goal 16 8 preferred_speed=1.3\n' > trap.txt
expect_status 0 "nav: off" "$ORCA" run trap.txt --steps 600 --json
check "nav: off: none arrived" test "$(json_get out.txt arrived)/$(json_get out.txt navigation)" = 0/false
printf 'navigation on\n' | cat - trap.txt > trap-on.txt
expect_status 0 "nav: on" "$ORCA" run trap-on.txt --steps 600 --json
check "nav: on: all arrived" test "$(json_get out.txt arrived)/$(json_get out.txt navigation)" = 3/true
check "nav: on: no agent without a path" test "$(json_get out.txt nav_unreachable)" = 0
hnav=$(json_get out.txt hash)
check "nav: -j 3 = -j 1" test "$(hash_of run trap-on.txt --steps 600 -j 3)" = "$hnav"
expect_status 0 "nav: summary" "$ORCA" run trap-on.txt --steps 10
check "nav: summary line" grep -Eq "navigation +on, exit choice nearest: 0 agents without a path; over the run 3 plans, 0 re-routings, 0 replans" out.txt
expect_status 0 "nav: --nav-check --exit-choice calm" "$ORCA" run trap-on.txt --steps 10 --nav-check --exit-choice calm --json
check "nav: --nav-check --exit-choice calm in the JSON" test "$(json_get out.txt nav_check)/$(json_get out.txt exit_choice)" = true/calm
expect_status 2 "nav: bad --exit-choice" "$ORCA" run trap-on.txt --steps 1 --exit-choice fast
err_matches "nav: bad --exit-choice: message" "^orca: --exit-choice takes nearest, calm or quickest, got 'fast'"
printf 'navigation on check=on exits=quickest\n' | cat - trap.txt > trap-q.txt
expect_status 0 "nav: the file's check= and exits=" "$ORCA" run trap-q.txt --steps 10 --json
check "nav: the file's check= and exits= in the JSON" test "$(json_get out.txt nav_check)/$(json_get out.txt exit_choice)" = true/quickest
printf 'navigation off\n' | cat - trap.txt > trap-off.txt
check "nav: 'navigation off' = plain" test "$(hash_of run trap-off.txt --steps 100)" = "$(hash_of run trap.txt --steps 100)"
# the floor plan: 2,000 agents leave by the nearest of 4 exits; without navigation many stay
expect_status 0 "floor: evacuation" "$ORCA" run "$SRC_DIR/examples/floor.txt" --json
check "floor: all 2000 arrived" test "$(json_get out.txt all_arrived)/$(json_get out.txt arrived)" = true/2000
check "floor: 1999 left by the exits" test "$(json_get out.txt exited)" = 1999
hfloor=$(json_get out.txt hash)
fsteps=$(json_get out.txt steps)
check "floor: -j 3 = -j 1" test "$(hash_of run "$SRC_DIR/examples/floor.txt" -j 3)" = "$hfloor"
sed 's/^navigation on/navigation off/' "$SRC_DIR/examples/floor.txt" > floor-off.txt
expect_status 0 "floor: without navigation" "$ORCA" run floor-off.txt --steps "$fsteps" --json
check "floor: without navigation fewer than 1500 left" test "$(json_get out.txt exited)" -lt 1500
nav_bad() { # NAME LINE2 REGEX
    printf 'goalset exits 15 5\n%s\n' "$2" > navbad.txt
    expect_status 2 "nav: $1" "$ORCA" run navbad.txt --steps 1
    err_matches "nav: $1: message" "^navbad\.txt:2: $3"
}
nav_bad "navigation value" "navigation yes" "navigation takes 'on' or 'off', got 'yes'"
nav_bad "unknown set" "agent 0 0 goalset exit" "agent: unknown goal set 'exit'"
nav_bad "set twice" "goalset exits 1 1" "goalset 'exits' is declared twice \(first on line 1\)"
nav_bad "set without points" "goalset more" "goalset takes a name and points"
nav_bad "set odd numbers" "goalset more 1 2 3" "goalset takes a name and points"
nav_bad "set point range" "goalset more 1 2 2097152 0" "goalset point 2 x must have magnitude below 2\^21"
nav_bad "set point NaN" "goalset more nan 0" "goalset point 1 x: "
nav_bad "goalset without name" "agent 0 0 goalset" "goalset needs the name of a goal set"
nav_bad "exit arrive range" "goalset more 1 2 exit arrive=-1" "arrive must be 0 \(the agent's radius\) or between 2\^-30 and 2\^23 m, got '-1'"
nav_bad "arrive without exit" "goalset more 1 2 arrive=1" "goalset: after the points only 'exit' and then 'arrive=D' and 'capacity=C' \(each once\) may follow, got 'arrive=1'"
nav_bad "word after exit" "goalset more 1 2 exit now" "goalset: after the points only 'exit' and then 'arrive=D' and 'capacity=C' \(each once\) may follow, got 'now'"
nav_bad "capacity range" "goalset more 1 2 exit capacity=0" "capacity must be between 2\^-30 and 2\^30 agents a second, got '0'"
nav_bad "navigation exits=" "navigation on exits=fast" "navigation exits= takes nearest, calm or quickest, got 'fast'"

# --- any run stopped and continued (docs/usage.md, "Snapshots") ------------------------------
# N steps, --save, --load, M steps give what one run of N+M steps gives: the state hash and the
# summary's counters, for every example scene, every built-in scene, and a scene with exits,
# navigation and waypoints at once (agents have left by the exit before the snapshot).
CONT_KEYS="agents arrived not_arrived all_arrived all_arrived_step max_agent_overlap max_wall_overlap fallback_total exited exited_last_step navigation nav_unreachable nav_reroutes last_step simulated_time stop_reason hash"
# json_pick FILE KEYS: "key=value ..." for the top-level keys (missing ones as undefined).
json_pick() {
    if [[ $JSON_TOOL == python3 ]]; then
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(" ".join("%s=%r" % (k, d.get(k, "undefined")) for k in sys.argv[2:]))' "$@"
    else
        node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(process.argv.slice(2).map((k) => k + "=" + JSON.stringify(d[k])).join(" "));' "$@"
    fi
}
# continued NAME N M ARGS...: ARGS run N+M steps, and N steps, --save, --load, M steps.
continued() {
    local name=$1 n=$2 m=$3
    shift 3
    if "$ORCA" run "$@" --steps $((n + m)) --json > cont-full.json 2> err.txt &&
        "$ORCA" run "$@" --steps "$n" --save cont.snap --quiet 2> err.txt &&
        "$ORCA" run "$@" --load cont.snap --steps "$m" --json > cont-part.json 2> err.txt; then
        local a b
        a=$(json_pick cont-full.json $CONT_KEYS)
        b=$(json_pick cont-part.json $CONT_KEYS)
        if [[ $a == "$b" ]]; then pass; else fail "$name: $n + $m steps: $b; $n+$m at once: $a"; fi
    else
        fail "$name: a run failed: $(head -c 300 err.txt)"
    fi
}
cat > mixed.txt << 'SCENE'
# a room with a pillar and a door: five agents leave by the door (an exit), two patrol round
# the pillar, one walks by two waypoints to a goal; navigation on
name mixed
navigation on
segment 0 0 20 0
segment 20 0 20 9
segment 20 11 20 20
segment 20 20 0 20
segment 0 20 0 0
polygon
8 8
12 8
12 12
8 12
end
goalset door 21 10 exit arrive=0.8
default radius 0.4
agent 2 2 goalset door
agent 2 5 goalset door
agent 2 15 goalset door
agent 5 18 goalset door
agent 3 10 goalset door
agent 6 6 goal 6 6 via 14 6 14 14 6 14 loop arrive=1
agent 14 14 goal 14 14 via 6 14 6 6 14 6 loop arrive=1
agent 1 18 goal 18 2 via 10 17 17 16
SCENE
expect_status 0 "continued: mixed scene, 230 steps" "$ORCA" run mixed.txt --steps 230 --json
check "continued: mixed: agents have left by the exit by step 230" test "$(json_get out.txt exited)" -ge 2
continued "mixed scene (exits, navigation, waypoints)" 230 100 mixed.txt
continued "mixed scene, 2 workers" 230 100 mixed.txt -j 2
for ex in bend room patrol; do
    continued "examples/$ex.txt" 100 150 "$SRC_DIR/examples/$ex.txt"
done
continued "examples/floor.txt" 120 30 "$SRC_DIR/examples/floor.txt" -j 2
for sc in circle crossing wallgap corridor random; do
    continued "--scene $sc" 100 100 --scene "$sc"
done
continued "--scene random with --separation and --density-speed" 40 40 --scene random -n 300 --separation --density-speed
# The issue's case: an agent leaves by an exit in the first steps; 5 + 5 steps continue.
printf 'goalset out 1 0 exit arrive=0.5\nagent 0.8 0 goalset out\nagent -5 0 goal -10 0\n' > leave.txt
expect_status 0 "continued: an agent leaves, 5 steps + --save" "$ORCA" run leave.txt --steps 5 --save leave.snap --json
check "continued: the agent has left" test "$(json_get out.txt exited)" = 1
continued "an agent left by an exit" 5 5 leave.txt
# until every agent has arrived: the continued run stops at the same step
"$ORCA" run "$SRC_DIR/examples/room.txt" --json > cont-full.json
expect_status 0 "continued: room, 100 steps + --save" "$ORCA" run "$SRC_DIR/examples/room.txt" --steps 100 --save room.snap --quiet
expect_status 0 "continued: room until all arrived" "$ORCA" run "$SRC_DIR/examples/room.txt" --load room.snap --json
check "continued: room: the counters of one run to arrival" test "$(json_pick out.txt $CONT_KEYS)" = "$(json_pick cont-full.json $CONT_KEYS)"
# no step: the summary of the saved run
"$ORCA" run mixed.txt --steps 230 --json > cont-full.json
"$ORCA" run mixed.txt --steps 230 --save cont.snap --quiet
expect_status 0 "continued: --load, 0 steps" "$ORCA" run mixed.txt --load cont.snap --steps 0 --json
check "continued: 0 steps: the saved run's counters" test "$(json_pick out.txt $CONT_KEYS)" = "$(json_pick cont-full.json $CONT_KEYS)"

# --- density-dependent speed (docs/extensions.md, "Density-dependent speed") -----------------
# A dense block and a lone agent walk +x: with --density-speed or 'density_speed on' the block
# is slower; the option and the statement give the same hash, which the JSON and the summary
# report; the parameters travel through `orca scene` and snapshots; errors name file:line.
{
    printf 'dt 0.1\ndefault radius 0.2\ndefault neighbor_dist 2\ndefault max_neighbors 64\ndefault time_horizon 2\n'
    for x in 0 0.5 1 1.5 2 2.5; do for y in 0 0.5 1 1.5 2 2.5; do printf 'agent %s %s goal 100 %s\n' "$x" "$y" "$y"; done; done
    printf 'agent 0 50 goal 100 50\n'
} > dense.txt
expect_status 0 "density: off" "$ORCA" run dense.txt --steps 30 --json
check "density: off: density_speed false" test "$(json_get out.txt density_speed)" = false
speed_off=$(json_get out.txt mean_speed)
hoff=$(json_get out.txt hash)
expect_status 0 "density: --density-speed" "$ORCA" run dense.txt --steps 30 --json --density-speed
check "density: on: density_speed true, extended path" test "$(json_get out.txt density_speed)/$(json_get out.txt extended_path)" = true/true
check "density: on: default radius" test "$(json_get out.txt density_radius)" = 2
hden=$(json_get out.txt hash)
check "density: on: slower" awk -v on="$(json_get out.txt mean_speed)" -v off="$speed_off" 'BEGIN { exit !(on < 0.8 * off) }'
check "density: on changes the hash" test "$hden" != "$hoff"
printf 'density_speed on\n' | cat - dense.txt > dense-on.txt
check "density: 'density_speed on' = --density-speed" test "$(hash_of run dense-on.txt --steps 30)" = "$hden"
check "density: -j 3 --scalar = -j 1" test "$(hash_of run dense-on.txt --steps 30 -j 3 --scalar)" = "$hden"
printf 'density_speed off\n' | cat - dense.txt > dense-off.txt
check "density: 'density_speed off' = plain" test "$(hash_of run dense-off.txt --steps 30)" = "$hoff"
printf 'density_speed on radius=1.5 gamma=2 max_density=5\n' | cat - dense.txt > dense-par.txt
expect_status 0 "density: parameters" "$ORCA" run dense-par.txt --steps 30 --json --density-speed
check "density: the statement's parameters are kept" test "$(json_get out.txt density_radius)/$(json_get out.txt density_gamma)/$(json_get out.txt density_max_density)" = 1.5/2/5
hpar=$(json_get out.txt hash)
check "density: parameters change the hash" test "$hpar" != "$hden"
expect_status 0 "density: summary" "$ORCA" run dense-par.txt --steps 1
check "density: summary line" grep -q "density speed     on: radius 1.5 m, gamma 2 m^-2, max density 5 m^-2" out.txt
# snapshots keep it
expect_status 0 "density: save half" "$ORCA" run dense-par.txt --steps 15 --save dense.snap
expect_status 0 "density: load without the statement" "$ORCA" run dense.txt --load dense.snap --steps 15 --json
check "density: the snapshot keeps the parameters" test "$(json_get out.txt density_radius)/$(json_get out.txt hash)" = "1.5/$hpar"
# orca scene writes the statement back
expect_status 0 "density: orca scene --density-speed" "$ORCA" scene circle -n 8 --density-speed -o dscene.txt
check "density: the statement is written" grep -qx "density_speed on radius=2 gamma=1.913 max_density=5.4000000000000004" dscene.txt
check "density: written scene = --density-speed" test "$(hash_of run dscene.txt --steps 20)" = "$(hash_of run --scene circle -n 8 --density-speed --steps 20)"
check "circle: golden hash without the option" test "$(hash_of run --scene circle --steps 400)" = 4be6d7e7a7e24a3a
den_bad() { statement_bad density_speed "$@"; }
den_bad "no value" "density_speed" "density_speed takes 'on' or 'off', got ''"
den_bad "bad value" "density_speed yes" "density_speed takes 'on' or 'off', got 'yes'"
den_bad "off with a parameter" "density_speed off radius=1" "density_speed off takes nothing after it, got 'radius=1'"
den_bad "unknown key" "density_speed on speed=1" "density_speed: expected radius=R, gamma=G or max_density=M, got 'speed=1'"
den_bad "key twice" "density_speed on gamma=1 gamma=2" "density_speed: gamma given twice"
den_bad "not a number" "density_speed on radius=abc" "density_speed radius: "
den_bad "radius 0" "density_speed on radius=0" "density radius must be in \[2\^-30, 2\^23\] m, got 0"
den_bad "radius negative" "density_speed on radius=-2" "density radius must be in \[2\^-30, 2\^23\] m, got -2"
den_bad "radius huge" "density_speed on radius=1e300" "density radius must be in \[2\^-30, 2\^23\] m, got 1.0000000000000001e\+300"
den_bad "gamma subnormal" "density_speed on gamma=5e-324" "density gamma must be in \[2\^-30, 2\^30\] m\^-2, got 4.9406564584124654e-324"
den_bad "max_density inf" "density_speed on max_density=inf" "density_speed max_density: "
printf 'density_speed on\nagent 5 5 goal 1 1\ndensity_speed off\n' > denbad.txt
expect_status 2 "density_speed twice" "$ORCA" run denbad.txt --steps 1
err_matches "density_speed twice: message" "^denbad\.txt:3: density_speed given twice \(first on line 1\)"

# --- the pedestrian model (docs/pedestrians.md) -------------------------------------------------
expect_status 0 "pedestrian: --pedestrian" "$ORCA" run --scene crossing --steps 60 --json --pedestrian
check "pedestrian: on: pedestrian true, extended path" test "$(json_get out.txt pedestrian)/$(json_get out.txt extended_path)" = true/true
check "pedestrian: on: the defaults" test "$(json_get out.txt pedestrian_time_gap)/$(json_get out.txt pedestrian_buffer)/$(json_get out.txt pedestrian_counter_reach)/$(json_get out.txt pedestrian_max_planes)" = 0.5/0.02/2/4
hped=$(json_get out.txt hash)
check "pedestrian: on changes the hash" test "$hped" != "$(hash_of run --scene crossing --steps 60)"
check "pedestrian: -j 3 --scalar = -j 1" test "$(hash_of run --scene crossing --steps 60 --pedestrian -j 3 --scalar)" = "$hped"
expect_status 0 "pedestrian: off" "$ORCA" run --scene crossing --steps 1 --json
check "pedestrian: off: pedestrian false" test "$(json_get out.txt pedestrian)" = false
expect_status 0 "pedestrian: summary and diagnostics" "$ORCA" run --scene crossing --steps 60 --pedestrian --diagnostics
check "pedestrian: summary line" grep -q "pedestrian        on: time gap 0.5 s, buffer 0.02 m, counter reach 2 m, at most 4 headway half-planes" out.txt
check "pedestrian: diagnostics line" grep -Eq "headway           [1-9][0-9]* headway half-planes, 0 agent-steps in counter mode" out.txt
check "pedestrian: diagnostics keep the bits" test "$(hash_of run --scene crossing --steps 60 --pedestrian --diagnostics)" = "$hped"
expect_status 0 "pedestrian: save half" "$ORCA" run --scene crossing --steps 30 --pedestrian --save ped.snap
expect_status 0 "pedestrian: load without the option" "$ORCA" run --scene crossing --load ped.snap --steps 30 --json
check "pedestrian: the snapshot keeps the model" test "$(json_get out.txt pedestrian)/$(json_get out.txt hash)" = "true/$hped"
expect_status 2 "pedestrian: with --density-speed" "$ORCA" run --scene crossing --pedestrian --density-speed
err_matches "pedestrian: with --density-speed: message" "--pedestrian and --density-speed cannot go together"
expect_status 0 "pedestrian: orca bench --extensions pedestrian" "$ORCA" bench --extensions pedestrian --sizes 200 --workers 1 --runs 1 --steps 2 --warmup 1
check "pedestrian: bench rows" grep -q "pedestrian at 200 agents: the model's defaults" out.txt
check "circle: golden hash after the pedestrian runs" test "$(hash_of run --scene circle --steps 400)" = 4be6d7e7a7e24a3a
# the scene statement and the preset (test/test_pedestrian.c builds the same scene through the
# C API: 2e658813a4f566b3 after 30 steps)
printf 'orca-scene 1\nname ped\npedestrian on\ngoalset east 20 0 20 1 20 -1\ngoalset west -20 0\nagent 0 0 goalset east\nagent 1 0 goalset west radius=0.2\nagent 2 0 goalset east stream=5\nagent 3 0 goal 10 10\ndefault max_neighbors 20\ndefault preferred_speed 1.1\ngrid 3 2 0 3 0.6 0.6 goalset west\n' > ped.txt
expect_status 0 "pedestrian: 'pedestrian on'" "$ORCA" run ped.txt --steps 30 --json
check "pedestrian: the statement: the preset's dt, the pinned hash" test "$(json_get out.txt dt)/$(json_get out.txt hash)" = 0.05/2e658813a4f566b3
sed '/^pedestrian on/d' ped.txt > ped-none.txt
check "pedestrian: --pedestrian = the statement" test "$(hash_of run ped-none.txt --steps 30 --pedestrian)" = 2e658813a4f566b3
expect_status 0 "pedestrian: without it" "$ORCA" run ped-none.txt --steps 1 --json
check "pedestrian: without it: off, dt 0.25" test "$(json_get out.txt pedestrian)/$(json_get out.txt dt)" = false/0.25
printf 'pedestrian on time_gap=0.8 max_planes=6\nagent 0 0 goal 5 0\n' > ped-own.txt
expect_status 0 "pedestrian: the statement's parameters" "$ORCA" run ped-own.txt --steps 1 --json --pedestrian
check "pedestrian: the statement's parameters are kept" test "$(json_get out.txt pedestrian_time_gap)/$(json_get out.txt pedestrian_max_planes)" = 0.8/6
expect_status 2 "pedestrian: a file's density_speed with --pedestrian" "$ORCA" run dense-on.txt --steps 1 --pedestrian
printf 'density_speed on\n' | cat - ped.txt > ped-den.txt
expect_status 2 "pedestrian: both statements" "$ORCA" run ped-den.txt --steps 1
err_matches "pedestrian: both statements: message" "^ped-den\.txt:4: .*density"
expect_status 2 "pedestrian: --density-speed on a pedestrian file" "$ORCA" run ped.txt --steps 1 --density-speed
err_matches "pedestrian: --density-speed on a pedestrian file: message" "--density-speed: .*pedestrian model"
expect_status 0 "pedestrian: orca scene --pedestrian" "$ORCA" scene crossing -n 8 --pedestrian -o pscene.txt
check "pedestrian: the statement is written" grep -qx "pedestrian on time_gap=0.5 buffer=0.02 counter_reach=2 max_planes=4" pscene.txt
check "pedestrian: written scene = --pedestrian" test "$(hash_of run pscene.txt --steps 20)" = "$(hash_of run --scene crossing -n 8 --pedestrian --steps 20)"
ped_bad() { statement_bad pedestrian "$@"; }
ped_bad "no value" "pedestrian" "pedestrian takes 'on' or 'off', got ''"
ped_bad "off with a parameter" "pedestrian off buffer=0" "pedestrian off takes nothing after it, got 'buffer=0'"
ped_bad "unknown key" "pedestrian on gap=1" "pedestrian: expected time_gap=T, buffer=B, counter_reach=D or max_planes=N, got 'gap=1'"
ped_bad "max_planes not whole" "pedestrian on max_planes=1.5" "pedestrian max_planes must be a whole number, got 1.5"
ped_bad "time_gap 0" "pedestrian on time_gap=0" "pedestrian model refused: pedestrian time_gap must be in \[2\^-30, 2\^30\] s, got 0"
printf 'agent 5 5 goal 1 1 stream=-3\n' > streambad.txt
expect_status 2 "pedestrian: stream -3" "$ORCA" run streambad.txt --steps 1
err_matches "pedestrian: stream -3: message" "^streambad\.txt:1: stream must be -1 \(none\) or a number >= 0"

if [[ -s $TMP/wine-reruns.txt ]]; then
    echo "note: $(wc -l < "$TMP/wine-reruns.txt") run(s) ended under Wine with status 1 and no output and were run again:"
    sed 's/^/    /' "$TMP/wine-reruns.txt"
fi
if ((SKIPPED > 0)); then
    echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
else
    echo "$PASSED passed, $FAILED failed"
fi
[[ $FAILED -eq 0 ]]
