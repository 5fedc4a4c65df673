#!/usr/bin/env bash
# Tab completion (issues 15 and 46), through bash, zsh and fish themselves:
# `cudnnenv completion SHELL` (and `init SHELL`, which includes it) loads
# without error, and each position offers what it takes, in the order to
# show them, with a description where the shell shows one (zsh, fish):
# `use 9.` the installed versions; `use` the trees, their versions, then the
# profiles an installed tree runs before the rest; `install 9.1` the versions
# of the official list (here a site index); `install cuda 12.` the CUDA
# releases; `exec -- pyt` the programs on PATH; `remove cu` the runtime trees
# too; `shim remove` the shims; `--cuda` the CUDA versions; `--nccl` NCCL's trees; `--runtime` the
# runtime trees. Candidates come from `cudnnenv __complete`, so the shells
# only ask. zsh: its completion function runs with compadd (a builtin that
# only works inside the completion system) replaced by one that prints what
# it gets.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
bin=$(dirname "$CUDNNENV")
for version in 9.1.0 9.4.0; do
  make_linux_tree "t$version" "$version" "$FIXTURES/fake-elf64-$version.so"
  "$CUDNNENV" install "t$version" --name "t$version" > /dev/null
done
# A tree whose name is shell code: completed as one word, quoted, never run.
make_linux_tree odd 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install odd --name 'odd $(touch PWNED) a;b' > /dev/null
# Two CUDA 12 runtimes, adopted from folders.
for release in 12.1 12.4; do adopt_fake_runtime "$release" "cuda$release"; done
# Programs on PATH: this folder's, then the build's (cudnnenv's own); a second trainjob later on PATH is
# not offered again; a file that is not executable is not offered.
mkdir -p progs progs2
for program in trainjob trainjob-gpu; do printf '#!/bin/sh\n' > "progs/$program" && chmod +x "progs/$program"; done
printf '#!/bin/sh\n' > progs2/trainjob && chmod +x progs2/trainjob
printf "data\n" > progs/trainjob-data
export PATH="$WORK/progs:$bin:$WORK/progs2:/usr/bin:/bin"
"$CUDNNENV" shim add trainjob > /dev/null
"$CUDNNENV" shim add train --target "$WORK/progs/trainjob-gpu" > /dev/null
# A site index of four archives: what `install` offers.
head -1 "$E2E_DIR/../../data/cudnn-archives.tsv" > index.tsv
for row in "9.1.0.70 cuda12" "9.1.1.17 cuda11" "9.1.1.17 cuda12" "9.10.2.21 cuda12" "9.4.0.58 cuda12"; do
  set -- $row
  printf '%s\tlinux-x86_64\t%s\tcudnn-linux-x86_64-%s_%s-archive.tar.xz\t%s\t1000\thttps://example.invalid/a.tar.xz\n' \
    "$1" "$2" "$1" "$2" "$(printf '%064d' 0)" >> index.tsv
done
export CUDNNENV_INDEX="$WORK/index.tsv"
tab=$'\t'

versions="9.1${tab}installed: odd \$(touch PWNED) a;b, t9.1.0
9.1.0${tab}installed: odd \$(touch PWNED) a;b, t9.1.0
9.4${tab}installed: t9.4.0
9.4.0${tab}installed: t9.4.0"
run_program "$CUDNNENV" __complete --current=9. -- use
expect_eq "$(cat out)" "$versions" "__complete: use 9."
run_program "$CUDNNENV" __complete --current=u --
expect_eq "$(cat out)" "use${tab}select a cuDNN for this shell (with 'cudnnenv init' loaded), this project (--local) or everywhere (--global)
untrust${tab}withdraw 'cudnnenv trust' for this folder's .cudnnenv.toml" "__complete: the subcommands starting with u"
run_program "$CUDNNENV" __complete --current=--cu -- exec
expect_eq "$(cat out)" "--cudnn${tab}the tree to pin (default: the current selection)
--cuda${tab}CUDA version the tree must be built for; a full release (13.0.2) also names the runtime tree" \
  "__complete: exec's options"
