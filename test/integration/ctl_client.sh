#!/bin/bash
# ctl_client.sh — vftr-ctl's own client against endpoints that misbehave
# (issue 15, item 7) and its numeric options (item 5):
#   - an endpoint that streams data lines slowly and never ends its answer
#     (never idle for --timeout): vftr-ctl gives up when --timeout has
#     passed since the request, not never;
#   - one that streams them fast: vftr-ctl gives up at --max-answer bytes,
#     with its memory bounded (peak RSS measured);
#   - numbers that overflow or are malformed are usage errors (exit 2), not
#     clamped.
# Under SANITIZE=address LeakSanitizer checks at exit that the lines read
# before giving up were freed (the old client leaked them on this path).
#
# The endpoints are small python3 servers, independent of capture's server.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../ctl/common.sh
. "$here/../ctl/common.sh"
PY=/usr/bin/python3
require "$CTL" "$PY"

# endpoint MODE: a server named after its own pid that sends the banner,
# reads one request and then streams "* ..." lines for 60 s without a final
# line: MODE slow = one line every 50 ms, fast = as fast as the client reads.
cat >"$cap_tmp/stream.py" <<'EOF'
import os, socket, sys, time
d, mode = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("%s/vftr-%d.sock" % (d, os.getpid()))
s.listen(4)
s.settimeout(60)
end = time.time() + 60
while time.time() < end:
    try:
        c, _ = s.accept()
    except OSError:
        break
    try:
        c.sendall(b"VFTR-CTL 1 %d\n" % os.getpid())
        c.recv(4096)
        line = b"* phase=run trace=on rank=0 size=1 " + b"x" * 200 + b"\n"
        block = line * 256
        while time.time() < end:
            if mode == "slow":
                c.sendall(line)
                time.sleep(0.05)
            else:
                c.sendall(block)
    except OSError:
        pass
    c.close()
EOF

# start_endpoint MODE: starts a server, sets $ep to its pid
start_endpoint() {
    "$PY" "$cap_tmp/stream.py" "$sock" "$1" &
    ep=$!
    for _ in $(seq 100); do [ -e "$sock/vftr-$ep.sock" ] && break; sleep 0.05; done
}
stop_endpoint() { kill "$ep" 2>/dev/null; wait "$ep" 2>/dev/null; rm -f "$sock/vftr-$ep.sock"; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# --------------------------------------------------- endless slow answer
start_endpoint slow
t0=$(ms)
timeout -s KILL 30 "$CTL" --socket-dir "$sock" --timeout 1 --pid "$ep" status \
    >/dev/null 2>"$cap_tmp/slow.err"
rc=$?
t1=$(ms)
stop_endpoint
check "endless slow answer: vftr-ctl exits 1" 1 "$rc"
check "endless slow answer: says it timed out" 1 "$(grep -c "pid $ep: .*timed out" "$cap_tmp/slow.err")"
check_le "endless slow answer: gives up within 4 s of a 1 s --timeout" "$((t1 - t0))" 4000
grep -q 'LeakSanitizer' "$cap_tmp/slow.err" && fail "endless slow answer: leaks" && show "$cap_tmp/slow.err"

# --------------------------------------------------- endless fast answer
start_endpoint fast
t0=$(ms)
timeout -s KILL 30 /usr/bin/time -f 'maxrss %M' "$CTL" --socket-dir "$sock" --timeout 20 \
    --max-answer 4MiB --pid "$ep" status >/dev/null 2>"$cap_tmp/fast.err"
rc=$?
t1=$(ms)
stop_endpoint
check "endless fast answer: vftr-ctl exits 1" 1 "$rc"
check "endless fast answer: names the size bound" 1 \
      "$(grep -c "pid $ep: .*larger than 4194304 bytes (--max-answer)" "$cap_tmp/fast.err")"
check_le "endless fast answer: gives up long before --timeout" "$((t1 - t0))" 10000
rss=$(sed -n 's/^maxrss //p' "$cap_tmp/fast.err")
# 4 MiB of answer held as lines, the program itself and the allocator's
# slack (an ASan build carries its shadow memory on top)
limit=60000
[ "$CAP_SAN" = address ] && limit=400000
check_le "endless fast answer: peak memory bounded (KiB)" "${rss:-999999999}" "$limit"
grep -q 'LeakSanitizer' "$cap_tmp/fast.err" && fail "endless fast answer: leaks" && show "$cap_tmp/fast.err"

# --------------------------------------------------- numeric options
usage() {   # usage WHAT MESSAGE ARGS...: exit 2 with MESSAGE on stderr
    local what=$1 msg=$2
    shift 2
    timeout -s KILL 20 "$CTL" --socket-dir "$sock" "$@" >/dev/null 2>"$cap_tmp/u.err"
    check "$what: exit 2" 2 "$?"
    check "$what: message" 1 "$(grep -cF -- "$msg" "$cap_tmp/u.err")"
}
usage "--lines 2^64+: not clamped" "bad --lines '99999999999999999999': too large (at most 4294967295)" \
      --lines 99999999999999999999 list
usage "--pid 2^64+: not clamped" "bad --pid '99999999999999999999': too large" \
      --pid 99999999999999999999 status
usage "--timeout 2^64+: not clamped" "bad --timeout '99999999999999999999': too long (at most 86400s)" \
      --timeout 99999999999999999999 list
usage "--count 1.5" "bad --count '1.5': expected a whole number from 1 to 4294967295" \
      --count 1.5 top
usage "--interval 1ms: below the floor" "bad --interval '1ms': too short (at least 10ms)" \
      --interval 1ms top
usage "--max-answer 1GB-ish typo" "bad --max-answer '64 MIBS'" --max-answer "64 MIBS" list
timeout -s KILL 20 "$CTL" --socket-dir "$sock" --timeout 250ms --lines 0 list >/dev/null 2>&1
check "--timeout 250ms --lines 0: accepted" 0 "$?"
finish
