"""The CLI parses and prints (ARCHITECTURE.md): no file of manager/cli but
output.cpp writes to the disk itself. Writing a lock, a mirror, a tree, a
script or a log is a core folder's (select/, store/, integrate/, pin/); a
file the user named for a command's output goes through
write_output_file (cli/output). Prints each call that writes, with its
line; exit 1 if any.
Usage: cli_disk.py [FOLDER] (default manager/cli)"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
WRITES = re.compile(
    r"\b(?:(?:fs|std::filesystem)::(?:remove|remove_all|rename|copy|copy_file|create_directory|create_directories|"
    r"create_symlink|create_directory_symlink|permissions|resize_file|last_write_time)\s*\(|"
    r"util::(?:write_file_atomic|write_file|create_directories_below|rename_directory|remove_tree|create_new_file)\s*\(|"
    r"std::(?:rename|remove)\s*\(|std::ofstream\b|std::fstream\b|\bfopen\s*\()")
ALLOWED = {"output.cpp"}


def main() -> int:
    folder = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "manager" / "cli"
    found = []
    for path in sorted(folder.glob("*.[ch]pp")):
        if path.name in ALLOWED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//", 1)[0]
            match = WRITES.search(code)
            if match:
                found.append(f"{folder.name}/{path.name}:{number}: writes to the disk ({match.group(0).rstrip('(').strip()}): "
                             "move it into a core folder, or write_output_file for a file the user named")
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
