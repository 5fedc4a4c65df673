#!/usr/bin/env bash
# NCCL and TensorRT in a lock (#61): a project naming `nccl =` and
# `tensorrt =` locks the file each tree here was installed from (NCCL's
# archive with its URL on NVIDIA's host, TensorRT's tarball by name alone:
# its downloads sit behind a login); `lock` keeps those pins and `-P nccl`
# moves one; `mirror create --lock` copies both into the mirror (NCCL at its
# path on NVIDIA's host, TensorRT under components/tensorrt/); `sync
# --mirror` on a fresh store installs cuDNN, NCCL and TensorRT from it, with
# nothing reachable, and the project then selects the locked trees; without
# a mirror, a TensorRT file nobody can fetch is said with the command that
# installs it; a lock naming another host for NCCL is refused.
# Usage: lock_components.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/download_lib.sh"
command -v cc > /dev/null || { echo "skip: no C compiler"; exit 77; }
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state" CUDNNENV_VERIFY=none
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_MIRROR CUDNNENV_NCCL CUDNNENV_TENSORRT LD_LIBRARY_PATH
export https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9

# fake_nccl_archive RELEASE CUDA: NVIDIA's NCCL archive nccl_RELEASE-1+cudaCUDA_x86_64.txz of a fake libnccl.so.2.
fake_nccl_archive() {
  local release=$1 cuda=$2 major minor patch
  IFS=. read -r major minor patch <<< "$release"
  local name="nccl_$release-1+cuda${cuda}_x86_64"
  mkdir -p "$name/lib"
  cc -shared -fPIC -o "$name/lib/libnccl.so.$release" -Wl,-soname,libnccl.so.2 "$E2E_DIR/../fixtures/fake_cuda_runtime.c" \
    -DFAKE_NCCL="$((major * 10000 + minor * 100 + patch))" -DFAKE_NCCL_BUILD="\"$release+cuda$cuda\""
  ln -s "libnccl.so.$release" "$name/lib/libnccl.so.2"
  tar cJf "$name.txz" "$name"
}

linux=cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
ldir=compute/cudnn/redist/cudnn/linux-x86_64
mkdir -p "srv/$ldir"
make_linux_tree "${linux%.tar.xz}" 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
tar -cJf "srv/$linux" "${linux%.tar.xz}" && cp "srv/$linux" "srv/$ldir/"
write_index "linux-x86_64:$ldir/$linux"
export CUDNNENV_INDEX="$WORK/index.tsv"
nccl=nccl_2.28.3-1+cuda13.0_x86_64.txz
nccl_url=https://developer.download.nvidia.com/compute/redist/nccl/v2.28.3/$nccl
tensorrt=TensorRT-10.13.0.35.Linux.x86_64-gnu.cuda-13.0.tar.gz
fake_nccl_archive 2.28.3 13.0
run install nccl "$nccl"
expect_eq "$rc" "0" "install nccl: $(cat err)"
install_fake_tensorrt 10.13.0.35 13.0

mkdir project && cd project
printf 'cudnn = "9.1"\ncuda = "12"\nnccl = "2.28"\ntensorrt = "10"\n' > .cudnnenv.toml
run lock
expect_eq "$rc:$(cat out)" "0:wrote $WORK/project/cudnnenv.lock
  linux-x86_64    cuDNN 9.1.0.70 (cuda12)  $linux
  linux-x86_64    NCCL 2.28.3 (CUDA 13.0)  $nccl
  linux-x86_64    TensorRT 10.13.0.35 (CUDA 13.0)  $tensorrt" "lock with NCCL and TensorRT: $(cat err)"
