#!/usr/bin/env bash
# What did not load (issue 41), through the real loader: a program opens a
# libcusolver.so.11 of a CUDA 12 runtime folder on its LD_LIBRARY_PATH whose
# own dependency, libnvJitLink.so.12, exists nowhere. `exec --why` names the
# missing library, what needed it, the chain from the program, the folders
# ld.so searched in order with the rule behind each, and the command that
# fixes it; --json says the same. With that folder adopted as the pinned
# runtime, a start is refused before it runs (#61), and with --verify none
# the fence fails the load, --why names the runtime's own folder and the
# heal, and --report marks libcusolver FAILED rather than "in the runtime".
# With the dependency put into the runtime's folder the same run is clean.
# A cuDNN 9 tree whose sub-library needs a cuBLAS the machine lacks: --report
# marks the sub-library FAILED and names the import.
# Usage: why.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
command -v cc > /dev/null || { echo "skip: no C compiler"; exit 77; }
SOURCES=$E2E_DIR/../fixtures
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_SHELL CUDNNENV_CUDA_INDEX CUDNNENV_VERIFY

# A program that opens each name it is given, as a framework's loader does.
cc -o load-names "$SOURCES/dlopen_names.c" -ldl

library() { cuda_stand_in "$@"; }
mkdir -p runtime nowhere
library nowhere/libnvJitLink.so.12
library runtime/libcudart.so.12 -DFAKE_CUDART=12040
library runtime/libcusolver.so.11 -DFAKE_PROPERTY=cusolverGetProperty -DFAKE_MAJOR=11 -DFAKE_MINOR=6 -DFAKE_PATCH=0 \
  -Wl,--no-as-needed nowhere/libnvJitLink.so.12
rm nowhere/libnvJitLink.so.12
make_linux_tree t 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install ./t --name t
store_lib=$(cd "$CUDNNENV_ROOT/t/lib" && pwd -P)

# The default folders ld.so searched: whatever this machine's are, /usr/lib among them.
defaults_only() { grep -c '  (default)$' "$1"; }
without_defaults() { grep -v '  (default)$' "$1"; }

export LD_LIBRARY_PATH=$WORK/runtime  # the program's own runtime, as a venv's is
run exec --cudnn t --why -- ./load-names libcusolver.so.11
expect_eq "$rc:$(cat out)" "1:libcusolver.so.11 -" "the program's own view: the load failed"
fix="cudnnenv install cuda 12.9.1"  # the newest CUDA 12 of the pinned manifests
expect_eq "$(without_defaults err)" "libnvJitLink.so.12: cannot open shared object file: No such file or directory
cudnnenv: why: libnvJitLink.so.12 did not load (needed by libcusolver.so.11)
  chain:  load-names -> libcusolver.so.11 -> libnvJitLink.so.12
  looked for in, in order:
    $store_lib  (LD_LIBRARY_PATH)
    $WORK/runtime  (LD_LIBRARY_PATH)
  fix:    $fix
cudnnenv: why: $WORK/runtime/libcusolver.so.11 was found but did not load: it needs libnvJitLink.so.12" "exec --why: the chain, the folders in order, the fix"
[ "$(defaults_only err)" -ge 1 ] && grep -q '^    /usr/lib  (default)$' err ||
  fail "exec --why lists ld.so's default folders after LD_LIBRARY_PATH's: $(cat err)"
pass "exec --why names the missing libnvJitLink.so.12, the chain through libcusolver.so.11, the folders and the fix"

run exec --cudnn t --why --json -- ./load-names libcusolver.so.11
python3 - "$WORK" "$store_lib" err <<'PY' || fail "exec --why --json: $(cat err)"
import json, sys
work, store_lib, path = sys.argv[1:]
lines = open(path).read().splitlines()
result = json.loads(lines[-1])
missing = result["missing"]
assert len(missing) == 1, missing
m = missing[0]
assert m["name"] == "libnvJitLink.so.12", m
assert m["needed_by"] == ["libcusolver.so.11"], m
assert m["chains"] == [["load-names", "libcusolver.so.11", "libnvJitLink.so.12"]], m
assert m["looked_in"][:2] == [{"folder": store_lib, "rule": "LD_LIBRARY_PATH"},
                              {"folder": work + "/runtime", "rule": "LD_LIBRARY_PATH"}], m
assert m["fix"] == "cudnnenv install cuda 12.9.1", m
assert result["failed"] == [{"path": work + "/runtime/libcusolver.so.11", "pid": result["failed"][0]["pid"],
                             "missing": ["libnvJitLink.so.12"]}], result["failed"]
