#!/usr/bin/env bash
# wine_rerun.sh decides as it says: a test is run once more only when its
# output or its kept test data shows Wine failing to start a program that is
# there, or its console silent, and the second run's result is the test's. A
# stand-in test fails its first run in one way each case, passes later runs,
# and counts its runs.
set -euo pipefail
rerun=$(cd "$(dirname "$0")" && pwd)/wine_rerun.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv wine_rerun XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
touch present.exe
win() { printf 'Z:%s' "$1" | tr / '\\'; }
cat > stand.sh <<STAND
n=\$(cat count 2> /dev/null || echo 0); echo \$((n + 1)) > count
kept=\$(mktemp -d "$work/kept XXXXXX")
case "\$1:\$n" in
  recognize:0) printf "Can't recognize '\"$(win "$work/present.exe" | sed 's/\\/\\\\\\\\/g')\" --env X ' as an internal or external command, or batch script.\r\n" > "\$kept/err"
               echo "FAIL: x"; echo "test data kept in \$kept"; exit 1 ;;
  missing:*) printf "Can't recognize '\"$(win "$work/absent.exe" | sed 's/\\/\\\\\\\\/g')\" --env X ' as an internal or external command, or batch script.\r\n" > "\$kept/err"
             echo "FAIL: x"; echo "test data kept in \$kept"; exit 1 ;;
  internal:*) echo "cannot start 'Z:\\\\a.exe': Internal error"; exit 3 ;;
  shell:0) printf 'Application could not be started, or no application associated with the specified file.\nShellExecuteEx failed: Internal error.\r\n' > "\$kept/check.out"
           echo "FAIL: cmd ended with an error"; echo "test data kept in \$kept"; exit 1 ;;
  silent:0) echo "wine_console: Wine's console wrote not a byte to the terminal (cmd exited 0)" >&2
            echo "FAIL: the error is shown: cmd exited 0 and showed nothing"; exit 1 ;;
  other:*) echo "FAIL: something else"; exit 1 ;;
  skip:*) echo "cannot start 'Z:\\\\a.exe': Internal error"; exit 77 ;;
  *) echo "ok: run \$((n + 1))"; exit 0 ;;
esac
STAND
status=0
check() {  # MODE EXPECTED_RC EXPECTED_RUNS
  rm -f count
  set +e
  bash "$rerun" bash stand.sh "$1" > out 2>&1
  local rc=$?
  set -e
  if [ "$rc" = "$2" ] && [ "$(cat count)" = "$3" ]; then
    echo "ok: $1: exit $rc after $3 run(s)"
  else
    echo "FAIL: $1: expected exit $2 after $3 run(s), got exit $rc after $(cat count): $(cat out)"
    status=1
  fi
}
check recognize 0 2  # cmd could not start a program that is there: once more, and the second run decides
check missing 1 1    # the program is not there: a real failure
check internal 3 2   # Wine's STATUS_INTERNAL_ERROR: once more, and a second failure stays a failure
check shell 0 2     # Wine's cmd: ShellExecuteEx's internal error, in a kept file: once more, the second decides
check silent 0 2     # Wine's console gave the terminal not a byte: once more, and the second run decides
check other 1 1      # any other failure
check skip 77 1      # a skip is not rerun
exit $status
