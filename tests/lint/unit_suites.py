#!/usr/bin/env python3
"""Unit tests, one file and one suite per module: each
tests/unit/<folder>/test_<module>.cpp tests a module that exists
(manager/<folder>/<module>.*, shell/<module>.*, shim/<module>.*) and holds
exactly one doctest suite, named "<folder>/<module>"; no two files share a
suite and no test lies outside a folder. Prints each break; exit 1 if any."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUITE = re.compile(r'^TEST_SUITE\("([^"]*)"\)', re.M)
CASE = re.compile(r'^TEST_CASE\(', re.M)  # a case outside any suite starts its line


def module_exists(folder: str, module: str) -> bool:
    place = ROOT / folder if folder in ("shell", "shim") else ROOT / "manager" / folder
    return any((place / (module + ext)).exists() for ext in (".cpp", ".hpp"))


def main(argv: list[str]) -> int:
    top = pathlib.Path(argv[0]) if argv else ROOT / "tests" / "unit"
    bad = []
    for path in sorted(p for p in top.glob("test_*.cpp") if p.name != "test_main.cpp"):
        bad.append(f"{path.name}: a test file outside a module's folder")
    for path in sorted(top.glob("*/test_*.cpp")):
        folder, module = path.parent.name, path.stem[len("test_"):]
        name = f"{folder}/{module}"
        text = path.read_text(encoding="utf-8")
        suites = SUITE.findall(text)
        if not module_exists(folder, module):
            bad.append(f"{name}: no module {name} to test")
        if suites != [name]:
            bad.append(f"{name}: suites {suites}, expected exactly ['{name}']")
        if CASE.search(text):
            bad.append(f"{name}: a TEST_CASE outside the suite")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
