#!/bin/bash
# omp_nested.sh — repeated nested parallel regions under vftr's OpenMP tool
# (capture/ompt.c), from one root thread and from several
# (test/omp/omp_nest, which counts per OS thread the parallel regions it
# starts, its implicit tasks and the implicit barriers that end its teams):
#  - per OS thread and kind, the recorded regions equal the program's counts
#    (test/omp/ompcheck on the .vfd), and so do the totals and the log's
#    region rows;
#  - every inner parallel region lies inside an implicit task, regions nest,
#    none is left open or undefined.
# Under SANITIZE=thread this is the run that showed races in the callbacks
# (on_implicit_task, on_parallel_end): libomp reuses a team's slots for
# later regions and other threads without synchronization TSan sees, which
# the callbacks annotate; a TSan report in any run is a FAIL (san_reports).
. "$(dirname "$0")/../capture/common.sh"

OMPDIR=$cap_build/test/omp
OMPCHECK=$OMPDIR/ompcheck
if [ ! -x "$OMPDIR/omp_nest" ]; then
    skip "nested OpenMP regions" "no clang with omp.h: $OMPDIR/omp_nest not built"
    finish
fi
require "$OMPCHECK"

ck() { awk -v k="$2" '$1 == k { v = $2 } END { print v }' "$1/.check"; }

# nest NAME ROOTS ROUNDS OUTER INNER
nest() {
    local name=$1 roots=$2 rounds=$3 outer=$4 inner=$5 d=$cap_tmp/$1 k vfd
    OMP_PROC_BIND=false OMP_WAIT_POLICY=passive vrun "$d" "$OMPDIR/omp_nest" "$roots" "$rounds" \
        "$outer" "$inner"
    check "$name: exit status" 0 "$(cat "$d/.rc")"
    vfd=$(ls "$d"/*.vfd 2>/dev/null | head -1)
    if [ -z "$vfd" ] || ! "$OMPCHECK" --values "$vfd" >"$d/.check" 2>"$d/.checkerr"; then
        fail "$name: ompcheck could not read the trace"; show "$d/.stderr" "$d/.checkerr"
        return
    fi
    # a worker's share of a parallel region and its idle time between
    # regions are vftr's frames, no construct the program counts (below)
    grep '^count ' "$d/.stdout" | sort >"$d/.want"
    grep '^count ' "$d/.check" | grep -vE ' (parallel_worker|idle) ' | sort >"$d/.got"
    if [ -s "$d/.want" ] && cmp -s "$d/.want" "$d/.got"; then
        pass "$name: regions per thread and kind equal the program's counts ($(wc -l <"$d/.want") lines)"
    else
        fail "$name: regions per thread and kind differ from the program's counts"
        diff "$d/.want" "$d/.got" | sed -n '1,12s/^/    /p'
    fi
    for k in parallel implicit_task barrier; do
        check "$name: total $k" "$(awk -v k="$k" '$1 == "total" && $2 == k { print $3 }' "$d/.stdout")" \
              "$(awk -v k="$k" '$1 == "total" && $2 == k { print $3 }' "$d/.check")"
    done
    # every team member but the encountering thread holds its implicit task
    # in a share of the parallel region
    check "$name: a worker's share of the region around each worker's implicit task" \
        "$(awk '$1 == "total" && $2 == "implicit_task" { i = $3 } $1 == "total" && $2 == "parallel" { p = $3 }
                END { print i - p }' "$d/.stdout")" \
        "$(awk '$1 == "total" && $2 == "parallel_worker" { print $3 }' "$d/.check")"
    check "$name: every inner region inside an implicit task" "$((roots * rounds * outer))" \
          "$(ck "$d" nested_parallel)"
    check "$name: undefined, unbalanced, open regions" "0 0 0" \
          "$(ck "$d" undefined) $(ck "$d" unbalanced) $(ck "$d" open)"
    # the log: a worker's share of a parallel region is a row of the region
    # (one per implicit task), the idle time is vftr's (omp_regions.sh)
    logrows "$(ls "$d"/*.log 2>/dev/null | head -1)" |
        awk -F'\t' '$1 ~ /^omp / && $1 != "omp idle" {
                                   k = substr($1, 5); sub(/ @.*$/, "", k); gsub(/ /, "_", k)
                                   n[k] += $3 }
                    END { for (k in n) print "total", k, n[k] }' | sort >"$d/.logtotals"
    awk '$1 == "total" && $2 == "implicit_task" { it = $3 }
         $1 == "total" && $3 > 0 { t[$2] = $3 }
         END { if ("parallel" in t) t["parallel"] = it; for (k in t) print "total", k, t[k] }' \
        "$d/.stdout" | sort >"$d/.wanttotals"
    if [ -s "$d/.wanttotals" ] && cmp -s "$d/.wanttotals" "$d/.logtotals"; then
        pass "$name: the log's region rows: calls per kind equal the program's counts"
    else
        fail "$name: the log's region rows differ from the program's counts"
        diff "$d/.wanttotals" "$d/.logtotals" | sed -n '1,8s/^/    /p'
    fi
}

# three rounds of a 2 x 2 nest on one root thread; then four root threads,
# and deeper teams on two
nest root1 1 3 2 2
nest roots4 4 3 2 2
nest roots2_3x3 2 3 3 3

# The same nest again and again beside three busy loops: libomp frees a
# nested team to its pool before it reports the region's end with the
# team's data, and under load another root thread's next region has taken
# the team and rewritten that data by then.  The end must still close the
# right region (capture/ompt.c on_parallel_end): before, a run in a few
# recorded a parallel region twice (total parallel 25 for 24).
busy() { while :; do :; done; }
busy & b1=$!
busy & b2=$!
busy & b3=$!
trap 'kill "$b1" "$b2" "$b3" 2>/dev/null; cap_cleanup' EXIT   # never left spinning
bad=0 runs=60
for i in $(seq 1 $runs); do
    d=$cap_tmp/load$i
    OMP_PROC_BIND=false OMP_WAIT_POLICY=passive vrun "$d" "$OMPDIR/omp_nest" 2 3 3 3
    vfd=$(ls "$d"/*.vfd 2>/dev/null | head -1)
    if [ "$(cat "$d/.rc")" != 0 ] || [ -z "$vfd" ] ||
       ! "$OMPCHECK" --values "$vfd" >"$d/.check" 2>&1; then
        bad=$((bad + 1)); continue
    fi
    grep '^count ' "$d/.stdout" | sort >"$d/.want"
    grep '^count ' "$d/.check" | grep -vE ' (parallel_worker|idle) ' | sort >"$d/.got"
    cmp -s "$d/.want" "$d/.got" || bad=$((bad + 1))
    [ "$bad" = 0 ] && rm -rf "$d"
done
kill "$b1" "$b2" "$b3" 2>/dev/null
wait "$b1" "$b2" "$b3" 2>/dev/null
trap cap_cleanup EXIT
check "roots2_3x3 beside three busy loops: $runs runs, each thread's regions the program's counts" 0 "$bad"

finish
