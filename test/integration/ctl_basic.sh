#!/bin/bash
# ctl_basic.sh — external control of a running single-process capture
# through vftr-ctl and the default module (issue 8): list, status, stacks
# of a program waiting in a known function (five threads), live profile
# (counts grow; the last one equals the final log), pause and resume while
# four threads run (issue 14: the trace is balanced, no call path begins
# after its parent returned, no event in the paused span, no invented
# caller; the calls made while paused are neither traced nor profiled, the
# frames open at the resume count one call more; the log equals vftr-stats
# on the converted trace), output directory changed mid-run, flush, dump,
# attach/detach with control.detach_stops (balanced Enter/Leave, the
# profile goes on while the trace is stopped, a thread made while it is
# stopped is traced only from the start), the endpoint removed at exit,
# --json.
#
# The expectations come from the program (test/ctl/ctl_prog.c counts its
# own calls and says where it waits) and from vfdcount / ctlspan, which
# read the .vfd through lib/vfd's reader.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../ctl/common.sh
. "$here/../ctl/common.sh"
require "$CTLDIR/ctl_prog" "$CTLDIR/ctlspan" "$CTL"

# wait_gone PATH
wait_gone() {
    local i
    for i in $(seq 600); do [ -e "$1" ] || return 0; sleep 0.05; done
    return 1
}
# pcalls FILE NAME: calls of NAME summed over a `vftr-ctl profile --json` output
pcalls() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); print(int(sum(r["calls"] for r in d.get("profile",[]) if r["function"]==sys.argv[2])))' "$1" "$2"
}

# the callers and callees ctl_prog has: any other pair in a trace or a log
# is invented
REAL_EDGES='- main|- spin_here|main alpha|main gamma_|alpha beta|gamma_ beta|main wait_here|wait_here touch|wait_here exists|main wait_there|wait_there touch|wait_there exists|spin_here spin_leaf|beta MPI_Allreduce|main MPI_Init_thread|main MPI_Finalize'
# invented PAIRS...: the pairs that are not ctl_prog's ("" when none)
invented() { tr ' ' '\n' <<<"$*" | paste -d' ' - - | grep -vxE -e "$REAL_EDGES" | tr '\n' ';'; }

# ---------------------------------------------------------------- run 1
# 3 steps of 1000 calls, 4 extra threads.  Step 1: alpha; step 2 (paused):
# gamma_; step 3: alpha.
w=$cap_tmp/run1
out=$w/out
out2=$w/out2
mkdir -p "$out" "$out2"
vrun "$out" "$CTLDIR/ctl_prog" "$w" 3 1000 4 &
bg=$!
if ! wait_file "$w/ready.1"; then
    fail "run 1: the program never reached step 1"; show "$out/.stderr"; finish
fi
pid=$(ls "$sock" | sed -n 's/^vftr-\([0-9]*\)\.sock$/\1/p' | head -1)
check "endpoint: one socket in the directory" 1 "$(ls "$sock" | grep -c '^vftr-[0-9]*\.sock$')"
check "endpoint: socket mode 0600" "srw-------" "$(stat -c %A "$sock/vftr-$pid.sock")"
check "list: names the process" "$pid" "$(ctl list | awk 'NR > 1 { print $1 }')"
check "list --json: the program path" "$CTLDIR/ctl_prog" \
      "$(ctl --json list | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["exe"])')"
st=$(ctl --pid "$pid" status)
case $st in *"phase=running trace=on"*"pid=$pid"*) pass "status: running, trace on, pid" ;;
    *) fail "status: $st" ;; esac

# stacks: main waits in wait_here, the four threads spin in spin_here > spin_leaf
# (or between two calls of spin_leaf)
ctl stacks >"$w/stacks.txt"
check "stacks: main thread is in main > wait_here" 1 \
      "$(grep -c 'thread 0 (tid [0-9]*): main > wait_here' "$w/stacks.txt")"
check "stacks: four more threads in spin_here" 4 "$(grep -c ': spin_here' "$w/stacks.txt")"
ctl --json stacks >"$w/stacks.json"
check "stacks --json: frames of thread 0" '["main", "wait_here"]' \
      "$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
t=[t for t in d["stacks"][0]["threads"] if t["thread"]==0][0]
print(json.dumps(t["frames"][:2]))' "$w/stacks.json")"

# top: two refreshes of profile and stacks
ctl top --count 2 --interval 0.1 >"$w/top.txt"
check "top: two refreshes" 2 "$(grep -c '^vftr-ctl top: 1 process, refresh' "$w/top.txt")"
check "top: stacks in each" 2 "$(grep -c 'main > wait_here' "$w/top.txt")"
ctl --json top >/dev/null 2>&1
check "top --json: a usage error" 2 $?

# live profile after step 1
ctl --json profile >"$w/prof1.json"
check "profile 1: alpha called 1000 times" 1000 "$(pcalls "$w/prof1.json" alpha)"
check "profile 1: beta called 1000 times" 1000 "$(pcalls "$w/prof1.json" beta)"

