#!/bin/bash
# capture_patchable_dlopen.sh — dlopen of a bare name in a program traced
# through its sleds (instrument.patchable, capture/preload/dl.c).  While
# sleds are patched, capture's dlopen calls the loader itself (to patch the
# new object's sleds before its code runs), and the loader takes the
# caller's RUNPATH from its return address: capture's, unless capture
# looks the name up in the caller's search list first.
#
# test/capture/sled_prog_rp is sled_prog with RUNPATH $ORIGIN/sledplug; it
# dlopens "libsledplug.so" by name and calls it N times ("lib_calls N").
# Under vftr-run the library must be found and loaded from the same file
# as without vftr (the loader's LD_DEBUG=files names it): from the RUNPATH;
# from LD_LIBRARY_PATH, which the loader searches before a RUNPATH; not at
# all for a name no directory holds.  Its calls must be in the log.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/sled_prog_rp" "$CAPDIR/sledplug/libsledplug.so"
N=2000
P=$CAPDIR/sled_prog_rp

if [ "$(uname -m)" != x86_64 ]; then
    skip "instrument.patchable dlopen" "the sleds are patched on x86-64 only"
    finish
fi

# loaded DIR: the file of libsledplug.so the loader ran the initialisers of
loaded() { sed -n 's/.*calling init: \(.*libsledplug\.so\)$/\1/p' "$1/.stderr" | sort -u; }
calls() { awk '$1 == "lib_calls" { print $2 }' "$1/.stdout"; }

rp=$(cd "$CAPDIR/sledplug" && pwd)/libsledplug.so
copy=$cap_tmp/copy
mkdir -p "$copy" && cp "$CAPDIR/sledplug/libsledplug.so" "$copy/"

# from the program's RUNPATH
d=$cap_tmp/plain-rp
plain "$d" env LD_DEBUG=files "$P" $N 1 libsledplug.so
# a sanitizer's runtime intercepts dlopen and calls the loader itself, so a
# sanitized program finds no library in its RUNPATH, vftr or not
case $(ldd "$P" 2>/dev/null) in
    *libasan* | *libtsan*)
        if [ "$(calls "$d")" != "$N" ]; then
            skip "dlopen from a RUNPATH" "the sanitizer's dlopen interceptor searches its own paths, not the program's"
            finish
        fi ;;
esac
check "without vftr: the RUNPATH's library is called" "$N" "$(calls "$d")"
check "without vftr: loaded from the RUNPATH" "$rp" "$(loaded "$d")"
d=$cap_tmp/vftr-rp
vrun "$d" env LD_DEBUG=files "$P" $N 1 libsledplug.so
check "under vftr: exit status" 0 "$(cat "$d/.rc")"
check "under vftr: every result right" "bad 0" "$(grep '^bad' "$d/.stdout")"
check "under vftr: the RUNPATH's library is called" "$N" "$(calls "$d")"
check "under vftr: loaded from the RUNPATH, as without vftr" "$rp" "$(loaded "$d")"
check "under vftr: its calls are traced through its sleds" "$N" "$(logcalls "$d/sled_prog_rp_0.log" sled_lib)"

# LD_LIBRARY_PATH comes before a RUNPATH: the copy there wins, both ways
d=$cap_tmp/plain-llp
plain "$d" env LD_LIBRARY_PATH="$copy" LD_DEBUG=files "$P" $N 1 libsledplug.so
check "without vftr, LD_LIBRARY_PATH: its copy is loaded" "$copy/libsledplug.so" "$(loaded "$d")"
d=$cap_tmp/vftr-llp
vrun "$d" env LD_LIBRARY_PATH="$copy" LD_DEBUG=files "$P" $N 1 libsledplug.so
check "under vftr, LD_LIBRARY_PATH: the library is called" "$N" "$(calls "$d")"
check "under vftr, LD_LIBRARY_PATH: its copy is loaded, as without vftr" "$copy/libsledplug.so" "$(loaded "$d")"

# a name no directory holds: dlopen fails, both ways, and nothing else
d=$cap_tmp/vftr-none
vrun "$d" "$P" $N 1 libsled_nowhere.so
check "under vftr, a name found nowhere: exit status" 0 "$(cat "$d/.rc")"
check "under vftr, a name found nowhere: nothing called" 0 "$(calls "$d")"
finish
