#!/usr/bin/env bash
# The shell integration in real, interactive bash and in fish: `cudnnenv init`
# activates the global default; `cudnnenv use` changes the current shell;
# cd into a folder with .cudnnenv.toml switches (the prompt hook in bash,
# fish's PWD event), cd out switches back; a prompt where nothing changed
# runs no process.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
unset CUDNNENV_VERSION CUDNNENV_SHELL _CUDNNENV_STATE CUDNNENV_ACTIVE LD_LIBRARY_PATH
for version in 9.1.0 9.2.0; do
  make_linux_tree "t$version" "$version" "$FIXTURES/fake-elf64-$version.so"
  "$CUDNNENV" install "t$version" --name "t$version" > /dev/null
done
"$CUDNNENV" use --global t9.1.0 > /dev/null
mkdir -p project/deep outside
printf 'cudnn = "t9.2.0"\n' > project/.cudnnenv.toml
mkdir bin && ln -s "$CUDNNENV" bin/cudnnenv
export PATH="$WORK/bin:$PATH"

# The same steps in each shell, after its own init line. bash -i runs
# PROMPT_COMMAND before each prompt, even reading from a pipe; fish runs the
# hook on its PWD event.
steps='echo "start $CUDNNENV_ACTIVE"
cd project/deep
echo "project $CUDNNENV_ACTIVE $LD_LIBRARY_PATH"
cd ../../outside
echo "outside $CUDNNENV_ACTIVE"
cudnnenv use t9.2.0
echo "use $CUDNNENV_ACTIVE $CUDNNENV_VERSION"
cd ../project
echo "use wins in the project $CUDNNENV_ACTIVE"'
expected="start t9.1.0
project t9.2.0 $CUDNNENV_ROOT/t9.2.0/lib
outside t9.1.0
use t9.2.0 t9.2.0
use wins in the project t9.2.0"
printf '%s\n%s\n' 'eval "$(cudnnenv init bash)"' "$steps" | bash --norc --noprofile -i > bash.out 2> bash.err
expect_eq "$(cat bash.out)" "$expected" "bash with the integration ($(tail -3 bash.err))"
pass "bash: init activates the default, cd into a project switches, cd out switches back, use changes the shell"
printf '%s\n%s\n' 'cudnnenv init fish | source' "$steps" | fish --no-config > fish.out 2> fish.err
expect_eq "$(cat fish.out)" "$expected" "fish with the integration ($(tail -3 fish.err))"
pass "fish: the same"

# A prompt where nothing changed starts no process: traced (set -x), the
# prompts after the first show no run of cudnnenv; a cd into the project does.
bash --norc --noprofile -i > quiet.out 2> quiet.err <<'SCRIPT'
eval "$(cudnnenv init bash)"
set -x
echo one
echo two
cd project
echo three
SCRIPT
runs=$(grep -c "__script bash hook" quiet.err || true)
expect_eq "$runs" "1" "runs of cudnnenv over four prompts, one after a cd into the project ($(grep -n "__script bash hook" quiet.err))"
pass "prompts with nothing changed run no process; the cd into the project runs one"

# With the integration loaded, eval "$(cudnnenv activate X --shell SHELL)" (activate --help's first line, the
# README's direnv recipe) activates X in the shell that evaluates it: the function prints the script for
# --shell rather than evaluating it inside $(...).
for shell in bash zsh; do
  command -v "$shell" > /dev/null || continue
  run_program "$shell" -c "eval \"\$(cudnnenv init $shell)\"; cd '$WORK/outside'
eval \"\$(cudnnenv activate t9.2.0 --shell $shell)\"; _cudnnenv_hook
echo \"\$CUDNNENV_ACTIVE \$LD_LIBRARY_PATH\""
  expect_eq "$rc:$(tail -1 out)" "0:t9.2.0 $CUDNNENV_ROOT/t9.2.0/lib" "$shell: eval of activate --shell with init loaded ($(cat err))"
done
pass "eval \"\$(cudnnenv activate X --shell SHELL)\" activates X with the integration loaded (bash, zsh)"

# A lock written beside the project file, or removed, takes effect at the next prompt with no cd (bash, zsh:
# the prompt hook; fish: its prompt event), read by the shell with the project file: "9" is t9.2.0, the
# newest, until cudnnenv.lock names the archive a9.1.0 came from.
make_linux_tree a9.1.0 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
tar -cJf a9.1.0.tar.xz a9.1.0
"$CUDNNENV" install a9.1.0.tar.xz --name a9.1.0 > /dev/null
mkdir locking && printf 'cudnn = "9"\n' > locking/.cudnnenv.toml
printf 'format = 1\n[input]\ncudnn = "9"\nplatforms = ["linux-x86_64"]\n[[cudnn]]\nplatform = "linux-x86_64"\nversion = "9.1.0.70"\ncuda = "cuda12"\nfile = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"\nurl = "https://developer.download.nvidia.com/x.tar.xz"\nsha256 = "%s"\n' \
  "$(sha256sum a9.1.0.tar.xz | cut -d' ' -f1)" > a.lock
