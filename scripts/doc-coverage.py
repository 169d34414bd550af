#!/usr/bin/env python3
"""Checks that every public symbol AsyncRealm declares has a documentation comment, and that the
comment of a function, initializer or subscript has `- Parameter`/`- Parameters:` when it takes
arguments, `- Returns:` when it returns a value, and `- Throws:` when it throws.

Symbols come from a symbol graph (AsyncRealm.symbols.json and the extension graphs beside it).
Symbols without a source location are the compiler's (inherited conformances, synthesized
members) and are skipped, as are the underscored ones, which are public only for the
`@Persisted` machinery. Prints each problem as `file:line: symbol: what is missing` and exits 1
if there is any.

    python3 scripts/doc-coverage.py .build/docs/symbol-graphs
"""
import json
import pathlib
import sys

FUNCTION_KINDS = {"swift.func", "swift.method", "swift.type.method", "swift.init", "swift.subscript",
                  "swift.func.op", "swift.type.subscript"}


def fragments_text(symbol):
    return "".join(f.get("spelling", "") for f in symbol.get("declarationFragments", []))


def doc_text(symbol):
    return "\n".join(line.get("text", "") for line in symbol.get("docComment", {}).get("lines", []))


def problems_of(symbol):
    kind = symbol["kind"]["identifier"]
    doc = doc_text(symbol)
    if not doc.strip():
        return ["no documentation comment"]
    if kind not in FUNCTION_KINDS or kind == "swift.func.op":
        return []
    missing = []
    signature = symbol.get("functionSignature", {})
    parameters = [p for p in signature.get("parameters", [])]
    if parameters and "- Parameter" not in doc:
        missing.append("- Parameter(s): for " + ", ".join(p.get("name", "_") for p in parameters))
    returns = "".join(f.get("spelling", "") for f in signature.get("returns", [])).strip()
    if kind not in {"swift.init", "swift.subscript", "swift.type.subscript"} and returns not in {"", "()", "Void"} \
            and "- Returns:" not in doc:
        missing.append("- Returns:")
    declaration = fragments_text(symbol)
    if (" throws" in declaration or " rethrows" in declaration) and "- Throws:" not in doc:
        missing.append("- Throws:")
    return ["missing " + ", ".join(missing)] if missing else []


def main(directory):
    graphs = sorted(pathlib.Path(directory).glob("AsyncRealm*.symbols.json"))
    if not graphs:
        print(f"no AsyncRealm symbol graphs in {directory}", file=sys.stderr)
        return 2
    problems = {}
    checked = 0
    for graph in graphs:
        for symbol in json.loads(graph.read_text())["symbols"]:
            location = symbol.get("location")
            name = ".".join(symbol["pathComponents"])
            if not location or "/Sources/AsyncRealm/" not in location["uri"]:
                continue
            if any(part.startswith("_") for part in symbol["pathComponents"]):
                continue
            checked += 1
            path = location["uri"].split("/Sources/AsyncRealm/", 1)[1]
            line = location["position"]["line"] + 1
            # A protocol extension's member appears once per conforming type: report it once.
            for problem in problems_of(symbol):
                problems.setdefault((path, line, problem), name)
    for (path, line, problem), name in sorted(problems.items()):
        print(f"Sources/AsyncRealm/{path}:{line}: {name}: {problem}")
    print(f"doc-coverage: {checked} public symbols checked, {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ".build/docs/symbol-graphs"))
