#!/bin/bash
# capture_patchable.sh — instrument.patchable (capture/sled.c): a program
# built with -fpatchable-function-entry=5 and no hooks, traced through its
# nop sleds.
#
# test/capture/sled_prog counts its own calls (direct, recursive, through a
# function pointer, varargs, float / long double / complex long double
# results, a longjmp out of three nested calls, threads, a function of the
# library it dlopens, a forked child) and checks every result ("bad 0": the trampolines
# kept arguments and return registers).  Its counts must be the log's and
# the trace's exactly: with every call traced; with throttling, where the
# hot functions' sleds go to counting stubs (the log still counts every
# call); with a function excluded (its sled stays nops: not in the log);
# and with instrument.patchable = false (nothing traced, nothing harmed).
# sled_cxx does the same through C++ exceptions (see below).  A program
# with a C++ runtime linked in statically and a system that refuses
# writable code are refused with one message, the program unharmed.  Built without and with
# -fcf-protection (sleds after an endbr64), and with clang (one 5-byte nop)
# where it is there.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/sled_prog" "$CAPDIR/sled_prog_cet" "$VFDCOUNT"
N=20000
FNS="main leaf fib via vsum fret ldret cret hop deeper jumps tiny work"

if [ "$(uname -m)" != x86_64 ]; then
    skip "instrument.patchable" "the sleds are patched on x86-64 only"
    finish
fi

