#!/bin/bash
# common.sh — helpers sourced by test/integration/capture_*.sh (kept here,
# not in test/integration/, so that the test runner does not take it for a
# test of its own).
#
# The scripts run the instrumented programs of test/capture/ (each counts
# its own calls and prints "count NAME N") under $BUILD/bin/vftr-run and
# compare three independent numbers: the program's own count, the enter and
# exit events in the .vfd (read by $BUILD/test/capture/vfdcount through
# lib/vfd's reader) and the Calls column of the profile log.
#
# Environment: BUILD (default build); CAPTURE_KEEP=1 keeps the scratch
# directory (its path is printed).

set -u
export LC_ALL=C
: "${BUILD:=build}"

# Absolute paths: some tests run the programs from another directory.
cap_build=$BUILD
[ -d "$BUILD" ] && cap_build=$(cd "$BUILD" && pwd)
CAPDIR=$cap_build/test/capture
VFTR_RUN=$cap_build/bin/vftr-run
VFDCOUNT=$CAPDIR/vfdcount
# Wall-clock limit of one program run: capture must never hang a program.
RUN_TIMEOUT=${CAPTURE_TIMEOUT:-120}

cap_failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; cap_failures=$((cap_failures + 1)); }
# check WHAT EXPECTED ACTUAL
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}
# check_le WHAT A B: A <= B (integers)
check_le() {
    if [ -n "$2" ] && [ -n "$3" ] && [ "$2" -le "$3" ] 2>/dev/null; then pass "$1 ($2 <= $3)"
    else fail "$1 (expected $2 <= $3)"; fi
}
# Shows the head of a file indented under a FAIL line.
show() { sed -n '1,12s/^/    /p' "$@"; }
# skip WHAT WHY: a check that cannot run here, and why (not counted).
skip() { echo "SKIP: $1 ($2)"; }
finish() {
    san_reports
    check_traces "$cap_tmp" "$cap_build/bin/vftr-dump"
    exit $((cap_failures > 0))
}

# check_traces (test/check_traces.sh): every trace this script made passes
# vftr-dump --check.
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/check_traces.sh"

# Drop every VFTR_* variable of the caller's environment so that only what a
# test sets counts.
for v in $(env | sed -n 's/^\(VFTR_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# require FILE...: each must exist and be executable, else one FAIL and exit.
require() {
    local f
    for f in "$@"; do
        if [ ! -x "$f" ]; then
            fail "$f is not built (make check builds it)"
            exit 1
        fi
    done
}
require "$VFTR_RUN" "$VFDCOUNT"

# The sanitizer the capture library (and then the test programs, built the
# same way) carries: address (ASan + UBSan), thread (TSan), or "" (none).
# Under ASan vftr-run preloads libasan before libvftrcapture.so, under TSan
# libtsan (see capture/tools/vftr-run.c).
CAP_SAN=
case $(ldd "$cap_build/lib/libvftrcapture.so" 2>/dev/null) in
    *libasan*) CAP_SAN=address ;;
    *libtsan*) CAP_SAN=thread ;;
esac
# UBSan only prints its findings and goes on: make the programs fail on
# them (halt_on_error) and print a stack; each run's stderr is also searched
# for sanitizer reports at the end (san_reports).
if [ -n "$CAP_SAN" ]; then
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
fi
# Under TSan: the libraries vftr does not build (OpenMP runtimes, Open MPI,
# libgfortran) are not instrumented; test/tsan.supp names them.
if [ "$CAP_SAN" = thread ]; then
    export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tsan.supp"
fi
# Run directories (under $cap_tmp) where a sanitizer report is the
# expected outcome, separated by blanks (a test adds to it).
CAP_SAN_EXPECTED=

cap_tmp=$(mktemp -d "${TMPDIR:-/tmp}/vftr_capture.XXXXXX")
cap_cleanup() {
    if [ "${CAPTURE_KEEP:-0}" = 1 ]; then echo "kept: $cap_tmp"; return; fi
    # a test may have mounted a tmpfs below cap_tmp
    grep -F " $cap_tmp/" /proc/mounts 2>/dev/null | awk '{ print $2 }' | while read -r m; do
        umount "$m" 2>/dev/null
    done
    rm -rf "$cap_tmp"
}
trap cap_cleanup EXIT

# vrun DIR PROG ARGS...: runs PROG under vftr-run with output in DIR (made
# if missing); stdout, stderr and the exit status go to DIR/.stdout,
# DIR/.stderr, DIR/.rc (hidden so that they do not look like results).
# Extra vftr-run options can be passed in VRUN_OPTS, extra environment by
# the caller (VAR=value vrun ...).
vrun() {
    local dir=$1; shift
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" ${VRUN_OPTS:-} --out "$dir" -- "$@" \
        >"$dir/.stdout" 2>"$dir/.stderr"
    echo $? >"$dir/.rc"
}

# plain DIR PROG ARGS...: the same without vftr (the reference output).
plain() {
    local dir=$1; shift
    mkdir -p "$dir"
    timeout -s KILL "$RUN_TIMEOUT" "$@" >"$dir/.stdout" 2>"$dir/.stderr"
    echo $? >"$dir/.rc"
}

# pcount DIR NAME: the program's own count of NAME ("count NAME N").
pcount() { awk -v n="$2" '$1 == "count" && $2 == n { v = $3 } END { print v + 0 }' "$1/.stdout"; }

