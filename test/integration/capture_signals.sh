#!/bin/bash
# capture_signals.sh — a crash must not lose the run.  cap_signal calls
# step() 5000 times, prints its counts, then dies by SIGSEGV, SIGBUS,
# SIGABRT, SIGTERM or SIGINT: vftr flushes what is buffered and leaves a
# readable .vfd, and the signal takes its course (same exit status as
# without vftr).  SIGKILL cannot be caught: the .tmpvfd left behind must
# give back every chunk flushed before the kill.
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
    check "$mode: crash entered, never left" "1 0" "$(venter "$vfd" crash) $(vexit "$vfd" crash)"
    check "$mode: main entered, never left" "1 0" "$(venter "$vfd" main) $(vexit "$vfd" main)"
    check "$mode: two frames open at the end (main, crash)" 2 "$(vkey "$vfd" open)"
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
    if vfd=$(only_file "$d" '*vfd') && vfdc "$vfd"; then
        check "segv, ASan's handler: no corrupt chunk" 0 "$(vkey "$vfd" errors)"
        check "segv, ASan's handler: the header names the signal" 11 "$(vkey "$vfd" signal)"
        check "segv, ASan's handler: all 5000 step enters flushed" 5000 "$(venter "$vfd" step)"
        check "segv, ASan's handler: all 5000 step exits flushed" 5000 "$(vexit "$vfd" step)"
    else
        fail "segv, ASan's handler: no readable trace file $vfd"; show "$d/.stderr"
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
