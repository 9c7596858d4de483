#!/bin/bash
# vfd2otf_stream.sh — vfd2otf matches messages in one streaming pass and
# keeps of the match only the peers that are not the peer rank's main
# thread (issue 5: memory bounded by buffers, not by the number of
# messages).
#
# 1. Messages sent and received on other threads (test/conv/mkvfd
#    "threads", worked out by hand from mkvfd.c; tokens: rank 0 -> 1,
#    rank 0 thread 1 -> (1 << 20) + 1 = 1048577, rank 1 -> 2, rank 1
#    thread 1 -> 1048578; the reference reader prints "process time SEND|RECV
#    peer group tag bytes"):
#      rank 0 thread 0 sends tag 1 (begun 205) to rank 1 thread 0 (record 250);
#      rank 0 thread 1 sends tag 2 (begun 315) to rank 1 thread 1 (record 410);
#      rank 0 thread 1 sends tag 9 (begun 350) that nobody receives: its peer
#      is rank 1's process (main thread).
#    vfd2otf -j 2 and vfd2otf-mpi -np 2 write the same files.
# 2. A chunk that starts with an MPI record: the sends keep their place.
# 3. Memory: mkvfd "msgs" (4 ranks calling MPI_Sendrecv M times in a ring,
#    a barrier every 100 calls) with M = 62500 and M = 250000: 250 000 and
#    1 000 000 messages matched, 2500 and 10 000 collectives, and peak RSS
#    (GNU time) at 4x the messages within 1 MiB of the smaller run's.  Before
#    streaming, each message cost about 190 bytes (+140 MiB here).
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
MK=$B/test/conv/mkvfd
REF=$B/test/conv/refdump
V2O=$B/bin/vfd2otf
MPI=$B/bin/vfd2otf-mpi

mkdir -p "$T/th"
$MK threads "$T/th" || { bad "mkvfd threads"; exit 1; }
if ! "$V2O" --events-only -o "$T/a" "$T/th" >"$T/out" 2>"$T/err"; then
    bad "threads: vfd2otf failed: $(cat "$T/err")"
else
    cat >"$T/expect" <<'X'
1 205 SEND 2 1 1 8
1048577 315 SEND 1048578 1 2 16
1048577 350 SEND 2 1 9 4
1048578 410 RECV 1048577 1 2 16
2 250 RECV 1 1 1 8
X
    "$REF" -e "$T/a" 2>&1 | grep -E ' (SEND|RECV) ' | sort >"$T/got"
    if diff -u "$T/expect" "$T/got" >"$T/diff"; then
        pass "threads: each message names the thread of its other side"
    else
        bad "threads: messages differ: $(cat "$T/diff")"
    fi
    grep -q ' 2 messages matched, 0 receives before their send' "$T/out" \
        && pass "threads: 2 messages matched" || bad "threads: summary: $(cat "$T/out")"
    grep -q 'warning: 1 send without receive, 0 receives without send' "$T/err" \
        && pass "threads: the unreceived send is counted" || bad "threads: warnings: $(cat "$T/err")"
    "$V2O" -q --events-only -j 2 -o "$T/j" "$T/th" 2>/dev/null
    n=0; diff=0
    for f in "$T"/a.*; do n=$((n + 1)); cmp -s "$f" "$T/j${f#"$T"/a}" || diff=$((diff + 1)); done
    [ "$n" -gt 2 ] && [ "$diff" = 0 ] && pass "threads: -j 2 writes the same $n files" \
        || bad "threads: -j 2: $diff of $n files differ"
    if [ -x "$MPI" ] && command -v mpirun >/dev/null; then
        mpirun --allow-run-as-root --oversubscribe -np 2 "$MPI" -q -o "$T/m" "$T/th" >"$T/mout" 2>&1
        n=0; diff=0
        for f in "$T"/a.*; do n=$((n + 1)); cmp -s "$f" "$T/m${f#"$T"/a}" || diff=$((diff + 1)); done
        [ "$diff" = 0 ] && pass "threads: vfd2otf-mpi -np 2 writes the same $n files" \
            || bad "threads: vfd2otf-mpi: $diff of $n files differ ($(tail -2 "$T/mout"))"
    else
        echo "SKIP: vfd2otf-mpi or mpirun missing"
    fi
fi

# Events chunks that start with an MPI record (mkvfd "msgs" writes the
# send of call M/2 as a chunk of its own, and its receive first in the
# next): the first pass must count them like any other.  Each send begins
# one tick after its MPI_Sendrecv is entered (mkvfd.c), and vfd2otf places
# a send at its beginning, so every SEND follows its process's ENTER at
# time + 1: 4000 sends of M = 1000 on 4 ranks.
mkdir -p "$T/m1k"
$MK msgs "$T/m1k" 1000 4 || { bad "mkvfd msgs 1000"; exit 1; }
if "$V2O" -q -o "$T/k" "$T/m1k" 2>"$T/err"; then
    got=$("$REF" -e "$T/k" 2>&1 | awk '$3 == "ENTER" && $4 == "MPI_Sendrecv" { e[$1] = $2 }
        $3 == "SEND" { n++; if ($2 != e[$1] + 1) bad++ } END { print n + 0, bad + 0 }')
    [ "$got" = "4000 0" ] && pass "msgs: chunks that start with an MPI record: 4000 sends at their beginning" \
        || bad "msgs: chunks that start with an MPI record: sends, misplaced: $got (expected 4000 0)"
else
    bad "msgs 1000: vfd2otf failed: $(cat "$T/err")"
fi
rm -rf "$T/m1k" "$T"/k.*

if [ ! -x /usr/bin/time ]; then
    echo "SKIP: memory: /usr/bin/time (GNU time) missing"
    exit $fail
fi
rss=()
for m in 62500 250000; do
    mkdir -p "$T/m$m"
    $MK msgs "$T/m$m" $m 4 || { bad "mkvfd msgs $m"; exit 1; }
    if ! /usr/bin/time -f '%M' -o "$T/rss" "$V2O" -j 1 -o "$T/o$m" "$T/m$m" >"$T/out" 2>"$T/err"; then
        bad "msgs $m: vfd2otf failed: $(cat "$T/err")"
        exit 1
    fi
    grep -q " $((4 * m)) messages matched, 0 receives before their send, $((4 * m / 100)) collectives" \
        "$T/out" && pass "msgs: $((4 * m)) messages matched, $((4 * m / 100)) collectives" \
        || bad "msgs $m: summary: $(cat "$T/out")"
    rss+=("$(tail -1 "$T/rss")")
    rm -rf "$T/m$m" "$T/o$m".*
done
grow=$((rss[1] - rss[0]))
# TSan keeps shadow memory for every page of the input mapping it has seen,
# so the peak RSS grows with the input there whatever vftr allocates
case $(ldd "$V2O" 2>/dev/null) in
    *libtsan*) echo "SKIP: memory bound under TSan (its shadow of the mapped input: ${rss[0]} -> ${rss[1]} KiB)"
               exit $fail ;;
esac
[ "$grow" -le 1024 ] \
    && pass "memory: 4x the messages, peak RSS ${rss[0]} -> ${rss[1]} KiB (<= +1024)" \
    || bad "memory grows with the messages: peak RSS ${rss[0]} -> ${rss[1]} KiB (+$grow, at most +1024)"
exit $fail
