#!/bin/bash
# make_test_programs.sh — `make check` builds every test program a fragment
# lists, wherever in the fragment the program is added.  Each test/*/module.mk
# adds its list to TEST_PROGRAMS (`TEST_PROGRAMS += $(CAPTEST_BINS)`); while
# TEST_PROGRAMS was simply expanded, a `CAPTEST_BINS += ...` below that line
# was silently dropped and its program never built on a clean tree.  This
# reads the Makefiles of a scratch copy of the tree, with such a late
# addition and with a `:=` slipped in, and looks at what `make check` would
# build.  Nothing is compiled.
set -u
: "${BUILD:=build}"
export LC_ALL=C
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# the Makefiles and the sources their wildcards look at, not the build
tar --exclude=./build --exclude="./$BUILD" -cf - . | tar -xf - -C "$T"
# the list `check` passes to its sub-make, read after every fragment
cat >"$T/probe.mk" <<'MK'
include Makefile
print-test-programs: ; @printf '%s\n' $(TEST_PROGRAMS)
MK
# (a make of its own: not the variables of the make that runs the suite,
# SANITIZE=... among them, which would move the build directory)
programs() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE \
        make --no-print-directory -s -C "$T" -f probe.mk print-test-programs BUILD=build
}

if ! programs >"$T/before" 2>"$T/err"; then
    fail "reading the Makefiles failed: $(tail -3 "$T/err")"; exit 1
fi
grep -q '/test/capture/' "$T/before" && grep -q '/test/unit/' "$T/before" \
    && pass "TEST_PROGRAMS lists the unit suites and the capture test programs" \
    || fail "TEST_PROGRAMS lacks the unit suites or the capture test programs"

# a program added to a fragment's list after its `TEST_PROGRAMS +=` line
printf '\nCAPTEST_BINS += $(CAPTEST_DIR)/late_probe\n' >>"$T/test/capture/module.mk"
if programs >"$T/late" 2>"$T/err" && grep -qx 'build/test/capture/late_probe' "$T/late"; then
    pass "a program added to CAPTEST_BINS after 'TEST_PROGRAMS += \$(CAPTEST_BINS)' is built by make check"
else
    fail "a program added to CAPTEST_BINS after 'TEST_PROGRAMS += \$(CAPTEST_BINS)' is not built by make check $(tail -1 "$T/err")"
fi
# ... and nothing else changed
diff <(grep -vx 'build/test/capture/late_probe' "$T/late") "$T/before" >/dev/null \
    && pass "the late addition changes nothing else in the list" \
    || fail "the late addition changed other entries of TEST_PROGRAMS"

# TEST_PROGRAMS made simply expanded again: the parse fails, saying why
sed -i 's/^TEST_PROGRAMS = /TEST_PROGRAMS := /' "$T/test/module.mk"
grep -q '^TEST_PROGRAMS := ' "$T/test/module.mk" || fail "test/module.mk no longer defines 'TEST_PROGRAMS = '"
if programs >/dev/null 2>"$T/err"; then
    fail "'TEST_PROGRAMS :=' in test/module.mk is accepted"
elif grep -q 'TEST_PROGRAMS is now a simple variable' "$T/err"; then
    pass "'TEST_PROGRAMS :=' fails the build: $(grep -o 'TEST_PROGRAMS is now a simple variable[^:]*' "$T/err")"
else
    fail "'TEST_PROGRAMS :=' fails without the message: $(tail -1 "$T/err")"
fi
exit $failed
