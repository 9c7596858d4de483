#!/bin/bash
# capture_pause.sh — vftr_pause() and vftr_resume() from callees and
# callers while threads run (issue 14, item 1): test/capture/cap_pause
# pauses in a callee and resumes in its caller, then pauses in main and
# resumes in a callee, with 4 worker threads and a thread made during a
# pause; it counts, per caller and function, the calls it made while
# recording ran plus one per frame open at each resume (capture enters
# those again and counts the entry as a call).  Checked:
#   - the .vfd: every ENTER has its EXIT in order per thread, no call path
#     begins while its parent is not the current one (a parent that
#     returned before it began), no event inside a paused span;
#   - no invented edge: the callers and callees of the trace and of the
#     log are exactly the program's;
#   - the log's calls per caller and function equal the program's counts;
#   - the log's profile equals vftr-stats on the trace converted by
#     vfd2otf: calls, exclusive and inclusive time per function;
#   - the same with the process ending paused, and profile only.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
PROG=$CAPDIR/cap_pause
CTLSPAN=$cap_build/test/ctl/ctlspan
require "$PROG" "$cap_build/bin/vfd2otf" "$cap_build/bin/vftr-stats"

# prog_edges DIR: the program's "CALLER CALLEE N" with N > 0, sorted
prog_edges() { awk '$1 == "edge" && $4 > 0 { print $2, $3, $4 }' "$1/.stdout" | sort; }

# checks NAME DIR: everything above for one run
checks() {
    local name=$1 d=$2 vfd log k
    check "$name: exit status" 0 "$(cat "$d/.rc")"
    check "$name: the API is found in the preloaded library" "api yes" "$(grep '^api' "$d/.stdout")"
    log=$d/cap_pause_0.log
    check "$name: the log's calls per caller and function are the program's" \
          "$(prog_edges "$d")" "$(logedges "$log")"
    [ "${3:-}" = notrace ] && return
    if vfd=$(only_file "$d" '*.vfd') && "$VFDCOUNT" --edges "$vfd" >"$d/.count" 2>"$d/.counterr"; then
        for k in complete:1 errors:0 unbalanced:0 open:0 backwards:0 misparented:0; do
            check "$name: .vfd ${k%%:*}" "${k#*:}" "$(awk -v k="${k%%:*}" '$1 == k { print $2 }' "$d/.count")"
        done
        check "$name: the trace's callers and callees are the program's" \
              "$(prog_edges "$d" | awk '{ print $1, $2 }')" \
              "$(awk -F'\t' '$1 == "edge" { print $2, $3 }' "$d/.count")"
        if [ -x "$CTLSPAN" ]; then
            check "$name: no enter or exit inside a paused span" 0 \
                  "$("$CTLSPAN" "$vfd" | awk '$1 == "in_pause" { print $2 }')"
        fi
        mkdir -p "$d/otf"
        if "$cap_build/bin/vfd2otf" -q -o "$d/otf/t" "$d" 2>"$d/.converr"; then
            check "$name: the log's profile equals vftr-stats on the converted trace" "" \
                  "$(log_vs_stats "$log" "$d/otf/t.otf")"
        else
            fail "$name: vfd2otf: $(head -2 "$d/.converr")"
        fi
    else
        fail "$name: no readable .vfd in $d"; show "$d/.counterr"
    fi
}

d=$cap_tmp/run
vrun "$d" "$PROG" 2000 4
checks "pause in a callee, resume in the caller and the reverse, 4 threads" "$d"
# the counts themselves, as the program made them (so that a run that
# lost them all would not pass): main 1 + 2 resumes, 3 x 2000 compute
check "program: main 3, compute 6000, worker_main 12, late_main 1" "3 6000 12 1" \
      "$(pcount "$d" main) $(pcount "$d" compute) $(pcount "$d" worker_main) $(pcount "$d" late_main)"

d=$cap_tmp/endpaused
vrun "$d" "$PROG" 500 4 end-paused
checks "ending paused" "$d"

d=$cap_tmp/profile
VFTR_SAMPLING_ACTIVE=0 vrun "$d" "$PROG" 500 4
checks "profile only" "$d" notrace
finish
