#!/bin/bash
# crosscheck.sh — every figure of a capture, computed three ways, must
# agree (issue 14): the profile log capture writes, vftr-stats on the run's
# .vfd files, and vftr-stats on their OTF conversion; and all of them with
# what the program counts itself.  Every trace made here must also pass
# vftr-dump --check (the .vfd run and its conversion).
#
# Per scenario (a program run under vftr-run, or mpirun):
#   - vftr-dump --check on the run directory and on its conversion;
#   - per rank, the log's profile (its rows summed per function: calls,
#     exclusive time, and inclusive time summed over the function's calls)
#     against vftr-stats --csv of the rank's processes (threads folded) on
#     the .vfd files: calls equal, times within the printing's rounding and
#     the time stamps' conversion to ns (xcheck.py: 1e-6 s + 2 ns per
#     event); on a sampled capture within the sampling error instead;
#   - the .vfd route and the OTF route: identical output;
#   - the program's own "count F N" lines against the calls of the profile.
# The checks and their tolerances are in test/integration/xcheck.py.
set -u
: "${BUILD:=build}"
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac   # the runs cd into their directory
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
XC="python3 $here/xcheck.py"
# shellcheck source=../capture/logcalls.sh
. "$here/../capture/logcalls.sh"    # logrows: the one reading of a log's table
B=$BUILD/bin
CAP=$BUILD/test/capture
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
skip() { echo "SKIP: $*"; }
run_xc() { local out; out=$($XC "$@" 2>&1); echo "$out"; grep -q '^FAIL' <<<"$out" && failed=1; return 0; }

for f in "$B/vftr-run" "$B/vftr-stats" "$B/vfd2otf" "$B/vftr-dump"; do
    [ -x "$f" ] || { fail "$f is not built"; exit 1; }
done
command -v python3 >/dev/null || { fail "python3 is needed"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crosscheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# every rank writes its log; no control socket needed
export VFTR_LOGFILE_FOR_RANKS=all VFTR_CONTROL_ACTIVE=false
# Under a sanitizer: Open MPI leaks at exit (not ours), the crash scenarios
# want the default action of SIGSEGV, not the sanitizer's report, and the
# libraries vftr does not build (libomp, Open MPI) are not instrumented
# (test/capture/common.sh, test/mpi/common.sh and capture_signals.sh do the
# same).
mpi_asan=
case $(ldd "$BUILD/lib/libvftrcapture.so" 2>/dev/null) in
    *libasan*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:handle_segv=0" ;;
    *libtsan*) export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}handle_segv=0:suppressions=$here/../tsan.supp" ;;
esac

# The process tokens of rank r (its threads up to 255): r+1, (t<<20)+r+1.
rank_procs() {
    local r=$1 t list=$(($1 + 1))
    for t in $(seq 1 255); do list="$list,$(( (t << 20) + r + 1 ))"; done
    echo "$list"
}

