# Shared by download.sh and wine_download.sh: the test archives, an index
# naming them (CUDNNENV_INDEX) and the test HTTP server (http_server.py).

# make_download_archives PLATFORM_DIR: the served archives in srv/ and
# index.tsv. Linux: a fake cuDNN 9.1.0 tree as
# cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz, with 8 MB of random
# bytes (so that a slow download can be killed halfway). Windows: a fake
# 8.1.0 tree as cudnn-11.2-windows-x64-v8.1.0.77.zip. Each index names a
# second CUDA variant of the same release (never served) and the official
# URL, so that the tests reach the server as a mirror.
make_download_archives() {  # PLATFORM [WINDOWS_DLL: the fake cuDNN DLL of the Windows zip]
  local platform=$1 windows_dll=${2:-$FIXTURES/fake-pe64-8.1.0.dll}
  mkdir -p srv
  if [ "$platform" = linux-x86_64 ]; then
    ARCHIVE=cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
    local top=${ARCHIVE%.tar.xz}
    make_linux_tree "$top" 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
    head -c 8000000 /dev/urandom > "$top/include/padding.bin"
    tar -cJf "srv/$ARCHIVE" "$top"
    rm -rf "$top"
    TREE=9.1.0.70-cuda12 VERSION=9.1.0.70 CUDA=12 OTHER_CUDA=11  # the short name (#22)
    OTHER=cudnn-linux-x86_64-9.1.0.70_cuda11-archive.tar.xz
    URL_DIR=https://developer.download.nvidia.com/compute/cudnn/redist/cudnn/linux-x86_64
  else
    ARCHIVE=cudnn-11.2-windows-x64-v8.1.0.77.zip
    make_windows_tree w "$windows_dll" 8.1.0
    head -c 8000000 /dev/urandom > w/cuda/include/padding.bin
    (cd w && zip -q -r "../srv/$ARCHIVE" cuda)
    rm -rf w
    TREE=8.1.0.77-cuda11.2 VERSION=8.1.0.77 CUDA=11.2 OTHER_CUDA=11.3
    OTHER=cudnn-11.3-windows-x64-v8.1.0.77.zip
    URL_DIR=https://developer.download.nvidia.com/compute/redist/cudnn/v8.1.0
  fi
  SHA=$(sha256sum "srv/$ARCHIVE" | cut -d' ' -f1)
  SIZE=$(stat -c %s "srv/$ARCHIVE")
  {
    printf 'cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n'
    printf '%s\t%s\tcuda%s\t%s\t%s\t%s\t%s/%s\n' "$VERSION" "$platform" "$CUDA" "$ARCHIVE" "$SHA" "$SIZE" "$URL_DIR" "$ARCHIVE"
    printf '%s\t%s\tcuda%s\t%s\t%s\t%s\t%s/%s\n' "$VERSION" "$platform" "$OTHER_CUDA" "$OTHER" "$SHA" "$SIZE" "$URL_DIR" "$OTHER"
  } > index.tsv
}

# start_server NAME [--tls CERT KEY]: http_server.py serving srv/, its log in
# NAME.log, its port in $PORT; stopped when the test ends.
SERVER_PIDS=()
stop_servers() { for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2> /dev/null || true; done; }
start_server() {
  local name=$1; shift
  python3 "$E2E_DIR/http_server.py" --root srv --log "$name.log" --port-file "$name.port" "$@" &
  SERVER_PIDS+=($!)
  for _ in $(seq 100); do [ -s "$name.port" ] && break; sleep 0.05; done
  [ -s "$name.port" ] || fail "the test server did not start"
  : >> "$name.log"
  PORT=$(cat "$name.port")
}
trap 'stop_servers; cleanup' EXIT

# kill_halfway PART CMD...: starts CMD (a download from the /slow/ server),
# kills it (SIGKILL) once PART holds over 1 MB, and sets $part to PART's size
# then; fails unless that is part of the archive ($SIZE bytes).
kill_halfway() {
  local file=$1; shift
  "$@" > /dev/null 2>&1 &
  local pid=$! size
  for _ in $(seq 400); do
    size=$(stat -c %s "$file" 2> /dev/null || echo 0)
    [ "$size" -gt 1000000 ] && break
    sleep 0.05
  done
  kill -9 $pid; wait $pid 2> /dev/null || true
  sleep 0.5  # Wine: its server closes the file after the process is gone
  part=$(stat -c %s "$file")
  [ "$part" -gt 0 ] && [ "$part" -lt "$SIZE" ] || fail "not killed halfway: $part of $SIZE bytes"
}

# write_index PLATFORM:PATH...: index.tsv naming cuDNN 9.1.0.70 (cuda12) for each PLATFORM as the file
# srv/NAME (NAME: PATH's last part) at NVIDIA's PATH (compute/cudnn/redist/...), with its SHA-256 and size.
write_index() {
  local entry platform path file
  printf 'cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n' > index.tsv
  for entry; do
    platform=${entry%%:*} path=${entry#*:} file=srv/${entry##*/}
    printf '9.1.0.70\t%s\tcuda12\t%s\t%s\t%s\thttps://developer.download.nvidia.com/%s\n' "$platform" "${path##*/}" \
      "$(sha256sum "$file" | cut -d' ' -f1)" "$(stat -c %s "$file")" "$path" >> index.tsv
  done
}
