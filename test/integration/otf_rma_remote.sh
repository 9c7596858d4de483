#!/bin/bash
# otf_rma_remote.sh — OTF 1.x's RMAEnd remote field read and written as OTF
# defines it (OTF_Writer.h: "if >0, ends RMA transfers on process <remote>,
# instead of this <process>"; otfprint prints "process P" for 0 and
# "initiator P, remote R" otherwise), and vftr's older files, which put the
# transfer's target there, still read as they meant.  Hand-written traces
# (1 tick = 1 ns, written in hex; OTF2 location 0 = rank 0, 2 its thread;
# process 1 = rank 0, process 2 = rank 1, process 3 a
# thread of rank 0):
#   vt   as VampirTrace wrote them: no matching ids, remote 0.  Process 1
#        puts 16 B to 2 at 10, gets 8 B from 2 at 20, and its fence at 40
#        ends both (an RMAEnd ends all of its process's transfers on the
#        window): OTF2 gets two completions at 40 naming matching ids 1, 2.
#   old  vftr's older form (the key's first description): the put at 10
#        ends at 40 with remote 2, the target: read as an end of process
#        1's own transfer, written back with remote 0.
#   thr  the thread 3 puts at 10, process 1's fence ends it at 40 (remote 3,
#        matching id 5): the completion at 40 on rank 0 names the put, and
#        vftr-convert writes the end back as it was.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
CV=$B/bin/vftr-convert
[ -x "$CV" ] || { bad "$CV is not built"; exit 1; }
if ! command -v otfprint >/dev/null || ! command -v otf2-print >/dev/null; then
    echo "SKIP: RMAEnd's remote (no otfprint or otf2-print)"
    exit 0
fi

OLD='the one-sided transfer an RMAEnd ends (per rank)'
# defs STUB [KEYLINE]: the definitions of the three processes
defs() {
    printf '1:1,3\n2:2\n' >"$T/$1.otf"
    {
        printf 'DTR3b9aca00\nDP1NM"rank 0"\nDP2NM"rank 1"\nDP3NM"rank 0 thread 1"PT1\n'
        printf 'DPG1M1,2,NM"MPI_COMM_WORLD"\nDFG1NM"MPI"\nDF1G1NM"MPI_Put"\nDF2G1NM"MPI_Win_fence"\n'
        [ $# -gt 1 ] && printf '%s\n' "$2"
    } >"$T/$1.0.def"
    printf 'a\n*2\nE2\n32\n*2\nL2\n32\n*2\n' >"$T/$1.2.events"
}

defs vt
printf 'a\n*1\nE1\nT0P2C1T7L10\n14\n*1\nG0P2C1T7L8\n15\n*1\nL1\n1e\n*1\nE2\n28\n*1\nM0C1T7\n32\n*1\nL2\n32\n*1\n' \
    >"$T/vt.1.events"
defs old "DK3Y8NM\"vftr.rma_match\"T\"$OLD\""
printf 'a\n*1\nE1\nK3Y8V1\nT1P2C1T7L10\n15\n*1\nL1\n1e\n*1\nE2\n28\n*1\nK3Y8V1\nM2C1T7\n32\n*1\nL2\n32\n*1\n' \
    >"$T/old.1.events"
defs thr 'DK3Y8NM"vftr.rma_match"T"the one-sided transfer an RMAEnd ends"'
printf 'a\n*3\nE1\nK3Y8V5\nT3P2C1T7L10\n15\n*3\nL1\n1e\n*1\nE2\n28\n*1\nK3Y8V5\nM3C1T7\n32\n*1\nL2\n32\n*1\n' \
    >"$T/thr.1.events"

# completions STUB: otf2-print's RMA records of vftr-convert's archive
# (time, record, location, matching id)
completions() {
    "$CV" -q --to=otf2 -o "$T/$1.a" "$T/$1.otf" 2>"$T/err" || bad "$1: vftr-convert: $(cat "$T/err")"
    otf2-print "$T/$1.a/traces.otf2" 2>/dev/null |
        awk '$1 ~ /^RMA_/ { m = $0; sub(/.*Matching: /, "", m); print $3, $1, $2, m }'
}
# ends STUB: otfprint's RMAEnds of vftr-convert's OTF (time, whose)
ends() {
    "$CV" -q -o "$T/$1.b.otf" "$T/$1.otf" 2>"$T/err" || bad "$1: vftr-convert: $(cat "$T/err")"
    otfprint "$T/$1.b.otf" 2>/dev/null | awk '/ RMAEnd: / { gsub(/,/, ""); print $2, $4, $5, $6, $7 }'
}
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else bad "$1: expected '$2', got '$3'"; fi
}

check "VampirTrace's RMAEnd (remote 0, no matching ids) ends both of its process's transfers (otf2-print)" \
    "10 RMA_PUT 0 1
20 RMA_GET 0 2
40 RMA_OP_COMPLETE_BLOCKING 0 1
40 RMA_OP_COMPLETE_BLOCKING 0 2" "$(completions vt)"
check "VampirTrace's RMAEnd written back as it was (otfprint)" \
    "40 process 1 communicator 1" "$(ends vt)"
check "vftr's older form (remote = target) still pairs the end with its put (otf2-print)" \
    "10 RMA_PUT 0 1
40 RMA_OP_COMPLETE_BLOCKING 0 1" "$(completions old)"
check "vftr's older form written anew: remote 0, the end's own process's transfer (otfprint)" \
    "40 process 1 communicator 1" "$(ends old)"
check "an end on another thread than its put: the completion on rank 0 names the put (otf2-print)" \
    "10 RMA_PUT 2 1
40 RMA_OP_COMPLETE_BLOCKING 0 1" "$(completions thr)"
check "an end on another thread than its put written back: remote the put's thread (otfprint)" \
    "40 initiator 1 remote 3" "$(ends thr)"
exit $fail
