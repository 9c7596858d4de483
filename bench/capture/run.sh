#!/bin/bash
# bench/capture/run.sh — the capture benchmark.  Runs bcprog (fib(32): 7 M
# calls; a wide tree of 64 leaves: 7 M calls) as:
#   plain     built without instrumentation
#   empty     -finstrument-functions, preloaded hooks that do nothing
#   floor     -finstrument-functions, preloaded hooks that read rdtsc at
#             enter and exit and store it (the least a timing tool can do)
#   profile   under vftr-run, profile only (VFTR_SAMPLING_ACTIVE=0)
#   trace     under vftr-run, full trace (every enter and exit; --no-throttle)
#   throttled under vftr-run as it comes: throttling on (the default), which
#             stops tracing call paths past 100000 calls of < 10 us each
#   excluded  under vftr-run, full trace, with the workload's functions (fib,
#             the 64 leaves) excluded by filter.exclude: what an excluded hot
#             function costs, against empty hooks; its hook calls are
#             patched out at their first call (filter.patch_excluded)
#   excluded_nopatch  the same with filter.patch_excluded = false: the hooks
#             are called and return at once (the skip cache)
#   uftrace   under `uftrace record --no-libcall` (Debian's uftrace)
# Each best of BENCH_CAPTURE_RUNS runs (default 7), in rounds that run
# every variant once (interleaved).  ns per call =
# (work time - plain work time) / calls, where the work time is measured by
# the program around its workload (start-up and finalization excluded).
# Finalization = time from the end of main to the process being reaped,
# minus the same for plain.  Bytes per event = .vfd size / events in it.
# Prints a table and writes it to $BUILD/bench/capture.md.  Exit status 0
# even with a MISS; 1 when a variant failed to run; 2 on a usage problem.
# `make bench-capture` builds what it needs and calls this script.
set -u
export LC_ALL=C

BUILD=${BUILD:-build}
RUNS=${BENCH_CAPTURE_RUNS:-7}
[ -n "$RUNS" ] || RUNS=7
FIB_N=${BENCH_CAPTURE_FIB:-32}
WIDE_N=${BENCH_CAPTURE_WIDE:-7000000}
D=$BUILD/bench/capture
OUT=$BUILD/bench/capture.md
WORK=$D/run
VFTR_RUN=$BUILD/bin/vftr-run
VFDCOUNT=$BUILD/test/capture/vfdcount

die() { echo "bench-capture: $*" >&2; exit 2; }
case "$RUNS" in *[!0-9]*|0) die "BENCH_CAPTURE_RUNS must be a positive number" ;; esac
for f in "$D/bc_plain" "$D/bc_instr" "$D/libbc_empty.so" "$D/libbc_floor.so"; do
    [ -e "$f" ] || die "$f missing (run 'make bench-capture')"
done
rm -rf "$WORK"
mkdir -p "$WORK" || die "cannot create $WORK"
trap 'rm -rf "$WORK"' EXIT

failed=()
declare -A WORKNS FIN CALLS BYTES EVENTS ENTERS ROUNDNS
ROUND=0

