#!/usr/bin/env bash
# Power cuts during and after `install` (issue 29), on a file system that
# loses what a real one may lose: tests/e2e/power_cut_fs.py (FUSE) puts every
# name on "disk" at once but a file's bytes only when that file is fsync'ed;
# killing it is the cut, and its backing folder is what the next boot sees.
# A listed tree must then verify at the files level (every file whole), or
# not be listed at all. The file system is shown to lose unsynced bytes first
# (so the test can fail): a file copied and renamed without a sync comes back
# empty. What this does not show: Windows (no FUSE under Wine; its
# FlushFileBuffers on each file is the same walk).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
[ -c /dev/fuse ] && [ -w /dev/fuse ] || { echo "skip: no /dev/fuse to write to"; exit 77; }
/usr/bin/python3 -c 'import fusepy' 2> /dev/null || { echo "skip: python3-fusepy is not installed"; exit 77; }
test_seed

disk="$WORK/disk"
mnt="$WORK/mnt"
server=
mount_fs() {
  mkdir -p "$disk" "$mnt"
  /usr/bin/python3 "$E2E_DIR/power_cut_fs.py" "$disk" "$mnt" 2> "$WORK/fs.log" &
  server=$!
  for _ in $(seq 100); do
    mountpoint -q "$mnt" && return
    sleep 0.05
  done
  echo "skip: the FUSE file system did not mount: $(cat "$WORK/fs.log")"
  exit 77
}
cut_power() {
  kill -9 "$server" 2> /dev/null || true
  wait "$server" 2> /dev/null || true
  umount -l "$mnt" 2> /dev/null || fusermount -uz "$mnt" 2> /dev/null || true
}
trap 'cut_power; cleanup' EXIT

make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
# 24 MB more in the tree, so that an install through this file system lasts long enough to be cut in.
head -c 24000000 /dev/urandom | cat "$FIXTURES/fake-elf64-9.1.0.so" - > t91/lib/libcudnn_engines_precompiled.so.9.1.0
tar -C t91 -cf t91.tar .

# The file system can fail this test: bytes never synced are gone after the cut.
mount_fs
printf 'sixteen bytes..\n' > "$mnt/plain.tmp" && mv "$mnt/plain.tmp" "$mnt/plain"
printf 'sixteen bytes..\n' > "$mnt/synced.tmp" && sync "$mnt/synced.tmp" && mv "$mnt/synced.tmp" "$mnt/synced"
expect_eq "$(cat "$mnt/plain")" "sixteen bytes.." "before the cut, programs see what they wrote"
cut_power
expect_eq "$(wc -c < "$disk/plain"):$(cat "$disk/synced")" "0:sixteen bytes.." "after the cut: the unsynced file empty, the synced one whole"
pass "the simulated cut keeps every name and only synced bytes"

# A cut right after install returned: the tree whole, from the folder and from the archive.
rm -rf "$disk"
mount_fs
CUDNNENV_ROOT="$mnt/store" run install t91 --name from-folder
[ "$rc" = 0 ] || fail "install from a folder: $(cat err)"
began=$(date +%s%N)
CUDNNENV_ROOT="$mnt/store" run install t91.tar --name from-archive
[ "$rc" = 0 ] || fail "install from a .tar: $(cat err)"
install_ms=$((($(date +%s%N) - began) / 1000000))
cut_power
CUDNNENV_ROOT="$disk/store" run list --json
[ "$rc" = 0 ] || fail "list after the cut: $(cat err)"
expect_eq "$(python3 -c 'import json; print(" ".join(sorted(t["name"] for t in json.load(open("out")))))')" \
  "from-archive from-folder" "the trees installed before the cut"
for tree in from-folder from-archive; do
  CUDNNENV_ROOT="$disk/store" run verify "$tree" --level files
  [ "$rc" = 0 ] || fail "verify $tree after the cut: $(cat out) $(cat err)"
done
pass "a cut right after install: both trees listed and whole (the install took $install_ms ms here)"

# Cuts at random moments of an install (within the time one took): what is listed afterwards is whole.
RANDOM=$seed
cuts=${POWER_CUT_ROUNDS:-8}
for round in $(seq "$cuts"); do
  rm -rf "$disk"
  mount_fs
  delay_ms=$((RANDOM % (install_ms + 1)))
  CUDNNENV_ROOT="$mnt/store" "$CUDNNENV" install t91.tar --name "cut$round" > /dev/null 2>&1 &
  installer=$!
  sleep "$((delay_ms / 1000)).$(printf '%03d' $((delay_ms % 1000)))"
  cut_power
  wait "$installer" 2> /dev/null || true
  [ -d "$disk/store" ] || continue
  CUDNNENV_ROOT="$disk/store" "$CUDNNENV" list --json > list.json 2> /dev/null || echo '[]' > list.json
  for tree in $(python3 -c 'import json; print(" ".join(t["name"] for t in json.load(open("list.json"))))'); do
    CUDNNENV_ROOT="$disk/store" "$CUDNNENV" verify "$tree" --level files > out 2>&1 ||
      fail "round $round (cut after ${delay_ms} ms, seed $seed): '$tree' is listed but not whole: $(cat out)"
  done
  listed=$(python3 -c 'import json; print(len(json.load(open("list.json"))))')
  echo "  round $round: cut after ${delay_ms} ms, $listed tree(s) listed, each whole"
done
pass "$cuts cuts at random moments of an install (seed $seed): a listed tree is always whole"
