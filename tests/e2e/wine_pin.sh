#!/usr/bin/env bash
# Windows pinning under Wine, through `exec` and through a NAME.exe shim, with
# fake DLL trees 8.1.0 and 8.2.0 (each the full 8.x set) and decoy
# cudnn64_8.dll copies (8.9.7) on PATH, in the working folder and in the
# program's folder. A program that loads cudnn64_8.dll by name prints
# cudnnGetVersion(); --report (the debug API's DLL load events) names the
# file. Exit codes and arguments pass through.
#
# A copy in the program's folder or the working folder (or System32:
# wine_dll_search.sh) comes before the pinned folders in the standard search:
# exec loads the tree's DLL inside the program before it starts, and the
# program's load of the name gets that module.
#
# What Wine cannot show: real Windows passes the launcher's SetDllDirectoryW
# to the program, which puts the tree before System32 and takes the working
# folder out of the search; Wine 8 passes it to no child (loader-facts.md,
# section 5), so here the working folder is searched, and exec loads first.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all

root="$WORK/C libs 库"
cud() { "$WINE" "$CUDNNENV" --root "$(winpath "$root")" "$@"; }

for version in 8.1.0 8.2.0; do
  make_windows_tree "t$version" "$FIXTURES/fake-pe64-$version.dll" "$version"
  cud install "$(winpath "$WORK/t$version/cuda")" --name "t$version" > /dev/null
done
mkdir -p prog decoy work
cp "$FIXTURES/load-cudnn.exe" prog/
cp "$FIXTURES/fake-pe64-8.9.7.dll" decoy/cudnn64_8.dll
program=$(winpath "$WORK/prog/load-cudnn.exe")
export WINEPATH="$(winpath "$WORK/decoy")"

run_program "$WINE" prog/load-cudnn.exe
expect_eq "$(cat out)" "8907" "by name, run directly with the decoy on PATH"
for version in 8.1.0 8.2.0; do
  run_program cud exec --cudnn "t$version" --report -- "$program"
  expect_eq "$(cat out)" "$(echo "$version" | awk -F. '{print $1*1000+$2*100+$3}')" "through exec, pinned to $version ($(cat err))"
  expect_eq "$rc" "0" "exec --report exit code"
  grep -q "in the tree  $(winpath "$root/t$version/bin/cudnn64_8.dll" | sed 's/\\/\\\\/g')" err || fail "report: $(cat err)"
  if grep -q OUTSIDE err; then fail "an outside copy loaded: $(cat err)"; fi
done
pass "decoy 8.9.7 on PATH: directly 8907; through exec 8100 and 8200, --report names the tree's DLL"

# A copy in the program's own folder comes first in Windows' search: exec loads the tree's DLL inside the
# program before it starts, so the program's load of the name gets the module already loaded.
cp decoy/cudnn64_8.dll prog/
run_program "$WINE" prog/load-cudnn.exe
expect_eq "$(cat out)" "8907" "directly, the copy in the program's folder"
run_program cud exec --cudnn t8.2.0 --report -- "$program"
expect_eq "$rc" "0" "exec past a copy in the program's own folder: $(cat err)"
expect_eq "$(cat out)" "8200" "exec past a copy in the program's own folder"
expect_eq "$(tr -d '\r' < err | sed -n 2p)" "  in the tree  $(winpath "$root/t8.2.0/bin/cudnn64_8.dll") (loaded inside the program before it started, as a copy of its name comes first in Windows' search)" "--report names the tree's file, loaded first"
run_program cud exec --cudnn t8.2.0 -- "$program"
expect_eq "$(cat out) $(cat err)" "8200 " "exec without --report: the tree's, and nothing said"
rm prog/cudnn64_8.dll
pass "a copy in the program's own folder: exec loads the tree's DLL inside the program first, and the program gets it"

cp decoy/cudnn64_8.dll work/
(cd work && run_program cud exec --cudnn t8.2.0 --report -- "$program"
 # Wine 8 searches the working folder (it passes no SetDllDirectoryW to the program); the copy there is
 # seen before the start, as one in the program's folder is, and the tree's DLL loaded first.
 expect_eq "$(cat out)" "8200" "exec past a copy in the working folder ($(cat err))"
 expect_eq "$rc" "0" "exec past a copy in the working folder: exit code")
pass "a copy in the working folder: the tree's DLL, loaded first"

for code in 0 1 42 255; do
  run_program cud exec --cudnn t8.1.0 -- "$program" --exit "$code"
  expect_eq "$rc" "$code" "exit code through exec"
