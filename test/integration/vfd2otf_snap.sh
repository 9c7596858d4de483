#!/bin/bash
# vfd2otf_snap.sh — vfd2otf --snapshots / --statistics / --all / -n / -p / -t:
# snapshots and summaries written in the same pass as the conversion.
# Checked against the reference: otfaux on the plain conversion, and
# vftr-snap on it; both printed with the reference's otfprint and compared
# record for record (order aside: otfprint's record numbers and its timing
# line removed, lines sorted).  Plus values worked out by hand on mkvfd's
# "basic" run (see vfd2otf_basic.sh for its events):
#   break 350: rank 0 (process 1) is in main since 100 (foo 200..300 over,
#   MPI_Send starts at 400); rank 1 (process 2) in main since 100 and
#   MPI_Recv since 150; thread 1 of rank 0 (1048577) in nothing.
#   Summary of process 1 at 350: main 1 call, incl 250, excl 250-100 = 150;
#   foo 1 call, excl = incl = 100.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
MK=$B/test/conv/mkvfd
V2O=$B/bin/vfd2otf
SNAP=$B/bin/vftr-snap

command -v otfaux >/dev/null && command -v otfprint >/dev/null ||
    { echo "SKIP: otfaux/otfprint not installed"; exit 0; }
mkdir -p "$T/basic" "$T/big"
$MK basic "$T/basic" >/dev/null || { bad "mkvfd basic"; exit 1; }
$MK big "$T/big" 40000 6 >/dev/null || { bad "mkvfd big"; exit 1; }

# the records of a trace, as the reference prints them, in a stable order
records() {
    otfprint "$1.otf" | grep -v '^ *$' | grep -v 'processing time' |
        grep -v 'DefUniqueId\|DefVersion' | sed 's/^(#[0-9]*)[[:space:]]*//' | LC_ALL=C sort
}

# same(name, input, vfd2otf options, snap options[, noref]): vfd2otf
# OPTS+SNAP in one pass versus vfd2otf OPTS then vftr-snap SNAP, then otfaux
# SNAP (not with noref: otfaux knows no time units, "-p 20us" is 20 ticks
# to it, while vftr's tools read 20 microseconds)
# vftr's tools spell otfaux's -p as --period and -t as --at, and count a bare
# --at from the first event where otfaux's -t is an absolute time stamp
# (a time with a unit counts from the first event in both).
first_event() {
    "$B/bin/vftr-dump" -e "$1" | awk '$1 ~ /^[0-9]+$/ && (m == "" || $1 < m) { m = $1 } END { print m + 0 }'
}
vftr_opts() {    # FIRST OTFAUX-OPTIONS...
    local first=$1 out=()
    shift
    while [ $# -gt 0 ]; do
        case $1 in
            -p) out+=(--period "$2"); shift 2 ;;
            -t) case $2 in *[!0-9]*) out+=(--at "$2") ;; *) out+=(--at "$(($2 - first))") ;; esac
                shift 2 ;;
            *) out+=("$1"); shift ;;
        esac
    done
    echo "${out[*]}"
}

