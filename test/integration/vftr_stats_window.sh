#!/bin/bash
# vftr_stats_window.sh — vftr-stats window profiles from summary and
# snapshot records (written by the reference's otfaux), --fold-threads, and
# .vfd input from real captures.
#
# 1. test/compat/stats_fixture (reference- and vftr-written; 1 tick = 1 ms,
#    times relative to 1000; see vftr_stats.sh for its calls), with otfaux
#    breaks at 45 and 65 (--all, --snapshots only, --statistics only).
#    Hand-computed windows (CSV columns calls, excl, incl, function):
#    [45,65): P1 a 45..50 (1 call, 5), b on the stack 45..65, on top 50..65
#      (15 / 20, entered before: 0 calls), main 20 incl; P3 a on top 45..65
#      (20), b entered at 60 (1 call, 0 time), main 20 incl.
#      -> a 1 0.025 0.025; b 1 0.015 0.020; main 0 0 0.040   (exactly the
#      summaries at 45 and 65: no event read)
#    [10,65): P1 main top 30..40 (10), a 10..30 + 45..50 (2 calls, 25),
#      b 40..65 (25 incl, 20 excl); P2 main 10..40 (30 incl, top 35..40 = 5),
#      f outer (entered at 5) top 20..35 = 15 + inner 10..20 = 10 (1 call;
#      incl 25 + 10 = 35 summed per call, as summaries hold it and as every
#      vftr profile counts it, whatever records the trace has);
#      P3 main 10..65 (55, top 10..20 = 10), a 20..65 (45), b 1 call.
#      -> main 0 0.025 0.140; a 3 0.070 0.070; b 2 0.020 0.025;
#         f 1 0.025 0.035
#    [50,65) = S(65) - S(45) - P([45,50)): a 0 0.015 0.015 (P3 only);
#      b 1 0.015 0.015; main 0 0 0.030.
# 2. test/stats/stats_gen (closed-form profile, see its header): 2 ranks x 2
#    thread processes, 3 processes per stream, 20000 calls; otfaux --all
#    with breaks at 50000 and 150000.  [50000,150000) holds calls
#    5000..14999 whole: per process work 10000 calls, 40000 excl, 70000
#    incl; leaf 30000; main 30000 excl, 100000 incl; times 6 processes.
#    [50004,150006) (edges between breaks): main excl 2 + 9999*3 + 1 =
#    30000, work 3 + 9999*4 + 2 = 40001 (incl 4 + 9999*7 + 5 = 70002), leaf
#    1 + 9999*3 + 3 = 30001, main incl 100002; work and leaf 10000 calls.
#    The summary read must stay under 5 % of the event files' bytes.
# 3. .vfd input: test/capture programs under vftr-run, which print their
#    own call counts.
set -u
: "${BUILD:=build}"
export LC_ALL=C

STATS="$BUILD/bin/vftr-stats"
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}
skip() { echo "SKIP: $1 ($2)"; }

for f in "$STATS" "$BUILD/test/compat/ref/stats_fixture" "$BUILD/test/compat/vftr/stats_fixture" \
         "$BUILD/test/stats/ref/stats_gen" "$BUILD/test/stats/vftr/stats_gen"; do
    [ -x "$f" ] || { fail "$f is not built"; exit 1; }
