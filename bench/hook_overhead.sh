#!/usr/bin/env bash
# What a prompt costs with each tool's shell hook, in bash, where nothing
# changed (the common case: a prompt in the same folder): cudnnenv's hook
# (a shell function: two string comparisons, and in a project one read of
# its file by the shell itself), `direnv export bash` and
# `mise hook-env -s bash` where they are installed (each a process per
# prompt), and, for scale, cudnnenv's hook after a cd (a walk up the folders
# and one run of cudnnenv). ROUNDS prompts each, interleaved in rounds of 10.
# Usage: bench/hook_overhead.sh [ROUNDS]   (needs build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-500}
bin=$PWD/build/release/bin
[ -x "$bin/cudnnenv" ] || { echo "build first: cmake --preset release && cmake --build --preset release"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
source tests/e2e/trees.sh
export CUDNNENV_ROOT="$work/store"
make_linux_tree "$work/tree" 9.1.0 build/release/fixtures/fake-elf64-9.1.0.so
"$bin/cudnnenv" install "$work/tree" --name bench > /dev/null
mkdir -p "$work/project/a/b/c" && printf 'cudnn = "bench"\n' > "$work/project/.cudnnenv.toml"
cd "$work/project/a/b/c"
have_direnv=$(command -v direnv > /dev/null && echo 1 || echo 0)
have_mise=$(command -v mise > /dev/null && echo 1 || echo 0)
[ "$have_direnv" = 1 ] && printf 'export X=1\n' > "$work/project/.envrc" && (cd "$work/project" && direnv allow . 2> /dev/null)

PATH="$bin:$PATH" bash --norc --noprofile << SCRIPT
eval "\$(cudnnenv init bash)"
_cudnnenv_hook
declare -A total=()
# Microseconds from bash's own clock (\$EPOCHREALTIME): reading it starts no process.
measure() {  # TOOL COMMAND: ten prompts of COMMAND
  local t0=\${EPOCHREALTIME/./}
  for i in 1 2 3 4 5 6 7 8 9 10; do eval "\$2"; done
  local t1=\${EPOCHREALTIME/./}
  total[\$1]=\$(( \${total[\$1]:-0} + t1 - t0 ))
}
for round in \$(seq $((rounds / 10))); do
  measure cudnnenv '_cudnnenv_hook'
  measure cudnnenv_cd '_CUDNNENV_PWD=; unset _CUDNNENV_PROJECT; _cudnnenv_hook'
  [ $have_direnv = 1 ] && measure direnv 'eval "\$(direnv export bash 2> /dev/null)"'
  [ $have_mise = 1 ] && measure mise 'eval "\$(mise hook-env -s bash 2> /dev/null)"'
done
for tool in cudnnenv cudnnenv_cd direnv mise; do
  [ -n "\${total[\$tool]:-}" ] || continue
  case \$tool in
    cudnnenv) label="cudnnenv hook, nothing changed" ;;
    cudnnenv_cd) label="cudnnenv hook after a cd (walk up + one cudnnenv run)" ;;
    direnv) label="direnv export bash (\$(direnv version))" ;;
    mise) label="mise hook-env (\$(mise --version 2> /dev/null | cut -d' ' -f1))" ;;
  esac
  awk -v t="\${total[\$tool]}" -v n=$rounds -v l="\$label" 'BEGIN { printf "%-60s %9.1f us per prompt\n", l, t / n }'
done
SCRIPT
