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
# fail with EFBIG instead of killing the program).  The free-space reserve
# is off here (trace.keep_free = 0): this is the write that fails.
d=$cap_tmp/full
mkdir -p "$d/mnt"
how=
out=$d/mnt
# fullrun: the program's output goes to $d, only the trace to the full $out
fullrun() {
    (cd "$d" && VFTR_TRACE_KEEP_FREE=0 timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" --out "$out" -- \
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
    check "full disk ($how): no chunk cut short (what the failed write took was given back)" \
          0 "$(vkey "$f" warnings)"
    check "full disk ($how): enters and exits pair up" 0 "$(vkey "$f" unbalanced)"
    check_le "full disk ($how): fib enters at most the calls made" "$(venter "$f" fib)" 57313
else
    fail "full disk ($how): no readable trace file in $out"; show "$d/.stderr"
fi
grep -F " $out " /proc/mounts >/dev/null && umount "$out"

# ---- the free-space reserve: the program writes its result (2 MiB) onto the
# file system that holds the trace, an 8 MiB tmpfs, after 3 M calls (some
# 15 MB of trace).  With trace.keep_free = 3 MiB the trace stops before the
# free space falls below 3 MiB, with one message, and the result fits; by
# default (256 MiB, more than the whole tmpfs) the trace stops at its first
# chunk.  Each run mounts its tmpfs in a mount namespace of its own (as root,
# or as a user mapped to root where user namespaces are allowed) and copies
# what it wrote out of it before the namespace ends.
reserve_ns=
if unshare -m true 2>/dev/null; then reserve_ns="unshare -m"
elif unshare -rm true 2>/dev/null; then reserve_ns="unshare -rm"; fi
# reserve_run NAME KEEP_FREE: leaves the run in $cap_tmp/NAME, the tmpfs's
# files in $cap_tmp/NAME/fs and its free KiB at the end in .free
reserve_run() {
    local d=$cap_tmp/$1
    mkdir -p "$d/mnt" "$d/fs"
    # shellcheck disable=SC2016
    timeout -s KILL "$RUN_TIMEOUT" $reserve_ns sh -c '
        d=$1 run=$2 prog=$3 keep=$4
        mount -t tmpfs -o size=8m tmpfs "$d/mnt" || exit 99
        cd "$d" || exit 99
        if [ -n "$keep" ]; then export VFTR_TRACE_KEEP_FREE="$keep"; fi
        "$run" --out "$d/mnt" -- "$prog" 3000000 "$d/mnt/result.dat" 2097152 >.stdout 2>.stderr
        echo $? >.rc
        df -Pk "$d/mnt" | awk "NR == 2 { print \$4 }" >.free
        cp -p "$d/mnt"/* "$d/mnt"/.[!.]* "$d/fs/" 2>/dev/null
        umount "$d/mnt"' sh "$d" "$VFTR_RUN" "$CAPDIR/cap_output" "$2" 2>"$d/.nserr"
}
if [ -z "$reserve_ns" ]; then
    skip "free-space reserve" "no mount namespace here (unshare -m and unshare -rm refused)"
else
    for run in "keep_free 3 MiB:reserve:3 MiB" "default reserve:reserve_default:"; do
        what=${run%%:*} run=${run#*:} name=${run%%:*} keep=${run#*:}
        d=$cap_tmp/$name
        reserve_run "$name" "$keep"
        if [ ! -s "$d/.rc" ]; then
            fail "$what: the run did not happen"; show "$d/.nserr"; continue
        fi
        check "$what: exit status 0" 0 "$(cat "$d/.rc")"
        check "$what: the program made its 3000000 calls" 3000000 "$(pcount "$d" work)"
        check "$what: the program's result was written whole" "wrote 2097152" \
              "$(grep '^wrote' "$d/.stdout")"
        check "$what: the result is on the file system, whole" 2097152 \
              "$(stat -c %s "$d/fs/result.dat" 2>/dev/null)"
        check "$what: one message" 1 "$(vftr_lines "$d")"
        check "$what: it says the file system is nearly full and names the key" 1 \
              "$(grep -c 'nearly full.*trace.keep_free' "$d/.stderr")"
        f=$(find "$d/fs" -maxdepth 1 -name '*.vfd' | head -n 1)
        if [ -n "$f" ] && vfdc "$f"; then
            check "$what: the trace is complete" 1 "$(vkey "$f" complete)"
            check "$what: no corrupt chunk" 0 "$(vkey "$f" errors)"
            check "$what: no chunk cut short" 0 "$(vkey "$f" warnings)"
            check_le "$what: work enters at most the calls made" "$(venter "$f" work)" 3000000
        else
            fail "$what: no readable .vfd"; show "$d/.stderr"
        fi
        log=$(find "$d/fs" -maxdepth 1 -name '*.log' | head -n 1)
        check "$what: the log counts every call" 3000000 "$(logcalls "$log" work 2>/dev/null)"
        check "$what: the log says why the trace stopped" 1 \
              "$(grep -c 'trace stopped.*trace.keep_free' "$log" 2>/dev/null)"
    done
    # with 3 MiB kept: the trace took what it could up to the reserve, the
    # result 2 MiB of it, and at least 3 MiB - 2 MiB - (log, a chunk) is left
    d=$cap_tmp/reserve
    f=$(find "$d/fs" -maxdepth 1 -name '*.vfd' | head -n 1)
    check_le "keep_free 3 MiB: the trace grew up to the reserve (over 4 MiB)" 4194304 \
             "$(stat -c %s "$f" 2>/dev/null || echo 0)"
    check_le "keep_free 3 MiB: free space left at the end (KiB)" 512 "$(cat "$d/.free")"
    f=$(find "$cap_tmp/reserve_default/fs" -maxdepth 1 -name '*.vfd' | head -n 1)
    check "default reserve (256 MiB, more than the 8 MiB tmpfs): no event in the trace" 0 \
          "$(vkey "$f" events)"
fi

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

# ---- the buffer's tuning variable reads counts as the tools do: a number
# too large for it is said once and the default kept, not clamped or wrapped
d=$cap_tmp/bufkib
VFTR_BUFFER_KIB=99999999999999999999 vrun "$d" "$CAPDIR/cap_fib" 22
unharmed "VFTR_BUFFER_KIB too large" "$d"
check "VFTR_BUFFER_KIB too large: one message" 1 "$(vftr_lines "$d")"
check "VFTR_BUFFER_KIB too large: it says so and keeps the default" 1 \
      "$(grep -c "bad VFTR_BUFFER_KIB '99999999999999999999': too large (at most 4194304); using 256" \
         "$d/.stderr")"
check "VFTR_BUFFER_KIB too large: capture still on (a .vfd)" 1 "$(find "$d" -name '*.vfd' | wc -l)"

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


# ---- a FIFO (or another special file) as the configuration: open() of a
# FIFO without a writer would block the program for ever; it is refused at
# once with one message and capture stays off (the run is bounded to 30 s
# here: a hang fails instead of stalling the suite)
mkfifo "$cap_tmp/fifo.json"
d=$cap_tmp/fifo
saved_timeout=$RUN_TIMEOUT RUN_TIMEOUT=30
VFTR_CONFIG=$cap_tmp/fifo.json vrun "$d" "$CAPDIR/cap_fib" 22
RUN_TIMEOUT=$saved_timeout
unharmed "FIFO as config" "$d"
check "FIFO as config: one message" 1 "$(vftr_lines "$d")"
check "FIFO as config: it names the file and says it is a FIFO" 1 \
      "$(grep -c "fifo.json: a FIFO, not a regular file" "$d/.stderr")"
check "FIFO as config: capture switched off (no file)" "" "$(ls -A "$d" | grep -v '^\.')"
# a directory and a character device likewise
for special in "a directory:$cap_tmp" "a character device:/dev/null"; do
    what=${special%%:*} special=${special#*:}
    d=$cap_tmp/special_${what##* }
    VFTR_CONFIG=$special vrun "$d" "$CAPDIR/cap_fib" 22
    unharmed "$what as config" "$d"
    check "$what as config: one message saying what it is" 1 \
          "$(grep -c "$special: $what, not a regular file" "$d/.stderr")"
done

finish
