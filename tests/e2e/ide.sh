#!/usr/bin/env bash
# IDE interpreters (issue 25): `export launcher` prints a python launcher
# pinned to one tree (a shim in <state>/launchers/<tree>/ whose sidecar says
# `cudnn = TREE`: every start is `cudnnenv exec --cudnn TREE -- PYTHON`), what
# PyCharm's interpreter dialog takes; run with a decoy first on
# LD_LIBRARY_PATH, it loads the tree. `export vscode` merges the workspace's
# .vscode/settings.json: the interpreter is the launcher, the integrated
# terminals get CUDNNENV_VERSION; every other key stays, in its order; a file
# that is not plain JSON (comments) is refused and left byte for byte.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
export LC_ALL=C.UTF-8 CUDNNENV_ROOT="$WORK/store root"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED
make_linux_tree t91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install t91 --name "tree 9.1"
mkdir -p decoy && cp "$FIXTURES/fake-elf64-9.2.0.so" decoy/libcudnn.so.9
load='import ctypes
lib = ctypes.CDLL("libcudnn.so.9")
lib.cudnnGetVersion.restype = ctypes.c_size_t
print(lib.cudnnGetVersion())'

run export launcher "tree 9.1" --python "$PY"
expect_eq "$rc" "0" "export launcher: $(cat err)"
launcher="$CUDNNENV_ROOT/.cudnnenv/launchers/tree 9.1/python"
expect_eq "$(cat out)" "$launcher" "export launcher prints the launcher's path"
expect_eq "$(LD_LIBRARY_PATH="$WORK/decoy" "$PY" -c "$load")" "90200" "the plain Python loads the decoy"
expect_eq "$(cd / && LD_LIBRARY_PATH="$WORK/decoy" "$launcher" -c "$load")" "90100" "the launcher, from any folder, loads the pinned tree past the decoy"
expect_eq "$("$launcher" -c 'import sys; print(sys.argv[1:])' a 'b c')" "['a', 'b c']" "the launcher passes the arguments"
pass "export launcher: a python pinned to 'tree 9.1' for an IDE's interpreter setting"

mkdir -p ws/.vscode
cat > ws/.vscode/settings.json <<'JSON'
{
    "editor.fontSize": 14,
    "python.defaultInterpreterPath": "/usr/bin/python3",
    "terminal.integrated.env.linux": {
        "FOO": "bar"
    },
    "files.exclude": {
        "**/.git": true
    }
}
JSON
run export vscode "tree 9.1" --python "$PY" --folder ws
expect_eq "$rc" "0" "export vscode: $(cat err)"
expect_eq "$(cat out)" "wrote ws/.vscode/settings.json (python.defaultInterpreterPath: $launcher; its terminals: CUDNNENV_VERSION=tree 9.1)" "what export vscode wrote"
expect_eq "$("$PY" -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' ws/.vscode/settings.json)" \
  "{\"editor.fontSize\": 14, \"python.defaultInterpreterPath\": \"$launcher\", \"terminal.integrated.env.linux\": {\"FOO\": \"bar\", \"CUDNNENV_VERSION\": \"tree 9.1\"}, \"files.exclude\": {\"**/.git\": true}}" \
  "settings.json merged: every key kept in its order, the interpreter and the terminals' variable set"
printf '{\n    // a comment\n    "editor.fontSize": 14,\n}\n' > ws/.vscode/settings.json
cp ws/.vscode/settings.json before.json
run export vscode "tree 9.1" --python "$PY" --folder ws
expect_eq "$rc:$(head -1 err)" "1:cudnnenv: error: 'ws/.vscode/settings.json' is not plain JSON (comments or trailing commas?): it was left as it is" "a settings.json with comments is refused"
cmp ws/.vscode/settings.json before.json || fail "the refused settings.json changed"
rm -r ws && run export vscode "tree 9.1" --python "$PY" --folder ws
expect_eq "$(cat ws/.vscode/settings.json)" "{
    \"python.defaultInterpreterPath\": \"$launcher\",
    \"terminal.integrated.env.linux\": {
        \"CUDNNENV_VERSION\": \"tree 9.1\"
    }
}" "a workspace without settings gets a new file"
pass "export vscode merges .vscode/settings.json, keeping every other key; refuses a file with comments, unchanged"

run remove "tree 9.1" --yes
run_program "$launcher" -c "$load"
expect_eq "$rc:$(head -1 err)" "3:cudnnenv: error: no installed cuDNN matches 'tree 9.1' (set by --cudnn)" "the launcher of a removed tree: cudnnenv's error"
pass "a launcher whose tree was removed says so with cudnnenv's error"
