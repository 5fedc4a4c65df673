#!/usr/bin/env bash
# A store this user cannot write (#15: a cluster's shared store, installed by
# an admin): as an unprivileged user (setpriv to nobody) with a writable home
# folder, `list`, `current`, `which`, `exec`, a shim and `verify --level
# load` work, and what the user writes (the pin-check cache, shims and their
# recorded decisions, `use --global`, trust) goes to the user's own state
# folder (~/.local/state/cudnnenv, or CUDNNENV_STATE_DIR), never the store.
# The store's own config.toml is the default for every user until the user
# sets one. Needs root, to run the rest as another user (exit 77 otherwise).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] && command -v setpriv > /dev/null || { echo "skip: needs root and setpriv"; exit 77; }
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED _CUDNNENV_STATE CUDNNENV_ACTIVE CUDNNENV_STATE_DIR XDG_STATE_HOME
# Everything the unprivileged user runs lives in a folder it can read.
shared=$(mktemp -d /tmp/cudnnenv-shared-XXXXXX)
trap 'rm -rf "$shared"; cleanup' EXIT
mkdir -p "$shared/bin" "$shared/home" "$shared/project/sub"
cp "$(dirname "$CUDNNENV")"/cudnnenv* "$(dirname "$CUDNNENV")"/libcudnnenv-audit*.so "$shared/bin/" 2> /dev/null || true
cp "$FIXTURES/load-cudnn" "$shared/bin/"
rm -f "$shared/bin/cudnnenv_tests"
store=$shared/store
make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
make_linux_tree t92 9.2.0 "$FIXTURES/fake-elf64-9.2.0.so"
# The admin's part, as root: two trees and the store's default.
CUDNNENV_ROOT=$store "$shared/bin/cudnnenv" install t91 --name t91 > /dev/null
CUDNNENV_ROOT=$store "$shared/bin/cudnnenv" install t92 --name t92 > /dev/null
CUDNNENV_ROOT=$store "$shared/bin/cudnnenv" use --global t91 > /dev/null 2>&1
chmod -R a+rX,go-w "$shared"
chown nobody "$shared/home" "$shared/project" "$shared/project/sub"
printf 'cudnn = "9.2"\n' > "$shared/project/sub/.cudnnenv.toml" && chown nobody "$shared/project/sub/.cudnnenv.toml"
before=$(cd "$store" && find . -printf '%p %s %T@\n' | sort)

# as_user CMD...: as nobody, in the project folder, HOME the writable folder; out, err and rc as `run` sets them.
as_user() {
  run_program setpriv --reuid=nobody --regid=nogroup --clear-groups \
    env -i PATH=/usr/bin:/bin HOME="$shared/home" CUDNNENV_ROOT="$store" ${USER_ENV:-} \
    sh -c 'cd "$0" && exec "$@"' "${WORKDIR:-$shared/project}" "$@"
}
state=$shared/home/.local/state/cudnnenv

as_user "$shared/bin/cudnnenv" list
expect_eq "$rc" "0" "list: $(cat err)"
expect_eq "$(awk 'NR > 1 {print $1}' out)" "t92
t91" "list"
as_user "$shared/bin/cudnnenv" current
expect_eq "$(cat out)" "9.1.0  t91  (set by $store/.cudnnenv/config.toml, the global default)" "current: the store's default"
as_user "$shared/bin/cudnnenv" which
expect_eq "$(cat out)" "$store/t91/lib/libcudnn.so.9" "which"
as_user "$shared/bin/cudnnenv" verify t91 --level load
expect_eq "$rc" "0" "verify --level load: $(cat err)"
as_user "$shared/bin/cudnnenv" -v exec -- "$shared/bin/load-cudnn"
expect_eq "$rc" "0" "exec: $(cat err)"
expect_eq "$(cat out)" "90100" "exec pins the store's tree"
[ -f "$state/cache/pin-checks" ] || fail "the pin-check cache is not in the user's state folder: $(find "$shared/home")"
as_user "$shared/bin/cudnnenv" -v exec -- "$shared/bin/load-cudnn"
grep -qx "cudnnenv: debug: pin check (load) of 't91': passed before, no file changed since (cache)" err ||
  fail "the second exec did not use the cached check: $(cat err)"
pass "list, current, which, verify and exec on a store this user cannot write"

# A shim: in the user's state folder; its first start records the decision there, the next uses it.
as_user "$shared/bin/cudnnenv" shim add load-cudnn --target "$shared/bin/load-cudnn"
expect_eq "$rc" "0" "shim add: $(cat err)"
expect_eq "$(cat err)" "cudnnenv: the store '$store' is not yours to write: the shim is yours, in your state folder $state" "shim add says where it wrote"
[ -x "$state/shims/load-cudnn" ] || fail "the shim is not in the user's state folder"
WORKDIR=$shared/project/sub as_user "$state/shims/load-cudnn"
expect_eq "$(cat out)" "90200" "the shim pins the project's tree"
expect_eq "$(ls "$state/cache/launch" | wc -l)" "1" "the decision recorded in the user's state folder"
WORKDIR=$shared/project/sub USER_ENV="CUDNNENV_LOG=debug" as_user "$state/shims/load-cudnn"
expect_eq "$(cat out)" "90200" "the shim's second start"
expect_eq "$(cat err)" "" "the second start takes the fast path (cudnnenv, which would log, never ran)"
pass "a shim on a store this user cannot write"

