#!/bin/bash
# tui_waits.sh — vftr-tui's views of the wait analysis in tmux (w: the wait
# overlay and the line at the cursor, P: the critical path, W: the pattern
# table), on test/waits/mkwaits' hand-built runs, whose waits and critical
# paths test/integration/waits_exact.sh works out by hand (times in us,
# 1 tick = 1 ns).  The timeline has one column per 100 us wherever it is
# read here: a window of 7 ms over 70 columns (80-column terminal, labels
# of 10), or a whole run of 10 ms (its last event at 10 ms: [0, 10 ms + 1
# tick)) over 100 columns, so that column c is [100 c, 100 c + 100) us.
#
# p2p by hand: rank 1 waits in MPI_Recv 1000..5000 for rank 0's MPI_Send
#   at 5000 (Late Sender), rank 0 in MPI_Recv 5200..7000 for rank 1's send
#   at 7000; rank 1's MPI_Init completion 50..60.  In [0, 7 ms):
#     rank 0  A{52} ={18}          (5200..7000: columns 52..69)
#     rank 1  % A{9} ={40} A{20}   (50..60: column 0; 1000..5000: 10..49)
#   Critical path of the run: rank 0 [0, 5000), rank 1 [5000, 10000).
# chain3: critical path rank 0 [0, 3100), rank 1 [3100, 3400), rank 2
#   [3400, 6000) (the run ends at 6 ms: 60 columns at width 70).
# omp: thread 1 idle 0..1100, at the implicit barrier 2100..4000, idle
#   4990..6050, at the explicit barrier 6650..6800, idle 7990..10000.
# The pattern table is compared with the hand-worked figures of
# waits_exact.sh and, row by row, with vftr-stats --waits --threads on the
# same window.
set -u
: "${BUILD:=build}"
TUI=$BUILD/bin/vftr-tui
STATS=$BUILD/bin/vftr-stats
V2O=$BUILD/bin/vfd2otf
MK=$BUILD/test/waits/mkwaits
GEN=$BUILD/test/tui/vftr/tui_gen
tmp=$(mktemp -d /tmp/vftr-tui-waits.XXXXXX)
S=vftr-tui-waits-$$
fails=0
. "$(dirname "$0")/../tui/tmux_lib.sh"

