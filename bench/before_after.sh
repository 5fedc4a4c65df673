#!/usr/bin/env bash
# The hot paths of two builds, interleaved in one run each, so that noise on
# these VMs hits both alike: OLD (a bin folder built from an earlier commit)
# against this checkout's build/release/bin. Each build gets a store of its
# own, made by its own cudnnenv.
#   shim:    a shim (`shim add`, the default `load` policy, its decision
#            cached) starting a static program, against the program started
#            directly: the launcher's own cost;
#   hook:    `cudnnenv hook --shell bash` in a project 3 folders below its
#            .cudnnenv.toml, with 5 trees installed (what a prompt runs after a cd);
#   current: `cudnnenv current` in the same folder;
#   prompt:  the shell function a bash prompt runs there when nothing changed
#            (no process: reads of the project file and of its lock), per
#            prompt, over 1000 prompts a round, old and new alternating, then
#            again with a cudnnenv.lock beside the project file;
#   install: `cudnnenv install` of the real cuDNN set as a .tar.xz (~500 MB
#            unpacked), alternating old and new, INSTALL_ROUNDS each.
# Prints the medians (us) and new/old ratios.
# Make OLD with:  git worktree add /tmp/before REV && cd /tmp/before &&
#                 cmake --preset release && cmake --build --preset release
# NEW_BIN=DIR times another build than this checkout's: copy both bin folders
# into one folder first (the same file system and path length for both; a
# build under /work against one under /tmp differed by 5% in `current` alone).
# Usage: bench/before_after.sh OLD_BIN [ROUNDS] [INSTALL_ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(cd "${1:?usage: bench/before_after.sh OLD_BIN [ROUNDS] [INSTALL_ROUNDS]}" && pwd)
rounds=${2:-1000}
install_rounds=${3:-3}
new=${NEW_BIN:-$PWD/build/release/bin}
fixtures=$PWD/build/release/fixtures
real=${CUDNNENV_REAL_CUDNN:-/usr/local/cuda-13.0}
for bin in "$old" "$new"; do
  [ -x "$bin/cudnnenv" ] && [ -x "$bin/cudnnenv-shim" ] || { echo "no cudnnenv and cudnnenv-shim in $bin"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED _CUDNNENV_STATE CUDNNENV_ACTIVE

source tests/e2e/trees.sh
cc -O2 -o "$work/spawn_timer" bench/spawn_timer.c
printf 'int main(void) { return 0; }\n' > "$work/true-static.c"
cc -O2 -static -o "$work/true-static" "$work/true-static.c"
make_linux_tree "$work/tree" 9.1.0 "$fixtures/fake-elf64-9.1.0.so"
mkdir -p "$work/project/a/b/c" && printf 'cudnn = "9.1"\n' > "$work/project/.cudnnenv.toml"
for side in old new; do
  bin=${!side}
  export CUDNNENV_ROOT="$work/store-$side"
  for name in a b c d e; do "$bin/cudnnenv" install "$work/tree" --name "tree-$name" > /dev/null; done
  "$bin/cudnnenv" use --global tree-a > /dev/null 2>&1
  "$bin/cudnnenv" shim add true-static --target "$work/true-static" > /dev/null
  (cd "$work/project/a/b/c" && "$CUDNNENV_ROOT/.cudnnenv/shims/true-static" 2> /dev/null)  # the slow path records the decision
done

ratio() {  # FILE LABEL: medians of old (line 2) and new (line 3) over the base (line 1) or absolute
  awk -v label="$1" '{ m[NR] = $3 } END {
    printf "%-8s old %8.0f us  new %8.0f us  new/old %.3f\n", label, m[1], m[2], m[2] / m[1]
  }' "$2"
}
unset CUDNNENV_ROOT   # each shim has its store in its sidecar; the commands get --root
cd "$work/project/a/b/c"
for side in old new; do "${!side}/cudnnenv" --root "$work/store-$side" current > /dev/null; done
echo "interleaved, $rounds rounds, medians (us):"
"$work/spawn_timer" "$rounds" "$work/true-static" \
  ::: "$work/store-old/.cudnnenv/shims/true-static" ::: "$work/store-new/.cudnnenv/shims/true-static" > "$work/shim"
