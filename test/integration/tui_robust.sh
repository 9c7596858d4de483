#!/bin/bash
# tui_robust.sh — vftr-tui under inputs that used to keep it busy or
# mislead (issue 15, items 6 and 10), driven through tmux:
#   - a compressed event file that inflates a thousandfold (1 MB on disk,
#     1 GB of blank lines, between the events of the first and second half
#     of the stream): the first view shows its progress at once, Escape
#     stops the reads (the view is left empty and says so) and q quits —
#     the old TUI read for about half a minute before it looked at a key;
#   - Escape in the g and / prompts cancels them (it used to be typed into
#     the text, and so did every key after it until Enter);
#   - a trace without DefTimerResolution: its times are ticks, and the
#     profile headers and the message line say so instead of "[s]".
# Trace: test/tui/tui_gen -p 2 -i 10 (1 tick = 1 us, FIRST = 1000).
set -u
: "${BUILD:=build}"
TUI=$BUILD/bin/vftr-tui
GEN=$BUILD/test/tui/vftr/tui_gen
tmp=$(mktemp -d /tmp/vftr-tui-robust.XXXXXX)
S=vftr-tui-robust-$$
fails=0
# start, screen, wait_for, keys, check, pass, fail
. "$(dirname "$0")/../tui/tmux_lib.sh"

for p in "$TUI" "$GEN"; do
    [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
command -v tmux >/dev/null || { echo "FAIL: tmux not installed"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 not installed"; exit 1; }

"$GEN" -p 2 -i 10 "$tmp/t" || { echo "FAIL: tui_gen"; exit 1; }

# ---- the thousandfold stream: stream 1's events, compressed, with 1000
# blocks of 1 MiB of newlines in the middle (full flushes between, as OTF's
# writer makes segments; identical blocks, so that writing it costs little)
mkdir "$tmp/bomb"
cp "$tmp/t.otf" "$tmp/t.0.def" "$tmp/t.2.events" "$tmp/bomb/"
python3 - "$tmp/t.1.events" "$tmp/bomb/t.1.events.z" <<'EOF'
import sys, zlib
ev = open(sys.argv[1], 'rb').read()
half = ev.rfind(b'\n', 0, len(ev) // 2) + 1
c = zlib.compressobj(9)
data = c.compress(ev[:half]) + c.flush(zlib.Z_FULL_FLUSH)
block = c.compress(b'\n' * (1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
data += block * 1000
data += c.compress(ev[half:]) + c.flush(zlib.Z_FULL_FLUSH)
open(sys.argv[2], 'wb').write(data)
EOF
size=$(stat -c %s "$tmp/bomb/t.1.events.z")
[ "$size" -lt 2000000 ] && pass "the stream is small on disk ($size bytes)" || fail "stream size $size"

start 100 30 "$tmp/bomb/t"
check "1000x stream: the first view shows how much it has read" \
      'reading the trace: [0-9.]+ MB so far \.\.\. Esc stops, q quits' 5
keys Escape
check "1000x stream: Escape stops the reads at once" 'stopped reading after [0-9.]+ MB: the view is left empty' 3
check "1000x stream: the status line is there" '^t  \[0 s, '
keys q
check "1000x stream: q quits" '^EXIT=0' 3

start 100 30 "$tmp/bomb/t"
check "1000x stream again: reading" 'reading the trace: [0-9.]+ MB so far' 5
keys q
check "1000x stream: q quits while reading" '^EXIT=0' 3

# ---- prompts: Escape cancels, the keys after it are keys again
start 100 30 "$tmp/t"
check "prompts: first frame" '^t  \[0 s, 1\.02 ms\)  cursor 0 s'
keys g 5 0 0
check "g prompt: the text as typed" 'go to time \(e\.g\. 1\.5ms, 2500\): 500$'
keys Escape
check_gone "g prompt: Escape closes it" 'go to time'
check "g prompt: no jump (cursor still at 0)" '^t  \[0 s, 1\.02 ms\)  cursor 0 s'
keys g 1 x BSpace 0 0 Enter
check "g prompt: Backspace edits, Enter jumps to 100 ticks" 'cursor 100 us'
keys / s t e
check "/ prompt: the text as typed" '^/ste$'
keys Escape n
check "/ prompt: Escape cancels, n is a key again (no search)" 'no search: start one with /'
keys q
check "prompts: q quits after them" '^EXIT=0' 3

# ---- no timer resolution: ticks, said
mkdir "$tmp/nores"
cp "$tmp/t.otf" "$tmp/t.1.events" "$tmp/t.2.events" "$tmp/nores/"
grep -v '^DTR' "$tmp/t.0.def" >"$tmp/nores/t.0.def"
if grep -q '^DTR' "$tmp/t.0.def"; then pass "nores: DefTimerResolution removed"
else fail "nores: the generator's DefTimerResolution line is not DTR..."; fi
start 120 30 "$tmp/nores/t"
check "nores: the message line says times are ticks" 'does not give its timer resolution: times are in ticks'
check "nores: profile headers in ticks" 'excl\[t\]v +incl\[t\]'
check "nores: 840 ticks of step (bare ticks, not seconds)" '^> +840 +1800 +20 '
keys q
check "nores: q quits" '^EXIT=0' 3

exit $((fails > 0))
