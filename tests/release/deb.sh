#!/usr/bin/env bash
# The .deb (#60): its control (glibc from the floor up; libcurl recommended,
# as it is loaded only to download), the files of the tarball under /usr,
# and installed by dpkg into a root of its own, a cudnnenv whose selftest
# holds.
source "$(dirname "$0")/lib.sh" "$@"
deb=$DIST/cudnnenv_${VERSION}_amd64.deb
[ -f "$deb" ] || fail "no $deb"
expect_eq "$(dpkg-deb -f "$deb" Package Version Architecture Depends Recommends)" "Package: cudnnenv
Version: $VERSION
Architecture: amd64
Depends: libc6 (>= 2.28)
Recommends: libcurl4 | libcurl4t64" "the .deb's control"
mkdir tarball
tar -xzf "$DIST/cudnnenv-$VERSION-linux-x86_64.tar.gz" -C tarball
expect_eq "$(dpkg-deb -c "$deb" | awk '{print $6}' | grep -v '/$' | sed 's|^\./usr/||' | sort)" \
  "$(cd "tarball/cudnnenv-$VERSION-linux-x86_64" && find . -type f -o -type l | sed 's|^\./||' | sort)" \
  "the .deb's files, against the tarball's"
root=$WORK/dpkg-root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-not-root --force-script-chrootless -i "$deb" > dpkg.out 2>&1 ||
  fail "dpkg -i: $(cat dpkg.out)"
expect_eq "$(dpkg --root="$root" -s cudnnenv 2> /dev/null | grep '^Status:')" "Status: install ok installed" "dpkg's record"
expect_eq "$("$root/usr/bin/cudnnenv" --version)" "cudnnenv $VERSION" "--version of the cudnnenv dpkg installed"
"$root/usr/bin/cudnnenv" selftest --json > selftest.json || fail "selftest of the cudnnenv dpkg installed: $(cat selftest.json)"
expect_eq "$(selftest_verdict selftest.json)" \
  "True ['held']" "selftest of the cudnnenv dpkg installed"
pass "the .deb: its control, the tarball's files under /usr, installed by dpkg, selftest holds"
