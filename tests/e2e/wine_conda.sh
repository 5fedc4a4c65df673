#!/usr/bin/env bash
# export conda (#15) with the Windows build under Wine: the cmd hook
# (activate.d\cudnnenv-activate.bat, what conda's cmd activation calls)
# brings the tree into the cmd that runs it and deactivate.d's takes it out,
# errorlevel 0 both, every variable of the session as it was (`set`, byte
# for byte); every hook file is ASCII; a store whose path a batch
# file cannot carry in every code page gets no cmd hook, and says so. No
# conda here: the driver calls the hooks as conda's activate.bat does.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED _CUDNNENV_STATE CUDNNENV_ACTIVE CONDA_PREFIX
crlf() { sed 's/$/\r/'; }
make_windows_tree tree "$FIXTURES/fake-pe64-8.1.0.dll"
cp "$FIXTURES/load-cudnn.exe" show.exe
root="$WORK/libs"
env="$WORK/envs/tf 25"
mkdir -p "$root" "$env/conda-meta"
export CUDNNENV_ROOT=$(winpath "$root")
"$WINE" "$CUDNNENV" install "$(winpath "$WORK/tree/cuda")" --name t81 > /dev/null
RUNNER=$WINE
run export conda 8.1 --prefix "$(winpath "$env")"
expect_eq "$rc" "0" "export conda: $(cat err)"
expect_eq "$(grep -c '\.bat$' out)" "2" "the cmd hooks written: $(cat out)"
for f in "$env"/etc/conda/*/cudnnenv-*; do
  ! LC_ALL=C grep -q -P '[^\x00-\x7f]' "$f" || fail "$f holds more than ASCII"
done

crlf > driver.bat <<'BATCH'
@echo off
set > "%OUT%.before"
call "%ENV_DIR%\etc\conda\activate.d\cudnnenv-activate.bat"
> "%OUT%" echo activate: %errorlevel%
"%SHOW%" --env CUDNNENV_ACTIVE >> "%OUT%"
"%SHOW%" >> "%OUT%"
call "%ENV_DIR%\etc\conda\deactivate.d\cudnnenv-deactivate.bat"
>> "%OUT%" echo deactivate: %errorlevel%
"%SHOW%" --env CUDNNENV_ACTIVE >> "%OUT%"
set > "%OUT%.after"
BATCH
ENV_DIR=$(winpath "$env") SHOW=$(winpath "$WORK/show.exe") OUT=$(winpath "$WORK/out.txt") \
  "$WINE" cmd /c driver.bat > driver.out 2>&1 < /dev/null || fail "driver: $(cat driver.out)"
expect_eq "$(tr -d '\r' < out.txt)" "activate: 0
[t81]
8100
deactivate: 0
<unset>" "conda's cmd activation brings the tree and takes it out"
cmp -s out.txt.before out.txt.after || fail "the cmd session's variables after deactivation differ: $(diff out.txt.before out.txt.after)"
pass "the cmd hook of a conda env"

# A store with other letters: no cmd hook (the batch file would name it), the rest written.
other="$WORK/库 libs"
mkdir -p "$other" "$WORK/env2/conda-meta"
CUDNNENV_ROOT=$(winpath "$other") "$WINE" "$CUDNNENV" install "$(winpath "$WORK/tree/cuda")" --name t81 > /dev/null
CUDNNENV_ROOT=$(winpath "$other") run export conda 8.1 --prefix "$(winpath "$WORK/env2")"
expect_eq "$rc" "0" "export conda for a non-ASCII store: $(cat err)"
expect_eq "$(grep -c '\.bat$' out || true)" "0" "no cmd hook"
expect_eq "$(head -1 err)" "cudnnenv: no cmd hook: the store '$(winpath "$other")' or the spec '8.1' holds a letter a batch file cannot carry in every code page; the other shells' hooks are written" "the note"
pass "no cmd hook for a store a batch file cannot name"
