#!/bin/bash
# bench/ctl/run.sh — the external-control benchmark (issue 8).
#
# Workload: bench/ctl/ctlwork.c, fib(N) compiled with -finstrument-functions,
# under vftr-run, profile only (the hot path is the same with the trace on,
# and the trace's disk writes would drown a 1 % effect).  Every time below
# is taken by ctlwork around the workload only (never vftr-run's start, the
# symbol reading or the client's start):
#   thread   CLOCK_THREAD_CPUTIME_ID of the measured (main) thread: the
#            benchmark's own slowdown, what being asked costs its work
#   process  CLOCK_PROCESS_CPUTIME_ID: the measured thread plus the shadow
#            thread answering (what the queries cost in CPU)
#   wall     CLOCK_MONOTONIC: what a user waits; on a busy machine it also
#            counts the time other processes take the CPU away
#
# 1. idle / off — control.active = false (no module, no shadow thread)
#    against the default module running with nobody asking.  Separate
#    processes of fib(BENCH_CTL_FIB, default 33), BENCH_CTL_ROUNDS rounds
#    (default 12) of four runs "off idle idle off" or "idle off off idle"
#    (alternating): the ratio per round cancels a drift of the machine's
#    speed that is linear over the round.  Target: median within 2 %.
# 2. queried / idle — the slowdown of the benchmark queried 10 times a
#    second for stacks and profile.  One process, BENCH_CTL_BLOCKS blocks
#    (default 60) of four segments of fib(BENCH_CTL_SEG, default 31, about
#    0.1 s) each, "i q q i" or "q i i q": bench/ctl/client.py (started
#    before the program, connected before the work begins, asleep between
#    queries) asks "stacks" then "profile" at each tick of a 100 ms clock
#    that falls into a q segment, and nothing during i segments.  Per block
#    the ratio q / i; the table gives the median over the blocks, the
#    quartiles and the extremes, and the ratio of all q to all i segments.
#    The "null" row, (segments 1 + 3) / (segments 2 + 4) of each block, one
#    q and one i on each side, shows what the method resolves on the
#    machine as it was.  Target: median within 1 % for thread and process
#    CPU; the wall ratio is shown with its spread but not judged, since on
#    a shared machine it also carries what other processes take (with 60
#    blocks the median's standard error is about half a per cent at a load
#    of 1.5).  The shadow thread's CPU per query is (process - thread) of
#    the q segments / queries.
# 3. amplified — the same with the client asking as fast as it can in the
#    q segments (tens of thousands of queries a second) for
#    BENCH_CTL_FLOOD_BLOCKS blocks (default 6): the extra CPU of the
#    measured thread per query (cache lines the shadow thread reads and
#    the thread then writes, anything else a query does to it), median
#    over blocks.  (That + the shadow's CPU per query) x the query rate of
#    2. gives the slowdown at 10 rounds a second far below the noise of 2.
#    Target: within 1 %.
# Latency: request sent to last line read, per query in 2.; median <= 10 ms.
# The load average is printed: on a busy 2-core machine the spread of the
# per-round and per-block ratios of 1. and 2. is several per cent, and their
# medians resolve 1 % only when the "null" quartiles are within about 2 %.
#
# Table on stdout and in $BUILD/bench/ctl.md.  Exit 0 even with a MISS; 1
# when a run failed; 2 on a usage problem.
set -u
export LC_ALL=C

BUILD=${BUILD:-build}
num() { case $1 in '' | *[!0-9]*) echo "$2" ;; *) echo "$1" ;; esac; }
ROUNDS=$(num "${BENCH_CTL_ROUNDS:-}" 12)
FIB=$(num "${BENCH_CTL_FIB:-}" 33)
BLOCKS=$(num "${BENCH_CTL_BLOCKS:-}" 60)
SEG=$(num "${BENCH_CTL_SEG:-}" 31)
FBLOCKS=$(num "${BENCH_CTL_FLOOD_BLOCKS:-}" 6)
PROG=$BUILD/bench/ctl/ctlwork
VFTR_RUN=$BUILD/bin/vftr-run
CLIENT=$(dirname "$0")/client.py
OUT=$BUILD/bench/ctl.md
die() { echo "bench-ctl: $*" >&2; exit 2; }
[ -x "$PROG" ] || die "$PROG missing (make bench-ctl builds it)"
[ -x "$VFTR_RUN" ] || die "$VFTR_RUN missing"
[ -r "$CLIENT" ] || die "$CLIENT missing"
PY=$(command -v python3) || die "python3 needed for the query client"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vftr_bench_ctl.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export VFTR_SAMPLING_ACTIVE=0
load0=$(cut -d' ' -f1 /proc/loadavg)
failed=0

