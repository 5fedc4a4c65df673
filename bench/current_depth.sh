#!/usr/bin/env bash
# `cudnnenv current` run 30 folders below a .cudnnenv.toml, with five trees
# in the store, against a direct start of /bin/true and `cudnnenv list
# --json` (start-up plus reading every record). Interleaved rounds; medians.
# Usage: bench/current_depth.sh [ROUNDS]   (needs build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1000}
cudnnenv=$PWD/build/release/bin/cudnnenv
fixtures=$PWD/build/release/fixtures
[ -x "$cudnnenv" ] || { echo "build first: cmake --preset release && cmake --build --preset release"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CUDNNENV_ROOT="$work/store"
unset CUDNNENV_VERSION

source tests/e2e/trees.sh
cc -O2 -o "$work/spawn_timer" bench/spawn_timer.c
cd "$work"
make_linux_tree tree 9.1.0 "$fixtures/fake-elf64-9.1.0.so"
for name in a b c d e; do "$cudnnenv" install tree --name "tree-$name" > /dev/null; done
mkdir -p project && printf 'cudnn = "9.1"\n' > project/.cudnnenv.toml
deep=project; for i in $(seq 1 30); do deep="$deep/d$i"; done
mkdir -p "$deep" && cd "$deep"
"$cudnnenv" current

"$work/spawn_timer" "$rounds" /bin/true ::: "$cudnnenv" list --json ::: "$cudnnenv" current | tee "$work/out"
awk '{ m[NR] = $3 } END {
  printf "current, 30 folders deep, 5 trees: %.2f ms more than /bin/true (list --json: %.2f ms more)\n",
    (m[3] - m[1]) / 1000, (m[2] - m[1]) / 1000
}' "$work/out"
