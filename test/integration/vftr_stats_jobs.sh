#!/bin/bash
# vftr_stats_jobs.sh — vftr-stats reading streams in parallel (--jobs), the
# message matrix of a window, and summaries written by vftr-snap.
#
# 1. --jobs: the output does not depend on the number of threads.  Traces:
#    test/stats/stats_gen with 3 ranks x 2 thread processes, one process per
#    stream (9 streams) and 2 per stream; test/compat/stats_fixture (2
#    streams, recursion, calls never left, processes sharing a stream).
#    Every view (profile, --callpath, --groups, --fold-threads, --process,
#    --time, --messages) with -j 1 is compared with -j 2, 3, 5 and 16; the
#    closed form of stats_gen (see its header) checks -j 4 independently:
#    9 processes x 3000 calls of work (excl 4, incl 7) and leaf (3), main
#    excl 3 * 3000 + 10, incl 10 * 3000 + 10 per process.  --verbose says
#    how many threads ran: never more than streams with wanted processes.
# 2. --messages --time reads the window's events, with or without summary
#    records (otfaux --statistics with breaks at 14, 45, 65 on the fixture;
#    1 tick = 1 ms, times relative to 1000; the records are listed in
#    stats_fixture.c): one matrix, whatever the trace carries (by hand below).
# 2b. --callpath of a window on a trace with snapshots starts from the
#    stacks of the snapshot (by hand, below).
# 3. vftr-snap --statistics / --all with the same breaks gives the same
#    window profiles (functions and messages) as otfaux's records.
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