# ---- 1. idle / off: separate processes
: >"$WORK/runs"   # variant round thread_ns cpu_ns wall_ns calls
run1() {   # run1 VARIANT ROUND
    local d=$WORK/p.$1.$2 off=1
    mkdir -p "$d" && mkdir -m 700 "$d/sock"
    [ "$1" = off ] && off=0
    if ! VFTR_CONTROL_ACTIVE=$off VFTR_CONTROL_SOCKET_DIR=$d/sock \
        "$VFTR_RUN" --out "$d" -- "$PROG" "$FIB" >"$d/out" 2>"$d/err"; then
        echo "bench-ctl: $1 run $2 failed: $(head -3 "$d/err")" >&2
        failed=1
    fi
    awk -v v="$1" -v k="$2" '{ x[$1] = $2 }
        END { if (x["calls"] > 0 && x["thread_ns"] > 0)
                  print v, k, x["thread_ns"], x["cpu_ns"], x["wall_ns"], x["calls"] }' \
        "$d/out" >>"$WORK/runs"
    rm -rf "$d"
}
for k in $(seq "$ROUNDS"); do
    if [ $((k % 2)) = 1 ]; then order="off idle idle off"; else order="idle off off idle"; fi
    for v in $order; do run1 "$v" "$k"; done
done

# ---- 2. and 3.: one process each, segments, the client on a FIFO
seg_run() {   # seg_run NAME BLOCKS [flood]: $WORK/NAME.seg, $WORK/NAME.lat
    local d=$WORK/$1 cl
    mkdir -p "$d" && mkdir -m 700 "$d/sock" && mkfifo "$d/phases"
    "$PY" "$CLIENT" "$d/sock" "$d/phases" "$WORK/$1.lat" ${3:+"$3"} &
    cl=$!
    if ! VFTR_CONTROL_SOCKET_DIR=$d/sock \
        "$VFTR_RUN" --out "$d" -- "$PROG" "$SEG" "$2" "$d/phases" >"$d/out" 2>"$d/err"; then
        echo "bench-ctl: $1 run failed: $(head -3 "$d/err")" >&2
        failed=1
        kill "$cl" 2>/dev/null
    fi
    wait "$cl"
    if grep -q '^error' "$WORK/$1.lat"; then
        echo "bench-ctl: $1 client: $(grep -m1 '^error' "$WORK/$1.lat")" >&2
        failed=1
    fi
    grep '^seg ' "$d/out" >"$WORK/$1.seg"
    [ "$(wc -l <"$WORK/$1.seg")" = $(($2 * 4)) ] ||
        { echo "bench-ctl: $1: $(wc -l <"$WORK/$1.seg") of $(($2 * 4)) segments" >&2; failed=1; }
    rm -rf "$d"
}
seg_run q10 "$BLOCKS"
seg_run flood "$FBLOCKS" flood
load1=$(cut -d' ' -f1 /proc/loadavg)

