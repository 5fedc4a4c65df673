#!/usr/bin/env bash
# Install by version (#14) against a real HTTP server on 127.0.0.1
# (http_server.py) and an index of archives built here with their true
# SHA-256 (CUDNNENV_INDEX), the server reached as a mirror of NVIDIA's host:
# a visible, verified tree; nothing fetched twice; the downloads cache; a
# connection cut halfway (retried with a range request); a run killed
# halfway and resumed; a server without ranges; wrong bytes, 404, 500 and a
# stall in plain words with nothing left behind; HTTPS with a test CA and a
# refused untrusted one; progress on a terminal, plain lines otherwise,
# nothing with --quiet and clean --json; a URL by hand; a full disk.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/download_lib.sh"
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_INDEX="$WORK/index.tsv"
unset CUDNNENV_MIRROR SSL_CERT_FILE CURL_CA_BUNDLE HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy
make_download_archives linux-x86_64
start_server plain
MIRROR=http://127.0.0.1:$PORT
downloads=$CUDNNENV_ROOT/.cudnnenv/downloads
path=/compute/cudnn/redist/cudnn/linux-x86_64/$ARCHIVE

installed_message="installed '$TREE': cuDNN 9.1.0.70, CUDA 12.2, Linux x86_64, 8.1 MB
  location: $CUDNNENV_ROOT/$TREE
  library:  $CUDNNENV_ROOT/$TREE/lib/libcudnn.so.9
  source:   site index $CUDNNENV_INDEX: $ARCHIVE"

# 1. A version, two CUDA variants, no toolkit of either here: the choices.
run install 9.1
expect_eq "$rc" "3" "two CUDA variants, no --cuda"
expect_eq "$(cat err)" "cudnnenv: error: cuDNN 9.1.0.70 comes for CUDA 12, 11, and no CUDA toolkit of these is installed here: say which
  hint: add --cuda with the CUDA version your framework was built for: 'cudnnenv install 9.1 --cuda 12', 'cudnnenv install 9.1 --cuda 11'" "the choices"
run install 9.2 --mirror "$MIRROR"
expect_eq "$rc" "3" "a version the list does not have"
expect_eq "$(cat err)" "cudnnenv: error: no official cuDNN archive for linux-x86_64 matches '9.2'
  hint: 'cudnnenv list --available' shows what there is" "no such version"
expect_eq "$(cat plain.log)" "" "nothing asked of the server"
# A CUDA 12 toolkit here (CUDA_PATH_V12_4, as its installer sets it on Windows): the cuda12 variant.
mkdir -p cuda-12.4/bin
CUDA_PATH_V12_4=$WORK/cuda-12.4 run install 9.1 --mirror "$MIRROR" --quiet
expect_eq "$rc" "0" "the variant of the toolkit found: $(cat err)"
expect_eq "$(sed -n 1p out)" "installed '$TREE': cuDNN 9.1.0.70, CUDA 12.2, Linux x86_64, 8.1 MB" "the cuda12 archive"
run remove "$TREE" --yes && run cache clean
: > plain.log
pass "choosing the archive"

# 2. Fetched, checked, installed, verified; plain progress lines when stderr is not a terminal.
run install 9.1 --cuda 12 --mirror "$MIRROR"
expect_eq "$rc" "0" "install 9.1 --cuda 12"
expect_eq "$(cat out)" "$installed_message" "the installed tree"
expect_eq "$(head -1 err)" "cudnnenv: downloading $ARCHIVE (8.0 MB)" "the first progress line"
expect_eq "$(tail -1 err | sed 's/, [0-9.]* [kMG]*B\/s$//')" "cudnnenv: downloaded 8.0 MB" "the last progress line"
expect_eq "$(cat plain.log)" "GET $path range=- 200" "one request"
expect_eq "$(ls -A "$downloads" | grep -v '^\.')" "$ARCHIVE" "the archive kept in downloads/"
cmp "$downloads/$ARCHIVE" "srv/$ARCHIVE" || fail "the kept archive differs from the served one"
run verify "$TREE"
expect_eq "$rc" "0" "verify the fetched tree: $(cat err)"
pass "install by version from a mirror"

