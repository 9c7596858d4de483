#!/bin/bash
# mpi_rma_sync.sh — one-sided transfers end where MPI completes them, not
# where they were issued (test/mpi/mpi_rma_sync.c, 2 ranks): rank 0 sleeps
# 30 ms between each group of transfers and the call that completes them
# (MPI_Win_fence, MPI_Win_complete, MPI_Win_flush, MPI_Win_unlock, MPI_Wait
# of MPI_Rput / MPI_Rget, MPI_Win_flush_local, MPI_Win_flush_all,
# MPI_Win_unlock_all) and lists, per transfer, that call (ends_0.txt).
#  - vfd2otf's OTF trace as the reference otfprint reads it: each RMAEnd
#    lies inside the call the program named (the innermost call open on
#    the process at its time), 30 ms or more after its RMAPut / RMAGet,
#    ends in the order the transfers were issued; the RMAPut / RMAGet
#    bytes are the program's;
#  - the same in vftr-convert's OTF2 archive as otf2-print reads it
#    (RMA_OP_COMPLETE_BLOCKING inside the call, after its RMA_PUT / RMA_GET
#    by the matching id).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

d=$mpi_tmp/rmasync
mrun 2 "$d" "$MPIDIR/mpi_rma_sync"
basics "rmasync" "$d" 2 mpi_rma_sync
messages "rmasync" "$d" 2
n=$(wc -l <"$d/ends_0.txt")
want=$(sed 's/$/ late/' "$d/ends_0.txt")
delay=30000000                        # ns: the program's DELAY_MS

if command -v otfprint >/dev/null; then
    mkdir -p "$d/otf"
    "$mpi_build/bin/vfd2otf" -q -o "$d/otf/t" "$d" 2>"$d/.vfd2otf.err" ||
        fail "rmasync: vfd2otf: $(head -1 "$d/.vfd2otf.err")"
    otfprint "$d/otf/t.otf" >"$d/.otfprint" 2>/dev/null
    # per RMAEnd of process 1: the innermost call open then, and whether
    # it came $delay ns or more after the transfer it ends (the oldest open)
    got=$(awk -v delay=$delay '
        /DefFunction:/ { gsub(/[,"]/, ""); for (i = 1; i <= NF; i++) { if ($i == "function") f = $(i + 1); if ($i == "name") nm[f] = $(i + 1) } }
        / Enter: | Leave: | RMAPut: | RMAGet: | RMAEnd: / {
            t = $2; k = $3; gsub(/[,"]/, "")
            p = ""; f = ""
            for (i = 4; i <= NF; i++) { if ($i == "process" || $i == "initiator") p = $(i + 1); if ($i == "function") f = $(i + 1) }
            if (p != 1) next
            if (k == "Enter:") st[++sp] = f
            else if (k == "Leave:") sp--
            else if (k == "RMAPut:" || k == "RMAGet:") q[qt++] = t
            else { print nm[st[sp]], (t - q[qh++] >= delay ? "late" : "early, " (t - q[qh - 1]) " ns") }
        }' "$d/.otfprint")
    check "rmasync: otfprint: the $n RMAEnds each in the call that completes its transfer, ${delay%000000} ms or more after it" \
        "$want" "$got"
    check "rmasync: otfprint: RMAPut / RMAGet bytes as the program moved them" \
        "$(cat "$d/xfer_0.txt")" \
        "$(awk '/ RMAPut: | RMAGet: / { k = $3 == "RMAPut:" ? "put" : "get"; gsub(/,/, ""); for (i = 4; i <= NF; i++) if ($i == "bytes") print k, $(i + 1) }' "$d/.otfprint")"
else
    skip "rmasync: OTF" "no otfprint"
fi

if command -v otf2-print >/dev/null; then
    "$mpi_build/bin/vftr-convert" -q --to=otf2 -o "$d/a" "$d" 2>"$d/.conv.err" ||
        fail "rmasync: vftr-convert: $(head -1 "$d/.conv.err")"
    got=$(otf2-print "$d/a/traces.otf2" 2>/dev/null | awk -v delay=$delay '
        $2 != 0 { next }
        $1 == "ENTER" { r = $0; sub(/.*Region: "/, "", r); sub(/".*/, "", r); st[++sp] = r }
        $1 == "LEAVE" { sp-- }
        $1 == "RMA_PUT" || $1 == "RMA_GET" || $1 == "RMA_OP_COMPLETE_BLOCKING" {
            m = $0; sub(/.*Matching: /, "", m); sub(/[^0-9].*/, "", m)
            if ($1 != "RMA_OP_COMPLETE_BLOCKING") { begun[m] = $3; next }
            print st[sp], ($3 - begun[m] >= delay ? "late" : "early, " ($3 - begun[m]) " ns")
        }')
    check "rmasync: otf2-print: the $n RMA_OP_COMPLETE_BLOCKINGs each in the call that completes its transfer, ${delay%000000} ms or more after it" \
        "$want" "$got"
else
    skip "rmasync: OTF2" "no otf2-print"
fi
finish
