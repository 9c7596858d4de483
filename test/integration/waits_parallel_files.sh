#!/bin/bash
# waits_parallel_files.sh — on .vfd input every rank of vftr-stats-mpi (and
# of vfd2otf-mpi, which shares the code: lib/mpi/vfdshare.c) opens only its
# share of the run's files: file of run rank R by MPI rank R % np, none
# else, seen from the outside (strace's openat of each MPI rank), and the
# analysis still prints what the serial one prints.
. "$(dirname "$0")/../conv/common.sh"

STATS=$B/bin/vftr-stats
PAR=$B/bin/vftr-stats-mpi
V2OPAR=$B/bin/vfd2otf-mpi
MK=$B/test/waits/mkwaits
if [ ! -x "$PAR" ] || ! command -v mpirun >/dev/null 2>&1 || ! command -v strace >/dev/null 2>&1; then
    echo "SKIP: files read per rank (needs vftr-stats-mpi, mpirun and strace)"
    exit 0
fi
if ! strace -qq -e trace=openat -o /dev/null true 2>/dev/null; then
    echo "SKIP: files read per rank (strace cannot trace here)"
    exit 0
fi
for t in "$STATS" "$MK"; do
    [ -x "$t" ] || { bad "$t is not built (make check builds it)"; exit 1; }
done
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

mkdir -p "$T/chain3" "$T/big"
"$MK" chain3 "$T/chain3" >/dev/null || bad "mkwaits chain3"
"$MK" big "$T/big" 4000 5 >/dev/null || bad "mkwaits big"

# opened NP RUN TOOL ARGS...: TOOL under mpirun -np NP, each rank traced;
# then checks every rank's opened .vfd files against the share
opened() {
    local np=$1 run=$2 what; shift 2
    what="$(basename "$1") on $(basename "$run") at -np $np"
    rm -f "$T"/st.*
    if ! timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -np "$np" \
            sh -c 'exec strace -f -qq -e trace=openat,open -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
            "$T/st" "$@" >"$T/out" 2>"$T/err"; then
        bad "$what: failed: $(head -1 "$T/err")"
        return 1
    fi
    local ok=1
    for ((k = 0; k < np; k++)); do
        # the .vfd files rank k opened (successfully), and those of its share
        grep -v ENOENT "$T/st.$k" | grep -o '"[^"]*\.vfd"' | tr -d '"' | xargs -rn1 basename |
            sort -u >"$T/got.$k"
        : >"$T/want.$k"
        for f in "$run"/*.vfd; do
            r=$(basename "$f" .vfd); r=${r##*_}
            (( r % np == k )) && basename "$f" >>"$T/want.$k"
        done
        sort -o "$T/want.$k" "$T/want.$k"
        if ! cmp -s "$T/got.$k" "$T/want.$k"; then
            ok=0
            echo "    rank $k opened: $(tr '\n' ' ' <"$T/got.$k")expected: $(tr '\n' ' ' <"$T/want.$k")"
        fi
    done
    if [ $ok = 1 ]; then
        pass "$what: each rank opens only its share of the .vfd files"
    else
        bad "$what: a rank opens files outside its share"
    fi
}

for np in 2 3; do
    for run in "$T/chain3" "$T/big"; do
        opened "$np" "$run" "$PAR" --waits --csv --threads "$run" || continue
        "$STATS" --waits --csv --threads "$run" >"$T/ser" 2>/dev/null
        if cmp -s "$T/ser" "$T/out" && [ -s "$T/out" ]; then
            pass "$(basename "$run") --waits at -np $np under strace: as the serial analysis"
        else
            bad "$(basename "$run") --waits at -np $np under strace: differs from the serial analysis"
        fi
    done
done
if [ -x "$V2OPAR" ]; then
    opened 2 "$T/chain3" "$V2OPAR" -q -o "$T/c3.otf" "$T/chain3"
fi
exit $fail
