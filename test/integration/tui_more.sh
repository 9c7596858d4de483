#!/bin/bash
# tui_more.sh — vftr-tui in tmux: collective marks in the timeline, folding
# of thread rows, and the S key that runs vftr-snap from inside the UI.
#
# Traces: test/tui/tui_gen -p 4 -i 2000 (see its header; 1 tick = 1 us,
# FIRST = 1000) with -c (a CollectiveOperation per process and iteration at
# base + 85) and -t 2 (threads t<rank>.1, t<rank>.2 under each rank, main
# only).  With --time 0:700us the 70 timeline columns of an 80-column
# terminal are 10 us each, and iteration i (base = 10 + 100 i from the
# start) puts its send (base + 60) in column 7 + 10 i, its receive
# (base + 70) in column 8 + 10 i and the collective (base + 85) in column
# 9 + 10 i.  So a rank's row with marks on (M) is, by hand,
#     (A{7} * * #) seven times      with collectives
#     (A{7} * * A) seven times      without
# and a thread's row (no messages, no collectives) is A{70}.
set -u
: "${BUILD:=build}"
TUI=$BUILD/bin/vftr-tui
SNAP=$BUILD/bin/vftr-snap
GEN=$BUILD/test/tui/vftr/tui_gen
GEN_REF=$BUILD/test/tui/ref/tui_gen
tmp=$(mktemp -d /tmp/vftr-tui-more.XXXXXX)
S=vftr-tui-more-$$
fails=0
. "$(dirname "$0")/../tui/tmux_lib.sh"

