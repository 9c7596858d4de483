#!/bin/bash
# vftr_stats_jobs.sh — vftr-stats reading streams in parallel (--jobs), the
# message window from summary records, and summaries written by vftr-snap.
#
# 1. --jobs: the output does not depend on the number of threads.  Traces:
#    test/stats/stats_gen with 3 ranks x 2 thread processes, one process per
#    stream (9 streams) and 2 per stream; test/compat/stats_fixture (2
#    streams, recursion, calls never left, processes sharing a stream).
#    Every view (profile, --callpath, --groups, --fold-threads, --process,
#    --time, --messages) with -J 1 is compared with -J 2, 3, 5 and 16; the
#    closed form of stats_gen (see its header) checks -J 4 independently:
#    9 processes x 3000 calls of work (excl 4, incl 7) and leaf (3), main
#    excl 3 * 3000 + 10, incl 10 * 3000 + 10 per process.  --verbose says
#    how many threads ran: never more than streams with wanted processes.
# 2. --messages --time from MessageSummary/CollopSummary (otfaux --statistics
#    with breaks at 14, 45, 65 on the fixture; 1 tick = 1 ms, times relative
#    to 1000; the messages and collectives are listed in stats_fixture.c).
#    otfaux aggregates over peers and communicators (peer 0), counts a
#    Begin/EndCollectiveOperation at its end, and a summary at t holds the
#    events before t, so, by hand:
#      [14,45): P1 sends at 30 (1000 B) and 35 (300 B): 2, 1300 B; receives
#        at 25: 1, 50 B.  P2 sends at 20: 1, 50 B; receives at 14 (200 B),
#        15 (100 B), 38 (300 B): 3, 600 B.  P2's barrier at 38: sent 1;
#        P2's allreduce 36..39: sent 1, received 1, 8 B each way.
#      [45,65): nothing (P1's allreduce ends at 65).
#      [45,):   barriers of P3 (70) and P1 (80): sent 2; P1's allreduce.
#      [0,45):  P1 also the sends at 12 (100 B) and 13 (200 B): 4, 1600 B.
# 2b. --callpath of a window on a trace with snapshots starts from the
#    stacks of the snapshot (by hand, below).
# 3. vftr-snap --statistics / --all with the same breaks gives the same
#    window profiles (functions and messages) as otfaux's records; with
#    --detailed its message summaries name the peers (by hand, below).
set -u
: "${BUILD:=build}"
export LC_ALL=C

