#!/usr/bin/env bash
# Tab completion (issue 15, one part), through bash, zsh and fish themselves:
# `cudnnenv completion SHELL` (and `init SHELL`, which includes it) loads
# without error, and completing `cudnnenv use 9.` offers the installed trees'
# versions, `cudnnenv u` the subcommands, `cudnnenv exec --cu` the options,
# `cudnnenv use tf2.1` the profiles. Candidates come from `cudnnenv
# __complete`, so the shells only ask.
# zsh: its completion function runs with compadd (a builtin that only works
# inside the completion system) replaced by one that prints what it gets.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
bin=$(dirname "$CUDNNENV")
export PATH="$bin:$PATH"
for version in 9.1.0 9.4.0; do
  make_linux_tree "t$version" "$version" "$FIXTURES/fake-elf64-$version.so"
  "$CUDNNENV" install "t$version" --name "t$version" > /dev/null
done

# A tree whose name is shell code: completed as one word, quoted, never run.
make_linux_tree odd 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install odd --name 'odd $(touch PWNED) a;b' > /dev/null

versions="9.1
9.1.0
9.4
9.4.0"
run_program "$CUDNNENV" __complete --current=9. -- use
expect_eq "$(cat out)" "$versions" "__complete: use 9."
run_program "$CUDNNENV" __complete --current=u --
expect_eq "$(cat out)" "use
untrust" "__complete: the subcommands starting with u"
run_program "$CUDNNENV" __complete --current=--cu -- exec
expect_eq "$(cat out)" "--cudnn
--cuda" "__complete: exec's options"
run_program "$CUDNNENV" __complete --current= -- exec --cudnn
expect_eq "$(cat out)" "odd \$(touch PWNED) a;b
t9.1.0
t9.4.0
$versions
$("$CUDNNENV" profile list | awk '{print $1}')" "__complete: exec --cudnn: the trees, their versions, the profiles"
run_program "$CUDNNENV" __complete --current= -- exec --cudnn t9.1.0 python
expect_eq "$(cat out)" "" "__complete: nothing for the program's own arguments"
run_program "$CUDNNENV" __complete --current= -- completion
expect_eq "$(cat out)" "bash
zsh
fish
powershell" "__complete: the shells completion writes for"
pass "__complete: subcommands, options, trees, versions, profiles, shells"

# bash: the function `complete` registered, run as readline would.
bash_quoted='odd\ \$\(touch\ PWNED\)\ a\;b'  # as %q writes it
bash_out=$(bash --norc -c '
eval "$(cudnnenv completion bash)"
complete -p cudnnenv
COMP_WORDS=(cudnnenv use 9.); COMP_CWORD=2; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"
COMP_WORDS=(cudnnenv --root "$CUDNNENV_ROOT" u); COMP_CWORD=3; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"
COMP_WORDS=(cudnnenv use od); COMP_CWORD=2; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"
eval "words=(${COMPREPLY[0]})"; printf "[%s] %s\n" "${words[@]}" "${#words[@]}"' 2>&1)
expect_eq "$bash_out" "complete -o default -F _cudnnenv_complete cudnnenv
$versions
use
untrust
$bash_quoted
[odd \$(touch PWNED) a;b] 1" "bash"
bash_init=$(bash --norc -c 'eval "$(cudnnenv init bash)"; complete -p cudnnenv' 2>&1)
expect_eq "$bash_init" "complete -o default -F _cudnnenv_complete cudnnenv" "bash: init loads the completion"
pass "bash: complete -p names the function; it completes versions and subcommands"

if command -v zsh > /dev/null; then
  zsh_out=$(zsh -f -c '
autoload -Uz compinit && compinit -u -d "$PWD/zcompdump"
source <(cudnnenv completion zsh)
print -r -- "registered: $_comps[cudnnenv]"
compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }
words=(cudnnenv use 9.); CURRENT=3; _cudnnenv_complete
words=(cudnnenv use tf2.1); CURRENT=3; _cudnnenv_complete
words=(cudnnenv use od); CURRENT=3; _cudnnenv_complete' 2>&1)
  expect_eq "$zsh_out" "registered: _cudnnenv_complete
$versions
$("$CUDNNENV" profile list | awk '{print $1}' | grep '^tf2\.1')
odd \$(touch PWNED) a;b" "zsh"
  zsh_init=$(zsh -f -c 'autoload -Uz compinit && compinit -u -d "$PWD/zcompdump2"; eval "$(cudnnenv init zsh)"; print -r -- $_comps[cudnnenv]' 2>&1)
  expect_eq "$zsh_init" "_cudnnenv_complete" "zsh: init loads the completion"
  pass "zsh: compdef registers the function; it completes versions and profiles"
else
  echo "skip: zsh is not installed"
fi

if command -v fish > /dev/null; then
  fish_out=$(fish --no-config -c 'cudnnenv completion fish | source; complete -C "cudnnenv use 9."; complete -C "cudnnenv exec --cu"; complete -C "cudnnenv use od"' 2>&1)
  expect_eq "$fish_out" "$versions
--cudnn
--cuda
odd \$(touch PWNED) a;b" "fish"
  fish_init=$(fish --no-config -c 'cudnnenv init fish | source; complete -C "cudnnenv use 9.4"' 2>&1)
  expect_eq "$fish_init" "9.4
9.4.0" "fish: init loads the completion"
  pass "fish: complete -C completes versions and options"
else
  echo "skip: fish is not installed"
fi
[ ! -e PWNED ] && [ ! -e "$WORK/PWNED" ] || fail "a tree's name ran as code during completion"
pass "a tree named like shell code: one word in every shell, quoted by bash, nothing ran"
