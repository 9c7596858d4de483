! mpi_pcoll_f.f90 -- the persistent collectives of Open MPI's "pcollreq"
! extension through the Fortran bindings (`use mpi` + `use mpi_ext`:
! MPIX_*_INIT, mpix_*_init_ of libmpi_mpifh), test/integration/
! mpi_pcoll.sh: each of the 17 made once on MPI_COMM_WORLD, started and
! completed (MPI_START + MPI_WAIT) and freed; one made and freed without
! a start.  Writes what each started collective moved (bytes from its own
! counts: INTEGER 4, DOUBLE PRECISION 8; flags PERS) to DIR/expect_<rank>.txt
! in the format of test/mpi/mpitest.h.  Usage: mpi_pcoll_f DIR (2..64 ranks).
program mpi_pcoll_f
  use mpi
  use mpi_ext
  implicit none
  integer, parameter :: PERS = 2
  integer :: ierr, me, np, root, isroot, rq, j
  integer :: counts(64), displs(64), mine(64), ones(64), bdispls(64), types(64)
  integer :: ibuf(4096), jbuf(4096)
  double precision :: dbuf(4096), ebuf(4096)
  character(len=4096) :: dir, path

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  if (np < 2 .or. np > 64) call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  call get_command_argument(1, dir)
  write (path, '(a,"/expect_",i0,".txt")') trim(dir), me
  open (10, file=trim(path), status='replace')
  do j = 1, 4096
    ibuf(j) = j
    dbuf(j) = j
  end do
  root = np - 1
  isroot = merge(1, 0, me == root)
  do j = 1, np
    counts(j) = j
    displs(j) = 300 * (j - 1)
    mine(j) = me + 1
    ones(j) = 1
    bdispls(j) = 4 * (j - 1)
    types(j) = MPI_INTEGER
  end do

  call MPIX_BARRIER_INIT(MPI_COMM_WORLD, MPI_INFO_NULL, rq, ierr)
  call once('MPI_Barrier', -1, 0, 0)
  call MPIX_BCAST_INIT(dbuf, 10, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, MPI_INFO_NULL, rq, ierr)
  call once('MPI_Bcast', root, 80 * isroot, 80 * (1 - isroot))
  call MPIX_REDUCE_INIT(ibuf, jbuf, 5, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &
                        rq, ierr)
  call once('MPI_Reduce', root, 20, 20 * isroot)
  ! in place: the Fortran MPI_IN_PLACE must arrive as C's
  call MPIX_ALLREDUCE_INIT(MPI_IN_PLACE, ebuf, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, &
                           MPI_INFO_NULL, rq, ierr)
  call once('MPI_Allreduce', -1, 0, 24)
  call MPIX_GATHER_INIT(ibuf, 2, MPI_INTEGER, jbuf, 2, MPI_INTEGER, root, MPI_COMM_WORLD, &
                        MPI_INFO_NULL, rq, ierr)
  call once('MPI_Gather', root, 8, np * 8 * isroot)
  call MPIX_GATHERV_INIT(ibuf, me + 1, MPI_INTEGER, jbuf, counts, displs, MPI_INTEGER, root, &
                         MPI_COMM_WORLD, MPI_INFO_NULL, rq, ierr)
  call once('MPI_Gatherv', root, 4 * (me + 1), 4 * sum(counts(1:np)) * isroot)
  call MPIX_SCATTER_INIT(dbuf, 3, MPI_DOUBLE_PRECISION, ebuf, 3, MPI_DOUBLE_PRECISION, root, &
                         MPI_COMM_WORLD, MPI_INFO_NULL, rq, ierr)
  call once('MPI_Scatter', root, np * 24 * isroot, 24)
  call MPIX_SCATTERV_INIT(ibuf, counts, displs, MPI_INTEGER, jbuf, me + 1, MPI_INTEGER, root, &
                          MPI_COMM_WORLD, MPI_INFO_NULL, rq, ierr)
  call once('MPI_Scatterv', root, 4 * sum(counts(1:np)) * isroot, 4 * (me + 1))
  call MPIX_ALLGATHER_INIT(ibuf, 2, MPI_INTEGER, jbuf, 2, MPI_INTEGER, MPI_COMM_WORLD, &
                           MPI_INFO_NULL, rq, ierr)
  call once('MPI_Allgather', -1, 8, np * 8)
  call MPIX_ALLGATHERV_INIT(ibuf, me + 1, MPI_INTEGER, jbuf, counts, displs, MPI_INTEGER, &
                            MPI_COMM_WORLD, MPI_INFO_NULL, rq, ierr)
  call once('MPI_Allgatherv', -1, 4 * (me + 1), 4 * sum(counts(1:np)))
  call MPIX_ALLTOALL_INIT(ibuf, 2, MPI_INTEGER, jbuf, 2, MPI_INTEGER, MPI_COMM_WORLD, &
                          MPI_INFO_NULL, rq, ierr)
  call once('MPI_Alltoall', -1, np * 8, np * 8)
  call MPIX_ALLTOALLV_INIT(ibuf, mine, displs, MPI_INTEGER, jbuf, counts, displs, MPI_INTEGER, &
                           MPI_COMM_WORLD, MPI_INFO_NULL, rq, ierr)
  call once('MPI_Alltoallv', -1, np * (me + 1) * 4, 4 * sum(counts(1:np)))
  call MPIX_ALLTOALLW_INIT(ibuf, ones, bdispls, types, jbuf, ones, bdispls, types, &
                           MPI_COMM_WORLD, MPI_INFO_NULL, rq, ierr)
  call once('MPI_Alltoallw', -1, np * 4, np * 4)
  call MPIX_REDUCE_SCATTER_INIT(ibuf, jbuf, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                                MPI_INFO_NULL, rq, ierr)
  call once('MPI_Reduce_scatter', -1, 4 * sum(counts(1:np)), 4 * (me + 1))
  call MPIX_REDUCE_SCATTER_BLOCK_INIT(ibuf, jbuf, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                                      MPI_INFO_NULL, rq, ierr)
  call once('MPI_Reduce_scatter_block', -1, np * 16, 16)
  call MPIX_SCAN_INIT(ibuf, jbuf, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, rq, ierr)
  call once('MPI_Scan', -1, 16, 16)
  call MPIX_EXSCAN_INIT(ibuf, jbuf, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, rq, &
                        ierr)
  call once('MPI_Exscan', -1, 16, 16)
  ! made and freed without a start: nothing
  call MPIX_ALLREDUCE_INIT(ibuf, jbuf, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &
                           rq, ierr)
  call MPI_REQUEST_FREE(rq, ierr)
  close (10)
  call MPI_FINALIZE(ierr)

contains
  ! request rq of the collective name, moving sent / recvd bytes here:
  ! started, completed, freed
  subroutine once(name, r, sent, recvd)
    character(*), intent(in) :: name
    integer, intent(in) :: r, sent, recvd
    if (ierr /= MPI_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
    call MPI_START(rq, ierr)
    call MPI_WAIT(rq, MPI_STATUS_IGNORE, ierr)
    call MPI_REQUEST_FREE(rq, ierr)
    write (10, '(a,1x,a,1x,i0,1x,i0,1x,i0,1x,i0)') 'coll', name, r, sent, recvd, PERS
  end subroutine
end program
