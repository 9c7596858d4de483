#!/bin/bash
# mpi_coll.sh — collectives and communicators under mpirun -np 4
# (test/mpi/mpi_coll.c): every blocking and nonblocking collective, with
# MPI_IN_PLACE, on world and on split, dup, create, create_group and
# split_type communicators.  Each rank's .vfd must hold exactly the
# collectives the program made (root as a world rank, bytes sent and
# received) and its messages; every communicator the rank is in is defined
# with the world ranks the program expects, and one communicator has one id
# on all its members (different communicators different ids).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

d=$mpi_tmp/coll
mrun 4 "$d" "$MPIDIR/mpi_coll"
basics "coll" "$d" 4 mpi_coll
messages "coll" "$d" 4
matching "coll" "$d" 4

for r in 0 1 2 3; do
    # the communicators other than world and self, by their members
    got=$(awk '$1 == "comm" && $2 != 0 && $2 < 4611686018427387904 { print $4 }' "$d/.got_$r" | sort | tr '\n' ' ')
    want=$(awk '{ print $2 }' "$d/comms_$r.txt" | sort | tr '\n' ' ')
    check "coll: rank $r is in the communicators it made (by world ranks)" "$want" "$got"
    check "coll: rank $r world and self defined" "MPI_COMM_SELF $r|MPI_COMM_WORLD" \
        "$(awk '$1 == "comm" && ($2 == 0 || $2 >= 4611686018427387904) { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' "$d/.got_$r" | sort | tr '\n' '|' | sed 's/|$//')"
done
# one id per communicator on all members, distinct ids for distinct ones:
# every (id, members) pair appears on exactly as many ranks as it has members
bad=$(cat "$d"/.got_[0-3] | awk '$1 == "comm" && $2 != 0 && $2 < 4611686018427387904 { n[$2 " " $4]++; m[$2]++ }
    END { for (k in n) { split(k, a, " "); c = split(a[2], x, ","); if (n[k] != c || m[a[1]] != c) bad++ } print bad + 0 }')
check "coll: each communicator has one id on all its members" 0 "$bad"
check "coll: 6 communicators made (split: 2, dup, create, create_group, split_type)" 6 \
    "$(cat "$d"/.got_[0-3] | awk '$1 == "comm" && $2 != 0 && $2 < 4611686018427387904 { print $2 }' | sort -u | wc -l)"
finish
