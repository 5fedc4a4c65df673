#!/usr/bin/env python3
"""The repository's top level holds only what belongs there: every entry git
tracks or would track (untracked and not ignored) is in ALLOWED. A file
that a hand run or a test left in the root (an index.tsv, a progs/ folder)
is named; exit 1 if any. Without git (a folder given as the argument), the
folder's own entries are checked.

Usage: top_level.py [FOLDER]
"""
import os
import subprocess
import sys

ALLOWED = {
    ".ci", ".clang-format", ".gitignore", "ARCHITECTURE.md", "BENCHMARKS.md", "CMakeLists.txt",
    "CMakePresets.json", "README.md", "bench", "cmake", "data", "docs", "manager", "profiles", "scripts",
    "selftest", "shell", "shim", "tests", "vcpkg.json",
}


def entries(root):
    if not os.path.isdir(os.path.join(root, ".git")):
        return set(os.listdir(root))
    listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            check=True, capture_output=True).stdout.decode("utf-8", "replace")
    return {path.split("/", 1)[0] for path in listed.split("\0") if path}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    unexpected = sorted(entries(root) - ALLOWED)
    for name in unexpected:
        print(f"{name}: not a top-level entry of this repository (tests/lint/top_level.py's list); "
              "scratch belongs in a temporary folder")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
