#!/bin/bash
# mpi_fortran.sh — Fortran (`use mpi`, mpif90) under mpirun -np 4
# (test/mpi/mpi_fortran.f90), run once starting with MPI_INIT and once with
# MPI_INIT_THREAD: the program calls every Fortran routine the wrapper
# table generates (build/gen/capture/mpi/wrappers.txt) plus the hand-written
# MPI_INIT, MPI_INIT_THREAD and MPI_PCONTROL; each must be linked by its
# Fortran symbol and recorded as an MPI call, and the messages and
# collectives (handles, statuses, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE and
# 1-based indices converted) must be exactly what the program counted.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

prog=$MPIDIR/mpi_fortran
if [ ! -x "$prog" ]; then
    skip "Fortran MPI test" "mpif90 not found at build time"
    exit 0
fi
[ -f "$GEN_LIST" ] || { fail "no $GEN_LIST"; exit 1; }

for mode in init thread; do
    d=$mpi_tmp/f_$mode
    mrun 4 "$d" "$prog" "$mode"
    basics "fortran ($mode)" "$d" 4 mpi_fortran
    messages "fortran ($mode)" "$d" 4
    matching "fortran ($mode)" "$d" 4
    # MPI_COMM_SET_NAME's CHARACTER argument, trailing blanks dropped
    for r in 0 1 2 3; do
        check "fortran ($mode): rank $r names the dup as MPI_COMM_SET_NAME said" "fortran dup" \
            "$(awk '$1 == "comm" { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' "$d/.got_$r" |
               grep -x 'fortran dup')"
    done
done

# MPI-IO through the Fortran wrappers (strings, MPI_Offset, MPI_File
# handles converted): on each rank its file fio_<rank>.bin as the program's
# calls make it (open; set_view, preallocate, set_size, delete; 14 writes
# and 14 reads of 4 INTEGERs, all of them inside the 80 bytes written; the
# two seeks; sync; close), and no file of the MPI library's own (those
# opened inside MPI_FILE_OPEN) as POSIX I/O: the program's only POSIX file
# is its expect file
for r in 0 1 2 3; do
    d=$mpi_tmp/f_init
    "$mpi_build/bin/vftr-stats" --io --csv "$d/mpi_fortran_$r.vfd" >"$d/.io_all_$r.csv" 2>/dev/null
    san_io_rows "$d/.io_all_$r.csv" >"$d/.io_$r.csv"
    check "fortran: rank $r: MPI-IO on its file as the program made it" \
        "MPI-IO,37,1,1,14,14,2,1,4,0,224,224" \
        "$(awk -F, -v f="$d/fio_$r.bin" '$1 == "file" && $2 == f { print $3 "," $4 "," $5 "," $6 "," $7 "," $8 "," $9 "," $10 "," $11 "," $12 "," $13 "," $14 }' "$d/.io_$r.csv")"
    check "fortran: rank $r: no POSIX I/O but the program's own" "$d/expect_$r.txt" \
        "$(awk -F, '$1 == "file" && $3 == "POSIX I/O" { print $2 }' "$d/.io_$r.csv" | tr '\n' ' ' | sed 's/ $//')"
done

# every wrapped Fortran symbol: referenced by the program, called (recorded)
# (MPIX_*_init: mpi_pcoll.sh's Fortran program, through `use mpi_ext`)
want=$( (awk '$2 != "-" && $1 !~ /^MPIX_/ { print $1 }' "$GEN_LIST"; echo MPI_Init; echo MPI_Init_thread; echo MPI_Pcontrol) | sort -u)
syms=$(nm -D --undefined-only "$prog" | awk '{ print $2 }')
called=$(cat "$mpi_tmp"/f_*/.got_[0-3] | awk '$1 == "call" && $3 > 0 { print $2 }' | sort -u)
missing_sym=0 missing_call=0
for f in $want; do
    s=$(echo "$f" | tr 'A-Z' 'a-z')_
    echo "$syms" | grep -qx "$s" || { missing_sym=$((missing_sym + 1)); echo "    not linked: $s"; }
    echo "$called" | grep -qx "$f" || { missing_call=$((missing_call + 1)); echo "    not recorded: $f"; }
done
n=$(echo "$want" | wc -l)
check "fortran: the program links all $n wrapped Fortran symbols" 0 "$missing_sym"
check "fortran: all $n wrapped Fortran routines recorded as MPI calls" 0 "$missing_call"
finish
