#!/bin/bash
# vftr_dump.sh — integration test of vftr-dump against a trace of known
# content written by the reference OTF library (test/compat/dump_fixture.c;
# the comment at its top lists every record).  All expected numbers below
# are counted by hand from that list.  Times: resolution 1000000 ticks/s
# (1 tick = 1 us), first time stamp FIRST = 5000000; "rel" = time - FIRST.
#
# Prints one "PASS: ..." or "FAIL: ..." line per check; exits 1 if any failed.
set -u
: "${BUILD:=build}"

DUMP="$BUILD/bin/vftr-dump"
FIXTURE_REF="$BUILD/test/compat/ref/dump_fixture"
FIXTURE_VFTR="$BUILD/test/compat/vftr/dump_fixture"
failed=0

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

# check WHAT EXPECTED ACTUAL
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}

for f in "$DUMP" "$FIXTURE_REF"; do
    if [ ! -x "$f" ]; then
        fail "$f is not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vftr_dump.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$FIXTURE_REF" "$tmp/t" || { fail "reference fixture writer"; exit 1; }
"$FIXTURE_REF" "$tmp/nr" --no-timerange || { fail "reference fixture writer (no range)"; exit 1; }
"$FIXTURE_REF" "$tmp/er" --early-range || { fail "reference fixture writer (early range)"; exit 1; }
"$FIXTURE_REF" "$tmp/z" --compress || { fail "reference fixture writer (compressed)"; exit 1; }

# count NAME < output of --count: the number on NAME's line, 0 if absent.
count() { awk -v n="$1" '$1 == n { v = $2 } END { print v + 0 }'; }

# counts TRACE ARGS...: "--count" output of vftr-dump, or "rc=N" on failure.
counts() {
    local trace=$1; shift
    local out
    out=$("$DUMP" --count "$@" "$trace" 2>"$tmp/err") || { echo "rc=$?"; return; }
    printf '%s\n' "$out"
}

# ---------------------------------------------------------------- record counts
all=$(counts "$tmp/t")
for pair in DefVersion:1 DefUniqueId:1 DefinitionComment:1 DefCreator:1 DefTimerResolution:1 \
            DefTimeRange:1 DefProcess:4 DefProcessGroup:1 DefFunctionGroup:2 DefFunction:4 \
            DefCounterGroup:1 DefCounter:1 \
            BeginProcess:4 EndProcess:4 Enter:48 Leave:48 Counter:40 SendMsg:2 RecvMsg:2 \
            EnterSnapshot:8 SnapshotComment:1 FunctionSummary:12 DefMarker:1 Marker:2 \
            total:191; do
    name=${pair%%:*}
    check "--count: $name" "${pair##*:}" "$(count "$name" <<<"$all")"
done
check "--count lists only the 24 record types present (+ total)" 25 "$(wc -l <<<"$all")"

check "--defs --count total" 19 "$(counts "$tmp/t" --defs | count total)"
check "--events --count total" 148 "$(counts "$tmp/t" --events | count total)"
check "--snaps --count total" 9 "$(counts "$tmp/t" --snaps | count total)"
check "--stats --count total" 12 "$(counts "$tmp/t" --stats | count total)"
check "--markers --count total" 3 "$(counts "$tmp/t" --markers | count total)"
check "-e --snaps --count total" 157 "$(counts "$tmp/t" -e --snaps | count total)"
check "--events --count has no definitions" 0 "$(counts "$tmp/t" --events | count DefProcess)"
check "compressed trace: same counts" "$all" "$(counts "$tmp/z")"

# ---------------------------------------------------------------- printed records
"$DUMP" "$tmp/t" >"$tmp/all.txt" 2>"$tmp/err"
check "default prints every record on its own line" 191 "$(wc -l <"$tmp/all.txt")"
"$DUMP" -e "$tmp/t" >"$tmp/ev.txt"
check "--events prints 148 lines" 148 "$(wc -l <"$tmp/ev.txt")"
check "event lines are '<time> <process> <RecordName> ...'" 0 \
      "$(grep -cvE '^[0-9]+ [0-9]+ [A-Z][A-Za-z]+( |$)' "$tmp/ev.txt")"
check "events come merged in time order" ok \
      "$(awk '$1 < last { bad = 1 } { last = $1 } END { print bad ? "unsorted" : "ok" }' "$tmp/ev.txt")"
