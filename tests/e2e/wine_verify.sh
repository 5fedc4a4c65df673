#!/usr/bin/env bash
# verify of Windows trees under Wine, by folder: a sub-library that needs
# cublas64_11.dll names it (and passes once that DLL is on PATH); cuDNN 8.9
# without zlibwapi.dll, which it opens only at its first convolution, names
# it too; a 32-bit DLL is named with its Machine field. Each failure exits 4;
# --level conv where there is no nvcuda.dll exits 5.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export WINEDEBUG=-all

RUNNER=$WINE
CUDNNENV_ROOT=$(winpath "$WORK/store")
export CUDNNENV_ROOT

make_windows_tree needs "$FIXTURES/fake-pe64-8.1.0.dll"
cp "$FIXTURES/fake-pe64-8.1.0-needs-cublas.dll" needs/cuda/bin/cudnn_ops_infer64_8.dll
run verify "$(winpath "$WORK/needs/cuda")" --level load
expect_eq "$rc" "4" "verify of a tree missing cublas64_11.dll"
grep -q "FAIL  sub-libraries: cudnn_ops_infer64_8.dll needs cublas64_11.dll: not in its folder, .*PATH (" out ||
  fail "the missing DLL is not named: $(cat out)"
pass "a sub-library's missing cublas64_11.dll is named with where it was looked for, exit 4"

WINEPATH="$(winpath "$FIXTURES/link-only")" run verify "$(winpath "$WORK/needs/cuda")" --level load
expect_eq "$rc" "0" "verify with cublas64_11.dll on PATH ($(cat out))"
grep -q "ok    sub-libraries: 6 load by absolute path" out || fail "verify: $(cat out)"
pass "with cublas64_11.dll on PATH the same tree passes"

make_windows_tree zlib "$FIXTURES/fake-pe64-8.9.7.dll" 8.9.7
run verify "$(winpath "$WORK/zlib/cuda")" --level load
expect_eq "$rc" "4" "verify of cuDNN 8.9 without zlibwapi.dll"
grep -q "FAIL  run-time dependencies: cudnn64_8.dll needs zlibwapi.dll: not in its folder, .*'cudnnenv install' puts the one cudnnenv carries" out ||
  fail "zlibwapi.dll is not named: $(cat out)"
mkdir zlib-dll && cp "$FIXTURES/link-only/cublas64_11.dll" zlib-dll/zlibwapi.dll
WINEPATH="$(winpath "$WORK/zlib-dll")" run verify "$(winpath "$WORK/zlib/cuda")" --level load
expect_eq "$rc" "0" "verify of cuDNN 8.9 with zlibwapi.dll on PATH ($(cat out))"
grep -q "ok    run-time dependencies: zlibwapi.dll found" out || fail "verify: $(cat out)"
pass "cuDNN 8.9 without zlibwapi.dll fails load with the hint; with it on PATH, passes"

make_windows_tree x86 "$FIXTURES/fake-pe64-8.1.0.dll"
cp "$FIXTURES/fake-pe32-8.1.0.dll" x86/cuda/bin/cudnn_adv_train64_8.dll
run verify "$(winpath "$WORK/x86/cuda")" --level files
expect_eq "$rc" "4" "verify of a tree with a 32-bit DLL"
grep -q "FAIL  architecture: 'cudnn_adv_train64_8.dll' is PE 32-bit x86 (Machine 0x14c), not Windows x64" out ||
  fail "the 32-bit DLL is not named: $(cat out)"
pass "a 32-bit DLL is named with its Machine field, exit 4"

make_windows_tree sound "$FIXTURES/fake-pe64-8.1.0.dll"
run verify "$(winpath "$WORK/sound/cuda")" --level conv
expect_eq "$rc" "5" "verify --level conv without nvcuda.dll ($(cat out))"
grep -q "no NVIDIA driver" out || fail "verify --level conv: $(cat out)"
pass "--level conv without a driver says so, exit 5"
