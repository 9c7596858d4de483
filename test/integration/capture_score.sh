#!/bin/bash
# capture_score.sh — measurement control: a Score-P filter file (the
# excluded function neither traced nor profiled, the others exact),
# throttling (a tiny hot function stops being traced past throttle.calls,
# is still counted, and the log and the trace say so), vftr-score's
# estimate against the size of a real capture, and its -g filter bringing
# the next run under the target.  The program, cap_hot, counts its own
# calls: tiny() 150000 times, work() 2000 times, leaf() 4 times a work().
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
unset VFTR_THROTTLE_ACTIVE   # the default, on, is under test here
SCORE=$cap_build/bin/vftr-score
require "$CAPDIR/cap_hot" "$SCORE"

N=150000 K=2000

# ---- a Score-P filter file (as the Score-P manual writes them)
d=$cap_tmp/filter
cat >"$cap_tmp/tiny.filt" <<'EOF'
# leave out the tiny hot function
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE *
  INCLUDE main work
          leaf
SCOREP_REGION_NAMES_END
EOF
VRUN_OPTS="--filter $cap_tmp/tiny.filt" vrun "$d" "$CAPDIR/cap_hot" $N $K
check "filter file: exit status" 0 "$(cat "$d/.rc")"
check "filter file: the program ran tiny() $N times" $N "$(pcount "$d" tiny)"
check "filter file: nothing on stderr" 0 "$(vftr_lines "$d")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "filter file: no tiny() in the trace" 0 "$(venter "$vfd" tiny)"
    check "filter file: every work() traced" $K "$(venter "$vfd" work)"
    check "filter file: every leaf() traced" $((4 * K)) "$(venter "$vfd" leaf)"
else
    fail "filter file: no readable .vfd"; show "$d/.stderr"
fi
log=$(only_file "$d" '*_0.log')
check "filter file: no tiny() in the profile" absent "$(logcalls "$log" tiny)"
check "filter file: work() counted" $K "$(logcalls "$log" work)"

# a file that does not parse: the message names the file and the line,
# capture goes on without it
printf 'SCOREP_REGION_NAMES_BEGIN\n  tiny\nSCOREP_REGION_NAMES_END\n' >"$cap_tmp/bad.filt"
d=$cap_tmp/badfilter
VFTR_FILTER_FILE=$cap_tmp/bad.filt vrun "$d" "$CAPDIR/cap_hot" 1000 10
check "bad filter file: exit status" 0 "$(cat "$d/.rc")"
check "bad filter file: one message naming file and line" 1 \
    "$(grep -c "bad.filt: line 2: expected INCLUDE or EXCLUDE" "$d/.stderr")"

# ---- depth limit (uftrace's -D): --depth 2 keeps main (1), tiny and work
# (2); leaf (3) is neither traced nor profiled, its time is work's
d=$cap_tmp/depth
VRUN_OPTS="--no-throttle --depth 2" vrun "$d" "$CAPDIR/cap_hot" 20000 $K
check "depth 2: exit status" 0 "$(cat "$d/.rc")"
log=$(only_file "$d" '*_0.log')
check "depth 2: no leaf() in the profile" absent "$(logcalls "$log" leaf)"
check "depth 2: every work() counted" $K "$(logcalls "$log" work)"
check "depth 2: every tiny() counted" 20000 "$(logcalls "$log" tiny)"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "depth 2: no leaf() in the trace" 0 "$(venter "$vfd" leaf)"
    check "depth 2: every work() traced" $K "$(venter "$vfd" work)"
else
    fail "depth 2: no readable .vfd"; show "$d/.stderr"
fi
# recursion across the limit: fib(20) has 1, 2, 4, 8 calls at depths 2 to 5
# (main is 1); with the limit at 5 the profile counts 15, and every exit
# below the limit is told from an exit of the same function above it
d=$cap_tmp/depthfib
VRUN_OPTS="--no-throttle --depth 5" vrun "$d" "$CAPDIR/cap_fib" 20
check "depth 5, fib(20): the program's result" 1 "$(grep -c '^fib(20) = 6765$' "$d/.stdout")"
check "depth 5, fib(20): 1 + 2 + 4 + 8 fib calls counted" 15 \
    "$(logcalls "$(only_file "$d" '*_0.log')" fib)"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "depth 5, fib(20): 15 fib calls traced" 15 "$(venter "$vfd" fib)"
    check "depth 5, fib(20): the trace pairs up" 0 "$(vkey "$vfd" unbalanced)"
