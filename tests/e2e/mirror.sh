#!/usr/bin/env bash
# Offline mirrors made by cudnnenv (issue 43): a project locked for Linux and
# Windows; `mirror create --lock` fills a folder in NVIDIA's layout from the
# test's server (as an upstream mirror), with an index; with the server
# stopped and every connection refused, `sync --mirror FOLDER` on a second
# store (a fresh HOME) installs the same bytes as the first machine's sync
# from the server, and `install VERSION --mirror FOLDER` works too; a second
# create fetches nothing; `mirror verify` finds a changed file, and the
# create its hint names puts it right. A hostile index is refused. A site's
# own index (URLs on its own host) goes through a mirror the same way.
# The Windows half of the lock is synced under Wine in wine_lock.sh.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/download_lib.sh"
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_VERIFY CUDNNENV_ACTIVATED CUDNNENV_MIRROR
unset HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy
[ -f "$FIXTURES/fake-pe64-9.1.0.dll" ] || { echo "skip: no PE fixtures (no mingw-w64 here)"; exit 77; }

# human_size BYTES: as cudnnenv prints sizes (util/text.cpp).
human_size() {
  awk -v b="$1" 'BEGIN { split("B kB MB GB TB", u, " "); v = b; i = 1
    while (v >= 1000 && i < 5) { v /= 1000; i++ }
    if (i == 1) printf "%d B", b; else if (v < 10) printf "%.1f %s", v, u[i]; else printf "%.0f %s", v, u[i] }'
}

linux=cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
windows=cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip
ldir=compute/cudnn/redist/cudnn/linux-x86_64
wdir=compute/cudnn/redist/cudnn/windows-x86_64
mkdir srv  # the server answers any path by its file name: NVIDIA's paths too
make_linux_tree "${linux%.tar.xz}" 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
tar -cJf "srv/$linux" "${linux%.tar.xz}"
make_windows9_tree "${windows%.zip}" "$FIXTURES/fake-pe64-9.1.0.dll" 9.1.0
zip -q -r "srv/$windows" "${windows%.zip}"
write_index "linux-x86_64:$ldir/$linux" "windows-x86_64:$wdir/$windows"
export CUDNNENV_INDEX="$WORK/index.tsv"
total=$(human_size $(($(stat -c %s "srv/$linux") + $(stat -c %s "srv/$windows"))))

mkdir project
printf 'cudnn = "9.1"\ncuda = "12"\n\n[lock]\nplatforms = ["linux-x86_64", "windows-x86_64"]\n' > project/.cudnnenv.toml
cd project
run lock
expect_eq "$rc:$(cat out)" "0:wrote $WORK/project/cudnnenv.lock
  linux-x86_64    cuDNN 9.1.0.70 (cuda12)  $linux
  windows-x86_64  cuDNN 9.1.0.70 (cuda12)  $windows" "lock for two platforms: $(cat err)"
cd "$WORK"

start_server upstream
UPSTREAM=http://127.0.0.1:$PORT
run mirror create "$WORK/mirror" --lock project/cudnnenv.lock --from "$UPSTREAM" -q
created="mirror $WORK/mirror: 2 fetched, 0 already there; 2 files, $total
  $ldir/$linux
  $wdir/$windows
on a machine with no network: cudnnenv sync --mirror \"$WORK/mirror\"  (or cudnnenv install VERSION --mirror \"$WORK/mirror\")"
expect_eq "$rc:$(cat out)" "0:$created" "mirror create --lock: $(cat err)"
expect_eq "$(sort upstream.log)" "GET /$ldir/$linux range=- 200
GET /$wdir/$windows range=- 200" "one request per archive, at NVIDIA's path"
cmp "mirror/$ldir/$linux" "srv/$linux" && cmp "mirror/$wdir/$windows" "srv/$windows" ||
  fail "the mirror holds other bytes than the server sent"
expect_eq "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["format"], [(f["path"], f["what"]) for f in d["files"]])' mirror/cudnnenv-mirror.json)" \
  "1 [('$ldir/$linux', 'cuDNN 9.1.0.70 (cuda12) for linux-x86_64'), ('$wdir/$windows', 'cuDNN 9.1.0.70 (cuda12) for windows-x86_64')]" \
  "the index names each file"
expect_eq "$(cd mirror && find . -name '.*' ! -name . | sort)" "" "no lock or part files left in the mirror"
pass "mirror create --lock: every platform's archive at NVIDIA's path, checked, with an index"

