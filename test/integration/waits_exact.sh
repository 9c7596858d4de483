#!/bin/bash
# waits_exact.sh — the wait analysis (vftr-stats --waits, --critical-path,
# --delays) on hand-built runs (test/waits/mkwaits.c; times in us there,
# 1 us = 0.000001 s here), every figure worked out by hand from that file.
# Each run is analysed as its .vfd files and as their OTF conversion: the
# two must agree byte for byte.
#
# p2p (2 ranks): rank 1 (process 2) waits in MPI_Recv 1000..5000 for rank
#   0's MPI_Send at 5000 (Late Sender 4000); rank 0 waits in MPI_Recv
#   5200..7000 for rank 1's send at 7000 (1800); rank 0's MPI_Ssend
#   7200..8100 waits for rank 1's MPI_Recv posted at 8000 (Late Receiver
#   800); rank 0 waits in MPI_Finalize 9000..9500 (500); MPI_Init ends at 50
#   and 60: completion 10 on rank 1.  Processes' time 9995 + 10000.
#   Critical path: ends on rank 1 at 10000; back to its wait's end at 5000
#   (rank 1: MPI_Recv 200 + 150, main 100 + 1350 + 100, work 1700, MPI_Send
#   50, work2 950, MPI_Finalize 400), then rank 0 [0, 5000) (main 60,
#   MPI_Init 40, work 4900): work 6600, main 1610, work2 950, ...;
#   imbalance = cp - (non-waiting time summed over ranks) / 2: work 6600 -
#   6600/2, work2 950 - 475, MPI_Recv 350 - (100 + 350)/2.
#   Delays: rank 1's wait 4000: interval since MPI_Init's end, rank 0
#   main 50 + work 4900 against rank 1's main 940: delay work 4900, S =
#   4900, scale 4000/4900: (1, work) 4000.  Rank 0's 1800: rank 1 [5200,
#   7000) main 100, work 1700 against rank 0 [5000, 5200) MPI_Send 100, main
#   100: S = 1700 < 1800: (2, work) 1700.  Late Receiver 800: rank 1 [7000,
#   8000) MPI_Send 50, work2 950 against rank 0 [7100, 7200) main 100: S =
#   1000: work2 760, MPI_Send 40.  Finalize 500: rank 1 [8150, 9500) main
#   1350 against rank 0 [7200, 9000) main 900 (+ MPI_Ssend 100 not waiting):
#   (2, main) 450.  Total 6950.
# chain3 (3 ranks): rank 1 waits 3000 for rank 0's work (3000), rank 2
#   waits 3300 for rank 1, late by 200 of work2, 100 of MPI_Recv after its
#   message and its own wait of 3000: S = 300 + 3000 = 3300 = omega, so
#   (1, work) gets 3000 short-term and 3000 long-term, (2, work2) 200,
#   (2, MPI_Recv) 100; the Late Sender costs add up to 3000 + 3300.
#   Critical path: rank 2 [3400, 6000), rank 1 [3100, 3400), rank 0 [0, 3100).
# coll (3 ranks): see mkwaits.c; barrier waits 2000 and 1500 for rank 2,
#   completion from the first exit 3100: 100, 200; allreduce 500 and 300 for
#   rank 1 (enter 4500), completion from 4600: 100, 50; bcast (root rank 1 at
#   6000) 1000 and 500; reduce (root rank 0 at 7000, first other at 7200)
#   200; scan: rank 2 waits for rank 1 (8300 - 8100); finalize 600, 600.
# order (3 ranks): rank 0's first receive waits 1900 for rank 1 while rank
#   2's message, sent at 500, is already there: Late Sender 1900, all of it
#   in wrong order; its MPI_Waitall 3100..5100 completes two receives whose
#   sends began 4000 and 5000: one instance, the larger (1900).
# omp (1 rank, 3 threads; tokens 1, 1048577, 2097153): implicit barrier of
#   region 1 entered at 4000, 2100, 3500: waits 1900, 500; explicit barrier
#   entered 6300, 6650, 6800: 500, 150; thread 2 waits 400 for the lock
#   thread 1 releases at 6600; workers idle 0..1100 / 0..1200 (before region
#   1), 4990..6050 / 4990..6060 (before region 2), 7990..10000 (to the end).
#   Critical path through the fork, the lock and the explicit barrier:
#   thread 1 600 (50 idle + 50 task + 500 lock), thread 2 200, master 9200.
# outside (2 ranks, messages outside any MPI call, analysis.md "Messages
#   outside MPI calls"): rank 1's MPI_Recv 200..1000 waits for rank 0's
#   send made in work at 500: Late Sender 300; rank 0's MPI_Recv
#   2000..4000 for rank 1's send in work2 at 3500: 1500; rank 1's receive
#   in work at 4200 waits for nothing, its MPI_Finalize 5000..5200 for
#   rank 0's (200).  Rank 0's thread (work 1000..1010) is no OpenMP
#   worker: no idle time.  Processes' time 6000 + 6010 + 10.
. "$(dirname "$0")/../conv/common.sh"

