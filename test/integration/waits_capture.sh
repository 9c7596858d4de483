#!/bin/bash
# waits_capture.sh — the wait analysis on a real capture: test/omp/
# omp_waits.c under `mpirun -np 3 ... vftr-run` (MPI + OpenMP, 2 threads on
# rank 0) injects sleeps of known length (UNIT ms steps) before a send, a
# receive, each kind of collective, MPI_Finalize, inside a parallel region,
# holding a lock and between two parallel regions, and stamps the node's
# monotonic clock just before each call that waits or makes wait.
#
# For every pattern the wait is worked out from the program's own stamps
# by the pattern's definition (Late Sender: the send's stamp less the
# receive's, Early Reduce: the earlier sender's less the root's, ...),
# independently of vftr, and vftr-stats --waits must agree within 2 ms +
# 5 %: the stamps are read just outside the calls (vftr's enter is a few
# microseconds into them) and on an oversubscribed machine a process can
# lose the processor between the two.  Each wait must also be at least half
# the injected sleep (the ranks leave the barrier before a scenario up to
# some milliseconds apart, so not all of it shows).  The delay analysis must
# put most of each MPI wait (80 %) on the sleeping call path of the late
# process, and the critical path must cover the run once and hold the
# sleeps (but for a scenario after which a rank it did not involve came
# last to the next start(): see there).  _all.log's largest waits must be
# those vftr-stats finds in the run.
. "$(dirname "$0")/../capture/common.sh"

PROG=$cap_build/test/omp/omp_waits
STATS=$cap_build/bin/vftr-stats
UNIT=20
if [ ! -x "$PROG" ] || ! command -v mpirun >/dev/null 2>&1 \
   || [ ! -e "$cap_build/lib/libvftrcapture-mpi.so" ]; then
    skip "waits on a capture" "needs clang -fopenmp, mpicc, mpirun and libvftrcapture-mpi.so"
    finish
fi
require "$STATS" "$cap_build/bin/vfd2otf"
case $(ldd "$cap_build/lib/libvftrcapture.so" 2>/dev/null) in
    *libasan*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" ;;
    # ThreadSanitizer slows every call several times over, and on a loaded
    # machine a rank then loses the processor for 10 ms and more between
    # its stamp and the call (seen: 12 ms): longer sleeps keep that small
    # beside the waits (the tolerance stays 2 ms + 5 %)
    *libtsan*) UNIT=60 ;;
esac
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=$cap_tmp/waits
mkdir -p "$d"
OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive OMP_PROC_BIND=false timeout -s KILL "$RUN_TIMEOUT" \
    mpirun --allow-run-as-root -np 3 --oversubscribe --bind-to none \
    "$VFTR_RUN" --out "$d" -- "$PROG" "$d" "$UNIT" >"$d/.stdout" 2>"$d/.stderr"
check "omp_waits: mpirun exit status" 0 "$?"
for r in 0 1 2; do
    [ -s "$d/stamps_$r.txt" ] || { fail "omp_waits: rank $r wrote no stamps"; show "$d/.stderr"; finish; }
done
"$STATS" --waits --csv --threads "$d" >"$d/waits.csv" 2>"$d/err" \
    || { fail "vftr-stats --waits: $(head -1 "$d/err")"; finish; }
"$cap_build/bin/vfd2otf" -q -o "$d/run" "$d" >/dev/null 2>&1
"$STATS" --waits --csv --threads "$d/run" >"$d/waits.otf.csv" 2>&1
if cmp -s "$d/waits.csv" "$d/waits.otf.csv"; then
    pass "omp_waits: the .vfd run and its OTF conversion give the same waits"
else
    fail "omp_waits: .vfd and OTF waits differ"; diff "$d/waits.csv" "$d/waits.otf.csv" | show
fi

