#!/usr/bin/env bash
# On the GPU host (not in CI): PyTorch pinned to each of the two real cuDNN
# versions there, through `exec` and through a shim, with --report; then
# `verify --all --level conv`. Prints everything; exit 1 on a failed check.
#   PyTorch 2.11 is built against cuDNN 9.19 and ships it in its venv;
#   the system has 9.14 in /usr/lib/x86_64-linux-gnu.
# Usage: tests/gpu/torch_pin.sh [BIN] [PYTHON]
set -uo pipefail
bin=${1:-build/release/bin}
python=${2:-/opt/torch/.venv/bin/python3}
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
export CUDNNENV_ROOT=$(mktemp -d)/store
failed=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; failed=1; fi; }

"$bin/cudnnenv" adopt /usr/lib/x86_64-linux-gnu --name system-9.14
"$bin/cudnnenv" adopt "$site/nvidia/cudnn" --name torch-9.19
"$bin/cudnnenv" list

line='import torch; print("version", torch.backends.cudnn.version()); x = torch.randn(2, 16, 24, 24, device="cuda"); y = torch.nn.Conv2d(16, 32, 3, padding=1).cuda()(x); torch.cuda.synchronize(); print("conv ran", tuple(y.shape))'

echo "== torch alone"
"$python" -c "$line" 2>&1 | tail -3
echo "== exec --cudnn torch-9.19 --report"
"$bin/cudnnenv" exec --cudnn torch-9.19 --report -- "$python" -c "$line" > out 2> err; rc=$?
cat out; grep -v "^  in the tree" err | tail -5; grep -c "in the tree" err | sed 's/^/cuDNN files from the tree: /'; grep "in the tree" err | sed 's/^/  /' | head -10
check "9.19: version 91900, a convolution, report only the tree (rc=$rc)" \
  '[ $rc = 0 ] && grep -q "version 91900" out && grep -q "conv ran" out && ! grep -q OUTSIDE err'

echo "== exec --cudnn system-9.14 --report (PyTorch's own check must name 9.14)"
"$bin/cudnnenv" exec --cudnn system-9.14 --report -- "$python" -c "$line" > out 2> err; rc=$?
cat out; grep -i "incompatib\|runtime\|cudnnenv" err | head -8
check "9.14: PyTorch's compatibility check names runtime 9.14.0 (rc=$rc)" 'grep -q "9, 14, 0\|9.14.0" err'

echo "== PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 exec --cudnn system-9.14 --report"
PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 "$bin/cudnnenv" exec --cudnn system-9.14 --report -- "$python" -c "$line" > out 2> err; rc=$?
cat out; grep -v "^  in the tree" err | tail -5; grep "in the tree" err | sed 's/^/  /' | head -10
check "9.14 with the check skipped: version 91400, report only the tree (rc=$rc)" \
  'grep -q "version 91400" out && ! grep -q OUTSIDE err && grep -q "in the tree  /usr/lib/x86_64-linux-gnu/libcudnn" err'

# Without the audit module nothing turns a load by absolute path: PyTorch's own loading of its wheel's
# libcudnn.so.9 maps a second copy (the preloaded one answers cudnnGetVersion), and --report says so.
echo "== exec --mode preload and --mode path --cudnn system-9.14 --report (the store's path has no space)"
for mode in preload path; do
  PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 "$bin/cudnnenv" exec --mode $mode --cudnn system-9.14 --report -- "$python" -c "$line" > out 2> err; rc=$?
  echo "-- $mode (rc=$rc)"; cat out; grep -E "OUTSIDE|report:" err | head -6
  check "--mode $mode: version 91400; --report names the wheel's copy PyTorch loads by absolute path, exit 4 (rc=$rc)" \
    '[ $rc = 4 ] && grep -q "version 91400" out && [ "$(grep OUTSIDE err)" = "  OUTSIDE      $site/nvidia/cudnn/lib/libcudnn.so.9" ]'
done

echo "== through a shim, the global default torch-9.19, then CUDNNENV_VERSION=system-9.14"
"$bin/cudnnenv" use --global torch-9.19 > /dev/null
"$bin/cudnnenv" shim add python3 --target "$python"
shims="$CUDNNENV_ROOT/.cudnnenv/shims"
PATH="$shims:$PATH" python3 -c "$line" > out 2>&1; cat out
check "shim: 91900" 'grep -q "version 91900" out'
PATH="$shims:$PATH" CUDNNENV_VERSION=system-9.14 PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 python3 -c "$line" > out 2>&1; cat out
check "shim with CUDNNENV_VERSION=system-9.14: 91400" 'grep -q "version 91400" out'

echo "== verify --all --level conv"
"$bin/cudnnenv" verify --all --level conv; rc=$?
check "verify --all passes (rc=$rc)" '[ $rc = 0 ]'
"$bin/cudnnenv" verify torch-9.19 --level conv --json > verify.json; cat verify.json | grep '_ms"'
check "verify --json: the timings and the error are numbers, the GPU named" \
  '[ "$("$python" -c "import json; g = json.load(open(\"verify.json\"))[0][\"gpu\"]; print(type(g[\"conv_ms\"]).__name__, type(g[\"max_relative_error\"]).__name__, g[\"gpu\"][:6])")" = "float float NVIDIA" ]'

echo "== exec --report --json (the report: the last line of stderr)"
"$bin/cudnnenv" exec --cudnn torch-9.19 --report --json -- "$python" -c "$line" > out 2> err; rc=$?
tail -1 err | cut -c1-400
check "exec --report --json: every cuDNN file inside the tree, pids named (rc=$rc)" \
  '[ "$(tail -1 err | "$python" -c "import json, sys; r = json.load(sys.stdin); print(r[\"outside\"], len(r[\"files\"]) > 0, all(f[\"inside\"] and f[\"pid\"] > 0 for f in r[\"files\"]))")" = "0 True True" ]'

echo "== a sub-library of the adopted 9.19 hidden: exec refuses before the start"
lib="$site/nvidia/cudnn/lib"
mv "$lib/libcudnn_ops.so.9" "$lib/libcudnn_ops.so.9.hidden"
"$bin/cudnnenv" exec --cudnn torch-9.19 -- "$python" -c "$line" > out 2> err; rc=$?
mv "$lib/libcudnn_ops.so.9.hidden" "$lib/libcudnn_ops.so.9"
cat err
check "exec of torch-9.19 without libcudnn_ops.so.9: exit 4, nothing started (rc=$rc)" \
  '[ $rc = 4 ] && [ ! -s out ] && grep -q "is incomplete" err'
exit $failed
