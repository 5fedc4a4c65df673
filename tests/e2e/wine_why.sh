#!/usr/bin/env bash
# What did not load on Windows (issue 41), under Wine: PE twins of why.sh.
# A cuDNN 8 tree whose cudnn_ops_infer64_8.dll imports a cublas64_11.dll the
# machine lacks, opened by bare name as cuDNN 8's dispatcher does: --report
# marks the sub-library FAILED (not "in the tree") and says what it needs,
# where that was looked for and the fix. A CUDA 12 runtime's
# cusolver64_11.dll whose import nvJitLink_120_0.dll exists nowhere: the
# start is refused before it runs (the PE import read, as Windows does it);
# with --verify none `exec --why` names it, what needed it and the heal; with
# the DLL put into the runtime's folder the same run is clean. (Windows has no
# fence for the runtime's names: the refusal says so.)
#
# What Wine cannot show: the loader's own text. On Windows the debugger sets
# FLG_SHOW_LDR_SNAPS in each process it starts and reads each "Unable to load
# DLL" line, with the paths the loader tried (parsed from recorded Windows
# text in the unit test pin/why); Wine's loader writes none, so the places are
# the standard search order, computed, and the message says so. Nor does Wine
# send the unload event Windows sends for a DLL whose import failed: the
# failure is read from the imports that never mapped, on both.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
MINGW=${MINGW_CC:-x86_64-w64-mingw32-gcc}
command -v "$MINGW" > /dev/null || { echo "skip: no $MINGW"; exit 77; }
SOURCES=$E2E_DIR/../fixtures
root="$WORK/store"
cud() { "$WINE" "$CUDNNENV" --root "$(winpath "$root")" "$@"; }
unset CUDNNENV_CUDA_INDEX CUDNNENV_VERIFY
mkdir -p prog
"$MINGW" -O1 -municode -static -o prog/load-names.exe "$SOURCES/load_names.c"
program=$(winpath "$WORK/prog/load-names.exe")

# The standard search of a program in prog/ pinned to `tree` (and `runtime`),
# as the message lists it: the program's folder, the pin's folders, Windows'
# own, the working folder, then PATH.
standard_search() {  # standard_search TREE_BIN [RUNTIME_BIN]
  local pin
  printf '    %s  (the program'"'"'s folder)\n' "$(winpath "$WORK/prog")"
  for pin in "$@"; do printf '    %s  (SetDllDirectoryW: cudnnenv'"'"'s pin)\n' "$pin"; done
  printf '    C:\\windows\\System32  (System32)\n    C:\\windows\\System  (the 16-bit System folder)\n'
  printf '    C:\\windows  (the Windows folder)\n    %s  (the working folder)\n' "$(winpath "$WORK")"
  for pin in "$@"; do printf '    %s  (PATH)\n' "$pin"; done
  printf '    C:\\windows\\system32  (PATH)\n    C:\\windows  (PATH)\n    C:\\windows\\system32\\wbem  (PATH)\n'
  printf '    C:\\windows\\system32\\WindowsPowershell\\v1.0  (PATH)\n'
}
computed="  looked for in, in the standard search order (computed: the loader said nothing):"

# 1. cuDNN 8 without cuBLAS.
make_windows_tree subneeds "$FIXTURES/fake-pe64-8.1.0.dll" 8.1.0
cp "$FIXTURES/fake-pe64-8.1.0-needs-cublas.dll" subneeds/cuda/bin/cudnn_ops_infer64_8.dll
cud install "$(winpath "$WORK/subneeds/cuda")" --name subneeds > /dev/null
bin=$(winpath "$root/subneeds/bin")
run_program cud exec --cudnn subneeds --report -- "$program" cudnn64_8.dll cudnn_ops_infer64_8.dll
expect_eq "$rc:$(cat out)" "1:cudnn64_8.dll $bin\\cudnn64_8.dll
cudnn_ops_infer64_8.dll -" "the program: the sub-library does not load"
expect_eq "$(sed -n '/^cudnnenv: report: pinned/,$p' err)" "cudnnenv: report: pinned to 'subneeds' (cuDNN 8.1.0, $bin), PATH + SetDllDirectoryW + AddDllDirectory in the program
  in the tree  $bin\\cudnn64_8.dll
  FAILED       $bin\\cudnn_ops_infer64_8.dll (did not load: it needs cublas64_11.dll)
