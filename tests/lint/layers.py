#!/usr/bin/env python3
"""Every include points down (ARCHITECTURE.md): a folder of manager/ includes
only folders below it in this order, shell/ only util/, the shim (shim/) only
its own headers. Prints each include that points up or sideways; exit 1 if any."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
ORDER = ["util", "formats", "probe", "store", "download", "discover", "select", "verify", "pin", "integrate", "doctor", "cli"]
SHIM_HEADERS = {"launch_key.hpp", "sidecar.hpp", "batch_command.hpp", "win_launch.hpp", "state_layout.hpp",
                "components.inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def allowed(folder: str, target: str) -> bool:
    top = target.split("/")[0] if "/" in target else None
    if folder == "shim":  # its own headers, and util/'s header-only rules: quoting, the start's retry
        return ("/" not in target and (target in SHIM_HEADERS or target == "win_launch.hpp")) or \
            target in ("util/windows_quote.hpp", "util/start_retry.hpp")
    if folder == "shell":
        return top in ("util", "shell") or target.endswith(".inc")
    if top is None:  # generated (.inc, version_info.hpp) or a shim header
        return (target.endswith(".inc") or (target == "version_info.hpp" and folder == "cli") or
                (target == "state_layout.hpp" and folder in ORDER[ORDER.index("store"):]) or
                (target in SHIM_HEADERS and folder in ("pin", "cli")))
    if top == "shell":
        return folder in ("select", "pin", "integrate", "cli")
    if top not in ORDER:
        return False
    return ORDER.index(top) <= ORDER.index(folder)


def main() -> int:
    bad = []
    sources = [p for p in (ROOT / "manager").rglob("*") if p.suffix in (".cpp", ".hpp")]
    sources += [p for p in (ROOT / "shell").glob("*") if p.suffix in (".cpp", ".hpp")]
    sources += [p for p in (ROOT / "shim").glob("*") if p.suffix in (".cpp", ".hpp", ".c")]
    for path in sorted(sources):
        relative = path.relative_to(ROOT)
        parts = relative.parts
        folder = parts[1] if parts[0] == "manager" and len(parts) > 2 else parts[0]
        if folder == "manager":
            bad.append(f"{relative}: a file directly in manager/ (put it in one of {', '.join(ORDER)})")
            continue
        for target in INCLUDE.findall(path.read_text(encoding="utf-8")):
            if not allowed(folder, target):
                bad.append(f'{relative}: #include "{target}" points up or sideways from {folder}/')
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
