#!/usr/bin/python3
"""o2read.py ANCHOR — reads an OTF2 archive with OTF2's own Python module
(python3-otf2, libotf2 underneath, nothing of vftr) and prints its events in
vftr-dump's OTF lines, as vftr's model maps them (lib/model/otf2map.h:
location and region ids + 1 are the process and function tokens, a Comm id
+ 1 the communicator, a rank in a communicator the rank's first location,
the "vftr:peer" attribute a thread peer, "vftr:match" the matching id).
Enter/Leave give "source=0": the test compares against a vftr-dump whose
source fields it blanks the same way.  So a trace vftr wrote, read back by
an independent reader, can be compared with vftr-dump of what it came from.
"""
import sys

import otf2
from otf2.enums import CollectiveOp

NAMES = {  # OTF2 operation -> vftr's collective token (otf2map.c's table)
    CollectiveOp.BARRIER: 1, CollectiveOp.BCAST: 2, CollectiveOp.REDUCE: 3,
    CollectiveOp.ALLREDUCE: 4, CollectiveOp.GATHER: 5, CollectiveOp.GATHERV: 6,
    CollectiveOp.SCATTER: 7, CollectiveOp.SCATTERV: 8, CollectiveOp.ALLGATHER: 9,
    CollectiveOp.ALLGATHERV: 10, CollectiveOp.ALLTOALL: 11, CollectiveOp.ALLTOALLV: 12,
    CollectiveOp.ALLTOALLW: 13, CollectiveOp.REDUCE_SCATTER: 14,
    CollectiveOp.REDUCE_SCATTER_BLOCK: 15, CollectiveOp.SCAN: 16, CollectiveOp.EXSCAN: 17,
}


def attr(event, name):
    for a, v in (event.attributes or {}).items():
        if a.name == name:
            return v
    return None


def main():
    lines = []
    with otf2.reader.open(sys.argv[1]) as trace:
        def token(loc):
            return loc._ref + 1

        def peer(event, rank):
            v = attr(event, "vftr:peer")
            if v is not None:
                return v + 1
            return token(event.communicator.group.members[rank])

        pending = {}
        for loc, ev in trace.events:
            t, p = ev.time, token(loc)
            kind = type(ev).__name__
            if kind == "Enter":
                lines.append("%d %d Enter function=%d source=0" % (t, p, ev.region._ref + 1))
            elif kind == "Leave":
                lines.append("%d %d Leave function=%d source=0" % (t, p, ev.region._ref + 1))
            elif kind == "MpiSend":
                lines.append("%d %d SendMsg receiver=%d group=%d type=%d length=%d source=0" % (
                    t, p, peer(ev, ev.receiver), ev.communicator._ref + 1, ev.msg_tag,
                    ev.msg_length))
            elif kind == "MpiRecv":
                lines.append("%d %d RecvMsg sendProc=%d group=%d type=%d length=%d source=0" % (
                    t, p, peer(ev, ev.sender), ev.communicator._ref + 1, ev.msg_tag,
                    ev.msg_length))
            elif kind == "MpiCollectiveBegin":
                # the details come with the end: keep the line's place
                lines.append(None)
                pending[(p, attr(ev, "vftr:match"))] = (len(lines) - 1, t)
            elif kind == "MpiCollectiveEnd":
                m = attr(ev, "vftr:match")
                i, tb = pending.pop((p, m))
                root = 0 if ev.root == 0xffffffff else token(
                    ev.communicator.group.members[ev.root])
                lines[i] = ("%d %d BeginCollectiveOperation collOp=%d matchingId=%d "
                            "procGroup=%d rootProc=%d sent=%d received=%d scltoken=0" % (
                                tb, p, NAMES[ev.collective_op], m, ev.communicator._ref + 1,
                                root, ev.size_sent, ev.size_received))
                lines.append("%d %d EndCollectiveOperation matchingId=%d" % (t, p, m))
            elif kind == "Metric":
                lines.append("%d %d Counter counter=%d value=%d" % (
                    t, p, ev.metric.members[0]._ref + 1, ev.values[0]))
            else:
                lines.append("%d %d %s" % (t, p, kind))
    for line in lines:
        print(line)


main()
