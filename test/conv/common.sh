#!/bin/bash
# common.sh — the preamble of test/integration/vfd2otf_*.sh and
# vftr_dump_vfd.sh (here, so the runner does not take it for a test):
# B the build directory, T a scratch directory removed at exit, pass/bad
# print PASS:/FAIL: lines, and the script ends with `exit $fail`.
set -u
B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
pass() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
