#!/bin/bash
# vftr_dump_check.sh — vftr-dump --check (lib/model/check.h): the
# invariants of a trace, on traces that break one each, written by the
# reference OTF library and by vftr's (test/compat/check_fixture.c lists
# them), on a stream edited to go back in time, on a .vfd whose records do
# not fit their stacks, and on real traces: the demo's .vfd run and its OTF
# conversion, which must hold.
set -u
: "${BUILD:=build}"
export LC_ALL=C
DUMP="$BUILD/bin/vftr-dump"
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vftr_dump_check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Expected: the violation lines without the "vftr-dump: NAME: " prefix,
# then the exit status.
expect() {
    case $1 in
    ok) echo "0" ;;
    wrongleave) printf '%s\n' "time 1020, process 1: Leave of g while f (entered at 1010) is the open call; it is not open at all" 1 ;;
    badorder) printf '%s\n' "time 1020, process 1: Leave of main while f (entered at 1010) is the open call" 1 ;;
    empty) printf '%s\n' "time 1030, process 2: Leave of g with no call open" 1 ;;
    open) printf '%s\n' "time 1070, process 2: call of main entered at 1000 never left" 1 ;;
    nosend) printf '%s\n' "time 1101, process 2: receive from 1 (communicator 1, tag 9) without a matching send" 1 ;;
    early) printf '%s\n' "time 1030, process 1: message to 2 (communicator 1, tag 7) received at 1025, before it was sent" 1 ;;
    collend) printf '%s\n' "time 1101, process 2: end of collective operation 2 that did not begin" 1 ;;
    collopen) printf '%s\n' "time 1100, process 1: 1 collective operation(s) begun and never ended" 1 ;;
    undefined) printf '%s\n' "time 1010, process 1: function 4 is not defined" \
                              "time 1060, process 2: communicator 5 is not defined" 1 ;;
    backwards) printf '%s\n' "time 1005, process 1: time goes back (the previous event was at 1010)" 1 ;;
    fileend) printf '%s\n' "time 1101, process 2: end of file operation 3 that did not begin" 1 ;;
    fileopen) printf '%s\n' "time 1100, process 1: 1 file operation(s) begun and never ended" 1 ;;
    fileundef) printf '%s\n' "time 1085, process 1: file 7 is not defined" 1 ;;
    esac
}
run() {    # the violation lines of TRACE, then the exit status
    local out rc
    out=$("$DUMP" --check "$1" 2>&1); rc=$?
    grep -v ': consistent: \|violations\? in ' <<<"$out" | sed 's/^vftr-dump: [^:]*: //'
    echo "$rc"
}
for w in ref vftr; do
    mkdir -p "$tmp/$w"
    "$BUILD/test/compat/$w/check_fixture" "$tmp/$w" || { fail "$w check_fixture"; continue; }
    # a stream that goes back: P1 leaves f at 1005 (0x3ed) where it was
    # entered at 1010 (the writers refuse such a record, so it is edited in)
    for f in "$tmp/$w/ok".*; do cp "$f" "$tmp/$w/backwards${f#"$tmp/$w/ok"}"; done
    sed -i 's/^3fc$/3ed/' "$tmp/$w/backwards.1.events"
    for s in ok wrongleave badorder empty open nosend early collend collopen undefined backwards \
             fileend fileopen fileundef; do
        check "$s ($w-written): the violation, exit status" "$(expect $s)" "$(run "$tmp/$w/$s")"
    done
done
out=$("$DUMP" --check "$tmp/ref/ok")
check "a sound trace: one summary line" \
      "vftr-dump: $tmp/ref/ok: consistent: 14 events of 2 processes checked (0 sends never received)" "$out"
"$DUMP" --check -e "$tmp/ref/ok" >/dev/null 2>&1
check "--check with another option: usage error" 2 "$?"

# A .vfd whose records do not fit their stack (test/conv/mkvfd misfit).
if [ -x "$BUILD/test/conv/mkvfd" ]; then
    mkdir -p "$tmp/vfd"
    "$BUILD/test/conv/mkvfd" misfit "$tmp/vfd" >/dev/null && {
        out=$("$DUMP" --check "$tmp/vfd" 2>&1); rc=$?
        check ".vfd with misfit records: exit 1" 1 "$rc"
        check ".vfd: the EXIT that is not on the stack is named" 1 \
              "$(grep -c 'EXIT of a call path that is not on the stack: ignored (call path 3)' <<<"$out")"
        check ".vfd: the ENTER under the wrong caller is named" 1 \
              "$(grep -c 'ENTER whose caller is not the current call path' <<<"$out")"
    } || fail "mkvfd misfit"
fi

# The demo's capture and its conversion hold, through both readers.
if [ -d "$BUILD/demo/heat-run" ]; then
    "$DUMP" --check "$BUILD/demo/heat-run" >/dev/null 2>&1
    check "the demo's .vfd run is consistent" 0 "$?"
fi
exit $failed
