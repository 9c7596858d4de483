#!/bin/bash
# otf_compat_copy.sh — copying a trace with the library's copy handlers
# (test/compat/otf_copy) must give the same files with vftr as with the
# reference: through OTF_Reader + OTF_HandlerArray_getCopyHandler into an
# OTF_Writer, and stream by stream through OTF_RStream +
# OTF_HandlerArray_getCopyHandler_stream into OTF_WStreams.
# Environment: see otf_compat_common.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/otf_compat_common.sh
. "$here/otf_compat_common.sh"

compat_setup otf_compat_copy otf_write_all otf_copy

# Input traces, written by the reference.
write_trace "$REF_DIR" "$TMP/in-short" -f short -n 4 -s 2 || fail "reference writer failed (short)"
write_trace "$REF_DIR" "$TMP/in-long" -f long -n 3 -s 4 || fail "reference writer failed (long)"

# copy_case ID INPUT OTF_COPY_ARGS... — both builds copy INPUT; the logs and
# the files (after otfdecompress when compressed) must agree.
copy_case() {
    local id=$1 input=$2 side
    shift 2
    local what="copy $id (otf_copy${*:+ $*})"
    for side in ref vftr; do
        local dir=$REF_DIR
        [ $side = vftr ] && dir=$VFTR_DIR
        mkdir -p "$TMP/$id/$side"
        if ! "$dir/otf_copy" "$@" "$TMP/$input/t" "$TMP/$id/$side/t" >"$TMP/$id/$side.log" \
                2>"$TMP/$id/$side.err"; then
            fail "$what: the $side copy failed"
            show <"$TMP/$id/$side.err"
            return
        fi
    done
    if ! grep -q ' [1-9][0-9]* records$' "$TMP/$id/ref.log"; then
        fail "$what: the reference copied nothing (test bug?)"
        return
    fi
    if ! cmp -s "$TMP/$id/ref.log" "$TMP/$id/vftr.log"; then
        fail "$what: copy logs differ (< reference, > vftr)"
        diff "$TMP/$id/ref.log" "$TMP/$id/vftr.log" | grep '^[<>]' | show
        return
    fi
    for side in ref vftr; do
        if ls "$TMP/$id/$side"/*.z >/dev/null 2>&1; then
            (cd "$TMP/$id/$side" && otfdecompress ./*.z >/dev/null 2>&1) ||
                { fail "$what: otfdecompress of the $side copy failed"; return; }
        fi
    done
    if same_trace_files "$TMP/$id/ref" "$TMP/$id/vftr" >"$TMP/$id/diff"; then
        pass "$what: $(find "$TMP/$id/ref" -name 't.*' | wc -l) files identical"
        return
    fi
    # The reference reads the 64-bit handle of FileOperation and
    # OpenFileSnapshot records with a 32-bit reader, so its copies carry the
    # low 32 bits only.  vftr copies the whole value: the copies must be the
    # same once vftr's handles are cut to 32 bits, and differ nowhere else.
    mkdir -p "$TMP/$id/vftr32"
    for f in "$TMP/$id/vftr"/t.*; do
        truncate_handles <"$f" >"$TMP/$id/vftr32/${f##*/}"
    done
    if same_trace_files "$TMP/$id/ref" "$TMP/$id/vftr32" >"$TMP/$id/diff32"; then
        pass "$what: files identical but for 64-bit handles the reference truncates to 32 bits"
    else
        fail "$what"
        show <"$TMP/$id/diff"
    fi
}

# Cuts the handle of FileOperation (F.../FILEOP) and OpenFileSnapshot
# (TOF.../TOPENFILE) records to its low 32 bits, short and long format.
truncate_handles() {
    perl -pe 'no warnings;
        s/^((?:F|TOF)[0-9a-f]+(?:O[0-9a-f]+)?H)([0-9a-f]+)/$1.sprintf("%x", hex($2) & 0xffffffff)/e;
        s/^((?:FILEOP|TOPENFILE) [0-9a-f]+ (?:OTIME [0-9a-f]+ )?HANDLEID )([0-9a-f]+)/$1.sprintf("%x", hex($2) & 0xffffffff)/e'
}

copy_case writer-short in-short
copy_case writer-long in-long
copy_case writer-short-to-long in-short -f long
copy_case writer-long-to-short-z in-long -z 4
copy_case stream-short in-short --per-stream
copy_case stream-long in-long --per-stream
copy_case stream-short-to-long-z in-short --per-stream -f long -z 2

compat_finish
