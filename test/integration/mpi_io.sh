#!/bin/bash
# mpi_io.sh — MPI-IO in the trace.  test/mpi/mpi_io counts, on each of 3
# ranks, its own MPI-IO operations and bytes per file and per MPI function
# (every kind of access: explicit offsets, individual and shared file
# pointers, collective, ordered, nonblocking, split collective; seeks,
# sync, set_size, set_view, a read past the end, delete, calls that fail)
# and its own POSIX I/O.  Those counts must be what vftr-stats --io finds in each rank's
# .vfd, and, summed over the ranks, in the OTF conversion of the run
# (vfd2otf), in its OTF2 conversion (vftr-convert) and in the reference
# otfaux's file summaries.  The I/O the MPI library does inside its calls
# is not the program's POSIX I/O; collective and nonblocking operations
# are marked as such (OTF's COLL and ASYNC flags, as otfprint prints them).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"
B=$mpi_build/bin
[ -x "$MPIDIR/mpi_io" ] || { fail "mpi_io is not built (make check builds it)"; exit 1; }

# io_rows CSV: vftr-stats --io --csv as the program's "E" lines
io_rows() {
    awk -F, 'NR > 1 {
        iface = $3 == "POSIX I/O" ? "posix" : $3 == "ISO C I/O" ? "stdio" : $3 == "MPI-IO" ? "mpi" : $3 == "" ? "-" : $3
        printf "E %s %s %s", $1 == "file" ? "file" : "func", iface, $2
        for (i = 4; i <= 14; i++) printf " %s", $i
        print ""
    }' "$1" | sort
}

# compare_io WHAT EXPECT GOT
compare_io() {
    if diff "$2" "$3" >"$mpi_tmp/.iodiff"; then
        pass "$1: $(wc -l <"$2") files and functions as the program counted them"
    else
        fail "$1: differs from the program's counts"; show "$mpi_tmp/.iodiff"
    fi
}

d=$mpi_tmp/io
mrun 3 "$d" "$MPIDIR/mpi_io"
check "mpi_io: exit status" 0 "$(cat "$d/.rc")"
[ "$(cat "$d/.rc")" = 0 ] || { show "$d/.stderr"; finish; }

# ---- each rank's .vfd
for r in 0 1 2; do
    vfd=$d/mpi_io_$r.vfd
    awk -v r="$r" '$1 == r { $1 = ""; sub(/^ /, ""); print }' "$d/.stdout" | sort >"$d/.expect_$r"
    check "rank $r: the program counted files and functions" 1 \
        "$(($(wc -l <"$d/.expect_$r") >= 20))"
    "$B/vftr-stats" --io --csv "$vfd" >"$d/.io_$r.csv" 2>"$d/.io_$r.err" ||
        fail "rank $r: vftr-stats --io failed: $(head -2 "$d/.io_$r.err")"
    io_rows "$d/.io_$r.csv" | grep -v ' stdio ' | grep -v ' func - (no function) ' >"$d/.got_$r"
    compare_io "rank $r: vftr-stats --io on the .vfd" "$d/.expect_$r" "$d/.got_$r"
done

# the MPI library's own I/O inside the calls is not the program's
"$B/vftr-dump" "$d/mpi_io_0.vfd" >"$d/.dump"
check "the MPI library's I/O inside MPI-IO calls is not recorded as POSIX I/O" "" \
    "$(grep '^IOFILE' "$d/.dump" | grep -v 'MPI-IO\|iface=3' | grep -E 'shared\.bin|rank[0-9]\.bin')"

# ---- the run converted: the sums over the ranks
awk '{ k = $2 " " $3 " " $4; n[k]++; for (i = 5; i <= NF; i++) s[k, i] += $i }
     END { for (k in n) { printf "E %s", k; for (i = 5; i <= 15; i++) printf " %d", s[k, i]; print "" } }' \
    "$d"/.expect_[0-2] | sort >"$d/.expect_all"
"$B/vfd2otf" -q -o "$d/t" "$d"/mpi_io_[0-2].vfd 2>"$d/.conv.err" ||
    fail "vfd2otf: $(head -2 "$d/.conv.err")"
"$B/vftr-stats" --io --csv "$d/t.otf" >"$d/.otf.csv" 2>&1
io_rows "$d/.otf.csv" | grep -v ' stdio ' | grep -v ' func - (no function) ' >"$d/.got_otf"
compare_io "vftr-stats --io on the OTF conversion of 3 ranks" "$d/.expect_all" "$d/.got_otf"
"$B/vftr-convert" -q -o "$d/o2.otf2" "$d"/mpi_io_[0-2].vfd 2>"$d/.o2.err" ||
    fail "vftr-convert to OTF2: $(head -2 "$d/.o2.err")"
