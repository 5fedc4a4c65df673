#!/usr/bin/env bash
# Exactly one cuDNN, whatever the release ships (issue 42): each release's
# library set comes from data/cudnn-libraries.tsv, not from its major. A
# 9.21-shaped tree (cuDNN 9.21 added libcudnn_engines_tensor_ir.so.9, which
# its dispatcher opens by bare name) without that file: install and adopt
# refuse it naming the file; a complete one installs, and with the file gone
# verify fails naming it; exec refuses such a tree before the start (exit 4),
# also one whose record never named the file (as an older cudnnenv adopted
# it), and the program does not run.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_VERIFY CUDNNENV_ACTIVATED

make_linux_tree complete 9.21.0 "$FIXTURES/fake-elf64-9.21.0.so"
[ -e complete/lib/libcudnn_engines_tensor_ir.so.9 ] || fail "make_linux_tree made no 9.21 tensor_ir"
cp -a complete incomplete
rm incomplete/lib/libcudnn_engines_tensor_ir.so.9 incomplete/lib/libcudnn_engines_tensor_ir.so.9.21.0

run install ./incomplete
suggestion=$(awk -F'\t' '$1 ~ /^9\.21\.0\./ && $2 == "linux-x86_64" && $3 == "cuda13" { print $4 }' "$E2E_DIR/../../data/cudnn-archives.tsv")
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: incomplete cuDNN 9.21.0 set for Linux x86_64: missing 'lib/libcudnn_engines_tensor_ir.so.9'
  hint: a tree needs every library of its release: copy it from the release's archive, or install that archive ('cudnnenv install 9.21.0 --cuda 13' fetches $suggestion from NVIDIA)" "install of a 9.21 tree without tensor_ir"
run list --json
expect_eq "$(json_count < out)" "0" "nothing installed"
run adopt ./incomplete
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: incomplete cuDNN 9.21.0 set in '$WORK/incomplete': missing 'lib/libcudnn_engines_tensor_ir.so.9'
  hint: a tree needs every cuDNN library of its release in one folder" "adopt of a 9.21 tree without tensor_ir"
pass "install and adopt of a 9.21 tree without libcudnn_engines_tensor_ir.so.9 refused, the file named"

run install ./complete --name c921 -q
expect_eq "$rc" "0" "install of the complete 9.21 tree: $(cat err)"
run verify c921 --level files
expect_eq "$rc:$(grep 'file set' out)" "0:  ok    file set: complete cuDNN 9.21.0 set" "verify of the complete tree: $(cat out err)"
rm "$CUDNNENV_ROOT/c921/lib/libcudnn_engines_tensor_ir.so.9"
run verify c921 --level files
expect_eq "$rc:$(grep 'file set' out)" "4:  FAIL  file set: missing lib/libcudnn_engines_tensor_ir.so.9 (cuDNN 9.21.0 ships it)" "verify without tensor_ir: $(cat out err)"
pass "verify of a 9.21 tree: complete, then missing tensor_ir named"

# A tree recorded without the file (as a cudnnenv that knew only the major's set adopted it): the check
# before a start takes the release's set and refuses it, naming the file; the program does not run.
run install ./complete --name old921 -q
/usr/bin/python3 - "$CUDNNENV_ROOT/old921/.cudnnenv/tree.toml" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
head, *files = text.split("\n[[files]]\n")
text = "\n[[files]]\n".join([head] + [entry for entry in files if "tensor_ir" not in entry])
open(path, "w").write(text)
PY
grep -q tensor_ir "$CUDNNENV_ROOT/old921/.cudnnenv/tree.toml" && fail "the record still names tensor_ir"
rm "$CUDNNENV_ROOT"/old921/lib/libcudnn_engines_tensor_ir.so.*
run exec --cudnn old921 -- "$FIXTURES/load-cudnn"
expect_eq "$rc:$(cat out)" "4:" "exec of a tree recorded without tensor_ir: refused before the start"
expect_eq "$(cat err)" "cudnnenv: error: the tree 'old921' lacks 'libcudnn_engines_tensor_ir.so.9' of cuDNN 9.21.0's libraries: the loader would take that file from another copy
  hint: see 'cudnnenv verify old921'; launch anyway with --verify none" "exec names the file"
run verify old921 --level files
expect_eq "$rc:$(grep 'FAIL ' out)" "4:  FAIL  file set: missing lib/libcudnn_engines_tensor_ir.so.9 (cuDNN 9.21.0 ships it)" "verify of the tree recorded without tensor_ir: $(cat out err)"
run exec --cudnn c921 -- "$FIXTURES/load-cudnn"
expect_eq "$rc" "4" "exec of the tree whose recorded tensor_ir is gone"
run install ./complete --name whole -q
run exec --cudnn whole -- "$FIXTURES/load-cudnn"
expect_eq "$rc:$(cat out)" "0:92100" "exec of a complete 9.21 tree: $(cat err)"
pass "the check before a start refuses a 9.21 tree without tensor_ir (exit 4), recorded or not; a complete one runs"
