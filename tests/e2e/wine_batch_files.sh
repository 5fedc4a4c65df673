#!/usr/bin/env bash
# Issue 12.1: the batch files cudnnenv writes (init.bat, cudnnenv.bat, the
# profiles' activate.bat and deactivate.bat) hold only ASCII, and work with
# the console in code page 437 and in 936 whatever letters the store's folder
# and cudnnenv's own folder hold (é, 中文, and & ( ) for good measure): the
# store is found from the file's own folder (%~dp0) and cudnnenv through a
# variable, the file's folder, or PATH, when the file runs. A failed
# activation leaves errorlevel 1.
# cmd runs under `script`, on a pseudo-terminal: only with a terminal does
# Wine give cmd a console whose code page `chcp` sets. Not shown under Wine:
# Wine's cmd reads batch files in the OEM code page of its locale (437 here)
# whatever `chcp` says, where Windows reads each line in the console's code
# page of the moment; an ASCII file reads the same either way, which is why
# the files are ASCII, and so is what cudnnenv prints for them to run (PATH's
# entries as %PATH:~start,length%, the store as %_CUDNNENV_ROOT%). doskey (the `cudnnenv` macro) is not in Wine: the
# driver calls cudnnenv.bat as the macro would.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
"$WINE" reg delete 'HKCU\Software\Microsoft\Command Processor' /v AutoRun /f > /dev/null 2>&1 || true
crlf() { sed 's/$/\r/'; }
ascii_only() { ! LC_ALL=C grep -q -P '[^\x00-\x7f]' "$1" || fail "$1 holds more than ASCII: $(LC_ALL=C grep -n -P '[^\x00-\x7f]' "$1")"; }

make_windows_tree tree "$FIXTURES/fake-pe64-8.1.0.dll"
cp "$FIXTURES/load-cudnn.exe" show.exe
# cudnnenv with its two helpers, copied into a folder named with other letters.
install_program() {
  mkdir -p "$1"
  cp "$(dirname "$CUDNNENV")"/cudnnenv.exe "$(dirname "$CUDNNENV")"/cudnnenv-shim.exe \
     "$(dirname "$CUDNNENV")"/cudnnenv-probe.exe "$1/"
}

# The driver is ASCII too: every path comes in through the environment.
crlf > driver.bat <<'BATCH'
@echo off
chcp %CODE_PAGE% >nul
call "%CMD_DIR%\init.bat" 2>nul
"%SHOW%" --env _CUDNNENV_SHIMS_ON_PATH > "%OUT%"
cd /d "%PROJECT%"
call "%CMD_DIR%\cudnnenv.bat" use t81 --local
>> "%OUT%" echo use: %errorlevel%
"%SHOW%" --env CUDNNENV_ACTIVE >> "%OUT%"
"%SHOW%" >> "%OUT%"
cd /d "%WORK_DIR%"
call "%CMD_DIR%\cudnnenv.bat" deactivate
>> "%OUT%" echo deactivate: %errorlevel%
"%SHOW%" --env CUDNNENV_ACTIVE >> "%OUT%"
call "%PROFILE_DIR%\activate.bat"
>> "%OUT%" echo profile: %errorlevel%
"%SHOW%" --env CUDNNENV_ACTIVE >> "%OUT%"
"%SHOW%" --env TF_CPP_MIN_LOG_LEVEL >> "%OUT%"
call "%PROFILE_DIR%\deactivate.bat"
>> "%OUT%" echo profile off: %errorlevel%
"%SHOW%" --env CUDNNENV_ACTIVE >> "%OUT%"
"%SHOW%" --env _CUDNNENV_EXE >> "%OUT%"
"%SHOW%" --env _CUDNNENV_ROOT >> "%OUT%"
BATCH