STATS=$B/bin/vftr-stats
MK=$B/test/waits/mkwaits
V2O=$B/bin/vfd2otf
for t in "$STATS" "$MK" "$V2O"; do
    [ -x "$t" ] || { bad "$t is not built (make check builds it)"; exit 1; }
done

# same WHAT EXPECTED-FILE GOT-FILE
same() {
    if cmp -s "$2" "$3"; then pass "$1"; else bad "$1"; diff "$2" "$3" | sed -n '1,20s/^/    /p'; fi
}

for s in p2p chain3 coll order omp ompidle outside; do
    mkdir -p "$T/$s"
    "$MK" "$s" "$T/$s" || bad "mkwaits $s"
    "$V2O" -q -o "$T/$s.otf" "$T/$s" >/dev/null 2>&1 || bad "vfd2otf $s"
done

# run SCENARIO OPTIONS...: vftr-stats on the .vfd run, and the same on its
# OTF conversion must print the same
run() {
    local s=$1; shift
    "$STATS" "$@" "$T/$s/" >"$T/got" 2>"$T/err" || { bad "vftr-stats $* $s: $(head -1 "$T/err")"; }
    "$STATS" "$@" "$T/$s.otf" >"$T/got.otf" 2>&1
    cmp -s "$T/got" "$T/got.otf" || { bad "$s $*: .vfd and OTF differ"; diff "$T/got" "$T/got.otf" | head -5; }
    cat "$T/got"
}

cat >"$T/want" <<'EOF'
pattern,time,pct,count,max,process,callpath
late_sender,0.004000,20.01,1,0.004000,2,MPI_Recv<main
late_sender,0.001800,9.00,1,0.001800,1,MPI_Recv<main
late_receiver,0.000800,4.00,1,0.000800,1,MPI_Ssend<main
wait_finalize,0.000500,2.50,1,0.000500,1,MPI_Finalize<main
init_completion,0.000010,0.05,1,0.000010,2,MPI_Init<main
EOF
run p2p --waits --csv >"$T/out"; same "p2p: every wait, as worked out by hand" "$T/want" "$T/out"

cat >"$T/want" <<'EOF'
time,pct,imbalance,function
0.006600,66.00,0.003300,work
0.001610,16.10,0.000000,main
0.000950,9.50,0.000475,work2
0.000400,4.00,0.000000,MPI_Finalize
0.000350,3.50,0.000125,MPI_Recv
0.000050,0.50,0.000000,MPI_Send
0.000040,0.40,0.000000,MPI_Init

process,time,pct
1,0.005000,50.00
2,0.005000,50.00
EOF
run p2p --critical-path --csv >"$T/out"; same "p2p: critical path and its imbalance" "$T/want" "$T/out"

