#!/usr/bin/env bash
# Nothing lost, nothing doubled (issue 47): `use --local` on a project file
# with a UTF-8 BOM and CRLF line ends edits what the reader reads; parallel
# exports, shims and adopts end with one clean result and no error; a failed
# fsync (injected with strace) leaves every small file as it was and fails the
# command; verify finds a runtime tree by any name; a failed export leaves no
# folder behind; remove on a read-only store says so before anything else; a
# killed lock's temporary file goes at the next lock, up to date or not.
# Usage: nothing_lost.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_ACTIVE _CUDNNENV_STATE CUDNNENV_SHELL

make_linux_tree tree 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install ./tree --name t91
expect_eq "$rc" "0" "install: $(cat err)"
PY=$(command -v python3)

# --- 1. a BOM and CRLF: the editor sees the lines the reader sees ---
bom=$'\xef\xbb\xbf'
mkdir project && cd project
# case: the file as Notepad wrote it | what use --local must leave
check_local() {
  local what=$1 before=$2 after=$3
  printf '%s' "$before" > .cudnnenv.toml
  run use 9.1 --local
  expect_eq "$rc" "0" "$what: use --local: $(cat err)"
  expect_eq "$(od -An -c .cudnnenv.toml)" "$(printf '%s' "$after" | od -An -c)" "$what: the file after use --local"
  run current
  expect_eq "$rc:$(cat out)" "0:9.1.0  t91  (set by $PWD/.cudnnenv.toml)" "$what: current"
}
check_local "BOM, a table first" "${bom}[env]"$'\n'"A = \"1\""$'\n' \
  "${bom}cudnn = \"9.1\""$'\n'"[env]"$'\n'"A = \"1\""$'\n'
check_local "BOM, the key first" "${bom}cudnn = \"8\""$'\n'"[env]"$'\n' "${bom}cudnn = \"9.1\""$'\n'"[env]"$'\n'
check_local "BOM and CRLF, a table first" "${bom}[env]"$'\r\n'"A = \"1\""$'\r\n' \
  "${bom}cudnn = \"9.1\""$'\r\n'"[env]"$'\r\n'"A = \"1\""$'\r\n'
check_local "BOM and CRLF, the key first" "${bom}cudnn = \"8\""$'\r\n'"[env]"$'\r\n' \
  "${bom}cudnn = \"9.1\""$'\r\n'"[env]"$'\r\n'
check_local "CRLF, no BOM" "# mine"$'\r\n'"[env]"$'\r\n' "# mine"$'\r\n'"cudnn = \"9.1\""$'\r\n'"[env]"$'\r\n'
pass "use --local keeps a BOM and CRLF, and current selects what it wrote"
cd "$WORK"

# --- 2. parallel exports and shims: each run its own temporary name, the last writer wins ---
mkdir parallel && cd parallel
# parallel ROUNDS COMMAND...: COMMAND 8 times at once, ROUNDS times; every run must exit 0 with no error said.
parallel() {
  local rounds=$1 round i
  shift
  for round in $(seq 1 "$rounds"); do
    for i in 1 2 3 4 5 6 7 8; do ( status=0; "$CUDNNENV" "$@" > "out.$i" 2> "err.$i" || status=$?; echo $status > "rc.$i" ) & done
    wait
    for i in 1 2 3 4 5 6 7 8; do
      [ "$(cat "rc.$i")" = 0 ] && ! grep -q 'error' "err.$i" || fail "round $round of '$*', run $i: exit $(cat "rc.$i"): $(cat "err.$i")"
    done
  done
}
launchers=$(launcher_dir "$CUDNNENV_STATE_DIR" t91 "$PY")
interpreter_setting() {
  python3 -c 'import json; print(json.load(open(".vscode/settings.json"))["python.defaultInterpreterPath"])'
}
parallel 10 export vscode t91 --python "$PY"
parallel 10 export launcher t91 --python "$PY"
parallel 10 shim add python --target "$PY"
expect_eq "$(ls -A "$launchers")" "python
python.shim" "the launcher's folder after 160 parallel writes"
expect_eq "$(readlink "$launchers/python")" "$(dirname "$CUDNNENV")/cudnnenv-shim" "the launcher"
expect_eq "$(ls -A "$CUDNNENV_STATE_DIR/shims")" "python
python.shim" "the shims folder after 80 parallel adds"
expect_eq "$(interpreter_setting)" "$launchers/python" "settings.json"
pass "8 parallel export vscode, export launcher and shim add, 10 rounds each: no error, one launcher"
cd "$WORK"

