#!/usr/bin/env bash
# Exactly one cuDNN, whatever the release ships (issue 42): each release's
# library set comes from data/cudnn-libraries.tsv, not from its major. A
# 9.21-shaped tree (cuDNN 9.21 added libcudnn_engines_tensor_ir.so.9, which
# its dispatcher opens by bare name) without that file: install (a folder or
# a wheel) and adopt refuse it naming the file; a complete one installs, and
# with the file gone verify fails naming it; exec refuses such a tree before the start (exit 4),
# also one whose record never named the file (as an older cudnnenv adopted
# it), and the program does not run.
CUDNNENV=$1
FIXTURES=$2
# A real pyenv, when this machine has one (the last section), found before PATH is narrowed.
PYENV_REAL=$(readlink -f "$(command -v pyenv 2> /dev/null || echo "$HOME/.pyenv/bin/pyenv")" 2> /dev/null || true)
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_VERIFY CUDNNENV_ACTIVATED

make_linux_tree complete 9.21.0 "$FIXTURES/fake-elf64-9.21.0.so"
[ -e complete/lib/libcudnn_engines_tensor_ir.so.9 ] || fail "make_linux_tree made no 9.21 tensor_ir"
cp -a complete incomplete
rm incomplete/lib/libcudnn_engines_tensor_ir.so.9 incomplete/lib/libcudnn_engines_tensor_ir.so.9.21.0

run install ./incomplete
suggestion=$(awk -F'\t' '$1 ~ /^9\.21\.0\./ && $2 == "linux-x86_64" && $3 == "cuda13" { print $4 }' "$E2E_DIR/../../data/cudnn-archives.tsv")
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: incomplete cuDNN 9.21.0 set for Linux x86_64: missing 'lib/libcudnn_engines_tensor_ir.so.9'
  hint: a tree needs every library of its release: copy it from the release's archive, or install that archive ('cudnnenv install 9.21.0 --cuda 13' fetches $suggestion from NVIDIA)" "install of a 9.21 tree without tensor_ir"
run list --json
expect_eq "$(json_count < out)" "0" "nothing installed"
run adopt ./incomplete
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: incomplete cuDNN 9.21.0 set in '$WORK/incomplete': missing 'lib/libcudnn_engines_tensor_ir.so.9'
  hint: a tree needs every cuDNN library of its release: 'cudnnenv adopt --heal \"$WORK/incomplete\"' fills the gaps from a store tree of the same release" "adopt of a 9.21 tree without tensor_ir"
run adopt --heal ./incomplete
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: '$WORK/incomplete' lacks libcudnn_engines_tensor_ir.so.9 of cuDNN 9.21.0, and no tree of cuDNN 9.21.0 for CUDA 13 in the store has it to heal it from
  hint: cudnnenv install 9.21.0 --cuda 13 && cudnnenv adopt --heal \"$WORK/incomplete\"" "adopt --heal with no tree of the same build to heal from"
pass "install and adopt of a 9.21 tree without libcudnn_engines_tensor_ir.so.9 refused, the file named; --heal names what to install first"

# The same files as NVIDIA's wheel (nvidia/cudnn/{lib,include} and its dist-info): install names the file.
mkdir -p wheel/nvidia/cudnn wheel/nvidia_cudnn_cu13-9.21.0.19.dist-info
cp -a incomplete/lib incomplete/include wheel/nvidia/cudnn/
printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.21.0.19\n' > wheel/nvidia_cudnn_cu13-9.21.0.19.dist-info/METADATA
(cd wheel && zip -q -r -y ../nvidia_cudnn_cu13-9.21.0.19-py3-none-manylinux_2_27_x86_64.whl .)
run install nvidia_cudnn_cu13-9.21.0.19-py3-none-manylinux_2_27_x86_64.whl
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: incomplete cuDNN 9.21.0.19 set for Linux x86_64: missing 'nvidia/cudnn/lib/libcudnn_engines_tensor_ir.so.9'
  hint: the wheel lacks part of its release: install NVIDIA's archive instead ('cudnnenv install 9.21.0 --cuda 13' fetches $suggestion from NVIDIA)" "install of a 9.21 wheel without tensor_ir"
pass "install of a 9.21 wheel without tensor_ir refused, the file and the archive that has it named"

