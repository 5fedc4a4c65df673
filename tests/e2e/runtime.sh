#!/usr/bin/env bash
# CUDA runtime trees (issue 24), natively: a release's component archives in
# NVIDIA's layout and manifest (fake libraries with the real names, built
# here, each reporting a version of its own), installed by `install cuda`
# through CUDNNENV_CUDA_INDEX and a folder mirror; bad manifests and archives
# refused with nothing installed; selected with a cuDNN tree of the same CUDA
# major; a program linked against libcublas.so.13 pinned to the runtime
# against a decoy on LD_LIBRARY_PATH; verify reading each library's version;
# adopt and remove. Then the same with this machine's real CUDA 13 libraries
# (/usr/local/cuda-13.0/lib), when it has them.
# Usage: runtime.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
command -v cc > /dev/null || { echo "skip: no C compiler"; exit 77; }
SOURCES=$E2E_DIR/../fixtures
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_SHELL CUDNNENV_CUDA_INDEX

# fake_runtime_library FILE [CFLAGS...]: a shared library whose soname is FILE's name.
fake_runtime_library() { cuda_stand_in "$@"; }

# component NAME VERSION LIBRARY...: NVIDIA's archive of one component, from
# the libraries in libs/ (each with its .so link), a LICENSE, an include/ and
# a static library that the runtime tree must leave out.
component() {
  local name=$1 version=$2
  shift 2
  local top="$name-linux-x86_64-$version-archive"
  rm -rf "stage/$top" && mkdir -p "stage/$top/lib/stubs" "stage/$top/include" "redist/$name/linux-x86_64"
  for library in "$@"; do
    cp "libs/$library" "stage/$top/lib/"
    ln -s "$library" "stage/$top/lib/${library%.so.*}.so"
  done
  echo "license of $name" > "stage/$top/LICENSE"
  echo "/* $name */" > "stage/$top/include/$name.h"
  echo "static" > "stage/$top/lib/${name}_static.a"
  echo "stub" > "stage/$top/lib/stubs/libcuda.so"
  tar -czf "redist/$name/linux-x86_64/$top.tar.gz" -C stage "$top"
}

# manifest OUT_DIR RELEASE [PYTHON]: redistrib_RELEASE.json for the archives
# under redist/, as NVIDIA writes it (size as a string); PYTHON edits `m`.
manifest() {
  mkdir -p "$1"
  python3 - "$1" "$2" "${3:-}" <<'PY'
import glob, hashlib, json, os, sys
out, release, edit = sys.argv[1:4]
m = {"release_date": "2025-10-09", "release_label": release, "release_product": "cuda"}
for path in sorted(glob.glob("redist/*/linux-x86_64/*.tar.gz")):
    name = path.split("/")[1]
    version = os.path.basename(path).split("-")[3]
    m[name] = {"name": name, "license": "CUDA Toolkit", "version": version,
               "linux-x86_64": {"relative_path": path[len("redist/"):],
                                "sha256": hashlib.sha256(open(path, "rb").read()).hexdigest(),
                                "md5": "0" * 32, "size": str(os.path.getsize(path))}}
exec(edit)
json.dump(m, open(os.path.join(out, "redistrib_%s.json" % release), "w"), indent=4)
PY
}

mkdir -p libs decoys mirror/compute/cuda
ln -s "$WORK/redist" mirror/compute/cuda/redist
fake_runtime_library libs/libcudart.so.13 -DFAKE_CUDART=13000
fake_runtime_library libs/libcublas.so.13 -DFAKE_PROPERTY=cublasGetProperty -DFAKE_MAJOR=13 -DFAKE_MINOR=1 -DFAKE_PATCH=0
fake_runtime_library libs/libcublasLt.so.13
fake_runtime_library libs/libcufft.so.12 -DFAKE_PROPERTY=cufftGetProperty -DFAKE_MAJOR=12 -DFAKE_MINOR=0 -DFAKE_PATCH=0
fake_runtime_library libs/libcurand.so.10 -DFAKE_PROPERTY=curandGetProperty -DFAKE_MAJOR=10 -DFAKE_MINOR=4 -DFAKE_PATCH=0
fake_runtime_library libs/libcusolver.so.12 -DFAKE_PROPERTY=cusolverGetProperty -DFAKE_MAJOR=12 -DFAKE_MINOR=0 -DFAKE_PATCH=4
fake_runtime_library libs/libcusparse.so.12 -DFAKE_PROPERTY=cusparseGetProperty -DFAKE_MAJOR=12 -DFAKE_MINOR=6 -DFAKE_PATCH=3
fake_runtime_library libs/libnvrtc.so.13
fake_runtime_library libs/libnvJitLink.so.13
# The decoys: where a CUDA toolkit's lib64 would be on LD_LIBRARY_PATH.
fake_runtime_library decoys/libcudart.so.13 -DFAKE_CUDART=99
fake_runtime_library decoys/libcublas.so.13 -DFAKE_PROPERTY=cublasGetProperty -DFAKE_MAJOR=99 -DFAKE_MINOR=0 -DFAKE_PATCH=0
fake_runtime_library decoys/libcublasLt.so.13
cc -o use-cublas "$SOURCES/use_cublas.c" -L"$WORK/libs" -l:libcublas.so.13 -ldl

component cuda_cudart 13.0.96 libcudart.so.13
component libcublas 13.1.0.3 libcublas.so.13 libcublasLt.so.13
component libcufft 12.0.0.61 libcufft.so.12
component libcurand 10.4.0.35 libcurand.so.10
component libcusolver 12.0.4.66 libcusolver.so.12
component libcusparse 12.6.3.3 libcusparse.so.12
component cuda_nvrtc 13.0.88 libnvrtc.so.13
component libnvjitlink 13.0.88 libnvJitLink.so.13
manifest index 13.0.2

# 1. Bad manifests and archives: a clear error each, and nothing installed.
refused() {  # refused WHAT EXPECTED_FIRST_LINE INDEX
  CUDNNENV_CUDA_INDEX="$WORK/$3" run install cuda 13.0 --mirror "$WORK/mirror" -q
  expect_eq "$rc" "${4:-1}" "$1: exit code"
  expect_eq "$(head -1 err)" "$2" "$1"
  [ ! -e "$CUDNNENV_ROOT/cuda-13.0.2" ] || fail "$1: a tree was installed"
  rm -rf "$CUDNNENV_STATE_DIR/downloads"
}
manifest bad-hash 13.0.2 'm["libcublas"]["linux-x86_64"]["sha256"] = "0" * 64'
refused "an archive whose SHA-256 is not the manifest's" \
  "cudnnenv: error: the file served by 'file://$WORK/mirror/compute/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-13.1.0.3-archive.tar.gz' is not the libcublas-linux-x86_64-13.1.0.3-archive.tar.gz: its SHA-256 is $(sha256sum redist/libcublas/linux-x86_64/*.tar.gz | cut -c1-64), the manifest of CUDA 13.0.2 says 0000000000000000000000000000000000000000000000000000000000000000; it was deleted and nothing was installed" bad-hash
