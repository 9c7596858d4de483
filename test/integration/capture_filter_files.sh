#!/bin/bash
# capture_filter_files.sh — the SCOREP_FILE_NAMES rules of a Score-P filter
# file: a function is out when its source file is (the debug information's
# file of its entry, read through libdw once per function), as Score-P
# decides (file rules or region rules).  cap_files N has functions in two
# source files and a header and counts its own calls: main, a_work() N,
# a_leaf() 2N, h_step() N (cap_files.c and capfiles.h), b_work() N and
# b_leaf() 3N (capfiles_other.c).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_files" "$cap_build/bin/vftr-stats"

N=3000

# run NAME FILTER-TEXT: cap_files N under the filter; the directory's name
# is printed
run() {
    local d=$cap_tmp/$1
    printf '%s\n' "$2" >"$cap_tmp/$1.filt"
    VRUN_OPTS="--filter $cap_tmp/$1.filt" vrun "$d" "$CAPDIR/cap_files" $N
    echo "$d"
}

# expect WHAT DIR "NAME COUNT|absent ...": the run went well, and the log
# and the trace (vfdcount and vftr-stats) have each function as said
expect() {
    local what=$1 d=$2 log vfd fn want
    check "$what: exit status" 0 "$(cat "$d/.rc")"
    check "$what: nothing from vftr on stderr" 0 "$(vftr_lines "$d")"
    check "$what: the program's own counts" "$((2 * N)) $((3 * N))" \
        "$(pcount "$d" a_leaf) $(pcount "$d" b_leaf)"
    log=$(only_file "$d" '*_0.log') || { fail "$what: $log"; return; }
    vfd=$(only_file "$d" '*.vfd') && vfdc "$vfd" || { fail "$what: no readable .vfd"; return; }
    set -- $3
    while [ $# -ge 2 ]; do
        fn=$1 want=$2; shift 2
        check "$what: $fn in the profile" "$want" "$(logcalls "$log" "$fn")"
        [ "$want" = absent ] && want=0
        check "$what: $fn in the trace" "$want" "$(venter "$vfd" "$fn")"
    done
    check "$what: vftr-stats on the trace agrees with the log" "" "$(log_vs_stats "$log" "$vfd")"
}

# the other source file out, by a wildcard
d=$(run other 'SCOREP_FILE_NAMES_BEGIN
  EXCLUDE */capfiles_o*.c
SCOREP_FILE_NAMES_END')
expect "EXCLUDE */capfiles_o*.c" "$d" \
    "main 1 a_work $N a_leaf $((2 * N)) h_step $N b_work absent b_leaf absent"

# the Score-P manual's form: every file out, one back in; h_step() is
# defined in the header, which is not cap_files.c
d=$(run onlymain '# This is a comment
SCOREP_FILE_NAMES_BEGIN # the manual writes a comment here too
  EXCLUDE *
  INCLUDE */cap_files.c
SCOREP_FILE_NAMES_END')
expect "EXCLUDE * INCLUDE */cap_files.c" "$d" \
    "main 1 a_work $N a_leaf $((2 * N)) h_step absent b_work absent b_leaf absent"

# a header by its name ([...] and ? wildcards)
d=$(run header 'SCOREP_FILE_NAMES_BEGIN
  EXCLUDE */capfile[sx].?
SCOREP_FILE_NAMES_END')
expect "EXCLUDE */capfile[sx].?" "$d" \
    "main 1 a_work $N a_leaf $((2 * N)) h_step absent b_work $N b_leaf $((3 * N))"

# file and region rules together: out when either says so (a region rule
# cannot bring back a function of an excluded file)
d=$(run both 'SCOREP_FILE_NAMES_BEGIN
  EXCLUDE */capfiles_other.c
SCOREP_FILE_NAMES_END
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE a_leaf
  INCLUDE b_*
SCOREP_REGION_NAMES_END')
expect "file and region rules" "$d" \
    "main 1 a_work $N a_leaf absent h_step $N b_work absent b_leaf absent"

finish
