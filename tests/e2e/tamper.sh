#!/usr/bin/env bash
# Hostile files around the program (issue 39): a cloned repository's links
# under .vscode and an env's kernels folder, a FIFO and a link to /dev/zero
# among a runtime's libraries, a kernel.json that cannot be read, a project
# file linked to /proc/kmsg under each shell's prompt hook, a snapshot of
# 100,000 keys in one object, and a tree name in a hint meant for pasting.
# None may leak a file, write elsewhere, hang or run anything.
# Usage: tamper.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_ACTIVE _CUDNNENV_STATE CUDNNENV_SHELL
PY=$(command -v python3)

make_linux_tree tree 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install ./tree --name "tree 9.1"
expect_eq "$rc" "0" "install: $(cat err)"

# --- item 3: links in a project are never followed by an export ---
echo '{"username": "me", "key": "SECRET-KEY"}' > secret.json
mkdir -p repo1/.vscode && ln -s "$WORK/secret.json" repo1/.vscode/settings.json
run export vscode "tree 9.1" --python "$PY" --folder repo1
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: 'repo1/.vscode/settings.json' is a link: cudnnenv does not read or write a file through a link there (it could lead anywhere); nothing was written
  hint: replace the link with a plain file of your own, then run this again" "export vscode, settings.json a link"
expect_eq "$(readlink repo1/.vscode/settings.json)" "$WORK/secret.json" "the link is left as it was"
expect_eq "$(cat secret.json)" '{"username": "me", "key": "SECRET-KEY"}' "the linked file is untouched"
[ ! -e "$CUDNNENV_STATE_DIR/launchers" ] || fail "export vscode made a launcher before refusing: $(find "$CUDNNENV_STATE_DIR/launchers")"
mkdir -p elsewhere repo2 && ln -s "$WORK/elsewhere" repo2/.vscode
run export vscode "tree 9.1" --python "$PY" --folder repo2
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: 'repo2/.vscode' is a link: cudnnenv does not read or write a file through a link there (it could lead anywhere); nothing was written
  hint: replace the link with a plain folder of your own, then run this again" "export vscode, .vscode a link"
expect_eq "$(ls -A elsewhere)" "" "nothing written in the folder .vscode links to"
mkdir -p env/share/jupyter/kernels elsewhere-kernel && ln -s "$WORK/elsewhere-kernel" env/share/jupyter/kernels/k
run export jupyter "tree 9.1" --python "$PY" --prefix "$WORK/env" --name k
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$WORK/env/share/jupyter/kernels/k' is a link: cudnnenv does not read or write a file through a link there (it could lead anywhere); nothing was written
  hint: replace the link with a plain folder of your own, then run this again" "export jupyter --prefix, the kernel's folder a link"
expect_eq "$(ls -A elsewhere-kernel)" "" "nothing written in the folder the kernel's link points to"
pass "export vscode and export jupyter --prefix refuse a link in the project or env, and write nothing"

# --- item 6: a kernel.json that cannot be read is not cudnnenv's to replace ---
mkdir -p env2/share/jupyter/kernels/k && mkfifo env2/share/jupyter/kernels/k/kernel.json
run_program timeout 20 "$CUDNNENV" export jupyter "tree 9.1" --python "$PY" --prefix "$WORK/env2" --name k
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: a kernel 'k' that cudnnenv did not write is in $WORK/env2/share/jupyter/kernels/k ('$WORK/env2/share/jupyter/kernels/k/kernel.json' is not a regular file)
  hint: pick another name with --name" "export jupyter over a kernel.json it cannot read"
[ -p env2/share/jupyter/kernels/k/kernel.json ] || fail "the FIFO was replaced"
pass "export jupyter leaves a kernel.json it cannot read alone"

# --- item 5: a FIFO or a link to /dev/zero among a runtime's libraries: an error, no hang ---
mkdir -p rt/lib
cc -shared -fPIC -o rt/lib/libcudart.so.13 -Wl,-soname,libcudart.so.13 "$E2E_DIR/../fixtures/fake_cuda_runtime.c"
mkfifo rt/lib/libcublas.so.13
run_program timeout 20 "$CUDNNENV" adopt --runtime rt
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$WORK/rt/lib/libcublas.so.13' is not a regular file" "adopt --runtime with a FIFO"
rm rt/lib/libcublas.so.13 && ln -s /dev/zero rt/lib/libcublas.so.13
run_program timeout 20 "$CUDNNENV" adopt --runtime rt
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$WORK/rt/lib/libcublas.so.13' is not a regular file" "adopt --runtime with a link to /dev/zero"
run list --json
expect_eq "$(json_count < out)" "1" "nothing adopted"
pass "adopt --runtime refuses a FIFO and a link to /dev/zero at once"

