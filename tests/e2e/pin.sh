#!/usr/bin/env bash
# Linux pinning, through `exec` and through a shim: a program that loads
# libcudnn.so.9 by name gets the pinned tree's (a fake 9.1.0) instead of the
# copy it would load on its own: this machine's real cuDNN when there is one
# (/usr/local/cuda-13.0/lib), else a fake 9.2.0 decoy on LD_LIBRARY_PATH. The
# same when the program has a DT_RPATH to the other copy, loads it by
# absolute path, or runs with LD_LIBRARY_PATH naming it. --report lists only
# tree files, or fails naming the outsider. Exit codes, signals, arguments
# and grandchildren.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
unset CUDNNENV_VERSION CUDNNENV_VERIFY


make_linux_tree pinned 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install pinned --name pinned > /dev/null
tree_lib=$(cd "$CUDNNENV_ROOT/pinned/lib" && pwd -P)

real=/usr/local/cuda-13.0/lib
if [ -e "$real/libcudnn.so.9" ] && "$FIXTURES/load-cudnn" "$real/libcudnn.so.9" > real.out 2>&1; then
  other="$real"
  other_version=$(cat real.out)
  echo "the other copy: this machine's real cuDNN in $other ($other_version)"
else
  make_linux_tree decoy 9.2.0 "$FIXTURES/fake-elf64-9.2.0.so"
  other="$WORK/decoy/lib"
  other_version=90200
  echo "no real cuDNN at $real: the other copy is a fake 9.2.0 in $other"
fi
cp "$FIXTURES/load-cudnn" "$FIXTURES/load-cudnn-rpath" .
ln -s "$other" decoy-lib   # load-cudnn-rpath's DT_RPATH is $ORIGIN/decoy-lib

# report_only_tree: the --report in err names tree files only, and the library.
report_only_tree() {
  grep -q "in the tree  $tree_lib/libcudnn.so.9.1.0" err || fail "$1: report lacks the tree's library: $(cat err)"
  if grep -q "OUTSIDE" err; then fail "$1: a file from outside the tree: $(cat err)"; fi
}

# 1. By name: the other copy on its own (ld.so cache or LD_LIBRARY_PATH), the tree's through exec.
run_program env LD_LIBRARY_PATH="$other" ./load-cudnn
expect_eq "$(cat out)" "$other_version" "by name, run directly"
run_program "$CUDNNENV" exec --cudnn pinned -- ./load-cudnn
expect_eq "$(cat out)" "90100" "by name, through exec ($(cat err))"
run_program "$CUDNNENV" exec --cudnn pinned --report -- ./load-cudnn
expect_eq "$rc" "0" "exec --report exit code ($(cat err))"
report_only_tree "by name"
pass "by name: $other_version directly, 90100 through exec; --report lists only the tree's files"

# 2. DT_RPATH to the other copy, which beats LD_LIBRARY_PATH.
run_program ./load-cudnn-rpath
expect_eq "$(cat out)" "$other_version" "with DT_RPATH, run directly"
run_program "$CUDNNENV" exec --cudnn pinned --report -- ./load-cudnn-rpath
expect_eq "$(cat out)" "90100" "with DT_RPATH, through exec ($(cat err))"
report_only_tree "DT_RPATH"
pass "DT_RPATH to another copy: still the tree's"

# 3. The other copy by absolute path (what JAX and PyTorch's fallback do).
run_program ./load-cudnn "$other/libcudnn.so.9"
expect_eq "$(cat out)" "$other_version" "absolute path, run directly"
run_program "$CUDNNENV" exec --cudnn pinned --report -- ./load-cudnn "$other/libcudnn.so.9"
expect_eq "$(cat out)" "90100" "absolute path, through exec ($(cat err))"
report_only_tree "absolute path"
# Without the audit module the absolute path wins, and the report says so.
run_program "$CUDNNENV" exec --cudnn pinned --mode path --report -- ./load-cudnn "$other/libcudnn.so.9"
expect_eq "$rc" "4" "--mode path --report with an outside copy"
grep -q "OUTSIDE      $(cd "$other" && pwd -P)/libcudnn.so" err || fail "the outside copy is not named: $(cat err)"
pass "absolute path to another copy: the tree's with the audit module; --mode path shows the outsider, exit 4"

