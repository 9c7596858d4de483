! mpi_fortran.f90 -- calls every Fortran MPI routine libvftrcapture-mpi
! wraps (capture/mpi/mpi_functions.def), through `use mpi`, and writes what
! it sent, received and took part in to DIR/expect_<rank>.txt in the format
! of test/mpi/mpitest.h (bytes computed from its own counts: INTEGER 4,
! DOUBLE PRECISION 8).  Usage: mpi_fortran DIR [thread] (4 ranks); with
! "thread" it starts with MPI_INIT_THREAD, else with MPI_INIT.
module expect
  implicit none
  integer, parameter :: NB = 1, PERS = 2, SYNC = 4, BUF = 8, READY = 16, SR = 32
contains
  subroutine ex_msg(dir, peer, tag, bytes, flags)
    character(*), intent(in) :: dir
    integer, intent(in) :: peer, tag, bytes, flags
    write (10, '(a,1x,i0,1x,i0,1x,i0,1x,i0)') dir, peer, tag, bytes, flags
  end subroutine
  subroutine ex_coll(name, root, sent, recvd, flags)
    character(*), intent(in) :: name
    integer, intent(in) :: root, sent, recvd, flags
    write (10, '(a,1x,a,1x,i0,1x,i0,1x,i0,1x,i0)') 'coll', name, root, sent, recvd, flags
  end subroutine
end module

