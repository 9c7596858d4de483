#!/bin/bash
# common.sh — helpers of test/integration/mpi_*.sh (here, not in
# test/integration/, so that the runner does not take it for a test).
#
# A test runs a program of test/mpi/ under `mpirun -np N ... vftr-run`; the
# program writes what it did to DIR/expect_<rank>.txt (mpitest.h) and the
# scripts compare that with what $BUILD/test/mpi/vfdmpi reads from the
# rank's .vfd: messages (peer, tag, bytes, flags), collectives, one .vfd per
# rank, equal run ids, every send matched by one receive.
#
# Environment: BUILD (default build); MPI_KEEP=1 keeps the scratch directory.

set -u
export LC_ALL=C
: "${BUILD:=build}"
mpi_build=$BUILD
[ -d "$BUILD" ] && mpi_build=$(cd "$BUILD" && pwd)
MPIDIR=$mpi_build/test/mpi
VFTR_RUN=$mpi_build/bin/vftr-run
VFDMPI=$MPIDIR/vfdmpi
GEN_LIST=$mpi_build/gen/capture/mpi/wrappers.txt

mpi_failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; mpi_failures=$((mpi_failures + 1)); }
skip() { echo "SKIP: $1 ($2)"; }
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}
show() { sed -n '1,15s/^/    /p' "$@"; }
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/check_traces.sh"
finish() {
    check_traces "$mpi_tmp" "$BUILD/bin/vftr-dump"
    exit $((mpi_failures > 0))
}

for v in $(env | sed -n 's/^\(VFTR_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# Open MPI quietly in a container: shared memory and self only, no CMA
# (ptrace is often forbidden), root allowed, more ranks than cores.
export OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# One-sided communication through the shared-memory and point-to-point
# components: Open MPI 4.1's UCX one fails window creation now and then
# here (MPI_ERR_WIN, with or without vftr).
export OMPI_MCA_osc=sm,pt2pt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A sanitized capture library: Open MPI's own leaks are not ours.
# UBSan stops the program at its first finding; basics() also looks for
# sanitizer reports in every run's stderr.
case $(ldd "$mpi_build/lib/libvftrcapture.so" 2>/dev/null) in
    *libasan*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
               export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1" ;;
    *libtsan*) export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tsan.supp" ;;
esac
# san_io_rows CSV: vftr-stats --io --csv rows without the shared objects
# TSan's symbolizer reads (through the program's interposed open, which
# capture cannot tell from the program's own).  Without TSan: the rows.
san_io_rows() {
    case $(ldd "$mpi_build/lib/libvftrcapture.so" 2>/dev/null) in
        *libtsan*) awk -F, '$2 !~ /\.so(\.[0-9]+)*$/' "$1" ;;
        *) cat "$1" ;;
    esac
}

if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$MPIDIR/mpi_p2p" ]; then
    skip "MPI tests" "no mpirun or the MPI test programs are not built (make needs mpicc)"
    exit 0
fi
for f in "$VFTR_RUN" "$VFDMPI"; do
    [ -x "$f" ] || { fail "$f is not built (make check builds it)"; exit 1; }
done

mpi_tmp=$(mktemp -d "${TMPDIR:-/tmp}/vftr_mpi.XXXXXX")
trap '[ "${MPI_KEEP:-0}" = 1 ] && echo "kept: $mpi_tmp" || rm -rf "$mpi_tmp"' EXIT

# mrun NP DIR PROG [ARGS]: PROG DIR ARGS under vftr-run on NP ranks, output
# in DIR; stdout, stderr and status in DIR/.stdout, .stderr, .rc.
mrun() {
    local np=$1 dir=$2 prog=$3; shift 3
    mkdir -p "$dir"
    timeout -s KILL 120 mpirun -np "$np" --oversubscribe --bind-to none \
        "$VFTR_RUN" --out "$dir" -- "$prog" "$dir" "$@" >"$dir/.stdout" 2>"$dir/.stderr"
    echo $? >"$dir/.rc"
}

# mread DIR NP: vfdmpi on every rank's file into DIR/.got_<rank>
mread() {
    local dir=$1 np=$2 base=$3 r
    for ((r = 0; r < np; r++)); do
        "$VFDMPI" --root "$dir/${base}_0.vfd" "$dir/${base}_$r.vfd" >"$dir/.got_$r" 2>"$dir/.goterr_$r" \
            || fail "vfdmpi cannot read ${base}_$r.vfd: $(head -1 "$dir/.goterr_$r")"
    done
}

# gkey DIR RANK KEY: value of a "key value" line of vfdmpi's output
gkey() { awk -v k="$3" '$1 == k { print $2 }' "$1/.got_$2"; }

