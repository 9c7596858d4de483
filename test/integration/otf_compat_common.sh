#!/bin/bash
# otf_compat_common.sh — helpers shared by the otf_compat_*.sh scripts, and
# (when run directly) a check of those helpers against the reference alone.
#
# The compat scripts run the programs of test/compat/ built twice by the
# Makefile: against the reference OTF ($BUILD/test/compat/ref/) and against
# vftr ($BUILD/test/compat/vftr/).  Environment:
#   BUILD                  build directory (default build)
#   COMPAT_REF_DIR         override the directory of the reference programs
#   COMPAT_VFTR_DIR        override the directory of the vftr programs
#   VFTR_COMPAT_SELFTEST=1 use the reference programs for both sides (to test
#                          the scripts themselves before libvftrotf exists)
#   COMPAT_KEEP=1          keep the scratch directory (its path is printed)
#
# Run directly, this file checks that expect_counts (the record counts the
# scripts demand, computed from the layout of otf_write_all, see
# test/compat/compat_layout.h) agrees with what the reference reads; that
# needs no vftr build.

set -u
export LC_ALL=C
: "${BUILD:=build}"

compat_failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; compat_failures=$((compat_failures + 1)); }
# Shows the head of a diff (or any text) indented under a FAIL line.
show() { sed -n '1,12s/^/    /p'; }

REF_DIR=${COMPAT_REF_DIR:-$BUILD/test/compat/ref}
VFTR_DIR=${COMPAT_VFTR_DIR:-$BUILD/test/compat/vftr}
if [ "${VFTR_COMPAT_SELFTEST:-0}" = 1 ]; then
    VFTR_DIR=$REF_DIR
fi

# compat_setup SCRIPTNAME PROGRAM... — scratch directory and the programs of
# both sides.  Exits (after a FAIL line) when a build is missing: nothing is
# skipped silently.
compat_setup() {
    local name=$1 prog missing_ref="" missing_vftr=""
    shift
    for prog in "$@"; do
        [ -x "$REF_DIR/$prog" ] || missing_ref="$missing_ref $prog"
        [ -x "$VFTR_DIR/$prog" ] || missing_vftr="$missing_vftr $prog"
    done
    if [ -n "$missing_ref" ]; then
        fail "$name (reference build missing:$missing_ref in $REF_DIR; run make check)"
        exit 1
    fi
    if [ -n "$missing_vftr" ]; then
        fail "$name (vftr build missing:$missing_vftr in $VFTR_DIR)"
        exit 1
    fi
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX") || exit 1
    if [ "${COMPAT_KEEP:-0}" = 1 ]; then
        echo "# scratch directory: $TMP"
    else
        trap 'rm -rf "$TMP"' EXIT
    fi
}

compat_finish() {
    [ "$compat_failures" -eq 0 ]
    exit $?
}

# --- traces -------------------------------------------------------------------

# write_trace SIDE DIR ARGS... — runs SIDE/otf_write_all ARGS DIR/t, keeps its
# log in DIR/log.  Returns the writer's exit status.
write_trace() {
    local side=$1 dir=$2
    shift 2
    mkdir -p "$dir"
    "$side/otf_write_all" "$@" "$dir/t" >"$dir/log" 2>"$dir/err"
}

# The unique id differs on every run; replace its value wherever it appears
# in a .def file (the automatic header line and OTF_WStream_writeUniqueId).
mask_def() {
    sed -E -e 's/^DUI[0-9a-f]+$/DUI<uid>/' -e 's/^DEFUNIQUEID [0-9a-f]+$/DEFUNIQUEID <uid>/' "$1"
}

# same_trace_files DIR_A DIR_B — 0 if both hold the same trace files (t.*)
# with the same bytes (the unique id masked); otherwise prints what differs.
same_trace_files() {
    local a=$1 b=$2 f rc=0
    # Every trace of these scripts has the stub "t".
    (cd "$a" && find . -maxdepth 1 -type f -name 't.*' -printf '%f\n' | sort) >"$TMP/files.a"
    (cd "$b" && find . -maxdepth 1 -type f -name 't.*' -printf '%f\n' | sort) >"$TMP/files.b"
    if ! cmp -s "$TMP/files.a" "$TMP/files.b"; then
        echo "different sets of files (< reference, > vftr):"
        diff "$TMP/files.a" "$TMP/files.b" | grep '^[<>]'
        rc=1
    fi
    while IFS= read -r f; do
        [ -e "$b/$f" ] || continue
        case "$f" in
        *.def) cmp -s <(mask_def "$a/$f") <(mask_def "$b/$f") ;;
        *) cmp -s "$a/$f" "$b/$f" ;;
        esac || {
            echo "$f differs:"
            case "$f" in
            *.z) cmp "$a/$f" "$b/$f" 2>&1 | head -n 1 ;;
            *.def) diff <(mask_def "$a/$f") <(mask_def "$b/$f") | head -n 6 ;;
            *) diff "$a/$f" "$b/$f" | head -n 6 ;;
            esac
            rc=1
        }
    done <"$TMP/files.a"
    return $rc
}

