#!/bin/bash
# first_hour.sh — the first hour of a new user, scripted (issue 16): build
# the bundled heat example (MPI + OpenMP, -finstrument-functions), capture
# it with vftr-run under mpirun, look at it with vftr-stats straight from the
# run directory, convert it with vfd2otf, dump and snap it, snap and browse
# (vftr-tui in tmux) the run directory itself, convert it with
# vftr-convert, and check on the way that every output speaks as the issue
# asks: processes as "rank N" / "rank N thread T" (from 0), times with units
# that fit, columns within 80, one option letter per meaning, wrong input
# told for what it is, no progress noise when not on a terminal.
#
# Expectations are independent of the tools' output: the example's
# functions and MPI calls are named in share/examples/heat.c, the ranks and
# threads are what mpirun and OMP_NUM_THREADS were given, and the unit
# rules are those of lib/util/fmt.h written out as patterns here.
set -u
: "${BUILD:=build}"
export LC_ALL=C
case $BUILD in /*) B=$BUILD ;; *) B=$PWD/$BUILD ;; esac
SRC=$PWD
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
NP=2
THREADS=2

if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null || ! command -v clang >/dev/null; then
    echo "PASS: first hour skipped: needs mpicc, mpirun and clang (make deps)"
    exit 0
fi
# a sanitized build: Open MPI and libomp are not (test/sanitizers.sh)
. "$SRC/test/sanitizers.sh"
san_env "$B/lib/libvftrcapture.so"
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
       OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd "$T" || exit 1

# 1. build as the README says
if OMPI_CC=clang mpicc -O1 -g -fopenmp -finstrument-functions -o heat "$SRC/share/examples/heat.c" -lm \
        2>cc.err; then
    pass "heat builds with mpicc -fopenmp -finstrument-functions"
else
    fail "building heat: $(head -3 cc.err)"; exit 1
fi

# 2. capture: vftr-run -o creates the directory's files; small problem, few iterations
mkdir run
if OMP_NUM_THREADS=$THREADS timeout 120 mpirun -np $NP --bind-to none "$B/bin/vftr-run" -o run -- ./heat 64 20 \
        >run.out 2>run.err; then
    pass "mpirun -np $NP vftr-run -o run ./heat"
else
    fail "capture failed: $(tail -3 run.err)"; exit 1
fi
nvfd=$(ls run/*.vfd 2>/dev/null | wc -l)
[ "$nvfd" = $NP ] && pass "one .vfd per rank ($NP)" || fail "$nvfd .vfd files for $NP ranks"

# 3. vftr-stats on the run directory, as text: 80 columns, units, names
"$B/bin/vftr-stats" run >stats.txt 2>stats.err || fail "vftr-stats run: $(head -2 stats.err)"
wide=$(awk 'length > 80' stats.txt | wc -l)
[ "$wide" = 0 ] && pass "vftr-stats: every line within 80 columns" || fail "vftr-stats: $wide lines wider than 80"
head -1 stats.txt | grep -Eq '^ +calls +excl +excl% +incl +imbal  function$' &&
    pass "vftr-stats: header calls, excl, excl%, incl, imbal, function" ||
    fail "vftr-stats header: $(head -1 stats.txt)"
# every time cell is a number and a unit of fmt.h: "1.23 ms", "45 ns", "0 s"
bad=$(awk 'NR > 1 { t = substr($0, 11, 10) " " substr($0, 28, 10)
                    n = split(t, w, " ")
                    for (i = 1; i + 1 <= n; i += 2)
                        if (w[i] !~ /^[0-9]+(\.[0-9]+)?$/ || w[i + 1] !~ /^(ns|us|ms|s)$/) { print NR ": " $0; break } }' stats.txt)
[ -z "$bad" ] && pass "vftr-stats: times in the unit that fits (ns, us, ms, s)" || fail "time cells: $bad"
awk 'NR > 1' stats.txt | grep -Eq ' [0-9]+\.[0-9]%  ' && pass "vftr-stats: imbalance as a percentage" ||
    fail "no imbalance percentage in: $(sed -n 2p stats.txt)"
for f in solve iterate exchange_halo jacobi_step MPI_Allreduce; do
    grep -Eq "  $f\$" stats.txt || fail "vftr-stats: no row for $f"
done
pass "vftr-stats: the example's functions and MPI calls are in the profile"
if [ -s stats.err ] && grep -q '\[' stats.err; then fail "vftr-stats drew a progress bar off a terminal"; fi

# --messages names processes as ranks from 0
"$B/bin/vftr-stats" -M run >msgs.txt 2>/dev/null
grep -Eq '^rank 0 +rank 1 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ (ns|us|ms|s)$' msgs.txt &&
    pass "vftr-stats -M: 'rank 0' sends to 'rank 1', transfer with a unit" ||
    fail "vftr-stats -M rows: $(sed -n 2,4p msgs.txt | tr '\n' ';')"
grep -q 'process [0-9]' msgs.txt && fail "vftr-stats -M shows OTF tokens"

# --process by rank and thread, the same as the tokens vfd2otf documents
# (thread t of rank r is (t << 20) + r + 1)
# same_rows NAME ARGS-A -- ARGS-B: both succeed with rows, and the same ones
same_rows() {
    local name=$1 a=() b=()
    shift
    while [ "$1" != -- ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    "$B/bin/vftr-stats" --csv "${a[@]}" run >sa.csv 2>&1 && "$B/bin/vftr-stats" --csv "${b[@]}" run >sb.csv 2>&1 &&
        [ "$(wc -l < sa.csv)" -gt 2 ] && cmp -s sa.csv sb.csv && pass "$name" ||
        fail "$name: $(head -2 sa.csv | tr '\n' ' ') / $(head -2 sb.csv | tr '\n' ' ')"
}
same_rows "--process 'rank 1 thread 1' selects token (1 << 20) + 2" \
    -T -p 'rank 1 thread 1' -- -T -p $(((1 << 20) + 1 + 1))
same_rows "--process 'rank 0' is rank 0 with its threads (tokens 1 and (1 << 20) + 1)" \
    -T -p 'rank 0' -- -T -p "1,$(((1 << 20) + 1))"
same_rows "--process 'RANK 1 thread 0-1' (case, ranges) is rank 1 and its thread" \
    -T -p 'RANK 1 thread 0-1' -- -T -p "2,$(((1 << 20) + 2))"
"$B/bin/vftr-stats" -p 'rank 9' run >/dev/null 2>err.txt
grep -q "no rank 9 in the trace (it has ranks 0-1)" err.txt &&
    pass "--process 'rank 9' on a 2-rank run: says which ranks there are" || fail "rank 9: $(cat err.txt)"

# 4. convert: vfd2otf, quiet off a terminal (no progress on a pipe)
"$B/bin/vfd2otf" -o heat run >v2o.out 2>v2o.err || fail "vfd2otf: $(head -2 v2o.err)"
grep -q '#\|\[' v2o.err && fail "vfd2otf drew progress off a terminal: $(head -c 200 v2o.err)"
[ -e heat.otf ] && pass "vfd2otf -o heat run writes heat.otf" || fail "no heat.otf"
# the trace says the same as the run
a=$("$B/bin/vftr-stats" --csv run 2>/dev/null | md5sum)
b=$("$B/bin/vftr-stats" --csv heat 2>/dev/null | md5sum)
[ "$a" = "$b" ] && pass "vftr-stats: the run directory and its OTF conversion give one profile" ||
    fail "profiles of the run and of heat.otf differ"

# progress: drawn on a terminal (script(1) gives one), with the share and
# the events; nothing with -q, nothing on a pipe (above)
if command -v script >/dev/null; then
    for cmd in "vfd2otf -o heatp run" "vftr-snap -n 5 -o heatq heat" "vftr-convert -o heatp.json heat" \
               "vftr-stats -T run"; do
        tool=${cmd%% *}
        script -qc "$B/bin/$cmd" /dev/null </dev/null >tty.out 2>&1
        grep -aEq "$tool: \[[#.]{24}\] +[0-9]+% [0-9]+ events" tty.out &&
            pass "$tool on a terminal: a progress line" || fail "$tool on a terminal: $(head -c 300 tty.out | cat -v)"
        script -qc "$B/bin/$tool -q ${cmd#* }" /dev/null </dev/null >tty.out 2>&1
        grep -aq "$tool: \[" tty.out && fail "$tool -q on a terminal still draws" ||
            pass "$tool -q on a terminal: no progress line"
    done
fi

# 5. vftr-dump, vftr-snap with the shared letters: -t is a window, -p processes
n=$("$B/bin/vftr-dump" -e -p 'rank 0' heat 2>/dev/null | wc -l)
k=$("$B/bin/vftr-dump" -e -p "1,$(((1 << 20) + 1))" heat 2>/dev/null | wc -l)
# the second half of the run, from its first time stamp (ticks are ns here)
half=$("$B/bin/vftr-dump" -e heat | awk '$1 ~ /^[0-9]+$/ { if (f == "" || $1 < f) f = $1; if ($1 > l) l = $1 }
                                     END { printf "%d", (l - f) / 2 }')
w=$("$B/bin/vftr-dump" -e -p 'rank 0' -t "$half:" heat 2>/dev/null | wc -l)
[ "$n" -gt 0 ] && [ "$n" = "$k" ] && pass "vftr-dump -e -p 'rank 0': the events of tokens 1 and (1 << 20) + 1 ($n)" ||
    fail "vftr-dump -p 'rank 0': $n events, tokens: $k"
[ "$w" -gt 0 ] && [ "$w" -lt "$n" ] && pass "vftr-dump -t $half: (ticks): rank 0's second half ($w of $n)" ||
    fail "vftr-dump -t $half: (the second half): $w of $n events"
if "$B/bin/vftr-snap" -n 10 heat 2>snap.err; then
    pass "vftr-snap -n 10 heat"
    "$B/bin/vftr-dump" --count heat | grep -q 'Snapshot\|Snap' && pass "vftr-snap wrote snapshots" ||
        fail "no snapshot records after vftr-snap"
else
    fail "vftr-snap: $(head -2 snap.err)"
fi
# every tool takes the run directory: vftr-snap through the run's OTF
# trace (kept in run/vftr-otf/), the same output as on vfd2otf's
"$B/bin/vfd2otf" -q -o heatv run || fail "vfd2otf -o heatv run"
"$B/bin/vftr-snap" -q -n 10 -o heatr heatv 2>/dev/null
if "$B/bin/vftr-snap" -n 10 -o heats run 2>snaprun.err &&
   grep -q "converting the .vfd files once into run/vftr-otf/heat/heat.otf" snaprun.err &&
   cmp -s <(grep -av '^DUI' heatr.0.def) <(grep -av '^DUI' heats.0.def) &&
   cmp -s heatr.1.snaps heats.1.snaps && cmp -s heatr.1.events heats.1.events; then
    pass "vftr-snap -o on the run directory: what it writes on vfd2otf's trace"
else
    fail "vftr-snap run: $(head -3 snaprun.err)"
fi

# vftr-tui on the run directory (tmux as the terminal): the run's OTF trace
# is reused, ranks and threads as users name them, times with units, the
# imbalance as a percentage, 80 columns
if command -v tmux >/dev/null; then
    S=first-hour-$$
    tmux -L "$S" new-session -d -s tui -x 80 -y 30 "TERM=xterm $B/bin/vftr-tui run 2>tui.err; sleep 30"
    pane=
    for _ in $(seq 100); do
        sleep 0.1
        pane=$(tmux -L "$S" capture-pane -t tui -p)
        grep -q '^> ' <<<"$pane" && break
    done
    tmux -L "$S" kill-server 2>/dev/null
    grep -q '^heat  \[0 s, [0-9.]* [mun]*s)  cursor 0 s  depth 1  sampled' <<<"$pane" &&
        pass "vftr-tui run: opens the run at once (sampled, from its kept trace)" ||
        fail "vftr-tui run: $(head -2 <<<"$pane"; cat tui.err 2>/dev/null | head -2)"
    grep -q converting tui.err && fail "vftr-tui run: converted again (vftr-snap made the trace)"
    grep -Eq '^[- ]?rank 1 +\|' <<<"$pane" && grep -Eq '^ +rank 1 thread 1 *\|' <<<"$pane" &&
        pass "vftr-tui run: rows 'rank 1' and 'rank 1 thread 1'" ||
        fail "vftr-tui run: rows named otherwise: $(grep '|' <<<"$pane" | head -4 | tr '\n' ';')"
    grep -Eq '^[> ] +[0-9.]+ (ns|us|ms|s) +[0-9.]+ (ns|us|ms|s) +[0-9]+ +[0-9.]+%  . ' <<<"$pane" &&
        pass "vftr-tui run: profile times with units, imbalance in percent" ||
        fail "vftr-tui run: profile rows: $(grep '^>' <<<"$pane")"
    awk 'length($0) > 80 { bad = 1 } END { exit bad }' <<<"$pane" &&
        pass "vftr-tui run: within 80 columns" || fail "vftr-tui run: a line wider than 80"
fi
"$B/bin/vftr-stats" run/*.log >/dev/null 2>log.err
grep -q "a text file (its first line: .*), not a trace" log.err &&
    pass "vftr-stats on a .log file: a text file, not a trace" || fail "vftr-stats on the log: $(cat log.err)"

# 6. vftr-convert to Chrome JSON: thread names as users know them
if "$B/bin/vftr-convert" -o heat.json heat 2>conv.err; then
    pass "vftr-convert -o heat.json heat"
else
    fail "vftr-convert: $(head -2 conv.err)"
fi

# 7. one meaning per letter: the same -j in vftr-stats and vfd2otf
a=$("$B/bin/vftr-stats" --csv -j 2 heat | md5sum)
b=$("$B/bin/vftr-stats" --csv --jobs 2 heat | md5sum)
[ "$a" = "$b" ] && pass "vftr-stats -j 2 is --jobs 2" || fail "vftr-stats -j differs from --jobs"
"$B/bin/vfd2otf" -q -o heat1 run && "$B/bin/vfd2otf" -q -j 2 -o heat2 run &&
    cmp -s heat1.0.def heat2.0.def &&
    pass "vfd2otf -j 2 is --jobs 2 (same definitions)" || fail "vfd2otf -j 2"
exit $failed