cat >"$T/want" <<'EOF'
pattern,short,long,total,pct,process,callpath
late_sender,0.004000,0.000000,0.004000,57.55,1,work<main
late_sender,0.001700,0.000000,0.001700,24.46,2,work<main
late_receiver,0.000760,0.000000,0.000760,10.94,2,work2<main
wait_finalize,0.000450,0.000000,0.000450,6.47,2,main
late_receiver,0.000040,0.000000,0.000040,0.58,2,MPI_Send<main
EOF
run p2p --delays --csv >"$T/out"; same "p2p: delay costs (2 ranks)" "$T/want" "$T/out"

# the critical path of a window that ends inside a wait: rank 0's MPI_Recv
# 5200..7100 (its send at 7000) is open at 6 ms; the path is rank 0's
# 0..6000: main 10 + 50 + 100, MPI_Init 40, work 4900, MPI_Send 100,
# MPI_Recv 800.  Imbalance = cp - (non-waiting time / 2 processes):
#   work     4900 - (4900 + 700 [rank 1's 5300..6000]) / 2       = 2100
#   MPI_Recv  800 - (200 [rank 1's 5000..5200, after its Late Sender]
#                    + 0 [rank 0's 5200..6000: waiting up to the window's
#                    end, not busy]) / 2                          =  700
#   main      160 - (160 + 1050 [0..10, 60..1000, 5200..5300]) / 2 <  0: 0
#   MPI_Send  100 - 100 / 2                                       =   50
#   MPI_Init   40 - (40 + 40 [50..60 of rank 1 is completion]) / 2 =   0
cat >"$T/want" <<'EOF'
time,pct,imbalance,function
0.004900,81.67,0.002100,work
0.000800,13.33,0.000700,MPI_Recv
0.000160,2.67,0.000000,main
0.000100,1.67,0.000050,MPI_Send
0.000040,0.67,0.000000,MPI_Init

process,time,pct
1,0.006000,100.00
EOF
run p2p --critical-path --csv --time :6ms >"$T/out"
same "p2p: critical path of a window ending in a wait, the wait not busy" "$T/want" "$T/out"

# the window: Late Sender 1000..5000 cut at 3000 into 2000 + 2000
run p2p --waits --csv --time :3ms >"$T/a"
run p2p --waits --csv --time 3ms: >"$T/b"
check_row() { grep -qx "$2" "$3" && pass "$1" || { bad "$1"; sed 's/^/    /' "$3"; }; }
# (the processes' time in the window: 3000 + 3000, then 6995 + 7000)
check_row "window before 3 ms: Late Sender's part inside" \
    "late_sender,0.002000,33.33,1,0.002000,2,MPI_Recv<main" "$T/a"
check_row "window from 3 ms: the rest of it" \
    "late_sender,0.002000,14.29,1,0.002000,2,MPI_Recv<main" "$T/b"
check_row "window from 3 ms: the waits after it whole" \
    "late_receiver,0.000800,5.72,1,0.000800,1,MPI_Ssend<main" "$T/b"
[ "$(grep -c init_completion "$T/b")" = 0 ] && pass "window from 3 ms: nothing of before it" \
    || bad "window from 3 ms has MPI_Init's completion"
run p2p --waits --csv --process 1 >"$T/out"
[ "$(cut -d, -f6 "$T/out" | sed 1d | sort -u)" = 1 ] && pass "--process 1: only its waits" \
    || bad "--process 1: $(cut -d, -f6 "$T/out" | sort -u | tr '\n' ' ')"