manifest bad-size 13.0.2 'm["cuda_cudart"]["linux-x86_64"]["size"] = "12"'
CUDNNENV_CUDA_INDEX="$WORK/bad-size" run install cuda 13.0 --mirror "$WORK/mirror" -q
[ "$rc" != 0 ] && grep -q "cuda_cudart-linux-x86_64-13.0.96-archive.tar.gz" err || fail "a size other than the manifest's: $(cat err)"
[ ! -e "$CUDNNENV_ROOT/cuda-13.0.2" ] || fail "a size other than the manifest's installed a tree"
rm -rf "$CUDNNENV_STATE_DIR/downloads"
manifest dotdot 13.0.2 'm["libcurand"]["linux-x86_64"]["relative_path"] = "libcurand/../../../etc/passwd"'
refused "a relative_path with '..'" \
  "cudnnenv: error: '$WORK/dotdot/redistrib_13.0.2.json' is not a usable CUDA redistributable manifest: 'libcurand' for linux-x86_64 has the relative_path 'libcurand/../../../etc/passwd', which is not a plain relative path" dotdot
manifest absolute 13.0.2 'm["libcurand"]["linux-x86_64"]["relative_path"] = "/etc/passwd"'
refused "an absolute relative_path" \
  "cudnnenv: error: '$WORK/absolute/redistrib_13.0.2.json' is not a usable CUDA redistributable manifest: 'libcurand' for linux-x86_64 has the relative_path '/etc/passwd', which is not a plain relative path" absolute
manifest windows-only 13.0.2 '
for k, v in list(m.items()):
    if isinstance(v, dict): v["windows-x86_64"] = v.pop("linux-x86_64")'
refused "a manifest for another platform" \
  "cudnnenv: error: '$WORK/windows-only/redistrib_13.0.2.json' has no archives for linux-x86_64" windows-only 3
expect_eq "$(sed -n 2p err)" "  hint: it has windows-x86_64" "a manifest for another platform: its hint"
mkdir -p nested && python3 -c 'print("{\"release_label\": \"13.0.2\", \"x\": " + "[" * 100000 + "]" * 100000 + "}")' \
  > nested/redistrib_13.0.2.json
refused "a deeply nested manifest" \
  "cudnnenv: error: '$WORK/nested/redistrib_13.0.2.json' is not a usable CUDA redistributable manifest: it nests deeper than 8 levels" nested
manifest no-cusparse 13.0.2 'del m["libcusparse"]'
refused "a release without a component the runtime needs" \
  "cudnnenv: error: the manifest of CUDA 13.0.2 has no 'libcusparse' for this platform" no-cusparse 3
expect_eq "$(sed -n 2p err)" "  hint: a CUDA 13 runtime is made of cuda_cudart, libcublas, libcufft, libcurand, libcusolver, libcusparse, cuda_nvrtc, libnvjitlink" "the components a runtime needs"
run install cuda 11.2
expect_eq "$rc" "3" "a release whose manifest is not pinned: exit code"
expect_eq "$(head -1 err)" "cudnnenv: error: no CUDA release '11.2' is known" "a release whose manifest is not pinned"
grep -q "known: 13.1.1, 13.1.0, 13.0.2" err && grep -q "with --allow-unverified" err || fail "the pinned releases and the way out: $(cat err)"
# A pinned manifest from a mirror that holds more than a manifest can be (issue 39, item 10): stopped at
# a manifest's 4 MiB, not at an archive's 4 GiB.
mkdir -p big-mirror/compute/cuda/redist
head -c 5000000 /dev/zero | tr '\0' ' ' > big-mirror/compute/cuda/redist/redistrib_13.0.2.json
run install cuda 13.0.2 --mirror "$WORK/big-mirror" -q
expect_eq "$rc:$(head -1 err)" "1:cudnnenv: error: '$WORK/big-mirror/compute/cuda/redist/redistrib_13.0.2.json' is larger than a file of this kind can be (4.2 MB); nothing was installed" "a manifest past 4 MiB"
[ -z "$(find "$CUDNNENV_STATE_DIR/downloads" -name 'redistrib*' 2> /dev/null)" ] || fail "a part of the manifest was kept"
pass "bad manifests and archives are refused with nothing installed (hash, size, '..', absolute path, another platform, nesting, a missing component, a release not pinned)"

