#!/bin/bash
# vfd2otf_mpi.sh — vfd2otf-mpi under mpirun -np 2 and -np 4 writes the same
# trace as vfd2otf: every file byte for byte (master, definitions, streams),
# plain and compressed, with one stream per rank and with fewer streams.
# Input: mkvfd's "big" run (6 ranks, 20000 events each, a message ring) and
# the "basic" run.  Each rank reads only its share in the first pass: under
# strace, with --streams 1 (rank 0 replays everything) ranks 1..3 of 4 open
# only their own files (together the 6 ranks' files minus rank 0's share, no
# file twice); with a stream per rank every rank, rank 0 included, opens only
# its share (each rank matches the receives of its own files, the sends to
# them coming from their readers over MPI).
# Warnings of files read by other ranks still reach rank 0's stderr.
# The tool calls no blocking MPI collective (counted by a preloaded
# profiling library): its ranks wait in lib/mpi/coll.h's, sleeping.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
MPI=$B/bin/vfd2otf-mpi
if [ ! -x "$MPI" ] || ! command -v mpirun >/dev/null; then
    echo "FAIL: vfd2otf-mpi or mpirun missing (mpicc not found at build time?)"; exit 1
fi
RUN="mpirun --allow-run-as-root --oversubscribe"
# a sanitized build: Open MPI's own leaks at exit are not ours (as in
# test/mpi/common.sh); every other finding still fails the run
. "$(cd "$(dirname "$0")" && pwd)/../sanitizers.sh"
san_env "$MPI"   # test/sanitizers.sh
mkdir -p "$T/big" "$T/basic"
$B/test/conv/mkvfd big "$T/big" 20000 6 && $B/test/conv/mkvfd basic "$T/basic" || { bad mkvfd; exit 1; }

same() {  # what serial-stub mpi-stub
    local n=0 d=0
    for f in "$2".*; do
        n=$((n + 1))
        cmp -s "$f" "$3${f#$2}" || { d=$((d + 1)); echo "differs: ${f#$2}"; }
    done
    [ "$(ls "$3".* | wc -l)" = $n ] || d=$((d + 1))
    [ $n -gt 2 ] && [ $d = 0 ] && pass "$1: $n files identical" || bad "$1: $d of $n files differ"
}

for input in big basic; do
    for opts in "" "--streams 4" "--compress"; do
        [ "$input" = basic ] && [ "$opts" = "--streams 4" ] && continue
        tag=$(echo "$input$opts" | tr -d ' -')
        $B/bin/vfd2otf -q --events-only $opts -o "$T/s-$tag" "$T/$input" || bad "vfd2otf $input $opts"
        for np in 2 4; do
            $RUN -np $np "$MPI" -q $opts -o "$T/m$np-$tag" "$T/$input" >"$T/log" 2>&1 \
                || bad "vfd2otf-mpi -np $np $input $opts: $(tail -3 "$T/log")"
            same "$input $opts, mpirun -np $np" "$T/s-$tag" "$T/m$np-$tag"
        done
    done
done
# messages between the ranks' second threads (MPI_THREAD_MULTIPLE), matched
# by the process that reads the receiver's file (its peer is no rank's
# main thread: an exception each process must learn), and a send never
# received: the same trace and the same counts as vfd2otf's
mkdir -p "$T/threads" && $B/test/conv/mkvfd threads "$T/threads" || bad "mkvfd threads"
$B/bin/vfd2otf --events-only -o "$T/s-th" "$T/threads" >"$T/log-s-th" 2>&1 || bad "vfd2otf threads"
$RUN -np 2 "$MPI" --events-only -o "$T/m-th" "$T/threads" >"$T/log-m-th" 2>&1 \
    || bad "vfd2otf-mpi -np 2 threads: $(tail -3 "$T/log-m-th")"
same "threads, messages between second threads, mpirun -np 2" "$T/s-th" "$T/m-th"
{ grep -o '[0-9]* messages matched, [0-9]* receives before their send' "$T/log-s-th"
  grep -o '[0-9]* send without receive, [0-9]* receives without send' "$T/log-s-th"; } >"$T/n-s-th"
if [ "$(wc -l <"$T/n-s-th")" = 2 ] && grep -qF "$(sed -n 1p "$T/n-s-th")" "$T/log-m-th" &&
   grep -qF "$(sed -n 2p "$T/n-s-th")" "$T/log-m-th"; then
    pass "threads: vfd2otf-mpi counts as vfd2otf: $(tr '\n' ' ' <"$T/n-s-th")"
else
    bad "threads: counts differ: $(cat "$T/n-s-th") / $(grep -o '[0-9]* messages matched' "$T/log-m-th")"
