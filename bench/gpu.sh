#!/usr/bin/env bash
# On the H200 host (issue 26, row 7): the GPU check against its floor and
# against PyTorch, each from process start, interleaved (spawn_timer: each
# command once per round, in turn; medians and 10th/90th percentiles):
#   floor     bench/conv_floor.c: driver, primary context, cuDNN handle,
#             descriptors, one implicit-GEMM convolution, copy back; nothing else
#   verify    cudnnenv verify TREE --level conv (also hashes the tree's files,
#             loads every sub-library, three shapes against a CPU reference),
#             and its phases alone: --level load, --level files
#   torch     PyTorch's one-liner (import torch, one Conv2d on the GPU), fewer rounds
# for the system's cuDNN 9.14 and PyTorch's 9.19; then the launch check
# before a start: `exec --verify conv` (its result cached after the first)
# against `--verify none`, on /bin/true. Aim: verify at most 1.1x the floor.
# Usage: bench/gpu.sh [BIN] [PYTHON] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cd "${1:-build/release/bin}" && pwd)
python=${2:-/opt/torch/.venv/bin/python3}
rounds=${3:-9}
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-gpu-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CUDNNENV_ROOT=$work/store
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_VERIFY
cc -O2 -o "$work/spawn_timer" bench/spawn_timer.c
cc -O2 -o "$work/conv_floor" bench/conv_floor.c -ldl
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$bin/cudnnenv" adopt /usr/lib/x86_64-linux-gnu --name system-9.14 > /dev/null
"$bin/cudnnenv" adopt "$site/nvidia/cudnn/lib" --name torch-9.19 > /dev/null
torch_line="import torch; x = torch.randn(2, 16, 24, 24, device='cuda'); y = torch.nn.Conv2d(16, 32, 3, padding=1).cuda()(x); torch.cuda.synchronize()"
echo "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), $(nproc) CPUs, $(uname -r)"
median_of() { awk -v name="$1" '$1 == name { print $3 }'; }
for tree in system-9.14 torch-9.19; do
  library=$("$bin/cudnnenv" which --cudnn "$tree" 2> /dev/null | head -1)
  "$work/conv_floor" "$library" > /dev/null || { echo "the floor program fails with $library"; exit 1; }
  echo "== $tree ($library), $rounds rounds"
  # Its phases too, each alone from process start: the files level (every file hashed) and the load level
  # (that, and the library and each sub-library loaded in children), which --level conv runs beside the GPU
  # check.
  "$work/spawn_timer" "$rounds" "$work/conv_floor" "$library" ::: "$bin/cudnnenv" verify "$tree" --level conv ::: \
    "$bin/cudnnenv" verify "$tree" --level load ::: "$bin/cudnnenv" verify "$tree" --level files | tee "$work/times"
  floor=$(awk 'NR == 1 { print $3 }' "$work/times")
  ours=$(awk 'NR == 2 { print $3 }' "$work/times")
  awk -v f="$floor" -v o="$ours" 'BEGIN { printf "verify --level conv / floor: %.2f (aim: at most 1.1)\n", o / f }'
done
echo "== PyTorch's one-liner, 3 rounds"
"$work/spawn_timer" 3 "$python" -c "$torch_line"
echo "== the launch check before a start, cached, against none ($((rounds * 20)) rounds)"
"$bin/cudnnenv" exec --cudnn system-9.14 --verify conv -- /bin/true  # the first pays; the rest read the cache
"$work/spawn_timer" $((rounds * 20)) "$bin/cudnnenv" exec --cudnn system-9.14 --verify conv -- /bin/true ::: \
  "$bin/cudnnenv" exec --cudnn system-9.14 --verify none -- /bin/true | tee "$work/times"
awk 'NR == 1 { c = $3 } NR == 2 { n = $3 } END { printf "exec with the cached conv check / with none: %.3f\n", c / n }' "$work/times"
