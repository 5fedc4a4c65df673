#!/usr/bin/env bash
# Packaging (#15), from the build folder the test runs in: `cmake --install`
# (into a DESTDIR) puts the programs and the audit modules in lib/cudnnenv
# with bin/cudnnenv a link to it, the completions where bash, zsh and fish
# look, and the man pages; the installed cudnnenv installs a tree, pins a
# program with the installed audit module (exec --report), and its bash
# completion answers. scripts/release.sh packs this layout (tests/release/).
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
build=$(cd "$(dirname "$CUDNNENV")/.." && pwd)

DESTDIR=$WORK/root cmake --install "$build" --prefix /usr > install.out || fail "cmake --install: $(cat install.out)"
usr=$WORK/root/usr
# The SPANK plugin where Slurm's header was there to build it.
spank=''
[ -f "$(dirname "$CUDNNENV")/cudnnenv_spank.so" ] && spank=$'\n./lib/cudnnenv/cudnnenv_spank.so'
expect_eq "$(cd "$usr" && find . -type f -o -type l | sort)" "./bin/cudnnenv
./bin/cudnnenv-task-prolog
./lib/cudnnenv/cudnnenv
./lib/cudnnenv/cudnnenv-fetch
./lib/cudnnenv/cudnnenv-probe
./lib/cudnnenv/cudnnenv-shim
./lib/cudnnenv/cudnnenv-task-prolog$spank
./lib/cudnnenv/libcudnnenv-audit-report.so
./lib/cudnnenv/libcudnnenv-audit.so
./lib/cudnnenv/selftest/cudnnenv-selftest-8.1.90.so
./lib/cudnnenv/selftest/cudnnenv-selftest-8.1.91.so
./lib/cudnnenv/selftest/cudnnenv-selftest-9.90.1.so
./lib/cudnnenv/selftest/cudnnenv-selftest-9.90.2.so
./lib/cudnnenv/selftest/cudnnenv-selftest-load
./lib/cudnnenv/selftest/cudnnenv-selftest-load-rpath
./lib/cudnnenv/selftest/cudnnenv-selftest-load-runpath
./share/bash-completion/completions/cudnnenv
./share/doc/cudnnenv/ARCHITECTURE.md
./share/doc/cudnnenv/README.md
./share/doc/cudnnenv/cudnn-index.example.tsv
./share/fish/vendor_completions.d/cudnnenv.fish
./share/man/man1/cudnnenv-activate.1
./share/man/man1/cudnnenv-adopt.1
./share/man/man1/cudnnenv-cache.1
./share/man/man1/cudnnenv-completion.1
./share/man/man1/cudnnenv-current.1
./share/man/man1/cudnnenv-deactivate.1
./share/man/man1/cudnnenv-deinit.1
./share/man/man1/cudnnenv-discover.1
./share/man/man1/cudnnenv-doctor.1
./share/man/man1/cudnnenv-exec.1
./share/man/man1/cudnnenv-export.1
./share/man/man1/cudnnenv-frameworks.1
./share/man/man1/cudnnenv-init.1
./share/man/man1/cudnnenv-install.1
./share/man/man1/cudnnenv-list.1
./share/man/man1/cudnnenv-lock.1
./share/man/man1/cudnnenv-mirror.1
./share/man/man1/cudnnenv-profile.1
./share/man/man1/cudnnenv-remove.1
./share/man/man1/cudnnenv-selftest.1
./share/man/man1/cudnnenv-shim.1
./share/man/man1/cudnnenv-slurm.1
./share/man/man1/cudnnenv-snapshot.1
./share/man/man1/cudnnenv-sync.1
./share/man/man1/cudnnenv-trust.1
./share/man/man1/cudnnenv-untrust.1
./share/man/man1/cudnnenv-use.1
./share/man/man1/cudnnenv-verify.1
./share/man/man1/cudnnenv-which.1
./share/man/man1/cudnnenv.1
./share/zsh/vendor-completions/_cudnnenv" "what cmake --install puts where"
expect_eq "$(readlink "$usr/bin/cudnnenv")" "../lib/cudnnenv/cudnnenv" "bin/cudnnenv links to the program beside its helpers"
expect_eq "$(readlink "$usr/bin/cudnnenv-task-prolog")" "../lib/cudnnenv/cudnnenv-task-prolog" "bin/cudnnenv-task-prolog"
pass "cmake --install"

