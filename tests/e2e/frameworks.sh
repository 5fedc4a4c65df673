#!/usr/bin/env bash
# cudnnenv frameworks (issue 45): stub frameworks in a venv of Debian's
# python3 (framework_stubs.sh: the real package names, the functions the probe
# calls, the files the reader reads), with metadata that says less than the
# binary needs, as jax-cuda12-plugin's did (jax-ml/jax#29315). From files
# JAX needs 9.1; probed it needs 9.8, and its cudnn_get_version() loads the
# pinned tree by name. --solve picks the one installed tree for a compatible
# pair and names the split for PyTorch built for CUDA 13 beside TensorFlow
# built for CUDA 12; doctor --probe says the same. Probes that hang, crash or
# exit are reported, never inherited. A project's own torch.py is not what
# the probe imports. With this machine's real cuDNN 9 (/usr/local/cuda-13.0),
# a probe under it loads it.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/trees.sh"
source "$E2E_DIR/framework_stubs.sh"
/usr/bin/python3 -m venv --without-pip "$WORK/venv" 2> /dev/null || { echo "skip: Debian's python3 cannot make a venv"; exit 77; }
export CUDNNENV_ROOT="$WORK/store" HOME="$WORK/home" LC_ALL=C.UTF-8
unset LD_LIBRARY_PATH CUDNNENV_VERSION CUDNNENV_ACTIVATED CONDA_PREFIX VIRTUAL_ENV
export PATH="$WORK/venv/bin:/usr/bin:/bin"
site=$(echo "$WORK"/venv/lib/python3*/site-packages)
mkdir -p home
# A small official list of our own, so that the archive --solve names stays the same.
sha=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
{
  printf 'cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n'
  for row in "9.10.2.21 cuda12" "9.19.0.56 cuda12" "9.19.0.56 cuda13"; do
    read -r v c <<< "$row"
    f="cudnn-linux-x86_64-${v}_${c}-archive.tar.xz"
    printf '%s\tlinux-x86_64\t%s\t%s\t%s\t?\thttps://example.invalid/%s\n' "$v" "$c" "$f" "$sha" "$f"
  done
} > index.tsv
export CUDNNENV_INDEX="$WORK/index.tsv"
for v in 9.1.0 9.4.0; do
  make_linux_tree "t$v" "$v" "$FIXTURES/fake-elf64-$v.so"
  run install "t$v" --name "t${v%.0}"
  expect_eq "$rc" "0" "install t$v: $(cat err)"
done
py="$WORK/venv/bin/python"

# 1. PyTorch 2.5.1 (its wheel's cuDNN 9.1.0, built 9.1.0) and JAX 0.6.2, whose plugin's metadata
# accepts 9.1 but whose binary was built with 9.8.
stub_torch 2.5.1+cu124 12.4 9.1.0 nvidia-cudnn-cu12==9.1.0.70
mkdir -p "$site/nvidia/cudnn/lib" && cp "$FIXTURES/fake-elf64-9.1.0.so" "$site/nvidia/cudnn/lib/libcudnn.so.9"
stub_jax 0.6.2 12 90800 'nvidia-cudnn-cu12<10.0,>=9.1'
run frameworks --cudnn t9.4
expect_eq "$rc" "0" "frameworks from files: $(cat err)"
expect_eq "$(cat out)" "$py (selected: 't9.4', cuDNN 9.4.0)
PyTorch 2.5.1+cu124: needs cuDNN 9.1 or a newer 9.x for CUDA 12 (files: torch/version.py and its own cuDNN)
  its metadata says nvidia-cudnn-cu12==9.1.0.70
