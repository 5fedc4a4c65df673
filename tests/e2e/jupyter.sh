#!/usr/bin/env bash
# export jupyter (issue 25) through the real jupyter_client and ipykernel
# (Debian's python3-jupyter-client, python3-ipykernel, jupyter-client): a
# kernelspec for a tree (the real cuDNN 9 of this machine when it has one,
# else a fake tree), started by jupyter_client's KernelManager as Jupyter and
# VS Code start kernels, with a decoy libcudnn.so.9 first on LD_LIBRARY_PATH
# of the environment it starts from: code in the kernel that loads
# libcudnn.so.9 by name through ctypes gets the pinned tree's version.
# `jupyter kernelspec list` shows the kernel; --remove deletes only what
# cudnnenv wrote; a kernel whose tree was removed dies with cudnnenv's own
# error on its stderr (Jupyter's log). Hostile tree names (quotes, spaces,
# '&', '$', non-ASCII, a bidirectional override) and display names (double
# quotes, markup) reach kernel.json intact, read back by jupyter_client, and
# start (a property test: CUDNNENV_TEST_SEED repeats a run).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" -c 'import jupyter_client, ipykernel' 2> /dev/null || { echo "skip: no jupyter_client or ipykernel"; exit 77; }
command -v jupyter-kernelspec > /dev/null || { echo "skip: no jupyter-kernelspec"; exit 77; }
export LC_ALL=C.UTF-8
export JUPYTER_DATA_DIR="$WORK/jupyter data" JUPYTER_RUNTIME_DIR="$WORK/jupyter runtime" \
  JUPYTER_CONFIG_DIR="$WORK/jupyter config" IPYTHONDIR="$WORK/ipython" JUPYTER_PLATFORM_DIRS=1
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED
export CUDNNENV_ROOT="$WORK/store root"
kernel() { "$PY" "$E2E_DIR/jupyter_kernel.py" "$@"; }
listed() {  # NAME: its folder as `jupyter kernelspec list` shows it, or nothing
  jupyter-kernelspec list --json 2> /dev/null | "$PY" -c 'import json, sys; s = json.load(sys.stdin)["kernelspecs"]; print(s[sys.argv[1]]["resource_dir"] if sys.argv[1] in s else "")' "$1"
}
load='import ctypes
lib = ctypes.CDLL("libcudnn.so.9")
lib.cudnnGetVersion.restype = ctypes.c_size_t
print(lib.cudnnGetVersion())'

# The tree: this machine's real cuDNN 9, adopted, else a fake 9.1.0; the decoy reports 90200.
REAL=${CUDNNENV_REAL_CUDNN:-/usr/local/cuda-13.0}
if [ -e "$REAL/lib/libcudnn.so.9" ] && [ -e "$REAL/include/cudnn_version.h" ]; then
  run adopt "$REAL" --name real-9 --json
  expected=$(awk '/#define CUDNN_MAJOR /{a=$3} /#define CUDNN_MINOR /{b=$3} /#define CUDNN_PATCHLEVEL /{c=$3} END{print a*10000+b*100+c}' \
    "$REAL/include/cudnn_version.h")
  tree=real-9
else
  make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
  run install t91 --name real-9
  expected=90100
  tree=real-9
fi
expect_eq "$rc" "0" "the tree: $(cat err)"
mkdir -p decoy && cp "$FIXTURES/fake-elf64-9.2.0.so" decoy/libcudnn.so.9
export LD_LIBRARY_PATH="$WORK/decoy"

