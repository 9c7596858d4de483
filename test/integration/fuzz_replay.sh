#!/bin/bash
# fuzz_replay.sh — every libFuzzer target of test/fuzz/, built by the
# project's compiler and flags ($BUILD/test/fuzz/fuzz_NAME, with
# test/fuzz/replay.c for a main: SANITIZE builds replay under their
# sanitizers), runs once over its seed corpus (test/fuzz/corpus/NAME) and
# the inputs that once found a bug (test/fuzz/regress/NAME, each named after
# what it found).  `make fuzz` searches; this keeps what it found fixed.
# A target that crashes, aborts on one of its properties, reports a
# sanitizer error or runs past 120 s fails.
set -u
: "${BUILD:=build}"
fails=0
n=0
for src in test/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    bin=$BUILD/test/fuzz/$name
    short=${name#fuzz_}
    if [ ! -x "$bin" ]; then
        echo "FAIL: $name: $bin not built"
        fails=$((fails + 1))
        continue
    fi
    dirs=()
    for d in "test/fuzz/corpus/$short" "test/fuzz/regress/$short"; do
        [ -d "$d" ] && dirs+=("$d")
    done
    if [ ${#dirs[@]} -eq 0 ]; then
        echo "FAIL: $name: no seed corpus"
        fails=$((fails + 1))
        continue
    fi
    timeout -s KILL 120 "$bin" "${dirs[@]}" >/dev/null 2>"$BUILD/test/fuzz/$name.replay"
    rc=$?
    if [ "$rc" -eq 0 ] && ! grep -qE '^==[0-9]+==ERROR|runtime error:|^SUMMARY:' \
            "$BUILD/test/fuzz/$name.replay"; then
        echo "PASS: $name: $(grep -o '[0-9]* inputs' "$BUILD/test/fuzz/$name.replay") of ${dirs[*]}"
    else
        echo "FAIL: $name: exit $rc over ${dirs[*]}"
        sed -n '1,20s/^/    /p' "$BUILD/test/fuzz/$name.replay"
        fails=$((fails + 1))
    fi
    n=$((n + 1))
done
exit $((fails > 0))