for p in "$TUI" "$SNAP" "$GEN" "$GEN_REF"; do
    [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
command -v tmux >/dev/null || { echo "FAIL: tmux not installed"; exit 1; }

"$GEN" -p 4 -i 2000 -c -t 2 "$tmp/ct" || { echo "FAIL: tui_gen -c -t 2"; exit 1; }
"$GEN" -p 4 -i 2000 "$tmp/plain" || { echo "FAIL: tui_gen"; exit 1; }
"$GEN_REF" -p 4 -i 2000 -c "$tmp/ref" || { echo "FAIL: reference tui_gen -c"; exit 1; }

marked='(A{7}\*\*#){7}'
unmarked='(A{7}\*\*A){7}'

# ---- collective marks
start 80 24 --time 0:700us "$tmp/ct"
check "collectives: window of 700 us, exact" '^ct  \[0 s, 700 us\)  cursor 0 s  depth 1  exact'
check "collectives: no marks before M" '^-rank 0  \|A{70}$'
keys M
check "collectives: rank 0 has send, receive and collective marks" "^-rank 0  \\|$marked\$"
check "collectives: rank 3 too" "^-rank 3  \\|$marked\$"
check "collectives: thread rows have no marks" '^  t2\.1   \|A{70}$'
keys M
check "collectives: M again hides the marks" '^-rank 0  \|A{70}$'
keys q
check "collectives: quit" '^EXIT=0$'

start 80 24 --time 0:700us "$tmp/ref"
check "reference-library trace: first frame" '^ref  \[0 s, 700 us\)'
keys M
check "reference-library trace: collective marks" "^rank 1   \\|$marked\$"
keys q
check "reference-library trace: quit" '^EXIT=0$'

start 80 24 --time 0:700us "$tmp/plain"
check "no collectives: first frame" '^plain  \[0 s, 700 us\)'
keys M
check "no collectives: only message marks" "^rank 2   \\|$unmarked\$"
keys q
check "no collectives: quit" '^EXIT=0$'

# ---- folding thread rows (rank 0 is selected at the start)
start 80 24 --time 0:700us "$tmp/ct"
check "threads: listed under their rank, unfolded" '^-rank 0  \|'
if screen | grep -A2 -- '^-rank 0 ' | sed -n '2p;3p' | tr '\n' ' ' |
   grep -Eq '^  t0\.1 .*  t0\.2 '; then
    pass "threads: t0.1 and t0.2 follow rank 0"
else
    fail "threads: t0.1 and t0.2 do not follow rank 0"; screen | sed 's/^/    | /'
fi
keys f
check "fold: rank 0 marked folded" '^\+rank 0  \|'
check_gone "fold: t0.1 hidden" '^  t0\.1 '
check "fold: rank 1's threads still shown" '^  t1\.2   \|'
if screen | grep -A1 -- '^+rank 0 ' | sed -n 2p | grep -q '^-rank 1 '; then
    pass "fold: rank 1 directly under rank 0"
else
    fail "fold: rank 1 is not the row under rank 0"; screen | sed 's/^/    | /'
fi
keys f
check "unfold: t0.1 back" '^  t0\.1   \|'
check "unfold: rank 0 marked unfolded" '^-rank 0  \|'
# on a thread row, f folds its rank
keys j f
check "fold from a thread row: its rank folds" '^\+rank 0  \|'
check_gone "fold from a thread row: t0.2 hidden" '^  t0\.2 '
keys q
check "threads: quit" '^EXIT=0$'

start 80 24 "$tmp/plain"
check "no threads: first frame" '^plain  \['
keys f
check "no threads: f says so" 'this process has no threads to fold'
keys q

# ---- the help pages at 80x24: its last key (S) is reachable
start 80 24 "$tmp/plain"
check "help paging: first frame" '^plain  \['
keys '?'
check "help paging: first page says there is more" '^vftr-tui keys \(PgDn'
if screen | grep -q '^  S  '; then fail "help paging: S already on the first page (test assumes 32 lines)"
else pass "help paging: S not on the first page"; fi
keys PageDown
check "help paging: S on the last page" '^  S +no snapshots: run vftr-snap'
check "help paging: last page header" '^vftr-tui keys \(PgUp'
keys PageUp
check "help paging: back to the first page" '^  \? +show or hide this help'
keys x
check "help paging: another key closes it" '^plain  \['
keys q
check "help paging: quit" '^EXIT=0$'

# ---- S: run vftr-snap from the UI (fold rank 1 first: folds survive)
start 80 24 "$tmp/ct"
check "no snapshots: read exactly, S offered" 'press S to run vftr-snap'
check "no snapshots: status line exact" '^ct  \[0 s, 200 ms\)  cursor 0 s  depth 1  exact'
keys j j j f
check "before S: rank 1 folded" '^\+rank 1  \|'
keys S
check "S: vftr-snap done" 'vftr-snap done: [0-9]+ snapshots' 30
check "S: the whole-trace view now comes from snapshots" \
    '^ct  \[0 s, 200 ms\)  cursor 0 s  depth 1  sampled'
# main: 0.08008 s excl on the ranks + 8 threads x 0.20002 s = 1.68024 s;
# every rank (its threads with it) has 0.42006 s of it: imbalance 0.0%
check "S: hand-computed profile after the reload (main 1.68024 s excl)" \
    '^>   1\.68 s    2\.40 s        12   0\.0%  A main$'
check "S: hand-computed profile after the reload (step 0.32 s)" \
    '^    320 ms    720 ms      8000   7\.0%  B step$'
check "S: the fold survived the reload" '^\+rank 1  \|'
if ls "$tmp"/ct.*.snaps >/dev/null 2>&1; then pass "S: snapshot files beside the trace"
else fail "S: no ct.*.snaps files"; fi
keys S
check "S again: the trace has snapshots already" 'has [0-9]+ snapshots already'
keys q
check "S: quit" '^EXIT=0$'
check "S: terminal restored" '^icanon echo *$'
# reopened from scratch, the trace starts sampled and makes no offer
start 80 24 "$tmp/ct"
check "after S: a new start is sampled" '^ct  \[0 s, 200 ms\)  cursor 0 s  depth 1  sampled'
if screen | grep -q 'press S'; then fail "after S: still offers vftr-snap"; else pass "after S: no offer"; fi
keys q

# vftr-snap is the one next to vftr-tui: a copy of vftr-tui with no
# vftr-snap beside it, then one with a failing stand-in that reports its
# arguments; its output goes to the message line, not over the screen.
mkdir -p "$tmp/alone" "$tmp/fake"
cp "$TUI" "$tmp/alone/vftr-tui"
cp "$TUI" "$tmp/fake/vftr-tui"
printf '#!/bin/sh\necho "$@" >"%s/fake.args"\nsleep 2\necho some progress\necho "bad thing happened" >&2\nexit 3\n' \
    "$tmp" >"$tmp/fake/vftr-snap"
chmod +x "$tmp/fake/vftr-snap"
TUI_SAVED=$TUI
TUI=$tmp/alone/vftr-tui
start 120 24 "$tmp/plain"
check "no vftr-snap beside: first frame" '^plain  \['
keys S
check "no vftr-snap beside: message" "no vftr-snap next to vftr-tui \\($tmp/alone/vftr-snap\\)"
keys q
check "no vftr-snap beside: quit" '^EXIT=0$'
TUI=$tmp/fake/vftr-tui
start 120 24 "$tmp/plain"
check "failing vftr-snap: first frame" '^plain  \['
keys S
check "failing vftr-snap: status line says it is running" 'running vftr-snap --all .*plain \.\.\.'
check "failing vftr-snap: exit status and its last line" \
    'vftr-snap failed \(exit status 3\): bad thing happened'
if screen | grep -q 'some progress'; then fail "failing vftr-snap: output on the screen"
else pass "failing vftr-snap: output captured, not on the screen"; fi
check "failing vftr-snap: the view is still there (exact)" '^plain  \[0 s, 200 ms\).*exact'
if [ "$(cat "$tmp/fake.args" 2>/dev/null)" = "--all $tmp/plain" ]; then
    pass "failing vftr-snap: called as vftr-snap --all TRACE"
else
    fail "failing vftr-snap: arguments '$(cat "$tmp/fake.args" 2>/dev/null)'"
fi
keys q
check "failing vftr-snap: quit" '^EXIT=0$'
TUI=$TUI_SAVED

exit $((fails > 0))
