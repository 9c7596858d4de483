#!/bin/bash
# bench/conv/run.sh — vfd2otf's speed and memory (issue 5):
#   - 16 .vfd files (test/conv/mkvfd "big": nested calls and a message ring)
#     with BENCH_CONV_EVENTS events in all (default 10 M);
#   - vfd2otf -j 1 and -j 2: events/s (wall clock) and peak memory (RSS);
#   - the reference library's own write rate on the same events: bench/conv
#     refwrite reads vfd2otf's trace with the reference reader once without
#     and once with writing every event again through the reference
#     OTF_Writer; the difference is its write time;
#   - memory independent of trace length: peak RSS at a quarter of the events.
# Targets: vfd2otf >= 2x the reference's write rate; RSS(full) <= 1.25 x
# RSS(quarter) + 4 MiB.  Prints a table (also to $BUILD/bench/conv.md).
# Rates are given by wall clock and by CPU time (user + system): on a shared
# machine the wall clock measures the other jobs too, so the -j 1 target is
# judged on CPU time of both sides; the -j 2 speed-up needs the wall clock.
set -u
BUILD=${BUILD:-build}
N=${BENCH_CONV_EVENTS:-10000000}
FILES=16
OUT=$BUILD/bench/conv
MK=$BUILD/test/conv/mkvfd
V2O=$BUILD/bin/vfd2otf
REFW=$OUT/refwrite
mkdir -p "$OUT"
rm -rf "$OUT/in" "$OUT/in4" "$OUT"/t1.* "$OUT"/t2.* "$OUT"/t4.* "$OUT"/ref.*
mkdir -p "$OUT/in" "$OUT/in4"
per=$((N / FILES))
"$MK" big "$OUT/in" "$per" $FILES || { echo "bench-conv: mkvfd failed"; exit 1; }
"$MK" big "$OUT/in4" $((per / 4)) $FILES || exit 1

run() {  # jobs input stub -> "events seconds rss_kib"
    /usr/bin/time -f '%e %M %U %S' -o "$OUT/time" "$V2O" -j "$1" -o "$OUT/$3" "$2" >"$OUT/log" 2>&1 \
        || { echo "bench-conv: vfd2otf failed: $(tail -2 "$OUT/log")" >&2; exit 1; }
    ev=$(sed -n 's/.* \([0-9]*\) events,.*/\1/p' "$OUT/log")
    echo "$ev $(awk '{ print $1, $2, $3 + $4 }' "$OUT/time")"
}
best() {  # best of 2 runs by time
    local a b
    a=$(run "$@"); b=$(run "$@")
    awk -v a="$a" -v b="$b" 'BEGIN { split(a, x); split(b, y); print (y[2] < x[2] ? b : a) }'
}
read -r ev1 s1 m1 c1 <<<"$(best 1 "$OUT/in" t1)"
read -r ev2 s2 m2 c2 <<<"$(best 2 "$OUT/in" t2)"
read -r ev4 s4 m4 c4 <<<"$(run 1 "$OUT/in4" t4)"
refout=$("$REFW" "$OUT/t1" "$OUT/ref") || { echo "bench-conv: refwrite failed"; exit 1; }
read -r _ refn _ ra _ rb _ rca _ rcb <<<"$refout"
rm -f "$OUT"/ref.*

awk -v ev1="$ev1" -v s1="$s1" -v m1="$m1" -v ev2="$ev2" -v s2="$s2" -v m2="$m2" \
    -v c1="$c1" -v c2="$c2" -v rca="$rca" -v rcb="$rcb" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
    -v ev4="$ev4" -v m4="$m4" -v refn="$refn" -v ra="$ra" -v rb="$rb" -v files=$FILES '
function verdict(ok) { return ok ? "PASS" : "MISS" }
BEGIN {
    r1 = ev1 / (s1 > 0 ? s1 : 0.01); r2 = ev2 / (s2 > 0 ? s2 : 0.01)
    q1 = ev1 / (c1 > 0 ? c1 : 0.01); q2 = ev2 / (c2 > 0 ? c2 : 0.01)
    w = rb - ra; if (w <= 0) w = 0.001
    cw = rcb - rca; if (cw <= 0) cw = 0.001
    ref = refn / w; cref = refn / cw
    printf "## vfd2otf: %d events from %d .vfd files (load average %s at the start)\n\n", ev1, files, load
    printf "| metric | wall clock | CPU time | target | result |\n|---|---:|---:|---|---|\n"
    printf "| vfd2otf -j 1 | %.2f M events/s (%.2f s) | %.2f M events/s (%.2f s) | | |\n", r1 / 1e6, s1, q1 / 1e6, c1
    printf "| vfd2otf -j 2 | %.2f M events/s (%.2f s) | %.2f M events/s (%.2f s) | | |\n", r2 / 1e6, s2, q2 / 1e6, c2
    printf "| speed-up -j 2 / -j 1 | %.2f x | | shown | |\n", r2 / r1
    printf "| reference OTF_Writer, same events | %.2f M events/s (%.2f s) | %.2f M events/s (%.2f s) | | |\n", ref / 1e6, w, cref / 1e6, cw
    printf "| vfd2otf -j 1 / reference write rate | %.2f x | %.2f x | >= 2 x (CPU) | %s |\n", r1 / ref, q1 / cref, verdict(q1 / cref >= 2)
    printf "| vfd2otf -j 2 / reference write rate | %.2f x | | >= 2 x (wall) | %s |\n", r2 / ref, verdict(r2 / ref >= 2)
    printf "| peak memory -j 1, %d events | %.1f MiB | | | |\n", ev1, m1 / 1024
    printf "| peak memory -j 2 | %.1f MiB | | | |\n", m2 / 1024
    printf "| peak memory -j 1, %d events (a quarter) | %.1f MiB | | | |\n", ev4, m4 / 1024
    printf "| memory independent of trace length | full / quarter = %.2f | | <= 1.25 (+ 4 MiB) | %s |\n", m1 / m4, verdict(m1 <= 1.25 * m4 + 4096)
}' | tee "$BUILD/bench/conv.md"
[ "$ev1" = "$ev2" ] && [ "$ev1" = "$refn" ] || { echo "bench-conv: event counts disagree ($ev1, $ev2, reference $refn)"; exit 1; }
rm -rf "$OUT/in" "$OUT/in4" "$OUT"/t1.* "$OUT"/t2.* "$OUT"/t4.*
