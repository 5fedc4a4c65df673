#!/usr/bin/env bash
# CUDA runtime trees on Windows, under Wine (issue 24): a CUDA 11.8-shaped
# release (fake DLLs with the real names, built here with mingw-w64, in
# NVIDIA's zip layout with a windows-x86_64 manifest) and a cuDNN 8.1 tree;
# `install cuda 11.8` through a folder mirror; TensorFlow 2.5's eight names
# (and nvrtc) opened by bare name with LOAD_WITH_ALTERED_SEARCH_PATH, as TF
# does, while decoys of each name sit on PATH where a CUDA toolkit's bin
# would be: directly the decoys load, through `exec` every one comes from the
# trees and --report says so; verify loads each runtime DLL. cuDNN 8.9's
# zlibwapi.dll: install puts the zlib the package carries into the tree.
#
# Loads with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (Python 3.8+) find both trees:
# exec adds both folders with AddDllDirectory inside the program.
#
# For the standard search the runtime's folder is on PATH, right after
# cuDNN's (which is also the SetDllDirectory folder), so a copy in System32 or
# in the program's own folder comes first: exec loads the tree's file of that
# name inside the program before it starts, and the program's load of the name
# gets it (shown with copies in both places). What Wine cannot show: the
# SetDllDirectory folder reaching the program (Wine passes it to no child),
# and a program's grandchildren, which get no such load (a Python venv's
# python.exe starts the real one as its child).
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
MINGW=${MINGW_CC:-x86_64-w64-mingw32-gcc}
command -v "$MINGW" > /dev/null || { echo "skip: no $MINGW"; exit 77; }
SOURCES=$E2E_DIR/../fixtures
root="$WORK/C libs"
cud() { "$WINE" "$CUDNNENV" --root "$(winpath "$root")" "$@"; }
unset CUDNNENV_CUDA_INDEX

dll() {  # dll FILE [CFLAGS...]
  local file=$1
  shift
  "$MINGW" -shared -o "$file" "$SOURCES/fake_cuda_runtime.c" "$@"
}
mkdir -p dlls decoys prog
names=(cudart64_110.dll cublas64_11.dll cublasLt64_11.dll cufft64_10.dll curand64_10.dll cusolver64_11.dll
       cusparse64_11.dll nvrtc64_112_0.dll)
dll dlls/cudart64_110.dll -DFAKE_CUDART=11080
dll dlls/cublas64_11.dll -DFAKE_PROPERTY=cublasGetProperty -DFAKE_MAJOR=11 -DFAKE_MINOR=11 -DFAKE_PATCH=3 -DFAKE_CUBLAS_CREATE
for name in cublasLt64_11.dll cufft64_10.dll curand64_10.dll cusolver64_11.dll cusparse64_11.dll nvrtc64_112_0.dll; do
  dll "dlls/$name"
done
for name in "${names[@]}"; do dll "decoys/$name"; done
"$MINGW" -O1 -municode -static -o prog/load-names.exe "$SOURCES/load_names.c"

# NVIDIA's zips (bin/, lib/x64/*.lib, include/, LICENSE) and the manifest.
python3 - <<'PY'
import hashlib, json, os, zipfile
components = {"cuda_cudart": ("11.8.89", ["cudart64_110.dll"]),
              "libcublas": ("11.11.3.6", ["cublas64_11.dll", "cublasLt64_11.dll"]),
              "libcufft": ("10.9.0.58", ["cufft64_10.dll"]), "libcurand": ("10.3.0.86", ["curand64_10.dll"]),
              "libcusolver": ("11.4.1.48", ["cusolver64_11.dll"]), "libcusparse": ("11.7.5.86", ["cusparse64_11.dll"]),
              "cuda_nvrtc": ("11.8.89", ["nvrtc64_112_0.dll"])}
m = {"release_date": "2022-10-03"}
for name, (version, dlls) in components.items():
    top = "%s-windows-x86_64-%s-archive" % (name, version)
    relative = "%s/windows-x86_64/%s.zip" % (name, top)
    os.makedirs("redist/" + os.path.dirname(relative), exist_ok=True)
    with zipfile.ZipFile("redist/" + relative, "w", zipfile.ZIP_DEFLATED) as z:
        for dll in dlls:
            z.write("dlls/" + dll, top + "/bin/" + dll)
        z.writestr(top + "/lib/x64/" + name + ".lib", "!<arch>\n")
        z.writestr(top + "/include/" + name + ".h", "/* */\n")
        z.writestr(top + "/LICENSE", "license of " + name + "\n")
    data = open("redist/" + relative, "rb").read()
    m[name] = {"name": name, "license": "CUDA Toolkit", "version": version,
               "windows-x86_64": {"relative_path": relative, "sha256": hashlib.sha256(data).hexdigest(),
                                  "md5": "0" * 32, "size": str(len(data))}}