# 3b. A foreign cuDNN under another name (issue 28, item 5), which no name
# rule redirects: --report knows it by what it is, names it OUTSIDE, exit 4.
printf '#include <stddef.h>\nsize_t cudnnGetVersion(void) { return 90200; }\n' > foreign.c
mkdir -p foreign
cc -shared -fPIC -Wl,-soname,libcudnn.so.9 -o foreign/libcudnn.so.9.2.0 foreign.c
ln -s libcudnn.so.9.2.0 foreign/libfoo.so                         # a link of another name
cp foreign/libcudnn.so.9.2.0 foreign/libbar.so.1                 # a renamed copy: its soname says cuDNN
cc -shared -fPIC -o foreign/libcudnn-0123abcd.so.9 foreign.c      # a wheel's hashed name, no soname
for name in libfoo.so libbar.so.1 libcudnn-0123abcd.so.9; do
  run_program "$CUDNNENV" exec --cudnn pinned --report -- ./load-cudnn "$WORK/foreign/$name"
  expect_eq "$rc:$(cat out)" "4:90200" "a foreign cuDNN loaded as $name"
  shown=$WORK/foreign/$name; [ "$name" = libfoo.so ] && shown=$WORK/foreign/libcudnn.so.9.2.0
  expect_eq "$(grep OUTSIDE err)" "  OUTSIDE      $shown" "--report names the foreign cuDNN loaded as $name"
done
# A child started with its environment cleared (env -i) runs without the audit
# module: the report cannot see it, and says which processes it follows.
run_program "$CUDNNENV" exec --cudnn pinned --report -- env -i "$WORK/load-cudnn" "$WORK/foreign/libbar.so.1"
expect_eq "$rc:$(cat out)" "0:90200" "a child with a cleared environment"
expect_eq "$(tail -2 err)" "  no cuDNN library was loaded
  hint: a process started without LD_AUDIT in its environment (env -i, or a program that gives its children an environment of its own) runs without cudnnenv's audit module: what it loads is neither pinned nor seen here; start it through 'cudnnenv exec' itself" "--report says what it cannot see"
pass "--report knows a foreign cuDNN by what it is (a link, a renamed copy, a wheel's hashed name) and says what it cannot see"

# 4. LD_LIBRARY_PATH already naming the other copy.
run_program env LD_LIBRARY_PATH="$other" "$CUDNNENV" exec --cudnn pinned --report -- ./load-cudnn
expect_eq "$(cat out)" "90100" "LD_LIBRARY_PATH set, through exec ($(cat err))"
report_only_tree "LD_LIBRARY_PATH"
pass "LD_LIBRARY_PATH naming another copy: still the tree's"

# 5. The other modes, and grandchildren.
# (LD_PRELOAD is split at spaces, and this test's folder has one, which exec refuses for preload: a store
# in a folder without one, removed here.)
plain=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-pin-XXXXXX")
case "$plain" in *" "*) fail "the temporary folder '$plain' has a space: set TMPDIR" ;; esac
CUDNNENV_ROOT="$plain/store" "$CUDNNENV" install pinned --name pinned > /dev/null
CUDNNENV_ROOT="$plain/store" run_program "$CUDNNENV" exec --cudnn pinned --mode preload -- ./load-cudnn
rm -rf "$plain"
expect_eq "$rc:$(cat out)" "0:90100" "--mode preload ($(cat err))"
run_program "$CUDNNENV" exec --cudnn pinned --mode preload -- ./load-cudnn
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: the tree's library '$CUDNNENV_ROOT/pinned/lib/libcudnn.so.9' has a space, which LD_PRELOAD cannot hold
  hint: use --mode audit (the default), or a store (--root) whose path has no space" "--mode preload, a store with a space"