# check NAME DIR MODE [INTERVAL]: the checks above on the run in DIR, whose
# program output is DIR/out.  MODE exact or sampled.  COUNTS (a variable)
# holds xcheck.py's rules for the program's count names.
check_run() {
    local name=$1 dir=$2 mode=$3 interval=${4:-0} log r base ev span
    if ! ls "$dir"/*.vfd >/dev/null 2>&1; then fail "$name: no .vfd written"; return; fi
    if ! "$B/vfd2otf" -q -o "$dir/t" "$dir" 2>"$dir/conv.err"; then
        fail "$name: vfd2otf ($(head -2 "$dir/conv.err"))"; return
    fi
    out=$("$B/vftr-dump" --check "$dir" 2>&1) && pass "$name: the .vfd run passes --check" \
        || fail "$name: --check of the .vfd run: $(head -3 <<<"$out")"
    out=$("$B/vftr-dump" --check "$dir/t" 2>&1) && pass "$name: the OTF conversion passes --check" \
        || fail "$name: --check of the conversion: $(head -3 <<<"$out")"
    "$B/vftr-stats" --csv "$dir" >"$dir/all-vfd.csv" 2>"$dir/stats.err" || fail "$name: vftr-stats"
    "$B/vftr-stats" --csv "$dir/t" >"$dir/all-otf.csv" 2>>"$dir/stats.err" || fail "$name: vftr-stats (OTF)"
    $XC csv "$dir/all-vfd.csv" >"$dir/all-vfd.p" && $XC csv "$dir/all-otf.csv" >"$dir/all-otf.p"
    run_xc compare "$name: .vfd and OTF routes give one profile" "$dir/all-vfd.p" "$dir/all-otf.p" --same
    if [ "$mode" = exact ] && [ "${COUNTS:-}" != none ] && grep -q '^count ' "$dir/out" 2>/dev/null; then
        # shellcheck disable=SC2086
        run_xc counts "$name: calls = the program's own counts" "$dir/out" "$dir/all-vfd.p" \
            ${COUNTS:-}
    fi
    for log in "$dir"/*.log; do
        case $log in *_all.log) continue ;; esac
        base=${log%.log}
        r=${base##*_}
        [ -f "$base.vfd" ] || { fail "$name: $log has no .vfd beside it"; continue; }
        # per function: calls, exclusive, inclusive (summed over rows), rows
        logrows "$log" | awk -F'\t' '{ c[$1] += $3; e[$1] += $4; i[$1] += $5; n[$1]++ }
            END { for (f in c) printf "%s\t%d\t%.9f\t%.9f\t%d\n", f, c[f], e[f], i[f], n[f] }' \
            | sort >"$base.logp"
        [ -s "$base.logp" ] || { fail "$name: no profile rows in $log"; continue; }
        "$B/vftr-stats" --csv -p "$(rank_procs "$r")" "$dir" >"$base.csv" 2>>"$dir/stats.err"
        $XC csv "$base.csv" >"$base.vfdp"
        ev=$("$B/vftr-dump" -d "$base.vfd" | sed -n 's/.* events=\([0-9]*\) .*/\1/p' | head -1)
        # the rank's clock rate against rank 0's (xcheck.py, --exact)
        tps=$("$B/vftr-dump" -d "$base.vfd" | sed -n 's/.*ticks_per_second=\([0-9]*\) .*/\1/p' | head -1)
        tps0=$("$B/vftr-dump" -d "${base%_*}_0.vfd" 2>/dev/null |
               sed -n 's/.*ticks_per_second=\([0-9]*\) .*/\1/p' | head -1)
        rate=$(awk -v a="${tps:-1}" -v b="${tps0:-${tps:-1}}" 'BEGIN { d = a / b - 1; print d < 0 ? -d : d }')
        if [ "$mode" = exact ]; then
            run_xc compare "$name: rank $r: the log and vftr-stats agree" "$base.logp" "$base.vfdp" \
                --exact "${ev:-0}" "$rate"
        else
            span=$(sed -n 's/^  run time *\([0-9.]*\) s$/\1/p' "$log")
            run_xc compare "$name: rank $r: vftr-stats within the sampling error of the log" \
                "$base.logp" "$base.vfdp" --sampled "$interval" "${span:-1}"
        fi
    done
}

# tui_agrees NAME DIR: vftr-tui's profile of the whole run and of a window
# (inside the run: a third of its span from a third on) is vftr-stats' of
# the same window on the .vfd files, figure for figure as printed (excl,
# incl, calls and the imbalance, which lib/util/fmt.h writes for both:
# xcheck.py tui), on the plain conversion (events) and on one with
# snapshots and summaries (vfd2otf --all: the zoomed-out view takes the
# profile from summaries).
tui_agrees() {
    local name=$1 dir=$2 span a b w t rows pane n=0
    command -v tmux >/dev/null || { skip "$name: vftr-tui (no tmux)"; return; }
    "$B/vfd2otf" -q --all -n 12 -o "$dir/ta" "$dir" 2>/dev/null || { fail "$name: vfd2otf --all"; return; }
    span=$("$B/vftr-dump" -e "$dir/t" | awk 'NR == 1 { f = $1 } { l = $1 } END { print (l - f) / 1e9 }')
    a=$(python3 -c "print('%dus' % int($span * 1e6 / 3))")
    b=$(python3 -c "print('%dus' % int($span * 2e6 / 3))")
    for w in ":" "$a:$b"; do
        "$B/vftr-stats" -t "$w" "$dir" >"$dir/stats.txt" 2>/dev/null
        for t in t ta; do
            # a server of its own for every start: a new session on the
            # socket of a server still shutting down can fail to start
            n=$((n + 1))
            local S=xcheck-tui-$$-$n TUI=$B/vftr-tui
            command tmux -L "$S" new-session -d -s tui -x 200 -y 120 \
                "TERM=xterm $TUI -t '$w' '$dir/$t'; sleep 30" 2>/dev/null
            rows=0
            for _ in $(seq 300); do
                sleep 0.1
                pane=$(command tmux -L "$S" capture-pane -t tui -p 2>/dev/null)
                rows=$(grep -cE '^[> ] {0,8}[0-9.]+ [mun]?s ' <<<"$pane")
                [ "$rows" -gt 0 ] && break
            done
            command tmux -L "$S" kill-server 2>/dev/null
            printf '%s\n' "$pane" >"$dir/screen.txt"
            # the TUI lists as many rows as fit: compare those it shows
            if [ "$rows" -gt 0 ]; then
                run_xc tui "$name: vftr-tui ($t) shows vftr-stats' profile of [$w)" \
                    "$dir/stats.txt" "$dir/screen.txt"
            else
                fail "$name: vftr-tui ($t) of [$w) showed no profile in 30 s; screen: $(grep -v '^ *$' <<<"$pane" | head -5 | tr '\n' ';')"
            fi
        done
    done
}