os.makedirs("index", exist_ok=True)
json.dump(m, open("index/redistrib_11.8.0.json", "w"), indent=4)
PY
mkdir -p mirror/compute/cuda && ln -s "$WORK/redist" mirror/compute/cuda/redist

make_windows_tree t8.1 "$FIXTURES/fake-pe64-8.1.0.dll" 8.1.0
cud install "$(winpath "$WORK/t8.1/cuda")" --name cudnn-8.1 > /dev/null
export CUDNNENV_CUDA_INDEX="$(winpath "$WORK/index")"
run_program cud install cuda 11.8 --mirror "$(winpath "$WORK/mirror")" -q
expect_eq "$rc" "0" "install cuda 11.8 under Wine: $(cat err)"
expect_eq "$(head -1 out | sed 's/, Windows x64.*//')" "installed 'cuda-11.8.0': CUDA 11.8.0 runtime (cuda_cudart 11.8.89, libcublas 11.11.3.6, libcufft 10.9.0.58, libcurand 10.3.0.86, libcusolver 11.4.1.48, libcusparse 11.7.5.86, cuda_nvrtc 11.8.89)" "install cuda 11.8"
( cd "$root/cuda-11.8.0" && find . -path ./.cudnnenv -prune -o -type f -print | sort | tr '\n' ' ' ) > files
expect_eq "$(cat files)" "./bin/cublas64_11.dll ./bin/cublasLt64_11.dll ./bin/cudart64_110.dll ./bin/cufft64_10.dll ./bin/curand64_10.dll ./bin/cusolver64_11.dll ./bin/cusparse64_11.dll ./bin/nvrtc64_112_0.dll ./licenses/cuda_cudart.txt ./licenses/cuda_nvrtc.txt ./licenses/libcublas.txt ./licenses/libcufft.txt ./licenses/libcurand.txt ./licenses/libcusolver.txt ./licenses/libcusparse.txt " "the runtime tree holds the DLLs and licenses only"
pass "install cuda 11.8 from a windows-x86_64 manifest and zips, under Wine"

# Offline (issue 41): TF 2.5's runtime from one folder holding the manifest and the zips (by file name, as
# `wget -P` puts them), given as a Windows relative path, into a root of its own. This manifest is not
# NVIDIA's 11.8.0: refused, then taken with --allow-unverified, each zip still checked against it.
offline_root="$WORK/offline root"
mkdir -p offline/cuda-11.8.0 && cp index/redistrib_11.8.0.json offline/cuda-11.8.0/
off() { run_program "$WINE" "$CUDNNENV" --root "$(winpath "$offline_root")" "$@"; }
off install cuda '.\offline\cuda-11.8.0' --print-urls 'offline\urls.txt' --allow-unverified -q
expect_eq "$rc:$(sed 's/\r$//' offline/urls.txt | sed -n '1p;2p' | tr '\n' ' ')" "0:https://developer.download.nvidia.com/compute/cuda/redist/redistrib_11.8.0.json https://developer.download.nvidia.com/compute/cuda/redist/cuda_cudart/windows-x86_64/cuda_cudart-windows-x86_64-11.8.89-archive.zip " "--print-urls under Wine: $(cat err)"
find redist -name '*.zip' -exec cp {} offline/cuda-11.8.0/ \;
off install cuda '.\offline\cuda-11.8.0' -q
expect_eq "$rc:$(head -1 err)" "1:cudnnenv: error: '$(winpath "$WORK/offline/cuda-11.8.0/redistrib_11.8.0.json")' is not NVIDIA's manifest of CUDA 11.8.0: its SHA-256 is $(sha256sum index/redistrib_11.8.0.json | cut -c1-64), the pinned manifest list says 941a950a4ab3b95311c50df7b3c8bca973e0cdda76fc2f4b456d2d5e4dac0281" "a manifest of 11.8.0 that is not NVIDIA's, refused"
off install cuda '.\offline\cuda-11.8.0' --allow-unverified -q
expect_eq "$rc:$(head -1 out | sed 's/, Windows x64.*//')" "0:installed 'cuda-11.8.0': CUDA 11.8.0 runtime (cuda_cudart 11.8.89, libcublas 11.11.3.6, libcufft 10.9.0.58, libcurand 10.3.0.86, libcusolver 11.4.1.48, libcusparse 11.7.5.86, cuda_nvrtc 11.8.89)" "install cuda from the folder under Wine: $(cat err)"
cmp "$offline_root/cuda-11.8.0/bin/cublas64_11.dll" dlls/cublas64_11.dll || fail "the folder's cuBLAS is the tree's"
# No network and no folder yet: NVIDIA's 11.8.0 is pinned and its archives are in the embedded table, so the
# hint names every windows-x86_64 URL with its size (the eight TF 2.5 opens come from these seven archives).
listed="https://developer.download.nvidia.com/compute/cuda/redist/redistrib_11.8.0.json"
for name in cuda_cudart libcublas libcufft libcurand libcusolver libcusparse cuda_nvrtc; do
  row=$(awk -F'\t' -v c="$name" '$1 == "11.8.0" && $2 == "windows-x86_64" && $3 == c' "$E2E_DIR/../../data/cuda-archives.tsv")
  listed+=", https://developer.download.nvidia.com/compute/cuda/redist/$(cut -f5 <<< "$row") ($(cut -f6 <<< "$row" | awk '{ v = $1 / 1e6; printf(v < 10 ? "%.1f MB" : "%.0f MB", v) }'))"
