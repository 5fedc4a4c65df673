#!/usr/bin/env bash
# Seed corpus for the fuzz targets, made from scratch: small valid inputs of
# each format and the security issue's crafted files (tests/crafted).
# Usage: make_corpus.sh OUTDIR [FIXTURES]   (FIXTURES: build/release/fixtures, optional)
set -euo pipefail
mkdir -p "$1"
out=$(cd "$1" && pwd)
fixtures=${2:+$(cd "$2" && pwd)}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in zip tar binfmt version toml spec sidecar cmd_script download modulefile doctor snapshot redist kernelspec why lock mirror slurm cdi frameworks complete audit; do mkdir -p "$out/$target"; done

# A small tree: headers, a library stand-in, a link.
tree=$work/tree
mkdir -p "$tree/include" "$tree/lib"
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n' > "$tree/include/cudnn_version.h"
printf '\177ELF\2\1\1' > "$tree/lib/libcudnn.so.9.1.0"
ln -s libcudnn.so.9.1.0 "$tree/lib/libcudnn.so.9"

# zip: stored, deflated, with a Unix link, zip64, and the crafted ones.
(cd "$work" && zip -qry "$out/zip/tree.zip" tree && zip -q0ry "$out/zip/stored.zip" tree &&
  zip -qry -fz "$out/zip/zip64.zip" tree)
python3 "$here/../crafted/make_crafted.py" "$work/crafted"
for name in zip64-wrap.zip zip64-wrap-3g.zip overlap.zip escape.zip control.zip; do cp "$work/crafted/$name" "$out/zip/"; done

# tar: plain, gzip, xz, './' entries, a hard link, a sparse file.
ln "$tree/include/cudnn_version.h" "$tree/include/hard.h"
truncate -s 64K "$tree/lib/sparse.bin"
printf 'x' | dd of="$tree/lib/sparse.bin" bs=1 seek=32768 conv=notrunc status=none
tar -C "$work" -cf "$out/tar/tree.tar" tree
tar -C "$work" -czf "$out/tar/tree.tar.gz" tree
tar -C "$work" -cJf "$out/tar/tree.tar.xz" tree
tar -C "$tree" -cf "$out/tar/dot.tar" .
tar -C "$work" -S -cf "$out/tar/sparse.tar" tree/lib/sparse.bin
tar -C "$work" --format=pax -S -cf "$out/tar/sparse-pax.tar" tree/lib/sparse.bin

# binfmt: the fixtures' fake ELF and PE libraries, a real program, the crafted MZ.
cp "$work/crafted/mz-lfanew.dll" "$out/binfmt/"
cp /bin/true "$out/binfmt/true"
if [ -n "$fixtures" ]; then
  for f in "$fixtures"/fake-elf64-9.1.0.so "$fixtures"/fake-pe64-8.1.0.dll "$fixtures"/fake-pe32-8.1.0.dll \
           "$fixtures"/fake-elf32-*.so; do
    [ -f "$f" ] && cp "$f" "$out/binfmt/"
  done
fi

# version: headers of 7.x, 8.x, 9.x, a cut one; version strings.
cp "$tree/include/cudnn_version.h" "$out/version/cudnn_version.h"
printf '#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n#define CUDNN_VERSION (CUDNN_MAJOR * 1000)\n' > "$out/version/cudnn7.h"
printf '#define CUDNN_MAJOR ' > "$out/version/cut.h"
printf '8.1.0.77' > "$out/version/dotted"
printf '12.4' > "$out/version/cuda"

# toml: project files, a config with profiles, a tree record, an activation state.
printf 'cudnn = "8.1"\ncuda = "11.2"\n[env]\nTF_CPP_MIN_LOG_LEVEL = "2"\n[verify]\non_launch = "load"\n' > "$out/toml/project.toml"
printf 'profile = "tf2.5"\npath = "../vendor"\n' > "$out/toml/profile.toml"
printf 'cudnn = "t91"\n[env]\n"X;touch PWNED;#" = "1"\n' > "$out/toml/hostile-key.toml"
# A table header and a dotted key of 20,000 parts (toml++ recursed once per part: #28), and a BOM.
python3 -c 'import sys; sys.stdout.write("cudnn = \"9\"\n[" + ".".join(["a"] * 20000) + "]\n" + ".".join(["b"] * 20000) + " = 1\n")' \
  > "$out/toml/deep-key.toml"
