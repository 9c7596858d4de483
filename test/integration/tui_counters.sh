#!/bin/bash
# tui_counters.sh — vftr-tui's profile counter column (issue 20), in tmux.
# cap_counters (N fresh pages touched in touch_pages, M ms of CPU spun in
# spin) captured with task-clock and page-faults, converted by vfd2otf.
# Whole calls inside the window: the column of a function is what the
# capture's own log says of its calls (inclusive, thread 0), exactly:
#   - events only (the window read event by event): the column shows
#     task-clock; spin's and touch_pages' values = the log's; K shows
#     page-faults, touch_pages' = the log's (at least the N pages);
#   - with snapshots the whole-trace profile comes from summaries, which
#     have no counters: the column shows "-", never a made-up figure.
set -u
: "${BUILD:=build}"
TUI=$BUILD/bin/vftr-tui
RUN=$BUILD/bin/vftr-run
VFD2OTF=$BUILD/bin/vfd2otf
PROG=$BUILD/test/capture/cap_counters
tmp=$(mktemp -d /tmp/vftr-tui-ctr.XXXXXX)
S=vftr-tui-ctr-$$
fails=0
. "$(dirname "$0")/../tui/tmux_lib.sh"

for p in "$TUI" "$RUN" "$VFD2OTF" "$PROG"; do
    [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
command -v tmux >/dev/null || { echo "FAIL: tmux not installed"; exit 1; }

PAGES=700
echo '{ "counters": { "events": "task-clock,page-faults" } }' >"$tmp/cfg.json"
env -u VFTR_CONFIG VFTR_CONFIG="$tmp/cfg.json" "$RUN" --out "$tmp/run" -- "$PROG" $PAGES 30 \
    >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: cap_counters under vftr-run"; cat "$tmp/err"; exit 1; }
log=$tmp/run/cap_counters_0.log
# logval FUNCTION COLUMN: thread 0's inclusive count (4: task-clock, 6: page-faults)
logval() { awk -v f="$1" -v c="$2" '/^Counters \(per call path/ { getline; on = 1; next }
    on && $1 == "0" && $NF == f { print $c; exit }' "$log"; }
tc_spin=$(logval spin 4) tc_touch=$(logval touch_pages 4) pf_touch=$(logval touch_pages 6)
[ -n "$tc_spin" ] && [ -n "$pf_touch" ] || { echo "FAIL: no counter table in the log"; exit 1; }
"$VFD2OTF" --events-only -o "$tmp/ev" "$tmp/run/cap_counters_0.vfd" >/dev/null 2>&1 &&
"$VFD2OTF" -o "$tmp/snap" "$tmp/run/cap_counters_0.vfd" >/dev/null 2>&1 ||
    { echo "FAIL: vfd2otf"; exit 1; }

# a profile row: '>' or ' ', excl incl calls imbal COUNTER, symbol, name
row() { printf '^[> ] *[0-9.]+ [a-z]+ +[0-9.]+ [a-z]+ +1 +[0-9.]+%% +%s  . %s$' "$1" "$2"; }

start 100 30 "$tmp/ev.otf"
check "events only: the counter column is task-clock" 'imbal +task-clock +function'
check "events only: spin's task-clock = the log's ($tc_spin)" "$(row "$tc_spin" spin)"
check "events only: touch_pages' task-clock = the log's ($tc_touch)" "$(row "$tc_touch" touch_pages)"
keys K
check "K: the column shows page-faults" 'imbal +page-faults +function'
check "K: touch_pages' page-faults = the log's ($pf_touch, $PAGES pages touched)" "$(row "$pf_touch" touch_pages)"
[ "$pf_touch" -ge $PAGES ] && pass "the log counted at least the $PAGES pages" || fail "the log's page-faults $pf_touch < $PAGES"
keys K
check "K again: back to task-clock" 'imbal +task-clock +function'

start 100 30 "$tmp/snap.otf"
check "from summaries: the column says nothing it does not know" "$(row - spin)"

keys q
[ $fails -eq 0 ] || exit 1
exit 0
