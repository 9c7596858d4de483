#!/bin/bash
# mpi_nohooks.sh — MPI programs built without -finstrument-functions
# (test/mpi/nohooks.c and nohooks.f90) under mpirun -np 2 vftr-run: capture
# sees nothing of them but their MPI calls, and those are recorded (issue
# 14, item 4):
#  - per rank, the Calls of each MPI_X in the rank's log and its ENTER and
#    EXIT events in the rank's .vfd equal the program's own count;
#  - one message, from rank 0 only, naming -finstrument-functions and the
#    number of MPI calls recorded instead;
#  - rank 1 killed by SIGSEGV: its log and rank 0's (stopped by the launcher
#    with SIGTERM in a barrier) are marked incomplete with the signal and
#    hold the calls each rank counted before it died;
#  - rank 1 killed by SIGKILL: its .tmpvfd's header names rank 1, the size
#    and the run, also when the launcher gives no rank and size in the
#    environment (they are then learnt at MPI_Init).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"
# shellcheck source=../capture/logcalls.sh
. "$here/../capture/logcalls.sh"

export VFTR_LOGFILE_FOR_RANKS=all

# counts DIR RANK: "NAME N" per MPI function the rank counted
counts() { awk '$1 == "count" { print $2, $3 }' "$1/count_$2.txt" 2>/dev/null; }

# compare WHAT DIR BASE RANK ENTERS_ONLY: the rank's log Calls and .vfd
# enters (and exits, unless ENTERS_ONLY: the call it died in never exits)
# against its own counts.
compare() {
    local what=$1 dir=$2 base=$3 r=$4 enters_only=${5:-} vfd log name n bad=0 shown=0
    log=$dir/${base}_$r.log
    vfd=$dir/${base}_$r.vfd
    [ -f "$vfd" ] || vfd=$(ls "$dir"/"${base}"_*.tmpvfd 2>/dev/null | head -1)
    if [ ! -s "$dir/count_$r.txt" ]; then
        fail "$what: rank $r wrote no counts"; show "$dir/.stderr"; return
    fi
    if [ ! -f "$log" ]; then fail "$what: rank $r: no ${base}_$r.log"; show "$dir/.stderr"; return; fi
    "$VFDMPI" "$vfd" >"$dir/.calls_$r" 2>&1 || { fail "$what: rank $r: vfdmpi cannot read $vfd"; return; }
    while read -r name n; do
        local lc ve vx
        lc=$(logcalls "$log" "$name")
        ve=$(awk -v f="$name" '$1 == "call" && $2 == f { print $3 }' "$dir/.calls_$r")
        vx=$(awk -v f="$name" '$1 == "call" && $2 == f { print $4 }' "$dir/.calls_$r")
        [ -n "$enters_only" ] && vx=$n
        if [ "$lc" != "$n" ] || [ "$ve" != "$n" ] || [ "$vx" != "$n" ]; then
            bad=$((bad + 1))
            [ $shown -lt 5 ] && echo "    rank $r $name: program $n, log $lc, .vfd enters ${ve:-none} exits ${vx:-none}"
            shown=$((shown + 1))
        fi
    done < <(counts "$dir" "$r")
    check "$what: rank $r: log Calls and .vfd enters/exits of every MPI function equal the program's counts ($(counts "$dir" "$r" | wc -l) functions)" 0 "$bad"
    check "$what: rank $r: the log has MPI_* rows only" 0 \
        "$(awk '/^Profile: / { p = 1; next } p && /^$/ && seen { exit } p && /^ *[0-9]/ { seen = 1; if ($NF != "-" || $(NF-1) !~ /^MPI_/) n++ } END { print n + 0 }' "$log")"
}

# 1. C and Fortran, to the end
for prog in nohooks_c nohooks_f; do
    if [ ! -x "$MPIDIR/$prog" ]; then
        skip "$prog" "not built (mpif90 missing)"
        continue
    fi
    d=$mpi_tmp/$prog
    mrun 2 "$d" "$MPIDIR/$prog"
    basics "$prog" "$d" 2 "$prog"
    for r in 0 1; do
        compare "$prog" "$d" "$prog" $r
        check "$prog: rank $r: the log says no function was instrumented" \
            "none instrumented (no compiler hook ran: compile with -finstrument-functions)" \
            "$(logline "$d/${prog}_$r.log" functions)"
    done
    n0=$(counts "$d" 0 | awk '{ s += $2 } END { print s }')
    check "$prog: one message, from rank 0, naming -finstrument-functions and its $n0 MPI calls" \
        "1 1" "$(grep -c '^vftr: ' "$d/.stderr") $(grep -c "^vftr: $prog has no compiler hooks (build it with -finstrument-functions.*recorded only its MPI calls ($n0)" "$d/.stderr")"
done

# 2. rank 1 dies by SIGSEGV after its calls; rank 0 waits in a barrier and
#    is stopped by the launcher (SIGTERM)
prog=nohooks_c
d=$mpi_tmp/segv
mrun 2 "$d" "$MPIDIR/$prog" 5 segv
check "segv: the job failed" 1 "$([ "$(cat "$d/.rc")" != 0 ] && echo 1 || echo 0)"
for r in 0 1; do
    compare "segv" "$d" "$prog" $r enters_only
done
check "segv: rank 1's log is marked incomplete, by SIGSEGV" \
    "the run was killed by signal 11 (SIGSEGV): the figures stop there" \
    "$(logline "$d/${prog}_1.log" incomplete)"
check "segv: rank 0's log is marked incomplete, by the launcher's SIGTERM" \
    "the run was killed by signal 15 (SIGTERM): the figures stop there" \
    "$(logline "$d/${prog}_0.log" incomplete)"
check "segv: rank 0's .vfd: the barrier it was stopped in, left at the launcher's signal" \
    "6 6" "$(awk '$1 == "call" && $2 == "MPI_Barrier" { print $3, $4 }' "$d/.calls_0")"

# 3. rank 1 dies by SIGKILL; the launcher's rank and size are hidden from
#    vftr (Open MPI's own PMIx variables stay: MPI needs them), so that the
#    header can only have them from MPI_Init
d=$mpi_tmp/kill
mkdir -p "$d"
timeout -s KILL 120 mpirun -np 2 --oversubscribe --bind-to none \
    env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE "$VFTR_RUN" --out "$d" -- \
    "$MPIDIR/$prog" "$d" 5 kill >"$d/.stdout" 2>"$d/.stderr"
tmp=$(ls "$d"/${prog}_*.tmpvfd 2>/dev/null)
if [ "$(echo "$tmp" | grep -c .)" != 1 ] || ! "$VFDMPI" "$tmp" >"$d/.got_1" 2>&1; then
    fail "kill: one readable .tmpvfd left ($(ls "$d" | tr '\n' ' '))"; show "$d/.stderr"
else
    "$VFDMPI" "$d/${prog}_0.vfd" >"$d/.got_0" 2>&1
    check "kill: the .tmpvfd is incomplete" 0 "$(gkey "$d" 1 complete)"
    check "kill: its header names rank 1" 1 "$(gkey "$d" 1 rank)"
    check "kill: its header names the size" 2 "$(gkey "$d" 1 size)"
    check "kill: its header names the run (rank 0's run id)" "$(gkey "$d" 0 run_id)" \
        "$(gkey "$d" 1 run_id)"
fi
finish
