#!/usr/bin/env bash
# Builds Tests/Consumer, a package that depends on this one by path and calls the public API from
# @MainActor code the way an app does, in three configurations at once (three targets, one source,
# one build of the SDK):
#   Swift5Consumer        Swift 5 language mode
#   MainActorConsumer     Swift 6 language mode, defaultIsolation(MainActor.self) (Xcode 26's app template)
#   ApproachableConsumer  the same plus NonisolatedNonsendingByDefault and InferIsolatedConformances
# Fails on a failed build and on any diagnostic: a line with "warning:" or "error:" anywhere in the
# output, whether the consumer's code or the API it calls caused it.
#
# The build is clean every time (its own scratch folder, emptied first): an incremental build does
# not compile an unchanged file again, so it would not print that file's warnings again.
# SDL_CONSUMER_SCRATCH overrides the scratch folder (default Tests/Consumer/.build, ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
consumer=Tests/Consumer
scratch=${SDL_CONSUMER_SCRATCH:-$consumer/.build}
targets=(Swift5Consumer MainActorConsumer ApproachableConsumer)

# The lines that count as diagnostics.
diagnostics() { grep -E '(warning|error):' "$1" || true; }

# The filter checks itself first, on lines of the shapes the compiler and SwiftPM print.
selftest=$(mktemp)
trap 'rm -f "$selftest" "${log:-}"' EXIT
printf '%s\n' \
    "[12/40] Compiling MainActorConsumer AppAnalytics.swift" \
    "/x/AppAnalytics.swift:9:5: warning: no calls to throwing functions occur within 'try' expression" \
    "warning: 'consumer': found 1 file(s) which are unhandled" \
    "/x/AppAnalytics.swift:3:1: error: cannot find 'x' in scope" \
    "Build complete! (3.10s)" > "$selftest"
if [ "$(diagnostics "$selftest" | wc -l)" -ne 3 ]; then
    echo "consumer check: the diagnostics filter does not find the 3 planted diagnostics"
    exit 1
fi

rm -rf "$scratch"
log=$(mktemp)
status=0
swift build --package-path "$consumer" --scratch-path "$scratch" 2>&1 | tee "$log" || status=$?

found=$(diagnostics "$log")
for target in "${targets[@]}"; do
    if ! grep -q "Compiling $target " "$log"; then
        echo "consumer check: $target was not compiled; the check would prove nothing"
        status=1
    fi
done
if [ -n "$found" ]; then
    echo "consumer check: $(echo "$found" | wc -l) diagnostic line(s); a consumer must see none:"
    echo "$found"
    status=1
fi
elapsed=$(( $(date +%s) - start ))
if [ "$status" -ne 0 ]; then
    echo "consumer check: FAILED after ${elapsed} s"
    exit 1
fi
echo "consumer check: ${targets[*]} built with no diagnostics in ${elapsed} s"
