#!/bin/bash
# mpi_rma.sh — one-sided communication and matched probes under mpirun
# -np 3 (test/mpi/mpi_rma.c), against what the program counted itself
# (calls_<rank>.txt: calls and origin bytes per MPI function;
# expect_<rank>.txt: its messages):
#  - every call conserved: per rank and function, the .vfd's MPI calls
#    (vfdmpi) and vftr-stats' profile of the rank equal the program's;
#  - every byte conserved: per rank and function, the bytes sent and
#    received in the log's MPI table equal the program's (put, accumulate:
#    origin count x type size sent; get: received; get_accumulate,
#    fetch_and_op, compare_and_swap both ways; MPI_NO_OP and
#    MPI_PROC_NULL move nothing); the _all.log sums them;
#  - MPI_Mrecv and MPI_Imrecv are receives: the .vfd's messages equal the
#    program's, each send matches one receive, and vftr-stats' message
#    matrix has them matched, with their bytes;
#  - every transfer conserved: per rank, the .vfd's MPI_RMA records (op,
#    target, bytes, request form) equal the program's list (rma_<rank>.txt),
#    and so do the RMAPut / RMAGet / RMAEnd records of the OTF trace
#    vfd2otf writes, as the reference otfprint reads them;
#  - the same transfers go through the model every tool reads (source.h,
#    sink.h): in the OTF trace vftr-convert writes (otfprint), in the OTF2
#    archive it writes (otf2-print: RMA_PUT / RMA_GET with the remote rank,
#    each completed by an RMA_OP_COMPLETE_BLOCKING), and after the round
#    trip OTF -> OTF2 -> OTF (otfprint again);
#  - the program calls every RMA and matched-probe function of the table.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"


np=3
d=$mpi_tmp/rma
mkdir -p "$d"
cat >"$d/cfg.json" <<'EOF'
{ "logfile_for_ranks": "all", "mpi": { "show_table": true } }
EOF
mkdir -p "$d/run"
timeout -s KILL 120 mpirun -np $np --oversubscribe --bind-to none \
    "$VFTR_RUN" --out "$d/run" --config "$d/cfg.json" -- "$MPIDIR/mpi_rma" "$d/run" \
    >"$d/run/.stdout" 2>"$d/run/.stderr"
echo $? >"$d/run/.rc"
d=$d/run
basics "rma" "$d" $np mpi_rma
messages "rma" "$d" $np
matching "rma" "$d" $np

# (the MPI table's bytes of one function: sent received)
table_bytes() {
    tsv "$1" "$2" | awk -F'\t' -v fn="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["Function"] == fn { s += $col["Sent[B]"]; r += $col["Recvd[B]"] }
        END { print s + 0, r + 0 }'
}

for ((r = 0; r < np; r++)); do
    "$mpi_build/bin/vftr-stats" --csv -p "rank $r" "$d" >"$d/.stats_$r" 2>/dev/null
    bad_calls=0 bad_stats=0 bad_bytes=0 n=0
    while read -r fn calls sent recvd; do
        n=$((n + 1))
        got=$(awk -v f="$fn" '$1 == "call" && $2 == f { print $3, $4 }' "$d/.got_$r")
        [ "$got" = "$calls $calls" ] || { bad_calls=$((bad_calls + 1)); echo "    rank $r $fn: .vfd '$got', program $calls"; }
        got=$(awk -F, -v f="$fn" '$12 == f { print $1 }' "$d/.stats_$r")
        [ "$got" = "$calls" ] || { bad_stats=$((bad_stats + 1)); echo "    rank $r $fn: vftr-stats '$got', program $calls"; }
        got=$(table_bytes "$d/mpi_rma_$r.log" "MPI:" "$fn")
        [ "$got" = "$sent $recvd" ] || { bad_bytes=$((bad_bytes + 1)); echo "    rank $r $fn: log bytes '$got', program '$sent $recvd'"; }
    done <"$d/calls_$r.txt"
    check "rma: rank $r: calls of its $n functions in the .vfd as the program counted" 0 "$bad_calls"
    check "rma: rank $r: calls of its $n functions in vftr-stats as the program counted" 0 "$bad_stats"
    check "rma: rank $r: bytes sent and received per function in its log as the program counted" 0 "$bad_bytes"
