#!/usr/bin/env bash
# On the GPU host (not in CI): issue 61's NCCL row with real PyTorch.
# PyTorch's own NCCL (site-packages/nvidia/nccl/lib, or wherever the venv
# holds libnccl.so.2), copied to a folder of its own and adopted as an NCCL
# tree: its release and CUDA from the library's version string; verify loads
# it and reads ncclGetVersion; a one-GPU torch.distributed all-reduce (the
# NCCL backend, world size 1) run through `exec --report` sums right, PyTorch
# reports the adopted release, and the report marks libnccl.so.2 "in NCCL"
# from the copy (past the RUNPATH that finds the venv's own), nothing OUTSIDE.
# Prints everything; exit 1 on a failed check.
# Usage: tests/gpu/nccl.sh [BIN] [PYTHON]
set -uo pipefail
bin=${1:-build/release/bin}
python=${2:-/opt/torch/.venv/bin/python3}
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
scratch=$(mktemp -d)
export CUDNNENV_ROOT=$scratch/store
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED
failed=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; failed=1; fi; }

own=$(find "$site/nvidia" -name 'libnccl.so.2' | head -1)
echo "== PyTorch's NCCL: $own"
grep -a -o -m1 'NCCL version [0-9.]*+cuda[0-9.]*' "$own" || echo "(no version string)"
mkdir -p "$scratch/nccl/lib" && cp "$own" "$scratch/nccl/lib/"
"$bin/cudnnenv" adopt /usr/lib/x86_64-linux-gnu --name system-9.14
"$bin/cudnnenv" adopt "$(dirname "$(find "$site/nvidia" -name 'libcudart.so.*' | head -1)")"
"$bin/cudnnenv" adopt "$scratch/nccl/lib" | tee out
nccl=$("$bin/cudnnenv" list --json | "$python" -c 'import json,sys; print([t["name"] for t in json.load(sys.stdin) if t["kind"] == "nccl"][0])')
check "adopt: an NCCL tree named by the release its library says ($nccl)" 'grep -q "^adopted .nccl-2\.[0-9]*\.[0-9]*.: NCCL 2\." out'
"$bin/cudnnenv" list
"$bin/cudnnenv" use system-9.14 --global
echo "== current"
"$bin/cudnnenv" current | tee out
check "current: NCCL paired with the system cuDNN (its CUDA major)" "grep -q '^NCCL .*  $nccl  (chosen by the CUDA major' out"
echo "== verify $nccl --level load"
"$bin/cudnnenv" verify "$nccl" --level load | tee out; rc=${PIPESTATUS[0]}
check "verify loads it and reads ncclGetVersion (rc=$rc)" '[ $rc = 0 ] && grep -q "(ncclGetVersion)" out'

line='import os, torch, torch.distributed as dist
os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29533")
dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
t = torch.arange(4, dtype=torch.float32, device="cuda")
dist.all_reduce(t); torch.cuda.synchronize()
print("allreduce", t.tolist())
print("nccl", ".".join(map(str, torch.cuda.nccl.version())))
dist.destroy_process_group()'
release=$("$bin/cudnnenv" list --json | "$python" -c 'import json,sys; print([t["version"] for t in json.load(sys.stdin) if t["kind"] == "nccl"][0])')
echo "== plain: PyTorch finds its own NCCL"
"$python" -c "import torch, torch.distributed; print('nccl', '.'.join(map(str, torch.cuda.nccl.version())))"
echo "== exec --report: a torch.distributed all-reduce on one GPU with the NCCL backend"
PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 "$bin/cudnnenv" exec --report -- "$python" -c "$line" > out 2> err; rc=$?
cat out; grep -v "^  in \|^  OUTSIDE" err | tail -5; grep "^  in NCCL\|^  OUTSIDE" err
check "the all-reduce ran with the NCCL backend (rc=$rc) and PyTorch reports NCCL $release" \
  '[ $rc = 0 ] && grep -qx "allreduce \[0.0, 1.0, 2.0, 3.0\]" out && grep -qx "nccl $release" out'
check "--report: libnccl.so.2 from the adopted copy, in NCCL; nothing outside" \
  'grep -qx "  in NCCL  *$scratch/nccl/lib/libnccl.so.2" err && ! grep -q OUTSIDE err && [ "$(grep -c "^  in NCCL" err)" = 1 ]'
rm -rf "$scratch"
exit $failed
