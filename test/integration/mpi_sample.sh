#!/bin/bash
# mpi_sample.sh — statistical sampling (vftr-run --sample) of an MPI program
# built without compiler hooks (test/mpi/sample_mpi.c), on both routes of
# capture/sample.c: the kernel ring (sample.ring true, the default) and the
# signal (sample.ring false).  Rank 0 spins 1 s and then enters a barrier in
# which rank 1 waits (polling: CPU time inside MPI); then both spin 0.25 s.
# Each rank measures its own CPU time inside its MPI calls and in busy().
# Per route and rank:
#  - the log's sampling section names the route;
#  - the CPU time of the samples counted "in exact calls" is the rank's CPU
#    time inside MPI (within 10 % + 20 ms): samples inside an MPI call are
#    not booked, the call is recorded exactly;
#  - the sampled time of busy() is the rank's CPU time in busy() (10 %);
#  - all booked samples together are no more than busy() and main (rank 1's
#    second of waiting is not among them).
# On the ring route the wait is recognised by the MPI wrapper's frame on
# the copied stack (capture/sample.c, ring_exact); without that check rank
# 1's booked time was its whole CPU time (1.3 s for 0.25 s of busy()).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

if [ ! -x "$MPIDIR/sample_mpi" ]; then
    skip "mpi_sample" "sample_mpi not built"
    exit 0
fi
export VFTR_LOGFILE_FOR_RANKS=all VFTR_SAMPLE_INTERVAL=0.001

# near WHAT A B REL ABS: |A - B| <= REL * B + ABS
near() {
    if awk -v a="$2" -v b="$3" -v r="$4" -v s="$5" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= r * b + s) }'
    then pass "$1 ($2 vs $3)"; else fail "$1 ($2 vs $3, allowed $4 relative + $5 s)"; fi
}

for route in ring signal; do
    d=$mpi_tmp/$route
    VFTR_SAMPLE_RING=$([ $route = ring ] && echo true || echo false) mrun 2 "$d" "$MPIDIR/sample_mpi" 1
    check "$route: mpirun exit status" 0 "$(cat "$d/.rc")"
    [ "$(cat "$d/.rc")" = 0 ] || { show "$d/.stderr"; continue; }
    for r in 0 1; do
        log=$d/sample_mpi_$r.log
        if [ ! -f "$log" ]; then fail "$route: rank $r: no log"; continue; fi
        src=$(sed -n 's/^  source: *//p' "$log")
        case $route in
            ring) want="task-clock event, kernel ring" ;;
            *) want="task-clock event, signal" ;;
        esac
        case $src in
            "$want"*) pass "$route: rank $r: the log names the route ($want)" ;;
            *) fail "$route: rank $r: the log names '$src'" ;;
        esac
        own_mpi=$(awk -v r="$r" '$1 == "rank" && $2 == r { print $4 }' "$d/.stdout")
        own_busy=$(awk -v r="$r" '$1 == "rank" && $2 == r { print $6 }' "$d/.stdout")
        exact=$(awk '$1 == "in" && $2 == "exact" { print $6 }' "$log")
        booked=$(awk '$1 == "booked:" { print $4 }' "$log")
        busy=$(awk '$7 == "busy" && NF >= 8 && $1 ~ /^[0-9]+$/ { s += $3 } END { print s + 0 }' "$log")
        near "$route: rank $r: CPU time of the samples in exact calls is the rank's time in MPI" \
            "$exact" "$own_mpi" 0.10 0.02
        near "$route: rank $r: sampled time of busy() is its CPU time" "$busy" "$own_busy" 0.10 0
        if awk -v b="$booked" -v w="$own_busy" 'BEGIN { exit !(b <= 1.1 * w + 0.03) }'; then
            pass "$route: rank $r: the booked samples ($booked s) hold no time inside MPI"
        else
            fail "$route: rank $r: booked $booked s for $own_busy s of busy()"
            awk '/^Profile:/ { p = 1 } p && $1 ~ /^[0-9]+$/ && NF >= 8 && $6 != 0' "$log" \
                | sort -k3 -g -r | head -8 | show
        fi
    done
done

finish
