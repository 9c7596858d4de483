#!/bin/bash
# vfd_unfinished.sh — what a run directory's .tmpvfd files become (issue
# 14, item 7: a crashed rank must not disappear quietly).  A .tmpvfd is the
# trace of a process that did not end normally (killed, or still running):
# lib/model/vfdfiles.c takes those of the directory's run, read up to their
# last whole chunk, and skips the others, each with a warning that names
# the file and says why.  Every tool that reads a run follows that one rule.
#
# The directory, made from mkvfd's runs: basic (ranks 0 and 1 of one run)
# with rank 1 renamed to a .tmpvfd; other's rank 0 (another run) as a
# .tmpvfd; sample's file (no rank, another run) as a .tmpvfd.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"

mkdir -p "$T/run" "$T/other" "$T/sample"
$B/test/conv/mkvfd basic "$T/run" && $B/test/conv/mkvfd otherrun "$T/other" &&
    $B/test/conv/mkvfd sample "$T/sample" || { bad "mkvfd"; exit 1; }
mv "$T/run/basic_1.vfd" "$T/run/basic_4242.tmpvfd"
mv "$T/other/other_0.vfd" "$T/run/other_777.tmpvfd"
mv "$T/sample"/sample_*.vfd "$T/run/sample_888.tmpvfd"

for tool in vfd2otf vftr-stats vftr-dump; do
    case $tool in
        vfd2otf) "$B/bin/vfd2otf" -q -o "$T/t" "$T/run" >"$T/out" 2>"$T/err" ;;
        vftr-stats) "$B/bin/vftr-stats" --csv "$T/run" >"$T/out" 2>"$T/err" ;;
        vftr-dump) "$B/bin/vftr-dump" --check "$T/run" >"$T/out" 2>"$T/err" ;;
    esac
    rc=$?
    [ $rc = 0 ] && pass "$tool: the directory is read (exit 0)" || bad "$tool: exit $rc: $(head -3 "$T/err")"
    grep -q "basic_4242.tmpvfd: rank 1 did not end normally (killed, or still running): read up to its last whole chunk" "$T/err" \
        && pass "$tool: the unfinished rank is read, and named with its rank" \
        || bad "$tool: no word on basic_4242.tmpvfd: $(cat "$T/err")"
    grep -q "other_777.tmpvfd: skipped: it belongs to another run" "$T/err" \
        && pass "$tool: a .tmpvfd of another run is skipped, and said why" \
        || bad "$tool: no word on other_777.tmpvfd"
    grep -q "sample_888.tmpvfd: skipped: " "$T/err" \
        && pass "$tool: a .tmpvfd with no rank (another run) is skipped, and said why" \
        || bad "$tool: no word on sample_888.tmpvfd"
done
# the trace has both ranks of the run
n=$("$B/bin/vftr-dump" -d "$T/t" | grep -c '^DefProcess .*name="Rank [01]"')
[ "$n" = 2 ] && pass "the trace holds both ranks" || bad "the trace holds $n ranks"
# named explicitly, a .tmpvfd of another run is refused like any file of one
"$B/bin/vfd2otf" -q -o "$T/u" "$T/run/basic_4242.tmpvfd" "$T/run/other_777.tmpvfd" >/dev/null 2>"$T/err"
[ $? != 0 ] && grep -q "files of different runs" "$T/err" \
    && pass "operands of two runs are refused" || bad "operands of two runs: $(cat "$T/err")"
exit $fail
