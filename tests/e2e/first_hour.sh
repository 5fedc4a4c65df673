#!/usr/bin/env bash
# The first hour (#22), in real bash, zsh and fish with the integration loaded:
# - help of use, activate and deactivate reaches the terminal as text, whole,
#   with exit code 0, and nothing is evaluated;
# - `use --unset` undoes `use`; `deactivate` undoes it too and says what is
#   still selected; `use --local` says when this shell's `use` still wins;
#   `use` in a child of the shell fails as without the integration;
# - a trusted [env] follows the project: entering one whose tree is active
#   already sets its variables, leaving takes them out, an edit in place is
#   seen at the next prompt, a broken file says what the shell keeps;
# - exec and a shim set the same [env];
# - a cuda13 tree built with CUDA 13.1 matches --cuda 13.0 and `cuda = "13.0"`,
#   and a request it does not serve names both CUDA parts.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
unset CUDNNENV_VERSION CUDNNENV_SHELL _CUDNNENV_STATE CUDNNENV_ACTIVE CUDNNENV_ACTIVATED LD_LIBRARY_PATH FOO
for version in 9.1.0 9.2.0; do
  make_linux_tree "t$version" "$version" "$FIXTURES/fake-elf64-$version.so"
  "$CUDNNENV" install "t$version" --name "t$version" > /dev/null
done
mkdir bin envproj plain
ln -s "$CUDNNENV" bin/cudnnenv
export PATH="$WORK/bin:$PATH" CUDNNENV_VERIFY=none
"$CUDNNENV" use t9.2.0 --global 2> /dev/null
printf 'cudnn = "t9.1.0"\n' > plain/.cudnnenv.toml
env_one='cudnn = "t9.2.0"\n[env]\nFOO = "one"\n'
env_two='cudnn = "t9.2.0"\n[env]\nFOO = "two"\n'

# Help, as cudnnenv prints it without the integration.
for command in "use --help" "use -h" "activate --help" "deactivate --help"; do
  # shellcheck disable=SC2086
  "$CUDNNENV" $command > "expected-help-${command// /}"
done

# One result line per step, appended to results.SHELL by `say NAME`: the last
# exit code, the active tree, the shell's `use`, FOO.
say_sh='say() { local rc=$?; printf "%s rc=%s active=%s use=%s foo=%s\n" "$1" "$rc" "${CUDNNENV_ACTIVE-}" "${CUDNNENV_VERSION-}" "${FOO-}" >> "$RESULTS"; }'
say_fish='function say; set -l rc $status; printf "%s rc=%s active=%s use=%s foo=%s\n" $argv[1] $rc "$CUDNNENV_ACTIVE" "$CUDNNENV_VERSION" "$FOO" >> $RESULTS; end'
# Each step on its own line: the prompt between two lines runs the hook.
steps="say start
cudnnenv use --help 2> help-use--help.\$SH
say use-help
cudnnenv use -h 2> help-use-h.\$SH
say use-h
cudnnenv activate --help 2> help-activate--help.\$SH
say activate-help
cudnnenv deactivate --help 2> help-deactivate--help.\$SH
say deactivate-help
cd envproj
say enter
printf '$env_two' > .cudnnenv.toml
say edited
cudnnenv trust > /dev/null
say trusted
cd ..
say leave
cd envproj
printf 'cudnn = \"t9.2.0' > .cudnnenv.toml
say broken
printf '$env_two' > .cudnnenv.toml
cd ../plain
say plain
cudnnenv use t9.2.0
say use
cudnnenv use t9.1.0 --local 2> local.\$SH
say use-then-local
cudnnenv use --unset 2> unset.\$SH
say unset
cudnnenv use t9.2.0
cudnnenv deactivate 2> deactivate.\$SH
say deactivate
bash -c 'cudnnenv use t9.2.0' 2> child.\$SH
say child
exit"
expected="start rc=0 active=t9.2.0 use= foo=
use-help rc=0 active=t9.2.0 use= foo=
use-h rc=0 active=t9.2.0 use= foo=
activate-help rc=0 active=t9.2.0 use= foo=
deactivate-help rc=0 active=t9.2.0 use= foo=
enter rc=0 active=t9.2.0 use= foo=one
edited rc=0 active=t9.2.0 use= foo=
trusted rc=0 active=t9.2.0 use= foo=two
leave rc=0 active=t9.2.0 use= foo=
broken rc=0 active=t9.2.0 use= foo=two
plain rc=0 active=t9.1.0 use= foo=
use rc=0 active=t9.2.0 use=t9.2.0 foo=
use-then-local rc=0 active=t9.2.0 use=t9.2.0 foo=
unset rc=0 active=t9.1.0 use= foo=
deactivate rc=0 active=t9.1.0 use= foo=
child rc=1 active=t9.1.0 use= foo="