# --- 3. parallel adopts of one folder: registered once ---
mkdir -p rt/lib
cc -shared -fPIC -o rt/lib/libcudart.so.13 -Wl,-soname,libcudart.so.13 "$E2E_DIR/../fixtures/fake_cuda_runtime.c"
make_linux_tree adoptme 9.2.0 "$FIXTURES/fake-elf64-9.2.0.so"
# adopt4 ARGS...: four `adopt ARGS` at once, ten times; exactly one is adopted each time, and forgotten again.
adopt4() {
  local round i adopted name
  for round in $(seq 1 10); do
    for i in 1 2 3 4; do ( status=0; "$CUDNNENV" adopt "$@" > "adopt.$i" 2>&1 || status=$?; echo $status > "adopt-rc.$i" ) & done
    wait
    adopted=$(cat adopt.* | grep -c "^adopted '" || true)
    expect_eq "$adopted" "1" "round $round of adopt $*: adopted (of 4: $(cat adopt.*))"
    expect_eq "$(cat adopt-rc.* | sort | tr '\n' ' ')" "0 1 1 1 " "round $round of adopt $*: exit codes"
    name=$(sed -n "s/^adopted '\([^']*\)'.*/\1/p" adopt.*)
    expect_eq "$(cat adopt.* | grep -c "is already adopted as '$name'$" || true)" "3" "round $round: the others' errors"
    run remove "$name" --yes
    expect_eq "$rc" "0" "round $round: forget '$name': $(cat err)"
  done
}
adopt4 "$WORK/adoptme"
adopt4 --runtime "$WORK/rt"
run list --json
expect_eq "$(json_count < out)" "1" "trees after the parallel adopts (t91 alone)"
pass "4 parallel adopts of one folder, 10 rounds, cuDNN and a runtime: adopted once each round"

