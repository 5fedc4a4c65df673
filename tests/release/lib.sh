# Shared by the release tests (tests/release/*.sh DIST FIXTURES): DIST is what
# scripts/release.sh wrote, FIXTURES the build's fixture folder; the
# end-to-end tests' assertions and fake trees, in a fresh temporary folder.
DIST=$(cd "$1" && pwd)
FIXTURES=$2
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../e2e" && pwd)/lib.sh"
RELEASE_DIR=$(cd "$E2E_DIR/../release" && pwd)
VERSION=$(sed -n 's/^[0-9a-f]*  cudnnenv-\([0-9][0-9.]*\)-linux-x86_64\.tar\.gz$/\1/p' "$DIST/SHA256SUMS")
[ -n "$VERSION" ] || fail "no Linux tarball in $DIST/SHA256SUMS"
unset CUDNNENV_VERSION CUDNNENV_ROOT CUDNNENV_ACTIVATED
export CUDNNENV_ROOT="$WORK/store"

# selftest_verdict FILE: of `cudnnenv selftest --json` in FILE, whether it passed and the set of its cases'
# statuses ("True ['held']" when every case held).
selftest_verdict() {
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["passed"], sorted({c["status"] for c in r["cases"]}))' "$1"
}
