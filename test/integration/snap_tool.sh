#!/bin/bash
# snap_tool.sh — vftr-snap's behaviour as a tool: golden values on a
# hand-built trace, in-place safety (SIGKILL mid-run), --remove, -o,
# compressed traces, batches with a failing trace, --script, exit codes.
#
# 1. Golden trace (test/snap/snaptext, 1 tick = 1 ms, written by the
#    reference OTF library and by vftr's):
#      P1 (stream 1): f1 1000..1100 { f2 1010..1050 { f2 1020..1030 }
#                     f3 1060..1090 { f4 1070..1080 } }       recursion
#      P2 (stream 1): f1 1000..1100 { f5 1005..1060 { f6 1005..1060
#                     { f7 1005..1005, f8 1040..1060 } } }   equal stamps, depth
#      P3 (stream 2): f1 1000..1100; sends 64 B to P1 at 1040 (comm 1,
#                     tag 0), received at 1050 — exactly at a break.
#    Breaks --at 25 --at 50 --at 75 (from the first event, 1000: 1025, 1050,
#    1075) and otfaux's final one at 1101.
#    Values worked out by hand (calls / exclusive / inclusive; inclusive is
#    summed per call, so P1's nested f2 counts twice):
#     1025 P1 f1 1/10/25  f2 2/(10+5)/(15+5)=2/15/20
#          P2 f1 1/5/25  f5 1/0/20  f6 1/20/20  f7 1/0/0      P3 f1 1/25/25
#     1050 (the leave and the receive at 1050 are after the break)
#          P1 f1 1/10/50  f2 2/(10+20+10)/(40+10)=2/40/50
#          P2 f1 1/5/50  f5 1/0/45  f6 1/35/45  f7 1/0/0  f8 1/10/10
#          P3 f1 1/50/50, messages: 1 sent, 64 B
#     1075 P1 f1 1/20/75  f2 2/40/50  f3 1/10/15  f4 1/5/5, 1 received 64 B
#          P2 f1 1/20/75  f5 1/0/55  f6 1/35/55  f7 1/0/0  f8 1/20/20
#          P3 f1 1/75/75, 1 sent
#     1101 P1 f1 1/30/100  f2 2/40/50  f3 1/20/30  f4 1/10/10
#          P2 f1 1/45/100 (f5..f8 as at 1075)                P3 f1 1/100/100
#    Snapshots (enter times): 1025 P1 f1@1000 f2@1010 f2@1020, P2 f1@1000
#    f5@1005 f6@1005, P3 f1@1000; 1050 P1 f1 f2@1010, P2 f1 f5 f6 f8@1040,
#    P3 f1 and the message 3->1 sent at 1040; 1075 P1 f1 f3@1060 f4@1070,
#    P2 f1, P3 f1; none at 1101.
set -u
: "${BUILD:=build}"
case "$BUILD" in /*) B=$BUILD ;; *) B=$PWD/$BUILD ;; esac
SNAP="$B/bin/vftr-snap"
DUMP="$B/bin/vftr-dump"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

cat >"$work/golden.txt" <<'EOF'
streams 2
proc 1 1
proc 2 1
proc 3 2
E 1000 1 1
E 1000 2 1
E 1000 3 1
E 1005 2 5
E 1005 2 6
E 1005 2 7
L 1005 2 7
E 1010 1 2
E 1020 1 2
L 1030 1 2
E 1040 2 8
S 1040 3 1 1 0 64
L 1050 1 2
R 1050 1 3 1 0 64
E 1060 1 3
L 1060 2 8
L 1060 2 6
L 1060 2 5
E 1070 1 4
L 1080 1 4
L 1090 1 3
L 1100 1 1
L 1100 2 1
L 1100 3 1
EOF

# The expected records, in otfprint's words, from the table above.
expected() {
    local t p f c e i
    while read -r t p f c e i; do
        echo "$t StatFunction: process $p, function $f, invocations $c, excltime $e, incltime $i"
    done <<'EOF'
1025 1 1 1 10 25
1025 1 2 2 15 20
1025 2 1 1 5 25
1025 2 5 1 0 20
1025 2 6 1 20 20
1025 2 7 1 0 0
1025 3 1 1 25 25
1050 1 1 1 10 50
1050 1 2 2 40 50
1050 2 1 1 5 50
1050 2 5 1 0 45
1050 2 6 1 35 45
1050 2 7 1 0 0
1050 2 8 1 10 10
1050 3 1 1 50 50
1075 1 1 1 20 75
1075 1 2 2 40 50
1075 1 3 1 10 15
1075 1 4 1 5 5
1075 2 1 1 20 75
1075 2 5 1 0 55
1075 2 6 1 35 55
1075 2 7 1 0 0
1075 2 8 1 20 20
1075 3 1 1 75 75
1101 1 1 1 30 100
1101 1 2 2 40 50
1101 1 3 1 20 30
1101 1 4 1 10 10
1101 2 1 1 45 100
1101 2 5 1 0 55
1101 2 6 1 35 55
1101 2 7 1 0 0
1101 2 8 1 20 20
1101 3 1 1 100 100
EOF
    for t in 1050 1075 1101; do
        echo "$t StatMessage: process 3, peer 0, group 0, type 0, numsent 1, numreceived 0, bytessent 64, bytesreceived 0"
    done
    for t in 1075 1101; do
        echo "$t StatMessage: process 1, peer 0, group 0, type 0, numsent 0, numreceived 1, bytessent 0, bytesreceived 64"
    done
    while read -r t o p f; do
        echo "$t SnapEnter: otime $o, process $p, function $f, source 0"
    done <<'EOF'
1025 1000 1 1
1025 1010 1 2
1025 1020 1 2
1025 1000 2 1
1025 1005 2 5
1025 1005 2 6
1025 1000 3 1
1050 1000 1 1
1050 1010 1 2
1050 1000 2 1
1050 1005 2 5
1050 1005 2 6
1050 1040 2 8
1050 1000 3 1
1075 1000 1 1
1075 1060 1 3
1075 1070 1 4
1075 1000 2 1
1075 1000 3 1
EOF
    echo "1050 SnapSend: otime 1040, sender 3, receiver 1, group 1, tag 0, length 64, source 0"
}

# Statistics and snapshot records of a trace as otfprint prints them.
auxrecords() {
    otfprint "$1" | sed -n '/^statistics:/,/^markers:/p' | grep -E '^\(#' |
        sed -E 's/^\(#[0-9]+\)[[:space:]]*//' | LC_ALL=C sort
}

