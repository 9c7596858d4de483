#!/bin/bash
# ctl_throttle.sh — vftr-ctl throttled and unthrottle (issue 19): a running
# program whose alpha() and beta() throttling stopped tracing (throttle.calls
# lowered to 1000, small buffers so that the call paths are looked at often)
# lists them; after unthrottle they are traced again, their counts starting
# over, and the trace stays balanced.  ctl_prog counts its own calls.  The
# same with ctl_prog_sled, built with -fpatchable-function-entry
# (instrument.patchable): there the throttled functions' sleds call
# counting stubs, which unthrottle sends back to the trampolines.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../ctl/common.sh
. "$here/../ctl/common.sh"
require "$CTLDIR/ctl_prog" "$CTLDIR/ctl_prog_sled" "$CTL"
unset VFTR_THROTTLE_ACTIVE   # on, the default, is under test here

one() {
    # 3 steps of 20000 calls: alpha (throttled), gamma_, alpha again (traced
    # again after the unthrottle, until throttled anew)
    w=$cap_tmp/$1
    out=$w/out
    mkdir -p "$out"
    # (throttle.per_call 1 ms rather than 10 us: alpha() and beta() qualify
    # however slow a sanitizer makes them)
    VFTR_BUFFER_KIB=4 VFTR_THROTTLE_CALLS=1000 VFTR_THROTTLE_PER_CALL=0.001 \
        vrun "$out" "$CTLDIR/$1" "$w" 3 20000 &
    bg=$!
    if ! wait_file "$w/ready.1"; then
        fail "$1: the program never reached step 1"; show "$out/.stderr"; kill -9 $bg; return
    fi
    pid=$(ls "$sock" | sed -n 's/^vftr-\([0-9]*\)\.sock$/\1/p' | head -1)
    t=$(ctl --pid "$pid" throttled)
    check "$1: throttled: exit status" 0 $?
    check "$1: throttled: alpha<main listed" 1 "$(grep -cP '^  throttled\t0\t[0-9]+\t[0-9]+\talpha\tmain$' <<<"$t")"
    # (once alpha's calls go to its counting stub, by its sled or by its
    # redirected hook call, alpha is no frame of the stack, and beta,
    # throttled a moment later, may be so as beta<main)
    check "$1: throttled: beta<$2 listed" 1 "$(grep -cP "^  throttled\t0\t[0-9]+\t[0-9]+\tbeta\t$2\$" <<<"$t")"
    check "$1: throttled: two in all" 1 "$(grep -cP '^  total\t2$' <<<"$t")"
    u=$(ctl --pid "$pid" unthrottle)
    check "$1: unthrottle: exit status" 0 $?
    check "$1: unthrottle: the reply counts them" 1 \
        "$(grep -c 'OK 2 throttled call paths traced again' <<<"$u")"
    touch "$w/go.1"
    wait_file "$w/ready.2"
    touch "$w/go.2"
    wait_file "$w/ready.3"
    touch "$w/go.3"
    wait $bg
    check "$1: the program ran to its end" 0 "$(cat "$out/.rc")"
    check "$1: the program made 40000 alpha() calls" 40000 "$(pcount "$out" alpha)"
    log=$(only_file "$out" '*_0.log')
    check "$1: the log counts all 40000 alpha() calls" 40000 "$(logcalls "$log" alpha)"
    if [ "$1" = ctl_prog ] && [ "$(uname -m)" = x86_64 ]; then
        # the hooks build: alpha's and beta's hook calls were patched while
        # throttled (capture/patch.c); enters after the unthrottle (below)
        # show that the calls were given back
        check_le "$1: the log counts throttled functions' hook call sites patched" 4 \
              "$(logline "$log" patched | sed -n 's/.*, \([0-9]*\) of throttled functions.*/\1/p')"
    fi
    if vfd=$(only_file "$out" '*.vfd') && vfdc "$vfd"; then
        e=$(venter "$vfd" alpha)
        # step 1 traced at least 1000 before the throttle; step 3 at least 1000
        # again after the unthrottle (a flush comes every few hundred calls)
        check_le "$1: alpha traced again after the unthrottle (>= 2000 enters)" 2000 "$e"
        check_le "$1: ... and throttled anew (fewer than all 40000)" "$e" 39999
        check "$1: the trace pairs up" 0 "$(vkey "$vfd" unbalanced)"
    else
        fail "$1: no readable .vfd"; show "$out/.stderr"
    fi
}

one ctl_prog '(alpha|main)'
if [ "$(uname -m)" = x86_64 ]; then one ctl_prog_sled '(alpha|main)'; fi
finish
