#!/usr/bin/env python3
"""Every ELF file below the given folders (an installed tree, an unpacked
wheel or tarball) starts on glibc FLOOR and later, as auditwheel's
manylinux_2_28 policy has it: it names only glibc's own libraries in
DT_NEEDED, and asks glibc for no symbol version above the floor, nor for a
libstdc++ or libgcc one (those are linked statically). Static programs name
nothing and pass. Prints each finding; exit 1 if any.

Usage: elf_floor.py [--floor 2.28] [--readelf READELF] PATH...
"""
import argparse
import os
import re
import subprocess
import sys

ALLOWED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "ld-linux-x86-64.so.2",
           "ld-linux-aarch64.so.1"}
NEEDED = re.compile(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]")
# A version needed, in readelf -V's .gnu.version_r: "  0x0010:   Name: GLIBC_2.34  Flags: none  Version: 3"
VERSION = re.compile(r"^\s*0x[0-9a-f]+:\s+Name: (\S+)\s+Flags")


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def version_key(text):
    return tuple(int(part) for part in text.split("."))


def findings(path, floor, readelf):
    dynamic = subprocess.run([readelf, "-d", "-W", path], capture_output=True, text=True, check=True).stdout
    versions = subprocess.run([readelf, "-V", "-W", path], capture_output=True, text=True, check=True).stdout
    found = []
    for library in NEEDED.findall(dynamic):
        if library not in ALLOWED:
            found.append(f"needs {library}, which is not glibc's (link it statically, or load it at run time)")
    needed_section = versions.split("Version needs section", 1)
    for line in (needed_section[1].splitlines() if len(needed_section) == 2 else []):
        match = VERSION.match(line)
        if not match:
            continue
        name = match.group(1)
        if name.startswith("GLIBC_") and name != "GLIBC_PRIVATE":
            if version_key(name[len("GLIBC_"):]) > version_key(floor):
                found.append(f"needs {name}, above the floor GLIBC_{floor}")
        elif name.startswith(("GLIBCXX_", "CXXABI_", "GCC_")) or name == "GLIBC_PRIVATE":
            found.append(f"needs {name}")
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--floor", default="2.28")
    parser.add_argument("--readelf", default="readelf")
    parser.add_argument("paths", nargs="+")
    arguments = parser.parse_args()
    bad = checked = 0
    for top in arguments.paths:
        files = [top] if os.path.isfile(top) else sorted(
            os.path.join(folder, name) for folder, _, names in os.walk(top) for name in names)
        for path in files:
            if os.path.islink(path) or not is_elf(path):
                continue
            checked += 1
            for finding in findings(path, arguments.floor, arguments.readelf):
                print(f"{path}: {finding}")
                bad += 1
    if checked == 0:
        print("no ELF file found below " + " ".join(arguments.paths))
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
