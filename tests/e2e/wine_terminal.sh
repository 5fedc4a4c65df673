#!/usr/bin/env bash
# export terminal (issue 25) with the Windows build under Wine: the Windows
# Terminal fragment (%LOCALAPPDATA%\Microsoft\Windows Terminal\Fragments\
# cudnnenv\NAME.json) holds one profile of the documented shape, and the
# Start-menu shortcut reads back through the shell's own IShellLinkW
# (read-lnk.exe) with the same command line. That command line, started as
# Windows Terminal starts it (variables expanded, then CreateProcessW:
# start-command-line.exe), opens cmd with the tree activated: a program run
# there loads the tree's cudnn64_8.dll past a decoy on PATH. The store's path
# holds a space, '&' and non-ASCII letters; hostile tree names (seeded:
# CUDNNENV_TEST_SEED repeats a run) reach the activated cmd exactly. --remove
# deletes the script, the fragment and the shortcut, and nothing else.
# What Wine cannot show: Windows Terminal itself and Explorer's Start menu
# (the files are read back instead); PowerShell (its profile's text is
# compared, not run); a '%' in a tree's name, which Windows' cmd keeps in a
# `for` variable and Wine's expands (so no '%' below; the batch file is the
# same for both); a name with '!' or '^' and non-ASCII letters, whose activation
# script cmd reads through `chcp 65001`, which Wine's cmd ignores.
CUDNNENV=$1   # build/mingw/bin/cudnnenv.exe
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
export LC_ALL=C.UTF-8 WINEDEBUG=-all
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_ACTIVE
root="$WORK/C libs & 库"
cud() { "$WINE" "$CUDNNENV" --root "$(winpath "$root")" "$@"; }
make_windows_tree t82 "$FIXTURES/fake-pe64-8.2.0.dll" 8.2.0
cud install "$(winpath "$WORK/t82/cuda")" --name "tree 8.2" > /dev/null
mkdir -p decoy
cp "$FIXTURES/fake-pe64-8.9.7.dll" decoy/cudnn64_8.dll
cp "$FIXTURES/load-cudnn.exe" show.exe
export WINEPATH="$(winpath "$WORK/decoy")"
# Wine sets LOCALAPPDATA and the Start menu from its prefix, whatever the environment says.
user_folder="$WINEPREFIX/drive_c/users/$(id -un)"
fragments="$user_folder/AppData/Local/Microsoft/Windows Terminal/Fragments/cudnnenv"
menu="$user_folder/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/cudnnenv"
wfragments='C:\users\'"$(id -un)"'\AppData\Local\Microsoft\Windows Terminal\Fragments\cudnnenv'
wmenu='C:\users\'"$(id -un)"'\AppData\Roaming\Microsoft\Windows\Start Menu\Programs\cudnnenv'
rm -rf "$fragments" "$menu"
terminals="$(winpath "$root")\\.cudnnenv\\terminals"
# in_terminal COMMAND_LINE: starts it as Windows Terminal does and gives the
# cmd it opens one line: the tree it has activated, then what a program
# loading cudnn64_8.dll by name gets.
in_terminal() {
  printf '"%s" --env CUDNNENV_ACTIVE & "%s"\r\n' "$(winpath "$WORK/show.exe")" "$(winpath "$WORK/show.exe")" > commands.txt
  STDIN=commands.txt run_program "$WINE" "$FIXTURES/start-command-line.exe" "$1"
  # Without a console, cmd prints its banner and prompts: what is left is the programs' output.
  sed 's/^[A-Z]:\\[^>]*>//' out | grep -v -e '^$' -e '^Microsoft Windows ' || true
}
fragment_command_line() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1], encoding="utf-8"))["profiles"][0]["commandline"])' "$1"
}

