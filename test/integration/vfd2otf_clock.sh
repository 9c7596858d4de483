#!/bin/bash
# vfd2otf_clock.sh — clock alignment from CLOCK_OFFSETS (test/conv/mkvfd skew).
#
# Both ranks of the "skew" run share one true clock (tick = ns); rank 1's
# header says it started 5 ms early on a clock 100 ppm fast, the way
# VFTR_TEST_CLOCK_SKEW describes a rank.  Its CLOCK_OFFSETS (at ticks 1000
# and 9000000) say that both clocks read the same tick.  Rank 0 sends at
# tick 2000 + 100000 k (k = 0..89), rank 1 completes each receive at
# 2150 + 100000 k.  Aligned, rank 1's receive times must come back within a
# stated tolerance of 2 ns of those true times and no receive may precede its
# send; without alignment (--no-align) all 90 receives precede their sends
# (5 ms early) and vfd2otf says so.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"

$B/test/conv/mkvfd skew "$T" || { bad "mkvfd skew"; exit 1; }
$B/bin/vfd2otf -o "$T/k" "$T"/skew_*.vfd >"$T/out" 2>"$T/err" || bad "vfd2otf failed: $(cat "$T/err")"
grep -q '90 messages matched, 0 receives before their send' "$T/out" \
    && pass "aligned: 90 messages matched, none received before sent" || bad "summary: $(cat "$T/out")"
$B/test/conv/refdump -e "$T/k" >"$T/ev" || bad "reference cannot read the trace"
awk '$1 == 2 && $3 == "RECV" { k = n++; want = 2150 + 100000 * k; d = $2 - want; if (d < 0) d = -d;
        if (d > max) max = d } END { print n, max + 0 }' "$T/ev" >"$T/dev"
read -r n maxdev <"$T/dev"
[ "$n" = 90 ] && [ "$maxdev" -le 2 ] && pass "rank 1's receives at their true times (90, max deviation $maxdev ns <= 2)" \
    || bad "receives: $n, max deviation $maxdev ns"
awk '$1 == 1 && $3 == "SEND" { k = n++; if ($2 != 2000 + 100000 * k) bad++ } END { exit bad + (n != 90) }' "$T/ev" \
    && pass "rank 0's sends at their true times" || bad "rank 0's sends moved"
# every receive after its send (pairs in order)
paste <(awk '$3=="SEND"{print $2}' "$T/ev") <(awk '$3=="RECV"{print $2}' "$T/ev") \
    | awk '$2 < $1 { bad++ } END { exit bad }' && pass "no receive precedes its send (reference reader)" \
    || bad "a receive precedes its send"

$B/bin/vfd2otf --no-align -o "$T/n" "$T"/skew_*.vfd >"$T/out2" 2>"$T/err2"
grep -q '90 receives still precede their send' "$T/err2" \
    && pass "without alignment the 90 early receives are counted and reported" \
    || bad "no report without alignment: $(cat "$T/err2")"
exit $fail
