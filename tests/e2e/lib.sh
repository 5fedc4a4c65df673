# Shared by the end-to-end tests: assertions and fake trees made from the
# fixture libraries. Each test sources this with CUDNNENV (the program) and
# FIXTURES (the fixture folder) set, and runs in a fresh temporary folder.
set -euo pipefail
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cudnnenv e2e XXXXXX")
cleanup() { local rc=$?; swap_mirror_stop; if [ $rc -eq 0 ]; then rm -rf "$WORK"; else echo "test data kept in $WORK" >&2; fi; }
trap cleanup EXIT
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# run_program PROGRAM ARGS...: stdout in `out`, stderr in `err` (carriage returns
# removed: Windows programs under Wine write CRLF), the exit code in `rc`; stdin
# from $STDIN, else /dev/null.
run_program() {
  set +e
  "$@" > out 2> err < "${STDIN:-/dev/null}"
  rc=$?
  set -e
  sed -i 's/\r$//' out err
}
# run ARGS...: cudnnenv with ARGS, through run_program; under $RUNNER when set
# (wine, for the Windows build).
run() { run_program ${RUNNER:+"$RUNNER"} "$CUDNNENV" "$@"; }

# The seed of a property test's generator: CUDNNENV_TEST_SEED, else a fixed
# one, so the test command checks the same cases each run and a failure
# replays (scripts/test.sh runs the property tests once more on a fresh
# seed). Sets `seed` and prints it.
test_seed() {
  seed=${CUDNNENV_TEST_SEED:-10}
  echo "seed $seed (CUDNNENV_TEST_SEED=$seed repeats this run)"
}