now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# one VARIANT WORKLOAD N DIR: runs one variant once; prints "work_ns fin_us
# calls" or nothing on failure.  The program's output is in DIR/out.
one() {
    local v=$1 w=$2 n=$3 dir=$4 t1 rc
    local prog=$D/bc_instr
    mkdir -p "$dir"
    case $v in
        plain)   "$D/bc_plain" "$w" "$n" >"$dir/out" 2>"$dir/err"; rc=$? ;;
        empty)   LD_PRELOAD=$D/libbc_empty.so "$prog" "$w" "$n" >"$dir/out" 2>"$dir/err"; rc=$? ;;
        floor)   LD_PRELOAD=$D/libbc_floor.so "$prog" "$w" "$n" >"$dir/out" 2>"$dir/err"; rc=$? ;;
        profile) VFTR_SAMPLING_ACTIVE=0 "$VFTR_RUN" --out "$dir" -- "$prog" "$w" "$n" \
                     >"$dir/out" 2>"$dir/err"; rc=$? ;;
        trace)   "$VFTR_RUN" --no-throttle --out "$dir" -- "$prog" "$w" "$n" >"$dir/out" 2>"$dir/err"
                 rc=$? ;;
        throttled) "$VFTR_RUN" --out "$dir" -- "$prog" "$w" "$n" >"$dir/out" 2>"$dir/err"; rc=$? ;;
        excluded) VFTR_FILTER_EXCLUDE='^(fib|leaf[0-9]+)$' "$VFTR_RUN" --out "$dir" -- "$prog" "$w" "$n" \
                     >"$dir/out" 2>"$dir/err"; rc=$? ;;
        excluded_nopatch) VFTR_FILTER_PATCH_EXCLUDED=0 VFTR_FILTER_EXCLUDE='^(fib|leaf[0-9]+)$' \
                     "$VFTR_RUN" --out "$dir" -- "$prog" "$w" "$n" >"$dir/out" 2>"$dir/err"; rc=$? ;;
        uftrace) uftrace record --no-libcall -d "$dir/uftrace.data" "$prog" "$w" "$n" \
                     >"$dir/out" 2>"$dir/err"; rc=$? ;;
    esac
    t1=$(now_us)
    [ "$rc" = 0 ] || return 1
    awk -v t1="$t1" '$1 == "calls" { c = $2 } $1 == "work_ns" { w = $2 } $1 == "end_us" { e = $2 }
        END { if (c == "" || w == "" || e == "") exit 1; print w, t1 - e, c }' "$dir/out"
}

# once VARIANT WORKLOAD N: one more run of the variant; keeps the best work
# time and finalization in WORKNS/FIN[v:w] and the run's directory as
# $WORK/v-w (for the file measurements).  1 when the run failed.
once() {
    local v=$1 w=$2 n=$3 r
    rm -rf "$WORK/$v-$w"
    if ! r=$(one "$v" "$w" "$n" "$WORK/$v-$w"); then
        failed+=("$v on $w: $(head -c 300 "$WORK/$v-$w/err" | tr '\n' ' ')")
        return 1
    fi
    set -- $r
    ROUNDNS[$v:$w:$ROUND]=$1
    { [ -z "${WORKNS[$v:$w]:-}" ] || [ "$1" -lt "${WORKNS[$v:$w]}" ]; } && WORKNS[$v:$w]=$1
    { [ -z "${FIN[$v:$w]:-}" ] || [ "$2" -lt "${FIN[$v:$w]}" ]; } && FIN[$v:$w]=$2
    CALLS[$v:$w]=$3
    return 0
}

variants=(plain empty floor excluded excluded_nopatch profile throttled trace uftrace)
have_vftr=1; [ -x "$VFTR_RUN" ] || { have_vftr=0; failed+=("vftr-run not built ($VFTR_RUN)"); }
have_uftrace=1; command -v uftrace >/dev/null || { have_uftrace=0; failed+=("uftrace not installed"); }

# Rounds: every variant once per round, RUNS rounds, best of each kept.  A
# slow phase of the shared machine then hits all variants alike instead of
# the ones that happened to run in it, which the ratios would feel.
for w in fib wide; do
    n=$FIB_N; [ "$w" = wide ] && n=$WIDE_N
    declare -A dead=()
    for i in $(seq 1 "$RUNS"); do
        echo "bench-capture: $w: round $i of $RUNS" >&2
        ROUND=$i
        for v in "${variants[@]}"; do
            case $v in profile|trace|excluded*|throttled) [ "$have_vftr" = 1 ] || continue ;; esac
            [ "$v" = uftrace ] && [ "$have_uftrace" = 0 ] && continue
            [ -n "${dead[$v]:-}" ] && continue
            once "$v" "$w" "$n" || dead[$v]=1
            rm -rf "$WORK/$v-$w/uftrace.data"
        done
    done
    if [ "$have_vftr" = 1 ] && [ -z "${dead[trace]:-}" ]; then
        f=$(find "$WORK/trace-$w" -maxdepth 1 -name '*.vfd' | head -n 1)
        if [ -n "$f" ]; then
            BYTES[$w]=$(stat -c %s "$f")
            if [ -x "$VFDCOUNT" ] && "$VFDCOUNT" "$f" >"$f.count" 2>/dev/null; then
                EVENTS[$w]=$(awk '$1 == "events" { print $2 }' "$f.count")
                ENTERS[$w]=$(awk '$1 == "enter" { print $2 }' "$f.count")
            fi
        else
            failed+=("trace on $w: no .vfd written")
        fi
    fi
    unset dead
