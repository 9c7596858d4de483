#!/bin/bash
# vftr_stats.sh — integration test of vftr-stats.
#
# 1. Golden profiles of test/compat/stats_fixture.c (written by the reference
#    OTF library and by vftr's), computed by hand (1 tick = 1 ms):
#      P1 main 0..100 { a 10..30, b 40..70 { a 45..50 } }
#         main excl 100-20-30 = 50; a calls 2, excl 20+5 = 25; b excl 25, incl 30
#      P2 main 0..40 { f 5..35 { f 10..20 } }
#         main excl 10; f calls 2, excl 20+10 = 30, incl 30+10 = 40 (each
#         call's inclusive time, the nested one's too; per call 20)
#      P3 main 0.. { a 20.. { b 60..60 } }, open: closed at its last event 60
#         main excl 20, incl 60; a excl 40; b calls 1, time 0
#    Sums: main calls 3, excl 80, incl 200, min 10, max 50, avg 80/3,
#    imbalance (50-26.667)/50 = 0.4667; a 3/65/65, min 25 max 40 avg 32.5,
#    imbalance 7.5/40 = 0.1875; b 2/25/30, min 0 max 25, imbalance 0.5;
#    f 2/30/40.  Total = 200 ticks = 100 %.  -> test/data/stats/fixture.csv
#    Window --time 45: --process 1: a 45..50 (5, 1 call); b implied from 45,
#    excl 25-5 = 20, calls 0; main implied from 45, 55 incl, excl 55-25 = 30.
#    Total 55 ticks.  -> test/data/stats/fixture-window.csv
#    --callpath (summed over processes; siblings by inclusive time, then name):
#      main 3 calls, excl 50+10+20 = 80, incl 200
#        main/a: P1 10..30 + P3 20..60: 2 calls, 20+40 = 60 excl and incl
#          main/a/b: P3 60..60: 1 call, 0
#        main/b: P1 40..70: excl 25, incl 30      (ties f at incl 30: by name)
#          main/b/a: P1 45..50: 5
#        main/f: P2 5..35: excl 20, incl 30
#          main/f/f: P2 10..20: 10              -> test/data/stats/fixture-callpath.txt
#    --groups (APP = main, a; LIB = b, f), the replay run on group tokens:
#      P1 APP 0..100 { APP 10..30, LIB 40..70 { APP 45..50 } }: APP calls 3,
#         excl 40+5+30 = 75, incl 100 (nested APP once); LIB 25 / 30
#      P2 APP 0..40 { LIB 5..35 { LIB 10..20 } }: APP 1/10/40; LIB 2/30/30
#      P3 APP 0..60 { APP 20..60 { LIB 60..60 } }: APP 2/60/60; LIB 1/0/0
#      APP 6 calls, excl 145 (72.50 %), incl 200, per call 200/6, min 10,
#      max 75, avg 48.333, imbalance 26.667/75 = 0.3556; LIB 4 calls, excl 55,
#      incl 60, per call 15, min 0, max 30, avg 18.333, imbalance 0.3889.
#      -> test/data/stats/fixture-groups.csv; --callpath --groups merges P1's
#      main/b and P2's main/f into APP/LIB (2 calls, 45, 60); APP/APP ties
#      APP/LIB at incl 60 and comes first by name
#      -> test/data/stats/fixture-callpath-groups.csv
#    --messages (the fixture's header lists the records):
#      1->2: 3 messages (c1 t7, c1 t8, c2 t7), 100+200+300 = 600 B, all
#            matched (t8 received before t7; c2 apart from c1), transfer
#            3+1+3 = 7 ms;  1->3: 1000 B, unmatched;  2->1: 50 B, 5 ms
#      MPI_Barrier 3 records, 5+2+15 = 22 ms; MPI_Allreduce begin/end on
#      P1 (60..65) and P2 (36..39): 2, 4*8 = 32 B, 8 ms
#      -> test/data/stats/fixture-messages.csv
#      Window 0:14 keeps the sends at 12, 13 and nothing else: 2 sends,
#      300 B, no match.  Process 1 alone: its 4 sends (none matched: the
#      receives are on P2 and P3), 1 receive (from P2, unmatched), one
#      barrier (5 ms), one allreduce (16 B, 5 ms).
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

