#!/bin/bash
# capture_sample_paths.sh — the ring route's reuse of an unwinding
# (capture/sample.c, unwind_memo) keeps call paths apart: spin_paths
# (test/capture/spin_paths.c, no compiler hooks) reaches one leaf through
# via_a (25 % of its CPU time) and via_b (75 %), whose stacks in leaf()
# differ in nothing but a return address.  Under vftr-run --sample 1ms:
#   - the log names the ring route and most samples reused the previous
#     unwinding ("outer frames kept"), so the reuse is what is tested;
#   - the sampled times of via_a and via_b (leaf's two paths) are the CPU
#     times the program measured (5 %): a reuse that missed the changed
#     return address would give all of a stretch to the path before it.
# The same with "spin_paths 40 local", whose leaf keeps its loop counter in
# its own frame, below its return address: each sample's copy differs there,
# in a word no unwinding reads; the reuse compares only the bytes the
# previous unwinding read, so most samples still reuse it (before, when
# the whole 8 KiB copy was compared, none did: 0 of about 1750).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"

PROG=$CAPDIR/spin_paths
require "$PROG"

near() {
    if awk -v a="$2" -v b="$3" -v r="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= r * b) }'
    then pass "$1 ($2 vs $3)"; else fail "$1 ($2 vs $3, allowed $4 relative)"; fi
}

# paths WHAT ARGS...: one run of spin_paths and its checks
paths() {
    local what=$1 d=$cap_tmp/paths_$1 log booked kept
    shift
    VRUN_OPTS="--sample 1ms" vrun "$d" "$PROG" "$@"
    check "$what: program exits 0" 0 "$(cat "$d/.rc")"
    log=$d/spin_paths_0.log
    if [ ! -f "$log" ]; then
        fail "$what: no log"; show "$d/.stderr"
    elif ! grep -q "^  source: *task-clock event, kernel ring" "$log"; then
        skip "$what: the ring route's reuse" "no ring route here: $(sed -n 's/^  source: *//p' "$log")"
    else
        booked=$(awk '$1 == "booked:" { print $2 }' "$log")
        kept=$(awk '$1 == "outer" && $2 == "frames" { print $4 }' "$log")
        # (no signal on the ring route: the figures hold under TSan too)
        if awk -v k="$kept" -v b="$booked" 'BEGIN { exit !(b > 0 && k >= 0.5 * b) }'; then
            pass "$what: most samples reused the previous unwinding ($kept of $booked)"
        else
            fail "$what: few samples reused the previous unwinding ($kept of $booked)"
        fi
        for f in via_a via_b; do
            near "$what: sampled time of $f is the CPU time the program measured in it" \
                "$(awk -v f="$f" '$7 == f && $8 == "main" && $1 ~ /^[0-9]+$/ { s += $3 } END { printf "%.4f\n", s }' "$log")" \
                "$(awk -v f="$f" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$d/.stdout")" 0.05
        done
    fi
}

paths registers 40
paths local 40 local

finish
