#!/usr/bin/env bash
# One environment, every door (#40), Windows under Wine: for each selection
# (rows of SELECTIONS, each a project file) a batch file started through
# each door sees the same first PATH entry (the tree's bin), the same
# runtime folder right after it, the same variables and loads the same
# cudnn64_8.dll as one started by `cudnnenv exec`, and `current` there names
# the tree and the door. Two CUDA 11 runtimes are installed (11.2.2 and
# 11.8.0, each a cudart from a release's manifest): a tree gets the newest of
# its CUDA major; the runtime row names the older one (`runtime =`); the
# profile row (profile = "tf2.5", with its variable) gets its CUDA's, 11.2.2.
# Doors: exec; a
# shim's first start and its start from the recorded decision; cmd with the
# integration (`init cmd`'s cudnnenv.bat) and `activate`; conda's cmd hook
# (`export conda`, the tree row); a profile's generated activate.bat (the
# profile row); an IDE launcher
# (`export launcher`, python.exe) and a Jupyter kernel (`export jupyter`,
# its argv as Jupyter starts it), `use` in cmd with the integration, and the
# script a Windows Terminal profile's command line runs (`export terminal`),
# each given what the project names. The same as tests/e2e/doors.sh on Linux.
#
# What Wine cannot show: cmd's prompt hook (Wine's cmd runs no doskey
# macro); SetDllDirectoryW in the child (Wine passes it to none), which the
# view does not read.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/trees.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
unset CUDNNENV_VERSION CUDNNENV_SHELL _CUDNNENV_STATE CUDNNENV_ACTIVE CUDNNENV_ACTIVATED CUDNNENV_ACTIVATED_BY \
  CUDNNENV_CUDA_RUNTIME CUDA_PATH
root="$WORK/C libs"
mkdir -p "$root" prog project env/conda-meta
export CUDNNENV_ROOT=$(winpath "$root") CUDNNENV_VERIFY=none
MINGW=${MINGW_CC:-x86_64-w64-mingw32-gcc}
command -v "$MINGW" > /dev/null || { echo "skip: no $MINGW"; exit 77; }
for version in 8.1.0 8.2.0; do
  make_windows_tree "t$version" "$FIXTURES/fake-pe64-$version.dll" "$version"
  "$WINE" "$CUDNNENV" install "$(winpath "$WORK/t$version/cuda")" --name "t$version" > /dev/null
done
# Two CUDA 11 releases, each as NVIDIA's manifest lists it (every DLL but cudart the same fake), installed
# from a local mirror.
"$MINGW" -shared -o fake.dll "$E2E_DIR/../fixtures/fake_cuda_runtime.c"
for release in 11.2.2 11.8.0; do
  IFS=. read -r major minor _ <<< "$release"
  "$MINGW" -shared -o "cudart-$release.dll" "$E2E_DIR/../fixtures/fake_cuda_runtime.c" \
    -DFAKE_CUDART="$((major * 1000 + minor * 10))"
  python3 - "$release" <<'PY'
import hashlib, json, os, sys, zipfile
release = sys.argv[1]
components = {"cuda_cudart": ["cudart64_110.dll"], "libcublas": ["cublas64_11.dll", "cublasLt64_11.dll"],
              "libcufft": ["cufft64_10.dll"], "libcurand": ["curand64_10.dll"], "libcusolver": ["cusolver64_11.dll"],
              "libcusparse": ["cusparse64_11.dll"], "cuda_nvrtc": ["nvrtc64_112_0.dll"]}
manifest = {"release_date": "2022-10-03"}
for name, dlls in components.items():
    top = "%s-windows-x86_64-%s-archive" % (name, release)
    relative = "%s/windows-x86_64/%s.zip" % (name, top)
    os.makedirs("mirror/compute/cuda/redist/" + os.path.dirname(relative), exist_ok=True)
    with zipfile.ZipFile("mirror/compute/cuda/redist/" + relative, "w") as z:
        for dll in dlls:
            z.write("cudart-%s.dll" % release if dll.startswith("cudart") else "fake.dll", top + "/bin/" + dll)
        z.writestr(top + "/LICENSE", "license of %s\n" % name)
    data = open("mirror/compute/cuda/redist/" + relative, "rb").read()
    manifest[name] = {"name": name, "license": "CUDA Toolkit", "version": release,
                      "windows-x86_64": {"relative_path": relative, "size": str(len(data)),
                                         "sha256": hashlib.sha256(data).hexdigest(), "md5": "0" * 32}}
