#!/usr/bin/env bash
# Activation in Wine's cmd, with delayed expansion off and on: a batch file
# activates (the script cudnnenv.exe prints, CRLF, in the console's code
# page or switching to 65001), checks the variables through a child
# program (cmd's echo would print them in the console code page), and
# deactivates, 20 times; the environment after (`set`) equals the one before,
# byte for byte. The store's path holds characters cmd treats as code
# (&, %, !, ^, parentheses, ;) and Chinese; a marker file proves none ran.
# cmd runs under `script`, on a pseudo-terminal: only with a terminal does
# Wine give its programs a console (code page 437 here), and only with a
# console does `chcp` switch how cmd reads the rest of a batch file. Not
# shown here: consoles with other code pages (936, 1252...).
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all

# A run that failed half-way may have left an AutoRun entry (tested at the
# end) that every cmd below would run: start without one.
"$WINE" reg delete 'HKCU\Software\Microsoft\Command Processor' /v AutoRun /f > /dev/null 2>&1 || true

make_windows_tree tree "$FIXTURES/fake-pe64-8.1.0.dll"
root_off="$WORK/C libs 'q' & %PATH% !OS! ^ \$HOME (x) & mkdir marker é ü"
root_on="$WORK/D libs 'q' & %PATH% ^ \$HOME (x) & mkdir marker é ü"
for root in "$root_off" "$root_on"; do
  mkdir -p "$root"
  "$WINE" "$CUDNNENV" --root "$(winpath "$root")" install "$(winpath "$WORK/tree/cuda")" --name t81 > /dev/null
done
cp "$FIXTURES/load-cudnn.exe" .
cudnnenv=$(winpath "$CUDNNENV")
show=$(winpath "$WORK/load-cudnn.exe")

crlf() { sed 's/$/\r/'; }
# The driver: what a user's cmd session would do, 20 times. The store root
# comes in through the environment (Wine passes it on).
crlf > driver.bat <<BATCH
@echo off
set > before.txt
for /l %%i in (1,1,20) do call :round
set > after.txt
exit /b 0
:round
"$cudnnenv" activate t81 --shell cmd > on.bat
call on.bat
"$show" --env CUDNN_PATH >> active.txt
"$show" --env CUDNNENV_ACTIVE >> active.txt
"$cudnnenv" deactivate --shell cmd > off.bat
call off.bat
exit /b 0
BATCH

for mode in off on; do
  if [ $mode = off ]; then root=$root_off; else root=$root_on; fi
  export CUDNNENV_ROOT="$(winpath "$root")"
  rm -rf before.txt after.txt active.txt marker
  wine_console out.txt /v:$mode /c driver.bat
  [ "$rc" = 0 ] || fail "cmd /v:$mode: $(console_said out.txt)"
  [ ! -e marker ] && [ ! -e "$root/marker" ] && [ ! -e "$WORK/marker" ] || fail "cmd /v:$mode: something in the store's path ran as code"
  cmp -s before.txt after.txt || fail "cmd /v:$mode: the environment differs after 20 rounds:
$(diff before.txt after.txt)"
  expect_eq "$(tr -d '\r' < active.txt | sort | uniq -c | sed 's/^ *//')" "20 [$(winpath "$root/t81")]
20 [t81]" "cmd /v:$mode: the values set"
  pass "cmd with delayed expansion $mode: 20 activations leave 'set' byte for byte as it was; the path stayed data"
done
[ "$(grep -c $'\r$' on.bat)" = "$(wc -l < on.bat)" ] || fail "the cmd script is not CRLF throughout: $(cat -A on.bat | head -3)"
pass "the script for cmd has CRLF line ends"

chinese="$WORK/库 目录"
mkdir -p "$chinese"
"$WINE" "$CUDNNENV" --root "$(winpath "$chinese")" install "$(winpath "$WORK/tree/cuda")" --name t81 > /dev/null
printf '#!/bin/sh\nexec "%s" "%s" --root "%s" activate t81 --shell cmd > chinese.bat\n' "$WINE" "$CUDNNENV" \
  "$(winpath "$chinese")" > chinese.sh
script -qec "sh chinese.sh" /dev/null < /dev/null > /dev/null 2>&1  # with a console, as a user's cmd has
expect_eq "$(head -2 chinese.bat | tr -d '\r')" "@for /f \"tokens=2 delims=:\" %%c in ('chcp') do @set \"_CUDNNENV_CP=%%c\"
@chcp 65001 >nul" "the first lines of a script whose values code page 437 lacks"
expect_eq "$(tail -2 chinese.bat | tr -d '\r')" "@chcp %_CUDNNENV_CP% >nul
@set \"_CUDNNENV_CP=\"" "the last lines: the code page restored"
grep -q "CUDNN_PATH=$(winpath "$chinese/t81" | sed 's/\\/\\\\/g')\"" chinese.bat || fail "the values are not UTF-8: $(cat chinese.bat)"
pass "values code page 437 lacks: UTF-8 between 'chcp 65001' and the old code page's return"

semicolon="$WORK/a;b"
mkdir -p "$semicolon"
"$WINE" "$CUDNNENV" --root "$(winpath "$semicolon")" install "$(winpath "$WORK/tree/cuda")" --name t81 > /dev/null
set +e; "$WINE" "$CUDNNENV" --root "$(winpath "$semicolon")" activate t81 --shell cmd > out 2> err; rc=$?; set -e
expect_eq "$rc" "1" "activation from a store whose path has a ';'"
grep -q "has a ';', which PATH cannot hold" err || fail "message: $(cat err)"
pass "a store path with ';' is refused with a one-line error"

