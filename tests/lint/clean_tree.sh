#!/usr/bin/env bash
# The test command leaves the tree as it found it (scripts/test.sh runs this
# before and after): `save FILE` records what git sees changed, `compare
# FILE` names every entry that is new since (a scratch file, a changed
# source) and exits 1. Run in the repository, or in the folder -C names.
# Usage: clean_tree.sh [-C DIR] save|compare FILE
set -uo pipefail
dir=.
[ "${1-}" = -C ] && { dir=$2; shift 2; }
status_of() { git -C "$dir" status --porcelain --untracked-files=all 2> /dev/null || true; }
case ${1-} in
  save) status_of > "$2" ;;
  compare)
    new=$(status_of | LC_ALL=C comm -13 <(LC_ALL=C sort "$2") <(LC_ALL=C sort))
    [ -z "$new" ] && exit 0
    echo "the test run changed the tree (scratch belongs in a temporary folder, builds in build/):"
    printf '%s\n' "$new" | sed 's/^/  /'
    exit 1 ;;
  *) echo "usage: clean_tree.sh [-C DIR] save|compare FILE" >&2; exit 2 ;;
esac
