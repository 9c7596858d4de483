#!/bin/bash
# stats_window_wait.sh — a time window inside calls that enclose it (issue
# 14, item 9): test/mpi/mpi_wait on 3 ranks, rank 0 computing for 150 ms
# while ranks 1 and 2 wait for it in MPI_Allreduce, three times.  The
# window is the middle half of rank 1's second wait, read off the trace:
# no event of any rank lies in it.  By hand, for its length W: MPI_Allreduce
# 2 W exclusive (ranks 1 and 2), compute W (rank 0), main 3 W inclusive
# and nothing exclusive, no call (every call began before the window).
# The same on every route: the .vfd run, its conversion (read from the
# start) and a conversion with snapshots and summaries.
set -u
: "${BUILD:=build}"
export LC_ALL=C
B=$BUILD/bin
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi; }
PROG=$BUILD/test/mpi/mpi_wait
if ! command -v mpirun >/dev/null || [ ! -x "$PROG" ]; then
    echo "SKIP: no mpirun or no $PROG"
    pass "nothing to run here"
    exit 0
fi
# under ASan, Open MPI's leaks at exit are not the test's (as test/mpi/common.sh)
. "$(cd "$(dirname "$0")" && pwd)/../sanitizers.sh"
san_env "$BUILD/lib/libvftrcapture.so"   # test/sanitizers.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stats_window_wait.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/run"
VFTR_CONTROL_ACTIVE=false timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 \
    "$B/vftr-run" --out "$tmp/run" -- "$PROG" "$tmp/run" 150 >"$tmp/out" 2>&1 \
    || { fail "mpirun mpi_wait: $(head -3 "$tmp/out")"; exit 1; }
"$B/vfd2otf" -q -o "$tmp/t" "$tmp/run" && "$B/vfd2otf" -q --all -n 10 -o "$tmp/ta" "$tmp/run" \
    || { fail "vfd2otf"; exit 1; }

# rank 1 (process 2): its second MPI_Allreduce, from the events
fn=$("$B/vftr-dump" -d "$tmp/t" | sed -n 's/^DefFunction .* func=\([0-9]*\) name="MPI_Allreduce" .*/\1/p')
read -r first e l <<<"$("$B/vftr-dump" -e "$tmp/t" | awk -v f="$fn" '
    NR == 1 { first = $1 }
    $2 == 2 && $3 == "Enter" && $4 == "function=" f { n++; if (n == 2) e = $1 }
    $2 == 2 && $3 == "Leave" && $4 == "function=" f && e && !l { l = $1 }
    END { print first, e, l }')"
if [ -z "${l:-}" ]; then fail "no second MPI_Allreduce of rank 1 in the trace"; exit 1; fi
w=$(( (l - e) / 2 ))
a=$(( e - first + (l - e) / 4 ))
b=$(( a + w ))
inside=$("$B/vftr-dump" -e -t "$a:$b" "$tmp/t" | wc -l)
check "the window [$a, $b) holds no event (a wait of $(( (l - e) / 1000000 )) ms)" 0 "$inside"

# calls, exclusive and inclusive seconds per function, as vftr-stats prints
# them (to the microsecond)
prof() {
    "$B/vftr-stats" --csv -t "$a:$b" "$1" |
        awk -F, 'NR > 1 && ($2 > 0 || $4 > 0) { print $12, $1, $2, $4 }' | sort
}
s() { awk -v n="$1" 'BEGIN { printf "%.6f", n / 1e9 }'; }
want=$(printf '%s\n' "MPI_Allreduce 0 $(s $((2 * w))) $(s $((2 * w)))" "compute 0 $(s $w) $(s $w)" \
                      "main 0 0.000000 $(s $((3 * w)))" | sort)
check "the .vfd run: the window by hand" "$want" "$(prof "$tmp/run")"
check "the conversion (events from the start): the window by hand" "$want" "$(prof "$tmp/t")"
check "the conversion with snapshots and summaries: the window by hand" "$want" "$(prof "$tmp/ta")"
exit $failed
