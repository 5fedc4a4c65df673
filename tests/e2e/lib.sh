# Shared by the end-to-end tests: assertions and fake trees made from the
# fixture libraries. Each test sources this with CUDNNENV (the program) and
# FIXTURES (the fixture folder) set, and runs in a fresh temporary folder.
set -euo pipefail

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

# make_linux_tree DIR VERSION SO: a complete fake cuDNN 9 Linux release.
make_linux_tree() {
  local dir=$1 version=$2 so=$3
  mkdir -p "$dir/lib" "$dir/include"
  for base in cudnn cudnn_graph cudnn_ops cudnn_cnn cudnn_adv cudnn_heuristic cudnn_engines_precompiled \
              cudnn_engines_runtime_compiled; do
    cp "$so" "$dir/lib/lib$base.so.$version"
    ln -sf "lib$base.so.$version" "$dir/lib/lib$base.so.9"
  done
  IFS=. read -r major minor patch <<<"$version"
  printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$major" "$minor" "$patch" \
    > "$dir/include/cudnn_version.h"
  for h in cudnn cudnn_graph cudnn_ops cudnn_cnn cudnn_adv cudnn_backend; do echo "/* $h */" > "$dir/include/$h.h"; done
}

# make_windows_tree DIR DLL: a complete fake cuDNN 8.1.0 Windows release in the
# layout of cudnn-11.2-windows-x64-v8.1.0.77.zip (cuda/bin, cuda/include, cuda/lib/x64).
make_windows_tree() {
  local dir=$1 dll=$2
  mkdir -p "$dir/cuda/bin" "$dir/cuda/include" "$dir/cuda/lib/x64"
  for base in cudnn cudnn_ops_infer cudnn_ops_train cudnn_cnn_infer cudnn_cnn_train cudnn_adv_infer cudnn_adv_train; do
    cp "$dll" "$dir/cuda/bin/${base}64_8.dll"
    printf '!<arch>\n' > "$dir/cuda/lib/x64/$base.lib"
    printf '!<arch>\n' > "$dir/cuda/lib/x64/${base}64_8.lib"
    echo "/* $base */" > "$dir/cuda/include/$base.h"
  done
  printf '#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n' > "$dir/cuda/include/cudnn_version.h"
  echo "/* backend */" > "$dir/cuda/include/cudnn_backend.h"
}
