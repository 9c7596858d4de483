#!/bin/bash
# otf_compat_misc.sh — the smaller parts of the OTF API (conversions, file
# names, file manager, key-value lists, master control, the reader's process
# filter, buffer and progress functions, the writer's getters) through
# test/compat/otf_api_misc: the reference build and the vftr build must print
# the same (standard output and error together, since OTF_MasterControl_print
# writes to stderr) and write the same trace.
# Environment: see otf_compat_common.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/otf_compat_common.sh
. "$here/otf_compat_common.sh"

compat_setup otf_compat_misc otf_write_all otf_api_misc

write_trace "$REF_DIR" "$TMP/in" -x -n 8 -s 3 || { fail "reference writer failed"; compat_finish; }
for side in ref vftr; do
    dir=$REF_DIR
    [ $side = vftr ] && dir=$VFTR_DIR
    mkdir -p "$TMP/$side"
    "$dir/otf_api_misc" "$TMP/in/t" "$TMP/$side/t" >"$TMP/$side.out" 2>&1
    echo $? >"$TMP/$side.rc"
done

if [ "$(cat "$TMP/ref.rc")" != 0 ] || [ "$(wc -l <"$TMP/ref.out")" -lt 100 ]; then
    fail "otf_api_misc (reference build failed or printed too little; test bug?)"
    show <"$TMP/ref.out"
    compat_finish
fi
if [ "$(cat "$TMP/vftr.rc")" != 0 ]; then
    fail "otf_api_misc with vftr exits $(cat "$TMP/vftr.rc")"
    tail -n 5 "$TMP/vftr.out" | show
fi

# One check per section of the output, so a failure says where.
sections=(
    "conversions:^(Double2|Float2|Signed2|Unsigned2)"
    "file names:^(getFilename|stripFilename)"
    "file manager:^FileManager"
    "key-value lists:^(append|list|get[A-Z]|  len|  length|hasKey|clone|removeKey|d |realloc|reset|close =)"
    "master control:^(new stream|append [0-9]|appendList|stream [0-9]|reverse|mapReverse|clone count|map:|rmap:|[0-9]+: )"
    "reader:^(buffer sizes|setBufferSizes|disable|enable|setProcessStatusAll|events of|  handled|event|after reset|snapshot|statistic|getStream|closeAllStreams|close = )"
    "writer:^(zbuffer|map [0-9]|master control:|enter)"
)
# Bytes progress counts file offsets, which depend on how far each library's
# time search lands before the window: it must be a sane range that ends
# complete, not the reference's numbers.
progress_ok=1
while read -r what _ rc _ mn _ cur _ mx; do
    if [ "$rc" != 1 ] || [ "$mn" -gt "$cur" ] || [ "$cur" -gt "$mx" ]; then
        progress_ok=0
        echo "    $what rc $rc min $mn cur $cur max $mx"
    fi
done < <(grep -E '^[a-z]+BytesProgress:' "$TMP/vftr.out")
if [ "$progress_ok" = 1 ] && grep -qE '^[a-z]+BytesProgress:' "$TMP/vftr.out"; then
    pass "otf_api_misc: bytes progress is a range min <= cur <= max"
else
    fail "otf_api_misc: bytes progress is not a range min <= cur <= max"
fi
for f in ref vftr; do
    grep -vE '^[a-z]+BytesProgress:' "$TMP/$f.out" >"$TMP/$f.nobytes"
done

for s in "${sections[@]}"; do
    name=${s%%:*}
    re=${s#*:}
    grep -E "$re" "$TMP/ref.nobytes" >"$TMP/ref.part"
    grep -E "$re" "$TMP/vftr.nobytes" >"$TMP/vftr.part"
    if [ ! -s "$TMP/ref.part" ]; then
        fail "otf_api_misc $name: no output from the reference (test bug?)"
    elif cmp -s "$TMP/ref.part" "$TMP/vftr.part"; then
        pass "otf_api_misc $name: $(wc -l <"$TMP/ref.part") lines identical"
    else
        fail "otf_api_misc $name (< reference, > vftr)"
        diff "$TMP/ref.part" "$TMP/vftr.part" | grep '^[<>]' | show
    fi
done
if cmp -s "$TMP/ref.nobytes" "$TMP/vftr.nobytes"; then
    pass "otf_api_misc: whole output identical but for bytes progress ($(wc -l <"$TMP/ref.nobytes") lines)"
else
    fail "otf_api_misc: whole output differs (< reference, > vftr)"
    diff "$TMP/ref.nobytes" "$TMP/vftr.nobytes" | grep '^[<>]' | show
fi
if same_trace_files "$TMP/ref" "$TMP/vftr" >"$TMP/files.diff"; then
    pass "otf_api_misc: written trace identical"
else
    fail "otf_api_misc: written trace differs"
    show <"$TMP/files.diff"
fi

compat_finish