os.makedirs("index", exist_ok=True)
json.dump(manifest, open("index/redistrib_%s.json" % release, "w"))
PY
  CUDNNENV_CUDA_INDEX=$(winpath "$WORK/index") "$WINE" "$CUDNNENV" install cuda "$release" \
    --mirror "$(winpath "$WORK/mirror")" -q > /dev/null 2>&1 || fail "install cuda $release"
done
cp "$FIXTURES/load-cudnn.exe" prog/
crlf() { sed 's/$/\r/'; }
# What a program sees: the first two PATH entries, the variables a selection sets, the cuDNN version it loads.
crlf > prog/view.bat <<BATCH
@echo off
for /f "tokens=1,2 delims=;" %%a in ("%PATH%") do (
  set "_FIRST=%%a"
  set "_THEN=%%b"
)
echo first=%_FIRST% then=%_THEN% CUDNN_PATH=%CUDNN_PATH% ACTIVE=%CUDNNENV_ACTIVE% RUNTIME=%CUDNNENV_CUDA_RUNTIME% FOO=%FOO% TF=%TF_CPP_MIN_LOG_LEVEL%
"$(winpath "$WORK/prog/load-cudnn.exe")"
BATCH
"$WINE" "$CUDNNENV" init cmd > /dev/null
"$WINE" "$CUDNNENV" shim add view --target "$(winpath "$WORK/prog/view.bat")" > /dev/null
"$WINE" "$CUDNNENV" export conda t8.2.0 --prefix "$(winpath "$WORK/env")" > /dev/null 2>&1
"$WINE" "$CUDNNENV" profile generate tf2.5 > /dev/null 2>&1
cudnnenv=$(winpath "$CUDNNENV")
# Wine sets LOCALAPPDATA from its prefix, whatever the environment says.
fragments="${WINEPREFIX:-$HOME/.wine}/drive_c/users/$(id -un)/AppData/Local/Microsoft/Windows Terminal/Fragments/cudnnenv"
shims="$CUDNNENV_ROOT\\.cudnnenv\\shims"
macro="$CUDNNENV_ROOT\\.cudnnenv\\cmd\\cudnnenv.bat"
project_file="$(winpath "$WORK/project")\\.cudnnenv.toml"

# NAME|project file (\n for a line break)|tree|version cudnnGetVersion reports|FOO|TF_CPP_MIN_LOG_LEVEL|the
# runtime|what the launcher and the kernel are given to pin the same selection ("-": a project's [env] is the
# project's, a launcher or kernel is pinned to a tree)
SELECTIONS='tree|cudnn = "t8.2.0"\n|t8.2.0|8200|||cuda-11.8.0|t8.2.0
runtime|cudnn = "t8.2.0"\nruntime = "11.2.2"\n|t8.2.0|8200|||cuda-11.2.2|t8.2.0 --runtime 11.2.2
env|cudnn = "t8.1.0"\n[env]\nFOO = "a b"\n|t8.1.0|8100|a b||cuda-11.8.0|-
profile|profile = "tf2.5"\n|t8.1.0|8100||0|cuda-11.2.2|tf2.5'

