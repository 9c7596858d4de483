#!/bin/bash
# tui_views.sh — vftr-tui in tmux (issue 16): more than 52 functions keep
# symbols of their own (no '#', the collective mark), the legend wraps and
# pages with L; the focused pane's title is in reverse video; thread rows
# named as vfd2otf names them read "rank 0 thread 1" in full; the
# communication view (C) with its matrix in messages, bytes and transfer
# time (u) and the lines of the messages in flight at the cursor.
#
# Traces: test/tui/tui_gen (see its header; 1 tick = 1 us, iteration i at
# base = 10 + 100 i from the start).  With -f N the work of iteration i is
# kernel_(i % N), entered at base + 10 at call depth 3; a cell shows the
# function open at its start at the depth shown, else the first entered in
# it.  With --time 0:7000us an 80-column terminal has 70 columns of 100 us:
# at depth 3 column c shows kernel_(c % N).  Functions are 1 main, 2 step,
# 3 compute, 4 io_write, 5 exchange, 6.. kernel_00..; the symbols are
# A-Z a-z 0-9 (62).
#   -f 40 (45 functions, <= 62): every function keeps the symbol of its
#         index: kernel_k is symbol 5 + k, so columns 0-39 are F..z 0..8
#         (kernel_00..kernel_39) and 40-69 F..i again.
#   -f 70 (75 functions): the 70 kernels on screen cover 4 cells each; by
#         cells then index, kernel_00..kernel_60 get A..8 and the last 9
#         share '~'.
# Messages (no -f): each rank r sends 64 bytes to rank r+1 (mod 4) at
# base + 60 = 70 us + 100 i and receives at base + 70; in [0, 700us) 7 per pair, 448
# bytes, 7 x 10 us = 70us of transfer.  At the cursor 70 us (column 7 of
# 10 us) the 4 messages of iteration 0 are in flight, sent in column 7,
# received in column 8.
set -u
: "${BUILD:=build}"
TUI=$BUILD/bin/vftr-tui
GEN=$BUILD/test/tui/vftr/tui_gen
tmp=$(mktemp -d /tmp/vftr-tui-views.XXXXXX)
S=vftr-tui-views-$$
fails=0
. "$(dirname "$0")/../tui/tmux_lib.sh"

for p in "$TUI" "$GEN"; do
    [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
command -v tmux >/dev/null || { echo "FAIL: tmux not installed"; exit 1; }

"$GEN" -p 4 -i 200 -f 70 "$tmp/f70" || { echo "FAIL: tui_gen -f 70"; exit 1; }
"$GEN" -p 4 -i 200 -f 40 "$tmp/f40" || { echo "FAIL: tui_gen -f 40"; exit 1; }
"$GEN" -p 4 -i 2000 "$tmp/plain" || { echo "FAIL: tui_gen"; exit 1; }
"$GEN" -p 4 -i 2000 -t 2 -n "$tmp/named" || { echo "FAIL: tui_gen -t 2 -n"; exit 1; }

# reverse LINE COL: 1 when the character at (LINE, COL) (from 0) of the
# pane is in reverse video, from the SGR sequences tmux writes with -e
reverse() {
    tmux capture-pane -t "$S" -p -e | python3 -c '
import re, sys
want_y, want_x = int(sys.argv[1]), int(sys.argv[2])
rev = False
for y, line in enumerate(sys.stdin.read().split("\n")):
    x = 0
    for tok in re.findall(r"\x1b\[[0-9;]*m|.", line):
        if tok.startswith("\x1b["):
            codes = [int(c) if c else 0 for c in tok[2:-1].split(";")]
            for c in codes:
                if c == 0: rev = False
                elif c == 7: rev = True
                elif c == 27: rev = False
            continue
        if y == want_y and x == want_x:
            print(1 if rev else 0); sys.exit(0)
        x += 1
print("none")' "$1" "$2"
}
check_eq() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; screen | sed 's/^/    | /'; fi
}