"$work/spawn_timer" "$rounds" \
  "$old/cudnnenv" --root "$work/store-old" hook --shell bash \
  ::: "$new/cudnnenv" --root "$work/store-new" hook --shell bash \
  ::: "$old/cudnnenv" --root "$work/store-old" current ::: "$new/cudnnenv" --root "$work/store-new" current > "$work/cli"
awk '{ m[NR] = $3 } END {
  printf "shim     direct %.0f us; added by the shim: old %.0f us, new %.0f us, new/old %.3f\n",
    m[1], m[2] - m[1], m[3] - m[1], (m[3] - m[1]) / (m[2] - m[1])
}' "$work/shim"
sed -n 1,2p "$work/cli" > "$work/hook" && ratio hook "$work/hook"
sed -n 3,4p "$work/cli" > "$work/current" && ratio current "$work/current"

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
prompt_ns() {  # BIN STORE: nanoseconds per no-change prompt, over 1000 prompts
  CUDNNENV_ROOT=$2 bash --norc --noprofile -c 'eval "$("$0" init bash)"; _cudnnenv_hook
t0=${EPOCHREALTIME/./}; for ((i = 0; i < 1000; i++)); do _cudnnenv_hook; done; echo $((${EPOCHREALTIME/./} - t0))' "$1"
}
for lock in without with; do
  [ "$lock" = with ] && printf 'format = 1\n[input]\ncudnn = "9.1"\nplatforms = ["linux-x86_64"]\n[[cudnn]]\nplatform = "linux-x86_64"\nversion = "9.1.0.70"\ncuda = "cuda12"\nfile = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"\nurl = "https://developer.download.nvidia.com/x.tar.xz"\nsha256 = "%064d"\n' 0 > "$work/project/cudnnenv.lock"
  : > "$work/prompt-old" && : > "$work/prompt-new"
  for i in $(seq 1 $(( (rounds + 99) / 100 ))); do
    prompt_ns "$old/cudnnenv" "$work/store-old" >> "$work/prompt-old"
    prompt_ns "$new/cudnnenv" "$work/store-new" >> "$work/prompt-new"
  done
  awk -v label="prompt $lock a lock" -v o="$(median "$work/prompt-old")" -v n="$(median "$work/prompt-new")" \
    'BEGIN { printf "%-24s old %6.1f us  new %6.1f us  new/old %.3f\n", label, o / 1000, n / 1000, n / o }'
done
rm -f "$work/project/cudnnenv.lock"

if [ -e "$real/lib/libcudnn.so.9" ]; then
  name=cudnn-linux-x86_64-bench_cuda13-archive
  mkdir -p "$work/$name/include" "$work/$name/lib"
  cp -L "$real"/include/cudnn*.h "$work/$name/include/"
  cp -a "$real"/lib/libcudnn*.so* "$work/$name/lib/"
  (cd "$work" && tar -cf - "$name" | xz -1 -T0 > "$name.tar.xz")
  for side in old new; do : > "$work/install-$side"; done
  for i in $(seq 1 "$install_rounds"); do
    for side in old new; do
      bin=${!side}
      export CUDNNENV_ROOT="$work/install-store-$side"
      start=$(date +%s%N)
      "$bin/cudnnenv" install "$work/$name.tar.xz" --name "bench-$i" > /dev/null
      echo $(( ($(date +%s%N) - start) / 1000 )) >> "$work/install-$side"
      "$bin/cudnnenv" remove "bench-$i" --yes > /dev/null 2>&1 || rm -rf "$CUDNNENV_ROOT/bench-$i"
    done
  done
  printf '1 x %s\n1 x %s\n' "$(median "$work/install-old")" "$(median "$work/install-new")" > "$work/install"
  ratio install "$work/install"
else
  echo "install: skipped (no real cuDNN at $real)"
fi
