#!/bin/bash
# capture_config.sh — integration test of vftr-config (the capture
# configuration tool): the default configuration parses back, misspelt keys
# get the advisor's suggestion, bad files exit 1 with file and line, usage
# errors exit 2, and the reference pages in share/ equal what the key table
# generates (so that they never drift from it).
#
# Expected texts are written by hand from the documented behaviour
# (share/man/man1/vftr-config.1) and the hand-written files in
# test/data/config/.  Runs under every build (plain and sanitizers).
set -u
: "${BUILD:=build}"

TOOL="$BUILD/bin/vftr-config"
case $TOOL in /*) ;; *) TOOL="$PWD/$TOOL" ;; esac
DATA=test/data/config
failed=0

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

# check WHAT EXPECTED ACTUAL
check() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}

if [ ! -x "$TOOL" ]; then
    fail "$TOOL is not built"
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/capture_config.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ------------------------------------------------------------- --default
"$TOOL" --default >"$tmp/default.json"; rc=$?
check "--default exits 0" 0 "$rc"
if cmp -s "$tmp/default.json" "$DATA/defaults.json"; then
    pass "--default prints the hand-written defaults"
else
    fail "--default differs from $DATA/defaults.json: $(diff "$DATA/defaults.json" "$tmp/default.json" | head -5)"
fi
out=$("$TOOL" --check "$tmp/default.json" 2>"$tmp/err"); rc=$?
check "--default output passes --check" 0 "$rc"
check "--check of the defaults says valid" "$tmp/default.json: valid" "$out"
check "--check of the defaults prints no message" "" "$(cat "$tmp/err")"

# The environment does not change --default, and --check ignores it.
# (four keys are "active": true by default: trace.active, throttle.active,
# control.active and io.active)
out=$(VFTR_SAMPLING_ACTIVE=0 "$TOOL" --default | grep -c '"active": true')
check "--default ignores VFTR_ variables" 4 "$out"
out=$(cd "$tmp" && VFTR_OUTPUT_DIRECTORY=/nonexistent "$TOOL" --check default.json 2>&1); rc=$?
check "--check ignores VFTR_ variables" "0 default.json: valid" "$rc $out"

# ------------------------------------------------------------ --effective
out=$(VFTR_SAMPLING_ACTIVE=no VFTR_TRACE_MAX_SIZE=2048KiB "$TOOL" --effective 2>&1)
check "--effective applies VFTR_SAMPLING_ACTIVE" 1 "$(grep -c '"active": false' <<<"$out")"
check "--effective applies VFTR_TRACE_MAX_SIZE" 1 "$(grep -c '"max_size": "2 MiB"' <<<"$out")"
# the trace keys by vftr's names (Vftrace's above): printed in "trace"
out=$(VFTR_TRACE_ACTIVE=no VFTR_TRACE_MAX_JOB_SIZE=8G "$TOOL" --effective 2>&1)
check "--effective applies VFTR_TRACE_ACTIVE, printed as trace.active" "false" \
    "$(awk '/^  "trace": \{/ { t = 1 } t && /"active":/ { gsub(/[ ,]/, ""); sub(/.*:/, ""); print; exit }' <<<"$out")"
check "--effective applies VFTR_TRACE_MAX_JOB_SIZE" 1 "$(grep -c '"max_job_size": "8 GiB"' <<<"$out")"
out=$(VFTR_CONFIG="$DATA/vftrace.json" "$TOOL" --effective 2>&1)
check "--effective reads VFTR_CONFIG" 1 "$(grep -c '"sample_interval": 0.005' <<<"$out")"

# ------------------------------------------------------ advisor (warnings)
printf '{\n  "sampling": {\n    "actve": false\n  },\n  "logfile_for_rank": "all"\n}\n' \
    >"$tmp/typo.json"
out=$("$TOOL" --check "$tmp/typo.json" 2>"$tmp/err"); rc=$?
check "misspelt keys are warnings: exit 0" 0 "$rc"
check "misspelt keys: summary" "$tmp/typo.json: valid, 2 warnings" "$out"
check "misspelt key in a section: suggestion with line and column" \
    "vftr-config: warning: $tmp/typo.json: line 3, column 5: sampling: \"actve\" is not a valid option, did you mean \"active\"?" \
    "$(sed -n 1p "$tmp/err")"
check "misspelt top-level key: suggestion" \
    "vftr-config: warning: $tmp/typo.json: line 5, column 3: \"logfile_for_rank\" is not a valid option, did you mean \"logfile_for_ranks\"?" \
    "$(sed -n 2p "$tmp/err")"
out=$("$TOOL" --check --strict "$tmp/typo.json" 2>/dev/null); rc=$?
check "--strict: warnings make the file invalid" "1 $tmp/typo.json: invalid (0 errors, 2 warnings)" "$rc $out"

# ------------------------------------- Vftrace sections vftr does not have
printf '{\n  "papi": { "show_tables": true },\n  "hwprof": {}\n}\n' >"$tmp/papi.json"
out=$("$TOOL" --check "$tmp/papi.json" 2>"$tmp/err"); rc=$?
check "a Vftrace section vftr lacks is a warning: exit 0" "0 $tmp/papi.json: valid, 2 warnings" \
    "$rc $out"
check "a Vftrace section vftr lacks: \"not supported by vftr\", not a misspelling" \
    "vftr-config: warning: $tmp/papi.json: line 2, column 3: \"papi\": hardware counter profiling (PAPI) is not supported by vftr; the section is ignored" \
    "$(sed -n 1p "$tmp/err")"
check "no \"did you mean\" for a Vftrace section" 0 "$(grep -c 'did you mean' "$tmp/err")"

# ------------------------------------------------------------- bad files
printf '{\n  "off": false,\n  "sampling": { "active": tru }\n}\n' >"$tmp/syntax.json"
out=$("$TOOL" --check "$tmp/syntax.json" 2>"$tmp/err"); rc=$?
check "syntax error: exit 1" 1 "$rc"
check "syntax error: file, line and column" \
    "vftr-config: error: $tmp/syntax.json: line 3, column 27: not valid JSON near 'tru }'; capture switched off" \
    "$(cat "$tmp/err")"     # 't' of "tru" is the 27th byte of line 3
check "syntax error: summary" "$tmp/syntax.json: invalid (1 error, 0 warnings)" "$out"

"$TOOL" --check "$DATA/bad_values.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "bad values: exit 1" 1 "$rc"
check "bad values: every one reported" 16 "$(grep -c "^vftr-config: error: $DATA/bad_values.json: line [0-9]*, column [0-9]*: " "$tmp/err")"
check "bad values: negative interval with its line" 1 \
    "$(grep -c 'line 12, column 5: sampling.sample_interval: expected a number from 0 to 1e+09, got -0.5; using 0$' "$tmp/err")"

"$TOOL" --check "$tmp/missing.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "missing file: exit 1" 1 "$rc"
check "missing file: message" \
    "vftr-config: error: $tmp/missing.json: cannot read the configuration file (No such file or directory); capture switched off" \
    "$(cat "$tmp/err")"

# Several files: the status is 1 if any is invalid, each gets its line.
out=$("$TOOL" --check "$DATA/vftrace.json" "$tmp/syntax.json" 2>/dev/null); rc=$?
check "two files, one invalid: exit 1" 1 "$rc"
check "two files: one summary line each" 2 "$(wc -l <<<"$out")"

# A Vftrace file is valid as it is.
out=$("$TOOL" --check "$DATA/vftrace.json" 2>&1); rc=$?
check "Vftrace file is valid without messages" "0 $DATA/vftrace.json: valid" "$rc $out"
out=$("$TOOL" --check share/examples/vftr-config.json 2>&1); rc=$?
check "shipped example is valid" "0 share/examples/vftr-config.json: valid" "$rc $out"

# ----------------------------------------------------------------- usage
"$TOOL" >/dev/null 2>&1; check "no mode: exit 2" 2 $?
"$TOOL" --default --check x >/dev/null 2>&1; check "two modes: exit 2" 2 $?
"$TOOL" --check >/dev/null 2>&1; check "--check without FILE: exit 2" 2 $?
"$TOOL" --default extra >/dev/null 2>&1; check "extra operand: exit 2" 2 $?
"$TOOL" --strict --default >/dev/null 2>&1; check "--strict without --check: exit 2" 2 $?
"$TOOL" --bogus >/dev/null 2>&1; check "unknown option: exit 2" 2 $?
out=$("$TOOL" --version); check "--version" "vftr-config (vftr) 0.1.0" "$out"
"$TOOL" --help | grep -q -- '--check'; check "--help lists --check" 0 $?

# ------------------------------------------- reference pages match the table
if "$TOOL" --reference | cmp -s - share/doc/configuration.md; then
    pass "share/doc/configuration.md equals vftr-config --reference"
else
    fail "share/doc/configuration.md is stale: run '$TOOL --reference > share/doc/configuration.md'"
fi
if "$TOOL" --man | cmp -s - share/man/man5/vftr-config.5; then
    pass "share/man/man5/vftr-config.5 equals vftr-config --man"
else
    fail "share/man/man5/vftr-config.5 is stale: run '$TOOL --man > share/man/man5/vftr-config.5'"
fi
# Every key of the table is in the reference: count the keys of --default.
nkeys=$("$TOOL" --default | grep -c '": [^{]')
check "the reference documents every key" "$nkeys" "$(grep -c '^### `' share/doc/configuration.md)"

exit $failed