expect_eq "$(in_terminal 'cmd.exe')" "<unset>
8907" "a plain cmd loads the decoy on PATH"
run_program cud export terminal "tree 8.2" --shortcut
expect_eq "$rc" "0" "export terminal: $(cat err)"
script="$terminals\\cudnnenv-tree_8.2\\activate.bat"
expect_eq "$(cat out)" "wrote $wfragments\\cudnnenv-tree_8.2.json (Windows Terminal profile 'cuDNN 8.2.0 (cudnnenv 'tree 8.2')')
wrote $wmenu\\cuDNN 8.2.0 (cudnnenv 'tree 8.2').lnk (Start menu)" "what export terminal wrote"
expect_eq "$(cat err)" "cudnnenv: it opens cmd with 'tree 8.2' activated: %SystemRoot%\\System32\\cmd.exe /k \"\"$script\"\"" "the note"
! LC_ALL=C grep -q -P '[^\x00-\x7f]' "$root/.cudnnenv/terminals/cudnnenv-tree_8.2/activate.bat" || fail "the batch file holds more than ASCII"

# The fragment: valid JSON (UTF-8), the documented shape: {"profiles": [profile]},
# each new profile a name and a command line, only keys Windows Terminal knows.
python3 - "$fragments/cudnnenv-tree_8.2.json" "$script" <<'PY' || fail "the fragment's shape"
import json, sys
fragment = json.load(open(sys.argv[1], encoding="utf-8"))
assert set(fragment) <= {"profiles", "schemes"}, fragment
assert isinstance(fragment["profiles"], list) and len(fragment["profiles"]) == 1
profile = fragment["profiles"][0]
known = {"name", "commandline", "startingDirectory", "icon", "guid", "hidden", "tabTitle", "colorScheme"}
assert set(profile) <= known and all(isinstance(v, str) for v in profile.values()), profile
expected = {"name": "cuDNN 8.2.0 (cudnnenv 'tree 8.2')",
            "commandline": '%SystemRoot%\\System32\\cmd.exe /k ""' + sys.argv[2] + '""',
            "startingDirectory": "%USERPROFILE%"}
assert profile == expected, (profile, expected)
PY
expect_eq "$(in_terminal "$(fragment_command_line "$fragments/cudnnenv-tree_8.2.json")")" "[tree 8.2]
8200" "the fragment's command line opens cmd with the tree activated: the tree's DLL past the decoy"
pass "Windows Terminal fragment: the documented shape, and its command line opens cmd activated"

run_program "$WINE" "$FIXTURES/read-lnk.exe" "$wmenu\\cuDNN 8.2.0 (cudnnenv 'tree 8.2').lnk"
expect_eq "$rc" "0" "read-lnk: $(cat err)"
expect_eq "$(cat out)" "target: C:\\windows\\system32\\cmd.exe
arguments: /k \"\"$script\"\"
folder: C:\\users\\$(id -un)
description: cuDNN 8.2.0 (cudnnenv 'tree 8.2')" "the shortcut, read back by the shell"
expect_eq "$(in_terminal "\"$(sed -n 's/^target: //p' out)\" $(sed -n 's/^arguments: //p' out)")" "[tree 8.2]
8200" "the shortcut's command line opens cmd activated"
pass "the Start-menu shortcut reads back through IShellLinkW and opens cmd activated"

run_program cud export terminal "tree 8.2" --shell powershell
expect_eq "$rc" "0" "export terminal --shell powershell: $(cat err)"
ps1="$terminals\\cudnnenv-tree_8.2-powershell\\activate.ps1"
expect_eq "$(fragment_command_line "$fragments/cudnnenv-tree_8.2-powershell.json")" \
  "%SystemRoot%\\System32\\WindowsPowerShell\\v1.0\\powershell.exe -NoExit -ExecutionPolicy Bypass -File \"$ps1\"" \
  "the PowerShell profile's command line"
expect_eq "$(head -c 3 "$root/.cudnnenv/terminals/cudnnenv-tree_8.2-powershell/activate.ps1" | od -An -tx1 | tr -d ' ')" "efbbbf" \
  "activate.ps1 starts with UTF-8's mark (Windows PowerShell 5 reads the ANSI code page without it)"
expect_eq "$(sed -n '2,/Invoke-Expression/p' "$root/.cudnnenv/terminals/cudnnenv-tree_8.2-powershell/activate.ps1" | tr -d '\r' | grep -c "activate 'tree 8.2' --by terminal --shell powershell")" "1" \
  "activate.ps1 activates the tree"
pass "the PowerShell terminal: its command line and script (Wine has no PowerShell to run them)"

