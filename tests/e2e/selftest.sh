#!/usr/bin/env bash
# cudnnenv selftest (issue 27), Linux: every case holds with the pin, every
# case fails without it (the test-only CUDNNENV_SELFTEST_UNPINNED=1: the
# loader started directly, the stray copy first on LD_LIBRARY_PATH, so the
# selftest can see a failure and exits 4), the scripts `profile generate`
# writes and the hooks `export conda` writes sourced in each shell, --only
# and --keep, and nothing is
# left behind: the temporary folder, the user's store and environment.
# The .deb's installed files run it too (e2e_package); Windows: e2e_wine_selftest.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
# A temporary folder without a space (this test's folder has one): exec --mode preload's case needs one.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-selftest-e2e-XXXXXX")
export TMPDIR
case "$TMPDIR" in *" "*) fail "the temporary folder '$TMPDIR' has a space: set TMPDIR" ;; esac
trap 'status=$?; rm -rf "$TMPDIR"; (exit $status); cleanup' EXIT
export CUDNNENV_ROOT="$WORK/user store"
make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install t91 --name mine
[ "$rc" = 0 ] || fail "install: $(cat err)"
before=$(cd "$CUDNNENV_ROOT" && find . | sort)
shells=""
shells_line=""   # the table's second line: each shell found and its version
for shell in bash zsh fish; do
  command -v "$shell" > /dev/null || continue
  shells="$shells $shell"
  shells_line="$shells_line${shells_line:+; }$shell: $("$shell" --version | head -1)"
done
header="cudnnenv selftest: $(uname -s) $(uname -r) $(uname -m)
shells: ${shells_line:-none found}"

run selftest --json
[ "$rc" = 0 ] || fail "selftest: $(cat out) $(cat err)"
expected="exec-audit held 9.90.1 (the pinned tree)
exec-cudnn8 held 8.1.90 (the pinned tree)
exec-preload held 9.90.1 (the pinned tree)
exec-path held 9.90.1 (the pinned tree)
exec-absolute held 9.90.1 (the pinned tree)
exec-rpath held 9.90.1 (the pinned tree)
exec-runpath held 9.90.1 (the pinned tree)
shim held 9.90.1 (the pinned tree)
shim-cached held 9.90.1 (the pinned tree)
bundle-refused held nothing: cudnnenv: error: the tree 'bundle' is incomplete: 'lib/libcudnn_engines_tensor_ir.so.9.90.1' and 1 more missing or changed since it was installed
bundle-fenced held 9.90.1 (the bundle's release), then libcudnn_engines_tensor_ir.so.9 not loaded
bundle-healed held 9.90.1 (the bundle's release), then 9.90.1 (the bundle's release)"
for shell in $shells; do expected="$expected
activate-$shell held 9.90.1 (the pinned tree)
profile-$shell held 9.90.1 (the pinned tree)
conda-$shell held 9.90.1 (the pinned tree)"; done
expect_eq "$(selftest_statuses < out)" "$expected" "selftest --json, every case"
expect_eq "$(json_field passed < out):$(json_field store < out)" "true:null" "passed, and no store kept"
# Each names the file that loaded: the pinned tree's (exec-preload's in the second store, of a plain path).
expect_eq "$(selftest_files < out)" "$(selftest_statuses < out | while read -r id rest; do
  case $id in
    exec-preload) echo "$id $TMPDIR/cudnnenv-selftest-N/store/pinned/lib/libcudnn.so.9.90.1" ;;
    exec-cudnn8) echo "$id $TMPDIR/cudnnenv selftest 库 & N/store/pinned-8/lib/libcudnn.so.8.1.90" ;;
    bundle-refused) echo "$id None" ;;
    bundle-fenced) echo "$id $TMPDIR/cudnnenv selftest 库 & N/bundle-store/bundle/lib/libcudnn.so.9" ;;
    bundle-healed) echo "$id $TMPDIR/cudnnenv selftest 库 & N/bundle-store/healed/lib/libcudnn.so.9" ;;
    *) echo "$id $TMPDIR/cudnnenv selftest 库 & N/store/pinned/lib/libcudnn.so.9.90.1" ;;
  esac; done)" \
  "selftest --json, the file each case loaded"
pass "selftest: every case held (shells here:$shells)"

