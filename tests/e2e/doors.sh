#!/usr/bin/env bash
# One environment, every door (#40): for each selection (rows of SELECTIONS)
# and each door (rows of DOORS), a program started through that door sees
# the same trees on the loader's list, the same variables and loads the same
# cuDNN as one started by `cudnnenv exec`, and `current` in that shell names
# the tree and the door. A new door or selection is one row.
#
# Selections, each a project file, with two CUDA 12 runtimes, two NCCLs and a
# TensorRT built for CUDA 12 installed: a tree (the newest runtime, NCCL and
# TensorRT of its CUDA major go with it: all four rows); the same tree with the other runtime named
# (`runtime =`); with the other NCCL named too (`nccl =`); a trusted [env]; a
# profile with a variable, run by a tree that is not its tested pair (a warning).
# Doors: the prompt hook in bash, zsh and fish; `eval "$(cudnnenv activate
# --shell bash)"` without the integration and with it; exec; a shim's first
# start and its start from the recorded decision; Lmod's `module load`
# (a tree named, the runtime named with it); conda's activate hook.
# An IDE launcher (export launcher) and a Jupyter kernel (export jupyter, its
# argv run as Jupyter runs it), each given the tree, profile or runtime the
# project names.
# Undoing (deactivate, module unload, conda's deactivate hook) gives the
# environment back byte for byte.
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
command -v cc > /dev/null || { echo "skip: no C compiler"; exit 77; }
export LC_ALL=C.UTF-8 CUDNNENV_ROOT="$WORK/store" CUDNNENV_STATE_DIR="$WORK/state" CUDNNENV_VERIFY=none
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_ACTIVATED_BY CUDNNENV_SHELL _CUDNNENV_STATE CUDNNENV_ACTIVE \
  CUDNNENV_CUDA_RUNTIME CUDNN_PATH LD_LIBRARY_PATH CUDA_PATH CUDA_HOME CUDA_ROOT LOADEDMODULES _LMFILES_ MODULEPATH
source "$E2E_DIR/trees.sh"

for version in 9.1.0 9.2.0 9.4.0; do
  make_linux_tree "t$version" "$version" "$FIXTURES/fake-elf64-$version.so"
  "$CUDNNENV" install "t$version" --name "t$version" > /dev/null || fail "install t$version"
