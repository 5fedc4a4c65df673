#!/usr/bin/env bash
# The Linux wheel, as a user installs it (#60): pip puts the native program
# itself in the venv's bin/ (no Python between a prompt hook and cudnnenv),
# its helpers in the venv's lib/cudnnenv/, where the program finds them:
# --version, selftest, exec --report pinning a fake tree, the prompt hook's
# processes (strace: the venv's cudnnenv and nothing else), and pip uninstall
# leaving the venv as it was.
source "$(dirname "$0")/lib.sh" "$@"
wheel=$DIST/cudnnenv-$VERSION-py3-none-manylinux_2_28_x86_64.whl
[ -f "$wheel" ] || fail "no $wheel"
/usr/bin/python3 -m venv v > venv.out 2>&1 || fail "python3 -m venv: $(cat venv.out)"
(cd v && find . | sort) > before.txt
v/bin/pip install --no-index --disable-pip-version-check -q "$wheel" > pip.out 2>&1 || fail "pip install: $(cat pip.out)"
expect_eq "$(v/bin/cudnnenv --version)" "cudnnenv $VERSION" "--version of the wheel's cudnnenv"
expect_eq "$(head -c 4 v/bin/cudnnenv | od -An -c | tr -d ' ')" "177ELF" "bin/cudnnenv is the native program, not a Python launcher"
expect_eq "$(cd v/lib/cudnnenv && ls)" "cudnnenv-fetch
cudnnenv-probe
cudnnenv-shim
cudnnenv-task-prolog
cudnnenv_spank.so
libcudnnenv-audit-report.so
libcudnnenv-audit.so
selftest" "the helpers in the venv's lib/cudnnenv/"
pass "pip install of the wheel: the native program in bin/, its helpers in lib/cudnnenv/"

v/bin/cudnnenv selftest --json > selftest.json 2> selftest.err || fail "selftest: $(cat selftest.json selftest.err)"
expect_eq "$(selftest_verdict selftest.json)" \
  "True ['held']" "selftest of the wheel's cudnnenv"
make_linux_tree tree 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
v/bin/cudnnenv install tree --name t > /dev/null || fail "install with the wheel's cudnnenv"
run_program v/bin/cudnnenv exec --cudnn t --report -- "$FIXTURES/load-cudnn"
expect_eq "$rc:$(cat out)" "0:90100" "exec of a program that loads libcudnn.so.9 ($(cat err))"
expect_eq "$(cat err)" "cudnnenv: report: pinned to 't' (cuDNN 9.1.0, $CUDNNENV_ROOT/t/lib), mode audit
  in the tree  $CUDNNENV_ROOT/t/lib/libcudnn.so.9.1.0" "exec --report with the wheel's audit module"
pass "selftest holds and exec pins a fake tree, from the venv"

# The prompt hook: every process the shell starts on entering a project is the venv's cudnnenv.
mkdir project
printf 'cudnn = "t"\n' > project/.cudnnenv.toml
strace -f -qq -e trace=execve -e signal=none -o trace.txt \
  bash --norc --noprofile -c 'eval "$("$0" init bash)"; cd project && _cudnnenv_hook && echo "$CUDNNENV_ACTIVE"' \
  "$WORK/v/bin/cudnnenv" > hook.out 2> hook.err || fail "the hook: $(cat hook.err)"
expect_eq "$(cat hook.out)" "t" "the hook selected the project's tree"
started=$(grep -o 'execve("[^"]*"' trace.txt | cut -d'"' -f2 | LC_ALL=C sort -u)
expect_eq "$started" "$(printf '%s\n' "$(command -v bash)" "$WORK/v/bin/cudnnenv" | LC_ALL=C sort)" \
  "the programs the shell started (strace)"
pass "the prompt hook from the venv starts the native cudnnenv and no Python"

v/bin/pip uninstall -y -q cudnnenv > uninstall.out 2>&1 || fail "pip uninstall: $(cat uninstall.out)"
(cd v && find . | sort) > after.txt
expect_eq "$(diff before.txt after.txt)" "" "the venv after pip uninstall"
pass "pip uninstall leaves no file of ours"
