#!/usr/bin/env bash
# Fails when a construct that sidesteps the compiler's checks stands in a file where DESIGN.md's
# section "Unsafe opt-outs and unchecked constructs" does not list it: a row naming both the file
# and the construct. Comment lines are ignored.
#
# What counts (the honest list, not only the concurrency opt-outs):
#   @unchecked Sendable, nonisolated(unsafe), @preconcurrency, assumeIsolated   concurrency opt-outs
#   @exclusivity(unchecked), withLockUnchecked                                  unchecked exclusivity
#   unsafeBitCast                                                               type punning
#   bitPattern:                                                                 pointers carried as integers
#   UnownedJob                                                                  jobs managed by hand
#   Task {, Task.detached {  (Sources/SimpleDataLogs only)                      unstructured tasks: each has an owner
set -euo pipefail
cd "$(dirname "$0")/.."
section=$(awk '/^## [0-9]+\. Unsafe opt-outs/{on=1; next} /^## /{on=0} on' DESIGN.md)
if [ -z "$section" ]; then echo "DESIGN.md has no \"Unsafe opt-outs\" section"; exit 1; fi

status=0
total=0
# label|extended regex|folder
constructs=(
    '@unchecked Sendable|@unchecked Sendable|Sources'
    'nonisolated(unsafe)|nonisolated\(unsafe\)|Sources'
    '@preconcurrency|@preconcurrency|Sources'
    'assumeIsolated|assumeIsolated|Sources'
    '@exclusivity(unchecked)|@exclusivity\(unchecked\)|Sources'
    'withLockUnchecked|withLockUnchecked|Sources'
    'unsafeBitCast|unsafeBitCast|Sources'
    'bitPattern:|bitPattern:|Sources'
    'UnownedJob|UnownedJob|Sources'
    'Task {}|(^|[^A-Za-z.])Task(\.detached)?[[:space:]]*\{|Sources/SimpleDataLogs'
)
for entry in "${constructs[@]}"; do
    label=${entry%%|*}
    rest=${entry#*|}
    pattern=${rest%|*}
    folder=${rest##*|}
    count=0
    while IFS=: read -r file line text; do
        [ -z "$file" ] && continue
        case "$(echo "$text" | sed 's/^[[:space:]]*//')" in //*) continue ;; esac
        count=$((count + 1))
        if ! grep -F -- "$file" <<<"$section" | grep -qF -- "\`$label\`"; then
            echo "unlisted: $label at $file:$line:$(echo "$text" | sed 's/^[[:space:]]*//')"
            status=1
        fi
    done < <(grep -rnE --include='*.swift' -- "$pattern" "$folder" || true)
    total=$((total + count))
    printf '  %-26s %3d\n' "$label" "$count"
done
if [ $status -eq 0 ]; then
    echo "unchecked constructs: $total in Sources, every one listed in DESIGN.md with its reason"
fi
exit $status
