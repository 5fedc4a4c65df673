#!/usr/bin/env bash
# Property test of the activation scripts (#10): generated hostile [env] keys
# and values in a trusted .cudnnenv.toml, activated in real bash, zsh and
# fish. For every round, either the shell ends with exactly the intended
# variables holding exactly the intended bytes (compared through env -0), or
# cudnnenv refused the input and printed nothing to evaluate; a marker file
# never appears. The generator is seeded (CUDNNENV_TEST_SEED, default 10:
# lib.sh's test_seed) so a failure can be replayed; PROPERTY_ROUNDS sets the
# rounds per shell.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
unset CUDNNENV_VERSION CUDNNENV_SHELL _CUDNNENV_STATE CUDNNENV_ACTIVE
export LD_LIBRARY_PATH=/pre
rounds=${PROPERTY_ROUNDS:-25}
test_seed
RANDOM=$seed

make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
"$CUDNNENV" install t91 --name t91 > /dev/null

# The shell's view after evaluating the activation: every P_ variable, sorted, NUL-separated.
evaluate() {
  local shell=$1
  case $shell in
    bash | zsh) "$shell" -c 'eval "$(cat script)"; env -0' ;;
    fish) fish --no-config -c 'source script; env -0' ;;
  esac | LC_ALL=C grep -z '^P_' | LC_ALL=C sort -z
}

mkdir project && cd project
checked=0 refused=0
for shell in bash zsh fish; do
  for ((round = 0; round < rounds; round++)); do
    declare -A intended=()
    {
      echo 'cudnn = "t91"'
      echo '[env]'
      for ((k = 0; k < 6; k++)); do
        random_name
        name=${REPLY}_$k  # distinct within the file
        random_value
        value=$REPLY
        intended[$name]=$value
        printf '%s = %s\n' "$name" "$(toml_string "$value")"
      done
      if ((round % 5 == 4)); then  # one key that is not a variable name
        bad_key=${bad_keys[RANDOM % ${#bad_keys[@]}]}
        printf '%s = "1"\n' "$(toml_string "$bad_key")"
      fi
    } > .cudnnenv.toml
    set +e
    "$CUDNNENV" trust > /dev/null 2>&1
    "$CUDNNENV" activate --shell "$shell" > script 2> err
    rc=$?
    set -e
    if ((round % 5 == 4)); then
      expect_eq "$rc" "1" "$shell round $round: a key that is not a variable name ($(cat err))"
      [ ! -s script ] || fail "$shell round $round: a refused activation printed a script"
      refused=$((refused + 1))
    else
      expect_eq "$rc" "0" "$shell round $round ($(cat err))"
      expected=$(for name in "${!intended[@]}"; do printf '%s=%s\0' "$name" "${intended[$name]}"; done |
        LC_ALL=C sort -z | od -An -tx1)
      got=$(evaluate "$shell" | od -An -tx1)
      [ "$got" = "$expected" ] || fail "$shell round $round: the variables differ from the file's
$(cat .cudnnenv.toml)"
      checked=$((checked + 1))
    fi
    [ -z "$(find "$WORK" -name 'PWNED*' -print -quit)" ] || fail "$shell round $round: code ran
$(cat .cudnnenv.toml)"
    unset intended
  done
done
pass "$checked generated activations set exactly the intended bytes, $refused refused, in bash, zsh and fish; nothing ran"
