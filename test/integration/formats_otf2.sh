#!/bin/bash
# formats_otf2.sh — OTF2 written by vftr (lib/model/sink_otf2.c) and read by
# vftr (source_otf2.c), proved against independent readers:
#   - round trips: .vfd -> OTF (vfd2otf, the direct conversion) against
#     OTF -> OTF2 -> OTF and .vfd -> OTF2 -> OTF: the same vftr-dump, record
#     for record (names, times, nesting, messages, collectives), apart from
#     the creator records and OTF's Begin/EndProcess (no part of the model:
#     OTF2 has no per-location lifetime record);
#   - vftr-stats gives the same profile (flat, call paths, messages) on the
#     OTF, the OTF2 and the .vfd run;
#   - otf2-print (libotf2's own printer) reads the archive with no INVALID
#     reference and the event counts of the OTF trace;
#   - Python's otf2 module (python3-otf2) reads the events back: they are
#     the OTF trace's, event for event (test/formats/o2read.py maps them);
#   - a window conversion nests (calls under way at its start begin there).
# Inputs: test/conv/mkvfd scenarios (worked out by hand in mkvfd.c), with
# threads, thread-to-thread messages, collectives, a sampled capture.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
MK=$B/test/conv/mkvfd
CV=$B/bin/vftr-convert
DUMP=$B/bin/vftr-dump
PY=/usr/bin/python3

# the dump lines a conversion through the model keeps
model_lines() { grep -v -e 'DefCreator' -e 'DefinitionComment' -e ' BeginProcess$' -e ' EndProcess$'; }

mkdir -p "$T/basic" "$T/threads" "$T/sampled" "$T/msgs" "$T/big"
$MK basic "$T/basic" && $MK threads "$T/threads" && $MK sampled "$T/sampled" &&
    $MK msgs "$T/msgs" 300 4 && $MK big "$T/big" 20000 3 || { bad "mkvfd"; exit 1; }