# ---- 75 functions: 61 symbols by cells on screen, '~' for the rest
syms=ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789
start 80 24 --time 0:7000us "$tmp/f70"
check "75 functions: first frame" '^f70  \[0 s, 7\.0 ms\)'
keys d d
row70="${syms:0:61}~~~~~~~~~"
check "75 functions: 61 symbols then 9 '~', no '#'" "^rank 0   \\|${row70}\$"
check "75 functions: rank 3 the same" "^rank 3   \\|${row70}\$"
check "legend: wraps, A=kernel_00 first" '^A=kernel_00  B=kernel_01  C=kernel_02'
check "legend: the next line goes on" '^G=kernel_06  H=kernel_07'
check "legend: the rest is counted, L pages" '\+45 more \(L\)$'
keys L
check "legend L: the second page" '^R=kernel_17  S=kernel_18'
keys L L
check "legend L: the last page names the shared symbol" '~=9 more functions'
check "legend L: the last page says L starts over" 'L: from the top$'
keys L
check "legend L: back to the first page" '^A=kernel_00  B=kernel_01'
# the profile row carries the function's symbol
check "profile: the rows carry the functions' symbols" '  J kernel_09$'
keys q
check "75 functions: quit" '^EXIT=0$'

# ---- 45 functions: each its own symbol, by index
start 80 24 --time 0:7000us "$tmp/f40"
keys d d
row40="${syms:5:40}${syms:5:30}"
check "45 functions: kernel_k is symbol 5 + k in every view" "^rank 1   \\|${row40}\$"
check "45 functions: legend F=kernel_00" '^F=kernel_00  G=kernel_01'
keys q
check "45 functions: quit" '^EXIT=0$'

# ---- the focused pane: its title in reverse video
start 80 24 --time 0:700us "$tmp/plain"
check "focus: first frame" '^plain  \[0 s, 700 us\)'
check_eq "focus: the timeline's title line (axis) in reverse video" 1 "$(reverse 1 0)"
pt=$(screen | grep -n ' exclv  *incl ' | head -1 | cut -d: -f1)
check_eq "focus: the profile's title not" 0 "$(reverse $((pt - 1)) 2)"
keys Tab
sleep 0.3
check_eq "focus Tab: the profile's title in reverse video" 1 "$(reverse $((pt - 1)) 2)"
check_eq "focus Tab: the timeline's title not" 0 "$(reverse 1 0)"
keys Tab

# ---- the communication view
keys C
check "matrix: its title" '^messages \(u\) in \[0 s, 700 us\): 28 sent, 1792 B; 0 received later, 0 sent before$'
check "matrix: receivers' header" '^to ->      rank 0  rank 1  rank 2  rank 3$'
check "matrix: rank 0 sent 7 to rank 1" '^rank 0   \|      \.       7       \.       \.$'
check "matrix: rank 3 sent 7 to rank 0" '^rank 3   \|      7       \.       \.       \.$'
keys u
check "matrix u: bytes, 7 x 64" '^rank 1   \|      \.       \.     448       \.$'
keys u
check "matrix u: transfer time, 7 x 10 us" '^rank 2   \|      \.       \.       \. 70\.0 us$'
keys u
check "matrix u: back to messages" '^rank 2   \|      \.       \.       \.       7$'
keys Right Right Right Right Right Right Right
check "lines at the cursor: cursor at 70us" 'cursor 70 us'
check "lines: rank 0 sends at column 7, receives from rank 3 at 8" '^rank 0   \|A{7}@@A{61}$'
check "lines: rank 1 receives at 8, a line passes at 7" '^rank 1   \|A{7}\|@A{61}$'
check "lines: rank 3 sends at column 7" '^rank 3   \|A{7}@@A{61}$'
keys C
check_gone "C again: the profile is back" '^to ->'
keys q
check "plain: quit" '^EXIT=0$'
# a window that ends between the sends (70 us) and the receives (80 us)
start 80 24 --time 0:75us "$tmp/plain"
keys C
check "matrix of [0, 75us): 4 sent, received later" '^messages \(u\) in \[0 s, 75 us\): 4 sent, 256 B; 4 received later, 0 sent before$'
check "matrix of [0, 75us): a message per pair" '^rank 1   \|      \.       \.       1       \.$'
keys q
check "[0, 75us): quit" '^EXIT=0$'
# one that starts between them: 4 received, sent before it
start 80 24 --time 75us:100us "$tmp/plain"
keys C
check "matrix of [75us, 100us): none sent, 4 received from before" '^messages \(u\) in \[75 us, 100 us\): 0 sent, 0 B; 0 received later, 4 sent before$'
keys q
check "[75us, 100us): quit" '^EXIT=0$'

# ---- thread rows named as vfd2otf names them
start 80 24 --time 0:700us "$tmp/named"
check "threads: ranks from 0, lower-case" '^-rank 0           \|A+$'
check "threads: a thread row reads in full" '^  rank 0 thread 1 \|A+$'
check "threads: the second thread differs" '^  rank 3 thread 2 \|A+$'
keys q
check "named: quit" '^EXIT=0$'

[ "$fails" -eq 0 ]
