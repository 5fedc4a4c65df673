#!/usr/bin/env bash
# The aarch64 release (#60: Grace Hopper, Jetson and sbsa nodes), cross-
# compiled: the tarball, the .deb (arm64) and the wheel (manylinux_2_28_aarch64)
# hold the x86_64 release's files, every ELF is an AArch64 one on the glibc
# floor (tests/lint/elf_floor.py), and the programs work under qemu's user
# mode (qemu-aarch64-static, with Debian's arm64 C library): --version, the
# probe loads a fake cuDNN built for aarch64 from the selftest's source, and
# exec pins a tree of it past a decoy on LD_LIBRARY_PATH, the aarch64 audit
# module reporting the load; verify --level load passes and exec starts past
# its load check. qemu runs one program, not the children it starts (no
# binfmt_misc here): the pinned child is started as `qemu-aarch64-static
# PROGRAM`, and the probe that verify and exec's check start is a script
# that runs the aarch64 probe under qemu. What this machine cannot show:
# a start on a real aarch64 kernel and glibc 2.28; install.sh, told the
# machine is aarch64 (uname), takes the aarch64 tarball and, as its program
# does not start here, installs nothing.
source "$(dirname "$0")/lib.sh" "$@"
arch_files() {  # tarball-relative files of the release for ARCH
  mkdir "$1"
  tar -xzf "$DIST/cudnnenv-$VERSION-linux-$1.tar.gz" -C "$1"
  (cd "$1/cudnnenv-$VERSION-linux-$1" && find . -type f -o -type l | sed 's|^\./||' | LC_ALL=C sort)
}
expect_eq "$(arch_files aarch64)" "$(arch_files x86_64)" "the aarch64 tarball's files, against the x86_64 one's"
deb=$DIST/cudnnenv_${VERSION}_arm64.deb
expect_eq "$(dpkg-deb -f "$deb" Package Architecture Depends)" "Package: cudnnenv
Architecture: arm64
Depends: libc6 (>= 2.28)" "the arm64 .deb's control"
mkdir deb wheel
dpkg-deb -x "$deb" deb
(cd wheel && unzip -q "$DIST/cudnnenv-$VERSION-py3-none-manylinux_2_28_aarch64.whl")
expect_eq "$(grep '^Tag:' wheel/cudnnenv-$VERSION.dist-info/WHEEL)" "Tag: py3-none-manylinux_2_28_aarch64" "the wheel's tag"
python3 "$E2E_DIR/../lint/elf_floor.py" aarch64 deb wheel > lint.out 2>&1 || fail "the floor lint: $(cat lint.out)"
machines=$(find aarch64 deb wheel -type f -exec sh -c 'head -c 4 "$1" | grep -q ELF && readelf -h "$1"' _ {} \; |
  sed -n 's/^ *Machine: *//p' | sort | uniq -c | awk '{$1=""; print substr($0, 2)}')
expect_eq "$machines" "AArch64" "the machine of every ELF file in the tarball, the .deb and the wheel"
pass "the aarch64 tarball, .deb and wheel: the x86_64 release's files, every ELF an AArch64 one on the glibc floor"

qemu=$(command -v qemu-aarch64-static) || { echo "skip: no qemu-aarch64-static (scripts/install-deps.sh)"; exit 77; }
bin=$WORK/aarch64/cudnnenv-$VERSION-linux-aarch64/bin
helpers=$WORK/aarch64/cudnnenv-$VERSION-linux-aarch64/lib/cudnnenv
expect_eq "$("$qemu" "$bin/cudnnenv" --version)" "cudnnenv $VERSION" "--version of the aarch64 cudnnenv"
source_dir=$E2E_DIR/../..
aarch64-linux-gnu-gcc -shared -fPIC -O1 -DFAKE_CUDNN_VERSION=91900 -DFAKE_CUDART_VERSION=13010 \
  -o fake-9.19.0.so "$source_dir/selftest/stand_in_cudnn.c"
mkdir decoy
aarch64-linux-gnu-gcc -shared -fPIC -O1 -DFAKE_CUDNN_VERSION=90100 -DFAKE_CUDART_VERSION=12020 \
  -Wl,-soname,libcudnn.so.9 -o decoy/libcudnn.so.9 "$source_dir/selftest/stand_in_cudnn.c"