for shell in bash zsh fish; do
  cd "$WORK"
  printf "$env_one" > envproj/.cudnnenv.toml
  printf 'cudnn = "t9.1.0"\n' > plain/.cudnnenv.toml
  (cd envproj && "$CUDNNENV" trust > /dev/null)
  export RESULTS="$WORK/results.$shell" SH=$shell
  case $shell in
    bash) printf '%s\n' 'eval "$(cudnnenv init bash)"' "$say_sh" "$steps" |
            bash --norc --noprofile -i > "$shell.out" 2> "$shell.err" ;;
    zsh) printf '%s\n' 'eval "$(cudnnenv init zsh)"' "$say_sh" "$steps" |
           zsh -f -i > "$shell.out" 2> "$shell.err" ;;
    fish)
      # fish runs its prompt event only on a terminal: a pseudo-terminal from script(1).
      printf '%s\n' 'cudnnenv init fish | source' "$say_fish" "$steps" > fish.steps
      timeout 60 script -qec "fish --no-config" /dev/null < fish.steps > fish.out 2>&1 ;;
  esac
  expect_eq "$(cat "$RESULTS")" "$expected" "$shell: the steps ($(tail -5 "$shell.err" 2> /dev/null || true))"
  for command in use--help use-h activate--help deactivate--help; do
    expect_eq "$(cat "help-$command.$shell")" \
      "$(cat "expected-help-$command")" "$shell: ${command/--/ --} through the integration, on the terminal"
  done
  pass "$shell: help of use, use -h, activate and deactivate is printed whole, exit 0, nothing evaluated"
  pass "$shell: [env] set on entering a project whose tree is active, gone on leaving, an edit seen at the next prompt"
  expect_eq "$(cat "plain/local.$shell")" \
    "cudnnenv: wrote $WORK/plain/.cudnnenv.toml: cudnn = \"t9.1.0\" -> t9.1.0 (cuDNN 9.1.0)
cudnnenv: warning: this shell's 'cudnnenv use t9.2.0' (CUDNNENV_VERSION) still wins over $WORK/plain/.cudnnenv.toml here; 'cudnnenv use --unset' follows it" \
    "$shell: use --local under this shell's use"
  expect_eq "$(cat "plain/unset.$shell")" "cudnnenv: this shell's 'cudnnenv use t9.2.0' is undone" "$shell: use --unset"
  expect_eq "$(cat "plain/deactivate.$shell")" \
    "cudnnenv: deactivated 't9.2.0'; this shell's 'cudnnenv use t9.2.0' is undone; still selected here: 't9.1.0' (set by $WORK/plain/.cudnnenv.toml), which the shell integration activates now" \
    "$shell: deactivate"
  expect_eq "$(head -1 "plain/child.$shell")" \
    "cudnnenv: error: 'cudnnenv use' changes a shell only when typed in it: this is a child of the shell (a script, or a program it started), whose selection would end with it" \
    "$shell: use in a child"
  pass "$shell: use --unset, deactivate and a child's use say what they did; --local says the shell's use still wins"
