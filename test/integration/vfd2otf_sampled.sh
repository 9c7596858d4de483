#!/bin/bash
# vfd2otf_sampled.sh — a sampled capture and a crashed (truncated) rank.
#
# sample (mkvfd): call paths 1 main, 2 main>a, 3 main>a>b, 4 main>c; samples
# 10:3 20:3 30:4 40:1, precise ENTER/EXIT of 2 at 50/60, samples 70:3, 80:1.
# Consistent pairs by comparing paths, by hand:
#   10 enter main, a, b; 30 leave b, a, enter c; 40 leave c; 50 enter a;
#   60 leave a; 70 enter a, b; 80 leave b, a; the end (80) leaves main.
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
