#!/usr/bin/env bash
# cudnnenv selftest (issue 27) under Wine: every case Wine can show holds
# (exec by name, --mode path, LOAD_WITH_ALTERED_SEARCH_PATH, stray copies in
# the working folder and the program's folder, a 32-bit copy of the name in
# the program's folder (Wine's loader skips it and takes PATH's: without
# the pin the stray copy, not error 193 as on Windows), a load by full path that
# --report names, a .bat target, a shim first and cached, cmd activation,
# the activate.bat `profile generate` writes, the cmd hook `export conda`
# writes, called as conda calls it);
# each case Wine cannot show is `unprovable` with its reason, never "held"
# (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS and AddDllDirectory, SetDllDirectoryW
# passed to a grandchild, a store past 260 characters, System32, PowerShell).
# Without the pin (the test-only CUDNNENV_SELFTEST_UNPINNED=1) every case
# Wine can show fails and selftest exits 4. --system32 places its copy for
# its case only and removes it, and refuses to touch one that is there.
# Nothing is left behind: %TEMP%, the registry (HKCU and HKLM exported
# before and after, less the display keys Wine rewrites at each start of its
# server; the comparison is shown to catch a change) and the
# user's store. The zip's files run it too (e2e_package_zip).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
RUNNER=$WINE
WINESERVER=${WINESERVER:-$(dirname "$WINE")/wineserver}
"$WINESERVER" -k 2> /dev/null || true
"$WINESERVER" -p60  # stays up to 60 s after its last program: no restart between the snapshots

export CUDNNENV_ROOT=$(winpath "$WORK/user store")
make_windows_tree t81 "$FIXTURES/fake-pe64-8.1.0.dll"
run install "$(winpath "$WORK/t81/cuda")" --name mine
[ "$rc" = 0 ] || fail "install: $(cat err)"
temp=$("$WINE" cmd /c echo %TEMP% 2> /dev/null | tr -d '\r')
temp_unix=$("$WINE" winepath -u "$temp" 2> /dev/null)
[ -d "$temp_unix" ] || fail "no %TEMP% folder: '$temp' -> '$temp_unix'"
snapshot() {  # what must be as it was: %TEMP%, the registry, the user's store
  (cd "$temp_unix" && find . | sort) > "$1.temp"
  # As text, less what Wine rewrites when its display starts, should its server restart anyway: the device's
  # Control\Video\{GUID} key and its DriverDateData.
  for hive in hkcu hklm; do
    "$WINE" reg export "${hive^^}" "$(winpath "$WORK/$1.$hive.reg")" /y > /dev/null 2>&1
    iconv -f UTF-16LE -t UTF-8 "$1.$hive.reg" | sed -e '/^"DriverDateData"=/d' \
      -e 's/\\Control\\Video\\{[0-9a-f-]*}/\\Control\\Video\\{GUID}/g' > "$1.$hive"
  done
  (cd "$WORK/user store" && find . | sort) > "$1.store"
}
same_as_before() {
  for part in temp hkcu hklm store; do
    cmp -s "before.$part" "$1.$part" && continue
    echo "$part differs: $(diff "before.$part" "$1.$part" | head -20)"
    return 1
  done
}
# One Wine server for the whole test (each start of one rewrites a few keys of its own: the display
# device, services' counter), then one run: what Wine itself writes the first time a program or cmd runs in a prefix (CI's is fresh)
# is not the selftest's to leave behind.
run selftest --only activate-cmd
check_key='HKCU\Software\cudnnenv selftest check'
"$WINE" reg delete "$check_key" /f > /dev/null 2>&1 || true  # left by a run that failed half-way
snapshot before
# The check can fail: a value added to HKCU shows.
"$WINE" reg add "$check_key" /v x /d y /f > /dev/null 2>&1
snapshot check
"$WINE" reg delete "$check_key" /f > /dev/null 2>&1
expect_eq "$(same_as_before check | head -1 | cut -d" " -f1-2)" "hkcu differs:" "the registry comparison sees a change"

details() {  # "id: detail" of each unprovable case
  python3 -c 'import json, sys
r = json.load(sys.stdin)
for c in r["cases"]:
    if c["status"] == "unprovable": print(c["id"] + ": " + c["detail"])'
}

