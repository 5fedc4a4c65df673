#!/usr/bin/env bash
# The rows beside cuDNN on Windows, under Wine (#61): TensorRT 10 from
# NVIDIA's zip (TensorRT-<V>/lib/nvinfer_10.dll, the .lib files, headers and
# programs left out) paired with a cuDNN 8.1 tree of its CUDA major (the zip's
# name says cuda-11.8): its names opened by bare name with
# LOAD_WITH_ALTERED_SEARCH_PATH, as TensorFlow and ONNX Runtime do, while
# decoys of each name sit on PATH: directly the decoys load, through `exec`
# every one comes from the tree and --report marks it "in TensorRT"; verify
# loads each DLL and reads getInferLibVersion. NCCL, which has no Windows
# build, is refused with words that say so.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
MINGW=${MINGW_CC:-x86_64-w64-mingw32-gcc}
command -v "$MINGW" > /dev/null || { echo "skip: no $MINGW"; exit 77; }
SOURCES=$E2E_DIR/../fixtures
source "$E2E_DIR/trees.sh"
root="$WORK/C libs"
cud() { "$WINE" "$CUDNNENV" --root "$(winpath "$root")" "$@"; }
dll() {  # dll FILE [CFLAGS...]
  local file=$1
  shift
  "$MINGW" -shared -o "$file" "$SOURCES/fake_cuda_runtime.c" "$@"
}
names=(nvinfer_10.dll nvinfer_plugin_10.dll nvonnxparser_10.dll)
zip_top=TensorRT-10.13.3.9
mkdir -p "$zip_top/lib" "$zip_top/include" "$zip_top/bin" decoys prog
for name in "${names[@]}"; do
  dll "$zip_top/lib/$name" -DFAKE_TENSORRT=101303
  dll "decoys/$name" -DFAKE_TENSORRT=100000
  echo lib > "$zip_top/lib/${name%.dll}.lib"
done
echo h > "$zip_top/include/NvInfer.h" && echo exe > "$zip_top/bin/trtexec.exe"
zip_file=$zip_top.Windows.win10.cuda-11.8.zip
python3 -c 'import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for root, _, files in os.walk(sys.argv[2]):
        for f in files: z.write(os.path.join(root, f))' "$zip_file" "$zip_top"
"$MINGW" -O1 -municode -static -o prog/load-names.exe "$SOURCES/load_names.c"
make_windows_tree t8.1 "$FIXTURES/fake-pe64-8.1.0.dll" 8.1.0
cud install "$(winpath "$WORK/t8.1/cuda")" --name cudnn-8.1 > /dev/null || fail "install cudnn-8.1"

run_program cud install tensorrt "$(winpath "$WORK/$zip_file")"
expect_eq "$rc $(head -1 out)" "0 installed 'tensorrt-10.13.3.9': TensorRT 10.13.3.9 for CUDA 11.8" "install tensorrt from NVIDIA's zip"
expect_eq "$(cd "$root/tensorrt-10.13.3.9" && find bin | sort | tr '\n' ' ')" \
  "bin bin/nvinfer_10.dll bin/nvinfer_plugin_10.dll bin/nvonnxparser_10.dll " "the zip's tree: its DLLs, in bin"
run_program cud current --cudnn cudnn-8.1
expect_eq "$(sed -n 2p out)" "TensorRT 10.13.3.9  tensorrt-10.13.3.9  (chosen by the CUDA major of 'cudnn-8.1')" "paired with the CUDA 11 cuDNN"

export WINEPATH="$(winpath "$WORK/decoys")"
run_program "$WINE" prog/load-names.exe "${names[@]}"
expect_eq "$(grep -c "decoys" out)" "3" "directly, with the decoys on PATH, each name loads a decoy"
run_program cud exec --cudnn cudnn-8.1 --report -- "$(winpath "$WORK/prog/load-names.exe")" "${names[@]}"
expect_eq "$rc" "0" "exec --report: $(cat err)"
for name in "${names[@]}"; do
  expect_eq "$(grep "^$name " out | cut -d' ' -f2-)" "$(winpath "$root/tensorrt-10.13.3.9/bin/$name")" "$name through exec"
done
expect_eq "$(grep -c '^  in TensorRT ' err)" "3" "--report marks the three DLLs in TensorRT: $(cat err)"
if grep -q OUTSIDE err; then fail "an outside copy loaded: $(cat err)"; fi
pass "TensorRT's names by bare name: decoys on PATH directly, the tree through exec (--report: in TensorRT)"
unset WINEPATH

run_program cud verify tensorrt-10.13.3.9 --level load
expect_eq "$rc $(grep '^  ok    load' out)" "0   ok    load: 3 load by absolute path: nvinfer_10.dll 10.13.3 (getInferLibVersion); nvonnxparser_10.dll; nvinfer_plugin_10.dll 10.13.3 (getInferLibVersion)" \
  "verify loads each DLL and reads getInferLibVersion"
mkdir -p nccl && dll nccl/nccl.dll
run_program cud adopt --kind nccl "$(winpath "$WORK/nccl")"
expect_eq "$rc $(cat err)" "3 cudnnenv: error: NCCL has no Windows build: NVIDIA ships it for Linux only" "NCCL on Windows"
pass "verify reads TensorRT's version on Windows; NCCL is refused in plain words"
