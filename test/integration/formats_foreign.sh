#!/bin/bash
# formats_foreign.sh — OTF2 archives vftr did not write, read by vftr's OTF2
# source: one written by OTF2's own Python writer (test/formats/mkotf2.py,
# Score-P's naming, dense ids, a 1 MHz timer, a record kind vftr's model
# does not keep), checked
#   - against the events and definitions worked out by hand from mkotf2.py,
#   - event by event against libotf2's own printer (otf2-print, mapped by
#     test/formats/o2print.py),
#   - and through every analyzer: vftr-stats (hand-computed figures),
#     vftr-dump --check, vftr-convert to each format.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
DUMP=$B/bin/vftr-dump
PY=/usr/bin/python3

$PY "$here/../formats/mkotf2.py" "$T/py" 2>"$T/mk.err" || { bad "mkotf2.py: $(cat "$T/mk.err")"; exit 1; }

# Tokens: locations 0, 1, 2 -> processes 1, 2 (rank 0's thread), 3; regions
# main 0, compute 1, MPI_Send 2, MPI_Recv 3, MPI_Allreduce 4, omp parallel 5
# -> functions 1..6; MPI_COMM_WORLD (Comm 0) -> 1; ALLREDUCE -> vftr's 4;
# the parallel region's x.c:10 -> source place 1; the metric -> counter 1.
cat >"$T/want.events" <<'X'
10 1 Enter function=1 source=0
20 1 Enter function=6 source=1
30 1 Enter function=2 source=0
40 1 Leave function=2 source=0
50 1 Leave function=6 source=1
60 1 Enter function=3 source=0
61 1 SendMsg receiver=3 group=1 type=5 length=1024 source=0
62 1 Leave function=3 source=0
70 1 Enter function=5 source=0
71 1 BeginCollectiveOperation collOp=4 matchingId=1 procGroup=1 rootProc=0 sent=8 received=8 scltoken=0
79 1 EndCollectiveOperation matchingId=1
80 1 Leave function=5 source=0
85 1 Counter counter=1 value=12345
100 1 Leave function=1 source=0
20 2 Enter function=6 source=1
25 2 Enter function=2 source=0
45 2 Leave function=2 source=0
50 2 Leave function=6 source=1
10 3 Enter function=1 source=0
55 3 Enter function=4 source=0
65 3 RecvMsg sendProc=1 group=1 type=5 length=1024 source=0
66 3 Leave function=4 source=0
68 3 Enter function=5 source=0
69 3 BeginCollectiveOperation collOp=4 matchingId=1 procGroup=1 rootProc=0 sent=8 received=8 scltoken=0
79 3 EndCollectiveOperation matchingId=1
80 3 Leave function=5 source=0
90 3 Leave function=1 source=0
X
if "$DUMP" --raw -e "$T/py" >"$T/got" 2>"$T/got.err"; then
    sort -s -n -k2,2 "$T/got" >"$T/got.pp"
    if diff -u "$T/want.events" "$T/got.pp" >"$T/diff"; then
        pass "python3-otf2's archive: every event as worked out by hand (27, per process in order)"
    else
        bad "python3-otf2's archive: events differ: $(head -12 "$T/diff")"
    fi
    grep -q "1 records of kinds vftr's model does not keep passed over" "$T/got.err" &&
        pass "the MeasurementOnOff record is passed over and counted" ||
        bad "MeasurementOnOff not counted: $(cat "$T/got.err")"
else
    bad "vftr-dump cannot read python3-otf2's archive: $(cat "$T/got.err")"
