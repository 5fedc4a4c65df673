#!/usr/bin/env bash
# Selecting a version at the command line: use --local / --global, current
# and which 30 folders below the project file, exit codes, and what `use`
# prints for a hooked shell, evaluated by real bash, zsh and fish with a
# tree name full of shell syntax (a marker file proves none of it ran).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export CUDNNENV_ROOT="$WORK/store"
unset CUDNNENV_VERSION CUDNNENV_SHELL


run current
expect_eq "$rc" "3" "current with nothing selected"
grep -q "hint: choose one: 'cudnnenv use <version> --global'" err || fail "hint: $(cat err)"

make_linux_tree tree 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
hostile='it'"'"'s $(touch marker) `touch marker` 100% 中文 $HOME'
"$CUDNNENV" install tree --name "$hostile" > /dev/null
"$CUDNNENV" install tree --name plain-9.1 > /dev/null

run use 7.6
expect_eq "$rc" "3" "use of a version that is not installed"
grep -q "cudnnenv: error: no installed cuDNN matches '7.6'" err || fail "message: $(cat err)"

mkdir -p project && cd project
printf '# keep this comment\n[env]\nTF_CPP_MIN_LOG_LEVEL = "2"\n' > .cudnnenv.toml
"$CUDNNENV" use plain-9.1 --local > /dev/null
expect_eq "$(cat .cudnnenv.toml)" '# keep this comment
cudnn = "plain-9.1"
[env]
TF_CPP_MIN_LOG_LEVEL = "2"' "project file after use --local"
deep=.; for i in $(seq 1 30); do deep="$deep/level $i"; done
mkdir -p "$deep" && cd "$deep"
run current
expect_eq "$(cat out)" "9.1.0  plain-9.1  (set by $WORK/project/.cudnnenv.toml)" "current 30 folders below"
run which
expect_eq "$(cat out)" "$CUDNNENV_ROOT/plain-9.1/lib/libcudnn.so.9" "which"
run which --all
expect_eq "$(wc -l < out | tr -d ' ')" "16" "which --all: 8 libraries and their .so.9 links"
pass "use --local, current and which from 30 folders below"

cd "$WORK"
run use plain-9.1 --global
expect_eq "$rc" "0" "use --global"
run current
expect_eq "$(cat out)" "9.1.0  plain-9.1  (set by $CUDNNENV_ROOT/.cudnnenv/config.toml, the global default)" "global default"
pass "use --global"

run use plain-9.1
expect_eq "$rc" "1" "use without the shell hook"
grep -q "hint: load it (eval \"\$(cudnnenv init bash)\", see 'cudnnenv init --help'), or run: export CUDNNENV_VERSION='plain-9.1'" err || fail "hint: $(cat err)"
pass "use without the hook prints the line to run"

cd "$WORK"  # where a 'touch marker' would land
for sh in bash zsh fish; do
  line=$("$CUDNNENV" __script $sh use "$hostile")
  case $sh in
    fish) got=$(fish --no-config -c "$line; printf '%s' \$CUDNNENV_VERSION") ;;
    *) got=$($sh -c "$line"'; printf "%s" "$CUDNNENV_VERSION"') ;;
  esac
  expect_eq "$got" "$hostile" "$sh: CUDNNENV_VERSION after eval"
  [ ! -e "$WORK/marker" ] || fail "$sh ran part of the value as code"
  got=$(CUDNNENV_VERSION="$got" "$CUDNNENV" current)
  expect_eq "$got" "9.1.0  $hostile  (set by CUDNNENV_VERSION)" "$sh: current after use"
  pass "$sh: use sets the variable exactly; nothing ran"
done
