#!/usr/bin/env bash
# What a user sees at the command line: one-line errors with a hint, exit
# codes (2 usage, 3 not found), nothing on stdout when a command fails,
# confirmation before remove.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"


run install "$WORK/missing.zip"
expect_eq "$rc" "3" "exit code for a missing archive"
expect_eq "$(cat err)" "cudnnenv: error: '$WORK/missing.zip' does not exist
  hint: pass an archive (.zip, .tar.xz, .whl) or a folder" "message for a missing archive"
expect_eq "$(cat out)" "" "stdout on error"
for name in missing.tar.gz missing.tgz missing.txz; do  # one list of archive suffixes: never read as a version
  run install "$name"
  expect_eq "$rc $(cat err)" "3 cudnnenv: error: '$name' does not exist
  hint: pass an archive (.zip, .tar.xz, .whl) or a folder" "a missing $name"
done
pass "missing archive"

run instal x
expect_eq "$rc" "2" "exit code for an unknown subcommand"
expect_eq "$(cat err)" "cudnnenv: error: 'instal' is not a cudnnenv command
  hint: did you mean 'cudnnenv install'?" "a misspelled subcommand"
run frobnicate
expect_eq "$(cat err)" "cudnnenv: error: 'frobnicate' is not a cudnnenv command
  hint: 'cudnnenv --help' lists them" "an unknown subcommand"
pass "typo in a subcommand: what it is not, and the closest command"

run
expect_eq "$rc" "0" "a bare cudnnenv: the help is what was asked for, exit 0"
"$CUDNNENV" --help > help.txt
expect_eq "$(cat out)" "$(cat help.txt)" "a bare cudnnenv prints the help"
expect_eq "$(cat err)" "" "a bare cudnnenv: nothing on stderr"
pass "a bare cudnnenv prints the help, exit 0"

# A version written as a tag or a package name: the version alone, in a hint that runs.
run install v9.19 --dry-run --cuda 13
expect_eq "$rc:$(cat err)" "2:cudnnenv: error: --facts and --dry-run go with a version ('v9.19' is none)
  hint: write the version alone: cudnnenv install 9.19 --dry-run" "install v9.19 --dry-run"
run install cudnn9
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: 'cudnn9' is neither a file nor a version
  hint: write the version alone: cudnnenv install 9" "install cudnn9"
run which --cudnn v9.1
expect_eq "$rc:$(cat err)" "3:cudnnenv: error: no installed cuDNN matches 'v9.1' (set by --cudnn)
  hint: write the version alone: 9.1" "which --cudnn v9.1"
run install 9.19+cuda13.0.0 --dry-run
expect_eq "$rc:$(cat out)" "0:would install cuDNN $(official_list linux-x86_64 9.19 | awk '$2 == 13 {print $1; exit}') for CUDA 13 (linux-x86_64) for this machine: $(official_list linux-x86_64 9.19 | awk '$2 == 13 {print $3; exit}')" \
  "install 9.19+cuda13.0.0: a full CUDA release accepted"
pass "v9.19, cudnn9: 'write the version alone' with the command; 9.19+cuda13.0.0 accepted"

printf 'not a zip at all\n' > broken.zip
run install broken.zip
expect_eq "$rc" "1" "exit code for a broken archive"
expect_eq "$(head -1 err)" "cudnnenv: error: 'broken.zip' is not a valid zip archive: no zip signature" "broken zip"
pass "broken archive"

run remove 9
expect_eq "$rc" "3" "exit code for removing what is not there"
grep -q "hint: the store is empty" err || fail "hint: $(cat err)"

make_linux_tree tree 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install tree --name "my tree"
expect_eq "$rc" "0" "install a folder"
echo n > no; STDIN=no run remove "my tree"
expect_eq "$rc" "1" "declined removal"
[ -d "$CUDNNENV_ROOT/my tree" ] || fail "declined removal removed the tree"
echo y > yes; STDIN=yes run remove 9.1
expect_eq "$rc" "0" "confirmed removal"
expect_eq "$(cat out)" "removed 'my tree'" "removal output"
[ ! -e "$CUDNNENV_ROOT/my tree" ] || fail "tree still there"
pass "remove asks first"

run list
expect_eq "$rc" "0" "list of an empty store"
expect_eq "$(cat out)" "" "stdout of an empty list"
run list --json
expect_eq "$(cat out)" "[]" "JSON of an empty list"
pass "empty list"

# verify's exit codes: 4 for a damaged tree, 5 for --level conv without a GPU.
run install tree --name "to verify"
run verify "to verify" --level conv
if [ "$rc" = "5" ]; then
  grep -q "skip  conv: no NVIDIA driver" out || fail "conv without a driver: $(cat out)"
  pass "verify --level conv without a GPU: exit 5, says why"
else
  echo "a GPU driver is present: the no-GPU exit code is not exercised here (rc=$rc)"
