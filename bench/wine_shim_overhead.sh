#!/usr/bin/env bash
# What the Windows shim adds to a program's start, under Wine, interleaved in
# one run of ROUNDS starts each: the program (load-cudnn.exe --exit 0)
# started directly and through cudnnenv-shim.exe as `cudnnenv shim add` makes
# it (a fake 8.1 tree selected globally, its decision cached after the first
# start). When OLD_SHIM names another cudnnenv-shim.exe (say, one built from
# an earlier commit), a second run puts it in the new one's place (same
# folder, sidecar and cached decision) and measures the same pair again.
# Timed by a Windows program (bench/win_spawn_timer.c) inside one Wine
# process; each run prints the shim's median over the direct start's.
# Wine's process creation is not Windows's: read the differences in
# microseconds, not the ratios, as an indication.
# Usage: bench/wine_shim_overhead.sh [ROUNDS]   (needs build/mingw)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-200}
bin=$PWD/build/mingw/bin
fixtures=$PWD/build/mingw/fixtures
[ -x "$bin/cudnnenv-shim.exe" ] || { echo "build first: cmake --preset mingw && cmake --build --preset mingw"; exit 1; }
export WINEDEBUG=-all
WINE=${WINE:-/usr/lib/wine/wine64}
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
winpath() { printf 'Z:%s' "$1" | tr / '\\'; }
source tests/e2e/trees.sh

x86_64-w64-mingw32-gcc -O2 -municode -o "$work/win_spawn_timer.exe" bench/win_spawn_timer.c
make_windows_tree "$work/tree" "$fixtures/fake-pe64-8.1.0.dll"
root=$(winpath "$work/store")
mkdir -p "$work/prog" && cp "$fixtures/load-cudnn.exe" "$work/prog/"
"$WINE" "$bin/cudnnenv.exe" --root "$root" install "$(winpath "$work/tree/cuda")" --name t81 > /dev/null
"$WINE" "$bin/cudnnenv.exe" --root "$root" use --global t81 > /dev/null 2>&1
WINEPATH=$(winpath "$work/prog") "$WINE" "$bin/cudnnenv.exe" --root "$root" shim add load-cudnn > /dev/null
shims="$work/store/.cudnnenv/shims"
export WINEPATH="$(winpath "$shims");$(winpath "$work/prog")"
"$WINE" "$shims/load-cudnn.exe" --exit 0  # records the decision
measure() {
  "$WINE" "$work/win_spawn_timer.exe" "$rounds" "$(winpath "$work/prog/load-cudnn.exe")" --exit 0 ::: \
    "$(winpath "$shims/load-cudnn.exe")" --exit 0 | tr -d '\r' | tee "$work/times"
  awk -v label="$1" '{ m[NR] = $(NF-5) } END { printf "%s: shim / direct = %.2f (medians %d / %d us)\n", label, m[2] / m[1], m[2], m[1] }' "$work/times"
}
measure "this build"
if [ -n "${OLD_SHIM:-}" ]; then
  # `shim add` hard-links the shim to build/mingw/bin/cudnnenv-shim.exe: unlink first, or the copy
  # would write the old shim into the build.
  rm -f "$shims/load-cudnn.exe"
  cp "$OLD_SHIM" "$shims/load-cudnn.exe"
  measure "OLD_SHIM"
fi
