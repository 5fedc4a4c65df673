#!/usr/bin/env bash
# The Windows zip and wheel (#60) in a fresh Wine prefix: the zip unpacked
# into a folder runs selftest (each case held, or unprovable where Wine
# cannot show it, as in tests/e2e/package.sh) and exec pins a fake
# cudnn64_8.dll past a decoy on PATH; the wheel's files laid out as pip lays
# them out in a venv (the program in Scripts\, its helpers in Lib\cudnnenv\)
# find each other and pin the same. What Wine cannot show: pip itself on
# Windows (there is no Windows Python here), and Windows' own loader.
source "$(dirname "$0")/lib.sh" "$@"
export WINEDEBUG=-all LC_ALL=C.UTF-8
export WINEPREFIX=$WORK/wineprefix
"$WINE" wineboot -i > /dev/null 2>&1 || true
zip=$DIST/cudnnenv-$VERSION-windows-x86_64.zip
mkdir unzipped && (cd unzipped && unzip -q "$zip")
expect_eq "$(cd unzipped && find . -type f | sort)" "./README.md
./cudnnenv-fence.dll
./cudnnenv-probe.exe
./cudnnenv-shim.exe
./cudnnenv.exe
./selftest/cudnnenv-selftest-8.1.90.dll
./selftest/cudnnenv-selftest-8.1.91.dll
./selftest/cudnnenv-selftest-9.90.1.dll
./selftest/cudnnenv-selftest-9.90.2-x86.dll
./selftest/cudnnenv-selftest-9.90.2.dll
./selftest/cudnnenv-selftest-load.exe
./zlib/zlibwapi.dll" "the zip's files"
root=$(winpath "$WORK/store")
"$WINE" unzipped/cudnnenv.exe --root "$root" selftest --json > selftest.json 2> selftest.err < /dev/null ||
  fail "selftest from the zip: $(cat selftest.json selftest.err)"
python3 -c 'import json
r = json.load(open("selftest.json"))
bad = [c["id"] for c in r["cases"] if c["status"] != ("unprovable" if c["detail"] and c["detail"].startswith("Wine cannot") else "held")]
assert r["passed"] and len(r["cases"]) == 24 and not bad, bad' || fail "selftest from the zip: $(cat selftest.json)"
pass "the zip in a fresh Wine prefix: selftest's 24 cases, each held or unprovable under Wine"

make_windows_tree t8.2.0 "$FIXTURES/fake-pe64-8.2.0.dll" 8.2.0
mkdir prog decoy
cp "$FIXTURES/load-cudnn.exe" prog/
cp "$FIXTURES/fake-pe64-8.9.7.dll" decoy/cudnn64_8.dll
export WINEPATH=$(winpath "$WORK/decoy")
run_program "$WINE" prog/load-cudnn.exe
expect_eq "$(cat out)" "8907" "the decoy on PATH, run directly"
run_program "$WINE" unzipped/cudnnenv.exe --root "$root" install "$(winpath "$WORK/t8.2.0/cuda")" --name t8.2.0
expect_eq "$rc" "0" "install with the zip's cudnnenv.exe: $(cat err)"
run_program "$WINE" unzipped/cudnnenv.exe --root "$root" exec --cudnn t8.2.0 -- "$(winpath "$WORK/prog/load-cudnn.exe")"
expect_eq "$rc:$(cat out)" "0:8200" "exec with the zip's cudnnenv.exe ($(cat err))"
pass "the zip's cudnnenv.exe pins a fake cudnn64_8.dll past a decoy on PATH"

wheel=$DIST/cudnnenv-$VERSION-py3-none-win_amd64.whl
mkdir -p wheel venv/Scripts venv/Lib
(cd wheel && unzip -q "$wheel")
cp -R "wheel/cudnnenv-$VERSION.data/scripts/." venv/Scripts/
cp -R "wheel/cudnnenv-$VERSION.data/data/lib/." venv/Lib/
expect_eq "$(cd venv && find . -type f | sort)" "./Lib/cudnnenv/cudnnenv-fence.dll
./Lib/cudnnenv/cudnnenv-probe.exe
./Lib/cudnnenv/cudnnenv-shim.exe
./Lib/cudnnenv/selftest/cudnnenv-selftest-8.1.90.dll
./Lib/cudnnenv/selftest/cudnnenv-selftest-8.1.91.dll
./Lib/cudnnenv/selftest/cudnnenv-selftest-9.90.1.dll
./Lib/cudnnenv/selftest/cudnnenv-selftest-9.90.2-x86.dll
./Lib/cudnnenv/selftest/cudnnenv-selftest-9.90.2.dll
./Lib/cudnnenv/selftest/cudnnenv-selftest-load.exe
./Lib/cudnnenv/zlib/zlibwapi.dll
./Scripts/cudnnenv.exe" "the Windows wheel's files, where pip puts them in a venv"
run_program "$WINE" venv/Scripts/cudnnenv.exe --root "$root" exec --cudnn t8.2.0 --report -- "$(winpath "$WORK/prog/load-cudnn.exe")"
expect_eq "$rc:$(cat out)" "0:8200" "exec with the wheel's cudnnenv.exe ($(cat err))"
grep -q "in the tree  $(winpath "$WORK/store/t8.2.0/bin/cudnn64_8.dll" | sed 's/\\/\\\\/g')" err || fail "--report: $(cat err)"
"$WINE" venv/Scripts/cudnnenv.exe --root "$root" selftest --json > wselftest.json 2> wselftest.err < /dev/null ||
  fail "selftest from the wheel's layout: $(cat wselftest.json wselftest.err)"
pass "the Windows wheel's cudnnenv.exe in Scripts\\ finds its helpers in Lib\\cudnnenv\\: exec pins, selftest passes"
