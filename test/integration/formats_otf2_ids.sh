#!/bin/bash
# formats_otf2_ids.sh — an OTF2 archive whose ids are numbered per location,
# as Score-P numbers them (test/formats/mkotf2_rma.py: two threads of rank 0
# each put with RMA matching id 1, and each uses request id 7 for an
# MPI_Isend; the thread's completion at 30 ends its put of 20, the master's
# at 40 its put of 10).  vftr's model numbers a rank's transfers once
# (window.h), so the two puts must get two ids and each completion its own
# location's:
#   - vftr-convert to OTF (otfprint): the two RMAPuts carry different
#     vftr.rma_match values, and each RMAEnd the value of the put on its
#     own process: end 30 -> put 20, end 40 -> put 10;
#   - vftr-convert to OTF2 (otf2-print): each completion names the matching
#     id of its own location's put;
#   - the messages: request ids play no part in vftr's pairing (a send at
#     MpiIsend, a receive at MpiIrecv): two sends and two receives with
#     their tags and lengths;
#   - and they match: the receive of tag 4 on rank 1 names rank 0 (OTF2
#     knows ranks, not threads) but its send is thread 1's; on MPI's
#     channel (messages.h) both messages match, each between the processes
#     that sent and received it (vftr-stats --messages, the matrix), and
#     so in the OTF vftr-convert wrote (read back by vftr-stats).
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
CV=$B/bin/vftr-convert
PY=/usr/bin/python3

if ! $PY -c 'import otf2' 2>/dev/null || ! command -v otfprint >/dev/null ||
    ! command -v otf2-print >/dev/null; then
    echo "SKIP: per-location ids (no python3-otf2, otfprint or otf2-print)"
    exit 0
fi
$PY "$here/../formats/mkotf2_rma.py" "$T/in" 2>"$T/mk.err" || { bad "mkotf2_rma.py: $(cat "$T/mk.err")"; exit 1; }
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else bad "$1: expected '$2', got '$3'"; fi
}

"$CV" -q -o "$T/t.otf" "$T/in/traces.otf2" 2>"$T/err" || bad "vftr-convert to OTF: $(cat "$T/err")"
otfprint "$T/t.otf" >"$T/print" 2>/dev/null
got=$(awk '
    /DefKeyValue:/ && /"vftr.rma_match"/ { gsub(/,/, ""); for (i = 1; i <= NF; i++) if ($i == "token") key = $(i + 1) }
    / RMAPut: | RMAEnd: / {
        k = $3; gsub(/[,"]/, ""); p = ""; m = ""
        for (i = 4; i <= NF; i++) {
            if ($i == "process" || $i == "initiator") p = $(i + 1)
            if ($i == "KeyValue:") { split($(i + 1), kv, ":"); if (kv[1] == key) m = kv[2] }
        }
        if (k == "RMAPut:") { if (m in at) print "puts at " at[m] " and " $2 " share id " m; at[m] = $2; by[m] = p }
        else if (!(m in at)) print "end at " $2 " names no put"
        else print "end " $2 " on " p " -> put " at[m] " on " by[m]
    }' "$T/print")
check "vftr-convert to OTF: each RMAEnd names the put of its own thread (otfprint)" \
    "end 30 on 2 -> put 20 on 2
end 40 on 1 -> put 10 on 1" "$got"

"$CV" -q --to=otf2 -o "$T/a" "$T/in/traces.otf2" 2>"$T/err" || bad "vftr-convert to OTF2: $(cat "$T/err")"
otf2-print "$T/a/traces.otf2" >"$T/o2" 2>/dev/null
got=$(awk '
    $1 == "RMA_PUT" || $1 == "RMA_OP_COMPLETE_BLOCKING" {
        m = $0; sub(/.*Matching: /, "", m)
        if ($1 == "RMA_PUT") { at[$2, m] = $3; n[m]++ }
        else if (!(($2, m) in at)) print "completion at " $3 " names no put of location " $2
        else print "completion " $3 " on " $2 " -> put " at[$2, m] (n[m] > 1 ? " (id shared)" : "")
    }' "$T/o2")
check "vftr-convert to OTF2: each completion names its own location's put (otf2-print)" \
    "completion 30 on 1 -> put 20
completion 40 on 0 -> put 10" "$got"

check "vftr-convert to OTF2: the two Isends and two Irecvs of shared request ids, with their tags and lengths (otf2-print)" \
    "MPI_SEND 0 12 3 64
MPI_SEND 1 22 4 32
MPI_RECV 2 50 4 32
MPI_RECV 2 60 3 64" "$(awk '$1 == "MPI_SEND" || $1 == "MPI_RECV" {
        t = $0; sub(/.*Tag: /, "", t); sub(/,.*/, "", t); l = $0; sub(/.*Length: /, "", l); sub(/[^0-9].*/, "", l)
        print $1, $2, $3, t, l }' "$T/o2")"

p2p() { "$B/bin/vftr-stats" --messages "$1" 2>&1 | awk '/^point-to-point:/ || /^rank/'; }
want="point-to-point: 2 sent, 2 received, 2 matched, 0 sends and 0 receives unmatched
rank 0           rank 1                   1           64        1    48.0 us
rank 0 thread 1  rank 1                   1           32        1    28.0 us"
check "vftr-stats --messages: the thread's send matches the receive that names its rank" \
    "$want" "$(p2p "$T/in/traces.otf2")"
check "vftr-stats --messages on vftr-convert's OTF: the same matches" "$want" "$(p2p "$T/t.otf")"
exit $fail