# 3. Again: already installed, nothing fetched. Removed, then again: from the downloads folder.
: > plain.log
run install 9.1 --cuda 12 --mirror "$MIRROR"
expect_eq "$rc" "0" "install again"
expect_eq "$(head -1 out)" "already installed '$TREE': cuDNN 9.1.0.70, CUDA 12.2, Linux x86_64, 8.1 MB" "already installed"
run remove "$TREE" --yes
run install 9.1 --cuda 12 --mirror "$MIRROR"
expect_eq "$rc" "0" "install from the downloads folder"
expect_eq "$(cat err)" "cudnnenv: using $ARCHIVE from the downloads folder (checked)" "the note"
expect_eq "$(cat plain.log)" "" "no request for an archive already here"
pass "nothing fetched twice"

# 4. cache list / clean.
run cache list
expect_eq "$(cat out)" "8.0 MB  $ARCHIVE" "cache list"
expect_eq "$(cat err)" "cudnnenv: 1 file, 8.0 MB in $downloads; 'cudnnenv cache clean' frees it" "cache list's note"
run cache list --json
expect_eq "$(json_field size < out) $(json_field partial < out) $(json_field version < out)" "$SIZE false 9.1.0.70" "cache list --json"
# What a killed install and a killed remove leave in the store goes too (the gc of #15).
mkdir -p "$CUDNNENV_ROOT/.cudnnenv/staging/killed/lib" "$CUDNNENV_ROOT/.cudnnenv/trash/old"
head -c 1000 /dev/zero > "$CUDNNENV_ROOT/.cudnnenv/staging/killed/lib/part"
head -c 500 /dev/zero > "$CUDNNENV_ROOT/.cudnnenv/trash/old/file"
run cache clean
expect_eq "$(cat out)" "freed 8.0 MB (1 file) in $downloads, and 1.5 kB that killed installs left in the store" "cache clean"
[ ! -e "$downloads/$ARCHIVE" ] || fail "cache clean left the archive"
expect_eq "$(ls -A "$CUDNNENV_ROOT/.cudnnenv/staging" "$CUDNNENV_ROOT/.cudnnenv/trash" | grep -v ':$' | grep -v '^$' || true)" "" "staging and trash emptied"
run remove "$TREE" --yes
pass "cache list and clean"

# 5. The connection cut halfway: tried again from where it stopped (a range request).
start_server cut
run install 9.1 --cuda 12 --mirror "http://127.0.0.1:$PORT/cut-once"
expect_eq "$rc" "0" "install through a cut: $(cat err)"
expect_eq "$(cat out)" "$installed_message" "the tree after a cut"
half=$((SIZE / 2))
expect_eq "$(cat cut.log)" "GET /cut-once$path range=- 200
GET /cut-once$path range=bytes=$half- 206" "the second request asks for the rest"
grep -qx "cudnnenv: the connection to '127.0.0.1:$PORT' broke off before the end, 1 try (.*); trying again in 1.0 s" err ||
  fail "no note of the retry: $(cat err)"
run remove "$TREE" --yes && run cache clean
pass "a cut connection resumed"

# 6. A run killed halfway, then the same command again: it resumes.
start_server slow
kill_halfway "$downloads/$ARCHIVE.part" "$CUDNNENV" install 9.1 --cuda 12 --mirror "http://127.0.0.1:$PORT/slow"
: > plain.log
run install 9.1 --cuda 12 --mirror "$MIRROR"
expect_eq "$rc" "0" "the same command again: $(cat err)"
expect_eq "$(cat plain.log)" "GET $path range=bytes=$part- 206" "resumed with a range request"
expect_eq "$(head -1 err)" "cudnnenv: downloading $ARCHIVE (8.0 MB), resuming at $(python3 -c "
size = $part
for unit in ['B', 'kB', 'MB', 'GB']:
    if size < 1000 or unit == 'GB': break
    size /= 1000
