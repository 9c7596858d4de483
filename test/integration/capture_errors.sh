#!/bin/bash
# capture_errors.sh — never harm the program: an output directory that
# cannot be made or written, a full disk, a bad or misspelt configuration
# each give one message on stderr, and the program's output and exit status
# stay those of a run without vftr.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_fib" "$CAPDIR/cap_threads"

plain "$cap_tmp/ref" "$CAPDIR/cap_fib" 22
ref_out=$(cat "$cap_tmp/ref/.stdout")

# unharmed WHAT DIR: status 0 and the output of the plain run.
unharmed() {
    check "$1: exit status 0" 0 "$(cat "$2/.rc")"
    check "$1: program output unchanged" "$ref_out" "$(cat "$2/.stdout")"
}

# ---- an output directory that cannot be made (below a file): a missing
# one is made (capture_outdir.sh)
d=$cap_tmp/missing2
mkdir -p "$d"
: >"$cap_tmp/afile"
(cd "$d" && timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" --out "$cap_tmp/afile/no/such/dir" -- \
    "$CAPDIR/cap_fib" 22 >.stdout 2>.stderr; echo $? >.rc)
unharmed "output directory that cannot be made" "$d"
check "output directory that cannot be made: one message" 1 "$(vftr_lines "$d")"
check "output directory that cannot be made: the message names it" 1 \
    "$(grep -c "$cap_tmp/afile/no/such/dir" "$d/.stderr")"
check "output directory that cannot be made: nothing written in the working directory" "" \
    "$(ls -A "$d" | grep -v '^\.')"

# ---- a directory that exists but cannot be written (even by root: /proc)
d=$cap_tmp/ro
mkdir -p "$d"
(cd "$d" && timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" --out /proc/self -- \
    "$CAPDIR/cap_fib" 22 >.stdout 2>.stderr; echo $? >.rc)
unharmed "unwritable output directory" "$d"
check "unwritable output directory: one message" 1 "$(vftr_lines "$d")"
check "unwritable output directory: the message names it" 1 "$(grep -c '"/proc/' "$d/.stderr")"

# ---- full disk: a 64 KiB tmpfs (as root), else a file-size limit
# (SIGXFSZ ignored, as a shell with a limit usually has it, so that writes
# fail with EFBIG instead of killing the program).
d=$cap_tmp/full
mkdir -p "$d/mnt"
how=
out=$d/mnt
# fullrun: the program's output goes to $d, only the trace to the full $out
fullrun() {
    (cd "$d" && timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" --out "$out" -- \
        "$CAPDIR/cap_fib" 22 >.stdout 2>.stderr; echo $? >.rc)
}
if mount -t tmpfs -o size=64k tmpfs "$out" 2>/dev/null; then
    how=tmpfs
    fullrun
else
    how="ulimit -f"
    (trap '' XFSZ; ulimit -f 128; fullrun)
fi
unharmed "full disk ($how)" "$d"
# fib(22): 57313 calls, ~115 K events, about 230 KB of trace: more than 64 KiB
# one message for the trace; the log cannot be written either, which may
# be a second one
check_le "full disk ($how): a message" 1 "$(vftr_lines "$d")"
check_le "full disk ($how): at most one for the trace and one for the log" "$(vftr_lines "$d")" 2
check_le "full disk ($how): the message says why" 1 \
      "$(grep -ciE 'no space|too large|file size|full' "$d/.stderr")"
f=$(find "$out" -maxdepth 1 \( -name '*.vfd' -o -name '*.tmpvfd' \) | head -n 1)
if [ -n "$f" ] && vfdc "$f"; then
    pass "full disk ($how): the trace file is readable ($(basename "$f"))"
    check "full disk ($how): no corrupt chunk" 0 "$(vkey "$f" errors)"
    check "full disk ($how): enters and exits pair up" 0 "$(vkey "$f" unbalanced)"
    check_le "full disk ($how): fib enters at most the calls made" "$(venter "$f" fib)" 57313
else
    fail "full disk ($how): no readable trace file in $out"; show "$d/.stderr"
fi
grep -F " $out " /proc/mounts >/dev/null && umount "$out"

# ---- misspelt key: one suggestion, even with 16 threads
printf '{\n  "sampling": {\n    "actve": true\n  },\n  "profile_tabel": {}\n}\n' >"$cap_tmp/typo.json"
d=$cap_tmp/typo
VRUN_OPTS="--config $cap_tmp/typo.json" vrun "$d" "$CAPDIR/cap_threads" 16 50
check "misspelt key: exit status 0" 0 "$(cat "$d/.rc")"
check "misspelt key: the program ran (8800 calls)" 8800 "$(pcount "$d" work)"
check "misspelt key: suggests \"active\" once" 1 "$(grep -c 'did you mean "active"' "$d/.stderr")"
check "misspelt section: suggests \"profile_table\" once" 1 \
      "$(grep -c 'did you mean "profile_table"' "$d/.stderr")"
check "misspelt key: the message names the file" 2 "$(grep -c "typo.json" "$d/.stderr")"
check "misspelt key: capture still on (a .vfd)" 1 "$(find "$d" -name '*.vfd' | wc -l)"

# ---- a bad value: a message, capture goes on with the default
printf '{ "sampling": { "sample_interval": -1 } }\n' >"$cap_tmp/bad.json"
d=$cap_tmp/bad
VRUN_OPTS="--config $cap_tmp/bad.json" vrun "$d" "$CAPDIR/cap_fib" 22
unharmed "negative sample interval" "$d"
check "negative sample interval: one message" 1 "$(vftr_lines "$d")"
check "negative sample interval: names the key" 1 "$(grep -c 'sample_interval' "$d/.stderr")"

# ---- a file that is not JSON: message with the position, capture off
printf '{ "sampling": { "active": true,, } }\n' >"$cap_tmp/broken.json"
d=$cap_tmp/broken
VRUN_OPTS="--config $cap_tmp/broken.json" vrun "$d" "$CAPDIR/cap_fib" 22
unharmed "malformed config" "$d"
check "malformed config: one message" 1 "$(vftr_lines "$d")"
check "malformed config: names the file" 1 "$(grep -c 'broken.json' "$d/.stderr")"
check "malformed config: capture switched off (no file)" "" "$(ls -A "$d" | grep -v '^\.')"

# ---- a config file that does not exist
d=$cap_tmp/nofile
VFTR_CONFIG=$cap_tmp/none.json vrun "$d" "$CAPDIR/cap_fib" 22
unharmed "missing config file" "$d"
check "missing config file: one message" 1 "$(vftr_lines "$d")"

finish