done

# paired W A B: the ratio (A - plain) / (B - plain) of the work times of
# one round, for every round where all three ran: "median q1 q3 n", or "-".
# Runs of one round follow each other within a second, so a slow phase of
# the machine (this is a shared VM: the same binary's time swings by 30 %)
# mostly hits both sides of a pair; the median of the pairs is the verdict,
# the ratio of the best times is shown beside it.
paired() {
    local w=$1 a=$2 b=$3 i p x y
    for i in $(seq 1 "$RUNS"); do
        p=${ROUNDNS[plain:$w:$i]:-} x=${ROUNDNS[$a:$w:$i]:-} y=${ROUNDNS[$b:$w:$i]:-}
        [ -n "$p" ] && [ -n "$x" ] && [ -n "$y" ] || continue
        awk -v p="$p" -v x="$x" -v y="$y" 'BEGIN { if (y - p > 0) printf "%.4f\n", (x - p) / (y - p) }'
    done | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.2f %.2f %.2f %d\n", m, v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)], NR }'
}

# ns per call of variant v on workload w, or "-"
nspc() {
    local p=${WORKNS[plain:$2]:-} x=${WORKNS[$1:$2]:-} c=${CALLS[$1:$2]:-}
    [ -n "$p" ] && [ -n "$x" ] && [ -n "$c" ] || { echo -; return; }
    awk -v p="$p" -v x="$x" -v c="$c" 'BEGIN { printf "%.1f", (x - p) / c }'
}
ms() { [ -n "${1:-}" ] && awk -v t="$1" 'BEGIN { printf "%.1f", t / 1e6 }' || echo -; }
# verdict OK-EXPRESSION VALUES...: PASS/MISS, or "-" when a value is missing
verdict() {
    local e=$1; shift
    for a in "$@"; do [ "$a" = - ] || [ -z "$a" ] && { echo "n/a"; return; }; done
    awk -v a="${1}" -v b="${2:-0}" "BEGIN { exit !($e) }" && echo PASS || echo MISS
}

