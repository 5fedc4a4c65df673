#!/usr/bin/env bash
# A tree survives a power cut (issue 29): before the rename that makes a tree
# visible, every file of it is on disk (one syncfs(2) of the staging folder's
# file system, after the record's own fsync), and after the rename the
# store's folder is synced (fsync(2) of the folder), so a listed tree never
# holds empty or short files. Shown with strace: the order of those calls in
# `install` from a folder and from a .tar.xz. What
# this does not show: a real power cut (no crash-simulating file system is
# set up here); Windows' FlushFileBuffers on each file (Wine maps it to
# fsync; the order is the same code).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
command -v strace > /dev/null || { echo "skip: no strace"; exit 77; }
# Under the sanitize preset: LeakSanitizer cannot run under ptrace (strace), so leaks are not checked here.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export CUDNNENV_ROOT="$WORK/store"
make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
# The calls that put a tree on disk and publish it, in order, descriptors as FD.
durability_calls() {
  strace -f -y -e trace=syncfs,fsync,rename -o trace.txt "$CUDNNENV" "$@" > out 2> err || fail "$*: $(cat err)"
  sed -E 's/^[0-9]+ +//; s/\(([0-9]+)</(FD</' trace.txt |
    grep -E "^(syncfs|rename\(\"[^\"]*/staging/[^\"]*/content\"|fsync\(FD<$CUDNNENV_ROOT>\))" || true
}
expect_eq "$(durability_calls install t91 --name t1)" "syncfs(FD<$CUDNNENV_ROOT/.cudnnenv/staging/t1/content>) = 0
rename(\"$CUDNNENV_ROOT/.cudnnenv/staging/t1/content\", \"$CUDNNENV_ROOT/t1\") = 0
fsync(FD<$CUDNNENV_ROOT>) = 0" "install from a folder: the tree synced, renamed, the store's folder synced"
tar -C t91 -cJf t91.tar.xz .
expect_eq "$(durability_calls install t91.tar.xz --name t2)" "syncfs(FD<$CUDNNENV_ROOT/.cudnnenv/staging/t2/content>) = 0
rename(\"$CUDNNENV_ROOT/.cudnnenv/staging/t2/content\", \"$CUDNNENV_ROOT/t2\") = 0
fsync(FD<$CUDNNENV_ROOT>) = 0" "install from a .tar.xz"
# The record is written (and fsynced) before the tree is synced: it is part of what the syncfs covers.
record_line=$(grep -n 'fsync(.*tree.toml.tmp' trace.txt | head -1 | cut -d: -f1)
syncfs_line=$(grep -n 'syncfs(' trace.txt | head -1 | cut -d: -f1)
[ -n "$record_line" ] && [ "$record_line" -lt "$syncfs_line" ] || fail "the record after the tree's sync: $(cat trace.txt)"
pass "a tree is on disk before the rename that publishes it, and the store's folder after"

# The store's folder deleted while an install runs (issue 29): held at the sync
# before the rename (strace delays that call), the folder is removed; the
# install says so, nothing is published, and the folder is not made again.
root2="$WORK/store two"
mkdir -p "$root2"
CUDNNENV_ROOT="$root2" strace -f -o /dev/null -e trace=syncfs -e inject=syncfs:delay_enter=2000000 \
  "$CUDNNENV" install t91 --name t3 > out3 2> err3 &
installer=$!
for _ in $(seq 100); do
  [ -e "$root2/.cudnnenv/staging/t3/content/.cudnnenv/tree.toml" ] && break
  sleep 0.05
done
rm -rf "$root2"
rc=0; wait $installer || rc=$?
expect_eq "$rc:$(cat err3)" "1:cudnnenv: error: the store's folder '$root2' was removed while this install ran: nothing was installed (the step that failed: cannot move '$root2/.cudnnenv/staging/t3/content' to '$root2/t3': No such file or directory)
  hint: create the folder again (or give another --root), then run this again" "install into a store deleted meanwhile"
[ ! -e "$root2" ] || fail "the deleted store's folder was made again: $(find "$root2")"
pass "a store deleted during an install: the install says so and publishes nothing"
