#!/usr/bin/env bash
# On the GPU host (not in CI): issue 24's H200 case. PyTorch's CUDA 13
# runtime folder (site-packages/nvidia/cu13/lib) adopted as a runtime tree,
# selected with the system cuDNN 9.14; verify reads each library's version;
# a PyTorch program pinned to that pair loads cuDNN from the system tree and
# the CUDA runtime from the adopted one (--report), and cuBLAS and cuDNN run
# on the GPU (a matrix product and a convolution against CPU references),
# and verify --level conv runs cuDNN's convolution and cuBLAS's SGEMM of the pair.
# Then issue 61's runtime fence with real PyTorch: a copy of that folder
# without libcublasLt.so.13 (a wheel half uninstalled: links to the rest)
# adopted warns naming it; exec refuses to start PyTorch with it, naming it;
# with --verify none PyTorch's load of libcublasLt.so.13 fails (the venv's
# own copy is not taken) and --why names it with the chain; adopt --heal
# completes it from the whole runtime, and PyTorch then runs with every
# runtime file from the healed tree.
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
  'grep -q "^  in the tree  */usr/lib/x86_64-linux-gnu/libcudnn" err && grep -q "^  in the runtime  .*/nvidia/cu13/lib/libcublas.so.13" err && grep -q "^  in the runtime  .*/nvidia/cu13/lib/libcudart.so.13" err && ! grep -q OUTSIDE err'

echo "== the runtime fence: the folder without libcublasLt.so.13"
half=$(dirname "$CUDNNENV_ROOT")/half/lib
mkdir -p "$half"
for file in "$site"/nvidia/cu13/lib/*; do
  case ${file##*/} in libcublasLt.so*) ;; *) ln -s "$file" "$half/" ;; esac
done
"$bin/cudnnenv" adopt "$half" --name half > out 2> err; rc=$?
cat out err
check "adopt of the half runtime warns naming libcublasLt.so.13 and --heal (rc=$rc)" \
  '[ $rc = 0 ] && grep -q "lacks libcublasLt.so.13 (needed by libcublas.so.13" err && grep -q "adopt --heal" err'
PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 "$bin/cudnnenv" exec --runtime half -- "$python" -c "$line" > out 2> err; rc=$?
cat out err
check "exec refuses PyTorch with the half runtime before it starts, naming libcublasLt.so.13 (rc=$rc)" \
  '[ $rc = 4 ] && [ ! -s out ] && grep -q "the CUDA runtime .half. is incomplete: .* lacks libcublasLt.so.13" err'
PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 "$bin/cudnnenv" exec --verify none --runtime half --why -- "$python" -c "$line" > out 2> err; rc=$?
cat out; tail -12 err
check "--verify none: PyTorch cannot load libcublasLt.so.13 (fenced, not the venv's copy), --why names it (rc=$rc)" \
  '[ $rc != 0 ] && grep -q "$half/libcublasLt.so.13: cannot open shared object file" err && grep -q "^cudnnenv: why: libcublasLt.so.13 did not load" err && grep -q "^  chain: .* -> libcublasLt.so.13" err'
"$bin/cudnnenv" remove half --yes > /dev/null
"$bin/cudnnenv" adopt --heal "$half" --name half > out 2> err; rc=$?
cat out err
check "adopt --heal completes it from the whole runtime (rc=$rc)" \
  "[ $rc = 0 ] && grep -q \"lacks libcublasLt.so.13: 'half' is a store folder of links to its files and that file from '$runtime'\" err"
PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 "$bin/cudnnenv" exec --runtime half --report -- "$python" -c "$line" > out 2> err; rc=$?
cat out; grep -v "^  in the" err | tail -5; grep "^  in the runtime" err | sed 's/^/  /' | head -20
check "PyTorch runs with the healed runtime, cuBLASLt from the healed tree, nothing outside (rc=$rc)" \
  '[ $rc = 0 ] && grep -q "conv max error" out && grep -q "^  in the runtime  $CUDNNENV_ROOT/half/lib/libcublasLt.so.13" err && ! grep -q OUTSIDE err'
exit $failed