for p in "$TUI" "$STATS" "$V2O" "$MK" "$GEN"; do
    [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
command -v tmux >/dev/null || { echo "FAIL: tmux not installed"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 not installed"; exit 1; }

for s in p2p chain3 coll omp; do
    mkdir -p "$tmp/$s"
    "$MK" "$s" "$tmp/$s" && "$V2O" -q -o "$tmp/$s.otf" "$tmp/$s" >/dev/null 2>&1 ||
        { echo "FAIL: mkwaits/vfd2otf $s"; exit 1; }
done

# underlined LABEL: the timeline row of LABEL with each cell written U
# (underlined: on the critical path) or . (not), from the pane's escapes
underlined() {
    tmux capture-pane -t "$S" -p -e | python3 -c '
import re, sys
label = sys.argv[1]
for line in sys.stdin:
    plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
    if not plain.startswith(label + " "):
        continue
    ul, out, seen_bar = False, [], False
    for tok in re.findall(r"\x1b\[[0-9;]*m|.", line.rstrip("\n")):
        if tok.startswith("\x1b["):
            for p in (tok[2:-1] or "0").split(";"):
                p = int(p or 0)
                if p == 0 or p == 24:
                    ul = False
                elif p == 4:
                    ul = True
        elif not seen_bar:
            seen_bar = tok == "|"
        else:
            out.append("U" if ul else ".")
    print("".join(out))
    break
' "$1"
}

# check_ul NAME LABEL REGEX: the underline map of a row matches
check_ul() {
    local got i=0
    while [ "$i" -lt 100 ]; do
        got=$(underlined "$2")
        echo "$got" | grep -Eq -- "$3" && { pass "$1"; return; }
        sleep 0.05
        i=$((i + 1))
    done
    fail "$1 (row '$2' underlined as '$got', expected /$3/)"
}

# table_csv: the pattern table on screen as vftr-stats --threads prints
# its CSV (pattern,time,count,max,process,callpath), processes written as
# their tokens (rank R thread T: T << 20 + R + 1)
table_csv() {
    screen | python3 -c '
import re, sys
rows = []
on = False
for line in sys.stdin:
    if re.match(r"^ +time +count +max +pattern +process +call path", line):
        on = True
        continue
    if not on:
        continue
    m = re.match(r"^ +([0-9.]+ [mun]?s) +([0-9]+) +([0-9.]+ [mun]?s)  (\S+) +"
                 r"rank (\d+)(?: thread (\d+))? +(\S.*?)\s*$", line)
    if not m:
        break
    t, c, mx, pat, r, th, path = m.groups()
    # the TUI writes times as vftr-stats does ("4.00 ms", three digits);
    # every wait of these runs is a whole number of 10 us, so seconds to
    # six places compare exactly with the hand figures and --csv
    scale = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
    t, mx = ("%.6f" % (float(v.split()[0]) * scale[v.split()[1]]) for v in (t, mx))
    tok = (int(th or 0) << 20) + int(r) + 1
    rows.append(",".join([pat, t, c, mx, str(tok), path]))
print("pattern,time,count,max,process,callpath")
print("\n".join(rows))
'
}

# stats_csv ARGS...: vftr-stats --waits --threads --csv, the same columns
stats_csv() {
    "$STATS" --waits --threads --csv "$@" | cut -d, -f1,2,4,5,6,7
}

same() {
    if cmp -s "$2" "$3"; then
        pass "$1"
    else
        fail "$1"
        diff "$2" "$3" | sed -n '1,20s/^/    /p'
    fi
}

# wait_table NAME: waits until the table's title is on screen
wait_table() {
    check "$1" '^wait states in \[' 20
}

# ---- p2p: the overlay's marks at the hand-worked columns
start 80 24 --time 0:7ms "$tmp/p2p.otf"
check "p2p: first frame, 100 us columns" '^p2p  \[0 s, 7\.0 ms\)'
check "p2p: no overlay before w" '^rank 1   \|A{70}$'
check_gone "p2p: nothing computed at open" 'wait analysis'
keys w
check "p2p: w computes the analysis of the window" 'wait analysis of the window: '
check "p2p overlay: rank 0 waits 5.2..7 ms (Late Sender)" '^rank 0   \|A{52}={18}$'
check "p2p overlay: rank 1 waits 1..5 ms, MPI_Init completion in column 0" \
    '^rank 1   \|%A{9}={40}A{20}$'
check "p2p overlay: the legend names the marks" '==MPI p2p wait +%=MPI collective wait'
check "p2p overlay: rank 0 does not wait at the cursor" '^wait: none of rank 0 here'
# rank 1 at 1.5 ms: its Late Sender, the late partner rank 0 in MPI_Send
keys j
for i in $(seq 15); do keys Right; done
check "p2p cursor: status at 1.5 ms" 'cursor 1\.5 ms'
check "p2p cursor: the wait, its length and its late partner in MPI_Send" \
    '^wait: Late Sender 4\.00 ms; late: rank 0 in MPI_Send<main at 5\.0 ms; in MPI_Recv<'
# rank 0 at 6 ms: waiting for rank 1's send at 7 ms
keys k
for i in $(seq 45); do keys Right; done
check "p2p cursor: rank 0's wait names rank 1 in MPI_Send at 7 ms" \
    '^wait: Late Sender 1\.80 ms; late: rank 1 in MPI_Send<main at 7\.0 ms'
# off and on again: the result is kept (no second analysis)
keys w
check_gone "p2p: w again hides the overlay" '^rank 0   \|A{52}={18}$'
keys w
check "p2p: overlay back" '^rank 0   \|A{52}={18}$'
check "p2p: kept, not computed again" 'wait overlay: waiting time drawn'
keys q
check "p2p: quit" '^EXIT=0$'

# ---- the pattern table (W) against the hand-worked figures and vftr-stats
start 120 40 "$tmp/p2p.otf"
check "p2p table: first frame" '^p2p  \[0 s, 10\.00 ms\)'
keys W
wait_table "p2p table: shown"
cat >"$tmp/want" <<'EOF'
pattern,time,count,max,process,callpath
late_sender,0.004000,1,0.004000,2,MPI_Recv<main
late_sender,0.001800,1,0.001800,1,MPI_Recv<main
late_receiver,0.000800,1,0.000800,1,MPI_Ssend<main
wait_finalize,0.000500,1,0.000500,1,MPI_Finalize<main
init_completion,0.000010,1,0.000010,2,MPI_Init<main
EOF
table_csv >"$tmp/got"
same "p2p table: every wait of the run, as worked out by hand" "$tmp/want" "$tmp/got"
stats_csv "$tmp/p2p.otf" >"$tmp/stats"
same "p2p table: as vftr-stats --waits prints it" "$tmp/stats" "$tmp/got"
check "p2p table: total of the waits (4000 + 1800 + 800 + 500 + 10 us)" \
    '^wait states in \[0 s, 10\.00 ms\): 7\.11 ms in all'
keys q
check "p2p table: quit" '^EXIT=0$'

# the window [0, 3 ms): rank 1's Late Sender cut at 3 ms (waits_exact.sh)
start 120 40 --time 0:3ms "$tmp/p2p.otf"
check "p2p window: first frame" '^p2p  \[0 s, 3\.00 ms\)'
keys W
wait_table "p2p window: table shown"
printf '%s\n' 'pattern,time,count,max,process,callpath' \
    'late_sender,0.002000,1,0.002000,2,MPI_Recv<main' \
    'init_completion,0.000010,1,0.000010,2,MPI_Init<main' >"$tmp/want"
table_csv >"$tmp/got"
same "p2p window: the part of the wait inside it, by hand" "$tmp/want" "$tmp/got"
stats_csv --time 0:3ms "$tmp/p2p.otf" >"$tmp/stats"
same "p2p window: as vftr-stats --waits --time 0:3ms" "$tmp/stats" "$tmp/got"
# zoom out around the cursor (at 0): the window becomes [0, 6 ms), computed anew
keys o
check "p2p window: zoomed out" '^p2p  \[0 s, 6\.00 ms\)'
check "p2p window: the new window is analysed" '^wait states in \[0 s, 6\.00 ms\)'
table_csv >"$tmp/got"
stats_csv --time 0:6ms "$tmp/p2p.otf" >"$tmp/stats"
same "p2p window [0, 6 ms): as vftr-stats --waits --time 0:6ms" "$tmp/stats" "$tmp/got"
keys q
check "p2p window: quit" '^EXIT=0$'

start 120 40 "$tmp/coll.otf"
check "coll table: first frame" '^coll  \['
keys W
wait_table "coll table: shown"
cat >"$tmp/want" <<'EOF'
pattern,time,count,max,process,callpath
wait_barrier,0.002000,1,0.002000,1,MPI_Barrier<main
wait_barrier,0.001500,1,0.001500,2,MPI_Barrier<main
late_broadcast,0.001000,1,0.001000,1,MPI_Bcast<main
wait_finalize,0.000600,1,0.000600,1,MPI_Finalize<main
wait_finalize,0.000600,1,0.000600,2,MPI_Finalize<main
wait_nxn,0.000500,1,0.000500,1,MPI_Allreduce<main
late_broadcast,0.000500,1,0.000500,3,MPI_Bcast<main
wait_nxn,0.000300,1,0.000300,3,MPI_Allreduce<main
barrier_completion,0.000200,1,0.000200,3,MPI_Barrier<main
early_reduce,0.000200,1,0.000200,1,MPI_Reduce<main
early_scan,0.000200,1,0.000200,3,MPI_Scan<main
nxn_completion,0.000100,1,0.000100,2,MPI_Allreduce<main
barrier_completion,0.000100,1,0.000100,2,MPI_Barrier<main
nxn_completion,0.000050,1,0.000050,3,MPI_Allreduce<main
EOF
table_csv >"$tmp/got"
same "coll table: every collective pattern, by hand" "$tmp/want" "$tmp/got"
stats_csv "$tmp/coll.otf" >"$tmp/stats"
same "coll table: as vftr-stats --waits" "$tmp/stats" "$tmp/got"
keys q
check "coll table: quit" '^EXIT=0$'

# ---- OpenMP: the overlay on a worker thread, the table per thread
start 119 40 "$tmp/omp.otf"
check "omp: first frame" '^omp  \[0 s, 10\.0 ms\)'
keys w
check "omp overlay: thread 1 idle, at the barriers, idle to the end" \
    '^  rank 0 thread 1 \|&{11}[^&]{10}&{19}[^&]{9}&{12}[^&]{5}&{2}[^&]{11}&{21}$'
keys q
check "omp overlay: quit" '^EXIT=0$'
# wide enough for the call paths of the OpenMP constructs
start 200 40 "$tmp/omp.otf"
check "omp table: first frame" '^omp  \[0 s, 10\.00 ms\)'
keys W
wait_table "omp table: shown"
table_csv >"$tmp/got"
stats_csv "$tmp/omp.otf" >"$tmp/stats"
same "omp table: per thread, as vftr-stats --waits --threads" "$tmp/stats" "$tmp/got"
lock='omp_lock_wait,0.000400,1,0.000400,2097153,omp lock wait @omp.c:24<omp implicit task @omp.c:20'
grep -qx "$lock" "$tmp/got" && pass "omp table: thread 2's lock wait of 400 us, by hand" ||
    { fail "omp table: no lock wait of 400 us on thread 2"; sed 's/^/    /' "$tmp/got"; }
keys q
check "omp: quit" '^EXIT=0$'

# ---- the critical path (P), by hand
start 110 30 "$tmp/p2p.otf"
check "p2p cp: first frame" '^p2p  \[0 s, 10\.0 ms\)'
keys P
check "p2p cp: the line at the cursor (0: rank 0)" '^cp: rank 0'
check_ul "p2p cp: rank 0 [0, 5 ms)" "rank 0" '^U{50}\.{50}$'
check_ul "p2p cp: rank 1 [5, 10 ms)" "rank 1" '^\.{50}U{50}$'
for i in $(seq 70); do keys Right; done
check "p2p cp: at 7 ms the path runs on rank 1" '^cp: rank 1'
keys q
check "p2p cp: quit" '^EXIT=0$'

start 70 30 "$tmp/chain3.otf"
check "chain3 cp: first frame" '^chain3  \[0 s, 6\.0 ms\)'
keys P
check_ul "chain3 cp: rank 0 [0, 3.1 ms)" "rank 0" '^U{31}\.{29}$'
check_ul "chain3 cp: rank 1 [3.1, 3.4 ms)" "rank 1" '^\.{31}U{3}\.{26}$'
check_ul "chain3 cp: rank 2 [3.4, 6 ms)" "rank 2" '^\.{34}U{26}$'
# the overlay and the path together share the line at the cursor
keys w
check "chain3: both on, one line" '^cp: rank 0  \|  wait: none of rank 0 here'
keys q
check "chain3: quit" '^EXIT=0$'

# ---- a long analysis shows its progress, Escape stops it and switches the
# views off.  The trace: tui_gen's with a stream that inflates a
# thousandfold in its middle (as tui_robust.sh builds it): the first view
# reads into it (Escape leaves it empty), and so does the critical path of
# the whole trace.
"$GEN" -p 2 -i 10 "$tmp/t" || { echo "FAIL: tui_gen"; exit 1; }
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
start 100 30 "$tmp/bomb/t"
check "long analysis: the first view reads the stream" 'reading the trace: [0-9.]+ MB so far' 5
keys Escape
check "long analysis: Escape leaves the view empty" 'stopped reading after [0-9.]+ MB' 5
keys P
check "long analysis: P reads it again, with its progress" \
    'reading the trace: [0-9.]+ MB so far \.\.\. Esc stops' 5
keys Escape
check "long analysis: Escape stops it, its views off" \
    'stopped the wait analysis after [0-9.]+ MB: its views \(w, P, W\) are off' 5
check_gone "long analysis: no line at the cursor" '^cp: '
keys q
check "long analysis: quit" '^EXIT=0$'

exit $((fails > 0))