run install ./complete --name c921 -q
expect_eq "$rc" "0" "install of the complete 9.21 tree: $(cat err)"
run verify c921 --level files
expect_eq "$rc:$(grep 'file set' out)" "0:  ok    file set: complete cuDNN 9.21.0 set" "verify of the complete tree: $(cat out err)"
rm "$CUDNNENV_ROOT/c921/lib/libcudnn_engines_tensor_ir.so.9"
run verify c921 --level files
expect_eq "$rc:$(grep -e 'file set' -e 'files:' out)" "4:  ok    file set: the complete cuDNN 9.21.0 set was installed (files: what is gone since)
  FAIL  files: 'lib/libcudnn_engines_tensor_ir.so.9' is gone (deleted?)" "verify without tensor_ir: $(cat out err)"
pass "verify of a 9.21 tree: complete, then missing tensor_ir named"

# A tree recorded without the file (as a cudnnenv that knew only the major's set adopted it): the check
# before a start takes the release's set and refuses it, naming the file; the program does not run.
run install ./complete --name old921 -q
/usr/bin/python3 - "$CUDNNENV_ROOT/old921/.cudnnenv/tree.toml" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
head, *files = text.split("\n[[files]]\n")
text = "\n[[files]]\n".join([head] + [entry for entry in files if "tensor_ir" not in entry])
open(path, "w").write(text)
PY
grep -q tensor_ir "$CUDNNENV_ROOT/old921/.cudnnenv/tree.toml" && fail "the record still names tensor_ir"
rm "$CUDNNENV_ROOT"/old921/lib/libcudnn_engines_tensor_ir.so.*
run exec --cudnn old921 -- "$FIXTURES/load-cudnn"
expect_eq "$rc:$(cat out)" "4:" "exec of a tree recorded without tensor_ir: refused before the start"
expect_eq "$(cat err)" "cudnnenv: error: the tree 'old921' lacks 'libcudnn_engines_tensor_ir.so.9' of cuDNN 9.21.0's libraries: the loader would take that file from another copy
  hint: see 'cudnnenv verify old921'; launch anyway with --verify none" "exec names the file"
run verify old921 --level files
expect_eq "$rc:$(grep 'FAIL ' out)" "4:  FAIL  file set: missing lib/libcudnn_engines_tensor_ir.so.9 (cuDNN 9.21.0 ships it)" "verify of the tree recorded without tensor_ir: $(cat out err)"
run exec --cudnn c921 -- "$FIXTURES/load-cudnn"
expect_eq "$rc" "4" "exec of the tree whose recorded tensor_ir is gone"
run install ./complete --name whole -q
run exec --cudnn whole -- "$FIXTURES/load-cudnn"
expect_eq "$rc:$(cat out)" "0:92100" "exec of a complete 9.21 tree: $(cat err)"
pass "the check before a start refuses a 9.21 tree without tensor_ir (exit 4), recorded or not; a complete one runs"