# use: the trees, their versions, then the profiles an installed tree runs, then the rest.
"$CUDNNENV" profile list | sed '1d;$d' > profiles.txt  # the rows: '*' marks those an installed tree runs
runs=$(grep -c '^\*' profiles.txt || true)
[ "$runs" -gt 0 ] && [ "$runs" -lt "$(wc -l < profiles.txt)" ] || fail "the fixture needs profiles that run and some that do not"
run_program "$CUDNNENV" __complete --current= -- use
expect_eq "$(cut -f1 out)" "t9.4.0
odd \$(touch PWNED) a;b
t9.1.0
$(cut -f1 <<<"$versions")
$(grep '^\*' profiles.txt | awk '{print $2}')
$(grep -v '^\*' profiles.txt | awk '{print $1}')" "__complete: use: trees, versions, the profiles that run, the rest"
expect_eq "$(grep -E '^tf2\.(5|18)\b' out)" "tf2.18${tab}TensorFlow 2.18, cuDNN 9.3, CUDA 12.5: runs on 't9.4.0'
tf2.5${tab}TensorFlow 2.5, cuDNN 8.1, CUDA 11.2: no installed tree" \
  "__complete: the descriptions of a profile that runs and one that does not"
run_program "$CUDNNENV" __complete --current=9.1 -- install
expect_eq "$(cat out)" "9.1${tab}the newest 9.1: 9.1.1.17
9.1.0.70${tab}for cuda12
9.1.1.17${tab}for cuda11, cuda12
9.10${tab}the newest 9.10: 9.10.2.21
9.10.2.21${tab}for cuda12" "__complete: install 9.1: the versions of the list"
run_program "$CUDNNENV" __complete --current= -- install
expect_eq "$(cut -f1 out | tr '\n' ' ')" "9.1 9.1.0.70 9.1.1.17 9.4 9.4.0.58 9.10 9.10.2.21 cuda " "__complete: install: versions, then cuda"
run_program "$CUDNNENV" __complete --current=./ -- install
expect_eq "$(cat out)" "" "__complete: install ./: a path, the shell's"
run_program "$CUDNNENV" __complete --current=12. -- install cuda
expect_eq "$(cat out)" "$(awk -F'\t' 'NR > 1 && $1 ~ /^12\./ { print $1 "\tCUDA runtime, redistrib_" $1 ".json" }' \
  "$E2E_DIR/../../data/cuda-manifests.tsv")" "__complete: install cuda 12.: the CUDA releases"
