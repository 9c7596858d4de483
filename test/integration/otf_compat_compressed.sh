#!/bin/bash
# otf_compat_compressed.sh — vftr's compressed OTF files (*.z) against the
# reference.
#
# Writing: vftr's otf_write_all with -z LEVEL must produce exactly the files
# of an uncompressed run, each with ".z" appended (the master file stays
# plain), and the reference's otfdecompress of every .z file must give back
# the uncompressed bytes (unique id masked).  The compressed bytes themselves
# may differ from the reference's (another deflate implementation is fine).
#
# Reading: vftr's otf_read_all on the reference's .z trace, and on its own,
# must print the dump that the reference reader prints for the decompressed
# trace.  (The reference reader cannot read its own compressed event files
# larger than ~4 KiB with Debian's zlib — see /work/shared/otf-format.md,
# section 8 — so the baseline is always read from otfdecompress output.)
# Environment: see otf_compat_common.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/otf_compat_common.sh
. "$here/otf_compat_common.sh"

compat_setup otf_compat_compressed otf_write_all otf_read_all
if ! command -v otfdecompress >/dev/null; then
    fail "otfdecompress not found (install otf-trace)"
    exit 1
fi

# Self-test: the reference reader cannot stand in for vftr's on .z event
# files, so the "vftr" reader becomes the reference reader behind
# otfdecompress (what a correct compressed reader must deliver).
if [ "${VFTR_COMPAT_SELFTEST:-0}" = 1 ]; then
    VFTR_DIR=$TMP/selftest-vftr
    mkdir -p "$VFTR_DIR"
    ln -s "$(cd "$REF_DIR" && pwd)/otf_write_all" "$VFTR_DIR/otf_write_all"
    cat >"$VFTR_DIR/otf_read_all" <<EOF