# --- 4. a failed fsync: the file stays as it was and the command fails ---
if command -v strace > /dev/null && strace -f -qq -o /dev/null -e trace=fsync true 2> /dev/null; then
  # Under the sanitize preset: LeakSanitizer cannot run under ptrace (strace), so leaks are not checked here.
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  # eio FILE WHAT COMMAND...: COMMAND under an injected EIO from fsync exits 1 saying so, FILE unchanged.
  eio() {
    local file=$1 what=$2 before
    shift 2
    before=$(if [ -e "$file" ]; then sha256sum < "$file"; else echo absent; fi)
    run_program strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:error=EIO "$CUDNNENV" "$@"
    expect_eq "$rc" "1" "$what under a failing fsync: exit code ($(cat err))"
    expect_eq "$(cat err)" "cudnnenv: error: cannot write '$file': fsync failed: Input/output error; $(if [ "$before" = absent ]; then echo 'nothing was written'; else echo 'it was left as it was'; fi)
  hint: check the disk: it reported an error writing the file" "$what under a failing fsync: the message"
    expect_eq "$(if [ -e "$file" ]; then sha256sum < "$file"; else echo absent; fi)" "$before" "$what: the file"
    [ ! -d "$(dirname "$file")" ] || [ -z "$(find "$(dirname "$file")" -maxdepth 1 -name "$(basename "$file").tmp*")" ] ||
      fail "$what: a temporary file was left: $(ls -a "$(dirname "$file")")"
  }
  make_linux_tree tree2 9.2.0 "$FIXTURES/fake-elf64-9.2.0.so"
  run install ./tree2 --name t92
  mkdir -p eio && cd eio
  printf 'cudnn = "9.1"\n[env]\nA = "1"\n' > .cudnnenv.toml
  run use 9.1 --global
  eio "$PWD/.cudnnenv.toml" "use --local" use 9.2 --local
  eio "$CUDNNENV_STATE_DIR/config.toml" "use --global" use 9.2 --global
  trust_file=$(find "$CUDNNENV_STATE_DIR" -name '*.trust' 2> /dev/null | head -1)
  [ -z "$trust_file" ] || fail "a trust entry before trust: $trust_file"
  run_program strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:error=EIO "$CUDNNENV" trust
  expect_eq "$rc" "1" "trust under a failing fsync: exit code ($(cat err))"
  expect_eq "$(sed 's/[0-9a-f]\{32\}\.trust/HASH.trust/' err)" "cudnnenv: error: cannot write '$CUDNNENV_STATE_DIR/trusted/HASH.trust': fsync failed: Input/output error; nothing was written
  hint: check the disk: it reported an error writing the file" "trust under a failing fsync: the message"
  expect_eq "$(find "$CUDNNENV_STATE_DIR/trusted" -type f | wc -l)" "0" "trust: no entry written"
  run export vscode t91 --python "$PY"
  expect_eq "$rc" "0" "export vscode: $(cat err)"
  eio "$(launcher_dir "$CUDNNENV_STATE_DIR" t92 "$PY")/python.shim" "export vscode" export vscode t92 --python "$PY"
  expect_eq "$(interpreter_setting)" "$launchers/python" "export vscode: settings.json unchanged"
  [ ! -e "$CUDNNENV_STATE_DIR/launchers/t92" ] || fail "export vscode left $(find "$CUDNNENV_STATE_DIR/launchers/t92")"
  run export jupyter t91 --python "$PY" --prefix "$PWD/env" --name k
  expect_eq "$rc" "0" "export jupyter: $(cat err)"
  eio "$PWD/env/share/jupyter/kernels/k/kernel.json" "export jupyter" export jupyter t92 --python "$PY" --prefix "$PWD/env" --name k
  # The folder's fsync after the rename fails: the file is new, and the command still says what is not sure.
  run_program strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:error=EIO:when=2 "$CUDNNENV" use 9.2 --local
  expect_eq "$rc:$(cat err)" "1:cudnnenv: error: '$PWD/.cudnnenv.toml' was replaced, but its folder could not be flushed to disk (fsync of '$PWD' failed: Input/output error): a power cut could still bring the old file back
  hint: check the disk: it reported an error" "a failing fsync of the folder"
  pass "a failing fsync: use --local, use --global, trust, export vscode and export jupyter fail and change nothing"
  # A full disk under an export: the folders it made go again.
  run_program strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:error=ENOSPC "$CUDNNENV" export launcher t92 --python "$PY"
  expect_eq "$rc" "1" "export launcher on a full disk: $(cat err)"
  [ ! -e "$CUDNNENV_STATE_DIR/launchers/t92" ] || fail "export launcher left $(find "$CUDNNENV_STATE_DIR/launchers/t92")"
  pass "an export that fails on a full disk leaves no folder"
  # The launcher link's rename is put on disk (its folder's fsync) before the shim is said to be there.
  strace -f -qq -y -o trace.txt -e trace=rename,renameat,renameat2,fsync "$CUDNNENV" export launcher t91 --python "$PY" \
    > out 2> err || fail "export launcher under strace: $(cat err)"
  launcher_folder=$(launcher_dir "$CUDNNENV_STATE_DIR" t91 "$PY")
  expect_eq "$(grep -A1 "rename.*\"$launcher_folder/python\") = 0" trace.txt | sed -n 2p | sed 's/^[0-9]* //; s/fsync([0-9]*</fsync(</')" \
    "fsync(<$launcher_folder>) = 0" "the call after the launcher's rename"
  pass "the launcher link's rename is followed by an fsync of its folder"
  cd "$WORK"
else
  echo "skip: strace cannot inject here (the fsync cases)"
fi

# --- 5. verify finds a runtime tree by its name, whatever it is ---
run adopt --runtime "$WORK/rt" --name rt13
expect_eq "$rc" "0" "adopt --runtime --name rt13: $(cat err)"
run verify rt13 --level files
expect_eq "$rc:$(cat out)" "0:verify rt13 (CUDA runtime 13.0.0): $WORK/rt/lib/libcudart.so.13
  ok    file set: CUDA 13.0.0 runtime, 1 library file
  ok    files: 1 file matches the install manifest
  ok    architecture: ELF 64-bit x86_64, as Linux x86_64 needs
