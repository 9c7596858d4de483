#!/bin/bash
# mpi_tables.sh — the tables of the logs of an MPI run under mpirun -np 3
# (test/mpi/mpi_coll.c: every collective, blocking and nonblocking, on
# several communicators, and a message): what the profile_table and mpi
# keys of the configuration ask for is there, in the order asked for, and
# its figures equal what the program counted itself (its expect_<rank>.txt,
# test/mpi/mpitest.h) and what the ranks' own logs say.
#
#  1. logs for all ranks, profile sorted by calls ascending, the MPI table
#     by messages descending, call paths, sync time: every rank's MPI table
#     totals equal the program's messages and bytes (a collective one
#     message each way it moved data), each blocking collective's row its
#     own collectives; <collective>_sync as often as the collective;
#     _all.log: the same summed, calls per call path the ranks' logs summed,
#     rows in the order asked for, imbalance and min/max summary present.
#  2. mpi.show_table false, show_calltime_imbalances and show_minmax_summary
#     false, separate true, and a Vftrace "cuda" section: no MPI table, no
#     imbalance, no min/max, the name-grouped table in a file of its own,
#     one "not supported by vftr" warning, capture on.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

# mrun with a configuration file
crun() {
    local np=$1 dir=$2 cfg=$3; shift 3
    mkdir -p "$dir"
    timeout -s KILL 120 mpirun -np "$np" --oversubscribe --bind-to none \
        "$VFTR_RUN" --out "$dir" --config "$cfg" -- "$MPIDIR/mpi_coll" "$dir" "$@" \
        >"$dir/.stdout" 2>"$dir/.stderr"
    echo $? >"$dir/.rc"
}

# What a rank's program did, as the MPI table counts it: sends, receives,
# bytes sent, bytes received (point-to-point messages, and a collective one
# message each way it moved data); with a name, that blocking collective's.
expected() {
    awk -v only="${2:-}" '
        $1 == "send" && only == "" { s++; sb += $4 }
        $1 == "recv" && only == "" { r++; rb += $4 }
        $1 == "coll" && (only == "" || ($2 == only && $6 % 2 == 0)) {
            if ($4 > 0) { s++; sb += $4 }
            if ($5 > 0) { r++; rb += $5 } }
        END { print s + 0, r + 0, sb + 0, rb + 0 }' "$1"
}

# The same from a log's MPI table (TITLE: "MPI:" or "MPI over").
table() {
    local t
    t=$(tsv "$1" "$2")
    echo "$(tsum Sends ${3:+Function $3} <<<"$t") $(tsum Recvs ${3:+Function $3} <<<"$t")" \
         "$(tsum 'Sent[B]' ${3:+Function $3} <<<"$t") $(tsum 'Recvd[B]' ${3:+Function $3} <<<"$t")"
}

# sorted COLUMN asc|desc: "ok" when the rows of a tsv table on stdin follow
# the column's order
sorted() {
    awk -F'\t' -v c="$1" -v dir="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
        NR > 2 && (dir == "asc" ? $k + 0 < prev : $k + 0 > prev) { bad++ }
        { prev = $k + 0; n++ }
        END { print (k && n > 1 && !bad) ? "ok" : "not sorted (" bad + 0 " of " n " rows)" }'
}

np=3
base=mpi_coll

# ------------------------------------------------------------- 1. all on
d=$mpi_tmp/tables
mkdir -p "$d"
cat >"$d/cfg.json" <<'EOF'
{
  "logfile_for_ranks": "all",
  "profile_table": {
    "show_callpath": true,
    "sort_table": { "column": "calls", "ascending": true }
  },
  "mpi": {
    "show_sync_time": true,
    "show_callpath": true,
    "sort_table": { "column": "messages", "ascending": false }
  }
}
EOF
crun $np "$d" "$d/cfg.json"
check "tables: mpirun exit status" 0 "$(cat "$d/.rc")"
[ "$(cat "$d/.rc")" = 0 ] || show "$d/.stderr"
all=$d/${base}_all.log
sum_s=0 sum_r=0 sum_sb=0 sum_rb=0
for ((r = 0; r < np; r++)); do
    log=$d/${base}_$r.log
    if [ ! -f "$log" ]; then
        fail "tables: rank $r wrote no log"
        continue
    fi
    want=$(expected "$d/expect_$r.txt")
    check "tables: rank $r log: MPI table totals (sends recvs bytes) = the program's" \
        "$want" "$(table "$log" "MPI:")"
    read -r s rc sb rb <<<"$want"
    sum_s=$((sum_s + s)) sum_r=$((sum_r + rc)) sum_sb=$((sum_sb + sb)) sum_rb=$((sum_rb + rb))
    # each blocking collective: its own row's figures
    bad=""
    for c in $(awk '$1 == "coll" && $6 % 2 == 0 && $2 != "MPI_Barrier" { print $2 }' \
                   "$d/expect_$r.txt" | sort -u); do
        [ "$(expected "$d/expect_$r.txt" "$c")" = "$(table "$log" "MPI:" "$c")" ] || bad="$bad $c"
        # the sync barrier: once per blocking call of the collective
        n=$(awk -v c="$c" '$1 == "coll" && $2 == c && $6 % 2 == 0' "$d/expect_$r.txt" | wc -l)
        got=$(tsv "$log" "Profile:" | tsum Calls Function "${c}_sync")
        [ "$n" = "$got" ] || bad="$bad ${c}_sync($got/$n)"
    done
    check "tables: rank $r log: each blocking collective's row and its _sync calls" "" "$bad"
    check "tables: rank $r log: MPI table sorted by messages, descending" ok \
        "$(tsv "$log" "MPI:" | awk -F'\t' 'NR == 1 { print "Messages\t" $0; next }
                                           { print $2 + $3 "\t" $0 }' | sorted Messages desc)"
    check "tables: rank $r log: MPI table has call paths" 1 \
        "$(tsv "$log" "MPI:" | head -1 | grep -c 'Call path$')"
    check "tables: rank $r log: no MPI_Barrier_sync (a barrier needs none)" 0 \
        "$(tsv "$log" "Profile:" | tsum Calls Function MPI_Barrier_sync)"
