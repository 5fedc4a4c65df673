#!/usr/bin/env bash
# Makes a release in dist/ (or --out DIR): the Linux tarballs, .debs and
# wheels (x86_64, and aarch64 cross-compiled), the Windows zip and wheel,
# install.sh, the SBOM, the Scoop and winget manifests and SHA256SUMS
# (scripts/release.py packs them). Two runs on one
# commit give the same bytes: every time in them is the commit's
# (SOURCE_DATE_EPOCH), and no build folder is written into a program.
#
#   scripts/release.sh                      build the dist-* presets, then pack
#   scripts/release.sh --linux-build build/release --windows-build build/mingw \
#     --aarch64-build build/dist-linux-aarch64
#                                           pack builds made already (the test command's)
#   --url-base URL                          where the files are published, for the
#                                           manifests ({version} is replaced)
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist linux_build='' windows_build='' aarch64_build=''
url_base='https://github.com/cudnnenv/cudnnenv/releases/download/v{version}'
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --linux-build) linux_build=$2; shift 2 ;;
    --windows-build) windows_build=$2; shift 2 ;;
    --aarch64-build) aarch64_build=$2; shift 2 ;;
    --url-base) url_base=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export SOURCE_DATE_EPOCH
version=$(sed -n 's/^project(cudnnenv VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)

if [ -z "$linux_build" ]; then
  cmake --preset dist-linux-x86_64 > /dev/null && cmake --build --preset dist-linux-x86_64
  linux_build=build/dist-linux-x86_64
fi
if [ -z "$aarch64_build" ]; then
  cmake --preset dist-linux-aarch64 > /dev/null && cmake --build --preset dist-linux-aarch64
  aarch64_build=build/dist-linux-aarch64
fi
if [ -z "$windows_build" ]; then
  cmake --preset dist-windows-x86_64 > /dev/null && cmake --build --preset dist-windows-x86_64
  windows_build=build/dist-windows-x86_64
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cmake --install "$linux_build" --prefix "$stage/linux" > /dev/null
DESTDIR="$stage/deb" cmake --install "$linux_build" --prefix /usr > /dev/null
cmake --install "$aarch64_build" --prefix "$stage/linux-aarch64" > /dev/null
DESTDIR="$stage/deb-aarch64" cmake --install "$aarch64_build" --prefix /usr > /dev/null
cmake --install "$windows_build" --prefix "$stage/windows" > /dev/null
rm -rf "$out"
mkdir -p "$out"
# The install script, defaulting to this release's own files.
sed "s|^default_dist=''.*|default_dist='${url_base//\{version\}/$version}'|" scripts/install.sh > "$out/install.sh"
python3 scripts/release.py --version "$version" --epoch "$SOURCE_DATE_EPOCH" --out "$out" --url-base "$url_base" \
  --linux x86_64 "$stage/linux" "$stage/deb" --linux aarch64 "$stage/linux-aarch64" "$stage/deb-aarch64" \
  --windows "$stage/windows" \
  --also install.sh
echo "release $version in $out:"
sed 's/^[0-9a-f]*  /  /' "$out/SHA256SUMS"
