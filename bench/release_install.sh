#!/usr/bin/env bash
# What the wheel's install costs a start against the tarball's (#60): the
# release's wheel pip-installed into a venv (the program itself in bin/, its
# helpers in lib/cudnnenv/) and its tarball unpacked (bin/cudnnenv a link to
# lib/cudnnenv/cudnnenv), each with a shim made by `cudnnenv shim add` in a
# store of its own, a fake tree selected globally. Interleaved in one run
# (ROUNDS starts each, bench/spawn_timer.c): `cudnnenv current` (what the
# prompt hook runs when something changed) and a shim starting a static
# program. Prints the medians and the wheel's ratio to the tarball's (the shims
# timed in both orders: see below).
# Usage: bench/release_install.sh [ROUNDS] [DIST]   (DIST: scripts/release.sh's output, default dist/)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2000}
dist=$(cd "${2:-dist}" && pwd)
fixtures=$PWD/build/release/fixtures
version=$(sed -n 's/^[0-9a-f]*  cudnnenv-\([0-9][0-9.]*\)-linux-x86_64\.tar\.gz$/\1/p' "$dist/SHA256SUMS")
[ -n "$version" ] || { echo "no release in $dist: bash scripts/release.sh first"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/spawn_timer" bench/spawn_timer.c
printf 'int main(void) { return 0; }\n' > "$work/true-static.c"
cc -O2 -static -o "$work/true-static" "$work/true-static.c"
source tests/e2e/trees.sh
make_linux_tree "$work/tree" 9.1.0 "$fixtures/fake-elf64-9.1.0.so"

/usr/bin/python3 -m venv "$work/venv" > /dev/null
"$work/venv/bin/pip" install --no-index --disable-pip-version-check -q "$dist/cudnnenv-$version-py3-none-manylinux_2_28_x86_64.whl"
mkdir "$work/tarball"
tar -xzf "$dist/cudnnenv-$version-linux-x86_64.tar.gz" -C "$work/tarball"
wheel=$work/venv/bin/cudnnenv
tarball=$work/tarball/cudnnenv-$version-linux-x86_64/bin/cudnnenv
for kind in wheel tarball; do
  program=${!kind}
  export CUDNNENV_ROOT=$work/store-$kind
  "$program" install "$work/tree" --name bench > /dev/null
  "$program" use --global bench > /dev/null
  "$program" shim add true-static --target "$work/true-static" > /dev/null
  "$CUDNNENV_ROOT/.cudnnenv/shims/true-static"   # the first start takes the slow path and caches the decision
done
# pip and tar wrote the launchers differently; where a file lies and how its pages entered the page cache
# moves a start by up to 100 us (bench/shim_overhead.sh), so each is copied afresh the same way.
for launcher in "$work/venv/lib/cudnnenv/cudnnenv-shim" "$work/tarball/cudnnenv-$version-linux-x86_64/lib/cudnnenv/cudnnenv-shim"; do
  cp "$launcher" "$launcher.new" && mv "$launcher.new" "$launcher"
done
cd "$work"
unset CUDNNENV_ROOT  # each command names its store: --root, or the shim's own folder
# A start right after the large static cudnnenv's is ~50 us slower, whichever program it is (caches and TLB
# refilled): so two runs, the shims in both orders, and each shim's figure is the mean of its two medians.
shim_wheel=$work/store-wheel/.cudnnenv/shims/true-static shim_tarball=$work/store-tarball/.cudnnenv/shims/true-static
"$work/spawn_timer" "$rounds" "$work/true-static" ::: "$wheel" --root "$work/store-wheel" current ::: \
  "$tarball" --root "$work/store-tarball" current ::: "$shim_wheel" ::: "$shim_tarball" > "$work/out"
"$work/spawn_timer" "$rounds" "$work/true-static" ::: "$wheel" --root "$work/store-wheel" current ::: \
  "$tarball" --root "$work/store-tarball" current ::: "$shim_tarball" ::: "$shim_wheel" > "$work/out2"
labels=("a static program, directly" "cudnnenv current (wheel)" "cudnnenv current (tarball)" "shim (wheel)"
        "shim (tarball)")
i=0
while read -r line; do echo "${labels[$i]}: $line"; i=$((i + 1)); done < "$work/out"
labels=("a static program, directly" "cudnnenv current (wheel)" "cudnnenv current (tarball)" "shim (tarball)"
        "shim (wheel)")
echo "again, the shims' order swapped:"
i=0
while read -r line; do echo "${labels[$i]}: $line"; i=$((i + 1)); done < "$work/out2"
awk 'FNR == 1 { run++ } { m[run, FNR] = $3 } END {
  printf "wheel / tarball, median: current %.3f, shim %.3f (the mean of both orders)\n",
    (m[1, 2] + m[2, 2]) / (m[1, 3] + m[2, 3]), (m[1, 4] + m[2, 5]) / (m[1, 5] + m[2, 4])
}' "$work/out" "$work/out2"
