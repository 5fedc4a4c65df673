#!/usr/bin/env bash
# The Windows build under Wine installs a Windows-layout zip with fake 8.1.0
# DLLs into a store whose path has spaces and Chinese characters, lists it,
# and refuses the same archive with a 32-bit DLL in it.
# Wine maps Unix file names through the locale, so this runs under a UTF-8
# one; Windows itself needs nothing of the kind (the program uses the wide API).
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all

make_windows_tree tree "$FIXTURES/fake-pe64-8.1.0.dll"
(cd tree && zip -q -r ../cudnn-11.2-windows-x64-v8.1.0.77.zip cuda)
root="$WORK/C libs 库 目录"
mkdir -p "$root"

"$WINE" "$CUDNNENV" --root "$(winpath "$root")" install "$(winpath "$WORK/cudnn-11.2-windows-x64-v8.1.0.77.zip")" \
  > install.out 2> install.err || fail "install under wine: $(cat install.err)"
grep -q "^installed '8.1.0.77-cuda11.2': cuDNN 8.1.0.77, CUDA 11.2, Windows x64" install.out ||
  fail "install output: $(cat install.out)"
[ -f "$root/8.1.0.77-cuda11.2/cuda/bin/cudnn64_8.dll" ] || fail "tree not where Windows users expect it"
pass "installed into '$root'"

"$WINE" "$CUDNNENV" --root "$(winpath "$root")" list > list.out 2> list.err ||
  fail "list under wine: exit $?: $(cat list.out list.err)"
cat list.out
grep -q "8.1.0.77-cuda11.2  8.1.0.77  11.2" list.out || fail "list: $(cat list.out)"
grep -q "库 目录" list.out || fail "list does not show the non-ASCII root as UTF-8"
"$WINE" "$CUDNNENV" --root "$(winpath "$root")" list --json > list.json 2> list.err ||
  fail "list --json under wine: exit $?: $(cat list.err)"
expect_eq "$(json_field library < list.json)" \
  "$(winpath "$root/8.1.0.77-cuda11.2/cuda/bin/cudnn64_8.dll")" "library path"
pass "list shows it, with the Windows path of cudnn64_8.dll"

# The same layout with one 32-bit DLL: refused, nothing changes.
before=$(cd "$root" && find . | sort)
cp "$FIXTURES/fake-pe32-8.1.0.dll" tree/cuda/bin/cudnn_cnn_infer64_8.dll
(cd tree && zip -q -r ../cudnn-11.0-windows-x64-v8.0.5.39.zip cuda)
if "$WINE" "$CUDNNENV" --root "$(winpath "$root")" install "$(winpath "$WORK/cudnn-11.0-windows-x64-v8.0.5.39.zip")" \
  > bad.out 2> bad.err; then
  fail "a 32-bit DLL was accepted"
fi
grep -q "cudnnenv: error: 'cuda/bin/cudnn_cnn_infer64_8.dll' is PE 32-bit x86 (Machine 0x14c), not Windows x64" bad.err ||
  fail "message: $(cat bad.err)"
expect_eq "$(cd "$root" && find . | grep -v '/locks/' | sort)" "$(echo "$before" | grep -v '/locks/')" "store after refusal"
pass "a 32-bit DLL is refused and the store is unchanged"