# One case: a store root, a folder for cudnnenv, whether that folder is on PATH.
check_case() {
  local root=$1 bin=$2 on_path=$3 code_page=$4 label=$5
  rm -rf "$root" "$WORK/project"
  install_program "$bin"
  mkdir -p "$root" "$WORK/project"
  local exe; exe=$(winpath "$bin/cudnnenv.exe")
  local path_prefix=; [ "$on_path" = yes ] && path_prefix=$(winpath "$bin")
  WINEPATH=$path_prefix "$WINE" "$exe" --root "$(winpath "$root")" install "$(winpath "$WORK/tree/cuda")" --name t81 > /dev/null
  WINEPATH=$path_prefix "$WINE" "$exe" --root "$(winpath "$root")" init cmd > /dev/null
  WINEPATH=$path_prefix "$WINE" "$exe" --root "$(winpath "$root")" profile generate tf2.5 > /dev/null
  for f in "$root/.cudnnenv/cmd/init.bat" "$root/.cudnnenv/cmd/cudnnenv.bat" \
           "$root/.cudnnenv/profiles/tf2.5/activate.bat" "$root/.cudnnenv/profiles/tf2.5/deactivate.bat"; do
    ascii_only "$f"
  done
  rm -f out.txt
  CODE_PAGE=$code_page CMD_DIR=$(winpath "$root/.cudnnenv/cmd") PROFILE_DIR=$(winpath "$root/.cudnnenv/profiles/tf2.5") \
    SHOW=$(winpath "$WORK/show.exe") OUT=$(winpath "$WORK/out.txt") PROJECT=$(winpath "$WORK/project") \
    WORK_DIR=$(winpath "$WORK") CUDNNENV_ROOT=$(winpath "$root") WINEPATH=$path_prefix \
    wine_console driver.out /c driver.bat
  [ "$rc" = 0 ] || fail "$label: $(console_said driver.out)"
  expect_eq "$(tr -d '\r' < out.txt)" "[$(winpath "$root/.cudnnenv/shims")]
use: 0
[t81]
8100
deactivate: 0
<unset>
profile: 0
[t81]
[0]
profile off: 0
<unset>
<unset>
<unset>" "$label: init.bat, cudnnenv.bat use/deactivate, the profile's activate.bat/deactivate.bat ($(cat driver.out))"
  pass "$label, code page $code_page"
}

for code_page in 437 936; do
  check_case "$WORK/库 中文" "$WORK/库 中文/tools" no $code_page "store '库 中文', cudnnenv in the store's 'tools' (found from %~dp0)"
done
for code_page in 437 936; do
  check_case "$WORK/libs é & (x)" "$WORK/bin é" yes $code_page "store 'libs é & (x)', cudnnenv in 'bin é' on PATH"
  check_case "$WORK/libs" "$WORK/bin 中文" yes $code_page "store 'libs', cudnnenv in 'bin 中文' on PATH"
done

# cudnnenv in a folder not on PATH, under no variable, outside the store:
# its short (8.3) name, which Wine makes for every long name. (Windows makes
# them only where the volume does; with none, init refuses with the way out:
# the unit test "batch_path_line", which Wine cannot reach.)
check_case "$WORK/plain" "$WORK/工具 é" no 936 "cudnnenv in '工具 é', not on PATH (by its short name)"
grep -q '^@set "_CUDNNENV_EXE=Z:\\tmp\\[A-Z0-9~]*\\[A-Z0-9_~]*\\cudnnenv.exe"' "$WORK/plain/.cudnnenv/cmd/cudnnenv.bat" ||
  fail "the short name: $(grep -a _CUDNNENV_EXE= "$WORK/plain/.cudnnenv/cmd/cudnnenv.bat" | head -1)"

# A failed activation: the profile's tree was removed after the files were written.
root="$WORK/libs é & (x)"
"$WINE" "$(winpath "$WORK/bin é/cudnnenv.exe")" --root "$(winpath "$root")" remove t81 --yes > /dev/null
crlf > failed.bat <<'BATCH'
@echo off
chcp 437 >nul
call "%PROFILE_DIR%\activate.bat"
> "%OUT%" echo profile: %errorlevel%
"%SHOW%" --env CUDNNENV_ACTIVE >> "%OUT%"
call "%CMD_DIR%\cudnnenv.bat" activate t81
>> "%OUT%" echo activate: %errorlevel%
BATCH
PROFILE_DIR=$(winpath "$root/.cudnnenv/profiles/tf2.5") CMD_DIR=$(winpath "$root/.cudnnenv/cmd") \
  SHOW=$(winpath "$WORK/show.exe") OUT=$(winpath "$WORK/out.txt") WINEPATH=$(winpath "$WORK/bin é") \
  CUDNNENV_ROOT=$(winpath "$root") NO_COLOR=1 wine_console failed.out /c failed.bat
expect_eq "$(tr -d '\r' < out.txt)" "profile: 1
<unset>
activate: 1" "a failed activation's errorlevel ($(console_said failed.out))"
grep -q "cudnnenv: error: no installed cuDNN runs TensorFlow 2.5" failed.out || fail "the error is shown: $(console_said failed.out)"
pass "a failed activation (profile and cudnnenv.bat) leaves errorlevel 1 and the session unchanged"
