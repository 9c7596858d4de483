#!/bin/bash
# omp_regions.sh — vftr's OpenMP tool (capture/ompt.c) against a program
# that counts what it does (test/omp/omp_count.c, built with clang
# -fopenmp, i.e. LLVM's libomp with OMPT), read back by test/omp/ompcheck:
#  - per OS thread and region kind, the recorded regions equal the
#    program's own counts (parallel, implicit tasks, loops, sections,
#    single, barriers, taskwait, taskgroup, masked, critical, locks, nest
#    locks, ordered, explicit tasks, and the waits for mutexes);
#  - regions nest on every thread, every event's region is defined before
#    it, nested parallel regions appear inside implicit tasks;
#  - team sizes, lock hold and wait times, enclosing function names;
#  - each region's source file and line: the line of its pragma (or lock
#    call) in omp_count.c, found here with grep -n on the source; the same
#    program stripped runs with the same counts and regions without lines;
#  - the same without -finstrument-functions (capture starts at main, the
#    tool records; the log and one message say what is missing);
#  - a program built with gcc -fopenmp (libgomp: no OMPT) runs unharmed and
#    records no OpenMP regions;
#  - the profile log's rows of the regions: calls per kind equal the
#    program's counts (crosscheck.sh compares them with vftr-stats).
# OMP_NUM_THREADS is fixed by each run.
. "$(dirname "$0")/../capture/common.sh"

OMPDIR=$cap_build/test/omp
OMPCHECK=$OMPDIR/ompcheck
if [ ! -x "$OMPDIR/omp_count" ]; then
    skip "OpenMP regions" "no clang with omp.h: $OMPDIR/omp_count not built"
    finish
fi
require "$OMPCHECK"

# The library keeps ompt_start_tool, exported, although nothing in it calls it
if nm -D --defined-only "$cap_build/lib/libvftrcapture.so" 2>/dev/null | grep -qw 'T ompt_start_tool'; then
    pass "libvftrcapture.so exports ompt_start_tool"
else fail "libvftrcapture.so does not export ompt_start_tool"; fi

# ck DIR KEY: a "key value" line of ompcheck's output for DIR's trace
ck() { awk -v k="$2" '$1 == k { v = $2 } END { print v }' "$1/.check"; }

