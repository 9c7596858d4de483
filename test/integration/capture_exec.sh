#!/bin/bash
# capture_exec.sh — exec() replaces the image without atexit: the old
# image's calls must still reach its trace and its log (capture/exec.c).
#  - every function of the exec family (execv, execve, execvp, execvpe,
#    execl, execle, execlp, fexecve, execveat) into /bin/true: the program's
#    .vfd has its final name, is complete and balanced and holds every call
#    the program counted; its log exists, counts them and names the exec;
#  - the same with a second thread calling meanwhile: both threads' calls,
#    balanced;
#  - an exec that fails: the program goes on, and its trace and log, written
#    at the real end, hold the calls before and after the exec;
#  - a forked child that execs leaves the parent's files alone.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
PROG=$CAPDIR/cap_exec
require "$PROG"

# trace_ok WHAT DIR CALLS: DIR holds cap_exec_0.vfd (the old image's), read
# by vfdcount: complete, no damage, balanced, CALLS enters and exits of step
trace_ok() {
    local f=$2/cap_exec_0.vfd
    if [ -f "$f" ] && vfdc "$f"; then
        check "$1: the trace is complete" 1 "$(vkey "$f" complete)"
        check "$1: no damaged chunk" "0 0" "$(vkey "$f" errors) $(vkey "$f" warnings)"
        check "$1: enters and exits pair up, none left open" "0 0" \
              "$(vkey "$f" unbalanced) $(vkey "$f" open)"
        check "$1: the trace holds every step call" "$3 $3" "$(venter "$f" step) $(vexit "$f" step)"
    else
        fail "$1: no readable cap_exec_0.vfd ($(ls -A "$2" | tr '\n' ' '))"; show "$2/.stderr"
    fi
}

for how in execv execve execvp execvpe execl execle execlp fexecve execveat; do
    d=$cap_tmp/$how
    vrun "$d" "$PROG" "$how" 1000 /bin/true
    check "$how: exit status of the new image (true)" 0 "$(cat "$d/.rc")"
    check "$how: the old image ran its 1000 calls" 1000 "$(pcount "$d" step)"
    check "$how: no .tmpvfd left" "" "$(cd "$d" && ls -- *.tmpvfd 2>/dev/null)"
    trace_ok "$how" "$d" 1000
    log=$d/cap_exec_0.log
    check "$how: the old image's log counts its calls" 1000 "$(logcalls "$log" step 2>/dev/null)"
    case $how in
        fexecve|execveat) what="file descriptor [0-9]*" ;;   # the program is a descriptor
        *) what=/bin/true ;;
    esac
    check "$how: the log says the exec ended the run" 1 \
          "$(grep -c "trace stopped *at the exec of $what, which replaced" "$log" 2>/dev/null)"
done

# ---- a second thread calls while the main thread execs: the world is held,
# each thread's open calls end at the exec in the trace
d=$cap_tmp/thread
vrun "$d" "$PROG" thread 1000 /bin/true
check "exec with a second thread: exit status" 0 "$(cat "$d/.rc")"
trace_ok "exec with a second thread" "$d" 1000
f=$d/cap_exec_0.vfd
check "exec with a second thread: both threads are in the trace" 2 "$(vkey "$f" threads)"
n=$(venter "$f" worker_step)
check_le "exec with a second thread: the worker's calls are there" 1 "$n"
check "exec with a second thread: the worker's calls end" "$n" "$(vexit "$f" worker_step)"

# ---- a failed exec: capture goes on, the end of the run writes it all
d=$cap_tmp/failed
vrun "$d" "$PROG" execl 1000 "$cap_tmp/no/such/program"
check "failed exec: exit status" 0 "$(cat "$d/.rc")"
check "failed exec: the program went on" 1 "$(grep -c '^exec failed: No such file' "$d/.stdout")"
check "failed exec: the program made 2000 calls" 2000 "$(pcount "$d" step)"
trace_ok "failed exec" "$d" 2000
log=$d/cap_exec_0.log
check "failed exec: the log at the end counts every call" 2000 "$(logcalls "$log" step 2>/dev/null)"
check "failed exec: the log is the end's, not the exec's" 0 "$(grep -c 'at the exec of' "$log")"
check "failed exec: one log, one trace" "cap_exec_0.log cap_exec_0.vfd" \
      "$(cd "$d" && ls -- * | tr '\n' ' ' | sed 's/ $//')"
check "failed exec: nothing from vftr on stderr" 0 "$(vftr_lines "$d")"

# ---- a forked child execs: the parent's run is not touched
d=$cap_tmp/fork
vrun "$d" "$PROG" fork 1000 /bin/true
check "fork + exec: exit status" 0 "$(cat "$d/.rc")"
check "fork + exec: the child's exec succeeded" "child status 0" "$(grep '^child status' "$d/.stdout")"
trace_ok "fork + exec" "$d" 2000
check "fork + exec: the parent's log counts its calls" 2000 \
      "$(logcalls "$d/cap_exec_0.log" step 2>/dev/null)"

finish