# profile generate: activate.bat works in a plain cmd, with no integration.
plain="$WORK/plain root"
mkdir -p "$plain"
"$WINE" "$CUDNNENV" --root "$(winpath "$plain")" install "$(winpath "$WORK/tree/cuda")" --name t81 > /dev/null
"$WINE" "$CUDNNENV" --root "$(winpath "$plain")" profile generate tf2.5 > /dev/null
profile_dir=$(winpath "$plain/.cudnnenv/profiles/tf2.5")
crlf > profile.bat <<BATCH
@echo off
set > before.txt
call "$profile_dir\\activate.bat"
"$show" --env CUDNNENV_ACTIVE > profile.txt
"$show" --env TF_CPP_MIN_LOG_LEVEL >> profile.txt
call "$profile_dir\\deactivate.bat"
set > after.txt
BATCH
unset CUDNNENV_ROOT
wine_console out.txt /c profile.bat
[ "$rc" = 0 ] || fail "profile.bat: $(console_said out.txt)"
expect_eq "$(tr -d '\r' < profile.txt)" "[t81]
[0]" "the generated activate.bat in a plain cmd ($(cat out.txt))"
cmp -s before.txt after.txt || fail "the generated scripts leave cmd's environment changed: $(diff before.txt after.txt)"
pass "profile generate tf2.5: activate.bat and deactivate.bat work in a plain cmd and undo exactly"

# init powershell warns when the execution policy would keep $PROFILE from running.
key='HKCU\Software\Microsoft\PowerShell\1\ShellIds\Microsoft.PowerShell'
policy_warning() { "$WINE" "$CUDNNENV" init powershell 2>&1 > /dev/null | tr -d '\r'; }
"$WINE" reg delete "$key" /v ExecutionPolicy /f > /dev/null 2>&1 || true
policy_warning | grep -q "execution policy is Restricted (the default on Windows clients): it will not run your \$PROFILE" ||
  fail "no warning for the default policy: $(policy_warning)"
"$WINE" reg add "$key" /v ExecutionPolicy /d RemoteSigned /f > /dev/null 2>&1
expect_eq "$(policy_warning)" "" "init powershell under RemoteSigned"
"$WINE" reg add "$key" /v ExecutionPolicy /d AllSigned /f > /dev/null 2>&1
policy_warning | grep -q "execution policy is AllSigned (CurrentUser)" || fail "no warning for AllSigned: $(policy_warning)"
"$WINE" reg delete "$key" /v ExecutionPolicy /f > /dev/null 2>&1
pass "init powershell: a warning with the fix under Restricted (the default) and AllSigned, none under RemoteSigned"

# init cmd: cudnnenv.bat (what the doskey macro runs) changes the session;
# --autorun adds one entry to AutoRun, once, after what was there; deinit
# takes out exactly that.
export CUDNNENV_ROOT="$(winpath "$plain")"
"$WINE" "$CUDNNENV" init cmd > init.out
cmd_dir=$(winpath "$plain/.cudnnenv/cmd")
[ -f "$plain/.cudnnenv/cmd/init.bat" ] && [ -f "$plain/.cudnnenv/cmd/cudnnenv.bat" ] || fail "init cmd wrote: $(cat init.out)"
crlf > macro.bat <<BATCH
@echo off
set > before.txt
call "$cmd_dir\\cudnnenv.bat" activate t81
"$show" --env CUDNNENV_ACTIVE > macro.txt
call "$cmd_dir\\cudnnenv.bat" deactivate
"$show" --env CUDNNENV_ACTIVE >> macro.txt
set > after.txt
BATCH
wine_console out.txt /c macro.bat
[ "$rc" = 0 ] || fail "macro.bat: $(console_said out.txt)"
expect_eq "$(tr -d '\r' < macro.txt)" "[t81]
<unset>" "cudnnenv.bat activate, then deactivate ($(cat out.txt))"
cmp -s before.txt after.txt || fail "cudnnenv.bat leaves cmd's environment changed: $(diff before.txt after.txt)"
pass "init cmd: what the doskey macro runs activates and deactivates this cmd"

autorun_key='HKCU\Software\Microsoft\Command Processor'
autorun() { "$WINE" reg query "$autorun_key" /v AutoRun 2> /dev/null | tr -d '\r' | sed -n 's/^ *AutoRun *REG_[A-Z_]* *//p'; }
"$WINE" reg add "$autorun_key" /v AutoRun /d "echo mine" /f > /dev/null 2>&1
"$WINE" "$CUDNNENV" init cmd --autorun > /dev/null
"$WINE" "$CUDNNENV" init cmd --autorun > /dev/null
part="if exist \"$cmd_dir\\init.bat\" call \"$cmd_dir\\init.bat\""
expect_eq "$(autorun)" "echo mine & $part" "AutoRun after init cmd --autorun, twice"
"$WINE" "$CUDNNENV" deinit cmd > /dev/null
expect_eq "$(autorun)" "echo mine" "AutoRun after deinit cmd"
"$WINE" reg delete "$autorun_key" /v AutoRun /f > /dev/null 2>&1
pass "init cmd --autorun adds its entry once, after the user's; deinit cmd takes out exactly that"
