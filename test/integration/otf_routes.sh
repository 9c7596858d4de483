#!/bin/bash
# otf_routes.sh — vftr's two OTF 1.x writers write one trace of one run.
# vfd2otf (lib/model/vfdotf.c, from the conversion engine) and vftr-convert's
# OTF sink (lib/model/sink_otf.c, from any source) write their definitions
# and events through the same record writers (lib/model/otfout.h); this
# script holds them to it on runs that hold every kind of record those
# writers write: test/conv/mkvfd's rma (one-sided transfers), sampled (a
# sampled capture's marks), threads and skew (messages), and captures of
# test/mpi/mpi_coll under mpirun -np 3 (collectives, communicators, files),
# of test/capture/cap_counters with software counters and of
# test/omp/omp_count (OpenMP regions: source files and places), each when
# it can run here.  Per run:
#   - the reference otfprint reads the same records from `vfd2otf
#     --events-only` and from `vftr-convert -o x.otf`, but for what the two
#     are documented to differ in (sink_otf.c): the creator, vfd2otf's
#     comment and its BeginProcess / EndProcess records and where the
#     collective operations' definitions stand (compared as a set);
#   - both define the processes in one order (by rank, a rank's threads by
#     number: otfout.h), byte for byte the same DefProcess lines;
#   - vftr-convert of vfd2otf's trace writes, byte for byte, the files
#     vftr-convert writes from the .vfd run (the OTF reader and the .vfd
#     engine give the sink one model), plain, and compressed once inflated;
#   - the record kinds the run was made for are there (a comparison of two
#     empty traces proves nothing).
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
for v in $(env | sed -n 's/^\(VFTR_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
MK=$B/test/conv/mkvfd
V2O=$B/bin/vfd2otf
CV=$B/bin/vftr-convert
RUN=$B/bin/vftr-run
# a sanitized build: libomp (omp_count's runtime) is not (test/sanitizers.sh)
. "$(dirname "$0")/../sanitizers.sh"
san_env "$B/lib/libvftrcapture.so"

for f in "$MK" "$V2O" "$CV"; do
    [ -x "$f" ] || { bad "$f is not built"; exit 1; }
done
if ! command -v otfprint >/dev/null; then
    echo "SKIP: the OTF routes (no otfprint)"
    exit 0
fi

# norm TRACE: otfprint's records without their numbers and what the routes
# may differ in; the collective operations' definitions sorted, at the end
norm() {
    otfprint "$1" 2>/dev/null | sed -E 's/^\(#[0-9]+\)[[:space:]]*//' |
        grep -Ev 'DefCreator|DefComment|BeginProcess|EndProcess|^processing time' >"$1.print"
    grep -Ev 'DefCollective' "$1.print"
    grep -E 'DefCollective' "$1.print" | sort
}

# same_z A B: the files hold the same bytes, inflated when they end in .z
same_z() {
    case $1 in
        *.z) python3 -c 'import sys, zlib
a, b = (zlib.decompressobj().decompress(open(f, "rb").read()) for f in sys.argv[1:])
sys.exit(a != b)' "$1" "$2" 2>/dev/null ;;
        *) cmp -s "$1" "$2" ;;
    esac
}

