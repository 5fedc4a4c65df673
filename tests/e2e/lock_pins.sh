#!/usr/bin/env bash
# A lock keeps its pins (#62 item 2), as uv's and pixi's do: a new release in
# the index leaves cudnnenv.lock as it is (`lock` says up to date, `lock
# --check` passes); `lock --upgrade` (or -P cudnn) moves the pin and prints
# "Updated cudnn OLD -> NEW (platform)"; when the platforms then lock
# different releases, a warning names each and the line of .cudnnenv.toml that
# makes them agree; with that line, the platforms agree again; `use --local`
# in the locked project says the lock no longer matches (#62 item 6). The
# index is a test one (CUDNNENV_INDEX); nothing is fetched.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_MIRROR
export https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9

# index_row VERSION PLATFORM: an index line for cuDNN VERSION (cuda13) on PLATFORM, with a made-up SHA-256.
index_row() {
  local os=${2%%-*} extension=tar.xz
  [ "$os" = windows ] && extension=zip
  local file="cudnn-$2-$1_cuda13-archive.$extension"
  printf '%s\t%s\tcuda13\t%s\t%s\t1000\thttps://developer.download.nvidia.com/compute/cudnn/redist/cudnn/%s/%s\n' \
    "$1" "$2" "$file" "$(printf '%s %s' "$1" "$2" | sha256sum | cut -d' ' -f1)" "$2" "$file"
}
header='cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n'
{ printf "$header"; index_row 9.20.0.48 linux-x86_64; index_row 9.20.0.48 windows-x86_64; } > before.tsv
{ cat before.tsv; index_row 9.21.0.82 linux-x86_64; } > after.tsv

mkdir project && cd project
printf 'cudnn = "9"\ncuda = "13"\n[lock]\nplatforms = ["linux-x86_64", "windows-x86_64"]\n' > .cudnnenv.toml
CUDNNENV_INDEX="$WORK/before.tsv" run lock
expect_eq "$rc:$(cat out)" "0:wrote $WORK/project/cudnnenv.lock
  linux-x86_64    cuDNN 9.20.0.48 (cuda13)  cudnn-linux-x86_64-9.20.0.48_cuda13-archive.tar.xz
  windows-x86_64  cuDNN 9.20.0.48 (cuda13)  cudnn-windows-x86_64-9.20.0.48_cuda13-archive.zip" "the first lock"
cp cudnnenv.lock first.lock

export CUDNNENV_INDEX="$WORK/after.tsv"
run lock
expect_eq "$rc:$(cat out)$(cat err)" "0:up to date: $WORK/project/cudnnenv.lock
  linux-x86_64    cuDNN 9.20.0.48 (cuda13)  cudnn-linux-x86_64-9.20.0.48_cuda13-archive.tar.xz
  windows-x86_64  cuDNN 9.20.0.48 (cuda13)  cudnn-windows-x86_64-9.20.0.48_cuda13-archive.zip" \
  "a newer release in the index: the pins stay"
cmp -s cudnnenv.lock first.lock || fail "lock rewrote the pins: $(diff first.lock cudnnenv.lock)"
run lock --check
expect_eq "$rc:$(cat out)" "0:up to date: $WORK/project/cudnnenv.lock" "lock --check: a kept pin is current"
run lock -P cuda
expect_eq "$rc:$(head -1 out)" "0:up to date: $WORK/project/cudnnenv.lock" "-P cuda leaves the cuDNN pin"
pass "a lock keeps every pin that .cudnnenv.toml still takes, whatever is newer in the index"

run lock --upgrade
expect_eq "$rc:$(cat out)" "0:wrote $WORK/project/cudnnenv.lock
Updated cudnn 9.20.0.48 (cuda13) -> 9.21.0.82 (cuda13) (linux-x86_64)
  linux-x86_64    cuDNN 9.21.0.82 (cuda13)  cudnn-linux-x86_64-9.21.0.82_cuda13-archive.tar.xz
  windows-x86_64  cuDNN 9.20.0.48 (cuda13)  cudnn-windows-x86_64-9.20.0.48_cuda13-archive.zip" "lock --upgrade"