fi
# and the reference reads the big one, every message matched
$B/test/conv/refdump -e "$T/m4-big" >"$T/ev" || bad "reference cannot read vfd2otf-mpi's trace"
s=$(grep -c ' SEND ' "$T/ev"); r=$(grep -c ' RECV ' "$T/ev")
[ "$s" -gt 0 ] && [ "$s" = "$r" ] && pass "big: $s sends, $r receives" || bad "sends $s receives $r"
# who opens what: strace per MPI rank (OMPI_COMM_WORLD_RANK names the log)
if command -v strace >/dev/null && strace -qq -e trace=none true 2>/dev/null; then
    rm -f "$T"/st.*
    $RUN -np 4 sh -c 'exec strace -f -qq -e trace=openat,open -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
        "$T/st" "$MPI" -q --streams 1 -o "$T/share" "$T/big" >"$T/log" 2>&1 \
        || bad "vfd2otf-mpi under strace: $(tail -3 "$T/log")"
    opened() { grep -o '[^/"]*\.vfd"' "$T/st.$1" | tr -d '"' | sort -u; }
    all=$(ls "$T/big" | grep -c '\.vfd$')
    for k in 1 2 3; do opened $k; done >"$T/others"
    n1=$(opened 1 | wc -l); n2=$(opened 2 | wc -l); n3=$(opened 3 | wc -l)
    u=$(sort -u "$T/others" | wc -l); t=$(wc -l <"$T/others")
    # 6 files over 4 ranks: file i on rank i % 4, so ranks 1..3 read 2, 1, 1
    [ "$all" = 6 ] && [ "$n1" = 2 ] && [ "$n2" = 1 ] && [ "$n3" = 1 ] && [ "$u" = "$t" ] \
        && pass "first pass shared: ranks 1..3 open $n1, $n2, $n3 of $all files, none twice" \
        || bad "first pass not shared: ranks 1..3 opened $n1, $n2, $n3 of $all files ($u distinct of $t)"
    opened 0 | grep -q . && [ "$(opened 0 | wc -l)" = "$all" ] \
        && pass "rank 0 (the only stream) replays all $all files" || bad "rank 0 opened $(opened 0 | wc -l) files"
    $B/bin/vfd2otf -q --events-only --streams 1 -o "$T/share-s" "$T/big" || bad "vfd2otf --streams 1"
    same "shared first pass, --streams 1, under strace" "$T/share-s" "$T/share"
    # one stream per rank: every MPI rank k, rank 0 included, opens only the
    # files i with i % 4 = k (its share of the first pass, the files of its
    # streams, and its files' MPI records it matches or sends on)
    rm -f "$T"/st.*
    $RUN -np 4 sh -c 'exec strace -f -qq -e trace=openat,open -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
        "$T/st" "$MPI" -q -o "$T/share4" "$T/big" >"$T/log" 2>&1 \
        || bad "vfd2otf-mpi under strace: $(tail -3 "$T/log")"
    ls "$T/big" | grep '\.vfd$' | awk '{ print $0, (NR - 1) % 4 }' >"$T/owner"
    strays=0 opens=0
    for k in 0 1 2 3; do
        for f in $(opened $k); do
            opens=$((opens + 1))
            grep -qx "$f $k" "$T/owner" || { strays=$((strays + 1)); echo "rank $k opened $f" >&2; }
        done
    done
    [ "$strays" = 0 ] && [ "$opens" = "$all" ] \
        && pass "one stream per rank: every rank, the matcher too, opens only its own $opens of $all files" \
        || bad "ranks opened files outside their share ($strays strays, $opens opened)"
    $B/bin/vfd2otf -q --events-only -o "$T/share4-s" "$T/big" || bad "vfd2otf"
    same "matching served over MPI, under strace" "$T/share4-s" "$T/share4"
else
    echo "SKIP: strace cannot trace here: the share of the first pass is not checked"
fi
# warnings of a file another rank read are printed by rank 0
mkdir -p "$T/cut"
cp "$T/big"/*.vfd "$T/cut/"
f=$(ls "$T/cut"/*.vfd | sed -n 2p)
truncate -s -100 "$f"
$B/bin/vfd2otf -q --events-only -o "$T/cs" "$T/cut" 2>"$T/serr" || bad "vfd2otf on a cut file"
$RUN -np 2 "$MPI" -q -o "$T/cm" "$T/cut" >"$T/merr" 2>&1 || bad "vfd2otf-mpi on a cut file"
w=$(grep -m1 'warning' "$T/serr" | sed 's/^[^:]*: //')
[ -n "$w" ] && grep -F -q -- "vfd2otf-mpi: $w" "$T/merr" \
    && pass "a cut file read by rank 1: rank 0 prints the same warning as vfd2otf" \
    || bad "warnings differ: $(head -2 "$T/serr") / $(head -2 "$T/merr")"
same "a cut file, mpirun -np 2" "$T/cs" "$T/cm"
# No blocking collective of its own: a rank done first (here rank 1, while
# rank 0 replays the only stream) waits in lib/mpi/coll.h's nonblocking
# ones, testing and sleeping, instead of spinning on the core rank 0 needs.
# libblockcount.so counts them through MPI's profiling interface.
BC=$B/test/conv/libblockcount.so
if [ -f "$BC" ]; then
    $RUN -np 2 -x LD_PRELOAD="$BC" -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        "$MPI" -q --streams 1 -o "$T/bc" "$T/big" >"$T/bclog" 2>&1 || bad "vfd2otf-mpi with libblockcount: $(tail -3 "$T/bclog")"
    counts=$(grep '^blockcount: rank' "$T/bclog" | sort)
    if [ "$(echo "$counts" | grep -c ': 0 blocking, [1-9][0-9]* nonblocking')" = 2 ]; then
        pass "no blocking collective on either rank: $(echo "$counts" | tr '\n' ' ')"
    else
        bad "blocking collectives: $(echo "$counts" | tr '\n' ' ')"
    fi
    $B/bin/vfd2otf -q --events-only --streams 1 -o "$T/bc-s" "$T/big" || bad "vfd2otf --streams 1"
    same "with libblockcount preloaded, --streams 1, mpirun -np 2" "$T/bc-s" "$T/bc"
else
    bad "$BC not built (make check builds it where mpicc is)"
fi
exit $fail
