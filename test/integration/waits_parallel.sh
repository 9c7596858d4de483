#!/bin/bash
# waits_parallel.sh — the wait analysis spread over MPI ranks
# (vftr-stats-mpi, lib/model/analysis_par.c) prints what the serial one
# prints, byte for byte: every hand-built run of test/waits/mkwaits (and a
# larger generated one, several records per message between the ranks),
# every view (--waits, --critical-path, --delays), at -np 1, 2 and 4 (4:
# more workers than some runs have ranks), on .vfd and OTF input, with a
# window.  The serial figures themselves are checked by waits_exact.sh.
. "$(dirname "$0")/../conv/common.sh"

STATS=$B/bin/vftr-stats
PAR=$B/bin/vftr-stats-mpi
MK=$B/test/waits/mkwaits
V2O=$B/bin/vfd2otf
if [ ! -x "$PAR" ] || ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: parallel wait analysis (needs mpicc for vftr-stats-mpi, and mpirun)"
    exit 0
fi
for t in "$STATS" "$MK" "$V2O"; do
    [ -x "$t" ] || { bad "$t is not built (make check builds it)"; exit 1; }
done
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# (under ASan: Open MPI's own leaks are not vftr's)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

for s in p2p chain3 coll order omp; do
    mkdir -p "$T/$s"
    "$MK" "$s" "$T/$s" || bad "mkwaits $s"
done
mkdir -p "$T/big"
"$MK" big "$T/big" 40000 5 || bad "mkwaits big"
"$V2O" -q -o "$T/omp.otf" "$T/omp" >/dev/null 2>&1 || bad "vfd2otf omp"

# par NP INPUT OPTIONS...: vftr-stats-mpi under mpirun against vftr-stats
par() {
    local np=$1 in=$2; shift 2
    "$STATS" "$@" "$in" >"$T/ser" 2>"$T/ser.err" || { bad "vftr-stats $* $in: $(head -1 "$T/ser.err")"; return; }
    if timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -np "$np" "$PAR" "$@" "$in" \
            >"$T/par" 2>"$T/par.err" && cmp -s "$T/ser" "$T/par" && [ -s "$T/par" ]; then
        pass "$(basename "$in") $* at -np $np: as the serial analysis"
    else
        bad "$(basename "$in") $* at -np $np: differs from the serial analysis"
        diff "$T/ser" "$T/par" | sed -n '1,10s/^/    /p'; sed -n '1,5s/^/    /p' "$T/par.err"
    fi
}

i=0
for s in p2p chain3 coll order omp; do
    np=$(( (i % 3 == 0) ? 1 : (i % 3 == 1) ? 2 : 4 )); i=$((i + 1))
    for v in --waits --critical-path --delays; do
        par "$np" "$T/$s" "$v" --csv --threads
    done
done
for np in 2 4; do
    par "$np" "$T/chain3" --delays --csv
    par "$np" "$T/omp.otf" --waits --csv --threads
done
for np in 1 2 4; do
    par "$np" "$T/big" --critical-path --callpath --csv
done
par 3 "$T/big" --delays --json
par 2 "$T/big" --waits --time 50us:150us
par 3 "$T/coll" --waits --time 3ms:5ms --csv
par 2 "$T/p2p" --critical-path --csv --time :6ms

# --waits is distributed (each rank analyses its own processes, given the
# records of other ranks' processes they depend on): the cases that split
# differently.  A Late Receiver across the ranks (p2p's MPI_Ssend 0 -> 1),
# collectives spanning the ranks (coll at -np 2 and 3), messages between
# processes of one rank (big over 5 ranks at -np 2: ranks 4 and 0 share
# one), every send a possible Late Receiver (--rendezvous 0), a rank with
# several processes (omp, ompidle: one rank, its threads) and ranks with
# none, windows (--time, the Ssend's wait cut), a process selection, and a
# run long enough for several rounds of the exchange (big2: about 330 000
# records per rank at -np 2, rounds of 65 536)
for s in ompidle outside eager; do
    mkdir -p "$T/$s"
    "$MK" "$s" "$T/$s" || bad "mkwaits $s"
done
mkdir -p "$T/big2"
"$MK" big "$T/big2" 400000 5 || bad "mkwaits big"
for np in 2 3; do
    par "$np" "$T/p2p" --waits --csv --threads
    par "$np" "$T/coll" --waits --json
    par "$np" "$T/big" --waits --rendezvous 0 --csv
    par "$np" "$T/big2" --waits --csv
