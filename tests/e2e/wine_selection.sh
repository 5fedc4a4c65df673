#!/usr/bin/env bash
# Selection in the Windows build under Wine, with Windows paths: drive
# letters, backslashes, spaces and Chinese folder names. use --local from a
# project folder, then current and which from 12 folders below it.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
cudnnenv() { "$WINE" "$CUDNNENV" --root "$(winpath "$WORK/C libs 库")" "$@" | tr -d '\r'; }

make_windows_tree tree "$FIXTURES/fake-pe64-8.1.0.dll"
(cd tree && zip -q -r ../cudnn-11.2-windows-x64-v8.1.0.77.zip cuda)
cudnnenv install "$(winpath "$WORK/cudnn-11.2-windows-x64-v8.1.0.77.zip")" > /dev/null

mkdir -p "项目 project"
cd "项目 project"
cudnnenv use 8.1 --local > out
grep -q '^cudnn = "8.1"$' .cudnnenv.toml || fail "project file: $(cat .cudnnenv.toml)"
deep=.; for i in $(seq 1 12); do deep="$deep/层 $i"; done
mkdir -p "$deep" && cd "$deep"
expect_eq "$(cudnnenv current)" \
  "8.1.0.77  8.1.0.77-cuda11.2  (set by $(winpath "$WORK/项目 project/.cudnnenv.toml"))" "current"
expect_eq "$(cudnnenv which)" \
  "$(winpath "$WORK/C libs 库/8.1.0.77-cuda11.2/cuda/bin/cudnn64_8.dll")" "which"
expect_eq "$(cudnnenv which --all | wc -l | tr -d ' ')" "7" "which --all: the seven DLLs"
pass "use --local, current and which with Windows paths"

set +e; "$WINE" "$CUDNNENV" --root "$(winpath "$WORK/C libs 库")" use 8.1 > out 2> err; rc=$?; set -e
expect_eq "$rc" "1" "use without the shell hook"
grep -q 'hint: load it (cudnnenv init cmd, see .cudnnenv init --help.), or run: set "CUDNNENV_VERSION=8.1"' err || fail "hint: $(cat err)"
pass "use without the hook names the cmd line to run"

# Issue 12.5: a profile prefers the pair it was tested with. tf2.5 was tested
# with cuDNN 8.1 and CUDA 11.2; 8.2.0.53 for CUDA 11.3 runs it too (a newer
# minor), with a warning naming the tested pair, until 8.1.0.77 is installed.
cd "$WORK"
pair_root=$(winpath "$WORK/tf store")
make_windows_tree tree82 "$FIXTURES/fake-pe64-8.2.0.dll" 8.2.0
(cd tree82 && zip -q -r ../cudnn-11.3-windows-x64-v8.2.0.53.zip cuda)
"$WINE" "$CUDNNENV" --root "$pair_root" install "$(winpath "$WORK/cudnn-11.3-windows-x64-v8.2.0.53.zip")" > /dev/null
"$WINE" "$CUDNNENV" --root "$pair_root" current --cudnn tf2.5 > out 2> err
expect_eq "$(tr -d '\r' < out | head -1)" "8.2.0.53  8.2.0.53-cuda11.3  (set by --cudnn)" "tf2.5 with 8.2 alone"
expect_eq "$(tr -d '\r' < out | sed -n 2p | cut -d: -f1-2)" "no CUDA runtime: TensorFlow 2.5 (tf2.5) opens cudart64_110.dll first, then cublas64_11.dll, cublasLt64_11.dll, cufft64_10.dll, curand64_10.dll, cusolver64_11.dll, cusparse64_11.dll" \
  "tf2.5 with no runtime: what TF opens first, said"
expect_eq "$(tr -d '\r' < err)" "cudnnenv: warning: tf2.5 (TensorFlow 2.5) was tested with cuDNN 8.1 and CUDA 11.2, which is not installed; using '8.2.0.53-cuda11.3' (cuDNN 8.2.0.53, CUDA 11.3), which it accepts (hint: install the tested pair: cudnnenv install 8.1 --cuda 11.2)" "the warning names the tested pair"
"$WINE" "$CUDNNENV" --root "$pair_root" install "$(winpath "$WORK/cudnn-11.2-windows-x64-v8.1.0.77.zip")" > /dev/null
"$WINE" "$CUDNNENV" --root "$pair_root" current --cudnn tf2.5 > out 2> err
expect_eq "$(tr -d '\r' < out | head -1)" "8.1.0.77  8.1.0.77-cuda11.2  (set by --cudnn)" "tf2.5 beside 8.2.0.53"
expect_eq "$(cat err)" "" "the tested pair: no warning"
"$WINE" "$CUDNNENV" --root "$pair_root" profile list > out
expect_eq "$(tr -d '\r' < out | grep '^\*  tf2.5 ' | tr -s ' ')" "* tf2.5 8.1 11.2 8.1.0.77-cuda11.2 (8.1.0.77)" "profile list"
pass "12.5: tf2.5 picks the tested 8.1.0.77 beside 8.2.0.53; 8.2.0.53 alone runs it with a warning naming the pair"

# Issue 14, first part: what could be installed here, on Windows: the
# embedded official list, compared with data/cudnn-archives.tsv; the tree
# installed from an archive named like the official 8.1.0.77 one is marked.
"$WINE" "$CUDNNENV" --root "$pair_root" list --available 8.1 --json > out 2> err
expect_eq "$(python3 -c '
import json, sys
for a in json.load(sys.stdin):
    print(a["version"], a["cuda"], a["file_name"], a["installed"])' < out)" \
  "$(official_list windows-x86_64 8.1 | awk '{print $0, ($3 == "cudnn-11.2-windows-x64-v8.1.0.77.zip" ? "8.1.0.77-cuda11.2" : "None")}')" \
  "list --available 8.1 --json ($(cat err))"
pass "list --available 8.1: the embedded list's Windows archives, newest first; the installed one named"
