#!/bin/bash
# capture_counters.sh — performance counters (counters.events) against what
# the program measures itself.  cap_counters touches N fresh pages in
# touch_pages() and burns MS ms of its thread's CPU time in spin(), taking
# getrusage(RUSAGE_THREAD) around each call.  vftr reads the counters at the
# enter and exit of the same calls, a window inside the program's one:
#   - page-faults of touch_pages: at least N (each page faults once inside
#     the window), at most the program's getrusage delta;
#   - task-clock of spin: between the program's own task-clock counter read
#     inside spin and read around the call, exactly: nested windows of one
#     clock.  (Not against getrusage: its thread time is brought up to date
#     at ticks only, and in a virtual machine it leaves out the time the
#     host took the processor, which task-clock counts; under load either
#     moved the two apart by more than a tick.)
# The log's counter table, vftr-stats --counters on the .vfd and on its OTF
# conversion must give the same figures; the reference otfprint must read
# the DefCounter and Counter records.  Hardware events (cycles,
# instructions, cache-misses) are asked for too: where the machine has no
# PMU (a VM) or perf_event_paranoid forbids them, the run must say so in
# exactly one message, and the software counters must go on; the script says
# which events it could not test.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"

STATS=$cap_build/bin/vftr-stats
VFD2OTF=$cap_build/bin/vfd2otf
require "$CAPDIR/cap_counters" "$STATS" "$VFD2OTF"

PAGES=3000
MS=200
HW="cycles,instructions,cache-misses"
SW="task-clock,page-faults,context-switches"
cfg=$cap_tmp/counters.json
printf '{ "counters": { "events": "%s,%s" } }\n' "$HW" "$SW" >"$cfg"

d=$cap_tmp/counters
VFTR_CONFIG=$cfg vrun "$d" "$CAPDIR/cap_counters" "$PAGES" "$MS"
check "program exits 0 under vftr" 0 "$(cat "$d/.rc")"
log=$d/cap_counters_0.log
vfd=$d/cap_counters_0.vfd
[ -f "$log" ] && [ -f "$vfd" ] || { fail "no log or trace"; show "$d/.stderr"; finish; }

# Which counters the run kept: the log's table header names them.
kept=$(awk '/^Counters \(per call path/ { getline; for (i = 4; i < NF; i += 2) printf "%s ", $i; exit }' "$log")
unavail=$(grep -c '^vftr: counters unavailable' "$d/.stderr")
missing=""
for e in ${HW//,/ } ${SW//,/ }; do
    case " $kept " in *" $e "*) ;; *) missing="$missing $e" ;; esac
done
if [ -n "$missing" ]; then
    check "one message for the counters left out" 1 "$unavail"
    msg=$(grep '^vftr: counters unavailable' "$d/.stderr")
    for e in $missing; do
        case $msg in *"$e"*) pass "the message names $e" ;; *) fail "the message does not name $e: $msg" ;; esac
    done
    case $msg in
        *"(no hardware performance counters"*|*"perf_event_paranoid is"*|*"perf_event_open:"*)
            pass "the message names the cause" ;;
        *) fail "the message names no cause: $msg" ;;
    esac
    echo "SKIP: counters unavailable here:$missing (${msg#*(}"
else
    check "no message when every counter is available" 0 "$unavail"
fi
for e in ${SW//,/ }; do
    case " $kept " in *" $e "*) pass "software counter $e recorded" ;;
        *) fail "software counter $e missing (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid))" ;; esac
done

# col LOGROW NAME: the inclusive value of counter NAME in a row of the
# log's table (calls in $3, then incl/excl pairs in header order).
col() {
    awk -v f="$2" '/^Counters \(per call path/ { getline; for (i = 4; i < NF; i += 2) c[$i] = i; on = 1; next }
        on && $NF == f && $1 == "0" { print $(c[name]); exit }' name="$3" "$1"
}

