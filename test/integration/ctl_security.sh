#!/bin/bash
# ctl_security.sh — the control endpoint against other users and bad input
# (issue 8): a client running as `nobody` (setpriv) is refused, both by the
# directory checks of vftr-ctl and by the server's SO_PEERCRED check when
# the directory is opened up on purpose; malformed, unknown, oversized and
# binary requests get ERR and the server keeps answering; a client that
# never reads its replies does not block or slow the program; a stale
# socket of a dead process is cleaned up; a bad socket directory (a
# symlink, another mode) is refused with a message and the program runs
# on; vftr-ctl times out with a message on an endpoint that never answers.
#
# The raw clients are small python3 scripts (/usr/bin/python3, so that
# `nobody` can run them), independent of vftr-ctl's own client code.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../ctl/common.sh
. "$here/../ctl/common.sh"
PY=/usr/bin/python3
require "$CTLDIR/ctl_prog" "$CTL" "$PY"


# raw SOCKET: sends stdin's lines as they are (bytes), prints every line
# received until the server has answered each (OK/ERR count) or 10 s pass.
cat >"$cap_tmp/raw.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect-error", e.errno); sys.exit(0)
data = sys.stdin.buffer.read()
want = data.count(b"\n") + 1   # the banner, then one final line per request
try:
    s.sendall(data)
except OSError:
    pass
buf = b""
deadline = time.time() + 10
while buf.count(b"\n") < want and time.time() < deadline:
    try:
        chunk = s.recv(65536)
    except OSError:
        break
    if not chunk:
        break
    buf += chunk
for line in buf.split(b"\n"):
    if line and not line.startswith(b"* "):
        print(line.decode("utf-8", "replace"))
EOF

w=$cap_tmp/run
mkdir -p "$w"
vrun "$w" "$CTLDIR/ctl_prog" "$w" 2 1000 &
bg=$!
wait_file "$w/ready.1" || { fail "the program never reached step 1"; show "$w/.stderr"; finish; }
pid=$(ls "$sock" | sed -n 's/^vftr-\([0-9]*\)\.sock$/\1/p' | head -1)
ep=$sock/vftr-$pid.sock

# --------------------------------------------------------- other users
# nobody may pass through the scratch directory (as through /run/user or
# /tmp), so that it meets the socket directory's own checks
chmod 0711 "$cap_tmp"
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$CTL" --socket-dir "$sock" status 2>&1)
rc=$?
check "nobody: vftr-ctl refuses the directory (exit 1)" 1 "$rc"
case $out in *"owned by uid 0, not by this user (refused)"*) pass "nobody: says why ($out)" ;;
    *) fail "nobody: message: $out" ;; esac
# open the directory and the socket on purpose: the server's own check
chmod 0711 "$sock"; chmod 0666 "$ep"
out=$(printf 'status\n' | setpriv --reuid=nobody --regid=nogroup --clear-groups "$PY" -c "$(cat "$cap_tmp/raw.py")" "$ep")
chmod 0700 "$sock" "$cap_tmp"; chmod 0600 "$ep"
check "nobody: the server refuses the peer (SO_PEERCRED)" \
      "ERR permission denied: not the owner of this process" "$(echo "$out" | head -1)"
check "nobody: nothing else answered" 1 "$(echo "$out" | grep -c .)"

# --------------------------------------------------------- bad input
printf '\nbogus\npause now\noutdir\nstat\001us\n%s\n\377\376\nversion\nstatus\n' \
       "$(head -c 5000 /dev/zero | tr '\0' x)" | "$PY" "$cap_tmp/raw.py" "$ep" >"$w/bad.txt"
check "bad input: banner" "VFTR-CTL 1 $pid" "$(sed -n 1p "$w/bad.txt")"
check "bad input: empty line" "ERR malformed request: expected a command" "$(sed -n 2p "$w/bad.txt")"
check "bad input: unknown command" 'ERR unknown command "bogus"' "$(sed -n 3p "$w/bad.txt")"
check "bad input: unexpected argument" "ERR pause takes no argument" "$(sed -n 4p "$w/bad.txt")"
check "bad input: missing argument" "ERR outdir needs an argument (DIR)" "$(sed -n 5p "$w/bad.txt")"
check "bad input: control character" "ERR malformed request: control character 0x01 at byte 4" \
      "$(sed -n 6p "$w/bad.txt")"
check "bad input: oversized line" "ERR line too long (at most 1023 bytes)" "$(sed -n 7p "$w/bad.txt")"
check "bad input: binary bytes" 1 "$(sed -n 8p "$w/bad.txt" | grep -c '^ERR unknown command')"
check "bad input: still answers after all that" "OK 1" "$(sed -n 9p "$w/bad.txt")"
check "bad input: status still OK" "OK" "$(sed -n 10p "$w/bad.txt")"
# 1 MiB without a newline, then a good request
{ head -c 1048576 /dev/zero | tr '\0' y; printf '\nversion\n'; } | "$PY" "$cap_tmp/raw.py" "$ep" >"$w/big.txt"
check "1 MiB line: one ERR, then the next request answered" "ERR line too long (at most 1023 bytes)|OK 1" \
      "$(sed -n '2p;3p' "$w/big.txt" | paste -sd'|')"

