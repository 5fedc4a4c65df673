#!/usr/bin/env bash
# Runs every fuzz target of the `fuzz` preset for SECONDS each, JOBS at a
# time (default: the number of cores), on a seed corpus made by
# tests/fuzz/make_corpus.sh, and prints per target: executions, executions
# per second, corpus size, and whether it found a crash (exit 1 if any did;
# the reproducer is left in build/fuzz/artifacts/).
# Usage: bench/fuzz.sh SECONDS [JOBS]     e.g. bench/fuzz.sh 600 for the 10-minute run
# FUZZ_BUILD=DIR: a build folder with the targets (default build/fuzz); FUZZ_SEED=N: libFuzzer's seed
# (default 1, so that the test command's short run explores the same inputs each time)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: bench/fuzz.sh SECONDS [JOBS]}
jobs=${2:-$(nproc)}
build=${FUZZ_BUILD:-build/fuzz}  # the `fuzz` preset's; the test command uses the `sanitize` preset's
[ -x "$build/fuzz/fuzz_zip" ] || { echo "build the fuzz preset first: cmake --preset fuzz && cmake --build --preset fuzz" >&2; exit 2; }
targets=(zip tar binfmt version toml spec sidecar cmd_script download modulefile doctor snapshot redist kernelspec why lock mirror slurm cdi frameworks complete audit)
seeds=$build/seeds
[ -n "$(ls -A "$seeds/${targets[-1]}" 2>/dev/null)" ] || bash tests/fuzz/make_corpus.sh "$seeds" build/release/fixtures > /dev/null
mkdir -p "$build/artifacts" "$build/logs"

run_one() {
  local target=$1
  mkdir -p "$build/corpus/$target"
  # -rss_limit_mb: a crafted input may not make us hold 2 GB; -timeout: nor hang.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz/fuzz_$target" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$target-" "$build/corpus/$target" "$seeds/$target" \
    > "$build/logs/$target.log" 2>&1
}

pids=() names=() status=0
for target in "${targets[@]}"; do
  run_one "$target" &
  pids+=($!) names+=("$target")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.2; done
done
results=()
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then results+=("${names[$i]}:ok"); else results+=("${names[$i]}:CRASH"); status=1; fi
done
printf '%-16s %12s %10s %8s  %s\n' target executions exec/s corpus result
for entry in "${results[@]}"; do
  target=${entry%%:*} result=${entry#*:}
  log=$build/logs/$target.log
  runs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  rate=$(grep -m1 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
  corpus=$(ls "$build/corpus/$target" | wc -l)
  printf '%-16s %12s %10s %8s  %s\n' "fuzz_$target" "${runs:-?}" "${rate:-?}" "$corpus" "$result"
  [ "$result" = ok ] || tail -30 "$log"
done
exit $status
