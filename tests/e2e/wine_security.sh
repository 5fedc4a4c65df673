#!/usr/bin/env bash
# The security issue (#10) on the Windows build, under Wine:
#  5. a batch file (.bat/.cmd) started by `exec` and by a shim: arguments cmd
#     would re-read are refused with the reason, the rest arrive intact as
#     data (`&`, `|`, `(`, `^`, `<`...), and nothing runs;
#  1-4 with cmd and PowerShell output: an [env] key that is not a variable
#     name, `use --local` through the cmd integration (cudnnenv.bat) in a
#     folder named like code, an untrusted [env];
#  the cmd side of the property test: generated hostile [env] values in a
#     trusted project file, activated by Wine's cmd (a child program reads
#     them back), set exactly or refused.
# Not shown under Wine: case 3 (a project file that is a symbolic link):
# Wine shows a Unix link as the file it points to, not as a reparse point,
# so the link check is proven by the native test (security.sh) alone.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
"$WINE" reg delete 'HKCU\Software\Microsoft\Command Processor' /v AutoRun /f > /dev/null 2>&1 || true

RUNNER=$WINE
expect_error() {
  expect_eq "$rc" "$1" "exit code ($(cat err))"
  expect_eq "$(cat err)" "cudnnenv: error: $2
  hint: $3" "error"
}
crlf() { sed 's/$/\r/'; }
export CUDNNENV_ROOT="$(winpath "$WORK/store")"
make_windows_tree tree "$FIXTURES/fake-pe64-8.1.0.dll"
"$WINE" "$CUDNNENV" install "$(winpath "$WORK/tree/cuda")" --name t81 > /dev/null

# --- 5. batch files ------------------------------------------------------------
printf '@echo off\r\necho [%%1]\r\necho [%%2]\r\necho [%%3]\r\n' > tool.bat
cp tool.bat tool.cmd
batch_hint="cmd re-reads a batch file's command line: pass such a value in an environment variable or a file, or start a program (.exe) instead"
for tool in tool.bat tool.cmd; do
  run exec --cudnn t81 --verify none -- "$(winpath "$WORK/$tool")" '"&echo INJECTED' x
  expect_error 2 "argument 1 ('\"&echo INJECTED') for the batch file '$(winpath "$WORK/$tool")' has a double quote, which ends cmd's quoting: refused" "$batch_hint"
  run exec --cudnn t81 --verify none -- "$(winpath "$WORK/$tool")" x '%OS%'
  expect_error 2 "argument 2 ('%OS%') for the batch file '$(winpath "$WORK/$tool")' has a '%', which cmd expands as a variable even inside quotes: refused" "$batch_hint"
  run exec --cudnn t81 --verify none -- "$(winpath "$WORK/$tool")" 'a&b' '(x) | y ^ <z>' '&mkdir marker&'
  expect_eq "$rc" "0" "$tool with cmd's metacharacters as data ($(cat err))"
  expect_eq "$(cat out)" '["a&b"]
["(x) | y ^ <z>"]
["&mkdir marker&"]' "$tool: what the batch file received"
done
! grep -q INJECTED out || fail "INJECTED ran"
# Through a shim whose target is a batch file: the slow path (cudnnenv exec)
# and the fast path (the shim alone, from the cached decision) both refuse.
"$WINE" "$CUDNNENV" shim add tool --target "$(winpath "$WORK/tool.bat")" > /dev/null
shim="$WORK/store/.cudnnenv/shims/tool.exe"
export CUDNNENV_VERSION=t81 CUDNNENV_VERIFY=none
set +e
"$WINE" "$shim" '"&mkdir marker&"' > out 2> err; rc=$?
set -e
expect_eq "$rc" "2" "the shim's first start, through cudnnenv exec ($(cat err))"
"$WINE" "$shim" 'a&b' '(c)' > out 2> err || fail "the shim with safe arguments: $(cat err)"
expect_eq "$(tr -d '\r' < out)" '["a&b"]
["(c)"]
[]' "arguments through the shim to the batch file"
set +e
"$WINE" "$shim" '"&mkdir marker&"' > out 2> err; rc=$?
set -e
expect_eq "$rc" "127" "the shim's fast path refuses ($(cat err))"
expect_eq "$(tr -d '\r' < err)" "cudnnenv-shim: error: refused an argument for a batch file: '\"&mkdir marker&\"' has a double quote, which ends cmd's quoting" "the shim's message"
unset CUDNNENV_VERSION CUDNNENV_VERIFY
[ ! -e marker ] || fail "a batch argument ran as code"
pass "5: batch files through exec and a shim: cmd's metacharacters arrive as data, what cmd would re-read is refused"