# known_work DIR PF TC [LABEL]: the counters PF (page faults) and TC (task
# clock in ns) of the run in DIR against the program's own getrusage.
known_work() {
    local faults cpu tcin tcout pf tc l=${4:+$4: }
    faults=$(awk '$1 == "rusage" && $2 == "touch_pages" { print $4 }' "$1/.stdout")
    cpu=$(awk '$1 == "rusage" && $2 == "spin" { print $4 }' "$1/.stdout")
    tcout=$(awk '$1 == "perf" && $2 == "spin" { print $4 }' "$1/.stdout")
    tcin=$(awk '$1 == "perf" && $2 == "spin_inner" { print $4 }' "$1/.stdout")
    pf=$(col "$1/cap_counters_0.log" touch_pages "$2")
    tc=$(col "$1/cap_counters_0.log" spin "$3")
    check_le "$l$2 of touch_pages >= the $PAGES pages it touched" "$PAGES" "$pf"
    check_le "$l$2 of touch_pages <= the program's getrusage delta" "$pf" "$faults"
    # The counters are read in spin's hooks: the program's own task-clock
    # around the call spans more than they do (the hooks' own time), the
    # one inside spin less.  One clock, nested windows: no tolerance.
    if [ -z "$tcin" ] || [ -z "$tcout" ]; then
        fail "${l}cap_counters read no task-clock counter of its own: $(grep '^perf' "$1/.stdout")"
    else
        check_le "$l$3 of spin >= the program's own task-clock inside spin" "$tcin" "$tc"
        check_le "$l$3 of spin <= the program's own task-clock around the call" "$tc" "$tcout"
    fi
    echo "INFO: ${l}touch_pages $2 $pf (getrusage $faults), spin $3 $tc ns (own task-clock $tcin..$tcout ns, getrusage $cpu ns)"
}
known_work "$d" page-faults task-clock

# The same figures from the trace: vftr-stats --counters on the .vfd and
# on its OTF conversion; the log's table as "path-leaf incl excl" lines.
logrows() {
    awk '/^Counters \(per call path/ { getline; on = 1; next } on && NF > 3 && $1 == "0" {
        printf "%s %s", $NF, $3; for (i = 4; i < NF; i++) printf " %s", $i; print "" }' "$1" | sort
}
statrows() {
    awk 'NR > 1 { n = split($NF, p, ">"); printf "%s %s", p[n], $1; for (i = 2; i < NF; i++) printf " %s", $i; print "" }' | sort
}
want=$(logrows "$log")
got=$("$STATS" --counters "$vfd" 2>"$d/stats.err" | statrows)
if [ -n "$want" ] && [ "$want" = "$got" ]; then pass "vftr-stats --counters on the .vfd = the log's table"
else fail "vftr-stats --counters on the .vfd differs from the log"; diff <(echo "$want") <(echo "$got") | show; show "$d/stats.err"; fi

mkdir -p "$d/otf"
if "$VFD2OTF" -o "$d/otf/t" "$vfd" >/dev/null 2>"$d/conv.err"; then
    got=$("$STATS" --counters "$d/otf/t.otf" 2>>"$d/stats.err" | statrows)
    if [ "$want" = "$got" ]; then pass "vftr-stats --counters on the OTF conversion = the log's table"
    else fail "vftr-stats --counters on the OTF differs from the log"; diff <(echo "$want") <(echo "$got") | show; fi
    if command -v otfprint >/dev/null; then
        defs=$(otfprint "$d/otf/t.otf" 2>&1 | sed -n 's/.*DefCounter: .*name "\([^"]*\)".*/\1/p' | tr '\n' ' ')
        check "otfprint: DefCounter for each counter kept" "$kept" "$defs"
        # one Counter record per counter and boundary event in the .vfd
        nev=$("$cap_build/bin/vftr-dump" "$vfd" | grep -c 'EVENT kind=12 ')
        nk=$(echo "$kept" | wc -w)
        check "otfprint: Counter records = counters x boundary events" $((nev * nk)) \
            "$(otfprint "$d/otf/t.otf" 2>&1 | grep -c ' Counter: ')"
    else
        fail "otfprint (reference OTF tools) not installed"
    fi