#!/bin/bash
# otf_read_all ARGS... STUB, reading a decompressed copy of STUB's files.
stub=\${!#}
d=\$(mktemp -d) || exit 1
trap 'rm -rf "\$d"' EXIT
cp "\$stub".* "\$d/" && for z in "\$d"/*.z; do
    [ -e "\$z" ] || continue
    otfdecompress "\$z" >/dev/null 2>&1 || exit 1
done
"$(cd "$REF_DIR" && pwd)/otf_read_all" "\${@:1:\$#-1}" "\$d/\$(basename "\$stub")"
EOF
    chmod +x "$VFTR_DIR/otf_read_all"
    echo "# self-test: vftr side = reference writer, reference reader behind otfdecompress"
fi

# decompress_trace SRC DST — DST gets the master file and otfdecompress's
# output for every .z file of SRC.
decompress_trace() {
    local src=$1 dst=$2
    mkdir -p "$dst"
    cp "$src/t.otf" "$dst/" 2>/dev/null
    otfdecompress -o "$dst" "$src"/*.z >"$dst/otfdecompress.log" 2>&1 &&
        rm -f "$dst/otfdecompress.log"
}

# check_written ID ARGS... — vftr writes the trace with ARGS (which contain
# -z) and without compression; compares as described above.  Leaves
# $TMP/ID/{vftr,vftr-plain,vftr-dec} behind.
check_written() {
    local id=$1 f rc=0
    shift
    local plain_args=() a skip=0
    for a in "$@"; do
        if [ $skip = 1 ]; then skip=0; continue; fi
        [ "$a" = -z ] && { skip=1; continue; }
        plain_args+=("$a")
    done
    local what="$id: vftr's compressed files decompress to its uncompressed ones ($*)"
    if ! write_trace "$VFTR_DIR" "$TMP/$id/vftr" "$@" ||
       ! write_trace "$VFTR_DIR" "$TMP/$id/vftr-plain" "${plain_args[@]}"; then
        fail "$what: vftr's writer failed"
        show <"$TMP/$id/vftr/err"
        return 1
    fi
    # Expected names: every file of the plain run, with .z except the master.
    (cd "$TMP/$id/vftr-plain" && find . -maxdepth 1 -name 't.*' -printf '%f\n' |
        sed '/^t\.otf$/!s/$/.z/' | sort) >"$TMP/$id/names.expected"
    (cd "$TMP/$id/vftr" && find . -maxdepth 1 -name 't.*' -printf '%f\n' | sort) >"$TMP/$id/names.actual"
    if ! cmp -s "$TMP/$id/names.expected" "$TMP/$id/names.actual"; then
        fail "$what: file names (< expected, > written)"
        diff "$TMP/$id/names.expected" "$TMP/$id/names.actual" | grep '^[<>]' | show
        return 1
    fi
    for f in "$TMP/$id/vftr"/*.z; do
        if [ "$(head -c 1 "$f" | od -An -tx1 | tr -d ' ')" != 78 ]; then
            fail "$what: $(basename "$f") does not start with a zlib header"
            rc=1
        fi
    done
    if ! decompress_trace "$TMP/$id/vftr" "$TMP/$id/vftr-dec"; then
        fail "$what: otfdecompress failed"
        show <"$TMP/$id/vftr-dec/otfdecompress.log"
        return 1
    fi
    if same_trace_files "$TMP/$id/vftr-plain" "$TMP/$id/vftr-dec" >"$TMP/$id/dec.diff"; then
        [ $rc = 0 ] && pass "$what: $(cat "$TMP/$id/vftr-dec"/t.* | wc -c) bytes of text"
    else
        fail "$what"
        show <"$TMP/$id/dec.diff"
        rc=1
    fi
    # And the text is the reference's (unique id masked).
    local ref_what="$id: vftr's decompressed files equal the reference's uncompressed ones"
    if ! write_trace "$REF_DIR" "$TMP/$id/ref-plain" "${plain_args[@]}"; then
        fail "$ref_what: the reference writer failed"
        return 1
    fi
    if same_trace_files "$TMP/$id/ref-plain" "$TMP/$id/vftr-dec" >"$TMP/$id/ref.diff"; then
        pass "$ref_what"
    else
        fail "$ref_what"
        show <"$TMP/$id/ref.diff"
        rc=1
    fi
    return $rc
}

# prepare_ref ID ARGS... — the reference's compressed trace and its
# decompressed copy ($TMP/ID/ref, $TMP/ID/ref-dec).
prepare_ref() {
    local id=$1
    shift
    if ! write_trace "$REF_DIR" "$TMP/$id/ref" "$@" ||
       ! decompress_trace "$TMP/$id/ref" "$TMP/$id/ref-dec"; then
        fail "$id: reference writer or otfdecompress failed ($*)"
        return 1
    fi
}

# compressed_read ID "EXPECT_OPTS" ARGS... — baseline: reference reader on
# the decompressed reference trace (counts checked); then vftr's reader on
# the reference's .z trace and on its own .z trace.
n_read=0
compressed_read() {
    local id=$1 opts=$2 d label
    shift 2
    n_read=$((n_read + 1))
    d=$TMP/zread$n_read
    mkdir -p "$d"
    local what="$id: otf_read_all ${*:-(all)}"
    if ! read_dump "$REF_DIR" "$TMP/$id/ref-dec/t" "$d/base" "$@"; then
        fail "$what: the reference reader failed on the decompressed trace (test bug?)"
        show <"$d/base.err"
        return
    fi
    # shellcheck disable=SC2086  # $opts is an option list
    check_counts "$d/base" "$what: reference on decompressed reference" $opts || return
    for trace in ref vftr; do
        label="$what: vftr reader on $trace's .z files equals the reference"
        if ! read_dump "$VFTR_DIR" "$TMP/$id/$trace/t" "$d/vftr-on-$trace" "$@"; then
            fail "$label (exit status not 0)"
            show <"$d/vftr-on-$trace.err"
            continue
        fi
        if [ $trace = ref ]; then
            if cmp -s "$d/base" "$d/vftr-on-$trace"; then
                pass "$label"
            else
                if same_dump "$d/base" "$d/vftr-on-$trace" "$label"; then
                    if [ -n "$note" ]; then pass "$label ($note)"; else fail "$label (unique id differs)"; fi
                fi
            fi
        elif same_dump "$d/base" "$d/vftr-on-$trace" "$label"; then
            pass "$label${note:+ ($note)}"
        fi
    done
}

# --- small traces (time-error stream included) ---------------------------------
prepare_ref small -z 4 -n 3 -s 2
check_written small -z 4 -n 3 -s 2
compressed_read small "n=3 s=2"
compressed_read small "n=3 s=2" --limit 5
compressed_read small "n=3 s=2 rstream=1" --rstream 1
compressed_read small "n=3 s=2 disable=64 window=4096:4700" --disable 64 --window 4096:4700

prepare_ref long -f long -z 9 -n 3 -s 3
check_written long -f long -z 9 -n 3 -s 3
compressed_read long "n=3 s=3"

# Definitions and markers are read linearly, which the reference manages even
# for compressed files: it must read vftr's .z definitions too.
d=$TMP/defs
mkdir -p "$d"
if read_dump "$REF_DIR" "$TMP/small/ref-dec/t" "$d/base" --defs --markers &&
   read_dump "$REF_DIR" "$TMP/small/vftr/t" "$d/ref-on-vftr" --defs --markers; then
    same_dump "$d/base" "$d/ref-on-vftr" "small: reference reader on vftr's .z definitions and markers" &&
        pass "small: reference reader on vftr's .z definitions and markers"
else
    fail "small: reference reader on vftr's .z definitions and markers (reader failed)"
    show <"$d/ref-on-vftr.err"
fi

# A trace that mixes compressed and plain files: the reader takes the plain
# name when it exists and the .z name otherwise.
mkdir -p "$TMP/mixed/ref"
cp "$TMP/small/ref"/* "$TMP/mixed/ref/"
for f in t.0.def t.1.events t.2.snaps t.1.stats; do
    cp "$TMP/small/ref-dec/$f" "$TMP/mixed/ref/" && rm -f "$TMP/mixed/ref/$f.z"
done
if read_dump "$VFTR_DIR" "$TMP/mixed/ref/t" "$TMP/mixed/dump" &&
   read_dump "$REF_DIR" "$TMP/small/ref-dec/t" "$TMP/mixed/base"; then
    if cmp -s "$TMP/mixed/base" "$TMP/mixed/dump"; then
        pass "mixed: vftr reader on a trace of plain and .z files equals the reference"
    else
        label="mixed: vftr reader on a trace of plain and .z files equals the reference"
        if same_dump "$TMP/mixed/base" "$TMP/mixed/dump" "$label"; then
            if [ -n "$note" ]; then pass "$label ($note)"; else fail "$label (unique id differs)"; fi
        fi
    fi
else
    fail "mixed: vftr reader on a trace of plain and .z files (reader failed)"
    show <"$TMP/mixed/dump.err"
fi

# --- large traces: several MiB of text per file, so several flush segments ------
N=400
prepare_ref big -x -z 4 -n $N -s 2
check_written big -x -z 4 -n $N -s 2
for f in "$TMP/big/ref-dec/t.1.events" "$TMP/big/vftr-dec/t.1.events"; do
    [ -f "$f" ] || continue
    size=$(wc -c <"$f")
    if [ "$size" -gt $((3 * 1024 * 1024)) ]; then
        pass "big: $(basename "$(dirname "$f")")/t.1.events has $size bytes of text (several segments)"
    else
        fail "big: $(basename "$(dirname "$f")")/t.1.events has only $size bytes of text (test too small)"
    fi
done
end=$((T0 + N * ROUND + 2))
tail=$((end - (end + 999) / 1000))
big_windows=(
    "0:$((T0 + ROUND))"
    "$((T0 + 3 * ROUND)):$((T0 + 5 * ROUND))"
    "$((T0 + 110 * ROUND + 7)):$((T0 + 111 * ROUND))"   # near the first segment boundary
    "$((T0 + 200 * ROUND)):$((T0 + 260 * ROUND))"
    "$((T0 + 333 * ROUND + 3 * SLOT)):$((T0 + 333 * ROUND + 12 * SLOT))"
    "$tail:$((end + 1))"                                # the last 0.1 %
    "$((T0 + 250 * ROUND + 17 * SLOT)):$((T0 + 251 * ROUND))"  # a gap: no event
    "$((end + 1)):$((end + 100))"                       # after the end
)
compressed_read big "n=$N s=2 victim=0"
for w in "${big_windows[@]}"; do
    compressed_read big "n=$N s=2 victim=0 window=$w" --window "$w"
done
compressed_read big "n=$N s=2 victim=0 window=${big_windows[3]}" --window "${big_windows[3]}" --limit 1000
compressed_read big "n=$N s=2 victim=0 window=${big_windows[4]} disable=1,6" --window "${big_windows[4]}" --disable 1,6

# Small text buffers and level 1: many small segments.
prepare_ref seg -x -z 1 -b 65536 -n 60 -s 3
check_written seg -x -z 1 -b 65536 -n 60 -s 3
compressed_read seg "n=60 s=3 victim=0 window=$((T0 + 17 * ROUND + 5)):$((T0 + 41 * ROUND))" \
    --window "$((T0 + 17 * ROUND + 5)):$((T0 + 41 * ROUND))"
compressed_read seg "n=60 s=3 victim=0 window=$((T0 + 59 * ROUND)):$((T0 + 61 * ROUND))" \
    --window "$((T0 + 59 * ROUND)):$((T0 + 61 * ROUND))" --unsorted

compat_finish
