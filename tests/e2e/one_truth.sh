#!/usr/bin/env bash
# One selection (#11): in real bash, zsh and fish with the integration loaded,
# after `use --global`, `use --local`, a cd, `activate`, `deactivate`, a
# plain `use`, `use --help` (printed, never evaluated), `use --unset` and a
# `deactivate` that undoes `use`, and `use 9.4 --cuda 12.0` of a tree built
# with CUDA 12.4 (a CUDA part matches what a tree serves) (#22), five views
# name the same tree: the shell's CUDNNENV_ACTIVE,
# `current --json`, `which`, what a program loads through a shim, and what
# it loads through `exec` (load-cudnn prints the cuDNN version it loaded).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
unset CUDNNENV_VERSION CUDNNENV_SHELL _CUDNNENV_STATE CUDNNENV_ACTIVE CUDNNENV_ACTIVATED LD_LIBRARY_PATH
for version in 9.1.0 9.2.0 9.4.0; do
  make_linux_tree "t$version" "$version" "$FIXTURES/fake-elf64-$version.so"
  "$CUDNNENV" install "t$version" --name "t$version" > /dev/null
done
mkdir bin prog project outside
ln -s "$CUDNNENV" bin/cudnnenv
cp "$FIXTURES/load-cudnn" prog/
export PATH="$WORK/bin:$WORK/prog:$PATH"
export CUDNNENV_VERIFY=none PROG="$WORK/prog/load-cudnn"  # exec starts the program itself, not its shim
"$CUDNNENV" shim add load-cudnn > /dev/null

# One line per step: the step's name and the five views. A cd is followed by
# a prompt (the hook runs there) before the views, as when a person types.
views_sh='printf "%s %s %s %s %s %s\n" "$1" "$CUDNNENV_ACTIVE" "$(cudnnenv current --json | tr -d "\r" | grep -m1 "\"name\"" | sed -E "s/.*: \"([^\"]*)\".*/\1/")" "$(cudnnenv which | sed "s|^$CUDNNENV_ROOT/||; s|/lib/libcudnn.so.9$||")" "$(load-cudnn)" "$(cudnnenv exec -- "$PROG")"'
steps='cudnnenv use t9.4.0 --global; views global
cd project; cudnnenv use t9.2.0 --local; views local
cd ../outside
views cd-out
cudnnenv activate t9.1.0; views activate
cd ../project
views cd-in-activated
cudnnenv deactivate; views deactivate
cudnnenv use t9.1.0; views use
cudnnenv use --help > /dev/null 2>&1; views help
cudnnenv use --unset; views unset
cudnnenv use t9.4.0; views use-again
cudnnenv deactivate 2> /dev/null; views deactivate-use
cudnnenv use 9.4 --cuda 12.0; views cuda-minor'
expected="global t9.4.0 t9.4.0 t9.4.0 90400 90400
local t9.2.0 t9.2.0 t9.2.0 90200 90200
cd-out t9.4.0 t9.4.0 t9.4.0 90400 90400
activate t9.1.0 t9.1.0 t9.1.0 90100 90100
cd-in-activated t9.1.0 t9.1.0 t9.1.0 90100 90100
deactivate t9.2.0 t9.2.0 t9.2.0 90200 90200
use t9.1.0 t9.1.0 t9.1.0 90100 90100
help t9.1.0 t9.1.0 t9.1.0 90100 90100
unset t9.2.0 t9.2.0 t9.2.0 90200 90200
use-again t9.4.0 t9.4.0 t9.4.0 90400 90400
deactivate-use t9.2.0 t9.2.0 t9.2.0 90200 90200
cuda-minor t9.4.0 t9.4.0 t9.4.0 90400 90400"

# in_shell SHELL NAME BODY STEPS OUT: STEPS in SHELL (interactive, the integration
# loaded) with a function NAME whose bash BODY gets the step's words as $1...;
# stdout in OUT.out, stderr in OUT.err.
in_shell() {
  local shell=$1 name=$2 body=$3 steps=$4 out=$5
  case $shell in
    bash) printf '%s\n' 'eval "$(cudnnenv init bash)"' "$name() { $body; }" "$steps" |
            bash --norc --noprofile -i > "$out.out" 2> "$out.err" ;;
    zsh) printf '%s\n' 'eval "$(cudnnenv init zsh)"' "$name() { $body; }" "$steps" |
           zsh -f -i > "$out.out" 2> "$out.err" ;;
    fish) printf '%s\n' 'cudnnenv init fish | source' "function $name; bash -c '$body' _ \$argv; end" "$steps" |
            fish --no-config > "$out.out" 2> "$out.err" ;;
  esac
}

for shell in bash zsh fish; do
  rm -f "$CUDNNENV_ROOT/.cudnnenv/config.toml" project/.cudnnenv.toml
  cd "$WORK"
  in_shell "$shell" views "$views_sh" "$steps" "$shell"
  expect_eq "$(grep -E '^(global|local|cd-out|cd-in-activated|activate|deactivate|use|help|unset|use-again|deactivate-use|cuda-minor) ' "$shell.out")" "$expected" \
    "$shell: the shell, current, which, a shim and exec ($(grep -v '^cudnnenv: \(wrote\|global\)' "$shell.err" | tail -5))"
  pass "$shell: after use --global, use --local, cd, activate, deactivate and use, every view names the same tree"
done

# The trusted [env] of a project (#22): the shell (the hook), exec and a shim started without the variable
# all see it; leaving the project takes it out of the shell.
mkdir -p "$WORK/envproject"
printf 'cudnn = "t9.2.0"\n[env]\nFOO = "from-env"\n' > "$WORK/envproject/.cudnnenv.toml"
(cd "$WORK/envproject" && "$CUDNNENV" trust > /dev/null)
"$CUDNNENV" shim add printenv > /dev/null
env_view='printf "%s %s %s %s\n" "$1" "${FOO-none}" "$(cudnnenv exec -- printenv FOO)" "$(env -u FOO printenv FOO)"'
env_steps='cd envproject
envview in
cd ..
envview out'
for shell in bash zsh fish; do
  cd "$WORK"
  in_shell "$shell" envview "$env_view" "$env_steps" "env-$shell"
  expect_eq "$(grep -E '^(in|out) ' "env-$shell.out")" "in from-env from-env from-env
out none  " "$shell: [env] in the shell, exec and a shim ($(tail -3 "env-$shell.err"))"
  pass "$shell: a trusted [env] is the same in the shell, exec and a shim, and leaves with the project"
done

# A folder named .cudnnenv.toml below the project file (#28, item 4): resolution passes over it, and so
# must the shims' cached decision, so that after the project file changes the shim follows it.
cd "$WORK"
mkdir -p stale/sub/.cudnnenv.toml
printf 'cudnn = "t9.1.0"\n' > stale/.cudnnenv.toml
shim_dir="$CUDNNENV_ROOT/.cudnnenv/shims"
cd stale/sub
expect_eq "$("$shim_dir/load-cudnn")" "90100" "the shim below a folder named .cudnnenv.toml, first start"
expect_eq "$("$shim_dir/load-cudnn")" "90100" "the same, from its recorded decision"
sleep 0.01
printf 'cudnn = "t9.2.0"\n' > ../.cudnnenv.toml
expect_eq "$(cudnnenv current | cut -d' ' -f1)" "9.2.0" "current follows the changed project file"
expect_eq "$("$shim_dir/load-cudnn")" "90200" "the shim follows the changed project file, not a stale decision"
cd "$WORK"
pass "a folder named .cudnnenv.toml does not freeze a shim's decision: the shim follows the project file as current does"
