#!/bin/bash
# mpi_rma_threads.sh — one-sided transfers completed by another thread than
# the one that issued them (test/mpi/mpi_rma_threads.c, 2 ranks,
# MPI_THREAD_MULTIPLE): MPI completes at a synchronisation every transfer
# of the process on the window (of the target, for the per-target calls),
# whatever thread issued it.  The program lists each transfer (the call
# that completes it, put or get, bytes: ends_0.txt) and counts its MPI
# calls and bytes (calls_0.txt); one of the threads that issued transfers
# has ended before the fence that completes them; of two request forms,
# the later is completed first.
#  - the .vfd: the transfers and the synchronisations as the program made
#    them, on the threads it made them on (3 threads transfer, 2 complete);
#  - vftr-stats: calls per function, and the log's bytes per function;
#  - vfd2otf's OTF as the reference otfprint reads it: each RMAEnd, paired
#    with its RMAPut / RMAGet by vftr's matching id (the key-value pair
#    "vftr.rma_match"), lies inside the call the program named on the
#    thread that called it, DELAY_MS or more after the transfer; each
#    transfer ends exactly once;
#  - vftr-convert's OTF2 as otf2-print reads it: the same by the matching
#    ids (RMA_OP_COMPLETE_BLOCKING on the completing thread's location);
#  - vfd2otf-mpi's OTF2 (2 writers) is vftr-convert's;
#  - vftr's own OTF reader: vfd2otf's OTF converted to OTF2 gives the same
#    RMA records as the .vfd converted directly.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

d=$mpi_tmp/rmathreads
mrun 2 "$d" "$MPIDIR/mpi_rma_threads"
basics "rmathreads" "$d" 2 mpi_rma_threads
messages "rmathreads" "$d" 2
n=$(wc -l <"$d/ends_0.txt")
want=$(sed 's/$/ late/' "$d/ends_0.txt" | sort)
delay=30000000                        # ns: the program's DELAY_MS

# the .vfd: each transfer (put or get, bytes), ended by a synchronisation
# record; the synchronisations the program called ("request": its MPI_Wait
# and the MPI_Test that completed, and MPI_Win_free's); the request forms'
# numbers; the threads of each
check "rmathreads: .vfd: the $n transfers as the program made them, each ended by a synchronisation record" \
    "$(awk '{ print $2, $3, 1 }' "$d/ends_0.txt" | sort)" \
    "$(awk '$1 == "rma" { print ($6 > 0 ? "put " $6 : "get " $7), $9 }' "$d/.got_0" | sort)"
check "rmathreads: .vfd: the synchronisations the program called" \
    "$( (awk '$1 ~ /^MPI_Win_(fence|flush|flush_all|flush_local|unlock|unlock_all)$/ {
                 for (i = 0; i < $2; i++) print $1 }
             $1 == "MPI_Wait" { for (i = 0; i < $2; i++) print "request" }' "$d/calls_0.txt"
         grep -c '^MPI_Test ' "$d/ends_0.txt" | awk '{ for (i = 0; i < $1; i++) print "request" }'
         echo MPI_Win_free) | sort)" \
    "$(awk '$1 == "rmasync" { print $2 }' "$d/.got_0" | sort)"
# (the program's 3 request forms are the rank's only ones: numbered 1, 2, 3)
check "rmathreads: .vfd: the 3 request forms numbered 1 to 3" \
    "$(printf '1\n2\n3')" "$(awk '$1 == "rma" && $8 == 1 { print $11 }' "$d/.got_0" | sort -n)"
check "rmathreads: .vfd: each request form's number in the record of the one wait or test that completed it" \
    "$(printf '1\n2\n3')" \
    "$(awk '$1 == "rmasync" && $2 == "request" { print $6 }' "$d/.got_0" | sort -n)"
check "rmathreads: .vfd: transfers on 3 threads, synchronisations on 2, one of them on both" \
    "3 2 1" \
    "$(awk '$1 == "rma" { t[$10] = 1 } $1 == "rmasync" { y[$5] = 1 }
            END { for (k in t) { nt++; if (k in y) b++ } for (k in y) ny++; print nt, ny, b }' "$d/.got_0")"