done
(
  unset CUDNNENV_CUDA_INDEX
  off install cuda 11.8 --mirror http://127.0.0.1:9 -q
  expect_eq "$rc:$(sed -n 2p err | sed 's/\r$//; s/.*; or offline: //')" "1:download these 8 files (1.1 GB) into a folder cuda-11.8.0, then: cudnnenv install cuda ./cuda-11.8.0 ('cudnnenv install cuda 11.8.0 --print-urls urls.txt' writes them for wget -i): $listed" \
    "offline under Wine, no folder: the hint names every URL and size"
)
pass "offline under Wine: --print-urls, then 'install cuda .\\offline\\cuda-11.8.0' from the manifest and zips in one folder, the manifest refused unless pinned or --allow-unverified"

run_program cud current --cudnn cudnn-8.1
expect_eq "$(sed -n 2p out)" "CUDA 11.8.0  cuda-11.8.0  (chosen by the CUDA major of 'cudnn-8.1')" "current names the runtime"
export WINEPATH="$(winpath "$WORK/decoys")"
run_program "$WINE" prog/load-names.exe "${names[@]}" cudnn64_8.dll
expect_eq "$(grep -c "decoys" out)" "8" "directly, with the decoys on PATH, each runtime name loads a decoy"
run_program cud exec --cudnn cudnn-8.1 --report -- "$(winpath "$WORK/prog/load-names.exe")" "${names[@]}" cudnn64_8.dll
expect_eq "$rc" "0" "exec --report: $(cat err)"
for name in "${names[@]}"; do
  expect_eq "$(grep "^$name " out | cut -d' ' -f2-)" "$(winpath "$root/cuda-11.8.0/bin/$name")" "$name through exec"
done
expect_eq "$(grep "^cudnn64_8.dll " out | cut -d' ' -f2-)" "$(winpath "$root/cudnn-8.1/bin/cudnn64_8.dll")" "cudnn64_8.dll through exec"
expect_eq "$(grep -c '^  in the runtime ' err)" "8" "--report lists the eight runtime DLLs as inside: $(cat err)"
if grep -q OUTSIDE err; then fail "an outside copy loaded: $(cat err)"; fi
pass "TF 2.5's names by bare name with LOAD_WITH_ALTERED_SEARCH_PATH: decoys on PATH directly, the trees through exec (--report: inside)"

