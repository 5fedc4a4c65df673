#!/usr/bin/env bash
# cudnnenv doctor under Wine, each Windows failure staged: a 32-bit
# cudnn64_8.dll in a 64-bit python.exe's own folder (architecture, and the
# copy that wins), cuDNN 8.9 without zlibwapi.dll (dependencies), a PATH
# entry added to the registry after this terminal started (path-stale),
# PyTorch's torch\lib (bundled-copies). Checks are read by id from --json:
# the status, and a fix that names the right path.
# What Wine cannot show: the VC++ runtime check's versions (Wine's
# msvcp140.dll carries no version resource) and NVML (no driver here).
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export WINEDEBUG=-all
unset CUDA_HOME CUDA_PATH CUDA_ROOT CUDNN_INCLUDE_DIR CUDNN_PATH CONDA_PREFIX CUDNNENV_VERSION
RUNNER=$WINE
CUDNNENV_ROOT=$(winpath "$WORK/store")
export CUDNNENV_ROOT

check() {
  python3 -c '
import json, sys
checks = {c["id"]: c for c in json.load(open("out"))["checks"]}
value = checks[sys.argv[1]][sys.argv[2]]
print(value if isinstance(value, str) else json.dumps(value))' "$1" "$2"
}

make_windows_tree t81 "$FIXTURES/fake-pe64-8.1.0.dll"
make_windows_tree t89 "$FIXTURES/fake-pe64-8.9.7.dll" 8.9.7
run install "$(winpath "$WORK/t81/cuda")" --name t8.1
run adopt "$(winpath "$WORK/t89/cuda")" --name t8.9  # adopted: cudnnenv puts nothing into a folder it adopts
run use --global t8.1
expect_eq "$rc" "0" "use --global ($(cat err))"
# python.exe: a 64-bit program (never started: doctor reads its PE header).
mkdir -p py
cp "$FIXTURES/load-cudnn.exe" py/python.exe
export WINEPATH="$(winpath "$WORK/py")" VIRTUAL_ENV="$(winpath "$WORK/py")"
py=$(winpath "$WORK/py")

# 1. A 32-bit cudnn64_8.dll in python's own folder, which Windows searches first.
cp "$FIXTURES/fake-pe32-8.1.0.dll" py/cudnn64_8.dll
run doctor --json
expect_eq "$(check architecture status)" "fail" "architecture with a 32-bit DLL first"
expect_eq "$(check architecture summary)" "'$py\\cudnn64_8.dll' is PE 32-bit x86 (Machine 0x14c); python.exe is PE 64-bit x86_64 (Machine 0x8664)" \
  "architecture summary"
expect_eq "$(check architecture symptom)" "'DLL load failed: %1 is not a valid Win32 application' (error 193)" \
  "architecture symptom"
expect_eq "$(check architecture fix)" "use a 64-bit x86_64 cuDNN ('cudnnenv install 9.27 --cuda 13' fetches cudnn-windows-x86_64-9.27.0.42_cuda13-archive.zip from NVIDIA), and delete '$py\\cudnn64_8.dll' if it was copied there by hand" \
  "architecture fix"
expect_eq "$(check copy-wins status)" "warn" "copy-wins with a copy in the program's folder"
expect_eq "$(check copy-wins cause)" "'$py' (the program's folder) comes before the selected tree 't8.1' (cuDNN 8.1.0, CUDA 11.2) in python.exe's search order" \
  "copy-wins cause"
rm py/cudnn64_8.dll
run doctor --json
expect_eq "$(check architecture status)" "ok" "architecture without the 32-bit DLL"
pass "a 32-bit cudnn64_8.dll in python.exe's folder: architecture fails and names it, copy-wins says why it wins"

# 1b. The same copy first on PATH and no program to compare with (issue 29): every copy is held against this
# machine's own architecture.
mkdir -p x86 && cp "$FIXTURES/fake-pe32-8.1.0.dll" x86/cudnn64_8.dll
WINEPATH="$(winpath "$WORK/x86");$WINEPATH" run doctor --for nosuchprogram --json
expect_eq "$(check architecture status)|$(check architecture summary)" \
  "warn|'$(winpath "$WORK/x86")\\cudnn64_8.dll' is PE 32-bit x86 (Machine 0x14c), not Windows x64 (no 'nosuchprogram' on PATH to compare with)" \
  "architecture without a program: the 32-bit copy on PATH named"
