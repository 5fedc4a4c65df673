#!/usr/bin/env bash
# On the GPU host (not in CI; Ubuntu 24.04, glibc 2.39): the release's files
# on a distribution other than the one that built them (#60). install.sh from
# the dist folder into a prefix, the wheel into a venv of PyTorch's Python,
# each one's selftest; then the other GPU scripts with the tarball's programs
# (the probe linked to the glibc floor loads the real cuDNN and runs the
# convolution on the GPU). Prints everything; exit 1 on a failed check.
# Usage: tests/gpu/release.sh DIST [PYTHON] [OUT]
set -uo pipefail
dist=$(cd "${1:?usage: tests/gpu/release.sh DIST [PYTHON] [OUT]}" && pwd)
python=${2:-/opt/torch/.venv/bin/python3}
out=${3:-${OUT:-.}}
here=$(cd "$(dirname "$0")" && pwd)
failed=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; failed=1; fi; }
work=$(mktemp -d)
echo "== $(ldd --version | head -1); $(. /etc/os-release && echo "$PRETTY_NAME")"

sh "$dist/install.sh" --dist "$dist" --prefix "$work/prefix"; rc=$?
check "install.sh from the dist folder" "[ $rc = 0 ]"
version=$("$work/prefix/bin/cudnnenv" --version)
check "the installed cudnnenv starts ($version)" "[ -n \"\$version\" ]"
CUDNNENV_ROOT=$work/store1 "$work/prefix/bin/cudnnenv" selftest; rc=$?
check "selftest of the install.sh install" "[ $rc = 0 ]"

"$python" -m venv "$work/venv" && "$work/venv/bin/pip" install --no-index -q "$dist"/cudnnenv-*-manylinux_2_28_x86_64.whl; rc=$?
check "pip install of the wheel into a venv of $("$python" --version)" "[ $rc = 0 ]"
CUDNNENV_ROOT=$work/store2 "$work/venv/bin/cudnnenv" selftest; rc=$?
check "selftest of the wheel's cudnnenv" "[ $rc = 0 ]"

bin=$work/prefix/lib/cudnnenv
for script in devices doctor runtime torch_pin; do
  echo "== tests/gpu/$script.sh with the tarball's programs"
  case $script in
    doctor) bash "$here/$script.sh" "$bin" "$python" "$out" ;;
    *) bash "$here/$script.sh" "$bin" "$python" ;;
  esac
  rc=$?
  check "tests/gpu/$script.sh with the release's programs" "[ $rc = 0 ]"
done
exit $failed
