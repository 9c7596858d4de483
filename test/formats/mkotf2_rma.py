#!/usr/bin/python3
"""mkotf2_rma.py DIR — writes DIR/traces.otf2 with OTF2's own Python writer
(python3-otf2) as Score-P numbers its ids: one sequence of RMA matching ids
and of request ids per location, so two threads of one process use the
same numbers.  Rank 0 has two locations, its master (location 0) and OMP
thread 1 (location 1); rank 1 one (location 2); a 1 MHz timer; one window
on MPI_COMM_WORLD.  test/integration/formats_otf2_ids.sh states what vftr
must read from it, worked out by hand from this file:

  location 0: main 0..100 { RmaPut 100 B to rank 1 at 10, matching id 1;
      MPI_Isend 12..13 (tag 3, 64 B, request 7), MpiIsendComplete at 45
      (request 7); its completion of matching id 1 at 40 }
  location 1: work 5..95 { RmaPut 8 B to rank 1 at 20, matching id 1;
      MPI_Isend 22..23 (tag 4, 32 B, request 7), MpiIsendComplete at 35
      (request 7); its completion of matching id 1 at 30 }
  location 2: main 0..100 { MpiIrecvRequest 1 at 2 (tag 3), 2 at 3 (tag 4);
      MpiIrecv of tag 4 (32 B, request 2) at 50, of tag 3 (64 B,
      request 1) at 60 }

Each completion ends its own location's put: 30 the put of 20, 40 that of
10 (the matching ids alone, per process, would not tell them apart).
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
    main = d.region("main", paradigm=Paradigm.COMPILER, region_role=RegionRole.FUNCTION)
    work = d.region("work", paradigm=Paradigm.COMPILER, region_role=RegionRole.FUNCTION)
    isend = d.region("MPI_Isend", paradigm=Paradigm.MPI, region_role=RegionRole.POINT2POINT)
    d.group("MPI locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
            members=[l0, l2])
    world_g = d.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP,
                      paradigm=Paradigm.MPI, members=[0, 1])
    world = d.comm("MPI_COMM_WORLD", group=world_g)
    win = d.rma_win("window", comm=world)

    w0 = trace.event_writer_from_location(l0)
    w1 = trace.event_writer_from_location(l1)
    w2 = trace.event_writer_from_location(l2)

    w0.enter(0, main)
    w0.rma_put(10, win, 1, 100, 1)
    w0.enter(12, isend)
    w0.mpi_isend(12, 1, world, 3, 64, 7)
    w0.leave(13, isend)
    w0.rma_op_complete_blocking(40, win, 1)
    w0.mpi_isend_complete(45, 7)
    w0.leave(100, main)

    w1.enter(5, work)
    w1.rma_put(20, win, 1, 8, 1)
    w1.enter(22, isend)
    w1.mpi_isend(22, 1, world, 4, 32, 7)
    w1.leave(23, isend)
    w1.rma_op_complete_blocking(30, win, 1)
    w1.mpi_isend_complete(35, 7)
    w1.leave(95, work)

    w2.enter(0, main)
    w2.mpi_irecv_request(2, 1)
    w2.mpi_irecv_request(3, 2)
    w2.mpi_irecv(50, 0, world, 4, 32, 2)
    w2.mpi_irecv(60, 0, world, 3, 64, 1)
    w2.leave(100, main)
