#!/bin/bash
# capture_signals.sh — a crash must not lose the run.  cap_signal calls
# step() 5000 times, prints its counts, then dies by SIGSEGV, SIGBUS,
# SIGABRT, SIGTERM or SIGINT: vftr flushes what is buffered and leaves a
# readable .vfd and the profile log, marked incomplete with the signal and
# counting every call made (crashlog.h), and the signal takes its course
# (same exit status as without vftr).  A SIGTERM from outside, in the
# middle of the calls, leaves a log and a trace that agree on how far the
# program got.  A handler of the program's that survives the signal: the
# run goes on and its log at the end is complete.  SIGKILL cannot be
# caught: the .tmpvfd left behind must give back every chunk flushed before
# the kill.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_signal"

# Under a sanitizer (see common.sh) the sanitizer installs handlers for
# SIGSEGV and SIGBUS that print a report and exit (ASan: status 1, TSan:
# 66): vftr's handler, installed later, calls the sanitizer's as the
# program's own handler.  The checks below are about the signal taking its
# course, so they run with those handlers off (handle_segv=0,
# handle_sigbus=0), as a build without a sanitizer has none; the case with
# ASan's handler in place is checked after the loop.
san_off=handle_segv=0:handle_sigbus=0
case $CAP_SAN in
    address) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$san_off" ;;
    thread)  export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}$san_off" ;;
esac

