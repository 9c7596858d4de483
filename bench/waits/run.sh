#!/bin/bash
# bench/waits/run.sh — the cost of the wait analysis.  mkwaits writes a
# run of 8 ranks (.vfd) whose iterations are a nest of calls, a ring
# exchange (every receive a Late Sender) and an MPI_Allreduce every 10
# iterations: about BENCH_EVENTS events (default 10 M).  Timed, best of
# BENCH_REPEAT runs taken in turns on a warm page cache: the plain function
# profile (vftr-stats, one thread: the analysis reads with one), --waits,
# --critical-path and --delays, in CPU time (user + system: the 2-core
# machine is shared, and its load changes wall times more than CPU times).
#
# Targets: each analysis within 2x the plain profile's time per event;
# peak RSS on the full run within 1.5x of that on a run a tenth as long
# (memory independent of the trace's length).  With vftr-stats-mpi and
# mpirun, in wall time (what a parallel run is for), best of BENCH_REPEAT:
# the speed-up of `mpirun -np 2 vftr-stats-mpi --waits` over vftr-stats
# --waits (target: above 1; every rank reads and analyses its own share),
# the same less the job's launch (mpirun, MPI_Init and MPI_Finalize of
# `vftr-stats-mpi --version`: a cost that does not grow with the trace;
# target: above 1), and, for information, what -np 1 costs over
# vftr-stats (MPI's start), and each rank's CPU time at -np 2 with the load
# (on a shared machine the processes of one session share one scheduler
# group, so under load the wall time follows the ranks' total CPU time).
#
# Environment: BUILD, BENCH_EVENTS (default 10000000), BENCH_REPEAT (3),
# BENCH_DIR (default $BUILD/bench/waits), BENCH_KEEP=1 keeps the runs.
set -u
BUILD=${BUILD:-build}
N=${BENCH_EVENTS:-10000000}
REPEAT=${BENCH_REPEAT:-3}
DIR=${BENCH_DIR:-$BUILD/bench/waits}
STATS=$BUILD/bin/vftr-stats
GEN=$BUILD/test/waits/mkwaits
PAR=$BUILD/bin/vftr-stats-mpi
RANKS=8
export LC_ALL=C

for t in "$STATS" "$GEN"; do [ -x "$t" ] || { echo "bench-waits: $t is not built"; exit 1; }; done
command -v /usr/bin/time >/dev/null || { echo "bench-waits: /usr/bin/time is missing"; exit 1; }
case "$N" in ''|*[!0-9]*) echo "bench-waits: BENCH_EVENTS must be a number"; exit 2 ;; esac
mkdir -p "$DIR/big" "$DIR/small"
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR/big" "$DIR/small" "$DIR/time.out"' EXIT

"$GEN" big "$DIR/big" $((2 * N / RANKS)) "$RANKS" || exit 1
"$GEN" big "$DIR/small" $((2 * N / RANKS / 10)) "$RANKS" || exit 1
events=$("$STATS" --csv --jobs 1 "$DIR/big" | awk -F, 'NR > 1 { c += $1 } END { print 2 * c }')

measure() { # one run: wall seconds
    /usr/bin/time -o "$DIR/time.out" -f '%e' "$@" >/dev/null 2>&1 || { echo fail; return; }
    tail -1 "$DIR/time.out"
}
cputime() { # one run: user + system CPU seconds (the machine is shared: wall time varies more)
    /usr/bin/time -o "$DIR/time.out" -f '%U %S' "$@" >/dev/null 2>&1 || { echo fail; return; }
    tail -1 "$DIR/time.out" | awk '{ printf "%.2f", $1 + $2 }'
}
min() { if [ -z "$1" ] || awk -v t="$2" -v b="$1" 'BEGIN { exit !(t < b) }'; then echo "$2"; else echo "$1"; fi; }
rss() { /usr/bin/time -o "$DIR/time.out" -f %M "$@" >/dev/null 2>&1; tail -1 "$DIR/time.out"; }
row() { printf '| %-36s | %-10s | %-10s | %-8s | %-7s | %s |\n' "$@"; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "PASS" : "MISS" }'; }

