#!/usr/bin/env bash
# Slurm's door (issue 44), on a real two-node Slurm: munged, slurmctld and
# two `slurmd -N` on this host (reference/cluster-facts.md), with the SPANK
# plugin in plugstack.conf. A program whose DT_RPATH and LD_LIBRARY_PATH both
# lead to a decoy libcudnn.so.9 loads the store's tree on both nodes with
# `srun -N2 --cudnn=t91`, with `srun --task-prolog=cudnnenv-task-prolog`
# and in an sbatch script with `#SBATCH --cudnn=t91` (the script and its
# step); `current` in a task names Slurm; the task's LD_LIBRARY_PATH keeps
# its own entry after the tree's. `--cudnn=nosuch` is refused at submit
# with cudnnenv's message (srun and sbatch) and nothing runs;
# `--cudnn-verify=load` of a broken tree ends each task with exit 4 and
# cudnnenv's message before the program starts. The README's `srun ...
# verify --device all --json` runs on both nodes. `slurm health` as
# HealthCheckProgram drains both nodes when a tree breaks, with the line as
# the reason, and leaves them alone once it is mended.
# Skips (77) when not root or Slurm, munge or the plugin is missing.
# Usage: slurm.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skip: the test cluster's daemons run as root"; exit 77; }
for program in slurmctld slurmd srun sbatch sinfo scontrol munged munge cc; do
  command -v "$program" > /dev/null || { echo "skip: no $program (scripts/install-deps.sh installs Slurm and munge)"; exit 77; }
done
BIN=$(cd "$(dirname "$CUDNNENV")" && pwd)
[ -f "$BIN/cudnnenv_spank.so" ] || { echo "skip: no cudnnenv_spank.so (built where slurm/spank.h is)"; exit 77; }
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_ACTIVATED_BY CUDNNENV_SHELL CUDNNENV_VERIFY LD_AUDIT

