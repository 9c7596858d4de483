#!/bin/bash
# vfd2otf_idle.sh — vfd2otf's memory does not grow with the trace when a
# thread sits idle (issue 14, item 10): an OpenMP worker between two
# parallel regions writes its events in one chunk at the end of the file,
# after millions of the main thread's.  The converter used to park every
# record of the main thread until the worker's next one (16 bytes each:
# +78 MiB from 1.2 M to 4.8 M events here), and its message matcher and
# look-ahead parked the main thread's MPI records the same way.
#
# 1. Events, worked out by hand from test/conv/mkvfd.c "idle" (N = 2000;
#    2 ranks; tokens: rank r -> r + 1, its worker (thread 1) -> (1 << 20)
#    + r + 1; E = 20 + 10 N = 20020):
#      thread 0 of each rank: Enter/Leave main, N of f and N / 10 of
#      MPI_Sendrecv (2201 each), 200 sends, 200 receives;
#      the worker: 6 Enter/Leave (2 OpenMP regions, work twice, MPI_Send,
#      MPI_Recv); its send at its start 15 to the other rank's worker (tag
#      2, 16 bytes), its receive at E + 14 = 20034 from it;
#      402 messages matched.
#    The same events with the worker's chunks elsewhere in the file
#    (layout "split") give the same files, and so do -j 2 and vfd2otf-mpi.
# 2. Memory: the same at N = 250 000 and N = 1 000 000 (1.2 M and 4.8 M
#    events): peak RSS (GNU time) at 4x the events within 2 MiB of the
#    smaller run's, for vfd2otf and for vfd2otf --compress --all (snapshots
#    and statistics in the same pass), with either layout.  2 MiB: what a
#    reading position may have mapped around where it reads and gives back
#    only as it moves on (lib/vfd/vfd_internal.h, vfd_forget: a page
#    table's reach); growth with the trace (16 bytes per event before the
#    fix) is tens of MiB.
# 3. A real capture: test/omp/omp_idle (clang -fopenmp
#    -finstrument-functions: a parallel region, N serial calls, another
#    parallel region) under vftr-run.  At N = 1000 the trace holds, per
#    process, the calls of leaf() the program counted itself; N = 250 000
#    and 1 000 000 differ by exactly 2 x 750 000 events (one Enter and one
#    Leave per serial call), and peak RSS as in 2.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
MK=$B/test/conv/mkvfd
REF=$B/test/conv/refdump
V2O=$B/bin/vfd2otf
MPI=$B/bin/vfd2otf-mpi
RUN=$B/bin/vftr-run
IDLE=$B/test/omp/omp_idle
for v in $(env | sed -n 's/^\(VFTR_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# 1. events
for l in end split; do
    mkdir -p "$T/s$l"
    $MK idle "$T/s$l" 2000 $l || { bad "mkvfd idle 2000 $l"; exit 1; }
done
if ! "$V2O" --events-only -o "$T/e" "$T/send" >"$T/out" 2>"$T/err"; then
    bad "idle: vfd2otf failed: $(cat "$T/err")"
else
    cat >"$T/expect" <<'X'
1 BEGINPROC 1
1 ENDPROC 1
1 ENTER 2201
1 LEAVE 2201
1 RECV 200
1 SEND 200
1048577 BEGINPROC 1
1048577 ENDPROC 1
1048577 ENTER 6
1048577 LEAVE 6
1048577 RECV 1
1048577 SEND 1
1048578 BEGINPROC 1
1048578 ENDPROC 1
1048578 ENTER 6
1048578 LEAVE 6
1048578 RECV 1
1048578 SEND 1
2 BEGINPROC 1
2 ENDPROC 1
2 ENTER 2201
2 LEAVE 2201
2 RECV 200
2 SEND 200
1048577 15 SEND 1048578 1 2 16
1048577 20034 RECV 1048578 1 2 16
1048578 15 SEND 1048577 1 2 16
1048578 20034 RECV 1048577 1 2 16
X
    "$REF" -e "$T/e" >"$T/ev" 2>&1
    { awk '{ n[$1 " " $3]++ } END { for (k in n) print k, n[k] }' "$T/ev" | sort
      awk '$1 > 1000000 && ($3 == "SEND" || $3 == "RECV")' "$T/ev" | sort; } >"$T/got"
    if diff -u "$T/expect" "$T/got" >"$T/diff"; then
        pass "idle: the events of each process, the worker's messages at their times"
    else
        bad "idle: events differ: $(cat "$T/diff")"
    fi
    grep -q ' 402 messages matched, 0 receives before their send' "$T/out" \
        && pass "idle: 402 messages matched" || bad "idle: summary: $(cat "$T/out")"
    # same_files STUB WHAT: STUB.* are the files of $T/e.*
    same_files() {
        local n=0 d=0 f
        for f in "$T"/e.*; do n=$((n + 1)); cmp -s "$f" "$1${f#"$T"/e}" || d=$((d + 1)); done
        [ "$n" -gt 2 ] && [ "$d" = 0 ] && pass "idle: $2 writes the same $n files" \
            || bad "idle: $2: $d of $n files differ"
    }
    "$V2O" -q --events-only -o "$T/sp" "$T/ssplit" 2>/dev/null
    same_files "$T/sp" "the worker's chunks elsewhere in the file"
    "$V2O" -q --events-only -j 2 -o "$T/j" "$T/send" 2>/dev/null
    same_files "$T/j" "-j 2"
    if [ -x "$MPI" ] && command -v mpirun >/dev/null; then
        mpirun --allow-run-as-root --oversubscribe -np 2 "$MPI" -q -o "$T/m" "$T/send" \
            >"$T/mout" 2>&1
        same_files "$T/m" "vfd2otf-mpi -np 2"
    else
        echo "SKIP: vfd2otf-mpi or mpirun missing"
    fi
fi
rm -rf "$T/send" "$T/ssplit" "$T"/e.* "$T"/sp.* "$T"/j.* "$T"/m.*

if [ ! -x /usr/bin/time ]; then
    echo "SKIP: memory: /usr/bin/time (GNU time) missing"
    exit $fail
fi
# TSan keeps shadow memory for every page of the input mapping it has seen,
# so the peak RSS grows with the input there whatever vftr allocates
tsan=0
case $(ldd "$V2O" 2>/dev/null) in *libtsan*) tsan=1 ;; esac