# 1b. A folder mirror whose owner swaps a component archive the moment it is closed after a read (issue 39,
# item 1): the archive is read once, so the libcublas installed is the one the manifest's SHA-256 names.
rm -rf swapwork swap-backing && mkdir -p swapwork/libs swap-backing/compute/cuda
cp libs/* swapwork/libs/ && echo "other code" >> swapwork/libs/libcublas.so.13
(cd swapwork && component libcublas 13.1.0.3 libcublas.so.13 libcublasLt.so.13)
cp -rL redist swap-backing/compute/cuda/redist
cublas_path=compute/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-13.1.0.3-archive.tar.gz
cp swapwork/redist/libcublas/linux-x86_64/*.tar.gz "swap-backing/$cublas_path.swap"
if swap_mirror "$WORK/swap-backing" "$WORK/swap-mirror"; then
  CUDNNENV_CUDA_INDEX="$WORK/index" run install cuda 13.0 --mirror "$WORK/swap-mirror" -q
  expect_eq "$rc" "0" "install cuda from the swapping mirror: $(cat err)"
  expect_eq "$(grep '^swapped' "$WORK/swap-mirror.log")" "swapped $cublas_path" "the mirror swapped libcublas's archive once it was closed"
  cmp -s "$CUDNNENV_ROOT/cuda-13.0.2/lib/libcublas.so.13" libs/libcublas.so.13 ||
    fail "the installed libcublas is not the manifest's (the swapped-in one: $(cmp -s "$CUDNNENV_ROOT/cuda-13.0.2/lib/libcublas.so.13" swapwork/libs/libcublas.so.13 && echo yes || echo no))"
  run remove cuda-13.0.2 --yes
  rm -rf "$CUDNNENV_STATE_DIR/downloads"
  swap_mirror_stop
  pass "a folder mirror swapping a component archive on close: the checked bytes are installed"
fi

# 1c. Offline (issue 41), in a store of its own: without a network, the hint names the manifest's URL and
# the commands that follow; --print-urls writes every URL (what wget -i reads); a folder holding the manifest
# and the archives downloaded into it installs, each archive checked against the manifest: one missing or
# changed is named with its URL. A release not pinned (13.0.9) needs --allow-unverified, and the hints carry
# it; a manifest of a pinned release with other bytes is refused.
# human_size BYTES: as cudnnenv writes a size (1000-based, "812 B", "2.4 kB", "31 kB").
human_size() {
  python3 -c 'import sys
v, u = float(sys.argv[1]), 0
while v >= 1000 and u < 4: v, u = v / 1000, u + 1
print(sys.argv[1] + " B" if u == 0 else ("%.1f %s" if v < 10 else "%.0f %s") % (v, ["B", "kB", "MB", "GB", "TB"][u]))' "$1"
}
(
  export CUDNNENV_ROOT="$WORK/offline-store" CUDNNENV_STATE_DIR="$WORK/offline-state"
  redist_url=https://developer.download.nvidia.com/compute/cuda/redist
  manifest offline-index 13.0.9
  run install cuda 13.0.9 --allow-unverified --mirror http://127.0.0.1:9 -q
  expect_eq "$rc" "1" "offline: exit code"
  expect_eq "$(sed -n 2p err)" "  hint: check the network connection or the proxy (HTTPS_PROXY, NO_PROXY); or try another mirror, or none (a mirror holds each archive at NVIDIA's path: /compute/cuda/redist/redistrib_13.0.9.json); or offline: download $redist_url/redistrib_13.0.9.json into a folder cuda-13.0.9, run 'cudnnenv install cuda ./cuda-13.0.9 --print-urls urls.txt --allow-unverified' and download each URL it writes into the same folder, then: cudnnenv install cuda ./cuda-13.0.9 --allow-unverified" \
    "offline: the hint names the manifest's URL and the commands that follow"
  # As the hint says: the manifest downloaded into cuda-13.0.9, then the URLs of the rest.
  mkdir cuda-13.0.9 && cp offline-index/redistrib_13.0.9.json cuda-13.0.9/
  run install cuda ./cuda-13.0.9 --print-urls urls.txt --allow-unverified -q
  total=$(python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
print(sum(int(v["linux-x86_64"]["size"]) for v in m.values() if isinstance(v, dict)))' offline-index/redistrib_13.0.9.json)
  expect_eq "$rc:$(cat out)" "0:wrote 9 URLs ($(human_size "$total")) to 'urls.txt': download them into a folder cuda-13.0.9 (with wget: wget -P cuda-13.0.9 -i urls.txt), then here: cudnnenv install cuda ./cuda-13.0.9" "--print-urls: what it wrote"
  expected_urls="$redist_url/redistrib_13.0.9.json"
  for name in cuda_cudart libcublas libcufft libcurand libcusolver libcusparse cuda_nvrtc libnvjitlink; do
    expected_urls+=$'\n'"$redist_url/$(cd redist && echo $name/linux-x86_64/*.tar.gz)"
  done
  expect_eq "$(cat urls.txt)" "$expected_urls" "--print-urls: the manifest's URL, then each archive's in install order"
  run install cuda ./cuda-13.0.9 --print-urls urls.txt --allow-unverified -q
  expect_eq "$rc:$(tail -2 err)" "2:cudnnenv: error: 'urls.txt' exists: --print-urls does not replace a file
  hint: remove it, or name another file: 'cudnnenv install cuda ./cuda-13.0.9 --print-urls urls-13.0.9.txt --allow-unverified'" "--print-urls leaves a file alone"
  # Six of the eight archives "downloaded" (as wget -P puts them: by file name): the other two named.
  for url in $(sed 1d urls.txt | head -6); do cp "redist/${url#"$redist_url/"}" cuda-13.0.9/; done
  missing=""
  for url in $(sed 1,7d urls.txt); do
    missing+="${missing:+, }$url ($(human_size "$(stat -c %s "redist/${url#"$redist_url/"}")"))"
  done
  run install cuda ./cuda-13.0.9 --allow-unverified -q
  expect_eq "$rc:$(cat err)" "3:cudnnenv: warning: the manifest of CUDA 13.0.9 in '$WORK/cuda-13.0.9/redistrib_13.0.9.json' is not the pinned one: its SHA-256 ($(sha256sum cuda-13.0.9/redistrib_13.0.9.json | cut -c1-64)) was not checked (--allow-unverified)
cudnnenv: error: '$WORK/cuda-13.0.9' lacks 2 of the 8 archives of CUDA 13.0.9's runtime: $missing
  hint: download them into that folder and run this again ('cudnnenv install cuda \"$WORK/cuda-13.0.9/redistrib_13.0.9.json\" --print-urls urls.txt --allow-unverified' writes every URL to a file)" \
    "offline: the archives missing from the folder, each with its URL and size"
  for url in $(sed 1,7d urls.txt); do cp "redist/${url#"$redist_url/"}" cuda-13.0.9/; done
  # One byte changed in cuBLAS's archive: the same size, another SHA-256.
  cublas=$(basename "$(sed -n 3p urls.txt)")
  printf 'X' | dd of="cuda-13.0.9/$cublas" bs=1 seek=100 conv=notrunc status=none
  run install cuda ./cuda-13.0.9 --allow-unverified -q
  expect_eq "$rc:$(tail -2 err)" "1:cudnnenv: error: '$WORK/cuda-13.0.9/$cublas' is not the $cublas the manifest of CUDA 13.0.9 names: its SHA-256 is $(sha256sum "cuda-13.0.9/$cublas" | cut -c1-64), the manifest says $(sha256sum "redist/libcublas/linux-x86_64/$cublas" | cut -c1-64); nothing was installed
  hint: download $(sed -n 3p urls.txt) again" "offline: a changed archive refused, named with its URL"
  [ ! -e "$CUDNNENV_ROOT/cuda-13.0.9" ] || fail "offline: a tree from a changed archive"
  cp "redist/libcublas/linux-x86_64/$cublas" cuda-13.0.9/
  run install cuda ./cuda-13.0.9 --allow-unverified -q
  expect_eq "$rc" "0" "offline install from the folder: $(cat err)"
  expect_eq "$(head -1 out | cut -d: -f1)" "installed 'cuda-13.0.9'" "offline: the tree"
  expect_eq "$(sed -n 4p out)" "  source:    $WORK/cuda-13.0.9/redistrib_13.0.9.json (a copy, not pinned)" "offline: the source names the manifest"
  run install cuda ./cuda-13.0.9/redistrib_13.0.9.json --allow-unverified -q
  expect_eq "$rc:$(head -1 out | cut -d: -f1)" "0:already installed 'cuda-13.0.9'" "the manifest itself, named"
  # A path with an escape sequence in it: said printable, never sent to the terminal as it is.
  mkdir "cuda-"$'\033'"[2J"
  run install cuda "./cuda-"$'\033'"[2J" -q
  expect_eq "$rc:$(cat err)" "3:cudnnenv: error: './cuda-\\x1b[2J' holds no CUDA manifest (redistrib_<release>.json)
  hint: put the release's manifest beside its archives: NVIDIA publishes it as $redist_url/redistrib_<release>.json" \
    "a folder name with an escape sequence, printable"
  # A manifest of a pinned release (13.0.2) that is not NVIDIA's: refused without --allow-unverified.
  manifest fake-13.0.2 13.0.2
  run install cuda ./fake-13.0.2 -q
  expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$WORK/fake-13.0.2/redistrib_13.0.2.json' is not NVIDIA's manifest of CUDA 13.0.2: its SHA-256 is $(sha256sum fake-13.0.2/redistrib_13.0.2.json | cut -c1-64), the pinned manifest list says $(awk '$1 == "13.0.2" { print $2 }' "$E2E_DIR/../../data/cuda-manifests.tsv")
  hint: download $redist_url/redistrib_13.0.2.json again; or, to install from this one, add --allow-unverified (its SHA-256 is recorded in the tree)" \
    "a pinned release's manifest with other bytes refused"
  # The manifest from CUDNNENV_CUDA_INDEX, its archives out of reach: the hint's --print-urls runs offline.
  export CUDNNENV_CUDA_INDEX="$WORK/index" CUDNNENV_STATE_DIR="$WORK/offline-state-2"  # nothing downloaded yet
  run install cuda 13.0.2 --mirror http://127.0.0.1:9 -q
  expect_eq "$rc:$(sed -n 2p err | sed 's/.*; or offline: //')" "1:'cudnnenv install cuda 13.0.2 --print-urls urls.txt --allow-unverified' writes the URL of every file to download into a folder cuda-13.0.2; with it here: cudnnenv install cuda ./cuda-13.0.2 --allow-unverified" \
    "offline, an archive out of reach: the hint names --print-urls"
  mkdir hint-run && cd hint-run
  run install cuda 13.0.2 --print-urls urls.txt --allow-unverified
  expect_eq "$rc:$(wc -l < urls.txt)" "0:9" "the hint's --print-urls runs offline: $(cat err)"
)
pass "offline: the hint names the manifest's URL; --print-urls writes every URL; a folder of the manifest and its archives installs, a missing or changed archive named with its URL; a pinned release's other manifest refused"
# A pinned release whose archives the embedded table lists (data/cuda-archives.tsv: 13.0.2): with no
# network the hint names every URL with its size before the manifest is here, and --print-urls writes
# them without fetching anything.
(
  export CUDNNENV_ROOT="$WORK/offline-store-3" CUDNNENV_STATE_DIR="$WORK/offline-state-3"
  redist_url=https://developer.download.nvidia.com/compute/cuda/redist
  table="$E2E_DIR/../../data/cuda-archives.tsv"
  urls="$redist_url/redistrib_13.0.2.json" listed="$redist_url/redistrib_13.0.2.json" total=0
  for name in cuda_cudart libcublas libcufft libcurand libcusolver libcusparse cuda_nvrtc libnvjitlink; do
    row=$(awk -F'\t' -v c="$name" '$1 == "13.0.2" && $2 == "linux-x86_64" && $3 == c' "$table")
    size=$(cut -f6 <<< "$row")
    urls+=$'\n'"$redist_url/$(cut -f5 <<< "$row")"
    listed+=", $redist_url/$(cut -f5 <<< "$row") ($(human_size "$size"))"
    total=$((total + size))
  done
  run install cuda 13.0 --mirror http://127.0.0.1:9 -q
  expect_eq "$rc:$(sed -n 2p err | sed 's/.*; or offline: //')" "1:download these 9 files ($(human_size "$total")) into a folder cuda-13.0.2, then: cudnnenv install cuda ./cuda-13.0.2 ('cudnnenv install cuda 13.0.2 --print-urls urls.txt' writes them for wget -i): $listed" \
    "offline, a tabled release: the hint names every URL and size"
  mkdir tabled && cd tabled
  export CUDNNENV_STATE_DIR="$WORK/offline-state-4"
  run install cuda 13.0.2 --print-urls urls.txt --mirror http://127.0.0.1:9
  expect_eq "$rc:$(cat out)" "0:wrote 9 URLs ($(human_size "$total")) to 'urls.txt': download them into a folder cuda-13.0.2 (with wget: wget -P cuda-13.0.2 -i urls.txt), then here: cudnnenv install cuda ./cuda-13.0.2" \
    "offline, a tabled release: --print-urls fetches nothing: $(cat err)"
  expect_eq "$(cat urls.txt)" "$urls" "offline, a tabled release: the URLs written are the hint's"
  [ ! -e "$CUDNNENV_STATE_DIR/downloads" ] || fail "--print-urls of a tabled release fetched something: $(ls -A "$CUDNNENV_STATE_DIR/downloads")"
)
pass "offline, a release the table lists: the hint names every URL with its size; --print-urls writes them with no network"

# 2. Install from the manifest, through a folder mirror laid out as NVIDIA's host.
export CUDNNENV_CUDA_INDEX="$WORK/index"
run install cuda 13.0 --mirror "$WORK/mirror" -q
expect_eq "$rc" "0" "install cuda 13.0: $(cat err)"
expect_eq "$(head -1 out)" "installed 'cuda-13.0.2': CUDA 13.0.2 runtime (cuda_cudart 13.0.96, libcublas 13.1.0.3, libcufft 12.0.0.61, libcurand 10.4.0.35, libcusolver 12.0.4.66, libcusparse 12.6.3.3, cuda_nvrtc 13.0.88, libnvjitlink 13.0.88), Linux x86_64, $(sed -n 1p out | sed 's/.*x86_64, //')" "install cuda's first line"
expect_eq "$(sed -n 3p out)" "  libraries: $CUDNNENV_ROOT/cuda-13.0.2/lib" "where the libraries are"
kept_in=${CUDNNENV_STATE_DIR:-$CUDNNENV_ROOT/.cudnnenv}/downloads
kept_bytes=$(cat "$kept_in"/*-archive.tar.* | wc -c)
expect_eq "$(sed -n 5p out | sed 's/archives, [^,]*, in/archives, SIZE, in/')" "  kept:      8 archives, SIZE, in $kept_in (copied from the mirror folder, and checked in the copy): 'cudnnenv cache clean' frees them" \
  "install cuda from a folder mirror says what it keeps in the downloads folder"
[ "$kept_bytes" -gt 0 ] || fail "no archive kept in the downloads folder"
( cd "$CUDNNENV_ROOT/cuda-13.0.2" && find . -path ./.cudnnenv -prune -o -type f -print -o -type l -print | sort ) > files
expect_eq "$(tr '\n' ' ' < files)" "./lib/libcublas.so ./lib/libcublas.so.13 ./lib/libcublasLt.so ./lib/libcublasLt.so.13 ./lib/libcudart.so ./lib/libcudart.so.13 ./lib/libcufft.so ./lib/libcufft.so.12 ./lib/libcurand.so ./lib/libcurand.so.10 ./lib/libcusolver.so ./lib/libcusolver.so.12 ./lib/libcusparse.so ./lib/libcusparse.so.12 ./lib/libnvJitLink.so ./lib/libnvJitLink.so.13 ./lib/libnvrtc.so ./lib/libnvrtc.so.13 ./licenses/cuda_cudart.txt ./licenses/cuda_nvrtc.txt ./licenses/libcublas.txt ./licenses/libcufft.txt ./licenses/libcurand.txt ./licenses/libcusolver.txt ./licenses/libcusparse.txt ./licenses/libnvjitlink.txt " \
  "the runtime tree holds the shared libraries and licenses only (no headers, static libraries or stubs/libcuda.so)"
run install cuda 13.0.2 --mirror "$WORK/mirror" -q
expect_eq "$(head -1 out | cut -d: -f1)" "already installed 'cuda-13.0.2'" "the same release again"
run list --json
expect_eq "$(python3 -c 'import json,sys; print(" ".join(t["kind"] + ":" + t["name"] for t in json.load(open("out"))))')" \
  "cuda:cuda-13.0.2" "list --json: the kind of each tree"
run list --available cuda --json
expect_eq "$(json_field installed < out)" "cuda-13.0.2" "list --available cuda: installed"
expect_eq "$(python3 -c 'import json; print(len(json.load(open("out"))[0]["components"]))')" "8" "list --available cuda: components"
pass "install cuda 13.0 from the manifest through a folder mirror: only shared libraries and licenses, each hashed; list shows its kind"

# 2b. A mirror made by cudnnenv (issue 43): the release's manifest and its eight component archives from the
# folder mirror into another, at NVIDIA's paths, with an index; a fresh store installs from it alone.
run mirror create "$WORK/made" --runtime 13.0 --from "$WORK/mirror" -q
expect_eq "$rc:$(head -1 out | sed 's/, [^,]*$//')" "0:mirror $WORK/made: 9 fetched, 0 already there; 9 files" "mirror create --runtime: $(cat err)"
expect_eq "$(sed -n '2,10p' out | tr -d ' ' | tr '\n' ' ')" "compute/cuda/redist/cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-13.0.96-archive.tar.gz compute/cuda/redist/cuda_nvrtc/linux-x86_64/cuda_nvrtc-linux-x86_64-13.0.88-archive.tar.gz compute/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-13.1.0.3-archive.tar.gz compute/cuda/redist/libcufft/linux-x86_64/libcufft-linux-x86_64-12.0.0.61-archive.tar.gz compute/cuda/redist/libcurand/linux-x86_64/libcurand-linux-x86_64-10.4.0.35-archive.tar.gz compute/cuda/redist/libcusolver/linux-x86_64/libcusolver-linux-x86_64-12.0.4.66-archive.tar.gz compute/cuda/redist/libcusparse/linux-x86_64/libcusparse-linux-x86_64-12.6.3.3-archive.tar.gz compute/cuda/redist/libnvjitlink/linux-x86_64/libnvjitlink-linux-x86_64-13.0.88-archive.tar.gz compute/cuda/redist/redistrib_13.0.2.json " \
  "the manifest and every component archive, at NVIDIA's paths"
cmp made/compute/cuda/redist/redistrib_13.0.2.json index/redistrib_13.0.2.json || fail "the mirror's manifest is not the release's"
run mirror create "$WORK/made" --runtime 13.0 -q
expect_eq "$rc:$(head -1 out | sed 's/, [^,]*$//')" "0:mirror $WORK/made: 0 fetched, 9 already there; 9 files" "the same create again: $(cat err)"
run mirror verify "$WORK/made"
expect_eq "$rc:$(tail -1 out)" "0:9 files: all match the index" "mirror verify: $(cat err)"
CUDNNENV_ROOT="$WORK/store-made" CUDNNENV_STATE_DIR="$WORK/state-made" run install cuda 13.0 --mirror "$WORK/made" -q
expect_eq "$rc" "0" "install cuda 13.0 from the mirror cudnnenv made: $(cat err)"
record_hashes() { sed -n 's/^sha256 = //p' "$1/cuda-13.0.2/.cudnnenv/tree.toml"; }
expect_eq "$(record_hashes "$WORK/store-made")" "$(record_hashes "$CUDNNENV_ROOT")" "the same runtime, hash by hash"
pass "mirror create --runtime: the manifest and each component archive at NVIDIA's paths; a fresh store installs the same runtime from it"

# 2c. A profile's lock names its CUDA runtime too (issue 43): the release, its manifest's SHA-256 and each
# component archive's. Locked while only 13.0.1 was known, `sync` installs that runtime beside the cuDNN, and
# resolution keeps it after 13.0.2 is installed too; a manifest of other bytes is refused; without the locked
# runtime, the fix is 'cudnnenv sync'; `mirror create --lock` takes the runtime's files as well.
cudnn_archive=cudnn-linux-x86_64-9.21.0.82_cuda13-archive.tar.xz
cudnn_dir=compute/cudnn/redist/cudnn/linux-x86_64
make_linux_tree "${cudnn_archive%.tar.xz}" 9.21.0 "$FIXTURES/fake-elf64-9.21.0.so"
mkdir -p "mirror/$cudnn_dir"
tar -cJf "mirror/$cudnn_dir/$cudnn_archive" "${cudnn_archive%.tar.xz}"
printf 'cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n9.21.0.82\tlinux-x86_64\tcuda13\t%s\t%s\t%s\thttps://developer.download.nvidia.com/%s/%s\n' \
  "$cudnn_archive" "$(sha256sum "mirror/$cudnn_dir/$cudnn_archive" | cut -c1-64)" \
  "$(stat -c %s "mirror/$cudnn_dir/$cudnn_archive")" "$cudnn_dir" "$cudnn_archive" > cudnn-index.tsv
manifest index-13.0.1 13.0.1
mkdir -p store-locked/.cudnnenv lockp
printf '[profiles.fake13]\nframework = "Fake 13"\ncudnn = "9.21"\ncuda = "13.0"\nlinux_libraries = ["libcudart.so.13", "libcublas.so.13"]\n' \
  > store-locked/.cudnnenv/config.toml
printf 'profile = "fake13"\n' > lockp/.cudnnenv.toml
locked() { CUDNNENV_ROOT="$WORK/store-locked" CUDNNENV_STATE_DIR="$WORK/state-locked" CUDNNENV_INDEX="$WORK/cudnn-index.tsv" "$@"; }
cd lockp
CUDNNENV_CUDA_INDEX="$WORK/index-13.0.1" locked run lock
expect_eq "$rc:$(cat out)" "0:wrote $WORK/lockp/cudnnenv.lock
  linux-x86_64    cuDNN 9.21.0.82 (cuda13)  $cudnn_archive
  linux-x86_64    CUDA 13.0.1 runtime (8 archives)  redistrib_13.0.1.json" "lock of a profile with a runtime: $(cat err)"
expect_eq "$(sed -n '/^\[\[runtime\]\]/,/^manifest_sha256/p' cudnnenv.lock)" "[[runtime]]
platform = \"linux-x86_64\"
release = \"13.0.1\"
manifest = \"https://developer.download.nvidia.com/compute/cuda/redist/redistrib_13.0.1.json\"
manifest_sha256 = \"$(sha256sum "$WORK/index-13.0.1/redistrib_13.0.1.json" | cut -c1-64)\"" "the runtime's entry"
expect_eq "$(sed -n '/name = "libcublas"/,/^sha256/p' cudnnenv.lock)" "name = \"libcublas\"
version = \"13.1.0.3\"
path = \"libcublas/linux-x86_64/libcublas-linux-x86_64-13.1.0.3-archive.tar.gz\"
size = $(stat -c %s "$WORK"/redist/libcublas/linux-x86_64/*.tar.gz)
sha256 = \"$(sha256sum "$WORK"/redist/libcublas/linux-x86_64/*.tar.gz | cut -c1-64)\"" "a component's entry"
CUDNNENV_CUDA_INDEX="$WORK/index-13.0.1" locked run sync --mirror "$WORK/mirror" -q
expect_eq "$rc:$(grep -c '^installed' out)" "0:2" "sync of a profile's lock: the cuDNN and the runtime ($(cat err))"
CUDNNENV_CUDA_INDEX="$WORK/index" locked run install cuda 13.0.2 --mirror "$WORK/mirror" -q
expect_eq "$rc" "0" "a newer runtime installed beside: $(cat err)"
runtime_of() { python3 -c 'import json; r = json.load(open("out"))["runtime"]; print(r["name"], "|", r["decided_by"])'; }
locked run current --json
expect_eq "$rc:$(runtime_of)" "0:cuda-13.0.1 | the runtime $WORK/lockp/cudnnenv.lock names" "current with the lock: $(cat err)"
mv cudnnenv.lock aside.lock
locked run current --json
expect_eq "$rc:$(runtime_of | cut -d' ' -f1)" "0:cuda-13.0.2" "current without the lock: the newest runtime"
mv aside.lock cudnnenv.lock
(cd "$WORK" && manifest index-other 13.0.1 'm["release_date"] = "2026-01-01"')
CUDNNENV_CUDA_INDEX="$WORK/index-other" locked run sync --mirror "$WORK/mirror" -q
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: the manifest of CUDA 13.0.1 is not the one the lock names: its SHA-256 is $(sha256sum "$WORK/index-other/redistrib_13.0.1.json" | cut -c1-64), the lock says $(sha256sum "$WORK/index-13.0.1/redistrib_13.0.1.json" | cut -c1-64)
  hint: cudnnenv lock  (writes it again from what the manifest says now; then commit it)" "sync against a manifest of other bytes"
CUDNNENV_CUDA_INDEX="$WORK/index-13.0.1" locked run mirror create "$WORK/made-locked" --lock cudnnenv.lock --from "$WORK/mirror" -q
expect_eq "$rc:$(head -1 out | sed 's/, [^,]*$//')" "0:mirror $WORK/made-locked: 10 fetched, 0 already there; 10 files" "mirror create --lock of a profile's lock: $(cat err)"
# A project file's own runtime = "13.0" is locked the same way, and a runtime named by its tree's name cannot be.
mkdir ../lockr && cd ../lockr
printf 'cudnn = "9.21"\ncuda = "13"\nruntime = "13.0"\n' > .cudnnenv.toml
CUDNNENV_CUDA_INDEX="$WORK/index-13.0.1" locked run lock
expect_eq "$rc:$(tail -1 out)" "0:  linux-x86_64    CUDA 13.0.1 runtime (8 archives)  redistrib_13.0.1.json" "lock of runtime = \"13.0\": $(cat err)"
locked run current --json
expect_eq "$rc:$(runtime_of)" "0:cuda-13.0.1 | the runtime $WORK/lockr/cudnnenv.lock names" "runtime = \"13.0\" with the lock: $(cat err)"
rm cudnnenv.lock
locked run current --json
expect_eq "$rc:$(runtime_of | cut -d' ' -f1)" "0:cuda-13.0.2" "runtime = \"13.0\" without the lock: the newest 13.0"
printf 'cudnn = "9.21"\ncuda = "13"\nruntime = "cuda-13.0.1"\n' > .cudnnenv.toml
locked run lock
expect_eq "$rc:$(cat err)" "2:cudnnenv: error: $WORK/lockr/.cudnnenv.toml names the runtime tree 'cuda-13.0.1' by its name, which no other machine has
  hint: name its CUDA release instead (runtime = \"13.0.2\"), then run 'cudnnenv lock' again" "a runtime tree's name in a lock"
cd ../lockp
locked run remove cuda-13.0.1 --yes
locked run current
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: the locked CUDA runtime, CUDA 13.0.1 (the manifest of SHA-256 $(sha256sum "$WORK/index-13.0.1/redistrib_13.0.1.json" | cut -c1-64)), is not installed ($WORK/lockp/cudnnenv.lock)
  hint: cudnnenv sync" "current with the locked runtime removed"
cd "$WORK"
pass "a profile's lock names its runtime, as does a project's runtime = \"13.0\": sync installs it, resolution keeps it over a newer one, other manifest bytes are refused, and a mirror of the lock holds it"

# 3. Selected with a cuDNN tree of CUDA 13; the pin covers the runtime.
make_linux_tree cudnn-9.19 9.19.0 "$FIXTURES/fake-elf64-9.19.0.so"
run install "$WORK/cudnn-9.19" -q
cudnn_tree=$(sed -n "1s/^installed '\([^']*\)'.*/\1/p" out)
[ -n "$cudnn_tree" ] || fail "a cuDNN tree to select: $(cat out err)"
run use "$cudnn_tree" --global
run current
expect_eq "$(sed -n 2p out)" "CUDA 13.0.2  cuda-13.0.2  (chosen by the CUDA major of '$cudnn_tree')" "current names the runtime and what chose it"
run current --json
expect_eq "$(json_field runtime.name < out)" "cuda-13.0.2" "current --json: runtime"
run which --all
grep -qx "$CUDNNENV_ROOT/cuda-13.0.2/lib/libcublas.so.13" out || fail "which --all lists the runtime's libraries: $(cat out)"
run_program env LD_LIBRARY_PATH="$WORK/decoys" ./use-cublas
expect_eq "$(cat out)" "cublas 99.0.0 cudart 99" "without cudnnenv the decoys win"
run_program env LD_LIBRARY_PATH="$WORK/decoys" "$CUDNNENV" exec --report -- ./use-cublas
expect_eq "$rc" "0" "exec --report: $(cat err)"
expect_eq "$(cat out)" "cublas 13.1.0 cudart 13000" "exec pins the runtime against the decoys on LD_LIBRARY_PATH"
grep -qx "  in the runtime  $CUDNNENV_ROOT/cuda-13.0.2/lib/libcublas.so.13" err &&
  grep -qx "  in the runtime  $CUDNNENV_ROOT/cuda-13.0.2/lib/libcudart.so.13" err || fail "--report lists the runtime's files: $(cat err)"