printf '\357\273\277cudnn = "9.19"\r\n' > "$out/toml/bom.toml"
printf 'default = "9.1"\n[profiles.mine]\ncudnn = "9.1"\ncuda = "12.4"\nplatforms = ["linux"]\n[profiles.mine.env]\nA = "1"\n' > "$out/toml/config.toml"
printf '1;PLD_LIBRARY_PATH=/s/t/lib;SCUDNN_PATH=old%%3Bvalue;UCUDNNENV_ACTIVE' > "$out/toml/state"
cat > "$out/toml/tree.toml" <<'TOML'
name = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive"
version = "9.1.0.70"
version_from = "header"
cuda = "12"
cuda_from = "name"
os = "linux"
arch = "x86_64"
library_dir = "lib"
main_library = "libcudnn.so.9"
include_dir = "include"
installed_at = "2026-12-01T00:00:00Z"
[source]
kind = "tar"
path = "/tmp/x.tar.xz"
sha256 = "00"
[[files]]
path = "lib/libcudnn.so.9.1.0"
size = 7
sha256 = "00"
TOML

# cmd_script: NAME=VALUE lines, the sources, an empty line, the operations.
printf '_CUDNNENV_ROOT=Z:\\libs \xc3\xa9\nPATH=C:\\bin \xe4\xb8\xad;C:\\W\n\nPATH=Z:\\libs \xc3\xa9\\t\\bin;C:\\bin \xe4\xb8\xad;C:\\W\nCUDNN_PATH=Z:\\libs \xc3\xa9\\t\n' > "$out/cmd_script/activate"
printf 'PATH=a!b;\xf0\x9f\x98\x80 x;100%%\n\nPATH=\xf0\x9f\x98\x80 x;100%%\nX=a!b\n' > "$out/cmd_script/bang"
# spec: the spec on the first line, --cuda after it.
printf '8.1' > "$out/spec/minor"
printf '8.9.7.29+cuda11.8' > "$out/spec/qualified"
printf '8.9\n12' > "$out/spec/flag"
printf 'torch-9.19' > "$out/spec/name"
printf '9+cuda' > "$out/spec/bad"

# sidecar: a shim's NAME.shim, and a cached launch decision.
printf 'cudnnenv = /opt/cudnnenv/bin/cudnnenv\nroot = /home/me/.local/share/cudnnenv\naudit = /opt/cudnnenv/bin/libcudnnenv-audit.so\npath = /usr/bin/python3\nargs = -X utf8\n' > "$out/sidecar/python.shim"
printf '# comment\ncudnnenv = /c\nroot = /r\nlibrary_dir = /store/tree/lib\nunknown = x\n' > "$out/sidecar/unknown.shim"
printf 'key = k\nlibrary_dir = /store/tree/lib\nfolder = /store/tree/lib\nidentity = 1:2\n' > "$out/sidecar/decision"
printf 'key = k\nlibrary_dir = /store/tree/lib\nfolder = /store/tree/lib\nfolder = /store/rt/lib\nprogram = C:\\py\\python.exe\nidentity = 1:2|3:4|5:6\nchange = +LD_LIBRARY_PATH=/store/tree/lib\nchange = =FOO=a = b\nchange = -CUDNNENV_RUNTIME_DIR\n' > "$out/sidecar/decision-changes"
printf 'cudnnenv = /c\nroot = /r\npath = /usr/bin/python3\ncudnn = tf2.18\nruntime = cuda-12.4.1\n' > "$out/sidecar/launcher-runtime.shim"
printf 'cudnnenv = /c\nroot = /r\nruntime = rt\n' > "$out/sidecar/runtime-alone.shim"

# download: a mirror line, then an archive list; the helper's lines.
printf 'http://127.0.0.1:8000/m\ncudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\n9.1.0.70\tlinux-x86_64\tcuda12\ta.tar.xz\t%s\t42\thttps://developer.download.nvidia.com/compute/a.tar.xz\n' \
  "$(printf '%064d' 0 | tr 0 a)" > "$out/download/list"
