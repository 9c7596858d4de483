#!/bin/bash
# mpi_pcoll.sh — persistent collectives (Open MPI's MPIX_*_init, the
# "pcollreq" extension; MPI 4.0's MPI_*_init are not in Open MPI 4.1)
# under mpirun -np 3 (test/mpi/mpi_pcoll.c): every started collective is
# recorded at the wait that completes it, with the bytes the program
# computed and the persistent flag; one that is never started, or waited on
# while inactive, is not; each of the table's MPIX_*_init is called and
# recorded as an MPI call.  Skipped when the library lacks the extension.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

if ! grep -q '^MPIX_' "$GEN_LIST"; then
    skip "persistent collectives" "the MPI library has no MPIX_*_init (pcollreq extension)"
    exit 0
fi
np=3
d=$mpi_tmp/pcoll
mrun $np "$d" "$MPIDIR/mpi_pcoll"
basics "pcoll" "$d" $np mpi_pcoll
messages "pcoll" "$d" $np

for ((r = 0; r < np; r++)); do
    # per communicator 17 collectives started once alone (MPI_Start) and
    # once with a barrier (MPI_Startall)
    check "pcoll: rank $r: MPI_Start calls" "34 34" \
        "$(awk '$1 == "call" && $2 == "MPI_Start" { print $3, $4 }' "$d/.got_$r")"
    check "pcoll: rank $r: MPI_Startall calls" "34 34" \
        "$(awk '$1 == "call" && $2 == "MPI_Startall" { print $3, $4 }' "$d/.got_$r")"
done
want=$(awk '$1 ~ /^MPIX_/ { print $1 }' "$GEN_LIST" | sort)
have=$(awk '$1 == "call" && $2 ~ /^MPIX_/ && $3 > 0 { print $2 }' "$d/.got_0" | sort)
check "pcoll: all $(echo "$want" | wc -l) MPIX_*_init of the table recorded as MPI calls" "$want" "$have"
finish
