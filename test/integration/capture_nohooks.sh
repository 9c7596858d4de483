#!/bin/bash
# capture_nohooks.sh — a program built without -finstrument-functions
# (test/capture/nohooks) under vftr-run (issue 14, item 8): capture starts at
# its main all the same, the run leaves its .log and .vfd, and one message
# says what is missing and what was recorded instead.  The child the program
# starts inherits LD_PRELOAD but leaves nothing; an instrumented program
# gets no such message; --off still means nothing at all; a crash leaves
# the log marked incomplete; a script's interpreter is not measured.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
prog=$CAPDIR/nohooks
require "$prog" "$CAPDIR/cap_fib"

nopids() { sed 's/[0-9][0-9]*/N/g' "$1"; }

# 1. to the end
d=$cap_tmp/run
plain "$d.plain" "$prog"
vrun "$d" "$prog"
check "exit status as without vftr" "$(cat "$d.plain/.rc")" "$(cat "$d/.rc")"
check "output as without vftr (pids aside)" "$(nopids "$d.plain/.stdout")" "$(nopids "$d/.stdout")"
pid=$(awk '$1 == "pid" { print $2 }' "$d/.stdout")
check "the files of the run: the log and the trace, no more" "nohooks_0.log nohooks_0.vfd" \
    "$(cd "$d" && ls | tr '\n' ' ' | sed 's/ $//')"
check "one message" 1 "$(vftr_lines "$d")"
check "the message says what is missing and what was recorded" \
    "vftr: nohooks has no compiler hooks (build it with -finstrument-functions to profile its functions): recorded only the run's summary in $d/nohooks_0.log and $d/nohooks_0.vfd" \
    "$(grep '^vftr' "$d/.stderr")"
log=$d/nohooks_0.log
if [ -f "$log" ]; then
    check "the log is the parent's (the child wrote none over it)" "$pid" "$(logline "$log" pid)"
    check "the log says no function was instrumented" \
        "none instrumented (no compiler hook ran: compile with -finstrument-functions)" \
        "$(logline "$log" functions)"
    check "the log's profile is empty" 1 "$(grep -c '^Profile: 0 call paths' "$log")"
    check "the log is complete" "" "$(logline "$log" incomplete)"
fi
if vfdc "$d/nohooks_0.vfd"; then
    check "the .vfd is complete" 1 "$(vkey "$d/nohooks_0.vfd" complete)"
    check "the .vfd is the parent's" "$pid" "$(vkey "$d/nohooks_0.vfd" pid)"
    check "the .vfd has no events" 0 "$(vkey "$d/nohooks_0.vfd" events)"
else
    fail "no readable .vfd"; show "$d/.stderr"
fi

# 2. --off: nothing, as before
d=$cap_tmp/off
VRUN_OPTS=--off vrun "$d" "$prog"
check "--off: exit status" 0 "$(cat "$d/.rc")"
check "--off: no files" "" "$(ls "$d")"
check "--off: no message" 0 "$(vftr_lines "$d")"

# 3. a crash: the log is written all the same, marked incomplete (under a
#    sanitizer, with its SIGSEGV handler off, as capture_signals.sh does:
#    the default action is what is checked)
d=$cap_tmp/segv
case $CAP_SAN in
    address) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" ;;
    thread)  export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}handle_segv=0" ;;
esac
plain "$d.plain" "$prog" segv
vrun "$d" "$prog" segv
check "segv: status as without vftr" "$(cat "$d.plain/.rc")" "$(cat "$d/.rc")"
log=$d/nohooks_0.log
if [ -f "$log" ]; then
    check "segv: the log is marked incomplete" \
        "the run was killed by signal 11 (SIGSEGV): the figures stop there" "$(logline "$log" incomplete)"
    check "segv: the log says no function was instrumented" \
        "none instrumented (no compiler hook ran: compile with -finstrument-functions)" \
        "$(logline "$log" functions)"
else
    fail "segv: no log ($(ls "$d" | tr '\n' ' '))"
fi

# 4. an instrumented program: no such message
d=$cap_tmp/fib
vrun "$d" "$CAPDIR/cap_fib" 10
check "instrumented: exit status" 0 "$(cat "$d/.rc")"
check "instrumented: no message" 0 "$(vftr_lines "$d")"
check "instrumented: the log has no 'functions' line" "" "$(logline "$d/cap_fib_0.log" functions)"

# 5. linked with -lvftrcapture: run on its own, as before (no hook, no
#    capture: nothing); under vftr-run, as the preloaded one
d=$cap_tmp/linked
require "$CAPDIR/nohooks_linked"
plain "$d" "$CAPDIR/nohooks_linked"
check "linked, alone: exit status" 0 "$(cat "$d/.rc")"
check "linked, alone: output as the plain program's (pids aside)" \
    "$(nopids "$cap_tmp/run.plain/.stdout")" "$(nopids "$d/.stdout")"
check "linked, alone: no files" "" "$(ls "$d")"
check "linked, alone: no message" 0 "$(vftr_lines "$d")"
d=$cap_tmp/linked-run
vrun "$d" "$CAPDIR/nohooks_linked"
check "linked, under vftr-run: exit status" 0 "$(cat "$d/.rc")"
check "linked, under vftr-run: the log and the trace" "nohooks_linked_0.log nohooks_linked_0.vfd" \
    "$(cd "$d" && ls | tr '\n' ' ' | sed 's/ $//')"
check "linked, under vftr-run: one message" 1 "$(vftr_lines "$d")"

# 6. a script: its interpreter is not what is measured, and the program it
#    runs was not started by vftr-run: no files, no message (as before)
d=$cap_tmp/script
mkdir -p "$d"
printf '#!/bin/sh\n"%s"\n' "$prog" >"$d.sh"
chmod +x "$d.sh"
vrun "$d" "$d.sh"
check "script: exit status" 0 "$(cat "$d/.rc")"
check "script: no files" "" "$(ls "$d")"
check "script: no message" 0 "$(vftr_lines "$d")"
finish