printf 'cudnnenv-fetch status=206 offset=100 length=900\n' > "$out/download/start"
printf 'failure=http status=404 url=http://x/y detail=The requested URL returned error: 404\n' > "$out/download/outcome"
# modulefile: a value (a store path) to quote for Lua and Tcl.
printf '/opt/store "q" $x [y] {z} \xc3\xa9; \xf0\x9f\x98\x80\n\\' > "$out/modulefile/path"
printf '/opt/\xff\xfe bad utf-8' > "$out/modulefile/bytes"
# doctor: /proc's driver line, the probe's GPU list, TensorFlow's and PyTorch's Python files.
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build\n' > "$out/doctor/proc"
printf 'driver_version=580.159.04\ndriver_cuda=13.0\ndevice=0 9.0 NVIDIA H200\n' > "$out/doctor/gpus"
printf 'driver_cuda=13.0\ncudnn_load_ms=80.1\ndevice_begin=0\ngpu=NVIDIA H200\nconv_result=pass\ndevice_begin=1\ngpu_busy=GPU 1 is busy\n' > "$out/doctor/devices"
printf '0,2,5' > "$out/doctor/device_list"
printf "build_info = {'cuda_version': '11.2', 'cudnn_version': '8'}\n" > "$out/doctor/build_info"
printf "__all__ = ['__version__']\n__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n580.65.06|580.159.04" > "$out/doctor/version"
# snapshot: two snapshots, split at a NUL.
printf '{"format": 1, "taken_at": "x", "selection": {"version": "9.4.0"}, "copies": [{"library": "/a", "size": 1}], "checks": [{"id": "driver", "status": "ok"}], "e": []}\0{"format": 1, "selection": {"version": "9.1.0"}, "copies": [{"library": "/b"}], "checks": [{"id": "driver", "status": "fail"}]}' > "$out/snapshot/two"
# and a node's facts, as --facts reads them.
cp "$here/../nodes/old-driver.json" "$out/snapshot/node.json"

# redist: a manifest in NVIDIA's shape (the Windows entry is 11.8.0's cuda_cudart as the facts file gives it;
# the Linux one is invented), one with
# cuDNN's nesting, and a bad relative_path.
cat > "$out/redist/cuda.json" <<'JSON'
{"release_date": "2022-10-03", "cuda_cudart": {"name": "CUDA Runtime (cudart)", "license": "CUDA Toolkit",
 "version": "11.8.89", "windows-x86_64": {"relative_path":
 "cuda_cudart/windows-x86_64/cuda_cudart-windows-x86_64-11.8.89-archive.zip",
 "sha256": "988cc9e7d3785d4b1975521f312c57c6814cbf15e73a2b7941d961835f2a945e", "md5": "0", "size": "2987306"},
 "linux-x86_64": {"relative_path": "cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-11.8.89-archive.tar.xz",
 "sha256": "1111111111111111111111111111111111111111111111111111111111111111", "md5": "0", "size": 913876}}}
JSON
cat > "$out/redist/cudnn-nested.json" <<'JSON'
{"release_label": "9.1.1", "cudnn": {"name": "cuDNN", "version": "9.1.1.17", "cuda_variant": ["11", "12"],
 "linux-x86_64": {"cuda12": {"relative_path": "cudnn/linux-x86_64/x.tar.xz", "sha256": "00", "size": "1"}}}}
JSON
sed 's|cuda_cudart/linux-x86_64/|../../|' "$out/redist/cuda.json" > "$out/redist/dotdot.json"

# kernelspec: VS Code settings as VS Code writes them, one with a comment, and a kernel.json of cudnnenv's.
printf '{\n    "editor.fontSize": 14,\n    "terminal.integrated.env.linux": {\n        "FOO": "bar"\n    }\n}\n' \
  > "$out/kernelspec/settings.json"
printf '{\n    // a comment\n    "editor.fontSize": 14,\n}\n' > "$out/kernelspec/comments.json"
printf '{"argv": ["/c", "exec", "--cudnn", "t"], "display_name": "x", "metadata": {"cudnnenv": {"tree": "t"}}}\n' \
  > "$out/kernelspec/kernel.json"
# ... and names and paths: a terminal's script under a hostile store, a '%', a quote.
printf 'C:\\libs & \xe5\xba\x93\\.cudnnenv\\terminals\\t (1)\\activate.bat' > "$out/kernelspec/terminal-path"
printf 'tree 100%%' > "$out/kernelspec/percent-name"
printf "q'uote \"x\" \xe2\x80\xae" > "$out/kernelspec/quote-name"
# Inputs that were slow (issue 39, item 4): many keys in one JSON object, a repeated one among them
# (snapshot, manifest, VS Code settings), and a build_info.py of many keys without a value.
many_keys() { python3 -c 'import sys; n = int(sys.argv[1]); print("{" + ", ".join("\"k%d\": %d" % (i, i) for i in range(n)) + ", \"k7\": \"again\"}")' "$1"; }
{ printf '{"format": 1, "facts": '; many_keys 5000; printf '}'; } > "$out/snapshot/many-keys"
{ printf '{"release_label": "13.0.2", "x": '; many_keys 5000; printf '}'; } > "$out/redist/many-keys.json"
many_keys 5000 > "$out/kernelspec/many-keys.json"
{ for _ in $(seq 2000); do printf 'cuda_version_number='; done; printf " '12.2'\n"; } > "$out/doctor/many-keys"

