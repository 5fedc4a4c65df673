#!/usr/bin/env bash
# A shell added to the table (shell/quote.hpp: Shell, k_shells) without its
# renderer does not compile: the shell sources are compiled as they are
# (they must pass), then against a copy of quote.hpp with a shell 'tcsh'
# added and no renderer for it (they must fail, each naming the switch).
# Usage: shell_table.sh CXX GENERATED_INCLUDE_DIR
set -euo pipefail
cxx=$1 generated=$2
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++20 -fsyntax-only -Werror=switch -I"$work" -Imanager -I. -I"$generated")
# quote.cpp quotes and sets variables per shell, init.cpp writes the integration;
# activation.cpp renders through them.
sources=(shell/quote.cpp shell/init.cpp)
export LC_ALL=C

for source in "${sources[@]}"; do
  "$cxx" "${flags[@]}" "$source" || { echo "FAIL: $source does not compile as it is"; exit 1; }
done

mkdir -p "$work/shell"
sed -e 's/enum class Shell { bash, zsh, fish, powershell, cmd };/enum class Shell { bash, zsh, fish, powershell, cmd, tcsh };/' \
    -e 's/Shell::powershell, Shell::cmd};/Shell::powershell, Shell::cmd, Shell::tcsh};/' shell/quote.hpp > "$work/shell/quote.hpp"
grep -q 'cmd, tcsh }' "$work/shell/quote.hpp" && grep -q 'Shell::cmd, Shell::tcsh}' "$work/shell/quote.hpp" ||
  { echo "FAIL: the table in shell/quote.hpp changed shape; update this test"; exit 1; }
failed=0
for source in "${sources[@]}"; do
  if "$cxx" "${flags[@]}" "$source" 2> "$work/errors"; then
    echo "FAIL: $source compiles with a shell that has no renderer"
    failed=1
  elif ! grep -q "enumeration value 'tcsh' not handled in switch" "$work/errors"; then
    echo "FAIL: $source failed for another reason:"; cat "$work/errors"
    failed=1
  else
    echo "ok: $source: $(grep -c "enumeration value 'tcsh' not handled" "$work/errors") switch(es) without 'tcsh'"
  fi
done
exit $failed