# The fence: under the pin a cuDNN name the tree lacks never loads from anywhere else. A stray copy of
# libcudnn_engines_tensor_ir.so.9 of another version (a fake 9.19.0) sits on LD_LIBRARY_PATH, where a
# distribution's cuDNN would be. Run plainly, the program mixes 9.21.0 and 9.19.0 (the control); under
# the pin each way of loading it fails: the dispatcher's bare-name dlopen, an absolute path into the stray
# copy, and a DT_NEEDED soname (the program does not start). --why names it with the fix.
cat > load_versions.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
  int failed = 0;
  for (int i = 1; i < argc; ++i) {
    void* handle = dlopen(argv[i], RTLD_NOW);
    size_t (*version)(void) = handle ? (size_t (*)(void))dlsym(handle, "cudnnGetVersion") : 0;
    if (version) printf("%s %zu\n", argv[i], version());
    else printf("%s -\n", argv[i]);
    failed |= !version;
  }
  return failed;
}
C
cc -o load-versions load_versions.c -ldl
mkdir -p stray
cp "$FIXTURES/fake-elf64-9.19.0.so" stray/libcudnn_engines_tensor_ir.so.9
printf 'int tensor_ir_stub(void) { return 0; }\n' > stub.c
mkdir -p stub  # links the program against the name; never on a path
cc -shared -fPIC -o stub/libcudnn_engines_tensor_ir.so.9 -Wl,-soname,libcudnn_engines_tensor_ir.so.9 stub.c
printf 'int main(void) { return 0; }\n' > needs.c
cc -o needs-tensor-ir needs.c -Wl,--no-as-needed stub/libcudnn_engines_tensor_ir.so.9
LD_LIBRARY_PATH="$WORK/incomplete/lib:$WORK/stray" ./load-versions libcudnn.so.9 libcudnn_engines_tensor_ir.so.9 > plain.out
expect_eq "$(cat plain.out)" "libcudnn.so.9 92100
libcudnn_engines_tensor_ir.so.9 91900" "the control: run plainly, the incomplete bundle mixes 9.21.0 and 9.19.0"
export LD_LIBRARY_PATH="$WORK/stray"
run exec --cudnn old921 --verify none -- ./load-versions libcudnn.so.9 libcudnn_engines_tensor_ir.so.9 "$WORK/stray/libcudnn_engines_tensor_ir.so.9"
expect_eq "$rc:$(cat out)" "1:libcudnn.so.9 92100
libcudnn_engines_tensor_ir.so.9 -
$WORK/stray/libcudnn_engines_tensor_ir.so.9 -" "pinned: the bare name and the absolute path into the stray copy both fail"
run exec --cudnn old921 --verify none -- ./needs-tensor-ir
expect_eq "$rc" "127" "pinned: a DT_NEEDED libcudnn_engines_tensor_ir.so.9 fails the start: $(cat err)"
run_program ./needs-tensor-ir
expect_eq "$rc" "0" "the control: run plainly, the DT_NEEDED name loads the stray copy"
run exec --cudnn old921 --verify none --why -- ./load-versions libcudnn_engines_tensor_ir.so.9
expect_eq "$rc:$(tail -5 err)" "1:cudnnenv: why: libcudnn_engines_tensor_ir.so.9 did not load (needed by load-versions)
  chain:  load-versions -> libcudnn_engines_tensor_ir.so.9
  looked for in, in order:
    $CUDNNENV_ROOT/old921/lib  (pin)
  fix:    cudnnenv exec --cudnn whole -- ./load-versions libcudnn_engines_tensor_ir.so.9  (the tree 'old921' lacks it; 'whole' in the store, cuDNN 9.21.0, has it)" \
  "--why names the file, the pin's folder and the fix that works here: the whole tree of the release in the store"
# An adopted folder that lost the file since (a wheel half uninstalled): the fix heals it from 'whole', offline,
# and run as printed it works.
cp -r complete adopted-wheel
run adopt ./adopted-wheel --name wheel921
rm adopted-wheel/lib/libcudnn_engines_tensor_ir.so.*
run exec --cudnn wheel921 --verify none --why -- ./load-versions libcudnn_engines_tensor_ir.so.9
fix="cudnnenv remove wheel921 --yes && cudnnenv adopt --heal \"$WORK/adopted-wheel\" --name wheel921"
expect_eq "$rc:$(tail -1 err)" "1:  fix:    $fix  (the tree 'wheel921' lacks it; 'whole' in the store, cuDNN 9.21.0, has it)" \
  "--why of the adopted folder: the heal from the store"
unset LD_LIBRARY_PATH
(PATH="$(dirname "$CUDNNENV"):$PATH" && eval "$fix") > fix.out 2>&1 || fail "the fix as printed: $(cat fix.out)"
run exec --cudnn wheel921 -- ./load-versions libcudnn.so.9 libcudnn_engines_tensor_ir.so.9
expect_eq "$rc:$(cat out)" "0:libcudnn.so.9 92100
libcudnn_engines_tensor_ir.so.9 92100" "after the fix: one version, past the check ($(cat err))"
run remove wheel921 --yes  # the heal below takes its file from 'whole'
pass "the fence: a 9.21 tree without tensor_ir, pinned, never takes the stray copy (bare name, absolute path, DT_NEEDED); plainly it mixes; --why names the fix that works here, and it does"

# Healing: with a complete tree of the same release and CUDA in the store ('whole'), adopt --heal makes the
# incomplete folder a store folder of links to its files plus the missing one from 'whole', recorded as such;
# pinned to it, the program loads one version, every file in the tree by --report.
run adopt --heal ./incomplete --name healed
expect_eq "$rc:$(cat out)" "0:adopted 'healed': cuDNN 9.21.0, CUDA 13.0, healed: the files of $WORK/incomplete and what it lacked from 'whole', linked from $CUDNNENV_ROOT/healed/lib
  library: $CUDNNENV_ROOT/healed/lib/libcudnn.so.9" "adopt --heal: $(cat err)"