# Property tests' generators (shell_property.sh, slurm.sh; RANDOM seeded by
# test_seed). Each sets REPLY rather than printing: bash reseeds RANDOM in a
# subshell, so $(random_value) would not repeat with the seed.
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
  REPLY=$value
}
random_name() {
  local letters=ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_ name=P_ i
  for ((i = 0; i < RANDOM % 6 + 1; i++)); do name+=${letters:RANDOM % ${#letters}:1}; done
  REPLY=$name
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

# expect_eq ACTUAL EXPECTED WHAT
# launcher_dir STATE TREE PYTHON: where `export launcher|vscode TREE --python PYTHON` puts the launcher
# (<state>/launchers/<tree>/<first 16 hex digits of the SHA-256 of the interpreter's path>).
launcher_dir() { printf '%s/launchers/%s/%s' "$1" "$2" "$(printf '%s' "$3" | sha256sum | cut -c1-16)"; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }

# selftest_statuses / selftest_files: from `cudnnenv selftest --json` on stdin, a line per case: "id status
# loaded", and "id file" with the numbers in the temporary folders' names (process, random) as N.
selftest_statuses() {
  python3 -c 'import json, sys
for c in json.load(sys.stdin)["cases"]: print(c["id"], c["status"], c["loaded"])'
}
selftest_files() {
  python3 -c 'import json, re, sys
for c in json.load(sys.stdin)["cases"]:
    print(c["id"], re.sub(r"selftest( 库 & |-)[0-9]+-[0-9]+", r"selftest\1N", str(c["file"])))'
}

# A field of cudnnenv's --json output on stdin, read by a JSON parser: KEY of the
# object, or of the first element of an array, a dotted KEY going deeper
# (`tree.cuda`); strings as they are, null as `null`, numbers and booleans as JSON
# writes them.
json_field() {
  python3 -c '
import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1].split("."):
    if isinstance(value, list):
        value = value[0]
    value = value[key]
print(value if isinstance(value, str) else json.dumps(value))' "$1"
}
# The length of the JSON array on stdin.
json_count() { python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'; }

# For the Windows build under Wine: the loader, and a Unix path as Wine's
# drive Z: shows it.
WINE=${WINE:-/usr/lib/wine/wine64}
winpath() { printf 'Z:%s' "$1" | tr / '\\'; }
# wine_console OUTPUT CMD_ARGUMENTS...: Wine's cmd with CMD_ARGUMENTS (`/c X.bat`)
# in a pseudo-terminal (script), as a user's cmd has a console; what the console
# showed in OUTPUT, less its escape sequences and carriage returns (the bytes as
# they came in OUTPUT.raw); cmd's exit code in `rc`. When the terminal got not a
# byte (Wine's console writes cursor escapes around every line it shows), says
# so on stderr: tests/e2e/wine_rerun.sh knows that line.
wine_console() {
  local output=$1
  shift
  set +e
  script -qec "$WINE cmd $*" /dev/null > "$output.raw" 2>&1 < /dev/null
  rc=$?
  set -e
  sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\r//g' "$output.raw" > "$output"
  [ -s "$output.raw" ] || echo "wine_console: Wine's console wrote not a byte to the terminal (cmd exited $rc)" >&2
}
# console_said OUTPUT: for a failure message, cmd's exit code and what its
# console showed, or that it showed nothing (with the raw bytes, made visible).
console_said() {
  if [ -n "$(tr -d ' \n' < "$1")" ]; then
    printf 'cmd exited %s; its console showed:\n%s' "$rc" "$(cat "$1")"
  else
    printf 'cmd exited %s and showed nothing (the console bytes: %s)' "$rc" "$(cat -v "$1.raw")"
  fi
}

source "$E2E_DIR/trees.sh"
# The official archives for PLATFORM whose version starts with the whole
# components of VERSION_PREFIX, newest first (version, then CUDA), as
# "version cuda file_name" lines, read from data/cudnn-archives.tsv itself:
# what `list --available` must print.
official_list() {
  python3 - "$1" "$2" "$(dirname "${BASH_SOURCE[0]}")/../../data/cudnn-archives.tsv" <<'PY'
import csv, sys
platform, tsv = sys.argv[1], sys.argv[3]
prefix = sys.argv[2].split(".") if sys.argv[2] else []
def numbers(text):
    return tuple(int(part) for part in text.split("."))
rows = []
with open(tsv, newline="") as f:
    for row in csv.DictReader(f, delimiter="\t"):
        version = row["cudnn_version"].split(".")
        if row["platform"] == platform and version[:len(prefix)] == prefix:
            cuda = row["cuda_variant"].removeprefix("cuda")
            cuda_key = tuple(int(p) for p in cuda.split(".")) + ((-1,) if "." not in cuda else ())
            rows.append((numbers(row["cudnn_version"]), cuda_key, row["cudnn_version"], cuda, row["filename"]))
rows.sort(key=lambda r: (r[0], r[1]), reverse=True)
for r in rows:
    print(r[2], r[3], r[4])
PY
}

# swap_mirror BACKING MOUNTPOINT: mounts swap_on_close_fs.py (each NAME with a
# NAME.swap beside it in BACKING is replaced by it once a reader closes it),
# its log (a "swapped NAME" line per swap) in MOUNTPOINT.log; unmounted by
# swap_mirror_stop, which cleanup runs too. Returns 1, saying why, where FUSE cannot be mounted here.
swap_mirror() {
  local backing=$1 mnt=$2
  /usr/bin/python3 -c 'import fusepy' 2> /dev/null || { echo "skip: python3-fusepy is not installed"; return 1; }
  mkdir -p "$mnt"
  /usr/bin/python3 "$E2E_DIR/swap_on_close_fs.py" "$backing" "$mnt" > "$mnt.log" 2>&1 &
  SWAP_MIRROR_PID=$! SWAP_MIRROR_MNT=$mnt
  for _ in $(seq 100); do
    mountpoint -q "$mnt" && return 0
    sleep 0.05
  done
  echo "skip: the FUSE file system did not mount: $(cat "$mnt.log")"
  return 1
}
swap_mirror_stop() {
  [ -n "${SWAP_MIRROR_PID:-}" ] || return 0
  kill "$SWAP_MIRROR_PID" 2> /dev/null || true
  wait "$SWAP_MIRROR_PID" 2> /dev/null || true
  umount -l "$SWAP_MIRROR_MNT" 2> /dev/null || true
  SWAP_MIRROR_PID=
}

# cuda_stand_in FILE [CFLAGS...]: a CUDA runtime library's stand-in (tests/fixtures/fake_cuda_runtime.c) whose
# soname is FILE's name; CFLAGS choose what it exports (-DFAKE_CUDART=13000, -DFAKE_PROPERTY=...).
cuda_stand_in() {
  local file=$1
  shift
  cc -shared -fPIC -o "$file" -Wl,-soname,"$(basename "$file")" "$E2E_DIR/../fixtures/fake_cuda_runtime.c" "$@"
}