# Copies where the standard search looks before PATH, and (on Windows) before the runtime's folder, which
# is on PATH only: System32 (cufft64_10.dll) and the program's own folder (cublas64_11.dll). Directly they
# win; through exec the trees' files of those names are loaded inside the program before it starts.
system32=$("$WINE" winepath -u 'C:\windows\system32' 2> /dev/null | tr -d '\r')
[ -d "$system32" ] && [ ! -e "$system32/cufft64_10.dll" ] || fail "System32 of the Wine prefix: '$system32'"
cp decoys/cufft64_10.dll "$system32/cufft64_10.dll"
trap 'rm -f "$system32/cufft64_10.dll"; cleanup' EXIT
cp decoys/cublas64_11.dll prog/
mkdir -p cwd && cp decoys/curand64_10.dll cwd/  # the working folder: Wine searches it (no SetDllDirectory reaches the program)
(cd cwd && run_program "$WINE" ../prog/load-names.exe cufft64_10.dll cublas64_11.dll curand64_10.dll
 mv out ../out)
expect_eq "$(cat out)" "cufft64_10.dll C:\windows\system32\cufft64_10.dll
cublas64_11.dll $(winpath "$WORK/prog/cublas64_11.dll")
curand64_10.dll $(winpath "$WORK/cwd/curand64_10.dll")" "directly: the copies in System32, the program's folder and the working folder"
(cd cwd && run_program cud exec --cudnn cudnn-8.1 --report -- "$(winpath "$WORK/prog/load-names.exe")" "${names[@]}" cudnn64_8.dll
 mv out err ../)
for name in "${names[@]}"; do
  expect_eq "$(grep "^$name " out | cut -d' ' -f2-)" "$(winpath "$root/cuda-11.8.0/bin/$name")" "$name through exec, past the copies"
