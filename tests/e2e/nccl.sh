#!/usr/bin/env bash
# NCCL as a row of the component table (#61): installed from NVIDIA's archive
# (nccl_<V>-1+cuda<X>_x86_64.txz) and from a wheel (nvidia_nccl_cu13), adopted
# from a folder, each read for its release and CUDA from the library's own
# version string; paired with the cuDNN tree of its CUDA major (the newest),
# or named (--nccl, nccl = in .cudnnenv.toml; one not installed is an error
# that names what is); pinned past a decoy libnccl.so.2 on LD_LIBRARY_PATH
# through exec, a shim and Slurm's task prolog, and `exec --report` marks its
# file "in NCCL"; verify loads it and reads ncclGetVersion. The fake NCCLs are
# built from tests/fixtures/fake_cuda_runtime.c and say which copy loaded.
# Usage: nccl.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
command -v cc > /dev/null || { echo "skip: no C compiler"; exit 77; }
source "$E2E_DIR/trees.sh"
SOURCES=$E2E_DIR/../fixtures
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state" CUDNNENV_VERIFY=none
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_SHELL CUDNNENV_NCCL LD_LIBRARY_PATH

# fake_nccl FILE RELEASE CUDA: a libnccl.so.2 stand-in that reports RELEASE and says "NCCL version RELEASE+cudaCUDA".
fake_nccl() {
  local major minor patch
  IFS=. read -r major minor patch <<< "$2"
  cc -shared -fPIC -o "$1" -Wl,-soname,libnccl.so.2 "$SOURCES/fake_cuda_runtime.c" \
    -DFAKE_NCCL="$((major * 10000 + minor * 100 + patch))" -DFAKE_NCCL_BUILD="\"$2+cuda$3\""
}
# run_in FOLDER ARGS...: run, with FOLDER the working folder (out, err and rc stay in $WORK).
run_in() { local folder=$1; shift; pushd "$folder" > /dev/null; run "$@"; mv out err "$WORK/"; popd > /dev/null; }
cc -o load-names "$SOURCES/dlopen_names.c" -ldl
make_linux_tree t 9.19.0 "$FIXTURES/fake-elf64-9.19.0.so"  # CUDA 13.1
run install ./t --name t
# NVIDIA's archive: the library, its links, the static library, the header and the licence.
archive=nccl_2.28.3-1+cuda13.0_x86_64
mkdir -p "$archive/lib" "$archive/include"
fake_nccl "$archive/lib/libnccl.so.2.28.3" 2.28.3 13.0
ln -s libnccl.so.2.28.3 "$archive/lib/libnccl.so.2" && ln -s libnccl.so.2 "$archive/lib/libnccl.so"
echo static > "$archive/lib/libnccl_static.a" && echo '/* nccl.h */' > "$archive/include/nccl.h"
echo licence > "$archive/LICENSE.txt"
tar cJf "$archive.txz" "$archive"
# A wheel: nvidia/nccl/lib/libnccl.so.2 alone.
mkdir -p wheel/nvidia/nccl/lib wheel/nvidia_nccl_cu13-2.27.7.dist-info
fake_nccl wheel/nvidia/nccl/lib/libnccl.so.2 2.27.7 13.0
echo 'Name: nvidia-nccl-cu13' > wheel/nvidia_nccl_cu13-2.27.7.dist-info/METADATA
wheel_file=nvidia_nccl_cu13-2.27.7-py3-none-manylinux_2_18_x86_64.whl
(cd wheel && python3 -c 'import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for root, _, files in os.walk("."):
        for f in files: z.write(os.path.join(root, f))' "../$wheel_file")
# A folder to adopt, built for CUDA 12 (another major than the tree's).
mkdir -p venv12/nvidia/nccl/lib && fake_nccl venv12/nvidia/nccl/lib/libnccl.so.2 2.26.2 12.9
mkdir -p decoy && fake_nccl decoy/libnccl.so.2 2.21.5 13.0

run install nccl "$archive.txz"
expect_eq "$(head -1 out)" "installed 'nccl-2.28.3': NCCL 2.28.3 for CUDA 13.0" "install nccl from NVIDIA's archive"
expect_eq "$(cd "$CUDNNENV_ROOT/nccl-2.28.3" && find . -path ./.cudnnenv -prune -o -print | sort | tr '\n' ' ')" \
  ". ./lib ./lib/libnccl.so ./lib/libnccl.so.2 ./lib/libnccl.so.2.28.3 ./licenses ./licenses/nccl.txt " \
  "the archive's tree: the library and its links, the licence; no header or static library"
run install nccl "$wheel_file"
expect_eq "$(head -1 out)" "installed 'nccl-2.27.7': NCCL 2.27.7 for CUDA 13.0" "install nccl from a wheel"
run install nccl "$archive.txz"
expect_eq "$(head -1 out)" "already installed 'nccl-2.28.3': NCCL 2.28.3 for CUDA 13.0" "the same archive again"
run adopt "$WORK/venv12/nvidia/nccl/lib"
expect_eq "$(cat out)" "adopted 'nccl-2.26.2': NCCL 2.26.2, 1 library file stays in $WORK/venv12/nvidia/nccl/lib" \
  "adopt: the folder's kind, release and CUDA from the library's version string"
cp "$archive.txz" renamed.txz
run install nccl renamed.txz
expect_eq "$rc $(cat err)" "2 cudnnenv: error: 'renamed.txz' does not say which NCCL release it holds
  hint: give the archive under NVIDIA's name, or adopt its unpacked folder: cudnnenv adopt --kind nccl FOLDER" \
  "an archive whose name says no release"
pass "NCCL from NVIDIA's archive, a wheel and an adopted folder; the release and CUDA from the library itself"

# Paired with the tree of its CUDA major, the newest; named by --nccl or the project file.
run current --cudnn t
expect_eq "$(cat out)" "9.19.0  t  (set by --cudnn)
NCCL 2.28.3  nccl-2.28.3  (chosen by the CUDA major of 't')" "current: the newest NCCL of the tree's CUDA major"
expect_eq "$(run current --cudnn t --json && json_field nccl.name < out)" "nccl-2.28.3" "current --json's nccl key"
run current --cudnn t --nccl 2.26
expect_eq "$(sed -n 2p out)" "NCCL 2.26.2  nccl-2.26.2  (chosen by --nccl 2.26)" "--nccl names another"
mkdir -p project && printf 'cudnn = "t"\nnccl = "2.27"\n' > project/.cudnnenv.toml
run_in project current
expect_eq "$(sed -n 2p out)" "NCCL 2.27.7  nccl-2.27.7  (chosen by nccl = \"2.27\" in $WORK/project/.cudnnenv.toml)" \
  "nccl = in the project file"
printf 'cudnn = "t"\nnccl = "2.99"\n' > project/.cudnnenv.toml
run_in project current
expect_eq "$rc $(cat err)" "3 cudnnenv: error: no installed NCCL tree is '2.99' (nccl = \"2.99\" in $WORK/project/.cudnnenv.toml); installed: nccl-2.28.3 (2.28.3), nccl-2.27.7 (2.27.7), nccl-2.26.2 (2.26.2)
  hint: name one of those, by its name or its release; 'cudnnenv adopt --kind nccl FOLDER' takes one in" \
  "an NCCL named that is not installed"
pass "NCCL selected beside cuDNN: paired by CUDA major, or named by --nccl and nccl = (one missing is said)"

# Pinned past a decoy: exec, a shim, Slurm's task prolog.
plain=$(LD_LIBRARY_PATH="$WORK/decoy" ./load-names libnccl.so.2)
expect_eq "$plain" "libnccl.so.2 loaded (ncclGetVersion 22105)" "without cudnnenv the decoy on LD_LIBRARY_PATH loads"
run_program env LD_LIBRARY_PATH="$WORK/decoy" "$CUDNNENV" exec --cudnn t --report -- ./load-names libnccl.so.2
expect_eq "$(cat out)" "libnccl.so.2 loaded (ncclGetVersion 22803)" "exec: the paired NCCL loads"
expect_eq "$(head -1 err)" "cudnnenv: report: pinned to 't' (cuDNN 9.19.0, $CUDNNENV_ROOT/t/lib) with the NCCL 'nccl-2.28.3' ($CUDNNENV_ROOT/nccl-2.28.3/lib), mode audit" "--report names the NCCL pinned"
expect_eq "$(sed -n 2p err)" "  in NCCL      $CUDNNENV_ROOT/nccl-2.28.3/lib/libnccl.so.2.28.3" "--report marks its file by its row"
run_program env LD_LIBRARY_PATH="$WORK/decoy" "$CUDNNENV" exec --cudnn t --nccl nccl-2.26.2 -- ./load-names libnccl.so.2
expect_eq "$(cat out)" "libnccl.so.2 loaded (ncclGetVersion 22602)" "exec --nccl: the named NCCL, of another CUDA major"
mkdir -p bin && cp load-names bin/
PATH="$WORK/bin:$PATH" run shim add load-names
printf 'cudnn = "t"\nnccl = "2.27"\n' > project/.cudnnenv.toml
pushd project > /dev/null
run_program env LD_LIBRARY_PATH="$WORK/decoy" PATH="$WORK/bin:$PATH" "$CUDNNENV_STATE_DIR/shims/load-names" libnccl.so.2
mv out err "$WORK/" && popd > /dev/null
expect_eq "$(cat out)" "libnccl.so.2 loaded (ncclGetVersion 22707)" "a shim: the project's NCCL"
run_in project slurm task-prolog
expect_eq "$(grep -c '^export CUDNNENV_NCCL_DIR=' out)" "1" "the task prolog exports NCCL's pin folder"
(cd project && env -i PATH="$PATH" LD_LIBRARY_PATH="$WORK/decoy" bash -c '
  while read -r verb assignment; do [ "$verb" = export ] && export "${assignment%%=*}=${assignment#*=}"; done < ../out
  ../load-names libnccl.so.2' > task.out 2>&1)
expect_eq "$(cat project/task.out)" "libnccl.so.2 loaded (ncclGetVersion 22707)" "a task started with the task prolog's lines"
pass "NCCL pinned past a decoy through exec (--report: in NCCL), a shim and Slurm's task prolog"

run verify nccl-2.28.3 --level load
expect_eq "$(cat out)" "verify nccl-2.28.3 (NCCL 2.28.3): $CUDNNENV_ROOT/nccl-2.28.3/lib/libnccl.so.2
  ok    file set: NCCL 2.28.3, 3 library files
  ok    files: 4 files match the install manifest
  ok    architecture: ELF 64-bit x86_64, as Linux x86_64 needs
  ok    load: 1 load by absolute path: libnccl.so.2.28.3 2.28.3 (ncclGetVersion)
passed" "verify loads NCCL and reads ncclGetVersion"
pass "verify: NCCL's file set, and its version function"