# ---------------------------------------------------------------- results
# stats: "median q1 q3 min max" of the numbers on stdin
stats() {
    sort -g | awk '{ v[NR] = $1 }
        function q(p,   h, i) { h = (NR - 1) * p + 1; i = int(h);
                                return i >= NR ? v[NR] : v[i] + (h - i) * (v[i + 1] - v[i]) }
        END { if (NR == 0) { print "n/a n/a n/a n/a n/a"; exit }
              printf "%.4f %.4f %.4f %.4f %.4f\n", q(0.5), q(0.25), q(0.75), v[1], v[NR] }'
}
# round_ratio COL: per round of 1., idle / off of column COL
round_ratio() {
    awk -v c="$1" '{ s[$1, $2] += $c; r[$2] = 1 }
        END { for (k in r) if (s["off", k] > 0) print s["idle", k] / s["off", k] }' \
        "$WORK/runs" | stats
}
per_call1() { awk -v v="$1" '$1 == v { print $3 / $6 }' "$WORK/runs" | stats; }
# seg files: seg BLOCK PHASE calls thread cpu wall (columns 5 6 7)
block_ratio() {   # block_ratio FILE COL: per block, q / i
    awk -v c="$2" '{ s[$2, $3] += $c; b[$2] = 1 }
        END { for (k in b) if (s[k, "i"] > 0) print s[k, "q"] / s[k, "i"] }' "$1" | stats
}
total_ratio() {
    awk -v c="$2" '{ s[$3] += $c } END { printf "%.4f", (s["i"] > 0) ? s["q"] / s["i"] : 0 }' "$1"
}
null_ratio() {   # (segments 1 + 3) / (segments 2 + 4) of each block, thread CPU
    awk '{ n = NR % 4; if (n == 0) n = 4; s[$2, n % 2] += $5; b[$2] = 1 }
        END { for (k in b) if (s[k, 0] > 0) print s[k, 1] / s[k, 0] }' "$1" | stats
}
per_call2() { awk -v p="$2" '$3 == p { print $5 / $4 }' "$1" | stats; }
nq() { grep -c -E '^(stacks|profile) ' "$1"; }
lat() {   # lat QUERY PCT: percentile of the latencies of QUERY (ms) in 2.
    awk -v q="$1" '$1 == q { print $2 }' "$WORK/q10.lat" | sort -g |
        awk -v p="$2" '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit }
                        i = int(NR * p / 100 + 0.5); if (i < 1) i = 1; if (i > NR) i = NR; print v[i] }'
}
for v in off idle; do
    grep -q "^$v " "$WORK/runs" || { echo "bench-ctl: no result for $v" >&2; exit 1; }
done
for f in q10 flood; do
    [ -s "$WORK/$f.seg" ] || { echo "bench-ctl: no result for $f" >&2; exit 1; }
done
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r != "n/a" && r + 0 <= t + 0) ? "PASS" : "MISS" }'; }
row() {   # row LABEL TARGET "median q1 q3 min max" [EXTRA]
    local label=$1 target=$2 med q1 q3 lo hi
    read -r med q1 q3 lo hi <<<"$3"
    echo "| $label | $med${4:+ ($4)} | $q1 – $q3 | $lo – $hi | ${target:+<= $target} | ${target:+$(verdict "$med" "$target")} |"
}
nq10=$(nq "$WORK/q10.lat")
qwall=$(awk '$3 == "q" { w += $7 } END { printf "%.0f", w }' "$WORK/q10.seg")
qps=$(awk -v n="$nq10" -v w="$qwall" 'BEGIN { printf "%.2f", (w > 0) ? n / (w / 1e9) : 0 }')
sh_us=$(awk -v n="$nq10" '$3 == "q" { d += $6 - $5 } END { printf "%.1f", n ? d / n / 1e3 : 0 }' \
        "$WORK/q10.seg")
sh_idle=$(awk '$3 == "i" { d += $6 - $5; w += $7 } END { printf "%.4f", w ? 100 * d / w : 0 }' \
          "$WORK/q10.seg")
rows=$(awk '$1 == "profile" { n++; r += $3 } END { printf "%d", n ? r / n : 0 }' "$WORK/q10.lat")
# 3.: per block, (thread CPU of q - of i) / queries in the block's q segments
awk '/^(stacks|profile) / { print int($4 / 2) }' "$WORK/flood.lat" | sort -n | uniq -c |
    awk '{ print $2, $1 }' >"$WORK/flood.nq"
