#!/bin/bash
# mpi_threads.sh — MPI_THREAD_MULTIPLE under mpirun -np 4
# (test/mpi/mpi_threads.c): four pthreads per rank send, receive and reduce
# at once.  Every message and collective is recorded exactly once, by the
# thread that made it (each thread has its own tags: one vftr thread per
# tag, four threads per rank), and every send matches one receive.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

d=$mpi_tmp/threads
mrun 4 "$d" "$MPIDIR/mpi_threads"
basics "threads" "$d" 4 mpi_threads
messages "threads" "$d" 4
matching "threads" "$d" 4
for r in 0 1 2 3; do
    # tag 100+t, 110+t, 120+t belong to program thread t
    check "threads: rank $r messages of one program thread on one vftr thread" 0 \
        "$(awk '($1 == "send" || $1 == "recv") { t = $3 % 10; if ((t in th) && th[t] != $7) bad++; th[t] = $7 }
               END { print bad + 0 }' "$d/.got_$r")"
    check "threads: rank $r messages recorded on 4 threads" 4 \
        "$(awk '$1 == "send" || $1 == "recv" { print $7 }' "$d/.got_$r" | sort -u | wc -l)"
done
finish