else
    fail "vfd2otf cannot convert the trace"; show "$d/conv.err"
fi

# OTF2 metrics through vftr-convert, read by the reference otf2-print.
CONVERT=$cap_build/bin/vftr-convert
mkdir -p "$d/otf2"
if "$CONVERT" -o "$d/otf2/t.otf2" "$vfd" >/dev/null 2>"$d/conv2.err"; then
    got=$("$STATS" --counters "$d/otf2/t.otf2" 2>>"$d/stats.err" | statrows)
    if [ "$want" = "$got" ]; then pass "vftr-stats --counters on the OTF2 conversion = the log's table"
    else fail "vftr-stats --counters on the OTF2 differs from the log"; diff <(echo "$want") <(echo "$got") | show; fi
    if command -v otf2-print >/dev/null; then
        anchor=$(find "$d/otf2/t.otf2" -name '*.otf2' -type f | head -1)
        members=$(otf2-print -G "$anchor" 2>&1 | sed -n 's/^METRIC_MEMBER .*Name: "\([^"]*\)".*/\1/p' | tr '\n' ' ')
        check "otf2-print: a metric member per counter kept" "$kept" "$members"
        check "otf2-print: metric events = counters x boundary events" $((nev * nk)) \
            "$(otf2-print "$anchor" 2>&1 | grep -c '^METRIC ')"
    else
        fail "otf2-print (reference OTF2 tools) not installed"
    fi
else
    fail "vftr-convert cannot convert the trace to OTF2"; show "$d/conv2.err"
fi

# What the values are: a thread's count since its counters were opened,
# read at a boundary, i.e. accumulated from the start.  vfd2otf says so in
# its DefCounter (ACC/START); vftr-convert's OTF must say the same, and its
# OTF2 the mode that means it (ACCUMULATED_START), whether it converts the
# .vfd or vfd2otf's OTF; and OTF -> OTF2 -> OTF keeps it.  Read by the
# reference otfprint and otf2-print.
ctrprops() { otfprint "$1" 2>&1 | sed -n 's/.*DefCounter: .*counter \([0-9]*\), name "\([^"]*\)", properties \([^,]*\),.*unit "\([^"]*\)".*/\1 \2 \3 \4/p'; }
ctrmodes() { otf2-print -G "$1/traces.otf2" 2>&1 | sed -n 's/^METRIC_MEMBER .*Name: "\([^"]*\)".*Mode: \([A-Z_]*\),.*/\1 \2/p' | tr '\n' ' '; }
if command -v otfprint >/dev/null && command -v otf2-print >/dev/null && [ -f "$d/otf/t.otf" ]; then
    ref=$(ctrprops "$d/otf/t.otf")
    case $ref in *ACC/START*) pass "vfd2otf: counters accumulated from the start (ACC/START)" ;;
        *) fail "vfd2otf's DefCounter: $ref" ;; esac
    want_modes=$(for e in $kept; do printf '%s ACCUMULATED_START ' "$e"; done)
    mkdir -p "$d/props"
    "$CONVERT" -o "$d/props/v.otf" "$vfd" >/dev/null 2>&1
    check "vftr-convert .vfd -> OTF: DefCounter properties = vfd2otf's" "$ref" "$(ctrprops "$d/props/v.otf")"
    check "vftr-convert .vfd -> OTF2: metric modes" "$want_modes" "$(ctrmodes "$d/otf2/t.otf2")"
    "$CONVERT" -o "$d/props/o.otf2" "$d/otf/t.otf" >/dev/null 2>&1
    check "vftr-convert vfd2otf's OTF -> OTF2: metric modes" "$want_modes" "$(ctrmodes "$d/props/o.otf2")"
    "$CONVERT" -o "$d/props/r.otf" "$d/props/o.otf2" >/dev/null 2>&1
    check "vftr-convert OTF -> OTF2 -> OTF: DefCounter properties = vfd2otf's" "$ref" "$(ctrprops "$d/props/r.otf")"