else
    fail "depth 5: no readable .vfd"; show "$d/.stderr"
fi

# ---- minimum duration (uftrace's -t): with 1 ms only main (the whole run,
# tens of ms) is traced; tiny(), work() and leaf() (microseconds) are taken
# back at their exits; the profile counts every call
d=$cap_tmp/mindur
VRUN_OPTS="--no-throttle --min-duration 0.001" vrun "$d" "$CAPDIR/cap_hot" 20000 $K
check "min duration: exit status" 0 "$(cat "$d/.rc")"
log=$(only_file "$d" '*_0.log')
check "min duration: every tiny() counted" 20000 "$(logcalls "$log" tiny)"
check "min duration: every leaf() counted" $((4 * K)) "$(logcalls "$log" leaf)"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "min duration: main traced" 1 "$(venter "$vfd" main)"
    # none but calls the scheduler held up for a millisecond (this machine
    # is shared, and a sanitizer slows everything): at most 1 % of each
    check_le "min duration: tiny() not traced (1 % of the calls at most)" \
        "$(venter "$vfd" tiny)" 200
    check_le "min duration: work() not traced (1 %)" "$(venter "$vfd" work)" 20
    check_le "min duration: leaf() not traced (1 %)" "$(venter "$vfd" leaf)" 80
    check "min duration: the trace pairs up" 0 "$(vkey "$vfd" unbalanced)"
else
    fail "min duration: no readable .vfd"; show "$d/.stderr"
fi
# a threshold below every call: all traced
d=$cap_tmp/mindur0
VRUN_OPTS="--no-throttle --min-duration 1e-12" vrun "$d" "$CAPDIR/cap_hot" 20000 $K
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "min duration 1 ps: every call traced" "20000 $K $((4 * K))" \
        "$(venter "$vfd" tiny) $(venter "$vfd" work) $(venter "$vfd" leaf)"
else
    fail "min duration 1 ps: no readable .vfd"; show "$d/.stderr"
fi

# ---- throttling, on by default: tiny() is past 100000 calls of some
# 100 ns.  throttle.per_call is raised from 10 us to 1 ms so that the test
# does not hang on the speed of the build (a sanitizer makes tiny() take
# microseconds)
export VFTR_THROTTLE_PER_CALL=0.001
d=$cap_tmp/throttle
vrun "$d" "$CAPDIR/cap_hot" $N $K
check "throttle: exit status" 0 "$(cat "$d/.rc")"
log=$(only_file "$d" '*_0.log')
check "throttle: the profile still counts every tiny()" $N "$(logcalls "$log" tiny)"
check "throttle: the log names one throttled call path" 1 \
    "$(grep -c '^  throttled *1 call path,' "$log")"
unset VFTR_THROTTLE_PER_CALL
tiny_id=$(sed -n 's/^ *\([0-9]*\)  tiny<main$/\1/p' "$log")
check "throttle: the log gives tiny's call path id" 1 \
    "$(grep -c "^  throttled .*(STID $tiny_id)" "$log")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    e=$(venter "$vfd" tiny)
    check_le "throttle: tiny() traced at least throttle.calls times" 100000 "$e"
    check_le "throttle: but not all $N calls" "$e" $((N - 1))
    check "throttle: every work() still traced" $K "$(venter "$vfd" work)"
    check "throttle: the trace pairs up" 0 "$(vkey "$vfd" unbalanced)"
    check "throttle: one THROTTLE event, naming tiny's call path" 1 \
        "$("$cap_build/bin/vftr-dump" "$vfd" | grep -c 'EVENT kind=6 length=1')"
else
    fail "throttle: no readable .vfd"; show "$d/.stderr"
fi
# lower thresholds throttle work() too (2000 calls of some us): per_call 1 s.
# The call paths are looked at when a thread's buffer is flushed: with
# tiny() throttled the rest makes few events, so the buffer is made small
# (VFTR_BUFFER_KIB, 4 KiB) for the flushes to come while work() runs
d=$cap_tmp/throttle_all
VFTR_BUFFER_KIB=4 VFTR_THROTTLE_CALLS=1000 VFTR_THROTTLE_PER_CALL=1 \
    vrun "$d" "$CAPDIR/cap_hot" $N $K