run_program "$CUDNNENV" __complete --current=trainj -- exec --
expect_eq "$(cat out)" "trainjob${tab}$WORK/progs/trainjob
trainjob-gpu${tab}$WORK/progs/trainjob-gpu" "__complete: exec -- trainj: the programs on PATH"
run_program "$CUDNNENV" __complete --current=trainj -- exec --cudnn t9.1.0
expect_eq "$(cat out)" "trainjob${tab}$WORK/progs/trainjob
trainjob-gpu${tab}$WORK/progs/trainjob-gpu" "__complete: exec --cudnn T trainj: the programs on PATH"
run_program "$CUDNNENV" __complete --current= -- exec --cudnn t9.1.0 python
expect_eq "$(cat out)" "" "__complete: nothing for the program's own arguments (the shell's files)"
run_program "$CUDNNENV" __complete --current=cu -- remove
expect_eq "$(cat out)" "cuda12.4${tab}CUDA runtime 12.4.0
cuda12.1${tab}CUDA runtime 12.1.0" "__complete: remove cu: the runtime trees"
run_program "$CUDNNENV" __complete --current= -- shim remove
expect_eq "$(cat out)" "train${tab}starts $WORK/progs/trainjob-gpu
trainjob${tab}starts the first 'trainjob' on PATH" "__complete: shim remove: the shims"
run_program "$CUDNNENV" __complete --current= -- exec --cuda
expect_eq "$(cat out)" "11${tab}official archives
12${tab}official archives
12.2${tab}installed: odd \$(touch PWNED) a;b, t9.1.0
12.4${tab}installed: t9.4.0" "__complete: --cuda: the CUDA versions"
run_program "$CUDNNENV" __complete --current= -- exec --runtime
expect_eq "$(cat out)" "cuda12.4${tab}CUDA runtime 12.4.0
cuda12.1${tab}CUDA runtime 12.1.0
12.4${tab}installed: cuda12.4
12.4.0${tab}installed: cuda12.4
12.1${tab}installed: cuda12.1
12.1.0${tab}installed: cuda12.1" "__complete: --runtime: the runtime trees and their releases"
source "$E2E_DIR/trees.sh"
adopt_fake_nccl 2.27.5 12.9
run_program "$CUDNNENV" __complete --current= -- exec --nccl
expect_eq "$(cat out)" "nccl-2.27.5${tab}NCCL 2.27.5
2.27${tab}installed: nccl-2.27.5
2.27.5${tab}installed: nccl-2.27.5" "__complete: --nccl: a row's trees and their releases, from the component table"
"$CUDNNENV" remove nccl-2.27.5 --yes > /dev/null 2>&1
run_program "$CUDNNENV" __complete --current= -- completion
expect_eq "$(cat out)" "bash
zsh
fish
powershell" "__complete: the shells completion writes for"
pass "__complete: each position offers what it takes, in order, with descriptions"
# bash: the function `complete` registered, run as readline would: the values alone, in order (nosort).
bash_quoted='odd\ \$\(touch\ PWNED\)\ a\;b'  # as %q writes it
bash_out=$(bash --norc -c '
eval "$(cudnnenv completion bash)"
complete -p cudnnenv
COMP_WORDS=(cudnnenv use 9.); COMP_CWORD=2; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"
COMP_WORDS=(cudnnenv --root "$CUDNNENV_ROOT" u); COMP_CWORD=3; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"
COMP_WORDS=(cudnnenv install 9.1); COMP_CWORD=2; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"
COMP_WORDS=(cudnnenv exec -- trainj); COMP_CWORD=3; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"
COMP_WORDS=(cudnnenv shim remove ""); COMP_CWORD=3; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"
COMP_WORDS=(cudnnenv use od); COMP_CWORD=2; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"
eval "words=(${COMPREPLY[0]})"; printf "[%s] %s\n" "${words[@]}" "${#words[@]}"' 2>&1)
expect_eq "$bash_out" "complete -o default -o nosort -F _cudnnenv_complete cudnnenv
9.1
9.1.0
9.4
9.4.0
use
untrust
9.1
9.1.0.70
9.1.1.17
9.10
9.10.2.21
trainjob
trainjob-gpu
train
trainjob
$bash_quoted
[odd \$(touch PWNED) a;b] 1" "bash"
bash_init=$(bash --norc -c 'eval "$(cudnnenv init bash)"; complete -p cudnnenv' 2>&1)
expect_eq "$bash_init" "complete -o default -o nosort -F _cudnnenv_complete cudnnenv" "bash: init loads the completion"
pass "bash: complete -p names the function; versions, subcommands, the list's versions, programs, shims, in order"

if command -v zsh > /dev/null; then
  # compadd as the function calls it: -V (this order), -l -d (one per line, the shown text); prints the
  # values, then what is shown.
  zsh_out=$(zsh -f -c '
autoload -Uz compinit && compinit -u -d "$PWD/zcompdump"
source <(cudnnenv completion zsh)
print -r -- "registered: $_comps[cudnnenv]"
compadd() {
  local -a group list dopt
  zparseopts -D -E V:=group l=list d:=dopt
  [[ $1 == -- ]] && shift
  print -r -- "compadd $group $list -d"
  local name=${dopt[2]}
  print -rl -- "$@" "${(@P)name}"
}
words=(cudnnenv use 9.); CURRENT=3; _cudnnenv_complete
words=(cudnnenv exec --cu); CURRENT=3; _cudnnenv_complete
words=(cudnnenv use od); CURRENT=3; _cudnnenv_complete
_files() { print -r -- "(files)"; }
words=(cudnnenv install ./); CURRENT=3; _cudnnenv_complete' 2>&1)
  expect_eq "$zsh_out" "registered: _cudnnenv_complete
compadd -V cudnnenv -l -d
9.1
9.1.0
9.4
9.4.0
9.1    -- installed: odd \$(touch PWNED) a;b, t9.1.0
9.1.0  -- installed: odd \$(touch PWNED) a;b, t9.1.0
9.4    -- installed: t9.4.0
9.4.0  -- installed: t9.4.0
compadd -V cudnnenv -l -d
--cudnn
--cuda
--cudnn  -- the tree to pin (default: the current selection)
--cuda   -- CUDA version the tree must be built for; a full release (13.0.2) also names the runtime tree
compadd -V cudnnenv -l -d
odd \$(touch PWNED) a;b
odd \$(touch PWNED) a;b  -- cuDNN 9.1.0, CUDA 12.2
(files)" "zsh"
  zsh_init=$(zsh -f -c 'autoload -Uz compinit && compinit -u -d "$PWD/zcompdump2"; eval "$(cudnnenv init zsh)"; print -r -- $_comps[cudnnenv]' 2>&1)
  expect_eq "$zsh_init" "_cudnnenv_complete" "zsh: init loads the completion"
  pass "zsh: compdef registers the function; values in order, each shown with its description; files for a path"

  # Without compinit: the note at the first prompt, once: not again at the next prompt, nor in a zsh
  # started from this one; none with CUDNNENV_NO_COMPINIT_NOTE=1.
  note="cudnnenv: tab completion needs zsh's completion system: add 'autoload -Uz compinit && compinit' to ~/.zshrc (or set CUDNNENV_NO_COMPINIT_NOTE=1 to silence this)"
  printf '%s\n' 'eval "$(cudnnenv completion zsh)"' 'echo one' 'echo two' \
    "zsh -f -i -c 'eval \"\$(cudnnenv completion zsh)\"; _cudnnenv_compdef_prompt; echo inner'" |
    env -u CUDNNENV_NO_COMPINIT_NOTE zsh -f -i > zsh-note.out 2> zsh-note.err
  expect_eq "$(cat zsh-note.out)" "one
two
inner" "zsh without compinit: what ran"
  expect_eq "$(grep -o 'cudnnenv: .*' zsh-note.err)" "$note" "zsh without compinit: the note, once"
  printf '%s\n' 'eval "$(cudnnenv completion zsh)"' 'echo one' |
    CUDNNENV_NO_COMPINIT_NOTE=1 zsh -f -i > zsh-quiet.out 2> zsh-quiet.err
  expect_eq "$(grep -o 'cudnnenv: .*' zsh-quiet.err || true)" "" "zsh without compinit, CUDNNENV_NO_COMPINIT_NOTE=1: no note"
  pass "zsh without compinit: the note once per shell and the shells it starts, silenced by CUDNNENV_NO_COMPINIT_NOTE=1"
else
  echo "skip: zsh is not installed"
fi

if command -v fish > /dev/null; then
  fish_out=$(fish --no-config -c 'cudnnenv completion fish | source; complete -C "cudnnenv use 9."; complete -C "cudnnenv exec --cu"
complete -C "cudnnenv use od"; complete -C "cudnnenv remove cu"; complete -C "cudnnenv exec -- trainj"' 2>&1)
  expect_eq "$fish_out" "$versions
--cudnn${tab}the tree to pin (default: the current selection)
--cuda${tab}CUDA version the tree must be built for; a full release (13.0.2) also names the runtime tree
odd \$(touch PWNED) a;b${tab}cuDNN 9.1.0, CUDA 12.2
cuda12.4${tab}CUDA runtime 12.4.0
cuda12.1${tab}CUDA runtime 12.1.0
trainjob${tab}$WORK/progs/trainjob
trainjob-gpu${tab}$WORK/progs/trainjob-gpu" "fish"
  fish_init=$(fish --no-config -c 'cudnnenv init fish | source; complete -C "cudnnenv use 9.4"' 2>&1)
  expect_eq "$fish_init" "9.4${tab}installed: t9.4.0
9.4.0${tab}installed: t9.4.0" "fish: init loads the completion"
  pass "fish: complete -C: values in order with their descriptions"
else
  echo "skip: fish is not installed"
fi
[ ! -e PWNED ] && [ ! -e "$WORK/PWNED" ] || fail "a tree's name ran as code during completion"
pass "a tree named like shell code: one word in every shell, quoted by bash, nothing ran"
