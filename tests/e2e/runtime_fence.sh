#!/usr/bin/env bash
# The CUDA runtime fenced and healed (#61), through the real loader: a
# runtime folder whose libcublas.so.13 needs a libcublasLt.so.13 it lacks (a
# wheel half uninstalled), with a decoy libcublasLt.so.13 on LD_LIBRARY_PATH,
# as a program's own copy would be. A plain start mixes the decoy in. adopt
# warns naming the unmet dependency and the fix; verify fails naming it; a
# start through exec, a shim and Slurm's task prolog is refused before it
# starts, naming it (the task prolog with its check, --verify load); with
# --verify none, and in a task started with the task prolog's lines (no check,
# its default), the audit module fences the name (the load fails rather than
# take the decoy), and --why names it with the chain and the fix. A name of another CUDA major stays the program's own. adopt --heal
# makes the folder whole from a complete runtime of the same release, and the
# same starts then load every runtime file from it. Each fix is one that works
# here: it installs that release first while the store has none to heal from.
# Usage: runtime_fence.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
command -v cc > /dev/null || { echo "skip: no C compiler"; exit 77; }
SOURCES=$E2E_DIR/../fixtures
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_SHELL CUDNNENV_CUDA_INDEX CUDNNENV_VERIFY CUDNNENV_RUNTIME

# A program that opens each name it is given, as a framework's loader does.
cc -o load-names "$SOURCES/dlopen_names.c" -ldl
library() { cuda_stand_in "$@"; }
mkdir -p full/lib half/lib decoy
library full/lib/libcublasLt.so.13 -DFAKE_PROPERTY=cublasLtGetProperty -DFAKE_MAJOR=13 -DFAKE_MINOR=1 -DFAKE_PATCH=0
library decoy/libcublasLt.so.13 -DFAKE_PROPERTY=cublasLtGetProperty -DFAKE_MAJOR=13 -DFAKE_MINOR=9 -DFAKE_PATCH=9
library decoy/libcudart.so.12 -DFAKE_CUDART=12040
library full/lib/libcudart.so.13.0.96 -DFAKE_CUDART=13000
ln -s libcudart.so.13.0.96 full/lib/libcudart.so.13
library full/lib/libcublas.so.13 -DFAKE_PROPERTY=cublasGetProperty -DFAKE_MAJOR=13 -DFAKE_MINOR=1 -DFAKE_PATCH=0 \
  -Wl,--no-as-needed full/lib/libcublasLt.so.13
cp -P full/lib/libcudart.so.13 full/lib/libcudart.so.13.0.96 full/lib/libcublas.so.13 half/lib/
make_linux_tree t 9.19.0 "$FIXTURES/fake-elf64-9.19.0.so"
run install ./t --name t
export LD_LIBRARY_PATH=$WORK/decoy

# A plain start that finds the half runtime (as a wheel's RPATH does) takes the decoy's libcublasLt.
LD_LIBRARY_PATH=$WORK/half/lib:$WORK/decoy run_program ./load-names libcublas.so.13
expect_eq "$rc:$(cat out)" "0:libcublas.so.13 loaded" "a plain start: libcublas.so.13 loads, with the decoy's libcublasLt"

run adopt half/lib --name half
expect_eq "$rc:$(cat out)" "0:adopted 'half': CUDA 13.0 runtime, 3 library files stay in $WORK/half/lib" "adopt of the half runtime"
# No runtime of its release in the store yet: the fix installs one first (WORK has a space).
heal="cudnnenv install cuda 13.0 && cudnnenv remove half --yes && cudnnenv adopt --heal \"$WORK/half/lib\" --name half"
expect_eq "$(cat err)" "cudnnenv: warning: '$WORK/half/lib' lacks libcublasLt.so.13 (needed by libcublas.so.13): a program started with 'half' is refused before it starts (with --verify none, the fence then fails its load); install a complete CUDA 13.0 runtime and make it whole from that: $heal" \
  "adopt's warning"
run verify half --level files
expect_eq "$rc" "4" "verify of the half runtime ($(cat out err))"
expect_eq "$(cat out)" "verify half (CUDA runtime 13.0.0): $WORK/half/lib/libcudart.so.13
  FAIL  file set: lacks libcublasLt.so.13 (needed by libcublas.so.13); install a complete CUDA 13.0 runtime and make it whole from that: $heal
  ok    files: 3 files match the install manifest
  ok    architecture: ELF 64-bit x86_64, as Linux x86_64 needs
FAILED" "verify's lines"
pass "adopt warns and verify fails, each naming libcublasLt.so.13, what needs it and the fix"

refusal="cudnnenv: error: the CUDA runtime 'half' is incomplete: $WORK/half/lib lacks libcublasLt.so.13 (needed by libcublas.so.13)
  hint: install a complete CUDA 13.0 runtime and make it whole from that: $heal; launch anyway with --verify none (the fence then fails its load)"
run exec --cudnn t --runtime half -- ./load-names libcublas.so.13
expect_eq "$rc:$(cat out):$(cat err)" "4::$refusal" "exec with the half runtime"
mkdir project
printf 'cudnn = "t"\nruntime = "half"\n' > project/.cudnnenv.toml
run shim add load-names --target "$WORK/load-names"
shim=$CUDNNENV_STATE_DIR/shims/load-names
cd project
run_program "$shim" libcublas.so.13
cd ..
expect_eq "$rc:$(cat project/out)" "4:" "the shim in a project that selects the half runtime ($(cat project/err))"
grep -qF "the CUDA runtime 'half' is incomplete: $WORK/half/lib lacks libcublasLt.so.13 (needed by libcublas.so.13)" project/err ||
  fail "the shim's refusal: $(cat project/err)"
