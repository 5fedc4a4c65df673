#!/usr/bin/env bash
# The main job on this machine's own cuDNN: find every copy, adopt the one a
# plain program loads into a temporary store, list it, and show the exact
# file a pinned program would load. Needs no archive.
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
library=$("$cudnnenv" discover --json | tr -d '\r' | awk -F'"' '
  /"library" :/ { lib = $4; if (first == "") first = lib }
  /"loaded_by_name" : true/ { chosen = lib }
  END { print (chosen != "" ? chosen : first) }')
folder=$(dirname "$library")

echo
echo "\$ cudnnenv adopt $folder"
"$cudnnenv" adopt "$folder"
echo
echo "\$ cudnnenv list"
"$cudnnenv" list
echo
echo "A program pinned to this tree loads exactly:"
"$cudnnenv" list --json | tr -d '\r' | awk -F'"' '/"library" :/ { print "  " $4; exit }'
tree=$("$cudnnenv" list --json | tr -d '\r' | awk -F'"' '/"name" :/ { print $4; exit }')
echo
echo "\$ cudnnenv verify $tree"
"$cudnnenv" verify "$tree"
