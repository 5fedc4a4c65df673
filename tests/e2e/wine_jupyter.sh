#!/usr/bin/env bash
# export jupyter (issue 25) with the Windows build under Wine: the kernelspec
# lands in JUPYTER_DATA_DIR\kernels (on Windows, without it, %APPDATA%\jupyter
# \kernels), and its argv run as Jupyter runs it (argv[0] with the rest, the
# connection file put in) starts the kernel's Python through `cudnnenv exec`:
# a stand-in for python.exe (built here) that loads cudnn64_8.dll by bare
# name, as TensorFlow does, gets the pinned tree's DLL with a decoy on PATH,
# and receives `-m ipykernel_launcher -f FILE` as Python would. A store whose
# path holds a space, '&' and non-ASCII letters reaches the argv intact.
# `export launcher` under Wine: its python.exe starts the stand-in pinned.
# What Wine cannot show: Jupyter's own Windows start (Python's list2cmdline
# and CreateProcess); no Python with jupyter_client runs under this Wine.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
MINGW=${MINGW_CC:-x86_64-w64-mingw32-gcc}
command -v "$MINGW" > /dev/null || { echo "skip: no $MINGW"; exit 77; }
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED
root="$WORK/C libs & 库"
cud() { "$WINE" "$CUDNNENV" --root "$(winpath "$root")" "$@"; }
make_windows_tree t82 "$FIXTURES/fake-pe64-8.2.0.dll" 8.2.0
cud install "$(winpath "$WORK/t82/cuda")" --name "tree 8.2" > /dev/null
mkdir -p decoy "py dir"
cp "$FIXTURES/fake-pe64-8.9.7.dll" decoy/cudnn64_8.dll
cat > standin.c <<'C'
/* Stands in for python.exe -m ipykernel_launcher -f FILE: prints its
 * arguments, then cudnnGetVersion() of the cudnn64_8.dll a bare-name load gets. */
#include <windows.h>
#include <stdio.h>
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) printf("arg %s\n", argv[i]);
  HMODULE cudnn = LoadLibraryExW(L"cudnn64_8.dll", NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
  if (!cudnn) { printf("no cudnn64_8.dll\n"); return 1; }
  size_t (*version)(void) = (size_t (*)(void))(void*)GetProcAddress(cudnn, "cudnnGetVersion");
  printf("%zu\n", version ? version() : 0);
  return 0;
}
C
"$MINGW" -O1 -o "py dir/python.exe" standin.c
export WINEPATH="$(winpath "$WORK/decoy")" JUPYTER_DATA_DIR="$(winpath "$WORK/jupyter data")"

run_program "$WINE" "py dir/python.exe" -m ipykernel_launcher
expect_eq "$(tail -1 out)" "8907" "the stand-in alone loads the decoy on PATH"
run_program cud export jupyter "tree 8.2" --python "$(winpath "$WORK/py dir/python.exe")"
expect_eq "$rc" "0" "export jupyter under Wine: $(cat err)"
expect_eq "$(cat out)" "wrote $(winpath "$WORK/jupyter data/kernels/cudnnenv-tree_8.2/kernel.json") (kernel 'cudnnenv-tree_8.2': Python 3 (cuDNN 8.2.0, cudnnenv 'tree 8.2'))" "what export wrote"
kernel_json="$WORK/jupyter data/kernels/cudnnenv-tree_8.2/kernel.json"
# Jupyter's start: argv with {connection_file} put in, argv[0] the program.
mapfile -t argv < <(python3 -c 'import json, sys; [print(a.replace("{connection_file}", sys.argv[2])) for a in json.load(open(sys.argv[1]))["argv"]]' \
  "$kernel_json" 'C:\users\me\kernel-1.json')
expect_eq "${argv[0]}" "$(winpath "$CUDNNENV")" "argv[0] is cudnnenv.exe"
expect_eq "${argv[2]}" "$(winpath "$root")" "argv names the store, its '&' and letters intact"
run_program "$WINE" "$CUDNNENV" "${argv[@]:1}"
expect_eq "$rc" "0" "the kernel's argv under Wine: $(cat err)"
expect_eq "$(cat out)" "arg -m
arg ipykernel_launcher
arg -f
arg C:\\users\\me\\kernel-1.json
8200" "the kernel's Python gets Jupyter's arguments and the pinned tree's cudnn64_8.dll past the decoy"
run_program cud export jupyter --remove --name cudnnenv-tree_8.2
expect_eq "$(cat out)" "removed $(winpath "$kernel_json")" "--remove under Wine"
pass "a Windows kernelspec: its argv, run as Jupyter runs it, starts the Python stand-in pinned past a decoy on PATH"

# An IDE's interpreter: the launcher `export launcher` prints (python.exe, a shim whose sidecar names the tree).
run_program cud export launcher "tree 8.2" --python "$(winpath "$WORK/py dir/python.exe")"
expect_eq "$rc" "0" "export launcher under Wine: $(cat err)"
launcher=$(head -1 out)
expect_eq "$launcher" "$(winpath "$(launcher_dir "$root/.cudnnenv" "tree 8.2" "$(winpath "$WORK/py dir/python.exe")")/python.exe")" "the launcher's path"
run_program "$WINE" "$launcher" -c x
expect_eq "$rc" "0" "the launcher under Wine: $(cat err)"
expect_eq "$(cat out)" "arg -c
arg x
8200" "the launcher starts the Python pinned past the decoy, with its arguments"
pass "export launcher under Wine: python.exe pinned to the tree, for an IDE"
