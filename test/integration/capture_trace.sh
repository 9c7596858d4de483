#!/bin/bash
# capture_trace.sh — trace options: the size cap per rank and per job
# (tracing stops, the profile stays complete, one message), a sampling interval (far fewer events, the
# profile still exact), precise functions (every call recorded while
# sampling), and the include/exclude filters.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_fib" "$CAPDIR/cap_filter"

# ---- size cap: 1 MiB for fib(27) (635621 calls, 1.27 M events, several
# MiB of trace); the thread buffers (256 KiB) fill several chunks before
# the cap
d=$cap_tmp/cap
VFTR_TRACE_MAX_SIZE="1 MiB" vrun "$d" "$CAPDIR/cap_fib" 27
check "size cap: exit status" 0 "$(cat "$d/.rc")"
check "size cap: one message on stderr" 1 "$(vftr_lines "$d")"
check "size cap: the message names the cap" 1 "$(grep -ciE 'cap|max_size' "$d/.stderr")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check_le "size cap: the file is at most 1 MiB" "$(stat -c %s "$vfd")" 1048576
    check "size cap: header says capped" 1 "$(vkey "$vfd" capped)"
    check "size cap: file complete" 1 "$(vkey "$vfd" complete)"
    check "size cap: no corrupt chunk" 0 "$(vkey "$vfd" errors)"
    check "size cap: what was recorded pairs up" 0 "$(vkey "$vfd" unbalanced)"
    e=$(venter "$vfd" fib)
    check_le "size cap: some fib enters recorded" 1 "$e"
    check_le "size cap: fewer than all" "$e" 635620
else
    fail "size cap: no readable .vfd $vfd"; show "$d/.stderr"
fi
log=$d/cap_fib_0.log
if [ -f "$log" ]; then
    check "size cap: the profile still counts all 635621 calls" 635621 "$(logcalls "$log" fib)"
    check_le "size cap: the log says the cap was reached" 1 "$(grep -c 'reached' "$log")"
else
    fail "size cap: no profile log"
fi

# ---- the cap per job (trace.max_job_size): 4 MiB over a launcher job of 4
# ranks leaves rank 0 1 MiB of fib(27)'s several MiB
d=$cap_tmp/jobcap
PMIX_NAMESPACE=jobcap PMIX_RANK=0 PMIX_SIZE=4 VFTR_TRACE_MAX_JOB_SIZE="4 MiB" \
    vrun "$d" "$CAPDIR/cap_fib" 27
check "job cap: exit status" 0 "$(cat "$d/.rc")"
check "job cap: one message, naming the job's cap and ranks" 1 \
    "$(grep -c 'reached its size cap (1048576 bytes: trace.max_job_size = 4194304 bytes over 4 ranks)' "$d/.stderr")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check_le "job cap: the file is at most 1 MiB" "$(stat -c %s "$vfd")" 1048576
    check_le "job cap: and filled close to it" 1000000 "$(stat -c %s "$vfd")"
    check "job cap: header says capped" 1 "$(vkey "$vfd" capped)"
else
    fail "job cap: no readable .vfd $vfd"; show "$d/.stderr"
fi
check "job cap: the log gives the rank's cap" "1048576 bytes, reached: tracing stopped there, the profile went on" \
    "$(logline "$d/cap_fib_0.log" "size cap")"
check "job cap: and the job's" "4194304 bytes over the job's 4 ranks (trace.max_job_size)" \
    "$(logline "$d/cap_fib_0.log" "job cap")"
check "job cap: the profile still counts all 635621 calls" 635621 "$(logcalls "$d/cap_fib_0.log" fib)"