fi
"$DUMP" --raw -d "$T/py/traces.otf2" >"$T/defs" 2>/dev/null
for want in 'DefTimerResolution stream=0 ticksPerSecond=1000000' \
            'DefProcess stream=0 process=1 name="MPI Rank 0" parent=0' \
            'DefProcess stream=0 process=2 name="MPI Rank 0 OMP thread 1" parent=1' \
            'DefProcess stream=0 process=3 name="MPI Rank 1" parent=0' \
            'DefProcessGroup stream=0 procGroup=1 name="MPI_COMM_WORLD" procs=[1,3]' \
            'DefSclFile stream=0 sourceFile=1 name="x.c"' \
            'DefScl stream=0 source=1 sourceFile=1 line=10' \
            'DefFunction stream=0 func=6 name="!$omp parallel @x.c:10" funcGroup=6 source=1' \
            'DefFunctionGroup stream=0 funcGroup=6 name="OpenMP"' \
            'DefFunctionGroup stream=0 funcGroup=7 name="MPI"' \
            'DefCounter stream=0 counter=1 name="PAPI_TOT_INS" properties=5 counterGroup=1 unit="#"'; do
    grep -qxF "$want" "$T/defs" && pass "definition: $want" || bad "missing definition: $want"
done

# libotf2's printer, event by event (ranks 0, 1 of MPI_COMM_WORLD are
# locations 0, 2: processes 1, 3)
if otf2-print "$T/py/traces.otf2" >"$T/o2p" 2>"$T/o2p.err"; then
    $PY "$here/../formats/o2print.py" 0=1 1=3 <"$T/o2p" >"$T/o2p.lines"
    grep -v '^#' "$T/o2p.lines" | sort -s -n -k2,2 >"$T/o2p.pp"
    # (the printer gives no source places: compared without them)
    if sed 's/ source=[0-9]*$/ source=0/' "$T/got.pp" | diff -u "$T/o2p.pp" - >"$T/diff2"; then
        pass "vftr reads what otf2-print prints, event by event ($(wc -l <"$T/o2p.pp") events)"
    else
        bad "vftr and otf2-print differ: $(head -12 "$T/diff2")"
    fi
    [ "$(grep -c '^#' "$T/o2p.lines")" = 1 ] && pass "otf2-print shows the one record vftr passes over" ||
        bad "otf2-print shows $(grep -c '^#' "$T/o2p.lines") records vftr does not keep"
else
    bad "otf2-print: $(cat "$T/o2p.err")"
fi

# Figures by hand (1 tick = 1 us): main excl 48 us on rank 0 (90 - 30 - 2 -
# 10), 57 on rank 1 (80 - 11 - 12): 105 us; the parallel region 30 us (rank
# 0) + 30 (its thread) incl, 10 + 10 excl; MPI_Allreduce 10 + 12.
"$B/bin/vftr-stats" --csv "$T/py" >"$T/csv" 2>&1
for want in '2,0.000105,52.50,0.000170,85.00,0.000085,0.000048,0.000053,0.000057,0.0789,2,main' \
            '2,0.000022,11.00,0.000022,11.00,0.000011,0.000010,0.000011,0.000012,0.0833,2,MPI_Allreduce' \
            '2,0.000030,15.00,0.000060,30.00,0.000030,0.000030,0.000030,0.000030,0.0000,1,!$omp parallel @x.c:10'; do
    grep -qxF "$want" "$T/csv" && pass "vftr-stats: ${want##*,}: the hand-computed row" ||
        bad "vftr-stats: no row '$want' in: $(cat "$T/csv")"
done
"$DUMP" --check "$T/py" >"$T/check" 2>&1 && pass "vftr-dump --check: consistent" ||
    bad "vftr-dump --check: $(cat "$T/check")"
for f in otf otf2 perfetto json folded; do
    "$B/bin/vftr-convert" -q --to $f -o "$T/out.$f" "$T/py" 2>"$T/cv.err" &&
        pass "vftr-convert --to $f reads it" || bad "vftr-convert --to $f: $(cat "$T/cv.err")"
done
"$B/bin/vftr-stats" --csv "$T/out.otf" >"$T/csv2" 2>&1
diff -q "$T/csv" "$T/csv2" >/dev/null && pass "its OTF conversion has the same profile" ||
    bad "its OTF conversion's profile differs: $(diff "$T/csv" "$T/csv2" | head -5)"
exit $fail
