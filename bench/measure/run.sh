#!/bin/bash
# bench/measure/run.sh — measurement control on the example (see
# bench/measure/module.mk).  On BENCH_MEASURE_NP ranks (1), in rounds that run every variant
# once (interleaved: a slow phase of the shared machine hits all alike):
#   plain      mcprog built without instrumentation
#   empty      built with -finstrument-functions, bench/capture's empty
#              hooks preloaded: what any hook costs (when that library is
#              built: make bench-capture)
#   trace      under vftr-run --no-throttle: every call traced
#   throttled  under vftr-run as it comes (throttling on)
#   filtered   under vftr-run --filter F, F written by vftr-score -g from a
#              profile-only run, for a tenth of the full trace's size; the
#              hook calls of the functions F excludes are patched out at
#              their first call (filter.patch_excluded, the default)
#   filtered_nopatch  the same with filter.patch_excluded = false (the hooks
#              are called and return at once: the skip cache), for comparison
#   capplain   the plain build under vftr-run: only its MPI calls are
#              recorded, the floor of running under capture at all
#   rebuilt    mcprog compiled with the gcc flag vftr-score -g prints
#              (-finstrument-functions-exclude-function-list: no hook call
#              in the excluded functions), under vftr-run --filter F
#   sled_*     mcprog built with -fpatchable-function-entry=5 (mc_sled: nop
#              sleds, no hooks), traced through its sleds (instrument.patchable,
#              capture/sled.c): sled_trace every call, sled_throttled as it
#              comes (a throttled function's sled calls a counting stub),
#              sled_nocount with throttle.count = false (its sled a nop),
#              sled_filtered under --filter F (excluded: the sleds stay nops)
#   plain_short, throttled_short, sled_throttled_short   the same on a run
#              SHORT (10) times shorter: throttling sets in after
#              throttle.calls calls traced in full, a fixed cost (some 7 ms
#              here) that on a run of a few tens of milliseconds is most of
#              the overhead; shown, without an aim
# The example's default length (3000 sweeps, about 0.3 s of work) is the
# shortest at which the warm-up no longer dominates; a real application
# runs for minutes.
# Aims: the full trace costs >= 50 % (the example's premise); throttling
# (default) on the patchable build, the filters with no hook call left
# (patchable, rebuilt) <= 5 %.  In a -finstrument-functions build a
# throttled or excluded function keeps the code the compiler put around its
# hook calls, which capture cannot remove: there the aim is that it costs
# less than a call of empty hooks does (any hook's floor).
# Overhead = (work time - plain's) / plain's of the same round, the median
# over the rounds.  Also: the trace sizes, the functions the filter keeps
# counted exactly as in the full run, and their inclusive times against the
# full run's.  Prints a table and writes $BUILD/bench/measure.md.  Exit
# status 0 even with a MISS; 1 when a run failed.
set -u
export LC_ALL=C
: "${BUILD:=build}" "${BENCH_MEASURE_RUNS:=5}"
b=$(cd "$BUILD" && pwd)
D=$b/bench/measure
run=$b/bin/vftr-run
score=$b/bin/vftr-score
out=$b/bench/measure.md
SWEEPS=${BENCH_MEASURE_SWEEPS:-3000} POINTS=${BENCH_MEASURE_POINTS:-20000}
SHORT=${BENCH_MEASURE_SHORT:-10}
SSWEEPS=$(( SWEEPS / SHORT > 0 ? SWEEPS / SHORT : 1 ))
# Ranks: 1 by default.  Two ranks that poll in MPI_Allreduce on this shared
# 2-core VM measure the scheduler more than the program (the waiting rank
# spins on the core the other one needs); on a real node BENCH_MEASURE_NP=2
# or more.
NP=${BENCH_MEASURE_NP:-1}
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for v in $(env | sed -n 's/^\(VFTR_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
if [ ! -x "$D/mc_instr" ] || ! command -v mpirun >/dev/null; then
    echo "bench-measure: no MPI (mpicc/mpirun) here: skipped"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vftr_bench_measure.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=()
declare -A W BYTES

mpi() { timeout -s KILL 600 mpirun --allow-run-as-root --oversubscribe -np "$NP" "$@"; }

# one VARIANT DIR: runs it; prints its work time in ns, or nothing
one() {
    local v=$1 d=$2
    rm -rf "$d" && mkdir -p "$d"
    case $v in
        plain)     mpi "$D/mc_plain" $SWEEPS $POINTS ;;
        empty)     mpi env LD_PRELOAD="$b/bench/capture/libbc_empty.so" "$D/mc_instr" $SWEEPS $POINTS ;;
        trace)     mpi "$run" --no-throttle --out "$d" -- "$D/mc_instr" $SWEEPS $POINTS ;;
        throttled) mpi "$run" --out "$d" -- "$D/mc_instr" $SWEEPS $POINTS ;;
        filtered)  mpi "$run" --filter "$tmp/gen.filt" --out "$d" -- "$D/mc_instr" $SWEEPS $POINTS ;;
        capplain)  mpi "$run" --out "$d" -- "$D/mc_plain" $SWEEPS $POINTS ;;
        rebuilt)   mpi "$run" --filter "$tmp/gen.filt" --out "$d" -- "$tmp/mc_rebuilt" $SWEEPS $POINTS ;;
        filtered_nopatch) mpi env VFTR_FILTER_PATCH_EXCLUDED=0 "$run" --filter "$tmp/gen.filt" --out "$d" \
                       -- "$D/mc_instr" $SWEEPS $POINTS ;;
        profile)   VFTR_SAMPLING_ACTIVE=0 mpi "$run" --out "$d" -- "$D/mc_instr" $SWEEPS $POINTS ;;
        sled_trace)     mpi "$run" --no-throttle --out "$d" -- "$D/mc_sled" $SWEEPS $POINTS ;;
        sled_throttled) mpi "$run" --out "$d" -- "$D/mc_sled" $SWEEPS $POINTS ;;
        sled_nocount)   mpi env VFTR_THROTTLE_COUNT=0 "$run" --out "$d" -- "$D/mc_sled" $SWEEPS $POINTS ;;
        sled_filtered)  mpi "$run" --filter "$tmp/gen.filt" --out "$d" -- "$D/mc_sled" $SWEEPS $POINTS ;;
        plain_short)    mpi "$D/mc_plain" $SSWEEPS $POINTS ;;
        throttled_short) mpi "$run" --out "$d" -- "$D/mc_instr" $SSWEEPS $POINTS ;;
        sled_throttled_short) mpi "$run" --out "$d" -- "$D/mc_sled" $SSWEEPS $POINTS ;;
    esac >"$d.out" 2>"$d.err"
    awk '$1 == "work_ns" { print $2 }' "$d.out"
}

