#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that no tracked file refers to the text the developers were given outside this
# repository (issue 13): orca's own description is docs/algorithm.md, and a user who clones or
# installs orca has nothing else. Fails (exit 1) and lists every hit when `git grep` finds the
# outside directory's name in a tracked text file; passes when the source directory is not a
# git checkout (a release tarball, an installed copy), since there is nothing tracked to check.
#   bash test/no_outside_text.sh [SOURCE_DIR]      (default: the directory above this script)
set -u

root=${1:-"$(dirname "$0")/.."}
if ! cd "$root" 2>/dev/null; then
    echo "no_outside_text: cannot enter '$root'" >&2
    exit 2
fi

if ! command -v git >/dev/null 2>&1 ||
   [ "$(git rev-parse --is-inside-work-tree 2>/dev/null)" != true ]; then
    if [ -e .git ]; then
        # A checkout that git refuses to read (no git, or safe.directory): not a pass.
        echo "no_outside_text: $(pwd) has a .git but git cannot read it:" >&2
        git rev-parse --is-inside-work-tree >&2
        exit 2
    fi
    echo "no_outside_text: $(pwd) is not a git checkout; nothing tracked to check (passed)"
    exit 0
fi

# Built from pieces so that this file does not match its own search.
pattern="shared"
pattern="$pattern/"

# Tracked files under this directory only (the pathspec "."), binary files skipped (-I).
hits=$(git grep -n -I -F -e "$pattern" -- . 2>&1)
status=$?
case $status in
    0)
        echo "no_outside_text: tracked files mention '$pattern' (cite docs/algorithm.md instead):"
        printf '%s\n' "$hits"
        exit 1
        ;;
    1)
        echo "no_outside_text: no tracked file mentions '$pattern' (passed)"
        exit 0
        ;;
    *)
        echo "no_outside_text: git grep failed (status $status):" >&2
        printf '%s\n' "$hits" >&2
        exit 2
        ;;
esac
