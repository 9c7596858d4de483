#!/bin/bash
# capture_io.sh — file I/O in the trace.  test/capture/cap_io counts its own
# POSIX and ISO C calls per file and per function (operations by kind,
# failed ones, bytes); those counts must be what vftr-stats --io finds in
# the .vfd, in its OTF conversion (vfd2otf) and in an OTF2 conversion
# (vftr-convert), and what the reference's otfaux sums per file (its
# FileOperationSummary records, read from its own .stats file) — and
# vftr-snap must write otfaux's file summaries byte for byte.  Also: the
# program's output and status as without vftr, errno as the calls left it
# (the program checks, with a thread buffer of 4 KiB so that capture
# flushes in the middle of its calls), no file of vftr's own, of /proc or
# /etc, or of the excluded directory in the trace, the _FORTIFY_SOURCE
# build (the _chk calls) giving the same, and io.active = false recording
# nothing.  Fortran: test/capture/cap_io_f.f90's units, every read and
# write as strace sees libgfortran make them.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_io" "$CAPDIR/cap_io_fortify"
B=$cap_build/bin

# io_rows CSV: vftr-stats --io --csv turned into the program's "E" lines
# (interface posix/stdio; the other columns in the program's order)
io_rows() {
    awk -F, 'NR > 1 {
        iface = $3 == "POSIX I/O" ? "posix" : $3 == "ISO C I/O" ? "stdio" : $3 == "" ? "-" : $3
        printf "E %s %s %s", $1 == "file" ? "file" : "func", iface, $2
        for (i = 4; i <= 14; i++) printf " %s", $i
        print ""
    }' "$1" | sort
}

# compare_io WHAT EXPECT GOT: the rows must be equal
compare_io() {
    if diff "$2" "$3" >"$cap_tmp/.iodiff"; then
        pass "$1: $(wc -l <"$2") files and functions as the program counted them"
    else
        fail "$1: differs from the program's counts"; show "$cap_tmp/.iodiff"
    fi
}

