#!/usr/bin/env bash
# A tree survives a power cut (issue 29): before the rename that makes a tree
# visible, every file and folder of it is on disk (fsync(2) of each, the record
# written and synced first), and after the rename the store's folder is synced,
# so a listed tree never holds empty or short files. Shown with strace: the
# order of those calls in `install` from a folder and from a .tar.xz.
# e2e_power_cut shows the outcome, with power cuts on a file system that keeps
# only synced bytes. Windows' FlushFileBuffers on each file is the same walk
# (Wine maps it to fsync).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
command -v strace > /dev/null || { echo "skip: no strace"; exit 77; }
# Under the sanitize preset: LeakSanitizer cannot run under ptrace (strace), so leaks are not checked here.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export CUDNNENV_ROOT="$WORK/store"
make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
# install ARGS with NAME: the fsync and rename calls, descriptors as their paths, in order.
traced_install() {
  strace -f -y -e trace=fsync,rename -o trace.txt "$CUDNNENV" "$@" > out 2> err || fail "$*: $(cat err)"
  sed -E 's/^[0-9]+ +//; s/\(([0-9]+)</(</' trace.txt > calls.txt
}
# check_published NAME: every file and folder of the tree fsynced before the
# rename that publishes it, the store's folder right after.
check_published() {
  local name=$1 staged="$CUDNNENV_ROOT/.cudnnenv/staging/$1/content" rename_at
  rename_at=$(grep -n "^rename(\"$staged\", \"$CUDNNENV_ROOT/$name\") = 0" calls.txt | cut -d: -f1)
  [ -n "$rename_at" ] || fail "$name: no rename of the staged tree: $(cat calls.txt)"
  local synced expected
  synced=$(head -n "$rename_at" calls.txt | grep -E '^fsync\(<' | grep -v '\.tmp' |
    sed -nE "s|^fsync\(<$staged(/[^>]*)?>\) = 0$|.\1|p" | sort -u)
  expected=$(cd "$CUDNNENV_ROOT/$name" && find . \( -type f -o -type d \) | sort)
  expect_eq "$synced" "$expected" "$name: what was synced before the rename"
  expect_eq "$(sed -n "$((rename_at + 1))p" calls.txt)" "fsync(<$CUDNNENV_ROOT>) = 0" "$name: the store's folder after"
}
traced_install install t91 --name t1
check_published t1
tar -C t91 -cJf t91.tar.xz .
traced_install install t91.tar.xz --name t2
check_published t2
# The record is written (and fsynced) before the walk: the walk covers it too.
record_line=$(grep -n 'fsync(<.*tree.toml.tmp' calls.txt | head -1 | cut -d: -f1)
first_walk=$(grep -n "fsync(<$CUDNNENV_ROOT/.cudnnenv/staging/t2/content/include" calls.txt | head -1 | cut -d: -f1)
[ -n "$record_line" ] && [ -n "$first_walk" ] && [ "$record_line" -lt "$first_walk" ] ||
  fail "the record after the tree's sync: $(cat calls.txt)"
pass "a tree is on disk before the rename that publishes it, and the store's folder after"

# The store's folder deleted while an install runs (issue 29): held at the
# rename that publishes the tree (the second: the record's is the first;
# strace delays it), the folder is removed; the
# install says so, nothing is published, and the folder is not made again.
root2="$WORK/store two"
mkdir -p "$root2"
CUDNNENV_ROOT="$root2" strace -f -o /dev/null -e trace=rename -e inject=rename:delay_enter=4000000:when=2 \
  "$CUDNNENV" install t91 --name t3 > out3 2> err3 &
installer=$!
for _ in $(seq 200); do  # up to 10 s on a loaded machine
  [ -e "$root2/.cudnnenv/staging/t3/content/.cudnnenv/tree.toml" ] && break
  sleep 0.05
done
# The record is renamed into place before the staged tree's sync walk, which must not meet the deletion (it
# would fail with "cannot list"): it takes milliseconds, under the sanitizers too; the publishing rename
# waits 4 s.
sleep 1.5
rm -rf "$root2"
rc=0; wait $installer || rc=$?
expect_eq "$rc:$(cat err3)" "1:cudnnenv: error: the store's folder '$root2' was removed while this install ran: nothing was installed (the step that failed: cannot move '$root2/.cudnnenv/staging/t3/content' to '$root2/t3': No such file or directory)
  hint: create the folder again (or give another --root), then run this again" "install into a store deleted meanwhile"
[ ! -e "$root2" ] || fail "the deleted store's folder was made again: $(find "$root2")"
pass "a store deleted during an install: the install says so and publishes nothing"
