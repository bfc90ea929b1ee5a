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
# Then README.md's app quick start, run: scripts/readme-quick-start.py writes the body of the
# README App's init() into Tests/Consumer/ReadmeQuickStart/main.swift (no hand copy), the same
# build compiles it, and it runs against `sdl ingest` (this package's, on a free port): one event,
# one flush(). Fails unless that event reached the ingest with a device_id.
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
readme_target=ReadmeQuickStart

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

# README's init() body, extracted (the extractor checks itself on a planted README first).
python3 scripts/readme-quick-start.py --self-test

rm -rf "$scratch"
log=$(mktemp)
status=0
swift build --package-path "$consumer" --scratch-path "$scratch" 2>&1 | tee "$log" || status=$?

found=$(diagnostics "$log")
for target in "${targets[@]}" "$readme_target"; do
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
# README's app quick start, run against `sdl ingest`: the event of its one flush() must arrive
# with a device id. `sdl` is this package's own build (a no-op after `swift run sdl demo` in CI).
readme_check() {
    local sdl_bin app_bin work port ingest_pid app_status=0 line
    swift build --product sdl > /dev/null
    sdl_bin="$(swift build --show-bin-path)/sdl"
    app_bin="$(swift build --package-path "$consumer" --scratch-path "$scratch" --show-bin-path)/$readme_target"
    work=$(mktemp -d)
    "$sdl_bin" ingest --port 0 --json > "$work/events" 2> "$work/ingest" &
    ingest_pid=$!
    # Bounded: the ingest says where it listens within a few seconds, or the check fails.
    for _ in $(seq 100); do
        port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$work/ingest" | grep -o '[0-9]*$' || true)
        [ -n "$port" ] && break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "readme quick start: sdl ingest did not start:"; cat "$work/ingest"
        kill "$ingest_pid" 2> /dev/null || true; rm -rf "$work"; return 1
    fi
    README_INGEST_PORT=$port SDL_STORAGE_DIR="$work/outbox" timeout 60 "$app_bin" || app_status=$?
    kill -TERM "$ingest_pid"; wait "$ingest_pid" || true
    line=$(grep '"event":"readme_quick_start"' "$work/events" || true)
    echo "readme quick start: the ingest received: ${line:-nothing}"
    if [ "$app_status" -ne 0 ] || ! grep -q '"device_id":"[^"]' <<< "$line"; then
        echo "readme quick start: README's app quick start did not deliver an event with a device_id in one flush (app exit $app_status); the ingest said:"
        cat "$work/ingest"
        rm -rf "$work"; return 1
    fi
    rm -rf "$work"
}
if [ "$status" -eq 0 ]; then
    readme_check || status=1
fi

elapsed=$(( $(date +%s) - start ))
if [ "$status" -ne 0 ]; then
    echo "consumer check: FAILED after ${elapsed} s"
    exit 1
fi
echo "consumer check: ${targets[*]} $readme_target built with no diagnostics, README's app quick start delivered an event with a device_id in one flush, in ${elapsed} s"
