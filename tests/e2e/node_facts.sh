#!/usr/bin/env bash
# --facts (issue 45): plan on a machine without a GPU for a node described by
# its snapshot (tests/nodes: a real H100 host's, and hand-written ones of an
# old driver, a Pascal GPU and a Jetson Thor). doctor --facts gives the
# driver, GPU and toolkit rows doctor gave on the H100 host itself; install
# --facts --dry-run picks the archive that runs on each node, offline (a small
# index of our own), saying why newer ones would fail there; frameworks
# --solve --facts takes only trees that run there. A file that is not a
# snapshot, or one with a crafted compute capability, is refused.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/trees.sh"
NODES=$(cd "$E2E_DIR/../nodes" && pwd)
export CUDNNENV_ROOT="$WORK/store" HOME="$WORK/home" LC_ALL=C.UTF-8
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED LD_LIBRARY_PATH CONDA_PREFIX VIRTUAL_ENV CUDA_HOME CUDA_PATH
mkdir -p home
{
  printf 'cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n'
  for row in "9.10.2.21 linux-x86_64 cuda12" "9.19.0.56 linux-x86_64 cuda12" "9.19.0.56 linux-x86_64 cuda13" \
    "9.19.0.56 linux-sbsa cuda12" "9.19.0.56 linux-sbsa cuda13"; do
    read -r v p c <<< "$row"
    f="cudnn-$p-${v}_$c-archive.tar.xz"
    printf '%s\t%s\t%s\t%s\t%064d\t?\thttps://example.invalid/%s\n' "$v" "$p" "$c" "$f" 0 "$f"
  done
} > index.tsv
export CUDNNENV_INDEX="$WORK/index.tsv"
make_linux_tree c 9.19.0 "$FIXTURES/fake-elf64-9.19.0.so" && run install c --name c919
make_linux_tree t 9.21.0 "$FIXTURES/fake-elf64-9.21.0-cuda12.so" && run install t --name t9.21
make_linux_tree u 9.4.0 "$FIXTURES/fake-elf64-9.4.0.so" && run install u --name t9.4
expect_eq "$("$CUDNNENV" list --json | python3 -c 'import json, sys; print([(t["name"], t["cuda"]) for t in json.load(sys.stdin)])')" \
  "[('t9.21', '12.9'), ('c919', '13.1'), ('t9.4', '12.4')]" "the trees"

# 1. The H100 host's own rows, reproduced here from its snapshot (the same selection: 9.19.0 for CUDA 13.1).
rows() { python3 -c 'import json, sys; print("\n".join(c["status"] + " " + c["id"] + ": " + c["summary"] for c in json.load(sys.stdin)["checks"] if c["id"] in ("selection", "driver", "gpu", "toolkit")))'; }
CUDNNENV_VERSION=c919 run doctor --facts "$NODES/h100.json" --json
expect_eq "$(rows < out)" "$(rows < "$NODES/h100.json")" "doctor --facts h100.json against the rows doctor gave there"
expect_eq "$(json_field node < out)" "the node of '$NODES/h100.json' (Linux x86_64, driver 580.159.04 running CUDA 13.0, NVIDIA H100 80GB HBM3 9.0)" "the node"
pass "doctor --facts h100.json gives the driver, GPU and toolkit rows doctor gave on the H100 host"

# 2. The rows for the other nodes, with the same tree.
CUDNNENV_VERSION=c919 run doctor --facts "$NODES/old-driver.json"
expect_eq "$rc" "1" "doctor --facts old-driver.json fails"
expect_eq "$(sed -n 1,5p out)" "for the node of '$NODES/old-driver.json' (Linux x86_64, driver 535.104.05 running CUDA 12.2, NVIDIA A100-SXM4-80GB 8.0): its driver, GPUs and toolkits; the selection and the frameworks are this machine's
ok    selection   'c919' (cuDNN 9.19.0, CUDA 13.1), set by CUDNNENV_VERSION
fail  driver      535.104.05 (runs CUDA 12.2 and older): too old for CUDA 13.1
ok    gpu         NVIDIA A100-SXM4-80GB (compute capability 8.0)
warn  toolkit     CUDA 12.2 comes first; the selected tree is built for CUDA 13.1" "doctor --facts old-driver.json"
CUDNNENV_VERSION=c919 run doctor --facts "$NODES/pascal.json"
expect_eq "$(grep '^fail  gpu' out)" "fail  gpu         NVIDIA GeForce GTX 1080 Ti (compute capability 6.1): not supported by cuDNN 9.19.0 for CUDA 13.1" \
  "doctor --facts pascal.json"
