#!/bin/bash
# wrong_input.sh — a file or directory of the wrong kind gets a message that
# says what it is and what the tool expected (issue 16), never "No such file
# or directory" for something that exists, and never a crash.
#
# Inputs made here: a text file (a log), an empty file, a program (ELF), an
# empty directory, a directory with unrelated files, a run directory of .vfd
# files (test/conv/mkvfd), one .vfd file, its OTF conversion, and an OTF2
# archive (vftr-convert).  Each tool gets the kinds it does not take; the
# expected words are written here by hand from what each input is.
set -u
: "${BUILD:=build}"
export LC_ALL=C
case $BUILD in /*) B=$BUILD ;; *) B=$PWD/$BUILD ;; esac
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# expect NAME STATUS REGEX CMD...: exit status and a stderr line matching REGEX
expect() {
    local name=$1 want=$2 re=$3
    shift 3
    "$@" >/dev/null 2>"$T/err" </dev/null
    local rc=$?
    if [ "$rc" != "$want" ]; then
        fail "$name: exit $rc, expected $want ($(head -2 "$T/err" | tr '\n' ' '))"
    elif ! grep -Eq -- "$re" "$T/err"; then
        fail "$name: message '$(head -2 "$T/err" | tr '\n' ' ')' lacks /$re/"
    elif grep -q 'No such file or directory' "$T/err"; then
        fail "$name: says 'No such file or directory' for a path that exists"
    else
        pass "$name"
    fi
}

cd "$T" || exit 1
printf 'vftr 0.1.0 log of ./heat, rank 0\nprofile follows\n' > app_0.log
: > empty.txt
cp /bin/true prog
mkdir emptydir otherdir
echo notes > otherdir/README
mkdir run && "$B/test/conv/mkvfd" basic run >/dev/null || { fail "mkvfd basic"; exit 1; }
"$B/bin/vfd2otf" -q -o conv run || { fail "vfd2otf on the run"; exit 1; }
have_otf2=0
if "$B/bin/vftr-convert" -q -o arch.otf2 run 2>/dev/null && [ -e arch.otf2/traces.otf2 ]; then
    have_otf2=1
fi

ALL="expected an OTF trace \(foo or foo.otf\), an OTF2 archive .* or \.vfd files or a run directory"
for tool in vftr-stats vftr-dump vftr-convert vftr-tui; do
    extra=()
    [ $tool = vftr-convert ] && extra=(-o out.json)
    expect "$tool on a log file: a text file, not a trace" 1 \
        "^$tool: app_0\.log: a text file \(its first line: 'vftr 0\.1\.0 log of \./heat, rank 0'\), not a trace: $ALL" \
        "$B/bin/$tool" "${extra[@]}" app_0.log
    expect "$tool on an empty file" 1 "^$tool: empty\.txt: an empty file, not a trace" \
        "$B/bin/$tool" "${extra[@]}" empty.txt
    expect "$tool on a program" 1 "^$tool: prog: a program or library \(ELF\), not a trace" \
        "$B/bin/$tool" "${extra[@]}" prog
    expect "$tool on an empty directory" 1 \
        "^$tool: emptydir: a directory with no \.vfd file, OTF2 archive or OTF trace in it" \
        "$B/bin/$tool" "${extra[@]}" emptydir
    expect "$tool on a directory of other files" 1 \
        "^$tool: otherdir: a directory with no \.vfd file" "$B/bin/$tool" "${extra[@]}" otherdir
done

# vftr-snap: OTF and .vfd input (a run's OTF trace, vfd_input.sh); an
# OTF2 archive is named, with what to run
expect "vftr-snap on a log file: not a trace, an OTF trace or .vfd files expected" 1 \
    "^vftr-snap: app_0\.log: a text file .*, not a trace: expected an OTF trace \(foo or foo\.otf\) or \.vfd files or a run directory of vftr's capture$" \
    "$B/bin/vftr-snap" app_0.log
if [ $have_otf2 = 1 ]; then
    expect "vftr-snap on an OTF2 archive: says to convert it" 2 \
        "^vftr-snap: arch\.otf2: an OTF2 archive, where an OTF trace .* was expected; convert it first: vftr-convert -o TRACE\.otf arch\.otf2$" \
        "$B/bin/vftr-snap" arch.otf2
    expect "vfd2otf on an OTF2 archive" 2 "^vfd2otf: arch\.otf2: an OTF2 archive, where \.vfd files" \
        "$B/bin/vfd2otf" -o x arch.otf2
fi
# .vfd only: an OTF trace is converted already
expect "vfd2otf on an OTF trace: converted already" 2 \
    "^vfd2otf: conv: an OTF trace, where \.vfd files or a run directory of vftr's capture was expected \(it is converted already" \
    "$B/bin/vfd2otf" -o x conv
expect "vfd2otf on a log file" 1 "^vfd2otf: app_0\.log: a text file .*, not a trace: expected \.vfd files or a run directory" \
    "$B/bin/vfd2otf" -o x app_0.log

# a rank name the input does not have says which it has
expect "vftr-dump -p 'rank 1' on rank 0's .vfd file" 1 \
    "^vftr-dump: run/basic_0\.vfd: no rank 1 in this file \(it holds rank 0\)$" \
    "$B/bin/vftr-dump" -e -p 'rank 1' run/basic_0.vfd
expect "vftr-stats -p 'rank 5' on a 2-rank run" 1 "^vftr-stats: run/?: no rank 5 in the trace \(it has ranks 0-1\)$" \
    "$B/bin/vftr-stats" -p 'rank 5' run
n=$("$B/bin/vftr-dump" -e -p 'rank 0 thread 0' run/basic_0.vfd 2>/dev/null | wc -l)
[ "$n" -gt 0 ] && pass "vftr-dump -p 'rank 0 thread 0' on rank 0's file: $n events" ||
    fail "vftr-dump -p 'rank 0 thread 0' printed nothing"

# the right inputs still work, named either way
for op in conv conv.otf run run/basic_0.vfd; do
    if "$B/bin/vftr-stats" "$op" >/dev/null 2>&1; then pass "vftr-stats takes $op"
    else fail "vftr-stats refuses $op"; fi
done
exit $failed