fi

# PAPI, when the build has it (libvftrcapture links libpapi): native
# events of PAPI's perf_event component (software events: this machine may
# have no PMU) against the same known work, a preset that needs hardware
# (PAPI_TOT_CYC: one message naming it and the cause where unavailable),
# PAPI and perf_event_open counters in one run, and per thread.
if ldd "$cap_build/lib/libvftrcapture.so" 2>/dev/null | grep -q libpapi; then
    printf '{ "counters": { "events": "perf::TASK-CLOCK,perf::PAGE-FAULTS,PAPI_TOT_CYC" } }\n' >"$cfg"
    d=$cap_tmp/papi
    VFTR_CONFIG=$cfg vrun "$d" "$CAPDIR/cap_counters" "$PAGES" "$MS"
    check "papi: program exits 0 under vftr" 0 "$(cat "$d/.rc")"
    pkept=$(awk '/^Counters \(per call path/ { getline; for (i = 4; i < NF; i += 2) printf "%s ", $i; exit }' "$d/cap_counters_0.log")
    case " $pkept " in *" perf::TASK-CLOCK perf::PAGE-FAULTS "*) pass "papi: native software events recorded" ;;
        *) fail "papi: native software events missing (kept: $pkept)"; show "$d/.stderr" ;; esac
    case " $pkept " in
        *" PAPI_TOT_CYC "*) check "papi: no message when PAPI_TOT_CYC counts" 0 \
                               "$(grep -c '^vftr: counters unavailable' "$d/.stderr")" ;;
        *) check "papi: one message for PAPI_TOT_CYC" 1 "$(grep -c '^vftr: counters unavailable: PAPI_TOT_CYC (PAPI: ' "$d/.stderr")"
           echo "SKIP: PAPI_TOT_CYC unavailable here ($(sed -n 's/^vftr: counters unavailable: PAPI_TOT_CYC (\(.*\)); .*/\1/p' "$d/.stderr"))" ;;
    esac
    known_work "$d" perf::PAGE-FAULTS perf::TASK-CLOCK papi
    want=$(logrows "$d/cap_counters_0.log")
    check "papi: vftr-stats --counters on the .vfd = the log's table" "$want" \
        "$("$STATS" --counters "$d/cap_counters_0.vfd" 2>/dev/null | statrows)"

    printf '{ "counters": { "events": "task-clock,perf::PAGE-FAULTS" } }\n' >"$cfg"
    d=$cap_tmp/mixed
    VFTR_CONFIG=$cfg vrun "$d" "$CAPDIR/cap_counters" "$PAGES" "$MS"
    check "perf_event_open and PAPI in one run: no message" 0 "$(grep -c '^vftr:' "$d/.stderr")"
    known_work "$d" perf::PAGE-FAULTS task-clock mixed

    # per thread: 4 threads of cap_threads, each its own event set
    printf '{ "counters": { "events": "perf::TASK-CLOCK,perf::PAGE-FAULTS" } }\n' >"$cfg"
    d=$cap_tmp/papi_threads
    VFTR_CONFIG=$cfg vrun "$d" "$CAPDIR/cap_threads" 4 200
    rows=$(awk '/^Counters \(per call path/ { getline; on = 1; next } on && $NF == "thread_main" { print $4, $5 }' "$d/cap_threads_0.log")
    check "papi threads: thread_main rows, one per thread" 4 "$(echo "$rows" | grep -c .)"
    check "papi threads: each thread counted (task-clock > 0, exclusive >= 0)" 4 \
        "$(echo "$rows" | awk '$1 > 0 && $2 >= 0' | wc -l)"
    check "papi threads: the log's thread_main rows summed = vftr-stats --counters" \
        "$(awk '/^Counters \(per call path/ { getline; on = 1; next } on && $NF == "thread_main" {
                c += $3; for (i = 4; i < NF; i++) s[i] += $i } END { printf "%d", c; for (i = 4; i < NF; i += 2) printf " %d", s[i]; print "" }' "$d/cap_threads_0.log")" \
        "$("$STATS" --counters "$d/cap_threads_0.vfd" 2>/dev/null | awk '$NF == "thread_main" { printf "%d", $1; for (i = 2; i < NF; i += 2) printf " %d", $i; print "" }')"
