#!/bin/bash
# vfd_input.sh — vftr-snap and vftr-tui take a run's .vfd files (a run
# directory, .vfd files) as every vftr tool does (issue 16): through the
# run's OTF trace, which lib/model/vfdcache.h makes once with vfd2otf's own
# writer and keeps (RUNDIR/vftr-otf/BASE/, else $XDG_CACHE_HOME/vftr/, or
# --cache-dir).  The independent expectation is always the two-step route a
# user takes without it: vfd2otf, then the tool on its output.
#   - vftr-snap -o on a run directory and on a .vfd file: the files of
#     `vfd2otf; vftr-snap -o` byte for byte (DefUniqueId aside: OTF draws a
#     new one for every trace it writes);
#   - the kept trace is vfd2otf's output, byte for byte; it is reused while
#     the .vfd files are unchanged, made again when one changes; without -o
#     vftr-snap writes into it (as vftr-snap in place on vfd2otf's output);
#   - a run directory where the trace cannot be kept (a file in the way;
#     read-only to another user): the user's cache; --cache-dir: there;
#   - what a killed conversion left is removed by the next one;
#   - vftr-tui in tmux: the screens on the run directory are the screens on
#     vfd2otf's trace of it (first frame, zoomed in, the profile).
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
MK=$B/test/conv/mkvfd
V2O=$B/bin/vfd2otf
SNAP=$B/bin/vftr-snap
TUI=$B/bin/vftr-tui
for p in "$MK" "$V2O" "$SNAP" "$TUI"; do
    [ -x "$p" ] || { bad "$p not built"; exit 1; }
done
export XDG_CACHE_HOME=$T/xdg

mkdir -p "$T/run" "$T/ref"
$MK big "$T/run" 4000 4 >/dev/null || { bad "mkvfd big"; exit 1; }

# same_files A B: the files of trace stub A are those of stub B, byte for
# byte, the DefUniqueId line of the definitions aside
same_files() {
    local a=$1 b=$2 f n=0
    for f in "$b".*; do
        n=$((n + 1))
        case $f in
            *.def) cmp -s <(grep -av '^DUI' "$f") <(grep -av '^DUI' "$a${f#"$b"}") || return 1 ;;
            *) cmp -s "$f" "$a${f#"$b"}" || return 1 ;;
        esac
    done
    # as many files on both sides
    [ "$n" -gt 1 ] && [ "$(ls -d "$a".* | wc -l)" = "$n" ]
}

# ---- vftr-snap -o on the run directory = vfd2otf, then vftr-snap -o
$V2O -q -o "$T/ref/big" "$T/run" || bad "vfd2otf"
$SNAP -q -n 20 --all -o "$T/ref/snap" "$T/ref/big" || bad "vftr-snap on vfd2otf's trace"
if $SNAP -n 20 --all -o "$T/snap" "$T/run" 2>"$T/err1"; then
    pass "vftr-snap -o on a run directory: exit 0"
else
    bad "vftr-snap -o on a run directory: $(head -2 "$T/err1")"
fi
if same_files "$T/snap" "$T/ref/snap"; then pass "vftr-snap -o run/: vfd2otf + vftr-snap -o, byte for byte"
else bad "vftr-snap -o run/ differs from vfd2otf + vftr-snap -o"; fi
if grep -q "converting the .vfd files once into $T/run/vftr-otf/big/big.otf" "$T/err1"; then
    pass "first use: the conversion says where the trace is kept"
else bad "first use: no line about the conversion: $(head -2 "$T/err1")"; fi
if same_files "$T/run/vftr-otf/big/big" "$T/ref/big"; then
    pass "the kept trace is vfd2otf's, byte for byte"
else bad "the kept trace differs from vfd2otf's"; fi
if [ "$(grep -c '\.vfd' "$T/run/vftr-otf/big/inputs")" = 4 ]; then
    pass "inputs lists the 4 .vfd files"
else bad "inputs: $(cat "$T/run/vftr-otf/big/inputs")"; fi

