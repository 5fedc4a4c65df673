#!/usr/bin/env bash
# tests/lint/clean_tree.sh names a file a run left in a repository and a source it changed, and fails; a run
# that left nothing passes.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$work" init -q repo && printf 'x\n' > "$work/repo/kept.txt" && git -C "$work/repo" add kept.txt &&
  git -C "$work/repo" -c user.name=t -c user.email=t@t commit -qm t || { echo "FAIL: git"; exit 1; }
bash "$here/clean_tree.sh" -C "$work/repo" save "$work/before"
bash "$here/clean_tree.sh" -C "$work/repo" compare "$work/before" || { echo "FAIL: an untouched tree"; exit 1; }
printf 'scratch\n' > "$work/repo/index.tsv"
printf 'y\n' >> "$work/repo/kept.txt"
out=$(bash "$here/clean_tree.sh" -C "$work/repo" compare "$work/before")
rc=$?
expected="the test run changed the tree (scratch belongs in a temporary folder, builds in build/):
   M kept.txt
  ?? index.tsv"
[ "$rc:$out" = "1:$expected" ] || { echo "FAIL: expected 1:$expected"; echo "got $rc:$out"; exit 1; }
echo "ok: the clean-tree check passes an untouched tree and names a scratch file and a changed source"
