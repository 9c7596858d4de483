#!/bin/bash
# capture_counts.sh — programs that count their own calls (test/capture/)
# run under vftr-run: the .vfd must hold exactly one enter and one exit per
# call the program made, the profile log must show the same call counts,
# and the program's output and exit status must be those of a run without
# vftr.  Recursion (fib), deep nesting (3000 levels), a wide tree (64
# leaves), a library opened with dlopen, and the vftr.h user API.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"

# exact WHAT DIR PROG NAME...: the checks above for one finished run.
exact() {
    local what=$1 dir=$2 prog=$3; shift 3
    local vfd log n
    check "$what: exit status as without vftr" "$(cat "$dir.plain/.rc")" "$(cat "$dir/.rc")"
    if cmp -s "$dir.plain/.stdout" "$dir/.stdout"; then pass "$what: output as without vftr"
    else fail "$what: output differs from a run without vftr"; diff "$dir.plain/.stdout" "$dir/.stdout" | show; fi
    vfd=$(only_file "$dir" '*.vfd') || { fail "$what: one .vfd $vfd"; show "$dir/.stderr"; return; }
    check "$what: trace named <basename>_<rank>.vfd" "${prog}_0.vfd" "$(basename "$vfd")"
    check "$what: no .tmpvfd left" 0 "$(find "$dir" -name '*.tmpvfd' | wc -l)"
    if ! vfdc "$vfd"; then fail "$what: vfdcount cannot read $vfd"; verr "$vfd" | show; return; fi
    for k in complete:1 errors:0 warnings:0 unbalanced:0 open:0 backwards:0 unnamed:0 rank:0; do
        check "$what: .vfd ${k%%:*}" "${k#*:}" "$(vkey "$vfd" "${k%%:*}")"
    done
    check "$what: header event count = events read" "$(vkey "$vfd" events)" "$(vkey "$vfd" header_events)"
    log="$dir/${prog}_0.log"
    [ -f "$log" ] || fail "$what: no profile log ${prog}_0.log"
    for n in "$@"; do
        local want
        want=$(pcount "$dir" "$n")
        check "$what: $n enters = the program's count" "$want" "$(venter "$vfd" "$n")"
        check "$what: $n exits = the program's count" "$want" "$(vexit "$vfd" "$n")"
        [ -f "$log" ] && check "$what: $n calls in the profile log" "$want" "$(logcalls "$log" "$n")"
    done
}

# run_both TAG PROG ARGS...: the program with and without vftr.
run_both() {
    local tag=$1 prog=$2; shift 2
    plain "$cap_tmp/$tag.plain" "$CAPDIR/$prog" "$@"
    vrun "$cap_tmp/$tag" "$CAPDIR/$prog" "$@"
}

require "$CAPDIR/cap_fib" "$CAPDIR/cap_deep" "$CAPDIR/cap_wide" "$CAPDIR/cap_dlopen"

# fib(24): 2*fib(25)-1 = 2*75025-1 = 150049 calls of fib.
run_both fib cap_fib 24
check "fib(24) counts its own 150049 calls" 150049 "$(pcount "$cap_tmp/fib" fib)"
exact "fib(24)" "$cap_tmp/fib" cap_fib main fib

# 3000 levels twice: nest 6000 calls (3000 call paths), chain0..7 twice each.
run_both deep cap_deep 3000 2
check "deep nesting counts its own 6000 calls" 6000 "$(pcount "$cap_tmp/deep" nest)"
exact "deep nesting" "$cap_tmp/deep" cap_deep main nest chain0 chain3 chain7

# 64000 calls over 64 leaves: 1000 each.
run_both wide cap_wide 64000
check "wide tree: leaf00 counts 1000" 1000 "$(pcount "$cap_tmp/wide" leaf00)"
check "wide tree: leaf77 counts 1000" 1000 "$(pcount "$cap_tmp/wide" leaf77)"
leaves=$(for a in 0 1 2 3 4 5 6 7; do for b in 0 1 2 3 4 5 6 7; do echo "leaf$a$b"; done; done)
# shellcheck disable=SC2086
exact "wide tree" "$cap_tmp/wide" cap_wide main $leaves

# dlopen: dl_work lives in a library opened after the start.
run_both dlopen cap_dlopen "$CAPDIR/libcapdl.so" 500
check "dlopen: 500 calls of dl_work" 500 "$(pcount "$cap_tmp/dlopen" dl_work)"
exact "dlopen" "$cap_tmp/dlopen" cap_dlopen main step dl_work

# vftr.h: a region around step(), then step() paused and resumed.
if [ -x "$CAPDIR/cap_regions" ]; then
    d=$cap_tmp/regions
    vrun "$d" "$CAPDIR/cap_regions" 200
    check "regions: exit status" 0 "$(cat "$d/.rc")"
    check "regions: the API is found in the preloaded library" "api yes" "$(grep '^api' "$d/.stdout")"
    if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
        check "regions: solver_region entered 200 times" 200 "$(venter "$vfd" solver_region)"
        check "regions: solver_region left 200 times" 200 "$(vexit "$vfd" solver_region)"
        check "regions: step recorded only while not paused (400 of 600)" \
              "$(pcount "$d" traced_step)" "$(venter "$vfd" step)"
        check "regions: one pause event" 1 "$(vkey "$vfd" pause)"
        check "regions: one resume event" 1 "$(vkey "$vfd" resume)"
        check "regions: balanced" 0 "$(vkey "$vfd" unbalanced)"
    else
        fail "regions: no readable .vfd $vfd"
    fi
else
    fail "cap_regions is not built (capture/vftr.h missing?)"
fi

# VFTR_OFF=1: no files at all, output unchanged.
d=$cap_tmp/off
VFTR_OFF=1 vrun "$d" "$CAPDIR/cap_fib" 20
check "VFTR_OFF=1: exit status" 0 "$(cat "$d/.rc")"
check "VFTR_OFF=1: no file written" "" "$(ls -A "$d" | grep -v '^\.')"
check "VFTR_OFF=1: fib(20) still runs" "fib(20) = 6765" "$(head -n 1 "$d/.stdout")"

finish
