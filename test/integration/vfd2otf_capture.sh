#!/bin/bash
# vfd2otf_capture.sh — vfd2otf on real captures: test/mpi/mpi_p2p under
# mpirun -np 4 through vftr-run (capture's MPI wrappers), converted and read
# back with the REFERENCE OTF library.  Expectations come from the program
# itself (it writes every message it sends and receives to expect_<rank>.txt)
# and from the .vfd files as lib/vfd's reader sees them (vftr-dump --count):
#   - per process the OTF trace holds as many Enter and Leave records as the
#     rank's .vfd has ENTER and EXIT events, and exactly the program's
#     messages (peer, tag, bytes) as SendMsg / RecvMsg;
#   - every send is matched (no warning), the streams are sorted (refdump);
#   - otfaux and otfprofile succeed; --compress + otfdecompress reads the same;
#   - vfd2otf-mpi (-np 2) writes the same files;
#   - with VFTR_TEST_CLOCK_SKEW on rank 1 (5 ms off, 200 ppm fast) the
#     converted trace has no receive before its send, the correction applied
#     is the 5 ms offset (tolerance 500 us: the 200 ppm drift adds 200 us per
#     second of run time, and the test runs well under 2 s), and without
#     alignment the early receives are counted and reported.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"
V2O=$mpi_build/bin/vfd2otf
V2OMPI=$mpi_build/bin/vfd2otf-mpi
REF=$mpi_build/test/conv/refdump
DUMP=$mpi_build/bin/vftr-dump
for f in "$V2O" "$REF" "$DUMP"; do
    [ -x "$f" ] || { fail "$f is not built"; exit 1; }
done

d=$mpi_tmp/cap
mrun 4 "$d" "$MPIDIR/mpi_p2p"
check "capture: mpirun exit status" 0 "$(cat "$d/.rc")"
"$V2O" -o "$d/t" "$d" >"$d/.conv" 2>"$d/.converr" || fail "vfd2otf: $(cat "$d/.converr")"
[ -s "$d/.converr" ] && fail "vfd2otf warned: $(head -3 "$d/.converr")" || pass "capture: converted without warnings (all messages matched)"
"$REF" -e "$d/t" >"$d/ev" 2>"$d/.referr" && pass "capture: reference reads it, streams sorted" \
    || fail "reference: $(cat "$d/.referr")"
