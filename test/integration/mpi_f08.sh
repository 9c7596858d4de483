#!/bin/bash
# mpi_f08.sh — the mpi_f08 bindings under mpirun -np 3 (test/mpi/mpi_f08.f90,
# `use mpi_f08`: Open MPI's mpi_x_f08_ symbols, which call PMPI inside and
# so are seen only through their own wrappers): against what the program
# counted itself,
#  - its messages and collectives in the .vfd (handles, statuses,
#    MPI_STATUS(ES)_IGNORE, MPI_IN_PLACE, the OPTIONAL ierror left out or
#    given), every send matched (MPI_Mrecv, MPI_Imrecv among the receives);
#  - the calls of every MPI function, none counted twice;
#  - the bytes of the RMA calls and matched receives in the log's MPI table;
#  - the communicator named through a CHARACTER argument;
#  - every _f08_ symbol the program links is a wrapper of
#    libvftrcapture-mpi.so, and the library has one for every Fortran
#    routine of the table (build/gen/capture/mpi/wrappers.txt).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

prog=$MPIDIR/mpi_f08
if [ ! -x "$prog" ]; then
    skip "mpi_f08 test" "mpif90 not found at build time"
    exit 0
fi

np=3
d=$mpi_tmp/f08
mkdir -p "$d/run"
cat >"$d/cfg.json" <<'EOF'
{ "logfile_for_ranks": "all", "mpi": { "show_table": true } }
EOF
timeout -s KILL 120 mpirun -np $np --oversubscribe --bind-to none \
    "$VFTR_RUN" --out "$d/run" --config "$d/cfg.json" -- "$prog" "$d/run" \
    >"$d/run/.stdout" 2>"$d/run/.stderr"
echo $? >"$d/run/.rc"
d=$d/run
basics "f08" "$d" $np mpi_f08
messages "f08" "$d" $np
matching "f08" "$d" $np

for ((r = 0; r < np; r++)); do
    bad_calls=0 bad_bytes=0 n=0
    while read -r fn calls sent recvd; do
        n=$((n + 1))
        got=$(awk -v f="$fn" '$1 == "call" && $2 == f { print $3, $4 }' "$d/.got_$r")
        [ "$got" = "$calls $calls" ] || { bad_calls=$((bad_calls + 1)); echo "    rank $r $fn: .vfd '$got', program $calls"; }
        case $fn in
            MPI_Put|MPI_Get|MPI_Accumulate|MPI_Fetch_and_op|MPI_Mrecv|MPI_Wait)
                got=$(tsv "$d/mpi_f08_$r.log" "MPI:" | awk -F'\t' -v fn="$fn" '
                    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                    $col["Function"] == fn { s += $col["Sent[B]"]; r += $col["Recvd[B]"] }
                    END { print s + 0, r + 0 }')
                [ "$got" = "$sent $recvd" ] || { bad_bytes=$((bad_bytes + 1)); echo "    rank $r $fn: log bytes '$got', program '$sent $recvd'"; } ;;
        esac
    done <"$d/calls_$r.txt"
    check "f08: rank $r: calls of its $n MPI functions as the program counted" 0 "$bad_calls"
    check "f08: rank $r: bytes of its RMA calls and matched receives in its log" 0 "$bad_bytes"
    check "f08: rank $r names the dup as MPI_Comm_set_name said" "f08 dup" \
        "$(awk '$1 == "comm" { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' "$d/.got_$r" |
           grep -x 'f08 dup')"
done

# symbols: what the program links, what the library exports
lib=$mpi_build/lib/libvftrcapture-mpi.so
exported=$(nm -D --defined-only "$lib" | awk '{ print $3 }' | sort)
linked=$(nm -D --undefined-only "$prog" | awk '$2 ~ /_f08_$/ { print $2 }' | sort)
# (MPIX_*: an extension the MPI library may lack; mpi_pcoll.sh checks them)
tabled=$( (awk '$3 != "-" && $1 !~ /^MPIX_/ { print $3 }' "$GEN_LIST"; echo mpi_init_f08_; echo mpi_init_thread_f08_;
           echo mpi_pcontrol_f08_) | sort)
# (MPI_Comm_rank and MPI_Comm_size are not in the table: no wrapper)
check "f08: the program's $(comm -12 <(echo "$linked") <(echo "$tabled") | wc -l) _f08_ symbols of the table's functions are all wrapped" "" \
    "$(comm -12 <(echo "$linked") <(echo "$tabled") | comm -23 - <(echo "$exported") | tr '\n' ' ')"
check "f08: the program's other _f08_ symbols are those of functions the table lacks" \
    "mpi_comm_rank_f08_ mpi_comm_size_f08_" "$(comm -23 <(echo "$linked") <(echo "$tabled") | tr '\n' ' ' | sed 's/ $//')"
check "f08: the library has all $(echo "$tabled" | wc -l) mpi_f08 wrappers of the table" "" \
    "$(comm -23 <(echo "$tabled") <(echo "$exported") | tr '\n' ' ')"
finish
