# bench/ctl/client.py SOCKDIR PHASES OUT [flood] — the query client of
# bench/ctl/run.sh.
#
# Started before the program (so Python's start-up is never part of the
# measured work): waits, sleeping 2 ms between looks, for the endpoint
# vftr-*.sock to appear in SOCKDIR, connects and reads the banner, and only
# then opens the FIFO PHASES, which lets ctlwork begin (see ctlwork.c).
# ctlwork writes "q" before each segment to be queried, "i" before each
# segment to be left alone, "e" at the end.  The client keeps one clock of
# 100 ms ticks, started at the first "q"; at every tick that falls into a
# q segment it asks "stacks", then "profile", so a queried segment is asked
# 10 times a second on average, and between ticks and during i segments it
# sleeps in select().  Each answer is read in whole with large recv calls,
# so the client's own CPU stays small.  OUT gets one line per answer:
# "stacks <ms> <lines> <seg>" or "profile <ms> <lines> <seg>" (request sent
# to last line read; data lines of the answer; number of the q segment,
# from 0), and "error <text>" for an ERR answer or a failure.  With "flood", it asks one query after the other, as fast as
# it can, during q segments (the amplified measurement of run.sh).
import glob
import math
import os
import select
import socket
import sys
import time

sockdir, phases, outpath = sys.argv[1:4]
PERIOD = 0.0 if sys.argv[4:5] == ["flood"] else 0.1
out = open(outpath, "w")


def fail(text):
    out.write("error %s\n" % text)
    out.close()
    sys.exit(1)


deadline = time.monotonic() + 30
path = None
while time.monotonic() < deadline:
    found = glob.glob(os.path.join(sockdir, "vftr-*.sock"))
    if found:
        path = found[0]
        break
    time.sleep(0.002)
if path is None:
    fail("no endpoint in %s" % sockdir)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
for _ in range(1000):
    try:
        s.connect(path)
        break
    except OSError:
        time.sleep(0.002)
else:
    fail("cannot connect to %s" % path)

pending = b""


def answer():
    """Reads one answer, up to its final line (OK/ERR/BYE); (body, last)."""
    global pending
    data = pending
    while True:
        start = 0 if data.startswith((b"OK", b"ERR", b"BYE")) else -1
        if start < 0:
            for tag in (b"\nOK", b"\nERR", b"\nBYE"):
                i = data.find(tag)
                if i >= 0:
                    start = i + 1
                    break
        if start >= 0:
            j = data.find(b"\n", start)
            if j >= 0:
                pending = data[j + 1:]
                return data[:start], data[start:j]
        chunk = s.recv(1 << 16)
        if not chunk:
            raise EOFError
        data += chunk


def ask(q):
    t0 = time.monotonic()
    s.sendall(q + b"\n")
    body, last = answer()
    ms = (time.monotonic() - t0) * 1e3
    if last.startswith(b"BYE"):
        raise EOFError
    if not last.startswith(b"OK"):
        out.write("error %s: %s\n" % (q.decode(), last.decode(errors="replace")))
    else:
        out.write("%s %.4f %d %d\n" % (q.decode(), ms, body.count(b"\n"), qseg))


try:
    while b"\n" not in pending:   # the banner
        chunk = s.recv(4096)
        if not chunk:
            raise EOFError
        pending += chunk
    pending = pending[pending.find(b"\n") + 1:]
    fd = os.open(phases, os.O_RDONLY | os.O_NONBLOCK)
    state, t0, nxt, done, qseg = "i", None, 0.0, False, -1
    while not done:
        now = time.monotonic()
        if state == "q" and now >= nxt:
            ask(b"stacks")
            ask(b"profile")
            nxt += PERIOD
            now = time.monotonic()
        r, _, _ = select.select([fd], [], [], max(0.0, nxt - now) if state == "q" else None)
        if not r:
            continue
        data = os.read(fd, 256)
        if not data:
            break   # ctlwork closed the FIFO
        for c in data.decode(errors="replace").split():
            if c == "q":
                qseg += 1
                if state != "q":
                    now = time.monotonic()
                    if t0 is None:
                        t0 = now
                    nxt = t0 + math.ceil((now - t0) / PERIOD - 1e-9) * PERIOD if PERIOD else now
                state = "q"
            elif c == "i":
                state = "i"
            elif c == "e":
                done = True
except (EOFError, BrokenPipeError, ConnectionResetError):
    pass   # the program ended (it may end while a query is on its way)
except OSError as e:
    out.write("error %s\n" % e)
out.close()
