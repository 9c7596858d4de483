#!/bin/bash
# capture_outdir.sh — where a run's files go (share/doc/capture.md, "Where
# the files go"): vftr-run -o and output_directory make the directory with
# its parents; a second run into the same place never overwrites the first:
# its files move into <dir>/<base>.old/ (the run kept there before is
# replaced), with one message; files of another program and files of the
# same run (processes of one launcher job) stay where they are; a file in
# the way at the end is kept, not overwritten; the tools read the run in the
# directory and the one in .old as runs of their own.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_fib" "$cap_build/bin/vftr-stats" "$cap_build/bin/vfd2otf"
STATS=$cap_build/bin/vftr-stats

# runid LOG: the run id line of a log
runid() { logline "$1" "run id"; }
# run DIR ARGS...: cap_fib under vftr-run -o DIR (not made by the test)
run() {
    local dir=$1 rec=$2; shift 2
    mkdir -p "$rec"
    timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" --out "$dir" -- "$CAPDIR/cap_fib" "$@" \
        >"$rec/.stdout" 2>"$rec/.stderr"
    echo $? >"$rec/.rc"
}

# ---- -o makes the directory and its parents
o=$cap_tmp/out/a/b/c
run "$o" "$cap_tmp/r1" 18
check "-o a/b/c: exit status" 0 "$(cat "$cap_tmp/r1/.rc")"
check "-o a/b/c: made, with the run's files" "cap_fib_0.log cap_fib_0.vfd" \
    "$(cd "$o" 2>/dev/null && ls | tr '\n' ' ' | sed 's/ $//')"
check "-o a/b/c: no message" 0 "$(vftr_lines "$cap_tmp/r1")"
first=$(runid "$o/cap_fib_0.log")

# ---- a second run into the same place keeps the first in cap_fib.old/
run "$o" "$cap_tmp/r2" 19
second=$(runid "$o/cap_fib_0.log")
check "second run: the first run's files moved to cap_fib.old/" "cap_fib_0.log cap_fib_0.vfd" \
    "$(cd "$o/cap_fib.old" 2>/dev/null && ls | tr '\n' ' ' | sed 's/ $//')"
check "second run: the first run's log in .old (its run id)" "$first" \
    "$(runid "$o/cap_fib.old/cap_fib_0.log")"
check "second run: its own log in the directory (a new run id)" yes \
    "$([ -n "$second" ] && [ "$second" != "$first" ] && echo yes)"
check "second run: one message" 1 "$(vftr_lines "$cap_tmp/r2")"
check "second run: the message says where the earlier run went" 1 \
    "$(grep -c "2 files of an earlier run of cap_fib moved to $o/cap_fib.old/" "$cap_tmp/r2/.stderr")"
# the tools read each as a run: fib(19) and fib(18) (calls of fib: 2 F(n+1) - 1)
check "vftr-stats DIR: the second run" 13529 \
    "$("$STATS" --csv "$o" 2>/dev/null | awk -F, '$NF == "fib" { print $1 }')"
check "vftr-stats DIR/cap_fib.old: the first run" 8361 \
    "$("$STATS" --csv "$o/cap_fib.old" 2>/dev/null | awk -F, '$NF == "fib" { print $1 }')"

# vfd2otf takes the directory as the run in it, not the one in .old: the
# same events as the run's own file given alone
V2O=$cap_build/bin/vfd2otf
events() { "$V2O" -o "$cap_tmp/otf$2" "$1" 2>&1 | sed -n 's/.* \([0-9]*\) events,.*/\1/p'; }
check "vfd2otf DIR: the events of the run in DIR alone" "$(events "$o/cap_fib_0.vfd" a)" \
    "$(events "$o" b)"
check "vfd2otf DIR/cap_fib.old: the events of the earlier run" \
    "$(events "$o/cap_fib.old/cap_fib_0.vfd" c)" "$(events "$o/cap_fib.old" d)"

