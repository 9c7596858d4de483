#!/bin/bash
# mpi_counters.sh — counters in the MPI job's combined log (<base>_all.log).
# mpi_threads under mpirun -np 3 (4 threads per rank calling MPI, so the
# ranks' counter tables have several threads per call path) with
# task-clock and page-faults read at every boundary, each rank writing its
# own log.  _all.log's counter table, per function (its rows of a function
# summed over their call paths), must equal:
#   - the ranks' logs' counter tables summed over threads and ranks (calls
#     and the inclusive counts), with min and max over the ranks (and which
#     rank) for functions of one call path, and the number of ranks;
#   - vftr-stats --counters on the ranks' .vfd files.
# _all.log is made at MPI_Finalize, when main and MPI_Finalize are still
# open (their calls end after it): they are left out of the comparisons.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

STATS=$mpi_build/bin/vftr-stats
NP=3
d=$mpi_tmp/ctr
mkdir -p "$d"
printf '{ "logfile_for_ranks": "all", "counters": { "events": "task-clock,page-faults" } }\n' >"$d/cfg.json"
timeout -s KILL 120 mpirun -np $NP --oversubscribe --bind-to none \
    "$VFTR_RUN" --out "$d" --config "$d/cfg.json" -- "$MPIDIR/mpi_threads" "$d" >"$d/.stdout" 2>"$d/.stderr"
check "mpi_threads under vftr with counters: exit 0" 0 $?
all=$d/mpi_threads_all.log
for ((r = 0; r < NP; r++)); do
    [ -f "$d/mpi_threads_$r.log" ] || fail "no log of rank $r"
done
[ -f "$all" ] || { fail "no _all.log"; show "$d/.stderr"; finish; }
check "_all.log has one counter table" 1 "$(grep -c '^Counters over 3 ranks' "$all")"

# The ranks' tables as "rank function calls task-clock page-faults" (a row
# per thread and call path: calls in $3, then incl/excl pairs).
ranks=$(for ((r = 0; r < NP; r++)); do
    awk -v r=$r '/^Counters \(per call path/ { getline; on = 1; next }
        on && NF == 8 && $NF != "main" && $NF != "MPI_Finalize" { print r, $NF, $3, $4, $6 }' "$d/mpi_threads_$r.log"
done)
# _all.log's table as "function calls ranks sum min minrank max maxrank ..."
allrows=$(awk '/^Counters over/ { getline; on = 1; next } on && NF == 0 { exit }
    on && $NF != "main" && $NF != "MPI_Finalize" { gsub(/[\[\]]/, ""); print }' "$all")
# per function: calls, task-clock, page-faults summed
want=$(echo "$ranks" | awk '{ c[$2] += $3; t[$2] += $4; p[$2] += $5 }
    END { for (f in c) print f, c[f], t[f], p[f] }' | sort)
got=$(echo "$allrows" | awk '{ c[$NF] += $2; t[$NF] += $4; p[$NF] += $9 }
    END { for (f in c) print f, c[f], t[f], p[f] }' | sort)
if [ -n "$want" ] && [ "$want" = "$got" ]; then
    pass "_all.log's counters per function = the ranks' logs summed ($(echo "$want" | wc -l) functions)"
else
    fail "_all.log's counters per function differ from the ranks' logs"; diff <(echo "$want") <(echo "$got") | show
fi
# min / max over ranks, for the functions of one call path in _all.log
# (a rank's value: its threads' rows summed)
perrank=$(echo "$ranks" | awk '{ k = $2 " " $1; t[k] += $4; p[k] += $5 }
    END { for (k in t) print k, t[k], p[k] }' | sort -k1,1 -k2,2n)
bad=0 n=0
while read -r stid calls nr tsum tmin tminr tmax tmaxr psum pmin pminr pmax pmaxr fn; do
    [ "$(echo "$allrows" | awk -v f="$fn" '$NF == f' | wc -l)" = 1 ] || continue
    n=$((n + 1))
    exp=$(echo "$perrank" | awk -v f="$fn" '$1 == f { n++
            if (n == 1 || $3 < tmin) { tmin = $3; tminr = $2 } if (n == 1 || $3 > tmax) { tmax = $3; tmaxr = $2 }
            if (n == 1 || $4 < pmin) { pmin = $4; pminr = $2 } if (n == 1 || $4 > pmax) { pmax = $4; pmaxr = $2 } }
        END { print n, tmin, tminr, tmax, tmaxr, pmin, pminr, pmax, pmaxr }')
    [ "$exp" = "$nr $tmin $tminr $tmax $tmaxr $pmin $pminr $pmax $pmaxr" ] || {
        bad=$((bad + 1)); echo "    $fn: expected '$exp', got '$nr $tmin $tminr $tmax $tmaxr $pmin $pminr $pmax $pmaxr'"; }
done <<<"$allrows"
[ $n -gt 5 ] && [ $bad = 0 ] && pass "_all.log's ranks, min and max [rank] per counter = the ranks' logs ($n call paths)" \
    || fail "_all.log's ranks, min or max differ from the ranks' logs ($bad of $n)"

# vftr-stats --counters on the ranks' traces, per function (the leaf of
# its call paths): calls, task-clock, page-faults
stats=$("$STATS" --counters "$d"/mpi_threads_*.vfd 2>"$d/stats.err" | awk 'NR > 1 {
        n = split($NF, p, ">"); f = p[n]; if (f == "main" || f == "MPI_Finalize") next
        c[f] += $1; t[f] += $2; q[f] += $4 }
    END { for (f in c) print f, c[f], t[f], q[f] }' | sort)
if [ -n "$stats" ] && [ "$stats" = "$got" ]; then pass "_all.log's counters per function = vftr-stats --counters on the ranks' .vfd"
else fail "_all.log's counters differ from vftr-stats --counters"; diff <(echo "$stats") <(echo "$got") | show; show "$d/stats.err"; fi
finish