run export jupyter "$tree" --python "$PY"
expect_eq "$rc" "0" "export jupyter: $(cat err)"
expect_eq "$(cat out)" "wrote $JUPYTER_DATA_DIR/kernels/cudnnenv-real-9/kernel.json (kernel 'cudnnenv-real-9': Python 3 (cuDNN $(json_field version < <("$CUDNNENV" list --json)), cudnnenv 'real-9'))" "what export wrote"
expect_eq "$(listed cudnnenv-real-9)" "$JUPYTER_DATA_DIR/kernels/cudnnenv-real-9" "jupyter kernelspec list shows it"
expect_eq "$(LD_LIBRARY_PATH=$WORK/decoy "$PY" -c "$load")" "90200" "a plain python3 loads the decoy"
expect_eq "$(kernel cudnnenv-real-9 "$load")" "$expected" "the kernel, started by KernelManager with the decoy first on LD_LIBRARY_PATH, loads the pinned tree"
pass "a kernel exported for '$tree' and started by jupyter_client loads the pinned cuDNN ($expected) past a decoy; kernelspec list shows it"

# No --python: the first python3 or python on PATH that has ipykernel; none: an error before anything is written.
mkdir -p nokernel
printf '#!/bin/sh\n[ "$1" = -c ] && exit 1\nexec %s "$@"\n' "$PY" > nokernel/python3  # a Python without ipykernel
chmod +x nokernel/python3
ln -sf "$PY" nokernel/python
(PATH="$WORK/nokernel:$PATH" run export jupyter "$tree" --name picked && cat out err) > picked.txt
expect_eq "$(grep -c . picked.txt)" "2" "export jupyter with no --python: $(cat picked.txt)"
expect_eq "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["argv"][-5])' "$JUPYTER_DATA_DIR/kernels/picked/kernel.json")" "$WORK/nokernel/python" "the kernel runs the Python that has ipykernel, not the first on PATH"
rm nokernel/python
set +e; PATH="$WORK/nokernel:/nonexistent" "$CUDNNENV" export jupyter "$tree" --name none 2> none.err; rc=$?; set -e
printf 'rc=%s\n%s\n' "$rc" "$(cat none.err)" > none.txt
expect_eq "$(cat none.txt)" "rc=3
cudnnenv: error: no Python on PATH has ipykernel ('$WORK/nokernel/python3' cannot import it): a kernel started with it would die at once
  hint: install it into that Python: \"$WORK/nokernel/python3\" -m pip install ipykernel; or give one that has it: --python PATH" "no Python with ipykernel"
[ ! -e "$JUPYTER_DATA_DIR/kernels/none" ] || fail "a kernel was written without a Python that has ipykernel"
pass "export jupyter with no --python: the first Python on PATH with ipykernel; with none, an error and nothing written"

# doctor: a kernel Jupyter starts directly whose Python loads another cuDNN than the selection (the decoy
# here), with the fix; the exported kernel is named as pinned.
mkdir -p "$JUPYTER_DATA_DIR/kernels/plain"
printf '{"argv": ["%s", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "plain", "language": "python"}\n' "$PY" \
  > "$JUPYTER_DATA_DIR/kernels/plain/kernel.json"
run use --global "$tree"
run doctor --json
"$PY" - "$tree" "$PY" <<'PY' || fail "doctor's kernels check: $(cat out)"
import json, sys
tree, python = sys.argv[1], sys.argv[2]
check = {c["id"]: c for c in json.load(open("out"))["checks"]}["kernels"]
assert check["status"] == "warn", check
assert check["summary"].startswith("the Jupyter kernel") and "plain" in check["summary"], check
assert check["fix"] == "a kernel whose every start is pinned: 'cudnnenv export jupyter %s --python %s', then pick it in the notebook" % (tree, python), check
assert "cudnnenv-%s: pinned by cudnnenv to '%s'" % (tree, tree) in check["details"], check
assert any(d.startswith("plain: %s loads " % python) and "/decoy/libcudnn.so.9 (" in d for d in check["details"]), check
PY
rm -r "$JUPYTER_DATA_DIR/kernels/plain"
pass "doctor names a kernel whose Python loads another cuDNN (the decoy), with the export that pins it"