expect_eq "$(cat err)" "cudnnenv: warning: '$WORK/incomplete' lacks libcudnn_engines_tensor_ir.so.9: 'healed' is a store folder of links to its files and that file from 'whole' (cuDNN 9.21.0)" "adopt --heal says what it did"
expect_eq "$(readlink "$CUDNNENV_ROOT/healed/lib/libcudnn_graph.so.9")" "$WORK/incomplete/lib/libcudnn_graph.so.9" "the folder's own files are links to it"
[ "$(stat -c %i "$CUDNNENV_ROOT/healed/lib/libcudnn_engines_tensor_ir.so.9")" = "$(stat -L -c %i "$CUDNNENV_ROOT/whole/lib/libcudnn_engines_tensor_ir.so.9")" ] ||
  cmp -s "$CUDNNENV_ROOT/healed/lib/libcudnn_engines_tensor_ir.so.9" "$CUDNNENV_ROOT/whole/lib/libcudnn_engines_tensor_ir.so.9" || fail "the healed file is not whole's"
run list --json
expect_eq "$(python3 -c 'import json, sys
print([tree["source"]["healed_from"] for tree in json.load(sys.stdin) if tree["name"] == "healed"])' < out)" "['whole']" "the record says what healed it: $(cat out)"
export LD_LIBRARY_PATH="$WORK/stray"
run exec --cudnn healed --report -- ./load-versions libcudnn.so.9 libcudnn_engines_tensor_ir.so.9
expect_eq "$rc:$(cat out)" "0:libcudnn.so.9 92100
libcudnn_engines_tensor_ir.so.9 92100" "pinned to the healed tree: one version: $(cat err)"
grep -q OUTSIDE err && fail "--report: a healed tree's file counted outside: $(cat err)"
unset LD_LIBRARY_PATH
run verify healed --level files
expect_eq "$rc" "0" "verify of the healed tree: $(cat out err)"
pass "adopt --heal: a store folder of the wheel's files and the missing one from a tree of the same build; pinned, one version"

# Healed once: a second heal of the folder, one after the other or four at once, says so and adds nothing;
# the healed tree's size counts each library file once (libcudnn.so.9 and libcudnn.so.9.21.0 are one file).
run adopt --heal ./incomplete --name healed2
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$WORK/incomplete' is already healed as 'healed' (its files, and what it lacked from 'whole')
  hint: 'cudnnenv list' shows it; 'cudnnenv remove healed' forgets it" "a second adopt --heal"
for i in 1 2 3 4; do "$CUDNNENV" adopt --heal ./incomplete > "heal$i.out" 2>&1 & done
wait
run list --json
expect_eq "$(python3 -c 'import json, sys
trees = json.load(sys.stdin)
print(len([t for t in trees if t["source"].get("healed_from")]), [t["size"] for t in trees if t["name"] == "healed"][0])' < out)" \
  "1 $(find complete/lib -type f -printf '%s\n' | awk '{ total += $1 } END { print total }')" \
  "after four parallel heals: one healed tree, its size the library files' once each: $(cat heal*.out)"
pass "adopt --heal of a folder healed before: refused as 'already healed', in parallel too; its size counts each file once"

# A heal never mixes builds: a 9.21.0 folder built for CUDA 12 without tensor_ir, while the store's 9.21.0
# trees are CUDA 13's: refused, naming the build to install.
make_linux_tree cuda12 9.21.0 "$FIXTURES/fake-elf64-9.21.0-cuda12.so"
rm cuda12/lib/libcudnn_engines_tensor_ir.so.*
run adopt --heal ./cuda12
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: '$WORK/cuda12' lacks libcudnn_engines_tensor_ir.so.9 of cuDNN 9.21.0, and no tree of cuDNN 9.21.0 for CUDA 12 in the store has it to heal it from
  hint: cudnnenv install 9.21.0 --cuda 12 && cudnnenv adopt --heal \"$WORK/cuda12\"" "a heal from another build (CUDA 13's 9.21.0) refused"
pass "adopt --heal never takes another build's file"