# ---- the C program, plain and under vftr-run
for prog in cap_io cap_io_fortify; do
    p=$cap_tmp/$prog/plain d=$cap_tmp/$prog/vftr
    mkdir -p "$p" "$d"
    (cd "$p" && plain "$p" "$CAPDIR/$prog")
    (cd "$d" && VFTR_IO_EXCLUDE_PATHS="/proc:/sys:/dev:/etc:/usr:$d/skipdir" VFTR_BUFFER_KIB=4 \
        vrun "$d" "$CAPDIR/$prog")
    check "$prog: exit status as without vftr" "$(cat "$p/.rc")" "$(cat "$d/.rc")"
    # the names differ (the run directory): compare what does not name it
    # (and mkstemp's file, whose name is new every time); sorted, as the
    # two threads book their files in either order
    if diff <(sed "s|$p|DIR|g; s|/tmp[A-Za-z0-9]\{6\}|/tmpXXXXXX|g" "$p/.stdout" | sort) \
            <(sed "s|$d|DIR|g; s|/tmp[A-Za-z0-9]\{6\}|/tmpXXXXXX|g" "$d/.stdout" | sort) >/dev/null; then
        pass "$prog: output as without vftr"
    else
        fail "$prog: output differs from the plain run"
    fi
    check "$prog: nothing on stderr but vftr's one note" "" \
        "$(grep -v '^vftr: .* has no compiler hooks' "$d/.stderr")"
    n=$(grep -c '^errno ok' "$d/.stdout")
    check "$prog: errno as the calls left it (6 checks, buffer flushed in between)" "6 0" \
        "$n $(grep -c '^errno BAD' "$d/.stdout")"
    grep '^E ' "$d/.stdout" | sort >"$d/.expect"
    check_le "$prog: the program counted files and functions" 15 "$(wc -l <"$d/.expect")"
    vfd=$d/${prog}_0.vfd
    [ -f "$vfd" ] || { fail "$prog: no trace"; show "$d/.stderr"; continue; }

    # the .vfd itself
    "$B/vftr-stats" --io --csv "$vfd" >"$d/.io.csv" 2>"$d/.io.err" ||
        fail "$prog: vftr-stats --io failed: $(head -2 "$d/.io.err")"
    io_rows "$d/.io.csv" >"$d/.got"
    compare_io "$prog: vftr-stats --io on the .vfd" "$d/.expect" "$d/.got"

    # nothing of vftr's own, of the system's, of the excluded directory
    "$B/vftr-dump" "$vfd" >"$d/.dump"
    names=$(sed -n 's/^IOFILE .* name=//p' "$d/.dump")
    check "$prog: no file of vftr's (.vfd, .tmpvfd, .log) in the trace" "" \
        "$(grep -E '\.(vfd|tmpvfd|log)$|/'"$prog"'_' <<<"$names")"
    check "$prog: no /proc, /etc or excluded file in the trace" "" \
        "$(grep -E '^/proc|^/etc|skipdir' <<<"$names")"
    # before capture started, after it ended, in a forked child: nothing
    check "$prog: no file of a constructor, an atexit handler or a forked child in the trace" "" \
        "$(grep -E 'ctor\.bin|atexit\.bin|child\.bin' <<<"$names")"
    check "$prog: the constructor, the atexit handler and the child did their I/O" "6 5 100" \
        "$(stat -c %s "$d/data/ctor.bin" "$d/data/atexit.bin" "$d/data/child.bin" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
    check "$prog: every file in the trace is one the program counted" "" \
        "$(comm -23 <(sort -u <<<"$names") <(awk '$2 == "file" { print $4 }' "$d/.expect" | sort -u))"

    # the OTF conversion: the same figures, otfaux's summaries the program's
    "$B/vfd2otf" -q -o "$d/t" "$vfd" 2>"$d/.conv.err" || fail "$prog: vfd2otf: $(head -2 "$d/.conv.err")"
    "$B/vftr-stats" --io --csv "$d/t.otf" >"$d/.otf.csv" 2>&1
    io_rows "$d/.otf.csv" >"$d/.got.otf"
    compare_io "$prog: vftr-stats --io on the OTF conversion" "$d/.expect" "$d/.got.otf"
    "$B/vftr-convert" -q -o "$d/o2.otf2" "$vfd" 2>"$d/.o2.err" ||
        fail "$prog: vftr-convert to OTF2: $(head -2 "$d/.o2.err")"
    "$B/vftr-stats" --io --csv "$d/o2.otf2" >"$d/.o2.csv" 2>&1
    # OTF2 keeps every operation and its bytes (the durations of its point
    # events, open, close, seek, dup, unlink, not) but renames, which it has
    # no record for: the program says which of its "other" operations they are
    awk 'NR == FNR { r[$2 " " $3 " " $4] = $5; next }
         { k = $2 " " $3 " " $4; if (k in r) { $5 -= r[k]; $12 -= r[k] } print }' \
        <(grep '^R ' "$d/.stdout") "$d/.expect" | sort >"$d/.expect.o2"
    io_rows "$d/.o2.csv" >"$d/.got.o2"
    compare_io "$prog: vftr-stats --io on the OTF2 conversion (renames aside)" "$d/.expect.o2" \
        "$d/.got.o2"
    # and back to OTF: the reference's otfprint finds every file definition
    # and every EndFileOperation (time, file, handle, operation, flags,
    # bytes) again, the renames aside (OTF2's point events have no begin of
    # their own: the begins are not compared)
    if command -v otfprint >/dev/null &&
       "$B/vftr-convert" -q -o "$d/back.otf" "$d/o2.otf2" 2>"$d/.back.err"; then
        fileops() { otfprint "$1" 2>/dev/null | grep -E 'EndFileOperation|DefFile' | sed 's/^([^)]*) *//'; }
        fileops "$d/t.otf" >"$d/.fo.otf"
        fileops "$d/back.otf" >"$d/.fo.back"
        check "$prog: OTF -> OTF2 -> OTF keeps the file definitions and the operations' ends but the renames" \
            "$(grep -c 'operation RENAME' "$d/.fo.otf") $(grep -v 'operation RENAME' "$d/.fo.otf" | md5sum)" \
            "$(awk '$1 == "R" && $2 == "file" { n += $5 } END { print n + 0 }' "$d/.stdout") $(md5sum <"$d/.fo.back")"
        check_le "$prog: ... and there are such records" 100 "$(grep -c EndFileOperation "$d/.fo.back")"
    else
        fail "$prog: OTF2 back to OTF (otfprint missing or vftr-convert failed: $(head -1 "$d/.back.err" 2>/dev/null))"
    fi

    if command -v otfaux >/dev/null; then
        mkdir -p "$d/ref" "$d/snap"
        cp "$d"/t.* "$d/ref/"
        cp "$d"/t.* "$d/snap/"
        (cd "$d/ref" && otfaux --statistics -n 3 t.otf) >"$d/.otfaux" 2>&1 ||
            fail "$prog: otfaux failed: $(head -2 "$d/.otfaux")"
        # otfaux's last summary per process and file, summed per file name
        python3 - "$d/ref" "$d/.dump" >"$d/.otfaux.rows" <<'PY'
