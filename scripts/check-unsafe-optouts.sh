#!/usr/bin/env bash
# Fails when a concurrency opt-out in Sources (@unchecked Sendable, nonisolated(unsafe),
# @preconcurrency, assumeIsolated) stands in a file that DESIGN.md's "Unsafe opt-outs" section
# does not list. Comment lines are ignored.
set -euo pipefail
cd "$(dirname "$0")/.."
section=$(awk '/^## [0-9]+\. Unsafe opt-outs/{on=1; next} /^## /{on=0} on' DESIGN.md)
status=0
count=0
while IFS=: read -r file line text; do
    [ -z "$file" ] && continue
    case "$(echo "$text" | sed 's/^[[:space:]]*//')" in //*) continue ;; esac
    count=$((count + 1))
    if ! grep -qF "$file" <<<"$section"; then
        echo "unlisted opt-out: $file:$line:$text"
        status=1
    fi
done < <(grep -rnE --include='*.swift' '@unchecked Sendable|nonisolated\(unsafe\)|@preconcurrency|assumeIsolated' Sources || true)
[ $status -eq 0 ] && echo "unsafe opt-outs: $count in Sources, every one listed in DESIGN.md"
exit $status