{
    echo "# Capture benchmark"
    echo
    echo "bcprog: fib($FIB_N) and a wide tree (64 leaves, $WIDE_N calls); best of $RUNS runs in interleaved rounds;"
    echo "ns/call = (work time - plain work time) / calls; host $(uname -n), $(nproc) cores."
    echo
    echo "| workload | variant | calls | work [ms] | ns/call | finalization [ms] |"
    echo "|---|---|---:|---:|---:|---:|"
    for w in fib wide; do
        for v in "${variants[@]}"; do
            [ -n "${WORKNS[$v:$w]:-}" ] || continue
            fin=-
            if [ -n "${FIN[plain:$w]:-}" ] && [ "$v" != plain ]; then
                # below the resolution of this measurement (a few ms): 0
                fin=$(awk -v a="${FIN[$v:$w]}" -v b="${FIN[plain:$w]}" \
                      'BEGIN { d = (a - b) / 1000; printf "%.1f", (d > 0 ? d : 0) }')
            fi
            ns=$(nspc "$v" "$w"); [ "$v" = plain ] && ns=0
            echo "| $w | $v | ${CALLS[$v:$w]} | $(ms "${WORKNS[$v:$w]}") | $ns | $fin |"
        done
    done
    echo
    echo "| target | workload | value | goal | result |"
    echo "|---|---|---:|---:|---|"
    for w in fib wide; do
        t=$(nspc trace "$w") f=$(nspc floor "$w") u=$(nspc uftrace "$w")
        r=-; [ "$t" != - ] && [ "$f" != - ] && r=$(awk -v t="$t" -v f="$f" 'BEGIN { printf "%.2f", t / f }')
        set -- $(paired "$w" trace floor)
        echo "| full trace / floor (median of $RUNS paired rounds [q1, q3]; best times: $r) | $w | ${1:--} [${2:--}, ${3:--}] | <= 1.5 | $(verdict 'a <= 1.5' "${1:--}") |"
        r=-; [ "$t" != - ] && [ "$u" != - ] && r=$(awk -v t="$t" -v u="$u" 'BEGIN { printf "%.2f", (t > 0 ? u / t : 999) }')
        set -- $(paired "$w" uftrace trace)
        echo "| uftrace / full trace (median of $RUNS paired rounds [q1, q3]; best times: $r) | $w | ${1:--} [${2:--}, ${3:--}] | >= 4 | $(verdict 'a >= 4' "${1:--}") |"
        set -- $(paired "$w" excluded empty)
        echo "| excluded hot function, hook calls patched out / empty hooks (median of $RUNS paired rounds [q1, q3]) | $w | ${1:--} [${2:--}, ${3:--}] | <= 1.2 | $(verdict 'a <= 1.2' "${1:--}") |"
        set -- $(paired "$w" excluded_nopatch empty)
        echo "| excluded hot function, not patched (skip cache) / empty hooks (for comparison) | $w | ${1:--} [${2:--}, ${3:--}] | - | - |"
        set -- $(paired "$w" throttled profile)
        echo "| throttled default / profile only (median of $RUNS paired rounds [q1, q3]) | $w | ${1:--} [${2:--}, ${3:--}] | <= 1.2 | $(verdict 'a <= 1.2' "${1:--}") |"
        b=-
        if [ -n "${BYTES[$w]:-}" ] && [ -n "${EVENTS[$w]:-}" ] && [ "${EVENTS[$w]}" -gt 0 ]; then
            b=$(awk -v s="${BYTES[$w]}" -v e="${EVENTS[$w]}" 'BEGIN { printf "%.2f", s / e }')
        fi
        echo "| bytes per event | $w | $b | <= 8 | $(verdict 'a <= 8' "$b") |"
    done
    echo
    # What the two time targets ask of each other on this machine: ">= 4x
    # cheaper than uftrace" is "trace / floor <= (uftrace / floor) / 4".
    # The issue's figures (uftrace ~140 ns, rdtsc ~10 ns: floor ~25 ns) make
    # that about 1.4, close to the 1.5 of the first target; where uftrace is
    # cheaper relative to rdtsc, the second target is the stricter one.
    echo "| what \">= 4x cheaper than uftrace\" asks | workload | uftrace / floor | trace / floor allowed | profile alone / floor |"
    echo "|---|---|---:|---:|---:|"
    for w in fib wide; do
        set -- $(paired "$w" uftrace floor)
        u=${1:--} a=-
        [ "$u" != - ] && a=$(awk -v u="$u" 'BEGIN { printf "%.2f", u / 4 }')
        set -- $(paired "$w" profile floor)
        echo "| medians of paired rounds | $w | $u | <= $a | ${1:--} |"
    done
    echo
    for w in fib wide; do
        if [ -n "${ENTERS[$w]:-}" ]; then
            ok="as many as calls"; [ "${ENTERS[$w]}" -lt "${CALLS[trace:$w]:-0}" ] && ok="FEWER than the calls"
            echo "- $w trace: ${EVENTS[$w]} events, ${ENTERS[$w]} enters for ${CALLS[trace:$w]} calls ($ok), ${BYTES[$w]} bytes."
        fi
    done
    fl=$(nspc floor fib) em=$(nspc empty fib)
    if [ "$fl" != - ] && [ "$em" != - ]; then
        echo "- The floor reads the time-stamp counter twice per call: one rdtsc costs about"
        echo "  $(awk -v f="$fl" -v e="$em" 'BEGIN { printf "%.1f", (f - e) / 2 }') ns here ((floor - empty) / 2 on fib)."
    fi
    for w in fib wide; do
        l=$(ls "$WORK/excluded-$w"/*.log 2>/dev/null | head -n 1)
        [ -n "$l" ] && echo "- excluded on $w: the log says \"$(awk '$1 == "patched" { $1 = ""; sub(/^ /, ""); print }' "$l")\"."
    done
    echo "- An excluded function whose hook calls are patched out costs what an uninstrumented one"
    echo "  does plus two short jumps (its ns/call can come out near 0 or below: noise); empty hooks"
    echo "  are the floor of any tool that leaves the calls in."
    echo "- Finalization is measured from the end of main to the process being reaped, less the"
    echo "  same for plain; its resolution is a few ms (shell and scheduler noise)."
    echo "- uftrace writes its buffers from a separate process (on the other core), vftr from the"
    echo "  measured thread: vftr's flush time is inside its work time, uftrace's is not."
    for m in "${failed[@]}"; do echo "- FAILED: $m"; done
} >"$OUT"
cat "$OUT"
[ "${#failed[@]}" -eq 0 ]
