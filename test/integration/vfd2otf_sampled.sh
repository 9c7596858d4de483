#!/bin/bash
# vfd2otf_sampled.sh — a sampled capture and a crashed (truncated) rank.
#
# sample (mkvfd): call paths 1 main, 2 main>a, 3 main>a>b, 4 main>c; samples
# 10:3 20:3 30:4 40:1, precise ENTER/EXIT of 2 at 50/60, samples 70:3, 80:1.
# Consistent pairs by comparing paths, by hand:
#   10 enter main, a, b; 30 leave b, a, enter c; 40 leave c; 50 enter a;
#   60 leave a; 70 enter a, b; 80 leave b, a; the end (80) leaves main.
# sampled: see below.
# trunc (mkvfd): chunk 1 = ENTER main 100, ENTER foo 150; chunk 2 (1000
# EXITs from 480) is cut by truncating the file: the data ends at 150 ns;
# the open frames are left there.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"

$B/test/conv/mkvfd sample "$T" || { bad "mkvfd sample"; exit 1; }
cat >"$T/expect" <<'X'
1 10 BEGINPROC
1 10 ENTER main
1 10 ENTER a
1 10 ENTER b
1 30 LEAVE b
1 30 LEAVE a
1 30 ENTER c
1 40 LEAVE c
1 50 ENTER a
1 60 LEAVE a
1 70 ENTER a
1 70 ENTER b
1 80 LEAVE b
1 80 LEAVE a
1 80 LEAVE main
1 80 ENDPROC
X
$B/bin/vfd2otf -q -o "$T/s" "$T"/sample_*.vfd || bad "vfd2otf sample"
$B/test/conv/refdump -e "$T/s" >"$T/got" && diff -u "$T/expect" "$T/got" \
    && pass "sampled capture: consistent Enter/Leave pairs as computed by hand" || bad "sampled events"

# sampled (mkvfd): what a capture with a 10 us interval writes (see
# mkvfd.c; times in us here, in ns in the trace).  Each record's time since the previous one goes to the state
# the record leaves behind it (ENTER p: parent(p), EXIT p: p), by hand:
#   0 enter main; 12 enter f; 25 leave f; 37 enter f; ENTER f at 50 finds
#   f open: f was left, at 37 (the previous record); 50 enter f; ENTER p at
#   60 (parent main): leave f at 50, enter p at 60; 65 leave p; EXIT f at
#   80 finds main: f was entered, at 65; 80 leave f; 90 leave main.
# Profile: main excl 12+12+13+10+10 = 57, f 13+0+0+15 = 28 (calls not
# known), p 5 (precise: 1 call, exact); 57+28+5 = 90, the span.
$B/test/conv/mkvfd sampled "$T" || bad "mkvfd sampled"
cat >"$T/expect" <<'X'
1 0 BEGINPROC
1 0 ENTER main
1 12000 ENTER f
1 25000 LEAVE f
1 37000 ENTER f
1 37000 LEAVE f
1 50000 ENTER f
1 50000 LEAVE f
1 60000 ENTER p
1 65000 LEAVE p
1 65000 ENTER f
1 80000 LEAVE f
1 90000 LEAVE main
1 90000 ENDPROC
X
$B/bin/vfd2otf -q -o "$T/sd" "$T"/sampled_*.vfd || bad "vfd2otf sampled"
$B/test/conv/refdump -e "$T/sd" >"$T/got" && diff -u "$T/expect" "$T/got" \
    && pass "sampled capture: the time before each record goes to the state it leaves" \
    || bad "sampled events"
prof() { $B/bin/vftr-stats --csv "$@" | awk -F, 'NR > 1 { print $12, $1, $2 * 1e6 }' | sort | tr '\n' ';'; }
want="f  28;main  57;p 1 5;"
check_eq() { [ "$2" = "$3" ] && pass "$1" || bad "$1 (expected '$2', got '$3')"; }
check_eq "sampled: profile of the .vfd by hand (calls of f and main not known)" "$want" "$(prof "$T"/sampled_*.vfd)"
check_eq "sampled: the OTF conversion gives the same profile" "$want" "$(prof "$T/sd")"
$B/bin/vftr-stats "$T/sd" | grep -q '^sampled capture: .* every 1e-05 s' \
    && pass "sampled: the table says it is a sampled capture, with the interval" \
    || bad "sampled: no note ($($B/bin/vftr-stats "$T/sd" | head -1))"
$B/bin/vftr-stats "$T"/sampled_*.vfd | awk '$NF == "f" { print $1 }' | grep -qx -- '-' \
    && pass "sampled: calls of a function that is not precise are shown as unknown" \
    || bad "sampled: calls of f shown"
$B/bin/vftr-stats --json "$T/sd" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["sample_interval_s"] == 1e-05; f=[x for x in d["functions"] if x["function"]=="f"][0]; assert f["calls"] is None' \
    && pass "sampled: JSON carries the interval and null calls" || bad "sampled: JSON"

bytes=$($B/test/conv/mkvfd trunc "$T") || bad "mkvfd trunc"
truncate -s $((bytes - 400)) "$T/trunc_0.vfd"
$B/bin/vfd2otf -o "$T/t" "$T/trunc_0.vfd" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 0 ] && pass "truncated file converts (exit 0)" || bad "exit $rc"
grep -q 'rank 0 is incomplete.*ends at 0.000000150 s' "$T/err" \
    && pass "warning names the rank and its end time" || bad "warning: $(cat "$T/err")"
grep -q 'truncated' "$T/err" && pass "warning names the truncated chunk" || bad "no truncation warning: $(cat "$T/err")"
cat >"$T/expect" <<'X'
1 100 BEGINPROC
1 100 ENTER main
1 150 ENTER foo
1 150 LEAVE foo
1 150 LEAVE main
1 150 ENDPROC
X
$B/test/conv/refdump -e "$T/t" >"$T/got" && diff -u "$T/expect" "$T/got" \
    && pass "truncated: events up to the last whole chunk, open frames closed" || bad "truncated events"
exit $fail