JAX 0.6.2: needs cuDNN 9.1 or a newer 9.x for CUDA 12 (files: jax-cuda12-plugin's METADATA)
  its metadata says nvidia-cudnn-cu12<10.0,>=9.1" "frameworks from files"
run frameworks --probe --cudnn t9.4
expect_eq "$rc" "0" "frameworks --probe: $(cat err)"
expect_eq "$(cat out)" "$py (selected: 't9.4', cuDNN 9.4.0)
PyTorch 2.5.1+cu124: needs cuDNN 9.1 or a newer 9.x for CUDA 12 (probe: torch._C._cudnn.getCompileVersion())
  its metadata says nvidia-cudnn-cu12==9.1.0.70
  loaded cuDNN 9.4.0, which it runs with
JAX 0.6.2: needs cuDNN 9.8 or a newer 9.x for CUDA 12 (probe: jax._src.lib.cuda_versions.cudnn_build_version())
  its metadata says nvidia-cudnn-cu12<10.0,>=9.1
  loaded cuDNN 9.4.0, which it cannot run with: it needs cuDNN 9.8 or a newer 9.x for CUDA 12; 9.4.0 is older" \
  "frameworks --probe: what the binaries need, and what loaded under the pin"
pass "from files JAX needs 9.1 (its metadata); probed, 9.8 (its binary), and the pinned 9.4.0 is what loaded"

# 2. --solve: no installed tree runs JAX's 9.8 for CUDA 12 (a 9.19 for CUDA 13 is installed): the newest
# archive of the list for CUDA 12; then an installed 9.21 for CUDA 12 is the pick, and the command it
# prints selects it.
make_linux_tree t9.19.0 9.19.0 "$FIXTURES/fake-elf64-9.19.0.so"
run install t9.19.0 --name t9.19
run frameworks --probe --solve --cudnn t9.4
expect_eq "$(tail -n 3 out)" "
one cuDNN runs all 2: '9.19.0+cuda12' (cuDNN 9.19.0.56, CUDA 12, from the official list)
  select it: cudnnenv install 9.19.0+cuda12 && cudnnenv use 9.19.0+cuda12" "--solve with nothing installed that fits"
make_linux_tree t9.21.0 9.21.0 "$FIXTURES/fake-elf64-9.21.0-cuda12.so"
run install t9.21.0 --name t9.21
run frameworks --probe --solve
expect_eq "$rc" "0" "--solve: $(cat err)"
expect_eq "$(tail -n 3 out)" "
one cuDNN runs all 2: 't9.21' (cuDNN 9.21.0, CUDA 12.9, installed)
  select it: cudnnenv use t9.21" "--solve picks the installed tree"
expect_eq "$(head -n 1 out)" "$py (nothing selected: what the plain search finds)" "the head with nothing selected"
run frameworks --probe --solve --json
expect_eq "$(python3 -c 'import json, sys; j = json.load(open("out")); print(j["solve"]["cudnn"]["name"], j["solve"]["command"], [f["cudnn_built"] for f in j["frameworks"]], j["frameworks"][1]["metadata"])')" \
  "t9.21 cudnnenv use t9.21 ['9.1.0', '9.8.0'] nvidia-cudnn-cu12<10.0,>=9.1" "--solve --json"
pass "--solve: the newest archive when nothing installed fits, the installed 9.21 when it does; --json says the same"

# 3. doctor: from files all is well with t9.4; --probe fails JAX with its own words and --solve's fix.
frameworks_status() { python3 -c 'import json; print([c["status"] for c in json.load(open("out"))["checks"] if c["id"] == "frameworks"][0])'; }
run doctor --cudnn t9.4 --json
expect_eq "$(frameworks_status)" "ok" "doctor from files"
run doctor --probe --cudnn t9.4
sed -n '/^fail frameworks:/,/^$/p' out | grep -v '^    ' > doctor.txt
expect_eq "$(cat doctor.txt)" "fail frameworks: JAX 0.6.2 was built with cuDNN 9.8.0; the selected tree is 9.4.0
  you see:  'RuntimeError: Found cuDNN version 90400, but JAX was built against version 90800, which is newer. ...'
  because:  JAX needs cuDNN 9.8 or a newer 9.x for CUDA 12; 9.4.0 is older (probe: jax._src.lib.cuda_versions.cudnn_build_version()); its metadata says only nvidia-cudnn-cu12<10.0,>=9.1
  fix:      cudnnenv use t9.21" "doctor --probe"
expect_eq "$rc" "1" "doctor --probe fails"
run doctor --probe --cudnn t9.21 --json
expect_eq "$(frameworks_status)" "ok" "doctor --probe with the tree the fix names"
pass "doctor: ok from files, fail with --probe (JAX's own words; the fix is --solve's), ok with the tree it names"

# 4. PyTorch built for CUDA 13 beside TensorFlow 2.18 (CUDA 12.5, its tested cuDNN 9.3): no single cuDNN.
stub_remove torch jax && rm -rf "$site/nvidia"
stub_torch 2.11.0+cu130 13.0 9.19.0 nvidia-cudnn-cu13==9.19.0.56
stub_tensorflow 2.18.0 12.5.1 9
run frameworks --probe --solve --cudnn t9.21
expect_eq "$rc" "1" "--solve with no single cuDNN"
expect_eq "$(cat out)" "$py (selected: 't9.21', cuDNN 9.21.0)
TensorFlow 2.18.0: needs cuDNN 9.3 or a newer 9.x for CUDA 12 (probe: tf.sysconfig.get_build_info() (the major); files: tensorflow/python/platform/build_info.py and profile tf2.18)
PyTorch 2.11.0+cu130: needs cuDNN 9.19 or a newer 9.x for CUDA 13 (probe: torch._C._cudnn.getCompileVersion())
  its metadata says nvidia-cudnn-cu13==9.19.0.56
  loaded cuDNN 9.21.0, which it runs with

no single cuDNN runs both TensorFlow 2.18.0 and PyTorch 2.11.0+cu130: TensorFlow needs cuDNN 9.3 or a newer 9.x for CUDA 12, PyTorch needs cuDNN 9.19 or a newer 9.x for CUDA 13
  split them: an environment each (a .cudnnenv.toml each), or each program with its own:
    TensorFlow 2.18.0: cudnnenv exec --cudnn t9.21 -- python
    PyTorch 2.11.0+cu130: cudnnenv exec --cudnn t9.19 -- python" \
  "--solve names the split"
run doctor --probe --cudnn t9.21
sed -n '/^fail frameworks:/,/^$/p' out | grep -v '^    ' > doctor.txt
expect_eq "$(cat doctor.txt)" "fail frameworks: PyTorch 2.11.0+cu130 was built for CUDA 13; the selected tree is built for CUDA 12.9
  you see:  a load error naming a CUDA 12 library (libcublasLt.so.12), or CUDNN_STATUS_* errors at the first cuDNN call: this cuDNN needs CUDA 12's runtime beside the CUDA 13 one PyTorch loads
  because:  PyTorch needs cuDNN 9.19 or a newer 9.x for CUDA 13; this cuDNN is built for CUDA 12 (probe: torch._C._cudnn.getCompileVersion()); its metadata says only nvidia-cudnn-cu13==9.19.0.56
  fix:      no single cuDNN runs both TensorFlow 2.18.0 and PyTorch 2.11.0+cu130: TensorFlow needs cuDNN 9.3 or a newer 9.x for CUDA 12, PyTorch needs cuDNN 9.19 or a newer 9.x for CUDA 13: 'cudnnenv frameworks --solve' names a cuDNN for each" \
  "doctor --probe with the pair no cuDNN runs"
pass "PyTorch for CUDA 13 and TensorFlow for CUDA 12: --solve names the split, each part a command; doctor --probe the same"

# 5. Probes that hang, crash or exit: each reported with what happened; the others still answer; never
# cudnnenv's own death or exit code.
stub_remove tensorflow
stub_onnxruntime 1.22.0 12.8 9.8
printf 'import time\ntime.sleep(60)\n' >> "$site/onnxruntime/__init__.py"
printf 'import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n' >> "$site/torch/__init__.py"
SECONDS=0
run frameworks --probe --timeout 2
expect_eq "$rc" "1" "a failed probe"
[ "$SECONDS" -lt 20 ] || fail "the hung probe was not stopped at its timeout ($SECONDS s)"
expect_eq "$(cat out)" "$py (nothing selected: what the plain search finds)
PyTorch 2.11.0+cu130: the probe failed: killed by signal 11 (SIGSEGV) while importing torch
  from its files: nothing known (files: torch/version.py and its own cuDNN)
  its metadata says nvidia-cudnn-cu13==9.19.0.56
ONNX Runtime 1.22.0: the probe failed: timed out after 2 s, and was stopped
  from its files: needs cuDNN 9.8 or a newer 9.x for CUDA 12 (files: onnxruntime/capi/build_and_package_info.py)
  its metadata says nvidia-cudnn-cu12~=9.0
  does not check at load: a cuDNN it cannot use fails at its first call" "a crash and a hang"
stub_remove torch
printf 'import os\nos._exit(3)\n' > "$site/onnxruntime/__init__.py"
run frameworks --probe
expect_eq "$(sed -n 2p out)" "ONNX Runtime 1.22.0: the probe failed: exit code 3: the probe printed no answer" "an exit"
printf 'raise ImportError("libcublasLt.so.12: cannot open shared object file")\n' > "$site/onnxruntime/__init__.py"
run frameworks --probe
expect_eq "$(sed -n 2p out)" "ONNX Runtime 1.22.0: the probe failed: ImportError: libcublasLt.so.12: cannot open shared object file" \
  "an import error, in the framework's words"
pass "a probe that crashes, hangs, exits or fails to import is reported as such; cudnnenv ends with 1, after the timeout"

# 6. The probe imports the framework of the Python that runs, never a project's own module of that name,
# and its text reaches the terminal escaped.
stub_remove onnxruntime
stub_torch $'2.5.1\e[2J' 12.4 9.1.0
mkdir -p project && printf 'open("%s/PWNED", "w").close()\n' "$WORK" > project/torch.py
(cd project && run frameworks --probe; cp out ../project.out)
[ ! -e "$WORK/PWNED" ] || fail "the probe imported the project's torch.py"
expect_eq "$(sed -n 2p project.out)" 'PyTorch 2.5.1\x1b[2J: needs cuDNN 9.1 or a newer 9.x for CUDA 12 (probe: torch._C._cudnn.getCompileVersion())' \
  "the probed version, escaped"
pass "the probe does not import the working folder's torch.py; a version with an escape reaches the terminal escaped"

# 7. This machine's real cuDNN 9, adopted: a probe under it loads it by name and says so.
REAL=${CUDNNENV_REAL_CUDNN:-/usr/local/cuda-13.0}
if [ -e "$REAL/lib/libcudnn.so.9" ] && [ -e "$REAL/include/cudnn_version.h" ]; then
  run adopt "$REAL" --name real
  expect_eq "$rc" "0" "adopt: $(cat err)"
  real=$(awk '/#define CUDNN_MAJOR /{a=$3} /#define CUDNN_MINOR /{b=$3} /#define CUDNN_PATCHLEVEL /{c=$3} END{print a"."b"."c}' \
    "$REAL/include/cudnn_version.h")
  stub_remove torch
  stub_torch 2.11.0+cu130 13.0 9.1.0
  run frameworks --probe --cudnn real
  expect_eq "$(sed -n 3p out)" "  loaded cuDNN $real, which it runs with" "a probe under the real tree"
  pass "a probe under the adopted real cuDNN $real loads it"
else
  echo "note: no real cuDNN 9 in $REAL: section 7 not run"
fi
