#!/bin/bash
# formats_thread_messages.sh — messages sent and received by threads, in
# traces whose MPI records name the other side only by its rank (OTF2 by
# definition, VampirTrace's OTF), matched on MPI's channel (sender rank,
# receiver rank, communicator, tag; lib/model/messages.h) and reported
# between the processes that really sent and received them.  The archive
# is test/formats/mkotf2_threadmsg.py's (python3-otf2), its figures worked
# out by hand there:
#   - vftr-stats --messages: 4 sent, 4 received, 4 matched, the matrix by
#     true threads (rank 0 -> rank 1: 64 + 8 B, 19 + 9 us; thread 1 of rank
#     0 -> thread 1 of rank 1, a receive on a non-main thread: 32 B, 19 us;
#     thread 1 of rank 1 -> thread 1 of rank 0: 16 B, 9 us);
#   - the window from 45 us: nothing in flight at its start (the thread's
#     send of 11 was received at 30), its two messages matched;
#   - vftr-convert to OTF (vftr's OTF writer): otfprint shows a thread
#     process sending to the receiver rank's process and receiving from the
#     sender rank's process; vftr-stats reads that OTF trace to the same
#     figures, the window too; so does the archive converted to OTF2;
#   - vftr-dump --check finds every receive's send; vftr-convert to Chrome
#     JSON and Perfetto end each message's flow at its receive;
#   - vftr-snap on that OTF: in flight at 25 us the sends of 11 and 21, at
#     45 us none;
#   - the wait analysis (--waits --threads): Late Sender 5 us on rank 1's
#     thread (receive entered at 5, its send — thread 1 of rank 0 — at 10)
#     and 14 us on rank 1 (6 and 20); vftr-stats-mpi at -np 2 prints the
#     same (the distributed route).
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
STATS=$B/bin/vftr-stats
PY=/usr/bin/python3

if ! $PY -c 'import otf2' 2>/dev/null || ! command -v otfprint >/dev/null; then
    echo "SKIP: thread messages (no python3-otf2 or otfprint)"
    exit 0
fi
$PY "$here/../formats/mkotf2_threadmsg.py" "$T/in" 2>"$T/mk.err" ||
    { bad "mkotf2_threadmsg.py: $(cat "$T/mk.err")"; exit 1; }
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else bad "$1: expected '$2', got '$3'"; fi
}
p2p() { "$STATS" --messages "$@" 2>&1 | awk '/^point-to-point:/ || /^\(/ || /^rank/'; }

all="point-to-point: 4 sent, 4 received, 4 matched, 0 sends and 0 receives unmatched
rank 0           rank 1                   2           72        2    28.0 us
rank 0 thread 1  rank 1 thread 1          1           32        1    19.0 us
rank 1 thread 1  rank 0 thread 1          1           16        1    9.00 us"
win="point-to-point: 2 sent, 2 received, 2 matched, 0 sends and 0 receives unmatched
rank 0           rank 1                   1            8        1    9.00 us
rank 1 thread 1  rank 0 thread 1          1           16        1    9.00 us"
# CSV: pattern, seconds, pct, count, max, process token (3: rank 1, 4: its
# thread), call path
waits="late_sender,0.000014,1,0.000014,3,MPI_Recv<main
late_sender,0.000005,1,0.000005,4,MPI_Recv<main"
waitrows() { awk -F, 'NR > 1 { print $1 "," $2 "," $4 "," $5 "," $6 "," $7 }' "$1"; }

check_trace() {
    local what=$1 tr=$2
    check "$what: vftr-stats --messages, every message matched between its threads" \
        "$all" "$(p2p "$tr")"
    check "$what: the window from 45 us: nothing in flight, both messages matched" \
        "$win" "$(p2p -t 45us:100us "$tr")"
    "$STATS" --waits --threads --csv "$tr" >"$T/w" 2>"$T/w.err" ||
        bad "$what: vftr-stats --waits: $(head -1 "$T/w.err")"
    check "$what: --waits: Late Sender 14 us on rank 1, 5 us on its thread 1" \
        "$waits" "$(waitrows "$T/w")"
}

check_trace "OTF2" "$T/in/traces.otf2"
"$B/bin/vftr-dump" --check "$T/in/traces.otf2" >"$T/chk" 2>&1 &&
    pass "vftr-dump --check: consistent, every receive has its send" ||
    bad "vftr-dump --check: $(head -3 "$T/chk")"
