#!/usr/bin/python3
"""mkotf2.py DIR — writes an OTF2 archive DIR/traces.otf2 with OTF2's own
Python writer (Debian's python3-otf2), as a third-party tool would: Score-P's
naming (location groups "MPI Rank N", locations "Master thread", "OMP thread
1"), dense ids from 0, a 1 MHz timer, no vftr attributes.  Every event is
spelled out here; test/integration/formats_otf2_foreign.sh states what vftr
must read from it, worked out by hand from this file.

  rank 0, master (location 0): main 10..100 { omp parallel 20..50 { compute
      30..40 }, MPI_Send 60..62 with the send at 61 (to rank 1, tag 5, 1024
      bytes), MPI_Allreduce 70..80 with the collective 71..79 (8 bytes each
      way), a metric PAPI_TOT_INS = 12345 at 85, MeasurementOnOff at 86 }
  rank 0, thread 1 (location 1): omp parallel 20..50 { compute 25..45 }
  rank 1, master (location 2): main 10..90 { MPI_Recv 55..66 with the
      receive at 65, MPI_Allreduce 68..80 with the collective 69..79 }
"""
import sys

import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, LocationType,
                        MeasurementMode, Paradigm, RegionRole, Type)

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
    compute = d.region("compute", paradigm=Paradigm.COMPILER, region_role=RegionRole.FUNCTION)
    send = d.region("MPI_Send", paradigm=Paradigm.MPI, region_role=RegionRole.POINT2POINT)
    recv = d.region("MPI_Recv", paradigm=Paradigm.MPI, region_role=RegionRole.POINT2POINT)
    allred = d.region("MPI_Allreduce", paradigm=Paradigm.MPI,
                      region_role=RegionRole.COLL_ALL2ALL)
    par = d.region("!$omp parallel @x.c:10", paradigm=Paradigm.OPENMP,
                   region_role=RegionRole.PARALLEL, source_file="x.c", begin_line_number=10,
                   end_line_number=12)
    locs = d.group("MPI locations", group_type=GroupType.COMM_LOCATIONS,
                   paradigm=Paradigm.MPI, members=[l0, l2])
    world_g = d.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP,
                      paradigm=Paradigm.MPI, members=[0, 1])
    world = d.comm("MPI_COMM_WORLD", group=world_g)
    ins = d.metric("PAPI_TOT_INS", unit="#", value_type=Type.UINT64)

    w0 = trace.event_writer_from_location(l0)
    w1 = trace.event_writer_from_location(l1)
    w2 = trace.event_writer_from_location(l2)

    w0.enter(10, main)
    w0.enter(20, par)
    w0.enter(30, compute)
    w0.leave(40, compute)
    w0.leave(50, par)
    w0.enter(60, send)
    w0.mpi_send(61, 1, world, 5, 1024)
    w0.leave(62, send)
    w0.enter(70, allred)
    w0.mpi_collective_begin(71)
    w0.mpi_collective_end(79, CollectiveOp.ALLREDUCE, world, 0xffffffff, 8, 8)
    w0.leave(80, allred)
    w0.metric(85, ins, 12345)
    w0.measurement_on_off(86, MeasurementMode.OFF)
    w0.leave(100, main)

    w1.enter(20, par)
    w1.enter(25, compute)
    w1.leave(45, compute)
    w1.leave(50, par)

    w2.enter(10, main)
    w2.enter(55, recv)
    w2.mpi_recv(65, 0, world, 5, 1024)
    w2.leave(66, recv)
    w2.enter(68, allred)
    w2.mpi_collective_begin(69)
    w2.mpi_collective_end(79, CollectiveOp.ALLREDUCE, world, 0xffffffff, 8, 8)
    w2.leave(80, allred)
    w2.leave(90, main)
