#!/bin/bash
# bench/snap/run.sh — vftr-snap against the reference's otfaux.
#
# One generated trace (test/snap/snapgen: 8 processes on 4 streams, every
# record kind vftr-snap reads) of about BENCH_EVENTS records, and one of a
# tenth of that.  On each, `otfaux --all -n 200` and `vftr-snap --all -n 200`
# run in turn on their own copies (the event files hard-linked, so neither
# can touch the other's), BENCH_SNAP_REPEAT times; the best wall time of
# each counts, and the largest resident set.  Targets:
#   - vftr-snap at least 5x faster than otfaux on the large trace;
#   - memory independent of trace length: vftr-snap's RSS on the large
#     trace at most 1.25x its RSS on the small one (+ 4 MiB for noise).
# Prints a table (also in $BUILD/bench/snap-results.md) with PASS or MISS.
#
# Environment: BUILD, BENCH_EVENTS (default 10000000), BENCH_SNAP_REPEAT
# (default 2), BENCH_DIR (default $BUILD/bench/traces), BENCH_KEEP=1.
# Exit status 0 unless a run failed (a MISS does not change it).
set -u
BUILD=${BUILD:-build}
N=${BENCH_EVENTS:-10000000}
REPEAT=${BENCH_SNAP_REPEAT:-2}
DIR=${BENCH_DIR:-$BUILD/bench/traces}/snap
SNAP=$BUILD/bin/vftr-snap
GEN=$BUILD/test/snap/vftr/snapgen
RESULTS=$BUILD/bench/snap-results.md
OPTS=(--all -n 200)

die() { echo "bench-snap: $*" >&2; exit 1; }
command -v otfaux >/dev/null || die "otfaux (the reference OTF tools) is not installed"
[ -x "$SNAP" ] && [ -x "$GEN" ] || die "build $SNAP and $GEN first (make bench-snap)"
case "$N" in ''|*[!0-9]*) die "BENCH_EVENTS must be a number" ;; esac
[ "$N" -ge 1000 ] || die "BENCH_EVENTS must be at least 1000"
mkdir -p "$DIR" "$(dirname "$RESULTS")" || die "cannot create $DIR"
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT

# The generator writes a bit more than one record per step.
steps() { echo $(( $1 * 100 / 115 )); }

# prepare SIZE -> $DIR/SIZE/pristine/t.*, prints the record count
prepare() {
    local d=$DIR/$1/pristine
    rm -rf "$DIR/$1"
    mkdir -p "$d"
    "$GEN" "$d/t" 8 4 "$(steps "$2")" 7 | sed -n 's/^records //p'
}

# fresh SIZE WHO: a copy for one tool: events hard-linked, the rest copied
fresh() {
    local src=$DIR/$1/pristine dst=$DIR/$1/$2 f
    rm -rf "$dst"
    mkdir -p "$dst"
    for f in "$src"/t.*; do
        case "$f" in
            *.events|*.events.z) ln "$f" "$dst/" ;;
            *) cp "$f" "$dst/" ;;
        esac
    done
}

# run SIZE WHO -> "seconds maxrss_kib"
run() {
    local size=$1 who=$2 d=$DIR/$1/$2 out
    fresh "$size" "$who"
    if [ "$who" = ref ]; then
        out=$( { /usr/bin/time -f 'TIME %e %M' otfaux "${OPTS[@]}" "$d/t.otf" >/dev/null; } 2>&1 ) ||
            die "otfaux failed: $out"
    else
        out=$( { /usr/bin/time -f 'TIME %e %M' "$SNAP" "${OPTS[@]}" "$d/t"; } 2>&1 ) ||
            die "vftr-snap failed: $out"
    fi
    [ -s "$d/t.1.snaps" ] && [ -s "$d/t.1.stats" ] || die "$who wrote no snapshots or summaries"
    echo "$out" | sed -n 's/^TIME //p' | tail -n 1
}

declare -A BEST RSS
measure() {
    local size=$1 who i r t m
    for i in $(seq 1 "$REPEAT"); do
        for who in ref vftr; do
            [ "$size" = small ] && [ "$who" = ref ] && continue
            r=$(run "$size" "$who")
            t=${r% *}; m=${r#* }
            if [ -z "${BEST[$size:$who]:-}" ] || awk -v a="$t" -v b="${BEST[$size:$who]}" 'BEGIN{exit !(a<b)}'; then
                BEST[$size:$who]=$t
            fi
            [ "${RSS[$size:$who]:-0}" -ge "$m" ] || RSS[$size:$who]=$m
        done
    done
}

echo "bench-snap: generating traces (about $N and $((N / 10)) records)"
big_n=$(prepare large "$N") || die "snapgen failed"
small_n=$(prepare small $((N / 10))) || die "snapgen failed"
measure large
measure small

ratio=$(awk -v r="${BEST[large:ref]}" -v v="${BEST[large:vftr]}" 'BEGIN { printf "%.1f", (v > 0 ? r / v : 0) }')
time_ok=$(awk -v x="$ratio" 'BEGIN { print (x >= 5 ? "PASS" : "MISS") }')
mem_ok=$(awk -v b="${RSS[large:vftr]}" -v s="${RSS[small:vftr]}" \
    'BEGIN { print (b <= 1.25 * s + 4096 ? "PASS" : "MISS") }')
{
    echo "## vftr-snap vs otfaux (${OPTS[*]}), best of $REPEAT"
    echo
    echo "| metric | otfaux | vftr-snap | ratio | target | result |"
    echo "|---|---|---|---|---|---|"
    printf '| time, %s records | %s s | %s s | %sx faster | >= 5x | %s |\n' "$big_n" \
        "${BEST[large:ref]}" "${BEST[large:vftr]}" "$ratio" "$time_ok"
    printf '| max RSS, %s records | %s KiB | %s KiB | | | |\n' "$big_n" "${RSS[large:ref]}" "${RSS[large:vftr]}"
    printf '| vftr-snap max RSS, %s vs %s records | | %s vs %s KiB | | large <= 1.25 x small + 4 MiB | %s |\n' \
        "$big_n" "$small_n" "${RSS[large:vftr]}" "${RSS[small:vftr]}" "$mem_ok"
} | tee "$RESULTS"