done
par 4 "$T/big" --waits --rendezvous 0 --json --time 30us:170us
par 2 "$T/p2p" --waits --time 7500us:9000us
par 2 "$T/p2p" --waits --rendezvous 0 --csv
par 2 "$T/omp" --waits --csv --threads
par 2 "$T/ompidle" --waits --csv --threads
par 2 "$T/outside" --waits --csv
par 2 "$T/eager" --waits --csv --time 6ms:
par 3 "$T/big" --waits --process 1,3,4 --csv
par 2 "$T/order" --waits --json --threads
# that it was distributed, and its counts (--verbose: records, processes,
# receives before their send, unmatched messages, incomplete collectives)
# summed over the ranks as one analysis counts them
# (um.otf: p2p with rank 1's receive of the MPI_Ssend and rank 0's first
# send taken out: a send and a receive unmatched, a receive before its
# send, and a Late Receiver judged on the blocking receive the receiver is
# in, across the ranks)
"$V2O" -q -o "$T/um.otf" "$T/p2p" >/dev/null 2>&1 || bad "vfd2otf p2p"
sed -i '/^R1L8T3C1$/d' "$T/um.2.events"
sed -i '/^S2L40T1C1$/d' "$T/um.1.events"
par 2 "$T/um.otf" --waits --csv
for c in "big2 2" "big 3 --time 30us:170us" "eager 2 --time 6ms:" "outside 2" "coll 3" \
         "um.otf 2"; do
    set -- $c
    s=$1 np=$2; shift 2
    "$STATS" --waits --verbose "$@" "$T/$s" 2>&1 >/dev/null | tail -1 >"$T/ser.v"
    timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -np "$np" "$PAR" --waits \
        --verbose "$@" "$T/$s" 2>&1 >/dev/null | tail -1 >"$T/par.v"
    if grep -q "; each of $np ranks analysed its own processes\$" "$T/par.v" &&
       [ "$(sed 's/; each of [0-9]* ranks analysed its own processes$//' "$T/par.v")" = \
         "$(cat "$T/ser.v")" ]; then
        pass "$s $* at -np $np: analysed by every rank, counts as the serial's"
    else
        bad "$s $* at -np $np: $(cat "$T/par.v") (serial: $(cat "$T/ser.v"))"
    fi
done

# a record the analysis refuses: rank 1's MPI_Send of p2p entered at 7000 us
# (0x6acfc0 ns) moved back to 5177.344 us, before its work that began at
# 5300 us (its rank's stream, process 2): the serial run says which record
# and why; so must the parallel one at -np 2 (the record comes from a
# worker rank) and -np 1, not a bare "records out of order"
"$V2O" -q -o "$T/bad.otf" "$T/p2p" >/dev/null 2>&1 || bad "vfd2otf p2p"
if grep -qx 6acfc0 "$T/bad.2.events"; then
    sed -i 's/^6acfc0$/4f0000/' "$T/bad.2.events"
    "$STATS" --waits --csv "$T/bad.otf" >/dev/null 2>"$T/ser.err" && bad "vftr-stats on bad.otf: exit 0"
    want=$(head -1 "$T/ser.err")
    case $want in
    *"records out of order: process 2 at tick 5177344"*) ;;
    *) bad "vftr-stats on bad.otf: $want" ;;
    esac
    for np in 1 2; do
        if timeout -s KILL 60 mpirun --allow-run-as-root --oversubscribe -np $np "$PAR" --waits \
                --csv "$T/bad.otf" >"$T/par" 2>"$T/par.err"; then
            bad "vftr-stats-mpi -np $np on a refused record: exit 0"
        elif grep -qxF "$want" "$T/par.err"; then
            pass "vftr-stats-mpi -np $np on a refused record: the serial message"
        else
            bad "vftr-stats-mpi -np $np on a refused record: $(head -1 "$T/par.err")"
        fi
    done
else
    bad "bad.otf: the send's enter time is not where mkwaits puts it"
fi

# a run that cannot be read ends the job with the tool's message, exit 1
if timeout -s KILL 60 mpirun --allow-run-as-root --oversubscribe -np 2 "$PAR" --waits \
        "$T/nonexistent" >"$T/par" 2>"$T/par.err"; then
    bad "vftr-stats-mpi on a missing run: exit 0"
elif grep -q "nonexistent" "$T/par.err"; then
    pass "vftr-stats-mpi on a missing run: fails naming it"
else
    bad "vftr-stats-mpi on a missing run: $(head -2 "$T/par.err")"
fi
exit $fail