# The first machine syncs from the server itself; then the server stops and nothing can be reached.
cd project
run sync --mirror "$UPSTREAM" -q
expect_eq "$rc" "0" "sync from the server: $(cat err)"
first=$(head -1 out)
stop_servers
export https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9
mkdir "$WORK/home2"
HOME="$WORK/home2" CUDNNENV_ROOT="$WORK/store2" CUDNNENV_STATE_DIR="$WORK/state2" run sync --mirror "$WORK/mirror" -q
expect_eq "$rc:$(head -1 out)" "0:$first" "sync on a fresh HOME from the mirror, no network: $(cat err)"
cd "$WORK"
hashes() { sed -n 's/^sha256 = //p' "$1/9.1.0.70-cuda12/.cudnnenv/tree.toml"; }
expect_eq "$(hashes "$WORK/store2")" "$(hashes "$WORK/store")" "the same archive and files, hash by hash"
locked=$(awk '/platform = "linux-x86_64"/ { f = 1 } f && /^sha256/ { gsub(/"/, "", $3); print $3; exit }' project/cudnnenv.lock)
grep -qx "sha256 = .$locked." "$WORK/store2/9.1.0.70-cuda12/.cudnnenv/tree.toml" || fail "the tree's record does not name the locked archive $locked"
mkdir home3
HOME="$WORK/home3" CUDNNENV_ROOT="$WORK/store3" CUDNNENV_STATE_DIR="$WORK/state3" run install 9.1 --cuda 12 --mirror "$WORK/mirror" -q
expect_eq "$rc" "0" "install 9.1 from the mirror, no network: $(cat err)"
pass "with the server stopped: sync and install from the mirror on fresh stores, the same bytes as from the server"

run mirror create "$WORK/mirror" --lock project/cudnnenv.lock -q
expect_eq "$rc:$(head -1 out)" "0:mirror $WORK/mirror: 0 fetched, 2 already there; 2 files, $total" "a second create: $(cat err)"
run mirror verify "$WORK/mirror"
expect_eq "$rc:$(cat out)" "0:ok        $ldir/$linux
ok        $wdir/$windows
2 files: all match the index" "mirror verify: $(cat err)"
run mirror verify "$WORK/mirror" --json
expect_eq "$rc:$(python3 -c 'import json; d = json.load(open("out")); print(d["ok"], [(f["path"].split("/")[-1], f["ok"], f["problem"]) for f in d["files"]])')" \
  "0:True [('$linux', True, None), ('$windows', True, None)]" "mirror verify --json"
run mirror create "$WORK/mirror" --json -q
expect_eq "$rc:$(python3 -c 'import json; d = json.load(open("out")); print(d["fetched"], d["already_there"], len(d["files"]), d["index"])')" \
  "0:0 2 2 $WORK/mirror/cudnnenv-mirror.json" "mirror create --json, from the index alone"
pass "a second create fetches nothing; mirror verify checks every file"

# One byte changed in the Windows archive: verify names it; the create its hint names fetches it again.
size=$(stat -c %s "mirror/$wdir/$windows")
printf 'X' | dd of="mirror/$wdir/$windows" bs=1 seek=$((size / 2)) conv=notrunc status=none
bad=$(sha256sum "mirror/$wdir/$windows" | cut -d' ' -f1)
good=$(sha256sum "srv/$windows" | cut -d' ' -f1)
run mirror verify "$WORK/mirror"
expect_eq "$rc:$(cat out)" "1:ok        $ldir/$linux
FAILED    $wdir/$windows: its SHA-256 is $bad, the index says $good" "verify of a changed file"
expect_eq "$(cat err)" "cudnnenv: error: 1 of 2 files in '$WORK/mirror' does not match its index
  hint: cudnnenv mirror create \"$WORK/mirror\"  (fetches again what the index names, replacing what is wrong)" "its message"
unset https_proxy http_proxy
start_server again
run mirror create "$WORK/mirror" --from "http://127.0.0.1:$PORT" -q
expect_eq "$rc:$(head -1 out)" "0:mirror $WORK/mirror: 1 fetched, 1 already there; 2 files, $total" "the hint's create: $(cat err)"
expect_eq "$(cat again.log)" "GET /$wdir/$windows range=- 200" "only the changed file fetched again"
run mirror verify "$WORK/mirror"
expect_eq "$rc:$(tail -1 out)" "0:2 files: all match the index" "verify after the repair"
pass "mirror verify names a changed file; 'mirror create FOLDER' fetches it again from what the index names"

# Two creates into one folder at once, one platform each (five rounds): one writer of the index at a time, what
# the other added read back, so no entry is lost. A file the index does not list: verify names it and fails,
# and the create that fetched it, run again, indexes it fetching nothing.
for round in 1 2 3 4 5; do
  rm -rf par
  creates=()
  for platform in linux-x86_64 windows-x86_64; do
    "$CUDNNENV" mirror create "$WORK/par" --lock project/cudnnenv.lock --platform "$platform" \
      --from "http://127.0.0.1:$PORT" -q > "par-$platform.out" 2>&1 &
    creates+=($!)
  done
  wait "${creates[@]}"  # not the server, a job of this shell too
  run mirror verify "$WORK/par"
  expect_eq "$rc:$(tail -1 out)" "0:2 files: all match the index" "round $round of two creates at once: $(cat par-*.out err)"