CUDNNENV_SELFTEST_UNPINNED=1 run selftest --json
expect_eq "$rc" "4" "selftest without the pin exits 4"
# The bundle cases: the bundle's cuDNN (first on the program's path) and the stray sub-library.
expect_eq "$(selftest_statuses < out)" "$(echo "$expected" | sed -e 's/held 9.90.1 (the pinned tree)/failed 9.90.2 (the stray copy)/' \
  -e 's/held 8.1.90 (the pinned tree)/failed 8.1.91 (the stray copy)/' \
  -e 's/^\(bundle-[a-z]*\) held .*/\1 failed 9.90.1 (the bundle'"'"'s release), then 9.90.2 (the stray copy)/')" \
  "selftest without the pin: the stray copy loads in every case"
expect_eq "$(selftest_files < out | cut -d' ' -f2- | sort -u)" "$TMPDIR/cudnnenv selftest 库 & N/bundle/lib/libcudnn.so.9
$TMPDIR/cudnnenv selftest 库 & N/store/stray-8/lib/libcudnn.so.8.1.91
$TMPDIR/cudnnenv selftest 库 & N/store/stray/lib/libcudnn.so.9.90.2" \
  "selftest without the pin: each case names the stray copy's file (the bundle's cuDNN with the stray sub-library)"
CUDNNENV_SELFTEST_UNPINNED=1 run selftest --only exec-audit
sed -i 's/selftest 库 & [0-9]*-[0-9]*/selftest 库 \& N/' out
expect_eq "$rc:$(cat out)" "4:$header
failed     exec-audit: cudnnenv exec (audit module), the stray copy first on LD_LIBRARY_PATH
           expected 9.90.1 (the pinned tree), loaded 9.90.2 (the stray copy)
           from $TMPDIR/cudnnenv selftest 库 & N/store/stray/lib/libcudnn.so.9.90.2
           the program loaded another copy than the pinned tree's
a case failed: please attach 'cudnnenv selftest --json' to a bug report" "a failed case, as a person reads it"
pass "without the pin every case fails and selftest exits 4"

run selftest --only shim --keep
[ "$rc" = 0 ] || fail "selftest --only shim --keep: $(cat out)"
kept=$(sed -n 's/^the temporary store is kept: //p' out)
[ -n "$kept" ] && [ -d "$kept/pinned" ] && [ -d "$kept/stray" ] || fail "--keep: no store with the two trees: $(cat out)"
expect_eq "$(grep -c '^held' out)" "1" "--only runs one case"
# The loaders are what their cases say: run directly with the pinned tree on LD_LIBRARY_PATH, the one with
# DT_RPATH gets the stray copy (searched first), the one with DT_RUNPATH the pinned tree (searched after).
program="$(dirname "$kept")/program"
expect_eq "$(LD_LIBRARY_PATH="$kept/pinned/lib" "$program/cudnnenv-selftest-load-rpath")
$(LD_LIBRARY_PATH="$kept/pinned/lib" "$program/cudnnenv-selftest-load-runpath")" \
  "$(printf '99002\t%s\n99001\t%s' "$program/decoy-lib/libcudnn.so.9" "$kept/pinned/lib/libcudnn.so.9")" \
  "the DT_RPATH and DT_RUNPATH loaders, started directly: the version and the file each loaded"
rm -rf "$(dirname "$kept")"
# The profile's scripts and the conda hooks are the files `profile generate` and `export conda` write.
run selftest --only profile-bash --keep
kept=$(sed -n 's/^the temporary store is kept: //p' out)
expect_eq "$rc:$(cd "$kept/.cudnnenv/profiles/cudnnenv-selftest" && ls | tr '\n' ' ')" \
  "0:activate.bat activate.fish activate.ps1 activate.sh deactivate.bat deactivate.fish deactivate.ps1 deactivate.sh " \
  "selftest --only profile-bash --keep: the scripts profile generate wrote"
rm -rf "$(dirname "$kept")"
run selftest --only conda-zsh --keep
kept=$(sed -n 's/^the temporary store is kept: //p' out)
expect_eq "$rc:$(cd "$(dirname "$kept")/conda env/etc/conda" && ls activate.d deactivate.d | tr '\n' ' ')" \
  "0:activate.d: cudnnenv-activate.fish cudnnenv-activate.ps1 cudnnenv-activate.sh  deactivate.d: cudnnenv-deactivate.fish cudnnenv-deactivate.ps1 cudnnenv-deactivate.sh " \
  "selftest --only conda-zsh --keep: the hooks export conda wrote"