PY
pass "exec --why --json: the same, as one line of JSON"


# The folder adopted: the pinned runtime is incomplete, and the start is refused before it runs.
unset LD_LIBRARY_PATH
run adopt runtime
expect_eq "$(cat out)" "adopted 'cuda-12': CUDA 12 runtime, 2 library files stay in $WORK/runtime" "adopt the runtime folder"
heal="cudnnenv install cuda 12 && cudnnenv remove cuda-12 --yes && cudnnenv adopt --heal \"$WORK/runtime\" --name cuda-12"
run exec --cudnn t --runtime cuda-12 --why -- ./load-names libcusolver.so.11
expect_eq "$rc:$(cat out):$(cat err)" "4::cudnnenv: error: the CUDA runtime 'cuda-12' is incomplete: $WORK/runtime lacks libnvJitLink.so.12 (needed by libcusolver.so.11)
  hint: install a complete CUDA 12 runtime and make it whole from that: $heal; launch anyway with --verify none (the fence then fails its load)" \
  "exec with the incomplete runtime pinned"
run exec --cudnn t --runtime cuda-12 --verify none --why -- ./load-names libcusolver.so.11
expect_eq "$rc:$(cat out)" "1:libcusolver.so.11 -" "--verify none: the load fails"
expect_eq "$(cat err)" "$WORK/runtime/libnvJitLink.so.12: cannot open shared object file: No such file or directory
cudnnenv: why: libnvJitLink.so.12 did not load (needed by libcusolver.so.11)
  chain:  load-names -> libcusolver.so.11 -> libnvJitLink.so.12
  looked for in, in order:
    $WORK/runtime  (pin)
  fix:    $heal  (the CUDA runtime 'cuda-12' lacks it)
cudnnenv: why: $WORK/runtime/libcusolver.so.11 was found but did not load: it needs libnvJitLink.so.12" "--why of the fenced load"
pass "with the folder as the pinned runtime: refused before the start; with --verify none fenced, and --why names the heal"
run exec --cudnn t --runtime cuda-12 --verify none --report -- ./load-names libcusolver.so.11
grep -qxF "  FAILED          $WORK/runtime/libcusolver.so.11 (did not load: it needs libnvJitLink.so.12)" err ||
  fail "--report marks libcusolver FAILED: $(cat err)"
if grep -q "in the runtime $WORK/runtime/libcusolver.so.11" err; then fail "--report lists the failed file as in the runtime"; fi
grep -qxF "cudnnenv: why: libnvJitLink.so.12 did not load (needed by libcusolver.so.11)" err ||
  fail "--report ends with what did not load: $(cat err)"
pass "exec --report marks the runtime library that mapped and failed FAILED, and says why"

# The dependency in the runtime's folder: the same run is clean.
library runtime/libnvJitLink.so.12
run exec --cudnn t --runtime cuda-12 --why -- ./load-names libcusolver.so.11
expect_eq "$rc:$(cat out)" "0:libcusolver.so.11 loaded" "with the dependency in the runtime"
expect_eq "$(cat err)" "cudnnenv: why: every CUDA library the program asked for loaded" "exec --why of a clean run"
pass "with libnvJitLink.so.12 in the runtime tree the same run is clean"

# A cuDNN 9 tree whose libcudnn_ops needs a cuBLAS (libcublasLt.so.11) nothing has.
make_linux_tree needs 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
rm needs/lib/libcudnn_ops.so.9.1.0
cp "$FIXTURES/fake-elf64-9.1.0-needs-cublas.so" needs/lib/libcudnn_ops.so.9.1.0
run install ./needs --name needs
needs_lib=$(cd "$CUDNNENV_ROOT/needs/lib" && pwd -P)
run exec --cudnn needs --verify none --report -- ./load-names libcudnn.so.9 libcudnn_ops.so.9
expect_eq "$(cat out)" "libcudnn.so.9 loaded
libcudnn_ops.so.9 -" "the program: the sub-library does not load"
grep -qxF "  in the tree  $needs_lib/libcudnn.so.9.1.0" err || fail "--report: the main library in the tree: $(cat err)"
grep -qxF "  FAILED       $needs_lib/libcudnn_ops.so.9.1.0 (did not load: it needs libcublasLt.so.11)" err ||
  fail "--report marks the sub-library FAILED: $(cat err)"
grep -qxF "  fix:    cudnnenv install cuda 11.8.0" err || fail "--report's fix for cuBLAS 11: $(cat err)"
pass "exec --report marks a cuDNN sub-library whose cuBLAS is missing FAILED, with the fix"