# 17 connections at once: the 17th is told the server is busy
"$PY" - "$ep" >"$w/many.txt" <<'EOF'
import socket, sys, time
conns = []
for i in range(17):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    for attempt in range(100):   # a full backlog says EAGAIN at once
        try:
            s.connect(sys.argv[1])
            break
        except BlockingIOError:
            time.sleep(0.02)
    conns.append(s)
print(conns[-1].recv(100).decode().strip())
EOF
check "17 clients: the last is told busy" "ERR busy: too many connections" "$(cat "$w/many.txt")"
# a client that asks for profiles and never reads: the program goes on
"$PY" - "$ep" "$w/hog.ready" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.setblocking(False)
try:
    for i in range(20000):
        s.send(b"profile\n")
except OSError:
    pass
open(sys.argv[2], "w").close()
time.sleep(20)
EOF
hog=$!
wait_file "$w/hog.ready" || fail "the hogging client never got going"
t0=$(date +%s%N)
st=$(ctl status)
t1=$(date +%s%N)
case $st in *phase=running*) pass "a hogging client does not stop others" ;; *) fail "status while hogged: $st" ;; esac
check_le "status answered within 2 s while hogged" "$(( (t1 - t0) / 1000000 ))" 2000
# a client connected when the program ends gets the shutdown notice
"$PY" - "$ep" "$w/bye.txt" "$w/bye.ready" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(60)
s.connect(sys.argv[1])
f = s.makefile("rb")
f.readline()
open(sys.argv[3], "w").close()
with open(sys.argv[2], "w") as out:
    for line in f:
        out.write(line.decode())
EOF
byer=$!
wait_file "$w/bye.ready" || fail "the listening client never connected"
touch "$w/go.1" "$w/go.2"
wait "$bg"
check "the program finished with a hogging client connected" 0 "$(cat "$w/.rc")"
wait "$byer"
check "a connected client gets the shutdown notice" "BYE exit" "$(cat "$w/bye.txt")"
check "the endpoint is gone after the end" 0 "$(ls "$sock" | grep -c "vftr-$pid.sock")"
check "the program's counts are right" "1000 1000" "$(pcount "$w" alpha) $(pcount "$w" gamma)"
kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null

# --------------------------------------------------------- stale endpoints
# a socket named after a pid that does not exist: removed by the next
# capture at startup and by vftr-ctl list
"$PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$sock/vftr-999999.sock"
ctl list >/dev/null
check "stale socket: vftr-ctl list removes it" 0 "$(ls "$sock" | grep -c 999999)"
"$PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$sock/vftr-999999.sock"
w2=$cap_tmp/run2
vrun "$w2" "$CTLDIR/ctl_prog" "$w2" 1 10 &
bg=$!
wait_file "$w2/ready.1"
check "stale socket: a new capture removes it" 0 "$(ls "$sock" | grep -c 999999)"
touch "$w2/go.1"; wait "$bg"

# --------------------------------------------------------- bad directories
w3=$cap_tmp/run3
ln -s "$sock" "$cap_tmp/link"
VFTR_CONTROL_SOCKET_DIR=$cap_tmp/link vrun "$w3" "$CTLDIR/ctl_prog" "$w3" 1 10 &
bg=$!
wait_file "$w3/ready.1"; touch "$w3/go.1"; wait "$bg"
check "symlinked socket dir: the program runs on" "0 10" "$(cat "$w3/.rc") $(pcount "$w3" alpha)"
check "symlinked socket dir: one message" 1 "$(grep -c 'symbolic link' "$w3/.stderr")"
w4=$cap_tmp/run4
mkdir -m 755 "$cap_tmp/open"
VFTR_CONTROL_SOCKET_DIR=$cap_tmp/open vrun "$w4" "$CTLDIR/ctl_prog" "$w4" 1 10 &
bg=$!
wait_file "$w4/ready.1"; touch "$w4/go.1"; wait "$bg"
check "socket dir of mode 0755: refused with one message" "0 1" \
      "$(cat "$w4/.rc") $(grep -c 'lets others in' "$w4/.stderr")"
check "socket dir of mode 0755: no socket made" 0 "$(ls "$cap_tmp/open" | wc -l)"

# --------------------------------------------------------- timeouts
# an endpoint that accepts and never answers (named after a live pid)
"$PY" - "$sock" <<'EOF' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("%s/vftr-%d.sock" % (sys.argv[1], os.getpid()))
s.listen(4)
c = []
end = time.time() + 15
while time.time() < end:
    s.settimeout(1)
    try:
        c.append(s.accept()[0])
    except OSError:
        pass
EOF
mute=$!
for i in $(seq 100); do [ -e "$sock/vftr-$mute.sock" ] && break; sleep 0.05; done
t0=$(date +%s%N)
"$CTL" --socket-dir "$sock" --timeout 0.5 --pid "$mute" status >/dev/null 2>"$cap_tmp/to.err"
rc=$?
t1=$(date +%s%N)
check "silent endpoint: vftr-ctl exits 1" 1 "$rc"
check "silent endpoint: says it timed out" 1 "$(grep -c "pid $mute: .*timed out" "$cap_tmp/to.err")"
check_le "silent endpoint: within 3 s" "$(( (t1 - t0) / 1000000 ))" 3000
kill "$mute" 2>/dev/null; wait "$mute" 2>/dev/null
finish
