#!/usr/bin/env bash
# Installs what is needed, builds the native and the Windows (mingw-w64)
# programs once each, and runs every test: native unit and end-to-end tests,
# then the Windows unit tests and end-to-end tests under wine64.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

jobs=$(nproc)
cmake --preset release
cmake --build --preset release -j"$jobs"
cmake --preset mingw
cmake --build --preset mingw -j"$jobs"

# One Wine prefix for the whole run: creating one takes 5-60 s.
export WINEPREFIX="${WINEPREFIX:-$PWD/build/wineprefix}" WINEDEBUG=-all
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  /usr/lib/wine/wine64 wineboot -i > /dev/null 2>&1 || true
fi

status=0
ctest --preset release || status=1
ctest --preset mingw || status=1
exit $status