done

# The broken file: what the hook says (bash's stderr), whole.
grep -A2 "error: $WORK/envproj/.cudnnenv.toml" bash.err > broken.err || true
expect_eq "$(grep -c "this shell keeps 't9.2.0' active until that is fixed" bash.err)" "1" \
  "the broken file's note ($(cat broken.err))"
pass "a broken project file: the hook says what it is and that the shell keeps its tree"

# exec and a shim set the trusted [env] as activation does.
cd "$WORK/envproj"
"$CUDNNENV" trust > /dev/null
run exec -- printenv FOO
expect_eq "$(cat out)" "two" "exec: FOO from [env] ($(cat err))"
"$CUDNNENV" shim add printenv > /dev/null
expect_eq "$("$CUDNNENV_ROOT/.cudnnenv/shims/printenv" FOO)" "two" "a shim: FOO from [env]"
expect_eq "$("$CUDNNENV_ROOT/.cudnnenv/shims/printenv" FOO)" "two" "a shim, again (no fast path skips [env])"
pass "exec and a shim set the project's trusted [env]"
# exec typed with the shims first on PATH sees through them: to the next on PATH, or a shim's --target.
"$CUDNNENV" shim add envtool --target "$(command -v printenv)" > /dev/null
PATH="$CUDNNENV_ROOT/.cudnnenv/shims:$PATH" run exec -- printenv FOO
expect_eq "$(cat out)|$(cat err)" "two|" "exec -- printenv with the shims first on PATH: no note about the shim"
PATH="$CUDNNENV_ROOT/.cudnnenv/shims:$PATH" run exec -- envtool FOO
expect_eq "$(cat out)|$(cat err)" "two|" "exec -- envtool: the shim's target"
pass "exec sees through cudnnenv's own shims"
run use t9.1.0 --local
expect_eq "$(cat err)" "cudnnenv: wrote $WORK/envproj/.cudnnenv.toml: cudnn = \"t9.1.0\" -> t9.1.0 (cuDNN 9.1.0)
cudnnenv: it stays trusted: only its selection changed" "use --local in a trusted project"
run exec -- printenv FOO
expect_eq "$(cat out) $(cat err)" "two " "exec after use --local: [env] still set, no warning"
pass "use --local keeps a trusted file trusted"
cd "$WORK"

# CUDA minors: a cuda13 archive's tree whose library was built with 13.1.
cuda13=cudnn-linux-x86_64-9.19.0.56_cuda13-archive
make_linux_tree "$cuda13" 9.19.0 "$FIXTURES/fake-elf64-9.19.0.so"
ln -s libcudnn.so.9 "$cuda13/lib/libcudnn.so"  # the development link archives carry
tar -cJf "$cuda13.tar.xz" "$cuda13"
run install "$cuda13.tar.xz" --json
expect_eq "$rc" "0" "install of the cuda13 folder ($(cat err))"
run list --json
expect_eq "$(python3 -c 'import json,sys; t=[t for t in json.load(sys.stdin) if t["version"].startswith("9.19")][0]; print(t["cuda"], t["cuda_variant"], t["cudart"], t["serves"])' < out)" \
  "13.1 13 13.1 CUDA 13.x (built with 13.1)" "list --json: both CUDA facts and what it serves"
# The table says both: the CUDA it serves, and the one it was built with; discover shows the same
# four-part version for the store's copy; which --all lists the loadable files sorted, the development
# link only when asked.
run list
expect_eq "$(grep '^9.19.0.56-cuda13 ' out | tr -s ' ' | cut -d' ' -f1-5)" "9.19.0.56-cuda13 9.19.0.56 13 (built 13.1)" \
  "list: the CUDA column of a cuda13 archive built with 13.1"
