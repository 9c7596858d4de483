#!/bin/bash
# tui_tmux.sh — vftr-tui driven through tmux: start it in a detached session
# of a fixed size, send keys, poll the captured screen text until the
# expected state appears (or a timeout says FAIL), check the text.
#
# Trace: test/tui/tui_gen -p 4 -i 2000 (see its header), 1 tick = 1 us,
# FIRST = 1000, END = FIRST + 20 + 100 * 2000, so the trace spans
# [0, 200.021ms) counted from its start.  Profile of the whole trace, by
# hand (per iteration, summed over p = 1..4):
#   step      excl 90 - (20 + 2p) - 25 = 45 - 2p -> 160 per iteration,
#             x 2000 = 0.32 s; incl 90 x 4 x 2000 = 0.72 s; 8000 calls
#   exchange  25 x 4 x 2000 = 0.2 s
#   compute   (20 + 2p) -> 100 per iteration, 1800 iterations = 0.18 s
#   io_write  100 x 200 = 0.02 s
#   main      (10 per iteration + 20) x 4 = 0.08008 s excl, incl 0.80008 s
# Calls of compute on rank 0 start at 20 + 100 i us (i % 10 != 9).
set -u
: "${BUILD:=build}"
TUI=$BUILD/bin/vftr-tui
GEN=$BUILD/test/tui/vftr/tui_gen
GEN_REF=$BUILD/test/tui/ref/tui_gen
tmp=$(mktemp -d /tmp/vftr-tui-tmux.XXXXXX)
S=vftr-tui-test-$$
fails=0
# start, screen, wait_for, keys, check, pass, fail
. "$(dirname "$0")/../tui/tmux_lib.sh"

