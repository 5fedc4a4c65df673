#!/usr/bin/env bash
# The security issue's cases (#10), each as the attacker or the unlucky user
# would meet it, through the built program and real bash, zsh and fish:
#  1. [env] key names that are shell code, by activate and by the prompt hook
#  2. `use --local` / `--global` with the integration loaded, in a folder
#     whose name is shell code
#  3. a symbolic link to a trusted project file
#  4. [env] of an untrusted project file (LD_PRELOAD), trust, edit
#  6. crafted files that used to abort (zip64 wrap, MZ e_lfanew, a header
#     ending in '#define CUDNN_MAJOR ', a sparse tar hole under a memory limit)
#  7. what an archive may unpack to: ratio, total, overlapping entries
#  8. escapes in names, a './' tarball, stale config.toml.tmp files
#  9-11. names in JSON and logs, escape sequences in names, huge project files
#  12. a library planted where discover, doctor and snapshot look
# Every case compares whole messages; a marker file proves nothing ran.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
unset CUDNNENV_VERSION CUDNNENV_SHELL _CUDNNENV_STATE CUDNNENV_ACTIVE LD_PRELOAD
export LD_LIBRARY_PATH=/pre

# expect_error RC MESSAGE HINT: the last run failed with exactly these two lines.
expect_error() {
  expect_eq "$rc" "$1" "exit code ($(cat err))"
  expect_eq "$(cat err)" "cudnnenv: error: $2
  hint: $3" "error"
}
# An address-space limit for a step, except for a sanitizer build (ctest sets
# CUDNNENV_SANITIZED), whose shadow memory needs terabytes of address space.
if [ "${CUDNNENV_SANITIZED:-}" = 1 ]; then
  memory_limit() { :; }
else
  memory_limit() { ulimit -v "$1"; }
fi
no_marker() { [ -z "$(find "$WORK" -name 'PWNED*' -print -quit)" ] || fail "$1: a marker file appeared: code ran"; }

make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install t91 --name t91 > /dev/null
mkdir bin && ln -s "$CUDNNENV" bin/cudnnenv
export PATH="$WORK/bin:$PATH"

# --- 1. [env] key names are never code ---------------------------------------
mkdir p1 && cd p1
printf 'cudnn = "t91"\n[env]\n"X;touch PWNED;#" = "1"\n' > .cudnnenv.toml
for shell in bash zsh fish powershell cmd; do
  run activate --shell "$shell"
  expect_error 1 "$WORK/p1/.cudnnenv.toml:3:1: 'X;touch PWNED;#' is not a variable name" \
    "[env] names are letters, digits and '_', not starting with a digit"
done
for name in '1X' 'A-B' 'A B' 'CUDNNENV_VERSION' '_CUDNNENV_STATE' 'É'; do
  printf 'cudnn = "t91"\n[env]\n"%s" = "1"\n' "$name" > .cudnnenv.toml
  run activate --shell bash
  expect_eq "$rc" "1" "[env] name '$name' refused"
done
printf 'cudnn = "t91"\n[env]\n"X;touch PWNED;#" = "1"\n' > .cudnnenv.toml
cd "$WORK"
# The prompt hook after a plain cd, in each shell with the integration.
printf '%s\n' 'eval "$(cudnnenv init bash)"' 'cd p1' 'echo "active=$CUDNNENV_ACTIVE"' |
  bash --norc --noprofile -i > hook.out 2> hook.err
grep -q "^active=$" hook.out || fail "bash hook: $(cat hook.out)"
grep -q "cudnnenv: error: $WORK/p1/.cudnnenv.toml:3:1: 'X;touch PWNED;#' is not a variable name" hook.err ||
  fail "bash hook message: $(cat hook.err)"
zsh -f -c 'eval "$(cudnnenv init zsh)"; cd p1; _cudnnenv_hook; echo "active=$CUDNNENV_ACTIVE"' > hook.out 2> hook.err
grep -q "^active=$" hook.out || fail "zsh hook: $(cat hook.out)"
printf '%s\n' 'cudnnenv init fish | source' 'cd p1' 'echo "active=$CUDNNENV_ACTIVE"' | fish --no-config > hook.out 2> hook.err
grep -q "^active=$" hook.out || fail "fish hook: $(cat hook.out)"
no_marker "[env] key names"
pass "1: an [env] key that is not a variable name is refused with file:line:col by activate and the hook, in every shell"