done
command -v otfaux >/dev/null || { fail "otfaux (reference OTF tools) is not installed"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vftr_stats_window.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# rows TRACE ARGS...: "calls excl incl function" per row, sorted by name.
rows() {
    local t=$1; shift
    "$STATS" --csv "$@" "$t" 2>&1 | awk -F, 'NR > 1 { printf "%s %s %s %s\n", $12, $1, $2, $4 }' \
        | sort | tr '\n' ';'
}

# ------------------------------------------------------------------ fixture
for w in ref vftr; do
    "$BUILD/test/compat/$w/stats_fixture" "$tmp/$w" || { fail "$w fixture writer"; continue; }
    (cd "$tmp" && otfaux --all -t 1045 -t 1065 -o "$w-all" "$w.otf" >/dev/null 2>&1 &&
                  otfaux --snapshots -t 1045 -t 1065 -o "$w-snap" "$w.otf" >/dev/null 2>&1 &&
                  otfaux --statistics -t 1045 -t 1065 -o "$w-sum" "$w.otf" >/dev/null 2>&1) \
        || { fail "otfaux on the $w-written fixture"; continue; }
    w45="a 1 0.025000 0.025000;b 1 0.015000 0.020000;main 0 0.000000 0.040000;"
    for v in all snap sum; do
        check "[45,65) from $v records ($w-written)" "$w45" "$(rows "$tmp/$w-$v" -t 45:65)"
        check "[50,65) from $v records ($w-written)" \
              "a 0 0.015000 0.015000;b 1 0.015000 0.015000;main 0 0.000000 0.030000;" \
              "$(rows "$tmp/$w-$v" -t 45ms:65ms -t 50:65)"
    done
    base="a 3 0.070000 0.070000;b 2 0.020000 0.025000;"
    check "[10,65) from summaries: f incl summed per call ($w-written)" \
          "${base}f 1 0.025000 0.035000;main 0 0.025000 0.140000;" "$(rows "$tmp/$w-all" -t 10:65)"
    # one window, one profile, whatever records the trace carries: from the
    # snapshots, and from the events alone, f's inclusive time is summed
    # per call exactly as the summaries hold it
    check "[10,65) from snapshots: the figures of the summaries ($w-written)" \
          "${base}f 1 0.025000 0.035000;main 0 0.025000 0.140000;" "$(rows "$tmp/$w-snap" -t 10:65)"
    check "[10,65) from the events alone: the figures of the summaries ($w-written)" \
          "${base}f 1 0.025000 0.035000;main 0 0.025000 0.140000;" "$(rows "$tmp/$w" -t 10:65)"
    "$STATS" -v -t 45:65 "$tmp/$w-all" 2>"$tmp/err" >/dev/null
    check "--verbose: [45,65) taken from the summaries alone ($w-written)" 1 \
          "$(grep -c 'window from summaries (2 summary reads, 0 replays' "$tmp/err")"
    "$STATS" -v -t 45:65 "$tmp/$w-snap" 2>"$tmp/err" >/dev/null
    check "--verbose: [45,65) from the snapshot at 45 ($w-written)" 1 \
          "$(grep -c 'window from the nearest snapshot' "$tmp/err")"
done
check "process selection applies to summaries" "a 1 0.005000 0.005000;b 0 0.015000 0.020000;main 0 0.000000 0.020000;" \
      "$(rows "$tmp/ref-all" -t 45:65 -p 1)"

# ------------------------------------------------------------------ generated
for w in ref vftr; do
    "$BUILD/test/stats/$w/stats_gen" "$tmp/g$w" 2 20000 2 3 || { fail "$w stats_gen"; continue; }
    (cd "$tmp" && otfaux --all -t 50000 -t 150000 -o "g$w-all" "g$w.otf" >/dev/null 2>&1) \
        || { fail "otfaux on the $w-written generated trace"; continue; }
    check "generated, whole trace ($w-written)" \
          "leaf 120000 0.360000 0.360000;main 6 0.360060 1.200060;work 120000 0.480000 0.840000;" \
          "$(rows "$tmp/g$w")"
    check "generated, [50000,150000) from summaries ($w-written)" \
          "leaf 60000 0.180000 0.180000;main 0 0.180000 0.600000;work 60000 0.240000 0.420000;" \
          "$(rows "$tmp/g$w-all" -t 50000:150000)"
    check "generated, [50004,150006) summaries + edge replays ($w-written)" \
          "leaf 60000 0.180006 0.180006;main 0 0.180000 0.600012;work 60000 0.240006 0.420012;" \
          "$(rows "$tmp/g$w-all" -t 50004:150006)"
    events=$(cat "$tmp/g$w-all".*.events | wc -c)
    "$STATS" -v -t 50000:150000 "$tmp/g$w-all" 2>"$tmp/err" >/dev/null
    bytes=$(sed -n 's/.*read \([0-9]*\) bytes$/\1/p' "$tmp/err")
    if [ -n "$bytes" ] && [ "$bytes" -lt $((events / 20)) ]; then
        pass "summary window reads $bytes bytes, under 5 % of the $events event bytes ($w-written)"
    else
        fail "summary window read '${bytes}' bytes of $events event bytes ($w-written)"
    fi
    "$STATS" -v -t 50004:150006 "$tmp/g$w-all" 2>"$tmp/err" >/dev/null
    bytes=$(sed -n 's/.*read \([0-9]*\) bytes$/\1/p' "$tmp/err")
    if [ -n "$bytes" ] && [ "$bytes" -lt $((events / 4)) ]; then
        pass "window between breaks reads $bytes bytes, well under the events between the edges ($w-written)"
    else
        fail "window between breaks read '${bytes}' bytes of $events ($w-written)"
    fi
    check "--fold-threads: 2 ranks ($w-written)" "2 2 2" \
          "$("$STATS" --csv --fold-threads "$tmp/g$w" | awk -F, 'NR > 1 { printf "%s%s", s, $11; s = " " }')"
    check "--fold-threads: a rank's work is its 3 processes' ($w-written)" "0.240000" \
          "$("$STATS" --csv -F -m '^work$' "$tmp/g$w" | awk -F, 'NR > 1 { print $7 }')"
    check "folded by default: 2 ranks ($w-written)" "2 2 2" \
          "$("$STATS" --csv "$tmp/g$w" | awk -F, 'NR > 1 { printf "%s%s", s, $11; s = " " }')"
    check "--threads: 6 processes ($w-written)" "6 6 6" \
          "$("$STATS" --csv --threads "$tmp/g$w" | awk -F, 'NR > 1 { printf "%s%s", s, $11; s = " " }')"
done
cmp -s <("$STATS" --csv -t 50004:150006 "$tmp/gref-all") <("$STATS" --csv -t 50004:150006 "$tmp/gvftr-all") \
    && pass "reference- and vftr-written traces give the same window profile" \
    || fail "reference- and vftr-written traces differ"

# ------------------------------------------------------------------ .vfd
CAPDIR=$BUILD/test/capture
if [ -x "$BUILD/bin/vftr-run" ] && [ -x "$CAPDIR/cap_fib" ] && [ -x "$CAPDIR/cap_threads" ]; then
    mkdir -p "$tmp/fib" "$tmp/thr" "$tmp/fib2"
    "$BUILD/bin/vftr-run" --out "$tmp/fib" -- "$CAPDIR/cap_fib" 20 >"$tmp/fib.out" 2>&1
    "$BUILD/bin/vftr-run" --out "$tmp/thr" -- "$CAPDIR/cap_threads" 4 3 >"$tmp/thr.out" 2>&1
    own() { sed -n "s/^count $2 //p" "$1"; }
    calls() { awk -F, -v f="$2" 'NR > 1 && $12 == f { print $1 }' <<<"$1"; }
    out=$("$STATS" --csv "$tmp/fib"/*.vfd 2>&1)
    check ".vfd: fib calls = the program's count" "$(own "$tmp/fib.out" fib)" "$(calls "$out" fib)"
    check ".vfd: a directory operand reads its .vfd files" "$out" "$("$STATS" --csv "$tmp/fib" 2>&1)"
    if command -v mpirun >/dev/null; then
        # Two ranks of one run (each measures its own clock rate).
        timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 \
            "$BUILD/bin/vftr-run" --out "$tmp/fib2" -- "$CAPDIR/cap_fib" 18 >"$tmp/fib2.out" 2>&1
        out=$("$STATS" --csv "$tmp/fib2" 2>&1)
        check ".vfd, 2 MPI ranks: calls add up" "$(( 2 * $(own "$tmp/fib2.out" fib | head -1) ))" \
              "$(calls "$out" fib)"
        check ".vfd, 2 MPI ranks: two processes" 2 "$(awk -F, 'NR > 1 && $12 == "fib" { print $11 }' <<<"$out")"
        check ".vfd, --process 2: rank 1 alone" "$(own "$tmp/fib2.out" fib | head -1)" \
              "$(calls "$("$STATS" --csv -p 2 "$tmp/fib2" 2>&1)" fib)"
    else
        skip ".vfd of two MPI ranks" "no mpirun"
    fi
    out=$("$STATS" --csv "$tmp/thr" 2>&1)
    check ".vfd threads: work calls" "$(own "$tmp/thr.out" work)" "$(calls "$out" work)"
    check ".vfd threads: thread_main calls" "$(own "$tmp/thr.out" thread_main)" "$(calls "$out" thread_main)"
    check ".vfd threads folded into the rank by default" 1 \
          "$(awk -F, 'NR > 1 && $12 == "work" { print $11 }' <<<"$out")"
    out=$("$STATS" --csv --threads "$tmp/thr" 2>&1)
    check ".vfd --threads: one process per thread" 4 \
          "$(awk -F, 'NR > 1 && $12 == "work" { print $11 }' <<<"$out")"
    check ".vfd --threads: same calls" "$(own "$tmp/thr.out" work)" "$(calls "$out" work)"
    # fib(20) recursion: the deepest path is 20 levels below main.
    check ".vfd --callpath: fib nests 20 deep under main" 21 \
          "$("$STATS" --csv -C "$tmp/fib" | awk -F, 'NR > 1 && $4 > m { m = $4 } END { print m }')"
    "$STATS" --messages "$tmp/thr" >/dev/null 2>"$tmp/err"
    check ".vfd --messages: read like an OTF trace's" 0 "$?"
    head -c 5000 "$tmp/fib"/*.vfd >"$tmp/bad.vfd"
    printf 'garbage' >"$tmp/bad2.vfd"
    "$STATS" "$tmp/bad2.vfd" >/dev/null 2>"$tmp/err"; rc=$?
    check "not a .vfd: exit 1" 1 "$rc"
    check "not a .vfd: message names the file" 1 "$(grep -c "bad2.vfd" "$tmp/err")"
    "$STATS" "$tmp/bad.vfd" >/dev/null 2>&1; rc=$?
    if [ "$rc" -le 1 ]; then pass "truncated .vfd: no crash (exit $rc)"; else fail "truncated .vfd: exit $rc"; fi
else
    skip ".vfd input" "vftr-run or test/capture programs not built"
fi

exit $failed
