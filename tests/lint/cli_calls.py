"""The CLI parses and prints (ARCHITECTURE.md): a subcommand file
(manager/cli/cmd_*.cpp) never calls a function another subcommand file
defines. What two subcommands share lives in a core folder, or on Context
(cli/context.hpp, defined in app.cpp). Prints each such call with the file
that defines the function; exit 1 if any.

A definition is a function at namespace scope, outside an anonymous
namespace, written as clang-format writes one: its return type at the start
of a line, its name, its parameters, its body's brace. register_* (each
file's one entry point, which app.cpp calls) is not counted.
Usage: cli_calls.py [FOLDER] (default manager/cli)"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFINITION = re.compile(r"^[A-Za-z_][\w:<>,*& ]*?[\s*&>]([a-z_][a-z0-9_]*)\(", re.M)


def exported_definitions(text: str) -> set:
    names = set()
    depth_of_anonymous = None
    depth = 0
    for line in text.splitlines():
        if re.match(r"^namespace\s*\{", line):
            depth_of_anonymous = depth
        elif depth_of_anonymous is not None and re.match(r"^}\s*//\s*namespace\s*$", line):
            depth_of_anonymous = None
        if depth == 0 and depth_of_anonymous is None:
            match = DEFINITION.match(line)
            if match and not line.rstrip().endswith(";") and not match.group(1).startswith("register_"):
                names.add(match.group(1))
        # Braces of bodies only (namespaces are not counted: their lines start with "namespace" or "}  //").
        if not line.startswith("namespace") and not re.match(r"^}\s*//\s*namespace", line):
            code = re.sub(r'"(\\.|[^"\\])*"', '""', line.split("//")[0])
            code = re.sub(r"'(\\.|[^'\\])'", "''", code)
            depth += code.count("{") - code.count("}")
    return names


def main(argv: list) -> int:
    folder = pathlib.Path(argv[0]) if argv else ROOT / "manager" / "cli"
    files = sorted(folder.glob("cmd_*.cpp"))
    texts = {path: path.read_text() for path in files}
    defined = {path: exported_definitions(text) for path, text in texts.items()}
    status = 0
    for path, text in texts.items():
        for other, names in defined.items():
            if other == path:
                continue
            for name in sorted(names):
                for number, line in enumerate(text.splitlines(), 1):
                    if re.search(r"(?<![\w.>:])" + name + r"\(", line.split("//")[0]):
                        print(f"{path.relative_to(folder.parent)}:{number}: calls {name}, which "
                              f"{other.relative_to(folder.parent)} defines: move it to a core folder (or Context)")
                        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
