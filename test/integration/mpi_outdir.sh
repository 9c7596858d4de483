#!/bin/bash
# mpi_outdir.sh — a second MPI run into the same directory
# (share/doc/capture.md, "Where the files go"): rank 0 moves the earlier
# run's files of every rank into <base>.old/ at MPI_Init, before any rank
# writes its own, and says so once; a run with fewer ranks leaves no file
# of the earlier one beside its own, so the tools read the run as it was.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

d=$mpi_tmp/out/run
mrun 4 "$d" "$MPIDIR/mpi_comms"
check "first run (4 ranks): exit status" 0 "$(cat "$d/.rc")"
# (and, while here: each rank's log states its share of the job's trace)
check "first run: rank 0's log gives the job's trace cap over its 4 ranks" 1 \
    "$(grep -c "^  job cap  *68719476736 bytes over the job's 4 ranks (trace.max_job_size)$" "$d/mpi_comms_0.log")"
# the log over ranks states what the job's trace cost by MPI_Finalize (at
# most the final .vfd files, which get the last buffers after it) and may cost
sum=$(cat "$d"/mpi_comms_[0-3].vfd | wc -c)
got=$(sed -n 's/^  trace  *\([0-9]*\) bytes over the 4 ranks by MPI_Finalize (largest: rank [0-3], [0-9]* bytes)$/\1/p' \
      "$d/mpi_comms_all.log")
if [ -n "$got" ] && [ "$got" -gt 0 ] && [ "$got" -le "$sum" ]; then
    pass "first run: the log over ranks gives the job's trace bytes ($got of $sum at the end)"
else
    fail "first run: the log over ranks gives the job's trace bytes (got '$got', files $sum)"
fi
check "first run: and the job's cap" 1 \
    "$(grep -c "^  job cap  *68719476736 bytes over the job's 4 ranks (trace.max_job_size)$" "$d/mpi_comms_all.log")"
mv "$d/.stderr" "$d/.stderr1"
mrun 2 "$d" "$MPIDIR/mpi_comms"
check "second run (2 ranks): exit status" 0 "$(cat "$d/.rc")"
check "second run: the first run's files in mpi_comms.old/" \
    "mpi_comms_0.log mpi_comms_0.vfd mpi_comms_1.vfd mpi_comms_2.vfd mpi_comms_3.vfd mpi_comms_all.log" \
    "$(cd "$d/mpi_comms.old" 2>/dev/null && ls | tr '\n' ' ' | sed 's/ $//')"
check "second run: its own files, no others" "mpi_comms_0.log mpi_comms_0.vfd mpi_comms_1.vfd mpi_comms_all.log" \
    "$(cd "$d" && ls mpi_comms_* | tr '\n' ' ' | sed 's/ $//')"
check "second run: one message, from rank 0" 1 "$(grep -c '^vftr: .*earlier run of mpi_comms moved to' "$d/.stderr")"
check "vftr-stats: the run in the directory has 2 ranks" 2 \
    "$("$mpi_build/bin/vftr-stats" --csv "$d" 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["function"] == "MPI_Init" { print $c["procs"] }')"
check "vftr-stats: the run in .old has 4 ranks" 4 \
    "$("$mpi_build/bin/vftr-stats" --csv "$d/mpi_comms.old" 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["function"] == "MPI_Init" { print $c["procs"] }')"
finish