lib13=$CUDNNENV_ROOT/9.19.0.56-cuda13/lib
LD_LIBRARY_PATH=$lib13 run discover --no-load
expect_eq "$(grep -F "$lib13/" out)" "* 9.19.0.56  $lib13/libcudnn.so.9  (version from header; found via LD_LIBRARY_PATH; the store's tree '9.19.0.56-cuda13')" \
  "discover: the store's copy with list's version"
run which --all --cudnn 9.19.0.56-cuda13
expect_eq "$(cat out)" "$(for base in cudnn cudnn_adv cudnn_cnn cudnn_engines_precompiled cudnn_engines_runtime_compiled \
  cudnn_graph cudnn_heuristic cudnn_ops; do printf '%s\n' "$lib13/lib$base.so.9" "$lib13/lib$base.so.9.19.0"; done)" \
  "which --all: sorted, no development link"
run which --all --dev-links --cudnn 9.19.0.56-cuda13
expect_eq "$(head -2 out)" "$lib13/libcudnn.so
$lib13/libcudnn.so.9" "which --all --dev-links: the development link too"
mkdir -p cuda13 && cd cuda13
run use 9.19 --cuda 13.0 --local
expect_eq "$rc" "0" "use 9.19 --cuda 13.0 --local ($(cat err))"
expect_eq "$(cat .cudnnenv.toml)" 'cudnn = "9.19"
cuda = "13.0"' "the project file"
run current
expect_eq "$(cat out)" "9.19.0.56  9.19.0.56-cuda13  (set by $WORK/cuda13/.cudnnenv.toml)" "current with cuda = \"13.0\""
run which --cudnn 9.19+cuda13.2
expect_eq "$rc" "0" "+cuda13.2 ($(cat err))"
run current --cudnn 9.19 --cuda 12.5
expect_eq "$rc" "3" "--cuda 12.5"
expect_eq "$(head -1 err)" "cudnnenv: error: no installed cuDNN matches '9.19' for CUDA 12.5 (set by --cudnn)" "the error names the CUDA asked for"
for tree in "'9.19.0.56-cuda13' (9.19.0.56, CUDA 13.x (built with 13.1))" "'t9.2.0' (9.2.0, CUDA 12.x (built with 12.2))" \
  "'t9.1.0' (9.1.0, CUDA 12.x (built with 12.2))"; do
  grep -qF "$tree" err || fail "the hint names each tree's CUDA, $tree: $(cat err)"
done
pass "a cuda13 tree built with 13.1 matches --cuda 13.0, cuda = \"13.0\" and +cuda13.2; --cuda 12.5 names both sides"

# Short default names (#22), one scheme: the archive's version and CUDA variant; the old name still selects it.
run which --cudnn "$cuda13"
expect_eq "$rc $(cat out)" "0 $CUDNNENV_ROOT/9.19.0.56-cuda13/lib/libcudnn.so.9" "the archive's stem, the name before, still selects the tree"
for copy in "my copy" "other copy"; do mkdir -p "$copy" && cp -a "$WORK/$cuda13/." "$copy/"; done
run install "my copy"
expect_eq "$rc $(head -1 out)" "0 installed '9.19.0-cuda13': cuDNN 9.19.0, CUDA 13.1, Linux x86_64, 122 kB" "a folder: named from what it holds"
run install "other copy"
expect_eq "$rc $(head -1 out)" "0 installed '9.19.0-cuda13-2': cuDNN 9.19.0, CUDA 13.1, Linux x86_64, 122 kB" "a second folder of that version: the next free name"
run install "my copy"
expect_eq "$rc $(head -1 err)" "1 cudnnenv: error: '9.19.0-cuda13' is already in the store (from '$WORK/cuda13/my copy')" "the same folder again"
pass "short default names: version and CUDA, -2 for a second source; the archive's stem still selects"