done
# _all.log: the ranks' bytes summed, per function
bad=0
for fn in MPI_Put MPI_Get MPI_Accumulate MPI_Get_accumulate MPI_Fetch_and_op \
          MPI_Compare_and_swap MPI_Rput MPI_Rget MPI_Raccumulate MPI_Rget_accumulate MPI_Mrecv; do
    want=$(cat "$d"/calls_[0-9].txt | awk -v f="$fn" '$1 == f { s += $3; r += $4 } END { print s + 0, r + 0 }')
    got=$(table_bytes "$d/mpi_rma_all.log" "MPI over" "$fn")
    [ "$want" = "$got" ] || { bad=$((bad + 1)); echo "    $fn: _all.log '$got', program '$want'"; }
done
check "rma: _all.log: bytes per RMA function summed over the ranks" 0 "$bad"

# vftr-stats' message matrix (processes numbered from 1): the program's
# messages, each matched by its receive (Mrecv and Imrecv among them)
want=$(for ((r = 0; r < np; r++)); do
           awk -v r=$r '$1 == "send" { print r + 1, $2 + 1, $4 }' "$d/expect_$r.txt"
       done | awk '{ n[$1 "," $2]++; b[$1 "," $2] += $3 }
                   END { for (k in n) print k "," n[k] "," b[k] "," n[k] }' | sort)
got=$("$mpi_build/bin/vftr-stats" -M --csv "$d" 2>/dev/null |
      awk -F, 'NR > 1 && NF == 6 && $1 ~ /^[0-9]+$/ { print $1 "," $2 "," $3 "," $4 "," $5 }' | sort)
check "rma: vftr-stats -M: messages and bytes per pair, all matched" "$want" "$got"

# the .vfd's MPI_RMA records: each transfer as the program made it (op,
# target world rank, bytes sent and received, request form)
for ((r = 0; r < np; r++)); do
    sort "$d/rma_$r.txt" >"$d/.rma_want_$r"
    awk '$1 == "rma" { print $2, $3, $6, $7, $8 }' "$d/.got_$r" | sort >"$d/.rma_got_$r"
    if [ -s "$d/.rma_want_$r" ] && cmp -s "$d/.rma_want_$r" "$d/.rma_got_$r"; then
        pass "rma: rank $r: its $(wc -l <"$d/.rma_want_$r") one-sided transfers in the .vfd as the program made them"
    else
        fail "rma: rank $r: one-sided transfers differ (< program, > .vfd)"
        diff "$d/.rma_want_$r" "$d/.rma_got_$r" | show
    fi
done
# ... and in the OTF trace vfd2otf writes, read by the reference otfprint:
# an RMAPut for what a transfer sent (put and accumulate always), an RMAGet
# for what it received (get always), each with its RMAEnd, initiator and
# origin the rank's process, target the target's (processes from 1)
if command -v otfprint >/dev/null; then
    mkdir -p "$d/otf"
    "$mpi_build/bin/vfd2otf" -q -o "$d/otf/t" "$d" 2>"$d/.vfd2otf.err" ||
        fail "rma: vfd2otf: $(head -1 "$d/.vfd2otf.err")"
    want=$(for ((r = 0; r < np; r++)); do
               awk -v p=$((r + 1)) '
                   $3 > 0 || $1 == "MPI_Put" || $1 == "MPI_Accumulate" { print "put", p, p, $2 + 1, $3 }
                   $4 > 0 || $1 == "MPI_Get" { print "get", p, p, $2 + 1, $4 }' "$d/rma_$r.txt"
           done | sort)
    otfprint "$d/otf/t.otf" >"$d/.otfprint" 2>/dev/null
    got=$(awk '/RMAPut:|RMAGet:/ { k = /RMAPut/ ? "put" : "get"; gsub(/,/, "")
                                  for (i = 1; i <= NF; i++) v[$i] = $(i + 1)
                                  print k, v["initiator"], v["origin"], v["target"], v["bytes"] }' \
              "$d/.otfprint" | sort)
    check "rma: otfprint: $(echo "$want" | wc -l) RMAPut/RMAGet records as the program made them" \
        "$want" "$got"
    check "rma: otfprint: an RMAEnd for each" "$(echo "$want" | wc -l)" \
        "$(grep -c 'RMAEnd:' "$d/.otfprint")"
else
    skip "rma: OTF records" "no otfprint"
fi

# ... and through the model: vftr-convert's OTF, its OTF2 and the round
# trip OTF -> OTF2 -> OTF keep every transfer (otfprint and otf2-print
# read them; the window's tag is the OTF2 window's id after the trip)
otf_rma() {
    otfprint "$1" 2>/dev/null |
        awk '/RMAPut:|RMAGet:/ { k = /RMAPut/ ? "put" : "get"; gsub(/,/, "")
                                 for (i = 1; i <= NF; i++) v[$i] = $(i + 1)
                                 print k, v["initiator"], v["origin"], v["target"], v["bytes"] }
             /RMAEnd:/ { e++ } END { print "ends", e + 0 }' | sort
}
if command -v otfprint >/dev/null && command -v otf2-print >/dev/null; then
    want=$(for ((r = 0; r < np; r++)); do
               awk -v p=$((r + 1)) '
                   $3 > 0 || $1 == "MPI_Put" || $1 == "MPI_Accumulate" { print "put", p, p, $2 + 1, $3 }
                   $4 > 0 || $1 == "MPI_Get" { print "get", p, p, $2 + 1, $4 }' "$d/rma_$r.txt"
           done)
    want=$( (echo "$want"; echo "ends $(echo "$want" | wc -l)") | sort)
    n=$(echo "$want" | grep -vc '^ends')
    conv=$mpi_build/bin/vftr-convert
    mkdir -p "$d/cv"
    "$conv" -q -o "$d/cv/t.otf" "$d" 2>"$d/cv/.err" || fail "rma: vftr-convert: $(head -1 "$d/cv/.err")"
    check "rma: vftr-convert to OTF: otfprint reads the $n transfers and their ends" \
        "$want" "$(otf_rma "$d/cv/t.otf")"
    # OTF2: locations are ranks from 0; the remote a rank of the window's
    # communicator (MPI_COMM_WORLD here)
    "$conv" -q --to=otf2 -o "$d/cv/a" "$d" 2>"$d/cv/.err" || fail "rma: vftr-convert: $(head -1 "$d/cv/.err")"
    got=$(otf2-print "$d/cv/a/traces.otf2" 2>&1 |
          awk '$1 == "RMA_PUT" || $1 == "RMA_GET" {
                   k = $1 == "RMA_PUT" ? "put" : "get"; r = ""; b = ""
                   for (i = 4; i < NF; i++) { if ($i == "Remote:") r = $(i + 1); if ($i == "Bytes:") b = $(i + 1) }
                   sub(/,$/, "", r); sub(/,$/, "", b)
                   print k, $2 + 1, $2 + 1, r + 1, b }
               $1 == "RMA_OP_COMPLETE_BLOCKING" { e++ } END { print "ends", e + 0 }' | sort)
    check "rma: vftr-convert to OTF2: otf2-print reads the $n transfers and their completions" \
        "$want" "$got"
    # a window per window the transfers used (vfd2otf's tags), on the world
    check "rma: otf2-print: an RMA_WIN of MPI_COMM_WORLD for each window the transfers used" \
        "$(otfprint "$d/otf/t.otf" 2>/dev/null | awk '/RMAPut:|RMAGet:/ { gsub(/,/, ""); for (i = 1; i <= NF; i++) if ($i == "tag") print $(i + 1) }' | sort -u | wc -l)" \
        "$(otf2-print -G "$d/cv/a/traces.otf2" 2>&1 | grep -c '^RMA_WIN .*Communicator: "MPI_COMM_WORLD"')"
    "$conv" -q --to=otf2 -o "$d/cv/rt" "$d/otf/t.otf" 2>"$d/cv/.err" &&
        "$conv" -q -o "$d/cv/rt.otf" "$d/cv/rt/traces.otf2" 2>>"$d/cv/.err" ||
        fail "rma: round trip: $(head -1 "$d/cv/.err")"
    check "rma: round trip OTF -> OTF2 -> OTF keeps the $n transfers and their ends" \
        "$want" "$(otf_rma "$d/cv/rt.otf")"
    # vfd2otf-mpi's archive, written by 1, 2 and 3 cooperating processes
    # (each writes the events of its share of the ranks, rank 0 the global
    # definitions), is the archive vftr-convert writes (vfd2otf writes OTF
    # only): the same
    # events, RMA among them, and the same definitions, RMA_WIN among them,
    # as otf2-print reads them (its mapping of the processes' window
    # numbers to the global ones applied); no warning of left-out events
    o2p() { otf2-print "$@" 2>&1 | grep -v '^=== OTF2-PRINT ===\|^$'; }
    o2p "$d/cv/a/traces.otf2" >"$d/cv/.a.ev"
    o2p -G "$d/cv/a/traces.otf2" >"$d/cv/.a.defs"
    for pn in 1 2 3; do
        rm -rf "$d/cv/par$pn.otf2"
        timeout -s KILL 60 mpirun -np $pn --oversubscribe --bind-to none \
            "$mpi_build/bin/vfd2otf-mpi" -q -o "$d/cv/par$pn.otf2" "$d" >/dev/null 2>"$d/cv/.par$pn" ||
            fail "rma: vfd2otf-mpi -np $pn: $(head -3 "$d/cv/.par$pn")"
        o2p "$d/cv/par$pn.otf2/traces.otf2" >"$d/cv/.par$pn.ev"
        o2p -G "$d/cv/par$pn.otf2/traces.otf2" >"$d/cv/.par$pn.defs"
        if [ "$(grep -c '^RMA_PUT\|^RMA_GET' "$d/cv/.par$pn.ev")" = "$n" ] &&
            cmp -s "$d/cv/.a.ev" "$d/cv/.par$pn.ev"; then
            pass "rma: vfd2otf-mpi -np $pn to OTF2: the serial archive's events, its $n transfers and their completions among them"
        else
            fail "rma: vfd2otf-mpi -np $pn to OTF2: events differ (< vftr-convert, > vfd2otf-mpi)"
            diff "$d/cv/.a.ev" "$d/cv/.par$pn.ev" | show
        fi
        if grep -q '^RMA_WIN' "$d/cv/.par$pn.defs" && cmp -s "$d/cv/.a.defs" "$d/cv/.par$pn.defs"; then
            pass "rma: vfd2otf-mpi -np $pn to OTF2: the serial archive's definitions, its RMA_WINs among them"
        else
            fail "rma: vfd2otf-mpi -np $pn to OTF2: definitions differ (< vftr-convert, > vfd2otf-mpi)"
            diff "$d/cv/.a.defs" "$d/cv/.par$pn.defs" | show
        fi
        check "rma: vfd2otf-mpi -np $pn to OTF2: no warning" "" "$(grep -i warning "$d/cv/.par$pn")"
    done
else
    skip "rma: vftr-convert's OTF and OTF2" "no otfprint or otf2-print"
fi

# every RMA and matched-probe function of the table is called
want=$(awk '$1 ~ /^MPI_(Win_|Put$|Get$|Accumulate$|Get_accumulate$|Fetch_and_op$|Compare_and_swap$|R(put|get|accumulate|get_accumulate)$|Mprobe$|Improbe$|Mrecv$|Imrecv$)/ { print $1 }' "$GEN_LIST" | sort)
have=$(cat "$d"/calls_[0-9].txt | awk '$2 > 0 { print $1 }' | sort -u)
missing=$(comm -23 <(echo "$want") <(echo "$have") | tr '\n' ' ')
check "rma: the program calls all $(echo "$want" | wc -l) RMA and matched-probe functions of the table" "" "$missing"
finish
