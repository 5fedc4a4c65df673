#!/usr/bin/env bash
# On the GPU host (not in CI): issue 24's H200 case. PyTorch's CUDA 13
# runtime folder (site-packages/nvidia/cu13/lib) adopted as a runtime tree,
# selected with the system cuDNN 9.14; verify reads each library's version;
# a PyTorch program pinned to that pair loads cuDNN from the system tree and
# the CUDA runtime from the adopted one (--report), and cuBLAS and cuDNN run
# on the GPU (a matrix product and a convolution against CPU references),
# and verify --level conv runs cuDNN's convolution and cuBLAS's SGEMM of the pair.
# Prints everything; exit 1 on a failed check.
# Usage: tests/gpu/runtime.sh [BIN] [PYTHON]
set -uo pipefail
bin=${1:-build/release/bin}
python=${2:-/opt/torch/.venv/bin/python3}
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
export CUDNNENV_ROOT=$(mktemp -d)/store
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED
failed=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; failed=1; fi; }

"$bin/cudnnenv" adopt /usr/lib/x86_64-linux-gnu --name system-9.14
"$bin/cudnnenv" adopt "$site/nvidia/cu13/lib"
"$bin/cudnnenv" list
runtime=$("$bin/cudnnenv" list --json | "$python" -c 'import json,sys; print([t["name"] for t in json.load(sys.stdin) if t["kind"] == "cuda"][0])')
"$bin/cudnnenv" use system-9.14 --global
echo "== current"
"$bin/cudnnenv" current | tee out
check "the runtime is selected with cuDNN 9.14" "grep -q '$runtime' out"
echo "== verify $runtime --level load"
"$bin/cudnnenv" verify "$runtime" --level load | tee out; rc=${PIPESTATUS[0]}
check "verify of the adopted runtime reads the versions (rc=$rc)" '[ $rc = 0 ] && grep -q "cudaRuntimeGetVersion" out && grep -q "cublasGetProperty" out'
echo "== verify --level conv (the selected pair)"
"$bin/cudnnenv" verify --level conv | tee out; rc=${PIPESTATUS[0]}
check "verify --level conv of cuDNN 9.14 and the runtime: the convolution and cuBLAS's SGEMM against CPU references (rc=$rc)" \
  '[ $rc = 0 ] && grep -q "ok    conv: 3x3 pad 1" out && grep -q "ok    sgemm: 256x256x256: max relative error" out && grep -q "^  with the CUDA runtime .$runtime. " out'

line='import torch
a = torch.randn(256, 256); b = torch.randn(256, 256)
g = (a.cuda() @ b.cuda()).cpu(); print("sgemm max error", float((g - a @ b).abs().max()))
x = torch.randn(2, 16, 24, 24); w = torch.randn(32, 16, 3, 3)
y = torch.nn.functional.conv2d(x.cuda(), w.cuda(), padding=1).cpu()
print("conv max error", float((y - torch.nn.functional.conv2d(x, w, padding=1)).abs().max()))
print("cudnn", torch.backends.cudnn.version())'
echo "== exec --report (PyTorch, cuDNN 9.14 from the system, CUDA 13 from the adopted runtime)"
PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 "$bin/cudnnenv" exec --report -- "$python" -c "$line" > out 2> err; rc=$?
cat out; grep -v "^  in the" err | tail -5; grep "^  in the" err | sed 's/^/  /' | head -20
check "PyTorch ran a matrix product and a convolution pinned to the pair (rc=$rc)" \
  '[ $rc = 0 ] && grep -q "cudnn 91400" out && grep -q "sgemm max error" out && grep -q "conv max error" out'
check "--report: cuDNN from the system tree, cuBLAS and cudart from the runtime, nothing outside" \
  'grep -q "in the tree  *  /usr/lib/x86_64-linux-gnu/libcudnn" err && grep -q "in the runtime .*/nvidia/cu13/lib/libcublas.so.13" err && grep -q "in the runtime .*/nvidia/cu13/lib/libcudart.so.13" err && ! grep -q OUTSIDE err'
exit $failed