# vftr-stats and the log: the program's calls and bytes per function
"$mpi_build/bin/vftr-stats" --csv -p "rank 0" "$d" >"$d/.stats_0" 2>/dev/null
bad_stats=0 bad_bytes=0
while read -r fn calls sent recvd; do
    got=$(awk -F, -v f="$fn" '$12 == f { print $1 }' "$d/.stats_0")
    [ "$got" = "$calls" ] || { bad_stats=$((bad_stats + 1)); echo "    $fn: vftr-stats '$got', program $calls"; }
    got=$(tsv "$d/mpi_rma_threads_0.log" "MPI:" | awk -F'\t' -v fn="$fn" '
              NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
              $col["Function"] == fn { s += $col["Sent[B]"]; r += $col["Recvd[B]"] }
              END { print s + 0, r + 0 }')
    [ "$got" = "$sent $recvd" ] || { bad_bytes=$((bad_bytes + 1)); echo "    $fn: log '$got', program '$sent $recvd'"; }
done <"$d/calls_0.txt"
check "rmathreads: vftr-stats: calls per function as the program counted" 0 "$bad_stats"
check "rmathreads: log: bytes sent and received per function as the program counted" 0 "$bad_bytes"

if command -v otfprint >/dev/null; then
    mkdir -p "$d/otf"
    "$mpi_build/bin/vfd2otf" -q -o "$d/otf/t" "$d" 2>"$d/.vfd2otf.err" ||
        fail "rmathreads: vfd2otf: $(head -1 "$d/.vfd2otf.err")"
    otfprint "$d/otf/t.otf" >"$d/.otfprint" 2>/dev/null
    # per RMAEnd: the innermost call open on its own process then, its
    # transfer's kind and bytes (by the matching id's key-value pair), and
    # whether it came $delay ns or more after it
    awk -v delay=$delay '
        /DefFunction:/ { gsub(/[,"]/, ""); for (i = 1; i <= NF; i++) { if ($i == "function") f = $(i + 1); if ($i == "name") nm[f] = $(i + 1) } }
        /DefKeyValue:/ && /"vftr.rma_match"/ { gsub(/,/, ""); for (i = 1; i <= NF; i++) if ($i == "token") key = $(i + 1) }
        / Enter: | Leave: | RMAPut: | RMAGet: | RMAEnd: / {
            t = $2; k = $3; gsub(/[,"]/, "")
            p = ""; f = ""; b = ""; m = ""
            for (i = 4; i <= NF; i++) {
                if ($i == "process" || $i == "initiator") p = $(i + 1)
                if ($i == "function") f = $(i + 1)
                if ($i == "bytes") b = $(i + 1)
                if ($i == "KeyValue:") { split($(i + 1), kv, ":"); if (kv[1] == key) m = kv[2] }
            }
            if (k == "Enter:") st[p, ++sp[p]] = f
            else if (k == "Leave:") sp[p]--
            else if (k == "RMAPut:" || k == "RMAGet:") { at[m] = t; what[m] = (k == "RMAPut:" ? "put " : "get ") b }
            else if (m == "" || !(m in at)) print "no transfer named by an RMAEnd at " t
            else { print nm[st[p, sp[p]]], what[m], (t - at[m] >= delay ? "late" : "early, " (t - at[m]) " ns"); ended[m]++ }
        }
        END { for (m in ended) if (ended[m] != 1) print "transfer " m " ended " ended[m] " times" }' \
        "$d/.otfprint" | sort >"$d/.otf_ends"
    check "rmathreads: otfprint: the $n RMAEnds each in the call that completes its transfer on the thread that called it, ${delay%000000} ms or more after it, each transfer once" \
        "$want" "$(cat "$d/.otf_ends")"
    # each RMAEnd says whose transfer it ends as OTF defines remote: the
    # thread that began it, 0 (otfprint: no remote) when that is its own
    check "rmathreads: otfprint: each RMAEnd's remote the thread that began its transfer, none when its own" "" "$(awk '
        /DefKeyValue:/ && /"vftr.rma_match"/ { gsub(/,/, ""); for (i = 1; i <= NF; i++) if ($i == "token") key = $(i + 1) }
        / RMAPut: | RMAGet: | RMAEnd: / {
            k = $3; gsub(/[,"]/, ""); p = ""; r = ""; m = ""
            for (i = 4; i <= NF; i++) {
                if ($i == "process" || $i == "initiator") p = $(i + 1)
                if ($i == "remote") r = $(i + 1)
                if ($i == "KeyValue:") { split($(i + 1), kv, ":"); if (kv[1] == key) m = kv[2] }
            }
            if (k != "RMAEnd:") by[m] = p
            else if (m in by && by[m] != (r == "" ? p : r))
                print "end at " $2 " on " p " names " (r == "" ? "its own" : r) ", begun on " by[m]
        }' "$d/.otfprint")"
    # ... and the program's fence does end transfers of threads that ended
    check "rmathreads: otfprint: RMAEnds of transfers another thread began name it (remote > 0)" 1 \
        "$(grep -q ' RMAEnd: initiator .*, remote ' "$d/.otfprint" && echo 1 || echo 0)"
else
    skip "rmathreads: OTF" "no otfprint"
fi

if command -v otf2-print >/dev/null; then
    "$mpi_build/bin/vftr-convert" -q --to=otf2 -o "$d/a" "$d" 2>"$d/.conv.err" ||
        fail "rmathreads: vftr-convert: $(head -1 "$d/.conv.err")"
    otf2-print "$d/a/traces.otf2" >"$d/.otf2print" 2>/dev/null
    got=$(awk -v delay=$delay '
        $1 == "ENTER" { r = $0; sub(/.*Region: "/, "", r); sub(/".*/, "", r); st[$2, ++sp[$2]] = r }
        $1 == "LEAVE" { sp[$2]-- }
        $1 == "RMA_PUT" || $1 == "RMA_GET" || $1 == "RMA_OP_COMPLETE_BLOCKING" {
            m = $0; sub(/.*Matching: /, "", m); sub(/[^0-9].*/, "", m)
            if ($1 != "RMA_OP_COMPLETE_BLOCKING") {
                b = $0; sub(/.*Bytes: /, "", b); sub(/[^0-9].*/, "", b)
                begun[m] = $3; what[m] = ($1 == "RMA_PUT" ? "put " : "get ") b; next
            }
            if (!(m in begun)) { print "no transfer of matching id " m; next }
            print st[$2, sp[$2]], what[m], ($3 - begun[m] >= delay ? "late" : "early, " ($3 - begun[m]) " ns")
            ended[m]++
        }
        END { for (m in ended) if (ended[m] != 1) print "transfer " m " ended " ended[m] " times" }' \
        "$d/.otf2print" | sort)
    check "rmathreads: otf2-print: the $n RMA_OP_COMPLETE_BLOCKINGs each in the call that completes its transfer on the thread that called it, ${delay%000000} ms or more after it, each transfer once" \
        "$want" "$got"
    # vfd2otf-mpi, 2 cooperating writers (rank 0's threads with one, rank
    # 1 with the other): the serial archive, events and definitions
    timeout -s KILL 60 mpirun -np 2 --oversubscribe --bind-to none \
        "$mpi_build/bin/vfd2otf-mpi" -q -o "$d/par.otf2" "$d" >/dev/null 2>"$d/.par" ||
        fail "rmathreads: vfd2otf-mpi -np 2: $(head -3 "$d/.par")"
    o2p() { otf2-print "$@" 2>&1 | grep -v '^=== OTF2-PRINT ===\|^$'; }
    if cmp -s <(o2p "$d/a/traces.otf2") <(o2p "$d/par.otf2/traces.otf2") &&
        cmp -s <(o2p -G "$d/a/traces.otf2") <(o2p -G "$d/par.otf2/traces.otf2"); then
        pass "rmathreads: vfd2otf-mpi -np 2 to OTF2: the serial archive's events and definitions"
    else
        fail "rmathreads: vfd2otf-mpi -np 2 to OTF2: differs from vftr-convert's (< serial, > parallel)"
        diff <(o2p "$d/a/traces.otf2") <(o2p "$d/par.otf2/traces.otf2") | show
    fi
    if [ -f "$d/otf/t.otf" ]; then
        # vftr's OTF reader pairs by the matching id as the .vfd reader does
        "$mpi_build/bin/vftr-convert" -q --to=otf2 -o "$d/b" "$d/otf/t.otf" 2>"$d/.conv.err" ||
            fail "rmathreads: vftr-convert of the OTF: $(head -1 "$d/.conv.err")"
        check "rmathreads: vfd2otf's OTF through vftr's reader to OTF2: the RMA records of the .vfd's conversion" \
            "$(grep '^RMA_' "$d/.otf2print")" \
            "$(otf2-print "$d/b/traces.otf2" 2>/dev/null | grep '^RMA_')"
    fi
else
    skip "rmathreads: OTF2" "no otf2-print"
fi
finish