import glob, re, sys
ref, dump = sys.argv[1], sys.argv[2]
names = {}
for line in open(ref + "/t.0.def"):
    m = re.match(r'DFL([0-9a-f]+)NM"(.*)"G([0-9a-f]+)$', line.rstrip("\n"))
    if m:
        names[int(m.group(1), 16)] = (m.group(2), int(m.group(3), 16))
groups = {}
for line in open(ref + "/t.0.def"):
    m = re.match(r'DFLG([0-9a-f]+)NM"(.*)"$', line.rstrip("\n"))
    if m:
        groups[int(m.group(1), 16)] = m.group(2)
last = {}
for f in glob.glob(ref + "/t.*.stats"):
    proc = None
    for line in open(f):
        line = line.rstrip("\n")
        if line.startswith("*"):
            proc = int(line[1:], 16)
            continue
        m = re.match(r'SFL([0-9a-f]+)NO([0-9a-f]+)NC([0-9a-f]+)NRD([0-9a-f]+)NW([0-9a-f]+)'
                     r'NSK([0-9a-f]+)BR([0-9a-f]+)BW([0-9a-f]+)$', line)
        if m:
            last[(proc, int(m.group(1), 16))] = [int(x, 16) for x in m.groups()[1:]]
tot = {}
for (proc, fid), v in last.items():
    key = names[fid]
    t = tot.setdefault(key, [0] * 7)
    for i in range(7):
        t[i] += v[i]
for (name, g), v in sorted(tot.items()):
    iface = {"POSIX I/O": "posix", "ISO C I/O": "stdio"}.get(groups.get(g), groups.get(g))
    print(iface, name, *v)
