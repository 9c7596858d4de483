#!/bin/bash
# ctl_module.sh — the External Control module interface (vftr_ec.h, issue
# 8): a test module built by the test suite (test/ctl/ecmod.c) and loaded
# through control.module receives init (with the interface version and the
# pid), one registered callback per event, delivers events through them
# (pause, resume, flush, stop, start, a custom command without a handler,
# a bad outdir), hears of the failures through its message entry point, and
# gets the shutdown notice last.  A module that fails to initialize, and a
# module that does not exist, give one message each and the program runs on
# with the right results.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../ctl/common.sh
. "$here/../ctl/common.sh"
MOD=$CTLDIR/libecmod.so
require "$CTLDIR/ctl_prog" "$MOD"


# ------------------------------------------------ a module that works
w=$cap_tmp/mod
log=$cap_tmp/ec.log
VFTR_CONTROL_MODULE=$MOD VFTR_CONTROL_OPTIONS="log=$log" \
ECMOD_EVENTS="pause,resume,flush,stop,start,custom=hello,outdir=relative" ECMOD_WAIT_FILE=$w/ready.1 \
    vrun "$w" "$CTLDIR/ctl_prog" "$w" 1 100 &
bg=$!
wait_file "$w/ready.1" || fail "the program never reached step 1"
for i in $(seq 200); do grep -q '^event outdir' "$log" 2>/dev/null && break; sleep 0.05; done
touch "$w/go.1"
wait "$bg"
check "module: program exit status" 0 "$(cat "$w/.rc")"
check "module: the program's counts" 100 "$(pcount "$w" alpha)"
check "module: no message from vftr" 0 "$(vftr_lines "$w")"
check "module: init first, with interface version 1" "init version 1" "$(sed -n 1p "$log")"
check "module: init gets the pid" 1 "$(grep -c '^init pid [1-9][0-9]*$' "$log")"
check "module: one callback registered per event, in order" \
      "start stop pause resume attach detach flush dump outdir custom unthrottle" \
      "$(awk '$1 == "register" { printf "%s%s", s, $2; s = " " }' "$log")"
check "module: the status query answers" 1 "$(grep -c '^status phase=running trace=on' "$log")"
check "module: pause delivered" "event pause rc 0 reply paused" "$(grep '^event pause' "$log")"
check "module: resume delivered" "event resume rc 0 reply resumed" "$(grep '^event resume' "$log")"
check "module: flush delivered" 1 "$(grep -c '^event flush rc 0 reply flushed 1 threads' "$log")"
check "module: stop delivered" "event stop rc 0 reply trace stopped (1 threads)" "$(grep '^event stop' "$log")"
check "module: start delivered" "event start rc 0 reply trace started (1 threads)" "$(grep '^event start' "$log")"
check "module: custom without a handler: -ENOSYS" \
      "event custom rc -38 reply the program set no custom handler" "$(grep '^event custom' "$log")"
check "module: bad outdir: -EINVAL" \
      "event outdir rc -22 reply outdir needs an absolute directory path" "$(grep '^event outdir' "$log")"
check "module: failures reach the message entry point" 2 "$(grep -c '^message .* failed: ' "$log")"
check "module: the shutdown notice comes last" "shutdown" "$(tail -1 "$log")"
check "module: exactly one shutdown notice" 1 "$(grep -c '^shutdown' "$log")"
if vfd=$(only_file "$w" '*.vfd') && vfdc "$vfd"; then
    for k in complete:1 errors:0 unbalanced:0 open:0; do
        check "module: .vfd ${k%%:*}" "${k#*:}" "$(vkey "$vfd" "${k%%:*}")"
    done
    check "module: one pause and one resume marker" "1 1" "$(vkey "$vfd" pause) $(vkey "$vfd" resume)"
else
    fail "module: no readable .vfd"; show "$w/.stderr"
fi

# ------------------------------------------------ a module that refuses
w=$cap_tmp/fail
VFTR_CONTROL_MODULE=$MOD VFTR_CONTROL_OPTIONS="log=$cap_tmp/fail.log,fail" \
    vrun "$w" "$CTLDIR/ctl_prog" "$w" 1 100 &
bg=$!
wait_file "$w/ready.1"; touch "$w/go.1"; wait "$bg"
check "failing module: the program runs on" "0 100" "$(cat "$w/.rc") $(pcount "$w" alpha)"
check "failing module: one message" 1 "$(vftr_lines "$w")"
check "failing module: the message says so" 1 \
      "$(grep -c "control module $MOD: initialization failed" "$w/.stderr")"
check "failing module: no callback registered" 0 "$(grep -c '^register' "$cap_tmp/fail.log")"
if vfd=$(only_file "$w" '*.vfd') && vfdc "$vfd"; then
    check "failing module: alpha traced" 100 "$(venter "$vfd" alpha)"
else
    fail "failing module: no .vfd"
fi

# ------------------------------------------------ a module that is not there
w=$cap_tmp/missing
VFTR_CONTROL_MODULE=$cap_tmp/nonexistent.so vrun "$w" "$CTLDIR/ctl_prog" "$w" 1 100 &
bg=$!
wait_file "$w/ready.1"; touch "$w/go.1"; wait "$bg"
check "missing module: the program runs on" "0 100" "$(cat "$w/.rc") $(pcount "$w" alpha)"
check "missing module: one message" 1 "$(vftr_lines "$w")"
check "missing module: the message names it" 1 "$(grep -c 'nonexistent.so cannot be loaded' "$w/.stderr")"

# ------------------------------------------------ not a vftr_ec module
w=$cap_tmp/notmod
VFTR_CONTROL_MODULE=$cap_build/lib/libvftrcapture.so vrun "$w" "$CTLDIR/ctl_prog" "$w" 1 10 &
bg=$!
wait_file "$w/ready.1"; touch "$w/go.1"; wait "$bg"
check "not a module: the program runs on, one message" "0 1" "$(cat "$w/.rc") $(vftr_lines "$w")"
check "not a module: says why" 1 "$(grep -c 'not a vftr_ec module' "$w/.stderr")"
finish
