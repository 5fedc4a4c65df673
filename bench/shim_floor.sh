#!/usr/bin/env bash
# The shim against the floor of a pinned start (#61 item 6), interleaved in
# one run (ROUNDS starts each) from an environment without the pin:
#   pinned     /bin/true started with the pin's environment already set (the
#              timer sets it: no process of its own), the start every row pays;
#   floor      a static musl program (glibc's where musl-gcc is missing) that
#              sets the same pin (the variables the shim's recorded decision
#              sets, compiled in) and does one execv of /bin/true;
#   shim       cudnnenv-shim as `cudnnenv shim add` makes it, its decision
#              recorded (the fast path), a fake tree selected globally.
# Prints each median and the ratio of what the shim adds to a pinned start to
# what the floor adds (aim: at most 1.25, the issue's bound; 1.1 the goal).
# Usage: bench/shim_floor.sh [ROUNDS]   (needs build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3000}
bin=$PWD/build/release/bin
fixtures=$PWD/build/release/fixtures
[ -x "$bin/cudnnenv-shim" ] || { echo "build first: cmake --preset release && cmake --build --preset release"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/spawn_timer" bench/spawn_timer.c
mkdir "$work/bin" && cp -r "$bin"/cudnnenv "$bin"/cudnnenv-* "$bin"/libcudnnenv-audit*.so "$work/bin/"
bin=$work/bin
source tests/e2e/trees.sh
export CUDNNENV_ROOT="$work/store"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED LD_AUDIT LD_LIBRARY_PATH
make_linux_tree "$work/tree" 9.1.0 "$fixtures/fake-elf64-9.1.0.so"
"$bin/cudnnenv" install "$work/tree" --name bench > /dev/null
"$bin/cudnnenv" use --global bench > /dev/null 2>&1
"$bin/cudnnenv" shim add true --target /bin/true > /dev/null
shims="$CUDNNENV_ROOT/.cudnnenv/shims"
cd "$work"             # no .cudnnenv.toml above: the global default decides
"$shims/true"          # the first start takes the slow path and records the decision
decision=$(ls "$CUDNNENV_ROOT"/.cudnnenv/cache/launch/* | head -1)
# The decision's changes, as NAME=VALUE words (a `+` prepends to a list that is empty here; `-` unsets one
# that is not set here).
mapfile -t pin < <(sed -n 's/^change = [+=]//p' "$decision")
{
  echo '#include <stdlib.h>'
  echo '#include <unistd.h>'
  echo 'int main(int c, char** v) {'
  echo '  (void)c;'
  for each in "${pin[@]}"; do
    printf '  setenv("%s", "%s", 1);\n' "${each%%=*}" "${each#*=}"
  done
  echo '  v[0] = "/bin/true";'
  echo '  execv(v[0], v);'
  echo '  return 127;'
  echo '}'
} > "$work/floor.c"
if command -v musl-gcc > /dev/null; then
  musl-gcc -O2 -static -o "$work/floor" "$work/floor.c"
  floor_kind="static musl"
else
  cc -O2 -static -o "$work/floor" "$work/floor.c"
  floor_kind="static glibc (no musl-gcc)"
fi
"$work/spawn_timer" "$rounds" "${pin[@]}" /bin/true ::: "$work/floor" ::: "$shims/true" > "$work/out"
labels=("pinned /bin/true" "floor ($floor_kind: the pin, one execv)" "cudnnenv-shim (recorded decision)")
i=0
while read -r line; do echo "${labels[$i]}: ${line#* median}"; i=$((i + 1)); done < "$work/out"
awk '{ m[NR] = $3 } END {
  printf "added to a pinned start (median): floor %.0f us, shim %.0f us; shim / floor %.2f (aim: at most 1.25)\n",
    m[2] - m[1], m[3] - m[1], (m[3] - m[1]) / (m[2] - m[1])
}' "$work/out"
