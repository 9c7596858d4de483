#!/bin/bash
# otf_compat_write.sh — vftr's OTF writer must produce the reference's files
# byte for byte.
#
# For each configuration, test/compat/otf_write_all runs once built against
# the reference and once against vftr with the same options; the two traces
# must consist of the same files with the same bytes (the unique id masked,
# see mask_def), and the writers' logs (process mapping, getters, every write
# call that returned 0) must be identical.  Environment: see
# otf_compat_common.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/otf_compat_common.sh
. "$here/otf_compat_common.sh"

compat_setup otf_compat_write otf_write_all

# One configuration per line: options of otf_write_all.
configs=(
    "-f short -n 3 -s 2"            # two streams, three processes each
    "-f long -n 3 -s 2"
    "-f short -n 2 -s 1"            # all six processes merged into one stream
    "-f long -n 2 -s 4"             # streams with two and with one process
    "-f short -n 2 -s 9"            # more streams than processes
    "-f short -n 3 -s 3 -m 2"       # two open files at most: suspend / reopen
    "-f long -n 3 -s 3 -m 1"
    "-f short -n 20 -s 2 -b 4096"   # small buffers: many flushes
    "-f short -x -n 5 -s 2"         # no stream with a time error
)

i=0
for cfg in "${configs[@]}"; do
    i=$((i + 1))
    what="writer output identical ($cfg)"
    # shellcheck disable=SC2086  # $cfg is an option list
    write_trace "$REF_DIR" "$TMP/$i/ref" $cfg
    ref_rc=$?
    # shellcheck disable=SC2086
    write_trace "$VFTR_DIR" "$TMP/$i/vftr" $cfg
    vftr_rc=$?
    if [ $ref_rc -ne 0 ]; then
        fail "$what: the reference writer failed (exit $ref_rc)"
        show <"$TMP/$i/ref/err"
        continue
    fi
    if [ $vftr_rc -ne 0 ]; then
        fail "$what: vftr's writer failed (exit $vftr_rc)"
        show <"$TMP/$i/vftr/err"
        continue
    fi
    # An empty or tiny reference trace would make the comparison worthless.
    nfiles=$(find "$TMP/$i/ref" -name 't.*' -size +0 | wc -l)
    if [ "$nfiles" -lt 6 ]; then
        fail "$what: the reference wrote only $nfiles non-empty files (test bug?)"
        continue
    fi
    if ! cmp -s "$TMP/$i/ref/log" "$TMP/$i/vftr/log"; then
        fail "$what: writer logs differ (< reference, > vftr)"
        diff "$TMP/$i/ref/log" "$TMP/$i/vftr/log" | grep '^[<>]' | show
        continue
    fi
    if same_trace_files "$TMP/$i/ref" "$TMP/$i/vftr" >"$TMP/$i/diff"; then
        pass "$what: $nfiles files, $(cat "$TMP/$i/ref"/t.* | wc -c) bytes"
    else
        fail "$what"
        show <"$TMP/$i/diff"
    fi
done

# The unique id must still be a 64-bit hex number on line 2 of STUB.0.def
# (the masking above hides its value, not its presence).
if sed -n 2p "$TMP/1/vftr/t.0.def" 2>/dev/null | grep -qE '^DUI[0-9a-f]{1,16}$' &&
   sed -n 2p "$TMP/2/vftr/t.0.def" 2>/dev/null | grep -qE '^DEFUNIQUEID [0-9a-f]{1,16}$'; then
    pass "unique id line present in short and long format"
else
    fail "unique id line missing or malformed in line 2 of t.0.def"
fi

# Two runs of the same writer differ only in the unique id: a sanity check
# that the masking hides nothing else and that vftr's writer is deterministic.
write_trace "$VFTR_DIR" "$TMP/again" -f short -n 3 -s 2
if same_trace_files "$TMP/1/vftr" "$TMP/again" >"$TMP/again.diff"; then
    pass "vftr's writer is deterministic apart from the unique id"
else
    fail "vftr's writer is not deterministic"
    show <"$TMP/again.diff"
fi

compat_finish
