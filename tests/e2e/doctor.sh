#!/usr/bin/env bash
# cudnnenv doctor and snapshot, each failure staged on purpose: a decoy copy
# earlier in python's search order, a cudnn_version.h of another version, a
# file of a tree changed after install (by size; by content with --deep), a
# TensorFlow whose build_info.py pairs it with another cuDNN, a PyTorch with
# its own cuDNN (the nvidia-cudnn wheel through libtorch_cuda.so's RUNPATH). Each check is read by id from --json: its status, and a
# fix that names the right path. Then snapshot, `use`, snapshot, diff.
CUDNNENV=$1
FIXTURES=$2
# A real pyenv, when this machine has one (section 7), found before PATH is narrowed.
PYENV_REAL=$(readlink -f "$(command -v pyenv 2> /dev/null || echo "$HOME/.pyenv/bin/pyenv")" 2> /dev/null || true)
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store" HOME="$WORK/home"
unset LD_LIBRARY_PATH CUDA_HOME CUDA_PATH CUDA_ROOT CUDNN_INCLUDE_DIR CUDNN_PATH CONDA_PREFIX CUDNNENV_VERSION
mkdir -p home venv/bin
# A 64-bit program named python (never started: doctor reads its headers).
cp /bin/true venv/bin/python
export PATH="$WORK/venv/bin:/usr/bin:/bin" VIRTUAL_ENV="$WORK/venv"
site="$WORK/venv/lib/python3.11/site-packages"
mkdir -p "$site"

# check ID FIELD: a field of one check in doctor --json's output (in `out`).
check() {
  python3 -c '
import json, sys
checks = {c["id"]: c for c in json.load(open("out"))["checks"]}
value = checks[sys.argv[1]][sys.argv[2]]
print(value if isinstance(value, str) else json.dumps(value))' "$1" "$2"
}

make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
make_linux_tree t94 9.4.0 "$FIXTURES/fake-elf64-9.4.0.so"
run install t91 --name t9.1 && run install t94 --name t9.4
run use --global t9.4
expect_eq "$rc" "0" "use --global ($(cat err))"
tree_words="'t9.4' (cuDNN 9.4.0, CUDA 12.4)"

# 1. A decoy copy earlier in python's search order (LD_LIBRARY_PATH).
mkdir decoy && cp "$FIXTURES/fake-elf64-9.2.0.so" decoy/libcudnn.so.9
LD_LIBRARY_PATH="$WORK/decoy:$WORK/other lib" run doctor --json
expect_eq "$(check copy-wins status)" "warn" "copy-wins with a decoy on LD_LIBRARY_PATH"
expect_eq "$(check copy-wins summary)" "python loads '$WORK/decoy/libcudnn.so.9' (9.2.0), not the selected tree" \
  "copy-wins summary"
expect_eq "$(check copy-wins cause)" "'$WORK/decoy' (LD_LIBRARY_PATH) comes before the selected tree $tree_words in python's search order" \
  "copy-wins cause"
expect_eq "$(check copy-wins fix)" "run it pinned: 'cudnnenv shim add python' (then python on PATH loads the selected tree), or 'cudnnenv exec -- python ...'; or take '$WORK/decoy' out of LD_LIBRARY_PATH: 'export LD_LIBRARY_PATH=\"$WORK/other lib\"' here, and the same in the shell's rc file (~/.bashrc) that sets it" \
  "copy-wins fix"
# The fix's command, run as written, leaves the other folder and takes the decoy out.
fixed=$(LD_LIBRARY_PATH="$WORK/decoy:$WORK/other lib" bash -c "$(check copy-wins fix | sed "s/.*LD_LIBRARY_PATH: '\([^']*\)' here.*/\1/")"'; printf %s "$LD_LIBRARY_PATH"')
expect_eq "$fixed" "$WORK/other lib" "LD_LIBRARY_PATH after the fix's command"
LD_LIBRARY_PATH="$fixed" run doctor --json
case "$(check copy-wins summary)" in *decoy*) fail "the decoy still wins after the fix: $(check copy-wins summary)" ;; esac
pass "a decoy on LD_LIBRARY_PATH: copy-wins warns, names the decoy and a fix that takes its folder out"

