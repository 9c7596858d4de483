#!/bin/bash
# formats_otf2_examples.sh — archives written by the OTF2 distribution's own
# example programs (shipped by Debian's otf2-tools, compiled here against
# libotf2): the serial writer, the pthread and OpenMP writers, and the MPI
# writer under mpirun (communicator splits, an inter-communicator, a
# non-blocking collective, OTF2's handle operations).  For each archive:
#   - vftr's OTF2 source gives, event by event, what libotf2's own printer
#     gives (otf2-print, mapped by test/formats/o2print.py), and passes over
#     exactly the records the printer shows that the model does not keep;
#   - vftr-dump --check finds it consistent (every reference defined);
#   - vftr-convert writes it back as OTF2 that otf2-print reads without a
#     warning and that reads back to the same events;
#   - vftr-stats gives the same profile on the archive and on its OTF
#     conversion.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
DUMP=$B/bin/vftr-dump
CV=$B/bin/vftr-convert
PY=/usr/bin/python3
EX=/usr/share/doc/otf2-tools/otf2/examples

if [ ! -d "$EX" ]; then
    bad "no OTF2 examples in $EX (Debian's otf2-tools ships them)"
    exit 1
fi
o2cflags=$(pkg-config --cflags otf2)
o2libs=$(pkg-config --libs otf2)

# build NAME CC FLAGS: the example NAME compiled into $T/NAME
build() {
    local name=$1 cc=$2 flags=$3
    if [ -f "$EX/$name.c.gz" ]; then gzip -dc "$EX/$name.c.gz" >"$T/$name.c"; else cp "$EX/$name.c" "$T/$name.c"; fi
    # shellcheck disable=SC2086
    $cc -std=gnu99 $flags $o2cflags -o "$T/$name" "$T/$name.c" $o2libs 2>"$T/$name.cc.err"
}

# check LABEL DIR: the comparisons above on DIR/ArchivePath/ArchiveName.otf2
check() {
    local label=$1 a=$2/ArchivePath/ArchiveName.otf2 d=$2
    if ! "$DUMP" --raw -e "$a" >"$d/got" 2>"$d/got.err"; then
        bad "$label: vftr-dump cannot read the archive: $(head -3 "$d/got.err")"
        return
    fi
    sort -s -n -k2,2 "$d/got" | sed 's/ source=[0-9]*$/ source=0/' >"$d/got.pp"
    if ! otf2-print "$a" >"$d/o2p" 2>"$d/o2p.err"; then
        bad "$label: otf2-print: $(head -3 "$d/o2p.err")"
        return
    fi
    $PY "$here/../formats/o2print.py" <"$d/o2p" >"$d/o2p.lines" 2>"$d/o2p.lines.err" ||
        { bad "$label: o2print.py: $(tail -3 "$d/o2p.lines.err")"; return; }
    grep -v '^#' "$d/o2p.lines" | sort -s -n -k2,2 >"$d/want"
    local n
    n=$(wc -l <"$d/want")
    if [ "$n" -gt 0 ] && diff -u "$d/want" "$d/got.pp" >"$d/diff"; then
        pass "$label: vftr reads what otf2-print prints, event by event ($n events)"
    else
        bad "$label: vftr and otf2-print differ ($n events): $(head -12 "$d/diff")"
    fi
    local skipped printed
    skipped=$(sed -n "s/.*: \([0-9]*\) records of kinds vftr's model does not keep passed over.*/\1/p" "$d/got.err")
    printed=$(grep -c '^#' "$d/o2p.lines")
    [ "${skipped:-0}" = "$printed" ] &&
        pass "$label: the records passed over are those otf2-print shows beyond the model ($printed)" ||
        bad "$label: vftr passed over ${skipped:-0} records, otf2-print shows $printed others"
    "$DUMP" --check "$a" >"$d/check" 2>&1 && pass "$label: vftr-dump --check: consistent" ||
        bad "$label: vftr-dump --check: $(head -5 "$d/check")"
    # written back as OTF2
    if "$CV" -q -o "$d/back.otf2" "$a" 2>"$d/cv.err"; then
        if otf2-print -G "$d/back.otf2/traces.otf2" >/dev/null 2>"$d/back.err" &&
            otf2-print "$d/back.otf2/traces.otf2" >/dev/null 2>>"$d/back.err" &&
            ! grep -qi -e warning -e error "$d/back.err"; then
            pass "$label: otf2-print reads vftr's OTF2 of it with no warning"
        else
            bad "$label: otf2-print on vftr's OTF2: $(head -3 "$d/back.err")"
        fi
        "$DUMP" --raw -e "$d/back.otf2" 2>/dev/null | sort -s -n -k2,2 >"$d/back.events"
        sort -s -n -k2,2 "$d/got" | cmp -s - "$d/back.events" &&
            pass "$label: vftr's OTF2 of it reads back to the same events" ||
            bad "$label: the OTF2 round trip changes events: $(sort -s -n -k2,2 "$d/got" | diff - "$d/back.events" | head -6)"
    else
        bad "$label: vftr-convert to OTF2: $(cat "$d/cv.err")"
    fi
    if "$CV" -q -o "$d/conv.otf" "$a" 2>"$d/cv2.err"; then
        "$B/bin/vftr-stats" --csv "$a" >"$d/s1" 2>&1
        "$B/bin/vftr-stats" --csv "$d/conv.otf" >"$d/s2" 2>&1
        [ -s "$d/s1" ] && cmp -s "$d/s1" "$d/s2" &&
            pass "$label: vftr-stats: the same profile on the archive and its OTF conversion" ||
            bad "$label: vftr-stats differs: $(diff "$d/s1" "$d/s2" | head -6)"
    else
        bad "$label: vftr-convert to OTF: $(cat "$d/cv2.err")"
    fi
}

# run LABEL PROGRAM [LAUNCHER...]: the example run in its own directory
run() {
    local label=$1 prog=$2
    shift 2
    mkdir -p "$T/run-$label"
    if (cd "$T/run-$label" && "$@" "$T/$prog" >out 2>&1); then
        check "$label" "$T/run-$label"
    else
        bad "$label: the example failed: $(tail -3 "$T/run-$label/out")"
    fi
}

build otf2_writer_example gcc "" && run serial otf2_writer_example ||
    bad "serial writer: $(head -3 "$T/otf2_writer_example.cc.err")"
build otf2_pthread_writer_example gcc -pthread && run pthread otf2_pthread_writer_example ||
    bad "pthread writer: $(head -3 "$T/otf2_pthread_writer_example.cc.err")"
build otf2_openmp_writer_example gcc -fopenmp &&
    run openmp otf2_openmp_writer_example env OMP_NUM_THREADS=3 ||
    bad "OpenMP writer: $(head -3 "$T/otf2_openmp_writer_example.cc.err")"
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
    build otf2_mpi_writer_example mpicc "" &&
        run mpi otf2_mpi_writer_example mpirun --allow-run-as-root --oversubscribe -np 3 ||
        bad "MPI writer: $(head -3 "$T/otf2_mpi_writer_example.cc.err")"
else
    echo "SKIP: the MPI writer example (no mpicc/mpirun)"
fi
exit $fail