done
arguments=("two words" 'quo"te' 'trail\' 'two\\' '中文' '' 'a\"b')
expected='[two words][quo"te][trail\][two\\][中文][][a\"b]'
run_program cud exec --cudnn t8.1.0 -- "$program" --args "${arguments[@]}"
expect_eq "$(cat out)" "$expected" "arguments through exec"
pass "exit codes 0, 1, 42, 255 and arguments (spaces, quotes, trailing backslashes, Chinese, empty) through exec"

# The shim: NAME.exe in the shims folder, first on PATH, the program found after it.
cud use --global t8.2.0 > /dev/null
cud shim add load-cudnn > /dev/null
shims="$root/.cudnnenv/shims"
[ -f "$shims/load-cudnn.exe" ] && [ -f "$shims/load-cudnn.shim" ] || fail "shim files: $(ls "$shims")"
export WINEPATH="$(winpath "$shims");$(winpath "$WORK/prog");$(winpath "$WORK/decoy")"
for start in first second; do
  run_program "$WINE" "$shims/load-cudnn.exe"
  expect_eq "$(cat out)" "8200" "through the shim, $start start ($(cat err))"
done
[ -n "$(ls "$root/.cudnnenv/cache/launch")" ] || fail "no cached decision after the first start"
for code in 0 1 42 255; do
  run_program "$WINE" "$shims/load-cudnn.exe" --exit "$code"
  expect_eq "$rc" "$code" "exit code through the shim"
done
run_program "$WINE" "$shims/load-cudnn.exe" --args "${arguments[@]}"
expect_eq "$(cat out)" "$expected" "arguments through the shim"
pass "through load-cudnn.exe (a shim): 8200, exit codes and arguments intact"

# A copy put in the program's folder after the shim recorded its decision: the decision holds for that
# folder as it was, so the next start goes through exec, which loads the tree's DLL inside the program first.
run_program "$WINE" "$shims/load-cudnn.exe"
expect_eq "$(cat out)" "8200" "through the shim, its decision recorded"
sleep 0.05
cp decoy/cudnn64_8.dll prog/
run_program "$WINE" "$shims/load-cudnn.exe"
expect_eq "$(cat out) $rc" "8200 0" "through the shim after a copy appeared in the program's folder ($(cat err))"
run_program "$WINE" "$shims/load-cudnn.exe"
expect_eq "$(cat out) $rc" "8200 0" "the same, started again (no decision recorded past a copy: through exec again)"
rm prog/cudnn64_8.dll
pass "a cudnn64_8.dll copied beside the program after the shim's decision: the shim loads past it, never silently"

mkdir -p project && printf 'cudnn = "t8.1.0"\n' > project/.cudnnenv.toml
(cd project && run_program "$WINE" "$shims/load-cudnn.exe" && expect_eq "$(cat out)" "8100" "the shim in a project pinned to 8.1.0")
pass "the shim follows .cudnnenv.toml: 8100 in the project"

# The check before a start covers the whole file set (#11): a deleted
# sub-library, or cuDNN 8.9 without zlibwapi.dll (opened by name only at the
# first convolution), stops exec with 4 though the main DLL loads.
make_windows_tree partial "$FIXTURES/fake-pe64-8.1.0.dll" 8.1.0
cud install "$(winpath "$WORK/partial/cuda")" --name partial > /dev/null
rm "$root/partial/bin/cudnn_cnn_infer64_8.dll"
run_program cud exec --cudnn partial -- "$program"
expect_eq "$rc" "4" "exec of a tree without cudnn_cnn_infer64_8.dll ($(cat err))"
expect_eq "$(cat err)" "cudnnenv: error: the tree 'partial' is incomplete: 'bin/cudnn_cnn_infer64_8.dll' missing or changed since it was installed
  hint: see 'cudnnenv verify partial'; launch anyway with --verify none" "exec's message"
make_windows_tree t8.9 "$FIXTURES/fake-pe64-8.9.7.dll" 8.9.7
# Adopted: cudnnenv puts nothing into a folder it adopts (install carries zlibwapi.dll in: e2e_wine_runtime).
cud adopt "$(winpath "$WORK/t8.9/cuda")" --name t8.9 > /dev/null
run_program cud exec --cudnn t8.9 -- "$program"
expect_eq "$rc" "4" "exec of 8.9 without zlibwapi.dll"
grep -q "^cudnnenv: error: cudnn64_8.dll needs zlibwapi.dll: not in its folder, " err || fail "exec's message: $(cat err)"
pass "exec refuses a tree without a sub-library, and 8.9 without zlibwapi.dll (exit 4)"

# What the libraries need, from their tables (issue 29): a main library that cannot load names the DLL it
# lacks (not only "Module not found"); a sub-library's missing import is said before the start (a framework
# may load cuBLAS itself first, so the program still starts).
make_windows_tree needs "$FIXTURES/fake-pe64-8.1.0-needs-cublas.dll" 8.1.0
cud install "$(winpath "$WORK/needs/cuda")" --name needs > /dev/null
run_program cud exec --cudnn needs -- "$program"
expect_eq "$rc" "4" "exec of a tree whose main DLL's import is missing"
grep -q "^cudnnenv: error: the pin check failed: load: .*; cudnn64_8.dll, cudnn_ops_infer64_8.dll, cudnn_ops_train64_8.dll, cudnn_cnn_infer64_8.dll, cudnn_cnn_train64_8.dll, cudnn_adv_infer64_8.dll and cudnn_adv_train64_8.dll need cublas64_11.dll: not in its folder, " err ||
  fail "the refusal names the missing DLL once, with every library that needs it: $(cat err)"
make_windows_tree subneeds "$FIXTURES/fake-pe64-8.1.0.dll" 8.1.0
cp "$FIXTURES/fake-pe64-8.1.0-needs-cublas.dll" subneeds/cuda/bin/cudnn_ops_infer64_8.dll
cud install "$(winpath "$WORK/subneeds/cuda")" --name subneeds > /dev/null
for start in first second; do  # said at each start: such a check is not remembered as passed
  run_program cud exec --cudnn subneeds -- "$program"
  expect_eq "$rc:$(cat out)" "0:8100" "exec of a tree whose sub-library's import is missing starts ($start)"
  grep -q "^cudnnenv: warning: cudnn_ops_infer64_8.dll needs cublas64_11.dll: not in its folder, .*: the program fails at the first call that needs it unless it loads that library itself; see 'cudnnenv verify subneeds'" err ||
    fail "the warning names the sub-library's missing DLL ($start): $(cat err)"
done
pass "exec names a missing import: of the main DLL in its refusal, of a sub-library in a warning at each start"

# The tree's CUDA toolkit, where its installer's CUDA_PATH_V11_2 says: exec puts its bin (and libnvvp) on PATH
# right after the tree's folder and sets CUDA_PATH, as activate does (issue 29: one truth for the toolkit).
mkdir -p "toolkit 11.2/bin"
toolkit=$(winpath "$WORK/toolkit 11.2")
CUDA_PATH_V11_2=$toolkit run_program cud exec --cudnn t8.1.0 -- "$program" --env PATH
expect_eq "$(cut -d';' -f1-3 out)" "[$(winpath "$root/t8.1.0/bin");$toolkit\\bin;$toolkit\\libnvvp" "exec: the toolkit's folders right after the tree's"
CUDA_PATH_V11_2=$toolkit run_program cud exec --cudnn t8.1.0 -- "$program" --env CUDA_PATH
expect_eq "$(cat out)" "[$toolkit]" "exec sets CUDA_PATH"
CUDA_PATH_V11_2=$toolkit run_program cud activate t8.1.0 --shell powershell
grep -qF "$toolkit\\bin" out || fail "activate names the same toolkit: $(cat out)"
pass "exec puts the tree's CUDA toolkit on PATH and sets CUDA_PATH, as activate does"

# Processes the program starts (issue 29): a child (a multiprocessing worker)
# inherits PATH, so a load by name gets the tree, and --report names its pid
# and says what does not reach it: the in-program AddDllDirectory calls, so a
# LOAD_LIBRARY_SEARCH_DEFAULT_DIRS load in the child fails (shown: error 126).
# A child started outside the job (CREATE_BREAKAWAY_FROM_JOB) may leave it, as
# Windows' own shells allow, and outlives exec (with --report too: the
# debugger lets it go); it loads the tree later. (Without the job's
# permission, Wine refuses that start with error 5, as Windows does.)
started_line="cudnnenv: report: 1 process the program started had the trees' folders on PATH, not its AddDllDirectory folders: a load there with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (os.add_dll_directory, Python 3.8+) does not search the trees; start such a child through 'cudnnenv exec' or a shim"
run_program cud exec --cudnn t8.2.0 --report -- "$program" --child
expect_eq "$rc:$(cat out)" "0:8200" "a child of the program loads the tree by name"
expect_eq "$(sed -E 's/pid [0-9]+/pid N/' err)" "cudnnenv: report: pinned to 't8.2.0' (cuDNN 8.2.0, $(winpath "$root")\\t8.2.0\\bin), PATH + SetDllDirectoryW + AddDllDirectory in the program
  in the tree  $(winpath "$root")\\t8.2.0\\bin\\cudnn64_8.dll [pid N, a process the program started]
$started_line" "--report of a child's load"
run_program cud exec --cudnn t8.2.0 --report -- "$program" --child --default-dirs
expect_eq "$rc:$(cat out)" "1:" "a child's LOAD_LIBRARY_SEARCH_DEFAULT_DIRS load misses the tree ($(cat err))"
grep -qxF "$started_line" err || fail "--report does not say what misses the child: $(cat err)"
run_program cud exec --cudnn t8.2.0 --report --json -- "$program" --child
expect_eq "$(json_field started < err):$(json_field running_at_exit < err)" "1:0" "--report --json counts the process the program started"
for report in "" --report; do
  rm -f later.txt
  run_program cud exec --cudnn t8.2.0 $report -- "$program" --breakaway-child 1500 "$(winpath "$WORK/later.txt")"
  expect_eq "$rc:$(cat out)" "0:" "exec $report of a program starting a child outside its job: $(cat err)"
  for _ in $(seq 50); do [ -s later.txt ] && break; sleep 0.2; done
  expect_eq "$(tr -d '\r' < later.txt 2>/dev/null)" "8200" "the child outside the job outlives exec $report and loads the tree"
done
expect_eq "$(tail -1 err)" "cudnnenv: report: 1 process the program started still ran when it ended: ended with it, or left running if started outside its job (CREATE_BREAKAWAY_FROM_JOB); what they load from then on is not in this report" "--report says what it no longer watches"
pass "processes the program starts: pinned through PATH, named by --report with what misses them; a breakaway child outlives exec"
