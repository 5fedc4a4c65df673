#!/usr/bin/env bash
# What the launcher adds to a program's start, interleaved in one run
# (ROUNDS launches each), for three targets:
#   a static program (`true-static`): the launcher's own cost, since the
#     target's start does not depend on LD_LIBRARY_PATH or LD_AUDIT;
#   /bin/true pinned: started with the pin's environment already set
#     (LD_AUDIT, LD_LIBRARY_PATH), so every row pays the pin in the target
#     and the difference is the launcher's (the figure the design aims at);
#   /bin/true, dynamically linked and not pinned: the launcher plus what the
#     pin costs the target's dynamic loader (the LD_AUDIT module, and
#     LD_LIBRARY_PATH, which glibc searches with its hwcaps subfolders).
# Each started directly, through the smallest shims (a static C program that
# only execv()s it: linked against glibc, and against musl where musl-gcc is
# installed, musl's start being ~190 us cheaper here: glibc's static start
# probes the CPU through CPUID, which traps to the hypervisor on a VM), and
# through cudnnenv-shim as `cudnnenv shim add` makes it, with the default
# policy (`load`, its result cached) and a fake tree selected globally. The
# programs are copied into one folder first: where a program's file lies,
# and how its pages entered the page cache, moves a start by up to 100 us. Then, where installed, rbenv's shim
# against the same minimal shim, in a second interleaved run of ROUNDS/10 (it
# takes over 100 ms a start). (mise's shims need a mise config naming a tool
# version to do anything; bench/hook_overhead.sh compares with mise's hook.)
# Usage: bench/shim_overhead.sh [ROUNDS]   (needs build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2000}
bin=$PWD/build/release/bin
fixtures=$PWD/build/release/fixtures
[ -x "$bin/cudnnenv-shim" ] || { echo "build first: cmake --preset release && cmake --build --preset release"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

cc -O2 -o "$work/spawn_timer" bench/spawn_timer.c
printf 'int main(void) { return 0; }\n' > "$work/true-static.c"
cc -O2 -static -o "$work/built" "$work/true-static.c" && cp "$work/built" "$work/true-static"
have_musl=$(command -v musl-gcc > /dev/null && echo 1 || echo 0)
for target in /bin/true "$work/true-static"; do
  printf '#include <unistd.h>\nint main(int c, char** v) { (void)c; v[0] = "%s"; execv(v[0], v); return 127; }\n' \
    "$target" > "$work/minimal.c"
  cc -O2 -static -o "$work/built" "$work/minimal.c" && cp "$work/built" "$work/minimal-shim-$(basename "$target")"
  if [ "$have_musl" = 1 ]; then
    musl-gcc -O2 -static -o "$work/built" "$work/minimal.c" && cp "$work/built" "$work/musl-shim-$(basename "$target")"
  fi
done
mkdir "$work/bin" && cp -r "$bin"/cudnnenv "$bin"/cudnnenv-* "$bin"/libcudnnenv-audit*.so "$work/bin/"
bin=$work/bin

source tests/e2e/trees.sh
export CUDNNENV_ROOT="$work/store"
make_linux_tree "$work/tree" 9.1.0 "$fixtures/fake-elf64-9.1.0.so"
"$bin/cudnnenv" install "$work/tree" --name bench > /dev/null
"$bin/cudnnenv" use --global bench > /dev/null
"$bin/cudnnenv" shim add true --target /bin/true > /dev/null
"$bin/cudnnenv" shim add true-static --target "$work/true-static" > /dev/null
shims="$CUDNNENV_ROOT/.cudnnenv/shims"
cd "$work"   # no .cudnnenv.toml above: the global default decides
"$shims/true" && "$shims/true-static"   # the first starts take the slow path and cache the decision

report() {  # FILE LABELS...: the medians, and each command's added time over the first's, against the second's
  local file=$1; shift
  local labels=("$@") i=0
  while read -r line; do echo "${labels[$i]}: $line"; i=$((i + 1)); done < "$file"
  awk -v labels="$(IFS='|'; echo "${labels[*]}")" '{ m[NR] = $3 } END {
    split(labels, name, "|")
    minimal = m[2] - m[1]
    printf "added to a start (median): %s %.0f us\n", name[2], minimal
    for (i = 3; i <= NR; i++) printf "  %s: %.0f us, ratio to the %s %.2f\n", name[i], m[i] - m[1], name[2], (m[i] - m[1]) / minimal
  }' "$file"
}

musl_rows=()
musl_label=()
[ "$have_musl" = 1 ] && musl_rows=(::: "$work/musl-shim-true-static") && musl_label=("minimal shim (musl)")
"$work/spawn_timer" "$rounds" "$work/true-static" ::: "$work/minimal-shim-true-static" "${musl_rows[@]}" \
  ::: "$shims/true-static" > "$work/out"
echo "a static target: the launcher alone"
report "$work/out" "direct" "minimal shim (glibc)" "${musl_label[@]}" "cudnnenv-shim"

# The pin's environment as the shim's recorded decision sets it.
pinned=$(grep -h '^change = +LD_' "$CUDNNENV_ROOT"/.cudnnenv/cache/launch/* | sort -u | sed 's/^change = +//')
[ "$have_musl" = 1 ] && musl_rows=(::: "$work/musl-shim-true")
echo
echo "/bin/true pinned (the pin's environment set for every row): the launcher alone"
env $pinned "$work/spawn_timer" "$rounds" /bin/true ::: "$work/minimal-shim-true" "${musl_rows[@]}" ::: "$shims/true" \
  > "$work/out"
report "$work/out" "direct" "minimal shim (glibc)" "${musl_label[@]}" "cudnnenv-shim"

echo
echo "/bin/true (dynamic, not pinned): the launcher and the pin"
"$work/spawn_timer" "$rounds" /bin/true ::: "$work/minimal-shim-true" "${musl_rows[@]}" ::: "$shims/true" > "$work/out"
report "$work/out" "direct" "minimal shim (glibc)" "${musl_label[@]}" "cudnnenv-shim (LD_AUDIT + LD_LIBRARY_PATH)"
echo

others=(/bin/true ::: "$work/minimal-shim-true")
labels=("direct" "minimal shim")
if command -v rbenv > /dev/null; then
  export RBENV_ROOT="$work/rbenv" RBENV_VERSION=bench
  mkdir -p "$RBENV_ROOT/versions/bench/bin" && ln -s /bin/true "$RBENV_ROOT/versions/bench/bin/true"
  rbenv rehash
  others+=(::: "$RBENV_ROOT/shims/true")
  labels+=("rbenv $(rbenv --version | cut -d' ' -f2) shim")
fi
if [ ${#labels[@]} -gt 2 ]; then
  "$work/spawn_timer" "$((rounds / 10 > 20 ? rounds / 10 : 20))" "${others[@]}" > "$work/others"
  report "$work/others" "${labels[@]}"
fi
