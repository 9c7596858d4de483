#!/bin/bash
# ctl_mpi.sh — external control of a 4-rank job under mpirun (issue 8):
# vftr-ctl list names the four ranks and their job; the whole job is
# queried and steered through vftr-ctl --job (the node's master): the
# aggregated profile has the calls of all ranks (rank r makes (r+1) x 2000
# calls, so min / avg / max and the imbalance are known), one rank's stack
# through --rank, and pause / resume of the whole job leaves every rank's
# trace balanced with no event in the paused span.  Then a 2-rank MPI job
# (test/ctl/ctl_prog_mpi: an MPI_Allreduce in every beta call, 2 spinning
# threads per rank) paused and resumed through --job while its ranks wait
# in a known function (issue 14): per rank the trace is balanced, no call
# path begins after its parent returned, no caller is invented (an MPI
# call under a function that had returned), the log counts what the
# program made while recording ran plus one call per frame open at the
# resume, and equals vftr-stats on that rank's converted trace.
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

# ------------------------------------------- a 2-rank MPI job with threads
REAL_EDGES='- main|- spin_here|main alpha|main gamma_|alpha beta|gamma_ beta|main wait_here|wait_here touch|wait_here exists|main wait_there|wait_there touch|wait_there exists|spin_here spin_leaf|beta MPI_Allreduce|main MPI_Init_thread|main MPI_Finalize'
invented() { tr ' ' '\n' <<<"$*" | paste -d' ' - - | grep -vxE -e "$REAL_EDGES" | tr '\n' ';'; }
if [ -x "$CTLDIR/ctl_prog_mpi" ]; then
    . "$(cd "$(dirname "$0")" && pwd)/../sanitizers.sh"
    san_env "$cap_build/lib/libvftrcapture.so"   # test/sanitizers.sh
    w=$cap_tmp/mjob
    out=$w/out
    mkdir -p "$out"
    timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -n 2 \
        -x VFTR_CONTROL_SOCKET_DIR="$sock" -x VFTR_LOGFILE_FOR_RANKS=all \
        "$VFTR_RUN" --out "$out" -- "$CTLDIR/ctl_prog_mpi" "$w" 3 1000 2 \
        >"$out/.stdout" 2>"$out/.stderr" &
    bg=$!
    if wait_files "$w/ready.*.1" 2; then
        mjob=$(ctl --json list | python3 -c 'import json,sys
print(json.load(sys.stdin)["processes"][0]["job"])')
        check "mpi job: pause, two OK" 2 "$(ctl --job "$mjob" pause | grep -c 'OK paused')"
        touch "$w/go.1"
        wait_files "$w/ready.*.2" 2 || fail "mpi job: step 2 never reached"
        check "mpi job: resume, two OK" 2 "$(ctl --job "$mjob" resume | grep -c 'OK resumed')"
    else
        fail "mpi job: step 1 never reached"; show "$out/.stderr"
    fi
    touch "$w/go.1" "$w/go.2" "$w/go.3"
    wait "$bg"
    check "mpi job: mpirun exit status" 0 $?
    for r in 0 1; do
        vfd=$out/ctl_prog_mpi_$r.vfd
        log=$out/ctl_prog_mpi_$r.log
        if [ -f "$vfd" ] && "$VFDCOUNT" --edges "$vfd" >"$w/count.$r" 2>&1; then
            check "mpi rank $r: balanced, no call path begun after its parent returned" "0 0 0 0" \
                  "$(awk '$1 == "errors" || $1 == "unbalanced" || $1 == "open" || $1 == "misparented" { printf "%s%s", s, $2; s = " " }' "$w/count.$r")"
            check "mpi rank $r: no invented caller in the trace" "" \
                  "$(invented $(awk -F'\t' '$1 == "edge" { print $2, $3 }' "$w/count.$r"))"
            check "mpi rank $r: no invented caller in the log" "" \
                  "$(invented $(logedges "$log" | awk '{ print $1, $2 }'))"
            # steps 1 and 3 recorded: 2000 alpha, beta and MPI_Allreduce,
            # wait_here twice; main, wait_there (step 2) and the two
            # spin_here open at the resume count one call each
            check "mpi rank $r: log calls alpha beta MPI_Allreduce gamma_ main wait_here wait_there spin_here" \
                  "2000 2000 2000 absent 2 2 1 4" \
                  "$(for f in alpha beta MPI_Allreduce gamma_ main wait_here wait_there spin_here; do logcalls "$log" "$f"; done | tr '\n' ' ' | sed 's/ $//')"
            check "mpi rank $r: no event inside the paused span" 0 \
                  "$("$CTLDIR/ctlspan" "$vfd" | awk '$1 == "in_pause" { print $2 }')"
            mkdir -p "$w/r$r" "$w/otf$r"
            ln -sf "$vfd" "$w/r$r/"
            if "$cap_build/bin/vfd2otf" -q -o "$w/otf$r/t" "$w/r$r" 2>"$w/conv.$r"; then
                check "mpi rank $r: the log's profile equals vftr-stats on the converted trace" "" \
                      "$(log_vs_stats "$log" "$w/otf$r/t.otf")"
            else
                fail "mpi rank $r: vfd2otf: $(head -2 "$w/conv.$r")"
            fi
        else
            fail "mpi rank $r: no readable $vfd"; show "$out/.stderr"
        fi
    done
else
    skip "2-rank MPI job" "ctl_prog_mpi not built (no mpicc)"
fi

# Live message counts come from the MPI library (registered at MPI_Init);
# ctl_prog links no MPI, so for it the query says so.
if [ -x "$CTLDIR/ctl_mpimsg" ]; then
    # with a sanitized capture, the MPI library is loaded into the program:
    # Open MPI's own leaks at exit are not ours (as in test/mpi/common.sh)
    san_env "$cap_build/lib/libvftrcapture.so"   # test/sanitizers.sh
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
        # one table for the job, summed over the ranks, under a header
        check "messages: one header for the job" 1 \
              "$(grep -c "^MPI statistics of job $mjob (4 processes)" "$m/msg.txt")"
        check "messages: one total line" 1 "$(awk '$NF == "total"' "$m/msg.txt" | wc -l)"
        # each rank: 25 Sendrecv calls, each a send and a receive of 100 bytes
        check "messages: MPI_Sendrecv summed over 4 ranks: 100 calls, 200 messages, 20000 bytes" \
              "100 200 20000 4" "$(awk '$NF == "MPI_Sendrecv" { print $1, $2, $3, $5 }' "$m/msg.txt")"
        check "messages: total of the job: 200 messages, 20000 bytes, 4 processes" "200 20000 4" \
              "$(awk '$NF == "total" { print $1, $2, $3 }' "$m/msg.txt")"
        ctl --job "$mjob" --rank 2 messages >"$m/msg2.txt"
        check "messages --rank 2: that rank's 25 calls, 50 messages, 5000 bytes" "25 50 5000 1" \
              "$(awk '$NF == "MPI_Sendrecv" { print $1, $2, $3, $5 }' "$m/msg2.txt")"
        ctl --job "$mjob" --json messages >"$m/msg.json"
        check "messages --json: the row and the total" "100 200 20000 4 200 20000" \
              "$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); r=[r for r in d["messages"] if r["function"]=="MPI_Sendrecv"][0]
print(r["calls"], r["messages"], r["bytes"], r["processes"], d["total"]["messages"], d["total"]["bytes"])' "$m/msg.json")"
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