expect_eq "$(sed -n '/^\[input\]/,/^$/p;/^\[\[nccl\]\]/,/^$/p;/^\[\[tensorrt\]\]/,$p' cudnnenv.lock)" "[input]
cudnn = \"9.1\"
cuda = \"12\"
nccl = \"2.28\"
tensorrt = \"10\"
platforms = [\"linux-x86_64\"]

[[nccl]]
platform = \"linux-x86_64\"
release = \"2.28.3\"
cuda = \"13.0\"
file = \"$nccl\"
url = \"$nccl_url\"
size = $(stat -c %s "$WORK/$nccl")
sha256 = \"$(sha256sum "$WORK/$nccl" | cut -d' ' -f1)\"

[[tensorrt]]
platform = \"linux-x86_64\"
release = \"10.13.0.35\"
cuda = \"13.0\"
file = \"$tensorrt\"
size = $(stat -c %s "$WORK/$tensorrt")
sha256 = \"$(sha256sum "$WORK/$tensorrt" | cut -d' ' -f1)\"" "the lock's entries"
cp cudnnenv.lock first.lock
run lock --check
expect_eq "$rc:$(cat out)" "0:up to date: $WORK/project/cudnnenv.lock" "lock --check"
pass "lock: NCCL by NVIDIA's archive and URL, TensorRT by its tarball's name and hash"

(cd "$WORK" && fake_nccl_archive 2.28.5 13.0 && "$CUDNNENV" install nccl "$WORK/nccl_2.28.5-1+cuda13.0_x86_64.txz" > /dev/null) ||
  fail "install nccl 2.28.5"
run lock
expect_eq "$rc:$(head -1 out)" "0:up to date: $WORK/project/cudnnenv.lock" "a newer NCCL installed: the pin stays"
run lock -P nccl
expect_eq "$rc:$(sed -n 2p out)" "0:Updated nccl 2.28.3 -> 2.28.5 (linux-x86_64)" "lock -P nccl: $(cat err)"
cp first.lock cudnnenv.lock
pass "the NCCL pin stays while .cudnnenv.toml takes it; -P nccl moves it"

cd "$WORK"
run mirror create "$WORK/mirror" --lock project/cudnnenv.lock --from "$WORK/srv" -q
expect_eq "$rc:$(sed -n 2,4p out)" "0:  components/tensorrt/$tensorrt
  $ldir/$linux
  compute/redist/nccl/v2.28.3/$nccl" "mirror create --lock: $(cat err)"
cmp "mirror/compute/redist/nccl/v2.28.3/$nccl" "$nccl" && cmp "mirror/components/tensorrt/$tensorrt" "$tensorrt" ||
  fail "the mirror holds other bytes than the installs came from"
expect_eq "$(cd mirror && find . -name '.*' ! -name . | sort)" "" "no lock or part files left in the mirror"
run mirror verify "$WORK/mirror"
expect_eq "$rc" "0" "mirror verify: $(cat out err)"
pass "mirror create --lock: NCCL at its path on NVIDIA's host, TensorRT under components/, from the files installed here"

# A second machine: a fresh store, nothing reachable but the mirror.
export CUDNNENV_ROOT="$WORK/store2" CUDNNENV_STATE_DIR="$WORK/state2"
cd project
run sync --mirror "$WORK/mirror" -q
expect_eq "$rc:$(grep -c '^installed' out)" "0:3" "sync --mirror installs cuDNN, NCCL and TensorRT: $(cat out err)"
expect_eq "$(grep "^installed '[nt]" out)" "installed 'nccl-2.28.3': NCCL 2.28.3 for CUDA 13.0
installed 'tensorrt-10.13.0.35': TensorRT 10.13.0.35 for CUDA 13.0" "the trees sync installed"
run current --json
expect_eq "$rc:$(python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["nccl"]["name"], d["tensorrt"]["name"])' < out)" \
  "0:nccl-2.28.3 tensorrt-10.13.0.35" "the project selects the locked trees"
run sync --mirror "$WORK/mirror" -q
expect_eq "$rc:$(grep "^already installed '[nt]" out)" "0:already installed 'nccl-2.28.3': NCCL 2.28.3 (the lock's $nccl)
already installed 'tensorrt-10.13.0.35': TensorRT 10.13.0.35 (the lock's $tensorrt)" "a second sync installs nothing"
pass "sync --mirror on a fresh store, nothing reachable: cuDNN, NCCL and TensorRT as locked, and selected"

# The locked tree gone: the project says so; sync without a mirror names the file to install.
"$CUDNNENV" remove --yes tensorrt-10.13.0.35 > /dev/null 2>&1
run current
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: the locked TensorRT 10.13.0.35 ($tensorrt) is not installed ($WORK/project/cudnnenv.lock)
  hint: cudnnenv sync" "current without the locked TensorRT"
run sync -q
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: the lock names TensorRT 10.13.0.35 as $tensorrt (SHA-256 $(sha256sum "$WORK/$tensorrt" | cut -d' ' -f1)), which NVIDIA serves from no address a lock can name
  hint: install that file: cudnnenv install tensorrt $tensorrt  (or give sync a --mirror that holds components/tensorrt/$tensorrt)" \
  "sync without a mirror: TensorRT's file"
cp "$WORK/$tensorrt" . && run install tensorrt "$tensorrt" && run sync -q
expect_eq "$rc:$(grep -c '^already installed' out)" "0:3" "the hint's install, then sync: $(cat err)"
pass "a locked tree not installed: current says so, sync names the file and the command that installs it"

sed -i "s|^url = \"https://developer.download.nvidia.com/compute/redist/nccl/|url = \"https://example.org/|" cudnnenv.lock
run sync -q
expect_eq "$rc:$(head -1 err)" "1:cudnnenv: error: $WORK/project/cudnnenv.lock:$(grep -n '^url = "https://example.org' cudnnenv.lock | cut -d: -f1):7: 'https://example.org/v2.28.3/$nccl' is not where NVIDIA serves $nccl" \
  "a lock naming another host for NCCL"
pass "a lock naming another host for NCCL's archive is refused"
