#!/bin/bash
# bench/report/run.sh — vftr-report against vftr-stats on the same traces.
#
# Traces (10 M events each, BENCH_EVENTS):
#   regular: test/stats/stats_gen, the trace of bench-stats (8 processes, 2
#            per stream, three functions);
#   random:  bench/otfbench write, the OTF benchmark's trace (16 processes,
#            240 functions, random nesting, messages): the worst case for
#            the timeline (a new function in almost every bin) and for the
#            call tree (millions of distinct call paths).
# Both tools read with their default threads (the online CPUs), on a warm
# page cache, best of BENCH_REPEAT runs taken in turns so that a busy
# machine slows both alike.
#
# Targets: on the regular trace the report takes at most 2x vftr-stats's
# time; on both the page is at most 5 MB.  For information: the random
# trace's times against vftr-stats and vftr-stats --callpath (the report
# keeps every call path, as --callpath does), and peak memory.
#
# Environment: BUILD, BENCH_EVENTS (10000000), BENCH_REPEAT (3), BENCH_DIR
# ($BUILD/bench/report), BENCH_KEEP=1 keeps the traces.
set -u
BUILD=${BUILD:-build}
N=${BENCH_EVENTS:-10000000}
REPEAT=${BENCH_REPEAT:-3}
DIR=${BENCH_DIR:-$BUILD/bench/report}
REPORT=$BUILD/bin/vftr-report
STATS=$BUILD/bin/vftr-stats
GEN=$BUILD/test/stats/ref/stats_gen
OTFBENCH=$BUILD/bench/vftr/otfbench
export LC_ALL=C

for t in "$REPORT" "$STATS" "$GEN" "$OTFBENCH"; do
    [ -x "$t" ] || { echo "bench-report: $t is not built"; exit 1; }
done
command -v /usr/bin/time >/dev/null || { echo "bench-report: /usr/bin/time is missing"; exit 1; }
mkdir -p "$DIR"
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"/reg.* "$DIR"/rnd.* "$DIR"/*.html "$DIR"/time.out' EXIT

calls=$(( (N / 8 - 2 + 3) / 4 ))
"$GEN" "$DIR/reg" 8 "$calls" 0 2 >/dev/null || exit 1
"$OTFBENCH" write "$DIR/rnd" "$N" >/dev/null || exit 1
cat "$DIR"/reg.*.events "$DIR"/rnd.*.events >/dev/null      # warm the page cache

measure() { # one run of "$@": wall seconds in $wall, peak RSS KiB in $rss
    /usr/bin/time -o "$DIR/time.out" -f '%e %M' "$@" >/dev/null 2>&1 || {
        echo "bench-report: failed: $*"; exit 1; }
    read -r wall rss < <(tail -1 "$DIR/time.out")
}
min() { if [ -z "$1" ] || awk -v t="$2" -v b="$1" 'BEGIN { exit !(t < b) }'; then echo "$2"; else echo "$1"; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "PASS" : "MISS" }'; }
row() { printf '| %-46s | %-12s | %-12s | %-7s | %-7s | %s |\n' "$@"; }

t_rep= t_sta= m_rep=
for _ in $(seq "$REPEAT"); do
    measure "$REPORT" -q -o "$DIR/reg.html" "$DIR/reg"; t_rep=$(min "$t_rep" "$wall"); m_rep=$rss
    measure "$STATS" --csv "$DIR/reg"; t_sta=$(min "$t_sta" "$wall")
done
s_reg=$(wc -c <"$DIR/reg.html")

measure "$REPORT" -q -o "$DIR/rnd.html" "$DIR/rnd"; r_rep=$wall; r_mem=$rss
measure "$STATS" --csv "$DIR/rnd"; r_sta=$wall
measure "$STATS" --callpath --csv "$DIR/rnd"; r_cp=$wall; r_cpmem=$rss
s_rnd=$(wc -c <"$DIR/rnd.html")
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")

printf '\nvftr-report benchmark: %d events per trace (best of %d on the regular trace; load average %s)\n\n' \
    "$N" "$REPEAT" "$load"
row metric vftr-stats vftr-report ratio target result
printf '|%s|\n' "------------------------------------------------|--------------|--------------|---------|---------|-------"
r=$(ratio "$t_rep" "$t_sta")
row "regular trace: time [s]" "$t_sta" "$t_rep" "${r}x" "<= 2x" "$(verdict "$r" 2)"
row "regular trace: page [bytes]" "-" "$s_reg" "-" "<= 5 MB" "$(verdict "$s_reg" 5000000)"
row "regular trace: peak RSS [KiB]" "-" "$m_rep" "-" "-" "info"
row "random trace: page [bytes]" "-" "$s_rnd" "-" "<= 5 MB" "$(verdict "$s_rnd" 5000000)"
row "random trace: time [s] against vftr-stats" "$r_sta" "$r_rep" "$(ratio "$r_rep" "$r_sta")x" "-" "info"
row "random trace: time [s] against --callpath" "$r_cp" "$r_rep" "$(ratio "$r_rep" "$r_cp")x" "-" "info"
row "random trace: peak RSS [KiB] against --callpath" "$r_cpmem" "$r_mem" "$(ratio "$r_mem" "$r_cpmem")x" "-" "info"
