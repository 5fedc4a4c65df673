#!/usr/bin/env python3
"""Link stubs that bind a program to the glibc of an older release.

A program linked on this machine asks for the newest version of each glibc
symbol it uses (dlopen@GLIBC_2.34, __libc_start_main@GLIBC_2.34), so it does
not start where glibc is older. glibc keeps every older version of a symbol
it ever changed, so the same program can ask for the old one: link it against
stand-ins of libc.so.6, libm.so.6, libdl.so.2, libpthread.so.0 and the
dynamic loader that export each symbol at the newest version not above the
floor, and nothing newer (a symbol with no such version fails at link time,
where a polyfill in manager/util/glibc_floor.c belongs). The stand-ins are
never shipped: the program's DT_NEEDED names the real libraries' sonames.

glibc 2.34 moved libdl's and libpthread's symbols into libc.so.6, keeping the
old versions there as compatibility symbols; below 2.34 they live in
libdl.so.2 and libpthread.so.0, which is where the stand-ins put them, so the
program names both libraries and finds each symbol on an old glibc too.

Usage: glibc_floor.py READELF CC FLOOR OUTPUT_DIR LIBRARY...
  LIBRARY: the real libc.so.6, libm.so.6, ld-linux-*.so.*, as the
  toolchain finds them (CC -print-file-name=libc.so.6).
Writes OUTPUT_DIR/libc.so (a linker script naming the stand-ins, found before
the real one through -L), the stand-ins and their version scripts.
"""
import os
import re
import subprocess
import sys

# 2.28's libraries, by what moved into libc.so.6 in 2.34: the dl* functions
# were libdl's, the threads' functions libpthread's.
MOVED_TO_LIBDL = re.compile(r"^(dladdr1?|dlclose|dlerror|dlinfo|dlmopen|dlopen|dlsym|dlvsym)$")
MOVED_TO_LIBPTHREAD = re.compile(r"^(__)?(pthread_|sem_|thrd_|mtx_|cnd_|tss_|call_once$)")

SYMBOL = re.compile(
    r"^\s*\d+:\s+[0-9a-f]+\s+(\d+|0x[0-9a-f]+)\s+(FUNC|IFUNC|OBJECT|TLS|NOTYPE)\s+(GLOBAL|WEAK)\s+\S+\s+(\d+|UND|ABS)\s+"
    r"([^@\s]+)@(@?)(GLIBC_[0-9.]+)\s*$")


def version_key(version):
    return tuple(int(part) for part in version[len("GLIBC_"):].split("."))


def read_symbols(readelf, library):
    """{name: {version: (kind, size)}} of what the library defines."""
    out = subprocess.run([readelf, "--dyn-syms", "-W", library], check=True, capture_output=True,
                         text=True).stdout
    symbols = {}
    for line in out.splitlines():
        match = SYMBOL.match(line)
        if not match or match.group(4) in ("UND", "ABS"):
            continue
        size, kind, _, _, name, _, version = match.groups()
        symbols.setdefault(name, {})[version] = (kind, int(size, 0))
    return symbols


def stub_assembly(entries):
    lines = []
    for name, kind, size in entries:
        if kind in ("FUNC", "IFUNC", "NOTYPE"):
            lines += [".text", f".globl {name}", f".type {name}, %function", f"{name}:", "ret"]
        elif kind == "TLS":
            lines += [".section .tbss,\"awT\",%nobits", f".globl {name}", f".type {name}, %tls_object",
                      f".size {name}, {size}", f"{name}:", f".zero {max(size, 1)}"]
        else:
            lines += [".data", f".globl {name}", f".type {name}, %object", f".size {name}, {size}", f"{name}:",
                      f".zero {max(size, 1)}"]
    lines.append('.section .note.GNU-stack,"",%progbits')
    return "\n".join(lines) + "\n"


def version_script(by_version):
    nodes = []
    parent = None
    for version in sorted(by_version, key=version_key):
        names = "".join(f"  {name};\n" for name in sorted(by_version[version]))
        local = "" if parent else " local: *;\n"
        nodes.append(f"{version} {{\n global:\n{names}{local}}}" + (f" {parent};\n" if parent else ";\n"))
        parent = version
    return "".join(nodes)


def main():
    readelf, cc, floor, output = sys.argv[1:5]
    libraries = sys.argv[5:]
    floor_key = version_key("GLIBC_" + floor)
    os.makedirs(output, exist_ok=True)
    stubs = {}  # soname -> [(name, kind, size, version)]
    loader = None
    for library in libraries:
        soname = os.path.basename(library)
        if soname.startswith("ld-linux"):
            loader = soname
        for name, versions in read_symbols(readelf, library).items():
            allowed = [v for v in versions if version_key(v) <= floor_key]
            if not allowed:
                continue
            version = max(allowed, key=version_key)
            kind, size = versions[version]
            target = soname
            if soname == "libc.so.6":
                newest = max(versions, key=version_key)
                if version_key(newest) >= (2, 34) and version != newest:
                    if MOVED_TO_LIBDL.match(name):
                        target = "libdl.so.2"
                    elif MOVED_TO_LIBPTHREAD.match(name):
                        target = "libpthread.so.0"
            stubs.setdefault(target, []).append((name, kind, size, version))
    for soname in ("libdl.so.2", "libpthread.so.0"):
        stubs.setdefault(soname, [])
    for soname, entries in sorted(stubs.items()):
        entries.sort()
        base = os.path.join(output, soname)
        with open(base + ".s", "w") as f:
            f.write(stub_assembly([(n, k, s) for n, k, s, _ in entries]))
        by_version = {}
        for name, _, _, version in entries:
            by_version.setdefault(version, []).append(name)
        if not by_version:
            by_version["GLIBC_2.2.5" if "x86_64" in (loader or "") else "GLIBC_2.17"] = []
        with open(base + ".map", "w") as f:
            f.write(version_script(by_version))
        subprocess.run([cc, "-shared", "-nostdlib", "-o", base, "-Wl,-soname," + soname,
                        "-Wl,--version-script=" + base + ".map", base + ".s"], check=True)
    # What -lc, -lm, -ldl and -lpthread find before the real ones (quoted: a build folder's name may hold spaces).
    nonshared = subprocess.run([cc, "-print-file-name=libc_nonshared.a"], check=True, capture_output=True,
                               text=True).stdout.strip()
    with open(os.path.join(output, "libc.so"), "w") as f:
        # libdl's and libpthread's symbols where -lc finds them, as from 2.34 on; named as needed.
        f.write(f'GROUP ( "{output}/libc.so.6" "{nonshared}" AS_NEEDED ( "{output}/libdl.so.2" '
                f'"{output}/libpthread.so.0" "{output}/{loader}" ) )\n')
    for name, soname in (("libm.so", "libm.so.6"), ("libdl.so", "libdl.so.2"), ("libpthread.so", "libpthread.so.0")):
        with open(os.path.join(output, name), "w") as f:
            f.write(f'GROUP ( "{output}/{soname}" )\n')
    return 0


if __name__ == "__main__":
    sys.exit(main())