expected | LC_ALL=C sort >"$work/expected.txt"
for lib in ref vftr; do
    d="$work/golden-$lib"
    mkdir -p "$d"
    "$B/test/snap/$lib/snaptext" "$d/t" <"$work/golden.txt" || fail "golden: snaptext ($lib) failed"
    if "$SNAP" --all --at 25 --at 50 --at 75 "$d/t.otf"; then
        auxrecords "$d/t.otf" >"$work/got-$lib.txt"
        if diff "$work/expected.txt" "$work/got-$lib.txt" >"$work/golden.diff"; then
            pass "golden ($lib-written trace): $(wc -l <"$work/expected.txt") hand-computed records"
        else
            fail "golden ($lib-written trace): $(head -n 6 "$work/golden.diff" | tr '\n' ' ')"
        fi
    else
        fail "golden ($lib): vftr-snap failed"
    fi
done
d="$work/golden-ref"
check "golden: DefTimeRange [1000, 1100] and a summary point at 1101 without a snapshot point" \
    bash -c "otfprint '$d/t.otf' | grep -q 'DefTimeRange: stream 0, \[1000, 1100\]' &&
             otfprint '$d/t.otf' | grep -q 'time 1101, type SUMMARY' &&
             ! otfprint '$d/t.otf' | grep -q 'time 1101, type SNAPSHOT'"
# --detailed: messages per peer and communicator, groups beside functions
# (f1, f4 in group 2: P1 at 1075: 2 calls, excl 20 + 5, incl 75 + 5).
"$SNAP" --statistics --detailed --at 75 "$d/t" || fail "--detailed failed"
check "--detailed: message summary per peer and communicator" \
    bash -c "otfprint '$d/t.otf' | grep -q '1075 StatMessage: process 1, peer 3, group 1, type 0, numsent 0, numreceived 1'"
check "--detailed: group summary beside function summaries" \
    bash -c "otfprint '$d/t.otf' | grep -q '1075 StatFunctionGroup: process 1, group 2, invocations 2, excltime 25, incltime 80' &&
             otfprint '$d/t.otf' | grep -q '1075 StatFunction: process 1, function 4'"
# -p with a unit: 1000 ticks/s, so 30ms is 30 ticks: 1030, 1060, 1090 (+1101)
"$SNAP" --snapshots --period 30ms "$d/t" || fail "--period 30ms failed"
check "-p 30ms places snapshots at 1030, 1060, 1090" \
    bash -c "[ \"\$(otfprint '$d/t.otf' | grep -o 'time [0-9]*, type SNAPSHOT' | tr '\n' ' ')\" = 'time 1030, type SNAPSHOT time 1060, type SNAPSHOT time 1090, type SNAPSHOT ' ]"

