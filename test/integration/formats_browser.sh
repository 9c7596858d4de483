#!/bin/bash
# formats_browser.sh — the formats for people's viewers, checked by
# independent readers: Perfetto protobuf decoded by protoc with Perfetto's
# own .proto files (test/data/perfetto; test/formats/pfcheck.py: every
# packet decodes, sequences, interning, nesting, flows, compressed bundles
# inflated as trace_processor does); Chrome JSON by Python's json module and
# test/formats/jsoncheck.py (nesting, flows, async collectives); folded
# stacks by their syntax and by figures worked out by hand.  Counts are
# compared with vftr-dump of the OTF trace the conversions start from.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
MK=$B/test/conv/mkvfd
CV=$B/bin/vftr-convert
PY=/usr/bin/python3
PROTOS=$here/../data/perfetto

mkdir -p "$T/basic" "$T/threads" "$T/msgs"
$MK basic "$T/basic" && $MK threads "$T/threads" && $MK msgs "$T/msgs" 300 4 ||
    { bad "mkvfd"; exit 1; }

count() { "$B/bin/vftr-dump" -e "$1" | grep -c " $2 "; }

for s in basic threads msgs; do
    d=$T/$s
    "$B/bin/vfd2otf" -q -o "$d.otf" "$d" 2>/dev/null || { bad "$s: vfd2otf"; continue; }
    enters=$(count "$d.otf" Enter)
    sends=$(count "$d.otf" SendMsg)
    recvs=$(count "$d.otf" RecvMsg)
    colls=$(count "$d.otf" BeginCollectiveOperation)
    # a message is a flow when both its ends are in the trace
    flows=$("$B/bin/vftr-stats" --messages --csv "$d.otf" 2>/dev/null | awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n += $3 } END { print n + 0 }')
    for z in "" -z; do
        what="$s: perfetto${z:+ compressed}"
        if ! "$CV" -q $z -o "$d$z.pftrace" "$d.otf" 2>"$T/err"; then
            bad "$what: $(cat "$T/err")"
            continue
        fi
        if got=$($PY "$here/../formats/pfcheck.py" "$PROTOS" "$d$z.pftrace"); then
            pass "$what: protoc decodes every packet with Perfetto's protos; sequences, names, nesting, flows hold ($got)"
            want="begins $((enters + colls)) ends $((enters + colls)) instants $((sends + recvs))"
            case "$got" in
                *"$want"*) pass "$what: a slice per call and collective, an instant per send and receive" ;;
                *) bad "$what: expected '$want', got '$got'" ;;
            esac
        else
            bad "$what: $got"
        fi
    done
    if "$CV" -q -o "$d.json" "$d.otf" 2>"$T/err" && $PY -m json.tool "$d.json" >/dev/null 2>"$T/err"; then
        pass "$s: json: python3 -m json.tool parses it"
        if got=$($PY "$here/../formats/jsoncheck.py" "$d.json"); then
            want="begins $enters ends $enters flows"
            case "$got" in
                "$want "*" asyncs $colls counters 0") pass "$s: json: nesting, flows and collectives hold ($got)" ;;
                *) bad "$s: json: expected '$want ... asyncs $colls', got '$got'" ;;
            esac
        else
            bad "$s: json: $got"
        fi
    else
        bad "$s: json: $(cat "$T/err")"
    fi
    for mode in "" --per-process --calls; do
        if "$CV" -q $mode -o "$d$mode.folded" "$d.otf" 2>"$T/err"; then
            bad_lines=$(grep -cvE '^[^;[:cntrl:]]+(;[^;[:cntrl:]]+)* [0-9]+$' "$d$mode.folded")
            [ "$bad_lines" = 0 ] && [ -s "$d$mode.folded" ] &&
                pass "$s: folded${mode:+ $mode}: every line 'frame;frame... weight'" ||
                bad "$s: folded${mode:+ $mode}: $bad_lines lines of another form"
        else
            bad "$s: folded${mode:+ $mode}: $(cat "$T/err")"
        fi
    done
    # the weights add up to the exclusive time (ns) of every call
    total=$(awk '{ s += $NF } END { print s }' "$d.folded")
    excl=$("$B/bin/vftr-stats" --json "$d.otf" | $PY -c 'import json, sys; print(round(json.load(sys.stdin)["total_s"] * 1e9))')
    [ "$total" = "$excl" ] && pass "$s: folded weights add up to vftr-stats' exclusive time ($total ns)" ||
        bad "$s: folded weights $total ns, vftr-stats $excl ns"
    calls=$(awk '{ s += $NF } END { print s }' "$d--calls.folded")
    [ "$calls" = "$enters" ] && pass "$s: folded --calls: one per Enter ($calls)" ||
        bad "$s: folded --calls: $calls, the trace has $enters Enter records"
done

# basic by hand (test/conv/mkvfd.c): rank 0's main 100..700 holds foo 100,
# MPI_Send 60, MPI_Barrier 100: 340 of its own; rank 1's 100..650 holds
# MPI_Recv 330 and MPI_Barrier 100: 120.
cat >"$T/want.folded" <<'X'
Rank 0 Thread 1;omp implicit task @heat.c:42 60
Rank 0 Thread 1;omp implicit task @heat.c:42;work 10
Rank 0;main 340
Rank 0;main;MPI_Barrier 100
Rank 0;main;MPI_Send 60
Rank 0;main;foo 100
Rank 1;main 120
Rank 1;main;MPI_Barrier 100
Rank 1;main;MPI_Recv 330
X
LC_ALL=C sort "$T/basic--per-process.folded" | diff -u "$T/want.folded" - >"$T/diff" &&
    pass "basic: folded --per-process: the stacks worked out by hand" ||
    bad "basic: folded --per-process: $(cat "$T/diff")"
grep -qx 'main 460' "$T/basic.folded" && pass "basic: folded merged: main 340 + 120" ||
    bad "basic: folded merged: $(grep '^main ' "$T/basic.folded")"
# JSON times: microseconds from the first event, ns digits kept
grep -q '"ph":"B","pid":0,"tid":1,"ts":0.100,"name":"foo"' "$T/basic.json" &&
    pass "basic: json: foo begins at 0.100 us on rank 0's thread 1" ||
    bad "basic: json: no B of foo at 0.100: $(grep -m2 foo "$T/basic.json")"
# wrong requests are refused before anything is written
out=$("$CV" -o "$T/x.unknown" "$T/basic.otf" 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q 'no format for this name' && pass "an output name of no format: usage error" ||
    bad "an output name of no format: rc $rc: $out"
out=$("$CV" -z -o "$T/x.json" "$T/basic.otf" 2>&1); rc=$?
[ $rc = 2 ] && [ ! -e "$T/x.json" ] && pass "--compress for json: usage error, nothing written" ||
    bad "--compress for json: rc $rc: $out"
exit $fail
