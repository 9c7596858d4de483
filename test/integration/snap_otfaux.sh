#!/bin/bash
# snap_otfaux.sh — vftr-snap against the reference's otfaux, the anchor.
#
# Traces come from test/snap/snapgen (random but reproducible: nested and
# recursive calls, messages some of which are never received or go to
# processes on other streams, collectives of every type, complete and
# begin/end file operations, counters, equal time stamps, several processes
# per stream), written by the reference OTF library and by vftr's.  Each
# trace is copied twice; otfaux runs on one copy, vftr-snap on the other
# with the same options, and then the reference's otfprint prints both
# traces: definitions, snapshots and statistics must hold the same records
# (order aside; DefUniqueId aside, since a rewritten definition file gets a
# new one), and the thumbnails the same lines (order aside).
set -u
: "${BUILD:=build}"
case "$BUILD" in /*) B=$BUILD ;; *) B=$PWD/$BUILD ;; esac
SNAP="$B/bin/vftr-snap"
G="$B/test/snap/ref/snapgen"
V="$B/test/snap/vftr/snapgen"
TEXT_REF="$B/test/snap/ref/snaptext"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

for tool in otfaux otfprint; do
    command -v $tool >/dev/null || { echo "FAIL: $tool (reference OTF tools) not installed"; exit 1; }
done

# The records of a trace, one per line, prefixed by their section, sorted.
records() {
    otfprint "$1" 2>&1 | sed -E 's/^\(#[0-9]+\)[[:space:]]*//' | grep -v -e 'DefUniqueId' -e '^processing time:' |
        awk '/^(definitions|events|statistics|snapshots|markers):/ { sec = $0 } { print sec "|" $0 }' |
        LC_ALL=C sort
}

# compare NAME GENERATOR_CMD... -- OPTIONS...
compare() {
    local name=$1; shift
    local gen=()
    while [ "$1" != "--" ]; do gen+=("$1"); shift; done
    shift
    local a="$work/$name/ref" b="$work/$name/vftr"
    mkdir -p "$a" "$b"
    (cd "$a" && "${gen[@]}") >"$work/$name.gen.log" 2>&1 || { fail "$name: generator failed"; return; }
    cp "$a"/* "$b"/
    (cd "$a" && otfaux "$@" t.otf) >"$work/$name.otfaux.log" 2>&1 || { fail "$name: otfaux failed"; return; }
    # vftr-snap spells otfaux's -p as --period and -t as --at, and --at
    # counts from the first event (as every vftr time) where otfaux's -t is
    # an absolute time stamp: first is the earliest event time vftr-dump
    # prints
    local snapargs=() first
    first=$("$B/bin/vftr-dump" -e "$b/t.otf" | awk '$1 ~ /^[0-9]+$/ && (m == "" || $1 < m) { m = $1 } END { print m + 0 }')
    while [ $# -gt 0 ]; do
        case $1 in
            -p) snapargs+=(--period "$2"); shift 2 ;;
            -t) snapargs+=(--at "$(($2 - first))"); shift 2 ;;
            *) snapargs+=("$1"); shift ;;
        esac
    done
    if ! (cd "$b" && "$SNAP" "${snapargs[@]}" t.otf) >"$work/$name.snap.log" 2>&1; then
        fail "$name: vftr-snap ${snapargs[*]} failed: $(head -n 2 "$work/$name.snap.log")"
        return
    fi
    set -- "${snapargs[@]}"
    records "$a/t.otf" >"$work/$name.ref.txt"
    records "$b/t.otf" >"$work/$name.vftr.txt"
    local n
    n=$(grep -c -E '^(snapshots|statistics):\|[0-9]' "$work/$name.ref.txt")
    if ! diff "$work/$name.ref.txt" "$work/$name.vftr.txt" >"$work/$name.diff"; then
        fail "$name ($*): records differ from otfaux's: $(head -n 4 "$work/$name.diff" | tr '\n' ' ')"
    elif [ "$n" -eq 0 ] && ! echo "$*" | grep -q -- '--thumbnail'; then
        fail "$name ($*): otfaux wrote no snapshot or statistics record (a test that cannot fail)"
    else
        pass "$name ($*): same $n snapshot and statistics records and definitions as otfaux"
    fi
    if [ -f "$a/t.thumb" ] || [ -f "$b/t.thumb" ]; then
        if [ -f "$a/t.thumb" ] && [ -f "$b/t.thumb" ] &&
           diff <(LC_ALL=C sort "$a/t.thumb") <(LC_ALL=C sort "$b/t.thumb") >/dev/null; then
            pass "$name ($*): same thumbnail ($(wc -l <"$a/t.thumb") lines)"
        else
            fail "$name ($*): thumbnails differ"
        fi
    fi
}

compare small-all "$G" t 4 2 400 1 -- --all -n 4
compare many-breaks "$G" t 9 4 20000 5 -- --all -n 50
compare period-and-times "$G" t 5 2 5000 3 -- --all -p 37 -t 2000 -t 2001
compare n-beats-p "$G" t 12 5 30000 1 -- --all -n 30 -p 500
compare p-beats-n "$G" t 4 2 6000 2 -- --all -n 3 -p 300
compare groups "$G" t 5 2 5000 4 -- --statistics --funcgroups --filegroups -n 9
compare default "$G" t 7 7 4000 8 --
compare snapshots-only "$G" t 3 1 4000 9 -- --snapshots -n 30
compare one-stream-many-procs "$G" t 16 1 8000 6 -- --all -n 11
compare vftr-written "$V" t 6 3 6000 12 -- --all -n 13

# Hand-built: every collective type, file operations by handle, counters,
# a message to a process on another stream received exactly at a break.
cat >"$work/hand.txt" <<'EOF'
streams 2
proc 1 1
proc 2 1
proc 3 2
E 100 1 1
E 100 2 1
E 100 3 1
C 105 1 1 1 1 10 20 3
C 105 2 2 1 1 10 20 3
C 105 3 3 2 3 10 20 3
C 106 1 4 1 2 10 20 3
C 106 2 5 1 2 10 20 3
C 106 3 5 2 3 0 0 3
BC 110 1 2 7 1 1 16 8
BC 110 2 3 8 1 1 16 8
BC 110 3 4 9 2 3 16 8
EC 130 1 7
EC 130 2 8
EC 130 3 9
F 140 1 1 11 0 0 2
F 141 1 1 11 2 100 2
F 142 1 1 11 3 50 2
F 143 1 1 11 4 0 2
F 144 2 2 12 0 0 2
F 145 3 3 13 0 0 2
BF 150 1 21
BF 150 2 22
EF 170 1 1 21 11 2 30
EF 170 2 2 22 31 0 0
BF 175 1 23
EF 178 1 1 23 11 1 0
S 180 1 3 1 5 64
S 181 3 1 2 6 32
R 182 3 1 1 5 64
CNT 186 1 1 500
CNT 187 1 2 7
CNT 188 3 1 9
R 190 1 3 2 6 32
L 200 1 1
L 200 2 1
L 200 3 1
EOF
compare hand-built bash -c "'$TEXT_REF' t < '$work/hand.txt'" -- --all -t 120 -t 160 -t 182 -t 195

[ "$fails" -eq 0 ]
