#!/usr/bin/env bash
# Every hint runs as written (issue 41). A table of situations, each one where
# cudnnenv prints a hint or a fix: the trigger runs, every command its hint and
# fix lines name ('cudnnenv ...' in quotes, or after "run:", "then:", "one:")
# is taken from the text as printed and run in the same folder, and it must
# neither be refused as a usage error (exit 2) nor fail for the reason the
# hint was printed. Network commands run against a closed port
# (CUDNNENV_MIRROR): they must get as far as the download. A confirmation
# (remove) is answered "y".
#
# Then the kinds of hint command the product can print (the subcommand after
# 'cudnnenv ' in the sources' quoted hints) against those run here: a kind
# neither run nor listed in `not_run` (with its reason) fails, and the counts
# are printed.
# Usage: hints.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state" HOME="$WORK/home"
mkdir -p "$HOME"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_SHELL CUDNNENV_CUDA_INDEX CUDNNENV_MIRROR
mkdir -p bin && ln -s "$CUDNNENV" bin/cudnnenv
export PATH="$WORK/bin:$PATH"
SOURCES_ROOT=$E2E_DIR/../..

covered=""
# The commands a hint names, from the text on stdin, one a line.
cat > extract.py <<'PY'
import re, sys
found = []
for line in sys.stdin:
    if not re.search(r"(^\s*(hint|fix):|hint:|^cudnnenv: warning:|^[0-9]+ checks: )", line):
        continue
    for command in (re.findall(r"'(cudnnenv [^']*)'", line) +
                    re.findall(r"(?:run|then|here|one): (cudnnenv [^;'()]*)", line)):
        command = command.strip()
        if command.endswith(" ..."):
            command = command[:-4]  # "and its arguments"
        if command not in found:
            found.append(command)
print("".join(c + "\n" for c in found), end="")
PY
# hint_case ID REASON TRIGGER...: runs `cudnnenv TRIGGER` (in the current folder), then each command its
# hints name; REASON (an extended regex) is what the trigger said and no hinted command may say again.
# With `only` set (subcommands, space-separated), the commands of other subcommands are named, not run.
hint_case() {
  local id=$1 reason=$2
  shift 2
  run "$@"
  cat out err | grep -qE "$reason" || fail "$id: the trigger did not say /$reason/: $(cat out err)"
  cat out err | python3 "$WORK/extract.py" > "$WORK/commands"
  [ -s "$WORK/commands" ] || fail "$id: no command in the hint: $(cat err)"
  while IFS= read -r command; do
    if grep -qE '<[a-z]+>|\b(FILE|TREE|SPEC|RELEASE|PROGRAM|NAME|FOLDER)\b' <<< "$command"; then
      fail "$id: the hint '$command' does not run as written (a placeholder)"
    fi
    local kind
    kind=$(awk '{ print $2 }' <<< "$command")
    if [ -n "${only:-}" ] && ! grep -qw -- "$kind" <<< "$only"; then
      echo "  $id: '$command' (not run in this case)"
      continue
    fi
    set +e
    CUDNNENV_MIRROR=http://127.0.0.1:9 bash -c "$command" > hinted.out 2> hinted.err <<< y  # "y" to a confirmation, as at a terminal
    local hinted_rc=$?
    set -e
    [ "$hinted_rc" != 2 ] || fail "$id: '$command' is refused as a usage error: $(cat hinted.err)"
    ! grep -qE "$reason" hinted.err || fail "$id: '$command' fails for the reason the hint was printed: $(cat hinted.err)"
    covered+=" $kind"
    echo "  $id: '$command' -> exit $hinted_rc"
  done < "$WORK/commands"
}

make_linux_tree t9.1 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
make_linux_tree t9.2 9.2.0 "$FIXTURES/fake-elf64-9.2.0.so"
run install ./t9.1 --name a -q
run install ./t9.1 --name b -q

