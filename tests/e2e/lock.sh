#!/usr/bin/env bash
# The same bytes on every machine (issue 43): `cudnnenv lock` writes
# cudnnenv.lock beside .cudnnenv.toml from the official list (here a test
# index, CUDNNENV_INDEX, naming a fake 9.1.0.70 archive); `sync` installs
# exactly that archive from a mirror folder in NVIDIA's layout (no network:
# the index's URLs are NVIDIA's, never reached), again on a second store
# with the same bytes; `sync --locked` fails naming what changed in
# .cudnnenv.toml; with a newer tree that also matches, current, exec and a
# shim take the locked build, and with it removed say 'cudnnenv sync'. A
# lock naming an archive that is not official is refused.
# Not yet shown (see the issue): `mirror create`, which would make the
# mirror folder made by hand here, and a Windows lock synced under Wine.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_VERIFY CUDNNENV_ACTIVATED CUDNNENV_MIRROR

archive=cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
folder=compute/cudnn/redist/cudnn/linux-x86_64
make_linux_tree "${archive%.tar.xz}" 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
mkdir -p "mirror/$folder"
tar -cJf "mirror/$folder/$archive" "${archive%.tar.xz}"
sha=$(sha256sum "mirror/$folder/$archive" | cut -d' ' -f1)
size=$(stat -c %s "mirror/$folder/$archive")
url="https://developer.download.nvidia.com/$folder/$archive"
printf 'cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n9.1.0.70\tlinux-x86_64\tcuda12\t%s\t%s\t%s\t%s\n' \
  "$archive" "$sha" "$size" "$url" > index.tsv
export CUDNNENV_INDEX="$WORK/index.tsv"
# Nothing may reach a network: a proxy that refuses every connection.
export https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9

mkdir project && cd project
printf 'cudnn = "9.1"\ncuda = "12"\n' > .cudnnenv.toml
run lock
expect_eq "$rc:$(cat out)" "0:wrote $WORK/project/cudnnenv.lock
  linux-x86_64    cuDNN 9.1.0.70 (cuda12)  $archive" "lock: $(cat err)"
expect_eq "$(cat cudnnenv.lock)" "# cudnnenv.lock: written by 'cudnnenv lock' from .cudnnenv.toml; do not edit it by hand.
# 'cudnnenv sync' installs exactly these archives; commit this file beside .cudnnenv.toml.
format = 1