# ---- reused while unchanged, made again when a file changes
before=$(stat -c %i:%Y "$T/run/vftr-otf/big/big.0.def")
$SNAP -n 20 --all -o "$T/snap2" "$T/run" 2>"$T/err2" || bad "vftr-snap again"
if ! grep -q converting "$T/err2" && [ "$(stat -c %i:%Y "$T/run/vftr-otf/big/big.0.def")" = "$before" ]
then pass "second use: the kept trace is reused (no conversion)"
else bad "second use: converted again: $(head -2 "$T/err2")"; fi
touch -d '2000-01-01' "$T/run/big_2.vfd"
$SNAP -n 20 --all -o "$T/snap3" "$T/run" 2>"$T/err3" || bad "vftr-snap after a change"
if grep -q "converting the .vfd files once" "$T/err3"; then
    pass "a .vfd file changed: the trace is made again"
else bad "a .vfd file changed: the old trace was reused"; fi
if same_files "$T/snap3" "$T/ref/snap"; then pass "... and gives the same output"
else bad "the output after the new conversion differs"; fi

# ---- without -o: the snapshots go into the kept trace (vftr-snap in place)
mkdir -p "$T/inplace"
for f in "$T/ref/big".*; do cp "$f" "$T/inplace/big${f#"$T/ref/big"}"; done
$SNAP -q -n 7 --statistics "$T/inplace/big" || bad "vftr-snap in place on vfd2otf's trace"
$SNAP -n 7 --statistics "$T/run" 2>"$T/err4" || bad "vftr-snap in place on the run: $(head -2 "$T/err4")"
if grep -q "run: writing into its OTF trace $T/run/vftr-otf/big/big.otf" "$T/err4" &&
   same_files "$T/run/vftr-otf/big/big" "$T/inplace/big"; then
    pass "without -o: written into the kept trace, as vftr-snap in place on vfd2otf's"
else bad "without -o: $(head -2 "$T/err4")"; fi

# ---- a .vfd file operand: a run of its own (that rank)
$V2O -q -o "$T/ref/r1" "$T/run/big_1.vfd" 2>/dev/null && $SNAP -q -o "$T/ref/r1snap" "$T/ref/r1" ||
    bad "vfd2otf + vftr-snap of one file"
$SNAP -q -o "$T/r1snap" "$T/run/big_1.vfd" 2>/dev/null || bad "vftr-snap -o big_1.vfd"
if same_files "$T/r1snap" "$T/ref/r1snap"; then pass "a .vfd operand: vfd2otf + vftr-snap of it"
else bad "a .vfd operand: output differs"; fi

# ---- no room beside the run: the user's cache; --cache-dir: there
mkdir -p "$T/blocked"
cp "$T/run"/*.vfd "$T/blocked/"
touch "$T/blocked/vftr-otf"               # a file where the directory would go
$SNAP -n 20 --all -o "$T/snap4" "$T/blocked" 2>"$T/err5" || bad "vftr-snap, blocked: $(head -2 "$T/err5")"
if ls "$XDG_CACHE_HOME"/vftr/big-*/big.otf >/dev/null 2>&1 && grep -q "user's cache" "$T/err5" &&
   same_files "$T/snap4" "$T/ref/snap"; then
    pass "no room beside the run: kept in \$XDG_CACHE_HOME/vftr/, said so, same output"
else bad "no room beside the run: $(head -3 "$T/err5")"; ls -R "$XDG_CACHE_HOME" 2>&1 | head -5; fi
$SNAP -q -n 20 --all --cache-dir "$T/named" -o "$T/snap5" "$T/run" || bad "--cache-dir"
if ls "$T/named"/big-*/big.otf >/dev/null 2>&1 && same_files "$T/snap5" "$T/ref/snap"; then
    pass "--cache-dir: kept there, same output"
else bad "--cache-dir: nothing in $T/named"; fi

# ---- a read-only run directory (another user's): the user's cache
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    mkdir -p "$T/ro" "$T/nobody"
    cp "$T/run"/*.vfd "$T/ro/"
    chmod 755 "$T" "$T/ro" && chmod 644 "$T/ro"/*.vfd && chmod 777 "$T/nobody"
    if setpriv --reuid=65534 --regid=65534 --clear-groups \
           env XDG_CACHE_HOME="$T/nobody/cache" "$SNAP" -n 20 --all -o "$T/nobody/snap" "$T/ro" \
           2>"$T/err6" &&
       [ ! -e "$T/ro/vftr-otf" ] && ls "$T/nobody/cache"/vftr/big-*/big.otf >/dev/null 2>&1 &&
       same_files "$T/nobody/snap" "$T/ref/snap"; then
        pass "a read-only run directory: kept in the user's cache, same output"
    else bad "a read-only run directory: $(head -3 "$T/err6")"; fi
