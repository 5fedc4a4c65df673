#!/usr/bin/env bash
# The Linux launcher: a link named NAME to cudnnenv-shim, with NAME.shim
# beside it, starts the target with the same PID (execv), the tree's library
# folder first on LD_LIBRARY_PATH, every argument untouched, and the target's
# exit code.
SHIM=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"

mkdir -p shims "tree dir/lib"
cat > target.sh <<'SCRIPT'
#!/bin/sh
echo "pid=$$"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
for argument in "$@"; do printf '[%s]\n' "$argument"; done
exit 42
SCRIPT
chmod +x target.sh
ln -s "$SHIM" shims/show
printf '# test shim\npath = %s\nlibrary_dir = %s\n' "$WORK/target.sh" "$WORK/tree dir/lib" > shims/show.shim

set +e
LD_LIBRARY_PATH=/already/there ./shims/show "two words" "" 'quo"te' "'single'" '$HOME' '中文' > out &
pid=$!
wait $pid
rc=$?
set -e
expect_eq "$rc" "42" "exit code passed through"
expect_eq "$(sed -n 1p out)" "pid=$pid" "same PID (execv, no child)"
expect_eq "$(sed -n 2p out)" "LD_LIBRARY_PATH=$WORK/tree dir/lib:/already/there" "library folder first"
expect_eq "$(sed -n '3,$p' out)" "[two words]
[]
[quo\"te]
['single']
[\$HOME]
[中文]" "arguments untouched"
pass "launcher: same PID, exit code, LD_LIBRARY_PATH, arguments"

# Found through PATH, as 'python' would be.
PATH="$WORK/shims:$PATH" show x > out2 || true
expect_eq "$(sed -n 3p out2)" "[x]" "started through PATH"
pass "launcher found through PATH"

printf 'path = %s\ncolour = blue\n' "$WORK/target.sh" > shims/show.shim
set +e; ./shims/show 2> err; rc=$?; set -e
expect_eq "$rc" "127" "exit code for a bad sidecar"
grep -q "line 2: unknown key 'colour' (known: cudnnenv, root, state, audit, path, args, library_dir, cudnn, runtime, nccl, tensorrt)" err || fail "message: $(cat err)"
pass "a bad sidecar is named with its line"
