# Stub frameworks for frameworks.sh: packages of the real names whose modules
# expose the functions cudnnenv's probe calls and whose files are the ones
# its file reader reads, each version a parameter. Where the real framework
# asks the loaded cuDNN (PyTorch's runtime version, JAX's cudnn_get_version)
# the stub loads libcudnn.so.9 by name through ctypes, so the answer is the
# pinned tree's. Sourced with `site` set to a venv's site-packages.

# The cuDNN a name load finds, as cudnnGetVersion encodes it.
STUB_LOADED='def loaded():
    import ctypes
    lib = ctypes.CDLL("libcudnn.so.9")
    lib.cudnnGetVersion.restype = ctypes.c_size_t
    return lib.cudnnGetVersion()
'

# stub_torch VERSION CUDA BUILT(M.m.p) [METADATA_PIN]: PyTorch with the check torch.backends.cudnn.version() makes.
stub_torch() {
  local version=$1 cuda=$2 built=$3 pin=${4:-}
  mkdir -p "$site/torch/backends" "$site/torch-$version.dist-info"
  printf "__version__ = '%s'\nfrom torch import version, _C, backends\n" "$version" > "$site/torch/__init__.py"
  printf "__version__ = '%s'\ncuda = '%s'\n" "$version" "$cuda" > "$site/torch/version.py"
  { echo "$STUB_LOADED"
    echo "class _cudnn:"
    echo "    getCompileVersion = staticmethod(lambda: ($(tr . , <<<"$built")))"
    echo "    getRuntimeVersion = staticmethod(lambda: (loaded() // 10000, loaded() % 10000 // 100, loaded() % 100))"
  } > "$site/torch/_C.py"
  echo "from torch.backends import cudnn" > "$site/torch/backends/__init__.py"
  cat > "$site/torch/backends/cudnn.py" <<'PY'
from torch import _C
def version():
    compiled = _C._cudnn.getCompileVersion()
    runtime = _C._cudnn.getRuntimeVersion()
    if runtime[0] != compiled[0] or runtime[1] < compiled[1]:
        raise RuntimeError("cuDNN version incompatibility: PyTorch was compiled  against %s but found runtime version %s."
                           % (compiled, runtime))
    return runtime[0] * 10000 + runtime[1] * 100 + runtime[2]
PY
  { printf 'Metadata-Version: 2.1\nName: torch\nVersion: %s\n' "$version"
    if [ -n "$pin" ]; then printf 'Requires-Dist: %s; platform_system == "Linux"\n' "$pin"; fi
  } > "$site/torch-$version.dist-info/METADATA"
}

# stub_jax VERSION CUDA_MAJOR BUILT(encoded, 90800) METADATA_REQUIREMENT: JAX with its CUDA plugin.
stub_jax() {
  local version=$1 cuda=$2 built=$3 requirement=$4
  local plugin=jax_cuda${cuda}_plugin
  mkdir -p "$site/jax/_src/lib" "$site/$plugin" "$site/jax-$version.dist-info" "$site/$plugin-$version.dist-info"
  printf "__version__ = '%s'\n" "$version" > "$site/jax/__init__.py"
  : > "$site/jax/_src/__init__.py"
  printf "try:\n    from %s import _versions as cuda_versions\nexcept ImportError:\n    cuda_versions = None\n" \
    "$plugin" > "$site/jax/_src/lib/__init__.py"
  : > "$site/$plugin/__init__.py"
  { echo "$STUB_LOADED"
    echo "cudnn_build_version = lambda: $built"
    echo "cuda_runtime_build_version = lambda: ${cuda}080"
    echo "cudnn_get_version = loaded"
  } > "$site/$plugin/_versions.py"
  printf 'Metadata-Version: 2.1\nName: jax\nVersion: %s\n' "$version" > "$site/jax-$version.dist-info/METADATA"
  printf 'Metadata-Version: 2.1\nName: jax-cuda%s-plugin\nVersion: %s\nRequires-Dist: jax-cuda%s-pjrt==%s\nRequires-Dist: %s; extra == "with-cuda"\n' \
    "$cuda" "$version" "$cuda" "$version" "$requirement" > "$site/$plugin-$version.dist-info/METADATA"
}

# stub_tensorflow VERSION CUDA CUDNN_MAJOR: its build_info.py and tf.sysconfig.get_build_info().
stub_tensorflow() {
  local version=$1 cuda=$2 cudnn=$3
  mkdir -p "$site/tensorflow/python/platform" "$site/tensorflow-$version.dist-info"
  printf "__version__ = '%s'\nfrom tensorflow import sysconfig\n" "$version" > "$site/tensorflow/__init__.py"
  printf "build_info = {'cuda_version': '%s', 'cudnn_version': '%s', 'is_cuda_build': True}\n" "$cuda" "$cudnn" \
    > "$site/tensorflow/python/platform/build_info.py"
  printf "def get_build_info():\n    return {'cuda_version': '%s', 'cudnn_version': '%s', 'is_cuda_build': True}\n" \
    "$cuda" "$cudnn" > "$site/tensorflow/sysconfig.py"
}

# stub_onnxruntime VERSION CUDA CUDNN: onnxruntime-gpu's build_and_package_info.
stub_onnxruntime() {
  local version=$1 cuda=$2 cudnn=$3
  mkdir -p "$site/onnxruntime/capi" "$site/onnxruntime_gpu-$version.dist-info"
  printf "__version__ = '%s'\n" "$version" > "$site/onnxruntime/__init__.py"
  : > "$site/onnxruntime/capi/__init__.py"
  printf "package_name = 'onnxruntime-gpu'\n__version__ = '%s'\ncuda_version = '%s'\ncudnn_version = '%s'\n" \
    "$version" "$cuda" "$cudnn" > "$site/onnxruntime/capi/build_and_package_info.py"
  printf 'Metadata-Version: 2.1\nName: onnxruntime-gpu\nVersion: %s\nRequires-Dist: nvidia-cudnn-cu12~=9.0; extra == "cuda"\n' \
    "$version" > "$site/onnxruntime_gpu-$version.dist-info/METADATA"
}

# stub_remove NAME...: takes stub packages out again (torch, jax, tensorflow, onnxruntime).
stub_remove() {
  local name
  for name in "$@"; do
    rm -rf "${site:?}/$name" "$site/$name"-*.dist-info "$site/${name}_gpu"-*.dist-info
    [ "$name" = jax ] && rm -rf "$site"/jax_cuda*_plugin*
  done
  return 0
}
