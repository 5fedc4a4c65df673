#!/usr/bin/env bash
# The glibc floor (#60): every ELF file the release ships (the tarball, the
# .deb, the wheel) asks for glibc 2.28 at most and names only glibc's own
# libraries (tests/lint/elf_floor.py, auditwheel's manylinux_2_28 rule); the
# lint fails on a program linked plainly here (a fixture, as the probe was
# linked before the floor). A C++ program linked to the floor as the helpers
# are runs its constructors, throws, draws random numbers and counts shared
# references. What this machine cannot show: a start on an older glibc; the
# floor's start path for glibc < 2.34 (constructors run from main) is never
# taken here, where glibc runs them.
source "$(dirname "$0")/lib.sh" "$@"
lint=$E2E_DIR/../lint/elf_floor.py
mkdir tarball deb wheel
tar -xzf "$DIST/cudnnenv-$VERSION-linux-x86_64.tar.gz" -C tarball
dpkg-deb -x "$DIST/cudnnenv_${VERSION}_amd64.deb" deb
(cd wheel && unzip -q "$DIST/cudnnenv-$VERSION-py3-none-manylinux_2_28_x86_64.whl")
python3 "$lint" tarball deb wheel > lint.out 2>&1 || fail "the floor lint on the release: $(cat lint.out)"
expect_eq "$(cat lint.out)" "" "the floor lint on the tarball, the .deb and the wheel"
helpers=tarball/cudnnenv-$VERSION-linux-x86_64/lib/cudnnenv
for program in cudnnenv-probe cudnnenv-fetch selftest/cudnnenv-selftest-load cudnnenv_spank.so; do
  expect_eq "$(readelf -V -W "$helpers/$program" | grep -oE 'Name: GLIBC_[0-9.]+' | sed 's/Name: GLIBC_//' | sort -V | tail -1 |
    awk -F. '{print ($1 < 2 || ($1 == 2 && $2 <= 28)) ? "floor" : $0}')" "floor" "$program's newest glibc version"
done
pass "every shipped ELF needs glibc 2.28 at most and only glibc's libraries"

set +e
python3 "$lint" "$FIXTURES/load-cudnn" > plain.out 2>&1
rc=$?
set -e
expect_eq "$rc:$(cat plain.out)" "1:$FIXTURES/load-cudnn: needs GLIBC_2.34, above the floor GLIBC_2.28" \
  "the lint on a program linked plainly on this glibc"
pass "the lint fails on a program linked plainly here"

expect_eq "$("$FIXTURES/floor-check")" "constructed thrown 7 counted" "a C++ program linked to the floor"
python3 "$lint" "$FIXTURES/floor-check" > check.out 2>&1 || fail "the lint on floor-check: $(cat check.out)"
# The shipped probe loads this machine's real cuDNN, where there is one.
real=/usr/local/cuda-13.0/lib/libcudnn.so.9
if [ -f "$real" ]; then
  "$helpers/cudnnenv-probe" "$real" > probe.out || fail "the shipped probe on $real: $(cat probe.out)"
  grep -q '^cudnn_version=9' probe.out || fail "the shipped probe on $real: $(cat probe.out)"
  pass "the shipped probe loads the real cuDNN in $real"
fi
pass "a C++ program on the floor: constructors, exceptions, random_device and shared_ptr work"
