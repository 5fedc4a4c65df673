#!/bin/sh
# Installs cudnnenv for this user from a release: fetches the tarball for
# this machine and the release's SHA256SUMS, checks the one against the other,
# and installs into ~/.local (or --prefix DIR) without root. Nothing is left
# behind when any step fails, and an installed cudnnenv stays as it was.
#
#   curl -LsSf URL/install.sh | sh
#   sh install.sh [--prefix DIR] [--dist URL_OR_FOLDER]
#
# --dist (or CUDNNENV_DIST): where the release's files are, a URL or a
# folder holding SHA256SUMS and the tarballs (a copy of dist/).
set -eu

default_dist=''  # scripts/release.sh writes the release's own URL here
dist=${CUDNNENV_DIST:-$default_dist}
prefix=${HOME:?}/.local

say() { printf 'cudnnenv install: %s\n' "$*"; }
fail() { printf 'cudnnenv install: error: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || fail "--prefix needs a folder"; prefix=$2; shift 2 ;;
    --dist) [ $# -ge 2 ] || fail "--dist needs a URL or a folder"; dist=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument '$1' (sh install.sh --help)" ;;
  esac
done
[ -n "$dist" ] || fail "no release to install from: give --dist URL_OR_FOLDER or set CUDNNENV_DIST"

case $(uname -s) in
  Linux) ;;
  *) fail "this script installs on Linux; on Windows: scoop install cudnnenv, winget install cudnnenv.cudnnenv or pip install cudnnenv" ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) fail "no cudnnenv for this machine's processor ($(uname -m)): NVIDIA ships cuDNN for x86_64 and aarch64 only" ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-install.XXXXXX") || fail "cannot make a temporary folder"
staging=''
cleanup() {
  rm -rf "$work"
  [ -z "$staging" ] || rm -rf "$staging"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# fetch NAME: the release's file NAME into $work/NAME.
fetch() {
  case $dist in
    http://* | https://*)
      if command -v curl > /dev/null 2>&1; then
        curl --proto '=https,http' -fsSL "$dist/$1" -o "$work/$1" || fail "cannot download $dist/$1"
      elif command -v wget > /dev/null 2>&1; then
        wget -q -O "$work/$1" "$dist/$1" || fail "cannot download $dist/$1"
      else
        fail "neither curl nor wget is here to download $dist/$1; download the release's files into a folder and give --dist FOLDER"
      fi ;;
    *)
      folder=${dist#file://}
      [ -f "$folder/$1" ] || fail "no $1 in $folder"
      cp "$folder/$1" "$work/$1" ;;
  esac
}

sha256_of() {
  if command -v sha256sum > /dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum > /dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  fi
}

fetch SHA256SUMS
line=$(grep -E "^[0-9a-f]{64}  cudnnenv-[0-9][0-9A-Za-z.+-]*-linux-$arch\.tar\.gz\$" "$work/SHA256SUMS" | head -n 1)
[ -n "$line" ] || fail "the release at $dist has no tarball for linux-$arch"
expected=${line%% *}
tarball=${line##* }
fetch "$tarball"
actual=$(sha256_of "$work/$tarball")
[ "$actual" = "$expected" ] ||
  fail "$tarball's SHA-256 is $actual, where SHA256SUMS says $expected: not installed (nothing was changed)"

top=${tarball%.tar.gz}
tar -xzf "$work/$tarball" -C "$work" || fail "cannot unpack $tarball"
[ -x "$work/$top/lib/cudnnenv/cudnnenv" ] || fail "$tarball does not hold lib/cudnnenv/cudnnenv"
# Started before anything is put in place: a program this machine cannot run replaces nothing.
version=$("$work/$top/lib/cudnnenv/cudnnenv" --version 2> "$work/start.err") ||
  fail "$tarball's cudnnenv does not start on this machine: $(cat "$work/start.err"); not installed (nothing was changed)"

# The new helpers' folder is put in place by one rename; the old one goes after.
mkdir -p "$prefix/bin" "$prefix/lib" || fail "cannot write to $prefix"
staging=$(mktemp -d "$prefix/lib/.cudnnenv-new.XXXXXX") || fail "cannot write to $prefix/lib"
chmod 755 "$staging"  # mktemp's 0700 would keep a --prefix shared with others from them
cp -R "$work/$top/lib/cudnnenv/." "$staging/"
if [ -d "$prefix/lib/cudnnenv" ]; then
  old="$prefix/lib/.cudnnenv-old.$$"
  mv "$prefix/lib/cudnnenv" "$old"
  mv "$staging" "$prefix/lib/cudnnenv" || { mv "$old" "$prefix/lib/cudnnenv"; fail "cannot replace $prefix/lib/cudnnenv"; }
  rm -rf "$old"
else
  mv "$staging" "$prefix/lib/cudnnenv"
fi
staging=''
for program in cudnnenv cudnnenv-task-prolog; do
  ln -sfn "../lib/cudnnenv/$program" "$prefix/bin/$program"
done
mkdir -p "$prefix/share"
(cd "$work/$top/share" && find . -type f ! -path './doc/*') | while read -r file; do
  mkdir -p "$prefix/share/$(dirname "$file")"
  cp "$work/$top/share/$file" "$prefix/share/$file"
done
say "installed $version into $prefix (bin/cudnnenv, lib/cudnnenv/)"

# The one line for this user's shell, the folder quoted for it.
quoted=$(printf "%s" "$prefix/bin" | sed "s/'/'\\\\''/g")  # sh: ' as '\''
fish_quoted=$(printf "%s" "$prefix/bin" | sed -e 's/\\/\\\\/g' -e "s/'/\\\\'/g")  # fish: \\ and \'
case :$PATH: in
  *":$prefix/bin:"*) on_path=yes ;;
  *) on_path=no ;;
esac
shell=${SHELL:-}  # unset where no login shell set it (a container, a CI runner): the bash line
case ${shell##*/} in
  fish)
    file='~/.config/fish/config.fish'
    if [ $on_path = yes ]; then add='cudnnenv init fish | source'
    else add="set -gx PATH '$fish_quoted' \$PATH; cudnnenv init fish | source"; fi ;;
  zsh)
    file='~/.zshrc'
    if [ $on_path = yes ]; then add='eval "$(cudnnenv init zsh)"'
    else add="export PATH='$quoted':\"\$PATH\"; eval \"\$(cudnnenv init zsh)\""; fi ;;
  *)
    file='~/.bashrc'
    if [ $on_path = yes ]; then add='eval "$(cudnnenv init bash)"'
    else add="export PATH='$quoted':\"\$PATH\"; eval \"\$(cudnnenv init bash)\""; fi ;;
esac
say "add this line to $file, then open a new shell:"
printf '  %s\n' "$add"