# vfdc FILE: runs vfdcount on FILE; its output is kept under $cap_tmp (not
# next to FILE, which may sit on a full file system) for vkey and friends.
# Returns vfdcount's status.
cfile() { echo "$cap_tmp/.counts/$(printf '%s' "$1" | tr '/' '_')"; }
vfdc() {
    mkdir -p "$cap_tmp/.counts"
    "$VFDCOUNT" --threads "$1" >"$(cfile "$1").count" 2>"$(cfile "$1").err"
}
# verr FILE: vfdcount's messages about FILE
verr() { cat "$(cfile "$1").err"; }
# vkey FILE KEY: the value of a "key value" line of vfdcount's output
vkey() { awk -v k="$2" '$1 == k { v = $2 } END { print v }' "$(cfile "$1").count"; }
# ventry FILE NAME FIELD: enter (2), exit (3) or sample (4) count of NAME
ventry() {
    awk -F'\t' -v n="$2" -v f="$3" '$1 == "function" && $5 == n { v = $f } END { print v + 0 }' \
        "$(cfile "$1").count"
}
venter() { ventry "$1" "$2" 2; }
vexit() { ventry "$1" "$2" 3; }
# vnames FILE: function names in the trace, one a line
vnames() { awk -F'\t' '$1 == "function" { print $5 }' "$(cfile "$1").count"; }
# vthreads FILE: "ID ENTER EXIT" per thread
vthreads() { awk -F'\t' '$1 == "thread" { print $2, $3, $4 }' "$(cfile "$1").count"; }

# logrows LOG, logcalls LOG NAME: the profile table of a log (logcalls.sh)
# shellcheck source=logcalls.sh
. "$(dirname "${BASH_SOURCE[0]}")/logcalls.sh"

# logedges LOG: "CALLER CALLEE CALLS" per caller and function of the profile
# (rows of all threads summed), sorted; capture's own region vftr:setup
# (the time it spent meeting a new function) is no call of the program.
logedges() {
    logrows "$1" | awk -F'\t' '$1 != "vftr:setup" { n[$2 " " $1] += $3 }
                               END { for (k in n) print k, n[k] }' | sort
}

# log_vs_stats LOG TRACE: compares the log's profile, summed per function,
# with vftr-stats on TRACE (threads folded): calls must be equal, exclusive
# and inclusive seconds agree within what printing and the trace's clock
# allow: half the last printed digit (1 us) per log row and once for
# vftr-stats, plus 1 ns (the converted trace's timer) per enter and exit
# of the function's calls, and of its callees' for the exclusive time.
# Prints one line per disagreement, nothing when all agree.
log_vs_stats() {
    "$cap_build/bin/vftr-stats" -F --csv "$2" >"$cap_tmp/.stats.csv" 2>&1 || {
        echo "vftr-stats failed: $(head -2 "$cap_tmp/.stats.csv")"; return; }
    logrows "$1" | awk -F'\t' -v stats="$cap_tmp/.stats.csv" '
        { calls[$1] += $3; excl[$1] += $4; incl[$1] += $5; rows[$1]++; kids[$2] += $3 }
        function abs(x) { return x < 0 ? -x : x }
        END {
            while ((getline line < stats) > 0) {
                if (line ~ /^calls,/) continue
                k = split(line, v, ",")
                f = v[k]; seen[f] = 1
                if (!(f in calls)) { print "vftr-stats has " f ", the log has not"; continue }
                if (v[1] != calls[f]) print f ": calls " calls[f] " in the log, " v[1] " in the trace"
                tol = 5e-7 * (rows[f] + 1) + 2e-9 * calls[f]
                if (abs(v[4] - incl[f]) > tol)
                    printf "%s: inclusive %.6f in the log, %.6f in the trace (tolerance %.6f)\n", f, incl[f], v[4], tol
                tol += 2e-9 * kids[f]
                if (abs(v[2] - excl[f]) > tol)
                    printf "%s: exclusive %.6f in the log, %.6f in the trace (tolerance %.6f)\n", f, excl[f], v[2], tol
            }
            for (f in calls) if (!(f in seen)) print "the log has " f ", vftr-stats has not"
        }'
}

# only_file DIR PATTERN: the one file of DIR matching PATTERN, or a
# description of what is there instead.
only_file() {
    local n
    n=$(find "$1" -maxdepth 1 -name "$2" | wc -l)
    if [ "$n" = 1 ]; then find "$1" -maxdepth 1 -name "$2"; return 0; fi
    echo "($n files $2 in $1: $(ls -A "$1" | tr '\n' ' '))"
    return 1
}

# vftr_lines DIR: lines of the run's stderr that come from vftr.
vftr_lines() { grep -c '^vftr' "$1/.stderr"; }

# san_reports: one FAIL per run whose stderr holds a report of a sanitizer
# (every run of vrun and plain keeps its stderr in DIR/.stderr), except the
# directories in CAP_SAN_EXPECTED.  Without a sanitizer there is nothing to
# find; the check runs anyway (it costs nothing).
san_reports() {
    local f dir n=0
    while IFS= read -r f; do
        dir=$(dirname "$f")
        case " $CAP_SAN_EXPECTED " in *" $dir "*) continue ;; esac
        if grep -qE '^(==[0-9]+==ERROR: (Address|Leak|Undefined)Sanitizer|WARNING: ThreadSanitizer)|runtime error: ' "$f"; then
            fail "sanitizer report in ${dir#"$cap_tmp"/}"
            grep -E -A12 'ERROR: [A-Za-z]+Sanitizer|WARNING: ThreadSanitizer|runtime error: ' "$f" | show
            n=$((n + 1))
        fi
    done < <(find "$cap_tmp" -name .stderr 2>/dev/null | sort)
    [ -z "$CAP_SAN" ] || [ "$n" -gt 0 ] || pass "no $CAP_SAN sanitizer report in any run"
}