# basics WHAT DIR NP BASE: the run ended well, one .vfd per rank named by
# rank, complete, with the rank and size in the header, equal run ids, a
# RUN_ID chunk, nothing malformed.
basics() {
    local what=$1 dir=$2 np=$3 base=$4 r ids
    check "$what: mpirun exit status" 0 "$(cat "$dir/.rc")"
    [ "$(cat "$dir/.rc")" = 0 ] || show "$dir/.stderr"
    if grep -qE 'ERROR: (Address|Leak|Undefined)Sanitizer|WARNING: ThreadSanitizer|runtime error: ' \
        "$dir/.stderr"; then
        fail "$what: sanitizer report"
        grep -E -A12 'Sanitizer|runtime error: ' "$dir/.stderr" | show
    fi
    check "$what: one .vfd per rank" "$np" "$(find "$dir" -maxdepth 1 -name '*.vfd' | wc -l)"
    for ((r = 0; r < np; r++)); do
        [ -f "$dir/${base}_$r.vfd" ] || fail "$what: no ${base}_$r.vfd"
    done
    mread "$dir" "$np" "$base"
    for ((r = 0; r < np; r++)); do
        check "$what: rank $r header rank" "$r" "$(gkey "$dir" $r rank)"
        check "$what: rank $r header size" "$np" "$(gkey "$dir" $r size)"
        check "$what: rank $r complete" 1 "$(gkey "$dir" $r complete)"
        check "$what: rank $r malformed records" 0 "$(gkey "$dir" $r bad)"
        check "$what: rank $r RUN_ID chunk" 1 "$(gkey "$dir" $r runid_chunks)"
    done
    ids=$(for ((r = 0; r < np; r++)); do gkey "$dir" $r run_id; done | sort -u | wc -l)
    check "$what: one run id on all ranks" 1 "$ids"
}

# messages WHAT DIR NP: per rank, the sorted messages and collectives of
# the .vfd equal the program's own list.
messages() {
    local what=$1 dir=$2 np=$3 r
    for ((r = 0; r < np; r++)); do
        awk '$1 == "send" || $1 == "recv" { print $1, $2, $3, $4, $6 }
             $1 == "coll" { print $1, $2, $4, $5, $6, $7 }' "$dir/.got_$r" | sort >"$dir/.gotm_$r"
        sort "$dir/expect_$r.txt" >"$dir/.want_$r"
        if [ ! -s "$dir/.want_$r" ]; then
            fail "$what: rank $r wrote no expectations (the program did not finish)"
        elif cmp -s "$dir/.want_$r" "$dir/.gotm_$r"; then
            pass "$what: rank $r records exactly its $(wc -l <"$dir/.want_$r") messages and collectives"
        else
            fail "$what: rank $r records differ from the program's (< program, > .vfd)"
            diff "$dir/.want_$r" "$dir/.gotm_$r" | show
        fi
    done
}

# matching WHAT DIR NP: every send (src dst tag bytes comm) matches one
# receive (its multiset equals the receives'), and every communicator id
# a record uses is defined in that rank's MPI_COMMS with the rank in it.
matching() {
    local what=$1 dir=$2 np=$3 r
    for ((r = 0; r < np; r++)); do
        awk -v r=$r '$1 == "send" { print r, $2, $3, $4, $5 }' "$dir/.got_$r"
    done | sort >"$dir/.sends"
    for ((r = 0; r < np; r++)); do
        awk -v r=$r '$1 == "recv" { print $2, r, $3, $4, $5 }' "$dir/.got_$r"
    done | sort >"$dir/.recvs"
    if [ -s "$dir/.sends" ] && cmp -s "$dir/.sends" "$dir/.recvs"; then
        pass "$what: each of $(wc -l <"$dir/.sends") sends matches one receive (peer, tag, bytes, communicator)"
    else
        fail "$what: sends and receives do not match (< sends, > receives)"
        diff "$dir/.sends" "$dir/.recvs" | show
    fi
    local undefined=0
    for ((r = 0; r < np; r++)); do
        undefined=$((undefined + $(awk -v r=$r '
            $1 == "comm" { n = split($4, m, ","); for (i = 1; i <= n; i++) if (m[i] == r) ok[$2] = 1 }
            $1 == "send" || $1 == "recv" { used[$5] = 1 }
            $1 == "coll" { used[$3] = 1 }
            END { for (c in used) if (!(c in ok)) bad++; print bad + 0 }' "$dir/.got_$r")))
    done
    check "$what: every communicator used is defined with its members" 0 "$undefined"
}

# tsv LOG TITLE: the table of a vftr log whose title line starts with TITLE
# (the first such): its header, then its rows, cells separated by tabs.
# Columns are two blanks apart in a log and no cell holds two blanks.
tsv() {
    awk -v t="$2" '
        function out(s) { sub(/^ +/, "", s); gsub(/  +/, "\t", s); print s }
        !on && index($0, t) == 1 { on = 1; next }
        on == 1 && /^-/ { on = 2; out(hdr); next }
        on == 1 && NF { hdr = $0; next }
        on == 2 && !NF { exit }
        on == 2 { out($0) }' "$1"
}

# tsum COLUMN [FILTER-COLUMN VALUE]: sum of COLUMN over the rows of a tsv
# table on stdin (those whose FILTER-COLUMN is VALUE)
tsum() {
    awk -F'\t' -v c="$1" -v fc="${2:-}" -v fv="${3:-}" '
        NR == 1 { for (i = 1; i <= NF; i++) if (!($i in col)) col[$i] = i; next }
        fc == "" || $col[fc] == fv { s += $col[c] }
        END { printf "%.0f\n", s }'
}

