#!/bin/bash
# otf_compat_swig.sh — OTF's Python bindings are made by SWIG over the public
# headers; vftr's headers must parse there as the reference's do (otf_errno,
# thread-local in vftr, included), and the module built over them must work
# as the one built over the reference's.  For both header sets: swig on
# test/compat/otf_swig.i, the wrapper compiled into a Python module linked
# with that library, test/compat/otf_swig.py run with it; the outputs must be
# equal.  Needs swig and python3-dev (mk/deps.sh installs them).
# Environment: BUILD (default build); see otf_compat_common.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/otf_compat_common.sh
. "$here/otf_compat_common.sh"

# Debian's Python, whose headers python3-dev installs, whatever else is on
# the PATH.
PY=/usr/bin/python3
PYCONFIG=/usr/bin/python3-config
REF_INC=/usr/include/open-trace-format
VFTR_INC=$BUILD/include/otf
VFTR_LIB=$BUILD/lib

missing=""
command -v swig >/dev/null 2>&1 || missing="$missing swig"
[ -x "$PYCONFIG" ] && [ -x "$PY" ] || missing="$missing python3-dev"
[ -r "$REF_INC/otf.h" ] || missing="$missing libopen-trace-format-dev"
if [ -n "$missing" ]; then
    fail "otf_compat_swig: missing$missing (run make deps)"
    exit 1
fi
if [ ! -r "$VFTR_INC/otf.h" ] || [ ! -r "$VFTR_LIB/libvftrotf.so" ]; then
    fail "otf_compat_swig: $VFTR_INC/otf.h or $VFTR_LIB/libvftrotf.so missing (run make)"
    exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/otf_compat_swig.XXXXXX") || exit 1
if [ "${COMPAT_KEEP:-0}" = 1 ]; then
    echo "# scratch directory: $TMP"
else
    trap 'rm -rf "$TMP"' EXIT
fi

ext=$("$PYCONFIG" --extension-suffix)
read -r -a pyinc <<<"$("$PYCONFIG" --includes)"
# A sanitized build's library needs its sanitizer's runtime loaded first
# into an interpreter that has none.
preload=$(ldd "$VFTR_LIB/libvftrotf.so" | awk '/lib(a|t)san\.so/ { print $3 }' | head -n 1)

for side in ref vftr; do
    d=$TMP/$side
    mkdir -p "$d/trace"
    if [ $side = ref ]; then
        inc=$REF_INC
        libs=(-lopen-trace-format -lz -lm)
    else
        inc=$VFTR_INC
        libs=(-L"$VFTR_LIB" -lvftrotf "-Wl,-rpath,$(cd "$VFTR_LIB" && pwd)")
    fi
    if ! swig -python -I"$inc" -outdir "$d" -o "$d/otf_wrap.c" "$top/test/compat/otf_swig.i" \
        >"$d/swig.log" 2>&1; then
        fail "$side: swig cannot parse the public headers of $inc"
        show <"$d/swig.log"
        continue
    fi
    pass "$side: swig parses the public headers"
    # The wrapper is SWIG's code, not ours: no warning set.
    if ! ${CC:-cc} -shared -fPIC -O0 -w -I"$inc" "${pyinc[@]}" \
        -o "$d/_otf$ext" "$d/otf_wrap.c" "${libs[@]}" >"$d/cc.log" 2>&1; then
        fail "$side: the wrapper does not compile or link"
        show <"$d/cc.log"
        continue
    fi
    pass "$side: the wrapper compiles and links"
    pre=""
    [ $side = vftr ] && pre=$preload
    LD_PRELOAD=$pre ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        PYTHONPATH=$d "$PY" "$top/test/compat/otf_swig.py" "$d/trace/t" >"$d/out" 2>&1
    echo $? >"$d/rc"
done

if [ -s "$TMP/ref/out" ] && [ -s "$TMP/vftr/out" ]; then
    if [ "$(cat "$TMP/ref/rc")" != 0 ] || ! grep -q '^missing trace opens' "$TMP/ref/out"; then
        fail "the module over the reference's headers does not run through (test bug?)"
        show <"$TMP/ref/out"
    elif [ "$(cat "$TMP/vftr/rc")" != 0 ]; then
        fail "the module over vftr's headers exits $(cat "$TMP/vftr/rc")"
        tail -n 8 "$TMP/vftr/out" | show
    elif cmp -s "$TMP/ref/out" "$TMP/vftr/out"; then
        pass "otf_swig.py prints the same with both modules ($(wc -l <"$TMP/ref/out") lines)"
    else
        fail "otf_swig.py prints differently with vftr's module (< reference, > vftr)"
        diff "$TMP/ref/out" "$TMP/vftr/out" | grep '^[<>]' | show
    fi
fi

compat_finish