expect_eq "$(cat err)" "cudnnenv: warning: the platforms lock different cuDNN releases: 9.21.0.82 (linux-x86_64), 9.20.0.48 (windows-x86_64); to make them agree, name one in $WORK/project/.cudnnenv.toml: cudnn = \"9.20.0\" (one every platform has), then run 'cudnnenv lock'" \
  "platforms that lock different releases: said, with the line that makes them agree"
cp first.lock cudnnenv.lock
run lock -P cudnn
expect_eq "$rc:$(sed -n 2p out)" "0:Updated cudnn 9.20.0.48 (cuda13) -> 9.21.0.82 (cuda13) (linux-x86_64)" "-P cudnn"
printf 'cudnn = "9.20.0"\ncuda = "13"\n[lock]\nplatforms = ["linux-x86_64", "windows-x86_64"]\n' > .cudnnenv.toml
run lock
expect_eq "$rc:$(sed -n 2p out):$(cat err)" "0:Updated cudnn 9.21.0.82 (cuda13) -> 9.20.0.48 (cuda13) (linux-x86_64):" \
  "the hint's line: the platforms agree, no warning"
pass "lock --upgrade and -P cudnn move the pin and say so; platforms that disagree are warned of, with the fix"

# use --local in a locked project (#62 item 6): the lock no longer matches the file, and `use` says so with the
# command that writes it again (until then the file decides, not the lock).
source "$E2E_DIR/trees.sh"
make_linux_tree "$WORK/t" 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install "$WORK/t" --name t9.1 > /dev/null 2>&1 || fail "install t9.1"
run use 9.1 --cuda 12 --local
expect_eq "$rc:$(cat err)" "0:cudnnenv: wrote $WORK/project/.cudnnenv.toml: cudnn = \"9.1\", cuda = \"12\" -> t9.1 (cuDNN 9.1.0)
cudnnenv: $WORK/project/cudnnenv.lock no longer matches it (cudnn: the lock was made for \"9.20.0\", .cudnnenv.toml now says \"9.1\"; cuda: the lock was made for \"13\", .cudnnenv.toml now says \"12\"): 'cudnnenv lock' writes it again (then commit it); until then current, exec and the shims take what .cudnnenv.toml says" \
  "use --local in a locked project"
pass "use --local in a locked project says the lock is now stale, and how to write it again"

# The README's order (#62 item 5): install a release, `use VERSION --local`, `lock`. NVIDIA ships 9.19.0.56 for
# CUDA 13 and 12, and a lock looks at no toolkit: `use --local` writes the CUDA of the build it resolved to.
mkdir "$WORK/readme" && cd "$WORK/readme"
archive=cudnn-linux-x86_64-9.19.0.56_cuda13-archive
make_linux_tree "$archive" 9.19.0 "$FIXTURES/fake-elf64-9.19.0.so" && tar cJf "$archive.tar.xz" "$archive"
{
  printf "$header"
  for cuda in 13 12; do
    file="cudnn-linux-x86_64-9.19.0.56_cuda$cuda-archive.tar.xz"
    printf '9.19.0.56\tlinux-x86_64\tcuda%s\t%s\t%s\t1000\thttps://developer.download.nvidia.com/compute/cudnn/redist/cudnn/linux-x86_64/%s\n' \
      "$cuda" "$file" "$(sha256sum "$archive.tar.xz" | cut -d' ' -f1)" "$file"
  done
} > "$WORK/readme.tsv"
export CUDNNENV_INDEX="$WORK/readme.tsv"
"$CUDNNENV" install "./$archive.tar.xz" > /dev/null 2>&1 || fail "install $archive"
run use 9.19 --local
expect_eq "$rc:$(cat err)" "0:cudnnenv: wrote $WORK/readme/.cudnnenv.toml: cudnn = \"9.19\", cuda = \"13\" -> 9.19.0.56-cuda13 (cuDNN 9.19.0.56)" \
  "use --local: the CUDA of the build it resolved to"
run lock
expect_eq "$rc:$(cat out)" "0:wrote $WORK/readme/cudnnenv.lock
  linux-x86_64    cuDNN 9.19.0.56 (cuda13)  $archive.tar.xz" "lock after use --local"
pass "install, use VERSION --local, lock: the README's order locks the build installed"
