#!/usr/bin/env bash
# Installs what is needed, builds each preset once (native release, Windows
# with mingw-w64, the shipped Linux aarch64 programs, native with ASan + UBSan
# and the libFuzzer targets), and runs every test: native unit and end-to-end
# tests, the release's files (packed from the native, Windows and aarch64
# builds, then built again in another folder and compared), the Windows ones under wine64, the native ones again under the
# sanitizers, and each fuzz target for FUZZ_SECONDS (default 5) on its seed
# corpus (bench/fuzz.sh runs them longer).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# What git sees changed before the run: the run itself may add nothing to it.
tree_before=$(mktemp)
trap 'rm -f "$tree_before"' EXIT
bash tests/lint/clean_tree.sh save "$tree_before"

jobs=$(nproc)
cmake --preset release
cmake --build --preset release -j"$jobs"
cmake --preset mingw
cmake --build --preset mingw -j"$jobs"
cmake --preset dist-linux-aarch64
cmake --build --preset dist-linux-aarch64 -j"$jobs"
# One sanitizer build serves the sanitizer test run and the fuzz targets
# (the `fuzz` preset builds the targets alone, for fuzzing by hand).
cmake --preset sanitize
cmake --build --preset sanitize -j"$jobs"

# One Wine prefix for the whole run: creating one takes 5-60 s.
export WINEPREFIX="${WINEPREFIX:-$PWD/build/wineprefix}" WINEDEBUG=-all
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  /usr/lib/wine/wine64 wineboot -i > /dev/null 2>&1 || true
fi

status=0
echo "test.sh: builds done after ${SECONDS} s"
ctest --preset release -j"$jobs" || status=1
echo "test.sh: native tests done after ${SECONDS} s"
# The Windows tests beside the sanitizer run (Wine mostly waits on itself), one at a time: they share one
# prefix, and some put files into it (a decoy DLL in System32). Their output follows the sanitizer run's.
ctest --preset mingw > build/mingw-tests.log 2>&1 &
windows=$!
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 ctest --preset sanitize -j"$jobs" || status=1
echo "test.sh: sanitizer tests done after ${SECONDS} s"
wait "$windows" || status=1
cat build/mingw-tests.log
echo "test.sh: Windows tests done after ${SECONDS} s"
# The property tests ran on their fixed seed above; once more on a fresh one
# (printed: CUDNNENV_TEST_SEED=N with the same ctest line replays it).
fresh=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
echo "property tests on a fresh seed: CUDNNENV_TEST_SEED=$fresh"
CUDNNENV_TEST_SEED=$fresh ctest --preset release -R 'e2e_(shell_property|jupyter|ide|power_cut|slurm)$' || status=1
CUDNNENV_TEST_SEED=$fresh ctest --preset mingw -R 'e2e_wine_(security|terminal)$' || status=1
FUZZ_BUILD=build/sanitize bash bench/fuzz.sh "${FUZZ_SECONDS:-5}" || status=1
echo "test.sh: fresh-seed and fuzz runs done after ${SECONDS} s"
bash tests/lint/clean_tree.sh compare "$tree_before" || status=1
exit $status
