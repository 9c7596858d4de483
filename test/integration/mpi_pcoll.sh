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

# Fortran (Open MPI 4.1 has the extension in mpif.h / `use mpi_ext` /
# `use mpi_f08_ext` too): the library wraps mpix_*_init_ and
# mpix_*_init_f08_ of every MPIX_*_init of the table; the program through
# `use mpi_ext` (test/mpi/mpi_pcoll_f.f90) has every persistent collective
# it started recorded at its wait, with its bytes and the persistent flag,
# and every MPIX_*_INIT it called recorded as the MPI call
lib=$mpi_build/lib/libvftrcapture-mpi.so
check "pcoll: the library exports the Fortran and mpi_f08 wrappers of every MPIX_*_init" "" \
    "$(awk '$1 ~ /^MPIX_/ { print $2; print $3 }' "$GEN_LIST" | sort |
       comm -23 - <(nm -D --defined-only "$lib" | awk '{ print $3 }' | sort) | tr '\n' ' ')"
if [ -x "$MPIDIR/mpi_pcoll_f" ]; then
    df=$mpi_tmp/pcoll_f
    mrun $np "$df" "$MPIDIR/mpi_pcoll_f"
    basics "pcoll_f" "$df" $np mpi_pcoll_f
    messages "pcoll_f" "$df" $np
    have=$(for ((r = 0; r < np; r++)); do
               awk '$1 == "call" && $2 ~ /^MPIX_/ && $3 > 0 { print $2, $3 }' "$df/.got_$r"
           done | sort | uniq -c | awk -v np=$np '$1 == np { print $2, $3 }')
    # each once, MPIX_Allreduce_init twice (once never started), on every rank
    check "pcoll_f: every MPIX_*_INIT called through the Fortran bindings recorded on every rank" \
        "$(echo "$want" | awk '{ print $1, $1 == "MPIX_Allreduce_init" ? 2 : 1 }')" "$have"
    check "pcoll_f: the program links the wrapped mpix_*_init_ (mpif.h / use mpi_ext)" "" \
        "$(awk '$1 ~ /^MPIX_/ { print $2 }' "$GEN_LIST" | sort |
           comm -23 - <(nm -D --undefined-only "$MPIDIR/mpi_pcoll_f" | awk '{ print $2 }' | sort) |
           tr '\n' ' ')"
else
    fail "pcoll_f: $MPIDIR/mpi_pcoll_f is not built"
fi
finish
