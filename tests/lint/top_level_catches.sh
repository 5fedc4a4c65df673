#!/usr/bin/env bash
# tests/lint/top_level.py names what a hand run left in a root (top_level_case: index.tsv, progs/), and fails.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(python3 "$here/top_level.py" "$here/top_level_case")
rc=$?
expected="index.tsv: not a top-level entry of this repository (tests/lint/top_level.py's list); scratch belongs in a temporary folder
progs: not a top-level entry of this repository (tests/lint/top_level.py's list); scratch belongs in a temporary folder"
[ "$rc:$out" = "1:$expected" ] || { echo "FAIL: expected 1:$expected"; echo "got $rc:$out"; exit 1; }
echo "ok: the top-level lint names index.tsv and progs/ and fails"