# --- item 9: a project file linked to /proc/kmsg never blocks a prompt ---
if [ -r /proc/kmsg ]; then
  mkdir -p kmsg && ln -s /proc/kmsg kmsg/.cudnnenv.toml
  for shell in bash zsh fish; do
    command -v "$shell" > /dev/null || continue
    case $shell in
      fish) script="$("$CUDNNENV" init fish) ; cd '$WORK/kmsg'; _cudnnenv_hook; _cudnnenv_hook; echo prompt-ok" ;;
      *) script="eval \"\$('$CUDNNENV' init $shell)\"; cd '$WORK/kmsg'; _cudnnenv_hook; _cudnnenv_hook; echo prompt-ok" ;;
    esac
    run_program timeout 20 "$shell" -c "$script"
    expect_eq "$rc:$(tail -1 out)" "0:prompt-ok" "$shell's prompt hook in a folder whose project file is /proc/kmsg ($(cat err))"
  done
  pass "the prompt hooks skip a project file of size 0 (/proc/kmsg): no prompt hangs"
else
  echo "skip: /proc/kmsg is not readable here (the prompt hooks' case)"
fi

# --- item 4: a snapshot of 100,000 keys in one object: diffed in linear time ---
/usr/bin/python3 - <<'PY'
import json
keys = {"k%d" % i: i for i in range(100000)}
for name, extra in (("a.json", 0), ("b.json", 1)):
    json.dump({"format": 1, "taken_at": "now", "facts": dict(keys, changed=extra)}, open(name, "w"))
PY
start=$(date +%s%N)
run_program timeout 60 "$CUDNNENV" snapshot diff a.json b.json
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "$rc" "1" "snapshot diff of 100,000 keys: exit code ($(head -c 300 err))"
echo "snapshot diff of two 1.3 MB snapshots of 100,000 keys in one object: $elapsed_ms ms"
[ "$elapsed_ms" -lt 20000 ] || fail "snapshot diff took $elapsed_ms ms (31 s when parsing was quadratic)"
pass "snapshot diff of 100,000 keys in one object"

# --- item 8: only a launcher cudnnenv made counts as pinned in doctor's vscode check ---
mkdir -p repo8/.venv/bin repo8/.vscode
cp /bin/true repo8/.venv/bin/python
printf 'cudnn = tree 9.1\npath = %s\n' "$PY" > repo8/.venv/bin/python.shim
echo '{"python.defaultInterpreterPath": ".venv/bin/python"}' > repo8/.vscode/settings.json
(cd repo8 && "$CUDNNENV" doctor --no-load --json --cudnn "tree 9.1" > ../doctor.json 2> ../doctor.err) || true
expect_eq "$(python3 -c 'import json; print([c["status"] for c in json.load(open("doctor.json"))["checks"] if c["id"] == "vscode"])')" \
  "['warn']" "doctor's vscode check with a repository's own NAME.shim beside its interpreter ($(cat doctor.err))"
pass "a NAME.shim beside a repository's interpreter is not cudnnenv's pin"

# --- item 7: doctor (and discover) never run a version manager from the project, from a subfolder of it either ---
mkdir -p repo7/.git repo7/sub repo7/evil/libexec repo7/evil/shims
printf '#!/bin/sh\ntouch "%s/PWNED"\n' "$WORK" > repo7/evil/libexec/pyenv
printf '#!/usr/bin/env bash\nexec "%s/repo7/evil/libexec/pyenv" exec "python3" "$@"\n' "$WORK" > repo7/evil/shims/python3
cp repo7/evil/shims/python3 repo7/evil/shims/python
chmod +x repo7/evil/libexec/pyenv repo7/evil/shims/python3 repo7/evil/shims/python
for load in --no-load ""; do
  (cd repo7/sub && PATH="$WORK/repo7/evil/shims:$PATH" timeout 60 "$CUDNNENV" doctor --for python3 $load --cudnn "tree 9.1" > /dev/null 2>&1) || true
  [ ! -e PWNED ] || fail "doctor ${load:-(loading)} ran the project's own version manager from a subfolder"
  (cd repo7/sub && PATH="$WORK/repo7/evil/shims:$PATH" timeout 60 "$CUDNNENV" discover $load > /dev/null 2>&1) || true
  [ ! -e PWNED ] || fail "discover ${load:-(loading)} ran the project's own version manager from a subfolder"
