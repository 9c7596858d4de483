#!/bin/bash
# snap_limits.sh — vftr-snap and vfd2otf's snapshot options stay within what
# the trace can hold and leave nothing behind (issue 14, item 6):
#
# 1. More breaks than the trace can hold: exit 2 at once, the maximum named,
#    nothing written.  The maximum is checked against the trace: its span
#    (vftr-dump's DefTimeRange: last - first + 1 ticks) for vftr-snap, or on
#    a sparse trace a quarter of its event file's bytes, never fewer than
#    the distinct event times it really has; for
#    vfd2otf on mkvfd's "basic" run, at least the distinct event times the
#    converted trace really has (counted with vftr-dump) and at most its
#    span, and -n of those distinct times is accepted.
# 2. The size estimate: -n 500000 on snapgen's trace is refused before
#    anything is written, with the estimate in the message; its records per
#    break are checked against those of a real run (-n 20, counted with
#    vftr-dump --count) to within a factor of two.
# 4. vfd2otf: the same bound and estimate (16 ranks of mkvfd's "big" run,
#    -n 100000: about half a GiB estimated), before anything is written.
# 3. SIGINT, SIGTERM and SIGHUP in the middle of a long run (--force past
#    the limit): the tool dies of the signal, no temporary file is left and
#    the trace is byte for byte as it was (sha256sum; otfprint, the
#    reference's printer, once); with -j 2 (the signal sent to the parent
#    only) and with --script too.
set -u
# A tool that lost its bounds would fill the disk: no file above 100 MiB
# (the longest run here writes about 40 MiB per file), no refused run
# longer than 20 s.
ulimit -f 102400
: "${BUILD:=build}"
case "$BUILD" in /*) B=$BUILD ;; *) B=$PWD/$BUILD ;; esac
SNAP="$B/bin/vftr-snap"
# The signals these checks send, at their default in the tool even when this
# script was started with them ignored (nohup; a shell's background job
# ignores SIGINT), which the tool rightly keeps ignored.
SIGDFL=
env --default-signal=INT true 2>/dev/null && SIGDFL="env --default-signal=INT,HUP,TERM"
DUMP="$B/bin/vftr-dump"
V2O="$B/bin/vfd2otf"
work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

# The files of a directory with their sizes, and the trace's checksums.
listing() { (cd "$1" && ls -l --time-style=+ | awk 'NR > 1 { print $5, $NF }'); }
sums() { (cd "$1" && sha256sum t.*); }
no_tmp() { ! ls "$1" | grep -q 'vftr-snap-'; }

big="$work/big"
mkdir -p "$big"
"$B/test/snap/vftr/snapgen" "$big/t" 8 4 600000 3 >/dev/null || fail "snapgen failed"
"$SNAP" --all -n 20 "$big/t" || fail "vftr-snap -n 20 failed"
sums "$big" >"$work/big.sum"
listing "$big" >"$work/big.ls"
read -r first last < <("$DUMP" -d "$big/t" |
    sed -n 's/^DefTimeRange .*minTime=\([0-9]*\) maxTime=\([0-9]*\).*/\1 \2/p')
span=$((last - first + 1))
unchanged() {
    (cd "$big" && sha256sum -c --quiet "$work/big.sum") && diff "$work/big.ls" <(listing "$big") >/dev/null
}

# -- 1. the bound -------------------------------------------------------------
start=$(date +%s)
timeout 20 "$SNAP" --all -n 100000000 "$big/t" 2>"$work/n.err"
rc=$?
secs=$(($(date +%s) - start))
check "-n 100000000: exit 2 at once (${secs}s)" bash -c "[ $rc -eq 2 ] && [ $secs -le 5 ]"
check "-n 100000000: the message names the maximum, $span (the ticks of [$first, $last])" \
    grep -q "t.otf: -n 100000000 asks for more breaks than the trace can hold: at most $span " "$work/n.err"
check "-n 100000000: nothing written, the trace unchanged" unchanged
timeout 20 "$SNAP" --statistics -n $((span + 1)) "$big/t" 2>"$work/n1.err"
check "-n span+1: exit 2, refused by the bound" \
    bash -c "[ $? -eq 2 ] && grep -q 'at most $span ' '$work/n1.err'"
timeout 20 "$SNAP" --statistics --period 0.4us "$big/t" 2>"$work/p.err"
check "-p shorter than a tick (1 us): exit 2, the tick named" \
    bash -c "[ $? -eq 2 ] && grep -q 'shorter than one tick of the trace (1 us)' '$work/p.err'"
check "-n and -p refused: the trace unchanged" unchanged