program mpi_fortran
  use mpi
  use expect
  implicit none
  integer :: ierr, me, np, right, left, provided, i, k, idx, outc, flag_i
  integer :: rq(4), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4), idxs(4)
  integer :: counts(4), displs(4), rcounts(4), types(4)
  integer :: split, dup, dupi, created, grouped, shared, wgroup, evens, odds, ranks(2)
  integer :: ibuf(64), jbuf(64), bsize
  double precision :: dbuf(64), ebuf(64)
  character(len=8), allocatable :: bbuf(:)
  character(len=4096) :: dir, mode
  logical :: flag
  logical :: thread

  call get_command_argument(1, dir)
  call get_command_argument(2, mode)
  thread = mode == 'thread'
  if (thread) then
    call MPI_INIT_THREAD(MPI_THREAD_FUNNELED, provided, ierr)
  else
    call MPI_INIT(ierr)
  end if
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  if (np /= 4) call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  write (mode, '(a,"/expect_",i0,".txt")') trim(dir), me
  open (10, file=trim(mode), status='replace')
  right = mod(me + 1, np)
  left = mod(me + np - 1, np)
  ibuf = me
  dbuf = me

  ! blocking sends of every mode around the ring
  call ring_send(1, 10)
  allocate (bbuf(100 + MPI_BSEND_OVERHEAD))
  call MPI_BUFFER_ATTACH(bbuf, 8 * (100 + MPI_BSEND_OVERHEAD), ierr)
  if (mod(me, 2) == 0) then
    call MPI_SSEND(ibuf, 3, MPI_INTEGER, right, 2, MPI_COMM_WORLD, ierr)
    call MPI_RECV(jbuf, 3, MPI_INTEGER, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_BSEND(ibuf, 4, MPI_INTEGER, right, 3, MPI_COMM_WORLD, ierr)
    call MPI_RECV(jbuf, 4, MPI_INTEGER, left, 3, MPI_COMM_WORLD, st, ierr)
  else
    call MPI_RECV(jbuf, 3, MPI_INTEGER, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_SSEND(ibuf, 3, MPI_INTEGER, right, 2, MPI_COMM_WORLD, ierr)
    call MPI_RECV(jbuf, 4, MPI_INTEGER, left, 3, MPI_COMM_WORLD, st, ierr)
    call MPI_BSEND(ibuf, 4, MPI_INTEGER, right, 3, MPI_COMM_WORLD, ierr)
  end if
  call ex_msg('send', right, 2, 12, SYNC)
  call ex_msg('recv', left, 2, 12, 0)
  call ex_msg('send', right, 3, 16, BUF)
  call ex_msg('recv', left, 3, 16, 0)
  ! ready mode after the receive is posted
  call MPI_IRECV(jbuf, 5, MPI_INTEGER, left, 4, MPI_COMM_WORLD, rq(1), ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call ex_coll('MPI_Barrier', -1, 0, 0, 0)
  call MPI_RSEND(ibuf, 5, MPI_INTEGER, right, 4, MPI_COMM_WORLD, ierr)
  call MPI_WAIT(rq(1), st, ierr)
  call ex_msg('send', right, 4, 20, READY)
  call ex_msg('recv', left, 4, 20, NB)
  call MPI_SENDRECV(ibuf, 6, MPI_INTEGER, right, 5, jbuf, 6, MPI_INTEGER, left, 5, &
                    MPI_COMM_WORLD, st, ierr)
  call ex_msg('send', right, 5, 24, SR)
  call ex_msg('recv', left, 5, 24, SR)
  call MPI_SENDRECV_REPLACE(dbuf, 7, MPI_DOUBLE_PRECISION, left, 6, right, 6, &
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call ex_msg('send', left, 6, 56, SR)
  call ex_msg('recv', right, 6, 56, SR)

  ! wildcards with probes: rank 0 takes one message of each other rank
  if (me == 0) then
    do k = 1, np - 1
      if (mod(k, 2) == 1) then
        call MPI_PROBE(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
      else
        flag = .false.
        do while (.not. flag)
          call MPI_IPROBE(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, st, ierr)
        end do
      end if
      call MPI_RECV(jbuf, 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
      call ex_msg('recv', st(MPI_SOURCE), st(MPI_TAG), 4 * st(MPI_SOURCE), 0)
    end do
  else
    call MPI_SEND(ibuf, me, MPI_INTEGER, 0, 200 + me, MPI_COMM_WORLD, ierr)
    call ex_msg('send', 0, 200 + me, 4 * me, 0)
  end if
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call ex_coll('MPI_Barrier', -1, 0, 0, 0)

  ! nonblocking: every wait and test routine, on a halo of 4 requests
  do k = 1, 8
    call MPI_IRECV(jbuf, k, MPI_INTEGER, left, 10 + k, MPI_COMM_WORLD, rq(1), ierr)
    call MPI_IRECV(jbuf(33), k, MPI_INTEGER, right, 20 + k, MPI_COMM_WORLD, rq(2), ierr)
    call MPI_ISEND(ibuf, k, MPI_INTEGER, right, 10 + k, MPI_COMM_WORLD, rq(3), ierr)
    call MPI_ISEND(ibuf, k, MPI_INTEGER, left, 20 + k, MPI_COMM_WORLD, rq(4), ierr)
    select case (k)
    case (1)
      call MPI_WAITALL(4, rq, sts, ierr)
    case (2)
      call MPI_WAITALL(4, rq, MPI_STATUSES_IGNORE, ierr)
    case (3)
      do i = 1, 4
        call MPI_WAITANY(4, rq, idx, st, ierr)
        if (idx < 1 .or. idx > 4) call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
      end do
    case (4)
      i = 0
      do while (i < 4)
        call MPI_WAITSOME(4, rq, outc, idxs, sts, ierr)
        i = i + outc
      end do
    case (5)
      do i = 1, 4
        flag = .false.
        do while (.not. flag)
          call MPI_TEST(rq(i), flag, st, ierr)
        end do
      end do
    case (6)
      flag = .false.
      do while (.not. flag)
        call MPI_TESTALL(4, rq, flag, sts, ierr)
      end do
    case (7)
      i = 0
      do while (i < 4)
        call MPI_TESTANY(4, rq, idx, flag, st, ierr)
        if (flag .and. idx /= MPI_UNDEFINED) i = i + 1
      end do
    case (8)
      i = 0
      do while (i < 4)
        call MPI_TESTSOME(4, rq, outc, idxs, MPI_STATUSES_IGNORE, ierr)
        i = i + outc
      end do
    end select
    do i = 1, 4
      if (rq(i) /= MPI_REQUEST_NULL) call MPI_ABORT(MPI_COMM_WORLD, 30 + k, ierr)
    end do
    call ex_msg('recv', left, 10 + k, 4 * k, NB)
    call ex_msg('recv', right, 20 + k, 4 * k, NB)
    call ex_msg('send', right, 10 + k, 4 * k, NB)
    call ex_msg('send', left, 20 + k, 4 * k, NB)
  end do
  call MPI_IRECV(jbuf, 9, MPI_INTEGER, left, 30, MPI_COMM_WORLD, rq(1), ierr)
  call MPI_IRECV(jbuf(20), 9, MPI_INTEGER, left, 31, MPI_COMM_WORLD, rq(2), ierr)
  call MPI_IRECV(jbuf(40), 9, MPI_INTEGER, left, 32, MPI_COMM_WORLD, rq(3), ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call ex_coll('MPI_Barrier', -1, 0, 0, 0)
  call MPI_ISSEND(ibuf, 1, MPI_INTEGER, right, 30, MPI_COMM_WORLD, rq(4), ierr)
  call MPI_WAIT(rq(4), MPI_STATUS_IGNORE, ierr)
  call MPI_IBSEND(ibuf, 2, MPI_INTEGER, right, 31, MPI_COMM_WORLD, rq(4), ierr)
  call MPI_WAIT(rq(4), MPI_STATUS_IGNORE, ierr)
  call MPI_IRSEND(ibuf, 3, MPI_INTEGER, right, 32, MPI_COMM_WORLD, rq(4), ierr)
  call MPI_WAIT(rq(4), MPI_STATUS_IGNORE, ierr)
  call MPI_WAITALL(3, rq, MPI_STATUSES_IGNORE, ierr)
  call ex_msg('send', right, 30, 4, NB + SYNC)
  call ex_msg('send', right, 31, 8, NB + BUF)
  call ex_msg('send', right, 32, 12, NB + READY)
  call ex_msg('recv', left, 30, 4, NB)
  call ex_msg('recv', left, 31, 8, NB)
  call ex_msg('recv', left, 32, 12, NB)
  ! a cancelled receive is no message
  call MPI_IRECV(jbuf, 1, MPI_INTEGER, left, 999, MPI_COMM_WORLD, rq(1), ierr)
  call MPI_CANCEL(rq(1), ierr)
  call MPI_WAIT(rq(1), st, ierr)

  ! persistent requests of every mode
  call MPI_SEND_INIT(ibuf, 8, MPI_INTEGER, right, 40, MPI_COMM_WORLD, rq(1), ierr)
  call MPI_RECV_INIT(jbuf, 8, MPI_INTEGER, left, 40, MPI_COMM_WORLD, rq(2), ierr)
  do k = 1, 2
    call MPI_STARTALL(2, rq, ierr)
    call MPI_WAITALL(2, rq, MPI_STATUSES_IGNORE, ierr)
    call ex_msg('send', right, 40, 32, PERS)
    call ex_msg('recv', left, 40, 32, PERS)
  end do
  call MPI_START(rq(2), ierr)
  call MPI_START(rq(1), ierr)
  call MPI_WAITALL(2, rq, MPI_STATUSES_IGNORE, ierr)
  call ex_msg('send', right, 40, 32, PERS)
  call ex_msg('recv', left, 40, 32, PERS)
  call MPI_REQUEST_FREE(rq(1), ierr)
  call MPI_REQUEST_FREE(rq(2), ierr)
  call MPI_SSEND_INIT(ibuf, 1, MPI_INTEGER, right, 41, MPI_COMM_WORLD, rq(1), ierr)
  call MPI_BSEND_INIT(ibuf, 2, MPI_INTEGER, right, 42, MPI_COMM_WORLD, rq(2), ierr)
  call MPI_RECV_INIT(jbuf, 1, MPI_INTEGER, left, 41, MPI_COMM_WORLD, rq(3), ierr)
  call MPI_RECV_INIT(jbuf(10), 2, MPI_INTEGER, left, 42, MPI_COMM_WORLD, rq(4), ierr)
  call MPI_STARTALL(4, rq, ierr)
  call MPI_WAITALL(4, rq, MPI_STATUSES_IGNORE, ierr)
  call ex_msg('send', right, 41, 4, PERS + SYNC)
  call ex_msg('send', right, 42, 8, PERS + BUF)
  call ex_msg('recv', left, 41, 4, PERS)
  call ex_msg('recv', left, 42, 8, PERS)
  do i = 1, 4
    call MPI_REQUEST_FREE(rq(i), ierr)
  end do
  call MPI_RSEND_INIT(ibuf, 3, MPI_INTEGER, right, 43, MPI_COMM_WORLD, rq(1), ierr)
  call MPI_RECV_INIT(jbuf, 3, MPI_INTEGER, left, 43, MPI_COMM_WORLD, rq(2), ierr)
  call MPI_START(rq(2), ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call ex_coll('MPI_Barrier', -1, 0, 0, 0)
  call MPI_START(rq(1), ierr)
  call MPI_WAITALL(2, rq, MPI_STATUSES_IGNORE, ierr)
  call ex_msg('send', right, 43, 12, PERS + READY)
  call ex_msg('recv', left, 43, 12, PERS)
  call MPI_REQUEST_FREE(rq(1), ierr)
  call MPI_REQUEST_FREE(rq(2), ierr)
  call MPI_BUFFER_DETACH(bbuf, bsize, ierr)

  ! collectives on world, blocking and nonblocking (root: the last rank)
  call collectives(MPI_COMM_WORLD, 0)
  call collectives(MPI_COMM_WORLD, 1)

  ! communicators and groups
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(me, 2), me, split, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  ! a CHARACTER argument: blank-padded, its length passed hidden
  call MPI_COMM_SET_NAME(dup, 'fortran dup   ', ierr)
  call MPI_COMM_DUP_WITH_INFO(MPI_COMM_WORLD, MPI_INFO_NULL, dupi, ierr)
  call MPI_COMM_SPLIT_TYPE(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, shared, ierr)
  call MPI_COMM_GROUP(MPI_COMM_WORLD, wgroup, ierr)
  ranks = (/ 0, 2 /)
  call MPI_GROUP_INCL(wgroup, 2, ranks, evens, ierr)
  call MPI_GROUP_EXCL(wgroup, 2, ranks, odds, ierr)
  call MPI_COMM_CREATE(MPI_COMM_WORLD, evens, created, ierr)
  if (mod(me, 2) == 0) then
    call MPI_COMM_CREATE_GROUP(MPI_COMM_WORLD, evens, 7, grouped, ierr)
    ! a message inside: world peers 0 <-> 2
    call MPI_SENDRECV(ibuf, 1, MPI_INTEGER, 1 - me / 2, 8, jbuf, 1, MPI_INTEGER, &
                      MPI_ANY_SOURCE, 8, grouped, st, ierr)
    call ex_msg('send', 2 - me, 8, 4, SR)
    call ex_msg('recv', 2 - me, 8, 4, SR)
    call MPI_COMM_FREE(grouped, ierr)
    call MPI_COMM_FREE(created, ierr)
  end if
  call MPI_BCAST(ibuf, 2, MPI_INTEGER, 0, split, ierr)
  call ex_coll('MPI_Bcast', mod(me, 2), merge(8, 0, me < 2), merge(0, 8, me < 2), 0)
  call MPI_COMM_FREE(split, ierr)
  call MPI_COMM_FREE(dup, ierr)
  call MPI_COMM_FREE(dupi, ierr)
  call MPI_COMM_FREE(shared, ierr)
  call MPI_GROUP_FREE(evens, ierr)
  call MPI_GROUP_FREE(odds, ierr)
  call MPI_GROUP_FREE(wgroup, ierr)

  ! one-sided communication and matched probes
  call rma_probes()

  ! MPI-IO: every wrapped MPI_FILE routine on a file of this rank's own
  call file_io()

  ! MPI_PCONTROL: nothing of the paused ring is recorded
  call MPI_PCONTROL(0)
  call ring_send(99, 0)
  call MPI_PCONTROL(1)
  call MPI_PCONTROL(2)
  close (10)
  call MPI_FINALIZE(ierr)

contains

  ! Every wrapped RMA routine (windows created four ways, data moved in
  ! fence, lock, lock_all and post/start/complete/wait epochs) and the
  ! matched probes: a message of 3 INTEGERs (tag 40) received with
  ! MPI_MPROBE + MPI_MRECV, one of 2 DOUBLE PRECISION (tag 41) with
  ! MPI_IMPROBE + MPI_IMRECV.
  subroutine rma_probes()
    integer :: win, wal, wsh, wdy, msg, grp, nbg, du, rqs(4), wbuf(16), res(16), peer(1)
    integer(kind=MPI_ADDRESS_KIND) :: sz, disp, bptr, qsz
    double precision :: dw(4), dr(4)
    logical :: fl
    wbuf = me
    dw = 1
    sz = 64
    call MPI_WIN_CREATE(wbuf, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_WIN_ALLOCATE(sz, 8, MPI_INFO_NULL, MPI_COMM_WORLD, bptr, wal, ierr)
    call MPI_WIN_ALLOCATE_SHARED(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, bptr, wsh, ierr)
    call MPI_WIN_SHARED_QUERY(wsh, 0, qsz, du, bptr, ierr)
    if (qsz /= 64 .or. du /= 4) call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    disp = 0
    call MPI_PUT(ibuf, 4, MPI_INTEGER, right, disp, 4, MPI_INTEGER, win, ierr)
    disp = 4
    call MPI_GET(res, 3, MPI_INTEGER, left, disp, 3, MPI_INTEGER, win, ierr)
    disp = 8
    call MPI_ACCUMULATE(ibuf, 2, MPI_INTEGER, left, disp, 2, MPI_INTEGER, MPI_SUM, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    call MPI_WIN_LOCK(MPI_LOCK_SHARED, right, 0, wal, ierr)
    disp = 0
    call MPI_GET_ACCUMULATE(dbuf, 2, MPI_DOUBLE_PRECISION, dr, 2, MPI_DOUBLE_PRECISION, right, &
                            disp, 2, MPI_DOUBLE_PRECISION, MPI_SUM, wal, ierr)
    call MPI_FETCH_AND_OP(dbuf, dr, MPI_DOUBLE_PRECISION, right, disp, MPI_SUM, wal, ierr)
    call MPI_COMPARE_AND_SWAP(dbuf, dw, dr, MPI_DOUBLE_PRECISION, right, disp, wal, ierr)
    call MPI_WIN_FLUSH(right, wal, ierr)
    call MPI_WIN_FLUSH_LOCAL(right, wal, ierr)
    call MPI_WIN_UNLOCK(right, wal, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call ex_coll('MPI_Barrier', -1, 0, 0, 0)
    call MPI_WIN_LOCK_ALL(0, wal, ierr)
    call MPI_RPUT(dbuf, 1, MPI_DOUBLE_PRECISION, right, disp, 1, MPI_DOUBLE_PRECISION, wal, &
                  rqs(1), ierr)
    disp = 1
    call MPI_RGET(dr, 1, MPI_DOUBLE_PRECISION, left, disp, 1, MPI_DOUBLE_PRECISION, wal, &
                  rqs(2), ierr)
    disp = 2
    call MPI_RACCUMULATE(dbuf, 1, MPI_DOUBLE_PRECISION, left, disp, 1, MPI_DOUBLE_PRECISION, &
                         MPI_SUM, wal, rqs(3), ierr)
    disp = 3
    call MPI_RGET_ACCUMULATE(dbuf, 1, MPI_DOUBLE_PRECISION, dw, 1, MPI_DOUBLE_PRECISION, right, &
                             disp, 1, MPI_DOUBLE_PRECISION, MPI_MAX, wal, rqs(4), ierr)
    call MPI_WAITALL(4, rqs, MPI_STATUSES_IGNORE, ierr)
    call MPI_WIN_FLUSH_ALL(wal, ierr)
    call MPI_WIN_FLUSH_LOCAL_ALL(wal, ierr)
    call MPI_WIN_SYNC(wal, ierr)
    call MPI_WIN_UNLOCK_ALL(wal, ierr)
    ! post/start/complete: exposed to the left, access to the right
    call MPI_COMM_GROUP(MPI_COMM_WORLD, grp, ierr)
    peer(1) = left
    call MPI_GROUP_INCL(grp, 1, peer, nbg, ierr)
    call MPI_WIN_POST(nbg, 0, win, ierr)
    call MPI_GROUP_FREE(nbg, ierr)
    peer(1) = right
    call MPI_GROUP_INCL(grp, 1, peer, nbg, ierr)
    call MPI_WIN_START(nbg, 0, win, ierr)
    disp = 0
    call MPI_PUT(ibuf, 2, MPI_INTEGER, right, disp, 2, MPI_INTEGER, win, ierr)
    call MPI_WIN_COMPLETE(win, ierr)
    call MPI_GROUP_FREE(nbg, ierr)
    fl = .false.
    do while (.not. fl)
      call MPI_WIN_TEST(win, fl, ierr)
    end do
    peer(1) = left
    call MPI_GROUP_INCL(grp, 1, peer, nbg, ierr)
    call MPI_WIN_POST(nbg, 0, win, ierr)
    call MPI_GROUP_FREE(nbg, ierr)
    peer(1) = right
    call MPI_GROUP_INCL(grp, 1, peer, nbg, ierr)
    call MPI_WIN_START(nbg, 0, win, ierr)
    call MPI_WIN_COMPLETE(win, ierr)
    call MPI_GROUP_FREE(nbg, ierr)
    call MPI_WIN_WAIT(win, ierr)
    call MPI_GROUP_FREE(grp, ierr)
    call MPI_WIN_CREATE_DYNAMIC(MPI_INFO_NULL, MPI_COMM_WORLD, wdy, ierr)
    call MPI_WIN_ATTACH(wdy, res, sz, ierr)
    call MPI_WIN_DETACH(wdy, res, ierr)
    call MPI_WIN_FREE(wdy, ierr)
    call MPI_WIN_FREE(wsh, ierr)
    call MPI_WIN_FREE(wal, ierr)
    call MPI_WIN_FREE(win, ierr)
    ! matched probes
    call MPI_SEND(ibuf, 3, MPI_INTEGER, right, 40, MPI_COMM_WORLD, ierr)
    call ex_msg('send', right, 40, 12, 0)
    call MPI_SEND(dbuf, 2, MPI_DOUBLE_PRECISION, right, 41, MPI_COMM_WORLD, ierr)
    call ex_msg('send', right, 41, 16, 0)
    call MPI_MPROBE(left, 40, MPI_COMM_WORLD, msg, st, ierr)
    call MPI_MRECV(jbuf, 64, MPI_INTEGER, msg, st, ierr)
    if (st(MPI_SOURCE) /= left .or. msg /= MPI_MESSAGE_NULL) call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
    call ex_msg('recv', left, 40, 12, 0)
    fl = .false.
    do while (.not. fl)
      call MPI_IMPROBE(left, 41, MPI_COMM_WORLD, fl, msg, MPI_STATUS_IGNORE, ierr)
    end do
    call MPI_IMRECV(ebuf, 64, MPI_DOUBLE_PRECISION, msg, rqs(1), ierr)
    call MPI_WAIT(rqs(1), st, ierr)
    call ex_msg('recv', left, 41, 16, NB)
  end subroutine

  subroutine file_io()
    integer :: fh, frq, frq2
    integer(kind=MPI_OFFSET_KIND) :: off
    character(len=4096) :: fname
    write (fname, '(a,"/fio_",i0,".bin")') trim(dir), me
    call MPI_FILE_OPEN(MPI_COMM_SELF, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                       MPI_INFO_NULL, fh, ierr)
    off = 0
    call MPI_FILE_SET_VIEW(fh, off, MPI_BYTE, MPI_BYTE, 'native', MPI_INFO_NULL, ierr)
    off = 4096
    call MPI_FILE_PREALLOCATE(fh, off, ierr)
    off = 0
    call MPI_FILE_SET_SIZE(fh, off, ierr)
    call MPI_FILE_WRITE(fh, ibuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_WRITE_ALL(fh, ibuf, 4, MPI_INTEGER, st, ierr)
    off = 64
    call MPI_FILE_WRITE_AT(fh, off, ibuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_WRITE_AT_ALL(fh, off, ibuf, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_FILE_WRITE_SHARED(fh, ibuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_WRITE_ORDERED(fh, ibuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_IWRITE(fh, ibuf, 4, MPI_INTEGER, frq, ierr)
    call MPI_WAIT(frq, st, ierr)
    call MPI_FILE_IWRITE_ALL(fh, ibuf, 4, MPI_INTEGER, frq, ierr)
    call MPI_WAIT(frq, st, ierr)
    call MPI_FILE_IWRITE_AT(fh, off, ibuf, 4, MPI_INTEGER, frq, ierr)
    call MPI_FILE_IWRITE_AT_ALL(fh, off, ibuf, 4, MPI_INTEGER, frq2, ierr)
    call MPI_WAIT(frq, st, ierr)
    call MPI_WAIT(frq2, st, ierr)
    call MPI_FILE_IWRITE_SHARED(fh, ibuf, 4, MPI_INTEGER, frq, ierr)
    call MPI_WAIT(frq, st, ierr)
    call MPI_FILE_WRITE_ALL_BEGIN(fh, ibuf, 4, MPI_INTEGER, ierr)
    call MPI_FILE_WRITE_ALL_END(fh, ibuf, st, ierr)
    call MPI_FILE_WRITE_AT_ALL_BEGIN(fh, off, ibuf, 4, MPI_INTEGER, ierr)
    call MPI_FILE_WRITE_AT_ALL_END(fh, ibuf, st, ierr)
    call MPI_FILE_WRITE_ORDERED_BEGIN(fh, ibuf, 4, MPI_INTEGER, ierr)
    call MPI_FILE_WRITE_ORDERED_END(fh, ibuf, st, ierr)
    call MPI_FILE_SYNC(fh, ierr)
    off = 0
    call MPI_FILE_SEEK(fh, off, MPI_SEEK_SET, ierr)
    call MPI_FILE_SEEK_SHARED(fh, off, MPI_SEEK_SET, ierr)
    call MPI_FILE_READ(fh, jbuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_READ_ALL(fh, jbuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_READ_AT(fh, off, jbuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_READ_AT_ALL(fh, off, jbuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_READ_SHARED(fh, jbuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_READ_ORDERED(fh, jbuf, 4, MPI_INTEGER, st, ierr)
    call MPI_FILE_IREAD(fh, jbuf, 4, MPI_INTEGER, frq, ierr)
    call MPI_WAIT(frq, st, ierr)
    call MPI_FILE_IREAD_ALL(fh, jbuf, 4, MPI_INTEGER, frq, ierr)
    call MPI_WAIT(frq, st, ierr)
    call MPI_FILE_IREAD_AT(fh, off, jbuf, 4, MPI_INTEGER, frq, ierr)
    call MPI_WAIT(frq, st, ierr)
    call MPI_FILE_IREAD_AT_ALL(fh, off, jbuf, 4, MPI_INTEGER, frq, ierr)
    call MPI_WAIT(frq, st, ierr)
    call MPI_FILE_IREAD_SHARED(fh, jbuf, 4, MPI_INTEGER, frq, ierr)
    call MPI_WAIT(frq, st, ierr)
    call MPI_FILE_READ_ALL_BEGIN(fh, jbuf, 4, MPI_INTEGER, ierr)
    call MPI_FILE_READ_ALL_END(fh, jbuf, st, ierr)
    call MPI_FILE_READ_AT_ALL_BEGIN(fh, off, jbuf, 4, MPI_INTEGER, ierr)
    call MPI_FILE_READ_AT_ALL_END(fh, jbuf, st, ierr)
    call MPI_FILE_READ_ORDERED_BEGIN(fh, jbuf, 4, MPI_INTEGER, ierr)
    call MPI_FILE_READ_ORDERED_END(fh, jbuf, st, ierr)
    call MPI_FILE_CLOSE(fh, ierr)
    if (fh /= MPI_FILE_NULL) call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    call MPI_FILE_DELETE(trim(fname), MPI_INFO_NULL, ierr)
  end subroutine

  subroutine ring_send(tag, n)
    integer, intent(in) :: tag, n
    integer :: m
    m = max(n, 1)
    if (mod(me, 2) == 0) then
      call MPI_SEND(dbuf, m, MPI_DOUBLE_PRECISION, right, tag, MPI_COMM_WORLD, ierr)
      call MPI_RECV(ebuf, m, MPI_DOUBLE_PRECISION, left, tag, MPI_COMM_WORLD, st, ierr)
    else
      call MPI_RECV(ebuf, m, MPI_DOUBLE_PRECISION, left, tag, MPI_COMM_WORLD, st, ierr)
      call MPI_SEND(dbuf, m, MPI_DOUBLE_PRECISION, right, tag, MPI_COMM_WORLD, ierr)
    end if
    if (n > 0) then
      call ex_msg('send', right, tag, 8 * m, 0)
      call ex_msg('recv', left, tag, 8 * m, 0)
    end if
  end subroutine

  subroutine done(nb)
    integer, intent(in) :: nb
    if (nb == 1) call MPI_WAIT(rq(1), MPI_STATUS_IGNORE, ierr)
  end subroutine

  subroutine collectives(comm, nb)
    integer, intent(in) :: comm, nb
    integer :: root, isroot, j
    root = np - 1
    isroot = merge(1, 0, me == root)
    do j = 1, np
      counts(j) = j
      displs(j) = 8 * (j - 1)
      rcounts(j) = me + 1
      types(j) = MPI_INTEGER
    end do
    if (nb == 1) then
      call MPI_IBARRIER(comm, rq(1), ierr)
    else
      call MPI_BARRIER(comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Barrier', -1, 0, 0, nb)
    if (nb == 1) then
      call MPI_IBCAST(dbuf, 4, MPI_DOUBLE_PRECISION, root, comm, rq(1), ierr)
    else
      call MPI_BCAST(dbuf, 4, MPI_DOUBLE_PRECISION, root, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Bcast', root, 32 * isroot, 32 * (1 - isroot), nb)
    if (nb == 1) then
      call MPI_IREDUCE(ibuf, jbuf, 3, MPI_INTEGER, MPI_SUM, root, comm, rq(1), ierr)
    else
      call MPI_REDUCE(ibuf, jbuf, 3, MPI_INTEGER, MPI_SUM, root, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Reduce', root, 12, 12 * isroot, nb)
    ! in place: the Fortran MPI_IN_PLACE must arrive as C's
    if (nb == 1) then
      call MPI_IALLREDUCE(MPI_IN_PLACE, jbuf, 2, MPI_INTEGER, MPI_SUM, comm, rq(1), ierr)
    else
      call MPI_ALLREDUCE(MPI_IN_PLACE, jbuf, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Allreduce', -1, 0, 8, nb)
    if (nb == 1) then
      call MPI_IGATHER(ibuf, 2, MPI_INTEGER, jbuf, 2, MPI_INTEGER, root, comm, rq(1), ierr)
    else
      call MPI_GATHER(ibuf, 2, MPI_INTEGER, jbuf, 2, MPI_INTEGER, root, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Gather', root, 8, 8 * np * isroot, nb)
    if (nb == 1) then
      call MPI_IGATHERV(ibuf, me + 1, MPI_INTEGER, jbuf, counts, displs, MPI_INTEGER, root, &
                        comm, rq(1), ierr)
    else
      call MPI_GATHERV(ibuf, me + 1, MPI_INTEGER, jbuf, counts, displs, MPI_INTEGER, root, &
                       comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Gatherv', root, 4 * (me + 1), 40 * isroot, nb)
    if (nb == 1) then
      call MPI_ISCATTER(dbuf, 2, MPI_DOUBLE_PRECISION, ebuf, 2, MPI_DOUBLE_PRECISION, root, &
                        comm, rq(1), ierr)
    else
      call MPI_SCATTER(dbuf, 2, MPI_DOUBLE_PRECISION, ebuf, 2, MPI_DOUBLE_PRECISION, root, &
                       comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Scatter', root, 64 * isroot, 16, nb)
    if (nb == 1) then
      call MPI_ISCATTERV(ibuf, counts, displs, MPI_INTEGER, jbuf, me + 1, MPI_INTEGER, root, &
                         comm, rq(1), ierr)
    else
      call MPI_SCATTERV(ibuf, counts, displs, MPI_INTEGER, jbuf, me + 1, MPI_INTEGER, root, &
                        comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Scatterv', root, 40 * isroot, 4 * (me + 1), nb)
    if (nb == 1) then
      call MPI_IALLGATHER(ibuf, 1, MPI_INTEGER, jbuf, 1, MPI_INTEGER, comm, rq(1), ierr)
    else
      call MPI_ALLGATHER(ibuf, 1, MPI_INTEGER, jbuf, 1, MPI_INTEGER, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Allgather', -1, 4, 16, nb)
    if (nb == 1) then
      call MPI_IALLGATHERV(ibuf, me + 1, MPI_INTEGER, jbuf, counts, displs, MPI_INTEGER, comm, &
                           rq(1), ierr)
    else
      call MPI_ALLGATHERV(ibuf, me + 1, MPI_INTEGER, jbuf, counts, displs, MPI_INTEGER, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Allgatherv', -1, 4 * (me + 1), 40, nb)
    if (nb == 1) then
      call MPI_IALLTOALL(dbuf, 1, MPI_DOUBLE_PRECISION, ebuf, 1, MPI_DOUBLE_PRECISION, comm, &
                         rq(1), ierr)
    else
      call MPI_ALLTOALL(dbuf, 1, MPI_DOUBLE_PRECISION, ebuf, 1, MPI_DOUBLE_PRECISION, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Alltoall', -1, 32, 32, nb)
    ! rank j gets j + 1 integers from everybody
    if (nb == 1) then
      call MPI_IALLTOALLV(ibuf, counts, displs, MPI_INTEGER, jbuf, rcounts, displs, MPI_INTEGER, &
                          comm, rq(1), ierr)
    else
      call MPI_ALLTOALLV(ibuf, counts, displs, MPI_INTEGER, jbuf, rcounts, displs, MPI_INTEGER, &
                         comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Alltoallv', -1, 40, 16 * (me + 1), nb)
    do j = 1, np
      counts(j) = 1
      displs(j) = 4 * (j - 1)
    end do
    if (nb == 1) then
      call MPI_IALLTOALLW(ibuf, counts, displs, types, jbuf, counts, displs, types, comm, &
                          rq(1), ierr)
    else
      call MPI_ALLTOALLW(ibuf, counts, displs, types, jbuf, counts, displs, types, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Alltoallw', -1, 16, 16, nb)
    do j = 1, np
      counts(j) = j
    end do
    if (nb == 1) then
      call MPI_IREDUCE_SCATTER(ibuf, jbuf, counts, MPI_INTEGER, MPI_SUM, comm, rq(1), ierr)
    else
      call MPI_REDUCE_SCATTER(ibuf, jbuf, counts, MPI_INTEGER, MPI_SUM, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Reduce_scatter', -1, 40, 4 * (me + 1), nb)
    if (nb == 1) then
      call MPI_IREDUCE_SCATTER_BLOCK(dbuf, ebuf, 2, MPI_DOUBLE_PRECISION, MPI_SUM, comm, rq(1), ierr)
    else
      call MPI_REDUCE_SCATTER_BLOCK(dbuf, ebuf, 2, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Reduce_scatter_block', -1, 64, 16, nb)
    if (nb == 1) then
      call MPI_ISCAN(ibuf, jbuf, 2, MPI_INTEGER, MPI_SUM, comm, rq(1), ierr)
    else
      call MPI_SCAN(ibuf, jbuf, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Scan', -1, 8, 8, nb)
    if (nb == 1) then
      call MPI_IEXSCAN(ibuf, jbuf, 2, MPI_INTEGER, MPI_SUM, comm, rq(1), ierr)
    else
      call MPI_EXSCAN(ibuf, jbuf, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
    end if
    call done(nb)
    call ex_coll('MPI_Exscan', -1, 8, 8, nb)
  end subroutine
end program
