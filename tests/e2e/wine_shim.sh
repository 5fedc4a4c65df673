#!/usr/bin/env bash
# The Windows launcher under Wine: `cudnnenv shim add NAME` copies
# cudnnenv-shim.exe as NAME.exe with NAME.shim beside it; it starts the target
# with the selected tree's bin folder first on PATH (the first start through
# `cudnnenv exec`, which records its decision; the next from the decision)
# and returns its exit code. A sidecar naming a library folder of its own
# (library_dir, from before there was one start) is refused with the command
# that writes it again. (SetDllDirectoryW, the other half of the Windows pin,
# is not passed to children by Wine 8: see loader-facts.md.)
SHIM=$1   # build/mingw/bin/cudnnenv-shim.exe; cudnnenv.exe beside it
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
CUDNNENV=$(dirname "$SHIM")/cudnnenv.exe
root="$WORK/tree 库"
cud() { "$WINE" "$CUDNNENV" --root "$(winpath "$root")" "$@"; }
export CUDNNENV_VERIFY=none

make_windows_tree t8.1.0 "$FIXTURES/fake-pe64-8.1.0.dll" 8.1.0
cud install "$(winpath "$WORK/t8.1.0/cuda")" --name pinned > /dev/null && cud use --global pinned > /dev/null 2>&1 ||
  fail "install and select a tree"
shims="$root/.cudnnenv/shims"
# Through a shim, cudnnenv.exe itself reports which cudnn64_8.dll a plain
# process loads by name: the pinned tree's, first on the child's PATH.
# (cmd.exe's echo would print the path in the console code page, not UTF-8.)
cud shim add pinned --target "$(winpath "$CUDNNENV")" > /dev/null || fail "shim add pinned"
for start in first second; do  # through exec (the decision recorded), then from the decision
  "$WINE" "$shims/pinned.exe" discover --json --no-load > discover.json
  # The tree's copy, as the pinned child saw it: loaded by name, found through PATH.
  expect_eq "$(python3 -c '
import json, sys
print([(c["loaded_by_name"], "PATH" in c["found_via"]) for c in json.load(sys.stdin) if "tree 库" in c["library"]])' \
    < discover.json)" "[(True, True)]" "the tree's cudnn64_8.dll in the pinned child's discover ($start start)"
done
[ -n "$(ls "$root/.cudnnenv/cache/launch")" ] || fail "no decision recorded"
pass "through the shim, the tree's cudnn64_8.dll is the one that loads by name"

cud shim add showpath --target 'C:\windows\system32\cmd.exe' > /dev/null || fail "shim add showpath"
for start in first second; do
  set +e; "$WINE" "$shims/showpath.exe" /c "exit 42"; rc=$?; set -e
  expect_eq "$rc" "42" "exit code passed through ($start start)"
done
pass "exit code passed through"

cp "$shims/showpath.shim" showpath.good
printf 'library_dir = %s\n' "$(winpath "$root/pinned/bin")" >> "$shims/showpath.shim"
set +e; "$WINE" "$shims/showpath.exe" /c "exit 0" 2> err; rc=$?; set -e
expect_eq "$rc:$(tr -d '\r' < err)" "127:cudnnenv-shim: error: $(winpath "$shims/showpath.shim"): line $(wc -l < "$shims/showpath.shim"): 'library_dir' is no longer read: a shim starts what 'cudnnenv exec' decides; write it again: cudnnenv shim add showpath" \
  "a sidecar with a library folder of its own"
cp showpath.good "$shims/showpath.shim"
pass "an old fixed pin is refused with the command that writes it again"
