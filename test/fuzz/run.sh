#!/bin/sh
# run.sh SECONDS TARGET — one libFuzzer target of `make fuzz` for SECONDS
# on its seed corpus test/fuzz/corpus/NAME (NAME: TARGET's name without
# "fuzz_") and the corpus it grew in earlier runs (corpus-TARGET beside it).
# Its output goes to TARGET.log; a crash, leak, timeout or sanitizer report
# prints the end of the log and exits 1.  Inputs are at most 64 KiB; one
# taking more than 10 s counts as a hang.
secs=$1
t=$2
dir=$(dirname "$t")
name=$(basename "$t")
seeds=test/fuzz/corpus/${name#fuzz_}
mkdir -p "$dir/corpus-$name" "$dir/artifacts-$name"
[ -d "$seeds" ] || seeds=
if "$t" -max_total_time="$secs" -max_len=65536 -timeout=10 -print_final_stats=1 \
        -close_fd_mask=1 -artifact_prefix="$dir/artifacts-$name/" \
        "$dir/corpus-$name" $seeds >"$t.log" 2>&1; then
    echo "fuzz: $name done"
else
    tail -n 40 "$t.log"
    echo "fuzz: $name FAILED (log: $t.log, inputs: $dir/artifacts-$name/)"
    exit 1
fi