# --- 2. use --local / --global with the integration loaded --------------------
for shell in bash zsh fish; do
  dir="$WORK/q(touch PWNED_$shell) \$(touch PWNED_$shell) \`touch PWNED_$shell\`; & | ' \""
  mkdir -p "$dir"
  case $shell in
    bash) bash --norc --noprofile -c 'eval "$(cudnnenv init bash)"; cd "$1"; cudnnenv use t91 --local; echo "rc=$? active=$CUDNNENV_ACTIVE"; cudnnenv use t91 --global; echo "rc=$? active=$CUDNNENV_ACTIVE"' _ "$dir" > use.out 2> use.err ;;
    zsh) zsh -f -c 'eval "$(cudnnenv init zsh)"; cd "$1"; cudnnenv use t91 --local; echo "rc=$? active=$CUDNNENV_ACTIVE"; cudnnenv use t91 --global; echo "rc=$? active=$CUDNNENV_ACTIVE"' _ "$dir" > use.out 2> use.err ;;
    fish) fish --no-config -c 'cudnnenv init fish | source; cd $argv[1]; cudnnenv use t91 --local; echo "rc=$status active=$CUDNNENV_ACTIVE"; cudnnenv use t91 --global; echo "rc=$status active=$CUDNNENV_ACTIVE"' "$dir" > use.out 2> use.err ;;
  esac
  expect_eq "$(cat use.out)" "rc=0 active=t91
rc=0 active=t91" "$shell: use --local and --global with the integration ($(cat use.err))"
  expect_eq "$(cat use.err)" "cudnnenv: wrote $dir/.cudnnenv.toml: cudnn = \"t91\" -> t91 (cuDNN 9.1.0)
cudnnenv: global default: t91 -> t91 (cuDNN 9.1.0)" "$shell: what use says, on stderr"
  expect_eq "$(cat "$dir/.cudnnenv.toml")" 'cudnn = "t91"' "$shell: the project file"
  no_marker "$shell: use --local in a hostile folder"
done
rm -f "$CUDNNENV_ROOT/.cudnnenv/config.toml"
pass "2: use --local/--global print their message on stderr; the shell evaluates nothing of it and switches at once"

# --- 3. a link to a trusted project file is not trusted -----------------------
make_linux_tree good/vendor 9.2.0 "$FIXTURES/fake-elf64-9.2.0.so"
make_linux_tree attacker/vendor 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
printf 'path = "vendor"\n' > good/.cudnnenv.toml
(cd good && "$CUDNNENV" trust > /dev/null)
ln -s ../good/.cudnnenv.toml attacker/.cudnnenv.toml
cd good
run which
expect_eq "$(cat out)" "$WORK/good/vendor/lib/libcudnn.so.9" "which in the trusted folder"
cd ../attacker
run which
expect_error 1 "'$WORK/attacker/.cudnnenv.toml' points outside the store (path = 'vendor') and is a symbolic link, which is never trusted" \
  "a project file that changes what loads must be a file of its own folder"
run trust
expect_error 1 "'$WORK/attacker/.cudnnenv.toml' is a symbolic link (to '$WORK/good/.cudnnenv.toml'), which cudnnenv never trusts" \
  "trust the file itself in its own folder, or replace the link with a copy and trust that"
cd "$WORK"
pass "3: a link to a trusted project file is not trusted, and cannot be"

# --- 4. [env] needs trust ------------------------------------------------------
mkdir p4 && cd p4
printf 'cudnn = "t91"\n[env]\nLD_PRELOAD = "./x.so"\nTF_CPP_MIN_LOG_LEVEL = "2"\n' > .cudnnenv.toml
withheld="cudnnenv: warning: '$WORK/p4/.cudnnenv.toml' sets variables ([env]) and is not trusted: they were not set (hint: read it, then run 'cudnnenv trust' in '$WORK/p4')"
for shell in bash zsh fish powershell cmd; do
  run activate --shell "$shell"
  expect_eq "$rc" "0" "$shell: untrusted activation still selects"
  expect_eq "$(cat err)" "$withheld