# --- dumps --------------------------------------------------------------------

# read_dump SIDE TRACE OUT ARGS... — SIDE/otf_read_all ARGS TRACE > OUT;
# stderr goes to OUT.err.  Returns the reader's exit status.
read_dump() {
    local side=$1 trace=$2 out=$3
    shift 3
    "$side/otf_read_all" "$@" "$trace" >"$out" 2>"$out.err"
}

# The unique id of two different writer runs differs: mask it in dumps that
# come from different traces.
mask_dump() {
    sed -E 's/^(DefUniqueId stream=[0-9]+ uid=)[0-9]+/\1<uid>/' "$1"
}

# Both readers may differ where the reference is wrong: it parses the 64-bit
# handle of FileOperation and OpenFileSnapshot with a 32-bit reader.
mask_handle() {
    sed -E '/^(FileOperation|OpenFileSnapshot) /s/ handleid=[0-9]+//'
}

# same_dump A B WHAT — compares two dumps (uid masked).  They must be equal
# line for line, records of different streams with equal time stamps and the
# progress lines included (vftr's reader merges streams in the reference's
# order), up to the reference's 32-bit handles (mask_handle); the PASS line
# says when that allowance was used.  On a difference prints a FAIL line with
# the first differing lines.
same_dump() {
    local a=$1 b=$2 what=$3
    note=
    if cmp -s <(mask_dump "$a") <(mask_dump "$b"); then
        return 0
    fi
    if cmp -s <(mask_dump "$a" | mask_handle) <(mask_dump "$b" | mask_handle); then
        note="64-bit handles the reference truncates to 32 bits"
        return 0
    fi
    if cmp -s <(mask_dump "$a" | sort) <(mask_dump "$b" | sort); then
        fail "$what (same records, in another order)"
    else
        fail "$what"
    fi
    diff <(mask_dump "$a") <(mask_dump "$b") | show
    return 1
}