same() {
    local name=$1 in=$2 opts=$3 snap=$4 noref=${5:-} d=$T/$1 vsnap
    mkdir -p "$d"
    # shellcheck disable=SC2086
    $V2O -q $opts -o "$d/ref" "$in" || { bad "$name: plain conversion failed"; return; }
    # shellcheck disable=SC2086
    vsnap=$(vftr_opts "$(first_event "$d/ref")" $snap)
    # shellcheck disable=SC2086
    if ! $V2O -q $opts $vsnap -o "$d/one" "$in" 2>"$d/err"; then
        bad "$name: vfd2otf $opts $vsnap failed: $(head -1 "$d/err")"; return
    fi
    # shellcheck disable=SC2086
    $V2O -q $opts -o "$d/two" "$in" &&
        $SNAP $vsnap "$d/two" 2>"$d/err2" && otfaux $snap "$d/ref.otf" >/dev/null 2>&1 ||
        { bad "$name: plain conversion, vftr-snap or otfaux failed $(head -1 "$d/err2")"; return; }
    records "$d/one" >"$d/one.txt"
    records "$d/two" >"$d/two.txt"
    records "$d/ref" >"$d/ref.txt"
    local n
    n=$(grep -c 'Snap\|Stat' "$d/one.txt")
    if [ "$n" -gt 0 ] && cmp -s "$d/one.txt" "$d/two.txt"; then
        pass "$name: same records as vfd2otf + vftr-snap ($n snapshot/summary records)"
    else
        bad "$name: differs from vfd2otf + vftr-snap ($n records; $(diff "$d/one.txt" "$d/two.txt" | head -3 | tr '\n' ' '))"
    fi
    if [ -n "$noref" ]; then
        :
    elif cmp -s "$d/one.txt" "$d/ref.txt"; then
        pass "$name: same records as otfaux on the converted trace"
    else
        bad "$name: differs from otfaux ($(diff "$d/one.txt" "$d/ref.txt" | head -3 | tr '\n' ' '))"
    fi
    # the events themselves are those of the plain conversion, byte for byte
    local ok=1 f
    for f in "$d"/two.*.events; do
        cmp -s "$f" "$d/one.${f##*/two.}" || ok=0
    done
    [ $ok = 1 ] && pass "$name: event files byte-identical to the plain conversion" ||
        bad "$name: event files differ from the plain conversion"
    if [ -z "$noref" ] && { [ -e "$d/ref.thumb" ] || [ -e "$d/one.thumb" ]; }; then
        if [ -e "$d/one.thumb" ] && [ -e "$d/ref.thumb" ] &&
           [ "$(LC_ALL=C sort "$d/one.thumb")" = "$(LC_ALL=C sort "$d/ref.thumb")" ]; then
            pass "$name: thumbnail as otfaux's"
        else
            bad "$name: thumbnail differs from otfaux's"
        fi
    fi
}

same basic-all "$T/basic" "" "--all -n 5"
same basic-snapshots "$T/basic" "" "--snapshots -t 350 -t 520"
same basic-units "$T/basic" "" "--all -t 0.25us -p 0.1us" noref
same basic-statistics "$T/basic" "--streams 1" "--statistics -p 100"
same basic-funcgroups "$T/basic" "" "--statistics --funcgroups -n 3"
same big-all "$T/big" "--streams 4" "--all -n 37"
same big-period "$T/big" "" "--all -p 20000 -t 55555"
same big-units "$T/big" "--streams 2" "--all -p 20us -t 1.5ms" noref

# hand-computed values at break 350 (see the top)
d=$T/hand
mkdir -p "$d"
$V2O -q -o "$d/plain" "$T/basic" || bad "hand: plain conversion failed"
# shellcheck disable=SC2046
if $V2O -q --all $(vftr_opts "$(first_event "$d/plain")" -t 350) -o "$d/h" "$T/basic"; then
    records "$d/h" | grep '^350 ' >"$d/at350"
    cat >"$d/want" <<'X'
350 SnapEnter: otime 100, process 1, function 1, source 0
350 SnapEnter: otime 100, process 2, function 1, source 0
350 SnapEnter: otime 150, process 2, function 7, source 0
350 StatFunction: process 1, function 1, invocations 1, excltime 150, incltime 250
350 StatFunction: process 1, function 2, invocations 1, excltime 100, incltime 100
X
    got=$(grep 'SnapEnter\|StatFunction: process 1,' "$d/at350")
    [ "$got" = "$(cat "$d/want")" ] && pass "hand: snapshot and process 1's summary at 350" ||
        { bad "hand: records at 350"; diff <(echo "$got") "$d/want"; }
else
    bad "hand: vfd2otf --all --at (350 from 0) failed"
fi

# options
$V2O -q -n 0 -o "$T/x" "$T/basic" 2>/dev/null; rc=$?
[ $rc = 2 ] && pass "-n 0: exit 2" || bad "-n 0: exit $rc, expected 2"
msg=$($V2O -q --period 5q -o "$T/x" "$T/basic" 2>&1); rc=$?
[ $rc = 2 ] && echo "$msg" | grep -q -- "-p: .*unit" && pass "bad -p: a usage error (exit 2) naming the unit" ||
    bad "bad -p: exit $rc: $msg"
$V2O -q -n 4 -o "$T/imp" "$T/basic" && [ -e "$T/imp.1.snaps" ] && [ ! -e "$T/imp.1.stats" ] &&
    pass "-n alone implies --snapshots (as vftr-snap)" || bad "-n alone"
$V2O --help | grep -q -- '--statistics' && pass "--help lists --statistics" || bad "--help"
exit $fail
