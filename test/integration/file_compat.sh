#!/bin/bash
# file_compat.sh — vftr's compressed files against the reference OTF tools.
#
# Uses $BUILD/test/compat/{vftr,ref}/zfile_roundtrip (test/compat/zfile_roundtrip.c
# built against each library) and the reference tools otfdecompress,
# otfcompress and otfprint.  Prints one PASS:/FAIL: line per check and exits
# non-zero if any failed.
set -u
: "${BUILD:=build}"
VFTR="$BUILD/test/compat/vftr/zfile_roundtrip"
REF="$BUILD/test/compat/ref/zfile_roundtrip"
failures=0

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { # check <description> <command...>
    local what=$1
    shift
    if "$@" >/dev/null 2>&1; then pass "$what"; else fail "$what"; fi
}

for tool in "$VFTR" "$REF" otfdecompress otfcompress otfprint; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        fail "file_compat: $tool not found"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vftr_file_compat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# About 3 MB of event text shaped like OTF's (time, process, record lines).
awk 'BEGIN { t = 1000000000; s = 7;
    for (i = 0; i < 120000; i++) {
        s = (s * 1103515245 + 12345) % 2147483648;
        t += 1 + s % 300; p = 1 + int(s / 7) % 16; f = 1 + int(s / 131) % 20;
        printf "%x\n*%x\n", t, p;
        r = int(s / 1013) % 4;
        if (r == 0) printf "E%x\n", f; else if (r == 1) printf "L%x\n", f;
        else if (r == 2) printf "S%xL4000T%xCf4240\n", p % 16 + 1, f;
        else printf "R%xL4000T%xCf4240\n", p % 16 + 1, f;
    } }' >"$tmp/text"

# 1. otfdecompress turns what vftr writes into the exact text.
for level in 1 4 9; do
    for seg in 1048576 4093; do
        rm -f "$tmp/v.events.z" "$tmp/dec/v.events"
        mkdir -p "$tmp/dec"
        if "$VFTR" write "$tmp/text" "$tmp/v.events.z" "$level" "$seg" &&
            otfdecompress -o "$tmp/dec" "$tmp/v.events.z" >/dev/null 2>&1 &&
            cmp -s "$tmp/dec/v.events" "$tmp/text"; then
            pass "otfdecompress reads vftr level $level, segments of $seg bytes"
        else
            fail "otfdecompress reads vftr level $level, segments of $seg bytes"
        fi
    done
done

# 2. The reference library reads vftr's file (linear read), and vftr reads
#    the reference's and otfcompress's.
"$VFTR" write "$tmp/text" "$tmp/a.events.z" 4 1048576
check "reference OTF_File_read decodes a vftr file" \
    sh -c "'$REF' read '$tmp/a.events' '$tmp/a.out' && cmp -s '$tmp/a.out' '$tmp/text'"
"$REF" write "$tmp/text" "$tmp/b.events.z" 4 1048576
check "vftr decodes a file of the reference library" \
    sh -c "'$VFTR' read '$tmp/b.events' '$tmp/b.out' && cmp -s '$tmp/b.out' '$tmp/text'"
cp "$tmp/text" "$tmp/c.events"
otfcompress "$tmp/c.events" >/dev/null 2>&1
check "vftr decodes a file of otfcompress" \
    sh -c "test -f '$tmp/c.events.z' && rm -f '$tmp/c.events' && '$VFTR' read '$tmp/c.events' '$tmp/c.out' && cmp -s '$tmp/c.out' '$tmp/text'"
check "vftr and zlib at level 4 agree on size within 10 %" \
    sh -c "a=\$(stat -c %s '$tmp/a.events.z'); b=\$(stat -c %s '$tmp/b.events.z'); test \$((a * 100)) -le \$((b * 110))"

# 3. otfprint (reference reader) prints the same trace from plain files and
#    from files vftr compressed (small: the reference reads compressed event
#    files only below ~4 KiB, see otf-format.md section 8).
mkdir -p "$tmp/plain" "$tmp/z"
printf '1:1\n2:2\n' >"$tmp/plain/t.otf"
printf 'DTR3b9aca00\nDP1NM"p1"\nDP2NM"p2"\nDFG1NM"g"\nDF1G1NM"main"\nDF2G1NM"work"\n' \
    >"$tmp/plain/t.0.def"
for s in 1 2; do
    awk -v p="$s" 'BEGIN { t = 16; for (i = 0; i < 60; i++) {
        printf "%x\n*%x\nE%x\n", t, p, 1 + i % 2; t += 3;
        printf "%x\n*%x\nL%x\n", t, p, 1 + i % 2; t += 5 } printf "%x\n*%x\n", t, p }' \
        >"$tmp/plain/t.$s.events"
done
cp "$tmp/plain/t.otf" "$tmp/z/t.otf"
for f in t.0.def t.1.events t.2.events; do
    "$VFTR" write "$tmp/plain/$f" "$tmp/z/$f.z" 4 700
done
(cd "$tmp/plain" && otfprint t.otf 2>&1 | grep -v 'processing time' >"$tmp/print.plain")
(cd "$tmp/z" && otfprint t.otf 2>&1 | grep -v 'processing time' >"$tmp/print.z")
check "otfprint prints a vftr-compressed trace like the plain one" \
    sh -c "grep -q 'Enter' '$tmp/print.plain' && cmp -s '$tmp/print.plain' '$tmp/print.z'"

[ "$failures" -eq 0 ]
