#!/bin/bash
# ctl_usability.sh — vftr-ctl as a new user meets it (issue 16): without
# --pid or --job and two captured processes running, no guess but an error
# that lists both; top pages the last interval beside the totals (a
# program waiting in main makes no alpha call in an interval, its spinning
# thread makes spin_leaf calls); status says what was written (events at
# least as many as the program's own calls make, bytes equal to the trace
# file after a flush, a job's total); a target that exits ends top with a
# line saying so (exit 0), a command to it afterwards names it.
#
# The expectations come from ctl_prog (its calls and where it waits) and
# from the trace file's size on disk.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../ctl/common.sh
. "$here/../ctl/common.sh"
require "$CTLDIR/ctl_prog" "$CTL"

wa=$cap_tmp/a
wb=$cap_tmp/b
mkdir -p "$wa" "$wb"
# A: 2 steps of 1000 alpha calls, one spinning thread; B: 1 step of 10
vrun "$wa/out" "$CTLDIR/ctl_prog" "$wa" 2 1000 1 &
bga=$!
vrun "$wb/out" "$CTLDIR/ctl_prog" "$wb" 1 10 &
bgb=$!
if ! wait_file "$wa/ready.1" || ! wait_file "$wb/ready.1"; then
    fail "the programs never reached step 1"; show "$wa/out/.stderr"; show "$wb/out/.stderr"
    touch "$wa/go.1" "$wa/go.2" "$wb/go.1"; finish
fi
pids=$(ls "$sock" | sed -n 's/^vftr-\([0-9]*\)\.sock$/\1/p' | sort -n)
pa= pb=
for p in $pids; do
    if tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -qx "$wa"; then pa=$p; else pb=$p; fi
done
pa_list=$(ctl list | awk 'NR > 1 { print $1 }' | sort -n | tr '\n' ' ')
check "two endpoints, both listed" "$(echo $pids) " "$pa_list"

# ---- no guessing: two candidates are an error that lists them
ctl pause >"$cap_tmp/amb.out" 2>"$cap_tmp/amb.err"; rc=$?
check "two candidates: exit 2, nothing done on stdout" "2 0" "$rc $(wc -c <"$cap_tmp/amb.out")"
check "two candidates: the message says how many" 1 \
      "$(grep -c '2 captured processes run; name one with --pid or a job with --job' "$cap_tmp/amb.err")"
check "two candidates: both pids listed with their program" 2 \
      "$(grep -cE "^($(echo $pids | tr ' ' '|')) .*ctl_prog$" "$cap_tmp/amb.err")"
check "two candidates: neither was paused" 0 "$(ctl list | grep -c paused)"

# ---- top: the last interval beside the totals.  A waits in wait_here after
# 1000 alpha calls; its thread spins in spin_leaf.
ctl --pid "$pa" top --count 2 --interval 0.3 --lines 0 >"$cap_tmp/top.txt"; rc=$?
check "top: exit 0, two pages" "0 2" "$rc $(grep -c '^vftr-ctl top: 1 process, refresh' "$cap_tmp/top.txt")"
check "top: the first page is the run so far" 1 "$(grep -c '^since the start' "$cap_tmp/top.txt")"
check "top: the second page is the last interval" 1 \
      "$(grep -cE '^last 0\.[3-9][0-9] s, 1 process' "$cap_tmp/top.txt")"
# page 2's alpha row: no call in the interval, 1000 in all
check "top: alpha in the interval 0 calls, 1000 in all" "0 1000" \
      "$(awk '/^last/ { p = 1 } p && $NF == "main" && $(NF - 2) == "alpha" { print $1, $4 }' "$cap_tmp/top.txt")"
# page 1's alpha row: the interval is the whole run
check "top: alpha since the start 1000 calls, 1000 in all" "1000 1000" \
      "$(awk '/^since/ { p = 1 } /^last/ { p = 0 } p && $NF == "main" && $(NF - 2) == "alpha" { print $1, $4 }' "$cap_tmp/top.txt")"
spin=$(awk '/^last/ { p = 1 } p && $(NF - 2) == "spin_leaf" { print $1 }' "$cap_tmp/top.txt")
check_le "top: the spinning thread called spin_leaf in the interval" 1 "${spin:-0}"

# ---- status counts what was written: after a flush, the bytes are the
# trace file's, the events at least A's 2000 calls' Enter and Leave
ctl --pid "$pa" flush >/dev/null
ctl --pid "$pa" status >"$cap_tmp/st.txt"
size=$(stat -c %s "$wa/out"/*.tmpvfd 2>/dev/null)
read -r ev by <<<"$(sed -n 's/^  written: \([0-9]*\) events, \([0-9]*\) bytes.*/\1 \2/p' "$cap_tmp/st.txt")"
check "status: written bytes = the trace file after a flush" "$size" "$by"
check_le "status: at least 4000 events written (1000 alpha + 1000 beta)" 4000 "${ev:-0}"

# ---- a target that exits: top ends with a line, exit 0
timeout -s KILL 30 "$CTL" --socket-dir "$sock" --timeout 10 --pid "$pb" top --interval 0.1 \
    >"$cap_tmp/topx.txt" 2>"$cap_tmp/topx.err" &
tp=$!
sleep 0.5
touch "$wb/go.1"
wait "$tp"; rc=$?
check "target exits: top ends, exit 0" 0 "$rc"
check "target exits: top says so" 1 "$(grep -c '^vftr-ctl top: 1 of 1 process exited; top ends' "$cap_tmp/topx.txt")"
check "target exits: the message names it" 1 \
      "$(grep -c "pid $pb rank 0: the process has exited" "$cap_tmp/topx.err")"
wait "$bgb"
check "B: exit status" 0 "$(cat "$wb/out/.rc")"
ctl --pid "$pb" status >/dev/null 2>"$cap_tmp/gone.err"; rc=$?
check "a command to an exited pid: exit 1 and a message naming it" "1 1" \
      "$rc $(grep -c "pid $pb: no captured process with this pid" "$cap_tmp/gone.err")"

touch "$wa/go.1" "$wa/go.2"
wait "$bga"
check "A: exit status" 0 "$(cat "$wa/out/.rc")"
finish
