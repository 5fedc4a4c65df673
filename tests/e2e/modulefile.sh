#!/usr/bin/env bash
# export modulefile (#15) through real Lmod (Debian's lmod): for a store whose
# path holds spaces, quotes, '$', brackets, braces and é, `module load
# cudnn/<version>` sets exactly what `cudnnenv activate` sets and a program
# started then loads that tree's library, a second load
# of the family swaps, `module unload` gives the environment back, and
# whatis/help say which tree it is. The Tcl format through Lmod too (its
# tcl2lua mangles a double quote in a value, so that store has none, and
# cannot run a Tcl modulefile whose own path has a space, so those are
# written outside this test's folder; Tcl modulefiles are written ASCII,
# non-ASCII letters as \u escapes).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
lmod_init=/usr/share/lmod/lmod/init/bash
[ -r "$lmod_init" ] || { echo "skip: no Lmod ($lmod_init)"; exit 77; }
export LC_ALL=C.UTF-8
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED _CUDNNENV_STATE CUDNNENV_ACTIVE LOADEDMODULES _LMFILES_ MODULEPATH
make_linux_tree t1 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
make_linux_tree t2 9.2.0 "$FIXTURES/fake-elf64-9.2.0.so"

# What a shell has after `module load` (or `eval "$(cudnnenv activate ...)"`): the variables activation sets.
# load-cudnn prints the cudnnGetVersion() of the libcudnn.so.9 it loads by name: a program started there.
views() { printf '%s|' "$LD_LIBRARY_PATH" "${CUDNN_PATH-unset}" "${CUDNN_INCLUDE_DIR-unset}" "${CUDNN_LIB_DIR-unset}" "${CUDNNENV_ACTIVE-unset}" "$("$LOAD_CUDNN" 2>&1)"; }
export LOAD_CUDNN=$FIXTURES/load-cudnn
export -f views

check_format() {  # FORMAT ROOT
  local format=$1
  export CUDNNENV_ROOT=$2
  run install t1 --name "tree one" && expect_eq "$rc" "0" "install t1"
  run install t2 --name "tree two" && expect_eq "$rc" "0" "install t2"
  mods=$PWD/mods-$format
  if [ "$format" = tcl ]; then
    mods=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv-modules-XXXXXX")
    trap 'rm -rf "$mods"; cleanup' EXIT
  fi
  run export modulefile --all --format "$format" -o "$mods"
  expect_eq "$rc" "0" "export --all ($format): $(cat err)"
  local ext=; [ "$format" = lua ] && ext=.lua
  expect_eq "$(sort out)" "wrote $mods/cudnn/9.1.0$ext (module load cudnn/9.1.0: 'tree one')
wrote $mods/cudnn/9.2.0$ext (module load cudnn/9.2.0: 'tree two')" "what export wrote ($format)"
  if [ "$format" = tcl ]; then
    LC_ALL=C grep -q $'[\x80-\xff]' "$mods/cudnn/9.1.0" && fail "a Tcl modulefile with bytes outside ASCII"
  fi
  local expected_one expected_two before
  expected_one=$(LD_LIBRARY_PATH=/opt/user/lib bash -c 'eval "$("$0" activate "tree one" --shell bash)"; views' "$CUDNNENV")
  expected_two=$(LD_LIBRARY_PATH=/opt/user/lib bash -c 'eval "$("$0" activate "tree two" --shell bash)"; views' "$CUDNNENV")
  before=$(LD_LIBRARY_PATH=/opt/user/lib bash -c 'views')
  LD_LIBRARY_PATH=/opt/user/lib bash -c '
    source "$0" > /dev/null 2>&1
    module use "$1"
    module load cudnn/9.1.0 2> load.err; views > one.txt
    module load cudnn/9.2.0 2> swap.err; views > two.txt
    module unload cudnn; views > after.txt
    module whatis cudnn/9.1.0 > whatis.txt 2>&1
    module help cudnn/9.1.0 > help.txt 2>&1' "$lmod_init" "$mods"
  expect_eq "$(cat load.err)" "" "module load said nothing ($format)"
  expect_eq "$(cat one.txt)" "$expected_one" "module load cudnn/9.1.0 sets what activate sets ($format)"
  expect_eq "$(cat two.txt)" "$expected_two" "a second cudnn module replaces the first ($format)"
  expect_eq "$(cat after.txt)" "$before" "module unload gives the environment back ($format)"
  grep -q "NVIDIA cuDNN 9.1.0 for CUDA 12.2 (the cudnnenv tree 'tree one')" whatis.txt || fail "whatis ($format): $(cat whatis.txt)"
  grep -qF "cudnnenv exec --cudnn 'tree one' -- python train.py" help.txt || fail "help ($format): $(cat help.txt)"
}

