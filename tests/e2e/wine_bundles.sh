#!/usr/bin/env bash
# Windows' fence under Wine (issue 42): cuDNN 9's dispatcher opens its
# sub-libraries by bare name, and a tree that lacks one (a 9.1 tree has no
# cudnn_engines_tensor_ir64_9.dll, which 9.21 added) would get another
# cuDNN's copy from further on PATH. A fake 9.1.0 tree (each DLL the
# fake-pe64-9.1.0 stand-in) and a stray cudnn_engines_tensor_ir64_9.dll (the
# 8.9.7 stand-in) in a folder on PATH, where a CUDA toolkit's or another
# cuDNN's bin would be. Run plainly with the tree's folder first on PATH, the
# program takes the tree's cudnn64_9.dll and the stray sub-library (the
# control). Through exec, the fence folder (a copy of cudnnenv-fence.dll
# under each cuDNN 9 name the tree lacks, on PATH right after the tree's
# folder) is found first and fails to attach: the load fails, the stray copy
# never loads, and --report says so.
#
# What Wine cannot show: on Windows a copy in System32 or the program's
# folder comes before PATH in the standard search, so the fence does not
# reach a stray copy there; loads with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
# (Python 3.8+) never search PATH, and an absolute path always loads its
# file. Linux's audit module fences every load path (tests/e2e/bundles.sh).
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
MINGW=${MINGW_CC:-x86_64-w64-mingw32-gcc}
command -v "$MINGW" > /dev/null || { echo "skip: no $MINGW"; exit 77; }

root="$WORK/C libs"
cud() { "$WINE" "$CUDNNENV" --root "$(winpath "$root")" "$@"; }
make_windows9_tree t91 "$FIXTURES/fake-pe64-9.1.0.dll" 9.1.0
run_program cud install "$(winpath "$WORK/t91")" --name t91 -q
expect_eq "$rc" "0" "install of the 9.1 tree: $(cat err)"
mkdir -p stray prog
cp "$FIXTURES/fake-pe64-8.9.7.dll" stray/cudnn_engines_tensor_ir64_9.dll
"$MINGW" -O1 -municode -static -o prog/load-names.exe "$E2E_DIR/../fixtures/load_names.c"
program=$(winpath "$WORK/prog/load-names.exe")
tree_bin=$(winpath "$root/t91/bin")

WINEPATH="$tree_bin;$(winpath "$WORK/stray")" run_program "$WINE" prog/load-names.exe cudnn64_9.dll cudnn_engines_tensor_ir64_9.dll
expect_eq "$(tr -d '\r' < out)" "cudnn64_9.dll $tree_bin\\cudnn64_9.dll
cudnn_engines_tensor_ir64_9.dll $(winpath "$WORK/stray")\\cudnn_engines_tensor_ir64_9.dll" "the control: plainly, the tree's cuDNN and the stray sub-library"

export WINEPATH="$(winpath "$WORK/stray")"
run_program cud exec --cudnn t91 --verify none -- "$program" cudnn64_9.dll cudnn_engines_tensor_ir64_9.dll
expect_eq "$rc:$(tr -d '\r' < out)" "1:cudnn64_9.dll $tree_bin\\cudnn64_9.dll
cudnn_engines_tensor_ir64_9.dll -" "pinned: the name the tree lacks fails to load, the stray copy never loads: $(cat err)"
fence=$(ls -d "$WORK/C libs/.cudnnenv/fence/"*)
expect_eq "$(cd "$fence" && ls | sort | tr '\n' ' ')" "cudnn_engines_tensor_ir64_9.dll cudnn_ext64_9.dll " "the fence folder: the cuDNN 9 names the 9.1 tree lacks"
cmp "$fence/cudnn_ext64_9.dll" "$(dirname "$CUDNNENV")/cudnnenv-fence.dll" || fail "a fence file is not cudnnenv-fence.dll"
fence_win=$(winpath "$fence")
run_program cud exec --cudnn t91 --verify none --report -- "$program" cudnn64_9.dll cudnn_engines_tensor_ir64_9.dll
expect_eq "$rc:$(tr -d '\r' < err | sed -n '2,3p')" "1:  in the tree  $tree_bin\cudnn64_9.dll
  FENCED       $fence_win\cudnn_engines_tensor_ir64_9.dll (the tree lacks cudnn_engines_tensor_ir64_9.dll: its load failed on the fence instead of taking another copy)" "--report: the fenced name, not a file from outside"