done
pass "doctor and discover run no version manager that lies in the working folder's project"

# --- item 11: a selected runtime's library gone (a wheel uninstalled after adopt --runtime) stops the start ---
make_linux_tree c919 9.19.0 "$FIXTURES/fake-elf64-9.19.0.so"
run install ./c919 --name c919
mkdir -p wheel/lib
for library in libcudart.so.13 libcublas.so.13; do
  cc -shared -fPIC -o "wheel/lib/$library" -Wl,-soname,"$library" "$E2E_DIR/../fixtures/fake_cuda_runtime.c"
done
run adopt --runtime wheel --name rt13
expect_eq "$rc" "0" "adopt --runtime: $(cat err)"
run exec --cudnn c919 -- true
expect_eq "$rc" "0" "exec with the whole runtime: $(cat err)"
rm wheel/lib/libcublas.so.13
run exec --cudnn c919 -- true
expect_eq "$rc:$(cat err)" "4:cudnnenv: error: the tree 'rt13' is incomplete: 'lib/libcublas.so.13' missing or changed since it was installed
  hint: see 'cudnnenv verify rt13'; launch anyway with --verify none" "exec with a runtime library gone"
pass "the check before a start names a selected runtime's missing library"

# --- item 12: a cuDNN under a name and soname of its own, loaded by path, is in the report ---
mkdir -p mine
cc -shared -fPIC -O1 -DFAKE_CUDNN_VERSION=90100 -DFAKE_CUDART_VERSION=12020 -Wl,-soname,libmine.so \
  -o mine/libmine.so "$E2E_DIR/../../selftest/stand_in_cudnn.c"
run exec --cudnn "tree 9.1" --report -- "$FIXTURES/load-cudnn" "$WORK/mine/libmine.so"
expect_eq "$rc:$(cat out)" "4:90100" "the program loaded the renamed copy (exit 4: a cuDNN from outside the tree)"
expect_eq "$(cat err)" "cudnnenv: report: pinned to 'tree 9.1' (cuDNN 9.1.0, $CUDNNENV_ROOT/tree 9.1/lib), mode audit
  OUTSIDE      $WORK/mine/libmine.so
cudnnenv: report: 1 cuDNN file(s) came from outside the tree" "--report names a cuDNN by what it exports"
pass "exec --report sees a cuDNN under a name and soname of its own"

# --- item 13: hints meant for pasting quote the tree's name ---
run export launcher "tree 9.1" --python "$PY"
expect_eq "$rc:$(cat err)" "0:cudnnenv: every start of it is 'cudnnenv exec --cudnn \"tree 9.1\" -- PYTHON': give it as the interpreter (PyCharm: Add Interpreter, System Interpreter, this path)" "export launcher's hint"
run export jupyter "tree 9.1" --python "$PY" --prefix "$WORK/env3"
expect_eq "$rc:$(cat err)" "0:cudnnenv: each start of the kernel runs 'cudnnenv exec --cudnn \"tree 9.1\" -- $PY -m ipykernel_launcher'; that Python needs ipykernel" "export jupyter's hint"
pass "export launcher and export jupyter quote the tree's name in their hints"

# --- snapshot -o never replaces a file that is not a snapshot ---
echo "my notes" > notes.txt
run snapshot -o notes.txt --no-load
expect_eq "$rc:$(cat err)" "2:cudnnenv: error: 'notes.txt' exists and is not a cudnnenv snapshot: it was left as it is
  hint: give another file with -o, or replace it: 'cudnnenv snapshot -o notes.txt --force'" "snapshot -o over a file that is not a snapshot"
expect_eq "$(cat notes.txt)" "my notes" "the file is left as it was"
# The hint, run as written, replaces it.
run snapshot -o notes.txt --force --no-load
expect_eq "$rc" "0" "snapshot -o notes.txt --force: $(cat err)"
python3 -c 'import json, sys; sys.exit(0 if "format" in json.load(open("notes.txt")) else 1)' || fail "--force wrote a snapshot: $(head -c 200 notes.txt)"
run snapshot -o snap.json --no-load
run snapshot -o snap.json --no-load
expect_eq "$rc" "0" "snapshot -o over an earlier snapshot: $(cat err)"
pass "snapshot -o replaces an earlier snapshot, another file only with the --force its hint names"
