#!/bin/bash
# capture_patch.sh — filter.patch_excluded (capture/patch.c): the hook
# calls of excluded functions are patched out at run time.
#
# test/capture/cap_patch runs hot() and cold_exit() (excluded here) from
# four threads at once, then opens, uses and closes libcappatch.so (its
# lib_hot() excluded) twice.  The excluded functions sit in sections of
# their own, which the program copies before the first call and compares
# afterwards (test/capture/patchsite.h): every changed byte must be a hook
# call turned into a jump over it (or a jump to the exit hook turned into a
# return), and their number must be what objdump's disassembly of the same
# section predicts (every call and jump of a hook, less the calls whose
# first two bytes straddle an 8-byte boundary, which capture leaves
# alone).  Capture's log must count the same sites; the included functions'
# profile must be exact (the program's own counts, in the log and the
# .vfd) with patching as without.  Built as PIE, not PIE, with -fno-plt
# (calls through the GOT), and with clang where it is there.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_patch" "$CAPDIR/libcappatch.so" "$CAPDIR/insnlen"
EXCL='^(hot|cold_exit|lib_hot)$'
N=200000

if [ "$(uname -m)" != x86_64 ]; then
    skip "filter.patch_excluded" "patching is x86-64 only"
    finish
fi

# expect BINARY SECTION: the sites capture may patch in SECTION, from the
# disassembly; empty when objdump is not there.  Per function: every call
# and jump of a hook, less the calls whose first two bytes straddle an
# 8-byte boundary unless they are 5-byte calls in a function with a ret
# (or a jump to the exit hook, which becomes one), to which they are sent
expect() {
    command -v objdump >/dev/null || return
    objdump -d --section="$2" "$1" 2>/dev/null | awk -F'\t' '
        function flush() { n += ok + (ret ? str : 0); ok = str = ret = 0 }
        /^[0-9a-f]+ <.*>:$/ { flush(); next }
        $3 ~ /^ret/ { ret = 1 }
        $0 ~ /__cyg_profile_func_(enter|exit)/ && $3 ~ /^(call|jmp)/ {
            a = $1; sub(/^ */, "", a); sub(/:$/, "", a)
            split($2, b, " ")
            two = (b[1] == "e8" || (b[1] == "ff" && b[2] == "15"))
            tail = (b[1] == "e9" || (b[1] == "ff" && b[2] == "25"))
            lo = substr(a, length(a)) ; d = index("0123456789abcdef", lo) - 1
            if (tail) { ok++; ret = 1 }
            else if (two && d % 8 != 7) ok++
            else if (b[1] == "e8") str++
        }
        END { flush(); print n + 0 }'
}
# logpatched LOG: the sites the log says were patched, or "none"
logpatched() { awk '$1 == "patched" { print $2; f = 1 } END { if (!f) print "none" }' "$1"; }
out() { awk -v k="$2" '$1 == k { print $2 }' "$1/.stdout"; }
lib() { awk -v k="$2" -v r="$3" '$1 == k && $2 == r { print $3 }' "$1/.stdout"; }