check_format lua "$WORK/store \"q\" \$x [y] {z} é"
pass "Lua modulefiles through Lmod"
check_format tcl "$WORK/tcl store \$x [y] {z} é; a"
pass "Tcl modulefiles through Lmod"

run export modulefile
expect_eq "$rc" "2" "neither a spec nor --all"
expect_eq "$(cat err)" "cudnnenv: error: give one tree (a spec) or --all
  hint: cudnnenv export modulefile 8.1 -o DIR, or --all -o DIR" "the usage error"
run export modulefile 9.1 -o one
expect_eq "$(cat out)" "wrote one/cudnn/9.1.0.lua (module load cudnn/9.1.0: 'tree one')" "one tree by spec"
pass "export modulefile's arguments"

# Two trees of one version and CUDA (#22): each its own file, none replaced.
export CUDNNENV_ROOT="$WORK/dup store"
run install t1 --name "a one"
run install t2 --name b
run export modulefile --all -o dup
expect_eq "$(ls dup/cudnn | sort)" "9.1.0.lua
9.2.0.lua" "one 9.1.0 tree: cudnn/9.1.0"
printf 'whatis("the site'"'"'s own")\n' > dup/cudnn/site.lua  # not cudnnenv's: never removed
# A second tree of 9.1.0 renames both; the old cudnn/9.1.0 goes (module avail: one module per tree).
run install t1 --name "a two"
run export modulefile --all -o dup
expect_eq "$rc" "0" "export --all with two 9.1.0 trees ($(cat err))"
expect_eq "$(grep '^removed' out)" "removed dup/cudnn/9.1.0.lua (no tree is module cudnn/9.1.0 now)" "the earlier file of the renamed module"
expect_eq "$(ls dup/cudnn | sort)" "9.1.0-cuda12.2-a_one.lua
9.1.0-cuda12.2-a_two.lua
9.2.0.lua
site.lua" "one file per tree, and the site's own file"
expect_eq "$(grep -l "'a two'" dup/cudnn/*.lua)" "dup/cudnn/9.1.0-cuda12.2-a_two.lua" "the second tree's file is its own"
pass "export modulefile --all: two trees of one version and CUDA get a file each"

# A tree whose folder has a ':' (#28, item 3): activate and exec refuse it, and so does every exporter,
# Lmod splitting a path entry on ':'.
export CUDNNENV_ROOT="$WORK/colon:store"
make_linux_tree colon 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install colon --name colon
expect_eq "$rc" "0" "install into a store whose path has ':' ($(cat err))"
run export modulefile colon -o colonmods
expect_eq "$rc" "1" "export modulefile of a tree whose path has ':'"
expect_eq "$(head -1 err)" "cudnnenv: error: cannot write a modulefile for 'colon': the folder '$CUDNNENV_ROOT/colon/lib' that goes on LD_LIBRARY_PATH holds a ':', which splits it into two folders there" "the refusal"
[ -z "$(find colonmods -type f 2> /dev/null)" ] || fail "a modulefile was written: $(find colonmods)"
pass "export modulefile refuses a tree whose folder holds ':', as activate and exec do"
