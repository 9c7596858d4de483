#!/bin/bash
# bench/io/run.sh — the file I/O benchmark.  Runs bench/io/bioprog (blocks
# of lseek calls alternating between a descriptor it opened, which capture
# follows, and an inherited one, which it passes on; the ns per call of
# the fastest block of each) as
#   plain       without vftr
#   vftr        under vftr-run (trace written, io.active: one IO record per
#               call on the followed descriptor)
#   io-off      under vftr-run with io.active = false (every call passed on)
#   io-off-noctl  the same with control.active = false too (no control
#               thread: a process of one thread keeps the kernel's
#               single-threaded fast paths for descriptors)
# best of BENCH_IO_RUNS rounds (default 5; each round runs every variant
# once).  The cost of a recorded call is the followed time minus the
# passed one of the same process (the same system call, on the same machine
# at the same moments); the cost of a call passed on is the passed median
# under vftr minus plain's (two processes: noisier).  PASS or MISS against
# the target of issue 20: a recorded call < 100 ns above the call itself.
# Table also in $BUILD/bench/io.md.  Exit status 0 even with a MISS; 1
# when a run failed; 2 on a usage problem.
set -u
export LC_ALL=C

BUILD=${BUILD:-build}
CALLS=${BENCH_IO_CALLS:-20000}
BLOCKS=${BENCH_IO_BLOCKS:-50}
RUNS=${BENCH_IO_RUNS:-5}
[ -n "$CALLS" ] || CALLS=20000
[ -n "$BLOCKS" ] || BLOCKS=50
[ -n "$RUNS" ] || RUNS=5
PROG=$BUILD/bench/io/bioprog
VFTR_RUN=$BUILD/bin/vftr-run
OUT=$BUILD/bench/io.md
TARGET_NS=100

die() { echo "bench-io: $*" >&2; exit 2; }
for v in CALLS BLOCKS RUNS; do
    case "${!v}" in *[!0-9]*|0) die "BENCH_IO_$v must be a positive number" ;; esac
done
[ -x "$PROG" ] || die "$PROG missing (run 'make bench-io')"
[ -x "$VFTR_RUN" ] || die "$VFTR_RUN missing (run 'make')"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vftr_bench_io.XXXXXX") || die "cannot create a directory"
trap 'rm -rf "$WORK"' EXIT
for v in $(env | sed -n 's/^\(VFTR_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

declare -A BEST
failed=0

# least a b: the smaller number
least() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }

# one VARIANT: a run; keeps the least times in BEST[v:followed|passed|diff]
one() {
    local v=$1 dir=$WORK/$1 rc f p
    rm -rf "$dir"; mkdir -p "$dir"
    case $v in
        plain)  "$PROG" "$dir" "$CALLS" "$BLOCKS" >"$dir/out" 2>"$dir/err" 3>"$dir/inherited"
                rc=$? ;;
        vftr)   "$VFTR_RUN" --out "$dir" -- "$PROG" "$dir" "$CALLS" "$BLOCKS" >"$dir/out" \
                    2>"$dir/err" 3>"$dir/inherited"; rc=$? ;;
        io-off) VFTR_IO_ACTIVE=false "$VFTR_RUN" --out "$dir" -- "$PROG" "$dir" "$CALLS" \
                    "$BLOCKS" >"$dir/out" 2>"$dir/err" 3>"$dir/inherited"; rc=$? ;;
        io-off-noctl) VFTR_IO_ACTIVE=false VFTR_CONTROL_ACTIVE=false "$VFTR_RUN" --out "$dir" -- \
                    "$PROG" "$dir" "$CALLS" "$BLOCKS" >"$dir/out" 2>"$dir/err" 3>"$dir/inherited"
                rc=$? ;;
    esac
    if [ "$rc" != 0 ]; then
        echo "bench-io: $v failed: $(head -c 300 "$dir/err")" >&2
        failed=1
        return
    fi
    f=$(awk '$1 == "followed_ns" { print $2 }' "$dir/out")
    p=$(awk '$1 == "passed_ns" { print $2 }' "$dir/out")
    BEST[$v:followed]=$(least "$f" "${BEST[$v:followed]:-}")
    BEST[$v:passed]=$(least "$p" "${BEST[$v:passed]:-}")
    BEST[$v:diff]=$(least "$(awk -v f="$f" -v p="$p" 'BEGIN { printf "%.2f", f - p }')" \
                          "${BEST[$v:diff]:-}")
}

for ((r = 0; r < RUNS; r++)); do
    for v in plain vftr io-off io-off-noctl; do one "$v"; done
done
[ "$failed" = 0 ] || exit 1

sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }
verdict() { awk -v x="$1" -v t="$TARGET_NS" 'BEGIN { print (x < t ? "PASS" : "MISS") }'; }
rec=$(printf '%.1f' "${BEST[vftr:diff]}")
pass_vftr=$(sub "${BEST[vftr:passed]}" "${BEST[plain:passed]}")
pass_off=$(sub "${BEST[io-off:followed]}" "${BEST[plain:followed]}")
pass_noctl=$(sub "${BEST[io-off-noctl:followed]}" "${BEST[plain:followed]}")
{
    echo "# vftr file I/O benchmark"
    echo
    echo "lseek calls, $BLOCKS blocks of $CALLS per descriptor, fastest block; best of $RUNS rounds."
    echo
    echo "| measure | ns per call | target | verdict |"
    echo "|---|---|---|---|"
    echo "| the call itself (plain, followed descriptor) | $(printf '%.1f' "${BEST[plain:followed]}") | | |"
    echo "| recorded call above the call (vftr: followed - passed) | $rec | < $TARGET_NS | $(verdict "$rec") |"
    echo "| plain: followed - passed (should be about 0) | $(printf '%.1f' "${BEST[plain:diff]}") | | |"
    echo "| call passed on, above plain (vftr, inherited descriptor) | $pass_vftr | | |"
    echo "| io.active=false, above plain (the opened descriptor) | $pass_off | | |"
    echo "| io.active=false, control.active=false, above plain | $pass_noctl | | |"
    echo
    echo "The last three compare two processes and carry the machine's noise.  Most of what"
    echo "a call passed on costs is the control thread's: with a second thread the process"
    echo "loses the kernel's single-threaded fast path for descriptors (the last row has none)."
} >"$OUT"
cat "$OUT"
