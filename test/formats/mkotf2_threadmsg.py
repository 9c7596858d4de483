"""mkotf2_threadmsg.py DIR — an OTF2 archive, written with OTF2's own Python
writer as Score-P would write it, of messages sent and received by threads
of an MPI_THREAD_MULTIPLE program: an MPI record names its peer only as a
rank of the communicator, never as a thread.

Two ranks of two locations each (master, OMP thread 1); a 1 MHz timer;
MPI_COMM_WORLD; all on tag 5 but the last (tag 6):
  rank 0 thread 1 (location 1): MPI_Send 10..12, 32 B to rank 1 at 11;
                                MPI_Recv 55..61, 16 B from rank 1 at 60 (tag 6)
  rank 0 master   (location 0): MPI_Send 20..22, 64 B to rank 1 at 21;
                                MPI_Send 70..72,  8 B to rank 1 at 71
  rank 1 master   (location 2): MPI_Recv  6..41, 64 B from rank 0 at 40;
                                MPI_Recv 75..81,  8 B from rank 0 at 80
  rank 1 thread 1 (location 3): MPI_Recv  5..31, 32 B from rank 0 at 30;
                                MPI_Send 50..52, 16 B to rank 0 at 51 (tag 6)
On MPI's channel (rank 0, rank 1, world, 5) the first receive (30) takes
the first send (11), the second (40) the second (21), the third (80) the
third (71); the tag-6 message goes from thread 1 of rank 1 to thread 1 of
rank 0: four messages, all matched, each between the locations that really
sent and received it.  At 45 no message is in flight: the window from 45
holds two messages (51 -> 60, 71 -> 80), both matched.
"""
import sys

import otf2
from otf2.enums import GroupType, LocationGroupType, LocationType, Paradigm, RegionRole

with otf2.writer.open(sys.argv[1], timer_resolution=1000000) as trace:
    d = trace.definitions
    node = d.system_tree_node("node0")
    g0 = d.location_group("MPI Rank 0", system_tree_parent=node,
                          location_group_type=LocationGroupType.PROCESS)
    g1 = d.location_group("MPI Rank 1", system_tree_parent=node,
                          location_group_type=LocationGroupType.PROCESS)
    l0 = d.location("Master thread", group=g0, type=LocationType.CPU_THREAD)
    l1 = d.location("OMP thread 1", group=g0, type=LocationType.CPU_THREAD)
    l2 = d.location("Master thread", group=g1, type=LocationType.CPU_THREAD)
    l3 = d.location("OMP thread 1", group=g1, type=LocationType.CPU_THREAD)
    main = d.region("main", paradigm=Paradigm.COMPILER, region_role=RegionRole.FUNCTION)
    send = d.region("MPI_Send", paradigm=Paradigm.MPI, region_role=RegionRole.POINT2POINT)
    recv = d.region("MPI_Recv", paradigm=Paradigm.MPI, region_role=RegionRole.POINT2POINT)
    d.group("MPI locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
            members=[l0, l2])
    world_g = d.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP,
                      paradigm=Paradigm.MPI, members=[0, 1])
    world = d.comm("MPI_COMM_WORLD", group=world_g)

    w0 = trace.event_writer_from_location(l0)
    w1 = trace.event_writer_from_location(l1)
    w2 = trace.event_writer_from_location(l2)
    w3 = trace.event_writer_from_location(l3)

    w0.enter(0, main)
    w0.enter(20, send)
    w0.mpi_send(21, 1, world, 5, 64)
    w0.leave(22, send)
    w0.enter(70, send)
    w0.mpi_send(71, 1, world, 5, 8)
    w0.leave(72, send)
    w0.leave(100, main)

    w1.enter(1, main)
    w1.enter(10, send)
    w1.mpi_send(11, 1, world, 5, 32)
    w1.leave(12, send)
    w1.enter(55, recv)
    w1.mpi_recv(60, 1, world, 6, 16)
    w1.leave(61, recv)
    w1.leave(99, main)

    w2.enter(0, main)
    w2.enter(6, recv)
    w2.mpi_recv(40, 0, world, 5, 64)
    w2.leave(41, recv)
    w2.enter(75, recv)
    w2.mpi_recv(80, 0, world, 5, 8)
    w2.leave(81, recv)
    w2.leave(100, main)

    w3.enter(1, main)
    w3.enter(5, recv)
    w3.mpi_recv(30, 0, world, 5, 32)
    w3.leave(31, recv)
    w3.enter(50, send)
    w3.mpi_send(51, 0, world, 6, 16)
    w3.leave(52, send)
    w3.leave(99, main)