libx=$(expect "$CAPDIR/libcappatch.so" vftr_hotl)
progs=(cap_patch cap_patch_noplt cap_patch_nopie)
[ -x "$CAPDIR/cap_patch_clang" ] && progs+=(cap_patch_clang cap_patch_clang_noplt)
for p in "${progs[@]}"; do
    [ -x "$CAPDIR/$p" ] || { fail "$p is not built"; continue; }
    x=$(expect "$CAPDIR/$p" vftr_hotx)
    for patch in 1 0; do
        what="$p, patching $([ $patch = 1 ] && echo on || echo off)"
        d=$cap_tmp/$p-$patch
        VFTR_FILTER_PATCH_EXCLUDED=$patch VFTR_FILTER_EXCLUDE=$EXCL \
            vrun "$d" "$CAPDIR/$p" $N 4 "$CAPDIR" 2
        check "$what: exit status" 0 "$(cat "$d/.rc")"
        check "$what: the program counted its calls" "1 4 4 $((4 * N)) $((4 * N))" \
              "$(pcount "$d" main) $(pcount "$d" run) $(pcount "$d" work) $(pcount "$d" hot) $(pcount "$d" cold_exit)"
        check "$what: nothing else in the code changed" "0 0 0" \
              "$(out "$d" bad_changes) $(lib "$d" lib_bad_changes 1) $(lib "$d" lib_bad_changes 2)"
        check "$what: the library's excluded function ran in both rounds" "$N $N" \
              "$(lib "$d" lib_hot_calls 1) $(lib "$d" lib_hot_calls 2)"
        log=$d/${p}_0.log
        if [ $patch = 1 ]; then
            if [ -n "$x" ] && [ -n "$libx" ]; then
                check "$what: the sites the disassembly predicts are patched (program; library, each round)" \
                      "$x $libx $libx" \
                      "$(out "$d" patched_sites) $(lib "$d" lib_patched_sites 1) $(lib "$d" lib_patched_sites 2)"
            else
                skip "$what: sites predicted" "no objdump"
            fi
            check_le "$what: sites patched in the program" 1 "$(out "$d" patched_sites)"
            check "$what: the log counts the sites the code shows" \
                  "$(( $(out "$d" patched_sites) + $(lib "$d" lib_patched_sites 1) + $(lib "$d" lib_patched_sites 2) ))" \
                  "$(logpatched "$log")"
        else
            check "$what: no site patched, no log line" "0 0 0 none" \
                  "$(out "$d" patched_sites) $(lib "$d" lib_patched_sites 1) $(lib "$d" lib_patched_sites 2) $(logpatched "$log")"
        fi
        check "$what: the log has the included functions exactly, not the excluded ones" \
              "1 4 4 absent absent absent" \
              "$(logcalls "$log" main) $(logcalls "$log" run) $(logcalls "$log" work) $(logcalls "$log" hot) $(logcalls "$log" cold_exit) $(logcalls "$log" lib_hot)"
        check "$what: lib_work in the log, both rounds" 2 "$(logcalls "$log" lib_work)"
        f=$d/${p}_0.vfd
        if vfdc "$f"; then
            check "$what: the .vfd has the included calls, not the excluded ones, balanced" \
                  "4 4 2 0 0 0 0" \
                  "$(venter "$f" work) $(vexit "$f" work) $(venter "$f" lib_work) $(venter "$f" hot) $(venter "$f" cold_exit) $(vkey "$f" unbalanced) $(vkey "$f" misparented)"
        else
            fail "$what: the .vfd is not readable"; verr "$f" | show
        fi
    done
done

# A system that refuses writable code (a W^X policy; here a seccomp filter
# of the program's making mprotect fail with EACCES for write + execute):
# one message, the skip cache does the work, the counts stay exact
d=$cap_tmp/wx
VFTR_FILTER_EXCLUDE=$EXCL vrun "$d" "$CAPDIR/cap_patch" $N 4 "$CAPDIR" 1 wx
check "W^X: exit status" 0 "$(cat "$d/.rc")"
check "W^X: the program counted its calls" "1 4 4 $((4 * N)) $((4 * N))" \
      "$(pcount "$d" main) $(pcount "$d" run) $(pcount "$d" work) $(pcount "$d" hot) $(pcount "$d" cold_exit)"
check "W^X: nothing patched" "0 0 0" \
      "$(out "$d" patched_sites) $(out "$d" bad_changes) $(lib "$d" lib_patched_sites 1)"
check "W^X: one message" 1 "$(grep -c 'filter.patch_excluded: the system does not let code be made writable' "$d/.stderr")"
check "W^X: the log says so" 1 "$(grep -c '^  patched *none: the system does not let code be made writable' "$d/cap_patch_0.log")"
check "W^X: the log has the included functions exactly" "1 4 4 absent 1" \
      "$(logcalls "$d/cap_patch_0.log" main) $(logcalls "$d/cap_patch_0.log" run) $(logcalls "$d/cap_patch_0.log" work) $(logcalls "$d/cap_patch_0.log" hot) $(logcalls "$d/cap_patch_0.log" lib_work)"