run_program "$CUDNNENV" exec --cudnn pinned -- sh -c './load-cudnn-rpath; ./load-cudnn "$1"' sh "$other/libcudnn.so.9"
expect_eq "$(cat out)" "90100
90100" "children of the program"
pass "--mode preload pins a by-name load (a store path with a space refused); children of the program stay pinned"

# 6. Exit codes, signals, arguments: the program's own; same PID (execve).
run_program "$CUDNNENV" exec --cudnn pinned -- ./load-cudnn --exit 42
expect_eq "$rc" "42" "exit code"
run_program "$CUDNNENV" exec --cudnn pinned -- sh -c 'kill -TERM $$'
expect_eq "$rc" "143" "killed by SIGTERM"
run_program "$CUDNNENV" exec --cudnn pinned -- ./load-cudnn --args "two words" "" 'quo"te' "'s'" '$HOME' '中文' -- --cudnn
expect_eq "$(cat out)" "[two words][][quo\"te]['s'][\$HOME][中文][--][--cudnn]" "arguments"
set +e; "$CUDNNENV" exec --cudnn pinned -- sh -c 'echo $$' > out & pid=$!; wait $pid; set -e
expect_eq "$(cat out)" "$pid" "same PID"
pass "exit code 42, SIGTERM as 143, arguments untouched, same PID"

# 7. Where the pin cannot hold, exec says so before the start.
cp "$FIXTURES/load-cudnn-static" . && run_program "$CUDNNENV" exec --cudnn pinned -- ./load-cudnn-static --exit 0
grep -q "note: '.*load-cudnn-static' is statically linked" err || fail "no note for a static program: $(cat err)"
cp load-cudnn setuid-load && chmod u+s setuid-load && run_program "$CUDNNENV" exec --cudnn pinned -- ./setuid-load --exit 0
grep -q "is setuid or setgid: the loader ignores LD_AUDIT" err || fail "no note for a setuid program: $(cat err)"
pass "a static and a setuid program get a note"

# 8. The check before the start: a tree whose library was swapped for another
# release fails it with 4; --verify none starts anyway.
make_linux_tree swapped 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install swapped --name swapped > /dev/null
cp "$FIXTURES/fake-elf64-9.2.0.so" "$CUDNNENV_ROOT/swapped/lib/libcudnn.so.9.1.0"
run_program "$CUDNNENV" exec --cudnn swapped -- ./load-cudnn
expect_eq "$rc" "4" "launch check of a tree whose library now reports 9.2.0"
expect_eq "$(head -1 err)" "cudnnenv: error: the pin check failed: load: cudnnGetVersion() = 90200 (9.2.0), the tree says 9.1.0, from $CUDNNENV_ROOT/swapped/lib/libcudnn.so.9" "launch check message"
run_program "$CUDNNENV" exec --cudnn swapped --verify none -- ./load-cudnn
expect_eq "$(cat out)" "90200" "--verify none skips the check"
pass "the load check before the start refuses a swapped library (exit 4); --verify none skips it"

# 8b. The check covers the whole file set: with a sub-library deleted the main
# library still loads, and exec refuses with 4 (#11), list marks the tree, and
# which still names the main library, which is there.
make_linux_tree partial 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install partial --name partial > /dev/null
run_program "$CUDNNENV" exec --cudnn partial -- ./load-cudnn  # a pass, remembered
expect_eq "$rc" "0" "exec of the whole tree ($(cat err))"
rm "$CUDNNENV_ROOT/partial/lib/libcudnn_ops.so.9.1.0"
run_program "$CUDNNENV" exec --cudnn partial -- ./load-cudnn
expect_eq "$rc" "4" "exec of a tree without libcudnn_ops"
expect_eq "$(cat err)" "cudnnenv: error: the tree 'partial' is incomplete: 'lib/libcudnn_ops.so.9.1.0' and 1 more missing or changed since it was installed
  hint: see 'cudnnenv verify partial'; launch anyway with --verify none" "exec's message"