done
# Two CUDA 12 runtimes, adopted from folders (the release from libcudart's full name); two NCCLs built for
# CUDA 12 (the release and CUDA from the library's version string), the newer paired with every tree.
for release in 12.1 12.4; do adopt_fake_runtime "$release" "rt$release"; done
adopt_fake_nccl 2.27.5 12.9
adopt_fake_nccl 2.26.2 12.2
install_fake_tensorrt 10.13.3.9 12.9
mkdir -p bin prog
ln -s "$CUDNNENV" bin/cudnnenv
cp "$FIXTURES/load-cudnn" prog/
# What a program sees: the store's and the runtimes' folders on LD_LIBRARY_PATH, in order, the variables a
# selection sets, and the cuDNN version it loads by name.
cat > prog/view <<EOF
#!/bin/bash
list=
IFS=:
for entry in \${LD_LIBRARY_PATH-}; do
  case \$entry in "$WORK"/*) list="\$list \${entry#$WORK/}" ;; esac
done
unset IFS
printf 'lib=[%s] CUDNN_PATH=%s ACTIVE=%s RUNTIME=%s NCCL=%s TRT=%s FOO=%s TF=%s loaded=%s\n' "\${list# }" \
  "\${CUDNN_PATH#$WORK/}" "\${CUDNNENV_ACTIVE-}" "\${CUDNNENV_CUDA_RUNTIME-}" "\${CUDNNENV_NCCL-}" \
  "\${CUDNNENV_TENSORRT-}" "\${FOO-}" "\${TF_CPP_MIN_LOG_LEVEL-}" "\$("$WORK/prog/load-cudnn")"
EOF
chmod +x prog/view
export PATH="$WORK/bin:$WORK/prog:$PATH"
"$CUDNNENV" shim add view > /dev/null 2>&1
export SHIMS="$CUDNNENV_STATE_DIR/shims" VIEW="$WORK/prog/view" KERNELS="$WORK/kernels"

# NAME|project file text (\n for a line break)|what current says of the tree|what the pinned doors
# (launcher, kernel) are given to pin the same selection ("-": a project's [env] is the project's; a
# launcher or kernel is pinned to a tree, shared by the projects that use it)
SELECTIONS='tree|cudnn = "t9.2.0"\n|9.2.0  t9.2.0|t9.2.0
runtime|cudnn = "t9.2.0"\nruntime = "12.1.0"\n|9.2.0  t9.2.0|t9.2.0 --runtime 12.1.0
nccl|cudnn = "t9.2.0"\nruntime = "12.1.0"\nnccl = "2.26"\n|9.2.0  t9.2.0|t9.2.0 --runtime 12.1.0 --nccl 2.26
env|cudnn = "t9.1.0"\n[env]\nFOO = "a b=c"\n|9.1.0  t9.1.0|-
profile|profile = "tf2.18"\n|9.4.0  t9.4.0|tf2.18'

# NAME^shell^lines run in the project folder, printing `view` then `current` (first line)^door in current
# (shell "bash-init": bash with `cudnnenv init bash` loaded; `bash`: without it).
DOORS='hook-bash^bash-init^view; cudnnenv current | head -1^(set by PROJECT)
hook-zsh^zsh-init^view; cudnnenv current | head -1^(set by PROJECT)
hook-fish^fish-init^view; cudnnenv current | head -1^(set by PROJECT)
activate-eval^bash^eval "$(cudnnenv activate --shell bash)"; cd /; view; cudnnenv current | head -1^(set by '"'"'cudnnenv activate'"'"' in this shell)
activate-eval-init^bash-init^eval "$(cudnnenv activate --shell bash)"; cd /; view; cudnnenv current | head -1^(set by '"'"'cudnnenv activate'"'"' in this shell)
shim-first^bash^rm -rf "$CUDNNENV_STATE_DIR/cache/launch"; "$SHIMS/view"; cudnnenv current | head -1^(set by PROJECT)
shim-cached^bash^"$SHIMS/view" > /dev/null; "$SHIMS/view"; cudnnenv current | head -1^(set by PROJECT)
launcher^bash^"$(cudnnenv export launcher $PIN --python "$VIEW" 2> /dev/null)"; cudnnenv current | head -1^(set by PROJECT)
kernel^bash^cudnnenv export jupyter $PIN --python "$VIEW" --prefix "$KERNELS" --name k > /dev/null 2>&1; run_kernel "$KERNELS/share/jupyter/kernels/k/kernel.json"; cudnnenv current | head -1^(set by PROJECT)'

# run_kernel KERNEL_JSON: the kernel's argv, as Jupyter starts it.
run_kernel() {
  python3 -c 'import json, os, sys
argv = [a.replace("{connection_file}", "/dev/null") for a in json.load(open(sys.argv[1]))["argv"]]
os.execv(argv[0], argv)' "$1" 2> /dev/null
}
export -f run_kernel
# in_shell SHELL LINES: LINES in SHELL, interactive with the integration for *-init, in the working folder.
in_shell() {
  case $1 in
    bash) bash --norc --noprofile -c "$2" ;;
    bash-init) printf '%s\n' 'eval "$(cudnnenv init bash)"' "$2" | bash --norc --noprofile -i 2> /dev/null ;;
    zsh-init) printf '%s\n' 'eval "$(cudnnenv init zsh)"' "$2" | zsh -f -i 2> /dev/null ;;
    fish-init) printf '%s\n' 'cudnnenv init fish | source' "$2" | fish --no-config 2> /dev/null ;;
  esac
}

while IFS='|' read -r selection text tree pin; do
  rm -rf "$WORK/project" && mkdir "$WORK/project" && cd "$WORK/project"
  printf "$text" > .cudnnenv.toml
  "$CUDNNENV" trust > /dev/null
  expected=$(cudnnenv exec -- view)
  case $selection in
    runtime) expect_eq "$expected" "lib=[store/t9.2.0/lib rt12.1/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.2.0 ACTIVE=t9.2.0 RUNTIME=rt12.1 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90200" "$selection: exec" ;;
    nccl) expect_eq "$expected" "lib=[store/t9.2.0/lib rt12.1/lib nccl2.26/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.2.0 ACTIVE=t9.2.0 RUNTIME=rt12.1 NCCL=nccl-2.26.2 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90200" "$selection: exec" ;;
    env) expect_eq "$expected" "lib=[store/t9.1.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.1.0 ACTIVE=t9.1.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO=a b=c TF= loaded=90100" "$selection: exec" ;;
    profile) expect_eq "$expected" "lib=[store/t9.4.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.4.0 ACTIVE=t9.4.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF=0 loaded=90400" "$selection: exec" ;;
    tree) expect_eq "$expected" "lib=[store/t9.2.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.2.0 ACTIVE=t9.2.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90200" "$selection: exec" ;;
  esac
  while IFS='^' read -r door shell lines origin; do
    command -v "${shell%-init}" > /dev/null || { echo "skip: $door (no ${shell%-init})"; continue; }
    case $door in launcher | kernel) [ "$pin" = - ] && continue ;; esac
    export PIN=$pin
    origin=${origin//PROJECT/$WORK/project/.cudnnenv.toml}
    got=$(in_shell "$shell" "$lines" | grep -E '^(lib=|[0-9])')
    expect_eq "$got" "$expected
$tree  $origin" "$selection through $door"
  done <<< "$DOORS"
  pass "$selection: every door gives the program exec's environment, and current names the tree and the door"
done <<< "$SELECTIONS"
# The profile's warning is said by the shim's first start (through exec), not at every start after it.
cd "$WORK/project"
rm -rf "$CUDNNENV_STATE_DIR/cache/launch"
expect_eq "$("$SHIMS/view" 2>&1 > /dev/null)" "cudnnenv: warning: tf2.18 (TensorFlow 2.18) was tested with cuDNN 9.3 and CUDA 12.5, which is not installed; using 't9.4.0' (cuDNN 9.4.0, CUDA 12.4), which it accepts (hint: install the tested pair: cudnnenv install 9.3 --cuda 12.5)" "the shim's first start: the profile's warning"
expect_eq "$("$SHIMS/view" 2>&1 > /dev/null)" "" "the shim's next start: nothing on stderr"
pass "a profile's 'not the tested pair' warning: once, at the shim's first start, not in every script's stderr"
cd "$WORK"

# Activating and deactivating by eval gives the environment back byte for byte.
snapshot() { env -0 | tr "\0" "\1" | tr "\n" "\2" | tr "\1" "\n" | grep -v "^_=" | sort; }
export -f snapshot
mkdir -p plain && cd plain
LD_LIBRARY_PATH=/opt/user/lib bash --norc --noprofile -c '
  snapshot > ../before.txt
  eval "$(cudnnenv activate t9.2.0 --runtime rt12.4 --shell bash)"; view > ../active.txt; cudnnenv current > ../current.txt
  eval "$(cudnnenv deactivate --shell bash 2> /dev/null)"; snapshot > ../after.txt'
cd "$WORK"
expect_eq "$(cat active.txt)" "lib=[store/t9.2.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.2.0 ACTIVE=t9.2.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90200" "activate --runtime"
expect_eq "$(cat current.txt)" "9.2.0  t9.2.0  (set by 'cudnnenv activate' in this shell)
CUDA 12.4.0  rt12.4  (chosen by the activation in this shell (CUDNNENV_CUDA_RUNTIME))
NCCL 2.27.5  nccl-2.27.5  (chosen by the activation in this shell (CUDNNENV_NCCL))
TensorRT 10.13.3.9  tensorrt-10.13.3.9  (chosen by the activation in this shell (CUDNNENV_TENSORRT))" "current after activate --runtime"
cmp -s before.txt after.txt || fail "deactivate: the environment differs: $(diff before.txt after.txt)"
pass "eval activate --runtime, then deactivate: the runtime stays the activation's, and the environment comes back byte for byte"

# Lmod: `module load` is a door like the others: current and exec follow the module's tree.
lmod_init=/usr/share/lmod/lmod/init/bash
if [ -r "$lmod_init" ]; then
  "$CUDNNENV" export modulefile --all -o "$WORK/mods" > /dev/null 2>&1 || fail "export modulefile"
  mkdir -p plain && cd plain
  bash --norc --noprofile -c '
    source '"$lmod_init"'; module use "$1"
    snapshot > ../before.txt
    module load cudnn/9.1.0; view > ../module-view.txt; cudnnenv current > ../module-current.txt
    cudnnenv current --json | python3 -c "import json, sys; print(json.load(sys.stdin)[\"door\"])" > ../module-door.txt
    cudnnenv exec -- view > ../module-exec.txt
    module unload cudnn; snapshot > ../after.txt' _ "$WORK/mods"
  cd "$WORK"
  expect_eq "$(cat module-view.txt)" "lib=[store/t9.1.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.1.0 ACTIVE=t9.1.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90100" "module load: the shell"
  expect_eq "$(cat module-exec.txt)" "$(cat module-view.txt)" "module load: exec pins the module's tree"
  expect_eq "$(cat module-door.txt)" "module" "module load: current --json's door"
  expect_eq "$(cat module-current.txt)" "9.1.0  t9.1.0  (set by the cudnn module ('module load') in this shell)
CUDA 12.4.0  rt12.4  (chosen by the activation in this shell (CUDNNENV_CUDA_RUNTIME))
NCCL 2.27.5  nccl-2.27.5  (chosen by the activation in this shell (CUDNNENV_NCCL))
TensorRT 10.13.3.9  tensorrt-10.13.3.9  (chosen by the activation in this shell (CUDNNENV_TENSORRT))" "module load: current"
  expect_eq "$(diff before.txt after.txt | grep -v '^[<>] \(__LMOD\|_ModuleTable\|LMOD\|MODULEPATH\|_LMFILES_\|LOADEDMODULES\)' | grep '^[<>]')" "" "module unload: the environment back"
  pass "Lmod: after module load, current and exec name and pin the module's tree; unload gives the environment back"
else
  echo "skip: Lmod (no $lmod_init)"
fi

# conda's hooks in a shell with the integration: after `conda deactivate` the next prompt activates what is
# selected here (the global default), as current says, instead of leaving LD_LIBRARY_PATH without a tree.
mkdir -p env/conda-meta && "$CUDNNENV" export conda t9.1.0 --prefix "$WORK/env" > /dev/null 2>&1 || fail "export conda"
"$CUDNNENV" use t9.2.0 --global > /dev/null 2>&1
mkdir -p plain && cd plain
printf '%s\n' 'eval "$(cudnnenv init bash)"' \
  'for f in "'"$WORK"'"/env/etc/conda/activate.d/*.sh; do . "$f"; done' \
  'view; cudnnenv current | head -1' \
  'for f in "'"$WORK"'"/env/etc/conda/deactivate.d/*.sh; do . "$f"; done' \
  'view; cudnnenv current | head -1' | bash --norc --noprofile -i 2> /dev/null | grep -E '^(lib=|[0-9])' > ../conda.txt
cd "$WORK"
expect_eq "$(cat conda.txt)" "lib=[store/t9.1.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.1.0 ACTIVE=t9.1.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90100
9.1.0  t9.1.0  (set by the conda env's hook ('conda activate') in this shell)
lib=[store/t9.2.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.2.0 ACTIVE=t9.2.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90200
9.2.0  t9.2.0  (set by $CUDNNENV_STATE_DIR/config.toml, the global default)" "conda activate, then deactivate, in a shell with the integration"
pass "conda's hooks: the env's tree while active, named as the conda door; after deactivate the hook activates the default"

# A runtime named that is not installed is an error that names what is; a CUDA release given to --cuda
# names the runtime; --cuda of a release with no runtime installed says so.
cd "$WORK/plain"
expect_eq "$(cudnnenv current --cudnn t9.2.0 --runtime 12.9.0 2>&1)" "cudnnenv: error: no installed CUDA runtime tree is '12.9.0' (--runtime 12.9.0); installed: rt12.4 (CUDA 12.4.0), rt12.1 (CUDA 12.1.0)
  hint: install it: cudnnenv install cuda 12.9.0" "an absent runtime named"
expect_eq "$(cudnnenv current --cudnn t9.2.0 --cuda 12.1.0 2>&1 | sed -n 2p)" "CUDA 12.1.0  rt12.1  (chosen by --cuda 12.1.0)" "--cuda with a full release"
expect_eq "$(cudnnenv current --cudnn t9.2.0 --cuda 12.2 2>&1)" "cudnnenv: warning: no installed CUDA runtime tree is CUDA 12.2 (--cuda 12.2; installed: rt12.4 (CUDA 12.4.0), rt12.1 (CUDA 12.1.0)): programs find their CUDA libraries as they would without cudnnenv (hint: cudnnenv install cuda 12.2)
9.2.0  t9.2.0  (set by --cudnn)
NCCL 2.27.5  nccl-2.27.5  (chosen by the CUDA major of 't9.2.0')
TensorRT 10.13.3.9  tensorrt-10.13.3.9  (chosen by the CUDA major of 't9.2.0')" "--cuda with no runtime of that release"
pass "runtimes named: by --runtime, runtime =, a full release to --cuda; one missing is said"

# Two runtimes chosen two ways: a profile whose CUDA is the older runtime's (torch2.4-cu121: cuDNN 9.1, CUDA 12.1),
# activated; current, exec and a shim then use the runtime the activation put on the list, not the newest
# of the tree's major.
cd "$WORK/plain"
bash --norc --noprofile -c '
  eval "$(cudnnenv activate torch2.4-cu121 --shell bash 2> /dev/null)"
  view; cudnnenv exec -- view; "$SHIMS/view"; cudnnenv current 2> /dev/null' > ../profile-runtime.txt
cd "$WORK"
expect_eq "$(cat profile-runtime.txt)" "lib=[store/t9.1.0/lib rt12.1/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.1.0 ACTIVE=t9.1.0 RUNTIME=rt12.1 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90100
lib=[store/t9.1.0/lib rt12.1/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.1.0 ACTIVE=t9.1.0 RUNTIME=rt12.1 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90100
lib=[store/t9.1.0/lib rt12.1/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.1.0 ACTIVE=t9.1.0 RUNTIME=rt12.1 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90100
9.1.0  t9.1.0  (set by 'cudnnenv activate' in this shell)
CUDA 12.1.0  rt12.1  (chosen by the activation in this shell (CUDNNENV_CUDA_RUNTIME))
NCCL 2.27.5  nccl-2.27.5  (chosen by the activation in this shell (CUDNNENV_NCCL))
TensorRT 10.13.3.9  tensorrt-10.13.3.9  (chosen by the activation in this shell (CUDNNENV_TENSORRT))" "activate a profile of the older runtime"
pass "a profile activated with the older of two runtimes: the shell, exec, a shim and current all use that runtime"

# A runtime that comes or goes while a tree is active in an integrated shell reaches LD_LIBRARY_PATH at once
# (install, adopt and remove through the shell function run the hook again).
cd "$WORK/plain"
printf '%s\n' 'eval "$(cudnnenv init bash)"' 'view' "cudnnenv remove rt12.4 --yes > /dev/null 2>&1" 'view' \
  "cudnnenv adopt '$WORK/rt12.4/lib' --runtime --name rt12.4 > /dev/null" 'view' |
  bash --norc --noprofile -i 2> /dev/null | grep '^lib=' > ../runtime-change.txt
cd "$WORK"
expect_eq "$(cat runtime-change.txt)" "lib=[store/t9.2.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.2.0 ACTIVE=t9.2.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90200
lib=[store/t9.2.0/lib rt12.1/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.2.0 ACTIVE=t9.2.0 RUNTIME=rt12.1 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90200
lib=[store/t9.2.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.2.0 ACTIVE=t9.2.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90200" "remove and adopt a runtime while a tree is active"
pass "a runtime removed or adopted in an integrated shell: LD_LIBRARY_PATH follows at once"

# direnv (the README's recipe, through real direnv): the project's tree in the shell, named as direnv's; after
# an edit of .cudnnenv.toml the next prompt has the new tree (watch_file).
if command -v direnv > /dev/null; then
  export XDG_CONFIG_HOME="$WORK/xdg-config" XDG_DATA_HOME="$WORK/xdg-data" XDG_CACHE_HOME="$WORK/xdg-cache"
  mkdir -p direnvp && printf 'cudnn = "t9.1.0"\n' > direnvp/.cudnnenv.toml
  printf 'watch_file .cudnnenv.toml cudnnenv.lock\neval "$(cudnnenv activate --shell bash --by direnv)"\n' > direnvp/.envrc
  direnv allow direnvp
  printf '%s\n' 'eval "$(direnv hook bash)"' 'cd direnvp' 'view; cudnnenv current | head -1' \
    "sleep 1.1; printf 'cudnn = \"t9.2.0\"\\n' > .cudnnenv.toml" 'view; cudnnenv current | head -1' 'cd ..' 'view' |
    bash --norc --noprofile -i 2> /dev/null | grep -E '^(lib=|[0-9])' | sed '5 s/ loaded=.*//' > direnv.txt
  expect_eq "$(cat direnv.txt)" "lib=[store/t9.1.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.1.0 ACTIVE=t9.1.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90100
9.1.0  t9.1.0  (set by direnv (.envrc) in this shell)
lib=[store/t9.2.0/lib rt12.4/lib nccl2.27/lib store/tensorrt-10.13.3.9/lib] CUDNN_PATH=store/t9.2.0 ACTIVE=t9.2.0 RUNTIME=rt12.4 NCCL=nccl-2.27.5 TRT=tensorrt-10.13.3.9 FOO= TF= loaded=90200
9.2.0  t9.2.0  (set by direnv (.envrc) in this shell)
lib=[] CUDNN_PATH= ACTIVE= RUNTIME= NCCL= TRT= FOO= TF=" "direnv: in the project, after an edit, after leaving (what loads then is this machine's)"
  pass "direnv: the project's tree, named as direnv's; an edit of .cudnnenv.toml followed at the next prompt; leaving takes it out"
else
  echo "skip: direnv (not installed)"
fi
