#!/usr/bin/env bash
# `slurm health` with and without its remembered pass (#62 item 11), on a
# tree whose library carries SIZE_MB of extra bytes (a CUDA runtime's 1.6 GB,
# by default 1600), interleaved ROUNDS times: a cold run (the cache emptied:
# every file of the tree hashed, as the first run after a change) and a
# cached run (nothing changed: each file stat-ed). Prints each run's median
# in ms and their ratio. Level `files` (what `load` adds is a child's load).
# Usage: bench/health_cache.sh [ROUNDS] [SIZE_MB]   (needs build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
size_mb=${2:-1600}
bin=$PWD/build/release/bin
fixtures=$PWD/build/release/fixtures
[ -x "$bin/cudnnenv" ] || { echo "build first: cmake --preset release && cmake --build --preset release"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
source tests/e2e/trees.sh
export CUDNNENV_ROOT="$work/store" CUDNNENV_STATE_DIR="$work/state"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED LD_AUDIT LD_LIBRARY_PATH
make_linux_tree "$work/tree" 9.1.0 "$fixtures/fake-elf64-9.1.0.so"
head -c "${size_mb}M" /dev/zero >> "$work/tree/lib/libcudnn.so.9.1.0"
"$bin/cudnnenv" install "$work/tree" --name big -q > /dev/null
rm -rf "$work/tree"
ms() {  # ms COMMAND...: the wall time of one run, in milliseconds
  local start end
  start=$(date +%s%N)
  "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
cold=() cached=()
for ((i = 0; i < rounds; ++i)); do
  rm -f "$work/state/cache/health-checks"
  cold+=("$(ms "$bin/cudnnenv" slurm health big --level files)")
  cached+=("$(ms "$bin/cudnnenv" slurm health big --level files)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
c=$(median "${cold[@]}")
h=$(median "${cached[@]}")
echo "slurm health, a ${size_mb} MB tree, $rounds rounds: cold ${c} ms, cached ${h} ms, ratio $(awk -v c="$c" -v h="$h" 'BEGIN { printf "%.0f", c / (h ? h : 1) }')x"