expect_eq "$(grep -E '^  (in the|FAILED|FENCED|OUTSIDE)' err | awk '{ print substr($0, 1, index($0, "/") - 1) }')" \
  "$(grep -E '^  (in the|FAILED|FENCED|OUTSIDE)' err | awk '{ print ($2 == "the" ? "  " $1 " " $2 " " $3 : "  " $1) }' |
    awk '{ printf "%-18s\n", $0 }')" "--report: the labels padded to one width, the paths in one column"
run_program env LD_LIBRARY_PATH="$WORK/decoys" "$CUDNNENV" exec --mode path -- ./use-cublas
expect_eq "$(cat out)" "cublas 13.1.0 cudart 13000" "exec --mode path: the runtime's folder before the decoys"
run activate --shell bash
ld_path=$(sed -n 's/^export LD_LIBRARY_PATH=//p' out | tr -d "'")
expect_eq "$ld_path" "$CUDNNENV_ROOT/$cudnn_tree/lib:$CUDNNENV_ROOT/cuda-13.0.2/lib" "activate: the runtime's folder right after cuDNN's"
run current --cuda 12.4
expect_eq "$(sed -n 2p out)" "" "--cuda 12.4: no runtime of that release, none chosen"
# doctor's copy-wins check for the runtime's names: the decoys win for a plain program, activation puts the runtime first.
doctor_check() {  # FIELD: of the cuda-copy-wins check in doctor --json's output (in `out`)
  python3 -c 'import json, sys; print({c["id"]: c for c in json.load(open("out"))["checks"]}["cuda-copy-wins"][sys.argv[1]])' "$1"
}
PATH="$WORK:$PATH" LD_LIBRARY_PATH="$WORK/decoys" run doctor --for use-cublas --json
expect_eq "$(doctor_check status)" "warn" "doctor: the decoys win for a plain program"
# The other six are where this machine's ld.so cache has them (a real CUDA 13), else nowhere.
others="libcufft.so.12, libcurand.so.10, libcusolver.so.12, libcusparse.so.12, libnvJitLink.so.13, libnvrtc.so.13"
cached=$(ldconfig -p 2> /dev/null | sed -n 's/^\tlibcufft\.so\.12 (libc6,x86-64) => //p' | head -1)
rest="finds no $others"
[ -n "$cached" ] && rest="6 from '$(dirname "$(readlink -f "$cached")")' (ld.so cache): $others"
expect_eq "$(doctor_check summary)" "use-cublas loads 3 from '$WORK/decoys' (LD_LIBRARY_PATH): libcublas.so.13, libcublasLt.so.13, libcudart.so.13; $rest, not the selected runtime 'cuda-13.0.2'" "doctor names each runtime library a plain program gets elsewhere"
PATH="$WORK:$PATH" LD_LIBRARY_PATH="$ld_path:$WORK/decoys" run doctor --for use-cublas --json
expect_eq "$(doctor_check summary)" "use-cublas loads each of the 9 libraries of the selected runtime 'cuda-13.0.2'" "doctor in an activated shell"
# A conda env's hook and a modulefile carry the runtime as activate does.
mkdir -p conda-env/conda-meta
run export conda "$cudnn_tree" --prefix "$WORK/conda-env"
expect_eq "$rc" "0" "export conda: $(cat err)"
hooked=$(bash -c 'source "$0"; printf %s "$LD_LIBRARY_PATH|$CUDNNENV_CUDA_RUNTIME"' "$WORK/conda-env/etc/conda/activate.d/cudnnenv-activate.sh")
expect_eq "$hooked" "$ld_path|cuda-13.0.2" "a conda env's hook: the runtime's folder right after cuDNN's"
run export modulefile "$cudnn_tree" -o "$WORK/mods"
expect_eq "$(cat out)" "wrote $WORK/mods/cudnn/9.19.0.lua (module load cudnn/9.19.0: '$cudnn_tree' with 'cuda-13.0.2')" "export modulefile names the runtime"
if [ -r /usr/share/lmod/lmod/init/bash ]; then
  loaded=$(LD_LIBRARY_PATH= bash -c 'source /usr/share/lmod/lmod/init/bash > /dev/null 2>&1; module use "$0/mods"; module load cudnn/9.19.0; printf %s "$LD_LIBRARY_PATH|$CUDNNENV_CUDA_RUNTIME"' "$WORK")
  expect_eq "$loaded" "$ld_path|cuda-13.0.2" "module load (real Lmod): the runtime's folder right after cuDNN's"