# nsleds FILE: the sleds its __patchable_function_entries lists (readelf),
# "" when readelf is not there
nsleds() {
    local h
    command -v readelf >/dev/null || return
    h=$(readelf -SW "$1" | awk '{ for (i = 1; i < NF; i++) if ($i == "__patchable_function_entries") print $(i + 4) }')
    echo $((16#${h:-0} / 8))
}
# counts DIR: "NAME=N ..." as the program counted (sled_lib: lib_calls)
counts() {
    local f s=""
    for f in $FNS; do s+="$f=$(pcount "$1" "$f") "; done
    echo "${s}sled_lib=$(awk '$1 == "lib_calls" { print $2 }' "$1/.stdout")"
}
# logged DIR LOG: the same from the profile log
logged() {
    local f s=""
    for f in $FNS sled_lib; do s+="$f=$(logcalls "$2" "$f") "; done
    echo "${s% }"
}
# traced DIR VFD: enters and exits in the trace, "NAME=ENTERS/EXITS ..."
traced() {
    local f s=""
    vfdc "$2"
    for f in $FNS sled_lib; do s+="$f=$(venter "$2" "$f")/$(vexit "$2" "$f") "; done
    echo "${s% }"
}
expect_traced() {
    local kv s=""
    for kv in $1; do s+="${kv%%=*}=${kv#*=}/${kv#*=} "; done
    echo "${s% }"
}

progs=(sled_prog sled_prog_cet)
[ -x "$CAPDIR/sled_prog_clang" ] && progs+=(sled_prog_clang)
for p in "${progs[@]}"; do
    # every call traced (throttling off: common.sh)
    d=$cap_tmp/$p-full
    vrun "$d" "$CAPDIR/$p" $N 3 "$CAPDIR/libsled.so"
    check "$p, full trace: exit status" 0 "$(cat "$d/.rc")"
    check "$p, full trace: every result right" "bad 0" "$(grep '^bad' "$d/.stdout")"
    check "$p, full trace: a forked child ran the patched code" "child_ok 1" "$(grep '^child_ok' "$d/.stdout")"
    want=$(counts "$d")
    check "$p, full trace: the program's calls" \
          "main=1 leaf=$((4 * N)) fib=21891 via=$N vsum=2 fret=1 ldret=1 cret=1 hop=3 deeper=9 jumps=1 tiny=$((3 * N)) work=3 sled_lib=$N" \
          "$want"
    log=$d/${p}_0.log
    check "$p, full trace: the log's calls are the program's" "$want" "$(logged "$d" "$log")"
    check "$p, full trace: the trace's enters and exits are the program's" \
          "$(expect_traced "$want")" "$(traced "$d" "$d/${p}_0.vfd")"
    check "$p, full trace: the trace is balanced" "0 0" \
          "$(vkey "$d/${p}_0.vfd" unbalanced) $(vkey "$d/${p}_0.vfd" open)"
    # every sled of the program and the library (the helpers have none; a
    # sanitizer adds its module constructors)
    ns=$(nsleds "$CAPDIR/$p") nl=$(nsleds "$CAPDIR/libsled.so")
    if [ -n "$ns" ]; then
        check "$p, full trace: the log says what was patched" \
              "$((ns + nl)) function entries (instrument.patchable), 0 of excluded functions left as nops, 0 counted by stubs (throttled)" \
              "$(logline "$log" patched)"
    fi

    # throttling as it comes, after 1000 calls: leaf, via and tiny counted by stubs
    d=$cap_tmp/$p-thr
    VFTR_BUFFER_KIB=16 VFTR_THROTTLE_ACTIVE=1 VFTR_THROTTLE_CALLS=1000 vrun "$d" "$CAPDIR/$p" $N 3 "$CAPDIR/libsled.so"
    check "$p, throttled: exit status and results" "0 bad 0" "$(cat "$d/.rc") $(grep '^bad' "$d/.stdout")"
    want=$(counts "$d")
    log=$d/${p}_0.log
    check "$p, throttled: the log's calls are the program's" "$want" "$(logged "$d" "$log")"
    stubs=$(logline "$log" patched | sed -n 's/.*, \([0-9]*\) counted by stubs.*/\1/p')
    check_le "$p, throttled: the hot functions' sleds went to counting stubs" 2 "${stubs:-0}"
    check "$p, throttled: the log lists throttled call paths" 1 \
          "$(logline "$log" throttled | grep -c 'no longer traced')"

    # an excluded function keeps its nops
    d=$cap_tmp/$p-excl
    VFTR_FILTER_EXCLUDE='^tiny$' vrun "$d" "$CAPDIR/$p" $N 1
    check "$p, tiny excluded: exit status and results" "0 bad 0" "$(cat "$d/.rc") $(grep '^bad' "$d/.stdout")"
    log=$d/${p}_0.log
    check "$p, tiny excluded: not in the log, the others exact" \
          "tiny=absent leaf=$((2 * N)) via=$N" \
          "$(logcalls "$log" tiny | sed 's/^/tiny=/') leaf=$(logcalls "$log" leaf) via=$(logcalls "$log" via)"
    [ -z "$ns" ] || check "$p, tiny excluded: its sled left as nops" \
          "$((ns - 1)) function entries (instrument.patchable), 1 of excluded functions left as nops, 0 counted by stubs (throttled)" \
          "$(logline "$log" patched)"

    # switched off: the sleds stay nops, nothing traced, the program as it is
    d=$cap_tmp/$p-off
    VFTR_INSTRUMENT_PATCHABLE=0 vrun "$d" "$CAPDIR/$p" $N 2
    check "$p, instrument.patchable off: exit status and results" "0 bad 0" \
          "$(cat "$d/.rc") $(grep '^bad' "$d/.stdout")"
    check "$p, instrument.patchable off: no function in the log" "absent absent" \
          "$(logcalls "$d/${p}_0.log" main) $(logcalls "$d/${p}_0.log" leaf)"
done

# C++ (capture/preload/unwind.c): exceptions thrown through traced frames,
# caught at several depths, rethrown, nested, thrown from a handler, across
# a tail call and the frames of a dlopen'ed library, in std::threads,
# pthread_exit three frames down, a thread cancelled four frames down, and
# backtrace() six frames down.  The program's counts must be the log's
# and the trace's and what its rounds make (cxx_expect); every destructor
# runs; the functions an exception left end at the catch: slow_throw
# (20 ms, then a throw) is not charged the 200 ms its catcher works after
# the catch.
NX=300 TX=2
CXXFNS="main worker catcher tail level cleanup leaf rethrower outer nested self_catch slow_throw slow_catch exiter exit_deep cancelled cancel_deep waiter bt_top bt_deep via_lib thrower_cb lib_down lib_catch"
# cxx_expect N THREADS: each function's calls as sled_cxx's rounds make them
cxx_expect() {
    local n=$1 w=$(($2 + 1)) i a b c
    local catcher=0 tail=0 level=0 cleanup=0 leaf=0 down=0
    for ((i = 0; i < n; i++)); do
        a=$((i % 4)) b=$((i % 2)) c=$((i % 3))
        tail=$((tail + b))
        level=$((level + a + 1 + c + 1 + 2 * c + 4))
        cleanup=$((cleanup + a + 1 + c + 2 + 2 * c + 4))
        down=$((down + 2 * (c + 1)))
    done
    echo "main=1 worker=$w catcher=$((w * n)) tail=$((w * tail)) level=$((w * level))" \
         "cleanup=$((w * cleanup + 10)) leaf=$((w * 2 * n)) rethrower=$((w * n)) outer=$((w * n))" \
         "nested=$((w * n)) self_catch=$((w * n)) slow_throw=1 slow_catch=1 exiter=1 exit_deep=4" \
         "cancelled=1 cancel_deep=4 waiter=1 bt_top=1 bt_deep=6" \
         "via_lib=$n thrower_cb=$((2 * n)) lib_down=$down lib_catch=$n"
}
# cxx_counts DIR, cxx_logged LOG, cxx_traced VFD: as counts, logged, traced
cxx_counts() {
    local f s=""
    for f in $CXXFNS; do s+="$f=$(pcount "$1" "$f") "; done
    echo "${s% }"
}
cxx_logged() {
    local f s=""
    for f in $CXXFNS; do s+="$f=$(logcalls "$1" "$f") "; done
    echo "${s% }"
}
cxx_traced() {
    local f s=""
    vfdc "$1"
    for f in $CXXFNS; do s+="$f=$(venter "$1" "$f")/$(vexit "$1" "$f") "; done
    echo "${s% }"
}
# incl LOG NAME: the inclusive seconds of NAME's call paths, summed
incl() { logrows "$1" | awk -F'\t' -v n="$2" '$1 == n { s += $5 } END { printf "%.6f", s }'; }

cxx_progs=(sled_cxx)
[ -x "$CAPDIR/sled_cxx_clang" ] && cxx_progs+=(sled_cxx_clang)
for p in "${cxx_progs[@]}"; do
    d=$cap_tmp/$p
    vrun "$d" "$CAPDIR/$p" $NX $TX "$CAPDIR/libsled_cxx.so"
    check "$p: exit status" 0 "$(cat "$d/.rc")"
    check "$p: every result right, every destructor run (the cancelled thread's too)" \
          "bad 0 $(grep '^guards' "$d/.stdout" | cut -d' ' -f2)" \
          "$(grep '^bad' "$d/.stdout") $(grep '^cleanups' "$d/.stdout" | cut -d' ' -f2)"
    check "$p: backtrace() reaches past the traced frames" "backtrace_ok 1" "$(grep '^backtrace_ok' "$d/.stdout")"
    check "$p: no message of capture's" 0 "$(vftr_lines "$d")"
    want=$(cxx_counts "$d")
    check "$p: the program's calls are what its rounds make" "$(cxx_expect $NX $TX)" "$want"
    log=$d/${p}_0.log
    check "$p: the log's calls are the program's" "$want" "$(cxx_logged "$log")"
    check "$p: the trace's enters and exits are the program's" \
          "$(expect_traced "$want")" "$(cxx_traced "$d/${p}_0.vfd")"
    check "$p: the trace is balanced" "0 0" \
          "$(vkey "$d/${p}_0.vfd" unbalanced) $(vkey "$d/${p}_0.vfd" open)"
    # a destructor a landing pad runs is called by the frame of the pad, not
    # by the frame the exception left there before (exit_deep's last one:
    # exiter's guard; cancel_deep's: cancelled's)
    cl=$(cxx_expect $NX $TX | tr ' ' '\n' | sed -n 's/^cleanup=//p')
    check "$p: cleanup called by the frames whose destructors ran it" \
          "cancel_deep 4|cancelled 1|exit_deep 4|exiter 1|level $((cl - 10 - (TX + 1) * NX))|rethrower $(((TX + 1) * NX))|" \
          "$(logrows "$log" | awk -F'\t' '$1 == "cleanup" { n[$2] += $3 } END { for (k in n) print k, n[k] }' | sort | tr '\n' '|')"
    # the time of a function an exception left ends at the catch
    t=$(incl "$log" slow_throw) c=$(incl "$log" slow_catch)
    check "$p: slow_throw's time ends at the catch (20 ms <= $t s < 150 ms)" 1 \
          "$(awk -v t="$t" 'BEGIN { print (t >= 0.020 && t < 0.150) }')"
    check "$p: slow_catch's time holds the catch's 200 ms ($c s >= 220 ms)" 1 \
          "$(awk -v c="$c" 'BEGIN { print (c >= 0.220 && c < 60) }')"
    check "$p: no negative or absurd time in any row" "" \
          "$(logrows "$log" | awk -F'\t' '$4 < 0 || $5 < 0 || $4 > $5 + 1e-6 || $5 > 60 { print $1 }')"
done

# a C program that dlopens the C++ library RTLD_LOCAL (the C++ runtime in
# no global scope: capture passes the unwinder's calls on to the
# definitions the calling object sees)
d=$cap_tmp/cdl
vrun "$d" "$CAPDIR/sled_cdl" 200 "$CAPDIR/libsled_cxx.so"
check "C program, C++ library: exit status, results, every destructor run" "0 bad 0 600" \
      "$(cat "$d/.rc") $(grep '^bad' "$d/.stdout") $(grep '^cleanups' "$d/.stdout" | cut -d' ' -f2)"
want="call_top=$(pcount "$d" call_top) lib_top=$(pcount "$d" lib_top) lib_self=$(pcount "$d" lib_self)"
check "C program, C++ library: the program's calls" "call_top=200 lib_top=200 lib_self=600" "$want"
check "C program, C++ library: the log's calls are the program's" "$want" \
      "call_top=$(logcalls "$d/sled_cdl_0.log" call_top) lib_top=$(logcalls "$d/sled_cdl_0.log" lib_top) lib_self=$(logcalls "$d/sled_cdl_0.log" lib_self)"
vfdc "$d/sled_cdl_0.vfd"
check "C program, C++ library: the trace is balanced" "0 0" \
      "$(vkey "$d/sled_cdl_0.vfd" unbalanced) $(vkey "$d/sled_cdl_0.vfd" open)"

# a C++ runtime linked in statically (its unwinder calls itself, never
# capture's): refused, one message, the program unharmed
if [ -x "$CAPDIR/sled_cxx_static" ]; then
    d=$cap_tmp/cxx_static
    vrun "$d" "$CAPDIR/sled_cxx_static" 50 1
    check "static C++ runtime: exit status and results" "0 bad 0" "$(cat "$d/.rc") $(grep '^bad' "$d/.stdout")"
    check "static C++ runtime: one message naming it" 1 \
          "$(grep -c "instrument.patchable: .*sled_cxx_static uses C++, and the process has a C++ runtime linked in statically" "$d/.stderr")"
    check "static C++ runtime: no function traced" "absent absent" \
          "$(logcalls "$d/sled_cxx_static_0.log" main) $(logcalls "$d/sled_cxx_static_0.log" level)"
fi

# a system that refuses writable code (W^X; here a seccomp filter the
# program installs in a constructor): one message, nothing patched, the
# program runs as it is
d=$cap_tmp/wx
SLED_WX=1 vrun "$d" "$CAPDIR/sled_prog" $N 2
check "W^X: exit status and results" "0 bad 0" "$(cat "$d/.rc") $(grep '^bad' "$d/.stdout")"
check "W^X: the filter was installed" 0 "$(grep -c seccomp_failed "$d/.stdout")"
check "W^X: one message" 1 "$(grep -c 'instrument.patchable: the system does not let code be made writable' "$d/.stderr")"
check "W^X: the log says so" 1 "$(grep -c '^  patched *none: the system does not let code be made writable (instrument.patchable)' "$d/sled_prog_0.log")"
check "W^X: no function traced" "absent absent" \
      "$(logcalls "$d/sled_prog_0.log" main) $(logcalls "$d/sled_prog_0.log" leaf)"

finish
