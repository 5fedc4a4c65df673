#!/usr/bin/env bash
# One selection (#11) in Wine's cmd, with the integration as `init cmd` writes
# it (cudnnenv.bat, what the doskey macro runs): after `use --global`, `use
# --local`, `activate`, `deactivate` and a plain `use`, five views name the
# same tree: the session's CUDNNENV_ACTIVE, `current --json`, `which`, what
# load-cudnn.exe loads through its shim, and what it loads through `exec`;
# then `use --help` (printed, never called) and `use --unset` (#22)
# (it prints the cudnnGetVersion() of the cudnn64_8.dll it loaded by name).
#
# What Wine cannot show: a `cd` into another project. cmd has no prompt hook;
# on Windows a `cd` doskey macro could run `cudnnenv hook`, but Wine's cmd
# does not run doskey macros, so this test changes folders only before a
# cudnnenv.bat call (which runs the hook after use and deactivate).
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
unset CUDNNENV_VERSION CUDNNENV_SHELL _CUDNNENV_STATE CUDNNENV_ACTIVE CUDNNENV_ACTIVATED
root="$WORK/C libs"
mkdir -p "$root" prog project
export CUDNNENV_ROOT=$(winpath "$root")
for version in 8.1.0 8.2.0 8.9.7; do
  make_windows_tree "t$version" "$FIXTURES/fake-pe64-$version.dll" "$version"
  "$WINE" "$CUDNNENV" install "$(winpath "$WORK/t$version/cuda")" --name "t$version" > /dev/null
done
cp "$FIXTURES/load-cudnn.exe" prog/
"$WINE" "$CUDNNENV" init cmd > /dev/null
WINEPATH="$(winpath "$WORK/prog")" "$WINE" "$CUDNNENV" shim add load-cudnn > /dev/null
cudnnenv=$(winpath "$CUDNNENV")
macro="$CUDNNENV_ROOT\\.cudnnenv\\cmd\\cudnnenv.bat"
program=$(winpath "$WORK/prog/load-cudnn.exe")

crlf() { sed 's/$/\r/'; }
crlf > driver.bat <<BATCH
@echo off
call "$CUDNNENV_ROOT\\.cudnnenv\\cmd\\init.bat"
set "PATH=%PATH%;$(winpath "$WORK/prog")"
set "CUDNNENV_VERIFY=none"
call "$macro" use t8.2.0 --global
call :views global
cd project
call "$macro" use t8.1.0 --local
call :views local
call "$macro" activate t8.9.7
call :views activate
call "$macro" deactivate
call :views deactivate
call "$macro" use t8.2.0
call :views use
call "$macro" use --help 2> "%~dp0use-help.txt"
call :views help
call "$macro" use --unset
call :views unset
exit /b 0
:views
"$program" --env CUDNNENV_ACTIVE > "%~dp0%1.active"
"$cudnnenv" current --json > "%~dp0%1.json"
"$cudnnenv" which > "%~dp0%1.which"
load-cudnn.exe > "%~dp0%1.shim"
"$cudnnenv" exec -- "$program" > "%~dp0%1.exec"
exit /b 0
BATCH
wine_console out.txt /c driver.bat
[ "$rc" = 0 ] || fail "driver.bat: $(console_said out.txt)"

views() {
  local step=$1
  printf '%s %s %s %s %s %s\n' "$step" "$(tr -d '\r[]' < "$step.active")" "$(json_field name < "$step.json")" \
    "$(tr -d '\r' < "$step.which" | sed 's|.*\\\(t[0-9.]*\)\\bin\\cudnn64_8.dll$|\1|')" \
    "$(tr -d '\r' < "$step.shim")" "$(tr -d '\r' < "$step.exec")"
}
actual=$(for step in global local activate deactivate use help unset; do views "$step"; done)
expect_eq "$actual" "global t8.2.0 t8.2.0 t8.2.0 8200 8200
local t8.1.0 t8.1.0 t8.1.0 8100 8100
activate t8.9.7 t8.9.7 t8.9.7 8907 8907
deactivate t8.1.0 t8.1.0 t8.1.0 8100 8100
use t8.2.0 t8.2.0 t8.2.0 8200 8200
help t8.2.0 t8.2.0 t8.2.0 8200 8200
unset t8.1.0 t8.1.0 t8.1.0 8100 8100" "cmd: the session, current, which, a shim and exec ($(tail -5 out.txt))"
pass "cmd: after use --global, use --local, activate, deactivate, use, use --help and use --unset, every view names the same tree"
# The help went to the console as text (here: the file its stderr was sent to), whole; nothing was called.
expect_eq "$(tr -d '\r' < use-help.txt)" "$("$WINE" "$CUDNNENV" use --help | tr -d '\r')" "cmd: use --help through cudnnenv.bat"
pass "cmd: use --help through the integration prints the help whole and changes nothing"
