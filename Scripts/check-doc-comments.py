#!/usr/bin/env python3
"""Lists the public and open symbols of the package's library products that have no doc comment,
and exits 1 if there is any.

It reads the symbol graphs `swift package dump-symbol-graph` writes (public symbols, members the
compiler synthesizes left out). A symbol counts as documented when it has a doc comment of its
own, or when it implements a requirement of another module's protocol (`description`, `==`,
`hash(into:)`, `errorDescription`) and carries that requirement's documentation, which DocC shows;
not when it only inherits the comment of a requirement of its own module's protocols.
Enum cases, extension members and members of protocol extensions count like any other symbol.

Usage: Scripts/check-doc-comments.py [--symbol-graphs DIR] [MODULE ...]
Without modules: every library product's targets, read from `swift package dump-package`.
Without --symbol-graphs: runs `swift package dump-symbol-graph` first.
`--list-modules` prints those modules, one a line, and exits (what `make docs` documents).
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys


def library_modules(swift):
    package = json.loads(subprocess.run(
        [swift, "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    modules = []
    for product in package["products"]:
        if "library" in product["type"]:
            modules += [t for t in product["targets"] if t not in modules]
    return modules


def dump_symbol_graphs(swift):
    run = subprocess.run(
        [swift, "package", "dump-symbol-graph", "--skip-synthesized-members",
         "--minimum-access-level", "public"],
        capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stdout + run.stderr)
        sys.exit(run.returncode)
    match = re.search(r"Files written to (\S+)", run.stdout + run.stderr)
    if not match:
        sys.exit("dump-symbol-graph did not say where it wrote the symbol graphs:\n" + run.stdout)
    return pathlib.Path(match.group(1))


def undocumented(graph_file, module):
    graph = json.loads(graph_file.read_text())
    found = []
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        precise = symbol["identifier"]["precise"]
        if "::SYNTHESIZED::" in precise:
            continue
        location = symbol.get("location", {})
        if not location:
            continue  # Made by the compiler (a raw-value enum's init(rawValue:), say).
        comment = symbol.get("docComment") or {}
        if any(line.get("text", "").strip() for line in comment.get("lines", [])):
            # Its own comment, in its own file; or the documentation of another module's
            # protocol requirement it implements (`description`, `==`), which DocC shows. A
            # comment inherited from a protocol of this module does not count: say what this
            # implementation does.
            if comment.get("module") != module or comment.get("uri") == location.get("uri"):
                continue
        path = location.get("uri", "").removeprefix("file://")
        line = location.get("position", {}).get("line", -1) + 1
        name = ".".join(symbol["pathComponents"])
        kind = symbol["kind"]["displayName"]
        found.append((path, line, f"{module}: {kind} {name}"))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*")
    parser.add_argument("--symbol-graphs", type=pathlib.Path)
    parser.add_argument("--swift", default="swift")
    parser.add_argument("--list-modules", action="store_true")
    arguments = parser.parse_args()
    modules = arguments.modules or library_modules(arguments.swift)
    if arguments.list_modules:
        print("\n".join(modules))
        return
    directory = arguments.symbol_graphs or dump_symbol_graphs(arguments.swift)

    found = []
    for module in modules:
        # MODULE.symbols.json, and MODULE@OTHER.symbols.json for extensions of other modules' types.
        files = [directory / f"{module}.symbols.json", *directory.glob(f"{module}@*.symbols.json")]
        if not files[0].exists():
            sys.exit(f"no symbol graph for {module} in {directory}")
        for graph_file in files:
            found += undocumented(graph_file, module)

    cwd = str(pathlib.Path.cwd()) + "/"
    for path, line, what in sorted(set(found)):
        print(f"{path.removeprefix(cwd)}:{line}: undocumented public symbol: {what}")
    print(f"{len(set(found))} undocumented public symbols in {', '.join(modules)}")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
