#!/usr/bin/env bash
# On the GPU host (not in CI): issue 30's checks that one GPU allows.
# `verify --level conv --device all` of a cuDNN tree runs one row per GPU
# (the driver started once) and of a CUDA runtime tree the SGEMM per GPU;
# `--device N` past the last GPU says there is no such GPU (exit 5), as do
# a list naming one and an empty CUDA_VISIBLE_DEVICES; `--device all` costs
# what `--device 0` does on one GPU (interleaved runs, medians); doctor
# --verify. Prints everything; exit 1 on a failed check.
# Usage: tests/gpu/devices.sh [BIN] [PYTHON] [ROUNDS]
set -uo pipefail
bin=${1:-build/release/bin}
python=${2:-/opt/torch/.venv/bin/python3}
rounds=${3:-7}
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
export CUDNNENV_ROOT=$(mktemp -d)/store
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED
failed=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; failed=1; fi; }
gpus=$(nvidia-smi -L | wc -l)
echo "== $gpus GPU(s): $(nvidia-smi -L | tr '\n' ' ')"

"$bin/cudnnenv" adopt /usr/lib/x86_64-linux-gnu --name system-9.14 > /dev/null
"$bin/cudnnenv" adopt "$site/nvidia/cudnn/lib" --name torch-9.19 > /dev/null
"$bin/cudnnenv" adopt "$site/nvidia/cu13/lib" > /dev/null
runtime=$("$bin/cudnnenv" list --json | "$python" -c 'import json,sys; print([t["name"] for t in json.load(sys.stdin) if t["kind"] == "cuda"][0])')

for tree in system-9.14 torch-9.19; do
  echo "== verify $tree --level conv --device all"
  "$bin/cudnnenv" verify "$tree" --level conv --device all | tee out; rc=${PIPESTATUS[0]}
  check "$tree --device all: exit 0, one row per GPU ($gpus), each passing" \
    "[ $rc = 0 ] && [ \$(grep -cE '^        [0-9]+ +NVIDIA' out) = $gpus ] && grep -q 'ok    conv: $gpus of $gpus GPU' out"
  "$bin/cudnnenv" verify "$tree" --level conv --device all --json > out.json; rc=$?
  "$python" -c 'import json; r = json.load(open("out.json"))[0]; print(json.dumps(r["devices"], indent=1)); print(json.dumps(r["gpu"]))'
  check "$tree --device all --json: one entry per GPU with result pass" \
    "[ $rc = 0 ] && \"$python\" -c 'import json, sys; d = json.load(open(\"out.json\"))[0][\"devices\"]; sys.exit(not (len(d) == $gpus and all(x[\"result\"] == \"pass\" and x[\"index\"] == i for i, x in enumerate(d))))'"
done

echo "== verify $runtime --level conv --device all (cuBLAS's SGEMM on each GPU)"
"$bin/cudnnenv" verify "$runtime" --level conv --device all | tee out; rc=${PIPESTATUS[0]}
check "the runtime's SGEMM on each GPU (rc=$rc)" "[ $rc = 0 ] && grep -q 'ok    sgemm: $gpus of $gpus GPU' out"

echo "== no such GPU"
"$bin/cudnnenv" verify system-9.14 --level conv --device "$gpus" > out 2>&1; rc=$?
cat out
check "--device $gpus: exit 5, 'no GPU $gpus ($gpus present)'" "[ $rc = 5 ] && grep -q 'skip  conv: no GPU $gpus ($gpus present)' out"
"$bin/cudnnenv" verify system-9.14 --level conv --device "0,$gpus" > out 2>&1; rc=$?
check "--device 0,$gpus: exit 5, the missing one named, nothing run" "[ $rc = 5 ] && grep -q 'no GPU $gpus ($gpus present)' out"
CUDA_VISIBLE_DEVICES= "$bin/cudnnenv" verify system-9.14 --level conv --device all > out 2>&1; rc=$?
cat out
check "CUDA_VISIBLE_DEVICES empty: exit 5, no GPU" "[ $rc = 5 ] && grep -q 'skip  conv:' out"

echo "== the cost of --device all against --device 0, $rounds rounds interleaved (ms, whole command)"
for round in $(seq "$rounds"); do
  for mode in 0 all; do
    start=$(date +%s%N)
    "$bin/cudnnenv" verify system-9.14 --level conv --device "$mode" > /dev/null 2>&1
    echo "$mode $(( ($(date +%s%N) - start) / 1000000 ))" >> times
  done
done
"$python" - <<'PY'
import statistics
times = {}
for line in open("times"):
    mode, ms = line.split()
    times.setdefault(mode, []).append(int(ms))
m0, mall = statistics.median(times["0"]), statistics.median(times["all"])
print(f"--device 0: median {m0} ms {sorted(times['0'])}; --device all: median {mall} ms {sorted(times['all'])}; ratio {mall / m0:.3f}")
PY

echo "== doctor --verify"
"$bin/cudnnenv" use system-9.14 --global > /dev/null
"$bin/cudnnenv" doctor --verify > out 2>&1; rc=$?
grep -A3 "verify" out | head -8
check "doctor --verify passes its verify check" "grep -qE '^ *ok +verify' out || grep -q 'a convolution on' out"
exit $failed