for w in ref vftr; do
    check "golden --callpath tree ($w-written trace)" "$(cat "$DATA/fixture-callpath.txt")" \
          "$("$STATS" --callpath "$tmp/$w" 2>&1)"
    check "golden --groups profile ($w-written trace)" "$(cat "$DATA/fixture-groups.csv")" \
          "$("$STATS" --csv --groups "$tmp/$w" 2>&1)"
    check "golden --callpath --groups ($w-written trace)" \
          "$(cat "$DATA/fixture-callpath-groups.csv")" "$("$STATS" -C -g --csv "$tmp/$w" 2>&1)"
    check "golden --messages ($w-written trace)" "$(cat "$DATA/fixture-messages.csv")" \
          "$("$STATS" --csv --messages "$tmp/$w" 2>&1)"
done

col() { awk -F, -v c="$1" 'NR > 1 { printf "%s%s", sep, $c; sep = " " } END { print "" }'; }
check "--sort calls,function" "a main b f" "$("$STATS" --csv --sort calls,function "$tmp/ref" | col 12)"
check "--sort function" "a b f main" "$("$STATS" --csv -s function "$tmp/ref" | col 12)"
check "--reverse (default order: excl)" "b f a main" "$("$STATS" --csv --reverse "$tmp/ref" | col 12)"
check "--sort imbalance --top 2" "b main" "$("$STATS" --csv -s imbalance --top 2 "$tmp/ref" | col 12)"
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
if command -v python3 >/dev/null; then
    msgs() {
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["sends"], d["recvs"], d["matched"], d["unmatched_sends"], d["unmatched_recvs"], " ".join("%d>%d:%d:%d:%d" % (p["sender"], p["receiver"], p["messages"], p["bytes"], p["matched"]) for p in d["pairs"]), " ".join("%s:%d:%d:%.3f" % (c["operation"], c["count"], c["bytes"], c["time"]) for c in d["collectives"]))' 2>&1
    }
    check "--messages --json: counts" \
          "5 4 4 1 0 1>2:3:600:3 1>3:1:1000:0 2>1:1:50:1 MPI_Barrier:3:0:0.022 MPI_Allreduce:2:32:0.008" \
          "$("$STATS" --messages --json "$tmp/ref" | msgs)"
    check "--messages --time 0:14" "2 0 0 2 0 1>2:2:300:0 " \
          "$("$STATS" -M -J -t 0:14 "$tmp/ref" | msgs)"
    check "--messages --process 1" \
          "4 1 0 4 1 1>2:3:600:0 1>3:1:1000:0 2>1:0:0:0 MPI_Barrier:1:0:0.005 MPI_Allreduce:1:16:0.005" \
          "$("$STATS" -M -J -p 1 "$tmp/vftr" | msgs)"
    got=$("$STATS" --callpath --json "$tmp/ref" | python3 -c 'import json,sys; print(" ".join("%d%s" % (p["depth"], p["function"]) for p in json.load(sys.stdin)["paths"]))' 2>&1)
    check "--callpath --json: depth-first order" "1main 2a 3b 2b 3a 2f 3f" "$got"
fi
text=$("$STATS" --messages "$tmp/ref")
check "--messages text: counts line" 1 \
      "$(grep -c '^point-to-point: 5 sent, 4 received, 4 matched, 1 sends and 0 receives unmatched$' <<<"$text")"
text=$("$STATS" "$tmp/ref")
check "text: header + 4 rows" 5 "$(wc -l <<<"$text")"
check "text: header names the columns" 1 "$(head -1 <<<"$text" | grep -c '^ *calls  *excl  *excl%  *incl  *imbal  function$')"
# the fixture's main by hand (fixture.csv): 3 calls, excl 0.08 s = 40 % of
# 0.2 s, incl 0.2 s, imbalance 0.4667; units that fit, one decimal
check "text: main's row in units" 1 \
      "$(grep -cE '^ +3 +80\.0 ms +40\.0% +200 ms +46\.7%  main$' <<<"$text")"
check "text: no line wider than 80 columns" 0 "$(awk 'length > 80' <<<"$text" | wc -l)"
text=$("$STATS" --messages "$tmp/ref")
# fixture-messages.csv: 1 -> 2, 3 messages, 600 bytes, 3 matched, 0.007 s;
# process 1 is rank 0
check "--messages text: processes as ranks, transfer in ms" 1 \
      "$(grep -cE '^rank 0 +rank 1 +3 +600 +3 +7\.00 ms$' <<<"$text")"

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
"$STATS" --callpath --messages "$tmp/ref" >/dev/null 2>"$tmp/err"; rc=$?
check "--callpath with --messages: exit 2" 2 "$rc"
check "--callpath with --messages: message" 1 "$(grep -c '^vftr-stats: --callpath and --messages exclude each other' "$tmp/err")"
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
