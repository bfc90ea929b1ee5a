#!/usr/bin/env python3
"""Fails when a public symbol of the library has no doc comment.

    python3 scripts/check-doc-coverage.py path/to/SimpleDataLogs.symbols.json

Protocol requirements' implementations (a conformance's `description`, `makeAsyncIterator`…)
inherit the protocol's documentation, so symbols that are documented through the protocol they
implement are accepted when the symbol graph marks them as such.
"""
import json, sys

graph = json.load(open(sys.argv[1]))
implements = {rel["source"] for rel in graph.get("relationships", []) if rel.get("kind") in ("requirementOf", "defaultImplementationOf", "overrides")}
undocumented = []
for symbol in graph["symbols"]:
    if symbol.get("accessLevel") not in ("public", "open"):
        continue
    kind = symbol["kind"]["identifier"]
    # Synthesized conformances (Hashable's hashValue) and protocols' default implementations
    # (OptionSet.insert) have no place in our sources: nothing of ours to document.
    if "location" not in symbol:
        continue
    doc = symbol.get("docComment", {}).get("lines", [])
    if any(line.get("text", "").strip() for line in doc):
        continue
    if symbol["identifier"]["precise"] in implements:
        continue
    undocumented.append(".".join(symbol["pathComponents"]) + f" ({kind})")

total = sum(1 for s in graph["symbols"] if s.get("accessLevel") in ("public", "open"))
if undocumented:
    print(f"{len(undocumented)} of {total} public symbols have no doc comment:")
    for name in sorted(undocumented):
        print("  " + name)
    sys.exit(1)
print(f"doc coverage: all {total} public symbols are documented")