CUDNNENV_VERSION=t9.4 run doctor --facts "$NODES/pascal.json"
expect_eq "$(grep -E '^[a-z]+ +(driver|gpu) ' out)" "ok    driver      580.95.05 (runs CUDA 13.0 and older)
ok    gpu         NVIDIA GeForce GTX 1080 Ti (compute capability 6.1)" "doctor --facts pascal.json with 9.4.0 for CUDA 12"
CUDNNENV_VERSION=c919 run doctor --facts "$NODES/jetson-thor.json"
expect_eq "$(sed -n '/^fail selection:/,/^$/p' out)" "fail selection: 'c919' (cuDNN 9.19.0, CUDA 13.1) is built for Linux x86_64; the node is Linux arm64
  you see:  'cannot open shared object file' or 'wrong ELF class' for lib/libcudnn.so.9
  because:  a tree of one platform does not load on another
  fix:      install one for the node: cudnnenv install 9.19 --facts $NODES/jetson-thor.json" \
  "doctor --facts jetson-thor.json"
expect_eq "$(grep -E '^[a-z]+ +driver ' out)" "warn  driver      580.00 (runs CUDA 13.0 and older): older than CUDA 13.1's own driver" \
  "a Jetson's driver 580.00 runs CUDA 13.0: the CUDA it says decides"
pass "doctor --facts: the old driver too old for CUDA 13, the Pascal GPU without code in CUDA 13's cuDNN, the Jetson another platform"

# 3. install --facts --dry-run: the archive that runs on each node, and why newer ones would not.
for node in h100 old-driver pascal jetson-thor; do
  run install 9 --facts "$NODES/$node.json" --dry-run
  expect_eq "$rc" "0" "install --facts $node: $(cat err)"
  sed "s|for the node of '$NODES/$node.json' ([^)]*)|for $node|" out > "$node.txt"
done
expect_eq "$(cat h100.txt)" "would install cuDNN 9.19.0.56 for CUDA 13 (linux-x86_64) for h100: cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz" \
  "install --facts h100.json"
expect_eq "$(cat old-driver.txt)" "would install cuDNN 9.19.0.56 for CUDA 12 (linux-x86_64) for old-driver: cudnn-linux-x86_64-9.19.0.56_cuda12-archive.tar.xz
  cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz would fail there: its driver 535.104.05 runs CUDA 12.2, and CUDA 13 needs 580.65.06 or newer" \
  "install --facts old-driver.json"
expect_eq "$(cat pascal.txt)" "would install cuDNN 9.10.2.21 for CUDA 12 (linux-x86_64) for pascal: cudnn-linux-x86_64-9.10.2.21_cuda12-archive.tar.xz
  cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz would fail there: NVIDIA GeForce GTX 1080 Ti (compute capability 6.1): not supported by cuDNN 9.19.0.56 for CUDA 13
  cudnn-linux-x86_64-9.19.0.56_cuda12-archive.tar.xz would fail there: NVIDIA GeForce GTX 1080 Ti (compute capability 6.1): not supported by cuDNN 9.19.0.56 for CUDA 12" \
  "install --facts pascal.json"
expect_eq "$(cat jetson-thor.txt)" "would install cuDNN 9.19.0.56 for CUDA 13 (linux-sbsa) for jetson-thor: cudnn-linux-sbsa-9.19.0.56_cuda13-archive.tar.xz" \
  "install --facts jetson-thor.json"