# cross_read TRACE_ID EXPECT READER_ARGS... — one read configuration on trace
# TRACE_ID (written to $TMP/TRACE_ID/{ref,vftr}, see make_trace).  EXPECT is
# an option list for expect_counts, or @FILE with the expected count lines.
# The baseline is the reference reader on the reference's trace: its counts
# must be the expected ones; the vftr reader on the reference's trace must
# print the same bytes, and both readers on vftr's trace the same records
# (unique id masked).
n_read=0
cross_read() {
    local id=$1 opts=$2 what r side
    shift 2
    n_read=$((n_read + 1))
    what="$id: otf_read_all ${*:-(all)}"
    local d=$TMP/read$n_read
    mkdir -p "$d"
    for r in ref vftr; do
        for side in ref vftr; do
            local dir=$REF_DIR
            [ $r = vftr ] && dir=$VFTR_DIR
            read_dump "$dir" "$TMP/$id/$side/t" "$d/$r-on-$side" "$@"
            echo $? >"$d/$r-on-$side.rc"
        done
    done
    if [ "$(cat "$d/ref-on-ref.rc")" != 0 ]; then
        fail "$what: the reference reader failed on the reference's trace (test bug?)"
        show <"$d/ref-on-ref.err"
        return
    fi
    if [ "${opts#@}" != "$opts" ]; then
        check_expected "$d/ref-on-ref" "$what: reference on reference" "${opts#@}" || return
    else
        # shellcheck disable=SC2086  # $opts is an option list
        check_counts "$d/ref-on-ref" "$what: reference on reference" $opts || return
    fi
    for pair in vftr-on-ref ref-on-vftr vftr-on-vftr; do
        local reader=${pair%%-on-*} trace=${pair##*-on-}
        local label="$what: $reader reader on $trace trace equals the reference"
        if [ "$(cat "$d/$pair.rc")" != 0 ]; then
            fail "$label (exit $(cat "$d/$pair.rc"))"
            show <"$d/$pair.err"
            continue
        fi
        if [ $pair = vftr-on-ref ]; then
            # Same trace: the dumps must agree byte for byte, unique id included.
            if cmp -s "$d/ref-on-ref" "$d/$pair"; then
                pass "$label"
            else
                if same_dump "$d/ref-on-ref" "$d/$pair" "$label"; then
                    if [ -n "$note" ]; then pass "$label ($note)"; else fail "$label (unique id differs)"; fi
                fi
            fi
        elif same_dump "$d/ref-on-ref" "$d/$pair" "$label"; then
            pass "$label${note:+ ($note)}"
        fi
    done
}

# make_trace ID WRITER_ARGS... — the same trace from both builds of
# otf_write_all (or of $WRITER if set).
make_trace() {
    local id=$1 prog=${WRITER:-otf_write_all}
    shift
    mkdir -p "$TMP/$id/ref" "$TMP/$id/vftr"
    "$REF_DIR/$prog" "$@" "$TMP/$id/ref/t" >"$TMP/$id/ref/log" 2>"$TMP/$id/ref/err" ||
        { fail "$id: reference $prog failed ($*)"; return 1; }
    "$VFTR_DIR/$prog" "$@" "$TMP/$id/vftr/t" >"$TMP/$id/vftr/log" 2>"$TMP/$id/vftr/err" ||
        { fail "$id: vftr's $prog failed ($*)"; return 1; }
}

# --- expected record counts ---------------------------------------------------
# These numbers repeat test/compat/compat_layout.h and otf_write_all.c.

NPROCS=6
VICTIM=64
T0=4096
SLOT=16
ROUND=512
EV_KINDS=(Enter SendMsg RecvMsg Counter CollectiveOperation BeginCollectiveOperation
          EndCollectiveOperation EventComment FileOperation BeginFileOperation
          EndFileOperation RMAPut RMAPutRemoteEnd RMAGet RMAEnd NoOp Leave)
SN_KINDS=(SnapshotComment EnterSnapshot SendSnapshot OpenFileSnapshot BeginCollopSnapshot
          BeginFileOpSnapshot CollopCountSnapshot CounterSnapshot)
ST_KINDS=(SummaryComment FunctionSummary FunctionGroupSummary MessageSummary CollopSummary
          FileOperationSummary FileGroupOperationSummary)
# Definition records written by one call of write_defs() (one variant, one
# stream); DefMarker belongs to the marker files.
DEFS_PER_CALL="DefinitionComment:1 DefTimerResolution:1 DefProcess:3 DefProcessGroup:2
  DefAttributeList:2 DefProcessOrGroupAttributes:1 DefFunction:2 DefFunctionGroup:1
  DefCollectiveOperation:1 DefCounter:2 DefCounterGroup:1 DefScl:1 DefSclFile:1 DefCreator:1
  DefFile:1 DefFileGroup:1 DefKeyValue:1 DefTimeRange:1 DefCounterAssignments:2
  DefProcessSubstitutes:1 DefAuxSamplePoint:1"
# write_main_defs(): creator, timer, NPROCS processes (+ the victim), the
# world group, 14 keys, one function group, 5 functions; plus on stream 0
# the automatic DV/DUI header, OTF_WStream_writeOtfVersion and
# OTF_WStream_writeUniqueId, and the two final comments.
MAIN_DEFS="DefCreator:1 DefTimerResolution:1 DefProcess:$NPROCS DefProcessGroup:1 DefKeyValue:14
  DefFunctionGroup:1 DefFunction:5 DefVersion:2 DefUniqueId:2 DefinitionComment:2"

# in_window T — 0 if time T lies in the window [WMIN, WMAX).
in_window() { [ "$1" -ge "$WMIN" ] && [ "$1" -lt "$WMAX" ]; }

# grid_count OFF — sets CNT to the number of rounds r in [0, ROUNDS) with
# OFF + r*ROUND in [WMIN, WMAX).  (No command substitution: it runs a few
# hundred times per expectation.)
grid_count() {
    local off=$1 x lo hi
    x=$((WMIN - off))
    if [ $x -le 0 ]; then lo=$(( -((-x) / ROUND) )); else lo=$(( (x + ROUND - 1) / ROUND )); fi
    x=$((WMAX - off))
    if [ $x -le 0 ]; then hi=$(( -((-x) / ROUND) )); else hi=$(( (x + ROUND - 1) / ROUND )); fi
    [ $lo -lt 0 ] && lo=0
    [ $hi -gt "$ROUNDS" ] && hi=$ROUNDS
    CNT=$((hi > lo ? hi - lo : 0))
}

# expect_counts OPTIONS — prints the "count NAME N" lines (sorted) and the
# "total N" line that otf_read_all must print for a trace written by
# otf_write_all.  OPTIONS (all optional):
#   n=ROUNDS s=STREAMS victim=0|1   how the trace was written (-n, -s, -x)
#   parts=defs,events,snaps,stats,markers
#   window=A:B  disable=P,P  rstream=ID
expect_counts() {
    local n=4 s=2 victim=1 parts="defs,events,snaps,stats,markers" window="" disable=""
    local rstream="" kv k p i t nstreams procs victim_in=0 calls0=0 calls1=0 name s1_on=0
    local -A C=()
    for kv in "$@"; do
        case "$kv" in
        n=*) n=${kv#n=} ;; s=*) s=${kv#s=} ;; victim=*) victim=${kv#victim=} ;;
        parts=*) parts=${kv#parts=} ;; window=*) window=${kv#window=} ;;
        disable=*) disable=${kv#disable=} ;; rstream=*) rstream=${kv#rstream=} ;;
        *) echo "expect_counts: bad option $kv" >&2; return 2 ;;
        esac
    done
    parts=" ${parts//,/ } "
    ROUNDS=$n
    WMIN=0
    WMAX=9223372036854775807
    if [ -n "$window" ]; then WMIN=${window%%:*}; WMAX=${window#*:}; fi
    nstreams=$((s < NPROCS ? s : NPROCS))

    # Processes whose timed records are read.
    # s1_on: OTF_Reader reads the local definitions and markers of a stream
    # only if one of its processes is enabled (stream 1 has some of both).
    procs=""
    for ((p = 1; p <= NPROCS; p++)); do
        if [ -n "$rstream" ]; then
            [ $(((p - 1) % nstreams + 1)) -eq "$rstream" ] && procs="$procs $p"
        elif [[ ",$disable," != *",$p,"* ]]; then
            procs="$procs $p"
            [ $(((p - 1) % nstreams)) -eq 0 ] && s1_on=1
        fi
    done
    if [ "$victim" = 1 ]; then
        if [ -n "$rstream" ]; then
            [ "$rstream" -eq $((nstreams + 1)) ] && victim_in=1
        elif [[ ",$disable," != *",$VICTIM,"* ]]; then
            victim_in=1
        fi
    fi

    if [[ "$parts" == *" defs "* ]]; then
        # write_defs runs for 4 variants on stream 0 and on stream 1.
        case "$rstream" in
        "") calls0=4; calls1=$((4 * s1_on)) ;;
        0) calls0=4 ;;
        1) calls1=4 ;;
        esac
        if [ "$calls0" -gt 0 ]; then
            for kv in $MAIN_DEFS; do C[${kv%:*}]=$(( ${C[${kv%:*}]:-0} + ${kv#*:} )); done
            [ "$victim" = 1 ] && C[DefProcess]=$((C[DefProcess] + 1))
        fi
        for kv in $DEFS_PER_CALL; do
            C[${kv%:*}]=$(( ${C[${kv%:*}]:-0} + ${kv#*:} * (calls0 + calls1) ))
        done
    fi
    if [[ "$parts" == *" markers "* ]]; then
        # DefMarker: 4 variants x 2 streams; the WStream variants of stream 1
        # go to STUB.1.marker.  Markers are not filtered by time or process.
        case "$rstream" in
        "") C[DefMarker]=$((6 + 2 * s1_on)); C[Marker]=$((n * NPROCS)) ;;
        0) C[DefMarker]=6; C[Marker]=$((n * NPROCS)) ;;
        1) C[DefMarker]=2 ;;
        esac
    fi
    if [[ "$parts" == *" events "* ]]; then
        for p in $procs; do
            if in_window 0; then
                C[BeginProcess]=$(( ${C[BeginProcess]:-0} + 1 ))
                C[Enter]=$(( ${C[Enter]:-0} + 1 ))
            fi
            for ((k = 0; k < ${#EV_KINDS[@]}; k++)); do
                name=${EV_KINDS[k]}
                grid_count $((T0 + k * SLOT + (p - 1) / 2))
                C[$name]=$(( ${C[$name]:-0} + CNT ))
            done
            t=$((T0 + n * ROUND + (p - 1) / 2))
            if in_window $t; then
                C[Leave]=$(( ${C[Leave]:-0} + 1 ))
                C[EndProcess]=$(( ${C[EndProcess]:-0} + 1 ))
            fi
        done
        if [ $victim_in = 1 ]; then
            in_window $T0 && C[Enter]=$(( ${C[Enter]:-0} + 1 ))
            if in_window $((T0 + 256)); then
                C[Enter]=$(( ${C[Enter]:-0} + 1 ))
                C[EventComment]=$(( ${C[EventComment]:-0} + 1 ))
            fi
        fi
    fi
    for i in snaps stats; do
        [[ "$parts" == *" $i "* ]] || continue
        local kinds=()
        if [ $i = snaps ]; then kinds=("${SN_KINDS[@]}"); else kinds=("${ST_KINDS[@]}"); fi
        for p in $procs; do
            for ((k = 0; k < ${#kinds[@]}; k++)); do
                name=${kinds[k]}
                grid_count $((T0 + k * SLOT + (p - 1) / 2))
                C[$name]=$(( ${C[$name]:-0} + CNT ))
            done
        done
    done

    for name in "${!C[@]}"; do
        [ "${C[$name]}" -gt 0 ] && echo "count $name ${C[$name]}"
    done | sort
    t=0
    for name in "${!C[@]}"; do t=$((t + C[$name])); done
    echo "total $t"
}

# dump_counts DUMP — the count lines of a dump, in the order of expect_counts.
dump_counts() {
    grep '^count ' "$1" | sort
    grep '^total ' "$1"
}

# check_counts DUMP WHAT OPTIONS... — PASS/FAIL: the dump's counts are the
# ones expect_counts computes for OPTIONS, and the total is not zero (an
# empty read must never pass).
check_counts() {
    local dump=$1 what=$2
    shift 2
    expect_counts "$@" >"$TMP/expected.counts" || { fail "$what: bad expectation"; return 1; }
    check_expected "$dump" "$what" "$TMP/expected.counts"
}

# check_expected DUMP WHAT FILE — like check_counts, with the expected
# "count NAME N" lines (any order, "total" optional) given in FILE.
check_expected() {
    local dump=$1 what=$2 file=$3 t
    grep '^count ' "$file" | sort >"$TMP/expected.sorted"
    t=$(awk '{ t += $3 } END { print t + 0 }' "$TMP/expected.sorted")
    echo "total $t" >>"$TMP/expected.sorted"
    dump_counts "$dump" >"$TMP/actual.counts"
    if [ "$t" -eq 0 ]; then
        fail "$what: test bug, expected no records at all"
        return 1
    fi
    if cmp -s "$TMP/expected.sorted" "$TMP/actual.counts"; then
        pass "$what: $t records as expected"
        return 0
    fi
    fail "$what: record counts (< expected, > read)"
    diff "$TMP/expected.sorted" "$TMP/actual.counts" | grep '^[<>]' | show
    return 1
}

# --- self-check (run directly) ------------------------------------------------
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    VFTR_DIR=$REF_DIR
    compat_setup otf_compat_common otf_write_all otf_read_all
    end=$((T0 + 5 * ROUND))
    write_trace "$REF_DIR" "$TMP/v" -n 5 -s 2 || fail "reference writer failed (-n 5 -s 2)"
    write_trace "$REF_DIR" "$TMP/x" -x -n 5 -s 4 || fail "reference writer failed (-x -n 5 -s 4)"
    i=0
    while IFS='|' read -r trace opts args; do
        i=$((i + 1))
        # shellcheck disable=SC2086  # option lists are split on purpose
        if read_dump "$REF_DIR" "$TMP/$trace/t" "$TMP/d$i" $args; then
            # shellcheck disable=SC2086
            check_counts "$TMP/d$i" "expected counts match the reference: $trace ${args:-(all)}" $opts
        else
            fail "reference reader failed: $trace $args"
            show <"$TMP/d$i.err"
        fi
    done <<EOF
v|n=5 s=2|
v|n=5 s=2 disable=1,64|--disable 1,64
v|n=5 s=2 parts=defs rstream=0|--rstream 0 --defs
v|n=5 s=2 parts=defs,markers rstream=0|--rstream 0 --defs --markers
v|n=5 s=2 rstream=1|--rstream 1
v|n=5 s=2 parts=events,snaps,stats rstream=2|--rstream 2 --events --snaps --stats
v|n=5 s=2 parts=events rstream=3|--rstream 3 --events
x|n=5 s=4 victim=0|
x|n=5 s=4 victim=0 window=$((T0 + ROUND)):$((T0 + 3 * ROUND))|--window $((T0 + ROUND)):$((T0 + 3 * ROUND))
x|n=5 s=4 victim=0 window=4200:4300|--window 4200:4300
x|n=5 s=4 victim=0 window=0:1|--window 0:1
x|n=5 s=4 victim=0 window=$((end - 1)):$((end + 2))|--window $((end - 1)):$((end + 2))
x|n=5 s=4 victim=0 window=4097:$end disable=2,3|--window 4097:$end --disable 2,3
x|n=5 s=4 victim=0 parts=markers window=0:1|--markers --window 0:1
EOF
    compat_finish
fi
