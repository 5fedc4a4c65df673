#!/usr/bin/env bash
# What the launcher adds to a program's start, interleaved in one run
# (ROUNDS launches each): /bin/true started directly; through the smallest
# possible shim (a static C program that only execv()s it); through
# cudnnenv-shim as `cudnnenv shim add` makes it, with the default policy
# (`load`, its result cached) and a fake tree selected globally: the fast
# path reads NAME.shim and one cached decision, stats what resolution
# depends on, sets LD_LIBRARY_PATH and LD_AUDIT and execv()s; the same shim
# with its sidecar's audit line removed (what the LD_AUDIT module costs the
# program's own start); and, where they are installed, rbenv's and mise's shims.
# Usage: bench/shim_overhead.sh [ROUNDS]   (needs build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2000}
bin=$PWD/build/release/bin
fixtures=$PWD/build/release/fixtures
[ -x "$bin/cudnnenv-shim" ] || { echo "build first: cmake --preset release && cmake --build --preset release"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

cc -O2 -o "$work/spawn_timer" bench/spawn_timer.c
printf '#include <unistd.h>\nint main(int c, char** v) { (void)c; v[0] = "/bin/true"; execv("/bin/true", v); return 127; }\n' \
  > "$work/minimal.c"
cc -O2 -static -o "$work/minimal-shim" "$work/minimal.c"

source tests/e2e/trees.sh
export CUDNNENV_ROOT="$work/store"
make_linux_tree "$work/tree" 9.1.0 "$fixtures/fake-elf64-9.1.0.so"
"$bin/cudnnenv" install "$work/tree" --name bench > /dev/null
"$bin/cudnnenv" use --global bench > /dev/null
"$bin/cudnnenv" shim add true --target /bin/true > /dev/null
"$bin/cudnnenv" shim add true-no-audit --target /bin/true > /dev/null
shims="$CUDNNENV_ROOT/.cudnnenv/shims"
sed -i '/^audit = /d' "$shims/true-no-audit.shim"
cd "$work"   # no .cudnnenv.toml above: the global default decides
"$shims/true" && "$shims/true-no-audit"   # the first starts take the slow path and cache the decision

commands=(/bin/true ::: "$work/minimal-shim" ::: "$shims/true" ::: "$shims/true-no-audit")
labels=("direct" "minimal shim" "cudnnenv-shim (default)" "cudnnenv-shim without LD_AUDIT")
if command -v rbenv > /dev/null; then
  export RBENV_ROOT="$work/rbenv" RBENV_VERSION=bench
  mkdir -p "$RBENV_ROOT/versions/bench/bin" && ln -s /bin/true "$RBENV_ROOT/versions/bench/bin/true"
  rbenv rehash
  commands+=(::: "$RBENV_ROOT/shims/true")
  labels+=("rbenv shim")
fi
if command -v mise > /dev/null; then
  # mise's shims are links to mise itself, which reads its config and execs the tool.
  export MISE_DATA_DIR="$work/mise" MISE_CONFIG_DIR="$work/mise-config"
  mkdir -p "$MISE_DATA_DIR/shims" && ln -s "$(command -v mise)" "$MISE_DATA_DIR/shims/true"
  commands+=(::: "$MISE_DATA_DIR/shims/true")
  labels+=("mise shim")
fi

"$work/spawn_timer" "$rounds" "${commands[@]}" > "$work/out"
i=0
while read -r line; do
  echo "${labels[$i]}: $line"
  i=$((i + 1))
done < "$work/out"
awk -v labels="$(IFS='|'; echo "${labels[*]}")" '{ m[NR] = $3 } END {
  split(labels, name, "|")
  minimal = m[2] - m[1]
  printf "added to a start (median): minimal shim %.0f us\n", minimal
  for (i = 3; i <= NR; i++) printf "  %s: %.0f us, ratio to the minimal shim %.2f\n", name[i], m[i] - m[1], (m[i] - m[1]) / minimal
}' "$work/out"
