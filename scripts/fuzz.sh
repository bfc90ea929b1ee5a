#!/usr/bin/env bash
# Builds and runs the libFuzzer targets (Tests/Fuzz/README.md).
#
#   scripts/fuzz.sh replay [target…]              CI: build each target, run its seed corpus once
#   scripts/fuzz.sh run [executions] [target…]    on demand: fuzz each target for N executions
#                                                 (default 10,000,000), one target at a time
#
# Targets: FuzzJournalRecord FuzzBatchFile FuzzIngestRequest FuzzIntakeLog (default: all four).
# Environment:
#   FUZZ_SCRATCH_PATH  SwiftPM scratch path (default .build-fuzz; the flags differ from a normal build)
#   FUZZ_CONFIG        build configuration (default: debug for replay, release for run)
#   FUZZ_ARGS          extra libFuzzer flags for `run`, after the script's own (the last one wins),
#                      e.g. "-max_total_time=600" or "-max_len=65536"
# Needs only the Swift toolchain (Linux: libFuzzer and ASan ship with it) and bash.
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(FuzzJournalRecord FuzzBatchFile FuzzIngestRequest FuzzIntakeLog)
SCRATCH=${FUZZ_SCRATCH_PATH:-.build-fuzz}
CORPUS_ROOT=Tests/Fuzz/Corpus
export SWIFT_BACKTRACE=enable=no                      # else the backtracer runs inside ASan and misreports
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"  # the Swift runtime's metadata caches look like leaks

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

# build <config> <target>: prints the binary's path on the last line of stdout.
build() {
    local config=$1 target=$2 start
    start=$(now)
    echo "--- build $target ($config)" >&2
    # -parse-as-library: main.swift holds only declarations, and no Swift entry point is emitted.
    # -D SDL_LIBFUZZER: compiles the `<Target>_main` that hands over to libFuzzer's driver (SwiftPM
    # links executables with --defsym main=<Target>_main). ld.gold's "Cannot export local symbol
    # '__asan_*'" warnings are harmless and filtered out.
    if ! swift build -c "$config" --scratch-path "$SCRATCH" --product "$target" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DSDL_LIBFUZZER \
        2>&1 | grep -vE "Cannot export local symbol|^\[[0-9]+/[0-9]+\] " >&2; then
        echo "FAIL: build of $target" >&2
        return 1
    fi
    echo "    built $target in $(since "$start")" >&2
    echo "$SCRATCH/$config/$target"
}

targets_from() {
    if [ $# -eq 0 ]; then printf '%s\n' "${ALL_TARGETS[@]}"; return; fi
    for target in "$@"; do
        case " ${ALL_TARGETS[*]} " in *" $target "*) echo "$target" ;; *) echo "unknown target: $target" >&2; exit 2 ;; esac
    done
}

replay() {
    local config=${FUZZ_CONFIG:-debug} total_start status=0 target binary start artifacts log files
    total_start=$(now)
    artifacts=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-replay.XXXXXX")
    for target in $(targets_from "$@"); do
        binary=$(build "$config" "$target" | tail -n 1) || { status=1; continue; }
        files=$(find "$CORPUS_ROOT/$target" -type f | wc -l | tr -d ' ')
        echo "--- replay $target: $files files"
        log="$artifacts/$target.log"
        start=$(now)
        # -runs=0: run every corpus input once, mutate nothing. Inputs named crash-* are fixed
        # findings kept as regression seeds: they must pass now.
        if "$binary" -runs=0 -artifact_prefix="$artifacts/$target-" "$CORPUS_ROOT/$target" >"$log" 2>&1; then
            echo "    $(grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$log" | tail -n 1)"
            echo "    replayed $target in $(since "$start")"
        else
            status=1
            echo "FAIL: $target crashed or broke an invariant while replaying its corpus:"
            tail -n 40 "$log" | sed 's/^/    /'
            ls "$artifacts"/"$target"-* 2>/dev/null | sed 's/^/    reproducer: /' || true
        fi
    done
    echo "--- replay total: $(since "$total_start")"
    [ $status -eq 0 ] && rm -rf "$artifacts" || echo "logs and reproducers kept in $artifacts"
    return $status
}

run() {
    local runs=10000000
    if [ $# -gt 0 ] && [[ $1 =~ ^[0-9_,]+$ ]]; then runs=${1//[_,]/}; shift; fi
    local config=${FUZZ_CONFIG:-release} status=0 target binary start work log
    for target in $(targets_from "$@"); do
        binary=$(build "$config" "$target" | tail -n 1) || { status=1; continue; }
        work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-$target.XXXXXX")
        mkdir -p "$work/corpus" "$work/artifacts"
        cp "$CORPUS_ROOT/$target"/* "$work/corpus/"
        log="$work/fuzz.log"
        echo "--- run $target: $runs executions (log: $log)"
        start=$(now)
        # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
        # -max_len=4096: the 37 KB head-too-large seed would otherwise let every mutant grow to its
        # size; the small-limits mode of FuzzIngestRequest reaches the same paths at 4 KB.
        if "$binary" -runs="$runs" -max_len=4096 -print_final_stats=1 -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} "$work/corpus" >"$log" 2>&1; then
            echo "    $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)"
            grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | sed 's/^/    /'
            echo "    $target: no crash in $(since "$start"); corpus grew to $(ls "$work/corpus" | wc -l | tr -d ' ') inputs"
            rm -rf "$work"
        else
            status=1
            echo "FAIL: $target crashed or broke an invariant after $(since "$start"):"
            grep -E 'invariant violated|ERROR: AddressSanitizer|ERROR: libFuzzer|^SUMMARY' "$log" | head -n 5 | sed 's/^/    /' || true
            tail -n 30 "$log" | sed 's/^/    /'
            for artifact in "$work"/artifacts/*; do
                [ -e "$artifact" ] || continue
                echo "    reproducer: $artifact (replay: SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 $binary $artifact)"
            done
            echo "    working corpus and log kept in $work"
        fi
    done
    return $status
}

case "${1:-}" in
    replay) shift; replay "$@" ;;
    run) shift; run "$@" ;;
    *) usage ;;
esac
