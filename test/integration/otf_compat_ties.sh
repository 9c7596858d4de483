#!/bin/bash
# otf_compat_ties.sh — merged reads where streams share time stamps: vftr's
# reader must hand out the records in the reference's order, ties included,
# and its progress functions must answer as the reference's do, after sorted,
# unsorted and mixed reads.  Traces of 1, 2, 3, 5, 9 and 20 streams (heaps of
# different shapes) are written by test/compat/otf_ties (both builds: the
# files must be equal) and read by both builds in many configurations; the
# outputs must be equal byte for byte.  The reference's own tools are the
# second oracle: otfprint must print what vftr's reader hands out, and
# otfmerge must write what vftr's merged read copies into one stream.
# Environment: see otf_compat_common.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/otf_compat_common.sh
. "$here/otf_compat_common.sh"

compat_setup otf_compat_ties otf_ties

# Times of the trace (test/compat/otf_ties.c): 1000 + 16 per step, some
# streams half a step later on odd steps; 16 steps.  Stream 1 ends at 1160
# (a window after it starts without it), the last stream begins at 1096.
configs=(
    ""
    "-u"
    "-m -l 5"
    "-l 7"
    "-l 0"
    "-k snaps"
    "-k stats -u"
    "-k snaps -m -l 2 -d 3"
    "-d 1,4"
    "-l 9 -D 2"
    "-w 1100:1200"
    "-w 1100:1200 -u"
    "-w 1170:1250"
    "-w 1170:1250 -u -l 4"
    "-u -d 1,4"
    "-w 1000:1001"
    "-w 1200:1300 -m -l 3"
    "-w 0:100"
    "-w 2000:3000"
)

# ordered_ties FILE STREAMS — 0 if, somewhere in the records of FILE, one
# stream's record follows another's at the same time stamp and elsewhere the
# other way round: the trace has ties, and their order is not a fixed order
# of streams (which a test of the order must not take for granted).
ordered_ties() {
    awk -v S="$2" '
        /^[0-9]+ / {
            if (match($0, /process [0-9]+/)) {
                p = substr($0, RSTART + 8, RLENGTH - 8) + 0
                s = (p - 1) % S + 1
                if ($1 == t && s != ls) { if (s > ls) up = 1; else down = 1 }
                t = $1; ls = s
            }
        }
        END { exit !(up && down) }' "$1"
}