done
expect_eq "$(cd par && find . -name '*.lock' | wc -l)" "0" "no lock file in the mirror"
python3 -c 'import json, sys
index = json.load(open(sys.argv[1]))
index["files"] = [f for f in index["files"] if "windows" not in f["path"]]
json.dump(index, open(sys.argv[1], "w"))' par/cudnnenv-mirror.json
run mirror verify "$WORK/par"
expect_eq "$rc:$(cat out)" "1:ok        $ldir/$linux
UNLISTED  $wdir/$windows: in the folder, not in the index" "verify of a file the index lost"
expect_eq "$(cat err)" "cudnnenv: error: 1 file in '$WORK/par' is not in its index (1 file match it): a sync from it cannot find that file
  hint: run the 'cudnnenv mirror create \"$WORK/par\" ...' that fetched them again: it indexes what is already there, checked, fetching nothing" "its message"
run mirror create "$WORK/par" --lock project/cudnnenv.lock --platform windows-x86_64 -q
expect_eq "$rc:$(head -1 out)" "0:mirror $WORK/par: 0 fetched, 1 already there; 2 files, $total" "the create again: $(cat err)"
run mirror verify "$WORK/par"
expect_eq "$rc:$(tail -1 out)" "0:2 files: all match the index" "verify after the create again"
pass "two mirror creates into one folder at once keep both entries (5 rounds); verify names a file the index lost"

# The index comes with the folder: untrusted. A path out of the folder, or an archive no official list has.
mkdir hostile
printf '{"format": 1, "files": [{"path": "../../etc/passwd", "size": 1, "sha256": "%064d"}]}' 0 > hostile/cudnnenv-mirror.json
run mirror verify hostile
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: 'hostile/cudnnenv-mirror.json', file 1: the path '../../etc/passwd' is not a plain relative path
  hint: make the mirror again with 'cudnnenv mirror create' (it writes the index)" "an index naming a path out of the mirror"
printf '{"format": 1, "files": [{"path": "x/evil.tar.xz", "size": 1, "sha256": "%064d"}]}' 0 > hostile/cudnnenv-mirror.json
run mirror create hostile -q
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: the mirror's index names 'x/evil.tar.xz', which is no official archive of that SHA-256
  hint: remove it from the folder and its index, or create the mirror afresh in another folder" "an index naming no official archive"
pass "a hostile index is refused, naming the entry"

# A site's own index (issue 62): its URLs name the site's host, not NVIDIA's. The mirror replaces that host as it
# does NVIDIA's: `mirror create --from` fetches each file at its path from the upstream mirror, and `sync --mirror`
# with no network installs from the folder, never trying the site's host.
stop_servers
unset https_proxy http_proxy
printf 'cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n9.1.0.70\tlinux-x86_64\tcuda12\t%s\t%s\t%s\thttps://cudnn.site.example/pub/cudnn/%s\n' \
  "$linux" "$(sha256sum "srv/$linux" | cut -d' ' -f1)" "$(stat -c %s "srv/$linux")" "$linux" > site-index.tsv
export CUDNNENV_INDEX="$WORK/site-index.tsv"
mkdir site-project
printf 'cudnn = "9.1"\ncuda = "12"\n\n[lock]\nplatforms = ["linux-x86_64"]\n' > site-project/.cudnnenv.toml
cd site-project
run lock
expect_eq "$rc" "0" "lock from the site's index: $(cat err)"
cd "$WORK"
start_server site
run mirror create "$WORK/site-mirror" --lock site-project/cudnnenv.lock --from "http://127.0.0.1:$PORT" -q
expect_eq "$rc:$(head -2 out)" "0:mirror $WORK/site-mirror: 1 fetched, 0 already there; 1 file, $(human_size "$(stat -c %s "srv/$linux")")
  pub/cudnn/$linux" "mirror create from the site's index: $(cat err)"
expect_eq "$(cat site.log)" "GET /pub/cudnn/$linux range=- 200" "fetched at the site URL's path, from the upstream mirror"
expect_eq "$(cd site-mirror && find . -type f | sort)" "./cudnnenv-mirror.json
./pub/cudnn/$linux" "the site mirror holds the archive and its index, nothing else"
stop_servers
export https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9
run mirror verify "$WORK/site-mirror"
expect_eq "$rc:$(tail -1 out)" "0:1 file: all match the index" "mirror verify of the site mirror"
mkdir home4
cd site-project
HOME="$WORK/home4" CUDNNENV_ROOT="$WORK/store4" CUDNNENV_STATE_DIR="$WORK/state4" run sync --mirror "$WORK/site-mirror" -q
expect_eq "$rc" "0" "sync --mirror from the site mirror, no network: $(cat err)"
cd "$WORK"
expect_eq "$(hashes "$WORK/store4")" "$(hashes "$WORK/store")" "the same archive and files as the first machine's"
pass "a site index's host is replaced by the mirror: create fetches at its path, sync installs offline from the folder"
