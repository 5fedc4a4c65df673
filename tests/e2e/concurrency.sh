#!/usr/bin/env bash
# Eight installs of one archive at once end with exactly one tree and no
# error in any; an install killed with SIGKILL at random moments never
# leaves a visible partial tree, and the next install succeeds.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"

make_linux_tree tree 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
# Ballast, so that an install lasts long enough to be interrupted part-way.
head -c 120000000 /dev/urandom > tree/lib/ballast.bin
(cd tree && zip -q -r -y -0 ../cudnn-test-9.1.0.zip .)
name=cudnn-test-9.1.0

# --- eight at once ---
pids=()
for i in 1 2 3 4 5 6 7 8; do
  "$CUDNNENV" install cudnn-test-9.1.0.zip > "out.$i" 2>&1 &
  pids+=($!)
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || fail "install $((i + 1)) of 8 failed: $(cat "out.$((i + 1))")"
done
expect_eq "$(cat out.* | grep -c '^installed ')" "1" "exactly one install did the work"
expect_eq "$(cat out.* | grep -c '^already installed ')" "7" "the other seven found it done"
expect_eq "$("$CUDNNENV" list --json | json_count)" "1" "trees in the store"
expect_eq "$(ls -A "$CUDNNENV_ROOT/.cudnnenv/staging" | wc -l)" "0" "staging left empty"
pass "8 concurrent installs: one tree, no errors"

# --- kill -9 at random moments ---
"$CUDNNENV" remove -y "$name" > /dev/null
start=$(date +%s%N)
"$CUDNNENV" install cudnn-test-9.1.0.zip > /dev/null 2>&1
duration_ms=$(( ($(date +%s%N) - start) / 1000000 ))
"$CUDNNENV" remove -y "$name" > /dev/null
echo "one install takes ${duration_ms} ms"

expected_size=$(stat -c %s tree/lib/ballast.bin)
interrupted=0
completed=0
for round in $(seq 1 12); do
  # Up to 1.5 times an install's length: most kills land part-way, some after the end.
  delay_ms=$(( RANDOM % (duration_ms * 3 / 2 + 1) ))
  "$CUDNNENV" install cudnn-test-9.1.0.zip > /dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v ms="$delay_ms" 'BEGIN { print ms / 1000 }')"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # Every visible folder in the root must be a whole tree with its record.
  for dir in "$CUDNNENV_ROOT"/*/; do
    [ -d "$dir" ] || continue
    [ -f "$dir/.cudnnenv/tree.toml" ] || fail "round $round: visible folder without a record: $dir"
    actual=$(stat -c %s "$dir/lib/ballast.bin" 2>/dev/null || echo missing)
    expect_eq "$actual" "$expected_size" "round $round: size of a file in the visible tree"
  done
  trees=$("$CUDNNENV" list --json | json_count)
  if [ "$trees" = "1" ]; then
    completed=$((completed + 1))
    "$CUDNNENV" remove -y "$name" > /dev/null
  else
    interrupted=$((interrupted + 1))
  fi
done
echo "killed part-way: $interrupted rounds; finished before the kill: $completed rounds"
[ "$interrupted" -gt 0 ] || fail "no kill landed during an install: the test proved nothing"
"$CUDNNENV" install cudnn-test-9.1.0.zip > /dev/null || fail "install after the kills"
expect_eq "$(ls -A "$CUDNNENV_ROOT/.cudnnenv/staging" | wc -l)" "0" "staging left empty after a clean install"
pass "kill -9 at random moments never left a visible partial tree"
