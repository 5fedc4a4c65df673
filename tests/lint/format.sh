#!/usr/bin/env bash
# The sources are as clang-format (Debian 12's, 14) writes them (.clang-format).
# Prints the files that differ; `clang-format -i` on them fixes it.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format > /dev/null || { echo "clang-format is not installed (scripts/install-deps.sh)"; exit 77; }
mapfile -t files < <(find manager shell shim tests cmake -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' \) | sort)
status=0
for file in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$file" > /dev/null 2>&1; then
    echo "not formatted: $file"
    status=1
  fi
done
exit $status