fi
truncate -s 100 "$CUDNNENV_ROOT/to verify/lib/libcudnn_graph.so.9.1.0"
run verify "to verify" --level load
expect_eq "$rc" "4" "verify of a truncated tree"
grep -q "FAIL  files: 'lib/libcudnn_graph.so.9.1.0' is 100 bytes, was " out || fail "verify: $(cat out)"
pass "verify names a truncated file and exits 4"
# verify --all ends with one line for the store.
make_linux_tree good 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install good --name good
run verify --all --level load
expect_eq "$rc" "4" "verify --all with a damaged tree"
expect_eq "$(tail -n 2 out)" "
2 trees: 1 failed ('to verify')" "verify --all's last line with a damaged tree"
run verify --all --level files --json
expect_eq "$(python3 -c 'import json; print(sorted((t["name"], t["passed"]) for t in json.load(open("out"))))')" \
  "[('good', True), ('to verify', False)]" "verify --all --json: no summary line"
run remove "to verify" --yes
run verify --all --level load
expect_eq "$(tail -n 1 out)" "1 tree: passed" "verify --all's last line for one tree that passes"
run install tree --name "to verify"
run verify --all --level load
expect_eq "$(tail -n 1 out)" "2 trees: all passed" "verify --all's last line when all pass"
run remove good --yes
pass "verify --all ends with one line: how many trees, and which failed"

# shim add of a program that is not on PATH: added, with a warning.
run shim add nosuch-program
expect_eq "$rc" "0" "shim add nosuch-program"
expect_eq "$(cat err)" "cudnnenv: warning: no 'nosuch-program' is on PATH yet (after the shims folder): the shim fails with exit code 127 until one is, or until it is given the program with --target" \
  "shim add of a program not on PATH"
run shim add sh
expect_eq "$(cat err)" "" "shim add of a program on PATH: no warning"
run shim remove nosuch-program
run shim remove sh
pass "shim add warns when no program of that name is on PATH yet"

make_linux_tree needs 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
cp "$FIXTURES/fake-elf64-9.1.0-needs-cublas.so" needs/lib/libcudnn_ops.so.9.1.0
run verify "$WORK/needs" --level load
expect_eq "$rc" "4" "verify of a tree whose sub-library needs a missing library"
grep -q "FAIL  sub-libraries: libcudnn_ops.so.9 needs libcublasLt.so.11: not in its folder, LD_LIBRARY_PATH" out ||
  fail "the missing library is not named: $(cat out)"
LD_LIBRARY_PATH="$FIXTURES/link-only" run verify "$WORK/needs" --level load
expect_eq "$rc" "0" "verify with the missing library on LD_LIBRARY_PATH ($(cat out))"
pass "verify names a sub-library's missing DT_NEEDED library, exit 4; passes once it is on LD_LIBRARY_PATH"

# Logging (#11): -v says which selection won and what the check before a start
# did; -vv every source and file looked at; CUDNNENV_LOG overrides both.
make_linux_tree logged 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install logged --name logged
run exec --cudnn logged -v -- true
expect_eq "$(cat err)" "cudnnenv: debug: selected 'logged' (set by --cudnn; spec 'logged')
cudnnenv: debug: pin check (load) of 'logged': not in the cache: checking" "exec -v, first start"
run -v exec --cudnn logged -- true
expect_eq "$(cat err)" "cudnnenv: debug: selected 'logged' (set by --cudnn; spec 'logged')
cudnnenv: debug: pin check (load) of 'logged': passed before, no file changed since (cache)" "-v before the subcommand, second start"
run exec --cudnn logged -vv -- true
expect_eq "$(grep -c "^cudnnenv: debug: pin check: '$CUDNNENV_ROOT/logged/.*' is [0-9]*:[0-9.]*$" err)" \
  "$(find "$CUDNNENV_ROOT/logged" -path '*/.cudnnenv' -prune -o \( -type f -o -type l \) -print | wc -l)" \
  "exec -vv: one line per file of the tree"
CUDNNENV_LOG=off run exec --cudnn logged -vv -- true
expect_eq "$(cat err)" "" "CUDNNENV_LOG=off"
CUDNNENV_LOG=loud run current --cudnn logged
expect_eq "$(head -1 err)" "cudnnenv: warning: CUDNNENV_LOG is 'loud': use trace, debug, info, warning, error or off" \
  "an unknown CUDNNENV_LOG"
pass "-v, -vv and CUDNNENV_LOG"

# Issue 14, first part: what could be installed here, from the embedded
# official list, compared with data/cudnn-archives.tsv read by the test.
run list --available 8.1 --json
expect_eq "$rc" "0" "list --available 8.1 --json ($(cat err))"
expect_eq "$(python3 -c '
import json, sys
for a in json.load(sys.stdin):
    print(a["version"], a["cuda"], a["file_name"])' < out)" "$(official_list linux-x86_64 8.1)" "list --available 8.1: the embedded list's 8.1 archives for Linux, newest first"