# use --global: the user's own default, in the state folder; it wins over the store's.
as_user "$shared/bin/cudnnenv" use --global t92
expect_eq "$rc" "0" "use --global: $(cat err)"
grep -qx "cudnnenv: the store '$store' is not yours to write: this default is yours, in your state folder $state; the store's own default stays for everyone else" err ||
  fail "use --global says where it wrote: $(cat err)"
as_user "$shared/bin/cudnnenv" current
expect_eq "$(cat out)" "9.2.0  t92  (set by $state/config.toml, the global default)" "the user's default"
USER_ENV="CUDNNENV_STATE_DIR=$shared/home/elsewhere" as_user "$shared/bin/cudnnenv" current
expect_eq "$(cat out)" "9.1.0  t91  (set by $store/.cudnnenv/config.toml, the global default)" "CUDNNENV_STATE_DIR names another state folder"
expect_eq "$(cd "$store" && find . -printf '%p %s %T@\n' | sort)" "$before" "the store untouched"
pass "the user's state beside a shared store"

# HOME unset (#28, item 8): the state folder is never the working folder, whose trust records anyone
# could plant. A project whose [env] sets BASH_ENV, "trusted" by a record planted in the project folder
# where a relative state folder would have looked: nobody's own home (/etc/passwd) is used instead.
planted=$shared/plant
mkdir -p "$planted"
printf 'cudnn = "9.2"\n[env]\nBASH_ENV = "/tmp/planted"\n' > "$planted/.cudnnenv.toml"
(cd "$planted" && CUDNNENV_ROOT=$store CUDNNENV_STATE_DIR="$planted/.local/state/cudnnenv" "$shared/bin/cudnnenv" trust > /dev/null)
chmod -R a+rX "$planted"
run_program setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH=/usr/bin:/bin CUDNNENV_ROOT="$store" \
  sh -c 'cd "$0" && exec "$@"' "$planted" "$shared/bin/cudnnenv" activate --shell bash
expect_eq "$rc" "0" "activate with HOME unset: $(cat err)"
grep -q BASH_ENV out && fail "a planted trust record in the working folder exported BASH_ENV: $(cat out)"
grep -q "sets variables (\[env\]) and is not trusted: they were not set" err || fail "the [env] is said to be untrusted: $(cat err)"
pass "HOME unset: the state folder is the account's own, never the working folder (a planted trust record is not used)"

# A personal store over the shared one (pyenv's user and system versions): what the user installs goes to
# ~/.local/share/cudnnenv; list shows both, the user's first, each marked; exec and a shim take the user's
# tree; remove of a shared tree names whose store it is and where the user's trees go; the user's own goes.
make_linux_tree t94 9.4.0 "$FIXTURES/fake-elf64-9.4.0.so"
mv t94 "$shared/t94" && chmod -R a+rX "$shared/t94"
mine=$shared/home/.local/share/cudnnenv
as_user "$shared/bin/cudnnenv" install "$shared/t94" --name t94
expect_eq "$rc:$(head -n 2 out)" "0:installed 't94': cuDNN 9.4.0, CUDA 12.4, Linux x86_64, 122 kB
  location: $mine/t94" "install into the user's own store: $(cat err)"
as_user "$shared/bin/cudnnenv" list
expect_eq "$(awk '{print $1, $NF}' out)" "NAME LOCATION
t94 (yours)
t92 (shared)
t91 (shared)" "list: the user's trees first, each marked"
as_user "$shared/bin/cudnnenv" exec --cudnn t94 -- "$shared/bin/load-cudnn"
expect_eq "$rc:$(cat out)" "0:90400" "exec of the user's tree: $(cat err)"
USER_ENV="CUDNNENV_VERSION=t94" as_user "$state/shims/load-cudnn"
expect_eq "$(cat out)" "90400" "the shim with the user's tree selected"
as_user "$shared/bin/cudnnenv" remove t91 --yes
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: cannot remove 't91': the store '$store' belongs to root: your own trees go to '$mine'
  hint: ask whoever manages that store; install or adopt a tree of your own, and it is yours" "remove of a shared tree"
as_user "$shared/bin/cudnnenv" remove t94 --yes
expect_eq "$rc:$(cat out)" "0:removed 't94'" "remove of the user's own tree: $(cat err)"
expect_eq "$(cd "$store" && find . -printf '%p %s %T@\n' | sort)" "$before" "the shared store untouched"
pass "a personal store over the shared one: install, list (marked), exec, a shim and remove as pyenv's user versions"
