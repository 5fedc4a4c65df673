#!/usr/bin/env bash
# Containers' door (issue 44), through real podman (Debian 12's 4.3, runc)
# and CDI: an image made here from a small glibc root file system (no
# registry) whose own library folder and LD_LIBRARY_PATH both hold decoys of
# libcudnn.so.9 and libcudart.so.12. `export cdi --all` writes a spec into
# /var/run/cdi; `podman run --device cudnnenv.dev/cudnn=t91` loads the tree
# (and its CUDA 12 runtime) past both decoys, the image's LD_LIBRARY_PATH
# still set; a profile's device brings its runtime; an unknown device is
# refused by podman. `remove` of an exported tree writes the spec again
# without the devices that mounted it (podman then calls them unknown, not a
# mount error); `install` of the name writes a stale spec again with the new
# tree; a user who cannot write the spec is warned with root's command, which
# mends it. A tree installed again after the export: doctor's `cdi` check
# fails naming it, and its fix (export again) makes it pass.
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
cp "$spec" spec.before
devices=$(python3 -c 'import json, sys; print(" ".join(d["name"] for d in json.load(open(sys.argv[1]))["devices"]))' "$spec")

# remove writes the spec again as its devices resolve now (nvidia-cdi-refresh's way): every device that
# mounted t91 (t91 itself, the profile that pinned it) leaves it; podman then says the device is unknown,
# never runc's mount error of a folder that is gone; with no device left the spec goes.
run remove --yes t91
expect_eq "$rc:$(cat out)" "0:removed 't91'
removed $spec (no device of it is left)" "remove of the exported tree"
expect_eq "$(cat err)" "cudnnenv: note: the CDI devices ${devices// /, } mounted 't91', which is gone: dropped from $spec" "remove's note"
if in_container --device cudnnenv.dev/cudnn=t91 > out 2> err; then fail "a removed device ran: $(cat out)"; fi
expect_eq "$(cat err)" "Error: setting up CDI devices: unresolvable CDI devices cudnnenv.dev/cudnn=t91" "podman after the remove"
pass "remove of a tree a CDI spec mounts writes the spec again without its devices (here none is left: the spec goes)"

# A spec that still mounts t91's folder (written before a remove that could not refresh it): the next
# install of t91 writes it again with the new tree, and podman mounts it.
sleep 1  # a new install time
cp spec.before "$spec"
run install ./t --name t91
expect_eq "$rc:$(tail -n 1 out)" "0:wrote $spec (CDI kind cudnnenv.dev/cudnn)" "install writes the stale spec again: $(cat err)"
expect_eq "$(check_cdi status)" "ok" "doctor after install refreshed the spec"
expect_eq "$(in_container --device cudnnenv.dev/cudnn=t91)" "libcudnn.so.9: /opt/cudnnenv/t91/lib/libcudnn.so.9
libcudart.so.12: /opt/cudnnenv/cuda-12/libcudart.so.12
LD_LIBRARY_PATH=/decoy" "--device t91 after the install"
pass "install of a tree a stale spec mounts writes the spec again with it: podman mounts the new tree"

# The spec from before, put back by hand: doctor names the tree installed again, and its fix mends it.
cp spec.before "$spec"
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

# A user's remove of a tree root's spec mounts (beside root's own devices): the user cannot write
# /var/run/cdi, so the spec stays as it was, with a warning naming what fails now and the command, for
# root, that writes it again; root's devices are never dropped for not resolving in the user's store.
rm -rf real91 && mv real91.old real91
run export cdi --all -o /var/run/cdi || fail "export cdi: $(cat err)"
home=$(mktemp -d /tmp/cudnnenv-user.XXXXXX)
cp -r t "$home/t" && chown -R 65534:65534 "$home" && chmod 755 "$home"
as_user() {
  (cd "$home" && setpriv --reuid=65534 --regid=65534 --clear-groups env -u CUDNNENV_STATE_DIR HOME="$home" \
    CUDNNENV_ROOT="$home/store" "$CUDNNENV" "$@") > out 2> err && rc=0 || rc=$?
}
as_user install "$home/t" --name u91
expect_eq "$rc" "0" "the user's install: $(cat err)"
as_user export cdi u91 -o /var/run/cdi
expect_eq "$rc:$(cat err)" "1:cudnnenv: error: cannot write '$spec': its folder '/var/run/cdi' cannot be written (Permission denied); it was left as it was
  hint: as root (sudo cudnnenv export cdi ...), or give -o a folder you can write that the engine reads (podman: cdi_spec_dirs in containers.conf)" "a user's export cdi"
python3 - "$spec" "$WORK/store/t91" "$home/store/u91" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
device = json.loads(json.dumps([d for d in spec["devices"] if d["name"] == "t91"][0]).replace(sys.argv[2], sys.argv[3]))
device["name"] = "u91"
spec["devices"].append(device)
json.dump(spec, open(sys.argv[1], "w"), indent=2)
PY
cp "$spec" spec.user
as_user remove --yes u91
expect_eq "$rc:$(cat out)" "0:removed 'u91'" "the user's remove"
expect_eq "$(cat err)" "cudnnenv: warning: the CDI spec '$spec' still mounts 'u91' as exported before: until it is written again, 'podman run --device cudnnenv.dev/cudnn=u91' fails to mount it; cannot write '$spec': its folder '/var/run/cdi' cannot be written (Permission denied); it was left as it was; as root: cudnnenv export cdi $(python3 -c 'import json, sys; print(" ".join(d["name"] for d in json.load(open(sys.argv[1]))["devices"] if d["name"] != "u91"))' spec.user) -o /var/run/cdi" "the user's warning"
cmp -s "$spec" spec.user || fail "the spec changed under a user who cannot write it"
warned=$(cat err)
command=${warned##*as root: }
"$CUDNNENV" ${command#cudnnenv } > out 2> err || fail "the warning's command as root: $(cat err)"
expect_eq "$(grep -c '"name": "u91"' "$spec"):$(grep -c '"name": "t91"' "$spec")" "0:1" "after root ran the command"
expect_eq "$(in_container --device cudnnenv.dev/cudnn=t91)" "libcudnn.so.9: /opt/cudnnenv/t91/lib/libcudnn.so.9
libcudart.so.12: /opt/cudnnenv/cuda-12/libcudart.so.12
LD_LIBRARY_PATH=/decoy" "--device t91 after root wrote the spec again"
rm -rf "$home"
pass "a user's remove of a tree root's spec mounts: the spec stays, a warning names what fails and root's command, which mends it"