[input]
cudnn = \"9.1\"
cuda = \"12\"
platforms = [\"linux-x86_64\"]

[[cudnn]]
platform = \"linux-x86_64\"
version = \"9.1.0.70\"
cuda = \"cuda12\"
file = \"$archive\"
url = \"$url\"
size = $size
sha256 = \"$sha\"" "the lock, field by field"
run lock
expect_eq "$rc:$(head -1 out)" "0:up to date: $WORK/project/cudnnenv.lock" "lock again: nothing changed"
pass "lock: the archive .cudnnenv.toml resolves to, from the official list, with its URL, size and SHA-256"

# lock --check (as uv's and pixi's): exit 0 when current; exit 1 naming each difference when not, or when there
# is no lock; it writes nothing either way.
run lock --check
expect_eq "$rc:$(cat out)$(cat err)" "0:up to date: $WORK/project/cudnnenv.lock" "lock --check of a current lock"
cp cudnnenv.lock locked-before
printf 'cudnn = "9.1.0"\ncuda = "12"\n' > .cudnnenv.toml
run lock --check
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$WORK/project/cudnnenv.lock' is not what '$WORK/project/.cudnnenv.toml' locks to now: cudnn: the lock was made for \"9.1\", .cudnnenv.toml now says \"9.1.0\"
  hint: cudnnenv lock  (then commit cudnnenv.lock)" "lock --check after an edit"
cmp -s cudnnenv.lock locked-before || fail "lock --check changed the lock"
run lock --check --json
expect_eq "$rc:$(python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))' < out)" \
  "1:{\"differences\": [\"cudnn: the lock was made for \\\"9.1\\\", .cudnnenv.toml now says \\\"9.1.0\\\"\"], \"file\": \"$WORK/project/cudnnenv.lock\", \"up_to_date\": false}" \
  "lock --check --json"
printf 'cudnn = "9.1"\ncuda = "12"\n' > .cudnnenv.toml
mv cudnnenv.lock away.lock
run lock --check
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$WORK/project/cudnnenv.lock' is not what '$WORK/project/.cudnnenv.toml' locks to now: there is no cudnnenv.lock
  hint: cudnnenv lock  (then commit cudnnenv.lock)" "lock --check without a lock"
[ ! -e cudnnenv.lock ] || fail "lock --check wrote a lock"
mv away.lock cudnnenv.lock
pass "lock --check: exit 0 when current, 1 naming the difference or the missing lock, writing nothing"

run sync --mirror "$WORK/mirror" -q
expect_eq "$rc:$(head -1 out)" "0:installed '9.1.0.70-cuda12': cuDNN 9.1.0.70, CUDA 12.2, Linux x86_64, 122 kB" "sync: $(cat err)"
run sync --mirror "$WORK/mirror" -q
expect_eq "$rc:$(head -1 out)" "0:already installed '9.1.0.70-cuda12': cuDNN 9.1.0.70, CUDA 12.2, Linux x86_64, 122 kB" "sync again"
# A second machine: a fresh HOME and store, the same lock and mirror.
files() { sed -n 's/^sha256 = //p' "$1/.cudnnenv/tree.toml"; }
HOME="$WORK/home2" CUDNNENV_ROOT="$WORK/store2" CUDNNENV_STATE_DIR="$WORK/state2" run sync --mirror "$WORK/mirror" -q
expect_eq "$rc" "0" "sync on a second store: $(cat err)"
expect_eq "$(files "$WORK/store2/9.1.0.70-cuda12")" "$(files "$WORK/store/9.1.0.70-cuda12")" "the same archive and files, hash by hash"
[ -n "$(files "$WORK/store/9.1.0.70-cuda12")" ] || fail "the record holds no hashes"
pass "sync from a mirror folder with no network, on two stores: the same bytes"

printf 'cudnn = "9.2"\ncuda = "12"\n' > .cudnnenv.toml
run sync --locked --mirror "$WORK/mirror"
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$WORK/project/cudnnenv.lock' no longer matches '$WORK/project/.cudnnenv.toml': cudnn: the lock was made for \"9.1\", .cudnnenv.toml now says \"9.2\"
  hint: cudnnenv lock  (then commit cudnnenv.lock)" "sync --locked after an edit"
printf 'cudnn = "9.1"\ncuda = "12"\n' > .cudnnenv.toml
pass "sync --locked fails naming what .cudnnenv.toml changed"

# Another tree that matches "9.1", newer: the newest that fits without the lock; the locked build with it.
cd "$WORK"
make_linux_tree other 9.1.2 "$FIXTURES/fake-elf64-9.1.2.so"
run install ./other --name other912 -q
expect_eq "$rc" "0" "install of a 9.1.2 tree: $(cat err)"
cd project
mv cudnnenv.lock aside.lock
run current
expect_eq "$(cat out)" "9.1.2  other912  (set by $WORK/project/.cudnnenv.toml)" "without the lock: the newest 9.1"
mv aside.lock cudnnenv.lock
run current
expect_eq "$(cat out)" "9.1.0.70  9.1.0.70-cuda12  (set by $WORK/project/.cudnnenv.toml, the build $WORK/project/cudnnenv.lock names)" "current with the lock"
run exec -- printenv CUDNN_PATH
expect_eq "$rc:$(cat out)" "0:$CUDNNENV_ROOT/9.1.0.70-cuda12" "exec with the lock: $(cat err)"
run shim add printenv
expect_eq "$rc" "0" "shim add printenv: $(cat err)"
run_program "$CUDNNENV_STATE_DIR/shims/printenv" CUDNN_PATH
run_program "$CUDNNENV_STATE_DIR/shims/printenv" CUDNN_PATH  # the cached decision
expect_eq "$rc:$(cat out)" "0:$CUDNNENV_ROOT/9.1.0.70-cuda12" "the shim with the lock: $(cat err)"
mv cudnnenv.lock aside.lock
run_program "$CUDNNENV_STATE_DIR/shims/printenv" CUDNN_PATH
expect_eq "$rc:$(cat out)" "0:$CUDNNENV_ROOT/other912" "the shim once the lock is gone: a decision for the lock is not reused"
mv aside.lock cudnnenv.lock
cd "$WORK"
run remove 9.1.0.70-cuda12 --yes
expect_eq "$rc" "0" "remove of the locked tree: $(cat err)"
cd project
run current
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: the locked build, cuDNN 9.1.0.70 (cuda12, $archive), is not installed (set by $WORK/project/.cudnnenv.toml, the build $WORK/project/cudnnenv.lock names)
  hint: cudnnenv sync" "current with the locked tree removed"
pass "with a lock, current, exec and a shim take the locked build over a newer match; without it installed, 'cudnnenv sync'"

# A lock is untrusted input: an archive the official list does not have is refused; a broken lock names its line.
sed "s/^sha256 = .*/sha256 = \"$(printf '%064d' 0)\"/" cudnnenv.lock > hostile.lock && mv hostile.lock cudnnenv.lock
run sync --frozen --mirror "$WORK/mirror"
expect_eq "$rc:$(cat err)" "2:cudnnenv: error: the lock names $archive with SHA-256 $(printf '%064d' 0), which is no official archive
  hint: write the lock again with 'cudnnenv lock', or pass --allow-unverified to fetch it from $url as the lock says" "a lock naming no official archive"
printf 'format = 1\n[input]\nplatforms = ["linux-x86_64"]\n[[cudnn]]\nplatform = "linux-x86_64"\nversion = "9.1.0.70"\ncuda = "cuda12"\nfile = "../../etc/passwd"\n' > cudnnenv.lock
run sync --frozen
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: $WORK/project/cudnnenv.lock:8:8: '../../etc/passwd' is not an archive's file name
  hint: write it again with 'cudnnenv lock' (it is generated from .cudnnenv.toml)" "a lock whose file name is a path"
pass "a lock naming no official archive, or a path for a file name, is refused"