for s in basic threads sampled msgs big; do
    d=$T/$s
    "$B/bin/vfd2otf" -q --events-only -o "$d.otf" "$d" 2>/dev/null || { bad "$s: vfd2otf"; continue; }
    if ! "$CV" -q -o "$d.a.otf2" "$d.otf" || ! "$CV" -q -o "$d.b.otf2" "$d" ||
        ! "$CV" -q -o "$d.a.otf" "$d.a.otf2" || ! "$CV" -q -o "$d.b.otf" "$d.b.otf2"; then
        bad "$s: conversions"
        continue
    fi
    "$DUMP" "$d.otf" | model_lines >"$d.want"
    for r in a b; do
        what=$([ $r = a ] && echo "OTF -> OTF2 -> OTF" || echo ".vfd -> OTF2 -> OTF")
        if "$DUMP" "$d.$r.otf" | model_lines | diff -u "$d.want" - >"$d.$r.diff"; then
            pass "$s: $what gives vfd2otf's trace record for record ($(wc -l <"$d.want") records)"
        else
            bad "$s: $what differs from vfd2otf's trace: $(head -12 "$d.$r.diff")"
        fi
    done
    # the OTF2 archive itself, through vftr's reader: the OTF's events, each
    # process's in its order (OTF's merge orders equal times of different
    # streams its own way)
    if "$DUMP" -e "$d.a.otf2" | sort -s -n -k2,2 |
        diff -u <(grep -v -e ' BeginProcess$' -e ' EndProcess$' <("$DUMP" -e "$d.otf") |
                  sort -s -n -k2,2) - >"$d.e.diff"; then
        pass "$s: vftr-dump of the OTF2 archive: the OTF trace's events"
    else
        bad "$s: vftr-dump of the OTF2 archive: $(head -8 "$d.e.diff")"
    fi
    for view in "" --callpath --messages --threads; do
        "$B/bin/vftr-stats" $view "$d.otf" >"$d.s1" 2>&1
        "$B/bin/vftr-stats" $view "$d.a.otf2" >"$d.s2" 2>&1
        "$B/bin/vftr-stats" $view "$d" >"$d.s3" 2>&1
        if [ -s "$d.s1" ] && diff -u "$d.s1" "$d.s2" >"$d.sdiff" && diff -u "$d.s1" "$d.s3" >>"$d.sdiff"; then
            pass "$s: vftr-stats ${view:-(flat)}: one profile from OTF, OTF2 and the .vfd run"
        else
            bad "$s: vftr-stats ${view:-(flat)} differs: $(head -8 "$d.sdiff")"
        fi
    done
    "$DUMP" --check "$d.a.otf2" >"$d.check" 2>&1 && pass "$s: vftr-dump --check of the OTF2 archive" ||
        bad "$s: vftr-dump --check: $(cat "$d.check")"
    # libotf2's own printer: every reference resolves, the counts are the OTF's
    if otf2-print -G "$d.a.otf2/traces.otf2" >"$d.o2p" 2>"$d.o2p.err" &&
        otf2-print "$d.a.otf2/traces.otf2" >>"$d.o2p" 2>>"$d.o2p.err"; then
        if grep -qi -e 'INVALID' -e 'UNKNOWN' "$d.o2p" "$d.o2p.err"; then
            bad "$s: otf2-print finds invalid references: $(grep -i -m3 -e INVALID -e UNKNOWN "$d.o2p")"
        else
            pass "$s: otf2-print reads the archive with no invalid reference"
        fi
        # definitions numbered densely, in order (readers index arrays by id)
        if grep -qi 'warning' "$d.o2p.err"; then
            bad "$s: otf2-print warns: $(grep -i -m3 warning "$d.o2p.err")"
        else
            pass "$s: otf2-print gives no warning (definitions dense and in order)"
        fi
        ok=1
        for pair in "ENTER Enter" "LEAVE Leave" "MPI_SEND SendMsg" "MPI_RECV RecvMsg" \
                    "MPI_COLLECTIVE_BEGIN BeginCollectiveOperation" \
                    "MPI_COLLECTIVE_END EndCollectiveOperation"; do
            set -- $pair
            n2=$(grep -c "^$1 " "$d.o2p")
            n1=$(grep -c " $2 " <("$DUMP" --raw -e "$d.otf"))
            [ "$n1" = "$n2" ] || { ok=0; bad "$s: otf2-print counts $n2 $1, the OTF trace $n1"; }
        done
        [ $ok = 1 ] && pass "$s: otf2-print counts the OTF trace's events of every kind"
    else
        bad "$s: otf2-print cannot read the archive: $(head -3 "$d.o2p.err")"
    fi
    # Python's otf2 module, event for event
    if $PY "$here/../formats/o2read.py" "$d.a.otf2/traces.otf2" >"$d.py" 2>"$d.py.err"; then
        "$DUMP" --raw -e "$d.otf" | grep -v -e ' BeginProcess$' -e ' EndProcess$' |
            sed 's/ source=[0-9]*$/ source=0/' | sort >"$d.py.want"
        if sort "$d.py" | diff -u "$d.py.want" - >"$d.py.diff"; then
            pass "$s: python3-otf2 reads back the OTF trace's events ($(wc -l <"$d.py") events)"
        else
            bad "$s: python3-otf2 reads other events: $(head -8 "$d.py.diff")"
        fi
    else
        bad "$s: python3-otf2 cannot read the archive: $(tail -3 "$d.py.err")"
    fi
done

# A window: the sampled run's main spans [0, 90 us); in [1 us, 3 us) no
# event happens, so the window is main alone, entered at 1 us and left at
# 3 us: 2000 ns of main, on every input (this failed before winstate.c
# handed the state over at a window without events).
for in in "$T/sampled" "$T/sampled.otf" "$T/sampled.a.otf2"; do
    if "$CV" -q --time 1us:3us -o "$T/w.folded" "$in" && [ "$(cat "$T/w.folded")" = "main 2000" ]; then
        pass "window of $(basename "$in"): the call under way at its start, cut to it"
    else
        bad "window of $(basename "$in"): got '$(cat "$T/w.folded" 2>&1)', expected 'main 2000'"
    fi