run install 9 --facts "$NODES/old-driver.json" --dry-run --json
expect_eq "$(python3 -c 'import json; j = json.load(open("out")); print(j["archive"], j["cuda"], j["platform"], len(j["passed"]))')" \
  "cudnn-linux-x86_64-9.19.0.56_cuda12-archive.tar.xz 12 linux-x86_64 1" "install --facts --dry-run --json"
run install 9.19 --cuda 13 --facts "$NODES/old-driver.json" --dry-run
expect_eq "$rc" "3" "nothing for CUDA 13 runs on the old driver"
expect_eq "$(cat err)" "cudnnenv: error: no official cuDNN archive matching '9.19' runs on the node of '$NODES/old-driver.json' (Linux x86_64, driver 535.104.05 running CUDA 12.2, NVIDIA A100-SXM4-80GB 8.0): cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz would fail there: its driver 535.104.05 runs CUDA 12.2, and CUDA 13 needs 580.65.06 or newer
  hint: 'cudnnenv list --available' shows what there is; an older release may still run there" "--cuda 13 for the old driver"
[ ! -e "$CUDNNENV_ROOT/downloads" ] || [ -z "$(ls -A "$CUDNNENV_ROOT/downloads")" ] || fail "--dry-run fetched something"
pass "install --facts --dry-run: CUDA 13 for the H100, CUDA 12 for the old driver, 9.10 for Pascal, linux-sbsa for the Jetson; offline"

# 4. frameworks --solve --facts: a PyTorch built with cuDNN 9.1 for CUDA 12: here the newest installed tree
# for CUDA 12 (9.21); for the Pascal node the newest that runs there (9.4).
/usr/bin/python3 -m venv --without-pip venv 2> /dev/null || { echo "skip: Debian's python3 cannot make a venv"; exit 77; }
site=$(echo "$WORK"/venv/lib/python3*/site-packages)
source "$E2E_DIR/framework_stubs.sh"
stub_torch 2.5.1+cu124 12.4 9.1.0
mkdir -p "$site/nvidia/cudnn/lib" && cp "$FIXTURES/fake-elf64-9.1.0.so" "$site/nvidia/cudnn/lib/libcudnn.so.9"
run frameworks --for "$WORK/venv/bin/python" --solve
expect_eq "$(tail -n 2 out)" "the cuDNN that runs it: 't9.21' (cuDNN 9.21.0, CUDA 12.9, installed)
  select it: cudnnenv use t9.21" "frameworks --solve here"
run frameworks --for "$WORK/venv/bin/python" --solve --facts "$NODES/pascal.json"
expect_eq "$(sed -n 2p out)" "solved for the node of '$NODES/pascal.json' (Linux x86_64, driver 580.95.05 running CUDA 13.0, NVIDIA GeForce GTX 1080 Ti 6.1)" \
  "the node it solved for"
expect_eq "$(tail -n 2 out)" "the cuDNN that runs it: 't9.4' (cuDNN 9.4.0, CUDA 12.4, installed)
  select it: cudnnenv use t9.4" "frameworks --solve --facts pascal.json"
pass "frameworks --solve --facts: only trees that run on the node"

# 5. Files that are not a node's facts.
echo '{"not": "a snapshot"}' > junk.json
run doctor --facts junk.json
expect_eq "$rc" "2" "a file that is not a snapshot"
expect_eq "$(cat err)" "cudnnenv: error: 'junk.json' is not a snapshot cudnnenv can plan for: not a snapshot (cudnnenv snapshot -o writes one)
  hint: take one on the node: cudnnenv snapshot -o node.json" "the refusal"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["gpus"][0]["compute_capability"] = "9.0; rm -rf /"; json.dump(j, open("crafted.json", "w"))' "$NODES/h100.json"
run install 9 --facts crafted.json --dry-run
expect_eq "$(head -1 err)" "cudnnenv: error: 'crafted.json' is not a snapshot cudnnenv can plan for: a GPU's compute_capability is not MAJOR.MINOR" \
  "a crafted compute capability"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["gpus"][0]["name"] = "GPU\u001b[2J"; j["host"]["arch"] = "riscv64"; json.dump(j, open("arch.json", "w"))' "$NODES/h100.json"
