#!/bin/bash
# mpi_threads.sh — MPI_THREAD_MULTIPLE under mpirun -np 4
# (test/mpi/mpi_threads.c): four pthreads per rank send, receive and reduce
# at once.  Every message and collective is recorded exactly once, by the
# thread that made it (each thread has its own tags: one vftr thread per
# tag, four threads per rank), and every send matches one receive.
# The run converted to OTF2 and to OTF by vftr-convert and read back:
# OTF2's MPI records name their peer only as a rank, so its threads' sends
# and receives match on MPI's channel (messages.h): the same counts as
# vftr-stats --messages gives from the .vfd files, every message matched.
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

STATS=$mpi_build/bin/vftr-stats
CONV=$mpi_build/bin/vftr-convert
p2p() { "$STATS" --messages "$@" 2>&1 | grep '^point-to-point:'; }
want=$(p2p "$d")
# 4 ranks x 4 threads x 25 rounds x (1 ring + 2 nonblocking) sends
check "threads: vftr-stats --messages on the .vfd: every message matched" \
    "point-to-point: 1200 sent, 1200 received, 1200 matched, 0 sends and 0 receives unmatched" "$want"
for to in otf2 otf; do
    out=$d/conv_$to
    [ "$to" = otf ] && out=$d/conv.otf
    if "$CONV" -q --to=$to -o "$out" "$d" 2>"$d/conv_$to.err"; then
        [ "$to" = otf2 ] && out=$out/traces.otf2
        check "threads: vftr-convert --to=$to, read back: the .vfd's message counts" "$want" "$(p2p "$out")"
    else
        fail "threads: vftr-convert --to=$to: $(head -1 "$d/conv_$to.err")"
    fi
done
finish