# pause, then step 2 runs paused
check "pause: OK" "pid $pid rank 0: OK paused" "$(ctl pause)"
check "status: paused" 1 "$(ctl status | grep -c 'phase=paused')"
touch "$w/go.1"
wait_file "$w/ready.2" || fail "run 1: step 2 never reached"
check "resume: OK" "pid $pid rank 0: OK resumed" "$(ctl resume)"
check "resume again: already running" "pid $pid rank 0: OK already running" "$(ctl resume)"

# output directory moves mid-run; flush writes the buffers there
case $(ctl outdir "$out2") in *"OK output directory $out2") pass "outdir: OK" ;;
    *) fail "outdir: $(ctl outdir "$out2")" ;; esac
check "outdir: the .tmpvfd moved" "1 0" \
      "$(ls "$out2" | grep -c '\.tmpvfd$') $(ls "$out" | grep -c '\.tmpvfd$')"
before=$(stat -c %s "$out2"/*.tmpvfd)
case $(ctl flush) in *"OK flushed 5 threads"*) pass "flush: five threads" ;;
    *) fail "flush: $(ctl flush)" ;; esac
after=$(stat -c %s "$out2"/*.tmpvfd)
check_le "flush: the trace file grew" "$((before + 1))" "$after"
# relative and missing directories are refused
ctl outdir relative/dir >/dev/null 2>"$w/err1"; rc=$?
check "outdir relative: exit 1 and a message" "1 1" "$rc $(grep -c 'absolute' "$w/err1")"
ctl outdir "$w/missing" >/dev/null 2>&1
check "outdir missing directory: exit 1" 1 $?
dump=$(ctl dump | sed -n 's/.*OK //p')
check "dump: writes a log in the new directory" "$out2/ctl_prog_0.dump1.log" "$dump"
check "dump: the log lists alpha with 1000 calls" 1000 "$(logcalls "$dump" alpha)"

touch "$w/go.2"
wait_file "$w/ready.3" || fail "run 1: step 3 never reached"
ctl --json profile >"$w/prof3.json"
check "profile 3: alpha grew to 2000" 2000 "$(pcalls "$w/prof3.json" alpha)"
check "profile 3: gamma_ (paused) not counted" 0 "$(pcalls "$w/prof3.json" gamma_)"
touch "$w/go.3"
wait "$bg"
check "run 1: exit status" 0 "$(cat "$out/.rc")"
check "run 1: the program made 1000 gamma_ calls" 1000 "$(pcount "$out" gamma)"
wait_gone "$sock/vftr-$pid.sock"
check "endpoint removed at exit" 0 "$(ls "$sock" | wc -l)"
check "run 1: one message-free stderr" 0 "$(vftr_lines "$out")"
if vfd=$(only_file "$out2" '*.vfd') && vfdc "$vfd"; then
    for k in complete:1 errors:0 unbalanced:0 open:0 backwards:0 misparented:0; do
        check "run 1: .vfd ${k%%:*}" "${k#*:}" "$(vkey "$vfd" "${k%%:*}")"
    done
    check "run 1: alpha traced 2000 times (steps 1 and 3)" 2000 "$(venter "$vfd" alpha)"
    check "run 1: gamma_ not traced (paused)" 0 "$(venter "$vfd" gamma_)"
    check "run 1: one pause and one resume per thread" "5 5" \
          "$(vkey "$vfd" pause) $(vkey "$vfd" resume)"
    "$CTLDIR/ctlspan" "$vfd" >"$w/span.txt"
    check "run 1: five paused spans, no event inside" "5 0" \
          "$(awk '$1 == "spans" { s = $2 } $1 == "in_pause" { p = $2 } END { print s, p }' "$w/span.txt")"
    "$VFDCOUNT" --edges "$vfd" >"$w/edges.txt"
    check "run 1: no invented caller in the trace" "" \
          "$(invented $(awk -F'\t' '$1 == "edge" { print $2, $3 }' "$w/edges.txt"))"
    log=$out2/ctl_prog_0.log
    check "run 1: no invented caller in the log" "" "$(invented $(logedges "$log" | awk '{ print $1, $2 }'))"
    check "run 1: the log in the new directory: alpha" 2000 "$(logcalls "$log" alpha)"
    # wait_here in steps 1 and 3; frames open at the resume count one call
    # more: main, wait_there (entered in the paused step 2), each spinning
    # thread's spin_here
    check "run 1: log calls of main, wait_here, wait_there, spin_here" "2 2 1 8" \
          "$(logcalls "$log" main) $(logcalls "$log" wait_here) $(logcalls "$log" wait_there) $(logcalls "$log" spin_here)"
    check "run 1: the last live profile equals the log (alpha, beta)" \
          "$(pcalls "$w/prof3.json" alpha) $(pcalls "$w/prof3.json" beta)" \
          "$(logcalls "$log" alpha) $(logcalls "$log" beta)"
    mkdir -p "$w/otf"
    if "$cap_build/bin/vfd2otf" -q -o "$w/otf/t" "$out2" 2>"$w/conv.err"; then
        check "run 1: the log's profile equals vftr-stats on the converted trace" "" \
              "$(log_vs_stats "$log" "$w/otf/t.otf")"
    else
        fail "run 1: vfd2otf: $(head -2 "$w/conv.err")"
    fi
else
    fail "run 1: no readable .vfd in $out2 ($vfd)"; show "$out/.stderr"
fi

# ---------------------------------------------------------------- run 2
# attach / detach with control.detach_stops: step 1 traced, detach stops
# the trace (step 2 profiled, not traced), attach starts it again with
# synthetic Enter records for main and wait_there.  A thread made at the
# start of step 2 (trace stopped) spins until the end.
w=$cap_tmp/run2
out=$w/out
mkdir -p "$out"
CTL_PROG_LATE=2 VFTR_CONTROL_DETACH_STOPS=1 vrun "$out" "$CTLDIR/ctl_prog" "$w" 3 500 &
bg=$!
wait_file "$w/ready.1" || fail "run 2: step 1 never reached"
case $(ctl attach) in *"OK attached (1 front-ends)") pass "attach: OK" ;; *) fail "attach" ;; esac
case $(ctl detach) in *"OK detached (0 front-ends), trace stopped") pass "detach: stops the trace" ;;
    *) fail "detach: $(ctl detach)" ;; esac
ctl detach >/dev/null 2>&1
check "detach without attach: exit 1" 1 $?
check "status: trace stopped" 1 "$(ctl status | grep -c 'trace=stopped')"
touch "$w/go.1"
wait_file "$w/ready.2" || fail "run 2: step 2 never reached"
case $(ctl attach) in *"OK attached (1 front-ends)") pass "attach: starts the trace" ;; *) fail "attach 2" ;; esac
check "status: trace on" 1 "$(ctl status | grep -c 'trace=on')"
touch "$w/go.2" "$w/go.3"
wait "$bg"
check "run 2: exit status" 0 "$(cat "$out/.rc")"
if vfd=$(only_file "$out" '*.vfd') && vfdc "$vfd"; then
    for k in complete:1 errors:0 unbalanced:0 open:0 backwards:0 misparented:0; do
        check "run 2: .vfd ${k%%:*}" "${k#*:}" "$(vkey "$vfd" "${k%%:*}")"
    done
    "$VFDCOUNT" --edges "$vfd" >"$w/edges.txt"
    check "run 2: no invented caller in the trace" "" \
          "$(invented $(awk -F'\t' '$1 == "edge" { print $2, $3 }' "$w/edges.txt"))"
    check "run 2: no invented caller in the log" "" \
          "$(invented $(logedges "$out/ctl_prog_0.log" | awk '{ print $1, $2 }'))"
    # the thread made while the trace was stopped (T1) has no event before
    # the start, i.e. before main's second (synthetic) Enter
    "$cap_build/bin/vftr-dump" "$vfd" >"$w/dump.txt"
    check "run 2: the thread made while the trace was stopped is traced from the start on" 1 \
          "$(awk '$2 == "T0" && $3 == "ENTER" && $5 == "main" { if (++m == 2) start = $1 }
                  $2 == "T1" && first == "" { first = $1 }
                  END { print (start != "" && first != "" && first >= start) ? 1 : 0 }' "$w/dump.txt")"
    check "run 2: alpha traced in steps 1 and 3 only" 1000 "$(venter "$vfd" alpha)"
    check "run 2: gamma_ not traced (detached)" 0 "$(venter "$vfd" gamma_)"
    # main: entered at the start, left at detach, entered again (synthetic) at attach
    check "run 2: main entered twice, left twice" "2 2" \
          "$(venter "$vfd" main) $(vexit "$vfd" main)"
    check "run 2: the profile went on: gamma_ in the log" 500 \
          "$(logcalls "$out/ctl_prog_0.log" gamma_)"
else
    fail "run 2: no readable .vfd ($vfd)"; show "$out/.stderr"
fi

# ---------------------------------------------------------------- tool
"$CTL" --help >"$cap_tmp/help.txt"; rc=$?
check "--help: exit 0, lists the commands" "0 1" "$rc $(grep -c 'list, status, stacks, profile' "$cap_tmp/help.txt")"
check "--version" 0 "$("$CTL" --version >/dev/null; echo $?)"
"$CTL" bogus >/dev/null 2>&1
check "unknown command: exit 2" 2 $?
"$CTL" outdir >/dev/null 2>&1
check "outdir without DIR: exit 2" 2 $?
"$CTL" --rank 1 status >/dev/null 2>&1
check "--rank without --job: exit 2" 2 $?

# ---------------------------------------------------------------- run 3
# control.active = false: no socket, the program runs as before
w=$cap_tmp/run3
VFTR_CONTROL_ACTIVE=0 vrun "$w" "$CTLDIR/ctl_prog" "$w" 1 10 &
bg=$!
wait_file "$w/ready.1" || fail "run 3: step 1 never reached"
check "control.active=false: no endpoint" 0 "$(ls "$sock" | wc -l)"
ctl status >/dev/null 2>"$w/err"
check "vftr-ctl without a process: exit 1 and a message" "1 1" "$? $(grep -c 'no captured process' "$w/err")"
touch "$w/go.1"
wait "$bg"
check "run 3: exit status" 0 "$(cat "$w/.rc")"
finish
