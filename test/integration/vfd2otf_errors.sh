#!/bin/bash
# vfd2otf_errors.sh — what vfd2otf refuses, with which message and status.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
V=$B/bin/vfd2otf
expect() {  # status pattern description -- command...
    local want=$1 pat=$2 what=$3; shift 4
    "$@" >"$T/out" 2>"$T/err"; local rc=$?
    if [ $rc = "$want" ] && grep -q -- "$pat" "$T/err" "$T/out"; then pass "$what"
    else bad "$what (exit $rc): $(cat "$T/err" "$T/out" | head -3)"; fi
}
$B/test/conv/mkvfd basic "$T" && $B/test/conv/mkvfd otherrun "$T" || { bad mkvfd; exit 1; }
expect 1 "files of different runs" "files of two runs are refused" -- $V -o "$T/x" "$T/basic_0.vfd" "$T/other_1.vfd"
expect 1 "both hold rank 0" "a rank given twice is refused" -- $V -o "$T/x" "$T/basic_0.vfd" "$T/other_0.vfd"
printf 'hello' >"$T/junk.vfd"
expect 1 "junk.vfd: offset" "a non-.vfd file: name and offset" -- $V -o "$T/x" "$T/junk.vfd"
expect 1 "nothing.vfd" "a missing file is named" -- $V -o "$T/x" "$T/nothing.vfd"
expect 2 "missing -o STUB" "no -o: usage error" -- $V "$T/basic_0.vfd"
expect 2 "missing FILE.vfd" "no operand: usage error" -- $V -o "$T/x"
expect 2 "streams" "--streams 0 is refused" -- $V --streams 0 -o "$T/x" "$T/basic_0.vfd"
expect 2 "compress" "--compress=10 is refused" -- $V --compress=10 -o "$T/x" "$T/basic_0.vfd"
expect 2 "jobs" "-j x is refused" -- $V -j x -o "$T/x" "$T/basic_0.vfd"
mkdir "$T/empty"
expect 1 "no .vfd file" "an empty directory is refused" -- $V -o "$T/x" "$T/empty"
expect 1 "cannot" "an unwritable output is reported" -- $V -o /proc/nonexistent/x "$T/basic_0.vfd" "$T/basic_1.vfd"
expect 0 "Usage: vfd2otf" "--help" -- $V --help
expect 0 "vfd2otf (vftr)" "--version" -- $V --version
exit $fail
