#!/usr/bin/env bash
# The Windows launcher under Wine: cudnnenv-shim.exe copied as NAME.exe with
# NAME.shim beside it starts the target with the tree's bin folder first on
# PATH and returns its exit code. (SetDllDirectoryW, the other half of the
# Windows pin, is not passed to children by Wine 8: see loader-facts.md.)
SHIM=$1   # build/mingw/bin/cudnnenv-shim.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all

mkdir -p shims "tree 库/bin"
cp "$FIXTURES/fake-pe64-8.1.0.dll" "tree 库/bin/cudnn64_8.dll"
# Through a shim, cudnnenv.exe itself reports which cudnn64_8.dll a plain
# process loads by name: the pinned tree's, first on the child's PATH.
# (cmd.exe's echo would print the path in the console code page, not UTF-8.)
cp "$SHIM" shims/pinned.exe
printf 'path = %s\nlibrary_dir = %s\n' "$(winpath "$(dirname "$SHIM")/cudnnenv.exe")" "$(winpath "$WORK/tree 库/bin")" \
  > shims/pinned.shim
"$WINE" shims/pinned.exe discover --json --no-load > discover.json
# The tree's copy, as the pinned child saw it: loaded by name, found through PATH.
expect_eq "$(python3 -c '
import json, sys
print([(c["loaded_by_name"], "PATH" in c["found_via"]) for c in json.load(sys.stdin) if "tree 库" in c["library"]])' \
  < discover.json)" "[(True, True)]" "the tree's cudnn64_8.dll in the pinned child's discover"
pass "through the shim, the tree's cudnn64_8.dll is the one that loads by name"

cp "$SHIM" shims/showpath.exe
printf 'path = C:\\windows\\system32\\cmd.exe\nlibrary_dir = %s\n' "$(winpath "$WORK/tree 库/bin")" > shims/showpath.shim
set +e; "$WINE" shims/showpath.exe /c "exit 42"; rc=$?; set -e
expect_eq "$rc" "42" "exit code passed through"
pass "exit code passed through"

printf 'path = %s\nlibrary_dir = %s\n' "$(winpath "$WORK/shims/showpath.exe")" "$(winpath "$WORK/tree 库/bin")" \
  > shims/showpath.shim
set +e; "$WINE" shims/showpath.exe 2> err; rc=$?; set -e
expect_eq "$rc" "127" "a shim pointing at itself"
grep -q "the shim would start itself" err || fail "message: $(cat err)"
pass "a shim never starts itself"
