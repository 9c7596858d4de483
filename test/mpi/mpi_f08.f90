! mpi_f08.f90 — the mpi_f08 bindings (Open MPI's mpi_x_f08_ symbols) under
! vftr (test/integration/mpi_f08.sh).  Usage: mpi_f08 DIR.
!
! Point-to-point (blocking, nonblocking with MPI_STATUSES_IGNORE,
! sendrecv), collectives, a communicator named through a CHARACTER
! argument, matched probes and one-sided communication, with and without
! the OPTIONAL ierror argument.  Each rank writes what it did, from its own
! arguments: DIR/expect_<rank>.txt in the format of test/mpi/mpitest.h
! (send/recv PEER TAG BYTES FLAGS, coll NAME ROOT SENT RECEIVED FLAGS) and
! DIR/calls_<rank>.txt (NAME CALLS SENT RECEIVED: calls per MPI function,
! with the bytes of the RMA calls' origin buffers).
program mpi_f08_test
    use mpi_f08
    use, intrinsic :: iso_c_binding, only: c_ptr
    implicit none
    integer, parameter :: NFN = 40
    character(len=32) :: fname(NFN)
    integer :: fcalls(NFN), nfn_used
    integer(kind=8) :: fsent(NFN), frecv(NFN)
    integer :: rank, nproc, right, left, ierr, i, u
    logical :: found
    integer :: a(16), b(16), ra(16)
    double precision :: d(4), dr(4)
    type(MPI_Status) :: st
    type(MPI_Request) :: reqs(2), rq
    type(MPI_Comm) :: dup
    type(MPI_Message) :: msg
    type(MPI_Win) :: win, wal
    type(c_ptr) :: wptr
    integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
    character(len=4096) :: dir, path

    nfn_used = 0
    fcalls = 0
    fsent = 0
    frecv = 0
    call get_command_argument(1, dir)

    call MPI_Init()
    call count('MPI_Init', 0, 0)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nproc)
    right = mod(rank + 1, nproc)
    left = mod(rank + nproc - 1, nproc)
    write (path, '(a,a,i0,a)') trim(dir), '/expect_', rank, '.txt'
    open (newunit=u, file=trim(path), status='replace', action='write')
    do i = 1, 16
        a(i) = rank * 100 + i
    end do
    d = 1.5d0

    ! blocking ring: 10 INTEGERs right, received from the left
    call MPI_Send(a, 10, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
    call count('MPI_Send', 0, 0)
    write (u, '(a,i0,a,i0,a)') 'send ', right, ' 1 ', 40, ' 0'
    call MPI_Recv(b, 16, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
    call count('MPI_Recv', 0, 0)
    if (st%MPI_SOURCE /= left .or. b(1) /= left * 100 + 1) error stop 'recv'
    write (u, '(a,i0,a,i0,a)') 'recv ', left, ' 1 ', 40, ' 0'
    ! nonblocking: 3 DOUBLEs each way, statuses ignored
    call MPI_Irecv(dr, 4, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, reqs(1))
    call count('MPI_Irecv', 0, 0)
    call MPI_Isend(d, 3, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call count('MPI_Isend', 0, 0)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    call count('MPI_Waitall', 0, 0)
    write (u, '(a,i0,a,i0,a)') 'recv ', right, ' 2 ', 24, ' 1'
    write (u, '(a,i0,a,i0,a)') 'send ', left, ' 2 ', 24, ' 1'
    ! sendrecv: 5 INTEGERs
    call MPI_Sendrecv(a, 5, MPI_INTEGER, right, 3, b, 16, MPI_INTEGER, left, 3, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call count('MPI_Sendrecv', 0, 0)
    write (u, '(a,i0,a,i0,a)') 'send ', right, ' 3 ', 20, ' 32'
    write (u, '(a,i0,a,i0,a)') 'recv ', left, ' 3 ', 20, ' 32'

    ! collectives
    call MPI_Barrier(MPI_COMM_WORLD)
    call count('MPI_Barrier', 0, 0)
    write (u, '(a)') 'coll MPI_Barrier -1 0 0 0'
    call MPI_Bcast(a, 7, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call count('MPI_Bcast', 0, 0)
    if (rank == 0) then
        write (u, '(a)') 'coll MPI_Bcast 0 28 0 0'
    else
        write (u, '(a)') 'coll MPI_Bcast 0 0 28 0'
    end if
    call MPI_Allreduce(d, dr, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    call count('MPI_Allreduce', 0, 0)
    write (u, '(a)') 'coll MPI_Allreduce -1 16 16 0'
    ! a communicator named by a CHARACTER argument (trailing blanks dropped)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call count('MPI_Comm_dup', 0, 0)
    call MPI_Comm_set_name(dup, 'f08 dup   ')
    call count('MPI_Comm_set_name', 0, 0)
    call MPI_Allreduce(MPI_IN_PLACE, ra, 3, MPI_INTEGER, MPI_MAX, dup)
    call count('MPI_Allreduce', 0, 0)
    write (u, '(a)') 'coll MPI_Allreduce -1 0 12 0'
    call MPI_Comm_free(dup)
    call count('MPI_Comm_free', 0, 0)

    ! matched probes: 6 INTEGERs (tag 4) and 2 DOUBLEs (tag 5) to the right
    call MPI_Send(a, 6, MPI_INTEGER, right, 4, MPI_COMM_WORLD)
    call count('MPI_Send', 0, 0)
    write (u, '(a,i0,a,i0,a)') 'send ', right, ' 4 ', 24, ' 0'
    call MPI_Send(d, 2, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD)
    call count('MPI_Send', 0, 0)
    write (u, '(a,i0,a,i0,a)') 'send ', right, ' 5 ', 16, ' 0'
    call MPI_Mprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, msg, st)
    call count('MPI_Mprobe', 0, 0)
    call MPI_Mrecv(b, 16, MPI_INTEGER, msg, st, ierr)
    call count('MPI_Mrecv', 0, 24)
    if (st%MPI_SOURCE /= left) error stop 'mrecv'
    write (u, '(a,i0,a,i0,a)') 'recv ', left, ' 4 ', 24, ' 0'
    do
        call MPI_Improbe(left, 5, MPI_COMM_WORLD, found, msg, MPI_STATUS_IGNORE)
        call count('MPI_Improbe', 0, 0)
        if (found) exit
    end do
    call MPI_Imrecv(dr, 4, MPI_DOUBLE_PRECISION, msg, rq)
    call count('MPI_Imrecv', 0, 0)
    call MPI_Wait(rq, st)
    call count('MPI_Wait', 0, 16)
    write (u, '(a,i0,a,i0,a)') 'recv ', left, ' 5 ', 16, ' 1'

    ! one-sided: a window over b, an allocated one (TYPE(C_PTR))
    wsize = 64
    call MPI_Win_create(b, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
    call count('MPI_Win_create', 0, 0)
    call MPI_Win_allocate(wsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, wptr, wal, ierr)
    call count('MPI_Win_allocate', 0, 0)
    call MPI_Win_fence(0, win)
    call count('MPI_Win_fence', 0, 0)
    disp = 0
    call MPI_Put(a, 4, MPI_INTEGER, right, disp, 4, MPI_INTEGER, win)
    call count('MPI_Put', 16, 0)
    disp = 8
    call MPI_Get(ra, 3, MPI_INTEGER, left, disp, 3, MPI_INTEGER, win, ierr)
    call count('MPI_Get', 0, 12)
    call MPI_Win_fence(0, win)
    call count('MPI_Win_fence', 0, 0)
    call MPI_Win_lock(MPI_LOCK_SHARED, right, 0, wal)
    call count('MPI_Win_lock', 0, 0)
    disp = 1
    call MPI_Accumulate(d, 2, MPI_DOUBLE_PRECISION, right, disp, 2, MPI_DOUBLE_PRECISION, &
                        MPI_SUM, wal)
    call count('MPI_Accumulate', 16, 0)
    call MPI_Fetch_and_op(d, dr, MPI_DOUBLE_PRECISION, right, disp, MPI_SUM, wal)
    call count('MPI_Fetch_and_op', 8, 8)
    call MPI_Win_unlock(right, wal)
    call count('MPI_Win_unlock', 0, 0)
    call MPI_Win_free(wal)
    call count('MPI_Win_free', 0, 0)
    call MPI_Win_free(win, ierr)
    call count('MPI_Win_free', 0, 0)

    close (u)
    write (path, '(a,a,i0,a)') trim(dir), '/calls_', rank, '.txt'
    open (newunit=u, file=trim(path), status='replace', action='write')
    do i = 1, nfn_used
        write (u, '(a,1x,i0,1x,i0,1x,i0)') trim(fname(i)), fcalls(i), fsent(i), frecv(i)
    end do
    close (u)
    call MPI_Finalize(ierr)

contains

    subroutine count(name, sent, received)
        character(len=*), intent(in) :: name
        integer, intent(in) :: sent, received
        integer :: k

        do k = 1, nfn_used
            if (fname(k) == name) exit
        end do
        if (k > nfn_used) then
            if (nfn_used == NFN) error stop 'function table'
            nfn_used = k
            fname(k) = name
        end if
        fcalls(k) = fcalls(k) + 1
        fsent(k) = fsent(k) + sent
        frecv(k) = frecv(k) + received
    end subroutine count
end program mpi_f08_test
