#!/bin/bash
# logcalls.sh — reading profile logs in the test scripts (sourced by
# test/capture/common.sh and by scripts that use test/mpi/common.sh).

# logrows LOG: the profile table's rows as "FUNCTION<TAB>CALLER<TAB>CALLS<TAB>
# EXCL<TAB>INCL" (CALLER "-" for a root), columns found by their headers, so
# names with blanks work.  The one reading of a log's table in the tests.
logrows() {
    awk '
        /^Profile: / { inprof = 1; next }
        inprof && /^ *Calls / { fs = index($0, "Function"); cs = index($0, "Caller")
                                pe = index($0, "Call path"); next }
        inprof && /^-/ { next }
        inprof && fs && /^$/ { exit }
        inprof && fs {
            # names may hold blanks (C++, OpenMP regions): a column ends
            # where the next one begins
            f = substr($0, fs, cs - fs); sub(/ +$/, "", f)
            c = pe ? substr($0, cs, pe - cs) : substr($0, cs); sub(/ +$/, "", c)
            if (c == "") c = "-"
            printf "%s\t%s\t%s\t%s\t%s\n", f, c, $1, $2, $3
        }' "$1"
}

# logcalls LOG NAME: sum of the Calls column of the profile table's rows
# whose Function is NAME (all its call paths), "absent" when there is none.
logcalls() {
    logrows "$1" | awk -F'\t' -v n="$2" '$1 == n { s += $3; seen = 1 }
                                          END { print seen ? s : "absent" }'
}

# logline LOG LABEL: the value of a line "  LABEL   value" of the log's run
# section ("" when absent).
logline() {
    awk -v l="$2" '/^Profile: / { exit }
        index($0, "  " l " ") == 1 { v = substr($0, 3 + length(l)); sub(/^ +/, "", v); print v; exit }' "$1"
}