fi
pass "the runtime is selected with the cuDNN tree of its major; current, which --all, exec (audit and path), activate, a conda hook and a modulefile agree, and the pin holds against decoys"

# 4. verify reads each library's own version.
run verify cuda-13.0.2 --level load
expect_eq "$rc" "0" "verify the runtime: $(cat out err)"
expect_eq "$(grep '  load:' out)" "  ok    load: 9 load by absolute path: libcudart.so.13 13.0 (cudaRuntimeGetVersion); libcublasLt.so.13; libcublas.so.13 13.1.0 (cublasGetProperty); libcufft.so.12 12.0.0 (cufftGetProperty); libcurand.so.10 10.4.0 (curandGetProperty); libcusolver.so.12 12.0.4 (cusolverGetProperty); libcusparse.so.12 12.6.3 (cusparseGetProperty); libnvrtc.so.13; libnvJitLink.so.13" "verify --level load of the runtime"
if ! ldconfig -p 2> /dev/null | grep -q 'libcuda\.so\.1 '; then
  # No driver here: the SGEMM check says so, and --level conv asked for exits 5 (as for cuDNN).
  run verify cuda-13.0.2 --level conv
  expect_eq "$rc" "5" "verify --level conv of a runtime without a driver: exit code"
  grep -q "^  skip  sgemm: no NVIDIA driver" out || fail "the SGEMM check without a driver: $(cat out)"
