#!/bin/bash
# report.sh — vftr-report on real captures, checked against vftr-stats and
# in a real browser.
#
#  1. A multi-rank hybrid capture: test/omp/omp_hybrid (MPI + OpenMP) under
#     mpirun -np 2 with 2 threads, converted by vfd2otf; and the demo's run
#     (share/examples/heat.c, -np 4, 2 threads, as make demo builds it).
#  2. Every figure of the page equals vftr-stats --json's, --groups,
#     --callpath, --messages and --waits (report_figures.py reads the page's tables
#     and vftr-stats's JSON): on the .vfd run directory, on its OTF
#     conversion, on a conversion with snapshots and summaries (vftr-stats
#     then takes its profile from the summaries), on OTF2, on a time window.
#  3. The same trace gives the same bytes, with 1 and with 2 reading
#     threads; --svg writes every chart as well-formed XML; vftr-stats
#     --plot draws its view.
#  4. Headless Chromium loads the hybrid and the demo pages
#     (report_browser.py): sections, sorting, filter, zoom, pan, tooltip,
#     no request but the page, no console error; screenshots are kept in
#     $BUILD/test/artifacts/report/.
#  5. A 2 M-event trace gives a page under 5 MB; a sampled capture, a
#     truncated rank and a capture stopped at its size cap are warned about
#     on the page; bad input: exit 1 or 2 with a message, no half-written
#     page.  The waits section: there for MPI + OpenMP (with vftr-stats
#     --waits's figures), saying none for one MPI rank that cannot wait,
#     absent for a trace without MPI or OpenMP.
. "$(dirname "$0")/../capture/common.sh"

PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
REPORT=$cap_build/bin/vftr-report
STATS=$cap_build/bin/vftr-stats
VFD2OTF=$cap_build/bin/vfd2otf
SHOTS=$cap_build/test/artifacts/report
CHROMIUM=$(command -v chromium || true)
require "$REPORT" "$STATS" "$VFD2OTF"
mkdir -p "$SHOTS"
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
. "$(cd "$(dirname "$0")" && pwd)/../sanitizers.sh"
san_env "$cap_build/lib/libvftrcapture.so"   # test/sanitizers.sh

# figures PAGE STATS-ARGS...: the page against vftr-stats, one line per table
figures() {
    local page=$1; shift
    "$PY" "$HERE/report_figures.py" "$page" "$STATS" "$@" 2>&1 | sed "s/^\(PASS\|FAIL\): /\1: $(basename "$page"): /"
    return "${PIPESTATUS[0]}"
}
count_fails() { grep -c '^FAIL' "$1"; }

# browser PAGE NAME
browser() {
    if [ -z "$CHROMIUM" ]; then
        fail "$2: chromium is not installed (make deps installs it)"
        return
    fi
    "$PY" "$HERE/report_browser.py" "$CHROMIUM" "$1" "$SHOTS" "$2" >"$cap_tmp/.browser.$2" 2>&1
    cat "$cap_tmp/.browser.$2"
    cap_failures=$((cap_failures + $(count_fails "$cap_tmp/.browser.$2")))
    grep -q '^PASS' "$cap_tmp/.browser.$2" || fail "$2: the browser check printed nothing"
}