# remove of a tree that is selected here says so before it asks.
cd "$WORK/plain"
printf 'n\n' > "$WORK/no"
STDIN="$WORK/no" run remove t9.1.0
expect_eq "$rc" "1" "remove answered no"
expect_eq "$(sed -E 's/\([0-9.]+ [kMG]?B in /(SIZE in /' err)" "'t9.1.0' is selected (set by $WORK/plain/.cudnnenv.toml): that selection will match no tree until 'cudnnenv use' names another
delete 't9.1.0' (SIZE in $CUDNNENV_ROOT/t9.1.0)? [y/N] nothing removed" "remove's prompt for a selected tree"
pass "remove of a tree the project file selects says so in its prompt"

# A folder on the way up that cannot be searched: the project file it may hide is named (as root, a user
# of no rights through setpriv; skipped where there is none, or the program is not theirs to run).
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null &&
  setpriv --reuid=65534 --regid=65534 --clear-groups "$CUDNNENV" --version > /dev/null 2>&1; then
  perm=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-perm-XXXXXX")
  chmod 755 "$perm" && mkdir -p "$perm/locked/inner" && chmod 700 "$perm/locked"
  printf 'cudnn = "9"\n' > "$perm/.cudnnenv.toml"
  (cd "$perm/locked/inner" &&
    setpriv --reuid=65534 --regid=65534 --clear-groups env CUDNNENV_ROOT="$perm/store" "$CUDNNENV" current) \
    > perm.out 2> perm.err || true
  rm -rf "$perm"
  expect_eq "$(head -2 perm.err)" "cudnnenv: warning: cannot look for '$perm/locked/inner/.cudnnenv.toml' (a folder on the way cannot be searched): a project file there is not seen
cudnnenv: warning: cannot look for '$perm/locked/.cudnnenv.toml' (a folder on the way cannot be searched): a project file there is not seen" \
    "the project files a folder without search rights hides"
  pass "a folder that cannot be searched: the project files it may hide are named in a warning"
else
  echo "skip: a folder without search rights needs root and setpriv to stage"
fi

# zsh without compinit: init exits 0 and says once, at the first prompt, how to get completion; a cd
# follows the project at once (chpwd), not only at the next prompt.
cd "$WORK"
printf '%s\n' 'eval "$(cudnnenv init zsh)"; echo "init rc=$?"' 'cd plain; echo "same line: $CUDNNENV_ACTIVE"' \
  'echo "next: $CUDNNENV_ACTIVE"' | zsh -f -i > zsh-init.out 2> zsh-init.err
expect_eq "$(cat zsh-init.out)" "init rc=0
same line: t9.1.0
next: t9.1.0" "zsh: init's exit code, and a cd followed on the same line"
expect_eq "$(grep -c "cudnnenv: tab completion needs zsh's completion system: add 'autoload -Uz compinit && compinit' to ~/.zshrc" zsh-init.err)" \
  "1" "zsh: the completion hint, once ($(cat zsh-init.err))"
pass "zsh: init exits 0 without compinit and says once how to get completion; chpwd follows a cd at once"

# Quiet success says one line (issue 46), through the shell integration in bash, zsh and fish: `use` and
# `activate` each say what they did on stderr; `current` names the door ('cudnnenv use' in this shell);
# `deactivate` says what it undid, and with nothing active, that nothing was.
mkdir -p "$WORK/quiet" && cd "$WORK/quiet"
export CUDNNENV_ROOT="$WORK/quiet/store"  # no global default here
"$CUDNNENV" install "$WORK/t9.1.0" --name t9.1.0 > /dev/null
for sh in bash zsh fish; do
  steps='cudnnenv use 9.1; cudnnenv current; cudnnenv activate t9.1.0; cudnnenv deactivate; cudnnenv deactivate'
  case $sh in
    fish) fish --no-config -c "cudnnenv init fish | source; $steps" ;;
    *) $sh -c "eval \"\$(cudnnenv init $sh)\"; $steps" ;;
  esac > quiet.out 2> quiet.err || fail "$sh: $(cat quiet.err)"
  expect_eq "$(cat quiet.out)" "9.1.0  t9.1.0  (set by 'cudnnenv use' in this shell)" "$sh: current after use"
  expect_eq "$(cat quiet.err)" "cudnnenv: this shell: 9.1 -> t9.1.0 (cuDNN 9.1.0)