run selftest --json
[ "$rc" = 0 ] || fail "selftest: $(cat out) $(cat err)"
pinned="9.90.1 (the pinned tree)"
stray="9.90.2 (the stray copy)"
expect_eq "$(selftest_statuses < out)" "exec-audit held $pinned
exec-cudnn8 held 8.1.90 (the pinned tree)
exec-path held $pinned
exec-altered held $pinned
exec-default-dirs unprovable $pinned
exec-add-dll-directory unprovable $pinned
exec-working-folder held $pinned
exec-program-folder held $pinned
exec-32bit-copy held $pinned
exec-absolute held $stray
exec-grandchild unprovable $stray
exec-batch held $pinned
exec-long-path unprovable $pinned
shim held $pinned
shim-cached held $pinned
bundle-refused held nothing: cudnnenv: error: the tree 'bundle' is incomplete: 'bin/cudnn_engines_tensor_ir64_9.dll' missing or changed since it was installed
bundle-fenced held 9.90.1 (the bundle's release), then cudnn_engines_tensor_ir64_9.dll not loaded
bundle-healed held 9.90.1 (the bundle's release), then 9.90.1 (the bundle's release)
activate-cmd held $pinned
profile-cmd held $pinned
conda-cmd held $pinned
activate-powershell unprovable nothing
profile-powershell unprovable nothing
conda-powershell unprovable nothing" "selftest --json under Wine, every case"
expect_eq "$(details < out)" "exec-default-dirs: Wine cannot show this: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS and AddDllDirectory are Wine's own implementation, not Windows' loader
exec-add-dll-directory: Wine cannot show this: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS and AddDllDirectory are Wine's own implementation, not Windows' loader
exec-grandchild: Wine cannot show this: Wine passes a launcher's SetDllDirectoryW to no child, so PATH alone carries the pin to a grandchild, and the program here puts the stray copy first on PATH; real Windows passes it on (here: the program loaded another copy than the pinned tree's)
exec-long-path: Wine cannot show this: Wine opens paths past 260 characters whatever LongPathsEnabled says; Windows' loader may not
activate-powershell: Wine cannot show this: Wine's powershell.exe is a stub, not PowerShell
profile-powershell: Wine cannot show this: Wine's powershell.exe is a stub, not PowerShell
conda-powershell: Wine cannot show this: Wine's powershell.exe is a stub, not PowerShell" "why each case cannot be shown under Wine"
# Each names the file that loaded (resolved, as the loader named it): the pinned tree's, or the stray copy's
# where that loaded (the load by full path; the grandchild, unprovable here); PowerShell's cases none.
store="$temp\\cudnnenv selftest 库 & N\\store"
bundles="$temp\\cudnnenv selftest 库 & N\\bundle-store"
long="$temp\\cudnnenv selftest 库 & N$(for letter in a b c d; do printf '\\%s' "$(printf "%64s" | tr ' ' $letter)"; done)"
expect_eq "$(selftest_files < out)" "exec-audit $store\\pinned\\bin\\cudnn64_9.dll
exec-cudnn8 $store\\pinned-8\\bin\\cudnn64_8.dll
exec-path $store\\pinned\\bin\\cudnn64_9.dll
exec-altered $store\\pinned\\bin\\cudnn64_9.dll
exec-default-dirs $store\\pinned\\bin\\cudnn64_9.dll
exec-add-dll-directory $store\\pinned\\bin\\cudnn64_9.dll
exec-working-folder $store\\pinned\\bin\\cudnn64_9.dll
exec-program-folder $store\\pinned\\bin\\cudnn64_9.dll
exec-32bit-copy $store\\pinned\\bin\\cudnn64_9.dll
exec-absolute $store\\stray\\bin\\cudnn64_9.dll
exec-grandchild $store\\stray\\bin\\cudnn64_9.dll
exec-batch $store\\pinned\\bin\\cudnn64_9.dll
exec-long-path $long\\pinned\\bin\\cudnn64_9.dll
shim $store\\pinned\\bin\\cudnn64_9.dll
shim-cached $store\\pinned\\bin\\cudnn64_9.dll
bundle-refused None
bundle-fenced $bundles\\bundle\\bin\\cudnn64_9.dll
bundle-healed $bundles\\healed\\bin\\cudnn64_9.dll
activate-cmd $store\\pinned\\bin\\cudnn64_9.dll
profile-cmd $store\\pinned\\bin\\cudnn64_9.dll
conda-cmd $temp\\cudnnenv-selftest-N\\store\\pinned\\bin\\cudnn64_9.dll
activate-powershell None
profile-powershell None
conda-powershell None" "selftest --json under Wine, the file each case loaded"
expect_eq "$(python3 -c 'import json, sys
print(sorted({(c["status"], c["unprovable"]) for c in json.load(sys.stdin)["cases"]}))' < out)" \
  "[('held', None), ('unprovable', 'wine')]" "each unprovable case marked unprovable: wine, no other"
expect_eq "$(json_field passed < out):$(json_field wine < out):$(json_field store < out)" "true:true:null" \
  "passed, Wine seen, no store kept"
python3 -c 'import json, sys
r = json.load(open("out"))
assert r["os"].startswith("Windows ") and r["os"].endswith(")") and "(Wine " in r["os"], r["os"]
assert r["code_pages"].endswith(", ANSI 1252"), r["code_pages"]
assert r["shells"]["cmd"].startswith("Microsoft Windows"), r["shells"]' || fail "the machine's description: $(cat out)"
cp out json.out
pass "selftest under Wine: 14 cases held, 7 unprovable with their reasons"