# cuDNN's dispatcher itself: a main library that opens the sub-library by bare name from inside (the
# FAKE_DISPATCHER fake, tests/fixtures/dispatch.c asking it to). Plainly, with a 9.21.0 bundle lacking
# tensor_ir first on the path, the dispatcher's load takes the stray 9.19.0 copy; pinned to such a tree
# (--verify none), the fence fails that load; pinned to the bundle healed from 'whole', it gets 9.21.0.
cc -o dispatch "$E2E_DIR/../fixtures/dispatch.c" -ldl
cp -a incomplete dispatcher
cp -a complete dcomplete
cp "$FIXTURES/fake-elf64-9.21.0-dispatcher.so" dispatcher/lib/libcudnn.so.9.21.0
cp "$FIXTURES/fake-elf64-9.21.0-dispatcher.so" dcomplete/lib/libcudnn.so.9.21.0
LD_LIBRARY_PATH="$WORK/dispatcher/lib:$WORK/stray" run_program ./dispatch libcudnn.so.9 libcudnn_engines_tensor_ir.so.9
expect_eq "$rc:$(cat out)" "0:libcudnn.so.9 92100
libcudnn_engines_tensor_ir.so.9 91900" "the control: run plainly, the dispatcher's bare-name load takes the stray 9.19.0"
run install ./dcomplete --name dfenced -q
rm "$CUDNNENV_ROOT"/dfenced/lib/libcudnn_engines_tensor_ir.so.*
LD_LIBRARY_PATH="$WORK/stray" run exec --cudnn dfenced --verify none -- ./dispatch libcudnn.so.9 libcudnn_engines_tensor_ir.so.9
expect_eq "$rc:$(cat out)" "1:libcudnn.so.9 92100
libcudnn_engines_tensor_ir.so.9 -" "pinned to a tree without tensor_ir: the dispatcher's load fails on the fence: $(cat err)"
run adopt --heal ./dispatcher --name dhealed
expect_eq "$rc" "0" "adopt --heal of the dispatcher's bundle: $(cat err)"
LD_LIBRARY_PATH="$WORK/stray" run exec --cudnn dhealed -- ./dispatch libcudnn.so.9 libcudnn_engines_tensor_ir.so.9
expect_eq "$rc:$(cat out)" "0:libcudnn.so.9 92100
libcudnn_engines_tensor_ir.so.9 92100" "pinned to the healed bundle: the dispatcher gets 9.21.0: $(cat err)"
pass "a dispatcher's own bare-name load: plainly the stray copy, pinned the fence, healed one version"

# Where bundles are: a wheel's incomplete cuDNN (9.21.0 without tensor_ir; a 9.19.0 cuDNN on
# LD_LIBRARY_PATH) in a project's ./.venv with no VIRTUAL_ENV, and in the site-packages of a pyenv Python
# reached through cudnnenv's python shim in front of pyenv's shims. doctor fails bundle-incomplete naming
# the folder, the copy the loader would take and the fix; discover (which looks where doctor's Python is)
# lists the wheel's copy. pyenv: the real
# one when this machine has it, else a stand-in with its shim's text and its `which` (Debian has no pyenv).
bundle_check() {  # doctor's bundle-incomplete, from --json in `out`: status, summary, cause, fix
  python3 -c 'import json, sys
check = [c for c in json.load(open("out"))["checks"] if c["id"] == "bundle-incomplete"][0]
print(check["status"]); print(check["summary"]); print(check["cause"]); print(check["fix"])'
}
wheel_copy() {  # discover --json in `out`: the copies in $1, with how they were found
  python3 -c 'import json, sys
print([(c["library"], c["version"], c["found_via"]) for c in json.load(open("out")) if c["library"].startswith(sys.argv[1])])' "$1"
}
incomplete_wheel() {  # SITE: nvidia/cudnn/lib of 9.21.0 without tensor_ir, and NVIDIA's dist-info
  mkdir -p "$1/nvidia/cudnn" "$1/nvidia_cudnn_cu13-9.21.0.19.dist-info"
  cp -a "$WORK/incomplete/lib" "$1/nvidia/cudnn/"
}
cp "$FIXTURES/fake-elf64-9.19.0.so" stray/libcudnn.so.9  # the stray folder as a whole 9.19.0 cuDNN
export LD_LIBRARY_PATH="$WORK/stray"
mkdir -p project
incomplete_wheel "$WORK/project/.venv/lib/python3.12/site-packages"
wheel="$WORK/project/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib"
cd project
unset VIRTUAL_ENV CONDA_PREFIX
# With no 9.21.0 in the store the fix fetches it; with one ('whole') it leads with that, which works offline.
CUDNNENV_ROOT="$WORK/empty-store" CUDNNENV_STATE_DIR="$WORK/empty-state" run doctor --json
expect_eq "$(bundle_check | tail -1)" "cudnnenv install 9.21.0 --cuda 13 && cudnnenv exec --cudnn 9.21.0 -- python  (a complete tree, pinned: a name it lacks loads from nowhere else); or, with that release in the store, keep the bundle's own files: cudnnenv adopt --heal \"$wheel\"" "doctor with an empty store: the fix installs the release ($(cat err))"
run doctor --json
expect_eq "$(bundle_check)" "fail
nvidia-cudnn-cu13 9.21.0.19's cuDNN 9.21.0 in '$wheel' lacks libcudnn_engines_tensor_ir.so.9
run plainly, the loader takes libcudnn_engines_tensor_ir.so.9 from '$WORK/stray/libcudnn_engines_tensor_ir.so.9' (cuDNN 9.19.0) beside the bundle's 9.21.0: two versions of cuDNN in one process
cudnnenv exec --cudnn whole -- python  ('whole' in the store is cuDNN 9.21.0, pinned: a name it lacks loads from nowhere else); or keep the bundle's own files: cudnnenv adopt --heal \"$wheel\"" "doctor: ./.venv's incomplete wheel ($(cat err))"
run discover --json
expect_eq "$(wheel_copy "$WORK/project/")" "[('$wheel/libcudnn.so.9', '9.21.0', ['site-packages (nvidia-cudnn wheel)'])]" "discover: ./.venv's wheel without VIRTUAL_ENV"
pass "./.venv's incomplete wheel, no VIRTUAL_ENV: doctor fails bundle-incomplete with the copy it would mix with and the fix that works here; discover lists it"
rm -r .venv

