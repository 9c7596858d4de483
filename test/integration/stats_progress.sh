#!/bin/bash
# stats_progress.sh — vftr-stats's progress line on OTF and OTF2 input, as
# on a run's .vfd files (first_hour.sh checks those): drawn on a terminal
# (script(1) gives one) from 0 % to 100 % with the events counted, nothing
# with -q, nothing when stderr is no terminal.
#
# The trace: test/stats/stats_gen with 2 processes of 1000 iterations, whose
# events are counted by hand: per process main's Enter and Leave and 1000
# times work > leaf (4 events), 2 * (2 + 4 * 1000) = 8004 Enter and Leave
# events; its OTF2 conversion (vftr-convert) holds the same events.
set -u
: "${BUILD:=build}"
B=$BUILD/bin
GEN=$BUILD/test/stats/vftr/stats_gen
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

for f in "$B/vftr-stats" "$B/vftr-convert" "$GEN"; do
    [ -x "$f" ] || { fail "$f is not built"; exit 1; }
done
if ! command -v script >/dev/null; then
    echo "SKIP: script(1) is missing (bsdutils)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stats_progress.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$GEN" "$tmp/g" 2 1000 0 1 >/dev/null || { fail "stats_gen"; exit 1; }
"$B/vftr-convert" -o "$tmp/g.otf2" "$tmp/g" >/dev/null 2>&1 || { fail "vftr-convert to OTF2"; exit 1; }

LINE='vftr-stats: \[[#.]{24}\] +[0-9]+% [0-9]+ events'
for input in "OTF:$tmp/g" "OTF2:$tmp/g.otf2"; do
    what=${input%%:*} trace=${input#*:}
    for j in 1 2; do
        script -qc "$B/vftr-stats -j $j -T $trace" /dev/null </dev/null >"$tmp/tty" 2>&1
        lines=$(tr '\r' '\n' <"$tmp/tty" | grep -aE "^$LINE")
        first=$(head -1 <<<"$lines") last=$(tail -1 <<<"$lines")
        if grep -qE '\] +0% 0 events' <<<"$first" &&
           grep -qE '\[#{24}\] 100% 8004 events' <<<"$last"; then
            pass "$what -j $j on a terminal: a progress line from 0 % to 100 % and the 8004 events"
        else
            fail "$what -j $j on a terminal: first '$first', last '$last'"
        fi
        # the table follows on its own line, whole
        grep -aq "^ *2000 .* work" "$tmp/tty" && pass "$what -j $j: the table after the line" ||
            fail "$what -j $j: no table: $(head -c 300 "$tmp/tty" | cat -v)"
    done
    script -qc "$B/vftr-stats -q -T $trace" /dev/null </dev/null >"$tmp/tty" 2>&1
    grep -aq 'vftr-stats: \[' "$tmp/tty" && fail "$what: -q on a terminal still draws" ||
        pass "$what: -q on a terminal: no progress line"
    # stdout on the terminal, stderr to a file: no terminal to draw on
    script -qc "$B/vftr-stats -T $trace 2>$tmp/err" /dev/null </dev/null >"$tmp/tty" 2>&1
    if [ ! -s "$tmp/err" ] && ! grep -aq 'vftr-stats: \[' "$tmp/tty"; then
        pass "$what: stderr no terminal: nothing drawn"
    else
        fail "$what: stderr no terminal: $(head -c 200 "$tmp/err" | cat -v)"
    fi
    "$B/vftr-stats" -T "$trace" >"$tmp/out" 2>"$tmp/err"
    [ ! -s "$tmp/err" ] && pass "$what: on a pipe: nothing on stderr" ||
        fail "$what: on a pipe: $(head -c 200 "$tmp/err" | cat -v)"
done
exit $failed