for pair in segv:11 bus:7 abrt:6 term:15 int:2; do
    mode=${pair%%:*} sig=${pair#*:}
    d=$cap_tmp/$mode
    plain "$d.plain" "$CAPDIR/cap_signal" "$mode" 5000
    vrun "$d" "$CAPDIR/cap_signal" "$mode" 5000
    check "$mode: killed by signal $sig without vftr" $((128 + sig)) "$(cat "$d.plain/.rc")"
    check "$mode: the same status under vftr" "$(cat "$d.plain/.rc")" "$(cat "$d/.rc")"
    check "$mode: the program's output is unchanged" "$(cat "$d.plain/.stdout")" "$(cat "$d/.stdout")"
    log=$d/cap_signal_0.log
    if [ -f "$log" ]; then
        name=SIG$(echo "$mode" | tr 'a-z' 'A-Z')
        check "$mode: the log is marked incomplete, with the signal" \
            "the run was killed by signal $sig ($name): the figures stop there" \
            "$(logline "$log" incomplete)"
        check "$mode: the log counts the 5000 step calls" 5000 "$(logcalls "$log" step)"
        check "$mode: the log counts main and crash once" "1 1" \
            "$(logcalls "$log" main) $(logcalls "$log" crash)"
    else
        fail "$mode: no log ($(ls "$d" | tr '\n' ' '))"
    fi
    # The run must end with a .vfd; if only a .tmpvfd is left, its content
    # is still checked so that the report shows what was flushed.
    if vfd=$(only_file "$d" '*.vfd'); then
        pass "$mode: a .vfd is left"
    elif vfd=$(only_file "$d" '*.tmpvfd'); then
        fail "$mode: only $(basename "$vfd") is left, not renamed to .vfd"
    else
        fail "$mode: no trace file $vfd"; show "$d/.stderr"; continue
    fi
    if ! vfdc "$vfd"; then fail "$mode: vfdcount cannot read $vfd"; verr "$vfd" | show; continue; fi
    check "$mode: .vfd errors" 0 "$(vkey "$vfd" errors)"
    check "$mode: .vfd unbalanced" 0 "$(vkey "$vfd" unbalanced)"
    check "$mode: the header names the signal" "$sig" "$(vkey "$vfd" signal)"
    check "$mode: all 5000 step enters flushed" 5000 "$(venter "$vfd" step)"
    check "$mode: all 5000 step exits flushed" 5000 "$(vexit "$vfd" step)"
    # the signal ends the calls open at it (crash, main) at its time, in
    # the trace as in the log written then, so that the two agree
    check "$mode: crash entered, and left at the signal" "1 1" "$(venter "$vfd" crash) $(vexit "$vfd" crash)"
    check "$mode: main entered, and left at the signal" "1 1" "$(venter "$vfd" main) $(vexit "$vfd" main)"
    check "$mode: no frame open at the end" 0 "$(vkey "$vfd" open)"
done

# ASan's own SIGSEGV handler in place (ASan builds only): vftr's handler
# flushes and then calls ASan's, which reports and exits with status 1.
# Since a handler of the program's may recover, vftr keeps the temporary
# name; the .tmpvfd must still hold every call made before the crash.
if [ "$CAP_SAN" = address ]; then
    d=$cap_tmp/segv-asan
    ASAN_OPTIONS=${ASAN_OPTIONS%"$san_off"}handle_segv=1 plain "$d.plain" "$CAPDIR/cap_signal" segv 5000
    ASAN_OPTIONS=${ASAN_OPTIONS%"$san_off"}handle_segv=1 vrun "$d" "$CAPDIR/cap_signal" segv 5000
    CAP_SAN_EXPECTED="$CAP_SAN_EXPECTED $d $d.plain"   # ASan's SEGV report is the point here
    check "segv, ASan's handler: ASan reports the crash" 1 \
        "$(grep -c 'ERROR: AddressSanitizer: SEGV' "$d/.stderr")"
    check "segv, ASan's handler: the same status as without vftr" \
        "$(cat "$d.plain/.rc")" "$(cat "$d/.rc")"
    check "segv, ASan's handler: the program's output is unchanged" \
        "$(cat "$d.plain/.stdout")" "$(cat "$d/.stdout")"
    skip "segv, ASan's handler: a .vfd is left" \
        "ASan's handler, called as the program's own, ends the program; vftr keeps the .tmpvfd name for a handler that may recover"
    if [ -f "$d/cap_signal_0.log" ]; then
        check "segv, ASan's handler: the log is marked incomplete" \
            "the run was killed by signal 11 (SIGSEGV): the figures stop there" \
            "$(logline "$d/cap_signal_0.log" incomplete)"
        check "segv, ASan's handler: the log counts the 5000 step calls" 5000 \
            "$(logcalls "$d/cap_signal_0.log" step)"
    else
        fail "segv, ASan's handler: no log ($(ls "$d" | tr '\n' ' '))"
    fi
    if vfd=$(only_file "$d" '*vfd') && vfdc "$vfd"; then
        check "segv, ASan's handler: no corrupt chunk" 0 "$(vkey "$vfd" errors)"
        check "segv, ASan's handler: the header names the signal" 11 "$(vkey "$vfd" signal)"
        check "segv, ASan's handler: all 5000 step enters flushed" 5000 "$(venter "$vfd" step)"
        check "segv, ASan's handler: all 5000 step exits flushed" 5000 "$(vexit "$vfd" step)"
    else
        fail "segv, ASan's handler: no readable trace file $vfd"; show "$d/.stderr"
    fi
fi

# A handler of the program's catches SIGTERM and the program goes on: the
# crash log written on the way is replaced by the complete one at the end.
d=$cap_tmp/caught
CAP_SIGNAL_CATCH=1 vrun "$d" "$CAPDIR/cap_signal" caught 3000
check "caught: the program ends normally" 0 "$(cat "$d/.rc")"
check "caught: its handler saw the signal" 1 "$(pcount "$d" caught)"
if [ -f "$d/cap_signal_0.log" ]; then
    check "caught: the log at the end is complete" "" "$(logline "$d/cap_signal_0.log" incomplete)"
    check "caught: the log counts the calls before and after the signal" 6000 \
        "$(logcalls "$d/cap_signal_0.log" step)"
else
    fail "caught: no log ($(ls "$d" | tr '\n' ' '))"
fi

# loop_until DIR N: the pid of the looping program of DIR once it has
# reported N calls (stopped with SIGSTOP), and its last progress line's
# count; empty when it did not start.
loop_until() {
    local d=$1 want=$2 p pid
    for _ in $(seq 1 600); do
        p=$(awk '$1 == "progress" { v = $2 } END { print v + 0 }' "$d/.stdout")
        [ "$p" -ge "$want" ] && break
        sleep 0.1
    done
    pid=$(awk '$1 == "pid" { print $2 }' "$d/.stdout")
    [ -n "$pid" ] || return 1
    kill -STOP "$pid"
    p=$(awk '$1 == "progress" { v = $2 } END { print v + 0 }' "$d/.stdout")
    echo "$pid $p"
}

# SIGTERM from outside, in the middle of the calls (as a launcher stops a
# rank): the log counts the calls made, as far as the trace has them.
d=$cap_tmp/extterm
mkdir -p "$d"
"$VFTR_RUN" --out "$d" -- "$CAPDIR/cap_signal" loop 10000 >"$d/.stdout" 2>"$d/.stderr" &
runner=$!
if ! pp=$(loop_until "$d" 200000); then
    fail "SIGTERM from outside: the looping program did not start"; show "$d/.stderr"
    kill -KILL "$runner" 2>/dev/null
else
    read -r pid p <<<"$pp"
    kill -TERM "$pid"
    kill -CONT "$pid"
    wait "$runner"
    check "SIGTERM from outside: status 143" 143 "$?"
    log=$d/cap_signal_0.log
    if [ -f "$log" ] && vfdc "$d/cap_signal_0.vfd"; then
        c=$(logcalls "$log" step)
        check "SIGTERM from outside: the log is marked incomplete" \
            "the run was killed by signal 15 (SIGTERM): the figures stop there" \
            "$(logline "$log" incomplete)"
        check_le "SIGTERM from outside: the log counts the calls reported" "$p" "$c"
        check_le "SIGTERM from outside: ... and no more than were made" "$c" $((p + 10000))
        # The signal may land inside a hook, after the profile counted the
        # call and before its event was written: the log is then one call
        # ahead of the trace, never more, never behind.
        e=$(venter "$d/cap_signal_0.vfd" step)
        check_le "SIGTERM from outside: the trace has every call the log counts but the one under way" \
            "$c" $((e + 1))
        check_le "SIGTERM from outside: ... and none the log does not count" "$e" "$c"
    else
        fail "SIGTERM from outside: no log or no readable trace ($(ls "$d" | tr '\n' ' '))"
        show "$d/.stderr"
    fi
fi

# SIGKILL: stop the looping program once it has made 3 M calls, read its
# last progress line, then kill it.
d=$cap_tmp/kill
mkdir -p "$d"
"$VFTR_RUN" --out "$d" -- "$CAPDIR/cap_signal" loop 100000 >"$d/.stdout" 2>"$d/.stderr" &
runner=$!
pid=
for _ in $(seq 1 600); do
    p=$(awk '$1 == "progress" { v = $2 } END { print v + 0 }' "$d/.stdout")
    [ "$p" -ge 3000000 ] && break
    sleep 0.1
done
pid=$(awk '$1 == "pid" { print $2 }' "$d/.stdout")
if [ -z "$pid" ]; then
    fail "SIGKILL: the looping program did not start"; show "$d/.stderr"
    kill -KILL "$runner" 2>/dev/null
else
    kill -STOP "$pid"
    p=$(awk '$1 == "progress" { v = $2 } END { print v + 0 }' "$d/.stdout")
    kill -KILL "$pid"
    wait "$runner" 2>/dev/null
    check_le "SIGKILL: the program made 3 M calls first" 3000000 "$p"
    check "SIGKILL: no .vfd (nothing ran at the end)" 0 "$(find "$d" -name '*.vfd' | wc -l)"
    if ! tmp=$(only_file "$d" '*.tmpvfd'); then
        fail "SIGKILL: one .tmpvfd left $tmp"
    elif ! vfdc "$tmp"; then
        fail "SIGKILL: vfdcount cannot read $tmp"; verr "$tmp" | show
    else
        check "SIGKILL: named <basename>_<pid>.tmpvfd" "cap_signal_$pid.tmpvfd" "$(basename "$tmp")"
        check "SIGKILL: the header says incomplete" 0 "$(vkey "$tmp" complete)"
        check "SIGKILL: no corrupt chunk" 0 "$(vkey "$tmp" errors)"
        check "SIGKILL: enters and exits pair up" 0 "$(vkey "$tmp" unbalanced)"
        e=$(venter "$tmp" step)
        # Everything is flushed in whole chunks: at most what the program did
        # (fewer than p + 100000 calls when stopped), and at least half of
        # the 3 M calls made (the per-thread buffer holds far less).
        check_le "SIGKILL: step enters at most the calls made" "$e" $((p + 100000))
        check_le "SIGKILL: step enters: the flushed chunks are all there" $((p / 2)) "$e"
        x=$(vexit "$tmp" step)
        check_le "SIGKILL: step exits lag enters by at most one" "$e" $((x + 1))
        check_le "SIGKILL: step exits not above enters" "$x" "$e"
        check "SIGKILL: function names known (definitions flushed)" 0 "$(vkey "$tmp" unnamed)"
    fi
fi

finish
