#!/usr/bin/env bash
# The real cuDNN 9 of this machine (/usr/local/cuda-13.0) installed from a
# zip archive, a wheel and a folder built from its own files: each gives a
# tree whose 'list --json' reports its 9.x.y version and CUDA 13.
# Skips (77) where that cuDNN is absent.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"

REAL=${CUDNNENV_REAL_CUDNN:-/usr/local/cuda-13.0}
if [ ! -e "$REAL/lib/libcudnn.so.9" ] || [ ! -e "$REAL/include/cudnn_version.h" ]; then
  echo "SKIP: no real cuDNN 9 at $REAL"
  exit 77
fi
header_version=$(awk '/#define CUDNN_MAJOR /{a=$3} /#define CUDNN_MINOR /{b=$3} /#define CUDNN_PATCHLEVEL /{c=$3} END{print a"."b"."c}' \
  "$REAL/include/cudnn_version.h")

# The files as NVIDIA's own archives lay them out: include/ and lib/.
mkdir -p real/include real/lib
cp -L "$REAL"/include/cudnn*.h real/include/
cp -a "$REAL"/lib/libcudnn*.so* real/lib/
export CUDNNENV_ROOT="$WORK/store root"

# An archive whose name says nothing: CUDA comes from cudnnGetCudartVersion() in a child process.
(cd real && zip -q -r -y -0 ../cudnn-from-this-machine.zip .)
"$CUDNNENV" install cudnn-from-this-machine.zip --json > zip.json
expect_eq "$(json_field tree.version < zip.json)" "$header_version" "zip: version"
expect_eq "$(json_field tree.cuda < zip.json | cut -d. -f1)" "13" "zip: CUDA major"
expect_eq "$(json_field tree.cuda_from < zip.json)" "library" "zip: CUDA read from the library"
pass "zip of the real files: cuDNN $header_version, CUDA $(json_field tree.cuda < zip.json)"

# A wheel: nvidia/cudnn/{lib,include} plus dist-info metadata, as pip wheels are.
mkdir -p wheel/nvidia/cudnn "wheel/nvidia_cudnn_cu13-$header_version.1.dist-info"
cp -a real/lib real/include wheel/nvidia/cudnn/
printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: %s.1\n' "$header_version" \
  > "wheel/nvidia_cudnn_cu13-$header_version.1.dist-info/METADATA"
(cd wheel && zip -q -r -0 "../nvidia_cudnn_cu13-$header_version.1-py3-none-manylinux_2_27_x86_64.whl" .)
"$CUDNNENV" install "nvidia_cudnn_cu13-$header_version.1-py3-none-manylinux_2_27_x86_64.whl" --json > wheel.json
expect_eq "$(json_field tree.version < wheel.json)" "$header_version.1" "wheel: version with build"
expect_eq "$(json_field tree.cuda < wheel.json | cut -d. -f1)" "13" "wheel: CUDA major"
expect_eq "$(json_field tree.cuda_from < wheel.json)" "library" "wheel: CUDA read from the library, more exact than the metadata's cu13"
pass "wheel: cuDNN $header_version.1, CUDA 13"

# A folder.
"$CUDNNENV" install real --name "real folder" --json > folder.json
expect_eq "$(json_field tree.version < folder.json)" "$header_version" "folder: version"
expect_eq "$(json_field tree.cuda < folder.json | cut -d. -f1)" "13" "folder: CUDA major"
pass "folder: cuDNN $header_version"

"$CUDNNENV" list --json > list.json
expect_eq "$(json_count < list.json)" "3" "list shows three trees"
expect_eq "$(python3 -c 'import json, sys; print(sorted({t["cuda"].split(".")[0] for t in json.load(sys.stdin)}))' < list.json)" "['13']" "every tree is CUDA 13"
"$CUDNNENV" list
# Each tree's library loads and reports the header's version (in a child, by the installer's probe).
for tree in "$CUDNNENV_ROOT"/*/; do
  [ -f "$tree/.cudnnenv/tree.toml" ] || fail "tree without a record: $tree"
done
pass "list --json: 3 trees, all cuDNN $header_version / CUDA 13"

# verify: the real library loads by absolute path and reports the header's version.
"$CUDNNENV" verify "real folder" --level load > verify.out || fail "verify --level load: $(cat verify.out)"
version_code=$(awk -F. '{ printf "%d", $1 * 10000 + $2 * 100 + $3 }' <<<"$header_version")
grep -q "ok    load: cudnnGetVersion() = $version_code ($header_version)" verify.out || fail "verify: $(cat verify.out)"
grep -q "ok    sub-libraries: 7 load by absolute path" verify.out || fail "verify: $(cat verify.out)"
pass "verify --level load: cudnnGetVersion() = $version_code, all sub-libraries load"