# Removal deletes only cudnnenv's kernel.json; another kernel of that name is refused.
mkdir -p "$JUPYTER_DATA_DIR/kernels/theirs"
printf '{"argv": ["python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "theirs", "language": "python"}\n' \
  > "$JUPYTER_DATA_DIR/kernels/theirs/kernel.json"
run export jupyter --remove --name theirs
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: the kernel 'theirs' in $JUPYTER_DATA_DIR/kernels/theirs was not written by cudnnenv
  hint: 'jupyter kernelspec remove theirs' removes it" "--remove of a kernel cudnnenv did not write"
run export jupyter "$tree" --name theirs --python "$PY"
expect_eq "$rc" "1" "export over a kernel cudnnenv did not write"
[ -f "$JUPYTER_DATA_DIR/kernels/theirs/kernel.json" ] || fail "their kernel was touched"
run export jupyter "$tree" --name 'bad name'
expect_eq "$rc:$(cat err)" "2:cudnnenv: error: 'bad name' cannot be a kernel name
  hint: Jupyter takes letters, digits, '.', '_' and '-'" "a kernel name Jupyter cannot hold"
pass "--remove and export refuse a kernel cudnnenv did not write; a name Jupyter cannot hold is refused"

# A kernel whose tree is gone dies at its start with cudnnenv's error, which Jupyter logs.
make_linux_tree gone 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install gone --name gone
run export jupyter gone --python "$PY"
run remove gone --yes
expect_eq "$(kernel cudnnenv-gone "$load" --expect-death | head -1)" "cudnnenv: error: no installed cuDNN matches 'gone' (set by --cudnn)" "a kernel of a removed tree: cudnnenv's error on its stderr"
run export jupyter --remove --name cudnnenv-gone
expect_eq "$(cat out)" "removed $JUPYTER_DATA_DIR/kernels/cudnnenv-gone/kernel.json" "--remove"
[ ! -e "$JUPYTER_DATA_DIR/kernels/cudnnenv-gone" ] || fail "the kernel's folder stayed"
expect_eq "$(listed cudnnenv-gone)" "" "kernelspec list no longer shows it"
pass "a kernel of a removed tree dies with cudnnenv's error; --remove takes the kernel out"

# Hostile tree names through kernel.json and jupyter_client: the spec read back names the tree exactly; some start.
test_seed
"$PY" - "$seed" > names.txt <<'PY'
import random, sys
rng = random.Random(int(sys.argv[1]))
pieces = ["'", " ", "&", "$", "`", "%", "!", "^", "(", ")", ";", "é", "库", "\\u202e", "{", "}", "=", "#", "a", "1"]
for _ in range(8):
    name = "t" + "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
    print(name.replace("\\u202e", "\u202e").rstrip(" "))
PY
[ -d t91 ] || make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
started=0
while IFS= read -r name; do
  run install t91 --name "$name"
  expect_eq "$rc" "0" "install as '$name': $(cat err)"
  run export jupyter "$name" --python "$PY" --display-name "\"$name\" <b>"
  kname=$(sed -n "s/^wrote .*kernels\/\([^/]*\)\/kernel.json.*/\1/p" out)
  [ -n "$kname" ] || fail "export for '$name': $(cat out err)"
  read_back=$("$PY" -c 'import sys; from jupyter_client.kernelspec import KernelSpecManager as M; k = M().get_kernel_spec(sys.argv[1]); print(k.argv[k.argv.index("--cudnn") + 1] + "|" + k.display_name)' "$kname")
  expect_eq "$read_back" "$name|\"$name\" <b>" "jupyter_client reads the tree's name and the display name back from kernel.json ($kname)"
  if [ $started -lt 2 ]; then
    expect_eq "$(kernel "$kname" "$load")" "90100" "the kernel of the tree '$name' starts pinned"
    started=$((started + 1))
  fi
  run export jupyter --remove --name "$kname"
  run remove "$name" --yes
done < names.txt
pass "hostile tree names reach kernel.json intact (read back by jupyter_client), and such kernels start pinned"
