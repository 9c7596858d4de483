#!/bin/bash
# vftr_dump_vfd.sh — vftr-dump prints .vfd files: header, definitions,
# events (with MPI and OpenMP records decoded), --count, --process (threads)
# and --time.  Expected lines are what test/conv/mkvfd.c's "basic" rank 0
# writes, spelled out by hand from its source.
. "$(cd "$(dirname "$0")" && pwd)/../conv/common.sh"
D=$B/bin/vftr-dump
$B/test/conv/mkvfd basic "$T" || { bad mkvfd; exit 1; }
F=$T/basic_0.vfd

$D "$F" >"$T/all" 2>"$T/err" || bad "exit status $?: $(cat "$T/err")"
for line in \
    "HEADER file=$F version=1 rank=0 size=2 pid=1000" \
    "HEADER run_id=01010101010101010101010101010101 host=testhost exe=/test/basic" \
    "RUNID 01010101010101010101010101010101" \
    "THREAD 1 parent=0 os_tid=101 created=0 name=omp1" \
    "FUNCTION 3 flags=0x9 address=0x0 name=MPI_Send" \
    "CALLPATH 10 parent=0 function=5 (work) thread=1" \
    "COMM id=0x0 size=2 name=MPI_COMM_WORLD ranks=0,1" \
    "OMPREGION 2 kind=implicit task codeptr=0x1234 function=main file=/src/heat.c line=42"; do
    grep -qxF "$line" "$T/all" && pass "defs: $line" || bad "missing: $line"
done
cat >"$T/expect" <<'X'
100 T0 ENTER 1 main
200 T0 ENTER 2 foo
300 T0 EXIT 2 foo
400 T0 ENTER 3 MPI_Send
450 T0 SEND peer=1 tag=7 bytes=800 comm=0x0 start=410 flags=0x0
460 T0 EXIT 3 MPI_Send
210 T1 OMP_BEGIN region=2 instance=7 value=0
250 T1 ENTER 10 work
260 T1 EXIT 10 work
280 T1 OMP_END region=2 instance=7 value=0
500 T0 ENTER 4 MPI_Barrier
590 T0 COLL op=MPI_Barrier comm=0x0 root=-1 sent=0 received=0 start=505 flags=0x0
600 T0 EXIT 4 MPI_Barrier
700 T0 EXIT 1 main
X
$D --events "$F" >"$T/ev" && diff -u "$T/expect" "$T/ev" && pass "events in file order, decoded" || bad "events"
grep -v ' T1 ' "$T/expect" >"$T/exp0"
$D -e -p 0 "$F" >"$T/p0" && diff -u "$T/exp0" "$T/p0" && pass "--process 0 selects thread 0" || bad "--process"
printf '250 T1 ENTER 10 work\n260 T1 EXIT 10 work\n' >"$T/exp-t"
$D -e -t 250:270 "$F" >"$T/t" && diff -u "$T/exp-t" "$T/t" && pass "--time 250:270 (ticks)" || bad "--time"
$D -e -t 250ns:270ns "$F" >"$T/t2" && diff -u "$T/exp-t" "$T/t2" && pass "--time with units (ns)" || bad "--time units"
$D --count "$F" >"$T/c"
grep -q '^ENTER  *5$' "$T/c" && grep -q '^SEND  *1$' "$T/c" && grep -q '^OMP_BEGIN  *1$' "$T/c" \
    && grep -q '^total  *29$' "$T/c" && pass "--count: 5 ENTER, 1 SEND, 1 OMP_BEGIN, 29 records" || bad "--count: $(cat "$T/c")"
$D -d "$F" | grep -q ' T0 ' && bad "--defs prints events" || pass "--defs prints no events"
# damaged files: a cut file warns and prints what is whole
head -c 4500 "$F" >"$T/cut.vfd"
$D -e "$T/cut.vfd" >"$T/cut.out" 2>"$T/cut.err"; rc=$?
[ $rc = 0 ] && grep -q 'truncated' "$T/cut.err" && pass "cut file: warning, exit 0" || bad "cut file: exit $rc $(cat "$T/cut.err")"
printf 'garbage' >"$T/bad.vfd"
$D "$T/bad.vfd" >/dev/null 2>"$T/bad.err"; rc=$?
[ $rc = 1 ] && grep -q 'bad.vfd: offset' "$T/bad.err" && pass "not a .vfd: exit 1 with file and offset" || bad "bad file: exit $rc"
$D -t 5q "$F" >/dev/null 2>&1; [ $? = 2 ] && pass "bad --time is a usage error" || bad "--time 5q"
exit $fail