check "the send of process 1 at rel 1000" 1 "$(grep -c '^5001000 1 SendMsg ' "$tmp/ev.txt")"
check "the receive of process 4 at rel 1020" 1 "$(grep -c '^5001020 4 RecvMsg ' "$tmp/ev.txt")"
check "definitions name the functions" 1 "$(grep -c '^DefFunction .*"compute"' "$tmp/all.txt")"
check "definition and marker-definition lines carry the stream" 20 \
      "$(grep -c '^Def[A-Za-z]* stream=0' "$tmp/all.txt")"
check "the marker text is printed" 1 "$(grep -c '^Marker .*"communication starts"' "$tmp/all.txt")"
check "foo and foo.otf name the same trace" "$(cat "$tmp/all.txt")" "$("$DUMP" "$tmp/t.otf")"

# ---------------------------------------------------------------- names after ids
# The readable mode names what an id refers to; --raw prints the ids alone.
# dump_names.py checks every name against the definitions the reference
# otfprint prints, that every reference to a defined id is named, and that
# the lines without the names are --raw's.
"$DUMP" --raw "$tmp/t" >"$tmp/raw.txt"
check "--raw: an Enter with its function's id only" 1 \
      "$(grep -c '^5000000 2 Enter function=1 source=0$' "$tmp/raw.txt")"
check "names: the Enter of main" 1 "$(grep -c '^5000000 2 Enter function=1 (main) source=0$' "$tmp/all.txt")"
check "names: the send of process 1 to P2 on MPI_COMM_WORLD" 1 \
      "$(grep -c '^5001000 1 SendMsg receiver=2 (P2) group=1000 (MPI_COMM_WORLD) type=7 length=64 source=0$' "$tmp/all.txt")"
check "names: the counter, its group, the function group, the marker" "1 1 1 1" \
      "$(grep -c '^5000060 2 Counter counter=1 (iterations) value=1$' "$tmp/all.txt") $(grep -c '^DefCounter .* counterGroup=1 (COUNTERS) ' "$tmp/all.txt") $(grep -c '^DefFunction .*func=2 name="compute" funcGroup=1 (APP) ' "$tmp/all.txt") $(grep -c '^Marker time=5001000 process=1 (P1) token=1 (phase) ' "$tmp/all.txt")"
"$DUMP" -e "$tmp/t" >"$tmp/ev_named.txt"
check "names with --events alone (the definitions read, not printed)" "0 40" \
      "$(grep -c '^Def' "$tmp/ev_named.txt") $(grep -c ' Enter function=2 (compute) ' "$tmp/ev_named.txt")"
check "--count is the same with and without --raw" "$all" "$(counts "$tmp/t" --raw)"
if command -v otfprint >/dev/null && command -v python3 >/dev/null; then
    names() { # TRACE WHAT: dump_names.py's lines, prefixed
        otfprint "$1.otf" >"$tmp/ref.otfprint" 2>/dev/null
        "$DUMP" "$1" >"$tmp/named" && "$DUMP" --raw "$1" >"$tmp/rawd"
        python3 "$(dirname "$0")/dump_names.py" "$tmp/ref.otfprint" "$tmp/named" "$tmp/rawd" |
            sed "s/^\(PASS\|FAIL\): /\1: $2: /" >"$tmp/names.out"
        cat "$tmp/names.out"
        grep -q '^FAIL' "$tmp/names.out" && failed=1
        grep -q '^PASS' "$tmp/names.out" || fail "$2: dump_names.py printed nothing"
    }
    names "$tmp/t" "fixture"
    names "$tmp/z" "fixture, compressed"
    # a vfd2otf conversion: communicators, collectives, source locations,
    # a thread's parent (test/conv/mkvfd's basic scenario)
    if [ -x "$BUILD/test/conv/mkvfd" ] && [ -x "$BUILD/bin/vfd2otf" ]; then
        mkdir -p "$tmp/basic"
        "$BUILD/test/conv/mkvfd" basic "$tmp/basic" >/dev/null &&
            "$BUILD/bin/vfd2otf" -q -o "$tmp/b" "$tmp/basic" && names "$tmp/b" "mkvfd basic"
        check "names: a collective's operation and communicator, a location" "2 1" \
              "$(grep -c ' BeginCollectiveOperation collOp=1 (MPI_Barrier) matchingId=[0-9]* procGroup=1 (MPI_COMM_WORLD) ' "$tmp/named") $(grep -c '^DefFunction .* name="omp implicit task @heat.c:42" .*source=1 (/src/heat.c:42)$' "$tmp/named")"
    else
        fail "mkvfd or vfd2otf is not built"
    fi