# the filter: from a profile-only run, for a tenth of the full trace
one profile "$tmp/profile" >/dev/null
full=$("$score" --bytes "$tmp/profile" 2>"$tmp/score.err")
if [ -z "$full" ]; then
    echo "bench-measure: vftr-score failed: $(head -3 "$tmp/score.err")" >&2
    exit 1
fi
target=$(awk -v f="$full" 'BEGIN { printf "%.0f", f / 10 }')
"$score" --generate "$tmp/gen.filt" --target "$target" "$tmp/profile" >/dev/null 2>"$tmp/gen.err" \
    || failed+=("vftr-score -g: $(head -c 300 "$tmp/gen.err")")

variants=(plain trace throttled filtered filtered_nopatch capplain plain_short throttled_short)
# The next build: mcprog compiled with the gcc flag vftr-score -g prints
# (compile-time exclusion: the excluded function has no hook call and the
# code around one, the spills of its arguments, at all).
gccflag=$(sed -n 's/^#.*\(-finstrument-functions-exclude-function-list=[^ ]*\).*/\1/p' "$tmp/gen.filt" | head -1)
if [ -n "$gccflag" ] && OMPI_CC=${CC:-cc} ${MPICC:-mpicc} -std=c11 -D_GNU_SOURCE -O2 -g \
       -finstrument-functions "$gccflag" -o "$tmp/mc_rebuilt" bench/measure/mcprog.c 2>"$tmp/rebuild.err"; then
    variants+=(rebuilt)
else
    failed+=("the rebuild with vftr-score's gcc flag (${gccflag:-none printed}): $(head -c 300 "$tmp/rebuild.err" 2>/dev/null)")
fi
[ -e "$b/bench/capture/libbc_empty.so" ] && variants+=(empty)
[ -x "$D/mc_sled" ] && variants+=(sled_trace sled_throttled sled_nocount sled_filtered \
                                  sled_throttled_short)
