#!/bin/sh
# Runs vftr's tests and prints one summary line "N passed, N failed".
#
# Arguments are test programs: Check suites (build/test/unit/test_*) and
# integration scripts (test/integration/*.sh).  A Check suite contributes the
# number of its checks (from its "NN%: Checks: N, Failures: F, Errors: E"
# line); a script contributes one test per line "PASS: ..." / "FAIL: ..." it
# prints, and one failure if it exits non-zero without printing a FAIL line.
# Exit status is 1 when anything failed.
set -u
: "${BUILD:=build}"
export BUILD
# Check's per-test timeouts were chosen on a quiet machine: CI machines are
# shared and sanitizer builds run several times slower.
: "${CK_TIMEOUT_MULTIPLIER:=10}"
export CK_TIMEOUT_MULTIPLIER
passed=0
failed=0
log_dir="$BUILD/test/logs"
mkdir -p "$log_dir"

for t in "$@"; do
    name=$(basename "$t")
    log="$log_dir/$name.log"
    case "$t" in
        *.sh) bash "$t" >"$log" 2>&1; rc=$? ;;
        *)    CK_FORK=yes "$t" >"$log" 2>&1; rc=$? ;;
    esac
    summary=$(grep -E '^[0-9]+%: Checks: [0-9]+' "$log" | tail -n 1)
    if [ -n "$summary" ]; then
        n=$(echo "$summary" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
        f=$(echo "$summary" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
        e=$(echo "$summary" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
        bad=$((f + e))
        ok=$((n - bad))
    else
        ok=$(grep -c '^PASS: ' "$log")
        bad=$(grep -c '^FAIL: ' "$log")
        if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; fi
        if [ "$rc" -eq 0 ] && [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ]; then
            echo "FAIL: $name ran no test" >>"$log"; bad=1
        fi
    fi
    if [ "$bad" -gt 0 ] || [ "$rc" -ne 0 ]; then
        [ "$bad" -gt 0 ] || bad=1
        printf '  %-34s %4d passed %4d FAILED (log: %s)\n' "$name" "$ok" "$bad" "$log"
        grep -E '^FAIL: |:[0-9]+:[EF]:' "$log" | head -n 20 | sed 's/^/      /'
    else
        printf '  %-34s %4d passed\n' "$name" "$ok"
    fi
    passed=$((passed + ok))
    failed=$((failed + bad))
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