# omp_run NAME THREADS ROUNDS [PROG]: runs omp_count (or PROG) and ompcheck, checks the
# counts; leaves the run in $cap_tmp/NAME
omp_run() {
    local name=$1 threads=$2 rounds=$3 prog=${4:-omp_count} d=$cap_tmp/$1 vfd
    case $prog in */*) ;; *) prog=$OMPDIR/$prog ;; esac
    OMP_NUM_THREADS=$threads OMP_PROC_BIND=false vrun "$d" "$prog" "$rounds"
    check "$name: exit status" 0 "$(cat "$d/.rc")"
    vfd=$(ls "$d"/*.vfd 2>/dev/null | head -1)
    if [ -z "$vfd" ] || ! "$OMPCHECK" --values "$vfd" >"$d/.check" 2>"$d/.checkerr"; then
        fail "$name: ompcheck could not read the trace"; show "$d/.stderr" "$d/.checkerr"
        return 1
    fi
    # a worker's share of a parallel region and its idle time between
    # regions are vftr's frames, no construct the program counts (below)
    grep '^count ' "$d/.stdout" | sort >"$d/.want"
    grep '^count ' "$d/.check" | grep -vE ' (parallel_worker|idle) ' | sort >"$d/.got"
    if cmp -s "$d/.want" "$d/.got"; then
        pass "$name: regions per thread and kind equal the program's counts ($(wc -l <"$d/.want") lines)"
    else
        fail "$name: regions per thread and kind differ from the program's counts"
        diff "$d/.want" "$d/.got" | sed -n '1,20s/^/    /p'
    fi
    local k want got
    for k in parallel implicit_task loop sections single single_other barrier barrier_explicit \
             taskwait taskgroup masked critical_wait critical lock_wait lock ordered_wait ordered task; do
        want=$(awk -v k="$k" '$1 == "total" && $2 == k { print $3 }' "$d/.stdout")
        got=$(awk -v k="$k" '$1 == "total" && $2 == k { print $3 }' "$d/.check")
        check "$name: total $k" "$want" "$got"
    done
    # the profile log has the regions too (capture.md, "In the profile"),
    # rows "omp KIND[ @WHERE]" among the functions: their calls per kind
    # equal the program's counts, but that a worker's share of a parallel
    # region is a row of the region (so there is one per implicit task) and
    # the idle time is vftr's (checked apart)
    logrows "$(ls "$d"/*.log 2>/dev/null | head -1)" |
        awk -F'\t' '$1 ~ /^omp / && $1 != "omp idle" {
                                   k = substr($1, 5); sub(/ @.*$/, "", k); gsub(/ \(/, "_", k)
                                   gsub(/\)/, "", k); gsub(/ /, "_", k); n[k] += $3 }
                    END { for (k in n) print "total", k, n[k] }' | sort >"$d/.logtotals"
    awk '$1 == "total" && $2 == "implicit_task" { it = $3 }
         $1 == "total" && $3 > 0 { t[$2] = $3 }
         END { if ("parallel" in t) t["parallel"] = it; for (k in t) print "total", k, t[k] }' \
        "$d/.stdout" | sort >"$d/.wanttotals"
    if [ -s "$d/.wanttotals" ] && cmp -s "$d/.wanttotals" "$d/.logtotals"; then
        pass "$name: the log's region rows: calls per kind equal the program's counts"
    else
        fail "$name: the log's region rows: calls per kind differ from the program's counts"
        diff "$d/.wanttotals" "$d/.logtotals" | sed -n '1,12s/^/    /p'
    fi
    # every team member but the encountering thread (the implicit task
    # numbered 0) holds its implicit task in a share of the parallel region
    check "$name: a worker's share of the region around each worker's implicit task" \
        "$(awk '$1 == "total" && $2 == "implicit_task" { i = $3 } $1 == "total" && $2 == "parallel" { p = $3 }
                END { print i - p }' "$d/.stdout")" \
        "$(awk '$1 == "total" && $2 == "parallel_worker" { print $3 }' "$d/.check")"
    check "$name: events of undefined regions" 0 "$(ck "$d" undefined)"
    check "$name: ends that do not match the innermost begin" 0 "$(ck "$d" unbalanced)"
    check "$name: regions of unknown kinds" 0 "$(ck "$d" badkind)"
    # libomp reports the end of a worker's last implicit task (and of the
    # join barrier before it) only when it shuts down, after capture has
    # finalized: the finalizer ends them (vftr_ompt_close_all), so nothing
    # is left open.
    check "$name: regions left open" 0 "$(ck "$d" open)"
}

# 1. four threads, three rounds, nested parallelism
omp_run t4 4 3
d=$cap_tmp/t4
check "t4: nested parallel regions (inside an implicit task)" 2 "$(ck "$d" nested_parallel)"
# parallel END values are the team sizes: 3 rounds of 4, then 2 x 2 nested
check "t4: parallel regions with a team of 4" 3 \
    "$(awk '$1 == "value" && $2 == "parallel" && $3 == 4 { print $4 }' "$d/.check")"
check "t4: parallel regions with a team of 2" 3 \
    "$(awk '$1 == "value" && $2 == "parallel" && $3 == 2 { print $4 }' "$d/.check")"
# implicit task values are the thread numbers in the team
check "t4: implicit tasks numbered 3 (one per round)" 3 \
    "$(awk '$1 == "value" && $2 == "implicit_task" && $3 == 3 { print $4 }' "$d/.check")"
# lock hold and wait times (microseconds): each acquisition holds the lock
# hold_us, so no recorded hold is shorter; the recorded waits lie inside the
# time the program measured around omp_set_lock / omp_set_nest_lock (1 %
# and 1 us per wait for the clocks' difference), and are not all zero
hold=$(awk '$1 == "hold_us" { print $2 }' "$d/.stdout")
check_le "t4: shortest lock hold (us) >= the program's hold" "$hold" \
    "$(awk '$1 == "time" && $2 == "lock" { print int($4 + 0.5) }' "$d/.check")"
waits=$(awk '$1 == "total" && $2 == "lock_wait" { print $3 }' "$d/.check")
check_le "t4: recorded lock waits (us) within the program's measured waits" \
    "$(awk '$1 == "time" && $2 == "lock_wait" { print int($3) }' "$d/.check")" \
    "$(awk -v n="$waits" '$1 == "lock_wait_us" { print int($2 * 1.01 + n + 1) }' "$d/.stdout")"
if awk '$1 == "time" && $2 == "lock_wait" { exit !($3 > 0) }' "$d/.check"; then
    pass "t4: lock waits have a duration"
else fail "t4: every lock wait lasted 0"; fi
# enclosing functions of the code addresses (symbols of the program)
for f in "parallel one_round" "parallel run_nested" "loop .omp_outlined." "task .omp_outlined."; do
    if grep -q "^region ${f}" "$d/.check"; then pass "t4: a region '$f...' is defined"
    else fail "t4: no region '$f...'"; grep '^region' "$d/.check" | sed -n '1,12s/^/    /p'; fi
done
if grep -q "^region parallel .omp_outlined" "$d/.check"; then
    pass "t4: the inner nested parallel region is named by its outlined function"
else fail "t4: no inner parallel region in an outlined function"; fi

# source lines: KIND ERE: the definitions of KIND name omp_count.c and
# exactly the lines of the source that match ERE (grep -n, so the test
# follows the source when it moves)
SRC=$(dirname "$0")/../omp/omp_count.c
src_lines() { grep -nE "$1" "$SRC" | cut -d: -f1 | sort -n | uniq | tr '\n' ' '; }
def_lines() {
    awk -v k="$2" '$1 == "region" && $2 == k && $4 != "-" { print $4 " " $5 }' "$1/.check" |
        while read -r f l; do
            case $f in */omp_count.c) echo "$l" ;; *) echo "other:$f:$l" ;; esac
        done | sort -n | uniq | tr '\n' ' '
}
P='^[[:space:]]*#pragma omp'
while read -r kind ere; do
    ere="$P $ere"
    want=$(src_lines "$ere")
    if [ -z "$want" ]; then fail "t4: no source line matches '$ere'"; continue; fi
    check "t4: $kind regions at the lines of '${ere#"$P "}' in omp_count.c" "$want" "$(def_lines "$d" "$kind")"
