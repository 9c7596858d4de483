#!/bin/bash
# capture_files.sh — file names: a .tmpvfd name that exists already (two
# nodes' processes with the same pid in one directory) is never
# overwritten, another name is chosen; a fork()ed child writes its own file
# or none, never into the parent's; the basename can be set.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_fib" "$CAPDIR/cap_fork"

# ---- pid clash: the shell creates cap_fib_<its pid>.tmpvfd, then execs
# vftr-run, which execs the program with the same pid.
d=$cap_tmp/clash
mkdir -p "$d"
(cd "$d" && timeout -s KILL "$RUN_TIMEOUT" sh -c \
    'echo sentinel >"$1/cap_fib_$$.tmpvfd"; echo $$ >"$1/.shellpid"; exec "$2" --out "$1" -- "$3" 20' \
    sh "$d" "$VFTR_RUN" "$CAPDIR/cap_fib" >.stdout 2>.stderr; echo $? >.rc)
check "pid clash: exit status" 0 "$(cat "$d/.rc")"
spid=$(cat "$d/.shellpid")
check "pid clash: the existing file is left alone" sentinel "$(cat "$d/cap_fib_$spid.tmpvfd")"
if vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd"; then
    check "pid clash: the program ran with the clashing pid" "$spid" "$(vkey "$vfd" pid)"
    check "pid clash: the trace is complete" 1 "$(vkey "$vfd" complete)"
    check "pid clash: fib(20) enters" 21891 "$(venter "$vfd" fib)"
else
    fail "pid clash: no readable .vfd $vfd"; show "$d/.stderr"
fi

# ---- fork: parent 2000 step calls, child 1000 of its own
d=$cap_tmp/fork
vrun "$d" "$CAPDIR/cap_fork" 1000
check "fork: exit status" 0 "$(cat "$d/.rc")"
ppid_=$(awk '$1 == "parent" { print $2 }' "$d/.stdout")
cpid=$(awk '$1 == "child" { print $2 }' "$d/.stdout")
found_parent=0
for f in $(find "$d" -maxdepth 1 \( -name '*.vfd' -o -name '*.tmpvfd' \) | sort); do
    if ! vfdc "$f"; then fail "fork: $(basename "$f") is not readable"; verr "$f" | show; continue; fi
    check "fork: $(basename "$f") has no corrupt chunk" 0 "$(vkey "$f" errors)"
    check "fork: $(basename "$f") has no skipped chunk" 0 "$(vkey "$f" warnings)"
    case $(vkey "$f" pid) in
        "$ppid_")
            found_parent=1
            check "fork: parent's file complete" 1 "$(vkey "$f" complete)"
            check "fork: parent's file holds the parent's 2000 step enters" 2000 "$(venter "$f" step)"
            check "fork: parent's file: 2000 exits" 2000 "$(vexit "$f" step)"
            check "fork: parent's file balanced" 0 "$(vkey "$f" unbalanced)" ;;
        "$cpid")
            check "fork: child's own file holds only its 1000 step enters" 1000 "$(venter "$f" step)" ;;
        *)
            fail "fork: $(basename "$f") belongs to pid $(vkey "$f" pid), neither parent ($ppid_) nor child ($cpid)" ;;
    esac
done
check "fork: the parent's trace is there" 1 "$found_parent"
check "fork: nothing from vftr on stderr" 0 "$(vftr_lines "$d")"

# ---- basename from the environment
d=$cap_tmp/base
VFTR_OUTFILE_BASENAME=myrun vrun "$d" "$CAPDIR/cap_fib" 15
check "basename: myrun_0.vfd" 1 "$(find "$d" -name 'myrun_0.vfd' | wc -l)"
check "basename: myrun_0.log" 1 "$(find "$d" -name 'myrun_0.log' | wc -l)"

finish