cudnnenv: activated 't91' (cuDNN 9.1.0) in this shell" "$shell: the warning, then what was activated"
  ! grep -q -e LD_PRELOAD -e TF_CPP out || fail "$shell: an untrusted [env] reached the script: $(cat out)"
done
"$CUDNNENV" trust > /dev/null
run activate --shell bash
expect_eq "$(grep -e "^export LD_PRELOAD" -e "^export TF_CPP" out)" "export LD_PRELOAD='./x.so'
export TF_CPP_MIN_LOG_LEVEL='2'" "trusted: [env] exported"
echo '# edited' >> .cudnnenv.toml
run activate --shell bash
expect_eq "$(cat err)" "cudnnenv: warning: '$WORK/p4/.cudnnenv.toml' sets variables ([env]) and changed since it was trusted: they were not set (hint: read it, then run 'cudnnenv trust' in '$WORK/p4')
cudnnenv: activated 't91' (cuDNN 9.1.0) in this shell" "edited after trust"
! grep -q LD_PRELOAD out || fail "an edited file's [env] reached the script"
cd "$WORK"
bash --norc --noprofile -c 'eval "$(cudnnenv init bash)"; cd p4; _cudnnenv_hook; echo "preload=${LD_PRELOAD-unset}"' > hook.out 2> /dev/null
expect_eq "$(cat hook.out)" "preload=unset" "the hook does not export an untrusted [env]"
pass "4: [env] is set only for a trusted project file, and trust ends when the file changes"

# --- 6 and 7. crafted files: one line, exit 1, never an abort ----------------
python3 "$E2E_DIR/../crafted/make_crafted.py" crafted
install_refused() {  # FILE MESSAGE HINT [install options...]
  local file=$1 message=$2 hint=$3
  shift 3
  run install "$file" "$@"
  expect_error 1 "$message" "$hint"
}
corrupt_hint="the file is truncated or damaged: download it again and compare its SHA-256"
# A 3 GiB claim under a 1 GiB address-space limit: refused before any allocation.
(memory_limit 1048576; install_refused crafted/zip64-wrap-3g.zip \
  "'$WORK/crafted/zip64-wrap-3g.zip' is not a valid zip archive: central directory beyond the end of the file (truncated?)" \
  "$corrupt_hint")
install_refused crafted/zip64-wrap.zip \
  "'$WORK/crafted/zip64-wrap.zip' is not a valid zip archive: central directory beyond the end of the file (truncated?)" \
  "$corrupt_hint"
install_refused crafted/overlap.zip \
  "'$WORK/crafted/overlap.zip' is not a safe zip archive: entry 'cuda/bin/a.dll' overlaps 'cuda/bin/b.dll'" \
  "entries that share bytes make a small file unpack to a huge one: use an official archive"
install_refused crafted/bomb.zip "'bomb.zip' unpacks to more than 50 times its size (1.0 MB): refused as a decompression bomb" \
  "official cuDNN archives unpack to less than 5 times their size; if you trust this one, raise the limit with --max-ratio N"
install_refused crafted/bomb.zip "'bomb.zip' unpacks to more than 100 MiB, the limit for one tree" \
  "official cuDNN archives unpack to a few GB; if you trust this one, raise the limit with --max-unpacked SIZE" \
  --max-ratio 0 --max-unpacked 100M
[ -z "$(ls -A "$CUDNNENV_ROOT/.cudnnenv/staging")" ] || fail "a refused archive left files in staging"
mkdir mz && cp crafted/mz-lfanew.dll mz/
(cd mz && zip -q ../mz.zip mz-lfanew.dll)
install_refused mz "'mz-lfanew.dll' is an MZ file with no PE header where it says one is, not Linux x86_64" \
  "use the Linux archive for this machine (cudnn-linux-x86_64-*-archive.tar.xz)"
install_refused mz.zip "'mz-lfanew.dll' is an MZ file with no PE header where it says one is, not Linux x86_64" \
  "use the Linux archive for this machine (cudnn-linux-x86_64-*-archive.tar.xz)"