STATS="$BUILD/bin/vftr-stats"
case $BUILD in /*) SNAP="$BUILD/bin/vftr-snap" ;; *) SNAP="$PWD/$BUILD/bin/vftr-snap" ;; esac
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}

for f in "$STATS" "$BUILD/test/compat/ref/stats_fixture" "$BUILD/test/compat/vftr/stats_fixture" \
         "$BUILD/test/stats/ref/stats_gen" "$BUILD/test/stats/vftr/stats_gen"; do
    [ -x "$f" ] || { fail "$f is not built"; exit 1; }
done
command -v otfaux >/dev/null || { fail "otfaux (reference OTF tools) is not installed"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vftr_stats_jobs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# same_for_all_jobs NAME TRACE ARGS...: -J 1 against -J 2, 3, 5, 16.
same_for_all_jobs() {
    local name=$1 t=$2; shift 2
    local one rc
    one=$("$STATS" -J 1 "$@" "$t" 2>&1); rc=$?
    if [ $rc -ne 0 ] || [ -z "$one" ]; then
        fail "$name: -J 1 failed (exit $rc: $one)"
        return
    fi
    for j in 2 3 5 16; do
        check "$name: -J $j gives what -J 1 gives" "$one" "$("$STATS" -J "$j" "$@" "$t" 2>&1)"
    done
}

# ------------------------------------------------------------ 1. --jobs
"$BUILD/test/stats/ref/stats_gen" "$tmp/g1" 3 3000 2 1 || fail "stats_gen, 1 process per stream"
"$BUILD/test/stats/vftr/stats_gen" "$tmp/g2" 3 3000 2 2 || fail "stats_gen, 2 processes per stream"
for g in g1 g2; do
    same_for_all_jobs "$g profile" "$tmp/$g" --csv
    same_for_all_jobs "$g callpath" "$tmp/$g" --callpath --csv
    same_for_all_jobs "$g groups" "$tmp/$g" --groups --json
    same_for_all_jobs "$g fold-threads" "$tmp/$g" -F --csv
    same_for_all_jobs "$g process selection" "$tmp/$g" -p 2,1001-2003 --csv
    same_for_all_jobs "$g window" "$tmp/$g" -t 10005:20007 --csv
    same_for_all_jobs "$g window callpath" "$tmp/$g" -t 10005:20007 --callpath
done
check "g1 -J 4: leaf, main, work per the closed form" \
      "leaf 27000 0.081000 0.081000 9;main 9 0.081090 0.270090 9;work 27000 0.108000 0.189000 9;" \
      "$("$STATS" -J 4 --csv "$tmp/g1" | awk -F, 'NR > 1 { printf "%s %s %s %s %s\n", $12, $1, $2, $4, $11 }' | sort | tr '\n' ';')"
"$STATS" -v -J 4 "$tmp/g1" 2>"$tmp/err" >/dev/null
check "--verbose: 9 streams read by 4 threads" 1 "$(grep -c '(9 stream(s), 4 thread(s))' "$tmp/err")"
"$STATS" -v -J 16 -p 1,2 "$tmp/g1" 2>"$tmp/err" >/dev/null
check "--verbose: 2 selected streams, so 2 threads" 1 "$(grep -c '(2 stream(s), 2 thread(s))' "$tmp/err")"
check "--process with -J 3 keeps only the selection (2 processes)" \
      "2,2,2" "$("$STATS" -J 3 --csv -p 1,1002 "$tmp/g1" | awk -F, 'NR > 1 { printf "%s%s", s, $11; s = "," }')"

if command -v otfcompress >/dev/null; then
    # compressed streams (.events.z): the same profile for every -J
    "$BUILD/test/stats/ref/stats_gen" "$tmp/gz" 3 300 1 1 &&
        (cd "$tmp" && otfcompress gz.*.events gz.0.def >/dev/null 2>&1) || fail "otfcompress"
    check "compressed trace: 6 streams read .events.z, -J 4 as -J 1" \
          "$("$STATS" -J 1 --csv "$tmp/gz")" "$("$STATS" -J 4 --csv "$tmp/gz")"
    check "compressed trace: work 1800 calls, 0.0072 s (closed form)" "1800,0.007200" \
          "$("$STATS" -J 4 --csv -m '^work$' "$tmp/gz" | awk -F, 'NR == 2 { print $1 "," $2 }')"
fi

for w in ref vftr; do
    "$BUILD/test/compat/$w/stats_fixture" "$tmp/f$w" >/dev/null || { fail "$w fixture writer"; continue; }
    for v in "--csv" "--callpath" "--groups --csv" "--messages" "-t 45:65 --csv" "-p 1,3 --callpath" \
             "-t 45: --json"; do
        # shellcheck disable=SC2086
        same_for_all_jobs "fixture ($w-written) $v" "$tmp/f$w" $v
    done
done
if [ -r test/data/stats/fixture.csv ]; then
    check "fixture golden with -J 2" "$(cat test/data/stats/fixture.csv)" \
          "$("$STATS" -J 2 --csv "$tmp/fref")"
fi
"$STATS" -J 0 "$tmp/fref" >/dev/null 2>"$tmp/err"
check "--jobs 0 is a usage error" "2 1" "$? $(grep -c 'bad --jobs' "$tmp/err")"

# ------------------------------------------------------------ 2. messages from summaries
msgs() {    # the CSV of --messages as one line
    "$STATS" --messages --csv "$@" 2>&1 | tr '\n' ';'
}
P2P="process,peer,sent,received,bytes_sent,bytes_received;"
COLL=";operation,sent,received,bytes_sent,bytes_received;"
for w in ref vftr; do
    (cd "$tmp" && otfaux --statistics -t 1014 -t 1045 -t 1065 -o "f$w-sum" "f$w.otf" >/dev/null 2>&1) \
        || { fail "otfaux on the $w-written fixture"; continue; }
    check "messages [14,45) from summaries ($w-written)" \
          "${P2P}1,0,2,1,1300,50;2,0,1,3,50,600;${COLL}MPI_Barrier,1,0,0,0;MPI_Allreduce,1,1,8,8;" \
          "$(msgs -t 14:45 "$tmp/f$w-sum")"
    check "messages [45,65) from summaries: nothing ($w-written)" "${P2P}${COLL}" \
          "$(msgs -t 45:65 "$tmp/f$w-sum")"
    check "messages [45,) from summaries ($w-written)" \
          "${P2P}${COLL}MPI_Barrier,2,0,0,0;MPI_Allreduce,1,1,8,8;" "$(msgs -t 45: "$tmp/f$w-sum")"
    check "messages [0,45) from summaries ($w-written)" \
          "${P2P}1,0,4,1,1600,50;2,0,1,3,50,600;${COLL}MPI_Barrier,1,0,0,0;MPI_Allreduce,1,1,8,8;" \
          "$(msgs -t 0:45 "$tmp/f$w-sum")"
    check "messages [14,45) from summaries, --process 2 ($w-written)" \
          "${P2P}2,0,1,3,50,600;${COLL}MPI_Barrier,1,0,0,0;MPI_Allreduce,1,1,8,8;" \
          "$(msgs -t 14:45 -p 2 "$tmp/f$w-sum")"
    if command -v python3 >/dev/null; then
        check "messages [14,45) from summaries: JSON parses, 2 processes, 2 operations ($w-written)" \
              "2 2" "$("$STATS" -M --json -t 14:45 "$tmp/f$w-sum" | python3 -c 'import json, sys
d = json.load(sys.stdin); print(len(d["processes"]), len(d["collectives"]))' 2>&1)"
    fi
    "$STATS" -v -M -t 14:45 "$tmp/f$w-sum" 2>"$tmp/err" >/dev/null
    check "--verbose: messages of [14,45) from summaries ($w-written)" 1 \
          "$(grep -c 'messages of the window from summaries' "$tmp/err")"
    # Edges without summaries: the events, as before (the matrix).
    check "messages [20,45): no summary at 20, read from the events ($w-written)" \
          "sender,receiver,messages,bytes,matched,transfer" \
          "$("$STATS" -M --csv -t 20:45 "$tmp/f$w-sum" | head -1)"
done

# ------------------------------------------------------------ 2b. call paths of a window
# --callpath -t 50:65 on the fixture with otfaux snapshots at 45 and 65: the
# stacks at 50 come from the snapshot at 45, so calls cut by the window sit
# at their paths.  By hand: P1 main { b 40..70 { a 45..50 } }: main/b on top
# 50..65 (15), main/b/a open at 50 and left at 50 (0); P3 main { a 20.. { b
# 60..60 } }: main/a on top 50..65 (15), main/a/b one call of 0; main on the
# stack 15 in each, never on top.  Siblings a and b tie at 15: by name.
tree() { "$STATS" --callpath --csv "$@" | tr '\n' ';'; }
(cd "$tmp" && otfaux --snapshots -t 1045 -t 1065 -o fref-snap fref.otf >/dev/null 2>&1) \
    || fail "otfaux --snapshots on the fixture"
CP="calls,excl,incl,depth,function;0,0.000000,0.030000,1,main;0,0.015000,0.015000,2,a;1,0.000000,0.000000,3,b;0,0.015000,0.015000,2,b;0,0.000000,0.000000,3,a;"
check "--callpath of [50,65) from the snapshot at 45" "$CP" "$(tree -t 50:65 "$tmp/fref-snap")"
"$STATS" -v --callpath -t 50:65 "$tmp/fref-snap" 2>"$tmp/err" >/dev/null
check "--verbose: --callpath of [50,65) from a snapshot" 1 "$(grep -c 'window from snapshot' "$tmp/err")"
check "--callpath of [50,65) from the snapshot, --process 3" \
      "calls,excl,incl,depth,function;0,0.000000,0.015000,1,main;0,0.015000,0.015000,2,a;1,0.000000,0.000000,3,b;" \
      "$(tree -t 50:65 -p 3 "$tmp/fref-snap")"

# ------------------------------------------------------------ 3. vftr-snap's summaries
if [ -x "$SNAP" ]; then
    (cd "$tmp" && "$SNAP" --statistics -t 1014 -t 1045 -t 1065 -o fsnap-sum fref.otf >/dev/null 2>&1 &&
                  "$SNAP" --all -t 1045 -t 1065 -o fsnap-all fref.otf >/dev/null 2>&1 &&
                  otfaux --all -t 1045 -t 1065 -o faux-all fref.otf >/dev/null 2>&1) \
        || fail "vftr-snap / otfaux on the fixture"
    for t in 14:45 45:65 45: 0:45 10:65 50:65; do
        check "fixture [$t): vftr-snap's summaries give otfaux's messages" \
              "$(msgs -t "$t" "$tmp/fref-sum")" "$(msgs -t "$t" "$tmp/fsnap-sum")"
        check "fixture [$t): vftr-snap's summaries give otfaux's profile" \
              "$("$STATS" --csv -t "$t" "$tmp/fref-sum")" "$("$STATS" --csv -t "$t" "$tmp/fsnap-sum")"
        check "fixture [$t): vftr-snap --all gives otfaux --all's profile" \
              "$("$STATS" --csv -t "$t" "$tmp/faux-all")" "$("$STATS" --csv -t "$t" "$tmp/fsnap-all")"
    done
    (cd "$tmp" && "$SNAP" --all -t 10000 -t 20000 -o g2snap g2.otf >/dev/null 2>&1 &&
                  otfaux --all -t 10000 -t 20000 -o g2aux g2.otf >/dev/null 2>&1) \
        || fail "vftr-snap / otfaux on the generated trace"
    # --detailed: one MessageSummary per peer (communicator, tag), so the
    # rows name peers.  [14,45) by hand: P1 -> P2 the send at 35 (300 B) and
    # the receive at 25 (50 B); P1 -> P3 the send at 30 (1000 B); P2 -> P1
    # the send at 20 (50 B) and the receives at 14, 15, 38 (600 B).
    (cd "$tmp" && "$SNAP" --statistics --detailed -t 1014 -t 1045 -t 1065 -o fsnap-det fref.otf \
        >/dev/null 2>&1) || fail "vftr-snap --detailed on the fixture"
    check "messages [14,45) from vftr-snap --detailed summaries: per peer" \
          "${P2P}1,2,1,1,300,50;1,3,1,0,1000,0;2,1,1,3,50,600;${COLL}MPI_Barrier,1,0,0,0;MPI_Allreduce,1,1,8,8;" \
          "$(msgs -t 14:45 "$tmp/fsnap-det")"
    (cd "$tmp" && "$SNAP" --snapshots -t 1045 -t 1065 -o fsnap-snap fref.otf >/dev/null 2>&1) \
        || fail "vftr-snap --snapshots on the fixture"
    check "--callpath of [50,65) from vftr-snap's snapshot at 45" "$CP" "$(tree -t 50:65 "$tmp/fsnap-snap")"
    for t in 10000:20000 10004:20006 10000: 5000:20000; do
        check "generated [$t): vftr-snap --all gives otfaux --all's profile" \
              "$("$STATS" --csv -t "$t" "$tmp/g2aux")" "$("$STATS" --csv -t "$t" "$tmp/g2snap")"
    done
    "$STATS" -v -t 10000:20000 "$tmp/g2snap" 2>"$tmp/err" >/dev/null
    check "--verbose: vftr-snap's [10000,20000) from summaries alone" 1 \
          "$(grep -c 'window from summaries (2 summary reads, 0 replays' "$tmp/err")"
else
    echo "SKIP: vftr-snap's summaries (vftr-snap is not built)"
fi

exit $failed
