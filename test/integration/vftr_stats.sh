#!/bin/bash
# vftr_stats.sh — integration test of vftr-stats.
#
# 1. Golden profiles of test/compat/stats_fixture.c (written by the reference
#    OTF library and by vftr's), computed by hand (1 tick = 1 ms):
#      P1 main 0..100 { a 10..30, b 40..70 { a 45..50 } }
#         main excl 100-20-30 = 50; a calls 2, excl 20+5 = 25; b excl 25, incl 30
#      P2 main 0..40 { f 5..35 { f 10..20 } }
#         main excl 10; f calls 2, excl 20+10 = 30, incl 30 (recursion once)
#      P3 main 0.. { a 20.. { b 60..60 } }, open: closed at its last event 60
#         main excl 20, incl 60; a excl 40; b calls 1, time 0
#    Sums: main calls 3, excl 80, incl 200, min 10, max 50, avg 80/3,
#    imbalance (50-26.667)/50 = 0.4667; a 3/65/65, min 25 max 40 avg 32.5,
#    imbalance 7.5/40 = 0.1875; b 2/25/30, min 0 max 25, imbalance 0.5;
#    f 2/30/30.  Total = 200 ticks = 100 %.  -> test/data/stats/fixture.csv
#    Window --time 45: --process 1: a 45..50 (5, 1 call); b implied from 45,
#    excl 25-5 = 20, calls 0; main implied from 45, 55 incl, excl 55-25 = 30.
#    Total 55 ticks.  -> test/data/stats/fixture-window.csv
# 2. Per-function calls, exclusive and inclusive time (summed over processes)
#    against otfprofile's CSV on the vftr-dump fixture.
#
# Prints one "PASS: ..." or "FAIL: ..." line per check; exits 1 if any failed.
set -u
: "${BUILD:=build}"

STATS="$BUILD/bin/vftr-stats"
DATA=test/data/stats
failed=0

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}

for f in "$STATS" "$BUILD/test/compat/ref/stats_fixture" "$BUILD/test/compat/vftr/stats_fixture" \
         "$BUILD/test/compat/ref/dump_fixture"; do
    if [ ! -x "$f" ]; then
        fail "$f is not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vftr_stats.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$BUILD/test/compat/ref/stats_fixture" "$tmp/ref" || { fail "reference fixture writer"; exit 1; }
"$BUILD/test/compat/vftr/stats_fixture" "$tmp/vftr" || { fail "vftr fixture writer"; exit 1; }

# ------------------------------------------------------------------ goldens
for w in ref vftr; do
    out=$("$STATS" --csv "$tmp/$w" 2>&1)
    check "golden profile ($w-written trace)" "$(cat "$DATA/fixture.csv")" "$out"
    out=$("$STATS" --csv --time 45: --process 1 "$tmp/$w.otf" 2>&1)
    check "golden window profile 45: on process 1 ($w-written trace)" \
          "$(cat "$DATA/fixture-window.csv")" "$out"
done

col() { awk -F, -v c="$1" 'NR > 1 { printf "%s%s", sep, $c; sep = " " } END { print "" }'; }
check "--sort calls,function" "a main b f" "$("$STATS" --csv --sort calls,function "$tmp/ref" | col 12)"
check "--sort function" "a b f main" "$("$STATS" --csv -s function "$tmp/ref" | col 12)"
check "--reverse (default order: excl)" "b f a main" "$("$STATS" --csv --reverse "$tmp/ref" | col 12)"
check "--sort imbalance --top 2" "b main" "$("$STATS" --csv -s imbalance -n 2 "$tmp/ref" | col 12)"
check "--top 0 prints only the header" 1 "$("$STATS" --csv --top 0 "$tmp/ref" | wc -l)"
# --match keeps percentages of the whole: a is 32.50 %.
check "--match '^(a|b)$'" "a b" "$("$STATS" --csv --match '^(a|b)$' "$tmp/ref" | col 12)"
check "--match keeps % of the total" "32.50" "$("$STATS" --csv -m '^a$' "$tmp/ref" | col 3)"
# Process 2 alone: main 10 of 40 ticks, f 30.
check "--process 2" "0.030000 0.010000" "$("$STATS" --csv -p 2 "$tmp/ref" | col 2)"
# --time 10ms:40ms (1 tick = 1 ms): P1 a 10..30 = 20; P3 a entered at 20 and
# still open at the window end 40 = 20: a excl 40.
check "--time 10ms:40ms: a excl" "0.040000" "$("$STATS" --csv -t 10ms:40ms -m '^a$' "$tmp/ref" | col 2)"

json=$("$STATS" --json "$tmp/ref")
if command -v python3 >/dev/null; then
    got=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["total_s"], " ".join("%s:%d:%s" % (f["function"], f["calls"], f["imbalance"]) for f in d["functions"]))' <<<"$json" 2>&1)
    check "--json parses and carries the columns" "0.2 main:3:0.4667 a:3:0.1875 f:2:0.0 b:2:0.5" "$got"
fi
text=$("$STATS" "$tmp/ref")
check "text: header + 4 rows" 5 "$(wc -l <<<"$text")"
check "text: header names the columns" 1 "$(head -1 <<<"$text" | grep -c 'calls .*excl\[s\].*imbalance.*procs.*function')"

# ------------------------------------------------------------------ errors
"$STATS" --sort bogus "$tmp/ref" >/dev/null 2>"$tmp/err"; rc=$?
check "bad --sort: exit 2" 2 "$rc"
check "bad --sort: message" 1 "$(grep -c "^vftr-stats: bad sort column 'bogus'" "$tmp/err")"
"$STATS" --match '(' "$tmp/ref" >/dev/null 2>"$tmp/err"; rc=$?
check "bad --match: exit 2" 2 "$rc"
"$STATS" --top x "$tmp/ref" >/dev/null 2>&1; check "bad --top: exit 2" 2 "$?"
"$STATS" "$tmp/missing" >/dev/null 2>"$tmp/err"; rc=$?
check "missing trace: exit 1" 1 "$rc"
check "missing trace: message names it" 1 "$(grep -c "^vftr-stats: $tmp/missing.otf: " "$tmp/err")"
"$STATS" >/dev/null 2>&1; check "no operand: exit 2" 2 "$?"
"$STATS" --help | grep -q -- '--sort' && pass "--help lists --sort" || fail "--help lists --sort"

# ------------------------------------------------------------------ otfprofile
if command -v otfprofile >/dev/null; then
    "$BUILD/test/compat/ref/dump_fixture" "$tmp/d" || { fail "dump fixture writer"; exit 1; }
    (cd "$tmp" && otfprofile -i d.otf -o prof --csv >/dev/null 2>&1)
    if [ -s "$tmp/prof.csv" ]; then
        # otfprofile: FUNCTION;process;function;calls;excl;incl per process.
        awk -F';' '$1 == "FUNCTION" && $2 != "Process" { c[$3] += $4; e[$3] += $5; i[$3] += $6 }
                   END { for (f in c) printf "%s %d %.6f %.6f\n", f, c[f], e[f], i[f] }' \
            "$tmp/prof.csv" | sort >"$tmp/ref.txt"
        "$STATS" --csv "$tmp/d" | awk -F, 'NR > 1 { printf "%s %d %.6f %.6f\n", $12, $1, $2, $4 }' \
            | sort >"$tmp/ours.txt"
        check "otfprofile: same functions, calls, exclusive and inclusive time" \
              "$(cat "$tmp/ref.txt")" "$(cat "$tmp/ours.txt")"
    else
        fail "otfprofile wrote no CSV"
    fi
fi

exit $failed