# A sparse trace (test/snap/snaptext): 10 calls of 500 ticks, one every
# 1000, so 20 distinct event times over 9501 ticks.  The event file vouches
# for at most a quarter of its bytes: fewer than the ticks, no fewer than 20.
sparse="$work/sparse"
mkdir -p "$sparse"
{ echo "streams 1"; echo "proc 1 1"
  for k in 1 2 3 4 5 6 7 8 9 10; do echo "E $((k * 1000)) 1 1"; echo "L $((k * 1000 + 500)) 1 1"; done
} | "$B/test/snap/vftr/snaptext" "$sparse/t" || fail "snaptext failed"
quarter=$(( $(stat -c %s "$sparse/t.1.events") / 4 ))
timeout 20 "$SNAP" --all -n 1000 "$sparse/t" 2>"$work/sp.err"
rc=$?
check "sparse trace, -n 1000: exit 2, at most $quarter (a quarter of the event file's bytes)" \
    bash -c "[ $rc -eq 2 ] && grep -q 'at most $quarter distinct event times' '$work/sp.err'"
check "sparse trace: that maximum lies between its 20 event times and its 9501 ticks" \
    bash -c "[ $quarter -ge 20 ] && [ $quarter -lt 9501 ]"
timeout 20 "$SNAP" --all -n 20 "$sparse/t"
check "sparse trace, -n 20 (its event times): accepted" [ $? -eq 0 ]

# -- 2. the estimate ----------------------------------------------------------
# records per break of the -n 20 run: 20 breaks of summaries, 19 or 20 of
# snapshots (none at the final one)
recs=$("$DUMP" --count "$big/t" | awk '/Snapshot|Summary/ { n += $2 } END { print n }')
per=$((recs / 20))
timeout 20 "$SNAP" --all -n 500000 "$big/t" 2>"$work/e.err"
rc=$?
check "-n 500000: exit 2, refused before writing" bash -c "[ $rc -eq 2 ] && grep -q 'estimated at [0-9.]* GiB (500000 breaks' '$work/e.err'"
est=$(sed -n 's/.*about \([0-9]*\) records per break.*/\1/p' "$work/e.err")
check "-n 500000: estimate of ${est:-?} records per break, measured $per (within 2x)" \
    bash -c "[ -n '$est' ] && [ \$(( $est * 2 )) -ge $per ] && [ $est -le \$(( $per * 2 )) ]"
check "-n 500000: the message says how to go on (--force)" grep -q -- '--force' "$work/e.err"
check "-n 500000: nothing written, the trace unchanged" unchanged

# -- 3. signals ---------------------------------------------------------------
# Job control, so that a background job can be sent SIGINT (a script's
# background jobs otherwise ignore it, and vftr-snap keeps an ignored signal
# ignored).
set -m
# wait_tmp DIR PID: until the run writes its temporary files (and some
# snapshot records), or it ends.
wait_tmp() {
    local i
    for i in $(seq 1 1000); do
        if ls "$1" 2>/dev/null | grep -q "t.vftr-snap-$2.1.s"; then sleep 0.2; return 0; fi
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.01
    done
    return 1
}

# interrupt SIG NUM: a copy of the trace, a long run, the signal mid-run.
interrupt() {
    local sig=$1 num=$2 d="$work/sig-$1" attempt rc pid mid
    for attempt in 1 2 3; do
        rm -rf "$d"; mkdir -p "$d"; cp "$big"/t.* "$d"/
        $SIGDFL "$SNAP" --all -n 50000 --force "$d/t" 2>"$d.err" &
        pid=$!
        pids="$pids $pid"
        mid=0
        if wait_tmp "$d" $pid && kill -"$sig" $pid 2>/dev/null; then mid=1; fi
        wait $pid
        rc=$?
        [ $mid -eq 1 ] && [ $rc -ne 0 ] && break
    done
    check "SIG$sig mid-run: dies of the signal (exit $((128 + num)))" [ "$rc" -eq $((128 + num)) ]
    check "SIG$sig mid-run: says so" grep -q "t.otf: interrupted by SIG$sig; the trace is as it was" "$d.err"
    check "SIG$sig mid-run: no temporary file left" no_tmp "$d"
    check "SIG$sig mid-run: the trace byte for byte as it was" \
        bash -c "cd '$d' && sha256sum -c --quiet '$work/big.sum' && diff '$work/big.ls' <(cd '$d' && ls -l --time-style=+ | awk 'NR > 1 { print \$5, \$NF }') >/dev/null"
}
interrupt INT 2
interrupt TERM 15
interrupt HUP 1
check "after SIGINT: otfprint prints the trace as before" \
    timeout 60 bash -c "cmp -s <(otfprint '$big/t.otf' | grep -v 'processing time') <(otfprint '$work/sig-INT/t.otf' | grep -v 'processing time')"

# -j 2: SIGTERM to the parent reaches both jobs
for n in 1 2; do rm -rf "$work/j$n"; mkdir -p "$work/j$n"; cp "$big"/t.* "$work/j$n"/; done
$SIGDFL "$SNAP" -j 2 --all -n 50000 --force "$work/j1/t" "$work/j2/t" 2>"$work/j.err" &
pid=$!
pids="$pids $pid"
for i in $(seq 1 1000); do
    if ls "$work/j1" "$work/j2" | grep -c 'vftr-snap-.*\.1\.s' | grep -q 2; then break; fi
    sleep 0.01