# The installed program, through its link, finds its helpers.
export PATH="$usr/bin:$PATH" CUDNNENV_ROOT="$WORK/store"
make_linux_tree tree 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
cudnnenv install tree --name t > /dev/null || fail "the installed cudnnenv cannot install"
set +e
cudnnenv exec --cudnn t --report -- /bin/true > report.out 2> report.err
rc=$?
set -e
expect_eq "$rc" "0" "exec --report with the installed audit module: $(cat report.err)"
expect_eq "$(cat report.err)" "cudnnenv: report: pinned to 't' (cuDNN 9.1.0, $CUDNNENV_ROOT/t/lib), mode audit
  no cuDNN library was loaded
  hint: a process started without LD_AUDIT in its environment (env -i, or a program that gives its children an environment of its own) runs without cudnnenv's audit module: what it loads is neither pinned nor seen here; start it through 'cudnnenv exec' itself" "exec --report of the installed program"
bash -c 'source "$0"; COMP_WORDS=(cudnnenv us); COMP_CWORD=1; _cudnnenv_complete; printf "%s\n" "${COMPREPLY[@]}"' \
  "$usr/share/bash-completion/completions/cudnnenv" > complete.out
expect_eq "$(cat complete.out)" "use" "the installed bash completion asks cudnnenv on PATH"
man -l "$usr/share/man/man1/cudnnenv.1" 2> /dev/null | grep -q "keep several cuDNN versions side by side" ||
  fail "the man page: $(man -l "$usr/share/man/man1/cudnnenv.1" 2>&1 | head -5)"
# A page per command, found by name: its sections, and the synopsis --help prints.
export MANPATH="$usr/share/man" MANWIDTH=200
man cudnnenv-exec > man-exec.txt 2> man-exec.err || fail "man cudnnenv-exec: $(cat man-exec.err)"
expect_eq "$(grep -E '^[A-Z]' man-exec.txt | sed 's/  .*//')" "CUDNNENV-EXEC(1)
NAME
SYNOPSIS
DESCRIPTION
OPTIONS
ENVIRONMENT
FILES
EXIT STATUS
SECURITY
SEE ALSO" "man cudnnenv-exec: its sections"
expect_eq "$(grep -A1 '^SYNOPSIS' man-exec.txt | tail -1 | sed 's/^ *//')" "cudnnenv exec [OPTIONS] -- CMD [ARGS...]" \
  "man cudnnenv-exec: the synopsis"
expect_eq "$(cudnnenv exec --help | sed -n 2p)" "Usage: cudnnenv exec [OPTIONS] -- CMD [ARGS...]" "exec --help: the usage line"
# ENVIRONMENT names every CUDNNENV_ variable the program reads (by name, in its sources).
read_names=$(grep -rhoE '(get|getenv)\("CUDNNENV_[A-Z_]+"\)|k_[a-z_]*variable = "CUDNNENV_[A-Z_]+"' "$E2E_DIR/../../manager" |
  grep -oE 'CUDNNENV_[A-Z_]+' | sort -u)
documented=$(sed -n '/^ENVIRONMENT/,/^FILES/p' man-exec.txt | grep -oE '^ {7}CUDNNENV_[A-Z_]+(, CUDNNENV_[A-Z_]+)*' |
  grep -oE 'CUDNNENV_[A-Z_]+' | sort -u)
expect_eq "$(comm -23 <(echo "$read_names") <(echo "$documented"))" "" "variables the program reads that ENVIRONMENT leaves out"
for name in CUDNNENV_INDEX CUDNNENV_CUDA_INDEX; do echo "$read_names" | grep -qx "$name" || fail "$name: not found read"; done
man cudnnenv-shim 2> /dev/null | grep -E '^   cudnnenv shim' > man-shim.txt
expect_eq "$(cat man-shim.txt)" "   cudnnenv shim add
   cudnnenv shim remove
   cudnnenv shim list" "man cudnnenv-shim: a section per subcommand"
# The example index in share/doc is one CUDNNENV_INDEX reads.
CUDNNENV_INDEX=$usr/share/doc/cudnnenv/cudnn-index.example.tsv cudnnenv list --available --json > example.json ||
  fail "the example index: $(cat example.json)"
expect_eq "$(python3 -c 'import json,sys; print([(a["version"], a["url"]) for a in json.load(sys.stdin)])' < example.json)" \
  "[('9.1.0.70', 'https://mirror.example.org/nvidia/compute/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz')]" \
  "the example index, read by CUDNNENV_INDEX"
expect_eq "$(cudnnenv install --help | grep -c 'CUDNNENV_INDEX=FILE\|CUDNNENV_CUDA_INDEX=FOLDER')" "2" "install --help names both index variables"
pass "the installed program, its completion, a man page per command, the example index"
