#!/usr/bin/env bash
# On the GPU host (not in CI): doctor and snapshot with the real driver, the
# H200, the system's cuDNN 9.14 and PyTorch's 9.19, for PyTorch's Python;
# a snapshot, `use` switching trees, a second snapshot and their diff; then
# doctor --verify (a convolution). Prints everything; exit 1 on a failed check.
# Usage: tests/gpu/doctor.sh [BIN] [PYTHON] [OUT]
set -uo pipefail
bin=$(cd "${1:-build/release/bin}" && pwd)
python=${2:-/opt/torch/.venv/bin/python3}
out=${3:-${OUT:-.}}
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
export CUDNNENV_ROOT=$(mktemp -d)/store
export PATH="$(dirname "$python"):$PATH"
failed=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; failed=1; fi; }
field() { python3 -c 'import json, sys; c = {x["id"]: x for x in json.load(open(sys.argv[1]))["checks"]}; print(c[sys.argv[2]][sys.argv[3]])' "$@"; }

"$bin/cudnnenv" adopt /usr/lib/x86_64-linux-gnu --name system-9.14 > /dev/null
"$bin/cudnnenv" adopt "$site/nvidia/cudnn" --name torch-9.19 > /dev/null
"$bin/cudnnenv" use --global torch-9.19 > /dev/null

echo "== doctor --for python3 (torch-9.19 selected)"
start=$(date +%s%N)
"$bin/cudnnenv" doctor --for python3; rc=$?
echo "(exit $rc, $(( ($(date +%s%N) - start) / 1000000 )) ms)"
"$bin/cudnnenv" doctor --for python3 --json > "$out/doctor.json"
# (torch-9.19 is built with CUDA 13.1: a 580 driver runs it by minor-version compatibility, a warning.)
check "the driver's version is read" 'field "$out/doctor.json" driver summary | grep -Eq "^[0-9]{3}\.[0-9]+"'
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
check "the GPU is named ($gpu_name)" 'field "$out/doctor.json" gpu summary | grep -qF "$gpu_name"'
check "copy-wins names what python3 loads" 'field "$out/doctor.json" copy-wins summary | grep -q "libcudnn.so.9"'
check "bundled-copies names PyTorch's copy" 'field "$out/doctor.json" bundled-copies summary | grep -q "nvidia/cudnn/lib"'
check "frameworks ok with 9.19" '[ "$(field "$out/doctor.json" frameworks status)" = ok ]'
"$bin/cudnnenv" snapshot --for python3 -o "$out/before.json"

echo "== use --global system-9.14; doctor --for python3"
"$bin/cudnnenv" use --global system-9.14 > /dev/null
"$bin/cudnnenv" doctor --for python3 --json > "$out/doctor-9.14.json"
"$bin/cudnnenv" doctor --for python3
check "frameworks fails with 9.14 (PyTorch's own check)" '[ "$(field "$out/doctor-9.14.json" frameworks status)" = fail ]'
"$bin/cudnnenv" snapshot --for python3 -o "$out/after.json"
echo "== snapshot diff before.json after.json"
"$bin/cudnnenv" snapshot diff "$out/before.json" "$out/after.json" | tee "$out/diff.txt"
check "the diff shows the switch" 'grep -qx "changed  selection.version: 9.19.0 -> 9.14.0" "$out/diff.txt"'

echo "== doctor --verify (torch-9.19)"
"$bin/cudnnenv" use --global torch-9.19 > /dev/null
"$bin/cudnnenv" doctor --for python3 --verify --json > "$out/verify.json"
field "$out/verify.json" verify summary
check "doctor --verify: a convolution passes" '[ "$(field "$out/verify.json" verify status)" = ok ]'
exit $failed
