#!/bin/bash
# option_letters.sh — one meaning per short option letter across every vftr
# tool (issue 16).
#
# The expectations come from two independent places: the shared table of
# letters in lib/util/optletters.c (read here as text, not through the
# library) and what every installed tool prints for --help.  Checked:
#   1. across all tools, a letter always names the same long option, and
#      that option always takes an argument or never;
#   2. every "-X, --name" a tool shows is an entry of the table, and a long
#      option the table gives a letter is never shown without it;
#   3. the letters the issue names keep their one meaning: -j --jobs,
#      -p --process, -t --time (an A:B window), -n --breaks, -s --sort,
#      -c --config;
#   4. every --help has an "Exit status" section.
set -u
: "${BUILD:=build}"
export LC_ALL=C
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

TABLE=lib/util/optletters.c
# a sanitized build: vfd2otf-mpi's Open MPI is not (test/sanitizers.sh)
. "$(dirname "$0")/../sanitizers.sh"
san_env "$BUILD/lib/libvftrcapture.so"
TOOLS="vfd2otf vfd2otf-mpi vftr-convert vftr-stats vftr-snap vftr-dump vftr-report vftr-score vftr-tui vftr-run vftr-ctl vftr-config"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The table as "letter name has_arg" lines.
sed -nE "s/^ *\{ '(.)', \"([a-z0-9-]+)\", *([01]),.*/\1 \2 \3/p" "$TABLE" > "$tmp/table"
if [ "$(wc -l < "$tmp/table")" -lt 10 ]; then
    fail "cannot read the letter table from $TABLE"
    exit 1
fi
if [ -n "$(cut -d' ' -f1 "$tmp/table" | sort | uniq -d)" ] ||
   [ -n "$(cut -d' ' -f2 "$tmp/table" | sort | uniq -d)" ]; then
    fail "the table gives a letter or a name twice: $(cut -d' ' -f1,2 "$tmp/table" | tr '\n' ' ')"
else
    pass "the table gives each letter and each long name once"
fi

# Every tool's options as "tool letter name has_arg" (letter '-' for none).
: > "$tmp/seen"
for t in $TOOLS; do
    bin="$BUILD/bin/$t"
    if [ ! -x "$bin" ]; then
        case $t in vfd2otf-mpi) continue ;; esac     # built only with MPI
        fail "$t: not built"
        continue
    fi
    if ! "$bin" --help > "$tmp/$t.help" 2>&1; then
        fail "$t --help exits non-zero"
        continue
    fi
    if grep -q '^Exit status' "$tmp/$t.help"; then
        pass "$t --help has an exit-status section"
    else
        fail "$t --help has no 'Exit status' section"
    fi
    sed -nE 's/^  -(.), --([a-z0-9-]+)(=?)([^ ]*).*/\1 \2 \3/p; s/^      --([a-z0-9-]+)(=?)([^ ]*).*/- \1 \2/p' \
        "$tmp/$t.help" | while read -r letter name eq; do
        echo "$t $letter $name ${eq:+1}"
    done | sed -E 's/ $/ 0/' >> "$tmp/seen"
done

# 1. one long name per letter across all tools, one argument kind per name
bad=$(awk '$2 != "-" && $2 != "h" && $2 != "V" { k = $2; v = $3 " " $4
           if (k in m && m[k] != v) print "-" k ": " m[k] " (" t[k] ") and " v " (" $1 ")"
           else { m[k] = v; t[k] = $1 } }' "$tmp/seen")
if [ -z "$bad" ]; then
    pass "no letter means two things in two tools"
else
    fail "letters with two meanings: $bad"
fi

# 2. every shown pair is in the table; a table name is never shown letterless
bad=$(awk 'NR == FNR { L[$1] = $2 " " $3; N[$2] = $1; next }
           $2 == "h" || $2 == "V" { next }
           $2 != "-" && L[$2] != $3 " " $4 { print $1 ": -" $2 ", --" $3 " not in the table" }
           $2 == "-" && ($3 in N) { print $1 ": --" $3 " without its letter -" N[$3] }' \
          "$tmp/table" "$tmp/seen")
if [ -z "$bad" ]; then
    pass "every letter a tool shows is the table's"
else
    fail "$bad"
fi

# 3. the letters issue 16 names, by hand
for want in "j jobs 1" "p process 1" "t time 1" "n breaks 1" "s sort 1" "c config 1"; do
    set -- $want
    got=$(awk -v l="$1" '$2 == l { print $3 " " $4 }' "$tmp/seen" | sort -u)
    if [ "$got" = "$2 $3" ]; then
        pass "-$1 is --$2 in every tool that has it"
    else
        fail "-$1 stands for: $(echo "$got" | tr '\n' ';') (expected --$2)"
    fi
done
# -t takes the A:B window wherever it appears
if grep -hE '^  -t, ' "$tmp"/*.help | grep -qv -- '--time=A:B'; then
    fail "-t takes something other than a time window A:B: $(grep -hE '^  -t, ' "$tmp"/*.help | sort -u)"
else
    pass "-t is a time window A:B in every tool"
fi

# A letter a tool does not have is refused before any work: vftr-stats'
# old -c (CSV) is --csv now, since -c is --config wherever it appears.
if "$BUILD/bin/vftr-stats" -c x > /dev/null 2> "$tmp/err"; then
    fail "vftr-stats -c (unknown there) accepted"
elif grep -q "invalid option -- 'c'" "$tmp/err"; then
    pass "a letter a tool does not have is a usage error"
else
    fail "vftr-stats -c: $(cat "$tmp/err")"
fi

exit $failed