# --- 1 and 4 with cmd and PowerShell output -------------------------------------
mkdir p1 && cd p1
printf 'cudnn = "t81"\n[env]\n"X&mkdir PWNED&" = "1"\n' > .cudnnenv.toml
for shell in cmd powershell; do
  run activate --shell "$shell"
  expect_error 1 "$(winpath "$WORK/p1/.cudnnenv.toml"):3:1: 'X&mkdir PWNED&' is not a variable name" \
    "[env] names are letters, digits and '_', not starting with a digit"
  [ ! -s out ] || fail "$shell: a refused activation printed a script"
done
printf 'cudnn = "t81"\n[env]\nPATH = "C:\\\\evil"\n' > .cudnnenv.toml
for shell in cmd powershell; do
  run activate --shell "$shell"
  expect_eq "$rc" "0" "$shell: untrusted [env]"
  expect_eq "$(cat err)" "cudnnenv: warning: '$(winpath "$WORK/p1/.cudnnenv.toml")' sets variables ([env]) and is not trusted: they were not set (hint: read it, then run 'cudnnenv trust' in '$(winpath "$WORK/p1")')
cudnnenv: activated 't81' (cuDNN 8.1.0) in this shell" "$shell: the warning, then what was activated"
  ! grep -q 'evil' out || fail "$shell: an untrusted PATH reached the script"
done
cd "$WORK"
pass "1, 4: cmd and PowerShell scripts never get a key that is not a variable name, nor an untrusted [env]"

# --- 2 through the cmd integration ---------------------------------------------
"$WINE" "$CUDNNENV" init cmd > /dev/null
hostile="$WORK/q&mkdir PWNED_cmd&(x)"
mkdir -p "$hostile"
cp "$FIXTURES/load-cudnn.exe" .
crlf > use.bat <<BATCH
@echo off
call "$(winpath "$WORK/store/.cudnnenv/cmd/init.bat")"
cd /d "$(winpath "$hostile")"
call "$(winpath "$WORK/store/.cudnnenv/cmd/cudnnenv.bat")" use t81 --local
echo rc=%errorlevel%> "$(winpath "$WORK/use.txt")"
echo [%CUDNNENV_ACTIVE%]>> "$(winpath "$WORK/use.txt")"
BATCH
# The session's variable is read by cmd itself (what its children inherit),
# not by a program: one start fewer under Wine (the one failure of this step
# seen in CI was cmd exiting non-zero with nothing shown, cause not known).
# (Wine's cmd has no doskey: init.bat's macro line fails there; cudnnenv.bat is called directly.)
wine_console use.out /c use.bat
[ "$rc" = 0 ] || fail "use --local through cudnnenv.bat: $(console_said use.out); use.txt: $(cat use.txt 2> /dev/null || echo '(none)')"
expect_eq "$(tr -d '\r' < use.txt)" "rc=0
[t81]" "use --local through cudnnenv.bat: the session switched at once ($(cat use.out))"
expect_eq "$(tr -d '\r' < "$hostile/.cudnnenv.toml")" 'cudnn = "t81"' "the project file"
[ -z "$(find "$WORK" -name 'PWNED*' -print -quit)" ] || fail "use --local ran part of its message in cmd"
pass "2: use --local through the cmd integration in a folder named like code: nothing ran, the session switched"