# 2. In place is safe: SIGKILL while it writes leaves every file of the
#    trace as it was, byte for byte.
big="$work/big"
mkdir -p "$big"
"$B/test/snap/vftr/snapgen" "$big/t" 8 4 600000 3 >/dev/null || fail "snapgen failed"
"$SNAP" --all -n 20 "$big/t" || fail "first run on the big trace failed"
(cd "$big" && sha256sum t.* >"$work/before.sum")
killed=0
for attempt in 1 2 3 4 5; do
    "$SNAP" --all -n 5000 "$big/t" &
    pid=$!
    for _ in $(seq 1 2000); do
        if ls "$big"/t.vftr-snap-$pid.* >/dev/null 2>&1; then break; fi
        sleep 0.005
    done
    sleep 0.0$attempt
    if kill -9 $pid 2>/dev/null; then
        wait $pid 2>/dev/null
        if ls "$big"/t.vftr-snap-$pid.* >/dev/null 2>&1; then killed=1; break; fi
    fi
    wait $pid 2>/dev/null
done
if [ "$killed" -eq 1 ]; then
    check "in place: SIGKILL mid-run leaves the trace byte for byte unchanged" \
        bash -c "cd '$big' && sha256sum -c --quiet '$work/before.sum'"
    check "in place: the killed run's files carry its temporary name only" \
        bash -c "cd '$big' && [ \$(ls t.* | grep -v vftr-snap- | wc -l) -eq \$(wc -l <'$work/before.sum') ]"
    "$SNAP" --statistics -n 3 "$big/t" || fail "run after the kill failed"
    check "in place: the next run removes the killed run's files" \
        bash -c "! ls '$big'/t.vftr-snap-* 2>/dev/null | grep -q ."
    (cd "$big" && sha256sum t.* >"$work/before.sum")
else
    fail "in place: could not kill vftr-snap while it was writing"
fi
# A failed run (an unwritable directory) changes nothing either.
ro="$work/ro"
mkdir -p "$ro"
cp "$big"/t.* "$ro"/
(cd "$ro" && sha256sum t.* >"$work/ro.sum")
chmod a-w "$ro"
if [ "$(id -u)" -ne 0 ]; then
    "$SNAP" --all "$ro/t" 2>"$work/ro.err"
    rc=$?
    check "unwritable directory: exit 1 with a message naming the file" \
        bash -c "[ $rc -eq 1 ] && grep -q 'vftr-snap: .*vftr-snap-' '$work/ro.err'"
    check "unwritable directory: the trace is unchanged" bash -c "cd '$ro' && sha256sum -c --quiet '$work/ro.sum'"
fi
chmod u+w "$ro"

# 3. --remove takes files and definitions away; events stay.
(cd "$big" && sha256sum t.*.events >"$work/events.sum")
"$SNAP" --remove "$big/t" || fail "--remove failed"
check "--remove: no .snaps, .stats or .thumb files left" \
    bash -c "! ls '$big'/t.*.snaps '$big'/t.*.stats '$big'/t.thumb 2>/dev/null | grep -q ."
check "--remove: no DefAuxSamplePoint left" bash -c "! otfprint '$big/t.otf' | grep -q DefAuxSamplePoint"
check "--remove: events unchanged" bash -c "cd '$big' && sha256sum -c --quiet '$work/events.sum'"

# 4. Compressed stays compressed; the records equal those of the same trace
#    uncompressed (read by vftr's reader: the reference cannot read .z on
#    current zlib).
z="$work/z"; p="$work/plain"
mkdir -p "$z" "$p"
"$B/test/snap/vftr/snapgen" "$z/t" 6 3 20000 4 z >/dev/null
"$B/test/snap/vftr/snapgen" "$p/t" 6 3 20000 4 >/dev/null
"$SNAP" --all -n 17 "$z/t" && "$SNAP" --all -n 17 "$p/t" || fail "compressed: vftr-snap failed"
check "compressed: new files are compressed (.snaps.z, .stats.z, .0.def.z), none plain" \
    bash -c "ls '$z'/t.1.snaps.z '$z'/t.1.stats.z '$z'/t.0.def.z >/dev/null && ! ls '$z'/t.*.snaps '$z'/t.0.def 2>/dev/null | grep -q ."
check "compressed: same snapshot and summary records as uncompressed" \
    bash -c "diff <('$DUMP' --snaps --stats '$z/t' | sort) <('$DUMP' --snaps --stats '$p/t' | sort) >/dev/null &&
             [ \$('$DUMP' --snaps --stats '$z/t' | wc -l) -gt 100 ]"

