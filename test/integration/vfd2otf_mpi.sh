#!/bin/bash
# vfd2otf_mpi.sh — vfd2otf-mpi under mpirun -np 2 and -np 4 writes the same
# trace as vfd2otf: every file byte for byte (master, definitions, streams),
# plain and compressed, with one stream per rank and with fewer streams.
# Input: mkvfd's "big" run (6 ranks, 20000 events each, a message ring) and
# the "basic" run.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
MPI=$B/bin/vfd2otf-mpi
if [ ! -x "$MPI" ] || ! command -v mpirun >/dev/null; then
    echo "FAIL: vfd2otf-mpi or mpirun missing (mpicc not found at build time?)"; exit 1
fi
RUN="mpirun --allow-run-as-root --oversubscribe"
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
        $B/bin/vfd2otf -q $opts -o "$T/s-$tag" "$T/$input" || bad "vfd2otf $input $opts"
        for np in 2 4; do
            $RUN -np $np "$MPI" -q $opts -o "$T/m$np-$tag" "$T/$input" >"$T/log" 2>&1 \
                || bad "vfd2otf-mpi -np $np $input $opts: $(tail -3 "$T/log")"
            same "$input $opts, mpirun -np $np" "$T/s-$tag" "$T/m$np-$tag"
        done
    done
done
# and the reference reads the big one, every message matched
$B/test/conv/refdump -e "$T/m4-big" >"$T/ev" || bad "reference cannot read vfd2otf-mpi's trace"
s=$(grep -c ' SEND ' "$T/ev"); r=$(grep -c ' RECV ' "$T/ev")
[ "$s" -gt 0 ] && [ "$s" = "$r" ] && pass "big: $s sends, $r receives" || bad "sends $s receives $r"
exit $fail