done
sleep 0.2
kill -TERM $pid
wait $pid
rc=$?
sleep 0.3
echo "-j 2, SIGTERM: exit status $rc; the tool said:"; sed 's/^/    /' "$work/j.err"
check "-j 2, SIGTERM to the parent: exit 143, both jobs interrupted" \
    bash -c "[ $rc -eq 143 ] && [ \$(grep -c 'interrupted by SIGTERM' '$work/j.err') -eq 2 ]"
check "-j 2, SIGTERM: no job left running, no temporary file in either directory" \
    bash -c "! pgrep -f -- '[v]ftr-snap -j 2 --all -n 50000 --force $work/j1/t' >/dev/null && ! ls '$work/j1' '$work/j2' | grep -q vftr-snap-"
check "-j 2, SIGTERM: both traces unchanged" \
    bash -c "cd '$work/j1' && sha256sum -c --quiet '$work/big.sum' && cd '$work/j2' && sha256sum -c --quiet '$work/big.sum'"

# --script: the same
d="$work/script"
mkdir -p "$d"; cp "$big"/t.* "$d"/
printf '{ "jobs": [ { "trace": "%s", "breaks": 50000, "kinds": "all", "force": true } ] }\n' "$d/t" >"$work/jobs.json"
$SIGDFL "$SNAP" --script "$work/jobs.json" 2>"$work/s.err" &
pid=$!
pids="$pids $pid"
wait_tmp "$d" $pid
kill -INT $pid
wait $pid
rc=$?
check "--script, SIGINT: exit 130, no temporary file, the trace unchanged" \
    bash -c "[ $rc -eq 130 ] && ! ls '$d' | grep -q vftr-snap- && cd '$d' && sha256sum -c --quiet '$work/big.sum'"
set +m

# -- 4. vfd2otf -----------------------------------------------------------------
mkdir -p "$work/basic" "$work/v"
"$B/test/conv/mkvfd" basic "$work/basic" >/dev/null || fail "mkvfd basic failed"
"$V2O" -q -o "$work/v/plain" "$work/basic" || fail "vfd2otf basic failed"
distinct=$("$DUMP" -e "$work/v/plain" | awk '{ print $1 }' | grep -E '^[0-9]+$' | sort -u | wc -l)
read -r vfirst vlast < <("$V2O" -q --statistics -n 1 -o "$work/v/one" "$work/basic" &&
    "$DUMP" -d "$work/v/one" | sed -n 's/^DefTimeRange .*minTime=\([0-9]*\) maxTime=\([0-9]*\).*/\1 \2/p')
timeout 20 "$V2O" -q --all -n 100000000 -o "$work/v/x" "$work/basic" 2>"$work/v.err"
rc=$?
max=$(sed -n 's/.*can hold: at most \([0-9]*\) .*/\1/p' "$work/v.err")
check "vfd2otf -n 100000000: exit 2, a maximum named" bash -c "[ $rc -eq 2 ] && [ -n '$max' ]"
check "vfd2otf: the maximum ${max:-?} lies between the distinct event times ($distinct) and the span ($((vlast - vfirst + 1)))" \
    bash -c "[ -n '$max' ] && [ $distinct -gt 1 ] && [ '$max' -ge $distinct ] && [ '$max' -le $((vlast - vfirst + 1)) ]"
check "vfd2otf -n 100000000: nothing written" bash -c "! ls '$work/v' | grep -q '^x\.'"
timeout 20 "$V2O" -q --all -n "$distinct" -o "$work/v/d" "$work/basic"
check "vfd2otf -n <distinct event times>: accepted" [ $? -eq 0 ]
mkdir -p "$work/vbig"
"$B/test/conv/mkvfd" big "$work/vbig" 40000 16 >/dev/null || fail "mkvfd big failed"
timeout 20 "$V2O" -q --all -n 100000 -o "$work/v/e" "$work/vbig" 2>"$work/ve.err"
rc=$?
check "vfd2otf -n 100000: refused by the estimate, exit 2, nothing written" \
    bash -c "[ $rc -eq 2 ] && grep -q 'estimated at [0-9.]* MiB (10000[01] breaks' '$work/ve.err' && ! ls '$work/v' | grep -q '^e\.'"
# vfd2otf-mpi: rank 0 judges, every rank stops
if [ -x "$B/bin/vfd2otf-mpi" ] && command -v mpirun >/dev/null; then
    # Open MPI leaks at exit: no leak detection for an MPI program under ASan
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 60 mpirun --allow-run-as-root --oversubscribe -np 2 "$B/bin/vfd2otf-mpi" -q --all \
        -n 100000000 -o "$work/v/m" "$work/basic" >"$work/m.out" 2>&1
    rc=$?
    check "vfd2otf-mpi -n 100000000: exit 2 from every rank, the maximum named once, nothing written" \
        bash -c "[ $rc -eq 2 ] && [ \$(grep -c 'at most $max ' '$work/m.out') -eq 1 ] && ! ls '$work/v' | grep -q '^m\.'"
fi

[ "$fails" -eq 0 ]
