#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README and scripts/demo agree (issue 27, item 10): every state hash the README's scripts/demo
# line quotes is printed by the demo, the demo's hash after 400 steps is the golden circle hash
# of test/golden/determinism.txt (the one the README quotes elsewhere), and each printed hash
# says which state it is (at arrival, after 400 steps).
#   bash test/demo_readme.sh SOURCE_DIR path/to/orca
set -u
src=$1
orca=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/orca-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# A Windows build (orca.exe) runs through ORCA_EMULATOR (scripts/wine-run; set by ctest).
if [[ $orca == *.exe && -n ${ORCA_EMULATOR:-} ]]; then
  printf '#!/usr/bin/env bash\nexec %q %q "$@"\n' "$ORCA_EMULATOR" "$orca" > "$tmp/orca"
  chmod +x "$tmp/orca"
  orca=$tmp/orca
fi
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
out=$(cd "$tmp" && ORCA_CLI=$orca bash "$src/scripts/demo" 2>&1) || fail "scripts/demo failed: $out"
line=$(grep -m 1 '^scripts/demo ' "$src/README.md")
quoted=$(grep -o '[0-9a-f]\{16\}' <<<"$line" || true)
[ -n "$quoted" ] || fail "README's scripts/demo line quotes no hash: $line"
for h in $quoted; do
  grep -q "$h" <<<"$out" || fail "README quotes $h for the demo; the demo does not print it"
done
golden=$(sed -n 's/^circle agents=100 steps=400 hash=\([0-9a-f]*\)$/\1/p' "$src/test/golden/determinism.txt")
grep -q "after 400 steps $golden (equal to the golden hash" <<<"$out" ||
  fail "the demo does not print the golden hash $golden as the hash after 400 steps"
grep -q "4be6d7e7a7e24a3a" <<<"$line" || fail "README's demo line does not quote the golden hash"
arrival=$(sed -n 's/^  state hash *\([0-9a-f]\{16\}\).*/\1/p' <<<"$out")
grep -q "steps .*(until all arrived)" <<<"$out" || fail "the demo's run did not stop at arrival"
grep -q "hash at arrival $arrival" <<<"$line" || fail "README's demo line does not quote the hash at arrival ($arrival)"
[ -s "$tmp/demo.svg" ] || fail "no demo.svg"
echo "$out" | tail -n 2
if [ $failed -eq 0 ]; then echo "demo_readme: ok"; fi
exit $failed
