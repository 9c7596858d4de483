#!/bin/bash
# otf_compat_rewrite.sh — a trace written over an older one of the same name
# (test/compat/otf_rewrite): closing a writer that never had a process must
# write the master control file as the reference does (empty), so that the
# old event files are no longer read with the new definitions.  Both builds
# must print the same and leave the same files.
# Environment: see otf_compat_common.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/otf_compat_common.sh
. "$here/otf_compat_common.sh"

compat_setup otf_compat_rewrite otf_rewrite

for side in ref vftr; do
    dir=$REF_DIR
    [ $side = vftr ] && dir=$VFTR_DIR
    mkdir -p "$TMP/$side"
    "$dir/otf_rewrite" "$TMP/$side/t" >"$TMP/$side.out" 2>&1
    echo $? >"$TMP/$side.rc"
done

# The reference's own account: the first trace reads, the later ones leave
# an empty master control file that no reader opens.
if [ "$(cat "$TMP/ref.rc")" != 0 ] ||
   [ "$(grep -c 'reader: 2 streams, definitions 6, events 4' "$TMP/ref.out")" != 1 ] ||
   [ "$(grep -c 'STUB.otf: 0 bytes' "$TMP/ref.out")" != 2 ]; then
    fail "otf_rewrite: the reference does not behave as this test expects (test bug?)"
    show <"$TMP/ref.out"
    compat_finish
fi
if [ "$(cat "$TMP/vftr.rc")" != 0 ]; then
    fail "otf_rewrite with vftr exits $(cat "$TMP/vftr.rc")"
    show <"$TMP/vftr.out"
elif cmp -s "$TMP/ref.out" "$TMP/vftr.out"; then
    pass "otf_rewrite: vftr closes, writes and reads as the reference ($(wc -l <"$TMP/ref.out") lines)"
else
    fail "otf_rewrite: vftr differs from the reference (< reference, > vftr)"
    diff "$TMP/ref.out" "$TMP/vftr.out" | grep '^[<>]' | show
fi
if same_trace_files "$TMP/ref" "$TMP/vftr" >"$TMP/files.diff"; then
    pass "otf_rewrite: the files left are the reference's"
else
    fail "otf_rewrite: the files left differ from the reference's"
    show <"$TMP/files.diff"
fi

compat_finish
