#!/usr/bin/env bash
# On a GPU host: `cudnnenv verify --level conv` from process start to exit
# against PyTorch's one-liner (import torch, one Conv2d on the GPU), several
# runs each, interleaved. Both check a convolution with cuDNN; cudnnenv also
# hashes the tree's files and loads every sub-library first.
# Usage: bench/verify_vs_torch.sh TREE [PYTHON] [ROUNDS]   (CUDNNENV_ROOT set, TREE installed or adopted)
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$1
python=${2:-python3}
rounds=${3:-3}
cudnnenv=${CUDNNENV:-$PWD/build/release/bin/cudnnenv}
torch_line="import torch; x = torch.randn(2, 16, 24, 24, device='cuda'); y = torch.nn.Conv2d(16, 32, 3, padding=1).cuda()(x); torch.cuda.synchronize(); print(torch.backends.cudnn.version())"

now() { date +%s.%N; }
ours=()
theirs=()
for round in $(seq 1 "$rounds"); do
  start=$(now); "$cudnnenv" verify "$tree" --level conv > /dev/null; end=$(now)
  ours+=("$(awk "BEGIN { print $end - $start }")")
  start=$(now); "$python" -c "$torch_line" > /dev/null; end=$(now)
  theirs+=("$(awk "BEGIN { print $end - $start }")")
done
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
o=$(printf '%s\n' "${ours[@]}" | median)
t=$(printf '%s\n' "${theirs[@]}" | median)
echo "cudnnenv verify --level conv: ${ours[*]} s"
echo "python torch Conv2d:          ${theirs[*]} s"
awk -v o="$o" -v t="$t" -v r="$rounds" 'BEGIN { printf "medians of %d: cudnnenv %.2f s, PyTorch %.2f s: %.1f times faster\n", r, o, t, t / o }'
