#!/bin/bash
# bench/formats/run.sh — issue 17's formats, measured:
#   input: 16 .vfd files of test/conv/mkvfd "big" (nested calls, a message
#   ring) with BENCH_FORMATS_EVENTS events (default 10 M), converted to OTF
#   by vfd2otf, and the same with a quarter of the events;
#   - OTF2 write: vftr's OTF2 writer (lib/model/sink_otf2.c) against
#     libotf2 driven directly by a plain writer (bench/formats/o2bench.c),
#     over the same events held in memory; CPU time, best of 3 each,
#     interleaved.  Target: vftr <= 1.2x the plain writer's time.
#   - OTF2 read: vftr's OTF2 source reading every event against a plain
#     libotf2 global reader that counts them.  Target: <= 1.2x.
#   - conversion OTF -> OTF2 (vftr-convert) against a plain converter (the
#     OTF library's reader and handlers, each event written at once with
#     plain libotf2 calls).  Target: <= 1.2x its CPU time.
#   - Perfetto and Chrome JSON: vftr-convert's write rate and bytes per
#     event; Perfetto compressed (--compress: zlib bundles): target <= 4
#     bytes per event; uncompressed and JSON are shown without target.
#   - memory: peak RSS of vftr-convert to OTF2, Perfetto and JSON from the
#     full and the quarter .vfd run: RSS(full) <= 1.25 x RSS(quarter) + 4
#     MiB (from OTF input the RSS counts the mapped input files as they are
#     read: shown, not judged).  libotf2 keeps written event chunks in its
#     pool (128 MiB per archive) until it is full: below that the OTF2 row
#     grows with the trace.
# Prints a table (also to $BUILD/bench/formats.md).  Exit 0 unless a phase
# fails to run.
set -u
BUILD=${BUILD:-build}
N=${BENCH_FORMATS_EVENTS:-10000000}
FILES=16
OUT=$BUILD/bench/formats
MK=$BUILD/test/conv/mkvfd
CV=$BUILD/bin/vftr-convert
O2=$OUT/o2bench
mkdir -p "$OUT"
rm -rf "$OUT/in" "$OUT/in4" "$OUT"/*.otf2 "$OUT"/*.otf "$OUT"/*.[0-9]*.def "$OUT"/*.events \
    "$OUT"/*.pftrace "$OUT"/*.json "$OUT/plain" "$OUT/sink" "$OUT/pconv"
mkdir -p "$OUT/in" "$OUT/in4"
per=$((N / FILES))
"$MK" big "$OUT/in" "$per" $FILES && "$MK" big "$OUT/in4" $((per / 4)) $FILES ||
    { echo "bench-formats: mkvfd failed"; exit 1; }
"$BUILD/bin/vfd2otf" -q -j 2 -o "$OUT/full.otf" "$OUT/in" 2>/dev/null &&
    "$BUILD/bin/vfd2otf" -q -j 2 -o "$OUT/quarter.otf" "$OUT/in4" 2>/dev/null ||
    { echo "bench-formats: vfd2otf failed"; exit 1; }

field() { sed -n "s/.* $1 \([0-9.]*\).*/\1/p"; }
best() { sort -g | head -1; }

# o2bench MODE ARGS -> cpu seconds (and events in $OUT/events)
o2() {
    local line
    line=$("$O2" "$@") || { echo "bench-formats: o2bench $1 failed" >&2; exit 1; }
    echo "$line" | sed -n 's/^events \([0-9]*\).*/\1/p' >"$OUT/events"
    echo "$line" | field cpu
}

# vftr-convert -> "cpu_seconds rss_kib"
conv() {
    local out=$1
    shift
    rm -rf "$out"
    /usr/bin/time -f '%U %S %M' -o "$OUT/time" "$CV" -q "$@" -o "$out" "$OUT/full.otf" ||
        { echo "bench-formats: vftr-convert $* failed" >&2; exit 1; }
    awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$OUT/time"
}
conv_in() {  # input out args...
    local in=$1 out=$2
    shift 2
    rm -rf "$out"
    /usr/bin/time -f '%M' -o "$OUT/time" "$CV" -q "$@" -o "$out" "$in" ||
        { echo "bench-formats: vftr-convert failed" >&2; exit 1; }
    cat "$OUT/time"
}

declare -a W_SINK W_PLAIN R_VFTR R_PLAIN C_VFTR C_PLAIN
for i in 1 2 3; do
    rm -rf "$OUT/sink" "$OUT/plain" "$OUT/pconv" "$OUT/v.otf2"
    W_SINK+=("$(o2 sinkwrite "$OUT/full.otf" "$OUT/sink")")
    W_PLAIN+=("$(o2 write "$OUT/full.otf" "$OUT/plain")")
    R_VFTR+=("$(o2 vftrread "$OUT/sink")")
    R_PLAIN+=("$(o2 read "$OUT/plain/traces.otf2")")
    C_VFTR+=("$(conv "$OUT/v.otf2" | cut -d' ' -f1)")
    C_PLAIN+=("$(o2 conv "$OUT/full.otf" "$OUT/pconv")")