hint_case unknown-command "is not a cudnnenv command" frobnicate
hint_case use-without-integration "only through the shell integration" use a
hint_case subcommand-required "a subcommand is required" cache
hint_case cuda-variant "say which" install 9.1
hint_case one-word-too-many "one word too many" install 9.1 11.8
echo "my notes" > notes.txt
hint_case snapshot-over-a-file "is not a cudnnenv snapshot" snapshot -o notes.txt
expect_eq "$(head -c 1 notes.txt)" "{" "the hinted --force replaced the file with a snapshot"
hint_case profile-without-tree "no installed cuDNN runs TensorFlow 2.5" current --cudnn tf2.5
hint_case name-taken "is already in the store" install ./t9.2 --name a
run install ./t9.2 --name a -q  # the hint removed 'a': the name is free again
expect_eq "$rc" "0" "install after the hinted remove: $(cat err)"
mkdir -p project && printf 'cudnn = "a"\n[env]\nFOO = "1"\n' > project/.cudnnenv.toml
cd project
hint_case untrusted-env "is not trusted" current
run current
! grep -q "not trusted" err || fail "the hinted trust did not take: $(cat err)"
cd "$WORK"
rm "$CUDNNENV_ROOT/b/lib/libcudnn_ops.so.9.1.0"
hint_case damaged-tree "is incomplete" exec --cudnn b -- true
run use a --global
only="verify remove install shim exec doctor" hint_case doctor-fixes "files? differs? from the manifest" doctor --for bash
run doctor --for bash --json
expect_eq "$(python3 -c 'import json; print({c["id"]: c for c in json.load(open("out"))["checks"]}["integrity"]["status"])')" "ok" \
  "doctor's integrity fix, run as written, reinstalled the tree"
hint_case unknown-profile "there is no profile" profile show qqqqqqqqqqqq
hint_case store-empty "no store at" --root "$WORK/empty" list
hint_case no-match "no installed cuDNN matches" current --cudnn 7.9
hint_case no-program "no 'nosuch-python' on PATH" frameworks --for nosuch-python
pass "each hint's commands run as written, none failing for the reason it was printed"

# The kinds of hint command in the sources, against those run above.
declare -A not_run=(
  [use]="'use NAME', 'use --unset' change a shell: they run in an integrated bash, zsh, fish and cmd (hook.sh, activation.sh, wine_activation.sh)"
  [activate]="named in a warning about what outranks a file, typed in a shell (activation.sh)"
  [deactivate]="the same: a shell's command (activation.sh)"
  [deinit]="'deinit cmd' undoes cmd's AutoRun, Windows only (wine_activation.sh)"
  [export]="doctor's kernel and VS Code fixes need a Jupyter kernel or a workspace (jupyter.sh, ide.sh run them)"
  [selftest]="printed after a failed selftest case: 'selftest --json' (selftest.sh)"
  [lock]="'cudnnenv lock' needs a project file and an index of archives (lock.sh runs it)"
  [sync]="'cudnnenv sync' needs a lock and a mirror of the archive (lock.sh runs it)"
  [mirror]="'cudnnenv mirror create' needs an archive server or folder (mirror.sh runs verify's hint against its server)"
)
kinds=$(grep -rhoE "'cudnnenv [-a-z]+" "$SOURCES_ROOT/manager" --include='*.cpp' | awk '{ print $2 }' | sort -u)
covered_kinds=$(tr ' ' '\n' <<< "$covered" | grep . | sort -u)
total=$(wc -l <<< "$kinds")
run_count=0
missing=""
for kind in $kinds; do
  if grep -qx -- "$kind" <<< "$covered_kinds"; then
    run_count=$((run_count + 1))
  elif [ -z "${not_run[$kind]:-}" ]; then
    missing+=" $kind"
  fi
done
echo "hint kinds: $total in the sources, $run_count run as written here, ${#not_run[@]} listed as not run"
[ -z "$missing" ] || fail "hint kinds neither run here nor listed in not_run:$missing"
pass "every kind of hint command is run here or listed with its reason"