tr -d '\r' < err | grep -q "came from outside" && fail "--report counts the fence as outside: $(cat err)"
run_program cud exec --cudnn t91 --verify none --why -- "$program" cudnn_engines_tensor_ir64_9.dll
expect_eq "$rc:$(tr -d '\r' < err)" "1:cudnnenv: why: cudnn_engines_tensor_ir64_9.dll did not load (needed by load-names.exe)
  chain:  load-names.exe -> cudnn_engines_tensor_ir64_9.dll
  looked for in, in order:
    $tree_bin  (pin)
    $fence_win  (fence)
  fix:    cudnnenv install 9.21.0 --cuda 12  (cuDNN 9.1.0 does not ship it; 9.21.0 and later do)" "--why: the name, where it was looked for, the fix"
pass "the fence under Wine: a bare-name load of a cuDNN 9 name the tree lacks fails, never taking the stray copy on PATH; --report and --why name it"

# Healing, PE twins: a 9.21.0 folder (NVIDIA's zip layout) lacking cudnn_engines_tensor_ir64_9.dll, and
# 'whole', a complete tree of the same build, in the store. Plainly the folder's cuDNN takes the stray
# sub-library (the 8.9.7 stand-in); adopt refuses the folder naming the file; adopt --heal makes 'healed', a
# store folder of hard links to the folder's DLLs and the missing one from 'whole', and pinned to it every
# name loads from it. A folder of another build (9.21.0 for CUDA 12) is refused: no CUDA 12 tree to heal from.
make_windows9_tree whole "$FIXTURES/fake-pe64-9.21.0.dll" 9.21.0
run_program cud install "$(winpath "$WORK/whole")" --name whole -q
expect_eq "$rc" "0" "install of the 9.21.0 tree: $(cat err)"
cp -r whole incomplete
rm incomplete/bin/cudnn_engines_tensor_ir64_9.dll
incomplete=$(winpath "$WORK/incomplete")
WINEPATH="$incomplete\\bin;$(winpath "$WORK/stray")" run_program "$WINE" prog/load-names.exe cudnn64_9.dll cudnn_engines_tensor_ir64_9.dll
expect_eq "$(cat out)" "cudnn64_9.dll $incomplete\\bin\\cudnn64_9.dll
cudnn_engines_tensor_ir64_9.dll $(winpath "$WORK/stray")\\cudnn_engines_tensor_ir64_9.dll" "the control: plainly, the folder's cuDNN 9.21.0 and the stray 8.9.7 sub-library"
run_program cud adopt "$incomplete"
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: incomplete cuDNN 9.21.0 set in '$incomplete': missing 'bin/cudnn_engines_tensor_ir64_9.dll'
  hint: a tree needs every cuDNN library of its release: 'cudnnenv adopt --heal \"$incomplete\"' fills the gaps from a store tree of the same release" "adopt of a 9.21.0 folder without tensor_ir"
run_program cud adopt --heal "$incomplete" --name healed
healed=$(winpath "$root/healed/bin")
expect_eq "$rc:$(cat out)" "0:adopted 'healed': cuDNN 9.21.0, CUDA 13.0, healed: the files of $incomplete and what it lacked from 'whole', linked from $healed
  library: $healed\\cudnn64_9.dll" "adopt --heal: $(cat err)"
expect_eq "$(stat -c %i "$root/healed/bin/cudnn_graph64_9.dll")" "$(stat -c %i incomplete/bin/cudnn_graph64_9.dll)" \
  "the folder's own DLLs are hard links to it"
expect_eq "$(stat -c %i "$root/healed/bin/cudnn_engines_tensor_ir64_9.dll")" \
  "$(stat -c %i "$root/whole/bin/cudnn_engines_tensor_ir64_9.dll")" "the missing DLL is whole's, hard-linked"
