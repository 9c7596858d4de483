#!/bin/bash
# bench/run.sh — runs the OTF benchmark (bench/otfbench.c) built against the
# reference OTF and against vftr, on the same generated trace, and prints one
# table: metric, reference, vftr, vftr/reference, target, PASS/MISS.  The
# table also goes to $BUILD/bench/results.md.  `make bench` builds the two
# binaries and calls this script; it builds nothing itself.
#
# Environment:
#   BUILD              build directory (default build)
#   BENCH_EVENTS       events per trace (default 10000000); memory is also
#                      measured at BENCH_EVENTS/10
#   BENCH_REPEAT       runs of each timed phase, the best counts (default 3)
#   BENCH_WINDOW_FRAC  window at the end of the time span (default 0.001)
#   BENCH_SELFTEST=1   use the reference binary for both columns (to check
#                      this script while libvftrotf is not there)
#   BENCH_DIR          where the traces go (default $BUILD/bench/traces)
#   BENCH_KEEP=1       keep the traces afterwards (default: removed)
#
# Exit status: 0 when every phase ran and all readers agree with the writer
# and with each other (a MISS does not change it); 1 when a phase failed to
# run or counts/checksums disagree; 2 on a usage problem.
set -u

BUILD=${BUILD:-build}
N=${BENCH_EVENTS:-10000000}
REPEAT=${BENCH_REPEAT:-3}
FRAC=${BENCH_WINDOW_FRAC:-0.001}
SELFTEST=${BENCH_SELFTEST:-0}
DIR=${BENCH_DIR:-$BUILD/bench/traces}
LEVEL=4          # the compression level most OTF tools use
REF=$BUILD/bench/ref/otfbench
VFTR=$BUILD/bench/vftr/otfbench
RESULTS=$BUILD/bench/results.md
LOG=$DIR/logs

die() { echo "bench: $*" >&2; exit 2; }

case "$N" in ''|*[!0-9]*) die "BENCH_EVENTS must be a number, not '$N'" ;; esac
case "$REPEAT" in ''|*[!0-9]*|0) die "BENCH_REPEAT must be a positive number" ;; esac
[ "$N" -ge 100 ] || die "BENCH_EVENTS must be at least 100"
NS=$((N / 10))

[ "$SELFTEST" = 1 ] && VFTR=$REF
[ -x "$REF" ] || die "$REF missing (run 'make bench')"
[ -x "$VFTR" ] || die "$VFTR missing (run 'make bench')"

