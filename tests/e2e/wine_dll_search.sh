#!/usr/bin/env bash
# Issue 12, items 4 and 2, under Wine.
#  4. A program that loads with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (as Python
#     3.8+ loads ctypes libraries and extension modules: the program's folder,
#     AddDllDirectory folders, System32, never PATH) gets the tree through
#     exec and through a shim, with decoys in System32 and on PATH: cudnnenv
#     runs AddDllDirectory(tree) inside the program before its code runs.
#     Without cudnnenv the System32 decoy wins. The standard search too:
#     exec loads the tree's DLL inside the program first, as a copy of its
#     name lies in System32.
#  2. --report follows the whole process tree: a decoy loaded by a grandchild
#     (exec -> cmd /c -> the program) is reported OUTSIDE, with the process
#     that loaded it, exit 4. A pinned program that loads nothing is told so,
#     with the hint for programs that keep their own folder list.
# What Wine cannot show: whether security software on a Windows machine lets
# a thread be started in the program (CreateRemoteThread), and so the warning
# cudnnenv gives when it does not (no test reaches it); a 32-bit program
# under --report (this Wine runs 64-bit programs only).
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all

root="$WORK/C libs 库"
cud() { "$WINE" "$CUDNNENV" --root "$(winpath "$root")" "$@"; }
make_windows_tree t81 "$FIXTURES/fake-pe64-8.1.0.dll" 8.1.0
cud install "$(winpath "$WORK/t81/cuda")" --name t81 > /dev/null
mkdir -p prog decoy
cp "$FIXTURES/load-cudnn.exe" prog/
cp "$FIXTURES/fake-pe64-8.9.7.dll" decoy/cudnn64_8.dll
program=$(winpath "$WORK/prog/load-cudnn.exe")
system32=$("$WINE" winepath -u 'C:\windows\system32' 2> /dev/null | tr -d '\r')
[ -d "$system32" ] || fail "System32 of the Wine prefix: '$system32'"
[ ! -e "$system32/cudnn64_8.dll" ] || fail "the Wine prefix already has a cudnn64_8.dll in System32"
cp "$FIXTURES/fake-pe64-8.9.7.dll" "$system32/cudnn64_8.dll"
trap 'rm -f "$system32/cudnn64_8.dll"' EXIT
export WINEPATH="$(winpath "$WORK/decoy")"

