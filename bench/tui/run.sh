#!/bin/bash
# bench/tui/run.sh — see bench/tui/module.mk.  Trace: test/tui/tui_gen with
# 4 processes and 312500 iterations (10 M events), snapshots and summaries
# every 0.5 % of its span (-s 200) written by the generator; with
# BENCH_TUI_BIG=1 also 3125000 iterations (100 M events), same density.
# Each measurement is `vftr-tui --bench`: in-process timings of the model
# (open + first refresh of the whole trace at 70 columns; 200 jumps to
# pseudo-random times with a window of 0.1 % of the trace), the bytes the
# OTF library read, and getrusage's peak RSS.  Runs 3 times and keeps the
# best first frame and the best median jump (the machine is shared).
set -u
: "${BUILD:=build}"
: "${BENCH_TUI_BIG:=}"
TUI=$BUILD/bin/vftr-tui
GEN=$BUILD/test/tui/vftr/tui_gen
dir=$BUILD/bench/tui
mkdir -p "$dir"
status=0

gen() {     # gen NAME ITERATIONS
    if [ ! -s "$dir/$1.otf" ] || [ ! -s "$dir/$1.done" ]; then
        echo "bench-tui: generating $1 ($2 iterations x 4 processes x 8 events)"
        rm -f "$dir/$1".*
        "$GEN" -p 4 -i "$2" -s 200 -S "$dir/$1" && echo ok >"$dir/$1.done" || return 1
    fi
}

val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v < t) ? "PASS" : "MISS" }'; }

measure() {     # measure NAME EVENTS
    local best_first="" best_jump="" jmax="" rss="" bytes="" jbytes="" cpu="" cpumax=""
    for run in 1 2 3; do
        "$TUI" --bench 200 "$dir/$1" >"$dir/$1.out" || { echo "bench-tui: vftr-tui --bench failed"; status=1; return; }
        f=$(val first_frame_ms "$dir/$1.out")
        j=$(val jump_ms_median "$dir/$1.out")
        if [ -z "$best_first" ] || awk -v a="$f" -v b="$best_first" 'BEGIN { exit !(a < b) }'; then best_first=$f; fi
        if [ -z "$best_jump" ] || awk -v a="$j" -v b="$best_jump" 'BEGIN { exit !(a < b) }'; then
            best_jump=$j
            jmax=$(val jump_ms_max "$dir/$1.out")
            cpu=$(val jump_cpu_ms_median "$dir/$1.out")
            cpumax=$(val jump_cpu_ms_max "$dir/$1.out")
        fi
        rss=$(val peak_rss_kb "$dir/$1.out")
        bytes=$(val first_frame_bytes "$dir/$1.out")
        jbytes=$(val jump_bytes_max "$dir/$1.out")
    done
    local size
    size=$(cat "$dir/$1".*.events "$dir/$1".*.snaps "$dir/$1".*.stats "$dir/$1".*.def | wc -c)
    local rss_mb
    rss_mb=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
    printf '| %-26s | %10s | %10s | %6s |\n' "$1: $2 events, $((size / 1048576)) MiB" "measured" "target" ""
    printf '| %-26s | %10s | %10s | %6s |\n' "first complete frame" "${best_first} ms" "< 100 ms" "$(verdict "$best_first" 100)"
    printf '| %-26s | %10s | %10s | %6s |\n' "jump (median of 200)" "${best_jump} ms" "< 10 ms" "$(verdict "$best_jump" 10)"
    printf '| %-26s | %10s | %10s | %6s |\n' "jump (slowest of 200)" "${jmax} ms" "" ""
    printf '| %-26s | %10s | %10s | %6s |\n' "jump CPU time (median)" "${cpu} ms" "" ""
    printf '| %-26s | %10s | %10s | %6s |\n' "jump CPU time (slowest)" "${cpumax} ms" "" ""
    printf '| %-26s | %10s | %10s | %6s |\n' "peak RSS" "${rss_mb} MB" "< 100 MB" "$(verdict "$rss_mb" 100)"
    printf '| %-26s | %10s | %10s | %6s |\n' "bytes read: first frame" "$bytes" "" ""
    printf '| %-26s | %10s | %10s | %6s |\n' "bytes read: largest jump" "$jbytes" "" ""
}

echo
echo "vftr-tui benchmark (in-process, best of 3 runs; load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "(jump targets are judged on wall time; the CPU time of the process (all its"
echo " threads) shows what the machine's other load adds)"
echo
printf '| %-26s | %10s | %10s | %6s |\n' "trace / measure" "value" "target" "result"
printf '|%s|%s|%s|%s|\n' "----------------------------" "------------" "------------" "--------"
gen tui10m 312500 || { echo "bench-tui: generation failed"; exit 1; }
measure tui10m 10M
if [ "$BENCH_TUI_BIG" = 1 ]; then
    gen tui100m 3125000 || { echo "bench-tui: generation failed"; exit 1; }
    measure tui100m 100M
else
    echo
    echo "(the trace ten times larger: make bench-tui BENCH_TUI_BIG=1)"
fi
exit $status