cat >"$T/want" <<'EOF'
pattern,short,long,total,pct,process,callpath
late_sender,0.003000,0.003000,0.006000,72.73,1,work<main
late_sender,0.000200,0.000000,0.000200,2.42,2,work2<main
late_sender,0.000100,0.000000,0.000100,1.21,2,MPI_Recv<main
EOF
run chain3 --delays --csv --match '' | grep -E '^(pattern|late_sender),' >"$T/out"
same "chain3: delay costs travel along the chain (3 ranks, short and long term)" "$T/want" "$T/out"
cat >"$T/want" <<'EOF'
time,pct,imbalance,function
0.003000,50.00,0.002000,work
0.001570,26.17,0.000537,main
0.000990,16.50,0.000000,MPI_Finalize
0.000200,3.33,0.000133,MPI_Recv
0.000200,3.33,0.000133,work2
0.000040,0.67,0.000000,MPI_Init

process,time,pct
1,0.003100,51.67
3,0.002600,43.33
2,0.000300,5.00
EOF
run chain3 --critical-path --csv >"$T/out"; same "chain3: critical path across 3 ranks" "$T/want" "$T/out"

cat >"$T/want" <<'EOF'
pattern,time,pct,count,max,process,callpath
wait_barrier,0.002000,6.67,1,0.002000,1,MPI_Barrier<main
wait_barrier,0.001500,5.00,1,0.001500,2,MPI_Barrier<main
late_broadcast,0.001000,3.33,1,0.001000,1,MPI_Bcast<main
wait_finalize,0.000600,2.00,1,0.000600,1,MPI_Finalize<main
wait_finalize,0.000600,2.00,1,0.000600,2,MPI_Finalize<main
wait_nxn,0.000500,1.67,1,0.000500,1,MPI_Allreduce<main
late_broadcast,0.000500,1.67,1,0.000500,3,MPI_Bcast<main
wait_nxn,0.000300,1.00,1,0.000300,3,MPI_Allreduce<main
barrier_completion,0.000200,0.67,1,0.000200,3,MPI_Barrier<main
early_reduce,0.000200,0.67,1,0.000200,1,MPI_Reduce<main
early_scan,0.000200,0.67,1,0.000200,3,MPI_Scan<main
nxn_completion,0.000100,0.33,1,0.000100,2,MPI_Allreduce<main
barrier_completion,0.000100,0.33,1,0.000100,2,MPI_Barrier<main
nxn_completion,0.000050,0.17,1,0.000050,3,MPI_Allreduce<main
EOF
run coll --waits --csv >"$T/out"; same "coll: every collective pattern (3 ranks)" "$T/want" "$T/out"

cat >"$T/want" <<'EOF'
pattern,time,pct,count,max,process,callpath
late_sender,0.001900,9.05,1,0.001900,1,MPI_Recv<main
late_sender_wo,0.001900,9.05,1,0.001900,1,MPI_Recv<main
late_sender,0.001900,9.05,1,0.001900,1,MPI_Waitall<main
EOF
run order --waits --csv >"$T/out"; same "order: wrong order, and one wait for a call completing two" "$T/want" "$T/out"

