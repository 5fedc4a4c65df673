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

# Pieces of values: every shell's code syntax, quotes, escapes, expansions,
# control bytes, letters outside ASCII.
pieces=("'" '"' '\' '\\' '$HOME' '${HOME}' "\$(touch $WORK/PWNED_v)" "\`touch $WORK/PWNED_v\`" ';' '&' '|' '&&'
  '%PATH%' '%' '!x!' '!' '^' '(' ')' '<' '>' '*' '?' '~' '{a,b}' '#' ' ' $'\t' $'\n' $'\r' '中文' 'é' '$Env:PATH'
  "'';" '`n' '--' '-e' '=' 'a' 'Z' '0' $'\e[31m' '$' '{' '}' '[' ']')
# Pieces of keys that are not variable names.
bad_keys=('X;touch PWNED_k;#' 'A B' '1A' 'A-B' "\$(touch $WORK/PWNED_k)" 'É' 'A=B' '' 'A.B' 'X`touch PWNED_k`')

random_value() {
  local n=$((RANDOM % 7)) value='' i
  for ((i = 0; i < n; i++)); do value+=${pieces[RANDOM % ${#pieces[@]}]}; done
  printf '%s' "$value"
}
random_name() {
  local letters=ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_ name=P_ i
  for ((i = 0; i < RANDOM % 6 + 1; i++)); do name+=${letters:RANDOM % ${#letters}:1}; done
  printf '%s' "$name"
}
# A TOML basic string.
toml_string() {
  local s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      '\') out+='\\' ;;
      '"') out+='\"' ;;
      $'\n') out+='\n' ;;
      $'\t') out+='\t' ;;
      $'\r') out+='\r' ;;
      $'\e') out+='\u001b' ;;
      *) out+=$c ;;
    esac
  done
  printf '"%s"' "$out"
}

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
        name=$(random_name)_$k  # distinct within the file
        value=$(random_value)
        intended[$name]=$value
        printf '%s = %s\n' "$name" "$(toml_string "$value")"
      done
      if ((round % 5 == 4)); then  # one key that is not a variable name
        printf '%s = "1"\n' "$(toml_string "${bad_keys[RANDOM % ${#bad_keys[@]}]}")"
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
