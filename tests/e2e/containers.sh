#!/usr/bin/env bash
# Containers' door (issue 44), through real podman (Debian 12's 4.3, runc)
# and CDI: an image made here from a small glibc root file system (no
# registry) whose own library folder and LD_LIBRARY_PATH both hold decoys of
# libcudnn.so.9 and libcudart.so.12. `export cdi --all` writes a spec into
# /var/run/cdi; `podman run --device cudnnenv.dev/cudnn=t91` loads the tree
# (and its CUDA 12 runtime) past both decoys, the image's LD_LIBRARY_PATH
# still set; a profile's device brings its runtime; an unknown device is
# refused by podman. A tree installed again after the export: doctor's `cdi`
# check fails naming it, and its fix (export again) makes it pass.
# Skips (77) when not root, without podman or runc, or when a spec of this
# kind is already in /var/run/cdi (the test would replace it).
# Usage: containers.sh CUDNNENV FIXTURE_DIR
CUDNNENV=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skip: writes /var/run/cdi and runs podman as root"; exit 77; }
for program in podman runc cc; do
  command -v "$program" > /dev/null || { echo "skip: no $program (scripts/install-deps.sh installs podman and runc)"; exit 77; }
done
spec=/var/run/cdi/cudnnenv.dev-cudnn.json
[ ! -e "$spec" ] || { echo "skip: $spec is there already, and this test would replace it"; exit 77; }
SOURCES=$E2E_DIR/../fixtures
export CUDNNENV_ROOT="$WORK/store"
unset CUDNNENV_VERSION CUDNNENV_ACTIVATED CUDNNENV_ACTIVATED_BY CUDNNENV_SHELL CUDNNENV_CUDA_INDEX CUDNNENV_VERIFY LD_AUDIT

# podman's storage in a folder without spaces, gone with the test (as is the spec).
PD=$(mktemp -d /tmp/cudnnenv-podman.XXXXXX)
trap 'rc=$?; rm -f "$spec"; rm -rf "$PD"; (exit $rc); cleanup' EXIT
printf '[containers]\ndefault_ulimits = []\n' > "$PD/containers.conf"
export CONTAINERS_CONF=$PD/containers.conf
podman() {
  command podman --root "$PD/storage" --runroot "$PD/run" --storage-driver vfs --runtime runc \
    --cgroup-manager=cgroupfs "$@"
}

library() { cuda_stand_in "$@"; }  # a stand-in whose soname is FILE's name
make_linux_tree t 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
run install ./t --name t91 || fail "install: $(cat err)"
mkdir runtime
library runtime/libcudart.so.12 -DFAKE_CUDART=12040
run adopt runtime || fail "adopt: $(cat err)"
expect_eq "$(cat out)" "adopted 'cuda-12': CUDA 12 runtime, 1 library file stays in $WORK/runtime" "adopt the runtime"

# The image: the loader, libc, the program, and decoys where the image itself looks.
root=$WORK/rootfs
mkdir -p "$root"/{lib64,lib/x86_64-linux-gnu,usr/lib/x86_64-linux-gnu,decoy,bin}
cp /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
cp /lib/x86_64-linux-gnu/libc.so.6 "$root/lib/x86_64-linux-gnu/"
for folder in usr/lib/x86_64-linux-gnu decoy; do
  cp "$FIXTURES/fake-elf64-9.1.0.so" "$root/$folder/libcudnn.so.9"
  library "$root/$folder/libcudart.so.12" -DFAKE_CUDART=12000
done
cat > which_libraries.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
/* Each name given: the file it loaded from, found through one of its symbols. */
int main(int argc, char** argv) {
  static const char* symbols[] = {"cudnnGetVersion", "cudaRuntimeGetVersion"};
  for (int i = 1; i < argc; ++i) {
    void* handle = dlopen(argv[i], RTLD_NOW);
    void* symbol = NULL;
    for (int s = 0; handle && !symbol && s < 2; ++s) symbol = dlsym(handle, symbols[s]);
    Dl_info info;
    printf("%s: %s\n", argv[i], symbol && dladdr(symbol, &info) ? info.dli_fname : "not loaded");
  }
  const char* path = getenv("LD_LIBRARY_PATH");
  printf("LD_LIBRARY_PATH=%s\n", path ? path : "");
  return 0;
}
C
cc -o "$root/bin/which-libraries" which_libraries.c -ldl
tar -C "$root" -cf image.tar .
podman import --change "ENV LD_LIBRARY_PATH=/decoy" image.tar localhost/cudnnenv-test:1 > import.out 2>&1 ||
  fail "podman import: $(cat import.out)"
in_container() { podman run --rm --network none "$@" localhost/cudnnenv-test:1 /bin/which-libraries libcudnn.so.9 libcudart.so.12; }
expect_eq "$(in_container)" "libcudnn.so.9: /decoy/libcudnn.so.9
libcudart.so.12: /decoy/libcudart.so.12
LD_LIBRARY_PATH=/decoy" "the image alone: its decoys"
pass "an image from a glibc root file system, its decoys first on its LD_LIBRARY_PATH and in its library folder"

