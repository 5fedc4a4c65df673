# Fake cuDNN trees made from the fixture libraries, for the end-to-end tests
# and the benches.

# make_linux_tree DIR VERSION SO: a complete fake cuDNN 9 Linux release.
make_linux_tree() {
  local dir=$1 version=$2 so=$3
  mkdir -p "$dir/lib" "$dir/include"
  IFS=. read -r major minor patch <<<"$version"
  local bases="cudnn cudnn_graph cudnn_ops cudnn_cnn cudnn_adv cudnn_heuristic cudnn_engines_precompiled"
  bases+=" cudnn_engines_runtime_compiled"
  [ "$minor" -ge 21 ] && bases+=" cudnn_engines_tensor_ir"  # data/cudnn-libraries.tsv
  [ "$minor" -ge 25 ] && bases+=" cudnn_ext"
  for base in $bases; do
    cp "$so" "$dir/lib/lib$base.so.$version"
    ln -sf "lib$base.so.$version" "$dir/lib/lib$base.so.9"
  done
  printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$major" "$minor" "$patch" \
    > "$dir/include/cudnn_version.h"
  for h in cudnn cudnn_graph cudnn_ops cudnn_cnn cudnn_adv cudnn_backend; do echo "/* $h */" > "$dir/include/$h.h"; done
}

# make_windows_tree DIR DLL [VERSION]: a complete fake cuDNN 8 Windows release
# (8.1.0 unless VERSION says) in the layout of cudnn-11.2-windows-x64-v8.1.0.77.zip
# (cuda/bin, cuda/include, cuda/lib/x64).
make_windows_tree() {
  local dir=$1 dll=$2 version=${3:-8.1.0} major minor patch
  mkdir -p "$dir/cuda/bin" "$dir/cuda/include" "$dir/cuda/lib/x64"
  for base in cudnn cudnn_ops_infer cudnn_ops_train cudnn_cnn_infer cudnn_cnn_train cudnn_adv_infer cudnn_adv_train; do
    cp "$dll" "$dir/cuda/bin/${base}64_8.dll"
    printf '!<arch>\n' > "$dir/cuda/lib/x64/$base.lib"
    printf '!<arch>\n' > "$dir/cuda/lib/x64/${base}64_8.lib"
    echo "/* $base */" > "$dir/cuda/include/$base.h"
  done
  IFS=. read -r major minor patch <<<"$version"
  printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$major" "$minor" "$patch" \
    > "$dir/cuda/include/cudnn_version.h"
  echo "/* backend */" > "$dir/cuda/include/cudnn_backend.h"
}

# make_windows9_tree DIR DLL VERSION: a complete fake cuDNN 9 Windows release
# in the layout of NVIDIA's zips (bin, include, lib/x64), with the libraries
# data/cudnn-libraries.tsv names for VERSION.
make_windows9_tree() {
  local dir=$1 dll=$2 version=$3 major minor patch
  IFS=. read -r major minor patch <<<"$version"
  mkdir -p "$dir/bin" "$dir/include" "$dir/lib/x64"
  local bases="cudnn cudnn_graph cudnn_ops cudnn_cnn cudnn_adv cudnn_heuristic cudnn_engines_precompiled"
  bases+=" cudnn_engines_runtime_compiled"
  for base in $bases; do
    printf '!<arch>\n' > "$dir/lib/x64/$base.lib"
    printf '!<arch>\n' > "$dir/lib/x64/${base}64_9.lib"
  done
  [ "$minor" -ge 21 ] && bases+=" cudnn_engines_tensor_ir"
  [ "$minor" -ge 25 ] && bases+=" cudnn_ext"
  for base in $bases; do cp "$dll" "$dir/bin/${base}64_9.dll"; done
  printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$major" "$minor" "$patch" \
    > "$dir/include/cudnn_version.h"
  for h in cudnn cudnn_graph cudnn_ops cudnn_cnn cudnn_adv cudnn_backend; do echo "/* $h */" > "$dir/include/$h.h"; done
}

# adopt_fake_nccl RELEASE CUDA: an NCCL folder ncclMAJOR.MINOR/lib whose libnccl.so.2 (from
# fixtures/fake_cuda_runtime.c) reports RELEASE to ncclGetVersion and says "NCCL version RELEASE+cudaCUDA",
# adopted as nccl-RELEASE.
adopt_fake_nccl() {
  local release=$1 cuda=$2 major minor patch
  IFS=. read -r major minor patch <<< "$release"
  mkdir -p "nccl$major.$minor/lib"
  cc -shared -fPIC -o "nccl$major.$minor/lib/libnccl.so.2" -Wl,-soname,libnccl.so.2 \
    "$E2E_DIR/../fixtures/fake_cuda_runtime.c" -DFAKE_NCCL="$((major * 10000 + minor * 100 + patch))" \
    -DFAKE_NCCL_BUILD="\"$release+cuda$cuda\""
  "$CUDNNENV" adopt "nccl$major.$minor/lib" > /dev/null || fail "adopt nccl-$release"
}

# install_fake_tensorrt RELEASE CUDA: NVIDIA's tarball of TensorRT RELEASE (four fields) built for CUDA
# (TensorRT-RELEASE.Linux.x86_64-gnu.cuda-CUDA.tar.gz) holding libnvinfer.so.MAJOR (from
# fixtures/fake_cuda_runtime.c, reporting RELEASE), installed as tensorrt-RELEASE.
install_fake_tensorrt() {
  local release=$1 cuda=$2 major minor patch
  IFS=. read -r major minor patch _ <<< "$release"
  mkdir -p "TensorRT-$release/lib"
  cc -shared -fPIC -o "TensorRT-$release/lib/libnvinfer.so.$major.$minor.$patch" -Wl,-soname,"libnvinfer.so.$major" \
    "$E2E_DIR/../fixtures/fake_cuda_runtime.c" -DFAKE_TENSORRT="$((major * 10000 + minor * 100 + patch))"
  ln -s "libnvinfer.so.$major.$minor.$patch" "TensorRT-$release/lib/libnvinfer.so.$major"
  tar czf "TensorRT-$release.Linux.x86_64-gnu.cuda-$cuda.tar.gz" "TensorRT-$release"
  "$CUDNNENV" install tensorrt "TensorRT-$release.Linux.x86_64-gnu.cuda-$cuda.tar.gz" > /dev/null ||
    fail "install tensorrt-$release"
}

# adopt_fake_runtime RELEASE NAME: a CUDA runtime folder rtRELEASE/lib whose
# libcudart.so.RELEASE.99 (soname libcudart.so.MAJOR, from
# fixtures/fake_cuda_runtime.c) reports RELEASE (12.4: 12040), adopted as NAME.
adopt_fake_runtime() {
  local release=$1 name=$2
  mkdir -p "rt$release/lib"
  cc -shared -fPIC -o "rt$release/lib/libcudart.so.$release.99" -Wl,-soname,"libcudart.so.${release%%.*}" \
    "$E2E_DIR/../fixtures/fake_cuda_runtime.c" -DFAKE_CUDART="${release/./0}0"
  ln -s "libcudart.so.$release.99" "rt$release/lib/libcudart.so.${release%%.*}"
  "$CUDNNENV" adopt "rt$release/lib" --runtime --name "$name" > /dev/null || fail "adopt $name"
}