# The same in words: the table's row, then the block with symptom, cause, fix.
LD_LIBRARY_PATH="$WORK/decoy" run doctor
grep -qx "warn  copy-wins          python loads '$WORK/decoy/libcudnn.so.9' (9.2.0), not the selected tree" out ||
  fail "the table row: $(cat out)"
# (Copies this machine has in the ld.so cache may follow as "skips" lines.)
sed -n "/^warn copy-wins:/,/^\$/p" out | head -5 > block
expect_eq "$(cat block)" "warn copy-wins: python loads '$WORK/decoy/libcudnn.so.9' (9.2.0), not the selected tree
  you see:  a plain 'python' gets cuDNN 9.2.0 from '$WORK/decoy/libcudnn.so.9' (TensorFlow logs 'Loaded cuDNN version ...'; torch.backends.cudnn.version())
  because:  '$WORK/decoy' (LD_LIBRARY_PATH) comes before the selected tree $tree_words in python's search order
  fix:      run it pinned: 'cudnnenv shim add python' (then python on PATH loads the selected tree), or 'cudnnenv exec -- python ...'; or take '$WORK/decoy' out of LD_LIBRARY_PATH: 'unset LD_LIBRARY_PATH' here, and the same in the shell's rc file (~/.bashrc) that sets it
    loads  $WORK/decoy/libcudnn.so.9  (9.2.0, LD_LIBRARY_PATH)" "the copy-wins block"
pass "the human output: a row per check, then symptom, cause and fix"

# A program named by its path gets exec only: a shim goes by a name on PATH ('shim add' refuses a path).
LD_LIBRARY_PATH="$WORK/decoy" run doctor --json --for "$WORK/venv/bin/python"
expect_eq "$(check copy-wins fix)" "run it pinned: 'cudnnenv exec -- \"$WORK/venv/bin/python\" ...'; or take '$WORK/decoy' out of LD_LIBRARY_PATH: 'unset LD_LIBRARY_PATH' here, and the same in the shell's rc file (~/.bashrc) that sets it" \
  "copy-wins fix for a program given by its path"
pass "a program given by its path: the fix is exec, not shim add"

# Through a shim, python on PATH is pinned.
run shim add python --target "$WORK/venv/bin/python"
expect_eq "$rc" "0" "shim add ($(cat err))"
PATH="$CUDNNENV_ROOT/.cudnnenv/shims:$PATH" LD_LIBRARY_PATH="$WORK/decoy" run doctor --json
expect_eq "$(check copy-wins status)" "ok" "copy-wins through a shim"
expect_eq "$(check copy-wins summary)" "python on PATH is a cudnnenv shim ('$CUDNNENV_ROOT/.cudnnenv/shims/python'): it loads the selected tree $tree_words; without it, it would load what is listed below" \
  "copy-wins through a shim"
run shim remove python
pass "python through a shim: copy-wins ok, says why"

# 2. Headers of another version first (CUDNN_INCLUDE_DIR).
mkdir -p inc && printf '#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n' > inc/cudnn_version.h
CUDNN_INCLUDE_DIR="$WORK/inc" run doctor --json
expect_eq "$(check headers status)" "fail" "headers of another major"
expect_eq "$(check headers summary)" "'$WORK/inc/cudnn_version.h' says 8.9.7; the selected library is 9.4.0" "headers summary"
expect_eq "$(check headers fix)" "build with the tree's headers: point CUDNN_INCLUDE_DIR at '$CUDNNENV_ROOT/t9.4/include' ('cudnnenv activate' sets it), or remove '$WORK/inc/cudnn_version.h'" \
  "headers fix"
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n' > inc/cudnn_version.h
CUDNN_INCLUDE_DIR="$WORK/inc" run doctor --json
expect_eq "$(check headers status)" "warn" "headers of another minor"
CUDNN_INCLUDE_DIR="$CUDNNENV_ROOT/t9.4/include" run doctor --json
expect_eq "$(check headers status)" "ok" "the tree's own headers"
pass "a cudnn_version.h of another version: fail (major) or warn (minor), the fix names the tree's include folder"