cd project
run_program "$CUDNNENV" slurm task-prolog --verify load
cd ..
expect_eq "$rc:$(cat project/out)" "4:" "the task prolog with its check, in that project ($(cat project/err))"
grep -qF "the CUDA runtime 'half' is incomplete: $WORK/half/lib lacks libcublasLt.so.13 (needed by libcublas.so.13)" project/err ||
  fail "the task prolog's refusal: $(cat project/err)"
pass "exec, a shim and the task prolog (--verify load) refuse the half runtime before the start, naming what it lacks"

run exec --verify none --cudnn t --runtime half --why -- ./load-names libcublas.so.13
expect_eq "$rc:$(cat out)" "1:libcublas.so.13 -" "--verify none: the program's load fails (fenced)"
expect_eq "$(cat err)" "$WORK/half/lib/libcublasLt.so.13: cannot open shared object file: No such file or directory
cudnnenv: why: libcublasLt.so.13 did not load (needed by libcublas.so.13)
  chain:  load-names -> libcublas.so.13 -> libcublasLt.so.13
  looked for in, in order:
    $WORK/half/lib  (pin)
  fix:    $heal  (the CUDA runtime 'half' lacks it)
cudnnenv: why: $WORK/half/lib/libcublas.so.13 was found but did not load: it needs libcublasLt.so.13" "--why"
# The task prolog without a check (its default): the task's environment, as Slurm applies its lines, fences it.
cd project
run_program "$CUDNNENV" slurm task-prolog
cd ..
expect_eq "$rc" "0" "the task prolog without a check ($(cat project/err))"
task_environment=()
while IFS= read -r line; do
  case $line in export\ *) task_environment+=("${line#export }") ;; esac
done < project/out
run_program env "${task_environment[@]}" ./load-names libcublas.so.13
expect_eq "$rc:$(cat out):$(cat err)" "1:libcublas.so.13 -:$WORK/half/lib/libcublasLt.so.13: cannot open shared object file: No such file or directory" \
  "a task started with the task prolog's lines"
run exec --verify none --cudnn t --runtime half -- ./load-names libcudart.so.12
expect_eq "$rc:$(cat out)" "0:libcudart.so.12 loaded" "a CUDA 12 name with the CUDA 13 runtime pinned: the program's own"
pass "with --verify none, and in a task of the task prolog, the fence fails the load of libcublasLt.so.13 (not the decoy's); --why names it; CUDA 12's names pass"

run adopt --heal half/lib --name healed
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: '$WORK/half/lib' lacks libcublasLt.so.13, and no CUDA 13.0 runtime in the store has it to heal it from
  hint: cudnnenv install cuda 13.0 && cudnnenv adopt --heal \"$WORK/half/lib\" --name healed" "adopt --heal with nothing to heal from"
library full/lib/libnvJitLink.so.13
run adopt full/lib --name full
expect_eq "$rc:$(cat err)" "0:" "adopt of the complete runtime"
# With 'full' in the store the fix heals from it, installing nothing.
heal="cudnnenv remove half --yes && cudnnenv adopt --heal \"$WORK/half/lib\" --name half"
run exec --cudnn t --runtime half -- ./load-names libcublas.so.13
expect_eq "$rc:$(cat err)" "4:cudnnenv: error: the CUDA runtime 'half' is incomplete: $WORK/half/lib lacks libcublasLt.so.13 (needed by libcublas.so.13)
  hint: make it whole from the complete CUDA 13.0 runtime in the store: $heal; launch anyway with --verify none (the fence then fails its load)" \
  "exec's refusal with a donor in the store"
run verify half --level files
expect_eq "$(sed -n 2p out)" "  FAIL  file set: lacks libcublasLt.so.13 (needed by libcublas.so.13); make it whole from the complete CUDA 13.0 runtime in the store: $heal" \
  "verify's fix with a donor in the store"
run remove half --yes
run adopt --heal half/lib --name half
expect_eq "$rc:$(cat out)" "0:adopted 'half': CUDA 13.0 runtime, 4 library files stay in $WORK/half/lib (linked from one folder, $CUDNNENV_ROOT/half/lib)" \
  "adopt --heal ($(cat err))"
expect_eq "$(cat err)" "cudnnenv: warning: '$WORK/half/lib' lacks libcublasLt.so.13: 'half' is a store folder of links to its files and that file from 'full' (CUDA 13.0)" \
  "adopt --heal's note"
run adopt --heal half/lib --name half2
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$WORK/half/lib' is already healed as 'half' (its files, and what it lacked from 'full')
  hint: 'cudnnenv list' shows it; 'cudnnenv remove half' forgets it" "a second adopt --heal of the runtime"
run exec --cudnn t --runtime half --report -- ./load-names libcublas.so.13
expect_eq "$rc:$(cat out)" "0:libcublas.so.13 loaded" "exec with the healed runtime ($(cat err))"
expect_eq "$(cat err)" "cudnnenv: report: pinned to 't' (cuDNN 9.19.0, $CUDNNENV_ROOT/t/lib) with the CUDA runtime 'half' ($CUDNNENV_ROOT/half/lib), mode audit
  in the runtime  $WORK/half/lib/libcublas.so.13
  in the runtime  $CUDNNENV_ROOT/half/lib/libcublasLt.so.13" "--report: both files from the healed runtime"
cd project
run_program "$shim" libcublas.so.13
cd ..
expect_eq "$rc:$(cat project/out)" "0:libcublas.so.13 loaded" "the shim with the healed runtime ($(cat project/err))"
pass "adopt --heal completes the runtime from 'full' (not the nvJitLink nothing needs), and exec and the shim start past the decoy"
