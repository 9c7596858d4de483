#!/bin/bash
# messages_window.sh — the message matrix of a time window must match a
# receive with the message it completes, also when that message was sent
# before the window (in flight at its start).  FIFO matching alone pairs
# such a receive with the channel's next send, which gives the wrong
# transfer time and leaves the right receive unmatched.
#
# Run: test/waits/mkwaits eager (its header spells out the times): rank 0
# sends 64 B at 100 us and 32 B at 3000 us on one channel; rank 1 receives
# them at 2010 us and 4010 us.  By hand (transfer = receive - send):
#   whole run      2 sent, 2 received, 2 matched, transfer 1910 + 1010 us
#   [1 ms, 5 ms)   1 sent (32 B), 2 received, 1 matched (1010 us), the
#                  receive at 2010 us completes the message sent at 100 us
#   [2.5, 3.5 ms)  1 sent, nothing received, the send unmatched
#   [3.5, 5 ms)    nothing sent, 1 received, completing the send at 3000 us
# The same on the .vfd run, its OTF conversion (vfd2otf, with snapshots)
# and its OTF2 conversion (vftr-convert).
set -u
: "${BUILD:=build}"
export LC_ALL=C
B=$BUILD
failed=0
pass() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; failed=1; }

STATS=$B/bin/vftr-stats
MK=$B/test/waits/mkwaits
V2O=$B/bin/vfd2otf
CONV=$B/bin/vftr-convert
for t in "$STATS" "$MK" "$V2O" "$CONV"; do
    [ -x "$t" ] || { bad "$t is not built (make check builds it)"; exit 1; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/messages_window.XXXXXX")
trap 'rm -rf "$T"' EXIT

mkdir -p "$T/run"
"$MK" eager "$T/run" || { bad "mkwaits eager"; exit 1; }
"$V2O" -q -o "$T/eager.otf" "$T/run" >/dev/null 2>&1 || bad "vfd2otf"
"$CONV" -q -o "$T/eager.otf2" "$T/run" >/dev/null 2>&1 || bad "vftr-convert to OTF2"

# figures TRACE [--time A:B]: the counts and the one pair, as one line
figures() {
    local t=$1; shift
    "$STATS" -M --json "$@" "$t" 2>"$T/err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = [x for x in d["pairs"] if x["messages"] or x["matched"]]
pair = " ".join("%d>%d:%d/%d/%d/%.6f" % (x["sender"], x["receiver"], x["messages"], x["bytes"],
                                        x["matched"], x["transfer"]) for x in p)
print("sent %d recvd %d matched %d unmatched %d/%d before %d pairs %s" % (
    d["sends"], d["recvs"], d["matched"], d["unmatched_sends"], d["unmatched_recvs"],
    d.get("recvs_sent_before", -1), pair or "-"))' || echo "error: $(head -1 "$T/err")"
}

# The OTF process tokens of ranks 0 and 1 differ by format: compare the
# counts and the pair's figures, not its tokens.
strip() { sed 's/ pairs [0-9]*>[0-9]*:/ pairs /'; }

check() {
    local what=$1 want=$2; shift 2
    for t in "$T/run" "$T/eager.otf" "$T/eager.otf2"; do
        got=$(figures "$t" "$@" | strip)
        if [ "$got" = "$want" ]; then
            pass "$what (${t##*/})"
        else
            bad "$what (${t##*/}): expected '$want', got '$got'"
        fi
    done
}

check "whole run" \
    "sent 2 recvd 2 matched 2 unmatched 0/0 before 0 pairs 2/96/2/0.002920"
check "window [1 ms, 5 ms): a receive of a message sent before the window" \
    "sent 1 recvd 2 matched 1 unmatched 0/0 before 1 pairs 1/32/1/0.001010" --time 1ms:5ms
check "window [2.5 ms, 3.5 ms): a send received after the window" \
    "sent 1 recvd 0 matched 0 unmatched 1/0 before 0 pairs 1/32/0/0.000000" --time 2.5ms:3.5ms
check "window [3.5 ms, 5 ms): only the receive" \
    "sent 0 recvd 1 matched 0 unmatched 0/0 before 1 pairs -" --time 3.5ms:5ms

# The text view says where the extra receive went.
"$STATS" -M --time 1ms:5ms "$T/run" >"$T/text" 2>&1
if grep -q "1 of the receives completed messages sent before the window" "$T/text"; then
    pass "text view names the receive of a message sent before the window"
else
    bad "text view: no line about the receive of a message sent before the window"
    sed 's/^/    /' "$T/text" | head -5
fi

exit $failed