# ---- a third run: .old holds the second run, the first is gone
run "$o" "$cap_tmp/r3" 18
check "third run: .old holds the second run" "$second" "$(runid "$o/cap_fib.old/cap_fib_0.log")"
check "third run: the message says the run kept before is replaced" 1 \
    "$(grep -c "(in place of the run kept there before)" "$cap_tmp/r3/.stderr")"
check "third run: two runs on disk, no more" 4 "$(find "$o" -name 'cap_fib_*' | wc -l)"

# ---- another program's files and foreign files stay
o2=$cap_tmp/shared
mkdir -p "$o2"
: >"$o2/cap_fib_notes.txt"
: >"$o2/other_0.vfd"
run "$o2" "$cap_tmp/s1" 15
run "$o2" "$cap_tmp/s2" 15
check "another program's run and other files stay" "cap_fib.old cap_fib_0.log cap_fib_0.vfd cap_fib_notes.txt other_0.vfd" \
    "$(cd "$o2" && ls | tr '\n' ' ' | sed 's/ $//')"

# ---- the configuration's output_directory is made too
o3=$cap_tmp/cfg/x/y
echo "{ \"output_directory\": \"$o3\" }" >"$cap_tmp/cfg.json"
mkdir -p "$cap_tmp/c1"
VFTR_CONFIG=$cap_tmp/cfg.json timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" -- "$CAPDIR/cap_fib" 12 \
    >"$cap_tmp/c1/.stdout" 2>"$cap_tmp/c1/.stderr"
check "output_directory of the configuration: made" yes \
    "$([ -f "$o3/cap_fib_0.vfd" ] && [ -f "$o3/cap_fib_0.log" ] && echo yes)"

# ---- the processes of one launcher job (no MPI) are one run: rank 1 ends
# before rank 0 starts, and rank 0 leaves rank 1's files where they are; a
# later job moves both
o4=$cap_tmp/job
job() {   # job ID RANK REC
    mkdir -p "$3"
    PMIX_NAMESPACE=$1 PMIX_RANK=$2 PMIX_SIZE=2 timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" \
        --out "$o4" -- "$CAPDIR/cap_fib" 12 >"$3/.stdout" 2>"$3/.stderr"
}
job jobA 1 "$cap_tmp/j1"
job jobA 0 "$cap_tmp/j0"
check "one job: rank 0 keeps its fellow rank's files" "cap_fib_0.log cap_fib_0.vfd cap_fib_1.vfd" \
    "$(cd "$o4" && ls | tr '\n' ' ' | sed 's/ $//')"
check "one job: no message" 0 "$(vftr_lines "$cap_tmp/j0")"
job jobB 0 "$cap_tmp/k0"
check "the next job: the earlier job's files of both ranks moved" "cap_fib_0.log cap_fib_0.vfd cap_fib_1.vfd" \
    "$(cd "$o4/cap_fib.old" && ls | tr '\n' ' ' | sed 's/ $//')"

# ---- a file in the way at the end (another node's directory, where rank 0
# moved nothing) is kept in .old, not overwritten
o5=$cap_tmp/inway
mkdir -p "$o5"
echo "an earlier run's rank 2" >"$o5/cap_fib_2.vfd"
mkdir -p "$cap_tmp/w2"
PMIX_NAMESPACE=jobC PMIX_RANK=2 PMIX_SIZE=3 timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" \
    --out "$o5" -- "$CAPDIR/cap_fib" 12 >"$cap_tmp/w2/.stdout" 2>"$cap_tmp/w2/.stderr"
check "a file in the way is kept in .old" "an earlier run's rank 2" \
    "$(cat "$o5/cap_fib.old/cap_fib_2.vfd" 2>/dev/null)"
check "and the run's own file takes its name" yes \
    "$(head -c 4 "$o5/cap_fib_2.vfd" | od -An -c | grep -q 'V   F   D' && echo yes)"
finish
