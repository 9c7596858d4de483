#!/bin/bash
# capture_threads.sh — 16 pthreads at once under vftr-run (Vftrace crashes
# with two): each thread's enters and exits are its own calls, exactly; and
# exit() called by a thread other than main finalizes once.  Under
# SANITIZE=thread the same script runs with the program and the preloaded
# library built with TSan (see share/doc/capture.md).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_threads"

# 16 threads x 500 repetitions of work(10) (11 calls): 5500 per thread.
d=$cap_tmp/t16
vrun "$d" "$CAPDIR/cap_threads" 16 500
check "16 threads: exit status" 0 "$(cat "$d/.rc")"
check "16 threads: the program counts 88000 calls of work" 88000 "$(pcount "$d" work)"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    for k in complete:1 errors:0 warnings:0 unbalanced:0 open:0 backwards:0 unnamed:0; do
        check "16 threads: .vfd ${k%%:*}" "${k#*:}" "$(vkey "$vfd" "${k%%:*}")"
    done
    check "16 threads: work enters" 88000 "$(venter "$vfd" work)"
    check "16 threads: work exits" 88000 "$(vexit "$vfd" work)"
    check "16 threads: thread_main entered once per thread" 16 "$(venter "$vfd" thread_main)"
    check "16 threads: events from 17 threads (main + 16)" 17 "$(vkey "$vfd" threads)"
    check_le "16 threads: a definition for each of the 17 threads" 17 "$(vkey "$vfd" thread_defs)"
    # every worker thread: 5500 work + 1 thread_main enters, as many exits
    bad=$(vthreads "$vfd" | awk '$1 != 0 && ($2 != 5501 || $3 != 5501)' | wc -l)
    check "16 threads: each worker has 5501 enters and 5501 exits" 0 "$bad"
    check "16 threads: main thread: main entered and left once" "1 1" \
          "$(vthreads "$vfd" | awk '$1 == 0 { print $2, $3 }')"
    log=$d/cap_threads_0.log
    if [ -f "$log" ]; then
        check "16 threads: work calls in the profile log" 88000 "$(logcalls "$log" work)"
        check "16 threads: the log counts 17 threads" 17 "$(awk '$1 == "threads" { print $2 }' "$log")"
    else
        fail "16 threads: no profile log"
    fi
else
    fail "16 threads: no readable .vfd $vfd"; show "$d/.stderr"
fi
check "16 threads: nothing from vftr on stderr" 0 "$(vftr_lines "$d")"

# exit() from the last of 4 threads while main waits in pthread_join.
d=$cap_tmp/exit
vrun "$d" "$CAPDIR/cap_threads" 4 100 exit
check "exit from a thread: exit status 0" 0 "$(cat "$d/.rc")"
check "exit from a thread: the program counted 4400 calls" 4400 "$(pcount "$d" work)"
check "exit from a thread: one .vfd" 1 "$(find "$d" -name '*.vfd' | wc -l)"
check "exit from a thread: no .tmpvfd left" 0 "$(find "$d" -name '*.tmpvfd' | wc -l)"
check "exit from a thread: one log" 1 "$(find "$d" -name '*.log' | wc -l)"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "exit from a thread: file complete" 1 "$(vkey "$vfd" complete)"
    check "exit from a thread: errors" 0 "$(vkey "$vfd" errors)"
    check "exit from a thread: work enters" 4400 "$(venter "$vfd" work)"
    check "exit from a thread: work exits" 4400 "$(vexit "$vfd" work)"
fi
check "exit from a thread: nothing from vftr on stderr" 0 "$(vftr_lines "$d")"

finish