# Hostile tree names: what the activated cmd says is the name, exactly (no ;
# activation refuses a tree folder PATH cannot hold).
test_seed
{
  printf '%s\n' "a & b" "库 'q' é" "x(1)^!,="
  python3 - "$seed" <<'PY'
import random, sys
rng = random.Random(int(sys.argv[1]))
pieces = ["'", " ", "&", "!", "^", "(", ")", ",", "=", "é", "库", "{", "}", "#", "~", "a", "1"]
name = ("t" + "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))).rstrip(" ")
# '!' or '^' with other letters: cmd gets that script through `chcp 65001`, which Wine's cmd ignores.
print(name.replace("!", "").replace("^", "") if not name.isascii() else name)
PY
} > names.txt
while IFS= read -r name; do
  run_program cud install "$(winpath "$WORK/t82/cuda")" --name "$name"
  expect_eq "$rc" "0" "install as '$name': $(cat err)"
  run_program cud export terminal "$name" --name hostile
  expect_eq "$rc" "0" "export terminal '$name': $(cat err)"
  expect_eq "$(in_terminal "$(fragment_command_line "$fragments/hostile.json")")" "[$name]
8200" "the terminal of the tree '$name'"
  run_program cud remove "$name" --yes
done < names.txt
pass "hostile tree names reach the activated cmd exactly"

# --remove of a terminal whose name is the start of another's (issue 39, item 14): the other's shortcut stays.
run_program cud export terminal "tree 8.2" --name cudnnenv-tf2 --display-name "tf2" --shortcut
expect_eq "$rc" "0" "export terminal cudnnenv-tf2: $(cat err)"
run_program cud export terminal "tree 8.2" --name cudnnenv-tf2.5 --display-name "tf2.5" --shortcut
expect_eq "$rc" "0" "export terminal cudnnenv-tf2.5: $(cat err)"
run_program cud export terminal --remove --name cudnnenv-tf2
expect_eq "$rc:$(cat out)" "0:removed $wfragments\\cudnnenv-tf2.json
removed $wmenu\\tf2.lnk
removed $terminals\\cudnnenv-tf2" "--remove of cudnnenv-tf2"
[ -e "$menu/tf2.5.lnk" ] || fail "--remove of cudnnenv-tf2 took cudnnenv-tf2.5's shortcut: $(ls "$menu")"
run_program cud export terminal --remove --name cudnnenv-tf2.5
expect_eq "$rc" "0" "--remove of cudnnenv-tf2.5: $(cat err)"
pass "--remove compares a shortcut's script folder whole: cudnnenv-tf2 leaves cudnnenv-tf2.5's"

# --remove: the script's folder, the fragment and the shortcut; nothing else of the folders.
echo '{"profiles": []}' > "$fragments/other.json"
echo notes > "$menu/notes.txt"
run_program cud export terminal --remove --name cudnnenv-tree_8.2
expect_eq "$rc" "0" "--remove: $(cat err)"
expect_eq "$(cat out)" "removed $wfragments\\cudnnenv-tree_8.2.json
removed $wmenu\\cuDNN 8.2.0 (cudnnenv 'tree 8.2').lnk
removed $terminals\\cudnnenv-tree_8.2" "what --remove removed"
[ -e "$fragments/other.json" ] && [ -e "$menu/notes.txt" ] && [ -e "$fragments/hostile.json" ] || fail "--remove took something else"
[ ! -e "$root/.cudnnenv/terminals/cudnnenv-tree_8.2" ] || fail "the terminal's folder stayed"
mkdir -p "$root/.cudnnenv/terminals/mine"
run_program cud export terminal "tree 8.2" --name mine
expect_eq "$rc:$(head -1 err)" "1:cudnnenv: error: '$terminals\\mine' is there and cudnnenv did not write it" "a folder cudnnenv did not write is refused"
run_program cud export terminal --remove --name mine
expect_eq "$rc:$(head -1 err)" "3:cudnnenv: error: no terminal 'mine' that cudnnenv wrote in $terminals" "--remove of a folder cudnnenv did not write"
[ -d "$root/.cudnnenv/terminals/mine" ] || fail "the folder cudnnenv did not write went"
rm -rf "$fragments" "$menu"
pass "--remove deletes the terminal's script, fragment and shortcut, and nothing else"