done
if [ -f "$all" ]; then
    check "tables: _all.log MPI table totals = the program's over the ranks" \
        "$sum_s $sum_r $sum_sb $sum_rb" "$(table "$all" "MPI over")"
    check "tables: _all.log profile sorted by calls, ascending" ok \
        "$(tsv "$all" "Profile over" | sorted Calls asc)"
    check "tables: _all.log MPI table sorted by messages, descending" ok \
        "$(tsv "$all" "MPI over" | awk -F'\t' 'NR == 1 { print "Messages\t" $0; next }
                                              { print $2 + $3 "\t" $0 }' | sorted Messages desc)"
    # calls per call path: the ranks' own logs summed
    for ((r = 0; r < np; r++)); do
        tsv "$d/${base}_$r.log" "Profile:"
    done | awk -F'\t' '/^Calls\t/ { for (i = 1; i <= NF; i++) col[$i] = i; next }
                      { n[$col["Call path"]] += $col["Calls"] }
                      END { for (p in n) print p, n[p] }' | sort >"$d/.ranks_calls"
    tsv "$all" "Profile over" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                      { print $col["Call path"], $col["Calls"] }' | sort >"$d/.all_calls"
    if [ -s "$d/.all_calls" ] && cmp -s "$d/.ranks_calls" "$d/.all_calls"; then
        pass "tables: _all.log calls of each of $(wc -l <"$d/.all_calls") call paths = the ranks' logs summed"
    else
        fail "tables: _all.log calls per call path differ from the ranks' logs (< ranks, > _all)"
        diff "$d/.ranks_calls" "$d/.all_calls" | show
    fi
    check "tables: _all.log MPI_Allreduce_sync calls = MPI_Allreduce's blocking calls" \
        "$(cat "$d"/expect_*.txt | awk '$1 == "coll" && $2 == "MPI_Allreduce" && $6 % 2 == 0' | wc -l)" \
        "$(tsv "$all" "Profile over" | tsum Calls Function MPI_Allreduce_sync)"
    check "tables: _all.log has the imbalance columns" 1 \
        "$(tsv "$all" "Profile over" | head -1 | grep -c $'Imbal\ton rank')"
    check "tables: _all.log has the min/max summary of every call path" \
        "$(($(tsv "$all" "Profile over" | wc -l) - 1))" "$(($(tsv "$all" "Min/max over" | wc -l) - 1))"
else
    fail "tables: no ${base}_all.log"
fi

# --------------------------------------- 2. off, separate, a Vftrace section
d=$mpi_tmp/tables_off
mkdir -p "$d"
cat >"$d/cfg.json" <<'EOF'
{
  "profile_table": {
    "show_calltime_imbalances": false,
    "show_minmax_summary": false,
    "separate": true
  },
  "name_grouped_profile_table": { "show_table": true },
  "mpi": { "show_table": false },
  "cuda": { "show_table": true }
}
EOF
crun $np "$d" "$d/cfg.json"
check "tables off: mpirun exit status" 0 "$(cat "$d/.rc")"
check "tables off: one \"not supported\" warning (rank 0 speaks) for the cuda section" 1 \
    "$(grep -c '"cuda": CUDA profiling (CUPTI) is not supported by vftr; the section is ignored' "$d/.stderr")"
all=$d/${base}_all.log
check "tables off: logs written (rank 0, _all)" "1 1" \
    "$([ -f "$d/${base}_0.log" ] && echo 1 || echo 0) $([ -f "$all" ] && echo 1 || echo 0)"
check "tables off: no MPI table in any log" 0 \
    "$(cat "$d/${base}_0.log" "$all" | grep -c '^MPI')"
check "tables off: no imbalance, no min/max summary" 0 "$(grep -c 'Imbal\|^Min/max' "$all")"
check "tables off: the name-grouped tables in files of their own" "1 1" \
    "$(grep -c "^Profile grouped by function name: in ${base}_0_namegroup.log$" "$d/${base}_0.log") $(grep -c "^Profile grouped by function name: in ${base}_all_namegroup.log$" "$all")"
check "tables off: _all_namegroup.log holds the table" 1 \
    "$(grep -c '^Profile grouped by function name: [0-9]* functions' "$d/${base}_all_namegroup.log" 2>/dev/null)"
check "tables off: no other separate file" 2 "$(find "$d" -name "${base}_*_*.log" | wc -l)"
finish