log=$(only_file "$d" '*_0.log')
check "throttle settings: tiny, work and leaf throttled" 1 \
    "$(grep -c '^  throttled *3 call paths,' "$log")"
check "throttle settings: work() still counted" $K "$(logcalls "$log" work)"
# --no-throttle: every call traced
d=$cap_tmp/nothrottle
VRUN_OPTS=--no-throttle vrun "$d" "$CAPDIR/cap_hot" $N $K
log=$(only_file "$d" '*_0.log')
check "no throttle: the log says nothing of throttling" 0 "$(grep -c '^  throttled' "$log")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "no throttle: every tiny() traced" $N "$(venter "$vfd" tiny)"
    actual=$(stat -c %s "$vfd")
    # from a trace, the estimate is the file measured record by record
    check "vftr-score: from the trace, the estimate is its size" "$actual" \
        "$("$SCORE" --bytes "$vfd")"
else
    fail "no throttle: no readable .vfd"; show "$d/.stderr"; actual=0
fi

# ---- vftr-score from a profile-only run, against the trace of the same
# program (the run above): within 10 %.  cap_hot's times between events lie
# well inside the two-byte deltas (see cap_hot.c), so the estimate does not
# depend on how fast this shared machine happens to run either program
p=$cap_tmp/profile
VFTR_SAMPLING_ACTIVE=0 vrun "$p" "$CAPDIR/cap_hot" $N $K
est=$("$SCORE" --bytes "$p" 2>"$p/.score.err")
check "vftr-score: --bytes from the profile log: exit status" 0 $?
within=$(awk -v e="$est" -v a="$actual" 'BEGIN { d = e - a; if (d < 0) d = -d; print (a > 0 && d <= 0.10 * a) ? 1 : 0 }')
if [ -z "$CAP_SAN" ]; then
    check "vftr-score: estimate $est bytes within 10 % of the trace's $actual bytes" 1 "$within"
else
    # a sanitizer slows cap_hot's calls past the times cap_hot.c keeps
    # them in, to the next length of a delta
    skip "vftr-score: estimate within 10 %" "the calls' times under $CAP_SAN are not cap_hot's"
fi
"$SCORE" "$p" >"$p/.table" 2>&1
check "vftr-score: the table has the groups and tiny() as a USR region" 1 \
    "$(grep -c '^ *USR .* tiny$' "$p/.table")"

# ---- -g: a filter for a quarter of the trace; the next run stays under it
target=$((actual / 4))
"$SCORE" --generate "$cap_tmp/gen.filt" --target "$target" "$p" >"$p/.gen" 2>&1
check "vftr-score --generate: exit status" 0 $?
check "vftr-score --generate: tiny() excluded" 1 "$(grep -c '^ *EXCLUDE tiny$\|^ *tiny$' "$cap_tmp/gen.filt")"
check "vftr-score --generate: main and work() kept" 0 "$(grep -cE '^ *(EXCLUDE )?(main|work)$' "$cap_tmp/gen.filt")"
check "vftr-score --generate: the gcc flag for compile-time exclusion names tiny(), not main or work()" \
      "1 0" "$(grep -c '^compile time (gcc): -finstrument-functions-exclude-function-list=\(.*,\)\?tiny\(,\|$\| \)' "$p/.gen") $(grep -cE 'exclude-function-list=([^ ]*,)?(main|work)(,| |$)' "$p/.gen")"
refest=$("$SCORE" --bytes -f "$cap_tmp/gen.filt" "$p")
check_le "vftr-score -f: the re-estimate is under the target" "$refest" "$target"
d=$cap_tmp/generated
VRUN_OPTS="--no-throttle --filter $cap_tmp/gen.filt" vrun "$d" "$CAPDIR/cap_hot" $N $K
if vfd=$(only_file "$d" '*.vfd'); then
    check_le "vftr-score --generate: the next run's trace is under $target bytes" "$(stat -c %s "$vfd")" "$target"
else
    fail "vftr-score --generate: no trace of the filtered run"
