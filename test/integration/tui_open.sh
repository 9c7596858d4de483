#!/bin/bash
# tui_open.sh — "opens at once" for every trace (issue 16): a trace without
# snapshots whose event files take 16 MiB or more is indexed when vftr-tui
# first opens it (vftr-snap --all in place, its progress line on the
# terminal before the screen opens), kept beside the trace, and the next
# start opens it at once; smaller traces are not touched unless --index
# asks; --no-index leaves any trace as it is; an index that cannot be made
# is said on the message line and the trace is browsed all the same.
#
# Traces: test/tui/tui_gen (see its header) -p 4 -i 62500: 2 M events, four
# event files of 7.3 MB (29 MB: above the 16 MiB bound), span 6.25002 s;
# -p 4 -i 2000: 80 000 events, 1 MB (below).
set -u
: "${BUILD:=build}"
TUI=$BUILD/bin/vftr-tui
GEN=$BUILD/test/tui/vftr/tui_gen
tmp=$(mktemp -d /tmp/vftr-tui-open.XXXXXX)
S=vftr-tui-open-$$
fails=0
. "$(dirname "$0")/../tui/tmux_lib.sh"

for p in "$TUI" "$BUILD/bin/vftr-snap" "$GEN"; do
    [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
command -v tmux >/dev/null || { echo "FAIL: tmux not installed"; exit 1; }

"$GEN" -p 4 -i 62500 "$tmp/big" || { echo "FAIL: tui_gen big"; exit 1; }
"$GEN" -p 4 -i 2000 "$tmp/small" || { echo "FAIL: tui_gen small"; exit 1; }
mkdir -p "$tmp/keep" && cp "$tmp"/big.* "$tmp/keep/"
size=$(cat "$tmp"/big.*.events | wc -c)
[ "$size" -ge $((16 << 20)) ] && pass "big trace: $size bytes of events (16 MiB or more)" ||
    fail "big trace: only $size bytes of events"
snaps() { ls "$1".*.snaps "$1".*.stats 2>/dev/null | wc -l; }

# ---- first open: indexed, with its progress line, then sampled at once
start 100 30 "$tmp/big"
check "first open: the whole trace drawn from the new snapshots" \
    '^big  \[0 s, 6\.25 s\)  cursor 0 s  depth 1  sampled' 60
check "first open: the profile from the new summaries" 'summaries 0 s\.\.6\.25 s'
if screen | grep -q 'press S'; then fail "first open: still offers vftr-snap"; else pass "first open: no offer to run vftr-snap"; fi
keys q
check "first open: quit" '^EXIT=0$'
check "first open: said what it does before the screen opened" \
    'big\.otf has no snapshots: adding snapshots and summaries'
check "first open: vftr-snap's progress line reached 100 %" \
    'vftr-snap: \[#+\] 100% 2000008 events'
[ "$(snaps "$tmp/big")" = 8 ] && pass "index kept beside the trace (4 .snaps, 4 .stats)" ||
    fail "index files beside the trace: $(snaps "$tmp/big")"

# ---- the next start uses them: no indexing
start 100 30 "$tmp/big"
check "second open: sampled at once" '^big  \[0 s, 6\.25 s\).*sampled'
keys q
check "second open: quit" '^EXIT=0$'
if screen | grep -q 'adding snapshots'; then fail "second open: indexed again"
else pass "second open: not indexed again"; fi

# ---- --no-index: the trace stays as it is
start 100 30 --no-index "$tmp/keep/big"
check "--no-index: read exactly, S offered" 'press S to run vftr-snap'
check "--no-index: exact view" '^big  \[0 s, 6\.25 s\).*exact'
keys q
check "--no-index: quit" '^EXIT=0$'
[ "$(snaps "$tmp/keep/big")" = 0 ] && pass "--no-index: no files added" ||
    fail "--no-index: files added"

# ---- a small trace is not touched, unless --index
start 100 30 "$tmp/small"
check "small trace: opened without indexing (S offered)" 'press S to run vftr-snap'
keys q
check "small trace: quit" '^EXIT=0$'
[ "$(snaps "$tmp/small")" = 0 ] && pass "small trace: no files added" ||
    fail "small trace: files added"
start 100 30 --index "$tmp/small"
check "--index: a small trace is indexed too" '^small  \[0 s, 200 ms\).*sampled'
keys q
check "--index: quit" '^EXIT=0$'
[ "$(snaps "$tmp/small")" = 8 ] && pass "--index: files beside the trace" ||
    fail "--index: $(snaps "$tmp/small") files"

# ---- an index that cannot be made: said, and the trace is browsed anyway
# (a vftr-snap stand-in beside a copy of vftr-tui that fails)
mkdir -p "$tmp/fake"
cp "$TUI" "$tmp/fake/vftr-tui"
printf '#!/bin/sh\necho "$@" >"%s/fake.args"\necho "cannot write beside the trace" >&2\nexit 1\n' \
    "$tmp" >"$tmp/fake/vftr-snap"
chmod +x "$tmp/fake/vftr-snap"
TUI=$tmp/fake/vftr-tui
start 160 30 "$tmp/keep/big"
check "failed index: message line says why" \
    'not indexed \(vftr-snap failed \(exit status 1\): cannot write beside the trace\): views read from the trace start'
check "failed index: the trace is browsed (exact)" '^big  \[0 s, 6\.25 s\).*exact'
keys q
check "failed index: quit" '^EXIT=0$'
[ "$(cat "$tmp/fake.args" 2>/dev/null)" = "--all --progress $tmp/keep/big" ] &&
    pass "failed index: called as vftr-snap --all --progress TRACE" ||
    fail "failed index: arguments '$(cat "$tmp/fake.args" 2>/dev/null)'"
start 100 30 --index --no-index "$tmp/small"
check "--index --no-index: usage error" 'exclude each other'
check "--index --no-index: exit 2" '^EXIT=2$'

exit $((fails > 0))