"$B/bin/vftr-convert" -q --to=json -o "$T/j.json" "$T/in/traces.otf2" 2>"$T/err" ||
    bad "vftr-convert to JSON: $(cat "$T/err")"
check "vftr-convert to Chrome JSON: a flow from each send ends at its receive" "4 4" \
    "$(grep -o '"ph":"s"' "$T/j.json" | wc -l) $(grep -o '"ph":"f"' "$T/j.json" | wc -l)"
if command -v protoc >/dev/null; then
    "$B/bin/vftr-convert" -q -o "$T/p.pftrace" "$T/in/traces.otf2" 2>"$T/err" ||
        bad "vftr-convert to Perfetto: $(cat "$T/err")"
    check "vftr-convert to Perfetto: four flows, send to receive (pfcheck.py, protoc)" "flows 4" \
        "$($PY "$here/../formats/pfcheck.py" "$here/../data/perfetto" "$T/p.pftrace" | grep -o 'flows [0-9]*')"
fi

"$B/bin/vftr-convert" -q -o "$T/t.otf" "$T/in/traces.otf2" 2>"$T/err" ||
    bad "vftr-convert to OTF: $(cat "$T/err")"
check "vftr-convert to OTF: threads send and receive, naming the other rank's process (otfprint)" \
    "11 SendMessage: sender 2, receiver 3, group 1, type 5, length 32
21 SendMessage: sender 1, receiver 3, group 1, type 5, length 64
30 ReceiveMessage: receiver 4, sender 1, group 1, type 5, length 32
40 ReceiveMessage: receiver 3, sender 1, group 1, type 5, length 64
51 SendMessage: sender 4, receiver 1, group 1, type 6, length 16
60 ReceiveMessage: receiver 2, sender 3, group 1, type 6, length 16
71 SendMessage: sender 1, receiver 3, group 1, type 5, length 8
80 ReceiveMessage: receiver 3, sender 1, group 1, type 5, length 8" \
    "$(otfprint "$T/t.otf" 2>/dev/null | sed -n 's/^([^)]*)[[:space:]]*//; s/, source 0$//; /Message:/p')"
check "vftr-convert to OTF: processes 2 and 4 are threads of 1 and 3 (otfprint)" \
    "process 2 parent 1
process 4 parent 3" \
    "$(otfprint "$T/t.otf" 2>/dev/null | awk '/DefProcess:/ { gsub(/,/, ""); for (i = 1; i <= NF; i++) { if ($i == "process") p = $(i + 1); if ($i == "parent") q = $(i + 1) } if (q != 0) print "process " p " parent " q }')"
check_trace "vftr-convert's OTF" "$T/t.otf"
# vftr-snap's snapshots hold the sends in flight at each break
if "$B/bin/vftr-snap" -q --at=25us --at=45us -o "$T/s" "$T/t.otf" 2>"$T/err"; then
    check "vftr-snap: in flight at 25 us the sends of 11 (a thread's) and 21, at 45 us none (otfprint)" \
        "25 SnapSend: otime 11, sender 2, receiver 3, group 1, tag 5, length 32
25 SnapSend: otime 21, sender 1, receiver 3, group 1, tag 5, length 64" \
        "$(otfprint "$T/s.otf" 2>/dev/null | sed -n 's/^([^)]*)[[:space:]]*//; s/, source 0$//; /SnapSend:/p')"
else
    bad "vftr-snap: $(cat "$T/err")"
fi

"$B/bin/vftr-convert" -q --to=otf2 -o "$T/o2" "$T/in/traces.otf2" 2>"$T/err" ||
    bad "vftr-convert to OTF2: $(cat "$T/err")"
check_trace "vftr-convert's OTF2" "$T/o2/traces.otf2"

# the distributed wait analysis forwards a send to its receiver's rank
PAR=$B/bin/vftr-stats-mpi
if [ -x "$PAR" ] && command -v mpirun >/dev/null 2>&1; then
    export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
    export OMPI_MCA_mpi_yield_when_idle=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    if timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$PAR" --waits \
            --threads --csv "$T/in/traces.otf2" >"$T/wp" 2>"$T/wp.err"; then
        check "vftr-stats-mpi -np 2 --waits: the same Late Senders" "$waits" "$(waitrows "$T/wp")"
    else
        bad "vftr-stats-mpi -np 2: $(head -1 "$T/wp.err")"
    fi
else
    echo "SKIP: vftr-stats-mpi (needs mpicc and mpirun)"
fi
exit $fail
