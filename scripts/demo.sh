#!/usr/bin/env bash
# The main job on this machine's own cuDNN: find every copy, adopt the one a
# plain program loads into a temporary store, list it, show the exact file a
# pinned program would load, verify it, and run doctor on the machine with
# that tree selected. Needs no archive.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release > /dev/null
cmake --build --preset release -j"$(nproc)"

cudnnenv=$PWD/build/release/bin/cudnnenv
store=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-demo-XXXXXX")
trap 'rm -rf "$store"' EXIT
export CUDNNENV_ROOT="$store"

echo "\$ cudnnenv discover"
if ! "$cudnnenv" discover; then
  echo "No cuDNN on this machine: nothing to adopt. 'cudnnenv install <archive>' adds one."
  exit 0
fi
# The copy marked as loaded by name, else the first one.
library=$("$cudnnenv" discover --json | python3 -c '
import json, sys
copies = json.load(sys.stdin)
print(next((c["library"] for c in copies if c["loaded_by_name"]), copies[0]["library"]))')
folder=$(dirname "$library")

echo
echo "\$ cudnnenv adopt $folder"
"$cudnnenv" adopt "$folder"
echo
echo "\$ cudnnenv list"
"$cudnnenv" list
echo
echo "A program pinned to this tree loads exactly:"
"$cudnnenv" list --json | python3 -c 'import json, sys; print("  " + json.load(sys.stdin)[0]["library"])'
tree=$("$cudnnenv" list --json | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["name"])')
echo
echo "\$ cudnnenv verify $tree"
"$cudnnenv" verify "$tree"
echo
echo "\$ cudnnenv use --global $tree && cudnnenv doctor"
"$cudnnenv" use --global "$tree" 2> /dev/null
# doctor exits 1 when a check fails (no driver on a machine without a GPU): shown, not fatal.
"$cudnnenv" doctor || echo "(doctor: exit $? -- a failed check above, with its fix)"