done
EV=$(cat "$OUT/events")
ws=$(printf '%s\n' "${W_SINK[@]}" | best); wp=$(printf '%s\n' "${W_PLAIN[@]}" | best)
rv=$(printf '%s\n' "${R_VFTR[@]}" | best); rp=$(printf '%s\n' "${R_PLAIN[@]}" | best)
cvv=$(printf '%s\n' "${C_VFTR[@]}" | best); cp=$(printf '%s\n' "${C_PLAIN[@]}" | best)

read -r pf_cpu pf_rss < <(conv "$OUT/v.pftrace")
read -r pz_cpu pz_rss < <(conv "$OUT/vz.pftrace" -z)
read -r js_cpu js_rss < <(conv "$OUT/v.json")
read -r o2_cpu o2_rss < <(conv "$OUT/v.otf2")
pf_bytes=$(stat -c %s "$OUT/v.pftrace"); pz_bytes=$(stat -c %s "$OUT/vz.pftrace")
js_bytes=$(stat -c %s "$OUT/v.json")
# memory from the .vfd run (its reader keeps nothing of the trace; an OTF
# input's mapped stream files count in RSS as they are read)
o2_f=$(conv_in "$OUT/in" "$OUT/f.otf2"); o2_q=$(conv_in "$OUT/in4" "$OUT/q.otf2")
pf_f=$(conv_in "$OUT/in" "$OUT/f.pftrace" -z); pf_q=$(conv_in "$OUT/in4" "$OUT/q.pftrace" -z)
js_f=$(conv_in "$OUT/in" "$OUT/f.json"); js_q=$(conv_in "$OUT/in4" "$OUT/q.json")
load=$(cut -d' ' -f1 /proc/loadavg)

verdict() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? "PASS" : "MISS" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }'; }
rate() { awk -v n="$EV" -v s="$1" 'BEGIN { printf "%.1f M/s", (s > 0 ? n / s / 1e6 : 0) }'; }
rssok() { awk -v f="$1" -v q="$2" 'BEGIN { print (f <= 1.25 * q + 4096) ? "PASS" : "MISS" }'; }
bpe() { awk -v b="$1" -v n="$EV" 'BEGIN { printf "%.2f", b / n }'; }

{
    echo "## bench-formats: $EV events (16 ranks; CPU time, best of 3; load $load)"
    echo
    echo "| what | vftr | libotf2 direct | ratio | target | verdict |"
    echo "|---|---|---|---|---|---|"
    echo "| OTF2 write (events in memory) | $(rate "$ws") | $(rate "$wp") | $(ratio "$ws" "$wp") | <= 1.2x | $(verdict "$ws" "$(awk -v p="$wp" 'BEGIN{print 1.2*p}')") |"
    echo "| OTF2 read (every event) | $(rate "$rv") | $(rate "$rp") | $(ratio "$rv" "$rp") | <= 1.2x | $(verdict "$rv" "$(awk -v p="$rp" 'BEGIN{print 1.2*p}')") |"
    echo "| conversion OTF -> OTF2 | $(rate "$cvv") | $(rate "$cp") | $(ratio "$cvv" "$cp") | <= 1.2x | $(verdict "$cvv" "$(awk -v p="$cp" 'BEGIN{print 1.2*p}')") |"
    echo
    echo "| output (from OTF) | write rate | bytes/event | target | verdict | peak RSS from .vfd: full / quarter | memory |"
    echo "|---|---|---|---|---|---|---|"
    echo "| OTF2 | $(rate "$o2_cpu") | $(bpe "$(du -sb "$OUT/v.otf2" | cut -f1)") | - | - | $o2_f / $o2_q KiB | $(rssok "$o2_f" "$o2_q") |"
    echo "| Perfetto, --compress | $(rate "$pz_cpu") | $(bpe "$pz_bytes") | <= 4 | $(verdict "$(bpe "$pz_bytes")" 4) | $pf_f / $pf_q KiB | $(rssok "$pf_f" "$pf_q") |"
    echo "| Perfetto | $(rate "$pf_cpu") | $(bpe "$pf_bytes") | - | - | - | - |"
    echo "| Chrome JSON | $(rate "$js_cpu") | $(bpe "$js_bytes") | - | - | $js_f / $js_q KiB | $(rssok "$js_f" "$js_q") |"
    echo
    echo "(peak RSS of the conversions from OTF, which counts the input's mapped files: OTF2 $o2_rss, Perfetto $pz_rss, JSON $js_rss KiB)"
} | tee "$BUILD/bench/formats.md"
rm -rf "$OUT/in" "$OUT/in4" "$OUT/sink" "$OUT/plain" "$OUT/pconv" "$OUT"/*.otf2 "$OUT"/*.pftrace \
    "$OUT"/*.json "$OUT"/full.* "$OUT"/quarter.*
