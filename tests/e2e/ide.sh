#!/usr/bin/env bash
# IDE interpreters (issue 25): `export launcher` prints a python launcher
# pinned to one tree (a shim in <state>/launchers/<tree>/<interpreter>/ whose sidecar says
# `cudnn = TREE`: every start is `cudnnenv exec --cudnn TREE -- PYTHON`), what
# PyCharm's interpreter dialog takes; run with a decoy first on
# LD_LIBRARY_PATH, it loads the tree. `export vscode` merges the workspace's
# .vscode/settings.json: the interpreter is the launcher, the integrated
# terminals get CUDNNENV_VERSION; every other key stays, in its order; a file
# that is not plain JSON (comments) is refused and left byte for byte; hostile
# tree names come back exactly (seeded). doctor's vscode check: the
# workspace's interpreter (a launcher, or a plain Python walked as copy-wins
# walks it) against the selection. export terminal is Windows's (wine_terminal.sh).
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
launcher="$(launcher_dir "$CUDNNENV_ROOT/.cudnnenv" "tree 9.1" "$PY")/python"
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

# doctor's vscode check: the workspace's interpreter against the selection.
run install t91 --name "tree 9.1"
run install t91 --name "tree 9.1b"
rm -rf ws && mkdir ws && run export vscode "tree 9.1" --python "$PY" --folder ws
launcher="$(launcher_dir "$CUDNNENV_ROOT/.cudnnenv" "tree 9.1" "$PY")/python"
(cd ws && run doctor --cudnn "tree 9.1" && grep '^ok    vscode' out) > check.txt || fail "doctor in the workspace: $(cat ws/err)"
expect_eq "$(cat check.txt)" "ok    vscode             VS Code's interpreter $launcher is pinned by cudnnenv to the selected tree 'tree 9.1' (cuDNN 9.1.0, CUDA 12.2)" "doctor: the workspace's launcher pins the selected tree"
mkdir -p ws/src/deep && (cd ws/src/deep && run doctor --cudnn "tree 9.1b"; grep -A3 '^warn vscode' out) > check.txt
expect_eq "$(cat check.txt)" "warn vscode: VS Code's interpreter $launcher ($WORK/ws/.vscode/settings.json) is pinned by cudnnenv to 'tree 9.1', not the selected tree 'tree 9.1b' (cuDNN 9.1.0, CUDA 12.2)
  you see:  Run and Debug in VS Code report another cuDNN than this shell
  because:  the workspace's settings were exported for another tree
  fix:      'cudnnenv export vscode \"tree 9.1b\" --python $PY', then reload the window" "doctor, below the workspace: the launcher pins another tree than the selection"
