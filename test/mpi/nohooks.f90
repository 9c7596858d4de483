! nohooks.f90 -- nohooks_f DIR: the Fortran (`use mpi`) twin of nohooks.c,
! built WITHOUT -finstrument-functions: counts each MPI call it makes and
! writes "count MPI_X N" lines (the C names capture records them by) to
! DIR/count_<rank>.txt for mpi_nohooks.sh.  Five rounds of a ring exchange
! (MPI_IRECV, MPI_ISEND, MPI_WAITALL), a pairwise MPI_SEND/MPI_RECV,
! MPI_BCAST, MPI_ALLREDUCE and MPI_BARRIER.
program nohooks
  use mpi
  implicit none
  integer, parameter :: NFN = 10
  character(len=13), parameter :: names(NFN) = [character(len=13) :: 'MPI_Init', &
       'MPI_Isend', 'MPI_Irecv', 'MPI_Waitall', 'MPI_Send', 'MPI_Recv', 'MPI_Bcast', &
       'MPI_Allreduce', 'MPI_Barrier', 'MPI_Finalize']
  integer :: calls(NFN), ierr, me, np, right, left, r, x, y, total, i
  integer :: rq(2)
  character(len=4096) :: dir, path

  calls = 0
  call get_command_argument(1, dir)
  calls(1) = calls(1) + 1
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  right = mod(me + 1, np)
  left = mod(me + np - 1, np)
  do r = 0, 4
    x = me * 100 + r
    calls(3) = calls(3) + 1
    call MPI_IRECV(y, 1, MPI_INTEGER, left, r, MPI_COMM_WORLD, rq(1), ierr)
    calls(2) = calls(2) + 1
    call MPI_ISEND(x, 1, MPI_INTEGER, right, r, MPI_COMM_WORLD, rq(2), ierr)
    calls(4) = calls(4) + 1
    call MPI_WAITALL(2, rq, MPI_STATUSES_IGNORE, ierr)
    if (y /= left * 100 + r) call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    if (mod(me, 2) == 0 .and. me + 1 < np) then
      calls(5) = calls(5) + 1
      call MPI_SEND(x, 1, MPI_INTEGER, me + 1, 1000 + r, MPI_COMM_WORLD, ierr)
    else if (mod(me, 2) == 1) then
      calls(6) = calls(6) + 1
      call MPI_RECV(y, 1, MPI_INTEGER, me - 1, 1000 + r, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end if
    calls(7) = calls(7) + 1
    call MPI_BCAST(x, 1, MPI_INTEGER, mod(r, np), MPI_COMM_WORLD, ierr)
    calls(8) = calls(8) + 1
    call MPI_ALLREDUCE(me, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    calls(9) = calls(9) + 1
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  end do
  calls(10) = calls(10) + 1
  write (path, '(a,"/count_",i0,".txt")') trim(dir), me
  open (10, file=trim(path), status='replace')
  do i = 1, NFN
    if (calls(i) > 0) write (10, '(a,1x,a,1x,i0)') 'count', trim(names(i)), calls(i)
  end do
  close (10)
  call MPI_FINALIZE(ierr)
end program
