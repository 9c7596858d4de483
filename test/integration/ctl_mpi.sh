#!/bin/bash
# ctl_mpi.sh — external control of a 4-rank job under mpirun (issue 8):
# vftr-ctl list names the four ranks and their job; the whole job is
# queried and steered through vftr-ctl --job (the node's master): the
# aggregated profile has the calls of all ranks (rank r makes (r+1) x 2000
# calls, so min / avg / max and the imbalance are known), one rank's stack
# through --rank, and pause / resume of the whole job leaves every rank's
# trace balanced with no event in the paused span.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../ctl/common.sh
. "$here/../ctl/common.sh"
require "$CTLDIR/ctl_prog" "$CTLDIR/ctlspan" "$CTL"
if ! command -v mpirun >/dev/null; then
    skip "4-rank job" "no mpirun"; finish
fi

wait_files() {   # wait_files PATTERN N: until N files match PATTERN
    local i
    for i in $(seq 1200); do
        [ "$(ls $1 2>/dev/null | wc -l)" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}

w=$cap_tmp/job
out=$w/out
mkdir -p "$out"
timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -n 4 \
    -x VFTR_CONTROL_SOCKET_DIR="$sock" -x CTL_PROG_SCALE=1 \
    "$VFTR_RUN" --out "$out" -- "$CTLDIR/ctl_prog" "$w" 3 2000 >"$out/.stdout" 2>"$out/.stderr" &
bg=$!
if ! wait_files "$w/ready.*.1" 4; then
    fail "the job never reached step 1"; show "$out/.stderr"; kill "$bg"; finish
fi
ctl --json list >"$w/list.json"
read -r n job ranks <<<"$(python3 -c 'import json,sys
p=json.load(open(sys.argv[1]))["processes"]
print(len(p), p[0]["job"] if p else "-", ",".join(str(x["rank"]) for x in p))' "$w/list.json")"
check "list: four processes" 4 "$n"
check "list: ranks 0-3" "0,1,2,3" "$ranks"
check "list: one job id for all" 1 "$(python3 -c 'import json,sys
print(len({x["job"] for x in json.load(open(sys.argv[1]))["processes"]}))' "$w/list.json")"
ctl status >/dev/null 2>"$w/amb.err"
check "without --job or --pid: exit 2, ambiguous" "2 1" "$? $(grep -c '4 captured processes run' "$w/amb.err")"

ctl --job "$job" --json profile >"$w/prof.json"
read -r calls procs mn mx imb <<<"$(python3 -c 'import json,sys
r=[r for r in json.load(open(sys.argv[1]))["profile"] if r["function"]=="alpha"][0]
print(r["calls"], r["processes"], r["excl_min"] > 0, r["excl_max"] >= r["excl_avg"] >= r["excl_min"], 0 < r["imbalance"] < 1)' "$w/prof.json")"
check "job profile: alpha calls summed over ranks (2000+4000+6000+8000)" 20000 "$calls"
check "job profile: four processes in the row" 4 "$procs"
check "job profile: min > 0, min <= avg <= max, 0 < imbalance < 1" "True True True" "$mn $mx $imb"
ctl --job "$job" profile >"$w/prof.txt"
check "job profile text: min/avg/max/imbal columns" 1 "$(grep -c 'min .*avg .*max .*imbal' "$w/prof.txt")"

ctl --job "$job" --rank 2 stacks >"$w/stacks.txt"
check "rank 2 stacks: one process" 1 "$(grep -c '^pid .* rank 2$' "$w/stacks.txt")"
check "rank 2 stacks: main > wait_here" 1 "$(grep -c 'thread 0 (tid [0-9]*): main > wait_here' "$w/stacks.txt")"

check "job pause: four OK" 4 "$(ctl --job "$job" pause | grep -c 'OK paused')"
touch "$w/go.1"
wait_files "$w/ready.*.2" 4 || fail "step 2 never reached"
check "job resume: four OK" 4 "$(ctl --job "$job" resume | grep -c 'OK resumed')"
touch "$w/go.2" "$w/go.3"
wait "$bg"
check "job: mpirun exit status" 0 $?
for r in 0 1 2 3; do
    vfd=$out/ctl_prog_$r.vfd
    if [ -f "$vfd" ] && vfdc "$vfd"; then
        check "rank $r: .vfd balanced" "0 0 0" \
              "$(vkey "$vfd" errors) $(vkey "$vfd" unbalanced) $(vkey "$vfd" open)"
        check "rank $r: alpha traced in steps 1 and 3" $(( 2 * 2000 * (r + 1) )) "$(venter "$vfd" alpha)"
        check "rank $r: gamma_ (paused) not traced" 0 "$(venter "$vfd" gamma_)"
        check "rank $r: a paused span without events" "1 0" \
              "$("$CTLDIR/ctlspan" "$vfd" | awk '$1 == "spans" { s = $2 } $1 == "in_pause" { p = $2 } END { print s, p }')"
    else
        fail "rank $r: no readable $vfd"
    fi
done
check "job: every endpoint removed" 0 "$(ls "$sock" | wc -l)"

# Live message counts come from the MPI library (registered at MPI_Init);
# ctl_prog links no MPI, so for it the query says so.
if [ -x "$CTLDIR/ctl_mpimsg" ]; then
    # with a sanitized capture, the MPI library is loaded into the program:
    # Open MPI's own leaks at exit are not ours (as in test/mpi/common.sh)
    case $(ldd "$cap_build/lib/libvftrcapture.so" 2>/dev/null) in
    *libasan*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" ;;
    esac
    m=$cap_tmp/msg
    mkdir -p "$m/out"
    timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -n 4 \
        -x VFTR_CONTROL_SOCKET_DIR="$sock" \
        "$VFTR_RUN" --out "$m/out" -- "$CTLDIR/ctl_mpimsg" "$m" 25 >"$m/.stdout" 2>"$m/.stderr" &
    bg=$!
    if wait_files "$m/sent.*" 4; then
        ctl --json list >"$m/list.json"
        mjob=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["processes"][0]["job"])' "$m/list.json")
        ctl --job "$mjob" messages >"$m/msg.txt"
        check "messages: a total line per rank" 4 "$(grep -c 'total' "$m/msg.txt")"
        # each rank: 25 Sendrecv calls, each a send and a receive of 100 bytes
        check "messages: MPI_Sendrecv of every rank: 25 calls, 50 messages, 5000 bytes" 4 \
              "$(awk '$1 == "mpi" && $2 == 25 && $3 == 50 && $4 == 5000 && $6 == "MPI_Sendrecv"' "$m/msg.txt" | wc -l)"
        check "messages: totals of every rank: 50 messages, 5000 bytes" 4 \
              "$(awk '$1 == "total" && $2 == 50 && $3 == 5000' "$m/msg.txt" | wc -l)"
    else
        fail "ctl_mpimsg never reached its wait"; show "$m/.stderr"
    fi
    touch "$m/go"
    wait "$bg"
    check "messages job: mpirun exit status" 0 $?
else
    skip "live message counts" "ctl_mpimsg not built (no mpicc)"
fi
finish
