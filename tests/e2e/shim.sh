#!/usr/bin/env bash
# The Linux launcher: `cudnnenv shim add NAME` makes NAME a link to
# cudnnenv-shim with NAME.shim beside it; it starts the target with the same
# PID (execv), the selected tree's library folder first on LD_LIBRARY_PATH,
# every argument untouched, and the target's exit code: the first start
# through `cudnnenv exec` (which records its decision), the next from the
# decision alone. A sidecar naming a library folder of its own (library_dir,
# from before there was one start) is refused with the command that writes
# it again.
SHIM=$1   # build/release/bin/cudnnenv-shim; cudnnenv beside it
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
CUDNNENV=$(dirname "$SHIM")/cudnnenv
export CUDNNENV_ROOT="$WORK/store dir" CUDNNENV_VERIFY=none
unset CUDNNENV_STATE_DIR
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_SHELL

cat > target.sh <<'SCRIPT'
#!/bin/sh
echo "pid=$$"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
for argument in "$@"; do printf '[%s]\n' "$argument"; done
exit 42
SCRIPT
chmod +x target.sh
make_linux_tree tree 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install ./tree --name pinned > /dev/null && "$CUDNNENV" use --global pinned > /dev/null 2>&1 ||
  fail "install and select a tree"
"$CUDNNENV" shim add show --target "$WORK/target.sh" > /dev/null || fail "shim add"
shims=$CUDNNENV_ROOT/.cudnnenv/shims
[ -L "$shims/show" ] && [ "$(readlink -f "$shims/show")" = "$(readlink -f "$SHIM")" ] || fail "show is no link to $SHIM"

for start in first second; do  # through exec (the decision recorded), then from the decision
  set +e
  LD_LIBRARY_PATH=/already/there "$shims/show" "two words" "" 'quo"te' "'single'" '$HOME' '中文' > out &
  pid=$!
  wait $pid
  rc=$?
  set -e
  expect_eq "$rc" "42" "exit code passed through ($start start)"
  expect_eq "$(sed -n 1p out)" "pid=$pid" "same PID, execv, no child ($start start)"
  expect_eq "$(sed -n 2p out)" "LD_LIBRARY_PATH=$CUDNNENV_ROOT/pinned/lib:/already/there" \
    "the tree's library folder first ($start start)"
  expect_eq "$(sed -n '3,$p' out)" "[two words]
[]
[quo\"te]
['single']
[\$HOME]
[中文]" "arguments untouched ($start start)"
  [ -n "$(ls "$CUDNNENV_ROOT/.cudnnenv/cache/launch")" ] || fail "no decision recorded after the $start start"
done
pass "launcher: same PID, exit code, LD_LIBRARY_PATH, arguments; through exec, then the recorded decision"

# Found through PATH, as 'python' would be.
PATH="$shims:$PATH" show x > out2 || true
expect_eq "$(sed -n 3p out2)" "[x]" "started through PATH"
pass "launcher found through PATH"

cp "$shims/show.shim" show.shim.good
printf 'path = %s\ncolour = blue\n' "$WORK/target.sh" > "$shims/show.shim"
set +e; "$shims/show" 2> err; rc=$?; set -e
expect_eq "$rc:$(cat err)" "127:cudnnenv-shim: error: $shims/show.shim: line 2: unknown key 'colour' (known: cudnnenv, root, state, audit, path, args, cudnn, runtime, nccl, tensorrt)" \
  "a bad sidecar"
{ grep -v '^path' show.shim.good; printf 'library_dir = %s\n' "$CUDNNENV_ROOT/pinned/lib"; } > "$shims/show.shim"
set +e; "$shims/show" 2> err; rc=$?; set -e
expect_eq "$rc:$(cat err)" "127:cudnnenv-shim: error: $shims/show.shim: line 6: 'library_dir' is no longer read: a shim starts what 'cudnnenv exec' decides; write it again: cudnnenv shim add show" \
  "a sidecar with a library folder of its own"
"$CUDNNENV" shim add show --target "$WORK/target.sh" > /dev/null || fail "shim add again"
set +e; "$shims/show" > out; rc=$?; set -e
expect_eq "$rc:$(sed -n 2p out)" "42:LD_LIBRARY_PATH=$CUDNNENV_ROOT/pinned/lib" "the fix it names, then the shim"
pass "a bad sidecar is named with its line; an old fixed pin is refused with the command that writes it again"

# A state folder of its own (CUDNNENV_STATE_DIR) beside a store this user can write: said as it is.
CUDNNENV_STATE_DIR="$WORK/state" "$CUDNNENV" shim add other --target "$WORK/target.sh" > /dev/null 2> err ||
  fail "shim add with CUDNNENV_STATE_DIR"
expect_eq "$(cat err)" "cudnnenv: the shim is in your state folder $WORK/state (CUDNNENV_STATE_DIR), not in the store's" \
  "shim add with a state folder of its own"
pass "shim add names the state folder CUDNNENV_STATE_DIR chose, never claiming the store is not writable"
