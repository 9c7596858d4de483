#!/bin/bash
# otf_api_exports.sh — libvftrotf.so must export every public symbol of the
# reference libopen-trace-format.so (OTF 1.12.5), and nothing outside the
# OTF_/otf_/vftr_ name spaces.
#
# Symbols of the reference that no installed header names may be excused in
# test/data/otf-api-exclusions.txt ("glob — reason" per line); the script
# checks that no pattern there excuses a symbol that a header names.
#
# Environment: BUILD (default build); OTF_REF_SO and VFTR_OTF_SO override the
# two libraries; VFTR_COMPAT_SELFTEST=1 checks the reference against itself.
# Prints one PASS:/FAIL: line per check, exits 1 if any failed.
set -u
export LC_ALL=C
: "${BUILD:=build}"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
ref_so=${OTF_REF_SO:-/usr/lib/x86_64-linux-gnu/libopen-trace-format.so}
vftr_so=${VFTR_OTF_SO:-$BUILD/lib/libvftrotf.so}
[ "${VFTR_COMPAT_SELFTEST:-0}" = 1 ] && vftr_so=$ref_so
hdr_dir=${OTF_REF_INCLUDE:-/usr/include/open-trace-format}
excl_file=${OTF_API_EXCLUSIONS:-$top/test/data/otf-api-exclusions.txt}

failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# Prints at most 20 items of a list, indented, so a log stays readable.
show() { sed -n '1,20s/^/    /p'; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Defined dynamic symbols, one name per line; version nodes (type A) and
# undefined symbols are not exports.
exports() {
    nm -D --defined-only "$1" | awk '$2 != "A" && NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u
}

if [ ! -r "$ref_so" ]; then
    fail "reference library $ref_so missing (install libopen-trace-format-dev)"
    exit 1
fi
exports "$ref_so" | grep -E '^(OTF_|otf_)' >"$tmp/ref"
if [ ! -s "$tmp/ref" ]; then
    fail "no OTF_/otf_ symbols found in $ref_so"
    exit 1
fi

# Every identifier that appears anywhere in an installed header (declarations,
# macros, even comments: stricter than "declared", never more lenient).
cat "$hdr_dir"/*.h | grep -oE '\b[A-Za-z_][A-Za-z0-9_]*\b' | sort -u >"$tmp/named"

# --- the exclusion list -----------------------------------------------------
patterns=()
bad_lines=()
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    case "$line" in '' | '#'*) continue ;; esac
    pat=${line%% *}
    reason=${line#"$pat"}
    if [[ ! "$reason" =~ ^\ —\ [^[:space:]] ]]; then
        bad_lines+=("$lineno: $line")
        continue
    fi
    patterns+=("$pat")
done <"$excl_file"
if [ ${#bad_lines[@]} -eq 0 ] && [ ${#patterns[@]} -gt 0 ]; then
    pass "exclusion list is well-formed (${#patterns[@]} patterns)"
else
    fail "exclusion list $excl_file: lines without 'glob — reason' (or no entries)"
    printf '%s\n' "${bad_lines[@]}" | show
fi

# Which reference symbols each pattern excuses.
: >"$tmp/excluded"
: >"$tmp/declared_hits"
: >"$tmp/stale"
for pat in "${patterns[@]}"; do
    hit=0
    while IFS= read -r sym; do
        # shellcheck disable=SC2053  # $pat is a glob on purpose
        if [[ $sym == $pat ]]; then
            hit=1
            echo "$sym" >>"$tmp/excluded"
            if grep -qxF "$sym" "$tmp/named"; then
                echo "$pat excuses $sym, which $(grep -lw "$sym" "$hdr_dir"/*.h | head -n 1) names" \
                    >>"$tmp/declared_hits"
            fi
        fi
    done <"$tmp/ref"
    [ $hit -eq 1 ] || echo "$pat" >>"$tmp/stale"
done
sort -u -o "$tmp/excluded" "$tmp/excluded"

if [ ! -s "$tmp/declared_hits" ]; then
    pass "exclusions excuse only symbols that no installed header names ($(wc -l <"$tmp/excluded") symbols)"
else
    fail "exclusions excuse symbols named in installed headers"
    show <"$tmp/declared_hits"
fi
if [ ! -s "$tmp/stale" ]; then
    pass "every exclusion pattern matches a symbol of the reference"
else
    fail "exclusion patterns that match no symbol of the reference (stale entries)"
    show <"$tmp/stale"
fi

# --- libvftrotf.so ------------------------------------------------------------
if [ ! -e "$vftr_so" ]; then
    fail "vftr exports every public symbol of the reference (vftr build missing: $vftr_so)"
    fail "vftr exports only OTF_/otf_/vftr_ symbols (vftr build missing: $vftr_so)"
    exit 1
fi
exports "$vftr_so" >"$tmp/vftr"
comm -23 "$tmp/ref" "$tmp/excluded" >"$tmp/required"
comm -23 "$tmp/required" "$tmp/vftr" >"$tmp/missing"
if [ ! -s "$tmp/missing" ]; then
    pass "vftr exports all $(wc -l <"$tmp/required") public symbols of the reference"
else
    fail "vftr misses $(wc -l <"$tmp/missing") of $(wc -l <"$tmp/required") public symbols of the reference"
    show <"$tmp/missing"
fi
grep -vE '^(OTF_|otf_|vftr_)' "$tmp/vftr" >"$tmp/foreign"
if [ ! -s "$tmp/foreign" ]; then
    pass "vftr exports only OTF_/otf_/vftr_ symbols ($(wc -l <"$tmp/vftr") exports)"
else
    fail "vftr exports $(wc -l <"$tmp/foreign") symbols outside OTF_/otf_/vftr_"
    show <"$tmp/foreign"
fi

[ $failures -eq 0 ]
