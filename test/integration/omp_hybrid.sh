#!/bin/bash
# omp_hybrid.sh — MPI + OpenMP under `mpirun -np 2 ... vftr-run`: the
# program (test/omp/omp_hybrid.c, clang -fopenmp through mpicc) writes, per
# rank and OS thread, the OpenMP constructs it ran and the messages each
# thread sent or received (MPI_THREAD_MULTIPLE: every thread of a region
# exchanges one message).  Each rank's .vfd, named by rank, must hold per
# thread exactly those regions and MPI message events, properly nested.
. "$(dirname "$0")/../capture/common.sh"

OMPDIR=$cap_build/test/omp
OMPCHECK=$OMPDIR/ompcheck
if [ ! -x "$OMPDIR/omp_hybrid" ] || ! command -v mpirun >/dev/null 2>&1 \
   || [ ! -e "$cap_build/lib/libvftrcapture-mpi.so" ]; then
    skip "MPI + OpenMP" "needs clang -fopenmp, mpicc, mpirun and libvftrcapture-mpi.so"
    finish
fi
require "$OMPCHECK"

# a sanitized capture library is loaded into an MPI program: Open MPI's own
# leaks at exit are not ours (as in test/mpi/common.sh)
. "$(cd "$(dirname "$0")" && pwd)/../sanitizers.sh"
san_env "$cap_build/lib/libvftrcapture.so"   # test/sanitizers.sh
d=$cap_tmp/hybrid
mkdir -p "$d"
OMP_NUM_THREADS=2 OMP_PROC_BIND=false timeout -s KILL "$RUN_TIMEOUT" \
    mpirun --allow-run-as-root -np 2 --oversubscribe --bind-to none \
    "$VFTR_RUN" --out "$d" -- "$OMPDIR/omp_hybrid" "$d" 3 >"$d/.stdout" 2>"$d/.stderr"
check "hybrid: mpirun exit status" 0 "$?"
for r in 0 1; do
    vfd=$d/omp_hybrid_$r.vfd
    if [ ! -f "$vfd" ] || ! "$OMPCHECK" "$vfd" >"$d/.check$r" 2>"$d/.err$r"; then
        fail "hybrid: rank $r: no readable omp_hybrid_$r.vfd"; show "$d/.stderr" "$d/.err$r"
        continue
    fi
    pass "hybrid: rank $r wrote omp_hybrid_$r.vfd"
    awk '$1 == "count" { print } $1 == "sent" { print "mpi_send", $2, $3 }
         $1 == "received" { print "mpi_recv", $2, $3 }' "$d/omp_hybrid.$r.out" | sort >"$d/.want$r"
    awk '($1 == "count" && ($3 == "parallel" || $3 == "implicit_task" || $3 == "loop" ||
          $3 == "masked")) || $1 == "mpi_send" || $1 == "mpi_recv"' "$d/.check$r" | sort >"$d/.got$r"
    if [ -s "$d/.want$r" ] && cmp -s "$d/.want$r" "$d/.got$r"; then
        pass "hybrid: rank $r: regions and messages per thread equal the program's ($(wc -l <"$d/.want$r") lines)"
    else
        fail "hybrid: rank $r: regions or messages per thread differ from the program's"
        diff "$d/.want$r" "$d/.got$r" | sed -n '1,12s/^/    /p'
    fi
    check "hybrid: rank $r: ends that do not match their begin" 0 \
        "$(awk '$1 == "unbalanced" { print $2 }' "$d/.check$r")"
    check "hybrid: rank $r: events of undefined regions" 0 \
        "$(awk '$1 == "undefined" { print $2 }' "$d/.check$r")"
done
check "hybrid: MPI_THREAD_MULTIPLE granted (threads exchanged messages)" 1 \
    "$(awk '$1 == "multiple" { print $2 }' "$d/omp_hybrid.0.out")"
finish
