#!/usr/bin/env bash
# Activation in real bash, zsh and fish: activate, check the variables,
# deactivate, 20 times, then compare the whole environment with the one
# before, byte for byte. The store's path is full of characters shells treat
# as code (quotes, $, backquotes, $(...), ;, &, |, %, !, ^, Chinese); a
# marker file proves none of it ran. Also: what the user adds meanwhile
# stays, and activating again replaces the earlier activation.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"

root="$WORK/store 'q' \"d\" \$HOME \`touch $WORK/marker\` \$(touch $WORK/marker) ; & | % ! ^ 中文"
export CUDNNENV_ROOT="$root"
export LD_LIBRARY_PATH=/pre/existing
unset CUDNNENV_VERSION CUDNNENV_SHELL _CUDNNENV_STATE CUDNN_PATH
for version in 9.1.0 9.2.0; do
  make_linux_tree "t$version" "$version" "$FIXTURES/fake-elf64-$version.so"
  "$CUDNNENV" install "t$version" --name "t$version" > /dev/null
done

# Each shell's own syntax for: run what cudnnenv prints, and print a variable.
script_for() {
  local shell=$1
  case $shell in
    bash | zsh)
      cat <<SCRIPT
on() { eval "\$("$CUDNNENV" activate "\$1" --shell $shell)"; }
off() { eval "\$("$CUDNNENV" deactivate --shell $shell)"; }
show() { printf '%s\n' "\$CUDNNENV_ACTIVE" "\$CUDNN_PATH" "\$LD_LIBRARY_PATH"; }
env -0 | LC_ALL=C sort -z > before.bin
for i in \$(seq 20); do on t9.1.0; show >> active.txt; off; done
env -0 | LC_ALL=C sort -z > after.bin
on t9.1.0; export LD_LIBRARY_PATH="\$LD_LIBRARY_PATH:/user/added"; off; show > user.txt
export LD_LIBRARY_PATH=/pre/existing
on t9.1.0; on t9.2.0; show > again.txt; off; show >> again.txt
SCRIPT
      ;;
    fish)
      cat <<SCRIPT
function on; "$CUDNNENV" activate \$argv[1] --shell fish | source; end
function off; "$CUDNNENV" deactivate --shell fish | source; end
function show; printf '%s\n' "\$CUDNNENV_ACTIVE" "\$CUDNN_PATH" "\$LD_LIBRARY_PATH"; end
env -0 | LC_ALL=C sort -z > before.bin
for i in (seq 20); on t9.1.0; show >> active.txt; off; end
env -0 | LC_ALL=C sort -z > after.bin
on t9.1.0; set -gx LD_LIBRARY_PATH "\$LD_LIBRARY_PATH:/user/added"; off; show > user.txt
set -gx LD_LIBRARY_PATH /pre/existing
on t9.1.0; on t9.2.0; show > again.txt; off; show >> again.txt
SCRIPT
      ;;
  esac
}

for shell in bash zsh fish; do
  command -v "$shell" > /dev/null || fail "$shell is not installed (scripts/install-deps.sh installs it)"
  mkdir "$WORK/$shell" && cd "$WORK/$shell"
  script_for "$shell" > script
  "$shell" script > out 2>&1 || fail "$shell: $(cat out)"
  [ ! -e "$WORK/marker" ] || fail "$shell: something in the store's path ran as code"
  cmp -s before.bin after.bin || fail "$shell: the environment after 20 activations differs:
$(diff <(tr '\0' '\n' < before.bin) <(tr '\0' '\n' < after.bin))"
  expect_eq "$(sort -u active.txt)" "$(printf '%s\n' "$root/t9.1.0" "$root/t9.1.0/lib:/pre/existing" t9.1.0 | sort -u)" \
    "$shell: what activation set"
  expect_eq "$(wc -l < active.txt)" "60" "$shell: 20 activations"
  expect_eq "$(cat user.txt)" "

/pre/existing:/user/added" "$shell: after deactivation, what the user added stays"
  expect_eq "$(cat again.txt)" "t9.2.0
$root/t9.2.0
$root/t9.2.0/lib:/pre/existing


/pre/existing" "$shell: activating again replaces the earlier activation"
  pass "$shell: 20 activations leave the environment byte for byte as it was; the hostile path stayed data"
done