aarch64-linux-gnu-gcc -O1 -o load-cudnn "$source_dir/tests/fixtures/load_cudnn.c" -ldl
expect_eq "$("$qemu" "$helpers/cudnnenv-probe" "$WORK/fake-9.19.0.so")" "cudnn_version=91900
cudart_version=13010
loaded_from=$WORK/fake-9.19.0.so" "the aarch64 probe on an aarch64 fake cuDNN"
make_linux_tree tree 9.19.0 fake-9.19.0.so
"$qemu" "$bin/cudnnenv" install ./tree --name t > install.out 2>&1 || fail "install: $(cat install.out)"
expect_eq "$("$qemu" "$bin/cudnnenv" list | awk 'NR == 2 {print $1, $2, $4, $5}')" "t 9.19.0 Linux arm64" \
  "list of the aarch64 cudnnenv"
expect_eq "$(LD_LIBRARY_PATH=$WORK/decoy "$qemu" ./load-cudnn)" "90100" "the decoy wins a plain start"
LD_LIBRARY_PATH=$WORK/decoy run_program "$qemu" "$bin/cudnnenv" exec --verify none --cudnn t --report -- "$qemu" ./load-cudnn
expect_eq "$rc:$(cat out)" "0:91900" "the pinned start ($(cat err))"
expect_eq "$(cat err)" "cudnnenv: report: pinned to 't' (cuDNN 9.19.0, $CUDNNENV_ROOT/t/lib), mode audit
  in the tree  $CUDNNENV_ROOT/t/lib/libcudnn.so.9.19.0" "exec --report with the aarch64 audit module"
# verify --level load, and exec's own check, start the probe as a child, which qemu's user mode does not run by
# itself (without binfmt_misc the kernel runs a child natively): a copy of the helpers folder whose
# cudnnenv-probe is a script that starts the aarch64 probe under qemu. Everything else is the aarch64 programs.
cp -r "$helpers" helpers
mv helpers/cudnnenv-probe helpers/cudnnenv-probe.aarch64
printf '#!/bin/sh\nexec %s "$0.aarch64" "$@"\n' "$qemu" > helpers/cudnnenv-probe
chmod +x helpers/cudnnenv-probe
run_program "$qemu" helpers/cudnnenv verify t --level load
expect_eq "$rc:$(cat out)" "0:verify t (cuDNN 9.19.0): $CUDNNENV_ROOT/t/lib/libcudnn.so.9
  ok    file set: complete cuDNN 9.19.0 set
  ok    files: 23 files match the install manifest
  ok    architecture: ELF 64-bit arm64, as Linux arm64 needs
  ok    header version: cudnn_version.h says 9.19.0
  ok    load: cudnnGetVersion() = 91900 (9.19.0), from $CUDNNENV_ROOT/t/lib/libcudnn.so.9
  ok    cudart: built against CUDA 13.1
  ok    sub-libraries: 7 load by absolute path
passed" "verify --level load of the aarch64 tree ($(cat err))"
LD_LIBRARY_PATH=$WORK/decoy run_program "$qemu" helpers/cudnnenv exec --cudnn t -- "$qemu" ./load-cudnn
expect_eq "$rc:$(cat out)" "0:91900" "exec with its load check ($(cat err))"
pass "under qemu: the aarch64 probe loads an aarch64 cuDNN, exec pins a tree past a decoy, verify --level load passes"

# install.sh on a machine whose uname -m says aarch64 takes the aarch64 tarball; here, where it cannot
# start, it installs nothing.
mkdir fake-uname prefix
printf '#!/bin/sh\n[ "$1" = -m ] && echo aarch64 || exec /bin/uname "$@"\n' > fake-uname/uname
chmod +x fake-uname/uname
set +e
PATH=$WORK/fake-uname:$PATH sh "$DIST/install.sh" --dist "$DIST" --prefix "$WORK/prefix" > install.out 2>&1
rc=$?
set -e
expect_eq "$rc:$(sed -e 's|/tmp/cudnnenv-install\.[A-Za-z0-9]*/|TMP/|' -e 's|install\.sh: [0-9]*: |install.sh: LINE: |' install.out)" \
  "1:cudnnenv install: error: cudnnenv-$VERSION-linux-aarch64.tar.gz's cudnnenv does not start on this machine: $DIST/install.sh: LINE: TMP/cudnnenv-$VERSION-linux-aarch64/lib/cudnnenv/cudnnenv: Exec format error; not installed (nothing was changed)" \
  "install.sh on an x86_64 machine that says it is aarch64"
expect_eq "$(find prefix | wc -l)" "1" "the prefix after it"
pass "install.sh on an aarch64 machine takes the aarch64 tarball, and installs nothing it cannot start"