passed" "verify rt13"
pass "verify names a runtime tree not called cuda*"

# --- 6. remove on a read-only store: said first ---
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
  run_program unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" remove t91 --yes' \
    sh "$CUDNNENV_ROOT" "$CUDNNENV"
  expect_eq "$rc:$(cat err)" "1:cudnnenv: error: cannot remove 't91': the store '$CUDNNENV_ROOT' is read-only for this user ('$CUDNNENV_ROOT' cannot be written)
  hint: ask whoever manages that store, or use a store of your own (--root or CUDNNENV_ROOT)" "remove on a read-only store"
  pass "remove on a read-only store says it cannot write there, and nothing else"
else
  echo "skip: a read-only mount needs root and unshare (the read-only store case)"
fi

# --- 7. a killed lock: what it left beside cudnnenv.lock goes at the next lock, also an up-to-date one ---
mkdir lockproject && cd lockproject
printf 'cudnn = "9.1"\ncuda = "12"\n' > .cudnnenv.toml
run lock
expect_eq "$rc" "0" "lock: $(cat err)"
sleep 0 & gone=$!
wait "$gone"
# write_file_atomic's temporary of a writer killed a minute ago (the name it gives, the writer's process id)
printf 'format = 1\n' > "cudnnenv.lock.tmp$gone-1"
touch -d '1 minute ago' "cudnnenv.lock.tmp$gone-1"
run lock
expect_eq "$rc:$(head -n 1 out)" "0:up to date: $PWD/cudnnenv.lock" "lock after a killed one: $(cat err)"
expect_eq "$(ls -A | grep -v '^out$\|^err$')" ".cudnnenv.toml
cudnnenv.lock" "the project folder after the next lock (out and err are this test's)"
cd ..
pass "a killed lock's temporary file goes at the next lock, which finds the lock up to date"

# --- 8. slurm health: a pass remembered, overlapping runs exit at once ---
# A tree with a 200 MB library (a CUDA runtime's 1.6 GB, scaled down): the first run reads it, the second,
# nothing changed, says it passed before; a changed file is read again; a run while another holds the lock
# exits at once with 0 (slurmd starts one at every interval, finished or not).
make_linux_tree big 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
head -c 200M /dev/zero >> big/lib/libcudnn.so.9.1.0
run install ./big --name big -q
expect_eq "$rc" "0" "install of the big tree: $(cat err)"
health() { run slurm health big --level files -v; }
summary() { grep -o "slurm health: every tree passed.*" err; }
health
expect_eq "$rc:$(summary)" "0:slurm health: every tree passed (level files): 1 checked now, 0 passed before with nothing changed since" \
  "the first health run reads the tree: $(cat err)"
health
expect_eq "$rc:$(summary)" "0:slurm health: every tree passed (level files): 0 checked now, 1 passed before with nothing changed since" \
  "the second run: $(cat err)"
touch "$CUDNNENV_ROOT/big/lib/libcudnn.so.9.1.0"
health
expect_eq "$rc:$(summary)" "0:slurm health: every tree passed (level files): 1 checked now, 0 passed before with nothing changed since" \
  "after a file's time changed, read again: $(cat err)"
rm -f "$CUDNNENV_STATE_DIR/cache/health-checks"
"$CUDNNENV" slurm health big --level files > first.out 2>&1 &
first=$!
lock="$CUDNNENV_STATE_DIR/locks/slurm-health.lock"
for _ in $(seq 1 200); do
  [ -e "$lock" ] && ! flock -n "$lock" true && break
  sleep 0.01
done
! flock -n "$lock" true || fail "the first run never held the lock (it ended first: make the tree bigger)"
run slurm health big --level files -v
expect_eq "$rc:$(grep -o "slurm health: another run holds '$lock': this one exits" err)" \
  "0:slurm health: another run holds '$lock': this one exits" "a run beside a running one"
kill -0 "$first" 2> /dev/null || fail "the first run had ended before the second did"
wait "$first" || fail "the first run: $(cat first.out)"
pass "slurm health remembers a pass until a file changes, and a run beside a running one exits at once"
