#!/bin/bash
# mpi_p2p.sh — point-to-point messages under mpirun -np 4 (test/mpi/mpi_p2p.c):
# a ring of every send mode, Sendrecv(_replace), a nonblocking halo completed
# by every wait and test call, wildcards with probes, persistent requests,
# MPI_PROC_NULL and MPI_Pcontrol.  The .vfd files must hold exactly the
# messages the program counted, every send must match one receive, one file
# per rank, one run id; clock offsets at MPI_Init and MPI_Finalize.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

d=$mpi_tmp/p2p
mrun 4 "$d" "$MPIDIR/mpi_p2p"
basics "p2p" "$d" 4 mpi_p2p
messages "p2p" "$d" 4
matching "p2p" "$d" 4

# every rank compares its clock with rank 0's at MPI_Init and MPI_Finalize
for r in 0 1 2 3; do
    check "p2p: rank $r clock offsets (init, finalize)" "0 1" \
        "$(awk '$1 == "offset" { printf "%s%s", s, $2; s = " " }' "$d/.got_$r")"
done
check "p2p: rank 0 records itself (offset 0, round trip 0)" "0 0" \
    "$(awk '$1 == "offset" { printf "%s%s", s, $6 + $5; s = " " }' "$d/.got_0")"
# MPI calls appear as functions flagged MPI: MPI_Pcontrol three times
# (the pause itself is recorded, the resume too), the waits as often as
# the program called them
calls() { awk -v n="$2" '$1 == "call" && $2 == n { e += $3; x += $4 } END { print e + 0, x + 0 }' "$1"; }
check "p2p: MPI_Pcontrol calls (enter, exit)" "3 3" "$(calls "$d/.got_1" MPI_Pcontrol)"
check "p2p: MPI_Startall calls" "5 5" "$(calls "$d/.got_2" MPI_Startall)"
check "p2p: MPI_Init recorded" "1 1" "$(calls "$d/.got_3" MPI_Init)"
# the collated log of rank 0
log=$d/mpi_p2p_all.log
if [ -f "$log" ]; then
    pass "p2p: rank 0 wrote mpi_p2p_all.log"
    # 4 ranks x (ring + MPI_PROC_NULL) + 3 wildcard sends; the paused ring not
    check "p2p: _all.log MPI_Send calls over 4 ranks, none while paused" 11 \
        "$(tsv "$log" "Profile over" | tsum Calls Function MPI_Send)"
else
    fail "p2p: no mpi_p2p_all.log"
fi
finish