else
    echo "SKIP: read-only run directory (needs root and setpriv)"
fi

# ---- leftovers of a killed conversion go
mkdir -p "$T/run/vftr-otf/.big.tmp-999999999"
touch "$T/run/vftr-otf/.big.tmp-999999999/big.0.def"
touch "$T/run/big_0.vfd"
$SNAP -q -o "$T/snap6" "$T/run" 2>"$T/err8" || bad "vftr-snap with leftovers"
if [ -s "$T/err8" ]; then bad "-q: a conversion still talks: $(head -2 "$T/err8")"
else pass "-q: the conversion says nothing"; fi
if [ ! -e "$T/run/vftr-otf/.big.tmp-999999999" ] && [ "$(ls -A "$T/run/vftr-otf")" = big ]; then
    pass "a killed conversion's leftovers are removed; nothing else stays"
else bad "leftovers: $(ls -A "$T/run/vftr-otf" | tr '\n' ' ')"; fi

# ---- bad input: the message names the file, exit 1
printf 'not a trace\n' >"$T/run2.vfd"
$SNAP -q -o "$T/x" "$T/run2.vfd" 2>"$T/err7"
rc=$?
if [ "$rc" = 1 ] && grep -q "run2\.vfd" "$T/err7" && [ ! -e "$T/vftr-otf/run2" ]; then
    pass "a broken .vfd: exit 1, the message names it, no trace kept"
else bad "a broken .vfd: exit $rc, $(head -2 "$T/err7")"; ls -A "$T/vftr-otf" 2>/dev/null; fi

# ---- vftr-tui: the run directory looks as vfd2otf's trace of it
if command -v tmux >/dev/null; then
    S=vfd-input-$$
    tmp=$T/tmux
    mkdir -p "$tmp"
    fails=0
    # start, screen, wait_for, keys (test/tui/tmux_lib.sh); its own pass and
    # fail print the same lines as ours
    . "$(dirname "$0")/../tui/tmux_lib.sh"
    trap 'tmux kill-server 2>/dev/null; rm -rf "$T"' EXIT
    rm -rf "$T/run/vftr-otf"
    # the screens without the read statistics (bytes and time of a read)
    shot() { screen | sed 's/  read [0-9]* KiB in .*$//'; }
    views() {   # the first frame, 4 steps zoomed in, depth 2
        start 100 30 "$1"
        wait_for '^big  \[' 20 || { screen >"$2.1"; return; }
        wait_for '^> ' 10
        shot >"$2.1"
        keys + + + + d
        wait_for 'depth 2' 10
        sleep 0.3
        shot >"$2.2"
        keys q
        wait_for '^EXIT=' 5
        screen | grep -o 'EXIT=[0-9]*' >"$2.exit"
    }
    views "$T/run" "$T/tui-run"
    views "$T/ref/big" "$T/tui-ref"
    if [ -f "$T/run/vftr-otf/big/big.otf" ]; then pass "vftr-tui run/: the trace is kept beside the run"
    else bad "vftr-tui run/: no trace in run/vftr-otf"; fi
    for v in 1 2; do
        if grep -q '^big  \[' "$T/tui-run.$v" && diff "$T/tui-ref.$v" "$T/tui-run.$v" >/dev/null; then
            pass "vftr-tui run/: view $v is that of vfd2otf's trace"
        else
            bad "vftr-tui run/: view $v differs"; diff "$T/tui-ref.$v" "$T/tui-run.$v" | head -8 | sed 's/^/    | /'
        fi
    done
    if [ "$(cat "$T/tui-run.exit")" = EXIT=0 ]; then pass "vftr-tui run/: q quits, exit 0"
    else bad "vftr-tui run/: $(cat "$T/tui-run.exit")"; fi
    # several .vfd operands: the run they make up
    start 100 30 "$T"/run/big_0.vfd "$T"/run/big_1.vfd "$T"/run/big_2.vfd "$T"/run/big_3.vfd
    if wait_for '^big  \[' 20 && wait_for '^rank 3 ' 5; then pass "vftr-tui FILE.vfd...: the run"
    else bad "vftr-tui FILE.vfd...: no view"; screen | sed 's/^/    | /'; fi
    keys q
    [ "$fails" = 0 ] || fail=1
else
    echo "SKIP: vftr-tui checks (no tmux)"
fi
exit $fail