cudnnenv: why: cublas64_11.dll did not load (needed by cudnn_ops_infer64_8.dll)
  chain:  load-names.exe -> ... -> cudnn_ops_infer64_8.dll -> cublas64_11.dll
$computed
$(standard_search "$bin")
  fix:    cudnnenv install cuda 11.8.0
cudnnenv: why: $bin\\cudnn_ops_infer64_8.dll was found but did not load: it needs cublas64_11.dll" "exec --report of a cuDNN 8 tree without cuBLAS"
pass "--report marks cuDNN 8's sub-library FAILED, names cublas64_11.dll, the places and the fix"

# 2. A runtime's cuSOLVER whose nvJitLink is nowhere.
mkdir -p runtime nowhere
"$MINGW" -shared -o nowhere/nvJitLink_120_0.dll "$SOURCES/fake_cuda_runtime.c"
"$MINGW" -shared -o runtime/cudart64_12.dll "$SOURCES/fake_cuda_runtime.c" -DFAKE_CUDART=12040
# cuSOLVER calls into nvJitLink, so the linker keeps the import.
printf '__declspec(dllimport) int fake_runtime_marker(void);\n__declspec(dllexport) int cusolverGetVersion(int* v) { *v = 11600; return fake_runtime_marker() - 1; }\n' > cusolver.c
"$MINGW" -shared -o runtime/cusolver64_11.dll cusolver.c nowhere/nvJitLink_120_0.dll
rm nowhere/nvJitLink_120_0.dll
run_program cud adopt "$(winpath "$WORK/runtime")"
expect_eq "$(cat out)" "adopted 'cuda-12': CUDA 12 runtime, 2 library files stay in $(winpath "$WORK/runtime")" "adopt the runtime folder"
rt=$(winpath "$WORK/runtime")
heal="cudnnenv install cuda 12 && cudnnenv remove cuda-12 --yes && cudnnenv adopt --heal \"$rt\" --name cuda-12"
# The runtime's cuSOLVER imports an nvJitLink it lacks: the start is refused before it runs (#61).
run_program cud exec --cudnn subneeds --runtime cuda-12 -- "$program" cusolver64_11.dll
expect_eq "$rc:$(cat out):$(cat err)" "4::cudnnenv: error: the CUDA runtime 'cuda-12' is incomplete: $rt lacks nvJitLink_120_0.dll (needed by cusolver64_11.dll)
  hint: install a complete CUDA 12 runtime and make it whole from that: $heal; launch anyway with --verify none (the loader then takes it from wherever it finds a copy, a mixed runtime, or fails)" \
  "exec with the runtime whose cuSOLVER lacks its import"
run_program cud exec --cudnn subneeds --runtime cuda-12 --verify none --why -- "$program" cusolver64_11.dll
expect_eq "$rc:$(cat out)" "1:cusolver64_11.dll -" "the program: cuSOLVER does not load"
expect_eq "$(cat err)" "cudnnenv: why: nvJitLink_120_0.dll did not load (needed by cusolver64_11.dll)
  chain:  load-names.exe -> ... -> cusolver64_11.dll -> nvJitLink_120_0.dll
$computed
$(standard_search "$bin" "$rt")
  fix:    $heal  (the CUDA runtime 'cuda-12' lacks it)
cudnnenv: why: $rt\\cusolver64_11.dll was found but did not load: it needs nvJitLink_120_0.dll" "exec --why of cuSOLVER without nvJitLink"
pass "exec refuses the runtime that lacks nvJitLink_120_0.dll; with --verify none --why names it, what needed it, the places and the heal"

"$MINGW" -shared -o runtime/nvJitLink_120_0.dll "$SOURCES/fake_cuda_runtime.c"
run_program cud exec --cudnn subneeds --runtime cuda-12 --verify none --why -- "$program" cusolver64_11.dll
expect_eq "$rc:$(cat out)" "0:cusolver64_11.dll $rt\\cusolver64_11.dll" "with nvJitLink in the runtime"
expect_eq "$(cat err)" "cudnnenv: why: every CUDA library the program asked for loaded" "exec --why of the clean run"
pass "with nvJitLink_120_0.dll in the runtime's folder the same run is clean"
