#!/usr/bin/python3
"""o2print.py — turns otf2-print's event listing (stdin; libotf2's own
printer, nothing of vftr) into vftr-dump's OTF lines as otf2map.h maps
OTF2 (location and region ids + 1, a Comm id + 1, a rank in
MPI_COMM_WORLD -> that rank's first location, given as RANK=LOCATION
arguments; "source=0" throughout).  MPI_COLLECTIVE_BEGIN lines get the
details of their end (the location's next MPI_COLLECTIVE_END), as vftr's
model gives them at the begin; the matching id counts the location's ends.
Records the model does not keep are printed as "# KIND" lines.
A collective's root is the location otf2-print names for it (its own
resolution, inter-communicators included), the location itself for SELF,
none (0) for NONE and THIS_GROUP (a member of the root's group of an
inter-communicator that is not the root); a root printed without a
location is a rank in MPI_COMM_WORLD.  Collective operations outside MPI's
own list (OTF2's one-sided handle operations) are given as 100 + their
OTF2 code, the code taken from python3-otf2.
"""
import re
import sys

OPS = {"BARRIER": 1, "BCAST": 2, "REDUCE": 3, "ALLREDUCE": 4, "GATHER": 5, "GATHERV": 6,
       "SCATTER": 7, "SCATTERV": 8, "ALLGATHER": 9, "ALLGATHERV": 10, "ALLTOALL": 11,
       "ALLTOALLV": 12, "ALLTOALLW": 13, "REDUCE_SCATTER": 14, "REDUCE_SCATTER_BLOCK": 15,
       "SCAN": 16, "EXSCAN": 17}
ranks = {int(a.split("=")[0]): int(a.split("=")[1]) for a in sys.argv[1:]}


def collop(name):
    if name in OPS:
        return OPS[name]
    import otf2
    return 100 + getattr(otf2.CollectiveOp, name).value


def root_of(rest, p):
    m = re.search(r"Root: (\w+)(?: \(\"[^\"]*\" <(\d+)>\))?", rest)
    if m.group(1) in ("NONE", "THIS_GROUP"):
        return 0
    if m.group(1) == "SELF":
        return p
    return int(m.group(2)) + 1 if m.group(2) else ranks[int(m.group(1))]


out, pending, ends = [], {}, {}
for line in sys.stdin:
    f = line.split()
    if len(f) < 3 or not f[1].isdigit() or not f[2].isdigit():
        continue
    kind, p, t = f[0], int(f[1]) + 1, int(f[2])
    rest = line.split(None, 3)[3] if len(f) > 3 else ""
    if kind in ("ENTER", "LEAVE"):
        r = int(re.search(r"<(\d+)>\s*$", rest).group(1)) + 1
        out.append("%d %d %s function=%d source=0" % (t, p, "Enter" if kind == "ENTER"
                                                      else "Leave", r))
    elif kind in ("MPI_SEND", "MPI_RECV"):
        peer = int(re.search(r"(?:Receiver|Sender): (\d+)", rest).group(1))
        comm = int(re.search(r"Communicator: \"[^\"]*\" <(\d+)>", rest).group(1)) + 1
        tag = int(re.search(r"Tag: (\d+)", rest).group(1))
        length = int(re.search(r"Length: (\d+)", rest).group(1))
        if kind == "MPI_SEND":
            out.append("%d %d SendMsg receiver=%d group=%d type=%d length=%d source=0" % (
                t, p, ranks[peer], comm, tag, length))
        else:
            out.append("%d %d RecvMsg sendProc=%d group=%d type=%d length=%d source=0" % (
                t, p, ranks[peer], comm, tag, length))
    elif kind == "MPI_COLLECTIVE_BEGIN":
        out.append(None)
        pending.setdefault(p, []).append((len(out) - 1, t))
    elif kind == "MPI_COLLECTIVE_END":
        i, tb = pending[p].pop()
        ends[p] = ends.get(p, 0) + 1
        op = collop(re.search(r"Operation: (\w+)", rest).group(1))
        comm = int(re.search(r"Communicator: \"[^\"]*\" <(\d+)>", rest).group(1)) + 1
        root = root_of(rest, p)
        sent = int(re.search(r"Sent: (\d+)", rest).group(1))
        recvd = int(re.search(r"Received: (\d+)", rest).group(1))
        out[i] = ("%d %d BeginCollectiveOperation collOp=%d matchingId=%d procGroup=%d "
                  "rootProc=%d sent=%d received=%d scltoken=0" % (tb, p, op, ends[p], comm,
                                                                   root, sent, recvd))
        out.append("%d %d EndCollectiveOperation matchingId=%d" % (t, p, ends[p]))
    elif kind == "METRIC":
        m = re.search(r"\"[^\"]*\" <(\d+)>; \w+; (\d+)\)", rest)
        out.append("%d %d Counter counter=%d value=%s" % (t, p, int(m.group(1)) + 1, m.group(2)))
    else:
        out.append("# %s" % kind)
for line in out:
    print(line)