cat >"$T/want" <<'EOF'
pattern,time,pct,count,max,process,callpath
omp_idle,0.002010,8.49,1,0.002010,1048577,main
omp_idle,0.002010,8.49,1,0.002010,2097153,main
omp_barrier,0.001900,8.02,1,0.001900,1048577,omp barrier @omp.c:10<omp implicit task @omp.c:10
omp_idle,0.001200,5.07,1,0.001200,2097153,omp parallel @omp.c:10<main
omp_idle,0.001100,4.65,1,0.001100,1048577,omp parallel @omp.c:10<main
omp_idle,0.001070,4.52,1,0.001070,2097153,omp parallel @omp.c:20<main
omp_idle,0.001060,4.48,1,0.001060,1048577,omp parallel @omp.c:20<main
omp_explicit_barrier,0.000500,2.11,1,0.000500,1,omp barrier (explicit) @omp.c:22<omp implicit task @omp.c:20<omp parallel @omp.c:20<main
omp_barrier,0.000500,2.11,1,0.000500,2097153,omp barrier @omp.c:10<omp implicit task @omp.c:10
omp_lock_wait,0.000400,1.69,1,0.000400,2097153,omp lock wait @omp.c:24<omp implicit task @omp.c:20
omp_explicit_barrier,0.000150,0.63,1,0.000150,1048577,omp barrier (explicit) @omp.c:22<omp implicit task @omp.c:20
EOF
run omp --waits --csv --threads >"$T/out"; same "omp: barriers, idle threads, lock contention per thread" "$T/want" "$T/out"
run omp --critical-path --csv --threads >"$T/out"
sed -n '/^process/,$p' "$T/out" >"$T/got"
printf 'process,time,pct\n1,0.009200,92.00\n1048577,0.000600,6.00\n2097153,0.000200,2.00\n' >"$T/want"
same "omp: critical path through fork, lock and barrier per thread" "$T/want" "$T/got"
run omp --waits --csv >"$T/out"
[ "$(cut -d, -f6 "$T/out" | sed 1d | sort -u)" = 1 ] && pass "omp: threads folded into their rank by default" \
    || bad "omp folding: $(cut -d, -f6 "$T/out" | sort -u | tr '\n' ' ')"

# ompidle: OpenMP as capture records it now (mkwaits.c): the worker's
# share of each region around its task, "omp idle" between them.  Region
# 1's join: the master waits from 1900 until the worker's 4000: 2100;
# region 2's: the worker from 6500 until the master's 7000: 500.  The
# worker idles 0..1100 (for region 1's fork), 5000..6050 (for region 2's)
# and 8000..10000 (to the end).  Processes' time 10000 + 8890.
cat >"$T/want" <<'EOF'
pattern,time,pct,count,max,process,callpath
omp_barrier,0.002100,11.12,1,0.002100,1,omp barrier @omp.c:10<omp implicit task @omp.c:10<omp parallel @omp.c:10<main
omp_idle,0.002000,10.59,1,0.002000,1048577,main
omp_idle,0.001100,5.82,1,0.001100,1048577,omp parallel @omp.c:10<main
omp_idle,0.001050,5.56,1,0.001050,1048577,omp parallel @omp.c:20<main
omp_barrier,0.000500,2.65,1,0.000500,1048577,omp barrier @omp.c:20<omp implicit task @omp.c:20<omp parallel @omp.c:20
EOF
run ompidle --waits --csv --threads >"$T/out"
same "ompidle: barriers and idle threads with the workers' shares and omp idle" "$T/want" "$T/out"
# its critical path: the master 0..1000, the worker 1000..4000 (100 before
# its share, task 10, work 2890), the master 4000..10000 (each barrier's
# 980 after the last thread entered, work 980, main 1000 + 2000, ...)
cat >"$T/want" <<'EOF'
time,pct,function
0.004000,40.00,main
0.003870,38.70,work
0.000980,9.80,omp barrier @omp.c:10
0.000980,9.80,omp barrier @omp.c:20
0.000100,1.00,(outside calls)
0.000020,0.20,omp implicit task @omp.c:10
0.000020,0.20,omp implicit task @omp.c:20
0.000020,0.20,omp parallel @omp.c:20
0.000010,0.10,omp parallel @omp.c:10

process,time,pct
1,0.007000,70.00
1048577,0.003000,30.00
EOF
# (the imbalance column left out: not worked out by hand)
run ompidle --critical-path --csv --threads | sed 's/^\([^,]*,[^,]*\),[^,]*,\([^,]*\)$/\1,\2/' >"$T/out"
same "ompidle: critical path from the master through the worker's barrier entry" "$T/want" "$T/out"

