#!/bin/bash
# mpi_comm_names.sh — communicators are named as the program made them
# (test/mpi/mpi_comms.c under mpirun -np 4): in the converted trace's
# process groups (vfd2otf, then vftr-dump) MPI_COMM_WORLD, "MPI_COMM_SELF r"
# for each rank, the dup of world that the program named "solver", the
# splits of it by parity as "split of solver (color c)", the split of world
# named "halves" after it was made, and "dup of MPI_COMM_SELF r"; never an
# internal id.  The names are written out here from what the program does.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

[ -x "$MPIDIR/mpi_comms" ] || { fail "$MPIDIR/mpi_comms is not built"; finish; }
d=$mpi_tmp/comms
mrun 4 "$d" "$MPIDIR/mpi_comms"
basics "comm names" "$d" 4 mpi_comms
messages "comm names" "$d" 4

want=$( {
    echo "MPI_COMM_WORLD"
    for r in 0 1 2 3; do echo "MPI_COMM_SELF $r"; echo "dup of MPI_COMM_SELF $r"; done
    echo "solver"
    echo "split of solver (color 0)"; echo "split of solver (color 1)"
    echo "halves"; echo "halves"
} | sort)
if "$mpi_build/bin/vfd2otf" -q -o "$d/run" "$d" 2>"$d/.conv_err"; then
    got=$("$mpi_build/bin/vftr-dump" -d "$d/run.otf" |
          sed -n 's/^DefProcessGroup .* name="\([^"]*\)".*/\1/p' | sort)
    if [ "$got" = "$want" ]; then
        pass "comm names: the trace's process groups are the program's communicators by name"
    else
        fail "comm names: process groups differ (< expected, > trace)"
        diff <(echo "$want") <(echo "$got") | show
    fi
    check "comm names: no group named by an internal id" 0 \
        "$(echo "$got" | grep -cE '[0-9]{5,}|0x|unknown|communicator')"
else
    fail "comm names: vfd2otf failed: $(head -2 "$d/.conv_err")"
fi
# each rank's own trace: the last name it gave each communicator
for r in 0 1 2 3; do
    check "comm names: rank $r names its self communicator by its rank" "MPI_COMM_SELF $r" \
        "$(awk '$1 == "comm" && $2 >= 4611686018427387904 { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' \
           "$d/.got_$r" | grep -x "MPI_COMM_SELF $r")"
done
finish