fi
echo "tampered" >> "$CUDNNENV_ROOT/cuda-13.0.2/lib/libcurand.so.10"
run verify cuda-13.0.2 --level files
expect_eq "$rc" "4" "verify of a changed runtime file: exit code"
grep -q "'lib/libcurand.so.10' is" out || fail "verify names the changed file: $(cat out)"
run doctor --json
expect_eq "$(python3 -c 'import json; c={c["id"]: c for c in json.load(open("out"))["checks"]}["integrity"]; print(c["status"], c["details"])')" \
  "fail ['cuda-13.0.2: lib/libcurand.so.10: missing or another size than installed', 'cuda-13.0.2: lib/libcurand.so: missing or another size than installed']" "doctor's integrity check covers runtime trees (the file, and its link)"
pass "verify loads every runtime library and reads its version; a changed file fails it, and doctor's integrity check"

# 5. Adopt a runtime folder; remove says when a runtime is selected.
mkdir -p venv/nvidia/cu13/lib && cp libs/*.so.* venv/nvidia/cu13/lib/
run adopt venv/nvidia/cu13/lib
expect_eq "$(cat out)" "adopted 'cuda-13': CUDA 13 runtime, 9 library files stay in $WORK/venv/nvidia/cu13/lib" "adopt a pip runtime folder"
STDIN=/dev/null run remove cuda-13.0.2
expect_eq "$(head -1 err)" "'cuda-13.0.2' is the CUDA runtime selected with '$cudnn_tree' (set by $WORK/state/config.toml, the global default; chosen by the CUDA major of '$cudnn_tree'); with the profiles jax-cuda13 ('$cudnn_tree'), torch2.9-cu130 ('$cudnn_tree'), torch2.11-cu130 ('$cudnn_tree'): programs started with those then find their CUDA libraries as they would without cudnnenv, unless another CUDA runtime tree fits them" "remove of a runtime the global default and a profile select says so first"
run remove cuda-13.0.2 --yes
expect_eq "$(cat out)" "removed 'cuda-13.0.2'" "remove a runtime tree"
run current
expect_eq "$(sed -n 2p out)" "CUDA 13.0.0  cuda-13  (chosen by the CUDA major of '$cudnn_tree')" "the adopted runtime is chosen next"
pass "adopt takes a pip nvidia/cu13/lib folder as a runtime tree; remove warns before removing a selected runtime"

# 5b. Split wheels (as nvidia-cublas-cu12, nvidia-cuda-runtime-cu12, ... install CUDA 12): one folder per
# component under site-packages/nvidia; adopted together as one runtime tree, a store folder of links.
run remove cuda-13 --yes
expect_eq "$(cat out)" "forgot 'cuda-13'" "forget the adopted cu13 folder"
split="$WORK/venv12/nvidia"
mkdir -p "$split"/{cuda_runtime,cublas,cufft,curand,cusolver,cusparse,cuda_nvrtc,nvjitlink}/lib "$split/cudnn/lib"
cp libs/libcudart.so.13 "$split/cuda_runtime/lib/"; cp libs/libcublas*.so.13 "$split/cublas/lib/"
cp libs/libcufft.so.12 "$split/cufft/lib/"; cp libs/libcurand.so.10 "$split/curand/lib/"
cp libs/libcusolver.so.12 "$split/cusolver/lib/"; cp libs/libcusparse.so.12 "$split/cusparse/lib/"
cp libs/libnvrtc.so.13 "$split/cuda_nvrtc/lib/"; cp libs/libnvJitLink.so.13 "$split/nvjitlink/lib/"
run adopt --kind cublas "$split"
expect_eq "$rc $(cat err)" "2 cudnnenv: error: 'cublas' is no kind of tree
  hint: give one of cudnn, cuda, nccl, tensorrt" "adopt --kind: the words are the component table's"
run adopt --kind cuda "$split"
expect_eq "$(cat out)" "adopted 'cuda-13': CUDA 13 runtime, 9 library files stay in $split (linked from one folder, $CUDNNENV_ROOT/cuda-13/lib)" "adopt split wheels"
run current
expect_eq "$(sed -n 2p out)" "CUDA 13.0.0  cuda-13  (chosen by the CUDA major of '$cudnn_tree')" "the split wheels' runtime is selected"
run_program env LD_LIBRARY_PATH="$WORK/decoys" "$CUDNNENV" exec --report -- ./use-cublas
expect_eq "$(cat out)" "cublas 13.1.0 cudart 13000" "exec pins the split wheels' runtime against the decoys"
grep -qx "  in the runtime  $split/cublas/lib/libcublas.so.13" err &&
  grep -qx "  in the runtime  $split/cuda_runtime/lib/libcudart.so.13" err || fail "--report: the wheels' files, in the runtime: $(cat err)"
run verify cuda-13 --level load
expect_eq "$rc" "0" "verify the split wheels' runtime: $(cat out)"
run remove cuda-13 --yes
expect_eq "$(cat out)" "forgot 'cuda-13'" "forget the split wheels' runtime"
[ -f "$split/cublas/lib/libcublas.so.13" ] && [ ! -e "$CUDNNENV_ROOT/cuda-13" ] || fail "remove: the wheels' files stay, the links go"
pass "split CUDA wheels under site-packages/nvidia adopted as one runtime tree of links: selected, pinned (--report names the wheels' files), verified, forgotten with the files left"

# 6. This machine's real CUDA 13 libraries, in NVIDIA's layout.
REAL=/usr/local/cuda-13.0/lib
if [ ! -e "$REAL/libcublas.so.13" ]; then
  echo "skip (part 6): no real CUDA 13 in $REAL"
  exit 0
fi
rm -rf redist real-index && mkdir redist
real_component() {  # real_component NAME VERSION LIBRARY...: an uncompressed tar of the real files
  local name=$1 version=$2
  shift 2
  local top="$name-linux-x86_64-$version-archive"
  mkdir -p "redist/$name/linux-x86_64"
  echo "license of $name" > LICENSE
  tar -cf "redist/$name/linux-x86_64/$top.tar.gz" --transform "s|^LICENSE|$top/LICENSE|;s|^lib/|$top/lib/|" \
    LICENSE -C "$REAL/.." $(for library in "$@"; do echo "lib/$library"; done)
}
real_component cuda_cudart 13.0.96 libcudart.so.13
real_component libcublas 13.1.0.3 libcublas.so.13 libcublasLt.so.13
real_component libcufft 12.0.0.61 libcufft.so.12
real_component libcurand 10.4.0.35 libcurand.so.10
real_component libcusolver 12.0.4.66 libcusolver.so.12
real_component libcusparse 12.6.3.3 libcusparse.so.12
real_component cuda_nvrtc 13.0.88 libnvrtc.so.13
real_component libnvjitlink 13.0.88 libnvJitLink.so.13
manifest real-index 13.0.2
CUDNNENV_CUDA_INDEX="$WORK/real-index" run install cuda 13.0.2 --mirror "$WORK/mirror" -q --max-ratio 0
expect_eq "$rc" "0" "install the real CUDA 13 runtime: $(cat err)"
run adopt "$REAL" --name real-cudnn
run use real-cudnn --global
cc -o use-real-cublas "$SOURCES/use_cublas.c" -L"$REAL" -l:libcublas.so.13 -ldl
run_program env LD_LIBRARY_PATH="$WORK/decoys" "$CUDNNENV" exec --report -- ./use-real-cublas
expect_eq "$rc" "0" "exec of a program linked against the real libcublas.so.13: $(cat err)"
expect_eq "$(cat out)" "cublas 13.1.0 cudart 13000" "the real cuBLAS and cudart, not the decoys"
grep -qx "  in the runtime  $CUDNNENV_ROOT/cuda-13.0.2/lib/libcublasLt.so.13" err || fail "--report: $(cat err)"
run verify cuda-13.0.2 --level load
expect_eq "$rc" "0" "verify the real runtime: $(cat out)"
grep -q "libcudart.so.13 13.0 (cudaRuntimeGetVersion); libcublas.so.13 13.1.0 (cublasGetProperty)" out || fail "the real versions: $(cat out)"
pass "the real CUDA 13 libraries as NVIDIA's archives: installed, pinned with the real cuDNN 9 against decoys, versions read"