else
    fail "otfprint (the reference OTF tools) or python3 is missing"
fi

# ---------------------------------------------------------------- --time windows
# events by rel time, per process: 0 BeginProcess+Enter; 100i+10 Enter;
# 100i+60 Counter+Leave (i=0..9); 1000 Enter (+SendMsg for 1,3);
# 1010 Leave (1,3); 1020 RecvMsg (2,4); 1030 Leave (2,4); 2000 Leave+EndProcess.
window() { counts "$tmp/t" --events --time "$1" | count total; }
check "--time 0:100us = rel [0,100)" 20 "$(window 0:100us)"
check "--time 0:100 (bare ticks)" 20 "$(window 0:100)"
check "--time 60us:1ms = rel [60,1000)" 116 "$(window 60us:1ms)"
check "--time 1ms: (open end)" 20 "$(window 1ms:)"
check "--time :1ms (open start)" 128 "$(window :1ms)"
check "--time 0s:0.001s (seconds with fraction)" 128 "$(window 0s:0.001s)"
check "--time 0.5ms:1.0105ms (1010.5 rounds to 1011)" 68 "$(window 0.5ms:1.0105ms)"
check "--time 2000:2001" 8 "$(window 2000:2001)"
check "--time 2001: (after the last event)" 0 "$(window 2001:)"
check "--time 1000us:1010us (upper bound excluded)" 6 "$(window 1000us:1010us)"
"$DUMP" -e --time 60us:1ms "$tmp/t" >"$tmp/win.txt"
check "--time prints only times in [A,B)" 0 \
      "$(awk '$1 < 5000060 || $1 >= 5001000' "$tmp/win.txt" | wc -l)"
check "--time window: Enter count" 36 "$(counts "$tmp/t" -e --time 60us:1ms | count Enter)"
check "--time window: Leave count" 40 "$(counts "$tmp/t" -e --time 60us:1ms | count Leave)"
check "--time on snapshots 0:1ms" 5 "$(counts "$tmp/t" --snaps --time 0:1ms | count total)"
check "--time on snapshots 1ms:" 4 "$(counts "$tmp/t" --snaps --time 1ms: | count total)"
check "--time on statistics 1ms:2ms" 4 "$(counts "$tmp/t" --stats --time 1ms:2ms | count total)"
check "--time on statistics 1ms:2001us" 12 \
      "$(counts "$tmp/t" --stats --time 1ms:2001us | count total)"
check "--time leaves definitions alone" 19 "$(counts "$tmp/t" --defs --time 0:1 | count total)"
# Without DefTimeRange the first event (rel 0) is the origin.
check "no DefTimeRange: times count from the first event" 20 \
      "$(counts "$tmp/nr" --events --time 0:100us | count total)"
# A declared range starting 1 ms early moves the origin: rel 1000..1100 of
# this trace is rel 0..100 of the others.
check "DefTimeRange start is the origin" 20 \
      "$(counts "$tmp/er" --events --time 1ms:1100us | count total)"
check "same window on the normal trace" 12 "$(window 1ms:1100us)"

# ---------------------------------------------------------------- --process
procs() { counts "$tmp/t" --events "$@" | count total; }
check "--process 1,3" 74 "$(procs --process 1,3)"
check "--process 2-4" 111 "$(procs --process 2-4)"
check "-p 1 -p 2 accumulate" 74 "$(procs -p 1 -p 2)"
check "--process 1-100 (beyond the trace)" 148 "$(procs --process 1-100)"
check "--process 2 --time 1ms:" 5 "$(procs --process 2 --time 1ms:)"
"$DUMP" -e -p 1,3 "$tmp/t" >"$tmp/p13.txt"
check "--process prints only those processes" 0 "$(awk '$2 != 1 && $2 != 3' "$tmp/p13.txt" | wc -l)"
check "--process on snapshots" 3 "$(counts "$tmp/t" --snaps -p 1 | count total)"
check "--process on statistics" 3 "$(counts "$tmp/t" --stats -p 4 | count total)"