run selftest --only exec-absolute
sed -i 's/selftest 库 & [0-9]*-[0-9]*/selftest 库 \& N/' out
expect_eq "$rc:$(tail -n +2 out)" "0:shells: cmd: $(json_field shells.cmd < json.out)
held       exec-absolute: the program loading the stray copy by full path (PyTorch's torch\\lib): no launcher can turn it, --report must name it
           expected 9.90.2 (the stray copy), named by --report as outside the tree, loaded 9.90.2 (the stray copy)
           from $store\\stray\\bin\\cudnn64_9.dll
every case held" "a load by full path, as a person reads it"
run selftest --only exec-grandchild
expect_eq "$rc:$(tail -1 out)" "0:every case held that can be shown here (1 cannot be: each says why)" "an unprovable case does not fail the run"

# A %TEMP% a batch file cannot name bare (`&`): cmd's cases still hold, conda's cmd case says why it cannot
# run, and nothing is left there. Wine takes TEMP and TMP from its registry, not from the Unix environment,
# so a batch file sets them (`&` inside the quotes). Wine cannot show the harder names: a `%` (its cmd
# expands a variable's value again, dropping a lone `%` and growing a `%PATH%` until cmd crashes in
# WCMD_expand_envvar, both seen here; Windows' cmd expands once, and the cases keep every path off `call`
# lines, which expand a second time on Windows too) nor a `!` (a store path with `!` and letters outside the
# code page reaches cmd through `chcp 65001`, which Wine's cmd ignores).
odd_temp="$WORK/temp & x"
mkdir -p "$odd_temp"
odd_windows=$(winpath "$odd_temp")
printf '@echo off\r\nset "TEMP=%s"\r\nset "TMP=%s"\r\n"%s" selftest --only %%1 --json\r\n' \
  "$odd_windows" "$odd_windows" "$(winpath "$CUDNNENV")" > odd-temp.bat
in_odd_temp() {
  set +e
  "$WINE" cmd /d /c odd-temp.bat "$1" > out 2> err < /dev/null
  rc=$?
  set -e
}
for case in activate-cmd profile-cmd; do
  in_odd_temp $case
  expect_eq "$rc:$(selftest_statuses < out)" "0:$case held $pinned" "the $case case with '&' in %TEMP%'s path"
done
# conda's cmd hook needs a store of a plain path (export conda writes none otherwise, and says so): this
# case also shows that the runs above had that %TEMP%.
in_odd_temp conda-cmd
expect_eq "$(python3 -c 'import json, sys; print(json.load(sys.stdin)["cases"][0]["unprovable"])' < out)" \
  "temporary folder" "conda-cmd's unprovable mark with such a %TEMP%"
expect_eq "$rc:$(selftest_statuses < out):$(details < out)" "0:conda-cmd unprovable nothing:conda-cmd: the temporary folder's path holds a letter a batch file cannot carry in every code page, so export conda writes no cmd hook for a store there (it says so)" "the conda-cmd case with such a %TEMP%"
expect_eq "$(ls -A "$odd_temp")" "" "nothing left in that %TEMP%"
pass "a %TEMP% holding &: cmd's activation and the profile's activate.bat hold; conda's cmd case says why it cannot run"

CUDNNENV_SELFTEST_UNPINNED=1 run selftest --json
expect_eq "$rc" "4" "selftest without the pin exits 4"
expect_eq "$(selftest_statuses < out | grep -v unprovable)" "exec-audit failed $stray
exec-cudnn8 failed 8.1.91 (the stray copy)
exec-path failed $stray
exec-altered failed $stray
exec-working-folder failed $stray
exec-program-folder failed $stray
exec-32bit-copy failed $stray
exec-absolute failed $stray
exec-batch failed $stray
shim failed $stray
shim-cached failed $stray
bundle-refused failed 9.90.1 (the bundle's release), then $stray
bundle-fenced failed 9.90.1 (the bundle's release), then $stray
bundle-healed failed 9.90.1 (the bundle's release), then $stray
activate-cmd failed $stray
profile-cmd failed $stray
conda-cmd failed $stray" "without the pin, the stray copy in every case Wine can show"
pass "without the pin every case fails (the stray copy loads) and selftest exits 4"

system32=$("$WINE" winepath -u 'C:\windows\system32' 2> /dev/null)
run selftest --system32 --only exec-system32 --json
[ "$rc" = 0 ] || fail "selftest --system32: $(cat out) $(cat err)"
expect_eq "$(selftest_statuses < out)" "exec-system32 unprovable $pinned" "--system32 under Wine"
[ ! -e "$system32/cudnn64_9.dll" ] || fail "--system32 left its copy in System32"
echo "someone's own" > "$system32/cudnn64_9.dll"
run selftest --system32
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: 'C:\\windows\\system32\\cudnn64_9.dll' exists: the selftest never replaces a file in System32
  hint: run it without --system32; 'cudnnenv doctor' names what that copy shadows" "--system32 with a copy there"
expect_eq "$(cat "$system32/cudnn64_9.dll")" "someone's own" "a file in System32 left as it was"
rm "$system32/cudnn64_9.dll"
pass "--system32: its copy for its case only, then gone; a copy already there refused and untouched"

snapshot after
same_as_before after || fail "something was left behind: $(same_as_before after)"
pass "nothing left behind: %TEMP%, HKCU, HKLM and the user's store as they were"
