#!/usr/bin/env bash
# hang-report.sh LOG PATTERN: what a test run that hangs was doing, for CI to print before the
# stage's time limit kills it.
#   1. the tests in LOG (swift test's output) that started and never passed or failed;
#   2. every thread's backtrace in the processes whose command line matches PATTERN, with the
#      Swift toolchain's lldb (or gdb) when one is on PATH.
# Prints and exits 0 whatever it finds: it reports, it never judges.
set -uo pipefail
log="$1" pattern="$2"

echo "--- tests that started and did not finish (from $log):"
started=$(mktemp) finished=$(mktemp)
# Whole tests only: a parameterized test's cases ("◇ Test case passing …") end with their test.
grep -a '^◇ Test .* started\.$' "$log" | grep -av '^◇ Test case passing \|^◇ Test run started' \
    | sed -E 's/^◇ Test (.*) started\.$/\1/' | sort -u > "$started"
grep -aE '^(✔|✘) Test .* (passed|failed|skipped)' "$log" \
    | sed -E 's/^(✔|✘) Test (.*) (passed|failed|skipped).*$/\2/' | sed -E 's/ with [0-9]+ test cases?$//' | sort -u > "$finished"
comm -23 "$started" "$finished"
rm -f "$started" "$finished"

for pid in $(pgrep -f "$pattern"); do
    # Not this script, nor the shells that run it (their command lines hold the pattern).
    grep -qa 'hang-report' "/proc/$pid/cmdline" 2> /dev/null && continue
    echo "--- threads of $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" | cut -c1-160)"
    if command -v gdb > /dev/null; then
        timeout 120 gdb -p "$pid" -batch -ex 'thread apply all bt' 2>&1 | grep -E '^(Thread|#)' | cut -c1-220
    elif command -v lldb > /dev/null; then
        timeout 120 lldb --batch -p "$pid" -o 'thread backtrace all' 2>&1 | grep -E '(thread|frame) #|error' | cut -c1-220
    else
        echo "(no gdb or lldb on PATH: no backtraces)"
    fi
done
exit 0
