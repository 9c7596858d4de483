#!/bin/bash
# robust_inputs.sh — the tools against inputs that used to hang them or
# mislead (issue 15):
#   4. a FIFO or a device in the place of a trace, a .vfd file, a run
#      directory's entry, one of an OTF trace's files, a vftr-snap script,
#      an output file, vftr-run's PROGRAM, vftr-config's file (the capture
#      library's own reading of VFTR_CONFIG is not the tools' part): every
#      tool answers at once, exit 1,
#      naming the file and what was expected (each run is killed after 10 s:
#      the old tools waited in open(2) for ever);
#   5. numbers that overflow 64 bits are usage errors, never clamped
#      (vftr-snap --at 99999999999999999999, then -t, used to become 2^64 - 1);
#   6. a trace without its definitions file is a runtime error naming it
#      (it was "bad time ... resolution is unknown", exit 2); a .vfd operand
#      that is a device or a directory entry that is a directory is exit 1
#      (it was "Try --help", exit 2); a trace without a timer resolution
#      prints ticks under "ticks" headers, with a warning;
#  10. a run missing one rank's file: every tool says which rank.
set -u
: "${BUILD:=build}"
B=$BUILD/bin
GEN=$BUILD/test/tui/vftr/tui_gen
MKVFD=$BUILD/test/conv/mkvfd
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
for p in "$B/vftr-dump" "$B/vftr-stats" "$B/vftr-snap" "$B/vftr-tui" "$B/vfd2otf" "$B/vftr-run" \
         "$B/vftr-config" \
         "$GEN" "$MKVFD"; do
    [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done

# expect WHAT RC REGEX CMD...: CMD ends within 10 s with exit RC and a line
# of its stderr matching the extended REGEX
expect() {
    local what=$1 want=$2 re=$3 rc
    shift 3
    timeout -s KILL 10 "$@" </dev/null >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" = "$want" ] && grep -Eq -- "$re" "$T/err"; then
        pass "$what"
    else
        fail "$what (exit $rc, expected $want; stderr:)"
        sed -n '1,5s/^/    /p' "$T/err"
    fi
}

"$GEN" -p 2 -i 10 "$T/t" || { echo "FAIL: tui_gen"; exit 1; }
mkdir "$T/run" "$T/four" "$T/snap"
"$MKVFD" basic "$T/run" >/dev/null || { echo "FAIL: mkvfd"; exit 1; }

# ------------------------------------------------------------ 4. FIFOs
mkfifo "$T/f.vfd" "$T/script.json" "$T/prog"
for tool in vftr-dump vftr-stats vfd2otf; do
    args=()
    [ "$tool" = vfd2otf ] && args=(-q -o "$T/o")
    expect "FIFO .vfd operand: $tool exit 1 naming it" 1 "f\.vfd: is a FIFO, expected a \.vfd file" \
        "$B/$tool" "${args[@]}" "$T/f.vfd"
done
expect "FIFO .vfd operand: vftr-tui exit 1 naming it" 1 "f\.vfd: is a FIFO, expected a \.vfd file" \
    "$B/vftr-tui" --bench 0 "$T/f.vfd"

mkdir "$T/fiforun"
cp "$T/run/basic_0.vfd" "$T/fiforun/"
mkfifo "$T/fiforun/basic_1.vfd"
for tool in vftr-stats vfd2otf; do
    args=()
    [ "$tool" = vfd2otf ] && args=(-q -o "$T/o")
    expect "FIFO entry of a run directory: $tool exit 1 naming it" 1 \
        "fiforun/basic_1\.vfd: is a FIFO, expected a \.vfd file" "$B/$tool" "${args[@]}" "$T/fiforun"
done

# each of an OTF trace's files replaced by a FIFO in turn
for f in t.otf t.0.def t.1.events; do
    mkdir -p "$T/otf-$f"
    cp "$T"/t.* "$T/otf-$f/"
    rm "$T/otf-$f/$f"
    mkfifo "$T/otf-$f/$f"
    for tool in vftr-dump vftr-stats vftr-snap; do
        expect "FIFO $f: $tool exit 1 naming it" 1 "otf-$f/$f: .*FIFO, expected a regular file" \
            "$B/$tool" "$T/otf-$f/t"
    done
    expect "FIFO $f: vftr-tui exit 1 naming it" 1 "otf-$f/$f: .*FIFO, expected a regular file" \
        "$B/vftr-tui" --bench 0 "$T/otf-$f/t"
done
expect "FIFO script: vftr-snap exit 1 naming it" 1 \
    "script\.json: is a FIFO, expected a JSON script" "$B/vftr-snap" --script "$T/script.json"
mkfifo "$T/out.otf"
expect "FIFO in the output's place: vfd2otf exit 1 naming it" 1 "out\.otf: .*FIFO" \
    "$B/vfd2otf" -q -o "$T/out" "$T/run"
expect "FIFO as PROGRAM: vftr-run does not wait on it" 1 "cannot run .*prog" "$B/vftr-run" "$T/prog"
mkfifo "$T/config.json"
expect "FIFO configuration: vftr-config --check exit 1 naming it" 1 \
    "config\.json: is a FIFO, expected a JSON configuration file" "$B/vftr-config" --check "$T/config.json"
expect "FIFO VFTR_CONFIG: vftr-config --effective exit 1 naming it" 1 \
    "VFTR_CONFIG=.*config\.json: is a FIFO" env VFTR_CONFIG="$T/config.json" "$B/vftr-config" --effective

# ------------------------------------------------------------ 5. numbers
big=99999999999999999999
cp "$T"/t.* "$T/snap/"
expect "vftr-snap --at 2^64+: usage error, not clamped" 2 "bad time '$big': too large" \
    "$B/vftr-snap" --at $big "$T/snap/t"
expect "vftr-snap --period 2^64+: usage error" 2 "bad time '$big': too large" \
    "$B/vftr-snap" --period $big "$T/snap/t"
expect "vfd2otf --at 2^64+: usage error, not clamped" 2 "bad time '$big': too large" \
    "$B/vfd2otf" -q --at $big -o "$T/o" "$T/run"
expect "vfd2otf --jobs 2^64+: usage error" 2 "bad --jobs '$big': too large \(at most 1024\)" \
    "$B/vfd2otf" -q --jobs $big -o "$T/o" "$T/run"
expect "vfd2otf --streams 0: usage error" 2 "bad --streams '0': too small \(at least 1\)" \
    "$B/vfd2otf" -q --streams 0 -o "$T/o" "$T/run"
expect "vftr-stats --jobs 2^64+: usage error" 2 "bad --jobs '$big': too large" \
    "$B/vftr-stats" --jobs $big "$T/t"
printf '{ "jobs": [ { "trace": "%s", "times": ["%s"] } ] }\n' "$T/snap/t" $big >"$T/bigt.json"
expect "vftr-snap --script, times 2^64+: refused naming the job and key" 1 \
    "bigt\.json: job 1: bad value for \"times\"" "$B/vftr-snap" --script "$T/bigt.json"
printf '{ "jobs": [ { "trace": "%s", "breaks": 100000001 } ] }\n' "$T/snap/t" >"$T/bigb.json"
expect "vftr-snap --script, breaks above -n's range: refused" 1 \
    "bigb\.json: job 1: bad value for \"breaks\"" "$B/vftr-snap" --script "$T/bigb.json"
expect "vftr-snap --thumbnail-samples 2^32: usage error" 2 \
    "bad --thumbnail-samples '4294967296': too large \(at most 4294967295\)" \
    "$B/vftr-snap" --thumbnail-samples 4294967296 "$T/snap/t"
expect "vftr-tui --bench 2^64+: usage error" 2 "bad --bench '$big': too large" \
    "$B/vftr-tui" --bench $big "$T/t"

# ------------------------------------------------------------ 6. exit codes and units
mkdir "$T/nodef"
cp "$T/t.otf" "$T/t.1.events" "$T/t.2.events" "$T/nodef/"
for tool in vftr-dump vftr-stats; do
    expect "no definitions file, --time 1ms:2ms: $tool exit 1 naming it" 1 \
        "nodef/t\.0\.def: no such file .*definitions are missing" "$B/$tool" -t 1ms:2ms "$T/nodef/t"
done
expect "no definitions file, -p 1ms: vftr-snap exit 1 naming it" 1 "nodef/t\.0\.def: no such file" \
    "$B/vftr-snap" --period 1ms "$T/nodef/t"
ln -s /dev/null "$T/dev.vfd"
for tool in vftr-stats vftr-dump; do
    expect "a .vfd that is a device: $tool exit 1" 1 "dev\.vfd: is a character device, expected" \
        "$B/$tool" "$T/dev.vfd"
    if grep -q -- "--help" "$T/err"; then fail "a .vfd that is a device: $tool says Try --help"
    else pass "a .vfd that is a device: $tool does not send to --help"; fi
done
mkdir -p "$T/dirrun/x_1.vfd"
cp "$T/run/basic_0.vfd" "$T/dirrun/"
expect "a directory entry that is a directory: vftr-stats exit 1" 1 \
    "dirrun/x_1\.vfd: is a directory, expected a \.vfd file" "$B/vftr-stats" "$T/dirrun"

mkdir "$T/nores"
cp "$T/t.otf" "$T/t.1.events" "$T/t.2.events" "$T/nores/"
grep -v '^DTR' "$T/t.0.def" >"$T/nores/t.0.def"
expect "no timer resolution: vftr-stats warns" 0 "does not give its timer resolution: times are in ticks" \
    "$B/vftr-stats" "$T/nores/t"
if head -1 "$T/out" | grep -q 'excl\[ticks\]' && ! grep -q '\[s\]' "$T/out"; then
    pass "no timer resolution: headers in ticks, none in seconds"
else fail "no timer resolution: headers"; head -2 "$T/out"; fi
# step: 2 processes x 10 calls x (45 - 2p) ticks = 840 ticks (tui_gen's header)
if grep -Eq '^ +20 +840 .* step$' "$T/out"; then pass "no timer resolution: 840 ticks of step"
else fail "no timer resolution: step's ticks"; cat "$T/out"; fi
"$B/vftr-stats" --callpath "$T/nores/t" 2>/dev/null | head -1 | grep -q 'excl\[ticks\]' &&
    pass "no timer resolution: --callpath headers in ticks" || fail "--callpath headers"
"$B/vftr-stats" --json "$T/nores/t" 2>/dev/null | grep -q '"total_ticks":2040' &&
    pass "no timer resolution: JSON total in ticks" || fail "JSON total"

# ------------------------------------------------------------ 10. a missing rank
"$MKVFD" big "$T/four" 100 4 >/dev/null 2>&1 || { echo "FAIL: mkvfd big"; exit 1; }
rm "$T/four/big_2.vfd"
re="the run has 4 ranks, but no file holds rank 2: its events are missing"
expect "missing rank: vfd2otf names it" 0 "$re" "$B/vfd2otf" -q -o "$T/four-out" "$T/four"
expect "missing rank: vftr-stats names it" 0 "$re" "$B/vftr-stats" "$T/four"
expect "missing rank: vftr-dump --check names it" 0 "$re" "$B/vftr-dump" --check "$T/four"
rm "$T/four/big_0.vfd"
expect "two missing ranks: named as a list" 0 \
    "the run has 4 ranks, but no file holds ranks 0,2 \(2 of them\)" "$B/vftr-stats" "$T/four"
"$B/vftr-stats" "$T/run" >/dev/null 2>"$T/err"
grep -q 'no file holds' "$T/err" && fail "a whole run: no missing-rank warning" ||
    pass "a whole run: no missing-rank warning"
exit $((fails > 0))
