#!/bin/sh
# table.sh TARGET... — the table `make fuzz` ends with: per target, the
# executions, executions per second, the corpus size and the coverage
# (libFuzzer's final statistics and last status line in TARGET.log).
# Exits 1 when a log holds a sanitizer report.
printf '%-24s %12s %10s %8s %8s  %s\n' target executions "exec/s" corpus edges result
status=0
for t in "$@"; do
    name=$(basename "$t")
    log=$t.log
    if [ ! -f "$log" ]; then
        printf '%-24s %12s %10s %8s %8s  %s\n' "$name" - - - - "not run"
        continue
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    corpus=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
    edges=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    if grep -qE '^==[0-9]+==ERROR|^SUMMARY: (Address|Undefined|Leak)|deadly signal|ALARM: working on the last Unit' "$log"; then
        result=FAILED
        status=1
    else
        result=ok
    fi
    printf '%-24s %12s %10s %8s %8s  %s\n' "$name" "${execs:--}" "${rate:--}" "${corpus:--}" \
        "${edges:--}" "$result"
done
exit $status