PY
        # the program's counts in otfaux's terms: open close read write seek
        # bytes-read bytes-written (otfaux counts no sync or other operation)
        awk '$2 == "file" && ($6 + $7 + $8 + $9 + $10) > 0 { print $3, $4, $6, $7, $8, $9, $10, $14, $15 }' \
            "$d/.expect" | sort >"$d/.expect.aux"
        sort "$d/.otfaux.rows" >"$d/.got.aux"
        if diff "$d/.expect.aux" "$d/.got.aux" >"$cap_tmp/.auxdiff"; then
            pass "$prog: otfaux's file summaries are the program's counts ($(wc -l <"$d/.got.aux") files)"
        else
            fail "$prog: otfaux's file summaries differ from the program's counts"
            show "$cap_tmp/.auxdiff"
        fi
        (cd "$d/snap" && "$B/vftr-snap" --statistics -n 3 t.otf) >"$d/.snap" 2>&1 ||
            fail "$prog: vftr-snap failed: $(head -2 "$d/.snap")"
        # every summary record with its time and process (the order of the
        # records of one process at one time is the tools' own)
        recs() { cat "$@" | awk '/^[0-9a-f]+$/ { t = $0; next } /^\*/ { p = $0; next }
                                 { print t, p, $0 }' | sort; }
        if [ "$(recs "$d"/ref/t.*.stats | grep -c ' SFL')" -gt 0 ] &&
           cmp -s <(recs "$d"/ref/t.*.stats) <(recs "$d"/snap/t.*.stats); then
            pass "$prog: vftr-snap writes otfaux's summaries, file summaries among them, record for record"
        else
            fail "$prog: vftr-snap's summaries differ from otfaux's"
        fi
    else
        fail "$prog: otfaux (the reference OTF tools) is not installed"
    fi
done

# ---- errno when capture's own writes fail: the trace on a full disk (a
# tmpfs with room for the header only), so that every definition capture
# writes for a record, and its flushes, fail with ENOSPC in the middle of
# the program's calls
d=$cap_tmp/fulldisk
mkdir -p "$d/run" "$d/mnt"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$d/mnt" 2>/dev/null; then
    head -c 61440 /dev/zero >"$d/mnt/filler" 2>/dev/null
    (cd "$d/run" && VFTR_BUFFER_KIB=4 timeout -s KILL "$RUN_TIMEOUT" "$VFTR_RUN" --out "$d/mnt" \
        -- "$CAPDIR/cap_io" >.stdout 2>.stderr; echo $? >.rc)
    check "full disk: exit status" 0 "$(cat "$d/run/.rc")"
    check "full disk: errno as the calls left it while capture's writes fail" "6 0" \
        "$(grep -c '^errno ok' "$d/run/.stdout") $(grep -c '^errno BAD' "$d/run/.stdout")"
    check_le "full disk: capture said that it could not write" 1 \
        "$(grep -ciE 'no space' "$d/run/.stderr")"
    touch "$d/mnt/.nocheck" 2>/dev/null
    umount "$d/mnt"
else
    skip "full disk: errno while capture's writes fail" "needs root to mount a tmpfs"
fi

# ---- per function: the calls the operations were made from
d=$cap_tmp/cap_io/vftr
check "the operations are booked under the functions that made them" \
    "errnos forked mkstemp_file names posix_read posix_write signal_writes streams thread_writer" \
    "$(awk '$2 == "func" { print $4 }' "$d/.expect" | sort | tr '\n' ' ' | sed 's/ $//')"

# ---- io.active = false: the calls pass straight on, nothing recorded
d=$cap_tmp/off
mkdir -p "$d"
(cd "$d" && VFTR_IO_ACTIVE=false vrun "$d" "$CAPDIR/cap_io")
check "io.active=false: exit status" 0 "$(cat "$d/.rc")"
check "io.active=false: errno checks" "6" "$(grep -c '^errno ok' "$d/.stdout")"
check "io.active=false: no file operation in the trace" "0 0" \
    "$("$B/vftr-dump" -c "$d/cap_io_0.vfd" | awk '$1 == "IO" { io = $2 } $1 == "IOFILE" { f = $2 }
                                               END { print io + 0, f + 0 }')"

# ---- Fortran: libgfortran's reads and writes, as strace sees them
if [ -x "$CAPDIR/cap_io_f" ]; then
    d=$cap_tmp/fortran
    mkdir -p "$d/plain" "$d/vftr"
    (cd "$d/vftr" && vrun "$d/vftr" "$CAPDIR/cap_io_f")
    check "fortran: exit status" 0 "$(cat "$d/vftr/.rc")"
    vfd=$d/vftr/cap_io_f_0.vfd
    "$B/vftr-stats" --io --csv "$vfd" >"$d/.io.all.csv" 2>&1
    san_io_rows "$d/.io.all.csv" >"$d/.io.csv"
    # the program's own: bytes per file (its records' sizes), opens and closes
    grep '^E ' "$d/vftr/.stdout" | sort >"$d/.expect"
    awk -F, '$1 == "file" { printf "E %s %s %s %s\n", $2, $5, $6, $14 }' "$d/.io.csv" |
        sed "s|$d/vftr/||" | sort >"$d/.got"
    if [ -s "$d/.expect" ] && diff "$d/.expect" "$d/.got" >"$cap_tmp/.fdiff"; then
        pass "fortran: opens, closes and bytes written per file as the program counted them ($(wc -l <"$d/.expect") files)"
    else
        fail "fortran: opens, closes, bytes differ from the program's"; show "$cap_tmp/.fdiff"
    fi
    if command -v strace >/dev/null && (cd "$d/plain" &&
        strace -f -qq -o "$d/strace.out" -e trace=openat,open,read,write,writev,lseek,close \
            "$CAPDIR/cap_io_f" >/dev/null 2>&1); then
        # strace: per file, the reads, writes (writev) and seeks on its descriptors
        python3 - "$d/strace.out" "$d/plain" >"$d/.strace" <<'PY'
import re, sys
fds, tot = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r'\s*(?:\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+)', line)
    if not m:
        continue
    call, args, rc = m.group(1), m.group(2), int(m.group(3))
    if call in ("openat", "open"):
        p = re.search(r'"([^"]*)"', args).group(1)
        if rc >= 0 and not p.startswith("/") and "cap_io_f" not in p:
            fds[rc] = p
            tot.setdefault(p, [0, 0, 0, 0, 0])
        continue
    fd = int(args.split(",")[0])
    if call == "close":
        fds.pop(fd, None)
        continue
    if fd not in fds:
        continue
    k = {"read": 0, "write": 1, "writev": 1, "lseek": 2}[call]
    tot[fds[fd]][k] += 1
    if k < 2 and rc > 0:
        tot[fds[fd]][3 + k] += rc
for p, v in sorted(tot.items()):
    print("S", p, *v)
PY
        awk -F, '$1 == "file" { printf "S %s %s %s %s %s %s\n", $2, $7, $8, $9, $13, $14 }' "$d/.io.csv" |
            sed "s|$d/vftr/||" | sort >"$d/.got.s"
        if [ -s "$d/.strace" ] && diff "$d/.strace" "$d/.got.s" >"$cap_tmp/.sdiff"; then
            pass "fortran: reads, writes, seeks and their bytes per file as strace sees libgfortran's calls ($(wc -l <"$d/.strace") files)"
        else
            fail "fortran: reads, writes, seeks differ from strace's"; show "$cap_tmp/.sdiff"
        fi
    else
        skip "fortran: against strace" "strace cannot trace here"
    fi
else
    skip "fortran" "gfortran not found"
fi

finish