export PYENV_ROOT="$WORK/pyroot"
mkdir -p "$PYENV_ROOT/versions/3.99.0/bin"
cp /bin/true "$PYENV_ROOT/versions/3.99.0/bin/python"
echo 3.99.0 > "$PYENV_ROOT/version"
incomplete_wheel "$PYENV_ROOT/versions/3.99.0/lib/python3.99/site-packages"
wheel="$PYENV_ROOT/versions/3.99.0/lib/python3.99/site-packages/nvidia/cudnn/lib"
if [ -x "$PYENV_REAL" ]; then
  "$PYENV_REAL" rehash
else
  mkdir -p "$WORK/pyenv-tool/libexec" "$PYENV_ROOT/shims"
  cat > "$WORK/pyenv-tool/libexec/pyenv" <<'SH'
#!/bin/sh
# pyenv's `which` for the stand-in: the version file's Python
[ "$1" = which ] && echo "$PYENV_ROOT/versions/$(cat "$PYENV_ROOT/version")/bin/$2"
SH
  printf '#!/usr/bin/env bash\nset -e\nprogram="${0##*/}"\nexec "%s/pyenv-tool/libexec/pyenv" exec "$program" "$@"\n' "$WORK" \
    > "$PYENV_ROOT/shims/python"
  chmod +x "$WORK/pyenv-tool/libexec/pyenv" "$PYENV_ROOT/shims/python"
fi
run shim add python
expect_eq "$rc" "0" "shim add python: $(cat err)"
PATH="$CUDNNENV_STATE_DIR/shims:$PYENV_ROOT/shims:$PATH" run doctor --json
expect_eq "$(bundle_check)" "fail
nvidia-cudnn-cu13 9.21.0.19's cuDNN 9.21.0 in '$wheel' lacks libcudnn_engines_tensor_ir.so.9
run plainly, the loader takes libcudnn_engines_tensor_ir.so.9 from '$WORK/stray/libcudnn_engines_tensor_ir.so.9' (cuDNN 9.19.0) beside the bundle's 9.21.0: two versions of cuDNN in one process
cudnnenv exec --cudnn whole -- python  ('whole' in the store is cuDNN 9.21.0, pinned: a name it lacks loads from nowhere else); or keep the bundle's own files: cudnnenv adopt --heal \"$wheel\"" "doctor through cudnnenv's shim and pyenv's ($(cat err))"
PATH="$CUDNNENV_STATE_DIR/shims:$PYENV_ROOT/shims:$PATH" run discover --json
expect_eq "$(wheel_copy "$PYENV_ROOT/")" "[('$wheel/libcudnn.so.9', '9.21.0', ['site-packages (nvidia-cudnn wheel)'])]" "discover: the pyenv Python's wheel"
unset LD_LIBRARY_PATH
pass "through cudnnenv's python shim in front of pyenv's ($([ -x "$PYENV_REAL" ] && echo "real pyenv" || echo "stand-in pyenv")): doctor and discover reach the Python that runs and its incomplete wheel"
