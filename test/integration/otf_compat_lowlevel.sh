#!/bin/bash
# otf_compat_lowlevel.sh — the low-level API (OTF_MasterControl, OTF_WStream,
# OTF_WBuffer, OTF_RStream) against the reference.
#
# test/compat/otf_lowlevel writes a small trace without OTF_Writer, including
# hand-made lines the reader must accept (long keywords in a short file and
# vice versa, old keywords, unknown records, an empty line, an inline
# snapshot).  Both builds must write the same files and the same log; then
# the reference's and vftr's otf_read_all must agree on both traces, with the
# record counts worked out by hand from otf_lowlevel.c below.
# Environment: see otf_compat_common.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/otf_compat_common.sh
. "$here/otf_compat_common.sh"

compat_setup otf_compat_lowlevel otf_lowlevel otf_read_all

WRITER=otf_lowlevel make_trace low || compat_finish
if ! cmp -s "$TMP/low/ref/log" "$TMP/low/vftr/log"; then
    fail "otf_lowlevel logs differ (< reference, > vftr)"
    diff "$TMP/low/ref/log" "$TMP/low/vftr/log" | grep '^[<>]' | show
elif same_trace_files "$TMP/low/ref" "$TMP/low/vftr" >"$TMP/low.diff"; then
    pass "otf_lowlevel writes the same $(find "$TMP/low/ref" -name 't.*' | wc -l) files"
else
    fail "otf_lowlevel files differ"
    show <"$TMP/low.diff"
fi

# Stream 0: t.0.def, t.0.marker.  Counted by hand from write_stream0().
cat >"$TMP/defs.counts" <<'EOF'
count DefVersion 1
count DefCreator 1
count DefTimerResolution 1
count DefProcess 4
count DefFunction 2
count DefinitionComment 2
count UnknownRecord 1
EOF
cat >"$TMP/markers.counts" <<'EOF'
count DefMarker 1
count Marker 2
count UnknownRecord 1
EOF
# Events of stream 1 (processes 1, 16) and stream 2 (2, 3); UnknownRecord is
# XFOO, EnterSnapshot the inline TE5O3; the empty line is no record.
cat >"$TMP/events1.counts" <<'EOF'
count BeginProcess 2
count Enter 3
count UnknownRecord 1
count EventComment 1
count BeginFileOperation 2
count NoOp 1
count EnterSnapshot 1
count Leave 3
count Counter 2
count EndProcess 2
EOF
cat >"$TMP/events2.counts" <<'EOF'
count Enter 2
count SendMsg 1
count RecvMsg 2
count BeginFileOperation 1
count EndFileOperation 1
count Leave 2
EOF
cat >"$TMP/snaps.counts" <<'EOF'
count EnterSnapshot 1
count UnknownRecord 1
count SnapshotComment 1
EOF
cat >"$TMP/stats.counts" <<'EOF'
count FunctionSummary 2
count UnknownRecord 1
EOF

# sum_counts FILE... — adds count files up into one.
sum_counts() {
    cat "$@" | awk '{ n[$2] += $3 } END { for (k in n) print "count", k, n[k] }'
}
sum_counts "$TMP"/{defs,markers,events1,events2,snaps,stats}.counts >"$TMP/all.counts"
sum_counts "$TMP"/{defs,markers}.counts >"$TMP/stream0.counts"
sum_counts "$TMP"/{events1,snaps,stats}.counts >"$TMP/stream1.counts"
# Window [15, 31): all events but those at 10, 40 and 50, the snapshots at
# 25, no summary (45); definitions and markers are not windowed.
cat >"$TMP/window.counts" <<'EOF'
count Enter 2
count UnknownRecord 1
count EventComment 1
count BeginFileOperation 3
count NoOp 1
count EnterSnapshot 1
count Leave 4
count Counter 2
count SendMsg 1
count RecvMsg 2
count EndFileOperation 1
EOF
sum_counts "$TMP"/{window,defs,markers,snaps}.counts >"$TMP/window-all.counts"
# Process 16 disabled: its BeginProcess, 2 Leave, 2 Counter, EndProcess,
# SnapshotComment and one FunctionSummary go.
awk '$2 == "BeginProcess" || $2 == "EndProcess" { $3 -= 1 }
     $2 == "Leave" || $2 == "Counter" { $3 -= 2 }
     $2 == "SnapshotComment" || $2 == "FunctionSummary" { $3 -= 1 }
     $3 > 0 { print }' "$TMP/all.counts" >"$TMP/no16.counts"

cross_read low "@$TMP/all.counts"
cross_read low "@$TMP/all.counts" --limit 2
cross_read low "@$TMP/all.counts" --unsorted
cross_read low "@$TMP/window-all.counts" --window 15:31
cross_read low "@$TMP/no16.counts" --disable 16
cross_read low "@$TMP/stream0.counts" --rstream 0 --defs --markers
cross_read low "@$TMP/stream1.counts" --rstream 1 --events --snaps --stats
cross_read low "@$TMP/stream1.counts" --rstream 1 --events --snaps --stats --limit 1
cross_read low "@$TMP/events2.counts" --rstream 2 --events

compat_finish
