#!/usr/bin/env bash
# A test of the Windows build under Wine, run once more only when Wine itself
# failed to start a program that is there. Wine fails a start now and then,
# never twice in a row in any run seen here; Windows has neither path:
#  - CreateProcess returns STATUS_INTERNAL_ERROR when the new Unix process
#    dies in Wine's own start-up, before the program's first instruction
#    (ntdll's NtCreateUserProcess: the child never reported success);
#    cudnnenv and its tests then say "cannot start '...': Internal error"
#    (seen in the unit tests, twice in CI runs); Wine's cmd then says
#    "ShellExecuteEx failed: Internal error." (seen once here, in
#    e2e_wine_security: load-cudnn.exe, started fine in the rounds before);
#  - Wine's cmd says "Can't recognize '...' as an internal or external
#    command" whenever CreateProcess fails, also for a program named by its
#    full path that exists (seen once in CI, in e2e_wine_terminal: a test
#    program given by its full path, started fine just before);
#  - Wine's console writes not a byte to the pseudo-terminal a test gave cmd
#    (lib.sh's wine_console says so), not even the cursor escapes it writes
#    around every line, though the batch file ran (seen once here, in
#    e2e_wine_batch_files: its failed.bat wrote its out.txt in full, the
#    terminal got 0 bytes; not reproduced in 20 runs of that step nor 15 of
#    the test);
#  - a Wine program loses its wineserver: "wine client error:0: recvmsg:
#    Connection reset by peer" (seen once in CI, in e2e_wine_runtime: the
#    install of tf2.5 over HTTP; the same step passed in every run before).
# The signatures are looked for in the test's output and in the files of the
# test data it kept (a message a test did not print is in them); a program
# cmd could not recognize counts only when the file is there. The second run
# decides, so a real failure still fails.
# Usage: wine_rerun.sh PROGRAM.exe        (the unit tests: run under Wine)
#        wine_rerun.sh COMMAND [ARGS...]  (an e2e test script)
WINE=${WINE:-/usr/lib/wine/wine64}
if [[ $1 == *.exe ]]; then set -- "$WINE" "$@"; fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The first line naming Wine's failure to start a program that is there, or its
# console's silence, if any.
wine_start_failure() {
  local kept places=("$log") line path unix
  line=$(grep -h -m 1 -e "^wine_console: Wine's console wrote not a byte" -e "wine client error:[0-9]*: recvmsg: " "$log" |
    head -n 1)
  [ -n "$line" ] && { printf '%s\n' "$line"; return 0; }
  kept=$(sed -n 's/^test data kept in //p' "$log" | tail -n 1)
  [ -n "$kept" ] && [ -d "$kept" ] && places+=("$kept")
  line=$(grep -rIh -m 1 -e "cannot start '.*': Internal error" -e "ShellExecuteEx failed: Internal error" \
    "${places[@]}" 2> /dev/null | head -n 1)
  [ -n "$line" ] && { printf '%s\n' "$line"; return 0; }
  while IFS= read -r line; do
    path=$(printf '%s' "$line" | grep -oP "Can't recognize '\"?\K[A-Za-z]:\\\\[^\"']*?\.exe" | head -n 1)
    case $path in
      [Zz]:*) unix=$(printf '%s' "${path:2}" | tr '\\' /) ;;
      [Cc]:*) unix="${WINEPREFIX:-$HOME/.wine}/drive_c$(printf '%s' "${path:2}" | tr '\\' /)" ;;
      *) continue ;;
    esac
    [ -f "$unix" ] && { printf '%s\n' "${line%$'\r'}"; return 0; }
  done < <(grep -rIh -e "Can't recognize '" "${places[@]}" 2> /dev/null)
  return 1
}

"$@" > "$log" 2>&1
rc=$?
cat "$log"
[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] && exit "$rc"  # passed, or skipped
if failure=$(wine_start_failure); then
  echo "wine_rerun: Wine failed to start a program that is there, lost its wineserver, or its console was silent" \
    "($failure); running the test once more"
  exec "$@"
fi
exit "$rc"