# slurm.conf and plugstack.conf split at spaces, and $WORK has some: the
# cluster and the store live in a folder of their own.
SL=$(mktemp -d /tmp/cudnnenv-slurm.XXXXXX)
chmod 755 "$SL"
stop_cluster() {  # each daemon ended, and waited for, before its folder goes
  local pid_file pids=() pid i
  for pid_file in "$SL"/run/*.pid "$SL"/munge/munged.pid; do
    [ -f "$pid_file" ] && pids+=("$(cat "$pid_file")")
  done
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null; done
  for pid in "${pids[@]}"; do
    for ((i = 0; i < 100; ++i)); do
      kill -0 "$pid" 2> /dev/null || break
      sleep 0.1
    done
  done
  if [ "${KEEP:-0}" = 0 ]; then rm -rf "$SL"; else echo "cluster kept in $SL"; fi
}
trap 'rc=$?; [ $rc -eq 0 ] || KEEP=1; stop_cluster; (exit $rc); cleanup' EXIT
logs() { tail -n 20 "$SL"/log/*.log 2> /dev/null; }

mkdir -p "$SL"/{munge,state,spool,run,log}
head -c 1024 /dev/urandom > "$SL/munge/munge.key"
chown -R munge: "$SL/munge"
chmod 400 "$SL/munge/munge.key"
runuser -u munge -- munged --force --key-file="$SL/munge/munge.key" --socket="$SL/munge/socket" \
  --pid-file="$SL/munge/munged.pid" --log-file="$SL/munge/munged.log" --seed-file="$SL/munge/seed" ||
  fail "munged did not start"

read -r ctld_port n1_port n2_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
host=$(hostname -s)
export SLURM_CONF=$SL/slurm.conf
cat > "$SLURM_CONF" <<CONF
ClusterName=test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SL/munge/socket
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool/%n
SlurmctldPidFile=$SL/run/slurmctld.pid
SlurmdPidFile=$SL/run/slurmd-%n.pid
SlurmctldLogFile=$SL/log/slurmctld.log
SlurmdLogFile=$SL/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SelectType=select/cons_tres
SlurmctldPort=$ctld_port
PlugStackConfig=$SL/plugstack.conf
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$n1_port CPUs=1 State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$n2_port CPUs=1 State=UNKNOWN
PartitionName=test Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
CONF
export CUDNNENV_ROOT=$SL/store
# The programs where another user can run them (the personal store's case),
# the plugin finding its cudnnenv beside itself.
mkdir "$SL/bin"
cp "$BIN"/cudnnenv "$BIN"/cudnnenv-probe "$BIN"/cudnnenv-task-prolog "$BIN"/cudnnenv_spank.so "$BIN"/libcudnnenv-audit*.so \
  "$SL/bin/"
BIN=$SL/bin
echo "required $BIN/cudnnenv_spank.so root=$CUDNNENV_ROOT" > "$SL/plugstack.conf"
slurmctld -c -f "$SLURM_CONF" || fail "slurmctld: $(logs)"
slurmd -N n1 -f "$SLURM_CONF" || fail "slurmd n1: $(logs)"
slurmd -N n2 -f "$SLURM_CONF" || fail "slurmd n2: $(logs)"
nodes() { sinfo -h -N -o '%N %T %E' 2> /dev/null | sort; }
wait_for() {  # wait_for EXPECTED SECONDS: until `nodes` prints EXPECTED
  local i
  for ((i = 0; i < $2 * 4; ++i)); do
    [ "$(nodes)" = "$1" ] && return 0
    sleep 0.25
  done
  return 1
}
wait_for $'n1 idle none\nn2 idle none' 30 || fail "the nodes did not come up: $(nodes) $(logs)"
srun --help | grep -q -- '--cudnn=SPEC' || fail "srun --help does not offer --cudnn: $(srun --help | tail -n 5)"
pass "a two-node Slurm with cudnnenv's SPANK plugin: srun offers --cudnn"

# The tree, a decoy, and a program that says which libcudnn.so.9 it loaded.
make_linux_tree t 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install ./t --name t91 || fail "install: $(cat err)"
mkdir -p "$SL/decoy"
cp "$FIXTURES/fake-elf64-9.1.0.so" "$SL/decoy/libcudnn.so.9"
cat > which_cudnn.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  const char* node = getenv("SLURMD_NODENAME");
  void* handle = dlopen("libcudnn.so.9", RTLD_NOW);
  void* symbol = handle ? dlsym(handle, "cudnnGetVersion") : NULL;
  Dl_info info;
  if (!symbol || !dladdr(symbol, &info)) {
    printf("%s: no cuDNN: %s\n", node ? node : "-", dlerror());
    return 1;
  }
  printf("%s: %s\n", node ? node : "-", info.dli_fname);
  return 0;
}
C
# DT_RPATH comes before LD_LIBRARY_PATH: only the audit module beats it.
cc -o "$SL/which-cudnn" which_cudnn.c -ldl -Wl,--disable-new-dtags,-rpath,"$SL/decoy"
cd "$SL"
export LD_LIBRARY_PATH=$SL/decoy
tree_lib=$CUDNNENV_ROOT/t91/lib/libcudnn.so.9
expect_eq "$(srun -N2 ./which-cudnn | sort)" "n1: $SL/decoy/libcudnn.so.9
n2: $SL/decoy/libcudnn.so.9" "without --cudnn: the decoy"
expect_eq "$(srun -N2 --cudnn=t91 ./which-cudnn | sort)" "n1: $tree_lib
n2: $tree_lib" "srun -N2 --cudnn=t91"
pass "srun -N2 --cudnn=t91: the tree on both nodes, past DT_RPATH and LD_LIBRARY_PATH to a decoy"
expect_eq "$(srun -N1 --cudnn=t91 sh -c 'echo "$LD_LIBRARY_PATH"')" "$CUDNNENV_ROOT/t91/lib:$SL/decoy" \
  "the task's LD_LIBRARY_PATH"
expect_eq "$(srun -N1 --cudnn=t91 "$CUDNNENV" current)" \
  "9.1.0  t91  (set by Slurm (srun --cudnn, or the task prolog) for this job's task)" "current in a task"
pass "the task keeps its LD_LIBRARY_PATH after the tree's, and current names Slurm"

expect_eq "$(CUDNNENV_VERSION=t91 srun -N2 --task-prolog="$BIN/cudnnenv-task-prolog" ./which-cudnn | sort)" \
  "n1: $tree_lib
n2: $tree_lib" "srun --task-prolog"
expect_eq "$(srun -N2 --task-prolog="$BIN/cudnnenv-task-prolog" ./which-cudnn | sort)" "n1: $SL/decoy/libcudnn.so.9
n2: $SL/decoy/libcudnn.so.9" "the task prolog with nothing selected"
pass "srun --task-prolog=cudnnenv-task-prolog: CUDNNENV_VERSION's tree on both nodes; nothing selected, nothing set"

cat > job.sh <<JOB
#!/bin/sh
#SBATCH -N2
#SBATCH --cudnn=t91
#SBATCH --output=$SL/job.out
./which-cudnn
srun ./which-cudnn
JOB
sbatch --wait job.sh > sbatch.out 2>&1 || fail "sbatch: $(cat sbatch.out job.out)"
expect_eq "$(head -n 1 job.out)" "n1: $tree_lib" "the batch script's own load"
expect_eq "$(tail -n +2 job.out | sort)" "n1: $tree_lib
n2: $tree_lib" "the batch script's srun step"
pass "sbatch with '#SBATCH --cudnn=t91': the script and its step on both nodes load the tree"

rm -f ran
if srun -N2 --cudnn=nosuch touch ran > out 2> err; then fail "--cudnn=nosuch ran: $(cat out err)"; fi
[ ! -e ran ] || fail "--cudnn=nosuch: the program ran"
expect_eq "$(head -n 1 err)" "cudnnenv: error: no installed cuDNN matches 'nosuch' (set by --cudnn)" "srun's refusal"
refusal="cudnnenv: --cudnn=nosuch matches nothing here (above: why): the job stops where plugstack.conf loads the plugin as 'required', and goes on unpinned where it is 'optional'"
grep -qxF "srun: error: $refusal" err || fail "srun's refusal: $(cat err)"
printf '#!/bin/sh\n#SBATCH --cudnn=nosuch\ntouch %s/ran\n' "$SL" > bad-job.sh
if sbatch --wait bad-job.sh > out 2> err; then fail "sbatch --cudnn=nosuch went: $(cat out err)"; fi
expect_eq "$(head -n 1 err)" "cudnnenv: error: no installed cuDNN matches 'nosuch' (set by --cudnn)" "sbatch's refusal"
grep -q "^Submitted batch job" out && fail "sbatch submitted a job: $(cat out)"
[ ! -e ran ] || fail "sbatch --cudnn=nosuch: the script ran"
pass "--cudnn=nosuch: srun and sbatch refuse with cudnnenv's message, nothing runs"

# Under 'optional' Slurm submits anyway: the plugin's line says so, never that the job was refused.
echo "optional $BIN/cudnnenv_spank.so root=$CUDNNENV_ROOT" > "$SL/plugstack.conf"
sbatch --hold bad-job.sh > out 2> err || fail "sbatch under 'optional': $(cat out err)"
grep -q "^Submitted batch job" out || fail "sbatch under 'optional' submitted nothing: $(cat out err)"
scancel "$(awk '{ print $4 }' out)"
grep -qxF "sbatch: error: $refusal" err || fail "the plugin's line under 'optional': $(cat err)"
echo "required $BIN/cudnnenv_spank.so root=$CUDNNENV_ROOT" > "$SL/plugstack.conf"
pass "under 'optional' sbatch --cudnn=nosuch is submitted (held, then cancelled), and the plugin's line says it goes on"

# A tree broken after its install: the check in each task ends it first.
cd "$WORK"
make_linux_tree t2 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install ./t2 --name t2 || fail "install t2: $(cat err)"
broken=$(readlink -f "$CUDNNENV_ROOT/t2/lib/libcudnn.so.9")
chmod u+w "$broken" && truncate -s 100 "$broken"
cd "$SL"
if srun -N2 --cudnn=t2 --cudnn-verify=load touch ran > out 2> err; then fail "a broken tree ran: $(cat out err)"; fi
[ ! -e ran ] || fail "--cudnn-verify=load of a broken tree: the program ran"
expect_eq "$(grep -c "^cudnnenv: error: the tree 't2' is incomplete: 'lib/libcudnn.so.9.1.0' and 1 more missing or changed since it was installed$" err)" 2 \
  "cudnnenv's message, once per task: $(cat err)"
expect_eq "$(grep -c "^  hint: see 'cudnnenv verify t2'; launch anyway with srun --cudnn-verify=none$" err)" 2 \
  "the hint names srun's option: $(cat err)"
expect_eq "$(grep 'Exited with exit code' err | sed 's/task [01]/task N/' | sort)" \
  "srun: error: n1: task N: Exited with exit code 4
srun: error: n2: task N: Exited with exit code 4" "the tasks' exit"
pass "--cudnn-verify=load of a truncated tree: each task ends with exit 4 and cudnnenv's message, the program never runs"

# Property: a trusted project's generated hostile [env] through the task
# prolog reaches the task byte for byte, or cudnnenv refuses it (a line
# break: Slurm reads one line per variable) and the task does not run.
test_seed
RANDOM=$seed
rounds=${PROPERTY_ROUNDS:-8}
mkdir -p "$SL/project"
cd "$SL/project"
checked=0 refused=0
for ((round = 0; round < rounds; round++)); do
  declare -A intended=()
  {
    echo 'cudnn = "t91"'
    echo '[env]'
    for ((k = 0; k < 4; k++)); do
      random_name
      name=${REPLY}_$k
      random_value
      intended[$name]=$REPLY
      printf '%s = %s\n' "$name" "$(toml_string "${intended[$name]}")"
    done
  } > .cudnnenv.toml
  "$CUDNNENV" trust > /dev/null || fail "trust"
  broken=''
  for name in "${!intended[@]}"; do [[ ${intended[$name]} == *[$'\n\r']* ]] && broken=1; done
  rc=0
  srun -N1 --task-prolog="$BIN/cudnnenv-task-prolog" sh -c 'env -0 > "$1"' - "$SL/task.env" > out 2> err || rc=$?
  if [ -n "$broken" ]; then
    [ "$rc" != 0 ] || fail "round $round: a value with a line break passed: $(cat .cudnnenv.toml)"
    # Slurm shows the user the prolog's `print` lines, not its stderr.
    grep -q "^cudnnenv: error: the value of P_.* holds a line break, which Slurm's task prolog cannot pass$" out ||
      fail "round $round: the refusal: $(cat out err)"
    grep -qx "slurmstepd-n1: error: --task-prolog failed status=2" err || fail "round $round: the task's end: $(cat err)"
    [ ! -e "$SL/task.env" ] || fail "round $round: the task ran after its prolog failed"
    refused=$((refused + 1))
  else
    expect_eq "$rc" 0 "round $round ($(cat err))"
    expected=$(for name in "${!intended[@]}"; do printf '%s=%s\0' "$name" "${intended[$name]}"; done |
      LC_ALL=C sort -z | od -An -tx1)
    got=$(LC_ALL=C grep -z '^P_' "$SL/task.env" | LC_ALL=C sort -z | od -An -tx1)
    [ "$got" = "$expected" ] || fail "round $round: the task's variables differ from the file's: got $got, expected $expected
$(cat .cudnnenv.toml)"
    checked=$((checked + 1))
  fi
  rm -f "$SL/task.env"
  [ -z "$(find "$WORK" "$SL" -name 'PWNED*' -print -quit)" ] || fail "round $round: code ran
$(cat .cudnnenv.toml)"
  unset intended
done
cd "$SL"
pass "$checked generated [env] sets reached the task exactly through the task prolog, $refused with a line break refused; nothing ran"

# A user's own tree over the shared store (pyenv's user versions), through
# the plugin: as nobody, whose ~/.local/share/cudnnenv holds t94.
mkdir -p "$SL/home"
chown nobody "$SL/home"
(cd "$WORK" && make_linux_tree t94 9.4.0 "$FIXTURES/fake-elf64-9.4.0.so" && mv t94 "$SL/t94")
chmod -R a+rX "$SL/t94"
as_nobody() {
  setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH=/usr/bin:/bin HOME="$SL/home" \
    SLURM_CONF="$SLURM_CONF" CUDNNENV_ROOT="$CUDNNENV_ROOT" LD_LIBRARY_PATH="$SL/decoy" \
    sh -c 'cd "$0" && exec "$@"' "$SL/home" "$@"
}
as_nobody "$BIN/cudnnenv" install "$SL/t94" --name t94 > out 2> err || fail "install as nobody: $(cat err)"
expect_eq "$(as_nobody srun -N2 --cudnn=t94 "$SL/which-cudnn" | sort)" "n1: $SL/home/.local/share/cudnnenv/t94/lib/libcudnn.so.9
n2: $SL/home/.local/share/cudnnenv/t94/lib/libcudnn.so.9" "srun --cudnn of the user's own tree"
expect_eq "$(as_nobody srun -N2 --cudnn=t91 "$SL/which-cudnn" | sort)" "n1: $tree_lib
n2: $tree_lib" "srun --cudnn of the shared store's tree, as another user"
pass "the SPANK plugin sees a user's own trees over the shared store, and the shared ones"

# The README's check of every node (%n: two slurmd share this host's name).
rc=0
srun -N2 --ntasks-per-node=1 --cudnn=t91 --output="$SL/verify-%n.json" "$CUDNNENV" verify --level conv --device all --json \
  2> err || rc=$?
expect_eq "$rc" 5 "verify with no GPU: exit 5 ($(cat err))"
for node in 0 1; do
  expect_eq "$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(len(r), r[0]["name"], r[0]["library"], r[0]["passed"], r[0]["gpu_unavailable"])' "$SL/verify-$node.json")" \
    "1 t91 $tree_lib True True" "verify on node $node"
done
pass "srun -N2 ... cudnnenv verify --level conv --device all --json: each node's JSON names the task's tree (no GPU here: exit 5)"

# slurm health as HealthCheckProgram (slurmd runs it with no PATH and no SLURM_CONF).
printf '#!/bin/sh\nexec env SLURM_CONF=%s CUDNNENV_ROOT=%s %s slurm health --drain --resume\n' "$SLURM_CONF" "$CUDNNENV_ROOT" \
  "$CUDNNENV" > "$SL/health"
chmod +x "$SL/health"
printf 'HealthCheckProgram=%s/health\nHealthCheckInterval=1\nHealthCheckNodeState=ANY\n' "$SL" >> "$SLURM_CONF"
scontrol reconfigure || fail "scontrol reconfigure"
reason="cudnnenv: tree 't2': files: 'lib/libcudnn.so.9.1.0' is 100 bytes, was 15280 (truncated?); 'lib/libcudnn.so.9' is 100 bytes, was 15280 (truncated?)"
wait_for "n1 drained $reason
n2 drained $reason" 30 || fail "slurm health did not drain the nodes: $(nodes) $(logs)"
pass "slurm health as HealthCheckProgram: a truncated tree drains both nodes, the reason its one line"
run remove --yes t2 || fail "remove t2: $(cat err)"
wait_for $'n1 idle none\nn2 idle none' 30 || fail "slurm health --resume did not resume the nodes: $(nodes) $(logs)"
pass "with the store mended, slurm health --resume resumes the nodes it drained itself"
scontrol update NodeName=n2 State=DRAIN Reason="disk swap" || fail "drain n2 by hand"
sleep 3
expect_eq "$(nodes)" $'n1 idle none\nn2 drained disk swap' "a node an admin drained, three health checks later"
pass "a node drained for another reason stays drained: --resume resumes only what cudnnenv drained"
