#!/bin/bash
# otf_compat_read.sh — vftr's OTF reader must deliver what the reference
# delivers, on the reference's traces and on vftr's own.
#
# Traces are written by test/compat/otf_write_all (reference build and vftr
# build, same options) and read by test/compat/otf_read_all (both builds).
# For every read configuration the baseline is the reference reader on the
# reference's trace; it must show the record counts computed from the
# writer's layout (expect_counts, never zero), and these dumps must equal it:
#   vftr reader on the reference's trace   (byte for byte)
#   reference reader on vftr's trace       (unique id masked)
#   vftr reader on vftr's trace            (unique id masked)
# Environment: see otf_compat_common.sh.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/otf_compat_common.sh
. "$here/otf_compat_common.sh"

compat_setup otf_compat_read otf_write_all otf_read_all

# --- traces with the time-error stream (full reads, filters, limits) ----------
# "short": 3 processes per stream; "long": long format, 2 per stream.
make_trace short -f short -n 6 -s 2
make_trace long -f long -n 4 -s 3
# The time-error stream (process 64) is stream 3 of "short", stream 4 of "long".
cross_read short "n=6 s=2"
cross_read short "n=6 s=2" --limit 1
cross_read short "n=6 s=2" --limit 7
cross_read short "n=6 s=2" --limit 1000
cross_read short "n=6 s=2" --unsorted
cross_read short "n=6 s=2 disable=1,5" --disable 1,5
cross_read short "n=6 s=2 disable=1,3,5" --disable 1,3,5
cross_read short "n=6 s=2 disable=64" --disable 64
cross_read short "n=6 s=2 disable=2,64 window=4096:5120" --disable 2,64 --window 4096:5120
cross_read short "n=6 s=2 parts=defs,markers rstream=0" --rstream 0 --defs --markers
cross_read short "n=6 s=2 rstream=1" --rstream 1
cross_read short "n=6 s=2 rstream=1" --rstream 1 --limit 5
cross_read short "n=6 s=2 parts=events,snaps,stats rstream=2" --rstream 2 --events --snaps --stats
cross_read short "n=6 s=2 parts=events rstream=3" --rstream 3 --events
cross_read long "n=4 s=3"
cross_read long "n=4 s=3" --limit 3
cross_read long "n=4 s=3 disable=2" --disable 2 --unsorted
cross_read long "n=4 s=3 parts=events,snaps,stats rstream=3" --rstream 3 --events --snaps --stats
cross_read long "n=4 s=3 parts=events rstream=4" --rstream 4 --events

# --- traces without it (time windows) ------------------------------------------
# The reference cannot apply a window to a stream killed by a time error (see
# otf_write_all -x), so windows use these traces.  "win": 2 streams of 3
# processes, large enough for the binary search; "win1": all processes in one
# stream, long format; "win6": one process per stream.
N=300
make_trace win -x -f short -n $N -s 2
make_trace win1 -x -f long -n 40 -s 1
make_trace win6 -x -f short -n 40 -s 6
end=$((T0 + N * ROUND + 2))            # last time stamp of "win"
tail=$((end - (end + 999) / 1000))     # the last 0.1 % of the time span
windows=(
    "0:$((T0 + ROUND))"                          # prologue and round 0
    "$((T0 + ROUND)):$((T0 + 2 * ROUND))"        # exactly round 1
    "$((T0 + 100 * ROUND)):$((T0 + 200 * ROUND))"
    "$((T0 + 150 * ROUND + 5 * SLOT + 1)):$((T0 + 150 * ROUND + 9 * SLOT + 2))"  # mid-round, mid-slot
    "$tail:$((end + 1))"                         # the last 0.1 %
    "$end:$((end + 1))"                          # the very last time stamp only
    "$((T0 + 77 * ROUND + 17 * SLOT)):$((T0 + 78 * ROUND))"  # a gap: no event
    "$((T0 + 50 * ROUND)):$((T0 + 50 * ROUND))"  # empty interval
    "$((end + 1)):$((end + 1000))"               # after the end
)
for w in "${windows[@]}"; do
    cross_read win "n=$N s=2 victim=0 window=$w" --window "$w"
done
cross_read win "n=$N s=2 victim=0 window=${windows[2]}" --window "${windows[2]}" --limit 97
cross_read win "n=$N s=2 victim=0 window=${windows[2]} disable=2,3" --window "${windows[2]}" --disable 2,3
cross_read win "n=$N s=2 victim=0 window=${windows[3]}" --window "${windows[3]}" --unsorted
cross_read win "n=$N s=2 victim=0 window=$tail:$((end + 1)) parts=events" --events --window "$tail:$((end + 1))"

end1=$((T0 + 40 * ROUND + 2))
cross_read win1 "n=40 s=1 victim=0"
cross_read win1 "n=40 s=1 victim=0 window=$((T0 + 7 * ROUND + 3)):$((T0 + 9 * ROUND))" --window "$((T0 + 7 * ROUND + 3)):$((T0 + 9 * ROUND))"
cross_read win1 "n=40 s=1 victim=0 window=$((end1 - 40)):$((end1 + 1)) disable=4" --window "$((end1 - 40)):$((end1 + 1))" --disable 4
cross_read win6 "n=40 s=6 victim=0 window=$((T0 + 20 * ROUND)):$((T0 + 21 * ROUND + 3))" --window "$((T0 + 20 * ROUND)):$((T0 + 21 * ROUND + 3))"
cross_read win6 "n=40 s=6 victim=0 window=$((T0 + 20 * ROUND)):$((T0 + 30 * ROUND)) disable=1,2,3,4,5" --window "$((T0 + 20 * ROUND)):$((T0 + 30 * ROUND))" --disable 1,2,3,4,5 --limit 11

compat_finish