run install 9 --facts arch.json --dry-run
expect_eq "$(head -1 err)" "cudnnenv: error: 'arch.json' is not a snapshot cudnnenv can plan for: its host.os and host.arch are not a platform cudnnenv knows" \
  "an unknown architecture"
pass "a file that is not a snapshot, a crafted compute capability and an unknown architecture are refused (exit 2)"

# 6. lock --facts and use --facts: a project locked and selected from here for the node.
mkdir -p project && cd project
printf 'cudnn = "9.19"\n' > .cudnnenv.toml
run lock
expect_eq "$rc" "3" "lock here: 9.19 comes for CUDA 12 and 13, and nothing here says which"
run lock --facts "$NODES/old-driver.json"
expect_eq "$rc" "0" "lock --facts: $(cat err)"
expect_eq "$(cat out)" "wrote $WORK/project/cudnnenv.lock
  linux-x86_64    cuDNN 9.19.0.56 (cuda12)  cudnn-linux-x86_64-9.19.0.56_cuda12-archive.tar.xz" "lock --facts old-driver.json"
expect_eq "$(cat err)" "cudnnenv: for the node of '$NODES/old-driver.json' (Linux x86_64, driver 535.104.05 running CUDA 12.2, NVIDIA A100-SXM4-80GB 8.0)" \
  "lock --facts names the node"
run lock --facts "$NODES/jetson-thor.json"
expect_eq "$(cat out)" "wrote $WORK/project/cudnnenv.lock
Added cudnn 9.19.0.56 (cuda13) (linux-sbsa)
Removed cudnn 9.19.0.56 (cuda12) (linux-x86_64)
  linux-sbsa      cuDNN 9.19.0.56 (cuda13)  cudnn-linux-sbsa-9.19.0.56_cuda13-archive.tar.xz" "lock --facts jetson-thor.json: the platform moves, and the lock says so"
rm .cudnnenv.toml cudnnenv.lock
run use c919 --local --facts "$NODES/pascal.json"
expect_eq "$rc" "1" "use --facts of a tree that would fail there"
expect_eq "$(cat err)" "cudnnenv: error: 'c919' would fail on the node of '$NODES/pascal.json' (Linux x86_64, driver 580.95.05 running CUDA 13.0, NVIDIA GeForce GTX 1080 Ti 6.1): NVIDIA GeForce GTX 1080 Ti (compute capability 6.1): not supported by cuDNN 9.19.0 for CUDA 13.1
  hint: 'cudnnenv install 9 --facts $NODES/pascal.json --dry-run' names one that runs there" "the refusal"
[ ! -e .cudnnenv.toml ] || fail "use --facts wrote the project file of a tree that would fail there"
run use t9.4 --local --facts "$NODES/pascal.json"
expect_eq "$rc" "0" "use --facts of a tree that runs there: $(cat err)"
expect_eq "$(cat .cudnnenv.toml)" 'cudnn = "t9.4"' "the project file"
cd "$WORK"
pass "lock --facts locks the archive that runs on the node (and its platform); use --facts refuses a tree that would fail there"

# 7. A snapshot's path with a space and a quote reaches the hint quoted: the hint runs as written.
mkdir -p "$WORK/it's nodes" && cp "$NODES/pascal.json" "$WORK/it's nodes/p.json"
run use c919 --facts "$WORK/it's nodes/p.json"
expect_eq "$rc" "1" "use --facts from a path with a space and a quote"
hint=$(sed -n "s/^  hint: '\(.*\)' names one that runs there$/\1/p" err)
[ -n "$hint" ] || fail "no hint command: $(cat err)"
(PATH="$(dirname "$CUDNNENV"):$PATH" bash -c "$hint" > hinted.txt 2>&1) || fail "the hint did not run as written: $hint: $(cat hinted.txt)"
grep -q "^would install cuDNN 9.10.2.21 for CUDA 12 " hinted.txt || fail "the hint's dry run: $(cat hinted.txt)"
pass "the --facts file in a hint is quoted for the shell: pasted, it runs"