# the defaults scale with the job: 1 GiB a rank up to 64 ranks, 64 GiB over
# 256 ranks is 256 MiB a rank; the log says both
for n in 1 256; do
    d=$cap_tmp/jobdef$n
    PMIX_NAMESPACE=jobdef$n PMIX_RANK=0 PMIX_SIZE=$n vrun "$d" "$CAPDIR/cap_fib" 10
    want=$((n == 1 ? 1073741824 : 268435456))
    check "default caps, $n rank(s): the rank's" "$want bytes, not reached" \
        "$(logline "$d/cap_fib_0.log" "size cap")"
    check "default caps, $n rank(s): the job's" \
        "68719476736 bytes over the job's $n rank$([ "$n" = 1 ] || echo s) (trace.max_job_size)" \
        "$(logline "$d/cap_fib_0.log" "job cap")"
done

# ---- a cap smaller than one thread buffer (64 KiB against the 256 KiB
# buffer): what fits goes in, then tracing stops
d=$cap_tmp/smallcap
VFTR_TRACE_MAX_SIZE="64 KiB" vrun "$d" "$CAPDIR/cap_fib" 27
check "small cap: exit status" 0 "$(cat "$d/.rc")"
check "small cap: one message on stderr" 1 "$(vftr_lines "$d")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    size=$(stat -c %s "$vfd")
    check_le "small cap: the file is at most 64 KiB" "$size" 65536
    # the events are cut to what fits: the file is filled up to the cap, less
    # at most a definitions chunk that did not fit any more (the events that
    # need it cannot go in either; its size depends on the symbols the run
    # met, e.g. under ASan): within 2 KiB
    check_le "small cap: the file is filled up to the cap" 63488 "$size"
    check "small cap: header says capped" 1 "$(vkey "$vfd" capped)"
    check "small cap: no corrupt chunk" 0 "$(vkey "$vfd" errors)"
    check "small cap: header event count = events read" "$(vkey "$vfd" events)" \
        "$(vkey "$vfd" header_events)"
    # about 2 bytes an event: some 30000 events, 15000 enters
    check_le "small cap: thousands of fib enters recorded" 10000 "$(venter "$vfd" fib)"
else
    fail "small cap: no readable .vfd $vfd"; show "$d/.stderr"
fi
[ -f "$d/cap_fib_0.log" ] && check "small cap: the profile still counts all 635621 calls" 635621 \
    "$(logcalls "$d/cap_fib_0.log" fib)"

# ---- capture's own start is not the program's time: the first function
# (main) used to absorb the reading of the symbol tables (milliseconds) as
# its exclusive time.  fib(3) makes 5 calls, so main's exclusive time is
# microseconds, far under half of the run time (which includes capture's
# start: the clock calibration alone takes 2 ms).  A run preempted inside
# main could exceed it: up to three tries.
for try in 1 2 3; do
    d=$cap_tmp/mainexcl$try
    vrun "$d" "$CAPDIR/cap_fib" 3
    # the % and Function columns, found by the table's header
    pct=$(awk '$1 == "Calls" && /t_excl/ { for (i = 1; i <= NF; i++) { if ($i == "%") pc = i
                                                                 if ($i == "Function") fc = i }
                                           next }
               pc && /^-/ { next }
               pc && NF == 0 { exit }
               pc && $fc == "main" { print $pc; exit }' "$d/cap_fib_0.log" 2>/dev/null)
    [ -n "$pct" ] && awk -v p="$pct" 'BEGIN { exit !(p < 50) }' && break
done
if [ -n "$pct" ] && awk -v p="$pct" 'BEGIN { exit !(p < 50) }'; then
    pass "main's exclusive time leaves out capture's start ($pct % of the run)"
else
    fail "main's exclusive time leaves out capture's start (main: '$pct' % of the run)"
    show "$d/cap_fib_0.log"
fi

# ---- sampling interval 1 ms on fib(27) (635621 calls)
d=$cap_tmp/sample
VFTR_SAMPLING_SAMPLE_INTERVAL=0.001 vrun "$d" "$CAPDIR/cap_fib" 27
check "sampling: exit status" 0 "$(cat "$d/.rc")"
check "sampling: fib(27) made 635621 calls" 635621 "$(pcount "$d" fib)"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    ev=$(vkey "$vfd" events)
    check_le "sampling: some events recorded" 1 "$ev"
    check_le "sampling: under 1 % of the 1.27 M enters and exits" "$ev" 12712
    check "sampling: no corrupt chunk" 0 "$(vkey "$vfd" errors)"
    check "sampling: every event names a known call path" 0 "$(vkey "$vfd" unnamed)"
