#!/bin/bash
# install.sh — `make install` into a temporary DESTDIR, then used from there
# as a user would (issue 16): the installed tools run, vftr-run captures a
# program with the installed library, a program built with
# `pkg-config vftr-capture` and one built with `pkg-config vftr-otf` run
# without LD_LIBRARY_PATH (rpath), and the man pages, their documents and the
# headers are where the man pages say.
set -u
: "${BUILD:=build}"
export LC_ALL=C
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CC=${CC:-cc}

# the build is done (make check built it): install only copies
if ! make --no-print-directory -s install BUILD="$BUILD" PREFIX=/opt/vftr DESTDIR="$T/root" \
        >"$T/install.log" 2>&1; then
    fail "make install DESTDIR=... failed: $(tail -3 "$T/install.log")"
    exit 1
fi
P=$T/root/opt/vftr
unset LD_LIBRARY_PATH

for f in bin/vftr-run bin/vftr-stats bin/vftr-dump bin/vftr-snap bin/vfd2otf bin/vftr-convert \
         bin/vftr-tui bin/vftr-ctl bin/vftr-config \
         lib/libvftrcapture.so lib/libvftrotf.so lib/libvftrotf.a include/vftr.h \
         include/vftr/otf/otf.h lib/pkgconfig/vftr-otf.pc lib/pkgconfig/vftr-capture.pc \
         share/man/man1/vftr-stats.1 share/man/man1/vftr-run.1 share/man/man5/vftr-config.5 \
         share/doc/vftr/README.md share/doc/vftr/options.md share/doc/vftr/vfd2otf.md \
         share/doc/vftr/formats.md; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
[ $failed = 0 ] && pass "tools, libraries, headers, pkg-config files, man pages and documents installed"
# the documents the man pages name are installed
missing=
for d in $(grep -ho 'share/doc/[a-z0-9_-]*\.md' "$P"/share/man/man*/* | sort -u); do
    [ -e "$P/share/doc/vftr/${d#share/doc/}" ] || missing="$missing $d"
done
[ -z "$missing" ] && pass "every document a man page names is installed" || fail "missing:$missing"

# the installed tools run from there
for t in vftr-stats vftr-dump vftr-snap vfd2otf vftr-convert vftr-tui vftr-run vftr-ctl vftr-config; do
    out=$("$P/bin/$t" --version 2>&1) && [[ $out == "$t (vftr) "* ]] ||
        fail "installed $t --version: $out"
done
pass "installed tools print their version"

# capture with the installed vftr-run and library, profile with the installed tools
cat >"$T/app.c" <<'EOF'
#include <vftr.h>
static int leaf(int i) { return i * 3; }
static int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += leaf(i); return s; }
int main(void)
{
    int s;
    vftr_region_begin("solve");
    s = work(1000);
    vftr_region_end("solve");
    return s == 1498500 ? 0 : 1;
}
EOF
export PKG_CONFIG_PATH=$P/lib/pkgconfig
# a sanitized build's library needs its runtime in the program too (the
# runtime must come first; the .pc file does not carry build options)
san=
case $(ldd "$P/lib/libvftrcapture.so" 2>/dev/null) in
    *libtsan*) san=-fsanitize=thread ;;
    *libasan*) san=-fsanitize=address,undefined ;;
esac
if flags=$(pkg-config --define-prefix --cflags --libs vftr-capture 2>"$T/pc.err"); then
    # shellcheck disable=SC2086
    if $CC -O0 -g -finstrument-functions $san "$T/app.c" -o "$T/app" $flags 2>"$T/cc.err"; then
        pass "a program builds with pkg-config vftr-capture"
        if (cd "$T" && ./app); then
            pass "it runs without LD_LIBRARY_PATH (rpath $P/lib)"
        else
            fail "the pkg-config-built program does not run: $(cd "$T" && ./app 2>&1 | head -2)"
        fi
        mkdir "$T/run"
        if "$P/bin/vftr-run" -o "$T/run" "$T/app" >"$T/run.log" 2>&1; then
            calls=$("$P/bin/vftr-stats" --csv "$T/run" 2>"$T/stats.err" | awk -F, '$12 == "leaf" { print $1 }')
            [ "$calls" = 1000 ] && pass "installed vftr-run + vftr-stats: leaf called 1000 times" ||
                fail "installed vftr-stats on the run: leaf calls '$calls' ($(head -2 "$T/stats.err"))"
            if "$P/bin/vfd2otf" -q -o "$T/conv" "$T/run" && "$P/bin/vftr-dump" --count "$T/conv" >/dev/null; then
                pass "installed vfd2otf and vftr-dump convert and read the run"
            else
                fail "installed vfd2otf / vftr-dump"
            fi
        else
            fail "installed vftr-run: $(head -3 "$T/run.log")"
        fi
    else
        fail "building with pkg-config vftr-capture: $(head -3 "$T/cc.err")"
    fi
else
    fail "pkg-config vftr-capture: $(cat "$T/pc.err")"
fi

# the OTF library through its pkg-config file
cat >"$T/otf.c" <<'EOF'
#include <otf.h>
#include <stdio.h>
int main(void)
{
    OTF_FileManager *m = OTF_FileManager_open(4);
    OTF_Writer *w = OTF_Writer_open("t", 1, m);
    if (!w) return 1;
    OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    OTF_Writer_writeDefProcess(w, 0, 1, "p", 0);
    OTF_Writer_writeEnter(w, 10, 1, 1, 0);
    OTF_Writer_close(w);
    OTF_FileManager_close(m);
    return 0;
}
EOF
if flags=$(pkg-config --define-prefix --cflags --libs vftr-otf 2>"$T/pc.err") &&
   # shellcheck disable=SC2086
   $CC $san "$T/otf.c" -o "$T/otfprog" $flags 2>"$T/cc.err"; then
    if (cd "$T" && ./otfprog) && [ -e "$T/t.otf" ]; then
        pass "a program built with pkg-config vftr-otf runs without LD_LIBRARY_PATH"
    else
        fail "the vftr-otf program does not run"
    fi
else
    fail "building with pkg-config vftr-otf: $(head -3 "$T/pc.err" "$T/cc.err")"
fi
exit $failed
