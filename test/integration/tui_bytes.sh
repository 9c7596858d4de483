#!/bin/bash
# tui_bytes.sh — vftr-tui reads only the windows it shows: the OTF library's
# count of bytes read (vftr_otf_manager_bytes_read), reported by
# `vftr-tui --bench`, against the size of the trace's files.
#
# Trace: test/tui/tui_gen -p 2 -i 200000 (3.2 M events) with 200 snapshots
# and summaries.  The first frame (whole trace, 70 columns) reads the
# snapshots and two summaries; each jump (window of 0.1 % of the trace)
# reads from the nearest snapshot (0.5 % apart) to the window's end.  Both
# must stay under 5 % of the trace.  Without snapshots a jump must read
# from the trace start: the same counter then shows a large share (the
# check that the counter counts).
set -u
: "${BUILD:=build}"
TUI=$BUILD/bin/vftr-tui
GEN=$BUILD/test/tui/vftr/tui_gen
tmp=$(mktemp -d /tmp/vftr-tui-bytes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$GEN" -p 2 -i 200000 -s 200 -S "$tmp/snap" || { echo "FAIL: tui_gen"; exit 1; }
"$GEN" -p 2 -i 200000 "$tmp/plain" || { echo "FAIL: tui_gen"; exit 1; }

total() { cat "$1".* | wc -c; }
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

"$TUI" --bench 20 "$tmp/snap" >"$tmp/snap.out" || fail "vftr-tui --bench on the trace with snapshots"
size=$(total "$tmp/snap")
first=$(val first_frame_bytes "$tmp/snap.out")
jump=$(val jump_bytes_max "$tmp/snap.out")
echo "trace $size bytes; first frame read $first; largest jump read $jump"
if [ -n "$first" ] && [ "$first" -gt 0 ] && [ $((first * 20)) -lt "$size" ]; then
    pass "first frame reads < 5 % of the trace ($first of $size bytes)"
else
    fail "first frame reads < 5 % of the trace ($first of $size bytes)"
fi
if [ -n "$jump" ] && [ "$jump" -gt 0 ] && [ $((jump * 20)) -lt "$size" ]; then
    pass "every jump reads < 5 % of the trace (at most $jump of $size bytes)"
else
    fail "every jump reads < 5 % of the trace (at most $jump of $size bytes)"
fi
[ "$(val first_frame_sampled "$tmp/snap.out")" = 1 ] && pass "first frame from snapshots" ||
    fail "first frame from snapshots"
[ "$(val jump_sampled "$tmp/snap.out")" = 0 ] && pass "jumps read events (exact)" ||
    fail "jumps read events (exact)"

"$TUI" --bench 3 "$tmp/plain" >"$tmp/plain.out" || fail "vftr-tui --bench without snapshots"
psize=$(total "$tmp/plain")
pjump=$(val jump_bytes_max "$tmp/plain.out")
if [ -n "$pjump" ] && [ $((pjump * 4)) -gt "$psize" ]; then
    pass "without snapshots a jump reads from the start (at most $pjump of $psize bytes, > 25 %)"
else
    fail "without snapshots a jump reads from the start ($pjump of $psize bytes)"
fi
exit $((fails > 0))