# The decoder that finds the exit hook's jumps (capture/patch.c) against
# objdump on whole libraries (compiled C, libc's hand-written assembly with
# AVX-512): a length it gives must be objdump's; where it stops (0, a byte
# it does not know) nothing is patched, which is allowed.  One line per
# block of objdump's: "blocks agree stopped wrong".
decode_check() {
    local t=$2
    objdump -d -w --section=.text "$1" 2>/dev/null | awk -F'\t' -v B="$t.bytes" -v L="$t.lens" '
        function flush() { if (nb > 0 && !bad) { print bytes > B; print lens > L } nb = 0; bytes = ""; lens = ""; bad = 0 }
        /^[0-9a-f]+ <.*>:$/ { flush(); next }
        /^ *[0-9a-f]+:\t/ {
            b = $2; gsub(/ +$/, "", b); k = split(b, x, " ")
            # objdump joins fwait (9b, an instruction of its own) to the
            # next x87 instruction; such blocks are left out
            if ($3 ~ /\(bad\)/ || $3 == "" || (x[1] == "9b" && k > 1)) bad = 1
            bytes = bytes b " "; lens = lens (nb ? " " : "") k; nb++
        }
        END { flush() }'
    "$CAPDIR/insnlen" <"$t.bytes" >"$t.dec"
    paste -d'|' "$t.lens" "$t.dec" | awk -F'|' '
        { n++; if ($1 == $2) { ok++; next }
          k = split($1, a, " "); m = split($2, d, " ")
          for (i = 1; i <= m; i++) if (d[i] != a[i]) break
          if (i <= m && d[i] == 0) stop++; else wrong++ }
        END { print n + 0, ok + 0, stop + 0, wrong + 0 }'
}
if command -v objdump >/dev/null && [ -x "$CAPDIR/insnlen" ]; then
    libc=$(ldd "$CAPDIR/cap_patch" | awk '$1 ~ /^libc\.so/ { print $3 }')
    libm=$(ldd "$cap_build/lib/libvftrcapture.so" | awk '$1 ~ /^libm\.so/ { print $3 }')
    for b in "$cap_build/lib/libvftrcapture.so" "$CAPDIR/libcappatch.so" "$CAPDIR/cap_patch" \
             ${libc:+"$libc"} ${libm:+"$libm"}; do
        set -- $(decode_check "$b" "$cap_tmp/dec")
        if [ "${4:-x}" = 0 ] && [ "${1:-0}" -gt 0 ]; then
            pass "decoder on $(basename "$b"): no length differs from objdump's ($2 of $1 blocks whole, $3 stopped at a byte it does not know)"
        else
            fail "decoder on $(basename "$b"): ${4:-?} blocks with a length other than objdump's (of ${1:-?})"
        fi
    done
else
    skip "the decoder against objdump" "no objdump"
fi

# A program that forks: step() excluded and patched in the parent before
# the fork; the child runs the patched code (its capture stopped), the
# parent goes on: every count right, main's profile exact
d=$cap_tmp/fork
VFTR_FILTER_EXCLUDE='^step$' vrun "$d" "$CAPDIR/cap_fork" 1000
check "fork, step() excluded: exit status" 0 "$(cat "$d/.rc")"
check "fork, step() excluded: the counts of parent and child" "2000 1000" \
      "$(pcount "$d" parent_step) $(pcount "$d" child_step)"
check_le "fork, step() excluded: its sites patched before the fork" 1 "$(logpatched "$d/cap_fork_0.log")"
check "fork, step() excluded: main once, step absent" "1 absent" \
      "$(logcalls "$d/cap_fork_0.log" main) $(logcalls "$d/cap_fork_0.log" step)"