else
    echo "SKIP: vftr built without PAPI (no PAPI counters tested)"
    printf '{ "counters": { "events": "task-clock,PAPI_TOT_CYC" } }\n' >"$cfg"
    d=$cap_tmp/nopapi
    VFTR_CONFIG=$cfg vrun "$d" "$CAPDIR/cap_counters" 100 10
    check "without PAPI: a PAPI name is unknown, and the message says why" 1 \
        "$(grep -c 'unknown counter "PAPI_TOT_CYC" (vftr was built without PAPI' "$d/.stderr")"
fi

# --counters with another view: a usage error; a trace without counters: an error.
"$STATS" --counters --callpath "$vfd" >/dev/null 2>"$d/usage.err"
check "vftr-stats --counters --callpath: exit 2" 2 $?
check "vftr-stats --counters --callpath: message" 1 \
    "$(grep -c '^vftr-stats: --callpath and --counters exclude each other' "$d/usage.err")"

# Per thread: 4 threads of cap_threads, each its own counters; the log's
# rows of thread_main, one per thread, sum to vftr-stats's (over processes).
require "$CAPDIR/cap_threads"
printf '{ "counters": { "events": "%s" } }\n' "$SW" >"$cfg"
d=$cap_tmp/threads
VFTR_CONFIG=$cfg vrun "$d" "$CAPDIR/cap_threads" 4 200
check "threads: thread_main rows in the log, one per thread" 4 \
    "$(awk '/^Counters \(per call path/ { on = 1; next } on && $NF == "thread_main"' "$d/cap_threads_0.log" | wc -l)"
check "threads: the log's thread_main rows summed = vftr-stats --counters" \
    "$(awk '/^Counters \(per call path/ { getline; on = 1; next } on && $NF == "thread_main" {
            c += $3; for (i = 4; i < NF; i++) s[i] += $i } END { printf "%d", c; for (i = 4; i < NF; i += 2) printf " %d", s[i]; print "" }' "$d/cap_threads_0.log")" \
    "$("$STATS" --counters "$d/cap_threads_0.vfd" 2>/dev/null | awk '$NF == "thread_main" { printf "%d", $1; for (i = 2; i < NF; i += 2) printf " %d", $i; print "" }')"

# counters.functions: only spin's boundaries are read.
printf '{ "counters": { "events": "%s", "functions": "^spin$" } }\n' "$SW" >"$cfg"
d=$cap_tmp/filtered
VFTR_CONFIG=$cfg vrun "$d" "$CAPDIR/cap_counters" 100 10
check "counters.functions: only spin in the table" "spin" \
    "$(logrows "$d/cap_counters_0.log" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')"

# An unknown name: one message, no counters, the program runs as before.
printf '{ "counters": { "events": "task-clock,bogus" } }\n' >"$cfg"
d=$cap_tmp/unknown
VFTR_CONFIG=$cfg vrun "$d" "$CAPDIR/cap_counters" 100 10
check "unknown counter: exit status 0" 0 "$(cat "$d/.rc")"
check "unknown counter: one message" 1 "$(grep -c 'counters.events: unknown counter "bogus"' "$d/.stderr")"
check "unknown counter: no counter table" 0 "$(grep -c '^Counters (per call path' "$d/cap_counters_0.log")"
"$STATS" --counters "$d/cap_counters_0.vfd" >/dev/null 2>"$d/stats.err"
check "vftr-stats --counters on a trace without counters: exit 1" 1 $?
check "vftr-stats --counters on a trace without counters: message" 1 \
    "$(grep -c 'the trace has no counters' "$d/stats.err")"
finish