# --------------------------------------------------------------- 1. captures
d=$cap_tmp/hybrid
OMPDIR=$cap_build/test/omp
if [ -x "$OMPDIR/omp_hybrid" ] && command -v mpirun >/dev/null 2>&1 &&
   [ -e "$cap_build/lib/libvftrcapture-mpi.so" ]; then
    mkdir -p "$d/run"
    OMP_NUM_THREADS=2 OMP_PROC_BIND=false timeout -s KILL "$RUN_TIMEOUT" \
        mpirun --allow-run-as-root -np 2 --oversubscribe --bind-to none \
        "$VFTR_RUN" --out "$d/run" -- "$OMPDIR/omp_hybrid" "$d" 3 >"$d/.stdout" 2>"$d/.stderr"
    check "hybrid capture: mpirun exit status" 0 "$?"
    mkdir -p "$d/o2"
    "$VFD2OTF" -o "$d/hyb" "$d/run" >"$d/.conv" 2>&1 &&
        "$VFD2OTF" --all -o "$d/hybsnap" "$d/run" >>"$d/.conv" 2>&1 &&
        "$cap_build/bin/vftr-convert" -o "$d/o2/hyb.otf2" "$d/hyb" >>"$d/.conv" 2>&1
    check "hybrid capture: vfd2otf and vftr-convert to OTF2" 0 "$?"

    # ----------------------------------------------------------- 2. figures
    "$REPORT" -q -j 2 -o "$d/hyb2.html" "$d/hyb" && "$REPORT" -q -j 1 -o "$d/hyb1.html" "$d/hyb" &&
        "$REPORT" -q -o "$d/vfd.html" "$d/run" && "$REPORT" -q -o "$d/snap.html" "$d/hybsnap" &&
        "$REPORT" -q -o "$d/otf2.html" "$d/o2/hyb.otf2"
    check "hybrid: vftr-report on the OTF trace, the .vfd run, the summaries, OTF2" 0 "$?"
    figures "$d/hyb2.html" "$d/hyb" >"$d/.fig" ; cat "$d/.fig"
    figures "$d/vfd.html" "$d/run" >"$d/.fig2"; cat "$d/.fig2"
    figures "$d/snap.html" "$d/hybsnap" >"$d/.fig3"; cat "$d/.fig3"
    figures "$d/otf2.html" "$d/o2/hyb.otf2" >>"$d/.fig3"; cat "$d/.fig3" | grep otf2.html
    cap_failures=$((cap_failures + $(count_fails "$d/.fig") + $(count_fails "$d/.fig2") +
                    $(count_fails "$d/.fig3")))
    if grep -q 'summaries' <("$STATS" -v --csv "$d/hybsnap" 2>&1 >/dev/null); then
        pass "hybsnap: vftr-stats took its profile from summaries (a route of its own)"
    else
        fail "hybsnap: vftr-stats did not use the summaries: $("$STATS" -v --csv "$d/hybsnap" 2>&1 >/dev/null)"
    fi
    span=$("$REPORT" -q -o - "$d/hyb" |
           sed -n 's/.*data-key="duration"><th scope="row">duration<\/th><td data-v="\([^"]*\)">.*/\1/p')
    a=$(awk -v s="$span" 'BEGIN { printf "%dus", s * 1e6 / 3 }')
    b=$(awk -v s="$span" 'BEGIN { printf "%dus", s * 2e6 / 3 }')
    "$REPORT" -q -t "$a:$b" -o "$d/win.html" "$d/hyb"
    figures "$d/win.html" -t "$a:$b" "$d/hyb" >"$d/.fig4"; cat "$d/.fig4"
    cap_failures=$((cap_failures + $(count_fails "$d/.fig4")))
    check "hybrid: the summary says 2 ranks" 1 \
        "$(grep -c 'data-key="ranks"><th scope="row">ranks</th><td>2</td>' "$d/hyb2.html")"
    check "hybrid: the summary says 4 processes, 2 per rank" 1 \
        "$(grep -c '<td>4 (at most 2 per rank)</td>' "$d/hyb2.html")"
    check "hybrid: a clean capture has no warning" 1 "$(grep -c 'id="warnings" class="ok"' "$d/hyb2.html")"
    # MPI and OpenMP: the wait analysis's section (its figures: report_figures.py)
    check "hybrid: a waits section with its table, linked from the navigation" "1 1 1" \
        "$(grep -c '^<section id="waits">' "$d/hyb2.html") $(grep -c '<table class="sortable" id="waits-table"' "$d/hyb2.html") $(grep -c '<a href="#waits">Waits</a>' "$d/hyb2.html")"

    # ----------------------------------------------------------- 3. bytes, SVG
    if cmp -s "$d/hyb1.html" "$d/hyb2.html"; then
        pass "hybrid: the same page with 1 and 2 reading threads ($(wc -c <"$d/hyb2.html") bytes)"
    else
        fail "hybrid: the pages of -j 1 and -j 2 differ"
    fi
    "$REPORT" -q -j 2 -o "$d/again.html" --svg "$d/svg" "$d/hyb"
    if cmp -s "$d/again.html" "$d/hyb2.html"; then pass "hybrid: the same page twice"
    else fail "hybrid: two runs gave different pages"; fi
    n=$(ls "$d/svg" | wc -l)
    ok=$("$PY" -c 'import sys, xml.etree.ElementTree as E
n = 0
for f in sys.argv[1:]:
    r = E.parse(f).getroot()
    n += r.tag == "{http://www.w3.org/2000/svg}svg" and r.find("{http://www.w3.org/2000/svg}title") is not None
print(n)' "$d"/svg/*.svg 2>&1)
    check "hybrid: --svg wrote the 10 charts, each a well-formed SVG with a title" "10 10" "$n $ok"
    "$STATS" --top 2 --plot "$d/plot.svg" "$d/hyb" >/dev/null && "$STATS" -M --plot "$d/mplot.svg" "$d/hyb" >/dev/null
    check "vftr-stats --plot: exit status" 0 "$?"
    check "vftr-stats --plot: the imbalance chart and, with --messages, the bytes matrix" "1 1" \
        "$("$PY" -c 'import sys, xml.etree.ElementTree as E
print(E.parse(sys.argv[1]).getroot().get("id") == "svg-imbalance", end=" ")
print(E.parse(sys.argv[2]).getroot().get("id") == "svg-bytes")' "$d/plot.svg" "$d/mplot.svg" | sed 's/True/1/g; s/False/0/g')"

    # ----------------------------------------------------------- 4. browser
    browser "$d/hyb2.html" hybrid
else
    skip "hybrid capture" "needs clang -fopenmp, mpicc, mpirun and libvftrcapture-mpi.so"
fi

# the demo's run, as make demo makes it
h=$cap_tmp/demo
if command -v mpicc >/dev/null 2>&1 && command -v clang >/dev/null 2>&1 &&
   [ -e "$cap_build/lib/libvftrcapture-mpi.so" ]; then
    mkdir -p "$h/run"
    OMPI_CC=clang mpicc -O1 -g -fopenmp -finstrument-functions -o "$h/heat" share/examples/heat.c -lm \
        >"$h/.cc" 2>&1
    check "demo: heat.c builds" 0 "$?"
    OMP_NUM_THREADS=2 timeout -s KILL "$RUN_TIMEOUT" mpirun --allow-run-as-root -np 4 \
        --oversubscribe --bind-to none "$VFTR_RUN" --out "$h/run" -- "$h/heat" >"$h/.stdout" 2>&1
    check "demo: mpirun -np 4 exit status" 0 "$?"
    "$VFD2OTF" -o "$h/heat" "$h/run" >"$h/.conv" 2>&1 && "$REPORT" -q -o "$h/report.html" "$h/heat"
    check "demo: vfd2otf and vftr-report" 0 "$?"
    figures "$h/report.html" "$h/heat" >"$h/.fig"; cat "$h/.fig"
    cap_failures=$((cap_failures + $(count_fails "$h/.fig")))
    cp "$h/report.html" "$SHOTS/demo.html"
    browser "$h/report.html" demo
else
    skip "demo run" "needs mpicc, clang and libvftrcapture-mpi.so"
fi

# A window that starts while a message is in flight (test/waits/mkwaits
# eager: 0 sends 64 B at 100 us and 32 B at 3000 us on one channel, 1
# receives them at 2010 and 4010 us): in [1 ms, 5 ms) the receive at 2010 us
# completes the message sent before the window, the one sent at 3000 us is
# matched with the receive at 4010 us (messages_window.sh has the hand
# figures).  Read in one share and in two (each share sees one rank: which
# messages are in flight needs both ends), both against vftr-stats.
MK=$cap_build/test/waits/mkwaits
if [ -x "$MK" ]; then
    mkdir -p "$cap_tmp/eager"
    "$MK" eager "$cap_tmp/eager" && "$VFD2OTF" -q -o "$cap_tmp/eager.otf" "$cap_tmp/eager" >/dev/null 2>&1
    check "eager: mkwaits and vfd2otf" 0 "$?"
    for j in 1 2; do
        "$REPORT" -q -j $j -t 1ms:5ms -o "$cap_tmp/eager$j.html" "$cap_tmp/eager.otf"
        figures "$cap_tmp/eager$j.html" -t 1ms:5ms "$cap_tmp/eager.otf" | grep -i messag >"$cap_tmp/.fig"
        cat "$cap_tmp/.fig"
        cap_failures=$((cap_failures + $(count_fails "$cap_tmp/.fig")))
        check "eager, -j $j: a receive of a message sent before the window, 1 matched" \
            'data-sends="1" data-recvs="2" data-matched="1" data-unmatched-sends="0" data-unmatched-recvs="0" data-recvs-sent-before="1"' \
            "$(grep -o 'data-sends="[0-9]*" data-recvs="[0-9]*" data-matched="[0-9]*" data-unmatched-sends="[0-9]*" data-unmatched-recvs="[0-9]*" data-recvs-sent-before="[0-9]*"' "$cap_tmp/eager$j.html")"
    done
else
    fail "$MK is not built (make check builds it)"
fi

# --------------------------------------------------------------- 5. size, errors
GEN=$cap_build/test/stats/vftr/stats_gen
if [ -x "$GEN" ]; then
    "$GEN" "$cap_tmp/big" 8 62500 0 2 >/dev/null 2>&1      # 8 * (2 + 4 * 62500) = 2 M events
    "$REPORT" -q -o "$cap_tmp/big.html" "$cap_tmp/big"
    sz=$(wc -c <"$cap_tmp/big.html")
    check_le "2 M events: the page stays under 5 MB" "$sz" 5000000
    figures "$cap_tmp/big.html" "$cap_tmp/big" >"$cap_tmp/.fig"; cat "$cap_tmp/.fig"
    cap_failures=$((cap_failures + $(count_fails "$cap_tmp/.fig")))
    # no MPI, no OpenMP: no wait analysis, no section, no link to one
    check "no synchronisation in the trace: no waits section, no link" "0 0" \
        "$(grep -c 'id="waits"' "$cap_tmp/big.html") $(grep -c 'href="#waits"' "$cap_tmp/big.html")"
else
    fail "$GEN is not built (make check builds it)"
fi

# warnings the tools give, listed on the page (test/conv/mkvfd's scenarios,
# as vfd2otf_sampled.sh uses them)
MKVFD=$cap_build/test/conv/mkvfd
if [ -x "$MKVFD" ]; then
    mkdir -p "$cap_tmp/sampled" "$cap_tmp/trunc"
    "$MKVFD" sampled "$cap_tmp/sampled" >/dev/null
    "$REPORT" -o "$cap_tmp/sampled.html" "$cap_tmp/sampled" 2>"$cap_tmp/.err"
    check "a sampled capture: the page warns, naming the interval" 1 \
        "$(grep -c '<li>sampled capture: each thread&#39;s events were recorded at most every 1e-05 s' "$cap_tmp/sampled.html")"
    check "a sampled capture: the same warning on stderr" 1 "$(grep -c 'sampled capture' "$cap_tmp/.err")"
    check "a sampled capture: unknown calls are - in the table" 1 \
        "$(grep -c '<tr data-kind="[^"]*"><td data-v="-">-</td>' "$cap_tmp/sampled.html" | awk '{ print ($1 > 0) }')"
    bytes=$("$MKVFD" trunc "$cap_tmp/trunc")
    truncate -s $((bytes - 400)) "$cap_tmp/trunc/trunc_0.vfd"
    "$REPORT" -q -o "$cap_tmp/trunc.html" "$cap_tmp/trunc"
    check "a truncated rank: exit 0" 0 "$?"
    check "a truncated rank: the page lists the source's warning" 1 \
        "$(grep -c '<li>.*trunc_0.vfd.*truncated' "$cap_tmp/trunc.html")"
    check "a truncated rank: and that the rank's data ends early" 1 \
        "$(grep -c '<li>rank 0: its data ends early' "$cap_tmp/trunc.html")"
    # MPI on one rank (messages to itself, small sends): synchronisation but
    # no wait: a section that says none, as vftr-stats finds none
    mkdir -p "$cap_tmp/alone"
    "$MKVFD" big "$cap_tmp/alone" 3000 1 >/dev/null
    "$REPORT" -q -o "$cap_tmp/alone.html" "$cap_tmp/alone"
    check "one MPI rank, no wait: the waits section says none, no table" "1 1 0" \
        "$(grep -c '^<section id="waits">' "$cap_tmp/alone.html") $(grep -c '<p id="waits-none"' "$cap_tmp/alone.html") $(grep -c 'waits-table' "$cap_tmp/alone.html")"
    figures "$cap_tmp/alone.html" "$cap_tmp/alone" >"$cap_tmp/.figa"; cat "$cap_tmp/.figa"
    cap_failures=$((cap_failures + $(count_fails "$cap_tmp/.figa")))
else
    fail "$MKVFD is not built (make check builds it)"
fi
# a capture that throttled itself: the size cap stopped tracing (as
# capture_trace.sh's small cap: fib(22) makes some 57000 calls, far more
# than 64 KiB of events)
if [ -x "$CAPDIR/cap_fib" ]; then
    VFTR_TRACE_MAX_SIZE="64 KiB" vrun "$cap_tmp/capped" "$CAPDIR/cap_fib" 22
    check "a capped capture: exit status" 0 "$(cat "$cap_tmp/capped/.rc")"
    "$REPORT" -o "$cap_tmp/capped.html" "$cap_tmp/capped" 2>"$cap_tmp/.err"
    check "a capped capture: vftr-report exit 0" 0 "$?"
    lost=$("$cap_build/bin/vftr-dump" "$cap_tmp"/capped/cap_fib_0.vfd 2>/dev/null |
           sed -n 's/^HEADER .* events_lost=\([0-9]*\) .*capped=1 .*/\1/p')
    check_le "a capped capture: the header counts events not recorded" 1 "${lost:-0}"
    check "a capped capture: the page warns, with the header's count" 1 \
        "$(grep -c "<li>$cap_tmp/capped/cap_fib_0.vfd: rank 0: tracing stopped at the size cap (trace.max_size): ${lost:-x} later event(s) were not recorded" "$cap_tmp/capped.html")"
    check "a capped capture: the same warning on stderr" 1 "$(grep -c 'size cap' "$cap_tmp/.err")"
    check "a capped capture: vftr-stats warns too" 1 \
        "$("$STATS" "$cap_tmp/capped" 2>&1 >/dev/null | grep -c 'size cap')"
    figures "$cap_tmp/capped.html" "$cap_tmp/capped" | grep -v "^vftr-stats: warning: " >"$cap_tmp/.figc"
    cat "$cap_tmp/.figc"
    cap_failures=$((cap_failures + $(count_fails "$cap_tmp/.figc")))
else
    fail "$CAPDIR/cap_fib is not built (make check builds it)"
fi

"$REPORT" -o "$cap_tmp/x.html" "$cap_tmp/nosuch" 2>"$cap_tmp/.err"
rc=$?
check "missing trace: exit 1" 1 "$rc"
check "missing trace: the message names the tool and the trace" 1 \
    "$(grep -c '^vftr-report: .*nosuch' "$cap_tmp/.err")"
"$REPORT" -t 1q: -o "$cap_tmp/x.html" "$cap_tmp/big" 2>"$cap_tmp/.err"
check "bad --time: exit 2" 2 "$?"
"$REPORT" -o "$cap_tmp/no/such/dir/x.html" "$cap_tmp/big" 2>"$cap_tmp/.err"
check "unwritable output: exit 1" 1 "$?"
check "unwritable output: nothing left behind" 0 "$(ls "$cap_tmp" | grep -c 'x.html')"
"$REPORT" -q -o - "$cap_tmp/big" >"$cap_tmp/out.html"
check "-o -: the page on standard output" 1 "$(tail -1 "$cap_tmp/out.html" | grep -c '</html>')"
finish