run discover --no-load --json
expect_eq "$rc" "0" "discover beside the crafted DLL"

make_linux_tree header 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
printf '#define CUDNN_MAJOR ' > header/include/cudnn_version.h
header_hint="the header is damaged or not cuDNN's"
install_refused header "'$CUDNNENV_ROOT/.cudnnenv/staging/header/content/include/cudnn_version.h' does not define CUDNN_MAJOR, CUDNN_MINOR and CUDNN_PATCHLEVEL" "$header_hint"
run adopt header
expect_error 1 "'$WORK/header/include/cudnn_version.h' does not define CUDNN_MAJOR, CUDNN_MINOR and CUDNN_PATCHLEVEL" "$header_hint"
run verify "$WORK/header"
expect_eq "$rc" "1" "verify of a folder with the cut header ($(cat err))"
LD_LIBRARY_PATH="$WORK/header/lib" "$CUDNNENV" discover > out 2> err || fail "discover with the cut header on LD_LIBRARY_PATH: $(cat err)"

# A tarball with a damaged header in the middle: libarchive would skip it and
# offer an entry without a name (an abort before; found by fuzz_tar).
mkdir -p damaged/d && echo x > damaged/d/f
tar -C damaged -cf damaged.tar d d/f
printf 'XXXXXXXX' | dd of=damaged.tar bs=1 seek=$((512 + 148)) conv=notrunc status=none
install_refused damaged.tar "'$WORK/damaged.tar' is damaged: Damaged tar archive" \
  "the file is truncated or damaged: download it again and compare its SHA-256"

# A sparse tarball: a 6 GiB hole under a 4 GiB limit is refused by the ratio;
# a 512 MiB hole under a 256 MiB limit installs (streamed, never held).
make_linux_tree sparse 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
truncate -s 6G sparse/lib/hole.bin
tar -C "$WORK" -S -cJf sparse.tar.xz sparse
(memory_limit 4194304; run install sparse.tar.xz
 expect_eq "$rc" "1" "6 GiB hole ($(cat err))"
 grep -qx "cudnnenv: error: 'sparse.tar.xz' unpacks to more than 50 times its size ([0-9.]* kB): refused as a decompression bomb" err ||
   fail "6 GiB hole: $(cat err)")
truncate -s 512M sparse/lib/hole.bin
tar -C "$WORK" -S -cJf sparse512.tar.xz sparse
(memory_limit 262144; run install sparse512.tar.xz --max-ratio 0 --name sparse512
 expect_eq "$rc" "0" "512 MiB hole streamed under a 256 MiB limit ($(cat err))")
expect_eq "$(stat -c %s "$CUDNNENV_ROOT/sparse512/sparse/lib/hole.bin")" "536870912" "the hole's size"
"$CUDNNENV" remove sparse512 -y > /dev/null
pass "6, 7: crafted zips, PE headers, version headers and sparse tarballs end in one line and exit 1, bounded in memory and size"

