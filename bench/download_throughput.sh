#!/usr/bin/env bash
# Loopback download of a ~300 MB archive: `cudnnenv install VERSION` (which
# streams through cudnnenv-fetch, writes the part file and hashes as it
# goes) against `curl -o` of the same file from the same server, interleaved
# (curl, cudnnenv, curl, ...). cudnnenv's download time is the one its
# progress line reports (from the first request to the last byte, hashing
# included); its whole install (unpacking, checks) is printed beside it.
# The server is tests/e2e/http_server.py, the same for both.
# Usage: bench/download_throughput.sh [ROUNDS] [MB]   (needs build/release and curl)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
megabytes=${2:-300}
repo=$PWD
cudnnenv=$PWD/build/release/bin/cudnnenv
FIXTURES=$PWD/build/release/fixtures
[ -x "$cudnnenv" ] || { echo "build first: cmake --preset release && cmake --build --preset release"; exit 1; }
command -v curl > /dev/null || { echo "needs curl"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-bench-XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }
cleanup() { :; }
cd "$work"
E2E_DIR=$repo/tests/e2e
source "$repo/tests/e2e/trees.sh"
source "$repo/tests/e2e/download_lib.sh"
trap 'stop_servers; rm -rf "$work"' EXIT

# The test archive, with MB of random bytes instead of 8 (stored: xz of random bytes gains nothing).
ARCHIVE=cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
top=${ARCHIVE%.tar.xz}
make_linux_tree "$top" 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
head -c "$((megabytes * 1000000))" /dev/urandom > "$top/include/padding.bin"
mkdir -p srv && tar -cf - "$top" | xz -0 -T0 > "srv/$ARCHIVE" && rm -rf "$top"
SHA=$(sha256sum "srv/$ARCHIVE" | cut -d' ' -f1)
SIZE=$(stat -c %s "srv/$ARCHIVE")
printf 'cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n9.1.0.70\tlinux-x86_64\tcuda12\t%s\t%s\t%s\thttps://developer.download.nvidia.com/x/%s\n' \
  "$ARCHIVE" "$SHA" "$SIZE" "$ARCHIVE" > index.tsv
start_server bench
export CUDNNENV_ROOT=$work/store CUDNNENV_INDEX=$work/index.tsv
echo "archive: $SIZE bytes, served from 127.0.0.1:$PORT; $rounds rounds"

now() { date +%s%N; }
: > curl.txt; : > fetch.txt; : > install.txt
for i in $(seq 1 "$rounds"); do
  start=$(now)
  curl -s -o curl.out "http://127.0.0.1:$PORT/x/$ARCHIVE"
  echo $(( $(now) - start )) >> curl.txt
  rm -f curl.out
  start=$(now)
  "$cudnnenv" install 9.1 --mirror "http://127.0.0.1:$PORT" > /dev/null 2> install.err
  echo $(( $(now) - start )) >> install.txt
  # "cudnnenv: downloaded 300.1 MB, 512 MB/s": its transfer time is the bytes over that rate.
  grep -q '^cudnnenv: downloaded ' install.err || fail "no download line: $(cat install.err)"
  python3 - "$SIZE" install.err >> fetch.txt <<'PY'
import re, sys
size = int(sys.argv[1])
line = [l for l in open(sys.argv[2]) if l.startswith("cudnnenv: downloaded ")][-1].strip()
value, unit = re.search(r", ([0-9.]+) ([kMG]?B)/s$", line).groups()
rate = float(value) * {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}[unit]
print(int(size / rate * 1e9))
PY
  "$cudnnenv" remove cudnn-linux-x86_64-9.1.0.70_cuda12-archive --yes > /dev/null
  "$cudnnenv" cache clean > /dev/null
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
python3 - "$SIZE" "$(median curl.txt)" "$(median fetch.txt)" "$(median install.txt)" <<'PY'
import sys
size, curl, fetch, install = (int(x) for x in sys.argv[1:])
rate = lambda ns: size / (ns / 1e9) / 1e6
print(f"curl -o:            {curl / 1e6:8.0f} ms  {rate(curl):7.0f} MB/s")
print(f"cudnnenv download:  {fetch / 1e6:8.0f} ms  {rate(fetch):7.0f} MB/s  ({rate(fetch) / rate(curl):.2f}x curl's rate, hashing included)")
print(f"cudnnenv install:   {install / 1e6:8.0f} ms  (download, unpack, checks, record)")
PY