steps='cd locking
echo "before $CUDNNENV_ACTIVE"
cp ../a.lock cudnnenv.lock
echo "locked $CUDNNENV_ACTIVE"
rm cudnnenv.lock
echo "unlocked $CUDNNENV_ACTIVE"'
expected="before t9.2.0
locked a9.1.0
unlocked t9.2.0"
printf '%s\n%s\n' 'eval "$(cudnnenv init bash)"' "$steps" | bash --norc --noprofile -i > bash.out 2> bash.err
expect_eq "$(cat bash.out)" "$expected" "bash: a lock written and removed ($(tail -3 bash.err))"
if command -v zsh > /dev/null; then
  printf '%s\n%s\n' 'eval "$(cudnnenv init zsh)"' "$steps" | zsh -f -i > zsh.out 2> zsh.err
  expect_eq "$(cat zsh.out)" "$expected" "zsh: a lock written and removed ($(tail -3 zsh.err))"
fi
printf '%s\n%s\n' 'cudnnenv init fish | source' "$(printf '%s\n' "$steps" | sed 's/^echo/emit fish_prompt; echo/')" |
  fish --no-config > fish.out 2> fish.err
expect_eq "$(cat fish.out)" "$expected" "fish: a lock written and removed ($(tail -3 fish.err))"
pass "a lock written or removed beside the project file is followed at the next prompt (bash, zsh, fish)"

# A project whose locked build is not installed (#62 item 7): entering it says once what is missing and the
# command that installs it, the prompts after say nothing, and an install through the shell function
# activates it at once (bash, fish; zsh shares bash's function).
make_linux_tree b9.4.0 9.4.0 "$FIXTURES/fake-elf64-9.4.0.so"
tar -cJf b9.4.0.tar.xz b9.4.0
mkdir missing && printf 'cudnn = "9"\n' > missing/.cudnnenv.toml
printf 'format = 1\n[input]\ncudnn = "9"\nplatforms = ["linux-x86_64"]\n[[cudnn]]\nplatform = "linux-x86_64"\nversion = "9.4.0.58"\ncuda = "cuda12"\nfile = "cudnn-linux-x86_64-9.4.0.58_cuda12-archive.tar.xz"\nurl = "https://developer.download.nvidia.com/x.tar.xz"\nsha256 = "%s"\n' \
  "$(sha256sum b9.4.0.tar.xz | cut -d' ' -f1)" > missing/cudnnenv.lock
steps='cd missing
echo "entered [$CUDNNENV_ACTIVE]"
echo "again [$CUDNNENV_ACTIVE]"
cudnnenv install ../b9.4.0.tar.xz --name b9.4.0 > /dev/null 2>&1
echo "installed [$CUDNNENV_ACTIVE]"'
expected="entered []
again []
installed [b9.4.0]"
said="cudnnenv: missing here: the locked build, cuDNN 9.4.0.58 (cuda12, cudnn-linux-x86_64-9.4.0.58_cuda12-archive.tar.xz), is not installed (set by $WORK/missing/.cudnnenv.toml, the build $WORK/missing/cudnnenv.lock names)
  hint: cudnnenv sync"
printf '%s\n%s\n' 'eval "$(cudnnenv init bash)"' "$steps" | bash --norc --noprofile -i > bash.out 2> bash.err
expect_eq "$(cat bash.out)" "$expected" "bash: a missing locked build, then installed ($(tail -3 bash.err))"
expect_eq "$(grep -A1 '^cudnnenv: missing here' bash.err)" "$said" "bash: what is missing, said once, with the command"
"$CUDNNENV" remove b9.4.0 --yes > /dev/null 2>&1
printf '%s\n%s\n' 'cudnnenv init fish | source' "$(printf '%s\n' "$steps" | sed 's/^echo/emit fish_prompt; echo/')" |
  fish --no-config > fish.out 2> fish.err
expect_eq "$(cat fish.out)" "$expected" "fish: a missing locked build, then installed ($(tail -3 fish.err))"
expect_eq "$(grep -A1 '^cudnnenv: missing here' fish.err)" "$said" "fish: what is missing, said once, with the command"
pass "entering a project whose build is not installed says once what is missing and how to install it; an install activates it"