run list --available 8.1
expect_eq "$(head -1 out | tr -s ' ')" "VERSION CUDA SIZE INSTALLED ARCHIVE" "the table's header"
expect_eq "$(sed '1d;$d' out | awk '{print $1, $2, $NF}')" "$(official_list linux-x86_64 8.1)" "the table's rows"
expect_eq "$(tail -1 out)" "? = the list records no size for this archive (its SHA-256 still checks the download)" \
  "the footnote for the sizes the list does not record"
# 'logged' (cuDNN 9.1.0 for CUDA 12, from its library) is what the CUDA 12 archive of 9.1.0 would give.
run list --available 9.1.0 --json
expect_eq "$(python3 -c '
import json, sys
for a in json.load(sys.stdin):
    print(a["file_name"], a["installed"])' < out)" "$(official_list linux-x86_64 9.1.0 | awk '{print $3, ($2 ~ /^12/ ? "logged" : "None")}')" "installed: the tree each archive became"
run list --available 9.1.0 --cuda 11 --json
expect_eq "$(python3 -c 'import json, sys; print(" ".join(a["cuda"] for a in json.load(sys.stdin)))' < out)" \
  "$(official_list linux-x86_64 9.1.0 | awk '$2 ~ /^11/ {print $2}' | paste -sd' ')" "--cuda 11"
run list --available 8.77
expect_eq "$rc" "3" "list --available of a version NVIDIA never shipped"
expect_eq "$(cat err)" "cudnnenv: error: no official cuDNN archive for linux-x86_64 matches '8.77'
  hint: 'cudnnenv list --available' lists all $(official_list linux-x86_64 "" | wc -l) for linux-x86_64" "its message"
pass "list --available: the embedded official list for this platform, newest first, whole components, --cuda, installed"

# Colour (#15): on a terminal (under script) the check marks and "error:" are painted; none with
# NO_COLOR, none when piped, none in --json.
make_linux_tree colour-tree 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install colour-tree --name colour > /dev/null
script -qec "'$CUDNNENV' verify colour --level files; '$CUDNNENV' remove no-such-tree; true" /dev/null < /dev/null | tr -d '\r' > tty.txt
expect_eq "$(grep -c $'^\e\\[32m  ok    \e\\[0m' tty.txt)" "4" "green check marks on a terminal"
expect_eq "$(grep -c $'^\e\\[32mpassed\e\\[0m$' tty.txt)" "1" "a green 'passed'"
expect_eq "$(grep -c $'^cudnnenv: \e\\[1;31merror:\e\\[0m no installed cuDNN matches' tty.txt)" "1" "a red 'error:'"
NO_COLOR=1 script -qec "'$CUDNNENV' verify colour --level files; '$CUDNNENV' remove no-such-tree; true" /dev/null < /dev/null > tty.txt
expect_eq "$(grep -c $'\e\\[' tty.txt || true)" "0" "NO_COLOR: no colour"
script -qec "'$CUDNNENV' verify colour --level files --json" /dev/null < /dev/null > tty.txt
expect_eq "$(grep -c $'\e\\[' tty.txt || true)" "0" "--json: no colour"
run verify colour --level files
expect_eq "$(grep -c $'\e\\[' out || true)" "0" "piped: no colour"
pass "colour on a terminal only"

# The store root: a file, a relative CUDNNENV_ROOT, a folder not made yet, a relative --root.
touch "$WORK/a-file"
CUDNNENV_ROOT="$WORK/a-file" run list
expect_eq "$rc $(cat err)" "2 cudnnenv: error: the store root '$WORK/a-file' (CUDNNENV_ROOT) is a file, not a folder
  hint: point CUDNNENV_ROOT at a folder (it is created when missing)" "a root that is a file"
CUDNNENV_ROOT=rel/store run current
expect_eq "$rc $(cat err)" "2 cudnnenv: error: CUDNNENV_ROOT is a relative path ('rel/store'): it would name another store in every folder
  hint: give it as an absolute path, e.g. CUDNNENV_ROOT=\"$WORK/rel/store\"" "a relative CUDNNENV_ROOT"
CUDNNENV_ROOT="$WORK/not-yet" run list
expect_eq "$rc $(cat err)" "0 no store at $WORK/not-yet yet (install creates it)
  hint: 'cudnnenv install 9.27 --cuda 13' fetches cudnn-linux-x86_64-9.27.0.42_cuda13-archive.tar.xz from NVIDIA; a copy you have: 'cudnnenv adopt --help'" "a root not made yet"
run --root rel/store list
expect_eq "$(cat err)" "no store at $WORK/rel/store yet (install creates it)
  hint: 'cudnnenv install 9.27 --cuda 13' fetches cudnn-linux-x86_64-9.27.0.42_cuda13-archive.tar.xz from NVIDIA; a copy you have: 'cudnnenv adopt --help'" "a relative --root, made absolute once"
pass "the store root: a file and a relative CUDNNENV_ROOT refused, a missing one said, a relative --root made absolute"