for r in 0 1 2 3; do
    p=$((r + 1))
    want=$("$DUMP" --count "$d/mpi_p2p_$r.vfd" | awk '$1 == "ENTER" { e = $2 } $1 == "EXIT" { x = $2 } END { print e + 0, x + 0 }')
    got=$(awk -v p=$p '$1 == p && $3 == "ENTER" { e++ } $1 == p && $3 == "LEAVE" { l++ } END { print e + 0, l + 0 }' "$d/ev")
    check "capture: rank $r Enter/Leave = .vfd ENTER/EXIT" "$want" "$got"
    # the program's own list of messages: "send|recv PEER TAG BYTES FLAGS"
    want=$(awk '$1 == "send" || $1 == "recv" { print $1, $2, $3, $4 }' "$d/expect_$r.txt" | sort | md5sum)
    got=$(awk -v p=$p '$1 == p && $3 == "SEND" { print "send", ($4 % 1048576) - 1, $6, $7 }
                       $1 == p && $3 == "RECV" { print "recv", ($4 % 1048576) - 1, $6, $7 }' "$d/ev" | sort | md5sum)
    check "capture: rank $r messages = what the program counted" "$want" "$got"
done
s=$(grep -c ' SEND ' "$d/ev"); rv=$(grep -c ' RECV ' "$d/ev")
check "capture: sends = receives" "$s" "$rv"
(cd "$d" && otfaux t.otf >"$d/.aux" 2>&1) && pass "capture: otfaux succeeds" || fail "otfaux: $(tail -2 "$d/.aux")"
(cd "$d" && otfprofile -i t.otf -o "$d/prof" >"$d/.prof" 2>&1) && pass "capture: otfprofile succeeds" \
    || fail "otfprofile: $(tail -2 "$d/.prof")"
"$V2O" -q --compress -o "$d/z" "$d" && (cd "$d" && otfdecompress z.*.z >/dev/null 2>&1)
"$REF" -e "$d/z" >"$d/evz" 2>/dev/null
cmp -s "$d/ev" "$d/evz" && pass "capture: --compress after otfdecompress reads the same" || fail "compressed differs"
if [ -x "$V2OMPI" ]; then
    "$V2O" -q -o "$d/s" "$d"
    mpirun -np 2 "$V2OMPI" -q -o "$d/m" "$d" >"$d/.mpiconv" 2>&1 || fail "vfd2otf-mpi: $(tail -2 "$d/.mpiconv")"
    n=0; bad=0
    for f in "$d"/s.*; do n=$((n + 1)); cmp -s "$f" "$d/m${f#"$d"/s}" || bad=$((bad + 1)); done
    check "capture: vfd2otf-mpi -np 2 writes the same $n files" 0 "$bad"
fi

# clock skew on rank 1 only
k=$mpi_tmp/skew
mkdir -p "$k"
timeout -s KILL 120 mpirun -np 4 --oversubscribe --bind-to none bash -c \
    '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && export VFTR_TEST_CLOCK_SKEW=5000000:200; exec "$0" --out "$1" -- "$2" "$1"' \
    "$VFTR_RUN" "$k" "$MPIDIR/mpi_p2p" >"$k/.stdout" 2>"$k/.stderr"
check "skew: mpirun exit status" 0 "$?"
"$V2O" -o "$k/t" "$k" >"$k/.conv" 2>"$k/.converr"
grep -q ' 0 receives before their send' "$k/.conv" && pass "skew: no receive before its send after alignment" \
    || fail "skew: $(cat "$k/.conv" "$k/.converr")"
corr=$(sed -n 's/.*largest clock correction \([0-9.]*\) us.*/\1/p' "$k/.conv")
# The skewed clock is 5 ms ahead at rank 1's start and 200 ppm fast, so at
# its MPI_Init synchronisation (the larger of the two corrections, the
# earlier) it is 5 ms - 200 ppm of the time since its start ahead; the
# ping-pong measures that within half its round trip.  Both from rank 1's
# own .vfd (its header and CLOCKOFFSET init record): under load MPI_Init
# comes late, and 200 ppm of a slow start is hundreds of microseconds.
want=$("$DUMP" "$k"/mpi_p2p_1.vfd | awk '
    / ticks_per_second=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); h[kv[1]] = kv[2] } }
    /^CLOCKOFFSET phase=init/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); o[kv[1]] = kv[2] } }
    END { if (h["ticks_per_second"] > 0 && o["ticks"] != "")
              printf "%.3f %.3f\n", 5000 - 200e-6 * (o["ticks"] - h["start_ticks"]) / h["ticks_per_second"] * 1e6,
                     o["rtt"] / h["ticks_per_second"] * 1e6 / 2 + 0.001 }')
set -- $want
awk -v c="$corr" -v w="${1:-0}" -v tol="${2:-0}" 'BEGIN { d = c - w; if (d < 0) d = -d; exit !(w > 0 && d <= tol) }' &&
    pass "skew: the 5 ms offset less 200 ppm drift is recovered ($corr us, expected ${1:-?} +- ${2:-?} us, half the round trip)" \
    || fail "skew: correction $corr us, expected ${1:-?} +- ${2:-?} us"
"$V2O" --no-align -o "$k/n" "$k" >"$k/.conv2" 2>"$k/.converr2"
grep -q 'receives still precede' "$k/.converr2" && pass "skew: without alignment receives precede sends (and are reported)" \
    || fail "skew without alignment: $(cat "$k/.conv2")"
finish