perq=$(awk 'FNR == NR { n[$1] = $2; next }
            { s[$2, $3] += $5; b[$2] = 1 }
            END { for (k in b) if (n[k] > 0) print (s[k, "q"] - s[k, "i"]) / n[k] / 1e3 }' \
           "$WORK/flood.nq" "$WORK/flood.seg" | stats)
nqf=$(nq "$WORK/flood.lat")
fqps=$(awk -v n="$nqf" '$3 == "q" { w += $7 } END { printf "%.0f", (w > 0) ? n / (w / 1e9) : 0 }' \
       "$WORK/flood.seg")
perq_med=${perq%% *}
ex_thr=$(awk -v p="$perq_med" -v r="$qps" 'BEGIN { x = p * r / 1e6; printf "%.5f", 1 + (x > 0 ? x : 0) }')
ex_proc=$(awk -v p="$perq_med" -v s="$sh_us" -v r="$qps" \
          'BEGIN { x = (p > 0 ? p : 0) + s; printf "%.5f", 1 + x * r / 1e6 }')
s_med=$(lat stacks 50); s_99=$(lat stacks 99); p_med=$(lat profile 50); p_99=$(lat profile 99)
{
    echo "# External control benchmark"
    echo
    echo "Under vftr-run, profile only; load average $load0 before, $load1 after (2 CPUs)."
    echo "thread = CPU time of the measured thread, process = CPU time of all its threads"
    echo "(the shadow thread's included), wall = elapsed; all around the workload only."
    echo "1: $ROUNDS rounds of separate fib($FIB) runs off/idle/idle/off (alternating), ratio per round."
    echo "2: one process, $BLOCKS blocks of fib($SEG) segments i/q/q/i (alternating), ratio per block;"
    echo "   $nq10 queries answered, $qps per second of queried work (stacks + profile"
    echo "   at each 100 ms tick), $rows data lines per profile answer."
    echo "3: as 2 with the client asking as fast as it can ($nqf queries, $fqps per second),"
    echo "   $FBLOCKS blocks; extra CPU of the measured thread per query, scaled to the rate of 2."
    echo
    echo "| measure | median | quartiles | min – max | target | result |"
    echo "|---|---|---|---|---|---|"
    row "1: ns per call, off (thread CPU)" "" "$(per_call1 off)"
    row "1: ns per call, idle (thread CPU)" "" "$(per_call1 idle)"
    row "1: idle / off, thread CPU" 1.02 "$(round_ratio 3)"
    row "1: idle / off, wall" "" "$(round_ratio 5)"
    row "2: ns per call, idle segments (thread CPU)" "" "$(per_call2 "$WORK/q10.seg" i)"
    row "2: ns per call, queried segments (thread CPU)" "" "$(per_call2 "$WORK/q10.seg" q)"
    row "2: queried / idle, thread CPU (all: q / all: i)" 1.01 "$(block_ratio "$WORK/q10.seg" 5)" \
        "$(total_ratio "$WORK/q10.seg" 5)"
    row "2: queried / idle, process CPU (with the shadow thread)" 1.01 \
        "$(block_ratio "$WORK/q10.seg" 6)" "$(total_ratio "$WORK/q10.seg" 6)"
    row "2: queried / idle, wall (not judged: counts other processes' time too)" "" "$(block_ratio "$WORK/q10.seg" 7)" \
        "$(total_ratio "$WORK/q10.seg" 7)"
    row "2: null (one q and one i on each side), thread CPU" "" "$(null_ratio "$WORK/q10.seg")"
    echo "| 2: shadow thread CPU per query (µs); in idle segments, % of wall | $sh_us; $sh_idle % | | | | |"
    row "3: extra CPU of the measured thread per query (µs)" "" "$perq"
    echo "| 3: slowdown at $qps queries/s: thread CPU / with the shadow thread | $ex_thr / $ex_proc | | | <= 1.01 | $(verdict "$ex_proc" 1.01) |"
    echo "| stacks latency median / p99 (ms) | $s_med / $s_99 | | | median <= 10 | $(verdict "${s_med/n\/a/999}" 10) |"
    echo "| profile latency median / p99 (ms) | $p_med / $p_99 | | | median <= 10 | $(verdict "${p_med/n\/a/999}" 10) |"
} | tee "$OUT"
exit "$failed"
