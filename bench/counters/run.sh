#!/bin/bash
# bench/counters/run.sh — the counter benchmark (issue 20).
#
# What a counter read at a region boundary costs, on the workload
# bench/counters/ctrwork.c (an empty instrumented function called N times,
# default BENCH_COUNTERS_CALLS = 300000), profile only (sampling.active =
# false: the trace's disk writes are not what is measured):
#   raw       ctrwork's own read(2) of a perf software counter, no vftr: the
#             system call every read of a counter costs (rdpmc, which would
#             avoid it, exists only for hardware counters: none on a VM)
#   off       under vftr-run, no counters
#   on        under vftr-run, counters.events = task-clock,page-faults (two
#             software counters, each on a descriptor of its own: two
#             read(2) per boundary)
#   papi      under vftr-run, the same two events through PAPI
#             (perf::TASK-CLOCK,perf::PAGE-FAULTS: one event set, which
#             PAPI's perf_event component opens as one group: one PAPI_read,
#             one read(2) per boundary); only when vftr was built with PAPI
# Per round (BENCH_COUNTERS_ROUNDS, default 5; rounds alternate the order
# of off and on) ns per call; the median over rounds is taken.  Cost per
# boundary = (on - off) / 2 (a call has two boundaries).  Target: at most
# the read(2) calls it makes (2 x raw) plus 25 % (the boundary's own work:
# the filter decision, the per-call-path sums, no allocation); for PAPI the
# same aim with its one read(2): raw + 25 %.  Prints a
# table and writes it to $BUILD/bench/counters.md.  Exit status 0 even with
# a MISS; 1 when a run failed.
set -u
export LC_ALL=C

BUILD=${BUILD:-build}
ROUNDS=${BENCH_COUNTERS_ROUNDS:-5}
[ -n "$ROUNDS" ] || ROUNDS=5
N=${BENCH_COUNTERS_CALLS:-300000}
D=$BUILD/bench/counters
OUT=$BUILD/bench/counters.md
WORK=$D/run
rm -rf "$WORK"
mkdir -p "$WORK"

echo '{ "sampling": { "active": false } }' >"$WORK/off.json"
echo '{ "sampling": { "active": false }, "counters": { "events": "task-clock,page-faults" } }' >"$WORK/on.json"
echo '{ "sampling": { "active": false }, "counters": { "events": "perf::TASK-CLOCK,perf::PAGE-FAULTS" } }' >"$WORK/papi.json"
PAPI=
ldd "$BUILD/lib/libvftrcapture.so" 2>/dev/null | grep -q libpapi && PAPI=1

val() { awk -v k="$1" '$1 == k { print $2 }'; }
run() {   # run VARIANT: ns per call under vftr-run (nothing when capture did not run)
    rm -rf "${WORK:?}/$1"
    mkdir -p "$WORK/$1"
    VFTR_CONFIG=$WORK/$1.json "$BUILD/bin/vftr-run" --out "$WORK/$1" -- "$D/ctrwork" calls "$N" \
        2>>"$WORK/stderr" | val call_ns | { read -r v; [ -f "$WORK/$1/ctrwork_0.log" ] && echo "$v"; }
}
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

raw= off= on= papi=
for r in $(seq "$ROUNDS"); do
    raw="$raw $("$D/ctrwork" raw "$N" | val raw_read_ns)"
    if [ $((r % 2)) = 1 ]; then a=off b=on; else a=on b=off; fi
    x=$(run $a); y=$(run $b)
    [ -n "$x" ] && [ -n "$y" ] || { echo "bench-counters: a run failed:"; cat "$WORK/stderr"; exit 1; }
    if [ $a = off ]; then off="$off $x"; on="$on $y"; else on="$on $x"; off="$off $y"; fi
    if [ -n "$PAPI" ]; then
        z=$(run papi)
        [ -n "$z" ] || { echo "bench-counters: the PAPI run failed:"; cat "$WORK/stderr"; exit 1; }
        papi="$papi $z"
    fi
done
mraw=$(echo $raw | tr ' ' '\n' | median)
moff=$(echo $off | tr ' ' '\n' | median)
mon=$(echo $on | tr ' ' '\n' | median)
read -r per target verdict < <(awk -v r="$mraw" -v a="$moff" -v b="$mon" 'BEGIN {
    per = (b - a) / 2; t = 2 * r * 1.25
    printf "%.1f %.1f %s\n", per, t, per <= t ? "PASS" : "MISS" }')
{
    echo "# Counter reads at region boundaries ($(date -u +%F), load $(cut -d' ' -f1 /proc/loadavg))"
    echo
    echo "| measure | ns | target | result |"
    echo "|---|---|---|---|"
    echo "| read(2) of one software counter (raw) | $mraw | | |"
    echo "| call under vftr, no counters | $moff | | |"
    echo "| call under vftr, task-clock + page-faults | $mon | | |"
    echo "| cost per boundary ((on - off) / 2) | $per | <= 2 x raw + 25 % = $target | $verdict |"
    if [ -n "$PAPI" ]; then
        mpapi=$(echo $papi | tr ' ' '\n' | median)
        read -r pper ptarget pverdict < <(awk -v r="$mraw" -v a="$moff" -v b="$mpapi" 'BEGIN {
            per = (b - a) / 2; t = r * 1.25
            printf "%.1f %.1f %s\n", per, t, per <= t ? "PASS" : "MISS" }')
        echo "| call under vftr, the same through PAPI (perf::TASK-CLOCK + perf::PAGE-FAULTS) | $mpapi | | |"
        echo "| PAPI: cost per boundary ((papi - off) / 2) | $pper | <= raw + 25 % = $ptarget | $pverdict |"
    else
        echo "| PAPI | | vftr built without PAPI | not measured |"
    fi
    echo
    echo "Median of $ROUNDS rounds of $N calls; rdpmc is not measured: it reads hardware"
    echo "counters only, and this machine has none (the test suite says so)."
} | tee "$OUT"