for s in 1 2 3 5 9 20; do
    mkdir -p "$TMP/s$s/ref" "$TMP/s$s/vftr"
    if ! "$REF_DIR/otf_ties" write "$TMP/s$s/ref/t" $s 2>"$TMP/s$s/err" ||
       ! "$VFTR_DIR/otf_ties" write "$TMP/s$s/vftr/t" $s 2>>"$TMP/s$s/err"; then
        fail "$s streams: otf_ties write failed"
        show <"$TMP/s$s/err"
        continue
    fi
    if same_trace_files "$TMP/s$s/ref" "$TMP/s$s/vftr" >"$TMP/s$s/files.diff"; then
        pass "$s streams: vftr writes the reference's trace"
    else
        fail "$s streams: vftr writes another trace than the reference"
        show <"$TMP/s$s/files.diff"
    fi
    trace=$TMP/s$s/ref/t
    if [ $s -gt 1 ]; then
        "$REF_DIR/otf_ties" read "$trace" -p >"$TMP/s$s/order" 2>&1
        if ordered_ties "$TMP/s$s/order" $s; then
            pass "$s streams: the reference hands out ties of streams in both orders"
        else
            fail "$s streams: no ties in both orders (test bug?)"
        fi
    fi

    # Both readers on the reference's trace, every configuration.
    bad=0 n=0
    for c in "${configs[@]}"; do
        n=$((n + 1))
        # shellcheck disable=SC2086  # $c is an option list
        "$REF_DIR/otf_ties" read "$trace" $c >"$TMP/s$s/r$n" 2>&1
        rc_ref=$?
        # shellcheck disable=SC2086
        "$VFTR_DIR/otf_ties" read "$trace" $c >"$TMP/s$s/v$n" 2>&1
        rc_vftr=$?
        if [ $rc_ref != 0 ] || ! grep -q '^# call 0 ' "$TMP/s$s/r$n"; then
            fail "$s streams: otf_ties read ${c:-(sorted)}: the reference failed (test bug?)"
            show <"$TMP/s$s/r$n"
            bad=$((bad + 1))
        elif [ $rc_vftr = 0 ] && cmp -s "$TMP/s$s/r$n" "$TMP/s$s/v$n"; then
            :
        else
            fail "$s streams: otf_ties read ${c:-(sorted)}: vftr (exit $rc_vftr) differs (< reference, > vftr)"
            diff "$TMP/s$s/r$n" "$TMP/s$s/v$n" | grep '^[<>]' | show
            bad=$((bad + 1))
        fi
    done
    [ $bad = 0 ] && pass "$s streams: $n reads (records, progress) identical to the reference's"

    # The reference's otfprint against vftr's reader.
    for k in events snaps stats; do
        case $k in
        events) skip="--nosnap --nostat" ;;
        snaps) skip="--noevent --nostat" ;;
        stats) skip="--noevent --nosnap" ;;
        esac
        # shellcheck disable=SC2086
        otfprint --nodef --nomarker $skip "$trace.otf" 2>&1 |
            sed -n 's/^(#[0-9]*) \t//p' >"$TMP/s$s/otfprint.$k"
        "$VFTR_DIR/otf_ties" read "$trace" -k $k -p >"$TMP/s$s/vftr.$k" 2>&1
        if [ ! -s "$TMP/s$s/otfprint.$k" ]; then
            fail "$s streams: otfprint printed no $k (test bug?)"
        elif cmp -s "$TMP/s$s/otfprint.$k" "$TMP/s$s/vftr.$k"; then
            pass "$s streams: otfprint prints the $k in vftr's order ($(wc -l <"$TMP/s$s/vftr.$k") records)"
        else
            fail "$s streams: otfprint prints the $k in another order (< otfprint, > vftr)"
            diff "$TMP/s$s/otfprint.$k" "$TMP/s$s/vftr.$k" | grep '^[<>]' | show
        fi
    done
done

# The reference's otfmerge against a merged copy through vftr's reader, on a
# plain and a compressed trace.
for z in 0 4; do
    d=$TMP/merge$z
    mkdir -p "$d/in" "$d/om" "$d/vm"
    if [ $z = 0 ]; then
        "$REF_DIR/otf_ties" write "$d/in/t" 5 2>"$d/err"
    else
        "$REF_DIR/otf_ties" write "$d/in/t" 5 -z $z 2>"$d/err"
    fi || { fail "merge -z $z: otf_ties write failed"; continue; }
    otfmerge -n 1 --snaps --stats -o "$d/om/t" "$d/in/t.otf" >"$d/otfmerge.log" 2>&1 ||
        { fail "merge -z $z: otfmerge failed"; show <"$d/otfmerge.log"; continue; }
    "$VFTR_DIR/otf_ties" merge "$d/in/t" "$d/vm/t" >"$d/vm.log" 2>&1 ||
        { fail "merge -z $z: vftr's merged copy failed"; show <"$d/vm.log"; continue; }
    for f in events snaps stats; do
        if [ ! -s "$d/om/t.1.$f" ]; then
            fail "merge -z $z: otfmerge wrote no t.1.$f (test bug?)"
        elif cmp -s "$d/om/t.1.$f" "$d/vm/t.1.$f"; then
            pass "merge -z $z: otfmerge's t.1.$f equals vftr's merged copy"
        else
            fail "merge -z $z: otfmerge's t.1.$f differs from vftr's merged copy"
            diff "$d/om/t.1.$f" "$d/vm/t.1.$f" | show
        fi
    done
done

compat_finish