# 3. A tree's file changed after install: by size (the fast path), by content (--deep).
run doctor --json
expect_eq "$(check integrity status)" "ok" "integrity before"
expect_eq "$(check integrity summary)" "2 trees as installed (sizes compared, files written since the install hashed; --deep hashes every file)" "integrity ok"
: > "$CUDNNENV_ROOT/t9.1/lib/libcudnn_ops.so.9.1.0"
run doctor --json
expect_eq "$(check integrity status)" "fail" "integrity of a truncated file"
# The file, and the link to it (a link's size is its target's).
expect_eq "$(check integrity details)" '["t9.1: lib/libcudnn_ops.so.9.1.0: missing or another size than installed", "t9.1: lib/libcudnn_ops.so.9: missing or another size than installed"]' \
  "integrity details"
expect_eq "$(check integrity fix)" "see each file: 'cudnnenv verify t9.1 --level files'; then reinstall: 'cudnnenv remove t9.1 && cudnnenv install \"$WORK/t91\" --name t9.1'" \
  "integrity fix"
cp "$FIXTURES/fake-elf64-9.1.0.so" "$CUDNNENV_ROOT/t9.1/lib/libcudnn_ops.so.9.1.0"
run doctor --json
expect_eq "$(check integrity status)" "ok" "integrity after the file is back"
# Same size, other bytes, written now: the fast path hashes what was written since the install.
flip() { python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[-1] ^= 1; open(p, "wb").write(b)' "$1"; }
adv="$CUDNNENV_ROOT/t9.4/lib/libcudnn_adv.so.9.4.0"
touch -r "$adv" adv.time
sleep 1  # past the install's second (installed_at has whole seconds)
flip "$adv"
run doctor --json
expect_eq "$(check integrity status)" "fail" "a same-size change written after the install"
expect_eq "$(check integrity details)" '["t9.4: lib/libcudnn_adv.so.9.4.0: written after the install, and its SHA-256 differs", "t9.4: lib/libcudnn_adv.so.9: written after the install, and its SHA-256 differs"]' \
  "integrity details of a same-size change"
# The same with the old modification time put back: only --deep sees it.
touch -r adv.time "$adv"
run doctor --json
expect_eq "$(check integrity status)" "ok" "a same-size change with its old time passes the fast path"
run doctor --deep --json
expect_eq "$(check integrity status)" "fail" "--deep finds the same-size change"
expect_eq "$(check integrity details)" "[\"t9.4: files: 'lib/libcudnn_adv.so.9.4.0' changed since it was installed (SHA-256 differs); 'lib/libcudnn_adv.so.9' changed since it was installed (SHA-256 differs)\"]" \
  "--deep details"
flip "$adv" && touch -r adv.time "$adv"
run doctor --deep --json
expect_eq "$(check integrity status)" "ok" "--deep after the byte is back"
pass "integrity: a truncated file by size, a same-size change by its time and hash, one with its old time by --deep; the fix names the tree"

# 4. TensorFlow's build_info.py: 2.18 was built and tested with cuDNN 9.3 / CUDA 12.5.
mkdir -p "$site/tensorflow/python/platform" "$site/tensorflow-2.18.0.dist-info"
cat > "$site/tensorflow/python/platform/build_info.py" <<'PY'
# A fake, as TensorFlow 2.18 writes it.
build_info = {'cpu_compiler': '/usr/lib/llvm-18/bin/clang', 'cuda_compute_capabilities': ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90'], 'cuda_version': '12.5.1', 'cudnn_version': '9', 'is_cuda_build': True, 'is_rocm_build': False, 'is_tensorrt_build': False}
PY
run doctor --json
expect_eq "$(check frameworks status)" "warn" "TensorFlow 2.18 with cuDNN 9.4"
expect_eq "$(check frameworks summary)" "TensorFlow 2.18.0 with cuDNN 9.4.0: outside its tested pair (cuDNN 9.3, CUDA 12.5)" \
  "frameworks summary"
expect_eq "$(check frameworks fix)" "cudnnenv install 9.3 --cuda 12.5 && cudnnenv use tf2.18" "frameworks fix"
expect_eq "$(check frameworks details)" "[\"TensorFlow 2.18.0 in $site/tensorflow, built for CUDA 12.5.1, cuDNN 9\"]" \
  "frameworks details"
rm -rf "$site/tensorflow-2.18.0.dist-info" && mkdir "$site/tensorflow-2.5.0.dist-info"
run doctor --json
expect_eq "$(check frameworks status)" "fail" "TensorFlow 2.5 with cuDNN 9.4"
expect_eq "$(check frameworks fix)" "cudnnenv use tf2.5  (or: cudnnenv install 8.1 --cuda 11.2)" "frameworks fix for 2.5"
rm -rf "$site/tensorflow" "$site/tensorflow-2.5.0.dist-info"
pass "TensorFlow's build_info.py: outside the tested pair warns, another major fails; the fix names the profile"

# Text from files anyone can write reaches a terminal escaped: a dist-info name and a build_info value
# carrying escape sequences (under script, stdout is a terminal); colour only for the marks.
mkdir -p "$site/tensorflow/python/platform" "$site/tensorflow-2.18.0"$'\e'"[2J.dist-info"
printf "build_info = {'cuda_version': '12.5\e]0;owned\a', 'cudnn_version': '9'}\n" \
  > "$site/tensorflow/python/platform/build_info.py"
NO_COLOR=1 script -qec "'$CUDNNENV' doctor; true" /dev/null < /dev/null | tr -d '\r' > tty.txt
expect_eq "$(grep -c $'\e' tty.txt || true)" "0" "no escape byte reaches the terminal"
grep -qxF 'warn  frameworks         TensorFlow 2.18.0\x1b[2J with cuDNN 9.4.0: outside its tested pair (cuDNN 9.3, CUDA 12.5)' tty.txt ||
  fail "the frameworks row on a terminal: $(grep frameworks tty.txt)"
grep -qF '    TensorFlow 2.18.0\x1b[2J in '"$site"'/tensorflow, built for CUDA 12.5\x1b]0;owned\x07, cuDNN 9' tty.txt ||
  fail "the frameworks detail on a terminal: $(grep -F 'built for' tty.txt)"
script -qec "'$CUDNNENV' doctor; true" /dev/null < /dev/null | tr -d '\r' > tty.txt
expect_eq "$(grep -c $'^\e\\[33mwarn  \e\\[0mframeworks' tty.txt)" "1" "a yellow mark on a terminal"
rm -rf "$site/tensorflow" "$site/tensorflow-2.18.0"$'\e'"[2J.dist-info"
pass "names and values from site-packages reach a terminal escaped; colour only on the marks"

# 5. PyTorch as its Linux wheels come: cuDNN from the nvidia-cudnn wheel, found
# through libtorch_cuda.so's DT_RUNPATH ($ORIGIN/../../nvidia/cudnn/lib).
mkdir -p "$site/torch/lib" "$site/nvidia/cudnn/lib"
cp "$FIXTURES/fake-elf64-9.4.0.so" "$site/nvidia/cudnn/lib/libcudnn.so.9"
echo 'int torch_cuda;' > torch_cuda.c
cc -shared -fPIC -o "$site/torch/lib/libtorch_cuda.so" torch_cuda.c '-Wl,--enable-new-dtags,-rpath,$ORIGIN/../../nvidia/cudnn/lib'
# As PyTorch 2.11 writes it: the names are listed before they are given.
cat > "$site/torch/version.py" <<'PY'
from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
__version__ = '2.11.0+cu130'
debug = False
cuda: Optional[str] = '13.0'
PY
run use --global t9.1
run doctor --json
expect_eq "$(check bundled-copies status)" "ok" "bundled-copies on Linux"
expect_eq "$(check bundled-copies summary)" "PyTorch 2.11.0+cu130 carries cuDNN 9.4.0 in '$site/nvidia/cudnn/lib'; it loads that copy through its RPATH when run plainly; 'cudnnenv exec' and the shims replace it with the selected tree (LD_AUDIT)" \
  "bundled-copies summary"
expect_eq "$(check frameworks status)" "fail" "PyTorch built with 9.4, 9.1 selected"
expect_eq "$(check frameworks symptom)" "through 'cudnnenv exec' or a shim: 'RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (9, 4, 0) but found runtime version (9, 1, 0)'" \
  "frameworks symptom"
# The fix is --solve's: the newest archive of the official list for CUDA 13 (nothing installed is one).
expect_eq "$(check frameworks fix)" "cudnnenv install 9.27.0+cuda13 && cudnnenv use 9.27.0+cuda13" \
  "frameworks fix for PyTorch"
check copy-wins details | grep -qF "\"import torch loads  $site/nvidia/cudnn/lib/libcudnn.so.9  (9.4.0, DT_RUNPATH of libtorch_cuda.so)\"" ||
  fail "copy-wins does not say what import torch loads: $(check copy-wins details)"
# LD_LIBRARY_PATH comes before a DT_RUNPATH: the decoy wins for PyTorch too.
LD_LIBRARY_PATH="$WORK/decoy" run doctor --json
check copy-wins details | grep -qF "\"import torch loads  $WORK/decoy/libcudnn.so.9  (9.2.0, LD_LIBRARY_PATH)\"" ||
  fail "copy-wins with a decoy for PyTorch: $(check copy-wins details)"
# The cuDNN it carries (9.4.0) selected: its version runs it, but this fake copy is built for CUDA 12.4
# and this PyTorch for CUDA 13, which a cuDNN for CUDA 12 does not serve (it needs CUDA 12's cuBLAS).
run use --global t9.4
run doctor --json
expect_eq "$(check frameworks summary)" "PyTorch 2.11.0+cu130 was built for CUDA 13; the selected tree is built for CUDA 12.4" \
  "PyTorch with a cuDNN of its version for another CUDA"
sed -i "s/^cuda: Optional\[str\] = '13.0'/cuda: Optional[str] = '12.4'/" "$site/torch/version.py"
run doctor --json
expect_eq "$(check frameworks status)" "ok" "PyTorch with the cuDNN it carries"
pass "PyTorch's own cuDNN (nvidia-cudnn wheel): said plainly, what import torch loads (a decoy on LD_LIBRARY_PATH first); an older minor selected fails PyTorch's own check, another CUDA too"

# The exit code follows the failures; without a driver the whole run is fast.
run doctor --json
failed=$(python3 -c 'import json; print(sum(c["status"] == "fail" for c in json.load(open("out"))["checks"]))')
expect_eq "$(json_field failed < out)" "$failed" "the failed count"
[ "$failed" = 0 ] && want=0 || want=1
expect_eq "$rc" "$want" "exit code with $failed failed checks"
if [ "$(check driver status)" = "fail" ] && [ -z "${CUDNNENV_SANITIZED:-}" ]; then
  start=$(date +%s%N); "$CUDNNENV" doctor > /dev/null 2>&1 || true; end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  [ "$ms" -lt 1000 ] || fail "doctor without a GPU took $ms ms"
  pass "without a GPU, doctor took $ms ms"
fi

# 6. snapshot, a switch, snapshot, diff.
run snapshot -o before.json
expect_eq "$rc" "0" "snapshot -o ($(cat err))"
expect_eq "$(cat err)" "cudnnenv: snapshot written to before.json; compare two with: cudnnenv snapshot diff OLD NEW" "snapshot note"
expect_eq "$(json_field selection.version < before.json)" "9.4.0" "the snapshot's selection"
python3 -c '
import json, sys
s = json.load(open("before.json"))
copies = {c["library"]: c for c in s["copies"]}
c = copies[sys.argv[1]]
assert c["version"] == "9.4.0" and len(c["sha256"]) == 64 and c["size"] > 0, c
' "$site/nvidia/cudnn/lib/libcudnn.so.9" || fail "the snapshot's copy of nvidia/cudnn/lib"
run use --global t9.1
run snapshot -o after.json
run snapshot diff before.json after.json
expect_eq "$rc" "1" "snapshot diff of two that differ: exit 1, as diff(1) ($(cat err))"
for line in "changed  selection.tree: t9.4 -> t9.1" "changed  selection.version: 9.4.0 -> 9.1.0" \
            "changed  selection.spec: t9.4 -> t9.1" "changed  checks[frameworks].status: ok -> fail"; do
  grep -qxF "$line" out || fail "diff lacks '$line': $(cat out)"
done
run snapshot diff before.json before.json
expect_eq "$(tail -1 out)" "no differences" "a snapshot against itself"
expect_eq "$rc" "0" "snapshot diff of one against itself: exit 0"
# Only the variables that matter: TensorFlow's TF_CPP_MIN_LOG_LEVEL, not Terraform's TF_CLI_CONFIG_FILE.
TF_CLI_CONFIG_FILE=/tmp/terraformrc TF_CPP_MIN_LOG_LEVEL=2 "$CUDNNENV" snapshot -o vars.json 2> /dev/null
expect_eq "$(python3 -c 'import json; e = json.load(open("vars.json"))["environment"]; print(sorted(k for k in e if k.startswith("TF_")))')" \
  "['TF_CPP_MIN_LOG_LEVEL']" "the snapshot's TF_ variables"
echo '{"not": "a snapshot"}' > other.json
run snapshot diff before.json other.json
expect_eq "$rc" "2" "diff against a file that is no snapshot"
expect_eq "$(cat err)" "cudnnenv: error: 'other.json' is not a cudnnenv snapshot
  hint: compare two files that 'cudnnenv snapshot -o FILE' wrote" "diff's error"
pass "snapshot -o, use, snapshot -o, diff: the switch shows (exit 1; 0 for no difference); TensorFlow's variables, not Terraform's; a file that is no snapshot is refused"

# 7. The Python that runs: through a version manager's shim (a real pyenv: its own `which`), and a
# project's ./.venv; NVIDIA's cuDNN wheel in either is found without PyTorch beside it.
frameworks() { python3 -c 'import json, sys; print(sorted((f["name"], f["version"], f["location"]) for f in json.load(open("out"))["frameworks"]))'; }
wheel_in() {  # SITE DIST: nvidia/cudnn/lib with a libcudnn.so.9 and NVIDIA's dist-info
  mkdir -p "$1/nvidia/cudnn/lib" "$1/$2.dist-info"
  cp "$FIXTURES/fake-elf64-9.2.0.so" "$1/nvidia/cudnn/lib/libcudnn.so.9"
}
mkdir -p project && cd project
wheel_in "$WORK/project/.venv/lib/python3.11/site-packages" nvidia_cudnn_cu12-9.2.0.1
VIRTUAL_ENV= run snapshot --json
expect_eq "$rc" "0" "snapshot in a project with ./.venv ($(cat err))"
frameworks > venv.txt
grep -qF "('nvidia-cudnn-cu12', '9.2.0.1', '$WORK/project/.venv/lib/python3.11/site-packages/nvidia/cudnn')" venv.txt ||
  fail "./.venv's cuDNN wheel: $(cat venv.txt)"
pass "a project's ./.venv: its nvidia-cudnn wheel is found, not only next to torch/"
if [ -x "$PYENV_REAL" ]; then
  export PYENV_ROOT="$WORK/pyroot"
  mkdir -p "$PYENV_ROOT/versions/3.99.0/bin"
  cp /bin/true "$PYENV_ROOT/versions/3.99.0/bin/python3"
  echo 3.99.0 > "$PYENV_ROOT/version"
  wheel_in "$PYENV_ROOT/versions/3.99.0/lib/python3.99/site-packages" nvidia_cudnn_cu12-9.2.0.2
  "$PYENV_REAL" rehash
  PATH="$PYENV_ROOT/shims:$PATH" run snapshot --for python3 --json
  expect_eq "$rc" "0" "snapshot through pyenv's shim ($(cat err))"
  expect_eq "$(python3 -c 'import json; p = json.load(open("out"))["program"]; print(p["path"], p["target"], p["version_manager"], p["binary"])')" \
    "$PYENV_ROOT/shims/python3 $PYENV_ROOT/versions/3.99.0/bin/python3 pyenv ELF 64-bit x86_64" "the Python behind pyenv's shim"
  frameworks > pyenv.txt
  grep -qF "('nvidia-cudnn-cu12', '9.2.0.2', '$PYENV_ROOT/versions/3.99.0/lib/python3.99/site-packages/nvidia/cudnn')" pyenv.txt ||
    fail "the pyenv Python's cuDNN wheel: $(cat pyenv.txt)"
  pass "doctor sees through pyenv's shim (pyenv which) to the Python that runs, and its site-packages"
else
  echo "skip: no pyenv on this machine ('$PYENV_REAL')"
fi