else
    fail "sampling: no readable .vfd $vfd"; show "$d/.stderr"
fi
[ -f "$d/cap_fib_0.log" ] && check "sampling: profile counts stay exact" 635621 \
    "$(logcalls "$d/cap_fib_0.log" fib)"

# ---- precise functions: interval 100 s, ^precise_ always recorded
d=$cap_tmp/precise
VFTR_SAMPLING_SAMPLE_INTERVAL=100 VFTR_SAMPLING_PRECISE_FUNCTIONS='^precise_' \
    vrun "$d" "$CAPDIR/cap_filter" 5000
check "precise: exit status" 0 "$(cat "$d/.rc")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "precise: every precise_one enter" 5000 "$(venter "$vfd" precise_one)"
    check "precise: every precise_one exit" 5000 "$(vexit "$vfd" precise_one)"
    check_le "precise: keep_one almost never (interval 100 s)" "$(venter "$vfd" keep_one)" 2
else
    fail "precise: no readable .vfd $vfd"; show "$d/.stderr"
fi

# ---- filters (decided once per function)
d=$cap_tmp/exclude
VFTR_FILTER_EXCLUDE='^drop_' vrun "$d" "$CAPDIR/cap_filter" 3000
check "exclude: exit status" 0 "$(cat "$d/.rc")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "exclude: drop_me not in the trace" 0 "$(vnames "$vfd" | grep -c '^drop_me$')"
    check "exclude: keep_one all 3000" 3000 "$(venter "$vfd" keep_one)"
    check "exclude: keep_two (called by drop_me) all 3000" 3000 "$(venter "$vfd" keep_two)"
    check "exclude: keep_two exits" 3000 "$(vexit "$vfd" keep_two)"
    check "exclude: balanced" 0 "$(vkey "$vfd" unbalanced)"
else
    fail "exclude: no readable .vfd $vfd"; show "$d/.stderr"
fi
if [ -f "$d/cap_filter_0.log" ]; then
    check "exclude: drop_me not in the profile" absent "$(logcalls "$d/cap_filter_0.log" drop_me)"
    check "exclude: keep_two in the profile" 3000 "$(logcalls "$d/cap_filter_0.log" keep_two)"
fi

d=$cap_tmp/include
VFTR_FILTER_INCLUDE='^keep_' vrun "$d" "$CAPDIR/cap_filter" 3000
check "include: exit status" 0 "$(cat "$d/.rc")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "include: only keep_one and keep_two traced (and capture's vftr:setup)" \
          "keep_one keep_two vftr:setup" "$(vnames "$vfd" | tr '\n' ' ' | sed 's/ $//')"
    check "include: keep_one 3000" 3000 "$(venter "$vfd" keep_one)"
    check "include: keep_two 3000" 3000 "$(vexit "$vfd" keep_two)"
else
    fail "include: no readable .vfd $vfd"; show "$d/.stderr"
fi

# ---- profile only (Vftrace's "sampling": {"active": false})
printf '{ "sampling": { "active": false } }\n' >"$cap_tmp/profile.json"
d=$cap_tmp/profile
VRUN_OPTS="--config $cap_tmp/profile.json" vrun "$d" "$CAPDIR/cap_fib" 20
check "profile only: exit status" 0 "$(cat "$d/.rc")"
check "profile only: no trace file" 0 "$(find "$d" -name '*vfd' | wc -l)"
if [ -f "$d/cap_fib_0.log" ]; then
    check "profile only: fib(20) calls in the log" 21891 "$(logcalls "$d/cap_fib_0.log" fib)"
else
    fail "profile only: no profile log"
fi

finish
