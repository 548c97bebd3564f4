#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README and scripts/demo agree (issue 27, item 10; issue 46): README opens with the two
# commands and short comments, the hash at arrival it quotes is the one the demo prints, the
# demo's hash after 400 steps is the golden circle hash of test/golden/determinism.txt (which
# the README quotes too), and each printed hash says which state it is.
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
# The README opens with the two commands, each with a short comment (a line of at most 100
# characters), and quotes the demo's hashes in the paragraphs that follow.
first=$(sed -n '/^```sh$/,/^```$/p' "$src/README.md" | sed -n '2,3p')
grep -q '^scripts/demo ' <<<"$first" && grep -q '^scripts/test ' <<<"$first" ||
  fail "README's first code block is not the two commands scripts/demo and scripts/test: $first"
while IFS= read -r l; do
  [ ${#l} -le 100 ] || fail "README's command line is ${#l} characters (at most 100): $l"
done <<<"$first"
text=$(tr '\n' ' ' <"$src/README.md")
quoted=$(grep -o 'hash at arrival, [0-9a-f]\{16\}' <<<"$text" | grep -o '[0-9a-f]\{16\}' || true)
[ -n "$quoted" ] || fail "README quotes no demo hash at arrival"
golden=$(sed -n 's/^circle agents=100 steps=400 hash=\([0-9a-f]*\)$/\1/p' "$src/test/golden/determinism.txt")
grep -q "after 400 steps $golden (equal to the golden hash" <<<"$out" ||
  fail "the demo does not print the golden hash $golden as the hash after 400 steps"
grep -q "hash after 400 steps, $golden" <<<"$text" ||
  fail "README does not quote the golden hash $golden as the demo's hash after 400 steps"
arrival=$(sed -n 's/^  state hash *\([0-9a-f]\{16\}\).*/\1/p' <<<"$out")
grep -q "steps .*(until all arrived)" <<<"$out" || fail "the demo's run did not stop at arrival"
[ "$quoted" = "$arrival" ] || fail "README quotes $quoted as the hash at arrival; the demo's is $arrival"
[ -s "$tmp/demo.svg" ] || fail "no demo.svg"
echo "$out" | tail -n 2
if [ $failed -eq 0 ]; then echo "demo_readme: ok"; fi
exit $failed