"$DUMP" -p 9 "$tmp/t" >/dev/null 2>"$tmp/err"; rc=$?
check "--process 9 (not in the trace) exits 1" 1 "$rc"
check "--process 9 message" "vftr-dump: $tmp/t.otf: none of the processes 9 is in the trace" \
      "$(cat "$tmp/err")"

# ---------------------------------------------------------------- errors
# usage NAME EXPECTED-FIRST-LINE ARGS...: exit 2, message, hint, no output.
usage() {
    local what=$1 want=$2; shift 2
    "$DUMP" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    check "$what exits 2" 2 "$rc"
    check "$what message" "$want" "$(head -n 1 "$tmp/err")"
    check "$what hint" "Try 'vftr-dump --help' for more information." "$(sed -n 2p "$tmp/err")"
    check "$what prints nothing on stdout" 0 "$(wc -c <"$tmp/out")"
}
usage "unknown option" "vftr-dump: unrecognized option '--bogus'" --bogus "$tmp/t"
usage "unknown short option" "vftr-dump: invalid option -- 'x'" -x "$tmp/t"
usage "missing option argument" "vftr-dump: option '--time' requires an argument" "$tmp/t" --time
usage "missing trace" "vftr-dump: missing TRACE operand" --events
usage "two traces" "vftr-dump: extra operand 'b'" a b
usage "bad unit" "vftr-dump: bad time '1.5q': unknown unit 'q' (expected s, ms, us or ns)" \
      --time 1.5q:2ms "$tmp/t"
usage "reversed time range" "vftr-dump: bad time range '2ms:1ms': the end is not after the start" \
      --time 2ms:1ms "$tmp/t"
usage "time overflow" "vftr-dump: bad time '99999999999999s': too large" \
      --time 99999999999999s: "$tmp/t"
usage "reversed process range" \
      "vftr-dump: bad process list '4-1': reversed range '4-1' (did you mean 1-4?)" -p 4-1 "$tmp/t"
usage "hexadecimal process" \
      "vftr-dump: bad process list '0x10': '0x10' is hexadecimal; process tokens are given in decimal" \
      -p 0x10 "$tmp/t"
usage "bad syntax before a missing trace" \
      "vftr-dump: bad time '1.5q': unknown unit 'q' (expected s, ms, us or ns)" \
      --time 1.5q: "$tmp/missing"

"$DUMP" "$tmp/missing.otf" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "missing trace exits 1" 1 "$rc"
check "missing trace message" \
      "vftr-dump: $tmp/missing.otf: cannot open trace (No such file or directory)" "$(cat "$tmp/err")"
"$DUMP" "$tmp/missing" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "missing trace given as stub exits 1" 1 "$rc"

# ---------------------------------------------------------------- --help, --version
"$DUMP" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--help exits 0" 0 "$rc"
check "--help usage line" "Usage: vftr-dump [OPTION]... TRACE" "$(head -n 1 "$tmp/out")"
for opt in --defs --events --snaps --stats --markers --time=A:B --process=LIST --raw --count \
           --help --version; do
    check "--help lists $opt" 1 "$(grep -cE -- "^  (-[A-Za-z], |    )$opt( |\$)" "$tmp/out")"
done
check "--help writes nothing to stderr" 0 "$(wc -c <"$tmp/err")"
"$DUMP" --version >"$tmp/out" 2>&1; rc=$?
check "--version exits 0" 0 "$rc"
check "--version text" ok "$(grep -qE '^vftr-dump \(vftr\) [0-9]+\.[0-9]+' "$tmp/out" && echo ok)"

# ---------------------------------------------------------------- vftr's own writer
# The same fixture written through vftr's OTF library must dump identically
# (except the random DefUniqueId).
if [ -x "$FIXTURE_VFTR" ]; then
    if "$FIXTURE_VFTR" "$tmp/v"; then
        "$DUMP" "$tmp/v" | grep -v '^DefUniqueId ' >"$tmp/v.txt"
        grep -v '^DefUniqueId ' "$tmp/all.txt" >"$tmp/ref.txt"
        if cmp -s "$tmp/ref.txt" "$tmp/v.txt"; then
            pass "trace written by vftr dumps like the reference's"
        else
            fail "trace written by vftr dumps differently: $(diff "$tmp/ref.txt" "$tmp/v.txt" | head -n 3 | tr '\n' ' ')"
        fi
    else
        fail "vftr fixture writer"
    fi
fi

exit $failed
