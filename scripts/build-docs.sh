#!/usr/bin/env bash
# Builds the DocC catalog of the SimpleDataLogs library with warnings as errors, then checks that
# every public symbol has a doc comment. Needs only the Swift toolchain (docc ships with it) and
# python3 for the coverage check.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${SCRATCH_PATH:-.build}"
graphs="$scratch/symbol-graphs"
rm -rf "$graphs" && mkdir -p "$graphs"

# The public symbol graph of the library (no plugin needed).
swift package --scratch-path "$scratch" dump-symbol-graph --minimum-access-level public >/dev/null
# Only the library's own graph: the catalog documents SimpleDataLogs.
find "$scratch" -path '*/symbolgraph/*' -name 'SimpleDataLogs.symbols.json' -exec cp {} "$graphs/" \;

docc convert Sources/SimpleDataLogs/SimpleDataLogs.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name SimpleDataLogs --fallback-bundle-identifier com.simpledatalogs.sdk \
    --warnings-as-errors \
    --output-path "$scratch/SimpleDataLogs.doccarchive" >/dev/null

python3 scripts/check-doc-coverage.py "$graphs/SimpleDataLogs.symbols.json"
# What the library adds to other modules' types (`UUID(eventKey:in:)` on Foundation's UUID) has a
# graph of its own, `SimpleDataLogs@<module>`: documented too.
find "$scratch" -path '*/symbolgraph/*' -name 'SimpleDataLogs@*.symbols.json' -print0 |
    while IFS= read -r -d '' extension; do python3 scripts/check-doc-coverage.py "$extension" || exit 1; done