done

# vfd2otf-mpi writes OTF2 in parallel (OTF2's MPI collective callbacks):
# the archive vftr-convert writes from the same run, record for record
if command -v mpirun >/dev/null && [ -x "$B/bin/vfd2otf-mpi" ]; then
    for s in msgs threads; do
        for np in 2 3; do
            # (under ASan: Open MPI's own leaks are not vftr's)
            if ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
                mpirun --allow-run-as-root --oversubscribe -np $np "$B/bin/vfd2otf-mpi" -q \
                    -o "$T/$s.mpi$np.otf2" "$T/$s" >"$T/mpi.out" 2>&1 &&
                "$DUMP" "$T/$s.mpi$np.otf2" | diff -u <("$DUMP" "$T/$s.b.otf2") - >"$T/mpi.diff" &&
                otf2-print "$T/$s.mpi$np.otf2/traces.otf2" >/dev/null 2>"$T/mpi.err" &&
                ! grep -qi invalid "$T/mpi.err"; then
                pass "$s: vfd2otf-mpi -np $np writes vftr-convert's OTF2 archive, in parallel"
            else
                bad "$s: vfd2otf-mpi -np $np: $(cat "$T/mpi.out") $(head -8 "$T/mpi.diff")"
            fi
        done
    done
else
    bad "vfd2otf-mpi or mpirun missing"
fi

# vftr-tui: the archive converted once (with snapshots) beside it, reused
if "$B/bin/vftr-tui" --bench 3 "$T/msgs.a.otf2" >"$T/tui1" 2>"$T/tui1.err" &&
    grep -q "converting it once" "$T/tui1.err" && [ -f "$T/msgs.a.otf2/vftr-tui/trace.otf" ] &&
    ls "$T/msgs.a.otf2/vftr-tui/"*.snaps >/dev/null 2>&1; then
    pass "vftr-tui: an OTF2 archive is indexed once beside it (OTF with snapshots)"
else
    bad "vftr-tui on OTF2: $(cat "$T/tui1.err")"
fi
if "$B/bin/vftr-tui" --bench 3 "$T/msgs.a.otf2" >"$T/tui2" 2>"$T/tui2.err" &&
    ! grep -q "converting" "$T/tui2.err" && grep -q '^jumps 3$' "$T/tui2"; then
    pass "vftr-tui: the second opening reuses the index"
else
    bad "vftr-tui, second opening: $(cat "$T/tui2.err")"
fi
out=$("$B/bin/vftr-snap" "$T/msgs.a.otf2" 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "an OTF2 archive" && pass "vftr-snap refuses an OTF2 archive, saying how to convert it" ||
    bad "vftr-snap on OTF2: rc $rc: $out"

# Errors: a missing archive, a corrupted one, writing where it cannot.
out=$("$DUMP" --raw "$T/none.otf2" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "none.otf2" && pass "a missing archive: exit 1 naming it" ||
    bad "a missing archive: rc $rc: $out"
cp -r "$T/basic.a.otf2" "$T/cut.otf2"
f=$(ls "$T/cut.otf2/traces/"*.evt | head -1)
head -c 40 "$f" >"$f.t" && mv "$f.t" "$f"
out=$("$B/bin/vftr-stats" "$T/cut.otf2" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "cut.otf2" && pass "a truncated event file: exit 1 naming the archive" ||
    bad "a truncated event file: rc $rc: $out"
out=$("$CV" -q -o /proc/none/x.otf2 "$T/basic.otf" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "/proc/none/x.otf2" && pass "an unwritable output: exit 1 naming it" ||
    bad "an unwritable output: rc $rc: $out"
exit $fail