run export cdi --all -o /var/run/cdi || fail "export cdi: $(cat err)"
expect_eq "$(head -n 1 out)" "wrote $spec (CDI kind cudnnenv.dev/cudnn)" "export's first line"
grep -q "^devices: t91, .*torch2.4-cu121" out || fail "the devices: $(cat out)"
expect_eq "$(in_container --device cudnnenv.dev/cudnn=t91)" "libcudnn.so.9: /opt/cudnnenv/t91/lib/libcudnn.so.9
libcudart.so.12: /opt/cudnnenv/cuda-12/libcudart.so.12
LD_LIBRARY_PATH=/decoy" "--device cudnnenv.dev/cudnn=t91"
pass "podman run --device cudnnenv.dev/cudnn=t91: the tree and its CUDA 12 runtime past both decoys, the image's LD_LIBRARY_PATH kept"
expect_eq "$(in_container --device cudnnenv.dev/cudnn=torch2.4-cu121)" \
  "libcudnn.so.9: /opt/cudnnenv/t91/lib/libcudnn.so.9
libcudart.so.12: /opt/cudnnenv/cuda-12/libcudart.so.12
LD_LIBRARY_PATH=/decoy" "a profile's device"
pass "a profile's device (torch2.4-cu121) brings the tree and the runtime exec --cudnn torch2.4-cu121 pins"
if in_container --device cudnnenv.dev/cudnn=nosuch > out 2> err; then fail "an unknown device ran: $(cat out)"; fi
expect_eq "$(cat err)" "Error: setting up CDI devices: unresolvable CDI devices cudnnenv.dev/cudnn=nosuch" "podman's refusal"
pass "an unknown device is refused by podman"

check_cdi() {  # check_cdi FIELD: the doctor check's field
  "$CUDNNENV" doctor --json > doctor.json 2> /dev/null
  python3 -c 'import json, sys
c = [c for c in json.load(open("doctor.json"))["checks"] if c["id"] == "cdi"][0]
v = c[sys.argv[1]]
print("\n".join(v) if isinstance(v, list) else v)' "$1"
}
expect_eq "$(check_cdi status):$(check_cdi summary)" "ok:$(grep -c '"name"' "$spec") CDI devices of cudnnenv.dev/cudnn: each tree as exported" "doctor after the export"
exported=$(python3 -c 'import json, sys; print([e for e in json.load(open(sys.argv[1]))["devices"][0]["containerEdits"]["env"] if e.startswith("CUDNNENV_CDI_TREES=")][0])' "$spec")
sleep 1  # a new install time
run remove --yes t91 && run install ./t --name t91 || fail "install again: $(cat err)"
expect_eq "$(check_cdi status)" "fail" "doctor after t91 was installed again"
installed=$("$CUDNNENV" list --json | python3 -c 'import json, sys; print([t for t in json.load(sys.stdin) if t["name"] == "t91"][0]["installed_at"])')
then=${exported#*t91@}
then=${then%%,*}
expect_eq "$(check_cdi details | head -n 1)" "t91: the tree 't91' was installed again ($installed) after the export ($then)" "doctor's detail"
fix=$(check_cdi fix)
expect_eq "$fix" "cudnnenv export cdi --all -o /var/run/cdi" "doctor's fix"
run ${fix#cudnnenv } || fail "the fix: $(cat err)"
expect_eq "$(check_cdi status)" "ok" "doctor after the fix"
pass "a tree installed again after the export: doctor's cdi check fails naming it; its fix, run as printed, mends it"

# An adopted folder is mounted by its real path (adopted through a link here); replaced later by a link to
# another folder (as whoever owns it could point it at /root), doctor's cdi check says where it leads now.
make_linux_tree real91 9.1.0 "$FIXTURES/fake-elf64-9.1.0.so"
ln -s real91 alias91
run adopt "$WORK/alias91" --name moved
expect_eq "$rc" "0" "adopt through a link: $(cat err)"
run export cdi --all -o /var/run/cdi
expect_eq "$rc" "0" "export cdi --all with the adopted tree: $(cat err)"
expect_eq "$(python3 -c 'import json, sys
for d in json.load(open(sys.argv[1]))["devices"]:
    for m in d["containerEdits"]["mounts"]:
        if m["containerPath"] == "/opt/cudnnenv/moved": print(m["hostPath"]); sys.exit()' "$spec")" "$WORK/real91" \
  "the adopted tree's host path is its real path"
expect_eq "$(check_cdi status)" "ok" "doctor after the export"
mv real91 real91.old && mkdir elsewhere && ln -s "$WORK/elsewhere" real91
expect_eq "$(check_cdi status)" "fail" "doctor after the adopted folder became a link"
expect_eq "$(check_cdi details | grep "^moved: '$WORK/real91'" | head -n 1)" \
  "moved: '$WORK/real91' it mounts now leads to '$WORK/elsewhere'" "doctor names where the mount leads now"
pass "export cdi mounts an adopted tree by its real path; doctor's cdi check says when that path leads elsewhere"