cat >"$T/want" <<'EOF'
pattern,time,pct,count,max,process,callpath
late_sender,0.001500,12.48,1,0.001500,1,MPI_Recv<main
late_sender,0.000300,2.50,1,0.000300,2,MPI_Recv<main
wait_finalize,0.000200,1.66,1,0.000200,2,MPI_Finalize<main
EOF
run outside --waits --csv >"$T/out"; same "outside: waits for sends outside MPI calls, no idle for a non-OpenMP thread" "$T/want" "$T/out"
# critical path: ends on rank 1 at 6010; back to its MPI_Finalize's wait
# for rank 0 (5200), rank 0 back to its MPI_Recv's wait for the send at
# 3500, rank 1 back to its MPI_Recv's wait for the send at 500 (its
# receive at 4200 waited for nothing): rank 1 [5200, 6010) (MPI_Finalize
# 790, main 20), rank 0 [3500, 5200) (MPI_Recv 500, main 100 + 1050,
# MPI_Send 50), rank 1 [500, 3500) (MPI_Recv 500, main 2000, work2 500),
# rank 0 [0, 500) (main 60, MPI_Init 40, work 400).  Imbalance over the
# 3 processes' non-waiting time: main 3230 - (2220 + 2880)/3, MPI_Recv
# 1000 - (500 + 500)/3, MPI_Finalize 790 - (790 + 790)/3, work2 500 -
# 800/3, work 400 - (900 + 500 + 10)/3 < 0, MPI_Send 50 - 50/3, MPI_Init
# 40 - 80/3.
cat >"$T/want" <<'EOF'
time,pct,imbalance,function
0.003230,53.74,0.001530,main
0.001000,16.64,0.000667,MPI_Recv
0.000790,13.14,0.000263,MPI_Finalize
0.000500,8.32,0.000233,work2
0.000400,6.66,0.000000,work
0.000050,0.83,0.000033,MPI_Send
0.000040,0.67,0.000013,MPI_Init

process,time,pct
2,0.003810,63.39
1,0.002200,36.61
EOF
run outside --critical-path --csv >"$T/out"; same "outside: critical path through a send outside MPI calls" "$T/want" "$T/out"
# delays: rank 1's 300 since MPI_Init (rank 0 main 50, work 400 against
# rank 1 main 150): (1, work) 300; rank 0's 1500 since the message (rank
# 1 [1000, 3500) main 2000, work2 500 against rank 0 [500, 2000) work
# 500, main 1000): (2, main) 1000, (2, work2) 500; rank 1's 200 in
# MPI_Finalize since the message it received outside any call at 4200
# (rank 0 [4100, 5200) MPI_Send 50, main 1050 against rank 1 [4200, 5000)
# work 300, main 500: S = 50 + 550 = 600): (1, main) 200 * 550/600,
# (1, MPI_Send) 200 * 50/600
cat >"$T/want" <<'EOF'
pattern,short,long,total,pct,process,callpath
late_sender,0.001000,0.000000,0.001000,50.00,2,main
late_sender,0.000500,0.000000,0.000500,25.00,2,work2<main
late_sender,0.000300,0.000000,0.000300,15.00,1,work<main
wait_finalize,0.000183,0.000000,0.000183,9.17,1,main
wait_finalize,0.000017,0.000000,0.000017,0.83,1,MPI_Send<main
EOF
run outside --delays --csv >"$T/out"; same "outside: delay costs with messages outside MPI calls" "$T/want" "$T/out"
# windows that end inside a call that has sent (rank 1's work2 sent at
# 3500, window end 3600) or is about to receive (its work receives at
# 4200, end 4100): the same waits, of 3600 + 3600 + 10 and 4100 + 4100 +
# 10; the critical path at 3600 is rank 0's (tied with rank 1, the first),
# [0, 3600): main 1060, MPI_Recv 1600, work 900, MPI_Init 40
for e in 3.6 4.1; do
    if [ $e = 3.6 ]; then p1=20.80 p2=4.16; else p1=18.27 p2=3.65; fi
    printf 'pattern,time,pct,count,max,process,callpath\n%s\n%s\n' \
        "late_sender,0.001500,$p1,1,0.001500,1,MPI_Recv<main" \
        "late_sender,0.000300,$p2,1,0.000300,2,MPI_Recv<main" >"$T/want"
    run outside --waits --csv --time :${e}ms >"$T/out"
    same "outside: window ending at $e ms inside a call outside MPI with a message" "$T/want" "$T/out"