rm -rf "$(dirname "$kept")"

expect_eq "$(ls -A "$TMPDIR")" "" "nothing left in the temporary folder"
expect_eq "$(cd "$CUDNNENV_ROOT" && find . | sort)" "$before" "the user's store as it was"
run current --cudnn mine
[ "$rc" = 0 ] || fail "the user's store after selftest: $(cat err)"
pass "--only, --keep, and nothing left behind"

# exec --mode preload needs a store whose path has no space (LD_PRELOAD is split at spaces): in a temporary
# folder with one, the case cannot be shown and says why; the preload itself is refused, not passed on split.
mkdir -p "$WORK/tmp 2"
TMPDIR="$WORK/tmp 2" run selftest --only exec-preload
expect_eq "$rc:$(cat out)" "0:$header
unprovable exec-preload: cudnnenv exec --mode preload, the program's DT_RPATH naming the stray copy's folder (a store whose path has no space)
           expected 9.90.1 (the pinned tree), loaded nothing
           the temporary folder's path has a space, which LD_PRELOAD cannot hold (exec --mode preload refuses such a store)
every case held that can be shown here (1 cannot be: each says why)" "selftest --only exec-preload, a temporary folder with a space"
expect_eq "$(ls -A "$WORK/tmp 2")" "" "nothing left in that temporary folder"
run exec --cudnn mine --mode preload -- true
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: the tree's library '$CUDNNENV_ROOT/mine/lib/libcudnn.so.9' has a space, which LD_PRELOAD cannot hold
  hint: use --mode audit (the default), or a store (--root) whose path has no space" "exec --mode preload, a store with a space"
pass "exec --mode preload: a store path with a space refused, the case unprovable there"

# A temporary folder with a ':' (which LD_LIBRARY_PATH cannot hold, so exec and activate refuse its store):
# refused before anything is made there.
mkdir -p "$WORK/tmp:3"
TMPDIR="$WORK/tmp:3" run selftest
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: the temporary folder '$WORK/tmp:3' has a ':', which LD_LIBRARY_PATH cannot hold
  hint: run it with TMPDIR set to a folder without one" "selftest with a ':' in TMPDIR"
expect_eq "$(ls -A "$WORK/tmp:3")" "" "nothing made in that temporary folder"
pass "a temporary folder with a ':' refused before anything is made"

# A shared temporary folder where a co-user planted a folder at every name the run could pick when names
# were "<pid>-<n < 100,000>" (issue 39, item 2): in a pid namespace selftest is pid 1, so all 200,000 are
# planted. Its own folders are made fresh (mode 0700, a name that exists is never used), and every planted
# folder is left as it was: none used, none emptied or removed.
if [ "$(id -u)" = 0 ] && unshare -pf --mount-proc true 2> /dev/null; then
  planted="$WORK/shared tmp"
  mkdir -p "$planted"
  /usr/bin/python3 - "$planted" <<'PY'
import os, sys
root = sys.argv[1]
for n in range(100000):
    for prefix in ("cudnnenv selftest 库 & 1-", "cudnnenv-selftest-1-"):
        os.mkdir(os.path.join(root, prefix + str(n)))
PY
  chmod 1777 "$planted"
  run_program env TMPDIR="$planted" unshare -pf --mount-proc "$CUDNNENV" selftest --only exec-audit --keep
  expect_eq "$rc" "0" "selftest among planted folders: $(cat out err)"
  kept=$(sed -n 's/^the temporary store is kept: //p' out)
  work=$(dirname "$kept")
  case "$(basename "$work")" in
    "cudnnenv selftest 库 & 1-"*) ;;
    *) fail "the kept folder's name: $work" ;;
  esac
  expect_eq "$(stat -c %a "$work")" "700" "the selftest's own folder is this user's alone"
  rm -rf "$work"
  rm -rf "$planted"/cudnnenv-selftest-1-[0-9]*[0-9]-[0-9]*  # a plain folder of this run's, if kept
  expect_eq "$(find "$planted" -mindepth 1 -maxdepth 1 | wc -l)" "200000" "the planted folders are all there"
  expect_eq "$(find "$planted" -mindepth 2 | wc -l)" "0" "nothing was made in a planted folder"
  rm -rf "$planted"
  pass "a folder planted at every name of the old scheme: selftest makes its own, 0700, and leaves them alone"
else
  echo "skip: the planted-folders case needs root and a pid namespace (unshare -pf)"
fi