# The program's figures: "PATTERN PROCESS PATH-REGEX SECONDS INJECTED-UNITS"
idle_line=$(grep -n "the idle region" "$(dirname "$0")/../omp/omp_waits.c" | cut -d: -f1)
awk -v u="$UNIT" -v idle_line="$idle_line" '
    FNR == 1 { r++ }
    { t[r - 1, $1] = $2 }
    function w(p, proc, path, v, inj) { printf "%s %d %s %.9f %d\n", p, proc, path, v, inj }
    END {
        w("late_sender", 1, "^MPI_Recv<late_sender<main$", t[1,"ls_send"] - t[0,"ls_recv"], 3)
        w("late_receiver", 1, "^MPI_Ssend<late_receiver<main$", t[1,"lr_recv"] - t[0,"lr_send"], 4)
        for (i = 0; i < 2; i++)
            w("wait_barrier", i + 1, "^MPI_Barrier<barrier<main$", t[2,"barrier"] - t[i,"barrier"], 5)
        w("wait_nxn", 1, "^MPI_Allreduce<allreduce<main$", t[1,"allreduce"] - t[0,"allreduce"], 6)
        w("wait_nxn", 3, "^MPI_Allreduce<allreduce<main$", t[1,"allreduce"] - t[2,"allreduce"], 6)
        for (i = 0; i < 2; i++)
            w("late_broadcast", i + 1, "^MPI_Bcast<bcast<main$", t[2,"bcast"] - t[i,"bcast"], 7)
        first = t[1,"reduce"] < t[2,"reduce"] ? t[1,"reduce"] : t[2,"reduce"]
        w("early_reduce", 1, "^MPI_Reduce<reduce<main$", first - t[0,"reduce"], 2)
        for (i = 1; i < 3; i++)
            w("wait_finalize", i + 1, "^MPI_Finalize<main$", t[0,"finalize"] - t[i,"finalize"], 8)
        # (call paths with blanks: a blank is "." in these expressions)
        w("omp_barrier", 1, "^omp.barrier.@[^<]*<omp.implicit.task.@[^<]*<omp.parallel.@[^<]*<omp_barrier<main$",
          t[0,"ompbar_1"] - t[0,"ompbar_0"], 3)
        w("omp_lock_wait", 1048577, "^omp.lock.wait.@", t[0,"lock_got"] - t[0,"lock_ask"], 4)
        w("omp_idle", 1048577, "^omp.parallel.@omp_waits.c:" idle_line "<omp_idle<main$",
          t[0,"idle_start"] - t[0,"idle_end"], 5)
    }' "$d/stamps_0.txt" "$d/stamps_1.txt" "$d/stamps_2.txt" >"$d/expect"

while read -r pat proc re want inj; do
    # vftr's time of the pattern on the process, summed over the paths matching re
    got=$(awk -F, -v p="$pat" -v q="$proc" -v re="$re" \
        '$1 == p && $6 == q && $7 ~ re { s += $2 } END { printf "%.9f", s }' "$d/waits.csv")
    if awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 0.002 + 0.05 * w) }'; then
        pass "$pat on process $proc: $got s, the program's own clock says $want s"
    else
        fail "$pat on process $proc: vftr $got s, the program's stamps $want s"
    fi
    if awk -v w="$want" -v i="$inj" -v u="$UNIT" 'BEGIN { exit !(w >= 0.5 * i * u / 1000) }'; then
        pass "$pat on process $proc: the injected $((inj * UNIT)) ms took effect"
    else
        fail "$pat on process $proc: waited $want s for an injected $((inj * UNIT)) ms"
    fi
done <"$d/expect"