mkdir -p "$DIR" "$LOG" "$(dirname "$RESULTS")" || die "cannot create $DIR"
rm -f -- "$LOG"/*.out "$LOG"/*.err

declare -A V          # V[phase:key] = value printed by otfbench
FAILURES=()           # phases that failed to run, or disagreements
EXPECTED=()           # phases where the reference failed on a compressed trace
EXPECTED_MSG=
REMARKS=()            # other remarks for the notes under the table

say() { printf '%s\n' "$*"; }

# Reads the key=value output of one otfbench run into V[phase:*].
load() {
    local phase=$1 file=$2 k v
    while IFS='=' read -r k v; do
        [ -n "$k" ] && V[$phase:$k]=$v
    done <"$file"
}

# attempt PHASE ALLOWED_FAIL CLEAN_STUB BETTER KEY CMD...
#   Runs CMD once and keeps its output in V[PHASE:*] if its KEY is the best so
#   far (BETTER = max or min); V[PHASE:maxrss_kib] is the largest of all runs.
#   CLEAN_STUB, if not empty, names a trace whose files are removed first
#   (writers).  A run that fails marks the phase failed and later attempts of
#   it are skipped; ALLOWED_FAIL=1 makes that a remark instead of a failure
#   (the reference cannot read some compressed traces on this system).
#   Timed phases of the two libraries are attempted in turn (ref, vftr, ref,
#   ...), so that a burst of load on the machine hits both columns alike.
attempt() {
    local phase=$1 allowed=$2 clean=$3 better=$4 key=$5
    shift 5
    [ "${V[$phase:status]:-}" = failed ] && return 1
    local i=$(( ${V[$phase:runs]:-0} + 1 ))
    local out=$LOG/$phase.$i.out err=$LOG/$phase.$i.err v rss rc
    V[$phase:runs]=$i
    [ -n "$clean" ] && rm -f -- "$clean".*
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        local msg
        msg=$(tail -n 1 "$err" | sed 's/^otfbench: //')
        V[$phase:status]=failed
        V[$phase:error]=${msg:-exit status $rc}
        if [ "$allowed" = 1 ]; then
            EXPECTED+=("$phase")
            EXPECTED_MSG=${V[$phase:error]}
        else
            FAILURES+=("$phase: ${V[$phase:error]}")
        fi
        say "  $phase: FAILED: ${V[$phase:error]}"
        return 1
    fi
    v=$(sed -n "s/^$key=//p" "$out")
    rss=$(sed -n 's/^maxrss_kib=//p' "$out")
    local maxrss=${V[$phase:maxrss_kib]:-0}
    [ "${rss:-0}" -gt "$maxrss" ] && maxrss=$rss
    if [ "${V[$phase:status]:-}" != ok ] ||
       awk -v a="$v" -v b="${V[$phase:$key]}" -v m="$better" \
           'BEGIN { exit !((m == "max") ? (a > b) : (a < b)) }'; then
        load "$phase" "$out"
    fi
    V[$phase:maxrss_kib]=$maxrss
    V[$phase:status]=ok
    return 0
}

# show KEY PHASE...: one progress line per phase that ran.
show() {
    local key=$1 p
    shift
    for p in "$@"; do
        ok "$p" && say "  $p: $key=${V[$p:$key]} (best of ${V[$p:runs]})"
    done
}

ok() { [ "${V[$1:status]:-}" = ok ]; }
ran() { [ -n "${V[$1:status]:-}" ]; }

# ref_side BIN: 1 if BIN is the reference binary (on the vftr side only in
# selftest mode); only the reference may fail to read compressed traces.
ref_side() { [ "$1" = "$REF" ] && echo 1 || echo 0; }

# Total bytes of a trace's files.
trace_bytes() {
    local sum=0 f s
    for f in "$1".*; do
        [ -f "$f" ] || continue
        s=$(stat -c %s -- "$f") && sum=$((sum + s))
    done
    echo "$sum"
}

# agree PHASE_A PHASE_B WHAT: records and checksum of two phases must match.
agree() {
    local a=$1 b=$2
    ok "$a" && ok "$b" || return 0
    if [ "${V[$a:records]}" != "${V[$b:records]}" ] ||
       [ "${V[$a:checksum]}" != "${V[$b:checksum]}" ]; then
        FAILURES+=("$3: $a gives ${V[$a:records]} records, checksum ${V[$a:checksum]}; $b gives ${V[$b:records]}, ${V[$b:checksum]}")
        say "  DISAGREE: $3"
    fi
}

# agree_ref: the same for a phase where the reference reads a compressed
# trace; a wrong answer there is the reference's bug, so only a remark.
agree_ref() {
    ok "$1" && ok "$2" || return 0
    if [ "${V[$1:records]}" != "${V[$2:records]}" ] ||
       [ "${V[$1:checksum]}" != "${V[$2:checksum]}" ]; then
        REMARKS+=("$3: the reference delivered ${V[$2:records]} records, checksum ${V[$2:checksum]}, expected ${V[$1:records]}, ${V[$1:checksum]}")
    fi
}

# Compares the uncompressed traces written by both libraries, masking the
# DefUniqueId line (random per run).  Prints one line for the table.
compare_traces() {
    local a=$1 b=$2 f g rel n=0 diffs=()
    for f in "$a".*; do
        [ -f "$f" ] || continue
        rel=${f#"$a"}
        g=$b$rel
        n=$((n + 1))
        if [ ! -f "$g" ]; then
            diffs+=("$rel missing")
        elif [ "$rel" = .0.def ]; then
            if [ "$(sed -n 2p "$f" | cut -c1-3)" != DUI ] ||
               [ "$(sed -n 2p "$g" | cut -c1-3)" != DUI ]; then
                diffs+=("$rel: line 2 is not DefUniqueId")
            elif ! cmp -s <(sed 2d "$f") <(sed 2d "$g"); then
                diffs+=("$rel")
            fi
        elif ! cmp -s "$f" "$g"; then
            diffs+=("$rel ($(cmp "$f" "$g" 2>&1 | sed 's/.*differ: //'))")
        fi
    done
    for g in "$b".*; do
        [ -f "$g" ] || continue
        rel=${g#"$b"}
        [ -f "$a$rel" ] || diffs+=("extra file $rel")
    done
    if [ "$n" -eq 0 ]; then
        echo "MISS|no files"
    elif [ "${#diffs[@]}" -eq 0 ]; then
        echo "PASS|$n files identical (DefUniqueId masked)"
    else
        echo "MISS|differ: ${diffs[*]}"
    fi
}

start=$(date +%s)
say "bench: $N events, best of $REPEAT, traces in $DIR$([ "$SELFTEST" = 1 ] && echo ', SELFTEST: reference on both sides')"

RU=$DIR/ref_u VU=$DIR/vftr_u RZ=$DIR/ref_z VZ=$DIR/vftr_z
RUS=$DIR/ref_u_s VUS=$DIR/vftr_u_s RZS=$DIR/ref_z_s VZS=$DIR/vftr_z_s
RV=$(ref_side "$VFTR")   # 1 in selftest mode

say "writing ($N events)"
for ((i = 1; i <= REPEAT; i++)); do
    attempt w_ref  0 "$RU" max events_per_s "$REF"  write "$RU" "$N"
    attempt w_vftr 0 "$VU" max events_per_s "$VFTR" write "$VU" "$N"
done
for ((i = 1; i <= REPEAT; i++)); do
    attempt wz_ref  0 "$RZ" max events_per_s "$REF"  write "$RZ" "$N" -z "$LEVEL"
    attempt wz_vftr 0 "$VZ" max events_per_s "$VFTR" write "$VZ" "$N" -z "$LEVEL"
done
show events_per_s w_ref w_vftr wz_ref wz_vftr
agree w_ref w_vftr  "writers (uncompressed)"
agree w_ref wz_ref  "writers (reference, compressed)"
agree w_ref wz_vftr "writers (compressed)"

IDENT=$(compare_traces "$RU" "$VU")

say "reading"
for ((i = 1; i <= REPEAT; i++)); do
    ok w_ref || break
    attempt r_ref  0 "" max events_per_s "$REF"  read "$RU"
    attempt r_vftr 0 "" max events_per_s "$VFTR" read "$RU"
    ok wz_vftr && attempt rz_vftr "$RV" "" max events_per_s "$VFTR" read "$VZ"
done
# The reference reading its own compressed trace: for the record, once.
ok wz_ref && attempt rz_ref 1 "" max events_per_s "$REF" read "$RZ"
show events_per_s r_ref r_vftr rz_vftr rz_ref
agree w_ref r_ref   "reference reader vs writer"
agree w_ref r_vftr  "vftr reader vs writer"
agree r_ref r_vftr  "vftr reader vs reference reader"
agree w_ref rz_vftr "vftr compressed reader vs writer"
agree_ref w_ref rz_ref "reference compressed reader vs writer"

say "window reads (last $FRAC of the span)"
for ((i = 1; i <= REPEAT; i++)); do
    ok w_ref || break
    attempt win_ref  0 "" min median_ms "$REF"  window "$RU" "$FRAC"
    attempt win_vftr 0 "" min median_ms "$VFTR" window "$RU" "$FRAC"
    ok wz_vftr && attempt winz_vftr "$RV" "" min median_ms "$VFTR" window "$VZ" "$FRAC"
done
ok wz_ref && attempt winz_ref 1 "" min median_ms "$REF" window "$RZ" "$FRAC"
show median_ms win_ref win_vftr winz_vftr winz_ref
agree win_ref win_vftr  "window: vftr vs reference"
agree win_ref winz_vftr "window: vftr compressed vs reference"
agree_ref win_ref winz_ref "window: reference compressed vs uncompressed"

say "memory at $NS events (once each)"
attempt sw_ref   0 "$RUS" max events_per_s "$REF"  write "$RUS" "$NS"
attempt sw_vftr  0 "$VUS" max events_per_s "$VFTR" write "$VUS" "$NS"
attempt swz_ref  0 "$RZS" max events_per_s "$REF"  write "$RZS" "$NS" -z "$LEVEL"
attempt swz_vftr 0 "$VZS" max events_per_s "$VFTR" write "$VZS" "$NS" -z "$LEVEL"
if ok sw_ref; then
    attempt sr_ref    0 "" max events_per_s "$REF"  read "$RUS"
    attempt sr_vftr   0 "" max events_per_s "$VFTR" read "$RUS"
    attempt swin_ref  0 "" min median_ms "$REF"  window "$RUS" "$FRAC"
    attempt swin_vftr 0 "" min median_ms "$VFTR" window "$RUS" "$FRAC"
fi
if ok swz_vftr; then
    attempt srz_vftr   "$RV" "" max events_per_s "$VFTR" read "$VZS"
    attempt swinz_vftr "$RV" "" min median_ms "$VFTR" window "$VZS" "$FRAC"
fi
if ok swz_ref; then
    attempt srz_ref   1 "" max events_per_s "$REF" read "$RZS"
    attempt swinz_ref 1 "" min median_ms "$REF" window "$RZS" "$FRAC"
fi
show maxrss_kib sw_ref sw_vftr swz_ref swz_vftr sr_ref sr_vftr swin_ref swin_vftr \
    srz_vftr swinz_vftr srz_ref swinz_ref
agree sw_ref sr_ref  "reference reader vs writer ($NS events)"
agree sw_ref sr_vftr "vftr reader vs writer ($NS events)"
agree sw_ref srz_vftr "vftr compressed reader vs writer ($NS events)"
agree swin_ref swin_vftr "window: vftr vs reference ($NS events)"
agree swin_ref swinz_vftr "window: vftr compressed vs reference ($NS events)"

BYTES_RU=$(trace_bytes "$RU") BYTES_VU=$(trace_bytes "$VU")
BYTES_RZ=$(trace_bytes "$RZ") BYTES_VZ=$(trace_bytes "$VZ")

# ---------------------------------------------------------------- the table
ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }

val() { ok "$1" && echo "${V[$1:$2]}"; }
cell() {  # cell PHASE KEY FORMAT: formatted value, or why there is none
    local phase=$1 key=$2 fmt=$3
    if ok "$phase"; then
        awk -v x="${V[$phase:$key]}" -v f="$fmt" 'BEGIN {
            if (f == "rate") printf "%.2f M/s", x / 1e6
            else if (f == "ms") printf "%.3f ms", x
            else if (f == "mib") printf "%.1f MiB", x / 1024
            else printf "%s", x }'
    elif ran "$phase"; then
        echo "fails"
    else
        echo "not run"
    fi
}
ratio() {  # ratio A B: A/B with two decimals, or "—"
    if [ -z "$1" ] || [ -z "$2" ]; then echo "—"; return; fi
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "—" }'
}
verdict() {  # verdict EXPR-with-x X: PASS if awk EXPR holds for x
    [ -n "$2" ] || { echo MISS; return; }
    awk -v x="$2" "BEGIN { exit !($1) }" && echo PASS || echo MISS
}

# Throughput rows: vftr / reference >= factor.
throughput_row() {  # label ref_phase vftr_phase factor
    local r v q
    r=$(val "$2" events_per_s) v=$(val "$3" events_per_s)
    q=$(ratio "$v" "$r")
    row "$1" "$(cell "$2" events_per_s rate)" "$(cell "$3" events_per_s rate)" \
        "$q" "≥ $4×" "$(verdict "x >= $4" "$([ "$q" = — ] || echo "$q")")"
}

throughput_row "write, events/s" w_ref w_vftr 3
throughput_row "read, events/s (both read the reference's trace)" r_ref r_vftr 3
throughput_row "write compressed (level $LEVEL), events/s" wz_ref wz_vftr 3

szq=$(ratio "$BYTES_VZ" "$BYTES_RZ")
row "compressed trace size (level $LEVEL)" \
    "$(awk -v b="$BYTES_RZ" -v n="$N" 'BEGIN { printf "%.1f MB, %.2f B/event", b / 1e6, b / n }')" \
    "$(awk -v b="$BYTES_VZ" -v n="$N" 'BEGIN { printf "%.1f MB, %.2f B/event", b / 1e6, b / n }')" \
    "$szq" "≤ 1.10" "$(verdict "x <= 1.10" "$([ "$szq" = — ] || echo "$szq")")"

# Compressed read: vftr on its compressed trace against the reference's
# uncompressed read (the reference cannot read compressed traces here).
r=$(val r_ref events_per_s) v=$(val rz_vftr events_per_s) q=$(ratio "$v" "$r")
row "read compressed, events/s (reference: uncompressed)" \
    "$(cell r_ref events_per_s rate)" "$(cell rz_vftr events_per_s rate)" \
    "$q" "≥ 2× ref. uncompressed" "$(verdict "x >= 2" "$([ "$q" = — ] || echo "$q")")"

r=$(val win_ref median_ms) v=$(val win_vftr median_ms)
row "window read, last $FRAC of span, median" "$(cell win_ref median_ms ms)" \
    "$(cell win_vftr median_ms ms)" "$(ratio "$v" "$r")" "≤ 0.5 ms" \
    "$(verdict "x <= 0.5" "$v")"
r=$(val winz_ref median_ms) v=$(val winz_vftr median_ms)
row "window read, compressed, median" "$(cell winz_ref median_ms ms)" \
    "$(cell winz_vftr median_ms ms)" "$(ratio "$v" "$r")" "≤ 5 ms" \
    "$(verdict "x <= 5" "$v")"

# Memory: peak RSS at N must not exceed 1.1 × the peak at N/10 plus 1 MiB.
mem_row() {  # label phase_suffix_N ref_N vftr_N ref_small vftr_small
    local rn vn rs vs q rcell vcell res
    rn=$(val "$2" maxrss_kib) vn=$(val "$3" maxrss_kib)
    rs=$(val "$4" maxrss_kib) vs=$(val "$5" maxrss_kib)
    rcell="$(cell "$2" maxrss_kib mib)"
    [ -n "$rn" ] && [ -n "$rs" ] && rcell="$rcell ($(cell "$4" maxrss_kib mib))"
    vcell="$(cell "$3" maxrss_kib mib)"
    [ -n "$vn" ] && [ -n "$vs" ] && vcell="$vcell ($(cell "$5" maxrss_kib mib))"
    q=$(ratio "$vn" "$rn")
    if [ -n "$vn" ] && [ -n "$vs" ]; then
        res=$(verdict "x <= 1.1 * $vs + 1024" "$vn")
    else
        res=MISS
    fi
    row "$1" "$rcell" "$vcell" "$q" "≤ 1.1 × (N/10) + 1 MiB" "$res"
}
mem_row "peak RSS, write (at N/10)" w_ref w_vftr sw_ref sw_vftr
mem_row "peak RSS, write compressed (at N/10)" wz_ref wz_vftr swz_ref swz_vftr
mem_row "peak RSS, read (at N/10)" r_ref r_vftr sr_ref sr_vftr
mem_row "peak RSS, read compressed (at N/10)" rz_ref rz_vftr srz_ref srz_vftr
mem_row "peak RSS, window read (at N/10)" win_ref win_vftr swin_ref swin_vftr
mem_row "peak RSS, window read compressed (at N/10)" winz_ref winz_vftr swinz_ref swinz_vftr

row "uncompressed trace byte-identical to the reference's" \
    "$(awk -v b="$BYTES_RU" -v n="$N" 'BEGIN { printf "%.1f MB, %.2f B/event", b / 1e6, b / n }')" \
    "$(awk -v b="$BYTES_VU" -v n="$N" 'BEGIN { printf "%.1f MB, %.2f B/event", b / 1e6, b / n }')" \
    "—" "identical" "${IDENT%%|*}"

elapsed=$(( $(date +%s) - start ))
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
    echo "# OTF benchmark: vftr against the reference OTF 1.12.5"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, ${cpu:-unknown CPU}; $N events" \
         "(16 processes, 4 streams); each timed phase run $REPEAT times, best kept;" \
         "memory = largest peak RSS of those runs; run took ${elapsed} s."
    [ "$SELFTEST" = 1 ] && echo && echo "**SELFTEST: the vftr column is the reference library.**"
    echo
    echo "| metric | reference | vftr | vftr/ref | target | result |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "Notes:"
    echo "- byte comparison of the uncompressed traces: ${IDENT#*|}"
    ok win_ref && echo "- window [${V[win_ref:window_min]}, ${V[win_ref:window_max]}): ${V[win_ref:records]} records; median of ${V[win_ref:reps]} reads after one warm-up, reader open and definitions read"
    ok r_ref && echo "- records read: ${V[r_ref:records]}, checksum ${V[r_ref:checksum]}"
    [ "${#EXPECTED[@]}" -gt 0 ] &&
        echo "- the reference failed to read compressed traces (${EXPECTED[*]}):" \
             "$EXPECTED_MSG — the zlib inflateSync bug, see share/doc/benchmarks.md"
    for r in "${REMARKS[@]}"; do echo "- $r"; done
    for f in "${FAILURES[@]}"; do echo "- **FAILED**: $f"; done
} >"$RESULTS"

echo
cat "$RESULTS"
echo
echo "bench: table written to $RESULTS"

if [ "${BENCH_KEEP:-0}" != 1 ]; then
    rm -f -- "$RU".* "$VU".* "$RZ".* "$VZ".* "$RUS".* "$VUS".* "$RZS".* "$VZS".*
fi

if [ "${#FAILURES[@]}" -gt 0 ]; then
    echo "bench: ${#FAILURES[@]} failure(s): a phase did not run or the readers disagree" >&2
    exit 1
fi
exit 0
