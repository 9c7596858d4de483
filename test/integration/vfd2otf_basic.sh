#!/bin/bash
# vfd2otf_basic.sh — vfd2otf on runs written by test/conv/mkvfd, read back
# with the REFERENCE OTF library (test/conv/refdump) event for event.
#
# Expectations worked out by hand from mkvfd.c (1 tick = 1 ns, both ranks
# start at the same instant, so OTF times equal the ticks):
#   tokens: rank 0 -> 1, rank 0 thread 1 -> (1 << 20) + 1 = 1048577, rank 1 -> 2
#   rank 0: main 100..700 { foo 200..300, MPI_Send 400..460 with the send
#           placed at its start 410 (to 2, world group 1, tag 7, 800 B),
#           MPI_Barrier 500..600 with the collective 505..590 (matching id 1) }
#   rank 0 thread 1: the implicit task of heat.c:42 210..280 { work 250..260 }
#   rank 1: main 100..650 { MPI_Recv 150..480 with the receive at its
#           completion 470 (from 1), MPI_Barrier 500..600, collective 510..590 }
#   Begin/EndProcess at each thread's first and last event.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
MK=$B/test/conv/mkvfd
REF=$B/test/conv/refdump
V2O=$B/bin/vfd2otf

$MK basic "$T" || { bad "mkvfd basic"; exit 1; }

cat >"$T/expect" <<'X'
1 100 BEGINPROC
1 100 ENTER main
1 200 ENTER foo
1 300 LEAVE foo
1 400 ENTER MPI_Send
1 410 SEND 2 1 7 800
1 460 LEAVE MPI_Send
1 500 ENTER MPI_Barrier
1 505 COLLBEGIN MPI_Barrier 1 1 0 0 0
1 590 COLLEND 1
1 600 LEAVE MPI_Barrier
1 700 LEAVE main
1 700 ENDPROC
2 100 BEGINPROC
2 100 ENTER main
2 150 ENTER MPI_Recv
2 470 RECV 1 1 7 800
2 480 LEAVE MPI_Recv
2 500 ENTER MPI_Barrier
2 510 COLLBEGIN MPI_Barrier 1 1 0 0 0
2 590 COLLEND 1
2 600 LEAVE MPI_Barrier
2 650 LEAVE main
2 650 ENDPROC
1048577 210 BEGINPROC
1048577 210 ENTER omp implicit task @heat.c:42
1048577 250 ENTER work
1048577 260 LEAVE work
1048577 280 LEAVE omp implicit task @heat.c:42
1048577 280 ENDPROC
X
cat >"$T/expect-defs" <<'X'
TIMER 1000000000
PROCESS 1 0 Rank 0
PROCESS 1048577 1 Rank 0 Thread 1
PROCESS 2 0 Rank 1
PGROUP 1 MPI_COMM_WORLD: 1 2
SCL 1 /src/heat.c:42
FUNCTION main group=user code scl=0
FUNCTION foo group=user code scl=0
FUNCTION MPI_Send group=MPI scl=0
FUNCTION MPI_Barrier group=MPI scl=0
FUNCTION work group=user code scl=0
FUNCTION omp implicit task @heat.c:42 group=OpenMP scl=1
FUNCTION MPI_Recv group=MPI scl=0
COLLOP 1 MPI_Barrier class=1
X

# events of each process in the order the reference reads them
per_process() { sort -s -n -k1,1 "$1"; }

check() {   # name stub
    if ! $REF -e "$2" >"$T/got.raw" 2>"$T/err"; then
        bad "$1: the reference library cannot read the trace: $(cat "$T/err")"
        return
    fi
    per_process "$T/got.raw" >"$T/got"
    if diff -u "$T/expect" "$T/got" >"$T/diff"; then
        pass "$1: $(wc -l <"$T/got") events as computed by hand, streams sorted"
    else
        bad "$1: events differ"; head -n 30 "$T/diff"
    fi
}

$V2O -q -o "$T/a" "$T/basic_0.vfd" "$T/basic_1.vfd" || bad "vfd2otf exit status"
check "two files" "$T/a"
if $REF -d "$T/a" | grep -v '^CREATOR\|^COMMENT' >"$T/defs" && diff -u "$T/expect-defs" "$T/defs"; then
    pass "definitions: processes with parents, world group, function groups, scl, collective"
else
    bad "definitions differ"
fi
$REF -d "$T/a" | grep -q '^CREATOR vftr vfd2otf' && pass "DefCreator names vfd2otf" || bad "DefCreator"
$REF -d "$T/a" | grep -q '^COMMENT vftr run 01010101010101010101010101010101: 2 ranks' \
    && pass "comment names the run" || bad "comment"

$V2O -q -o "$T/d" "$T" && check "directory operand" "$T/d"
$V2O -q --streams 1 -o "$T/s1" "$T" && check "--streams 1" "$T/s1"
[ "$(ls "$T"/s1.*.events 2>/dev/null | wc -l)" = 1 ] && pass "--streams 1 writes one stream" \
    || bad "--streams 1: $(ls "$T"/s1.*)"
[ "$(ls "$T"/a.*.events | wc -l)" = 2 ] && pass "default: one stream per rank" || bad "streams per rank"
$V2O -q -j 2 -o "$T/j" "$T" && check "-j 2" "$T/j"
$V2O -q --long -o "$T/l" "$T" && check "--long" "$T/l"
grep -q 'ENTER\|enter' "$T"/l.1.events && pass "--long writes keywords" || bad "--long format"
$V2O -q --compress -o "$T/z" "$T" && check "--compress" "$T/z"
ls "$T"/z.1.events.z >/dev/null 2>&1 && pass "--compress writes .z files" || bad "no .z files"
$V2O -q --compress=9 -o "$T/z9" "$T" && check "--compress=9" "$T/z9"
# the reference's otfdecompress turns them back into plain files
(cd "$T" && otfdecompress z.*.z >/dev/null 2>&1)
if ls "$T"/z.1.events >/dev/null 2>&1 && ! ls "$T"/z.1.events.z >/dev/null 2>&1; then
    check "after otfdecompress" "$T/z"
else
    bad "otfdecompress did not decompress"
fi
if (cd "$T" && otfaux a.otf >"$T/aux.log" 2>&1); then pass "otfaux succeeds"; else bad "otfaux: $(tail -3 "$T/aux.log")"; fi
if (cd "$T" && otfprofile -i a.otf -o "$T/prof" >"$T/prof.log" 2>&1); then pass "otfprofile succeeds"; else bad "otfprofile: $(tail -3 "$T/prof.log")"; fi
# a progress bar on a terminal (script(1) gives it one), none with --quiet
# or when standard error is not a terminal
if command -v script >/dev/null; then
    script -qc "$V2O -o $T/p $T/basic_0.vfd $T/basic_1.vfd" /dev/null >"$T/tty" 2>&1
    grep -q '\[#*\] 100% 30 events' "$T/tty" && pass "progress bar on a terminal" || bad "no progress bar: $(cat "$T/tty")"
    script -qc "$V2O -q -o $T/p $T/basic_0.vfd $T/basic_1.vfd" /dev/null >"$T/tty" 2>&1
    [ ! -s "$T/tty" ] && pass "--quiet: nothing on the terminal" || bad "--quiet printed: $(cat "$T/tty")"
fi
$V2O -o "$T/p" "$T/basic_0.vfd" "$T/basic_1.vfd" 2>"$T/err" >/dev/null
grep -q '100%' "$T/err" && bad "progress bar drawn into a file" || pass "no progress bar when stderr is a file"
exit $fail