# same_for_all_jobs NAME TRACE ARGS...: -j 1 against -j 2, 3, 5, 16.
same_for_all_jobs() {
    local name=$1 t=$2; shift 2
    local one rc
    one=$("$STATS" -j 1 "$@" "$t" 2>&1); rc=$?
    if [ $rc -ne 0 ] || [ -z "$one" ]; then
        fail "$name: -j 1 failed (exit $rc: $one)"
        return
    fi
    for j in 2 3 5 16; do
        check "$name: -j $j gives what -j 1 gives" "$one" "$("$STATS" -j "$j" "$@" "$t" 2>&1)"
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
check "g1 -j 4: leaf, main, work per the closed form (threads folded: 3 ranks)" \
      "leaf 27000 0.081000 0.081000 3;main 9 0.081090 0.270090 3;work 27000 0.108000 0.189000 3;" \
      "$("$STATS" -j 4 --csv "$tmp/g1" | awk -F, 'NR > 1 { printf "%s %s %s %s %s\n", $12, $1, $2, $4, $11 }' | sort | tr '\n' ';')"
check "g1 -j 4 --threads: 9 processes" \
      "leaf 27000 0.081000 0.081000 9;main 9 0.081090 0.270090 9;work 27000 0.108000 0.189000 9;" \
      "$("$STATS" -j 4 --threads --csv "$tmp/g1" | awk -F, 'NR > 1 { printf "%s %s %s %s %s\n", $12, $1, $2, $4, $11 }' | sort | tr '\n' ';')"
"$STATS" -v -j 4 "$tmp/g1" 2>"$tmp/err" >/dev/null
check "--verbose: 9 streams read by 4 threads" 1 "$(grep -c '(9 stream(s), 4 thread(s))' "$tmp/err")"
"$STATS" -v -j 16 -p 1,2 "$tmp/g1" 2>"$tmp/err" >/dev/null
check "--verbose: 2 selected streams, so 2 threads" 1 "$(grep -c '(2 stream(s), 2 thread(s))' "$tmp/err")"
check "--process with -j 3 keeps only the selection (2 processes)" \
      "2,2,2" "$("$STATS" -j 3 --csv -p 1,1002 "$tmp/g1" | awk -F, 'NR > 1 { printf "%s%s", s, $11; s = "," }')"

if command -v otfcompress >/dev/null; then
    # compressed streams (.events.z): the same profile for every -j
    "$BUILD/test/stats/ref/stats_gen" "$tmp/gz" 3 300 1 1 &&
        (cd "$tmp" && otfcompress gz.*.events gz.0.def >/dev/null 2>&1) || fail "otfcompress"
    check "compressed trace: 6 streams read .events.z, -j 4 as -j 1" \
          "$("$STATS" -j 1 --csv "$tmp/gz")" "$("$STATS" -j 4 --csv "$tmp/gz")"
    check "compressed trace: work 1800 calls, 0.0072 s (closed form)" "1800,0.007200" \
          "$("$STATS" -j 4 --csv -m '^work$' "$tmp/gz" | awk -F, 'NR == 2 { print $1 "," $2 }')"
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
    check "fixture golden with -j 2" "$(cat test/data/stats/fixture.csv)" \
          "$("$STATS" -j 2 --csv "$tmp/fref")"
fi
"$STATS" -j 0 "$tmp/fref" >/dev/null 2>"$tmp/err"
check "--jobs 0 is a usage error" "2 1" "$? $(grep -c 'bad --jobs' "$tmp/err")"

# ------------------------------------------------------------ 2. messages of a window
msgs() {    # the CSV of --messages as one line
    "$STATS" --messages --csv "$@" 2>&1 | tr '\n' ';'
}
# The matrix of a window comes from its events whatever records the trace
# carries (summaries hold no matching): [14,45) by hand from the fixture's
# records: sends 1->2 300 B at 35 (received at 38: 3 ms), 1->3 1000 B at 30
# (never received), 2->1 50 B at 20 (received at 25: 5 ms); the receives
# at 14 and 15 match sends before the window: unmatched.  P2's barrier
# 36..38 (2 ms), P2's allreduce 36..39 (2 x 8 B, 3 ms).
MAT="sender,receiver,messages,bytes,matched,transfer;1,2,1,300,1,0.003000;1,3,1,1000,0,0.000000;2,1,1,50,1,0.005000;;operation,count,bytes,time;MPI_Barrier,1,0,0.002000;MPI_Allreduce,1,16,0.003000;"
for w in ref vftr; do
    (cd "$tmp" && otfaux --statistics -t 1014 -t 1045 -t 1065 -o "f$w-sum" "f$w.otf" >/dev/null 2>&1) \
        || { fail "otfaux on the $w-written fixture"; continue; }
    check "messages [14,45) by hand ($w-written)" "$MAT" "$(msgs -t 14:45 "$tmp/f$w")"
    for t in 14:45 45:65 45: 0:45 20:45; do
        check "messages [$t): the same with summaries as without ($w-written)" \
              "$(msgs -t "$t" "$tmp/f$w")" "$(msgs -t "$t" "$tmp/f$w-sum")"
    done
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
check "--verbose: --callpath of [50,65) from a snapshot" 1 "$(grep -c 'window from the nearest snapshot' "$tmp/err")"
check "--callpath of [50,65) from the snapshot, --process 3" \
      "calls,excl,incl,depth,function;0,0.000000,0.015000,1,main;0,0.015000,0.015000,2,a;1,0.000000,0.000000,3,b;" \
      "$(tree -t 50:65 -p 3 "$tmp/fref-snap")"

# ------------------------------------------------------------ 3. vftr-snap's summaries
# (vftr-snap's --at counts from the first event, 1000 on the fixture and 0
# on g2; otfaux's -t takes the absolute time stamp)
if [ -x "$SNAP" ]; then
    (cd "$tmp" && "$SNAP" --statistics --at 14 --at 45 --at 65 -o fsnap-sum fref.otf >/dev/null 2>&1 &&
                  "$SNAP" --all --at 45 --at 65 -o fsnap-all fref.otf >/dev/null 2>&1 &&
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
    (cd "$tmp" && "$SNAP" --all --at 10000 --at 20000 -o g2snap g2.otf >/dev/null 2>&1 &&
                  otfaux --all -t 10000 -t 20000 -o g2aux g2.otf >/dev/null 2>&1) \
        || fail "vftr-snap / otfaux on the generated trace"
    (cd "$tmp" && "$SNAP" --statistics --detailed --at 14 --at 45 --at 65 -o fsnap-det fref.otf \
        >/dev/null 2>&1) || fail "vftr-snap --detailed on the fixture"
    check "messages [14,45) of a trace with vftr-snap --detailed summaries: the events' matrix" \
          "$MAT" "$(msgs -t 14:45 "$tmp/fsnap-det")"
    (cd "$tmp" && "$SNAP" --snapshots --at 45 --at 65 -o fsnap-snap fref.otf >/dev/null 2>&1) \
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
