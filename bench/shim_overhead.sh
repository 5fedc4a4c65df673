#!/usr/bin/env bash
# What the launcher adds to a program's start: /bin/true started directly,
# through the smallest possible shim (a static C program that only execv()s),
# and through cudnnenv-shim (reads NAME.shim, sets LD_LIBRARY_PATH, execv()s),
# once without a library folder (the launcher's own cost) and once with one
# (plus what the pin itself costs the dynamic loader of the target).
# Interleaved rounds; medians and the ratio of the two shims' added costs.
# Usage: bench/shim_overhead.sh [ROUNDS]   (needs build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2000}
shim=$PWD/build/release/bin/cudnnenv-shim
[ -x "$shim" ] || { echo "build first: cmake --preset release && cmake --build --preset release"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

cc -O2 -o "$work/spawn_timer" bench/spawn_timer.c
printf '#include <unistd.h>\nint main(int c, char** v) { (void)c; v[0] = "/bin/true"; execv("/bin/true", v); return 127; }\n' \
  > "$work/minimal.c"
cc -O2 -static -o "$work/minimal-shim" "$work/minimal.c"
mkdir -p "$work/shims"
mkdir -p "$work/tree/lib"
ln -s "$shim" "$work/shims/true"
printf 'path = /bin/true\n' > "$work/shims/true.shim"
ln -s "$shim" "$work/shims/pinned-true"
printf 'path = /bin/true\nlibrary_dir = %s\n' "$work/tree/lib" > "$work/shims/pinned-true.shim"

"$work/spawn_timer" "$rounds" /bin/true ::: "$work/minimal-shim" ::: "$work/shims/true" ::: "$work/shims/pinned-true" |
  tee "$work/out"
awk '{ m[NR] = $3 } END {
  printf "added to a start: minimal shim %.0f us; cudnnenv-shim %.0f us (ratio %.2f); with a library folder %.0f us (ratio %.2f)\n",
    m[2] - m[1], m[3] - m[1], (m[3] - m[1]) / (m[2] - m[1]), m[4] - m[1], (m[4] - m[1]) / (m[2] - m[1])
}' "$work/out"
