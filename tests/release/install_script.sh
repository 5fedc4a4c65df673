#!/usr/bin/env bash
# install.sh (#60), as a user runs it: from a local HTTP server and from a
# folder it installs the tarball for this machine into a prefix without root,
# checked against SHA256SUMS, and says the one line to add to the shell; the
# installed cudnnenv's selftest holds. A tarball whose hash differs is
# refused, with nothing left in the prefix or the temporary folder.
source "$(dirname "$0")/lib.sh" "$@"
tarball=cudnnenv-$VERSION-linux-x86_64.tar.gz
mkdir -p srv tmp
cp "$DIST/SHA256SUMS" "$DIST/$tarball" "$DIST/install.sh" srv/
python3 "$E2E_DIR/http_server.py" --root srv --log server.log --port-file server.port &
server=$!
trap 'kill $server 2> /dev/null; cleanup' EXIT
for _ in $(seq 100); do [ -s server.port ] && break; sleep 0.05; done
[ -s server.port ] || fail "the test server did not start"
url=http://127.0.0.1:$(cat server.port)

# From the server, as `curl -LsSf URL/install.sh | sh` runs it.
curl -fsS "$url/install.sh" | HOME=$WORK/home SHELL=/bin/bash PATH=/usr/bin:/bin TMPDIR=$WORK/tmp CUDNNENV_DIST=$url sh \
  > install.out 2> install.err || fail "install.sh from $url: $(cat install.out install.err)"
expect_eq "$(cat install.out)" "cudnnenv install: installed cudnnenv $VERSION into $WORK/home/.local (bin/cudnnenv, lib/cudnnenv/)
cudnnenv install: add this line to ~/.bashrc, then open a new shell:
  export PATH='$WORK/home/.local/bin':\"\$PATH\"; eval \"\$(cudnnenv init bash)\"" "what install.sh says"
expect_eq "$(cat install.err)" "" "install.sh's errors"
expect_eq "$(grep -c ' 200$' server.log)" "3" "install.sh, SHA256SUMS and the tarball, each fetched once"
expect_eq "$(readlink home/.local/bin/cudnnenv)" "../lib/cudnnenv/cudnnenv" "bin/cudnnenv"
expect_eq "$(stat -c %a home/.local/lib/cudnnenv home/.local/lib/cudnnenv/cudnnenv)" "755
755" "the helpers' folder and cudnnenv: readable and runnable by every user, as the tarball has them"
expect_eq "$(ls -A tmp)" "" "the temporary folder after the install"
# The line it printed, run in a new shell, finds cudnnenv and its hook.
env -i HOME="$WORK/home" PATH=/usr/bin:/bin bash --norc --noprofile -c "$(sed -n 3p install.out); type -t _cudnnenv_hook; cudnnenv --version" \
  > line.out 2>&1 || fail "the printed line: $(cat line.out)"
expect_eq "$(cat line.out)" "function
cudnnenv $VERSION" "the printed line in a new shell"
home/.local/bin/cudnnenv selftest --json > selftest.json 2> selftest.err || fail "selftest: $(cat selftest.json selftest.err)"
expect_eq "$(selftest_verdict selftest.json)" \
  "True ['held']" "selftest of the cudnnenv install.sh installed"
# Where no login shell set SHELL (a container, a CI runner): the line for bash, and exit 0.
env -u SHELL HOME="$WORK/home2" PATH=/usr/bin:/bin TMPDIR="$WORK/tmp" CUDNNENV_DIST=$url sh srv/install.sh \
  > noshell.out 2> noshell.err || fail "install.sh without SHELL: $(cat noshell.out noshell.err)"
expect_eq "$(sed -n 2,3p noshell.out)" "cudnnenv install: add this line to ~/.bashrc, then open a new shell:
  export PATH='$WORK/home2/.local/bin':\"\$PATH\"; eval \"\$(cudnnenv init bash)\"" "install.sh where SHELL is unset"
pass "install.sh from an HTTP server: installed into ~/.local without root, the shell line works, selftest holds"

# From a folder (a copy of dist/), into a --prefix whose name holds what each shell reads specially: the line
# install.sh prints for bash, zsh and fish, run in that shell, finds the cudnnenv it installed.
for shell in bash zsh fish; do
  prefix="$WORK/p '\$HOME\\ \"$shell"
  HOME=$WORK/home SHELL=/usr/bin/$shell TMPDIR=$WORK/tmp sh srv/install.sh --dist "$WORK/srv" --prefix "$prefix" \
    > "$shell.out" 2> "$shell.err" || fail "install.sh --dist FOLDER: $(cat "$shell.out" "$shell.err")"
  line=$(sed -n 3p "$shell.out")
  case $shell in
    bash) env -i HOME="$WORK/home" PATH=/usr/bin:/bin bash --norc --noprofile -c "$line; type -P cudnnenv" ;;
    zsh) env -i HOME="$WORK/home" PATH=/usr/bin:/bin zsh -f -c "$line; whence -p cudnnenv" ;;
    fish) env -i HOME="$WORK/home" PATH=/usr/bin:/bin fish --no-config -c "$line; command -s cudnnenv" ;;
  esac > "$shell-line.out" 2>&1 || fail "the line for $shell ($line): $(cat "$shell-line.out")"
  expect_eq "$(cat "$shell-line.out")" "$prefix/bin/cudnnenv" "the line install.sh printed for $shell, run in $shell"
done
expect_eq "$(sed -n 3p fish.out)" "  set -gx PATH '$WORK/p \\'\$HOME\\\\ \"fish/bin' \$PATH; cudnnenv init fish | source" "the line for fish"
pass "install.sh from a folder into --prefix: the lines for bash, zsh and fish find it, whatever the folder's name"

# A tampered tarball: refused, the installed cudnnenv untouched, nothing left.
cp -a home/.local installed-before
printf 'x' | dd of="srv/$tarball" bs=1 seek=100 conv=notrunc status=none
actual=$(sha256sum "srv/$tarball" | cut -d' ' -f1)
expected=$(grep "  $tarball\$" "$DIST/SHA256SUMS" | cut -d' ' -f1)
HOME=$WORK/home TMPDIR=$WORK/tmp CUDNNENV_DIST=$url sh srv/install.sh > bad.out 2> bad.err && fail "a tampered tarball was installed"
expect_eq "$(cat bad.out bad.err)" "cudnnenv install: error: $tarball's SHA-256 is $actual, where SHA256SUMS says $expected: not installed (nothing was changed)" "a tampered tarball"
HOME=$WORK/home TMPDIR=$WORK/tmp sh srv/install.sh --dist "$WORK/srv" --prefix "$WORK/fresh" > bad2.out 2> bad2.err &&
  fail "a tampered tarball was installed from a folder"
expect_eq "$(cat bad2.err)" "cudnnenv install: error: $tarball's SHA-256 is $actual, where SHA256SUMS says $expected: not installed (nothing was changed)" "a tampered tarball from a folder"
expect_eq "$(diff -r installed-before home/.local && echo same)" "same" "the installed cudnnenv after the refusal"
expect_eq "$(ls -A tmp)" "" "the temporary folder after the refusals"
[ ! -e fresh ] || fail "install.sh left $(find fresh) for a refused tarball"
pass "a tampered tarball: refused, from the server and from a folder, with nothing changed or left"