done
expect_eq "$(grep -c "in the runtime .*(loaded inside the program before it started, as a copy of its name comes first in Windows' search)" err)" "3" "--report: the three loaded first ($(cat err))"
rm -r prog/cublas64_11.dll cwd "$system32/cufft64_10.dll"
pass "copies in System32, the program's own folder and the working folder: exec loads the runtime's files of those names inside the program first, and the program gets them"

# Python 3.8+'s way: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS never searches PATH; exec adds both trees' folders
# with AddDllDirectory inside the program, so both load from the trees (directly, neither loads).
# (Not cudnn64_8.dll here: e2e_wine_dll_search, which may run at the same time, puts one in the prefix's System32.)
run_program "$WINE" prog/load-names.exe --default-dirs cudart64_110.dll cublas64_11.dll
expect_eq "$(cat out)" "cudart64_110.dll -
cublas64_11.dll -" "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS without exec: none found (PATH is not searched)"
for report in "" --report; do
  run_program cud exec --cudnn cudnn-8.1 $report -- "$(winpath "$WORK/prog/load-names.exe")" --default-dirs \
    cudart64_110.dll cublas64_11.dll cudnn64_8.dll
  expect_eq "$rc" "0" "exec $report with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: $(cat out err)"
  expect_eq "$(cat out)" "cudart64_110.dll $(winpath "$root/cuda-11.8.0/bin/cudart64_110.dll")
cublas64_11.dll $(winpath "$root/cuda-11.8.0/bin/cublas64_11.dll")
cudnn64_8.dll $(winpath "$root/cudnn-8.1/bin/cudnn64_8.dll")" "exec $report: both trees' folders added inside the program"
done
pass "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (Python 3.8+): exec and exec --report add the runtime's folder too (AddDllDirectory)"

# cuDNN 8.3-8.9 opens zlibwapi.dll by name and ships none: install puts the one the package carries (Debian's
# zlib for mingw-w64, linked by the build into bin/zlib/zlibwapi.dll) into the tree, hashed with its files.
zlib_version=$(sed -n 's/^#define ZLIB_VERSION "\(.*\)"/\1/p' /usr/x86_64-w64-mingw32/include/zlib.h)
make_windows_tree t8.9 "$FIXTURES/fake-pe64-8.9.7.dll" 8.9.7
run_program cud install "$(winpath "$WORK/t8.9/cuda")" --name cudnn-8.9
expect_eq "$rc" "0" "install cuDNN 8.9: $(cat err)"
expect_eq "$(grep '^  added:' out)" "  added:    zlibwapi.dll (zlib $zlib_version, carried by cudnnenv: cuDNN 8.9.7 opens it by name and its archive does not ship it)" "install says what it added"
cmp "$root/cudnn-8.9/bin/zlibwapi.dll" "$(dirname "$CUDNNENV")/zlib/zlibwapi.dll" || fail "the tree's zlibwapi.dll is the carried one"
run_program cud verify cudnn-8.9 --level load
expect_eq "$rc" "0" "verify --level load of cuDNN 8.9 with the carried zlib: $(cat out)"
grep -q "^  ok    run-time dependencies: zlibwapi.dll found" out || fail "verify: $(cat out)"
cp decoys/cudart64_110.dll decoys/zlibwapi.dll
for flags in "" --default-dirs; do
  run_program cud exec --cudnn cudnn-8.9 -- "$(winpath "$WORK/prog/load-names.exe")" $flags zlibwapi.dll
  expect_eq "$(cat out)" "zlibwapi.dll $(winpath "$root/cudnn-8.9/bin/zlibwapi.dll") zlib $zlib_version" "exec ${flags:-(standard search)}: zlibwapi.dll from the tree past a decoy on PATH, a working zlib"
done
echo "changed" >> "$root/cudnn-8.9/bin/zlibwapi.dll"
run_program cud verify cudnn-8.9 --level files
expect_eq "$rc" "4" "verify --level files of a changed zlibwapi.dll"
pass "cuDNN 8.9: install adds the zlibwapi.dll cudnnenv carries (a real zlib), verify and exec find it in the tree past a decoy; it is hashed like the tree's own files"

run_program cud verify cuda-11.8.0 --level load
expect_eq "$rc" "0" "verify the runtime under Wine: $(cat out)"
grep -q "cudart64_110.dll 11.8 (cudaRuntimeGetVersion)" out && grep -q "cublas64_11.dll 11.11.3 (cublasGetProperty)" out ||
  fail "verify reads the versions: $(cat out)"
pass "verify --level load of the runtime reads cudart's and cuBLAS's versions"

# TensorFlow 2.5's set in one command, over HTTP: the tests' server (plain
# HTTP on loopback) as a mirror of NVIDIA's host, the cuDNN 8.1 zip named by
# an archive list (CUDNNENV_INDEX), the CUDA release by the manifest folder.
source "$E2E_DIR/download_lib.sh"
unset CUDNNENV_MIRROR HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy
make_download_archives windows-x86_64 "$FIXTURES/fake-pe64-8.1.0-needs-cublas.dll"  # imports cublas64_11.dll, as cuDNN 8's do
find redist -name '*.zip' -exec cp {} srv/ \;
start_server plain
tf="$WORK/tf store"
tfc() { "$WINE" "$CUDNNENV" --root "$(winpath "$tf")" "$@"; }
export CUDNNENV_INDEX=$(winpath "$WORK/index.tsv")
run_program tfc install tf2.5 --mirror "http://127.0.0.1:$PORT" -q
expect_eq "$rc" "0" "install tf2.5: $(cat err)"
expect_eq "$(grep '^installed' out | cut -d: -f1 | tr '\n' ' ')" "installed '$TREE' installed 'cuda-11.8.0' " "install tf2.5 installs both trees"
expect_eq "$(cat err)" "cudnnenv: CUDA 11.2's manifest is not known here: installing CUDA 11.8.0, the newest 11.x, if it ships every library TensorFlow 2.5 opens" "why 11.8 for TF 2.5"
run_program tfc exec --cudnn tf2.5 --report -- "$(winpath "$WORK/prog/load-names.exe")" "${names[@]}" cudnn64_8.dll
expect_eq "$rc" "0" "exec --cudnn tf2.5: $(cat err)"
expect_eq "$(grep -c "$(winpath "$tf" | sed 's/\\/\\\\/g')" out)" "9" "every one of the nine names from the trees ($(cat out))"
expect_eq "$(grep -c '^  in the runtime \|^  in the tree ' err)" "9" "--report: the nine inside ($(cat err))"
if grep -q OUTSIDE err; then fail "an outside copy loaded: $(cat err)"; fi
run_program tfc verify cuda-11.8.0 --level load
expect_eq "$rc" "0" "verify the runtime tf2.5 installed: $(cat out)"
# cuDNN 8's libraries import cublas64_11.dll: alone the tree cannot load; with the runtime selected, it does.
# (WINEPATH empty: Wine fills an import a decoy lacks with a stub and loads it, where Windows refuses.)
WINEPATH= run_program tfc verify "$TREE" --level load
expect_eq "$rc" "0" "verify --level load of cuDNN 8.1 with the runtime: $(cat out)"
expect_eq "$(sed -n 2p out)" "  with the CUDA runtime 'cuda-11.8.0' ($(winpath "$tf/cuda-11.8.0/bin") searched after the tree's folder, as exec runs a program)" "verify names the runtime it loads with"
WINEPATH= run_program tfc doctor --cudnn tf2.5 --json
expect_eq "$(python3 -c 'import json,sys; c={c["id"]: c for c in json.load(open("out"))["checks"]}["dependencies"]; print(c["status"], c["summary"])')" \
  "ok every library $TREE needs is found (with the CUDA runtime 'cuda-11.8.0')" "doctor: every library of the tree, with the runtime"
pass "install tf2.5 over HTTP installs cuDNN 8.1 and the CUDA 11.8 runtime; exec --cudnn tf2.5 loads TF 2.5's nine names from them past the decoys"

# The same through the generated activate.bat in a plain cmd.
tfc profile generate tf2.5 > /dev/null
profile_dir=$(winpath "$tf/.cudnnenv/profiles/tf2.5")
printf '@echo off\r\ncall "%s\\activate.bat"\r\n"%s" %s cudnn64_8.dll > names.txt\r\n' "$profile_dir" \
  "$(winpath "$WORK/prog/load-names.exe")" "${names[*]}" > tf.bat
unset CUDNNENV_ROOT
wine_console out.txt /c tf.bat
[ "$rc" = 0 ] || fail "tf.bat: $(console_said out.txt)"
expect_eq "$(tr -d '\r' < names.txt | grep -c "$(winpath "$tf" | sed 's/\\/\\\\/g')")" "9" "activate.bat: the nine names from the trees ($(cat names.txt))"
pass "profile generate tf2.5 + call activate.bat in a plain cmd: the nine names from the trees, past the decoys on PATH"

# A framework whose library no runtime release here ships: said, nothing installed.
mkdir -p "$tf/.cudnnenv"
cat > "$tf/.cudnnenv/config.toml" <<'TOML'
[profiles."old-tf"]
framework = "TensorFlow 2.4 (as a test)"
platforms = ["windows"]
cudnn = "8.1"
cuda = "11.2"
windows_libraries = ["cudart64_110.dll", "cusolver64_10.dll"]
TOML
tfc remove cuda-11.8.0 --yes > /dev/null
# Without a runtime the cuDNN 8.1 tree cannot load: verify and doctor name cuBLAS and the one command.
WINEPATH= run_program tfc verify "$TREE" --level load
expect_eq "$rc" "4" "verify of cuDNN 8.1 without a runtime: exit code"
grep -q "FAIL  load: cudnn64_8.dll needs cublas64_11.dll: not in its folder, .*'cudnnenv install cuda 11.8.0' installs the runtime beside cuDNN" out ||
  fail "verify without the runtime names cuBLAS and the fix: $(cat out)"
WINEPATH= run_program tfc doctor --cudnn tf2.5 --json
expect_eq "$(python3 -c 'import json,sys; c={c["id"]: c for c in json.load(open("out"))["checks"]}["dependencies"]; print(c["status"], c["summary"], "|", c["cause"], "|", len(c["details"]))' | sed 's/PATH ([0-9]* folders\?)/PATH/')" \
  "fail missing: cublas64_11.dll | cudnn64_8.dll, cudnn_ops_infer64_8.dll, cudnn_ops_train64_8.dll, cudnn_cnn_infer64_8.dll, cudnn_cnn_train64_8.dll, cudnn_adv_infer64_8.dll and cudnn_adv_train64_8.dll need cublas64_11.dll: not in its folder, C:\\windows\\System32, C:\\windows\\System, C:\\windows, the current folder, PATH | 0" \
  "doctor without the runtime: the sub-libraries' cuBLAS, once, every library that needs it in one line"
# What TF 2.5 opens first, cudart64_110.dll, is named first (issue 41): by current, doctor and exec, with
# every name of the profile nothing provides and the one command that installs them.
search="C:\\windows\\System32, C:\\windows\\System, C:\\windows, the current folder, PATH"
tf_names="cudart64_110.dll first, then cublas64_11.dll, cublasLt64_11.dll, cufft64_10.dll, curand64_10.dll, cusolver64_11.dll, cusparse64_11.dll"
fix="'cudnnenv install cuda 11.8.0' installs CUDA 11.8.0's runtime, which has them, selected with this tree"
WINEPATH= run_program tfc current --cudnn tf2.5
expect_eq "$(sed 1d out | sed 's/PATH ([0-9]* folders\?)/PATH/')" "no CUDA runtime: TensorFlow 2.5 (tf2.5) opens $tf_names: no CUDA runtime tree is selected and none of them is in $search
  fix: $fix" "current without the runtime names cudart64_110.dll first"
WINEPATH= run_program tfc doctor --cudnn tf2.5 --json
expect_eq "$(python3 -c 'import json,sys; c={c["id"]: c for c in json.load(open("out"))["checks"]}["cuda-copy-wins"]; print(c["status"], c["summary"], "|", c["fix"])')" \
  "fail no CUDA runtime: TensorFlow 2.5 opens cudart64_110.dll first, and nothing provides it | $fix" "doctor without the runtime: cudart64_110.dll, then the fix"
WINEPATH= run_program tfc exec --cudnn tf2.5 -- "$(winpath "$WORK/prog/load-names.exe")" cudnn64_8.dll
expect_eq "$rc:$(head -1 err | sed 's/PATH ([0-9]* folders\?)/PATH/')" "4:cudnnenv: warning: TensorFlow 2.5 (tf2.5) opens $tf_names: no CUDA runtime tree is selected and none of them is in $search; $fix" "exec without the runtime: cudart64_110.dll named first"
expect_eq "$(grep '^cudnnenv: error: the pin check failed: load: ' err | grep -o 'cublas64_11.dll: not in its folder' | wc -l)" "1" \
  "exec's refusal names cuBLAS once, after the warning: $(cat err)"
pass "without a runtime, current, doctor and exec name cudart64_110.dll first (TF 2.5 opens it first), every name nothing provides and the one command"
run_program tfc install old-tf --mirror "http://127.0.0.1:$PORT" -q
expect_eq "$rc" "3" "a runtime without a name the profile needs: exit code"
expect_eq "$(grep '^cudnnenv: error' err)" "cudnnenv: error: the CUDA 11.8.0 runtime has no 'cusolver64_10.dll', which TensorFlow 2.4 (as a test) opens; nothing was installed" "a missing name, said"
[ ! -e "$tf/cuda-11.8.0" ] || fail "a runtime without the name was installed"
pass "a runtime that lacks a library the profile opens is refused before it becomes visible, naming the library"

# Split wheels on Windows (nvidia/cublas/bin/cublas64_11.dll, nvidia/cuda_runtime/bin/cudart64_110.dll, ...):
# adopted together as one runtime tree, a store folder of hard links (the store and the wheels on one drive).
cud remove cuda-11.8.0 --yes > /dev/null
split="$WORK/venv/Lib/site-packages/nvidia"
for pair in cuda_runtime:cudart64_110.dll cublas:cublas64_11.dll cublas:cublasLt64_11.dll cufft:cufft64_10.dll \
            curand:curand64_10.dll cusolver:cusolver64_11.dll cusparse:cusparse64_11.dll cuda_nvrtc:nvrtc64_112_0.dll; do
  mkdir -p "$split/${pair%%:*}/bin" && cp "dlls/${pair#*:}" "$split/${pair%%:*}/bin/"
done
run_program cud adopt --runtime "$(winpath "$split")"
expect_eq "$(cat out)" "adopted 'cuda-11': CUDA 11 runtime, 8 library files stay in $(winpath "$split") (linked from one folder, $(winpath "$root/cuda-11/bin"))" "adopt split wheels under Wine: $(cat err)"
[ "$(stat -c %i "$root/cuda-11/bin/cublas64_11.dll")" = "$(stat -c %i "$split/cublas/bin/cublas64_11.dll")" ] ||
  fail "the store's cublas64_11.dll is a hard link to the wheel's"
run_program cud exec --cudnn cudnn-8.1 --report -- "$(winpath "$WORK/prog/load-names.exe")" "${names[@]}"
expect_eq "$rc" "0" "exec with the split wheels' runtime: $(cat err)"
for name in "${names[@]}"; do
  expect_eq "$(grep "^$name " out | cut -d' ' -f2-)" "$(winpath "$root/cuda-11/bin/$name")" "$name from the split wheels' runtime, past the decoys"
done
expect_eq "$(grep -c '^  in the runtime ' err)" "8" "--report: the eight inside ($(cat err))"
pass "split CUDA wheels adopted under Wine as one runtime tree of hard links: exec loads TF 2.5's CUDA names from it past the decoys"
