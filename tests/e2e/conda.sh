#!/usr/bin/env bash
# export conda (#15): the hooks in a conda env's etc/conda/activate.d and
# deactivate.d, run as conda runs them (it sources each activate.d script of
# the shell's kind on `conda activate`, each deactivate.d one on `conda
# deactivate`), in real bash, zsh and fish: the env brings the tree (the
# same variables as `cudnnenv activate`, and `current` says so), leaving it
# gives the environment back, the hooks outlive the tree they found (they
# name the spec), and --remove deletes only what cudnnenv wrote. No conda is
# installed here: what conda adds is only the sourcing, done by hand below.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED _CUDNNENV_STATE CUDNNENV_ACTIVE CONDA_PREFIX
export CUDNNENV_ROOT="$WORK/store \$x 'q' é"
make_linux_tree t1 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install t1 --name "tree one"
env="$WORK/envs/tf 25"
mkdir -p "$env/conda-meta" "$env/etc/conda/activate.d"
printf '# a hook of another package (it changes nothing here)\n: other\n' > "$env/etc/conda/activate.d/other.sh"

run export conda 9.1 --prefix "$env"
expect_eq "$rc" "0" "export conda: $(cat err)"
expect_eq "$(cat out)" "wrote $env/etc/conda/activate.d/cudnnenv-activate.sh
wrote $env/etc/conda/deactivate.d/cudnnenv-deactivate.sh
wrote $env/etc/conda/activate.d/cudnnenv-activate.fish
wrote $env/etc/conda/deactivate.d/cudnnenv-deactivate.fish
wrote $env/etc/conda/activate.d/cudnnenv-activate.ps1
wrote $env/etc/conda/deactivate.d/cudnnenv-deactivate.ps1" "the hooks written"
expect_eq "$(cat err)" "cudnnenv: 'conda activate' of this env now activates '9.1' (today the tree 'tree one'); 'conda deactivate' takes it out" "the note"

views='printf "%s|" "${LD_LIBRARY_PATH-unset}" "${CUDNN_PATH-unset}" "${CUDNNENV_ACTIVE-unset}" "${CUDNNENV_ACTIVATED-unset}"'
expected=$(LD_LIBRARY_PATH=/opt/user/lib bash -c 'eval "$("$0" activate 9.1 --shell bash)"; '"$views" "$CUDNNENV")
before="/opt/user/lib|unset|unset|unset|"
for sh in bash zsh; do
  command -v $sh > /dev/null || continue
  # The whole environment, byte for byte (env -0, sorted; `_` is the shell's last argument).
  LD_LIBRARY_PATH=/opt/user/lib PATH="$(dirname "$CUDNNENV"):$PATH" $sh -c '
    env=$1 views=$2
    snapshot() { env -0 | tr "\0" "\1" | tr "\n" "\2" | tr "\1" "\n" | grep -v "^_=" | sort; }
    snapshot > env-before.txt
    eval "$(cudnnenv activate 9.1 --shell bash)"; snapshot > env-activate.txt
    eval "$(cudnnenv deactivate --shell bash)"
    for f in "$env"/etc/conda/activate.d/*.sh; do . "$f"; done
    eval "$views" > active.txt; cudnnenv current > current.txt; snapshot > env-active.txt
    for f in "$env"/etc/conda/deactivate.d/*.sh; do . "$f"; done
    eval "$views" > after.txt; snapshot > env-after.txt' "$sh" "$env" "$views"
  expect_eq "$(cat active.txt)" "$expected" "$sh: the env brings what activate brings"
  # The same environment, but for the door that set it.
  expect_eq "$(diff env-activate.txt env-active.txt | grep '^[<>]')" "< CUDNNENV_ACTIVATED_BY=activate
> CUDNNENV_ACTIVATED_BY=conda" "$sh: the env's environment is activate's, named by its door"
  expect_eq "$(cat current.txt)" "9.1.0  tree one  (set by the conda env's hook ('conda activate') in this shell)" "$sh: current"
  expect_eq "$(cat after.txt)" "$before" "$sh: leaving the env gives the environment back"
  cmp -s env-after.txt env-before.txt || fail "$sh: the environment after leaving differs: $(diff env-before.txt env-after.txt)"
  pass "conda hooks in $sh"
done
if command -v fish > /dev/null; then
  LD_LIBRARY_PATH=/opt/user/lib fish -c '
    set env $argv[1]
    env -0 | tr "\0" "\1" | tr "\n" "\2" | tr "\1" "\n" | grep -v "^_=" | sort > env-before.txt
    for f in $env/etc/conda/activate.d/*.fish; source $f; end
    printf "%s|" "$LD_LIBRARY_PATH" "$CUDNN_PATH" "$CUDNNENV_ACTIVE" "$CUDNNENV_ACTIVATED" > active.txt
    for f in $env/etc/conda/deactivate.d/*.fish; source $f; end
    printf "%s|" "$LD_LIBRARY_PATH" (set -q CUDNN_PATH; and echo $CUDNN_PATH; or echo unset) > after.txt
    env -0 | tr "\0" "\1" | tr "\n" "\2" | tr "\1" "\n" | grep -v "^_=" | sort > env-after.txt' "$env"
  expect_eq "$(cat active.txt)" "$expected" "fish: the env brings what activate brings"
  expect_eq "$(cat after.txt)" "/opt/user/lib|unset|" "fish: leaving the env gives the environment back"
  cmp -s env-after.txt env-before.txt || fail "fish: the environment after leaving differs: $(diff env-before.txt env-after.txt)"
  pass "conda hooks in fish"
fi

# The hooks name the spec: the tree replaced by another 9.1 (an upgrade), the env follows.
echo y > yes; STDIN=yes run remove "tree one"
run install t1 --name "tree one again"
bash -c 'for f in "$0"/etc/conda/activate.d/cudnnenv-*.sh; do . "$f"; done; echo "$CUDNNENV_ACTIVE"' "$env" > upgraded.txt
expect_eq "$(cat upgraded.txt)" "tree one again" "the hooks outlive the tree they found"
pass "hooks survive an upgrade"

run export conda --remove --prefix "$env"
expect_eq "$(sort out)" "$(printf 'removed %s\n' "$env"/etc/conda/activate.d/cudnnenv-activate.{fish,ps1,sh} "$env"/etc/conda/deactivate.d/cudnnenv-deactivate.{fish,ps1,sh} | sort)" "--remove"
expect_eq "$(ls "$env/etc/conda/activate.d")" "other.sh" "another package's hook stays"
printf '# mine\n' > "$env/etc/conda/activate.d/cudnnenv-activate.sh"
run export conda --remove --prefix "$env"
expect_eq "$(cat err)" "cudnnenv: no hook of cudnnenv in $env/etc/conda" "a file cudnnenv did not write is left alone"
[ -f "$env/etc/conda/activate.d/cudnnenv-activate.sh" ] || fail "--remove deleted a file cudnnenv did not write"
pass "--remove deletes only what cudnnenv wrote"

run export conda 9.1
expect_eq "$rc" "2" "no env"
expect_eq "$(cat err)" "cudnnenv: error: no conda env named: CONDA_PREFIX is not set
  hint: activate the env first, or give --prefix PATH" "no env"
CONDA_PREFIX=$WORK run export conda 9.1
expect_eq "$(cat err)" "cudnnenv: error: '$WORK' is not a conda env (it has no conda-meta folder)
  hint: give the env's folder: conda env list shows them" "not an env"
pass "errors"