# peak WHAT DIR [OPTION...]: peak RSS (KiB) of vfd2otf on DIR, on stdout;
# the summary line in $T/out
peak() {
    local what=$1 dir=$2
    shift 2
    if ! /usr/bin/time -f '%M' -o "$T/rss" "$V2O" -j 1 "$@" -o "$T/o" "$dir" >"$T/out" 2>"$T/err"; then
        bad "$what: vfd2otf $* failed: $(tail -3 "$T/err")" >&2
        echo 0
    else
        tail -1 "$T/rss"
    fi
    rm -f "$T"/o.*
}
# bound WHAT SMALL LARGE: the larger input's peak within 2 MiB of the smaller's
bound() {
    if [ "$tsan" = 1 ]; then
        echo "SKIP: $1 under TSan (its shadow of the mapped input: $2 -> $3 KiB)"
    elif [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ $(($3 - $2)) -le 2048 ]; then
        pass "$1: 4x the events, peak RSS $2 -> $3 KiB (<= +2048)"
    else
        bad "$1: memory grows with the trace: peak RSS $2 -> $3 KiB (+$(($3 - $2)), at most +2048)"
    fi
}

# 2. memory, synthetic
for l in end split; do
    declare -A rss=()
    for n in 250000 1000000; do
        mkdir -p "$T/i$n"
        $MK idle "$T/i$n" $n $l || { bad "mkvfd idle $n $l"; exit 1; }
        rss[$n]=$(peak "idle $l $n" "$T/i$n" --events-only)
        grep -q " $((24 * n / 5 + 40)) events, $((n / 5 + 2)) messages matched" "$T/out" \
            || bad "idle $l $n: summary: $(cat "$T/out")"
        rss[c$n]=$(peak "idle $l $n" "$T/i$n" --compress --all)
        rm -rf "$T/i$n"
    done
    bound "idle worker ($l)" "${rss[250000]}" "${rss[1000000]}"
    bound "idle worker ($l), --compress --all" "${rss[c250000]}" "${rss[c1000000]}"
    unset rss
done

# 3. a real capture
if [ ! -x "$IDLE" ]; then
    echo "SKIP: real capture: $IDLE not built (needs clang with omp.h)"
    exit $fail
fi
# Under TSan, libomp is not instrumented: test/tsan.supp names it (as for
# the capture tests)
[ "$tsan" = 1 ] && export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")/.." && pwd)/tsan.supp"
# capture N DIR: runs omp_idle N under vftr-run into DIR (its output in
# DIR/.out).  --no-throttle: the test counts every call's events, which
# throttling (on by default) would stop tracing past 100000 calls
capture() {
    mkdir -p "$2"
    OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$RUN" --no-throttle --out "$2" -- "$IDLE" "$1" \
        >"$2/.out" 2>&1 \
        || { bad "omp_idle $1 under vftr-run failed: $(tail -3 "$2/.out")"; exit 1; }
}
capture 1000 "$T/r1k"
if "$V2O" -q -o "$T/r" "$T/r1k" 2>"$T/err"; then
    got=$("$REF" -e "$T/r" | awk '$3 == "ENTER" && $4 == "leaf" {
        n[$1 == 1 ? 0 : ($1 == 1048577 ? 1 : $1)]++ } END { for (k in n) print "leaf", k, n[k] }' | sort)
    want=$(grep '^leaf ' "$T/r1k/.out" | sort)
    [ -n "$want" ] && [ "$got" = "$want" ] \
        && pass "real capture: the calls of leaf() per thread as the program counted them" \
        || bad "real capture: leaf() calls: trace '$got', program '$want'"
else
    bad "real capture: vfd2otf failed: $(cat "$T/err")"
fi
declare -A rss=() ev=()
for n in 250000 1000000; do
    capture $n "$T/r$n"
    rss[$n]=$(peak "real capture $n" "$T/r$n" --events-only)
    ev[$n]=$(sed -n 's/.* \([0-9]*\) events,.*/\1/p' "$T/out")
    rss[c$n]=$(peak "real capture $n" "$T/r$n" --compress --all)
    rm -rf "$T/r$n"
done
[ -n "${ev[250000]}" ] && [ -n "${ev[1000000]}" ] && [ $((ev[1000000] - ev[250000])) = 1500000 ] \
    && pass "real capture: 750 000 more serial calls, 1 500 000 more events" \
    || bad "real capture: events ${ev[250000]} -> ${ev[1000000]} (expected +1500000)"
bound "real capture, idle worker" "${rss[250000]}" "${rss[1000000]}"
bound "real capture, idle worker, --compress --all" "${rss[c250000]}" "${rss[c1000000]}"
exit $fail
