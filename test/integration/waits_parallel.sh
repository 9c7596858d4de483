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