# Throttled functions (issue 19): cap_thrpatch's four threads call hot()
# (tiny) and mid() (some microseconds, calling hot() twice); throttling
# (throttle.calls lowered to 1000, throttle.per_call 5 us, small buffers
# so that the call paths are looked at often) stops tracing hot(), whose
# enter call is then redirected to a counting stub and whose exit call is
# jumped over while the threads run.  Every call of hot() must be counted
# (the hooks' counts and the stubs' together), mid() and worker() exactly,
# and so of hot5() and hotd(), whose enter calls' rel32 spans two words,
# with no call path below hot() (a frame of hot() left on a stack would
# put the next mid() there), and the trace balanced.  The log counts the
# sites patched.  With throttle.count = false both calls are jumped over
# and hot() keeps only the calls counted before.
thr_run() {
    VFTR_THROTTLE_ACTIVE=1 VFTR_BUFFER_KIB=4 VFTR_THROTTLE_CALLS=1000 \
        VFTR_THROTTLE_PER_CALL=0.000005 vrun "$@"
}
for p in cap_thrpatch; do
    d=$cap_tmp/thr_$p
    thr_run "$d" "$CAPDIR/$p" 4 3000
    log=$d/${p}_0.log
    check "$p throttled: exit status" 0 "$(cat "$d/.rc")"
    check "$p throttled: the program's counts" "4 12000 36000 12000 12000" \
          "$(pcount "$d" worker) $(pcount "$d" mid) $(pcount "$d" hot) $(pcount "$d" hot5) $(pcount "$d" hotd)"
    check "$p throttled: the log counts every call of hot(), mid(), worker(), hot5(), hotd()" \
          "36000 12000 4 12000 12000" \
          "$(logcalls "$log" hot) $(logcalls "$log" mid) $(logcalls "$log" worker) $(logcalls "$log" hot5) $(logcalls "$log" hotd)"
    check "$p throttled: mid() only below worker(), nothing below hot()" "12000 0" \
          "$(logedges "$log" | awk '$1 == "worker" && $2 == "mid" { print $3 }') $(logedges "$log" | awk '$1 == "hot"' | wc -l)"
    check "$p throttled: hot() is marked throttled" 1 \
          "$(grep -c '^  throttled ' "$log")"
    sites=$(logline "$log" patched | sed -n 's/.*, \([0-9]*\) of throttled functions (\([0-9]*\) function.*/\1 \2/p')
    check_le "$p throttled: the log counts the enter and exit sites of hot(), hot5(), hotd() patched" \
             6 "${sites%% *}"
    check "$p throttled: three functions counted by their stubs" 3 "${sites##* }"
    if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
        check "$p throttled: the trace pairs up" 0 "$(vkey "$vfd" unbalanced)"
        check "$p throttled: mid() traced on every call" "12000 12000" \
              "$(venter "$vfd" mid) $(vexit "$vfd" mid)"
        check_le "$p throttled: hot() traced far less than called" "$(venter "$vfd" hot)" 20000
    else
        fail "$p throttled: no readable .vfd"; show "$d/.stderr"
    fi
    d=$cap_tmp/thr_${p}_nocount
    VFTR_THROTTLE_COUNT=0 thr_run "$d" "$CAPDIR/$p" 4 3000
    log=$d/${p}_0.log
    check "$p throttle.count = false: exit status, mid() and worker() exact" "0 12000 4" \
          "$(cat "$d/.rc") $(logcalls "$log" mid) $(logcalls "$log" worker)"
    check_le "$p throttle.count = false: the three functions' sites jumped over" 6 \
          "$(logline "$log" patched | sed -n 's/.*, \([0-9]*\) of throttled functions.*/\1/p')"
    check_le "$p throttle.count = false: hot() counted until then only" "$(logcalls "$log" hot)" 35999
done

# cap_thrff: three tiny functions whose enter calls go through the GOT
# (ff 15 disp32) with the disp32 straddling two words (one, two, three of
# its bytes in the first; placed by hand): their enter calls redirected
# to counting stubs all the same (the stub's slot placed where the
# changed bytes reach it), every call counted.
d=$cap_tmp/thr_ff
thr_run "$d" "$CAPDIR/cap_thrff" 4 3000
log=$d/cap_thrff_0.log
check "cap_thrff throttled: exit status and the program's counts" "0 4 12000 12000 12000" \
      "$(cat "$d/.rc") $(pcount "$d" worker) $(pcount "$d" ffs5) $(pcount "$d" ffs6) $(pcount "$d" ffs7)"
check "cap_thrff throttled: the log counts every call" "4 12000 12000 12000" \
      "$(logcalls "$log" worker) $(logcalls "$log" ffs5) $(logcalls "$log" ffs6) $(logcalls "$log" ffs7)"
check "cap_thrff throttled: call paths throttled" 1 "$(grep -c '^  throttled ' "$log")"
check "cap_thrff throttled: the three counted by their stubs (straddling ff 15 redirected)" 3 \
      "$(logline "$log" patched | sed -n 's/.*of throttled functions (\([0-9]*\) function.*/\1/p')"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "cap_thrff throttled: the trace pairs up" 0 "$(vkey "$vfd" unbalanced)"
else
    fail "cap_thrff throttled: no readable .vfd"; show "$d/.stderr"
fi
finish