# Another project of the same tree with another interpreter gets a launcher of its own: the first
# project's launcher still starts its own Python, and doctor's fix there still names it.
mkdir -p venvb/bin wsb && ln -sf "$PY" venvb/bin/python
run export vscode "tree 9.1" --python "$WORK/venvb/bin/python" --folder wsb
expect_eq "$rc" "0" "export vscode for a second project: $(cat err)"
launcher_b="$(launcher_dir "$CUDNNENV_ROOT/.cudnnenv" "tree 9.1" "$WORK/venvb/bin/python")/python"
expect_eq "$(grep -o '"python.defaultInterpreterPath": "[^"]*"' wsb/.vscode/settings.json)" "\"python.defaultInterpreterPath\": \"$launcher_b\"" "the second project's launcher"
expect_eq "$(cd / && "$launcher" -c 'import sys; print(sys.executable)')" "$PY" "the first project's launcher still starts its own Python"
expect_eq "$(cd / && "$launcher_b" -c 'import sys; print(sys.executable)')" "$WORK/venvb/bin/python" "the second project's launcher starts its Python"
(cd ws/src/deep && run doctor --cudnn "tree 9.1b"; grep -A3 '^warn vscode' out | grep '^  fix:') > check.txt
expect_eq "$(cat check.txt)" "  fix:      'cudnnenv export vscode \"tree 9.1b\" --python $PY', then reload the window" "doctor's fix in the first project names its own Python"
printf '{"python.defaultInterpreterPath": "/usr/bin/python3"}' > ws/.vscode/settings.json
(cd ws && LD_LIBRARY_PATH="$WORK/decoy" run doctor --cudnn "tree 9.1"; grep -A3 '^warn vscode' out) > check.txt
expect_eq "$(cat check.txt)" "warn vscode: VS Code's interpreter /usr/bin/python3 ($WORK/ws/.vscode/settings.json) loads $WORK/decoy/libcudnn.so.9 (9.2.0, LD_LIBRARY_PATH), not the selected tree 'tree 9.1' (cuDNN 9.1.0, CUDA 12.2)
  you see:  Run and Debug in VS Code report another cuDNN than this shell
  because:  VS Code starts the interpreter directly, with the environment VS Code itself was started from: no activation, no shim reaches it
  fix:      an interpreter whose every start is pinned: 'cudnnenv export vscode \"tree 9.1\" --python /usr/bin/python3', then reload the window" "doctor: a plain interpreter loading a decoy"
printf '{\n  // mine\n  "python.defaultInterpreterPath": "/usr/bin/python3"\n}\n' > ws/.vscode/settings.json
(cd ws && run doctor --cudnn "tree 9.1"; grep '^skip  vscode' out) > check.txt
expect_eq "$(cat check.txt)" "skip  vscode             $WORK/ws/.vscode/settings.json is not plain JSON (comments or trailing commas?): its interpreter was not read" "doctor: settings with comments are not read"
pass "doctor's vscode check: a launcher of the selected tree, of another tree, a plain interpreter loading a decoy, a file with comments"

# export terminal is Windows's.
run export terminal "tree 9.1"
expect_eq "$rc:$(cat err)" "2:cudnnenv: error: export terminal writes Windows Terminal profiles and Start-menu shortcuts, which are Windows's
  hint: here every new shell is activated by its integration: eval \"\$(cudnnenv init bash)\" in ~/.bashrc ('cudnnenv init --help' for zsh and fish), then 'cudnnenv use --global 9.19' or a project's .cudnnenv.toml" "export terminal on Linux"
pass "export terminal on Linux says it is Windows's, and what works here"

# Hostile tree names through the settings merge (seeded: CUDNNENV_TEST_SEED
# repeats a run; a tree's name is a folder's: no quote, backslash, colon or
# control character): a JSON reader gets the launcher and the name back
# exactly, every other key kept; the launcher starts pinned.
test_seed
"$PY" - "$seed" > names.txt <<'PY'
import random, sys
rng = random.Random(int(sys.argv[1]))
pieces = ["'", " ", "&", "$", "`", "%", "!", "{", "}", ",", "é", "库", "\u202e", "a", "1"]
print("q'uote $HOME `x` 100%")
for _ in range(5):
    print(("t" + "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))).rstrip(" "))
PY
printf '{\n    "editor.tabSize": 2,\n    "terminal.integrated.env.linux": {"A": "b"}\n}\n' > base.json
while IFS= read -r name; do
  run install t91 --name "$name"
  expect_eq "$rc" "0" "install as '$name': $(cat err)"
  rm -rf hws && mkdir -p hws/.vscode && cp base.json hws/.vscode/settings.json
  run export vscode "$name" --python "$PY" --folder hws
  expect_eq "$rc" "0" "export vscode '$name': $(cat err)"
  read_back=$("$PY" -c 'import json, sys; s = json.load(open(sys.argv[1], encoding="utf-8")); print(json.dumps([s["editor.tabSize"], s["terminal.integrated.env.linux"], s["python.defaultInterpreterPath"]]))' hws/.vscode/settings.json)
  expected=$("$PY" -c 'import json, sys; print(json.dumps([2, {"A": "b", "CUDNNENV_VERSION": sys.argv[1]}, sys.argv[2]]))' "$name" "$(launcher_dir "$CUDNNENV_ROOT/.cudnnenv" "$name" "$PY")/python")
  expect_eq "$read_back" "$expected" "the settings of the tree '$name', read back"
  interpreter=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1], encoding="utf-8"))["python.defaultInterpreterPath"])' hws/.vscode/settings.json)
  expect_eq "$(LD_LIBRARY_PATH="$WORK/decoy" "$interpreter" -c "$load")" "90100" "the interpreter of the tree '$name' starts pinned"
  run remove "$name" --yes
done < names.txt
pass "hostile tree names reach .vscode/settings.json intact (read back by a JSON reader), and the launchers start pinned"