print(f'{size:.1f} {unit}')")" "the resume said"
run verify "$TREE"
expect_eq "$rc" "0" "verify the resumed tree"
run remove "$TREE" --yes && run cache clean
pass "a killed download resumed"

# 7. A server without ranges and a part file: started over, once.
start_server norange
head -c 1000 "srv/$ARCHIVE" > "$downloads/$ARCHIVE.part"
run install 9.1 --cuda 12 --mirror "http://127.0.0.1:$PORT/norange"
expect_eq "$rc" "0" "install from a server without ranges: $(cat err)"
expect_eq "$(sed -n 1p err)" "cudnnenv: the server does not resume downloads: starting over" "the restart said"
expect_eq "$(cat norange.log)" "GET /norange$path range=bytes=1000- 200
GET /norange$path range=- 200" "asked for the rest, then all"
run remove "$TREE" --yes && run cache clean
pass "a server without ranges"

# 8. Wrong bytes from a mirror: refused, nothing installed, the part file gone.
run install 9.1 --cuda 12 --mirror "http://127.0.0.1:$PORT/wrong"
expect_eq "$rc" "1" "wrong bytes"
wrong_sha=$(python3 -c "
import hashlib; d = bytearray(open('srv/$ARCHIVE', 'rb').read()); d[-1] ^= 0xFF; print(hashlib.sha256(d).hexdigest())")
expect_eq "$(tail -2 err)" "cudnnenv: error: the file served by 'http://127.0.0.1:$PORT/wrong$path' is not the $ARCHIVE: its SHA-256 is $wrong_sha, the site index $CUDNNENV_INDEX says $SHA; it was deleted and nothing was installed
  hint: the server (or the mirror) sent other bytes; try again, or another mirror" "wrong bytes refused"
expect_eq "$(ls -A "$downloads" | grep -v '^\.' || true)" "" "nothing left in downloads/"
[ ! -e "$CUDNNENV_ROOT/$TREE" ] || fail "a tree from wrong bytes"
pass "wrong bytes refused"

# 9. 404, 500 and a stall: plain words, exit non-zero, nothing left. From a mirror, the hints name the
# mirror (where it holds the archive), never "set a mirror"; each ends with the way in for a machine offline.
offline="; or download https://developer.download.nvidia.com$path elsewhere and run: cudnnenv install ./$ARCHIVE"
another="try another mirror, or none (a mirror holds each archive at NVIDIA's path: $path)"
run install 9.1 --cuda 12 --mirror "http://127.0.0.1:$PORT/404" --quiet
expect_eq "$rc" "3" "404"
expect_eq "$(cat err)" "cudnnenv: error: 'http://127.0.0.1:$PORT/404$path' answered HTTP 404: the mirror does not have the archive
  hint: put it in the mirror at NVIDIA's path ($path), or try another mirror, or none$offline" "404 in plain words"
run install 9.1 --cuda 12 --mirror "http://127.0.0.1:$PORT/500" --quiet --retries 1
expect_eq "$rc" "1" "500"
expect_eq "$(cat err)" "cudnnenv: error: 'http://127.0.0.1:$PORT/500$path' answered HTTP 500 after 2 tries
  hint: the server has a problem: try again later (the download resumes), or $another$offline" "500 in plain words"
start=$(date +%s)
run install 9.1 --cuda 12 --mirror "http://127.0.0.1:$PORT/stall" --quiet --retries 0 --stall-timeout 2
expect_eq "$rc" "1" "a stall"
expect_eq "$(cat err)" "cudnnenv: error: the download from 'http://127.0.0.1:$PORT/stall$path' stalled: less than 16 KiB/s for 2 s, 1 try
  hint: check the network (--min-rate sets the rate below which a try gives up); run the same command again to resume, or $another$offline" "a stall in plain words"
[ $(($(date +%s) - start)) -lt 30 ] || fail "the stall took more than 30 s to end"
# A server trickling about 4 KiB/s, just above nothing: under --min-rate for --stall-timeout, the try ends.
# What trickled in stays for a resume, with the two newest other partial files; older ones go.
for n in 1 2 3 4; do head -c 1000 /dev/zero > "$downloads/old-$n.tar.xz.part"; touch -d "$((5 - n)) hours ago" "$downloads/old-$n.tar.xz.part"; done
start=$(date +%s)
run install 9.1 --cuda 12 --mirror "http://127.0.0.1:$PORT/trickle" --quiet --retries 0 --stall-timeout 2 --min-rate 16384
expect_eq "$rc:$(head -1 err)" "1:cudnnenv: error: the download from 'http://127.0.0.1:$PORT/trickle$path' stalled: less than 16 KiB/s for 2 s, 1 try" "a trickle"
[ $(($(date +%s) - start)) -lt 30 ] || fail "the trickle took more than 30 s to end"
expect_eq "$(cd "$downloads" && ls *.part | sort | tr '\n' ' ')" "$(printf '%s\n' old-3.tar.xz.part old-4.tar.xz.part "$(basename "$path").part" | sort | tr '\n' ' ')" "the partial files kept: this one and the two newest others"
rm -f "$downloads"/*.part
# Refused: fails at once, the retries (default 3) not spent on it: no "trying again" note.
run install 9.1 --cuda 12 --mirror "http://127.0.0.1:1"
expect_eq "$rc" "1" "nothing listening"
expect_eq "$(sed '1s/ (.*)$//' err | head -1)" "cudnnenv: error: cannot connect to '127.0.0.1:1' to fetch http://127.0.0.1:1$path" "refused connection: the URL"
grep -q "trying again" err && fail "a refused connection was retried: $(cat err)"
run install 9.1 --cuda 12 --mirror "http://cudnnenv-test.invalid" --quiet --retries 0
expect_eq "$rc" "1" "a name that does not resolve"
expect_eq "$(sed -n 1p err | sed 's/ (.*)$//')" "cudnnenv: error: cannot find the server 'cudnnenv-test.invalid' to fetch http://cudnnenv-test.invalid$path: its name does not resolve" "no such host"
expect_eq "$(ls -A "$downloads" | grep -v '^\.' || true)" "" "nothing left after the failures"
pass "404, 500, a stall, a refused connection and a name that does not resolve"

# 10. HTTPS with a test CA: trusted through --cacert or SSL_CERT_FILE, refused without.
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=cudnnenv test CA" 2> /dev/null
openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=127.0.0.1" 2> /dev/null
printf 'subjectAltName=IP:127.0.0.1\n' > san.cnf
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.cnf 2> /dev/null
start_server tls --tls server.pem server.key
run install 9.1 --cuda 12 --mirror "https://127.0.0.1:$PORT" --quiet --retries 0
expect_eq "$rc" "1" "an untrusted certificate"
expect_eq "$(sed 's/ (.*)$//' err)" "cudnnenv: error: the secure connection to '127.0.0.1:$PORT' failed
  hint: the server's certificate is not trusted here: a proxy that inspects TLS needs its CA, given with --cacert FILE or SSL_CERT_FILE$offline" "TLS refused"
expect_eq "$(cat tls.log)" "" "no request over an untrusted connection"
run install 9.1 --cuda 12 --mirror "https://127.0.0.1:$PORT" --quiet --cacert ca.pem
expect_eq "$rc" "0" "HTTPS with --cacert: $(cat err)"
expect_eq "$(cat out)" "$installed_message" "the tree over HTTPS"
run remove "$TREE" --yes && run cache clean
SSL_CERT_FILE=ca.pem run install 9.1 --cuda 12 --mirror "https://127.0.0.1:$PORT" --quiet
expect_eq "$rc" "0" "HTTPS with SSL_CERT_FILE: $(cat err)"
run remove "$TREE" --yes && run cache clean
pass "HTTPS with a test CA"

# 11. Progress: redrawn in place on a terminal (under script), none with --quiet, clean --json.
script -qec "'$CUDNNENV' install 9.1 --cuda 12 --mirror '$MIRROR' > /dev/null" /dev/null > tty.txt
grep -q $'\rdownloading '"$ARCHIVE"': 8.0 MB of 8.0 MB (100%), ' tty.txt || fail "no progress line on a terminal: $(cat -v tty.txt)"
run remove "$TREE" --yes && run cache clean
run install 9.1 --cuda 12 --mirror "$MIRROR" --quiet
expect_eq "$(cat err)" "" "--quiet"
run remove "$TREE" --yes && run cache clean
CUDNNENV_MIRROR=$MIRROR run install 9.1 --cuda 12 --json
expect_eq "$rc" "0" "--json"
expect_eq "$(json_field status < out) $(json_field tree.name < out)" "installed $TREE" "--json is JSON alone"
run remove "$TREE" --yes && run cache clean
pass "progress"

# 12. The mirror from config.toml; a URL by hand needs --allow-unverified.
printf '[download]\nmirror = "%s"\n' "$MIRROR" > "$CUDNNENV_ROOT/.cudnnenv/config.toml"
: > plain.log
run install 9.1 --cuda 12 --quiet
expect_eq "$rc" "0" "the mirror from config.toml: $(cat err)"
expect_eq "$(cat plain.log)" "GET $path range=- 200" "config.toml's mirror asked"
run remove "$TREE" --yes && run cache clean
rm "$CUDNNENV_ROOT/.cudnnenv/config.toml"
run install "$MIRROR/$ARCHIVE"
expect_eq "$rc" "2" "a URL by hand"
expect_eq "$(cat err)" "cudnnenv: error: '$MIRROR/$ARCHIVE' is a URL, and nothing says what its bytes should be
  hint: install by version ('cudnnenv install 9.1') to get the official archive checked, or pass --allow-unverified to take this file as it comes (its SHA-256 is recorded in the tree)" "a URL refused"
run install "$MIRROR/$ARCHIVE" --allow-unverified --quiet
expect_eq "$rc" "0" "a URL with --allow-unverified: $(cat err)"
expect_eq "$(sed -n 1p out)" "installed '$TREE': cuDNN 9.1.0.70, CUDA 12.2, Linux x86_64, 8.1 MB" "a URL installed"
run remove "$TREE" --yes && run cache clean
pass "config.toml's mirror and a URL by hand"

# 13. A full disk (a file-size limit): the error, and no partial file left.
(
  trap '' XFSZ
  ulimit -f 2000
  run install 9.1 --cuda 12 --mirror "$MIRROR" --quiet
  expect_eq "$rc" "1" "a full disk"
  expect_eq "$(cat err)" "cudnnenv: error: the disk is full while downloading to '$downloads/$ARCHIVE.part': File too large; the partial file is deleted
  hint: free some space (cudnnenv cache clean frees old downloads) and run the command again" "a full disk in plain words"
)
expect_eq "$(ls -A "$downloads" | grep -v '^\.' || true)" "" "nothing half-written left"
pass "a full disk"

# 14. Proxies as libcurl reads them: http_proxy, and NO_PROXY past a dead one.
: > plain.log
http_proxy=$MIRROR run install 9.1 --cuda 12 --mirror "http://mirror.invalid" --quiet
expect_eq "$rc" "0" "through a proxy: $(cat err)"
expect_eq "$(cat plain.log)" "GET http://mirror.invalid$path range=- 200" "the request went through the proxy"
run remove "$TREE" --yes && run cache clean
: > plain.log
http_proxy=http://127.0.0.1:1 NO_PROXY=127.0.0.1 run install 9.1 --cuda 12 --mirror "$MIRROR" --quiet
expect_eq "$rc" "0" "NO_PROXY: $(cat err)"
expect_eq "$(cat plain.log)" "GET $path range=- 200" "NO_PROXY went around the proxy"
pass "proxies"

# 15. A mirror that is a folder laid out as NVIDIA's host, as a path or a file:// URL; one that lacks the
# archive says where it should be and the way in offline.
run remove "$TREE" --yes && run cache clean
mkdir -p "folder mirror$(dirname "$path")"
cp "srv/$ARCHIVE" "folder mirror$path"
for mirror in "$WORK/folder mirror" "file://$WORK/folder mirror"; do
  run install 9.1 --cuda 12 --mirror "$mirror" --quiet
  expect_eq "$rc" "0" "a folder mirror '$mirror': $(cat err)"
  expect_eq "$(cat out)" "$installed_message" "installed from the folder mirror"
  run remove "$TREE" --yes && run cache clean
done
mkdir empty-mirror
run install 9.1 --cuda 12 --mirror "$WORK/empty-mirror" --quiet
expect_eq "$rc $(cat err)" "3 cudnnenv: error: the mirror folder has no '$WORK/empty-mirror$path'
  hint: put $ARCHIVE there (a mirror holds each archive at NVIDIA's path), or try another mirror, or none$offline" "a folder mirror without the archive"
run install 9.1 --cuda 12 --mirror "$WORK/no-such-folder" --quiet
expect_eq "$rc $(cat err)" "2 cudnnenv: error: the mirror '$WORK/no-such-folder' is neither an http:// or https:// URL nor a folder
  hint: give the mirror's base URL (--mirror https://mirror.example.org/nvidia) or a folder laid out as NVIDIA's host (--mirror /srv/nvidia, file:///srv/nvidia)" "a mirror that is neither"
pass "a folder mirror, as a path and as file://; one without the archive; one that is neither"

# An archive whose size the list does not give (#28, item 6: 65 of the Linux rows): fetched up to
# --max-download (default 4 GiB), then stopped with nothing kept.
sed "s/\t$SIZE\t/\t?\t/" index.tsv > index-nosize.tsv
CUDNNENV_INDEX="$WORK/index-nosize.tsv" run install 9.1 --cuda 12 --mirror "$MIRROR" --quiet --max-download 1M
expect_eq "$rc" "1" "an archive of unknown size past --max-download: exit code"
expect_eq "$(head -1 err)" "cudnnenv: error: '$MIRROR$path' sent more than 1.0 MB of $ARCHIVE, whose size the list does not give; it was deleted and nothing was installed" "the archive of unknown size stopped"
[ -z "$(ls "$CUDNNENV_ROOT/.cudnnenv/downloads" 2> /dev/null | grep -v '^\.')" ] || fail "a part file was kept: $(ls -a "$CUDNNENV_ROOT/.cudnnenv/downloads")"
CUDNNENV_INDEX="$WORK/index-nosize.tsv" run install 9.1 --cuda 12 --mirror "$MIRROR" --quiet
expect_eq "$rc" "0" "the same archive within the default cap: $(cat err)"
pass "an archive of unknown size is capped (--max-download), nothing kept past the cap"

# 16. A folder mirror whose owner swaps the archive the moment it is closed after a read (issue 39,
# item 1): the file is read once, so the bytes installed are the bytes checked, and the other archive
# (a library that reports 9.1.0 too, with other bytes) never lands; the tree's library is the checked one.
run remove "$TREE" --yes && run cache clean
top=${ARCHIVE%.tar.xz}
{ cat "$FIXTURES/fake-elf64-9.1.0.so"; echo "other code"; } > evil.so
rm -rf evil && mkdir evil && (cd evil && make_linux_tree "$top" 9.1.0 ../evil.so && tar -cJf "../evil.tar.xz" "$top")
mkdir -p "swap-backing$(dirname "$path")"
cp "srv/$ARCHIVE" "swap-backing$path"
cp evil.tar.xz "swap-backing$path.swap"
if swap_mirror "$WORK/swap-backing" "$WORK/swap-mirror"; then
  run install 9.1 --cuda 12 --mirror "$WORK/swap-mirror" --quiet
  expect_eq "$rc" "0" "install from the swapping mirror: $(cat err)"
  expect_eq "$(grep '^swapped' "$WORK/swap-mirror.log")" "swapped ${path#/}" "the mirror swapped the archive once it was closed"
  cmp -s "$CUDNNENV_ROOT/$TREE/lib/libcudnn.so.9.1.0" "$FIXTURES/fake-elf64-9.1.0.so" ||
    fail "the installed library is not the checked archive's (the swapped-in one: $(cmp -s "$CUDNNENV_ROOT/$TREE/lib/libcudnn.so.9.1.0" evil.so && echo yes || echo no))"
  expect_eq "$(sha256sum < "$downloads/$ARCHIVE" | cut -c1-64)" "$SHA" "the downloads folder keeps the checked archive"
  swap_mirror_stop
  pass "a folder mirror swapping the archive on close: the checked bytes are installed"
fi

# 17. A site index may name a file on this machine (file://, as --mirror takes a folder): read from there and
# checked; the tree says the site index listed it, and a file the index names that is not there is named.
run remove "$TREE" --yes && run cache clean
sed "s|\t$URL_DIR/$ARCHIVE\$|\tfile://$WORK/srv/$ARCHIVE|" index.tsv > file-index.tsv
CUDNNENV_INDEX="$WORK/file-index.tsv" run install 9.1 --cuda 12 --quiet
expect_eq "$rc:$(cat out)" "0:installed '$TREE': cuDNN 9.1.0.70, CUDA 12.2, Linux x86_64, 8.1 MB
  location: $CUDNNENV_ROOT/$TREE
  library:  $CUDNNENV_ROOT/$TREE/lib/libcudnn.so.9
  source:   site index $WORK/file-index.tsv: $ARCHIVE" "install from a site index's file:// URL ($(cat err))"
run remove "$TREE" --yes && run cache clean
sed "s|\t$URL_DIR/$ARCHIVE\$|\tfile://$WORK/nowhere/$ARCHIVE|" index.tsv > gone-index.tsv
CUDNNENV_INDEX="$WORK/gone-index.tsv" run install 9.1 --cuda 12 --quiet
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: '$WORK/nowhere/$ARCHIVE', where the site index $WORK/gone-index.tsv puts $ARCHIVE, does not exist
  hint: put it there, or correct the index's URL" "a site index's file:// URL to nothing"
pass "a site index's file:// URL: installed from it, recorded as the site index's; a missing file named"

# 18. A machine without libcurl: cudnnenv-fetch loads it at run time, so it starts there and says what works
# instead (as root, libcurl.so.4 hidden by /dev/null bound over it in a mount namespace of the run's own).
libcurl=$(/sbin/ldconfig -p | awk '/libcurl\.so\.4 .*x86-64/ {print $NF; exit}')
if [ "$(id -u)" = 0 ] && [ -n "$libcurl" ] && unshare -m true 2> /dev/null; then
  run remove "$TREE" --yes && run cache clean
  unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$libcurl" \
    "$CUDNNENV" install 9.1 --cuda 12 --quiet > out 2> err < /dev/null && rc=0 || rc=$?
  expect_eq "$rc:$(cat err)" "1:cudnnenv: error: cannot download '$URL_DIR/$ARCHIVE': this machine has no libcurl, which cudnnenv downloads with ($libcurl: file too short)
  hint: install libcurl (Debian, Ubuntu: apt install libcurl4; RHEL, Fedora: dnf install libcurl); or fill a mirror folder where there is a network (cudnnenv mirror create DIR VERSION) and use it here with --mirror DIR; or download $URL_DIR/$ARCHIVE elsewhere and run: cudnnenv install ./$ARCHIVE" "no libcurl"
  pass "no libcurl: the download says so and names the ways that work without it"
else
  echo "skipped: no libcurl case (needs root and unshare -m)"
fi
