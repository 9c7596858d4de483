#!/bin/bash
# mpi_run.sh — vftr-run and the MPI library, and clock offsets:
#  - a program that does not link MPI does not get libvftrcapture-mpi.so
#    (cat and env run under vftr-run show what they were given);
#  - an MPI program does, found through its DT_NEEDED entries;
#  - a 2-rank ping-pong (test/mpi/mpi_pingpong.c) whose rank 1 runs with
#    VFTR_TEST_CLOCK_SKEW=OFFSET:DRIFT: its CLOCK_OFFSETS, mapped to ns
#    through both files' headers, show the offset (rank 0's own offset is 0),
#    and the messages are exact;
#  - mpi.only_for_ranks limits the message records to the ranks it names.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../mpi/common.sh
. "$here/../mpi/common.sh"

d=$mpi_tmp/run
mkdir -p "$d"
"$VFTR_RUN" --out "$d" -- cat /proc/self/maps >"$d/maps_cat" 2>/dev/null
check "vftr-run: a non-MPI program loads libvftrcapture.so" 1 \
    "$(grep -c 'libvftrcapture.so' "$d/maps_cat" | awk '{ print ($1 > 0) }')"
check "vftr-run: a non-MPI program does not load libvftrcapture-mpi.so" 0 \
    "$(grep -c 'libvftrcapture-mpi' "$d/maps_cat")"
pre=$("$VFTR_RUN" --out "$d" -- env 2>/dev/null | sed -n 's/^LD_PRELOAD=//p')
check "vftr-run: env (no MPI) gets only libvftrcapture.so" 0 "$(echo "$pre" | grep -c 'vftrcapture-mpi')"

# the skewed ping-pong: rank 1 a clock 5 ms ahead, 40 ppm fast
skew=5000000
cat >"$d/skewed.sh" <<EOS
#!/bin/sh
if [ "\$OMPI_COMM_WORLD_RANK" = 1 ]; then export VFTR_TEST_CLOCK_SKEW=$skew:40; fi
exec "$VFTR_RUN" --out "$d/pp" -- "$MPIDIR/mpi_pingpong" "$d/pp" pingpong 200 64
EOS
chmod +x "$d/skewed.sh"
mkdir -p "$d/pp"
timeout -s KILL 120 mpirun -np 2 --oversubscribe --bind-to none "$d/skewed.sh" \
    >"$d/pp/.stdout" 2>"$d/pp/.stderr"
echo $? >"$d/pp/.rc"
basics "pingpong" "$d/pp" 2 mpi_pingpong
messages "pingpong" "$d/pp" 2
matching "pingpong" "$d/pp" 2
check "pingpong: MPI library preloaded (MPI_Send recorded as an MPI call)" 1000 \
    "$(awk '$1 == "call" && $2 == "MPI_Send" { s += $3 } END { print s + 0 }' "$d/pp/.got_1")"
for ph in 0 1; do
    off=$(awk -v p=$ph '$1 == "offset" && $2 == p { print $6 }' "$d/pp/.got_1")
    rtt=$(awk -v p=$ph '$1 == "offset" && $2 == p { print $5 }' "$d/pp/.got_1")
    tps=$(awk '$1 == "ticks_per_second" { print $2 }' "$d/pp/.got_1")
    el=$(awk -v p=$ph '$1 == "start_ticks" { s = $2 } $1 == "offset" && $2 == p { t = $3 } END { print t - s }' "$d/pp/.got_1")
    own=$(awk -v p=$ph '$1 == "offset" && $2 == p { print $6 }' "$d/pp/.got_0")
    check "clock: rank 0 phase $ph offset to itself is 0 ns" 0 "$own"
    # a ping-pong measures the offset to within half its round trip; the
    # 40 ppm drift adds 40 ns per ms since the start; 0.2 ms more for the
    # clock rates measured over a short run
    lim=$(awk -v r="$rtt" -v t="$tps" -v e="$el" 'BEGIN { printf "%.0f", (r / 2 + e * 40e-6) * 1e9 / t + 200000 }')
    ok=$(awk -v o="$off" -v s=$skew -v l="$lim" 'BEGIN { d = o - s; if (d < 0) d = -d; print (o != "" && d <= l) }')
    check "clock: rank 1 phase $ph offset $off ns is the skew $skew ns (+-$lim ns)" 1 "$ok"
done

# mpi.only_for_ranks: only rank 1 writes message and collective records
mkdir -p "$d/only"
echo '{ "mpi": { "only_for_ranks": "1" } }' >"$d/only.json"
timeout -s KILL 120 mpirun -np 2 --oversubscribe --bind-to none "$VFTR_RUN" --config "$d/only.json" \
    --out "$d/only" -- "$MPIDIR/mpi_pingpong" "$d/only" pingpong 10 8 >"$d/only/.stdout" 2>"$d/only/.stderr"
echo $? >"$d/only/.rc"
echo "only rank 1 records its messages (mpi.only_for_ranks): a partial trace by request" \
    >"$d/only/.nocheck"
basics "only_for_ranks" "$d/only" 2 mpi_pingpong
recs() { awk '$1 == "send" || $1 == "recv" || $1 == "coll"' "$1" | wc -l; }
check "only_for_ranks=1: rank 0 writes no message records" 0 "$(recs "$d/only/.got_0")"
check "only_for_ranks=1: rank 1 writes its 100 messages (5 x 10 round trips) and 5 barriers" 105 "$(recs "$d/only/.got_1")"
finish
