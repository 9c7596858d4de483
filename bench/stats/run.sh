#!/bin/bash
# bench/stats/run.sh — vftr-stats against otfprofile, in one run, on the
# same trace written by the reference library (test/stats/stats_gen).
#
# otfprofile has no "just the function profile" mode: with -o PREFIX --csv
# it reads the whole trace once and writes its CSV profile (per process and
# function: calls, exclusive and inclusive time), and besides computes
# message and collective statistics per process pair and per group and
# process-group clustering inputs, writing CSV; that is the closest it comes
# to vftr-stats's work (vftr-stats computes the function profile with
# min/avg/max/imbalance over processes and the call-path tree in the same
# pass).  Both are timed on a warm page cache, best of BENCH_REPEAT runs
# taken in turns (vftr-stats, otfprofile, vftr-stats -j 1, ...), so that a
# busy machine slows both alike.  vftr-stats reads the streams with as many
# threads as there are online CPUs (--jobs, its default); the one-thread
# figure is shown for information, and the outputs of both must agree.
#
# Targets: vftr-stats >= 5x faster than otfprofile; vftr-stats's peak RSS
# on the full trace within 1.5x of that on a trace a tenth the size; a
# window profile from summaries reads under 1 % of the event bytes.
#
# Environment: BUILD, BENCH_EVENTS (default 10000000), BENCH_REPEAT (3),
# BENCH_DIR (default $BUILD/bench/stats), BENCH_KEEP=1 keeps the traces.
set -u
BUILD=${BUILD:-build}
N=${BENCH_EVENTS:-10000000}
REPEAT=${BENCH_REPEAT:-3}
DIR=${BENCH_DIR:-$BUILD/bench/stats}
STATS=$BUILD/bin/vftr-stats
GEN=$BUILD/test/stats/ref/stats_gen
export LC_ALL=C

for t in "$STATS" "$GEN"; do [ -x "$t" ] || { echo "bench-stats: $t is not built"; exit 1; }; done
for t in otfprofile otfaux /usr/bin/time; do
    command -v "$t" >/dev/null || { echo "bench-stats: $t is missing"; exit 1; }
done
mkdir -p "$DIR"
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"/big* "$DIR"/small* "$DIR"/prof* "$DIR"/time.out' EXIT

# 8 processes, 2 per stream; events = 8 * (2 + 4 * CALLS).
calls=$(( (N / 8 - 2 + 3) / 4 ))
scalls=$(( calls / 10 ))
"$GEN" "$DIR/big" 8 "$calls" 0 2 || exit 1
"$GEN" "$DIR/small" 8 "$scalls" 0 2 || exit 1
events=$(( 8 * (2 + 4 * calls) ))

best() {    # best wall time in seconds of REPEAT runs of "$@"
    local b= t
    for _ in $(seq "$REPEAT"); do
        t=$(once "$@")
        b=$(min "$b" "$t")
    done
    echo "$b"
}
measure() { # one run of "$@": wall seconds in $wall, user + system CPU seconds in $cpu
    /usr/bin/time -o "$DIR/time.out" -f '%e %U %S' "$@" >/dev/null 2>&1
    read -r wall u s < <(tail -1 "$DIR/time.out")
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
}
once() { measure "$@"; echo "$wall"; }
min() { if [ -z "$1" ] || awk -v t="$2" -v b="$1" 'BEGIN { exit !(t < b) }'; then echo "$2"; else echo "$1"; fi; }
rss() { /usr/bin/time -o "$DIR/time.out" -f %M "$@" >/dev/null 2>&1; tail -1 "$DIR/time.out"; }
row() { printf '| %-44s | %-14s | %-14s | %-8s | %-9s | %s |\n' "$@"; }
verdict() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN { print ((dir == ">=" ? v >= t : v <= t) ? "PASS" : "MISS") }'; }

cat "$DIR"/big.*.events >/dev/null          # warm the page cache for both
t_ours= t_ref= t_one= c_ours= c_ref= c_one=
for _ in $(seq "$REPEAT"); do
    measure "$STATS" --csv "$DIR/big"; t_ours=$(min "$t_ours" "$wall"); c_ours=$(min "$c_ours" "$cpu")
    measure otfprofile -i "$DIR/big.otf" -o "$DIR/prof" --csv
    t_ref=$(min "$t_ref" "$wall"); c_ref=$(min "$c_ref" "$cpu")
    measure "$STATS" -j 1 --csv "$DIR/big"; t_one=$(min "$t_one" "$wall"); c_one=$(min "$c_one" "$cpu")