done
cat >"$T/want" <<'EOF'
time,pct,function
0.001600,44.44,MPI_Recv
0.001060,29.44,main
0.000900,25.00,work
0.000040,1.11,MPI_Init

process,time,pct
1,0.003600,100.00
EOF
# (the imbalance column left out: a wait open at the window's end is not
# known to the critical path, which reads no further)
run outside --critical-path --csv --time :3.6ms | sed 's/^\([^,]*,[^,]*\),[^,]*,\([^,]*\)$/\1,\2/' >"$T/out"
same "outside: critical path of a window ending after a send outside MPI calls" "$T/want" "$T/out"

# text output writes times as the profile does (util/fmt.h): in the unit
# that fits, headers without "[s]"; a trace that does not give its timer
# resolution gets whole ticks under "[ticks]" headers (p2p's ticks are ns)
run p2p --waits >"$T/out"
if head -2 "$T/out" | grep -q '\[s\]'; then bad "p2p --waits: [s] in a text header"; sed -n 1,2p "$T/out"
else pass "p2p --waits: no [s] in the text headers"; fi
grep -Eq '^late_sender +4\.00 ms +20\.01 +1 +4\.00 ms +rank 1 +MPI_Recv<main$' "$T/out" &&
grep -q '^waits: 7\.11 ms in all' "$T/out" && pass "p2p --waits: times in ms, as the profile writes them" ||
    { bad "p2p --waits: times not in the unit that fits"; cat "$T/out"; }
mkdir -p "$T/nores"
"$V2O" -q -o "$T/nores/p2p" "$T/p2p" >/dev/null 2>&1 || bad "vfd2otf p2p (no resolution)"
grep -v '^DTR' "$T/nores/p2p.0.def" >"$T/nores/def" && mv "$T/nores/def" "$T/nores/p2p.0.def"
for v in --waits --critical-path --delays; do
    "$STATS" $v "$T/nores/p2p" >"$T/out" 2>/dev/null
    if grep -q '\[s\]\| s\b\| ms\b\| us\b' "$T/out" || ! sed -n 2p "$T/out" | grep -q '\[ticks\]'; then
        bad "no timer resolution: $v not in ticks"; sed -n 1,3p "$T/out"
    else pass "no timer resolution: $v in ticks"; fi
done
"$STATS" --waits "$T/nores/p2p" 2>/dev/null | grep -Eq '^late_sender +4000000 +20\.01 +1 +4000000 +rank 1 ' &&
    pass "no timer resolution: Late Sender 4000 us as 4000000 ticks" ||
    bad "no timer resolution: Late Sender in ticks"
"$STATS" --waits --csv "$T/nores/p2p" 2>/dev/null | grep -q '^late_sender,4000000\.000000,' &&
    pass "no timer resolution: CSV keeps plain numbers" || bad "no timer resolution: CSV"

# the critical path covers the run once: its processes' shares add up to it
for s in p2p chain3 coll order omp ompidle outside; do
    run "$s" --critical-path --json --threads >"$T/out"
    python3 - "$T/out" <<'EOF' && pass "$s: the critical path's pieces add up to its length" || bad "$s: critical path does not add up"
import json, sys
d = json.load(open(sys.argv[1]))
l = d["length_s"]
assert abs(sum(p["time"] for p in d["processes"]) - l) < 2e-6, d
assert abs(sum(f["time"] for f in d["functions"]) - l) < 2e-5, d
assert abs(l - (d["end_s"] - d["start_s"])) < 2e-6, d
EOF
done
exit $fail