rm -r x86
pass "a 32-bit cudnn64_8.dll first on PATH and no program: architecture names it"

# 2. cuDNN 8.9 opens zlibwapi.dll at run time; nothing here provides it.
run doctor --cudnn t8.9 --json
expect_eq "$(check dependencies status)" "fail" "dependencies of 8.9 without zlibwapi.dll"
expect_eq "$(check dependencies summary)" "missing: zlibwapi.dll" "dependencies summary"
expect_eq "$(check dependencies fix)" "cuDNN 8.3 to 8.9 opens zlibwapi.dll by name and does not ship it; 'cudnnenv install' puts the one cudnnenv carries ($(winpath "$(dirname "$CUDNNENV")/zlib/zlibwapi.dll")) into the trees it installs: remove this tree and install it again, or for a folder copy that file next to its cudnn64_8.dll" \
  "dependencies fix"
mkdir zlib && cp "$FIXTURES/link-only/cublas64_11.dll" zlib/zlibwapi.dll
WINEPATH="$WINEPATH;$(winpath "$WORK/zlib")" run doctor --cudnn t8.9 --json
expect_eq "$(check dependencies status)" "ok" "dependencies with zlibwapi.dll on PATH"
pass "cuDNN 8.9 without zlibwapi.dll: dependencies fails with where to get it; with it on PATH, ok"

# 3. A PATH entry added to the registry after this terminal started: cmd
# removes it from its own PATH first, as a terminal opened before would lack it.
# Taken out again whatever happens (the Wine prefix is shared by the tests), keeping the exit code.
restore_registry() { local rc=$?; "$WINE" reg delete 'HKCU\Environment' /v PATH /f > /dev/null 2>&1 || true; return $rc; }
trap 'restore_registry; cleanup' EXIT
"$WINE" reg add 'HKCU\Environment' /v PATH /t REG_EXPAND_SZ /d '%SystemDrive%\stale-entry' /f > /dev/null 2>&1
run_program "$WINE" cmd /c "set PATH=%PATH:;C:\\stale-entry=%&& $(winpath "$CUDNNENV") doctor --json"
expect_eq "$(check path-stale status)" "warn" "path-stale in a terminal older than the registry's PATH"
expect_eq "$(check path-stale summary)" "1 registry PATH entry is not in this terminal's PATH: 'C:\\stale-entry'" \
  "path-stale summary"
expect_eq "$(check path-stale fix)" "open a new terminal (close VS Code or the IDE entirely, it starts terminals with its own old copy)" \
  "path-stale fix"
run doctor --json
expect_eq "$(check path-stale status)" "ok" "path-stale in a new process"
"$WINE" reg delete 'HKCU\Environment' /v PATH /f > /dev/null 2>&1 || fail "the registry's PATH entry could not be removed"
pass "a registry PATH entry this terminal lacks: path-stale warns (the value's %SystemDrive% expanded)"

# 4. PyTorch on Windows loads torch\lib's cuDNN by full path.
mkdir -p py/Lib/site-packages/torch/lib
cp "$FIXTURES/fake-pe64-8.9.7.dll" py/Lib/site-packages/torch/lib/cudnn64_8.dll
printf "__version__ = '2.0.1+cu118'\ncuda: Optional[str] = '11.8'\n" > py/Lib/site-packages/torch/version.py
run doctor --json
expect_eq "$(check bundled-copies status)" "warn" "bundled-copies with torch\\lib"
expect_eq "$(check bundled-copies summary)" "PyTorch 2.0.1+cu118 loads its own cuDNN 8.9.7 from '$py\\Lib\\site-packages\\torch\\lib'" \
  "bundled-copies summary"
expect_eq "$(check bundled-copies cause)" "PyTorch on Windows loads torch\\lib's DLLs by full path: no launcher, PATH or SetDllDirectory can replace them" \
  "bundled-copies cause"
pass "PyTorch's torch\\lib: said plainly, with the way to another cuDNN"
