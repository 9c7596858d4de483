# check_traces.sh — sourced by the test helpers (test/capture/common.sh,
# test/mpi/common.sh, ...): check_traces ROOT DUMP checks every run
# directory under ROOT that holds a trace with DUMP --check (vftr-dump;
# lib/model/check.h: every Enter with its Leave in order, time order,
# messages, collectives, no .vfd record that needed repair), so that the
# invariants every figure relies on hold for every trace a test makes.  A
# directory whose files are not one run (a test of mixed runs, pid clashes
# or damaged files: vftr-dump refuses it, exit 2, or cannot read it) is not
# one trace and is left alone; so is a directory holding a file .nocheck,
# whose test made a partial trace on purpose (the file says why).  Uses the
# caller's pass and fail.
check_traces() {
    local d out rc n=0 bad=0
    [ -x "$2" ] || return 0
    while read -r d; do
        [ -e "$d/.nocheck" ] && continue
        out=$("$2" --check "$d" 2>&1); rc=$?
        case $rc in
            0) n=$((n + 1)) ;;
            1) if grep -q 'violations\? in ' <<<"$out"; then
                   bad=$((bad + 1))
                   fail "vftr-dump --check $d: $(grep -v 'violations\? in ' <<<"$out" | head -3 | tr '\n' ' ')"
               fi ;;
        esac
    done < <(find "$1" \( -name '*.vfd' -o -name '*.tmpvfd' \) -print 2>/dev/null | xargs -r -n1 dirname | sort -u)
    if [ "$bad" = 0 ] && [ "$n" -gt 0 ]; then
        pass "every trace of this script ($n runs) passes vftr-dump --check"
    fi
    return 0
}