cudnnenv: activated 't9.1.0' (cuDNN 9.1.0) in this shell
cudnnenv: deactivated 't9.1.0'; this shell's 'cudnnenv use 9.1' is undone; nothing else selects a cuDNN here
cudnnenv: nothing was active; nothing else selects a cuDNN here" "$sh: one line for each"
done
pass "use and activate say one line each; current names 'cudnnenv use' in this shell; deactivate says what it undid"

# A shared box: `use --local` in a folder the user cannot write names the file it could not write and its
# folder, never a temporary name (as root, a user of no rights through setpriv; skipped where there is none).
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null &&
  setpriv --reuid=65534 --regid=65534 --clear-groups "$CUDNNENV" --version > /dev/null 2>&1; then
  shared=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-shared-XXXXXX")
  chmod 755 "$shared" && mkdir -p "$shared/project" "$shared/state" && chown 65534:65534 "$shared/state"
  "$CUDNNENV" --root "$shared/store" install "$WORK/t9.1.0" --name t9.1.0 > /dev/null
  set +e
  (cd "$shared/project" && setpriv --reuid=65534 --regid=65534 --clear-groups \
    env CUDNNENV_ROOT="$shared/store" CUDNNENV_STATE_DIR="$shared/state" "$CUDNNENV" use 9.1 --local) > local.out 2> local.err
  rc=$?
  set -e
  expect_eq "$rc:$(cat local.err)" "1:cudnnenv: error: cannot write '$shared/project/.cudnnenv.toml': its folder '$shared/project' cannot be written (Permission denied); nothing was written
  hint: check that the folder exists and is yours to write" "use --local in a folder the user cannot write"
  expect_eq "$(ls -A "$shared/project")" "" "nothing left in the folder"
  rm -rf "$shared"
  pass "use --local in a folder not yours: the real file and its folder named, nothing written"
else
  echo "skip: a folder the user cannot write needs root and setpriv to stage"
fi

# verify of a tree with a deleted library: one failure, by name, and a fix that installs it again from the
# archive its record names.
export CUDNNENV_ROOT="$WORK/store"
rm "$CUDNNENV_ROOT/9.19.0.56-cuda13/lib/libcudnn_ops.so.9.19.0"
cd "$WORK"
run verify 9.19.0.56-cuda13
expect_eq "$rc:$(cat out)" "4:verify 9.19.0.56-cuda13 (cuDNN 9.19.0.56): $CUDNNENV_ROOT/9.19.0.56-cuda13/lib/libcudnn.so.9
  ok    file set: the complete cuDNN 9.19.0.56 set was installed (files: what is gone since)
  FAIL  files: 'lib/libcudnn_ops.so.9.19.0' is gone (deleted?)
  ok    architecture: ELF 64-bit x86_64, as Linux x86_64 needs
  ok    header version: cudnn_version.h says 9.19.0
  fix:  cudnnenv remove 9.19.0.56-cuda13 --yes && cudnnenv install \"$WORK/$cuda13.tar.xz\" --name 9.19.0.56-cuda13
        (from the archive it was installed from, as recorded)
FAILED" "verify of a tree whose library was deleted"
fix=$(grep '^  fix:' out | sed 's/^  fix:  //')
bash -c "$fix" > fix.out 2>&1 || fail "the fix, pasted: $(cat fix.out)"
run verify 9.19.0.56-cuda13 --level files
expect_eq "$rc:$(tail -1 out)" "0:passed" "verify after the fix"
pass "verify of a deleted library: one failure, and a fix from the recorded archive that runs as written"