# routes NAME DIR KIND...: both routes on the run in DIR; KIND: otfprint
# record names the run must hold
routes() {
    local name=$1 dir=$2 k miss=""
    shift 2
    mkdir -p "$T/$name.out"
    local o=$T/$name.out
    if ! "$V2O" -q --events-only -o "$o/a" "$dir" 2>"$o/err"; then
        bad "$name: vfd2otf: $(head -1 "$o/err")"
        return
    fi
    if ! "$CV" -q -o "$o/v.otf" "$dir" 2>"$o/err" ||
        ! "$CV" -q -o "$o/av.otf" "$o/a.otf" 2>>"$o/err" ||
        ! "$CV" -q --compress=3 -o "$o/vz.otf" "$dir" 2>>"$o/err" ||
        ! "$CV" -q --compress=3 -o "$o/avz.otf" "$o/a.otf" 2>>"$o/err"; then
        bad "$name: vftr-convert: $(head -1 "$o/err")"
        return
    fi
    norm "$o/a.otf" >"$o/a.n"
    norm "$o/v.otf" >"$o/v.n"
    # the process definitions as written, byte for byte
    if [ -s "$o/a.0.def" ] && grep -q '^DP[0-9a-f]' "$o/a.0.def" &&
        cmp -s <(grep '^DP[0-9a-f]' "$o/a.0.def") <(grep '^DP[0-9a-f]' "$o/v.0.def"); then
        pass "$name: vfd2otf and vftr-convert define the processes in one order, byte for byte ($(grep -c '^DP[0-9a-f]' "$o/a.0.def") DefProcess)"
    else
        bad "$name: DefProcess lines of vfd2otf (<) and vftr-convert (>) differ: $(diff <(grep '^DP[0-9a-f]' "$o/a.0.def") <(grep '^DP[0-9a-f]' "$o/v.0.def") | head -6 | tr '\n' ' ')"
    fi
    for k in "$@"; do
        grep -Eq "(^| )$k:" "$o/a.n" || miss="$miss $k"
    done
    if [ -n "$miss" ]; then
        bad "$name: the trace has no$miss records"
    elif [ "$(wc -l <"$o/a.n")" -lt 10 ]; then
        bad "$name: otfprint reads almost nothing: $(head -3 "$o/a.n" | tr '\n' ' ')"
    elif cmp -s "$o/a.n" "$o/v.n"; then
        pass "$name: vfd2otf and vftr-convert write the same records ($(grep -c . "$o/a.n") lines of otfprint)"
    else
        bad "$name: vfd2otf (<) and vftr-convert (>) differ: $(diff "$o/a.n" "$o/v.n" | head -6 | tr '\n' ' ')"
    fi
    local f diff=""
    for f in "$o"/v.*; do
        case $f in *.n|*.print) continue ;; esac
        cmp -s "$f" "$o/av.${f##*/v.}" || diff="$diff ${f##*/}"
    done
    # compressed: the same bytes once inflated (how zlib frames them
    # depends on how the OTF reader's threads hand the records over)
    for f in "$o"/vz.*; do
        case $f in *.n|*.print) continue ;; esac
        same_z "$f" "$o/avz.${f##*/vz.}" || diff="$diff ${f##*/}"
    done
    if [ -z "$diff" ]; then
        pass "$name: vftr-convert writes the same files from the .vfd run and from vfd2otf's trace"
    else
        bad "$name: vftr-convert from the .vfd run and from vfd2otf's trace: files differ:$diff"
    fi
}

for s in rma sampled threads skew; do
    mkdir -p "$T/$s"
    "$MK" $s "$T/$s" >/dev/null 2>&1 || { bad "mkvfd $s"; continue; }
done
routes rma "$T/rma" RMAPut RMAGet RMAEnd
routes sampled "$T/sampled" DefKeyValue
routes threads "$T/threads" Enter Leave
routes skew "$T/skew" SendMessage ReceiveMessage

# captures, where the programs were built and can run here
if [ -x "$RUN" ] && [ -x "$B/test/mpi/mpi_coll" ] && command -v mpirun >/dev/null; then
    d=$T/coll
    mkdir -p "$d"
    # Open MPI as test/mpi/common.sh sets it up in a container
    OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        timeout -s KILL 120 mpirun -np 3 --oversubscribe --bind-to none \
        "$RUN" --out "$d" -- "$B/test/mpi/mpi_coll" "$d" >"$d/.out" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
        routes mpi_coll "$d" BeginCollective EndCollective DefCollective DefProcessGroup \
            SendMessage DefFile BeginFileOperation
    else
        bad "mpi_coll: mpirun exit status $rc: $(tail -2 "$d/.out" | tr '\n' ' ')"
    fi
else
    echo "SKIP: mpi_coll's routes (no vftr-run, mpi_coll or mpirun)"
fi
if [ -x "$RUN" ] && [ -x "$B/test/capture/cap_counters" ]; then
    d=$T/counters
    mkdir -p "$d"
    printf '{ "counters": { "events": "task-clock,page-faults" } }\n' >"$T/counters.json"
    if timeout -s KILL 60 "$RUN" --out "$d" --config "$T/counters.json" -- \
        "$B/test/capture/cap_counters" 100 20 >"$d/.out" 2>&1; then
        routes counters "$d" DefCounter Counter
    else
        bad "cap_counters: vftr-run: $(tail -2 "$d/.out" | tr '\n' ' ')"
    fi
fi
if [ -x "$RUN" ] && [ -x "$B/test/omp/omp_count" ]; then
    d=$T/omp
    mkdir -p "$d"
    if OMP_NUM_THREADS=2 OMP_PROC_BIND=false timeout -s KILL 60 "$RUN" --out "$d" -- \
        "$B/test/omp/omp_count" 1 >"$d/.out" 2>&1; then
        routes openmp "$d" DefSclFile DefScl
    else
        bad "omp_count: vftr-run: $(tail -2 "$d/.out" | tr '\n' ' ')"
    fi
else
    echo "SKIP: OpenMP regions' routes (no omp_count: needs clang with omp.h)"
fi
exit $fail
