#!/usr/bin/env bash
# Installs every Debian 12 package the build, the tests and the benches need.
# Idempotent; run as root (CI runs it on a clean machine).
set -euo pipefail
packages=(
  # native build
  cmake ninja-build g++ pkg-config
  libtomlplusplus-dev libcli11-dev libspdlog-dev libfmt-dev doctest-dev nlohmann-json3-dev
  libarchive-dev zlib1g-dev libssl-dev libcurl4-openssl-dev
  # Boost.Process (v1, header-only) for the manager's plain children
  libboost1.81-dev
  # the Linux launcher's C library (shim/CMakeLists.txt: musl's static start is ~190 us cheaper than glibc's)
  musl-dev musl-tools
  # Linux aarch64 cross-build (the dist-linux-aarch64 preset) with Debian's arm64 libraries (multiarch), and
  # qemu's user mode for its release test (tests/release/aarch64.sh)
  g++-aarch64-linux-gnu libarchive-dev:arm64 zlib1g-dev:arm64 liblzma-dev:arm64 libbz2-dev:arm64 libssl-dev:arm64
  libcurl4-openssl-dev:arm64 musl-dev:arm64 qemu-user-static
  # Windows cross-build and its tests
  g++-mingw-w64-x86-64-posix gcc-mingw-w64-i686 libz-mingw-w64-dev wine64
  # test fixtures: 32-bit ELF libraries, archives
  # (gcc-12-multilib: gcc-multilib adds only the /usr/include/asm link, and conflicts with the aarch64 cross compiler)
  gcc-12-multilib zip unzip libarchive-tools xz-utils tar python3
  # the download tests' test CA and terminal (openssl, script), the download bench's curl
  openssl bsdutils curl
  # shells, Lmod (export modulefile's test) and benches
  bash zsh fish lmod hyperfine
  # the direnv door (tests/e2e/doors.sh)
  direnv
  # Slurm's door: a real two-node Slurm (tests/e2e/slurm.sh) and the SPANK plugin's header; podman for CDI
  slurmctld slurmd slurm-client munge libslurm-dev podman runc busybox-static
  # export jupyter's test: a real jupyter_client and ipykernel, and jupyter kernelspec
  python3-ipykernel python3-jupyter-client jupyter-client
  # the durability tests: the order of syncs and the rename that publishes a tree (strace), and power cuts
  # on a FUSE file system that keeps only synced bytes (python3-fusepy; mounted as root, no fusermount)
  strace python3-fusepy
  # the fuzz preset (libFuzzer and the sanitizer runtimes come with clang's)
  clang libclang-rt-14-dev
  # the format check (tests/lint/format.sh)
  clang-format
  # packaging: the man pages' test (man-db; the pages are written by cudnnenv __man); the release's tests:
  # the wheel installed into a venv by pip, the winget manifests read (YAML)
  man-db python3-venv python3-pip-whl python3-yaml
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