# audit: names ld.so searches for: cuDNN's, the runtime's of CUDA 13 and 12, others, a path.
for name in libcudnn.so.9 libcudnn_ops.so.9.19.0 libcublasLt.so.13 libcufft.so.12 libcurand.so.10 libcudart.so.12 \
  libnvrtc-builtins.so.13.0 libcupti.so.13 libc.so.6 /venv/nvidia/cu13/lib/libcublas.so.13; do
  printf '%s' "$name" > "$out/audit/$(printf '%s' "$name" | tr / _)"
done

# why: the audit log of a program whose libcusolver needs a libnvJitLink that is nowhere.
printf '41\tO\t/usr/lib/libc.so.6\n41\tS\tlibcusolver.so.11\t\n41\tT\tpin\t/s/cuda-12/lib/libcusolver.so.11\n41\tO\t/s/cuda-12/lib/libcusolver.so.11\n41\tS\tlibnvJitLink.so.12\t/s/cuda-12/lib/libcusolver.so.11\n41\tT\tdefault\t/usr/lib/libnvJitLink.so.12\n41\tS\tlibcudnn_graph.so.9.19.0\t/s/t/lib/libcudnn.so.9\n' > "$out/why/audit.log"

# lock: a lock for two platforms, one with a profile, and one whose file name is a path.
printf '# generated\nformat = 1\n\n[input]\ncudnn = "9.1"\ncuda = "12"\nplatforms = ["linux-x86_64", "windows-x86_64"]\n\n[[cudnn]]\nplatform = "linux-x86_64"\nversion = "9.1.0.70"\ncuda = "cuda12"\nfile = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"\nurl = "https://developer.download.nvidia.com/compute/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"\nsize = 760000000\nsha256 = "%064d"\n\n[[cudnn]]\nplatform = "windows-x86_64"\nversion = "9.1.0.70"\ncuda = "cuda12"\nfile = "cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip"\nurl = "https://x/y.zip"\nsha256 = "%064d"\n' 1 2 > "$out/lock/two.lock"
printf 'format = 1\n[input]\nprofile = "tf2.5"\nplatforms = ["windows-x86_64"]\n\n[[runtime]]\nplatform = "windows-x86_64"\nrelease = "11.8.0"\nmanifest = "https://developer.download.nvidia.com/compute/cuda/redist/redistrib_11.8.0.json"\nmanifest_sha256 = "%064d"\n\n[[runtime.component]]\nname = "cuda_cudart"\nversion = "11.8.89"\npath = "cuda_cudart/windows-x86_64/cuda_cudart-windows-x86_64-11.8.89-archive.zip"\nsize = 2900\nsha256 = "%064d"\n' 3 4 > "$out/lock/profile.lock"
printf 'format = 1\n[input]\ncudnn = "9"\nnccl = "2.28"\ntensorrt = "10"\nplatforms = ["linux-x86_64"]\n\n[[nccl]]\nplatform = "linux-x86_64"\nrelease = "2.28.3"\ncuda = "13.0"\nfile = "nccl_2.28.3-1+cuda13.0_x86_64.txz"\nurl = "https://developer.download.nvidia.com/compute/redist/nccl/v2.28.3/nccl_2.28.3-1+cuda13.0_x86_64.txz"\nsize = 1000\nsha256 = "%064d"\n\n[[tensorrt]]\nplatform = "linux-x86_64"\nrelease = "10.13.0.35"\nfile = "TensorRT-10.13.0.35.Linux.x86_64-gnu.cuda-13.0.tar.gz"\nsha256 = "%064d"\n' 5 6 > "$out/lock/components.lock"
printf 'format = 66666666666.666666666666666666666666E66\n' > "$out/lock/float.lock"  # once a float-to-integer overflow
printf 'format = 1\n[input]\nplatforms = ["linux-x86_64"]\n[[cudnn]]\nplatform = "linux-x86_64"\nversion = "9.1.0.70"\ncuda = "cuda12"\nfile = "../../etc/passwd"\nurl = "file:///etc/passwd"\nsha256 = "x"\n' > "$out/lock/hostile.lock"

