#!/usr/bin/env bash
# Framework profiles: `profile list` says which installed tree runs each
# (TensorFlow accepts a newer minor of the same major: a fake 9.4.0 runs
# tf2.18, built with 9.3); `activate tf2.18` activates it with the profile's
# variables; a .cudnnenv.toml with profile = "tf2.18" selects it; `profile
# generate` writes scripts that activate from a plain shell, and deactivation
# gives the environment back byte for byte.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
unset CUDNNENV_VERSION CUDNNENV_SHELL _CUDNNENV_STATE CUDNNENV_ACTIVE TF_CPP_MIN_LOG_LEVEL
make_linux_tree t9.4.0 9.4.0 "$FIXTURES/fake-elf64-9.4.0.so"
"$CUDNNENV" install t9.4.0 --name t9.4.0 > /dev/null

"$CUDNNENV" profile list > list.out
grep -E '^(\*| )  (PROFILE|tf2.18|tf2.10|torch2.8-cu128|jax-cuda12) ' list.out | tr -s ' ' > rows.out
expect_eq "$(cat rows.out)" " PROFILE CUDNN CUDA RUNS ON
 jax-cuda12 9.8 12 -
 tf2.10 8.1 11.2 -
* tf2.18 9.3 12.5 t9.4.0 (9.4.0, not the tested pair)
 torch2.8-cu128 9.10.2 12.8 -" "profile list: the header, and the rows of profiles that run and do not"
expect_eq "$(tail -1 list.out)" "* = an installed tree runs it: 11 of $(($(wc -l < list.out) - 2)); 'cudnnenv install jax-cuda12' installs what jax-cuda12 needs" \
  "profile list: the footnote"
# The columns line up: each row's CUDNN column starts where the header's does.
column=$(head -1 list.out | grep -bo CUDNN | cut -d: -f1)
expect_eq "$(sed '1d;$d' list.out | cut -c$((column + 1))- | grep -cvE '^[0-9]')" "0" "profile list: the CUDNN column aligned"
"$CUDNNENV" profile list --json > list.json
expect_eq "$(python3 -c 'import json, sys; print([p["name"] for p in json.load(sys.stdin) if p["satisfied"]])' < list.json)" \
  "['ort1.19-cu12', 'ort1.20-cu12', 'ort1.22-cu12', 'tf2.18', 'tf2.19', 'tf2.20', 'tf2.21', 'torch2.4-cu121', 'torch2.5-cu121', 'torch2.5-cu124', 'torch2.6-cu124']" \
  "profile list --json: the profiles the installed 9.4.0 (CUDA 12.4) runs (cuDNN 9.3 or 9.1 for CUDA 12, or a newer 9.x)"
pass "profile list: tf2.18 and PyTorch 2.4-2.6's builds run on the installed 9.4.0, tf2.10, torch2.8 and jax-cuda12 on nothing installed"

set +e; "$CUDNNENV" activate tf2.10 --shell bash > out 2> err; rc=$?; set -e
expect_eq "$rc" "3" "activating a profile nothing installed runs"
expect_eq "$(head -1 err)" "cudnnenv: error: no installed cuDNN runs TensorFlow 2.10 (cuDNN 8.1 or a newer 8.x, CUDA 11.2) (set by --cudnn)" "message"

bash -c '
  eval "$("$0" activate tf2.18 --shell bash)"
  printf "%s\n" "$CUDNNENV_ACTIVE" "$TF_CPP_MIN_LOG_LEVEL"' "$CUDNNENV" > active.out
expect_eq "$(cat active.out)" "t9.4.0
0" "activate tf2.18"
pass "activate tf2.18: the 9.4.0 tree, with the profile's variables; an unmet profile exits 3 saying what to install"

# The profile's CUDA 12.5 toolkit, where CUDA_PATH_V12_5 says it is: its bin
# goes first on PATH and CUDA_PATH names it; deactivation takes both back.
mkdir -p "cuda 12.5/bin"
CUDA_PATH_V12_5="$WORK/cuda 12.5" bash -c '
  before=$(env | sort)
  eval "$("$0" activate tf2.18 --shell bash)"
  printf "%s\n" "${PATH%%:*}" "$CUDA_PATH"
  eval "$("$0" deactivate --shell bash)"
  [ "$(env | sort)" = "$before" ] && echo restored' "$CUDNNENV" > toolkit.out
expect_eq "$(cat toolkit.out)" "$WORK/cuda 12.5/bin
$WORK/cuda 12.5
restored" "the CUDA toolkit of the profile"
pass "activation puts the profile's CUDA toolkit (found through CUDA_PATH_V12_5) first on PATH and sets CUDA_PATH"

mkdir project && printf 'profile = "tf2.18"\n' > project/.cudnnenv.toml
(cd project && "$CUDNNENV" current) > current.out
grep -q "^9.4.0  t9.4.0  (set by $WORK/project/.cudnnenv.toml)" current.out || fail "current: $(cat current.out)"
pass "a project file's profile = \"tf2.18\" selects the tree that runs it"

"$CUDNNENV" profile generate tf2.18 > /dev/null
folder="$CUDNNENV_ROOT/.cudnnenv/profiles/tf2.18"
for file in activate.sh deactivate.sh activate.fish deactivate.fish activate.ps1 deactivate.ps1 activate.bat deactivate.bat; do
  [ -s "$folder/$file" ] || fail "profile generate wrote no $file"
done
[ "$(grep -c $'\r$' "$folder/activate.bat")" = "$(wc -l < "$folder/activate.bat")" ] || fail "activate.bat is not CRLF throughout"
for shell in bash zsh; do
  env -i HOME="$HOME" PATH="$PATH" "$shell" -c '
    env | sort > before; . "$1/activate.sh"; printf "%s\n" "$CUDNNENV_ACTIVE" > active
    . "$1/deactivate.sh"; env | sort > after' "$shell" "$folder"
  expect_eq "$(cat active)" "t9.4.0" "$shell: the generated activate.sh"
  cmp -s before after || fail "$shell: the generated scripts leave the environment changed: $(diff before after)"
done
env -i HOME="$HOME" PATH="$PATH" fish --no-config -c "
  env | sort > before; source '$folder/activate.fish'; echo \$CUDNNENV_ACTIVE > active
  source '$folder/deactivate.fish'; env | sort > after"
expect_eq "$(cat active)" "t9.4.0" "fish: the generated activate.fish"
cmp -s before after || fail "fish: the generated scripts leave the environment changed: $(diff before after)"
pass "profile generate: scripts for every shell; in a plain bash, zsh and fish they activate and undo exactly"