# --- 8. smaller ----------------------------------------------------------------
trees_before=$("$CUDNNENV" list --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
run install crafted/escape.zip
expect_eq "$rc" "1" "escape.zip"
! grep -q $'\e' err || fail "a raw escape byte reached stderr"
expect_eq "$(head -1 err)" "cudnnenv: error: the archive entry '\\x1b[2J\\x1b]0;owned\\x07/../evil.dll' climbs out of the tree with '..'" "escaped name"
run install crafted/control.zip
expect_eq "$rc:$(head -1 err)" "1:cudnnenv: error: the archive entry 'cuda/lib/\\x1b[31mred\\x07.so' has a control character in its name" "a name with control characters is refused, shown escaped"
! grep -q $'\e' err || fail "a raw escape byte reached stderr"
expect_eq "$("$CUDNNENV" list --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" "$trees_before" "nothing installed"
# A link counts as a link (issue 29): 3 MB of data behind two more names unpack to 3 MB, within
# --max-unpacked 4M (counted at the target's size, as before, they made 9 MB and were refused).
make_linux_tree linked 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
head -c 3000000 /dev/urandom > linked/lib/data.bin && ln -s data.bin linked/lib/data-1.bin && ln -s data.bin linked/lib/data-2.bin
(cd linked && tar -cf ../linked.tar .)
run install linked.tar --name linked --max-unpacked 4M
expect_eq "$rc" "0" "a tarball whose links would triple its size: $(cat err)"
"$CUDNNENV" remove linked -y > /dev/null
make_linux_tree dot 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
tar -C dot -cf dot.tar .
run install dot.tar --name dot
expect_eq "$rc" "0" "a tarball with a './' entry ($(cat err))"
old_tmp="$CUDNNENV_ROOT/.cudnnenv/config.toml.tmp4242-1"
new_tmp="$CUDNNENV_ROOT/.cudnnenv/config.toml.tmp4243-1"
touch -d '2 hours ago' "$old_tmp"; touch "$new_tmp"
"$CUDNNENV" use t91 --global 2> /dev/null
[ ! -e "$old_tmp" ] || fail "a config.toml.tmp left by a killed writer two hours ago is still there"
[ -e "$new_tmp" ] || fail "a config.toml.tmp a live writer may own was removed"
rm -f "$new_tmp"
# A writer killed moments ago (its process gone): the next write, or cache clean, removes what it left.
dead=$(sh -c 'echo $$')
killed_tmp="$CUDNNENV_ROOT/.cudnnenv/config.toml.tmp$dead-7"
live_tmp="$CUDNNENV_ROOT/.cudnnenv/config.toml.tmp$$-7"
touch -d '20 seconds ago' "$killed_tmp" "$live_tmp"
"$CUDNNENV" use t91 --global 2> /dev/null
[ ! -e "$killed_tmp" ] || fail "the next write left a killed writer's config.toml.tmp"
[ -e "$live_tmp" ] || fail "a running writer's config.toml.tmp was removed"
touch -d '20 seconds ago' "$killed_tmp"
run cache clean
expect_eq "$(cat out)" "freed 0 B (0 files) in $CUDNNENV_ROOT/.cudnnenv/downloads, and 1 config.toml.tmp file(s) of killed writes" "cache clean removes a killed writer's temporary"
[ ! -e "$killed_tmp" ] && [ -e "$live_tmp" ] || fail "cache clean: only the killed writer's temporary goes"
rm -f "$live_tmp"
pass "8: names shown escaped, './' tarballs install, stale config.toml.tmp files (over an hour old, or of a killed writer) are cleared by the next write and cache clean"

# 9. JSON and logs carry names from the file system and the environment: a
# folder whose name is not UTF-8 comes out as valid JSON (U+FFFD), never an
# abort; a CUDNNENV_LOG with a control byte is shown escaped.
bad=$'not utf8 \xff\xfe'
mkdir -p "$bad"
cp "$FIXTURES/fake-elf64-9.1.0.so" "$bad/libcudnn.so.9"
LD_LIBRARY_PATH="$WORK/$bad" run discover --no-load --json
expect_eq "$rc" "0" "discover --json with a folder name that is not UTF-8 ($(cat err))"
expect_eq "$(python3 -c 'import json, sys; print([c["library"].endswith("not utf8 \ufffd\ufffd/libcudnn.so.9") for c in json.load(sys.stdin) if "not utf8" in c["library"]])' < out)" \
  "[True]" "the folder's name in the JSON"
CUDNNENV_LOG=$'x\e[31m' run list
expect_eq "$(head -1 err)" "cudnnenv: warning: CUDNNENV_LOG is 'x\x1b[31m': use trace, debug, info, warning, error or off" \
  "an escape sequence in CUDNNENV_LOG"
pass "9: a non-UTF-8 folder name in JSON, an escape sequence in CUDNNENV_LOG: valid JSON, shown escaped"
# 10. A store folder named with an escape sequence (any folder the store
# holds is a tree's name): `list` (every command's stdout but scripts and
# JSON) shows it escaped, as errors do, on a terminal and into a pipe alike;
# --json carries it exactly; tab completion leaves it out (it cannot be typed).
make_linux_tree esc 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install esc --name $'esc\e[31mred'
expect_eq "$rc" "0" "a tree named with an escape sequence ($(cat err))"
script -qec "$CUDNNENV list" /dev/null < /dev/null > terminal.out 2>&1 || true
grep -q 'esc\\x1b\[31mred  9.1.0' terminal.out || fail "list on a terminal: $(cat -A terminal.out)"
grep -q $'\e' terminal.out && fail "an escape byte reached the terminal: $(cat -A terminal.out)"
run list
grep -q 'esc\\x1b\[31mred  9.1.0' out || fail "list into a pipe: escaped too ($(cat -A out))"
grep -q $'\e' out && fail "an escape byte went into the pipe: $(cat -A out)"
run list --json
expect_eq "$(python3 -c 'import json, sys; print([t["name"] for t in json.load(sys.stdin) if t["name"].startswith("esc")] == ["esc\x1b[31mred"])' < out)" "True" "list --json: the name exactly, as JSON escapes it"
run_program "$CUDNNENV" __complete --current=es -- use
expect_eq "$(cat out)" "" "completion leaves the name out"
pass "10: a tree named with an escape sequence: escaped on a terminal and in a pipe, exact in JSON, not offered by completion"

# 11 (#28, item 2). A project file that is huge, or a link to what never ends or says its size wrong
# (/proc/self/pagemap passes every "regular file" test): refused at 256 KiB counted as read, never read whole.
mkdir -p huge pagemap
head -c 2000000 /dev/zero | tr '\0' '#' > huge/.cudnnenv.toml
current_in() { set +e; (cd "$1" && "$CUDNNENV" current) > out 2> err; rc=$?; set -e; }
current_in huge
expect_eq "$rc" "1" "a 2 MB project file: exit code"
expect_eq "$(head -1 err)" "cudnnenv: error: '$WORK/huge/.cudnnenv.toml' is larger than 256 KiB: refused" "a 2 MB project file"
if [ -r /proc/self/pagemap ]; then
  ln -s /proc/self/pagemap pagemap/.cudnnenv.toml
  start=$(date +%s%N)
  current_in pagemap
  elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  expect_eq "$(head -1 err)" "cudnnenv: error: '$WORK/pagemap/.cudnnenv.toml' is larger than 256 KiB: refused" "a link to /proc/self/pagemap"
  [ "$elapsed_ms" -lt 2000 ] || fail "the pagemap link took $elapsed_ms ms"
fi
pass "11: a huge project file, and one linked to /proc/self/pagemap, are refused at 256 KiB"

# 12. A library planted where discover, doctor and snapshot look (a folder on
# LD_LIBRARY_PATH anyone can write, as a shared /opt or conda folder may be):
# its constructor would run as whoever runs them. Such a copy is never
# loaded (its version comes from its file name, and a note says why); a copy
# in a folder only this user and root can change is; --no-load loads none.
cat > planted.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
__attribute__((constructor)) static void planted(void) {
  FILE* f = fopen(getenv("PLANTED_MARKER"), "a");
  if (f) { fprintf(f, "%s\n", getenv("PLANTED_NAME") ? getenv("PLANTED_NAME") : "?"); fclose(f); }
}
size_t cudnnGetVersion(void) { return 90400; }
C
mkdir -p shared mine
chmod 777 shared
cc -shared -fPIC -o shared/libcudnn.so.9.4.0 planted.c && ln -s libcudnn.so.9.4.0 shared/libcudnn.so.9
cc -shared -fPIC -o mine/libcudnn.so.9.4.0 planted.c && ln -s libcudnn.so.9.4.0 mine/libcudnn.so.9
export PLANTED_MARKER="$WORK/planted-ran"
LD_LIBRARY_PATH="$WORK/shared:$WORK/mine" run discover
expect_eq "$(grep -A1 "$WORK/shared/" out)" "* 9.4.0  $WORK/shared/libcudnn.so.9  (version from file name; found via LD_LIBRARY_PATH)
      note: not loaded: '$WORK/shared' is writable by everyone, so loading it could run another user's code; its version is read from its files" "discover: the copy in a folder anyone can write"
expect_eq "$(grep "$WORK/mine/" out)" "  9.4.0  $WORK/mine/libcudnn.so.9  (version from library; found via LD_LIBRARY_PATH)" "discover: the copy in this user's folder, loaded"
expect_eq "$(sort -u "$PLANTED_MARKER")" "?" "only one library's code ran (the safe copy's, loaded in a child)"
chmod 755 shared && chown nobody shared && rm -f "$PLANTED_MARKER"
LD_LIBRARY_PATH="$WORK/shared" run discover --json
expect_eq "$(json_field note < out)" "not loaded: '$WORK/shared' belongs to another user (uid $(id -u nobody)), so loading it could run another user's code; its version is read from its files" "discover: a folder of another user"
[ ! -e "$PLANTED_MARKER" ] || fail "the other user's library ran"
for command in "doctor --no-load" "snapshot --no-load"; do
  LD_LIBRARY_PATH="$WORK/mine" run $command
  [ ! -e "$PLANTED_MARKER" ] || fail "$command loaded a copy: $(cat "$PLANTED_MARKER")"
done
LD_LIBRARY_PATH="$WORK/mine" run snapshot --no-load --json
expect_eq "$(python3 -c 'import json, sys; print([c["version"] for c in json.load(sys.stdin)["copies"] if "/mine/" in c["library"]])' < out)" "['9.4.0']" "snapshot --no-load reads the version from the file name"
[ ! -e "$PLANTED_MARKER" ] || fail "snapshot --no-load --json loaded a copy"
unset PLANTED_MARKER
pass "12: a copy others could replace is never loaded by discover, doctor or snapshot (its version from its files); --no-load loads none"

# 13 (#28, low). What doctor reads of a Python's frameworks may be a FIFO or a
# link to /dev/zero: read as not a regular file, at once. `remove`'s question
# names a tree escaped; `snapshot diff` of a handed-over snapshot whose values
# hold a newline and an escape prints them escaped, one line each, piped too.
mkdir -p venv/lib/python3.11/site-packages/tensorflow/python/platform venv/lib/python3.11/site-packages/torch/lib
mkfifo venv/lib/python3.11/site-packages/tensorflow/python/platform/build_info.py
ln -s /dev/zero venv/lib/python3.11/site-packages/torch/version.py
start=$(date +%s%N)
VIRTUAL_ENV="$WORK/venv" run_program timeout 20 "$CUDNNENV" doctor --no-load --json
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "$(python3 -c 'import json, sys; print([c["details"] for c in json.load(sys.stdin)["checks"] if c["id"] == "frameworks"])' < out)" \
  "[['TensorFlow ? in $WORK/venv/lib/python3.11/site-packages/tensorflow', 'PyTorch ? in $WORK/venv/lib/python3.11/site-packages/torch']]" \
  "doctor with a FIFO build_info.py and version.py -> /dev/zero"
[ "$elapsed_ms" -lt 5000 ] || fail "doctor took $elapsed_ms ms"
echo n > no.txt
STDIN=no.txt run remove $'esc\e[31mred'
expect_eq "$rc:$(sed 's/ ([0-9.]* [kMG]*B in .*)?/ (SIZE)?/' err)" "1:delete 'esc\\x1b[31mred' (SIZE)? [y/N] nothing removed" "remove's question names the tree escaped"
run snapshot --no-load -o a.json
python3 - <<'PY'
import json
snapshot = json.load(open("a.json"))
snapshot["forged"] = "1\nadded    driver.version: 999\x1b[2J"
json.dump(snapshot, open("b.json", "w"))
PY
run snapshot diff a.json b.json
expect_eq "$(grep -c '' out):$(grep forged out)" "3:added    forged: 1\\x0aadded    driver.version: 999\\x1b[2J" "snapshot diff, piped: the forged value on one line, escaped"
# An empty LD_LIBRARY_PATH entry is the working folder, to ld.so and to discover.
(cd mine && LD_LIBRARY_PATH="::" "$CUDNNENV" discover --no-load) > out
expect_eq "$(head -1 out)" "* 9.4.0  $WORK/mine/libcudnn.so.9  (version from file name; found via LD_LIBRARY_PATH)" "discover: LD_LIBRARY_PATH='::' names the working folder's copy"
run shim add python.shim
expect_eq "$rc:$(cat err)" "2:cudnnenv: error: 'python.shim' cannot be a shim name
  hint: use the program's name without a folder, .exe or .shim: cudnnenv shim add python" "a shim named like shim python's sidecar"
mkdir -p "$CUDNNENV_ROOT/.cudnnenv" && cp "$CUDNNENV_ROOT/.cudnnenv/config.toml" config.saved 2>/dev/null || true
printf '[profiles."../up"]\ncudnn = "9.1"\n' >> "$CUDNNENV_ROOT/.cudnnenv/config.toml"
run profile generate
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: $CUDNNENV_ROOT/.cudnnenv/config.toml:$(grep -c '' "$CUDNNENV_ROOT/.cudnnenv/config.toml" | awk '{print $1-1}'):11: the profile name '../up' cannot be a folder name
  hint: a profile's name is a folder's on every OS: none of / \\ : * ? \" < > |, no line breaks, not starting with '.' nor ending with a space" "profile generate with a profile named '../up'"
[ ! -e "$CUDNNENV_ROOT/.cudnnenv/up" ] || fail "a folder outside profiles/ was written"
if [ -e config.saved ]; then cp config.saved "$CUDNNENV_ROOT/.cudnnenv/config.toml"; else rm "$CUDNNENV_ROOT/.cudnnenv/config.toml"; fi
pass "13: a FIFO and /dev/zero among a framework's files, a tree named with an escape in remove's question, a forged snapshot value: read at once, shown escaped; an empty LD_LIBRARY_PATH entry; a shim named NAME.shim and a profile named '../up' refused"
# 14 (#28, low). A .cudnnenv.toml another user put in a shared folder (/tmp, a
# scratch space) chooses nothing for this user, as git's safe.directory: the
# search passes over it to the next one up and says so with -v (the shims'
# cached decision applies the same rule: shim/launch_key).
run install t91 --name t91-other
mkdir -p scratch && printf 'cudnn = "t91"\n' > scratch/.cudnnenv.toml
mkdir -p scratch/shared/sub && chmod 1777 scratch/shared
printf 'cudnn = "t91-other"\n[verify]\non_launch = "none"\n' > scratch/shared/.cudnnenv.toml
chown nobody scratch/shared/.cudnnenv.toml
(cd scratch/shared/sub && "$CUDNNENV" current -v) > out 2> err
expect_eq "$(cat out)" "9.1.0  t91  (set by $WORK/scratch/.cudnnenv.toml)" "current below another user's project file"
grep -qF "'$WORK/scratch/shared/.cudnnenv.toml' belongs to another user (uid $(id -u nobody)): not taken as this project's file" err ||
  fail "-v does not say why the file was passed over: $(cat err)"
chown root scratch/shared/.cudnnenv.toml
expect_eq "$(cd scratch/shared/sub && "$CUDNNENV" current)" "9.1.0  t91-other  (set by $WORK/scratch/shared/.cudnnenv.toml)" "the same file, this user's (root's) own, is taken"
pass "14: another user's project file in a shared folder chooses nothing (-v says so)"

# 15 (#28, low). A lock file planted as a link (to a file that is not there)
# is never followed: `cache clean` leaves that staging folder and creates
# nothing; an install under that name says what is wrong.
mkdir -p "$CUDNNENV_ROOT/.cudnnenv/staging/planted" "$CUDNNENV_ROOT/.cudnnenv/locks"
ln -s "$WORK/lock-target" "$CUDNNENV_ROOT/.cudnnenv/locks/planted.lock"
run cache clean
expect_eq "$rc" "0" "cache clean with a planted lock link: $(cat err)"
[ ! -e "$WORK/lock-target" ] || fail "cache clean created the lock link's target"
[ -d "$CUDNNENV_ROOT/.cudnnenv/staging/planted" ] || fail "a staging folder whose lock could not be taken was removed"
run install t91 --name planted
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: cannot open lock file '$CUDNNENV_ROOT/.cudnnenv/locks/planted.lock': it is a symbolic link, which a lock file never is
  hint: remove the link; cudnnenv makes the lock file itself" "install under a planted lock link"
[ ! -e "$WORK/lock-target" ] || fail "install created the lock link's target"
pass "15: a lock file planted as a link is never followed (cache clean, install)"
no_marker "the whole run"