fi
check "vftr-score --generate: an unreachable target fails" 1 \
    "$("$SCORE" --generate "$cap_tmp/none.filt" --target 100 "$p" >/dev/null 2>&1; echo $?)"

# ---- the job's size cap (one process: its share is all of it), and near
# it only MPI, OpenMP and region events go on (none here): the functions
# are throttled with one message.  The call paths are looked at when a
# buffer is flushed: 4 KiB buffers (VFTR_BUFFER_KIB) for a cap this small
d=$cap_tmp/jobcap
VRUN_OPTS=--no-throttle VFTR_BUFFER_KIB=4 VFTR_TRACE_MAX_JOB_SIZE="256 KiB" \
    vrun "$d" "$CAPDIR/cap_hot" $N $K
check "job cap: exit status" 0 "$(cat "$d/.rc")"
check "job cap: one message, near the cap" 1 "$(grep -c 'near its size cap (this rank.s share of trace.max_job_size = 262144 bytes)' "$d/.stderr")"
log=$(only_file "$d" '*_0.log')
check "job cap: the profile counts every tiny()" $N "$(logcalls "$log" tiny)"
check "job cap: the log says the functions were throttled near the cap" 1 \
    "$(grep -c '^  throttled .*near the size cap' "$log")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check_le "job cap: the trace is at most 256 KiB" "$(stat -c %s "$vfd")" 262144
    check "job cap: the trace pairs up" 0 "$(vkey "$vfd" unbalanced)"
    check "job cap: the cap was never reached" 0 "$(vkey "$vfd" capped)"
    check "job cap: work() traced until near the cap, not after (0 < enters < $K)" 1 \
        "$(e=$(venter "$vfd" work); [ "$e" -gt 0 ] && [ "$e" -lt $K ] && echo 1)"
else
    fail "job cap: no readable .vfd"; show "$d/.stderr"
fi

# ---- the gcc flag: gcc excludes every function whose name contains one of
# the list's names, so an excluded name inside a kept function's name stays
# out of it (left to the filter).  cap_patch: hot() and cold_exit()
# excluded by -f, lib_hot() (which contains "hot") kept.
if [ -x "$CAPDIR/cap_patch" ] && [ -e "$CAPDIR/libcappatch.so" ]; then
    d=$cap_tmp/patchprog
    VFTR_THROTTLE_ACTIVE=0 vrun "$d" "$CAPDIR/cap_patch" 1000 1 "$CAPDIR" 1
    printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE hot cold_exit\nSCOREP_REGION_NAMES_END\n' >"$cap_tmp/hc.filt"
    "$SCORE" -f "$cap_tmp/hc.filt" --generate "$cap_tmp/hc.gen" --target 1T "$d" >"$d/.gen" 2>&1
    check "vftr-score -f --generate: exit status" 0 $?
    check "vftr-score --generate: the gcc flag has cold_exit, not hot (a part of the kept lib_hot)" \
          "compile time (gcc): -finstrument-functions-exclude-function-list=cold_exit (1 excluded function left to the filter: not a C identifier, or a part of a kept function's name, which gcc would exclude too)" \
          "$(grep '^compile time' "$d/.gen")"
    check "vftr-score --generate: the filter file has both and the flag as a comment" "2 1" \
          "$(grep -cE '^ *(EXCLUDE )?(hot|cold_exit)$' "$cap_tmp/hc.gen") $(grep -c '^# gcc.*exclude-function-list=cold_exit$' "$cap_tmp/hc.gen")"
    check "vftr-score -f: the generated file (with its comment) reads back" 0 \
          "$("$SCORE" -f "$cap_tmp/hc.gen" "$d" >/dev/null 2>&1; echo $?)"
fi

# ---- bad input: a message naming the file, non-zero exit
echo "not a log" >"$cap_tmp/x.log"
"$SCORE" "$cap_tmp/x.log" >/dev/null 2>"$cap_tmp/x.err"
check "vftr-score: a file that is no log: exit status 1" 1 $?
check "vftr-score: ... and the message names it" 1 \
    "$(grep -c "x.log: offset 0: expected a vftr profile log" "$cap_tmp/x.err")"
"$SCORE" --generate "$cap_tmp/y.filt" "$p" >/dev/null 2>&1
check "vftr-score: --generate without --target is a usage error" 2 $?

finish
