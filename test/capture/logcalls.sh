#!/bin/bash
# logcalls.sh — reading profile logs in the test scripts (sourced by
# test/capture/common.sh and by scripts that use test/mpi/common.sh).

# logcalls LOG NAME: sum of the Calls column of the profile table's rows
# whose Function is NAME (all its call paths).  The Function column is found
# by its header, so names with blanks work.
logcalls() {
    awk -v n="$2" '
        /^Profile: / { inprof = 1; next }
        inprof && /^ *Calls / { fs = index($0, "Function"); cs = index($0, "Caller"); next }
        inprof && /^-/ { next }
        inprof && fs && /^$/ { exit }
        inprof && fs {
            f = substr($0, fs, cs - fs); sub(/ +$/, "", f)
            if (f == n) { s += $1; seen = 1 }
        }
        END { print seen ? s : "absent" }' "$1"
}

# logline LOG LABEL: the value of a line "  LABEL   value" of the log's run
# section ("" when absent).
logline() {
    awk -v l="$2" '/^Profile: / { exit }
        index($0, "  " l " ") == 1 { v = substr($0, 3 + length(l)); sub(/^ +/, "", v); print v; exit }' "$1"
}
