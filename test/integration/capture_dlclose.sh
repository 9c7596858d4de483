#!/bin/bash
# capture_dlclose.sh — capture follows the program's mappings over time
# (capture/dl.c): a library closed with dlclose and another one loaded at
# the same addresses get each their own function names and call paths.
# test/capture/cap_swap opens libcapswap_a.so (alpha_work) and
# libcapswap_b.so (bravo_work, same layout) in turn, three rounds, and counts
# the calls each library's function made; it says whether the loader put
# the two functions at one address (it normally does: otherwise the run
# shows nothing about reuse, and the script says so).  The program's counts
# must be what the log, the .vfd (vfdcount) and vftr-dump of the OTF trace
# vfd2otf made from it give per name; also with a second thread that
# called the first library and calls the second after the swap; and with
# the first library's function excluded by a filter (the skip cache).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
PROG=$CAPDIR/cap_swap
V2O=$cap_build/bin/vfd2otf
DUMP=$cap_build/bin/vftr-dump
require "$PROG" "$V2O" "$DUMP"

# dump_enters OTF NAME: Enter records of the function called NAME in vftr-dump's print
dump_enters() {
    awk -v n="\"$2\"" '$1 == "DefFunction" { for (i = 2; i <= NF; i++) {
                           if ($i ~ /^func=/) id = substr($i, 6)
                           if ($i == "name=" n) want[id] = 1 } }
                       $3 == "Enter" && want[substr($4, 10)] { c++ }
                       END { print c + 0 }' "$1"
}

for threads in 1 2; do
    what="$threads thread$([ "$threads" = 1 ] || echo s)"
    d=$cap_tmp/swap$threads
    vrun "$d" "$PROG" "$CAPDIR" 3 300 500 "$threads"
    check "$what: exit status" 0 "$(cat "$d/.rc")"
    if [ "$(awk '$1 == "same_address" { print $2 }' "$d/.stdout")" != 1 ]; then
        skip "$what: address reuse" "the loader put the two libraries at different addresses"
    else
        pass "$what: the loader put bravo_work where alpha_work was, in every round"
    fi
    a=$(pcount "$d" alpha_work) b=$(pcount "$d" bravo_work)
    check "$what: the program counted its calls" "$((900 * threads)) $((1500 * threads))" "$a $b"
    log=$d/cap_swap_0.log
    check "$what: the log names each library's function with its calls" "$a $b" \
          "$(logcalls "$log" alpha_work) $(logcalls "$log" bravo_work)"
    f=$d/cap_swap_0.vfd
    if vfdc "$f"; then
        check "$what: the .vfd names each library's function with its calls" "$a $a $b $b" \
              "$(venter "$f" alpha_work) $(vexit "$f" alpha_work) $(venter "$f" bravo_work) $(vexit "$f" bravo_work)"
        check "$what: the .vfd is balanced" "0 0" "$(vkey "$f" unbalanced) $(vkey "$f" misparented)"
    else
        fail "$what: the .vfd is not readable"; verr "$f" | show
    fi
    mkdir -p "$d/otf"
    if "$V2O" -q -o "$d/otf/t" "$f" >"$d/.v2o" 2>&1 && "$DUMP" "$d/otf/t.otf" >"$d/.dump" 2>&1; then
        check "$what: vftr-dump of the converted trace: Enters per name" "$a $b" \
              "$(dump_enters "$d/.dump" alpha_work) $(dump_enters "$d/.dump" bravo_work)"
    else
        fail "$what: vfd2otf or vftr-dump failed"; show "$d/.v2o" "$d/.dump"
    fi
done

# alpha_work excluded by a filter, bravo_work not: the skip cache must
# forget alpha_work's address when its library goes, or bravo_work, at the
# same address, would be skipped as well
d=$cap_tmp/swapfilter
VFTR_FILTER_EXCLUDE='^alpha_work$' vrun "$d" "$PROG" "$CAPDIR" 3 300 500 1
check "alpha_work excluded: exit status" 0 "$(cat "$d/.rc")"
if [ "$(awk '$1 == "same_address" { print $2 }' "$d/.stdout")" != 1 ]; then
    skip "alpha_work excluded: address reuse" "the loader put the two libraries at different addresses"
fi
check "alpha_work excluded: the log has no alpha_work and every bravo_work" "absent 1500" \
      "$(logcalls "$d/cap_swap_0.log" alpha_work) $(logcalls "$d/cap_swap_0.log" bravo_work)"
if vfdc "$d/cap_swap_0.vfd"; then
    check "alpha_work excluded: the .vfd has every bravo_work" "0 1500" \
          "$(venter "$d/cap_swap_0.vfd" alpha_work) $(venter "$d/cap_swap_0.vfd" bravo_work)"
else
    fail "alpha_work excluded: the .vfd is not readable"; verr "$d/cap_swap_0.vfd" | show
fi

finish