# --- the property test's cmd side -------------------------------------------------
test_seed
RANDOM=$seed
# No letters outside code page 437: Wine's cmd does not re-read a batch file
# after 'chcp 65001' (wine_activation.sh checks that script's shape instead).
# No '%' right before a letter, a digit or '~' (a space goes between): the
# script writes such a '%' as '%%', which Windows' cmd reads as '%' and Wine's
# as a FOR variable (%%x, %%~dp0), and Wine's cmd expands again what a
# variable expanded to, so no spelling reads alike in both. The unit tests
# and fuzz_cmd_script hold cmd's rule for them.
pieces=("'" '\' '$HOME' '&' '|' '&&' '%PATH%' '%' '%%' '!OS!' '!' '^' '^^' '(' ')' '<' '>' '*' '?' ';' ','
  '=' ' ' 'é' 'ü' '@' '#' 'a' 'Z' '0' '\\' '^!' '%~dp0' ':label')
mkdir p && cd p
checked=0 refused=0
for ((round = 0; round < ${PROPERTY_ROUNDS:-12}; round++)); do
  names=() values=()
  for ((k = 0; k < 4; k++)); do
    value=''
    for ((n = RANDOM % 6 + 1; n > 0; n--)); do value+=${pieces[RANDOM % ${#pieces[@]}]}; done
    value=$(printf '%s' "$value" | sed -E 's/%([[:alnum:]~éü])/% \1/g')
    names+=("P_${round}_$k") values+=("$value")
  done
  if ((round % 4 == 3)); then values[1]+='"'; fi  # a double quote: refused for cmd
  {
    echo 'cudnn = "t81"'
    echo '[env]'
    for ((k = 0; k < 4; k++)); do
      v=${values[k]//\\/\\\\}
      printf '%s = "%s"\n' "${names[k]}" "${v//\"/\\\"}"
    done
  } > .cudnnenv.toml
  "$WINE" "$CUDNNENV" trust > /dev/null 2>&1
  {
    echo '@echo off'
    echo "\"$(winpath "$CUDNNENV")\" activate --shell cmd > on.bat"
    echo 'if errorlevel 1 (echo refused& exit /b 0)'
    echo 'call on.bat'
    for ((k = 0; k < 4; k++)); do echo "\"$(winpath "$WORK/load-cudnn.exe")\" --env ${names[k]}"; done
  } | crlf > check.bat
  for mode in off on; do
    # Wine's cmd does not remove the carets that delayed expansion removes on
    # Windows (wine_activation.sh says the same): with '!' in a value, /v:on
    # is shown by the unit test of the escaped line, not here.
    if [ $mode = on ] && [[ "${values[*]}" == *'!'* ]]; then continue; fi
    script -qec "$WINE cmd /v:$mode /c check.bat > check.out" /dev/null > /dev/null 2>&1 < /dev/null ||
      fail "cmd /v:$mode round $round: cmd ended with an error: $(tr -d '\r' < check.out)"
    if ((round % 4 == 3)); then
      grep -q '^refused' <(tr -d '\r' < check.out) || fail "cmd round $round: a value with a double quote was not refused: $(cat check.out)"
      refused=$((refused + 1))
      continue
    fi
    expected=$(for ((k = 0; k < 4; k++)); do printf '[%s]\n' "${values[k]}"; done)
    expect_eq "$(tr -d '\r' < check.out)" "$expected" "cmd /v:$mode round $round
$(cat .cudnnenv.toml)"
    checked=$((checked + 1))
  done
  [ -z "$(find "$WORK" \( -name 'PWNED*' -o -name marker \) -print -quit)" ] || fail "cmd round $round: code ran"
done
pass "cmd: $checked generated activations (delayed expansion off and on) set exactly the intended values, $refused refused; nothing ran"