cat "$DIR"/big/*.vfd >/dev/null
declare -A T
views=(plain --waits --critical-path --delays)
for _ in $(seq "$REPEAT"); do
    for v in "${views[@]}"; do
        if [ "$v" = plain ]; then w=$(cputime "$STATS" --jobs 1 --csv "$DIR/big")
        else w=$(cputime "$STATS" "$v" --csv "$DIR/big"); fi
        [ "$w" = fail ] && { echo "bench-waits: vftr-stats $v failed"; exit 1; }
        T[$v]=$(min "${T[$v]:-}" "$w")
    done
done
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
printf '\nwait analysis benchmark: %d enter/leave events, %d ranks (best of %d; load average %s)\n\n' \
    "$events" "$RANKS" "$REPEAT" "$load"
row "metric (CPU time)" "plain [s]" "view [s]" ratio target result
printf '|%s|\n' "--------------------------------------|------------|------------|----------|---------|-------"
for v in --waits --critical-path --delays; do
    r=$(awk -v a="${T[$v]}" -v b="${T[plain]}" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
    ns=$(awk -v a="${T[$v]}" -v e="$events" 'BEGIN { printf "%.0f", 1e9 * a / e }')
    row "vftr-stats $v (${ns} ns/event)" "${T[plain]}" "${T[$v]}" "${r}x" "<= 2x" "$(verdict "$r" 2)"
done
for v in --waits --critical-path --delays; do
    ms=$(rss "$STATS" "$v" --csv "$DIR/small")
    mb=$(rss "$STATS" "$v" --csv "$DIR/big")
    r=$(awk -v a="$mb" -v b="$ms" 'BEGIN { printf "%.2f", a / b }')
    row "peak RSS [KiB] $v, N/10 vs N" "$ms" "$mb" "$r" "<= 1.5" "$(verdict "$r" 1.5)"
done
if [ -x "$PAR" ] && command -v mpirun >/dev/null 2>&1; then
    export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_mpi_yield_when_idle=1     # rank 0 waits without spinning on a shared core
    tp= ts= t1= tl=
    for _ in $(seq "$REPEAT"); do
        # the job's fixed cost: mpirun, MPI_Init and MPI_Finalize around nothing
        w=$(measure mpirun --allow-run-as-root --oversubscribe -np 2 "$PAR" --version)
        [ "$w" = fail ] && { echo "bench-waits: vftr-stats-mpi --version failed"; exit 1; }
        tl=$(min "$tl" "$w")
        ts=$(min "$ts" "$(measure "$STATS" --waits --csv "$DIR/big")")
        w=$(measure mpirun --allow-run-as-root --oversubscribe -np 2 "$PAR" --waits --csv "$DIR/big")
        [ "$w" = fail ] && { echo "bench-waits: vftr-stats-mpi failed"; exit 1; }
        tp=$(min "$tp" "$w")
        w=$(measure mpirun --allow-run-as-root --oversubscribe -np 1 "$PAR" --waits --csv "$DIR/big")
        [ "$w" = fail ] && { echo "bench-waits: vftr-stats-mpi -np 1 failed"; exit 1; }
        t1=$(min "$t1" "$w")
    done
    if [ "$(mpirun --allow-run-as-root --oversubscribe -np 2 "$PAR" --waits --csv "$DIR/big" | md5sum)" != \
         "$("$STATS" --waits --csv "$DIR/big" | md5sum)" ]; then
        echo "bench-waits: vftr-stats-mpi and vftr-stats disagree"; exit 1
    fi
    r=$(awk -v a="$ts" -v b="$tp" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
    v=$(awk -v r="$r" 'BEGIN { print (r > 1) ? "PASS" : "MISS" }')
    row "--waits wall [s], speed-up at -np 2" "$ts" "$tp" "${r}x" "> 1" "$v"
    # the same without the launch, which does not grow with the trace: the
    # speed-up of the analysis itself
    r=$(awk -v a="$ts" -v b="$tp" -v l="$tl" 'BEGIN { printf "%.2f", (b - l > 0) ? a / (b - l) : 0 }')
    v=$(awk -v r="$r" 'BEGIN { print (r > 1) ? "PASS" : "MISS" }')
    row "--waits wall [s], -np 2 less the launch (${tl} s)" "$ts" \
        "$(awk -v b="$tp" -v l="$tl" 'BEGIN { printf "%.2f", b - l }')" "${r}x" "> 1" "$v"
    r=$(awk -v a="$t1" -v b="$ts" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
    row "--waits wall [s], -np 1 over serial" "$ts" "$t1" "${r}x" "-" "info"
    # each rank's CPU time (user + system) in one more -np 2 run
    rm -f "$DIR"/cpu.*
    mpirun --allow-run-as-root --oversubscribe -np 2 sh -c \
        'exec /usr/bin/time -o "$0.$OMPI_COMM_WORLD_RANK" -f "%U %S" "$@"' "$DIR/cpu" \
        "$PAR" --waits --csv "$DIR/big" >/dev/null 2>&1
    c0=$(tail -1 "$DIR/cpu.0" 2>/dev/null | awk '{ printf "%.2f", $1 + $2 }')
    c1=$(tail -1 "$DIR/cpu.1" 2>/dev/null | awk '{ printf "%.2f", $1 + $2 }')
    rm -f "$DIR"/cpu.*
    row "--waits CPU [s], -np 2 rank 0 / rank 1" "${T[--waits]}" "${c0:-?} / ${c1:-?}" "-" "-" \
        "info (load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"))"
fi