done
ratio=$(awk -v a="$t_ref" -v b="$t_ours" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }')
ratio1=$(awk -v a="$t_ref" -v b="$t_one" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }')
cratio=$(awk -v a="$c_ref" -v b="$c_one" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }')
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
jobs=$("$STATS" -v --csv "$DIR/big" 2>&1 >/dev/null | sed -n 's/.*stream(s), \([0-9]*\) thread(s).*/\1/p')
if [ "$("$STATS" --csv "$DIR/big" | md5sum)" != "$("$STATS" -j 1 --csv "$DIR/big" | md5sum)" ]; then
    echo "bench-stats: vftr-stats -j 1 and -J $jobs disagree"; exit 1
fi

m_small=$(rss "$STATS" --csv "$DIR/small")
m_big=$(rss "$STATS" --csv "$DIR/big")
mratio=$(awk -v a="$m_big" -v b="$m_small" 'BEGIN { printf "%.2f", a / b }')

# Window [25 %, 75 %) of the time span, summaries exactly at its edges.
span=$(( 10 * calls + 10 ))
a=$(( span / 4 / 10 * 10 )); b=$(( 3 * span / 4 / 10 * 10 ))
otfaux --statistics -t "$a" -t "$b" -o "$DIR/bigsum" "$DIR/big.otf" >/dev/null 2>&1 || {
    echo "bench-stats: otfaux failed"; exit 1; }
bytes=$("$STATS" -v --csv -t "$a:$b" "$DIR/bigsum" 2>&1 >/dev/null | sed -n 's/.*read \([0-9]*\) bytes$/\1/p')
ebytes=$(cat "$DIR"/bigsum.*.events | wc -c)
between=$(( ebytes / 2 ))
pct=$(awk -v a="$bytes" -v b="$ebytes" 'BEGIN { printf "%.3f", 100 * a / b }')
t_win=$(best "$STATS" --csv -t "$a:$b" "$DIR/bigsum")
mbytes=$("$STATS" -v -M --csv -t "$a:$b" "$DIR/bigsum" 2>&1 >/dev/null | sed -n 's/.*read \([0-9]*\) bytes$/\1/p')
mpct=$(awk -v a="$mbytes" -v b="$ebytes" 'BEGIN { printf "%.3f", 100 * a / b }')

printf '\nvftr-stats benchmark: %d events, %d processes, 2 per stream (best of %d; load average %s)\n\n' \
    "$events" 8 "$REPEAT" "$load"
row metric reference vftr ratio target result
printf '|%s|\n' "----------------------------------------------|----------------|----------------|----------|-----------|-------"
row "function profile, whole trace [s], $jobs threads" \
    "$t_ref (otfprofile)" "$t_ours" "${ratio}x" ">= 5x" "$(verdict "$ratio" 5 '>=')"
row "function profile, whole trace [s], 1 thread" \
    "$t_ref (otfprofile)" "$t_one" "${ratio1}x" "-" "info"
row "CPU time [s] (user + sys), 1 thread" \
    "$c_ref (otfprofile)" "$c_one" "${cratio}x" "-" "info"
row "CPU time [s] (user + sys), $jobs threads" "-" "$c_ours" "-" "-" "info"
row "peak RSS [KiB], N/10 vs N events" \
    "$m_small" "$m_big" "$mratio" "<= 1.5" "$(verdict "$mratio" 1.5 '<=')"
row "window [25%,75%) from summaries: bytes read" \
    "$between between" "$bytes" "${pct}%" "< 1 %" "$(verdict "$pct" 1 '<=')"
row "window [25%,75%) from summaries: time [s]" \
    "-" "$t_win" "-" "-" "info"
row "--messages [25%,75%) from summaries: bytes" \
    "$between between" "$mbytes" "${mpct}%" "< 1 %" "$(verdict "$mpct" 1 '<=')"