"$B/vftr-stats" --io --csv "$d/o2.otf2" >"$d/.o2.csv" 2>&1
io_rows "$d/.o2.csv" | grep -v ' stdio ' | grep -v ' func - (no function) ' >"$d/.got_o2"
# OTF2 has no I/O record for set_view, set_size and preallocate ("other"
# operations, all three on shared.bin): the program's counts without them
awk '$2 == "func" && $4 ~ /^MPI_File_(set_view|set_size|preallocate)$/ { n += $5; next }
     { rows[++k] = $0 }
     END { for (i = 1; i <= k; i++) { $0 = rows[i]; if ($2 == "file" && $4 ~ /\/shared\.bin$/) { $5 -= n; $12 -= n } print } }' \
    "$d/.expect_all" | sort >"$d/.expect_o2"
compare_io "vftr-stats --io on the OTF2 conversion of 3 ranks (set_view, set_size, preallocate aside)" \
    "$d/.expect_o2" "$d/.got_o2"

# ---- OTF's operation words and flags as the reference's otfprint prints
# them, per operation and flags, from the program's calls on each of the 3
# ranks: collective (COLL) open and close (3 files), set_view, set_size,
# preallocate, seek_shared, sync; write_at_all, write_all, write_ordered,
# read_at_all, read_all; nonblocking (ASYNC) iwrite_at, iwrite, iread_at
# twice; nonblocking and collective iwrite_at_all and the split write_all;
# failed (IOFAILED) the open of a missing file and the read of a
# write-only one; the program's POSIX open, write, close without flags
if command -v otfprint >/dev/null; then
    otfprint "$d/t.otf" >"$d/.otfprint" 2>&1 || fail "otfprint failed: $(head -2 "$d/.otfprint")"
    got=$(sed -n 's/.*EndFileOperation:.* operation \([A-Z]*\( <[0-9]*>\)\?\), flags \([A-Z, ]*\), bytes.*/\1 \3/p' \
              "$d/.otfprint" | sort | uniq -c | awk '{ c = $1; $1 = ""; printf "%s:%d;", substr($0, 2), c }')
    want="CLOSE COLL:9;CLOSE EMPTY:3;OPEN COLL:9;OPEN EMPTY:3;OPEN IOFAILED, COLL:3;"
    want+="READ ASYNC:6;READ COLL:6;READ EMPTY:9;READ IOFAILED:3;"
    want+="SEEK COLL:3;SEEK EMPTY:6;SYNC COLL:3;UNKNOWN <31> COLL:9;UNLINK EMPTY:3;"
    want+="WRITE ASYNC, COLL:6;WRITE ASYNC:6;WRITE COLL:9;WRITE EMPTY:15;"
    check "otfprint: every EndFileOperation's operation and flags (COLL, ASYNC) as the program made them" \
        "$(tr ';' '\n' <<<"$want" | sort | tr '\n' ';')" "$(tr ';' '\n' <<<"$got" | sort | tr '\n' ';')"
else
    fail "otfprint (the reference OTF tools) is not installed"
fi

if command -v otfaux >/dev/null; then
    mkdir -p "$d/ref"
    cp "$d"/t.* "$d/ref/"
    (cd "$d/ref" && otfaux --statistics -n 2 t.otf) >"$d/.otfaux" 2>&1 ||
        fail "otfaux failed: $(head -2 "$d/.otfaux")"
    # otfaux's last summary per process and file, summed per file name
    python3 - "$d/ref" >"$d/.otfaux.rows" <<'PY'
import glob, re, sys
ref = sys.argv[1]
names, groups = {}, {}
for line in open(ref + "/t.0.def"):
    line = line.rstrip("\n")
    m = re.match(r'DFL([0-9a-f]+)NM"(.*)"G([0-9a-f]+)$', line)
    if m:
        names[int(m.group(1), 16)] = (m.group(2), int(m.group(3), 16))
    m = re.match(r'DFLG([0-9a-f]+)NM"(.*)"$', line)
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
    t = tot.setdefault(names[fid], [0] * 7)
    for i in range(7):
        t[i] += v[i]
for (name, g), v in sorted(tot.items()):
    iface = {"POSIX I/O": "posix", "ISO C I/O": "stdio", "MPI-IO": "mpi"}.get(groups.get(g))
    if iface != "stdio":
        print(iface, name, *v)
PY
    # the program's counts in otfaux's terms (no sync or other operation)
    awk '$2 == "file" && ($6 + $7 + $8 + $9 + $10) > 0 { print $3, $4, $6, $7, $8, $9, $10, $14, $15 }' \
        "$d/.expect_all" | sort >"$d/.expect.aux"
    sort "$d/.otfaux.rows" >"$d/.got.aux"
    if diff "$d/.expect.aux" "$d/.got.aux" >"$mpi_tmp/.auxdiff"; then
        pass "otfaux's file summaries are the program's counts ($(wc -l <"$d/.got.aux") files)"
    else
        fail "otfaux's file summaries differ from the program's counts"; show "$mpi_tmp/.auxdiff"
    fi
else
    fail "otfaux (the reference OTF tools) is not installed"
fi
finish