for p in "$TUI" "$GEN" "$GEN_REF"; do
    [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
command -v tmux >/dev/null || { echo "FAIL: tmux not installed"; exit 1; }

"$GEN" -p 4 -i 2000 -s 200 -S "$tmp/gen" || { echo "FAIL: tui_gen"; exit 1; }

# ---- first frame
start 80 24 "$tmp/gen"
check "first frame: status line with the trace's span (to a column: 2.86 ms)" '^gen  \[0 s, 200 ms\)  cursor 0 s  depth 1  sampled'
check "first frame: every process row shows main" '^rank 3   \|A{70}$'
check "first frame: step first, 0.32 s excl, 0.72 s incl, 8000 calls" '^>   320 ms    720 ms      8000 .* B step$'
check "first frame: main 0.08008 s excl, 0.80008 s incl" '^   80\.1 ms    800 ms         4   0\.0%  A main$'
check "first frame: io_write 0.02 s" '^   20\.0 ms   20\.0 ms       800 .* D io_write$'
# imbalance (max - avg) / max of the per-rank exclusive times, by hand:
# compute 1800 x (22, 24, 26, 28) us: (50.4 - 45) / 50.4 = 10.7%; step
# 2000 x (43, 41, 39, 37) us: (86 - 80) / 86 = 7.0%
check "first frame: compute 0.18 s, imbalance 10.7%" '^    180 ms    180 ms      7200  10\.7%  C compute$'
check "first frame: step's imbalance 7.0%" '^>   320 ms    720 ms      8000   7\.0%  B step$'
check "first frame: header without [s], times carry their unit" '^     exclv      incl     calls  imbal    function'

# ---- sort cycling: incl puts main first, then calls
keys s
check "sort: incl column, main first" '^>  80\.1 ms    800 ms         4'
check "sort: header marks incl" ' inclv '
keys s
check "sort: calls, step (8000) before compute (7200)" 'sorted by calls'
if screen | grep -A2 'calls' | grep -q 'step'; then pass "sort: calls order"; else fail "sort: calls order"; fi
keys s s s
check "sort: cycles back to excl" ' exclv '

# ---- zoom: 5 times in around the cursor at 0: span 200021 / 2^5 -> 6250 ticks
keys + + + + +
check "zoom: five steps in, exact events (to a column: 89 us)" '^gen  \[0 s, 6\.25 ms\)  cursor 0 s  depth 1  exact'
keys d d
check "depth 3 shows compute and exchange" '^rank 0   \|.*C.*E'
check "depth 3 legend" 'C=compute.*E=exchange'
keys D D
check "depth back to 1" 'depth 1  exact'

# ---- jump to a time: centred window of 6.25 ms around 100 ms
keys g
check "goto prompt" 'go to time'
keys 100ms Enter
check "goto: cursor at 100 ms, window around it" '^gen  \[96\.88 ms, 103\.12 ms\)  cursor 100\.00 ms'
check "goto: the axis gives the window to a column" '^process  \|96\.88 ms +103\.12 ms$'

# ---- search and n/N: functions with an 'o': compute, io_write
keys / o Enter
check "search: a match selected" '^>.*(C compute|D io_write)$'
first=$(screen | grep '^>' | grep -oE '(compute|io_write)$')
keys n
other=compute; [ "$first" = compute ] && other=io_write
check "search: n goes to the other match" "^>.* $other\$"
keys N
check "search: N comes back" "^>.* $first\$"
keys /
keys '^compute$' Enter
check "search: ^compute\$ selects compute" '^>.* C compute$'

# ---- next / previous call of the chosen function (compute on rank 0)
keys Enter
keys e
check "next call: compute at 100.02 ms" 'cursor 100\.02 ms'
keys e
check "next call: compute at 100.12 ms" 'cursor 100\.12 ms'
keys E
check "previous call: back to 100.02 ms" 'cursor 100\.02 ms'

# ---- details pane: stack at the cursor
keys v
check "details: stack of rank 0" '^stack of rank 0 at 100\.02 ms'
check "details: compute on the stack" '^      compute \(since 100\.02 ms\)'
keys v

# ---- resize
tmux resize-window -t "$S" -x 100 -y 30
check "resize: 90 timeline columns at 100x30" '^rank 0   \|.{90}$'
tmux resize-window -t "$S" -x 60 -y 20
check "resize: 50 columns at 60x20" '^rank 0   \|.{50}$'
tmux resize-window -t "$S" -x 80 -y 24

# ---- help, then quit
keys '?'
check "help screen" '^vftr-tui keys'
check "help lists the zoom keys" '^  \+, =, i +zoom in around the cursor'
keys x
check "help closed by any key" '^gen  \['
keys q
check "q: process gone, exit 0" '^EXIT=0$'
check "q: terminal restored (canonical mode, echo)" '^icanon echo *$'

# ---- SIGTERM: terminal restored too
start 80 24 "$tmp/gen"
check "second start" '^gen  \['
pid=$(tmux list-panes -t "$S" -F '#{pane_pid}')
tpid=$(pgrep -P "$pid" -x vftr-tui)
if [ -n "$tpid" ]; then kill -TERM "$tpid"; fi
check "SIGTERM: exit by the signal (143)" '^EXIT=143$'
check "SIGTERM: terminal restored" '^icanon echo *$'

# ---- a trace written by the reference library, snapshots by otfaux
"$GEN_REF" -p 4 -i 2000 "$tmp/ref" || fail "reference tui_gen"
start 80 24 "$tmp/ref"
check "reference trace without snapshots: exact, offers vftr-snap" 'run vftr-snap'
check "reference trace: same profile (step 0.32 s)" '^>   320 ms    720 ms      8000   7\.0%  B step$'
keys q
check "reference trace: quit" '^EXIT=0$'
if command -v otfaux >/dev/null && otfaux -n 200 "$tmp/ref.otf" >/dev/null 2>&1; then
    start 80 24 "$tmp/ref"
    check "otfaux snapshots: sampled first frame" '^ref  \[0 s, 200 ms\)  cursor 0 s  depth 1  sampled'
    keys + + + + + d d
    check "otfaux snapshots: zoomed in, depth 3 compute and exchange" '^rank 0   \|.*C.*E'
    keys g
    keys 150ms Enter
    check "otfaux snapshots: jump to 150 ms" 'cursor 150\.00 ms  depth 3  exact'
    keys q
    check "otfaux trace: quit" '^EXIT=0$'
else
    fail "otfaux could not add snapshots"
fi

# ---- bad traces: message, non-zero exit, terminal untouched
start 200 24 "$tmp/nothere"
check "missing trace: message" 'vftr-tui: .*nothere\.otf: cannot open trace \(No such file or directory\)'
check "missing trace: exit 1" '^EXIT=1$'
check "missing trace: terminal fine" '^icanon echo *$'

"$GEN" -p 2 -e "$tmp/empty" || fail "tui_gen -e"
start 200 24 "$tmp/empty"
check "no events: message" 'vftr-tui: .*empty: the trace has no events'
check "no events: exit 1" '^EXIT=1$'

# A stream cut inside a record: the remains of the last line are "E".
"$GEN" -p 4 -i 2000 "$tmp/cut" || fail "tui_gen"
size=$(stat -c %s "$tmp/cut.2.events")
head -c $((size / 2)) "$tmp/cut.2.events" | sed '$d' >"$tmp/cut.tmp"
printf 'E' >>"$tmp/cut.tmp"
mv "$tmp/cut.tmp" "$tmp/cut.2.events"
start 200 24 "$tmp/cut"
check "truncated stream: message with file and offset" 'cut\.2\.events: offset [0-9]+: malformed'
check "truncated stream: exit 1" '^EXIT=1$'
check "truncated stream: terminal restored" '^icanon echo *$'

# ---- --keys and the man page come from the same table
if "$TUI" --keys-man >"$tmp/keys.man" &&
   awk '/^\.SH KEYS/{on=1; next} /^\.SH/{on=0} on' share/man/man1/vftr-tui.1 |
   grep -v '^\.PP' | diff - "$tmp/keys.man" >/dev/null; then
    pass "man page KEYS section matches the key table"
else
    fail "man page KEYS section differs from 'vftr-tui --keys-man'"
fi

exit $((fails > 0))
