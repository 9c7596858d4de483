#!/bin/bash
# vfd2otf_rma.sh — one-sided transfers of a .vfd run written by
# test/conv/mkvfd (scenario rma), ended where its MPI_RMA_SYNC records
# say, as the reference otfprint reads vfd2otf's trace and otf2-print
# vftr-convert's OTF2 archive.  Every end lies on the process that began
# its transfer: RMAEnd's remote is 0 (OTF: "if >0, ends RMA transfers on
# process <remote>, instead of this <process>"), which otfprint prints as
# "process 1" (here "own").  Worked out by hand from mkvfd.c (1 tick =
# 1 ns; process 1 = rank 0, process 2 = rank 1):
#   210 put 16 B, ended by the fence at 590
#   310 put 8 B of a record without the ENDS_AT_SYNC flag (an older
#       capture): ended at once, 310
#   710 get 4 B (request form), ended by the wait of its request at 790
#   720 put 12 B (request form), never completed: ends with the thread, 900
#   760 a flush of target 0 ends nothing
#   810 put 2 B, never completed: 900
# OTF2: matching ids per location in the order begun (1..5), each
# completion naming its own transfer (the wait at 790 the get, 3).
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
MK=$B/test/conv/mkvfd

$MK rma "$T" || { bad "mkvfd rma"; exit 1; }

if command -v otfprint >/dev/null; then
    "$B/bin/vfd2otf" -q -o "$T/t" "$T" 2>"$T/err" || bad "vfd2otf: $(cat "$T/err")"
    got=$(otfprint "$T/t.otf" 2>/dev/null | awk '/ RMAPut: | RMAGet: | RMAEnd: / {
              t = $2; k = $3; gsub(/,/, ""); b = ""; r = ""
              for (i = 4; i <= NF; i++) { if ($i == "bytes") b = " " $(i + 1)
                                          if ($i == "target" || $i == "remote") r = $(i + 1) }
              if (k == "RMAEnd:" && r == "") r = "own"
              print t, k, r b }')
    want='210 RMAPut: 2 16
310 RMAPut: 2 8
310 RMAEnd: own
590 RMAEnd: own
710 RMAGet: 2 4
720 RMAPut: 2 12
790 RMAEnd: own
810 RMAPut: 2 2
900 RMAEnd: own
900 RMAEnd: own'
    if [ "$got" = "$want" ]; then
        pass "vfd2otf: RMAPut / RMAGet at the calls, RMAEnd at the synchronisations (otfprint)"
    else
        bad "vfd2otf: RMA records: $(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"
    fi
else
    echo "SKIP: vfd2otf RMA records (no otfprint)"
fi

if command -v otf2-print >/dev/null; then
    "$B/bin/vftr-convert" -q --to=otf2 -o "$T/a" "$T" 2>"$T/err" || bad "vftr-convert: $(cat "$T/err")"
    got=$(otf2-print "$T/a/traces.otf2" 2>/dev/null | awk '$1 ~ /^RMA_/ {
              m = $0; sub(/.*Matching: /, "", m); b = ""
              if ($0 ~ /Bytes: /) { b = $0; sub(/.*Bytes: /, "", b); sub(/,.*/, "", b); b = " " b }
              print $3, $1, m b }')
    want='210 RMA_PUT 1 16
310 RMA_PUT 2 8
310 RMA_OP_COMPLETE_BLOCKING 2
590 RMA_OP_COMPLETE_BLOCKING 1
710 RMA_GET 3 4
720 RMA_PUT 4 12
790 RMA_OP_COMPLETE_BLOCKING 3
810 RMA_PUT 5 2
900 RMA_OP_COMPLETE_BLOCKING 4
900 RMA_OP_COMPLETE_BLOCKING 5'
    if [ "$got" = "$want" ]; then
        pass "vftr-convert to OTF2: each completion at its synchronisation, naming its own transfer (otf2-print)"
    else
        bad "vftr-convert to OTF2: RMA records: $(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"
    fi
    # ... and back: OTF2 -> OTF keeps each end where it was
    "$B/bin/vftr-convert" -q -o "$T/back.otf" "$T/a/traces.otf2" 2>"$T/err" || bad "vftr-convert back: $(cat "$T/err")"
    if command -v otfprint >/dev/null; then
        check_ends=$(otfprint "$T/back.otf" 2>/dev/null | awk '/ RMAEnd: / { print $2 }' | tr '\n' ' ')
        [ "$check_ends" = "310 590 790 900 900 " ] &&
            pass "OTF2 -> OTF: the ends where they were" ||
            bad "OTF2 -> OTF: ends at '$check_ends', expected '310 590 790 900 900 '"
    fi
else
    echo "SKIP: OTF2 RMA records (no otf2-print)"
fi
exit $fail