# NAME|the batch lines (in the project folder; %1: the output file)|door in current|selections it serves
DOORS='exec|"'"$cudnnenv"'" exec -- view.bat > %1|(set by PROJECT)|tree runtime env profile
shim-first|rmdir /s /q "'"$CUDNNENV_ROOT"'\.cudnnenv\cache\launch" 2> nul & "'"$shims"'\view.exe" > %1|(set by PROJECT)|tree runtime env profile
shim-cached|"'"$shims"'\view.exe" > nul & "'"$shims"'\view.exe" > %1|(set by PROJECT)|tree runtime env profile
cmd-activate|call "'"$macro"'" activate & call view.bat > %1|(set by '"'"'cudnnenv activate'"'"' in this shell)|tree runtime env profile
conda-hook|call "'"$(winpath "$WORK/env")"'\etc\conda\activate.d\cudnnenv-activate.bat" & call view.bat > %1|(set by the conda env'"'"'s hook ('"'"'conda activate'"'"') in this shell)|tree
profile-script|call "'"$CUDNNENV_ROOT"'\.cudnnenv\profiles\tf2.5\activate.bat" & call view.bat > %1|(set by the profile'"'"'s activate script in this shell)|profile
launcher|LAUNCHER > %1|(set by PROJECT)|tree runtime profile
kernel|KERNEL > %1|(set by PROJECT)|tree runtime profile
cmd-use|call "'"$macro"'" use PIN & call view.bat > %1|(set by '"'"'cudnnenv use'"'"' in this shell)|tree profile
terminal|call TERMINAL & call view.bat > %1|(set by the terminal profile'"'"'s script in this shell)|tree profile'

while IFS='|' read -r selection text tree version foo tf runtime pin; do
  printf "$text" | crlf > project/.cudnnenv.toml
  (cd project && "$WINE" "$CUDNNENV" trust > /dev/null)
  launcher= kernel=
  if [ "$pin" != - ]; then
    launcher=\"$("$WINE" "$CUDNNENV" export launcher $pin --python "$(winpath "$WORK/prog/view.bat")" 2> /dev/null | tr -d '\r')\"
    run_program "$WINE" "$CUDNNENV" export jupyter $pin --python "$(winpath "$WORK/prog/view.bat")" \
      --prefix "$(winpath "$WORK/kp")" --name k
    [ "$rc" = 0 ] || fail "export jupyter $pin: exit $rc: $(cat err)"
    run_program "$WINE" "$CUDNNENV" export terminal "${pin%% *}" --name k
    [ "$rc" = 0 ] || fail "export terminal $pin: exit $rc: $(cat err)"
    # The script the terminal profile's command line runs (cmd /k ""SCRIPT""), quoted.
    terminal=$(python3 -c 'import json, sys
line = json.load(open(sys.argv[1], encoding="utf-8"))["profiles"][0]["commandline"]
print(line[line.index("/k \"\"") + 4:-1])' "$fragments/k.json")
    # The kernel's argv as one command line (each word quoted, as Jupyter's Popen would).
    kernel=$(python3 -c 'import json, sys
print(" ".join("\"" + a.replace("{connection_file}", "nul") + "\"" for a in json.load(open(sys.argv[1]))["argv"]))' \
      "$WORK/kp/share/jupyter/kernels/k/kernel.json")
  fi
  checked=0
  expected="first=$(winpath "$root/$tree/bin") then=$(winpath "$root/$runtime/bin") CUDNN_PATH=$(winpath "$root/$tree") ACTIVE=$tree RUNTIME=$runtime FOO=$foo TF=$tf
$version
${tree#t}  $tree"
  while IFS='|' read -r door lines origin serves; do
    [[ " $serves " == *" $selection "* ]] || continue
    origin=${origin//PROJECT/$project_file}
    {
      echo '@echo off'
      echo "call \"$CUDNNENV_ROOT\\.cudnnenv\\cmd\\init.bat\""
      echo "set \"PATH=%PATH%;$(winpath "$WORK/prog")\""
      echo "cd /d \"$(winpath "$WORK/project")\""
      lines=${lines//LAUNCHER/$launcher}
      lines=${lines//TERMINAL/$terminal}
      lines=${lines//PIN/$pin}
      echo "${lines//KERNEL/$kernel}" | sed "s|%1|\"%~dp0$door.txt\"|g"
      echo "\"$cudnnenv\" current >> \"%~dp0$door.txt\""
    } | crlf > "$door.bat"
    rm -f "$door.txt"
    wine_console console.txt /c "$door.bat"
    got=$(tr -d '\r' < "$door.txt" 2> /dev/null | head -3 || true)
    expect_eq "$got" "$expected  $origin" "$selection through $door ($(console_said console.txt))"
    checked=$((checked + 1))
  done <<< "$DOORS"
  expect_eq "$checked" "$(case $selection in env) echo 4 ;; runtime) echo 6 ;; *) echo 9 ;; esac)" "$selection: the doors checked"
  pass "$selection: every door gives the program exec's environment, and current names the tree and the door"
done <<< "$SELECTIONS"