run_program cud exec --cudnn healed --verify none --report -- "$program" cudnn64_9.dll cudnn_engines_tensor_ir64_9.dll
expect_eq "$rc:$(cat out)" "0:cudnn64_9.dll $healed\\cudnn64_9.dll
cudnn_engines_tensor_ir64_9.dll $healed\\cudnn_engines_tensor_ir64_9.dll" "pinned to the healed tree: every name from it: $(cat err)"
grep -q "came from outside" err && fail "--report: a healed tree's DLL counted outside: $(cat err)"
make_windows9_tree cuda12 "$FIXTURES/fake-pe64-9.21.0-cuda12.dll" 9.21.0
rm cuda12/bin/cudnn_engines_tensor_ir64_9.dll
run_program cud adopt --heal "$(winpath "$WORK/cuda12")"
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: '$(winpath "$WORK/cuda12")' lacks cudnn_engines_tensor_ir64_9.dll of cuDNN 9.21.0, and no tree of cuDNN 9.21.0 for CUDA 12 in the store has it to heal it from
  hint: cudnnenv install 9.21.0 --cuda 12 && cudnnenv adopt --heal \"$(winpath "$WORK/cuda12")\"" "a heal from another build refused"
pass "adopt --heal under Wine: hard links to the folder's DLLs and the missing one from a tree of the same build; pinned, every name from it; another build's refused"

# cuDNN's dispatcher itself, PE twins: a cudnn64_9.dll that opens the sub-library by bare name from inside
# (the FAKE_DISPATCHER fake; tests/fixtures/dispatch.c asks it to). Plainly, the dispatcher's load takes the
# stray copy (the 8.9.7 stand-in); pinned to a 9.1.0 tree (which lacks the name), the fence fails it; pinned
# to a healed 9.21.0 bundle, it gets 9.21.0.
"$MINGW" -O1 -static -o prog/dispatch.exe "$E2E_DIR/../fixtures/dispatch.c"
dispatch=$(winpath "$WORK/prog/dispatch.exe")
make_windows9_tree d91 "$FIXTURES/fake-pe64-9.1.0.dll" 9.1.0
cp "$FIXTURES/fake-pe64-9.1.0-dispatcher.dll" d91/bin/cudnn64_9.dll
WINEPATH="$(winpath "$WORK/d91/bin");$(winpath "$WORK/stray")" run_program "$WINE" prog/dispatch.exe cudnn64_9.dll cudnn_engines_tensor_ir64_9.dll
expect_eq "$rc:$(cat out)" "0:cudnn64_9.dll 90100
cudnn_engines_tensor_ir64_9.dll 8907" "the control: plainly, the dispatcher's bare-name load takes the stray 8.9.7"
run_program cud install "$(winpath "$WORK/d91")" --name d91 -q
expect_eq "$rc" "0" "install of the dispatcher's 9.1.0 tree: $(cat err)"
WINEPATH="$(winpath "$WORK/stray")" run_program cud exec --cudnn d91 --verify none -- "$dispatch" cudnn64_9.dll cudnn_engines_tensor_ir64_9.dll
expect_eq "$rc:$(cat out)" "1:cudnn64_9.dll 90100
cudnn_engines_tensor_ir64_9.dll -" "pinned: the dispatcher's load of a name the tree lacks fails on the fence: $(cat err)"
cp -r incomplete dincomplete
cp "$FIXTURES/fake-pe64-9.21.0-dispatcher.dll" dincomplete/bin/cudnn64_9.dll
run_program cud adopt --heal "$(winpath "$WORK/dincomplete")" --name dhealed
expect_eq "$rc" "0" "adopt --heal of the dispatcher's bundle: $(cat err)"
WINEPATH="$(winpath "$WORK/stray")" run_program cud exec --cudnn dhealed -- "$dispatch" cudnn64_9.dll cudnn_engines_tensor_ir64_9.dll
expect_eq "$rc:$(cat out)" "0:cudnn64_9.dll 92100
cudnn_engines_tensor_ir64_9.dll 92100" "pinned to the healed bundle: the dispatcher gets 9.21.0: $(cat err)"
pass "under Wine, a dispatcher's own bare-name load: plainly the stray copy, pinned the fence, healed one version"