# mirror: an index of a cuDNN archive and a CUDA manifest, and one naming a path out of the mirror.
printf '{"format": 1, "written_by": "cudnnenv mirror create", "files": [{"path": "compute/cudnn/redist/cudnn/linux-x86_64/a.tar.xz", "size": 123, "sha256": "%064d", "what": "cuDNN 9.1.0.70 (cuda12) for linux-x86_64", "platform": "linux-x86_64"}, {"path": "compute/cuda/redist/redistrib_13.0.2.json", "size": 60000, "sha256": "%064d", "what": "the manifest of CUDA 13.0.2", "cuda_release": "13.0.2"}]}\n' 1 2 > "$out/mirror/index.json"
printf '{"format": 1, "files": [{"path": "../../etc/passwd", "size": 1, "sha256": "%064d"}]}\n' 3 > "$out/mirror/hostile.json"
# slurm: a task's environment, then the pin's changes (one with a line break, one name with a space).
printf 'LD_LIBRARY_PATH=/opt/x\nCUDNNENV_RUNTIME_DIR=/old\n\n+LD_LIBRARY_PATH=/s/t/lib\nCUDNNENV_PIN_DIR=/s/t/lib\n-CUDNNENV_RUNTIME_DIR\n+LD_AUDIT=/usr/lib/cudnnenv/libcudnnenv-audit.so\n' > "$out/slurm/task.txt"
printf 'A=1\n\nB=x\ry\nC D=1\n' > "$out/slurm/refused.txt"
# cdi: a spec of cudnnenv's kind as export writes it, and another vendor's.
printf '{"cdiVersion": "0.5.0", "kind": "cudnnenv.dev/cudnn", "devices": [{"name": "t91", "containerEdits": {"env": ["CUDNNENV_PIN_DIR=/opt/cudnnenv/t91/lib", "CUDNNENV_CDI_TREES=t91@2026-12-06T07:21:36Z,cuda-12@2026-12-06T07:21:37Z"], "mounts": [{"hostPath": "/s/t91", "containerPath": "/opt/cudnnenv/t91", "options": ["ro", "bind"]}]}}]}\n' > "$out/cdi/ours.json"
# One whose first device mounts the tree fuzz_cdi's refresh removes (/cdi-tree), beside another's device.
printf '{"cdiVersion": "0.5.0", "kind": "cudnnenv.dev/cudnn", "devices": [{"name": "t", "containerEdits": {"mounts": [{"hostPath": "/cdi-tree", "containerPath": "/opt/cudnnenv/t", "options": ["ro", "bind"]}]}}, {"name": "u", "containerEdits": {"mounts": [{"hostPath": "/s/u", "containerPath": "/opt/cudnnenv/u"}]}}]}\n' > "$out/cdi/refresh.json"
printf '{"cdiVersion": "0.5.0", "kind": "nvidia.com/gpu", "devices": [{"name": "0", "containerEdits": {"deviceNodes": [{"path": "/dev/nvidia0"}]}}]}\n' > "$out/cdi/nvidia.json"

# frameworks: a probe's answer after a framework's own output, one for a CPU build, and a METADATA.
printf 'W0000 00:00 warning\n\ncudnnenv-probe: {"version": "0.6.2", "cuda": "12.8", "source": "jax._src.lib.cuda_versions.cudnn_build_version()", "cudnn_build": "9.8.0", "cudnn_loaded": "9.4.0", "load_error": "x"}\n' > "$out/frameworks/jax.txt"
printf '\ncudnnenv-probe: {"version": "2.5.1+cpu", "cudnn_build": null, "rule": "same-minor", "checked_at_load": false}\n' > "$out/frameworks/cpu.txt"
printf 'Metadata-Version: 2.1\nName: jax-cuda12-plugin\nRequires-Dist: nvidia-cudnn-cu12 (<10.0,>=9.8) ; extra == "with-cuda"\n' > "$out/frameworks/METADATA"
# complete: half-typed command lines (the word being completed, then the words before it; NUL between).
printf 'u' > "$out/complete/subcommand"
printf '\0use' > "$out/complete/use"
printf '9.1\0install' > "$out/complete/install"
printf 'py\0exec\0--cudnn\0t\0--' > "$out/complete/exec"
printf '\0exec\0--cuda' > "$out/complete/cuda"
printf '\0shim\0remove' > "$out/complete/shim"
printf -- '--r\0--root\0/nonexistent\0remove' > "$out/complete/root"
echo "seed corpus in $out: $(find "$out" -type f | wc -l) files"
