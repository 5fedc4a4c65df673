# Shared by the end-to-end tests: assertions and fake trees made from the
# fixture libraries. Each test sources this with CUDNNENV (the program) and
# FIXTURES (the fixture folder) set, and runs in a fresh temporary folder.
set -euo pipefail
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv e2e XXXXXX")
cleanup() { local rc=$?; if [ $rc -eq 0 ]; then rm -rf "$WORK"; else echo "test data kept in $WORK" >&2; fi; }
trap cleanup EXIT
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }

# A JSON field from cudnnenv's --json output (CRLF on Windows; python-free: the output is
# toml++'s JSON, one "key" : value per line).
json_field() { tr -d '\r' | grep -m1 "\"$1\" :" | sed -E 's/^[^:]*: "?([^",]*)"?,?$/\1/'; }

# For the Windows build under Wine: the loader, and a Unix path as Wine's
# drive Z: shows it.
WINE=${WINE:-/usr/lib/wine/wine64}
winpath() { printf 'Z:%s' "$1" | tr / '\\'; }

source "$E2E_DIR/trees.sh"