# scenario NAME MODE [INTERVAL] -- COMMAND...: runs COMMAND (its output in
# the run directory's out file) and checks the run.  With CRASH set the
# program must fail (a crash scenario) instead of succeeding.
scenario() {
    local name=$1 mode=$2 interval=0 rc
    shift 2
    if [ "$1" != -- ]; then interval=$1; shift; fi
    shift
    local dir="$tmp/$name"
    mkdir -p "$dir"
    (cd "$dir" && VFTR_OUTPUT_DIRECTORY="$dir" timeout 300 "$@" >"$dir/out" 2>"$dir/err")
    rc=$?
    if [ -z "${CRASH:-}" ] && [ $rc != 0 ]; then
        fail "$name: the program failed ($(head -3 "$dir/err"))"; return
    fi
    if [ -n "${CRASH:-}" ] && [ $rc = 0 ]; then
        fail "$name: the program was to crash and did not"; return
    fi
    check_run "$name" "$dir" "$mode" "$interval"
    [ -n "${TUI:-}" ] && tui_agrees "$name" "$dir"
    return 0
}

# ------------------------------------------------------------ serial
TUI=1 scenario fib exact -- "$B/vftr-run" "$CAP/cap_fib" 22
COUNTS='leaves=^leaf[0-7][0-7]$' scenario wide exact -- "$B/vftr-run" "$CAP/cap_wide" 2000
scenario deep exact -- "$B/vftr-run" "$CAP/cap_deep" 2000
COUNTS='area=Square::area scale_int=scale\(int\) scale_double=scale\(double\) twice=twice<int>' \
    scenario cxx exact -- "$B/vftr-run" "$CAP/cap_cxx"
[ -x "$CAP/cap_fortran" ] && COUNTS='advance=^physics::advance$ relax=^relax_$' \
    scenario fortran exact -- "$B/vftr-run" "$CAP/cap_fortran"
TUI=1 scenario threads exact -- "$B/vftr-run" "$CAP/cap_threads" 8 200
# the calls made while paused are not in the profile (the program counts
# them apart: traced_step); main, open across the pause, counts one call
# more for the resume (share/doc/capture.md, "Pause and resume")
COUNTS='-step traced_step=^step$ -main' scenario regions exact -- "$B/vftr-run" "$CAP/cap_regions"
# sampled: one event per 200 us per thread, the profile statistical
scenario sampled sampled 0.0002 -- env VFTR_SAMPLING_SAMPLE_INTERVAL=0.0002 \
    "$B/vftr-run" "$CAP/cap_wide" 20000

# crashed: the log written at the signal (marked incomplete) and the trace
# flushed there agree, up to the crash
CRASH=1 scenario crash exact -- "$B/vftr-run" "$CAP/cap_signal" segv 3000

# ------------------------------------------------------------ MPI, OpenMP
MPIRUN="env $mpi_asan mpirun --allow-run-as-root --oversubscribe"
if command -v mpirun >/dev/null && [ -x "$BUILD/test/mpi/mpi_p2p" ]; then
    # (their DIR argument: where they write what they did, the run directory)
    TUI=1 scenario mpi_p2p exact -- $MPIRUN -np 4 "$B/vftr-run" "$BUILD/test/mpi/mpi_p2p" .
    scenario mpi_coll exact -- $MPIRUN -np 3 "$B/vftr-run" "$BUILD/test/mpi/mpi_coll" .
    scenario mpi_fib exact -- $MPIRUN -np 2 "$B/vftr-run" "$CAP/cap_fib" 18
    # rank 1 dies by SIGSEGV after its calls, rank 0 is stopped by mpirun:
    # both logs are written at the signal; a rank's log and trace agree
    [ -x "$BUILD/test/mpi/nohooks_c" ] && CRASH=1 COUNTS=none \
        scenario mpi_crash exact -- $MPIRUN -np 2 "$B/vftr-run" "$BUILD/test/mpi/nohooks_c" . 5 segv
else
    skip "MPI scenarios (no mpirun or MPI test programs)"
fi
if [ -x "$BUILD/test/omp/omp_count" ]; then
    # omp_count counts constructs per thread, not functions
    COUNTS=none scenario openmp exact -- env OMP_NUM_THREADS=3 "$B/vftr-run" "$BUILD/test/omp/omp_count"
    if command -v mpirun >/dev/null && [ -x "$BUILD/test/omp/omp_hybrid" ]; then
        scenario hybrid exact -- env OMP_NUM_THREADS=2 $MPIRUN -np 2 -x OMP_NUM_THREADS \
            "$B/vftr-run" "$BUILD/test/omp/omp_hybrid" .
    fi
else
    skip "OpenMP scenarios (clang + libomp programs not built)"
fi
exit $failed