done <<'LINES'
parallel parallel( |$)
implicit_task parallel( |$)
loop for( |$)
sections sections( |$)
single single( |$)
single_other single( |$)
barrier_explicit barrier( |$)
critical critical( |$)
critical_wait critical( |$)
masked masked( |$)
ordered ordered( |$)
ordered_wait ordered( |$)
task task( |$)
taskwait taskwait( |$)
taskgroup taskgroup( |$)
LINES
LOCK_ERE='omp_set_(nest_)?lock\('
check "t4: lock_wait regions at the lines of omp_set_lock calls" "$(src_lines "$LOCK_ERE")" \
    "$(def_lines "$d" lock_wait)"
# a lock is held from the acquisition that takes it: a nest lock taken
# again by its owner is not a new held region, so lock lines are a subset
lock_got=$(def_lines "$d" lock)
lock_src=" $(src_lines "$LOCK_ERE")"
bad=
for l in $lock_got; do case $lock_src in *" $l "*) ;; *) bad="$bad $l" ;; esac; done
if [ -n "$lock_got" ] && [ -z "$bad" ]; then pass "t4: lock regions at omp_set_lock lines ($lock_got)"
else fail "t4: lock regions at lines '$lock_got' (not lock calls:$bad)"; fi
# implicit barriers end constructs: each is at the line of a construct
bar_src=" $(src_lines "$P (parallel|for|sections|single)( |\$)")"
bad=
for l in $(def_lines "$d" barrier); do case $bar_src in *" $l "*) ;; *) bad="$bad $l" ;; esac; done
check "t4: implicit barriers not at a construct's line" "" "$bad"
# (except those the runtime reports inside itself: LLVM 14's libomp gives
# a contended omp_set_lock its own return address; they are named by the
# runtime's function, omp_* or __kmp*, and have no line by design)
check "t4: regions with a code address but no file:line" 0 \
    "$(awk '$1 == "region" && $3 != "-" && $3 !~ /^(omp_|__kmp)/ && ($4 == "-" || $5 == 0) { n++ }
            END { print n + 0 }' "$d/.check")"