expect_eq "$(cat out)" "" "the program did not start"
run_program "$CUDNNENV" list
grep -q "^partial .* DAMAGED: 'lib/libcudnn_ops.so.9.1.0' and 1 more missing or changed$" out || fail "list: $(cat out)"
pass "a deleted sub-library: exec refuses (exit 4) though the pass was cached, list says DAMAGED"

# 9. Shims: the selection where the program runs, cached after the first start.
mkdir -p bin && cp "$FIXTURES/load-cudnn" bin/
"$CUDNNENV" use --global pinned > /dev/null
"$CUDNNENV" shim add load-cudnn > /dev/null
shims="$CUDNNENV_ROOT/.cudnnenv/shims"
export PATH="$shims:$WORK/bin:$PATH"
run_program load-cudnn
expect_eq "$(cat out)" "90100" "through the shim, first start ($(cat err))"
[ -n "$(ls "$CUDNNENV_ROOT/.cudnnenv/cache/launch")" ] || fail "the first start left no decision"
# The second start must not run cudnnenv: the sidecar now names a spy that
# leaves a mark and then runs the real cudnnenv.
printf '#!/bin/sh\ntouch "%s/spy-ran"\nexec "%s" "$@"\n' "$WORK" "$CUDNNENV" > spy && chmod +x spy
sed -i "s|^cudnnenv = .*|cudnnenv = $WORK/spy|" "$shims/load-cudnn.shim"
run_program load-cudnn
expect_eq "$(cat out)" "90100" "through the shim, second start"
[ ! -e spy-ran ] || fail "the second start ran cudnnenv: the cached decision was not used"
pass "through a shim: 90100; the second start runs only the shim and the program"

mkdir -p project/deep && adopt_out=$("$CUDNNENV" adopt "$other" --name other 2>&1) || fail "adopt: $adopt_out"
printf 'cudnn = "other"\n' > project/.cudnnenv.toml
(cd project/deep && run_program load-cudnn && expect_eq "$(cat out)" "$other_version" "the shim in a project selecting the other copy")
run_program load-cudnn
expect_eq "$(cat out)" "90100" "the shim outside the project again"
pass "the shim follows .cudnnenv.toml: $other_version in the project, 90100 outside"

# A sub-library deleted after a start was cached: the fast path sees the
# library folder changed and takes the slow path, whose check refuses (#11).
make_linux_tree shimmed 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install shimmed --name shimmed > /dev/null
"$CUDNNENV" use --global shimmed > /dev/null
run_program load-cudnn
expect_eq "$(cat out)" "90100" "through the shim, the whole tree ($(cat err))"
rm "$CUDNNENV_ROOT/shimmed/lib/libcudnn_cnn.so.9.1.0"
run_program load-cudnn
expect_eq "$rc" "4" "through the shim, a tree without libcudnn_cnn"
expect_eq "$(cat err)" "cudnnenv: error: the tree 'shimmed' is incomplete: 'lib/libcudnn_cnn.so.9.1.0' and 1 more missing or changed since it was installed
  hint: see 'cudnnenv verify shimmed'; launch anyway with --verify none" "the shim's message"
"$CUDNNENV" use --global pinned > /dev/null
pass "a shim whose cached tree lost a sub-library refuses (exit 4), as exec does"

rm bin/load-cudnn
run_program load-cudnn
expect_eq "$rc" "3" "a shim whose program is only in the shims folder"
grep -q "'load-cudnn' is found only in the shims folder: the shim would start itself" err || fail "loop message: $(cat err)"
pass "a shim never starts itself"
