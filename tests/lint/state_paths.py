#!/usr/bin/env python3
"""No path under the state folder or the store's own folder is joined by hand
outside manager/store/ (ARCHITECTURE.md: store/state.hpp names them, and
shim/state_layout.hpp what the shim must agree on). Prints each join found
elsewhere; exit 1 if any."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMES = ["config.toml", "trusted", "shims", "downloads", "cache", "pin-checks", "cmd", "profiles", "launch",
         "staging", "locks", "trash", ".cudnnenv"]
# `x / "config.toml"`, `state().folder / ...`, or the shim's "/config.toml".
JOIN = re.compile(r'/\s*"(?:' + "|".join(re.escape(n) for n in NAMES) + r')"|'
                  r'(?:state|own)\(\)\.folder\s*/|"/(?:' + "|".join(re.escape(n) for n in NAMES) + r')[/"]')


def main(argv: list[str]) -> int:
    roots = [pathlib.Path(a) for a in argv] or [ROOT / "manager", ROOT / "shim", ROOT / "shell"]
    bad = []
    for top in roots:
        for path in sorted(p for p in top.rglob("*") if p.suffix in (".cpp", ".hpp", ".c")):
            if "store" in path.relative_to(top).parts[:1] and top.name == "manager":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if JOIN.search(line):
                    bad.append(f"{path.relative_to(top.parent)}:{number}: a state path joined by hand: {line.strip()}")
    for line in bad:
        print(line)
    if bad:
        print("name it in manager/store/state.hpp (StatePaths) and use that")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
