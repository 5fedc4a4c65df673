#!/usr/bin/env bash
# Install by version (#14) with the Windows build under Wine: WinHTTP over
# plain HTTP on loopback, from the tests' server (http_server.py) as a mirror
# of NVIDIA's host, with an index of archives built here (CUDNNENV_INDEX): a
# visible, verified tree; a run killed halfway, then resumed with a range
# request; a server without ranges; wrong bytes refused with nothing left;
# 404 and a stall in plain words; the downloads cache.
#
# What Wine cannot show: HTTPS through Windows' certificate store and the
# system proxy (WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY): Wine's WinHTTP has its
# own TLS and proxy code. The Linux test (download.sh) covers HTTPS with a
# test CA through libcurl.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/download_lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
unset CUDNNENV_MIRROR HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy
make_download_archives windows-x86_64
start_server plain
MIRROR=http://127.0.0.1:$PORT
store="$WORK/store 库"
export CUDNNENV_ROOT=$(winpath "$store") CUDNNENV_INDEX=$(winpath "$WORK/index.tsv")
RUNNER=$WINE
downloads=$store/.cudnnenv/downloads
path=/compute/redist/cudnn/v8.1.0/$ARCHIVE
installed_message="installed '$TREE': cuDNN 8.1.0.77, CUDA 11.2, Windows x64, 8.6 MB
  location: $CUDNNENV_ROOT\\$TREE
  library:  $CUDNNENV_ROOT\\$TREE\\cuda\\bin\\cudnn64_8.dll
  source:   site index $CUDNNENV_INDEX: $ARCHIVE"

# 1. Two CUDA variants and no --cuda: the choices. Then fetched, checked, installed, verified.
run install 8.1 --mirror "$MIRROR"
expect_eq "$rc" "3" "two CUDA variants, no --cuda"
expect_eq "$(cat err)" "cudnnenv: error: cuDNN 8.1.0.77 comes for CUDA 11.3, 11.2, and no CUDA toolkit of these is installed here: say which
  hint: add --cuda with the CUDA version your framework was built for: 'cudnnenv install 8.1 --cuda 11.3', 'cudnnenv install 8.1 --cuda 11.2'" "the choices"
# The CUDA 11.2 toolkit here (CUDA_PATH_V11_2, as its installer sets it): the 11.2 variant, no --cuda needed.
mkdir -p "$WORK/cuda 11.2/bin"
CUDA_PATH_V11_2=$(winpath "$WORK/cuda 11.2") run install 8.1 --mirror "$MIRROR"
expect_eq "$rc" "0" "install 8.1 with the 11.2 toolkit here: $(cat err)"
expect_eq "$(cat out)" "$installed_message" "the installed tree"
expect_eq "$(cat plain.log)" "GET $path range=- 200" "one request through WinHTTP"
cmp "$downloads/$ARCHIVE" "srv/$ARCHIVE" || fail "the kept archive differs from the served one"
run verify "$TREE" --level files
expect_eq "$rc" "0" "verify the fetched tree: $(cat err)"
run remove "$TREE" --yes
pass "install by version through WinHTTP"

# 2. From the downloads folder, then the cache cleaned.
: > plain.log
run install 8.1 --cuda 11.2 --mirror "$MIRROR"
expect_eq "$(cat err)" "cudnnenv: using $ARCHIVE from the downloads folder (checked)" "the note"
expect_eq "$(cat plain.log)" "" "nothing fetched twice"
run cache clean
expect_eq "$(cat out)" "freed 8.2 MB (1 file) in $CUDNNENV_ROOT\\.cudnnenv\\downloads" "cache clean"
run remove "$TREE" --yes
pass "the downloads cache"

# 3. Killed halfway, then the same command again: it resumes with a range request.
start_server slow
kill_halfway "$downloads/$ARCHIVE.part" "$WINE" "$CUDNNENV" install 8.1 --cuda 11.2 --mirror "http://127.0.0.1:$PORT/slow"
: > plain.log
run install 8.1 --cuda 11.2 --mirror "$MIRROR" --quiet
expect_eq "$rc" "0" "the same command again: $(cat err)"
expect_eq "$(cat plain.log)" "GET $path range=bytes=$part- 206" "resumed with a range request"
run verify "$TREE" --level files
expect_eq "$rc" "0" "verify the resumed tree"
run remove "$TREE" --yes && run cache clean
pass "a killed download resumed"

# 4. A server without ranges and a part file: started over, once.
start_server norange
mkdir -p "$downloads" && head -c 1000 "srv/$ARCHIVE" > "$downloads/$ARCHIVE.part"
run install 8.1 --cuda 11.2 --mirror "http://127.0.0.1:$PORT/norange"
expect_eq "$rc" "0" "install from a server without ranges: $(cat err)"
expect_eq "$(grep -c 'starting over' err)" "1" "the restart said once"
expect_eq "$(cat norange.log)" "GET /norange$path range=bytes=1000- 200" "one request, answered whole"
run remove "$TREE" --yes && run cache clean
pass "a server without ranges"

# 5. Wrong bytes refused; 404 and a stall in plain words; nothing left.
run install 8.1 --cuda 11.2 --mirror "http://127.0.0.1:$PORT/wrong" --quiet
expect_eq "$rc" "1" "wrong bytes"
expect_eq "$(sed -n 1p err | sed 's/its SHA-256 is [0-9a-f]*, //')" "cudnnenv: error: the file served by 'http://127.0.0.1:$PORT/wrong$path' is not the $ARCHIVE: the site index $CUDNNENV_INDEX says $SHA; it was deleted and nothing was installed" "wrong bytes refused"
run install 8.1 --cuda 11.2 --mirror "http://127.0.0.1:$PORT/404" --quiet
expect_eq "$rc" "3" "404"
expect_eq "$(cat err)" "cudnnenv: error: 'http://127.0.0.1:$PORT/404$path' answered HTTP 404: the mirror does not have the archive
  hint: put it in the mirror at NVIDIA's path ($path), or try another mirror, or none; or download https://developer.download.nvidia.com$path elsewhere and run: cudnnenv install ./$ARCHIVE" "404 in plain words"
run install 8.1 --cuda 11.2 --mirror "http://127.0.0.1:$PORT/stall" --quiet --retries 0 --stall-timeout 2
expect_eq "$rc" "1" "a stall"
expect_eq "$(sed -n 1p err)" "cudnnenv: error: the download from 'http://127.0.0.1:$PORT/stall$path' stalled: less than 16 KiB/s for 2 s, 1 try" "a stall in plain words"
expect_eq "$(ls -A "$downloads" | grep -v '^\.' || true)" "" "nothing left in downloads"
[ ! -e "$store/$TREE" ] || fail "a tree after the failures"
pass "wrong bytes, 404 and a stall"

# 6. A mirror that is a folder, given as a Windows path (Wine's Z: drive): read from there, checked.
mkdir -p "folder mirror$(dirname "$path")"
cp "srv/$ARCHIVE" "folder mirror$path"
run install 8.1 --cuda 11.2 --mirror "$(winpath "$WORK/folder mirror")" --quiet
expect_eq "$rc" "0" "a folder mirror: $(cat err)"
[ -e "$store/$TREE" ] || fail "no tree from the folder mirror"
pass "a folder mirror on Windows"
