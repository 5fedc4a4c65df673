#!/usr/bin/env bash
# A lock made on Linux for Windows (issue 43): the Linux build writes
# cudnnenv.lock for linux-x86_64 and windows-x86_64 and fills a mirror folder
# with the Windows archive from the test's server (`mirror create --lock
# --platform windows-x86_64`); the server stopped, the Windows build under
# Wine runs `sync --mirror` from that folder: the locked Windows archive,
# checked against the lock's SHA-256, becomes the tree `current` names.
# Wine cannot show: the network half on Windows (WinHTTP through the
# system proxy); wine_download.sh covers WinHTTP against the test server.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
NATIVE=$3     # build/release/bin/cudnnenv: the Linux build that writes the lock
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/download_lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_MIRROR HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy
[ -x "$NATIVE" ] || { echo "skip: no Linux build at $NATIVE (the test command builds the release preset first)"; exit 77; }

linux=cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
windows=cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip
wdir=compute/cudnn/redist/cudnn/windows-x86_64
mkdir srv  # the server answers any path by its file name
make_windows9_tree "${windows%.zip}" "$FIXTURES/fake-pe64-9.1.0.dll" 9.1.0
zip -q -r "srv/$windows" "${windows%.zip}"
head -c 1000 /dev/urandom > "srv/$linux"  # named by the lock, never fetched here
write_index "linux-x86_64:compute/cudnn/redist/cudnn/linux-x86_64/$linux" "windows-x86_64:$wdir/$windows"
sha=$(sha256sum "srv/$windows" | cut -d' ' -f1)
start_server upstream  # serving srv/ of this folder

mkdir project && cd project
printf 'cudnn = "9.1"\ncuda = "12"\n\n[lock]\nplatforms = ["linux-x86_64", "windows-x86_64"]\n' > .cudnnenv.toml
CUDNNENV_INDEX="$WORK/index.tsv" CUDNNENV_ROOT="$WORK/linux-store" run_program "$NATIVE" lock
expect_eq "$rc" "0" "lock on Linux: $(cat err)"
CUDNNENV_INDEX="$WORK/index.tsv" CUDNNENV_ROOT="$WORK/linux-store" run_program "$NATIVE" mirror create "$WORK/mirror" \
  --lock cudnnenv.lock --platform windows-x86_64 --from "http://127.0.0.1:$PORT" -q
expect_eq "$rc:$(sed -n 2p out)" "0:  $wdir/$windows" "mirror create for Windows on Linux: $(cat err)"
expect_eq "$(cat "$WORK/upstream.log")" "GET /$wdir/$windows range=- 200" "only the Windows archive fetched"
stop_servers
pass "a lock for Linux and Windows, and a mirror of its Windows archive, made by the Linux build"

# Windows, no network: whatever is asked of a proxy is refused.
export https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9
export CUDNNENV_ROOT=$(winpath "$WORK/C libs") CUDNNENV_INDEX=$(winpath "$WORK/index.tsv")
RUNNER=$WINE
run sync --mirror "$(winpath "$WORK/mirror")" -q
expect_eq "$rc:$(head -1 out | sed 's/, [^,]*$//')" "0:installed '9.1.0.70-cuda12': cuDNN 9.1.0.70, CUDA 12.2, Windows x64" "sync under Wine: $(cat err)"
grep -qx "sha256 = .$sha." "$WORK/C libs/9.1.0.70-cuda12/.cudnnenv/tree.toml" ||
  fail "the tree's record does not name the locked Windows archive $sha"
run current
expect_eq "$rc:$(cat out)" "0:9.1.0.70  9.1.0.70-cuda12  (set by $(winpath "$WORK/project/.cudnnenv.toml"), the build $(winpath "$WORK/project/cudnnenv.lock") names)" "current under Wine: $(cat err)"
run sync --mirror "$(winpath "$WORK/mirror")" --locked -q
expect_eq "$rc:$(head -1 out | sed 's/, [^,]*$//')" "0:already installed '9.1.0.70-cuda12': cuDNN 9.1.0.70, CUDA 12.2, Windows x64" "sync --locked again"
pass "sync under Wine from the mirror: the locked Windows archive, byte for byte, is the tree current names"
