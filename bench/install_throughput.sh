#!/usr/bin/env bash
# Install throughput for the full real cuDNN set (~500 MB unpacked), as .zip
# and as .tar.xz, against `bsdtar -xf` of the same archive. Runs interleaved
# (cudnnenv, bsdtar, cudnnenv, bsdtar, ...) and prints medians and ratios.
# cudnnenv does more than unpack: it hashes the archive and every file,
# checks architectures and the layout, and loads the library in a child to
# cross-check its version; the ratio says what that costs.
# Usage: bench/install_throughput.sh [ROUNDS]   (needs build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
cudnnenv=$PWD/build/release/bin/cudnnenv
real=${CUDNNENV_REAL_CUDNN:-/usr/local/cuda-13.0}
[ -x "$cudnnenv" ] || { echo "build first: cmake --preset release && cmake --build --preset release"; exit 1; }
[ -e "$real/lib/libcudnn.so.9" ] || { echo "no real cuDNN at $real"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
name=cudnn-linux-x86_64-bench_cuda13-archive
mkdir -p "$work/$name/include" "$work/$name/lib"
cp -L "$real"/include/cudnn*.h "$work/$name/include/"
cp -a "$real"/lib/libcudnn*.so* "$work/$name/lib/"
unpacked=$(du -sb "$work/$name" | cut -f1)
echo "input: $(du -sh "$work/$name" | cut -f1) unpacked ($unpacked bytes), from $real"
echo "making the archives (not timed)..."
(cd "$work" && zip -q -r -y -6 "$name.zip" "$name")
(cd "$work" && tar -cf - "$name" | xz -1 -T0 > "$name.tar.xz")
ls -l "$work/$name.zip" "$work/$name.tar.xz" | awk '{print "  " $5 " bytes  " $9}'

now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

for archive in "$name.zip" "$name.tar.xz"; do
  ours=()
  theirs=()
  for round in $(seq 1 "$rounds"); do
    rm -rf "$work/store" "$work/out"; mkdir -p "$work/out"; sync
    start=$(now); CUDNNENV_ROOT="$work/store" "$cudnnenv" install "$work/$archive" > /dev/null 2>&1; end=$(now)
    ours+=("$(calc "$end - $start")")
    rm -rf "$work/store"; sync
    start=$(now); bsdtar -xf "$work/$archive" -C "$work/out"; end=$(now)
    theirs+=("$(calc "$end - $start")")
  done
  o=$(printf '%s\n' "${ours[@]}" | median)
  t=$(printf '%s\n' "${theirs[@]}" | median)
  printf '%-14s cudnnenv install: %6.2f s (%4.0f MB/s)   bsdtar -xf: %6.2f s (%4.0f MB/s)   ratio %.2f   (%s rounds, medians)\n' \
    "${archive##*.}" "$o" "$(calc "$unpacked / $o / 1000000")" "$t" "$(calc "$unpacked / $t / 1000000")" \
    "$(calc "$o / $t")" "$rounds"
done