for i in $(seq 1 "$BENCH_MEASURE_RUNS"); do
    echo "bench-measure: round $i of $BENCH_MEASURE_RUNS" >&2
    for v in "${variants[@]}"; do
        w=$(one "$v" "$tmp/$v")
        if [ -z "$w" ]; then failed+=("$v: $(head -c 300 "$tmp/$v.err" | tr '\n' ' ')"); continue; fi
        W[$v:$i]=$w
        case $v in plain|plain_short|empty) ;; *) BYTES[$v]=$(cat "$tmp/$v"/*.vfd 2>/dev/null | wc -c) ;; esac
    done
done

# median of the rounds' overheads of variant v against BASE (plain), in
# percent, or "-"
overhead() {
    local v=$1 base=${2:-plain} i
    for i in $(seq 1 "$BENCH_MEASURE_RUNS"); do
        [ -n "${W[$base:$i]:-}" ] && [ -n "${W[$v:$i]:-}" ] || continue
        awk -v p="${W[$base:$i]}" -v x="${W[$v:$i]}" 'BEGIN { printf "%.2f\n", 100 * (x - p) / p }'
    done | sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
        print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
verdict() { [ "$2" = - ] && { echo n/a; return; }; awk -v a="$2" "BEGIN { exit !($1) }" && echo PASS || echo MISS; }
# below the empty hooks' overhead $e (n/a when that library was not built)
below_empty() { [ "$e" = - ] && { echo n/a; return; }; verdict "a < $e" "$1"; }

# the profile of what the filter keeps (rank 0's log of the last round)
. "$(dirname "$0")/../../test/capture/logcalls.sh"
prof_rows() { logrows "$1" | awk -F'\t' '{ c[$1] += $3; t[$1] += $5 } END { for (f in c) print f, c[f], t[f] }' | sort; }
prof_rows "$(ls "$tmp"/trace/*_0.log 2>/dev/null | head -1)" >"$tmp/full.rows" 2>/dev/null
prof_rows "$(ls "$tmp"/filtered/*_0.log 2>/dev/null | head -1)" >"$tmp/filt.rows" 2>/dev/null

{
    echo "# Measurement control: the example"
    echo
    echo "mcprog (bench/measure/mcprog.c): $SWEEPS sweeps of $POINTS points per rank on $NP rank(s), weight() called"
    echo "for every point; $BENCH_MEASURE_RUNS interleaved rounds, overhead = (work - plain) / plain of the same"
    echo "round, median. The filter is vftr-score -g's for a tenth of the full trace (estimated from a"
    echo "profile-only run: $full bytes, target $target): $(grep -v '^#' "$tmp/gen.filt" 2>/dev/null | grep -v SCOREP | tr -s ' \n' ' ')."
    echo
    echo "| variant | overhead [%] | trace bytes (all ranks) | aim | result |"
    echo "|---|---:|---:|---|---|"
    e=$(overhead empty)
    echo "| empty hooks (any hook's floor) | $e | - | - | - |"
    o=$(overhead trace);     echo "| full trace | $o | ${BYTES[trace]:--} | >= 50 (the example's premise) | $(verdict 'a >= 50' "$o") |"
    o=$(overhead throttled); echo "| throttling (default) | $o | ${BYTES[throttled]:--} | < empty hooks ($e) | $(below_empty "$o") |"
    o=$(overhead filtered);  echo "| vftr-score -g filter, excluded hook calls patched out | $o | ${BYTES[filtered]:--} | < empty hooks ($e) | $(below_empty "$o") |"
    o=$(overhead filtered_nopatch); echo "| vftr-score -g filter, not patched (filter.patch_excluded = false) | $o | ${BYTES[filtered_nopatch]:--} | - | - |"
    o=$(overhead capplain); echo "| the plain build under vftr-run (its MPI calls only: capture's floor) | $o | ${BYTES[capplain]:--} | - | - |"
    o=$(overhead rebuilt); echo "| rebuilt with vftr-score -g's gcc flag ($gccflag), same filter | $o | ${BYTES[rebuilt]:--} | <= 5 | $(verdict 'a <= 5' "$o") |"
    if [ -x "$D/mc_sled" ]; then
        o=$(overhead sled_trace); echo "| patchable build (-fpatchable-function-entry=5), full trace | $o | ${BYTES[sled_trace]:--} | >= 50 (premise) | $(verdict 'a >= 50' "$o") |"
        o=$(overhead sled_throttled); echo "| patchable build, throttling (default): throttled sleds call a counting stub | $o | ${BYTES[sled_throttled]:--} | <= 5 | $(verdict 'a <= 5' "$o") |"
        o=$(overhead sled_nocount); echo "| patchable build, throttling with throttle.count = false (throttled sleds made nops) | $o | ${BYTES[sled_nocount]:--} | - | - |"
        o=$(overhead sled_filtered); echo "| patchable build, vftr-score -g filter (excluded sleds stay nops) | $o | ${BYTES[sled_filtered]:--} | <= 5 | $(verdict 'a <= 5' "$o") |"
    fi
    o=$(overhead throttled_short plain_short); echo "| throttling (default), a run $SHORT x shorter ($SSWEEPS sweeps): the warm-up | $o | ${BYTES[throttled_short]:--} | - | - |"
    if [ -x "$D/mc_sled" ]; then
        o=$(overhead sled_throttled_short plain_short); echo "| patchable build, throttling (default), a run $SHORT x shorter: the warm-up | $o | ${BYTES[sled_throttled_short]:--} | - | - |"
    fi
    t=${BYTES[filtered]:-}
    echo "| filtered trace under the target | - | ${t:--} | <= $target | $(verdict "a <= $target" "${t:--}") |"
    echo
    echo "| function (rank 0) | calls, full trace | calls, filtered | incl [s], full | incl [s], filtered | incl difference |"
    echo "|---|---:|---:|---:|---:|---:|"
    while read -r f c t; do
        read -r c2 t2 < <(awk -v f="$f" '$1 == f { print $2, $3 }' "$tmp/filt.rows")
        [ -n "${c2:-}" ] || continue
        d=$(awk -v a="$t" -v b="$t2" 'BEGIN { printf "%.1f %%", (a > 0 ? 100 * (b - a) / a : 0) }')
        echo "| $f | $c | $c2 | $t | $t2 | $d |"
    done <"$tmp/full.rows"
    echo
    echo "- The calls of every function the filter keeps are the full run's (exact). Their inclusive"
    echo "  times are not: in the full run they carry the hooks of weight() (about the trace's cost per"
    echo "  call), which the filtered run does not pay; the aim of 2 % applies to functions without"
    echo "  excluded callees."
    echo "- Throttling stops tracing weight(), not counting it: once throttled, its enter call is"
    echo "  redirected to a stub that counts it and its exit call jumped over (filter.patch_excluded),"
    echo "  so that what remains is the warm-up (throttle.calls calls traced in full) and the stub;"
    echo "  a filter makes an excluded function cheap: its hook calls are patched out at its first"
    echo "  call, after which it runs as an uninstrumented one would; without patching it costs"
    echo "  about what empty hooks cost."
    echo "- Patched out, an excluded function still runs the code the compiler wrapped around its"
    echo "  hook calls (its arguments spilled to the stack and reloaded, a frame), which costs on a"
    echo "  function of a few nanoseconds; compiled with the flag vftr-score -g prints, it has none."
    echo "- The patchable build is traced through its nop sleds (instrument.patchable): a traced"
    echo "  function's sled calls capture's trampolines, an excluded one's stays nops, a throttled"
    echo "  one's calls a stub that counts it (a call and an increment: its calls stay exact in the"
    echo "  profile, its time is no longer measured). Before throttling sets in, after"
    echo "  throttle.calls calls, the hot function is traced in full: on the short run that alone is"
    echo "  some 7 ms of work, most of the overhead of the $SHORT x shorter run."
    echo "- In the -finstrument-functions build a throttled or excluded weight() keeps what the"
    echo "  compiler wrapped around its hook calls (a frame, its arguments spilled and reloaded):"
    echo "  capture can patch the calls out, not that code. Its aim is to cost less than empty"
    echo "  hooks; for a few percent, build with -fpatchable-function-entry=5 or rebuild with the"
    echo "  gcc flag vftr-score -g prints."
    pl=$(awk '$1 == "patched" { $1 = ""; sub(/^ /, ""); print }' "$(ls "$tmp"/filtered/*_0.log 2>/dev/null | head -1)" 2>/dev/null)
    echo "- The filtered run's log: patched ${pl:-(no line)}."
    for m in "${failed[@]}"; do echo "- FAILED: $m"; done
} >"$out"
cat "$out"
[ "${#failed[@]}" -eq 0 ]
