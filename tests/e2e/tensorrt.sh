#!/usr/bin/env bash
# TensorRT as a row of the component table (#61): installed from NVIDIA's
# tarball (TensorRT-<V>.Linux.x86_64-gnu.cuda-<X>.tar.gz: lib/ kept, the
# headers, binaries and static libraries not) and a wheel (tensorrt_cu13_libs:
# tensorrt_libs/), adopted from a folder; paired with the cuDNN tree of its
# CUDA major or named (--tensorrt, tensorrt = in .cudnnenv.toml); pinned past a
# decoy libnvinfer.so.10 on LD_LIBRARY_PATH, the whole family (libnvinfer_plugin)
# from the tree, and `exec --report` marks each file "in TensorRT"; verify
# loads every library and reads getInferLibVersion. The fakes are built from
# tests/fixtures/fake_cuda_runtime.c and say which copy loaded.
# Usage: tensorrt.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
command -v cc > /dev/null || { echo "skip: no C compiler"; exit 77; }
source "$E2E_DIR/trees.sh"
SOURCES=$E2E_DIR/../fixtures
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state" CUDNNENV_VERIFY=none
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_SHELL CUDNNENV_TENSORRT LD_LIBRARY_PATH

# fake_tensorrt FOLDER RELEASE [NAMES...]: lib<name>.so.RELEASE (soname lib<name>.so.MAJOR) and the link
# lib<name>.so.MAJOR for each name (default: nvinfer nvinfer_plugin nvonnxparser), reporting RELEASE.
fake_tensorrt() {
  local folder=$1 release=$2 major minor patch
  shift 2
  IFS=. read -r major minor patch _ <<< "$release"
  mkdir -p "$folder"
  for name in ${@:-nvinfer nvinfer_plugin nvonnxparser}; do
    cc -shared -fPIC -o "$folder/lib$name.so.$major.$minor.$patch" -Wl,-soname,"lib$name.so.$major" \
      "$SOURCES/fake_cuda_runtime.c" -DFAKE_TENSORRT="$((major * 10000 + minor * 100 + patch))"
    ln -sf "lib$name.so.$major.$minor.$patch" "$folder/lib$name.so.$major"
  done
}
cc -o load-names "$SOURCES/dlopen_names.c" -ldl
make_linux_tree t 9.19.0 "$FIXTURES/fake-elf64-9.19.0.so"  # CUDA 13.1
run install ./t --name t
tarball=TensorRT-10.13.3.9
fake_tensorrt "$tarball/lib" 10.13.3.9
ln -s libnvinfer.so.10 "$tarball/lib/libnvinfer.so"
mkdir -p "$tarball/bin" "$tarball/include"
echo static > "$tarball/lib/libnvinfer_static.a" && echo exe > "$tarball/bin/trtexec" && echo h > "$tarball/include/NvInfer.h"
tar czf "$tarball.Linux.x86_64-gnu.cuda-13.0.tar.gz" "$tarball"
mkdir -p wheel/tensorrt_libs && fake_tensorrt wheel/tensorrt_libs 10.12.0.36 nvinfer nvinfer_plugin
wheel_file=tensorrt_cu13_libs-10.12.0.36-py2.py3-none-manylinux_2_28_x86_64.whl
(cd wheel && python3 -c 'import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for root, _, files in os.walk("."):
        for f in files: z.write(os.path.join(root, f))' "../$wheel_file")
fake_tensorrt tf/lib 7.2.3 nvinfer nvinfer_plugin  # what TensorFlow 2.4 and 2.5 open: libnvinfer.so.7
fake_tensorrt decoy 10.0.0

run install tensorrt "$tarball.Linux.x86_64-gnu.cuda-13.0.tar.gz"
expect_eq "$(head -1 out)" "installed 'tensorrt-10.13.3.9': TensorRT 10.13.3.9 for CUDA 13.0" "install tensorrt from NVIDIA's tarball"
expect_eq "$(cd "$CUDNNENV_ROOT/tensorrt-10.13.3.9" && find lib | sort | tr '\n' ' ')" \
  "lib lib/libnvinfer.so lib/libnvinfer.so.10 lib/libnvinfer.so.10.13.3 lib/libnvinfer_plugin.so.10 lib/libnvinfer_plugin.so.10.13.3 lib/libnvonnxparser.so.10 lib/libnvonnxparser.so.10.13.3 " \
  "the tarball's tree: its libraries and links, no static library, header or program"
run install tensorrt "$wheel_file"
expect_eq "$(head -1 out)" "installed 'tensorrt-10.12.0.36': TensorRT 10.12.0.36 for CUDA 13" "install tensorrt from a wheel"
run adopt "$WORK/tf/lib"
expect_eq "$(cat out)" "adopted 'tensorrt-7.2.3': TensorRT 7.2.3, 4 library files stay in $WORK/tf/lib" \
  "adopt: the folder's kind and release from the library's full name"
pass "TensorRT from NVIDIA's tarball, a wheel and an adopted folder"

run current --cudnn t
expect_eq "$(cat out)" "9.19.0  t  (set by --cudnn)
TensorRT 10.13.3.9  tensorrt-10.13.3.9  (chosen by the CUDA major of 't')" "current: the newest TensorRT of the tree's CUDA major"
mkdir -p project && printf 'cudnn = "t"\ntensorrt = "7"\n' > project/.cudnnenv.toml
pushd project > /dev/null && run current && mv out err "$WORK/" && popd > /dev/null
expect_eq "$(sed -n 2p out)" "TensorRT 7.2.3  tensorrt-7.2.3  (chosen by tensorrt = \"7\" in $WORK/project/.cudnnenv.toml)" \
  "tensorrt = in the project file"
pass "TensorRT selected beside cuDNN: paired by CUDA major, or named by tensorrt ="
mkdir -p "$CUDNNENV_STATE_DIR"
printf '[profiles."trt7"]\nframework = "a TF-TRT build"\ncudnn = "9.19"\ncuda = "13"\ntensorrt = "7"\n[profiles."trt8"]\nframework = "another"\ncudnn = "9.19"\ncuda = "13"\ntensorrt = "8"\n' \
  > "$CUDNNENV_STATE_DIR/config.toml"
run current --cudnn trt7
expect_eq "$rc:$(sed -n 2p out)" "0:TensorRT 7.2.3  tensorrt-7.2.3  (chosen by the profile trt7 (TensorRT 7))" \
  "a profile's tensorrt = picks that release over the CUDA major's pairing: $(cat err)"
run current --cudnn trt8
expect_eq "$rc:$(grep -c TensorRT out)" "0:0" "a profile's TensorRT not installed: none selected, not one of another major"
run profile show tf2.5
expect_eq "$(grep TensorRT out)" "  TensorRT 7 (selected beside it where installed)" "profile show: the TensorRT TensorFlow 2.5 opens"
rm "$CUDNNENV_STATE_DIR/config.toml"
pass "a profile names the TensorRT its framework opens (TensorFlow 2.4-2.11: 7): selected where installed, no other"

plain=$(LD_LIBRARY_PATH="$WORK/decoy" ./load-names libnvinfer.so.10)
expect_eq "$plain" "libnvinfer.so.10 loaded (getInferLibVersion 100000)" "without cudnnenv the decoy on LD_LIBRARY_PATH loads"
run_program env LD_LIBRARY_PATH="$WORK/decoy" "$CUDNNENV" exec --cudnn t --report -- ./load-names libnvinfer.so.10 libnvinfer_plugin.so.10
expect_eq "$(cat out)" "libnvinfer.so.10 loaded (getInferLibVersion 101303)
libnvinfer_plugin.so.10 loaded (getInferLibVersion 101303)" "exec: the paired TensorRT, its plugin library too"
expect_eq "$(tail -n +2 err)" "  in TensorRT  $CUDNNENV_ROOT/tensorrt-10.13.3.9/lib/libnvinfer.so.10.13.3
  in TensorRT  $CUDNNENV_ROOT/tensorrt-10.13.3.9/lib/libnvinfer_plugin.so.10.13.3" "--report marks each file by its row"
run_program env LD_LIBRARY_PATH="$WORK/decoy" "$CUDNNENV" exec --cudnn t --tensorrt 10.12 -- ./load-names libnvinfer.so.10 libnvonnxparser.so.10
expect_eq "$rc $(cat out)" "1 libnvinfer.so.10 loaded (getInferLibVersion 101200)
libnvonnxparser.so.10 -" "--tensorrt: the named tree; a library of the family it lacks fails, the decoy's is not taken"
pass "TensorRT pinned past a decoy through exec; a name the tree lacks is fenced (--report: in TensorRT)"

run verify tensorrt-10.13.3.9 --level load
expect_eq "$rc $(grep '^  ok    load' out)" "0   ok    load: 3 load by absolute path: libnvonnxparser.so.10.13.3; libnvinfer_plugin.so.10.13.3; libnvinfer.so.10.13.3 10.13.3 (getInferLibVersion)" \
  "verify loads each library and reads getInferLibVersion"
pass "verify: TensorRT's libraries and its version function"