check "t4: regions inside the runtime have no file:line" 0 \
    "$(awk '$1 == "region" && $3 ~ /^(omp_|__kmp)/ && $4 != "-" { n++ } END { print n + 0 }' "$d/.check")"
check "t4: messages about line tables" 0 "$(grep -c 'line table' "$d/.stderr")"

# 2. two threads, one round
omp_run t2 2 1
check "t2: nested parallel regions" 2 "$(ck "$cap_tmp/t2" nested_parallel)"

# 3. one thread
omp_run t1 1 2

# 4. not instrumented: no hook runs, capture starts at main and the tool
#    records (the main thread too); the log is written and one message says
#    that functions need -finstrument-functions and what was recorded
omp_run plain 3 2 omp_count_plain
d=$cap_tmp/plain
n=$(awk '$1 == "total" && $2 == "parallel" { print $3 }' "$d/.stdout")
check "plain: one message" 1 "$(vftr_lines "$d")"
check "plain: it names -finstrument-functions and the $n parallel regions recorded" 1 \
    "$(grep -c "^vftr: omp_count_plain has no compiler hooks (build it with -finstrument-functions.*recorded only its OpenMP parallel regions ($n) in $d/omp_count_plain_0.log and $d/omp_count_plain_0.vfd" "$d/.stderr")"
check "plain: the log says no function was instrumented" \
    "none instrumented (no compiler hook ran: compile with -finstrument-functions)" \
    "$(logline "$d/omp_count_plain_0.log" functions)"

# 4b. stripped (no symbols, no line tables): the same counts, regions
#     without file:line, and one message at most about it
cp "$OMPDIR/omp_count" "$cap_tmp/omp_count_stripped" && strip "$cap_tmp/omp_count_stripped"
omp_run stripped 3 1 "$cap_tmp/omp_count_stripped"
d=$cap_tmp/stripped
check "stripped: regions with a file:line" 0 \
    "$(awk '$1 == "region" && ($4 != "-" || $5 != 0) { n++ } END { print n + 0 }' "$d/.check")"
check_le "stripped: messages about line tables (at most one)" \
    "$(grep -c 'line table' "$d/.stderr")" 1

# 5. GCC's libgomp has no OMPT: the program runs as always, no regions
if [ -x "$OMPDIR/omp_count_gomp" ]; then
    d=$cap_tmp/gomp
    OMP_NUM_THREADS=4 vrun "$d" "$OMPDIR/omp_count_gomp" 2
    check "gomp: exit status" 0 "$(cat "$d/.rc")"
    # 2 rounds, the nested part's outer region and its 2 inner ones
    check "gomp: the program counted its parallel regions" 5 \
        "$(awk '$1 == "total" && $2 == "parallel" { print $3 }' "$d/.stdout")"
    vfd=$(ls "$d"/*.vfd 2>/dev/null | head -1)
    if [ -n "$vfd" ] && "$OMPCHECK" "$vfd" >"$d/.check" 2>&1; then
        check "gomp: no OpenMP events without OMPT" 0 "$(ck "$d" events)"
    else
        fail "gomp: no readable trace"; show "$d/.stderr"
    fi
else
    skip "gomp" "gcc -fopenmp not available"
fi

finish