# 5. -o writes a copy; the original stays as it was.
(cd "$p" && sha256sum t.* >"$work/p.sum")
mkdir -p "$work/copy"
"$SNAP" --all -n 17 -o "$work/copy/c" "$p/t" || fail "-o failed"
check "-o: the original is unchanged" bash -c "cd '$p' && sha256sum -c --quiet '$work/p.sum'"
check "-o: the copy has the same events, snapshots and summaries" \
    bash -c "diff <(otfprint '$p/t.otf' | sed -E 's/^\(#[0-9]+\)//' | grep -v -e DefUniqueId -e 'processing time' | sort) \
                  <(otfprint '$work/copy/c.otf' | sed -E 's/^\(#[0-9]+\)//' | grep -v -e DefUniqueId -e 'processing time' | sort) >/dev/null"

# 6. Batch: three traces, the middle one broken, two at a time.
for n in 1 2 3; do mkdir -p "$work/b$n"; "$B/test/snap/vftr/snapgen" "$work/b$n/t" 3 2 3000 $n; done >/dev/null
echo "garbage" >"$work/b2/t.otf"
"$SNAP" -j 2 --statistics -n 5 "$work/b1/t" "$work/b2/t" "$work/b3/t" 2>"$work/batch.err"
rc=$?
check "batch: exit status 1 when one trace fails" [ $rc -eq 1 ]
check "batch: the failure names the broken trace" grep -q "b2/t.otf" "$work/batch.err"
check "batch: the other traces got their summaries" \
    bash -c "ls '$work/b1/t.1.stats' '$work/b3/t.1.stats' >/dev/null"
"$SNAP" -j 2 --statistics -n 5 "$work/b1/t" "$work/b3/t"
check "batch: exit status 0 when all succeed" [ $? -eq 0 ]

# 7. --script: jobs from JSON; errors name the line and column.  Times
# count from the first event (the first time stamp vftr-dump prints).
first3=$("$B/bin/vftr-dump" -e "$work/b3/t" | awk '$1 ~ /^[0-9]+$/ && (m == "" || $1 < m) { m = $1 } END { print m + 0 }')
cat >"$work/jobs.json" <<EOF
{ "jobs": [
  { "trace": "$work/b1/t", "breaks": 3, "kinds": "statistics" },
  { "trace": "$work/b3/t.otf", "times": [$((1500 - first3)), "2ms"], "kinds": "all", "funcgroups": true }
] }
EOF
"$SNAP" --script "$work/jobs.json"
check "--script: runs every job" [ $? -eq 0 ]
# (-n 3 and the final break: 3 or 4 points, as the third may be the final one)
check "--script: job 1 has 3 breaks and the final one" \
    bash -c "n=\$(otfprint '$work/b1/t.otf' | grep -c 'type SUMMARY'); [ \$n -ge 3 ] && [ \$n -le 4 ]"
check "--script: job 2 has function group summaries at 1500" \
    bash -c "otfprint '$work/b3/t.otf' | grep -q '1500 StatFunctionGroup'"
printf '{ "jobs": [\n  { "trace": "x", }\n] }\n' >"$work/bad.json"
"$SNAP" --script "$work/bad.json" 2>"$work/bad.err"
rc=$?
check "--script: bad JSON is exit 1 with line and column" \
    bash -c "[ $rc -eq 1 ] && grep -q 'bad.json: line 2, column' '$work/bad.err'"
printf '[ { "trace": "x", "brakes": 3 } ]\n' >"$work/bad2.json"
"$SNAP" --script "$work/bad2.json" 2>"$work/bad2.err"
check "--script: an unknown key is named" grep -q 'job 1: unknown key "brakes"' "$work/bad2.err"

# 8. Exit codes and messages.
"$SNAP" >/dev/null 2>&1; check "no TRACE: exit 2" [ $? -eq 2 ]
"$SNAP" --bogus x >/dev/null 2>&1; check "unknown option: exit 2" [ $? -eq 2 ]
"$SNAP" -n 0 x >/dev/null 2>&1; check "-n 0: exit 2" [ $? -eq 2 ]
"$SNAP" --help | grep -q -- '--funcgroups'; check "--help lists the options" [ $? -eq 0 ]
"$SNAP" --version | grep -q 'vftr-snap (vftr)'; check "--version" [ $? -eq 0 ]
"$SNAP" "$work/nonexistent" 2>"$work/ne.err"
check "missing trace: exit 1 naming it" bash -c "[ $? -eq 1 ] && grep -q 'nonexistent.otf' '$work/ne.err'"
"$SNAP" --period 5q "$work/b1/t" 2>"$work/p.err"
check "bad period: exit 1 and the unit named" bash -c "grep -q \"unknown unit 'q'\" '$work/p.err'"

[ "$fails" -eq 0 ]