run_program "$WINE" prog/load-cudnn.exe --default-dirs
expect_eq "$(cat out)" "8907" "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS without cudnnenv: the System32 decoy ($(cat err))"
run_program cud exec --cudnn t81 -- "$program" --default-dirs
expect_eq "$(cat out)" "8100" "through exec ($(cat err))"
expect_eq "$(cat err)" "" "exec says nothing"
run_program cud exec --cudnn t81 --report -- "$program" --default-dirs
expect_eq "$rc" "0" "exec --report exit code ($(cat err))"
expect_eq "$(cat out)" "8100" "through exec --report"
expect_eq "$(tr -d '\r' < err)" "cudnnenv: report: pinned to 't81' (cuDNN 8.1.0, $(winpath "$root/t81/bin")), PATH + SetDllDirectoryW + AddDllDirectory in the program
  in the tree  $(winpath "$root/t81/bin/cudnn64_8.dll") (loaded inside the program before it started, as a copy of its name comes first in Windows' search)" "the report"
# The standard search (TensorFlow's LOAD_WITH_ALTERED_SEARCH_PATH) looks in System32 before PATH, and (on
# Windows) after the SetDllDirectoryW folder; Wine passes that folder to no child, so System32 wins here
# without the load exec makes inside the program before it starts.
run_program "$WINE" prog/load-cudnn.exe
expect_eq "$(cat out)" "8907" "the standard search without cudnnenv: the System32 decoy"
run_program cud exec --cudnn t81 -- "$program"
expect_eq "$(cat out) $(cat err)" "8100 " "the standard search through exec: the tree's, past System32"
cud use --global t81 > /dev/null 2>&1
cud shim add load-cudnn > /dev/null
shims="$root/.cudnnenv/shims"
export WINEPATH="$(winpath "$shims");$(winpath "$WORK/prog");$(winpath "$WORK/decoy")"
for start in first second; do  # the slow path (through exec), then the recorded decision
  run_program "$WINE" "$shims/load-cudnn.exe" --default-dirs
  expect_eq "$(cat out)" "8100" "through the shim, $start start ($(cat err))"
done
pass "4: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS gets the tree through exec and a shim (System32 and PATH decoys; 8907 without cudnnenv); so does the standard search through exec"
rm -f "$system32/cudnn64_8.dll"

export WINEPATH="$(winpath "$WORK/decoy")"
decoy=$(winpath "$WORK/decoy/cudnn64_8.dll")
# `call`: with two quoted words after /c, cmd would strip the first and last quote.
run_program cud exec --cudnn t81 --report -- cmd /c call "$program" "$decoy"
expect_eq "$(cat out)" "8907" "the grandchild loaded the decoy"
expect_eq "$rc" "4" "exit code with a grandchild's decoy ($(cat err))"
pid=$(tr -d '\r' < err | sed -n 's/.*cudnn64_8.dll \[pid \([0-9]*\), a process the program started\]$/\1/p')
[ -n "$pid" ] || fail "no pid in the report: $(cat err)"
expect_eq "$(tr -d '\r' < err | tail -3)" "  OUTSIDE      $decoy [pid $pid, a process the program started]
cudnnenv: report: 1 process the program started had the trees' folders on PATH, not its AddDllDirectory folders: a load there with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (os.add_dll_directory, Python 3.8+) does not search the trees; start such a child through 'cudnnenv exec' or a shim
cudnnenv: report: 1 cuDNN file(s) came from outside the tree" "the grandchild's decoy, named with its process"
run_program cud exec --cudnn t81 --report --json -- cmd /c call "$program" "$decoy"
json=$(grep '^{' err)
expect_eq "$(json_field files.inside <<< "$json")" "false" "--json: the grandchild's file"
[ "$(json_field files.pid <<< "$json")" -gt 0 ] && [ "$(json_field files.pid <<< "$json")" != "$(json_field pid <<< "$json")" ] ||
  fail "--json: the grandchild's pid, not the program's: $json"
pass "2: a decoy loaded by a grandchild (exec -> cmd /c -> program) is reported OUTSIDE with its pid, exit 4"

run_program cud exec --cudnn t81 --report -- "$program" --exit 0
expect_eq "$rc" "0" "a program that loads nothing"
expect_eq "$(tr -d '\r' < err)" "cudnnenv: report: pinned to 't81' (cuDNN 8.1.0, $(winpath "$root/t81/bin")), PATH + SetDllDirectoryW + AddDllDirectory in the program
  no cuDNN library was loaded
  hint: a program that loads cuDNN with its own list of folders can add the trees': in Python, before the import: [os.add_dll_directory(os.environ[v]) for v in (\"CUDNNENV_PIN_DIR\", \"CUDNNENV_RUNTIME_DIR\") if os.environ.get(v)]" "the report"
pass "a pinned program that loaded no cuDNN: said, with the os.add_dll_directory hint"

# 3. Paths the report compares. A store reached through a drive letter of its
# own (Wine maps drives by links in dosdevices, where Windows has subst and
# net use). On Windows the debug API names a loaded file by its final path
# (the subst drive's target), so the tree's side is resolved the same way
# (util::final_path) or the tree's own DLL would be "OUTSIDE". Not shown
# under Wine: its GetFinalPathNameByHandleW keeps the drive letter the file
# was opened through, so here this checks that a store on such a drive
# works, not that the two sides were resolved.
dosdevices=$(dirname "$("$WINE" winepath -u 'C:\' 2> /dev/null | tr -d '\r')")  # .../dosdevices/c:/
letter=
for candidate in s t u v w x y; do [ -e "$dosdevices/$candidate:" ] || { letter=$candidate; break; }; done
[ -n "$letter" ] || fail "no free drive letter in $dosdevices"
mkdir -p "$WORK/mapped"
ln -s "$WORK/mapped" "$dosdevices/$letter:"
trap 'rm -f "$system32/cudnn64_8.dll" "$dosdevices/$letter:"' EXIT
drive=$(echo "$letter" | tr a-z A-Z):
"$WINE" "$CUDNNENV" --root "$drive\\store" install "$(winpath "$WORK/t81/cuda")" --name t81 > /dev/null
export WINEPATH="$(winpath "$WORK/decoy")"
run_program "$WINE" "$CUDNNENV" --root "$drive\\store" exec --cudnn t81 --report -- "$program" --default-dirs
expect_eq "$(cat out)" "8100" "through a mapped drive ($(cat err))"
expect_eq "$rc" "0" "exec --report through a mapped drive: exit code ($(cat err))"
expect_eq "$(tr -d '\r' < err | grep -c OUTSIDE)" "0" "the tree's DLL is in the tree ($(cat err))"
pass "3: a store on a drive letter of its own: pinned, the tree's DLL reported in the tree"

# Paths past 260 characters: the three programs declare longPathAware in
# their manifest (Windows honours it where LongPathsEnabled is set), and every
# listing of the store goes through FindFirstFileExW with the \\?\ form past
# MAX_PATH (libstdc++'s directory_iterator, on mingw-w64's _wopendir, builds
# its search pattern in a MAX_PATH buffer: it failed for such a store on
# Windows too, not only under Wine). Wine needs no LongPathsEnabled, so this
# shows cudnnenv's side, not the registry's.
for exe in cudnnenv.exe cudnnenv-shim.exe cudnnenv-probe.exe; do
  grep -q '<ws2:longPathAware>true</ws2:longPathAware>' "$(dirname "$CUDNNENV")/$exe" || fail "$exe: no longPathAware manifest"
done
deep="$WORK/deep"
while [ ${#deep} -lt 300 ]; do deep="$deep/a-folder-of-30-characters-xxxx"; done
mkdir -p "$deep"
long_root="$(winpath "$deep")\\store"
[ ${#long_root} -gt 300 ] || fail "the deep store's path: ${#long_root} characters"
lcud() { "$WINE" "$CUDNNENV" --root "$long_root" "$@"; }
run_program lcud install "$(winpath "$WORK/t81/cuda")" --name t81
expect_eq "$rc" "0" "install into a store ${#long_root} characters deep ($(cat err))"
run_program lcud list --json
expect_eq "$(json_field name < out)" "t81" "list in the deep store ($(cat err))"
run_program lcud verify t81 --level load
expect_eq "$rc" "0" "verify --level load in the deep store ($(tail -3 out) $(cat err))"
expect_eq "$(tr -d '\r' < out | grep -c '^  ok    files: 30 files match the install manifest$')" "1" "verify read every file of the deep tree"
run_program lcud exec --cudnn t81 --report -- "$program" --default-dirs
expect_eq "$(cat out)" "8100" "exec from the deep store ($(cat err))"
expect_eq "$rc" "0" "exec --report from the deep store: exit code ($(cat err))"
expect_eq "$(tr -d '\r' < err | tail -1)" "  in the tree  $long_root\\t81\\bin\\cudnn64_8.dll" "the report names the deep tree's DLL"
lcud use --global t81 > /dev/null 2>&1
lcud shim add load-cudnn > /dev/null
WINEPATH="$(winpath "$WORK/prog");$(winpath "$WORK/decoy")" run_program "$WINE" "$deep/store/.cudnnenv/shims/load-cudnn.exe" --default-dirs
expect_eq "$(cat out)" "8100" "a shim in the deep store ($(cat err))"
cp -r "$WORK/t81" "$deep/source-t81"
run_program lcud install "$(winpath "$deep/source-t81/cuda")" --name from-deep
expect_eq "$rc" "0" "install from a folder as deep ($(cat err))"
expect_eq "$(lcud list --json | json_count)" "2" "the deep store lists both trees"
run_program lcud remove t81 --yes
expect_eq "$rc" "0" "remove from the deep store ($(cat err))"
[ ! -e "$deep/store/t81" ] || fail "the deep tree is still there after remove"
expect_eq "$(find "$deep/store/.cudnnenv/trash" "$deep/store/.cudnnenv/staging" -mindepth 1 2>/dev/null | wc -l)" "0" "nothing left in the deep store's trash and staging"
pass "3: the programs declare longPathAware; a store ${#long_root} characters deep installs (from a folder as deep too), lists, verifies, pins (exec --report, a shim) and removes"

# cmd's per-drive folders ("=Z:") reach the program, as cmd would pass them.
crlf() { sed 's/$/\r/'; }
crlf > drive.bat <<BATCH
@echo off
cd /d "$(winpath "$WORK/decoy")"
"$(winpath "$CUDNNENV")" --root "%TEST_ROOT%" exec --cudnn t81 -- "$program" --env =Z: > "$(winpath "$WORK/drive.txt")"
BATCH
# (The store's path comes in through the environment: the batch file is read in code page 437.)
TEST_ROOT=$(winpath "$root") "$WINE" cmd /c drive.bat > drive.out 2>&1 || fail "drive.bat: $(cat drive.out)"
expect_eq "$(tr -d '\r' < drive.txt)" "[$(winpath "$WORK/decoy")]" "the program's =Z: entry"
pass "3: the per-drive folder entries (=Z:) reach the program through exec"

# PATH at its limit: a variable holds 32,766 characters (32,767 with its end). A PATH that the tree first
# makes exactly 32,766 long runs, through exec and through the shim; one character more is refused by both
# with one sentence, nothing started. (Wine builds no PATH that long from WINEPATH: it stops at 8,195
# characters; a helper built here sets it with SetEnvironmentVariableW and starts the command.)
cat > with_path.c <<'C'
/* with-path.exe N COMMAND...: PATH made exactly N characters long (this PATH, then ";C:\xxx..." entries),
 * then COMMAND started with it; its exit code returned. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
int wmain(int argc, wchar_t** argv) {
  static wchar_t path[40000];
  const size_t want = (size_t)_wtoi(argv[1]);
  size_t length = GetEnvironmentVariableW(L"PATH", path, 40000);
  while (length < want) {
    path[length++] = (length % 200 == 0) ? L';' : L'x';
  }
  path[want] = 0;
  if (!SetEnvironmentVariableW(L"PATH", path)) return 120;
  const wchar_t* line = GetCommandLineW();  /* past argv[0] and N: the third word on */
  for (int words = 0; words < 2; ++words) {
    int quoted = 0;
    while (*line && (quoted || (*line != L' ' && *line != L'\t'))) { if (*line == L'"') quoted = !quoted; ++line; }
    while (*line == L' ' || *line == L'\t') ++line;
  }
  STARTUPINFOW startup = {sizeof startup};
  PROCESS_INFORMATION process;
  wchar_t* copy = _wcsdup(line);
  if (!CreateProcessW(NULL, copy, NULL, NULL, TRUE, 0, NULL, NULL, &startup, &process)) return 121;
  WaitForSingleObject(process.hProcess, INFINITE);
  DWORD code = 0;
  GetExitCodeProcess(process.hProcess, &code);
  return (int)code;
}
C
"${MINGW_CC:-x86_64-w64-mingw32-gcc}" -O1 -municode -o with-path.exe with_path.c
lib=$(winpath "$root/t81/bin")
export WINEPATH=$(winpath "$WORK/prog")  # where the shim finds its program
run_program "$WINE" "$shims/load-cudnn.exe" --exit 0  # records the shim's decision
for total in 32766 32767; do
  n=$(( total - ${#lib} - 1 ))  # the pinned PATH: the tree's folder, ';', PATH
  run_program "$WINE" with-path.exe $n "$(winpath "$CUDNNENV")" --root "$(winpath "$root")" exec --cudnn t81 -- "$program" --exit 0
  exec_rc=$rc exec_err=$(tr -d '\r' < err)
  run_program "$WINE" with-path.exe $n "$(winpath "$shims/load-cudnn.exe")" --exit 0
  shim_rc=$rc shim_err=$(tr -d '\r' < err)
  if [ $total = 32766 ]; then
    expect_eq "$exec_rc:$exec_err|$shim_rc:$shim_err" "0:|0:" "a pinned PATH of 32,766 characters: exec and the shim run"
  else
    expect_eq "$exec_rc:$exec_err" "1:cudnnenv: error: PATH would hold 32767 characters, more than the 32,766 Windows allows in a variable
  hint: shorten PATH, or move the store (--root) to a shorter folder" "exec with a pinned PATH of 32,767 characters"
    expect_eq "$shim_rc:$shim_err" "127:cudnnenv-shim: error: PATH would hold 32767 characters, more than the 32,766 Windows allows in a variable; shorten PATH, or move the store (--root) to a shorter folder: $lib" "the shim with a pinned PATH of 32,767 characters"
  fi
done
pass "3: PATH at its limit: 32,766 characters run through exec and the shim, 32,767 refused by both with one sentence"