# delays: each MPI wait mostly on the late process's sleep (delay<SCENARIO<main),
# never more than the wait (Early Reduce: the root waits for whichever of
# ranks 1 and 2 enters first)
"$STATS" --delays --csv --threads "$d" >"$d/delays.csv" 2>&1
while read -r pat late scen; do
    wait=$(awk -F, -v p="$pat" '$1 == p && $7 ~ /<'"$scen"'<main$/ { s += $2 } END { printf "%.9f", s }' "$d/waits.csv")
    cost=$(awk -F, -v p="$pat" -v q="^($late)$" '$1 == p && $6 ~ q && $7 == "delay<'"$scen"'<main" { s += $4 }
        END { printf "%.9f", s }' "$d/delays.csv")
    if awk -v c="$cost" -v w="$wait" 'BEGIN { exit !(w > 0 && c >= 0.8 * w && c <= w + 0.000001) }'; then
        pass "delays: $pat caused by process $late's delay() in $scen: $cost of $wait s"
    else
        fail "delays: $pat: process $late's delay() in $scen costs $cost, the waits are $wait s"
        grep "^$pat," "$d/delays.csv" | show
    fi
done <<'EOF'
late_sender 2 late_sender
late_receiver 2 late_receiver
wait_barrier 3 barrier
wait_nxn 2 allreduce
late_broadcast 3 bcast
early_reduce 2|3 reduce
EOF

# _all.log's "largest waits": rank 0's analysis of the traces as they were
# at MPI_Finalize, so every scenario's wait (all before MPI_Finalize) is
# the one vftr-stats finds in the finished run, summed over the processes
all="$d/omp_waits_all.log"
if grep -q "^Largest waits" "$all"; then
    pass "_all.log has the largest waits"
else
    fail "_all.log has no largest waits"; tail -5 "$all" | show
fi
for scen in "late_sender MPI_Recv<late_sender<main" "late_receiver MPI_Ssend<late_receiver<main" \
            "wait_barrier MPI_Barrier<barrier<main" "wait_nxn MPI_Allreduce<allreduce<main" \
            "late_broadcast MPI_Bcast<bcast<main" "early_reduce MPI_Reduce<reduce<main"; do
    set -- $scen
    want=$(awk -F, -v p="$1" -v c="$2" '$1 == p && $7 == c { s += $2 } END { printf "%.6f", s }' \
        "$d/waits.csv")
    got=$(sed -n '/^Largest waits/,$p' "$all" | awk -v p="$1" -v c="$2" '$1 == p && $7 == c { print $2 }')
    if [ -n "$got" ] && awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(d < 2e-6 && d > -2e-6 && w > 0) }'; then
        pass "_all.log: $1 in $2: $got s, as vftr-stats --waits on the run"
    else
        fail "_all.log: $1 in $2: '$got' s, vftr-stats --waits says $want s"
    fi
done
if sed -n '/^Largest waits/,$p' "$all" | grep -q "omp_"; then
    fail "_all.log's largest waits list OpenMP patterns (cut short at MPI_Finalize)"
else
    pass "_all.log's largest waits are MPI's only"
fi

# the critical path: the sleeps follow one another, every one of them (47
# units) is on it -- but for a scenario after which a rank it did not
# involve arrived last at the next start() (it lost the processor for longer
# than the scenario lasted): that rank carries the path back past the
# scenario's sleep, rightly.  The program's "sync<N>" stamps say which.
"$STATS" --critical-path --json --threads "$d" >"$d/cp.json" 2>&1
if python3 - "$d/cp.json" "$UNIT" "$d"/stamps_0.txt "$d"/stamps_1.txt "$d"/stamps_2.txt >"$d/cp.info" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
unit = int(sys.argv[2]) / 1000
t = [dict((l.split()[0], float(l.split()[1])) for l in open(f) if l.strip()) for f in sys.argv[3:6]]
# (scenario, injected units, ranks it does not involve); scenario k runs
# after start() call k, the next start() call is k + 1
scen = [("late_sender", 3, [2]), ("late_receiver", 4, [2]), ("barrier", 5, []),
        ("allreduce", 6, []), ("bcast", 7, []), ("reduce", 2, []), ("omp", 3 + 4 + 5, [1, 2])]
units = 8                      # finalize: its wait on ranks 1, 2 is checked above
for k, (name, n, out) in enumerate(scen):
    sync = "sync%d" % (k + 1)
    last = max(range(3), key=lambda r: t[r][sync])
    if last in out:
        print("INFO: %s's %d units are not on the path: rank %d, which it does not involve, "
              "arrived %.3f ms after the others at the next start()" %
              (name, n, last, 1e3 * (t[last][sync] - max(t[r][sync] for r in range(3) if r != last))))
    else:
        units += n
l = d["length_s"]
assert abs(sum(p["time"] for p in d["processes"]) - l) < 1e-5
assert abs(l - (d["end_s"] - d["start_s"])) < 1e-5
delay = sum(f["time"] for f in d["functions"] if f["function"] == "delay")
print("INFO: delay() on the critical path %.6f s, %d of 47 injected units due" % (delay, units))
assert delay >= 0.95 * units * unit, (delay, units, l)
EOF
then
    pass "critical path: covers the run once and holds every injected sleep it must"
else
    fail "critical path: $(tail -3 "$d/cp.info") $(head -c 300 "$d/cp.json")"
fi
cat "$d/cp.info"
finish
