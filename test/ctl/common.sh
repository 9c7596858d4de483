#!/bin/bash
# common.sh — helpers of test/integration/ctl_*.sh (kept here so that the
# test runner does not take it for a test): everything of
# test/capture/common.sh (vrun, vfdc, check, ...), plus
#   CTLDIR, CTL      the test programs and vftr-ctl
#   sock             a fresh endpoint directory (mode 0700), exported as
#                    VFTR_CONTROL_SOCKET_DIR for the programs run here
#   ctl ARGS...      vftr-ctl on that directory (10 s answer timeout)
#   wait_file PATH   waits (at most 30 s) until PATH exists
ctl_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../capture/common.sh
. "$ctl_here/../capture/common.sh"
CTLDIR=$cap_build/test/ctl
CTL=$cap_build/bin/vftr-ctl

sock=$cap_tmp/sock
mkdir -m 700 "$sock"
export VFTR_CONTROL_SOCKET_DIR=$sock
ctl() { timeout -s KILL 60 "$CTL" --socket-dir "$sock" --timeout 10 "$@"; }
wait_file() {
    local i
    for i in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done
    return 1
}
