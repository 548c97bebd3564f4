#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# orca on MPI (docs/mpi.md): every hash of a split run equals the one-process hash.
#   test/mpi_tests.sh MPI_CHECK ORCA_MPI ORCA [MPIEXEC [MPI_NAV_CHECK]]
# 1. mpi_check (test/mpi_check.c) on 1, 2, 3 and 4 ranks: a scene with walls built through the
#    API, agents crossing strip borders both ways, dense halos, borders moved every step,
#    removals and additions mid-run, a wall removed mid-run, refusals, a checkpoint restarted on
#    fewer ranks; each hash against a one-process simulation run alongside on every rank.
# 2. orca-mpi on every built-in scene on 1-4 ranks: the hash every 50 steps equals
#    `orca run --steps K`'s.
#    --max-steps (until every agent has arrived) stops where orca run stops, with its hash.
#    A 2 km x 6 m corridor on 4 ranks is cut across its length (small halos), to orca run's hash;
#    with one agent reaching 2^23 m only its rank receives every agent. Mixed neighbour
#    distances and radii rebalanced every step: hash and overlap records equal orca run's.
#    The extensions (avoidance settings, separation, density speed, pedestrian model and
#    streams, walkable-area boundaries, goal sets and exits, waypoints): every step's hash on 1-4 ranks
#    equals orca run's;
#    checkpoints of each continue. --csv and --svg write orca run's bytes. Navigation (point
#    goals behind walls, the leg check, examples/floor.txt's exits, the calm exit choice): the
#    hash at every step or through an evacuation, the navigation counts and each exit's
#    departures equal orca run's, also after a checkpoint continued on another rank count;
#    likewise the quickest exit choice (the queues and outflows of every rank); --svg of a
#    navigated run has orca run's bytes (each tracked agent's path).
# 3. A checkpoint written on 2 ranks continued on 3 and on 1: the hash equals orca run's.
# 4. A rank killed mid-run: the job fails within a bounded time with a message naming the
#    lost process; the last checkpoint restarts it with the one-process bits.
# 5. mpi_nav_check (test/mpi_nav_check.c) on 1-4 ranks: navigation where the run changes under
#    it (walls added and removed mid-run, checkpoints taken just after a wall changed,
#    restarted on every rank count; agents removed and added; a rank out of memory re-reading
#    changed walls with the quickest exit choice), against one process after every step and
#    change.
# Ranks beyond the machine's cores run oversubscribed; as root Open MPI needs the run-as-root
# variables, set here.
set -u
check=$1
ompi=$2
orca=$3
mpiexec=${4:-mpirun}
navcheck=${5:-$(dirname "$check")/mpi_nav_check}
examples="$(cd "$(dirname "$0")/.." && pwd)/examples"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# no InfiniBand or shared-memory warnings on a VM
export OMPI_MCA_btl_base_warn_component_unused=0
run() { timeout 300 "$mpiexec" --oversubscribe -n "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# 1. the API test
for r in 1 2 3 4; do
    if run "$r" "$check" >"$tmp/check$r.log" 2>&1; then
        ok "mpi_check on $r ranks: $(tail -n 1 "$tmp/check$r.log")"
    else
        bad "mpi_check on $r ranks"
        tail -n 20 "$tmp/check$r.log"
    fi
done

# 2. the built-in scenes: hashes every 50 steps against orca run
scenes=("circle 100" "crossing 98" "wallgap 40" "corridor 40" "random 1000")
steps=200
for sn in "${scenes[@]}"; do
    read -r scene n <<<"$sn"
    want=""
    for k in 50 100 150 200; do
        h=$("$orca" run --scene "$scene" -n "$n" --steps "$k" --json | json 'd["hash"]')
        want+="$k:$h "
    done
    for r in 1 2 3 4; do
        got=$(run "$r" "$ompi" run --scene "$scene" -n "$n" --steps $steps --hash-every 50 \
            --rebalance 10 --json 2>"$tmp/err" |
            json '" ".join("%d:%s" % (x["step"], x["hash"]) for x in d["hashes"]) + " "')
        if [[ "$got" == "$want" ]]; then
            ok "$scene ($n agents) on $r ranks: $want"
        else
            bad "$scene on $r ranks: got '$got', orca run gives '$want'"
            cat "$tmp/err"
        fi
    done
done

# 2b. a scene file: `orca scene` writes the corridor, both commands run it; a scene file with
#     navigation is refused by name
"$orca" scene corridor >"$tmp/corridor.txt" 2>"$tmp/err" || bad "orca scene corridor"
want=$("$orca" run "$tmp/corridor.txt" --steps 150 --json | json 'd["hash"]')
for r in 1 3; do
    got=$(run "$r" "$ompi" run "$tmp/corridor.txt" --steps 150 --json 2>"$tmp/err" | json 'd["hash"]')
    if [[ "$got" == "$want" ]]; then
        ok "scene file (corridor) on $r ranks: $got"
    else
        bad "scene file on $r ranks: $got, orca run gives $want"
        cat "$tmp/err"
    fi
done
# 2c. a long corridor (2 km x 6 m, 12,000 agents both ways, neighbour distance 2 m) on 4 ranks:
#     every cut goes across its length (each domain spans the whole width), so the halos are a
#     few columns at each cut; the hash equals orca run's
cat >"$tmp/long.txt" <<'EOF'
orca-scene 1
dt 0.1
default radius 0.2
default neighbor_dist 2
default time_horizon 2
default obstacle_time_horizon 2
default preferred_speed 1.3
segment 0 0 2000 0
segment 0 6 2000 6
grid 2000 3 0.5 0.5 1 1 goal 2100 1.5
grid 2000 3 0.5 3.5 1 1 goal -100 4.5
EOF
want=$("$orca" run "$tmp/long.txt" --steps 20 --json | json 'd["hash"]')
got=$(run 4 "$ompi" run "$tmp/long.txt" --steps 20 --rebalance 5 --json 2>"$tmp/err" |
    json '"%s %.4f %d" % (d["hash"], sum(r["halo_per_step"] for r in d["per_rank"]) /
          d["agents"], all(r["box"][1] < -1e300 and r["box"][3] > 1e300 for r in d["per_rank"]))')
read -r h share across <<<"$got"
if [[ "$h" == "$want" && "$across" == 1 ]] && python3 -c "import sys; sys.exit(not $share < 0.02)"; then
    ok "a 2 km x 6 m corridor on 4 ranks, cut across its length: $share halo agents per owned, $h"
else
    bad "the long corridor on 4 ranks: '$got' (orca run: $want; want every domain across the" \
        "width and under 0.02 halo agents per owned)"
    cat "$tmp/err"
fi

# 2d. halo widths per region: one agent of the corridor reaches 2^23 m. Only its rank needs
#     every agent (each rank receives the agents its own can reach, docs/mpi.md "Halo"): about
#     0.75 halo agents per owned agent, where one global width gave every rank every agent
#     (3.0); its rank reports the reach, the others 2 m; the hash equals orca run's.
{ cat "$tmp/long.txt"; echo "agent 1000 3 goal 2100 3 neighbor_dist=8388608"; } >"$tmp/far.txt"
want=$("$orca" run "$tmp/far.txt" --steps 20 --json | json 'd["hash"]')
got=$(run 4 "$ompi" run "$tmp/far.txt" --steps 20 --rebalance 5 --json 2>"$tmp/err" |
    json '"%s %.4f %s" % (d["hash"], sum(r["halo_per_step"] for r in d["per_rank"]) /
          d["agents"], ",".join("%g" % x for x in sorted(r["reach"] for r in d["per_rank"])))')
read -r h share reach <<<"$got"
if [[ "$h" == "$want" && "$reach" == "2,2,2,8.38861e+06" ]] &&
   python3 -c "import sys; sys.exit(not $share < 0.8)"; then
    ok "the corridor with one agent reaching 2^23 m on 4 ranks: $share halo agents per owned, $h"
else
    bad "the corridor with one far-reaching agent: '$got' (orca run: $want; want under 0.8" \
        "halo agents per owned and reaches 2,2,2,8.38861e+06)"
    cat "$tmp/err"
fi
# Mixed reaches, rebalanced every step, on 2 and 4 ranks: the hash and both overlap records
# equal orca run's. mix.txt: neighbour distances 0.8, 6, 40 and 1 next to one another (a rank
# that missed an agent within an owned agent's distance changes the hash); pair.txt: two
# agents whose neighbour distance (0.1 m) is below their radii's sum pass through each other
# across the root cut (the rebalancing puts it between them; only the larger one's diameter in
# its reach puts the pair in one local list: the overlap record).
cat >"$tmp/mix.txt" <<'EOF2'
orca-scene 1
dt 0.25
segment -12 -8 12 -8
grid 16 8 -28 -4.5 1.3 1.2 goal 30 0 radius=0.5 neighbor_dist=0.8
grid 16 8 8 -4.5 1.0 1.1 stagger goal -30 0 radius=0.15 neighbor_dist=6
agent 0 20 goal 0 -20 radius=0.3 neighbor_dist=40
agent 0 -7 goal 0 30 radius=2 neighbor_dist=1
EOF2
cat >"$tmp/pair.txt" <<'EOF2'
orca-scene 1
default neighbor_dist 0.1
default radius 0.2
grid 5 10 -30 -5 2 1
grid 5 10 22 -5 2 1
agent -15 0 goal 30 0 radius=3
agent 15.3 0.5 goal -30 0.5 radius=0.01
EOF2
for sk in "mix 120" "pair 80"; do
    read -r scene k <<<"$sk"
    want=$("$orca" run "$tmp/$scene.txt" --steps "$k" --json |
        json '"%s %r %r" % (d["hash"], d["max_agent_overlap"], d["max_wall_overlap"])')
    for r in 2 4; do
        got=$(run "$r" "$ompi" run "$tmp/$scene.txt" --steps "$k" --rebalance 1 --json \
            2>"$tmp/err" | json '"%s %r %r" % (d["hash"], d["agent_overlap"], d["wall_overlap"])')
        if [[ "$got" == "$want" ]]; then
            ok "mixed reaches ($scene) on $r ranks, rebalanced every step: $got"
        else
            bad "mixed reaches ($scene) on $r ranks: '$got', orca run gives '$want'"
            cat "$tmp/err"
        fi
    done
done

# the text summary's overlaps are fractions of the radius, as orca run's (not metres)
ov=$(run 2 "$ompi" run "$tmp/corridor.txt" --steps 20 2>"$tmp/err" | grep 'overlap')
if grep -q 'deepest agent overlap: .* (fraction of radius)' <<<"$ov" &&
   grep -q 'deepest wall overlap: .* (fraction of radius)' <<<"$ov" && ! grep -q ' m$' <<<"$ov"; then
    ok "the text summary labels the overlaps as fractions of the radius"
else
    bad "the text summary's overlap lines: $ov"
fi
# refused WHAT MESSAGE ARGS...: `orca-mpi run ARGS` on 2 ranks fails, saying MESSAGE
refused() {
    local what=$1 msg=$2
    shift 2
    if run 2 "$ompi" run "$@" >/dev/null 2>"$tmp/err"; then
        bad "$what: accepted"
    elif grep -q -- "$msg" "$tmp/err"; then
        ok "$what refused: $(grep -m1 orca-mpi "$tmp/err")"
    else
        bad "$what: unexpected message"
        cat "$tmp/err"
    fi
}
refused "a bad option value" "--steps: expected a whole number" --scene circle --steps x
refused "--steps with --max-steps" "give --steps N or --max-steps CAP, not both" \
    --scene circle --steps 5 --max-steps 9

# 2e. the extensions under MPI, against one process after every step: avoidance settings
#     (priority, layers and masks, locked agents) with the separation option and two agents
#     at one point; the density-dependent speed in a corridor; the pedestrian model with two
#     streams meeting in a corridor (it reads the neighbours' stored preferred velocities and
#     streams, halo copies' too). On 1-4 ranks rebalanced every step: `--hash-every 1` equals
#     `orca run --steps k` for every k; and the flags --separation, --density-speed and
#     --pedestrian on a plain file, and a checkpoint of each continued on another rank count.
python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
random.seed(44)
L = ["orca-scene 1", "dt 0.1", "separation on", "default radius 0.3", "default neighbor_dist 4",
     "default time_horizon 2", "segment 0 -1 20 -1"]
for i in range(60):
    x, y = random.uniform(0, 20), random.uniform(0, 20)
    k = []
    if i % 3 == 0: k.append("priority=%s" % (0.5, 2, 4)[(i // 3) % 3])
    if i % 5 == 0: k.append("layers=2 mask=3")
    if i % 17 == 0: k.append("locked=1")
    L.append("agent %.3f %.3f goal %.3f %.3f %s" % (x, y, 20 - x, 20 - y, " ".join(k)))
L += ["agent 5 5 goal 10 10", "agent 5 5 goal 0 10"]
open(d + "/ext-avoid.txt", "w").write("\n".join(L) + "\n")
L = ["orca-scene 1", "dt 0.1", "density_speed on radius=1.5", "default radius 0.2",
     "default neighbor_dist 3", "segment -1 -0.5 50 -0.5", "segment -1 4.5 50 4.5"]
for i in range(80):
    x, y = random.uniform(0, 10), random.uniform(0, 4)
    L.append("agent %.3f %.3f goal %.3f %.3f" % (x, y, x + 30, y))
open(d + "/ext-density.txt", "w").write("\n".join(L) + "\n")
P = ["orca-scene 1", "dt 0.05", "pedestrian on", "segment 0 0 30 0", "segment 0 6 30 6"]
for i in range(80):
    x, y = random.uniform(1, 29), random.uniform(0.5, 5.5)
    P.append("agent %.3f %.3f goal %d %.3f stream=%d" % (x, y, 40 if i % 2 == 0 else -10, y, i % 2))
open(d + "/ext-ped.txt", "w").write("\n".join(P) + "\n")
open(d + "/ext-plain.txt", "w").write("\n".join(l for l in L if not l.startswith("density")) + "\n")
B = ["orca-scene 1", "dt 0.1", "default radius 0.25", "default neighbor_dist 3",
     "default time_horizon 2", "boundary 0 0 24 0 24 16 0 16", "boundary 10 6 10 10 14 10 14 6"]
while len(B) < 7 + 80:
    x, y = random.uniform(0.5, 23.5), random.uniform(0.5, 15.5)
    if not (9.5 < x < 14.5 and 5.5 < y < 10.5):
        B.append("agent %.3f %.3f goal %.3f %.3f" % (x, y, 24 - x, 16 - y))
open(d + "/ext-bnd.txt", "w").write("\n".join(B) + "\n")
G = ["orca-scene 1", "dt 0.25", "default radius 0.25", "default neighbor_dist 3",
     "default time_horizon 2", "goalset doors -0.5 2  10.5 2  5 -0.5 exit arrive=0.6",
     "goalset meet 5 8", "segment 0 0 4 0", "segment 6 0 10 0", "segment 0 4 10 4"]
for i in range(60):
    G.append("agent %.3f %.3f goalset %s" % (random.uniform(0.5, 9.5), random.uniform(0.5, 3.5),
                                               "meet" if i % 5 == 0 else "doors"))
open(d + "/ext-sets.txt", "w").write("\n".join(G) + "\n")
# waypoints: single agents on routes across the domains (one-way to a goal, with arrive
# distances or the radius), a looping lap, and two grids sharing their via points (the
# table keeps shared points once), with walls and the pedestrian model's neighbours nowhere
W = ["orca-scene 1", "dt 0.1", "default radius 0.25", "default neighbor_dist 3",
     "default time_horizon 2", "segment 4 -1 4 6", "segment 16 14 16 21"]
for i in range(40):
    x, y = random.uniform(0, 20), random.uniform(0, 20)
    via = " ".join("%.3f %.3f" % (random.uniform(0, 20), random.uniform(0, 20))
                   for _ in range(1 + i % 3))
    arrive = " arrive=%.2f" % random.uniform(0.3, 2) if i % 2 else ""
    W.append("agent %.3f %.3f goal %.3f %.3f via %s%s" % (x, y, 20 - x, 20 - y, via, arrive))
for i in range(12):  # close-set points: several switches within the per-step check's steps
    x, y = random.uniform(2, 18), random.uniform(2, 18)
    dx, dy = (1, 0) if i % 2 else (0, -1)
    via = " ".join("%.3f %.3f" % (x + 0.3 * j * dx, y + 0.3 * j * dy) for j in range(1, 7))
    W.append("agent %.3f %.3f goal %.3f %.3f via %s" % (x, y, x - 9 * dy, y + 9 * dx, via))
W.append("agent 2 2 goal 2 2 via 18 2 18 18 2 18 loop arrive=1")
W.append("grid 4 3 1 9 0.7 0.7 goal 19 10 via 10 3 15 17")
W.append("grid 3 3 17 1 0.7 0.7 goal 1 19 via 10 10 loop arrive=1.5")
open(d + "/ext-wp.txt", "w").write("\n".join(W) + "\n")
PY
ext_steps=24
# ext_case NAME FILE [FLAGS...]: every step's hash on 1-4 ranks against orca run's
ext_case() {
    local name=$1 file=$2
    shift 2
    local want="" k h got r
    for ((k = 1; k <= ext_steps; ++k)); do
        h=$("$orca" run "$file" --steps "$k" "$@" --json | json 'd["hash"]')
        want+="$k:$h "
    done
    for r in 1 2 3 4; do
        got=$(run "$r" "$ompi" run "$file" --steps $ext_steps --hash-every 1 --rebalance 1 "$@" \
            --json 2>"$tmp/err" |
            json '" ".join("%d:%s" % (x["step"], x["hash"]) for x in d["hashes"]) + " "')
        if [[ "$got" == "$want" ]]; then
            local last=${want% }
            ok "$name on $r ranks: every step's hash equals orca run's (step ${last##* })"
        else
            bad "$name on $r ranks: got '$got', orca run gives '$want'"
            cat "$tmp/err"
        fi
    done
}
ext_case "avoidance settings and separation" "$tmp/ext-avoid.txt"
ext_case "density-dependent speed" "$tmp/ext-density.txt"
ext_case "pedestrian model and streams" "$tmp/ext-ped.txt"
ext_case "walkable-area boundaries (a room with a pillar)" "$tmp/ext-bnd.txt"
ext_case "goal sets and exits" "$tmp/ext-sets.txt"
ext_case "waypoints (one-way, looping, grids sharing their route)" "$tmp/ext-wp.txt"
# waypoints a long way: agents reach their goals (--max-steps) on orca run's step and hash
want=$("$orca" run "$tmp/ext-wp.txt" --max-steps 3000 --json |
    json '"%s %s %s" % (d["hash"], d["arrived"], d["all_arrived_step"])')
for r in 2 4; do
    got=$(run "$r" "$ompi" run "$tmp/ext-wp.txt" --max-steps 3000 --json 2>"$tmp/err" |
        json '"%s %s %s" % (d["hash"], d["arrived"], d["all_arrived_step"])')
    if [[ "$got" == "$want" ]]; then
        ok "waypoints on $r ranks, until arrived (the looping agents never do): $got"
    else
        bad "waypoints on $r ranks, until arrived: '$got', orca run gives '$want'"
        cat "$tmp/err"
    fi
done
# the exits' counts and --max-steps with exits, as orca run reports them
want=$("$orca" run "$tmp/ext-sets.txt" --max-steps 400 --json |
    json '"%s %s %s %s" % (d["hash"], d["exited"], d["exited_last_step"], d["all_arrived_step"])')
for r in 1 3; do
    got=$(run "$r" "$ompi" run "$tmp/ext-sets.txt" --max-steps 400 --rebalance 1 --json \
        2>"$tmp/err" |
        json '"%s %s %s %s" % (d["hash"], d["exited"], d["exited_last_step"], d["all_arrived_step"])')
    if [[ "$got" == "$want" ]]; then
        ok "exits on $r ranks, until arrived: hash, exited, last exit step, arrival step: $got"
    else
        bad "exits on $r ranks: '$got', orca run gives '$want'"
        cat "$tmp/err"
    fi
done
# the fallbacks, counted without --diagnostics: each rank's step counts its owned agents' only
# (a halo copy's are its own rank's), so the summary's sum is orca run's fallback_total
for f in avoid sets ped; do
    want=$("$orca" run "$tmp/ext-$f.txt" --steps 60 --json |
        json '"%s %s" % (d["hash"], d["fallback_total"])')
    for r in 2 4; do
        got=$(run "$r" "$ompi" run "$tmp/ext-$f.txt" --steps 60 --rebalance 1 --json \
            2>"$tmp/err" | json '"%s %s" % (d["hash"], d["fallbacks"])')
        if [[ "$got" == "$want" ]]; then
            ok "ext-$f on $r ranks: hash and fallbacks $got, as orca run's"
        else
            bad "ext-$f on $r ranks: hash and fallbacks '$got', orca run gives '$want'"
            cat "$tmp/err"
        fi
    done
done
for fl in --separation --density-speed --pedestrian; do
    want=$("$orca" run "$tmp/ext-plain.txt" --steps 20 $fl --json | json 'd["hash"]')
    got=$(run 3 "$ompi" run "$tmp/ext-plain.txt" --steps 20 --rebalance 1 $fl --json \
        2>"$tmp/err" | json 'd["hash"]')
    if [[ "$got" == "$want" ]]; then
        ok "orca-mpi $fl on 3 ranks: $got, as orca run $fl"
    else
        bad "orca-mpi $fl: $got, orca run gives $want"
        cat "$tmp/err"
    fi
done
for f in avoid density ped bnd sets wp; do
    want=$("$orca" run "$tmp/ext-$f.txt" --steps 30 --json | json 'd["hash"]')
    rm -rf "$tmp/ck-$f" && mkdir "$tmp/ck-$f"
    run 2 "$ompi" run "$tmp/ext-$f.txt" --steps 15 --rebalance 1 --checkpoint "$tmp/ck-$f" -q \
        2>"$tmp/err" || cat "$tmp/err"
    got=$(run 3 "$ompi" run --restart "$tmp/ck-$f" --steps 15 --rebalance 1 --json 2>"$tmp/err" |
        json 'd["hash"]')
    if [[ "$got" == "$want" ]]; then
        ok "ext-$f: a checkpoint on 2 ranks continued on 3: $got, as orca run"
    else
        bad "ext-$f: the checkpoint continued to $got, orca run gives $want"
        cat "$tmp/err"
    fi
done
refused "--pedestrian on a built-in scene" "applies to a scene file only" --scene circle \
    --pedestrian
# --csv: the same bytes as orca run's, on 1-4 ranks (rows through rank 0 in windows)
for ev in 1 7; do
    "$orca" run "$tmp/ext-ped.txt" --steps 30 --csv "$tmp/want.csv" --every $ev -q
    for r in 1 2 3 4; do
        run "$r" "$ompi" run "$tmp/ext-ped.txt" --steps 30 --rebalance 1 --csv "$tmp/got.csv" \
            --every $ev -q 2>"$tmp/err"
        if cmp -s "$tmp/want.csv" "$tmp/got.csv"; then
            ok "--csv --every $ev on $r ranks: the bytes of orca run's ($(wc -l <"$tmp/got.csv") lines)"
        else
            bad "--csv --every $ev on $r ranks differs from orca run's"
            cat "$tmp/err"
        fi
    done
done
refused "--csv into a directory that does not exist" "--csv: $tmp/nodir/x.csv: No such file" \
    "$tmp/ext-ped.txt" --steps 2 --csv "$tmp/nodir/x.csv" -q
refused "a scene file that does not exist" "cannot open: No such file" "$tmp/none.txt" --steps 2
# --csv - and --svg -: standard output carries that output alone (no summary), as with orca
# run; two outputs there, or one with --json or --hash-every (both print on standard output),
# are refused, and so are --csv and --svg naming one file. --json lists every hash of
# --hash-every (it kept 64).
"$orca" run "$tmp/ext-ped.txt" --steps 30 --csv "$tmp/want.csv" --svg "$tmp/want.svg" -q
for out in csv svg; do
    if run 2 "$ompi" run "$tmp/ext-ped.txt" --steps 30 --rebalance 1 --$out - \
        >"$tmp/got.$out" 2>"$tmp/err" && cmp -s "$tmp/want.$out" "$tmp/got.$out"; then
        ok "--$out - on 2 ranks: orca run's bytes, alone on standard output"
    else
        bad "--$out - on 2 ranks: not orca run's bytes alone"
        cat "$tmp/err"
    fi
done
refused "--csv - with --svg -" "both ask for standard output" --scene circle --steps 2 \
    --csv - --svg -
refused "--csv - with --json" "(standard output) and --json exclude each other" \
    --scene circle --steps 2 --csv - --json
refused "--svg - with --hash-every" "(standard output) and --hash-every exclude each other" \
    --scene circle --steps 2 --svg - --hash-every 1
refused "--csv and --svg naming one file" "name the same file" --scene circle --steps 2 \
    --csv "$tmp/same" --svg "$tmp/same"
run 2 "$ompi" run --scene circle -n 50 --steps 100 --hash-every 1 --json >"$tmp/hashes.json" \
    2>"$tmp/err"
run 2 "$ompi" run --scene circle -n 50 --steps 100 --hash-every 1 >"$tmp/hashes.txt" 2>&1
jn=$(grep -o '{"step":[0-9]*,"hash":"[0-9a-f]*"}' "$tmp/hashes.json" | wc -l)
last=$(grep -o '{"step":100,"hash":"[0-9a-f]*"}' "$tmp/hashes.json" | grep -o '[0-9a-f]\{16\}')
if [ "$jn" = 100 ] && [ -n "$last" ] && grep -q "^step 100 hash $last\$" "$tmp/hashes.txt"; then
    ok "--json lists all 100 hashes of --hash-every 1 (the last, $last, the text line's)"
else
    bad "--json lists $jn hashes of 100 (the last: '$last')"
fi
# --svg: the bytes of orca run --svg on 1-4 ranks rebalanced every step (the agents through
# rank 0 in windows of keys): a scene file with walls, a walkable-area boundary and exits
# (agents leave mid-run), whole trajectories and --svg-trail; waypoints (their dashed paths,
# a looping route coloured by its first waypoint, the caption's looping count); built-in
# scenes, one until all arrived; 30,000 agents (a sample of trajectories: every agent's start colours its disc) and
# 70,000 (five windows of keys); navigation (examples/floor.txt: 2,000 agents, four exits;
# each tracked agent's path at the end, its corners from their owners; the calm exit choice
# with the leg check on 2 ranks); an unwritable path refused with the reason
python3 - "$tmp" <<'PY'
import random, sys
random.seed(13)
S = ["orca-scene 1", "name svg-exits", "dt 0.25", "default radius 0.25", "default neighbor_dist 3",
     "default time_horizon 2", "boundary -1 -1 11 -1 11 9 -1 9",
     "goalset doors -0.5 2  10.5 2  5 -0.5 exit arrive=0.6", "goalset meet 5 8",
     "segment 0 0 4 0", "segment 6 0 10 0", "segment 0 4 10 4"]
for i in range(70):
    S.append("agent %.3f %.3f goalset %s" % (random.uniform(0.5, 9.5), random.uniform(0.5, 3.5),
                                               "meet" if i % 5 == 0 else "doors"))
for i in range(10):
    S.append("agent %.3f %.3f goal %.3f %.3f" % (random.uniform(0.5, 9.5), random.uniform(5, 8.5),
                                                 random.uniform(0.5, 9.5), random.uniform(5, 8.5)))
open(sys.argv[1] + "/svg.txt", "w").write("\n".join(S) + "\n")
PY
svg_exited=$("$orca" run "$tmp/svg.txt" --steps 300 --json | json 'd["exited"]')
if ((svg_exited > 0)); then
    ok "--svg scene: $svg_exited agents leave by exits in 300 steps"
else
    bad "--svg scene: no agent leaves by an exit"
fi
svg_cases=("$tmp/svg.txt --steps 300:1 2 3 4" "$tmp/svg.txt --steps 300 --svg-trail 8:1 2 3 4"
    "$tmp/ext-wp.txt --steps 200:1 2 3 4" "$tmp/ext-wp.txt --max-steps 3000 --svg-trail 10:2"
    "--scene crossing --steps 150:1 2 3 4" "--scene corridor --max-steps 5000 --svg-trail 20:1 3"
    "--scene random -n 30000 --steps 20:1 2 4" "--scene random -n 70000 --steps 3:3"
    "$examples/floor.txt --steps 200:1 2 3 4"
    "$examples/floor.txt --steps 200 --svg-trail 5:1 2 3 4"
    "$tmp/svg-floor-calm.txt --steps 200:2")
sed 's/^navigation on.*/navigation on check=on exits=calm/' "$examples/floor.txt" \
    >"$tmp/svg-floor-calm.txt"
for case in "${svg_cases[@]}"; do
    args=${case%%:*}
    # shellcheck disable=SC2086
    "$orca" run $args --svg "$tmp/want.svg" -q
    for r in ${case##*:}; do
        rm -f "$tmp/got.svg"
        # shellcheck disable=SC2086
        run "$r" "$ompi" run $args --rebalance 1 --svg "$tmp/got.svg" -q 2>"$tmp/err"
        if cmp -s "$tmp/want.svg" "$tmp/got.svg"; then
            ok "--svg, $args, on $r ranks: the bytes of orca run's ($(wc -c <"$tmp/got.svg") bytes)"
        else
            bad "--svg, $args, on $r ranks differs from orca run's"
            cat "$tmp/err"
        fi
    done
done
# the compared pictures draw what they should: the scene's walls and boundary, the trails
"$orca" run "$tmp/svg.txt" --steps 300 --svg-trail 8 --svg "$tmp/want.svg" -q
if [[ $(grep -c '<line ' "$tmp/want.svg") == 3 && $(grep -c 'fill="#e3ecd9"' "$tmp/want.svg") == 1 &&
    $(grep -c '<g stroke-opacity=' "$tmp/want.svg") == 4 ]]; then
    ok "--svg scene: 3 walls, the boundary and 4 shades of trails drawn"
else
    bad "--svg scene: walls, boundary or trails missing from the picture"
fi
# ... and the floor's navigation layer: a path for each agent still in the run, some of them
# round corners (more than the agent's position and its goal)
"$orca" run "$examples/floor.txt" --steps 200 --svg "$tmp/want.svg" -q
nav_paths=$(sed -n '/stroke-dasharray="3 2"/,/<\/g>/p' "$tmp/want.svg" | grep -c '<polyline')
nav_corners=$(sed -n '/stroke-dasharray="3 2"/,/<\/g>/p' "$tmp/want.svg" |
    grep -c '<polyline[^>]*"[^"]* [^"]* [^"]* [^"]*"/>')
nav_left=$("$orca" run "$examples/floor.txt" --steps 200 --json | json '2000 - d["exited"]')
if ((nav_paths == nav_left && nav_corners > 0)); then
    ok "--svg of the floor: $nav_paths navigation paths drawn, $nav_corners round corners"
else
    bad "--svg of the floor: $nav_paths navigation paths ($nav_corners round corners) for" \
        "$nav_left agents"
fi
refused "--svg into a directory that does not exist" "--svg: $tmp/nodir/x.svg: No such file" \
    --scene circle --steps 2 --svg "$tmp/nodir/x.svg" -q
refused "--svg-trail without --svg" "--svg-trail needs --svg" --scene circle --steps 2 \
    --svg-trail 5
refused "--svg-trail 0" "--svg-trail: expected seconds > 0, got '0'" --scene circle --steps 2 \
    --svg "$tmp/x.svg" --svg-trail 0
refused "--svg with --restart" "--svg draws a run from its start: not with --restart" \
    --restart "$tmp" --svg "$tmp/x.svg"

# 2f. navigation (docs/mpi.md, "Navigation"): each rank plans its owned agents' paths on its
#     local simulation; a path travels with its agent. Point goals behind walls (two rooms,
#     a door, a pillar), with and without the leg check, and with waypoints and an exit set,
#     every step's hash on 1-4 ranks rebalanced every step; examples/floor.txt (2,000 agents, four exits, the nearest by
#     path; 1-4 ranks rebalanced every step, 3 every 50) and its calm (2 and 4 ranks) and
#     quickest (1-4) exit choices with the leg check, the hash at steps through its
#     evacuation; the navigation
#     counts and each exit's departures as orca run reports them, checkpoints continued on
#     other rank counts likewise.
python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
random.seed(4414)
N = ["orca-scene 1", "dt 0.25", "navigation on", "default radius 0.25",
     "default neighbor_dist 3", "default time_horizon 2",
     "segment 0 0 20 0", "segment 20 0 20 10", "segment 20 10 0 10", "segment 0 10 0 0",
     "segment 10 0 10 4", "segment 10 5.5 10 10", "segment 4 5 6 5", "segment 14 3 14 7"]
for i in range(60):
    x, y = random.uniform(0.5, 9.5), random.uniform(0.5, 9.5)
    if 3.6 < x < 6.4 and 4.6 < y < 5.4:
        continue
    gx, gy = random.uniform(15, 19.5), random.uniform(0.5, 9.5)
    if i % 2:
        x, gx = 20 - x, 20 - gx
    N.append("agent %.3f %.3f goal %.3f %.3f" % (x, y, gx, gy))
open(d + "/nav-rooms.txt", "w").write("\n".join(N) + "\n")
W = N[:14] + ["goalset out 19 1 19 9 exit arrive=0.5"]
for i, l in enumerate(l for l in N[14:] if l.startswith("agent")):
    a = l.split()
    x, y = float(a[1]), float(a[2])
    W.append(("agent %.3f %.3f goal %s %s via 12 8" % (x, y, a[4], a[5])) if i % 3 == 0 else
             ("agent %.3f %.3f goalset out" % (x, y)) if i % 3 == 1 else l)
open(d + "/nav-wp.txt", "w").write("\n".join(W) + "\n")
open(d + "/nav-rooms-check.txt", "w").write(
    "\n".join(l if l != "navigation on" else "navigation on check=on" for l in N) + "\n")
PY
sed 's/^navigation on.*/navigation on check=on exits=calm/' "$examples/floor.txt" \
    >"$tmp/floor-calm.txt"
ext_steps=40
ext_case "navigation, point goals behind walls" "$tmp/nav-rooms.txt"
ext_case "navigation with the leg check" "$tmp/nav-rooms-check.txt"
ext_case "navigation with waypoints and an exit set" "$tmp/nav-wp.txt"
ext_steps=24
# nav_case NAME FILE STEPS...: the hash at each of STEPS (the last the run's length) on each
# rank count of $nav_ranks, rebalanced every K steps for each K of $nav_rebalance, against
# orca run --steps K; and the summary's navigation counts and each exit's departures, as orca
# run's JSON has them
nav_case() {
    local name=$1 file=$2
    shift 2
    local want="" k h got cwant cgot r reb last=${*: -1} list="$*"
    list=${list// /|}
    for k in "$@"; do
        h=$("$orca" run "$file" --steps "$k" --json | json 'd["hash"]')
        want+="step $k hash $h "
    done
    cwant=$("$orca" run "$file" --steps "$last" --json | json '" ".join(["exit point %d: %d left, the last at step %d" % (k, e["departed"], e["last_departure_step"]) for k, e in enumerate(d["exits"])] + ["navigation: %d without a path; over the run %d plans, %d re-routings, %d replans, %d exit changes by %d agents (at most %d by one), %d back to a point left" % (d["nav_unreachable"], d["nav_plans"], d["nav_reroutes"], d["nav_replans"], d["nav_exit_changes"], d["nav_agents_changed"], d["nav_most_changes"], d["nav_exit_returns"])])')
    for r in $nav_ranks; do
        for reb in $nav_rebalance; do
            run "$r" "$ompi" run "$file" --steps "$last" --hash-every 1 --rebalance $reb \
                >"$tmp/nav.out" 2>"$tmp/err"
            got=$(grep -E "^step ($list) hash" "$tmp/nav.out" | tr '\n' ' ')
            cgot=$(grep -E "^(navigation|exit point)" "$tmp/nav.out" | paste -sd ' ')
            if [[ "$got" == "$want" && "$cgot" == "$cwant" ]]; then
                ok "$name on $r ranks, --rebalance $reb: the hash at steps $*, the counts and departures equal orca run's (${cgot:0:60}...)"
            else
                bad "$name on $r ranks, --rebalance $reb: got '$got' '$cgot', orca run gives '$want' '$cwant'"
                cat "$tmp/err"
            fi
        done
    done
}
nav_ranks="1 2 3 4" nav_rebalance=1
nav_case "examples/floor.txt (navigation, exits)" "$examples/floor.txt" 1 2 3 10 50 150 300 450
nav_ranks=3 nav_rebalance=50
nav_case "examples/floor.txt (navigation, exits)" "$examples/floor.txt" 1 50 51 450
nav_ranks="2 4" nav_rebalance=1
nav_case "the floor's calm exit choice with the leg check" "$tmp/floor-calm.txt" 1 5 60 200 400
sed 's/^navigation on.*/navigation on check=on exits=quickest/' "$examples/floor.txt" \
    >"$tmp/floor-quick.txt"
nav_ranks="1 2 3 4"
nav_case "the floor's quickest exit choice (queues and outflows) with the leg check" \
    "$tmp/floor-quick.txt" 1 5 60 200 400
# a small district (scripts/district: 2 x 2 blocks, 990 agents in the streets, exits at both
# ends of every street; the figure in docs/mpi.md is the same generator's 1,095,075 agents)
"$(dirname "$0")/../scripts/district" --blocks 2 --block 16 --street 8 >"$tmp/district.txt"
nav_ranks="1 2 4" nav_rebalance=1
nav_case "a district of 2 x 2 blocks (scripts/district)" "$tmp/district.txt" 1 20 60
# --svg of navigation with waypoints and an exit set (a path ends at the current waypoint or
# the set's point it heads for; the --svg block above has the floor)
"$orca" run "$tmp/nav-wp.txt" --steps 100 --svg "$tmp/want.svg" -q
rm -f "$tmp/got.svg"
run 3 "$ompi" run "$tmp/nav-wp.txt" --steps 100 --rebalance 1 --svg "$tmp/got.svg" -q 2>"$tmp/err"
if cmp -s "$tmp/want.svg" "$tmp/got.svg"; then
    ok "--svg of navigation with waypoints and an exit set on 3 ranks: the bytes of orca run's"
else
    bad "--svg of navigation with waypoints and an exit set on 3 ranks differs from orca run's"
    cat "$tmp/err"
fi
# a navigated run's checkpoint (format version 5: the paths after the records) at step 200 on
# 2 ranks, continued to 450 on 3 and on 1: orca run's hash, counts and departures; the
# manifest with its version word made 4 (waypoints, before navigation) is refused by its
# version
mkdir -p "$tmp/navck"
want=$("$orca" run "$examples/floor.txt" --steps 450 --json | json '"%s %d %d %d %d %s" % (d["hash"], d["nav_plans"], d["nav_reroutes"], d["nav_exit_changes"], d["exited"], [e["departed"] for e in d["exits"]])')
if run 2 "$ompi" run "$examples/floor.txt" --steps 200 --checkpoint "$tmp/navck" -q \
    2>"$tmp/err"; then
    for r in 3 1; do
        got=$(run "$r" "$ompi" run --restart "$tmp/navck" --steps 250 --json 2>"$tmp/err" |
            json '"%s %d %d %d %d %s" % (d["hash"], d["nav_plans"], d["nav_reroutes"], d["nav_exit_changes"], d["exited"], [e[0] for e in d["exit_departures"]])')
        if [[ "$got" == "$want" ]]; then
            ok "a navigated checkpoint of 2 ranks continued on $r: hash, plans, re-routings, exit changes, exited, departures as orca run: $got"
        else
            bad "a navigated checkpoint continued on $r ranks: $got, orca run gives $want"
            cat "$tmp/err"
        fi
    done
    mkdir -p "$tmp/navckq"
    want=$("$orca" run "$tmp/floor-quick.txt" --steps 300 --json | json 'd["hash"]')
    run 3 "$ompi" run "$tmp/floor-quick.txt" --steps 150 --checkpoint "$tmp/navckq" -q \
        2>"$tmp/err" || cat "$tmp/err"
    got=$(run 2 "$ompi" run --restart "$tmp/navckq" --steps 150 --json 2>"$tmp/err" |
        json 'd["hash"]')
    if [[ "$got" == "$want" ]]; then
        ok "the quickest exit choice's checkpoint of 3 ranks continued on 2: $got, as orca run"
    else
        bad "the quickest exit choice's checkpoint continued on 2 ranks: $got, orca run gives $want"
        cat "$tmp/err"
    fi
    cp -r "$tmp/navck" "$tmp/navck3"
    printf '\004' | dd of="$tmp/navck3/manifest.bin" bs=1 seek=8 conv=notrunc status=none
    refused "a checkpoint of version 4" "manifest.bin: field version: 4, this orca reads 5" \
        --restart "$tmp/navck3" --steps 1 -q
else
    bad "a navigated checkpoint on 2 ranks"
    cat "$tmp/err"
fi

# 2c. until every agent has arrived (--max-steps): the step it stops at, why, and the hash
#     equal orca run's: the circle (all arrive), the wallgap stopped by the cap, and a scene
#     whose one agent stands on its goal from the start (one step, arrived at step 0)
printf 'agent 0 0 goal 0 0\n' >"$tmp/still.txt"
fields='"%s %s %s %s" % (d.get("last_step", d.get("steps")), d["stop_reason"], d["all_arrived_step"], d["hash"])'
for case in "--scene circle --max-steps 20000:1 2 3 4" "--scene wallgap --max-steps 50:2" \
    "$tmp/still.txt --max-steps 100:3"; do
    args=${case%%:*}
    # shellcheck disable=SC2086
    want=$("$orca" run $args --json | json "$fields")
    for r in ${case##*:}; do
        # shellcheck disable=SC2086
        got=$(run "$r" "$ompi" run $args --json 2>"$tmp/err" | json "$fields")
        if [[ "$got" == "$want" ]]; then
            ok "until arrived, $args on $r ranks: $got"
        else
            bad "until arrived, $args on $r ranks: '$got', orca run gives '$want'"
            cat "$tmp/err"
        fi
    done
done

# 2d. ranks that disagree: each case ends within seconds, with a message naming the rank and
#     what differs and exit status 2, never a hang (mpirun's MPMD form gives each rank its own
#     command line; timeout ends a hang)
cp "$tmp/corridor.txt" "$tmp/a.txt"
{ cat "$tmp/corridor.txt"; echo "agent 30 30 goal 0 0"; } >"$tmp/b.txt"
disagree() {
    local what=$1 msg=$2 a=$3 b=$4 start took status
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout 60 "$mpiexec" --oversubscribe -n 1 "$ompi" run $a : -n 1 "$ompi" run $b \
        >/dev/null 2>"$tmp/err"
    status=$?
    took=$(($(date +%s) - start))
    if [[ $status == 124 ]]; then
        bad "$what: hangs (killed after 60 s)"
    elif [[ $status == 0 ]]; then
        bad "$what: exit status 0"
    elif grep -q -- "$msg" "$tmp/err" && ((took < 30)); then
        ok "$what: status $status in ${took} s: $(grep -m1 orca-mpi "$tmp/err")"
    else
        bad "$what: status $status in ${took} s, unexpected message"
        cat "$tmp/err"
    fi
}
base="--scene circle -n 40 --steps 20 -q"
disagree "an unknown option on rank 1 only" "rank 1: unknown option '--bogus'" "$base" "$base --bogus"
disagree "a bad value on rank 1 only" "rank 1: --steps: expected a whole number" \
    "$base" "--scene circle --steps x"
disagree "--hash-every on one rank" "rank 1: its options differ from rank 0's: --hash-every: 5 here, not given on rank 0" \
    "$base" "$base --hash-every 5"
disagree "different --steps" "rank 1: its options differ from rank 0's: --steps: 30 here, 20 on rank 0" \
    "$base" "--scene circle -n 40 --steps 30 -q"
disagree "--scene random on one rank, circle on the other" \
    "rank 1: its options differ from rank 0's: --scene: random here, circle on rank 0" \
    "$base" "--scene random -n 40 --steps 20 -q"
disagree "different scene files" \
    "rank 1: its options differ from rank 0's: scene file: $tmp/b.txt here, $tmp/a.txt on rank 0" \
    "$tmp/a.txt --steps 20 -q" "$tmp/b.txt --steps 20 -q"
# the scene file is read once, on rank 0, and sent to the others: standard input (which
# mpirun gives rank 0 only) runs on 3 ranks to orca run's hash
want=$("$orca" run "$tmp/corridor.txt" --steps 40 --json | json 'd["hash"]')
got=$(run 3 "$ompi" run - --steps 40 --json <"$tmp/corridor.txt" 2>"$tmp/err" | json 'd["hash"]')
if [[ "$got" == "$want" ]]; then
    ok "a scene file on standard input, read by rank 0 only, on 3 ranks: $got"
else
    bad "a scene file on standard input on 3 ranks: $got, orca run gives $want"
    cat "$tmp/err"
fi

# 3. a checkpoint at step 100 on 2 ranks, continued to 200 on 3 ranks and on 1
want=$("$orca" run --scene wallgap --steps 200 --json | json 'd["hash"]')
mkdir -p "$tmp/ck"
if run 2 "$ompi" run --scene wallgap --steps 100 --checkpoint "$tmp/ck" -q >/dev/null 2>"$tmp/err"; then
    for r in 3 1; do
        got=$(run "$r" "$ompi" run --restart "$tmp/ck" --steps 100 --json 2>"$tmp/err" | json 'd["hash"]')
        if [[ "$got" == "$want" ]]; then
            ok "wallgap: checkpoint at 100 on 2 ranks, restarted on $r ranks to 200: $got"
        else
            bad "wallgap restart on $r ranks: $got, orca run gives $want"
            cat "$tmp/err"
        fi
    done
else
    bad "wallgap checkpoint on 2 ranks"
    cat "$tmp/err"
fi
# a corrupt checkpoint is refused by name
cp -r "$tmp/ck" "$tmp/ck2"
part=$(ls "$tmp/ck2"/step-100-part-00001.bin)
truncate -s -7 "$part"
refused "a truncated checkpoint part" "step-100-part-00001.bin: fields count and paths" \
    --restart "$tmp/ck2" --steps 1 -q
# a checkpoint directory that cannot be written is refused before the first step, with the
# operating system's reason (mpi_check sweeps every bit of a checkpoint)
start=$(date +%s)
refused "a checkpoint directory that does not exist" \
    "checkpoint directory $tmp/none: cannot write a file in it: No such file or directory" \
    --scene random -n 1000 --steps 100000 --checkpoint "$tmp/none" -q
took=$(($(date +%s) - start))
if ((took < 20)); then
    ok "the unwritable directory was refused in ${took} s (before the run)"
else
    bad "the unwritable directory was refused only after ${took} s"
fi

# 4. a rank killed mid-run
mkdir -p "$tmp/kill"
"$mpiexec" --oversubscribe -n 2 "$ompi" run --scene random -n 4000 --steps 100000 \
    --checkpoint "$tmp/kill" --checkpoint-every 20 -q >"$tmp/kill.log" 2>&1 &
job=$!
for _ in $(seq 1 600); do
    [[ -f "$tmp/kill/manifest.bin" ]] && break
    sleep 0.1
done
sleep 1
victim=$(pgrep -f "orca-mpi run --scene random -n 4000 --steps 100000" | tail -n 1)
start=$(date +%s)
if [[ -n "$victim" ]]; then
    kill -9 "$victim"
fi
status=0
for _ in $(seq 1 600); do
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$job" 2>/dev/null; then
    kill -9 "$job"
    bad "a killed rank: the job still runs 60 s later"
else
    wait "$job"
    status=$?
    took=$(($(date +%s) - start))
    if [[ $status != 0 ]] && grep -qiE "killed|signal|exited|terminated|aborted" "$tmp/kill.log"; then
        ok "a killed rank: the job failed with status $status in ${took} s ($(grep -m1 -iE 'killed|signal' "$tmp/kill.log" | tr -s ' ' | head -c 160))"
    else
        bad "a killed rank: status $status"
        cat "$tmp/kill.log"
    fi
fi
at=$(python3 -c "
import struct,sys
b=open('$tmp/kill/manifest.bin','rb').read()
print(struct.unpack('<Q', b[24:32])[0])")
want=$("$orca" run --scene random -n 4000 --steps $((at + 20)) --json | json 'd["hash"]')
got=$(run 3 "$ompi" run --restart "$tmp/kill" --steps 20 --json 2>"$tmp/err" | json 'd["hash"]')
if [[ "$got" == "$want" ]]; then
    ok "restarted from the last checkpoint (step $at) on 3 ranks, 20 steps more: $got"
else
    bad "restart after the kill: $got, orca run gives $want"
    cat "$tmp/err"
fi

# 5. navigation where the run changes under it, against one process (test/mpi_nav_check.c)
for r in 1 2 3 4; do
    # (a shorter limit: a rank left waiting in a collective call is what one case looks for)
    if timeout 120 "$mpiexec" --oversubscribe -n "$r" "$navcheck" >"$tmp/navcheck$r.log" 2>&1; then
        ok "mpi_nav_check on $r ranks: $(tail -n 1 "$tmp/navcheck$r.log")"
    else
        bad "mpi_nav_check on $r ranks"
        tail -n 20 "$tmp/navcheck$r.log"
    fi
done

echo "mpi: $passed passed, $failed failed"
[[ $failed == 0 ]]
